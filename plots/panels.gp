# plots/panels.gp - loaded by the step-suite charts (samples, batch-speedup,
# phases, loss) after common.gp and their own settings: one panel per case
# (the model), stacked vertically, drawn to out.png and out.svg.
# Data: blocks written panel by panel (report/chart_series.c,
# chart_write_panels): npanels, p0 p1 (first and last block of each panel),
# ser (series number per block), pt1 pt2 ... (panel titles).
# The caller sets: xlab, ylab, logx (0, 2 or 10), logy (0 or 1), ref (1: a
# dashed 1x line titled reftitle), bars (1: stacked boxes, columns x value
# bottom top, at xt/nx/bw; 0: lines, columns x y), and the block styles
# lcol(i) (colour string), ldt(i) (dash), lpt(i) (point), lwid(i) (width),
# i being the block number from 0; optionally xstep (x tic spacing, e.g. 1
# for whole steps).
PH = 300
if (!exists("xstep")) xstep = 0
PANEL_H = (npanels > 1) ? PH * npanels + 60 : H
if (!exists("reftitle")) reftitle = ""
sernum(i) = int(word(ser, i + 1))
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
    # one right margin for every panel (x axes line up), the key inside it
    set rmargin at screen 0.74
    set key font ",9" spacing 1.0
    do for [p = 1:npanels] {
        set title value(sprintf("pt%d", p)) font "DejaVu Sans,11"
        set xlabel xlab
        set ylabel ylab
        unset logscale
        if (logx) { set logscale x logx }
        if (logy) { set logscale y 10 }
        set format x "%g"
        set format y "%g"
        if (xstep > 0) { set xtics xstep } else { set xtics autofreq }
        b0 = int(word(p0, p))
        b1 = int(word(p1, p))
        if (bars) {
            eval "set xtics (" . xt . ")"
            set xtics rotate by -15 left font ",9"
            set xrange [-0.6:nx - 0.4]
            set yrange [0:*]
            plot NaN notitle, \
                 for [i = b0:b1] data index i using 1:2:($1 - bw / 2):($1 + bw / 2):3:4 \
                   with boxxyerror fs solid 0.9 border lc rgb "#303030" \
                   fc rgb lcol(i) title columnheader(1)
        } else {
            set offsets graph 0.04, graph 0.04, graph 0.05, graph 0.05
            plot (ref ? 1 : NaN) with lines dt 2 lw 1.2 lc rgb "#000000" title reftitle, \
                 for [i = b0:b1] data index i using 1:2 with linespoints lc rgb lcol(i) \
                   dt ldt(i) pt lpt(i) ps 1.1 lw lwid(i) title columnheader(1)
        }
    }
    unset multiplot
}
set output
