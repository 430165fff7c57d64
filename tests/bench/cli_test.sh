#!/usr/bin/env bash
# tests/bench/cli_test.sh BENCH CSVQ - the bench CLI end to end:
#  - every kind of bad input exits 2 with one line naming the bad value, and
#    leaves no file behind;
#  - a quick run writes a CSV with the agreed columns, every check passing;
#  - a planted wrong result makes the run exit 1 with the row marked fail;
#  - an interrupted run keeps whole rows only.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
work=$(mktemp -d)
fix=$(mktemp -d)   # fixtures live outside the folder that must stay empty
trap 'rm -rf "$work" "$fix"' EXIT
cd "$work"
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }

. "$here/expect_usage.sh"   # expect_usage WORD ARGS...

expect_usage nosuch      --suite nosuch
expect_usage gpu-magic   --backend gpu-magic
expect_usage nosuch      --baseline nosuch
expect_usage "'0'"       --sizes 0
expect_usage "'-5'"      --sizes -5
expect_usage "'abc'"     --sizes abc
expect_usage "'4x4'"     --sizes 4x4
expect_usage "'2xx3'"    --sizes 2xx3
expect_usage 100000x100000x100000 --sizes 100000x100000x100000
expect_usage "512,,1024" --sizes 512,,1024
expect_usage "'4x4x4'"   --suite transfer --sizes 4x4x4
expect_usage "transfer: bytes" --suite transfer,matmul --sizes 64,zz9
expect_usage "matmul size '2xyz'" --suite transfer,matmul --sizes 64,2xyz
expect_usage "'hosted'"  --mode hosted
expect_usage "'cpu-naive'" --suite transfer --baseline cpu-naive
expect_usage "1000000"   --reps 1000001
expect_usage "4096"      --threads 4097
expect_usage "75%"       --suite matmul --backend cpu-blas --sizes 1x1x2147483647
expect_usage "'0'"       --reps 0
expect_usage "'-1'"      --threads -1
expect_usage "'x'"       --min-time x
expect_usage "--frobnicate" --frobnicate
expect_usage "--reps"    --reps
expect_usage /proc/nope  --suite matmul --out /proc/nope/run
expect_usage "1 to 1023 characters" --out "$(head -c 1100 /dev/zero | tr '\0' a)"
expect_usage "'nosuch'"  --list --suite nosuch
expect_usage "'a b'"     --suite matmul --sizes 48 --name "a b"
expect_usage "'-lab'"    --suite matmul --sizes 48 --name -lab
mkdir -p "$fix/ro" && chmod 555 "$fix/ro"
if [ "$(id -u)" -ne 0 ]; then expect_usage "$fix/ro/run" --out "$fix/ro/run"; fi
echo notadir > "$fix/plainfile"
expect_usage plainfile   --out "$fix/plainfile/run"
expect_usage plainfile   --suite matmul --json "$fix/plainfile/x.json"

# --list --suite narrows the listing to that suite
[ "$("$bench" --list --suite stream | grep -c '^  [a-z]')" -eq 1 ] || fail "--list --suite stream lists other suites"

# expected counts come from the registry (bench --list), never from literals
list=$("$bench" --list)
n_cpu=$(printf '%s\n' "$list" | awk '/^  [a-z]/ { s = $1 } s == "matmul" && $2 == "cpu" { n++ } END { print n + 0 }')
n_gpu=$(printf '%s\n' "$list" | awk '/^  [a-z]/ { s = $1 } s == "matmul" && $2 == "gpu" { n++ } END { print n + 0 }')
[ "$n_cpu" -ge 3 ] && [ "$n_gpu" -ge 1 ] || fail "bench --list: $n_cpu CPU and $n_gpu GPU matmul backends"

