#!/bin/sh
# tests/check/cli_check.sh SRLAB: `srlab check` from the outside (suite cli).
#   Bad input (an unknown check id, a bad --seeds, -o into a missing directory, a bad
#   --mutate): exit status 2, one line on standard error naming the argument, nothing on
#   standard output, an existing -o FILE untouched. --list and --help: exit 0.
#   A passing run (T13: allocation accounting, instant): exit 0, the CSV header exactly
#   id,what,measured,ci_lo,ci_hi,predicted,margin,result and one row per check.
#   A mutated run (every check must FAIL): exit 1, the CSV written with FAIL rows.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup check "$1"
usage_head=check
header='id,what,measured,ci_lo,ci_hi,predicted,margin,result'

usage_error "unknown id" "^srlab check: unknown check 'T99'; known: T01a T01b .* T13f" T99 -o out.csv
usage_error "unknown id among known" "unknown check 'nope'" T01a nope -o out.csv
usage_error "seeds 0" "^srlab check: --seeds: '0'" --seeds 0 -o out.csv
usage_error "seeds 1" "^srlab check: --seeds: '1'" --seeds 1 -o out.csv
usage_error "seeds text" "^srlab check: --seeds: 'many'" --seeds many -o out.csv
usage_error "seeds negative" "^srlab check: --seeds: '-3'" --seeds -3 -o out.csv
usage_error "seeds too many" "^srlab check: --seeds: '100001'" --seeds 100001 -o out.csv
usage_error "seeds missing value" "seeds" T13 --seeds
usage_error "output missing dir" "directory '/nonexistent-srlab-dir' does not exist" T13 -o /nonexistent-srlab-dir/x.csv
usage_error "output is a directory" "names a directory" T13 -o .
usage_error "unknown option" "frobnicate" --frobnicate -o out.csv
usage_error "bad mutate" "^srlab check: --mutate: 'sometimes' is not experiment, prediction, bug" --mutate sometimes -o out.csv
usage_error "mutate without one" "none of the selected checks has a mutation" T03a --mutate experiment -o out.csv

# --help, --list
if "$srlab" check --help >help.txt 2>err.txt && grep -q '^usage: srlab check' help.txt && [ ! -s err.txt ]; then
    ok "--help"
else
    bad "--help"
fi
if "$srlab" check --list >list.txt 2>err.txt && grep -q '^  T05c ' list.txt &&
    grep -q 'mutation test (experiment)' list.txt && [ ! -s err.txt ] &&
    [ "$(grep -c 'minimum detectable effect: ' list.txt)" -eq "$(grep -c '^  T[0-9][0-9][a-z] ' list.txt)" ] &&
    ! grep -q 'NOT STATED' list.txt; then
    ok "--list"
else
    bad "--list: $(cat err.txt)"
fi

# a passing run: exit 0, the exact header, one row per check, all PASS
"$srlab" check T13 t05b --quick -o out.csv >stdout 2>stderr
rc=$?
rows=$(tail -n +2 out.csv | wc -l)
if [ $rc -ne 0 ]; then
    bad "T13 T05b: exit $rc: $(cat stderr)"
elif [ "$(head -1 out.csv)" != "$header" ]; then
    bad "CSV header '$(head -1 out.csv)'"
elif [ "$rows" -ne 7 ] || [ "$(grep -c ',PASS$' out.csv)" -ne 7 ]; then
    bad "T13 T05b: $rows rows, $(grep -c ',PASS$' out.csv) PASS"
elif ! grep -q '^T13f  PASS ' stdout || ! grep -q '^7 checks: 7 PASS, 0 FAIL' stdout; then
    bad "T13 table: $(cat stdout)"
else
    ok "passing run: exit 0, header, 7 rows"
fi

# -o -: the CSV on standard output instead of the table
"$srlab" check T13a -o - >stdout 2>stderr
if [ $? -eq 0 ] && [ "$(head -1 stdout)" = "$header" ] && [ "$(wc -l <stdout)" -eq 2 ]; then
    ok "-o -"
else
    bad "-o -: $(cat stdout) $(cat stderr)"
fi

# a mutated run: every check FAILs, exit 1, the CSV still written
"$srlab" check T13 T08b --mutate experiment -o out.csv >stdout 2>stderr
rc=$?
if [ $rc -ne 1 ]; then
    bad "mutated run: exit $rc (want 1): $(cat stderr)"
elif [ "$(grep -c ',FAIL$' out.csv)" -ne 7 ] || [ "$(head -1 out.csv)" != "$header" ]; then
    bad "mutated run CSV: $(cat out.csv)"
else
    ok "mutated run: exit 1, 7 FAIL rows"
fi
# --mutate bug: without the built-in defects (the default build), a usage error naming the
# option; with them (-Dmutants=true), ties-away is caught by T01c (a probe) and a check that
# cannot see it leaves it undetected (exit 1)
if "$srlab" check --list | grep -q 'this build has them'; then
    "$srlab" check T01c --quick --mutate bug=ties-away -o out.csv >stdout 2>stderr
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q '^ties-away  *T01c  *probe ' stdout ||
        [ "$(head -1 out.csv)" != "$header" ] || ! grep -q '^T01c,"\?DEFECT ties-away' out.csv; then
        bad "--mutate bug=ties-away: exit $rc $(cat stdout) $(cat stderr) $(cat out.csv)"
    else
        ok "--mutate bug=ties-away: caught by T01c"
    fi
    "$srlab" check T13a --quick --mutate bug=ties-away >stdout 2>stderr
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q '^ties-away  *UNDETECTED ' stdout; then
        bad "--mutate bug on T13a: exit $rc $(cat stdout) $(cat stderr)"
    else
        ok "--mutate bug: exit 1 while a defect is undetected"
    fi
    usage_error "unknown defect" "^srlab check: --mutate: 'nope' is not a built-in defect" --mutate bug=nope
else
    usage_error "bug without defects" "^srlab check: --mutate bug: this srlab was built without the defects" --mutate bug
fi
exit $fail
