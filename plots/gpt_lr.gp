# plots/gpt_lr.gp: final validation loss against learning rate, one curve per strategy (or any
# column): the mean over seeds as a line, every seed as a dot, log-log. With a known optimum
# (the GPT's Markov source, the MLP's teacher) the y axis is the validation gap val_loss - f*;
# without one (--data FILE) it is the validation loss itself. The seed paper's figure: the best
# learning rate of each strategy, and how bf16-rn and bf16-sr compare with mp at theirs.
#
#   gnuplot -e "in='gpt_lr.summary.csv'; out='gpt_lr.png'" plots/gpt_lr.gp
#   srlab plot gpt_lr --in gpt_lr.summary.csv -o gpt_lr.png
#
# in     summary file of srlab sweep (per run: lr, final_val_loss, final_fstar, diverged; from
#        NAME.runs.csv beside it when the summary has one row per grid point)
# --set runs=INFILE      the file with one row per run (default: in, or NAME.runs.csv beside
#                        NAME.summary.csv)
# out    .png, .svg or .pdf (default gpt_lr.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        strategy and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set xcol=COLUMN      the swept column (default lr)
# --set ycol=METRIC      the per-run metric (default final_val_loss; its gap to final_fstar when
#                        that is finite)
# --set where=FILTER     keep runs whose columns match, space-separated: "opt=adamw"
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn and the means and bars plotted (tests)
# --set baseline=TEXT    the curve the lower panel compares with (default mp, when there is one)
# Diverged runs (or non-finite values) get a cross at the top of the plot and no part in the mean;
# a run whose gap is <= 0 (the validation loss is an estimate) a triangle at the bottom. Each
# curve's points are set a little apart in x, the bars drawn over the lines, the x tics at the
# swept values. With a baseline curve (mp), a lower panel shows what the comparisons rest on: per
# value of x, each curve's paired difference from the baseline over the seeds they share (the
# same seed: same data and initial weights; srlab compare), its mean and 95% Student t interval,
# not adjusted for the number of comparisons (srlab compare applies Holm's); with one seed (the
# quick sweeps), the difference alone, no interval, and the panel says that it is a smoke test.
#
# needs: lr *_mean   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "gpt_lr.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "gpt_lr.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("xcol")) xcol = "lr"
if (!exists("ycol")) ycol = "final_val_loss"
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "gpt_lr.gp"; bydefault = "strategy"; xaxes = xcol
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"
if (perrun eq "") { print sprintf("gpt_lr.gp: %s has one row per grid point: give the runs file with --set runs=NAME.runs.csv", in); exit status 2 }
data = perrun

# ---- pass 1: curves, x values, whether f* is known, the smallest positive y ----
xs = " "
addx(x) = (strstrt(xs, " ".x." ") ? 0 : (xs = xs.x." ", 1))
nfs = 0; nsel = 0
seefs(f) = (nfs = nfs + (finite(f) ? 1 : 0), 0)
stats data using (keep(0) ? (addx(strcol(xcol)), seefs(column("final_fstar")), nsel = nsel + 1) : 0) nooutput
X = words(xs)
if (G == 0 || nsel == 0) { print sprintf("gpt_lr.gp: no rows in %s match where='%s'", in, where); exit status 2 }
gap = (nfs == nsel)
yv(d) = gap ? column(ycol) - column("final_fstar") : column(ycol)
# A run that did not diverge enters the mean even when its gap is <= 0 (the validation loss is an
# estimate, and can fall below f*): such a run is a triangle at the bottom of a log axis.
ok(v) = finite(v) && column("diverged") == 0
ypos = 1e308; ymax = -1e308; xmin = 1e308; xmax = -1e308; nle0 = 0
seey(v) = (ok(v) && (!gap || v > 0) ? (ypos = (v < ypos ? v : ypos), ymax = (v > ymax ? v : ymax)) : \
           (ok(v) ? nle0 = nle0 + 1 : 0), 0)
seex(x) = (xmin = (x < xmin ? x : xmin), xmax = (x > xmax ? x : xmax), 0)
stats data using (keep(0) ? (seey(yv(0)), seex(column(xcol))) : 0) nooutput
if (ypos == 1e308) { print "gpt_lr.gp: no finite values to plot"; exit status 2 }

