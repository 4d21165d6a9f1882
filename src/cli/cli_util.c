/* src/cli/cli_util.c: the helpers every srlab command shares (conventions in src/cli/cli.h):
 * one-line messages, the option parser, strict number parsers, number formatting, RFC 4180 CSV
 * fields, formatted strings and atomic outputs.
 *
 * Facts this file relies on: glibc's printf prints the exact decimal value of a binary64 number
 * when given enough digits (every binary64 number is a dyadic rational, so its decimal expansion
 * is finite: at most 767 significant digits), and strtod rounds correctly to nearest. */
#define _GNU_SOURCE /* fopencookie (checked streams, below) and assigning stdout: glibc */
#include "cli/cli.h"

#include "srlab/number.h"
#include "srlab/rows.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpfr.h>

/* ---- messages ---- */

/* One character of s (n >= 1 bytes) as a message shows it, into e (NUL-terminated): itself when
 * it is printable text, else an escape; returns the bytes of s it took. Escaped: the C0 controls
 * and DEL (ESC starts a terminal's commands: "\x1b[2J" clears the screen), the C1 controls
 * U+0080-U+009F (U+009B is a one-character ESC [), bytes that are not UTF-8, and the characters
 * that are invisible or reorder the text around them (zero-width spaces and joiners, the
 * direction marks, embeddings, overrides and isolates, the line and paragraph separators, the
 * byte-order mark): "\xNN" for a byte, "\u{XXXX}" for a character. */
static size_t escape_one(const unsigned char *s, size_t n, char e[16])
{
    const unsigned char c = s[0];
    if (c >= 0x20 && c < 0x7f) {
        e[0] = (char)c, e[1] = 0;
        return 1;
    }
    /* the length and the smallest second byte of a UTF-8 sequence starting with c */
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    bool ok = len && len <= n && s[1] >= lo && s[1] <= hi;
    for (size_t i = 2; ok && i < len; i++)
        ok = s[i] >= 0x80 && s[i] <= 0xbf;
    if (!ok) {
        snprintf(e, 16, "\\x%02x", c);
        return 1;
    }
    unsigned long cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++)
        cp = cp << 6 | (s[i] & 0x3f);
    if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
        (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff) {
        snprintf(e, 16, "\\u{%04lx}", cp);
        return len;
    }
    memcpy(e, s, len);
    e[len] = 0;
    return len;
}

void cli_fputs_text(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t n = strlen(s); n;) {
        char e[16];
        size_t k = escape_one(p, n, e);
        fputs(e, fp);
        p += k, n -= k;
    }
}

