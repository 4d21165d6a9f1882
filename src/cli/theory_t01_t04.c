/* src/cli/theory_t01_t04.c: the statements T01-T04 of `srlab theory` (src/cli/theory_table.h):
 * single roundings (T01 SR basics, T02 sr:r=R bias), sums and matrix-vector products (T03, T04).
 * For each: its keys with defaults, the library call that evaluates it (include/srlab/theory.h),
 * the lines it prints, the commands that test it. A line's value is a field of the library's
 * srl_tNN_values: adding a theory value is a field and its formula in src/theory/tNN_*.c, then
 * one line row here. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/theory_table.h"

/* ---- T01 ---- */

static int e_t01(th_values *v, const th_view *t)
{
    srl_t01_eval(&v->t01, t->p->x, &t->p->format);
    return 0;
}

static bool t01_inexact(const th_view *t)
{
    return t->v->t01.inexact;
}

static bool t01_exact(const th_view *t)
{
    return !t->v->t01.inexact;
}

static const th_line t01_lines[] = {
    LINE("u", NUM(t01.u), "2^-p, unit roundoff", ""),
    LINE("RD(x)", NUM(t01.rd), "the neighbour below", ""),
    LINE("RU(x)", NUM(t01.ru), "the neighbour above", ""),
    {"q", NUM(t01.q), "RU(x) - RD(x), the grid spacing at x", "", NO_ARGS, t01_inexact},
    {"p_up", NUM(t01.p_up), "(x - RD(x)) / q",
     "SR returns RU(x) with this probability, RD(x) otherwise", NO_ARGS, t01_inexact},
    {"sr_mean", NUM(t01.sr_mean), "RD + q p_up = x", "E[SR(x)]: SR is unbiased (item 1)", NO_ARGS,
     t01_inexact},
    {"q", NUM(t01.q), "RU(x) - RD(x)", "x is a value of %s: every mode returns it",
     {PARAM_FORMAT(format)}, t01_exact},
    LINE("sr_variance", NUM(t01.sr_variance), "(x - RD(x)) (RU(x) - x)", "Var[SR(x)] (item 2)"),
    LINE("sr_variance_max", NUM(t01.sr_variance_max), "q^2 / 4",
         "its largest value over the interval, at the midpoint"),
    {"rn_error", NUM(t01.rn_error), "|RN(x) - x| = min(x - RD, RU - x)", "RN(x) = %s",
     {NUM(t01.rn)}, ALWAYS},
    LINE("rn_error_bound", NUM(t01.rn_error_bound), "u |x|  (below xmin: q/2)",
         "item 3: holds for every x"),
    LINE("sr_error_max", NUM(t01.sr_error_max), "max(x - RD, RU - x)",
         "the larger of the two errors SR can make"),
    LINE("sr_error_bound", NUM(t01.sr_error_bound), "2u |x|  (below xmin: q)",
         "item 4: above every SR error of an inexact x"),
    LINES_END,
};

static void c_t01(FILE *o, const th_view *t)
{
    fprintf(o, "\ntest it (the frequency of rounding up against p_up, the mean against x):\n"
               "  srlab round %s -f %s -r sr --samples 1000000\n"
               "  srlab round %s -f %s -r rn\n"
               "  srlab check T01\n",
            th_text(t, "x"), t->p->format.name, th_text(t, "x"), t->p->format.name);
}

const th_statement th_t01 = {
    "T01", "sr-basics", "theory/T01-sr-basics.md",
    "SR is unbiased with variance (x - RD(x))(RU(x) - x) <= ulp^2/4; |RN(x) - x| <= u|x|, "
    "|SR(x) - x| < 2u|x|",
    {KEY("format", "bf16", TH_FORMAT, format, "format rounded into"),
     KEY("x", "0.1", TH_IN_RANGE, x,
         "the exact value rounded (|x| <= the format's largest finite value)"),
     KEY_END},
    e_t01, t01_lines, c_t01,
};

/* ---- T02 ---- */

static int e_t02(th_values *v, const th_view *t)
{
    srl_t02_eval(&v->t02, t->p->x, &t->p->format, (int)t->p->r);
    return 0;
}

