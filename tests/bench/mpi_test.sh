#!/usr/bin/env bash
# tests/bench/mpi_test.sh MPIRUN BENCH CSVQ [PART] - replicas over MPI, end to end
# (PART base: the schemes and faults below; agree: the ranks' agreement, last;
# default both; CTest runs the two halves side by side):
#  - the collectives suite (--quick): every collective of every size passes its
#    exact check on every rank; replicas 2, comm mpi; busbw = gbps x nccl-tests'
#    factor; a planted wrong element (BENCH_PLANT_FAULT) fails and exits 1;
#  - every data-parallel scheme on every CPU backend of the train registry on
#    an odd batch (shards of 8 and 7) of mlp-small, and on cpu-omp on every
#    sequence model and the CNN (batch 3: shards of 2 and 1; momentum, AdamW,
#    buckets of 10 KB so ddp-overlap starts several), each checked against the one-process full-batch step on every
#    rank, replicas holding identical parameters; the host rows ran on rank 0
#    alone (replicas 1) and give scaling_eff;
#  - planted faults fail, naming what went wrong: a replica that keeps its own
#    gradients instead of the all-reduce's (BENCH_PLANT_SKIP_ALLREDUCE), and
#    shard weights of 1/N on shards of unequal size (BENCH_PLANT_SHARD_WEIGHT);
#  - a usage error is one line from rank 0, exit 2 from the job;
#  - agree: the ranks agree before any work (--steps on every rank; MPMD
#    launches with other arguments, a usage error or environment on one rank:
#    exit 2, one line from that rank), and a SIGTERM to rank 1 (or 2 of 3)
#    during a step, during rank 0's one-process case and before a step ends
#    the run on every rank (exit 143, '# interrupted:', the report marked).
# Backends and schemes come from `bench --list` and the CSV, never literals.
# mpirun gets the flags a root user in a container needs (the README's).
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
mpirun=$1
part=${4:-}
case "$part" in ""|base|agree) ;; *) echo "PART: base or agree, not '$part'" >&2; exit 2 ;; esac
bench=$(realpath "$2")
csvq=$(realpath "$3")
. "$here/testlib.sh"
test_begin
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# a rank waiting in a collective yields its core (CTest runs other tests beside
# this one on the same two cores; busy polling took one of them)
export OMPI_MCA_mpi_yield_when_idle=1
# Under ASan (ci/test), OpenMPI's leaks are suppressed by library (ci/lsan-mpi.supp),
# which needs full stacks; both settings go to every rank.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:fast_unwind_on_malloc=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-}
run2() { timeout 300 "$mpirun" -np 2 -x ASAN_OPTIONS -x LSAN_OPTIONS "$@"; }

if [ "$part" != agree ]; then
# --- collectives ---------------------------------------------------------------
ccpu=$("$bench" --list --suite collectives | awk '$2 == "cpu" {print $1}' | paste -sd, -)
run2 "$bench" --suite collectives --quick --backend "$ccpu" --out c --no-plots >c.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "collectives: exit $rc: $(tail -3 c.log)"
nrows=$("$csvq" c/results.csv check | wc -l)
[ "$nrows" -ge 5 ] || fail "collectives: $nrows rows"
"$csvq" c/results.csv check replicas comm | sort -u >c.kinds
[ "$(cat c.kinds)" = "$(printf 'pass\t2\tmpi')" ] || fail "collectives: rows $(tr '\n\t' '; ' <c.kinds)"
"$csvq" c/results.csv case gbps busbw_gbps | awk -F'\t' '
  { f = $1 ~ /^allreduce/ ? 1 : ($1 ~ /^(allgather|reduce-scatter)/ ? 0.5 : 1)
    if ($3 == "" || ($3 / $2 - f) ^ 2 > 1e-12) { print; bad = 1 } }
  END { exit bad }' >c.bad || fail "collectives: busbw is not gbps x nccl-tests' factor: $(head -2 c.bad)"
