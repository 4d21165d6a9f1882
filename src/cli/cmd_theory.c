/* src/cli/cmd_theory.c: `srlab theory NAME [key=value...]`: print the predictions of a theory/
 * statement for given parameters (docs/design.md §9, §10).
 *
 * The numbers come from the library (include/srlab/theory.h: the
 * same functions `srlab check`, the runners and the tests use); this file only parses key=value
 * arguments, lays the predictions out one per line (name, value, formula or unit, one-line
 * meaning), and prints the `srlab round`, `srlab run`, `srlab train` and `srlab check` commands
 * that test them. Covered: every statement of theory/, T01-T13 (docs/design.md §9 items 1-13). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
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

static int p_t01(FILE *o, const statement *s, const targs *a);
static int p_t02(FILE *o, const statement *s, const targs *a);
static int p_t03(FILE *o, const statement *s, const targs *a);
static int p_t04(FILE *o, const statement *s, const targs *a);
static int p_t05(FILE *o, const statement *s, const targs *a);
static int p_t06(FILE *o, const statement *s, const targs *a);
static int p_t07(FILE *o, const statement *s, const targs *a);
static int p_t08(FILE *o, const statement *s, const targs *a);
static int p_t09(FILE *o, const statement *s, const targs *a);
static int p_t10(FILE *o, const statement *s, const targs *a);
static int p_t11(FILE *o, const statement *s, const targs *a);
static int p_t12(FILE *o, const statement *s, const targs *a);
static int p_t13(FILE *o, const statement *s, const targs *a);

static const statement statements[] = {
    {"T01", "sr-basics", "theory/T01-sr-basics.md",
     "SR is unbiased with variance (x - RD(x))(RU(x) - x) <= ulp^2/4; |RN(x) - x| <= u|x|, "
     "|SR(x) - x| < 2u|x|",
     {{"format", "bf16", "format rounded into"},
      {"x", "0.1", "the exact value rounded (|x| <= the format's largest finite value)"},
      {NULL, NULL, NULL}},
     p_t01},
    {"T02", "sr-bits-bias", "theory/T02-sr-bits-bias.md",
     "SR with R random bits (sr:r=R) is biased toward zero by q (f - floor(f 2^R) 2^-R) < q 2^-R",
     {{"format", "bf16", "format rounded into"},
      {"x", "0.1", "the exact value rounded (|x| <= the format's largest finite value)"},
      {"r", "4", "random bits R, 1 to 64"},
      {NULL, NULL, NULL}},
     p_t02},
    {"T03", "summation", "theory/T03-summation.md",
     "summation: |s - S| <= gamma_h sum|x_i| always; ~ lambda sqrt(n) u with high probability "
     "under SR; the harmonic series stagnates at a computable term under RN",
     {{"format", "bf16", "format of the terms and the accumulator"},
      {"rounding", "rn", "mode of every addition"},
      {"n", "1000", "number of terms, 1 to 2^32"},
      {"order", "recursive", "summation order: recursive, pairwise or blocked:K"},
      {"lambda", "3", "lambda of the probabilistic SR bound (> 0)"},
      {"nmax", "10000000", "harmonic series: the last term searched for stagnation, 1 to 2^30 "
                           "(about 0.05 s per million terms)"},
      {NULL, NULL, NULL}},
     p_t03},
    {"T04", "matvec", "theory/T04-matvec.md",
     "matrix-vector products: backward error <= theta ~ n u always; ~ 2 lambda sqrt(n) u with "
     "high probability under SR",
     {{"format", "bf16", "format of A, x, the products and the accumulator"},
      {"rounding", "rn", "mode of every product and addition"},
      {"n", "1024", "columns of A (terms of each inner product), 1 to 2^24"},
      {"m", "16", "rows of A, 1 to 2^24"},
      {"order", "recursive", "inner-product order: recursive, pairwise or blocked:K"},
      {"lambda", "3", "lambda of the probabilistic SR bound (> 0)"},
      {NULL, NULL, NULL}},
     p_t04},
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
    {"T10", "adam-convergence", "theory/T10-adam-convergence.md",
     "Adam with SR: the SR penalty ulp^2 sigma_g^2 / (6 lr^2 sigma^2) falls like 1/lr^2; with RN "
     "every step is lost below a computable learning rate",
     {{"format", "bf16", "weight format"},
      {"xstar", "1.5", "the point the iterate fluctuates around (sets ulp)"},
      {"a", "1", "curvature a > 0"},
      {"lr", "0.01", "learning rate"},
      {"sigma", "1", "standard deviation of the gradient noise"},
      {"x0", "1.5", "RN freeze: the stored start of a noise-free run"},
      {"delta", "3e-4", "RN freeze: the relative error of m_hat / sqrt(v_hat) (>= 0)"},
      {NULL, NULL, NULL}},
     p_t10},
    {"T11", "implicit-regularization", "theory/T11-implicit-regularization.md",
     "SR's mean iterate is exact on quadratics; on f = x^4/4 one SR rounding of y shifts the mean "
     "gradient by 3 y s^2 + ab(b - a)",
     {{"format", "bf16", "weight format"},
      {"y", "1.1", "the exact value rounded (|y| <= the format's largest finite value)"},
      {"lr", "0.05", "learning rate (the mean step moves by -lr times the shift)"},
      {NULL, NULL, NULL}},
     p_t11},
    {"T12", "replicas", "theory/T12-replicas.md",
     "data-parallel replicas: shared SR streams keep them identical; independent ones drift like "
     "a random walk, 2 p (1 - p) q^2 per step and weight",
     {{"format", "bf16", "weight format"},
      {"rounding", "sr", "mode of the weight write"},
      {"x", "1.5", "the weight (rounded to nearest into the format: the replicas' common value)"},
      {"lr", "0.001", "learning rate"},
      {"update", "1", "the optimizer's update (the step is lr update; Adam's is about +-1)"},
      {"steps", "1000", "number of steps"},
      {"params", "1", "number of weights with these statistics (>= 1)"},
      {NULL, NULL, NULL}},
     p_t12},
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

static int get_count_in(const statement *s, const targs *a, const char *key, uint64_t min,
                        uint64_t max, uint64_t *out)
{
    return cli_parse_count(cmd, key, val(s, a, key), min, max, out);
}

static int get_count(const statement *s, const targs *a, const char *key, uint64_t *out)
{
    return get_count_in(s, a, key, 0, UINT64_C(1000000000000), out);
}

static int get_rounding(const statement *s, const targs *a, const char *key, srl_rounding *m)
{
    return cli_parse_rounding(cmd, key, val(s, a, key), m);
}

/* A value to be rounded into f: both its neighbours must exist, so |x| <= xmax. */
static int get_in_range(const statement *s, const targs *a, const char *key, const srl_format *f,
                        double *out)
{
    char b[CLI_NUM_LEN];
    int rc = get_real(s, a, key, out);
    if (!rc && !(fabs(*out) <= f->xmax))
        rc = cli_error(cmd, "%s: '%s' is beyond %s, the largest finite value of %s", key,
                       val(s, a, key), cli_fmt_short(b, f->xmax), f->name);
    return rc;
}

