#!/usr/bin/env bash
# tests/bench/stream_test.sh BENCH CSVQ - the stream suite end to end: every CPU
# backend and every GPU backend x mode (on the emulator) passes the exact check
# and reports GB/s; a planted wrong result in cpu-omp, then in cuda-stream,
# fails exactly that backend's rows and exits 1; problem strings round-trip
# and bad ones exit 2. Expected counts come from `bench --list` (the registry).
. "$(dirname "$0")/testlib.sh"
bench=$(realpath "$1")
csvq=$(realpath "$2")
test_begin

# the stream suite's backends (device kind) and GPU modes, from the registry
list=$("$bench" --list)
section=$(printf '%s\n' "$list" | awk '/^  [a-z]/ { cur = $1 } cur == "stream"')
n_cpu=$(printf '%s\n' "$section" | awk '$2 == "cpu" { n++ } END { print n + 0 }')
n_gpu=$(printf '%s\n' "$section" | awk '$2 == "gpu" { n++ } END { print n + 0 }')
n_modes=$(printf '%s\n' "$section" | awk '$1 == "gpu" && $2 == "modes:" { print NF - 2 }')
[ "$n_cpu" -ge 2 ] && [ "$n_gpu" -ge 1 ] && [ "${n_modes:-0}" -ge 8 ] ||
    fail "bench --list stream: $n_cpu CPU, $n_gpu GPU backends, ${n_modes:-?} modes"

# rows: backend device_kind mode check gbps gflops max_abs_err rel_err tolerance case
rows() { "$csvq" "$1" backend device_kind mode check gbps gflops max_abs_err rel_err tolerance case; }

# 1. every case passes the exact check; CPU rows report GB/s and no GFLOP/s
"$bench" --suite stream --emulate --quick --min-time 0.01 --out run --no-plots >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] || fail "emulated quick stream run exited $rc: $(tail -3 err.txt)"
rows run/results.csv >rows.txt
n_prob=$(awk -F'\t' '{ print $10 }' rows.txt | sort -u | wc -l)
[ "$n_prob" -ge 8 ] && [ $((n_prob % 4)) -eq 0 ] || fail "$n_prob quick problems, want every kernel at each size"
awk -F'\t' -v want="$((n_prob * (n_cpu + n_gpu * n_modes)))" '
  { n++
    if ($4 != "pass") bad[$1 " " $3 " " $10 " did not pass"]++
    if ($7 != 0 || $8 != 0 || $9 != 0) bad[$1 " " $10 ": errors/tolerance not exactly 0"]++
    if ($2 == "cpu" && !($5 > 0)) bad[$1 " " $10 ": no GB/s"]++
    if ($6 != "") bad[$1 " " $10 ": a GFLOP/s figure"]++ }
  END {
    for (k in bad) { print k " (" bad[k] ")"; err = 1 }
    if (n != want) { print "rows: " n ", want " want; err = 1 }
    exit err }' rows.txt || fail "quick stream run rows"

# 2. a planted wrong result fails exactly the planted backend's rows, exit 1
for planted in cpu-omp cuda-stream; do
    BENCH_PLANT_FAULT=$planted "$bench" --suite stream --emulate --quick --min-time 0.01 \
        --out "plant-$planted" --no-plots >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 1 ] || fail "BENCH_PLANT_FAULT=$planted: exit $rc, want 1"
    rows "plant-$planted/results.csv" | awk -F'\t' -v p="$planted" '
      $1 == p { planted++; if ($4 != "fail") bad++ }
      $1 != p { if ($4 != "pass") bad++ }
      END { exit !(planted > 0 && bad == 0) }' ||
        fail "BENCH_PLANT_FAULT=$planted: its rows must fail and only its rows"
done
grep -q 'must match bit for bit' out.txt plant-cuda-stream/results.csv ||
    fail "a failed stream check does not say where"

# 3. problem strings: a suffix round-trips to the shape column and the case name
"$bench" --suite stream --backend cpu-omp --sizes copy:1M,triad:1000003 --reps 2 --out sizes \
    --no-plots >out.txt 2>err.txt || fail "named stream sizes exited $?: $(tail -2 err.txt)"
got=$("$csvq" sizes/results.csv case shape bytes | tr '\t' ' ')
want=$(printf 'copy-1M copy:1048576 8388608\ntriad-1000003 triad:1000003 12000036')
[ "$got" = "$want" ] || fail "sizes: got '$got', want '$want'"
for bad in triad:0 triad:12Q triad: triad:99999999999G; do
    "$bench" --suite stream --sizes "$bad" --out "bad" --no-plots >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "$bad" err.txt && [ ! -e bad ] ||
        fail "--sizes $bad: exit $rc, want 2 naming it and no run folder: $(cat err.txt)"
done

test_end stream
