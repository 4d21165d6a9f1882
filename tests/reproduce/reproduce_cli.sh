#!/bin/sh
# tests/reproduce/reproduce_cli.sh SRLAB: srlab reproduce as a user drives it, on small plans.
#   bad input: exit 2, one message, nothing created or overwritten (unknown option, a stray
#     argument, -o into a missing folder, onto a file, into a folder that is not empty without
#     --force, gnuplot missing, an unknown --only experiment, bad --threads and --checks)
#   a plan of test specs (SRLAB_EXPERIMENTS): a figure drawn, a figure whose plot script is
#     missing, a figure line with a bad output name, a spec whose sweep fails, and a stand-in
#     `srlab check` (SRLAB_REPRODUCE_EXE) that writes a FAIL row and exits 1: the report is still
#     written, shows each problem, exit 1; every link of the report resolves
#   two specs naming the same figure file: the second figure is refused (not run, reported)
#   the real experiments/: --only stall --checks none gives a clean report, exit 0
#   --force: writes into the folder again; SIGTERM in the middle of a sweep: the sweep dies too,
#     no index.html, no temporary file; --force then resumes the sweep from its journal
# Skipped (77) without gnuplot (quickstart.sh installs gnuplot-nox).
set -u
case $1 in /*) SRLAB=$1 ;; *) SRLAB=$(pwd)/$1 ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-reproduce-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
export SOURCE_DATE_EPOCH=1700000000
unset SRLAB_EXPERIMENTS SRLAB_REPRODUCE_EXE
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
# expect STATUS PATTERN WHAT CMD...: exit status and a message on stderr holding PATTERN
expect() {
    want=$1 pat=$2 what=$3
    shift 3
    "$@" >out.txt 2>err.txt
    got=$?
    if [ "$got" -eq "$want" ] && grep -qF -- "$pat" err.txt; then ok "$what"; else
        bad "$what: exit $got (want $want), stderr: $(head -c 300 err.txt) (want '$pat')"
    fi
}
# links DIR: every href/src of DIR/index.html names a file in DIR or an id of the page; no
# address outside (the report opens without a network)
links() {
    html=$1/index.html
    n=0 missing=""
    for l in $(grep -o '\(href\|src\)="[^"]*"' "$html" | sed 's/^[a-z]*="//; s/"$//'); do
        n=$((n + 1))
        case $l in
        '#'*) grep -q "id=\"${l#\#}\"" "$html" || missing="$missing $l" ;;
        *:* | /*) missing="$missing $l(outside)" ;;
        *) [ -f "$1/$l" ] || missing="$missing $l" ;;
        esac
    done
    if [ -z "$missing" ] && [ "$n" -gt 0 ]; then ok "$2: all $n links resolve"; else
        bad "$2: links that do not resolve:$missing ($n links)"
    fi
}

# ---- bad input ----
mkdir full && echo keep >full/mine.txt
echo keep >afile
"$SRLAB" reproduce --help >out.txt 2>err.txt && [ ! -s err.txt ] &&
    grep -q 'srlab reproduce --quick' out.txt && ok "--help: exit 0, an example" || bad "--help"
expect 2 "unknown option '--nope'" "unknown option" "$SRLAB" reproduce --nope
expect 2 "unexpected argument 'extra'" "a stray argument" "$SRLAB" reproduce --quick extra
expect 2 "folder 'nodir' does not exist" "-o into a missing folder" \
    "$SRLAB" reproduce --quick -o nodir/report
[ ! -e nodir ] && ok "  ... nothing created" || bad "nodir created"
expect 2 "'full' exists and is not empty" "a folder that is not empty" \
    "$SRLAB" reproduce --quick -o full
grep -qF -- "--force" err.txt && ok "  ... the message names --force" || bad "no --force hint"
[ "$(ls full)" = mine.txt ] && [ "$(cat full/mine.txt)" = keep ] && ok "  ... the folder untouched" ||
    bad "full/ changed: $(ls full)"
expect 2 "'afile' exists and is not a folder" "-o onto a file" "$SRLAB" reproduce -o afile
expect 2 "install Debian's gnuplot-nox" "gnuplot missing" env PATH=/nonexistent "$SRLAB" reproduce -o g
[ ! -e g ] && ok "  ... nothing created" || bad "g created without gnuplot"
expect 2 "--only: unknown experiment 'nope' (in " "--only unknown" "$SRLAB" reproduce --only stall,nope -o u
grep -qF 'stall' err.txt && ok "  ... the message lists the experiments" || bad "no list"
expect 2 "--only: ',stall' is not a comma list" "--only empty item" "$SRLAB" reproduce --only ,stall -o u
expect 2 "--threads: '0'" "--threads 0" "$SRLAB" reproduce --threads 0 -o u
expect 2 "--checks: 'T01;x' is not a comma list" "--checks bad" "$SRLAB" reproduce --checks 'T01;x' -o u
expect 2 "-o is given twice" "-o twice" "$SRLAB" reproduce -o a -o b
expect 2 "cannot read the experiments folder '$dir/none'" "no experiments folder" \
    env SRLAB_EXPERIMENTS="$dir/none" "$SRLAB" reproduce -o u
mkdir empty
expect 2 "no experiments (NAME.ini files) in" "an empty experiments folder" \
    env SRLAB_EXPERIMENTS="$dir/empty" "$SRLAB" reproduce -o u
[ ! -e u ] && [ ! -e a ] && ok "bad input creates no folder" || bad "a folder was created"

# ---- a plan of test specs, with a stand-in srlab check that fails ----
mkdir exps
cat >exps/tiny.ini <<'EOF'
# A tiny quad1d sweep (test).
# Figures: srlab plot lr_sweep --in OUT.summary.csv -o tiny_lr.png     (plots/lr_sweep.gp)
#          srlab plot loss_vs_step --in OUT.csv -o tiny_steps.png --set 'where=lr=0.01'
#          srlab plot nosuchscript --in OUT.csv -o tiny_none.png
#          srlab plot stall --in OUT.summary.csv -o ../escape.png
#   srlab sweep experiments/tiny.ini [--quick] -o OUT.csv
command = train
problem = quad1d
strategy = bf16-rn, bf16-sr
lr = 0.01, 0.1
steps = 400
log-every = 40
seeds = 3
[quick]
steps = 200
seeds = 2
EOF
cat >exps/broken.ini <<'EOF'
# A spec whose sweep fails (test).
# Figure: srlab plot stall --in OUT.summary.csv -o broken.png
problem = quad1d
no-such-key = 1
EOF
cat >fake-srlab <<EOF
#!/bin/sh
# a stand-in srlab whose check writes a table with a FAIL row and exits 1
if [ "\$1" = check ]; then
    while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
    printf '%s\n' '# srlab check (stand-in)' 'id,what,measured,ci_lo,ci_hi,predicted,margin,result' \
        'T01,"SR mean, exact",1.0000000000000002,0.999,1.001,1,0.001,PASS' \
        'T05,RN stall distance,0.25,0.2,0.3,0.5,0.05,FAIL' >"\$out"
    echo "T05 FAIL" >&2
    exit 1
fi
exec "$SRLAB" "\$@"
EOF
chmod +x fake-srlab
SRLAB_EXPERIMENTS=$dir/exps SRLAB_REPRODUCE_EXE=$dir/fake-srlab \
    "$SRLAB" reproduce --quick -o r >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] && ok "problems in the report: exit 1" || bad "exit $got (want 1): $(cat err.txt)"
h=r/index.html
[ -s $h ] && ok "index.html written" || bad "no index.html"
grep -qF "report: r/index.html" out.txt && ok "stdout names the report" || bad "stdout: $(cat out.txt)"
[ "$(grep -c '^srlab reproduce: \[[ 0-9]*/8\] ' err.txt)" -eq 8 ] && ok "a progress line per step (8)" ||
    bad "progress lines: $(cat err.txt)"
