/* src/cli/cmd_theory.c: `srlab theory NAME [key=value...]`: print the predictions of a theory/
 * statement for given parameters (DESIGN §9, §10).
 *
 * The numbers come from the library (include/srlab/theory.h: the same functions `srlab check`
 * and the tests use); this file only parses key=value arguments, lays the predictions out one
 * per line (name, value, formula or unit, one-line meaning), and prints the `srlab train`
 * commands that test them. Covered: T05, T06, T07, T08, T09, T13 (DESIGN §9 items 5-9, 13). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "srlab/optim.h"
#include "srlab/strategy.h"
#include "srlab/theory.h"

int cmd_theory(int argc, char **argv);

static const char *const cmd = "theory";

/* ---- statements and their keys ---- */

typedef struct tkey {
    const char *key, *def, *help;
} tkey;

#define MAXKEYS 10

typedef struct targs {
    const char *val[MAXKEYS];
} targs;

typedef struct statement {
    const char *id, *slug, *file, *title;
    tkey keys[MAXKEYS];
    int (*print)(FILE *o, const struct statement *s, const targs *a);
} statement;

static int p_t05(FILE *o, const statement *s, const targs *a);
static int p_t06(FILE *o, const statement *s, const targs *a);
static int p_t07(FILE *o, const statement *s, const targs *a);
static int p_t08(FILE *o, const statement *s, const targs *a);
static int p_t09(FILE *o, const statement *s, const targs *a);
static int p_t13(FILE *o, const statement *s, const targs *a);

static const statement statements[] = {
    {"T05", "gd-quadratic", "theory/T05-gd-quadratic.md",
     "gradient descent on f = a/2 (x - x*)^2: RN freezes and stalls at ulp/(2 lr a); SR is exact "
     "in mean with a floor independent of lr",
     {{"format", "bf16", "weight format"},
      {"a", "1", "curvature a > 0"},
      {"xstar", "0.3", "minimiser x*"},
      {"x0", "1", "initial point"},
      {"lr", "0.01", "learning rate"},
      {"grad-format", "fp32", "gradient format of the run to compare with"},
      {"update-arith", "fp32", "update arithmetic of that run: fp32 or fp64"},
      {"steps", "1000", "step at which the SR mean iterate is printed"},
      {NULL, NULL, NULL}},
     p_t05},
    {"T06", "noisy-sgd", "theory/T06-noisy-sgd.md",
     "noisy SGD: the relative SR penalty ulp^2 / (6 lr^2 sigma^2) falls like 1/lr^2",
     {{"format", "bf16", "weight format"},
      {"xstar", "1.5", "the point the iterate fluctuates around (sets ulp; keep its spread inside one binade)"},
      {"a", "1", "curvature a > 0"},
      {"lr", "0.01", "learning rate"},
      {"sigma", "1", "standard deviation of the gradient noise"},
      {NULL, NULL, NULL}},
     p_t06},
    {"T07", "sr-random-walk", "theory/T07-sr-random-walk.md",
     "SR at small learning rates is a random walk: moves per step ~ Bernoulli(lr |g| / ulp)",
     {{"format", "bf16", "weight format"},
      {"x", "1.5", "the weight (sets ulp; avoid powers of two, where the spacing below halves)"},
      {"lr", "1e-4", "learning rate"},
      {"g", "1.5", "gradient (held constant)"},
      {"steps", "10000", "number of steps for the move count"},
      {"distance", "0.0625", "distance to cover"},
      {NULL, NULL, NULL}},
     p_t07},
    {"T08", "weight-decay", "theory/T08-weight-decay.md",
     "decoupled weight decay is lost under RN for every x when lr wd <= 2^-(p+1) (2^-9 in bf16); "
     "SR applies it in mean",
     {{"format", "bf16", "weight format"},
      {"lr", "0.001", "learning rate"},
      {"wd", "0.1", "weight decay"},
      {"x", "1", "the weight"},
      {"steps", "1000", "number of steps"},
      {NULL, NULL, NULL}},
     p_t08},
    {"T09", "second-moment", "theory/T09-second-moment.md",
     "the bf16 second moment under RN with beta2 -> 1 cannot decrease and rises only when g^2 "
     "exceeds a computable multiple of v",
     {{"format", "bf16", "format of v"},
      {"beta2", "0.999", "second-moment decay, in [0.5, 1)"},
      {"v", "1", "the stored second moment (a positive normal value of the format)"},
      {NULL, NULL, NULL}},
     p_t09},
    {"T13", "memory", "theory/T13-memory.md",
     "bytes per parameter of each strategy (weights, gradients, moments, master, compensation)",
     {{"opt", "adamw", "optimizer: sgd, momentum, adam, adamw"}, {NULL, NULL, NULL}},
     p_t13},
};
#define NSTATEMENTS (sizeof statements / sizeof statements[0])

