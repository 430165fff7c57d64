#!/usr/bin/env bash
# ci/gate_test.sh GATE - the regression gate on synthetic CSVs: identical runs
# pass, a planted 2x slowdown fails, noise inside the band passes, an
# improvement passes as faster, a failed check fails, malformed input exits 2
# naming file and line, missing cases fail only with --strict, another CPU
# only warns, emulated rows are ignored.
set -u
gate=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }
header="suite,case,backend,mode,dtype,shape,threads,reps,median_ms,min_ms,max_ms,mad_ms,gflops,gbps,baseline,speedup,max_abs_err,rel_err,tolerance,check,device,emulated,h2d_ms,compute_ms,d2h_ms,overlap_eff,peak_dev_mb,alloc_ms,bytes,note,samples_ms"

# mkcsv FILE CPU OMP_MEDIAN OMP_MAD [CHECK] [EMULATED_ROW]: blas at 10 ms, omp at OMP_MEDIAN
mkcsv() {
  local f=$1 cpu=$2 med=$3 mad=$4 check=${5:-pass}
  local sp
  sp=$(awk -v m="$med" 'BEGIN { printf "%.6g", 10 / m }')
  {
    echo "# cpu: $cpu"
    echo "# simd: avx2 fma"
    echo "$header"
    echo "matmul,square-512,cpu-blas,host,fp32,512x512x512,2,20,10,9.9,10.2,0.05,26.8,,cpu-blas,1,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,"
    echo "matmul,square-512,cpu-omp,host,fp32,512x512x512,2,20,$med,$med,$med,$mad,20,,cpu-blas,$sp,1e-6,1e-7,1e-5,$check,CPU,0,,,,,,,,,"
    # an emulated row: never gated, even when its "speedup" collapses
    echo "matmul,square-512,cuda-tiled,resident,fp32,512x512x512,0,1,$med,$med,$med,0,1,,cpu-blas,$sp,1e-6,1e-7,1e-5,pass,emu,1,,,,,,,,,"
    [ -n "${6:-}" ] && echo "matmul,square-1024,cpu-omp,host,fp32,1024x1024x1024,2,20,80,80,80,0.1,20,,cpu-blas,1,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,"
  } > "$f"
}
run() { out=$("$gate" "$@" 2>&1); rc=$?; }

mkcsv base.csv "Xeon" 12 0.06 pass extra
mkcsv same.csv "Xeon" 12 0.06 pass extra
run same.csv base.csv
[ $rc -eq 0 ] && grep -q 'PASS' <<<"$out" || fail "identical runs: rc $rc: $out"
grep -q 'square-512/512x512x512/cpu-omp/host .* same' <<<"$out" || fail "identical: verdict same: $out"
grep -q 'cuda-tiled' <<<"$out" && fail "emulated row compared: $out"
run slow.csv base.csv
grep -q 'cuda-tiled' <<<"$out" && fail "emulated row gated: $out"

mkcsv slow.csv "Xeon" 24 0.12 pass extra
run slow.csv base.csv
[ $rc -eq 1 ] && grep -q 'SLOWER' <<<"$out" && grep -q 'FAIL' <<<"$out" || fail "2x slowdown: rc $rc: $out"

mkcsv noise.csv "Xeon" 13.2 0.07 pass extra   # -9%
run noise.csv base.csv
[ $rc -eq 0 ] || fail "noise inside the band should pass: $out"

# -29% at a 10% tolerance: SLOWER when the rows are steady, same when their
# own MAD (15% of the median) says such a drop is noise
mkcsv noisy.csv "Xeon" 17 2.5 pass extra
run noisy.csv base.csv --tolerance 0.1
[ $rc -eq 0 ] && grep -q ' same' <<<"$out" || fail "a drop within the rows' own noise should pass: $out"
mkcsv steady.csv "Xeon" 17 0.05 pass extra
run steady.csv base.csv --tolerance 0.1
[ $rc -eq 1 ] && grep -q 'SLOWER' <<<"$out" || fail "the same drop with steady rows should fail: $out"

mkcsv fast.csv "Xeon" 6 0.03 pass extra
run fast.csv base.csv
[ $rc -eq 0 ] && grep -q 'faster' <<<"$out" || fail "improvement: rc $rc: $out"

mkcsv failed.csv "Xeon" 12 0.06 fail extra
run failed.csv base.csv
[ $rc -eq 1 ] && grep -q 'failed check' <<<"$out" || fail "failed check: rc $rc: $out"

mkcsv fewer.csv "Xeon" 12 0.06
run fewer.csv base.csv
[ $rc -eq 0 ] && grep -q 'missing' <<<"$out" || fail "missing case passes by default: $out"
run fewer.csv base.csv --strict
[ $rc -eq 1 ] || fail "missing case fails with --strict: rc $rc"
run base.csv fewer.csv
grep -q ' new' <<<"$out" && [ $rc -eq 0 ] || fail "new case: $out"

mkcsv other.csv "Another CPU" 24 0.12 pass extra
run other.csv base.csv
[ $rc -eq 0 ] && grep -q 'another CPU' <<<"$out" || fail "other machine only warns: rc $rc: $out"
run other.csv base.csv --strict
[ $rc -eq 1 ] || fail "other machine with --strict fails"

# malformed input: exit 2, naming file and line
mkcsv bad.csv "Xeon" 12 0.06
sed -i 's/cpu-blas,0.833333,/cpu-blas,zero,/' bad.csv
run bad.csv base.csv
[ $rc -eq 2 ] && grep -q 'bad.csv:5:' <<<"$out" || fail "non-numeric speedup: rc $rc: $out"
grep -v '^#' base.csv | cut -d, -f1-15 > nocol.csv
mkcsv nan.csv "Xeon" 12 0.06
sed -i 's/cpu-blas,0.833333,/cpu-blas,nan,/' nan.csv
run nan.csv base.csv
[ $rc -eq 2 ] && grep -q 'nan.csv:5:' <<<"$out" || fail "NaN speedup is malformed, not 'same': rc $rc: $out"
run nocol.csv base.csv
[ $rc -eq 2 ] && grep -q "nocol.csv:1: no column 'speedup'" <<<"$out" || fail "missing column: rc $rc: $out"
run nosuch.csv base.csv
[ $rc -eq 2 ] && grep -q 'nosuch.csv' <<<"$out" || fail "unreadable file: rc $rc: $out"
printf '%s\n1,2\n' "$header" > torn.csv
run torn.csv base.csv
[ $rc -eq 2 ] && grep -q 'torn.csv:2:' <<<"$out" || fail "torn row: rc $rc: $out"
run base.csv base.csv --tolerance -1
[ $rc -eq 2 ] || fail "bad tolerance: rc $rc"
run base.csv
[ $rc -eq 2 ] || fail "one file only: rc $rc"

echo "gate: $fails failed"
[ "$fails" -eq 0 ]
