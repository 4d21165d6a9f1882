# plots/srrn.gp: SR against RN with gradient noise (theory/T14): the mean loss gap after T steps
# of noisy SGD on a/2 (x - x*)^2 from x0 against the learning rate, one curve of points per
# strategy, and the model's three curves (exact, RN, SR) after T steps from x0, computed here
# from the Gaussian sums of theory/T14 (srl_t14_excess: the linearised recursions):
#     r = lr sigma / ulp,  RN gain k(r) = (1/r) sum_j phi((j + 1/2)/r),
#     RN step variance w(r) = E[round(s)^2],  SR added variance v(r) = E[frac(s)(1 - frac(s))],
#     excess = a/2 (c^(2T) e0^2 + W (1 - c^(2T)) / (1 - c^2)),  c = 1 - K lr a.
# Marked: lr* = ulp/(sigma sqrt 6) (SR's knee), ulp/(2 sigma) (RN's moves become rare), and the
# crossover lr_c, the largest lr at which the SR model lies below the RN model (SR wins below it).
# Each model curve has the colour of the data it models (a curve named *sr*, *rn*, else exact);
# the points carry their 95% intervals over the seeds (the summary's Student t).
#
#   gnuplot -e "in='srrn.summary.csv'; out='srrn.png'" plots/srrn.gp
#   srlab plot srrn --in srrn.summary.csv -o srrn.png
#
# in     summary file of a quad1d sweep over lr (experiments/srrn.ini: columns lr,
#        final_loss_gap_mean and _n)
# out    .png, .svg or .pdf (default srrn.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each (default strategy)
# --set where=FILTER     keep grid points whose columns match, space-separated: "strategy=bf16-rn"
# --set debug=OUTFILE    the axis ranges drawn (tests)
# --set a=NUMBER         the model's curvature (default: --a of the '# command:' line, else 1)
# --set xstar=NUMBER     the model's optimum (default: --xstar, else 0.3)
# --set x0=NUMBER        the model's start (default: --x0, else 1)
# --set sigma=NUMBER     the gradient noise (default: --grad-noise, else 0)
# --set T=NUMBER         the steps (default: --steps, else 1000)
# --set p=INTEGER        the format's precision (default 8, bf16)
#
# needs: lr final_loss_gap_mean   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "srrn.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "srrn.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "srrn.gp"; bydefault = "strategy"; xaxes = "lr"
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

# ---- the sweep's settings, from its '# command:' line (read by common.gpi, no shell) ----
cmd = cmdline
argof(k, d) = (sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) > 0 ? \
    word(cmd, 1 + sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) : d
if (!exists("a")) a = real(argof("a", "1"))
if (!exists("xstar")) xstar = real(argof("xstar", "0.3"))
if (!exists("x0")) x0 = real(argof("x0", "1"))
if (!exists("sigma")) sigma = real(argof("grad-noise", "0"))
if (!exists("T")) T = real(argof("steps", "1000"))
if (!exists("p")) p = 8
if (sigma <= 0) { print "srrn.gp: the model needs gradient noise (--grad-noise > 0 in the sweep, or sigma=...)"; exit status 2 }
ulp(v) = 2.0 ** (floor(log(abs(v)) / log(2)) - p + 1)
q = ulp(xstar); e0 = x0 - xstar

# ---- the model (theory/T14 steps 2-4) ----
NJ = 80
# (guarded: gnuplot turns an underflowing exp or erfc into an undefined value)
Q(z) = z > 37 ? 0 : 0.5 * erfc(z / sqrt(2))
phi(z) = abs(z) > 37 ? 0 : exp(-0.5 * z * z) / sqrt(2 * pi)
E(y) = y < -700 ? 0 : exp(y)
kap(r) = sum [j=0:NJ] 2 * phi((j + 0.5) / r) / r
wrn(r) = sum [k=1:NJ] 2 * k * k * (Q((k - 0.5) / r) - Q((k + 0.5) / r))
# one cell [n, n+1] of E[frac(s)(1 - frac(s))], A = n/r, B = (n+1)/r; the cells n < 0 mirror
cell(n, r, A, B) = -r * r * ((Q(A) - Q(B)) + A * phi(A) - B * phi(B)) + \
    (2 * n + 1) * r * (phi(A) - phi(B)) - n * (n + 1) * (Q(A) - Q(B))
vsr(r) = 2 * sum [n=0:NJ] cell(n, r, n / r, (n + 1) / r)
ex(K, W, lr) = (K * lr * a < 1e-300) ? a / 2 * (e0 * e0 + T * W) : \
    a / 2 * (E(2 * T * log(1 - K * lr * a)) * e0 * e0 + \
             W * (1 - E(2 * T * log(1 - K * lr * a))) / (K * lr * a * (2 - K * lr * a)))
m_exact(lr) = ex(1, lr * lr * sigma * sigma, lr)
m_rn(lr) = ex(kap(lr * sigma / q), wrn(lr * sigma / q) * q * q, lr)
m_sr(lr) = ex(1, (lr * lr * sigma * sigma / (q * q) + vsr(lr * sigma / q)) * q * q, lr)

lmin = 1e308; lmax = 0; ypos = 1e308; nmin = 1e308; nmax = 0
see(l, v, n) = (lmin = (l < lmin ? l : lmin), lmax = (l > lmax ? l : lmax), \
             ypos = (finite(v) && v > 0 && v < ypos) ? v : ypos, nmin = (n < nmin ? n : nmin), nmax = (n > nmax ? n : nmax), 0)
