# plots/svg.gp - loaded last by every chart script: replots the chart just
# drawn to out.png as out.svg (same size and font).
set output
set terminal svg size W, H dynamic noenhanced font "DejaVu Sans,11" linewidth 1.2 background rgb "white"
set output out . ".svg"
replot
set output