static const statement *find_statement(const char *name)
{
    for (size_t i = 0; i < NSTATEMENTS; i++)
        if (!strcasecmp(name, statements[i].id) || !strcmp(name, statements[i].slug))
            return &statements[i];
    return NULL;
}

static int key_index(const statement *s, const char *key, size_t klen)
{
    for (int k = 0; s->keys[k].key; k++)
        if (strlen(s->keys[k].key) == klen && !strncmp(s->keys[k].key, key, klen))
            return k;
    return -1;
}

static const char *val(const statement *s, const targs *a, const char *key)
{
    int k = key_index(s, key, strlen(key));
    return a->val[k] ? a->val[k] : s->keys[k].def;
}

/* ---- typed reads: 0 or an exit status after a message naming the key ---- */

static int get_real(const statement *s, const targs *a, const char *key, double *out)
{
    return cli_parse_real(cmd, key, val(s, a, key), out);
}

static int get_pos(const statement *s, const targs *a, const char *key, double *out)
{
    int rc = get_real(s, a, key, out);
    if (!rc && !(*out > 0))
        rc = cli_error(cmd, "%s: '%s' must be positive", key, val(s, a, key));
    return rc;
}

static int get_format(const statement *s, const targs *a, const char *key, srl_format *f)
{
    return cli_parse_format(cmd, key, val(s, a, key), f);
}

static int get_count(const statement *s, const targs *a, const char *key, uint64_t *out)
{
    return cli_parse_count(cmd, key, val(s, a, key), 0, UINT64_C(1000000000000), out);
}

/* ---- layout ---- */

static void line(FILE *o, const char *name, double v, const char *formula, const char *meaning)
{
    char b[CLI_NUM_LEN];
    fprintf(o, "  %-20s %-24s %s\n", name, cli_fmt_short(b, v), formula);
    if (meaning && *meaning)
        fprintf(o, "  %-20s %-24s %s\n", "", "", meaning);
}

static void text(FILE *o, const char *name, const char *v, const char *meaning)
{
    fprintf(o, "  %-20s %-24s %s\n", name, v, meaning);
}

static void header(FILE *o, const statement *s, const targs *a)
{
    fprintf(o, "%s %s\n%s (see %s)\nparameters:", s->id, s->slug, s->title, s->file);
    for (int k = 0; s->keys[k].key; k++)
        fprintf(o, " %s=%s", s->keys[k].key, val(s, a, s->keys[k].key));
    fputs("\n\n", o);
}

static const char *g(char *b, double x)
{
    return cli_fmt_short(b, x);
}

/* ---- T05 ---- */

