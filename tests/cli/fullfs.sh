#!/bin/sh
# tests/cli/fullfs.sh SRLAB IO_SHIM: every write is checked to the end (issue 28, item 3).
#   1. a small tmpfs filled so that each command's outputs run out of room at each page, in turn
#      (0, 1, 2, ... free pages, until the command succeeds): every failed run exits 3, says "No
#      space left on device" (not "Success", not "No such file"), leaves the old outputs whole (a
#      set: all of it) and no temporary file; the run that fits writes the same bytes as on a
#      roomy disk. Standard output into the full tmpfs: the same, exit 3.
#   2. (a supplement) IO_SHIM fails each write, fsync, close, rename and ftruncate a command
#      makes, one at a time, with EIO: either the command did not need it (exit 0, outputs
#      right), or exit 3 saying "Input/output error" with the old outputs whole.
# The tmpfs needs a mount namespace: as root, or as a user mapped to root (unshare --user
# --map-root-user --mount); without either the test is skipped (77), saying why.
# srlab plot and demo --plot/--table (with gnuplot on PATH) are tmpfs cases with their TMPDIR on
# the tmpfs too: the copies they put in gnuplot's private folder, gnuplot's drawing (gnuplot exits
# 0 after a write failed: srlab reads a missing or cut drawing on a full file system as ENOSPC),
# its copy into the output and the commit each run out of room in turn, and no private folder is
# left. Not in the shim's cases (gnuplot would load the shim too): plot's fsync and rename fail
# at the end.
set -u
if [ -z "${SRL_FULLFS_INNER:-}" ]; then
    for how in "unshare --user --map-root-user --mount" "unshare --mount"; do
        if $how true 2>/dev/null; then
            SRL_FULLFS_INNER=1 exec $how sh "$0" "$@"
        fi
    done
    echo "SKIP: no mount namespace for a small tmpfs (unshare --user --map-root-user --mount fails, and not root)"
    exit 77
