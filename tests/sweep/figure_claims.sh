#!/bin/sh
# tests/sweep/figure_claims.sh SRLAB SRCDIR FIGURE: what a figure of experiments/*.ini says it
# shows (the spec's header, and the figure's own labels), recomputed from the data it drew. The
# quick sweep of the spec runs (seconds), the figure is drawn by the spec's own `srlab plot` line
# with --set debug=FILE (what gnuplot drew: ranges, predicted lines), and the claims are checked on
# the sweep's files and on that record, so that neither the data nor the drawing can drift from
# the caption. One meson test per figure (tests/sweep/meson.build). Skipped (77) without gnuplot.
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
fig=$3
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
cli_setup "figure-$fig" "$1"
[ -z "${SRL_FIGKEEP:-}" ] || trap - EXIT
export SOURCE_DATE_EPOCH=1700000000

# sweep SPEC: the quick sweep of experiments/SPEC.ini into SPEC.csv (and .runs.csv, .summary.csv)
# (further arguments override the spec: a shorter run where the claim does not need the length)
sweep() {
    spec=$1
    shift
    "$srlab" sweep "$src/experiments/$spec.ini" --quick --quiet -o "$spec.csv" "$@" 2>err ||
        { bad "sweep $spec: exit $?: $(cat err)"; exit 1; }
}
# draw SPEC FIGURE [--set ...]: the spec's figure line for FIGURE.png, OUT replaced by SPEC, with
# --set debug=FIGURE.debug and any further arguments; the PNG is kept for a look (SRL_FIGDIR)
draw() {
    spec=$1 name=$2
    shift 2
    line=$(sed -n "s/^#.*\(srlab plot .* -o $name\.png.*\)/\1/p" "$src/experiments/$spec.ini" |
        sed 's/  *(plots\/[a-z_]*\.gp)$//')
    [ -n "$line" ] || { bad "experiments/$spec.ini has no figure $name.png"; exit 1; }
    eval "set -- $(echo "$line" | sed "s/OUT/$spec/g; s/^srlab //") \"\$@\""
    rm -f "$name.debug"
    "$srlab" "$@" --set "debug=$name.debug" 2>err || { bad "$line: exit $?: $(cat err)"; exit 1; }
    [ -s "$name.png" ] && ok "$name.png drawn by its spec's line" || bad "$name.png empty"
    [ -z "${SRL_FIGDIR:-}" ] || cp "$name.png" "$SRL_FIGDIR/"
}
# svgtext SPEC FIGURE: the texts of the figure drawn again as an SVG by the spec's line
svgtext() {
    sspec=$1 sname=$2
    line=$(sed -n "s/^#.*\(srlab plot .* -o $sname\.png.*\)/\1/p" "$src/experiments/$sspec.ini" | sed 's/  *(plots\/[a-z_]*\.gp)$//')
    eval "set -- $(echo "$line" | sed "s/OUT/$sspec/g; s/^srlab //; s/-o $sname\.png/-o $sname.svg/")"
    "$srlab" "$@" 2>err || { bad "$line as SVG: $(cat err)"; return; }
    grep -o '<tspan[^>]*>[^<]*</tspan>' "$sname.svg" | sed 's/<[^>]*>//g'
}
# col FILE NAME: the column number of NAME in FILE's header (the first line not opening with '#')
col() { awk -F, -v n="$2" '!/^#/ { for (i = 1; i <= NF; i++) if ($i == n) { print i; exit } exit }' "$1"; }

# mx_paired SPEC FIGURE NSEEDS T NCMP: the lower panel of plots/mx_gemm.gp as drawn for FIGURE
# (FIGURE.debug, after draw): each series' paired mean difference from its own mx=off over NSEEDS
# seeds and its 95% t interval (T the quantile for NSEEDS - 1 degrees of freedom), recomputed
# from the runs, and the panel's words: a 95% t interval over NCMP comparisons
mx_paired() {
    r=$1.runs.csv fg=$2
    shift
    awk -F, -v cs="$(col $r strategy)" -v cm="$(col $r mx)" -v cv="$(col $r final_val_loss)" -v cf="$(col $r final_fstar)" \
        -v cd="$(col $r seed)" -v ns="$2" -v t="$3" \
        '!/^#/ && $1 != "run" { v[$cs, $cm, $cd] = $cv - $cf; if (!($cs in gs)) { gs[$cs] = ++ng; sn[ng] = $cs } if (!($cm in xs)) { xs[$cm] = ++nx; xn[nx] = $cm } }
        END { for (g = 1; g <= ng; g++) for (x = 1; x <= nx; x++) if (xn[x] != "off") { a = 0; q = 0; bm = 0
                  for (d = 1; d <= ns; d++) { e = v[sn[g], xn[x], d] - v[sn[g], "off", d]; a += e; q += e * e; bm += v[sn[g], "off", d] }
                  m = a / ns; hw = t * sqrt((q - a * a / ns) / (ns - 1)) / sqrt(ns); bm /= ns
                  printf "%d %d %.10g %.10g %.10g %.10g\n", g, x, m, m - hw, m + hw, 100 * (m - hw) / bm } }' $r >want.txt
    awk -F, 'f && $1 != "g" && NF >= 9 { print $1, $2, $3, $4, $5, $8 } $0 == "diff" { f = 1 }' $fg.debug >got.txt
    [ "$(wc -l <want.txt)" -eq "$4" ] && awk 'NR == FNR { w[$1 " " $2] = $0; n++; next } { split(w[$1 " " $2], a, " ")
            for (i = 3; i <= 6; i++) if ((a[i] - $i)^2 > (1e-7 * (a[i] < 0 ? -a[i] : a[i]) + 1e-12)^2) b = 1; m++ }
        END { exit b || m != n }' want.txt got.txt && ok "$2 seeds: paired mean and 95% t interval per strategy against its off, as the runs give" ||
        bad "paired intervals: want $(tr '\n' '|' <want.txt) got $(tr '\n' '|' <got.txt)"
    svgtext ${r%.runs.csv} $fg >t.txt
    grep -q "^mean: mean and 95% t$" t.txt && grep -q "for the $4 comparisons)" t.txt && ok "$2 seeds: the panel says 95% t interval, $4 comparisons" ||
        bad "$2-seed panel label: $(tail -8 t.txt | tr '\n' '|')"
}