static int p_t05(FILE *o, const statement *s, const targs *a)
{
    srl_format f, gf;
    double A, xs, x0, lr;
    uint64_t steps;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_pos(s, a, "a", &A)) ||
        (rc = get_real(s, a, "xstar", &xs)) || (rc = get_real(s, a, "x0", &x0)) ||
        (rc = get_pos(s, a, "lr", &lr)) || (rc = get_format(s, a, "grad-format", &gf)) ||
        (rc = get_count(s, a, "steps", &steps)))
        return rc;
    const char *ar = val(s, a, "update-arith");
    srl_arith arith;
    if (!strcmp(ar, "fp32"))
        arith = SRL_ARITH_FP32;
    else if (!strcmp(ar, "fp64"))
        arith = SRL_ARITH_FP64;
    else
        return cli_error(cmd, "update-arith: '%s' is not fp32 or fp64", ar);
    if (arith == SRL_ARITH_FP32 && (!srl_format_fits_float(&f) || !srl_format_fits_float(&gf)))
        return cli_error(cmd, "update-arith: fp32 cannot hold the values of %s and %s; use "
                              "update-arith=fp64", f.name, gf.name);
    header(o, s, a);
    char b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN], m[400];
    const double ulp = srl_format_ulp(&f, xs);
    const double D = srl_t05_stall_distance(xs, lr, A, &f);
    line(o, "u", f.u, "2^-p, unit roundoff of the weight format", "");
    line(o, "ulp(x*)", ulp, "grid spacing at x*", "");
    line(o, "freeze_grad", srl_t05_freeze_grad(xs, lr, &f), "ulp(x*) / (2 lr)",
         "RN loses a step lr*g at x* when |g| is below this");
    line(o, "stall_distance", D, "ulp(x*) / (2 lr a)",
         "RN gradient descent stops once |x - x*| < this (the freeze zone)");
    if (D >= ulp) {
        snprintf(m, sizeof m, "the stall point lies within one spacing inside the zone: "
                 "|x - x*| in [%s, %s]", g(b1, D - ulp), g(b2, D));
        line(o, "stall_band_width", ulp, "ulp(x*)", m);
    }
    srl_t05_stall st;
    if (srl_t05_rn_stall(&st, A, xs, x0, lr, &f, &gf, arith, 10000000) != SRL_OK)
        return cli_error(cmd, "internal error: srl_t05_rn_stall failed");
    if (st.fixed) {
        snprintf(m, sizeof m, "exact: the rounded map iterated from x0 (grad %s, update %s) "
                 "stops after step %llu", gf.name, ar, (unsigned long long)st.step);
        line(o, "rn_stall_x", st.x, "fixed point of x <- RN(x - lr RN_g(a (x - x*)))", m);
        snprintf(m, sizeof m, "ratio to the formula: %s", g(b3, st.distance / D));
        line(o, "rn_stall_distance", st.distance, "|rn_stall_x - x*|", m);
        line(o, "rn_stall_loss_gap", 0.5 * A * st.distance * st.distance, "a/2 distance^2",
             "the excess loss RN keeps forever");
    } else {
        line(o, "rn_iterate", st.x, "no fixed point within 10^7 steps",
             "(lr a > 1 oscillates; a zone narrower than a spacing can cycle)");
    }
    double g0, g1;
    srl_t05_neighbours(&g0, &g1, xs, &f);
    snprintf(m, sizeof m, "mean stationary excess loss under SR, on the grid neighbours %s <= "
             "x* <= %s; the same for every lr with 0 < lr a <= 1", g(b1, g0), g(b2, g1));
    line(o, "sr_floor", srl_t05_sr_floor(A, xs, &f), "(a/2)(x* - g0)(g1 - x*)", m);
    const double x0s = srl_round(x0, &f, SRL_ROUND_RN, NULL);
    snprintf(m, sizeof m, "E[x_t] under SR at t = steps = %llu: the exact GD iterate from the "
             "stored x0 = %s", (unsigned long long)steps, g(b1, x0s));
    line(o, "sr_mean_iterate", srl_t05_gd_iterate(A, xs, x0s, lr, steps),
         "x* + (1 - lr a)^t (x0 - x*)", m);
    fprintf(o, "\ntest it:\n  srlab train --problem quad1d --opt sgd --format %s --rounding rn "
               "--a %s --xstar %s --x0 %s --lr %s --steps %llu --log-every %llu\n",
            f.name, val(s, a, "a"), val(s, a, "xstar"), val(s, a, "x0"), val(s, a, "lr"),
            (unsigned long long)(st.step + 10), (unsigned long long)(st.step + 10));
    fprintf(o, "  srlab train --problem quad1d --opt sgd --format %s --rounding sr --a %s "
               "--xstar %s --x0 %s --lr %s --steps %llu --log-every 10 --seeds 100\n",
            f.name, val(s, a, "a"), val(s, a, "xstar"), val(s, a, "x0"), val(s, a, "lr"),
            (unsigned long long)steps);
    return 0;
}

