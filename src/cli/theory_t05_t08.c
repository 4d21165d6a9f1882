/* src/cli/theory_t05_t08.c: the statements T05-T08 of `srlab theory` (src/cli/theory_table.h):
 * gradient descent on a quadratic (T05), noisy SGD (T06), the SR random walk (T07), weight decay
 * (T08). Laid out as src/cli/theory_t01_t04.c describes. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/theory_table.h"

/* ---- T05 ---- */

static int e_t05(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (p->arith == SRL_ARITH_FP32 &&
        (!srl_format_fits_float(&p->format) || !srl_format_fits_float(&p->grad_format)))
        return cli_error(th_cmd, "update-arith: fp32 cannot hold the values of %s and %s; use "
                                 "update-arith=fp64", p->format.name, p->grad_format.name);
    if (srl_t05_eval(&v->t05, p->a, p->xstar, p->x0, p->lr, p->steps, &p->format, &p->grad_format,
                     p->arith) != SRL_OK)
        return cli_error(th_cmd, "internal error: srl_t05_rn_stall failed");
    return 0;
}

static bool t05_band(const th_view *t)
{
    return t->v->t05.band;
}

static bool t05_fixed(const th_view *t)
{
    return t->v->t05.stall.fixed;
}

static bool t05_not_fixed(const th_view *t)
{
    return !t->v->t05.stall.fixed;
}

static const th_line t05_lines[] = {
    LINE("u", NUM(t05.u), "2^-p, unit roundoff of the weight format", ""),
    LINE("ulp(x*)", NUM(t05.ulp), "grid spacing at x*", ""),
    LINE("freeze_grad", NUM(t05.freeze_grad), "ulp(x*) / (2 lr)",
         "RN loses a step lr*g at x* when |g| is below this"),
    LINE("stall_distance", NUM(t05.stall_distance), "ulp(x*) / (2 lr a)",
         "RN gradient descent stops once |x - x*| < this (the freeze zone)"),
    {"stall_band_width", NUM(t05.ulp), "ulp(x*)",
     "the stall point lies within one spacing inside the zone: |x - x*| in [%s, %s]",
     {NUM(t05.band_lo), NUM(t05.stall_distance)}, t05_band},
    {"rn_stall_x", NUM(t05.stall.x), "fixed point of x <- RN(x - lr RN_g(a (x - x*)))",
     "exact: the rounded map iterated from x0 (grad %s, update %s) stops after step %s",
     {PARAM_FORMAT(grad_format), PARAM_TEXT("update-arith"), U64(t05.stall.step)}, t05_fixed},
    {"rn_stall_distance", NUM(t05.stall.distance), "|rn_stall_x - x*|",
     "ratio to the formula: %s", {NUM(t05.stall_ratio)}, t05_fixed},
    {"rn_stall_loss_gap", NUM(t05.stall_loss_gap), "a/2 distance^2",
     "the excess loss RN keeps forever", NO_ARGS, t05_fixed},
    {"rn_iterate", NUM(t05.stall.x), "no fixed point within 10^7 steps",
     "(lr a > 1 oscillates; a zone narrower than a spacing can cycle)", NO_ARGS, t05_not_fixed},
    {"sr_floor", NUM(t05.sr_floor), "(a/2)(x* - g0)(g1 - x*)",
     "mean stationary excess loss under SR, on the grid neighbours %s <= x* <= %s; the same for "
     "every lr with 0 < lr a <= 1",
     {NUM(t05.g0), NUM(t05.g1)}, ALWAYS},
    {"sr_mean_iterate", NUM(t05.sr_mean_iterate), "x* + (1 - lr a)^t (x0 - x*)",
     "E[x_t] under SR at t = steps = %s: the exact GD iterate from the stored x0 = %s",
     {PARAM_U64(steps), NUM(t05.x0)}, ALWAYS},
    LINES_END,
};

