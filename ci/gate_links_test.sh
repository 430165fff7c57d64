#!/usr/bin/env bash
# ci/gate_links_test.sh GATE - bench-gate compares two CSVs: it must load
# neither BLAS, OpenMP, MPI, oneDNN nor CUDA (it links benchbase alone, not
# the runner), so it runs wherever a CSV can be read. Fails naming the library.
set -u
gate=$1
out=$(ldd "$gate" 2>&1) || { echo "ldd $gate failed: $out"; exit 1; }
bad=$(printf '%s\n' "$out" | grep -Ei 'blas|lapack|gomp|omp\.so|mpi|dnnl|cuda|nccl' || true)
if [ -n "$bad" ]; then
  echo "bench-gate loads libraries it must not:"
  printf '%s\n' "$bad"
  exit 1
fi
echo "bench-gate loads: $(printf '%s\n' "$out" | awk '{print $1}' | tr '\n' ' ')"
