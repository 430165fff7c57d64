#!/usr/bin/env bash
# ci/gate_real_test.sh BENCH GATE [class SETUP BASELINES] - the gate bites on
# real runs (gate.planted): a tiny run becomes this machine class's baseline
# (named by `bench-gate --class`, as ci/make-baseline names it), then a run
# with BENCH_PLANT_SLOW=cpu-omp (each of its repetitions twice as long) is
# gated against --baselines DIR: the first line names the class's file,
# cpu-omp's speedup drops by about half and the gate fails (SLOWER, exit 1);
# a row CTest's neighbours disturbed makes the case AMBIGUOUS (exit 3) and
# the pair is measured again (4 attempts). A folder with no baseline of this
# class says so in one line and still compares.
# With `class` (gate.planted.class): the same against the committed baseline
# of this machine class in BASELINES (ci/baselines), one case of the CI gate
# suite (bench_gate_suite and BENCH_GATE_ARGS from SETUP, ci/setup.sh, with
# its --sizes cut to one matmul case; 2 attempts); exit 77 (skip) when
# BASELINES has no file of this class.
set -u
bench=$1 gate=$2 kind=${3:-synthetic}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }
# the first number with a % of a gate line: the case's change
change_of() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /%$/) { sub(/%/, "", $i); print $i; exit } }' <<<"$1"; }

# planted TRIES NAME CASE BASEDIR RUN...: up to TRIES attempts of RUN (a run with
# BENCH_PLANT_SLOW=cpu-omp into $work/slow) gated against BASEDIR's NAME.csv
# with --allow-missing; CASE's line asserted: SLOWER fails the gate (a drop
# of 30% at least); else (disturbed: AMBIGUOUS, exit 3; noisy: MADs wider
# than the drop, `same`) the largest drop of the attempts is still 30% at
# least (the verdict rules: gate.synthetic). Sets $out (the last gate output).
planted() {
  local tries=$1 name=$2 case=$3 dir=$4 rc line c best=""
  shift 4
  for ((attempt = 1; attempt <= tries; attempt++)); do
    rm -rf "$work/slow"
    BENCH_PLANT_SLOW=cpu-omp "$@" >/dev/null 2>&1 || fail "planted run"
    out=$("$gate" "$work/slow/results.csv" --baselines "$dir" --allow-missing 2>&1); rc=$?
    line=$(grep -F "$case" <<<"$out")
    c=$(change_of "$line")
    best=$(awk -v c="$c" -v b="$best" 'BEGIN { print (b == "" || (c != "" && c + 0 < b + 0)) ? c : b }')
    grep -q 'SLOWER' <<<"$line" && break
  done
  head -1 <<<"$out" | grep -qF "baseline $dir/$name.csv (this machine's class: $name)" \
    || fail "the first line names the class's baseline: $out"
  if grep -q 'SLOWER' <<<"$line"; then
    awk -v c="$c" 'BEGIN { exit !(c != "" && c <= -30) }' \
      || fail "a planted 2x slowdown should drop cpu-omp's speedup by ~50%, got '$c': $out"
    [ "$rc" -eq 1 ] && grep -q 'FAIL$' <<<"$out" || fail "SLOWER must fail the gate: rc $rc: $out"
  else   # the largest drop of the attempts: noise both ways around the plant's -50%
    awk -v c="$best" 'BEGIN { exit !(c != "" && c <= -30) }' \
      || fail "a planted 2x slowdown should drop cpu-omp's speedup by ~50%, at best '$best': $out"
    if grep -q 'AMBIGUOUS' <<<"$line"; then
      [ "$rc" -eq 3 ] || fail "an AMBIGUOUS case must exit 3: rc $rc: $out"
      echo "gate real: disturbed in every attempt: AMBIGUOUS (exit 3) checked, the drop at best $best%" >&2
    else
      echo "gate real: the drop (at best $best%) stayed within the rows' noise in every attempt" >&2
    fi
  fi
}

if [ "$kind" = class ]; then
  setup=$4 dir=$(realpath "$5")
  . "$setup"   # bench_gate_suite, BENCH_GATE_ARGS: the gate suite as ci/test runs it
  "$bench" --suite matmul --sizes 16 --backend cpu-naive --reps 1 --no-plots --no-roofs --out "$work/probe" \
    >/dev/null 2>&1 || fail "the class probe run"
  cls=$("$gate" --class "$work/probe/results.csv") || fail "--class"
  if [ ! -f "$dir/$cls.csv" ]; then
    echo "skip: $dir has no baseline of this machine class ($cls)"
    exit 77
  fi
  # one matmul case of the gate suite, every other option as the suite has it
  size=256
  BENCH_GATE_ARGS=$(sed "s/--suite [^ ]*/--suite matmul/; s/--sizes [^ ]*/--sizes $size/" \
                    <<<"$BENCH_GATE_ARGS")
  grep -q "^matmul,[^,]*,cpu-omp,host,.*${size}x${size}x${size}" "$dir/$cls.csv" \
    || fail "$dir/$cls.csv has no matmul ${size}x${size}x${size} cpu-omp row"
  planted 2 "$cls" "/${size}x${size}x${size}/cpu-omp/fp32/host" "$dir" \
    bench_gate_suite "$bench" "$work/slow"
  [ "$fails" -eq 0 ] && echo "gate real ($cls.csv): all passed"
  exit $((fails > 0))
fi

args=(--suite matmul --sizes 96 --backend cpu-naive,cpu-omp --baseline cpu-naive --threads 1
      --min-time 0.1 --no-plots)
"$bench" "${args[@]}" --out "$work/base" >/dev/null 2>&1 || fail "baseline run"
cls=$("$gate" --class "$work/base/results.csv") || fail "--class"
mkdir -p "$work/mine" "$work/other"
cp "$work/base/results.csv" "$work/mine/$cls.csv"
cp "$work/base/results.csv" "$work/other/zz-another-machine.csv"
planted 4 "$cls" '96x96x96/cpu-omp/fp32/host' "$work/mine" "$bench" "${args[@]}" --out "$work/slow"

out=$("$gate" "$work/slow/results.csv" --baselines "$work/other" 2>&1); rc=$?
[ "$(grep -c "no baseline for this machine's class ($cls)" <<<"$out")" -eq 1 ] \
  || fail "no matching baseline: one line saying so: $out"
grep -q '96x96x96/cpu-omp/fp32/host .*\(same\|faster\|SLOWER\|AMBIGUOUS\)' <<<"$out" \
  || fail "no matching baseline: the case is still compared: $out"

[ "$fails" -eq 0 ] && echo "gate real: all passed"
exit $((fails > 0))
