/* tests/harness/runner_best_cpu_test.cu - the runner's speedup_vs_best_cpu and
 * size axis (harness/runner.c, best_cpu_row; the suites' problem.sweep):
 * with the emulated device taken for real hardware, each GPU row of matmul
 * against the fastest passing host CPU row of its problem and dtype (fp32
 * for tf32, which no selected CPU backend runs); none when the rows are
 * emulated; every matmul square on the "square" axis at x = N.
 * Built in the emulated flavour. */
#include "gpu.h"
#include "gpu_exec.h"
#include "gpu_handles.h"
#include "registry.h"
#include "runner.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 512
static result_row rows[MAX_ROWS];
static int nrows;

static int keep_row(void *ctx, const result_row *row)
{
    (void)ctx;
    if (nrows < MAX_ROWS) {
        rows[nrows] = *row;
        rows[nrows].samples = NULL;
        nrows++;
    }
    return 0;
}

static gpu_status gpu;
static progress prog;

static runner make_runner(const backend_def *registry)
{
    runner r;
    memset(&r, 0, sizeof r);
    r.registry = registry;
    r.dtypes = DTYPE_BIT(DTYPE_FP32);
    r.mcfg = measure_cfg_default();
    r.mcfg.warmup = 0;
    r.mcfg.min_reps = r.mcfg.max_reps = 2;
    r.mcfg.min_time_s = 0;
    r.emu_cfg = r.mcfg;
    r.gpu = &gpu;
    r.gpu_open = gpu_exec_open;
    r.gpu_recover = gpu_recover_device;
    r.llc_bytes = 1 << 20;
    r.cpu_name = "test CPU";
    r.threads = 1;
    r.prog = &prog;
    r.emit = keep_row;
    r.named_problems = 1;
    return r;
}

/* The fastest passing host CPU row of w's shape at dtype dt, or NULL. */
static const result_row *fastest_cpu(const result_row *w, const char *dt)
{
    const result_row *best = NULL;
    for (int j = 0; j < nrows; j++) {
        const result_row *c = &rows[j];
        if (strcmp(c->device_kind, "cpu") || strcmp(c->mode, "host") || strcmp(c->check, "pass") ||
            strcmp(c->shape, w->shape) || strcmp(c->dtype, dt))
            continue;
        if (!best || c->median_ms < best->median_ms) best = c;
    }
    return best;
}

static void best_cpu(void)
{
    const suite_entry *e = suite_find("matmul");
    problem probs[2];
    char err[128];
    EXPECT(e->def->parse("32x32x32", &probs[0], err, sizeof err) == 0 &&
               e->def->parse("48x48x48", &probs[1], err, sizeof err) == 0, "parse");
    gpu_status real = gpu;
    real.emulated = 0; /* as if timed on a GPU: the emulator's times stand in */
    static const char *const names[] = {"cpu-omp", "cpu-blas", "cuda-tiled", "cublas"};
    static const char *const modes[] = {"host", "resident"};
    for (int emulated = 0; emulated < 2; emulated++) {
        runner r = make_runner(BACKENDS);
        r.gpu = emulated ? &gpu : &real;
        r.dtypes = DTYPE_BIT(DTYPE_FP32) | DTYPE_BIT(DTYPE_TF32);
        r.backends = names;
        r.nbackends = 4;
        r.modes = modes;
        r.nmodes = 2;
        nrows = 0;
        EXPECT(runner_run(&r, e, probs, 2) == 0, "best_cpu: runner");
        int gpu_rows = 0, fallback = 0;
        for (int i = 0; i < nrows; i++) {
            const result_row *w = &rows[i];
            if (strcmp(w->check, "pass")) continue;
            EXPECT(strcmp(w->sweep, "square") == 0 && w->sweep_x == atof(w->shape),
                   "%s: sweep '%s' x %g", w->shape, w->sweep, w->sweep_x);
            if (strcmp(w->device_kind, "gpu") || emulated) {
                EXPECT(isnan(w->speedup_vs_best_cpu) && !w->best_cpu[0], "%s %s %s: no speedup vs CPU",
                       w->backend, w->mode, emulated ? "(emulated)" : "");
                continue;
            }
            gpu_rows++;
            const result_row *b = fastest_cpu(w, w->dtype);
            if (!b) b = fastest_cpu(w, "fp32");
            fallback += b && strcmp(b->dtype, w->dtype) != 0;
            EXPECT(b && strcmp(w->best_cpu, b->backend) == 0 &&
                       fabs(w->speedup_vs_best_cpu - b->median_ms / w->median_ms) <=
                           1e-12 * w->speedup_vs_best_cpu,
                   "%s %s %s: %g vs %s, want %g vs %s", w->shape, w->backend, w->dtype,
                   w->speedup_vs_best_cpu, w->best_cpu, b ? b->median_ms / w->median_ms : NAN,
                   b ? b->backend : "-");
        }
        if (!emulated) {
            EXPECT(gpu_rows > 0, "GPU rows with a speedup vs the best CPU: %d", gpu_rows);
            EXPECT(fallback > 0, "tf32 rows measured against the fp32 CPU rows: %d", fallback);
        }
    }
}

int main(void)
{
    gpu_probe(0, &gpu);
    EXPECT(gpu.usable && gpu.emulated, "emulator probe: %s", gpu.why);
    progress_init(&prog, 0);
    best_cpu();
    gpu_handles_release_all();
    TEST_END();
}
