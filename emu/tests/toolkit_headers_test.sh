#!/usr/bin/env bash
# emu/tests/toolkit_headers_test.sh - the emulator owns every header name of
# the CUDA toolkit (emu/README.md, "Headers"); a real toolkit header never
# reaches an emulated build.
#
#   toolkit_headers_test.sh NVCC_EMU NAMES_FILE WORK_DIR [TOOLKIT_INCLUDE]
#
# 1. One preprocessor pass over a TU that includes every name (NAMES_FILE and,
#    when TOOLKIT_INCLUDE exists, every file under it, cccl/ also taken off),
#    with the emulator's dirs first and the toolkit's after them: no file of
#    the toolkit (nothing under /usr/local) may be read, and every error must
#    be exactly `#error "cudaemu: <NAME> (...) is not emulated"` of a NAME
#    that is a stub.
# 2. nvcc-emu with -I TOOLKIT_INCLUDE and CPATH=TOOLKIT_INCLUDE: a .cu that
#    includes <cufft.h> fails and its first error is the cudaemu line;
#    a .cu that includes implemented and forwarded headers compiles.
set -u
emu=$1 names=$2 work=$3 tk=${4:-}
conf=$(dirname "$emu")/nvcc-emu.conf
# shellcheck disable=SC1090
. "$conf"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
[ -n "$tk" ] && [ ! -d "$tk" ] && tk=

{
    grep -v -e '^#' -e '^[[:space:]]*$' "$names"
    [ -n "$tk" ] && (cd "$tk" && find . -type f | sed -n 's|^\./||; p; s|^cccl/||p')
} | grep -v -e '[^A-Za-z0-9_./+-]' | LC_ALL=C sort -u >"$work/names"
n=$(wc -l <"$work/names")
sed 's|.*|#include <&>|' "$work/names" >"$work/all.cpp"
tkinc=()
[ -n "$tk" ] && tkinc=(-I"$tk" -I"$tk/cccl")
stubinc=()
[ -n "${CUDAEMU_STUBS:-}" ] && stubinc=(-I"$CUDAEMU_STUBS")
g++ -std=c++17 -E -D__CUDAEMU__=1 -I"$CUDAEMU_INCLUDE" "${stubinc[@]}" "${tkinc[@]}" \
    "$work/all.cpp" >"$work/all.i" 2>"$work/all.err"
[ -s "$work/all.i" ] || fail "the preprocessor wrote nothing: $(head -3 "$work/all.err")"
# files read: the line markers of the preprocessed output
leaked=$(sed -n 's/^# [0-9]* "\([^"]*\)".*/\1/p' "$work/all.i" | sort -u | grep '^/usr/local/' | head -5)
[ -z "$leaked" ] || fail "a real toolkit header was read: $leaked"
grep 'error:' "$work/all.err" | grep -v -E 'error: #error "cudaemu: <[^>]+> \([^)]+\) is not emulated"' \
    >"$work/other.err"
[ ! -s "$work/other.err" ] || fail "errors other than the stubs' line: $(head -3 "$work/other.err")"
stubs=$(grep -rl '^#error "cudaemu: ' "$CUDAEMU_INCLUDE" ${CUDAEMU_STUBS:+"$CUDAEMU_STUBS"} | wc -l)
errs=$(grep -c 'error: #error "cudaemu: ' "$work/all.err")
[ "$errs" -eq "$stubs" ] || fail "$errs stubs reported themselves, of $stubs"
echo "toolkit_headers: $n names, $errs stubs stopped with the cudaemu line ($stubs stub files), none of the toolkit read"

# 2. nvcc-emu keeps a toolkit on -I or CPATH out
cat >"$work/fft.cu" <<'CU'
#include <cufft.h>
int main() { cufftHandle plan; return cufftPlan1d(&plan, 64, CUFFT_C2C, 1) != CUFFT_SUCCESS; }
CU
cat >"$work/ok.cu" <<'CU'
#include <cuda_profiler_api.h>
#include <math_constants.h>
#include <sm_30_intrinsics.h>
#include <device_launch_parameters.h>
#include <vector_functions.h>
#include <cublas_v2.h>
#include <texture_types.h>
#include <channel_descriptor.h>
#include <texture_indirect_functions.h>
#include <surface_indirect_functions.h>
int main()
{
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float4>();
    return cudaProfilerStart() == cudaSuccess && CUDART_PI_F > 3.0f && d.w == 32 ? 0 : 1;
}
CU
tkflag=()
[ -n "$tk" ] && tkflag=(-I "$tk")
CPATH=${tk:-} "$emu" -v "${tkflag[@]}" -c "$work/fft.cu" -o "$work/fft.o" >"$work/fft.out" 2>&1 &&
    fail "a .cu including <cufft.h> compiled"
first=$(grep -m1 'error' "$work/fft.out")
case $first in
    *'#error "cudaemu: <cufft.h> (cuFFT) is not emulated"'*) ;;
    *) fail "first error of <cufft.h>: $first" ;;
esac
# the errors of the API it lacks (cufftHandle, cufftPlan1d) are not shown
[ "$(grep -c 'error' "$work/fft.out")" -eq 1 ] || fail "<cufft.h>: more than the stub's line: $(cat "$work/fft.out")"
if [ -n "$tk" ]; then
    grep -q "leaving out the real CUDA toolkit's include dirs" "$work/fft.out" ||
        fail "nvcc-emu -v did not say it left $tk out"
fi
CPATH=${tk:-} CPLUS_INCLUDE_PATH=${tk:-} "$emu" "${tkflag[@]}" "$work/ok.cu" -o "$work/ok" >"$work/ok.out" 2>&1 ||
    fail "implemented headers did not compile: $(grep -m1 error "$work/ok.out")"
"$work/ok" || fail "cudaProfilerStart/CUDART_PI_F"
echo "toolkit_headers: nvcc-emu leaves the toolkit out; <cufft.h> stops with its line"
echo "toolkit_headers ok"
