#!/usr/bin/env bash
# tests/bench/neighbour_test.sh BENCH CSVQ - --neighbour busy end to end
# (harness/neighbour.c, the measure loop's second measurement, the
# neighbour_x column and its findings line). Bad values exit 2 with one line
# before any work; a run beside the busy child fills neighbour_x on its
# timed rows only (skipped GPU rows keep it empty) and says so in the
# findings; the child runs at nice 19 while bench measures beside it and is
# gone when bench exits, also when bench is ended by SIGTERM (exit 143) or
# SIGKILL. No timing asserted: only that the ratio exists. (Without
# --neighbour: no child and no ratio, unit.harness.neighbour.)
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$here/testlib.sh"
test_begin
. "$here/expect_usage.sh"

for bad in idle BUSY "" busy,busy; do
  expect_usage "bad --neighbour '$bad' (want busy)" --suite matmul --neighbour "$bad"
done
expect_usage "--neighbour" --plot somewhere --neighbour busy

# The busy children of $1 into KIDS, as "pid nice": forked copies of bench
# leading their own process group (not the commands bench runs to read the
# machine; bench lowers the child to nice 19 before it leads its group),
# read from /proc with builtins only: no fork, so a poll is quick even on a
# loaded machine, and a measurement beside the child is short.
busy_kids() { # PID
  local k stat f ks st
  KIDS=()
  for f in /proc/"$1"/task/*/children; do
    read -r -a ks 2>/dev/null <"$f" || true
    for k in "${ks[@]}"; do
      read -r stat 2>/dev/null <"/proc/$k/stat" || continue
      [[ "$stat" == "$k (bench) "* ]] || continue
      stat=${stat##*) }
      read -r -a st <<<"$stat" # fields 3.. of stat: st[2] the group, st[16] the nice
      [ "${st[2]}" = "$k" ] && KIDS+=("$k ${st[16]}")
    done
  done
}
# Every busy kid of $1 seen until it exits, each once, into kids.txt; the
# most seen at once into most.txt.
watch_kids() {
  local kn most=0 seen=" "
  while kill -0 "$1" 2>/dev/null; do
    busy_kids "$1"
    [ "${#KIDS[@]}" -gt "$most" ] && most=${#KIDS[@]}
    for kn in "${KIDS[@]}"; do
      [[ "$seen" == *" $kn,"* ]] || seen="$seen$kn, "
    done
  done
  printf '%s\n' "$seen" | tr ',' '\n' | sed 's/^ *//; /^$/d' >kids.txt
  echo "$most" >most.txt
}

# 1. every backend of matmul at one size: CPU rows timed beside the child,
# GPU rows skipped here (no usable GPU) or timed (one is there)
args=(--suite matmul --threads 1 --no-plots --no-roofs)
"$bench" "${args[@]}" --sizes 48 --min-time 0.05 --neighbour busy --out beside >beside.txt 2>&1 &
pid=$!
watch_kids "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "the run beside the busy child exited $rc: $(tail -3 beside.txt)"
"$csvq" beside/results.csv backend check emulated neighbour_x >rows.txt
timed=$(awk -F'\t' '$2 == "pass" && $3 == 0' rows.txt | wc -l)
cpu_rows=$("$csvq" beside/results.csv device_kind check | grep -c "^cpu	pass$")
[ "$cpu_rows" -ge 2 ] || fail "want the CPU backends timed, got $cpu_rows rows: $(cat rows.txt)"
awk -F'\t' '$2 == "pass" && $3 == 0 && !($4 > 0)' rows.txt | grep -q . &&
  fail "a timed row without neighbour_x: $(cat rows.txt)"
awk -F'\t' '($2 != "pass" || $3 != 0) && $4 != ""' rows.txt | grep -q . &&
  fail "a row not timed with neighbour_x: $(cat rows.txt)"
[ "$(wc -l <rows.txt)" -gt "$timed" ] || echo "neighbour_test: every row was timed (a GPU is here): no skipped row to check"
# the findings line names every timed backend, in stdout and report.md
line=$(grep '^  Beside a nice -n 19 busy loop (--neighbour busy' beside.txt)
for b in $(awk -F'\t' '$2 == "pass" && $3 == 0 { print $1 }' rows.txt | sort -u); do
  printf '%s' "$line" | grep -q " $b worst [0-9.]*x (matmul 48x48x48), [0-9.]*x over 1 row" ||
    fail "the findings line lacks $b: '$line'"
done
grep -q '^- Beside a nice -n 19 busy loop' beside/report.md || fail "report.md has no neighbour line"
# the child: one at a time (one per timed row), at nice 19, gone now
n_kids=$(cut -d' ' -f1 kids.txt | sort -u | wc -l)
[ "$n_kids" -ge 1 ] || fail "no child was seen during the run"
awk '$2 != 19' kids.txt | grep -q . && fail "a child not at nice 19: $(cat kids.txt)"
[ "$n_kids" -le "$timed" ] || fail "$n_kids children seen for $timed timed rows"
[ "$(cat most.txt)" -eq 1 ] || fail "$(cat most.txt) children at once: want one, for one measurement"
none_left $(cut -d' ' -f1 kids.txt | sort -u)

# 2. bench ended while it measures beside the child: the child goes too
# (cpu-naive at 96: a rep of about a millisecond, so 0.1 s of them is not cut
# short by the repetition cap)
for sig in TERM KILL; do
  "$bench" "${args[@]}" --min-time 0.1 --sizes 96,80 --backend cpu-naive --neighbour busy \
    --out "$sig" >"$sig.txt" 2>&1 &
  pid=$!
  kid=""
  end=$((SECONDS + 8))
  while [ -z "$kid" ] && [ "$SECONDS" -lt "$end" ] && kill -0 "$pid" 2>/dev/null; do
    busy_kids "$pid"
    [ "${#KIDS[@]}" -gt 0 ] && kid=${KIDS[0]%% *}
  done
  if [ -z "$kid" ]; then
    fail "SIG$sig: no child seen while bench ran (8 s at most)"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    continue
  fi
  kill -"$sig" "$pid"
  wait "$pid" 2>/dev/null
  rc=$?
  [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig to bench: exit $rc"
  none_left $kid
done
test_end neighbour_test
