#!/usr/bin/env bash
# tests/bench/plot_test.sh BENCH CSVQ - bench --plot DIR writes into DIR, so
# it behaves as a writer (README, "Files": bench --plot DIR is DIR's writer). Each block failed before its fix:
#  - B3: a folder a run is still writing is refused naming the run's pid, and
#    nothing in it is touched;
#  - B4: links planted at report.md, plots/, a chart, a .dat name and a --json
#    inside DIR are refused (exit 2, one line naming the link); what they name
#    keeps its content;
#  - B6: two --plot of one folder at once: the second is refused naming the
#    first's pid; the charts and report then equal a single --plot's;
#  - B8, B9: SIGTERM, SIGINT to the process group (Ctrl-C, gnuplot killed too)
#    and SIGHUP while a chart is drawn: one line, exit 128 + N, the charts drawn
#    before and the one in progress keep their files, no temporaries;
#  - B16: a full disk (tmpfs, as root) or a file size limit: one line naming
#    the reason, no further chart tried, the earlier charts kept;
#  - a run that did not record its end: "possibly incomplete", never "All N
#    checks passed";
#  - exit 2 leaves no .bench.lock (nor a folder) behind.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin
real_gnuplot=$(command -v gnuplot) || { echo "cli.plot: gnuplot not found: skipped"; exit 77; }

# One finished run; every count below comes from its files.
"$bench" --suite matmul --sizes 48 --backend cpu-blas,cpu-omp --out run >/dev/null 2>&1 || fail "the finished run"
rows=$("$csvq" run/results.csv check | wc -l)
checks=$("$csvq" run/results.csv check | grep -cv '^skip$')
grep -q "^# finished: $rows rows\$" run/results.csv || fail "a finished run does not record its end"
charts=$(find run/plots -name '*.png' | wc -l)
[ "$charts" -ge 3 ] || fail "the run drew $charts charts; the tests below want at least 3"
# the drawing order: report.md lists the charts as they are drawn
order=($(grep -o 'plots/[a-z-]*\.png' run/report.md | sed 's,plots/,,'))
[ "${#order[@]}" -eq "$charts" ] || fail "report.md lists ${#order[@]} charts, plots/ holds $charts"
first=${order[0]}

copy() { rm -rf "$1" && cp -a run "$1" && rm -f "$1/.bench.lock"; } # the run, as a folder with no lock
files() { (cd "$1" && find . -type f ! -name .bench.lock | sort | xargs md5sum); } # every file's content
inode() { stat -c %i "$1"; }
leftovers() { find "$1" \( -name '.bench-tmp*' -o -name '*.dat' -o -name '*.log' -o -name '.*.tmp.*' \) -print; }

# A single --plot: the reference the others are held to; a folder's lock file
# stays when there was one (the run's), and none is left when there was none.
copy ref
"$bench" --plot ref >ref.out 2>ref.err || fail "--plot of a finished run: $(cat ref.err)"
[ ! -e ref/.bench.lock ] || fail "--plot left a .bench.lock in a folder that had none"
[ -z "$(leftovers ref)" ] || fail "--plot left temporaries: $(leftovers ref)"
[ "$(files ref/plots)" = "$(files run/plots)" ] || fail "--plot of a finished run changed its charts"
grep -q "^\*\*All $checks checks passed\*\*" ref/report.md || fail "finished run: no 'All $checks checks passed'"
grep -q 'did not record its end' ref/report.md ref.err && fail "a finished run is called incomplete"
"$bench" --plot run >/dev/null 2>&1 && [ -e run/.bench.lock ] || fail "--plot removed the run's own lock file"

