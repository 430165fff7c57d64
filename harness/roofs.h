/* harness/roofs.h - the roofs of a run and the verdict of a row against them.
 *
 * A roof is what a device can do, measured in the same run (bench/roof_probe.c:
 * the suites' own STREAM triad and GEMMs through the registry) or known on
 * paper (cores x clock x FLOP per cycle; a GPU's properties). Each value keeps
 * a one-line "how". The table goes into the CSV as `roof-...` context lines
 * (roofs_context_lines; results/README.md documents them), the JSON and the
 * report read it back from there (roofs_parse_line).
 *
 * roof_verdict is pure: from the roofs and a finished row it fills intensity,
 * pct_roof, verdict and bound, and for a low or above-roof verdict a reason in
 * the note. The thresholds below are the only place they are stated.
 */
#ifndef HARNESS_ROOFS_H
#define HARNESS_ROOFS_H

#include <stddef.h>
#include "result.h"
#include "../ops/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The verdict thresholds, pct_roof in %: at-roof from ROOF_AT_PCT, low under
 * ROOF_LOW_PCT, above-roof over ROOF_ABOVE_PCT (past the noise of a probe
 * that measured a little less than a suite's own run: the probe's value is the
 * roof), ok between. */
#define ROOF_AT_PCT 70.0
#define ROOF_LOW_PCT 10.0
#define ROOF_ABOVE_PCT 115.0
/* A low row whose repetition takes less than this is overhead-bound (calls,
 * thread start-up, a launch): its reason says so. */
#define ROOF_OVERHEAD_MS 0.1
/* A low compute-bound row whose work would take less than this at the roof
 * is a small problem: fixed costs (starting threads, packing, calls) are a
 * large part of any time it can reach; its reason says so. */
#define ROOF_SMALL_MS 0.25

typedef enum { ROOF_CPU, ROOF_GPU, ROOF_NDEV } roof_dev;

/* The units of the roofs, for every writer and reader of them (context
 * lines, report, JSON, chart): bandwidths (memory, copies) in GB/s = 1e9 B/s,
 * compute in GFLOP/s, the launch latency in microseconds. */
#define ROOF_UNIT_BW "GB/s"
#define ROOF_UNIT_COMPUTE "GFLOP/s"
#define ROOF_UNIT_LATENCY "us"

/* A measured roof whose measurement stayed disturbed (harness/disturb.h: the
 * probe measured again and something else still ran) says so in its how,
 * after this tag; it reads low, and the verdicts against it say so. */
#define ROOF_DISTURBED_TAG "measured while disturbed"

/* Repetitions whose median is at least ROOF_VARY_FACTOR times their fastest
 * varied: the machine's speed changed while they ran (a core shared with
 * another tenant, a clock that moved), which no disturbance count sees. A
 * roof whose probe varied says so in its how, after ROOF_VARIED_TAG and the
 * factor (roof_how_varied writes it, roof_varied reads it back); a low row
 * whose own repetitions varied, or whose roof's did, says so as its reason. */
#define ROOF_VARY_FACTOR 1.5
#define ROOF_VARIED_TAG "varied within the probe: median repetition"

/* One value and how it was known; v NAN: not known. */
typedef struct roof_num {
    double v;
    char how[320];
} roof_num;

typedef struct roof_device {
    int present;                      /* this device has roofs in the run */
    roof_num bw;                      /* memory bandwidth, GB/s (STREAM triad) */
    roof_num compute[DTYPE_COUNT];    /* GFLOP/s per dtype (the best GEMM) */
    roof_num h2d, d2h;                /* GPU: pinned copies, GB/s */
    roof_num launch;                  /* GPU: launch latency, us */
    roof_num peak[DTYPE_COUNT];       /* paper compute peak, GFLOP/s */
    roof_num peak_bw;                 /* paper memory bandwidth, GB/s (GPU) */
} roof_device;

