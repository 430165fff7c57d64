/* harness/errmsg.h - the one place a failure's text is kept.
 * Library code records why it failed (err_set) and returns a status; the
 * caller that decides what to do (skip a case, fail a row, exit) reads it
 * with err_get.  Only main() exits.
 */
#ifndef HARNESS_ERRMSG_H
#define HARNESS_ERRMSG_H

#ifdef __cplusplus
extern "C" {
#endif

/* printf-style; replaces the previous message. Thread-safe (thread-local). */
void err_set(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *err_get(void);   /* "" when nothing was recorded */
void err_clear(void);

/* A note a backend leaves for its row, such as the algorithm a library chose
 * ("cuDNN algo IMPLICIT_PRECOMP_GEMM"): kept per thread like the error, cleared
 * by the runner before a case's checked run and appended to the row's note
 * after it. */
void case_note_set(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *case_note_get(void);   /* "" when nothing was noted */
void case_note_clear(void);

/* Debug switch: when non-zero, GPU code synchronizes after every launch so an
 * asynchronous fault is reported at the launch that caused it.  Set from
 * BENCH_CUDA_SYNC=1 or bench --cuda-sync. */
extern int bench_cuda_sync_launches;

#ifdef __cplusplus
}
#endif
#endif
