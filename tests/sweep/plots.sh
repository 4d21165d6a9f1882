#!/bin/sh
# tests/sweep/plots.sh SRLAB: every plots/*.gp draws a non-empty PNG, SVG and PDF from sweep
# files, directly under gnuplot and through srlab plot; srlab plot refuses bad input (exit 2).
# Skipped (77) without gnuplot, which quickstart.sh installs (Debian's gnuplot-nox).
set -u
case $1 in /*) SRLAB=$1 ;; *) SRLAB=$(pwd)/$1 ;; esac
PLOTS=${SRL_SRCDIR:-$(dirname "$0")/../..}/plots
case $PLOTS in /*) ;; *) PLOTS=$(pwd)/$PLOTS ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-plots-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
export SOURCE_DATE_EPOCH=1700000000
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }

"$SRLAB" sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 0.01:0.1:log:3 --steps 400 \
    --log-every 20 --seeds 3 --quiet -o q.csv 2>err.txt || bad "quad1d sweep: $(cat err.txt)"
"$SRLAB" sweep --command run --problem sum --rounding rn,sr --n 2000 --points 3 --seeds 3 \
    --quiet -o s.csv 2>err.txt || bad "sum sweep: $(cat err.txt)"

# one grid point (one strategy, one lr): a file of one row is a figure too (gnuplot 5.4 died
# drawing lr_sweep's labels of diverged points from it, none diverged: srlab plot exited 3)
"$SRLAB" sweep --problem quad1d --strategy bf16-rn --lr 0.01 --steps 40 --log-every 20 --seeds 2 \
    --quiet -o one.csv 2>err.txt || bad "one-point sweep: $(cat err.txt)"
for spec in "loss_vs_step one.csv" "lr_sweep one.summary.csv" "stall one.summary.csv"; do
    set -- $spec
    rm -f "one-$1.png"
    if "$SRLAB" plot "$1" --in "$2" -o "one-$1.png" 2>err.txt && [ -s "one-$1.png" ]; then
        ok "srlab plot $1 of one grid point"
    else
        bad "srlab plot $1 of one grid point: $(cat err.txt)"
    fi
done

# plot data: each script with the file it reads
for spec in "loss_vs_step q.csv" "lr_sweep q.summary.csv" "stall q.summary.csv" "sum_error s.csv"; do
    set -- $spec
    for ext in png svg pdf; do
        rm -f "$1.$ext"
        if gnuplot -e "in='$2'; out='$1.$ext'" "$PLOTS/$1.gp" 2>err.txt && [ -s "$1.$ext" ]; then
            ok "gnuplot $1.gp -> $ext"
        else
            bad "gnuplot $1.gp -> $ext: $(cat err.txt)"
        fi
    done
    if "$SRLAB" plot "$1" --in "$2" -o "via-$1.png" 2>err.txt && [ -s "via-$1.png" ]; then
        ok "srlab plot $1"
    else
        bad "srlab plot $1: $(cat err.txt)"
    fi
done
head -c 8 via-lr_sweep.png | od -An -c | grep -q 'P   N   G' && ok "a PNG file" || bad "not a PNG"
head -c 5 lr_sweep.pdf | grep -q '%PDF' && ok "a PDF file" || bad "not a PDF"
grep -q '<svg' lr_sweep.svg && ok "an SVG file" || bad "not an SVG"
"$SRLAB" plot loss_vs_step --in q.csv --set by=strategy --set 'where=lr=0.01' -o w.svg 2>err.txt &&
    [ -s w.svg ] && ok "--set by and where" || bad "--set: $(cat err.txt)"

expect() { # STATUS PATTERN WHAT CMD...
    want=$1 pat=$2 what=$3
    shift 3
    "$@" >out.txt 2>err.txt
    got=$?
    if [ "$got" -eq "$want" ] && grep -qF -- "$pat" err.txt; then ok "$what"; else
        bad "$what: exit $got, stderr $(head -c 300 err.txt)"; fi
}
echo keep >keep.png
expect 2 "unknown figure 'nope' (in " "unknown figure" "$SRLAB" plot nope --in q.csv -o keep.png
expect 2 "--in: cannot read 'missing.csv'" "missing data" "$SRLAB" plot stall --in missing.csv -o keep.png
expect 2 "must end in .png, .svg or .pdf" "bad extension" "$SRLAB" plot stall --in q.summary.csv -o x.gif
expect 2 "install Debian's gnuplot-nox" "gnuplot missing" env PATH=/nonexistent "$SRLAB" plot stall --in q.summary.csv -o keep.png
expect 2 "no rows in q.csv match" "a filter matching nothing" "$SRLAB" plot loss_vs_step --in q.csv --set 'where=lr=7' -o keep.png
expect 2 "gnuplot could not draw" "  ... and srlab's message" "$SRLAB" plot loss_vs_step --in q.csv --set 'where=lr=7' -o keep.png
expect 2 "has no column 'final_dist_to_opt_mean', which the figure stall needs: this is a rows file" \
    "a rows file where the summary is needed" "$SRLAB" plot stall --in q.csv -o keep.png
expect 2 "has no column 'final_dist_to_opt_mean', which the figure stall needs: this is the runs file" \
    "a runs file where the summary is needed" "$SRLAB" plot stall --in q.runs.csv -o keep.png
expect 2 "has no column 'run', which the figure loss_vs_step needs: this is a summary file" \
    "a summary file where the rows are needed" "$SRLAB" plot loss_vs_step --in q.summary.csv -o keep.png
"$SRLAB" sweep --command run --problem sum --format bf16,fp16 --rounding rn --n 200 --points 2 \
    --quiet -o two.csv 2>err.txt || bad "two-format sweep: $(cat err.txt)"
expect 2 "holds rows of several formats (bf16, fp16, ...)" "sum_error with two formats" \
    "$SRLAB" plot sum_error --in two.csv -o keep.png
expect 2 "the figure has no variable '1x'" "bad --set" "$SRLAB" plot stall --in q.summary.csv --set 1x=2 -o keep.png
expect 2 "directory 'nodir' does not exist" "missing output directory" "$SRLAB" plot stall --in q.summary.csv -o nodir/x.png

# Issue 13, item 3: a figure groups by every axis that varies, or refuses naming it; its footnote
# counts what it averaged (read from the SVG's text: key entries and the footnote).
"$SRLAB" sweep --problem quadratic --rounding rn,sr --lr 1e-2,1e-1 --steps 40 --log-every 10 \
    --seeds 2 --quiet -o rs.csv 2>err.txt || bad "rounding sweep: $(cat err.txt)"
svgtext() { grep -o '<tspan[^>]*>[^<]*</tspan>' "$1" | sed 's/<[^>]*>//g' | sort -u; }  # the figure's texts
"$SRLAB" plot lr_sweep --in rs.summary.csv -o rs_lr.svg 2>err.txt || bad "lr_sweep rn,sr: $(cat err.txt)"
svgtext rs_lr.svg >t.txt
grep -qx rn t.txt && grep -qx sr t.txt && ! grep -qx fp32 t.txt && ok "lr_sweep: a curve per rounding" ||
    bad "lr_sweep: curves $(tr '\n' '|' <t.txt)"
grep -q "mean over 2 seeds," t.txt && ok "lr_sweep: footnote counts 2 seeds" || bad "lr_sweep footnote: $(grep mean t.txt)"
"$SRLAB" plot loss_vs_step --in rs.csv -o rs_loss.svg 2>err.txt || bad "loss_vs_step rn,sr: $(cat err.txt)"
svgtext rs_loss.svg >t.txt
n=$(grep -c '^\(rn\|sr\), lr=1e-[12]$' t.txt)
[ "$n" -eq 4 ] && ok "loss_vs_step: a curve per rounding and lr" || bad "loss_vs_step: $n curves: $(tr '\n' '|' <t.txt)"
grep -q "mean over 2 seeds;" t.txt && ! grep -q runs t.txt && ok "loss_vs_step: footnote counts 2 seeds" ||
    bad "loss_vs_step footnote: $(grep mean t.txt)"
expect 2 "rounding takes several values (rn, sr, ...) within one curve of rs.summary.csv, which would average them: separate them with --set by=strategy,rounding or keep one with --set where=rounding=rn" \
    "lr_sweep --set by=strategy refuses, naming rounding" "$SRLAB" plot lr_sweep --in rs.summary.csv --set by=strategy -o keep.png
expect 2 "lr takes several values (1e-2, 1e-1, ...) within one curve of rs.csv" \
    "loss_vs_step --set by=rounding refuses, naming lr" "$SRLAB" plot loss_vs_step --in rs.csv --set by=rounding -o keep.png
"$SRLAB" plot loss_vs_step --in rs.csv --set by=rounding --set where=lr=1e-1 -o w1.svg 2>err.txt &&
    svgtext w1.svg | grep -qx rn && ok "--set by=rounding with where=lr=1e-1" || bad "by + where: $(cat err.txt)"
"$SRLAB" plot lr_sweep --in rs.summary.csv --set by=rounding,strategy -o two.svg 2>err.txt &&
    svgtext two.svg | grep -qx rn && ok "--set by=rounding,strategy (strategy does not vary)" || bad "by=a,b: $(cat err.txt)"
# The summary with one row per grid point (columns seeds, diverged, M_n ...), the runs beside it.
cat >new.summary.csv <<'EOF2'
# command: srlab sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 0.01,0.1 --seeds 3
problem,strategy,format,rounding,lr,seeds,diverged,final_loss_gap_n,final_loss_gap_mean,final_loss_gap_sd,final_loss_gap_ci95_lo,final_loss_gap_ci95_hi,final_dist_to_opt_n,final_dist_to_opt_mean,final_dist_to_opt_sd,final_dist_to_opt_ci95_lo,final_dist_to_opt_ci95_hi
quad1d,bf16-rn,bf16,rn,0.01,3,0,3,0.01,0.001,0.008,0.012,3,0.1,0.01,0.08,0.12
quad1d,bf16-rn,bf16,rn,0.1,3,0,3,0.001,0.0001,0.0008,0.0012,3,0.01,0.001,0.008,0.012
quad1d,bf16-sr,bf16,sr,0.01,3,1,2,1e-6,1e-7,5e-7,2e-6,2,0.001,0.0001,0.0008,0.0012
quad1d,bf16-sr,bf16,sr,0.1,3,0,3,1e-6,1e-7,8e-7,1.2e-6,3,0.001,0.0001,0.0008,0.0012
EOF2
{ echo "run,problem,strategy,format,rounding,lr,seed,last_step,final_loss_gap,final_dist_to_opt,best_loss,diverged"
  r=0; for p in "bf16-rn,bf16,rn" "bf16-sr,bf16,sr"; do for lr in 0.01 0.1; do for s in 1 2 3; do
      echo "$r,quad1d,$p,$lr,$s,100,1e-6,0.001,1e-6,0"; r=$((r + 1)); done; done; done; } >new.runs.csv
for f in lr_sweep stall; do
    "$SRLAB" plot $f --in new.summary.csv -o new_$f.svg 2>err.txt && svgtext new_$f.svg >t.txt &&
        grep -qx bf16-rn t.txt && grep -qx bf16-sr t.txt && ok "$f reads the one-row-per-grid-point summary" ||
        bad "$f on the new summary: $(cat err.txt)"
done
svgtext new_lr_sweep.svg | grep -q "mean over 2 to 3 seeds, .*; 1 of 12 runs not finite, left out" &&
    ok "lr_sweep footnote: 2 to 3 seeds, 1 run left out" || bad "lr_sweep footnote: $(svgtext new_lr_sweep.svg | grep mean)"
svgtext new_stall.svg | grep -q "mean over 2 to 3 seeds" && ok "stall footnote" || bad "stall footnote: $(svgtext new_stall.svg | grep mean)"
expect 2 "this is the runs file, and the figure reads the summary file" "the runs file where the summary is needed" \
    "$SRLAB" plot lr_sweep --in new.runs.csv -o keep.png

# plots/stall.gp read the sweep's command line through system() with the file name in it: a
# name with quotes and a command must run nothing (no script calls a shell: tests/house/gnuplot_sinks.sh;
# every route and feature: tests/cli/gnuplot_hostile.sh).
evil="q';touch PWNED;'\"\$(touch PWNED2)\".summary.csv"
cp q.summary.csv "$evil"
"$SRLAB" plot stall --in "$evil" -o evil.png 2>err.txt && [ -s evil.png ] && ok "stall from a file named $evil" ||
    bad "stall from $evil: $(cat err.txt)"
esc_evil=$(printf '%s' "$evil" | sed "s/'/''/g")
gnuplot -e "in='$esc_evil'; out='evil2.png'" "$PLOTS/stall.gp" 2>err.txt || bad "gnuplot stall.gp from $evil: $(cat err.txt)"
expect 2 "--set title: '\`touch PWNED3\`' holds '\`'" "a title with backquotes is refused" \
    "$SRLAB" plot lr_sweep --in q.summary.csv --set 'title=`touch PWNED3`' -o bq.png
"$SRLAB" plot lr_sweep --in q.summary.csv --set 'where=lr=`touch PWNED4`' -o bq.png 2>/dev/null
[ ! -e PWNED ] && [ ! -e PWNED2 ] && [ ! -e PWNED3 ] && [ ! -e PWNED4 ] && ok "a file name or --set value ran no command" || bad "a file name ran a command: $(ls PWNED*)"

# Issue 13, item 6: figures for papers. Checked on the ranges gnuplot drew (--set debug=FILE), the
# means and bars it plotted, and the texts of the SVG.
rm -f d.txt
"$SRLAB" plot lr_sweep --in q.summary.csv --set debug=d.txt -o r.png 2>err.txt || bad "lr_sweep debug: $(cat err.txt)"
awk '$1 == "xrange" { exit !($2 >= 0.01 / 1.5 && $3 <= 0.1 * 1.5) }' d.txt &&
    ok "lr_sweep: the x axis fits the data (0.01 to 0.1)" || bad "lr_sweep x range: $(cat d.txt)"
# a GPT-like study: gap 1 at step 0 falling to ~0.02; one seed in the rows, two in the runs
{ echo "run,problem,strategy,lr,seed,step,val_loss,fstar"
  r=0; for st in fp32 bf16-sr; do for lr in 0.001 0.01; do
      awk -v r=$r -v st=$st -v lr=$lr 'BEGIN { for (t = 0; t <= 300; t += 50)
          printf "%d,gpt,%s,%s,1,%d,%.6f,1.68\n", r, st, lr, t, 1.68 + exp(-t / 40) + 0.02 + (lr == 0.01 ? 0 : 0.01) + (st == "fp32" ? 0 : 0.002) }'
      r=$((r + 1)); done; done; } >g.csv
"$SRLAB" plot gpt_curves --in g.csv --set debug=d2.txt -o g.svg 2>err.txt || bad "gpt_curves: $(cat err.txt)"
top=$(awk -F, 'NR > 1 && $7 - $8 > m { m = $7 - $8 } END { print m }' g.csv)
awk -v top="$top" '$1 == "yrange" { exit !($3 >= top) }' d2.txt && ok "gpt_curves: not clipped at the top ($top)" ||
    bad "gpt_curves clipped: data up to $top, $(grep yrange d2.txt)"
svgtext g.svg >t.txt
grep -qx "fp32, lr = 0.01" t.txt && ! grep -q "seeds)" t.txt && grep -q "one seed per curve" t.txt &&
    ok "gpt_curves: one seed is not \"(1 seeds)\"" || bad "gpt_curves labels: $(grep -e lr -e seed t.txt | tr '\n' '|')"
cat >g2.summary.csv <<'EOF2'
# command: srlab sweep --problem gpt --strategy fp32,bf16-sr --lr 0.001,0.01 --seeds 2
problem,strategy,lr,seeds,diverged,final_val_loss_n,final_val_loss_mean,final_val_loss_sd,final_val_loss_ci95_lo,final_val_loss_ci95_hi
gpt,fp32,0.001,2,0,2,1.705,0.007,1.6,1.8
gpt,fp32,0.01,2,0,2,1.7,0.007,1.6,1.8
gpt,bf16-sr,0.001,2,0,2,1.72,0.007,1.6,1.8
gpt,bf16-sr,0.01,2,0,2,1.71,0.007,1.6,1.8
EOF2
cat >g2.runs.csv <<'EOF2'
run,problem,strategy,lr,seed,last_step,final_val_loss,final_fstar,diverged
0,gpt,fp32,0.001,1,300,1.70,1.68,0
1,gpt,fp32,0.001,2,300,1.71,1.68,0
2,gpt,fp32,0.01,1,300,1.695,1.68,0
3,gpt,fp32,0.01,2,300,1.705,1.68,0
4,gpt,bf16-sr,0.001,1,300,1.72,1.68,0
5,gpt,bf16-sr,0.001,2,300,1.73,1.68,0
6,gpt,bf16-sr,0.01,1,300,1.70,1.68,0
7,gpt,bf16-sr,0.01,2,300,1.72,1.68,0
EOF2
rm -f d3.txt
"$SRLAB" plot gpt_lr --in g2.summary.csv --set debug=d3.txt -o g2.svg 2>err.txt || bad "gpt_lr: $(cat err.txt)"
# fp32 at lr 0.001: gaps 0.02 and 0.03, mean 0.025, standard error 0.005
awk -F, '$1 == 1 && $2 == 0.001 { d = ($3 - 0.025)^2 + ($4 - 0.02)^2 + ($5 - 0.03)^2; found = 1 }
         END { exit !(found && d < 1e-24) }' d3.txt && ok "gpt_lr: bars at the mean +- its standard error" ||
    bad "gpt_lr bars: $(cat d3.txt | tr '\n' '|')"
svgtext g2.svg | grep -q "bars: ± one standard error" && ok "gpt_lr: the footnote names the bars" || bad "gpt_lr footnote"
# tick labels at round values: mantissas 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8
svgtext g2.svg | grep -E '^[0-9.]+(e-?[0-9]+)?$' >ticks.txt
awk 'BEGIN { split("1 1.2 1.5 2 2.5 3 4 5 6 7 8", a) } { v = $1 + 0; if (v <= 0) next; e = int(log(v) / log(10) + 100) - 100;
     m = v / 10^e; if (m >= 10 - 1e-9) m /= 10; ok = 0; for (i in a) if (m > a[i] - 1e-9 && m < a[i] + 1e-9) ok = 1;
     if (!ok) { print "odd tick " $1; bad = 1 } } END { exit bad || NR < 4 }' ticks.txt >odd.txt &&
    ok "gpt_lr: $(wc -l <ticks.txt) ticks, all at round values" || bad "gpt_lr ticks: $(cat odd.txt) of $(tr '\n' ' ' <ticks.txt)"
# gpt_replicas: shared streams stay at 0, which a log axis cannot show: no key entry (with a line
# sample) for that curve in the log panel, a note instead; the linear panel draws it.
{ echo "problem,sr-seed,seed,step,replica_d2,replica_d2_pred,replica_diff_frac,replica_div"
  for m in shared independent; do for t in 0 25 50 75 100; do
      if [ $m = shared ]; then echo "gpt,$m,1,$t,0,0,0,0"; else echo "gpt,$m,1,$t,$((t + 1)).5e-3,$((t + 2))e-3,0.99,0.5"; fi
  done; done; } >rep.csv
"$SRLAB" plot gpt_replicas --in rep.csv -o rep.svg 2>err.txt || bad "gpt_replicas: $(cat err.txt)"
grep -o '<title>[^<]*</title>' rep.svg | sed 's/<[^>]*>//g' >keys.txt
! grep -q "shared:" keys.txt && grep -qx "sr-seed = independent: measured" keys.txt && grep -qx "sr-seed = shared" keys.txt &&
    svgtext rep.svg | grep -q "shared: 0 at every step .*not drawn on the log axis" &&
    ok "gpt_replicas: the all-zero curve has a note, not a key entry, on the log panel" ||
    bad "gpt_replicas keys: $(tr '\n' '|' <keys.txt)"
expect 2 "holds several seeds (1, 2, ...), and the figure draws one run per curve: keep one with --set where=seed=1" \
    "gpt_replicas refuses several seeds" sh -c "sed 's/,1,\(50\|75\),/,2,\1,/' rep.csv >rep2.csv && \"\$0\" plot gpt_replicas --in rep2.csv -o keep.png" "$SRLAB"
[ "$(cat keep.png)" = keep ] && ok "nothing overwritten" || bad "keep.png overwritten"
[ -z "$(ls -A | grep '^\.')" ] && ok "no temporary files left" || bad "left: $(ls -A | grep '^\.')"
echo "$checks checks, $fails failures"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