# a quick run: agreed columns, every check passing
"$bench" --suite matmul --quick --min-time 0.01 --out run1 --no-plots >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] || fail "quick run exited $rc: $(cat err.txt)"
want="suite,case,backend,mode,dtype,shape,threads,reps,median_ms,min_ms,max_ms,mad_ms,gflops,gbps,baseline,speedup,max_abs_err,rel_err,tolerance,check,device,emulated"
header=$(grep -v '^#' run1/results.csv | head -1)
[ "${header#"$want"}" != "$header" ] || fail "header does not start with the agreed columns: $header"
grep -q '^# cpu: ' run1/results.csv || fail "no cpu context line"
grep -q '^# command: ' run1/results.csv || fail "no command context line"
cases=$("$csvq" run1/results.csv case device_kind | awk -F'\t' '$2 == "cpu" { c[$1] = 1 } END { print length(c) }')
passed=$("$csvq" run1/results.csv device_kind check | grep -c "^cpu	pass$")
[ "$cases" -ge 3 ] && [ "$passed" -eq $((cases * n_cpu)) ] \
  || fail "want $cases cases x $n_cpu CPU backends passing, got $passed"
grep -v '^#' run1/results.csv | tail -n +2 | grep -E ',fail,' && fail "a row failed"
# every row names its machine (host/class by default) and its workload key
"$csvq" run1/results.csv suite shape dtype mode threads replicas workload machine | awk -F'\t' -v m="$(sed -n 's/^# machine: //p' run1/results.csv)" '
  { want = $1 "@1/" $2 "/" $3 "/" $4 "/t" $5 "/x" ($6 > 0 ? $6 : 1) }
  $7 != want || $8 != m || m !~ /\// { bad++; print "row " NR ": " $7 " / " $8 " (want " want " / " m ")" }
  END { exit bad > 0 }' >&2 || fail "workload or machine columns"
"$bench" --suite matmul --sizes 48 --backend cpu-omp --min-time 0.01 --no-plots --no-roofs --name lab-1 --out named >/dev/null 2>&1
[ "$("$csvq" named/results.csv machine | sort -u)" = lab-1 ] && grep -qx '# machine: lab-1' named/results.csv \
  || fail "--name lab-1: $("$csvq" named/results.csv machine | sort -u)"
# GPU rows: with no usable GPU, one skip row per GPU backend saying why, exit 0
gpu_rows=$("$csvq" run1/results.csv device_kind | grep -c '^gpu$')
if grep -q '^# gpu: none' run1/results.csv; then
  [ "$gpu_rows" -eq "$n_gpu" ] || fail "want one skip row per GPU backend ($n_gpu), got $gpu_rows"
  [ "$("$csvq" run1/results.csv device_kind check note | grep -c '^gpu	skip	no usable GPU: ')" -eq "$n_gpu" ] \
    || fail "GPU skip rows do not say why"
  grep -q 'GPU cases skipped: ' err.txt || fail "no one-line reason on stderr: $(cat err.txt)"
fi
# stdout: the short summary (a line per suite, the count), not every row
grep -q '^summary (' out.txt && grep -q '^  matmul (' out.txt || fail "no summary on stdout: $(head -5 out.txt)"
rows=$(grep -vc '^#' run1/results.csv)
grep -q "^$((rows - 1)) rows: " out.txt || fail "no row count on stdout: $(tail -2 out.txt)"
grep -q '^matmul  *square-' out.txt && fail "stdout lists every row without --verbose"
[ "$(wc -l <out.txt)" -le 40 ] || fail "a quick matmul summary of $(wc -l <out.txt) lines"
# --verbose: every row too, as a table
"$bench" --suite matmul --sizes 32,48 --backend cpu-omp,cpu-blas --reps 2 --out runv --no-plots --verbose \
  >outv.txt 2>&1 || fail "--verbose run exited $?: $(tail -3 outv.txt)"
[ "$(grep -c '^matmul  *square-\(32\|48\)  *32x32x32\|^matmul  *square-\(32\|48\)  *48x48x48' outv.txt)" -eq \
  "$(($(grep -vc '^#' runv/results.csv) - 1))" ] || fail "--verbose: want a line per row: $(cat outv.txt)"

