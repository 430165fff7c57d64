#!/usr/bin/env bash
# ci/bare_test.sh configure|build SRC CMAKE [NVCC] - the project on a bare
# machine: no OpenBLAS, oneDNN or MPI (looked for where there is none:
# BENCH_OPENBLAS_ROOT pointing nowhere, BENCH_ONEDNN=OFF,
# CMAKE_DISABLE_FIND_PACKAGE_MPI), cuDNN found in a pip wheel's layout under its
# versioned name only (libcudnn.so.9: a stand-in, configure only), NCCL nowhere.
#   configure: the configure summary names what was found (path, version) and
#              what becomes a skip row, and why;
#   build:     (without nvcc) bench and bench-emu build; cpu-blas rows are skips naming
#              OpenBLAS, the emulated GPU rows (cuBLAS on the emulator's plain
#              BLAS among them) pass, the emulator's cuBLAS test passes, and
#              nothing links OpenBLAS.
set -u
mode=$1 src=$2 cmake=$3 nvcc=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }

site=$work/site
bare=(-DBENCH_OPENBLAS_ROOT="$work/nowhere" -DBENCH_ONEDNN=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
      -DBENCH_NCCL_ROOT="$work/nowhere" -DCMAKE_BUILD_TYPE=Release)
if [ -n "$nvcc" ] && [ "$mode" = configure ]; then
  # a wheel's layout: nvidia/cudnn/lib/libcudnn.so.9 (no unversioned link), its headers
  mkdir -p "$site/nvidia/cudnn/lib" "$site/nvidia/cudnn/include"
  : >"$site/nvidia/cudnn/lib/libcudnn.so.9"
  : >"$site/nvidia/cudnn/include/cudnn.h"
  printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 2\n' \
    >"$site/nvidia/cudnn/include/cudnn_version.h"
  bare+=(-DBENCH_NVCC=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DBENCH_CUDNN_ROOT="$site")
else # the build: the emulated GPU flavour only (no GPU here runs the real one)
  nvcc=
  bare+=(-DBENCH_NVCC=OFF)
fi
[ "$mode" = configure ] && bare+=(-DBENCH_TESTS=OFF)

"$cmake" -S "$src" -B "$work/b" "${bare[@]}" >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log" >&2; echo "FAILED: the bare configuration did not configure" >&2; exit 1; }
summary=$(sed -n '/bench configure summary/,/^-- [A-Z]/p' "$work/configure.log")
line() { printf '%s\n' "$summary" | grep -E "^  $1 " || echo "(no $1 line)"; }
[ "$(printf '%s\n' "$summary" | grep -c 'bench configure summary')" -eq 1 ] \
  || fail "want one configure summary: $(cat "$work/configure.log")"
case "$(line OpenBLAS)" in *"NOT FOUND under BENCH_OPENBLAS_ROOT=$work/nowhere"*cpu-blas*skips*) ;;
  *) fail "OpenBLAS line: $(line OpenBLAS)" ;; esac
case "$(line MPI)" in *"NOT FOUND"*skips*) ;; *) fail "MPI line: $(line MPI)" ;; esac
case "$(line oneDNN)" in *"BENCH_ONEDNN=OFF"*cpu-onednn*skips*) ;; *) fail "oneDNN line: $(line oneDNN)" ;; esac
case "$(line gnuplot)" in *found*|*"NOT FOUND"*) ;; *) fail "gnuplot line: $(line gnuplot)" ;; esac
if [ -n "$nvcc" ]; then
  case "$(line CUDA)" in *"found "*"$nvcc"*) ;; *) fail "CUDA line: $(line CUDA)" ;; esac
  case "$(line NCCL)" in *"NOT FOUND under BENCH_NCCL_ROOT=$work/nowhere"*NCCL*) ;; *) fail "NCCL line: $(line NCCL)" ;; esac
  if [ "$mode" = configure ]; then
    case "$(line cuDNN)" in "  cuDNN      found 9.1.2: $site/nvidia/cudnn/lib/libcudnn.so.9") ;;
      *) fail "cuDNN in a wheel's layout, versioned name only: $(line cuDNN)" ;; esac
  fi
else
  case "$(line CUDA)" in *"off (BENCH_NVCC=OFF)"*emulate*) ;; *) fail "CUDA line: $(line CUDA)" ;; esac
fi

if [ "$mode" = build ]; then
  "$cmake" --build "$work/b" -j"$(nproc)" --target bench bench-emu csvq emu_test_cublas_emu \
    >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; fail "the bare build failed"; exit 1; }
  bin=$work/b/bin
  ldd "$bin/bench" "$bin/bench-emu" | grep -i 'openblas\|dnnl\|libmpi' && fail "a bare binary links a library it was built without"
  "$bin/bench" --info | grep -q '^openblas:  none' || fail "bench --info: $("$bin/bench" --info | grep openblas)"
  cd "$work" || exit 1
  "$bin/bench" --suite matmul --sizes 32 --backend cpu-naive,cpu-blas --baseline cpu-naive --out cpu --no-plots \
    >/dev/null 2>&1 || fail "bare CPU run exited $?"
  [ "$("$bin/csvq" cpu/results.csv backend check | sort | paste -sd'|')" = "$(printf 'cpu-blas\tskip|cpu-naive\tpass')" ] &&
    [ "$("$bin/csvq" cpu/results.csv backend note | grep '^cpu-blas')" = "$(printf 'cpu-blas\tOpenBLAS not found at build time')" ] \
    || fail "bare CPU rows: $("$bin/csvq" cpu/results.csv backend check note | tr '\n\t' '|,')"
  # the GPU backends of matmul from the registry, on the emulator (cuBLAS on the plain BLAS)
  gpu=$("$bin/bench" --list --suite matmul | awk '/^    [a-z]/ && $2 == "gpu" { printf "%s%s", sep, $1; sep = "," }')
  [ -n "$gpu" ] || fail "bench --list: no GPU matmul backend"
  "$bin/bench" --emulate --suite matmul --sizes 33x17x9 --backend "$gpu" --dtype all --mode resident \
    --out emu --no-plots >emu.log 2>&1 || fail "bare emulated run exited $?: $(tail -2 emu.log)"
  # every row passes, or is a skip of a dtype its backend does not list
  "$bin/csvq" emu/results.csv backend dtype check note | awk -F'\t' '
    $3 == "pass" { next } $3 == "skip" && $4 ~ /has no .* path/ { next }
    { print "bare emulated row: " $0; bad = 1 } END { exit bad }' || fail "bare emulated rows"
  n_cublas=$("$bin/bench" --list --suite matmul | awk '$1 == "cublas" { print split($3, d, ",") }')
  [ "$("$bin/csvq" emu/results.csv backend check | grep -c $'^cublas\tpass')" -eq "${n_cublas:-0}" ] \
    || fail "cublas on the plain BLAS: want $n_cublas passing rows: $("$bin/csvq" emu/results.csv backend dtype check | grep cublas | tr '\n\t' '|,')"
  CUDAEMU_PROGRESS_MS=0 "$bin/emu_test_cublas_emu" >cublas.log 2>&1 || fail "emu cublas test on the plain BLAS: $(tail -3 cublas.log)"
fi
[ "$fails" -eq 0 ] && echo "ci/bare_test.sh $mode: all checks passed"
exit $((fails > 0))
