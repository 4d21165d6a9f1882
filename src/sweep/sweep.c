/* src/sweep/sweep.c: sweeps (include/srlab/sweep.h): values and ranges, the grid and its order,
 * validation runs, running runs into text records in parallel, per-run and per-grid-point
 * summaries (Student t intervals from GSL), the journal's text format and merging shards.
 *
 * Determinism: a run's record is a function of its config alone (runners derive every stream
 * from the config's seed, include/srlab/run.h), records are delivered in completion order but
 * every file is assembled in run order, and statistics are computed from the printed per-run
 * values (17 significant digits round-trip binary64), so a sweep, its resumption and the merge of
 * its shards print the same bytes. Nothing here prints, opens a file or reads the clock. */
#include "srlab/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "srlab/rng.h"
#include "srlab/run.h"

#define MAX_VALUES 1000000u   /* values of one axis */
#define MAX_RUNS 100000000u   /* runs of one sweep */
#define VALIDATE_STOP 0x53574550 /* a validation sink's begin() stops the run with this */

/* ---- growable text ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (n > SIZE_MAX / 4 || b->len > SIZE_MAX / 4) {
        b->oom = true;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_putc(sbuf *b, char c)
{
    sb_put(b, &c, 1);
}

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        sb_put(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_put(b, big, (size_t)n);
    free(big);
}

/* One CSV field (RFC 4180): quoted when it holds a comma, a double quote, CR or LF. */
static void sb_csv(sbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sb_puts(b, s);
        return;
    }
    sb_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            sb_putc(b, '"');
        sb_putc(b, *s);
    }
    sb_putc(b, '"');
}

/* Take the text (the caller frees it); NULL on an earlier allocation failure. */
static char *sb_take(sbuf *b)
{
    if (b->oom) {
        free(b->p);
        b->p = NULL;
        return NULL;
    }
    if (!b->p)
        return calloc(1, 1);
    return b->p;
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static char *dup(const char *s)
{
    return dupn(s, strlen(s));
}

/* "%.17g" (as the rows of `srlab train`), "%lld". */
static void fmt_num(char *buf, double x)
{
    snprintf(buf, 48, "%.17g", x);
}

/* "%.15g" without a '+' or leading zeros in the exponent: 1e-05 -> 1e-5. */
static void fmt_15(char *buf, double x)
{
    char tmp[48];
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

/* ---- values ---- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* The whole of s (n bytes, no surrounding space) as a finite binary64. */
static bool parse_double_n(const char *s, size_t n, double *out)
{
    if (n == 0 || n > 200 || is_space(s[0]))
        return false;
    char tmp[256];
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    errno = 0;
    double x = strtod(tmp, &end);
    if (end != tmp + n || !isfinite(x))
        return false;
    *out = x;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    return parse_double_n(s, strlen(s), out);
}

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

typedef struct vlist {
    char **v;
    size_t n, cap;
    sbuf canon; /* the canonical text: pieces joined by ',' */
} vlist;

static int vl_add(vlist *l, char *s)
{
    if (!s)
        return SRL_ENOMEM;
    if (l->n >= MAX_VALUES) {
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

static void vl_free(vlist *l)
{
    srl_sweep_values_free(l->v, l->n);
    free(l->canon.p);
    memset(l, 0, sizeof *l);
}

/* A range piece "a:b:log:n" / "a:b:lin:n". Returns 1 when p is not a range, 0 after adding its
 * values, or a negative status. */
static int expand_range(vlist *l, const char *p, size_t n, srl_err *err)
{
    size_t colon[3], nc = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] == ':') {
            if (nc == 3)
                return 1;
            colon[nc++] = i;
        }
    if (nc != 3)
        return 1;
    const char *fa = p, *fb = p + colon[0] + 1, *fk = p + colon[1] + 1, *fn = p + colon[2] + 1;
    size_t la = colon[0], lb = colon[1] - colon[0] - 1, lk = colon[2] - colon[1] - 1,
           ln = n - colon[2] - 1;
    double a = 0, b = 0;
    bool na = parse_double_n(fa, la, &a), nb = parse_double_n(fb, lb, &b);
    bool is_log = lk == 3 && !memcmp(fk, "log", 3), is_lin = lk == 3 && !memcmp(fk, "lin", 3);
    if (!is_log && !is_lin) {
        if (na && nb)
            return srl_err_set(err, SRL_EPARSE,
                               "range '%.*s': unknown kind '%.*s' (a:b:log:n or a:b:lin:n)",
                               (int)n, p, (int)lk, fk);
        return 1; /* a value that happens to hold three colons */
    }
    if (!na || !nb)
        return srl_err_set(err, SRL_EPARSE, "range '%.*s': '%.*s' is not a finite number",
                           (int)n, p, na ? (int)lb : (int)la, na ? fb : fa);
    unsigned long long cnt = 0;
    bool digits = ln > 0 && ln < 12;
    for (size_t i = 0; i < ln && digits; i++)
        digits = isdigit((unsigned char)fn[i]);
    if (digits)
        cnt = strtoull(fn, NULL, 10);
    if (!digits || cnt < 1)
        return srl_err_set(err, SRL_EPARSE,
                           "range '%.*s': the number of values '%.*s' must be an integer >= 1",
                           (int)n, p, (int)ln, fn);
    if (cnt > MAX_VALUES)
        return srl_err_set(err, SRL_ERANGE, "range '%.*s': more than %u values", (int)n, p,
                           MAX_VALUES);
    if (is_log && !(a > 0 && b > 0))
        return srl_err_set(err, SRL_EPARSE,
                           "range '%.*s': a log range needs bounds > 0 (use lin, or a list)",
                           (int)n, p);
    if (cnt == 1 && a != b)
        return srl_err_set(err, SRL_EPARSE,
                           "range '%.*s': one value needs equal bounds (write the value itself)",
                           (int)n, p);
    bool integer = is_log && is_int_text(fa, la) && is_int_text(fb, lb);
    char prev[48] = "";
    for (unsigned long long k = 0; k < cnt; k++) {
        double x;
        if (k == 0)
            x = a;
        else if (k == cnt - 1)
            x = b;
        else if (is_log)
            x = exp(log(a) + (log(b) - log(a)) * ((double)k / (double)(cnt - 1)));
        else
            x = a + (b - a) * ((double)k / (double)(cnt - 1));
        char buf[48];
        if (integer) {
            if (fabs(x) > 9e15)
                return srl_err_set(err, SRL_ERANGE, "range '%.*s': integers too large", (int)n,
                                   p);
            snprintf(buf, sizeof buf, "%lld", (long long)llround(x));
            if (k && !strcmp(buf, prev))
                return srl_err_set(err, SRL_EPARSE,
                                   "range '%.*s': integer bounds give repeated values (%s); use "
                                   "fewer values, or write a bound with a decimal point",
                                   (int)n, p, buf);
        } else {
            fmt_15(buf, x);
            if (k && !strcmp(buf, prev))
                return srl_err_set(err, SRL_EPARSE, "range '%.*s': repeated value %s", (int)n, p,
                                   buf);
        }
        strcpy(prev, buf);
        int st = vl_add(l, dup(buf));
        if (st)
            return srl_err_set(err, st, "range '%.*s': %s", (int)n, p,
                               st == SRL_ERANGE ? "too many values" : "out of memory");
    }
    return 0;
}

static int parse_values(const char *text, vlist *l, srl_err *err)
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
            sb_putc(&l->canon, ',');
        if (p[0] == '[') {
            if (p[n - 1] != ']')
                return srl_err_set(err, SRL_EPARSE, "'%s': text after ']' in '%.*s'", text,
                                   (int)n, p);
            const char *q = p + 1;
            size_t m = n - 2;
            if (m == 0)
                return srl_err_set(err, SRL_EPARSE, "'%s': an empty value '[]'", text);
            int st = vl_add(l, dupn(q, m));
            if (st)
                return srl_err_set(err, st, "'%s': %s", text,
                                   st == SRL_ERANGE ? "too many values" : "out of memory");
            sb_put(&l->canon, p, n);
            continue;
        }
        if (memchr(p, '[', n) || memchr(p, ']', n))
            return srl_err_set(err, SRL_EPARSE, "'%s': brackets must enclose a whole value",
                               text);
        int st = expand_range(l, p, n, err);
        if (st < 0)
            return st;
        if (st == 1) {
            st = vl_add(l, dupn(p, n));
            if (st)
                return srl_err_set(err, st, "'%s': %s", text,
                                   st == SRL_ERANGE ? "too many values" : "out of memory");
        }
        sb_put(&l->canon, p, n);
    }
    if (l->canon.oom)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return SRL_OK;
}

int srl_sweep_parse_values(const char *text, char ***values, size_t *n, srl_err *err)
{
    vlist l;
    int st = parse_values(text, &l, err);
    if (st) {
        vl_free(&l);
        return st;
    }
    free(l.canon.p);
    *values = l.v;
    *n = l.n;
    return SRL_OK;
}

void srl_sweep_values_free(char **values, size_t n)
{
    if (!values)
        return;
    for (size_t i = 0; i < n; i++)
        free(values[i]);
    free(values);
}

static bool parse_size(const char *s, size_t n, size_t *out)
{
    if (n == 0 || n > 18)
        return false;
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = 10 * v + (size_t)(s[i] - '0');
    }
    *out = v;
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

/* ---- the grid ---- */

typedef struct axis {
    char *key, *origin, *canon;
    char **val;
    size_t nval;
    long dim; /* its dimension, or -1 when constant */
} axis;

typedef struct dim {
    size_t *ax; /* members (axis indices, canonical order) */
    size_t nax, len;
} dim;

typedef struct column {
    char *name;
    long axis; /* index into ax, or -1: a core key no setting names (the runner's default) */
} column;

struct srl_sweep {
    srl_run_kind kind;
    axis *ax; /* canonical order; ax[0] is problem */
    size_t nax;
    const srl_runner **prob; /* runner of each value of ax[0] */
    dim *dims;
    size_t ndims;
    char **seeds;
    size_t nseeds;
    column *cols; /* axis columns without run and seed */
    size_t ncols;
    size_t npoints, nruns;
    bool has_target;
    double target;
    char *command, *seeds_text;
    /* after prepare */
    bool prepared;
    char **met; /* metric columns (union) */
    srl_col_kind *metk;
    size_t nmet;
    long c_step, c_loss, c_gap;
    char *rows_header, *summary_header;
};

