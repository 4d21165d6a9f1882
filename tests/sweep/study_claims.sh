#!/bin/sh
# tests/sweep/study_claims.sh SRLAB SRCDIR: every number of docs/study.md recomputed from the
# files it ships in docs/study/ (issue 30, item 2), so that neither the data nor the statistics
# can drift from the page. Each number is computed here (awk over the runs, rows and summary
# files, and srlab compare for the paired statistics) and printed as the page prints it; the
# page, its lines joined, must contain that text. A number the page states that no line below
# recomputes is a bug of this test: the page's sections are covered in order.
#   setup    the model's parameter count (srlab train, 0 steps), f* of seeds 1 and 2
#   scan     the 2-seed table of 8 rates, the lost-update table, what the scan shows
#   gpt16    the 16-seed means table, the paired table (mean, se, eq, mdd), the verdicts, the
#            equivalence counts at margins 0.01 and 0.0044, the tuned comparison, 2x and 4x, the
#            paper's margin at this loss and the interval of tuned bf16-sr - tuned mp, the high
#            rates, theory/T14's rate comparison
#   mlp      the resolved comparisons with mp, at best
#   replicas shared bit-identical, the differing fraction, measured over predicted distance,
#            independent - shared
#   memory   the bytes-per-parameter row against srlab theory T13
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
cli_setup study-claims "$1"
d=$src/docs/study
tr '\n' ' ' <"$src/docs/study.md" | tr -s ' ' >page.txt

claim() { # WHAT TEXT: the page says TEXT
    if grep -qF -- "$2" page.txt; then ok "$1: $2"; else bad "$1: the page lacks '$2'"; fi
}
# q FILE BODY: awk over a CSV file's data lines with c["column"] the column's index
q() {
    awk -F, "function sg(x, f,  s) { s = sprintf(f, x); if (substr(s, 1, 1) == \"-\") s = \"−\" substr(s, 2); return s }
             /^#/ { next } !h { for (i = 1; i <= NF; i++) c[\$i] = i; h = 1; next } $2" "$1"
}

# ---- setup ----
"$srlab" train --problem gpt --n-layer 2 --n-embd 64 --n-head 4 --block-size 32 --batch-size 16 \
    --vocab 16 --markov-order 2 --steps 0 -o p.csv || bad "train --steps 0"
n=$(sed -n 's/^# model: \([0-9]*\) trainable parameters.*/\1/p' p.csv)
claim "parameters" "A GPT of $(echo "$n" | sed 's/\(...\)$/ \1/') parameters"
claim "f*" "$(q "$d/gpt16.runs.csv" '$c["seed"] <= 2 && !s[$c["seed"]]++ { printf "%s%.4f", (k++ ? " and " : ""), $c["final_fstar"] }') nats for seeds 1 and 2"

# the runs' settings, as their '# command:' lines record them
cmd=$(sed -n 's/^# command: //p' "$d/gpt16.runs.csv")
for k in "--opt adamw" "--steps 1500" "--schedule cosine" "--warmup 100" "--wd 0.1" "--n-layer 2" \
    "--n-head 4" "--n-embd 64" "--block-size 32" "--batch-size 16" "--vocab 16" "--markov-order 2" \
    "--strategy fp32,mp,bf16-rn,bf16-sr,bf16-kahan" "--lr 8e-3,1.6e-2,3.2e-2,6.4e-2" "--seeds 16"; do
    echo " $cmd " | grep -qF -- " $k " || bad "gpt16 runs were not made with $k"
done
claim "setup" "(2 blocks, width 64, 4 heads, context 32, batch 16) trained for 1500 AdamW steps (warm-up 100, cosine, weight decay 0.1)"
cmd=$(sed -n 's/^# command: //p' "$d/gpt_replicas.csv")
for k in "--strategy bf16-sr" "--lr 4e-3" "--steps 1200" "--replicas 4" "--sr-seed shared,independent" "--seeds 8"; do
    echo " $cmd " | grep -qF -- " $k " || bad "the replicas runs were not made with $k"
