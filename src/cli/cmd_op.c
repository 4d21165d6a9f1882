/* src/cli/cmd_op.c: `srlab op`: one exact operation rounded into a format (docs/design.md §5, §10).
 *
 * Two faces, as `srlab round`:
 *   srlab op OP A B [C]  a teaching view from srl_op_explain: the operands (their text and
 *                      whether they are values of the format), the exact result r (decimal and
 *                      hex from srl_op_exact in srlab/mpfr.h: every digit when r is a finite
 *                      binary number, as sums, differences, products and fmas always are; for a
 *                      quotient or square root with an endless binary expansion, its first
 *                      digits, truncated), the neighbours rd <= r <= ru, the ulp there, p_up,
 *                      the result, its error in ulps, and why. --samples N repeats the operation
 *                      N times and compares the frequency of rounding up (and the mean) with p_up
 *                      (and r) through 95% Clopper-Pearson intervals.
 *   srlab op OP --batch  operand lines a,b (a,b,c for fma; a for sqrt) on stdin, CSV out:
 *                      a,b,c,op,format,rounding,rd,ru,p_up,result with hex floats (empty fields
 *                      for operands the operation does not take); data line k uses draw k of
 *                      stream 0 of the seed.
 * Draws: the teaching view uses draw 0 of stream 0 (as batch line 0 does); --samples uses draws
 * 0..N-1 of the stream derived from (seed, stream 0) with key srl_hash_str("op --samples").
 * The library computes; this file lays the results out. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>
#include <mpfr.h>

#include "cli/cli.h"
#include "srlab/ops_mpfr.h"
#include "srlab/ops.h"
#include "cli/teach.h"

#define DEFAULT_SEED 42
#define MAX_SAMPLES UINT64_C(1000000000)
#define SAMPLES_KEY "op --samples"
#define CONFIDENCE 0.95
#define EXACT_DIGITS 800   /* decimal digits shown of a finite binary number, at most */
#define ENDLESS_DIGITS 40  /* decimal and hex digits shown of an endless expansion */
#define WORK_PREC 4096     /* bits of a quotient or square root before display */

static const char *const cmd = "op";

static const char help[] =
    "usage: srlab op OP A B [C] [-f FMT] [-r MODE] [--samples N] [--seed S] [--rng KIND]\n"
    "       srlab op OP --batch [-f FMT] [-r MODE] [--seed S] [--rng KIND] [-o FILE]\n"
    "                   [--comments] [--quiet]\n"
    "\n"
    "Form the exact result r of one operation on binary64 operands and round it once into a\n"
    "format, explained step by step: the operands (and whether each is a value of the format),\n"
    "r in decimal and hex (every digit when r is a finite binary number; a quotient or square\n"
    "root usually is not, and is shown to its first digits), the neighbours rd <= r <= ru with\n"
    "their bit patterns, the ulp there, the probability p_up of rounding up (toward +inf), the\n"
    "result, its error in ulps and relative to |r|, and why.\n"
    "\n"
    "operations (OP):\n"
    "  add A B   a + b        sub A B   a - b        mul A B   a * b\n"
    "  fma A B C a * b + c (one rounding)            div A B   a / b\n"
    "  sqrt A    the square root of a\n"
    "Operands are decimals (0.1, -2.5e-3), C99 hex floats (0x1p-8), inf, -inf or nan; text that\n"
    "is not exactly a binary64 number is read as its nearest binary64 (srlab says so).\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     bf16 (default), fp16, fp32, tf32, e4m3, e5m2, fp64, or a custom\n"
    "                       p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,saturate=on|off]\n"
    "  -r, --rounding MODE  rn (default), rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64)\n"
    "  --seed S             seed of the random stream, decimal or 0x hex (default 42); the\n"
    "                       teaching view uses draw 0 of stream 0\n"
    "  --rng KIND           pcg32 (default) or pcg64\n"
    "  --samples N          also perform the operation N times (1 <= N <= 10^9) with draws\n"
    "                       0..N-1 of the stream derived from the seed with key \"op --samples\",\n"
    "                       and compare the frequency of rounding up and the mean with p_up and r\n"
    "                       (95% Clopper-Pearson intervals)\n"
    "  --batch              read operand lines from standard input: a,b (a,b,c for fma; a for\n"
    "                       sqrt), spaces around fields allowed, and write the CSV\n"
    "                         a,b,c,op,format,rounding,rd,ru,p_up,result\n"
    "                       with numbers as C99 hex floats, empty fields for operands OP does not\n"
    "                       take, p_up to 17 significant digits; data line k (from 0) uses draw k\n"
    "                       of stream 0 of the seed. Nothing is written unless every line is\n"
    "                       valid. A stochastic mode's seed is echoed on standard error.\n"
    "  -o, --output FILE    with --batch: write the CSV to FILE, atomically (default stdout)\n"
    "  --comments           with --batch: start the CSV with '#' lines: version, command, seed\n"
    "  --quiet              with --batch: do not echo the seed on standard error\n"
    "  -h, --help           this help\n"
    "\n"
    "examples:\n"
    "  srlab op add 1 0x1p-8 -f bf16                 (a tie: rn keeps the even neighbour 1)\n"
    "  srlab op add 1 0x1p-200 -f fp32 -r sr         (p_up = 2^-177 exactly)\n"
    "  srlab op div 1 3 -f fp16 -r sr --samples 100000\n"
    "  printf '1,3\\n2,0x1p-9\\n' | srlab op div --batch -f bf16 -r sr --seed 7\n";

