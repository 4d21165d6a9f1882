/* src/cli/theory_t14.c: the statement T14 of `srlab theory` (src/cli/theory_table.h): SR
 * against RN with gradient noise (theory/T14-sr-vs-rn.md). Laid out as src/cli/theory_t01_t04.c
 * describes. */
#include <math.h>
#include <stddef.h>

#include "cli/cli.h"
#include "cli/theory_table.h"

static int e_t14(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->lr * p->a < 1))
        return cli_error(th_cmd, "lr: lr a = %g must be below 1 (the linearised recursions "
                                 "assume a contraction)", p->lr * p->a);
    srl_t14_eval(&v->t14, p->xstar, p->a, p->lr, p->sigma, p->x0, (double)p->steps, &p->format);
    return 0;
}

static bool t14_has_crossover(const th_view *t)
{
    return !isnan(t->v->t14.crossover_lr);
}

static const th_line t14_lines[] = {
    LINE("ulp(x*)", NUM(t14.ulp), "grid spacing at x*", ""),
    LINE("r", NUM(t14.r), "lr sigma / ulp", "the noise of one exact step, in spacings"),
    LINE("rn_gain", NUM(t14.rn_gain), "(1/r) sum_j phi((j + 1/2)/r)",
         "the fraction of the restoring drift RN keeps (1: dithered; ~0: frozen)"),
    LINE("rn_step_var", NUM(t14.rn_step_var), "E[round(s)^2], s ~ N(0, r^2)",
         "RN's step variance in ulp^2 (r^2 + 1/12 once r >~ 0.5: dithered quantisation)"),
    LINE("sr_cell_var", NUM(t14.sr_cell_var), "E[frac(s)(1 - frac(s))]",
         "what SR adds per step in ulp^2 (1/6 once r >~ 0.5; ~ r sqrt(2/pi) for small r)"),
    {"excess_exact", NUM(t14.excess_exact), "a/2 E[e_T^2], exact arithmetic",
     "mean f - f* after %s steps from x0 (stationary: %s)",
     {PARAM_U64(steps), NUM(t14.stat_exact)}, ALWAYS},
    {"excess_rn", NUM(t14.excess_rn), "the same, RN writes",
     "stationary: %s, reached only after ~1/(rn_gain lr a) steps", {NUM(t14.stat_rn)}, ALWAYS},
    {"excess_sr", NUM(t14.excess_sr), "the same, SR writes", "stationary: %s",
     {NUM(t14.stat_sr)}, ALWAYS},
    {"rn_move_prob", NUM(t14.rn_move_prob), "P(|lr g| >= ulp/2) at x0",
     "expected RN moves from x0 over the run: %s (<< 1: RN is frozen at x0)",
     {NUM(t14.rn_moves_expected)}, ALWAYS},
    {"lr_star", NUM(t14.lr_star), "ulp / (sigma sqrt 6)",
     "SR's knee: below it SR's stationary excess stops falling and stays near "
     "ulp sigma / (2 sqrt(2 pi)) (here %s at lr_star)",
     {NUM(t14.excess_sr_at_lr_star)}, ALWAYS},
    {"crossover_lr", NUM(t14.crossover_lr), "largest lr with excess_sr < excess_rn",
     "over %s steps from x0: SR wins below it, RN above", {PARAM_U64(steps)},
     t14_has_crossover},
    LINES_END,
};

static void c_t14(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (mean loss_gap at the last step over seeds, rn / sr / fp32):\n");
    static const char *const how[] = {"--rounding rn --format ", "--rounding sr --format ",
                                      "--strategy "};
    for (int k = 0; k < 3; k++) {
        fprintf(o, "  srlab train --problem quad1d --opt sgd %s%s", how[k],
                k < 2 ? t->p->format.name : "fp32");
        fprintf(o, " --a %s --xstar %s --x0 %s --lr %s --grad-noise %s --steps %llu "
                   "--log-every %llu --seeds 20\n",
                th_text(t, "a"), th_text(t, "xstar"), th_text(t, "x0"), th_text(t, "lr"),
                th_text(t, "sigma"), (unsigned long long)t->p->steps,
                (unsigned long long)t->p->steps);
    }
}

const th_statement th_t14 = {
    "T14", "sr-vs-rn", "theory/T14-sr-vs-rn.md",
    "SR against RN with gradient noise: RN dithers (ulp^2/12) or freezes, SR adds ulp^2/6 and "
    "never freezes; the crossover learning rate",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("xstar", "1.5", TH_REAL, xstar,
         "minimiser x* (sets ulp; keep the spread inside one binade)"),
     KEY("a", "1", TH_POS, a, "curvature a > 0"),
     KEY("lr", "0.002", TH_POS, lr, "learning rate"),
     KEY("sigma", "1", TH_POS, sigma, "standard deviation of the gradient noise"),
     KEY("x0", "1.25", TH_REAL, x0, "initial point (on the grid)"),
     KEY_COUNT("steps", "10000", steps, 1, UPTO_1E12, "steps of the run"),
     KEY_END},
    e_t14, t14_lines, c_t14,
};
