/* emu/src/nccl.cpp - the NCCL subset of the CUDA host emulator (emu/include/nccl.h).
 *
 * Communicators.  ncclGetUniqueId makes an id naming this process (its pid)
 * and a serial number; the ranks calling ncclCommInitRank with it form a
 * clique.  Outside a group the call waits (the API lock released) until all
 * ranks have joined; inside ncclGroupStart/End the wait is at ncclGroupEnd.
 * When no other host thread is alive to join, or none does within
 * CUDAEMU_NCCL_TIMEOUT_MS, the call fails with one line instead of hanging.
 * An id from another process fails at once: ranks live in one process here.
 *
 * Collectives.  A call checks its arguments (NCCL's error codes, the text in
 * ncclGetLastError) and its buffers (device memory of the comm's device, or
 * managed memory; else one line and ncclInvalidArgument), gives the comm's
 * next sequence number, and queues one op on the rank's stream (at
 * ncclGroupEnd inside a group, which cancels them all when a call of the
 * group failed, as NCCL does; CUDAEMU_NCCL_FAIL=N fails the Nth call).  The ranks' ops with the same sequence number
 * form one Coll.  Streams stay lazy: an op runs only when its stream is
 * drained, and its gate (internal.h, Op::gate) lets it run only once every
 * rank has queued its op; the first rank to get there drains the other ranks'
 * streams up to their op, then does the whole collective at once (reading
 * every send buffer, writing every receive buffer, through a staging copy so
 * that in-place calls work).  So a missing cudaStreamWaitEvent between the
 * kernel writing a buffer and the collective reading it gives a wrong result,
 * as it can on a GPU.  A rank that never calls, or a cycle of stream
 * dependencies through the collective (both hang on a GPU), fail the
 * collective with one line and the sticky cudaErrorLaunchFailure on every
 * device whose op runs; the comms' async error becomes ncclInvalidUsage.
 *
 * Reductions go in rank order: ((x0 op x1) op x2) ..., each step rounded to
 * the data type (16-bit floats through float, rounded once per step).  ncclAvg
 * on floating types premultiplies each input by 1/nranks (rounded to the
 * type), as NCCL does, and sums; on integer types it divides the sum
 * (truncating).  ncclMax/ncclMin prefer a number to a NaN (fmax/fmin).
 */
#include "internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nccl.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <set>
#include <type_traits>

namespace cudaemu {
namespace nccl {
struct Clique;
struct PreMul {
    ncclDataType_t type;
    unsigned char value[8]; /* ncclScalarHostImmediate: the scalar, read at creation */
    const void *dptr;       /* ncclScalarDevice: read when the collective runs */
};
} // namespace nccl
} // namespace cudaemu

struct ncclComm {
    std::shared_ptr<cudaemu::nccl::Clique> clique;
    int rank = 0, nranks = 0, device = 0;
    bool ready = false;                /* every rank has joined */
    uint64_t seq = 0;                  /* collectives called so far */
    ncclResult_t async = ncclSuccess;  /* ncclCommGetAsyncError */
    std::map<int, cudaemu::nccl::PreMul> premul;
    int next_op = ncclNumOps;
    std::vector<std::shared_ptr<CUstream_st>> streams; /* where its ops were queued */
};

