/* harness/errmsg.c - thread-local last-error text (see errmsg.h). */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char g_msg[512];
static _Thread_local char g_note[160];
int bench_cuda_sync_launches = 0;

void err_set(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
}

const char *err_get(void) { return g_msg; }

void err_clear(void) { g_msg[0] = '\0'; }

void case_note_set(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_note, sizeof g_note, fmt, ap);
    va_end(ap);
}

const char *case_note_get(void) { return g_note; }

void case_note_clear(void) { g_note[0] = '\0'; }
