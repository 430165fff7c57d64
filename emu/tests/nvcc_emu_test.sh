#!/usr/bin/env bash
# emu/tests/nvcc_emu_test.sh - nvcc-emu as a user calls it.
#
#   nvcc_emu_test.sh NVCC_EMU SOURCE_DIR WORK_DIR BUILD_DIR [asan]
#
# Builds emu/tests/nvcc_emu/app.cu and part.cu (part compiled apart with -c)
# with nvcc's usual flags, runs the program and compares its output values;
# a bad flag must give one line on stderr and exit 2; compile errors must
# name the original file and line; a <<< without >>> must be refused.
# nvcc's other options (emu/README.md's table): each class once (ignored
# device-code options, -std raised, -dc/-dlink/-lib, -I reaching the
# translator, toolkit libraries dropped), the refusals' exact lines.
# Then `cmake --install BUILD_DIR` into WORK_DIR/prefix, and the installed
# nvcc-emu must build and run the program too.
# With `asan`, the build is sanitized: --asan is passed and the program must
# be linked with AddressSanitizer.
set -u
nvcc_emu=$1 src=$2/nvcc_emu work=$3 build=$4 mode=${5:-}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
extra=()
[ "$mode" = asan ] && extra=(--asan)

# separate compilation with -c, then compile + link with the object
"$nvcc_emu" "${extra[@]}" -c -arch=sm_90 -I "$src/inc" -O2 "$src/part.cu" -o part.o ||
    bad "nvcc-emu -c part.cu failed"
[ -f part.o ] || bad "part.o was not written"
"$nvcc_emu" "${extra[@]}" -O3 -std=c++17 -gencode arch=compute_80,code=sm_80 \
    --generate-code=arch=compute_90,code=sm_90 -lineinfo -DSCALE=3 -I"$src/inc" \
    -Xcompiler -Wall,-Wextra -L"$work" -lm "$src/app.cu" part.o -o app ||
    bad "nvcc-emu app.cu part.o failed"
if [ -x app ]; then
    out=$(./app)
    echo "$out"
    # 3*(1+...+128) and 3*(129+...+256); 0^2+...+9^2
    [ "$(echo "$out" | sed -n 1p)" = "sums 24768 73920" ] || bad "wrong sums: $out"
    [ "$(echo "$out" | sed -n 2p)" = "squares 285" ] || bad "wrong squares: $out"
    if [ "$mode" = asan ]; then
        nm app | grep -q __asan_init || bad "app is not built with AddressSanitizer"
    fi
else
    bad "no program app"
fi

# several inputs in one command
"$nvcc_emu" "${extra[@]}" -DSCALE=1 -I "$src/inc" "$src/app.cu" "$src/part.cu" -o app2 &&
    [ "$(./app2 | sed -n 1p)" = "sums 8256 24640" ] || bad "two .cu inputs in one command"

# fresh device memory in a user's program is zero, as GPUs give in practice
# (CUDAEMU_FRESH=nan: 0xFF bytes, bench's default); --sanitize=initcheck
# names the read of bytes nothing wrote as a warning and the program goes on
if "$nvcc_emu" "${extra[@]}" --sanitize=initcheck "$src/fresh.cu" -o fresh; then
    out=$(./fresh 2>fresh.err)
    rc=$?
    cat fresh.err
    [ "$rc" -eq 0 ] && [ "$out" = "sum 36" ] || bad "fresh.cu: rc=$rc, '$out' (not zero-filled?)"
    grep -Eq "^cudaemu: initcheck: kernel row_sums, block \(0,0,0\), thread \([0-6],0,0\) .* read of uninitialized device memory .* of the 256-byte device memory \(cudaMalloc\) block" fresh.err ||
        bad "fresh.cu --sanitize=initcheck: no initcheck warning naming row_sums and the block"
    # row r of 8 reads 7 - r entries nothing wrote: 8 * 7 / 2 in all
    grep -q "^cudaemu: initcheck ERROR SUMMARY: $((8 * 7 / 2)) error(s)" fresh.err ||
        bad "fresh.cu --sanitize=initcheck: no summary of 28 uninitialized reads"
    out=$(CUDAEMU_FRESH=nan ./fresh 2>/dev/null)
    case $out in "sum -nan"|"sum nan") ;; *) bad "fresh.cu with CUDAEMU_FRESH=nan: '$out'" ;; esac
else
    bad "nvcc-emu --sanitize=initcheck fresh.cu failed"
fi
err=$("$nvcc_emu" --sanitize=memcheck "$src/fresh.cu" -o never 2>&1 >/dev/null)
[ $? -eq 2 ] && case $err in *--sanitize=memcheck*) true ;; *) false ;; esac ||
    bad "--sanitize=memcheck: not refused by name: $err"