done
claim "replicas setup" "Four data-parallel replicas of the same GPT under \`bf16-sr\` (lr 4e-3, 1200 steps, 8 seeds;"
cmd=$(sed -n 's/^# command: //p' "$d/mlp_teacher.runs.csv")
for k in "--opt adamw" "--steps 3000" "--lr 1e-3:1.28e-1:log:8" "--depth 2" "--width 64" "--activation relu" "--seeds 4"; do
    echo " $cmd " | grep -qF -- " $k " || bad "the mlp runs were not made with $k"
done
claim "mlp setup" "(16-64-64-4, ReLU, AdamW, 3000 steps, 4 seeds, 8 learning rates;"
grep -q '10\.05' "$src/theory/paper.md" && grep -q '10\.11' "$src/theory/paper.md" &&
    claim "the paper's numbers" "validation perplexity 10.05 for bf16 with SR against 10.11 for mixed precision" ||
    bad "theory/paper.md does not give 10.05 and 10.11"

# ---- scan: 8 rates, 2 seeds ----
scan=$d/gpt_lr.runs.csv
cmd=$(sed -n 's/^# command: //p' "$scan")
for k in "--steps 1500" "--n-layer 2" "--n-embd 64" "--lr 5e-4:6.4e-2:log:8" "--seeds 2" \
    "--strategy fp32,mp,bf16-rn,bf16-sr,bf16-kahan"; do
    echo " $cmd " | grep -qF -- " $k " || bad "the scan's runs were not made with $k"
done
[ "$(grep -vc '^#' "$scan")" -eq 81 ] && ok "scan: 80 runs" || bad "scan runs file rows"
# the rates as the page writes them, in the files' order
rates='split("0.0005 0.001 0.002 0.004 0.008 0.016 0.032 0.064", L, " "); split("5e-4 1e-3 2e-3 4e-3 8e-3 1.6e-2 3.2e-2 6.4e-2", W, " ")'
q "$scan" '{ k = $c["strategy"] SUBSEP $c["lr"]; g = $c["final_val_loss"] - $c["final_fstar"]; s[k] += g; n[k]++
             e[$c["strategy"], $c["lr"], $c["seed"]] = g }
    END { '"$rates"'; split("fp32 mp bf16-rn bf16-sr bf16-kahan", S, " ")
          row = "| peak lr |"; for (j = 1; j <= 8; j++) row = row " " W[j] " |"; print row
          row = "|---|"; for (j = 1; j <= 8; j++) row = row "---|"; print row
          for (i = 1; i <= 5; i++) { best = 9
              for (j = 1; j <= 8; j++) { m[j] = s[S[i], L[j]] / n[S[i], L[j]]; if (m[j] < best) { best = m[j]; bj[i] = j } }
              row = "| `" S[i] "` |"
              for (j = 1; j <= 8; j++) { t = sprintf("%.3f", m[j]); row = row " " (j == bj[i] ? "**" t "**" : t) " |" }
              print row }
          lo = 9; hi = 0
          for (j = 1; j <= 2; j++) for (sd = 1; sd <= 2; sd++) for (i = 1; i <= 5; i++) if (S[i] != "bf16-rn") {
              r = e["bf16-rn", L[j], sd] / e[S[i], L[j], sd]; if (r < lo) lo = r; if (r > hi) hi = r }
          printf "RATIO %.0f-%.0f%% larger\n", 100 * (lo - 1), 100 * (hi - 1)
          for (i = 1; i <= 5; i++) printf "BEST %s %s\n", S[i], W[bj[i]]
          lo = 9; hi = 0; for (i = 1; i <= 5; i++) if (S[i] != "bf16-rn") { x = s[S[i], "0.064"] / 2; if (x < lo) lo = x; if (x > hi) hi = x }
          printf "HIGH %.3f against %.3f-%.3f %.17g\n", s["bf16-rn", "0.064"] / 2, lo, hi, s["bf16-rn", "0.064"] / 2 - lo }' >scan.txt