typedef struct op_cfg {
    srl_op op;
    srl_format f;
    srl_rounding m;
    char mode[32]; /* canonical name of m */
    uint64_t seed;
    srl_rng_kind kind;
    uint64_t samples; /* 0: none */
    bool stoch;
} op_cfg;

static const char *const operand_names[3] = {"a", "b", "c"};

/* "a + b", "sqrt(a)", ... */
static const char *expression(srl_op op)
{
    switch (op) {
    case SRL_ADD: return "a + b";
    case SRL_SUB: return "a - b";
    case SRL_MUL: return "a * b";
    case SRL_FMA: return "a * b + c";
    case SRL_DIV: return "a / b";
    case SRL_SQRT: return "sqrt(a)";
    default: return "?";
    }
}

static const char *operand_usage(srl_op op)
{
    return op == SRL_FMA ? "A B C" : op == SRL_SQRT ? "A" : "A B";
}

/* ---- exact values as text ---- */

/* A dyadic z 2^e (z != 0) as decimal text: all digits, positional for 1e-5 <= |x| < 1e21 (as
 * cli_fmt_exact), d.ddd...e+NN otherwise; at most `max` significant digits, then "...".
 * `digits` is the decimal digit string of the magnitude without trailing zeros, and e10 the
 * decimal exponent of its first digit. Returns a malloc'd string. */
static char *decimal_text(const char *digits, long e10, bool neg, size_t max, bool more)
{
    const size_t n = strlen(digits), shown = n < max ? n : max;
    const bool cut = more || shown < n;
    char *s = malloc(shown + (size_t)labs(e10) + 48);
    if (!s)
        return NULL;
    size_t k = 0;
    if (neg)
        s[k++] = '-';
    if (e10 >= -5 && e10 < 21) {
        if (e10 < 0) {
            s[k++] = '0';
            s[k++] = '.';
            for (long z = 0; z < -e10 - 1; z++)
                s[k++] = '0';
            memcpy(s + k, digits, shown);
            k += shown;
        } else {
            for (long i = 0; i <= e10; i++)
                s[k++] = (size_t)i < shown ? digits[i] : '0';
            if (shown > (size_t)e10 + 1) {
                s[k++] = '.';
                memcpy(s + k, digits + e10 + 1, shown - (size_t)e10 - 1);
                k += shown - (size_t)e10 - 1;
            }
        }
        if (cut)
            k += (size_t)sprintf(s + k, "...");
    } else {
        s[k++] = digits[0];
        if (shown > 1) {
            s[k++] = '.';
            memcpy(s + k, digits + 1, shown - 1);
            k += shown - 1;
        }
        if (cut)
            k += (size_t)sprintf(s + k, "...");
        k += (size_t)sprintf(s + k, "e%c%02ld", e10 < 0 ? '-' : '+', labs(e10));
    }
    s[k] = 0;
    return s;
}

/* The exact decimal value of a finite nonzero MPFR number (a dyadic rational): its decimal
 * expansion is finite. *nsig receives its count of significant digits. */
static char *exact_decimal(mpfr_srcptr x, size_t max, size_t *nsig)
{
    mpz_t z, p5;
    mpz_inits(z, p5, (mpz_ptr)0);
    const long e = (long)mpfr_get_z_2exp(z, x); /* x = z 2^e exactly */
    const bool neg = mpz_sgn(z) < 0;
    mpz_abs(z, z);
    long s10 = 0; /* x = z' 10^-s10 */
    if (e >= 0) {
        mpz_mul_2exp(z, z, (mp_bitcnt_t)e);
    } else {
        mpz_ui_pow_ui(p5, 5, (unsigned long)-e); /* z 2^e = z 5^-e / 10^-e */
        mpz_mul(z, z, p5);
        s10 = -e;
    }
    char *d = mpz_get_str(NULL, 10, z);
    const size_t dsize = strlen(d) + 1; /* for GMP's free function */
    size_t n = dsize - 1;
    while (n > 1 && d[n - 1] == '0') { /* trailing zeros are not significant */
        d[--n] = 0;
        s10--;
    }
    *nsig = n;
    char *out = decimal_text(d, (long)n - 1 - s10, neg, max, false);
    void (*freefunc)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefunc);
    freefunc(d, dsize);
    mpz_clears(z, p5, (mpz_ptr)0);
    return out;
}