fi
case $2 in /*) SHIM=$2 ;; *) SHIM=$PWD/$2 ;; esac
. "$(dirname "$0")/../cli_lib.sh"
cli_setup fullfs "$1"
export SOURCE_DATE_EPOCH=1700000000
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
unset SRLAB_EXPERIMENTS SRLAB_REPRODUCE_EXE
mkdir fs
if ! mount -t tmpfs -o size=2m tmpfs fs 2>mount.err; then
    echo "SKIP: cannot mount a tmpfs in this namespace: $(cat mount.err)"
    exit 77
fi
trap 'umount fs 2>/dev/null; rm -rf "$tmp"' EXIT HUP INT TERM
page=$(stat -f -c %S fs)

# Inputs, outside the tmpfs.
"$srlab" sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 --steps 200 --log-every 10 \
    --shard 0/2 --quiet -o in0.csv &&
    "$srlab" sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 --steps 200 --log-every 10 \
        --shard 1/2 --quiet -o in1.csv &&
    "$srlab" merge in0.csv in1.csv -o inm.csv || { echo "FAIL: the inputs of the test"; exit 1; }
awk 'BEGIN { for (i = 1; i <= 1000; i++) printf "%.17g\n", i / 7 }' >numbers.txt
mkdir specs
printf '# A tiny experiment (tests/cli/fullfs.sh).\ncommand = train\nproblem = quad1d\nstrategy = fp32, bf16-rn\nlr = 0.01\nsteps = 100\nlog-every = 50\nseeds = 2\n' >specs/tiny.ini

# A stand-in sbatch for --slurm (its job script is an output like any other).
mkdir bin && printf '#!/bin/sh\necho "1001;test"\n' >bin/sbatch && chmod +x bin/sbatch
PATH=$PWD/bin:$PATH
# The cases: NAME, the outputs (in fs/), and the command (@ stands for fs/).
cases='round|r.csv|round --batch -r sr -o @r.csv <numbers.txt
op|o.csv|op add --batch -f bf16 -r sr -o @o.csv <pairs.txt
run|u.csv|run --problem harmonic --seeds 3 -o @u.csv
train|t.csv|train --problem quad1d --steps 1000 --log-every 10 -o @t.csv
sweep|s.csv s.runs.csv s.summary.csv|sweep --problem quad1d --strategy fp32,bf16-rn --seeds 3 --steps 200 --log-every 10 --quiet -o @s.csv
shard|h.csv h.runs.csv|sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 --steps 200 --log-every 10 --shard 0/2 --quiet -o @h.csv
merge|m.csv m.runs.csv m.summary.csv|merge in0.csv in1.csv -o @m.csv
compare|c.csv|compare inm.runs.csv --baseline fp32 -o @c.csv
check|k.csv|check T01a -o @k.csv
slurm|sl.sbatch|sweep --problem quad1d --lr 0.1,0.2 --slurm 2 -o @sl.csv'
if command -v gnuplot >/dev/null 2>&1; then
    cases="$cases
plot|p.png|TMPDIR=@ plot lr_sweep --in inm.summary.csv -o @p.png
demo|d.png d.txt|TMPDIR=@ demo accumulate --plot @d.png --table @d.txt"
fi
awk 'BEGIN { for (i = 1; i <= 500; i++) printf "%.17g,%.17g\n", i / 3, i / 11 }' >pairs.txt

# run_case CMD: the command, @ replaced by fs/, through sh (for its redirection); a leading
# VAR=VALUE is its environment
run_case() {
    c=$(echo "$1" | sed 's|@|fs/|g')
    e=""
    case $c in [A-Z]*=*) e="${c%% *} " c=${c#* } ;; esac
    sh -c "$e\"$srlab\" $c" >out.txt 2>err.txt </dev/null
}
# olds OUTS: an old content in each output; same_olds OUTS: still there
olds() { for o in $1; do printf 'old %s\n' "$o" >"fs/$o"; done; }
same_olds() { for o in $1; do [ "$(cat "fs/$o" 2>/dev/null)" = "old $o" ] || return 1; done; }
# fill N: leave N pages free on fs
fill() {
    rm -f fs/.fill
    n=$(($(stat -f -c %a fs) - $1))
    [ $n -gt 0 ] && dd if=/dev/zero of=fs/.fill bs="$page" count=$n 2>/dev/null
    return 0
}
left() { ls -A fs | grep -E '\.tmp-|\.commit$|^srlab-gnuplot-' | tr '\n' ' '; }

# ---- 1. the full tmpfs ----
echo "$cases" >cases.txt
while IFS='|' read -r name outs cmd; do
    # on room: the reference outputs
    rm -rf fs/* fs/.[!.]* 2>/dev/null
    run_case "$cmd" || { bad "$name on a roomy disk: $(cat err.txt)"; continue; }
    for o in $outs; do cp "fs/$o" "ref.$o"; done
    worst=""
    fails=0
    free=0
    while :; do
        rm -rf fs/* fs/.[!.]* 2>/dev/null
        olds "$outs"
        fill $free
        run_case "$cmd"
        rc=$?
        rm -f fs/.fill
        if [ $rc -eq 0 ]; then
            for o in $outs; do cmp -s "fs/$o" "ref.$o" || worst="$worst [$free pages: exit 0 but $o differs]"; done
            break
        fi
        fails=$((fails + 1))
        msg=$(head -c 300 err.txt)
        [ $rc -eq 3 ] || worst="$worst [$free pages: exit $rc: $msg]"
        grep -q 'No space left on device' err.txt || worst="$worst [$free pages: message '$msg']"
        grep -q 'Success\|No such file' err.txt && worst="$worst [$free pages: a wrong errno: $msg]"
        same_olds "$outs" || worst="$worst [$free pages: old outputs changed]"
        [ -z "$(left)" ] || worst="$worst [$free pages: left $(left)]"
        free=$((free + 1))
        [ $free -gt 200 ] && { worst="$worst [never fits]"; break; }
    done
    [ -z "$worst" ] && ok "$name on a full disk: $fails runs out of room (0 to $((free - 1)) free pages), each exit 3 with ENOSPC, old outputs whole; then the same bytes" ||
        bad "$name on a full disk:$worst"
done <cases.txt

# Standard output into the full tmpfs: the same.
stdout_cases='formats|formats
teach|round 0.1 -f bf16
theory|theory T05
demo|demo accumulate
help|sweep --help
list|check --list
sweep|sweep --problem quad1d --seeds 2 --steps 400 --log-every 10 --quiet
merge|merge in0.csv in1.csv -o -
dash|train --problem quad1d --steps 2000 --log-every 10 -o /dev/stdout
bench|bench sweep --csv -o -'
if command -v gnuplot >/dev/null 2>&1; then
    stdout_cases="$stdout_cases
plot|plot lr_sweep --in inm.summary.csv -o -"
fi
echo "$stdout_cases" >stdout_cases.txt
while IFS='|' read -r name cmd; do
    rm -rf fs/* fs/.[!.]* 2>/dev/null
    fill 0
    sh -c "\"$srlab\" $cmd" >fs/out.txt 2>err.txt </dev/null
    rc=$?
    rm -f fs/.fill
    [ $rc -eq 3 ] && grep -q 'cannot write standard output: No space left on device' err.txt &&
        ok "$name into a full disk through standard output: exit 3, ENOSPC" ||
        bad "$name through standard output: exit $rc: $(head -c 300 err.txt)"
done <stdout_cases.txt

# bench (its numbers differ run to run: not a case above) into a file on the full tmpfs
rm -rf fs/* fs/.[!.]* 2>/dev/null
olds b.csv
fill 0
"$srlab" bench sweep --csv -o fs/b.csv >/dev/null 2>err.txt
rc=$?
rm -f fs/.fill
[ $rc -eq 3 ] && grep -q 'b.csv.*No space left on device' err.txt && same_olds b.csv && [ -z "$(left)" ] &&
    ok "bench -o FILE on a full disk: exit 3, ENOSPC, the old output whole" ||
    bad "bench on a full disk: exit $rc: $(head -c 300 err.txt); left $(left)"

# reproduce into a folder on the full tmpfs: exit non-zero with ENOSPC, and its experiment's set
# whole (the old one, or none) at every level up to the one that fits.
if command -v gnuplot >/dev/null 2>&1; then
    rm -rf fs/* fs/.[!.]* 2>/dev/null
    SRLAB_EXPERIMENTS=$PWD/specs "$srlab" reproduce --checks none --threads 1 -o fs/R >/dev/null 2>err.txt ||
        bad "reproduce on a roomy disk: $(cat err.txt)"
    for f in csv runs.csv summary.csv; do cp fs/R/tiny.$f rref.$f; done
    worst=""
    free=0
    fails=0
    while :; do
        rm -rf fs/* fs/.[!.]* 2>/dev/null
        mkdir fs/R && for f in csv runs.csv summary.csv; do cp rref.$f fs/R/tiny.$f; done
        fill $free
        SRLAB_EXPERIMENTS=$PWD/specs "$srlab" reproduce --checks none --threads 1 --force -o fs/R >/dev/null 2>err.txt
        rc=$?
        rm -f fs/.fill
        for f in csv runs.csv summary.csv; do cmp -s fs/R/tiny.$f rref.$f || worst="$worst [$free pages: tiny.$f changed]"; done
        [ $rc -eq 0 ] && break
        fails=$((fails + 1))
        grep -q 'No space left on device' err.txt || worst="$worst [$free pages: exit $rc: $(tail -c 300 err.txt)]"
        free=$((free + 1))
        [ $free -gt 200 ] && { worst="$worst [never fits]"; break; }
    done
    [ -z "$worst" ] && ok "reproduce on a full disk: $fails runs out of room, each exit non-zero with ENOSPC, the set whole" ||
        bad "reproduce on a full disk:$worst"
fi

# ---- 2. the shim: each call fails once ----
# (not --slurm: the shim would fail the stand-in sbatch's own writes too)
shim_cases="$(echo "$cases" | grep -v '^slurm|\|^plot|\|^demo|')
formats|-|formats >@f.txt"
echo "$shim_cases" >shim_cases.txt
while IFS='|' read -r name outs cmd; do
    rm -rf fs/* fs/.[!.]* 2>/dev/null
    [ "$outs" = - ] || olds "$outs"
    SRL_SHIM_COUNT=$PWD/counts.txt LD_PRELOAD=$SHIM run_case "$cmd"
    for o in $outs; do [ "$o" = - ] || cp "fs/$o" "ref.$o"; done
    worst=""
    runs=0
    for call in write fsync fdatasync close rename ftruncate; do
        n=$(awk -v c=$call '$1 == c { print $2 }' counts.txt)
        i=0
        while [ "$i" -lt "${n:-0}" ]; do
            i=$((i + 1))
            runs=$((runs + 1))
            rm -rf fs/* fs/.[!.]* 2>/dev/null
            [ "$outs" = - ] || olds "$outs"
            SRL_SHIM_FAIL=$call:$i:5 LD_PRELOAD=$SHIM run_case "$cmd"
            rc=$?
            if [ $rc -eq 0 ]; then
                for o in $outs; do [ "$o" = - ] || cmp -s "fs/$o" "ref.$o" || worst="$worst [$call $i: exit 0 but $o is not the output]"; done
                continue
            fi
            [ $rc -eq 3 ] && grep -q 'Input/output error' err.txt || worst="$worst [$call $i: exit $rc: $(head -c 200 err.txt)]"
            [ "$outs" = - ] && continue # standard output: the shell's redirection emptied it
            # a failure after the commit record (a set's rename, a folder's sync) leaves the set
            # to roll forward: recovered by the next writer, it is then the new one
            if ! same_olds "$outs"; then
                [ -n "$(ls fs/*.commit 2>/dev/null)" ] && "$srlab" merge nothing.csv -o "fs/${outs%% *}" >/dev/null 2>&1
                for o in $outs; do cmp -s "fs/$o" "ref.$o" || worst="$worst [$call $i: $o neither old nor new]"; done
            fi
            [ -z "$(left)" ] || [ -n "$(ls fs/*.commit 2>/dev/null)" ] || worst="$worst [$call $i: left $(left)]"
        done
    done
    [ -z "$worst" ] && ok "$name: each of its $runs writes, syncs, closes, renames and truncations failed in turn: exit 0 with the output, or exit 3 with EIO and the old output" ||
        bad "$name with failing calls:$worst"
done <shim_cases.txt
if command -v gnuplot >/dev/null 2>&1; then
    for call in fsync:1 rename:1; do
        rm -rf fs/* fs/.[!.]* 2>/dev/null
        echo "old figure" >fs/p.png
        SRL_SHIM_FAIL=$call:5 LD_PRELOAD=$SHIM "$srlab" plot lr_sweep --in inm.summary.csv -o fs/p.png 2>err.txt
        rc=$?
        [ $rc -eq 3 ] && grep -q 'Input/output error' err.txt && [ "$(cat fs/p.png)" = "old figure" ] && [ -z "$(left)" ] &&
            ok "plot's commit with its first ${call%:*} failing: exit 3, EIO, the old figure" ||
            bad "plot with ${call%:*} failing: exit $rc: $(head -c 300 err.txt); $(head -c 20 fs/p.png)"
    done
fi
exit $fail
