/* src/cli/theory_t09_t13.c: the statements T09-T13 of `srlab theory` (src/cli/theory_table.h):
 * Adam's second moment (T09) and convergence (T10), implicit regularization (T11), replicas
 * (T12), memory per parameter (T13). Laid out as src/cli/theory_t01_t04.c describes. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/theory_table.h"
#include "srlab/optim.h"
#include "srlab/strategy.h"

/* ---- T09 ---- */

static int e_t09(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (srl_t09_eval(&v->t09, p->v, p->beta2, &p->format) != SRL_OK)
        return cli_error(th_cmd, "v, beta2: v must be a positive normal value of %s and beta2 "
                                 "lie in [0.5, 1) (got v=%s, beta2=%s)",
                         p->format.name, th_text(t, "v"), th_text(t, "beta2"));
    return 0;
}

static const th_line t09_lines[] = {
    {"no_decrease_bound", NUM(t09.no_decrease_bound), "2^-(p+1)",
     "no v can ever decrease when 1 - beta2 <= 2^-(p+1); here 1 - beta2 = %s is %s",
     {G(t09.decay), PICK(t09.ratchet, "below: v is a ratchet", "above")}, ALWAYS},
    LINE("can_decrease", PICK(t09.write.can_decrease, "yes", "no"),
         "whether any g (g = 0 is the extreme) makes the stored v smaller", NULL),
    LINE("v_min_next", NUM(t09.write.v_min_next), "RN(beta2 v)",
         "the smallest value one write can store"),
    LINE("rise_ratio", NUM(t09.write.rise_ratio), "1 + ulp(v) / (2 (1 - beta2) v)",
         "v rises only when g^2 exceeds this multiple of v"),
    LINE("rise_ratio_min", NUM(t09.rise_ratio_min), "1 + 1/(2 (1 - beta2) (2^p - 1))",
         "over a binade: v just below a power of two"),
    LINE("rise_ratio_max", NUM(t09.rise_ratio_max), "1 + 1/(2 (1 - beta2) 2^(p-1))",
         "v a power of two"),
    LINES_END,
};

static void c_t09(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (columns v; gradient = pure noise of sd 1, so E[g^2] = 1):\n"
               "  srlab train --problem quad1d --a 0 --opt adam --beta2 %s --strategy bf16-rn "
               "--grad-noise 1 --steps 5000 --log-every 1\n"
               "  srlab train --problem quad1d --a 0 --opt adam --beta2 %s --strategy fp32 "
               "--grad-noise 1 --steps 5000 --log-every 1\n",
            th_text(t, "beta2"), th_text(t, "beta2"));
}

const th_statement th_t09 = {
    "T09", "second-moment", "theory/T09-second-moment.md",
    "the bf16 second moment under RN with beta2 -> 1 cannot decrease and rises only when g^2 "
    "exceeds a computable multiple of v",
    {KEY("format", "bf16", TH_FORMAT, format, "format of v"),
     KEY("beta2", "0.999", TH_REAL, beta2, "second-moment decay, in [0.5, 1)"),
     KEY("v", "1", TH_POS, v, "the stored second moment (a positive normal value of the format)"),
     KEY_END},
    e_t09, t09_lines, c_t09,
};

/* ---- T10 ---- */

static int e_t10(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    if (!(p->a * p->lr / p->sigma < 2))
        return cli_error(th_cmd, "lr: a lr / sigma = %g must be below 2 for Adam (SGD with the "
                                 "learning rate lr / sigma) to be stable",
                         p->a * p->lr / p->sigma);
    if (!(p->beta1 < 1))
        return cli_error(th_cmd, "beta1: %s is not below 1", th_text(t, "beta1"));
    srl_t10_eval(&v->t10, p->xstar, p->a, p->lr, p->sigma, p->beta1, p->x0, p->delta,
                 &p->format);
    if (isnan(v->t10.model.penalty))
        return cli_error(th_cmd, "lr, beta1: Adam's linearised recursion is not stable at lr %s, "
                                 "beta1 %s", th_text(t, "lr"), th_text(t, "beta1"));
    return 0;
}

