#!/bin/sh
# experiments/slurm/merge_bench.sh [N [SEEDS [DIR]]]: what `srlab merge` costs for N shards (the
# README's "Running the GPT study on a cluster"). Run from the repository after building.
#
# Makes N synthetic shards of a sweep shaped like experiments/gpt_lr.ini — its grid (4 strategies
# x 8 learning rates), SEEDS seeds (default 8: 256 runs), its columns and its 31 logged rows per
# run — with the GPT shrunk until a run costs next to nothing (1 block, width 8, context 4, batch
# 1: the rows have the real study's shape, not its values), each with
# `srlab sweep --shard I/N`. Then times `srlab merge` of the N shards (best of 3: wall seconds,
# CPU seconds, peak memory), prints the sizes, and checks the merged files against the same
# sweep run unsharded, byte for byte. Everything goes to DIR (default: a temporary folder,
# removed at the end).
#
#   sh experiments/slurm/merge_bench.sh 64 8
#   SRLAB=/path/to/srlab sh experiments/slurm/merge_bench.sh 64 64
set -eu
N=${1:-64}
SEEDS=${2:-8}
SRLAB=${SRLAB:-build/src/cli/srlab}
SPEC=${SPEC:-experiments/gpt_lr.ini}
if [ -n "${3:-}" ]; then
    dir=$3
    mkdir -p "$dir"
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-merge-bench.XXXXXX")
    trap 'rm -rf "$dir"' EXIT
fi
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
tiny="--n-layer 1 --n-embd 8 --n-head 1 --block-size 4 --batch-size 1 --seeds $SEEDS"

runs=$("$SRLAB" sweep "$SPEC" $tiny --dry-run | sed -n 's/^# runs: \([0-9]*\) .*/\1/p')
echo "merge_bench: $N shards of $runs runs ($SPEC's grid, $SEEDS seeds, tiny GPT) in $dir"
t0=$(date +%s)
i=0
while [ "$i" -lt "$N" ]; do
    "$SRLAB" sweep "$SPEC" $tiny --shard "$i/$N" --quiet -o "$dir/shard.$i.csv"
    i=$((i + 1))
done
"$SRLAB" sweep "$SPEC" $tiny --quiet -o "$dir/single.csv"
echo "merge_bench: shards and the unsharded sweep made in $(($(date +%s) - t0)) s"

set --
i=0
while [ "$i" -lt "$N" ]; do
    set -- "$@" "$dir/shard.$i.csv"
    i=$((i + 1))
done
best=""
for _ in 1 2 3; do
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" "$SRLAB" merge "$@" -o "$dir/merged.csv"
    read -r wall user sys kb <"$dir/time.txt"
    line="$wall s wall, $(awk "BEGIN { print $user + $sys }") s CPU, $((kb / 1024)) MB peak memory"
    if [ -z "$best" ] || awk "BEGIN { exit !($wall < $bestwall) }"; then
        best=$line
        bestwall=$wall
    fi
done
cmp -s "$dir/merged.csv" "$dir/single.csv" && cmp -s "$dir/merged.runs.csv" "$dir/single.runs.csv" &&
    cmp -s "$dir/merged.summary.csv" "$dir/single.summary.csv" ||
    { echo "merge_bench: the merged files differ from the unsharded sweep" >&2; exit 1; }
in_bytes=$(cat "$dir"/shard.*.csv | wc -c)
out_rows=$(grep -c '^[0-9]' "$dir/merged.csv")
echo "merge_bench: srlab merge of $N shards ($in_bytes bytes of rows, plus their runs files) ->" \
    "$out_rows rows, $(wc -c <"$dir/merged.csv") + $(wc -c <"$dir/merged.summary.csv") bytes:" \
    "$best (best of 3); byte-identical to the unsharded sweep"