static const char *const core_keys[] = {"problem", "opt", "strategy", "format", "rounding", "lr"};
#define NCORE (sizeof core_keys / sizeof core_keys[0])

static void axis_free(axis *a)
{
    free(a->key);
    free(a->origin);
    free(a->canon);
    srl_sweep_values_free(a->val, a->nval);
}

void srl_sweep_free(srl_sweep *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nax; i++)
        axis_free(&s->ax[i]);
    free(s->ax);
    free(s->prob);
    for (size_t d = 0; d < s->ndims; d++)
        free(s->dims[d].ax);
    free(s->dims);
    srl_sweep_values_free(s->seeds, s->nseeds);
    for (size_t c = 0; c < s->ncols; c++)
        free(s->cols[c].name);
    free(s->cols);
    free(s->command);
    free(s->seeds_text);
    for (size_t m = 0; m < s->nmet; m++)
        free(s->met[m]);
    free(s->met);
    free(s->metk);
    free(s->rows_header);
    free(s->summary_header);
    free(s);
}

static const srl_runner *find_runner(const srl_runner *const *runners, srl_run_kind kind,
                                     const char *name)
{
    if (!runners)
        return srl_runner_find(kind, name);
    for (; *runners; runners++)
        if ((*runners)->kind == kind && !strcmp((*runners)->name, name))
            return *runners;
    return NULL;
}

static void known_problems(sbuf *b, const srl_runner *const *runners, srl_run_kind kind)
{
    size_t k = 0;
    if (runners) {
        for (; *runners; runners++)
            if ((*runners)->kind == kind)
                sb_printf(b, "%s%s", k++ ? ", " : "", (*runners)->name);
    } else {
        for (size_t i = 0; i < srl_runner_count(); i++)
            if (srl_runner_at(i)->kind == kind)
                sb_printf(b, "%s%s", k++ ? ", " : "", srl_runner_at(i)->name);
    }
    if (!k)
        sb_puts(b, "none registered yet");
}

static void known_keys(sbuf *b, const srl_runner *r)
{
    size_t k = 0;
    for (const srl_param *p = srl_runner_common_params(r->kind); p && p->key; p++)
        sb_printf(b, "%s%s", k++ ? ", " : "", p->key);
    for (const srl_param *p = r->params; p && p->key; p++)
        sb_printf(b, "%s%s", k++ ? ", " : "", p->key);
}

/* The position of key in the canonical order for runner r (core keys first). */
static size_t key_rank(const srl_runner *r, const char *key)
{
    for (size_t i = 0; i < NCORE; i++)
        if (!strcmp(key, core_keys[i]))
            return i;
    size_t k = NCORE;
    for (const srl_param *p = srl_runner_common_params(r->kind); p && p->key; p++, k++)
        if (!strcmp(p->key, key))
            return k;
    for (const srl_param *p = r->params; p && p->key; p++, k++)
        if (!strcmp(p->key, key))
            return k;
    return k; /* not reached after validation */
}

/* Comparison of two values of an axis: numbers by value (before text), text by bytes. */
static int value_cmp(const char *a, const char *b)
{
    double x, y;
    bool nx = parse_double(a, &x), ny = parse_double(b, &y);
    if (nx && ny)
        return x < y ? -1 : x > y ? 1 : 0;
    if (nx != ny)
        return nx ? -1 : 1;
    return strcmp(a, b);
}

static const srl_sweep *sort_sweep; /* qsort has no context argument; guarded by sort_dim() */
static const dim *sort_d;

static int tuple_cmp(const void *pa, const void *pb)
{
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    for (size_t k = 0; k < sort_d->nax; k++) {
        const axis *a = &sort_sweep->ax[sort_d->ax[k]];
        int c = value_cmp(a->val[i], a->val[j]);
        if (c)
            return c;
    }
    return 0;
}

/* Two equal tuples in a dimension make two runs the same run: refuse. */
static int check_distinct(const srl_sweep *s, const dim *d, srl_err *err)
{
    size_t *idx = malloc(d->len * sizeof *idx);
    if (!idx)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t i = 0; i < d->len; i++)
        idx[i] = i;
    int st = SRL_OK;
#ifdef _OPENMP
#pragma omp critical(srl_sweep_sort)
#endif
    {
        sort_sweep = s;
        sort_d = d;
        qsort(idx, d->len, sizeof *idx, tuple_cmp);
        for (size_t k = 1; k < d->len && !st; k++) {
            if (tuple_cmp(&idx[k - 1], &idx[k]) == 0) {
                size_t i = idx[k - 1] < idx[k] ? idx[k - 1] : idx[k];
                size_t j = idx[k - 1] < idx[k] ? idx[k] : idx[k - 1];
                const axis *a = &s->ax[d->ax[0]];
                if (d->nax == 1)
                    st = srl_err_set(err, SRL_EINVAL,
                                     "%s: value '%s' repeats '%s' (each run must differ)",
                                     a->origin, a->val[j], a->val[i]);
                else
                    st = srl_err_set(err, SRL_EINVAL,
                                     "%s: zipped values %zu and %zu are the same run (%s=%s)",
                                     a->origin, i + 1, j + 1, a->key, a->val[i]);
            }
        }
    }
    free(idx);
    return st;
}

static const char *origin_of(const srl_sweep_setting *t)
{
    return t->origin ? t->origin : t->key;
}

/* Shell-quoted argument for a command line that can be pasted back. */
static void sb_shell(sbuf *b, const char *s)
{
    bool plain = *s != 0;
    for (const char *t = s; *t; t++)
        if (!isalnum((unsigned char)*t) && !strchr("%+,-./:=@_^", *t))
            plain = false;
    if (plain) {
        sb_puts(b, s);
        return;
    }
    sb_putc(b, '\'');
    for (const char *t = s; *t; t++) {
        if (*t == '\'')
            sb_puts(b, "'\\''");
        else
            sb_putc(b, *t);
    }
    sb_putc(b, '\'');
}

/* "1-4,7" */
static char *seeds_text(char **v, size_t n)
{
    sbuf b = {0};
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        unsigned long long x = strtoull(v[i], NULL, 10);
        while (j + 1 < n && strtoull(v[j + 1], NULL, 10) == x + (j + 1 - i))
            j++;
        if (i)
            sb_putc(&b, ',');
        if (j >= i + 2)
            sb_printf(&b, "%s-%s", v[i], v[j]);
        else if (j == i + 1)
            sb_printf(&b, "%s,%s", v[i], v[j]);
        else
            sb_puts(&b, v[i]);
        i = j + 1;
    }
    return sb_take(&b);
}

static bool is_sweep_key(const char *k)
{
    return !strcmp(k, "command") || !strcmp(k, "seeds") || !strcmp(k, "zip") ||
           !strcmp(k, "target");
}

