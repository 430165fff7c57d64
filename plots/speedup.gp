# plots/speedup.gp - speedup vs the baseline backend at one shape: bars grouped
# by backend, one bar per mode, each growing up (faster) or down (slower) from
# the 1x line. Columns: x, speedup. Own parameters: xt (xtics list), bw (bar
# width), ngroups, nbars (value labels when <= 16), sty (mode rank per block), baseline, logy.
load plotdir . "/common.gp"
eval "set xtics (" . xt . ")"
set xtics rotate by -20 left
set xrange [-0.6:ngroups - 0.4]
set ylabel "speedup vs " . baseline . " (×, higher is faster)"
set xlabel "backend (bars: execution mode)"
if (logy) { set logscale y 10; set format y "%g×"; set offsets 0, 0, graph 0.12, 0 } else { set format y "%g×"; set yrange [0:*] }
lo(y) = (y < 1) ? y : 1
hi(y) = (y < 1) ? 1 : y
# Value labels past the end of each bar (one clause, no NaN positions:
# gnuplot 5.4.4 crashes on a `with labels` block whose every point is NaN).
# Labels above each bar, upright when groups hold many bars (side by side they
# would overlap); whole numbers from 100x up, never e-notation.
labely(y) = logy ? ((y >= 1) ? y * 1.15 : y / 1.15) : ((y >= 1) ? y : 1)
upright = (nbars > 2 * ngroups)   # more than two bars a group: labels stand upright
vfmt(y) = (y >= 100) ? sprintf("%.0f×", y) : sprintf("%.3g×", y)
plot 1 with lines dt 2 lw 1.5 lc rgb "#000000" title baseline . " = 1×", \
     for [i = 0:n - 1] data index i using 1:2:($1 - bw / 2):($1 + bw / 2):(lo($2)):(hi($2)) \
       with boxxyerror fs solid 0.9 border lc rgb "#303030" \
       fc rgb MODEPAL[int(word(sty, i + 1))] title columnheader(1), \
     for [i = 0:(nbars <= 16 && upright ? n - 1 : -1)] data index i every ::1 \
       using 1:(labely($2)):(vfmt($2)) with labels rotate by 90 left offset 0, (logy ? 0 : 0.5) \
       font ",9" notitle, \
     for [i = 0:(nbars <= 16 && !upright ? n - 1 : -1)] data index i every ::1 \
       using 1:(labely($2)):(vfmt($2)) with labels center offset 0, (logy ? 0 : 0.7) notitle
load plotdir . "/svg.gp"
