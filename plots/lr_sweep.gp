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
# For gradient descent on quad1d without gradient noise (the '# command:' line: --problem quad1d,
# --opt sgd, no --grad-noise) and the final loss gap against lr, theory/T05's predictions are
# drawn (plots/quad1d.gpi): RN's a/2 d(lr)^2, d where the iterate freezes, with the band its last
# move leaves it in, and SR's mean excess loss a/2 (x* - g0)(g1 - x*), the same at every lr.
# Where the data have a wd column with values > 0, theory/T08's threshold lr wd = 2^-(p+1) is
# marked for each (p the data's lowest precision); for the decay alone (quad1d --a 0 --xstar 0,
# ycol=final_dist_to_opt) its predictions x0 (1 - lr wd)^T and x0 are drawn.
# --set a=NUMBER         quad1d's curvature for the predictions (default: --a, else 1)
# --set xstar=NUMBER     quad1d's optimum (default: --xstar, else 0.3)
# --set x0=NUMBER        quad1d's start (default: --x0, else 1)
# --set p=INTEGER        the format's precision (default: from the format column, else --format or
#                        --strategy of the '# command:' line, else bf16's 8)
# A confidence interval reaching below 0 is drawn down to the bottom of the plot; runs whose value
# is not finite (diverged) have no dot and do not enter the mean (see the summary's _n column);
# a grid point where runs diverged gets a cross at the top of the plot with "k/n" beside it.
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
# grid points where runs diverged (the summary's diverged column): a cross in the curve's colour
# at the top of the plot, with "k/n" (k of its n seeds diverged); the x range covers them
ymaxv = 0; ndivpts = 0
seemax(v) = (finite(v) && v > ymaxv ? (ymaxv = v) : 0, 0)
seediv(x, d) = (d > 0 ? (ndivpts = ndivpts + 1, xmin = (x < xmin ? x : xmin), xmax = (x > xmax ? x : xmax)) : 0, 0)
stats in using (keep(0) ? seemax(column(ycol."_mean")) : 0) nooutput
hasdiv = sumnew && hascol("diverged")
if (hasdiv) { stats in using (keep(0) ? seediv(column(xcol), column("diverged")) : 0) nooutput }
ydiv = (ymaxv > 0) ? ymaxv * 8 : 1
clip(v) = (finite(v) ? (v > floor ? v : floor) : NaN)
bar(v) = (finite(v) ? clip(v) : clip(column(ycol."_mean")))   # one seed: no interval, no bar
ing(g) = keep(0) && gkey(0) eq word(groups, g)

# ---- theory/T05's predictions, for gradient descent on quad1d without gradient noise ----
cmd = cmdline
argof(k, d) = (sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) > 0 ? \
    word(cmd, 1 + sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) : d
fcol = ""
if (hascol("format")) { stats in using (keep(0) && fcol eq "" ? (fcol = uc(strcol("format")), 0) : 0) nooutput }
if (!exists("a")) a = real(argof("a", "1"))
if (!exists("xstar")) xstar = real(argof("xstar", "0.3"))
if (!exists("x0")) x0 = real(argof("x0", "1"))
load plotdir."stall_theory.gpi"
# the format: the lowest precision among the rows' formats (fp32 beside bf16 is a reference)
pmin = 99
seep(f) = (pfor(f) < pmin ? (pmin = pfor(f)) : 0, 0)
if (hascol("format")) { stats in using (keep(0) ? seep(uc(strcol("format"))) : 0) nooutput }
if (!exists("p")) p = (pmin < 99) ? pmin : pfor(argof("format", argof("strategy", "bf16")))
quad = canpredict && strstrt(" ".cmd." ", " --problem quad1d ") > 0 && num(argof("grad-noise", "0")) == 0 && \
    argof("opt", "sgd") eq "sgd" && xcol eq "lr" && ycol eq "final_loss_gap"
rngap(lr) = quad ? a / 2 * rnd(lr) ** 2 : NaN
rngaplo(lr) = quad ? a / 2 * rnlo(lr) ** 2 : NaN
srline(lr) = quad ? srgap(0) : NaN
if (quad) { set print $BAND; do for [i=0:200] { bx = xmin / 1.3 * (xmax / xmin * 1.69) ** (i / 200.0); \
    if (finite(rngaplo(bx))) { print sprintf("%.17g,%.17g,%.17g", bx, rngaplo(bx), rngap(bx)) } }; set print } \
