#!/usr/bin/env bash
# emu/tools/gen_header_stubs.sh - make the CUDA host emulator own every header
# name of the CUDA toolkit, so that an emulated build never picks up a real
# toolkit header (emu/README.md, "Headers").
#
#   gen_header_stubs.sh OUT_DIR EMU_INCLUDE NAMES_FILE [TOOLKIT_INCLUDE]
#
# For each name in NAMES_FILE (emu/tools/toolkit_headers.txt: CUDA 13.0's
# public names) and, when TOOLKIT_INCLUDE is a directory, each file under it
# (the cccl/ prefix also taken off, as nvcc puts include/cccl on the path),
# that EMU_INCLUDE does not implement, writes OUT_DIR/<name>:
#   * a forwarder to cuda_runtime.h for the pieces of the runtime and of the
#     kernel language the real toolkit splits into many headers (here all of
#     it is in cuda_runtime.h);
#   * a forwarder to cudaemu/thrust.h or cudaemu/cub.h for the public headers
#     of the Thrust and CUB subsets the emulator provides;
#   * else a stub that stops the compile with one line,
#     #error "cudaemu: <cufft.h> (cuFFT) is not emulated".
# OUT_DIR goes on the include path right after EMU_INCLUDE.  The previous
# contents of OUT_DIR are replaced (written to a temporary, then renamed).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 OUT_DIR EMU_INCLUDE NAMES_FILE [TOOLKIT_INCLUDE]" >&2; exit 2; }
out=$1 emu=$2 names=$3 tk=${4:-}