namespace cudaemu {
namespace nccl {

enum class Kind { AllReduce, Broadcast, Reduce, AllGather, ReduceScatter };

/* A rank's reduction: the built-in op or a premultiplied sum. */
struct Red {
    ncclRedOp_t op = ncclSum;
    bool premul = false;
    PreMul pm{};
};

struct Part {
    bool present = false;
    std::shared_ptr<CUstream_st> stream;
    uint64_t pos = 0; /* the op's number on its stream */
    const void *send = nullptr;
    void *recv = nullptr;
    Red red;
    ncclComm *comm = nullptr; /* for messages only */
};

struct Coll {
    enum State { Pending, Running, Done, Failed, Aborted } state = Pending;
    Kind kind;
    const char *name;
    size_t count;
    ncclDataType_t type;
    int op_class; /* the built-in op, or ncclNumOps for a premultiplied sum */
    int root;
    uint64_t seq;
    int nranks;
    std::vector<Part> parts;
    int present = 0;
    std::thread::id runner;
    int draining = -1; /* the rank whose stream the runner is draining */
    std::weak_ptr<Clique> clique;
};

struct Clique {
    int nranks;
    std::vector<ncclComm *> members;
    int joined = 0;
    bool failed = false;
    /* collectives not finished yet, by sequence number */
    std::map<uint64_t, std::shared_ptr<Coll>> colls;
};

namespace {

/* ---- state: the ids waiting for ranks, the live comms, this thread's group ---- */
std::map<uint64_t, std::shared_ptr<Clique>> &forming()
{
    static auto *m = new std::map<uint64_t, std::shared_ptr<Clique>>;
    return *m;
}
std::set<ncclComm *> &comms()
{
    static auto *s = new std::set<ncclComm *>;
    return *s;
}
uint64_t g_next_id = 1;

thread_local int t_group_depth = 0;
/* A collective queued inside a group: its comm, its sequence number, its issue. */
struct GroupOp {
    ncclComm *comm;
    uint64_t seq;
    std::function<ncclResult_t()> issue;
};
thread_local std::vector<GroupOp> t_group_ops;
/* CUDAEMU_NCCL_FAIL: collective calls of the process so far (the injection's count) */
long g_collective_calls = 0;
thread_local std::vector<ncclComm *> t_group_inits;
thread_local ncclResult_t t_group_err = ncclSuccess; /* the group's first error */
thread_local char t_last_error[512] = "";

const char kMagic[16] = "cudaemu-nccl-id";
struct IdBits {
    char magic[16];
    int32_t pid;
    uint64_t serial;
};
static_assert(sizeof(IdBits) <= NCCL_UNIQUE_ID_BYTES, "ncclUniqueId too small");

/* Records the error text (ncclGetLastError) and returns code. */
ncclResult_t fail(ncclResult_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ncclResult_t fail(ncclResult_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
    va_end(ap);
    return code;
}

/* Also prints it: for what a GPU run would not report this way. */
ncclResult_t fail_loud(ncclResult_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ncclResult_t fail_loud(ncclResult_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
    va_end(ap);
    report("%s", t_last_error);
    return code;
}

bool valid(const ncclComm *c) { return c && comms().count(const_cast<ncclComm *>(c)); }

size_t type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

const char *type_name(ncclDataType_t t)
{
    static const char *const n[] = {"ncclInt8",    "ncclUint8",    "ncclInt32",     "ncclUint32",
                                     "ncclInt64",   "ncclUint64",   "ncclFloat16",   "ncclFloat32",
                                     "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
    return t >= 0 && t < ncclNumTypes ? n[t] : "an unknown type";
}

const char *op_name(int op)
{
    static const char *const n[] = {"ncclSum", "ncclProd", "ncclMax", "ncclMin", "ncclAvg"};
    return op >= 0 && op < ncclNumOps ? n[op] : "a ncclRedOpCreatePreMulSum op";
}

/* Device memory of `device` (or managed) holding [p, p + bytes)?  Else why not. */
bool buffer_ok(const void *p, size_t bytes, int device, std::string *why)
{
    if (bytes == 0) return true;
    const Alloc *a = nullptr;
    char buf[160];
    if (!p) {
        *why = "is NULL";
        return false;
    }
    if (!span_ok(p, bytes, &a)) {
        std::snprintf(buf, sizeof buf, "overruns its allocation");
    } else if (!a) {
        std::snprintf(buf, sizeof buf, "is not device memory");
    } else if (a->kind == Alloc::Managed || a->kind == Alloc::Symbol) {
        return true;
    } else if (a->kind != Alloc::Device) {
        std::snprintf(buf, sizeof buf, "is pinned host memory, not device memory");
    } else if (a->device != device) {
        std::snprintf(buf, sizeof buf, "is memory of device %d, not of the comm's device %d",
                      a->device, device);
    } else {
        return true;
    }
    *why = buf;
    return false;
}

/* ---- reductions ---- */
template <class T> constexpr bool is_half()
{
    return std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;
}

template <class T> double num(T v)
{
    if constexpr (is_half<T>()) return double(float(v));
    else return double(v);
}

template <class T> T add(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return T(U(a) + U(b));
    } else {
        return T(a + b);
    }
}

template <class T> T mul(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return T(U(a) * U(b));
    } else {
        return T(a * b);
    }
}

template <class T> T step(int op, T a, T b)
{
    switch (op) {
    case ncclProd: return mul(a, b);
    case ncclMax:
    case ncclMin: {
        const double x = num(a), y = num(b);
        if (std::isnan(x)) return b;
        if (std::isnan(y)) return a;
        return (op == ncclMax ? y > x : y < x) ? b : a;
    }
    default: return add(a, b); /* ncclSum, ncclAvg, premultiplied sums */
    }
}

template <class T> T scalar_of(const PreMul &pm)
{
    T v;
    std::memcpy(&v, pm.dptr ? pm.dptr : pm.value, sizeof v);
    return v;
}

/* out[i] = the reduction over ranks 0..N-1 (in that order) of in[r][i]. */
template <class T> void reduce(const Coll &c, const std::vector<const T *> &in, T *out, size_t n)
{
    const int N = c.nranks;
    const size_t ranks = size_t(N);
    std::vector<T> pre(ranks);
    std::vector<bool> scaled(ranks, false);
    for (int r = 0; r < N; ++r) {
        const Red &rd = c.parts[size_t(r)].red;
        if (rd.premul) {
            pre[size_t(r)] = scalar_of<T>(rd.pm);
            scaled[size_t(r)] = true;
        } else if (rd.op == ncclAvg && !std::is_integral<T>::value) {
            pre[size_t(r)] = T(1.0 / N);
            scaled[size_t(r)] = true;
        }
    }
    const int op = c.op_class == ncclNumOps ? int(ncclSum) : c.op_class;
    for (size_t i = 0; i < n; ++i) {
        T acc = scaled[0] ? mul(in[0][i], pre[0]) : in[0][i];
        for (int r = 1; r < N; ++r) {
            const T x = scaled[size_t(r)] ? mul(in[size_t(r)][i], pre[size_t(r)]) : in[size_t(r)][i];
            acc = step(op, acc, x);
        }
        if constexpr (std::is_integral<T>::value)
            if (op == ncclAvg) acc = T(acc / T(N));
        out[i] = acc;
    }
}

template <class T> void reduce_parts(const Coll &c, size_t offset, T *out, size_t n)
{
    std::vector<const T *> in;
    for (const Part &p : c.parts) in.push_back(static_cast<const T *>(p.send) + offset);
    reduce<T>(c, in, out, n);
}

void reduce_any(const Coll &c, size_t offset, void *out, size_t n)
{
    switch (c.type) {
    case ncclInt8: reduce_parts<int8_t>(c, offset, static_cast<int8_t *>(out), n); break;
    case ncclUint8: reduce_parts<uint8_t>(c, offset, static_cast<uint8_t *>(out), n); break;
    case ncclInt32: reduce_parts<int32_t>(c, offset, static_cast<int32_t *>(out), n); break;
    case ncclUint32: reduce_parts<uint32_t>(c, offset, static_cast<uint32_t *>(out), n); break;
    case ncclInt64: reduce_parts<int64_t>(c, offset, static_cast<int64_t *>(out), n); break;
    case ncclUint64: reduce_parts<uint64_t>(c, offset, static_cast<uint64_t *>(out), n); break;
    case ncclFloat16: reduce_parts<__half>(c, offset, static_cast<__half *>(out), n); break;
    case ncclFloat32: reduce_parts<float>(c, offset, static_cast<float *>(out), n); break;
    case ncclFloat64: reduce_parts<double>(c, offset, static_cast<double *>(out), n); break;
    case ncclBfloat16:
        reduce_parts<__nv_bfloat16>(c, offset, static_cast<__nv_bfloat16 *>(out), n);
        break;
    default: break; /* refused when called */
    }
}

/* The whole collective, every rank's buffers at once (through a staging copy). */
void perform(const Coll &c)
{
    const size_t es = type_size(c.type), N = size_t(c.nranks), n = c.count;
    std::vector<unsigned char> tmp;
    switch (c.kind) {
    case Kind::AllReduce:
    case Kind::Reduce:
        tmp.resize(n * es);
        if (n) reduce_any(c, 0, tmp.data(), n);
        for (size_t r = 0; r < N; ++r)
            if (c.kind == Kind::AllReduce || int(r) == c.root)
                if (n) std::memcpy(c.parts[r].recv, tmp.data(), n * es);
        break;
    case Kind::Broadcast:
        tmp.assign(static_cast<const unsigned char *>(c.parts[size_t(c.root)].send),
                   static_cast<const unsigned char *>(c.parts[size_t(c.root)].send) + n * es);
        for (size_t r = 0; r < N; ++r)
            if (n) std::memcpy(c.parts[r].recv, tmp.data(), n * es);
        break;
    case Kind::AllGather:
        tmp.resize(N * n * es);
        for (size_t r = 0; r < N; ++r)
            if (n) std::memcpy(tmp.data() + r * n * es, c.parts[r].send, n * es);
        for (size_t r = 0; r < N; ++r)
            if (n) std::memcpy(c.parts[r].recv, tmp.data(), N * n * es);
        break;
    case Kind::ReduceScatter:
        tmp.resize(N * n * es);
        if (n) reduce_any(c, 0, tmp.data(), N * n);
        for (size_t r = 0; r < N; ++r)
            if (n) std::memcpy(c.parts[r].recv, tmp.data() + r * n * es, n * es);
        break;
    }
    /* initcheck: what the ranks received is written (sanitize.cpp) */
    for (size_t r = 0; r < N; ++r)
        sanitize_written(c.parts[r].recv, (c.kind == Kind::AllGather ? N : 1) * n * es);
}

/* ---- meeting of the ranks ---- */
void finish(Coll &c, Coll::State s)
{
    c.state = s;
    const uint64_t seq = c.seq;
    if (auto cl = c.clique.lock()) {
        if (s == Coll::Failed)
            for (ncclComm *m : cl->members)
                if (m && m->async == ncclSuccess) m->async = ncclInvalidUsage;
        cl->colls.erase(seq); /* c may be gone from here on */
    }
    api_notify();
}

void fail_coll(Coll &c, int rank, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fail_coll(Coll &c, int rank, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    const ncclComm *comm = c.parts[size_t(rank)].comm;
    report("%s on comm %p (rank %d of %d, its collective #%llu) %s", c.name,
           static_cast<const void *>(comm), rank, c.nranks, (unsigned long long)c.seq + 1, why);
    finish(c, Coll::Failed);
}

bool at_head(const Part &p)
{
    return p.stream->done + 1 == p.pos && p.stream->started == p.stream->done;
}

/* Whether another host thread could still make the call this one waits
 * for: one that has made an API call and is alive.  A thread that has just
 * been started may not have made its first call yet: a lone thread waits up
 * to kGraceMs for one to appear (while pred() stays false) before it decides. */
constexpr double kGraceMs = 500;
bool others_alive(const std::function<bool()> &pred = [] { return false; })
{
    if (live_host_threads() > 1) return true;
    const double until = now_ms() + std::min<double>(kGraceMs, config().nccl_timeout_ms);
    api_wait([&pred] { return pred() || live_host_threads() > 1; }, until);
    return live_host_threads() > 1 || pred();
}

/* Op::gate of rank r's op: true when it may run (the collective is done, has
 * failed or was aborted), false to leave it queued (progress thread only). */
bool gate(std::shared_ptr<Coll> cp, int r)
{
    Coll &c = *cp; /* cp keeps it alive while other threads finish it */
    const std::thread::id me = std::this_thread::get_id();
    for (;;) {
        if (c.state != Coll::Pending && c.state != Coll::Running) return true;
        if (c.state == Coll::Running) {
            if (c.runner == me) {
                fail_coll(c, c.draining, "cannot complete: rank %d's stream must first run work that "
                          "waits for this collective on rank %d (a dependency cycle: a GPU would "
                          "hang here)", c.draining, r);
                return true;
            }
            if (on_progress_thread()) return false;
            api_wait([&c] { return c.state != Coll::Running; }, now_ms() + 1e12);
            continue;
        }
        int missing = -1;
        for (int q = 0; q < c.nranks && missing < 0; ++q)
            if (!c.parts[size_t(q)].present) missing = q;
        if (missing >= 0) {
            if (on_progress_thread()) return false;
            const int ms = config().nccl_timeout_ms;
            auto arrived = [&c] { return c.present == c.nranks || c.state != Coll::Pending; };
            if (others_alive(arrived)) {
                if (api_wait(arrived, now_ms() + ms)) continue;
                fail_coll(c, r, "waits for rank %d, which has not called it within "
                          "CUDAEMU_NCCL_TIMEOUT_MS=%d ms (a GPU would wait forever)", missing, ms);
            } else {
                fail_coll(c, r, "waits for rank %d, which never called it (no other host thread "
                          "is alive to call it; a GPU would wait forever)", missing);
            }
            return true;
        }
        c.state = Coll::Running;
        c.runner = me;
        for (int q = 0; q < c.nranks; ++q) {
            if (q == r) continue;
            c.draining = q;
            const Part &p = c.parts[size_t(q)];
            drain(p.stream.get(), p.pos - 1);
            if (c.state != Coll::Running) return true; /* failed in there */
        }
        c.draining = -1;
        for (int q = 0; q < c.nranks; ++q) {
            if (at_head(c.parts[size_t(q)])) continue;
            if (on_progress_thread()) {
                c.state = Coll::Pending;
                api_notify();
                return false;
            }
            fail_coll(c, q, "cannot complete: rank %d's stream is busy with work that waits for "
                      "this collective (a dependency cycle: a GPU would hang here)", q);
            return true;
        }
        perform(c);
        finish(c, Coll::Done);
        return true;
    }
}

/* ---- calling a collective ---- */
struct Call {
    Kind kind;
    const char *name;
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t type;
    Red red;
    int root;
};

ncclResult_t check_comm(const char *fn, const ncclComm *c)
{
    if (!c) return fail(ncclInvalidArgument, "%s: comm is NULL", fn);
    if (!valid(c)) return fail(ncclInvalidArgument, "%s: comm %p is not a live communicator", fn,
                               static_cast<const void *>(c));
    if (!c->ready)
        return fail(ncclInvalidUsage, "%s: comm %p is not initialized yet (its ranks have not "
                    "all joined; call ncclGroupEnd first)", fn, static_cast<const void *>(c));
    return ncclSuccess;
}

/* Queues rank c->rank's op of collective number seq on s. */
ncclResult_t issue(ncclComm *comm, uint64_t seq, const Call &k, std::shared_ptr<CUstream_st> s)
{
    auto cl = comm->clique;
    auto &slot = cl->colls[seq];
    if (!slot) {
        slot = std::make_shared<Coll>();
        slot->kind = k.kind;
        slot->name = k.name;
        slot->count = k.count;
        slot->type = k.type;
        slot->op_class = k.red.premul ? int(ncclNumOps) : int(k.red.op);
        slot->root = k.root;
        slot->seq = seq;
        slot->nranks = comm->nranks;
        slot->parts.resize(size_t(comm->nranks));
        slot->clique = cl;
    }
    std::shared_ptr<Coll> c = slot;
    if (c->state != Coll::Pending && c->state != Coll::Running)
        return fail(ncclInvalidUsage, "%s: collective #%llu of comm %p has already failed", k.name,
                    (unsigned long long)seq + 1, static_cast<void *>(comm));
    const int op_class = k.red.premul ? int(ncclNumOps) : int(k.red.op);
    if (c->kind != k.kind || c->count != k.count || c->type != k.type || c->op_class != op_class ||
        c->root != k.root)
        return fail_loud(ncclInvalidUsage,
                         "%s on comm %p (rank %d): its collective #%llu does not match rank(s) "
                         "calling %s (count %zu, %s, %s, root %d) with count %zu, %s, %s, root %d",
                         k.name, static_cast<void *>(comm), comm->rank, (unsigned long long)seq + 1,
                         c->name, c->count, type_name(c->type), op_name(c->op_class), c->root,
                         k.count, type_name(k.type), op_name(op_class), k.root);
    const int r = comm->rank;
    Op op;
    op.kind = Op::Work;
    op.gate = [c, r] { return gate(c, r); };
    op.work = [c] { return c->state == Coll::Failed ? cudaErrorLaunchFailure : cudaSuccess; };
    if (enqueue(s.get(), std::move(op)) != cudaSuccess)
        return fail(ncclUnhandledCudaError, "%s: the stream refuses the operation", k.name);
    Part &p = c->parts[size_t(r)];
    p.present = true;
    p.stream = s;
    p.pos = s->issued;
    p.send = k.send;
    p.recv = k.recv;
    p.red = k.red;
    p.comm = comm;
    ++c->present;
    bool known = false;
    for (auto &x : comm->streams) known = known || x == s;
    if (!known) comm->streams.push_back(s);
    api_notify();
    return ncclSuccess;
}

ncclResult_t collective_call(const Call &k0, ncclRedOp_t op, ncclComm *comm, cudaStream_t stream)
{
    Call k = k0;
    const char *fn = k.name;
    /* CUDAEMU_NCCL_FAIL=N: the process's Nth collective call fails, as an
     * enqueue can on a GPU (a test hook: error paths, groups left open) */
    if (++g_collective_calls == config().nccl_fail)
        return fail(ncclInternalError, "%s: failure injected by CUDAEMU_NCCL_FAIL=%ld", fn,
                    config().nccl_fail);
    if (ncclResult_t e = check_comm(fn, comm)) return e;
    if (k.type < 0 || k.type >= ncclNumTypes)
        return fail(ncclInvalidArgument, "%s: invalid data type %d", fn, int(k.type));
    const bool reduces = k.kind == Kind::AllReduce || k.kind == Kind::Reduce ||
                         k.kind == Kind::ReduceScatter;
    if (reduces) {
        if (op >= 0 && op < ncclNumOps) {
            k.red.op = op;
        } else {
            auto it = comm->premul.find(int(op));
            if (it == comm->premul.end())
                return fail(ncclInvalidArgument, "%s: invalid reduction operation %d", fn, int(op));
            if (it->second.type != k.type)
                return fail(ncclInvalidArgument, "%s: reduction op %d was made for %s, not %s", fn,
                            int(op), type_name(it->second.type), type_name(k.type));
            k.red.premul = true;
            k.red.pm = it->second;
        }
        if (k.type == ncclFloat8e4m3 || k.type == ncclFloat8e5m2)
            return fail_loud(ncclInvalidArgument, "%s: reductions of %s are not emulated", fn,
                             type_name(k.type));
    }
    if ((k.kind == Kind::Broadcast || k.kind == Kind::Reduce) &&
        (k.root < 0 || k.root >= comm->nranks))
        return fail(ncclInvalidArgument, "%s: invalid root %d (comm of %d ranks)", fn, k.root,
                    comm->nranks);
    /* the stream: 0 and cudaStreamPerThread are those of the comm's device */
    std::shared_ptr<CUstream_st> s;
    if (!stream || stream == cudaStreamLegacy) {
        s = dev(comm->device).legacy;
    } else if (stream == cudaStreamPerThread) {
        s = dev(comm->device).per_thread;
    } else {
        cudaError_t se = cudaSuccess;
        s = stream_of(stream, &se);
        if (!s) return fail(ncclInvalidArgument, "%s: invalid stream %p", fn, static_cast<void *>(stream));
        if (s->device != comm->device)
            return fail_loud(ncclInvalidArgument, "%s: stream %p belongs to device %d, the comm "
                             "(rank %d) to device %d", fn, static_cast<void *>(stream), s->device,
                             comm->rank, comm->device);
    }
    if (capturing(s.get()))
        return fail_loud(ncclInvalidUsage, "%s: NCCL calls in stream capture are not emulated", fn);
    /* the buffers each rank's part reads and writes */
    const size_t es = type_size(k.type), N = size_t(comm->nranks), n = k.count;
    size_t sbytes = n * es, rbytes = n * es;
    if (k.kind == Kind::AllGather) rbytes = N * n * es;
    if (k.kind == Kind::ReduceScatter) sbytes = N * n * es;
    if (k.kind == Kind::Broadcast && comm->rank != k.root) sbytes = 0;
    if (k.kind == Kind::Reduce && comm->rank != k.root) rbytes = 0;
    std::string why;
    if (!buffer_ok(k.send, sbytes, comm->device, &why))
        return fail_loud(ncclInvalidArgument, "%s (rank %d): sendbuff %p (%zu bytes) %s", fn,
                         comm->rank, k.send, sbytes, why.c_str());
    if (!buffer_ok(k.recv, rbytes, comm->device, &why))
        return fail_loud(ncclInvalidArgument, "%s (rank %d): recvbuff %p (%zu bytes) %s", fn,
                         comm->rank, static_cast<void *>(k.recv), rbytes, why.c_str());
    if (k.red.premul && k.red.pm.dptr && !buffer_ok(k.red.pm.dptr, es, comm->device, &why))
        return fail_loud(ncclInvalidArgument, "%s (rank %d): the device scalar of op %d %s", fn,
                         comm->rank, int(op), why.c_str());
    const uint64_t seq = comm->seq++;
    if (t_group_depth > 0) {
        t_group_ops.push_back({comm, seq, [comm, seq, k, s] { return issue(comm, seq, k, s); }});
        return ncclSuccess;
    }
    return issue(comm, seq, k, s);
}

ncclResult_t collective(const Call &k, ncclRedOp_t op, ncclComm *comm, cudaStream_t stream)
{
    CUDAEMU_LOCK;
    ncclResult_t e = collective_call(k, op, comm, stream);
    if (e && t_group_depth > 0 && !t_group_err) t_group_err = e; /* ncclGroupEnd returns it too */
    return e;
}

/* ---- making communicators ---- */
ncclComm *new_comm(const std::shared_ptr<Clique> &cl, int rank, int device)
{
    auto *c = new ncclComm;
    c->clique = cl;
    c->rank = rank;
    c->nranks = cl->nranks;
    c->device = device;
    cl->members[size_t(rank)] = c;
    ++cl->joined;
    comms().insert(c);
    return c;
}

void drop_comm(ncclComm *c)
{
    if (c->clique) {
        Clique &cl = *c->clique;
        if (cl.members[size_t(c->rank)] == c) {
            cl.members[size_t(c->rank)] = nullptr;
            --cl.joined;
        }
    }
    comms().erase(c);
    delete c;
}

/* Waits until every rank of c's clique has joined (the group's end, or a
 * ncclCommInitRank outside a group).  On failure c leaves the clique and is
 * deleted when `drop` (else it stays, never ready, for ncclCommDestroy). */
ncclResult_t wait_joined(ncclComm *c, bool drop)
{
    Clique &cl = *c->clique;
    const double end = now_ms() + config().nccl_timeout_ms;
    auto joined = [c] { return c->ready; };
    if (!c->ready && others_alive(joined)) api_wait(joined, end);
    if (c->ready) return ncclSuccess;
    std::string missing;
    for (int q = 0; q < cl.nranks; ++q)
        if (!cl.members[size_t(q)]) missing += (missing.empty() ? "" : ", ") + std::to_string(q);
    const int rank = c->rank, n = cl.nranks;
    auto keep = c->clique;
    if (drop) {
        drop_comm(c);
    } else {
        cl.members[size_t(rank)] = nullptr;
        --cl.joined;
        c->clique = nullptr;
    }
    if (cl.joined == 0)
        for (auto it = forming().begin(); it != forming().end(); ++it)
            if (it->second.get() == &cl) {
                forming().erase(it);
                break;
            }
    if (live_host_threads() > 1)
        return fail_loud(ncclInvalidUsage, "ncclCommInitRank: rank %d of %d: rank(s) %s did not "
                         "join within CUDAEMU_NCCL_TIMEOUT_MS=%d ms (a GPU would wait forever)",
                         rank, n, missing.c_str(), config().nccl_timeout_ms);
    return fail_loud(ncclInvalidUsage, "ncclCommInitRank: rank %d of %d waits for rank(s) %s, "
                     "which never joined: no other host thread is alive (call it for every rank "
                     "inside ncclGroupStart/ncclGroupEnd, or from one thread per rank)",
                     rank, n, missing.c_str());
}

ncclResult_t check_device_free(const Clique &cl, int device, int rank)
{
    for (int q = 0; q < cl.nranks; ++q) {
        const ncclComm *m = cl.members[size_t(q)];
        if (m && m->device == device)
            return fail(ncclInvalidUsage, "ranks %d and %d are both on device %d (NCCL needs one "
                        "device per rank)", q, rank, device);
    }
    return ncclSuccess;
}

} // namespace
} // namespace nccl
} // namespace cudaemu

using namespace cudaemu;
using namespace cudaemu::nccl;

inline namespace cudaemu_api {

ncclResult_t ncclGetVersion(int *version)
{
    if (!version) return fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

const char *ncclGetLastError(ncclComm_t) { return t_last_error; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    CUDAEMU_LOCK;
    if (!uniqueId) return fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
    IdBits b{};
    std::memcpy(b.magic, kMagic, sizeof b.magic);
    b.pid = int32_t(getpid());
    b.serial = g_next_id++;
    std::memset(uniqueId, 0, sizeof *uniqueId);
    std::memcpy(uniqueId->internal, &b, sizeof b);
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    CUDAEMU_LOCK;
    if (!comm) return fail(ncclInvalidArgument, "ncclCommInitRank: comm is NULL");
    *comm = nullptr;
    if (nranks < 1) return fail(ncclInvalidArgument, "ncclCommInitRank: invalid nranks %d", nranks);
    if (rank < 0 || rank >= nranks)
        return fail(ncclInvalidArgument, "ncclCommInitRank: invalid rank %d (nranks %d)", rank, nranks);
    if (usable() != cudaSuccess)
        return fail(ncclUnhandledCudaError, "ncclCommInitRank: the current device is not usable");
    IdBits b;
    std::memcpy(&b, commId.internal, sizeof b);
    if (std::memcmp(b.magic, kMagic, sizeof b.magic) != 0)
        return fail(ncclInvalidArgument, "ncclCommInitRank: the id was not made by ncclGetUniqueId");
    if (b.pid != int32_t(getpid()))
        return fail_loud(ncclInvalidUsage, "NCCL communicators across processes are not emulated "
                         "(ncclCommInitRank: the id comes from process %d, this is process %d)",
                         int(b.pid), int(getpid()));
    auto &cl = forming()[b.serial];
    if (!cl) {
        cl = std::make_shared<Clique>();
        cl->nranks = nranks;
        cl->members.assign(size_t(nranks), nullptr);
    }
    std::shared_ptr<Clique> clique = cl;
    if (clique->nranks != nranks)
        return fail(ncclInvalidArgument, "ncclCommInitRank: rank %d says %d ranks, an earlier rank "
                    "of this id said %d", rank, nranks, clique->nranks);
    if (clique->members[size_t(rank)])
        return fail(ncclInvalidUsage, "ncclCommInitRank: rank %d of this id has already joined", rank);
    if (ncclResult_t e = check_device_free(*clique, cur_dev(), rank)) return e;
    ncclComm *c = new_comm(clique, rank, cur_dev());
    if (clique->joined == nranks) {
        for (ncclComm *m : clique->members) m->ready = true;
        forming().erase(b.serial);
        api_notify();
    }
    *comm = c;
    if (t_group_depth > 0) {
        t_group_inits.push_back(c);
        return ncclSuccess;
    }
    ncclResult_t e = wait_joined(c, true);
    if (e) *comm = nullptr;
    return e;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
    CUDAEMU_LOCK;
    if (!comm) return fail(ncclInvalidArgument, "ncclCommInitAll: comm is NULL");
    if (ndev < 1) return fail(ncclInvalidArgument, "ncclCommInitAll: invalid ndev %d", ndev);
    if (config().ndev == 0) return fail(ncclUnhandledCudaError, "ncclCommInitAll: no CUDA device");
    for (int i = 0; i < ndev; ++i) {
        const int d = devlist ? devlist[i] : i;
        if (d < 0 || d >= config().ndev)
            return fail(ncclInvalidArgument, "ncclCommInitAll: invalid device %d (%d emulated "
                        "devices: CUDAEMU_DEVICES)", d, config().ndev);
        for (int j = 0; j < i; ++j)
            if ((devlist ? devlist[j] : j) == d)
                return fail(ncclInvalidUsage, "ncclCommInitAll: device %d is listed twice", d);
    }
    auto cl = std::make_shared<Clique>();
    cl->nranks = ndev;
    cl->members.assign(size_t(ndev), nullptr);
    for (int i = 0; i < ndev; ++i) {
        comm[i] = new_comm(cl, i, devlist ? devlist[i] : i);
        comm[i]->ready = true;
    }
    return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    CUDAEMU_LOCK;
    if (ncclResult_t e = check_comm("ncclCommFinalize", comm)) return e;
    for (auto &s : comm->streams) drain_all(s.get());
    return comm->async;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    CUDAEMU_LOCK;
    if (!comm) return ncclSuccess;
    if (!valid(comm))
        return fail(ncclInvalidArgument, "ncclCommDestroy: comm %p is not a live communicator",
                    static_cast<void *>(comm));
    if (comm->ready)
        for (auto &s : comm->streams) drain_all(s.get()); /* its queued collectives first */
    drop_comm(comm);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    CUDAEMU_LOCK;
    if (!comm) return ncclSuccess;
    if (!valid(comm))
        return fail(ncclInvalidArgument, "ncclCommAbort: comm %p is not a live communicator",
                    static_cast<void *>(comm));
    /* its unfinished collectives are dropped: their ops on every rank do nothing */
    if (auto cl = comm->clique)
        while (!cl->colls.empty()) finish(*cl->colls.begin()->second, Coll::Aborted);
    drop_comm(comm);
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    CUDAEMU_LOCK;
    if (!comm || !valid(comm))
        return fail(ncclInvalidArgument, "ncclCommGetAsyncError: invalid comm");
    if (!asyncError) return fail(ncclInvalidArgument, "ncclCommGetAsyncError: asyncError is NULL");
    *asyncError = comm->async;
    return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    CUDAEMU_LOCK;
    if (!comm || !valid(comm)) return fail(ncclInvalidArgument, "ncclCommCount: invalid comm");
    if (!count) return fail(ncclInvalidArgument, "ncclCommCount: count is NULL");
    *count = comm->nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    CUDAEMU_LOCK;
    if (!comm || !valid(comm)) return fail(ncclInvalidArgument, "ncclCommCuDevice: invalid comm");
    if (!device) return fail(ncclInvalidArgument, "ncclCommCuDevice: device is NULL");
    *device = comm->device;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    CUDAEMU_LOCK;
    if (!comm || !valid(comm)) return fail(ncclInvalidArgument, "ncclCommUserRank: invalid comm");
    if (!rank) return fail(ncclInvalidArgument, "ncclCommUserRank: rank is NULL");
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm)
{
    CUDAEMU_LOCK;
    if (ncclResult_t e = check_comm("ncclRedOpCreatePreMulSum", comm)) return e;
    if (!op) return fail(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: op is NULL");
    if (datatype < 0 || datatype >= ncclNumTypes)
        return fail(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: invalid data type %d", int(datatype));
    if (datatype == ncclFloat8e4m3 || datatype == ncclFloat8e5m2)
        return fail_loud(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: reductions of %s are not "
                         "emulated", type_name(datatype));
    if (!scalar) return fail(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: scalar is NULL");
    PreMul pm{};
    pm.type = datatype;
    const size_t es = type_size(datatype);
    if (residence == ncclScalarHostImmediate) {
        std::memcpy(pm.value, scalar, es);
    } else if (residence == ncclScalarDevice) {
        std::string why;
        if (!buffer_ok(scalar, es, comm->device, &why))
            return fail_loud(ncclInvalidArgument, "ncclRedOpCreatePreMulSum (rank %d): the "
                             "ncclScalarDevice scalar %p %s", comm->rank, scalar, why.c_str());
        pm.dptr = scalar;
    } else {
        return fail(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: invalid residence %d",
                    int(residence));
    }
    const int id = comm->next_op++;
    comm->premul[id] = pm;
    *op = ncclRedOp_t(id);
    return ncclSuccess;
}

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    CUDAEMU_LOCK;
    if (ncclResult_t e = check_comm("ncclRedOpDestroy", comm)) return e;
    if (op < ncclNumOps)
        return fail(ncclInvalidArgument, "ncclRedOpDestroy: %s is a built-in operation", op_name(op));
    if (!comm->premul.erase(int(op)))
        return fail(ncclInvalidArgument, "ncclRedOpDestroy: op %d was not made for this comm", int(op));
    return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream)
{
    return collective({Kind::AllReduce, "ncclAllReduce", sendbuff, recvbuff, count, datatype, {}, 0},
                      op, comm, stream);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream)
{
    return collective({Kind::Reduce, "ncclReduce", sendbuff, recvbuff, count, datatype, {}, root},
                      op, comm, stream);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    return collective({Kind::Broadcast, "ncclBroadcast", sendbuff, recvbuff, count, datatype, {}, root},
                      ncclSum, comm, stream);
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
                       ncclComm_t comm, cudaStream_t stream)
{
    return collective({Kind::Broadcast, "ncclBcast", buff, buff, count, datatype, {}, root},
                      ncclSum, comm, stream);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    return collective({Kind::AllGather, "ncclAllGather", sendbuff, recvbuff, sendcount, datatype, {}, 0},
                      ncclSum, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream)
{
    return collective({Kind::ReduceScatter, "ncclReduceScatter", sendbuff, recvbuff, recvcount,
                       datatype, {}, 0},
                      op, comm, stream);
}

ncclResult_t ncclGroupStart()
{
    CUDAEMU_LOCK;
    if (t_group_depth++ == 0) t_group_err = ncclSuccess;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd()
{
    CUDAEMU_LOCK;
    if (t_group_depth == 0)
        return fail(ncclInvalidUsage, "ncclGroupEnd: no ncclGroupStart to end");
    if (--t_group_depth > 0) return ncclSuccess;
    ncclResult_t first = t_group_err;
    std::vector<ncclComm *> inits;
    inits.swap(t_group_inits);
    for (ncclComm *c : inits) {
        ncclResult_t e = valid(c) ? wait_joined(c, false) : ncclSuccess;
        if (e && !first) first = e;
    }
    std::vector<GroupOp> ops;
    ops.swap(t_group_ops);
    if (first) {
        /* a call of the group failed: NCCL makes the group atomic and cancels
         * every collective queued in it; each comm's sequence goes back to
         * its first one in the group, so the next collective matches */
        for (auto it = ops.rbegin(); it != ops.rend(); ++it)
            if (valid(it->comm)) it->comm->seq = it->seq;
        return first;
    }
    for (auto &o : ops) {
        ncclResult_t e = o.issue();
        if (e && !first) first = e;
    }
    return first;
}

} // inline namespace cudaemu_api
