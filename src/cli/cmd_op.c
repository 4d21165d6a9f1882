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
 * The library computes; this file lays the results out (with what it shares with `srlab round`:
 * src/cli/batch.c and src/cli/teach.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>
#include <mpfr.h>

#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/teach.h"
#include "srlab/ops.h"
#include "srlab/ops_mpfr.h"

#define MAX_SAMPLES UINT64_C(1000000000)
#define EXACT_DIGITS 800   /* decimal digits shown of a finite binary number, at most */
#define ENDLESS_DIGITS 40  /* decimal and hex digits shown of an endless expansion */
#define WORK_PREC 4096     /* bits of a quotient or square root before display */

static const char *const cmd = "op";

static const char help[] =
    "usage: srlab op OP A B [C] [-f FMT] [-r MODE] [--samples N] [--seed S] [--rng KIND]\n"
    "                   [--compact]\n"
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
    "  -f, --format FMT     bf16 (default), fp16, fp32, tf32, e4m3, e5m2, fp64 (or bfloat16,\n"
    "                       half, float8_e4m3fn, ...: any case), or a custom\n"
    "                       p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,saturate=on|off]\n"
    "  -r, --rounding MODE  rn (default), rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64),\n"
    "                       or nearest, toward-zero, stochastic, ... (any case)\n"
    "  --seed S             seed of the random stream, decimal or 0x hex (default 1, as in every\n"
    "                       srlab command); the teaching view uses draw 0 of stream 0\n"
    "  --rng KIND           pcg32 (default) or pcg64\n"
    "  --samples N          also perform the operation N times (1 <= N <= 10^9) with draws\n"
    "                       0..N-1 of the stream derived from the seed with key \"op --samples\",\n"
    "                       and compare the frequency of rounding up and the mean with p_up and r\n"
    "                       (95% Clopper-Pearson intervals)\n"
    "  --compact            the same view in 80 columns, numbers to 6 significant digits\n"
    "                       (probabilities and errors to 4): for a projector\n"
    "  --batch              read operand lines from standard input: a,b (a,b,c for fma; a for\n"
    "                       sqrt), spaces around fields allowed, no quoted fields (a field is\n"
    "                       a number: \"1\" is refused), and write the CSV\n"
    "                         a,b,c,op,format,rounding,rd,ru,p_up,result\n"
    "                       with numbers as C99 hex floats, empty fields for operands OP does not\n"
    "                       take, p_up to 17 significant digits; data line k (from 0) uses draw k\n"
    "                       of stream 0 of the seed. Nothing is written unless every line is\n"
    "                       valid. A stochastic mode's seed is echoed on standard error.\n"
    "  -o, --output FILE    with --batch: write the CSV to FILE, atomically (default, and -\n"
    "                       or /dev/stdout: standard output)\n"
    "  --comments           with --batch: start the CSV with '#' lines: version, command, seed\n"
    "  --quiet              with --batch: do not echo the seed on standard error\n"
    "  -h, --help           this help\n"
    "\n"
    "examples:\n"
    "  srlab op add 1 0.0001 -f bf16 -r sr --compact\n"
    "  srlab op add 1 0x1p-8 -f bf16                 (a tie: rn keeps the even neighbour 1)\n"
    "  srlab op add 1 0x1p-200 -f fp32 -r sr         (p_up = 2^-177 exactly)\n"
    "  srlab op div 1 3 -f fp16 -r sr --samples 100000\n"
    "  printf '1,3\\n2,0x1p-9\\n' | srlab op div --batch -f bf16 -r sr --seed 7\n";

/* The command line: the options, the operation and its operands. */
typedef struct op_cfg {
    const cli_batch *b;
    srl_op op;
    char **texts;  /* the operands' text (the teaching view) */
    double v[3];   /* their values; 0 for operands the operation does not take */
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

/* The operand rows: value, hex, bits; a note when the text is not exactly the binary64 number,
 * or the number is not a value of the format. */
static void operand_rows(FILE *o, const op_cfg *c, int wd, int wh)
{
    const srl_format *f = &c->b->f;
    char **texts = c->texts;
    const double *v = c->v;
    const int n = srl_op_arity(c->op);
    for (int k = 0; k < n; k++) {
        char d[CLI_NUM_LEN], h[CLI_NUM_LEN], bits[160], q[CLI_QUOTE_LEN];
        cli_fmt_short(d, v[k]);
        cli_fmt_hexn(h, v[k]);
        if (srl_format_contains(f, v[k]))
            teach_bits(bits, sizeof bits, f, v[k]);
        else
            snprintf(bits, sizeof bits, "(not a value of %s: used as this binary64 number)",
                     f->name);
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
static void exact_rows(FILE *o, const op_cfg *c, mpfr_srcptr r, bool exact)
{
    const double *v = c->v;
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
                      mpfr_srcptr r, uint64_t u)
{
    const cli_batch *bo = c->b;
    const srl_format *f = &bo->f;
    const double *v = c->v;
    teach_buf b = {buf, len, 0};
    char s1[CLI_NUM_LEN];
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
        teach_exact_reason(&b, f, "r", bo->stoch);
        return;
    }
    const double top = teach_overflow_threshold(f);
    if (mpfr_cmp_d(r, top) >= 0 || mpfr_cmp_d(r, -top) <= 0) {
        teach_beyond_reason(&b, f, bo->m, bo->mode, "r", in->result);
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
    teach_mode_clause(&b, f, bo->m, "r", where, in->frac, F, up, away, u, 0, below);
    teach_result_clause(&b, f, bo->m, bo->mode, in, "r");
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

/* ---- the teaching view ---- */

/* What the library computed for the operation, with draw 0 of stream 0. */
typedef struct op_result {
    srl_round_info in;
    uint64_t u;   /* the draw (stochastic modes) */
    mpfr_t r;     /* the exact result (WORK_PREC bits when it is not a finite binary number) */
    bool binary;  /* r is a finite binary number, held exactly */
    double ulp;   /* the grid spacing at r; NaN when r is not finite */
} op_result;

/* The ulp line: the grid spacing at r (kept in res->ulp), and where r lies on the grid. */
static void ulp_line(FILE *o, const srl_format *f, op_result *res)
{
    const srl_round_info *in = &res->in;
    res->ulp = NAN;
    if (!mpfr_number_p(res->r)) {
        fputs("  ulp       undefined: r is not finite\n", o);
        return;
    }
    const bool pair = isfinite(in->rd) && isfinite(in->ru) && in->rd != in->ru;
    const double ulp = pair ? in->ru - in->rd : srl_format_ulp(f, in->x);
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], p[CLI_NUM_LEN];
    fprintf(o, "  ulp       %s = %s at r", teach_pow2_name(a, ulp), cli_fmt_short(b, ulp));
    if (mpfr_cmp_d(res->r, f->xmax) > 0 || mpfr_cmp_d(res->r, -f->xmax) < 0)
        fprintf(o, " (the grid continued above the largest finite)");
    if (in->exact || mpfr_zero_p(res->r))
        fprintf(o, "; r is on the grid\n");
    else if (pair)
        fprintf(o, "; r = rd + %s ulp\n", cli_fmt_short(p, position(res->r, in->rd, ulp)));
    else
        fputc('\n', o);
    res->ulp = ulp;
}

/* --samples: N operations with draws 0..N-1 of the samples stream. */
static void op_samples(FILE *o, const op_cfg *c, const op_result *res)
{
    const cli_batch *b = c->b;
    const srl_round_info *in = &res->in;
    const bool finite = mpfr_number_p(res->r);
    cli_batch_tally t = {"operations", "r", 0, 0, 0, in->rd, in->ru, in->p_up, finite, res->ulp,
                         finite && isfinite(in->rd) && isfinite(in->ru)
                             ? position(res->r, in->rd, res->ulp) : NAN};
    srl_rng s;
    cli_batch_samples_stream(b, &s);
    for (uint64_t j = 0; j < b->samples; j++)
        cli_batch_tally_add(&t, srl_op_apply(c->op, c->v[0], c->v[1], c->v[2], &b->f, b->m, &s));
    cli_batch_print_samples(o, b, &t);
}

/* The operands, the exact result, the neighbours, the result and why. */
static void write_rows(FILE *o, const op_cfg *c, op_result *res)
{
    const srl_format *f = &c->b->f;
    const srl_round_info *in = &res->in;
    int wd = 0, wh = 0;
    char t[CLI_NUM_LEN], why[1024];
    for (int k = 0; k < srl_op_arity(c->op); k++) {
        wd = (int)fmax(wd, strlen(cli_fmt_short(t, c->v[k])));
        wh = (int)fmax(wh, strlen(cli_fmt_hexn(t, c->v[k])));
    }
    teach_neighbours nb;
    teach_neighbours_fill(&nb, f, in, wd, wh);
    operand_rows(o, c, nb.wd, nb.wh);
    exact_rows(o, c, res->r, res->binary);
    teach_neighbour_rows(o, &nb, in, mpfr_number_p(res->r));
    ulp_line(o, f, res);
    teach_p_up_line(o, in, true);
    if (c->b->stoch)
        teach_draw_line(o, 0, res->u);
    teach_result_row(o, &nb, in);
    /* result - r is exact at 128 bits more than r's (MPFR: for a finite binary r) */
    teach_error_line(o, in, res->r, "r", mpfr_get_prec(res->r) + 128, res->ulp);
    op_reason(why, sizeof why, c, in, res->r, res->u);
    fprintf(o, "  why       %s\n", why);
}

static int write_view(FILE *o, const cli_batch *b, void *ctx)
{
    const op_cfg *c = ctx;
    op_result res;
    srl_rng rr;
    srl_rng_init(&rr, b->kind, b->seed, 0);
    if (srl_op_explain(&res.in, c->op, c->v[0], c->v[1], c->v[2], &b->f, b->m, &rr) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_op_explain failed");
    res.u = b->stoch ? srl_rng_draw_at(&rr, 0) : 0;
    mpfr_init2(res.r, WORK_PREC);
    res.binary = srl_op_exact(res.r, c->op, c->v[0], c->v[1], c->v[2]) == 0;

    cli_batch_print_mode(o, b);
    fprintf(o, "operation %s: r = %s, formed exactly and rounded once\n", srl_op_name(c->op),
            expression(c->op));
    cli_batch_print_seed(o, b, "the operation uses draw 0 of stream 0");
    fputc('\n', o);
    if (b->compact) {
        char label[3 * CLI_NUM_LEN + 16];
        size_t k = 0;
        for (int i = 0; i < srl_op_arity(c->op); i++)
            k += (size_t)snprintf(label + k, sizeof label - k, "%s%c %.6g", i ? ", " : "",
                                  "abc"[i], c->v[i]);
        const srl_round_info *in = &res.in;
        const bool pair = isfinite(in->rd) && isfinite(in->ru) && in->rd != in->ru;
        teach_compact_rows(o, label, in, res.r, mpfr_get_prec(res.r) + 128,
                           pair ? in->ru - in->rd : srl_format_ulp(&b->f, in->x), b->stoch,
                           res.u);
    } else {
        write_rows(o, c, &res);
    }
    if (b->samples)
        op_samples(o, c, &res);
    mpfr_clear(res.r);
    return 0;
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

/* One operand line: a,b (a,b,c for fma; a for sqrt) -> a,b,c,op,format,rounding,rd,ru,p_up,result */
static int batch_row(FILE *o, const cli_batch *b, char *text, const char *what, srl_rng *r,
                     void *ctx)
{
    static const char *const shapes[4] = {"", "a", "a,b", "a,b,c"};
    const srl_op op = *(const srl_op *)ctx;
    const int na = srl_op_arity(op);
    char *fields[3];
    const int nf = split_fields(text, fields);
    if (nf != na)
        return cli_error(cmd, "%s: %s takes %d operand%s (%s), found %s%d", what,
                         srl_op_name(op), na, na == 1 ? "" : "s", shapes[na],
                         nf > 3 ? "more than " : "", nf > 3 ? 3 : nf);
    double v[3] = {0.0, 0.0, 0.0};
    int rc;
    for (int j = 0; j < na; j++) {
        char w[80];
        snprintf(w, sizeof w, "%s, %s", what, operand_names[j]);
        if ((rc = cli_parse_number(cmd, w, fields[j], &v[j])))
            return rc;
    }
    srl_round_info info;
    if (srl_op_explain(&info, op, v[0], v[1], v[2], &b->f, b->m, r) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_op_explain failed");
    char hx[CLI_NUM_LEN], p[CLI_NUM_LEN];
    for (int j = 0; j < 3; j++)
        fprintf(o, "%s,", j < na ? cli_fmt_hex(hx, v[j]) : "");
    fprintf(o, "%s,", srl_op_name(op));
    cli_csv_field(o, b->f.name);
    fputc(',', o);
    cli_csv_field(o, b->mode);
    fprintf(o, ",%s,", cli_fmt_hex(hx, info.rd));
    fprintf(o, "%s,", cli_fmt_hex(hx, info.ru));
    fprintf(o, "%s,", cli_fmt_g17(p, info.p_up));
    fprintf(o, "%s\n", cli_fmt_hex(hx, info.result));
    return 0;
}

/* ---- the command ---- */

/* The operation and its operands from the positional arguments, checked against the options. */
static int read_operation(op_cfg *c)
{
    const cli_batch *b = c->b;
    char q[CLI_QUOTE_LEN];
    if (!b->npos)
        return cli_error(cmd, "no operation: give OP (add, sub, mul, fma, div, sqrt) and its "
                              "operands, or OP --batch (see 'srlab op --help')");
    srl_err err;
    if (srl_op_parse(&c->op, b->pos[0], &err) != SRL_OK) {
        cli_quote(q, sizeof q, b->pos[0], strlen(b->pos[0]), CLI_QUOTE_MAX);
        return cli_error(cmd, "unknown operation %s (known: add, sub, mul, fma, div, sqrt)", q);
    }
    const int na = srl_op_arity(c->op), nx = b->npos - 1;
    int rc = cli_batch_check(b, "operands", nx);
    if (rc)
        return rc;
    if (!b->batch && nx != na)
        return cli_error(cmd, "%s takes %d operand%s (%s), got %d", srl_op_name(c->op), na,
                         na == 1 ? "" : "s", operand_usage(c->op), nx);
    c->texts = b->pos + 1;
    for (int i = 0; i < na && !b->batch; i++)
        if ((rc = cli_parse_number(cmd, operand_names[i], c->texts[i], &c->v[i])))
            return rc;
    return 0;
}

int cmd_op(int argc, char **argv)
{
    cli_batch b;
    op_cfg c = {&b, SRL_ADD, NULL, {0.0, 0.0, 0.0}};
    int rc = cli_batch_parse(&b, cmd, MAX_SAMPLES, argc, argv);
    if (rc == CLI_BATCH_HELP) {
        cli_batch_free(&b);
        return cli_help(help);
    }
    if (!rc)
        rc = read_operation(&c);
    if (!rc)
        rc = b.batch ? cli_batch_run(&b, "a,b,c,op,format,rounding,rd,ru,p_up,result", batch_row,
                                     NULL, &c.op, true, argc, argv)
                     : cli_batch_view(&b, write_view, &c);
    cli_batch_free(&b);
    return rc;
}
