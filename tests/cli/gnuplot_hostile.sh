#!/bin/sh
# tests/cli/gnuplot_hostile.sh SRLAB: nothing a user hands srlab runs as a command in gnuplot, or
# makes it open a file srlab did not name (issue 28, item 1; docs/security.md). Each case gives a
# hostile value by one route -- a --set value of each kind and each gnuplot feature that runs a
# command or opens a file, the --in file's name, the -o path, demo --plot and --table, a spec's
# `# Figure:` line under srlab reproduce, an init file in HOME, the data's cells and `# command:`
# line -- and asserts: exit status 2 and a message naming the route (reproduce: the figure is
# refused in its report, exit 1, and its plot never runs), and not one new file anywhere in the
# scratch tree, which holds the working folder, HOME and TMPDIR (every listing compared before and
# after). Cases that must draw (hostile data, an init file) create exactly their figure.
# A real gnuplot must be on PATH: the cases are only meaningful with one (skipped, 77, without).
set -u
case $1 in /*) SRLAB=$1 ;; *) SRLAB=$(pwd)/$1 ;; esac
command -v gnuplot >/dev/null 2>&1 ||
    { echo "SKIP: gnuplot is not installed (Debian's gnuplot-nox): these cases need a real one"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/srlab-gnuplot-hostile.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT HUP INT TERM
mkdir "$T/home" "$T/tmp" "$T/work" "$T/log"
export HOME="$T/home" TMPDIR="$T/tmp" SOURCE_DATE_EPOCH=1700000000
unset SRLAB_EXPERIMENTS
cd "$T/work" || exit 99
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
# every path under the scratch tree but the logs of the cases
listing() { find "$T" -path "$T/log" -prune -o -print | sort; }

"$SRLAB" sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 0.01:0.1:log:3 --steps 100 \
    --log-every 20 --seeds 2 --quiet -o q.csv 2>"$T/log/err" || { echo "sweep: $(cat "$T/log/err")"; exit 1; }
# gnuplot would read ~/.gnuplot at start (without -d, with this HOME): a command in it
echo "system 'touch $T/PWN-init'" >"$HOME/.gnuplot"
cp q.summary.csv '<touch PWN;cat q.summary.csv'
mkdir '|touch PWN;x' '<x'
cp q.summary.csv '<x/q.summary.csv'

# run ARGS...: srlab ARGS, its exit status in rc, the paths it created in new.
run() {
    listing >"$T/log/before"
    "$SRLAB" "$@" >"$T/log/out" 2>"$T/log/err"
    rc=$?
    listing >"$T/log/after"
    new=$(comm -13 "$T/log/before" "$T/log/after")
}
# refuses NAME PATTERN ARGS...: exit 2, PATTERN (fixed text) in the message, nothing new anywhere.
refuses() {
    name=$1 pat=$2
    shift 2
    run "$@"
    if [ $rc -ne 2 ]; then bad "$name: exit $rc (want 2): $(head -c 300 "$T/log/err")"
    elif ! grep -qF -- "$pat" "$T/log/err"; then bad "$name: message '$(head -c 300 "$T/log/err")' lacks '$pat'"
    elif [ -n "$new" ]; then bad "$name: new files: $(echo "$new" | tr '\n' ' ')"
    else ok "$name"; fi
}
# draws NAME FILE ARGS...: exit 0 and exactly one new file, FILE (in the working folder).
draws() {
    name=$1 file=$2
    shift 2
    run "$@"
    if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(head -c 300 "$T/log/err")"
    elif [ "$new" != "$T/work/$file" ]; then bad "$name: new files: $(echo "$new" | tr '\n' ' ')"
    else ok "$name"; fi
    rm -f "$file"
}
P="plot stall --in q.summary.csv -o f.png"
L="plot lr_sweep --in q.summary.csv -o f.png"

# ---- --set: each gnuplot feature that runs a command or opens a file, in each kind of value ----
refuses "--set debug=|cmd: output to a command (set print)" \
    "--set debug: '|touch PWN' has a part beginning with '|'" $P --set "debug=|touch PWN"
refuses "--set runs=<cmd: input from a command (plot, stats)" \
    "--set runs: '<touch PWN; cat q.runs.csv' has a part beginning with '<'" $L --set "runs=<touch PWN; cat q.runs.csv"
refuses "--set runs=-: standard input" "--set runs: cannot read '-'" $L --set "runs=-"
refuses "--set title=\`cmd\`: backquote substitution" "--set title: '\`touch PWN\`' holds '\`'" \
    $L --set 'title=`touch PWN`'
refuses "--set title: a quote that ends the literal, then system()" "--set title: " \
    $L --set "title=x'; system('touch PWN'); t='x"
refuses "--set where: a double quote, then system()" "--set where: " \
    $L --set 'where=lr=0.01" . system("touch PWN") . "'
refuses "--set a=system(...): a number that is code" "--set a: 'system(\"touch PWN\")' is not a number" \
    $P --set 'a=system("touch PWN")'
refuses "--set a=1; cmd: a number, then a command" "--set a: '1; system(\"touch PWN\")'" \
    $P --set 'a=1; system("touch PWN")'
refuses "--set p=8;load ...: an integer, then load" "--set p: " $P --set 'p=8;load "x"'
refuses "--set by=@x: a macro" "--set by: '@showranges' has a column name that holds '@'" \
    $P --set 'by=@showranges'
refuses "--set title=!cmd: shell escape" "--set title: '!touch PWN' holds '!'" $L --set 'title=!touch PWN'
refuses "--set title=\$(cmd)" "--set title: '\$(touch PWN)' holds '\$'" $L --set 'title=$(touch PWN)'
refuses "--set title with a newline (a second command line)" "holds the byte 0x0a" \
    $L --set "title=a
system('touch PWN')"
refuses "--set title with a backslash" "holds '\\'" $L --set 'title=a\"; system("touch PWN"); #'
refuses "--set by=a;cmd: a command separator" "holds ';'" $P --set 'by=strategy;system("touch PWN")'
refuses "--set by=eval ...: no such column" "--set by: --in 'q.summary.csv' has no column 'eval'" \
    $P --set 'by=eval'
refuses "--set xcol=+: gnuplot's special file, as a column" "has no column '+'" $L --set 'xcol=+'
refuses "--set in=<cmd: srlab plot's own variable" "the figure has no variable 'in'" $P --set "in=<touch PWN"
refuses "--set out=|cmd" "the figure has no variable 'out'" $P --set "out=|touch PWN"
refuses "--set fmt=...; cmd" "the figure has no variable 'fmt'" $P --set "fmt=png'; system('touch PWN'); x='"
refuses "--set foo=nan: a variable the script does not declare (item 9)" \
    "--set 'foo=nan': the figure has no variable 'foo'" $P --set foo=nan
refuses "--set a=nan: not a finite number (item 9)" "--set a: 'nan' is not finite" $P --set a=nan
refuses "--set a=inf" "--set a: 'inf' is not finite" $P --set a=inf
refuses "--set title of 2000 characters" "is longer than 1000 bytes" \
    $L --set "title=$(printf '%2000s' '' | tr ' ' x)"
refuses "--set by twice" "--set by is given twice" $P --set by=strategy --set by=lr

# ---- --in, -o: file names that gnuplot reads as commands ----
refuses "--in '<cmd' (a file of that name)" "--in: '<touch PWN;cat q.summary.csv' has a part beginning with '<'" \
    plot stall --in '<touch PWN;cat q.summary.csv' -o f.png
refuses "--in in a folder '<x'" "--in: '<x/q.summary.csv' has a part beginning with '<'" \
    plot stall --in '<x/q.summary.csv' -o f.png
refuses "-o in a folder '|cmd'" "-o: '|touch PWN;x/f.png' has a part beginning with '|'" \
    plot stall --in q.summary.csv -o '|touch PWN;x/f.png'
refuses "-o '<x/f.png'" "-o: '<x/f.png' has a part beginning with '<'" plot stall --in q.summary.csv -o '<x/f.png'
refuses "figure name '-e'" "is not a figure name" plot --in q.summary.csv -o f.png -- -e

# ---- srlab demo --plot and --table ----
refuses "demo --plot in a folder '|cmd'" "--plot: '|touch PWN;x/g.png' has a part beginning with '|'" \
    demo gd --plot '|touch PWN;x/g.png'
refuses "demo --table in a folder '|cmd'" "--table: '|touch PWN;x/t.txt' has a part beginning with '|'" \
    demo gd --table '|touch PWN;x/t.txt'

# ---- what must draw, and run nothing: init files, hostile data ----
draws "HOME/.gnuplot is not read (gnuplot -d, HOME its own folder)" f.png $P
[ ! -e "$T/PWN-init" ] && ok "  ... the init file's command did not run" || bad "~/.gnuplot ran"
draws "demo --plot: nothing but the figure" g.png demo gd --n 200 --plot g.png
{ echo "# command: srlab sweep --problem quad1d --a \$(touch PWN) --xstar \`touch PWN\` --lr 0.1,0.2"
  echo "lr,strategy,final_dist_to_opt_mean,final_dist_to_opt_n,seeds"
  echo "0.1,\`touch PWN\`,0.001,2,2"
  echo "0.2,\`touch PWN\`,0.002,2,2"
  echo "0.1,<touch PWN,0.003,2,2"
  echo "0.2,<touch PWN,0.004,2,2"
  echo "0.1,@showranges|touch PWN,0.003,2,2"
  echo "0.2,@showranges|touch PWN,0.004,2,2"; } >hostile.summary.csv
draws "data cells and a '# command:' line holding commands" h.svg \
    plot stall --in hostile.summary.csv -o h.svg --set a=1 --set xstar=0.3
cp hostile.summary.csv 'x'"'"'y;$(touch PWN).summary.csv'
draws "a file name with quotes and \$(...) (not '<' or '|')" h.svg \
    plot stall --in 'x'"'"'y;$(touch PWN).summary.csv' -o h.svg --set a=1 --set xstar=0.3
rm -f 'x'"'"'y;$(touch PWN).summary.csv'

# ---- a spec's `# Figure:` lines under srlab reproduce: refused in the plan, never run ----
mkdir specs
cat >specs/tiny.ini <<'EOF'
# A tiny sweep whose figures carry hostile values (test).
# Figure: srlab plot stall --in OUT.summary.csv -o a.png --set "debug=|touch PWN"
# Figure: srlab plot lr_sweep --in OUT.summary.csv -o b.png --set "runs=<touch PWN"
# Figure: srlab plot lr_sweep --in OUT.summary.csv -o c.png --set 'title=`touch PWN`'
# Figure: srlab plot stall --in OUT.summary.csv -o d.png --set 'a=1; system("touch PWN")'
# Figure: srlab plot stall --in '<touch PWN' -o e.png
# Figure: srlab plot stall --in OUT.summary.csv -o f.png --set foo=nan
# Figure: srlab plot stall --in OUT.summary.csv -o ok.png
problem = quad1d
strategy = bf16-rn, bf16-sr
lr = 0.01, 0.1
steps = 50
log-every = 50
seeds = 1
EOF
export SRLAB_EXPERIMENTS="$T/work/specs"
run reproduce --checks none -o R
[ $rc -eq 1 ] && ok "reproduce with hostile figure lines: exit 1 (a figure not drawn)" ||
    bad "reproduce: exit $rc (want 1): $(tail -n 3 "$T/log/err")"
new=$(echo "$new" | grep -v "^$T/work/R\(/\|$\)")
[ -z "$new" ] && ok "  ... nothing new outside its report folder" || bad "  ... new files: $new"
for f in a b c d e f; do
    [ ! -e "R/$f.png" ] && [ ! -e "R/logs/plot-$f.png.log" ] || bad "  ... figure $f.png was run"
done
[ -s R/ok.png ] && ok "  ... the harmless figure is drawn, the others never run" || bad "  ... ok.png missing"
for pat in "--set debug: &#39;|touch PWN&#39; has a part beginning with &#39;|&#39;" \
    "--set runs: &#39;&lt;touch PWN&#39; has a part beginning with &#39;&lt;&#39;" \
    "--set title: &#39;\`touch PWN\`&#39; holds &#39;\`&#39;" "--set a: &#39;1; system(" \
    "--in &#39;&lt;touch PWN&#39; has a part beginning" "--set &#39;foo=nan&#39;: the figure stall has no such variable"; do
    grep -qF -- "$pat" R/index.html && ok "  ... the report says: $pat" || bad "  ... the report lacks: $pat"
done
# the report folder's own name is never given to gnuplot
mkdir -p '|touch PWN;y'
run reproduce --checks none -o '|touch PWN;y/R'
new=$(echo "$new" | grep -v "^$T/work/|touch PWN;y/R\(/\|$\)")
[ -z "$new" ] && [ -s '|touch PWN;y/R/ok.png' ] && ok "reproduce -o '|touch PWN;y/R': the figure drawn, nothing else" ||
    bad "reproduce -o '|...': new files: $new"

# SIGTERM or SIGHUP to the command and its gnuplot (as a terminal's Ctrl-C reaches the whole group)
# while gnuplot draws: the private folder goes too (files first, then the folder). The gnuplot
# found first on PATH here takes a minute to draw (it sleeps; --version goes to the real one), so
# the signal always comes while it draws: a real gnuplot drew the figure before a loaded machine
# let the shell see the folder, and the test then saw a figure and no folder.
if command -v setsid >/dev/null 2>&1; then
    mkdir slowgp
    printf '#!/bin/sh\ncase "$1" in -V | --version) exec "%s" "$@" ;; esac\nexec sleep 60\n' "$(command -v gnuplot)" >slowgp/gnuplot
    chmod +x slowgp/gnuplot
    for sig in TERM HUP; do # (INT: a background job ignores it)
        PATH="$PWD/slowgp:$PATH" setsid sh -c '"$0" plot stall --in q.summary.csv -o sig.png & i=0
            while [ -z "$(ls -A "$TMPDIR")" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
            sleep 0.2; kill -'$sig' -$$; wait' "$SRLAB" >/dev/null 2>&1
        sleep 1
        [ -z "$(ls -A "$TMPDIR")" ] && [ ! -e sig.png ] && ok "SIG$sig while drawing: no private folder, no figure" ||
            bad "SIG$sig while drawing: left $(ls -A "$TMPDIR") $(ls sig.png 2>/dev/null)"
        rm -rf "${TMPDIR:?}"/* sig.png
    done
fi
pwn=$(find "$T" -name 'PWN*'; find /tmp -maxdepth 1 -name 'PWN*' -newer "$T/home/.gnuplot")
[ -z "$pwn" ] && ok "no PWN file anywhere" || bad "PWN files: $(echo "$pwn" | tr '\n' ' ')"
[ -z "$(ls -A "$TMPDIR")" ] && ok "gnuplot's private folders are gone" || bad "TMPDIR holds $(ls -A "$TMPDIR")"
echo "$checks checks, $fails failures"
[ "$fails" -eq 0 ]
