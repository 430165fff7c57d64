# plots/accuracy.gp - accuracy_lost per dtype and backend at one problem:
# the same drawing as dtype.gp (report/plots.c passes accuracy=1).
load plotdir . "/dtype.gp"
