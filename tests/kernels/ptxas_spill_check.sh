#!/usr/bin/env bash
# tests/kernels/ptxas_spill_check.sh - no kernel of kernels/ may spill registers.
#
#   ptxas_spill_check.sh NVCC SOURCE_DIR ARCH...      (e.g. ... /usr/local/cuda/bin/nvcc . 80 90)
#
# Compiles every kernels/*.cu to a cubin for each sm_ARCH with `-Xptxas -v`,
# prints one row per kernel and architecture (registers per thread, static
# shared memory per block, stack frame, spill stores and loads), and exits 1
# when any kernel reports spill stores or loads, or stack frame use, 2 when a
# compile fails.  Extra nvcc flags come from $SPILL_CHECK_NVCC_FLAGS (e.g.
# -maxrregcount=16 shows the check failing).
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 NVCC SOURCE_DIR ARCH..." >&2
    exit 2
fi
nvcc=$1 src=$2
shift 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
files=("$src"/kernels/*.cu)
if [ ${#files[@]} -eq 0 ]; then
    echo "no kernels/*.cu under $src" >&2
    exit 2
fi

printf '%-6s %-44s %5s %7s %6s %9s %9s\n' arch kernel regs smem_B stack spill_st spill_ld
bad=0 rows=0
for arch in "$@"; do
    for f in "${files[@]}"; do
        log=$tmp/$(basename "$f" .cu).sm_$arch.log
        # shellcheck disable=SC2086
        if ! "$nvcc" -std=c++17 -O3 -arch=sm_"$arch" -cubin -Xptxas -v \
                ${SPILL_CHECK_NVCC_FLAGS:-} -I"$src/harness" -I"$src/kernels" \
                -o "$tmp/out.cubin" "$f" >"$log" 2>&1; then
            echo "compile failed: $f for sm_$arch" >&2
            cat "$log" >&2
            exit 2
        fi
        # ptxas -v: "Compiling entry function 'X' for 'sm_NN'", then
        # "N bytes stack frame, S bytes spill stores, L bytes spill loads",
        # then "Used R registers, ... B bytes smem ..." (smem absent when 0).
        while IFS=$'\t' read -r name regs smem stack st ld; do
            rows=$((rows + 1))
            pretty=$(printf '%s' "$name" | c++filt 2>/dev/null | sed 's/(.*//; s/^void //')
            [ -n "$pretty" ] || pretty=$name
            flag=
            if [ "$st" != 0 ] || [ "$ld" != 0 ] || [ "$stack" != 0 ]; then
                flag="  <-- SPILLS"
                bad=1
            fi
            printf '%-6s %-44s %5s %7s %6s %9s %9s%s\n' "sm_$arch" "$pretty" "$regs" \
                "$smem" "$stack" "$st" "$ld" "$flag"
        done < <(awk '
            /Compiling entry function/ { split($0, q, "'"'"'"); name = q[2]; next }
            /bytes stack frame/ && name != "" {
                stack = $1; st = $5; ld = $9; next }
            /Used [0-9]+ registers/ && name != "" {
                regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
                smem = 0
                if (match($0, /[0-9]+ bytes smem/)) { smem = substr($0, RSTART, RLENGTH); sub(/ .*/, "", smem) }
                printf "%s\t%s\t%s\t%s\t%s\t%s\n", name, regs, smem, stack, st, ld
                name = "" }' "$log")
    done
done
if [ "$rows" -eq 0 ]; then
    echo "no kernels found in ptxas output: parser out of date?" >&2
    exit 2
fi
if [ "$bad" -ne 0 ]; then
    echo "FAIL: register spills (see <-- SPILLS); shrink the tile or the live state" >&2
    exit 1
fi
echo "ok: $rows kernel builds, no spills"
