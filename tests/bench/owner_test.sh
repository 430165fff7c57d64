#!/usr/bin/env bash
# tests/bench/owner_test.sh BENCH CSVQ - a run's files are written only by that
# run; exit 2 leaves nothing behind; an option changes what happens or is
# refused (README, "Files": a run owns its folder; a run's files are written by that run alone; usage errors). Each block failed before its fix:
#  - B1/B2: --json naming a live or finished run's results.csv replaced it;
#  - --out or --dump inside another run's folder was accepted;
#  - B5/B27: a file named results/latest was deleted, a folder never updated,
#    without a word;
#  - B12/B13: refusals after the run folder was made left it (and its lock);
#  - B25/B26 and the rest of the usage errors: options given twice, or to an action
#    they do not apply to, were dropped silently;
#  - B20: an emulated row's repro left out CUDAEMU_DEVICES;
#  - B21: an empty OMP_NUM_THREADS ran with libgomp's warning only;
#  - a dump that failed on a full disk marked a passing row failed;
#  - OPENBLAS_NUM_THREADS was ignored without a word, and so were fewer usable
#    CPUs than threads (taskset).
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin
small=(--suite matmul --sizes 48 --backend cpu-blas --no-plots)
# usage ERRFILE: exit 2 and exactly one line on stderr, naming $2
usage() {
  local rc=$1 err=$2 want=$3
  [ "$rc" -eq 2 ] || { fail "exit $rc, want 2: $want: $(cat "$err")"; return; }
  [ "$(grep -c . "$err")" -eq 1 ] || fail "not one line: $want: $(cat "$err")"
  grep -q -- "$want" "$err" || fail "message does not say '$want': $(cat "$err")"
}
snapshot() { find "$@" -type f -printf '%p %s %T@\n' 2>/dev/null | sort; }

"$bench" "${small[@]}" --out r0 >/dev/null 2>&1 || fail "a finished run r0"
before=$(snapshot r0)

# B2: --json over a finished run's files (a run, and --plot of another folder)
"$bench" "${small[@]}" --out x1 --json r0/results.csv >/dev/null 2>e1; usage $? e1 "inside '$work/r0', the folder of an earlier bench run"
"$bench" "${small[@]}" --out x2 --json r0/new.json >/dev/null 2>e2; usage $? e2 "folder of an earlier bench run"
"$bench" "${small[@]}" --out x3 >/dev/null 2>&1 || fail "a finished run x3"
"$bench" --plot x3 --json r0/results.csv >/dev/null 2>e3; usage $? e3 "folder of an earlier bench run"
# --out and --dump inside another run's folder
"$bench" "${small[@]}" --out r0/sub >/dev/null 2>e4; usage $? e4 "--out 'r0/sub' is inside"
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --dump r0/d --out x5 \
  >/dev/null 2>e5; usage $? e5 "--dump 'r0/d' is inside"
# a descriptor open on another run's file, and --plot of a folder inside a run's
"$bench" "${small[@]}" --out x7 --json /dev/fd/3 3>>r0/results.csv >/dev/null 2>e17
usage $? e17 "the folder of an earlier bench run"
mkdir r0/inner && cp r0/results.csv r0/inner/
"$bench" --plot r0/inner >/dev/null 2>e18; usage $? e18 "--plot 'r0/inner' is inside"
[ ! -e r0/inner/report.md ] || fail "--plot wrote inside another run's folder"
rm -r r0/inner
[ "$(snapshot r0)" = "$before" ] || fail "r0 was changed by another invocation"
for d in x1 x2 x5 x7; do [ ! -e "$d" ] || fail "a refused run left $d behind"; done

# paths that reach r0 only once a missing folder is made ("nox/../r0")
"$bench" "${small[@]}" --out nox/../r0/new >/dev/null 2>e20; usage $? e20 "is inside '$work/r0'"
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --out x8 --dump nox3/../r0/d \
  >/dev/null 2>e21; usage $? e21 "is inside '$work/r0'"
