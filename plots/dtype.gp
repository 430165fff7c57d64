# plots/dtype.gp - precision at one problem (the one measured at the most
# dtypes, the largest of those; the title names it): bars grouped by backend,
# one bar per dtype, a panel per direction (conv) or a single one (matmul).
# Throughput (GFLOP/s; CPU host, GPU resident, never an emulated row), or
# (accuracy=1, accuracy.gp) accuracy_lost: the relative L2 distance of the
# result from the reference on the unrounded fp32 inputs, log scale (0: an
# exact result, a bar of no height labelled 0). Colours follow the dtype
# (its row's colour in ops/dtype.h, passed as dtypepal), the same in both charts.
# Columns: x, value, bar bottom, bar top (report/chart_dtype.c).
# Own parameters: npanels, pt1 pt2 ... (panel titles: the directions), p0 p1
# (first and last block of each panel), ser (series number per block), sty
# (dtype rank + 1 per series), xt (xtics: the backends), ngroups, bw (bar
# width), nbars (value labels when <= 48), logy, ymin, ylim, accuracy.
load plotdir . "/common.gp"
array DTYPEPAL[words(dtypepal)]   # the dtype rows' colours (ops/dtype.h), in order
do for [i = 1:words(dtypepal)] { DTYPEPAL[i] = word(dtypepal, i) }
dcol(i) = DTYPEPAL[int(word(sty, int(word(ser, i + 1))))]
PH = 320
PANEL_H = (npanels > 1) ? PH * npanels + 60 : H
ylab = accuracy ? "accuracy lost (log, lower is better)" : "GFLOP/s (higher is better)"
vfmt(y) = accuracy ? ((y > 0) ? sprintf("%.1e", y) : "0") : sprintf("%.3g", y)
do for [t = 1:2] {
    set output
    if (t == 1) {
        set terminal pngcairo size W, PANEL_H noenhanced font "DejaVu Sans,11" linewidth 1.2
        set output out . ".png"
    } else {
        set terminal svg size W, PANEL_H dynamic noenhanced font "DejaVu Sans,11" linewidth 1.2 background rgb "white"
        set output out . ".svg"
    }
    set multiplot layout npanels, 1 title fulltitle font "DejaVu Sans,13"
    set rmargin at screen 0.84   # one right margin for every panel, the key inside it
    do for [p = 1:npanels] {
        set title value(sprintf("pt%d", p)) font "DejaVu Sans,11"
        eval "set xtics (" . xt . ")"
        set xtics rotate by -15 left font ",9"
        set xrange [-0.6:ngroups - 0.4]
        set xlabel "backend (bars: dtype)"
        set ylabel ylab
        unset logscale y
        if (logy) { set logscale y 10; set yrange [ymin:ylim]; set format y (accuracy ? "%.0e" : "%g") } \
        else { set yrange [0:ylim]; set format y "%g" }
        b0 = int(word(p0, p))
        b1 = int(word(p1, p))
        plot NaN notitle, \
             for [i = b0:b1] data index i using 1:2:($1 - bw / 2):($1 + bw / 2):3:4 \
               with boxxyerror fs solid 0.9 border lc rgb "#303030" \
               fc rgb dcol(i) title columnheader(1), \
             for [i = (nbars <= 48 ? b0 : 0):(nbars <= 48 ? b1 : -1)] data index i every ::1 \
               using 1:4:(vfmt($2)) with labels rotate by 90 left offset 0, 0.3 font ",8" notitle
    }
    unset multiplot
}
set output
