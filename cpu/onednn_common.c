/* cpu/onednn_common.c - the engine and stream cpu-onednn's files share. */
#include "onednn_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dnnl_engine_t onednn_engine;
dnnl_stream_t onednn_stream;

static void onednn_release(void)
{
    if (onednn_stream) dnnl_stream_destroy(onednn_stream);
    if (onednn_engine) dnnl_engine_destroy(onednn_engine);
    onednn_stream = NULL;
    onednn_engine = NULL;
}

int onednn_ready(void)
{
    if (onednn_engine) return 0;
    DNNL_TRY(dnnl_engine_create(&onednn_engine, dnnl_cpu, 0));
    DNNL_TRY(dnnl_stream_create(&onednn_stream, onednn_engine, dnnl_stream_default_flags));
    atexit(onednn_release);
    return 0;
fail:
    if (onednn_engine) dnnl_engine_destroy(onednn_engine);
    onednn_engine = NULL;
    return -1;
}

dnnl_data_type_t onednn_dt(dtype_t dt)
{
    return dt == DTYPE_BF16 ? dnnl_bf16 : dt == DTYPE_FP16 ? dnnl_f16 : dnnl_f32;
}

void onednn_unsupported(char *why, size_t cap, const char *what, dtype_t dt)
{
    const char *e = err_get(), *status = strrchr(e, ':');   /* DNNL_TRY's "...: <status>" */
    snprintf(why, cap, "oneDNN %d.%d has no %s %s on this CPU (%s)", dnnl_version()->major,
             dnnl_version()->minor, dtype_name(dt), what, status ? status + 2 : e);
}