case $fig in
random_walk_lr)
    # The time to reach the target is censored; the summary gives the fraction that reached it
    # and the Kaplan-Meier median. Recomputed here from the runs file (a run without a time is
    # censored at its last step), with the exact gradient-descent time of quad1d
    # t = ln(|x0 - x*| / d) / -ln(1 - lr a), d = sqrt(2 target / a) (a 1, x* 0.3, x0 1).
    sweep random_walk
    draw random_walk random_walk_lr
    r=random_walk.runs.csv s=random_walk.summary.csv
    awk -F, -v cs="$(col $r strategy)" -v cl="$(col $r lr)" -v ct="$(col $r steps_to_target)" \
        -v cn="$(col $r last_step)" '!/^#/ && $1 != "run" {
            k = $cs "," $cl; n[k]++; t[k, n[k]] = ($ct == "" ? $cn : $ct); e[k, n[k]] = ($ct != "") }
        END { for (k in n) { m = n[k]; reach = 0
                for (i = 1; i <= m; i++) reach += e[k, i]
                # Kaplan-Meier: the first event time with S <= 1/2
                S = 1; med = ""; done_ = 0
                while (!done_) { tmin = ""; for (i = 1; i <= m; i++) if (e[k, i] && !u[k, i] && (tmin == "" || t[k, i] < tmin)) tmin = t[k, i]
                    if (tmin == "") break
                    risk = 0; d = 0
                    for (i = 1; i <= m; i++) { if (t[k, i] >= tmin) risk++; if (e[k, i] && t[k, i] == tmin) { d++; u[k, i] = 1 } }
                    S *= 1 - d / risk; if (S <= 0.5) { med = tmin; done_ = 1 } }
                printf "%s,%d,%s\n", k, reach, med } }' $r | sort >km.txt
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cr="$(col $s steps_to_target_reached)" \
        -v cm="$(col $s steps_to_target_median)" '!/^#/ && $1 != "problem" { print $cs "," $cl "," $cr "," $cm }' $s |
        sort >summ.txt
    [ -s km.txt ] && cmp -s km.txt summ.txt && ok "fraction reached and Kaplan-Meier median recomputed from the runs: $(tr '\n' ' ' <km.txt)" ||
        bad "runs give $(tr '\n' ' ' <km.txt), the summary drew $(tr '\n' ' ' <summ.txt)"
    # the dashed line drawn is the exact time; fp32 reaches the target at it (rounded up to the
    # logging step, 50) wherever all its runs do; bf16-sr's interval reaches down to it
    awk '$1 == "line" { lr = $2; want = log(0.7 / sqrt(2e-5)) / -log(1 - lr); bad += ($3 - want)^2 > (1e-9 * want)^2 }
         END { exit bad || NR < 3 }' random_walk_lr.debug && ok "the dashed line is the exact GD time" ||
        bad "the line drawn: $(grep line random_walk_lr.debug | tr '\n' '|')"
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cf="$(col $s steps_to_target_frac)" \
        -v cm="$(col $s steps_to_target_median)" -v clo="$(col $s steps_to_target_median_lo)" \
        '!/^#/ && $1 != "problem" { gd = log(0.7 / sqrt(2e-5)) / -log(1 - $cl); g50 = 50 * int(gd / 50 + 1)
            if ($cs == "fp32" && $cf == 1) { nf++; if ($cm != g50) { print "fp32 at " $cl ": " $cm " not " g50; b = 1 } }
            if ($cs == "bf16-sr" && $clo != "") { ns++; if ($clo > g50) { print "bf16-sr at " $cl ": interval from " $clo " above " g50; b = 1 } } }
        END { exit b || nf < 2 || ns < 3 }' $s >why.txt &&
        ok "fp32's median is the exact time; bf16-sr's interval reaches down to it at every lr" ||
        bad "against the exact time: $(cat why.txt)"
    # the median falls as lr grows, for each strategy (where it is defined)
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cm="$(col $s steps_to_target_median)" \
        '!/^#/ && $1 != "problem" && $cm != "" { if (($cs in last) && !($cl > lastlr[$cs] && $cm < last[$cs])) b = 1
            last[$cs] = $cm; lastlr[$cs] = $cl; n++ } END { exit b || n < 4 }' $s &&
        ok "the median falls as lr grows" || bad "medians: $(cat summ.txt | tr '\n' ' ')"
    ;;