# A fake gnuplot first on PATH: the chart numbered SLOW_AT waits (10 s at
# most) for gp/go, so a signal or a second --plot lands while it is drawn.
mkdir slowbin
cat >slowbin/gnuplot <<EOF
#!/bin/sh
n=\$(( \$(cat "\$GP/n" 2>/dev/null || echo 0) + 1 )); echo "\$n" >"\$GP/n"
if [ "\$n" -eq "\${SLOW_AT:-0}" ]; then
  : >"\$GP/waiting"
  i=0; while [ ! -e "\$GP/go" ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec "$real_gnuplot" "\$@"
EOF
chmod +x slowbin/gnuplot
slow_plot() { # DIR: --plot DIR in the background, its 2nd chart waiting; sets pid
  rm -rf gp && mkdir gp
  GP=$work/gp SLOW_AT=2 PATH="$work/slowbin:$PATH" "$bench" --plot "$1" >"$1.out" 2>"$1.err" &
  pid=$!
  for _ in $(seq 100); do [ -e gp/waiting ] && break; sleep 0.1; done
  [ -e gp/waiting ] || fail "$1: the slow chart never started"
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# B3: a run still writing its folder: refused, naming its pid; nothing touched
"$bench" --suite matmul --sizes 64,96,128,160,192,224,256 --min-time 0.3 --out busy --no-plots \
  >/dev/null 2>&1 &
runpid=$!
for _ in $(seq 50); do [ -s busy/results.csv ] && break; sleep 0.1; done
before=$(ls -A busy)
out=$("$bench" --plot busy 2>&1 >/dev/null)
rc=$?
after=$(ls -A busy)
kill -TERM "$runpid" 2>/dev/null
wait "$runpid"
[ "$rc" -eq 2 ] || fail "--plot of a live run: exit $rc, want 2"
[ "$out" = "bench: --plot 'busy' is in use by a live bench run (pid $runpid); wait for it to finish" ] ||
  fail "--plot of a live run: $out"
[ "$after" = "$before" ] || fail "--plot of a live run touched its folder: $after"

# B4: links planted in the folder are never written through
echo precious >elsewhere.txt
mkdir userdir && echo precious >userdir/keep.png && cp run/plots/"$first" userdir/
echo precious >victim.png && echo precious >victim.dat && echo precious >victim.json
copy l1 && rm l1/report.md && ln -s ../elsewhere.txt l1/report.md
copy l2 && rm -r l2/plots && ln -s ../userdir l2/plots
copy l3 && rm l3/plots/"${order[1]}" && ln -s ../../victim.png l3/plots/"${order[1]}"
copy l4 && ln -s ../../victim.dat "l4/plots/${first%.png}.dat"
copy l5 && ln -s ../victim.json l5/results.json
for d in l1 l2 l3 l4 l5; do
  link=$(find "$d" -type l -printf '%P\n')
  json=()
  [ "$d" = l5 ] && json=(--json l5/results.json)
  out=$("$bench" --plot "$d" "${json[@]}" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -eq 2 ] || fail "$d: a link at $link: exit $rc, want 2"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -qF "'$d/$link' is a link" ||
    fail "$d: the message does not name the link $link: $out"
  [ ! -e "$d/.bench.lock" ] || fail "$d: exit 2 left a .bench.lock behind"
done
[ "$(cat elsewhere.txt victim.png victim.dat victim.json userdir/keep.png)" = "$(printf 'precious\n%.0s' 1 2 3 4 5)" ] ||
  fail "a file outside the run folder was written through a link"
cmp -s userdir/"$first" run/plots/"$first" && [ "$(ls userdir | wc -l)" -eq 2 ] || fail "the plots/ link's folder changed"

# B6: two --plot of one folder at once: the second is refused naming the first
copy two
slow_plot two
out=$("$bench" --plot two 2>&1 >/dev/null)
rc=$?
touch gp/go
wait "$pid" || fail "the first of two --plot: exit $?: $(cat two.err)"
[ "$rc" -eq 2 ] || fail "the second of two --plot: exit $rc, want 2"
[ "$out" = "bench: --plot 'two' is in use by a live bench run (pid $pid); wait for it to finish" ] ||
  fail "the second of two --plot: $out"
[ "$(files two)" = "$(files ref)" ] || fail "two --plot at once: the charts or report differ from one --plot's"
[ ! -e two/.bench.lock ] && [ -z "$(leftovers two)" ] || fail "two --plot left a lock or temporaries"

# B8, B9: a signal while the 2nd chart is drawn: the 1st is redrawn, every
# other chart and report.md keep their files, one line, exit 128 + N
interrupted() { # SIG NUMBER HOW: HOW is "pid" (bench alone) or "group" (Ctrl-C)
  local sig=$1 num=$2 how=$3 d=sig$1 t0 rc
  copy "$d"
  declare -A ino
  for f in "$d"/plots/* "$d"/report.md; do ino[$f]=$(inode "$f"); done
  if [ "$how" = group ]; then set -m; slow_plot "$d"; set +m; else slow_plot "$d"; fi
  t0=$(now_ms)
  if [ "$how" = group ]; then kill -"$sig" -- -"$pid"; else kill -"$sig" "$pid"; fi
  wait "$pid"
  rc=$?
  touch gp/go
  [ "$rc" -eq $((128 + num)) ] || fail "SIG$sig: exit $rc, want $((128 + num))"
  [ $(($(now_ms) - t0)) -lt 5000 ] || fail "SIG$sig: --plot went on drawing after the signal"
  [ "$(cat "$d.err")" = "bench: --plot interrupted by SIG$sig: 1 of $charts charts redrawn, report.md left as it was" ] ||
    fail "SIG$sig: stderr: $(cat "$d.err")"
  [ "$(files "$d")" = "$(files ref)" ] || fail "SIG$sig: a chart or report.md lost its content"
  for f in "${!ino[@]}"; do
    case "$f" in
      */"$first"|*/"${first%.png}.svg") [ "${ino[$f]}" != "$(inode "$f")" ] || fail "SIG$sig: $f not redrawn" ;;
      *) [ "${ino[$f]}" = "$(inode "$f")" ] || fail "SIG$sig: $f replaced after the signal" ;;
    esac
  done
  [ -z "$(leftovers "$d")" ] && [ ! -e "$d/.bench.lock" ] || fail "SIG$sig left: $(leftovers "$d") $(ls -A "$d")"
}
interrupted INT 2 group
# every other signal that ends a process by default (it ends the run as SIGINT does), sent to bench
for sig in TERM HUP QUIT USR1 USR2 ALRM XCPU XFSZ; do interrupted "$sig" "$(kill -l "$sig")" pid; done
# SIGPIPE (a closed stdout) costs no file: every chart is drawn, exit 141
copy pipe
slow_plot pipe
kill -PIPE "$pid"
touch gp/go
wait "$pid"
rc=$?
[ "$rc" -eq 141 ] || fail "SIGPIPE: exit $rc, want 141"
[ "$(files pipe)" = "$(files ref)" ] || fail "SIGPIPE: the charts or report.md differ from one --plot's"
grep -q "SIGPIPE received: the charts and report.md were still written" pipe.err || fail "SIGPIPE: $(cat pipe.err)"
rm -f gp/go

