# plots/mx_gemm.gp: final validation gap per level of a categorical axis (the block-scaled GEMM
# recipe, key mx: docs/mx-training.md), one series per strategy (or any column): the mean over
# seeds with its standard error and every seed as a dot. With a known optimum (the GPT's Markov
# source, the MLP's teacher) the y axis is the validation gap val_loss - f*; without one the
# validation loss itself. A lower panel shows what srlab compare --axis mx --baseline off rests
# on: per level, each series' paired difference from its own baseline level (the same strategy
# without block-scaled GEMMs, the same seed: same data, initial weights and streams), its mean and
# 95% Student t interval, in % of the baseline's mean, not adjusted for the number of comparisons
# (srlab compare applies Holm's); with one seed (the quick sweeps), the difference alone, no
# interval, and the panel says that it is a smoke test.
#
#   gnuplot -e "in='mx_gpt.summary.csv'; out='mx_gpt.png'" plots/mx_gemm.gp
#   srlab plot mx_gemm --in mx_gpt.summary.csv -o mx_gpt.png
#
# in     summary file of srlab sweep (per run: the axis, final_val_loss, final_fstar, diverged,
#        seed; from NAME.runs.csv beside it when the summary has one row per grid point)
# --set runs=INFILE      the file with one row per run (default: in, or NAME.runs.csv beside
#                        NAME.summary.csv)
# out    .png, .svg or .pdf (default mx_gemm.png); fmt overrides the extension
# --set xcol=COLUMN      the categorical axis on x (default mx), its levels in the sweep's order
# --set base=TEXT        the level of xcol each series is compared with (default off)
# --set by=COLUMNS       the columns whose values get a series each, comma-separated (default
#                        strategy and every other axis that varies)
# --set ycol=METRIC      the per-run metric (default final_val_loss; its gap to final_fstar when
#                        that is finite)
# --set where=FILTER     keep runs whose columns match, space-separated: "strategy=mp"
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn and the means and differences plotted (tests)
# Diverged runs (or non-finite values) get a cross at the top of the upper panel and no part in
# the mean or a difference.
#
# needs: *_mean   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "mx_gemm.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "mx_gemm.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("xcol")) xcol = "mx"
if (!exists("base")) base = "off"
if (!exists("ycol")) ycol = "final_val_loss"
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "mx_gemm.gp"; bydefault = "strategy"; xaxes = xcol
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"
if (perrun eq "") { print sprintf("mx_gemm.gp: %s has one row per grid point: give the runs file with --set runs=NAME.runs.csv", in); exit status 2 }
data = perrun
if (!hascol(xcol)) { print sprintf("mx_gemm.gp: xcol=%s: %s has no such column", xcol, in); exit status 2 }

# ---- pass 1: the levels of xcol in the order they come, whether f* is known ----
xs = " "
addx(x) = (strstrt(xs, " ".x." ") ? 0 : (xs = xs.x." ", 1))
nfs = 0; nsel = 0
seefs(f) = (nfs = nfs + (finite(f) ? 1 : 0), 0)
stats data using (keep(0) ? (addx(strcol(xcol)), seefs(column("final_fstar")), nsel = nsel + 1) : 0) nooutput
X = words(xs)
if (G == 0 || nsel == 0) { print sprintf("mx_gemm.gp: no rows in %s match where='%s'", in, where); exit status 2 }
gap = (nfs == nsel)
yv(d) = gap ? column(ycol) - column("final_fstar") : column(ycol)
ok(v) = finite(v) && column("diverged") == 0
xidx(x) = sum [i=1:X] (word(xs, i) eq x ? i : 0)
XB = xidx(base)

