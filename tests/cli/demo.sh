#!/bin/sh
# tests/cli/demo.sh SRLAB: srlab demo. Each demonstration runs and states the facts it teaches
# (values fixed by the arithmetic, derived in the comments), and the figure commands it ends
# with really make the figure (run as printed, in a scratch folder holding experiments/). An
# unknown demo is refused (exit 2). The figure part is skipped without gnuplot.
# What a newcomer stumbled on (issue 30): the tables' columns stay aligned whatever the width of
# an exact value (gd's 0.012939453125), the help counts the replicas the demo shows, and after
# --plot the demo names the picture it drew instead of telling the user to use --plot.
set -u
case $1 in /*) SRLAB=$1 ;; *) SRLAB=$(pwd)/$1 ;; esac
SRC=${SRL_SRCDIR:-$(dirname "$0")/../..}
case $SRC in /*) ;; *) SRC=$(pwd)/$SRC ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-demo-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
ln -s "$SRC/experiments" experiments
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
has() { # NAME PATTERN WHAT: the output of demo NAME holds PATTERN (fixed string)
    grep -qF -- "$2" "out.$1" && ok "$1: $3" || bad "$1: $3 (no '$2' in the output)"
}

for d in accumulate harmonic gd replicas crossover; do
    if "$SRLAB" demo "$d" >"out.$d" 2>err.txt; then ok "demo $d runs"; else
        bad "demo $d: exit $?: $(head -c 300 err.txt)"; fi
done
# 1 + 0.001 in bf16: ulp(1) = 2^-7 and bf16(0.001) = 0x1.06p-10 covers 0.1279 of it, below 1/2,
# so rn never moves; the exact sum after 1000 terms is 1 + 1000 * 0x1.06p-10 = 1.99945068359375.
has accumulate "0.00099945068359375 (0x1.06p-10)" "the term rounded to bf16"
grep -Eq '^ +1000  1  ' out.accumulate && ok "accumulate: rn stuck at 1" ||
    bad "accumulate: rn stuck at 1 (no row 1000 with rn 1)"
has accumulate "1.99945068359375" "the exact sum"
# The harmonic series in bf16 stops at term 65: s = 5.0625 has ulp 2^-5 and 1/65 < 2^-6.
has harmonic "at k = 65 the sum is 5.0625" "the stagnation term"
has gd "ulp/(2 lr a)" "the stall prediction"
has replicas "bit-identical" "shared draws keep replicas identical"
# gd's first step in bf16 is exactly 0.012939453125 (14 characters): its column stays aligned
awk '/^  step  rn / { h = index($0, " sr ") + 1 }
     /^ +1  0\.012939453125  0\.012939453125  / { i = index($0, "0.0129"); s = i + 14 + index(substr($0, i + 14), "0.0129") - 1 }
     END { exit !(h > 0 && h == s) }' out.gd && ok "gd: the table's columns stay aligned" ||
    bad "gd table: $(sed -n '/step  rn/,/^$/p' out.gd)"
n=$(sed -n 's/^\([A-Z][a-z]*\) replicas of a .*/\1/p' out.replicas)
"$SRLAB" demo --help | grep -qi "^  replicas    $n data-parallel replicas" && ok "replicas: --help says $n, as the demo shows" ||
    bad "replicas: --help does not say '$n data-parallel replicas'"
# T14 with bf16 around x* = 1.5 (ulp 2^-7), sigma 1, from 1.25 over 10^4 steps: lr* = 2^-7/sqrt 6
has crossover "lr* = ulp/sqrt(6) = 0.00319" "SR's knee"
has crossover "sr beats rn below lr_c = 0.00146" "the crossover"
for d in accumulate harmonic gd replicas crossover; do
    grep -q '^  srlab ' "out.$d" && ok "$d ends with the figure commands" ||
        bad "$d prints no srlab command"
done

if command -v gnuplot >/dev/null 2>&1; then
    for d in accumulate harmonic gd replicas crossover; do
        sed -n 's/^  srlab /srlab /p' "out.$d" >"cmds.$d"
        png=$(sed -n 's/.* -o \([^ ]*\.png\).*/\1/p' "cmds.$d")
        if (srlab() { "$SRLAB" "$@"; } && . "./cmds.$d") >cmd.txt 2>&1 && [ -s "$png" ]; then
            ok "$d: its figure commands draw $png"
        else
            bad "$d: its figure commands fail: $(tail -c 300 cmd.txt)"
        fi
    done
    "$SRLAB" demo accumulate --plot acc.svg >out.plot 2>err.txt || bad "accumulate --plot: $(cat err.txt)"
    grep -qF "The picture: acc.svg" out.plot && ! grep -q -- "--plot" out.plot &&
        ok "after --plot: the picture named, no 'use --plot'" || bad "after --plot: $(grep -i picture out.plot)"
    grep -q 't added k times to 1' acc.svg && ok "accumulate: the picture's title reads in order" ||
        bad "accumulate: title $(grep -o '<title>[^<]*' acc.svg | head -2)"
else
    echo "SKIP: gnuplot is not installed: the figure commands are not run"
fi

"$SRLAB" demo nope >out.txt 2>err.txt
[ $? -eq 2 ] && grep -qF "unknown demo 'nope' (known: accumulate, harmonic, gd, replicas, crossover)" err.txt &&
    [ ! -s out.txt ] && ok "an unknown demo: exit 2, the list" || bad "unknown demo: $(cat err.txt)"

echo "$checks checks, $fails failures"
[ "$fails" -eq 0 ]