typedef struct roofs {
    int measured;       /* 1: the run measured roofs; 0: not (--no-roofs, or none applied) */
    char why[96];       /* measured 0: why ("--no-roofs") */
    double probe_s;     /* the probe's wall time */
    roof_device dev[ROOF_NDEV];
} roofs;

/* Appends to n->how that its probe's repetitions varied, when median_ms is
 * at least ROOF_VARY_FACTOR x fastest_ms (v_median: the value at the median,
 * in the roof's unit). */
void roof_how_varied(roof_num *n, double fastest_ms, double median_ms, double v_median,
                     const char *unit);

/* The factor median / fastest of a roof whose probe varied (its how says
 * so); 0 when it did not or the how does not say. */
double roof_varied(const roof_num *n);

/* A row whose work is one copy of its io_bytes: which way (the transfer
 * suite's own modes; suite_def.mode_copy says). H2D/D2H run against the
 * pinned copy roof of their direction (bound transfer), D2D reads and writes
 * every byte in device memory (bound bandwidth). */
typedef enum { ROOF_COPY_NONE, ROOF_COPY_H2D, ROOF_COPY_D2H, ROOF_COPY_D2D } roof_copy;

/* The bytes a copy of `bytes` moves through memory, as bandwidthTest and
 * nvbandwidth count them: device-to-device reads and writes each byte (2x),
 * a copy across the link moves it once. The transfer rows' bytes and GB/s
 * and the copy roof's traffic both come from here. */
double roof_copy_traffic(roof_copy way, double bytes);

/* What the verdict needs of a case beyond its row. */
typedef struct roof_case {
    int copies;          /* an end-to-end GPU mode: its copies count (the transfer roofs) */
    double h2d_bytes;    /* copied to the device per repetition (copies) */
    double d2h_bytes;    /* copied back per repetition (copies) */
    int overlap;         /* copies: on streams of their own, overlapping the kernels
                          * and each other (the slowest sets the roof); 0: in turn */
    int whole_step;      /* a whole training step: % of the compute roof (MFU) */
    int reference;       /* the op's reference backend (the plain loops) */
    double llc_bytes;    /* the CPU's last-level cache (a cache-resident working set) */
    roof_copy copy;      /* the row is one copy (ROOF_COPY_NONE: not) */
    const char *caveat;  /* why its backend runs below what it could on this machine
                          * (backend_def.caveat: a library on slower kernels); NULL: none */
    double peer_ms;      /* the fastest earlier passing row of the same problem, device
                          * and dtype (NAN or 0: none) */
    const char *peer;    /* its backend */
} roof_case;

/* A low row at least this many times slower than a peer on the same problem
 * says so: that backend's path for the shape is slow, not the machine. */
#define ROOF_PEER_FACTOR 2.0

/* Every value unknown, nothing measured. */
void roofs_init(roofs *rf);

/* ROOF_CPU / ROOF_GPU for a device_kind column ("cpu", "gpu"); -1 otherwise. */
int roof_dev_of(const char *device_kind);

/* Fills row's intensity, pct_roof, verdict and bound from rf (NULL: none) and
 * c; clears them where no roof applies (emulated rows that passed: the
 * note says "emulated: no roof"; rows not passed or untimed; rows without a work count;
 * a device or dtype without a roof). A low or above-roof verdict appends its
 * reason to the note. Pure: reads nothing else. */
void roof_verdict(const roofs *rf, const roof_case *c, result_row *row);

/* The `roof-...` context lines of rf (without "# "), appended to
 * lines[*n...], at most max in all, each at most cap bytes. */
void roofs_context_lines(const roofs *rf, char (*lines)[512], int *n, int max);

/* Reads one context line (without "# ") into rf: 1 when it was a roof line. */
int roofs_parse_line(roofs *rf, const char *line);

/* The names of the roof lines' parts, for tables: "cpu"/"gpu". */
const char *roof_dev_name(int d);

#ifdef __cplusplus
}
#endif
#endif
