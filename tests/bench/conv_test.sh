#!/usr/bin/env bash
# tests/bench/conv_test.sh BENCH CSVQ HAVE_ONEDNN - the conv suite end to end:
#  - bad descriptors exit 2 with one line naming the bad field, its value and
#    the limit (a sign, a point, a huge number, a stray space by position,
#    a shape over 63 characters), no files; an absurd batch is refused at once;
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
expect_usage "kh must be a whole number from 1 to 65536 (got '0')" --suite conv --sizes mb32ic64ih56oc64kh0
# a sign, a point, a huge number: the value named with the field's range
expect_usage "'ih-8': ih must be a whole number from 1 to 65536 (got '-8')" --suite conv --sizes ih-8
expect_usage "ih must be a whole number from 1 to 65536 (got '-8')" --suite conv --sizes ic3ih-8oc2kh1
expect_usage "ph must be a whole number from 0 to 65536 (got '+1')" --suite conv --sizes ic3ih5oc2kh3ph+1
expect_usage "ih must be a whole number from 1 to 65536 (got '5.5')" --suite conv --sizes ic3ih5.5oc2kh1
expect_usage "ic must be a whole number from 1 to 65536 (got '99999999999999999999')" \
  --suite conv --sizes ic99999999999999999999ih5oc2kh1
# an absurd batch is refused by its field at once (it took 10.9 s and 225 MB)
t0=$(date +%s%N)
expect_usage "mb must be a whole number from 1 to 65536 (got '2147483647')" --suite conv \
  --sizes mb2147483647ic1ih1oc1kh1
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 3000 ] || fail "mb2147483647 took $ms ms to refuse"
# the largest batch within the limits is estimated at once too (the memory
# estimate visited every output plane: 2^31 of them here); whether this
# machine has the memory decides the rest, so stop it at the first row
t0=$(date +%s%N)
timeout 60 "$bench" --suite conv --sizes fwd:mb65536ic1ih1oc32767kh1 --backend cpu-naive --reps 1 \
  --out big --no-plots >big.txt 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && [ ! -s big/results.csv ] && ! grep -q 'needs' big.txt; do sleep 0.05; done
ms=$((($(date +%s%N) - t0) / 1000000))
kill $pid 2>/dev/null; wait $pid 2>/dev/null
rm -rf big big.txt
[ "$ms" -lt 3000 ] || fail "mb65536ic1ih1oc32767kh1: $ms ms before the memory estimate was done"
# a space, or another stray character, is named with its position
expect_usage "a space at position 4" --suite conv --sizes 'ic3 ih5oc2kh1'
expect_usage "a space at position 17" --suite conv --sizes 'fwd:ic3ih5oc2kh1 '
expect_usage "'/' at position 9: oc takes a whole number" --suite conv --sizes 'ic3ih5oc/2kh1'
# one length limit: the shape column, direction and name included (63)
name40=aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd
# without a direction the longest prefix counts: bwd-filter: (11) + 15 + _n + 36
expect_usage "its shape 'bwd-filter:mb2ic3ih5oc2kh1_n${name40:0:36}' is 64 characters, more than 63 (the limit" \
  --suite conv --sizes "ic3ih5oc2kh1_n${name40:0:36}"
expect_usage "its shape 'fwd:mb1000ic3ih5oc2kh1_n${name40}' is 64 characters, more than 63" \
  --suite conv --sizes "fwd:mb1000ic3ih5oc2kh1_n${name40}"
expect_usage "'mb32ic64ih56oc64kh0': kh" --suite conv --sizes mb32ic64ih56oc64kh0
expect_usage "unknown field 'zz'" --suite conv --sizes ic3ih5oc2kh1zz3
expect_usage "oc is missing" --suite conv --sizes fwd:ic3ih5kh1
expect_usage "unknown direction 'back'" --suite conv --sizes back:ic3ih5oc2kh1
expect_usage "ph 3 must be < kh 3" --suite conv --sizes ic3ih5oc2kh3ph3
expect_usage "repeats conv problem fwd:mb2ic3ih5oc2kh1" --suite conv --sizes ic3ih5oc2kh1,fwd:ic3ih5oc2kh1
expect_usage "'ic3ih5oc2kh1'" --suite matmul --sizes ic3ih5oc2kh1   # not matmul's

# a shape of exactly 63 characters runs, and is the shape column (a name over
# 40 characters was refused, as was "longer than 51" where it fit)
"$bench" --suite conv --sizes "fwd:mb1000ic3ih5oc2kh1_n${name40:0:39}" --backend cpu-naive --reps 1 \
  --out run63 --no-plots >out63.txt 2>&1 || fail "a 63-character shape: exit $? ($(tail -2 out63.txt))"
[ "$("$csvq" run63/results.csv shape 2>&1)" = "fwd:mb1000ic3ih5oc2kh1_n${name40:0:39}" ] \
  || fail "a 63-character shape: $("$csvq" run63/results.csv shape 2>&1)"
rm -rf run63 out63.txt

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