/* The order of an accumulation config, read by the library's parser of such configs
 * (srl_accum_parse, kernels.h: the spellings `srlab run --order` takes too); a comma would
 * smuggle in another key of the config. */
static int get_order(const statement *s, const targs *a, const char *key, srl_accum *c)
{
    const char *v = val(s, a, key);
    char spec[200];
    srl_err e;
    if (strchr(v, ',') || snprintf(spec, sizeof spec, "order=%s", v) >= (int)sizeof spec ||
        srl_accum_parse(c, spec, &e) != SRL_OK)
        return cli_error(cmd, "%s: '%s' is not an order (known: recursive, pairwise, blocked:K "
                              "with K >= 1)", key, v);
    return 0;
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

/* ---- T01 ---- */

/* RD(x) and RU(x): the two values one rounding of x chooses between */
static void neighbours(double *rd, double *ru, double x, const srl_format *f)
{
    *rd = srl_round(x, f, (srl_rounding){SRL_RD, 0}, NULL);
    *ru = srl_round(x, f, (srl_rounding){SRL_RU, 0}, NULL);
}

static int p_t01(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double x;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_in_range(s, a, "x", &f, &x)))
        return rc;
    header(o, s, a);
    char m[300], b1[CLI_NUM_LEN];
    double rd, ru;
    neighbours(&rd, &ru, x, &f);
    const double q = ru - rd;
    line(o, "u", f.u, "2^-p, unit roundoff", "");
    line(o, "RD(x)", rd, "the neighbour below", "");
    line(o, "RU(x)", ru, "the neighbour above", "");
    if (q > 0) {
        /* exact: x - RD(x) is exact (Sterbenz, or RD = 0) and q is a power of two */
        const double pu = (x - rd) / q;
        line(o, "q", q, "RU(x) - RD(x), the grid spacing at x", "");
        line(o, "p_up", pu, "(x - RD(x)) / q",
             "SR returns RU(x) with this probability, RD(x) otherwise");
        line(o, "sr_mean", rd + q * pu, "RD + q p_up = x", "E[SR(x)]: SR is unbiased (item 1)");
    } else {
        snprintf(m, sizeof m, "x is a value of %s: every mode returns it", f.name);
        line(o, "q", 0, "RU(x) - RD(x)", m);
    }
    line(o, "sr_variance", srl_t01_sr_variance(x, &f), "(x - RD(x)) (RU(x) - x)",
         "Var[SR(x)] (item 2)");
    line(o, "sr_variance_max", srl_t01_sr_variance_max(x, &f), "q^2 / 4",
         "its largest value over the interval, at the midpoint");
    const double rn = srl_round(x, &f, SRL_ROUND_RN, NULL);
    snprintf(m, sizeof m, "RN(x) = %s", g(b1, rn));
    line(o, "rn_error", fabs(rn - x), "|RN(x) - x| = min(x - RD, RU - x)", m);
    line(o, "rn_error_bound", srl_t01_rn_error_bound(x, &f), "u |x|  (below xmin: q/2)",
         "item 3: holds for every x");
    line(o, "sr_error_max", fmax(x - rd, ru - x), "max(x - RD, RU - x)",
         "the larger of the two errors SR can make");
    line(o, "sr_error_bound", srl_t01_sr_error_bound(x, &f), "2u |x|  (below xmin: q)",
         "item 4: above every SR error of an inexact x");
    fprintf(o, "\ntest it (the frequency of rounding up against p_up, the mean against x):\n"
               "  srlab round %s -f %s -r sr --samples 1000000\n"
               "  srlab round %s -f %s -r rn\n"
               "  srlab check T01\n",
            val(s, a, "x"), f.name, val(s, a, "x"), f.name);
    return 0;
}