stall)
    # RN freezes at d(lr) = s / (2 lr a), s the spacing of the first binade (from x0 = 1 down)
    # that holds x* + d, at most x0 - x*; after its last move within [d (1 - 2 lr a), d]. a 1,
    # x* 0.3, bf16 (p 8): binade [0.5, 1) spacing 2^-8, x*'s [0.25, 0.5) 2^-9.
    sweep stall
    draw stall stall
    s=stall.summary.csv r=stall.runs.csv
    awk '$1 == "line" { lr = $2; d = 2^-8 / (2 * lr); if (0.3 + d < 0.5) d = 2^-9 / (2 * lr); if (d > 0.7) d = 0.7
            n++; if (($3 - d)^2 > (1e-12 * d)^2 || ($4 - d * (1 - 2 * lr))^2 > (1e-12 * d)^2) { print "at " lr ": " $3 ", " $4 " not " d; b = 1 } }
         END { exit b || n < 7 }' stall.debug >why.txt && ok "the prediction drawn: s / (2 lr a) in the binade where RN stops" ||
        bad "prediction drawn: $(cat why.txt)"
    # every RN point in the band; at some lr above the old line ulp(x*)/(2 lr a) by 1.5x or more
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cd="$(col $s final_dist_to_opt_mean)" '
        FILENAME ~ /debug/ { if ($0 ~ /^line /) { split($0, w, " "); hi[w[2] + 0] = w[3]; lo[w[2] + 0] = w[4] } next }
        !/^#/ && $cs == "bf16-rn" { n++; l = $cl + 0; if (!(l in hi) || $cd > hi[l] * (1 + 1e-12) || $cd < lo[l] * (1 - 1e-12)) { print "RN at " $cl ": " $cd " outside [" lo[l] ", " hi[l] "]"; b = 1 }
            if ($cd > 1.5 * 2^-9 / (2 * l)) { above++; ex = ex " " $cl ": " $cd " against " 2^-9 / (2 * l) } }
        END { print "higher binade at" ex; exit b || n < 7 || above < 1 }' FS=' ' stall.debug FS=, $s >why.txt &&
        ok "every RN point in its band; $(tail -1 why.txt)" || bad "RN against the prediction: $(cat why.txt)"
    # SR: every run that had time to arrive (lr T >= 20) ends on a grid neighbour of x*
    # (g0 = 153 2^-9, g1 = 154 2^-9), whatever the learning rate
    awk -F, -v cs="$(col $r strategy)" -v cl="$(col $r lr)" -v cd="$(col $r final_dist_to_opt)" \
        -v cn="$(col $r last_step)" '!/^#/ && $cs == "bf16-sr" && $cl * $cn >= 20 { n++
            if (($cd - (0.3 - 153 * 2^-9))^2 > 1e-20 && ($cd - (154 * 2^-9 - 0.3))^2 > 1e-20) { print "seed at " $cl ": " $cd; b = 1 } }
        END { exit b || n < 16 }' $r >why.txt && ok "SR ends on a grid neighbour of x* at every lr" ||
        bad "SR's last points: $(cat why.txt)"
    ;;
stall_lr)
    # The final loss gap: RN's a/2 d(lr)^2 (stall above) with its band; SR's mean excess loss
    # a/2 (x* - g0)(g1 - x*) = 4.58e-7 (x* 0.3, g0 = 153 2^-9, g1 = 154 2^-9), each run at g0
    # or g1 (theory/T05's two-state chain), whatever the learning rate.
    sweep stall
    draw stall stall_lr
    s=stall.summary.csv
    awk '$1 == "line" { lr = $2; d = 2^-8 / (2 * lr); if (0.3 + d < 0.5) d = 2^-9 / (2 * lr); if (d > 0.7) d = 0.7
            sr = 0.5 * (0.3 - 153 * 2^-9) * (154 * 2^-9 - 0.3); n++
            if (($3 - d * d / 2)^2 > (1e-12 * d * d)^2 || ($4 - (d * (1 - 2 * lr))^2 / 2)^2 > (1e-12 * d * d)^2 || ($5 - sr)^2 > (1e-12 * sr)^2) { print "at " lr ": " $0; b = 1 } }
         END { exit b || n < 7 }' stall_lr.debug >why.txt && ok "the lines drawn: RN a/2 d^2 and its band, SR a/2 (x* - g0)(g1 - x*)" ||
        bad "lines drawn: $(cat why.txt)"
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cm="$(col $s final_loss_gap_mean)" -v cn="$(col $s final_loss_gap_n)" '
        FILENAME ~ /debug/ { if ($0 ~ /^line /) { split($0, w, " "); hi[w[2] + 0] = w[3]; lo[w[2] + 0] = w[4] } next }
        !/^#/ && $cs == "bf16-rn" { n++; l = $cl + 0; if (!(l in hi) || $cm > hi[l] * (1 + 1e-9) || $cm < lo[l] * (1 - 1e-9)) { print "RN at " $cl ": " $cm; b = 1 } }
        !/^#/ && $cs == "bf16-sr" && $cl * 5000 >= 20 { g0 = 0.5 * (0.3 - 153 * 2^-9)^2; g1 = 0.5 * (154 * 2^-9 - 0.3)^2
            if ($cm < g1 * (1 - 1e-9) || $cm > g0 * (1 + 1e-9)) { print "SR at " $cl ": " $cm; b = 1 } sum += $cm * $cn; m += $cn }
        END { sr = 0.5 * (0.3 - 153 * 2^-9) * (154 * 2^-9 - 0.3); printf "SR mean %.3g against %.3g\n", sum / m, sr
            exit b || n < 7 || m < 16 || sum / m < 0.5 * sr || sum / m > 1.5 * sr }' FS=' ' stall_lr.debug FS=, $s >why.txt &&
        ok "RN in its band at every lr; SR between its two states, $(tail -1 why.txt)" || bad "gaps: $(cat why.txt)"
    ;;
