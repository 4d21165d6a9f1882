/* src/cli/teach.c: display pieces of the teaching views (src/cli/teach.h). */
#include "cli/teach.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

bool teach_same_value(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

void teach_add(teach_buf *b, const char *fmt, ...)
{
    if (b->k >= b->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->k, b->len - b->k, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->k += (size_t)n;
}

const char *teach_signed_short(char *buf, double v)
{
    char t[CLI_NUM_LEN];
    cli_fmt_short(t, v);
    snprintf(buf, CLI_NUM_LEN, "%s%.40s", (v > 0) ? "+" : "", t);
    return buf;
}

const char *teach_pow2_name(char *buf, double v)
{
    int e;
    (void)frexp(v, &e);
    snprintf(buf, CLI_NUM_LEN, "2^%d", e - 1);
    return buf;
}

void teach_bits(char *buf, size_t len, const srl_format *f, double v)
{
    uint64_t b;
    if (f->width > 64) {
        snprintf(buf, len, "(no encoding: %d bits wide)", f->width);
        return;
    }
    if (srl_format_encode(&b, f, v) != SRL_OK) {
        snprintf(buf, len, "(not a value of %s)", f->name);
        return;
    }
    size_t k = 0;
    for (int i = f->width - 1; i >= 0 && k + 2 < len; i--) {
        buf[k++] = ((b >> i) & 1u) ? '1' : '0';
        if (i == f->width - 1 || i == f->p - 1)
            buf[k++] = ' ';
    }
    snprintf(buf + k, len - k, "  0x%0*" PRIx64, (f->width + 3) / 4, b);
}

void teach_describe_format(FILE *o, const srl_format *f)
{
    char u[CLI_NUM_LEN];
    fprintf(o, "format    %s: p=%d, emin=%d, emax=%d, subnormals %s, infinities %s%s, %d bits; "
               "u = %s\n",
            f->name, f->p, f->emin, f->emax, f->subnormals ? "on" : "off", f->inf ? "on" : "off",
            f->saturate ? ", saturating" : "", f->width, teach_pow2_name(u, f->u));
}

const char *teach_mode_description(srl_rounding m)
{
    switch (m.mode) {
    case SRL_RN: return "to nearest, ties to even";
    case SRL_RNA: return "to nearest, ties away from zero";
    case SRL_RZ: return "toward zero";
    case SRL_RU: return "toward +inf";
    case SRL_RD: return "toward -inf";
    case SRL_RO: return "to odd: the neighbour whose last significand bit is 1";
    case SRL_SR: return "stochastic: up with probability (x-rd)/(ru-rd), unbiased";
    case SRL_SR_EQ: return "stochastic: up or down with probability 1/2";
    case SRL_SR_BITS: return "stochastic with R random bits: (x-rd)/(ru-rd) truncated to R bits";
    default: return "";
    }
}

void teach_value_row(FILE *o, const char *label, const char *dec, int wd, const char *hex, int wh,
                     const char *bits, const char *tag)
{
    fprintf(o, "  %-9s %-*s  %-*s  %s%s\n", label, wd, dec, wh, hex, bits, tag);
}

void teach_neighbours_fill(teach_neighbours *nb, const srl_format *f, const srl_round_info *in,
                           int wd, int wh)
{
    const double v[3] = {in->rd, in->ru, in->result};
    for (int k = 0; k < 3; k++) {
        cli_fmt_short(nb->dec[k], v[k]);
        cli_fmt_hexn(nb->hex[k], v[k]);
        teach_bits(nb->bits[k], sizeof nb->bits[k], f, v[k]);
        if ((int)strlen(nb->dec[k]) > wd)
            wd = (int)strlen(nb->dec[k]);
        if ((int)strlen(nb->hex[k]) > wh)
            wh = (int)strlen(nb->hex[k]);
    }
    nb->wd = wd;
    nb->wh = wh;
}

void teach_neighbour_rows(FILE *o, const teach_neighbours *nb, const srl_round_info *in,
                          bool finite)
{
    teach_value_row(o, "rd", nb->dec[0], nb->wd, nb->hex[0], nb->wh, nb->bits[0],
                    finite && !isfinite(in->rd) ? "  (rounding down overflows)" : "");
    teach_value_row(o, "ru", nb->dec[1], nb->wd, nb->hex[1], nb->wh, nb->bits[1],
                    finite && !isfinite(in->ru) ? "  (rounding up overflows)" : "");
}

void teach_result_row(FILE *o, const teach_neighbours *nb, const srl_round_info *in)
{
    const char *tag = "";
    if (teach_same_value(in->result, in->rd) && teach_same_value(in->result, in->ru))
        tag = "  (rd = ru)";
    else if (teach_same_value(in->result, in->rd))
        tag = "  (rd)";
    else if (teach_same_value(in->result, in->ru))
        tag = "  (ru)";
    teach_value_row(o, "result", nb->dec[2], nb->wd, nb->hex[2], nb->wh, nb->bits[2], tag);
}

static bool is_power_of_two(double v)
{
    int e;
    return v > 0 && isfinite(v) && frexp(v, &e) == 0.5;
}

void teach_p_up_line(FILE *o, const srl_round_info *in, bool name_pow2)
{
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], p[CLI_NUM_LEN];
    if (teach_same_value(in->rd, in->ru)) {
        fprintf(o, "  p_up      0   p_down 0   (rd = ru: the result is certain)\n");
        return;
    }
    fprintf(o, "  p_up      %s", cli_fmt_g17(a, in->p_up));
    if (name_pow2 && is_power_of_two(in->p_up) && in->p_up < 0x1p-10)
        fprintf(o, " = %s", teach_pow2_name(p, in->p_up));
    fprintf(o, "   p_down %s\n", cli_fmt_g17(b, 1.0 - in->p_up));
}

void teach_draw_line(FILE *o, uint64_t i, uint64_t u)
{
    char a[CLI_NUM_LEN];
    fprintf(o, "  draw      number %" PRIu64 " of stream 0: 0x%016" PRIx64 ", U = %s\n", i, u,
            cli_fmt_short(a, (double)u * 0x1p-64));
}

void teach_error_line(FILE *o, const srl_round_info *in, mpfr_srcptr v, const char *sym,
                      mpfr_prec_t prec, double ulp)
{
    const double res = in->result;
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN];
    if (mpfr_nan_p(v)) {
        fprintf(o, "  error     none: %s is NaN\n", sym);
        return;
    }
    if (mpfr_inf_p(v)) {
        if (isinf(res) && (res > 0) == (mpfr_sgn(v) > 0))
            fputs("  error     0 (an infinity is exact)\n", o);
        else
            fprintf(o, "  error     undefined: %s is infinite\n", sym);
        return;
    }
    if (isnan(res) || isinf(res)) {
        fprintf(o, "  error     %s (overflow)\n",
                isnan(res) ? "undefined: the result is NaN" : "infinite");
        return;
    }
    mpfr_t d;
    mpfr_init2(d, prec);
    mpfr_set_d(d, res, MPFR_RNDN);
    mpfr_sub(d, d, v, MPFR_RNDN);
    if (mpfr_zero_p(d)) {
        fprintf(o, "  error     0 (%s is exact)\n", sym);
    } else {
        const double in_ulps = mpfr_get_d(d, MPFR_RNDN) / ulp; /* exact: ulp is a power of two */
        mpfr_div(d, d, v, MPFR_RNDN); /* (result - v) / |v| */
        if (mpfr_sgn(v) < 0)
            mpfr_neg(d, d, MPFR_RNDN);
        const double rel = mpfr_get_d(d, MPFR_RNDN);
        fprintf(o, "  error     %s ulp; relative %s\n", teach_signed_short(a, in_ulps),
                teach_signed_short(b, rel));
    }
    mpfr_clear(d);
}

