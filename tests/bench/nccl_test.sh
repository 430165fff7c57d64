#!/usr/bin/env bash
# tests/bench/nccl_test.sh BENCH CSVQ - the GPU data-parallel modes over NCCL on the
# emulator (CUDAEMU_DEVICES GPUs, the emulator's NCCL, purely lazy streams):
#  - every data-parallel mode on every GPU backend of the train registry over
#    2 and 4 GPUs (--devices) on an odd batch, each checked against the
#    one-process full-batch step, replicas identical; comm nccl, replicas N;
#  - the CNN (momentum) and gpt (AdamW) in ddp-overlap with small buckets;
#  - the CNN on cuda-lib over 2 GPUs, whose shards' cuDNN plans need more
#    workspace than the full batch's (each replica sized from its own plan);
#  - planted faults fail: ddp-overlap's communication stream not waiting for
#    the backward pass (BENCH_PLANT_NO_EVENT: the lazy streams then reduce
#    gradients nothing wrote yet), and shard weights of 1/N on unequal shards;
#  - a collective that fails inside the NCCL group (CUDAEMU_NCCL_FAIL): its
#    row names it, the group is closed, the next case passes;
#  - the collectives suite's nccl backend over 3 GPUs, exact on every GPU, a
#    planted wrong element failing;
#  - --devices beyond the GPUs is a skip row saying so; --devices without a
#    GPU data-parallel case exits 2.
# Backends and modes come from `bench --list`, never literals.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$here/testlib.sh"
test_begin
export CUDAEMU_PROGRESS_MS=0

gpus=$("$bench" --list --suite train | awk '$2 == "gpu" {print $1}' | paste -sd, -)
dp=$("$bench" --list --suite train | sed -n 's/.*data-parallel modes[^:]*: //p' | tr ' ' ',')
ngpu=$(printf '%s' "$gpus" | tr ',' '\n' | grep -c .)
nmodes=$(printf '%s' "$dp" | tr ',' '\n' | grep -c .)
[ "$ngpu" -ge 1 ] && [ "$nmodes" -ge 1 ] || fail "bench --list: GPU backends '$gpus', modes '$dp'"

for n in 2 4; do
  CUDAEMU_DEVICES=4 "$bench" --emulate --suite train --sizes mlp-small-b15 --backend "$gpus" \
      --mode "$dp" --devices $n --bucket-mb 0.001 --out d$n --no-plots >d$n.log 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "--devices $n: exit $rc: $(tail -2 d$n.log)"
  "$csvq" d$n/results.csv check replicas comm | sort | uniq -c | awk '{print $1, $2, $3, $4}' >d$n.kinds
  [ "$(cat d$n.kinds)" = "$((ngpu * nmodes)) pass $n nccl" ] || fail "--devices $n: rows $(tr '\n' ';' <d$n.kinds)"
done

CUDAEMU_DEVICES=2 "$bench" --emulate --suite train --sizes cnn-b3-mom,gpt-b3-adamw --backend cuda \
    --mode ddp-overlap --devices 2 --bucket-mb 0.01 --out m --no-plots >m.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "cnn and gpt, ddp-overlap: exit $rc: $(tail -2 m.log)"
[ "$("$csvq" m/results.csv check | sort -u)" = pass ] || fail "cnn and gpt, ddp-overlap: $(cat m.log | tail -3)"

# each replica's cuDNN workspace from its own shard's plan: on 2 GPUs the
# CNN's conv2 shard (8 images: 8*14*14*32 outputs) is one the emulated cuDNN
# splits (a workspace of 1.6 MB) while the full batch of 16 is not (18 KB);
# a replica sized for the full batch fails (the step's check, or the
# emulator's illegal address at cudnnConvolutionForward)
CUDAEMU_DEVICES=2 "$bench" --emulate --suite train --sizes cnn-b16 --backend cuda-lib \
    --mode ddp --devices 2 --out ws --no-plots >ws.log 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$("$csvq" ws/results.csv check)" = pass ] ||
    fail "cnn-b16 cuda-lib ddp on 2 GPUs (shard workspace): exit $rc: $(tail -2 ws.log)"