srrn)
    # The model curves drawn and the crossover are srlab theory T14's; SR's interval lies wholly
    # below RN's at every lr below lr_c / 1.4, RN is frozen at x0 for lr <= 5e-4, and above
    # 2 lr_c RN's and SR's intervals overlap. (Whether each interval covers its model is not
    # asked: the strategies share their seeds' noise, so the misses come together at one lr.)
    sweep srrn
    draw srrn srrn
    s=srrn.summary.csv
    th=$("$srlab" theory T14 | awk '$1 == "crossover_lr" { print $2 }')
    awk -v th="$th" '$1 == "lrc" { f = 1; exit !(th > 0 && ($2 - th)^2 < (1e-9 * th)^2) } END { exit !f }' srrn.debug &&
        ok "lr_c drawn at srlab theory T14's crossover_lr $th" || bad "lr_c: $(grep lrc srrn.debug), theory $th"
    : >model.txt
    for lr in $(awk '$1 == "line" { print $2 }' srrn.debug); do
        "$srlab" theory T14 "lr=$lr" | awk -v lr="$lr" '$1 ~ /^excess_/ { v[$1] = $2 } END { print "line", lr, v["excess_exact"], v["excess_rn"], v["excess_sr"] }' >>model.txt
    done
    awk 'NR == FNR { for (i = 3; i <= 5; i++) m[$2 + 0, i] = $i; next } $1 == "line" { n++
            for (i = 3; i <= 5; i++) if (!(($2 + 0, i) in m) || ($i - m[$2 + 0, i])^2 > (1e-9 * $i)^2) { print "at " $2 ": " $i " against " m[$2 + 0, i]; b = 1 } }
         END { exit b || n < 8 }' model.txt srrn.debug >why.txt && ok "the models drawn are srlab theory T14's at every lr" ||
        bad "models: $(cat why.txt)"
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cm="$(col $s final_loss_gap_mean)" -v clo="$(col $s final_loss_gap_ci95_lo)" \
        -v chi="$(col $s final_loss_gap_ci95_hi)" -v lrc="$th" '
        !/^#/ && $cs != "strategy" { l = $cl + 0
            if ($cs == "bf16-rn") { rlo[l] = $clo; rhi[l] = $chi; rm[l] = $cm } if ($cs == "bf16-sr") { slo[l] = $clo; shi[l] = $chi } }
        END { for (l in rlo) { if (l < lrc / 1.4) { nb++; if (!(shi[l] < rlo[l])) { print "SR not below RN at " l; b = 1 } }
                  if (l <= 5e-4) { nf++; if ((rm[l] - 0.03125)^2 > 1e-20) { print "RN not frozen at " l ": " rm[l]; b = 1 } }
                  if (l > 2 * lrc) { no++; if (shi[l] < rlo[l] || rhi[l] < slo[l]) { print "RN and SR apart at " l; b = 1 } } }
              exit b || nb < 3 || nf < 2 || no < 3 }' $s >why.txt &&
        ok "SR below RN for lr < lr_c / 1.4, RN frozen at x0 for lr <= 5e-4, RN and SR within each other's intervals above 2 lr_c" ||
        bad "data: $(cat why.txt)"
    ;;
heat)
    # fp16 (u = 2^-11), r = 1/4, t = 1/16. The lines drawn: RN's worst case t u / dt, SR's
    # small-h law u sqrt(S(t) / (8 pi^2 r h)) (h = sqrt(dt / r), S(t) = pi^2/6 - sum_k e^(-2 pi^2 k^2 t) / k^2; theory/T15), the stagnated level (1 - e^(-pi^2 t))/sqrt 2.
    # RN stays below t u / dt and from m = 128 on is the stagnated level (within 1%); SR stays
    # below its law, grows like dt^-1/4 (least-squares slope of log error on log dt within
    # [-0.4, -0.1]), and its interval lies below RN at every m >= 32.
    sweep heat
    draw heat heat
    s=heat.summary.csv
    awk 'function S_t(t,  k, s) { s = atan2(0, -1)^2 / 6; for (k = 1; k <= 1000; k++) s -= exp(-2 * atan2(0, -1)^2 * k^2 * t) / k^2; return s }
         $1 == "line" { S = S_t(1 / 16); dt = $2; u = 2^-11; h = sqrt(dt / 0.25); n++; fr = (1 - exp(-atan2(0, -1)^2 / 16)) / sqrt(2)
            if (($3 - u / 16 / dt)^2 > (1e-12 * $3)^2 || ($4 - u * sqrt(S / (8 * atan2(0, -1)^2 * 0.25 * h)))^2 > (1e-12 * $4)^2 || ($5 - fr)^2 > 1e-24) { print "at " dt ": " $0; b = 1 } }
         END { exit b || n < 5 }' heat.debug >why.txt && ok "the lines drawn: t u / dt, u sqrt(S(t) / (8 pi^2 r h)), the whole decay" ||
        bad "lines: $(cat why.txt)"
    awk -F, -v cr="$(col $s rounding)" -v cm_="$(col $s m)" -v cd="$(col $s final_dt_mean)" -v ce="$(col $s final_rms_err_mean)" \
        -v clo="$(col $s final_rms_err_ci95_lo)" -v chi="$(col $s final_rms_err_ci95_hi)" '
        function S_t(t,  k, s) { s = atan2(0, -1)^2 / 6; for (k = 1; k <= 1000; k++) s -= exp(-2 * atan2(0, -1)^2 * k^2 * t) / k^2; return s }
        !/^#/ && $cr != "rounding" { S = S_t(1 / 16); u = 2^-11; dt = $cd; h = sqrt(dt / 0.25); fr = (1 - exp(-atan2(0, -1)^2 / 16)) / sqrt(2)
            if ($cr == "rn") { nr++; rn[$cm_] = $ce; if ($ce > u / 16 / dt) { print "RN above t u/dt at m " $cm_; b = 1 }
                if ($cm_ >= 128) { ns++; if (($ce - fr)^2 > (0.01 * fr)^2) { print "RN at m " $cm_ ": " $ce " not stagnated at " fr; b = 1 } } }
            if ($cr == "sr") { k++; m_[k] = $cm_; hi[k] = $chi; x = log(dt); y = log($ce); sx += x; sy += y; sxx += x * x; sxy += x * y
                if ($ce > u * sqrt(S / (8 * atan2(0, -1)^2 * 0.25 * h))) { print "SR above its law at m " $cm_; b = 1 } } }
        END { slope = (k * sxy - sx * sy) / (k * sxx - sx * sx); printf "SR slope %.3f\n", slope
              for (i = 1; i <= k; i++) if (m_[i] >= 32) { nw++; if (!(hi[i] < rn[m_[i]])) { print "SR not below RN at m " m_[i]; b = 1 } }
              exit b || nr < 5 || ns < 1 || k < 5 || nw < 3 || slope < -0.4 || slope > -0.1 }' $s >why.txt &&
        ok "RN under t u / dt, stagnated from m = 128; SR under its law, below RN from m = 32, $(tail -1 why.txt)" ||
        bad "heat data: $(cat why.txt)"
    ;;