lock_before=$(cat r0/.bench.lock)
"$bench" "${small[@]}" --out nox/../r0 >/dev/null 2>e22; usage $? e22 "r0"
[ "$(cat r0/.bench.lock)" = "$lock_before" ] || fail "a refused --out nox/../r0 rewrote r0's lock"
for d in nox nox3 x8; do [ ! -e "$d" ] || fail "a refused run left $d"; done
# the default results/ inside a run's folder
(cd r0 && "$bench" "${small[@]}" >/dev/null 2>../e23); usage $? e23 "the default run folder"
[ ! -e r0/results ] || fail "a default run wrote inside r0"
# --force that is refused touches nothing: a plots/ link, a report.md folder
cp -r r0 f1 && rm -f f1/.bench.lock && rm -rf f1/plots && mkdir f1dir && ln -s ../f1dir f1/plots
"$bench" "${small[@]}" --out f1 --force >/dev/null 2>e24; usage $? e24 "nothing was touched"
[ -s f1/results.csv ] && [ -s f1/report.md ] || fail "a refused --force deleted the earlier run's files"
cp -r r0 f2 && rm -f f2/.bench.lock f2/report.md && mkdir f2/report.md
"$bench" "${small[@]}" --out f2 --force >/dev/null 2>e25; usage $? e25 "nothing was touched"
[ -s f2/results.csv ] || fail "a refused --force (report.md a folder) deleted results.csv"
# FIFOs where a run folder's files would be: refused or run, never a hang
mkdir ff ff2 && mkfifo ff/.bench.lock ff2/results.csv
timeout 20 "$bench" "${small[@]}" --out ff/sub >/dev/null 2>e26; rc=$?
[ "$rc" -ne 124 ] || fail "a FIFO .bench.lock above --out hung the checks"
timeout 20 "$bench" "${small[@]}" --out ff2/sub >/dev/null 2>e27; rc=$?
[ "$rc" -ne 124 ] || fail "a FIFO results.csv above --out hung the checks"
timeout 20 "$bench" --plot ff >/dev/null 2>e28; rc=$?
[ "$rc" -ne 124 ] || fail "--plot of a folder with a FIFO lock hung"
# a --dump that cannot be made (/proc) is bad input: exit 2 before any work
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --out x9 --dump /proc/nope/d \
  >/dev/null 2>e29; usage $? e29 "--dump '/proc/nope/d' cannot be made"
[ ! -e x9 ] || fail "a refused --dump left x9"
# a closed stdout or stderr: nothing lands in the run's files
"$bench" "${small[@]}" --out closed1 >&- 2>/dev/null || fail "a run with stdout closed"
"$bench" "${small[@]}" --out closed2 2>&- >/dev/null || fail "a run with stderr closed"
for d in closed1 closed2; do
  grep -qx '[0-9]*' "$d/.bench.lock" || fail "$d/.bench.lock holds more than a pid: $(head -c 200 "$d/.bench.lock")"
done

# a hard link planted as a folder's .bench.lock: never written through
mkdir hl && ln r0/results.csv hl/.bench.lock
"$bench" "${small[@]}" --out hl >/dev/null 2>e30; usage $? e30 "has other names (a hard link)"
mkdir hl2 && cp r0/results.csv hl2/ && ln r0/report.md hl2/.bench.lock
"$bench" --plot hl2 >/dev/null 2>e31; [ $? -eq 2 ] || fail "--plot over a hard-linked lock: $(cat e31)"
rm -f hl/.bench.lock hl2/.bench.lock
# a --json name too long for its temporary: refused before any work
"$bench" "${small[@]}" --out x10 --json "$(printf 'j%.0s' $(seq 240))" >/dev/null 2>e32
usage $? e32 "the limit is 223"
[ ! -e x10 ] || fail "a refused --json name left x10"
# a working folder deeper than PATH_MAX: the folders above cannot be checked, so refused
long=$(printf 'c%.0s' $(seq 250))
(mkdir -p deep && cd deep && for _ in $(seq 17); do mkdir "$long" && cd "$long" || exit 1; done
 "$bench" "${small[@]}" --out r >/dev/null 2>/dev/null
 "$bench" "${small[@]}" --out o --json r/x.json >/dev/null 2>"$work/e33"; echo $? >"$work/rc33"
 [ ! -e r/x.json ] || echo "written" >"$work/w33")
[ "$(cat rc33)" -eq 2 ] || fail "a --json below PATH_MAX's reach: exit $(cat rc33): $(cat e33)"
[ ! -e w33 ] || fail "a --json below PATH_MAX's reach wrote into another run's folder"
rm -rf deep

# B1: a live run's CSV
"$bench" --suite matmul --sizes 64,96,128,160,192,224,256 --min-time 0.3 --out live --no-plots \
  >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -s live/results.csv ] && break; sleep 0.1; done
