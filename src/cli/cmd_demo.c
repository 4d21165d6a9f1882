/* src/cli/cmd_demo.c: `srlab demo [NAME]`: short terminal demonstrations for teaching.
 *
 * Each demo prints, step by step, what happens to the numbers and why, using only the library's
 * exact operations and rounding (srl_op_apply, srl_round), and ends with the srlab command that
 * makes its figure. Randomness: seed 1 unless --seed is given, echoed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "srlab/ops.h"
#include "srlab/rounding.h"

static const char help_text[] =
    "usage: srlab demo [NAME] [--seed S]\n"
    "\n"
    "Short demonstrations of rounding, printed step by step (seed 1 by default):\n"
    "  accumulate  1.0 + 0.001 added a thousand times in bf16 under rn and sr\n"
    "  harmonic    the harmonic series stagnating in bf16 under rn, growing under sr\n"
    "  gd          gradient descent freezing under rn and creeping under sr at a small\n"
    "              learning rate (bf16 weights)\n"
    "  replicas    two data-parallel replicas drifting apart with independent SR draws,\n"
    "              staying identical with shared draws\n"
    "'srlab demo' alone lists them.\n"
    "\n"
    "examples:\n"
    "  srlab demo accumulate\n"
    "  srlab demo gd --seed 7\n";

/* ---- small helpers ---- */

static srl_rounding mode_of(srl_mode m)
{
    srl_rounding r = {m, 0};
    return r;
}

static const char *num(char *buf, double x)
{
    return cli_fmt_short(buf, x);
}

/* s <- round(s + t) in f with mode m (one exact addition, one rounding). */
static double add(double s, double t, const srl_format *f, srl_mode m, srl_rng *rng)
{
    return srl_op_apply(SRL_ADD, s, t, 0.0, f, mode_of(m), rng);
}

/* ---- accumulate ---- */

static int demo_accumulate(FILE *o, uint64_t seed)
{
    const srl_format *bf = srl_format_find("bf16");
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], c[CLI_NUM_LEN], d[CLI_NUM_LEN];
    const int n = 1000;
    const double t = srl_round(0.001, bf, mode_of(SRL_RN), NULL);
    fprintf(o, "Adding 0.001 to 1.0 a thousand times in bf16 (p = 8 significant bits, u = 2^-8).\n"
               "seed %llu (pcg32)\n\n", (unsigned long long)seed);
    fprintf(o, "1. The term. 0.001 is not a bf16 number; the nearest one is %s (%s).\n",
            num(a, t), cli_fmt_hexn(b, t));
    const double ulp1 = srl_format_ulp(bf, 1.0);
    fprintf(o, "2. The first addition. The exact sum 1 + t = %s lies between the\n"
               "   bf16 neighbours 1 and %s: the spacing there is ulp(1) = 2^-7 = %s, and\n"
               "   the term t = %s covers %.4f of it.\n",
            num(b, 1.0 + t), num(c, 1.0 + ulp1), num(d, ulp1), num(a, t), t / ulp1);
    fprintf(o, "   rn: %.4f < 1/2, so 1 + t rounds back to 1. The next addition is the same\n"
               "       computation, and so is every one after it: the sum is stuck at 1 for\n"
               "       ever. This is stagnation: every update below half an ulp is lost.\n",
            t / ulp1);
    fprintf(o, "   sr: rounds up with probability %.4f (the fraction of the gap the exact sum\n"
               "       covers), down otherwise, so on average the sum moves by exactly t.\n\n",
            t / ulp1);
    fprintf(o, "3. The run (one seed for sr; exact = 1 + k t):\n"
               "       k  %-10s  %-10s  %s\n", "rn", "sr", "exact");
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, seed, 0);
    double s_rn = 1.0, s_sr = 1.0;
    for (int k = 1; k <= n; k++) {
        s_rn = add(s_rn, t, bf, SRL_RN, NULL);
        s_sr = add(s_sr, t, bf, SRL_SR, &rng);
        if (k == 1 || k == 10 || k == 100 || k == 250 || k == 500 || k == 1000)
            fprintf(o, "    %4d  %-10s  %-10s  %s\n", k, num(a, s_rn), num(b, s_sr),
                    num(c, 1.0 + k * t));
    }
    /* the mean over many independent runs */
    const int runs = 200;
    double mean = 0, m2 = 0;
    for (int r = 0; r < runs; r++) {
        srl_rng g;
        srl_rng_init(&g, SRL_RNG_DEFAULT, seed, 1000 + (uint64_t)r);
        double s = 1.0;
        for (int k = 1; k <= n; k++)
            s = add(s, t, bf, SRL_SR, &g);
        double dlt = s - mean;
        mean += dlt / (r + 1);
        m2 += dlt * (s - mean);
    }
    const double sd = sqrt(m2 / (runs - 1));
    const double exact = 1.0 + n * t;
    fprintf(o, "\n4. Over %d independent sr runs the final sum averages %.5f (standard\n"
               "   deviation %.4f, standard error %.4f) against the exact %.5f: the mean is\n"
               "   off by %.1f standard errors, which is chance. One run's error is noise of a\n"
               "   few ulps, not a bias (theory/T01: E[sr(x)] = x). rn is off by %.5f, all of it\n"
               "   bias.\n",
            runs, mean, sd, sd / sqrt(runs), exact, fabs(mean - exact) / (sd / sqrt(runs)),
            exact - s_rn);
    fprintf(o, "\nThe figure (summation error against n, with the n u and sqrt(n) u bounds):\n"
               "  srlab sweep experiments/summation.ini --quick -o sum.csv\n"
               "  srlab plot sum_error --in sum.csv -o sum.png\n");
    return 0;
}

