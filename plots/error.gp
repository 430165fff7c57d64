# plots/error.gp - numerical error per backend: the row closest to its
# tolerance (bar: relative L2 error, log scale; black dash: its tolerance;
# a result with NaN/Inf has no error to show and is drawn at 1 = 100%).
# Bars are coloured by what they are: checked on hardware, emulated
# (correctness only, not a timing) or failed. Columns: x, rel_err, tolerance.
# Own parameters: xt (xtics list), nbars, sty (group per block: 1 hardware,
# 2 emulated, 3 failed).
load plotdir . "/common.gp"
array GRP[3] = ["#0072B2", "#9DB9D3", "#D55E00"]
eval "set xtics (" . xt . ")"
set xtics rotate by -25 left
set xrange [-0.6:nbars - 0.4]
set logscale y 10
set yrange [ymin:*]
set format y "%.0e"
set ylabel "relative L2 error (log scale, lower is better)"
set bmargin 7
plot for [i = 0:n - 1] data index i using 1:2:($1 - 0.3):($1 + 0.3):(ymin):2 \
       with boxxyerror fs solid 0.9 border lc rgb "#303030" \
       fc rgb GRP[int(word(sty, i + 1))] title columnheader(1), \
     for [i = 0:n - 1] data index i using 1:3:($1 - 0.38):($1 + 0.38) with xerrorbars \
       pt 0 lw 3 lc rgb "#000000" title (i == 0 ? "tolerance" : "")
load plotdir . "/svg.gp"
