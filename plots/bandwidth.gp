# plots/bandwidth.gp - copy bandwidth (GB/s) vs transfer size, one line per
# mode (log y: D2D runs far above the host links, small copies are latency-bound): colour = direction (H2D, D2H, D2D), dashes = pageable, solid = pinned,
# point = sync (circle) or async (triangle). Columns: bytes, GB/s.
# Own parameters: lcs, dts, pts (one word per block).
load plotdir . "/common.gp"
array DIRPAL[3] = ["#0072B2", "#D55E00", "#009E73"]
set xlabel "transfer size (bytes, log scale)"
set ylabel "bandwidth (GB/s = 10^9 B/s, higher is better)"
set logscale x 2
set format x "%.0b %BB"
set logscale y 10
set format y "%g"
set offsets graph 0.03, graph 0.03, 0, 0
plot for [i = 0:n - 1] data index i using 1:2 with linespoints \
       lc rgb DIRPAL[int(word(lcs, i + 1))] dt int(word(dts, i + 1)) \
       pt int(word(pts, i + 1)) ps 1.2 lw 2 title columnheader(1)
load plotdir . "/svg.gp"
