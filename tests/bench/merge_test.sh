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
      --name thr$t --min-time 0.01 --no-plots --price-per-hour $t.5 --out r$t >/dev/null 2>&1 ||
      fail "the --threads $t run"
  done
  grep -q '^# price-per-hour: 1.5$' r1/results.csv || fail "--price-per-hour not in the run's context"
  "$bench" --merge r1 r2 --out m --no-plots >out.txt 2>err.txt || fail "merge of two real runs: $(cat err.txt)"
  has m/report.md '| workload | device | thr1 | thr2 |'
  grep -q "^# input-1-price: 1.5 (the run's --price-per-hour)$" m/results.csv ||
    fail "the run's price not carried: $(grep price m/results.csv)"
  # the mix: the t1 workloads both ran (cpu-naive runs one thread), each at its run's price
  has m/report.md '| thr1 | 1.5 (the run'"'"'s --price-per-hour) |'
  has m/report.md '| thr2 | 2.5 (the run'"'"'s --price-per-hour) |'
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
# m3's price is its run's own (price-per-hour: 1.8): cost per 1M reps = 1.8 x median / 3.6
has $md '| matmul@2/128x128x128/fp32/host/t1/x1 | cpu | cpu-omp 10 ms, 0.419 GFLOP/s, 1× | cpu-omp 2.5 ms, 1.68 GFLOP/s, 4× (disturbed) | cpu-omp 5 ms, 0.839 GFLOP/s, 2×, 2.5 USD/1M reps |'
has $md '| matmul@2/256x256x256/fp32/host/t1/x1 | cpu | cpu-omp 40 ms, 0.839 GFLOP/s, 1× | cpu-omp 20 ms, 1.68 GFLOP/s, 2× | cpu-omp 20 ms, 1.68 GFLOP/s, 2×, 10 USD/1M reps |'
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
# Which machine, by hand. Default mix: each suite weighs 1, split among its
# workloads every machine has: matmul 128^3 and 256^3 at 0.5 each, conv's one
# at 1. Time: m1 0.5x10 + 0.5x40 + 6 = 31, m2 1.25 + 10 + 3 = 14.25, m3 2.5 +
# 10 + 12 = 24.5 ms. Energy: m1 0.25 + 1 + 0.3 = 1.55, m2 0.2 + 0.75 + 0.2 =
# 1.15 J, m3 none. Only m3 has a price (its run's 1.8 USD/h): 24.5 x 1.8 / 3.6.
has $md 'Weights: every suite equally (the default). The mix is a job of 3 workloads every machine has'
has $md '| m1 | — | 31 | — | 1.55 | — |'
has $md '| m2 | — | 14.25 | — | 1.15 | time–energy |'
has $md '| m3 | 1.8 (the run'"'"'s --price-per-hour) | 24.5 | 12.25 | — | time–cost |'
has $md 'On the Pareto front: time vs cost m3; time vs energy m2 (no price: m1, m2; no energy: m3).'
grep -qF 'matmul@1/64x64x64/fp32/host/t1/x1` (cpu) on m3 only' $md && fail "the @1 workload is listed twice"
want=$(for k in 1 2 3; do n=$(grep -c '^[a-z]' m$k/results.csv); for _ in $(seq $((n - 1))); do printf 'm%s ' $k; done; done)
[ "$("$csvq" out/results.csv machine | tr '\n' ' ')" = "$want" ] ||
  fail "merged machine column: $("$csvq" out/results.csv machine | tr '\n' ' ')"
grep -q '^# input-3-end: interrupted: SIGINT$' out/results.csv || fail "input-3-end"
rows=$(cat m1/results.csv m2/results.csv m3/results.csv | grep -c '^[a-z]')
grep -q "^# finished: $((rows - 3)) rows$" out/results.csv || fail "the merge records its end"
grep -q '"input-2-machine": "m2"' out.json || fail "the JSON context"
if command -v gnuplot >/dev/null; then
  [ -s out/plots/merge-matmul.png ] || fail "no merge chart"
  has $md '![matmul: speedup per workload and machine](plots/merge-matmul.png)'
