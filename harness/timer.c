/* harness/timer.c - CLOCK_MONOTONIC in milliseconds. */
#define _POSIX_C_SOURCE 200809L
#include "timer.h"

#include <time.h>

double timer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