static void c_t05(FILE *o, const th_view *t)
{
    const char *f = t->p->format.name, *a = th_text(t, "a"), *xs = th_text(t, "xstar");
    const char *x0 = th_text(t, "x0"), *lr = th_text(t, "lr");
    /* the RN run: ten steps past the stall */
    const unsigned long long rn_steps = (unsigned long long)(t->v->t05.stall.step + 10);
    fprintf(o, "\ntest it:\n  srlab train --problem quad1d --opt sgd --format %s --rounding rn "
               "--a %s --xstar %s --x0 %s --lr %s --steps %llu --log-every %llu\n",
            f, a, xs, x0, lr, rn_steps, rn_steps);
    fprintf(o, "  srlab train --problem quad1d --opt sgd --format %s --rounding sr --a %s "
               "--xstar %s --x0 %s --lr %s --steps %llu --log-every 10 --seeds 100\n",
            f, a, xs, x0, lr, (unsigned long long)t->p->steps);
}

const th_statement th_t05 = {
    "T05", "gd-quadratic", "theory/T05-gd-quadratic.md",
    "gradient descent on f = a/2 (x - x*)^2: RN freezes and stalls at ulp/(2 lr a); SR is exact "
    "in mean with a floor independent of lr",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("a", "1", TH_POS, a, "curvature a > 0"),
     KEY("xstar", "0.3", TH_REAL, xstar, "minimiser x*"),
     KEY("x0", "1", TH_REAL, x0, "initial point"),
     KEY("lr", "0.01", TH_POS, lr, "learning rate"),
     KEY("grad-format", "fp32", TH_FORMAT, grad_format,
         "gradient format of the run to compare with"),
     KEY("update-arith", "fp32", TH_ARITH, arith, "update arithmetic of that run: fp32 or fp64"),
     KEY_COUNT("steps", "1000", steps, 0, UPTO_1E12,
               "step at which the SR mean iterate is printed"),
     KEY_END},
    e_t05, t05_lines, c_t05,
};

/* ---- T06 ---- */

static int e_t06(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->lr * p->a < 2))
        return cli_error(th_cmd, "lr: lr a = %g must be below 2 for SGD to be stable",
                         p->lr * p->a);
    srl_t06_eval(&v->t06, p->xstar, p->a, p->lr, p->sigma, &p->format);
    return 0;
}

static const th_line t06_lines[] = {
    LINE("ulp(x*)", NUM(t06.ulp), "grid spacing at x*", ""),
    LINE("r", NUM(t06.r), "lr sigma / ulp",
         "the exact step's noise in spacings: what sets the regime (the weight sits on the grid)"),
    LINE("excess_exact", NUM(t06.excess_exact), "lr sigma^2 / (2 (2 - lr a))  (~ lr sigma^2 / 4)",
         "stationary mean of f - f* in exact arithmetic"),
    LINE("excess_sr_extra", NUM(t06.excess_sr), "v(r) ulp^2 / (2 lr (2 - lr a))",
         "what SR writes add to it; v(r) = E[frac(s)(1 - frac(s))], s ~ N(0, r^2) (T14)"),
    LINE("relative_penalty", NUM(t06.relative_penalty), "v(r) / r^2",
         "their ratio: ulp^2/(6 lr^2 sigma^2) for r >= 1/2, smaller below (-> sqrt(2/pi)/r)"),
    LINE("penalty_large_r", NUM(t06.penalty_large_r), "ulp^2 / (6 lr^2 sigma^2)",
         "the large-r form (v = 1/6): within 0.44% of relative_penalty once r >= 1/2; "
         "4x the learning rate makes it 16x smaller"),
    LINE("lr_for_1pct", NUM(t06.lr_for_1pct), "v(r)/r^2 = 0.01 solved for lr",
         "the learning rate at which the SR penalty is 1%"),
    LINES_END,
};