/* ---- T06 ---- */

static int p_t06(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double xs, A, lr, sigma;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_real(s, a, "xstar", &xs)) ||
        (rc = get_pos(s, a, "a", &A)) || (rc = get_pos(s, a, "lr", &lr)) ||
        (rc = get_pos(s, a, "sigma", &sigma)))
        return rc;
    if (!(lr * A < 2))
        return cli_error(cmd, "lr: lr a = %g must be below 2 for SGD to be stable", lr * A);
    header(o, s, a);
    char b1[CLI_NUM_LEN], m[300];
    const double ulp = srl_format_ulp(&f, xs);
    const double ex = srl_t06_excess_exact(lr, sigma, A), esr = srl_t06_excess_sr(lr, ulp, A);
    const double spread = sqrt(lr * sigma * sigma / (A * (2 - lr * A)));
    line(o, "ulp(x*)", ulp, "grid spacing at x*", "");
    line(o, "excess_exact", ex, "lr sigma^2 / (2 (2 - lr a))  (~ lr sigma^2 / 4)",
         "stationary mean of f - f* in exact arithmetic");
    line(o, "excess_sr_extra", esr, "ulp^2 / (12 lr (2 - lr a))  (~ ulp^2 / (24 lr))",
         "what SR writes add to it");
    line(o, "relative_penalty", srl_t06_relative_penalty(lr, ulp, sigma),
         "ulp^2 / (6 lr^2 sigma^2)", "their ratio: 4x the learning rate makes it 16x smaller");
    snprintf(m, sizeof m, "the iterate's spread in ulps: %s (the formula assumes many ulps: the "
             "position within a grid cell is then uniform)", g(b1, spread / ulp));
    line(o, "spread_sd", spread, "sqrt(lr sigma^2 / (a (2 - lr a)))", m);
    line(o, "lr_for_1pct", ulp / (sigma * sqrt(0.06)), "ulp / (sigma sqrt(0.06))",
         "the learning rate at which the SR penalty is 1%");
    fprintf(o, "\ntest it (mean loss_gap over the late steps and seeds, sr against fp32):\n");
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --opt sgd --format %s --rounding %s --a %s "
                   "--xstar %s --x0 %s --lr %s --grad-noise %s --steps 20000 --log-every 100 "
                   "--seeds 20\n",
                k ? "fp32" : f.name, k ? "rn" : "sr", val(s, a, "a"), val(s, a, "xstar"),
                val(s, a, "xstar"), val(s, a, "lr"), val(s, a, "sigma"));
    return 0;
}

/* ---- T07 ---- */