grep '^|' scan.txt >scan_gaps.txt
while IFS= read -r l; do claim "scan" "$l"; done <scan_gaps.txt
claim "scan: bf16-rn at small rates" "its gap $(sed -n 's/^RATIO //p' scan.txt) than every other strategy's at 5e-4 and 1e-3 on each seed"
[ "$(sed -n 's/^BEST //p' scan.txt | tr '\n' ' ')" = "fp32 8e-3 mp 8e-3 bf16-rn 4e-3 bf16-sr 8e-3 bf16-kahan 8e-3 " ] &&
    claim "scan: best rates" "every strategy does best at 8e-3 but \`bf16-rn\`, at 4e-3" || bad "scan best rates: $(grep BEST scan.txt)"
sed -n 's/^HIGH \([^ ]* against [^ ]*\) \(.*\)/\1 \2/p' scan.txt | {
    read -r a b c d
    [ "$(echo "$d < 0" | awk '{ print ($1 < 0) }')" = 1 ] || bad "scan: bf16-rn is not the best at 6.4e-2"
    claim "scan: 6.4e-2" "the best there on the scan's two seeds ($a $b $c)"; }
q "$d/gpt_lr.csv" '$c["step"] > 0 { k = $c["strategy"] SUBSEP $c["lr"]; s[k] += $c["lost_update_frac"]; n[k]++; st[$c["step"]] }
    END { '"$rates"'; split("bf16-rn bf16-sr bf16-kahan", S, " ")
          ns = 0; for (k in st) ns++; printf "STEPS %d\n", ns
          row = "| peak lr |"; for (j = 1; j <= 8; j++) row = row " " W[j] " |"; print row
          for (i = 1; i <= 3; i++) { row = "| `" S[i] "` |"
              for (j = 1; j <= 8; j++) row = row sprintf(S[i] == "bf16-kahan" ? " %.3f |" : " %.2f |", s[S[i], L[j]] / n[S[i], L[j]])
              print row }
          for (j = 1; j <= 8; j++) for (i = 1; i <= 2; i++) { x = s[i == 1 ? "fp32" : "mp", L[j]] / n[i == 1 ? "fp32" : "mp", L[j]]; if (x > z) z = x }
          printf "FP32 at most %.2f%% of the updates\n", 100 * z }' >lost.txt
grep '^|' lost.txt >scan_lost.txt
while IFS= read -r l; do claim "lost updates" "$l"; done <scan_lost.txt
claim "lost updates" "the mean over the two seeds and the $(sed -n 's/^STEPS //p' lost.txt) logged steps after step 0"
claim "lost updates: fp32 and mp" "$(sed -n 's/^FP32 //p' lost.txt)"

# ---- gpt16: the means table ----
runs=$d/gpt16.runs.csv
[ "$(grep -vc '^#' "$runs")" -eq 321 ] && ok "320 runs and the column line" || bad "runs file rows"
q "$runs" '{ k = $c["strategy"] SUBSEP $c["lr"]; g = $c["final_val_loss"] - $c["final_fstar"]
             n[k]++; s[k] += g; ss[k] += g * g; dv += $c["diverged"] }
    END { split("fp32 mp bf16-rn bf16-sr bf16-kahan", S, " "); split("8e-3 1.6e-2 3.2e-2 6.4e-2", L, " ")
          for (i = 1; i <= 5; i++) {
              best = 1e9
              for (j = 1; j <= 4; j++) { k = S[i] SUBSEP L[j]; m[j] = s[k] / n[k]; if (m[j] < best) best = m[j] }
              row = "| `" S[i] "` |"
              for (j = 1; j <= 4; j++) { t = sprintf(m[j] < 0.1 ? "%.4f" : "%.3f", m[j]); row = row " " (m[j] == best ? "**" t "**" : t) " |" }
              print row
              for (j = 1; j <= 2; j++) { k = S[i] SUBSEP L[j]; sd = sqrt((ss[k] - n[k] * m[j] * m[j]) / (n[k] - 1)); if (!lo || sd < lo) lo = sd; if (sd > hi) hi = sd }
          }
          printf "standard deviation over seeds %.3f-%.3f, a standard error of about %.3f per cell\n", lo, hi, (lo + hi) / 2 / 4
          printf "diverged %d\n", dv }' >means.txt