static const th_line t10_lines[] = {
    LINE("ulp(x*)", NUM(t10.ulp), "grid spacing at x*", ""),
    LINE("lr_eff", NUM(t10.lr_eff), "lr' = lr / sigma",
         "Adam (beta1 = 0) is SGD with this learning rate"),
    LINE("sigma_g2_ratio", NUM(t10.sigma_g2_ratio), "1 + a lr' / (2 - a lr')",
         "E[g^2] / sigma^2 at stationarity"),
    LINE("relative_penalty", NUM(t10.relative_penalty),
         "v(lr/ulp) (ulp/lr)^2 (1 + a lr'/(2 - a lr'))",
         "beta1 = 0: SR's excess loss over exact arithmetic, relative to it (item 4); "
         "ulp^2 (1 + a lr'/(2 - a lr'))/(6 lr^2) once lr >= ulp/2"),
    LINE("penalty_at_2lr", NUM(t10.penalty_at_2lr), "the same at 2 lr",
         "about 4x smaller while lr >= ulp/2: a larger learning rate makes it negligible"),
    {"model_penalty", NUM(t10.model.penalty), "2 x 2 Lyapunov model, beta1 = %s",
     "the same for Adam with momentum (item 4): the step's noise r_m = %s spacings, exact "
     "excess %s, SR excess %s",
     {NUM(t10.beta1), NUM(t10.model.r_m), NUM(t10.model.excess_exact), NUM(t10.model.excess_sr)},
     ALWAYS},
    {"rn_freeze_lr", NUM(t10.rn_freeze_lr), "min(gaps at x0) / (2 (1 + delta))",
     "RN loses every step of a noise-free run from x0 = %s (stored) when lr is below this "
     "(item 5)",
     {NUM(t10.x0)}, ALWAYS},
    {"rn_at_x0", PICK(t10.rn_frozen, "frozen", "moves"), "%s", NULL,
     {PICK(t10.rn_frozen, "lr is below it: RN keeps the whole initial loss gap forever",
           "lr is above it: item 5 does not apply")}, ALWAYS},
    LINES_END,
};

static void c_t10(FILE *o, const th_view *t)
{
    fputs("\ntest it (mean loss_gap after 5000 steps, sr against fp32 with the same seeds):\n", o);
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --opt adam --beta1 0 --a %s --xstar %s --x0 %s "
                   "--grad-noise %s --lr %s %s --steps 25000 --log-every 10 --seeds 100\n",
                th_text(t, "a"), th_text(t, "xstar"), th_text(t, "xstar"), th_text(t, "sigma"),
                th_text(t, "lr"), k ? "--strategy fp32" : "--format bf16 --rounding sr");
    fputs("  srlab check T10\n", o);
}

const th_statement th_t10 = {
    "T10", "adam-convergence", "theory/T10-adam-convergence.md",
    "Adam with SR: the bound's rounding terms (SR u^2/lr, RN u/lr); the SR penalty on a noisy "
    "quadratic (ulp^2 sigma_g^2/(6 lr^2 sigma^2) for beta1 = 0 and lr >= ulp/2, a Lyapunov model "
    "for beta1 > 0); with RN every step is lost below a computable learning rate",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("xstar", "1.5", TH_REAL, xstar, "the point the iterate fluctuates around (sets ulp)"),
     KEY("a", "1", TH_POS, a, "curvature a > 0"),
     KEY("lr", "0.01", TH_POS, lr, "learning rate"),
     KEY("sigma", "1", TH_POS, sigma, "standard deviation of the gradient noise"),
     KEY("beta1", "0", TH_NONNEG, beta1, "Adam's first-moment decay of the model (0 <= beta1 < 1)"),
     KEY("x0", "1.5", TH_IN_RANGE, x0, "RN freeze: the stored start of a noise-free run"),
     KEY("delta", "3e-4", TH_NONNEG, delta,
         "RN freeze: the relative error of m_hat / sqrt(v_hat) (>= 0)"),
     KEY_END},
    e_t10, t10_lines, c_t10,
};

/* ---- T11 ---- */