grep -qF '[1/8] srlab sweep specs/broken.ini -o broken.csv ... FAILED: exit 2' err.txt &&
    ok "the failed sweep on its progress line" || bad "broken sweep progress: $(grep broken err.txt)"
grep -q '<table id="checks">' $h && grep -q '<tr class="FAIL">.*T05' $h && ok "the check table shows the FAIL row" ||
    bad "check table: $(grep -c checks $h)"
grep -qF 'check T05 failed' $h && ok "  ... and the summary lists it" || bad "summary misses T05"
grep -qF 'title="1.0000000000000002"' $h && ok "  ... exact numbers kept in the title" || bad "exact numbers"
grep -qF 'SR mean, exact' $h && ok "  ... a quoted CSV field" || bad "quoted CSV field"
grep -qF 'the plot script' $h && grep -qF 'nosuchscript.gp is missing' $h &&
    ok "a missing plot script is reported" || bad "missing plot script not reported"
grep -qF "the figure file &#39;../escape.png&#39; must be a plain name" $h &&
    ok "a figure file outside the folder is refused" || bad "../escape.png not refused"
[ ! -e escape.png ] && ok "  ... and not written" || bad "escape.png written"
grep -qF 'broken: the sweep failed (exit 2)' $h && ok "the failed sweep is in the summary" ||
    bad "failed sweep not in the summary"
