/* harness/timer.h - the host clock: monotonic, in milliseconds.
 * Host time around asynchronous GPU work is only meaningful after a
 * synchronization; device time comes from CUDA events (GPU layer). */
#ifndef HARNESS_TIMER_H
#define HARNESS_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

double timer_now_ms(void);

#ifdef __cplusplus
}
#endif
#endif
