#!/usr/bin/env bash
# ci/gate_test.sh GATE - the regression gate on synthetic CSVs: identical runs
# pass, a planted 2x slowdown fails, noise inside the band passes, an
# improvement passes as faster, a failed check fails, malformed input exits 2
# naming file and line, missing/skipped cases fail unless --allow-missing, a
# comparison of nothing always fails, bad --tolerance values exit 2, another
# CPU only warns, emulated rows are ignored, 2 x 50k rows finish in seconds,
# training rows (one case, a shape per batch) are gated shape by shape;
# disturbed rows (current run) are ambiguous (exit 3), a quiet regression beside them fails;
# bounded input: folders, devices, FIFOs, overlong lines refused; a BOM read.
# The synthetic files use the columns of ci/baselines/amd-epyc.csv (before
# flops/device_kind/repro): the gate must read them, as it reads that baseline.
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
grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* same' <<<"$out" || fail "identical: verdict same: $out"
grep -q 'cuda-tiled' <<<"$out" && fail "emulated row compared: $out"

mkcsv slow.csv "Xeon" 24 0.12 pass extra
run slow.csv base.csv
[ $rc -eq 1 ] && grep -q 'SLOWER' <<<"$out" && grep -q 'FAIL' <<<"$out" || fail "2x slowdown: rc $rc: $out"
# the emulated row collapsed as much as cpu-omp did, and is still not gated
grep -q 'cuda-tiled' <<<"$out" && fail "emulated row gated: $out"

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
[ $rc -eq 1 ] && grep -q 'square-1024/1024x1024x1024/cpu-omp/fp32/host .* missing' <<<"$out" \
  && grep -q 'FAIL' <<<"$out" || fail "a missing case fails by default: rc $rc: $out"
run fewer.csv base.csv --allow-missing
[ $rc -eq 0 ] && grep -q 'allowed: --allow-missing' <<<"$out" || fail "--allow-missing lets it pass: rc $rc: $out"
run fewer.csv base.csv --strict
[ $rc -eq 1 ] || fail "missing case fails with --strict: rc $rc"
run base.csv fewer.csv
grep -q ' new' <<<"$out" && [ $rc -eq 0 ] || fail "new case: $out"

# a header-only current run compares nothing: FAIL, even with --allow-missing
grep -v '^matmul' base.csv > empty.csv
run empty.csv base.csv
[ $rc -eq 1 ] && grep -q '2 missing' <<<"$out" || fail "header-only current run: rc $rc: $out"
run empty.csv base.csv --allow-missing
[ $rc -eq 1 ] && grep -q 'no case was compared' <<<"$out" || fail "nothing compared passes: rc $rc: $out"
# a run of the baseline backend alone: every gated case missing
grep -v 'cpu-omp' base.csv > oneback.csv
run oneback.csv base.csv
[ $rc -eq 1 ] && grep -q '2 missing' <<<"$out" || fail "one-backend run: rc $rc: $out"
# a case that errored (a skip row) in the current run
sed 's/^\(matmul,square-1024,cpu-omp,host,[^,]*,[^,]*,[^,]*,[^,]*\),80,80,80,0.1,20,,cpu-blas,1,1e-6,1e-7,1e-5,pass/\1,,,,,,,cpu-blas,,,,,skip/' \
  base.csv > skipped.csv
run skipped.csv base.csv
[ $rc -eq 1 ] && grep -q 'missing (skipped' <<<"$out" || fail "skipped case: rc $rc: $out"
# a failed check on a baseline case is named on its line
mkcsv failedcase.csv "Xeon" 12 0.06 fail extra
run failedcase.csv base.csv --allow-missing
[ $rc -eq 1 ] && grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* FAILED' <<<"$out" || fail "failed case: rc $rc: $out"