void teach_compact_rows(FILE *o, const char *label, const srl_round_info *in, mpfr_srcptr v,
                        mpfr_prec_t prec, double ulp, bool stoch, uint64_t u)
{
    const double res = in->result;
    fprintf(o, "%.76s\n  rd %.6g  ru %.6g  p_up %.4g\n  -> %.6g (%s)  ", label, in->rd, in->ru,
            in->p_up, res,
            teach_same_value(in->rd, in->ru) ? "rd = ru" : teach_same_value(res, in->ru) ? "ru" : "rd");
    if (mpfr_nan_p(v) || isnan(res)) {
        fputs("error none (NaN)", o);
    } else if (mpfr_inf_p(v) || isinf(res)) {
        fputs(mpfr_inf_p(v) && isinf(res) && (res > 0) == (mpfr_sgn(v) > 0) ? "error 0"
                                                                              : "overflow",
              o);
    } else {
        mpfr_t d;
        mpfr_init2(d, prec);
        mpfr_set_d(d, res, MPFR_RNDN);
        mpfr_sub(d, d, v, MPFR_RNDN);
        if (mpfr_zero_p(d))
            fputs("error 0 (exact)", o);
        else
            fprintf(o, "error %+.4g ulp", mpfr_get_d(d, MPFR_RNDN) / ulp);
        mpfr_clear(d);
    }
    if (stoch)
        fprintf(o, "  draw U %.4g", ldexp((double)u, -64));
    fputc('\n', o);
}