BENCH_PLANT_FAULT=mpi run2 -x BENCH_PLANT_FAULT "$bench" --suite collectives \
    --sizes allreduce:4K,allgather:4K --backend mpi --out cf --no-plots >cf.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "collectives, planted fault: exit $rc, want 1"
[ "$("$csvq" cf/results.csv check | sort -u)" = fail ] || fail "collectives, planted fault: not every row failed"

# --- the data-parallel schemes --------------------------------------------------
cpus=$("$bench" --list --suite train | awk '$2 == "cpu" {print $1}' | paste -sd, -)
modes=host,$("$bench" --list --suite train | sed -n 's/.*data-parallel modes[^:]*: //p' | tr ' ' ',')
[ "$modes" != host, ] || fail "bench --list names no data-parallel mode"
nmodes=$(printf '%s' "$modes" | tr ',' '\n' | grep -c .)
# every CPU backend on a small model; every model (odd batches, each optimizer) on cpu-omp
run2 "$bench" --suite train --sizes mlp-small-b15 --backend "$cpus" --mode "$modes" \
    --threads 1 --min-time 0 --out t --no-plots >t.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "dp: exit $rc: $(grep -v '^train' t.log | tail -3)"
models=cnn-b3-mom,rnn-b3,lstm-b3,gpt-b3-adamw
run2 "$bench" --suite train --sizes "$models" --backend cpu-omp \
    --mode "$modes" --threads 1 --min-time 0 --bucket-mb 0.01 --out m --no-plots >m.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "dp, every model: exit $rc: $(grep -v '^train' m.log | tail -3)"
nmodels=$(printf '%s' "$models" | tr ',' '\n' | grep -c .)
ncpu=$(printf '%s' "$cpus" | tr ',' '\n' | grep -c .)
"$csvq" t/results.csv backend mode check replicas comm note >t.rows
[ "$(wc -l <t.rows)" -eq $((ncpu * nmodes)) ] || fail "dp: $(wc -l <t.rows) rows, want $((ncpu * nmodes))"
"$csvq" m/results.csv backend mode check replicas comm note >>t.rows
[ "$("$csvq" m/results.csv check | wc -l)" -eq $((nmodels * nmodes)) ] || fail "dp, every model: rows"
awk -F'\t' '$3 != "pass" && !($3 == "skip" && $1 == "cpu-onednn")' t.rows >t.bad
[ -s t.bad ] && fail "dp: rows not passing: $(head -3 t.bad)"
awk -F'\t' '$3 == "pass" && (($2 == "host") != ($4 == 1 && $5 == "none") || ($2 != "host" && ($4 != 2 || $5 != "mpi")))' \
    t.rows >t.bad2
[ -s t.bad2 ] && fail "dp: replicas/comm columns wrong: $(head -2 t.bad2)"
{ "$csvq" t/results.csv mode check comm_ms scaling_eff phase_ms; "$csvq" m/results.csv mode check comm_ms scaling_eff phase_ms; } | awk -F'\t' '
  $1 != "host" && $2 == "pass" && ($3 == "" || $4 == "" || $5 !~ /(allreduce|reduce)/) { print; bad = 1 }
  END { exit bad }' >t.bad3 || fail "dp: comm_ms, scaling_eff or the collective phase missing: $(head -1 t.bad3)"
"$csvq" m/results.csv mode overlap_eff | awk -F'\t' '$1 == "ddp-overlap" && $2 == "" {bad = 1} END {exit bad}' \
    || fail "dp: ddp-overlap without overlap_eff"

# --- planted faults: each fails, naming a gradient --------------------------------
BENCH_PLANT_SKIP_ALLREDUCE=cpu-omp run2 -x BENCH_PLANT_SKIP_ALLREDUCE "$bench" --suite train \
    --sizes mlp-small-b15 --backend cpu-omp --mode ddp,ddp-overlap --threads 1 --min-time 0 \
    --out s --no-plots >s.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "skipped all-reduce: exit $rc, want 1"