weight_decay)
    # The decay alone (quad1d a = 0, x* = 0, x0 = 1; |x_T| is the distance to the optimum), bf16
    # (p 8): the threshold lr wd = 2^-9 marked at lr = 2^-9 / 0.1; the decay x0 (1 - lr wd)^T
    # drawn. wd = 0: every strategy at x0 exactly. wd = 0.1: RN at x0 exactly for lr <= the
    # threshold (lost) and below it above; fp32 on the decay (float32: 1e-4 relative); SR's mean on
    # it within 2.3 half-widths of its 95% interval (99.9% for 8 seeds). weight_decay_steps: RN
    # flat at 1 at lr 0.01.
    sweep weight_decay
    draw weight_decay weight_decay
    draw weight_decay weight_decay_steps
    s=weight_decay.summary.csv
    T=$(sed -n 's/^# command: .* --steps \([0-9]*\) .*/\1/p' $s)
    awk -v T="$T" '$1 == "mark" { nm++; if ($2 != 0.1 || ($3 - 2^-9 / 0.1)^2 > 1e-30) b = 1 }
         $1 == "decay" { nd++; want = (1 - $2 * $3)^T; if (($4 - want)^2 > (1e-12 * want)^2) { print "decay at " $2 ": " $4 " not " want; b = 1 } }
         END { exit b || nm != 1 || nd < 6 || T < 100 }' weight_decay.debug >why.txt &&
        ok "the threshold marked at lr = 2^-9 / wd, the decay (1 - lr wd)^T drawn ($T steps)" || bad "marks: $(cat why.txt) $(grep -e mark -e decay weight_decay.debug)"
    awk -F, -v T="$T" -v cs="$(col $s strategy)" -v cw="$(col $s wd)" -v cl="$(col $s lr)" -v cm="$(col $s final_dist_to_opt_mean)" \
        -v chi="$(col $s final_dist_to_opt_ci95_hi)" '!/^#/ && $cs != "strategy" { want = (1 - $cl * $cw)^T; n++
            if ($cw == 0) { n0++; if ($cm != 1) { print $cs " wd 0 lr " $cl ": " $cm; b = 1 } next }
            if ($cs == "bf16-rn") { if ($cl <= 2^-9 / $cw) { nl++; if ($cm != 1) { print "RN not lost at " $cl; b = 1 } } else if (!($cm < 1)) { print "RN lost above at " $cl; b = 1 } }
            if ($cs == "fp32" && ($cm - want)^2 > (1e-4 * want)^2) { print "fp32 at " $cl ": " $cm " not " want; b = 1 }
            if ($cs == "bf16-sr") { ns++; if (($cm - want)^2 > (2.3 * ($chi - $cm))^2 + (1e-9 * want)^2) { print "SR at " $cl ": " $cm " not " want; b = 1 } } }
        END { exit b || n0 < 18 || nl < 3 || ns < 6 }' $s >why.txt &&
        ok "wd 0 at x0; RN loses the decay up to the threshold, not above; fp32 and SR's mean on the decay" || bad "decay data: $(cat why.txt)"
    awk -F, -v cs="$(col weight_decay.csv strategy)" -v cw="$(col weight_decay.csv wd)" -v cl="$(col weight_decay.csv lr)" -v cd="$(col weight_decay.csv dist_to_opt)" \
        '!/^#/ && $cs == "bf16-rn" && $cw == 0.1 && $cl == 0.01 { n++; if ($cd != 1) b = 1 } END { exit b || n < 8 }' weight_decay.csv &&
        ok "weight_decay_steps: RN flat at 1 at lr 0.01" || bad "RN moved at lr 0.01"
    ;;
