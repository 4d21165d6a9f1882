#!/bin/sh
# tests/cli/help_refs.sh SRLAB SRCDIR: what the help texts name exists (issue 30, item 5).
#  - `srlab plot --help` lists every figure, each plots/NAME.gp, and no figure that is not there;
#  - every spec an example of any command's --help sweeps (`srlab sweep NAME` or
#    `srlab sweep experiments/NAME.ini`) is an experiments/NAME.ini.
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
cli_setup help-refs "$1"

"$srlab" plot --help | sed -n '/^figures:/,/^(and any other/p' |
    sed -n 's/^  \([a-z0-9_][a-z0-9_]*\)  .*/\1/p' | sort >listed
ls "$src"/plots/*.gp | sed 's#.*/##; s#\.gp$##' | sort >scripts
missing=$(comm -13 listed scripts | tr '\n' ' ')
extra=$(comm -23 listed scripts | tr '\n' ' ')
[ -z "$missing" ] && ok "plot --help lists every plots/*.gp ($(wc -l <scripts) figures)" ||
    bad "plot --help does not list: $missing"
[ -z "$extra" ] && ok "plot --help lists no figure that does not exist" || bad "plot --help lists: $extra"

n=0
for c in $("$srlab" help --complete commands); do
    "$srlab" "$c" --help 2>/dev/null | sed -n 's/^ *srlab sweep \([a-z0-9_./]*\).*/\1/p' >specs.$c
    while read -r s; do
        [ -n "$s" ] || continue
        name=${s#experiments/}
        name=${name%.ini}
        n=$((n + 1))
        [ -f "$src/experiments/$name.ini" ] || bad "srlab $c --help sweeps '$s': no experiments/$name.ini"
    done <specs.$c
done
[ $n -gt 0 ] && [ $fail -eq 0 ] && ok "every spec the help examples sweep exists ($n examples)"
[ $n -gt 0 ] || bad "found no help example that sweeps a spec: the scan is broken"
exit $fail
