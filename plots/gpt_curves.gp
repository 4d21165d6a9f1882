# plots/gpt_curves.gp: validation loss against step, one curve per strategy (or any column), each
# at its own best learning rate (the lr whose runs end with the lowest mean validation loss):
# the mean over seeds with a band from the smallest to the largest seed. With a known optimum
# (the GPT's Markov source, the MLP's teacher) the y axis is the validation gap val_loss - f*,
# log scale; without one, the validation loss.
#
#   gnuplot -e "in='gpt_lr.csv'; out='gpt_curves.png'" plots/gpt_curves.gp
#   srlab plot gpt_curves --in gpt_lr.csv -o gpt_curves.png
#
# in     rows file of srlab sweep (columns run, lr, step, val_loss, fstar)
# out    .png, .svg or .pdf (default gpt_curves.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        strategy and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set xcol=COLUMN      the column to pick the best value of (default lr)
# --set ycol=COLUMN      the metric (default val_loss)
# --set where=FILTER     keep runs whose columns match, space-separated: "opt=adamw"
# --set title=TEXT       the figure's title
# --set debug=OUTFILE    the axis ranges drawn (tests)
# Every run must log the same steps. A run with a non-finite last value never counts as best.
#
# needs: run step val_loss   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "gpt_curves.gp: give in='FILE.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "gpt_curves.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("xcol")) xcol = "lr"
if (!exists("ycol")) ycol = "val_loss"
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "gpt_curves.gp"; bydefault = "strategy"; xaxes = xcol
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

# ---- pass 1: curves, x values, runs, rows per run, f* ----
xs = " "
addx(x) = (strstrt(xs, " ".x." ") ? 0 : (xs = xs.x." ", 1))
lastrun = -1; j = 0; jmax = 0; rmax = -1; nsel = 0; nfs = 0
rowidx(r) = (r != lastrun ? (lastrun = r, j = 0) : (j = j + 1), jmax = (j > jmax ? j : jmax), j)
see(r, f) = (nsel = nsel + 1, rmax = (r > rmax ? r : rmax), nfs = nfs + (finite(f) ? 1 : 0), 0)
stats in using (rowidx(column("run")), keep(0) ? (addx(strcol(xcol)), see(column("run"), column("fstar"))) : 0) nooutput
X = words(xs); J = jmax + 1; R = rmax + 1
gap = (nfs == nsel)
# f* can differ between seeds (each seed draws its own Markov source): the title gives its range.
fslo = NaN; fshi = NaN
fsee(f) = (fslo = (fslo == fslo && fslo <= f) ? fslo : f, fshi = (fshi == fshi && fshi >= f) ? fshi : f, 0)
stats in using (keep(0) && finite(column("fstar")) ? fsee(column("fstar")) : 0, 0) nooutput
# the loss's unit: nats for the GPT (cross-entropy), none for the MLP teacher (a mean squared error)
isgpt = strstrt(" ".cmdline." ", " --problem gpt ") > 0
lossunit = isgpt ? "  (nats)" : (strstrt(" ".cmdline." ", " --problem mlp ") ? "  (mean squared error)" : "")
fstxt = (fslo == fshi) ? sprintf("f^* = %.4f%s", fslo, isgpt ? " nats" : "") : sprintf("f^* = %.4f to %.4f%s by seed", fslo, fshi, isgpt ? " nats" : "")
yv(d) = gap ? column(ycol) - column("fstar") : column(ycol)

# ---- pass 2: each run's curve, x and last value; the best x of each curve ----
array RG[R]; array RX[R]; array RF[R]
do for [i=1:R] { RG[i] = 0; RX[i] = 0; RF[i] = NaN }
xidx(x) = sum [i=1:X] (word(xs, i) eq x ? i : 0)
rec(r, g, x, v) = (RG[r + 1] = g, RX[r + 1] = x, RF[r + 1] = v, 0)
stats in using (keep(0) ? rec(column("run"), gidx(gkey(0)), xidx(strcol(xcol)), column(ycol)) : 0) nooutput
array BEST[G]; array BESTV[G]
do for [g=1:G] {
    BEST[g] = 0; BESTV[g] = 1e308
    do for [x=1:X] {
        s = 0; c = 0; bad = 0
        do for [r=1:R] { if (RG[r] == g && RX[r] == x) { if (finite(RF[r])) { s = s + RF[r]; c = c + 1 } else { bad = 1 } } }
        if (c > 0 && !bad && s / c < BESTV[g]) { BESTV[g] = s / c; BEST[g] = x }
    }
}

