#!/bin/sh
# tests/reproduce/reproduce_browser.sh SRLAB BROWSER_CHECK: a small report (the real stall
# experiment, a stand-in srlab check with a PASS and a FAIL row) opened in headless Chromium from
# disk: browser_check.sh must accept it (every image loaded, the check table there) and must
# reject broken copies: a figure cut short, a figure removed, the check table removed.
# The screenshot of the good report is kept in the build folder (tests/reproduce/
# report-small.png). Skipped (77) without chromium or gnuplot.
set -u
case $1 in /*) SRLAB=$1 ;; *) SRLAB=$(pwd)/$1 ;; esac
case $2 in /*) CHECK=$2 ;; *) CHECK=$(pwd)/$2 ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
    { echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 77; }
shots=${SRL_BUILDDIR:-$(pwd)}/tests/reproduce
mkdir -p "$shots" 2>/dev/null || shots=$(pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-reproduce-browser.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
unset SRLAB_EXPERIMENTS
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
cat >fake-srlab <<EOF2
#!/bin/sh
if [ "\$1" = check ]; then
    while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
    printf '%s\n' 'id,what,measured,ci_lo,ci_hi,predicted,margin,result' \
        'T05,RN stall distance,0.5,0.45,0.55,0.5,0.05,PASS' \
        'T06,SR penalty,0.3,0.2,0.4,0.9,0.1,FAIL' >"\$out"
    exit 1
fi
exec "$SRLAB" "\$@"
EOF2
chmod +x fake-srlab
SRLAB_REPRODUCE_EXE=$dir/fake-srlab "$SRLAB" reproduce --quick --only stall -o r >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] && [ -s r/index.html ] && ok "the report (exit 1: the stand-in check fails)" ||
    bad "reproduce: exit $got: $(cat err.txt)"

sh "$CHECK" r "$shots/report-small.png" >b.txt 2>&1
got=$?
cat b.txt
[ "$got" -eq 0 ] && ok "chromium: every figure loads, the check table is there" ||
    bad "chromium rejects the good report (exit $got)"
grep -q '^images: 2, loaded with a width: 2$' b.txt && ok "  ... both figures" || bad "images: $(grep images b.txt)"
grep -q '^check table: 2 rows$' b.txt && ok "  ... both checks" || bad "table: $(grep table b.txt)"

# broken copies must fail (a PNG cut short after its header still has a width: Chromium
# draws what it has, so it is not one of them)
cp -R r junk && echo 'not a PNG' >junk/stall.png
sh "$CHECK" junk >b.txt 2>&1
got=$?
[ "$got" -eq 1 ] && grep -q 'FAIL: not loaded: <img src="stall.png"' b.txt &&
    ok "a figure that is not an image is caught" || bad "junk figure: exit $got: $(cat b.txt)"
cp -R r gone && rm gone/stall_lr.png
sh "$CHECK" gone >b.txt 2>&1
got=$?
[ "$got" -eq 1 ] && grep -q 'FAIL: not loaded: <img src="stall_lr.png"' b.txt &&
    ok "a missing figure is caught" || bad "missing figure: exit $got: $(cat b.txt)"
cp -R r notable && sed 's/<table id="checks">/<table>/' r/index.html >notable/index.html
sh "$CHECK" notable >b.txt 2>&1
got=$?
[ "$got" -eq 1 ] && grep -q 'FAIL: no check table' b.txt && ok "a missing check table is caught" ||
    bad "no table: exit $got: $(cat b.txt)"
cp -R r norows && awk '/<table id="checks">/{t=1} t&&/<tr class=/{next} /<\/table>/{t=0} {print}' \
    r/index.html >norows/index.html
sh "$CHECK" norows >b.txt 2>&1
got=$?
[ "$got" -eq 1 ] && grep -q 'FAIL: the check table has no row' b.txt && ok "an empty check table is caught" ||
    bad "empty table: exit $got: $(cat b.txt)"
# a command block that does not wrap (the report's style before issue 13) scrolls sideways
cp -R r wide && sed 's|</style>|pre{white-space:pre;overflow-wrap:normal;overflow-x:auto}</style>|' r/index.html >wide/index.html
sh "$CHECK" wide >b.txt 2>&1
got=$?
[ "$got" -eq 1 ] && grep -q 'FAIL: text runs past its edge: data-overflow="[1-9]' b.txt &&
    ok "a command block that scrolls sideways is caught" || bad "wide block: exit $got: $(cat b.txt)"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