stats in using (keep(0) ? see(column("lr"), column("final_loss_gap_mean"), column("final_loss_gap_n")) : 0) nooutput
ing(g) = keep(0) && gkey(0) eq word(groups, g)
# the crossover lr_c: the largest lr at which the SR model lies below the RN model (theory/T14,
# srlab theory T14's crossover_lr), from a log grid over the data's range refined by bisection
lrc = NaN
cwin(l) = m_sr(l) < m_rn(l)
nc = ceil(400 * log10(lmax / lmin * 1.69)) + 1
do for [i=nc:1:-1] { if (lrc != lrc) { l1 = lmin / 1.3 * (lmax / lmin * 1.69) ** ((i - 1.0) / (nc - 1)); \
    l2 = lmin / 1.3 * (lmax / lmin * 1.69) ** (1.0 * i / (nc - 1)); if (cwin(l1) && (i == nc || !cwin(l2))) { lrc = l1; lrh = l2 } } }
if (lrc == lrc && lrc < lmax * 1.3) { do for [it=1:60] { lm = sqrt(lrc * lrh); if (cwin(lm)) { lrc = lm } else { lrh = lm } } }
# the model's colours are those of the curves they model: exact fp32-like, RN and SR by name
cex = "#000000"; crn = "#555555"; csr = "#999999"
do for [g=G:1:-1] { k = word(groups, g); if (strstrt(k, "sr")) { csr = col(g) } else { if (strstrt(k, "rn")) { crn = col(g) } else { cex = col(g) } } }
clipl(v) = finite(v) ? (v > ypos / 2 ? v : ypos / 2) : NaN
# each curve's points a little apart on the log axis, so that bars at one lr stay apart
dodge(g) = (G > 1) ? 1.04 ** (g - (G + 1) / 2.0) : 1

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "srrn.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
set xlabel "learning rate {/Symbol h}"
set ylabel sprintf("mean loss gap after %g steps", T)
set logscale xy
set format y "10^{%T}"
set format x "10^{%T}"
set xrange [lmin / 1.3 : lmax * 1.3]
if (lmax / lmin * 1.69 < 100) { tax = "x"; tlo = lmin / 1.3; thi = lmax * 1.3; load plotdir."logtics.gpi" }
set yrange [ypos / 2:*]
set grid xtics ytics mytics lc rgb "#dddddd"
set key top center box opaque samplen 2 font ",10"
set title sprintf("noisy SGD: a = %g, x^* = %g, x_0 = %g, {/Symbol s} = %g, p = %d (theory/T14)", a, xstar, x0, sigma, p)
set samples 120
set arrow 1 from q / (sigma * sqrt(6)), graph 0 to q / (sigma * sqrt(6)), graph 1 nohead dt 3 lc rgb csr
set label 2 "lr^*" at q / (sigma * sqrt(6)), graph 0.04 offset 0.5,0 tc rgb csr font ",10"
set arrow 3 from q / (2 * sigma), graph 0 to q / (2 * sigma), graph 1 nohead dt 3 lc rgb crn
set label 4 "ulp/(2{/Symbol s})" at q / (2 * sigma), graph 0.1 offset 0.5,0 tc rgb crn font ",10"
if (lrc == lrc) { set arrow 5 from lrc, graph 0 to lrc, graph 1 nohead lw 2 lc rgb "#000000"; \
    set label 6 sprintf("lr_c = %.3g: SR wins below", lrc) at lrc, graph 0.72 right offset -0.5,0 font ",10" }
set bmargin 5
set label 1 (nmax <= 1 ? "points: one seed each" : sprintf("points: mean over %s, bars 95%% (Student t), curves set apart 4%% in lr; dashed: the model, in its curve's colour", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))) \
    at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
set print $RUNS
print "g,x,y"
set print
set table $RUNS append separator comma
plot for [g=1:G] in using (g):(column("lr") * dodge(g)):(column("final_loss_gap_mean")) with table if (ing(g))
unset table
hasci = hascol("final_loss_gap_ci95_lo") && hascol("final_loss_gap_ci95_hi")
plot m_exact(x) with lines dt 2 lw 2 lc rgb cex title "exact (model)", \
     m_rn(x) with lines dt 2 lw 2 lc rgb crn title "RN (model)", \
     m_sr(x) with lines dt 2 lw 2 lc rgb csr title "SR (model)", \
     for [g=1:G] in using (ing(g) && hasci ? column("lr") * dodge(g) : NaN):(column("final_loss_gap_mean")):(clipl(column("final_loss_gap_ci95_lo"))):(clipl(column("final_loss_gap_ci95_hi"))) \
         with yerrorbars pt 7 ps 0.8 lw 1.2 lc rgb col(g) notitle, \
     for [g=1:G] $RUNS using ($1 == g ? $2 : NaN):3 smooth unique \
         with linespoints pt 7 ps 1 lw 1 lc rgb col(g) title GL[g]
@showranges
# the model at each learning rate drawn and the crossover, for tests
lines = ""
addl(l) = (strstrt(lines, sprintf(" %.17g ", l)) ? 0 : (lines = lines.sprintf(" %.17g ", l)), 0)
if (exists("debug")) { stats in using (keep(0) ? addl(column("lr")) : 0) nooutput; set print debug append; \
    do for [i=1:words(lines)] { v = real(word(lines, i)); print sprintf("line %s %.17g %.17g %.17g", word(lines, i), m_exact(v), m_rn(v), m_sr(v)) }; \
    print sprintf("lrc %.17g", lrc); set print }
set output
