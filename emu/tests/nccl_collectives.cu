// emu/tests/nccl_collectives.cu - every emulated NCCL collective, on all the
// emulated devices (CUDAEMU_DEVICES=2 and 4), for each data type and
// reduction (built-in ops and ncclRedOpCreatePreMulSum), in place and not,
// issued from one host thread inside ncclGroupStart/ncclGroupEnd.  The data
// are small integers so that every result is exact; the reference is computed
// independently in double (long long for the integer types' average).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nccl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <typeinfo>
#include <vector>

#include "test_util.h"

enum Kind { AllReduce, Broadcast, Reduce, AllGather, ReduceScatter, Bcast };
static const char *const kKindName[] = {"AllReduce", "Broadcast", "Reduce", "AllGather",
                                        "ReduceScatter", "Bcast"};

template <class T> struct Type;
template <> struct Type<float> { static constexpr ncclDataType_t id = ncclFloat32; };
template <> struct Type<double> { static constexpr ncclDataType_t id = ncclFloat64; };
template <> struct Type<__half> { static constexpr ncclDataType_t id = ncclFloat16; };
template <> struct Type<__nv_bfloat16> { static constexpr ncclDataType_t id = ncclBfloat16; };
template <> struct Type<int32_t> { static constexpr ncclDataType_t id = ncclInt32; };
template <> struct Type<int64_t> { static constexpr ncclDataType_t id = ncclInt64; };
template <> struct Type<uint8_t> { static constexpr ncclDataType_t id = ncclUint8; };
template <> struct Type<int8_t> { static constexpr ncclDataType_t id = ncclInt8; };

template <class T> static double as_double(T v) { return double(v); }
template <> double as_double<__half>(__half v) { return double(__half2float(v)); }
template <> double as_double<__nv_bfloat16>(__nv_bfloat16 v) { return double(__bfloat162float(v)); }
template <class T> static T from_int(int v) { return T(v); }
template <> __half from_int<__half>(int v) { return __int2half_rn(v); }
template <> __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __int2bfloat16_rn(v); }

static int g_n = 0; // ranks = devices
static std::vector<ncclComm_t> g_comms;
static std::vector<cudaStream_t> g_streams;
static int g_cases = 0;

// The input of rank r at element i (small: products of 4 ranks stay exact).
static int input(int r, size_t i, int op, bool is_unsigned)
{
    if (op == ncclProd) return int((i + size_t(r)) % 3) + 1;
    if (is_unsigned) return int((i * 3 + size_t(r) * 5) % 4);
    return int((i * 3 + size_t(r) * 5) % 7) - 3;
}

// The premultiplier of rank r (ncclRedOpCreatePreMulSum).
template <class T> static int premul_scalar(int r) { return r + 1; }

// Reference of element i over ranks 0..N-1, exact in double.
static double reference(const std::vector<std::vector<int>> &in, size_t i, int op, bool integral,
                        bool premul)
{
    double acc = 0;
    long long isum = 0;
    for (int r = 0; r < g_n; ++r) {
        const double x = in[size_t(r)][i];
        if (premul) acc += x * (r + 1);
        else if (op == ncclSum || op == ncclAvg) acc += x, isum += (long long)x;
        else if (op == ncclProd) acc = r ? acc * x : x;
        else if (op == ncclMax) acc = r ? std::fmax(acc, x) : x;
        else if (op == ncclMin) acc = r ? std::fmin(acc, x) : x;
    }
    if (!premul && op == ncclAvg) return integral ? double(isum / g_n) : acc / g_n;
    return acc;
}

