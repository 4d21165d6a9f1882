/* src/sweep/text.c: the text the sweep files build (src/sweep/sweep_impl.h): growable text, CSV
 * fields, shell words, numbers written with 17 digits and read with the library's one strict
 * parser (srlab/number.h), and lines of a text. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/number.h"
#include "sweep/sweep_impl.h"

void srl__sw_put(srl__sw_text *b, const char *s, size_t n)
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

void srl__sw_puts(srl__sw_text *b, const char *s)
{
    srl__sw_put(b, s, strlen(s));
}

void srl__sw_putc(srl__sw_text *b, char c)
{
    srl__sw_put(b, &c, 1);
}

void srl__sw_printf(srl__sw_text *b, const char *fmt, ...)
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
        srl__sw_put(b, tmp, (size_t)n);
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
    srl__sw_put(b, big, (size_t)n);
    free(big);
}

/* s as fn writes it (srl_csv_field, srl_shell_word: at most len bytes, returning the whole
 * length): through a small buffer, or one of the right size. */
static void put_written(srl__sw_text *b, size_t (*fn)(char *, size_t, const char *), const char *s)
{
    char small[256];
    const size_t n = fn(small, sizeof small, s);
    char *big = n < sizeof small ? NULL : malloc(n + 1);
    if (n >= sizeof small && !big) {
        b->oom = true;
        return;
    }
    if (big)
        fn(big, n + 1, s);
    srl__sw_put(b, big ? big : small, n);
    free(big);
}

void srl__sw_put_csv(srl__sw_text *b, const char *s)
{
    put_written(b, srl_csv_field, s);
}

void srl__sw_put_shell(srl__sw_text *b, const char *s)
{
    put_written(b, srl_shell_word, s);
}

char *srl__sw_take(srl__sw_text *b)
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

char *srl__sw_dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

char *srl__sw_dup(const char *s)
{
    return srl__sw_dupn(s, strlen(s));
}

void srl__sw_fmt_num(char buf[SRL__SW_NUM_LEN], double x)
{
    snprintf(buf, SRL__SW_NUM_LEN, "%.17g", x);
}

bool srl__sw_number(const char *s, size_t n, double *out)
{
    if (n > 200)
        return false;
    char tmp[256], why[SRL_NUMBER_WHY_LEN];
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return srl_number_double(out, tmp, SRL_NUMBER_FINITE, why) == SRL_OK;
}

bool srl__sw_next_line(const char *t, size_t len, size_t *pos, const char **line, size_t *ll)
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

bool srl__sw_set_line(const char *l, size_t ll)
{
    const size_t n = sizeof SRL_SWEEP_SET_LINE - 1;
    return ll >= n && !memcmp(l, SRL_SWEEP_SET_LINE, n);
}

void srl__sw_put_pre(srl__sw_text *o, const char *t, size_t pre_end)
{
    size_t pos = 0, ll;
    const char *l;
    while (srl__sw_next_line(t, pre_end, &pos, &l, &ll))
        if (!srl__sw_set_line(l, ll)) {
            srl__sw_put(o, l, ll);
            srl__sw_putc(o, '\n');
        }
}

/* Field offsets of one CSV line (without its newline): starts[k] = start, ends[k] = end (the
 * raw text, quotes included). Returns the number of fields (at most max), or SIZE_MAX when
 * malformed. */
size_t srl__sw_csv_split(const char *p, size_t n, size_t *starts, size_t *ends, size_t max)
{
    size_t k = 0, i = 0;
    for (;;) {
        if (k == max)
            return SRL__SW_CSV_MANY;
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

int srl__sw_check_text(const srl_sweep_text *t, srl_err *err)
{
    const char *nul = memchr(t->data, 0, t->len), *cr = memchr(t->data, '\r', t->len);
    const char *bad = nul && (!cr || nul < cr) ? nul : cr;
    if (!bad)
        return SRL_OK;
    size_t line = srl__sw_count_lines(t->data, (size_t)(bad - t->data)) + 1;
    if (bad == nul)
        return srl_err_set(err, SRL_EPARSE, "%s: line %zu holds a NUL byte: srlab's files are "
                           "text (a damaged or foreign file)", t->name, line);
    if (bad + 1 < t->data + t->len && bad[1] == '\n')
        return srl_err_set(err, SRL_EPARSE, "%s: line %zu ends in CR LF (Windows line endings, "
                           "from a copy that converted them?): srlab ends its lines with LF "
                           "alone; convert the file back (dos2unix)", t->name, line);
    return srl_err_set(err, SRL_EPARSE, "%s: line %zu holds a carriage return (CR) that ends "
                       "no line: not a file srlab wrote", t->name, line);
}

const char *srl__sw_fields_why(char buf[160], size_t k, size_t want)
{
    if (k == SRL__SW_CSV_BAD)
        snprintf(buf, 160, "is not a CSV line (a quote that does not close, or text after a "
                 "closing quote)");
    else if (k == SRL__SW_CSV_MANY)
        snprintf(buf, 160, "has more fields than the %zu of the column line", want);
    else
        snprintf(buf, 160, "has %zu field%s where the column line has %zu", k, k == 1 ? "" : "s",
                 want);
    return buf;
}

size_t srl__sw_count_lines(const char *t, size_t n)
{
    size_t k = 0;
    for (const char *e = t + n; (t = memchr(t, '\n', (size_t)(e - t))); t++)
        k++;
    return k;
}

bool srl__sw_runs_line(const char *p, unsigned long long *R, unsigned long long *P,
                       unsigned long long *S)
{
    return sscanf(p, "# runs: %llu (%llu grid points x %llu seeds)", R, P, S) == 3 && *S != 0 &&
           *P != 0 && *R % *S == 0 && *R / *S == *P;
}

int srl__sw_whole_runs(const char *t, size_t n, const char *name, unsigned long long most,
                       unsigned long long *R, unsigned long long *P, unsigned long long *S,
                       srl_err *err)
{
    size_t pos = 0, ll;
    const char *l;
    bool shard = false, found = false;
    *R = *P = *S = 0;
    while (srl__sw_next_line(t, n, &pos, &l, &ll)) {
        char buf[120];
        snprintf(buf, sizeof buf, "%.*s", (int)(ll < 119 ? ll : 119), l);
        if (!strncmp(buf, "# runs: ", 8))
            found = srl__sw_runs_line(buf, R, P, S);
        shard |= !strncmp(buf, "# shard: ", 9);
    }
    if (shard)
        return srl_err_set(err, SRL_EINVAL, "%s: the runs of one shard: merge the shards first "
                           "(srlab merge)", name);
    if (!found || *R > most)
        return srl_err_set(err, SRL_EPARSE, "%s: no valid '# runs:' line", name);
    return SRL_OK;
}