static int p_t07(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double x, lr, gr, dist;
    uint64_t steps;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_real(s, a, "x", &x)) ||
        (rc = get_pos(s, a, "lr", &lr)) || (rc = get_real(s, a, "g", &gr)) ||
        (rc = get_count(s, a, "steps", &steps)) || (rc = get_pos(s, a, "distance", &dist)))
        return rc;
    const double ulp = srl_format_ulp(&f, x);
    const double p = srl_t07_move_prob(lr, gr, ulp);
    if (!(p > 0 && p < 1))
        return cli_error(cmd, "lr: the drift lr |g| = %g must lie strictly between 0 and one "
                              "spacing ulp(x) = %g for a random walk", lr * fabs(gr), ulp);
    header(o, s, a);
    char m[300], b1[CLI_NUM_LEN], b2[CLI_NUM_LEN];
    line(o, "ulp(x)", ulp, "grid spacing at x", "");
    line(o, "drift", lr * fabs(gr), "lr |g|", "the exact step, below one spacing");
    line(o, "move_prob", p, "lr |g| / ulp", "SR moves one spacing with this probability per step");
    text(o, "rn", lr * fabs(gr) < ulp / 2 ? "frozen" : "moves",
         lr * fabs(gr) < ulp / 2 ? "RN never moves (lr |g| < ulp/2): stagnation"
                                 : "RN moves every step by one spacing (lr |g| >= ulp/2)");
    const double T = (double)steps, mean = T * p, sd = sqrt(T * p * (1 - p));
    snprintf(m, sizeof m, "moves in %llu steps: Binomial(steps, p), mean %s, sd %s",
             (unsigned long long)steps, g(b1, mean), g(b2, sd));
    line(o, "moves_mean", mean, "steps p", m);
    line(o, "wait_mean", 1 / p, "ulp / (lr |g|)", "mean steps between moves (geometric)");
    double cm, csd;
    srl_t07_cover_steps(&cm, &csd, dist, ulp, p);
    snprintf(m, sizeof m, "steps to cover distance %s at constant g: the exact drift needs the "
             "same mean; SR adds the spread", val(s, a, "distance"));
    line(o, "cover_mean", cm, "(distance / ulp) / p = distance / (lr |g|)", m);
    line(o, "cover_sd", csd, "sqrt((distance/ulp)(1 - p)) / p", "negative binomial spread");
    fprintf(o, "\ntest it (1 - lost_update_frac per step is the move indicator; g = a (x - x*) "
               "is nearly constant while |x - x*| >> distance):\n"
               "  srlab train --problem quad1d --opt sgd --format %s --rounding sr --a %s --xstar "
               "0 --x0 %s --lr %s --steps %llu --log-every 1 --seeds 10\n",
            f.name, g(b1, fabs(gr / x)), val(s, a, "x"), val(s, a, "lr"),
            (unsigned long long)steps);
    return 0;
}

/* ---- T08 ---- */

static int p_t08(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double lr, wd, x;
    uint64_t steps;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_pos(s, a, "lr", &lr)) ||
        (rc = get_pos(s, a, "wd", &wd)) || (rc = get_real(s, a, "x", &x)) ||
        (rc = get_count(s, a, "steps", &steps)))
        return rc;
    if (!(lr * wd < 1))
        return cli_error(cmd, "wd: lr wd = %g must be below 1", lr * wd);
    const double xs = srl_round(x, &f, SRL_ROUND_RN, NULL);
    if (!(fabs(xs) >= f.xmin) || !isfinite(xs))
        return cli_error(cmd, "x: %s must round to a normal value of %s", val(s, a, "x"), f.name);
    header(o, s, a);
    char m[300], b1[CLI_NUM_LEN];
    const double lw = lr * wd, th = srl_t08_threshold(&f);
    line(o, "lr_wd", lw, "lr wd", "the relative decrement of one decay step");
    snprintf(m, sizeof m, "2^-(p+1): decay lost for every x at or below it; here lr wd is %s it",
             lw <= th ? "at or below" : "above");
    line(o, "threshold", th, m, "");
    line(o, "lost_fraction", srl_t08_lost_fraction(lw, &f), "exact count over a binade",
         "fraction of the format's values whose decay RN rounds away");
    const bool lost = srl_t08_rn_decay_lost(xs, lw, &f);
    snprintf(m, sizeof m, "x = %s (stored): RN(x (1 - lr wd)) %s x", g(b1, xs),
             lost ? "==" : "!=");
    text(o, "rn_at_x", lost ? "lost" : "applied", m);
    snprintf(m, sizeof m, "E[x_T] under SR after T = %llu decay steps", (unsigned long long)steps);
    line(o, "sr_mean_x_T", xs * pow(1 - lw, (double)steps), "x (1 - lr wd)^T", m);
    line(o, "rn_x_T", lost ? xs : NAN, "x when lost", "RN leaves x unchanged forever");
    fprintf(o, "\ntest it (a = 0: no loss gradient, weight decay alone):\n");
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --a 0 --xstar 0 --x0 %s --opt adamw --wd %s "
                   "--lr %s --strategy %s --steps %llu --log-every %llu%s\n",
                val(s, a, "x"), val(s, a, "wd"), val(s, a, "lr"), k ? "bf16-sr" : "bf16-rn",
                (unsigned long long)steps, (unsigned long long)(steps / 10 ? steps / 10 : 1),
                k ? " --seeds 100" : "");
    return 0;
}

