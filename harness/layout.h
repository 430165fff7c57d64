/* harness/layout.h - the buffers of one problem, as a suite declares them.
 *
 * The runner allocates, fills, poisons, uploads, splits and checks buffers by
 * these declarations alone, for CPU and GPU backends and every GPU mode:
 *
 *   role  IN      filled by the suite's fill(), read by the backend;
 *                 rotated among input sets where one set would sit in cache
 *         OUT     written by the backend, poisoned (0xFF bytes: NaN) before
 *                 the checked run, checked, copied back in end-to-end modes
 *         INOUT   filled, read and written (C with beta != 0; a training
 *                 step's weights); with `stateful`, its state persists from
 *                 repetition to repetition: never rotated, uploaded once,
 *                 copied back only for the check
 *         SCRATCH the backend's own space, neither filled nor checked
 *   keep  (OUT) the output stays on the device in every mode: never copied
 *         back per repetition, read from the device for the check (a
 *         training step's gradients: PyTorch leaves them there too)
 *   split (streams-N, STREAMS_CHUNK)
 *         WHOLE   every chunk needs all of it: uploaded first, once
 *         CHUNK   byte range of chunk c of n from the suite's chunk()
 *         REDUCE  (OUT) every chunk writes a partial of the whole; the
 *                 suite's reduce() sums the n partials on the device
 */
#ifndef HARNESS_LAYOUT_H
#define HARNESS_LAYOUT_H

#include <stddef.h>
#include "../ops/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { ROLE_IN, ROLE_OUT, ROLE_INOUT, ROLE_SCRATCH } buf_role;
typedef enum { SPLIT_WHOLE, SPLIT_CHUNK, SPLIT_REDUCE } buf_split;
/* streams-N: split one problem into chunks, or pipeline independent items
 * (each item a whole problem: a sequence of mini-batches). */
typedef enum { STREAMS_CHUNK, STREAMS_PIPELINE } streams_kind;

#define LAYOUT_MAX_BUFS 12

typedef struct case_buf {
    const char *name;
    buf_role role;
    buf_split split;
    size_t bytes;
    /* Typed buffers (layout_add_dt): the dtype and the element count. The
     * runner fills a 16-bit one (bf16, fp16) in fp32 and converts it once;
     * untyped ones (layout_add: bytes, u8, ints) are filled as they are. */
    int typed;
    dtype_t dtype;
    size_t count;
    int keep;       /* OUT only: device-resident in every mode (see above) */
} case_buf;

typedef struct case_layout {
    int nbufs;
    case_buf buf[LAYOUT_MAX_BUFS];
    size_t workspace;       /* device scratch a GPU backend may use (bytes) */
    int stateful;           /* INOUT state persists across repetitions */
    streams_kind streams;
    int max_chunks;         /* streams-N needs N <= max_chunks */
    double ref_bytes;       /* host memory the reference takes */
    int sets;               /* input sets, exactly (a step suite: step s takes set
                             * s mod sets on every backend and in every mode, so
                             * runs compare step by step); 0: as the caches say */
    int trace;              /* 1 + the buffer whose first float is recorded after
                             * every step (a step suite's loss); 0: none */
} case_layout;

/* Adds an untyped buffer of `bytes`; returns its index. */
int layout_add(case_layout *l, const char *name, buf_role role, buf_split split, size_t bytes);
/* Adds a buffer of `count` elements of dtype dt; returns its index. */
int layout_add_dt(case_layout *l, const char *name, buf_role role, buf_split split, dtype_t dt,
                  size_t count);

#ifdef __cplusplus
}
#endif
#endif
