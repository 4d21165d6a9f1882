# plots/lr_sweep.gp: final loss gap against learning rate, one curve per strategy (or any
# column): mean over seeds with its 95% confidence interval, and every seed as a dot; log-log.
# The learning-rate sweep figure (theory/paper.md: "use a 2-4x larger learning rate with SR").
#
#   gnuplot -e "in='lr.summary.csv'; out='lr.png'" plots/lr_sweep.gp
#   srlab plot lr_sweep --in lr.summary.csv -o lr.png
#
# in     summary file of srlab sweep (columns lr, final_loss_gap_mean, final_loss_gap_ci95_lo,
#        final_loss_gap_ci95_hi); the seeds' dots come from the runs file beside it
#        (NAME.runs.csv, column final_loss_gap)
# out    .png, .svg or .pdf (default lr_sweep.png); fmt overrides the extension
# by     the column whose values get a curve each (default strategy)
# xcol   the swept column (default lr)
# ycol   the per-run summary metric (default final_loss_gap)
# where  keep runs whose columns match, space-separated: "opt=adamw format=bf16"
# A confidence interval reaching below 0 is drawn down to the bottom of the plot; runs whose value
# is not finite (diverged) have no dot and do not enter the mean (see the summary's _n column).
#
# needs: lr seeds   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "lr_sweep.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "lr_sweep.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("by")) by = "strategy"
if (!exists("xcol")) xcol = "lr"
if (!exists("ycol")) ycol = "final_loss_gap"
if (!exists("where")) where = ""

# The per-run values are in the runs file beside the summary (NAME.runs.csv).
runs = (strlen(in) > 11 && in[strlen(in)-10:] eq "summary.csv") ? in[1:strlen(in)-11]."runs.csv" : in
set datafile separator comma
set datafile columnheaders
set datafile missing ""

nw = words(where)
wkey(i) = word(where, i)[1:strstrt(word(where, i), "=") - 1]
wval(i) = word(where, i)[strstrt(word(where, i), "=") + 1:]
keep(d) = (nw == 0) ? 1 : ((sum [i=1:nw] (strcol(wkey(i)) eq wval(i) ? 0 : 1)) == 0)
finite(v) = (v == v && abs(v) < 1e308)
esc(s) = strstrt(s, "_") ? s[1:strstrt(s, "_") - 1]."\\_".esc(s[strstrt(s, "_") + 1:]) : s  # "_" as text, not a subscript

groups = " "
addg(g) = (strstrt(groups, " ".g." ") ? 0 : (groups = groups.g." ", 1))
ypos = 1e308; nsel = 0; nseeds = 0
see(v) = (nsel = nsel + 1, ypos = (finite(v) && v > 0 && v < ypos) ? v : ypos, 0)
stats runs using (keep(0) ? (addg(strcol(by)), see(column(ycol))) : 0) nooutput
stats in using (keep(0) ? (nseeds = (column(ycol."_n") > nseeds ? column(ycol."_n") : nseeds)) : 0) nooutput
G = words(groups)
if (G == 0 || nsel == 0) { print sprintf("lr_sweep.gp: no rows in %s match where='%s'", in, where); exit status 2 }
floor = (ypos < 1e308) ? ypos / 2 : 1e-300
clip(v) = (finite(v) ? (v > floor ? v : floor) : NaN)
bar(v) = (finite(v) ? clip(v) : clip(column(ycol."_mean")))   # one seed: no interval, no bar
ing(g) = keep(0) && strcol(by) eq word(groups, g)

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "lr_sweep.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442"
col(i) = word(colors, (i - 1) % 8 + 1)
ylab = (ycol eq "final_loss_gap") ? "final loss gap f(x_T) - f^*" : esc(ycol)
xlab = (xcol eq "lr") ? "learning rate {/Symbol h}" : esc(xcol)
set xlabel xlab
set ylabel ylab
set logscale xy
set yrange [floor / 1.5:*]
set format y "10^{%T}"
set format x "10^{%T}"
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top box opaque samplen 2
if (!exists("title")) title = sprintf("%s against %s, by %s%s", ylab, xlab, esc(by), nw ? " ({/Italic ".esc(where)."})" : "")
set title title
set bmargin 5
set label 1 sprintf("line: mean over %d seeds, bars: 95%% confidence interval (Student t); dots: seeds", nseeds) \
    at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
# The means of each curve, contiguous (rows of other curves in between would break its line).
set print $MEANS
print "g,x,y"
set print
set table $MEANS append separator comma
plot for [g=1:G] in using (g):(column(xcol)):(clip(column(ycol."_mean"))) with table if (ing(g))
unset table
plot for [g=1:G] runs using (ing(g) ? column(xcol) : NaN):(clip(column(ycol))) with points pt 6 ps 0.6 lc rgb col(g) notitle, \
     for [g=1:G] in using (ing(g) ? column(xcol) : NaN):(clip(column(ycol."_mean"))):(bar(column(ycol."_ci95_lo"))):(bar(column(ycol."_ci95_hi"))) \
         with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb col(g) notitle, \
     for [g=1:G] $MEANS using ($1 == g ? $2 : NaN):3 smooth unique with lines lw 2.5 lc rgb col(g) \
         title esc(word(groups, g))
set output
