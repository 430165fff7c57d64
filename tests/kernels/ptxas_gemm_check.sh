#!/usr/bin/env bash
# tests/kernels/ptxas_gemm_check.sh - what the GEMM kernels need to reach
# their goals on an H100, read from nvcc at sm_90 (no GPU needed):
#
#   ptxas_gemm_check.sh NVCC SOURCE_DIR [README]
#
# Compiles kernels/gemm_wmma.cu and kernels/gemm_regtile.cu once each for
# sm_90 (-cubin -Xptxas -v, keeping the PTX) and, for every kernel instance:
#   - registers, stack and spills from ptxas; threads per block from the PTX's
#     .maxntid (__launch_bounds__); shared memory per block: ptxas's static
#     bytes plus, for cuda-wmma, the dynamic bytes the file exports in its PTX
#     (gemm_wmma_dynamic_smem);
#   - blocks per SM at sm_90: the least of 65536 registers per SM (allocated
#     per warp in units of 256), 228 KiB of shared memory per SM (1 KiB of it
#     reserved per block; at most 227 KiB a block), 2048 threads, 32 blocks;
#   - cuda-wmma: the number of ldmatrix instructions in its PTX body (each is
#     one LDSM in SASS: ptxas does not lower it to other loads).
# Prints one README table row per instance and fails (exit 1) when a kernel
# spills or uses a stack frame, holds fewer than 2 blocks per SM, or a wmma
# instance has no ldmatrix; with README, also when a printed row is not in
# README (the table "GEMM kernels at sm_90" keeps in step with ptxas: paste
# the printed rows). Exit 2 when a compile fails or the output is not
# understood. Extra nvcc flags: $PTXAS_GEMM_NVCC_FLAGS (e.g. -maxrregcount).
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 NVCC SOURCE_DIR [README]" >&2
    exit 2
fi
nvcc=$1 src=$2 readme=${3:-}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

rows=0 bad=0
for f in gemm_wmma gemm_regtile; do
    mkdir -p "$tmp/$f"
    # shellcheck disable=SC2086
    if ! "$nvcc" -std=c++17 -O3 -arch=sm_90 -cubin -Xptxas -v -keep -keep-dir "$tmp/$f" \
            ${PTXAS_GEMM_NVCC_FLAGS:-} -I"$src/harness" -I"$src/kernels" \
            -o "$tmp/$f.cubin" "$src/kernels/$f.cu" >"$tmp/$f.log" 2>&1; then
        echo "compile failed: kernels/$f.cu for sm_90" >&2
        cat "$tmp/$f.log" >&2
        exit 2
    fi
    ptx=$(ls "$tmp/$f"/*.ptx 2>/dev/null | head -1)
    [ -n "$ptx" ] || { echo "no PTX kept for $f" >&2; exit 2; }
    dyn=$(sed -n 's/^\.global .*gemm_wmma_dynamic_smem = \([0-9]*\);/\1/p' "$ptx")
    # per entry in the PTX: threads (.maxntid) and ldmatrix count
    awk '/^(\.visible |\.weak )?\.entry / { name = $NF; sub(/\(.*/, "", name); n[name] = 0 }
         /^\.maxntid/ { t = $2; sub(/,/, "", t); thr[name] = t }
         /ldmatrix/ { n[name]++ }
         END { for (k in thr) printf "%s\t%s\t%s\n", k, thr[k], n[k] + 0 }' "$ptx" \
        >"$tmp/$f.ptxinfo"
    # ptxas -v: entry, then stack/spills, then "Used R registers ... S bytes smem"
    awk '/Compiling entry function/ { split($0, q, "'"'"'"); name = q[2]; next }
         /bytes stack frame/ && name != "" { stack = $1; st = $5; ld = $9; next }
         /Used [0-9]+ registers/ && name != "" {
             regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
             smem = 0
             if (match($0, /[0-9]+ bytes smem/)) { smem = substr($0, RSTART, RLENGTH); sub(/ .*/, "", smem) }
             printf "%s\t%s\t%s\t%s\t%s\t%s\n", name, regs, smem, stack, st, ld
             name = "" }' "$tmp/$f.log" >"$tmp/$f.ptxas"
    while IFS=$'\t' read -r name regs smem stack st ld; do
        info=$(awk -F'\t' -v n="$name" '$1 == n' "$tmp/$f.ptxinfo")
        [ -n "$info" ] || { echo "$name: not found in the PTX (parser out of date?)" >&2; exit 2; }
        threads=$(cut -f2 <<<"$info") ldsm=$(cut -f3 <<<"$info")
        total=$((smem + ${dyn:-0}))
        warps=$(((threads + 31) / 32))
        regs_warp=$((((regs * 32) + 255) / 256 * 256))
        by_regs=$((65536 / (regs_warp * warps)))
        by_smem=$((233472 / (total + 1024)))
        by_thr=$((2048 / threads))
        blocks=$by_regs
        for b in $by_smem $by_thr 32; do [ "$b" -lt "$blocks" ] && blocks=$b; done
        [ "$total" -gt 232448 ] && blocks=0
        pretty=$(printf '%s' "$name" | c++filt | sed 's/(.*//; s/^void //')
        row="| \`$pretty\` | $regs | $threads | $total | $blocks | $ldsm |"
        echo "$row"
        rows=$((rows + 1))
        why=
        [ "$stack" != 0 ] || [ "$st" != 0 ] || [ "$ld" != 0 ] && why="$why spills/stack ($stack/$st/$ld)"
        [ "$blocks" -lt 2 ] && why="$why $blocks block(s) per SM (regs $by_regs, smem $by_smem)"
        [ "$f" = gemm_wmma ] && [ "$ldsm" -eq 0 ] && why="$why no ldmatrix"
        if [ -n "$readme" ] && ! grep -qxF "$row" "$readme"; then
            why="$why not in $(basename "$readme") as printed"
        fi
        if [ -n "$why" ]; then
            echo "FAIL: $pretty:$why" >&2
            bad=1
        fi
    done <"$tmp/$f.ptxas"
done
if [ "$rows" -eq 0 ]; then
    echo "no kernels found in ptxas output: parser out of date?" >&2
    exit 2
fi
[ "$bad" -eq 0 ] || exit 1
echo "ok: $rows GEMM kernels at sm_90: no spills, 2+ blocks per SM, ldmatrix in every cuda-wmma"
