#!/bin/sh
# tests/cli/man_completion.sh SRLAB BUILDDIR SRCDIR: the man pages and the bash completion
# (issue 13, item 7).
#  - doc/meson.build makes a page for srlab and for every command `srlab --help` lists; each
#    page is valid roff (man renders it without a warning) and says what --help says: every
#    option of the command's --help appears in its rendered page;
#  - data/srlab.bash, sourced in bash, completes commands, options, formats, modes, problems,
#    figures, a figure's --set variables and spec names (the function is called with COMP_WORDS
#    as bash would).
. "$(dirname "$0")/../cli_lib.sh"
build=$2
src=$3
cli_setup man-completion "$1"

cmds=$("$srlab" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" && $1 != "help" { print $1 }')
[ -n "$cmds" ] || bad "no commands in srlab --help"
for c in "" $cmds; do
    page=$build/doc/srlab${c:+-$c}.1
    if [ ! -s "$page" ]; then bad "no man page $page"; continue; fi
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=100 man -l "$page" >page.txt 2>warn.txt
        # man's own renderer: the page must render, with no troff warning
        if [ -s page.txt ] && [ ! -s warn.txt ]; then ok "srlab${c:+-$c}(1) renders"
        else bad "srlab${c:+-$c}(1): $(head -c 300 warn.txt)"; fi
    else
        sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$page" >page.txt
    fi
    if [ -n "$c" ]; then "$srlab" $c --help >help.txt; else "$srlab" --help >help.txt; fi
    missing=
    for o in $("$srlab" help --complete options $c); do
        grep -q -- "$o\b" page.txt || missing="$missing $o"
    done
    [ -z "$missing" ] && ok "srlab${c:+-$c}(1) names every option of --help" ||
        bad "srlab${c:+-$c}(1) lacks:$missing"
    # the first usage line of --help is the page's synopsis
    u=$(head -1 help.txt | sed 's/^usage: //' | cut -c1-40)
    grep -qF -- "$u" page.txt && ok "srlab${c:+-$c}(1): synopsis from --help" || bad "srlab${c:+-$c}(1): no '$u'"
done
grep -q "srlab-round - round numbers" "$build/doc/srlab-round.1" 2>/dev/null ||
    grep -q 'srlab\\-round \\- round numbers' "$build/doc/srlab-round.1" && ok "NAME line of srlab-round(1)" ||
    bad "srlab-round(1) NAME line"
usage_error "help --man unknown" "unknown command 'nope'" help --man nope
usage_error "help --complete unknown" "--complete: unknown word list 'nope'" help --complete nope

# bash completion
if ! command -v bash >/dev/null 2>&1; then echo "SKIP: no bash"; exit $fail; fi
comp() { # WORDS...: the completions of the last word
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _srlab; printf "%s\n" "${COMPREPLY[@]}"' \
        comp "$src/data/srlab.bash" "$@" | sort | tr '\n' ' '
}
PATH=$(dirname "$srlab"):$PATH
export PATH
check() { # WHAT WANT WORDS...: the completions hold every word of WANT
    what=$1 want=$2
    shift 2
    got=" $(comp "$@")"
    for w in $want; do
        case "$got" in *" $w "*) ;; *) bad "completion $what: no '$w' in:$got"; return ;; esac
    done
    ok "completion $what"
}
check commands "round op run train sweep plot demo check theory" srlab ""
check "commands by prefix" "reproduce" srlab re
check "options of round" "--compact --samples --seed --format" srlab round --
check "options of demo" "--term --plot --table" srlab demo --
check "formats after -f" "bf16 fp16 e4m3 e5m2 fp32" srlab round 0.1 -f ""
check "modes after -r" "rn sr sr-eq rz" srlab op add 1 2 -r ""
check "run problems" "harmonic sum matvec" srlab run --problem ""
check "train problems" "quad1d gpt mlp" srlab train --problem ""
check "strategies" "bf16-sr bf16-rn mp fp32" srlab train --strategy ""
check "figures" "lr_sweep sum_error stall" srlab plot ""
check "variables of a figure after --set" "by= where= a= xstar= p= debug=" srlab plot stall --in x.csv --set ""
check "spec names" "summation stall gpt_lr" srlab sweep ""
got=$(comp srlab train --problem s)
case " $got" in *" gpt "*) bad "prefix filter: gpt completes 's'" ;; *) ok "completion filters by prefix" ;; esac
exit $fail
