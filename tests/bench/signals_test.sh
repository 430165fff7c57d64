#!/usr/bin/env bash
# tests/bench/signals_test.sh BENCH CSVQ - every signal that ends a process by
# default ends a run the way SIGINT does (README, "Files"): whole rows stay,
# the CSV records "# interrupted: SIGNAME", report.md is written and marked
# interrupted, one line on stderr, exit 128 + n. Each block failed before its
# fix (SIGHUP, SIGPIPE, ... killed the run with no report):
#  - every caught signal, one run each;
#  - `bench ... | head -1`: a closed stdout never costs the report;
#  - the first Ctrl-C during a long call says at once what it waits for, and a
#    second one quits at once;
#  - the kernel's SIGXFSZ (a file size limit) stays a write error (exit 1).
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin
whole_rows() { # the file ends with a newline and every row parses
  [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] && "$csvq" "$1" suite >/dev/null
}
# ten cases of at least 0.3 s each (cpu-naive, one thread, far below the rep cap)
slow=(--suite matmul --sizes 64,80,96,112,128,144,160,176,192,208 --backend cpu-naive --threads 1
      --min-time 0.3 --no-plots)

# waits (at most 10 s) until DIR/results.csv holds N rows
wait_rows() {
  local n
  for _ in $(seq 100); do
    n=$(grep -vc "^#" "$1/results.csv" 2>/dev/null)
    [ "${n:-0}" -gt "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# the real-time ones by number: bash names SIGRTMIN+n differently past the middle
rtmin=$(kill -l RTMIN)
for sig in HUP INT QUIT TERM USR1 USR2 ALRM XCPU XFSZ PIPE VTALRM PROF IO PWR STKFLT RTMIN RTMIN+3 RTMAX; do
  num=$(kill -l "$sig")
  case "$sig" in RTMIN) ;; RTM*) sig=RTMIN+$((num - rtmin)) ;; esac
  "$bench" "${slow[@]}" --out "s$sig" >"s$sig.out" 2>"s$sig.err" &
  pid=$!
  wait_rows "s$sig" 2 || fail "SIG$sig: the run wrote no rows"
  kill -s "$num" "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -eq $((128 + num)) ] || fail "SIG$sig: exit $rc, want $((128 + num))"
  whole_rows "s$sig/results.csv" || fail "SIG$sig left a torn CSV"
  grep -q "^# interrupted: SIG$sig\$" "s$sig/results.csv" || fail "SIG$sig: the CSV does not record it"
  rows=$("$csvq" "s$sig/results.csv" suite | grep -c .)
  grep -q "^# finished: $rows rows\$" "s$sig/results.csv" || fail "SIG$sig: no '# finished: $rows rows'"
  [ "$rows" -lt 10 ] || fail "SIG$sig: the run went on to the end ($rows rows)"
  grep -q "Interrupted.*SIG$sig" "s$sig/report.md" || fail "SIG$sig: report.md not marked interrupted"
  grep -q "interrupted by SIG$sig: $rows finished rows kept in s$sig" "s$sig.err" \
    || fail "SIG$sig: stderr: $(cat "s$sig.err")"
  [ -s "s$sig.out" ] || fail "SIG$sig: no summary on stdout"
done

# nohup: an ignored SIGHUP stays ignored, and the run goes to its end
nohup "$bench" --suite matmul --sizes 48,56,64 --backend cpu-blas --min-time 0.2 --no-plots \
  --out nohup >nohup.out 2>&1 &
pid=$!
wait_rows nohup 0
kill -HUP "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "nohup: SIGHUP ended the run: exit $rc"
grep -q '^# finished: 3 rows$' nohup/results.csv || fail "nohup: the run did not finish"

