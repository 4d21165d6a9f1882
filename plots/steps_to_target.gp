# plots/steps_to_target.gp: how many runs reach a loss-gap target, and how long they take, against
# the learning rate, one curve per strategy (or any column). The time is censored: a run that has
# not reached the target by its last step has no time, only a lower bound on it, so the figure
# never averages the runs that did (that mean is biased toward the fast ones, and rests on one
# run where one got there). Top: the fraction of runs that reached the target, with its
# Clopper-Pearson 95% interval. Bottom: the Kaplan-Meier median of the first logged step with
# loss gap <= target, with its 95% interval (the censored runs count as at risk until their last
# step); where half the runs or more never got there the median lies beyond the run, drawn as a
# triangle at the run's length. The summary of srlab sweep computes both (src/sweep/censored.h).
# For quad1d without gradient noise the line is the exact gradient-descent time
#     t(lr) = ln(|x0 - x*| / d) / -ln(1 - lr a),   d = sqrt(2 target / a),
# the time SR takes in mean as well (theory/T07 item 3).
#
#   gnuplot -e "in='random_walk.summary.csv'; out='rw.png'" plots/steps_to_target.gp
#   srlab plot steps_to_target --in random_walk.summary.csv -o random_walk_lr.png
#
# in     summary file of a sweep with --target (columns lr, steps_to_target_frac, _frac_lo,
#        _frac_hi, _median, _median_lo, _median_hi)
# out    .png, .svg or .pdf (default steps_to_target.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        strategy and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set where=FILTER     keep grid points whose columns match, space-separated: "strategy=fp32"
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn, and the line's value at each learning rate (tests)
# --set steps=NUMBER     the length of the runs (default: --steps of the '# command:' line)
# --set target=NUMBER    the loss-gap target (default: --target of the '# command:' line)
# --set a=NUMBER         quad1d's curvature for the line (default: --a, else 1)
# --set xstar=NUMBER     quad1d's optimum (default: --xstar, else 0.3)
# --set x0=NUMBER        quad1d's start (default: --x0, else 1)
#
# needs: lr steps_to_target_frac steps_to_target_reached   (columns of --in)
if (!exists("in")) { print "steps_to_target.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "steps_to_target.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "steps_to_target.gp"; bydefault = "strategy"; xaxes = "lr"
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

# ---- the sweep's settings, from its '# command:' line (read by common.gpi, no shell) ----
cmd = cmdline
argof(k, d) = (sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) > 0 ? \
    word(cmd, 1 + sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) : d
if (!exists("steps")) steps = num(argof("steps", "0"))
if (!exists("target")) target = num(argof("target", "-1"))
if (!exists("a")) a = num(argof("a", "1"))
if (!exists("xstar")) xstar = num(argof("xstar", "0.3"))
if (!exists("x0")) x0 = num(argof("x0", "1"))
if (steps <= 0) { print "steps_to_target.gp: the runs' length is unknown (no --steps on the file's '# command:' line): give steps=N"; exit status 2 }
quad = strstrt(" ".cmd." ", " --problem quad1d ") > 0 && num(argof("grad-noise", "0")) == 0 && target >= 0
dtarget = sqrt(2 * target / a)
texact(lr) = (quad && lr * a > 0 && lr * a < 1 && abs(x0 - xstar) > dtarget) ? log(abs(x0 - xstar) / dtarget) / -log(1 - lr * a) : NaN

# ---- the x range, the smallest time, the seed counts ----
xmin = 1e308; xmax = -1e308; ylo = steps; nmin = 1e308; nmax = 0
see(x, lo, m, n) = (xmin = (x < xmin ? x : xmin), xmax = (x > xmax ? x : xmax), \
    ylo = (finite(lo) && lo > 0 && lo < ylo) ? lo : ylo, ylo = (finite(m) && m > 0 && m < ylo) ? m : ylo, \
    nmin = (n < nmin ? n : nmin), nmax = (n > nmax ? n : nmax), 0)
stats in using (keep(0) ? see(column("lr"), column("steps_to_target_median_lo"), column("steps_to_target_median"), column("seeds")) : 0) nooutput
do for [i=0:40] { v = texact(xmin * (xmax / xmin) ** (i / 40.0)); if (finite(v) && v > 0 && v < ylo) { ylo = v } }
ing(g) = keep(0) && gkey(0) eq word(groups, g)
# each curve's points a little apart on the log axis, so that equal values stay visible
dodge(g) = (G > 1) ? 1.06 ** (g - (G + 1) / 2.0) : 1
und(v) = !finite(v)

if (fmt eq "png") { set terminal pngcairo size 900,800 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,800 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,5.5in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "steps_to_target.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
if (!exists("title")) title = sprintf("reaching loss gap %g within %g steps, by %s%s", target, steps, bytitle, nw ? " ({/Italic ".esc(where)."})" : "")
set multiplot title title
set lmargin 12; set rmargin 4
set logscale x
set xrange [xmin / 1.4 : xmax * 1.4]
set format x "%g"
# tics at the learning rates of the sweep, as written there
xs = " "
addx(t) = (strstrt(xs, " ".t." ") ? 0 : (xs = xs.t." "), 0)
stats in using (keep(0) ? addx(strcol("lr")) : 0) nooutput
if (words(xs) <= 10) { set xtics (); do for [i=1:words(xs)] { set xtics add (word(xs, i) num(word(xs, i))) }; set mxtics 1 } else { \
    if (xmax / xmin * 1.96 < 100) { tax = "x"; tlo = xmin / 1.4; thi = xmax * 1.4; load plotdir."logtics.gpi" } }
set grid xtics ytics lc rgb "#dddddd"

# ---- top: the fraction that reached the target ----
set size 1, 0.36; set origin 0, 0.58
set bmargin 1; set tmargin 3
set format x ""
unset xlabel
set ylabel "fraction reached"
set yrange [-0.05 : 1.08]
set ytics 0, 0.25, 1
set key at screen 0.5, screen 0.925 center top horizontal box opaque samplen 2
plot for [g=1:G] in using (ing(g) ? column("lr") * dodge(g) : NaN):(column("steps_to_target_frac")):(column("steps_to_target_frac_lo")):(column("steps_to_target_frac_hi")) \
         with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb col(g) notitle, \
     for [g=1:G] in using (ing(g) ? column("lr") * dodge(g) : NaN):(column("steps_to_target_frac")) with lines lw 2 lc rgb col(g) title GL[g]

# ---- bottom: the Kaplan-Meier median ----
set size 1, 0.58; set origin 0, 0
set bmargin 5; set tmargin 0.5
set format x "%g"
set xlabel "learning rate {/Symbol h}"
set ylabel "median steps to reach it"
set key default; set key bottom left box opaque samplen 2
set logscale y
set yrange [ylo / 1.5 : steps * 2]
set format y "%g"
set ytics auto
if (steps * 2 / (ylo / 1.5) < 100) { tax = "y"; tlo = ylo / 1.5; thi = steps * 2; load plotdir."logtics.gpi" }
set arrow 1 from graph 0, first steps to graph 1, first steps nohead dt 3 lc rgb "#777777"
set label 2 sprintf("end of the runs, %g steps", steps) at graph 0.01, first steps * 1.15 left font ",9" tc rgb "#555555"
set label 1 sprintf("%s; top: Clopper-Pearson 95%%; bottom: Kaplan-Meier median, bars 95%% (censored runs kept); {/Symbol D} median beyond the runs", \
    nmax == nmin ? "points: ".nseeds(nmax) : sprintf("points: %d to %d seeds", nmin, nmax)) at screen 0.01, screen 0.02 font ",9" tc rgb "#555555"
hi(v) = finite(v) ? v : steps
gdline(x) = quad ? texact(x) : NaN
plot gdline(x) with lines dt 2 lw 2 lc rgb "#000000" title (quad ? "exact GD (T07: SR's mean)" : ""), \
     for [g=1:G] in using (ing(g) && finite(column("steps_to_target_median")) ? column("lr") * dodge(g) : NaN):(column("steps_to_target_median")):(column("steps_to_target_median_lo")):(hi(column("steps_to_target_median_hi"))) \
         with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb col(g) notitle, \
     for [g=1:G] in using (ing(g) && !finite(column("steps_to_target_median")) && finite(column("steps_to_target_median_lo")) ? column("lr") * dodge(g) : NaN):(column("steps_to_target_median_lo")):(0):(steps - column("steps_to_target_median_lo")) \
         with vectors nohead lw 1.5 lc rgb col(g) notitle, \
     for [g=1:G] in using (ing(g) && und(column("steps_to_target_median_hi")) ? column("lr") * dodge(g) : NaN):(steps) with points pt 8 ps 1.4 lc rgb col(g) notitle, \
     for [g=1:G] in using (ing(g) && finite(column("steps_to_target_median")) ? column("lr") * dodge(g) : NaN):(column("steps_to_target_median")) with lines lw 2 lc rgb col(g) notitle
unset multiplot
@showranges
# the line at each learning rate drawn, for tests
lines = ""
addl(l) = (strstrt(lines, sprintf(" %.17g ", l)) ? 0 : (lines = lines.sprintf(" %.17g ", l)), 0)
if (exists("debug")) { stats in using (keep(0) ? addl(column("lr")) : 0) nooutput; set print debug append; \
    do for [i=1:words(lines)] { print sprintf("line %s %.17g", word(lines, i), texact(real(word(lines, i)))) }; set print }
set output
