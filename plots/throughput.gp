# plots/throughput.gp - throughput (GFLOP/s) vs the work of one repetition
# (GFLOP, from the flops column: the same measure for GEMM, convolution and
# training steps; 2·N³/10⁹ for an N×N×N GEMM), one line per backend (GPU
# backends in resident mode). Columns: x = GFLOP per repetition, GFLOP/s.
# Own parameter: logy (1: log y axis, when the values span more than ~1.5 decades).
load plotdir . "/common.gp"
set xlabel "work per repetition (GFLOP, log scale; 2·N³/10⁹ for N×N×N GEMM)"
set ylabel "throughput (GFLOP/s, higher is better)"
set logscale x 10
set format x "%g"
set offsets graph 0.04, graph 0.04, 0, 0
if (logy) { set logscale y 10; set format y "%g" } else { set yrange [0:*] }
plot for [i = 0:n - 1] data index i using 1:2 with linespoints lc rgb pal(i + 1) \
     pt ptype(i + 1) ps 1.3 lw 2 title columnheader(1)
load plotdir . "/svg.gp"
