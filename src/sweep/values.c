/* src/sweep/values.c: the values of an axis (include/srlab/sweep.h, "Values"): comma lists,
 * bracketed values holding commas, and ranges a:b:log:n and a:b:lin:n; and shards "I/N".
 * Numbers are read with the library's strict parser (srlab/number.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/number.h"
#include "sweep/sweep_impl.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* An optional sign then digits only: a bound written as an integer. */
static bool is_int_text(const char *s, size_t n)
{
    size_t i = (n && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    if (i == n)
        return false;
    for (; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "%.15g" without a '+' or leading zeros in the exponent: 1e-05 -> 1e-5. */
static void fmt_15(char *buf, double x)
{
    char tmp[SRL__SW_NUM_LEN];
    snprintf(tmp, sizeof tmp, "%.15g", x);
    char *e = strchr(tmp, 'e');
    if (!e) {
        strcpy(buf, tmp);
        return;
    }
    size_t k = (size_t)(e - tmp) + 1;
    memcpy(buf, tmp, k);
    const char *q = e + 1;
    if (*q == '-')
        buf[k++] = *q++;
    else if (*q == '+')
        q++;
    while (*q == '0' && q[1])
        q++;
    strcpy(buf + k, q);
}

/* Add a value (taking s, which may be NULL after a failed allocation). */
static int values_add(srl__sw_values *l, char *s)
{
    if (!s)
        return SRL_ENOMEM;
    if (l->n >= SRL__SW_MAX_VALUES) {
        free(s);
        return SRL_ERANGE;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return SRL_ENOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return SRL_OK;
}

void srl__sw_strings_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void srl__sw_values_free(srl__sw_values *l)
{
    srl__sw_strings_free(l->v, l->n);
    free(l->canon.p);
    memset(l, 0, sizeof *l);
}

/* ---- ranges ---- */

/* A range piece split at its three colons. */
typedef struct range {
    const char *text; /* the whole piece, n bytes */
    int n;
    double a, b;
    bool is_log;
    bool integer; /* a log range whose bounds are written as integers gives integers */
    unsigned long long count;
} range;

/* Parse the piece p (n bytes): 1 when it is not a range (no colon, or colons after a text that is
 * not a number, or a kind that is neither log nor lin with bounds that are not both numbers: a
 * value that happens to hold colons), 0 with *r filled, or a negative status (a number followed
 * by colons that do not make a range is refused with the range syntax). */
static int range_parse(range *r, const char *p, size_t n, srl_err *err)
{
    size_t colon[3], nc = 0, ncolons = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] == ':') {
            if (nc < 3)
                colon[nc++] = i;
            ncolons++;
        }
    if (ncolons != 3) {
        double x;
        /* A number before a colon: a range written wrongly (1e-3:1e-1:3), not a value. */
        if (ncolons && srl__sw_number(p, colon[0], &x))
            return srl_err_set(err, SRL_EPARSE,
                               "range '%.*s': write a:b:log:n (n values, geometric) or a:b:lin:n "
                               "(evenly spaced), e.g. 1e-3:1e-1:log:3", (int)n, p);
        return 1;
    }
    const char *fa = p, *fb = p + colon[0] + 1, *fk = p + colon[1] + 1, *fn = p + colon[2] + 1;
    size_t la = colon[0], lb = colon[1] - colon[0] - 1, lk = colon[2] - colon[1] - 1,
           ln = n - colon[2] - 1;
    r->text = p;
    r->n = (int)n;
    bool na = srl__sw_number(fa, la, &r->a), nb = srl__sw_number(fb, lb, &r->b);
    r->is_log = lk == 3 && !memcmp(fk, "log", 3);
    bool is_lin = lk == 3 && !memcmp(fk, "lin", 3);
    if (!r->is_log && !is_lin) {
        if (na && nb)
            return srl_err_set(err, SRL_EPARSE,
                               "range '%.*s': unknown kind '%.*s' (a:b:log:n or a:b:lin:n)",
                               r->n, p, (int)lk, fk);
        return 1;
    }
    if (!na || !nb)
        return srl_err_set(err, SRL_EPARSE, "range '%.*s': '%.*s' is not a finite number", r->n,
                           p, na ? (int)lb : (int)la, na ? fb : fa);
    /* The count: an integer, however written (4294967296, 4.294967296e9), at most
     * SRL__SW_MAX_VALUES: a larger one is too many values, not "not an integer". */
    char count[64], why[SRL_NUMBER_WHY_LEN];
    uint64_t cnt = 0;
    int cs = ln < sizeof count ? SRL_OK : is_int_text(fn, ln) ? SRL_ERANGE : SRL_EPARSE;
    if (cs == SRL_OK) {
        memcpy(count, fn, ln);
        count[ln] = 0;
        cs = srl_number_u64(&cnt, count, 1, SRL__SW_MAX_VALUES, why);
    }
    if (cs == SRL_ERANGE && ln && fn[0] != '0' && fn[0] != '-')
        return srl_err_set(err, SRL_ERANGE, "range '%.*s': %.*s values, more than the %u an "
                           "axis may have", r->n, p, (int)(ln < 40 ? ln : 40), fn,
                           SRL__SW_MAX_VALUES);
    if (cs != SRL_OK)
        return srl_err_set(err, SRL_EPARSE,
                           "range '%.*s': the number of values '%.*s' must be an integer >= 1",
                           r->n, p, (int)ln, fn);
    r->count = cnt;
    if (r->is_log && !(r->a > 0 && r->b > 0))
        return srl_err_set(err, SRL_EPARSE,
                           "range '%.*s': a log range needs bounds > 0 (use lin, or a list)",
                           r->n, p);
    if (cnt == 1 && r->a != r->b)
        return srl_err_set(err, SRL_EPARSE,
                           "range '%.*s': one value needs equal bounds (write the value itself)",
                           r->n, p);
    r->integer = r->is_log && is_int_text(fa, la) && is_int_text(fb, lb);
    return 0;
}

/* Value k of a range: both ends exact, inner values geometric or arithmetic. */
static double range_value(const range *r, unsigned long long k)
{
    if (k == 0)
        return r->a;
    if (k == r->count - 1)
        return r->b;
    double t = (double)k / (double)(r->count - 1);
    if (r->is_log)
        return exp(log(r->a) + (log(r->b) - log(r->a)) * t);
    return r->a + (r->b - r->a) * t;
}

/* Add the values of a range, refusing one that repeats its predecessor. */
static int range_expand(srl__sw_values *l, const range *r, srl_err *err)
{
    char prev[SRL__SW_NUM_LEN] = "";
    for (unsigned long long k = 0; k < r->count; k++) {
        double x = range_value(r, k);
        char buf[SRL__SW_NUM_LEN];
        if (r->integer) {
            if (fabs(x) > 9e15)
                return srl_err_set(err, SRL_ERANGE, "range '%.*s': integers too large", r->n,
                                   r->text);
            snprintf(buf, sizeof buf, "%lld", (long long)llround(x));
            if (k && !strcmp(buf, prev))
                return srl_err_set(err, SRL_EPARSE,
                                   "range '%.*s': integer bounds give repeated values (%s); use "
                                   "fewer values, or write a bound with a decimal point",
                                   r->n, r->text, buf);
        } else {
            fmt_15(buf, x);
            if (k && !strcmp(buf, prev))
                return srl_err_set(err, SRL_EPARSE, "range '%.*s': repeated value %s", r->n,
                                   r->text, buf);
        }
        strcpy(prev, buf);
        int st = values_add(l, srl__sw_dup(buf));
        if (st)
            return srl_err_set(err, st, "range '%.*s': %s", r->n, r->text,
                               st == SRL_ERANGE ? "too many values" : "out of memory");
    }
    return 0;
}

/* ---- lists ---- */

/* One piece of a list (trimmed, non-empty): a bracketed value, a range, or a plain value. */
static int add_piece(srl__sw_values *l, const char *text, const char *p, size_t n, srl_err *err)
{
    int st;
    /* a value is one line of text: it becomes a CSV field, a shell word, a message */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
            return srl_err_set(err, SRL_EPARSE, "'%s': a value holds the control character "
                               "\\x%02x (values are text on one line)", text,
                               (unsigned char)p[i]);
    if (p[0] == '[') {
        if (p[n - 1] != ']')
            return srl_err_set(err, SRL_EPARSE, "'%s': text after ']' in '%.*s'", text, (int)n,
                               p);
        if (n == 2)
            return srl_err_set(err, SRL_EPARSE, "'%s': an empty value '[]'", text);
        st = values_add(l, srl__sw_dupn(p + 1, n - 2));
    } else {
        if (memchr(p, '[', n) || memchr(p, ']', n))
            return srl_err_set(err, SRL_EPARSE, "'%s': brackets must enclose a whole value",
                               text);
        range r;
        st = range_parse(&r, p, n, err);
        if (st == 0)
            st = range_expand(l, &r, err);
        if (st < 0)
            return st;
        st = st == 1 ? values_add(l, srl__sw_dupn(p, n)) : SRL_OK;
    }
    if (st)
        return srl_err_set(err, st, "'%s': %s", text,
                           st == SRL_ERANGE ? "too many values" : "out of memory");
    srl__sw_put(&l->canon, p, n);
    return SRL_OK;
}

int srl__sw_values_parse(const char *text, srl__sw_values *l, srl_err *err)
{
    memset(l, 0, sizeof *l);
    size_t len = strlen(text);
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? text[i] : ',';
        if (c == '[') {
            depth++;
        } else if (c == ']') {
            if (--depth < 0)
                return srl_err_set(err, SRL_EPARSE, "'%s': ']' without '['", text);
        }
        if (c != ',' || depth > 0) {
            if (i == len && depth > 0)
                return srl_err_set(err, SRL_EPARSE, "'%s': '[' without ']'", text);
            continue;
        }
        const char *p = text + start;
        size_t n = i - start;
        start = i + 1;
        while (n && is_space(p[0]))
            p++, n--;
        while (n && is_space(p[n - 1]))
            n--;
        if (n == 0)
            return srl_err_set(err, SRL_EPARSE, "'%s': an empty value%s", text,
                               len ? " (a stray comma?)" : "");
        if (l->n)
            srl__sw_putc(&l->canon, ',');
        int st = add_piece(l, text, p, n, err);
        if (st)
            return st;
    }
    if (l->canon.oom)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return SRL_OK;
}

/* ---- shards ---- */

/* Digits only, 1 to 18 of them. */
static bool parse_size(const char *s, size_t n, size_t *out)
{
    char buf[24], why[SRL_NUMBER_WHY_LEN];
    uint64_t v;
    if (n == 0 || n > 18)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (srl_number_u64(&v, buf, 0, UINT64_MAX, why) != SRL_OK)
        return false;
    *out = (size_t)v;
    return true;
}

int srl_sweep_parse_shard(const char *text, size_t *i, size_t *n, srl_err *err)
{
    const char *slash = strchr(text, '/');
    size_t a, b;
    if (!slash || !parse_size(text, (size_t)(slash - text), &a) ||
        !parse_size(slash + 1, strlen(slash + 1), &b))
        return srl_err_set(err, SRL_EPARSE, "'%s' is not a shard: write I/N, 0 <= I < N", text);
    if (b < 1 || a >= b)
        return srl_err_set(err, SRL_EPARSE,
                           "'%s': shard I/N needs 0 <= I < N (shards are numbered from 0)", text);
    *i = a;
    *n = b;
    return SRL_OK;
}
