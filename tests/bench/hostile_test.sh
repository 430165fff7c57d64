#!/usr/bin/env bash
# tests/bench/hostile_test.sh BENCH CSVQ - bench under hostile conditions: nothing
# lost, nothing damaged. Each block failed before its fix:
#  - --json through a link replaces the file it names, never the link; a FIFO
#    and (as root) /dev/null are written through, never replaced;
#  - two runs into one folder: the second is refused naming the first's pid;
#  - default run folders never collide: a taken name gets the next suffix;
#  - a non-empty --out (results/latest included) is refused; --force replaces
#    the earlier run's files (its charts too) and keeps results/latest sane;
#  - SIGINT / SIGTERM: the finished rows, a report marked interrupted, one
#    line, exit 130 / 143;
#  - a full disk (a file size limit): exit 1 naming the file and the errno
#    text, whole rows only;
#  - OMP_NUM_THREADS over the cap, a --device that does not exist, a --json
#    that cannot be made, an --out gnuplot cannot open: exit 2, one line,
#    before any work.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin
small=(--suite matmul --sizes 48 --backend cpu-blas,cpu-omp --no-plots)
whole_rows() { # the file ends with a newline and every row parses
  [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] && "$csvq" "$1" suite >/dev/null
}

# --json: links, FIFOs, devices
echo old > real.json
ln -s real.json link.json
"$bench" "${small[@]}" --out j1 --json link.json >/dev/null 2>&1 || fail "--json through a link"
[ -L link.json ] || fail "--json replaced the link itself"
grep -q '"benchmarks"' real.json || fail "--json did not write the file the link names"
mkfifo pipe.json
cat pipe.json > fifo.out &
"$bench" "${small[@]}" --out j2 --json pipe.json >/dev/null 2>&1 || fail "--json to a FIFO"
wait
[ -p pipe.json ] || fail "--json replaced the FIFO"
grep -q '"benchmarks"' fifo.out || fail "--json did not write through the FIFO"
if [ "$(id -u)" -eq 0 ]; then
  "$bench" "${small[@]}" --out j3 --json /dev/null >/dev/null 2>&1 || fail "--json /dev/null"
  [ -c /dev/null ] || fail "--json /dev/null is no longer a character device"
fi

