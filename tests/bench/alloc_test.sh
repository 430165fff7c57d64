#!/usr/bin/env bash
# tests/bench/alloc_test.sh BENCH CSVQ - device memory under the emulator:
#  - bad --alloc values and --alloc without a training step exit 2 with one
#    line, before any work;
#  - a training step in resident mode under every allocator kind
#    (harness/gpu_alloc.h): one row each, mode `resident` or
#    `resident+<kind>`, every check passing (async-pool: passing, or skipped
#    where the emulator lacks cudaMallocAsync, saying so); the same peak
#    allocated under each; cached reserves no more than the 512-byte rounding
#    of its blocks (a pool that did not reuse its blocks would reserve a step's
#    buffers again every step) and makes fewer device allocations than
#    per-step; per-step reserves what it allocates and makes more device
#    allocations than it ran steps; the repro names --alloc.
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
expect_usage "--alloc" --suite matmul --alloc per-step
# the train suite's first GPU backend, from the registry
gpu=$("$bench" --list --suite train | awk '$2 == "gpu" {print $1; exit}')
[ -n "$gpu" ] || fail "no GPU backend of train in bench --list"
kinds=cached,per-step,async-pool
"$bench" --suite train --sizes mlp-small-b8 --backend "$gpu" --emulate --mode resident \
  --alloc $kinds --out a --no-plots >a.txt 2>&1 || fail "allocator run exited $?: $(tail -3 a.txt)"
n_kinds=$(printf '%s' "$kinds" | tr , '\n' | grep -c .)
[ "$("$csvq" a/results.csv mode | grep -c .)" -eq "$n_kinds" ] \
  || fail "want $n_kinds rows: $("$csvq" a/results.csv mode check note)"
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
  pass) [ "$(row peak_dev_mb)" = "$peak" ] || fail "async-pool: peak $(row peak_dev_mb), cached's $peak" ;;
  skip) row note | grep -q "no cudaMallocAsync" || fail "async-pool skipped without saying why: $(row note)" ;;
  *) fail "async-pool: $(row check note)" ;;
esac

test_end cli.alloc