# a baseline per machine class: --class names it, --baselines DIR takes the
# class's file and says so (a planted 2x slowdown fails against it), and with
# none for the class says so and compares against the first file, only warning
mkdir bl
mkcsv "bl/zzz-other.csv" "Another CPU" 12 0.06 pass extra
run --class base.csv
[ $rc -eq 0 ] && [ "$out" = xeon ] || fail "--class of 'Xeon': rc $rc: '$out'"
{ echo "# cpu: Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz"
  echo "# gpu: 0 NVIDIA H100 80GB HBM3, cc 9.0, 132 SMs, 79.1 GiB"
  echo "# gpu: 1 NVIDIA H100 80GB HBM3, cc 9.0, 132 SMs, 79.1 GiB"
  echo "# gpu: 2 NVIDIA A100-SXM4-40GB, cc 8.0, 108 SMs, 39.4 GiB"
  tail -n +3 base.csv; } > gpus.csv
run --class gpus.csv
[ $rc -eq 0 ] && [ "$out" = intel-xeon-platinum-8480-cpu-2-00ghz_nvidia-h100-80gb-hbm3-x2_nvidia-a100-sxm4-40gb ] \
  || fail "--class with GPUs: rc $rc: '$out'"
run slow.csv --baselines bl
[ $rc -eq 0 ] && grep -q "^gate: no baseline for this machine's class (xeon) in bl: comparing against zzz-other.csv" <<<"$out" \
  && grep -q 'another CPU' <<<"$out" || fail "no baseline of the class: rc $rc: $out"
cp base.csv bl/xeon.csv
run slow.csv --baselines bl
[ $rc -eq 1 ] && grep -q "^gate: baseline bl/xeon.csv (this machine's class: xeon)" <<<"$out" && grep -q SLOWER <<<"$out" \
  || fail "the class's baseline: a 2x slowdown fails: rc $rc: $out"
run same.csv --baselines bl
[ $rc -eq 0 ] || fail "the class's baseline, same run: rc $rc: $out"
run same.csv base.csv --baselines bl
[ $rc -eq 2 ] && grep -q 'want one file with --baselines' <<<"$out" || fail "two files and --baselines: rc $rc: $out"
run same.csv --baselines nowhere
[ $rc -eq 2 ] && grep -q "^gate: --baselines 'nowhere': No such file" <<<"$out" || fail "a missing folder: rc $rc: $out"
mkdir empty
run same.csv --baselines empty
[ $rc -eq 2 ] && grep -q "holds no baseline" <<<"$out" || fail "an empty folder: rc $rc: $out"
run --class same.csv --strict
[ $rc -eq 2 ] || fail "--class with another option: rc $rc: $out"

mkcsv other.csv "Another CPU" 24 0.12 pass extra
run other.csv base.csv
[ $rc -eq 0 ] && grep -q 'another CPU' <<<"$out" || fail "other machine only warns: rc $rc: $out"
run other.csv base.csv --strict
[ $rc -eq 1 ] || fail "other machine with --strict fails"

# disturbed rows (the `disturbed` column, appended here): ambiguous, exit 3,
# never a pass or a regression; a quiet regression beside them still fails.
# distcsv IN OUT CASE/BACKEND...: IN with a disturbed column, 1 for those rows
distcsv() {
  local in=$1 out=$2
  shift 2
  awk -F, -v OFS=, -v d=" $* " '/^#/ { print; next } $1 == "suite" { print $0 ",disturbed"; next }
    { print $0 "," (index(d, " " $2 "/" $3 " ") ? 1 : 0) }' "$in" > "$out"
}
distcsv same.csv quietcol.csv
run quietcol.csv base.csv
[ $rc -eq 0 ] && grep -q ' 0 ambiguous .*PASS$' <<<"$out" || fail "disturbed 0 everywhere passes: rc $rc: $out"
distcsv same.csv dist.csv square-512/cpu-omp
run dist.csv base.csv
[ $rc -eq 3 ] && grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* AMBIGUOUS (disturbed)' <<<"$out" \
  && grep -q ' 1 ambiguous .*AMBIGUOUS$' <<<"$out" && ! grep -q 'PASS' <<<"$out" \
  || fail "a disturbed row is ambiguous, not a pass: rc $rc: $out"
