#!/bin/sh
# tests/reproduce/reproduce_quick.sh SRLAB BROWSER_CHECK (slow suite): the README's main job,
# `srlab reproduce --quick`, on every experiment and the real srlab check. It must write the
# report (exit 0, or 1 when the report shows a problem: a failed check is srlab check's business,
# listed here), every link must resolve, every figure a spec names must be drawn or explained,
# and the report must pass the browser check. The report and its screenshot are kept in the
# build folder: tests/reproduce/report-quick/ and report-quick.png. The wall time is printed.
set -u
case $1 in /*) SRLAB=$1 ;; *) SRLAB=$(pwd)/$1 ;; esac
case $2 in /*) CHECK=$2 ;; *) CHECK=$(pwd)/$2 ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
out=${SRL_BUILDDIR:-$(pwd)}/tests/reproduce
mkdir -p "$out" || exit 1
unset SRLAB_EXPERIMENTS SRLAB_REPRODUCE_EXE
r=$out/report-quick
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
t0=$(date +%s)
"$SRLAB" reproduce --quick -o "$r" --force 2>"$out/report-quick.err"
got=$?
t1=$(date +%s)
cat "$out/report-quick.err"
echo "wall time of srlab reproduce --quick: $((t1 - t0)) s"
case $got in
0) ok "srlab reproduce --quick: exit 0, nothing to report" ;;
1) ok "srlab reproduce --quick: exit 1, the report lists problems:"
   tr '\n' ' ' <"$r/index.html" | grep -o '<div class="box bad" id="summary">.*</ul>' |
       sed 's/<li>/\n  - /g; s/<[^>]*>//g' ;;
*) bad "srlab reproduce --quick: exit $got" ;;
esac
[ -s "$r/index.html" ] || { echo "FAIL: no report"; exit 1; }
n=0 missing=""
for l in $(grep -o '\(href\|src\)="[^"]*"' "$r/index.html" | sed 's/^[a-z]*="//; s/"$//'); do
    n=$((n + 1))
    case $l in
    '#'*) grep -q "id=\"${l#\#}\"" "$r/index.html" || missing="$missing $l" ;;
    *:* | /*) missing="$missing $l(outside)" ;;
    *) [ -f "$r/$l" ] || missing="$missing $l" ;;
    esac
done
[ -z "$missing" ] && ok "all $n links resolve" || bad "links that do not resolve:$missing"
src=${SRL_SRCDIR:-$(dirname "$0")/../..}
for spec in "$src"/experiments/*.ini; do
    name=$(basename "$spec" .ini)
    grep -q "id=\"x-$name\"" "$r/index.html" && ok "experiment $name in the report" ||
        bad "experiment $name missing"
    for fig in $(sed -n '/^[^#]/q; s/.*srlab plot .* -o \([^ ]*\).*/\1/p' "$spec"); do
        if [ -s "$r/$fig" ] && grep -qF "<img src=\"$fig\"" "$r/index.html"; then ok "  figure $fig"
        elif grep -qF "$fig" "$r/index.html" && ! grep -qF "<img src=\"$fig\"" "$r/index.html"; then
            ok "  figure $fig not drawn, and the report says why"
        else bad "  figure $fig neither drawn nor explained"; fi
    done
done
grep -q '<table id="size-table">' "$r/index.html" && grep -q 'The full mode of these experiments' "$r/index.html" &&
    ok "sizes and the full mode's time: $(grep -o 'The full mode of these experiments[^(]*' "$r/index.html")" ||
    bad "no full-mode time"
sh "$CHECK" "$r" "$out/report-quick.png"
got=$?
if [ "$got" -eq 77 ]; then echo "(browser check skipped: no chromium)"
elif [ "$got" -eq 0 ]; then ok "browser check"
else bad "browser check (exit $got)"; fi
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
