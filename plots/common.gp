# plots/common.gp - shared set-up loaded first by every chart script in plots/.
#
# The scripts read a plain data file that report/plots.c writes per chart
# (<run>/plots/<chart>-<suite>.dat, removed after rendering): gnuplot 5.4
# cannot read results.csv itself, because strcol() cuts an RFC 4180 quoted
# field at its first comma (the device and note columns hold such fields).
# The file holds n blocks separated by two blank lines; each block opens with
# its quoted series title (plotted with `title columnheader(1)`).
#
# Parameters, from gnuplot -e "k='v'; ..." (report/plots.c passes them all):
#   plotdir  this folder              data   the data file
#   out      output path without extension: writes out.png and out.svg
#   suite    the suite                n      number of blocks in data
#   title    chart title              devline  "CPU: ... · GPU: ..." (may be "")
#   modepal  the modes' colours       dtypepal the dtypes' colours (rank order)
# plus each script's own (listed at its top).
# By hand: BENCH_KEEP_PLOT_DATA=1 bench --plot DIR keeps the data files, and
#   gnuplot -e "plotdir='plots'; data='DIR/plots/throughput-matmul.dat'; \
#               out='/tmp/t'; suite='matmul'; title='t'; devline=''; n=3; logy=0; \
#               modepal='#606060 #0072B2'; dtypepal='#0072B2'" \
#           plots/throughput.gp

if (!exists("devline")) devline = ""
fulltitle = title . ((strlen(devline) > 0) ? "\n" . devline : "")

# Series colours (Okabe-Ito, distinguishable in print and by most colour-blind readers).
array PAL[10] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", \
                 "#56B4E9", "#000000", "#8C564B", "#7F7F7F", "#BCBD22"]
pal(i) = PAL[((i - 1) % 10) + 1]
# Point types cycling with the colours, so lines differ without colour too.
array PTS[8] = [7, 5, 9, 11, 13, 15, 4, 6]
ptype(i) = PTS[((i - 1) % 8) + 1]
# One colour per mode, the same in every chart: modepal (report/plots.c) lists
# them in rank order (host, then the GPU modes), from the mode rows
# (harness/mode.h); plots.c passes each series' rank.
array MODEPAL[words(modepal)]
do for [i = 1:words(modepal)] { MODEPAL[i] = word(modepal, i) }

W = 1000
H = 600
set terminal pngcairo size W, H noenhanced font "DejaVu Sans,11" linewidth 1.2
set output out . ".png"
set encoding utf8
set border 3 lc rgb "#404040"
set tics nomirror out
set grid ytics lc rgb "#d8d8d8" lt 1 lw 0.6
set key outside right top vertical Left reverse samplen 2.5 spacing 1.2 box lc rgb "#c0c0c0"
set title fulltitle font "DejaVu Sans,13"
set style fill solid 0.9 border lc rgb "#303030"
set datafile missing "nan"