# ---- pass 2: mean per curve and x ----
N = G * X
array S[N]; array C[N]; array XV[N]; array Q[N]; array NR[N]
do for [i=1:N] { S[i] = 0; C[i] = 0; XV[i] = NaN; Q[i] = 0; NR[i] = 0 }
xidx(x) = sum [i=1:X] (word(xs, i) eq x ? i : 0)
acc(k, x, v) = (XV[k] = x, NR[k] = NR[k] + 1, ok(v) ? (S[k] = S[k] + v, Q[k] = Q[k] + v * v, C[k] = C[k] + 1) : 0, 0)
stats data using (keep(0) ? acc((gidx(gkey(0)) - 1) * X + xidx(strcol(xcol)), column(xcol), yv(0)) : 0) nooutput
top = ymax * 1.25
ylo0 = ypos / 1.15
set print $MEANS
print "g,x,y,lo,hi"
# the bars: the mean plus and minus its standard error, sd / sqrt(n) (none for one seed)
se(k) = C[k] > 1 ? sqrt(((Q[k] - S[k] * S[k] / C[k]) > 0 ? (Q[k] - S[k] * S[k] / C[k]) : 0) / (C[k] - 1) / C[k]) : 0
nmin = 1e308; nmax = 0; nruns = 0; nused = 0
do for [g=1:G] { do for [i=1:X] { k = (g - 1) * X + i; if (C[k] > 0 && (!gap || S[k] > 0)) { \
    lo = S[k] / C[k] - se(k); print sprintf("%d,%.17g,%.17g,%.17g,%.17g", g, XV[k], S[k] / C[k], lo > ylo0 ? lo : ylo0, S[k] / C[k] + se(k)) }; \
    if (NR[k] > 0) { nmin = (C[k] < nmin ? C[k] : nmin); nmax = (C[k] > nmax ? C[k] : nmax); nruns = nruns + NR[k]; nused = nused + C[k] } } }
set print

# ---- the paired differences from the baseline curve, seed by seed ----
if (!exists("baseline")) baseline = "mp"
B = gidx(baseline)
SMAX = 0
seeseed(v) = (v > SMAX ? (SMAX = v) : 0, 0)
stats data using (keep(0) ? seeseed(column("seed")) : 0) nooutput   # (a runs file always has a seed column)
paired = B > 0 && G > 1 && SMAX > 0 && SMAX <= 10000
set print $DIFF
print "g,x,mean,lo,hi,n,pct,pctlo,pcthi"
set print
DNMAX = 0   # the most seeds a comparison shares: with one, the panel shows the difference alone
if (paired) { NV = N * SMAX; array V[NV]; do for [i=1:NV] { V[i] = NaN }; \
    putv(k, sd, v) = (V[(k - 1) * SMAX + sd] = (ok(v) ? v : NaN), 0); \
    stats data using (keep(0) && column("seed") >= 1 ? putv((gidx(gkey(0)) - 1) * X + xidx(strcol(xcol)), int(column("seed")), yv(0)) : 0) nooutput; \
    set print $DIFF append; \
    do for [g=1:G] { if (g != B) { do for [i=1:X] { k = (g - 1) * X + i; kb = (B - 1) * X + i; dn = 0; ds = 0; dq = 0; \
        do for [sd=1:SMAX] { va = V[(k - 1) * SMAX + sd]; vb = V[(kb - 1) * SMAX + sd]; if (va == va && vb == vb) { dn = dn + 1; ds = ds + va - vb; dq = dq + (va - vb) ** 2 } }; \
        if (dn >= 1) { dm = ds / dn; dsd = dn >= 2 ? sqrt((dq - ds * ds / dn) > 0 ? (dq - ds * ds / dn) / (dn - 1) : 0) : 0; hw = dn >= 2 ? tq(dn - 1) * dsd / sqrt(dn) : 0; DNMAX = (dn > DNMAX ? dn : DNMAX); \
            bm = S[kb] / C[kb]; print sprintf("%d,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%.17g,%.17g", g, XV[k], dm, dm - hw, dm + hw, dn, 100 * dm / bm, 100 * (dm - hw) / bm, 100 * (dm + hw) / bm) } } } }; \
    set print }
dlo = 0; dhi = 0
seed2(lo, hi) = (dlo = (lo < dlo ? lo : dlo), dhi = (hi > dhi ? hi : dhi), 0)
if (paired) { stats $DIFF using (seed2(column("pctlo"), column("pcthi"))) nooutput }
dodge(g) = (G > 1) ? 1.07 ** (g - (G + 1) / 2.0) : 1

