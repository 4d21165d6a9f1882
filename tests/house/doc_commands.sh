#!/bin/sh
# tests/house/doc_commands.sh SRLAB SRCDIR: every command README.md and docs/tutorial.md show runs
# (issue 30): each line of their ```sh blocks is run, in order, in one scratch folder (the
# pages say to work in an empty one), with SRLAB first on PATH as `srlab`, and must exit 0.
# Five lines are not run here, because a test cannot run them from inside the build:
#   sh quickstart.sh          tests/house/quickstart.sh (what it builds, runs and says), CI runs
#   sh quickstart.sh test     the second (.ci/run is exactly that command)
#   meson install -C build    tests/install/install.sh (a staged meson install, used from outside)
#   python3 -m venv ..., .../bin/pip install ...   README's From Python: `sh quickstart.sh test`
#                             runs both (tests/house/quickstart.sh checks they are the same), and
#                             python/tests/test_docs.py runs the README's python block
# Any other line that is not an srlab command, `build/src/cli/srlab ...` or the PATH line of the
# README fails the test: a page may not show a command no test runs. Lines that draw with
# gnuplot are skipped (and named) when gnuplot is not installed.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-doc-commands.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
mkdir "$tmp/bin" "$tmp/work"
ln -s "$srlab" "$tmp/bin/srlab"
fail=0
n=0
has_gnuplot=false
command -v gnuplot >/dev/null 2>&1 && has_gnuplot=true

# The lines of the ```sh blocks of a page, continuation lines joined.
sh_lines() {
    awk '/^```sh$/ { on = 1; next } /^```/ { on = 0; next }
         on { if (sub(/\\$/, "")) { held = held $0; next } print held $0; held = "" }' "$1"
}

for page in README.md docs/tutorial.md; do
    sh_lines "$src/$page" >"$tmp/lines"
    [ -s "$tmp/lines" ] || { echo "FAIL $page: no sh block found"; fail=1; }
    while IFS= read -r line; do
        cmd=${line%%#*} # the comment after a command is the page's, not the command's
        cmd=$(echo "$cmd" | sed 's/[[:space:]]*$//')
        [ -n "$cmd" ] || continue
        case $cmd in
        "sh quickstart.sh" | "sh quickstart.sh test" | "meson install -C build" | \
            "python3 -m venv --system-site-packages "* | *"/bin/pip install --no-build-isolation ."*)
            echo "ELSEWHERE $page: $cmd"
            continue ;;
        'export PATH="$PWD/build/src/cli:$PATH"')
            case $srlab in */src/cli/srlab) echo "PASS $page: $cmd (srlab is $srlab)" ;;
            *) echo "FAIL $page: $cmd: srlab is not at BUILD/src/cli/srlab ($srlab)"; fail=1 ;; esac
            continue ;;
        "build/src/cli/srlab "*) run="srlab ${cmd#build/src/cli/srlab }" ;;
        "srlab "*) run=$cmd ;;
        *)
            echo "FAIL $page: '$cmd' is not a command this test knows how to run"
            fail=1
            continue ;;
        esac
        case $run in *" plot "* | *" --plot "* | "srlab reproduce"*)
            if ! $has_gnuplot; then echo "SKIP $page: $cmd (no gnuplot)"; continue; fi ;;
        esac
        n=$((n + 1))
        if (cd "$tmp/work" && PATH="$tmp/bin:$PATH" sh -c "$run" </dev/null >"$tmp/out" 2>&1); then
            echo "PASS $page: $cmd"
        else
            echo "FAIL $page: $cmd: exit $?: $(tail -3 "$tmp/out")"
            fail=1
        fi
    done <"$tmp/lines"
done
[ $n -ge 20 ] || { echo "FAIL only $n commands found: the pages' blocks were not read"; fail=1; }
echo "$n commands run"
exit $fail