"$csvq" s/results.csv mode check note >s.rows
[ "$(awk -F'\t' '$2 == "fail" && $3 ~ /rank 1: grad /' s.rows | wc -l)" -eq 2 ] ||
    fail "skipped all-reduce: want ddp and ddp-overlap failing on rank 1's gradients: $(cat s.rows)"
BENCH_PLANT_SHARD_WEIGHT=cpu-blas run2 -x BENCH_PLANT_SHARD_WEIGHT "$bench" --suite train \
    --sizes mlp-small-b15,mlp-small-b16 --backend cpu-blas --mode dp-gather,ddp,ddp-overlap \
    --threads 1 --min-time 0 --out w --no-plots >w.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "wrong shard weight: exit $rc, want 1"
"$csvq" w/results.csv shape check >w.rows
# 15 = 8 + 7: weights of 1/2 are wrong; 16 = 8 + 8: they are right
[ "$(grep -c $'mlp-small-b15\tfail' w.rows)" -eq $((nmodes - 1)) ] || fail "wrong shard weight: b15 rows $(tr '\n' ' ' <w.rows)"
[ "$(grep -c $'mlp-small-b16\tpass' w.rows)" -eq $((nmodes - 1)) ] || fail "wrong shard weight: b16 should pass: $(tr '\n' ' ' <w.rows)"

