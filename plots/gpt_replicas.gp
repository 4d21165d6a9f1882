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
# --set by=COLUMNS       the column that tells the runs apart (default sr-seed)
# --set where=FILTER     keep rows whose columns match, space-separated: "seed=1"
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn (tests)
#
# needs: step replica_d2 replica_d2_pred replica_diff_frac   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "gpt_replicas.gp: give in='FILE.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "gpt_replicas.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "gpt_replicas.gp"; bydefault = "sr-seed"; xaxes = ""
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"
# one run per curve: the lines follow a run's steps (several seeds would zigzag between them)
seed1 = ""; seed2 = ""
seeseed(v) = (seed1 eq "" ? (seed1 = v) : (seed2 eq "" && v ne seed1 ? (seed2 = v) : ""), 0)
if (hascol("seed")) { stats in using (keep(0) ? seeseed(strcol("seed")) : 0) nooutput }
if (seed2 ne "") { print sprintf("gpt_replicas.gp: %s holds several seeds (%s, %s, ...), and the figure draws one run per curve: keep one with --set where=seed=%s", in, seed1, seed2, seed1); exit status 2 }
array DIVMAX[G]; array POS[G]
do for [g=1:G] { DIVMAX[g] = 0; POS[g] = 0 }
ypos = 1e308
ytop = 0
see(g, d, v, w) = (DIVMAX[g] = (d > DIVMAX[g] ? d : DIVMAX[g]), (finite(v) && v > 0) ? (POS[g] = 1, ypos = (v < ypos ? v : ypos)) : 0, \
    ytop = (finite(v) && v > ytop ? v : ytop), ytop = (finite(w) && w > ytop ? w : ytop), 0)
stats in using (keep(0) ? see(gidx(gkey(0)), column("replica_div"), column("replica_d2"), column("replica_d2_pred")) : 0) nooutput
if (ypos == 1e308) { ypos = 1e-12 }
ing(g) = keep(0) && gkey(0) eq word(groups, g)
pos(v) = (finite(v) && v > 0) ? v : NaN

if (fmt eq "png") { set terminal pngcairo size 900,800 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,800 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,5.5in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "gpt_replicas.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
colors = "#D55E00 #0072B2 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442"
cname(g) = (nl == 1 ? bytitle." = " : "").GL[g]
# a curve that is 0 at every step has no point on a log axis: a note in the panel, not a key entry
zeros = ""
do for [g=1:G] { if (!POS[g]) { zeros = zeros.(zeros eq "" ? "" : "\n").sprintf("%s: 0 at every step (largest replica\\_div %g), not drawn on the log axis", cname(g), DIVMAX[g]) } }
if (!exists("title")) title = "data-parallel replicas: shared against independent SR streams (theory T12)"

set multiplot layout 2,1 title title
set lmargin 12
set xlabel "step t"
set ylabel "mean_r ||x_r - x_0||^2"
set logscale y
set yrange [ypos / 3 : (ytop > 0 ? ytop * (zeros ne "" ? 30 : 3) : 1)]   # room for the note above the curves
set format y "10^{%T}"
set grid xtics ytics lc rgb "#dddddd"
set key bottom right box opaque samplen 3 font ",10"
if (zeros ne "") { set label 2 zeros at graph 0.02, graph 0.93 left font ",10" tc rgb "#333333" }
plot for [g=1:G] in using (ing(g) && POS[g] ? column("step") : NaN):(pos(column("replica_d2"))) with lines lw 2.5 lc rgb col(g) title (POS[g] ? cname(g).": measured" : ""), \
     for [g=1:G] in using (ing(g) && POS[g] ? column("step") : NaN):(pos(column("replica_d2_pred"))) with lines lw 2 dt 2 lc rgb col(g) \
         title (POS[g] ? cname(g).": T12 random-walk prediction" : "")
unset logscale y
unset label 2
set yrange [-0.04:1.05]   # a curve at 0 stays visible above the axis
set format y "%g"
set ytics 0, 0.2, 1
set ylabel "fraction of weights that differ"
set key bottom right
plot for [g=1:G] in using (ing(g) ? column("step") : NaN):(column("replica_diff_frac")) with lines lw 2.5 lc rgb col(g) \
         title cname(g)
unset multiplot
@showranges
set output
