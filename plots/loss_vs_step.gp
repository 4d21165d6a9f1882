# plots/loss_vs_step.gp: loss gap against step, one curve per strategy (or any column), mean
# over seeds with the band from the smallest to the largest seed, log scale.
#
#   gnuplot -e "in='lr.csv'; out='loss.png'" plots/loss_vs_step.gp
#   srlab plot loss_vs_step --in lr.csv -o loss.png --set by=rounding --set "where=lr=0.01"
#
# in     rows file of srlab sweep (srlab train rows: run, axes..., step, loss_gap, ...)
# out    .png, .svg or .pdf (default loss_vs_step.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        strategy and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set ycol=COLUMN      the metric (default loss_gap)
# --set where=FILTER     keep runs whose columns match, space-separated: "lr=0.01 format=bf16"
#                        (default all)
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn (tests)
# Every run of a curve must log the same steps (same steps and log-every): the curve's point j
# is the mean of the runs' j-th rows. Values <= 0 cannot show on a log axis: a band edge at 0 is
# drawn at the bottom of the plot, a mean of 0 leaves a gap.
#
# needs: run step   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "loss_vs_step.gp: give in='FILE.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "loss_vs_step.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("ycol")) ycol = "loss_gap"
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "loss_vs_step.gp"; bydefault = "strategy"; xaxes = ""
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

# ---- pass 1: the rows per run, the smallest positive value ----
lastrun = -1; j = 0; jmax = 0; ypos = 1e308; nsel = 0
rowidx(r) = (r != lastrun ? (lastrun = r, j = 0) : (j = j + 1), jmax = (j > jmax ? j : jmax), j)
see(v) = (nsel = nsel + 1, ypos = (finite(v) && v > 0 && v < ypos) ? v : ypos, 0)
stats in using (rowidx(column("run")), keep(0) ? see(column(ycol)) : 0) nooutput
J = jmax + 1
floor = (ypos < 1e308) ? ypos / 2 : 1e-300

# ---- pass 2: count, sum, min and max per curve and row index ----
N = G * J
array X[N]; array C[N]; array S[N]; array MN[N]; array MX[N]; array R[G]
do for [i=1:N] { C[i] = 0; S[i] = 0; MN[i] = 1e308; MX[i] = -1e308; X[i] = NaN }
do for [i=1:G] { R[i] = 0 }
acc(gi, jj, x, v) = (kk = (gi - 1) * J + jj + 1, X[kk] = x, (jj == 0 ? R[gi] = R[gi] + 1 : 0), \
    finite(v) ? (C[kk] = C[kk] + 1, S[kk] = S[kk] + v, MN[kk] = (v < MN[kk] ? v : MN[kk]), \
                 MX[kk] = (v > MX[kk] ? v : MX[kk])) : 0, 0)
lastrun = -1; j = 0
stats in using (jj = rowidx(column("run")), keep(0) ? acc(gidx(gkey(0)), jj, column("step"), column(ycol)) : 0) nooutput

mean(k) = C[k] > 0 && S[k] / C[k] > 0 ? S[k] / C[k] : NaN
lo(k) = C[k] > 0 ? (MN[k] > floor ? MN[k] : floor) : NaN
hi(k) = C[k] > 0 ? (MX[k] > floor ? MX[k] : floor) : NaN

# ---- the figure (arrays have no header line) ----
set datafile nocolumnheaders
if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "loss_vs_step.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
ylab = (ycol eq "loss_gap") ? "loss gap f(x_t) - f^*" : esc(ycol)
set xlabel "step t"
set ylabel ylab
set logscale y
set yrange [floor / 1.5:*]
set autoscale yfixmax
set offsets 0, 0, graph 0.04, 0   # a curve at the top of the range stays inside
set format y "10^{%T}"
set grid xtics ytics mytics lc rgb "#dddddd"
if (G > 3) { set key outside right top box opaque samplen 2 } else { set key top right box opaque samplen 2 }
if (!exists("title")) title = sprintf("%s against step, by %s%s", ylab, bytitle, nw ? " ({/Italic ".esc(where)."})" : "")
set title title
set style fill transparent solid 0.18 noborder
set bmargin 5
rmin = R[1]; rmax = R[1]
do for [g=1:G] { rmin = (R[g] < rmin ? R[g] : rmin); rmax = (R[g] > rmax ? R[g] : rmax) }
set label 1 (rmax == 1 ? "line: one seed per curve" : sprintf("line: mean over %s; band: smallest to largest seed", \
    rmin == rmax ? nseeds(rmax) : "the seeds of each curve (key)")) at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
plot for [g=1:G] X every ::((g-1)*J)::(g*J-1) using (X[$1]):(lo($1)):(hi($1)) with filledcurves lc rgb col(g) notitle, \
     for [g=1:G] X every ::((g-1)*J)::(g*J-1) using (X[$1]):(mean($1)) with lines lw 2.5 lc rgb col(g) \
         title (rmin == rmax ? GL[g] : sprintf("%s (%s)", GL[g], nseeds(R[g])))
@showranges
set output