distcsv slow.csv distslow.csv square-512/cpu-omp
run distslow.csv base.csv
[ $rc -eq 3 ] && ! grep -q 'host .* SLOWER$' <<<"$out" && grep -q 'cpu-omp.* -50.0%  AMBIGUOUS' <<<"$out" || fail "a disturbed 2x slowdown is ambiguous, not a regression: rc $rc: $out"
distcsv same.csv distbase.csv square-512/cpu-blas
run distbase.csv base.csv
[ $rc -eq 3 ] && grep -q 'cpu-omp/fp32/host .* AMBIGUOUS (its baseline row disturbed)' <<<"$out" \
  || fail "a row whose baseline row is disturbed is ambiguous: rc $rc: $out"
# square-512 disturbed, square-1024 quietly 2.5x slower: the regression fails
awk -F, -v OFS=, '$2 == "square-1024" { $16 = 0.4 } 1' same.csv > quietslow.csv
distcsv quietslow.csv distquietslow.csv square-512/cpu-omp
run distquietslow.csv base.csv
[ $rc -eq 1 ] && grep -q 'square-1024/.* SLOWER' <<<"$out" && grep -q 'AMBIGUOUS (disturbed)' <<<"$out" \
  && grep -q 'FAIL$' <<<"$out" || fail "a quiet regression beside a disturbed row fails: rc $rc: $out"
# a failed check beside a disturbed row fails
distcsv failed.csv distfailed.csv square-512/cpu-blas
run distfailed.csv base.csv
[ $rc -eq 1 ] || fail "a failed check beside a disturbed row fails: rc $rc: $out"
# every gated case disturbed: ambiguous, not "nothing compared"
distcsv same.csv distall.csv square-512/cpu-blas square-1024/cpu-omp
run distall.csv base.csv
[ $rc -eq 3 ] && ! grep -q 'nothing to pass' <<<"$out" || fail "all cases disturbed: rc $rc: $out"

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
[ $rc -eq 2 ] && grep -q "nocol.csv:1: .*no column 'speedup'" <<<"$out" || fail "missing column: rc $rc: $out"
run nosuch.csv base.csv
[ $rc -eq 2 ] && grep -q 'nosuch.csv' <<<"$out" || fail "unreadable file: rc $rc: $out"
printf '%s\n1,2\n' "$header" > torn.csv
run torn.csv base.csv
[ $rc -eq 2 ] && grep -q 'torn.csv:2:' <<<"$out" || fail "torn row: rc $rc: $out"
for t in -1 '' abc nan inf 1 0.3x 1e999; do
  run base.csv base.csv --tolerance "$t"
  [ $rc -eq 2 ] && grep -qF "bad --tolerance '$t' (want a number F with 0 <= F < 1" <<<"$out" \
    || fail "bad tolerance '$t': rc $rc: $out"
done
# an option given twice is refused (the last --tolerance used to win): one line
for opt in "--tolerance 0.1 --tolerance 0.9" "--strict --strict" "--allow-missing --allow-missing"; do
  run base.csv base.csv $opt
  [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] \
    && grep -qx "gate: ${opt%% *} is given twice" <<<"$out" || fail "'$opt': rc $rc: $out"