# ---- pass 3: mean, min and max per curve and row index over the runs at the best x ----
N = G * J
array XS[N]; array C[N]; array S[N]; array MN[N]; array MX[N]; array NR[G]
do for [i=1:N] { C[i] = 0; S[i] = 0; MN[i] = 1e308; MX[i] = -1e308; XS[i] = NaN }
do for [g=1:G] { NR[g] = 0 }
use(r) = RG[r + 1] > 0 && RX[r + 1] == BEST[RG[r + 1]]
acc(r, jj, st, v) = (g = RG[r + 1], k = (g - 1) * J + jj + 1, XS[k] = st, (jj == 0 ? NR[g] = NR[g] + 1 : 0), \
    finite(v) ? (C[k] = C[k] + 1, S[k] = S[k] + v, MN[k] = (v < MN[k] ? v : MN[k]), MX[k] = (v > MX[k] ? v : MX[k])) : 0, 0)
lastrun = -1; j = 0
stats in using (jj = rowidx(column("run")), keep(0) && use(column("run")) ? acc(column("run"), jj, column("step"), yv(0)) : 0) nooutput
ypos = 1e308; smax = 0; yhi = -1e308
# the bottom: the smallest positive band edge or mean (a mean <= 0 leaves a gap in its line)
do for [k=1:N] { if (C[k] > 0 && MN[k] > 0 && MN[k] < ypos) { ypos = MN[k] }; if (C[k] > 0 && S[k] > 0 && S[k] / C[k] < ypos) { ypos = S[k] / C[k] }; if (C[k] > 0 && XS[k] > smax) { smax = XS[k] } }
# the top of the axis: the largest band edge, so that no curve starts clipped
do for [k=1:N] { if (C[k] > 0 && MX[k] > yhi) { yhi = MX[k] } }
set print $CURVES
print "g,step,mean,lo,hi"
do for [k=1:N] { if (C[k] > 0) { print sprintf("%d,%.17g,%.17g,%.17g,%.17g", (k - 1) / J + 1, XS[k], S[k] / C[k], MN[k], MX[k]) } }
set print

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "gpt_curves.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
set xlabel "step t"
set ylabel (gap ? "validation gap  val\\_loss - f^*".lossunit : "validation loss".lossunit)
if (gap) { set logscale y; set yrange [ypos / 1.2 : yhi * 1.3] } else { set yrange [ypos - 0.05 * (yhi - ypos) : yhi + 0.1 * (yhi - ypos)] }
ylo = ypos / 1.2; yhi = yhi * 1.3
if (gap && yhi / ylo < 100) { tax = "y"; tlo = ylo; thi = yhi; load plotdir."logtics.gpi" }
set format y "%g"
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right box opaque samplen 2
if (!exists("title")) title = sprintf("validation %s against step, each %s at its best %s%s", gap ? "gap" : "loss", bytitle, esc(xcol), gap ? sprintf(" (%s)", fstxt) : "")
set title title
set style fill transparent solid 0.18 noborder
set bmargin 5
nrmin = NR[1]; nrmax = NR[1]
do for [g=1:G] { nrmin = (NR[g] < nrmin ? NR[g] : nrmin); nrmax = (NR[g] > nrmax ? NR[g] : nrmax) }
set label 1 (nrmax <= 1 ? "line: one seed per curve" : sprintf("line: mean over %s; band: smallest to largest seed", \
    nrmin == nrmax ? nseeds(nrmax) : "the seeds of each curve (key)")) at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
plot for [g=1:G] $CURVES using ($1 == g ? $2 : NaN):4:5 with filledcurves lc rgb col(g) notitle, \
     for [g=1:G] $CURVES using ($1 == g ? $2 : NaN):3 with lines lw 2.5 lc rgb col(g) \
         title sprintf("%s, %s = %s%s", GL[g], esc(xcol), BEST[g] ? word(xs, BEST[g]) : "-", nrmin == nrmax ? "" : " (".nseeds(NR[g]).")")
@showranges
set output