/* ---- harmonic ---- */

static int demo_harmonic(FILE *o, uint64_t seed)
{
    const srl_format *bf = srl_format_find("bf16");
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], c[CLI_NUM_LEN], d[CLI_NUM_LEN];
    fprintf(o, "The harmonic series 1 + 1/2 + 1/3 + ... summed in bf16 (each 1/k rounded once,\n"
               "each partial sum rounded once). The exact series diverges like ln n.\n"
               "seed %llu (pcg32)\n\n", (unsigned long long)seed);
    double s = 1.0;
    int stuck = 0;
    for (int k = 2; k <= 200 && !stuck; k++) {
        const double t = srl_op_apply(SRL_DIV, 1.0, k, 0.0, bf, mode_of(SRL_RN), NULL);
        const double s2 = add(s, t, bf, SRL_RN, NULL);
        if (s2 == s) {
            const double u = srl_format_ulp(bf, s);
            fprintf(o, "rn: at k = %d the sum is %s, whose ulp is %s. The term 1/%d = %s is\n"
                       "    less than half of it (%s), so s + 1/%d rounds back to s. Every later\n"
                       "    term is smaller still: the sum stays %s for ever.\n",
                    k, num(a, s), num(b, u), k, num(c, t), num(d, u / 2), k, num(a, s));
            stuck = k;
        }
        s = s2;
    }
    fprintf(o, "\nsr: the same sum with stochastic rounding, against the exact partial sums:\n"
               "       k  %-10s  %-10s  %s\n", "rn", "sr", "exact H_k");
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, seed, 0);
    double s_rn = 1.0, s_sr = 1.0, h = 1.0;
    for (int k = 2; k <= 10000; k++) {
        s_rn = add(s_rn, srl_op_apply(SRL_DIV, 1.0, k, 0.0, bf, mode_of(SRL_RN), NULL), bf,
                   SRL_RN, NULL);
        s_sr = add(s_sr, srl_op_apply(SRL_DIV, 1.0, k, 0.0, bf, mode_of(SRL_SR), &rng), bf,
                   SRL_SR, &rng);
        h += 1.0 / k;
        if (k == 10 || k == 65 || k == 100 || k == 1000 || k == 10000)
            fprintf(o, "   %5d  %-10s  %-10s  %s\n", k, num(a, s_rn), num(b, s_sr), num(c, h));
    }
    fprintf(o, "\nUnder sr no term is ever lost for good: a term t moves the sum up with\n"
               "probability t/ulp, so the expected sum is the exact one (theory/T03).\n");
    fprintf(o, "\nThe figure (relative error of the partial sums, rn against sr):\n"
               "  srlab sweep experiments/harmonic.ini --quick -o harmonic.csv\n"
               "  srlab plot sum_error --in harmonic.csv --set where=format=bf16 -o harmonic.png\n");
    (void)stuck;
    return 0;
}

