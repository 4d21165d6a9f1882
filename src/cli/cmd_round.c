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
 * (the display pieces it shares with `srlab op` are in src/cli/teach.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "cli/cli.h"
#include "cli/teach.h"

#define DEFAULT_SEED 42
#define MAX_SAMPLES UINT64_C(10000000000)
#define SAMPLES_KEY "round --samples"
#define CONFIDENCE 0.95

static const char *const cmd = "round";

static const char help[] =
    "usage: srlab round X... [-f FMT] [-r MODE] [--samples N] [--seed S] [--rng pcg32|pcg64]\n"
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
    "  -f, --format FMT     bf16 (default), fp16, fp32, tf32, e4m3, e5m2, fp64, or a custom\n"
    "                       p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,saturate=on|off]\n"
    "  -r, --rounding MODE  rn (default), rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64)\n"
    "  --seed S             seed of the random stream, decimal or 0x hex (default 42); in\n"
    "                       stochastic modes the i-th X (from 0) uses draw i of stream 0\n"
    "  --rng KIND           pcg32 (default) or pcg64\n"
    "  --samples N          also round each X N times (1 <= N <= 10^10) with draws from the\n"
    "                       stream derived from the seed with key \"round --samples\" (X number i\n"
    "                       uses draws i*N .. i*N+N-1) and compare the frequency of rounding up\n"
    "                       and the sample mean with p_up and x (95% Clopper-Pearson intervals)\n"
    "  --batch              read one number per line from standard input (spaces around it and\n"
    "                       a trailing CR allowed, empty lines rejected) and write the CSV\n"
    "                         input,format,rounding,rd,ru,p_up,result\n"
    "                       with numbers as C99 hex floats and p_up to 17 significant digits;\n"
    "                       data line k (from 0) uses draw k of stream 0 of the seed. Nothing\n"
    "                       is written unless every line is valid. A stochastic mode's seed is\n"
    "                       echoed on standard error.\n"
    "  -o, --output FILE    with --batch: write the CSV to FILE, atomically (default stdout)\n"
    "  --comments           with --batch: start the CSV with '#' lines: version, command, seed\n"
    "  --quiet              with --batch: do not echo the seed on standard error\n"
    "  -h, --help           this help\n"
    "\n"
    "Negative numbers may follow the options directly (-0.5); '--' ends the options.\n"
    "\n"
    "examples:\n"
    "  srlab round 0.1\n"
    "  srlab round 1.00390625 -f bf16 -r sr --samples 10000\n"
    "  srlab round 460 470 -f e4m3\n"
    "  printf '0.1\\n0x1.8p-3\\n-2.5\\n' | srlab round --batch -f fp16 -r sr --seed 7\n";

typedef struct round_cfg {
    srl_format f;
    srl_rounding m;
    char mode[32];    /* canonical name of m */
    uint64_t seed;
    srl_rng_kind kind;
    uint64_t samples; /* 0: none */
    bool stoch;
} round_cfg;

/* ---- the reason for one rounding ---- */

static void reason(char *buf, size_t len, const round_cfg *c, const srl_round_info *in,
                   uint64_t u, uint64_t i)
{
    const srl_format *f = &c->f;
    const double x = in->x, res = in->result;
    teach_buf b = {buf, len, 0};
    char s1[CLI_NUM_LEN], s2[CLI_NUM_LEN];
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
        teach_add(&b, "x is a value of %s: every mode returns it unchanged%s", f->name,
               c->stoch ? " (the draw is consumed all the same)" : "");
        return;
    }
    const double top = f->xmax + srl_format_ulp(f, f->xmax); /* the grid point above xmax */
    if (fabs(x) >= top) {
        teach_add(&b, "|x| >= %s, the grid point above the largest finite %s; ",
               cli_fmt_short(s1, top), cli_fmt_short(s2, f->xmax));
        teach_overflow_clause(&b, f, c->m, c->mode, res);
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

/* The error result - x, exactly (MPFR), in ulps of x and relative to |x|. */
static void error_line(FILE *o, const srl_round_info *in, double ulp)
{
    const double x = in->x, res = in->result;
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN];
    if (isnan(x)) {
        fputs("  error     none: x is NaN\n", o);
        return;
    }
    if (isinf(x)) {
        fprintf(o, "  error     %s\n", teach_same_value(res, x) ? "0 (an infinity is exact)"
                                                           : "undefined: x is infinite");
        return;
    }
    if (isnan(res) || isinf(res)) {
        fprintf(o, "  error     %s (overflow)\n",
                isnan(res) ? "undefined: the result is NaN" : "infinite");
        return;
    }
    mpfr_t d;
    mpfr_init2(d, 2200); /* result - x is exact at 2200 bits: both lie in [2^-1074, 2^1024) */
    mpfr_set_d(d, res, MPFR_RNDN);
    mpfr_sub_d(d, d, x, MPFR_RNDN);
    if (mpfr_zero_p(d)) {
        fputs("  error     0 (x is exact)\n", o);
    } else {
        double in_ulps = mpfr_get_d(d, MPFR_RNDN) / ulp; /* exact scaling by a power of two */
        mpfr_div_d(d, d, fabs(x), MPFR_RNDN);
        double rel = mpfr_get_d(d, MPFR_RNDN);
        fprintf(o, "  error     %s ulp; relative %s\n", teach_signed_short(a, in_ulps),
                teach_signed_short(b, rel));
    }
    mpfr_clear(d);
}

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

static int explain_one(FILE *o, const round_cfg *c, const char *text, double x, uint64_t i)
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

    char *exact = malloc(CLI_EXACT_LEN), why[1024];
    if (!exact)
        return cli_sys_error(cmd, "out of memory");
    char hx[CLI_NUM_LEN], d[3][CLI_NUM_LEN], h[3][CLI_NUM_LEN], bits[3][160];
    fputc('\n', o);
    input_line(o, text, x);
    fprintf(o, "  x         %s\n", cli_fmt_exact(exact, x));
    fprintf(o, "  x (hex)   %s\n", cli_fmt_hexn(hx, x));
    free(exact);

    const double v[3] = {in.rd, in.ru, in.result};
    int wd = 0, wh = 0;
    for (int k = 0; k < 3; k++) {
        cli_fmt_short(d[k], v[k]);
        cli_fmt_hexn(h[k], v[k]);
        teach_bits(bits[k], sizeof bits[k], f, v[k]);
        if ((int)strlen(d[k]) > wd)
            wd = (int)strlen(d[k]);
        if ((int)strlen(h[k]) > wh)
            wh = (int)strlen(h[k]);
    }
    /* A neighbour that is not finite for a finite x is the overflow rule at work. */
    const bool xfin = isfinite(x);
    teach_value_row(o, "rd", d[0], wd, h[0], wh, bits[0],
              xfin && !isfinite(in.rd) ? "  (rounding down overflows)" : "");
    teach_value_row(o, "ru", d[1], wd, h[1], wh, bits[1],
              xfin && !isfinite(in.ru) ? "  (rounding up overflows)" : "");

    const double ulp = srl_format_ulp(f, x);
    if (!isfinite(x)) {
        fputs("  ulp       undefined: x is not finite\n", o);
    } else {
        char a[CLI_NUM_LEN], b2[CLI_NUM_LEN], p[CLI_NUM_LEN];
        fprintf(o, "  ulp       %s = %s at x", teach_pow2_name(a, ulp), cli_fmt_short(b2, ulp));
        if (fabs(x) > f->xmax)
            fprintf(o, " (the grid continued above the largest finite)");
        if (in.exact || x == 0)
            fprintf(o, "; x is on the grid\n");
        else if (isfinite(in.rd) && fabs(x) < f->xmax + srl_format_ulp(f, f->xmax))
            fprintf(o, "; x = rd + %s ulp\n", cli_fmt_short(p, (x - in.rd) / ulp));
        else
            fputc('\n', o);
    }
    {
        char a[CLI_NUM_LEN], b2[CLI_NUM_LEN];
        if (teach_same_value(in.rd, in.ru))
            fprintf(o, "  p_up      0   p_down 0   (rd = ru: the result is certain)\n");
        else
            fprintf(o, "  p_up      %s   p_down %s\n", cli_fmt_g17(a, in.p_up),
                    cli_fmt_g17(b2, 1.0 - in.p_up));
    }
    if (c->stoch) {
        char a[CLI_NUM_LEN];
        fprintf(o, "  draw      number %" PRIu64 " of stream 0: 0x%016" PRIx64 ", U = %s\n", i, u,
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
    error_line(o, &in, ulp);
    reason(why, sizeof why, c, &in, u, i);
    fprintf(o, "  why       %s\n", why);
    return 0;
}

static int sample_one(FILE *o, const round_cfg *c, double x, uint64_t i)
{
    const srl_format *f = &c->f;
    const uint64_t N = c->samples;
    /* p_up of the mode, from an explain with a throw-away stream (p_up does not depend on it). */
    srl_rng tmp;
    srl_rng_init(&tmp, c->kind, c->seed, 0);
    srl_round_info im;
    if (srl_round_explain(&im, x, f, c->m, &tmp) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_round_explain failed");
    const double rd = im.rd, ru = im.ru, p_up = im.p_up;

    srl_rng base, s;
    srl_rng_init(&base, c->kind, c->seed, 0);
    srl_rng_derive(&s, &base, srl_hash_str(SAMPLES_KEY));
    srl_rng_seek(&s, i * N);
    enum { CHUNK = 1 << 14 };
    const size_t chunk = N < CHUNK ? (size_t)N : CHUNK;
    double *xs = malloc(chunk * sizeof *xs), *ys = malloc(chunk * sizeof *ys);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return cli_sys_error(cmd, "out of memory");
    }
    for (size_t j = 0; j < chunk; j++)
        xs[j] = x;
    uint64_t nup = 0, ndown = 0, nother = 0;
    for (uint64_t done = 0; done < N;) {
        size_t n = (N - done < chunk) ? (size_t)(N - done) : chunk;
        if (srl_round_array(ys, xs, n, f, c->m, &s) != SRL_OK) {
            free(xs);
            free(ys);
            return cli_sys_error(cmd, "internal error: srl_round_array failed");
        }
        for (size_t j = 0; j < n; j++) {
            if (teach_same_value(ys[j], ru))
                nup++;
            else if (teach_same_value(ys[j], rd))
                ndown++;
            else
                nother++;
        }
        done += n;
    }
    free(xs);
    free(ys);

    char a[CLI_NUM_LEN];
    fprintf(o, "  samples   %" PRIu64 " roundings with draws %" PRIu64 "..%" PRIu64
               " of the stream derived from seed %" PRIu64 " with key \"%s\" (%s)\n",
            N, i * N, i * N + N - 1, c->seed, SAMPLES_KEY, cli_rng_kind_name(c->kind));
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
            p_in ? "consistent" : "INCONSISTENT (a 95% interval misses 1 time in 20; try another --seed)");
    if (!isfinite(rd) || !isfinite(ru) || !isfinite(x)) {
        fprintf(o, "  mean      not finite: %s is %s, so the results' mean is not a number to "
                   "compare with x\n", isfinite(rd) ? "ru" : "rd", cli_fmt_short(a, isfinite(rd) ? ru : rd));
        return 0;
    }
    /* In ulps of x: mean - x = freq - F with F = (x - rd)/ulp (ru - rd = ulp); the mean's interval
     * is the frequency's, shifted; the mode's own E[result] - x is p_up - F. */
    const double ulp = ru - rd;
    const double F = (x - rd) / ulp;
    const double mean = rd + ulp * freq;
    const double bias = p_up - F;
    const bool m_in = lo - F <= bias && bias <= hi - F;
    char bs[CLI_NUM_LEN];
    if (bias == 0)
        snprintf(bs, sizeof bs, "0 ulp (unbiased)");
    else
        snprintf(bs, sizeof bs, "%+.6g ulp (biased)", bias);
    fprintf(o, "  mean      %s: mean - x = %+.6g ulp; 95%% interval [%+.6g, %+.6g] ulp; the "
               "mode's E[result] - x = %s: %s\n",
            cli_fmt_g17(a, mean), freq - F, lo - F, hi - F, bs,
            m_in ? "consistent" : "INCONSISTENT");
    return 0;
}

static int explain_all(const round_cfg *c, int nx, char **texts, const double *xs)
{
    cli_out out;
    int rc = cli_out_open(&out, cmd, NULL, NULL);
    if (rc)
        return rc;
    FILE *o = out.fp;
    teach_describe_format(o, &c->f);
    fprintf(o, "rounding  %s: %s\n", c->mode, teach_mode_description(c->m));
    if (c->stoch || c->samples)
        fprintf(o, "seed      %" PRIu64 " (%s); X number i (from 0) uses draw i of stream 0%s\n",
                c->seed, cli_rng_kind_name(c->kind), c->stoch ? "" : " (this mode draws nothing)");
    for (int i = 0; i < nx && !rc; i++) {
        rc = explain_one(o, c, texts[i], xs[i], (uint64_t)i);
        if (!rc && c->samples)
            rc = sample_one(o, c, xs[i], (uint64_t)i);
    }
    if (rc) {
        cli_out_abort(&out);
        return rc;
    }
    return cli_out_commit(&out);
}

/* ---- batch ---- */

static int run_batch(const round_cfg *c, const char *path, const char *opt, bool comments,
                     bool quiet, int argc, char **argv)
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
    fputs("input,format,rounding,rd,ru,p_up,result\n", o);
    srl_rng r;
    srl_rng_init(&r, c->kind, c->seed, 0);
    teach_lines lines = {stdin, NULL, 0, 0, ""};
    uint64_t k = 0;
    char *s, hx[4][CLI_NUM_LEN], p[CLI_NUM_LEN];
    int got;
    while ((got = teach_next_line(&lines, cmd, &s)) == TEACH_LINE) {
        const char *what = lines.what;
        double x;
        if ((rc = cli_parse_number(cmd, what, s, &x)))
            break;
        srl_round_info in;
        if (c->stoch && r.counter != k)
            srl_rng_seek(&r, k);
        if (srl_round_explain(&in, x, &c->f, c->m, &r) != SRL_OK) {
            rc = cli_sys_error(cmd, "internal error: srl_round_explain failed");
            break;
        }
        fprintf(o, "%s,", cli_fmt_hex(hx[0], x));
        cli_csv_field(o, c->f.name);
        fputc(',', o);
        cli_csv_field(o, c->mode);
        fprintf(o, ",%s,%s,%s,%s\n", cli_fmt_hex(hx[1], in.rd), cli_fmt_hex(hx[2], in.ru),
                cli_fmt_g17(p, in.p_up), cli_fmt_hex(hx[3], in.result));
        k++;
    }
    if (!rc && got != TEACH_EOF)
        rc = got; /* a bad line or a read error: the message is out */
    free(lines.line);
    if (rc) {
        cli_out_abort(&out);
        return rc;
    }
    if ((rc = cli_out_commit(&out)))
        return rc;
    if (c->stoch && !quiet)
        fprintf(stderr, "srlab round: seed %" PRIu64 " (%s): data line k used draw k of stream 0\n",
                c->seed, cli_rng_kind_name(c->kind));
    return 0;
}