/* The first `max` significant decimal digits of a nonzero finite x, truncated, then "...". */
static char *truncated_decimal(mpfr_srcptr x, size_t max)
{
    mpfr_exp_t e10;
    char *d = mpfr_get_str(NULL, &e10, 10, max, x, MPFR_RNDZ);
    if (!d)
        return NULL;
    const bool neg = d[0] == '-';
    char *digits = neg ? d + 1 : d;
    char *out = decimal_text(digits, (long)e10 - 1, neg, max, true);
    mpfr_free_str(d);
    return out;
}

/* Hex float text of a nonzero finite dyadic x: "0x1.01p+0", all hex digits (at most max, then
 * "..."), with a normalised leading 1 as cli_fmt_hexn. */
static char *exact_hex(mpfr_srcptr x, size_t max, bool more)
{
    mpz_t z;
    mpz_init(z);
    long e = (long)mpfr_get_z_2exp(z, x);
    const bool neg = mpz_sgn(z) < 0;
    mpz_abs(z, z);
    const mp_bitcnt_t tz = mpz_scan1(z, 0);
    mpz_tdiv_q_2exp(z, z, tz);
    e += (long)tz;
    const size_t nb = mpz_sizeinbase(z, 2); /* x = 1.f * 2^(e + nb - 1) */
    const long E = e + (long)nb - 1;
    const size_t fb = nb - 1, nh = (fb + 3) / 4;
    mpz_clrbit(z, nb - 1);
    mpz_mul_2exp(z, z, 4 * nh - fb);
    char *h = nh ? mpz_get_str(NULL, 16, z) : NULL;
    const size_t hl = h ? strlen(h) : 0, shown = nh < max ? nh : max;
    char *s = malloc(shown + 64);
    if (s) {
        size_t k = (size_t)sprintf(s, "%s0x1", neg ? "-" : "");
        if (nh) {
            s[k++] = '.';
            for (size_t i = 0; i < shown; i++) /* leading zeros of the fraction dropped by GMP */
                s[k++] = i < nh - hl ? '0' : h[i - (nh - hl)];
        }
        sprintf(s + k, "%sp%+ld", (more || shown < nh) ? "..." : "", E);
    }
    if (h) {
        void (*freefunc)(void *, size_t);
        mp_get_memory_functions(NULL, NULL, &freefunc);
        freefunc(h, hl + 1);
    }
    mpz_clear(z);
    return s;
}

/* ---- the teaching view ---- */

static bool is_power_of_two(double v)
{
    int e;
    return v > 0 && isfinite(v) && frexp(v, &e) == 0.5;
}

/* The operand rows: value, hex, bits; a note when the text is not exactly the binary64 number,
 * or the number is not a value of the format. */
static void operand_rows(FILE *o, const op_cfg *c, char **texts, const double *v, int wd, int wh)
{
    const int n = srl_op_arity(c->op);
    for (int k = 0; k < n; k++) {
        char d[CLI_NUM_LEN], h[CLI_NUM_LEN], bits[160], q[CLI_QUOTE_LEN];
        cli_fmt_short(d, v[k]);
        cli_fmt_hexn(h, v[k]);
        if (srl_format_contains(&c->f, v[k]))
            teach_bits(bits, sizeof bits, &c->f, v[k]);
        else
            snprintf(bits, sizeof bits, "(not a value of %s: used as this binary64 number)",
                     c->f.name);
        teach_value_row(o, operand_names[k], d, wd, h, wh, bits, "");
        char gap[CLI_NUM_LEN];
        if (!cli_number_exact(texts[k], v[k], gap)) {
            cli_quote(q, sizeof q, texts[k], strlen(texts[k]), 60);
            if (!gap[0])
                fprintf(o, "            the text %s is beyond binary64's range: strtod gives %s\n",
                        q, d);
            else
                fprintf(o, "            the text %s is not exactly a binary64 number: %s is its "
                           "nearest (%s - text = %s)\n",
                        q, operand_names[k], operand_names[k], gap);
        }
    }
}

/* The exact result's lines. `exact` tells whether r is a finite binary number (always for add,
 * sub, mul, fma; for div and sqrt when srl_op_exact's ternary is 0). */
