/* harness/job.c - the process as a job (job.h). */
#define _POSIX_C_SOURCE 200809L
#include "job.h"
#include "comm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

void job_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) close(n); /* cannot happen: the lowest number is taken */
        }
}

/* FNV-1a, 64 bits: enough to tell two command lines apart, not a secret. */
static unsigned long long fnv(unsigned long long h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int env_matters(const char *kv)
{
    static const char *const PREFIXES[] = {"BENCH_", "CUDAEMU_", "OMP_", "OPENBLAS_", NULL};
    for (int i = 0; PREFIXES[i]; i++)
        if (strncmp(kv, PREFIXES[i], strlen(PREFIXES[i])) == 0) return 1;
    return 0;
}

unsigned long long job_selection_hash(int argc, char *const *argv)
{
    unsigned long long h = 14695981039346656037ULL;
    for (int i = 1; i < argc; i++) h = fnv(h, argv[i], strlen(argv[i]) + 1);
    /* the environment, order-free: each entry hashed alone, the hashes summed */
    unsigned long long env = 0;
    for (char **e = environ; e && *e; e++)
        if (env_matters(*e)) env += fnv(14695981039346656037ULL, *e, strlen(*e));
    return fnv(h, (const char *)&env, sizeof env);
}

int job_agree(int status, const char *err, unsigned long long hash, int *say)
{
    *say = status != 0 && err && *err;
    if (comm_size() <= 1) return status;
    /* rank 0's status, selection and error, to every rank */
    unsigned long long mine[3] = {(unsigned long long)status, hash,
                                  *say ? fnv(14695981039346656037ULL, err, strlen(err)) : 0};
    unsigned long long r0[3] = {mine[0], mine[1], mine[2]};
    comm_bcast_bytes(r0, sizeof r0, 0);
    int rank = comm_rank(), v = status;
    if (rank != 0 && hash != r0[1] && !*say) { /* its own error, if any, says more */
        fprintf(stderr, "bench: rank %d: its arguments or environment (BENCH_*, CUDAEMU_*, OMP_*, "
                        "OPENBLAS_*) differ from rank 0's: every rank of a job must run the same "
                        "selection\n", rank);
        fflush(stderr);
        v = 2;
        *say = 0;
    } else if (rank != 0 && *say && r0[0] != 0 && r0[2] == mine[2] && hash == r0[1]) {
        *say = 0; /* rank 0 says the same line */
    }
    return comm_max_int(v);
}

static int verdict_sent;

int job_verdict(int v)
{
    if (comm_size() <= 1 || verdict_sent) return v;
    verdict_sent = 1;
    comm_bcast_bytes(&v, sizeof v, 0);
    return v;
}

int job_end(int rc)
{
    if (comm_size() > 1) comm_bcast_bytes(&rc, sizeof rc, 0);
    comm_finalize();
    return rc;
}