# emulated rows carry no time or ratio of the emulator's timings (#33 E1): no
# comm_ms, overlap_eff or scaling_eff, though the one-replica row they would
# be scaled by is in the run
CUDAEMU_DEVICES=2 "$bench" --emulate --suite train --sizes mlp-small-b15 --backend cuda \
    --mode "resident,$dp" --devices 2 --bucket-mb 0.001 --out r --no-plots >r.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "resident + data-parallel: exit $rc: $(tail -2 r.log)"
"$csvq" r/results.csv mode check emulated replicas comm_ms scaling_eff overlap_eff >r.rows
[ "$(awk -F'\t' '$1 == "resident" && $2 == "pass" && $3 == 1' r.rows | wc -l)" -eq 1 ] ||
    fail "resident + data-parallel: no passing emulated resident row: $(tr '\n\t' '; ' <r.rows)"
[ "$(awk -F'\t' '$2 == "pass" && $3 == 1 && $4 == 2 && $5 $6 $7 == ""' r.rows | wc -l)" -eq "$nmodes" ] ||
    fail "emulated data-parallel rows must pass with comm_ms, scaling_eff, overlap_eff empty: $(tr '\n\t' '; ' <r.rows)"
for d in m d2 d4; do
  "$csvq" $d/results.csv emulated comm_ms scaling_eff overlap_eff samples_per_s |
    awk -F'\t' '$1 != 1 || $2 $3 $4 $5 != "" {bad = 1} END {exit bad}' ||
    fail "$d: an emulated row with comm_ms, scaling_eff, overlap_eff or samples_per_s: $("$csvq" $d/results.csv comm_ms scaling_eff overlap_eff samples_per_s | tr '\n\t' '; ')"
done

# planted: the communication stream does not wait for the backward pass
BENCH_PLANT_NO_EVENT=cuda CUDAEMU_DEVICES=2 "$bench" --emulate --suite train --sizes mlp-small-b15 \
    --backend cuda --mode "$dp" --devices 2 --bucket-mb 0.001 --out e --no-plots >e.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "missing event: exit $rc, want 1"
"$csvq" e/results.csv mode check >e.rows
[ "$(grep -c $'ddp-overlap\tfail' e.rows)" -eq 1 ] && [ "$(grep -c $'\tpass' e.rows)" -eq $((nmodes - 1)) ] ||
    fail "missing event: want ddp-overlap failing alone: $(tr '\n\t' '; ' <e.rows)"
# planted: weights of 1/2 on shards of 8 and 7
BENCH_PLANT_SHARD_WEIGHT=cuda CUDAEMU_DEVICES=2 "$bench" --emulate --suite train --sizes mlp-small-b15 \
    --backend cuda --mode "$dp" --devices 2 --out w --no-plots >w.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "wrong shard weight: exit $rc, want 1"
[ "$("$csvq" w/results.csv check | sort -u)" = fail ] || fail "wrong shard weight: not every row failed"

# the collectives suite's NCCL backend over 3 GPUs: exact on every GPU; a
# planted wrong element fails
CUDAEMU_DEVICES=3 "$bench" --emulate --suite collectives --quick --backend nccl --out c \
    --no-plots >c.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "collectives over NCCL: exit $rc: $(tail -2 c.log)"
[ "$("$csvq" c/results.csv check replicas comm | sort -u)" = "$(printf 'pass\t3\tnccl')" ] ||
    fail "collectives over NCCL: rows $("$csvq" c/results.csv check replicas comm | sort -u | tr '\n\t' '; ')"