while IFS= read -r l; do
    case $l in "diverged 0") claim "no run diverged" "No run diverged" ;;
    diverged*) bad "runs diverged: $l" ;; *) claim "16-seed mean" "$l" ;; esac
done <means.txt

# ---- gpt16: the paired table, verdicts, equivalence ----
"$srlab" compare "$runs" --baseline mp --margin 0.01 -o mp.csv 2>err || bad "compare exit $?: $(cat err)"
grep -q '16 comparisons, 0 resolved.*; 8 equivalent within 0.01' err &&
    claim "none resolved, 8 equivalent within 0.01" "None of the 16 differences is significant after correction" ||
    bad "against mp: $(cat err)"
q mp.csv '{ k = $c["level"] SUBSEP $c["lr"]; m[k] = $c["mean_diff"]; e[k] = $c["se"]; eq[k] = $c["eq_bound"]
            md[k] = $c["mdd"]; t[k] = $c["t"]; p[k] = $c["p"]; ph[k] = $c["p_holm"]
            if ($c["lr"] ~ /^(8e-3|1.6e-2)$/) { v = $c["equivalence"] == "equivalent"; ne += v
                if (!elo || eq[k] < elo) elo = eq[k]; if (eq[k] > ehi) ehi = eq[k] } }
    END { split("fp32 bf16-rn bf16-sr bf16-kahan", S, " "); split("8e-3 1.6e-2 3.2e-2 6.4e-2", L, " ")
          for (i = 1; i <= 4; i++) { row = "| `" S[i] "` − `mp` |"
              for (j = 1; j <= 4; j++) { k = S[i] SUBSEP L[j]
                  row = row " " (j <= 2 ? sg(m[k], "%+.4f") " ± " sprintf("%.4f (eq %.4f)", e[k], eq[k]) : sg(m[k], "%+.3f") " ± " sprintf("%.3f", e[k])) " |" }
              print row }
          row = "| mdd (power 0.8) |"
          for (j = 1; j <= 4; j++) { lo = 1e9; hi = 0
              for (i = 1; i <= 4; i++) { x = md[S[i] SUBSEP L[j]]; if (x < lo) lo = x; if (x > hi) hi = x }
              row = row sprintf(j <= 2 ? " %.4f-%.4f |" : " %.3f-%.3f |", lo, hi) }
          print row
          printf "shows all %s comparisons at 8e-3 and 1.6e-2 equivalent to `mp` (their bounds are %.4f-%.4f)\n", ne == 8 ? "eight" : ne, elo, ehi
          k = "bf16-kahan" SUBSEP "1.6e-2"
          printf "`bf16-kahan` at 1.6e-2 (+%.4f, t = %.2f, p_holm = %.3f)\n", m[k], t[k], ph[k]
          a = "bf16-rn" SUBSEP "8e-3"; b = "bf16-rn" SUBSEP "1.6e-2"
          printf "trails `mp` by %.4f-%.4f at both rates (t = %.2f and %.2f, p = %.3f and %.3f before correction, p_holm = %.2f and %.2f)\n", m[a], m[b], t[a], t[b], p[a], p[b], ph[a], ph[b]
          printf "(`fp32` 0.158 against `mp`%s 0.103: %s ± %.3f)\n", "\047s", sg(m["fp32" SUBSEP "3.2e-2"], "%+.3f"), e["fp32" SUBSEP "3.2e-2"] }' >paired.txt
