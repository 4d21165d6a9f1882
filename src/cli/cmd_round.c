/* src/cli/cmd_round.c: `srlab round`: round binary64 numbers into a format (docs/design.md §2-4).
 *
 * Two faces:
 *   srlab round X...   a teaching view of each rounding, from srl_round_explain: the input as
 *                      parsed (and whether its text is exactly a binary64 number, decided with
 *                      MPFR), its exact decimal and hex values, the neighbours rd <= x <= ru with
 *                      their encodings, ulp(x), p_up, the result, its error and the reason.
 *                      --samples N repeats the rounding N times and tests the observed frequency
 *                      of rounding up and the sample mean against p_up and x with 95%
 *                      Clopper-Pearson intervals (SR is unbiased: E[SR(x)] = x, theory T01).
 *   srlab round --batch  one number per line on stdin, CSV out; line k uses draw k of stream 0,
 *                      so the output is a pure function of the input and the seed.
 * Draws: the i-th X (from 0) and the k-th batch line use draw i (k) of stream 0 of the seed, so
 * `srlab round X --seed S` and a batch whose line k is X agree. --samples uses the stream derived
 * from (seed, stream 0) with key srl_hash_str("round --samples"), draws i*N .. i*N+N-1 for X
 * number i, through srl_round_array (bit-identical for any thread count).
 * This file computes nothing about rounding itself: the library does; it only lays results out
 * (what it shares with `srlab op`: the options, the seed lines, the --samples report and the
 * --batch loop in src/cli/batch.c, the display pieces in src/cli/teach.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/round_mx.h"
#include "cli/teach.h"

#define MAX_SAMPLES UINT64_C(10000000000)

static const char *const cmd = "round";

static const char help[] =
    "usage: srlab round X... [-f FMT] [-r MODE] [--samples N] [--seed S] [--rng pcg32|pcg64]\n"
    "                   [--compact] [--scale ocp|3/4|ceil]\n"
    "       srlab round --batch [-f FMT] [-r MODE] [--seed S] [--rng KIND] [-o FILE]\n"
    "                   [--comments] [--quiet]\n"
    "\n"
    "Round binary64 numbers into a format and explain each rounding: the input as parsed (text\n"
    "is converted to the nearest binary64 by strtod, and srlab says when the text is not\n"
    "exactly that number, because srlab rounds binary64 values), its exact decimal value (all\n"
    "digits) and hex float, the neighbours rd <= x <= ru in the format with their bit patterns\n"
    "(sign exponent fraction, and hex), the grid spacing ulp at x, the probability p_up of\n"
    "rounding up (toward +inf), the result with its bits, the error in ulps and relative to |x|,\n"
    "and why. X is a decimal (0.1, -2.5e-3), a C99 hex float (0x1.8p-3), inf, -inf or nan.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     bf16 (default), fp16, fp32, tf32, e4m3, e5m2, fp64, e2m1, e3m2, e2m3,\n"
    "                       int8 (or bfloat16, half, float8_e4m3fn, ...: any case), a custom\n"
    "                       p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,nan=on|off]\n"
    "                       [,saturate=on|off], or a block format: mxfp8 (mxfp8-e4m3),\n"
    "                       mxfp8-e5m2, mxfp6 (mxfp6-e3m2), mxfp6-e2m3, mxfp4, mxint8, nvfp4\n"
    "                       [,block=B]. With a block format the numbers are cut into blocks in\n"
    "                       order and each block is explained: its scale, and per element rd,\n"
    "                       ru, p_up, the result (dequantized) and the element code\n"
    "  --scale RULE         with a block format: ocp (default: floor(log2 amax) - emax), 3/4 (the\n"
    "                       block times 3/4 first: nothing clips), ceil (the smallest scale that\n"
    "                       does not clip)\n"
    "  -r, --rounding MODE  rn (default), rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64),\n"
    "                       or nearest, toward-zero, stochastic, ... (any case)\n"
    "  --seed S             seed of the random stream, decimal or 0x hex (default 1, as in every\n"
    "                       srlab command); in stochastic modes the i-th X (from 0) uses draw i\n"
    "                       of stream 0\n"
    "  --rng KIND           pcg32 (default) or pcg64\n"
    "  --samples N          also round each X N times (1 <= N <= 10^10) with draws from the\n"
    "                       stream derived from the seed with key \"round --samples\" (X number i\n"
    "                       uses draws i*N .. i*N+N-1) and compare the frequency of rounding up\n"
    "                       and the sample mean with p_up and x (95% Clopper-Pearson intervals)\n"
    "  --compact            the same view in 80 columns, numbers to 6 significant digits\n"
    "                       (probabilities and errors to 4): for a projector\n"
    "  --batch              read one number per line from standard input (spaces around it and\n"
    "                       a trailing CR allowed, empty lines rejected) and write the CSV\n"
    "                         input,format,rounding,rd,ru,p_up,result\n"
    "                       with numbers as C99 hex floats and p_up to 17 significant digits;\n"
    "                       data line k (from 0) uses draw k of stream 0 of the seed (a block\n"
    "                       format writes input,format,rounding,scale_rule,block,scale_code,\n"
    "                       scale,rd,ru,p_up,result, the lines cut into blocks). Nothing\n"
    "                       is written unless every line is valid. A stochastic mode's seed is\n"
    "                       echoed on standard error.\n"
    "  -o, --output FILE    with --batch: write the CSV to FILE, atomically (default, and -\n"
    "                       or /dev/stdout: standard output)\n"
    "  --comments           with --batch: start the CSV with '#' lines: version, command, seed\n"
    "  --quiet              with --batch: do not echo the seed on standard error\n"
    "  -h, --help           this help\n"
    "\n"
    "Negative numbers may follow the options directly (-0.5); '--' ends the options.\n"
    "\n"
    "examples:\n"
    "  srlab round 0.1 1e-3 -f bf16 -r sr --compact\n"
    "  srlab round 0.1\n"
    "  srlab round 1.00390625 -f bf16 -r sr --samples 10000\n"
    "  srlab round 460 470 -f e4m3\n"
    "  srlab round 0.3 1.1 -2.6 7.9 -f mxfp4 -r sr --scale 3/4\n"
    "  printf '0.1\\n0x1.8p-3\\n-2.5\\n' | srlab round --batch -f fp16 -r sr --seed 7\n";

/* ---- the reason for one rounding ---- */