# B16: a full disk: one line naming the reason, no further chart tried, the
# earlier charts kept. A tmpfs as root; a file size limit anywhere.
disk_full() { # DIR ERR WANT: --plot DIR has failed with stderr in ERR; WANT: the reason
  [ "$(grep -c 'chart' "$2")" -eq 1 ] && grep -q "^bench: chart [a-z-]*: .*$3" "$2" ||
    fail "$1: want one chart line naming '$3': $(cat "$2")"
  grep -q 'gnuplot exit 0' "$2" && fail "$1: a full disk reported as a gnuplot failure"
  [ "$(cat "$1"/plots/*.png | md5sum)" = "$(cat run/plots/*.png | md5sum)" ] || fail "$1: an earlier chart was lost"
  [ -z "$(leftovers "$1")" ] || fail "$1 left temporaries: $(leftovers "$1")"
}
if [ "$(id -u)" -eq 0 ] && mkdir disk && mount -t tmpfs -o size=$(($(du -sk run | cut -f1) + 16))k tmpfs disk 2>/dev/null; then
  trap 'umount "$work/disk"; rm -rf "$work"' EXIT
  copy disk/r
  "$bench" --plot disk/r >/dev/null 2>disk.err
  rc=$?
  [ "$rc" -eq 1 ] || fail "full disk: exit $rc, want 1"
  disk_full disk/r disk.err "No space left on device"
  echo 0 >disk/r/.bench.lock # room for the lock, then none: the data files fail
  dd if=/dev/zero of=disk/fill bs=4096 >/dev/null 2>&1
  "$bench" --plot disk/r >/dev/null 2>disk2.err
  rc=$?
  [ "$rc" -eq 1 ] || fail "full disk, data files: exit $rc, want 1"
  disk_full disk/r disk2.err "No space left on device"
  umount disk && trap 'rm -rf "$work"' EXIT
else
  echo "cli.plot: tmpfs block skipped (needs root and mount)"
fi
copy lim
(ulimit -f 16; "$bench" --plot lim >/dev/null 2>lim.err)
rc=$?
[ "$rc" -eq 1 ] || fail "file size limit: exit $rc, want 1"
disk_full lim lim.err "File too large"

# A run killed before it could record its end: never "all checks passed"
copy cut && sed -i '/^# finished:/d' cut/results.csv
"$bench" --plot cut >/dev/null 2>cut.err || fail "--plot of an unended run: exit $?"
want="the run did not record its end (killed, or from an older bench): $rows rows, possibly incomplete"
[ "$(cat cut.err)" = "bench: cut/results.csv: $want" ] || fail "unended run: stderr: $(cat cut.err)"
grep -qF "$want" cut/report.md || fail "unended run: report.md does not say so"
grep -q 'All [0-9]* checks passed' cut/report.md && fail "unended run: report.md says all checks passed"

# exit 2 leaves nothing behind: no folder, no lock file
out=$("$bench" --plot nosuch 2>&1)
[ $? -eq 2 ] && [ ! -e nosuch ] || fail "--plot of a missing folder: $out"
mkdir bad && echo 'a,b' >bad/results.csv
"$bench" --plot bad >/dev/null 2>&1
[ $? -eq 2 ] && [ "$(ls -A bad)" = results.csv ] || fail "--plot of a bad CSV left: $(ls -A bad)"

test_end cli.plot
