# ci/setup.sh - sourced by bench.sh and ci/test: installs what is missing and
# configures + builds a CMake build folder.  Quick no-op when all is there.
# Without root it prints the exact apt-get line and stops.

BENCH_PACKAGES="cmake make gcc g++ libopenblas-dev libdnnl-dev gnuplot-nox git openmpi-bin libopenmpi-dev"

bench_missing_packages() {
  local missing="" p
  for p in $BENCH_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing="$missing $p"
  done
  echo "${missing# }"
}

bench_ensure_packages() {
  command -v dpkg-query >/dev/null 2>&1 || return 0   # not Debian: trust the PATH
  local missing
  missing=$(bench_missing_packages)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "bench: missing packages: $missing" >&2
    echo "bench: run as root:  apt-get update && apt-get install -y --no-install-recommends $missing" >&2
    return 1
  fi
  echo "bench: installing $missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $missing >&2
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
  fi
  echo "bench: building $build (log: $build/build.log)" >&2
  cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1 \
    || { cat "$build/build.log" >&2; echo "bench: build failed ($build/build.log)" >&2; return 1; }
}

# The suite the CI gate runs, in one place (ci/test and ci/make-baseline):
# cpu-omp against cpu-blas at square and model shapes, on two conv layers
# (a 3x3 in all three directions, a stride-2 3x3 forward; about 5 s), and on
# one training step of each model (cnn-b64, mlp-b256, mlp-small-b64; about
# 12 s), one thread, so that a busy second core cannot stall OpenMP barriers
# and turn noise into verdicts. Each suite takes the --sizes entries it parses.
BENCH_GATE_ARGS="--suite matmul,conv,train --sizes 128,256,512,1024,256x512x784,1024x768x768,\
mb4ic64ih28oc64kh3ph1,fwd:mb4ic32ih56oc64kh3sh2ph1,cnn-b64,mlp-b256,mlp-small-b64 \
--backend cpu-omp,cpu-blas --threads 1 --min-time 0.5 --no-plots"
