#!/bin/sh
# tests/cli/plot_data.sh SRLAB: srlab plot reads the data as srlab wrote it, and says what each
# figure takes (issue 28, items 6 and 9):
#   a header line of 12 000 characters (400 extra columns before the plotted ones) draws the same
#     figure, byte for byte, as without them (it was "has no column" past 8191 characters, and
#     gnuplot itself cuts a line read whole at 1024);
#   a level with a comma, as the output writes it (the format "p=8,emax=120", a quoted CSV field),
#     is found by --set where=COL=LEVEL with or without the quotes, and labels a curve whole
#     (gnuplot 5.4 cut it at the comma: "p=8");
#   a text field srlab's writer guarded against spreadsheet formulas ("'-x") is its text: a curve
#     labelled -x, found by where=strategy=-x (items 6, 8; it was "'-x", and no row matched);
#   gnuplot's messages name the user's file with escapes for control and reordering characters
#     (item 8; they went out raw);
#   a field holding a double quote, a quoted field across lines and a NUL byte (which gnuplot
#     would misread) are refused, naming the line;
#   srlab plot --help lists, for every plots/*.gp, exactly the variables its '# --set NAME=TYPE'
#     lines declare (a declaration added to a copy of the scripts shows up), and srlab plot NAME
#     --help what each one is.
# Skipped (77) without gnuplot.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup plot-data "$1"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: no gnuplot"; exit 77; }
export SOURCE_DATE_EPOCH=1700000000
svgtext() { grep -o '<tspan[^>]*>[^<]*</tspan>' "$1" | sed 's/<[^>]*>//g' | sort -u; }

# ---- a header line over 8191 characters ----
"$srlab" sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 0.01,0.1 --steps 100 \
    --log-every 50 --seeds 2 --quiet -o q.csv 2>err || bad "sweep: $(cat err)"
awk -F, -v OFS=, '/^#/ { print; next }
    !h { for (i = 1; i <= NF; i++) if ($i == "seeds") k = i; h = 1; pad = "pad"; v = 1 }
    { s = ""; for (j = 0; j < 400; j++) s = s OFS (v ? sprintf("pad%04d_xxxxxxxxxxxxxxxxxxxx", j) : "0"); v = 0
      line = ""; for (i = 1; i <= NF; i++) line = line (i > 1 ? OFS : "") $i (i == k ? s : ""); print line }' \
    q.summary.csv >wide.summary.csv
width=$(grep -v '^#' wide.summary.csv | head -1 | wc -c)
[ "$width" -gt 8192 ] || bad "the wide header has only $width characters"
"$srlab" plot stall --in q.summary.csv -o narrow.svg 2>err || bad "stall: $(cat err)"
if "$srlab" plot stall --in wide.summary.csv -o wide.svg 2>err && cmp -s narrow.svg wide.svg && [ ! -s err ]; then
    ok "a header of $width characters: the same figure, no message"
else
    bad "a header of $width characters: $(head -c 300 err)"
fi

# ---- a level with a comma, as written in the output ----
"$srlab" sweep --problem quadratic --format 'bf16,[p=8,emax=120]' --rounding rn --lr 0.1 \
    --steps 40 --log-every 10 --seeds 2 --quiet -o f.csv 2>err || bad "sweep: $(cat err)"
level=$(grep -v '^#' f.summary.csv | grep -o '"[^"]*,[^"]*"' | head -1 | tr -d '"')
[ -n "$level" ] && ok "the summary writes a level with a comma: $level" || bad "no quoted level in f.summary.csv"
"$srlab" plot loss_vs_step --in f.csv -o curves.svg 2>err || bad "loss_vs_step: $(cat err)"
svgtext curves.svg | grep -qxF -- "$level" && ok "a curve labelled '$level'" ||
    bad "labels: $(svgtext curves.svg | tr '\n' '|')"
"$srlab" plot lr_sweep --in f.summary.csv --set "where=format=$level" -o one.svg 2>err &&
    svgtext one.svg | grep -qF -- "format=$level" && ok "--set where=format=$level finds it" ||
    bad "where=format=$level: $(head -c 300 err)"
"$srlab" plot lr_sweep --in f.summary.csv --set "where=format=\"$level\"" -o quoted.svg 2>err &&
    cmp -s one.svg quoted.svg && ok "  ... and in double quotes, as the CSV field" || bad "where quoted: $(head -c 300 err)"
# one format kept: sum_error reads its precision from the level (p=8, u = 2^-8)
"$srlab" sweep --command run --problem sum --format "bf16,[$level]" --rounding rn --n 200 \
    --points 2 --quiet -o s.csv 2>err || bad "sum sweep: $(cat err)"
"$srlab" plot sum_error --in s.csv --set "where=format=$level" -o s.svg 2>err &&
    svgtext s.svg | grep -qF "summation in $level (u = 2" && ok "sum_error: the title names $level" ||
    bad "sum_error where=format=$level: $(head -c 300 err) $(svgtext s.svg | grep summation)"
