#!/bin/sh
# tests/run/bounded_rows.sh SRLAB: bounded work and bounded outputs (issue 12, item 5, and the
# review's gap: an accepted sweep could not read its own journal back). srlab refuses, before any
# work, every output it could not read back itself (src/cli/rows.h, src/cli/runcmd.h):
#   rows   the rows of a train run and of a sweep are bounded from the settings (steps /
#          log-every + 1, plus one when log-every does not divide steps, per run and seed), each
#          run or seed counting 4 rows more for its own lines (runs line, journal record, notes):
#          at most CLI_MAX_ROWS = 500000 in one output; more is refused at once, exit 2, naming
#          --steps and --log-every, nothing written;
#   bytes  a row is at most 512 bytes: the row writers refuse a wider one (train: at its first
#          row; sweep: its axis columns before any run), exit 2, naming the widest column;
#   memory train and run stream their rows to a temporary file: memory does not grow with rows;
#   fits   so the largest accepted output (8 MiB of # lines + 500000 rows of 512 bytes: 252 MiB) is
#          within the 256 MiB srlab reads from one file (a compile-time assertion in runcmd.h;
#          checked here by reading a file that large back, with merge: refused only past it).
# Before, `train --steps 1000000000000 --log-every 1` ran and held every row in memory, and a
# sweep of 4000000 rows ran 16 s and then failed: its journal was larger than 256 MiB.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup bounded-rows "$1"
usage_tail="-o out.csv"
t0=$(date +%s)
usage_error "train, 10^12 rows" "--steps 1000000000000 with --log-every 1 (1 seed) would write up to 1000000000001 rows, more than one output holds (at most 500000 rows, each seed counting 4" \
    train --problem quad1d --steps 1000000000000 --log-every 1
usage_error "train, seeds times rows" "--steps 4999 with --log-every 1 (100 seeds) would write up to 500000 rows" \
    train --problem quad1d --steps 4999 --log-every 1 --seeds 100
usage_error "sweep, 10^12 rows" "the sweep would write up to 2000000000002 rows (--steps and --log-every over 2 runs; run 0 alone up to 1000000000001)" \
    sweep --problem quad1d --lr 0.1,0.2 --steps 1e12 --log-every 1
usage_error "sweep, the review's case (4000000 rows in 2 runs)" "at most 500000 rows" \
    sweep --problem quad1d --lr 0.1,0.2 --steps 1999999 --log-every 1 --threads 1
usage_error "sweep of experiments: 125001 runs of 4 rows' own lines each" "the sweep's 125001 runs would write more than one output holds" \
    sweep --command run --problem sum --n 10 --seeds 125001 --dry-run
usage_error "sweep --dry-run is refused too" "--steps and --log-every" \
    sweep --problem quad1d --steps 500000 --log-every 1 --dry-run
# a row wider than 512 bytes: train refuses it at the first row, a sweep before any run
lr=0.1$(printf '0%.0s' $(seq 1 450))
usage_error "train, a 599-byte row" "a row of 599 bytes, more than the 512 one row may take" \
    train --problem quad1d --lr "$lr" --steps 3
usage_error "sweep, long axes" "run 1's axis columns alone take 481 bytes of a row, more than half the 512 one row may take" \
    sweep --problem quad1d --lr "0.2,$lr" --steps 3
[ ! -e out.journal ] && [ ! -e out.runs.csv ] && ok "nothing written beside out.csv" || bad "a refused run wrote files"
t1=$(date +%s)
[ $((t1 - t0)) -le 10 ] && ok "refused at once ($((t1 - t0)) s)" || bad "refusals took $((t1 - t0)) s"
# the bound is exact at the limit: 499995 steps logged every step are 499996 rows, + 4 for the run
"$srlab" sweep --problem quad1d --steps 499995 --log-every 1 --dry-run >stdout 2>stderr &&
    ok "500000 rows are accepted" || bad "at the limit: $(cat stderr)"
"$srlab" sweep --problem quad1d --steps 499996 --log-every 1 --dry-run >stdout 2>stderr &&
    bad "500001 rows accepted" || ok "500001 rows are refused"
# the largest output the bounds allow is one srlab reads back: a shard of 8 MiB + 500000 x 512
# bytes (sparse, so the size check is all that reads it) is not refused as too big by merge,
# one byte over 256 MiB is
big=$(( (8 << 20) + 500000 * 512 ))
truncate -s "$big" big.csv && truncate -s $(( (256 << 20) + 1 )) over.csv ||
    { bad "cannot make sparse files"; exit $fail; }
"$srlab" merge big.csv -o m.csv 2>stderr
grep -q "larger than" stderr && bad "the largest output is too big to read: $(cat stderr)" ||
    ok "the largest output ($big bytes) is within what srlab reads"
"$srlab" merge over.csv -o m.csv 2>stderr
grep -q "larger than 256 MiB" stderr && ok "past 256 MiB: refused as too big" ||
    bad "past 256 MiB: $(cat stderr)"
# the rows stream to a temporary file (src/cli/runcmd.c): train's memory does not grow with its
# rows. 10^4 and 10^5 rows: the peak RSS may grow by at most a quarter of what the output grows
# (before, every row was held in memory: RSS grew by about twice the output)
if [ -x /usr/bin/time ]; then
    for n in 9999 99999; do
        /usr/bin/time -f %M -o rss$n "$srlab" train --problem quad1d --steps $n --log-every 1 \
            -o rows$n.csv 2>stderr || bad "train of $n steps: $(cat stderr)"
    done
    grow_kb=$(( $(tail -1 rss99999) - $(tail -1 rss9999) ))
    out_kb=$(( ($(wc -c <rows99999.csv) - $(wc -c <rows9999.csv)) / 1024 ))
    [ "$out_kb" -gt 10000 ] && [ "$grow_kb" -lt $((out_kb / 4)) ] &&
        ok "RSS grew $grow_kb KiB for $out_kb KiB more rows" ||
        bad "RSS grew $grow_kb KiB for $out_kb KiB more rows (at most a quarter)"
    [ "$(grep -vc '^#' rows99999.csv)" -eq 100001 ] && ok "every row is written (10^5 + header)" ||
        bad "rows99999.csv: $(grep -vc '^#' rows99999.csv) lines"
else
    echo "SKIP /usr/bin/time missing: memory not measured"
fi
# and it counts the rows a run writes: steps 0, 10, 20 and the last, 25
"$srlab" train --problem quad1d --steps 25 --log-every 10 -o small.csv 2>stderr
[ "$(grep -vc '^#' small.csv)" -eq 5 ] && ok "25 steps every 10: 4 rows and the header" ||
    bad "small run: $(cat stderr)"
exit $fail