# a bad flag: one line, exit 2
err=$("$nvcc_emu" --no-such-flag "$src/app.cu" -o never 2>&1 >/dev/null)
rc=$?
echo "bad flag: rc=$rc: $err"
[ "$rc" -eq 2 ] || bad "a bad flag gave exit status $rc, not 2"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || bad "a bad flag gave more than one line"
case $err in *--no-such-flag*) ;; *) bad "the message does not name the flag" ;; esac
[ ! -e never ] || bad "an output was written despite the bad flag"
"$nvcc_emu" -o 2>/dev/null; [ $? -eq 2 ] || bad "-o without a value is not exit 2"

# compile errors point at the original file and line
err=$("$nvcc_emu" "$src/bad.cu" -o bad 2>&1)
[ $? -ne 0 ] || bad "bad.cu compiled"
printf '%s\n' "$err" | grep -q "bad.cu:9:" || { echo "$err"; bad "no bad.cu:9 in the compiler's errors"; }
err=$("$nvcc_emu" "$src/unterminated.cu" -o unterminated 2>&1)
[ $? -ne 0 ] || bad "unterminated.cu compiled"
printf '%s\n' "$err" | grep -q "unterminated.cu:5: error: kernel launch" ||
    { echo "$err"; bad "no unterminated.cu:5 translator error"; }

# a wmma fragment the emulator lacks stops the compile at one static_assert
for shape in M32N8K16 DOUBLE INT8; do
    err=$("$nvcc_emu" -c -D SHAPE_$shape "$src/wmma_shape.cu" -o wmma_shape.o 2>&1)
    [ $? -ne 0 ] || bad "wmma_shape.cu ($shape) compiled"
    [ "$(printf '%s\n' "$err" | grep -c "cudaemu: nvcuda::wmma fragment not emulated")" -ge 1 ] ||
        { echo "$err"; bad "no 'wmma fragment not emulated' line for $shape"; }
done