static int e_t11(th_values *v, const th_view *t)
{
    srl_t11_eval(&v->t11, t->p->y, t->p->lr, &t->p->format);
    return 0;
}

static const th_line t11_lines[] = {
    LINE("a", NUM(t11.a), "y - RD(y)", ""),
    LINE("b", NUM(t11.b), "RU(y) - y", ""),
    LINE("s2", NUM(t11.s2), "ab = Var[SR(y)] (T01)", ""),
    LINE("shift", NUM(t11.shift), "f'''(y) s^2 / 2 = 3 y s^2",
         "E[f'(SR(y))] - f'(y) for f = x^4/4, leading term (item 4)"),
    LINE("shift_exact", NUM(t11.shift_exact), "3 y s^2 + ab (b - a)",
         "the same, exactly (f' is a cubic)"),
    LINE("remainder_bound", NUM(t11.remainder_bound), "q s^2 = ab (a + b)",
         "|shift_exact - shift| <= this; relatively <= 2u/3 in the normal range"),
    LINE("mean_step_shift", NUM(t11.mean_step_shift), "-lr 3 y s^2",
         "the mean gradient step from SR(y) minus the step from y: toward smaller |x|"),
    LINES_END,
};

static void c_t11(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (item 4 sampled at 64 points; item 2: on a quadratic the mean SR "
               "trajectory is the exact one):\n"
               "  srlab check T11\n"
               "  srlab train --problem quadratic --d 8 --kappa 10 --basis diag --x0 0 --opt sgd "
               "--lr %s --format %s --rounding sr --steps 100 --log-every 10 --seeds 200\n"
               "  srlab train --problem quadratic --d 8 --kappa 10 --basis diag --x0 0 --opt sgd "
               "--lr %s --format fp64 --grad-format fp64 --update-arith fp64 --steps 100 "
               "--log-every 10 --seeds 200\n",
            th_text(t, "lr"), t->p->format.name, th_text(t, "lr"));
}

const th_statement th_t11 = {
    "T11", "implicit-regularization", "theory/T11-implicit-regularization.md",
    "SR's mean iterate is exact on quadratics; on f = x^4/4 one SR rounding of y shifts the mean "
    "gradient by 3 y s^2 + ab(b - a)",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("y", "1.1", TH_IN_RANGE, y,
         "the exact value rounded (|y| <= the format's largest finite value)"),
     KEY("lr", "0.05", TH_POS, lr, "learning rate (the mean step moves by -lr times the shift)"),
     KEY_END},
    e_t11, t11_lines, c_t11,
};

/* ---- T12 ---- */

static int e_t12(th_values *v, const th_view *t)
{
    const th_params *p = t->p;
    srl_t12_eval(&v->t12, p->x, p->lr, p->update, p->steps, p->params, &p->format, p->rounding);
    if (!v->t12.in_range)
        return cli_error(th_cmd, "update: the weight %s stored in %s minus lr update = %g leaves "
                                 "the format's finite range",
                         th_text(t, "x"), p->format.name, p->lr * p->update);
    return 0;
}

static bool t12_small_step(const th_view *t)
{
    return t->v->t12.small_step;
}

static const th_line t12_lines[] = {
    {"xe", NUM(t12.xe), "RN(x) - lr update",
     "the new value every replica writes (stored weight %s)", {NUM(t12.x)}, ALWAYS},
    LINE("q", NUM(t12.q), "RU(xe) - RD(xe), the grid spacing there", ""),
    {"p_away", NUM(t12.p_away), "sr: (|xe| - T) / q; sr:r=R: floor(2^R f) / 2^R",
     "%s rounds xe away from zero with this probability", {PARAM_MODE(rounding)}, ALWAYS},
    LINE("diff_prob", NUM(t12.diff_prob), "2 p (1 - p)",
         "two replicas with independent streams differ after the step, by q (item 2)"),
    LINE("step_d2", NUM(t12.step_d2), "2 p (1 - p) q^2",
         "the mean squared distance one step adds between two replicas (item 3)"),
    {"step_d2_small", NUM(t12.step_d2_small), "2 lr |update| q",
     "item 4's approximation for a step below one spacing (theory/paper.md prediction 10)", NO_ARGS,
     t12_small_step},
    {"d2", NUM(t12.d2), "steps params step_d2",
     "E||x_r - x_0||^2 after %s steps, summed over params = %s weights with these statistics: "
     "linear in steps (a random walk)",
     {PARAM_U64(steps), PARAM_U64(params)}, ALWAYS},
    LINE("dist_rms", NUM(t12.dist_rms), "sqrt(d2)", "the distance grows like sqrt(steps)"),
    LINE("d2_shared", LITERAL("0"),
         "with shared SR streams the replicas stay bit-identical (item 1)", NULL),
    LINES_END,
};