while IFS= read -r l; do claim "paired" "$l"; done <paired.txt
# the smallest corrected p is the one named
[ "$(q mp.csv '{ print $c["p_holm"], $c["level"], $c["lr"] }' | sort -g | head -1 | cut -d' ' -f2-)" = "bf16-kahan 1.6e-2" ] &&
    ok "the smallest corrected p is bf16-kahan at 1.6e-2" || bad "the smallest corrected p is another"
"$srlab" compare "$runs" --baseline mp --margin 0.0044 -o eq44.csv 2>err || bad "margin 0.0044 exit $?"
[ "$(q eq44.csv '$c["equivalence"] == "equivalent" { print $c["level"], $c["lr"] }')" = "bf16-sr 8e-3" ] &&
    claim "within 0.0044 only bf16-sr at 8e-3" "only \`bf16-sr\` at 8e-3 is shown equivalent (\`--margin 0.0044\`)" ||
    bad "equivalent within 0.0044: $(q eq44.csv '$c["equivalence"] == "equivalent" { print $c["level"], $c["lr"] }')"

# ---- gpt16: tuned against tuned, 2x and 4x, the paper's margin ----
"$srlab" compare "$runs" --baseline mp --at-best lr -o best.csv 2>err || bad "at-best exit $?"
q best.csv '$c["level"] == "bf16-sr" { printf "`mp`%s best is %s and `bf16-sr`%s is %s", "\047s", $c["lr_baseline"], "\047s", $c["lr_level"]
    printf "|the difference is %s ± %.4f (mdd %.4f): not resolved", sg($c["mean_diff"], "%+.4f"), $c["se"], $c["mdd"]
    # 95% interval on 15 degrees of freedom: t_{0.975,15} = 2.131449546 (gsl_cdf_tdist_Pinv(0.975, 15))
    printf "|[%s, %s]\n", sg($c["mean_diff"] - 2.131449546 * $c["se"], "%+.4f"), sg($c["mean_diff"] + 2.131449546 * $c["se"], "%+.4f") }' |
    sed 's/\[+/[/' | tr '|' '\n' >best.txt
grep -q 'not resolved$' best.txt || bad "tuned bf16-sr against tuned mp is resolved"
while IFS= read -r l; do claim "tuned" "$l"; done <best.txt
sh "$src/experiments/gpt16_paper.sh" "$runs" "$srlab" >paper.csv 2>err || bad "gpt16_paper.sh exit $?"
grep -q '4 comparisons, 3 resolved' err && ok "2x/4x: 3 of 4 resolved" || bad "2x/4x: $(cat err)"
q paper.csv '{ v[$c["lr"]] = $c["mean_diff"]; e[$c["lr"]] = $c["se"]; r[$c["lr"]] = $c["verdict"] }
    END { printf "worse by %.3f ± %.3f, and at four times by %.2f\n", v["mp1.6e-2:sr2x"], e["mp1.6e-2:sr2x"], v["mp1.6e-2:sr4x"]
          printf "twice is %s ± %.4f (not resolved) and four times %s ± %.3f (worse)\n", sg(v["mp8e-3:sr2x"], "%+.4f"), e["mp8e-3:sr2x"], sg(v["mp8e-3:sr4x"], "%+.3f"), e["mp8e-3:sr4x"]
          if (r["mp8e-3:sr2x"] != "not resolved" || r["mp8e-3:sr4x"] != "higher" || r["mp1.6e-2:sr2x"] != "higher" || r["mp1.6e-2:sr4x"] != "higher") print "VERDICTS " r["mp8e-3:sr2x"] }' >paper.txt
while IFS= read -r l; do case $l in VERDICTS*) bad "2x/4x verdicts: $l" ;; *) claim "2x, 4x" "$l" ;; esac; done <paper.txt
# the paper: validation perplexity 10.05 (bf16 with SR) against 10.11 (mixed precision)
loss=$(q "$runs" '$c["strategy"] == "mp" && $c["lr"] == "1.6e-2" { s += $c["final_val_loss"]; n++ } END { printf "%.17g", s / n }')
awk -v L="$loss" 'BEGIN { d = log(10.11 / 10.05); l = log(10.05)
    printf "a ratio of %.3f, that is %.4f nats, %.2f%% of its loss (ln 10.05 = %.2f nats)\n", 10.11 / 10.05, d, 100 * d / l, l
    printf "The same share of this model%ss loss (%.2f nats, `mp` at its best rate) is %.4f nats\n", "\047", L, d / l * L
    printf "excludes an SR advantage of %.4f nats\n", d / l * L }' >margin.txt