# a cuRAND generator the emulator lacks stops the compile at one static_assert
err=$("$nvcc_emu" -c "$src/curand_sobol_refused.cu" -o curand_sobol_refused.o 2>&1)
[ $? -ne 0 ] || bad "curand_sobol_refused.cu compiled"
[ "$(printf '%s\n' "$err" | grep -c "error: static assertion failed: cudaemu: this cuRAND generator's device API")" -eq 1 ] ||
    { echo "$err"; bad "no single 'cuRAND generator ... not emulated' line"; }

# --version: CMake's line, then lines saying it is cudaemu with nvcc's
# "release X.Y, VX.Y.Z", exit 0
ver=$("$nvcc_emu" --version 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$ver" | wc -l)" -eq 3 ] &&
    printf '%s\n' "$ver" | sed -n 2p | grep -q "cudaemu.*release [0-9]*\.[0-9], V[0-9]*\.[0-9]\.[0-9]" ||
    bad "--version: rc=$rc: $ver"

# nvcc's options for device code, nvcc's steps and the toolkit's libraries:
# separate compilation (-dc, a kernel and a __device__ function of one file
# used from the other), the device link step (-dlink: an empty object that
# links), -lib, and a kernel launched in a header found only through -I
rm -f rdc_kernels.o rdc_main.o
err=$("$nvcc_emu" "${extra[@]}" -dc -O0 -v -std=c++14 -m64 -arch=sm_80,sm_90 --gpu-architecture=sm_90 \
    -code=sm_80,compute_80 -gencode arch=compute_80,code=[sm_80,compute_80] -lineinfo \
    -gencode arch=compute_35,code=sm_35 -gencode=arch=compute_90a,code=\"sm_90a,compute_90a\" \
    -Xptxas -v --resource-usage --default-stream legacy -rdc=true -Werror all-warnings \
    -I "$src/inc" "$src/rdc_kernels.cu" "$src/rdc_main.cu" 2>&1 >/dev/null) ||
    { echo "$err"; bad "nvcc-emu -dc rdc_kernels.cu rdc_main.cu failed"; }
[ "$(printf '%s\n' "$err" | grep -c 'nvcc-emu: -std=c++14 raised to -std=c++17')" -eq 1 ] ||
    { echo "$err"; bad "-std=c++14 with -v: no single line saying it was raised to c++17"; }
"$nvcc_emu" -dlink -arch=sm_90 rdc_kernels.o rdc_main.o -o rdc_dlink.o || bad "-dlink failed"
"$nvcc_emu" -lib rdc_kernels.o -o librdc.a || bad "-lib failed"
"$nvcc_emu" "${extra[@]}" -rdc=true rdc_main.o rdc_dlink.o -L. -lrdc -lcudart -lcudadevrt \
    -lcublas,cublasLt -lnvToolsExt -lcuda -lcurand -o rdc || bad "linking the -dc objects failed"
out=$(./rdc 2>&1)
[ "$out" = "rdc 2 4 6 8 | 30 60 90 120" ] || bad "separate compilation: '$out'"

# refused by name: one line, exit 2, nothing written
refused() { # refused "EXPECTED LINE" ARGS...
    local want=$1 got rc
    shift
    got=$("$nvcc_emu" "$@" "$src/app.cu" -o never 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 2 ] && [ "$got" = "$want" ] && [ ! -e never ] ||
        bad "nvcc-emu $*: rc=$rc, '$got' (want exit 2 and '$want')"
}
refused "nvcc-emu: -lcufft: cuFFT is not emulated" -lcufft
refused "nvcc-emu: -lcusparse: cuSPARSE is not emulated" -l cublas,cusparse
refused "nvcc-emu: --default-stream per-thread: not emulated: stream 0 stays the legacy default stream (name cudaStreamPerThread explicitly, or build with --default-stream legacy)" --default-stream per-thread
refused "nvcc-emu: -arch: unsupported gpu architecture 'sm_bogus' (want sm_NN, compute_NN or lto_NN, as nvcc --list-gpu-code names them)" -arch=sm_bogus
refused "nvcc-emu: -gencode: unsupported gpu architecture 'sm90' (want sm_NN, compute_NN or lto_NN, as nvcc --list-gpu-code names them)" -gencode arch=compute_90,code=[sm90,compute_90]
refused "nvcc-emu: -gencode 'arch=compute_90': not in arch=<target>,code=<target>[,...] form" -gencode arch=compute_90
refused "nvcc-emu: -m32: 32-bit host code is not supported (nvcc dropped it too)" -m32
refused "nvcc-emu: -ptx: asks for device code or nvcc's intermediate files; the emulator has none" -ptx
refused "nvcc-emu: -rdc maybe: not true or false" -rdc maybe
refused "nvcc-emu: -shared: the emulator library is static and not position-independent: link the program" -shared
# make dependencies (CMake passes -MD -MT -MF): the original sources and
# their headers, never a translated temporary copy
"$nvcc_emu" -M -MT app.o -DSCALE=3 -I "$src/inc" "$src/app.cu" >deps.out 2>deps.err ||
    { cat deps.err; bad "-M failed"; }
grep -q "^app.o: .*app.cu" deps.out && grep -q "inc/" deps.out && ! grep -q "nvcc-emu\." deps.out ||
    { cat deps.out; bad "-M: not 'app.o: .../app.cu' with its inc/ header and no temporary copy"; }
"$nvcc_emu" "${extra[@]}" -MD -MT part.o -MF part.d -c -I "$src/inc" "$src/part.cu" -o part2.o ||
    bad "-MD -MF -c failed"
[ -f part2.o ] && grep -q "^part.o: .*part.cu" part.d || bad "-MD -MF: no object or no part.d naming part.cu"
# --options-file: words quoted as a shell quotes them, then the command line
printf '%s\n' "-DSCALE=3 '-I$src/inc'" "-Xcompiler -Wall" >opts.txt
"$nvcc_emu" "${extra[@]}" --options-file opts.txt "$src/app.cu" part.o -o app_optf &&
    [ "$(./app_optf | sed -n 1p)" = "sums 24768 73920" ] || bad "--options-file: the program or its sums"
printf '%s\n' "-DSCALE='3" >opts_bad.txt
got=$("$nvcc_emu" --options-file opts_bad.txt "$src/app.cu" -o never 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$got" = "nvcc-emu: --options-file opts_bad.txt: unbalanced quotes or an unreadable file" ] ||
    bad "--options-file with an open quote: rc=$rc '$got'"
# -v names an emulated toolkit root and the link launcher (what CMake reads:
# emu.nvcc_emu_cmake builds a project with it)
err=$(CUDAEMU_CACHE=$work/cache "$nvcc_emu" "${extra[@]}" -v -DSCALE=3 -I "$src/inc" "$src/app.cu" part.o -o app_v 2>&1)
top=$(printf '%s\n' "$err" | sed -n 's/^#\$ TOP=//p')
[ -n "$top" ] && [ -f "$top/include/cuda_runtime.h" ] && [ -f "$top/lib64/libcudart.a" ] ||
    bad "-v: no TOP line naming a folder with include/cuda_runtime.h and lib64/libcudart.a: '$top'"
printf '%s\n' "$err" | grep -q "^#\$ .*/cudaemu-ld .*-L$top/lib64" || bad "-v: no cudaemu-ld line with -L$top/lib64"
printf '%s\n' "$err" | grep -q -- "-arch compute_[0-9]" || bad "-v: no '-arch compute_N' (CMake's default architecture)"
"$nvcc_emu" --version | head -1 | grep -q "nvcc: NVIDIA (R) Cuda compiler driver" ||
    bad "--version: its first line is not the one CMake matches"
# cudaemu-ld: toolkit libraries dropped, by -l and by path, also inside a
# response file; others linked; one the emulator lacks refused by name
"$nvcc_emu" "${extra[@]}" -c -I "$src/inc" -DSCALE=3 "$src/app.cu" -o app_ld.o || bad "-c app.cu failed"
printf '%s\n' "/usr/local/cuda/lib64/libcudart.so" "$top/lib64/libcublas.a" >libs.rsp
"$top/bin/cudaemu-ld" "${extra[@]}" app_ld.o part.o -o app_ld -lcudart /opt/cuda/lib64/libcublasLt.so.13 \
    @libs.rsp -lm || bad "cudaemu-ld failed"
[ -x app_ld ] && [ "$(./app_ld | sed -n 1p)" = "sums 24768 73920" ] || bad "cudaemu-ld: the program or its sums"
got=$("$top/bin/cudaemu-ld" app_ld.o part.o -o never /usr/local/cuda/lib64/libcufft.so 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$got" = "nvcc-emu: -lcufft: cuFFT is not emulated" ] && [ ! -e never ] ||
    bad "cudaemu-ld with libcufft.so: rc=$rc '$got'"
# <cuda.h>: a driver call the emulator lacks stops the compile by name
err=$("$nvcc_emu" -c "$src/driver_refused.cu" -o driver_refused.o 2>&1)
[ $? -ne 0 ] || bad "driver_refused.cu compiled"
printf '%s\n' "$err" | grep -q "error: static assertion failed: cudaemu: cuModuleLoad (CUDA driver API) is not emulated" ||
    { echo "$err"; bad "no 'cuModuleLoad (CUDA driver API) is not emulated' line"; }
err=$("$nvcc_emu" -c -D VMM "$src/driver_refused.cu" -o driver_refused.o 2>&1)
[ $? -ne 0 ] || bad "driver_refused.cu -D VMM compiled"
for fn in cuMemCreate cuCtxCreate_v4 cuArrayCreate; do
    printf '%s\n' "$err" | grep -q "static assertion failed: cudaemu: $fn (CUDA driver API) is not emulated" ||
        { echo "$err"; bad "no '$fn (CUDA driver API) is not emulated' line"; }
done
[ "$(printf '%s\n' "$err" | grep -c 'error:')" -eq 3 ] || { echo "$err"; bad "-D VMM: errors other than the three refusals"; }
# inline PTX the translator does not know: its file, line and instruction
err=$("$nvcc_emu" -c "$src/ptx_refused.cu" -o ptx_refused.o 2>&1)
[ $? -ne 0 ] || bad "ptx_refused.cu compiled"
printf '%s\n' "$err" | grep -q "ptx_refused.cu:7:.*static assertion failed: cudaemu: inline PTX 'add.cc.u32 %0, %1, %2' is not emulated" ||
    { echo "$err"; bad "no 'inline PTX ... is not emulated' line at ptx_refused.cu:7"; }
# conditional graph nodes (and graph memory node getters) stop the compile by name
err=$("$nvcc_emu" -c "$src/graph_refused.cu" -o graph_refused.o 2>&1)
[ $? -ne 0 ] || bad "graph_refused.cu compiled"
printf '%s\n' "$err" | grep -q "error: static assertion failed: cudaemu: cudaGraphConditionalHandleCreate (conditional graph nodes) is not emulated" ||
    { echo "$err"; bad "no 'cudaGraphConditionalHandleCreate (conditional graph nodes) is not emulated' line"; }

# installed: bin/nvcc-emu next to lib/libcudaemu.a and include/cudaemu/
if cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1; then
    [ -f prefix/lib/libcudaemu.a ] && [ -f prefix/include/cudaemu/cuda_runtime.h ] ||
        bad "install: no lib/libcudaemu.a or include/cudaemu/cuda_runtime.h"
    # the rounding core (ops/half_round.h) itself, not the source tree's forward
    grep -q 'h16_encode' prefix/include/cudaemu/cudaemu/half_round.h ||
        bad "install: include/cudaemu/cudaemu/half_round.h is not ops/half_round.h"
    "$work/prefix/bin/nvcc-emu" "${extra[@]}" -DSCALE=2 -I "$src/inc" "$src/app.cu" \
        "$src/part.cu" -o app3 && [ "$(./app3 | sed -n 1p)" = "sums 16512 49280" ] ||
        bad "the installed nvcc-emu"
else
    cat install.log >&2
    bad "cmake --install failed"
fi

[ "$fail" = 0 ] && echo "nvcc-emu: all checks passed"
exit "$fail"
