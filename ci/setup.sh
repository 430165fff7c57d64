# ci/setup.sh - sourced by bench.sh and ci/test: installs what is missing and
# configures + builds a CMake build folder.  Quick no-op when all is there.
# Offline or without root: a missing build tool stops with the exact apt-get
# line; missing optional libraries are one line and the build goes on.

# What the build cannot do without: commands (each its Debian package's name).
BENCH_TOOLS="cmake make gcc g++"
# What only adds backends or charts: without them their rows are skips naming
# them (the configure summary says which), so an offline machine goes on.
BENCH_PACKAGES="libopenblas-dev libdnnl-dev gnuplot-nox git openmpi-bin libopenmpi-dev"

bench_missing_packages() {
  local missing="" p
  command -v dpkg-query >/dev/null 2>&1 || return 0   # not Debian: trust the PATH
  for p in $BENCH_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing="$missing $p"
  done
  echo "${missing# }"
}

bench_missing_tools() {
  local missing="" t
  for t in $BENCH_TOOLS; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
  echo "${missing# }"
}

# Installs what is missing where it can (root, apt reachable). A missing tool
# that cannot be installed stops here (1, the apt-get line to run); missing
# optional packages that cannot be installed (no root, no network) are one
# line on stderr and the build goes on without them.
bench_ensure_packages() {
  local tools pkgs
  tools=$(bench_missing_tools)
  pkgs=$(bench_missing_packages)
  [ -z "$tools$pkgs" ] && return 0
  local want="${tools:+$tools }$pkgs"
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bench: installing ${want% }" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    if apt-get -o Acquire::Retries=0 -o Acquire::http::Timeout=20 update -qq >&2 &&
       apt-get install -y -qq --no-install-recommends $want >&2; then
      return 0
    fi
    tools=$(bench_missing_tools)
    pkgs=$(bench_missing_packages)
  fi
  if [ -n "$tools" ]; then
    echo "bench: missing tools the build needs: $tools" >&2
    echo "bench: install them (as root: apt-get update && apt-get install -y --no-install-recommends $tools)" >&2
    return 1
  fi
  [ -n "$pkgs" ] && echo "bench: going on without $pkgs (not installed and not installable here:" \
    "their backends are skip rows, see the configure summary; as root with a network:" \
    "apt-get install -y --no-install-recommends $pkgs)" >&2
  return 0
}

# The CUDA toolkit is optional: point CMake at its standard location when
# nvcc is not on the PATH.
bench_find_nvcc() {
  if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1 \
     && [ -x /usr/local/cuda/bin/nvcc ]; then
    export CUDACXX=/usr/local/cuda/bin/nvcc
  fi
}

# bench_build SRC BUILD [cmake -D options...]: configure once, then build incrementally.
bench_build() {
  local src=$1 build=$2
  shift 2
  bench_find_nvcc
  mkdir -p "$build"
  if [ ! -f "$build/CMakeCache.txt" ] || [ $# -gt 0 ]; then
    cmake -S "$src" -B "$build" "$@" >"$build/configure.log" 2>&1 \
      || { cat "$build/configure.log" >&2; return 1; }
    sed -n '/bench configure summary/,/^-- [A-Z]/{/^-- [A-Z]/!p}' "$build/configure.log" >&2
  fi
  echo "bench: building $build (log: $build/build.log)" >&2
  # one job more than CPUs: a job waiting on its link or its disk leaves a
  # CPU idle otherwise (with -j2 on 2 CPUs the builds kept them 89-90% busy)
  cmake --build "$build" -j"$(($(nproc) + 1))" >"$build/build.log" 2>&1 \
    || { cat "$build/build.log" >&2; echo "bench: build failed ($build/build.log)" >&2; return 1; }
}

# The suite the CI gate runs, in one place (ci/test and ci/make-baseline):
# cpu-omp against cpu-blas at square and model shapes, on two conv layers
# (a 3x3 in all three directions, a stride-2 3x3 forward; about 5 s), and on
# one training step of each model (cnn-b64, mlp-b256, mlp-small-b64; about
# 12 s), one thread, so that a busy second core cannot stall OpenMP barriers
# and turn noise into verdicts. Each suite takes the --sizes entries it parses.
# --rounds 10: each case's two rows are measured in alternating 50 ms slices
# of their 0.5 s, so the Intel CI VM's speed phases (seconds long; they moved
# a speedup up to 2x between runs when cpu-omp and cpu-blas were measured
# seconds apart) land on both sides of the ratio.
BENCH_GATE_ARGS="--suite matmul,conv,train --sizes 128,256,512,1024,256x512x784,1024x768x768,\
mb4ic64ih28oc64kh3ph1,fwd:mb4ic32ih56oc64kh3sh2ph1,cnn-b64,mlp-b256,mlp-small-b64 \
--backend cpu-omp,cpu-blas --threads 1 --min-time 0.5 --rounds 10 --no-plots"

# bench_gate_suite BENCH OUT: runs the CI gate suite (ci/test, ci/make-baseline)
# into folder OUT, its peer cpu-blas on the kernels this CPU has. When
# OpenBLAS does not recognise the CPU model it runs kernels of a narrower SIMD
# tier (Prescott SSE on the Intel CI VM, whose time moved 1.6x between quiet
# runs) and a run's `caveat-cpu-blas` context line names the
# OPENBLAS_CORETYPE that selects the right ones; the gate leaves every case
# measured against a caveated backend out (ci/gate.c, caveat_of), so the
# suite runs with that core named, and says so on stderr.
bench_gate_suite() {
  local bench=$1 out=$2 probe core=""
  probe=$(mktemp -d)
  if "$bench" --suite matmul --sizes 32 --backend cpu-blas --threads 1 --reps 1 --no-roofs \
       --no-plots --out "$probe/r" >/dev/null 2>&1; then
    core=$(sed -n 's/^# caveat-cpu-blas: .*OPENBLAS_CORETYPE=\([A-Za-z0-9]*\) .*/\1/p' \
           "$probe/r/results.csv")
  fi
  rm -rf "$probe"
  if [ -n "$core" ]; then
    echo "gate suite: OpenBLAS did not recognise this CPU: it runs with OPENBLAS_CORETYPE=$core" >&2
    # shellcheck disable=SC2086
    OPENBLAS_CORETYPE=$core "$bench" $BENCH_GATE_ARGS --out "$out" >/dev/null
  else
    # shellcheck disable=SC2086
    "$bench" $BENCH_GATE_ARGS --out "$out" >/dev/null
  fi
}
