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
if (logy) { set logscale y 10; set format y "%g×" } else { set format y "%g×"; set yrange [0:*] }
lo(y) = (y < 1) ? y : 1
hi(y) = (y < 1) ? 1 : y
# Value labels past the end of each bar (one clause, no NaN positions:
# gnuplot 5.4.4 crashes on a `with labels` block whose every point is NaN).
labely(y) = logy ? ((y >= 1) ? y * 1.3 : y / 1.45) : ((y >= 1) ? y : 1)
plot 1 with lines dt 2 lw 1.5 lc rgb "#000000" title baseline . " = 1×", \
     for [i = 0:n - 1] data index i using 1:2:($1 - bw / 2):($1 + bw / 2):(lo($2)):(hi($2)) \
       with boxxyerror fs solid 0.9 border lc rgb "#303030" \
       fc rgb MODEPAL[int(word(sty, i + 1))] title columnheader(1), \
     for [i = 0:(nbars <= 16 ? n - 1 : -1)] data index i every ::1 \
       using 1:(labely($2)):(sprintf("%.3g×", $2)) with labels offset 0, (logy ? 0 : 0.7) notitle
load plotdir . "/svg.gp"