tmp=$(mktemp -d "${out%/}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
{
    grep -v -e '^#' -e '^[[:space:]]*$' "$names"
    if [ -n "$tk" ] && [ -d "$tk" ]; then
        (cd "$tk" && find . -type f | sed -n 's|^\./||; p; s|^cccl/||p')
    fi
} | grep -v -e '[^A-Za-z0-9_./+-]' -e '^/' -e '\.\.' | LC_ALL=C sort -u >"$tmp/.all"
(cd "$emu" && find . -type f | sed 's|^\./||' | LC_ALL=C sort -u) >"$tmp/.ours"
LC_ALL=C comm -23 "$tmp/.all" "$tmp/.ours" >"$tmp/.todo"   # not implemented
(cd "$tmp" && sed -n 's|/[^/]*$||p' .todo | sort -u | xargs -r mkdir -p)

# one awk: what is not emulated, by name; the runtime and kernel-language
# pieces (all in cuda_runtime.h here) become forwarders
awk -v dir="$tmp" '
function library(n) {
    if (n ~ /^cufft/) return "cuFFT"
    if (n ~ /^curand/) return "cuRAND"
    if (n ~ /^cusolver/) return "cuSOLVER"
    if (n ~ /^cusparse/) return "cuSPARSE"
    if (n ~ /^(cupti|nvperf)/ || n ~ /^generated_.*_meta\.h$/) return "CUPTI"
    if (n ~ /^cudnn/) return "cuDNN beyond the legacy convolution API of cudnn.h"
    if (n ~ /^nccl_device/) return "the NCCL device API"
    if (n ~ /^nccl/) return "NCCL"
    if (n ~ /^nvrtc/) return "NVRTC"
    if (n ~ /^nvJitLink/) return "nvJitLink"
    if (n ~ /^nvvm/) return "libNVVM"
    if (n ~ /^nvblas/) return "NVBLAS"
    if (n ~ /^cublasLt/) return "cuBLASLt"
    if (n ~ /^cublasXt/) return "cuBLASXt"
    if (n == "cublas.h") return "the legacy cuBLAS API; use cublas_v2.h"
    if (n == "cudalibxt.h") return "the multi-GPU library extensions"
    if (n == "nv_decode.h") return "the video decoder"
    if (n ~ /^(cccl\/)?thrust\//) return "Thrust beyond the emulator'"'"'s subset"
    if (n ~ /^(cccl\/)?cub\//) return "CUB beyond the emulator'"'"'s subset"
    if (n ~ /^(cccl\/)?cuda\//) return "libcu++"
    if (n ~ /^(cccl\/)?nv\//) return "libcu++ nv/target"
    if (n ~ /^cooperative_groups/) return "cooperative groups"
    if (n ~ /^nvtx3\//) return "NVTX"
    if (n ~ /^Open(acc|mp)\//) return "OpenACC/OpenMP offload"
    if (n ~ /^(cudaGL|cudaEGL|cudaVDPAU|cuda_gl_interop|cuda_egl_interop|cuda_vdpau_interop)/) return "graphics interop"
    if (n ~ /^(cuda\.h|cudaTypedefs\.h|cudaProfiler\.h|cudaProfilerTypedefs\.h)$/) return "the CUDA driver API"
    if (n ~ /^cuda_fp[864]/) return "fp8/fp6/fp4 types"
    if (n ~ /^(mma\.h|crt\/mma\.h)/) return "tensor cores: wmma"
    if (n ~ /^cuda_(awbarrier|pipeline)/) return "asynchronous barriers and pipelines"
    if (n == "cuda_occupancy.h") return "the occupancy calculator header; use the cudaOccupancy* calls"
    if (n == "cuComplex.h") return "cuComplex"
    if (n ~ /^crt\// || n == "fatbinary_section.h") return "nvcc internals"
    return "the CUDA toolkit"
}
function forwards(n) {
    return n ~ /^(builtin_types\.h|common_functions\.h|cuda_device_runtime_api\.h|cudart_platform\.h|device_atomic_functions\.hp?p?|device_double_functions\.h|device_functions\.h|device_types\.h|driver_functions\.h|host_config\.h|host_defines\.h|math_functions\.h|vector_functions\.hp?p?)$/ ||
           n ~ /^(channel_descriptor\.h|(cuda_)?(texture|surface)_types\.h|(texture|surface)_(indirect_|fetch_)?functions\.hp?p?)$/ ||
           n ~ /^sm_[0-9]+_(atomic_functions|intrinsics)\.hp?p?$/ ||
           n ~ /^crt\/(host_defines\.h|host_config\.h|device_functions\.hp?p?|math_functions\.hp?p?|common_functions\.h|device_double_functions\.hp?p?|func_macro\.h|storage_class\.h|sm_[0-9]+_rt\.hp?p?)$/
}
# the Thrust and CUB subsets (emu/include/cudaemu/thrust.h, cub.h): the
# public headers of what they provide forward to them; the rest are stubs
function subset(n) {
    sub(/^cccl\//, "", n)
    if (n ~ /^thrust\/(device_vector|host_vector|device_ptr|device_reference|device_malloc|device_free|memory|execution_policy|functional|fill|sequence|copy|transform|reduce|transform_reduce|inner_product|count|find|extrema|sort|scan|for_each|gather|scatter|unique|remove|equal|generate|tabulate|logical|adjacent_difference|binary_search|pair|tuple|random|system_error|merge|set_operations|partition|transform_scan)\.h$/ ||
        n ~ /^thrust\/iterator\/(counting|constant|transform|zip|permutation|discard)_iterator\.h$/ ||
        n == "thrust/system/cuda/execution_policy.h")
        return "cudaemu/thrust.h"
    if (n ~ /^cub\/(cub\.cuh|block\/block_(reduce|scan|load|store)\.cuh|warp\/warp_reduce\.cuh|device\/device_(reduce|scan|radix_sort)\.cuh)$/)
        return "cudaemu/cub.h"
    return ""
}
{
    f = dir "/" $0
    if (subset($0) != "") {
        printf "/* <%s>: part of the CUDA host emulator'"'"'s %s subset, all of it in <%s>\n * (generated by emu/tools/gen_header_stubs.sh; emu/README.md). */\n#include <%s>\n", $0, (subset($0) ~ /thrust/ ? "Thrust" : "CUB"), subset($0), subset($0) > f
    } else if (forwards($0)) {
        printf "/* <%s>: part of the CUDA runtime; in the CUDA host emulator all of it is\n * in cuda_runtime.h (generated by emu/tools/gen_header_stubs.sh). */\n#include <cuda_runtime.h>\n", $0 > f
    } else {
        printf "/* <%s>: a header of the CUDA toolkit that the CUDA host emulator does not\n * implement (generated by emu/tools/gen_header_stubs.sh; emu/README.md). */\n#error \"cudaemu: <%s> (%s) is not emulated\"\n", $0, $0, library($0) > f
    }
    close(f)
}' "$tmp/.todo"
rm -f "$tmp/.all" "$tmp/.ours" "$tmp/.todo"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
