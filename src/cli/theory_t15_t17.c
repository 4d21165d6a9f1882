/* src/cli/theory_t15_t17.c: the statements T15-T17 of `srlab theory` (src/cli/theory_table.h),
 * three statements from the literature: the heat equation in low precision (T15, Croci and Giles
 * 2022), Kahan-compensated weight writes (T16), the variance bound of SR summation (T17). Laid
 * out as src/cli/theory_t01_t04.c describes. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/theory_table.h"

/* ---- T15 ---- */

static int e_t15(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->heat_r <= 0.5))
        return cli_error(th_cmd, "r: %g must be at most 1/2 (stability of explicit Euler)",
                         p->heat_r);
    if (p->format.xmax < 1)
        return cli_error(th_cmd, "format: %s cannot hold the initial maximum 1", p->format.name);
    double *work = malloc(4 * (p->m + 1) * sizeof *work);
    if (!work)
        return cli_error(th_cmd, "out of memory");
    const int st = srl_t15_eval(&v->t15, p->m, p->heat_r, p->t_end, &p->format, work);
    free(work);
    if (st != SRL_OK)
        return cli_error(th_cmd, "internal error: srl_t15_eval refused its parameters");
    return 0;
}

static const th_line t15_lines[] = {
    LINE("u", NUM(t15.u), "2^-p, unit roundoff of the stored values", ""),
    LINE("dt", NUM(t15.dt), "r h^2", "the time step"),
    {"steps", U64(t15.steps), "round(t / dt)", "reaching t = %s", {NUM(t15.t)}, ALWAYS},
    LINE("update_ratio", NUM(t15.update_ratio), "dt mu1 / u, mu1 = (4/h^2) sin^2(pi h/2)",
         "the sine mode's change per step in units of u |U|"),
    {"rn", PICK(t15.rn_frozen, "stagnates", "moves"), "%s", NULL,
     {PICK(t15.rn_frozen, "update_ratio < 1/2: the sine mode's part of every update is below "
                          "half a spacing; what passes is U0's own rounding noise (rn_passes)",
           "update_ratio >= 1/2: RN moves; its error is bounded by rn_bound")},
     ALWAYS},
    {"rn_passes", U64(t15.rn.passes), "RN(U + r L U) iterated from U0 to its fixed point",
     "updates that pass before RN stagnates: %s at step 1, fixed point after %s steps; the "
     "lost fraction 1 - passes/updates (L != 0) is %s",
     {U64(t15.rn.first_step_passes), U64(t15.rn.fixed_step), NUM(t15.rn.lost_frac)},
     ALWAYS},
    LINE("rn_bound", NUM(t15.rn_bound), "steps u = t u / dt",
         "worst-case bound on max |U - V| under RN: O(u/dt)"),
    LINE("rn_frozen_rms", NUM(t15.frozen_rms), "rms_j (U*_j - V_j), U* the fixed point",
         "RN's RMS error once stagnated (NaN above 10^8 point-steps or with no fixed point)"),
    LINE("sr_rms_bound", NUM(t15.sr_rms_bound),
         "u/2 sqrt(sum_k (1 - l_k^2N)/(1 - l_k^2) / (m-1)), l_k = 1 - 4 r sin^2(k pi h/2)",
         "bound on the RMS SR error: O(u dt^-1/4) along dt = r h^2"),
    LINE("sr_rms_asym", NUM(t15.sr_rms_asym),
         "u sqrt(S(t) / (8 pi^2 r h)), S(t) = sum_k (1 - exp(-2 pi^2 k^2 t))/k^2",
         "its small-h form at this t (the low modes have not saturated unless t >> 1/(2 pi^2))"),
    LINE("sr_rms_limit", NUM(t15.sr_rms_limit), "u sqrt(1/(48 r h))",
         "the small-h form for t >> 1/(2 pi^2) (S = pi^2/6)"),
    LINES_END,
};

static void c_t15(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (rms_err, one row per run):\n");
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab run --problem heat -f %s -r %s --m %llu --r %s --t %s%s\n",
                t->p->format.name, k ? "sr" : "rn", (unsigned long long)t->p->m,
                th_text(t, "r"), th_text(t, "t"), k ? " --seeds 16" : "");
}

const th_statement th_t15 = {
    "T15", "heat-equation", "theory/T15-heat-equation.md",
    "the heat equation in low precision (Croci-Giles 2022): RN stagnates for small dt, SR's error "
    "grows like u dt^-1/4",
    {KEY("format", "fp16", TH_FORMAT, format, "format of the stored values"),
     KEY_COUNT("m", "64", m, 2, 4096, "grid intervals, h = 1/m"),
     KEY("r", "0.25", TH_POS, heat_r, "dt / h^2, at most 1/2"),
     KEY("t", "0.0625", TH_POS, t_end, "final time"),
     KEY_END},
    e_t15, t15_lines, c_t15,
};

/* ---- T16 ---- */

static int e_t16(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->lr * p->a < 1))
        return cli_error(th_cmd, "lr: lr a = %g must be below 1", p->lr * p->a);
    srl_t16_eval(&v->t16, p->a, p->xstar, p->x0, p->lr, p->steps, &p->format, p->v);
    return 0;
}

