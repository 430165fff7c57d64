#!/usr/bin/env bash
# bench.sh - one command: install missing system packages, build build/
# (Release, incrementally), then run bench with the given arguments,
# e.g.  ./bench.sh --suite all   or   ./bench.sh --suite matmul --quick
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$root/ci/setup.sh"
bench_ensure_packages
if [ -f "$root/build/CMakeCache.txt" ]; then
  bench_build "$root" "$root/build"
else
  bench_build "$root" "$root/build" -DCMAKE_BUILD_TYPE=Release
fi
exec "$root/build/bin/bench" "$@"
