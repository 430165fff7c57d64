# plots/speedup.gp - speedup vs the baseline backend at one shape: bars grouped
# by backend, one bar per mode. On a linear axis (speedups within a decade)
# every bar rises from 0, so a 0.94x bar is a short bar below the dashed 1x
# line; on a log axis (logy, wider spreads) the axis is centred on 1x
# (1/ylim .. ylim) and bars grow up (faster) or down (slower) from 1x.
# Columns: x, speedup, bar bottom, bar top (report/chart_data.c computes them).
# Own parameters: xt (xtics list), bw (bar width), ngroups, nbars (value labels
# when <= 16), sty (mode rank per block), baseline, logy, ylim.
load plotdir . "/common.gp"
eval "set xtics (" . xt . ")"
set xtics rotate by -20 left
set xrange [-0.6:ngroups - 0.4]
set ylabel "speedup vs " . baseline . " (×, higher is faster)"
set xlabel "backend (bars: execution mode)"
set format y "%g×"
if (logy) { set logscale y 10; set yrange [1.0 / ylim:ylim] } else { set yrange [0:*]; set offsets 0, 0, graph 0.12, 0 }
# Value labels past the end of each bar (one clause, no NaN positions:
# gnuplot 5.4.4 crashes on a `with labels` block whose every point is NaN).
# Labels above each bar, upright when groups hold many bars (side by side they
# would overlap); whole numbers from 100x up, never e-notation.
labely(y) = logy ? ((y >= 1) ? y * 1.15 : y / 1.15) : y
upright = (nbars > 2 * ngroups)   # more than two bars a group: labels stand upright
vfmt(y) = (y >= 100) ? sprintf("%.0f×", y) : sprintf("%.3g×", y)
plot 1 with lines dt 2 lw 1.5 lc rgb "#000000" title baseline . " = 1×", \
     for [i = 0:n - 1] data index i using 1:2:($1 - bw / 2):($1 + bw / 2):3:4 \
       with boxxyerror fs solid 0.9 border lc rgb "#303030" \
       fc rgb MODEPAL[int(word(sty, i + 1))] title columnheader(1), \
     for [i = 0:(nbars <= 16 && upright ? n - 1 : -1)] data index i every ::1 \
       using 1:(labely($2)):(vfmt($2)) with labels rotate by 90 left offset 0, (logy ? 0 : 0.5) \
       font ",9" notitle, \
     for [i = 0:(nbars <= 16 && !upright ? n - 1 : -1)] data index i every ::1 \
       using 1:(labely($2)):(vfmt($2)) with labels center offset 0, (logy ? 0 : 0.7) notitle
load plotdir . "/svg.gp"