static void c_t06(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (mean loss_gap over the late steps and seeds, sr against fp32):\n");
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --opt sgd --format %s --rounding %s --a %s "
                   "--xstar %s --x0 %s --lr %s --grad-noise %s --steps 20000 --log-every 100 "
                   "--seeds 20\n",
                k ? "fp32" : t->p->format.name, k ? "rn" : "sr", th_text(t, "a"),
                th_text(t, "xstar"), th_text(t, "xstar"), th_text(t, "lr"), th_text(t, "sigma"));
}

const th_statement th_t06 = {
    "T06", "noisy-sgd", "theory/T06-noisy-sgd.md",
    "noisy SGD: the relative SR penalty v(r)/r^2, r = lr sigma/ulp; ulp^2/(6 lr^2 sigma^2) for r >= 1/2",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("xstar", "1.5", TH_REAL, xstar,
         "the point the iterate fluctuates around, a value of the format (sets ulp; keep the "
         "spread inside one binade)"),
     KEY("a", "1", TH_POS, a, "curvature a > 0"),
     KEY("lr", "0.01", TH_POS, lr, "learning rate"),
     KEY("sigma", "1", TH_POS, sigma, "standard deviation of the gradient noise"),
     KEY_END},
    e_t06, t06_lines, c_t06,
};

/* ---- T07 ---- */

static int e_t07(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    srl_t07_eval(&v->t07, p->x, p->lr, p->g, p->steps, p->distance, &p->format);
    if (!(v->t07.move_prob > 0 && v->t07.move_prob < 1))
        return cli_error(th_cmd, "lr: the drift lr |g| = %g must lie strictly between 0 and one "
                                 "spacing ulp(x) = %g for a random walk",
                         v->t07.drift, v->t07.ulp);
    return 0;
}

static const th_line t07_lines[] = {
    LINE("ulp(x)", NUM(t07.ulp), "grid spacing at x", ""),
    LINE("drift", NUM(t07.drift), "lr |g|", "the exact step, below one spacing"),
    LINE("move_prob", NUM(t07.move_prob), "lr |g| / ulp",
         "SR moves one spacing with this probability per step"),
    {"rn", PICK(t07.rn_frozen, "frozen", "moves"), "%s", NULL,
     {PICK(t07.rn_frozen, "RN never moves (lr |g| < ulp/2): stagnation",
           "RN moves every step by one spacing (lr |g| >= ulp/2)")}, ALWAYS},
    {"moves_mean", NUM(t07.moves_mean), "steps p",
     "moves in %s steps: Binomial(steps, p), mean %s, sd %s",
     {PARAM_U64(steps), NUM(t07.moves_mean), NUM(t07.moves_sd)}, ALWAYS},
    LINE("wait_mean", NUM(t07.wait_mean), "ulp / (lr |g|)", "mean steps between moves (geometric)"),
    {"cover_mean", NUM(t07.cover_mean), "(distance / ulp) / p = distance / (lr |g|)",
     "steps to cover distance %s at constant g: the exact drift needs the same mean; SR adds the "
     "spread",
     {PARAM_TEXT("distance")}, ALWAYS},
    LINE("cover_sd", NUM(t07.cover_sd), "sqrt((distance/ulp)(1 - p)) / p",
         "negative binomial spread"),
    LINES_END,
};

static void c_t07(FILE *o, const th_view *t)
{
    char b[CLI_NUM_LEN];
    /* the curvature that makes g = a (x - x*) the given gradient at x, with x* = 0 */
    fprintf(o, "\ntest it (1 - lost_update_frac per step is the move indicator; g = a (x - x*) "
               "is nearly constant while |x - x*| >> distance):\n"
               "  srlab train --problem quad1d --opt sgd --format %s --rounding sr --a %s --xstar "
               "0 --x0 %s --lr %s --steps %llu --log-every 1 --seeds 10\n",
            t->p->format.name, cli_fmt_short(b, fabs(t->p->g / t->p->x)), th_text(t, "x"),
            th_text(t, "lr"), (unsigned long long)t->p->steps);
}

