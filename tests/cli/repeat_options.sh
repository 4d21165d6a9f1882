#!/bin/sh
# tests/cli/repeat_options.sh SRLAB: the one repeated-option rule (src/cli/cli.h), command by
# command. A single-valued option or a flag given twice, by either of its names, is refused with
# exit status 2 naming the option, before any work and without writing anything; an option whose
# placeholder ends in "..." (sweep --zip, plot --set, reproduce --only) may repeat. Every command
# `srlab --help` lists must have a case here, so a new command cannot escape the rule.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup repeat "$1"
covered=" help "
twice() { # twice COMMAND OPTION ARGS...: refused, naming OPTION, nothing written
    cmd=$1 opt=$2
    shift 2
    covered="$covered$cmd "
    usage_error "$cmd: $opt twice" "$opt.*given twice" "$cmd" "$@"
    rm -f ./*.png
}
may_repeat() { # may_repeat COMMAND OPTION ARGS...: whatever else happens, not "given twice"
    cmd=$1 opt=$2
    shift 2
    "$srlab" "$cmd" "$@" >stdout 2>stderr
    if grep -q "given twice" stderr; then bad "$cmd: $opt is repeatable: $(cat stderr)"
    else ok "$cmd: $opt may repeat"; fi
}

twice formats --csv --csv --csv
twice round -f 1 -f bf16 --format fp16
twice op -r add 1 2 -r sr --rounding rz
twice run -o --problem harmonic -o a.csv -o b.csv
twice run --n --problem harmonic --n 10 --n 20
twice train --problem --problem quad1d --problem lsq
twice train -o --problem quad1d --steps 2 -o a.csv -o b.csv
twice train -f --problem quad1d --steps 2 -f bf16 -f fp16
twice sweep -o --problem quad1d --steps 2 --dry-run -o a.csv -o b.csv
twice sweep --lr --problem quad1d --steps 2 --dry-run --lr 0.1 --lr=0.2
twice sweep --resume --problem quad1d --steps 2 --dry-run --resume --resume
twice merge -o a.csv -o x.csv -o y.csv
twice compare --baseline x.runs.csv --baseline a --baseline b
twice plot --in stall --in a.csv --in b.csv -o x.png
twice plot -o stall --in a.csv -o x.png -o y.png
twice theory format T01 format=bf16 format=fp16
twice check --seeds --seeds 3 --seeds 4 T01
twice reproduce --checks --checks T01 --checks T02 -o rp
twice bench --csv --csv --csv
twice demo --n accumulate --n 10 --n 20

may_repeat sweep --zip --problem quad1d --steps 2 --lr 0.1,0.2 --seed 1,2 --momentum 0,0.5 \
    --zip lr,seed --zip lr,momentum --dry-run
may_repeat plot --set stall --in nosuch.csv --set a=1 --set b=2 -o x.png
may_repeat reproduce --only --only nosuch --only other -o rp

for c in $("$srlab" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
    case $covered in
    *" $c "*) ;;
    *) bad "command $c has no repeated-option case here" ;;
    esac
done
exit $fail
