/* suites/registry.c - the one backend registry and the table of suites.
 *
 * Compiled once per GPU layer: into bench and bench-emu with the GPU halves
 * (BENCH_GPU_LAYER=1: entry points of kernels/ and the suites' *_gpu.c), and
 * without them into builds that have no CUDA toolkit, where GPU rows keep
 * their names and descriptions (--list and validation agree everywhere) but
 * no entry point, and run as skip rows saying why.
 *
 * Adding a backend: its function and one row here. Adding a suite: its
 * suite_def (and suite_gpu) and one line in SUITES[]. Reference first.
 */
#include "registry.h"
#include "matmul/matmul.h"
#include "transfer/transfer.h"
#include "stream/stream.h"
#include "conv/conv.h"
#include "train/train.h"
#include "collectives/collectives.h"
#include "comm.h"
#include "gemm_cpu.h"
#include "stream_cpu.h"
#include "conv_cpu.h"
#include "train_cpu.h"

#include <stddef.h>
#include <string.h>

#if BENCH_GPU_LAYER
#include "../kernels/gemm_cuda.h"
#include "../kernels/stream_cuda.h"
#include "../kernels/conv_cuda.h"
#include "../kernels/train_cuda.h"
#define GPU_FN(f) ((backend_entry)(f))
#define GPU_OPS(t) ((const void *)(t))
#define GPU_HALF(g) (&(g))
#else
#define GPU_FN(f) NULL
#define GPU_OPS(t) NULL
#define GPU_HALF(g) NULL
#endif
#define CPU_FN(f) ((backend_entry)(f))
#if BENCH_HAVE_MPI
#define MPI_FN(f) ((backend_entry)(f))
#else
#define MPI_FN(f) NULL   /* rows are skips: "MPI not found at build time" */
#endif
#if BENCH_HAVE_ONEDNN
#define ONEDNN_OPS(t) (&(t))
#else
#define ONEDNN_OPS(t) NULL   /* rows are skips: "oneDNN not found at build time" */
#endif

/* 2*512^3 FLOP already take the reference seconds: default sweeps stop there. */
#define NAIVE_MAX (2.0 * 512 * 512 * 512)
/* conv: the seven loops take about a second per 2.5e8 FLOP on one core; the
 * quick layers (<= 2.4e8 FLOP) stay in, the real-network ones (>= 7e8) out. */
#define CONV_NAIVE_MAX 2.5e8
/* train: the reference step runs at about 1 GFLOP/s; default sweeps keep
 * cpu-naive's rows up to the batch-64 steps (the reference itself always runs). */
#define TRAIN_NAIVE_MAX 1.5e9

