#!/bin/sh
# tests/cli/plot_numbers.sh SRLAB: srlab plot refuses (exit 2, naming the column) data whose
# plotted column holds no finite number -- every value nan, inf, text or empty -- instead of
# letting gnuplot draw an empty figure and exit 0 (issue 12, item 13). The plotted columns are
# those of the script's "# needs:" line and --set xcol=/ycol=; a needs column marked :text
# (sum_error's format) is a label and is not checked.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup plot-numbers "$1"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: no gnuplot"; exit 77; }
usage_tail="-o fig.png"
{
    echo "# command: srlab sweep --problem quad1d"
    echo "lr,strategy,final_dist_to_opt_mean,final_dist_to_opt_n,seeds"
    echo "0.1,bf16-rn,nan,2,2"
    echo "0.2,bf16-rn,inf,2,2"
    echo "0.3,bf16-rn,-inf,2,2"
    echo "0.4,bf16-rn,,2,2"
    echo "0.5,bf16-rn,abc,2,2"
    echo "0.6,bf16-rn,\"1,5\",2,2"
} >bad.csv
usage_error "y all nan/inf/text/empty" "column 'final_dist_to_opt_mean' holds no finite number" \
    plot stall --in bad.csv
sed 's/^0\.[1-6],/x,/' bad.csv | sed 's/abc/0.25/' >badx.csv
usage_error "x all text" "column 'lr' holds no finite number" plot stall --in badx.csv
sed 's/abc/0.25/' bad.csv >good.csv
usage_error "--set ycol= all nan" "column 'final_dist_to_opt_mean' holds no finite number" \
    plot lr_sweep --in bad.csv --set ycol=final_dist_to_opt_mean
if [ -e fig.png ]; then bad "a figure was written"; fi
# one finite value is enough: the check lets the figure be drawn
"$srlab" plot stall --in good.csv -o good.png >stdout 2>stderr
if grep -q "finite number" stderr; then bad "one finite value refused: $(cat stderr)"
else ok "one finite value passes"; fi
# a text column marked :text in the script (sum_error's format) is not a plotted number
{ echo "run,k,format,rel_err"; echo "0,1,bf16,0.001"; echo "0,2,bf16,0.002"; } >rows.csv
"$srlab" plot sum_error --in rows.csv -o rows.png >stdout 2>stderr
if grep -q "finite number" stderr; then bad "text label refused: $(cat stderr)"
else ok "format:text is a label"; fi
exit $fail
