#!/bin/sh
# tests/run/bounded_rows.sh SRLAB: bounded work (issue 12, item 5). The rows of a train run and
# of a sweep are bounded from the settings before any work (steps / log-every + 1, plus one when
# log-every does not divide steps, per run and seed; at most CLI_MAX_ROWS = 4000000 in one
# output); more is refused at once, exit 2, naming --steps and --log-every, nothing written.
# Before, `train --steps 1000000000000 --log-every 1` ran and held every row in memory.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup bounded-rows "$1"
usage_tail="-o out.csv"
t0=$(date +%s)
usage_error "train, 10^12 rows" "--steps 1000000000000 with --log-every 1 (1 seed) would write up to 1000000000001 rows, more than one output holds (at most 4000000 rows" \
    train --problem quad1d --steps 1000000000000 --log-every 1
usage_error "train, seeds times rows" "--steps 39999 with --log-every 1 (101 seeds) would write up to 4040000 rows" \
    train --problem quad1d --steps 39999 --log-every 1 --seeds 101
usage_error "sweep, 10^12 rows" "the sweep would write up to 2000000000002 rows (--steps and --log-every over 2 runs; run 0 alone up to 1000000000001)" \
    sweep --problem quad1d --lr 0.1,0.2 --steps 1e12 --log-every 1
usage_error "sweep --dry-run is refused too" "--steps and --log-every" \
    sweep --problem quad1d --steps 4000000 --log-every 1 --dry-run
t1=$(date +%s)
[ $((t1 - t0)) -le 5 ] && ok "refused at once ($((t1 - t0)) s)" || bad "refusals took $((t1 - t0)) s"
# the bound is exact at the limit: 3999999 steps logged every step are 4000000 rows
"$srlab" sweep --problem quad1d --steps 3999999 --log-every 1 --dry-run >stdout 2>stderr &&
    ok "4000000 rows are accepted" || bad "at the limit: $(cat stderr)"
# and it counts the rows a run writes: steps 0, 10, 20 and the last, 25
"$srlab" train --problem quad1d --steps 25 --log-every 10 -o small.csv 2>stderr
[ "$(grep -vc '^#' small.csv)" -eq 5 ] && ok "25 steps every 10: 4 rows and the header" ||
    bad "small run: $(cat stderr)"
exit $fail
