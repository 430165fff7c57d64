# plots/layer-speedup.gp - speedup vs the baseline per layer, backend and mode,
# a panel per direction: the same drawing as layers.gp (speedup=1).
load plotdir . "/layers.gp"