# /dev/stdout (and /dev/fd/N) is the descriptor itself: a redirected log keeps its lines
printf 'line1\nline2\n' > run.log
"$bench" "${small[@]}" --out j4 --json /dev/stdout >>run.log 2>/dev/null || fail "--json /dev/stdout"
[ "$(head -2 run.log)" = "$(printf 'line1\nline2')" ] || fail "--json /dev/stdout replaced the log it was redirected to"
grep -q '"benchmarks"' run.log || fail "--json /dev/stdout wrote no JSON"
# --json never names the run's own files
mkdir own
out=$("$bench" "${small[@]}" --out own --json own/results.csv 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "run's own files" || fail "--json over the run's CSV: $out"
out=$("$bench" "${small[@]}" --out own2 --json own2 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "--json naming the run folder: $out"

# a planted .bench.lock link, a plots/ link, a folder that is not a run: nothing outside is touched
mkdir trap1 victimdir && echo precious > victim.txt && echo precious > victimdir/keep.png
ln -s "$work/victim.txt" trap1/.bench.lock
"$bench" "${small[@]}" --out trap1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "a .bench.lock link was not refused"
[ "$(cat victim.txt)" = precious ] || fail "the lock was written through a link"
"$bench" "${small[@]}" --out trap2 >/dev/null 2>&1 || fail "a run for trap2"
rm -rf trap2/plots && ln -s "$work/victimdir" trap2/plots
"$bench" --suite matmul --sizes 48 --backend cpu-blas --out trap2 --force >/dev/null 2>&1
[ $? -eq 2 ] || fail "--force over a plots/ link was not refused"
[ -e victimdir/keep.png ] || fail "--force emptied the folder a plots/ link names"
mkdir -p foreign/plots && echo mine > foreign/plots/data.txt && echo mine > foreign/results.csv
"$bench" "${small[@]}" --out foreign --force >/dev/null 2>&1
[ $? -eq 2 ] || fail "--force on a folder that holds no bench run was not refused"
[ -e foreign/plots/data.txt ] && [ "$(cat foreign/results.csv)" = mine ] || fail "--force deleted a user's files"
# --force removes the earlier run's JSON too: two runs never mix
"$bench" "${small[@]}" --out mix --json mix/results.json >/dev/null 2>&1 || fail "a run with JSON"
"$bench" --suite matmul --sizes 40 --backend cpu-blas --out mix --force --no-plots >/dev/null 2>&1 || fail "--force"
[ ! -e mix/results.json ] || fail "--force kept the earlier run's results.json"

# two runs into one folder: the second is refused, naming the holder
"$bench" --suite matmul --sizes 64,96,128,160,192,224,256 --min-time 0.3 --out busy --no-plots \
  >/dev/null 2>&1 &
first=$!
for _ in $(seq 50); do [ -s busy/results.csv ] && break; sleep 0.1; done
out=$("$bench" "${small[@]}" --out busy --force 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 2 ] || fail "second run into a busy folder: exit $rc, want 2"
printf '%s' "$out" | grep -q "in use by another bench run (pid $first)" || fail "busy folder message: $out"
kill -TERM "$first"
wait "$first"
rc=$?
# SIGTERM: exit 143, whole rows, the report marked, the CSV records it
[ "$rc" -eq 143 ] || fail "SIGTERM: exit $rc, want 143"
whole_rows busy/results.csv || fail "SIGTERM left a torn CSV"
grep -q '^# interrupted: SIGTERM' busy/results.csv || fail "the CSV does not record the interruption"
grep -q 'Interrupted.*SIGTERM' busy/report.md || fail "report.md not marked interrupted"

# SIGINT: exit 130 and one line saying what was kept
"$bench" --suite matmul --sizes 64,96,128,160,192,224,256 --min-time 0.3 --out int --no-plots \
  >/dev/null 2>int.err &
pid=$!
for _ in $(seq 50); do n=$(grep -vc "^#" int/results.csv 2>/dev/null); [ "${n:-0}" -ge 3 ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, want 130"
grep -q 'interrupted by SIGINT: [0-9]* finished rows kept in int' int.err || fail "SIGINT line: $(cat int.err)"
whole_rows int/results.csv || fail "SIGINT left a torn CSV"
grep -q 'Interrupted' int/report.md || fail "SIGINT: report.md not marked interrupted"

# SIGTERM then SIGINT: the first signal is the one reported
"$bench" --suite matmul --sizes 64,96,128,160,192,224,256 --min-time 0.3 --out twice --no-plots \
  >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -s twice/results.csv ] && break; sleep 0.1; done
kill -TERM "$pid"
# SIGINT only once SIGTERM has left the pending set: two standard signals
# pending together are delivered lowest number first (SIGINT), whatever the
# order they were sent in, so on a busy machine "first" needs this wait
for _ in $(seq 100); do
  pend=$(awk '/^(SigPnd|ShdPnd):/ { print $2 }' "/proc/$pid/status" 2>/dev/null | paste -sd' ' -)
  [ -n "$pend" ] || break
  busy=0
  for m in $pend; do [ $(( 0x$m & 0x4000 )) -ne 0 ] && busy=1; done
  [ "$busy" -eq 0 ] && break
  sleep 0.05
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
# either the run reports SIGTERM (143), or the second signal ended it at once
# (130, by SIGINT's default action); never is SIGTERM reported as SIGINT
case "$rc" in 143|130) ;; *) fail "SIGTERM then SIGINT: exit $rc" ;; esac
grep -q 'interrupted: SIGINT' twice/results.csv && fail "SIGTERM then SIGINT reported as SIGINT"
whole_rows twice/results.csv || fail "SIGTERM then SIGINT left a torn CSV"

# default folders: a taken name (same second) gets the next suffix
mkdir results
now=$(date +%s)
for s in 0 1 2 3 4 5; do
  d=results/$(date -u -d "@$((now + s))" +%Y%m%dT%H%M%SZ)
  mkdir -p "$d" && echo keep > "$d/mine.txt"
done
"$bench" "${small[@]}" >/dev/null 2>&1 || fail "default run folder"
new=$(readlink results/latest)
case "$new" in *Z-[0-9]*) ;; *) fail "default run took a taken name: $new" ;; esac
[ "$(cat results/*/mine.txt | grep -c keep)" -eq 6 ] || fail "a taken run folder was touched"
[ -s "results/$new/results.csv" ] || fail "the suffixed run folder has no CSV"