if (fmt eq "png") { set terminal pngcairo size 900, (paired ? 860 : 600) enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900, (paired ? 860 : 600) enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in, (paired ? 5.8 : 4) * 1in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "gpt_lr.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
# the loss's unit: nats for the GPT (cross-entropy), none for the MLP teacher (a mean squared error)
lossunit = strstrt(" ".cmdline." ", " --problem gpt ") ? "  (nats)" : (strstrt(" ".cmdline." ", " --problem mlp ") ? "  (mean squared error)" : "")
ylab = gap ? "final validation gap  val\\_loss - f^*".lossunit : "final validation loss".lossunit
set xlabel (xcol eq "lr" ? "peak learning rate {/Symbol h}" : esc(xcol))
set ylabel ylab
set logscale x
ylo = ypos / 1.15; yhi = top * 1.1
set yrange [ylo : yhi]
if (gap) { set logscale y; set format y "%g" }
# a narrow log range gets tics of its own (gnuplot would label one decade at most)
if (gap && yhi / ylo < 100) { tax = "y"; tlo = ylo; thi = yhi; load plotdir."logtics.gpi" }
set xrange [xmin / 1.4 : xmax * 1.4]
set format x "%g"
# tics at the swept values as the sweep wrote them (at most 10), else round values
if (xcol eq "lr" && X <= 10) { set xtics (); do for [i=1:X] { set xtics add (word(xs, i) num(word(xs, i))) }; set mxtics 1 } else { \
    if (xmax / xmin * 1.96 < 100) { tax = "x"; tlo = xmin / 1.4; thi = xmax * 1.4; load plotdir."logtics.gpi" } }
set grid xtics ytics mytics lc rgb "#dddddd"
if (!exists("title")) title = sprintf("final validation %s against %s, by %s%s", gap ? "gap" : "loss", xcol eq "lr" ? "learning rate" : esc(xcol), bytitle, nw ? " ({/Italic ".esc(where)."})" : "")
set title title
foot = (nmax <= 1) ? "line: one seed per point" : sprintf("line: mean over %s, bars: ± one standard error", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))
foot = foot."; dots: seeds; curves 7% apart in x".(gap && nle0 > 0 ? "; triangles at the bottom: gap ≤ 0 (val\\_loss is an estimate)" : "").(nused < nruns ? sprintf("; %d of %d runs diverged", nruns - nused, nruns) : "")
set label 1 foot at screen 0.01, screen 0.02 font ",9" tc rgb "#555555"
ing(g) = keep(0) && gkey(0) eq word(groups, g)
set lmargin at screen 0.13; set rmargin at screen 0.74
set key at screen 0.995, graph 1 right top box opaque samplen 2
if (paired) { set multiplot; set size 1, 0.62; set origin 0, 0.38; set bmargin 3; set tmargin 3 } else { set bmargin 5 }
plot for [g=1:G] $MEANS using ($1 == g ? $2 * dodge(g) : NaN):3 smooth unique with lines lw 2.5 lc rgb col(g) title GL[g], \
     for [g=1:G] data using (ing(g) && ok(yv(0)) && (!gap || yv(0) > 0) ? column(xcol) * dodge(g) : NaN):(yv(0)) with points pt 6 ps 0.7 lc rgb col(g) notitle, \
     for [g=1:G] data using (ing(g) && ok(yv(0)) && gap && yv(0) <= 0 ? column(xcol) * dodge(g) : NaN):(ylo * 1.04) with points pt 10 ps 0.9 lc rgb col(g) notitle, \
     for [g=1:G] data using (ing(g) && !ok(yv(0)) ? column(xcol) * dodge(g) : NaN):(top) with points pt 2 ps 1.2 lc rgb col(g) notitle, \
     for [g=1:G] $MEANS using ($1 == g ? $2 * dodge(g) : NaN):3:4:5 with yerrorbars pt 7 ps 1 lw 2 lc rgb col(g) notitle, \
     1/0 with points pt 10 ps 0.9 lc rgb "#555555" title (gap && nle0 > 0 ? sprintf("gap ≤ 0 (%d)", nle0) : ""), \
     1/0 with points pt 2 ps 1.2 lc rgb "#555555" title (nused < nruns ? "diverged" : "")
@showranges
if (paired) { \
    set size 1, 0.36; set origin 0, 0.03; set tmargin 0.5; set bmargin 3.5; unset title; \
    unset logscale y; set yrange [dlo - 0.08 * (dhi - dlo + 1e-12) : dhi + 0.08 * (dhi - dlo + 1e-12)]; set ytics auto; set mytics 2; \
    set ylabel sprintf("difference from %s (%%)", esc(baseline)); set format y "%+g"; \
    unset key; set label 3 (DNMAX >= 2 ? sprintf("each curve - %s,\npaired by seed, in %%\nof %s's mean gap:\nmean and 95%% t\ninterval (not adjusted\nfor the %d comparisons)", esc(baseline), esc(baseline), (G - 1) * X) : \
        sprintf("each curve - %s,\nsame seed, in %%\nof %s's gap:\none seed, so no\ninterval: a smoke\ntest, not a comparison", esc(baseline), esc(baseline))) \
        at screen 0.76, graph 0.85 left font ",9" tc rgb "#555555"; \
    set arrow 20 from graph 0, first 0 to graph 1, first 0 nohead lw 1.5 lc rgb "#000000"; \
    plot for [g=1:G] $DIFF using ($1 == g ? $2 * dodge(g) : NaN):7:8:9 with yerrorbars pt 7 ps 1 lw 2 lc rgb col(g) notitle; \
    unset arrow 20; unset multiplot }
if (exists("debug")) { set print debug append; print $MEANS; set print }
if (exists("debug") && paired) { set print debug append; print "diff"; print $DIFF; set print }
set output
