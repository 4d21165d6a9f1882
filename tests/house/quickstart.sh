#!/bin/sh
# tests/house/quickstart.sh SRCDIR: what the two commands of the quick start do (issue 30),
# with stand-ins for dpkg-query, meson, ninja and the built srlab on PATH (nothing is installed,
# built or run: the test reads what quickstart.sh asks of them).
#  - `sh quickstart.sh` builds the srlab command only (ninja -C build src/cli/srlab), says first
#    what it will cost, makes the report with srlab reproduce --quick, and says at the end how
#    to run srlab (its path, PATH, meson install);
#  - `sh quickstart.sh test` builds everything (ninja -C build), the sanitizer build, and says
#    its cost first;
#  - README.md states both costs as quickstart.sh does.
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-quickstart.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }

mkdir -p "$tmp/tree/tests/fuzz" "$tmp/bin"
cp "$src/quickstart.sh" "$tmp/tree/"
log=$tmp/log
# stand-ins: every call is logged as "TOOL ARGS"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
printf 'install ok installed'
EOF
cat >"$tmp/bin/meson" <<EOF
#!/bin/sh
echo "meson \$*" >>"$log"
if [ "\$1" = setup ]; then mkdir -p "\$2" && : >"\$2/build.ninja"; fi
EOF
cat >"$tmp/bin/ninja" <<EOF
#!/bin/sh
echo "ninja \$*" >>"$log"
mkdir -p build/src/cli
cat >build/src/cli/srlab <<'SRLAB'
#!/bin/sh
echo "srlab \$*" >>"$log"
if [ "\$1" = reproduce ]; then mkdir -p report && : >report/index.html; fi
SRLAB
chmod +x build/src/cli/srlab
EOF
echo "echo \"fuzz \$*\" >>\"$log\"" >"$tmp/tree/tests/fuzz/run.sh"
chmod +x "$tmp/bin/"*

(cd "$tmp/tree" && PATH="$tmp/bin:$PATH" sh quickstart.sh >"$tmp/run.out" 2>&1) ||
    bad "sh quickstart.sh: exit $?: $(tail -3 "$tmp/run.out")"
grep '^ninja' "$log" >"$tmp/ninja.run"
[ "$(cat "$tmp/ninja.run")" = "ninja -C build src/cli/srlab" ] &&
    ok "the main job builds the srlab command only" || bad "the main job builds: $(cat "$tmp/ninja.run")"
grep -q '^srlab reproduce --quick' "$log" && ok "the main job makes the quick report" ||
    bad "no srlab reproduce --quick in: $(cat "$log")"
run_time=$(sed -n 's/^run_time="\(.*\)"$/\1/p' "$tmp/tree/quickstart.sh")
test_time=$(sed -n 's/^test_time="\(.*\)"$/\1/p' "$tmp/tree/quickstart.sh")
head -1 "$tmp/run.out" | grep -qF "$run_time" && [ -n "$run_time" ] &&
    ok "it says first what it costs: $run_time" || bad "first line: $(head -1 "$tmp/run.out")"
grep -qF "srlab is $tmp/tree/build/src/cli/srlab" "$tmp/run.out" &&
    grep -q 'export PATH=' "$tmp/run.out" && grep -q 'meson install -C build' "$tmp/run.out" &&
    ok "it ends saying how to run srlab (its path, PATH, meson install)" ||
    bad "how to run srlab: $(tail -4 "$tmp/run.out")"

: >"$log"
(cd "$tmp/tree" && PATH="$tmp/bin:$PATH" sh quickstart.sh test >"$tmp/test.out" 2>&1) ||
    bad "sh quickstart.sh test: exit $?: $(tail -3 "$tmp/test.out")"
grep -qx 'ninja -C build' "$log" && grep -qx 'ninja -C build-asan' "$log" &&
    ok "the test job builds everything, twice" || bad "the test job builds: $(grep '^ninja' "$log")"
head -1 "$tmp/test.out" | grep -qF "$test_time" && [ -n "$test_time" ] &&
    ok "the test job says first what it costs: $test_time" || bad "first line: $(head -1 "$tmp/test.out")"

for t in "$run_time" "$test_time"; do
    echo "$t" | grep -Eq '^about [0-9]+ CPU-minutes?' && ok "a cost in CPU time: $t" || bad "not a CPU time: '$t'"
done
grep -qF "$run_time" "$src/README.md" && grep -qF "$test_time" "$src/README.md" &&
    ok "README.md states both costs as quickstart.sh does" ||
    bad "README.md does not state '$run_time' and '$test_time'"
exit $fail