/* ---- T09 ---- */

static int p_t09(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double beta2, v;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_real(s, a, "beta2", &beta2)) ||
        (rc = get_pos(s, a, "v", &v)))
        return rc;
    srl_t09 t;
    if (srl_t09_second_moment(&t, v, beta2, &f) != SRL_OK)
        return cli_error(cmd, "v, beta2: v must be a positive normal value of %s and beta2 lie in "
                              "[0.5, 1) (got v=%s, beta2=%s)", f.name, val(s, a, "v"),
                         val(s, a, "beta2"));
    header(o, s, a);
    char m[300];
    const double nd = srl_t09_no_decrease_bound(&f);
    snprintf(m, sizeof m, "no v can ever decrease when 1 - beta2 <= 2^-(p+1); here 1 - beta2 = "
             "%g is %s", 1 - beta2, 1 - beta2 <= nd ? "below: v is a ratchet" : "above");
    line(o, "no_decrease_bound", nd, "2^-(p+1)", m);
    text(o, "can_decrease", t.can_decrease ? "yes" : "no",
         "whether any g (g = 0 is the extreme) makes the stored v smaller");
    line(o, "v_min_next", t.v_min_next, "RN(beta2 v)", "the smallest value one write can store");
    line(o, "rise_ratio", t.rise_ratio, "1 + ulp(v) / (2 (1 - beta2) v)",
         "v rises only when g^2 exceeds this multiple of v");
    double lo, hi;
    srl_t09_rise_range(&lo, &hi, beta2, &f);
    line(o, "rise_ratio_min", lo, "1 + 1/(2 (1 - beta2) (2^p - 1))", "over a binade: v just "
         "below a power of two");
    line(o, "rise_ratio_max", hi, "1 + 1/(2 (1 - beta2) 2^(p-1))", "v a power of two");
    fprintf(o, "\ntest it (columns v; gradient = pure noise of sd 1, so E[g^2] = 1):\n"
               "  srlab train --problem quad1d --a 0 --opt adam --beta2 %s --strategy bf16-rn "
               "--grad-noise 1 --steps 5000 --log-every 1\n"
               "  srlab train --problem quad1d --a 0 --opt adam --beta2 %s --strategy fp32 "
               "--grad-noise 1 --steps 5000 --log-every 1\n",
            val(s, a, "beta2"), val(s, a, "beta2"));
    return 0;
}

/* ---- T13 ---- */

static int p_t13(FILE *o, const statement *s, const targs *a)
{
    const char *on = val(s, a, "opt");
    int k = -1;
    for (int i = 0; srl_opt_names[i]; i++)
        if (!strcmp(on, srl_opt_names[i]))
            k = i;
    if (k < 0)
        return cli_error(cmd, "opt: unknown optimizer '%s' (known: sgd, momentum, adam, adamw)",
                         on);
    header(o, s, a);
    fprintf(o, "  %-14s %6s %5s %3s %3s %7s %5s %6s\n", "strategy", "param", "grad", "m", "v",
            "master", "comp", "total");
    for (int i = 0; srl_strategy_names[i]; i++) {
        srl_strategy st;
        if (srl_strategy_preset(&st, srl_strategy_names[i], NULL) != SRL_OK)
            continue;
        const srl_bytes b = srl_t13_bytes(&st, (srl_opt_kind)k);
        fprintf(o, "  %-14s %6zu %5zu %3zu %3zu %7zu %5zu %6zu\n", st.name, b.param, b.grad, b.m,
                b.v, b.master, b.comp, b.total);
    }
    fputs("\n  bytes per parameter actually allocated by srlab train (bf16 stored as 16-bit\n"
          "  patterns); the seed paper's table: fp32 16, mixed precision 16, bf16 and bf16+SR 8\n"
          "  (with Adam). Any custom strategy: srlab train ... prints its count in its '#' "
          "lines.\n",
          o);
    return 0;
}

