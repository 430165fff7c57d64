/* harness/interrupt.c - see interrupt.h. */
#define _GNU_SOURCE /* SI_TKILL */
#include "interrupt.h"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

typedef struct sig_info {
    int sig;
    const char *name;
    int repeats; /* sent again by the kernel on its own: a second one never kills */
    int only_dfl; /* caught only while nobody else handles it (a profiler's SIGPROF) */
} sig_info;

/* Every signal whose default action ends the process, faults aside (SEGV,
 * BUS, FPE, ILL, ABRT, TRAP, SYS are crashes and keep their default); the
 * real-time signals SIGRTMIN..SIGRTMAX are added at install. */
static const sig_info SIGS[] = {
    {SIGINT, "SIGINT", 0, 0},     {SIGTERM, "SIGTERM", 0, 0},     {SIGHUP, "SIGHUP", 0, 0},
    {SIGQUIT, "SIGQUIT", 0, 0},   {SIGUSR1, "SIGUSR1", 0, 0},     {SIGUSR2, "SIGUSR2", 0, 0},
    {SIGALRM, "SIGALRM", 0, 0},   {SIGPIPE, "SIGPIPE", 1, 0},     {SIGXCPU, "SIGXCPU", 1, 0},
    {SIGXFSZ, "SIGXFSZ", 1, 0},   {SIGVTALRM, "SIGVTALRM", 0, 1}, {SIGPROF, "SIGPROF", 0, 1},
    {SIGIO, "SIGIO", 0, 1},       {SIGPWR, "SIGPWR", 0, 1},       {SIGSTKFLT, "SIGSTKFLT", 0, 1},
};
enum { NSIGS = (int)(sizeof SIGS / sizeof SIGS[0]), MAXSIG = 65 };

static volatile int caught; /* changed with atomics only */
static volatile sig_atomic_t finished;
static sem_t wake;
static volatile sig_atomic_t installed[MAXSIG]; /* by signal number: ours is in place */

/* Two activity buffers: the writer fills the one the handler is not
 * pointed at, then flips the index (no torn message). */
static char activity[2][256];
static volatile sig_atomic_t act_idx = -1;

/* Whether the kernel sends sig again by itself (PIPE, XCPU, XFSZ). */
static int repeats(int sig) { return sig == SIGPIPE || sig == SIGXCPU || sig == SIGXFSZ; }

static void say(const char *s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    /* the kernel's SIGXFSZ answers a write of ours past the file size limit
     * (Linux sends it as SI_USER from this very process): that write fails
     * (EFBIG) and is reported as the write error it is */
    if (sig == SIGXFSZ && info && info->si_code == SI_USER && info->si_pid == getpid()) return;
    /* the first one is the one reported, also when two land at once on two
     * threads (a lock-free compare-and-swap is safe in a handler) */
    int first = __sync_bool_compare_and_swap(&caught, 0, sig);
    if (!first) return;
    for (int s = 1; s < MAXSIG; s++) /* a second one a person sends ends the process */
        if (installed[s] && !repeats(s)) signal(s, SIG_DFL);
    if (sig == SIGPIPE) return; /* stderr may be the closed pipe itself */
    sem_post(&wake); /* the watcher says what is awaited, if it takes a while */
}

/* The watcher: when the process is still busy WATCH_MS after the first
 * signal, it says what the run is waiting for and that a second signal quits
 * (a 40 s call used to keep the person guessing). A run that ends sooner
 * prints only its closing line. */
#define WATCH_MS 1000
static void *watcher(void *arg)
{
    (void)arg;
    while (sem_wait(&wake) != 0) {
    }
    struct timespec ts = {WATCH_MS / 1000, (WATCH_MS % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
    if (finished) return NULL;
    int a = act_idx, sig = caught;
    if (sig == SIGPIPE) return NULL; /* stderr may be the closed pipe itself */
    char line[400];
    if (a >= 0)
        snprintf(line, sizeof line, "bench: %s received while %s: stopping as soon as the call "
                 "in progress returns; send it again to quit at once\n", interrupt_name(sig),
                 activity[a]);
    else
        snprintf(line, sizeof line, "bench: %s received: stopping; send it again to quit at "
                 "once\n", interrupt_name(sig));
    if (!finished) say(line);
    return NULL;
}

void interrupt_done(void) { finished = 1; }

void interrupt_install(void)
{
    pthread_t t;
    pthread_attr_t at;
    if (sem_init(&wake, 0, 0) == 0 && pthread_attr_init(&at) == 0) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        /* the handlers block signals in it: they land on the threads that work */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        /* without it a signal still stops the run; only the notice is missing */
        (void)pthread_create(&t, &at, watcher, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&at);
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIGS; i++) sigaddset(&sa.sa_mask, SIGS[i].sig);
    for (int s = 1; s < MAXSIG; s++) {
        int i = 0, rt = s >= SIGRTMIN && s <= SIGRTMAX;
        while (i < NSIGS && SIGS[i].sig != s) i++;
        if ((i == NSIGS && !rt) || sigaction(s, NULL, &old) != 0) continue;
        /* nohup's ignored SIGHUP stays ignored (a shell's background job has
         * SIGINT ignored too, yet kill -INT to it is meant: that one is
         * caught); a signal someone else handles (a profiler's SIGPROF, a
         * library's real-time signal) stays theirs */
        if (s == SIGHUP && old.sa_handler == SIG_IGN) continue;
        if ((rt || SIGS[i].only_dfl) && ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL))
            continue;
        installed[s] = sigaction(s, &sa, NULL) == 0;
    }
}

int interrupt_signal(void) { return caught; }

void interrupt_set_activity(const char *what)
{
    if (!what) {
        act_idx = -1;
        return;
    }
    int next = act_idx == 0 ? 1 : 0;
    snprintf(activity[next], sizeof activity[next], "%.250s", what);
    act_idx = next;
}

static volatile sig_atomic_t report_sig0;    /* the signal caught before the report began */
static volatile sig_atomic_t read_protected; /* a run's own report: its CSV is read whole */

void interrupt_report_begin(int protect_read)
{
    report_sig0 = caught;
    read_protected = protect_read;
}

int interrupt_stops_reading(void) { return read_protected ? 0 : interrupt_stops_report(); }

int interrupt_stops_report(void)
{
    int sig = caught;
    return report_sig0 || sig == SIGPIPE ? 0 : sig;
}

void interrupt_adopt(int sig)
{
    if (sig > 0) __sync_bool_compare_and_swap(&caught, 0, sig);
}

void interrupt_raise_pipe(void)
{
    __sync_bool_compare_and_swap(&caught, 0, SIGPIPE);
}

const char *interrupt_name(int sig)
{
    static char buf[24];
    for (int i = 0; i < NSIGS; i++)
        if (SIGS[i].sig == sig) return SIGS[i].name;
    if (sig == SIGRTMIN) return "SIGRTMIN";
    if (sig > SIGRTMIN && sig <= SIGRTMAX) snprintf(buf, sizeof buf, "SIGRTMIN+%d", sig - SIGRTMIN);
    else snprintf(buf, sizeof buf, "signal %d", sig);
    return buf;
}