static const th_line t02_lines[] = {
    LINE("q", NUM(t02.q), "grid spacing at x", ""),
    LINE("f", NUM(t02.frac), "(|x| - T) / q, T = |x| truncated to the grid",
         "exact sr rounds away from zero with this probability"),
    {"p_away", NUM(t02.p_away), "floor(f 2^R) / 2^R",
     "sr:r=%s rounds away from zero with this probability", {PARAM_INT(r)}, ALWAYS},
    LINE("bias", NUM(t02.bias), "-sign(x) q (f - floor(f 2^R) 2^-R)",
         "E[SR_R(x)] - x: toward zero; 0 when f has at most R bits"),
    LINE("bias_ulps", NUM(t02.bias_ulps), "bias / q", ""),
    LINE("bias_max", NUM(t02.bias_max), "q 2^-R", "the supremum of |bias| over the grid interval"),
    LINE("bias_mean", NUM(t02.bias_mean), "q 2^-(R+1)",
         "|bias| averaged over a fraction f uniform on (0, 1)"),
    LINE("variance", NUM(t02.variance), "q^2 p_away (1 - p_away)", "Var[SR_R(x)]"),
    LINES_END,
};

static void c_t02(FILE *o, const th_view *t)
{
    const char *f = t->p->format.name;
    fprintf(o, "\ntest it (the frequency of rounding up and the mean's offset against the bias; "
               "the harmonic sum falls behind H_n):\n"
               "  srlab round %s -f %s -r sr:r=%lld --samples 1000000\n"
               "  srlab run --problem harmonic -f %s -r sr:r=%lld --n 100000\n"
               "  srlab check T02\n",
            th_text(t, "x"), f, t->p->r, f, t->p->r);
}

const th_statement th_t02 = {
    "T02", "sr-bits-bias", "theory/T02-sr-bits-bias.md",
    "SR with R random bits (sr:r=R) is biased toward zero by q (f - floor(f 2^R) 2^-R) < q 2^-R",
    {KEY("format", "bf16", TH_FORMAT, format, "format rounded into"),
     KEY("x", "0.1", TH_IN_RANGE, x,
         "the exact value rounded (|x| <= the format's largest finite value)"),
     {"r", "4", "random bits R, 1 to 64", TH_INT, PF(r), 1, 64},
     KEY_END},
    e_t02, t02_lines, c_t02,
};

/* ---- T03, T04: summation and matrix-vector products ---- */

/* The accumulation config of a `srlab run` sum or matvec problem: one format and mode for the
 * products and the accumulator, in the order given. */
static srl_accum accum_of(const th_params *p)
{
    srl_accum c = p->accum;
    c.prod_fmt = c.acc_fmt = p->format;
    c.prod_mode = c.acc_mode = p->rounding;
    return c;
}

/* "" for the recursive order (the runners' default), else "PREFIX --order ORDER" */
static const char *order_flags(char *b, size_t len, const th_view *t, const char *prefix)
{
    if (t->p->accum.order == SRL_ORDER_RECURSIVE)
        *b = 0;
    else
        snprintf(b, len, "%s --order %s", prefix, th_text(t, "order"));
    return b;
}

static int e_t03(th_values *v, const th_view *t)
{
    const srl_accum c = accum_of(t->p);
    srl_t03_eval(&v->t03, (size_t)t->p->n, &c, t->p->lambda, t->p->nmax);
    return 0;
}

static bool t03_sr(const th_view *t)
{
    return t->p->rounding.mode == SRL_SR;
}

static bool t03_sr_bits(const th_view *t)
{
    return t->p->rounding.mode == SRL_SR_BITS;
}

/* the harmonic stagnation: refused by the library, never (ru), none within nmax, or found */
static bool t03_refused(const th_view *t)
{
    return t->v->t03.harmonic_status != SRL_OK;
}

static bool t03_never(const th_view *t)
{
    return !t03_refused(t) && t->v->t03.harmonic_mode.mode == SRL_RU;
}

static bool t03_none(const th_view *t)
{
    return !t03_refused(t) && !t03_never(t) && !t->v->t03.harmonic.found;
}

static bool t03_found(const th_view *t)
{
    return !t03_refused(t) && !t03_never(t) && t->v->t03.harmonic.found;
}

