# plots/samples.gp - training throughput: samples (the batch) per second vs
# the batch size, log-log, a line per backend (GPU backends in resident mode),
# a panel per model. Columns: batch, samples/s (report/chart_steps.c).
load plotdir . "/common.gp"
xlab = "batch size (samples per step, log scale)"
ylab = "samples/s (log, higher is better)"
logx = 2
logy = 1
ref = 0
bars = 0
lcol(i) = pal(sernum(i))
ldt(i) = 1
lpt(i) = ptype(sernum(i))
lwid(i) = 2
load plotdir . "/panels.gp"