double teach_overflow_threshold(const srl_format *f)
{
    return f->xmax + srl_format_ulp(f, f->xmax);
}

void teach_exact_reason(teach_buf *b, const srl_format *f, const char *sym, bool stoch)
{
    teach_add(b, "%s is a value of %s: every mode returns it unchanged%s", sym, f->name,
              stoch ? " (the draw is consumed all the same)" : "");
}

void teach_beyond_reason(teach_buf *b, const srl_format *f, srl_rounding m, const char *mode,
                         const char *sym, double result)
{
    char s1[CLI_NUM_LEN], s2[CLI_NUM_LEN];
    teach_add(b, "|%s| >= %s, the grid point above the largest finite %s; ", sym,
              cli_fmt_short(s1, teach_overflow_threshold(f)), cli_fmt_short(s2, f->xmax));
    teach_overflow_clause(b, f, m, mode, result);
}

void teach_overflow_clause(teach_buf *b, const srl_format *f, srl_rounding m, const char *mode,
                           double result)
{
    char xm[CLI_NUM_LEN];
    cli_fmt_short(xm, f->xmax);
    if (isinf(result)) {
        teach_add(b, "overflow: the result would exceed the largest finite %s, so %s gives %sinf",
                  xm, mode, result > 0 ? "+" : "-");
    } else if (isnan(result)) {
        teach_add(b, "overflow: the result would exceed the largest finite %s and %s has no "
                     "infinities, so NaN (the OCP FP8 convention)", xm, f->name);
    } else if (f->saturate) {
        teach_add(b, "overflow: %s saturates, so the result clamps to the largest finite",
                  f->name);
    } else if (m.mode == SRL_RZ) {
        teach_add(b, "overflow: rz never rounds away from zero, so the largest finite");
    } else if (m.mode == SRL_RO) {
        teach_add(b, "overflow: ro never rounds to an infinity, so the largest finite");
    } else {
        teach_add(b, "overflow: %s rounds toward zero here, so the largest finite", mode);
    }
}

