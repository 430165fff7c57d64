# plots/phases.gp - one profiled training step split into its phases
# (forward, backward, update: the phase_ms column), stacked bars per backend
# (GPU backends in resident mode), a panel per model at its largest batch.
# Columns: backend number, ms, bar bottom, bar top. Own parameters: xt, nx, bw.
load plotdir . "/common.gp"
array PHASEPAL[3] = ["#0072B2", "#D55E00", "#009E73"]
xlab = "backend"
ylab = "time of one step (ms)"
logx = 0
logy = 0
ref = 0
bars = 1
lcol(i) = (sernum(i) <= 3) ? PHASEPAL[sernum(i)] : pal(sernum(i) + 3)
load plotdir . "/panels.gp"
