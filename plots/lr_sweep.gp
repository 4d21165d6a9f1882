# plots/lr_sweep.gp: final loss gap against learning rate, one curve per strategy (or any
# column): mean over seeds with its 95% confidence interval, and every seed as a dot; log-log.
# The learning-rate sweep figure (theory/paper.md: "use a 2-4x larger learning rate with SR").
#
#   gnuplot -e "in='lr.summary.csv'; out='lr.png'" plots/lr_sweep.gp
#   srlab plot lr_sweep --in lr.summary.csv -o lr.png
#
# in     summary file of srlab sweep (columns lr, final_loss_gap_n, final_loss_gap_mean,
#        final_loss_gap_ci95_lo, final_loss_gap_ci95_hi; one row per grid point, or per run)
# --set runs=INFILE      the file with one row per run, for the dots (default: in itself when it
#                        has a `seed` column, else NAME.runs.csv beside NAME.summary.csv; "" for
#                        no dots)
# out    .png, .svg or .pdf (default lr_sweep.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        strategy and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set xcol=COLUMN      the swept column (default lr)
# --set ycol=METRIC      the per-run summary metric (default final_loss_gap)
# --set where=FILTER     keep runs whose columns match, space-separated: "opt=adamw format=bf16"
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn (tests)
# A confidence interval reaching below 0 is drawn down to the bottom of the plot; runs whose value
# is not finite (diverged) have no dot and do not enter the mean (see the summary's _n column).
#
# needs: lr *_mean   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "lr_sweep.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "lr_sweep.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("xcol")) xcol = "lr"
if (!exists("ycol")) ycol = "final_loss_gap"
if (!exists("where")) where = ""
revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]

name = "lr_sweep.gp"; bydefault = "strategy"; xaxes = xcol
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

ypos = 1e308; nmin = 1e308; nmax = 0; nruns = 0; nused = 0; xmin = 1e308; xmax = -1e308
# the x range and the seed counts cover the points drawn (a mean over no finite value is not)
see(x, v, n, s, u) = (ypos = (finite(v) && v > 0 && v < ypos) ? v : ypos, nruns = nruns + s, nused = nused + u, \
    finite(v) && n > 0 ? (nmin = (n < nmin ? n : nmin), nmax = (n > nmax ? n : nmax), \
                          xmin = (x < xmin ? x : xmin), xmax = (x > xmax ? x : xmax)) : 0, 0)
stats in using (keep(0) ? see(column(xcol), column(ycol."_mean"), column(ycol."_n"), sumnew ? column("seeds") : 1, \
                             sumnew ? column(ycol."_n") : finite(column(ycol))) : 0) nooutput
if (xmax < xmin) { print sprintf("lr_sweep.gp: no finite %s_mean in %s", ycol, in); exit status 2 }
floor = (ypos < 1e308) ? ypos / 2 : 1e-300
clip(v) = (finite(v) ? (v > floor ? v : floor) : NaN)
bar(v) = (finite(v) ? clip(v) : clip(column(ycol."_mean")))   # one seed: no interval, no bar
ing(g) = keep(0) && gkey(0) eq word(groups, g)

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "lr_sweep.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
ylab = (ycol eq "final_loss_gap") ? "final loss gap f(x_T) - f^*" : esc(ycol)
xlab = (xcol eq "lr") ? "learning rate {/Symbol h}" : esc(xcol)
set xlabel xlab
set ylabel ylab
set logscale xy
set yrange [floor / 1.5:*]
set format y "10^{%T}"
set format x "10^{%T}"
set xrange [xmin / 1.3 : xmax * 1.3]
if (xmax / xmin * 1.69 < 100) { tax = "x"; tlo = xmin / 1.3; thi = xmax * 1.3; load plotdir."logtics.gpi" }
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top box opaque samplen 2
if (!exists("title")) title = sprintf("%s against %s, by %s%s", ylab, xlab, bytitle, nw ? " ({/Italic ".esc(where)."})" : "")
set title title
set bmargin 5
foot = (nmax <= 1) ? "line: one seed per point (no interval)" : \
    sprintf("line: mean over %s, bars: 95%% confidence interval (Student t)", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))
foot = foot.(perrun ne "" ? "; dots: seeds" : "").(nused < nruns ? sprintf("; %d of %d runs not finite, left out", nruns - nused, nruns) : "")
set label 1 foot at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
# The means of each curve, contiguous (rows of other curves in between would break its line).
set print $MEANS
print "g,x,y"
set print
set table $MEANS append separator comma
plot for [g=1:G] in using (g):(column(xcol)):(clip(column(ycol."_mean"))) with table if (ing(g))
unset table
plot for [g=1:G] (perrun ne "" ? perrun : in) using (perrun ne "" && ing(g) ? column(xcol) : NaN):(perrun ne "" ? clip(column(ycol)) : NaN) with points pt 6 ps 0.6 lc rgb col(g) notitle, \
     for [g=1:G] in using (ing(g) ? column(xcol) : NaN):(clip(column(ycol."_mean"))):(bar(column(ycol."_ci95_lo"))):(bar(column(ycol."_ci95_hi"))) \
         with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb col(g) notitle, \
     for [g=1:G] $MEANS using ($1 == g ? $2 : NaN):3 smooth unique with lines lw 2.5 lc rgb col(g) \
         title GL[g]
@showranges
set output
