#!/usr/bin/env bash
# tests/bench/emulate_test.sh BENCH CSVQ - bench --emulate end to end: every GPU
# backend x mode and every transfer mode runs on the host emulator and agrees
# with the CPU; emulated rows say so and carry no speedup or throughput (their
# median_ms is the emulator's host time); a bad --device is a usage error.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin

# expected counts from the registry: GPU modes per suite (bench --list)
list=$("$bench" --list)
modes_of() { printf '%s\n' "$list" | awk -v s="$1" '/^  [a-z]/ { cur = $1 } cur == s && $1 == "gpu" && $2 == "modes:" { print NF - 2 }'; }
n_mm=$(modes_of matmul)
n_tr=$(modes_of transfer)
[ "${n_mm:-0}" -ge 8 ] && [ "${n_tr:-0}" -ge 9 ] || fail "bench --list modes: matmul $n_mm, transfer $n_tr"

# conv's quick layers take minutes on fibers: its small layers run below, in
# every direction, every GPU backend and mode
"$bench" --emulate --suite matmul,transfer,stream --quick --min-time 0.01 --out run --no-plots >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] || fail "emulated quick run exited $rc: $(tail -3 err.txt)"
grep -q 'correctness only' err.txt || fail "no notice that emulated timings mean nothing"
# GPU rows: 5 backends x 8 modes at each of the 4 quick shapes inside the emulator's
# default limit (the 5th, mlp-fc1, is a skip row per backend); streams-8 skips M < 8
"$csvq" run/results.csv backend mode check emulated speedup device | awk -F'\t' -v want="$((n_mm + n_tr))" '
  $2 == "host" { if ($4 != 0) bad["CPU row marked emulated"]++; next }
  $3 == "skip" { next }
  { gpu++
    if ($3 != "pass") bad["GPU row " $1 " " $2 " did not pass"]++
    if ($4 != 1) bad["GPU row not marked emulated"]++
    if ($5 != "") bad["emulated row has a speedup"]++
    if ($6 !~ /emulat/) bad["device column does not name the emulator"]++
    modes[$2]++ }
  END {
    for (k in bad) { print k " (" bad[k] ")"; err = 1 }
    n = 0; for (k in modes) n++
    if (n < want) { print "want every mode (" want "), got " n; err = 1 }
    if (gpu < 150) { print "too few GPU rows: " gpu; err = 1 }
    exit err }' || fail "emulated rows"

# emulated rows present no throughput computed from the emulator's time:
# gflops, gbps, busbw_gbps, samples_per_s empty; their median_ms stays, as
# results/README.md documents it (the emulator's host time)
"$csvq" run/results.csv emulated check gflops gbps busbw_gbps samples_per_s median_ms |
  awk -F'\t' '$1 == 1 && $2 == "pass" { n++
    if ($3 $4 $5 $6 != "") { print "emulated row with a throughput: " $0; err = 1 }
    if (!($7 > 0)) { print "emulated row without the emulator'"'"'s median_ms: " $0; err = 1 } }
  END { if (n < 150) { print "emulated passing rows: " n; err = 1 } exit err }' >thr.bad ||
  fail "emulated throughput: $(head -3 thr.bad)"

# transfer rows count their bytes as bandwidthTest and nvbandwidth do: a
# d2d copy each byte read and written (2x its size, said in its note, its
# GB/s from those bytes), the other directions once
"$csvq" run/results.csv suite mode shape bytes gbps median_ms note | awk -F'\t' '
  $1 != "transfer" { next }
  { want = ($2 == "d2d" ? 2 : 1) * $3; n[$2 == "d2d"]++
    if ($4 + 0 != want) { print $2 " " $3 ": bytes " $4 ", want " want; err = 1 }
    if ($5 != "" && $6 > 0 && ($5 / (want / ($6 * 1e6)) - 1) ^ 2 > 1e-6) {
      print $2 " " $3 ": gbps " $5 " is not bytes / median"; err = 1 }
    if (($2 == "d2d") != ($7 ~ /read \+ written/)) { print $2 " " $3 ": note " $7; err = 1 } }
  END { if (n[1] < 3 || n[0] < 24) { print "transfer rows: " n[1] " d2d, " n[0] " others"; err = 1 }
        exit err }' || fail "transfer rows' bytes"

# conv: two small layers (one strided), all three directions, every GPU backend x mode
n_cv=$(modes_of conv)
n_cvb=$(printf '%s\n' "$list" | awk '/^  [a-z]/ { s = $1 } s == "conv" && $2 == "gpu" { n++ } END { print n + 0 }')
[ "${n_cv:-0}" -ge 8 ] && [ "$n_cvb" -ge 1 ] || fail "bench --list: conv modes $n_cv, GPU backends $n_cvb"
"$bench" --emulate --suite conv --sizes mb2ic3ih9oc4kh3ph1,mb3ic4ih8oc5kh3sh2ph1 --min-time 0.01 \
  --out runc --no-plots >/dev/null 2>&1 || fail "emulated conv run failed"
"$csvq" runc/results.csv device_kind direction backend mode check | awk -F'\t' -v want="$((6 * n_cvb * n_cv))" '
  $1 != "gpu" { next }
  { rows++; dirs[$2] = 1; b[$3] = 1 }
  $5 == "fail" { print "conv GPU row failed: " $0; err = 1 }
  END { if (rows != want) { print "conv GPU rows " rows ", want " want; err = 1 }
        if (length(dirs) != 3) { print "conv directions: " length(dirs); err = 1 }
        exit err }' || fail "emulated conv rows"
# skips only where streams-N splits a batch of 2 or 3 images N ways
[ "$("$csvq" runc/results.csv device_kind mode check | awk -F'\t' '$1 == "gpu" && $3 == "skip" && $2 !~ /^streams-[48]$/' | wc -l)" -eq 0 ] \
  || fail "an emulated conv row was skipped for another reason"

"$bench" --emulate --device 7 --suite matmul >/dev/null 2>err2.txt
[ $? -eq 2 ] || fail "--device 7 on one emulated device should exit 2"
grep -q 'device 7' err2.txt || fail "bad --device message: $(cat err2.txt)"
CUDAEMU_DEVICES=2 "$bench" --emulate --device 1 --suite matmul --sizes 9x7x5 --backend cuda-regtile \
  --out run2 --no-plots >/dev/null 2>&1 || fail "--device 1 of 2 emulated devices"
[ "$(grep -c ',pass,' run2/results.csv)" -eq "$n_mm" ] || fail "device 1: want $n_mm passing mode rows"

# a planted wrong GPU result: the row fails, bench exits 1
BENCH_PLANT_FAULT=cuda-tiled "$bench" --emulate --suite matmul --sizes 9x7x5 --backend cuda-tiled \
  --out run3 --no-plots >/dev/null 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "planted GPU fault: exit $rc, want 1"
[ "$("$csvq" run3/results.csv check | grep -c fail)" -eq "$n_mm" ] || fail "planted GPU fault: want $n_mm failing mode rows"
"$bench" --emulate --device 7 --suite matmul --backend cpu-naive >/dev/null 2>&1
[ $? -eq 2 ] || fail "--device 7 is checked even when only CPU backends run"

test_end cli.emulate
