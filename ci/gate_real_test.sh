#!/usr/bin/env bash
# ci/gate_real_test.sh BENCH GATE - the gate bites on real runs: a tiny run
# becomes this machine class's baseline (named by `bench-gate --class`, as
# ci/make-baseline names it), then a run with BENCH_PLANT_SLOW=cpu-omp (each
# of its repetitions twice as long) is gated against --baselines DIR: the
# first line names the class's file, cpu-omp's speedup drops by about half and
# the gate does not pass (SLOWER, exit 1; or AMBIGUOUS, exit 3, when CTest's
# neighbours disturbed the row: the drop is asserted either way). A folder
# with no baseline of this class says so in one line and still compares.
set -u
bench=$1 gate=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }
args=(--suite matmul --sizes 96 --backend cpu-naive,cpu-omp --baseline cpu-naive --threads 1
      --min-time 0.05 --no-plots)

"$bench" "${args[@]}" --out "$work/base" >/dev/null 2>&1 || fail "baseline run"
cls=$("$gate" --class "$work/base/results.csv") || fail "--class"
mkdir -p "$work/mine" "$work/other"
cp "$work/base/results.csv" "$work/mine/$cls.csv"
cp "$work/base/results.csv" "$work/other/zz-another-machine.csv"
BENCH_PLANT_SLOW=cpu-omp "$bench" "${args[@]}" --out "$work/slow" >/dev/null 2>&1 || fail "planted run"

out=$("$gate" "$work/slow/results.csv" --baselines "$work/mine" 2>&1); rc=$?
head -1 <<<"$out" | grep -q "baseline $work/mine/$cls.csv (this machine's class: $cls)" \
  || fail "the first line names the class's baseline: $out"
line=$(grep '96x96x96/cpu-omp/fp32/host' <<<"$out")
change=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /%$/) { sub(/%/, "", $i); print $i; exit } }' <<<"$line")
awk -v c="$change" 'BEGIN { exit !(c != "" && c <= -30) }' \
  || fail "a planted 2x slowdown should drop cpu-omp's speedup by ~50%, got '$change': $out"
if grep -q 'SLOWER' <<<"$line"; then
  [ "$rc" -eq 1 ] && grep -q 'FAIL$' <<<"$out" || fail "SLOWER must fail the gate: rc $rc: $out"
else
  grep -q 'AMBIGUOUS' <<<"$line" && [ "$rc" -eq 3 ] || fail "2x slower passed: rc $rc: $out"
fi

out=$("$gate" "$work/slow/results.csv" --baselines "$work/other" 2>&1); rc=$?
[ "$(grep -c "no baseline for this machine's class ($cls)" <<<"$out")" -eq 1 ] \
  || fail "no matching baseline: one line saying so: $out"
grep -q '96x96x96/cpu-omp/fp32/host .*\(same\|faster\|SLOWER\|AMBIGUOUS\)' <<<"$out" \
  || fail "no matching baseline: the case is still compared: $out"

[ "$fails" -eq 0 ] && echo "gate real: all passed"
exit $((fails > 0))