else { set print $BAND; print "0,NaN,NaN"; set print }

# With two or more columns in by, a colour per value of the first and a dash per value of the
# second ("bf16-sr, wd=0" dashed beside "bf16-sr, wd=0.1" solid), each curve set a little apart
# on the x axis so that equal values stay visible.
fpart(k) = strstrt(k, ",") ? k[1:strstrt(k, ",") - 1] : k
spart(k) = strstrt(k, ",") ? k[strstrt(k, ",") + 1:] : ""
firsts = " "; seconds = " "
do for [g=1:G] { fk = fpart(word(groups, g)); sk = spart(word(groups, g)); \
    if (!strstrt(firsts, " ".fk." ")) { firsts = firsts.fk." " }; if (!strstrt(seconds, " ".sk." ")) { seconds = seconds.sk." " } }
widx(l, w) = sum [i=1:words(l)] (word(l, i) eq w ? i : 0)
paired = words(seconds) > 1 && words(firsts) < G
gcol(g) = paired ? col(widx(firsts, fpart(word(groups, g)))) : col(g)
gdt(g) = paired ? (widx(seconds, spart(word(groups, g))) == words(seconds) ? 1 : 1 + widx(seconds, spart(word(groups, g)))) : 1
dodge(g) = (G > 1) ? 1.025 ** (g - (G + 1) / 2.0) : 1

# ---- theory/T08: a decoupled weight-decay step is lost under RN when lr wd <= 2^-(p+1) ----
# Every wd > 0 of the data gets its threshold marked; for the decay alone (quad1d with a = 0,
# x* = 0: the distance to the optimum is |x|), the exact decay x0 (1 - lr wd)^T (SR's mean) and
# x0 (no decay: wd = 0, and RN below the mark) are drawn.
wds = " "
addwd(w) = (w > 0 && !strstrt(wds, sprintf(" %.17g ", w)) ? (wds = wds.sprintf("%.17g ", w)) : "", 0)
if (hascol("wd") && xcol eq "lr") { stats in using (keep(0) ? addwd(column("wd")) : 0) nooutput }
nwd = words(wds)
T = num(argof("steps", "0"))
decayalone = nwd > 0 && strstrt(" ".cmd." ", " --problem quad1d ") > 0 && a == 0 && xstar == 0 && \
    ycol eq "final_dist_to_opt" && T > 0
decayx(lr, i) = decayalone && lr * real(word(wds, i)) < 1 ? abs(x0) * (1 - lr * real(word(wds, i))) ** T : NaN
x0line(lr) = decayalone ? abs(x0) : NaN
wdthr(i) = 2.0 ** -(p + 1) / real(word(wds, i))
do for [i=1:nwd] { set arrow 10 + i from wdthr(i), graph 0 to wdthr(i), graph 1 nohead lw 1.5 dt 4 lc rgb "#555555"; \
    set label 10 + i sprintf("lr wd = 2^{-%d}%s", p + 1, nwd > 1 ? sprintf(" (wd %g)", real(word(wds, i))) : "") \
        at wdthr(i), graph 0.97 - 0.06 * i right offset -0.5, 0 font ",10" tc rgb "#555555" }

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
set key outside top center horizontal box opaque samplen 2 font ",10" width -2
set autoscale yfixmax
set offsets 0, 0, graph 0.04, 0   # points at the top of the range stay inside
if (!exists("title")) title = sprintf("%s against %s, by %s%s", ylab, xlab, bytitle, nw ? " ({/Italic ".esc(where)."})" : "")
set title title
set bmargin 5
foot = (nmax <= 1) ? "line: one seed per point (no interval)" : \
    sprintf("line: mean over %s, bars: 95%% confidence interval (Student t)", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))
