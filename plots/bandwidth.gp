# plots/bandwidth.gp - bandwidth (GB/s) vs bytes moved per repetition, one
# line per backend and mode: the transfer suite's copies, STREAM's kernels
# (log y: D2D runs far above the host links, small copies are latency-bound).
# Colour: the copy direction (H2D, D2H, D2D = palette 1, 2, 3) or the series;
# dashes = pageable, solid = pinned or other; point = sync (circle), async
# (triangle), other (square). Columns: bytes, GB/s.
# Own parameters: lcs (palette index), dts, pts (one word per block).
load plotdir . "/common.gp"
set xlabel "bytes moved per repetition (log scale)"
set ylabel "bandwidth (GB/s = 10^9 B/s, higher is better)"
set logscale x 2
set format x "%.0b %BB"
set logscale y 10
set format y "%g"
set offsets graph 0.03, graph 0.03, 0, 0
plot for [i = 0:n - 1] data index i using 1:2 with linespoints \
       lc rgb pal(int(word(lcs, i + 1))) dt int(word(dts, i + 1)) \
       pt int(word(pts, i + 1)) ps 1.2 lw 2 title columnheader(1)
load plotdir . "/svg.gp"