grep -qF 'Figure broken.png not drawn: its sweep failed' $h && ok "  ... its figure is not drawn" ||
    bad "broken.png"
[ -s r/tiny_lr.png ] && [ -s r/tiny_steps.png ] && ok "the figures are drawn" || bad "figures: $(ls r)"
[ "$(grep -c '<img ' $h)" -eq 2 ] && ok "two images in the page" || bad "images: $(grep -c '<img ' $h)"
grep -qF "srlab plot loss_vs_step --in tiny.csv --set where=lr=0.01 -o tiny_steps.png" $h &&
    ok "the exact plot command (OUT replaced, quoting undone)" || bad "plot command: $(grep -o 'srlab plot loss[^<]*' $h | head -2)"
grep -qF "srlab sweep specs/tiny.ini --quick -o tiny.csv" $h && ok "the exact sweep command" ||
    bad "sweep command"
grep -qF "<th>runs (full mode)</th><th>full sweep (CPU, measured)</th>" $h && grep -qF '>not measured<' $h &&
    ok "full-mode sizes, and no time for a spec that records none" || bad "full-mode sizes and times"
grep -qF '# runs: 8 (4 grid points x 2 seeds)' $h && ok "the sizes of this run" || bad "sizes"
grep -qF 'CPU</th>' $h && grep -qF 'nproc' $h && grep -qF '2023-11-14T22:13:20Z' $h &&
    ok "machine and date" || bad "machine/date"
cmp -s exps/tiny.ini r/specs/tiny.ini && ok "the spec copied as run" || bad "spec copy"
for f in sweep-tiny plot-tiny_lr.png plot-tiny_steps.png check; do
    [ -s "r/logs/$f.log" ] || bad "no log $f"
done
head -1 r/logs/check.log | grep -qF '$ srlab check --quick -o check.csv' && grep -q 'T05 FAIL' r/logs/check.log &&
    ok "logs: the command and its output" || bad "check log: $(cat r/logs/check.log)"
grep -q 'http' $h && bad "an address outside the report" || ok "no network address in the page"
links r "report with problems"
[ -z "$(find r -name '.*tmp*')" ] && ok "no temporary files" || bad "left: $(find r -name '.*tmp*')"

# ---- two specs drawing the same figure file: the second is refused, the first drawn ----
mkdir twice
for x in a b; do
    cat >twice/$x.ini <<'EOF'
# The same figure file as the other spec (test).
# Figure: srlab plot lr_sweep --in OUT.summary.csv -o same.png
command = train
problem = quad1d
strategy = bf16-rn
lr = 0.01, 0.1
steps = 50
log-every = 50
seeds = 1
EOF
done
SRLAB_EXPERIMENTS=$dir/twice "$SRLAB" reproduce --checks none -o tw >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] && ok "a figure file drawn twice: exit 1" || bad "exit $got (want 1): $(cat err.txt)"
grep -qF '[4/4] srlab plot lr_sweep: not run: same.png is already a figure of a: give this one another file name' err.txt &&
    ok "  ... the second one is not run" || bad "  ... progress: $(cat err.txt)"
grep -qF 'b: a figure is not drawn: same.png is already a figure of a' tw/index.html &&
    [ "$(grep -c '<img ' tw/index.html)" -eq 1 ] && [ -s tw/same.png ] &&
    ok "  ... the report says so, the first one is drawn" || bad "  ... report: $(ls tw)"