static void c_t12(FILE *o, const th_view *t)
{
    const uint64_t steps = t->p->steps;
    char mn[32];
    srl_rounding_name(mn, sizeof mn, t->p->rounding);
    fputs("\ntest it (replica_d2 against replica_d2_pred; replica_div = 0 when shared):\n", o);
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem mlp --task teacher --depth 1 --width 16 --in-dim 4 "
                   "--out-dim 2 --samples 256 --val-samples 64 --batch-size 8 --replicas 4 "
                   "--sr-seed %s --format %s --rounding %s --opt adam --lr %s --steps %llu "
                   "--log-every %llu\n",
                k ? "shared" : "independent", t->p->format.name, mn, th_text(t, "lr"),
                (unsigned long long)steps, (unsigned long long)(steps / 10 ? steps / 10 : 1));
    fputs("  srlab check T12\n", o);
}

const th_statement th_t12 = {
    "T12", "replicas", "theory/T12-replicas.md",
    "data-parallel replicas: shared SR streams keep them identical; independent ones drift like "
    "a random walk, 2 p (1 - p) q^2 per step and weight",
    {KEY("format", "bf16", TH_FORMAT, format, "weight format"),
     KEY("rounding", "sr", TH_ROUNDING, rounding, "mode of the weight write"),
     KEY("x", "1.5", TH_IN_RANGE, x,
         "the weight (rounded to nearest into the format: the replicas' common value)"),
     KEY("lr", "0.001", TH_POS, lr, "learning rate"),
     KEY("update", "1", TH_REAL, update,
         "the optimizer's update (the step is lr update; Adam's is about +-1)"),
     KEY_COUNT("steps", "1000", steps, 0, UPTO_1E12, "number of steps"),
     KEY_COUNT("params", "1", params, 1, UPTO_1E12,
               "number of weights with these statistics (>= 1)"),
     KEY_END},
    e_t12, t12_lines, c_t12,
};

/* ---- T13 ---- */

/* The table of srl_t13_bytes for every preset strategy. */
static void c_t13(FILE *o, const th_view *t)
{
    fprintf(o, "  %-14s %6s %5s %3s %3s %7s %5s %6s\n", "strategy", "param", "grad", "m", "v",
            "master", "comp", "total");
    for (int i = 0; srl_strategy_names[i]; i++) {
        srl_strategy st;
        if (srl_strategy_preset(&st, srl_strategy_names[i], NULL) != SRL_OK)
            continue;
        const srl_bytes b = srl_t13_bytes(&st, (srl_optim_kind)t->p->opt);
        fprintf(o, "  %-14s %6zu %5zu %3zu %3zu %7zu %5zu %6zu\n", st.name, b.param, b.grad, b.m,
                b.v, b.master, b.comp, b.total);
    }
    fputs("\n  bytes per parameter actually allocated by srlab train (bf16 stored as 16-bit\n"
          "  patterns); the seed paper's table: fp32 16, mixed precision 16, bf16 and bf16+SR 8\n"
          "  (with Adam). Any custom strategy: srlab train ... prints its count in its '#' "
          "lines.\n",
          o);
}

const th_statement th_t13 = {
    "T13", "memory", "theory/T13-memory.md",
    "bytes per parameter of each strategy (weights, gradients, moments, master, compensation)",
    {KEY("opt", "adamw", TH_OPTIMIZER, opt, "optimizer: sgd, momentum, adam, adamw"), KEY_END},
    NULL, NULL, c_t13,
};