"$bench" "${small[@]}" --out x6 --json live/results.csv >/dev/null 2>e6
usage $? e6 "the folder of a live bench run (pid $pid)"
wait "$pid" || fail "the live run failed after another invocation named its CSV: exit $?"
"$csvq" live/results.csv suite >/dev/null || fail "the live run's CSV was damaged"

# B5/B27: results/latest that is not a link is left alone, and said so
mkdir results && echo mine > results/latest
"$bench" "${small[@]}" >/dev/null 2>e7 || fail "a run with results/latest a file"
[ "$(cat results/latest)" = mine ] || fail "B5: results/latest (a file) was replaced"
grep -q "results/latest is a file, not a link: left as it is" e7 || fail "B5: not said: $(cat e7)"
rm results/latest && mkdir results/latest && echo keep > results/latest/mine.txt
"$bench" "${small[@]}" >/dev/null 2>e8 || fail "a run with results/latest a folder"
grep -q "results/latest is a folder, not a link" e8 || fail "B27: not said: $(cat e8)"
[ "$(cat results/latest/mine.txt)" = keep ] || fail "B27: the folder results/latest was touched"
rm -rf results

# B12: --dump naming a dangling link, default run folder: nothing left
ln -s "$work/nowhere/x" dangling
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --dump dangling \
  >/dev/null 2>e9; usage $? e9 "--dump 'dangling' is a link to nothing usable"
[ ! -e results ] || fail "B12: a refused run left $(find results)"
# B13: --dump in use: neither the new --out folder nor a lock in an old one is left
mkdir held oldout
flock held/.bench.lock sleep 5 &
holder=$!
sleep 0.3
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --dump held --out newout \
  >/dev/null 2>e10; usage $? e10 "--dump 'held' is in use by another bench run"
[ ! -e newout ] || fail "B13: a refused run left its --out folder: $(find newout)"
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --dump held --out oldout \
  >/dev/null 2>e11; usage $? e11 "in use by another bench run"
[ -z "$(ls -A oldout)" ] || fail "B13: a refused run left $(ls -A oldout) in an existing --out"
"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --no-plots --dump held --out a/b/c \
  >/dev/null 2>e12; usage $? e12 "in use by another bench run"
[ ! -e a ] || fail "a refused run left the parents of its --out: $(find a)"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

# usage errors: given twice, or not applying to the action
n=0
while IFS='|' read -r args want; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$bench" $args >/dev/null 2>"o$n"; usage $? "o$n" "$want"
done <<'EOF'
--suite matmul --sizes 64 --sizes 128 --out t1|--sizes is given twice
--suite matmul --sizes 64 --out a1 --out b1|--out is given twice
--quick --quick --suite matmul|--quick is given twice
--plot r0 --suite conv|--suite does not apply to --plot
--plot r0 --out X|--out does not apply to --plot
--list --out X|--out does not apply to --list
--info --sizes 64|--sizes does not apply to --info
--columns --quick|--quick does not apply to --columns
--version --force|--force does not apply to --version
--help --json x.json|--json does not apply to --help
--list --info|--list and --info are two different actions
--plot r0 --list|two different actions
--suite matmul --quick --sizes 64|--quick chooses the sizes
--suite matmul --sizes 64 --reps 2 --min-time 3600|--reps N runs exactly N
--suite matmul --sizes 64 --force|--force replaces an earlier run in --out DIR: it needs --out
--suite matmul --sizes 64 --mode host,host --out t2|--mode names 'host' twice
--suite matmul --sizes 64 --backend cpu-blas,cpu-blas --out t2|--backend names 'cpu-blas' twice
--suite matmul,all --sizes 64 --out t2|--suite all already names every suite
--suite matmul --sizes 64 --backend cpu-blas --mode host,resident --out t2|--mode 'resident' runs none of the selected backends
--suite matmul --sizes 64 --backend cpu-blas --cuda-sync --out t2|--cuda-sync is for GPU cases
--suite matmul --sizes 64 --backend cpu-blas --device 0 --out t2|--device is for GPU cases
--suite matmul --sizes 64 --backend cpu-blas --baseline cpu-naive --out t2|--baseline 'cpu-naive' is not among --backend
--suite matmul,train --sizes 48 --steps 3 --out t2|--steps is for training steps: the selection runs no training step
--suite matmul --sizes 64 --backend cpu-blas --emulate --out t2|--emulate is for GPU cases
--suite matmul --sizes 64 --devices 2 --out t2|--devices is for the data-parallel modes of GPU backends (train: cuda, cuda-lib)
--suite train --sizes mlp-small-b4 --mode ddp --bucket-mb 1 --out t2|--bucket-mb is for ddp-overlap runs of the train suite (--mode ddp-overlap, or under mpirun)
--suite matmul --sizes 64 --backend cpu-blas --baseline cpu-naive --emulate --out t2|--baseline 'cpu-naive' is not among --backend
EOF
for d in t1 t2 a1 b1 X; do [ ! -e "$d" ] || fail "a refused command left $d"; done
# a control character in a value: still one line
"$bench" --suite $'mat\nmul' >/dev/null 2>e13; usage $? e13 'mat\\x0amul'