template <class T>
static void run_case(Kind kind, int op, bool premul, bool inplace, size_t count)
{
    const bool integral = std::is_integral<T>::value;
    const bool is_unsigned = std::is_unsigned<T>::value;
    const int N = g_n, root = N - 1;
    const size_t nr = size_t(N);
    const size_t es = sizeof(T);
    size_t scount = count, rcount = count;
    if (kind == AllGather) rcount = count * size_t(N);
    if (kind == ReduceScatter) scount = count * size_t(N);
    std::vector<std::vector<int>> in(nr, std::vector<int>(scount));
    std::vector<T *> bufs(nr), sends(nr), recvs(nr);
    std::vector<ncclRedOp_t> ops(nr, ncclRedOp_t(op));
    for (int r = 0; r < N; ++r) {
        for (size_t i = 0; i < scount; ++i) in[size_t(r)][i] = input(r, i, op, is_unsigned);
        std::vector<T> h(scount);
        for (size_t i = 0; i < scount; ++i) h[i] = from_int<T>(in[size_t(r)][i]);
        CK(cudaSetDevice(r));
        const size_t bytes = (scount > rcount ? scount : rcount) * es;
        CK(cudaMalloc(&bufs[size_t(r)], bytes));
        T *send = bufs[size_t(r)], *recv = bufs[size_t(r)];
        if (!inplace) CK(cudaMalloc(&recv, rcount * es));
        else if (kind == AllGather) send = recv + size_t(r) * count;
        else if (kind == ReduceScatter) recv = send + size_t(r) * count;
        CK(cudaMemcpy(send, h.data(), scount * es, cudaMemcpyHostToDevice));
        sends[size_t(r)] = send;
        recvs[size_t(r)] = recv;
        if (premul) {
            T s = from_int<T>(premul_scalar<T>(r));
            NC(ncclRedOpCreatePreMulSum(&ops[size_t(r)], &s, Type<T>::id, ncclScalarHostImmediate,
                                        g_comms[size_t(r)]));
            CHECK(int(ops[size_t(r)]) >= int(ncclNumOps));
        }
    }
    NC(ncclGroupStart());
    for (int r = 0; r < N; ++r) {
        CK(cudaSetDevice(r));
        ncclComm_t c = g_comms[size_t(r)];
        cudaStream_t s = g_streams[size_t(r)];
        T *sb = sends[size_t(r)], *rb = recvs[size_t(r)];
        const ncclDataType_t t = Type<T>::id;
        switch (kind) {
        case AllReduce: NC(ncclAllReduce(sb, rb, count, t, ops[size_t(r)], c, s)); break;
        case Broadcast: NC(ncclBroadcast(sb, rb, count, t, root, c, s)); break;
        case Bcast: NC(ncclBcast(sb, count, t, root, c, s)); break;
        case Reduce:
            NC(ncclReduce(sb, r == root ? rb : nullptr, count, t, ops[size_t(r)], root, c, s));
            break;
        case AllGather: NC(ncclAllGather(sb, rb, count, t, c, s)); break;
        case ReduceScatter: NC(ncclReduceScatter(sb, rb, count, t, ops[size_t(r)], c, s)); break;
        }
    }
    NC(ncclGroupEnd());
    // synchronizing rank 0's stream alone completes the collective on every rank
    CK(cudaSetDevice(0));
    CK(cudaStreamSynchronize(g_streams[0]));
    for (int r = 0; r < N; ++r) {
        if (kind == Reduce && r != root) continue;
        if (kind == Bcast && !inplace) continue; // ncclBcast is always in place
        std::vector<T> h(rcount);
        CK(cudaSetDevice(r));
        CK(cudaMemcpy(h.data(), kind == Bcast ? sends[size_t(r)] : recvs[size_t(r)], rcount * es,
                      cudaMemcpyDeviceToHost));
        int bad = 0;
        for (size_t i = 0; i < rcount; ++i) {
            double want;
            if (kind == Broadcast || kind == Bcast) want = in[size_t(root)][i];
            else if (kind == AllGather) want = in[i / count][i % count];
            else if (kind == ReduceScatter)
                want = reference(in, size_t(r) * count + i, op, integral, premul);
            else want = reference(in, i, op, integral, premul);
            const double got = as_double(h[i]);
            if (got != want && bad++ < 3)
                std::fprintf(stderr, "nccl %s<%s> op %d%s%s, %d ranks: rank %d [%zu] = %g, want %g\n",
                             kKindName[kind], typeid(T).name(), op, premul ? " premul" : "",
                             inplace ? " in place" : "", N, r, i, got, want);
        }
        CHECK(bad == 0);
    }
    for (int r = 0; r < N; ++r) {
        CK(cudaSetDevice(r));
        if (!inplace) CK(cudaFree(recvs[size_t(r)]));
        CK(cudaFree(bufs[size_t(r)]));
        if (premul) NC(ncclRedOpDestroy(ops[size_t(r)], g_comms[size_t(r)]));
    }
    ++g_cases;
}

template <class T> static void all_cases()
{
    for (int inplace = 0; inplace < 2; ++inplace) {
        for (int op = 0; op < int(ncclNumOps); ++op) {
            run_case<T>(AllReduce, op, false, inplace, 37);
            run_case<T>(Reduce, op, false, inplace, 19);
            run_case<T>(ReduceScatter, op, false, inplace, 11);
        }
        run_case<T>(AllReduce, ncclSum, true, inplace, 23);
        run_case<T>(ReduceScatter, ncclSum, true, inplace, 5);
        run_case<T>(Broadcast, ncclSum, false, inplace, 29);
        run_case<T>(AllGather, ncclSum, false, inplace, 13);
    }
    run_case<T>(Bcast, ncclSum, false, true, 17);
}