/* ---- gradient descent ---- */

static int demo_gd(FILE *o, uint64_t seed)
{
    const srl_format *bf = srl_format_find("bf16");
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], c[CLI_NUM_LEN], d[CLI_NUM_LEN];
    const double A = 1.0, xstar = 1.3, x0 = 0.0, lr = 0.01;
    fprintf(o, "Gradient descent on f(x) = a/2 (x - x*)^2 with a = %s, x* = %s, from x0 = %s,\n"
               "learning rate %s; the weight x is stored in bf16, the update computed exactly\n"
               "and written with rn or sr: x <- round(x - lr a (x - x*)).\n"
               "seed %llu (pcg32)\n\n",
            num(a, A), num(b, xstar), num(c, x0), num(d, lr), (unsigned long long)seed);
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, seed, 0);
    const double xs = srl_round(xstar, bf, mode_of(SRL_RN), NULL);
    double x_rn = x0, x_sr = x0, x_ex = x0;
    long frozen = -1;
    fprintf(o, "  step  %-12s %-12s %-12s  update (rn)  ulp(x)/2 (rn)\n", "rn", "sr", "exact");
    for (long k = 0; k <= 2000; k++) {
        const double upd = -lr * A * (x_rn - xs);
        const double hu = srl_format_ulp(bf, x_rn) / 2;
        if (k == 0 || k == 10 || k == 50 || k == 100 || k == 200 || k == 500 || k == 1000 ||
            k == 2000)
            fprintf(o, "  %4ld  %-12s %-12s %-12.7g  %-11.4g  %.4g\n", k, num(a, x_rn),
                    num(b, x_sr), x_ex, upd, hu);
        double nx = srl_round(x_rn + upd, bf, mode_of(SRL_RN), NULL);
        if (frozen < 0 && nx == x_rn && upd != 0)
            frozen = k;
        x_rn = nx;
        x_sr = srl_round(x_sr - lr * A * (x_sr - xs), bf, mode_of(SRL_SR), &rng);
        x_ex = x_ex - lr * A * (x_ex - xs);
    }
    const double ulp = srl_format_ulp(bf, x_rn);
    fprintf(o, "\nrn froze at step %ld: from then on |lr a (x - x*)| < ulp(x)/2, so every update\n"
               "rounds away. It stalls at distance %s from x*; the prediction ulp/(2 lr a) =\n"
               "%s (theory/T05) is the largest distance at which that can happen.\n",
            frozen, num(a, fabs(x_rn - xs)), num(b, ulp / (2 * lr * A)));
    fprintf(o, "sr keeps moving: an update of a fraction of an ulp moves x one ulp with that\n"
               "probability, so E[x] follows the exact iterate (a random walk at small lr,\n"
               "theory/T07), and x ends within a few ulps of x*.\n");
    fprintf(o, "\nThe figure (stall distance against the learning rate, with the theory line):\n"
               "  srlab sweep experiments/stall.ini --quick -o stall.csv\n"
               "  srlab plot stall --in stall.summary.csv -o stall.png\n");
    return 0;
}

/* ---- replicas ---- */