int srl_sweep_new(srl_sweep **out, const srl_sweep_setting *set, size_t n,
                  const srl_runner *const *runners, srl_err *err)
{
    *out = NULL;
    srl_sweep *s = calloc(1, sizeof *s);
    if (!s)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    int st = SRL_OK;
    sbuf b = {0};
    const srl_sweep_setting *t_seeds = NULL, *t_seed = NULL, *t_problem = NULL;
    long *zipgroup = NULL;

    /* Each key once; the sweep's own keys. */
    s->kind = SRL_RUN_TRAIN;
    for (size_t i = 0; i < n; i++) {
        const srl_sweep_setting *t = &set[i];
        if (!t->key || !*t->key || !t->value) {
            st = srl_err_set(err, SRL_EINVAL, "a setting without a key or a value");
            goto fail;
        }
        if (strcmp(t->key, "zip"))
            for (size_t j = 0; j < i; j++)
                if (!strcmp(set[j].key, t->key)) {
                    st = srl_err_set(err, SRL_EINVAL, "%s: '%s' is already set (%s)",
                                     origin_of(t), t->key, origin_of(&set[j]));
                    goto fail;
                }
        if (!strcmp(t->key, "command")) {
            if (!strcmp(t->value, "train"))
                s->kind = SRL_RUN_TRAIN;
            else if (!strcmp(t->value, "run"))
                s->kind = SRL_RUN_EXPERIMENT;
            else {
                st = srl_err_set(err, SRL_EPARSE, "%s: '%s' is not a command (train or run)",
                                 origin_of(t), t->value);
                goto fail;
            }
        } else if (!strcmp(t->key, "target")) {
            if (!parse_double(t->value, &s->target) || !(s->target >= 0)) {
                st = srl_err_set(err, SRL_EPARSE, "%s: '%s' is not a loss gap target (a number >= 0)",
                                 origin_of(t), t->value);
                goto fail;
            }
            s->has_target = true;
        } else if (!strcmp(t->key, "seeds")) {
            t_seeds = t;
        } else if (!strcmp(t->key, "seed")) {
            t_seed = t;
        } else if (!strcmp(t->key, "problem")) {
            t_problem = t;
        }
    }
    if (!t_problem) {
        known_problems(&b, runners, s->kind);
        st = srl_err_set(err, SRL_EINVAL, "no problem given: problem = NAME[,NAME...] (%s: %s)",
                         s->kind == SRL_RUN_TRAIN ? "srlab train" : "srlab run",
                         b.p ? b.p : "");
        goto fail;
    }
    if (t_seeds && t_seed) {
        st = srl_err_set(err, SRL_EINVAL,
                         "%s and %s contradict each other: give a number of seeds or a list",
                         origin_of(t_seeds), origin_of(t_seed));
        goto fail;
    }

    /* Axes: problem first, then every other key (sorted into canonical order below). */
    s->ax = calloc(n + 1, sizeof *s->ax);
    if (!s->ax)
        goto oom;
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const srl_sweep_setting *t = &set[i];
            bool isprob = !strcmp(t->key, "problem");
            if ((pass == 0) != isprob || is_sweep_key(t->key) || !strcmp(t->key, "seed"))
                continue;
            axis *a = &s->ax[s->nax];
            vlist l;
            srl_err e2;
            st = parse_values(t->value, &l, &e2);
            if (st) {
                vl_free(&l);
                st = srl_err_set(err, st, "%s: %s", origin_of(t), e2.msg);
                goto fail;
            }
            a->key = dup(t->key);
            a->origin = dup(origin_of(t));
            a->canon = sb_take(&l.canon);
            a->val = l.v;
            a->nval = l.n;
            a->dim = -1;
            s->nax++;
            if (!a->key || !a->origin || !a->canon)
                goto oom;
        }

    /* Problems, then every key against every problem. */
    axis *pa = &s->ax[0];
    s->prob = calloc(pa->nval, sizeof *s->prob);
    if (!s->prob)
        goto oom;
    for (size_t v = 0; v < pa->nval; v++) {
        s->prob[v] = find_runner(runners, s->kind, pa->val[v]);
        if (!s->prob[v]) {
            known_problems(&b, runners, s->kind);
            const srl_runner *other =
                find_runner(runners, s->kind == SRL_RUN_TRAIN ? SRL_RUN_EXPERIMENT : SRL_RUN_TRAIN,
                            pa->val[v]);
            st = srl_err_set(err, SRL_EINVAL, "%s: unknown problem '%s' for %s (known: %s)%s",
                             pa->origin, pa->val[v],
                             s->kind == SRL_RUN_TRAIN ? "srlab train" : "srlab run",
                             b.p ? b.p : "",
                             other ? (s->kind == SRL_RUN_TRAIN ? "; it is an experiment: command = run"
                                                               : "; it is trained: command = train")
                                   : "");
            goto fail;
        }
    }
    for (size_t i = 1; i < s->nax; i++)
        for (size_t v = 0; v < pa->nval; v++) {
            const srl_runner *r = s->prob[v];
            if (!srl_runner_param(r, s->ax[i].key)) {
                known_keys(&b, r);
                st = srl_err_set(err, SRL_EINVAL,
                                 "%s: unknown key '%s' for problem '%s' (known: %s)",
                                 s->ax[i].origin, s->ax[i].key, r->name, b.p ? b.p : "");
                goto fail;
            }
        }
    /* Canonical order (insertion sort: few keys): problem stays first. */
    for (size_t i = 2; i < s->nax; i++) {
        axis tmp = s->ax[i];
        size_t rk = key_rank(s->prob[0], tmp.key), j = i;
        while (j > 1 && key_rank(s->prob[0], s->ax[j - 1].key) > rk) {
            s->ax[j] = s->ax[j - 1];
            j--;
        }
        s->ax[j] = tmp;
    }

    /* Seeds. */
    if (t_seeds) {
        size_t cnt;
        if (!parse_size(t_seeds->value, strlen(t_seeds->value), &cnt) || cnt < 1 ||
            cnt > MAX_VALUES) {
            st = srl_err_set(err, SRL_EPARSE, "%s: '%s' is not a number of seeds (1 to %u)",
                             origin_of(t_seeds), t_seeds->value, MAX_VALUES);
            goto fail;
        }
        s->seeds = calloc(cnt, sizeof *s->seeds);
        if (!s->seeds)
            goto oom;
        for (size_t k = 0; k < cnt; k++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%zu", k + 1);
            if (!(s->seeds[k] = dup(buf)))
                goto oom;
            s->nseeds++;
        }
    } else if (t_seed) {
        vlist l;
        srl_err e2;
        st = parse_values(t_seed->value, &l, &e2);
        free(l.canon.p);
        l.canon.p = NULL;
        s->seeds = l.v;
        s->nseeds = l.n;
        if (st) {
            st = srl_err_set(err, st, "%s: %s", origin_of(t_seed), e2.msg);
            goto fail;
        }
        for (size_t k = 0; k < s->nseeds; k++) {
            const char *v = s->seeds[k];
            bool ok = *v && strlen(v) <= 20;
            for (const char *c = v; *c && ok; c++)
                ok = isdigit((unsigned char)*c);
            errno = 0;
            if (ok)
                (void)strtoull(v, NULL, 10);
            if (!ok || errno) {
                st = srl_err_set(err, SRL_EPARSE,
                                 "%s: '%s' is not a seed (a decimal integer from 0 to 2^64-1)",
                                 origin_of(t_seed), v);
                goto fail;
            }
            for (size_t j = 0; j < k; j++)
                if (strtoull(s->seeds[j], NULL, 10) == strtoull(v, NULL, 10)) {
                    st = srl_err_set(err, SRL_EINVAL, "%s: seed %s repeats %s", origin_of(t_seed),
                                     v, s->seeds[j]);
                    goto fail;
                }
        }
    } else {
        const srl_param *p = srl_runner_param(s->prob[0], "seed");
        s->seeds = calloc(1, sizeof *s->seeds);
        if (!s->seeds || !(s->seeds[0] = dup(p && p->def ? p->def : "1")))
            goto oom;
        s->nseeds = 1;
    }
    if (!(s->seeds_text = seeds_text(s->seeds, s->nseeds)))
        goto oom;

    /* Zip groups: members are axes; no axis in two groups; equal lengths. */
    zipgroup = malloc((s->nax + 1) * sizeof *zipgroup);
    if (!zipgroup)
        goto oom;
    for (size_t i = 0; i < s->nax; i++)
        zipgroup[i] = -1;
    long gid = 0;
    for (size_t i = 0; i < n; i++) {
        const srl_sweep_setting *t = &set[i];
        if (strcmp(t->key, "zip"))
            continue;
        char **keys = NULL;
        size_t nk = 0;
        srl_err e2;
        st = srl_sweep_parse_values(t->value, &keys, &nk, &e2);
        if (st) {
            st = srl_err_set(err, st, "%s: %s", origin_of(t), e2.msg);
            goto fail;
        }
        if (nk < 2) {
            srl_sweep_values_free(keys, nk);
            st = srl_err_set(err, SRL_EINVAL, "%s: '%s': name two or more axes that vary together",
                             origin_of(t), t->value);
            goto fail;
        }
        size_t len0 = 0;
        const char *key0 = NULL;
        for (size_t k = 0; k < nk && !st; k++) {
            long ai = -1;
            for (size_t j = 0; j < s->nax; j++)
                if (!strcmp(s->ax[j].key, keys[k]))
                    ai = (long)j;
            if (!strcmp(keys[k], "seed") || !strcmp(keys[k], "seeds")) {
                st = srl_err_set(err, SRL_EINVAL,
                                 "%s: seeds cannot be zipped (every grid point runs every seed)",
                                 origin_of(t));
            } else if (ai < 0) {
                st = srl_err_set(err, SRL_EINVAL, "%s: '%s' is not an axis of this sweep",
                                 origin_of(t), keys[k]);
            } else if (zipgroup[ai] >= 0) {
                st = srl_err_set(err, SRL_EINVAL, "%s: '%s' is zipped twice", origin_of(t),
                                 keys[k]);
            } else if (k && s->ax[ai].nval != len0) {
                st = srl_err_set(err, SRL_EINVAL,
                                 "%s: zipped axes need equal lengths: %s has %zu values, %s has %zu",
                                 origin_of(t), key0, len0, keys[k], s->ax[ai].nval);
            } else {
                zipgroup[ai] = gid;
                len0 = s->ax[ai].nval;
                key0 = s->ax[0 + (size_t)ai].key;
            }
        }
        srl_sweep_values_free(keys, nk);
        if (st)
            goto fail;
        gid++;
    }

    /* Dimensions, in canonical order; a zip group sits at its first member. */
    s->dims = calloc(s->nax + 1, sizeof *s->dims);
    if (!s->dims)
        goto oom;
    for (size_t i = 0; i < s->nax; i++) {
        axis *a = &s->ax[i];
        if (a->dim >= 0)
            continue;
        if (zipgroup[i] < 0 && a->nval == 1)
            continue;
        dim *d = &s->dims[s->ndims];
        d->ax = malloc(s->nax * sizeof *d->ax);
        if (!d->ax)
            goto oom;
        d->len = a->nval;
        for (size_t j = i; j < s->nax; j++)
            if (j == i || (zipgroup[i] >= 0 && zipgroup[j] == zipgroup[i])) {
                d->ax[d->nax++] = j;
                s->ax[j].dim = (long)s->ndims;
            }
        s->ndims++;
        st = check_distinct(s, d, err);
        if (st)
            goto fail;
    }
    s->npoints = 1;
    for (size_t d = 0; d < s->ndims; d++) {
        if (s->npoints > MAX_RUNS / s->dims[d].len) {
            st = srl_err_set(err, SRL_ERANGE, "the grid has more than %u runs", MAX_RUNS);
            goto fail;
        }
        s->npoints *= s->dims[d].len;
    }
    if (s->npoints > MAX_RUNS / s->nseeds) {
        st = srl_err_set(err, SRL_ERANGE, "the grid has more than %u runs", MAX_RUNS);
        goto fail;
    }
    s->nruns = s->npoints * s->nseeds;

    /* Axis columns: core keys any problem knows, then the other varying axes. */
    s->cols = calloc(NCORE + s->nax, sizeof *s->cols);
    if (!s->cols)
        goto oom;
    for (size_t c = 0; c < NCORE; c++) {
        long ai = -1;
        for (size_t i = 0; i < s->nax; i++)
            if (!strcmp(s->ax[i].key, core_keys[c]))
                ai = (long)i;
        bool known = ai >= 0;
        for (size_t v = 0; v < pa->nval && !known; v++)
            known = srl_runner_param(s->prob[v], core_keys[c]) != NULL;
        if (!known)
            continue;
        s->cols[s->ncols].axis = ai;
        if (!(s->cols[s->ncols++].name = dup(core_keys[c])))
            goto oom;
    }
    for (size_t i = 0; i < s->nax; i++) {
        bool core = false;
        for (size_t c = 0; c < NCORE; c++)
            core |= !strcmp(s->ax[i].key, core_keys[c]);
        if (core || s->ax[i].nval < 2)
            continue;
        s->cols[s->ncols].axis = (long)i;
        if (!(s->cols[s->ncols++].name = dup(s->ax[i].key)))
            goto oom;
    }

    /* The canonical command. */
    free(b.p);
    memset(&b, 0, sizeof b);
    sb_printf(&b, "srlab sweep --command %s", s->kind == SRL_RUN_TRAIN ? "train" : "run");
    for (size_t i = 0; i < s->nax; i++) {
        sb_printf(&b, " --%s ", s->ax[i].key);
        sb_shell(&b, s->ax[i].canon);
    }
    if (t_seeds) {
        sb_printf(&b, " --seeds %zu", s->nseeds);
    } else if (t_seed) {
        vlist l;
        srl_err e2;
        if (parse_values(t_seed->value, &l, &e2) == SRL_OK) {
            sb_puts(&b, " --seed ");
            sb_shell(&b, l.canon.p ? l.canon.p : "");
        }
        vl_free(&l);
    }
    for (long g = 0; g < gid; g++) {
        sb_puts(&b, " --zip ");
        size_t k = 0;
        for (size_t i = 0; i < s->nax; i++)
            if (zipgroup[i] == g)
                sb_printf(&b, "%s%s", k++ ? "," : "", s->ax[i].key);
    }
    for (size_t i = 0; i < n && s->has_target; i++)
        if (!strcmp(set[i].key, "target")) {
            sb_puts(&b, " --target ");
            sb_shell(&b, set[i].value);
        }
    if (!(s->command = sb_take(&b)))
        goto oom;
    b.p = NULL;
    free(zipgroup);
    *out = s;
    return SRL_OK;
