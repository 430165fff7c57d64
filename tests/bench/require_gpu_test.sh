#!/usr/bin/env bash
# tests/bench/require_gpu_test.sh BENCH CSVQ - a run that asked for a GPU never
# "passes" having run nothing: with no usable GPU, naming a GPU backend (one per
# suite, from bench --list), --device or --require-gpu exits 1 with one line
# naming the request and the runtime's reason, before any work (no run
# folder); without such a request GPU cases stay skip rows and the run exits 0.
# Works in every flavour: CUDA_VISIBLE_DEVICES= hides a real GPU (the real
# runtime, or its error 35 without a driver, or a build without CUDA: no GPU
# either way); the emulator's "no device" is CUDAEMU_DEVICES=0.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin
export CUDA_VISIBLE_DEVICES=

# expect_no_gpu WORD ARGS...: exit 1, one line naming WORD and "needs a usable
# GPU", and nothing made
expect_no_gpu() {
  local word=$1 out rc
  shift
  out=$("$@" --out u --no-plots 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -eq 1 ] || fail "$*: exit $rc, want 1 ($out)"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "$*: want one line, got: $out"
  case "$out" in *"$word needs a usable GPU and there is none: "?*) ;;
    *) fail "$*: the line does not name '$word' and why: $out" ;; esac
  [ ! -e u ] || { fail "$* left a run folder"; rm -rf u; }
}

# one GPU backend of each suite, from the registry
list=$("$bench" --list)
gpu_of=$(printf '%s\n' "$list" | awk '/^  [a-z]/ { s = $1 } /^    [a-z]/ && $2 == "gpu" && !(s in seen) { seen[s] = 1; print s, $1 }')
[ "$(printf '%s\n' "$gpu_of" | wc -l)" -ge 4 ] || fail "bench --list: GPU backends of too few suites: $gpu_of"
while read -r suite backend; do
  expect_no_gpu "--backend $backend" "$bench" --suite "$suite" --backend "$backend" --quick
done <<<"$gpu_of"
# a GPU backend among CPU ones is a request too
expect_no_gpu "--backend cuda-regtile" "$bench" --suite matmul --sizes 48 --backend cpu-naive,cuda-regtile
expect_no_gpu "--require-gpu" "$bench" --suite matmul --sizes 48 --require-gpu
expect_no_gpu "--device 0" "$bench" --suite matmul --sizes 48 --device 0

# --require-gpu where nothing runs on a GPU would change nothing: a usage error
"$bench" --suite matmul --sizes 48 --backend cpu-naive --require-gpu --out u >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q -- '--require-gpu' err.txt || fail "--require-gpu with CPU backends only: $(cat err.txt)"
"$bench" --help | grep -q -- '--require-gpu' || fail "--help does not document --require-gpu"

# no request: GPU cases are skip rows saying why, the run exits 0
"$bench" --suite matmul --sizes 48 --out plain --no-plots >/dev/null 2>&1 || fail "a run without a GPU request exited $?"
n_gpu=$(printf '%s\n' "$list" | awk '/^  [a-z]/ { s = $1 } s == "matmul" && $2 == "gpu" { n++ } END { print n + 0 }')
[ "$("$csvq" plain/results.csv device_kind check | grep -c $'^gpu\tskip$')" -eq "$n_gpu" ] \
  || fail "want $n_gpu GPU skip rows: $("$csvq" plain/results.csv backend check | tr '\n\t' '; ')"

# the emulator: no device is the runtime's error string; a device satisfies the request
if CUDAEMU_DEVICES=1 "$bench" --emulate --info >/dev/null 2>&1; then
  unset CUDA_VISIBLE_DEVICES
  CUDAEMU_DEVICES=0 expect_no_gpu "--backend cuda-regtile" "$bench" --emulate --suite matmul --sizes 48 --backend cuda-regtile
  grep -q cudaErrorNoDevice <<<"$(CUDAEMU_DEVICES=0 "$bench" --emulate --suite matmul --sizes 48 --require-gpu --out u 2>&1)" \
    || fail "the emulator's no-device line does not carry the CUDA error"
  CUDAEMU_DEVICES=0 "$bench" --emulate --suite matmul --sizes 48 --out emu0 --no-plots >/dev/null 2>&1 \
    || fail "an emulated run without a GPU request and no device exited $?"
  "$bench" --emulate --require-gpu --suite matmul --sizes 9x7x5 --backend cpu-naive,cuda-tiled --mode host,resident \
    --out emu1 --no-plots >/dev/null 2>&1 || fail "--require-gpu with an emulated device exited $?"
  [ "$("$csvq" emu1/results.csv backend check | sort | paste -sd' ')" = "$(printf 'cpu-naive\tpass cuda-tiled\tpass')" ] \
    || fail "--require-gpu on the emulator: rows $("$csvq" emu1/results.csv backend check | tr '\n\t' '; ')"
fi

test_end cli.require_gpu