static int demo_replicas(FILE *o, uint64_t seed)
{
    const srl_format *bf = srl_format_find("bf16");
    enum { D = 1000 };
    static double x[3][D], xs[D];
    char a[CLI_NUM_LEN];
    const double lr = 0.01;
    fprintf(o, "Three replicas of a %d-weight model (bf16 weights) train data-parallel on\n"
               "f(x) = 1/2 |x - x*|^2: every step all replicas hold the same weights and apply\n"
               "the same averaged gradient, lr %s, and write their weights with sr.\n"
               "Replicas 0 and 1 draw from the SAME stream (shared randomness, as the seed paper\n"
               "prescribes); replica 2 draws from its own stream.\n"
               "seed %llu (pcg32)\n\n", D, num(a, lr), (unsigned long long)seed);
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_DEFAULT, seed, 7);
    for (int i = 0; i < D; i++) {
        xs[i] = srl_round(srl_rng_normal(&data), bf, mode_of(SRL_RN), NULL);
        x[0][i] = x[1][i] = x[2][i] = 0.0;
    }
    srl_rng shared, own;
    srl_rng_init(&shared, SRL_RNG_DEFAULT, seed, 100);
    srl_rng_init(&own, SRL_RNG_DEFAULT, seed, 200);
    fprintf(o, "  step  differing weights (0 vs 1)  (0 vs 2)   |x0 - x2| / |x0|\n");
    for (int k = 1; k <= 1000; k++) {
        srl_rng s1 = shared; /* replicas 0 and 1 consume the same draws */
        for (int i = 0; i < D; i++) {
            /* the averaged gradient, from replica 0's weights (all replicas see the same one) */
            const double g = x[0][i] - xs[i];
            x[0][i] = srl_round(x[0][i] - lr * g, bf, mode_of(SRL_SR), &shared);
            x[1][i] = srl_round(x[1][i] - lr * g, bf, mode_of(SRL_SR), &s1);
            x[2][i] = srl_round(x[2][i] - lr * g, bf, mode_of(SRL_SR), &own);
        }
        if (k == 1 || k == 10 || k == 100 || k == 1000) {
            int d01 = 0, d02 = 0;
            double dist = 0, nrm = 0;
            for (int i = 0; i < D; i++) {
                d01 += x[0][i] != x[1][i];
                d02 += x[0][i] != x[2][i];
                dist += (x[0][i] - x[2][i]) * (x[0][i] - x[2][i]);
                nrm += x[0][i] * x[0][i];
            }
            fprintf(o, "  %4d  %-27d %-10d %.3g\n", k, d01, d02, nrm > 0 ? sqrt(dist / nrm) : 0.0);
        }
    }
    fprintf(o, "\nWith shared draws the replicas make the same choice for every weight: they stay\n"
               "bit-identical for ever. With independent draws a weight whose update is a\n"
               "fraction p of an ulp goes different ways with probability 2p(1-p) per step, and\n"
               "the replicas drift apart like a random walk (theory/T12).\n");
    fprintf(o, "\nThe figure (replica distance against step, shared against independent):\n"
               "  srlab sweep experiments/gpt_replicas.ini --quick -o replicas.csv\n"
               "  srlab plot gpt_replicas --in replicas.csv -o replicas.png\n");
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(FILE *, uint64_t);
    const char *what;
} demos[] = {
    {"accumulate", demo_accumulate, "1.0 + 0.001 a thousand times in bf16, rn against sr"},
    {"harmonic", demo_harmonic, "the harmonic series stagnating in bf16 under rn"},
    {"gd", demo_gd, "gradient descent freezing under rn, creeping under sr"},
    {"replicas", demo_replicas, "replicas drifting apart with independent SR draws"},
};

int cmd_demo(int argc, char **argv)
{
    static const cli_opt opts[] = {{"seed", 0, "S"}, {NULL, 0, NULL}};
    cli_args a;
    cli_args_init(&a, "demo", opts, argc, argv);
    const char *name = NULL;
    uint64_t seed = 1;
    int rc;
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP)
            return cli_help(help_text);
        if (k == CLI_ARGS_BAD)
            return CLI_EXIT_USAGE;
        if (k == CLI_ARGS_POSITIONAL) {
            if (name)
                return cli_error("demo", "one demo at a time: '%s' after '%s'", a.val, name);
            name = a.val;
        } else if ((rc = cli_parse_seed("demo", a.opt, a.val, &seed))) {
            return rc;
        }
    }
    const size_t nd = sizeof demos / sizeof *demos;
    if (!name) {
        printf("srlab demo NAME: short demonstrations, printed step by step\n\n");
        for (size_t i = 0; i < nd; i++)
            printf("  %-11s %s\n", demos[i].name, demos[i].what);
        printf("\nexample: srlab demo accumulate\n");
        return 0;
    }
    for (size_t i = 0; i < nd; i++) {
        if (strcmp(name, demos[i].name))
            continue;
        cli_out o;
        if ((rc = cli_out_open(&o, "demo", NULL, NULL)))
            return rc;
        if ((rc = demos[i].fn(o.fp, seed))) {
            cli_out_abort(&o);
            return rc;
        }
        return cli_out_commit(&o);
    }
    char list[256] = "";
    for (size_t i = 0; i < nd; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 demos[i].name);
    return cli_error("demo", "unknown demo '%s' (known: %s)", name, list);
}
