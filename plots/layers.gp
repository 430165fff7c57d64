# plots/layers.gp - bars per case (a network layer), one panel per direction
# (fwd, bwd-data, bwd-filter): throughput (GFLOP/s) per backend, or (speedup=1)
# speedup vs the baseline per backend and mode. report/plots.c draws it twice
# from this script (layers, layer-speedup) for suites whose rows carry a
# direction. Columns: x, value, bar bottom, bar top (report/chart_data.c).
# Own parameters: npanels, pt1 pt2 ... (panel titles: the directions), p0 p1
# (first and last block of each panel), ser (series number per block: its
# colour), xt (xtics), bw (bar width), ncases, logy, ylim, speedup, baseline.
load plotdir . "/common.gp"
PH = 300
ylab = speedup ? "speedup vs " . baseline . " (×)" : "GFLOP/s (higher is better)"
vfmt(y) = speedup ? ((y >= 100) ? sprintf("%.0f×", y) : sprintf("%.3g×", y)) : sprintf("%.3g", y)
do for [t = 1:2] {
    set output
    if (t == 1) {
        set terminal pngcairo size W, PH * npanels + 60 noenhanced font "DejaVu Sans,11" linewidth 1.2
        set output out . ".png"
    } else {
        set terminal svg size W, PH * npanels + 60 dynamic noenhanced font "DejaVu Sans,11" linewidth 1.2 background rgb "white"
        set output out . ".svg"
    }
    set multiplot layout npanels, 1 title fulltitle font "DejaVu Sans,13"
    do for [p = 1:npanels] {
        set title value(sprintf("pt%d", p)) font "DejaVu Sans,11"
        eval "set xtics (" . xt . ")"
        set xtics rotate by -15 left font ",9"
        set xrange [-0.6:ncases - 0.4]
        set ylabel ylab
        unset logscale y
        if (logy) {
            set logscale y 10
            if (speedup) { set yrange [1.0 / ylim:ylim] } else { set yrange [*:ylim] }
            set format y "%g"
        } else {
            set yrange [0:ylim]
            set format y "%g"
        }
        b0 = int(word(p0, p))
        b1 = int(word(p1, p))
        plot (speedup ? 1 : NaN) with lines dt 2 lw 1.2 lc rgb "#000000" notitle, \
             for [i = b0:b1] data index i using 1:2:($1 - bw / 2):($1 + bw / 2):3:4 \
               with boxxyerror fs solid 0.9 border lc rgb "#303030" \
               fc rgb pal(int(word(ser, i + 1))) title columnheader(1)
    }
    unset multiplot
}
set output