static void reason(char *buf, size_t len, const cli_batch *c, const srl_round_info *in,
                   uint64_t u, uint64_t i)
{
    const srl_format *f = &c->f;
    const double x = in->x, res = in->result;
    teach_buf b = {buf, len, 0};
    char s1[CLI_NUM_LEN];
    buf[0] = 0;
    if (isnan(x)) {
        teach_add(&b, "NaN: every mode returns NaN");
        return;
    }
    if (isinf(x)) {
        if (f->saturate)
            teach_add(&b, "%s saturates: an infinity clamps to the largest finite", f->name);
        else if (!f->inf)
            teach_add(&b, "%s has no infinities: an infinity becomes NaN (the OCP FP8 convention)",
                   f->name);
        else
            teach_add(&b, "an infinity is a value of %s: returned unchanged", f->name);
        return;
    }
    if (x == 0) {
        teach_add(&b, "zero is a value of every format: returned unchanged, sign kept");
        return;
    }
    if (in->exact) {
        teach_exact_reason(&b, f, "x", c->stoch);
        return;
    }
    if (fabs(x) >= teach_overflow_threshold(f)) {
        teach_beyond_reason(&b, f, c->m, c->mode, "x", res);
        return;
    }
    /* Which way did it go? A non-finite result from a finite x went away from zero. */
    const bool up = isfinite(res) ? res > x : x > 0;
    const bool away = (up == (x > 0));
    const double F = x > 0 ? in->frac : 1.0 - in->frac; /* (x - grid point below) / ulp */
    char pos[96];
    if (isfinite(in->rd))
        snprintf(pos, sizeof pos, "x - rd = %s ulp", cli_fmt_short(s1, F));
    else
        snprintf(pos, sizeof pos, "x lies %s ulp above the grid point below it",
                 cli_fmt_short(s1, F));
    teach_mode_clause(&b, f, c->m, "x", pos, in->frac, F, up, away, u, i, fabs(x) < f->xmin);
    teach_result_clause(&b, f, c->m, c->mode, in, "x");
}

/* ---- teaching view ---- */

static void input_line(FILE *o, const char *text, double x)
{
    char q[CLI_QUOTE_LEN], gap[CLI_NUM_LEN];
    cli_quote(q, sizeof q, text, strlen(text), 60);
    int exact = cli_number_exact(text, x, gap);
    if (isnan(x))
        fprintf(o, "input %s: not a number (NaN)\n", q);
    else if (isinf(x) && exact)
        fprintf(o, "input %s: %s infinity\n", q, x > 0 ? "the positive" : "the negative");
    else if (exact)
        fprintf(o, "input %s: exactly a binary64 number\n", q);
    else if (isinf(x))
        fprintf(o, "input %s: beyond binary64's range: strtod gives %sinf, which srlab rounds\n", q,
                x > 0 ? "+" : "-");
    else if (x == 0)
        fprintf(o, "input %s: below binary64's smallest subnormal 2^-1074: strtod gives %s0, which "
                   "srlab rounds\n", q, signbit(x) ? "-" : "");
    else
        fprintf(o, "input %s: not exactly a binary64 number; srlab rounds its nearest binary64 x "
                   "(strtod): x - text = %s\n", q, gap);
}

