# plots/batch-speedup.gp - where the GPU starts to win: the speedup of each
# GPU backend and execution mode vs the baseline backend, by batch size, a
# panel per model; above the dashed 1x line the GPU is faster. Colour: the
# mode (MODEPAL, as in speedup.gp); dashes: the backend.
# Columns: batch, speedup. Own parameters: mcol (mode rank + 1 per series),
# bdt (backend number + 1 per series), baseline, logy.
load plotdir . "/common.gp"
xlab = "batch size (samples per step, log scale)"
ylab = "speedup vs " . baseline . " (×)"
logx = 2
ref = 1
reftitle = baseline . " = 1×"
bars = 0
lcol(i) = MODEPAL[int(word(mcol, sernum(i)))]
ldt(i) = int(word(bdt, sernum(i)))
lpt(i) = ptype(int(word(bdt, sernum(i))))
lwid(i) = 2
load plotdir . "/panels.gp"
