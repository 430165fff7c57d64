# plots/merge.gp - a merge of several machines' runs (bench --merge): per
# suite, bars per workload, one per machine, its speedup against the
# reference machine, a panel per device kind: the same drawing as layers.gp
# (speedup=1, baseline = the reference machine; report/chart_merge.c).
load plotdir . "/layers.gp"
