# plots/sum_error.gp: relative error of recursive summation against the number of terms n, one
# curve per rounding (mean over seeds, band from the smallest to the largest seed), beside the
# n u and sqrt(n) u lines (theory/T03; Connolly, Higham, Mary 2021: the worst-case RN bound grows
# like n u, SR errors like sqrt(n) u with high probability).
#
#   gnuplot -e "in='sum.csv'; out='sum.png'" plots/sum_error.gp
#   srlab plot sum_error --in sum.csv -o sum.png
#
# in     rows file of a `srlab sweep --command run --problem sum` sweep (columns k, rel_err, format)
# out    .png, .svg or .pdf (default sum_error.png); fmt overrides the extension
# --set by=COLUMNS       the columns whose values get a curve each, comma-separated (default
#                        rounding and every other axis that varies; an axis left out that varies
#                        within a curve is refused)
# --set ycol=COLUMN      the error column (default rel_err: |s - S| / sum |x_i|)
# --set where=FILTER     keep runs whose columns match, space-separated: "format=bf16 order=recursive"
# --set debug=OUTFILE    the axis ranges drawn (tests)
# --set u=NUMBER         unit roundoff 2^-p of the lines; by default from the format column of the
#                        first kept row (bf16 2^-8, fp16 and tf32 2^-11, fp32 2^-24, e4m3 2^-4,
#                        e5m2 2^-3, p=P,... 2^-P)
# An error of 0 (exact sums, as for the first terms) cannot show on a log axis: the mean line has a
# gap there and the band is drawn down to the bottom of the plot.
#
# needs: run k format:text   (columns of --in; srlab plot checks them before gnuplot runs)
if (!exists("in")) { print "sum_error.gp: give in='FILE.csv' (and out='FILE.png')"; exit status 2 }
if (!exists("out")) out = "sum_error.png"
if (!exists("fmt")) fmt = out[strlen(out)-2:]
if (!exists("ycol")) ycol = "rel_err"
if (!exists("where")) where = ""

revs(s) = strlen(s) <= 1 ? s : revs(s[2:]).s[1:1]
name = "sum_error.gp"; bydefault = "rounding"; xaxes = ""
plotdir = (exists("ARG0") && strstrt(ARG0, "/")) ? ARG0[1:strlen(ARG0) - strstrt(revs(ARG0), "/") + 1] : ""
load plotdir."common.gpi"

fmtname = ""; probname = ""
lastrun = -1; j = 0; jmax = 0; ypos = 1e308; ymax = 0; nsel = 0; kmax = 1
rowidx(r) = (r != lastrun ? (lastrun = r, j = 0) : (j = j + 1), jmax = (j > jmax ? j : jmax), j)
see(k, v) = (nsel = nsel + 1, ypos = (finite(v) && v > 0 && v < ypos) ? v : ypos, \
             ymax = (finite(v) && v > ymax) ? v : ymax, kmax = (k > kmax ? k : kmax), 0)
# The bounds n u and sqrt(n) u belong to one format: rows of two formats are refused below.
fmt2 = ""
firstfmt(s, p) = (fmtname eq "" ? (fmtname = s, probname = p) : (s ne fmtname && fmt2 eq "" ? (fmt2 = s) : 0), 0)
stats in using (rowidx(column("run")), keep(0) ? (firstfmt(uc(strcol("format")), strcol("problem")), \
                see(column("k"), column(ycol))) : 0) nooutput
if (fmt2 ne "") { print sprintf("sum_error.gp: %s holds rows of several formats (%s, %s, ...): pick one with --set where=format=%s", in, fmtname, fmt2, fmtname); exit status 2 }
J = jmax + 1
floor = (ypos < 1e308) ? ypos / 2 : 1e-300
if (!exists("u")) u = fmtname eq "fp32" ? 2.0**-24 : (fmtname eq "fp16" || fmtname eq "tf32") ? 2.0**-11 : \
    fmtname eq "e4m3" ? 2.0**-4 : fmtname eq "e5m2" ? 2.0**-3 : fmtname eq "fp64" ? 2.0**-53 : \
    fmtname[1:2] eq "p=" ? 2.0**(-int(real(fmtname[3:strstrt(fmtname.",", ",")-1]))) : 2.0**-8