# the same run with a planted wrong result: exit 1, that row fails, others pass
BENCH_PLANT_FAULT=cpu-omp "$bench" --suite matmul --sizes 33x17x9 --out run2 --no-plots >out2.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "planted fault: exit $rc, want 1"
# failed checks are listed on stdout without --verbose, with their re-run command
grep -q '^  FAIL matmul 33x17x9 cpu-omp host fp32: ' out2.txt && grep -q 're-run: .*--backend cpu-omp' out2.txt \
  || fail "planted fault: not listed on stdout: $(cat out2.txt)"
grep -q '^matmul,.*,cpu-omp,.*,fail,' run2/results.csv || fail "planted fault: cpu-omp row not marked fail"
[ "$(grep -c ',pass,' run2/results.csv)" -eq $((n_cpu - 1)) ] || fail "planted fault: other rows should pass"

# every row's repro re-runs exactly that case
repro=$("$csvq" run2/results.csv backend repro | awk -F'\t' '$1 == "cpu-blas" { print $2 }')
case "$repro" in "bench --suite matmul --sizes 33x17x9 --backend cpu-blas --dtype fp32 --mode host --threads "*) ;;
  *) fail "repro of cpu-blas: '$repro'" ;; esac
# shellcheck disable=SC2086
"$bench" ${repro#bench } --out run5 --no-plots >/dev/null 2>&1 || fail "repro run failed: $repro"
[ "$("$csvq" run5/results.csv suite case backend mode shape | sort -u)" = \
  "$("$csvq" run2/results.csv suite case backend mode shape | grep cpu-blas)" ] \
  || fail "repro did not re-run exactly its row"

# --mode selects modes: host alone gives CPU rows only; --baseline changes the reference
"$bench" --suite matmul --sizes 16 --mode host --baseline cpu-naive --out run6 --no-plots >/dev/null 2>&1 \
  || fail "--mode host run failed"
[ "$("$csvq" run6/results.csv mode | sort -u)" = host ] || fail "--mode host ran other modes"
[ "$("$csvq" run6/results.csv backend baseline speedup | awk -F'\t' '$1 == "cpu-naive" { print $2, $3 }')" = "cpu-naive 1" ] \
  || fail "--baseline cpu-naive: the baseline row's speedup is not 1"
[ "$("$csvq" run6/results.csv backend | head -1)" = cpu-naive ] || fail "the baseline does not run first"

# --reps N takes exactly N samples, whatever the time rules
"$bench" --suite matmul --sizes 8 --backend cpu-naive --reps 7 --out run4 --no-plots >/dev/null 2>&1 \
  || fail "--reps run failed"
[ "$("$csvq" run4/results.csv reps)" = 7 ] || fail "--reps 7 gave $("$csvq" run4/results.csv reps) samples"
[ "$("$csvq" run4/results.csv samples_ms | tr ';' '\n' | wc -l)" -eq 7 ] || fail "7 samples kept"

# an interrupted run keeps its finished rows, none torn
"$bench" --suite matmul --sizes 64,96,128,160,192,224,256,288,320,352,384 --min-time 0.3 \
  --out run3 --no-plots >/dev/null 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
[ -s run3/results.csv ] || fail "interrupted run left no CSV"
[ "$(tail -c 1 run3/results.csv | od -An -c | tr -d ' ')" = '\n' ] || fail "interrupted run left a torn row"
done_rows=$(grep -vc '^#' run3/results.csv)
[ "$done_rows" -ge 2 ] || fail "interrupted run kept no finished row"
ncols=$("$bench" --columns | grep -c '^| `')
awk -F, -v n="$ncols" '!/^#/ && NF < n { bad = 1 } END { exit bad }' run3/results.csv || fail "a short row after interrupt"

echo "cli: $fails failed"
[ "$fails" -eq 0 ]