/* ---- T02 ---- */

static int p_t02(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double x;
    long long R;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_in_range(s, a, "x", &f, &x)) ||
        (rc = cli_parse_int(cmd, "r", val(s, a, "r"), 1, 64, &R)))
        return rc;
    header(o, s, a);
    char m[300];
    const srl_rounding mr = {SRL_SR_BITS, (int)R};
    const double q = srl_format_ulp(&f, fabs(x));
    /* the probabilities of rounding away from zero, exact sr and sr:r=R (T02 = T12's p) */
    const double fr = srl_t12_away_prob(x, &f, SRL_ROUND_SR), P = srl_t12_away_prob(x, &f, mr);
    const double bias = srl_t02_sr_bits_bias(x, &f, (int)R);
    line(o, "q", q, "grid spacing at x", "");
    line(o, "f", fr, "(|x| - T) / q, T = |x| truncated to the grid",
         "exact sr rounds away from zero with this probability");
    snprintf(m, sizeof m, "sr:r=%lld rounds away from zero with this probability", R);
    line(o, "p_away", P, "floor(f 2^R) / 2^R", m);
    line(o, "bias", bias, "-sign(x) q (f - floor(f 2^R) 2^-R)",
         "E[SR_R(x)] - x: toward zero; 0 when f has at most R bits");
    line(o, "bias_ulps", bias / q, "bias / q", "");
    line(o, "bias_max", srl_t02_sr_bits_bias_max(x, &f, (int)R), "q 2^-R",
         "the supremum of |bias| over the grid interval");
    line(o, "bias_mean", srl_t02_sr_bits_bias_mean(x, &f, (int)R), "q 2^-(R+1)",
         "|bias| averaged over a fraction f uniform on (0, 1)");
    line(o, "variance", q * q * P * (1 - P), "q^2 p_away (1 - p_away)", "Var[SR_R(x)]");
    fprintf(o, "\ntest it (the frequency of rounding up and the mean's offset against the bias; "
               "the harmonic sum falls behind H_n):\n"
               "  srlab round %s -f %s -r sr:r=%lld --samples 1000000\n"
               "  srlab run --problem harmonic -f %s -r sr:r=%lld --n 100000\n"
               "  srlab check T02\n",
            val(s, a, "x"), f.name, R, f.name, R);
    return 0;
}