while IFS= read -r l; do claim "the paper's margin" "$l"; done <margin.txt

# ---- gpt16: high rates, theory/T14 ----
q "$runs" '$c["lr"] == "3.2e-2" { n[$c["strategy"]] += $c["final_val_loss"] - $c["final_fstar"] > 0.1 }
    END { lo = 99; for (s in n) { if (n[s] < lo) lo = n[s]; if (n[s] > hi) hi = n[s] }
          printf "(%d-%d of the 16 seeds of every strategy end above 0.1)\n", lo, hi }' >high.txt
q "$runs" '$c["lr"] == "6.4e-2" { s[$c["strategy"]] += $c["final_val_loss"] - $c["final_fstar"]; n[$c["strategy"]]++ }
    END { printf "(%.3f; `fp32` %.3f, `bf16-sr` %.3f, `bf16-kahan` %.3f, `mp` %.3f)\n", s["bf16-rn"] / 16, s["fp32"] / 16, s["bf16-sr"] / 16, s["bf16-kahan"] / 16, s["mp"] / 16 }' >>high.txt
q "$runs" '$c["lr"] == "3.2e-2" { g = $c["final_val_loss"] - $c["final_fstar"]; k = $c["strategy"]
        if (!(k in lo) || g < lo[k]) lo[k] = g; if (!(k in hi) || g > hi[k]) hi[k] = g }
    END { for (k in lo) { if (lo[k] > mlo) mlo = lo[k]; if (!a || hi[k] < a) a = hi[k]; if (hi[k] > b) b = hi[k] }
          printf "ranges over the seeds from below %.3f to %.2f-%.2f\n", (int(mlo * 1000) + 1) / 1000, a, b }' >>high.txt
while IFS= read -r l; do claim "high rates" "$l"; done <high.txt
"$srlab" compare "$runs" --axis lr --baseline 8e-3 -o lr.csv 2>err || bad "compare --axis lr exit $?"
q lr.csv '{ k = $c["strategy"] SUBSEP $c["level"]; m[k] = $c["mean_diff"]; e[k] = $c["se"]; md[k] = $c["mdd"]; v[k] = $c["verdict"] }
    END { a = "bf16-sr" SUBSEP "1.6e-2"; b = "bf16-rn" SUBSEP "1.6e-2"
          printf "(`bf16-sr` 1.6e-2 − 8e-3 = %s ± %.4f, mdd %.4f; `bf16-rn` %s ± %.4f, mdd %.4f)\n", sg(m[a], "%+.4f"), e[a], md[a], sg(m[b], "%+.4f"), e[b], md[b]
          split("fp32 mp bf16-rn bf16-sr bf16-kahan", S, " "); lo = 9
          for (i = 1; i <= 5; i++) { if (v[S[i] SUBSEP "6.4e-2"] != "higher") print "NOT " S[i] " 6.4e-2"
              x = m[S[i] SUBSEP "3.2e-2"]; if (x < lo) lo = x; if (x > hi) hi = x; if (v[S[i] SUBSEP "3.2e-2"] != "not resolved") print "NOT " S[i] " 3.2e-2" }
          printf "3.2e-2 is worse in the mean for every strategy (%+.3f to %+.3f), not resolved after correction\n", lo, hi }' >t14.txt
while IFS= read -r l; do case $l in NOT*) bad "T14 verdicts: $l" ;; *) claim "theory/T14" "$l" ;; esac; done <t14.txt

