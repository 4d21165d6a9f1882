#!/bin/sh
# tests/cli/teach.sh SRLAB: teaching (issue 13, item 5), outside-in through the command.
#  - demo accumulate says where its one sr run lies among many (its z-score, recomputed here
#    from the printed mean and standard deviation) instead of calling it "noise of a few ulps";
#  - demos take the knobs -f, --n, --term (accumulate), --lr (gd, replicas); a knob a demo lacks
#    is refused naming it (exit 2);
#  - --plot FILE draws the picture (a PNG), --table FILE writes the points gnuplot plotted:
#    the figure check reads those points;
#  - srlab round/op --compact fit 80 columns with short numbers (p_up 0.8, not
#    0.8000000000000114);
#  - srlab run --problem sum --const C adds a constant term.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup teach "$1"
has() { grep -qF -- "$2" "$1" && ok "$3" || bad "$3 (no '$2' in $1)"; }
hasnt() { grep -qF -- "$2" "$1" && bad "$3 ('$2' in $1)" || ok "$3"; }

# --- accumulate: the run's position among the runs
"$srlab" demo accumulate >acc.txt 2>err.txt || bad "demo accumulate: $(cat err.txt)"
hasnt acc.txt "noise of a" "accumulate no longer calls the run noise of a few ulps"
has acc.txt "standard deviations from that mean" "accumulate states the run's z-score"
# Recompute z = (run - mean) / sd from the printed numbers; it must match the printed z.
awk '
/^   Their mean is / { mean = $4; sd = $7 }
/The run of step 3 ends at/ { run = $8; sub(/,$/, "", run); z = $9 }
END {
    if (mean == "" || sd == "" || run == "") { print "missing numbers"; exit 1 }
    want = (run - mean) / sd
    if (want - z > 0.01 || z - want > 0.01) { print "z " z " but (run-mean)/sd = " want; exit 1 }
    if (z < 2) { print "the default run is no longer the unusual one (z " z ")"; exit 1 }
}' acc.txt >awk.txt 2>&1 && ok "accumulate: the printed z-score is (run - mean) / sd and > 2 (the issue's run)" ||
    bad "accumulate z-score: $(cat awk.txt)"
has acc.txt "an unusual run" "accumulate calls a run beyond 2 sd unusual"
has acc.txt "200 more sr runs" "accumulate shows the spread of many runs"

# --- knobs: fp16, term 1e-4, 500 additions. fp16(1e-4) = 0x1.a38p-14 = 0.0001000165939331054688
# (nearest of 1e-4 = 0x1.a36e2...p-14 with 10 fraction bits); ulp(1) = 2^-10, the term covers
# 0.1024 of it < 1/2: rn stuck at 1; exact after 500: 1 + 500 t = 1.0500082969665527.
"$srlab" demo accumulate --term 1e-4 -f fp16 --n 500 >k.txt 2>err.txt || bad "knobs: $(cat err.txt)"
has k.txt "Adding 0.0001 to 1.0 500 times in fp16" "accumulate --term -f --n in the headline"
has k.txt "(0x1.a38p-14)" "the term rounded into fp16"
has k.txt "covers 0.1024 of that gap" "the fraction of the fp16 gap"
grep -Eq '^ +500  1  ' k.txt && ok "rn stuck at 1 after 500 fp16 additions" ||
    bad "rn stuck at 1 after 500 fp16 additions (no row 500 with rn 1 in k.txt)"
