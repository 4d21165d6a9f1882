#!/bin/sh
# tests/sweep/merge_complete.sh SRLAB: srlab merge proves every shard complete (issue 12,
# item 6). A shard's rows file carries '# rows per run:' and its runs file one line per run of
# the shard; deleting every row of one run, cutting the last 30 lines, or repeating a line is
# refused (exit 2, one message naming the shard file and the run, nothing written), where
# before it was merged with exit 0. The untouched shards still merge.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup merge-complete "$1"
grid="--problem quad1d --strategy fp32,bf16-rn --lr 0.01,0.1 --seeds 2 --steps 300 --log-every 10"
for i in 0 1; do
    # shellcheck disable=SC2086
    "$srlab" sweep $grid --shard $i/2 --threads 1 --quiet -o s$i.csv || bad "shard $i"
done
grep -q '^# rows per run: 31\*4$' s1.csv && ok "a shard carries its rows per run" ||
    bad "rows per run: $(grep '^# rows' s1.csv)"
"$srlab" merge s0.csv s1.csv -o m.csv 2>stderr && ok "intact shards merge" || bad "merge: $(cat stderr)"
grep -q '^# rows per run' m.csv && bad "the merged file kept a shard's count line" ||
    ok "the merged file has no count line"
cp s1.csv keep.csv
cp s1.runs.csv keep.runs.csv
usage_tail="-o out.csv"
grep -v '^5,' keep.csv >s1.csv
usage_error "every row of run 5 deleted" "s1.csv (shard 1/2): run 5 is missing (31 lines expected)" \
    merge s0.csv s1.csv
head -n -30 keep.csv >s1.csv
usage_error "the last 30 lines cut" "s1.csv (shard 1/2): run 7 has 1 lines where 31 were written (lines cut)" \
    merge s0.csv s1.csv
awk 'NR == 40 { print } { print }' keep.csv >s1.csv
run=$(sed -n 40p keep.csv | cut -d, -f1)
usage_error "a line repeated" "s1.csv (shard 1/2): run $run has 32 lines where 31 were written (lines repeated or added)" \
    merge s0.csv s1.csv
grep -v '^# rows per run' keep.csv >s1.csv
usage_error "no count line" "s1.csv (shard 1/2) has no '# rows per run:' line" merge s0.csv s1.csv
# a header that claims a sweep of no runs (fuzz_merge, 2 December: sorted an empty, unallocated
# list of runs, undefined behaviour)
for i in 0 1; do
    sed 's/^# runs: .*/# runs: 0 (0 grid points x 2 seeds)/' s$i.csv >z$i.csv
    cp s$i.runs.csv z$i.runs.csv
done
cp keep.csv z1.csv
sed -i 's/^# runs: .*/# runs: 0 (0 grid points x 2 seeds)/' z1.csv
usage_error "a sweep of no runs" "z0.csv: no valid '# runs:' line" merge z0.csv z1.csv
# shards that claim 2*10^12 runs without rows ("0*K"): the check follows the text, not the runs
# it claims (fuzz_merge, 2 December: a hang); before, this looped over every claimed run
huge='s/^# runs: .*/# runs: 2000000000000 (1000000000000 grid points x 2 seeds)/; s/^# rows per run:.*/# rows per run: 0*1000000000000/'
grep '^#\|^run' s0.csv | sed "$huge" >z0.csv
grep '^#\|^run' keep.csv | sed "$huge" >z1.csv
timeout 120 "$srlab" merge z0.csv z1.csv -o zm.csv 2>stderr
rc=$?
[ $rc -eq 0 ] && grep -q '^# runs: 2000000000000 ' zm.csv && ok "2*10^12 claimed runs without rows merge at once" ||
    bad "claimed runs without rows: exit $rc (124: still running after 120 s): $(cat stderr)"
cp keep.csv s1.csv
grep -v '^3,' keep.runs.csv >s1.runs.csv
usage_error "a run deleted from a runs file" "s1.runs.csv (shard 1/2): run 3 is missing (1 line expected)" \
    merge s0.csv s1.csv
head -n -1 keep.runs.csv >s1.runs.csv
usage_error "the runs file's last line cut" "s1.runs.csv (shard 1/2): run 7 is missing" \
    merge s0.csv s1.csv
[ ! -e out.summary.csv ] && [ ! -e out.runs.csv ] && ok "refused merges write nothing" ||
    bad "a refused merge wrote files"
exit $fail