/* ---- T03 ---- */

/* The accumulation config of a `srlab run` sum or matvec problem: one format and mode for the
 * products and the accumulator, in the given order. */
static int get_accum(const statement *s, const targs *a, srl_accum *c)
{
    srl_format f;
    srl_rounding m;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_rounding(s, a, "rounding", &m)))
        return rc;
    *c = srl_accum_binary64();
    c->prod_fmt = c->acc_fmt = f;
    c->prod_mode = c->acc_mode = m;
    return get_order(s, a, "order", c);
}

/* "" for the recursive order (the runners' default), else " --PREFIX --order ORDER" */
static const char *order_flags(char *b, size_t len, const srl_accum *c, const char *prefix,
                               const char *order)
{
    if (c->order == SRL_ORDER_RECURSIVE)
        *b = 0;
    else
        snprintf(b, len, "%s --order %s", prefix, order);
    return b;
}

static int p_t03(FILE *o, const statement *s, const targs *a)
{
    srl_accum c;
    uint64_t n, nmax;
    double lambda;
    int rc;
    if ((rc = get_accum(s, a, &c)) ||
        (rc = get_count_in(s, a, "n", 1, UINT64_C(1) << 32, &n)) ||
        (rc = get_pos(s, a, "lambda", &lambda)) ||
        (rc = get_count_in(s, a, "nmax", 1, UINT64_C(1) << 30, &nmax)))
        return rc;
    const srl_format *f = &c.acc_fmt;
    const bool sto = srl_rounding_is_stochastic(c.acc_mode);
    /* the stagnation criterion is for the deterministic modes; under sr, rn's term is the
     * contrast. The library's refusals (a grid too wide, a term below xmin) are printed. */
    const srl_rounding hm = sto ? SRL_ROUND_RN : c.acc_mode;
    srl_t03_stagnation st;
    srl_err e;
    const int hs = srl_t03_harmonic_stagnation(&st, f, hm, nmax, &e);
    header(o, s, a);
    char m[300], mn[32], b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], of[200];
    srl_rounding_name(mn, sizeof mn, hm);
    line(o, "u", f->u, "2^-p, unit roundoff", "");
    line(o, "v", srl_t03_unit(f, c.acc_mode), "u for rn, rna; 2u otherwise",
         "the largest relative error of one addition");
    line(o, "h", (double)srl_t03_path((size_t)n, &c),
         "recursive n-1, pairwise ceil(log2 n), blocked:K (min(n,K)-1) + (ceil(n/K)-1)",
         "roundings on the longest path from a term to the sum");
    line(o, "gamma", srl_t03_sum_bound((size_t)n, &c), "gamma_h(v) = h v / (1 - h v)",
         "|s - S| / sum|x_i| <= this for every run (item 1; inf: no bound once h v >= 1)");
    line(o, "sr_prob", srl_t03_sr_prob(lambda), "1 - 2 exp(-lambda^2 / 2)",
         "the probability with which the SR bound holds");
    line(o, "sr_rule", srl_t03_sr_rule((size_t)n, f, lambda), "lambda sqrt(n) u",
         "the first-order rule of Connolly, Higham and Mary, for comparison");
    line(o, "sr_bound", srl_t03_sum_sr_bound((size_t)n, f, lambda),
         "min(B_fwd, B_bwd), h = n - 1 (item 2)",
         "|s - S| / sum|x_i| <= this with probability >= sr_prob (recursive, sr additions)");
    if (c.acc_mode.mode == SRL_SR)
        text(o, "harmonic", "moves", "under sr the harmonic sum never stagnates for good and "
                                     "E[s_k] = H_k (item 3)");
    else if (c.acc_mode.mode == SRL_SR_BITS)
        text(o, "harmonic", "stops", "under sr:r=R the harmonic sum stagnates for good from the "
                                     "first k with RU(1/k) < 2^-R ulp(s) (item 3)");
    if (hs != SRL_OK) {
        text(o, "stagnation_k", "-", e.msg);
    } else if (hm.mode == SRL_RU) {
        text(o, "stagnation_k", "never", "under ru every term moves the harmonic sum up");
    } else if (!st.found) {
        snprintf(m, sizeof m, "the harmonic sum under %s still moves at k = nmax = %llu", mn,
                 (unsigned long long)nmax);
        text(o, "stagnation_k", "none", m);
    } else {
        snprintf(m, sizeof m, "the first term that leaves the harmonic sum unchanged under %s, "
                 "for good (item 3)", mn);
        line(o, "stagnation_k", (double)st.k, "first k with t_k below the mode's threshold", m);
        snprintf(m, sizeof m, "t_k = %s against ulp(s) = %s", g(b1, st.term), g(b2, st.ulp));
        line(o, "stagnation_sum", st.sum, "s_(k-1), the sum it keeps", m);
    }
    const uint64_t hn = hs == SRL_OK && st.found ? 2 * st.k : nmax < 100000 ? nmax : 100000;
    fprintf(o, "\ntest it (rel_err against gamma and sr_bound; the harmonic column stagnation):\n"
               "  srlab run --problem sum -f %s -r %s --n %llu%s --lambda %s%s\n"
               "  srlab run --problem harmonic -f %s -r %s --n %llu%s\n"
               "  srlab check T03\n",
            f->name, val(s, a, "rounding"), (unsigned long long)n,
            order_flags(of, sizeof of, &c, "", val(s, a, "order")), val(s, a, "lambda"),
            sto ? " --seeds 100" : "", f->name, val(s, a, "rounding"), (unsigned long long)hn,
            sto ? " --seeds 100" : "");
    return 0;
}