oom:
    st = srl_err_set(err, SRL_ENOMEM, "out of memory");
fail:
    free(b.p);
    free(zipgroup);
    srl_sweep_free(s);
    return st;
}

srl_run_kind srl_sweep_kind(const srl_sweep *s)
{
    return s->kind;
}

size_t srl_sweep_nruns(const srl_sweep *s)
{
    return s->nruns;
}

size_t srl_sweep_npoints(const srl_sweep *s)
{
    return s->npoints;
}

size_t srl_sweep_nseeds(const srl_sweep *s)
{
    return s->nseeds;
}

const char *srl_sweep_command(const srl_sweep *s)
{
    return s->command;
}

const char *srl_sweep_seeds_text(const srl_sweep *s)
{
    return s->seeds_text;
}

size_t srl_sweep_naxes(const srl_sweep *s)
{
    return s->ncols + 1;
}

const char *srl_sweep_axis_name(const srl_sweep *s, size_t i)
{
    return i < s->ncols ? s->cols[i].name : i == s->ncols ? "seed" : NULL;
}

/* The value index of axis a in run. */
static size_t value_index(const srl_sweep *s, const axis *a, size_t run)
{
    if (a->dim < 0)
        return 0;
    size_t point = run / s->nseeds;
    for (size_t d = s->ndims; d-- > 0;) {
        size_t idx = point % s->dims[d].len;
        if ((long)d == a->dim)
            return idx;
        point /= s->dims[d].len;
    }
    return 0;
}

const srl_runner *srl_sweep_runner(const srl_sweep *s, size_t run)
{
    return s->prob[value_index(s, &s->ax[0], run)];
}

const char *srl_sweep_axis_value(const srl_sweep *s, size_t run, size_t i)
{
    if (run >= s->nruns || i > s->ncols)
        return NULL;
    if (i == s->ncols)
        return s->seeds[run % s->nseeds];
    const column *c = &s->cols[i];
    if (c->axis >= 0) {
        const axis *a = &s->ax[c->axis];
        return a->val[value_index(s, a, run)];
    }
    const srl_param *p = srl_runner_param(srl_sweep_runner(s, run), c->name);
    return p && p->def ? p->def : "";
}

int srl_sweep_config(const srl_sweep *s, size_t run, srl_config **out)
{
    *out = NULL;
    if (run >= s->nruns)
        return SRL_EINVAL;
    srl_config *c = srl_config_new();
    if (!c)
        return SRL_ENOMEM;
    int st = SRL_OK;
    for (size_t i = 0; i < s->nax && !st; i++)
        st = srl_config_set(c, s->ax[i].key, s->ax[i].val[value_index(s, &s->ax[i], run)]);
    if (!st)
        st = srl_config_set(c, "seed", s->seeds[run % s->nseeds]);
    if (st) {
        srl_config_free(c);
        return st;
    }
    *out = c;
    return SRL_OK;
}

/* ---- validation runs and the column lines ---- */

typedef struct vcols {
    bool begun;
    size_t n;
    char **names;
    srl_col_kind *kinds;
} vcols;

static int v_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds)
{
    vcols *v = ctx;
    v->names = calloc(ncol ? ncol : 1, sizeof *v->names);
    v->kinds = calloc(ncol ? ncol : 1, sizeof *v->kinds);
    if (!v->names || !v->kinds)
        return SRL_ENOMEM;
    for (size_t i = 0; i < ncol; i++) {
        if (!(v->names[i] = dup(names[i])))
            return SRL_ENOMEM;
        v->kinds[i] = kinds[i];
        v->n = i + 1;
    }
    v->begun = true;
    return VALIDATE_STOP;
}

static int v_row(void *ctx, const srl_value *values)
{
    (void)ctx;
    (void)values;
    return VALIDATE_STOP;
}

static void vcols_free(vcols *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->names[i]);
    free(v->names);
    free(v->kinds);
}

/* Point number of dimension indices. */
static size_t point_of(const srl_sweep *s, const size_t *idx)
{
    size_t p = 0;
    for (size_t d = 0; d < s->ndims; d++)
        p = p * s->dims[d].len + idx[d];
    return p;
}

/* The validation runs: for every problem, its first grid point, and that point with each other
 * value of every dimension (with the partners of a zip). */
static int validation_runs(const srl_sweep *s, size_t **runs, size_t *nr, size_t **varied)
{
    const axis *pa = &s->ax[0];
    size_t cap = 1, n = 0;
    for (size_t d = 0; d < s->ndims; d++)
        cap += s->dims[d].len;
    cap *= pa->nval;
    size_t *r = malloc(cap * sizeof *r), *vd = malloc(cap * sizeof *vd);
    size_t *idx = calloc(s->ndims + 1, sizeof *idx);
    if (!r || !vd || !idx) {
        free(r);
        free(vd);
        free(idx);
        return SRL_ENOMEM;
    }
    long pd = pa->dim;
    for (size_t pv = 0; pv < pa->nval; pv++) {
        bool seen = false;
        for (size_t q = 0; q < pv; q++)
            seen |= s->prob[q] == s->prob[pv];
        if (seen)
            continue;
        /* The problem dimension's tuples holding this problem. */
        size_t first = pd >= 0 ? pv : 0;
        memset(idx, 0, (s->ndims + 1) * sizeof *idx);
        if (pd >= 0)
            idx[pd] = first;
        r[n] = point_of(s, idx) * s->nseeds;
        vd[n++] = SIZE_MAX;
        if (pd >= 0)
            for (size_t t = first + 1; t < s->dims[pd].len; t++)
                if (s->prob[t] == s->prob[pv]) {
                    idx[pd] = t;
                    r[n] = point_of(s, idx) * s->nseeds;
                    vd[n++] = (size_t)pd;
                }
        if (pd >= 0)
            idx[pd] = first;
        for (size_t d = 0; d < s->ndims; d++) {
            if ((long)d == pd)
                continue;
            for (size_t v = 1; v < s->dims[d].len; v++) {
                idx[d] = v;
                r[n] = point_of(s, idx) * s->nseeds;
                vd[n++] = d;
            }
            idx[d] = 0;
        }
    }
    free(idx);
    *runs = r;
    *nr = n;
    *varied = vd;
    return SRL_OK;
}

static void describe_run(sbuf *b, const srl_sweep *s, size_t run)
{
    sb_printf(b, "problem '%s'", srl_sweep_runner(s, run)->name);
    for (size_t i = 1; i < s->nax; i++)
        if (s->ax[i].dim >= 0)
            sb_printf(b, ", %s=%s", s->ax[i].key, s->ax[i].val[value_index(s, &s->ax[i], run)]);
}

static int build_headers(srl_sweep *s);

