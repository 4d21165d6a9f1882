#!/bin/sh
# tests/cli/reproduce_validate.sh SRLAB: srlab reproduce validates every argument before any work
# (issue 12, item 11): a name in --checks that srlab check does not know, with an experiment
# selected, is refused at once (exit 2, naming it) and no report folder is created; before, every
# experiment ran and the check step failed at the end.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup reproduce-validate "$1"
usage_head="reproduce --only stall"
usage_tail="-o rp"
usage_error "--checks T99" "--checks: unknown check 'T99'" --checks T99
usage_error "--checks with one unknown name" "--checks: unknown check 'T5'" --checks T01,T05a,T5
usage_error "--checks, bad --threads" "--threads" --checks T01 --threads 0
usage_error "--only unknown" "nosuch" --only nosuch --checks T01
if [ -e rp ]; then bad "a refused reproduce created its folder"; else ok "no folder created"; fi
# a known list passes the validation (it would then run: stop at the first step with a bad -o)
"$srlab" reproduce --only stall --checks T01,t05a,none-such-no 2>stderr >/dev/null -o /nonexistent/x
if grep -q "unknown check 'none-such-no'" stderr; then ok "the whole list is read"
else bad "list: $(cat stderr)"; fi
"$srlab" reproduce --only stall --checks T01,T05a -o /nonexistent/x 2>stderr >/dev/null
if grep -q "checks" stderr; then bad "T01,T05a refused: $(cat stderr)"; else ok "known names pass"; fi
exit $fail