// A premultiplier in device memory (ncclScalarDevice) is read when the
// collective runs, not when the op is made.  (Not changed between the call
// and the run here: cudaMemcpy's legacy stream would wait for the blocking
// streams, running the collective first, as CUDA does.)
static void device_scalar()
{
    const int N = g_n;
    const size_t nr = size_t(N);
    const size_t n = 8;
    std::vector<float *> buf(nr), scal(nr);
    std::vector<ncclRedOp_t> ops(nr);
    for (int r = 0; r < N; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&buf[size_t(r)], n * sizeof(float)));
        CK(cudaMalloc(&scal[size_t(r)], sizeof(float)));
        std::vector<float> h(n, float(r + 1));
        CK(cudaMemcpy(buf[size_t(r)], h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        const float zero = 0;
        CK(cudaMemcpy(scal[size_t(r)], &zero, sizeof zero, cudaMemcpyHostToDevice));
        NC(ncclRedOpCreatePreMulSum(&ops[size_t(r)], scal[size_t(r)], ncclFloat32, ncclScalarDevice,
                                    g_comms[size_t(r)]));
    }
    // set after the op is made: the collective must see 2, not 0
    for (int r = 0; r < N; ++r) {
        const float two = 2;
        CK(cudaSetDevice(r));
        CK(cudaMemcpy(scal[size_t(r)], &two, sizeof two, cudaMemcpyHostToDevice));
    }
    NC(ncclGroupStart());
    for (int r = 0; r < N; ++r)
        NC(ncclAllReduce(buf[size_t(r)], buf[size_t(r)], n, ncclFloat32, ops[size_t(r)],
                         g_comms[size_t(r)], g_streams[size_t(r)]));
    NC(ncclGroupEnd());
    for (int r = 0; r < N; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(g_streams[size_t(r)]));
        std::vector<float> h(n);
        CK(cudaMemcpy(h.data(), buf[size_t(r)], n * sizeof(float), cudaMemcpyDeviceToHost));
        const float want = float(N * (N + 1)); // sum of 2 (r + 1)
        for (size_t i = 0; i < n; ++i) CHECK(h[i] == want);
        NC(ncclRedOpDestroy(ops[size_t(r)], g_comms[size_t(r)]));
        CK(cudaFree(buf[size_t(r)]));
        CK(cudaFree(scal[size_t(r)]));
    }
}

// Half precision rounds at every step, in rank order: 2048 + 1 + 1 + ...
// stays 2048 in fp16 (the spacing there is 2) when added one rank at a time.
static void half_rounding()
{
    const int N = g_n;
    const size_t nr = size_t(N);
    std::vector<__half *> buf(nr);
    for (int r = 0; r < N; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&buf[size_t(r)], sizeof(__half)));
        __half h = __float2half(r == 0 ? 2048.0f : 1.0f);
        CK(cudaMemcpy(buf[size_t(r)], &h, sizeof h, cudaMemcpyHostToDevice));
    }
    NC(ncclGroupStart());
    for (int r = 0; r < N; ++r)
        NC(ncclAllReduce(buf[size_t(r)], buf[size_t(r)], 1, ncclHalf, ncclSum, g_comms[size_t(r)],
                         g_streams[size_t(r)]));
    NC(ncclGroupEnd());
    for (int r = 0; r < N; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(g_streams[size_t(r)]));
        __half h;
        CK(cudaMemcpy(&h, buf[size_t(r)], sizeof h, cudaMemcpyDeviceToHost));
        CHECK(__half2float(h) == 2048.0f);
        CK(cudaFree(buf[size_t(r)]));
    }
}

int main()
{
    CK(cudaGetDeviceCount(&g_n));
    CHECK(g_n >= 2);
    g_comms.resize(size_t(g_n));
    g_streams.resize(size_t(g_n));
    NC(ncclCommInitAll(g_comms.data(), g_n, nullptr));
    for (int r = 0; r < g_n; ++r) {
        int count = -1, dev = -1, rank = -1;
        NC(ncclCommCount(g_comms[size_t(r)], &count));
        NC(ncclCommCuDevice(g_comms[size_t(r)], &dev));
        NC(ncclCommUserRank(g_comms[size_t(r)], &rank));
        CHECK(count == g_n && dev == r && rank == r);
        CK(cudaSetDevice(r));
        CK(cudaStreamCreate(&g_streams[size_t(r)]));
    }
    all_cases<float>();
    all_cases<double>();
    all_cases<__half>();
    all_cases<__nv_bfloat16>();
    all_cases<int32_t>();
    all_cases<int64_t>();
    all_cases<uint8_t>();
    all_cases<int8_t>();
    device_scalar();
    half_rounding();
    for (int r = 0; r < g_n; ++r) {
        ncclResult_t async = ncclInternalError;
        NC(ncclCommGetAsyncError(g_comms[size_t(r)], &async));
        CHECK(async == ncclSuccess);
        CK(cudaSetDevice(r));
        CK(cudaStreamDestroy(g_streams[size_t(r)]));
        NC(ncclCommDestroy(g_comms[size_t(r)]));
    }
    std::printf("%d cases on %d ranks\n", g_cases, g_n);
    return test_exit("nccl_collectives");
}
