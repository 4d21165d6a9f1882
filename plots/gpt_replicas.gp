# plots/gpt_replicas.gp: data-parallel replicas with shared against independent SR streams
# (theory/T12). Top: the squared distance between replicas, mean over r >= 1 of ||x_r - x_0||^2
# (replica_d2, solid), beside T12's random-walk prediction (replica_d2_pred, dashed), log scale;
# shared streams stay at exactly 0 (stated in the key, since 0 has no place on a log axis).
# Bottom: the fraction of weights on which some replica differs from replica 0.
#
#   gnuplot -e "in='gpt_replicas.csv'; out='gpt_replicas.png'" plots/gpt_replicas.gp
#   srlab plot gpt_replicas --in gpt_replicas.csv -o gpt_replicas.png
#
# in     rows file of srlab sweep or srlab train (columns step, replica_d2, replica_d2_pred,
#        replica_diff_frac, replica_div and the column `by`)
# out    .png, .svg or .pdf (default gpt_replicas.png); fmt overrides the extension
# by     the column that tells the runs apart (default sr-seed)
# where  keep rows whose columns match, space-separated: "seed=1"
#
# needs: step replica_d2 replica_d2_pred replica_diff_frac   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "gpt_replicas.gp: give in='FILE.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "gpt_replicas.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("by")) by = "sr-seed"
if (!exists("where")) where = ""

set datafile separator comma
set datafile columnheaders
set datafile missing ""

nw = words(where)
wkey(i) = word(where, i)[1:strstrt(word(where, i), "=") - 1]
wval(i) = word(where, i)[strstrt(word(where, i), "=") + 1:]
keep(d) = (nw == 0) ? 1 : ((sum [i=1:nw] (strcol(wkey(i)) eq wval(i) ? 0 : 1)) == 0)
finite(v) = (v == v && abs(v) < 1e308)
esc(s) = strstrt(s, "_") ? s[1:strstrt(s, "_") - 1]."\\_".esc(s[strstrt(s, "_") + 1:]) : s

groups = " "
addg(g) = (strstrt(groups, " ".g." ") ? 0 : (groups = groups.g." ", 1))
nsel = 0
stats in using (keep(0) ? (addg(strcol(by)), nsel = nsel + 1) : 0) nooutput
G = words(groups)
if (G == 0 || nsel == 0) { print sprintf("gpt_replicas.gp: no rows in %s match where='%s'", in, where); exit status 2 }
array DIVMAX[G]; array POS[G]
do for [g=1:G] { DIVMAX[g] = 0; POS[g] = 0 }
gidx(s) = sum [i=1:G] (word(groups, i) eq s ? i : 0)
ypos = 1e308
see(g, d, v) = (DIVMAX[g] = (d > DIVMAX[g] ? d : DIVMAX[g]), (finite(v) && v > 0) ? (POS[g] = 1, ypos = (v < ypos ? v : ypos)) : 0, 0)
stats in using (keep(0) ? see(gidx(strcol(by)), column("replica_div"), column("replica_d2")) : 0) nooutput
if (ypos == 1e308) { ypos = 1e-12 }
ing(g) = keep(0) && strcol(by) eq word(groups, g)
pos(v) = (finite(v) && v > 0) ? v : NaN

if (fmt eq "png") { set terminal pngcairo size 900,800 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,800 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,5.5in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "gpt_replicas.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
colors = "#D55E00 #0072B2 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442"
col(i) = word(colors, (i - 1) % 8 + 1)
label(g) = POS[g] ? sprintf("%s = %s: measured", esc(by), word(groups, g)) : sprintf("%s = %s: 0 at every step (largest replica\\_div %g)", esc(by), word(groups, g), DIVMAX[g])
if (!exists("title")) title = "data-parallel replicas: shared against independent SR streams (theory T12)"

set multiplot layout 2,1 title title
set lmargin 12
set xlabel "step t"
set ylabel "mean_r ||x_r - x_0||^2"
set logscale y
set yrange [ypos / 3:*]
set format y "10^{%T}"
set grid xtics ytics lc rgb "#dddddd"
set key bottom right box opaque samplen 3 font ",10"
plot for [g=1:G] in using (ing(g) ? column("step") : NaN):(pos(column("replica_d2"))) with lines lw 2.5 lc rgb col(g) title label(g), \
     for [g=1:G] in using (ing(g) && POS[g] ? column("step") : NaN):(pos(column("replica_d2_pred"))) with lines lw 2 dt 2 lc rgb col(g) \
         title (POS[g] ? sprintf("%s = %s: T12 random-walk prediction", esc(by), word(groups, g)) : "")
unset logscale y
set yrange [0:1.05]
set format y "%g"
set ylabel "fraction of weights that differ"
set key bottom right
plot for [g=1:G] in using (ing(g) ? column("step") : NaN):(column("replica_diff_frac")) with lines lw 2.5 lc rgb col(g) \
         title sprintf("%s = %s", esc(by), word(groups, g))
unset multiplot
set output