has k.txt "1.0500082969665527" "the exact fp16 sum after 500 terms"
"$srlab" demo harmonic -f fp16 --n 2000 >h16.txt 2>err.txt || bad "harmonic fp16: $(cat err.txt)"
# fp16: the sum reaches 7.0859375 (ulp 2^-8) at k = 513: 1/513 < 2^-9 is lost.
has h16.txt "at k = 513 the sum is 7.0859375" "harmonic -f fp16 stagnates at k = 513"
"$srlab" demo gd --lr 0.001 --n 500 >gd.txt 2>err.txt || bad "gd --lr: $(cat err.txt)"
has gd.txt "learning rate 0.001" "gd --lr"
"$srlab" demo replicas --n 50 -f fp16 >rep.txt 2>err.txt || bad "replicas knobs: $(cat err.txt)"
has rep.txt "(fp16 weights)" "replicas -f fp16"
usage_error "harmonic has no --term" "--term: harmonic has no such knob" demo harmonic --term 1e-4
usage_error "accumulate has no --lr" "--lr: accumulate has no such knob" demo accumulate --lr 0.1
usage_error "--n 0 refused" "--n: '0'" demo accumulate --n 0
usage_error "--n beyond its maximum" "--n: '100001'" demo accumulate --n 100001
usage_error "--term -1 refused" "--term: '-1' is not positive" demo accumulate --term -1
usage_error "--term that overflows the format" "--term: 1e+300 times 5 overflows fp16 (largest 65504)" \
    demo accumulate --term 1e300 -f fp16 --n 5
# 1 + 1e-30 is not a binary64 number: the demo must not call the rounded double the exact sum
# (it lies in (1, 1.0078125) in bf16, a fraction 1.278e-28 of the gap, computed exactly).
"$srlab" demo accumulate --term 1e-30 --n 10 >tiny.txt 2>err.txt || bad "tiny term: $(cat err.txt)"
has tiny.txt "1 + t ~ 1 lies between the" "a tiny term: 1 + t is between 1 and the next bf16"
has tiny.txt "covers 1.278e-28 of that gap" "a tiny term: its fraction of the gap"
usage_error "-f unknown" "-f" demo gd -f nope
usage_error "--plot without a figure suffix" "--plot: 'x.txt'" demo harmonic --plot x.txt
usage_error "--plot in a missing folder" "--plot" demo harmonic --plot /nonexistent-srlab/x.png

# --- pictures
if command -v gnuplot >/dev/null 2>&1; then
    for d in accumulate harmonic gd replicas; do
        "$srlab" demo $d --plot $d.png >out.$d 2>err.txt
        if [ $? -eq 0 ] && [ "$(head -c 4 $d.png | od -An -c | tr -d ' ')" = "211PNG" ]; then
            ok "demo $d --plot draws a PNG"
        else bad "demo $d --plot: $(cat err.txt)"; fi
        has out.$d "The picture: $d.png" "demo $d names its picture"
    done
    ls -A | grep -q '\.tmp-' && bad "a temporary file is left" || ok "no temporary file left"
    # harmonic bf16: the points gnuplot plotted. Block 1 (rn) ends flat at 5.0625 (stagnation at
    # k = 65); block 0 (exact) ends at H_10000 = 9.787606; block 2 (sr) within 2% of it.
    "$srlab" demo harmonic --table h.tab >/dev/null 2>err.txt || bad "harmonic --table: $(cat err.txt)"
    awk '
    /^#/ || NF == 0 { if (NF == 0 && seen) { blank++; seen = 0 } next }
    { seen = 1; b = blank + 0; last[b] = $2; x[b] = $1; n[b]++ }
    END {
        if (n[0] < 50 || n[0] != n[1] || n[1] != n[2]) { print "blocks " n[0] " " n[1] " " n[2]; exit 1 }
        if (x[0] != 10000) { print "last k " x[0]; exit 1 }
        if (last[1] != 5.0625) { print "rn ends at " last[1]; exit 1 }
        if (last[0] < 9.7876 || last[0] > 9.7877) { print "exact ends at " last[0]; exit 1 }
        r = last[2] / last[0]; if (r < 0.98 || r > 1.02) { print "sr ends at " last[2]; exit 1 }
    }' h.tab >awk.txt 2>&1 && ok "harmonic --table: rn flat at 5.0625, exact H_10000, sr within 2%" ||
        bad "harmonic table: $(cat awk.txt)"
    # accumulate: the band of the 200 runs holds the exact line at every plotted k (block 0 is
    # the band: k lo hi; block 1 the exact line).
    "$srlab" demo accumulate --table a.tab >/dev/null 2>err.txt || bad "accumulate --table: $(cat err.txt)"
    awk '
    /^#/ || NF == 0 { if (NF == 0 && seen) { blank++; seen = 0 } next }
    { seen = 1 }
    blank + 0 == 0 { lo[$1] = $2; hi[$1] = $3; nb++ }
    blank == 1 { ex[$1] = $2; ne++ }
    END {
        if (nb < 100 || ne < 100) { print "points " nb " " ne; exit 1 }
        for (k in ex) if (k in lo && (ex[k] < lo[k] || ex[k] > hi[k])) { print "exact outside the band at k " k; exit 1 }
    }' a.tab >awk.txt 2>&1 && ok "accumulate --table: the exact sum lies in the runs' 2-sd band" ||
        bad "accumulate table: $(cat awk.txt)"