"$srlab" plot sum_error --in s.csv -o s2.svg 2>err
grep -qF "holds rows of several formats (bf16, $level, ...)" err &&
    ok "a message names $level whole" || bad "message: $(cat err)"
# a text field srlab's writer guards against spreadsheet formulas ("'-x", srl_csv_field) is the
# text without the guard: where= finds it as the text, a label shows the text
{ echo "# command: srlab sweep --problem quad1d"
  echo "lr,strategy,final_dist_to_opt_mean,final_dist_to_opt_n,seeds"
  for s in "\"'-x\"" b; do echo "0.1,$s,0.001,2,2"; echo "0.2,$s,0.002,2,2"; done; } >guard.csv
"$srlab" plot stall --in guard.csv -o guard.svg 2>err &&
    svgtext guard.svg | grep -q -- "^-x, " && ! svgtext guard.svg | grep -qF "'-x" &&
    ok "a guarded field (\"'-x\") labels its curve -x" ||
    bad "guarded field: $(head -c 300 err) $(svgtext guard.svg | tr '\n' '|')"
"$srlab" plot stall --in guard.csv --set "where=strategy=-x" -o guard1.svg 2>err &&
    ok "  ... and where=strategy=-x finds it" || bad "where=strategy=-x: $(head -c 300 err)"
# gnuplot's messages echo the user's names: written as srlab's own (an escape for a control or
# reordering character; they went out raw, U+202E turning the rest of the line around)
rlo=$(printf 'g\342\200\256x\033[2J.csv')
cp guard.csv "$rlo"
"$srlab" plot stall --in "$rlo" --set "where=strategy=zz" -o rlo.svg 2>err
grep -qF 'no rows in g\u{202e}x\x1b[2J.csv match' err && ! grep -q "$(printf '\342\200\256\|\033')" err &&
    ok "gnuplot's message names the file with escapes" || bad "gnuplot's message: $(od -c err | head -5)"

# ---- what gnuplot cannot read is refused, naming the line ----
{ echo "# command: srlab sweep --problem quad1d"
  echo "lr,strategy,final_dist_to_opt_mean,final_dist_to_opt_n,seeds"
  echo "0.1,\"a\"\"b\",0.001,2,2"; } >quote.csv
usage_error "a field holding a double quote" "--in 'quote.csv' line 3: a field holds a double quote" \
    plot stall --in quote.csv -o x.png
{ echo "lr,strategy,final_dist_to_opt_mean,final_dist_to_opt_n,seeds"
  echo "0.1,\"a,"; echo "b\",0.001,2,2"; } >span.csv
usage_error "a quoted field across lines" "--in 'span.csv' line 2: a quoted field does not end on its line" \
    plot stall --in span.csv -o x.png
{ echo "lr,strategy,final_dist_to_opt_mean,final_dist_to_opt_n,seeds"; echo "0.1,b,0.001,2,2"
  printf '0.2,b\0x,0.002,2,2\n'; } >nul.csv
usage_error "a NUL byte" "nul.csv.* line 3.*NUL" plot stall --in nul.csv -o x.png

# ---- --help: the variables, from each script's declarations ----
"$srlab" plot --help >help.txt 2>err || bad "plot --help: $(cat err)"
plots=${SRL_SRCDIR:-$(dirname "$0")/../..}/plots
for gp in "$plots"/*.gp; do
    name=$(basename "$gp" .gp)
    want=$(sed -n 's/^# --set \([A-Za-z_0-9]*=[A-Z]*\).*/\1/p' "$gp" | tr '\n' ' ')
    got=$(awk -v n="$name" '/^variables of the figures:/ { v = 1 } v && $1 == n { p = 1; $1 = ""; print; next }
                            p && /^                / { print; next } { p = 0 }' help.txt | tr -s ' \n' '  ')
    [ "$(echo $want)" = "$(echo $got)" ] && ok "--help lists $name: $want" || bad "--help for $name: '$got', declared '$want'"
done
mkdir myplots
cp "$plots"/*.gp "$plots"/*.gpi myplots/
sed -i 's/^# --set where=FILTER /# --set zeta=NUMBER  a test variable\n&/' myplots/stall.gp
SRLAB_PLOTS=$PWD/myplots "$srlab" plot --help | grep '^  stall ' | grep -q 'zeta=NUMBER' &&
    ok "a declaration added to a script shows in --help" || bad "zeta=NUMBER not in --help"
"$srlab" plot stall --help >h2.txt 2>err && grep -q '^  --set a=NUMBER$' h2.txt && grep -q "curvature" h2.txt &&
    ok "srlab plot stall --help: each variable with what it is" || bad "plot stall --help: $(head -5 h2.txt)"
exit $fail
