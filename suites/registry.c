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

/* Rows name their fields (designated initializers): a field a row leaves
 * out is zero (no fn_dt, no flags) on purpose. g++ (the emulated GPU layer
 * compiles this file as C++) would warn about each; C does not. */
#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif

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
#define DT(d) DTYPE_BIT(DTYPE_##d)
#if BENCH_HAVE_MPI
#define MPI_FN(f) ((backend_entry)(f))
#else
#define MPI_FN(f) NULL   /* rows are skips: "MPI not found at build time" */
#endif
#if BENCH_HAVE_BLAS
#define BLAS_FN(f) ((backend_entry)(f))
#define BLAS_OPS(t) (&(t))
#define BLAS_HOOK(f) (f)
#else
#define BLAS_FN(f) NULL   /* rows are skips: "OpenBLAS not found at build time" */
#define BLAS_OPS(t) NULL
#define BLAS_HOOK(f) NULL
#endif
#if BENCH_HAVE_ONEDNN
#define ONEDNN_OPS(t) (&(t))
#define ONEDNN_FN(f) ((backend_entry)(f))
#define ONEDNN_HOOK(f) (f)
#else
#define ONEDNN_FN(f) NULL
#define ONEDNN_HOOK(f) NULL
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
    /* gemm: C = A*B, row-major, fp32 and the dtypes each row lists (cpu/gemm_cpu.h,
     * kernels/gemm_cuda.h) */
    {.name = "cpu-naive", .op = "gemm", .dev = DEV_CPU, .dtypes = DTYPES_FLOAT,
     .fn = CPU_FN(gemm_cpu_naive), .fn_dt = CPU_FN(gemm_cpu_naive_dt), .needs = NEEDS_NONE,
     .flags = BK_SERIAL | BK_REFERENCE, .default_max_flops = NAIVE_MAX,
     .about = "triple loop accumulating in double: the readable reference"},
    {.name = "cpu-omp", .op = "gemm", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(BF16) | DT(FP16),
     .fn = CPU_FN(gemm_cpu_omp), .fn_dt = CPU_FN(gemm_cpu_omp_dt), .needs = NEEDS_NONE,
     .about = "OpenMP + SIMD: packed panels, AVX-512 12x32 / AVX2 6x16 micro-kernel; bf16 on "
              "vdpbf16ps or AMX tiles, fp16 converted in packing (path chosen at run time)",
     .dt_path = gemm_cpu_omp_dt_path},
    {.name = "cpu-onednn", .op = "gemm", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(BF16) | DT(FP16),
     .fn = ONEDNN_FN(gemm_cpu_onednn), .fn_dt = ONEDNN_FN(gemm_cpu_onednn_dt), .needs = NEEDS_ONEDNN,
     .about = "oneDNN: dnnl_sgemm (fp32); the matmul primitive on strided row-major bf16/fp16",
     .dt_skip = ONEDNN_HOOK(gemm_onednn_dt_skip)},
    {.name = "cpu-blas", .op = "gemm", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(BF16),
     .fn = BLAS_FN(gemm_cpu_blas),
     .fn_dt = BLAS_FN(gemm_cpu_blas_dt), .needs = NEEDS_BLAS,
     .about = "OpenBLAS cblas_sgemm; bf16: cblas_sbgemm where the library exports it",
     .dt_skip = BLAS_HOOK(gemm_blas_dt_skip), .caveat = BLAS_HOOK(gemm_blas_caveat)},
    {.name = "cuda-naive", .op = "gemm", .dev = DEV_GPU, .dtypes = DT(FP32),
     .fn = GPU_FN(gemm_cuda_naive), .needs = NEEDS_GPU,
     .about = "one thread per element of C, straight from global memory"},
    {.name = "cuda-tiled", .op = "gemm", .dev = DEV_GPU, .dtypes = DT(FP32),
     .fn = GPU_FN(gemm_cuda_tiled), .needs = NEEDS_GPU, .about = "32x32 shared-memory tiles"},
    {.name = "cuda-regtile", .op = "gemm", .dev = DEV_GPU, .dtypes = DT(FP32),
     .fn = GPU_FN(gemm_cuda_regtile), .needs = NEEDS_GPU,
     .about = "128x128x8 block tiles, 32x64 warp tiles, 8x8 per thread, 4-stage cp.async, "
              "float4"},
    {.name = "cublas", .op = "gemm", .dev = DEV_GPU, .dtypes = DTYPES_FLOAT,
     .fn = GPU_FN(gemm_cublas),
     .fn_dt = GPU_FN(gemm_cublas_dt), .needs = NEEDS_GPU | NEEDS_CUBLAS,
     .about = "cublasSgemm (fp32 math); cublasGemmEx at tf32 (FAST_TF32), bf16 and fp16 "
              "(fp32 compute, tensor cores)"},
    {.name = "cuda-wmma", .op = "gemm", .dev = DEV_GPU,
     .dtypes = DT(TF32) | DT(BF16) | DT(FP16), .fn_dt = GPU_FN(gemm_cuda_wmma), .needs = NEEDS_GPU,
     .about = "our tensor-core GEMM: nvcuda::wmma fragments, 128x128 block tiles of 8 warps, "
              "double-buffered shared memory"},
    /* copy: host <-> device memory copies (suites/transfer) */
    {.name = "cuda-memcpy", .op = "copy", .dev = DEV_GPU, .dtypes = DT(U8),
     .fn = GPU_FN(copy_cuda_memcpy), .needs = NEEDS_GPU, .about = "cudaMemcpy / cudaMemcpyAsync"},
    /* stream: McCalpin's copy, scale, add, triad, fp32 (cpu/stream_cpu.h, kernels/stream_cuda.h) */
    {.name = "cpu-naive", .op = "stream", .dev = DEV_CPU, .dtypes = DT(FP32),
     .fn = CPU_FN(stream_cpu_naive), .needs = NEEDS_NONE, .flags = BK_SERIAL | BK_REFERENCE,
     .about = "plain serial loops: the readable reference"},
    {.name = "cpu-omp", .op = "stream", .dev = DEV_CPU, .dtypes = DT(FP32),
     .fn = CPU_FN(stream_cpu_omp), .needs = NEEDS_NONE,
     .about = "OpenMP slices on cache lines, AVX-512, non-temporal stores beyond the caches"},
    {.name = "cuda-stream", .op = "stream", .dev = DEV_GPU, .dtypes = DT(FP32),
     .fn = GPU_FN(stream_cuda), .needs = NEEDS_GPU,
     .about = "grid-stride loop, one wave of blocks, float4 when aligned"},
    /* conv: 2-D convolution, fwd / bwd-data / bwd-filter, fp32 NCHW (ops/conv_dims.h,
     * cpu/conv_cpu.h); each row's ops table holds one entry point per direction */
    {.name = "cpu-naive", .op = "conv", .dev = DEV_CPU, .dtypes = DTYPES_FLOAT, .needs = NEEDS_NONE,
     .flags = BK_SERIAL | BK_REFERENCE, .default_max_flops = CONV_NAIVE_MAX,
     .about = "direct seven loops accumulating in double: the readable reference",
     .ops = &CONV_OPS_CPU_NAIVE},
    {.name = "cpu-omp", .op = "conv", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(BF16) | DT(FP16),
     .needs = NEEDS_NONE,
     .about = "OpenMP: direct AVX-512 kernels for small stride-1 layers, implicit GEMMs whose "
              "register tiles read a padded copy of x in place, else L2-sized im2col blocks "
              "into cpu-omp's GEMM; bf16/fp16 on its bf16/fp16 GEMM kernels (route in the note)",
     .ops = &CONV_OPS_CPU_OMP},
    {.name = "cpu-blas", .op = "conv", .dev = DEV_CPU, .dtypes = DT(FP32), .needs = NEEDS_BLAS,
     .about = "im2col + OpenBLAS sgemm, col2im for bwd-data (the Caffe path)",
     .ops = BLAS_OPS(CONV_OPS_CPU_BLAS), .caveat = BLAS_HOOK(gemm_blas_caveat)},
    {.name = "cpu-onednn", .op = "conv", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(BF16) | DT(FP16),
     .needs = NEEDS_ONEDNN,
     .about = "oneDNN convolution primitives (C API), NCHW in and out, reorders timed",
     .ops = ONEDNN_OPS(CONV_OPS_CPU_ONEDNN), .dt_skip = ONEDNN_HOOK(conv_onednn_dt_skip)},
    {.name = "cuda-direct", .op = "conv", .dev = DEV_GPU, .dtypes = DT(FP32), .needs = NEEDS_GPU,
     .about = "direct: 16x16 output tiles, input patch in shared memory",
     .ops = GPU_OPS(&CONV_CUDA_DIRECT)},
    {.name = "cuda-im2col", .op = "conv", .dev = DEV_GPU, .dtypes = DT(FP32), .needs = NEEDS_GPU,
     .about = "im2col / col2im + the cuda-regtile GEMM, image by image",
     .ops = GPU_OPS(&CONV_CUDA_IM2COL)},
    {.name = "cuda-implicit", .op = "conv", .dev = DEV_GPU, .dtypes = DT(FP32), .needs = NEEDS_GPU,
     .about = "implicit GEMM on 128x128x8 register tiles, split-K bwd-filter",
     .ops = GPU_OPS(&CONV_CUDA_IMPLICIT)},
    {.name = "cudnn", .op = "conv", .dev = DEV_GPU, .dtypes = DT(FP32) | DT(BF16) | DT(FP16),
     .needs = NEEDS_GPU | NEEDS_CUDNN,
     .about = "cuDNN legacy API, heuristic (v7) algorithm, fp32 FMA math; bf16/fp16 tensors "
              "with fp32 compute and tensor-op math",
     .ops = GPU_OPS(&CONV_CUDNN)},
    /* train: one training step (forward, softmax cross-entropy, backward, SGD) of
     * a small CNN and two MLPs (suites/train/model.h), each row's ops table
     * filling ops/train_ops.h */
    {.name = "cpu-naive", .op = "train", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(AMP_BF16) | DT(AMP_FP16), .needs = NEEDS_NONE,
     .flags = BK_SERIAL | BK_REFERENCE, .default_max_flops = TRAIN_NAIVE_MAX,
     .about = "the reference ops: plain loops accumulating in double, direct convolution",
     .ops = &TRAIN_OPS_CPU_NAIVE},
    {.name = "cpu-omp", .op = "train", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(AMP_BF16) | DT(AMP_FP16), .needs = NEEDS_NONE,
     .about = "cpu-omp's GEMM (transposes packed) and convolution, OpenMP + SIMD elementwise ops",
     .ops = &TRAIN_OPS_CPU_OMP},
    {.name = "cpu-blas", .op = "train", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(AMP_BF16) | DT(AMP_FP16), .needs = NEEDS_BLAS,
     .about = "OpenBLAS sgemm, im2col convolution, our elementwise ops on one thread",
     .ops = BLAS_OPS(TRAIN_OPS_CPU_BLAS), .caveat = BLAS_HOOK(gemm_blas_caveat)},
    {.name = "cpu-onednn", .op = "train", .dev = DEV_CPU, .dtypes = DT(FP32) | DT(AMP_BF16) | DT(AMP_FP16), .needs = NEEDS_ONEDNN,
     .about = "oneDNN sgemm and convolution primitives, our OpenMP elementwise ops",
     .ops = ONEDNN_OPS(TRAIN_OPS_CPU_ONEDNN)},
    {.name = "cuda", .op = "train", .dev = DEV_GPU, .dtypes = DT(FP32) | DT(AMP_BF16) | DT(AMP_FP16), .needs = NEEDS_GPU,
     .about = "our kernels only: regtile GEMM (transposes), implicit-GEMM conv, elementwise, pool, loss",
     .ops = GPU_OPS(&TRAIN_OPS_CUDA)},
    {.name = "cuda-lib", .op = "train", .dev = DEV_GPU, .dtypes = DT(FP32) | DT(AMP_BF16) | DT(AMP_FP16),
     .needs = NEEDS_GPU | NEEDS_CUBLAS | NEEDS_CUDNN,
     .about = "cuBLAS GEMM and cuDNN convolution (fp32 math), our kernels for the rest",
     .ops = GPU_OPS(&TRAIN_OPS_CUDA_LIB)},
    /* collective: all-reduce, reduce, broadcast, all-gather, reduce-scatter
     * between the ranks (suites/collectives; ops/comm_ops.h's tables) */
    {.name = "mpi", .op = "collective", .dev = DEV_CPU, .dtypes = DT(FP32),
     .fn = MPI_FN(comm_mpi_ops), .needs = NEEDS_MPI, .flags = BK_SERIAL,
     .about = "MPI collectives over host buffers, one rank per process (mpirun -np N)"},
    {.name = "nccl", .op = "collective", .dev = DEV_GPU, .dtypes = DT(FP32),
     .fn = GPU_FN(coll_nccl_present), .needs = NEEDS_GPU | NEEDS_NCCL,
     .about = "NCCL between every GPU of this process, one group call (nccl-tests' -g N)"},
    {.name = "nccl-mpi", .op = "collective", .dev = DEV_GPU, .dtypes = DT(FP32),
     .fn = GPU_FN(coll_nccl_present), .needs = NEEDS_GPU | NEEDS_NCCL | NEEDS_MPI,
     .about = "NCCL with one GPU per MPI rank (local rank), its id sent over MPI: the multi-node layout"},
    {.name = NULL},
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
