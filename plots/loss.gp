# plots/loss.gp - the loss after each training step, a line per backend
# (emulated rows too: a loss is not a timing), overlaid, a panel per model at
# its largest batch. Backends that agree draw one line: widths shrink from the
# first series to the last, so every colour stays visible where they overlap.
# Columns: step, loss. Own parameter: nsteps (the longest trace).
load plotdir . "/common.gp"
xlab = "step"
ylab = "loss (softmax cross-entropy)"
logx = 0
logy = 0
ref = 0
bars = 0
lcol(i) = pal(sernum(i))
ldt(i) = 1
lpt(i) = ptype(sernum(i))
lwid(i) = (sernum(i) < 6) ? 7 - sernum(i) : 1
xstep = (nsteps <= 20) ? 1 : 0
load plotdir . "/panels.gp"
