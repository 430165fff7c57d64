#!/usr/bin/env bash
# tests/bench/roofs_test.sh - the roofs end to end: a --quick run measures
# them (context lines `roofs: measured`, `roof-cpu-bandwidth`,
# `roof-cpu-compute-fp32`), every timed row with a work count gets pct_roof,
# verdict and bound, every low or above-roof row states its reason; an
# emulated row gets none and says so, and an emulated run writes no GPU roof
# line (a matmul run, a transfer run); --no-roofs leaves them all empty and
# says the roofs were not measured.
#   roofs_test.sh BENCH CSVQ
here=$(cd "$(dirname "$0")" && pwd)
. "$here/testlib.sh"
bench=$(realpath "$1")
csvq=$(realpath "$2")
test_begin
unset BENCH_NO_ROOFS   # ctest sets it for every test (cmake/test_env.cmake)

"$bench" --suite matmul,stream --quick --backend cpu-naive,cpu-omp,cpu-blas \
    --reps 3 --no-plots --out on >out.txt 2>err.txt || fail "the run failed: $(cat err.txt)"
grep -q '^bench: measuring roofs (cpu: STREAM triad, GEMM fp32' err.txt ||
    fail "no progress line for the probe: $(cat err.txt)"
for key in 'roofs: measured in' 'roof-cpu-bandwidth: [0-9.e+]* GB/s (STREAM triad' \
           'roof-cpu-compute-fp32: [0-9.e+]* GFLOP/s (best GEMM' 'roof-cpu-peak-fp32: '; do
    grep -q "^# $key" on/results.csv || fail "no context line '# $key'"
