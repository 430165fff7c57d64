#!/usr/bin/env bash
# tests/bench/train_test.sh BENCH CSVQ DUMPTEST EMULATE [PART] - the train suite end to end
# (PART cpu: all but the emulated GPU runs; emu: those alone, so that CTest
# runs the two halves side by side; default both):
#  - bad problems, --steps and --dump exit 2 with one line, before any work;
#  - --quick runs every CPU backend of the registry on every model, every
#    checked step passing, with a trace of the checked steps, phase_ms and
#    samples_per_s;
#  - --steps N records N losses per row, and the loss falls;
#  - --dump writes one folder per case that tests/suites/train/train_dump_test.c reads back;
#  - planted faults fail: one wrong gradient element (BENCH_PLANT_FAULT), a
#    dropped bias update (BENCH_PLANT_SKIP_BIAS), and (EMULATE=1) a prefetch-2
#    step that does not wait for its batch's copy (BENCH_PLANT_RACE);
#  - EMULATE=1: cuda and cuda-lib in every GPU mode of the suite, all passing.
# Counts come from `bench --list`, never literals.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
dumptest=$(realpath "$3")
emulate=$4
part=${5:-}
case "$part" in ""|cpu|emu) ;; *) echo "PART: cpu or emu, not '$part'" >&2; exit 2 ;; esac
. "$here/testlib.sh"
test_begin
. "$here/expect_usage.sh"

if [ "$part" != emu ]; then
expect_usage "batch 0 out of range 1..4096" --suite train --sizes cnn-b0
expect_usage "batch 5000 out of range 1..4096" --suite train --sizes mlp-b5000
expect_usage "unexpected '-fast'" --suite train --sizes cnn-b16-fast
expect_usage "unexpected '-adam' (form: <model>-b<batch>[-mom|-adamw])" --suite train --sizes gpt-b8-adam
expect_usage "the batch after -b must be a number" --suite train --sizes mlp-small-bx
expect_usage "'resnet-b8'" --suite train --sizes resnet-b8
expect_usage "bad --steps '0' (want an integer from 1 to 300)" --suite train --steps 0
expect_usage "bad --steps '301'" --suite train --steps 301
expect_usage "--dump is for training steps" --suite matmul --dump d
expect_usage "overlaps the run folder" --suite train --sizes mlp-small-b4 --out "$work/x1" --dump "$work/x1"
expect_usage "overlaps the run folder" --suite train --sizes mlp-small-b4 --out "$work/x2/in" --dump "$work/x2"
expect_usage "overlaps the run folder" --suite train --sizes mlp-small-b4 --out "$work/x3" --dump "$work/x3/d"
mkdir -p "$work/full" && touch "$work/full/x"
out=$("$bench" --suite train --quick --dump "$work/full" 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "is not empty" || fail "--dump into a non-empty folder: $out"
rm -rf "$work/full"
fi

# the registry: CPU and GPU backends of train, and its GPU modes
list=$("$bench" --list --suite train)
cpu=$(printf '%s\n' "$list" | awk '$2 == "cpu" { print $1 }')
gpu=$(printf '%s\n' "$list" | awk '$2 == "gpu" { print $1 }' | paste -sd, -)
n_cpu=$(printf '%s\n' "$cpu" | grep -c .)
n_modes=$(printf '%s\n' "$list" | awk '$1 == "gpu" && $2 == "modes:" { print NF - 2 }')
printf '%s\n' "$list" | grep -q "prefetch-2" || fail "train lists no prefetch-2 mode"
printf '%s\n' "$list" | grep -q "streams-" && fail "train lists streams-N modes (a step is not split)"
[ "$n_cpu" -ge 4 ] || fail "$n_cpu CPU backends of train"

if [ "$part" != emu ]; then
# --quick: every CPU backend, every model, all passing (cpu-onednn may be a skip)
"$bench" --suite train --quick --mode host --out q --no-plots >q.txt 2>&1 || fail "quick run exited $?: $(tail -3 q.txt)"
models=$("$csvq" q/results.csv shape | sed 's/-b[0-9]*.*//' | sort -u | paste -sd' ' -)
[ "$models" = "cnn gpt lstm mlp mlp-small rnn" ] || fail "quick: models '$models', want every model"
n_models=$("$csvq" q/results.csv shape | sort -u | wc -l)
[ "$("$csvq" q/results.csv check | grep -c .)" -eq $((n_models * n_cpu)) ] || fail "quick: want $((n_models * n_cpu)) rows"
"$csvq" q/results.csv backend check note | awk -F'\t' '$2 == "fail" || ($2 == "skip" && $1 != "cpu-onednn")' >bad.txt
[ ! -s bad.txt ] || fail "quick rows not passing: $(cat bad.txt)"
"$csvq" q/results.csv check trace phase_ms samples_per_s | awk -F'\t' '$1 == "pass" {
    if (split($2, t, ";") != 3) print "trace " $2;
    if ($3 !~ /^forward=[0-9.e+-]+;backward=[0-9.e+-]+;update=[0-9.e+-]+$/) print "phase_ms " $3;
    if (!($4 > 0)) print "samples_per_s " $4 }' >bad.txt
