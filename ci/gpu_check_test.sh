#!/usr/bin/env bash
# ci/gpu_check_test.sh GPU_CHECK BUILD [planted] - ci/gpu-check --dry on the emulator, so
# the script a GPU machine runs cannot rot: it passes, with one matmul run per
# GPU backend of the registry (bench --list) and summary.txt saying nothing
# failed; a planted wrong result (BENCH_PLANT_FAULT) makes it exit 1 with the
# failing rows in summary.txt; a non-empty OUTDIR is refused (exit 2, one
# line, nothing touched). With `planted`, only the planted fault (a second
# whole dry run: ci/test --full).
set -u
check=$1 build=$2 part=${3:-dry}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }

if [ "$part" = dry ]; then
"$check" "$work/ok" --dry "$build" >"$work/ok.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "--dry exited $rc: $(tail -5 "$work/ok.log")"
grep -qx 'not passed: 0' "$work/ok/summary.txt" || fail "summary.txt: $(cat "$work/ok/summary.txt")"
want=$("$build/bin/bench" --list --suite matmul | awk '/^    [a-z]/ && $2 == "gpu" { print "matmul-" $1 }' | sort)
got=$(cd "$work/ok/runs" && ls -d matmul-* | sort)
[ -n "$want" ] && [ "$want" = "$got" ] || fail "matmul runs: want $(echo $want), got $(echo $got)"
for r in "$work"/ok/runs/*; do [ -s "$r/results.csv" ] || fail "$(basename "$r"): no results.csv"; done
ls "$work/ok/runs" | grep -qx train && ls "$work/ok/runs" | grep -qx dp || fail "no train or dp run: $(ls "$work/ok/runs")"

mkdir "$work/full" && echo keep >"$work/full/x"
out=$("$check" "$work/full" --dry "$build" 2>&1)
rc=$?
[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [ "$(ls "$work/full")" = x ] \
  || fail "a non-empty OUTDIR: exit $rc, '$out', left $(ls "$work/full")"
else
BENCH_PLANT_FAULT=cuda-tiled "$check" "$work/bad" --dry "$build" >"$work/bad.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "a planted fault: exit $rc, want 1"
grep -q '^  matmul-cuda-tiled: .* cuda-tiled resident fp32: fail' "$work/bad/summary.txt" \
  || fail "a planted fault: summary.txt does not list the row: $(cat "$work/bad/summary.txt")"
fi
[ "$fails" -eq 0 ] && echo "ci/gpu_check_test.sh $part: all checks passed"
exit $((fails > 0))