void teach_mode_clause(teach_buf *b, const srl_format *f, srl_rounding m, const char *sym,
                       const char *pos, double frac, double F, bool up, bool away, uint64_t u,
                       uint64_t i, bool below_xmin)
{
    char s1[CLI_NUM_LEN], s2[CLI_NUM_LEN], s3[CLI_NUM_LEN];
    const char *dir = up ? "up" : "down";
    const char *adir = away ? "away from zero" : "toward zero";
    const bool tie = frac == 0.5;
    switch (m.mode) {
    case SRL_RN:
        if (tie)
            teach_add(b, "tie: %s is halfway between its grid neighbours; rn picks the even one "
                         "(last significand bit 0), so %s", sym, dir);
        else
            teach_add(b, "rn: %s %s 1/2, so %s", pos, F > 0.5 ? ">" : "<", dir);
        break;
    case SRL_RNA:
        if (tie)
            teach_add(b, "tie: %s is halfway between its grid neighbours; rna rounds away from "
                         "zero, so %s", sym, dir);
        else
            teach_add(b, "rna: %s %s 1/2, so %s", pos, F > 0.5 ? ">" : "<", dir);
        break;
    case SRL_RZ: teach_add(b, "rz: toward zero, so %s", dir); break;
    case SRL_RU: teach_add(b, "ru: toward +inf, so up"); break;
    case SRL_RD: teach_add(b, "rd: toward -inf, so down"); break;
    case SRL_RO:
        if (!f->subnormals && below_xmin)
            teach_add(b, "ro: below the smallest normal of a format without subnormals, the "
                         "nonzero neighbour, so %s", dir);
        else
            teach_add(b, "ro: %s is inexact, so the neighbour whose last significand bit is 1: "
                         "%s", sym, dir);
        break;
    case SRL_SR:
        teach_add(b, "stochastic: up with probability (%s-rd)/(ru-rd) = %s; draw %" PRIu64
                     " gives U = %s %s %s = P(away from zero), so %s: %s",
                  sym, cli_fmt_short(s1, F), i, cli_fmt_short(s2, (double)u * 0x1p-64),
                  away ? "<" : ">=", cli_fmt_short(s3, frac), adir, dir);
        break;
    case SRL_SR_EQ:
        teach_add(b, "stochastic: up or down with probability 1/2; the top bit of draw %" PRIu64
                     " is %d, so %s: %s", i, (int)(u >> 63), adir, dir);
        break;
    case SRL_SR_BITS: {
        const int R = m.r;
        const double Fr = floor(ldexp(frac, R)); /* exact: frac has at most 53 bits */
        const uint64_t Z = R == 64 ? u : u >> (64 - R);
        teach_add(b, "stochastic with %d random bits: away from zero iff F + Z >= 2^%d, where "
                     "F = floor(f 2^%d) = %.0f for f = %s, and Z = %" PRIu64 " (the top %d bits "
                     "of draw %" PRIu64 "): %s, so %s: %s",
                  R, R, R, Fr, cli_fmt_short(s1, frac), Z, R, i, away ? "carry" : "no carry",
                  adir, dir);
        if (ldexp(Fr, -R) != frac)
            teach_add(b, " (P(away) = F/2^%d = %s instead of f: biased toward zero)", R,
                      cli_fmt_short(s2, ldexp(Fr, -R)));
        break;
    }
    default: break;
    }
}

void teach_result_clause(teach_buf *b, const srl_format *f, srl_rounding m, const char *mode,
                         const srl_round_info *in, const char *sym)
{
    const double res = in->result;
    if (in->overflow) {
        teach_add(b, "; ");
        teach_overflow_clause(b, f, m, mode, res);
    } else if (res == 0) {
        teach_add(b, "; underflow: the result is zero, with %s's sign", sym);
    } else if (fabs(res) < f->xmin) {
        teach_add(b, "; the result is subnormal");
    }
}

/* One line of t->fp with its '\n' into t->line: its length; -1 at the end of the input or on a
 * read error; -2 when it grows beyond TEACH_LINE_MAX bytes (memory stays bounded whatever the
 * input: /dev/zero has no newline), -3 when out of memory. */
