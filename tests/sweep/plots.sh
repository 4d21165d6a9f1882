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
"$SRLAB" plot loss_vs_step --in q.csv --set by=rounding --set 'where=lr=0.01' -o w.svg 2>err.txt &&
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
expect 2 "has no column 'seeds', which the figure stall needs: this is a rows file" \
    "a rows file where the summary is needed" "$SRLAB" plot stall --in q.csv -o keep.png
expect 2 "has no column 'seeds', which the figure stall needs: this is a runs file" \
    "a runs file where the summary is needed" "$SRLAB" plot stall --in q.runs.csv -o keep.png
expect 2 "has no column 'run', which the figure loss_vs_step needs: this is a summary or runs file" \
    "a summary file where the rows are needed" "$SRLAB" plot loss_vs_step --in q.summary.csv -o keep.png
"$SRLAB" sweep --command run --problem sum --format bf16,fp16 --rounding rn --n 200 --points 2 \
    --quiet -o two.csv 2>err.txt || bad "two-format sweep: $(cat err.txt)"
expect 2 "holds rows of several formats (bf16, fp16, ...)" "sum_error with two formats" \
    "$SRLAB" plot sum_error --in two.csv -o keep.png
expect 2 "is not VAR=VALUE" "bad --set" "$SRLAB" plot stall --in q.summary.csv --set 1x=2 -o keep.png
expect 2 "directory 'nodir' does not exist" "missing output directory" "$SRLAB" plot stall --in q.summary.csv -o nodir/x.png
[ "$(cat keep.png)" = keep ] && ok "nothing overwritten" || bad "keep.png overwritten"
[ -z "$(ls -A | grep '^\.')" ] && ok "no temporary files left" || bad "left: $(ls -A | grep '^\.')"
echo "$checks checks, $fails failures"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