const backend_def BACKENDS[] = {
    /* gemm: C = A*B, fp32, row-major (cpu/gemm_cpu.h, kernels/gemm_cuda.h) */
    {"cpu-naive", "gemm", DEV_CPU, DTYPE_FP32, CPU_FN(gemm_cpu_naive), NEEDS_NONE, BK_SERIAL,
     NAIVE_MAX, "triple loop accumulating in double: the readable reference", NULL},
    {"cpu-omp", "gemm", DEV_CPU, DTYPE_FP32, CPU_FN(gemm_cpu_omp), NEEDS_NONE, 0, 0,
     "OpenMP + SIMD: packed panels, AVX-512 12x32 / AVX2 6x16 micro-kernel", NULL},
    {"cpu-blas", "gemm", DEV_CPU, DTYPE_FP32, CPU_FN(gemm_cpu_blas), NEEDS_BLAS, 0, 0,
     "OpenBLAS cblas_sgemm", NULL},
    {"cuda-naive", "gemm", DEV_GPU, DTYPE_FP32, GPU_FN(gemm_cuda_naive), NEEDS_GPU, 0, 0,
     "one thread per element of C, straight from global memory", NULL},
    {"cuda-tiled", "gemm", DEV_GPU, DTYPE_FP32, GPU_FN(gemm_cuda_tiled), NEEDS_GPU, 0, 0,
     "32x32 shared-memory tiles", NULL},
    {"cuda-regtile", "gemm", DEV_GPU, DTYPE_FP32, GPU_FN(gemm_cuda_regtile), NEEDS_GPU, 0, 0,
     "128x128x8 block tiles, 8x8 per thread in registers, double-buffered, float4", NULL},
    {"cublas", "gemm", DEV_GPU, DTYPE_FP32, GPU_FN(gemm_cublas), NEEDS_GPU | NEEDS_CUBLAS, 0, 0,
     "cublasSgemm, fp32 math", NULL},
    {"cublas-tf32", "gemm", DEV_GPU, DTYPE_TF32, GPU_FN(gemm_cublas_tf32),
     NEEDS_GPU | NEEDS_CUBLAS, 0, 0, "cublasGemmEx on TF32 tensor cores (TF32 tolerance)", NULL},
    /* copy: host <-> device memory copies (suites/transfer) */
    {"cuda-memcpy", "copy", DEV_GPU, DTYPE_U8, GPU_FN(copy_cuda_memcpy), NEEDS_GPU, 0, 0,
     "cudaMemcpy / cudaMemcpyAsync", NULL},
    /* stream: McCalpin's copy, scale, add, triad, fp32 (cpu/stream_cpu.h, kernels/stream_cuda.h) */
    {"cpu-naive", "stream", DEV_CPU, DTYPE_FP32, CPU_FN(stream_cpu_naive), NEEDS_NONE, BK_SERIAL, 0,
     "plain serial loops: the readable reference", NULL},
    {"cpu-omp", "stream", DEV_CPU, DTYPE_FP32, CPU_FN(stream_cpu_omp), NEEDS_NONE, 0, 0,
     "OpenMP slices on cache lines, AVX-512, non-temporal stores beyond the caches", NULL},
    {"cuda-stream", "stream", DEV_GPU, DTYPE_FP32, GPU_FN(stream_cuda), NEEDS_GPU, 0, 0,
     "grid-stride loop, one wave of blocks, float4 when aligned", NULL},
    /* conv: 2-D convolution, fwd / bwd-data / bwd-filter, fp32 NCHW (ops/conv_dims.h,
     * cpu/conv_cpu.h); each row's ops table holds one entry point per direction */
    {"cpu-naive", "conv", DEV_CPU, DTYPE_FP32, NULL, NEEDS_NONE, BK_SERIAL, CONV_NAIVE_MAX,
     "direct seven loops accumulating in double: the readable reference", &CONV_OPS_CPU_NAIVE},
    {"cpu-omp", "conv", DEV_CPU, DTYPE_FP32, NULL, NEEDS_NONE, 0, 0,
     "OpenMP: direct AVX-512 kernels for small stride-1 layers, else L2-sized im2col blocks "
     "into cpu-omp's GEMM", &CONV_OPS_CPU_OMP},
    {"cpu-blas", "conv", DEV_CPU, DTYPE_FP32, NULL, NEEDS_BLAS, 0, 0,
     "im2col + OpenBLAS sgemm, col2im for bwd-data (the Caffe path)", &CONV_OPS_CPU_BLAS},
    {"cpu-onednn", "conv", DEV_CPU, DTYPE_FP32, NULL, NEEDS_ONEDNN, 0, 0,
     "oneDNN convolution primitives (C API), NCHW in and out, reorders timed",
     ONEDNN_OPS(CONV_OPS_CPU_ONEDNN)},
    {"cuda-direct", "conv", DEV_GPU, DTYPE_FP32, NULL, NEEDS_GPU, 0, 0,
     "direct: 16x16 output tiles, input patch in shared memory", GPU_OPS(&CONV_CUDA_DIRECT)},
    {"cuda-im2col", "conv", DEV_GPU, DTYPE_FP32, NULL, NEEDS_GPU, 0, 0,
     "im2col / col2im + the cuda-regtile GEMM, image by image", GPU_OPS(&CONV_CUDA_IM2COL)},
    {"cuda-implicit", "conv", DEV_GPU, DTYPE_FP32, NULL, NEEDS_GPU, 0, 0,
     "implicit GEMM on 128x128x8 register tiles, split-K bwd-filter", GPU_OPS(&CONV_CUDA_IMPLICIT)},
    {"cudnn", "conv", DEV_GPU, DTYPE_FP32, NULL, NEEDS_GPU | NEEDS_CUDNN, 0, 0,
     "cuDNN legacy API, heuristic (v7) algorithm, fp32 FMA math", GPU_OPS(&CONV_CUDNN)},
    /* train: one training step (forward, softmax cross-entropy, backward, SGD) of
     * a small CNN and two MLPs (suites/train/model.h), each row's ops table
     * filling ops/train_ops.h */
    {"cpu-naive", "train", DEV_CPU, DTYPE_FP32, NULL, NEEDS_NONE, BK_SERIAL, TRAIN_NAIVE_MAX,
     "the reference ops: plain loops accumulating in double, direct convolution",
     &TRAIN_OPS_CPU_NAIVE},
    {"cpu-omp", "train", DEV_CPU, DTYPE_FP32, NULL, NEEDS_NONE, 0, 0,
     "cpu-omp's GEMM (transposes packed) and convolution, OpenMP + SIMD elementwise ops",
     &TRAIN_OPS_CPU_OMP},
    {"cpu-blas", "train", DEV_CPU, DTYPE_FP32, NULL, NEEDS_BLAS, 0, 0,
     "OpenBLAS sgemm, im2col convolution, our elementwise ops on one thread",
     &TRAIN_OPS_CPU_BLAS},
    {"cpu-onednn", "train", DEV_CPU, DTYPE_FP32, NULL, NEEDS_ONEDNN, 0, 0,
     "oneDNN sgemm and convolution primitives, our OpenMP elementwise ops",
     ONEDNN_OPS(TRAIN_OPS_CPU_ONEDNN)},
    {"cuda", "train", DEV_GPU, DTYPE_FP32, NULL, NEEDS_GPU, 0, 0,
     "our kernels only: regtile GEMM (transposes), implicit-GEMM conv, elementwise, pool, loss",
     GPU_OPS(&TRAIN_OPS_CUDA)},
    {"cuda-lib", "train", DEV_GPU, DTYPE_FP32, NULL, NEEDS_GPU | NEEDS_CUBLAS | NEEDS_CUDNN, 0, 0,
     "cuBLAS GEMM and cuDNN convolution (fp32 math), our kernels for the rest",
     GPU_OPS(&TRAIN_OPS_CUDA_LIB)},
    /* collective: all-reduce, reduce, broadcast, all-gather, reduce-scatter
     * between the ranks (suites/collectives; ops/comm_ops.h's tables) */
    {"mpi", "collective", DEV_CPU, DTYPE_FP32, MPI_FN(comm_mpi_ops), NEEDS_MPI, BK_SERIAL, 0,
     "MPI collectives over host buffers, one rank per process (mpirun -np N)", NULL},
    {"nccl", "collective", DEV_GPU, DTYPE_FP32, GPU_FN(coll_nccl_present), NEEDS_GPU | NEEDS_NCCL,
     0, 0, "NCCL between every GPU of this process, one group call (nccl-tests' -g N)", NULL},
    {"nccl-mpi", "collective", DEV_GPU, DTYPE_FP32, GPU_FN(coll_nccl_present),
     NEEDS_GPU | NEEDS_NCCL | NEEDS_MPI, 0, 0,
     "NCCL with one GPU per MPI rank (local rank), its id sent over MPI: the multi-node layout",
     NULL},
    {NULL, NULL, DEV_CPU, DTYPE_FP32, NULL, 0, 0, 0, NULL, NULL},
};

const suite_entry SUITES[] = {
    {&SUITE_MATMUL, GPU_HALF(SUITE_MATMUL_GPU)},
    {&SUITE_TRANSFER, GPU_HALF(SUITE_TRANSFER_GPU)},
    {&SUITE_STREAM, GPU_HALF(SUITE_STREAM_GPU)},
    {&SUITE_CONV, GPU_HALF(SUITE_CONV_GPU)},
    {&SUITE_TRAIN, GPU_HALF(SUITE_TRAIN_GPU)},
    {&SUITE_COLLECTIVES, GPU_HALF(SUITE_COLLECTIVES_GPU)},
    {NULL, NULL},
};

const suite_entry *suite_find(const char *name)
{
    for (int i = 0; SUITES[i].def; i++)
        if (strcmp(SUITES[i].def->name, name) == 0) return &SUITES[i];
    return NULL;
}