[ ! -s bad.txt ] || fail "quick: $(cat bad.txt)"

# --steps: N losses per row; the loss falls; every backend's curve agrees
"$bench" --suite train --sizes mlp-small-b16 --backend cpu-naive,cpu-omp --steps 40 --reps 2 \
  --out s --no-plots >s.txt 2>&1 || fail "--steps run exited $?: $(tail -3 s.txt)"
"$csvq" s/results.csv backend trace | awk -F'\t' '{ n = split($2, t, ";");
    if (n != 40) print $1 ": " n " losses";
    if (!(t[40] < 0.9 * t[1])) print $1 ": loss " t[1] " -> " t[40] " did not fall" }' >bad.txt
[ ! -s bad.txt ] || fail "--steps: $(cat bad.txt)"
"$csvq" s/results.csv repro | grep -qv -- "--steps 40" && fail "--steps: a repro without --steps 40"
[ "$("$csvq" s/results.csv trace | cut -d';' -f1-40 | awk -F';' '{ print $40 }' | sort -u |
     awk 'NR == 1 { a = $1 } { d = $1 - a; if (d < 0) d = -d; if (d > 1e-4 * a) bad = 1 } END { print bad + 0 }')" = 0 ] \
  || fail "--steps: cpu-omp's loss after 40 steps drifts from cpu-naive's"