# ---- mlp ----
"$srlab" compare "$d/mlp_teacher.runs.csv" --baseline mp -o mlp.csv 2>err || bad "mlp compare exit $?"
grep -q '24 comparisons, 4 resolved' err && ok "mlp: 24 comparisons, 4 resolved" || bad "mlp: $(cat err)"
q mlp.csv '$c["verdict"] != "not resolved" { printf "%s %s %s %+.3f\n", $c["level"], $c["lr"], $c["verdict"], $c["mean_diff"] }' >mlp.txt
[ "$(cut -d' ' -f1-3 mlp.txt | tr '\n' ' ')" = "bf16-rn 0.001 higher bf16-rn 0.002 higher bf16-rn 0.004 higher bf16-sr 0.002 higher " ] &&
    ok "mlp: the four resolved comparisons" || bad "mlp resolved: $(cat mlp.txt)"
claim "mlp" "(+$(awk 'NR == 1 { printf "%.3f", $4 }' mlp.txt | tr -d +) at 1e-3, $(awk 'NR == 2 { print $4 }' mlp.txt) at 2e-3, $(awk 'NR == 3 { print $4 }' mlp.txt) at 4e-3, resolved), \`bf16-sr\`'s at 2e-3 ($(awk 'NR == 4 { print $4 }' mlp.txt), resolved)"
"$srlab" compare "$d/mlp_teacher.runs.csv" --baseline mp --at-best lr -o mlpbest.csv 2>err || bad "mlp at-best exit $?"
grep -q '3 comparisons, 0 resolved' err || bad "mlp at best: $(cat err)"
claim "mlp at best" "$(q mlpbest.csv '{ x = $c["mdd"]; if (!lo || x < lo) lo = x; if (x > hi) hi = x } END { printf "is not resolved either (mdd %.3f-%.3f)", lo, hi }')"

# ---- replicas ----
rows=$d/gpt_replicas.csv
claim "replicas: shared" "$(q "$rows" '$c["sr-seed"] == "shared" { n++; z += $c["replica_div"] == 0; s[$c["step"]]; d[$c["seed"]] }
    END { ns = 0; for (k in s) ns++; nd = 0; for (k in d) nd++; if (z == n) printf "exactly 0 in all %d logged rows (%d steps of %d seeds)", n, ns, nd }')"
q "$rows" '$c["sr-seed"] == "independent" && $c["step"] ~ /^(25|50|1200)$/ { st = $c["step"]
        m[st] += $c["replica_d2"]; p[st] += $c["replica_d2_pred"]; r = $c["replica_d2"] / $c["replica_d2_pred"]
        if (st == 1200) { if (!lo || r < lo) lo = r; if (r > hi) hi = r }
        if (st == 25 && (!f || $c["replica_diff_frac"] < f)) f = $c["replica_diff_frac"] }
    END { printf "%.1f%% of the weights differ after 25 steps\n", 100 * f
          printf "%.3f at step 25, %.3f at step 50 and %.3f at step 1200 (%.3f-%.3f for single seeds at step 1200)\n", m[25] / p[25], m[50] / p[50], m[1200] / p[1200], lo, hi }' >rep.txt
while IFS= read -r l; do claim "replicas" "$l"; done <rep.txt
"$srlab" compare "$d/gpt_replicas.runs.csv" --axis sr-seed --baseline shared -o rep.csv 2>err || bad "replicas compare exit $?"
claim "replicas: independent - shared" "$(q rep.csv '{ printf "is %s ± %.4f (mdd %.4f): %s at %d seeds", sg($c["mean_diff"], "%+.4f"), $c["se"], $c["mdd"], $c["verdict"], $c["pairs"] }')"

# ---- memory ----
claim "memory" "$("$srlab" theory T13 opt=adamw | awk '$1 ~ /^(fp32|mp|bf16-rn|bf16-sr|bf16-sr-exact|bf16-kahan)$/ { row = row " " $NF " |" }
    END { print "| bytes per parameter |" row }')"
exit $fail