done
# every usage error is one line (it was two: the reason, then the usage)
for args in "base.csv" "--bogus base.csv base.csv" "base.csv base.csv extra.csv" "base.csv base.csv --tolerance"; do
  run $args
  [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -q '^gate: .*usage: gate CURRENT.csv' <<<"$out" \
    || fail "usage error '$args': rc $rc: $out"
done
out=$("$gate" --help 2>/dev/null); rc=$?
[ $rc -eq 0 ] && grep -q '^usage: gate CURRENT.csv (BASELINE.csv | --baselines DIR)' <<<"$out" && grep -q -- '--allow-missing' <<<"$out" && grep -q -- '--class' <<<"$out" \
  || fail "--help: rc $rc: $out"
run base.csv base.csv --tolerance 0
[ $rc -eq 0 ] || fail "tolerance 0 is valid: rc $rc: $out"
# every cell is validated against the schema: exit 2 naming file, line, column
sed 's/,pass,CPU,0,/,maybe,CPU,0,/' base.csv > maybe.csv
run maybe.csv base.csv
[ $rc -eq 2 ] && grep -q "maybe.csv:4: column 'check': 'maybe' is not pass fail skip" <<<"$out" \
  || fail "check=maybe: rc $rc: $out"
sed '4s/,10,9.9,10.2,0.05,/,10,abc,10.2,0.05,/' base.csv > abc.csv
run base.csv abc.csv
[ $rc -eq 2 ] && grep -q "abc.csv:4: column 'min_ms': 'abc' is not a finite number" <<<"$out" \
  || fail "min_ms=abc in the baseline: rc $rc: $out"
{ cat base.csv; grep '^matmul,square-512,cpu-omp' base.csv; } > dup.csv
run dup.csv base.csv
[ $rc -eq 2 ] && grep -q "dup.csv:8: duplicate case matmul/square-512/512x512x512/cpu-omp/fp32/host (also on line 5)" <<<"$out" \
  || fail "duplicate row: rc $rc: $out"

# 2 x 50k rows: the old gate scanned linearly per row (50k: 40 s); indexed, ~0.3 s
bigcsv() {
  awk -v cpu="$2" -v med="$3" 'BEGIN {
    print "# cpu: " cpu; print "# simd: avx2 fma"; print "'"$header"'"
    for (i = 0; i < 25000; i++) {
      printf "matmul,c%d,cpu-blas,host,fp32,%dx8x8,2,20,10,10,10,0.05,1,,cpu-blas,1,0,0,1,pass,CPU,0,,,,,,,,,\n", i, i
      printf "matmul,c%d,cpu-omp,host,fp32,%dx8x8,2,20,%s,%s,%s,0.05,1,,cpu-blas,%.6g,0,0,1,pass,CPU,0,,,,,,,,,\n", i, i, med, med, med, 10 / med
    } }' > "$1"
}
bigcsv bigbase.csv Xeon 12
bigcsv bigcur.csv Xeon 12
t0=$(date +%s%N)
run bigcur.csv bigbase.csv
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 0 ] && grep -q '25000 same' <<<"$out" || fail "50k rows: rc $rc: $(tail -1 <<<"$out")"
[ "$ms" -lt 20000 ] || fail "2 x 50k rows took $ms ms (want < 20 s)"
echo "gate: 2 x 50k rows in $ms ms"
run base.csv
[ $rc -eq 2 ] || fail "one file only: rc $rc"

# a case run with another thread count is not compared: a warning, --strict fails
sed 's/^\(matmul,square-512,cpu-omp,host,fp32,512x512x512\),2,/\1,1,/' same.csv > thr.csv
run thr.csv base.csv
grep -q 'square-512/512x512x512/cpu-omp/fp32/host .*not compared (threads 1, baseline 2)' <<<"$out" \
  || fail "thread mismatch not named: $out"
[ $rc -eq 0 ] && grep -q 'another thread count' <<<"$out" || fail "thread mismatch warns: rc $rc: $out"
run thr.csv base.csv --strict
[ $rc -eq 1 ] || fail "thread mismatch with --strict: rc $rc, want 1"

