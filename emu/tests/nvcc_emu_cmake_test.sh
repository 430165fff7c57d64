#!/usr/bin/env bash
# emu/tests/nvcc_emu_cmake_test.sh - a CMake CUDA project built with nvcc-emu
# as its CUDA compiler, as public repositories are built (cmake -S . -B b
# -DCMAKE_CUDA_COMPILER=nvcc-emu; cmake --build b).
#
#   nvcc_emu_cmake_test.sh NVCC_EMU PROJECT_DIR WORK_DIR
#
# CMake's compiler detection reads nvcc-emu -v (TOP, LIBRARIES, the link
# launcher cudaemu-ld, a default architecture), find_package(CUDAToolkit)
# finds the emulated toolkit root, the program links through cudaemu-ld
# (a real toolkit library on the line is dropped) and prints the right value;
# editing a header rebuilds what includes it (-MD dependencies) and the value
# changes with it.
set -u
nvcc_emu=$1 proj=$2 work=$3
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
rm -rf "$work" && mkdir -p "$work" && cp -r "$proj" "$work/src" || exit 1
export CUDAEMU_CACHE=$work/cache
real=()
for l in /usr/local/cuda/lib64/libcudart.so /usr/local/cuda/lib64/libcublas.so; do
    [ -e "$l" ] && { real=(-DREAL_CUDA_LIB="$l"); break; }
done
cmake -S "$work/src" -B "$work/b" -DCMAKE_CUDA_COMPILER="$nvcc_emu" \
    "${real[@]}" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; bad "cmake configure failed"; exit 1; }
grep -q "The CUDA compiler identification is NVIDIA" "$work/configure.log" ||
    bad "CMake did not identify nvcc-emu as nvcc"
build() {
    cmake --build "$work/b" >"$work/build.log" 2>&1 || { cat "$work/build.log"; bad "cmake --build failed"; return 1; }
}
build || exit 1
# a C++ source beside the CUDA ones: CMake links with g++, and the emulated
# runtime comes from the toolkit root's lib64 (its linker scripts); a real
# runtime named on the line (REAL_CUDA_LIB) is linked but never used: the
# emulator's API has C++ names of its own (inline namespace cudaemu_api)
grep -q "lib64" "$work/b/CMakeFiles/app.dir/link.txt" "$work/b/CMakeFiles/app.dir/"*.rsp 2>/dev/null ||
    bad "the link names nothing of the emulated toolkit's lib64: $(cat "$work/b/CMakeFiles/app.dir/link.txt")"
# (CMake writes the libraries to a response file: cudaemu-ld reads it)
[ ${#real[@]} -eq 0 ] || cat "$work/b/CMakeFiles/app.dir/link.txt" "$work/b/CMakeFiles/app.dir/"*.rsp 2>/dev/null |
    grep -q "${real[0]#*=}" ||
    bad "the real toolkit library was not on the link line (the drop was not exercised)"
grep -q "cudaemu-ld" "$work/b/CMakeFiles/app_cu.dir/link.txt" ||
    bad "app_cu (CUDA sources only) was not linked through cudaemu-ld: $(cat "$work/b/CMakeFiles/app_cu.dir/link.txt")"
for p in app app_cu; do
    out=$("$work/b/$p" 2>&1)
    echo "$p: $out"
    [ "$out" = "scaled dot 3045150 cudaSuccess" ] || bad "$p printed '$out', not 'scaled dot 3045150 cudaSuccess' (3^2 x 338350)"
done
# the dependency file names the original sources and the header
grep -q "scale.h" "$work/b/CMakeFiles/app.dir/scale.cu.o.d" 2>/dev/null ||
    bad "scale.cu.o.d does not name scale.h"
grep -q "nvcc-emu\.[A-Za-z0-9]*/" "$work/b/CMakeFiles/app.dir/scale.cu.o.d" 2>/dev/null &&
    bad "scale.cu.o.d names a translated temporary copy"
sed -i 's/#define SCALE_BY 3/#define SCALE_BY 5/' "$work/src/scale.h"
build || exit 1
out=$("$work/b/app" 2>&1)
[ "$out" = "scaled dot 8458750 cudaSuccess" ] || bad "after SCALE_BY 5 in scale.h, app printed '$out', not 'scaled dot 8458750 cudaSuccess'"
[ "$fail" -eq 0 ] && echo "nvcc_emu_cmake ok"
exit "$fail"
