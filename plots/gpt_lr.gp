# plots/gpt_lr.gp: final validation loss against learning rate, one curve per strategy (or any
# column): the mean over seeds as a line, every seed as a dot, log-log. With a known optimum
# (the GPT's Markov source, the MLP's teacher) the y axis is the validation gap val_loss - f*;
# without one (--data FILE) it is the validation loss itself. The seed paper's figure: the best
# learning rate of each strategy, and how bf16-rn and bf16-sr compare with mp at theirs.
#
#   gnuplot -e "in='gpt_lr.summary.csv'; out='gpt_lr.png'" plots/gpt_lr.gp
#   srlab plot gpt_lr --in gpt_lr.summary.csv -o gpt_lr.png
#
# in     summary file of srlab sweep (columns lr, final_val_loss, final_fstar, diverged)
# out    .png, .svg or .pdf (default gpt_lr.png); fmt overrides the extension
# by     the column whose values get a curve each (default strategy)
# xcol   the swept column (default lr)
# ycol   the per-run metric (default final_val_loss; its gap to final_fstar when that is finite)
# where  keep runs whose columns match, space-separated: "opt=adamw"
# Diverged runs (or non-finite values) get a cross at the top of the plot and no part in the mean.
#
# needs: lr seeds   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "gpt_lr.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "gpt_lr.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("by")) by = "strategy"
if (!exists("xcol")) xcol = "lr"
if (!exists("ycol")) ycol = "final_val_loss"
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
esc(s) = strstrt(s, "_") ? s[1:strstrt(s, "_") - 1]."\\_".esc(s[strstrt(s, "_") + 1:]) : s

# ---- pass 1: curves, x values, whether f* is known, the smallest positive y ----
groups = " "; xs = " "
addg(g) = (strstrt(groups, " ".g." ") ? 0 : (groups = groups.g." ", 1))
addx(x) = (strstrt(xs, " ".x." ") ? 0 : (xs = xs.x." ", 1))
nfs = 0; nsel = 0
seefs(f) = (nfs = nfs + (finite(f) ? 1 : 0), 0)
stats runs using (keep(0) ? (addg(strcol(by)), addx(strcol(xcol)), seefs(column("final_fstar")), nsel = nsel + 1) : 0) nooutput
G = words(groups); X = words(xs)
if (G == 0 || nsel == 0) { print sprintf("gpt_lr.gp: no rows in %s match where='%s'", runs, where); exit status 2 }
gap = (nfs == nsel)
yv(d) = gap ? column(ycol) - column("final_fstar") : column(ycol)
ok(v) = finite(v) && (!gap || v > 0) && column("diverged") == 0
ypos = 1e308; ymax = -1e308; xmin = 1e308; xmax = -1e308
seey(v) = (ok(v) ? (ypos = (v < ypos ? v : ypos), ymax = (v > ymax ? v : ymax)) : 0, 0)
seex(x) = (xmin = (x < xmin ? x : xmin), xmax = (x > xmax ? x : xmax), 0)
stats runs using (keep(0) ? (seey(yv(0)), seex(column(xcol))) : 0) nooutput
if (ypos == 1e308) { print "gpt_lr.gp: no finite values to plot"; exit status 2 }

# ---- pass 2: mean per curve and x ----
N = G * X
array S[N]; array C[N]; array XV[N]
do for [i=1:N] { S[i] = 0; C[i] = 0; XV[i] = NaN }
gidx(g) = sum [i=1:G] (word(groups, i) eq g ? i : 0)
xidx(x) = sum [i=1:X] (word(xs, i) eq x ? i : 0)
acc(k, x, v) = (XV[k] = x, ok(v) ? (S[k] = S[k] + v, C[k] = C[k] + 1) : 0, 0)
stats runs using (keep(0) ? acc((gidx(strcol(by)) - 1) * X + xidx(strcol(xcol)), column(xcol), yv(0)) : 0) nooutput
top = ymax * 1.25
set print $MEANS
print "g,x,y"
do for [g=1:G] { do for [i=1:X] { k = (g - 1) * X + i; if (C[k] > 0) { print sprintf("%d,%.17g,%.17g", g, XV[k], S[k] / C[k]) } } }
set print

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "gpt_lr.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442"
col(i) = word(colors, (i - 1) % 8 + 1)
ylab = gap ? "final validation gap  val\\_loss - f^*  (nats)" : "final validation loss (nats)"
set xlabel (xcol eq "lr" ? "peak learning rate {/Symbol h}" : esc(xcol))
set ylabel ylab
set logscale x
ylo = ypos / 1.15; yhi = top * 1.1
set yrange [ylo : yhi]
if (gap) { set logscale y; set format y "%g" }
# a narrow log range gets tics of its own (gnuplot would label one decade at most)
if (gap && yhi / ylo < 100) { f = (yhi / ylo) ** (1.0 / 6); set ytics (sprintf("%.3g", ylo * f) ylo * f); do for [i=2:5] { set ytics add (sprintf("%.3g", ylo * f**i) ylo * f**i) } }
set xrange [xmin / 1.4 : xmax * 1.4]
set format x "%g"
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top box opaque samplen 2
if (!exists("title")) title = sprintf("final validation %s against %s, by %s%s", gap ? "gap" : "loss", xcol eq "lr" ? "learning rate" : esc(xcol), esc(by), nw ? " ({/Italic ".esc(where)."})" : "")
set title title
set bmargin 5
set label 1 "line: mean over seeds; dots: seeds; x at the top: diverged or non-finite" at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
ing(g) = keep(0) && strcol(by) eq word(groups, g)
plot for [g=1:G] runs using (ing(g) && ok(yv(0)) ? column(xcol) : NaN):(yv(0)) with points pt 6 ps 0.7 lc rgb col(g) notitle, \
     for [g=1:G] runs using (ing(g) && !ok(yv(0)) ? column(xcol) : NaN):(top) with points pt 2 ps 1.2 lc rgb col(g) notitle, \
     for [g=1:G] $MEANS using ($1 == g ? $2 : NaN):3 smooth unique with linespoints pt 7 ps 0.9 lw 2.5 lc rgb col(g) title esc(word(groups, g))
set output