/* ---- the command ---- */

static void list(FILE *o)
{
    fputs("usage: srlab theory NAME [key=value...]\n"
          "\n"
          "Print the predictions of a theory/ statement for given parameters, each with its\n"
          "formula and meaning, and the srlab train commands that test it. NAME is an id (T05)\n"
          "or a slug (gd-quadratic); keys not given take the defaults shown.\n"
          "\n"
          "statements:\n",
          o);
    for (size_t i = 0; i < NSTATEMENTS; i++) {
        const statement *s = &statements[i];
        fprintf(o, "  %s %s\n      %s\n      keys:", s->id, s->slug, s->title);
        for (int k = 0; s->keys[k].key; k++)
            fprintf(o, " %s=%s", s->keys[k].key, s->keys[k].def);
        fputc('\n', o);
    }
    fputs("\nexamples:\n"
          "  srlab theory T05 format=bf16 lr=0.01 xstar=0.3\n"
          "  srlab theory noisy-sgd lr=0.003 sigma=0.1\n"
          "  srlab theory T08 lr=1e-3 wd=0.1\n"
          "  srlab theory T13 opt=adamw\n",
          o);
}

static void statement_help(FILE *o, const statement *s)
{
    fprintf(o, "usage: srlab theory %s [key=value...]\n\n%s %s: %s (see %s)\n\nkeys:\n", s->id,
            s->id, s->slug, s->title, s->file);
    for (int k = 0; s->keys[k].key; k++)
        fprintf(o, "  %-14s %s (default %s)\n", s->keys[k].key, s->keys[k].help, s->keys[k].def);
    fprintf(o, "\nexample:\n  srlab theory %s\n", s->id);
}

int cmd_theory(int argc, char **argv)
{
    static const cli_opt opts[] = {{NULL, 0, NULL}};
    cli_args a;
    cli_args_init(&a, cmd, opts, argc, argv);
    const statement *s = NULL;
    targs ta;
    memset(&ta, 0, sizeof ta);
    bool help = false;
    char q[CLI_QUOTE_LEN];
    int k, rc = 0;
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        if (k == CLI_ARGS_HELP) {
            help = true;
        } else if (k == CLI_ARGS_BAD) {
            rc = CLI_EXIT_USAGE;
        } else if (k == CLI_ARGS_POSITIONAL && !s) {
            s = find_statement(a.val);
            if (!s) {
                cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX);
                rc = cli_error(cmd, "unknown statement %s (known: T05 gd-quadratic, T06 "
                                    "noisy-sgd, T07 sr-random-walk, T08 weight-decay, T09 "
                                    "second-moment, T13 memory)", q);
            }
        } else if (k == CLI_ARGS_POSITIONAL) {
            const char *eq = strchr(a.val, '=');
            int ki = eq ? key_index(s, a.val, (size_t)(eq - a.val)) : -1;
            cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX);
            if (!eq)
                rc = cli_error(cmd, "%s: expected key=value (see 'srlab theory %s --help')", q,
                               s->id);
            else if (ki < 0)
                rc = cli_error(cmd, "%s: unknown key for %s (see 'srlab theory %s --help')", q,
                               s->id, s->id);
            else if (ta.val[ki])
                rc = cli_error(cmd, "%s: key given twice", q);
            else
                ta.val[ki] = eq + 1;
        }
    }
    if (rc)
        return rc;
    cli_out o;
    if ((rc = cli_out_open(&o, cmd, NULL, NULL)))
        return rc;
    if (!s)
        list(o.fp);
    else if (help)
        statement_help(o.fp, s);
    else
        rc = s->print(o.fp, s, &ta);
    if (rc) {
        cli_out_abort(&o);
        return rc;
    }
    return cli_out_commit(&o);
}
