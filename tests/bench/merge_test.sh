#!/usr/bin/env bash
# tests/bench/merge_test.sh BENCH CSVQ CASES MODE - bench --merge (README, "Many
# machines, one comparison").
#  MODE synthetic: three run folders from tests/cases/merge (m1 the
#    reference; m2 named only by its `machine:` line, one row disturbed; m3
#    interrupted, an older matmul version @1 for 64^3 and an emulated GPU row)
#    merged; report.md's cells, speedups, geometric means and the not-compared
#    list against values computed by hand; --reference m2 inverts them; the
#    merged results.csv holds every row with its machine; --plot of the merge
#    folder redraws it; the hostile inputs (a live run, a folder twice, another
#    schema version, a truncated CSV, a linked results.csv, --out inside an
#    input, one machine twice, a bad --reference) exit 2 with one line, make
#    nothing, and leave every input as it was.
#  MODE real: two tiny matmul runs of this machine at --threads 1 and 2,
#    merged: the threads-2 workloads are listed as one field apart, not compared.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
cases=$(realpath "$3")
mode=$4
. "$(dirname "$0")/testlib.sh"
test_begin

has() { grep -qF -- "$2" "$1" || fail "$1 lacks: $2"; }

if [ "$mode" = real ]; then
  for t in 1 2; do
    BENCH_NO_ROOFS=1 "$bench" --suite matmul --sizes 64,128 --backend cpu-omp,cpu-naive --threads $t \
      --name thr$t --min-time 0.01 --no-plots --out r$t >/dev/null 2>&1 || fail "the --threads $t run"
  done
  "$bench" --merge r1 r2 --out m --no-plots >out.txt 2>err.txt || fail "merge of two real runs: $(cat err.txt)"
  has m/report.md '| workload | device | thr1 | thr2 |'
  for s in 64x64x64 128x128x128; do
    has m/report.md "- \`matmul@1/$s/fp32/host/t2/x1\` (cpu) on thr2 only: threads 2 vs 1 on thr1 (the keys differ in that field only: not compared)"
    # the t2 workload has no cell on thr1: it is listed, never divided
    grep -F "| matmul@1/$s/fp32/host/t2/x1 | cpu | — |" m/report.md >/dev/null || fail "t2 $s compared with thr1"
  done
  [ "$("$csvq" m/results.csv machine | sort | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')" = "4thr1 4thr2 " ] ||
    fail "merged machines: $("$csvq" m/results.csv machine | sort | uniq -c)"
  test_end cli.merge
fi

