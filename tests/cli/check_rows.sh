#!/bin/sh
# tests/cli/check_rows.sh SRLAB: what srlab check's rows say (issue 13, item 10).
#  - a PASS on an exact check (T13: bytes per parameter, counted) shows 'exact' in the margin
#    column, not a margin 0 that the help calls "on the edge"; the help says what each number
#    means in each kind of check;
#  - a --mutate row says what ran: T05c's mutation writes the weights with rn, so its row says
#    MUTATED (write with rn instead of sr) and "written with rn", never "bf16-sr weights".
. "$(dirname "$0")/../cli_lib.sh"
cli_setup check-rows "$1"

"$srlab" check T13 --quick >t13.txt 2>err.txt || bad "check T13: exit $?: $(cat err.txt)"
rows=$(grep -c '^T13[a-z]* *PASS' t13.txt)
ex=$(grep '^T13[a-z]* *PASS' t13.txt | grep -c ' exact  *any  *bytes\| exact  *any  *[a-z]')
[ "$rows" -ge 1 ] && [ "$rows" = "$ex" ] && ok "T13: $rows exact PASS rows say 'exact' in the margin column" ||
    bad "T13 exact rows: $rows rows, $ex say exact: $(head -5 t13.txt)"
grep -q '^T13.* PASS .* 0  ' t13.txt && bad "T13 still shows margin 0" || ok "T13: no margin 0 on an exact PASS"
"$srlab" check T13 --quick -o t13.csv >/dev/null 2>&1
awk -F, 'NR > 1 && $(NF - 1) != 0 { bad = 1 } END { exit bad }' t13.csv && ok "T13 CSV keeps margin 0 (numeric)" ||
    bad "T13 CSV margin changed"
"$srlab" check --help >help.txt
for w in "  interval  (a statistical check)" "  exact     measured and predicted are equal" \
         "'exact' (PASS) or 'differ' (FAIL)" "  bound     measured" "MUTATED (WHAT RAN INSTEAD)"; do
    grep -qF -- "$w" help.txt && ok "help: $w" || bad "help lacks '$w'"
done

"$srlab" check T05c --quick --mutate experiment >mut.txt 2>err.txt
rc=$?
[ $rc -eq 1 ] && ok "T05c mutated FAILs (exit 1)" || bad "T05c --mutate experiment: exit $rc: $(cat err.txt)"
grep -q '^T05c.*MUTATED (write with rn instead of sr)' mut.txt && ok "mutated row names the mutation" ||
    bad "mutated row: $(grep '^T05c' mut.txt)"
grep '^T05c' mut.txt | grep -q 'bf16-sr weights' && bad "mutated row still says bf16-sr weights" ||
    ok "mutated row does not claim bf16-sr weights"
grep '^T05c' mut.txt | grep -q 'bf16 weights written with rn' && ok "mutated row says the weights were written with rn" ||
    bad "mutated row lacks 'written with rn'"
"$srlab" check T05c --quick >plain.txt 2>&1 || bad "T05c unmutated fails"
grep '^T05c' plain.txt | grep -q 'MUTATED' && bad "an unmutated row says MUTATED" || ok "unmutated row unmarked"
exit $fail