noisy_sgd)
    # The crosses drawn are the grid points where runs diverged, with their counts; RN stalls at
    # the smallest lr (its interval above 5x fp32's); SR's penalty over fp32, (SR - fp32)/fp32,
    # at the largest finite lr is under a fifth of its largest.
    sweep noisy_sgd
    draw noisy_sgd noisy_sgd
    s=noisy_sgd.summary.csv
    awk -F, -v cl="$(col $s lr)" -v cd="$(col $s diverged)" -v cn="$(col $s seeds)" '!/^#/ && !h { h = 1; next } !/^#/ && $cd > 0 { print $cl, $cd, $cn }' $s | sort >div_data.txt
    awk '$1 == "diverged" { print $3, $4, $5 }' noisy_sgd.debug | sort >div_drawn.txt
    [ -s div_data.txt ] && cmp -s div_data.txt div_drawn.txt && ok "a cross with k/n at every grid point where runs diverged: $(tr '\n' ' ' <div_drawn.txt)" ||
        bad "diverged points $(tr '\n' ' ' <div_data.txt), drawn $(tr '\n' ' ' <div_drawn.txt)"
    awk -F, -v cs="$(col $s strategy)" -v cl="$(col $s lr)" -v cm="$(col $s final_loss_gap_mean)" -v cn="$(col $s final_loss_gap_n)" \
        -v clo="$(col $s final_loss_gap_ci95_lo)" -v chi="$(col $s final_loss_gap_ci95_hi)" '!/^#/ && $cs != "strategy" && $cn > 0 {
            l = $cl + 0; m[$cs, l] = $cm; lo[$cs, l] = $clo; hi[$cs, l] = $chi; lrs[l] = 1 }
        END { lmin = 1e9; lmax = 0; for (l in lrs) { if (l < lmin) lmin = l; if (l > lmax) lmax = l
                  pen = (m["bf16-sr", l] - m["fp32", l]) / m["fp32", l]; if (pen > pmax) pmax = pen }
              plast = (m["bf16-sr", lmax] - m["fp32", lmax]) / m["fp32", lmax]
              printf "RN at lr %g: [%.3g, %.3g] against fp32 up to %.3g; SR penalty %.3g at lr %g, largest %.3g\n", lmin, lo["bf16-rn", lmin], hi["bf16-rn", lmin], hi["fp32", lmin], plast, lmax, pmax
              exit !(lo["bf16-rn", lmin] > 5 * hi["fp32", lmin] && plast < pmax / 5) }' $s >why.txt &&
        ok "$(cat why.txt)" || bad "noisy_sgd: $(cat why.txt)"
    ;;
mlp_lr|mlp_curves)
    # The MLP's loss is a mean squared error: the y axis says so, and never "nats" (the scripts
    # are the GPT's). A short run suffices for the labels.
    sweep mlp_teacher --steps 60 --warmup 10 --log-every 20 --seeds 1 --lr 1e-2,4e-2
    draw mlp_teacher "$fig"
    svgtext mlp_teacher "$fig" >t.txt
    grep -q "mean squared error" t.txt && ! grep -q nats t.txt && ok "$fig: the y axis is a mean squared error, no nats" ||
        bad "$fig labels: $(grep -i -e loss -e nats -e error t.txt | tr '\n' '|')"
    ;;
gpt_lr16)
    # The README's 16-seed GPT study (docs/study/, no sweep): the lower panel is what the
    # conclusions rest on, each strategy minus mp on the same seed, mean and 95% t interval
    # (t 2.1314 for 16 seeds; gnuplot's, from its ibeta, agrees to 1e-8), also in % of mp's mean
    # gap, recomputed here from the runs file; the
    # x tics are the four learning rates; the triangles' count in the key is the runs with gap <= 0.
    cp "$src/docs/study/gpt16.summary.csv" "$src/docs/study/gpt16.runs.csv" .
    "$srlab" plot gpt_lr --in gpt16.summary.csv -o gpt_lr16.png --set debug=gpt_lr16.debug 2>err && [ -s gpt_lr16.png ] &&
        ok "gpt_lr16.png drawn" || { bad "gpt_lr16: $(cat err)"; exit 1; }
    [ -z "${SRL_FIGDIR:-}" ] || cp gpt_lr16.png "$SRL_FIGDIR/"
    r=gpt16.runs.csv
    awk -F, -v cs="$(col $r strategy)" -v cl="$(col $r lr)" -v cd="$(col $r seed)" -v cv="$(col $r final_val_loss)" \
        -v cf="$(col $r final_fstar)" -v cx="$(col $r diverged)" '!/^#/ && $1 != "run" && $cx == 0 { v[$cs, $cl + 0, $cd] = $cv - $cf; st[$cs] = 1; lr[$cl + 0] = 1; sd[$cd] = 1 }
        END { for (s in st) if (s != "mp") for (l in lr) { n = 0; a = 0; q = 0; bm = 0; nb = 0
                  for (d in sd) { if (((s, l, d) in v) && (("mp", l, d) in v)) { x = v[s, l, d] - v["mp", l, d]; n++; a += x; q += x * x }
                                  if (("mp", l, d) in v) { bm += v["mp", l, d]; nb++ } }
                  m = a / n; hw = 2.1314495455597742 * sqrt((q - a * a / n) / (n - 1)) / sqrt(n); bm /= nb
                  printf "%s %.6g %d %.10g %.10g %.10g %.10g %.10g\n", s, l, n, m, m - hw, m + hw, 100 * (m - hw) / bm, 100 * (m + hw) / bm } }' $r | sort >want.txt
    awk -F, 'f && $1 != "g" && NF >= 9 { print $1, $2, $6, $3, $4, $5, $8, $9 } $0 == "diff" { f = 1 }' gpt_lr16.debug >got.txt
    names=$(sed -n 's/^# command: .* --strategy \([^ ]*\) .*/\1/p' gpt16.summary.csv | tr , ' ')
    awk -v names="$names" 'BEGIN { split(names, nm, " ") } { $1 = nm[$1]; printf "%s %.6g %d %.10g %.10g %.10g %.10g %.10g\n", $1, $2, $3, $4, $5, $6, $7, $8 }' got.txt | sort >got2.txt
    [ "$(wc -l <want.txt)" -eq 16 ] && awk 'NR == FNR { w[$1 " " $2] = $0; next } { split(w[$1 " " $2], a, " "); if (a[3] != $3) b = 1
            for (i = 4; i <= 8; i++) if ((a[i] - $i)^2 > (1e-7 * (a[i] < 0 ? -a[i] : a[i]) + (i >= 7 ? 1e-7 : 1e-10))^2) b = 1; n++ } END { exit b || n != 16 }' want.txt got2.txt &&
        ok "the paired-difference panel: 16 comparisons with mp recomputed from the runs (e.g. $(grep '^bf16-sr 0.016 ' want.txt | cut -d' ' -f1-6))" ||
        bad "paired differences: want $(head -3 want.txt | tr '\n' '|') got $(head -3 got2.txt | tr '\n' '|')"
    "$srlab" plot gpt_lr --in gpt16.summary.csv -o gpt_lr16.svg 2>err || bad "gpt_lr16 as SVG: $(cat err)"
    grep -o '<tspan[^>]*>[^<]*</tspan>' gpt_lr16.svg | sed 's/<[^>]*>//g' >t.txt
    le0=$(awk -F, -v cv="$(col $r final_val_loss)" -v cf="$(col $r final_fstar)" -v cx="$(col $r diverged)" '!/^#/ && $1 != "run" && $cx == 0 && $cv - $cf <= 0 { n++ } END { print n + 0 }' $r)
    grep -qx "gap ≤ 0 ($le0)" t.txt && grep -q "triangles at the bottom: gap ≤ 0" t.txt && ok "the triangles explained in the key and the footnote: $le0 runs with gap <= 0" ||
        bad "gap <= 0 ($le0): $(grep -i gap t.txt | tr '\n' '|')"
    ticks=$(awk '/^(8e-3|1.6e-2|3.2e-2|6.4e-2)$/ { n[$0]++ } /^(0.007|0.015|0.02|0.03|0.05|0.07)$/ { odd++ } END { for (k in n) if (n[k] == 2) two++; print two + 0, odd + 0 }' t.txt)
    [ "$ticks" = "4 0" ] && ok "x tics at the four learning rates as swept" || bad "x tics: $ticks ($(grep -E '^[0-9.e-]+$' t.txt | tr '\n' ' '))"
    grep -q "nats" t.txt && ok "the GPT's gap in nats" || bad "no nats on the GPT figure"
    ;;