static const th_line t16_lines[] = {
    LINE("ulp(x*)", NUM(t16.ulp), "grid spacing at x*", ""),
    LINE("rn_stall", NUM(t16.rn_stall), "ulp(x*) / (2 lr a)",
         "plain RN stalls this far from x* (T05)"),
    LINE("kahan_rn_limit", NUM(t16.rn_limit), "RN(x*)",
         "compensated RN descent ends here: the nearest grid value"),
    LINE("kahan_rn_dist", NUM(t16.rn_limit_dist), "|RN(x*) - x*| <= ulp/2", ""),
    {"x_exact", NUM(t16.x_exact), "x* + (1 - lr a)^t (x0 - x*)", "exact GD at t = %s",
     {PARAM_U64(steps)}, ALWAYS},
    LINE("kahan_sr_ms", NUM(t16.sr_kahan_ms), "(x_exact - RD)(RU - x_exact) <= ulp^2/4",
         "E (x_t - x_exact)^2 with SR writes and compensation: one rounding, no accumulation"),
    LINE("kahan_sr_tol", NUM(t16.comp_tol), "ulp (2 d + d^2/ulp), d = uc ulp / (lr a)",
         "its tolerance for a compensation stored with unit roundoff uc"),
    LINE("plain_sr_ms", NUM(t16.sr_plain_ms), "the law of w_t propagated over the grid",
         "plain SR's accumulated E (w_t - x_exact)^2, exactly, for contrast"),
    LINE("plain_sr_ms_uniform", NUM(t16.sr_plain_ms_uniform),
         "(ulp^2/6) (1 - c^2t) / (1 - c^2), c = 1 - lr a",
         "the same if every write's position in its cell were uniform (too large early on)"),
    LINES_END,
};

static void c_t16(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it:\n");
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --opt sgd --strategy bf16-kahan --rounding %s "
                   "--a %s --xstar %s --x0 %s --lr %s --steps %llu%s\n",
                k ? "sr" : "rn", th_text(t, "a"), th_text(t, "xstar"), th_text(t, "x0"),
                th_text(t, "lr"), (unsigned long long)t->p->steps,
                k ? " --grad-format fp64 --update-arith fp64 --comp-format fp32 --seeds 400"
                  : " --grad-format fp64 --update-arith fp64");
}

const th_statement th_t16 = {
    "T16", "kahan-updates", "theory/T16-kahan-updates.md",
    "Kahan-compensated weight writes: RN's lost updates recovered; SR's variance not accumulated",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("a", "1", TH_POS, a, "curvature a > 0"),
     KEY("xstar", "0.3", TH_REAL, xstar, "minimiser x*"),
     KEY("x0", "1", TH_REAL, x0, "initial point"),
     KEY("lr", "1e-3", TH_POS, lr, "learning rate"),
     KEY_COUNT("steps", "500", steps, 0, UPTO_1E12, "step t of the SR comparison"),
     KEY("uc", "5.9604644775390625e-08", TH_NONNEG, v,
         "unit roundoff of the compensation buffer (2^-24: fp32)"),
     KEY_END},
    e_t16, t16_lines, c_t16,
};

/* ---- T17 ---- */

static int e_t17(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->delta > 0 && p->delta < 1))
        return cli_error(th_cmd, "delta: %g must lie strictly between 0 and 1", p->delta);
    srl_t17_eval(&v->t17, p->x, p->n, p->delta, &p->format);
    return 0;
}

static const th_line t17_lines[] = {
    LINE("u", NUM(t17.u), "2^-p", ""),
    LINE("S", NUM(t17.S), "n x", "the exact sum"),
    LINE("var_recursive", NUM(t17.var_rec), "u^2 sum_k (1 + u^2)^(n-k) S_k^2",
         "bound on E (s - S)^2, recursive order"),
    LINE("var_pairwise", NUM(t17.var_pair), "V = (1 + u^2)(V_L + V_R) + u^2 S^2 over the tree",
         "bound on E (s - S)^2, pairwise order"),
    LINE("rel_rms_recursive", NUM(t17.rel_rec), "sqrt(var_recursive) / |S|", ""),
    LINE("rel_rms_asym", NUM(t17.rel_rec_asym), "u sqrt(n/3)", "its large-n form: sqrt(n) u"),
    LINE("rel_rms_pairwise", NUM(t17.rel_pair), "sqrt(var_pairwise) / |S|",
         "about sqrt(2) u, independent of n for equal terms"),
    {"lambda", NUM(t17.lambda), "1 / sqrt(delta)",
     "Chebyshev: |s - S| >= lambda sqrt(V) with probability <= delta = %s",
     {PARAM_TEXT("delta")}, ALWAYS},
    LINE("rel_bound_recursive", NUM(t17.prob_rec), "lambda sqrt(var_recursive) / |S|",
         "relative error exceeded with probability <= delta"),
    LINE("rel_bound_pairwise", NUM(t17.prob_pair), "lambda sqrt(var_pairwise) / |S|", ""),
    LINES_END,
};

static void c_t17(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (rel_err over seeds):\n"
               "  srlab run --problem sum -f %s -r sr --dist const:%s --n %llu --seeds 100\n"
               "  srlab run --problem sum -f %s -r sr --dist const:%s --n %llu --order pairwise "
               "--seeds 100\n",
            t->p->format.name, th_text(t, "x"), (unsigned long long)t->p->n, t->p->format.name,
            th_text(t, "x"), (unsigned long long)t->p->n);
}

const th_statement th_t17 = {
    "T17", "sr-sum-variance", "theory/T17-sr-sum-variance.md",
    "SR summation: the variance bound (recursive ~ n u^2 S^2/3, pairwise ~ 2 u^2 S^2) and its "
    "Chebyshev bound",
    {KEY("format", "bf16", TH_FORMAT, format, "accumulator format"),
     KEY("x", "0.001", TH_POS, x, "the term (n equal terms)"),
     KEY_COUNT("n", "10000", n, 1, 100000000, "number of terms (at most 10^8)"),
     KEY("delta", "0.01", TH_POS, delta, "failure probability of the Chebyshev bound"),
     KEY_END},
    e_t17, t17_lines, c_t17,
};
