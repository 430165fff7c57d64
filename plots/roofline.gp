# plots/roofline.gp - the roofline of one device kind (report/chart_roofline.c):
# log-log, x = arithmetic intensity (FLOP/byte), y = GFLOP/s. The run's
# measured roofs (solid, one per dtype: the bandwidth roof x intensity capped
# by the dtype's compute roof, the ridge at compute / bandwidth) and the paper
# peaks (dashed), coloured by dtype (dtypepal, as in the dtype chart); the
# rows as points in their dtype's colour (read against the roof of that
# colour), a point type per backend.
# Columns: x, y. Blocks: nroof roofs, npeak paper peaks, then the series.
# Own parameters: nroof, npeak, rsty (dtype rank + 1 per roof and peak block),
# lcs (dtype rank + 1 per series), pts (backend index + 1 per series), xlo, xhi.
load plotdir . "/common.gp"
H = 760   # taller than the others: the key sits below the plot
set output
set terminal pngcairo size W, H noenhanced font "DejaVu Sans,11" linewidth 1.2
set output out . ".png"
array DTYPEPAL[words(dtypepal)]
do for [i = 1:words(dtypepal)] { DTYPEPAL[i] = word(dtypepal, i) }
rcol(i) = DTYPEPAL[int(word(rsty, i + 1))]
nl = nroof + npeak
set xlabel "arithmetic intensity (FLOP/byte, log scale)"
set ylabel "GFLOP/s (log scale, higher is better)"
set logscale x 10
set logscale y 10
set xrange [xlo:xhi]
set format x "%g"
set format y "%g"
set grid xtics ytics lc rgb "#e0e0e0" lt 1 lw 0.6
# the roofs' titles are long: the key below the plot (and its x label), at most
# 6 rows, then columns; the bottom margin makes room for it
KEYROWS = (n < 6) ? n : 6
set bmargin KEYROWS * 1.15 + 4.5
set key at screen 0.5, screen 0.01 center bottom vertical Left reverse maxrows 6 samplen 2.5 \
    spacing 1.1 box lc rgb "#c0c0c0"
plot NaN notitle, \
     for [i = 0:nroof - 1] data index i using 1:2 with lines lc rgb rcol(i) lw 2.5 dt 1 title columnheader(1), \
     for [i = nroof:nl - 1] data index i using 1:2 with lines lc rgb rcol(i) lw 1.5 dt 2 title columnheader(1), \
     for [i = nl:n - 1] data index i using 1:2 with points lc rgb DTYPEPAL[int(word(lcs, i - nl + 1))] \
       pt ptype(int(word(pts, i - nl + 1))) ps 1.5 title columnheader(1)
load plotdir . "/svg.gp"