gpt_lr)
    # --quick is a smoke test (the spec's header says so): one seed, so the lower panel shows each
    # strategy's difference from mp on the same seed, no interval, and says why; the header's
    # numbers (bf16-rn's gap A%, B% and C% above mp's at the three rates, the others within D%)
    # are recomputed from what gnuplot drew.
    sweep gpt_lr
    draw gpt_lr gpt_lr
    svgtext gpt_lr gpt_lr >t.txt
    grep -q "^one seed, so no$" t.txt && grep -q "test, not a comparison" t.txt && ! grep -q "95% t" t.txt &&
        ok "one seed: the panel says there is no interval (a smoke test)" || bad "gpt_lr panel label: $(tail -8 t.txt | tr '\n' '|')"
    hdr=$(sed -n 's/.*its gap \([0-9]*\)%, \([0-9]*\)% and \([0-9]*\)%.*/\1 \2 \3/p' "$src/experiments/gpt_lr.ini")
    within=$(sed -n 's/.*bf16-kahan within \([0-9]*\)% of mp.*/\1/p' "$src/experiments/gpt_lr.ini")
    grep -q "^# --quick is a smoke test, not the comparison" "$src/experiments/gpt_lr.ini" && [ -n "$hdr" ] && [ -n "$within" ] ||
        bad "experiments/gpt_lr.ini: no smoke-test statement with its numbers"
    names=$(sed -n 's/^# command: .* --strategy \([^ ]*\) .*/\1/p' gpt_lr.summary.csv | tr , ' ')
    got=$(awk -v names="$names" 'BEGIN { split(names, nm, " ") } f && NF >= 9 { s = nm[$1]; p = $7 + 0
            if (s == "bf16-rn") rn[++k] = sprintf("%.0f", p)
            else { a = p < 0 ? -p : p; if (a > w) w = a } }
        $0 == "diff" { f = 1; FS = "," }
        END { printf "%s %s %s|%d", rn[1], rn[2], rn[3], (w == int(w) ? w : int(w) + 1) }' gpt_lr.debug)
    [ "$got" = "$hdr|$within" ] && ok "the header's numbers as drawn: bf16-rn $hdr % above mp, the others within $within%" ||
        bad "gpt_lr header says '$hdr|$within', the figure drew '$got'"
    ;;
gpt_curves)
    # Each curve is its strategy at its own best rate (the lowest mean final validation gap over
    # the seeds, recomputed from the runs file), as the title says.
    sweep gpt_lr
    draw gpt_lr gpt_curves
    r=gpt_lr.runs.csv
    awk -F, -v cs="$(col $r strategy)" -v cl="$(col $r lr)" -v cv="$(col $r final_val_loss)" -v cx="$(col $r diverged)" \
        '!/^#/ && $1 != "run" && $cx == 0 { k = $cs SUBSEP $cl; s[k] += $cv; c[k]++; st[$cs] = 1 }
         END { for (k in s) { split(k, a, SUBSEP); m = s[k] / c[k]; if (!(a[1] in b) || m < b[a[1]]) { b[a[1]] = m; l[a[1]] = a[2] } }
               for (x in st) printf "%s, lr = %g\n", x, l[x] }' $r | sort >want.txt
    svgtext gpt_lr gpt_curves | grep ', lr = ' | sort >got.txt
    [ -s want.txt ] && cmp -s want.txt got.txt && ok "each curve at its strategy's best rate: $(tr '\n' ';' <got.txt)" ||
        bad "best rates: want $(tr '\n' ';' <want.txt) got $(tr '\n' ';' <got.txt)"
    ;;
