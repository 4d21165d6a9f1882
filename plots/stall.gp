# plots/stall.gp: distance to the optimum where gradient descent stops, against the learning
# rate, with the prediction (theory/T05; theory/paper.md prediction 2). Under round-to-nearest a
# coordinate x freezes once the step rounds away, |lr a (x - x*)| < s(x)/2, s(x) the spacing of
# the grid just below x. Coming down from x0 > x*, the iterate stops in the first binade
# [2^e, 2^(e+1)) whose point
#     d_e(lr) = s_e / (2 lr a)        (s_e = 2^(e - p + 1), the binade's spacing)
# lies inside it (x* + d_e >= 2^e), or in x*'s own binade, at most at x0 - x* (it never moves):
# the prediction d(lr). Its last move left it within d(lr) (1 - 2 lr a) <= |x_T - x*| <= d(lr),
# the band drawn. The old line ulp(x*)/(2 lr a) holds only once the iterate reaches x*'s binade
# (here lr >= 0.01): at smaller rates it freezes higher, where the spacing is twice as large.
# Under SR the iterate keeps moving and ends on a grid neighbour of x*, at a distance near
# ulp(x*)/2, independent of lr.
#
#   gnuplot -e "in='stall.summary.csv'; out='stall.png'" plots/stall.gp
#   srlab plot stall --in stall.summary.csv -o stall.png
#
# in     summary file of a quad1d sweep over lr (columns lr, final_dist_to_opt_mean and _n)
# out    .png, .svg or .pdf (default stall.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        strategy and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set where=FILTER     keep grid points whose columns match, space-separated: "strategy=bf16-rn"
# --set debug=OUTFILE    the axis ranges drawn (tests)
# --set a=NUMBER         the theory line's curvature (default: the file's '# command:' line, --a,
#                        else quad1d's 1)
# --set xstar=NUMBER     the theory line's optimum (default: --xstar of the '# command:' line, else
#                        0.3)
# --set x0=NUMBER        the start (default: --x0 of the '# command:' line, else 1)
# --set p=INTEGER        the format's precision (default: from the format column, else --format or
#                        --strategy of the '# command:' line, else bf16's 8)
#
# needs: lr final_dist_to_opt_mean   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "stall.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "stall.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "stall.gp"; bydefault = "strategy"; xaxes = "lr"
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

# ---- the sweep's settings, from its '# command:' line (read by common.gpi, no shell) ----
cmd = cmdline
argof(k, d) = (sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) > 0 ? \
    word(cmd, 1 + sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) : d
# the format: the rows' format column where it names one (sweeps write the resolved format),
# else the command line's --format or --strategy
fcol = ""
if (hascol("format")) { stats in using (keep(0) && fcol eq "" ? (fcol = uc(strcol("format")), 0) : 0) nooutput }
if (!exists("a")) a = real(argof("a", "1"))
if (!exists("xstar")) xstar = real(argof("xstar", "0.3"))
if (!exists("x0")) x0 = real(argof("x0", "1"))
load plotdir."stall_theory.gpi"
if (!exists("p")) p = pfor((fcol ne "" && fcol ne "strategy") ? fcol : argof("format", argof("strategy", "bf16")))
theory(lr) = rnd(lr)
tlow(lr) = rnlo(lr)

lmin = 1e308; lmax = 0; dpos = 1e308; nmin = 1e308; nmax = 0
see(l, v, n) = (lmin = (l < lmin ? l : lmin), lmax = (l > lmax ? l : lmax), \
             dpos = (finite(v) && v > 0 && v < dpos) ? v : dpos, nmin = (n < nmin ? n : nmin), nmax = (n > nmax ? n : nmax), 0)
stats in using (keep(0) ? see(column("lr"), column("final_dist_to_opt_mean"), column("final_dist_to_opt_n")) : 0) nooutput
floor = (dpos < 1e308) ? dpos / 2 : 1e-300
clip(v) = (finite(v) ? (v > floor ? v : floor) : NaN)
ing(g) = keep(0) && gkey(0) eq word(groups, g)

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "stall.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
set xlabel "learning rate {/Symbol h}"
set ylabel "final distance to the optimum |x_T - x^*|"
set logscale xy
set format y "10^{%T}"
set format x "10^{%T}"
set xrange [lmin / 1.3 : lmax * 1.3]
if (lmax / lmin * 1.69 < 100) { tax = "x"; tlo = lmin / 1.3; thi = lmax * 1.3; load plotdir."logtics.gpi" }
set yrange [floor / 1.5:*]
set grid xtics ytics mytics lc rgb "#dddddd"
# the key in the space between RN (high at small lr) and SR (near ulp(x*)/2)
set key at graph 0.02, graph 0.46 left top Left reverse box opaque samplen 2
set title sprintf("where gradient descent stops: f = a/2 (x - x^*)^2, a = %g, x^* = %g, p = %d", a, xstar, p)
set samples 200
# Each curve's points, contiguous (rows of other curves in between would break its line): the
# mean over seeds at each learning rate.
set bmargin 5
set label 1 (nmax <= 1 ? "points: one seed each" : sprintf("points: mean over %s", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))) \
    at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
set print $RUNS
print "g,x,y"
set print
set table $RUNS append separator comma
plot for [g=1:G] in using (g):(column("lr")):(clip(column("final_dist_to_opt_mean"))) with table if (ing(g))
unset table
set print $BAND
do for [i=0:200] { bx = lmin / 1.3 * (lmax / lmin * 1.69) ** (i / 200.0); if (finite(tlow(bx))) { print sprintf("%.17g,%.17g,%.17g", bx, tlow(bx), theory(bx)) } }
set print
plot $BAND using 1:2:3 with filledcurves fc rgb "#dde8f3" fs solid 1 noborder \
         title (canpredict ? "RN after its last move" : ""), \
     theory(x) with lines dt 2 lw 2 lc rgb "#000000" title (canpredict ? "RN freezes at s / (2 {/Symbol h} a), s its spacing" : ""), \
     ulp(xstar) / 2 with lines dt 3 lw 1.5 lc rgb "#777777" title "SR: ulp(x^*) / 2", \
     for [g=1:G] $RUNS using ($1 == g ? $2 : NaN):3 smooth unique \
         with linespoints pt 7 ps 1 lw 2 lc rgb col(g) title GL[g]
@showranges
# the prediction at each learning rate drawn, for tests
lines = ""
addl(l) = (strstrt(lines, sprintf(" %.17g ", l)) ? 0 : (lines = lines.sprintf(" %.17g ", l)), 0)
if (exists("debug")) { stats in using (keep(0) ? addl(column("lr")) : 0) nooutput; set print debug append; \
    do for [i=1:words(lines)] { print sprintf("line %s %.17g %.17g", word(lines, i), theory(real(word(lines, i))), tlow(real(word(lines, i)))) }; set print }
set output