static const th_line t03_lines[] = {
    LINE("u", NUM(t03.u), "2^-p, unit roundoff", ""),
    LINE("v", NUM(t03.v), "u for rn, rna; 2u otherwise",
         "the largest relative error of one addition"),
    LINE("h", NUM(t03.h),
         "recursive n-1, pairwise ceil(log2 n), blocked:K (min(n,K)-1) + (ceil(n/K)-1)",
         "roundings on the longest path from a term to the sum"),
    LINE("gamma", NUM(t03.gamma), "gamma_h(v) = h v / (1 - h v)",
         "|s - S| / sum|x_i| <= this for every run (item 1; inf: no bound once h v >= 1)"),
    LINE("sr_prob", NUM(t03.sr_prob), "1 - 2 exp(-lambda^2 / 2)",
         "the probability with which the SR bound holds"),
    LINE("sr_rule", NUM(t03.sr_rule), "lambda sqrt(n) u",
         "the first-order rule of Connolly, Higham and Mary, for comparison"),
    LINE("sr_bound", NUM(t03.sr_bound), "min(B_fwd, B_bwd), h = n - 1 (item 2)",
         "|s - S| / sum|x_i| <= this with probability >= sr_prob (recursive, sr additions)"),
    {"harmonic", LITERAL("moves"),
     "under sr the harmonic sum never stagnates for good and E[s_k] = H_k (item 3)", NULL, NO_ARGS,
     t03_sr},
    {"harmonic", LITERAL("stops"),
     "under sr:r=R the harmonic sum stagnates for good from the first k with RU(1/k) < 2^-R "
     "ulp(s) (item 3)",
     NULL, NO_ARGS, t03_sr_bits},
    {"stagnation_k", LITERAL("-"), "%s", NULL, {MESSAGE(t03.harmonic_err)}, t03_refused},
    {"stagnation_k", LITERAL("never"), "under ru every term moves the harmonic sum up", NULL,
     NO_ARGS, t03_never},
    {"stagnation_k", LITERAL("none"), "the harmonic sum under %s still moves at k = nmax = %s",
     NULL, {MODE(t03.harmonic_mode), PARAM_U64(nmax)}, t03_none},
    {"stagnation_k", COUNT_NUM(t03.harmonic.k), "first k with t_k below the mode's threshold",
     "the first term that leaves the harmonic sum unchanged under %s, for good (item 3)",
     {MODE(t03.harmonic_mode)}, t03_found},
    {"stagnation_sum", NUM(t03.harmonic.sum), "s_(k-1), the sum it keeps",
     "t_k = %s against ulp(s) = %s", {NUM(t03.harmonic.term), NUM(t03.harmonic.ulp)}, t03_found},
    LINES_END,
};

static void c_t03(FILE *o, const th_view *t)
{
    const th_params *p = t->p;
    const bool sto = srl_rounding_is_stochastic(p->rounding);
    /* the harmonic run: twice the stagnation term, or up to nmax (at most 10^5) */
    const uint64_t hn = t03_found(t) ? 2 * t->v->t03.harmonic.k
                        : p->nmax < 100000 ? p->nmax
                                           : 100000;
    char of[200];
    fprintf(o, "\ntest it (rel_err against gamma and sr_bound; the harmonic column stagnation):\n"
               "  srlab run --problem sum -f %s -r %s --n %llu%s --lambda %s%s\n"
               "  srlab run --problem harmonic -f %s -r %s --n %llu%s\n"
               "  srlab check T03\n",
            p->format.name, th_text(t, "rounding"), (unsigned long long)p->n,
            order_flags(of, sizeof of, t, ""), th_text(t, "lambda"), sto ? " --seeds 100" : "",
            p->format.name, th_text(t, "rounding"), (unsigned long long)hn,
            sto ? " --seeds 100" : "");
}

static int e_t04(th_values *v, const th_view *t)
{
    const srl_accum c = accum_of(t->p);
    srl_t04_eval(&v->t04, (size_t)t->p->n, (size_t)t->p->m, &c, t->p->lambda);
    return 0;
}