# --dump apart from the run folder, locked while a run lives, stopped by a write error
mkdir held && : >held/.bench.lock
flock held/.bench.lock sleep 20 &
holder=$!
sleep 0.3
out=$("$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --reps 1 --dump held --out h --no-plots 2>&1 >/dev/null)
rc=$?
kill $holder 2>/dev/null; wait $holder 2>/dev/null
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "in use by another bench run" \
  || fail "--dump held by another run: exit $rc: $out"
rm -rf held h
out=$( (ulimit -f 64; "$bench" --suite train --sizes mlp-small-b4,cnn-b4 --backend cpu-omp,cpu-blas --reps 1 \
        --dump full --out f --no-plots) 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] || fail "--dump past the file size limit: exit $rc, want 1"
printf '%s' "$out" | grep -q "cannot write .*full/cnn-b4-cpu-blas.tmp/.*\.npy: File too large; the run stopped" \
  || fail "--dump past the file size limit: stderr does not name the file: $out"
ls full | grep -q '\.tmp$' && fail "--dump left a half-written case folder: $(ls full)"
[ "$("$csvq" f/results.csv check | grep -c .)" -eq 3 ] || fail "--dump failure: the run should stop after that case's row: $(cat f/results.csv)"
grep -q "^# stopped: after 3 rows: cannot write .*File too large" f/results.csv \
  || fail "--dump failure: results.csv records no '# stopped:' end: $(grep '^#' f/results.csv | tail -3)"
grep -q "^\*\*Stopped\*\* (after 3 rows: " f/report.md \
  || fail "--dump failure: report.md does not say the run stopped: $(head -5 f/report.md)"
grep -q "Possibly incomplete" f/report.md && fail "--dump failure: report.md calls a recorded stop possibly killed"
rm -rf f full

# --dump: one folder per case, read back
dsizes=cnn-b4,mlp-b8-mom,rnn-b2,lstm-b1-mom,gpt-b1-adamw
"$bench" --suite train --sizes $dsizes --backend cpu-omp,cpu-blas --reps 1 --dump dumps \
  --out d --no-plots >d.txt 2>&1 || fail "--dump run exited $?: $(tail -3 d.txt)"
nd=$(( $(printf '%s' "$dsizes" | tr , '\n' | grep -c .) * 2 ))
[ "$(ls dumps | wc -l)" -eq $nd ] || fail "--dump: $(ls dumps | wc -l) folders, want $nd: $(ls dumps)"
"$dumptest" dumps/* >dt.txt 2>&1 || fail "the dumps do not read back: $(tail -5 dt.txt)"

# planted faults
BENCH_PLANT_FAULT=cpu-omp "$bench" --suite train --sizes cnn-b4 --backend cpu-omp,cpu-blas --reps 1 \
  --out p1 --no-plots >/dev/null 2>&1
[ $? -eq 1 ] || fail "a wrong gradient element: want exit 1"
"$csvq" p1/results.csv backend check note | grep -q "^cpu-omp	fail	check failed at step 1: grad " \
  || fail "a wrong gradient element is not named: $(cat p1/results.csv)"
"$csvq" p1/results.csv backend check | grep -q "^cpu-blas	pass" || fail "cpu-blas should still pass"
BENCH_PLANT_SKIP_BIAS=cpu-blas "$bench" --suite train --sizes mlp-small-b8 --backend cpu-blas \
  --reps 1 --out p2 --no-plots >/dev/null 2>&1
[ $? -eq 1 ] || fail "a dropped bias update: want exit 1"
"$csvq" p2/results.csv note | grep -q "updated fc2.bias" || fail "the dropped update is not named: $(cat p2/results.csv)"
BENCH_PLANT_SKIP_BIAS=cpu-omp "$bench" --suite train --sizes gpt-b1-adamw --backend cpu-omp \
  --reps 1 --out p3 --no-plots >/dev/null 2>&1
[ $? -eq 1 ] || fail "a dropped AdamW update: want exit 1"
"$csvq" p3/results.csv note | grep -q "updated lm_head.weight" || fail "the dropped AdamW update is not named: $(cat p3/results.csv)"

fi

if [ "$emulate" = 1 ] && [ "$part" != cpu ]; then
  # every GPU backend in every mode of the suite, checked step by step
  esizes=mlp-small-b8,cnn-b2,gpt-b1-adamw
  "$bench" --suite train --sizes $esizes --backend "$gpu" --emulate --out e --no-plots \
    >e.txt 2>&1 || fail "emulated run exited $?: $(tail -3 e.txt)"
  n_gpu=$(printf '%s' "$gpu" | tr , '\n' | grep -c .)
  n_e=$(printf '%s' "$esizes" | tr , '\n' | grep -c .)
  [ "$("$csvq" e/results.csv check | grep -c '^pass$')" -eq $((n_e * n_gpu * n_modes)) ] \
    || fail "emulated: want $((n_e * n_gpu * n_modes)) passing rows: $("$csvq" e/results.csv backend mode check note)"
  "$csvq" e/results.csv emulated | grep -qv '^1$' && fail "emulated rows must say emulated=1"
  # the recurrent models (their ops are gpt's and the LSTM cell) on every GPU
  # backend, the first resident, the next end to end, and so on: each backend
  # and both modes, without every pairing (the modes are the models' shared
  # code, paired with every backend above; under ASan all pairs took 97 s)
  i=0
  for b in $(printf '%s' "$gpu" | tr , ' '); do
    m=resident; [ $((i % 2)) -eq 1 ] && m=async-pinned
    "$bench" --suite train --sizes rnn-b1,lstm-b1-mom --backend "$b" --emulate --mode "$m" \
      --out "e2-$b" --no-plots >e2.txt 2>&1 || fail "emulated recurrent $b $m exited $?: $(tail -3 e2.txt)"
    [ "$("$csvq" "e2-$b/results.csv" check | grep -c '^pass$')" -eq 2 ] \
      || fail "emulated recurrent $b $m: $("$csvq" "e2-$b/results.csv" backend mode check note)"
    i=$((i + 1))
  done
  # a prefetch that does not wait for its batch fails; the other modes pass
  BENCH_PLANT_RACE=prefetch "$bench" --suite train --sizes mlp-small-b8 --backend cuda --emulate \
    --mode resident,prefetch-2 --out r --no-plots >/dev/null 2>&1
  [ $? -eq 1 ] || fail "a prefetch race: want exit 1"
  [ "$("$csvq" r/results.csv mode check | paste -sd' ')" = "resident	pass prefetch-2	fail" ] \
    || fail "a prefetch race: $("$csvq" r/results.csv mode check note)"
  BENCH_PLANT_SKIP_BIAS=cuda-lib "$bench" --suite train --sizes mlp-small-b8 --backend cuda-lib \
    --emulate --mode async-pinned --out g --no-plots >/dev/null 2>&1
  [ $? -eq 1 ] || fail "a dropped bias update on cuda-lib: want exit 1"
fi
test_end "cli.train${part:+ ($part)}"