static void vmessage(const char *cmd, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void vmessage(const char *cmd, const char *fmt, va_list ap)
{
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fputs(cmd ? "srlab " : "srlab", stderr);
    if (cmd)
        cli_fputs_text(stderr, cmd);
    fputs(": ", stderr);
    cli_fputs_text(stderr, msg); /* whatever the message echoes, it stays one line of text */
    fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_sys_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_SYSTEM;
}

void cli_note(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
}

int cli_help(const char *text)
{
    fputs(text, stdout);
    int e = cli_stdout_flush();
    if (e)
        return cli_sys_error(NULL, "cannot write standard output: %s", strerror(e));
    return CLI_EXIT_OK;
}

const char *cli_quote(char *buf, size_t len, const char *s, size_t slen, size_t max)
{
    /* room kept for the tail "...' (N characters)" when the text is cut */
    const size_t tail = len >= 96 ? 40 : 0;
    size_t k = 0, i = 0;
    if (len < 8) {
        if (len)
            buf[0] = 0;
        return buf;
    }
    buf[k++] = '\'';
    const unsigned char *p = (const unsigned char *)s;
    while (i < slen && i < max) {
        char e[16];
        size_t used = escape_one(p + i, slen - i, e), el = strlen(e);
        if (k + el + 2 + tail > len)
            break;
        memcpy(buf + k, e, el);
        k += el;
        i += used;
    }
    if (i < slen && tail)
        snprintf(buf + k, len - k, "...' (%zu characters)", slen);
    else if (i < slen)
        snprintf(buf + k, len - k, "...'");
    else
        buf[k++] = '\'', buf[k] = 0;
    return buf;
}

/* "srlab CMD: WHAT: 'TEXT' REST" */
static int bad_text(const char *cmd, const char *what, const char *s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_text(const char *cmd, const char *what, const char *s, const char *fmt, ...)
{
    char q[CLI_QUOTE_LEN], rest[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rest, sizeof rest, fmt, ap);
    va_end(ap);
    if (!strncmp(s, "\xEF\xBB\xBF", 3)) { /* invisible in the message: name it */
        cli_quote(q, sizeof q, s + 3, strlen(s + 3), CLI_QUOTE_MAX);
        return cli_error(cmd, "%s%s%s starts with a UTF-8 byte-order mark (bytes EF BB BF, "
                         "invisible): remove it", what ? what : "", what ? ": " : "", q);
    }
    cli_quote(q, sizeof q, s, strlen(s), CLI_QUOTE_MAX);
    return cli_error(cmd, "%s%s%s %s", what ? what : "", what ? ": " : "", q, rest);
}

/* ---- options ---- */

void cli_args_init(cli_args *a, const char *cmd, const cli_opt *opts, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->opts = opts;
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
}

/* The repeated-option rule (cli.h): has option o been given before, and may it not be? Marks it
 * as given; prints the message when it is refused. */
static bool once_more(cli_args *a, const cli_opt *o)
{
    size_t k = (size_t)(o - a->opts);
    if (k >= CLI_ARGS_MAX_OPTS) {
        cli_error(a->cmd, "option %s: too many options in this command's table", a->opt);
        return true;
    }
    size_t n = o->arg ? strlen(o->arg) : 0;
    if (n >= 3 && !strcmp(o->arg + n - 3, "..."))
        return false;
    unsigned char bit = (unsigned char)(1u << (k % 8));
    if (a->seen[k / 8] & bit) {
        cli_error(a->cmd, "option %s is given twice (each option once; see 'srlab %s --help')",
                  a->opt, a->cmd);
        return true;
    }
    a->seen[k / 8] |= bit;
    return false;
}

/* "-0.5", "-.5", "-inf", "-nan", "-0x1p-3": a negative number, hence a positional argument. */
static bool negative_number(const char *s)
{
    const char *t = s + 1;
    if (isdigit((unsigned char)t[0]) || (t[0] == '.' && isdigit((unsigned char)t[1])))
        return true;
    return strncasecmp(t, "inf", 3) == 0 || strncasecmp(t, "nan", 3) == 0;
}

/* Can s be the value of an option given as a separate argument? Not when it is itself an option
 * (then the value is missing); "-" and negative numbers are values. */
static bool value_like(const char *s)
{
    return s[0] != '-' || s[1] == 0 || negative_number(s);
}

int cli_args_next(cli_args *a)
{
    char q[CLI_QUOTE_LEN];
    if (a->i >= a->argc)
        return CLI_ARGS_DONE;
    const char *s = a->argv[a->i++];
    a->val = NULL;
    a->opt[0] = 0;
    if (a->positional || s[0] != '-' || s[1] == 0 || negative_number(s)) {
        a->val = s;
        return CLI_ARGS_POSITIONAL;
    }
    if (strcmp(s, "--") == 0) {
        a->positional = true;
        return cli_args_next(a);
    }
    const cli_opt *o = NULL;
    const char *attached = NULL; /* --name=VALUE or -xVALUE */
    if (s[1] == '-') {
        const char *name = s + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        if (!eq && strcmp(name, "help") == 0)
            return CLI_ARGS_HELP;
        for (const cli_opt *p = a->opts; p && p->name; p++)
            if (strlen(p->name) == nlen && strncmp(p->name, name, nlen) == 0)
                o = p;
        if (!o)
            goto unknown;
        snprintf(a->opt, sizeof a->opt, "--%s", o->name);
        if (eq) {
            if (!o->arg) {
                cli_error(a->cmd, "option %s takes no value", a->opt);
                return CLI_ARGS_BAD;
            }
            attached = eq + 1;
        }
    } else {
        if (s[1] == 'h' && s[2] == 0)
            return CLI_ARGS_HELP;
        for (const cli_opt *p = a->opts; p && p->name; p++)
            if (p->letter && p->letter == s[1])
                o = p;
        if (!o || (!o->arg && s[2]))
            goto unknown;
        snprintf(a->opt, sizeof a->opt, "-%c", s[1]);
        if (s[2])
            attached = s + 2;
    }
    if (once_more(a, o))
        return CLI_ARGS_BAD;
    if (!o->arg)
        return (int)(o - a->opts);
    if (attached) {
        a->val = attached;
    } else {
        if (a->i >= a->argc || !value_like(a->argv[a->i])) {
            cli_error(a->cmd, "option %s needs a value (%s)", a->opt, o->arg);
            return CLI_ARGS_BAD;
        }
        a->val = a->argv[a->i++];
    }
    return (int)(o - a->opts);
unknown:
    cli_quote(q, sizeof q, s, strlen(s), CLI_QUOTE_MAX);
    cli_error(a->cmd, "unknown option %s (see 'srlab %s --help')", q, a->cmd);
    return CLI_ARGS_BAD;
}

/* ---- numbers (the library's strict parser, srlab/number.h) ---- */

int cli_parse_count(const char *cmd, const char *what, const char *s, uint64_t min, uint64_t max,
                    uint64_t *out)
{
    char why[SRL_NUMBER_WHY_LEN];
    return srl_number_u64(out, s, min, max, why) ? bad_text(cmd, what, s, "%s", why) : 0;
}

int cli_parse_int(const char *cmd, const char *what, const char *s, long long min, long long max,
                  long long *out)
{
    char why[SRL_NUMBER_WHY_LEN];
    return srl_number_i64(out, s, min, max, why) ? bad_text(cmd, what, s, "%s", why) : 0;
}

int cli_parse_seed(const char *cmd, const char *what, const char *s, uint64_t *out)
{
    char why[SRL_NUMBER_WHY_LEN];
    return srl_number_seed(out, s, why) ? bad_text(cmd, what, s, "%s", why) : 0;
}

int cli_parse_real(const char *cmd, const char *what, const char *s, double *out)
{
    char why[SRL_NUMBER_WHY_LEN];
    return srl_number_double(out, s, SRL_NUMBER_FINITE, why) ? bad_text(cmd, what, s, "%s", why) : 0;
}

int cli_parse_number(const char *cmd, const char *what, const char *s, double *out)
{
    char why[SRL_NUMBER_WHY_LEN];
    return srl_number_double(out, s, SRL_NUMBER_ANY, why) ? bad_text(cmd, what, s, "%s", why) : 0;
}

int cli_number_exact(const char *s, double x, char *gap)
{
    gap[0] = 0;
    if (isnan(x))
        return 1;
    if (isinf(x)) {
        const char *t = (*s == '+' || *s == '-') ? s + 1 : s;
        return strncasecmp(t, "inf", 3) == 0; /* otherwise the text overflows binary64 */
    }
    /* The text is exactly x iff it is a 53-bit number (ternary 0 at precision 53, with the widest
     * exponent range, so nothing underflows) equal to x (which also rules out values that are
     * 53-bit numbers but not binary64 ones: too small for the subnormal grid, or too large). */
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t t;
    mpfr_init2(t, 53);
    char *end;
    int tern = mpfr_strtofr(t, s, &end, 0, MPFR_RNDN);
    int exact = *end == 0 && tern == 0 && mpfr_cmp_d(t, x) == 0;
    if (!exact) {
        /* x - text, to a precision beyond the text's own digits (a text of n characters that
         * is not x differs from it by far more than 2^-(4n+64) relatively). */
        mpfr_set_prec(t, (mpfr_prec_t)(64 + 4 * strlen(s)));
        mpfr_strtofr(t, s, &end, 0, MPFR_RNDN);
        mpfr_d_sub(t, x, t, MPFR_RNDN);
        mpfr_snprintf(gap, CLI_NUM_LEN, "%+.3Rg", t);
    }
    mpfr_clear(t);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return exact;
}

/* ---- formats, modes, generators ---- */

int cli_parse_format(const char *cmd, const char *what, const char *s, srl_format *f)
{
    srl_err err;
    if (srl_format_parse(f, s, &err) != SRL_OK)
        return cli_error(cmd, "%s%s%s", what ? what : "", what ? ": " : "", err.msg);
    return 0;
}

int cli_parse_mx(const char *cmd, const char *what, const char *s, srl_mx_format *f)
{
    srl_err err;
    if (srl_mx_parse(f, s, &err) != SRL_OK)
        return cli_error(cmd, "%s%s%s", what ? what : "", what ? ": " : "", err.msg);
    return 0;
}

int cli_parse_mx_rule(const char *cmd, const char *what, const char *s, srl_mx_rule *r)
{
    srl_err err;
    if (srl_mx_rule_parse(r, s, &err) != SRL_OK)
        return cli_error(cmd, "%s%s%s", what ? what : "", what ? ": " : "", err.msg);
    return 0;
}

int cli_parse_rounding(const char *cmd, const char *what, const char *s, srl_rounding *m)
{
    srl_err err;
    if (srl_rounding_parse(m, s, &err) != SRL_OK)
        return cli_error(cmd, "%s%s%s", what ? what : "", what ? ": " : "", err.msg);
    return 0;
}

int cli_parse_rng_kind(const char *cmd, const char *what, const char *s, srl_rng_kind *k)
{
    if (strcmp(s, "pcg32") == 0)
        *k = SRL_RNG_PCG32;
    else if (strcmp(s, "pcg64") == 0)
        *k = SRL_RNG_PCG64;
    else
        return bad_text(cmd, what, s, "is not a generator; known: pcg32, pcg64");
    return 0;
}

const char *cli_rng_kind_name(srl_rng_kind k)
{
    return k == SRL_RNG_PCG32 ? "pcg32" : "pcg64";
}

void cli_fprint_command(FILE *fp, int argc, char **argv)
{
    fputs("srlab", fp);
    for (int i = 0; i < argc; i++) {
        char small[256];
        const size_t n = srl_shell_word(small, sizeof small, argv[i]);
        char *w = n < sizeof small ? small : malloc(n + 1);
        if (w != small && w)
            srl_shell_word(w, n + 1, argv[i]);
        fputc(' ', fp);
        fputs(w ? w : "'(out of memory)'", fp);
        if (w != small)
            free(w);
    }
}

/* ---- number formatting ---- */

const char *cli_fmt_hex(char *buf, double x)
{
    snprintf(buf, CLI_NUM_LEN, "%a", x);
    return buf;
}

const char *cli_fmt_hexn(char *buf, double x)
{
    if (!isfinite(x) || x == 0)
        return cli_fmt_hex(buf, x);
    int e;
    double m = 2 * frexp(fabs(x), &e); /* 1 <= m < 2, exact (subnormals included) */
    char tmp[CLI_NUM_LEN];
    snprintf(tmp, sizeof tmp, "%a", m); /* "0x1.8p+0" */
    char *p = strchr(tmp, 'p');
    if (p)
        *p = 0;
    snprintf(buf, CLI_NUM_LEN, "%s%.30sp%+d", signbit(x) ? "-" : "", tmp, e - 1);
    return buf;
}

const char *cli_fmt_g17(char *buf, double x)
{
    snprintf(buf, CLI_NUM_LEN, "%.17g", x);
    return buf;
}

const char *cli_fmt_short(char *buf, double x)
{
    int n = 1;
    for (; n <= 17; n++) {
        snprintf(buf, CLI_NUM_LEN, "%.*g", n, x);
        if (!isfinite(x) || strtod(buf, NULL) == x)
            break;
    }
    /* Positional rather than "4.8e+02" for magnitudes %.17g would print positionally. */
    if (isfinite(x) && x != 0 && strchr(buf, 'e')) {
        int e10 = (int)floor(log10(fabs(x)));
        if (e10 >= 0 && e10 < 17 && e10 + 1 > n)
            snprintf(buf, CLI_NUM_LEN, "%.*g", e10 + 1, x);
    }
    return buf;
}

/* Remove trailing zeros of the fraction (and a bare '.') from a printf result, keeping any
 * exponent suffix. */
static void trim_zeros(char *s)
{
    char *dot = strchr(s, '.');
    if (!dot)
        return;
    char *e = strchr(dot, 'e');
    char *end = e ? e : dot + strlen(dot);
    char *z = end;
    while (z > dot + 1 && z[-1] == '0')
        z--;
    if (z == dot + 1)
        z = dot;
    memmove(z, end, strlen(end) + 1);
}

const char *cli_fmt_exact(char *buf, double x)
{
    double ax = fabs(x);
    if (!isfinite(x) || x == 0)
        snprintf(buf, CLI_EXACT_LEN, "%g", x);
    else if (ax >= 1e-5 && ax < 1e21)
        snprintf(buf, CLI_EXACT_LEN, "%.1100f", x); /* a binary64 >= 2^-17 has < 1100 decimals */
    else
        snprintf(buf, CLI_EXACT_LEN, "%.800e", x); /* at most 767 significant digits */
    trim_zeros(buf);
    return buf;
}

size_t cli_csv_width(const char *s)
{
    return srl_csv_field(NULL, 0, s);
}

void cli_csv_field(FILE *fp, const char *s)
{
    /* the rule is the library's (its length says whether it quotes and guards); the bytes go
     * straight to fp, whatever the field's length */
    const size_t n = srl_csv_field(NULL, 0, s), len = strlen(s);
    size_t nq = 0;
    for (const char *q = strchr(s, '"'); q; q = strchr(q + 1, '"'))
        nq++;
    if (n == len) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    if (n == len + nq + 3)
        fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

char *cli_alloc_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- checked streams ----
 * stdio keeps only a flag when a write fails, and errno is overwritten by the next call that
 * fails for another reason (a stat of a file not created yet: "No such file or directory") or
 * left at 0 ("Success"). A checked stream records the errno of its first failure itself, so that
 * the message says what happened (issue 28, item 3). */

int cli_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return errno ? errno : EIO;
        if (k == 0)
            return EIO; /* write(2) never returns 0 for n > 0 on a file; do not loop on it */
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
    cli_stream *k = cookie;
    if (k->err)
        return -1; /* sticky: nothing after a lost write */
    int e = cli_write_all(k->fd, buf, n);
    if (e) {
        k->err = e;
        errno = e;
        return -1;
    }
    return (ssize_t)n;
}

static ssize_t stream_read(void *cookie, char *buf, size_t n)
{
    cli_stream *k = cookie;
    for (;;) {
        ssize_t r = read(k->fd, buf, n);
        if (r >= 0 || errno != EINTR) {
            if (r < 0 && !k->err)
                k->err = errno;
            return r;
        }
    }
}

static int stream_seek(void *cookie, off64_t *pos, int whence)
{
    cli_stream *k = cookie;
    off_t r = lseek(k->fd, (off_t)*pos, whence);
    if (r < 0)
        return -1;
    *pos = (off64_t)r;
    return 0;
}

static int stream_close(void *cookie)
{
    cli_stream *k = cookie;
    if (k->fd >= 0 && close(k->fd) != 0 && !k->err)
        k->err = errno;
    k->fd = -1;
    return k->err ? -1 : 0;
}

FILE *cli_stream_open(cli_stream *k, int fd, const char *mode)
{
    k->fd = fd;
    k->err = 0;
    cookie_io_functions_t io = {stream_read, stream_write, stream_seek, stream_close};
    return fopencookie(k, mode, io);
}

int cli_stream_finish(FILE *fp, cli_stream *k)
{
    if (fflush(fp) != 0 && !k->err)
        k->err = errno ? errno : EIO;
    return k->err;
}

/* Standard output, once cli_stdout_init ran (glibc lets a program assign stdout). */
static cli_stream cli_stdout_stream;
static bool cli_stdout_checked;

void cli_stdout_init(void)
{
    FILE *f = cli_stream_open(&cli_stdout_stream, STDOUT_FILENO, "w");
    if (!f)
        return; /* out of memory at start: plain stdout, checked by its flag */
    setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = f;
    cli_stdout_checked = true;
}

int cli_stdout_flush(void)
{
    if (cli_stdout_checked)
        return cli_stream_finish(stdout, &cli_stdout_stream);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return errno ? errno : EIO;
    return 0;
}

char *cli_dir_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

void cli_remove_matching(const char *path, bool (*match)(const char *name, const void *ctx),
                         const void *ctx)
{
    char *dir = cli_dir_name(path);
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!match(de->d_name, ctx))
            continue;
        char *p = cli_alloc_printf("%s/%s", dir, de->d_name);
        if (p)
            unlink(p);
        free(p);
    }
    if (d)
        closedir(d);
    free(dir);
}

