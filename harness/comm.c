/* harness/comm.c - the replica seam, process level (comm.h): MPI when the
 * build has it, one rank otherwise. */
#define _POSIX_C_SOURCE 200809L
#include "comm.h"
#include "errmsg.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank, g_size = 1, g_local_rank, g_local_size = 1, g_started;

/* Before MPI starts (a usage error found while parsing the options), the
 * launcher's environment says which rank this is, so that one rank speaks. */
static int env_rank(void)
{
    /* a rank variable alone (a stale PMI_RANK in a shell) makes no job: a
     * launcher sets the job's size too, and it is more than one */
    static const char *const SIZES[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS",
                                        "PMIX_SIZE", NULL};
    int several = 0;
    for (int i = 0; SIZES[i]; i++)
        if (getenv(SIZES[i]) && atoi(getenv(SIZES[i])) > 1) several = 1;
    if (!several) return 0;
    static const char *const VARS[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL};
    for (int i = 0; VARS[i]; i++)
        if (getenv(VARS[i]) && *getenv(VARS[i])) return atoi(getenv(VARS[i]));
    if (getenv("SLURM_STEP_NUM_TASKS") && getenv("SLURM_PROCID")) return atoi(getenv("SLURM_PROCID"));
    return 0;
}

int comm_rank(void) { return g_started ? g_rank : env_rank(); }
int comm_size(void) { return g_size; }
int comm_local_rank(void) { return g_local_rank; }
int comm_local_size(void) { return g_local_size; }

#ifdef BENCH_HAVE_MPI

/* Launched by mpirun / mpiexec (OpenMPI, MPICH, PMIx) or as an srun step. */
static int launched(void)
{
    static const char *const VARS[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
                                       "SLURM_STEP_NUM_TASKS", NULL};
    for (int i = 0; VARS[i]; i++)
        if (getenv(VARS[i]) && *getenv(VARS[i])) return 1;
    return 0;
}

#define MPI_TRY(call)                                                     \
    do {                                                                  \
        int rc_ = (call);                                                 \
        if (rc_ != MPI_SUCCESS) {                                         \
            char s_[MPI_MAX_ERROR_STRING];                                \
            int l_ = 0;                                                   \
            if (MPI_Error_string(rc_, s_, &l_) != MPI_SUCCESS) l_ = 0;    \
            s_[l_] = 0;                                                   \
            err_set("%s failed (%s:%d): %s", #call, __FILE__, __LINE__, s_); \
            return -1;                                                    \
        }                                                                 \
    } while (0)

static int start_mpi(int *argc, char ***argv)
{
    int provided = 0, flag = 0;
    MPI_TRY(MPI_Initialized(&flag));
    if (!flag) MPI_TRY(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    g_started = 1;
    MPI_TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &g_size));
    MPI_Comm node;
    MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL,
                                &node));
    MPI_TRY(MPI_Comm_rank(node, &g_local_rank));
    MPI_TRY(MPI_Comm_size(node, &g_local_size));
    MPI_TRY(MPI_Comm_free(&node));
    return 0;
}

int comm_init(int *argc, char ***argv)
{
    if (!launched() || g_started) return 0;
    return start_mpi(argc, argv);
}

const char *comm_mpi_version(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    if (g_started && !v[0] && MPI_Get_library_version(v, &n) == MPI_SUCCESS) {
        v[n < (int)sizeof v ? n : (int)sizeof v - 1] = 0;
        char *nl = strpbrk(v, ",\n");   /* "Open MPI v4.1.4, package: ..." */
        if (nl) *nl = 0;
    }
    return v;
}

void comm_finalize(void)
{
    int done = 0;
    if (g_started && MPI_Finalized(&done) == MPI_SUCCESS && !done) MPI_Finalize();
}