static void exact_rows(FILE *o, const op_cfg *c, mpfr_srcptr r, bool exact, const double *v)
{
    const char *ex = expression(c->op);
    if (mpfr_nan_p(r)) {
        fprintf(o, "  exact     r = %s is undefined: NaN\n", ex);
        return;
    }
    if (mpfr_inf_p(r)) {
        fprintf(o, "  exact     r = %s = %sinf\n", ex, mpfr_sgn(r) > 0 ? "+" : "-");
        return;
    }
    if (mpfr_zero_p(r)) {
        fprintf(o, "  exact     r = %s = %s0\n", ex, mpfr_signbit(r) ? "-" : "");
        return;
    }
    char *dec, *hex;
    if (exact) {
        size_t nsig;
        dec = exact_decimal(r, EXACT_DIGITS, &nsig);
        hex = exact_hex(r, 4 * EXACT_DIGITS, false);
        fprintf(o, "  exact     r = %s = %s\n", ex, dec ? dec : "?");
        fprintf(o, "            exactly: a finite binary number of %zu significant decimal "
                   "digit%s", nsig, nsig == 1 ? "" : "s");
        if (nsig > EXACT_DIGITS)
            fprintf(o, " (the first %d shown)", EXACT_DIGITS);
        fputc('\n', o);
    } else {
        /* r's first digits, truncated: computed rounded toward zero (512 bits), so the digits
         * shown are those of r itself. */
        mpfr_t t, a;
        mpfr_inits2(512, t, a, (mpfr_ptr)0);
        mpfr_set_d(a, v[0], MPFR_RNDN);
        if (c->op == SRL_DIV)
            mpfr_div_d(t, a, v[1], MPFR_RNDZ);
        else
            mpfr_sqrt(t, a, MPFR_RNDZ);
        dec = truncated_decimal(t, ENDLESS_DIGITS);
        hex = exact_hex(t, ENDLESS_DIGITS, true);
        mpfr_clears(t, a, (mpfr_ptr)0);
        fprintf(o, "  exact     r = %s = %s\n", ex, dec ? dec : "?");
        fprintf(o, "            not a finite binary number: its binary expansion never ends "
                   "(%d digits shown, truncated)\n", ENDLESS_DIGITS);
    }
    fprintf(o, "  exact hex %s\n", hex ? hex : "?");
    free(dec);
    free(hex);
}

/* Why the result is what it is. u is the draw (stochastic modes). */
static void op_reason(char *buf, size_t len, const op_cfg *c, const srl_round_info *in,
                      mpfr_srcptr r, const double *v, uint64_t u)
{
    const srl_format *f = &c->f;
    teach_buf b = {buf, len, 0};
    char s1[CLI_NUM_LEN], s2[CLI_NUM_LEN];
    buf[0] = 0;
    for (int k = 0; k < srl_op_arity(c->op); k++)
        if (isnan(v[k])) {
            teach_add(&b, "an operand is NaN: every operation returns NaN");
            return;
        }
    if (mpfr_nan_p(r)) {
        static const char *const what[SRL_OP_COUNT] = {
            "inf + (-inf)", "inf - inf", "0 * inf", "0 * inf, or inf - inf in the sum",
            "0 / 0 or inf / inf", "the square root of a negative number"};
        teach_add(&b, "invalid operation (IEEE 754): %s has no value, so NaN", what[c->op]);
        return;
    }
    if (mpfr_inf_p(r)) {
        if (c->op == SRL_DIV && v[1] == 0)
            teach_add(&b, "division by zero: a / %s0 is a signed infinity (IEEE 754)",
                      signbit(v[1]) ? "-" : "+");
        else
            teach_add(&b, "an infinite operand makes r infinite");
        if (f->saturate)
            teach_add(&b, "; %s saturates: an infinity clamps to the largest finite", f->name);
        else if (!f->inf)
            teach_add(&b, "; %s has no infinities: NaN (the OCP FP8 convention)", f->name);
        else
            teach_add(&b, "; an infinity is a value of %s: returned unchanged", f->name);
        return;
    }
    if (mpfr_zero_p(r)) {
        teach_add(&b, "r is zero, a value of every format: returned as is");
        const bool sum = c->op == SRL_ADD || c->op == SRL_SUB || c->op == SRL_FMA;
        if (sum && (v[0] != 0 || v[1] != 0 || (c->op == SRL_FMA && v[2] != 0)))
            teach_add(&b, " (an exact zero sum of nonzero terms is +0 in every mode but rd, "
                          "which gives -0)");
        return;
    }
    if (in->exact) {
        teach_add(&b, "r is a value of %s: every mode returns it unchanged%s", f->name,
                  c->stoch ? " (the draw is consumed all the same)" : "");
        return;
    }
    const double top = f->xmax + srl_format_ulp(f, f->xmax); /* the grid point above xmax */
    if (mpfr_cmp_d(r, top) >= 0 || mpfr_cmp_d(r, -top) <= 0) {
        teach_add(&b, "|r| >= %s, the grid point above the largest finite %s; ",
                  cli_fmt_short(s1, top), cli_fmt_short(s2, f->xmax));
        teach_overflow_clause(&b, f, c->m, c->mode, in->result);
        return;
    }
    const bool pos = mpfr_sgn(r) > 0;
    /* Which way did it go: the ternary value; a non-finite result went away from zero. */
    const bool up = isfinite(in->result) ? in->ternary > 0 : pos;
    const bool away = up == pos;
    const double F = pos ? in->frac : 1.0 - in->frac; /* (r - grid point below) / ulp */
    char where[96];
    if (isfinite(in->rd))
        snprintf(where, sizeof where, "r - rd = %s ulp", cli_fmt_short(s1, F));
    else
        snprintf(where, sizeof where, "r lies %s ulp above the grid point below it",
                 cli_fmt_short(s1, F));
    const bool below = mpfr_cmp_d(r, f->xmin) < 0 && mpfr_cmp_d(r, -f->xmin) > 0;
    teach_mode_clause(&b, f, c->m, "r", where, in->frac, F, up, away, u, 0, below);
    teach_result_clause(&b, f, c->m, c->mode, in, "r");
}

