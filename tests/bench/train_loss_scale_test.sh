#!/usr/bin/env bash
# tests/bench/train_loss_scale_test.sh BENCH CSVQ PART - amp-fp16's dynamic
# loss scaling (ops/loss_scale.h, suites/train/model.c) end to end, with the
# planted overflow BENCH_PLANT_OVERFLOW=2 (step 2's first gradient inf, on
# every backend and in the reference):
#  - every train backend of the part that lists amp-bf16 lists amp-fp16 too;
#  - the run passes: step 2 skipped on both sides (the check compares the
#    scaler state exactly and the skipped step's parameters bit for bit), the
#    row's skipped_steps is the one planted step, loss_scale GradScaler's
#    2^16 halved once per skipped step, the note names the skipped step;
#  - BENCH_PLANT_NO_SKIP=<backend> (that backend applies the update of the
#    overflowed step) fails that backend's check at step 2, exit 1, and the
#    other backend of the run still passes.
# PART cpu: cpu-omp and cpu-naive; PART emu: cuda and cuda-lib emulated.
# The rule's growth after 2000 steps: unit.ops.loss_scale.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
part=$3
. "$here/testlib.sh"
test_begin

plant_step=2
size=mlp-small-b4
if [ "$part" = cpu ]; then
  backends=cpu-omp,cpu-naive dev=cpu run=(--mode host) faulty=cpu-omp
else
  backends=cuda,cuda-lib dev=gpu run=(--emulate --mode resident) faulty=cuda
fi
list=$("$bench" --list --suite train)
n_bf=$(printf '%s\n' "$list" | awk -v dev=$dev '$2 == dev && /amp-bf16/' | grep -c .)
n_fp=$(printf '%s\n' "$list" | awk -v dev=$dev '$2 == dev && /amp-fp16/' | grep -c .)
[ "$n_bf" -ge 2 ] && [ "$n_fp" -eq "$n_bf" ] \
  || fail "$dev train backends: $n_bf list amp-bf16, $n_fp amp-fp16: $list"
n_b=$(printf '%s' "$backends" | tr , '\n' | grep -c .)

BENCH_PLANT_OVERFLOW=$plant_step "$bench" --suite train --sizes $size --backend $backends \
  --dtype amp-fp16 "${run[@]}" --reps 1 --out a --no-plots --no-roofs >a.txt 2>&1 \
  || fail "planted overflow: exit $?: $(tail -3 a.txt)"
"$csvq" a/results.csv backend dtype check skipped_steps loss_scale note >rows.txt
[ "$(grep -c . rows.txt)" -eq "$n_b" ] || fail "want $n_b rows: $(cat rows.txt)"
# one planted step skipped: skipped_steps 1, the scale 2^16 * 0.5^1
awk -F'\t' -v s=$plant_step '$2 != "amp-fp16" || $3 != "pass" || $4 != 1 || $5 != 65536 / 2 ^ $4 ||
  index($6, "step " s " skipped") == 0' rows.txt >bad.txt
[ ! -s bad.txt ] || fail "planted overflow at step $plant_step not skipped alike: $(cat bad.txt)"

# planted: the faulty backend applies the overflowed step's update
BENCH_PLANT_OVERFLOW=$plant_step BENCH_PLANT_NO_SKIP=$faulty "$bench" --suite train --sizes $size \
  --backend $backends --dtype amp-fp16 "${run[@]}" --reps 1 --out n --no-plots --no-roofs >n.txt 2>&1
rc=$?
[ $rc -eq 1 ] || fail "skip not honoured on $faulty: want exit 1, got $rc: $(tail -3 n.txt)"
"$csvq" n/results.csv backend check note >rows.txt
grep -q "^$faulty	fail	check failed at step $plant_step: " rows.txt \
  || fail "skip not honoured on $faulty is not caught at step $plant_step: $(cat rows.txt)"
[ "$(grep -c '	pass	' rows.txt)" -eq $((n_b - 1)) ] \
  || fail "the other backends should still pass: $(cat rows.txt)"
test_end "cli.train.loss_scale ($part)"