foot = foot.(perrun ne "" ? "; dots: seeds" : "").(G > 1 ? "; curves 2.5% apart in x" : "").(nused < nruns ? sprintf("; %d of %d runs not finite, left out", nruns - nused, nruns) : "")
set label 1 foot at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
# The means of each curve, contiguous (rows of other curves in between would break its line).
set print $MEANS
print "g,x,y"
set print
set table $MEANS append separator comma
plot for [g=1:G] in using (g):(column(xcol) * dodge(g)):(clip(column(ycol."_mean"))) with table if (ing(g))
unset table
# The k/n labels only when some point diverged: gnuplot 5.4 dies (SIGSEGV) drawing `with labels`
# from a file whose one row gives no label (a sweep of one strategy at one lr).
plot $BAND using 1:2:3 with filledcurves fc rgb "#dde8f3" fs solid 1 noborder title (quad ? "RN after its last move" : ""), \
     rngap(x) with lines dt 2 lw 2 lc rgb "#000000" title (quad ? "RN: a/2 d^2, d = s / (2 {/Symbol h} a) (T05)" : ""), \
     srline(x) with lines dt 3 lw 2 lc rgb "#444444" title (quad ? "SR: a/2 (x^* - g_0)(g_1 - x^*) (T05)" : ""), \
     x0line(x) with lines dt 3 lw 2 lc rgb "#444444" title (decayalone ? "x_0: no decay (RN below the mark)" : ""), \
     for [i=1:nwd] decayx(x, i) with lines dt 2 lw 2 lc rgb "#000000" title (decayalone && i == 1 ? "x_0 (1 - {/Symbol h} wd)^T: the decay (T08)" : ""), \
     for [g=1:G] (perrun ne "" ? perrun : in) using (perrun ne "" && ing(g) ? column(xcol) * dodge(g) : NaN):(perrun ne "" ? clip(column(ycol)) : NaN) with points pt 6 ps 0.6 lc rgb gcol(g) notitle, \
     for [g=1:G] in using (ing(g) ? column(xcol) * dodge(g) : NaN):(clip(column(ycol."_mean"))):(bar(column(ycol."_ci95_lo"))):(bar(column(ycol."_ci95_hi"))) \
         with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb gcol(g) notitle, \
     for [g=1:G] in using (hasdiv && ing(g) && column("diverged") > 0 ? column(xcol) * dodge(g) : NaN):(ydiv) \
         with points pt 2 ps 1.6 lw 2 lc rgb gcol(g) title (hasdiv && ndivpts > 0 && g == 1 ? "diverged (k/n seeds)" : ""), \
     for [g=1:(hasdiv && ndivpts > 0 ? G : 0)] in using (ing(g) && column("diverged") > 0 ? column(xcol) * dodge(g) : NaN):(ydiv):(sprintf("%d/%d", column("diverged"), column("seeds"))) \
         with labels offset 0, -0.9 * g font ",9" tc rgb gcol(g) notitle, \
     for [g=1:G] $MEANS using ($1 == g ? $2 : NaN):3 smooth unique with lines lw 2.5 dt gdt(g) lc rgb gcol(g) \
         title GL[g]
@showranges
# the predictions at each learning rate drawn, for tests
lines = ""
addl(l) = (strstrt(lines, sprintf(" %.17g ", l)) ? 0 : (lines = lines.sprintf(" %.17g ", l)), 0)
# the diverged marks drawn, for tests: "diverged G X K N"
if (exists("debug") && hasdiv) { set table $DIV; plot for [g=1:G] in using \
    (ing(g) && column("diverged") > 0 ? sprintf("diverged %d %s %d %d", g, strcol(xcol), column("diverged"), column("seeds")) : "") with table; unset table; \
    set print debug append; do for [i=1:|$DIV|] { if (strstrt($DIV[i], "diverged")) { print $DIV[i] } }; set print }
if (exists("debug")) { set print debug append; do for [i=1:nwd] { print sprintf("mark %s %.17g", word(wds, i), wdthr(i)) }; set print }
if (exists("debug") && decayalone) { stats in using (keep(0) ? addl(column(xcol)) : 0) nooutput; set print debug append; \
    do for [j=1:words(lines)] { do for [i=1:nwd] { print sprintf("decay %s %s %.17g", word(lines, j), word(wds, i), decayx(real(word(lines, j)), i)) } }; set print }
if (exists("debug") && quad) { stats in using (keep(0) ? addl(column(xcol)) : 0) nooutput; set print debug append; \
    do for [i=1:words(lines)] { v = real(word(lines, i)); print sprintf("line %s %.17g %.17g %.17g", word(lines, i), rngap(v), rngaplo(v), srline(v)) }; set print }
set output
