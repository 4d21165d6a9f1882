# plots/heat.gp: RMS rounding error of the 1-D heat equation (explicit Euler, every update
# rounded once) against the time step dt = r h^2, one curve per rounding, with the lines of
# theory/T15 (Croci and Giles 2022): the worst-case RN bound t u / dt, SR's small-h law
# u sqrt(S(t)/(8 pi^2 r h)) ~ u dt^-1/4, and the level of a stagnated solution, the whole decay
# rms((1 - exp(-pi^2 t)) sin(pi x)). RN follows u/dt and then stagnates; SR keeps to dt^-1/4.
# The points carry their 95% intervals over the seeds (the summary's Student t); the key sits
# above the plot.
#
#   gnuplot -e "in='heat.summary.csv'; out='heat.png'" plots/heat.gp
#   srlab plot heat --in heat.summary.csv -o heat.png
#
# in     summary file of a heat sweep over m (columns final_dt_mean, final_rms_err_mean and _n)
# out    .png, .svg or .pdf (default heat.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        rounding and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set where=FILTER     keep grid points whose columns match, space-separated: "format=fp16"
# --set debug=OUTFILE    the axis ranges drawn (tests)
# --set p=INTEGER        the format's precision of the lines (default: from the format column, else
#                        fp16's 11)
# --set r=NUMBER         dt / h^2 of the lines (default: --r of the '# command:' line, else 0.25)
# --set t=NUMBER         the final time of the lines (default: --t of the '# command:' line, else
#                        0.0625)
#
# needs: final_dt_mean final_rms_err_mean final_rms_err_n   (columns of --in)
if (!exists("in")) { print "heat.gp: give in='FILE.summary.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "heat.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "heat.gp"; bydefault = "rounding"; xaxes = "m"
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

# ---- the run's settings, from its '# command:' line (read by common.gpi, no shell) ----
cmd = cmdline
argof(k, d) = (sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) > 0 ? \
    word(cmd, 1 + sum [i=1:words(cmd)-1] (word(cmd, i) eq "--".k ? i : 0)) : d
if (!exists("r")) r = real(argof("r", "0.25"))
if (!exists("t")) t = real(argof("t", "0.0625"))
fcol = ""
if (hascol("format")) { stats in using (keep(0) && fcol eq "" ? (fcol = uc(strcol("format")), 0) : 0) nooutput }
fmtname = (fcol ne "") ? fcol : argof("format", "fp16")
if (!exists("p")) p = strstrt(fmtname, "fp32") ? 24 : (strstrt(fmtname, "fp16") || strstrt(fmtname, "tf32")) ? 11 : \
    strstrt(fmtname, "e4m3") ? 4 : strstrt(fmtname, "e5m2") ? 3 : 8
u = 2.0 ** (-p)
rnbound(x) = t * u / x
# S(t) = sum_k (1 - exp(-2 pi^2 k^2 t)) / k^2 (pi^2/6 once t >> 1/(2 pi^2)); h = sqrt(dt / r)
srS = pi**2 / 6 - sum [k=1:1000] exp(-2 * pi**2 * k**2 * t) / k**2
srlaw(x) = u * sqrt(srS / (8 * pi**2 * r * sqrt(x / r)))
frozen = (1 - exp(-pi**2 * t)) / sqrt(2)

lmin = 1e308; lmax = 0; ypos = 1e308; nmin = 1e308; nmax = 0
see(l, v, n) = (lmin = (l < lmin ? l : lmin), lmax = (l > lmax ? l : lmax), \
             ypos = (finite(v) && v > 0 && v < ypos) ? v : ypos, nmin = (n < nmin ? n : nmin), nmax = (n > nmax ? n : nmax), 0)
stats in using (keep(0) ? see(column("final_dt_mean"), column("final_rms_err_mean"), column("final_rms_err_n")) : 0) nooutput
floor = (ypos < 1e308) ? ypos / 2 : 1e-300
clip(v) = (finite(v) ? (v > floor ? v : floor) : NaN)
ing(g) = keep(0) && gkey(0) eq word(groups, g)

if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "heat.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
set xlabel "time step dt = r h^2"
set ylabel "RMS rounding error at t, against the binary64 scheme"
set logscale xy
set format y "10^{%T}"
set format x "10^{%T}"
set xrange [lmin / 1.5 : lmax * 1.5]
set yrange [floor / 1.5 : 2]
set grid xtics ytics lc rgb "#dddddd"
# the key above the plot: inside it covered the SR curve
set key outside top center horizontal maxrows 2 box opaque samplen 2 font ",10"
set title sprintf("heat equation by explicit Euler, every update rounded once: p = %d, r = %g, t = %g", p, r, t)
set samples 200
set bmargin 5
set label 1 (nmax <= 1 ? "points: one seed each" : sprintf("points: mean over %s, bars 95%% (Student t; RN is deterministic: none)", nmin == nmax ? nseeds(nmax) : sprintf("%d to %d seeds", nmin, nmax))) \
    at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
set print $RUNS
print "g,x,y"
set print
set table $RUNS append separator comma
plot for [g=1:G] in using (g):(column("final_dt_mean")):(clip(column("final_rms_err_mean"))) with table if (ing(g))
unset table
hasci = hascol("final_rms_err_ci95_lo") && hascol("final_rms_err_ci95_hi")
plot rnbound(x) with lines dt 2 lw 2 lc rgb "#000000" title "RN worst case t u / dt", \
     srlaw(x) with lines dt 4 lw 2 lc rgb "#555555" title "SR bound, small h: u sqrt(S(t) / (8 pi^2 r h)), slope 1/4", \
     frozen with lines dt 3 lw 1.5 lc rgb "#999999" title "stagnated: the whole decay", \
     for [g=1:G] in using (ing(g) && hasci ? column("final_dt_mean") : NaN):(clip(column("final_rms_err_mean"))):(clip(column("final_rms_err_ci95_lo"))):(clip(column("final_rms_err_ci95_hi"))) \
         with yerrorbars pt 7 ps 0.8 lw 1.2 lc rgb col(g) notitle, \
     for [g=1:G] $RUNS using ($1 == g ? $2 : NaN):3 smooth unique \
         with linespoints pt 7 ps 1 lw 2 lc rgb col(g) title GL[g]
@showranges
# the lines at each time step drawn, for tests
lines = ""
addl(l) = (strstrt(lines, sprintf(" %.17g ", l)) ? 0 : (lines = lines.sprintf(" %.17g ", l)), 0)
if (exists("debug")) { stats in using (keep(0) ? addl(column("final_dt_mean")) : 0) nooutput; set print debug append; \
    do for [i=1:words(lines)] { v = real(word(lines, i)); print sprintf("line %s %.17g %.17g %.17g", word(lines, i), rnbound(v), srlaw(v), frozen) }; set print }
set output