/* ---- T04 ---- */

static int p_t04(FILE *o, const statement *s, const targs *a)
{
    srl_accum c;
    uint64_t n, mrows;
    double lambda;
    int rc;
    if ((rc = get_accum(s, a, &c)) ||
        (rc = get_count_in(s, a, "n", 1, UINT64_C(1) << 24, &n)) ||
        (rc = get_count_in(s, a, "m", 1, UINT64_C(1) << 24, &mrows)) ||
        (rc = get_pos(s, a, "lambda", &lambda)))
        return rc;
    header(o, s, a);
    char of[200];
    const srl_format *f = &c.acc_fmt;
    const double u = f->u, N = (double)n;
    line(o, "nu", N * u, "n u", "the worst-case scale of RN's backward error");
    line(o, "sqrt_nu", sqrt(N) * u, "sqrt(n) u", "the scale of SR's");
    line(o, "h", (double)srl_t03_path((size_t)n, &c), "additions on the longest path (T03)", "");
    line(o, "theta", srl_t04_matvec_bound((size_t)n, &c), "(1 + v_p) (1 + v_a)^h - 1",
         "componentwise and normwise backward error <= this for every run (item 1)");
    line(o, "gamma_n", srl_t03_gamma(N, u), "n u / (1 - n u)",
         "Higham's gamma_n: theta <= gamma_n for rn");
    line(o, "lambda_m", sqrt(lambda * lambda + 2 * log((double)mrows)),
         "sqrt(lambda^2 + 2 ln m)", "lambda after the union bound over the m rows");
    line(o, "sr_prob", srl_t03_sr_prob(lambda), "1 - 2 exp(-lambda^2 / 2)",
         "the probability with which the SR bound holds for all rows at once");
    line(o, "sr_bound", srl_t04_matvec_sr_bound((size_t)n, (size_t)mrows, &c, lambda),
         "exp(v_p + 2 lambda_m u sqrt(h) + (h v_a^2 + v_p^2) / (2 (1 - max(v_a, v_p)))) - 1",
         "backward error <= this with probability >= sr_prob: sr products and additions, "
         "recursive order (nan otherwise)");
    /* the given mode, then sr (with seeds: the SR bound is a probability) unless it was sr */
    const bool sr = c.acc_mode.mode == SRL_SR;
    order_flags(of, sizeof of, &c, " --form dot", val(s, a, "order"));
    fputs("\ntest it (bwd_norm and bwd_comp against gamma and sr_bound):\n", o);
    for (int k = 0; k < (sr ? 1 : 2); k++)
        fprintf(o, "  srlab run --problem matvec -f %s -r %s --n %llu --m %llu%s --lambda %s%s\n",
                f->name, k ? "sr" : val(s, a, "rounding"), (unsigned long long)n,
                (unsigned long long)mrows, of, val(s, a, "lambda"),
                k || srl_rounding_is_stochastic(c.acc_mode) ? " --seeds 20" : "");
    fputs("  srlab check T04\n", o);
    return 0;
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

/* ---- T10 ---- */

static int p_t10(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double xs, A, lr, sigma, x0, delta;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_real(s, a, "xstar", &xs)) ||
        (rc = get_pos(s, a, "a", &A)) || (rc = get_pos(s, a, "lr", &lr)) ||
        (rc = get_pos(s, a, "sigma", &sigma)) || (rc = get_in_range(s, a, "x0", &f, &x0)) ||
        (rc = get_real(s, a, "delta", &delta)))
        return rc;
    if (!(A * lr / sigma < 2))
        return cli_error(cmd, "lr: a lr / sigma = %g must be below 2 for Adam (SGD with the "
                              "learning rate lr / sigma) to be stable", A * lr / sigma);
    if (!(delta >= 0))
        return cli_error(cmd, "delta: '%s' must not be negative", val(s, a, "delta"));
    header(o, s, a);
    char m[300], b1[CLI_NUM_LEN];
    const double ulp = srl_format_ulp(&f, xs), lp = lr / sigma;
    const double x0s = srl_round(x0, &f, SRL_ROUND_RN, NULL);
    line(o, "ulp(x*)", ulp, "grid spacing at x*", "");
    line(o, "lr_eff", lp, "lr' = lr / sigma", "Adam (beta1 = 0) is SGD with this learning rate");
    line(o, "sigma_g2_ratio", 1 + A * lp / (2 - A * lp), "1 + a lr' / (2 - a lr')",
         "E[g^2] / sigma^2 at stationarity");
    line(o, "relative_penalty", srl_t10_adam_relative_penalty(lr, ulp, A, sigma),
         "ulp^2 (1 + a lr'/(2 - a lr')) / (6 lr^2)",
         "SR's excess loss over exact arithmetic, relative to it (item 4)");
    line(o, "penalty_at_2lr", srl_t10_adam_relative_penalty(2 * lr, ulp, A, sigma),
         "the same at 2 lr", "about 4x smaller: a larger learning rate makes it negligible");
    const double fz = srl_t10_rn_freeze_lr(x0s, &f, delta);
    snprintf(m, sizeof m, "RN loses every step of a noise-free run from x0 = %s (stored) when "
             "lr is below this (item 5)", g(b1, x0s));
    line(o, "rn_freeze_lr", fz, "min(gaps at x0) / (2 (1 + delta))", m);
    text(o, "rn_at_x0", lr < fz ? "frozen" : "moves",
         lr < fz ? "lr is below it: RN keeps the whole initial loss gap forever"
                 : "lr is above it: item 5 does not apply");
    fputs("\ntest it (mean loss_gap after 5000 steps, sr against fp32 with the same seeds):\n", o);
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem quad1d --opt adam --beta1 0 --a %s --xstar %s --x0 %s "
                   "--grad-noise %s --lr %s %s --steps 25000 --log-every 10 --seeds 100\n",
                val(s, a, "a"), val(s, a, "xstar"), val(s, a, "xstar"), val(s, a, "sigma"),
                val(s, a, "lr"), k ? "--strategy fp32" : "--format bf16 --rounding sr");
    fputs("  srlab check T10\n", o);
    return 0;
}