# B21: an empty or bad OMP_NUM_THREADS is refused by bench, whose line is last
for v in "" 0 -1 abc 2, ,2 "2 " +2 2,,2; do
  OMP_NUM_THREADS=$v "$bench" "${small[@]}" --out omp >/dev/null 2>e14
  rc=$?
  [ "$rc" -eq 2 ] || fail "OMP_NUM_THREADS='$v': exit $rc, want 2"
  tail -1 e14 | grep -q "^bench: OMP_NUM_THREADS='$v': each thread count .*from 1 to" \
    || fail "OMP_NUM_THREADS='$v': bench's line is not the last: $(cat e14)"
  [ ! -e omp ] || fail "OMP_NUM_THREADS='$v' left omp/"
done

OPENBLAS_NUM_THREADS=2,2 "$bench" "${small[@]}" --out ob2 >/dev/null 2>e19; usage $? e19 "OPENBLAS_NUM_THREADS='2,2': the thread count must be one number"
# OPENBLAS_NUM_THREADS that is not what runs is said; so are too few usable CPUs
OPENBLAS_NUM_THREADS=3 "$bench" "${small[@]}" --threads 1 --out ob >/dev/null 2>e15 || fail "OPENBLAS_NUM_THREADS=3 run"
grep -q "OPENBLAS_NUM_THREADS=3 is not used: every CPU backend, cpu-blas included, runs 1 threads" e15 \
  || fail "OPENBLAS_NUM_THREADS=3 ignored without a word: $(cat e15)"
if command -v taskset >/dev/null; then
  taskset -c 0 "$bench" "${small[@]}" --threads 2 --out ts >/dev/null 2>e16 || fail "taskset run"
  grep -q "2 threads on 1 usable CPU" e16 || fail "taskset -c 0 --threads 2 said nothing: $(cat e16)"
  grep -q '^# usable_cpus: 1$' ts/results.csv || fail "the context does not record 1 usable CPU"
fi

# B20: the emulator's settings are in an emulated row's repro, which re-runs it
if [ -x "$(dirname "$bench")/bench-emu" ]; then
  # (issue 33 R2: every CUDAEMU_* setting in effect, sorted, not a list of five)
  # (ctest's own CUDAEMU_PAGEABLE_LATE left out: the expected list is exact)
  env -u CUDAEMU_PAGEABLE_LATE CUDAEMU_DEVICES=2 CUDAEMU_NCCL_TIMEOUT_MS=60000 CUDAEMU_LEAKS=0 "$bench" --emulate --device 1 \
    --suite matmul --sizes 9x7x5 --backend cuda-naive \
    --mode resident --no-plots --out emu >/dev/null 2>&1 || fail "an emulated run on device 1"
  repro=$("$csvq" emu/results.csv repro | head -1)
  case "$repro" in "CUDAEMU_DEVICES=2 CUDAEMU_LEAKS=0 CUDAEMU_NCCL_TIMEOUT_MS=60000 bench "*"--emulate --device 1"*) ;;
    *) fail "B20: repro without every CUDAEMU_ setting: $repro" ;; esac
  # shellcheck disable=SC2086
  env ${repro%% bench *} "$bench" ${repro#* bench } --out emu2 --no-plots >/dev/null 2>&1 \
    || fail "B20: the repro does not re-run: $repro"
fi

# a dump that cannot be written is an error of the run (exit 1), not a failed check
out=$( (ulimit -f 16; "$bench" --suite train --sizes mlp-small-b4,cnn-b4 --backend cpu-omp --reps 1 \
        --dump full --out f --no-plots) 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 1 ] || fail "a failed dump: exit $rc, want 1: $out"
[ "$("$csvq" f/results.csv check | grep -c fail)" -eq 0 ] || fail "a failed dump marked a row failed"
"$csvq" f/results.csv note | grep -q "not dumped: " || fail "the row does not say it was not dumped"

test_end cli.owner