/* Ends every rank of the job at once, after one line on stderr. */
static void comm_abort(int code, const char *msg) __attribute__((noreturn));
static void comm_abort(int code, const char *msg)
{
    fprintf(stderr, "bench: rank %d of %d: %s\n", g_rank, g_size, msg);
    fflush(stderr);
    if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* An agreement helper's MPI call failed: the ranks cannot stay in step. */
#define AGREE(call)                                                          \
    do {                                                                     \
        if ((call) != MPI_SUCCESS) comm_abort(1, #call " failed: the ranks cannot stay in step"); \
    } while (0)

int comm_max_int(int v)
{
    int out = v;
    if (g_size > 1) AGREE(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return out;
}

void comm_max_doubles(double *v, int n)
{
    if (g_size > 1 && n > 0)
        AGREE(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
}

void comm_bcast_bytes(void *buf, size_t n, int root)
{
    if (g_size > 1 && n > 0) {
        if (n > INT_MAX) comm_abort(1, "comm_bcast_bytes: more than INT_MAX bytes");
        AGREE(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
    }
}

void comm_quiet_barrier(void)
{
    if (g_size <= 1) return;
    MPI_Request rq;
    int done = 0;
    AGREE(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    for (;;) {
        AGREE(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        if (done) break;
        struct timespec ts = {0, 200000}; /* 0.2 ms: a sleeping rank, not a spinning one */
        nanosleep(&ts, NULL);
    }
}

int comm_first_failure(int ok, char *why, size_t whycap)
{
    if (g_size <= 1) return ok ? -1 : 0;
    int mine = ok ? g_size : g_rank, first = g_size;
    AGREE(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (first == g_size) return -1;
    if (whycap > 0) {
        why[whycap - 1] = 0;
        comm_bcast_bytes(why, whycap, first);
    }
    return first;
}

/* ---- the MPI collectives table (comm_ops.h) ---- */

typedef struct mpi_comm {
    MPI_Request *rq;
    int nrq, cap;
} mpi_comm;

static int count_ok(long long n, const char *what)
{
    if (n >= 0 && n <= INT_MAX) return 0;
    err_set("%s: %lld elements, more than MPI's int count (%d)", what, n, INT_MAX);
    return -1;
}

static int mpi_allreduce(void *ctx, const float *send, float *recv, long long n, void *stream)
{
    (void)ctx;
    (void)stream;
    if (count_ok(n, "MPI allreduce")) return -1;
    MPI_TRY(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)n, MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD));
    return 0;
}

static int mpi_allreduce_start(void *ctx, const float *send, float *recv, long long n,
                               void *stream)
{
    mpi_comm *c = (mpi_comm *)ctx;
    (void)stream;
    if (count_ok(n, "MPI iallreduce")) return -1;
    if (c->nrq == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        MPI_Request *p = (MPI_Request *)realloc(c->rq, (size_t)cap * sizeof *p);
        if (!p) {
            err_set("out of memory for MPI requests");
            return -1;
        }
        c->rq = p;
        c->cap = cap;
    }
    MPI_TRY(MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)n, MPI_FLOAT, MPI_SUM,
                           MPI_COMM_WORLD, &c->rq[c->nrq]));
    c->nrq++;
    return 0;
}

static int mpi_progress(void *ctx)
{
    mpi_comm *c = (mpi_comm *)ctx;
    int done = 0;
    if (c->nrq) MPI_TRY(MPI_Testall(c->nrq, c->rq, &done, MPI_STATUSES_IGNORE));
    return 0;
}

static int mpi_wait(void *ctx, void *stream)
{
    mpi_comm *c = (mpi_comm *)ctx;
    (void)stream;
    int n = c->nrq;
    c->nrq = 0;
    if (n) MPI_TRY(MPI_Waitall(n, c->rq, MPI_STATUSES_IGNORE));
    return 0;
}

static int mpi_reduce(void *ctx, const float *send, float *recv, long long n, int root,
                      void *stream)
{
    (void)ctx;
    (void)stream;
    if (count_ok(n, "MPI reduce")) return -1;
    const void *sb = send == recv && g_rank == root ? MPI_IN_PLACE : (const void *)send;
    MPI_TRY(MPI_Reduce(sb, g_rank == root ? recv : NULL, (int)n, MPI_FLOAT, MPI_SUM, root,
                       MPI_COMM_WORLD));
    return 0;
}

static int mpi_bcast(void *ctx, float *buf, long long n, int root, void *stream)
{
    (void)ctx;
    (void)stream;
    if (count_ok(n, "MPI bcast")) return -1;
    MPI_TRY(MPI_Bcast(buf, (int)n, MPI_FLOAT, root, MPI_COMM_WORLD));
    return 0;
}

static int mpi_allgather(void *ctx, const float *send, float *recv, long long n, void *stream)
{
    (void)ctx;
    (void)stream;
    if (count_ok(n, "MPI allgather")) return -1;
    MPI_TRY(MPI_Allgather(send, (int)n, MPI_FLOAT, recv, (int)n, MPI_FLOAT, MPI_COMM_WORLD));
    return 0;
}

static int mpi_reduce_scatter(void *ctx, const float *send, float *recv, long long n,
                              void *stream)
{
    (void)ctx;
    (void)stream;
    if (count_ok(n, "MPI reduce_scatter")) return -1;
    MPI_TRY(MPI_Reduce_scatter_block(send, recv, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    return 0;
}

int comm_mpi_ops(comm_ops *out, char *why, size_t whycap)
{
    static mpi_comm ctx;   /* one world, one table */
    if (!g_started) {
        snprintf(why, whycap, "MPI not started: launch with mpirun -np N or srun");
        return 1;
    }
    comm_ops t = {.name = "mpi",
                  .rank = g_rank,
                  .size = g_size,
                  .ctx = &ctx,
                  .allreduce = mpi_allreduce,
                  .allreduce_start = mpi_allreduce_start,
                  .progress = mpi_progress,
                  .wait = mpi_wait,
                  .reduce = mpi_reduce,
                  .bcast = mpi_bcast,
                  .allgather = mpi_allgather,
                  .reduce_scatter = mpi_reduce_scatter};
    *out = t;
    return 0;
}

#else /* one rank */

int comm_init(int *argc, char ***argv)
{
    static const char *const SIZES[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS",
                                        NULL};
    (void)argc;
    (void)argv;
    for (int i = 0; SIZES[i]; i++) {
        const char *v = getenv(SIZES[i]);
        if (v && atoi(v) > 1) { /* several ranks would each write a run of their own */
            err_set("launched as one of %s ranks (%s), but this build has no MPI: install "
                    "libopenmpi-dev openmpi-bin and rebuild", v, SIZES[i]);
            return -1;
        }
    }
    return 0;
}

const char *comm_mpi_version(void) { return ""; }

void comm_finalize(void) {}

int comm_max_int(int v) { return v; }
void comm_max_doubles(double *v, int n) { (void)v; (void)n; }
void comm_bcast_bytes(void *buf, size_t n, int root) { (void)buf; (void)n; (void)root; }
void comm_quiet_barrier(void) {}
int comm_first_failure(int ok, char *why, size_t whycap)
{
    (void)why;
    (void)whycap;
    return ok ? -1 : 0;
}

int comm_mpi_ops(comm_ops *out, char *why, size_t whycap)
{
    memset(out, 0, sizeof *out);
    snprintf(why, whycap, "this build has no MPI (apt-get install libopenmpi-dev openmpi-bin, "
                          "then rebuild)");
    return 1;
}

#endif

/* ---- one replica (comm none) ---- */

static int none_allreduce(void *ctx, const float *send, float *recv, long long n, void *stream)
{
    (void)ctx;
    (void)stream;
    if (send != recv && n > 0) memmove(recv, send, (size_t)n * sizeof(float));
    return 0;
}

static int none_wait(void *ctx, void *stream)
{
    (void)ctx, (void)stream;
    return 0;
}

static int none_reduce(void *ctx, const float *send, float *recv, long long n, int root,
                       void *stream)
{
    (void)root;
    return none_allreduce(ctx, send, recv, n, stream);
}

static int none_bcast(void *ctx, float *buf, long long n, int root, void *stream)
{
    (void)ctx, (void)buf, (void)n, (void)root, (void)stream;
    return 0;
}

void comm_none_ops(comm_ops *out)
{
    comm_ops t = {.name = "none",
                  .rank = 0,
                  .size = 1,
                  .ctx = NULL,
                  .allreduce = none_allreduce,
                  .allreduce_start = none_allreduce,
                  .progress = NULL,
                  .wait = none_wait,
                  .reduce = none_reduce,
                  .bcast = none_bcast,
                  .allgather = none_allreduce,
                  .reduce_scatter = none_allreduce};
    *out = t;
}

int comm_group_close(const comm_ops *c, int rc)
{
    char first[512]; /* errmsg.c keeps 512 */
    if (!rc) return comm_group(c, 0);
    snprintf(first, sizeof first, "%s", err_get());
    /* closed, once; its answer (NCCL repeats the group's failure) is said
     * after the failure that came first */
    if (comm_group(c, 0)) err_set("%s; the group closed failing too", first);
    else err_set("%s", first);
    return rc;
}
