#!/usr/bin/env bash
# tests/bench/alloc_test.sh BENCH CSVQ - device memory under the emulator:
#  - bad --alloc values, and --alloc without a training step on a GPU
#    backend, exit 2 with one line, before any work;
#  - a training step in resident and prefetch-2 modes under every allocator
#    kind (harness/gpu_alloc.h): one row each, mode `<mode>` or
#    `<mode>+<kind>`, every check passing (async-pool: passing, or skipped
#    where the emulator lacks cudaMallocAsync, saying so); the same peak
#    allocated under each; cached reserves no more than the 512-byte rounding
#    of its blocks (a pool that did not reuse its blocks would reserve a step's
#    buffers again every step) and makes fewer device allocations than
#    per-step; per-step reserves what it allocates and makes more device
#    allocations than it ran steps; the repro names --alloc;
#  - bench --info shows each device's free and total memory as the emulator
#    sizes it (CUDAEMU_MEM_MB);
#  - --max-batch MODEL: bad input exits 2 with one line; on a device the
#    emulator sizes small, the batch it reports has an estimate within the
#    free memory and the next one not, its step ran, a run at that batch
#    passes holding the estimate (reserved_dev_mb), and one at the next batch
#    runs out of device memory.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$here/testlib.sh"
test_begin
. "$here/expect_usage.sh"

expect_usage "bad --alloc 'pooled': 'pooled' is not one of cached, per-step, async-pool" \
  --suite train --alloc pooled
expect_usage "--alloc names 'cached' twice" --suite train --alloc cached,per-step,cached
expect_usage "--alloc is for training steps" --suite matmul --alloc per-step
expect_usage "--alloc is for GPU cases" --suite train --backend cpu-omp --alloc per-step
expect_usage "bad --max-batch 'resnet': not a model of the train suite" --emulate --max-batch resnet
expect_usage "needs one GPU backend of the train suite: not cpu-omp" --emulate --max-batch mlp-small \
  --backend cpu-omp
expect_usage "--sizes does not apply to --max-batch" --emulate --max-batch mlp-small --sizes mlp-b8
if "$bench" --info | grep -q "built without the CUDA toolkit"; then
  expect_usage "this build has no GPU layer" --max-batch mlp-small
fi

# the train suite's first GPU backend, from the registry
gpu=$("$bench" --list --suite train | awk '$2 == "gpu" {print $1; exit}')
[ -n "$gpu" ] || fail "no GPU backend of train in bench --list"
kinds=cached,per-step,async-pool
# prefetch-2 too: a batch copied on a second stream into a buffer of the pool
modes=resident,prefetch-2
"$bench" --suite train --sizes mlp-small-b8 --backend "$gpu" --emulate --mode $modes \
  --alloc $kinds --out a --no-plots >a.txt 2>&1 || fail "allocator run exited $?: $(tail -3 a.txt)"
n_kinds=$(printf '%s' "$kinds" | tr , '\n' | grep -c .)
n_modes=$(printf '%s' "$modes" | tr , '\n' | grep -c .)
[ "$("$csvq" a/results.csv mode | grep -c .)" -eq $((n_kinds * n_modes)) ] \
  || fail "want $((n_kinds * n_modes)) rows: $("$csvq" a/results.csv mode check note)"
"$csvq" a/results.csv mode check note | awk -F'\t' '$2 != "pass" && !($2 == "skip" && $3 ~ /no cudaMallocAsync/)' \
  | grep . && fail "rows that did not pass"
row() { "$csvq" a/results.csv mode "$@" | awk -F'\t' -v m="$mode" '$1 == m' | cut -f2-; }
mode=resident; peak=$(row peak_dev_mb); res=$(row reserved_dev_mb)
[ "$(row check)" = pass ] || fail "cached: $(row check note)"
mode=resident+per-step
[ "$(row check)" = pass ] || fail "per-step: $(row check note)"
[ "$(row peak_dev_mb)" = "$peak" ] || fail "per-step: peak $(row peak_dev_mb) MiB, cached's $peak"
[ "$(row reserved_dev_mb)" = "$(row peak_dev_mb)" ] || fail "per-step reserves what it allocates: $(row peak_dev_mb reserved_dev_mb)"
# "allocator K: N device allocations in S steps"
allocs() { row note | sed -n 's/.*allocator [a-z-]*: \([0-9]*\) device allocations in \([0-9]*\) steps.*/\1 \2/p'; }
set -- $(allocs) 0 0
[ "$1" -gt "$2" ] || fail "per-step: $1 device allocations in $2 steps: want one a step at least: $(row note)"
per_step=$1 steps=$2
mode=resident
set -- $(allocs) 0 0
[ "$2" -eq "$steps" ] && [ "$1" -gt 0 ] && [ "$1" -lt "$per_step" ] \
  || fail "cached: $1 device allocations in $2 steps, per-step $per_step in $steps: want fewer (reuse)"