[ "$("$csvq" c/results.csv emulated gbps busbw_gbps | sort -u)" = "$(printf '1\t\t')" ] ||
    fail "collectives over NCCL: emulated rows with a bandwidth: $("$csvq" c/results.csv gbps busbw_gbps | sort -u | tr '\n\t' '; ')"
BENCH_PLANT_FAULT=nccl CUDAEMU_DEVICES=3 "$bench" --emulate --suite collectives \
    --sizes allreduce:4K,allgather:12K --backend nccl --out cf --no-plots >cf.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "collectives over NCCL, planted fault: exit $rc, want 1"
[ "$("$csvq" cf/results.csv check | sort -u)" = fail ] || fail "collectives over NCCL, planted fault: rows pass"

# an NCCL call that fails inside the group (CUDAEMU_NCCL_FAIL=2: the second
# collective call, GPU 1's, after GPU 0's was queued): the row fails naming
# that call, not ncclGroupEnd; the group was closed and cancelled, so the
# next case on the same communicators passes (a group left open, or GPU 0's
# collective left queued, fails or hangs it)
CUDAEMU_NCCL_FAIL=2 CUDAEMU_NCCL_TIMEOUT_MS=2000 CUDAEMU_DEVICES=2 timeout 60 "$bench" --emulate \
    --suite collectives --sizes allreduce:4K,broadcast:4K --backend nccl --out cg --no-plots >cg.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a failure inside the NCCL group: exit $rc, want 1: $(tail -2 cg.log)"
"$csvq" cg/results.csv case check note >cg.rows
awk -F'\t' '$1 == "allreduce-4K" && $2 == "fail" && $3 ~ /^error: ncclAllReduce\(.*CUDAEMU_NCCL_FAIL=2/' cg.rows |
    grep -q . || fail "a failure inside the NCCL group: the row must name ncclAllReduce: $(tr '\n\t' '; ' <cg.rows)"
[ "$(awk -F'\t' '$1 == "broadcast-4K" {print $2}' cg.rows)" = pass ] ||
    fail "a failure inside the NCCL group: the next case did not pass: $(tr '\n\t' '; ' <cg.rows)"

# more replicas than GPUs: one skip row per mode, saying so
CUDAEMU_DEVICES=2 "$bench" --emulate --suite train --sizes mlp-small-b4 --backend cuda --mode ddp \
    --devices 3 --out s --no-plots >s.log 2>&1
"$csvq" s/results.csv check note | grep -q $'skip\t--devices 3: this machine has 2 GPUs' ||
    fail "--devices 3 on 2 GPUs: $("$csvq" s/results.csv check note)"
out=$("$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp --devices 2 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q -- "--devices is for the data-parallel modes" ||
    fail "--devices with CPU backends only: $out"

# SIGINT during a data-parallel step over 4 emulated GPUs (issue 33 H6): every
# replica finishes the step, then the run ends (exit 130) without NCCL timeouts
# (a replica that left alone made the others wait for them: 15-90 s)
CUDAEMU_DEVICES=4 timeout 120 "$bench" --emulate --suite train --sizes mlp-b64 --backend cuda \
    --mode ddp --devices 4 --steps 40 --out int --no-plots >int.log 2>&1 &
job=$!
sleep 3
kill -INT $job 2>/dev/null
start=$SECONDS
wait $job
rc=$?
[ $rc -eq 130 ] || fail "SIGINT during a 4-GPU step: exit $rc, want 130 (124: a hang): $(tail -3 int.log)"
grep -qi "timeout\|timed out" int.log && fail "SIGINT during a 4-GPU step: NCCL timed out: $(grep -i time int.log | head -2)"
[ $((SECONDS - start)) -lt 60 ] || fail "SIGINT during a 4-GPU step: $((SECONDS - start)) s to stop"
# (the signal may land before the run folder exists, or while the report is written)
grep -q "received while\|interrupted" int.log || fail "SIGINT during a 4-GPU step: nothing said: $(tail -3 int.log)"

test_end nccl