static const th_line t04_lines[] = {
    LINE("nu", NUM(t04.nu), "n u", "the worst-case scale of RN's backward error"),
    LINE("sqrt_nu", NUM(t04.sqrt_nu), "sqrt(n) u", "the scale of SR's"),
    LINE("h", NUM(t04.h), "additions on the longest path (T03)", ""),
    LINE("theta", NUM(t04.theta), "(1 + v_p) (1 + v_a)^h - 1",
         "componentwise and normwise backward error <= this for every run (item 1)"),
    LINE("gamma_n", NUM(t04.gamma_n), "n u / (1 - n u)",
         "Higham's gamma_n: theta <= gamma_n for rn"),
    LINE("lambda_m", NUM(t04.lambda_m), "sqrt(lambda^2 + 2 ln m)",
         "lambda after the union bound over the m rows"),
    LINE("sr_prob", NUM(t04.sr_prob), "1 - 2 exp(-lambda^2 / 2)",
         "the probability with which the SR bound holds for all rows at once"),
    LINE("sr_bound", NUM(t04.sr_bound),
         "exp(v_p + 2 lambda_m u sqrt(h) + (h v_a^2 + v_p^2) / (2 (1 - max(v_a, v_p)))) - 1",
         "backward error <= this with probability >= sr_prob: sr products and additions, "
         "recursive order (nan otherwise)"),
    LINES_END,
};

static void c_t04(FILE *o, const th_view *t)
{
    const th_params *p = t->p;
    /* the given mode, then sr (with seeds: the SR bound is a probability) unless it was sr */
    const bool sr = p->rounding.mode == SRL_SR;
    char of[200];
    order_flags(of, sizeof of, t, " --form dot");
    fputs("\ntest it (bwd_norm and bwd_comp against gamma and sr_bound):\n", o);
    for (int k = 0; k < (sr ? 1 : 2); k++)
        fprintf(o, "  srlab run --problem matvec -f %s -r %s --n %llu --m %llu%s --lambda %s%s\n",
                p->format.name, k ? "sr" : th_text(t, "rounding"), (unsigned long long)p->n,
                (unsigned long long)p->m, of, th_text(t, "lambda"),
                k || srl_rounding_is_stochastic(p->rounding) ? " --seeds 20" : "");
    fputs("  srlab check T04\n", o);
}

const th_statement th_t03 = {
    "T03", "summation", "theory/T03-summation.md",
    "summation: |s - S| <= gamma_h sum|x_i| always; ~ lambda sqrt(n) u with high probability "
    "under SR; the harmonic series stagnates at a computable term under RN",
    {KEY("format", "bf16", TH_FORMAT, format, "format of the terms and the accumulator"),
     KEY("rounding", "rn", TH_ROUNDING, rounding, "mode of every addition"),
     KEY_COUNT("n", "1000", n, 1, UINT64_C(1) << 32, "number of terms, 1 to 2^32"),
     KEY("order", "recursive", TH_ORDER, accum,
         "summation order: recursive, pairwise or blocked:K"),
     KEY("lambda", "3", TH_POS, lambda, "lambda of the probabilistic SR bound (> 0)"),
     KEY_COUNT("nmax", "10000000", nmax, 1, UINT64_C(1) << 30,
               "harmonic series: the last term searched for stagnation, 1 to 2^30 "
               "(about 0.05 s per million terms)"),
     KEY_END},
    e_t03, t03_lines, c_t03,
};

const th_statement th_t04 = {
    "T04", "matvec", "theory/T04-matvec.md",
    "matrix-vector products: backward error <= theta ~ n u always; ~ 2 lambda sqrt(n) u with "
    "high probability under SR",
    {KEY("format", "bf16", TH_FORMAT, format,
         "format of A, x, the products and the accumulator"),
     KEY("rounding", "rn", TH_ROUNDING, rounding, "mode of every product and addition"),
     KEY_COUNT("n", "1024", n, 1, UINT64_C(1) << 24,
               "columns of A (terms of each inner product), 1 to 2^24"),
     KEY_COUNT("m", "16", m, 1, UINT64_C(1) << 24, "rows of A, 1 to 2^24"),
     KEY("order", "recursive", TH_ORDER, accum,
         "inner-product order: recursive, pairwise or blocked:K"),
     KEY("lambda", "3", TH_POS, lambda, "lambda of the probabilistic SR bound (> 0)"),
     KEY_END},
    e_t04, t04_lines, c_t04,
};