# reserved: what is allocated, each of its blocks rounded up to 512 bytes at most
awk -v p="$peak" -v r="$res" -v n="$1" 'BEGIN { exit !(p > 0 && r >= p && r - p <= n * 512 / 1048576 + 1e-9) }' \
  || fail "cached: peak $peak MiB, reserved $res MiB, $1 blocks: want reserved = peak + block rounding"
mode=resident+per-step
row repro | grep -q -- "--mode resident --alloc per-step" || fail "per-step repro: $(row repro)"
mode=resident+async-pool
case "$(row check)" in
  pass) [ "$(row peak_dev_mb)" = "$peak" ] || fail "async-pool: peak $(row peak_dev_mb), cached's $peak"
        awk -v p="$peak" -v r="$(row reserved_dev_mb)" 'BEGIN { exit !(r >= p) }' \
          || fail "async-pool: reserved $(row reserved_dev_mb) MiB under its peak $peak MiB"
        set -- $(allocs) 0 0
        [ "$1" -gt "$2" ] || fail "async-pool: $1 stream-ordered allocations in $2 steps: want one a step at least" ;;
  skip) row note | grep -q "no cudaMallocAsync" || fail "async-pool skipped without saying why: $(row note)" ;;
  *) fail "async-pool: $(row check note)" ;;
esac

CUDAEMU_MEM_MB=3000 "$bench" --emulate --info >info.txt 2>&1 || fail "--info exited $?"
grep -q "free 3000 MiB of 3000 MiB" info.txt || fail "--info: no free/total memory: $(grep -i memory info.txt)"

mem=1   # MiB: a batch of some hundreds of mlp-small
CUDAEMU_MEM_MB=$mem "$bench" --emulate --max-batch mlp-small --backend "$gpu" >mb.txt 2>&1 \
  || fail "--max-batch exited $?: $(cat mb.txt)"
# "max-batch M on gpu 0 (NAME): B (BACKEND, resident: estimate E MiB of F MiB free; batch B+1 needs N MiB); one step ran"
set -- $(sed -n 's/.*): \([0-9]*\) (.*estimate \([0-9.]*\) MiB of \([0-9.]*\) MiB free; batch [0-9]* needs \([0-9.]*\) MiB); one step ran$/\1 \2 \3 \4/p' mb.txt)
if [ $# -ne 4 ]; then
  fail "--max-batch: no batch, estimates and a step that ran: $(cat mb.txt)"
else
  batch=$1 est=$2 free=$3 next=$4
  awk -v e="$est" -v f="$free" -v n="$next" 'BEGIN { exit !(e > 0 && e <= f && n > f) }' \
    || fail "--max-batch: batch $batch needs $est MiB, the next $next MiB, $free MiB free"
  CUDAEMU_MEM_MB=$mem "$bench" --emulate --suite train --sizes "mlp-small-b$batch" --backend "$gpu" \
    --mode resident --out m1 --no-plots >m1.txt 2>&1 || fail "batch $batch exited $?: $(tail -3 m1.txt)"
  awk -v e="$est" -v r="$("$csvq" m1/results.csv reserved_dev_mb)" 'BEGIN { exit !(r > 0 && (r - e) ^ 2 < 1e-6) }' \
    || fail "batch $batch: reserved $("$csvq" m1/results.csv reserved_dev_mb) MiB, estimated $est MiB"
  CUDAEMU_MEM_MB=$mem "$bench" --emulate --suite train --sizes "mlp-small-b$((batch + 1))" \
    --backend "$gpu" --mode resident --out m2 --no-plots >m2.txt 2>&1
  [ $? -eq 1 ] && "$csvq" m2/results.csv note | grep -q "out of memory" \
    || fail "batch $((batch + 1)) fit in $mem MiB: $("$csvq" m2/results.csv check note)"
fi

test_end cli.alloc