# ---- the real experiments: one experiment, no checks: a clean report ----
"$SRLAB" reproduce --quick --only stall --checks none -o clean >out.txt 2>err.txt
got=$?
[ "$got" -eq 0 ] && ok "--only stall --checks none: exit 0" || bad "exit $got: $(cat err.txt)"
[ -s clean/stall.png ] && [ -s clean/stall.csv ] && [ -s clean/stall.summary.csv ] && [ -s clean/stall.runs.csv ] &&
    ok "  ... its figures and data" || bad "clean: $(ls clean)"
grep -qF '<a href="stall.runs.csv">per-run finals (CSV)</a>' clean/index.html &&
    ok "  ... the report links the runs file" || bad "no link to stall.runs.csv"
grep -qF 'Every experiment and figure was reproduced</span> (no checks were run)' clean/index.html && ok "  ... the summary says so" ||
    bad "clean summary"
grep -qF 'Skipped (<code>--checks none</code>)' clean/index.html && ok "  ... checks skipped, said" ||
    bad "checks skipped"
[ "$(ls clean/specs)" = stall.ini ] && ok "  ... only that experiment" || bad "specs: $(ls clean/specs)"
links clean "clean report"
expect 2 "'clean' exists and is not empty" "a second run without --force" \
    "$SRLAB" reproduce --quick --only stall --checks none -o clean
echo mine >clean/mine.txt
"$SRLAB" reproduce --quick --only stall --checks none -o clean --force >out.txt 2>err.txt &&
    [ -s clean/index.html ] && [ "$(cat clean/mine.txt)" = mine ] &&
    ok "--force: written again, other files left alone" || bad "--force: $(cat err.txt)"

# ---- interrupted: SIGTERM during a sweep, then --force resumes ----
mkdir slow
cat >slow/slow.ini <<'EOF'
# Many small runs (test of an interruption).
# Figure: srlab plot lr_sweep --in OUT.summary.csv -o slow.png
command = train
problem = quad1d
strategy = bf16-rn, bf16-sr
lr = 1e-3:1e-1:log:40
steps = 20000
log-every = 20000
seeds = 8
EOF
SRLAB_EXPERIMENTS=$dir/slow "$SRLAB" reproduce --checks none --threads 1 -o int >out.txt 2>err.txt &
pid=$!
k=0
while [ ! -s int/slow.journal ] || [ "$(wc -l <int/slow.journal)" -lt 12 ]; do
    k=$((k + 1))
    [ $k -gt 300 ] && break
    sleep 0.1
done
kill -TERM $pid
wait $pid
got=$?
[ "$got" -eq 143 ] && ok "SIGTERM: reproduce dies with the signal" || bad "SIGTERM: exit $got"
[ ! -e int/index.html ] && ok "  ... no index.html" || bad "index.html after an interruption"
k=0
while :; do # the sweep gets the signal too: wait up to 10 s for it to be gone
    left=0
    for p in /proc/[0-9]*; do
        case $(readlink "$p/cwd" 2>/dev/null) in "$dir/int") left=$((left + 1)) ;; esac
    done
    k=$((k + 1))
    [ "$left" -eq 0 ] || [ $k -gt 100 ] && break
    sleep 0.1
done
[ "$left" -eq 0 ] && ok "  ... the running sweep was stopped too" || bad "$left processes still run in int/"
[ -s int/slow.journal ] && [ ! -e int/slow.csv ] && ok "  ... its journal is kept" || bad "journal: $(ls int)"
[ -z "$(find int -name '.*tmp*')" ] && ok "  ... no temporary files" || bad "left: $(find int -name '.*tmp*')"
SRLAB_EXPERIMENTS=$dir/slow "$SRLAB" reproduce --checks none --threads 1 -o int --force \
    >out.txt 2>err.txt
got=$?
[ "$got" -eq 0 ] && [ -s int/index.html ] && ok "--force after the interruption: the report" ||
    bad "resume: exit $got: $(cat err.txt)"
grep -qF 'srlab sweep specs/slow.ini --threads 1 -o slow.csv --resume' err.txt &&
    grep -qF 'continued from the journal' int/index.html && ok "  ... the sweep resumed from its journal" ||
    bad "no resume: $(cat err.txt)"
[ "$(grep -c '^[0-9]' int/slow.runs.csv)" -eq 640 ] && ok "  ... every run in the runs file" ||
    bad "runs rows: $(grep -c '^[0-9]' int/slow.runs.csv)"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