# ---- pass 2: mean and standard error per series and level; every seed's value ----
N = G * X
array S[N]; array C[N]; array Q[N]; array NR[N]
do for [i=1:N] { S[i] = 0; C[i] = 0; Q[i] = 0; NR[i] = 0 }
ymax = 0; nbad = 0
acc(k, v) = (NR[k] = NR[k] + 1, ok(v) ? (S[k] = S[k] + v, Q[k] = Q[k] + v * v, C[k] = C[k] + 1, ymax = (v > ymax ? v : ymax)) : (nbad = nbad + 1), 0)
stats data using (keep(0) ? acc((gidx(gkey(0)) - 1) * X + xidx(strcol(xcol)), yv(0)) : 0) nooutput
if (ymax <= 0 && nbad == nsel) { print "mx_gemm.gp: no finite values to plot"; exit status 2 }
top = ymax * 1.12
se(k) = C[k] > 1 ? sqrt(((Q[k] - S[k] * S[k] / C[k]) > 0 ? (Q[k] - S[k] * S[k] / C[k]) : 0) / (C[k] - 1) / C[k]) : 0
dx(g) = (G > 1) ? 0.5 * (g - (G + 1) / 2.0) / G : 0
set print $MEANS
print "g,x,y,lo,hi,n"
nmin = 1e308; nmax = 0
do for [g=1:G] { do for [i=1:X] { k = (g - 1) * X + i; if (C[k] > 0) { \
    print sprintf("%d,%d,%.17g,%.17g,%.17g,%d", g, i, S[k] / C[k], S[k] / C[k] - se(k), S[k] / C[k] + se(k), C[k]); \
    nmin = (C[k] < nmin ? C[k] : nmin); nmax = (C[k] > nmax ? C[k] : nmax) } } }
set print

# ---- the paired differences from the same series' base level, seed by seed ----
SMAX = 0
seeseed(v) = (v > SMAX ? (SMAX = v) : 0, 0)
stats data using (keep(0) ? seeseed(column("seed")) : 0) nooutput
paired = XB > 0 && X > 1 && SMAX > 0 && SMAX <= 10000
set print $DIFF
print "g,x,mean,lo,hi,n,pct,pctlo,pcthi"
set print
DNMAX = 0; NCMP = 0
if (paired) { NV = N * SMAX; array V[NV]; do for [i=1:NV] { V[i] = NaN }; \
    putv(k, sd, v) = (V[(k - 1) * SMAX + sd] = (ok(v) ? v : NaN), 0); \
    stats data using (keep(0) && column("seed") >= 1 ? putv((gidx(gkey(0)) - 1) * X + xidx(strcol(xcol)), int(column("seed")), yv(0)) : 0) nooutput; \
    set print $DIFF append; \
    do for [g=1:G] { do for [i=1:X] { if (i != XB) { k = (g - 1) * X + i; kb = (g - 1) * X + XB; dn = 0; ds = 0; dq = 0; \
        do for [sd=1:SMAX] { va = V[(k - 1) * SMAX + sd]; vb = V[(kb - 1) * SMAX + sd]; if (va == va && vb == vb) { dn = dn + 1; ds = ds + va - vb; dq = dq + (va - vb) ** 2 } }; \
        if (dn >= 1 && C[kb] > 0) { dm = ds / dn; dsd = dn >= 2 ? sqrt((dq - ds * ds / dn) > 0 ? (dq - ds * ds / dn) / (dn - 1) : 0) : 0; hw = dn >= 2 ? tq(dn - 1) * dsd / sqrt(dn) : 0; DNMAX = (dn > DNMAX ? dn : DNMAX); NCMP = NCMP + 1; \
            bm = S[kb] / C[kb]; print sprintf("%d,%d,%.17g,%.17g,%.17g,%d,%.17g,%.17g,%.17g", g, i, dm, dm - hw, dm + hw, dn, 100 * dm / bm, 100 * (dm - hw) / bm, 100 * (dm + hw) / bm) } } } }; \
    set print }
dlo = 0; dhi = 0
seed2(lo, hi) = (dlo = (lo < dlo ? lo : dlo), dhi = (hi > dhi ? hi : dhi), 0)
if (paired && NCMP > 0) { stats $DIFF using (seed2(column("pctlo"), column("pcthi"))) nooutput }
paired = paired && NCMP > 0