static ssize_t read_line(teach_lines *t)
{
    size_t n = 0;
    int c = EOF;
    while ((c = getc(t->fp)) != EOF) {
        if (n + 1 >= t->cap) {
            if (t->cap >= TEACH_LINE_MAX + 2) /* TEACH_LINE_MAX bytes and no end in sight */
                return -2;
            size_t cap = t->cap ? 2 * t->cap : 256;
            if (cap > TEACH_LINE_MAX + 2)
                cap = TEACH_LINE_MAX + 2;
            char *l = realloc(t->line, cap);
            if (!l)
                return -3;
            t->line = l;
            t->cap = cap;
        }
        t->line[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (n == 0)
        return -1;
    t->line[n] = 0;
    return (ssize_t)n;
}

int teach_next_line(teach_lines *t, const char *cmd, char **text)
{
    errno = 0;
    const ssize_t got = read_line(t);
    if (got != -1) {
        t->lineno++;
        snprintf(t->what, sizeof t->what, "line %" PRIu64, t->lineno);
    }
    if (got == -2)
        return cli_error(cmd, "%s: longer than %zu MiB, the most srlab reads in one line",
                         t->what, TEACH_LINE_MAX >> 20);
    if (got == -3)
        return cli_sys_error(cmd, "%s: out of memory", t->what);
    if (got == -1) {
        if (ferror(t->fp))
            return cli_sys_error(cmd, "cannot read standard input: %s", strerror(errno));
        return TEACH_EOF;
    }
    char *line = t->line;
    size_t len = (size_t)got;
    if (len && line[len - 1] == '\n')
        len--;
    if (len && line[len - 1] == '\r')
        len--;
    line[len] = 0;
    if (strlen(line) != len)
        return cli_error(cmd, "%s: contains a NUL byte", t->what);
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    while (len > (size_t)(s - line) && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = 0;
    if (!*s)
        return cli_error(cmd, "%s: empty line", t->what);
    *text = s;
    return TEACH_LINE;
}

/* ---- Clopper-Pearson ----
 * For k successes in n trials, confidence 1 - a:
 *   lo solves P(X >= k | p) = a/2 (lo = 0 when k = 0), hi solves P(X <= k | p) = a/2
 *   (hi = 1 when k = n), X ~ Binomial(n, p),
 * which are the quantiles Beta^-1(a/2; k, n-k+1) and Beta^-1(1-a/2; k+1, n-k). GSL's
 * gsl_cdf_beta_Pinv cannot be used for them: it returns NaN for some k already at n = 10^4
 * (k = 5000, for instance) and does not return at all at n = 10^9; so the binomial tails are
 * summed here and the equations solved by bisection. Checked against gsl_cdf_beta_Pinv wherever
 * that one answers (every k for n <= 10^4): equal to 6e-14. */

/* log P(X = j), X ~ Binomial(n, p), 0 < p < 1 (lgamma: ~1e-5 absolute at n = 10^10, harmless) */
static double log_dbinom(double j, double n, double p)
{
    return lgamma(n + 1) - lgamma(j + 1) - lgamma(n - j + 1) + j * log(p) + (n - j) * log1p(-p);
}

/* P(X <= k). The smaller tail is summed, from its end next to the mode outwards, so the terms
 * decrease and the sum stops after O(sqrt(n p (1-p))) terms. */
static double binom_cdf(uint64_t k, uint64_t n, double p)
{
    if (k >= n || p <= 0)
        return 1;
    if (p >= 1)
        return 0;
    const double r = p / (1 - p);
    if ((double)k <= (double)n * p) {
        double t = exp(log_dbinom((double)k, (double)n, p)), s = t;
        for (uint64_t j = k; j > 0 && t > 1e-17 * s; j--) {
            t *= (double)j / (double)(n - j + 1) / r;
            s += t;
        }
        return s;
    }
    double t = exp(log_dbinom((double)(k + 1), (double)n, p)), s = t;
    for (uint64_t j = k + 1; j < n && t > 1e-17 * s; j++) {
        t *= (double)(n - j) / (double)(j + 1) * r;
        s += t;
    }
    return 1 - s;
}

/* The p in (0, 1) where the tail equals target: upper = true for P(X <= k) (decreasing in p),
 * false for P(X >= k) = 1 - P(X <= k-1) (increasing). */
static double binom_solve(bool upper, uint64_t k, uint64_t n, double target)
{
    double lo = 0, hi = 1;
    for (int it = 0; it < 300; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi || hi - lo <= 1e-15 * mid)
            break;
        double v = upper ? binom_cdf(k, n, mid) : 1 - binom_cdf(k - 1, n, mid);
        if (upper ? v > target : v < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void teach_clopper_pearson(uint64_t k, uint64_t n, double conf, double *lo, double *hi)
{
    const double a = 1 - conf;
    *lo = k == 0 ? 0.0 : binom_solve(false, k, n, a / 2);
    *hi = k == n ? 1.0 : binom_solve(true, k, n, a / 2);
}
