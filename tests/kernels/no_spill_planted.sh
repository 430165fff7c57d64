#!/usr/bin/env bash
# tests/kernels/no_spill_planted.sh NVCC PTXAS_FLAGS - the flags that fail the
# build of a kernel that spills or uses local memory (BENCH_PTXAS_NO_SPILL,
# kernels/CMakeLists.txt, with -Werror) fail a planted kernel whose array is
# indexed at run time (so it lives in local memory), and pass a small one
# indexed at compile time (held in registers).
set -u
nvcc=$1 flags=$2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
kernel() {   # kernel SIZE WRITE_INDEX READ_INDEX
  cat <<CU
__global__ void planted(float *o, int i)
{
    float a[$1];
    for (int j = 0; j < $1; j++) a[$2] = o[j] * (float)j;
    o[threadIdx.x] = a[$3];
}
CU
}
kernel 256 '(j * 7 + i) & 255' 'o[0] > 0.f ? i & 255 : 3' >"$tmp/bad.cu"
kernel 4 j 3 >"$tmp/good.cu"
fails=0
if out=$("$nvcc" -std=c++17 -O3 -arch=sm_90 -cubin "$flags" -o "$tmp/bad.cubin" "$tmp/bad.cu" 2>&1); then
  echo "FAIL: a kernel in local memory built with $flags"; fails=1
elif ! grep -qi 'local memory\|spill' <<<"$out"; then
  echo "FAIL: the planted kernel failed for another reason: $out"; fails=1
else
  echo "ok: the planted kernel fails: $(grep -i 'local memory\|spill' <<<"$out" | head -1)"
fi
if ! out=$("$nvcc" -std=c++17 -O3 -arch=sm_90 -cubin "$flags" -o "$tmp/good.cubin" "$tmp/good.cu" 2>&1); then
  echo "FAIL: a kernel held in registers fails: $out"; fails=1
else
  echo "ok: a kernel held in registers builds"
fi
exit $fails