int cli_sync_dir(const char *path)
{
    char *dir = cli_dir_name(path);
    if (!dir)
        return ENOMEM;
    int e = 0, fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        e = errno;
    else if (fsync(fd) != 0)
        e = errno;
    if (fd >= 0 && close(fd) != 0 && !e)
        e = errno;
    free(dir);
    /* a file system that cannot sync a directory says EINVAL: the rename is all there is */
    return e == EINVAL || e == EROFS || e == EACCES ? 0 : e;
}

/* ---- atomic outputs ----
 * Temporary files are listed for a signal handler that removes them on SIGINT, SIGTERM and SIGHUP
 * before dying with the signal's default action: the one piece of mutable global state of the
 * command, needed because an interrupted run must not leave its temporary file behind. */

#define CLI_TMP_SLOTS 32 /* outputs, and the files of gnuplot's private folder (gnuplot.c) */
#define CLI_TMP_PATH 4096
static char cli_tmp_paths[CLI_TMP_SLOTS][CLI_TMP_PATH];
static volatile sig_atomic_t cli_tmp_live[CLI_TMP_SLOTS];
static bool cli_handlers_installed;

static void cli_on_signal(int sig)
{
    for (int k = 0; k < CLI_TMP_SLOTS; k++)
        if (cli_tmp_live[k])
            unlink(cli_tmp_paths[k]);
    for (int k = 0; k < CLI_TMP_SLOTS; k++) /* then the folders, emptied by the first pass */
        if (cli_tmp_live[k])
            rmdir(cli_tmp_paths[k]);
    raise(sig); /* the handler was installed with SA_RESETHAND | SA_NODEFER */
}