# a non-empty --out is refused; results/latest is resolved, never written through
before=$(cat "results/$new/results.csv")
"$bench" "${small[@]}" --out results/latest >/dev/null 2>late.err
[ $? -eq 2 ] || fail "--out results/latest (an earlier run) should be refused"
grep -q 'not empty' late.err || fail "refusal message: $(cat late.err)"
[ "$(cat "results/$new/results.csv")" = "$before" ] || fail "the earlier run's CSV was changed"
# --force replaces that run: its old files go (charts too), latest stays a link to it
mkdir -p "results/$new/plots" && echo stale > "results/$new/plots/throughput-matmul.png"
"$bench" "${small[@]}" --out results/latest --force >/dev/null 2>&1 || fail "--force run"
[ -L results/latest ] && [ "$(readlink results/latest)" = "$new" ] || fail "latest: $(readlink results/latest)"
[ ! -e "results/$new/plots/throughput-matmul.png" ] || fail "--force kept the earlier run's chart"
grep -q 'throughput-matmul' "results/$new/report.md" && fail "the report shows the earlier run's chart"
[ "$(grep -vc '^#' "results/$new/results.csv")" -eq 3 ] || fail "--force: want the new run's rows only"

# a full disk: a file size limit stands in for it
(ulimit -f 12; "$bench" --suite matmul --sizes 16,24,32,40,48,56 --backend cpu-blas --out full \
  --no-plots >full.out 2>full.err)
rc=$?
[ "$rc" -eq 1 ] || fail "full disk: exit $rc, want 1"
grep -q "writing 'full/results.csv' failed: File too large" full.err || fail "full disk message: $(cat full.err)"
whole_rows full/results.csv || fail "full disk left a torn row"
kept=$(grep -vc '^#' full/results.csv)
grep -q "^$((kept - 1)) rows:" full.out || fail "the summary counts rows that were not written: $(tail -2 full.out)"

# charts under a size limit: a chart gnuplot could not finish is not kept
(ulimit -f 24; "$bench" --suite matmul --sizes 32,64 --backend cpu-blas,cpu-omp --reps 3 --out cut \
  >/dev/null 2>cut.err)
for f in cut/plots/*.png cut/plots/*.svg; do
  [ -e "$f" ] || continue
  case "$f" in
    *.png) tail -c 12 "$f" | od -An -c | grep -q 'I   E   N   D' || fail "a truncated chart was kept: $f" ;;
    *.svg) grep -q '</svg>' "$f" || fail "a truncated chart was kept: $f" ;;
  esac
done

# the threads column says what OpenBLAS really runs (its build may cap it)
"$bench" --suite matmul --sizes 32 --backend cpu-blas --threads 200 --reps 2 --out thr --no-plots \
  >/dev/null 2>thr.err || fail "--threads 200"
cap=$(sed -n 's/.*OpenBLAS runs at most \([0-9]*\) threads.*/\1/p' thr.err)
[ "$("$csvq" thr/results.csv threads)" = "${cap:-200}" ] || fail "cpu-blas threads column: $("$csvq" thr/results.csv threads), OpenBLAS runs ${cap:-200}"

# usage errors before any work: one line, exit 2, no folder made
expect_usage() { # WORD ARGS...
  local word=$1 out rc
  shift
  out=$("$@" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -eq 2 ] || fail "$* exited $rc, want 2"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "$*: want one line, got: $out"
  printf '%s' "$out" | grep -qF -- "$word" || fail "$*: message does not name '$word': $out"
  [ ! -e u ] || { fail "$* left a run folder"; rm -rf u; }
}
expect_usage "4096" env OMP_NUM_THREADS=100000 "$bench" "${small[@]}" --out u
expect_usage "4096" env OPENBLAS_NUM_THREADS=0 "$bench" "${small[@]}" --out u
expect_usage "/proc/x/y.json" "$bench" "${small[@]}" --out u --json /proc/x/y.json
expect_usage 'a\x0ab' "$bench" "${small[@]}" --out "$(printf 'a\nb')"
expect_usage "1000000" "$bench" "${small[@]}" --out u --reps 2000000
expect_usage "twice" "$bench" --suite matmul,matmul --sizes 48 --out u
expect_usage "runs none of the selected backends" "$bench" --suite matmul --sizes 48 --backend cuda-tiled --mode host --out u

test_end cli.hostile
