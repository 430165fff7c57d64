/* report/json.c - Google Benchmark JSON from a run's rows (see json.h).
 * One benchmark per row, named suite/case/backend/dtype/mode/shape, time in ms
 * (real_time = cpu_time = median).  Our figures go in as user counters;
 * a cell that is empty or NaN leaves its key out.  Skip rows are kept the
 * way Google Benchmark reports a benchmark that errored: error_occurred true,
 * error_message the note, zero time and iterations. */
#include "json.h"
#include "atomic_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The body of a JSON string: quotes, backslashes and control characters escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
}

void json_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    put_escaped(f, s ? s : "");
    fputc('"', f);
}

/* ,\n<indent>"key": "value" */
static void put_str(FILE *f, const char *indent, const char *key, const char *v)
{
    fprintf(f, ",\n%s\"%s\": ", indent, key);
    json_put_string(f, v);
}

/* ,\n<indent>"key": value -- or nothing when v is not a finite number. */
static void put_num(FILE *f, const char *indent, const char *key, double v)
{
    if (isfinite(v)) fprintf(f, ",\n%s\"%s\": %.10g", indent, key, v);
}

/* The first word of the command line: the program that ran. */
static void executable(const char *cmd, char *out, size_t cap)
{
    size_t n = strcspn(cmd, " ");
    if (n >= cap) n = cap - 1;
    memcpy(out, cmd, n);
    out[n] = '\0';
}

/* Length of the key of a "key: value" context line, 0 when it has none. */
static size_t ctx_keylen(const char *line)
{
    const char *colon = strstr(line, ": ");
    return colon ? (size_t)(colon - line) : 0;
}

static void write_context(const rundata *rd, FILE *f)
{
    const csv_table *t = rd->t;
    const char *cmd = rd_context(rd, "command"), *cores = rd_context(rd, "cores");
    char exe[512];
    executable(cmd ? cmd : "bench", exe, sizeof exe);
    const char *in = "    ";
    fprintf(f, "  \"context\": {\n%s\"date\": ", in);
    json_put_string(f, rd_context(rd, "utc"));
    put_str(f, in, "host_name", rd_context(rd, "host"));
    put_str(f, in, "executable", exe);
    fprintf(f, ",\n%s\"num_cpus\": %d", in, cores ? atoi(cores) : 0);
    fprintf(f, ",\n%s\"mhz_per_cpu\": 0", in);
    fprintf(f, ",\n%s\"cpu_scaling_enabled\": false", in);
    fprintf(f, ",\n%s\"caches\": []", in);
    put_str(f, in, "library_build_type", "release");
    /* Our context lines, each under its own key; repeated keys (one gpu line
     * per GPU) join into one value with "; ". */
    for (int i = 0; i < t->ncontext; i++) {
        size_t kn = ctx_keylen(t->context[i]);
        int first = kn > 0;
        for (int j = 0; j < i && first; j++)
            first = !(ctx_keylen(t->context[j]) == kn && strncmp(t->context[j], t->context[i], kn) == 0);
        if (!first) continue;
        fprintf(f, ",\n%s\"%.*s\": \"", in, (int)kn, t->context[i]);
        int nval = 0;
        for (int j = i; j < t->ncontext; j++) {
            if (ctx_keylen(t->context[j]) != kn || strncmp(t->context[j], t->context[i], kn) != 0)
                continue;
            if (nval++) fputs("; ", f);
            put_escaped(f, t->context[j] + kn + 2);
        }
        fputc('"', f);
    }
    fprintf(f, "\n  },\n");
}

/* The family of a row: the same suite, backend, dtype and mode (one "benchmark
 * function"), instances its cases. Families numbered by first appearance. */
static int same_family(const rundata *rd, int a, int b)
{
    return rd_is(rd, a, COL_SUITE, rd_str(rd, b, COL_SUITE)) &&
           rd_is(rd, a, COL_BACKEND, rd_str(rd, b, COL_BACKEND)) &&
           rd_is(rd, a, COL_DTYPE, rd_str(rd, b, COL_DTYPE)) &&
           rd_is(rd, a, COL_MODE, rd_str(rd, b, COL_MODE));
}