static void install_handlers(void)
{
    if (cli_handlers_installed)
        return;
    cli_handlers_installed = true;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old, sa;
        if (sigaction(sigs[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* keep an ignored signal ignored (nohup) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = cli_on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(sigs[k], &sa, NULL);
    }
}

int cli_tmp_register(const char *path)
{
    size_t n = strlen(path);
    if (n >= CLI_TMP_PATH)
        return -1;
    install_handlers();
    for (int k = 0; k < CLI_TMP_SLOTS; k++) {
        if (!cli_tmp_live[k]) {
            memcpy(cli_tmp_paths[k], path, n + 1);
            cli_tmp_live[k] = 1;
            return k;
        }
    }
    return -1;
}

void cli_tmp_unregister(int slot)
{
    if (slot >= 0)
        cli_tmp_live[slot] = 0;
}

/* ---- inputs: the files this process read (no output may replace one) ---- */

typedef struct cli_input {
    dev_t dev;
    ino_t ino;
    char *name;
} cli_input;
static cli_input *cli_inputs;
static size_t cli_ninputs, cli_inputs_cap;

void cli_input_note(const char *path, const struct stat *st)
{
    struct stat sb;
    if (!st) {
        if (stat(path, &sb) != 0)
            return;
        st = &sb;
    }
    for (size_t k = 0; k < cli_ninputs; k++)
        if (cli_inputs[k].dev == st->st_dev && cli_inputs[k].ino == st->st_ino)
            return;
    if (cli_ninputs == cli_inputs_cap) {
        size_t cap = cli_inputs_cap ? 2 * cli_inputs_cap : 16;
        cli_input *v = realloc(cli_inputs, cap * sizeof *v);
        if (!v)
            return;
        cli_inputs = v;
        cli_inputs_cap = cap;
    }
    char *name = strdup(path);
    if (!name)
        return;
    cli_inputs[cli_ninputs++] = (cli_input){st->st_dev, st->st_ino, name};
}

const char *cli_input_same(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    for (size_t k = 0; k < cli_ninputs; k++)
        if (cli_inputs[k].dev == st.st_dev && cli_inputs[k].ino == st.st_ino)
            return cli_inputs[k].name;
    return NULL;
}

/* ---- atomic outputs ---- */

bool cli_out_is_stdout(const char *path)
{
    return !path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout");
}

enum { OUT_REPLACE, OUT_THROUGH, OUT_STDOUT };

/* What an output path is (the rule in cli.h): OUT_REPLACE (absent or a regular file: a
 * temporary file renamed over it), OUT_THROUGH (a character device or FIFO, or a link to one:
 * written into), OUT_STDOUT ("-", "/dev/stdout"), or an exit status after a message naming
 * `what`. */
static int out_kind(const char *cmd, const char *what, const char *path, const char *q)
{
    if (cli_out_is_stdout(path))
        return OUT_STDOUT;
    struct stat ls, st;
    if (lstat(path, &ls) != 0)
        return OUT_REPLACE;
    bool link = S_ISLNK(ls.st_mode);
    if (link && stat(path, &st) != 0)
        return -cli_error(cmd, "%s: %s is a symbolic link to nothing: srlab does not replace links "
                          "(give the path of the file itself)", what, q);
    if (!link)
        st = ls;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return OUT_THROUGH;
    if (S_ISDIR(st.st_mode))
        return -cli_error(cmd, "%s: cannot write %s: it is a directory", what, q);
    if (link)
        return -cli_error(cmd, "%s: %s is a symbolic link: srlab does not replace links (give the "
                          "path of the file itself)", what, q);
    if (!S_ISREG(st.st_mode))
        return -cli_error(cmd, "%s: %s is not a regular file (a %s): srlab writes only regular "
                          "files, character devices and FIFOs", what, q,
                          S_ISSOCK(st.st_mode) ? "socket" : S_ISBLK(st.st_mode) ? "block device"
                                                                                : "special file");
    const char *in = cli_input_same(path);
    if (in) {
        char qi[CLI_QUOTE_LEN];
        cli_quote(qi, sizeof qi, in, strlen(in), 200);
        return -cli_error(cmd, "%s: %s is the same file as the input %s: srlab does not replace "
                          "its own input (choose another output)", what, q, qi);
    }
    return OUT_REPLACE;
}

int cli_out_check_dir(const char *cmd, const char *what, const char *path)
{
    char q[CLI_QUOTE_LEN], qd[CLI_QUOTE_LEN];
    char *dir = cli_dir_name(path);
    if (!dir)
        return cli_sys_error(cmd, "out of memory");
    cli_quote(q, sizeof q, path, strlen(path), 200);
    cli_quote(qd, sizeof qd, dir, strlen(dir), 200);
    struct stat st;
    int rc = 0;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            rc = cli_error(cmd, "%s: cannot write %s: directory %s does not exist", what, q, qd);
        else
            rc = cli_error(cmd, "%s: cannot write %s: %s: %s", what, q, qd, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        rc = cli_error(cmd, "%s: cannot write %s: %s is not a directory", what, q, qd);
    } else if (access(dir, W_OK | X_OK) != 0) {
        rc = cli_error(cmd, "%s: cannot create a file in %s: %s", what, qd, strerror(errno));
    }
    free(dir);
    return rc;
}

/* Is n ".BASE.tmp-XXXXXX", a temporary file cli_out_open names for BASE (ctx)? */
static bool out_temporary(const char *n, const void *ctx)
{
    const char *base = ctx;
    const size_t bl = strlen(base);
    return strlen(n) == bl + 12 && n[0] == '.' && !strncmp(n + 1, base, bl) &&
           !strncmp(n + 1 + bl, ".tmp-", 5);
}

void cli_out_remove_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    cli_remove_matching(path, out_temporary, slash ? slash + 1 : path);
}

int cli_out_check_file(const char *cmd, const char *what, const char *path, const char *why)
{
    char q[CLI_QUOTE_LEN];
    cli_quote(q, sizeof q, path ? path : "-", strlen(path ? path : "-"), 200);
    int kind = out_kind(cmd, what, path, q);
    if (kind < 0)
        return -kind;
    if (kind != OUT_REPLACE)
        return cli_error(cmd, "%s: %s is not a regular file: %s", what, q, why);
    return 0;
}

mode_t cli_out_mode(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777; /* keep the permissions of the file being replaced */
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int cli_out_open(cli_out *o, const char *cmd, const char *what, const char *path)
{
    char q[CLI_QUOTE_LEN], qd[CLI_QUOTE_LEN];
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->slot = -1;
    if (!what)
        what = "output";
    o->what = what;
    int kind = OUT_STDOUT;
    if (!cli_out_is_stdout(path)) {
        if (!*path)
            return cli_error(cmd, "%s: empty file name", what);
        cli_quote(q, sizeof q, path, strlen(path), 200);
        const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
        if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
            return cli_error(cmd, "%s: cannot write %s: it names a directory, not a file", what,
                             q);
        kind = out_kind(cmd, what, path, q);
        if (kind < 0)
            return -kind;
    }
    if (kind != OUT_REPLACE) {
        if (kind == OUT_THROUGH) {
            if (access(path, W_OK) != 0)
                return cli_error(cmd, "%s: cannot write %s: %s", what, q, strerror(errno));
            if (!(o->path = strdup(path)))
                return cli_sys_error(cmd, "out of memory");
        }
        o->fp = open_memstream(&o->mem, &o->memlen);
        if (!o->fp) {
            int e = errno;
            cli_out_abort(o);
            return cli_sys_error(cmd, "cannot buffer the output: %s", strerror(e));
        }
        return 0;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int rc = cli_out_check_dir(cmd, what, path);
    char *dir = rc ? NULL : cli_dir_name(path);
    if (rc)
        return rc;
    if (!dir)
        return cli_sys_error(cmd, "out of memory");
    cli_quote(qd, sizeof qd, dir, strlen(dir), 200);
    size_t tlen = strlen(dir) + strlen(base) + 32;
    o->tmp = malloc(tlen);
    o->path = strdup(path);
    o->ck = malloc(sizeof *o->ck);
    if (!o->tmp || !o->path || !o->ck) {
        free(dir);
        cli_out_abort(o);
        return cli_sys_error(cmd, "out of memory");
    }
    snprintf(o->tmp, tlen, "%s/.%s.tmp-XXXXXX", dir, base);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        rc = cli_error(cmd, "%s: cannot create a file in %s: %s", what, qd, strerror(errno));
        free(dir);
        free(o->tmp);
        o->tmp = NULL;
        cli_out_abort(o);
        return rc;
    }
    free(dir);
    o->slot = cli_tmp_register(o->tmp);
    o->fp = cli_stream_open(o->ck, fd, "w");
    if (!o->fp) {
        rc = cli_sys_error(cmd, "cannot write %s: %s", q, strerror(errno));
        close(fd);
        cli_out_abort(o);
        return rc;
    }
    return 0;
}

int cli_out_flush(cli_out *o)
{
    char q[CLI_QUOTE_LEN];
    int e = o->ck ? cli_stream_finish(o->fp, o->ck)
                  : fflush(o->fp) != 0 || ferror(o->fp) ? (errno ? errno : ENOMEM) : 0;
    if (!e)
        return 0;
    const char *p = o->path ? o->path : "standard output";
    return cli_sys_error(o->cmd, "cannot write %s: %s", cli_quote(q, sizeof q, p, strlen(p), 200),
                         strerror(e));
}

/* Write the buffer of standard output or of a device/FIFO (o->path) there. */
static int commit_buffer(cli_out *o)
{
    char q[CLI_QUOTE_LEN];
    int rc = 0, e = 0;
    FILE *fp = o->fp;
    o->fp = NULL;
    if (ferror(fp))
        e = ENOMEM; /* an open_memstream fails only to grow */
    if (fclose(fp) != 0 && !e)
        e = errno ? errno : ENOMEM;
    if (e) {
        rc = cli_sys_error(o->cmd, "cannot buffer the output: %s", strerror(e));
    } else if (!o->path) {
        /* what went to standard output before (messages of the command), then the buffer */
        if (!(e = cli_stdout_flush()))
            e = cli_write_all(STDOUT_FILENO, o->mem, o->memlen);
        if (e)
            rc = cli_sys_error(o->cmd, "cannot write standard output: %s", strerror(e));
    } else {
        cli_quote(q, sizeof q, o->path, strlen(o->path), 200);
        int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        e = fd < 0 ? errno : cli_write_all(fd, o->mem, o->memlen);
        if (fd >= 0 && close(fd) != 0 && !e)
            e = errno;
        if (e)
            rc = cli_sys_error(o->cmd, "cannot write %s: %s", q, strerror(e));
    }
    cli_out_abort(o);
    return rc;
}

int cli_out_commit(cli_out *o)
{
    char q[CLI_QUOTE_LEN];
    int rc = 0;
    if (!o->fp)
        return cli_sys_error(o->cmd, "internal error: output not open");
    if (!o->tmp)
        return commit_buffer(o);
    cli_quote(q, sizeof q, o->path, strlen(o->path), 200);
    /* The rule again, now that every input is read: what the path became meanwhile, and
     * whether it is a file this run read. */
    int kind = out_kind(o->cmd, o->what, o->path, q);
    if (kind != OUT_REPLACE) {
        if (kind >= 0)
            rc = cli_error(o->cmd, "%s: %s changed into a device, FIFO or link while srlab ran: "
                           "not replaced", o->what, q);
        else
            rc = -kind;
        cli_out_abort(o);
        return rc;
    }
    /* every step checked, each failure with its own errno (issue 28, item 3) */
    int fd = o->ck->fd, e = cli_stream_finish(o->fp, o->ck);
    if (!e && fsync(fd) != 0)
        e = errno;
    if (!e && fchmod(fd, cli_out_mode(o->path)) != 0)
        e = errno;
    FILE *fp = o->fp;
    o->fp = NULL;
    if (fclose(fp) != 0 && !e)
        e = o->ck->err ? o->ck->err : errno;
    if (!e && rename(o->tmp, o->path) != 0)
        e = errno;
    if (e) {
        rc = cli_sys_error(o->cmd, "cannot write %s: %s", q, strerror(e));
    } else {
        free(o->tmp); /* renamed: nothing to remove */
        o->tmp = NULL;
        if ((e = cli_sync_dir(o->path))) /* make the rename durable */
            rc = cli_sys_error(o->cmd, "%s is written, but its folder cannot be synced: %s", q,
                               strerror(e));
    }
    cli_out_abort(o);
    return rc;
}

int cli_out_need_file(const cli_out *o, const char *path, const char *why)
{
    char q[CLI_QUOTE_LEN];
    if (o->tmp)
        return 0;
    return cli_error(o->cmd, "%s: %s is not a regular file: %s", o->what, cli_quote(q, sizeof q,
                     path ? path : "-", strlen(path ? path : "-"), 200), why);
}

int cli_out_append(const char *cmd, const char *what, const char *path, bool create, int *fd)
{
    char q[CLI_QUOTE_LEN];
    cli_quote(q, sizeof q, path, strlen(path), 200);
    /* O_NOFOLLOW: a link is refused, not followed; O_NONBLOCK: a FIFO without a reader fails
     * (ENXIO) instead of waiting */
    *fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                         (create ? O_CREAT : 0), 0666);
    struct stat st;
    int e = *fd < 0 ? errno : fstat(*fd, &st) != 0 ? errno : 0;
    if (!e && !S_ISREG(st.st_mode))
        e = ENXIO;
    if (!e && (fcntl(*fd, F_SETFL, O_APPEND) != 0 || (create && ftruncate(*fd, 0) != 0)))
        e = errno;
    if (!e)
        return 0;
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    if (e == ELOOP)
        return cli_error(cmd, "%s: %s is a symbolic link: srlab does not write through links "
                         "(give the path of the file itself)", what, q);
    if (e == ENXIO)
        return cli_error(cmd, "%s: %s is not a regular file: srlab appends only to regular files",
                         what, q);
    return cli_sys_error(cmd, "cannot write %s: %s", q, strerror(e));
}

void cli_out_abort(cli_out *o)
{
    if (o->fp) {
        fclose(o->fp);
        o->fp = NULL;
    }
    free(o->ck);
    o->ck = NULL;
    if (o->tmp) {
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    cli_tmp_unregister(o->slot);
    o->slot = -1;
    free(o->path);
    o->path = NULL;
    free(o->mem);
    o->mem = NULL;
    o->memlen = 0;
}