const th_statement th_t07 = {
    "T07", "sr-random-walk", "theory/T07-sr-random-walk.md",
    "SR at small learning rates is a random walk, as fast in mean as exact arithmetic: moves "
    "per step ~ Bernoulli(lr |g| / ulp)",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("x", "1.5", TH_REAL, x,
         "the weight (sets ulp; avoid powers of two, where the spacing below halves)"),
     KEY("lr", "1e-4", TH_POS, lr, "learning rate"),
     KEY("g", "1.5", TH_REAL, g, "gradient (held constant)"),
     KEY_COUNT("steps", "10000", steps, 0, UPTO_1E12, "number of steps for the move count"),
     KEY("distance", "0.0625", TH_POS, distance, "distance to cover"),
     KEY_END},
    e_t07, t07_lines, c_t07,
};

/* ---- T08 ---- */

static int e_t08(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->lr * p->wd < 1))
        return cli_error(th_cmd, "wd: lr wd = %g must be below 1", p->lr * p->wd);
    srl_t08_eval(&v->t08, p->x, p->lr, p->wd, p->steps, &p->format);
    if (!(fabs(v->t08.x) >= p->format.xmin) || !isfinite(v->t08.x))
        return cli_error(th_cmd, "x: %s must round to a normal value of %s", th_text(t, "x"),
                         p->format.name);
    return 0;
}

static const th_line t08_lines[] = {
    LINE("lr_wd", NUM(t08.lr_wd), "lr wd", "the relative decrement of one decay step"),
    {"threshold", NUM(t08.threshold),
     "2^-(p+1): decay lost for every x at or below it; here lr wd is %s it", "",
     {PICK(t08.below_threshold, "at or below", "above")}, ALWAYS},
    LINE("lost_fraction", NUM(t08.lost_fraction), "exact count over a binade",
         "fraction of the format's values whose decay RN rounds away"),
    {"rn_at_x", PICK(t08.lost, "lost", "applied"), "x = %s (stored): RN(x (1 - lr wd)) %s x", NULL,
     {NUM(t08.x), PICK(t08.lost, "==", "!=")}, ALWAYS},
    {"sr_mean_x_T", NUM(t08.sr_mean_x_T), "x (1 - lr wd)^T",
     "E[x_T] under SR after T = %s decay steps", {PARAM_U64(steps)}, ALWAYS},
    LINE("rn_x_T", NUM(t08.rn_x_T), "x when lost", "RN leaves x unchanged forever"),
    LINES_END,
};

static void c_t08(FILE *o, const th_view *t)
{
    const uint64_t steps = t->p->steps;
    fprintf(o, "\ntest it (a = 0: no loss gradient, weight decay alone):\n");
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --a 0 --xstar 0 --x0 %s --opt adamw --wd %s "
                   "--lr %s --strategy %s --steps %llu --log-every %llu%s\n",
                th_text(t, "x"), th_text(t, "wd"), th_text(t, "lr"), k ? "bf16-sr" : "bf16-rn",
                (unsigned long long)steps, (unsigned long long)(steps / 10 ? steps / 10 : 1),
                k ? " --seeds 100" : "");
}

const th_statement th_t08 = {
    "T08", "weight-decay", "theory/T08-weight-decay.md",
    "decoupled weight decay is lost under RN for every x when lr wd <= 2^-(p+1) (2^-9 in bf16); "
    "SR applies it in mean",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("lr", "0.001", TH_POS, lr, "learning rate"),
     KEY("wd", "0.1", TH_POS, wd, "weight decay"),
     KEY("x", "1", TH_REAL, x, "the weight"),
     KEY_COUNT("steps", "1000", steps, 0, UPTO_1E12, "number of steps"),
     KEY_END},
    e_t08, t08_lines, c_t08,
};