static void write_benchmark(const rundata *rd, FILE *f, int row, int family, int instance)
{
    const char *in = "      ";
    char name[512];
    snprintf(name, sizeof name, "%s/%s/%s/%s/%s/%s", rd_str(rd, row, COL_SUITE),
             rd_str(rd, row, COL_CASE), rd_str(rd, row, COL_BACKEND), rd_str(rd, row, COL_DTYPE),
             rd_str(rd, row, COL_MODE), rd_str(rd, row, COL_SHAPE));
    int skip = rd_is(rd, row, COL_CHECK, "skip");
    double threads = rd_num(rd, row, COL_THREADS), reps = rd_num(rd, row, COL_REPS);
    fprintf(f, "    {\n%s\"name\": ", in);
    json_put_string(f, name);
    fprintf(f, ",\n%s\"family_index\": %d", in, family);
    fprintf(f, ",\n%s\"per_family_instance_index\": %d", in, instance);
    put_str(f, in, "run_name", name);
    put_str(f, in, "run_type", "iteration");
    fprintf(f, ",\n%s\"repetitions\": 1,\n%s\"repetition_index\": 0", in, in);
    fprintf(f, ",\n%s\"threads\": %d", in, threads >= 1 ? (int)threads : 1);
    if (skip) {
        fprintf(f, ",\n%s\"error_occurred\": true", in);
        put_str(f, in, "error_message", rd_str(rd, row, COL_NOTE));
    }
    fprintf(f, ",\n%s\"iterations\": %d", in, (!skip && reps >= 0) ? (int)reps : 0);
    /* an emulated row's time is the emulator's, never a GPU's: none is written */
    int emu = rd_emulated(rd, row);
    double med = skip || emu ? 0 : rd_num(rd, row, COL_MEDIAN_MS);
    fprintf(f, ",\n%s\"real_time\": %.10g", in, isfinite(med) ? med : 0);
    fprintf(f, ",\n%s\"cpu_time\": %.10g", in, isfinite(med) ? med : 0);
    put_str(f, in, "time_unit", "ms");
    if (emu) /* Google Benchmark's free-text label */
        put_str(f, in, "label", "emulated: CUDA host emulator, correctness only, not a GPU timing");
    /* counters: our figures, by schema column; the work of one repetition as flops and bytes */
    static const struct { const char *key; int col; } COUNTERS[] = {
        {"GFLOP/s", COL_GFLOPS}, {"GB/s", COL_GBPS}, {"speedup", COL_SPEEDUP},
        {"max_abs_err", COL_MAX_ABS_ERR}, {"rel_err", COL_REL_ERR}, {"tolerance", COL_TOLERANCE},
        {"min_ms", COL_MIN_MS}, {"max_ms", COL_MAX_MS}, {"mad_ms", COL_MAD_MS},
        {"h2d_ms", COL_H2D_MS}, {"compute_ms", COL_COMPUTE_MS}, {"d2h_ms", COL_D2H_MS},
        {"overlap_eff", COL_OVERLAP_EFF}, {"flops", COL_FLOPS}, {"bytes", COL_BYTES},
        {"items_per_second", COL_SAMPLES_PER_S}};
    static const int TIMED[] = {COL_GFLOPS, COL_GBPS, COL_SPEEDUP, COL_MIN_MS, COL_MAX_MS,
                                COL_MAD_MS, COL_H2D_MS, COL_COMPUTE_MS, COL_D2H_MS,
                                COL_OVERLAP_EFF, COL_SAMPLES_PER_S};
    for (size_t c = 0; c < sizeof COUNTERS / sizeof COUNTERS[0]; c++) {
        int timed = 0;
        for (size_t t = 0; t < sizeof TIMED / sizeof TIMED[0]; t++) timed |= TIMED[t] == COUNTERS[c].col;
        if (!(emu && timed)) put_num(f, in, COUNTERS[c].key, rd_num(rd, row, COUNTERS[c].col));
    }
    /* training rows: the phases (timings) and the loss trace (not a timing) */
    if (!emu && *rd_str(rd, row, COL_PHASE_MS)) put_str(f, in, "phase_ms", rd_str(rd, row, COL_PHASE_MS));
    if (*rd_str(rd, row, COL_TRACE)) put_str(f, in, "trace", rd_str(rd, row, COL_TRACE));
    if (!skip) put_num(f, in, "check_pass", rd_is(rd, row, COL_CHECK, "pass") ? 1 : 0);
    put_num(f, in, "emulated", emu ? 1 : 0);
    if (!skip && *rd_str(rd, row, COL_NOTE)) put_str(f, in, "note", rd_str(rd, row, COL_NOTE));
    if (*rd_str(rd, row, COL_REPRO)) put_str(f, in, "repro", rd_str(rd, row, COL_REPRO));
    fprintf(f, "\n    }");
}

int json_write(const rundata *rd, const char *path)
{
    atomic_file a;
    if (af_open(&a, path)) return -1;
    FILE *f = a.f;
    fprintf(f, "{\n");
    write_context(rd, f);
    fprintf(f, "  \"benchmarks\": [\n");
    int n = rd_nrows(rd), nfam = 0;
    int *family = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!family) {
        fprintf(stderr, "bench: out of memory writing '%s'\n", path);
        af_abort(&a);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int fam = -1, inst = 0;
        for (int j = 0; j < i; j++)
            if (same_family(rd, i, j)) {
                fam = family[j];
                inst++;
            }
        family[i] = fam >= 0 ? fam : nfam++;
        if (i) fprintf(f, ",\n");
        write_benchmark(rd, f, i, family[i], inst);
    }
    free(family);
    fprintf(f, "\n  ]\n}\n");
    return af_commit(&a);
}
