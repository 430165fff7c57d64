/* bench/suite_transfer.c - the transfer suite (the bandwidthTest / nvbandwidth
 * role): H2D, D2H and D2D copies, pinned vs pageable, sync vs async, over a size
 * sweep of 4 KiB ... 256 MiB (x4 steps; --quick: 4 KiB, 1 MiB, 16 MiB), in
 * GB/s, with the per-copy time (latency at small sizes) in median_ms. The copy
 * itself is in bench/gpu_transfer.c. */
#include "suite.h"
#include "gpu_cases.h"

#include <stdlib.h>
#include <string.h>

#define BACKEND "cuda-memcpy"

static const size_t SIZES[] = {4u << 10,  16u << 10, 64u << 10, 256u << 10, 1u << 20,
                               4u << 20,  16u << 20, 64u << 20, 256u << 20};
static const size_t QUICK_SIZES[] = {4u << 10, 1u << 20, 16u << 20};
/* Emulated copies are plain memcpy; default sweeps stop here. */
#define EMU_MAX_BYTES (16u << 20)

static int size_list(const bench_opts *o, const size_t **sizes)
{
    *sizes = o->quick ? QUICK_SIZES : SIZES;
    return o->quick ? (int)(sizeof QUICK_SIZES / sizeof *QUICK_SIZES)
                    : (int)(sizeof SIZES / sizeof *SIZES);
}

static int count_modes(void)
{
    int n = 0;
    while (GPU_TRANSFER_MODES[n]) n++;
    return n;
}

static int transfer_plan(const bench_opts *o, int *ncases, char *err, size_t errcap)
{
    const size_t *sizes;
    (void)err, (void)errcap;
    *ncases = suite_backend_selected(o, BACKEND) ? size_list(o, &sizes) * count_modes() : 0;
    return 0;
}

static void size_label(size_t bytes, char *out, size_t cap)
{
    if (bytes >= (1u << 20)) snprintf(out, cap, "copy-%zuMiB", bytes >> 20);
    else snprintf(out, cap, "copy-%zuKiB", bytes >> 10);
}

static int transfer_run(bench_run *r)
{
    const bench_opts *o = r->opt;
    const size_t *sizes;
    int ns = size_list(o, &sizes);
    if (!suite_backend_selected(o, BACKEND)) return 0;
    if (!r->gpu.usable) {
        result_row row;
        run_row_start(r, &row, "transfer", "-", BACKEND, "-", "u8", "-");
        snprintf(row.check, sizeof row.check, "skip");
        snprintf(row.note, sizeof row.note, "no usable GPU: %s", r->gpu.why);
        return run_emit(r, &row) ? -1 : 0;
    }
    for (int si = 0; si < ns; si++) {
        char name[32], shape[32];
        size_label(sizes[si], name, sizeof name);
        snprintf(shape, sizeof shape, "%zu", sizes[si]);
        for (int m = 0; GPU_TRANSFER_MODES[m]; m++) {
            result_row row;
            run_row_start(r, &row, "transfer", name, BACKEND, GPU_TRANSFER_MODES[m], "u8", shape);
            char label[96];
            snprintf(label, sizeof label, "transfer %s %s", name, GPU_TRANSFER_MODES[m]);
            progress_start(&r->prog, label);
            if (r->gpu.emulated && sizes[si] > EMU_MAX_BYTES) {
                snprintf(row.check, sizeof row.check, "skip");
                snprintf(row.note, sizeof row.note, "emulated: default sweeps stop at %u MiB",
                         EMU_MAX_BYTES >> 20);
                row.bytes = (double)sizes[si];
            } else {
                if (r->gpu.usable) {
                    if (gpu_transfer_case(GPU_TRANSFER_MODES[m], sizes[si], run_gpu_cfg(r), &row))
                        run_gpu_recover(r);
                } else {
                    snprintf(row.check, sizeof row.check, "skip");
                    snprintf(row.note, sizeof row.note, "no usable GPU: %s", r->gpu.why);
                }
            }
            run_emit(r, &row);
            free(row.samples);
            progress_finish_one(&r->prog);
        }
    }
    return 0;
}

static const char *const *transfer_backends(void)
{
    static const char *const names[] = {BACKEND, NULL};
    return names;
}

const suite_def SUITE_TRANSFER = {
    "transfer",
    "H2D / D2H / D2D copy bandwidth and latency: pinned vs pageable, sync vs async",
    0,
    transfer_backends,
    transfer_plan,
    transfer_run,
};
