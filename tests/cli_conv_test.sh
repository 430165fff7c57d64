#!/usr/bin/env bash
# tests/cli_conv_test.sh BENCH CSVQ HAVE_ONEDNN - the conv suite end to end:
#  - bad descriptors exit 2 with one line naming the bad field, no files;
#  - a descriptor without a direction runs every direction of every selected
#    backend; a direction-prefixed shape re-runs exactly its one row (repro);
#  - a planted wrong result fails in every direction, the other rows pass;
#  - cpu-onednn passes when the build found oneDNN, and is a skip saying
#    "oneDNN not found at build time" when it did not (HAVE_ONEDNN 1 / 0).
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
have_onednn=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }

. "$here/expect_usage.sh"   # expect_usage WORD ARGS...
expect_usage "kh must be >= 1" --suite conv --sizes mb32ic64ih56oc64kh0
expect_usage "'mb32ic64ih56oc64kh0': kh" --suite conv --sizes mb32ic64ih56oc64kh0
expect_usage "unknown field 'zz'" --suite conv --sizes ic3ih5oc2kh1zz3
expect_usage "oc is missing" --suite conv --sizes fwd:ic3ih5kh1
expect_usage "unknown direction 'back'" --suite conv --sizes back:ic3ih5oc2kh1
expect_usage "ph 3 must be < kh 3" --suite conv --sizes ic3ih5oc2kh3ph3
expect_usage "repeats conv problem fwd:mb2ic3ih5oc2kh1" --suite conv --sizes ic3ih5oc2kh1,fwd:ic3ih5oc2kh1
expect_usage "'ic3ih5oc2kh1'" --suite matmul --sizes ic3ih5oc2kh1   # not matmul's

# no direction: every direction of every selected backend (counts from the run itself)
backends=cpu-naive,cpu-omp
"$bench" --suite conv --sizes mb2ic3ih9iw7oc4kh3sh2ph1 --backend $backends --reps 2 --out run1 \
  --no-plots >out1.txt 2>&1 || fail "run1 exited $? ($(tail -3 out1.txt))"
ndirs=$("$csvq" run1/results.csv direction | sort -u | wc -l)
nback=$(echo $backends | tr , '\n' | wc -l)
[ "$ndirs" -eq 3 ] || fail "run1: $ndirs directions, want fwd, bwd-data and bwd-filter"
[ "$("$csvq" run1/results.csv check | grep -c '^pass$')" -eq $((ndirs * nback)) ] \
  || fail "run1: want $((ndirs * nback)) passing rows: $(cat run1/results.csv)"
# each row's shape is DIRECTION:descriptor and its repro re-runs exactly that row
"$csvq" run1/results.csv direction shape | while IFS=$'\t' read -r dir shape; do
  case "$shape" in "$dir":*) ;; *) echo "shape $shape lacks its direction $dir" ;; esac
done >bad_shapes.txt
[ ! -s bad_shapes.txt ] || fail "run1: $(cat bad_shapes.txt)"
repro=$("$csvq" run1/results.csv backend direction repro |
        awk -F'\t' '$1 == "cpu-omp" && $2 == "bwd-filter" { print $3 }')
[ -n "$repro" ] || fail "run1: no repro for cpu-omp bwd-filter"
${repro/#bench/$bench} --reps 2 --out run2 --no-plots >out2.txt 2>&1 || fail "repro exited $?: $repro"
[ "$("$csvq" run2/results.csv suite case shape backend mode direction)" = \
  "$("$csvq" run1/results.csv suite case shape backend mode direction |
     awk -F'\t' '$4 == "cpu-omp" && $6 == "bwd-filter"')" ] \
  || fail "repro '$repro' did not re-run exactly its row: $(cat run2/results.csv)"

# a planted wrong result fails in every direction; the others pass
BENCH_PLANT_FAULT=cpu-omp "$bench" --suite conv --sizes mb2ic3ih9iw7oc4kh3sh2ph1 \
  --backend $backends --reps 2 --out run3 --no-plots >out3.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "planted fault: exit $rc, want 1"
[ "$("$csvq" run3/results.csv backend check | grep -c '^cpu-omp	fail$')" -eq "$ndirs" ] \
  || fail "planted fault: cpu-omp should fail in every direction: $(cat run3/results.csv)"
[ "$("$csvq" run3/results.csv backend check | grep -c '	pass$')" -eq $((ndirs * (nback - 1))) ] \
  || fail "planted fault: the other rows should pass"
# ... also on a problem checked on samples (the planted element is mid-tensor)
BENCH_PLANT_FAULT=cpu-omp "$bench" --suite conv --sizes mb4ic32ih28oc32kh3ph1 \
  --backend cpu-omp --reps 1 --out run4 --no-plots >out4.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] && [ "$("$csvq" run4/results.csv check | grep -c '^fail$')" -eq "$ndirs" ] \
  || fail "planted fault on a sampled problem: exit $rc: $(cat run4/results.csv)"

# cpu-onednn: built and passing, or a skip that says why
"$bench" --suite conv --sizes fwd:mb2ic3ih9oc4kh3ph1 --backend cpu-onednn --reps 2 --out run5 \
  --no-plots >out5.txt 2>&1 || fail "run5 exited $?"
got=$("$csvq" run5/results.csv check note)
if [ "$have_onednn" = 1 ]; then
  [ "${got%%	*}" = pass ] || fail "cpu-onednn (built): $got"
else
  [ "$got" = "skip	oneDNN not found at build time" ] || fail "cpu-onednn (not built): $got"
fi

[ "$fails" -eq 0 ] && echo "all checks passed"
exit $((fails > 0))