/* The error result - r in ulps and relative to |r| (MPFR: exact for a finite binary r). */
static void op_error_line(FILE *o, const srl_round_info *in, mpfr_srcptr r, double ulp)
{
    const double res = in->result;
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN];
    if (mpfr_nan_p(r)) {
        fputs("  error     none: r is NaN\n", o);
        return;
    }
    if (mpfr_inf_p(r)) {
        fprintf(o, "  error     %s\n",
                isinf(res) && (res > 0) == (mpfr_sgn(r) > 0) ? "0 (an infinity is exact)"
                                                             : "undefined: r is infinite");
        return;
    }
    if (isnan(res) || isinf(res)) {
        fprintf(o, "  error     %s (overflow)\n",
                isnan(res) ? "undefined: the result is NaN" : "infinite");
        return;
    }
    mpfr_t d;
    mpfr_init2(d, mpfr_get_prec(r) + 128);
    mpfr_set_d(d, res, MPFR_RNDN);
    mpfr_sub(d, d, r, MPFR_RNDN);
    if (mpfr_zero_p(d)) {
        fputs("  error     0 (r is exact)\n", o);
    } else {
        const double in_ulps = mpfr_get_d(d, MPFR_RNDN) / ulp; /* ulp: a power of two */
        mpfr_div(d, d, r, MPFR_RNDN); /* (result - r) / |r| */
        if (mpfr_sgn(r) < 0)
            mpfr_neg(d, d, MPFR_RNDN);
        const double rel = mpfr_get_d(d, MPFR_RNDN);
        fprintf(o, "  error     %s ulp; relative %s\n", teach_signed_short(a, in_ulps),
                teach_signed_short(b, rel));
    }
    mpfr_clear(d);
}

/* (r - rd) / ulp, r's position above its lower neighbour in ulps, rounded to binary64. */
static double position(mpfr_srcptr r, double rd, double ulp)
{
    mpfr_t d;
    mpfr_init2(d, mpfr_get_prec(r) + 128);
    mpfr_sub_d(d, r, rd, MPFR_RNDN);
    const double F = mpfr_get_d(d, MPFR_RNDN) / ulp;
    mpfr_clear(d);
    return F;
}

static int op_samples(FILE *o, const op_cfg *c, const double *v, const srl_round_info *in,
                      mpfr_srcptr r, double ulp)
{
    const uint64_t N = c->samples;
    const double rd = in->rd, ru = in->ru, p_up = in->p_up;
    srl_rng base, s;
    srl_rng_init(&base, c->kind, c->seed, 0);
    srl_rng_derive(&s, &base, srl_hash_str(SAMPLES_KEY));
    uint64_t nup = 0, nother = 0;
    for (uint64_t j = 0; j < N; j++) {
        const double y = srl_op_apply(c->op, v[0], v[1], v[2], &c->f, c->m, &s);
        if (teach_same_value(y, ru))
            nup++;
        else if (!teach_same_value(y, rd))
            nother++;
    }
    char a[CLI_NUM_LEN];
    fprintf(o, "  samples   %" PRIu64 " operations with draws 0..%" PRIu64 " of the stream derived "
               "from seed %" PRIu64 " with key \"%s\" (%s)\n",
            N, N - 1, c->seed, SAMPLES_KEY, cli_rng_kind_name(c->kind));
    if (nother)
        fprintf(o, "  WARNING   %" PRIu64 " results were neither rd nor ru: a library bug\n",
                nother);
    if (teach_same_value(rd, ru)) {
        fprintf(o, "  up        none: all %" PRIu64 " results are %s (rd = ru: nothing random)\n",
                nup, cli_fmt_short(a, ru));
        return 0;
    }
    double lo, hi;
    teach_clopper_pearson(nup, N, CONFIDENCE, &lo, &hi);
    const double freq = (double)nup / (double)N;
    const bool p_in = lo <= p_up && p_up <= hi;
    fprintf(o, "  up        %" PRIu64 " of %" PRIu64 " (frequency %.6g); expected p_up = %s; 95%% "
               "Clopper-Pearson interval [%.6g, %.6g]: %s\n",
            nup, N, freq, cli_fmt_short(a, p_up), lo, hi,
            p_in ? "consistent"
                 : "INCONSISTENT (a 95% interval misses 1 time in 20; try another --seed)");
    if (!isfinite(rd) || !isfinite(ru) || !mpfr_number_p(r)) {
        fprintf(o, "  mean      not finite: %s is %s, so the results' mean is not a number to "
                   "compare with r\n", isfinite(rd) ? "ru" : "rd",
                cli_fmt_short(a, isfinite(rd) ? ru : rd));
        return 0;
    }
    /* In ulps: mean - r = freq - F with F = (r - rd)/ulp; the mode's E[result] - r = p_up - F. */
    const double F = position(r, rd, ulp);
    const double bias = p_up - F;
    const bool m_in = lo - F <= bias && bias <= hi - F;
    char bs[CLI_NUM_LEN];
    if (bias == 0)
        snprintf(bs, sizeof bs, "0 ulp (unbiased)");
    else
        snprintf(bs, sizeof bs, "%+.6g ulp (biased)", bias);
    fprintf(o, "  mean      %s: mean - r = %+.6g ulp; 95%% interval [%+.6g, %+.6g] ulp; the "
               "mode's E[result] - r = %s: %s\n",
            cli_fmt_g17(a, rd + ulp * freq), freq - F, lo - F, hi - F, bs,
            m_in ? "consistent" : "INCONSISTENT");
    return 0;
}