int srl_sweep_prepare(srl_sweep *s, int nthreads, srl_err *err)
{
    size_t *runs = NULL, *varied = NULL, nv = 0;
    if (validation_runs(s, &runs, &nv, &varied))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    vcols *vc = calloc(nv, sizeof *vc);
    int *vst = calloc(nv, sizeof *vst);
    srl_err *verr = calloc(nv, sizeof *verr);
    if (!vc || !vst || !verr) {
        free(runs);
        free(varied);
        free(vc);
        free(vst);
        free(verr);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    if (nthreads < 1)
        nthreads = 1;
    (void)nthreads;
#ifdef _OPENMP
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
#endif
    for (size_t k = 0; k < nv; k++) {
#ifdef _OPENMP
        omp_set_num_threads(1);
#endif
        srl_config *cfg = NULL;
        if (srl_sweep_config(s, runs[k], &cfg)) {
            vst[k] = srl_err_set(&verr[k], SRL_ENOMEM, "out of memory");
            continue;
        }
        srl_sink sink = {v_begin, v_row, &vc[k]};
        srl_run_report rep;
        int rc = srl_run(srl_sweep_runner(s, runs[k]), cfg, &sink, &rep, &verr[k]);
        if (vc[k].begun || rc == SRL_OK || rc == VALIDATE_STOP)
            vst[k] = SRL_OK;
        else if (rc == SRL_EDIVERGED)
            vst[k] = SRL_OK;
        else
            vst[k] = rc;
        srl_config_free(cfg);
    }
#ifdef _OPENMP
    omp_set_max_active_levels(levels);
#endif
    int st = SRL_OK;
    sbuf b = {0};
    for (size_t k = 0; k < nv && !st; k++) {
        if (!vst[k])
            continue;
        /* Name the setting to blame: the axis the message starts with, else the varied one. */
        const char *msg = verr[k].msg;
        const char *origin = NULL;
        for (size_t i = 0; i < s->nax; i++) {
            size_t kl = strlen(s->ax[i].key);
            if (!strncmp(msg, s->ax[i].key, kl) && msg[kl] == ':')
                origin = s->ax[i].origin;
        }
        if (!origin && varied[k] != SIZE_MAX)
            origin = s->ax[s->dims[varied[k]].ax[0]].origin;
        describe_run(&b, s, runs[k]);
        st = srl_err_set(err, vst[k], "%s%s%s (%s)", origin ? origin : "", origin ? ": " : "",
                         msg, b.p ? b.p : "");
    }
    free(b.p);
    /* The union of the metric columns, in order of first appearance. */
    size_t cap = 0;
    for (size_t k = 0; k < nv; k++)
        cap += vc[k].n;
    if (!st) {
        s->met = calloc(cap + 1, sizeof *s->met);
        s->metk = calloc(cap + 1, sizeof *s->metk);
        if (!s->met || !s->metk)
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < nv && !st; k++)
        for (size_t c = 0; c < vc[k].n && !st; c++) {
            size_t m = 0;
            while (m < s->nmet && strcmp(s->met[m], vc[k].names[c]))
                m++;
            if (m < s->nmet) {
                if (s->metk[m] != vc[k].kinds[c]) {
                    sbuf d = {0};
                    describe_run(&d, s, runs[k]);
                    st = srl_err_set(err, SRL_EINVAL,
                                     "column '%s' changes type between runs (%s); sweep these "
                                     "problems separately", s->met[m], d.p ? d.p : "");
                    free(d.p);
                }
                continue;
            }
            bool clash = !strcmp(vc[k].names[c], "run") || !strcmp(vc[k].names[c], "seed");
            for (size_t i = 0; i < s->ncols; i++)
                clash |= !strcmp(vc[k].names[c], s->cols[i].name);
            if (clash) {
                st = srl_err_set(err, SRL_EINVAL, "problem '%s' reports a metric column '%s' "
                                 "that is also an axis column", srl_sweep_runner(s, runs[k])->name,
                                 vc[k].names[c]);
                continue;
            }
            if (!(s->met[s->nmet] = dup(vc[k].names[c])))
                st = srl_err_set(err, SRL_ENOMEM, "out of memory");
            else
                s->metk[s->nmet++] = vc[k].kinds[c];
        }
    for (size_t k = 0; k < nv; k++)
        vcols_free(&vc[k]);
    free(vc);
    free(vst);
    free(verr);
    free(runs);
    free(varied);
    if (st)
        return st;
    if (build_headers(s))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    s->prepared = true;
    return SRL_OK;
}

static bool numeric(srl_col_kind k)
{
    return k == SRL_COL_NUM || k == SRL_COL_INT;
}

/* The headline metrics that get statistics over seeds (see sweep.h). */
static const char *const headline[] = {"final_loss", "best_loss", "final_loss_gap",
                                       "final_dist_to_opt", "steps_to_target"};
#define NHEAD (sizeof headline / sizeof headline[0])

static int build_headers(srl_sweep *s)
{
    s->c_step = s->c_loss = s->c_gap = -1;
    for (size_t m = 0; m < s->nmet; m++) {
        if (!strcmp(s->met[m], "step") && numeric(s->metk[m]))
            s->c_step = (long)m;
        if (!strcmp(s->met[m], "loss") && numeric(s->metk[m]))
            s->c_loss = (long)m;
        if (!strcmp(s->met[m], "loss_gap") && numeric(s->metk[m]))
            s->c_gap = (long)m;
    }
    sbuf h = {0}, sm = {0}, per = {0};
    sb_puts(&h, "run");
    for (size_t i = 0; i <= s->ncols; i++) {
        sb_putc(&h, ',');
        sb_csv(&h, srl_sweep_axis_name(s, i));
    }
    sb_put(&sm, h.p, h.len);
    for (size_t m = 0; m < s->nmet; m++) {
        sb_putc(&h, ',');
        sb_csv(&h, s->met[m]);
    }
    /* Per-run columns. */
    if (s->c_step >= 0)
        sb_puts(&per, ",last_step");
    for (size_t m = 0; m < s->nmet; m++)
        if (numeric(s->metk[m]) && (long)m != s->c_step) {
            sb_puts(&per, ",final_");
            sb_csv(&per, s->met[m]);
        }
    if (s->c_loss >= 0)
        sb_puts(&per, ",best_loss");
    if (s->c_gap >= 0 && s->c_step >= 0 && s->has_target)
        sb_puts(&per, ",steps_to_target");
    sb_puts(&per, ",diverged");
    sb_put(&sm, per.p, per.len);
    /* Statistics columns. */
    if (s->c_loss >= 0) {
        for (size_t k = 0; k < NHEAD; k++) {
            char pat[64];
            snprintf(pat, sizeof pat, ",%s,", headline[k]);
            sbuf probe = {0};
            sb_put(&probe, per.p, per.len);
            sb_putc(&probe, ',');
            if (probe.p && strstr(probe.p, pat))
                sb_printf(&sm, ",%s_n,%s_mean,%s_sd,%s_ci95_lo,%s_ci95_hi", headline[k],
                          headline[k], headline[k], headline[k], headline[k]);
            free(probe.p);
        }
    } else {
        for (size_t m = 0; m < s->nmet; m++)
            if (numeric(s->metk[m]) && (long)m != s->c_step && !strpbrk(s->met[m], ",\"\r\n"))
                sb_printf(&sm, ",final_%s_n,final_%s_mean,final_%s_sd,final_%s_ci95_lo,"
                          "final_%s_ci95_hi", s->met[m], s->met[m], s->met[m], s->met[m],
                          s->met[m]);
    }
    free(per.p);
    s->rows_header = sb_take(&h);
    s->summary_header = sb_take(&sm);
    return s->rows_header && s->summary_header ? SRL_OK : SRL_ENOMEM;
}

const char *srl_sweep_rows_header(const srl_sweep *s)
{
    return s->rows_header;
}

const char *srl_sweep_summary_header(const srl_sweep *s)
{
    return s->summary_header;
}

int srl_sweep_preamble(const srl_sweep *s, const srl_sweep_meta *m, char **out)
{
    sbuf b = {0};
    sb_printf(&b, "# srlab %s\n# command: %s\n", srl_version(), s->command);
    if (m->spec)
        sb_printf(&b, "# spec: %s%s\n", m->spec, m->quick ? " (with its [quick] section)" : "");
    if (m->date)
        sb_printf(&b, "# date: %s\n", m->date);
    sb_printf(&b, "# seeds: %s (every grid point runs each seed; a run's random streams derive "
                  "from its seed)\n", s->seeds_text);
    sb_printf(&b, "# runs: %zu (%zu grid points x %zu seeds)\n", s->nruns, s->npoints, s->nseeds);
    if (m->shard_n)
        sb_printf(&b, "# shard: %zu/%zu (runs whose number is %zu modulo %zu; join the shards "
                      "with srlab merge)\n", m->shard_i, m->shard_n, m->shard_i, m->shard_n);
    *out = sb_take(&b);
    return *out ? SRL_OK : SRL_ENOMEM;
}

/* ---- running ---- */

typedef struct rsink {
    const srl_sweep *s;
    size_t run;
    sbuf rows;
    char *prefix; /* "RUN,AXES...,SEED" */
    size_t prefix_len;
    bool begun;
    size_t ncol;
    long *slot; /* union column -> the run's column, or -1 */
    srl_col_kind *kind;
    char (*last)[48]; /* last row's text per union column (numeric ones) */
    bool *has_last;
    bool has_best;
    double best;
    bool reached;
    char target_step[48];
    size_t nrows;
    srl_err *err;
} rsink;

static int r_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds)
{
    rsink *r = ctx;
    const srl_sweep *s = r->s;
    if (r->begun)
        return srl_err_set(r->err, SRL_EINVAL, "the runner began its rows twice");
    r->begun = true;
    r->ncol = ncol;
    r->kind = malloc((ncol ? ncol : 1) * sizeof *r->kind);
    if (!r->kind)
        return SRL_ENOMEM;
    for (size_t m = 0; m < s->nmet; m++)
        r->slot[m] = -1;
    for (size_t c = 0; c < ncol; c++) {
        size_t m = 0;
        while (m < s->nmet && strcmp(s->met[m], names[c]))
            m++;
        if (m == s->nmet || s->metk[m] != kinds[c])
            return srl_err_set(r->err, SRL_EINVAL,
                               "column '%s' was not reported (with this type) by the "
                               "validation runs; the runner's columns depend on more than its "
                               "problem", names[c]);
        r->slot[m] = (long)c;
        r->kind[c] = kinds[c];
    }
    return SRL_OK;
}

static int r_row(void *ctx, const srl_value *v)
{
    rsink *r = ctx;
    const srl_sweep *s = r->s;
    if (!r->begun)
        return srl_err_set(r->err, SRL_EINVAL, "the runner wrote a row before its columns");
    sb_put(&r->rows, r->prefix, r->prefix_len);
    for (size_t m = 0; m < s->nmet; m++) {
        sb_putc(&r->rows, ',');
        long c = r->slot[m];
        r->has_last[m] = false;
        if (c < 0)
            continue;
        char buf[48];
        switch (v[c].kind) {
        case SRL_COL_NUM: fmt_num(buf, v[c].num); break;
        case SRL_COL_INT: snprintf(buf, sizeof buf, "%" PRId64, v[c].i); break;
        default: sb_csv(&r->rows, v[c].str ? v[c].str : ""); continue;
        }
        sb_puts(&r->rows, buf);
        memcpy(r->last[m], buf, sizeof buf);
        r->has_last[m] = true;
    }
    sb_putc(&r->rows, '\n');
    r->nrows++;
    /* Summary accumulators. */
    if (s->c_loss >= 0 && r->slot[s->c_loss] >= 0) {
        const srl_value *x = &v[r->slot[s->c_loss]];
        double y = x->kind == SRL_COL_INT ? (double)x->i : x->num;
        if (isfinite(y) && (!r->has_best || y < r->best)) {
            r->best = y;
            r->has_best = true;
        }
    }
    if (s->has_target && !r->reached && s->c_gap >= 0 && s->c_step >= 0 &&
        r->slot[s->c_gap] >= 0 && r->slot[s->c_step] >= 0) {
        const srl_value *x = &v[r->slot[s->c_gap]];
        double g = x->kind == SRL_COL_INT ? (double)x->i : x->num;
        if (g <= s->target) {
            r->reached = true;
            memcpy(r->target_step, r->last[s->c_step], sizeof r->target_step);
        }
    }
    return r->rows.oom ? SRL_ENOMEM : SRL_OK;
}

