# plots/stall.gp: distance to the optimum where gradient descent stops, against the learning
# rate, with the theory line (theory/T05; theory/paper.md prediction 2): under round-to-nearest a
# coordinate freezes once |lr a (x - x*)| < ulp(x)/2, so the iterate stalls within
#     d(lr) = ulp(x*) / (2 lr a)
# of x* (while x*+d stays in the binade of x*). Under SR the iterate keeps moving and its distance
# settles near the grid spacing, independent of lr.
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
if (!exists("a")) a = real(argof("a", "1"))
if (!exists("xstar")) xstar = real(argof("xstar", "0.3"))
# the format: the rows' format column where it names one (sweeps write the resolved format),
# else the command line's --format or --strategy
fcol = ""
if (hascol("format")) { stats in using (keep(0) && fcol eq "" ? (fcol = uc(strcol("format")), 0) : 0) nooutput }
fmtname = (fcol ne "" && fcol ne "strategy") ? fcol : argof("format", argof("strategy", "bf16"))
if (!exists("p")) p = strstrt(fmtname, "fp32") ? 24 : (strstrt(fmtname, "fp16") || strstrt(fmtname, "tf32")) ? 11 : \
    strstrt(fmtname, "e4m3") ? 4 : strstrt(fmtname, "e5m2") ? 3 : 8
ulp(v) = 2.0 ** (floor(log(abs(v)) / log(2)) - p + 1)
theory(lr) = ulp(xstar) / (2 * lr * a)

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
set key top right box opaque samplen 2
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
plot theory(x) with lines dt 2 lw 2 lc rgb "#000000" title "RN stall bound ulp(x^*) / (2 {/Symbol h} a)", \
     ulp(xstar) / 2 with lines dt 3 lw 1.5 lc rgb "#777777" title "ulp(x^*) / 2", \
     for [g=1:G] $RUNS using ($1 == g ? $2 : NaN):3 smooth unique \
         with linespoints pt 7 ps 1 lw 2 lc rgb col(g) title GL[g]
@showranges
set output