# --- usage: rank 0 says it once ---------------------------------------------------
out=$(run2 "$bench" --suite train --mode ddp --bucket-mb 0 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "bad --bucket-mb under mpirun: exit 0"
[ "$(printf '%s\n' "$out" | grep -c "bad --bucket-mb '0'")" -eq 1 ] || fail "bad --bucket-mb: want one line: $out"

fi

if [ "$part" != base ]; then
# --- the ranks agree before any work (issue 33 H1, H3/M1, C1) ---------------------
# every rank traces --steps (it was set on rank 0 only: rank 1 spun or aborted)
out=$(timeout 120 "$mpirun" -np 2 -x ASAN_OPTIONS -x LSAN_OPTIONS "$bench" --suite train \
      --sizes mlp-small-b4 --backend cpu-omp --threads 1 --reps 1 --steps 6 --out st --no-plots 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "--steps under mpirun: exit $rc (124: a hang): $(tail -3 <<<"$out")"
"$csvq" st/results.csv mode trace | awk -F'\t' '{ if (split($2, t, ";") != 6) print $1 ": " $2 }' >bad.txt
[ -s st/results.csv ] && [ ! -s bad.txt ] || fail "--steps under mpirun: traces $(cat bad.txt)"
# a data-parallel row's repro names its launcher (issue 33 R2): run as written
# without it, it would measure one replica; re-run, it gives the same row
"$csvq" st/results.csv mode replicas repro | awk -F'\t' '
  $1 != "host" && $3 !~ "^mpirun -np " $2 " bench --suite train " { print; bad = 1 }
  $1 == "host" && $3 ~ /mpirun/ { print; bad = 1 } END { exit bad }' >st.bad4 \
  || fail "dp: a repro without its launcher (or a host row with one): $(head -2 st.bad4)"
rep=$("$csvq" st/results.csv backend mode repro | awk -F'\t' '$1 == "cpu-omp" && $2 == "ddp" { print $3; exit }')
rep=${rep/mpirun -np 2 bench /$mpirun -np 2 -x ASAN_OPTIONS -x LSAN_OPTIONS $bench }
(eval "timeout 120 $rep --reps 1 --out rr --no-plots" >rr.log 2>&1) || fail "dp: the repro '$rep' failed: $(tail -3 rr.log)"
[ "$("$csvq" rr/results.csv backend mode replicas comm | tr '\t' ' ')" = "cpu-omp ddp 2 mpi" ] \
  || fail "dp: the repro re-ran another row: $("$csvq" rr/results.csv backend mode replicas comm)"
# --dump with a data-parallel mode beside host (issue 33 R1): a folder each
run2 "$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --mode host,ddp --threads 1 --reps 1 \
    --dump dd --out dr --no-plots >dr.log 2>&1 || fail "--dump with host and ddp: exit $?: $(tail -3 dr.log)"
[ "$(ls dd | tr '\n' ' ')" = "mlp-small-b4-cpu-omp mlp-small-b4-cpu-omp-ddp-x2 " ] \
  || fail "--dump with host and ddp: folders '$(ls dd | tr '\n' ' ')'"
# mpmd NAME WANT ARGS0... -- ARGS1...: rank 0 and rank 1 given different command lines;
# exit 2 (124: a hang), WANT once on stderr, no run folder
mpmd() {
  local name=$1 want=$2 a0=() a1=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do a0+=("$1"); shift; done
  shift
  a1=("$@")
  out=$(timeout 120 "$mpirun" -x ASAN_OPTIONS -x LSAN_OPTIONS -np 1 "$bench" "${a0[@]}" \
        : -np 1 "$bench" "${a1[@]}" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "$name: exit $rc, want 2 (124: a hang): $out"
  [ "$(grep -cF -- "$want" <<<"$out")" -eq 1 ] || fail "$name: want one line '$want': $out"
  [ -e mm ] && fail "$name: a run folder was made"
  rm -rf mm
}
# the memory guard gives each rank its share of the node (issue 33 C2): 8 GiB
# between 2 ranks is 4 GiB each, and a 2 GiB all-reduce (send, receive and
# reference buffers) does not fit in 75% of it
out=$(timeout 120 "$mpirun" -np 2 -x ASAN_OPTIONS -x LSAN_OPTIONS -x BENCH_MEMORY_BYTES=8589934592 "$bench" \
      --suite collectives --sizes allreduce:2G --backend mpi --out mg --no-plots 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "more than 75% of the 4.0 GiB this process may use" <<<"$out" \
  || fail "2 ranks on 8 GiB: want each rank's 4.0 GiB in the refusal: exit $rc: $out"
[ -e mg ] && fail "2 ranks on 8 GiB: a run folder was made"
# a stale rank variable in a shell (no launcher, no job size): one process, rank 0,
# which says its usage error plainly
out=$(env PMI_RANK=1 "$bench" --suite train --bogus 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$out" = "bench: unknown option '--bogus' (see bench --help)" ] \
  || fail "a stale PMI_RANK=1: exit $rc: $out"
common=(--suite train --backend cpu-omp --reps 1 --out mm --no-plots)
mpmd "ranks given other sizes" "bench: rank 1: its arguments or environment" \
  "${common[@]}" --sizes mlp-small-b4 -- "${common[@]}" --sizes mlp-small-b8
mpmd "a usage error on rank 1 alone" "bench: rank 1: unknown backend 'cpu-bogus'" \
  "${common[@]}" --sizes mlp-small-b4 -- --suite train --backend cpu-bogus --reps 1 --out mm --no-plots --sizes mlp-small-b4
mpmd "an option only rank 1 does not know" "bench: rank 1: unknown option '--bogus'" \
  "${common[@]}" --sizes mlp-small-b4 -- "${common[@]}" --sizes mlp-small-b4 --bogus
# a per-rank environment: rank 1 alone has a bad BENCH_PLOTS_DIR (4001 characters)
long=$(head -c 4001 /dev/zero | tr '\0' d)
out=$(timeout 120 "$mpirun" -x ASAN_OPTIONS -x LSAN_OPTIONS -np 1 "$bench" "${common[@]}" --sizes mlp-small-b4 \
      : -np 1 env BENCH_PLOTS_DIR="$long" "$bench" "${common[@]}" --sizes mlp-small-b4 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "a per-rank environment: exit $rc, want 2 (124: a hang): $(cut -c1-300 <<<"$out")"
[ "$(grep -c "^bench: rank 1: BENCH_PLOTS_DIR is 4001 characters long" <<<"$out")" -eq 1 ] \
  || fail "a per-rank environment: rank 1's line: $(cut -c1-300 <<<"$out")"
rm -rf mm

# --- a signal to rank 1 ends the run on every rank (issue 33 H2, W1) -----------------
# sig_rank NP RANK NAME DELAY ARGS...: NP ranks, SIGTERM to rank RANK after DELAY s;
# the job exits 143 (124: a hang), rank 0's results.csv (when the run began)
# records the interruption and report.md says so; no rank reads a freed buffer
sig_rank() {
  local np=$1 rank=$2 name=$3 delay=$4 out pid p
  nsig=$((${nsig:-0} + 1))
  out=sg$nsig
  shift 4
  rm -rf "$out"
  timeout 120 "$mpirun" -np "$np" -x ASAN_OPTIONS -x LSAN_OPTIONS "$bench" "$@" --out "$out" --no-plots \
    >"$out.log" 2>&1 &
  local job=$!
  sleep "$delay"
  # the rank's process (mpirun may take longer than DELAY to start it on a
  # busy machine: up to 15 s more)
  for _ in $(seq 75); do
    for p in $(pgrep -f -- "--out $out --no-plots"); do
      grep -qa "OMPI_COMM_WORLD_RANK=$rank" "/proc/$p/environ" 2>/dev/null && pid=$p
    done
    [ -n "${pid:-}" ] && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.2
  done
  [ -n "${pid:-}" ] && kill -TERM "$pid"
  wait $job
  local rc=$?
  [ -n "${pid:-}" ] || { fail "$name: rank $rank not found (the run ended in under ${delay} s?)"; return; }
  [ $rc -eq 143 ] || fail "$name: exit $rc, want 143 (124: a hang): $(grep -v '^train' "$out.log" | tail -5)"
  if [ -f "$out/results.csv" ]; then
    grep -q "^# interrupted: SIGTERM" "$out/results.csv" || fail "$name: no '# interrupted:' line"
    grep -q "^\*\*Interrupted\*\* (SIGTERM)" "$out/report.md" || fail "$name: report.md not marked"
    "$csvq" "$out/results.csv" check note | grep -q "^fail" && fail "$name: a row written as failed"
  fi
  grep -qi "freed\|heap-use-after-free\|timed out" "$out.log" && fail "$name: $(grep -i 'freed\|timed out' "$out.log" | head -2)"
}
# during a data-parallel step (each step reduces over every rank)
sig_rank 2 1 "during a ddp step" 2 --suite train --sizes mlp-b256 --backend cpu-omp --mode ddp,dp-gather \
  --threads 1 --min-time 20
sig_rank 3 2 "3 ranks, rank 2 during a dp-gather step" 2 --suite train --sizes mlp-b256 --backend cpu-omp \
  --mode dp-gather --threads 1 --min-time 20
# while rank 0 runs a one-process case and rank 1 waits
sig_rank 2 1 "during rank 0's case" 2 --suite train --sizes mlp-b256,mlp-small-b64 --backend cpu-omp,cpu-blas \
  --mode host --threads 1 --min-time 3
# before a step: while the ranks prepare
sig_rank 2 1 "before a step" 1 --suite train --sizes cnn-b64 --backend cpu-omp --mode ddp --threads 1 --min-time 20
# 3 ranks, the last with other arguments (an MPMD launch)
out=$(timeout 120 "$mpirun" -x ASAN_OPTIONS -x LSAN_OPTIONS -np 2 "$bench" "${common[@]}" --sizes mlp-small-b4 \
      : -np 1 "$bench" "${common[@]}" --sizes mlp-small-b4 --threads 1 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "3 ranks, rank 2 with other arguments: exit $rc, want 2 (124: a hang): $out"
[ "$(grep -c "^bench: rank 2: its arguments or environment" <<<"$out")" -eq 1 ] \
  || fail "3 ranks, rank 2 with other arguments: want one line from rank 2: $out"
rm -rf mm
fi

test_end mpi
