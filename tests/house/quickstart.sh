#!/bin/sh
# tests/house/quickstart.sh SRCDIR: what the two commands of the quick start do (issue 30),
# with stand-ins for dpkg-query, meson, ninja and the built srlab on PATH (nothing is installed,
# built or run: the test reads what quickstart.sh asks of them).
#  - `sh quickstart.sh` builds the srlab command only (ninja -C build src/cli/srlab), says first
#    what it will cost, makes the report with srlab reproduce --quick, and says at the end how
#    to run srlab (its path, PATH, meson install);
#  - `sh quickstart.sh test` builds everything (ninja -C build), the sanitizer build, and says
#    its cost first; it installs the Python package into a fresh venv with the two commands of
#    README.md's "From Python" (the venv's path and pip's offline options aside), so CI runs them;
#  - README.md states both costs as quickstart.sh does.
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-quickstart.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }

mkdir -p "$tmp/tree/tests/fuzz" "$tmp/bin"
# quickstart.sh names Debian's python3 by its path; the copy runs the stand-in
sed 's#^python=/usr/bin/python3 #python=python3 #' "$src/quickstart.sh" >"$tmp/tree/quickstart.sh"
grep -q '^python=python3 ' "$tmp/tree/quickstart.sh" || bad "quickstart.sh: no 'python=/usr/bin/python3' line"
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
mkdir -p "\$2/src/cli" # ninja -C DIR ...: the srlab of that build
cat >"\$2/src/cli/srlab" <<'SRLAB'
#!/bin/sh
echo "srlab \$*" >>"$log"
if [ "\$1" = reproduce ]; then mkdir -p report && : >report/index.html; fi
SRLAB
chmod +x "\$2/src/cli/srlab"
EOF
echo "echo \"fuzz \$*\" >>\"$log\"" >"$tmp/tree/tests/fuzz/run.sh"
cat >"$tmp/bin/python3" <<EOF
#!/bin/sh
echo "python3 \$*" >>"$log"
if [ "\$1 \$2" = "-m venv" ]; then
    for d; do :; done
    mkdir -p "\$d/bin"
    printf '#!/bin/sh\necho "pip \$*" >>"$log"\n' >"\$d/bin/pip"
    printf '#!/bin/sh\necho "venv-python \$*" >>"$log"\n' >"\$d/bin/python"
    chmod +x "\$d/bin/pip" "\$d/bin/python"
fi
EOF
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
grep -qx 'meson setup build-mutants --buildtype=release -Dmutants=true -Dslow_tests=false' "$log" &&
    grep -qx 'srlab check --mutate bug --quick' "$log" &&
    ok "the test job runs the built-in defects against the checks (a -Dmutants=true build)" ||
    bad "the test job's defects: $(grep -e mutants -e mutate "$log")"
venv=$(grep '^python3 -m venv' "$log")
pip=$(grep '^pip install' "$log")
[ "$venv" = "python3 -m venv --system-site-packages build-venv" ] &&
    [ "${pip##* }" = . ] && echo "$pip" | grep -q ' --no-build-isolation ' &&
    grep -q '^venv-python -m pytest' "$log" &&
    ok "the test job installs the package into a venv and tests it: $pip" ||
    bad "the test job's venv and pip: '$venv', '$pip'"
# README.md's two lines, with the venv at build-venv: the same commands, pip's offline options
# aside
readme=$(awk '/^## From Python/ { on = 1 } /^```sh$/ && on == 1 { on = 2; next } /^```/ && on == 2 { exit }
              on == 2 { sub(/[ \t]*#.*/, ""); print }' "$src/README.md")
rdir=$(echo "$readme" | sed -n 's/^python3 -m venv --system-site-packages //p')
rpip=$(echo "$readme" | sed -n "s#^$rdir/bin/##p")
[ -n "$rdir" ] && [ "python3 -m venv --system-site-packages build-venv" = "$venv" ] &&
    [ "$(echo "$readme" | wc -l)" -eq 2 ] &&
    [ "$(echo "$pip" | sed 's/ --no-index//; s/ --config-settings [^ ]*//')" = "$rpip" ] &&
    ok "README.md's From Python shows the test job's two commands: $(echo $readme)" ||
    bad "README.md's From Python: '$readme' against '$venv' and '$pip'"
head -1 "$tmp/test.out" | grep -qF "$test_time" && [ -n "$test_time" ] &&
    ok "the test job says first what it costs: $test_time" || bad "first line: $(head -1 "$tmp/test.out")"

for t in "$run_time" "$test_time"; do
    echo "$t" | grep -Eq '^about [0-9]+ CPU-minutes?' && ok "a cost in CPU time: $t" || bad "not a CPU time: '$t'"
done
grep -qF "$run_time" "$src/README.md" && grep -qF "$test_time" "$src/README.md" &&
    ok "README.md states both costs as quickstart.sh does" ||
    bad "README.md does not state '$run_time' and '$test_time'"
exit $fail