mx_gpt)
    # --quick is a smoke test (the spec's header says so): one seed, so the lower panel shows each
    # recipe's difference from off on that seed, no interval, and says why; the header's numbers
    # (each recipe's gap above off's, in %) are recomputed from the runs file and are what gnuplot
    # drew. The x tics are the recipes in the sweep's order, the gap in nats.
    sweep mx_gpt
    draw mx_gpt mx_gpt
    svgtext mx_gpt mx_gpt >t.txt
    grep -q "^interval: a smoke$" t.txt && grep -q "test, not a comparison" t.txt && ! grep -q "95% t" t.txt &&
        ok "one seed: the panel says there is no interval (a smoke test)" || bad "mx_gpt panel label: $(tail -8 t.txt | tr '\n' '|')"
    grep -q "nats" t.txt && ok "the GPT's gap in nats" || bad "no nats on mx_gpt"
    levels=$(sed -n 's/^# command: .* --mx \([^ ]*\) .*/\1/p' mx_gpt.runs.csv | tr , ' ')
    tics=$(awk -v l="$levels" 'BEGIN { n = split(l, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 } $0 in want { s = s (s == "" ? "" : " ") $0 } END { print s }' t.txt)
    [ -n "$levels" ] && [ "$tics" = "$levels $levels" ] && ok "x tics in both panels: the recipes in the sweep's order ($levels)" ||
        bad "x tics '$tics', the sweep's recipes '$levels'"
    r=mx_gpt.runs.csv
    awk -F, -v cm="$(col $r mx)" -v cv="$(col $r final_val_loss)" -v cf="$(col $r final_fstar)" -v cd="$(col $r seed)" \
        '!/^#/ && $1 != "run" { g[$cm] = $cv - $cf; o[++n] = $cm; if ($cd != 1) b = 1 }
         END { for (i = 1; i <= n; i++) if (o[i] != "off") printf "%s %.0f\n", o[i], 100 * (g[o[i]] - g["off"]) / g["off"]; exit b }' $r >want.txt
    hdr=$(sed -n '/^# --quick is a smoke test/,/^# mode/p' "$src/experiments/mx_gpt.ini" | tr '\n' ' ' |
        sed -n 's/.*on that seed: *# *\(.*\); whether.*/\1/p' | sed 's/ *# */ /g; s/, / /g; s/%//g')
    [ -n "$hdr" ] && [ "$hdr" = "$(tr '\n' ' ' <want.txt | sed 's/ $//')" ] &&
        ok "the header's numbers from the runs: $hdr" || bad "header says '$hdr', the runs give '$(tr '\n' ' ' <want.txt)'"
    got=$(awk -F, -v l="$levels" 'BEGIN { split(l, w, " ") } f && $1 != "g" && NF >= 9 { printf "%s %.0f\n", w[$2], $7 } $0 == "diff" { f = 1 }' mx_gpt.debug)
    [ -s want.txt ] && [ "$got" = "$(cat want.txt)" ] && ok "the differences drawn are the runs' ($(echo $got))" ||
        bad "drawn '$(echo $got)', the runs give '$(tr '\n' ' ' <want.txt)'"
    # With seeds, the lower panel's bars are the paired mean and its 95% t interval, per strategy
    # against the same strategy's off, recomputed from the runs.
    sweep mx_gpt --seeds 3 --steps 20 --warmup 5 --log-every 10 --strategy mp,bf16-sr --mx off,fp4-rn,fp4-wgrad
    draw mx_gpt mx_gpt
    mx_paired mx_gpt mx_gpt 3 4.302652729911275 4
    ;;
mx_mlp_final)
    # The quick sweep's two seeds: the paired mean and 95% t interval (one degree of freedom,
    # t 12.7062), per recipe against off, as the runs give; the MLP's loss a mean squared error.
    sweep mx_mlp
    draw mx_mlp mx_mlp_final
    mx_paired mx_mlp mx_mlp_final 2 12.706204736174705 4
    svgtext mx_mlp mx_mlp_final >t.txt
    grep -q "mean squared error" t.txt && ! grep -q nats t.txt && ok "the MLP's loss: a mean squared error, no nats" ||
        bad "mx_mlp_final labels: $(grep -i -e loss -e nats t.txt | tr '\n' '|')"
    ;;
matvec)
    # RN and SR part once RN's partial sums outgrow the terms: over n >= 256 the least-squares
    # slope of log(mean backward error) on log n is above 0.9 for RN (like n u) and below 0.75 for
    # SR (like sqrt(n) u), and at the largest n RN's mean is above 1.5x SR's.
    sweep matvec
    draw matvec matvec
    r=matvec.csv
    awk -F, -v cr="$(col $r rounding)" -v ck="$(col $r k)" -v cb="$(col $r bwd_norm)" '!/^#/ && $1 != "run" { s[$cr, $ck] += $cb; c[$cr, $ck]++; ks[$ck + 0] = 1 }
        END { for (k in ks) { if (k + 0 > kmax) kmax = k + 0; if (k + 0 >= 256) for (i = 1; i <= 2; i++) { q = (i == 1 ? "rn" : "sr"); x = log(k); y = log(s[q, k] / c[q, k])
                  n[q]++; sx[q] += x; sy[q] += y; sxx[q] += x * x; sxy[q] += x * y } }
              for (i = 1; i <= 2; i++) { q = (i == 1 ? "rn" : "sr"); sl[q] = (n[q] * sxy[q] - sx[q] * sy[q]) / (n[q] * sxx[q] - sx[q] * sx[q]) }
              rn = s["rn", kmax] / c["rn", kmax]; sr = s["sr", kmax] / c["sr", kmax]
              printf "slopes over n >= 256: RN %.2f, SR %.2f; at n = %d RN %.3g, SR %.3g\n", sl["rn"], sl["sr"], kmax, rn, sr
              exit !(n["rn"] >= 3 && sl["rn"] > 0.9 && sl["sr"] < 0.75 && rn > 1.5 * sr) }' $r >why.txt &&
        ok "$(cat why.txt)" || bad "matvec: $(cat why.txt)"
    ;;
*)
    bad "no claims for figure '$fig'" ;;
esac
exit $fail