done
# every passed row with a work count (flops or io_bytes) has the three
"$csvq" on/results.csv check emulated flops io_bytes pct_roof verdict bound note >rows.tsv
timed=$(awk -F'\t' '$1 == "pass" && $2 == 0 && ($3 != "" || $4 != "")' rows.tsv | wc -l)
judged=$(awk -F'\t' '$1 == "pass" && $2 == 0 && $5 > 0 && $6 ~ /^(at-roof|ok|low|above-roof)$/ &&
                     $7 ~ /^(compute|bandwidth|transfer)$/' rows.tsv | wc -l)
[ "$timed" -gt 0 ] || fail "no timed rows with a work count"
[ "$judged" -eq "$timed" ] || fail "$judged of $timed timed rows have pct_roof, verdict and bound"
# stream rows: bandwidth-bound; matmul rows: the intensity of their counts
awk -F'\t' '$1 == "pass" && $3 == "" && $4 != "" && $7 != "bandwidth"' rows.tsv | grep -q . &&
    fail "a row without FLOPs not bandwidth-bound"
unexplained=$(awk -F'\t' '($6 == "low" && $8 !~ /low: /) || ($6 == "above-roof" && $8 !~ /above-roof: /)' rows.tsv)
[ -z "$unexplained" ] || fail "low or above-roof rows without a reason: $unexplained"
# cpu-naive is the reference: when low, it says so
"$csvq" on/results.csv backend verdict note | awk -F'\t' '$1 == "cpu-naive" && $2 == "low" && $3 !~ /reference loop/' |
    grep -q . && fail "a low reference row without 'the reference loop'"
# the intensity of a matmul row: flops / io_bytes, io_bytes (M*K + K*N + M*N) * 4
n128=0
while IFS=$'\t' read -r shape dt flops io inten ck; do
        n128=$((n128 + 1))
        want=$((3 * 128 * 128 * 4))
        [ "$io" = "$want" ] || fail "io_bytes of $shape: $io, want $want"
        awk -v f="$flops" -v i="$io" -v x="$inten" 'BEGIN { d = f / i - x; exit !(d < 1e-6 && d > -1e-6) }' ||
            fail "intensity of $shape: $inten, want $flops / $io"
done < <("$csvq" on/results.csv shape dtype flops io_bytes intensity check |
         awk -F'\t' '$1 == "128x128x128" && $6 == "pass"')
[ "$n128" -gt 0 ] || fail "no passed 128x128x128 row"

# --no-roofs: no probe, nothing judged, the context says so
"$bench" --suite matmul --sizes 64 --backend cpu-omp --reps 3 --no-plots --no-roofs --out off \
    >out.txt 2>err.txt || fail "the --no-roofs run failed: $(cat err.txt)"
grep -q 'measuring roofs' err.txt && fail "--no-roofs measured roofs"
grep -q '^# roofs: not measured (--no-roofs)$' off/results.csv || fail "no 'roofs: not measured' line"
grep -q '^# roof-' off/results.csv && fail "--no-roofs wrote roof lines"
n=$("$csvq" off/results.csv pct_roof verdict bound intensity | grep -c '[^[:space:]]')
[ "$n" -eq 0 ] || fail "--no-roofs: $n rows with a roof column filled"

# an emulated row: no roof, and its note says so
if "$bench" --emulate --info >/dev/null 2>&1; then
    "$bench" --emulate --suite matmul --sizes 64 --backend cpu-omp,cuda-tiled --mode host,resident --reps 1 \
        --no-plots --out emu >out.txt 2>err.txt || fail "the emulated run failed: $(cat err.txt)"
    "$csvq" emu/results.csv emulated check pct_roof verdict note | awk -F'\t' '$1 == 1 && $2 == "pass"' >emu.tsv
    [ -s emu.tsv ] || fail "no emulated row"
    awk -F'\t' '$3 != "" || $4 != "" || $5 !~ /emulated: no roof/' emu.tsv | grep -q . &&
        fail "an emulated row with a roof or without 'emulated: no roof': $(cat emu.tsv)"
    # nor an energy: the emulator's GPU is the CPU (energy_gpu.h)
    grep -q '^# energy-gpu: none: emulated: ' emu/results.csv ||
        fail "no 'energy-gpu: none: emulated' line: $(grep energy emu/results.csv)"
    # the emulator's timings are never a roof: no GPU roof lines
    grep -q '^# roof-gpu-' emu/results.csv && fail "an emulated run wrote GPU roof lines"
    # the transfer suite's copies (their own modes) alone: no roof at all, and why
    "$bench" --emulate --suite transfer --sizes 1MiB --reps 1 --no-plots --out emut \
        >out.txt 2>err.txt || fail "the emulated transfer run failed: $(cat err.txt)"
    grep -q '^# roof-' emut/results.csv && fail "an emulated transfer run wrote roof lines"
    grep -q '^# roofs: not measured (.*emulated' emut/results.csv ||
        fail "no 'roofs: not measured (... emulated ...)' line: $(grep roofs emut/results.csv)"
    "$csvq" emut/results.csv emulated check pct_roof verdict bound note |
        awk -F'\t' '$1 == 1 && $2 == "pass"' >emut.tsv
    copies=$("$csvq" emut/results.csv emulated check | awk -F'\t' '$1 == 1 && $2 == "pass"' | wc -l)
    [ "$copies" -gt 0 ] || fail "no emulated copy row"
    unroofed=$(awk -F'\t' '$3 == "" && $4 == "" && $5 == "" && $6 ~ /emulated: no roof/' emut.tsv | wc -l)
    [ "$unroofed" -eq "$copies" ] || fail "$unroofed of $copies emulated copies say 'emulated: no roof'"
fi

# energy: this machine's source (or why none) in the context and the findings;
# a fake powercap tree (BENCH_POWERCAP_ROOT) is named, and its counters, which
# never move, give no energy_j: empty, never 0
"$csvq" on/results.csv energy_j gflops_per_w samples_per_j device_kind | awk -F'\t' '
  ($4 != "cpu" && ($1 != "" || $2 != "")) || $1 == "0" || ($1 != "" && !($1 > 0)) { bad++ }
  END { exit bad > 0 }' || fail "energy columns: a GPU row with energy, or a 0"
src=$(sed -n 's/^# energy-cpu: //p' on/results.csv)
[ -n "$src" ] && grep -qF -- "- Energy (CPU): $src" on/report.md ||
    fail "the energy source '$src' is not in the findings: $(grep -i energy on/report.md)"
mkdir -p rapl/intel-rapl:0 rapl/intel-rapl:1
for z in 0 1; do
  echo 1000 > rapl/intel-rapl:$z/energy_uj; echo 262143328850 > rapl/intel-rapl:$z/max_energy_range_uj
  echo package-$z > rapl/intel-rapl:$z/name
done
BENCH_POWERCAP_ROOT=$PWD/rapl BENCH_NO_ROOFS=1 "$bench" --suite matmul --sizes 32 --backend cpu-omp --reps 3 \
    --no-plots --out fake >out.txt 2>err.txt || fail "the fake-powercap run failed: $(cat err.txt)"
grep -q '^# energy-cpu: powercap RAPL, the packages (package-0, package-1)' fake/results.csv ||
    fail "the fake tree is not the source: $(grep energy fake/results.csv)"
[ -z "$("$csvq" fake/results.csv energy_j | sort -u)" ] || fail "a counter that never moved gave energy_j"
grep -q 'Energy (CPU): powercap RAPL.*no row got a reading' out.txt || fail "findings: $(grep -i energy out.txt)"
test_end cli.roofs