/* The ulp line: the grid spacing at x, and where x lies on the grid. */
static void ulp_line(FILE *o, const srl_format *f, const srl_round_info *in, double ulp)
{
    const double x = in->x;
    if (!isfinite(x)) {
        fputs("  ulp       undefined: x is not finite\n", o);
        return;
    }
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], p[CLI_NUM_LEN];
    fprintf(o, "  ulp       %s = %s at x", teach_pow2_name(a, ulp), cli_fmt_short(b, ulp));
    if (fabs(x) > f->xmax)
        fprintf(o, " (the grid continued above the largest finite)");
    if (in->exact || x == 0)
        fprintf(o, "; x is on the grid\n");
    else if (isfinite(in->rd) && fabs(x) < f->xmax + srl_format_ulp(f, f->xmax))
        fprintf(o, "; x = rd + %s ulp\n", cli_fmt_short(p, (x - in->rd) / ulp));
    else
        fputc('\n', o);
}

/* The teaching view of X number i (text, parsed as x), which uses draw i of stream 0. */
static int explain_one(FILE *o, const cli_batch *c, const char *text, double x, uint64_t i)
{
    const srl_format *f = &c->f;
    srl_rng r;
    srl_rng_init(&r, c->kind, c->seed, 0);
    if (c->stoch)
        srl_rng_seek(&r, i);
    srl_round_info in;
    if (srl_round_explain(&in, x, f, c->m, &r) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_round_explain failed");
    const uint64_t u = c->stoch ? srl_rng_draw_at(&r, i) : 0;

    if (c->compact) {
        char label[CLI_QUOTE_LEN];
        cli_quote(label, sizeof label, text, strlen(text), CLI_QUOTE_MAX);
        mpfr_t xv;
        mpfr_init2(xv, 53);
        mpfr_set_d(xv, x, MPFR_RNDN);
        fputs("\nx ", o);
        teach_compact_rows(o, label, &in, xv, 2200, srl_format_ulp(f, x), c->stoch, u);
        mpfr_clear(xv);
        return 0;
    }
    char *exact = malloc(CLI_EXACT_LEN), why[1024], hx[CLI_NUM_LEN];
    if (!exact)
        return cli_sys_error(cmd, "out of memory");
    fputc('\n', o);
    input_line(o, text, x);
    fprintf(o, "  x         %s\n", cli_fmt_exact(exact, x));
    fprintf(o, "  x (hex)   %s\n", cli_fmt_hexn(hx, x));
    free(exact);

    teach_neighbours nb;
    teach_neighbours_fill(&nb, f, &in, 0, 0);
    teach_neighbour_rows(o, &nb, &in, isfinite(x));
    const double ulp = srl_format_ulp(f, x);
    ulp_line(o, f, &in, ulp);
    teach_p_up_line(o, &in, false);
    if (c->stoch)
        teach_draw_line(o, i, u);
    teach_result_row(o, &nb, &in);
    mpfr_t xm; /* x itself, for the error line */
    mpfr_init2(xm, 53);
    mpfr_set_d(xm, x, MPFR_RNDN);
    /* result - x is exact at 2200 bits: both lie in [2^-1074, 2^1024) */
    teach_error_line(o, &in, xm, "x", 2200, ulp);
    mpfr_clear(xm);
    reason(why, sizeof why, c, &in, u, i);
    fprintf(o, "  why       %s\n", why);
    return 0;
}

/* --samples for X number i: N roundings of x with draws i*N .. i*N+N-1 of the samples stream,
 * through srl_round_array in chunks. */
static int sample_one(FILE *o, const cli_batch *c, double x, uint64_t i)
{
    const srl_format *f = &c->f;
    const uint64_t N = c->samples;
    /* p_up of the mode, from an explain with a throw-away stream (p_up does not depend on it). */
    srl_rng tmp;
    srl_rng_init(&tmp, c->kind, c->seed, 0);
    srl_round_info im;
    if (srl_round_explain(&im, x, f, c->m, &tmp) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_round_explain failed");
    cli_batch_tally t = {"roundings", "x", i * N, 0, 0, im.rd, im.ru, im.p_up, isfinite(x),
                         im.ru - im.rd, (x - im.rd) / (im.ru - im.rd)};

    srl_rng s;
    cli_batch_samples_stream(c, &s);
    srl_rng_seek(&s, i * N);
    enum { CHUNK = 1 << 14 };
    const size_t chunk = N < CHUNK ? (size_t)N : CHUNK;
    double *xs = malloc(chunk * sizeof *xs), *ys = malloc(chunk * sizeof *ys);
    int rc = 0;
    if (!xs || !ys)
        rc = cli_sys_error(cmd, "out of memory");
    for (size_t j = 0; !rc && j < chunk; j++)
        xs[j] = x;
    for (uint64_t done = 0; !rc && done < N;) {
        size_t n = (N - done < chunk) ? (size_t)(N - done) : chunk;
        if (srl_round_array(ys, xs, n, f, c->m, &s) != SRL_OK)
            rc = cli_sys_error(cmd, "internal error: srl_round_array failed");
        for (size_t j = 0; !rc && j < n; j++)
            cli_batch_tally_add(&t, ys[j]);
        done += n;
    }
    free(xs);
    free(ys);
    if (!rc)
        cli_batch_print_samples(o, c, &t);
    return rc;
}

/* The numbers of the command line: their text and value. */
typedef struct round_inputs {
    char **texts;
    const double *xs;
} round_inputs;

static int write_view(FILE *o, const cli_batch *c, void *ctx)
{
    const round_inputs *in = ctx;
    if (c->is_mx)
        return round_mx_view(o, c, in->xs, c->npos);
    int rc = 0;
    cli_batch_print_mode(o, c);
    cli_batch_print_seed(o, c, "X number i (from 0) uses draw i of stream 0");
    for (int i = 0; i < c->npos && !rc; i++) {
        rc = explain_one(o, c, in->texts[i], in->xs[i], (uint64_t)i);
        if (!rc && c->samples)
            rc = sample_one(o, c, in->xs[i], (uint64_t)i);
    }
    return rc;
}

/* Read every number, then explain them. */
static int explain_all(const cli_batch *c)
{
    double *xs = malloc((size_t)c->npos * sizeof *xs);
    int rc = xs ? 0 : cli_sys_error(cmd, "out of memory");
    for (int i = 0; i < c->npos && !rc; i++)
        rc = cli_parse_number(cmd, NULL, c->pos[i], &xs[i]);
    round_inputs in = {c->pos, xs};
    if (!rc)
        rc = cli_batch_view(c, write_view, &in);
    free(xs);
    return rc;
}

/* ---- batch ---- */

static int batch_row(FILE *o, const cli_batch *c, char *text, const char *what, srl_rng *r,
                     void *ctx)
{
    (void)ctx;
    double x;
    int rc = cli_parse_number(cmd, what, text, &x);
    if (rc)
        return rc;
    srl_round_info in;
    if (srl_round_explain(&in, x, &c->f, c->m, r) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_round_explain failed");
    char hx[4][CLI_NUM_LEN], p[CLI_NUM_LEN];
    fprintf(o, "%s,", cli_fmt_hex(hx[0], x));
    cli_csv_field(o, c->f.name);
    fputc(',', o);
    cli_csv_field(o, c->mode);
    fprintf(o, ",%s,%s,%s,%s\n", cli_fmt_hex(hx[1], in.rd), cli_fmt_hex(hx[2], in.ru),
            cli_fmt_g17(p, in.p_up), cli_fmt_hex(hx[3], in.result));
    return 0;
}

/* ---- the command ---- */

int cmd_round(int argc, char **argv)
{
    cli_batch b;
    int rc = cli_batch_parse(&b, cmd, MAX_SAMPLES, argc, argv);
    if (rc == CLI_BATCH_HELP) {
        cli_batch_free(&b);
        return cli_help(help);
    }
    if (!rc)
        rc = cli_batch_check(&b, "numbers", b.npos);
    if (!rc && !b.batch && !b.npos)
        rc = cli_error(cmd, "no numbers to round: give X... or --batch (see 'srlab round --help')");
    round_mx_batch mb;
    round_mx_batch_init(&mb);
    if (!rc && b.batch && b.is_mx)
        rc = cli_batch_run(&b, ROUND_MX_HEADER, round_mx_batch_row, round_mx_batch_end, &mb,
                           false, argc, argv);
    else if (!rc)
        rc = b.batch ? cli_batch_run(&b, "input,format,rounding,rd,ru,p_up,result", batch_row,
                                     NULL, NULL, false, argc, argv)
                     : explain_all(&b);
    round_mx_batch_free(&mb);
    cli_batch_free(&b);
    return rc;
}
