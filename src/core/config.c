/* src/core/config.c: configs (ordered key=value text pairs) and their typed reads
 * (include/srlab/config.h). */
#include "srlab/config.h"
#include "srlab/number.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct srl_config {
    size_t n, cap;
    char **key, **val;
};

srl_config *srl_config_new(void)
{
    return calloc(1, sizeof(srl_config));
}

void srl_config_free(srl_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->key[i]);
        free(c->val[i]);
    }
    free(c->key);
    free(c->val);
    free(c);
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static long find(const srl_config *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->key[i], key) == 0)
            return (long)i;
    return -1;
}

int srl_config_set(srl_config *c, const char *key, const char *value)
{
    if (!c || !key || !*key || !value)
        return SRL_EINVAL;
    char *v = dupstr(value);
    if (!v)
        return SRL_ENOMEM;
    long i = find(c, key);
    if (i >= 0) {
        free(c->val[i]);
        c->val[i] = v;
        return SRL_OK;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        char **k2 = realloc(c->key, cap * sizeof *k2);
        if (!k2)
            return free(v), SRL_ENOMEM;
        c->key = k2;
        char **v2 = realloc(c->val, cap * sizeof *v2);
        if (!v2)
            return free(v), SRL_ENOMEM;
        c->val = v2;
        c->cap = cap;
    }
    char *k = dupstr(key);
    if (!k)
        return free(v), SRL_ENOMEM;
    c->key[c->n] = k;
    c->val[c->n] = v;
    c->n++;
    return SRL_OK;
}

int srl_config_unset(srl_config *c, const char *key)
{
    long i = find(c, key);
    if (i < 0)
        return SRL_OK;
    free(c->key[i]);
    free(c->val[i]);
    memmove(c->key + i, c->key + i + 1, (c->n - (size_t)i - 1) * sizeof *c->key);
    memmove(c->val + i, c->val + i + 1, (c->n - (size_t)i - 1) * sizeof *c->val);
    c->n--;
    return SRL_OK;
}

srl_config *srl_config_dup(const srl_config *c)
{
    srl_config *d = srl_config_new();
    if (!d)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (srl_config_set(d, c->key[i], c->val[i]) != SRL_OK) {
            srl_config_free(d);
            return NULL;
        }
    return d;
}

const char *srl_config_get(const srl_config *c, const char *key)
{
    long i = find(c, key);
    return i < 0 ? NULL : c->val[i];
}

size_t srl_config_size(const srl_config *c)
{
    return c->n;
}

const char *srl_config_key(const srl_config *c, size_t i)
{
    return i < c->n ? c->key[i] : NULL;
}

const char *srl_config_value(const srl_config *c, size_t i)
{
    return i < c->n ? c->val[i] : NULL;
}

/* The text for key: its value, or the default; an error when both are absent. */
static int text_of(const srl_config *c, const char *key, const char *def, const char **out,
                   srl_err *err)
{
    const char *v = srl_config_get(c, key);
    if (!v)
        v = def;
    if (!v)
        return srl_err_set(err, SRL_EINVAL, "%s: a value is required", key);
    *out = v;
    return SRL_OK;
}

int srl_config_double(const srl_config *c, const char *key, const char *def, double *out,
                      srl_err *err)
{
    const char *v = NULL;
    char why[SRL_NUMBER_WHY_LEN];
    int st = text_of(c, key, def, &v, err);
    if (st)
        return st;
    if ((st = srl_number_double(out, v, SRL_NUMBER_NO_OVERFLOW, why)))
        return srl_err_set(err, st, "%s: '%s' %s", key, v, why);
    return SRL_OK;
}

int srl_config_long(const srl_config *c, const char *key, const char *def, long *out,
                    srl_err *err)
{
    const char *v = NULL;
    char why[SRL_NUMBER_WHY_LEN];
    long long x;
    int st = text_of(c, key, def, &v, err);
    if (st)
        return st;
    if ((st = srl_number_i64(&x, v, LONG_MIN, LONG_MAX, why)))
        return srl_err_set(err, st, "%s: '%s' %s", key, v, why);
    *out = (long)x;
    return SRL_OK;
}