# a closed stdout (stderr too): every row, the report, exit 141 (SIGPIPE);
# `true` closes the pipe before bench writes to it (head -1 races the summary)
"$bench" --suite matmul --sizes 48,64 --backend cpu-blas,cpu-omp --reps 2 --out pipe 2>&1 | true
rc=${PIPESTATUS[0]}
[ "$rc" -eq 141 ] || fail "| true: exit $rc, want 141"
[ -s pipe/report.md ] || fail "a closed stdout cost the report"
ls pipe/plots/*.png >/dev/null 2>&1 || fail "a closed stdout cost the charts"
grep -q '^# finished: 4 rows$' pipe/results.csv || fail "a closed stdout: the CSV did not record its end"
grep -q 'Interrupted' pipe/report.md && fail "a closed stdout after the last row marked the report interrupted"
# SIGPIPE ignored by the parent: the same, from EPIPE
(trap '' PIPE; "$bench" --suite matmul --sizes 48 --backend cpu-blas --reps 2 --out epipe 2>/dev/null | true
 exit "${PIPESTATUS[0]}")
rc=$?
[ "$rc" -eq 141 ] || fail "EPIPE on stdout: exit $rc, want 141"
[ -s epipe/report.md ] || fail "EPIPE on stdout cost the report"

# the first SIGINT during a long call (cpu-naive 2048^3, ~40 s) says within a
# second what it waits for. Preparing the case stops at once on a signal, so
# the signal must land in the call itself: tried after 1.5, 3 and 5 s.
for delay in 1.5 3 5; do
  rm -rf long
  "$bench" --suite matmul --sizes 2048 --backend cpu-naive --reps 1 --threads 1 --no-plots \
    --out long >/dev/null 2>long.err &
  pid=$!
  for _ in $(seq 50); do [ -s long/results.csv ] && break; sleep 0.1; done
  sleep "$delay"
  kill -INT "$pid"
  for _ in $(seq 30); do grep -q "SIGINT received" long.err && break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && break # still in the call: the notice is due
  wait "$pid"
done
grep -q "SIGINT received while running matmul 2048x2048x2048 cpu-naive.*send it again to quit at once" \
  long.err || fail "the first SIGINT said nothing within 3 s: $(cat long.err)"
kill -0 "$pid" 2>/dev/null || fail "the long call never outlived its SIGINT: this check saw nothing"
# the second quits at once
t0=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" -eq 130 ] || fail "second SIGINT: exit $rc, want 130"
[ "$ms" -lt 2000 ] || fail "second SIGINT took $ms ms to quit"
whole_rows long/results.csv || fail "second SIGINT left a torn CSV"

# a signal while the run draws its charts costs the charts left, never
# report.md: a gnuplot first on PATH that waits until told (10 s at most)
if real_gnuplot=$(command -v gnuplot); then
  mkdir slowbin gp
  printf '#!/bin/sh\n: >"%s/gp/waiting"\ni=0; while [ ! -e "%s/gp/go" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\nexec "%s" "$@"\n' \
    "$work" "$work" "$real_gnuplot" >slowbin/gnuplot
  chmod +x slowbin/gnuplot
  PATH="$work/slowbin:$PATH" "$bench" --suite matmul --sizes 48 --backend cpu-blas --reps 2 --out charts \
    >/dev/null 2>charts.err &
  pid=$!
  for _ in $(seq 100); do [ -e gp/waiting ] && break; sleep 0.1; done
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  touch gp/go
  [ "$rc" -eq 143 ] || fail "SIGTERM during the charts: exit $rc, want 143"
  [ -s charts/report.md ] || fail "SIGTERM during the charts cost report.md"
  grep -q '^# finished: 1 rows$' charts/results.csv || fail "SIGTERM during the charts: the CSV lost its end"
  grep -q "interrupted by SIGTERM while writing the report: all 1 rows are in" charts.err \
    || fail "SIGTERM during the charts: $(cat charts.err)"
else
  echo "cli.signals: gnuplot not found: the charts block skipped"
fi

# the kernel's SIGXFSZ (a size limit of ours) stays a write error: exit 1
out=$( (ulimit -f 4; "$bench" --suite matmul --sizes 48,56,64,72,80,88,96,104,112,120 --backend cpu-blas,cpu-omp --reps 2 \
        --no-plots --out fsz) 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 1 ] || fail "a file size limit: exit $rc, want 1: $out"
printf '%s' "$out" | grep -q "File too large" || fail "a file size limit: not named: $out"
whole_rows fsz/results.csv || fail "a file size limit left a torn CSV"

test_end cli.signals