else
    echo "SKIP: gnuplot is not installed: --plot and --table are not tested"
fi

# --- compact view of round and op
"$srlab" round 0.1 1e-3 -3.3e38 inf 0x1p-140 -f bf16 -r sr --compact --samples 1000 >c.txt 2>err.txt || bad "round --compact: $(cat err.txt)"
awk 'length($0) > 80 { print NR ": " length($0); bad = 1 } END { exit bad }' c.txt >awk.txt &&
    ok "round --compact fits 80 columns" || bad "round --compact too wide: $(cat awk.txt)"
grep -q 'p_up 0\.8$' c.txt && ok "round --compact: p_up 0.8, short" || bad "round --compact: no 'p_up 0.8'"
hasnt c.txt "0.8000000000000114" "round --compact: no 17-digit p_up"
# op: 1 + 0.0001 in bf16: ulp(1) = 2^-7, the exact sum covers 0.0128 of it: p_up 0.0128
"$srlab" op add 1 0.0001 -f bf16 -r sr --compact >o.txt 2>err.txt || bad "op --compact: $(cat err.txt)"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' o.txt && ok "op --compact fits 80 columns" ||
    bad "op --compact too wide"
grep -q 'p_up 0\.0128$' o.txt && ok "op --compact: p_up 0.0128" || bad "op --compact: no 'p_up 0.0128'"
has o.txt "a 1, b 0.0001" "op --compact: the operands"
"$srlab" op add 1 0.0001 -f bf16 -r sr >ofull.txt 2>&1
has ofull.txt "0.012800000000000001" "op without --compact keeps the full digits"
usage_error "--compact with --batch" "--compact" round --batch --compact

# --- run --problem sum with a constant term: n terms all equal to bf16(0.001) = 0x1.06p-10, so
# the exact sum of 1000 is 1000 * 0x1.06p-10 = 0.99945068359375, and rn stagnates (the demo's
# lesson as rows).
"$srlab" run --problem sum --dist const:0.001 --n 1000 -f bf16 -r rn >s.csv 2>err.txt ||
    bad "run sum --dist const: $(cat err.txt)"
awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    { lastk = $c["k"]; lastex = $c["exact"]; last = $c["sum"]; d = $c["dist"] }
    END { if (lastk != 1000) { print "last k " lastk; exit 1 }
          if (lastex != "0.99945068359375") { print "exact " lastex; exit 1 }
          if (d != "const:0.001") { print "dist column " d; exit 1 }
          if (last + 0 >= 0.9) { print "rn did not stagnate: " last; exit 1 } }' s.csv >awk.txt 2>&1 &&
    ok "run --problem sum --dist const:0.001: exact sum n t, rn stagnates" || bad "sum const: $(cat awk.txt)"
usage_error "--dist const:x refused" "dist: const:T needs a finite number T: 'x'" run --problem sum --dist const:x
usage_error "--dist unknown lists const:T" "const:T" run --problem sum --dist nope
"$srlab" run --problem sum --help | grep -q 'const:T' && ok "run --problem sum --help: const:T" ||
    bad "sum help lacks const:T"
exit $fail