/* ---- T11 ---- */

static int p_t11(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    double y, lr;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_in_range(s, a, "y", &f, &y)) ||
        (rc = get_pos(s, a, "lr", &lr)))
        return rc;
    header(o, s, a);
    double rd, ru;
    neighbours(&rd, &ru, y, &f);
    const double shift = srl_t11_quartic_shift(y, &f);
    line(o, "a", y - rd, "y - RD(y)", "");
    line(o, "b", ru - y, "RU(y) - y", "");
    line(o, "s2", srl_t01_sr_variance(y, &f), "ab = Var[SR(y)] (T01)", "");
    line(o, "shift", shift, "f'''(y) s^2 / 2 = 3 y s^2",
         "E[f'(SR(y))] - f'(y) for f = x^4/4, leading term (item 4)");
    line(o, "shift_exact", srl_t11_quartic_shift_exact(y, &f), "3 y s^2 + ab (b - a)",
         "the same, exactly (f' is a cubic)");
    line(o, "remainder_bound", srl_t11_quartic_remainder_bound(y, &f), "q s^2 = ab (a + b)",
         "|shift_exact - shift| <= this; relatively <= 2u/3 in the normal range");
    line(o, "mean_step_shift", -lr * shift, "-lr 3 y s^2",
         "the mean gradient step from SR(y) minus the step from y: toward smaller |x|");
    fprintf(o, "\ntest it (item 4 sampled at 64 points; item 2: on a quadratic the mean SR "
               "trajectory is the exact one):\n"
               "  srlab check T11\n"
               "  srlab train --problem quadratic --d 8 --kappa 10 --basis diag --x0 0 --opt sgd "
               "--lr %s --format %s --rounding sr --steps 100 --log-every 10 --seeds 200\n"
               "  srlab train --problem quadratic --d 8 --kappa 10 --basis diag --x0 0 --opt sgd "
               "--lr %s --format fp64 --grad-format fp64 --update-arith fp64 --steps 100 "
               "--log-every 10 --seeds 200\n",
            val(s, a, "lr"), f.name, val(s, a, "lr"));
    return 0;
}