N = G * J
array X[N]; array C[N]; array S[N]; array MN[N]; array MX[N]; array R[G]
do for [i=1:N] { C[i] = 0; S[i] = 0; MN[i] = 1e308; MX[i] = -1e308; X[i] = NaN }
do for [i=1:G] { R[i] = 0 }
acc(gi, jj, xv, v) = (kk = (gi - 1) * J + jj + 1, X[kk] = xv, (jj == 0 ? R[gi] = R[gi] + 1 : 0), \
    finite(v) ? (C[kk] = C[kk] + 1, S[kk] = S[kk] + v, MN[kk] = (v < MN[kk] ? v : MN[kk]), \
                 MX[kk] = (v > MX[kk] ? v : MX[kk])) : 0, 0)
lastrun = -1; j = 0
stats in using (jj = rowidx(column("run")), keep(0) ? acc(gidx(gkey(0)), jj, column("k"), column(ycol)) : 0) nooutput
mean(k) = C[k] > 0 && S[k] / C[k] > 0 ? S[k] / C[k] : NaN
lo(k) = C[k] > 0 ? (MN[k] > floor ? MN[k] : floor) : NaN
hi(k) = C[k] > 0 ? (MX[k] > floor ? MX[k] : floor) : NaN

set datafile nocolumnheaders
if (fmt eq "png") { set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,12" }
if (fmt eq "svg") { set terminal svg size 900,600 enhanced font "DejaVu Sans,12" dynamic }
if (fmt eq "pdf") { set terminal pdfcairo size 6in,4in enhanced font "DejaVu Sans,10" }
if (fmt ne "png" && fmt ne "svg" && fmt ne "pdf") { print "sum_error.gp: out must end in .png, .svg or .pdf (or set fmt)"; exit status 2 }
set output out
what = probname eq "matvec" ? "matrix-vector products y = Ax" : probname eq "harmonic" ? \
    "the harmonic series" : "recursive summation"
set xlabel probname eq "matvec" ? "inner dimension n (columns of A)" : "number of terms n"
set ylabel (ycol eq "rel_err") ? "relative error |s_n - S_n| / {/Symbol S} |x_i|" : \
    (ycol eq "bwd_norm") ? "normwise backward error" : (ycol eq "bwd_comp") ? "componentwise backward error" : esc(ycol)
set logscale xy
set format x "10^{%T}"
set format y "10^{%T}"
set xrange [1:kmax]
set yrange [floor / 1.5 : (ymax > 0 ? 30 * ymax : 1)]
set grid xtics ytics mytics lc rgb "#dddddd"
set key top left box opaque samplen 2
set title sprintf("%s in %s (u = 2^{%d}): error against n, by %s%s", what, fmtname, int(floor(log(u)/log(2)+0.5)), bytitle, \
    nw ? " ({/Italic ".where."})" : "")
set bmargin 5
rmin = R[1]; rmax = R[1]
do for [g=1:G] { rmin = (R[g] < rmin ? R[g] : rmin); rmax = (R[g] > rmax ? R[g] : rmax) }
set label 1 (rmax == 1 ? "line: one seed per curve" : sprintf("line: mean over %s; band: smallest to largest seed", \
    rmin == rmax ? nseeds(rmax) : "the seeds of each curve (key)")) at screen 0.01, screen 0.03 font ",9" tc rgb "#555555"
set style fill transparent solid 0.18 noborder
set samples 200
plot x * u with lines dt 2 lw 2 lc rgb "#000000" title "n u", \
     sqrt(x) * u with lines dt 3 lw 2 lc rgb "#000000" title "{/Symbol \326}n u", \
     for [g=1:G] X every ::((g-1)*J)::(g*J-1) using (X[$1]):(lo($1)):(hi($1)) with filledcurves lc rgb col(g) notitle, \
     for [g=1:G] X every ::((g-1)*J)::(g*J-1) using (X[$1]):(mean($1)) with lines lw 2.5 lc rgb col(g) \
         title (rmin == rmax ? GL[g] : sprintf("%s (%s)", GL[g], nseeds(R[g])))
@showranges
set output
