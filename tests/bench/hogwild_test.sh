#!/usr/bin/env bash
# tests/bench/hogwild_test.sh BENCH CSVQ PART - the hogwild mode (--workers N,
# suites/train/train_hog.c, harness/workers.c) end to end. PART:
#   procs   bad --workers input exits 2 with one line before any work; the
#           planted fault (BENCH_PLANT_HOG_PRIVATE: workers on private copies)
#           fails the loss check, exit 1; a worker killed by SIGKILL fails the
#           run (exit 1) with a line naming the worker, its pid and the
#           signal; SIGTERM and SIGKILL to the parent: no worker is left.
#   matrix  --workers 2 on every CPU backend x model of the registry (from
#           `bench --list`) at batch 2 (but cpu-naive's lstm and gpt: below),
#           every row passing with its columns.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
part=$3
case "$part" in procs|matrix) ;; *) echo "PART: procs or matrix, not '$part'" >&2; exit 2 ;; esac
. "$here/testlib.sh"
test_begin
. "$here/expect_usage.sh"

list=$("$bench" --list --suite train)
cpu=$(printf '%s\n' "$list" | awk '$2 == "cpu" { print $1 }')
gpu1=$(printf '%s\n' "$list" | awk '$2 == "gpu" { print $1; exit }')
printf '%s\n' "$list" | grep -q "workers modes (CPU backends; --workers N): hogwild" ||
  fail "--list names no hogwild mode"

if [ "$part" = procs ]; then
for bad in 0 -1 65 99999999999 2x ""; do
  expect_usage "bad --workers '$bad' (want an integer from 1 to 64)" --suite train --workers "$bad"
done
expect_usage "--backend names the GPU backend '$gpu1'" --suite train --workers 2 --backend "cpu-omp,$gpu1"
expect_usage "--mode hogwild needs --workers N" --suite train --mode hogwild
expect_usage "--workers is for the hogwild mode" --suite matmul --workers 2
expect_usage "--workers is for the hogwild mode" --suite train --workers 2 --mode host

one=(--suite train --backend cpu-omp --mode hogwild --workers 2 --no-plots --no-roofs)
# the planted fault: the workers train private copies, the shared parameters
# stay where they started
BENCH_PLANT_HOG_PRIVATE=cpu-omp "$bench" "${one[@]}" --sizes mlp-small-b2 --reps 1 --out p \
  >p.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "planted private copies: exit $rc, want 1: $(tail -3 p.txt)"
[ "$("$csvq" p/results.csv check)" = fail ] || fail "planted private copies: the row did not fail"
"$csvq" p/results.csv note | grep -q "off by more than 0.75 x its drop" ||
  fail "planted private copies: note $("$csvq" p/results.csv note)"

# A run whose workers live long (a million timed runs), in the background: its
# pid, then its two workers' once forked.
start_long() {
  "$bench" "${one[@]}" --sizes mlp-small-b2 --reps 1000000 --out "$1" >"$1.txt" 2>&1 &
  pid=$!
  workers=""
  for _ in $(seq 300); do
    workers=$(pgrep -P "$pid" | sort -n | paste -sd' ' -)
    [ "$(printf '%s' "$workers" | wc -w)" -eq 2 ] && return 0
    sleep 0.1
  done
  fail "$1: no two workers after 30 s (children: '$workers')"
  kill -KILL "$pid"
  return 1
}

# a worker killed: exit 1, the line naming it, nothing left
if start_long k; then
  w1=${workers#* }
  kill -KILL "$w1"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 1 ] || fail "killed worker: exit $rc, want 1"
  grep -q "FAIL train mlp-small-b2 cpu-omp hogwild fp32: .*worker 1 (pid $w1) killed by SIGKILL" k.txt ||
    fail "killed worker: no line naming it: $(grep FAIL k.txt)"
  none_left $workers
fi
# the parent ended by SIGTERM (the run is interrupted: 143) and by SIGKILL
for sig in TERM KILL; do
  if start_long "$sig"; then
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig to the parent: exit $rc"
    none_left $workers
  fi
done
fi

if [ "$part" = matrix ]; then
# every model the suite's problem syntax names, at batch 2 (one sample per
# worker), on every CPU backend; but the reference backend (the registry's
# first, serial, double accumulation) leaves out the two sequence models
# whose steps are largest: a hogwild case is ~30 steps, ~9 CPU-seconds of
# cpu-naive's lstm or gpt (the same train_ops path the other backends take)
models=$(printf '%s\n' "$list" | sed -n 's/.*(--sizes): <model>-b<batch>[^:]*: \([^;]*\);.*/\1/p' |
         sed 's/ or /, /; s/,//g')
ref=$(printf '%s\n' "$cpu" | head -1)
n_models=$(printf '%s\n' $models | grep -c .)
n_cpu=$(printf '%s\n' "$cpu" | grep -c .)
[ "$n_models" -ge 6 ] && [ "$n_cpu" -ge 4 ] || fail "$n_models models, $n_cpu CPU backends"
sizes_of() { for m in $models; do case " $* " in *" $m "*) ;; *) printf '%s-b2\n' "$m" ;; esac; done | paste -sd, -; }
want=0
for run in ref rest; do
  if [ $run = ref ]; then backends=$ref; sizes=$(sizes_of lstm gpt)
  else backends=$(printf '%s\n' "$cpu" | tail -n +2 | paste -sd, -); sizes=$(sizes_of); fi
  want=$((want + $(printf '%s' "$backends" | tr , '\n' | grep -c .) * $(printf '%s' "$sizes" | tr , '\n' | grep -c .)))
  "$bench" --suite train --backend "$backends" --sizes "$sizes" --mode hogwild --workers 2 --reps 1 \
    --out "m$run" --no-plots --no-roofs >"m$run.txt" 2>&1 ||
    fail "matrix $backends: exit $?: $(grep FAIL "m$run.txt" | head -3)"
done
rows=$(for run in ref rest; do
  "$csvq" "m$run/results.csv" backend shape check replicas comm samples_per_s scaling_eff \
    accuracy_lost tolerance trace; done)
[ "$(printf '%s\n' "$rows" | grep -c .)" -eq "$want" ] && [ "$want" -ge 20 ] ||
  fail "matrix: $(printf '%s\n' "$rows" | grep -c .) rows, want $want"
# a backend this build lacks is a skip; every other row passes with its columns
printf '%s\n' "$rows" | awk -F'\t' '
  $3 == "skip" { next }
  $3 != "pass" || $4 != 2 || $5 != "shm" || !($6 > 0) || !($7 > 0) || $8 == "" || !($8 < $9) || $10 == "" {
    print "matrix row: " $0; bad = 1 }
  END { exit bad }' >&2 || fail "matrix: rows without a pass or their columns"
fi
test_end "hogwild $part"