# training steps: one case (the model) at several shapes (batches): each
# shape is its own gated case, so a slowdown at one batch is named alone
mktrain() {
  {
    echo "# cpu: Xeon"
    echo "# simd: avx2 fma"
    echo "$header"
    for b in 16 64; do
      med=10; [ "$b" = 64 ] && med=$2
      sp=$(awk -v m="$med" 'BEGIN { printf "%.6g", 10 / m }')
      echo "train,cnn,cpu-blas,host,fp32,cnn-b$b,1,20,10,10,10,0.05,1,,cpu-blas,1,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,"
      echo "train,cnn,cpu-omp,host,fp32,cnn-b$b,1,20,$med,$med,$med,0.05,1,,cpu-blas,$sp,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,"
    done
  } > "$1"
}
mktrain trainbase.csv 10
mktrain trainslow.csv 25
run trainbase.csv trainbase.csv
[ $rc -eq 0 ] && grep -q '2 same' <<<"$out" || fail "train rows: two shapes of one case, both compared: rc $rc: $out"
run trainslow.csv trainbase.csv
[ $rc -eq 1 ] && grep -q 'train/cnn/cnn-b64/cpu-omp/fp32/host .* SLOWER' <<<"$out" \
  && grep -q 'train/cnn/cnn-b16/cpu-omp/fp32/host .* same' <<<"$out" \
  || fail "train: the slower batch alone fails: rc $rc: $out"

# the whole workload is the key (issue 33 G1-G3): data-parallel rows with
# other replicas are another workload (missing + new, never compared); the
# baseline backend's own data-parallel rows are gated; a baseline from before
# the dtype column (no dtype, no replicas) reads fp32 and one replica.
# mkdp FILE OMP_REPLICAS OMP_DDP_SPEEDUP BLAS_DDP_SPEEDUP
mkdp() {
  {
    echo "# cpu: Xeon"
    echo "# simd: avx2 fma"
    echo "$header,replicas,comm"
    echo "train,mlp,cpu-blas,host,fp32,mlp-b64,1,20,10,10,10,0.05,1,,cpu-blas,1,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,,1,none"
    echo "train,mlp,cpu-omp,host,fp32,mlp-b64,1,20,12,12,12,0.05,1,,cpu-blas,0.833,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,,1,none"
    echo "train,mlp,cpu-blas,ddp,fp32,mlp-b64,1,20,6,6,6,0.03,1,,cpu-blas,$4,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,,2,mpi"
    echo "train,mlp,cpu-omp,ddp,fp32,mlp-b64,1,20,7,7,7,0.03,1,,cpu-blas,$3,1e-6,1e-7,1e-5,pass,CPU,0,,,,,,,,,,$2,mpi"
  } > "$1"
}
mkdp dpbase.csv 2 1.4 1.6
mkdp dpsame.csv 2 1.4 1.6
run dpsame.csv dpbase.csv
[ $rc -eq 0 ] && grep -q 'train/mlp/mlp-b64/cpu-blas/fp32/ddp x2 .* same' <<<"$out" \
  || fail "the baseline backend's ddp row (2 replicas) is gated: rc $rc: $out"
mkdp dpblas.csv 2 1.4 0.8
run dpblas.csv dpbase.csv
[ $rc -eq 1 ] && grep -q 'train/mlp/mlp-b64/cpu-blas/fp32/ddp x2 .* SLOWER' <<<"$out" \
  || fail "the baseline backend's ddp row at half its speedup: rc $rc: $out"
mkdp dp4.csv 4 2.8 1.6
run dp4.csv dpbase.csv
[ $rc -eq 1 ] && grep -q 'train/mlp/mlp-b64/cpu-omp/fp32/ddp x2 .* missing' <<<"$out" \
  && grep -q 'train/mlp/mlp-b64/cpu-omp/fp32/ddp x4 .* new' <<<"$out" \
  || fail "4 replicas against a 2-replica baseline: another workload: rc $rc: $out"
grep -q 'ddp x4 .* \(same\|faster\|SLOWER\)' <<<"$out" && fail "4 replicas compared with 2: $out"
# an old baseline: no dtype column (the gate's own synthetic header still has one: drop it)
cut -d, -f1-4,6- base.csv > nodtype.csv
run same.csv nodtype.csv
[ $rc -eq 0 ] && grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* same' <<<"$out" \
  || fail "a baseline without dtype: its rows are fp32: rc $rc: $out"