for k in 1 2 3; do mkdir m$k && cp "$cases/m$k.csv" m$k/results.csv; done
sums() { md5sum m1/* m2/* m3/*; ls -A m1 m2 m3; }
before=$(sums)
"$bench" --merge m1 m2 m3 --out out --json out.json >o.txt 2>e.txt || fail "the synthetic merge: $(cat e.txt)"
md=out/report.md
has $md '| workload | device | m1 | m2 | m3 |'
has $md '| matmul@2/128x128x128/fp32/host/t1/x1 | cpu | cpu-omp 10 ms, 0.419 GFLOP/s, 1× | cpu-omp 2.5 ms, 1.68 GFLOP/s, 4× (disturbed) | cpu-omp 5 ms, 0.839 GFLOP/s, 2× |'
has $md '| matmul@2/256x256x256/fp32/host/t1/x1 | cpu | cpu-omp 40 ms, 0.839 GFLOP/s, 1× | cpu-omp 20 ms, 1.68 GFLOP/s, 2× | cpu-omp 20 ms, 1.68 GFLOP/s, 2× |'
# the best backend per machine, with its pct_roof; the older version never divides
has $md '| matmul@2/64x64x64/fp32/host/t1/x1 | cpu | cpu-omp 2 ms, 0.262 GFLOP/s, 10 % roof, 1× | cpu-omp 1 ms, 0.524 GFLOP/s, 2× | — |'
has $md '| matmul@2/64x64x64/fp32/resident/t0/x1 | gpu | cuda-tiled 0.5 ms, 1.05 GFLOP/s, 1× | cuda-tiled 0.25 ms, 2.1 GFLOP/s, 2× | — |'
# geometric means over 128^3 and 256^3 only: m2 sqrt(4 x 2) = 2.83, m3 sqrt(2 x 2) = 2
has $md 'Geometric mean of the speedups (cpu) over the 2 workloads every machine has: m1 1×, m2 2.83×, m3 2×.'
has $md 'Geometric mean (gpu): no gpu workload every machine has.'
has $md '| cpu | bandwidth | 20 GB/s | 30 GB/s |  |'
has $md '- `matmul@2/64x64x64/fp32/host/t1/x1` (cpu) on m1, m2 only: version 2 vs 1 on m3 (the keys differ in that field only: not compared)'
has $md '- `matmul@2/64x64x64/fp32/resident/t0/x1` (gpu) on m1, m2 only: not on m3'
has $md '- m3: 1 emulated row (no time'
has $md '- m3: its run did not finish (interrupted: SIGINT)'
has $md '- m2: 1 row stayed disturbed'
has $md '- m2: its run was not quiet'
grep -qF 'matmul@1/64x64x64/fp32/host/t1/x1` (cpu) on m3 only' $md && fail "the @1 workload is listed twice"
[ "$("$csvq" out/results.csv machine | tr '\n' ' ')" = "m1 m1 m1 m1 m1 m2 m2 m2 m2 m2 m3 m3 m3 m3 " ] ||
  fail "merged machine column: $("$csvq" out/results.csv machine | tr '\n' ' ')"
grep -q '^# input-3-end: interrupted: SIGINT$' out/results.csv || fail "input-3-end"
grep -q '^# finished: 14 rows$' out/results.csv || fail "the merge records its end"
grep -q '"input-2-machine": "m2"' out.json || fail "the JSON context"
if command -v gnuplot >/dev/null; then
  [ -s out/plots/merge-matmul.png ] || fail "no merge chart"
  has $md '![matmul: speedup per workload and machine](plots/merge-matmul.png)'
fi
cp $md md.before
"$bench" --plot out --no-plots >/dev/null 2>&1 || fail "--plot of a merge folder"
cmp -s $md md.before || fail "--plot rewrote the merge report differently"
"$bench" --merge m1 m2 m3 --out ref2 --reference m2 --no-plots >/dev/null 2>&1 || fail "--reference m2"
has ref2/report.md '| matmul@2/128x128x128/fp32/host/t1/x1 | cpu | cpu-omp 10 ms, 0.419 GFLOP/s, 0.25× | cpu-omp 2.5 ms, 1.68 GFLOP/s, 1× (disturbed) | cpu-omp 5 ms, 0.839 GFLOP/s, 0.5× |'
has ref2/report.md 'over the 2 workloads every machine has: m1 0.354×, m2 1×, m3 0.707×.'
rm -rf out out.json ref2 o.txt e.txt md.before

# hostile inputs: exit 2, one line naming it, no --out made, inputs untouched
refuse() { # WORD ARGS...
  local word=$1 out rc
  shift
  out=$("$bench" "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "bench $* exited $rc, want 2 ($out)"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "bench $*: want one line: $out"
  printf '%s' "$out" | grep -qF -- "$word" || fail "bench $*: no '$word' in: $out"
  [ ! -e o ] || { fail "bench $* made --out"; rm -rf o; }
}
mkdir x1 x2 x3 x4 x5 x6
sed 's/^suite,case,/suite,future_col,case,/; s/^matmul,/matmul,1,/' m1/results.csv >x1/results.csv
sed 's/,workload,machine$/,machine/; s/,matmul@[^,]*,m1$/,m1/' m1/results.csv >x2/results.csv
grep -v '^# finished' m1/results.csv | head -c -9 >x3/results.csv  # the last row cut short
ln -s ../m2/results.csv x4/results.csv
cp m1/results.csv x5/results.csv                                  # m1 again, another folder
sed 's/,median_ms,/,med,/' m1/results.csv >x6/results.csv
refuse "column 'future_col' is not one this bench knows" --merge m1 x1 --out o
refuse "no column 'workload'" --merge m1 x2 --out o
refuse "x3/results.csv:" --merge m2 x3 --out o
refuse "results.csv is a link (to '../m2/results.csv')" --merge m1 x4 --out o
refuse "are both machine 'm1'" --merge m1 x5 --out o
refuse "no column 'median_ms'" --merge m2 x6 --out o
refuse "names one folder twice" --merge m1 m2 ./m1/ --out o
refuse "is inside the --merge input 'm2'" --merge m1 m2 --out m2/sub
refuse "is inside the --merge input 'm2'" --merge m1 m2 --out m2
refuse "is none of the merged machines (m1, m2)" --merge m1 m2 --reference m9 --out o
refuse "needs at least two run folders" --merge m1 --out o
refuse "needs --out DIR" --merge m1 m2
refuse "is not a folder" --merge m1 m2/results.csv --out o
refuse "--json" --merge m1 m2 --out o --json m1/x.json
# a live run holds m2: refused naming its pid
( exec 9>>m2/.bench.lock; flock -x 9; exec sleep 20 ) >/dev/null 2>&1 & locker=$!
echo $locker >m2/.bench.lock
for _ in $(seq 50); do flock -n -s m2/.bench.lock true 2>/dev/null || break; sleep 0.05; done
refuse "'m2' is in use by a live bench run (pid $locker)" --merge m1 m2 --out o
kill $locker; wait $locker 2>/dev/null
rm -f m2/.bench.lock
[ "$(sums)" = "$before" ] || fail "an input changed: $(diff <(echo "$before") <(sums))"
test_end report.merge
