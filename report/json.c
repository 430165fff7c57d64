/* report/json.c - Google Benchmark JSON from a run's rows (see json.h).
 * One benchmark per row, named suite/case/backend/dtype/mode/shape, time in ms
 * (real_time = cpu_time = median).  Every other schema column goes in under
 * its name, numbers as user counters, text as strings (a new column comes
 * out by itself); a cell that is empty or NaN leaves its key out.  The
 * context holds the run's context lines as strings and its roofs as a
 * "roofs" object (numbers with unit and how, per device).  Skip rows are kept the
 * way Google Benchmark reports a benchmark that errored: error_occurred true,
 * error_message the note, zero time and iterations. */
#include "json.h"
#include "atomic_file.h"
#include "roofline.h"
#include "schema.h"

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

/* <sep>\n<indent>"key": {"value": v, "unit": "...", "how": "..."}, sep a comma
 * after the object's first member (*n counts them) -- or nothing when v is
 * not known. */
static void put_roof(FILE *f, const char *indent, int *n, const char *key, const roof_num *v,
                     const char *unit)
{
    if (!isfinite(v->v)) return;
    fprintf(f, "%s\n%s\"%s\": {\"value\": %.10g, \"unit\": ", (*n)++ ? "," : "", indent, key, v->v);
    json_put_string(f, unit);
    fputs(", \"how\": ", f);
    json_put_string(f, v->how);
    fputc('}', f);
}

/* An object of one roof per dtype ("compute", "peak"): the dtypes known. */
static void put_roof_dtypes(FILE *f, const char *indent, int *n, const char *key, const roof_num *v)
{
    int any = 0, m = 0;
    for (int t = 0; t < DTYPE_COUNT; t++) any |= isfinite(v[t].v);
    if (!any) return;
    char in[32];
    snprintf(in, sizeof in, "%s  ", indent);
    fprintf(f, "%s\n%s\"%s\": {", (*n)++ ? "," : "", indent, key);
    for (int t = 0; t < DTYPE_COUNT; t++) put_roof(f, in, &m, dtype_name((dtype_t)t), &v[t], ROOF_UNIT_COMPUTE);
    fprintf(f, "\n%s}", indent);
}

/* The context's "roofs" object: the run's roofs as numbers per device, each
 * with its unit and how it was known, read back from the run's roof- context
 * lines (which stay as strings beside it); {"measured": false, "why": ...}
 * for a run without; nothing for a run from before the roofs. */
static void write_roofs(const rundata *rd, FILE *f)
{
    roofs rf;
    if (!roofline_roofs(rd, &rf)) return;
    fprintf(f, ",\n    \"roofs\": {\n      \"measured\": %s", rf.measured ? "true" : "false");
    if (!rf.measured) {
        fputs(",\n      \"why\": ", f);
        json_put_string(f, rf.why);
    } else if (isfinite(rf.probe_s)) {
        fprintf(f, ",\n      \"probe_s\": %.10g", rf.probe_s);
    }
    for (int d = 0; rf.measured && d < ROOF_NDEV; d++) {
        const roof_device *v = &rf.dev[d];
        const char *in = "        ";
        int n = 0;
        if (!v->present) continue;
        fprintf(f, ",\n      \"%s\": {", roof_dev_name(d));
        put_roof(f, in, &n, "bandwidth", &v->bw, ROOF_UNIT_BW);
        put_roof_dtypes(f, in, &n, "compute", v->compute);
        put_roof(f, in, &n, "h2d", &v->h2d, ROOF_UNIT_BW);
        put_roof(f, in, &n, "d2h", &v->d2h, ROOF_UNIT_BW);
        put_roof(f, in, &n, "launch", &v->launch, ROOF_UNIT_LATENCY);
        put_roof(f, in, &n, "peak_bandwidth", &v->peak_bw, ROOF_UNIT_BW);
        put_roof_dtypes(f, in, &n, "peak", v->peak);
        fputs("\n      }", f);
    }
    fputs("\n    }", f);
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
     * per GPU) join into one value with "; ". The "roofs:" line is the
     * "roofs" object's (write_roofs). */
    for (int i = 0; i < t->ncontext; i++) {
        size_t kn = ctx_keylen(t->context[i]);
        int first = kn > 0 && !(kn == 5 && strncmp(t->context[i], "roofs", 5) == 0);
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
    write_roofs(rd, f);
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

/* The columns an entry holds in a key of Google Benchmark's own (its name,
 * time, iterations, threads, error, check_pass, note) or not at all (every
 * sample: the CSV has them; the samples column, by its type). */
int json_col_elsewhere(int c)
{
    static const int ELSEWHERE[] = {COL_SUITE, COL_CASE, COL_BACKEND, COL_DTYPE, COL_MODE, COL_SHAPE,
                                    COL_THREADS, COL_REPS, COL_MEDIAN_MS, COL_CHECK, COL_NOTE};
    for (size_t i = 0; i < sizeof ELSEWHERE / sizeof ELSEWHERE[0]; i++)
        if (ELSEWHERE[i] == c) return 1;
    return SCHEMA[c].type == COLT_SAMP;
}

/* A column's key: its schema name, or Google Benchmark's for the rates. */
const char *json_col_key(int c)
{
    return c == COL_GFLOPS ? "GFLOP/s" : c == COL_GBPS ? "GB/s" : c == COL_SAMPLES_PER_S ? "items_per_second"
                                                                                      : SCHEMA[c].name;
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
    /* every other column, from the schema (a new column comes out by
     * itself): numbers as counters, text as strings, each under its column
     * name (three under Google Benchmark's: GFLOP/s, GB/s,
     * items_per_second); an empty cell leaves its key out, and an emulated
     * row's timings are never written */
    for (int c = 0; c < COL_COUNT; c++) {
        if (json_col_elsewhere(c) || (emu && schema_col_timed(c))) continue;
        if (SCHEMA[c].type == COLT_STR) {
            if (*rd_str(rd, row, c)) put_str(f, in, json_col_key(c), rd_str(rd, row, c));
        } else {
            put_num(f, in, json_col_key(c), rd_num(rd, row, c));
        }
    }
    if (!skip) put_num(f, in, "check_pass", rd_is(rd, row, COL_CHECK, "pass") ? 1 : 0);
    if (!skip && *rd_str(rd, row, COL_NOTE)) put_str(f, in, "note", rd_str(rd, row, COL_NOTE));
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