/* ---- the command ---- */

int cmd_round(int argc, char **argv)
{
    enum { O_FORMAT, O_ROUNDING, O_SAMPLES, O_SEED, O_RNG, O_BATCH, O_OUTPUT, O_COMMENTS, O_QUIET };
    static const cli_opt opts[] = {
        [O_FORMAT] = {"format", 'f', "FMT"},   [O_ROUNDING] = {"rounding", 'r', "MODE"},
        [O_SAMPLES] = {"samples", 0, "N"},     [O_SEED] = {"seed", 0, "S"},
        [O_RNG] = {"rng", 0, "pcg32|pcg64"},   [O_BATCH] = {"batch", 0, NULL},
        [O_OUTPUT] = {"output", 'o', "FILE"},  [O_COMMENTS] = {"comments", 0, NULL},
        [O_QUIET] = {"quiet", 0, NULL},        {NULL, 0, NULL},
    };
    round_cfg c;
    memset(&c, 0, sizeof c);
    c.f = *srl_format_find("bf16");
    c.m = SRL_ROUND_RN;
    c.seed = DEFAULT_SEED;
    c.kind = SRL_RNG_DEFAULT;
    bool batch = false, comments = false, quiet = false;
    const char *path = NULL;
    char out_opt[48] = "", only_batch[48] = "";
    char **texts = malloc(((size_t)argc + 1) * sizeof *texts);
    if (!texts)
        return cli_sys_error(cmd, "out of memory");
    int nx = 0, k, rc = 0;
    cli_args a;
    cli_args_init(&a, cmd, opts, argc, argv);
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: free(texts); return cli_help(help);
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL: texts[nx++] = (char *)a.val; break;
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
        case O_COMMENTS: comments = true; snprintf(only_batch, sizeof only_batch, "%s", a.opt); break;
        case O_QUIET: quiet = true; snprintf(only_batch, sizeof only_batch, "%s", a.opt); break;
        }
    }
    if (!rc) {
        if (batch && nx)
            rc = cli_error(cmd, "numbers on the command line and --batch exclude each other");
        else if (batch && c.samples)
            rc = cli_error(cmd, "--samples does not apply to --batch");
        else if (!batch && only_batch[0])
            rc = cli_error(cmd, "%s applies only to --batch", only_batch);
        else if (!batch && !nx)
            rc = cli_error(cmd, "no numbers to round: give X... or --batch (see 'srlab round --help')");
    }
    c.stoch = srl_rounding_is_stochastic(c.m);
    srl_rounding_name(c.mode, sizeof c.mode, c.m);
    if (!rc && batch) {
        rc = run_batch(&c, path, out_opt, comments, quiet, argc, argv);
    } else if (!rc) {
        double *xs = malloc((size_t)nx * sizeof *xs);
        if (!xs)
            rc = cli_sys_error(cmd, "out of memory");
        for (int i = 0; i < nx && !rc; i++)
            rc = cli_parse_number(cmd, NULL, texts[i], &xs[i]);
        if (!rc)
            rc = explain_all(&c, nx, texts, xs);
        free(xs);
    }
    free(texts);
    return rc;
}