fi
cp $md md.before
"$bench" --plot out --no-plots >/dev/null 2>&1 || fail "--plot of a merge folder"
cmp -s $md md.before || fail "--plot rewrote the merge report differently"
"$bench" --merge m1 m2 m3 --out ref2 --reference m2 --no-plots >/dev/null 2>&1 || fail "--reference m2"
has ref2/report.md '| matmul@2/128x128x128/fp32/host/t1/x1 | cpu | cpu-omp 10 ms, 0.419 GFLOP/s, 0.25× | cpu-omp 2.5 ms, 1.68 GFLOP/s, 1× (disturbed) | cpu-omp 5 ms, 0.839 GFLOP/s, 0.5×, 2.5 USD/1M reps |'
has ref2/report.md 'over the 2 workloads every machine has: m1 0.354×, m2 1×, m3 0.707×.'
# --price (repeated) at merge time; m3 keeps its run's: costs m1 31 x 2 / 3.6 =
# 17.22, m2 14.25 x 6 / 3.6 = 23.75, m3 12.25: m1 is slower and dearer than m3
"$bench" --merge m1 m2 m3 --out pr --price m1=2 --price m2=6 --no-plots >/dev/null 2>&1 || fail "--price"
has pr/report.md '| matmul@2/128x128x128/fp32/host/t1/x1 | cpu | cpu-omp 10 ms, 0.419 GFLOP/s, 1×, 5.556 USD/1M reps |'
has pr/report.md '| m1 | 2 (--price) | 31 | 17.22 | 1.55 | — |'
has pr/report.md '| m2 | 6 (--price) | 14.25 | 23.75 | 1.15 | time–cost, time–energy |'
has pr/report.md 'On the Pareto front: time vs cost m2, m3; time vs energy m2 (no price: none; no energy: m3).'
grep -q '^# input-1-price: 2 (--price)$' pr/results.csv || fail "input-1-price: $(grep price pr/results.csv)"
# --weights conv=1 (a suite), a --price for m3 over its run's: times 6, 3, 12;
# costs 6 x 2 / 3.6 = 3.333, 3 x 6 / 3.6 = 5, 12 x 3 / 3.6 = 10: now m1 is the
# cheapest and on the front, m3 dominated by m1
"$bench" --merge m1 m2 m3 --out w --price m1=2,m2=6,m3=3 --weights conv=1 --no-plots >/dev/null 2>&1 || fail "--weights"
has w/report.md 'Weights: conv=1. The mix is a job of 1 workload every machine has'
has w/report.md '| m1 | 2 (--price) | 6 | 3.333 | 0.3 | time–cost |'
has w/report.md '| m3 | 3 (--price) | 12 | 10 | — | — |'
has w/report.md 'On the Pareto front: time vs cost m1, m2; time vs energy m2 (no price: none; no energy: m3).'
# workload keys: 256^3 weighs 2 (times 80, 40, 40); 64^3 @2 is not on m3: left out, said
"$bench" --merge m1 m2 m3 --out k --no-plots \
  --weights matmul@2/256x256x256/fp32/host/t1/x1=2,matmul@2/64x64x64/fp32/host/t1/x1=1 >/dev/null 2>&1 || fail "keys"
has k/report.md 'Not in the mix (no workload every machine has): matmul@2/64x64x64/fp32/host/t1/x1.'
has k/report.md '| m2 | — | 40 | — | 3 | time–energy |'
has k/report.md '| m3 | 1.8 (the run'"'"'s --price-per-hour) | 40 | 20 | — | time–cost |'
rm -rf out out.json ref2 o.txt e.txt md.before pr w k

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
sed 's/^suite,case,/suite,future_col,case,/; s/^\(matmul\|conv\),/\1,1,/' m1/results.csv >x1/results.csv
sed 's/,workload,machine$/,machine/; s/,[a-z]*@[^,]*,m1$/,m1/' m1/results.csv >x2/results.csv
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
refuse "bad --price item 'm1' (want NAME=NUMBER, the number above 0" --merge m1 m2 --out o --price m1
refuse "bad --price item 'm1=-2'" --merge m1 m2 --out o --price m1=-2
refuse "bad --price item 'm2=1e7'" --merge m1 m2 --out o --price m1=1,m2=1e7
refuse "--price names 'm1' twice" --merge m1 m2 --out o --price m1=1 --price m1=2
refuse "--price 'm9' is none of the merged machines (m1, m2)" --merge m1 m2 --out o --price m9=2
refuse "bad --weights item 'conv=x'" --merge m1 m2 --out o --weights conv=x
refuse "--weights 'conv=0' weighs nothing" --merge m1 m2 --out o --weights conv=0
refuse "--weights 'nosuch' is neither a suite nor a workload key" --merge m1 m2 --out o --weights nosuch=1
refuse "--price does not apply to a run" --price m1=2 --out o
refuse "bad --price-per-hour '0' (want USD per hour, above 0" --price-per-hour 0 --out o
refuse "--price-per-hour does not apply to --merge" --merge m1 m2 --out o --price-per-hour 2
# a live run holds m2: refused naming its pid
( exec 9>>m2/.bench.lock; flock -x 9; exec sleep 20 ) >/dev/null 2>&1 & locker=$!
echo $locker >m2/.bench.lock
for _ in $(seq 50); do flock -n -s m2/.bench.lock true 2>/dev/null || break; sleep 0.05; done
refuse "'m2' is in use by a live bench run (pid $locker)" --merge m1 m2 --out o
kill $locker; wait $locker 2>/dev/null
rm -f m2/.bench.lock
[ "$(sums)" = "$before" ] || fail "an input changed: $(diff <(echo "$before") <(sums))"
test_end report.merge