void srl_sweep_record_free(srl_sweep_record *rec)
{
    if (!rec)
        return;
    free(rec->rows);
    free(rec->summary);
    memset(rec, 0, sizeof *rec);
}

int srl_sweep_run(const srl_sweep *s, size_t run, srl_sweep_record *rec, srl_err *err)
{
    memset(rec, 0, sizeof *rec);
    rec->run = run;
    if (!s->prepared || run >= s->nruns)
        return srl_err_set(err, SRL_EINVAL, "run %zu: not a run of this prepared sweep", run);
    rsink r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.run = run;
    r.err = err;
    sbuf pre = {0};
    sb_printf(&pre, "%zu", run);
    for (size_t i = 0; i <= s->ncols; i++) {
        sb_putc(&pre, ',');
        sb_csv(&pre, srl_sweep_axis_value(s, run, i));
    }
    r.prefix = sb_take(&pre);
    r.prefix_len = r.prefix ? strlen(r.prefix) : 0;
    size_t nm = s->nmet ? s->nmet : 1;
    r.slot = malloc(nm * sizeof *r.slot);
    r.last = calloc(nm, sizeof *r.last);
    r.has_last = calloc(nm, sizeof *r.has_last);
    srl_config *cfg = NULL;
    int st = SRL_OK;
    if (!r.prefix || !r.slot || !r.last || !r.has_last || srl_sweep_config(s, run, &cfg)) {
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t m = 0; m < s->nmet; m++)
        r.slot[m] = -1;
    srl_sink sink = {r_begin, r_row, &r};
    srl_run_report rep;
    memset(&rep, 0, sizeof rep);
    srl_err e2;
    e2.msg[0] = 0;
    r.err = &e2;
    int rc = srl_run(srl_sweep_runner(s, run), cfg, &sink, &rep, &e2);
    if (rc == SRL_EDIVERGED) {
        rep.diverged = true;
        rc = SRL_OK;
    }
    if (rc) {
        sbuf d = {0};
        describe_run(&d, s, run);
        st = srl_err_set(err, rc, "run %zu (%s): %s", run, d.p ? d.p : "",
                         e2.msg[0] ? e2.msg : srl_strerror(rc));
        free(d.p);
        goto done;
    }
    rec->diverged = rep.diverged;
    memcpy(rec->note, rep.note, sizeof rec->note);
    rec->note[sizeof rec->note - 1] = 0;
    /* The summary line without statistics. */
    sbuf sm = {0};
    sb_put(&sm, r.prefix, r.prefix_len);
    if (s->c_step >= 0) {
        sb_putc(&sm, ',');
        if (r.has_last[s->c_step])
            sb_puts(&sm, r.last[s->c_step]);
    }
    for (size_t m = 0; m < s->nmet; m++)
        if (numeric(s->metk[m]) && (long)m != s->c_step) {
            sb_putc(&sm, ',');
            if (r.has_last[m])
                sb_puts(&sm, r.last[m]);
        }
    if (s->c_loss >= 0) {
        sb_putc(&sm, ',');
        if (r.has_best) {
            char buf[48];
            fmt_num(buf, r.best);
            sb_puts(&sm, buf);
        }
    }
    if (s->c_gap >= 0 && s->c_step >= 0 && s->has_target) {
        sb_putc(&sm, ',');
        if (r.reached)
            sb_puts(&sm, r.target_step);
    }
    sb_puts(&sm, rep.diverged ? ",1\n" : ",0\n");
    rec->summary = sb_take(&sm);
    rec->rows = sb_take(&r.rows);
    r.rows.p = NULL;
    if (!rec->summary || !rec->rows) {
        srl_sweep_record_free(rec);
        rec->run = run;
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    rec->summary_len = strlen(rec->summary);
    rec->rows_len = strlen(rec->rows);
done:
    free(r.rows.p);
    free(r.prefix);
    free(r.slot);
    free(r.kind);
    free(r.last);
    free(r.has_last);
    srl_config_free(cfg);
    return st;
}

int srl_sweep_execute(const srl_sweep *s, const size_t *runs, size_t n, int nthreads,
                      srl_sweep_done_fn done, void *ctx, size_t *failed, srl_err *err)
{
    int status = SRL_OK, stop = 0;
    size_t first_failed = SIZE_MAX;
    srl_err ferr;
    ferr.msg[0] = 0;
    if (nthreads < 1)
        nthreads = 1;
    (void)nthreads;
#ifdef _OPENMP
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
#pragma omp parallel num_threads(nthreads)
#endif
    {
#ifdef _OPENMP
        omp_set_num_threads(1); /* kernels inside a run: one thread (results do not depend on it) */
#pragma omp for schedule(dynamic, 1)
#endif
        for (size_t k = 0; k < n; k++) {
            int halt;
#ifdef _OPENMP
#pragma omp atomic read
#endif
            halt = stop;
            if (halt)
                continue;
            srl_sweep_record rec;
            srl_err e;
            e.msg[0] = 0;
            int st = srl_sweep_run(s, runs[k], &rec, &e);
#ifdef _OPENMP
#pragma omp critical(srl_sweep_done)
#endif
            {
                if (st) {
                    if (runs[k] < first_failed) {
                        first_failed = runs[k];
                        status = st;
                        ferr = e;
                    }
#ifdef _OPENMP
#pragma omp atomic write
#endif
                    stop = 1;
                } else if (!stop) {
                    int rc = done ? done(ctx, &rec) : SRL_OK;
                    if (rc) {
                        status = rc;
                        ferr.msg[0] = 0;
#ifdef _OPENMP
#pragma omp atomic write
#endif
                        stop = 1;
                    }
                }
            }
            srl_sweep_record_free(&rec);
        }
    }
#ifdef _OPENMP
    omp_set_max_active_levels(levels);
#endif
    if (failed)
        *failed = first_failed;
    if (status && ferr.msg[0])
        srl_err_set(err, status, "%s", ferr.msg);
    else if (status)
        srl_err_set(err, status, "the sweep was stopped (%s)", srl_strerror(status));
    return status;
}

/* ---- CSV lines ---- */

/* Field offsets of one CSV line (without its newline): fields[k] = start, ends[k] = end (the raw
 * text, quotes included). Returns the number of fields (at most max), or SIZE_MAX when malformed. */
static size_t csv_split(const char *p, size_t n, size_t *starts, size_t *ends, size_t max)
{
    size_t k = 0, i = 0;
    for (;;) {
        if (k == max)
            return SIZE_MAX;
        starts[k] = i;
        if (i < n && p[i] == '"') {
            i++;
            for (;;) {
                if (i >= n)
                    return SIZE_MAX;
                if (p[i] == '"') {
                    if (i + 1 < n && p[i + 1] == '"') {
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                i++;
            }
            if (i < n && p[i] != ',')
                return SIZE_MAX;
        } else {
            while (i < n && p[i] != ',')
                i++;
        }
        ends[k++] = i;
        if (i >= n)
            return k;
        i++; /* the comma */
    }
}

/* The statistics groups of a summary header: columns [X_n, X_mean, X_sd, X_ci95_lo, X_ci95_hi]
 * at the end, X a per-run column. *base[g] is X's column index. Returns the number of groups. */
static size_t stats_groups(const char *header, size_t **base, size_t *nfields)
{
    size_t n = strlen(header), cap = 1;
    for (size_t i = 0; i < n; i++)
        cap += header[i] == ',';
    size_t *a = malloc(cap * sizeof *a), *e = malloc(cap * sizeof *e);
    size_t *g = malloc(cap * sizeof *g);
    size_t k = a && e && g ? csv_split(header, n, a, e, cap) : SIZE_MAX;
    size_t ng = 0;
    if (k == SIZE_MAX) {
        k = 0;
    }
    static const char *const suf[] = {"_n", "_mean", "_sd", "_ci95_lo", "_ci95_hi"};
    size_t end = k;
    while (end >= 5) {
        size_t c0 = end - 5;
        size_t l0 = e[c0] - a[c0];
        if (l0 <= 2 || memcmp(header + e[c0] - 2, "_n", 2))
            break;
        const char *x = header + a[c0];
        size_t xl = l0 - 2;
        bool ok = true;
        for (size_t j = 1; j < 5 && ok; j++) {
            size_t sl = strlen(suf[j]);
            ok = e[c0 + j] - a[c0 + j] == xl + sl && !memcmp(header + a[c0 + j], x, xl) &&
                 !memcmp(header + a[c0 + j] + xl, suf[j], sl);
        }
        long bi = -1;
        for (size_t j = 0; j < c0 && ok; j++)
            if (e[j] - a[j] == xl && !memcmp(header + a[j], x, xl))
                bi = (long)j;
        if (!ok || bi < 0)
            break;
        g[ng++] = (size_t)bi;
        end = c0;
    }
    /* Groups were found from the end: put them in header order. */
    for (size_t i = 0; i < ng / 2; i++) {
        size_t t = g[i];
        g[i] = g[ng - 1 - i];
        g[ng - 1 - i] = t;
    }
    free(a);
    free(e);
    if (base)
        *base = g;
    else
        free(g);
    if (nfields)
        *nfields = k;
    return ng;
}

size_t srl_sweep_stats_count(const char *summary_header)
{
    return 5 * stats_groups(summary_header, NULL, NULL);
}

int srl_sweep_summary_point(const char *summary_header, const char *const *lines,
                            const size_t *lens, size_t nlines, bool empty, char **out,
                            size_t *len, size_t *cap, srl_err *err)
{
    size_t *base = NULL, nf = 0;
    size_t ng = stats_groups(summary_header, &base, &nf);
    sbuf stats = {0}, o = {*out, *len, *cap, false};
    size_t nper = nf - 5 * ng;
    size_t *a = malloc((nper + 1) * sizeof *a), *e = malloc((nper + 1) * sizeof *e);
    double *x = malloc((nlines + 1) * sizeof *x);
    int st = SRL_OK;
    if (!a || !e || !x || (ng && !base)) {
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t g = 0; g < ng; g++) {
        size_t cnt = 0;
        for (size_t l = 0; l < nlines && !st; l++) {
            size_t ln = lens[l];
            if (ln && lines[l][ln - 1] == '\n')
                ln--;
            size_t k = csv_split(lines[l], ln, a, e, nper + 1);
            if (k != nper) {
                st = srl_err_set(err, SRL_EPARSE,
                                 "a summary line has %zu fields where its header has %zu: '%.60s'",
                                 k == SIZE_MAX ? 0 : k, nper, lines[l]);
                break;
            }
            double v;
            size_t fb = base[g];
            if (parse_double_n(lines[l] + a[fb], e[fb] - a[fb], &v))
                x[cnt++] = v;
        }
        if (st)
            break;
        if (empty) {
            sb_puts(&stats, ",,,,,");
            continue;
        }
        char buf[48];
        sb_printf(&stats, ",%zu,", cnt);
        if (cnt == 0) {
            sb_puts(&stats, ",,,");
            continue;
        }
        double mean = 0;
        for (size_t i = 0; i < cnt; i++)
            mean += x[i];
        mean /= (double)cnt;
        fmt_num(buf, mean);
        sb_puts(&stats, buf);
        if (cnt < 2) {
            sb_puts(&stats, ",,,");
            continue;
        }
        double ss = 0;
        for (size_t i = 0; i < cnt; i++)
            ss += (x[i] - mean) * (x[i] - mean);
        double sd = sqrt(ss / (double)(cnt - 1));
        double half = gsl_cdf_tdist_Pinv(0.975, (double)(cnt - 1)) * sd / sqrt((double)cnt);
        fmt_num(buf, sd);
        sb_printf(&stats, ",%s", buf);
        fmt_num(buf, mean - half);
        sb_printf(&stats, ",%s", buf);
        fmt_num(buf, mean + half);
        sb_printf(&stats, ",%s", buf);
    }
    if (!st && stats.oom)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t l = 0; l < nlines && !st; l++) {
        size_t ln = lens[l];
        if (ln && lines[l][ln - 1] == '\n')
            ln--;
        sb_put(&o, lines[l], ln);
        if (stats.p)
            sb_put(&o, stats.p, stats.len);
        sb_putc(&o, '\n');
    }
    if (!st && o.oom)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    *out = o.p;
    *len = o.len;
    *cap = o.cap;
done:
    free(stats.p);
    free(base);
    free(a);
    free(e);
    free(x);
    return st;
}

/* ---- journal ---- */

#define JOURNAL_MAGIC "srlab-sweep-journal 1\n"

/* The checksum of a record: FNV-1a over its run number in decimal, its rows, its summary. */
static uint64_t record_hash(size_t run, const char *rows, size_t rl, const char *sum, size_t sl)
{
    char buf[32];
    int k = snprintf(buf, sizeof buf, "%zu", run);
    uint64_t h = srl_fnv1a64(buf, (size_t)k, SRL_FNV1A64_BASIS);
    h = srl_fnv1a64(rows, rl, h);
    return srl_fnv1a64(sum, sl, h);
}

int srl_sweep_journal_header(const char *preamble, const char *rows_header,
                             const char *summary_header, char **out, size_t *len)
{
    sbuf b = {0};
    sb_puts(&b, JOURNAL_MAGIC);
    sb_puts(&b, preamble);
    sb_printf(&b, "%s\n%s\n@begin\n", rows_header, summary_header);
    *out = sb_take(&b);
    *len = *out ? strlen(*out) : 0;
    return *out ? SRL_OK : SRL_ENOMEM;
}

int srl_sweep_journal_record(const srl_sweep_record *rec, char **out, size_t *len)
{
    sbuf b = {0};
    uint64_t h = record_hash(rec->run, rec->rows, rec->rows_len, rec->summary, rec->summary_len);
    sb_printf(&b, "@run %zu rows %zu summary %zu fnv %016" PRIx64 "\n", rec->run, rec->rows_len,
              rec->summary_len, h);
    sb_put(&b, rec->rows, rec->rows_len);
    sb_put(&b, rec->summary, rec->summary_len);
    *out = sb_take(&b);
    *len = b.len;
    return *out ? SRL_OK : SRL_ENOMEM;
}

void srl_sweep_journal_free(srl_sweep_journal *j)
{
    if (!j)
        return;
    free(j->preamble);
    free(j->rows_header);
    free(j->summary_header);
    free(j->entries);
    memset(j, 0, sizeof *j);
}

/* The line at *pos (without '\n'); false when no complete line is left. */
static bool next_line(const char *t, size_t len, size_t *pos, const char **line, size_t *ll)
{
    if (*pos >= len)
        return false;
    const char *nl = memchr(t + *pos, '\n', len - *pos);
    if (!nl)
        return false;
    *line = t + *pos;
    *ll = (size_t)(nl - (t + *pos));
    *pos += *ll + 1;
    return true;
}

/* "@run R rows A summary B fnv H" */
static bool parse_record_line(const char *l, size_t n, size_t *run, size_t *ra, size_t *sa,
                              uint64_t *h)
{
    char buf[160];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, l, n);
    buf[n] = 0;
    char hex[17];
    unsigned long long r, a, b;
    int used = 0;
    if (sscanf(buf, "@run %llu rows %llu summary %llu fnv %16[0-9a-f]%n", &r, &a, &b, hex,
               &used) != 4 || (size_t)used != n || strlen(hex) != 16)
        return false;
    char canon[160];
    snprintf(canon, sizeof canon, "@run %llu rows %llu summary %llu fnv %s", r, a, b, hex);
    if (strcmp(canon, buf))
        return false; /* leading zeros, signs, spaces: not a line this code wrote */
    *run = (size_t)r;
    *ra = (size_t)a;
    *sa = (size_t)b;
    *h = strtoull(hex, NULL, 16);
    return true;
}

int srl_sweep_journal_parse(const char *text, size_t len, srl_sweep_journal *j, srl_err *err)
{
    memset(j, 0, sizeof *j);
    size_t ml = strlen(JOURNAL_MAGIC);
    if (len < ml) {
        if (memcmp(text, JOURNAL_MAGIC, len))
            return srl_err_set(err, SRL_EPARSE, "not a srlab sweep journal");
        return SRL_OK; /* torn while its header was written */
    }
    if (memcmp(text, JOURNAL_MAGIC, ml))
        return srl_err_set(err, SRL_EPARSE, "not a srlab sweep journal");
    size_t pos = ml;
    const char *l;
    size_t ll;
    size_t pre0 = pos, pre1 = pos;
    while (next_line(text, len, &pos, &l, &ll) && ll && l[0] == '#')
        pre1 = pos;
    if (pos == pre1)
        return SRL_OK; /* torn header */
    /* l is the rows header. */
    const char *rh = l;
    size_t rhl = ll;
    const char *sh;
    size_t shl;
    if (!next_line(text, len, &pos, &sh, &shl))
        return SRL_OK;
    const char *be;
    size_t bel;
    if (!next_line(text, len, &pos, &be, &bel))
        return SRL_OK;
    if (bel != 6 || memcmp(be, "@begin", 6))
        return srl_err_set(err, SRL_EPARSE, "a sweep journal with a damaged header");
    j->preamble = dupn(text + pre0, pre1 - pre0);
    j->rows_header = dupn(rh, rhl);
    j->summary_header = dupn(sh, shl);
    if (!j->preamble || !j->rows_header || !j->summary_header) {
        srl_sweep_journal_free(j);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    j->complete_header = true;
    j->good_len = pos;
    size_t cap = 0;
    for (;;) {
        size_t run, ra, sa;
        uint64_t h;
        if (!next_line(text, len, &pos, &l, &ll) || !parse_record_line(l, ll, &run, &ra, &sa, &h))
            break;
        if (ra > len - pos || sa > len - pos - ra)
            break;
        if (record_hash(run, text + pos, ra, text + pos + ra, sa) != h)
            break;
        bool dupl = false;
        for (size_t k = 0; k < j->nentries && !dupl; k++)
            dupl = j->entries[k].run == run;
        if (!dupl) {
            if (j->nentries == cap) {
                cap = cap ? 2 * cap : 64;
                srl_sweep_journal_entry *e = realloc(j->entries, cap * sizeof *e);
                if (!e) {
                    srl_sweep_journal_free(j);
                    return srl_err_set(err, SRL_ENOMEM, "out of memory");
                }
                j->entries = e;
            }
            srl_sweep_journal_entry *e = &j->entries[j->nentries++];
            e->run = run;
            e->rows_off = pos;
            e->rows_len = ra;
            e->summary_off = pos + ra;
            e->summary_len = sa;
        }
        pos += ra + sa;
        j->good_len = pos;
    }
    return SRL_OK;
}

/* The i-th line (0-based) of a preamble that is not a `# date:` line. */
static bool pre_line(const char *p, size_t want, const char **line, size_t *ll, size_t *lineno)
{
    size_t k = 0, no = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        no++;
        if (!(n >= 7 && !memcmp(p, "# date:", 7))) {
            if (k == want) {
                *line = p;
                *ll = n;
                *lineno = no;
                return true;
            }
            k++;
        }
        p += n + (nl ? 1 : 0);
    }
    return false;
}

size_t srl_sweep_preamble_diff(const char *pa, const char *pb, char *a, size_t alen, char *b,
                               size_t blen)
{
    for (size_t i = 0;; i++) {
        const char *la = NULL, *lb = NULL;
        size_t na = 0, nb = 0, noa = 0, nob = 0;
        bool ha = pre_line(pa, i, &la, &na, &noa), hb = pre_line(pb, i, &lb, &nb, &nob);
        if (!ha && !hb)
            return 0;
        if (ha && hb && na == nb && !memcmp(la, lb, na))
            continue;
        snprintf(a, alen, "%.*s", ha ? (int)na : 9, ha ? la : "(missing)");
        snprintf(b, blen, "%.*s", hb ? (int)nb : 9, hb ? lb : "(missing)");
        return ha ? noa : nob;
    }
}

/* ---- merge ---- */

typedef struct mfile {
    const srl_sweep_text *t;
    size_t pre_end;  /* end of the '#' lines */
    size_t body;     /* start of the first data line (after the column line) */
    const char *cols;
    size_t cols_len;
    size_t shard_i, shard_n;
    const char *date;
    size_t date_len;
    char *pre; /* the preamble without the shard line */
} mfile;

typedef struct block {
    size_t run;
    const char *p;
    size_t n;
} block;

static int block_cmp(const void *a, const void *b)
{
    size_t x = ((const block *)a)->run, y = ((const block *)b)->run;
    return x < y ? -1 : x > y;
}

/* Leading "RUN," of a data line. */
static bool line_run(const char *l, size_t n, size_t *run)
{
    size_t i = 0, v = 0;
    while (i < n && i < 19 && isdigit((unsigned char)l[i]))
        v = 10 * v + (size_t)(l[i++] - '0');
    if (i == 0 || i >= n || l[i] != ',')
        return false;
    *run = v;
    return true;
}

int srl_sweep_merge(const srl_sweep_text *files, size_t n, bool summary, char **out,
                    size_t *len, srl_err *err)
{
    *out = NULL;
    *len = 0;
    if (n == 0)
        return srl_err_set(err, SRL_EINVAL, "no files to merge");
    mfile *f = calloc(n, sizeof *f);
    block *blocks = NULL;
    size_t nb = 0, cap = 0;
    bool *seen = NULL;
    int st = SRL_OK;
    sbuf o = {0};
    if (!f)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !st; i++) {
        const srl_sweep_text *t = &files[i];
        mfile *m = &f[i];
        m->t = t;
        size_t pos = 0;
        const char *l = NULL;
        size_t ll = 0;
        bool have_shard = false;
        sbuf pre = {0};
        while (next_line(t->data, t->len, &pos, &l, &ll) && ll && l[0] == '#') {
            m->pre_end = pos;
            if (ll >= 9 && !memcmp(l, "# shard: ", 9)) {
                char tmp[64];
                size_t k = 0;
                while (9 + k < ll && k < sizeof tmp - 1 && l[9 + k] != ' ')
                    tmp[k] = l[9 + k], k++;
                tmp[k] = 0;
                srl_err e2;
                if (srl_sweep_parse_shard(tmp, &m->shard_i, &m->shard_n, &e2)) {
                    st = srl_err_set(err, SRL_EPARSE, "%s: a damaged '# shard:' line", t->name);
                    break;
                }
                have_shard = true;
                continue;
            }
            if (ll >= 8 && !memcmp(l, "# date: ", 8)) {
                m->date = l + 8;
                m->date_len = ll - 8;
            }
            sb_put(&pre, l, ll);
            sb_putc(&pre, '\n');
        }
        m->pre = sb_take(&pre);
        if (st)
            break;
        if (!m->pre) {
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
            break;
        }
        if (m->pre_end == 0 || !l || l[0] == '#' || ll == 0) {
            st = srl_err_set(err, SRL_EPARSE, "%s: not a srlab sweep file (no '#' lines and "
                             "column line)", t->name);
            break;
        }
        if (!have_shard) {
            st = srl_err_set(err, SRL_EINVAL, "%s: not a shard (no '# shard: I/N' line); "
                             "merge joins the outputs of srlab sweep --shard I/N", t->name);
            break;
        }
        m->cols = l;
        m->cols_len = ll;
        m->body = pos;
    }
    for (size_t i = 1; i < n && !st; i++) {
        char la[200], lb[200];
        size_t no = srl_sweep_preamble_diff(f[0].pre, f[i].pre, la, sizeof la, lb, sizeof lb);
        if (no)
            st = srl_err_set(err, SRL_EINVAL,
                             "%s and %s are not shards of one sweep: '%s' differs from '%s'",
                             files[i].name, files[0].name, lb, la);
        else if (f[i].cols_len != f[0].cols_len || memcmp(f[i].cols, f[0].cols, f[0].cols_len))
            st = srl_err_set(err, SRL_EINVAL,
                             "%s and %s are not shards of one sweep: their column lines differ",
                             files[i].name, files[0].name);
        else if (f[i].shard_n != f[0].shard_n)
            st = srl_err_set(err, SRL_EINVAL, "%s is shard %zu/%zu but %s is shard %zu/%zu",
                             files[i].name, f[i].shard_i, f[i].shard_n, files[0].name,
                             f[0].shard_i, f[0].shard_n);
    }
    size_t N = f[0].shard_n;
    if (!st) {
        seen = calloc(N, sizeof *seen);
        size_t *who = calloc(N, sizeof *who);
        if (!seen || !who)
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        for (size_t i = 0; i < n && !st; i++) {
            if (seen[f[i].shard_i])
                st = srl_err_set(err, SRL_EINVAL, "%s and %s are both shard %zu/%zu",
                                 files[who[f[i].shard_i]].name, files[i].name, f[i].shard_i, N);
            seen[f[i].shard_i] = true;
            who[f[i].shard_i] = i;
        }
        for (size_t k = 0; k < N && !st; k++)
            if (!seen[k])
                st = srl_err_set(err, SRL_EINVAL, "shard %zu/%zu is missing", k, N);
        free(who);
    }
    /* Runs and seeds from "# runs: R (P grid points x S seeds)". */
    size_t R = 0, S = 0;
    if (!st) {
        const char *p = strstr(f[0].pre, "# runs: ");
        unsigned long long r, pp, ss;
        if (!p || sscanf(p, "# runs: %llu (%llu grid points x %llu seeds)", &r, &pp, &ss) != 3 ||
            ss == 0 || r != pp * ss)
            st = srl_err_set(err, SRL_EPARSE, "%s: no valid '# runs:' line", files[0].name);
        R = (size_t)r;
        S = (size_t)ss;
    }
    /* The data: blocks of consecutive lines of one run. */
    for (size_t i = 0; i < n && !st; i++) {
        const srl_sweep_text *t = &files[i];
        size_t pos = f[i].body, last = SIZE_MAX;
        const char *l;
        size_t ll;
        size_t lineno = 0;
        while (!st && next_line(t->data, t->len, &pos, &l, &ll)) {
            lineno++;
            size_t run;
            if (!line_run(l, ll, &run)) {
                st = srl_err_set(err, SRL_EPARSE, "%s: data line %zu does not start with a run "
                                 "number", t->name, lineno);
                break;
            }
            if (run >= R || run % N != f[i].shard_i || (last != SIZE_MAX && run < last) ||
                (summary && run == last)) {
                st = srl_err_set(err, SRL_EPARSE, "%s: data line %zu: run %zu is out of place "
                                 "in shard %zu/%zu of %zu runs", t->name, lineno, run,
                                 f[i].shard_i, N, R);
                break;
            }
            if (run == last) {
                blocks[nb - 1].n += ll + 1;
                continue;
            }
            if (nb == cap) {
                cap = cap ? 2 * cap : 256;
                block *bb = realloc(blocks, cap * sizeof *bb);
                if (!bb) {
                    st = srl_err_set(err, SRL_ENOMEM, "out of memory");
                    break;
                }
                blocks = bb;
            }
            blocks[nb].run = run;
            blocks[nb].p = l;
            blocks[nb].n = ll + 1;
            nb++;
            last = run;
        }
        if (!st && pos < t->len)
            st = srl_err_set(err, SRL_EPARSE, "%s: the last line is cut (no newline)", t->name);
    }
    if (!st && summary && nb != R)
        st = srl_err_set(err, SRL_EINVAL, "the summaries hold %zu of the sweep's %zu runs", nb, R);
    if (!st) {
        qsort(blocks, nb, sizeof *blocks, block_cmp);
        /* The preamble with the earliest date and no shard line. */
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (f[i].date && f[best].date &&
                (f[i].date_len < f[best].date_len ||
                 (f[i].date_len == f[best].date_len &&
                  memcmp(f[i].date, f[best].date, f[i].date_len) < 0)))
                best = i;
        sb_puts(&o, f[best].pre);
        sb_put(&o, f[0].cols, f[0].cols_len);
        sb_putc(&o, '\n');
    }
    if (!st && !summary) {
        for (size_t k = 0; k < nb; k++)
            sb_put(&o, blocks[k].p, blocks[k].n);
    } else if (!st) {
        char *hdr = dupn(f[0].cols, f[0].cols_len);
        size_t K = hdr ? srl_sweep_stats_count(hdr) : 0;
        const char **lines = malloc((S + 1) * sizeof *lines);
        size_t *lens = malloc((S + 1) * sizeof *lens);
        if (!hdr || !lines || !lens)
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        for (size_t p = 0; p * S < nb && !st; p++) {
            for (size_t k = 0; k < S; k++) {
                const block *bl = &blocks[p * S + k];
                /* Drop the shard's (empty) statistics: the last K fields. */
                size_t m = bl->n - 1, commas = 0;
                while (m > 0 && commas < K) {
                    m--;
                    if (bl->p[m] == ',')
                        commas++;
                }
                if (commas < K) {
                    st = srl_err_set(err, SRL_EPARSE, "a summary line of run %zu is too short",
                                     bl->run);
                    break;
                }
                lines[k] = bl->p;
                lens[k] = K ? m : bl->n - 1;
            }
            if (!st)
                st = srl_sweep_summary_point(hdr, lines, lens, S, false, &o.p, &o.len, &o.cap,
                                             err);
        }
        free(hdr);
        free(lines);
        free(lens);
    }
    if (!st && o.oom)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    if (!st) {
        *out = o.p ? o.p : calloc(1, 1);
        *len = o.len;
        o.p = NULL;
    }
    free(o.p);
    for (size_t i = 0; i < n; i++)
        free(f[i].pre);
    free(f);
    free(blocks);
    free(seen);
    return st;
}
