# plots/overlap.gp - stream overlap efficiency (ideal pipelined time ÷ measured)
# vs the number of streams, one line per backend, at one shape.
# Columns: streams, overlap_eff.
load plotdir . "/common.gp"
set xlabel "number of streams (chunks pipelined H2D → compute → D2H)"
set ylabel "overlap efficiency (ideal ÷ measured)"
set logscale x 2
set xtics (2, 4, 8)
set xrange [1.6:10]
set yrange [0:1.15]
set ytics 0.2
plot for [i = 0:n - 1] data index i using 1:2 with linespoints lc rgb pal(i + 1) \
       pt ptype(i + 1) ps 1.3 lw 2 title columnheader(1), \
     1 with lines dt 2 lw 1.5 lc rgb "#000000" title "ideal (full overlap)"
load plotdir . "/svg.gp"