# input is bounded: a folder, a device, a FIFO are refused before a byte is
# read, a row over 16 MiB at its limit, all under a 400 MB address-space cap
# (not under ASan, which reserves terabytes): the old reader grew by GBs a
# second on /dev/zero and hung on a FIFO. A BOM is skipped; a column named
# twice is refused, naming both positions.
runl() {
  out=$( { ldd "$gate" 2>/dev/null | grep -q libasan || ulimit -v 400000; timeout 20 "$gate" "$@"; } 2>&1)
  rc=$?
}
mkdir adir
runl adir base.csv
[ $rc -eq 2 ] && grep -qx "gate: 'adir' is a folder, not a results.csv" <<<"$out" || fail "a folder: rc $rc: $out"
for dev in /dev/zero /dev/urandom; do
  runl base.csv "$dev"
  [ $rc -eq 2 ] && grep -qx "gate: '$dev' is a character device, not a results.csv" <<<"$out" \
    || fail "$dev: rc $rc: $out"
done
mkfifo fifo.csv
runl fifo.csv base.csv
[ $rc -eq 2 ] && grep -qx "gate: 'fifo.csv' is a FIFO, not a results.csv" <<<"$out" || fail "a FIFO: rc $rc: $out"
{ head -3 base.csv; head -c 17000000 /dev/zero | tr '\0' x; echo; } > longline.csv
runl longline.csv base.csv
[ $rc -eq 2 ] && grep -q "longline.csv:4: line is longer than 16777216 bytes (the limit)" <<<"$out" \
  || fail "a 17 MB line: rc $rc: $out"
{ printf '\xEF\xBB\xBF'; cat same.csv; } > bom.csv
runl bom.csv base.csv
[ $rc -eq 0 ] && grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* same' <<<"$out" || fail "a BOM: rc $rc: $out"
sed '3s/,note,/,speedup,/' base.csv > dupcol.csv
runl base.csv dupcol.csv
[ $rc -eq 2 ] && grep -qx "gate: dupcol.csv:3: column 'speedup' is named twice in the header (columns 16 and 30)" \
  <<<"$out" || fail "a column named twice: rc $rc: $out"

# a backend with a caveat (a library on slower kernels: the run's caveat-NAME
# line): every case measured against it is left out, in either run, with one
# line saying why; a 2x slowdown there is not a verdict, and with nothing else
# to compare the gate still fails (nothing compared)
cav="# caveat-cpu-blas: OpenBLAS runs its Prescott kernels (SSE) on a CPU with AVX-512"
{ echo "$cav"; cat slow.csv; } > slowcav.csv
{ echo "$cav"; cat base.csv; } > basecav.csv
for pair in "slowcav.csv base.csv" "slow.csv basecav.csv"; do
  # shellcheck disable=SC2086
  run $pair
  [ $rc -eq 1 ] && grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* not gated (caveat: cpu-blas)' <<<"$out" \
    && grep -q '^gate: 2 cases not gated: cpu-blas runs below what it could on this machine (OpenBLAS runs its Prescott' <<<"$out" \
    && grep -q 'no case was compared' <<<"$out" && ! grep -q 'SLOWER  *$\| SLOWER$' <<<"$out" \
    || fail "caveat ($pair): rc $rc: $out"
done
# a caveat on a backend no case is measured against changes nothing
sed 's/caveat-cpu-blas/caveat-cpu-onednn/' slowcav.csv > slowother.csv
run slowother.csv base.csv
[ $rc -eq 1 ] && grep -q 'SLOWER' <<<"$out" || fail "a caveat elsewhere: rc $rc: $out"
# a case measured against another baseline backend is not compared
sed 's/,cpu-blas,\([0-9.e-]*\),1e-6/,cpu-onednn,\1,1e-6/' same.csv > otherbase.csv
run otherbase.csv base.csv
grep -q 'square-512/512x512x512/cpu-omp/fp32/host .* not compared (against cpu-onednn, baseline against cpu-blas)' \
  <<<"$out" && grep -q 'measured against another baseline backend' <<<"$out" \
  || fail "another baseline backend: rc $rc: $out"

echo "gate: $fails failed"
[ "$fails" -eq 0 ]