int srl_config_u64(const srl_config *c, const char *key, const char *def, uint64_t *out,
                   srl_err *err)
{
    const char *v = NULL;
    char why[SRL_NUMBER_WHY_LEN];
    int st = text_of(c, key, def, &v, err);
    if (st)
        return st;
    if ((st = srl_number_u64(out, v, 0, UINT64_MAX, why)))
        return srl_err_set(err, st, "%s: '%s' %s", key, v, why);
    return SRL_OK;
}

int srl_config_bool(const srl_config *c, const char *key, const char *def, bool *out,
                    srl_err *err)
{
    const char *v = NULL;
    int st = text_of(c, key, def, &v, err);
    if (st)
        return st;
    static const char *const yes[] = {"on", "true", "1", "yes"};
    static const char *const no[] = {"off", "false", "0", "no"};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(v, yes[i]))
            return *out = true, SRL_OK;
        if (!strcmp(v, no[i]))
            return *out = false, SRL_OK;
    }
    return srl_err_set(err, SRL_EPARSE, "%s: '%s' is not on/off", key, v);
}

/* A value parsed by `parse` (a format or a rounding mode), its message prefixed by the key. */
static int parsed(const srl_config *c, const char *key, const char *def, void *out,
                  int (*parse)(void *out, const char *text, srl_err *err), srl_err *err)
{
    const char *v = NULL;
    int st = text_of(c, key, def, &v, err);
    if (st)
        return st;
    srl_err e2;
    if ((st = parse(out, v, &e2)))
        return srl_err_set(err, st, "%s: %s", key, e2.msg);
    return SRL_OK;
}

static int parse_format(void *out, const char *text, srl_err *err)
{
    return srl_format_parse(out, text, err);
}

static int parse_rounding(void *out, const char *text, srl_err *err)
{
    return srl_rounding_parse(out, text, err);
}

int srl_config_format(const srl_config *c, const char *key, const char *def, srl_format *out,
                      srl_err *err)
{
    return parsed(c, key, def, out, parse_format, err);
}

int srl_config_rounding(const srl_config *c, const char *key, const char *def,
                        srl_rounding *out, srl_err *err)
{
    return parsed(c, key, def, out, parse_rounding, err);
}

int srl_config_choice(const srl_config *c, const char *key, const char *def,
                      const char *const *choices, int *out, srl_err *err)
{
    const char *v = NULL;
    int st = text_of(c, key, def, &v, err);
    if (st)
        return st;
    for (int i = 0; choices[i]; i++)
        if (!strcmp(v, choices[i]))
            return *out = i, SRL_OK;
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; choices[i] && used + 2 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 choices[i]);
    return srl_err_set(err, SRL_EPARSE, "%s: unknown value '%s' (known: %s)", key, v, list);
}

/* ---- one name per value ---- */

static bool key_is(const char *key, const char *what)
{
    size_t k = strlen(key), w = strlen(what);
    return !strcmp(key, what) || (k > w + 1 && key[k - w - 1] == '-' && !strcmp(key + k - w, what));
}

bool srl_config_is_format_key(const char *key)
{
    return key_is(key, "format");
}

bool srl_config_is_rounding_key(const char *key)
{
    return key_is(key, "rounding");
}

const char *srl_config_canonical(char *buf, size_t len, const char *key, const char *value)
{
    srl_format f;
    srl_rounding m;
    if (srl_config_is_format_key(key) && srl_format_parse(&f, value, NULL) == SRL_OK &&
        strlen(f.name) < len) {
        memcpy(buf, f.name, strlen(f.name) + 1);
        return buf;
    }
    if (srl_config_is_rounding_key(key) && srl_rounding_parse(&m, value, NULL) == SRL_OK) {
        char name[32];
        srl_rounding_name(name, sizeof name, m);
        if (strlen(name) < len) {
            memcpy(buf, name, strlen(name) + 1);
            return buf;
        }
    }
    return value;
}
