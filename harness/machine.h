/* harness/machine.h - which machine a row ran on, and what work it measured.
 *
 * The machine class: the CPU model's words and each distinct GPU name as a
 * file name ("Intel(R) Xeon(R) Processor", no GPU: intel-xeon-processor; two
 * H100s beside an EPYC: amd-epyc-9654_nvidia-h100-80gb-hbm3-x2). The gate
 * keeps a baseline per class (ci/baselines/<class>.csv); a run's `machine`
 * column is `--name`, else its host and class.
 *
 * The workload key: everything that makes two rows the same work, so that
 * rows of two runs (two machines) are compared only when their keys match:
 *   <suite>@<version>/<shape>/<dtype>/<mode>/t<threads>/x<replicas>
 * The suite's version (suite_def.version) is bumped when its work changes (a
 * default size, a fill, a FLOP count), never otherwise. The backend is not in
 * the key: backends are what a comparison ranks on one workload.
 */
#ifndef HARNESS_MACHINE_H
#define HARNESS_MACHINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The class of a machine whose CPU model is cpu (NULL: "unknown cpu") and
 * whose GPUs are named by the context lines ctx[0..n) of the form
 * "gpu: N NAME, cc ..." (other lines ignored), into out (cap bytes). */
void machine_class(const char *cpu, const char *const *ctx, int n, char *out, size_t cap);

/* The workload key of a row, into out (cap bytes); replicas < 1 reads 1. */
void machine_workload(const char *suite, int version, const char *shape, const char *dtype,
                      const char *mode, int threads, int replicas, char *out, size_t cap);

/* Whether name is a usable --name: 1 to 64 of [A-Za-z0-9._-], not starting
 * with '-' or '.'. */
int machine_name_ok(const char *name);

/* A pair of a "NAME=NUMBER,..." list: bench --merge's --price (machine
 * names, USD per hour) and --weights (workload keys or suites). */
#define MACHINE_KV_NAME 256
typedef struct machine_kv {
    char name[MACHINE_KV_NAME];
    double v;
} machine_kv;

/* Appends the pairs of list s to kv[*n..max): each item NAME=NUMBER, split
 * at its last '=', NAME not empty, NUMBER finite with lo < v (lo_open) or
 * lo <= v, and v <= hi; no NAME twice (with those already in kv). opt names
 * the option in the message. 0, or 2 with one line in err naming the bad
 * item and the limit. */
int machine_kv_parse(const char *s, const char *opt, double lo, int lo_open, double hi,
                     machine_kv *kv, int *n, int max, char *err, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
