#!/bin/sh
# tests/reproduce/browser_check.sh REPORT_DIR [SCREENSHOT.png]: open REPORT_DIR/index.html in
# headless Chromium (Debian's chromium) from disk and check what a reader sees: every <img> loaded
# (the page's own script writes data-state="loaded" and data-width = naturalWidth on each image,
# and the counts on <body>), nothing that scrolls sideways (data-overflow on <body>, counted by the
# same script), and the check table (<table id="checks">) with at least one row.
# With SCREENSHOT, also save a 1280-pixel-wide screenshot of the page there.
# Exit 0 all good, 1 a problem (printed), 77 chromium is not installed (meson's skip status).
# Chromium runs offline: no network services, no component updates, a throw-away profile.
set -u
dir=$1
shot=${2:-}
browser=""
for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 77; }
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
[ -f "$dir/index.html" ] || { echo "FAIL: no $dir/index.html"; exit 1; }
profile=$(mktemp -d "${TMPDIR:-/tmp}/srlab-chromium.XXXXXX")
trap 'rm -rf "$profile"' EXIT
run_chromium() {
    # timeout: a hung browser fails the test instead of blocking it
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-default-apps --disable-extensions --no-first-run --no-default-browser-check \
        --mute-audio --hide-scrollbars --user-data-dir="$profile" --virtual-time-budget=10000 \
        "$@" "file://$dir/index.html" 2>"$profile/stderr.txt"
}
run_chromium --dump-dom >"$profile/dom.html"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$profile/dom.html" ]; then
    echo "FAIL: chromium exit $rc: $(tail -3 "$profile/stderr.txt")"
    exit 1
fi
fails=0
body=$(grep -o '<body[^>]*>' "$profile/dom.html" | head -1)
imgs=$(grep -o '<img [^>]*>' "$profile/dom.html")
nimg=$(printf '%s\n' "$imgs" | grep -c '<img ')
nloaded=$(printf '%s\n' "$imgs" | grep 'data-state="loaded"' | grep -vc 'data-width="0"')
echo "page: $body"
echo "images: $nimg, loaded with a width: $nloaded"
if [ "$nimg" -eq 0 ]; then
    echo "FAIL: the report shows no figure"
    fails=$((fails + 1))
fi
if [ "$nloaded" -ne "$nimg" ]; then
    printf '%s\n' "$imgs" | grep -v 'data-state="loaded"' | sed 's/^/FAIL: not loaded: /'
    printf '%s\n' "$imgs" | grep 'data-width="0"' | sed 's/^/FAIL: no width: /'
    fails=$((fails + 1))
fi
case $body in
*'data-images-pending="0"'*'data-images-broken="0"'* | *'data-images-broken="0"'*'data-images-pending="0"'*) ;;
*) echo "FAIL: the page's image counts: $body"; fails=$((fails + 1)) ;;
esac
# nothing to scroll sideways (the page's script counts the blocks, cells and tables whose text
# runs past their edge or past the window, 800 pixels wide by default)
case $body in
*'data-overflow="0"'*) echo "nothing runs past its edge" ;;
*) echo "FAIL: text runs past its edge: $(printf '%s' "$body" | grep -o 'data-overflow.*')"; fails=$((fails + 1)) ;;
esac
# the check table: present, a header row and at least one check
table=$(tr '\n' ' ' <"$profile/dom.html" | grep -o '<table id="checks">.*' | sed 's,</table>.*,,')
rows=$(printf '%s' "$table" | grep -o '<tr' | wc -l)
if [ -z "$table" ]; then
    echo "FAIL: no check table (<table id=\"checks\">)"
    fails=$((fails + 1))
elif [ "$rows" -lt 2 ]; then
    echo "FAIL: the check table has no row"
    fails=$((fails + 1))
else
    echo "check table: $((rows - 1)) rows"
fi
if [ -n "$shot" ]; then
    rm -f "$shot"
    run_chromium --window-size=1280,4000 --screenshot="$shot" >/dev/null
    if [ -s "$shot" ]; then echo "screenshot: $shot"; else
        echo "FAIL: no screenshot: $(tail -3 "$profile/stderr.txt")"
        fails=$((fails + 1))
    fi
fi
[ "$fails" -eq 0 ]