/* ---- T12 ---- */

static int p_t12(FILE *o, const statement *s, const targs *a)
{
    srl_format f;
    srl_rounding mode;
    double x, lr, upd;
    uint64_t steps, params;
    int rc;
    if ((rc = get_format(s, a, "format", &f)) || (rc = get_rounding(s, a, "rounding", &mode)) ||
        (rc = get_in_range(s, a, "x", &f, &x)) || (rc = get_pos(s, a, "lr", &lr)) ||
        (rc = get_real(s, a, "update", &upd)) || (rc = get_count(s, a, "steps", &steps)) ||
        (rc = get_count_in(s, a, "params", 1, UINT64_C(1000000000000), &params)))
        return rc;
    /* the replicas' common weight is a value of the format (T12 item 4: on the grid) */
    const double xs = srl_round(x, &f, SRL_ROUND_RN, NULL), xe = xs - lr * upd;
    if (!(fabs(xs) <= f.xmax) || !(fabs(xe) <= f.xmax))
        return cli_error(cmd, "update: the weight %s stored in %s minus lr update = %g leaves "
                              "the format's finite range", val(s, a, "x"), f.name, lr * upd);
    header(o, s, a);
    char m[300], b1[CLI_NUM_LEN], mn[32];
    srl_rounding_name(mn, sizeof mn, mode);
    double rd, ru;
    neighbours(&rd, &ru, xe, &f);
    const double q = ru - rd, step = fabs(lr * upd), p = srl_t12_away_prob(xe, &f, mode);
    const double d2 = srl_t12_pair_d2(xe, &f, mode), T = (double)steps * (double)params;
    snprintf(m, sizeof m, "the new value every replica writes (stored weight %s)", g(b1, xs));
    line(o, "xe", xe, "RN(x) - lr update", m);
    line(o, "q", q, "RU(xe) - RD(xe), the grid spacing there", "");
    snprintf(m, sizeof m, "%s rounds xe away from zero with this probability", mn);
    line(o, "p_away", p, "sr: (|xe| - T) / q; sr:r=R: floor(2^R f) / 2^R", m);
    line(o, "diff_prob", 2 * p * (1 - p), "2 p (1 - p)",
         "two replicas with independent streams differ after the step, by q (item 2)");
    line(o, "step_d2", d2, "2 p (1 - p) q^2",
         "the mean squared distance one step adds between two replicas (item 3)");
    if (step < q)
        line(o, "step_d2_small", 2 * step * q, "2 lr |update| q",
             "item 4's approximation for a step below one spacing (theory/paper.md prediction 10)");
    snprintf(m, sizeof m, "E||x_r - x_0||^2 after %llu steps, summed over params = %llu "
             "weights with these statistics: linear in steps (a random walk)",
             (unsigned long long)steps, (unsigned long long)params);
    line(o, "d2", T * d2, "steps params step_d2", m);
    line(o, "dist_rms", sqrt(T * d2), "sqrt(d2)", "the distance grows like sqrt(steps)");
    text(o, "d2_shared", "0", "with shared SR streams the replicas stay bit-identical (item 1)");
    fputs("\ntest it (replica_d2 against replica_d2_pred; replica_div = 0 when shared):\n", o);
    for (int k = 0; k < 2; k++)
        fprintf(o, "  srlab train --problem mlp --task teacher --depth 1 --width 16 --in-dim 4 "
                   "--out-dim 2 --samples 256 --val-samples 64 --batch-size 8 --replicas 4 "
                   "--sr-seed %s --format %s --rounding %s --opt adam --lr %s --steps %llu "
                   "--log-every %llu\n",
                k ? "shared" : "independent", f.name, mn, val(s, a, "lr"),
                (unsigned long long)steps, (unsigned long long)(steps / 10 ? steps / 10 : 1));
    fputs("  srlab check T12\n", o);
    return 0;
}

