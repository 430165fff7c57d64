#!/usr/bin/env bash
# tests/bench/train_amp_test.sh BENCH CSVQ PART - mixed-precision training steps
# (--dtype amp-bf16; suites/train/model_amp.c) end to end.
# PART cpu:
#  - every CPU backend of train that lists amp-bf16 runs every model under
#    autocast, every checked step passing, rows saying amp-bf16, accuracy_lost
#    (the loss against the fp32 reference's) above the check's rel_err;
#  - a planted op in the wrong precision fails the check: gemm left in fp32
#    (BENCH_PLANT_AMP=cpu-omp:gemm), layernorm rounded to bf16 where autocast
#    keeps fp32 (cpu-omp:layernorm); the other backend of the run passes.
# PART emu: cuda and cuda-lib under the emulator, amp-bf16, all passing.
# Counts come from `bench --list` and the sizes given, never literals.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
part=$3
. "$here/testlib.sh"
test_begin

list=$("$bench" --list --suite train)
sizes=mlp-small-b4,cnn-b2,rnn-b1,lstm-b1,gpt-b1-adamw
n_sizes=$(printf '%s' "$sizes" | tr , '\n' | grep -c .)
# the backends of a device whose dtypes include amp-bf16 (the list's dtype column)
amp_backends() {
  printf '%s\n' "$list" | awk -v dev="$1" '$2 == dev && $0 ~ /amp-bf16/ { print $1 }' | paste -sd, -
}

if [ "$part" = cpu ]; then
  cpu=$(amp_backends cpu)
  n_cpu=$(printf '%s' "$cpu" | tr , '\n' | grep -c .)
  [ "$n_cpu" -ge 2 ] || fail "$n_cpu CPU backends of train list amp-bf16: $cpu"
  "$bench" --suite train --sizes $sizes --backend "$cpu" --dtype amp-bf16 --mode host --reps 1 \
    --out a --no-plots --no-roofs >a.txt 2>&1 || fail "amp-bf16 run exited $?: $(tail -3 a.txt)"
  "$csvq" a/results.csv backend dtype check note |
    awk -F'\t' '$2 != "amp-bf16" || ($3 != "pass" && !($3 == "skip" && $1 == "cpu-onednn"))' >bad.txt
  [ ! -s bad.txt ] || fail "amp-bf16 rows not passing: $(cat bad.txt)"
  [ "$("$csvq" a/results.csv check | grep -c .)" -eq $((n_sizes * n_cpu)) ] \
    || fail "amp-bf16: want $((n_sizes * n_cpu)) rows: $("$csvq" a/results.csv backend shape check)"
  # accuracy_lost: the loss against the fp32 reference's, above the check's
  # rel_err (a row without the suite's measure has accuracy_lost = rel_err)
  "$csvq" a/results.csv backend shape accuracy_lost rel_err |
    awk -F'\t' '!($3 > $4 && $3 < 0.1)' >bad.txt
  [ ! -s bad.txt ] || fail "amp-bf16 accuracy_lost is not the loss's distance from fp32's: $(cat bad.txt)"

  # planted: an op of the 16-bit list left in fp32, an op of the fp32 list rounded
  for plant in mlp-small-b8:gemm gpt-b1:layernorm; do
    size=${plant%%:*} op=${plant#*:}
    BENCH_PLANT_AMP=cpu-omp:$op "$bench" --suite train --sizes "$size" --backend cpu-omp,cpu-naive \
      --dtype amp-bf16 --mode host --reps 1 --out "p-$op" --no-plots --no-roofs >/dev/null 2>&1
    [ $? -eq 1 ] || fail "$op in the wrong precision: want exit 1"
    "$csvq" "p-$op/results.csv" backend check note | grep -q "^cpu-omp	fail	check failed at step 1: " \
      || fail "$op in the wrong precision is not caught: $("$csvq" "p-$op/results.csv" backend check note)"
    "$csvq" "p-$op/results.csv" backend check | grep -q "^cpu-naive	pass" \
      || fail "$op planted on cpu-omp: cpu-naive should still pass"
  done
fi

if [ "$part" = emu ]; then
  gpu=$(amp_backends gpu)
  n_gpu=$(printf '%s' "$gpu" | tr , '\n' | grep -c .)
  [ "$n_gpu" -ge 2 ] || fail "$n_gpu GPU backends of train list amp-bf16: $gpu"
  esizes=mlp-small-b4,cnn-b2,gpt-b1-adamw
  n_e=$(printf '%s' "$esizes" | tr , '\n' | grep -c .)
  "$bench" --suite train --sizes $esizes --backend "$gpu" --dtype amp-bf16 --emulate \
    --mode resident --out e --no-plots --no-roofs >e.txt 2>&1 || fail "emulated amp-bf16 exited $?: $(tail -3 e.txt)"
  [ "$("$csvq" e/results.csv check | grep -c '^pass$')" -eq $((n_e * n_gpu)) ] \
    || fail "emulated amp-bf16: want $((n_e * n_gpu)) passing rows: $("$csvq" e/results.csv backend shape check note)"
fi
test_end "cli.train.amp ($part)"
