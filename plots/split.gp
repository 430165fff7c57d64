# plots/split.gp - end-to-end time of one repetition split into H2D, compute
# and D2H, stacked, one bar per GPU backend and mode (sync and async modes;
# streams-N pipeline the three and are shown in overlap.gp). A diamond marks
# the measured median. Columns: label, h2d_ms, compute_ms, d2h_ms, median_ms.
load plotdir . "/common.gp"
set style data histograms
set style histogram rowstacked
set boxwidth 0.7
set xtics rotate by -40 left
set ylabel "time per repetition (ms)"
set yrange [0:*]
set bmargin 9
set key autotitle columnhead
plot data using 2:xtic(1) lc rgb "#E69F00" title "H2D copy", \
     '' using 3 lc rgb "#0072B2" title "compute", \
     '' using 4 lc rgb "#009E73" title "D2H copy", \
     '' using 0:5 with points pt 12 ps 1.6 lc rgb "#000000" title "measured median"
load plotdir . "/svg.gp"
