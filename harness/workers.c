#define _GNU_SOURCE /* sigabbrev_np */
/* harness/workers.c - worker processes sharing memory (workers.h): fork,
 * the job handshake over process-shared semaphores, and the reaping. */
#include "workers.h"
#include "errmsg.h"
#include "interrupt.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the parent and the workers share (one mapping, made before the fork). */
typedef struct control {
    sem_t go[WORKERS_MAX];   /* the parent posts worker w's: run the job (or quit) */
    sem_t done;              /* each worker posts it once per job */
    volatile int quit;       /* set before the last go: leave */
    volatile int status[WORKERS_MAX];   /* the last job's: 0, or -1 */
} control;

struct workers {
    int n;
    pid_t pid[WORKERS_MAX];  /* 0: reaped */
    control *ctl;
    int broken;              /* a worker died or failed: no more runs */
};

void *workers_shared(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        err_set("out of memory for %zu bytes shared with the workers (mmap: %s)", n,
                strerror(errno));
        return NULL;
    }
    return p; /* anonymous pages start zeroed */
}

void workers_unshare(void *p, size_t n)
{
    if (p) munmap(p, n ? n : 1);
}

/* ---- in a worker ---------------------------------------------------------- */

typedef struct worker_arg {
    control *ctl;
    const workers_job *job;
    int w;
    int rc;
} worker_arg;

/* The worker's fresh thread (workers.h: OpenMP after fork): its jobs until quit. */
static void *worker_thread(void *p)
{
    worker_arg *a = (worker_arg *)p;
    control *c = a->ctl;
    int ok = !a->job->init || a->job->init(a->job->ctx, a->w) == 0;
    for (;;) {
        while (sem_wait(&c->go[a->w]) != 0)
            if (errno != EINTR) {
                a->rc = 1;
                return NULL;
            }
        if (c->quit) break;
        c->status[a->w] = ok && a->job->job(a->job->ctx, a->w) == 0 ? 0 : -1;
        sem_post(&c->done);
    }
    a->rc = 0;
    return NULL;
}

void workers_child_init(pid_t parent)
{
    /* the parent may die between the fork and this line: then nobody would
     * send the death signal, so look */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
}

/* Worker w's life after the fork; never returns. */
static void worker_main(control *c, const workers_job *job, int w, pid_t parent, pid_t pgid)
{
    workers_child_init(parent);
    (void)setpgid(0, pgid); /* the parent sets it too: whichever runs first */
    worker_arg a = {.ctl = c, .job = job, .w = w, .rc = 1};
    pthread_t t;
    if (pthread_create(&t, NULL, worker_thread, &a) != 0 || pthread_join(t, NULL) != 0) _exit(1);
    _exit(a.rc); /* never exit(): the parent's stdio buffers and atexit work are not ours */
}

/* ---- in the parent -------------------------------------------------------- */

static const char *sig_name(int sig, char *buf, size_t cap)
{
    const char *a = sigabbrev_np(sig);
    if (a) snprintf(buf, cap, "SIG%s", a);
    else snprintf(buf, cap, "signal %d", sig);
    return buf;
}

static void reap(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
}

/* Every live worker killed and reaped. */
static void kill_all(workers *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->pid[i] > 0) kill(w->pid[i], SIGKILL);
    for (int i = 0; i < w->n; i++)
        if (w->pid[i] > 0) {
            reap(w->pid[i], NULL);
            w->pid[i] = 0;
        }
    w->broken = 1;
}

static void free_workers(workers *w)
{
    for (int i = 0; i < w->n; i++) sem_destroy(&w->ctl->go[i]);
    sem_destroy(&w->ctl->done);
    workers_unshare(w->ctl, sizeof *w->ctl);
    free(w);
}

int workers_start(workers **out, int n, const workers_job *job)
{
    *out = NULL;
    if (n < 1 || n > WORKERS_MAX) {
        err_set("%d workers: want 1 to %d", n, WORKERS_MAX);
        return -1;
    }
    workers *w = (workers *)calloc(1, sizeof *w);
    control *c = w ? (control *)workers_shared(sizeof *c) : NULL;
    if (!c) {
        free(w);
        err_set("out of memory for %d workers", n);
        return -1;
    }
    w->ctl = c;
    int sems = sem_init(&c->done, 1, 0) == 0;
    for (int i = 0; i < n && sems; i++) {
        sems = sem_init(&c->go[i], 1, 0) == 0;
        w->n = i + sems;
    }
    if (!sems) {
        err_set("sem_init: %s", strerror(errno));
        free_workers(w);
        return -1;
    }
    const pid_t parent = getpid();
    fflush(NULL); /* nothing buffered is copied into the workers */
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) worker_main(c, job, i, parent, i ? w->pid[0] : 0);
        if (pid < 0) {
            err_set("fork of worker %d: %s", i, strerror(errno));
            kill_all(w);
            free_workers(w);
            return -1;
        }
        w->pid[i] = pid;
        (void)setpgid(pid, w->pid[0]);
    }
    *out = w;
    return 0;
}

/* A worker that has ended, as one line into err_set: 1; 0 none has. */
static int any_dead(workers *w)
{
    char buf[32];
    for (int i = 0; i < w->n; i++) {
        int st = 0;
        if (w->pid[i] <= 0 || waitpid(w->pid[i], &st, WNOHANG) != w->pid[i]) continue;
        pid_t pid = w->pid[i];
        w->pid[i] = 0;
        if (WIFSIGNALED(st))
            err_set("worker %d (pid %d) killed by %s", i, (int)pid, sig_name(WTERMSIG(st), buf, sizeof buf));
        else
            err_set("worker %d (pid %d) exited with status %d", i, (int)pid, WEXITSTATUS(st));
        return 1;
    }
    return 0;
}

int workers_run(workers *w)
{
    if (w->broken) {
        err_set("the workers were stopped by an earlier failure");
        return -1;
    }
    for (int i = 0; i < w->n; i++) {
        w->ctl->status[i] = -1;
        sem_post(&w->ctl->go[i]);
    }
    for (int left = w->n; left > 0;) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 20 * 1000000L; /* how soon a death or a signal is seen */
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        if (sem_timedwait(&w->ctl->done, &t) == 0) {
            left--;
            continue;
        }
        if (errno != ETIMEDOUT && errno != EINTR) {
            err_set("sem_timedwait: %s", strerror(errno));
            kill_all(w);
            return -1;
        }
        if (interrupt_signal()) {
            kill_all(w);
            err_set("interrupted");
            return 1;
        }
        if (any_dead(w)) {
            kill_all(w);
            return -1;
        }
    }
    for (int i = 0; i < w->n; i++)
        if (w->ctl->status[i] != 0) {
            err_set("worker %d (pid %d): its job failed", i, (int)w->pid[i]);
            kill_all(w);
            return -1;
        }
    return 0;
}

void workers_stop(workers *w)
{
    if (!w) return;
    w->ctl->quit = 1;
    for (int i = 0; i < w->n; i++)
        if (w->pid[i] > 0) sem_post(&w->ctl->go[i]);
    /* a second to leave (they wait for their go), then SIGKILL */
    for (int ms = 0; ms < 1000; ms += 5) {
        int live = 0;
        for (int i = 0; i < w->n; i++)
            if (w->pid[i] > 0) {
                if (waitpid(w->pid[i], NULL, WNOHANG) == w->pid[i]) w->pid[i] = 0;
                else live = 1;
            }
        if (!live) break;
        struct timespec d = {0, 5 * 1000000L};
        nanosleep(&d, NULL);
    }
    kill_all(w);
    free_workers(w);
}