if (fmt eq "png") { set terminal pngcairo size 1000, (paired ? 860 : 600) enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 1000, (paired ? 860 : 600) enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6.6in, (paired ? 5.8 : 4) * 1in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "mx_gemm.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
lossunit = strstrt(" ".cmdline." ", " --problem gpt ") ? "  (nats)" : (strstrt(" ".cmdline." ", " --problem mlp ") ? "  (mean squared error)" : "")
set ylabel (gap ? "final validation gap  val\\_loss - f^*".lossunit : "final validation loss".lossunit)
set xrange [0.4 : X + 0.6]
set yrange [0 : top * 1.05]
xtfont = (X > 6) ? ",10" : ",12"
set xtics () nomirror font xtfont
do for [i=1:X] { set xtics add (esc(word(xs, i)) i) }
set grid ytics lc rgb "#dddddd"
if (!exists("title")) title = sprintf("final validation %s by %s, series by %s%s", gap ? "gap" : "loss", esc(xcol), bytitle, nw ? " ({/Italic ".esc(where)."})" : "")
set title title
foot = (nmax <= 1) ? "point: one seed" : sprintf("point: mean over %s, bars: ± one standard error", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))
foot = foot."; dots: seeds".(nbad > 0 ? sprintf("; %d runs diverged (crosses)", nbad) : "")
set label 1 foot at screen 0.01, screen 0.02 font ",9" tc rgb "#555555"
ing(g) = keep(0) && gkey(0) eq word(groups, g)
set lmargin at screen 0.11; set rmargin at screen 0.78
set key at screen 0.995, graph 1 right top box opaque samplen 2
if (paired) { set multiplot; set size 1, 0.62; set origin 0, 0.38; set bmargin 2; set tmargin 3; set format x "" } else { set bmargin 5 }
plot for [g=1:G] data using (ing(g) && ok(yv(0)) ? xidx(strcol(xcol)) + dx(g) + 0.04 : NaN):(yv(0)) with points pt 6 ps 0.6 lc rgb col(g) notitle, \
     for [g=1:G] data using (ing(g) && !ok(yv(0)) ? xidx(strcol(xcol)) + dx(g) : NaN):(top) with points pt 2 ps 1.2 lc rgb col(g) notitle, \
     for [g=1:G] $MEANS using ($1 == g ? $2 + dx(g) : NaN):3:4:5 with yerrorbars pt 7 ps 1.1 lw 2 lc rgb col(g) title GL[g]
@showranges
if (paired) { \
    set size 1, 0.36; set origin 0, 0.03; set tmargin 0.5; set bmargin 3.5; unset title; set format x "%g"; \
    set yrange [dlo - 0.08 * (dhi - dlo + 1e-12) : dhi + 0.08 * (dhi - dlo + 1e-12)]; set ytics auto; set mytics 2; \
    set ylabel sprintf("difference from %s (%%)", esc(base)); set format y "%+g"; \
    unset key; set label 3 (DNMAX >= 2 ? sprintf("each point - %s of\nits series, paired by\nseed, in %% of %s's\nmean: mean and 95%% t\ninterval (not adjusted\nfor the %d comparisons)", esc(base), esc(base), NCMP) : \
        sprintf("each point - %s of\nits series, same seed,\nin %% of %s's value:\none seed, so no\ninterval: a smoke\ntest, not a comparison", esc(base), esc(base))) \
        at screen 0.79, graph 0.9 left font ",9" tc rgb "#555555"; \
    set arrow 20 from graph 0, first 0 to graph 1, first 0 nohead lw 1.5 lc rgb "#000000"; \
    plot for [g=1:G] $DIFF using ($1 == g ? $2 + dx(g) : NaN):7:8:9 with yerrorbars pt 7 ps 1 lw 2 lc rgb col(g) notitle; \
    unset arrow 20; unset multiplot }
if (exists("debug")) { set print debug append; print $MEANS; set print }
if (exists("debug") && paired) { set print debug append; print "diff"; print $DIFF; set print }
set output
