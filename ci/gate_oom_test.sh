#!/usr/bin/env bash
# ci/gate_oom_test.sh GATE FAILALLOC.so - every allocation bench-gate makes
# (reading both CSVs, validating, indexing, comparing) is made to fail in
# turn (ci/failalloc.c); each time the gate must exit 2 saying "out of
# memory", never crash or pass. Label no-sanitize: ASan owns the allocator.
set -u
gate=$(realpath "$1") shim=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
header="suite,case,backend,mode,dtype,shape,threads,reps,median_ms,min_ms,max_ms,mad_ms,gflops,gbps,baseline,speedup,max_abs_err,rel_err,tolerance,check,device,emulated,h2d_ms,compute_ms,d2h_ms,overlap_eff,peak_dev_mb,alloc_ms,bytes,flops,device_kind,repro,note,samples_ms"
for f in cur base; do
  {
    echo "# cpu: Xeon"
    echo "$header"
    echo 'matmul,square-64,cpu-blas,host,fp32,64x64x64,1,5,1,1,1,0.01,1,,cpu-blas,1,0,0,1,pass,CPU,0,,,,,,,,524288,cpu,"bench --suite matmul",,1;1;1'
    echo 'matmul,square-64,cpu-omp,host,fp32,64x64x64,1,5,2,2,2,0.01,1,,cpu-blas,0.5,0,0,1,pass,CPU,0,,,,,,,,524288,cpu,"bench --suite matmul","a ""quoted"" note",2;2;2'
  } > $f.csv
done
fails=0
LD_PRELOAD=$shim FAILALLOC_COUNT=count "$gate" cur.csv base.csv > /dev/null
rc=$?
total=$(cat count 2>/dev/null || echo 0)
[ $rc -eq 0 ] || { echo "FAILED: the gate without injected failures: rc $rc" >&2; fails=1; }
[ "$total" -gt 20 ] || { echo "FAILED: only $total allocations seen: is the shim working?" >&2; fails=1; }
for ((n = 1; n <= total; n++)); do
  out=$(LD_PRELOAD=$shim FAILALLOC_AT=$n "$gate" cur.csv base.csv 2>&1)
  rc=$?
  if [ $rc -ne 2 ] || ! grep -q 'out of memory' <<<"$out"; then
    echo "FAILED: allocation $n of $total failing: rc $rc: $(tail -2 <<<"$out")" >&2
    fails=$((fails + 1))
  fi
done
echo "gate_oom: $total allocations failed in turn, $fails failures"
[ $fails -eq 0 ]