static int explain_op(const op_cfg *c, char **texts, const double *v)
{
    const srl_format *f = &c->f;
    srl_rng rr;
    srl_rng_init(&rr, c->kind, c->seed, 0);
    srl_round_info in;
    if (srl_op_explain(&in, c->op, v[0], v[1], v[2], f, c->m, &rr) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_op_explain failed");
    const uint64_t u = c->stoch ? srl_rng_draw_at(&rr, 0) : 0;
    mpfr_t r;
    mpfr_init2(r, WORK_PREC);
    const bool binary = srl_op_exact(r, c->op, v[0], v[1], v[2]) == 0; /* a finite binary r */

    cli_out out;
    int rc = cli_out_open(&out, cmd, NULL, NULL);
    if (rc) {
        mpfr_clear(r);
        return rc;
    }
    FILE *o = out.fp;
    teach_describe_format(o, f);
    fprintf(o, "rounding  %s: %s\n", c->mode, teach_mode_description(c->m));
    fprintf(o, "operation %s: r = %s, formed exactly and rounded once\n", srl_op_name(c->op),
            expression(c->op));
    if (c->stoch || c->samples)
        fprintf(o, "seed      %" PRIu64 " (%s); the operation uses draw 0 of stream 0%s\n",
                c->seed, cli_rng_kind_name(c->kind), c->stoch ? "" : " (this mode draws nothing)");
    fputc('\n', o);

    const int na = srl_op_arity(c->op);
    char d[3][CLI_NUM_LEN], h[3][CLI_NUM_LEN], bits[3][160], t1[CLI_NUM_LEN];
    const double nb[3] = {in.rd, in.ru, in.result};
    int wd = 0, wh = 0;
    for (int k = 0; k < na; k++) {
        wd = (int)fmax(wd, strlen(cli_fmt_short(t1, v[k])));
        wh = (int)fmax(wh, strlen(cli_fmt_hexn(t1, v[k])));
    }
    for (int k = 0; k < 3; k++) {
        cli_fmt_short(d[k], nb[k]);
        cli_fmt_hexn(h[k], nb[k]);
        teach_bits(bits[k], sizeof bits[k], f, nb[k]);
        wd = (int)fmax(wd, strlen(d[k]));
        wh = (int)fmax(wh, strlen(h[k]));
    }
    operand_rows(o, c, texts, v, wd, wh);
    exact_rows(o, c, r, binary, v);
    const bool rfin = mpfr_number_p(r);
    teach_value_row(o, "rd", d[0], wd, h[0], wh, bits[0],
                    rfin && !isfinite(in.rd) ? "  (rounding down overflows)" : "");
    teach_value_row(o, "ru", d[1], wd, h[1], wh, bits[1],
                    rfin && !isfinite(in.ru) ? "  (rounding up overflows)" : "");

    double ulp = NAN;
    if (!rfin) {
        fputs("  ulp       undefined: r is not finite\n", o);
    } else {
        const bool pair = isfinite(in.rd) && isfinite(in.ru) && in.rd != in.ru;
        ulp = pair ? in.ru - in.rd : srl_format_ulp(f, in.x);
        char a[CLI_NUM_LEN], b2[CLI_NUM_LEN], p[CLI_NUM_LEN];
        fprintf(o, "  ulp       %s = %s at r", teach_pow2_name(a, ulp), cli_fmt_short(b2, ulp));
        if (mpfr_cmp_d(r, f->xmax) > 0 || mpfr_cmp_d(r, -f->xmax) < 0)
            fprintf(o, " (the grid continued above the largest finite)");
        if (in.exact || mpfr_zero_p(r))
            fprintf(o, "; r is on the grid\n");
        else if (pair)
            fprintf(o, "; r = rd + %s ulp\n", cli_fmt_short(p, position(r, in.rd, ulp)));
        else
            fputc('\n', o);
    }
    {
        char a[CLI_NUM_LEN], b2[CLI_NUM_LEN], p2[CLI_NUM_LEN];
        if (teach_same_value(in.rd, in.ru)) {
            fprintf(o, "  p_up      0   p_down 0   (rd = ru: the result is certain)\n");
        } else {
            fprintf(o, "  p_up      %s", cli_fmt_g17(a, in.p_up));
            if (is_power_of_two(in.p_up) && in.p_up < 0x1p-10)
                fprintf(o, " = %s", teach_pow2_name(p2, in.p_up));
            fprintf(o, "   p_down %s\n", cli_fmt_g17(b2, 1.0 - in.p_up));
        }
    }
    if (c->stoch) {
        char a[CLI_NUM_LEN];
        fprintf(o, "  draw      number 0 of stream 0: 0x%016" PRIx64 ", U = %s\n", u,
                cli_fmt_short(a, (double)u * 0x1p-64));
    }
    const char *tag = "";
    if (teach_same_value(in.result, in.rd) && teach_same_value(in.result, in.ru))
        tag = "  (rd = ru)";
    else if (teach_same_value(in.result, in.rd))
        tag = "  (rd)";
    else if (teach_same_value(in.result, in.ru))
        tag = "  (ru)";
    teach_value_row(o, "result", d[2], wd, h[2], wh, bits[2], tag);
    op_error_line(o, &in, r, ulp);
    char why[1024];
    op_reason(why, sizeof why, c, &in, r, v, u);
    fprintf(o, "  why       %s\n", why);
    if (c->samples)
        rc = op_samples(o, c, v, &in, r, ulp);
    mpfr_clear(r);
    if (rc) {
        cli_out_abort(&out);
        return rc;
    }
    return cli_out_commit(&out);
}

/* ---- batch ---- */

/* Split the line s at commas into at most 3 trimmed fields; returns their number (4: more). */
static int split_fields(char *s, char **fields)
{
    int n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            s[--len] = 0;
        if (n == 3)
            return 4;
        fields[n++] = s;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

static int run_batch(const op_cfg *c, const char *path, const char *opt, bool comments, bool quiet,
                     int argc, char **argv)
{
    cli_out out;
    int rc = cli_out_open(&out, cmd, opt, path);
    if (rc)
        return rc;
    FILE *o = out.fp;
    if (comments) {
        fprintf(o, "# srlab %s\n# command: ", srl_version());
        cli_fprint_command(o, argc, argv);
        fprintf(o, "\n# seed: %" PRIu64 " (%s); data line k (from 0) uses draw k of stream 0%s\n",
                c->seed, cli_rng_kind_name(c->kind), c->stoch ? "" : " (this mode draws nothing)");
    }
    fputs("a,b,c,op,format,rounding,rd,ru,p_up,result\n", o);
    srl_rng r;
    srl_rng_init(&r, c->kind, c->seed, 0);
    teach_lines in = {stdin, NULL, 0, 0, ""};
    const int na = srl_op_arity(c->op);
    static const char *const shapes[4] = {"", "a", "a,b", "a,b,c"};
    uint64_t k = 0;
    char *text, hx[CLI_NUM_LEN], p[CLI_NUM_LEN];
    int got;
    while ((got = teach_next_line(&in, cmd, &text)) == TEACH_LINE) {
        char *fields[3];
        const int nf = split_fields(text, fields);
        if (nf != na) {
            rc = cli_error(cmd, "%s: %s takes %d operand%s (%s), found %s%d", in.what,
                           srl_op_name(c->op), na, na == 1 ? "" : "s", shapes[na],
                           nf > 3 ? "more than " : "", nf > 3 ? 3 : nf);
            break;
        }
        double v[3] = {0.0, 0.0, 0.0};
        for (int j = 0; j < na && !rc; j++) {
            char what[80];
            snprintf(what, sizeof what, "%s, %s", in.what, operand_names[j]);
            rc = cli_parse_number(cmd, what, fields[j], &v[j]);
        }
        if (rc)
            break;
        srl_round_info info;
        if (c->stoch && r.counter != k)
            srl_rng_seek(&r, k);
        if (srl_op_explain(&info, c->op, v[0], v[1], v[2], &c->f, c->m, &r) != SRL_OK) {
            rc = cli_sys_error(cmd, "internal error: srl_op_explain failed");
            break;
        }
        for (int j = 0; j < 3; j++)
            fprintf(o, "%s,", j < na ? cli_fmt_hex(hx, v[j]) : "");
        fprintf(o, "%s,", srl_op_name(c->op));
        cli_csv_field(o, c->f.name);
        fputc(',', o);
        cli_csv_field(o, c->mode);
        fprintf(o, ",%s,", cli_fmt_hex(hx, info.rd));
        fprintf(o, "%s,", cli_fmt_hex(hx, info.ru));
        fprintf(o, "%s,", cli_fmt_g17(p, info.p_up));
        fprintf(o, "%s\n", cli_fmt_hex(hx, info.result));
        k++;
    }
    if (!rc && got != TEACH_EOF)
        rc = got; /* a bad line: the message is out */
    free(in.line);
    if (rc) {
        cli_out_abort(&out);
        return rc;
    }
    if ((rc = cli_out_commit(&out)))
        return rc;
    if (c->stoch && !quiet)
        fprintf(stderr, "srlab op: seed %" PRIu64 " (%s): data line k used draw k of stream 0 "
                        "(%" PRIu64 " lines)\n", c->seed, cli_rng_kind_name(c->kind), k);
    return 0;
}

/* ---- the command ---- */

int cmd_op(int argc, char **argv)
{
    enum { O_FORMAT, O_ROUNDING, O_SAMPLES, O_SEED, O_RNG, O_BATCH, O_OUTPUT, O_COMMENTS, O_QUIET };
    static const cli_opt opts[] = {
        [O_FORMAT] = {"format", 'f', "FMT"},   [O_ROUNDING] = {"rounding", 'r', "MODE"},
        [O_SAMPLES] = {"samples", 0, "N"},     [O_SEED] = {"seed", 0, "S"},
        [O_RNG] = {"rng", 0, "pcg32|pcg64"},   [O_BATCH] = {"batch", 0, NULL},
        [O_OUTPUT] = {"output", 'o', "FILE"},  [O_COMMENTS] = {"comments", 0, NULL},
        [O_QUIET] = {"quiet", 0, NULL},        {NULL, 0, NULL},
    };
    op_cfg c;
    memset(&c, 0, sizeof c);
    c.f = *srl_format_find("bf16");
    c.m = SRL_ROUND_RN;
    c.seed = DEFAULT_SEED;
    c.kind = SRL_RNG_DEFAULT;
    bool batch = false, comments = false, quiet = false;
    const char *path = NULL, *op_text = NULL;
    char out_opt[48] = "", only_batch[48] = "", q[CLI_QUOTE_LEN];
    char *texts[3];
    int nx = 0, extra = 0, k, rc = 0;
    cli_args a;
    cli_args_init(&a, cmd, opts, argc, argv);
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: return cli_help(help);
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL:
            if (!op_text)
                op_text = a.val;
            else if (nx < 3)
                texts[nx++] = (char *)a.val;
            else
                extra++;
            break;
        case O_FORMAT: rc = cli_parse_format(cmd, a.opt, a.val, &c.f); break;
        case O_ROUNDING: rc = cli_parse_rounding(cmd, a.opt, a.val, &c.m); break;
        case O_SAMPLES: rc = cli_parse_count(cmd, a.opt, a.val, 1, MAX_SAMPLES, &c.samples); break;
        case O_SEED: rc = cli_parse_seed(cmd, a.opt, a.val, &c.seed); break;
        case O_RNG: rc = cli_parse_rng_kind(cmd, a.opt, a.val, &c.kind); break;
        case O_BATCH: batch = true; break;
        case O_OUTPUT:
            path = a.val;
            snprintf(out_opt, sizeof out_opt, "%s", a.opt);
            snprintf(only_batch, sizeof only_batch, "%s", a.opt);
            break;
        case O_COMMENTS:
            comments = true;
            snprintf(only_batch, sizeof only_batch, "%s", a.opt);
            break;
        case O_QUIET:
            quiet = true;
            snprintf(only_batch, sizeof only_batch, "%s", a.opt);
            break;
        }
    }
    if (rc)
        return rc;
    if (!op_text)
        return cli_error(cmd, "no operation: give OP (add, sub, mul, fma, div, sqrt) and its "
                              "operands, or OP --batch (see 'srlab op --help')");
    srl_err err;
    if (srl_op_parse(&c.op, op_text, &err) != SRL_OK) {
        cli_quote(q, sizeof q, op_text, strlen(op_text), CLI_QUOTE_MAX);
        return cli_error(cmd, "unknown operation %s (known: add, sub, mul, fma, div, sqrt)", q);
    }
    const int na = srl_op_arity(c.op);
    if (batch && nx)
        return cli_error(cmd, "operands on the command line and --batch exclude each other");
    if (batch && c.samples)
        return cli_error(cmd, "--samples does not apply to --batch");
    if (!batch && only_batch[0])
        return cli_error(cmd, "%s applies only to --batch", only_batch);
    if (!batch && nx + extra != na)
        return cli_error(cmd, "%s takes %d operand%s (%s), got %d", srl_op_name(c.op), na,
                         na == 1 ? "" : "s", operand_usage(c.op), nx + extra);
    c.stoch = srl_rounding_is_stochastic(c.m);
    srl_rounding_name(c.mode, sizeof c.mode, c.m);
    if (batch)
        return run_batch(&c, path, out_opt, comments, quiet, argc, argv);
    double v[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < na; i++) {
        if ((rc = cli_parse_number(cmd, operand_names[i], texts[i], &v[i])))
            return rc;
    }
    return explain_op(&c, texts, v);
}
