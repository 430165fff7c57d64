/* cpu/onednn_common.h - what cpu-onednn's files share (built only when oneDNN
 * is found): one CPU engine and stream for the process, the checked-call
 * macro, and our dtypes as oneDNN's. */
#ifndef CPU_ONEDNN_COMMON_H
#define CPU_ONEDNN_COMMON_H

#include <dnnl.h>
#include <dnnl_debug.h>

#include "../ops/dtype.h"
#include "errmsg.h"

/* The engine and stream, created by onednn_ready (destroyed at exit). */
extern dnnl_engine_t onednn_engine;
extern dnnl_stream_t onednn_stream;

/* Creates them once. 0, or -1 with err_set. */
int onednn_ready(void);

/* fp32, tf32 (fp32 storage) -> dnnl_f32; bf16 -> dnnl_bf16; fp16 -> dnnl_f16. */
dnnl_data_type_t onednn_dt(dtype_t dt);

/* A dt_skip reason after a failed primitive creation: "oneDNN 2.6 has no
 * fp16 <what> on this CPU (<oneDNN's status from err_get>)" into why. */
void onednn_unsupported(char *why, size_t cap, const char *what, dtype_t dt);

/* Jumps to `fail` after err_set naming the call and oneDNN's status. */
#define DNNL_TRY(call)                                                                     \
    do {                                                                                   \
        dnnl_status_t st_ = (call);                                                        \
        if (st_ != dnnl_success) {                                                         \
            err_set("cpu-onednn: %s failed: %s", #call, dnnl_status2str(st_));             \
            goto fail;                                                                     \
        }                                                                                  \
    } while (0)

#endif
