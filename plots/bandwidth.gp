# plots/bandwidth.gp - bandwidth (GB/s) vs bytes moved per repetition (a
# copy's size, a STREAM kernel's arrays), one line per mode, or per backend and
# mode (stream). Log y: D2D runs far above the host links, small copies are
# latency-bound. Colour = copy direction (H2D, D2H, D2D) or, for other lines,
# one of six more; dashes = pageable, solid = pinned; point = sync (circle),
# async (triangle), other (square). Columns: bytes, GB/s.
# Own parameters: lcs, dts, pts (one word per block).
load plotdir . "/common.gp"
array DIRPAL[9] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442", "#999999"]
set xlabel "bytes moved per repetition (log scale)"
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