/* ---- T13 ---- */

static int p_t13(FILE *o, const statement *s, const targs *a)
{
    const char *on = val(s, a, "opt");
    int k = -1;
    for (int i = 0; srl_optim_names[i]; i++)
        if (!strcmp(on, srl_optim_names[i]))
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
        const srl_bytes b = srl_t13_bytes(&st, (srl_optim_kind)k);
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

/* "T01 sr-basics, T02 sr-bits-bias, ...": the table's ids and slugs */
static const char *known_list(char *b, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < NSTATEMENTS && k < len; i++)
        k += (size_t)snprintf(b + k, len - k, "%s%s %s", i ? ", " : "", statements[i].id,
                              statements[i].slug);
    return b;
}

static void list(FILE *o)
{
    fputs("usage: srlab theory NAME [key=value...]\n"
          "\n"
          "Print the predictions of a theory/ statement for given parameters, each with its\n"
          "formula and meaning, and the srlab round, run, train and check commands that test\n"
          "it. NAME is an id (T05) or a slug (gd-quadratic); keys not given take the defaults\n"
          "shown.\n"
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
          "  srlab theory T01 format=fp16 x=0.1\n"
          "  srlab theory summation format=fp16 rounding=sr n=100000\n"
          "  srlab theory T05 format=bf16 lr=0.01 xstar=0.3\n"
          "  srlab theory noisy-sgd lr=0.003 sigma=0.1\n"
          "  srlab theory T08 lr=1e-3 wd=0.1\n"
          "  srlab theory T12 lr=0.001 steps=200 params=100\n"
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
                char known[NSTATEMENTS * 40];
                rc = cli_error(cmd, "unknown statement %s (known: %s)", q,
                               known_list(known, sizeof known));
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
