/* src/sweep/grid.c: a sweep from its settings (include/srlab/sweep.h, "Settings" and "Order"):
 * the sweep's own keys, the axes in canonical order checked against every problem, the seeds,
 * the zip groups and the dimensions they make, the axis columns, the canonical command; then
 * what a run is: its value of every axis, its runner and its config.
 *
 * Runs are numbered in the nesting of the dimensions (the first outermost) and then the seeds:
 * run = point * nseeds + seed index, point = the mixed-radix number of the dimension indices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/number.h"
#include "sweep/sweep_impl.h"

static const char *const core_keys[] = {"problem", "opt", "strategy", "format", "rounding", "lr"};
#define NCORE (sizeof core_keys / sizeof core_keys[0])

static int oom(srl_err *err)
{
    return srl_err_set(err, SRL_ENOMEM, "out of memory");
}

static const char *origin_of(const srl_sweep_setting *t)
{
    return t->origin ? t->origin : t->key;
}

static const char *command_name(srl_run_kind kind)
{
    return kind == SRL_RUN_TRAIN ? "srlab train" : "srlab run";
}

static void axis_free(srl__sw_axis *a)
{
    free(a->key);
    free(a->origin);
    free(a->canon);
    srl__sw_strings_free(a->val, a->nval);
    srl__sw_strings_free(a->orig, a->nval);
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
    srl__sw_strings_free(s->seeds, s->nseeds);
    for (size_t c = 0; c < s->ncols; c++)
        free(s->cols[c].name);
    free(s->cols);
    free(s->command);
    free(s->seeds_text);
    srl__sw_strings_free(s->res_fmt, s->nres);
    srl__sw_strings_free(s->res_rnd, s->nres);
    srl__sw_strings_free(s->res_str, s->nres);
    free(s->rdims);
    free(s->warnings);
    for (size_t m = 0; m < s->nmet; m++)
        free(s->met[m]);
    free(s->met);
    free(s->metk);
    free(s->rows_header);
    free(s->runs_header);
    free(s);
}

/* ---- runners and keys ---- */

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

static void known_problems(srl__sw_text *b, const srl_runner *const *runners, srl_run_kind kind)
{
    size_t k = 0;
    if (runners) {
        for (; *runners; runners++)
            if ((*runners)->kind == kind)
                srl__sw_printf(b, "%s%s", k++ ? ", " : "", (*runners)->name);
    } else {
        for (size_t i = 0; i < srl_runner_count(); i++)
            if (srl_runner_at(i)->kind == kind)
                srl__sw_printf(b, "%s%s", k++ ? ", " : "", srl_runner_at(i)->name);
    }
    if (!k)
        srl__sw_puts(b, "none registered yet");
}

static void known_keys(srl__sw_text *b, const srl_runner *r)
{
    size_t k = 0;
    for (const srl_param *p = srl_runner_common_params(r->kind); p && p->key; p++)
        srl__sw_printf(b, "%s%s", k++ ? ", " : "", p->key);
    for (const srl_param *p = r->params; p && p->key; p++)
        srl__sw_printf(b, "%s%s", k++ ? ", " : "", p->key);
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

static bool is_core_key(const char *key)
{
    for (size_t c = 0; c < NCORE; c++)
        if (!strcmp(key, core_keys[c]))
            return true;
    return false;
}

/* ---- distinct runs ---- */

/* Comparison of two values of an axis: numbers by value (before text), text by bytes. */
static int value_cmp(const char *a, const char *b)
{
    double x, y;
    bool nx = srl__sw_number(a, strlen(a), &x), ny = srl__sw_number(b, strlen(b), &y);
    if (nx && ny)
        return x < y ? -1 : x > y ? 1 : 0;
    if (nx != ny)
        return nx ? -1 : 1;
    return strcmp(a, b);
}

static const srl_sweep *sort_sweep; /* qsort has no context argument; guarded by a critical */
static const srl__sw_dim *sort_d;

static int tuple_cmp(const void *pa, const void *pb)
{
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    for (size_t k = 0; k < sort_d->nax; k++) {
        const srl__sw_axis *a = &sort_sweep->ax[sort_d->ax[k]];
        int c = value_cmp(a->val[i], a->val[j]);
        if (c)
            return c;
    }
    return 0;
}

/* Two equal tuples in a dimension make two runs the same run: refuse. */
static int check_distinct(const srl_sweep *s, const srl__sw_dim *d, srl_err *err)
{
    size_t *idx = malloc(d->len * sizeof *idx);
    if (!idx)
        return oom(err);
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
                const srl__sw_axis *a = &s->ax[d->ax[0]];
                const char *vi = a->orig && a->orig[i] ? a->orig[i] : a->val[i];
                const char *vj = a->orig && a->orig[j] ? a->orig[j] : a->val[j];
                if (d->nax == 1 && a->orig && (a->orig[i] || a->orig[j]) && strcmp(vi, vj))
                    st = srl_err_set(err, SRL_EINVAL,
                                     "%s: '%s' and '%s' are one %s, %s: give it once (each run "
                                     "must differ)", a->origin, vi, vj,
                                     srl_config_is_format_key(a->key) ? "format" : "mode",
                                     a->val[i]);
                else if (d->nax == 1)
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

/* ---- building a sweep, phase by phase ---- */

/* What srl_sweep_new carries between its phases. */
typedef struct build {
    srl_sweep *s;
    const srl_sweep_setting *set;
    size_t n;
    const srl_runner *const *runners;
    const srl_sweep_setting *t_seeds, *t_seed, *t_problem, *t_target;
    long *zipgroup; /* per axis: its zip group, or -1 */
    long ngroups;
} build;

static bool is_sweep_key(const char *k)
{
    return !strcmp(k, "command") || !strcmp(k, "seeds") || !strcmp(k, "zip") ||
           !strcmp(k, "target");
}

/* Each key once (zip excepted); the sweep's own keys: command, target, and where seeds, seed
 * and problem are set. */
static int read_sweep_keys(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    s->kind = SRL_RUN_TRAIN;
    for (size_t i = 0; i < g->n; i++) {
        const srl_sweep_setting *t = &g->set[i];
        if (!t->key || !*t->key || !t->value)
            return srl_err_set(err, SRL_EINVAL, "a setting without a key or a value");
        if (strcmp(t->key, "zip"))
            for (size_t j = 0; j < i; j++)
                if (!strcmp(g->set[j].key, t->key))
                    return srl_err_set(err, SRL_EINVAL, "%s: '%s' is already set (%s)",
                                       origin_of(t), t->key, origin_of(&g->set[j]));
        if (!strcmp(t->key, "command")) {
            if (!strcmp(t->value, "train"))
                s->kind = SRL_RUN_TRAIN;
            else if (!strcmp(t->value, "run"))
                s->kind = SRL_RUN_EXPERIMENT;
            else
                return srl_err_set(err, SRL_EPARSE, "%s: '%s' is not a command (train or run)",
                                   origin_of(t), t->value);
        } else if (!strcmp(t->key, "target")) {
            if (!srl__sw_number(t->value, strlen(t->value), &s->target) || !(s->target >= 0))
                return srl_err_set(err, SRL_EPARSE,
                                   "%s: '%s' is not a loss gap target (a number >= 0)",
                                   origin_of(t), t->value);
            s->has_target = true;
            g->t_target = t;
        } else if (!strcmp(t->key, "seeds")) {
            g->t_seeds = t;
        } else if (!strcmp(t->key, "seed")) {
            g->t_seed = t;
        } else if (!strcmp(t->key, "problem")) {
            g->t_problem = t;
        }
    }
    if (!g->t_problem) {
        srl__sw_text b = {0};
        known_problems(&b, g->runners, s->kind);
        int st = srl_err_set(err, SRL_EINVAL,
                             "no problem given: problem = NAME[,NAME...] (%s: %s)",
                             command_name(s->kind), b.p ? b.p : "");
        free(b.p);
        return st;
    }
    if (g->t_seeds && g->t_seed)
        return srl_err_set(err, SRL_EINVAL,
                           "%s and %s contradict each other: give a number of seeds or a list",
                           origin_of(g->t_seeds), origin_of(g->t_seed));
    return SRL_OK;
}

/* A format or rounding axis under one name per value (srl_config_canonical): "bfloat16",
 * "[p=8,emax=127]" and "bf16" are one format, so outputs show "bf16" and a grid giving two of them
 * gives one run twice (refused, naming both spellings: check_distinct); the canonical command's
 * text is rebuilt from the names (bracketed when they hold a comma). */
static int canonical_values(srl__sw_axis *a, srl_err *err)
{
    if (!srl_config_is_format_key(a->key) && !srl_config_is_rounding_key(a->key))
        return SRL_OK;
    srl__sw_text c = {0};
    for (size_t i = 0; i < a->nval; i++) {
        char buf[SRL_FORMAT_NAME_LEN];
        const char *v = srl_config_canonical(buf, sizeof buf, a->key, a->val[i]);
        if (v != a->val[i] && strcmp(v, a->val[i])) {
            if (!a->orig && !(a->orig = calloc(a->nval, sizeof *a->orig)))
                return oom(err);
            char *nv = srl__sw_dup(v);
            if (!nv)
                return oom(err);
            a->orig[i] = a->val[i];
            a->val[i] = nv;
        }
        bool comma = strchr(a->val[i], ',') != NULL;
        srl__sw_printf(&c, "%s%s%s%s", i ? "," : "", comma ? "[" : "", a->val[i],
                       comma ? "]" : "");
    }
    if (!a->orig) { /* every value is already its one name: the text as written */
        free(c.p);
        return SRL_OK;
    }
    char *t = srl__sw_take(&c);
    if (!t)
        return oom(err);
    free(a->canon);
    a->canon = t;
    return SRL_OK;
}

/* The axes: problem first, then every other key that is not the sweep's own, with its values. */
static int make_axes(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    s->ax = calloc(g->n + 2, sizeof *s->ax); /* room for an implied format */
    if (!s->ax)
        return oom(err);
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < g->n; i++) {
            const srl_sweep_setting *t = &g->set[i];
            bool isprob = !strcmp(t->key, "problem");
            if ((pass == 0) != isprob || is_sweep_key(t->key) || !strcmp(t->key, "seed"))
                continue;
            srl__sw_axis *a = &s->ax[s->nax];
            srl__sw_values l;
            srl_err e2;
            int st = srl__sw_values_parse(t->value, &l, &e2);
            if (st) {
                srl__sw_values_free(&l);
                return srl_err_set(err, st, "%s: %s", origin_of(t), e2.msg);
            }
            a->key = srl__sw_dup(t->key);
            a->origin = srl__sw_dup(origin_of(t));
            a->canon = srl__sw_take(&l.canon);
            a->val = l.v;
            a->nval = l.n;
            a->dim = -1;
            s->nax++;
            if (!a->key || !a->origin || !a->canon)
                return oom(err);
            if ((st = canonical_values(a, err)))
                return st;
        }
    return SRL_OK;
}

/* `rounding` without `format` or `strategy` (training): the weights are stored in bf16, which
 * every rounding mode can round into (the default strategy fp32 would hold every value of its
 * fp32 update, and no rounding could change anything). A constant axis format = bf16, named in
 * the canonical command and the '#' lines. */
static int imply_format(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    bool rounding = false, other = false;
    for (size_t i = 0; i < s->nax; i++) {
        const char *k = s->ax[i].key;
        rounding |= !strcmp(k, "rounding") || !strcmp(k, "param-rounding");
        other |= !strcmp(k, "format") || !strcmp(k, "param-format") || !strcmp(k, "strategy");
    }
    if (s->kind != SRL_RUN_TRAIN || !rounding || other)
        return SRL_OK;
    for (size_t v = 0; v < s->ax[0].nval; v++)
        if (!srl_runner_param(s->prob[v], "format"))
            return SRL_OK;
    srl__sw_axis *a = &s->ax[s->nax];
    memset(a, 0, sizeof *a);
    a->dim = -1;
    a->key = srl__sw_dup("format");
    a->origin = srl__sw_dup("format (bf16: rounding without format or strategy)");
    a->canon = srl__sw_dup("bf16");
    a->val = calloc(1, sizeof *a->val);
    s->nax++;
    if (!a->key || !a->origin || !a->canon || !a->val || !(a->val[0] = srl__sw_dup("bf16")))
        return oom(err);
    a->nval = 1;
    s->implied_format = true;
    return SRL_OK;
}

/* The runner of every problem, then every key against every problem. */
static int find_problems(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    const srl__sw_axis *pa = &s->ax[0];
    srl__sw_text b = {0};
    int st = SRL_OK;
    s->prob = calloc(pa->nval, sizeof *s->prob);
    if (!s->prob)
        return oom(err);
    srl_run_kind other_kind = s->kind == SRL_RUN_TRAIN ? SRL_RUN_EXPERIMENT : SRL_RUN_TRAIN;
    for (size_t v = 0; v < pa->nval && !st; v++) {
        s->prob[v] = find_runner(g->runners, s->kind, pa->val[v]);
        if (s->prob[v])
            continue;
        known_problems(&b, g->runners, s->kind);
        const srl_runner *other = find_runner(g->runners, other_kind, pa->val[v]);
        st = srl_err_set(err, SRL_EINVAL, "%s: unknown problem '%s' for %s (known: %s)%s",
                         pa->origin, pa->val[v], command_name(s->kind), b.p ? b.p : "",
                         other ? (s->kind == SRL_RUN_TRAIN ? "; it is an experiment: command = run"
                                                           : "; it is trained: command = train")
                               : "");
    }
    for (size_t i = 1; i < s->nax && !st; i++)
        for (size_t v = 0; v < pa->nval && !st; v++) {
            const srl_runner *r = s->prob[v];
            if (srl_runner_param(r, s->ax[i].key))
                continue;
            known_keys(&b, r);
            st = srl_err_set(err, SRL_EINVAL, "%s: unknown key '%s' for problem '%s' (known: %s)",
                             s->ax[i].origin, s->ax[i].key, r->name, b.p ? b.p : "");
        }
    free(b.p);
    return st;
}

/* Canonical order (insertion sort: few keys) by the first problem's parameter table; problem
 * stays first. */
static void sort_axes(srl_sweep *s)
{
    for (size_t i = 2; i < s->nax; i++) {
        srl__sw_axis tmp = s->ax[i];
        size_t rk = key_rank(s->prob[0], tmp.key), j = i;
        while (j > 1 && key_rank(s->prob[0], s->ax[j - 1].key) > rk) {
            s->ax[j] = s->ax[j - 1];
            j--;
        }
        s->ax[j] = tmp;
    }
}

/* A seed as a number, for runs of consecutive seeds; false for one that is not decimal. */
static bool seed_value(const char *v, uint64_t *x)
{
    char why[SRL_NUMBER_WHY_LEN];
    return srl_number_u64(x, v, 0, UINT64_MAX, why) == SRL_OK;
}

/* "1-4,7": runs of three or more consecutive seeds as ranges. */
static char *seeds_text(char **v, size_t n)
{
    srl__sw_text b = {0};
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        uint64_t x, y;
        bool known = seed_value(v[i], &x);
        while (known && j + 1 < n && seed_value(v[j + 1], &y) && y == x + (j + 1 - i))
            j++;
        if (i)
            srl__sw_putc(&b, ',');
        if (j >= i + 2)
            srl__sw_printf(&b, "%s-%s", v[i], v[j]);
        else if (j == i + 1)
            srl__sw_printf(&b, "%s,%s", v[i], v[j]);
        else
            srl__sw_puts(&b, v[i]);
        i = j + 1;
    }
    return srl__sw_take(&b);
}

/* seeds = N: seeds 1..N. */
static int seeds_count(srl_sweep *s, const srl_sweep_setting *t, srl_err *err)
{
    char why[SRL_NUMBER_WHY_LEN];
    uint64_t cnt;
    if (srl_number_u64(&cnt, t->value, 1, SRL__SW_MAX_VALUES, why) != SRL_OK)
        return srl_err_set(err, SRL_EPARSE, "%s: '%s' is not a number of seeds (1 to %u)",
                           origin_of(t), t->value, SRL__SW_MAX_VALUES);
    s->seeds = calloc((size_t)cnt, sizeof *s->seeds);
    if (!s->seeds)
        return oom(err);
    for (size_t k = 0; k < cnt; k++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%zu", k + 1);
        if (!(s->seeds[k] = srl__sw_dup(buf)))
            return oom(err);
        s->nseeds++;
    }
    return SRL_OK;
}

/* seed = LIST: decimal seeds, each once. */
static int seeds_list(srl_sweep *s, const srl_sweep_setting *t, srl_err *err)
{
    srl__sw_values l;
    srl_err e2;
    int st = srl__sw_values_parse(t->value, &l, &e2);
    free(l.canon.p);
    s->seeds = l.v;
    s->nseeds = l.n;
    if (st)
        return srl_err_set(err, st, "%s: %s", origin_of(t), e2.msg);
    uint64_t *x = malloc((s->nseeds + 1) * sizeof *x);
    if (!x)
        return oom(err);
    for (size_t k = 0; k < s->nseeds && !st; k++) {
        const char *v = s->seeds[k];
        if (!seed_value(v, &x[k])) {
            st = srl_err_set(err, SRL_EPARSE,
                             "%s: '%s' is not a seed (a decimal integer from 0 to 2^64-1)",
                             origin_of(t), v);
            break;
        }
        for (size_t j = 0; j < k && !st; j++)
            if (x[j] == x[k])
                st = srl_err_set(err, SRL_EINVAL, "%s: seed %s repeats %s", origin_of(t), v,
                                 s->seeds[j]);
    }
    free(x);
    return st;
}

/* The seeds: seeds = N, seed = LIST, or the first problem's default seed. */
static int make_seeds(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    int st = SRL_OK;
    if (g->t_seeds) {
        st = seeds_count(s, g->t_seeds, err);
    } else if (g->t_seed) {
        st = seeds_list(s, g->t_seed, err);
    } else {
        const srl_param *p = srl_runner_param(s->prob[0], "seed");
        s->seeds = calloc(1, sizeof *s->seeds);
        if (!s->seeds || !(s->seeds[0] = srl__sw_dup(p && p->def ? p->def : "1")))
            return oom(err);
        s->nseeds = 1;
    }
    if (!st && !(s->seeds_text = seeds_text(s->seeds, s->nseeds)))
        return oom(err);
    return st;
}

/* One zip setting: its keys become group `gid` (axes of the sweep, each in one group, equal
 * lengths). */
static int zip_group(build *g, const srl_sweep_setting *t, long gid, srl_err *err)
{
    srl_sweep *s = g->s;
    srl__sw_values keys;
    srl_err e2;
    int st = srl__sw_values_parse(t->value, &keys, &e2);
    if (st) {
        srl__sw_values_free(&keys);
        return srl_err_set(err, st, "%s: %s", origin_of(t), e2.msg);
    }
    if (keys.n < 2) {
        srl__sw_values_free(&keys);
        return srl_err_set(err, SRL_EINVAL, "%s: '%s': name two or more axes that vary together",
                           origin_of(t), t->value);
    }
    size_t len0 = 0;
    const char *key0 = NULL;
    for (size_t k = 0; k < keys.n && !st; k++) {
        long ai = -1;
        for (size_t j = 0; j < s->nax; j++)
            if (!strcmp(s->ax[j].key, keys.v[k]))
                ai = (long)j;
        if (!strcmp(keys.v[k], "seed") || !strcmp(keys.v[k], "seeds")) {
            st = srl_err_set(err, SRL_EINVAL,
                             "%s: seeds cannot be zipped (every grid point runs every seed)",
                             origin_of(t));
        } else if (ai < 0) {
            st = srl_err_set(err, SRL_EINVAL, "%s: '%s' is not an axis of this sweep",
                             origin_of(t), keys.v[k]);
        } else if (g->zipgroup[ai] >= 0) {
            st = srl_err_set(err, SRL_EINVAL, "%s: '%s' is zipped twice", origin_of(t),
                             keys.v[k]);
        } else if (k && s->ax[ai].nval != len0) {
            st = srl_err_set(err, SRL_EINVAL,
                             "%s: zipped axes need equal lengths: %s has %zu values, %s has %zu",
                             origin_of(t), key0, len0, keys.v[k], s->ax[ai].nval);
        } else {
            g->zipgroup[ai] = gid;
            len0 = s->ax[ai].nval;
            key0 = s->ax[ai].key;
        }
    }
    srl__sw_values_free(&keys);
    return st;
}

/* The zip groups, numbered in the order of the zip settings. */
static int make_zips(build *g, srl_err *err)
{
    g->zipgroup = malloc((g->s->nax + 1) * sizeof *g->zipgroup);
    if (!g->zipgroup)
        return oom(err);
    for (size_t i = 0; i < g->s->nax; i++)
        g->zipgroup[i] = -1;
    for (size_t i = 0; i < g->n; i++) {
        if (strcmp(g->set[i].key, "zip"))
            continue;
        int st = zip_group(g, &g->set[i], g->ngroups, err);
        if (st)
            return st;
        g->ngroups++;
    }
    return SRL_OK;
}

/* The dimensions, in canonical order (a zip group sits at its first member; a constant axis is
 * none), each with distinct tuples; then the number of grid points and runs. */
static int make_dims(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    s->dims = calloc(s->nax + 1, sizeof *s->dims);
    if (!s->dims)
        return oom(err);
    for (size_t i = 0; i < s->nax; i++) {
        srl__sw_axis *a = &s->ax[i];
        if (a->dim >= 0 || (g->zipgroup[i] < 0 && a->nval == 1))
            continue;
        srl__sw_dim *d = &s->dims[s->ndims];
        d->ax = malloc(s->nax * sizeof *d->ax);
        if (!d->ax)
            return oom(err);
        d->len = a->nval;
        for (size_t j = i; j < s->nax; j++)
            if (j == i || (g->zipgroup[i] >= 0 && g->zipgroup[j] == g->zipgroup[i])) {
                d->ax[d->nax++] = j;
                s->ax[j].dim = (long)s->ndims;
            }
        s->ndims++;
        int st = check_distinct(s, d, err);
        if (st)
            return st;
    }
    s->npoints = 1;
    for (size_t d = 0; d < s->ndims; d++) {
        if (s->npoints > SRL__SW_MAX_RUNS / s->dims[d].len)
            return srl_err_set(err, SRL_ERANGE, "the grid has more than %u runs",
                               SRL__SW_MAX_RUNS);
        s->npoints *= s->dims[d].len;
    }
    if (s->npoints > SRL__SW_MAX_RUNS / s->nseeds)
        return srl_err_set(err, SRL_ERANGE, "the grid has more than %u runs", SRL__SW_MAX_RUNS);
    s->nruns = s->npoints * s->nseeds;
    return SRL_OK;
}

/* The axis columns: the core keys any problem knows, then the other axes with several values. */
static int make_columns(srl_sweep *s, srl_err *err)
{
    s->cols = calloc(NCORE + s->nax, sizeof *s->cols);
    if (!s->cols)
        return oom(err);
    for (size_t c = 0; c < NCORE; c++) {
        long ai = -1;
        for (size_t i = 0; i < s->nax; i++)
            if (!strcmp(s->ax[i].key, core_keys[c]))
                ai = (long)i;
        bool known = ai >= 0;
        for (size_t v = 0; v < s->ax[0].nval && !known; v++)
            known = srl_runner_param(s->prob[v], core_keys[c]) != NULL;
        if (!known)
            continue;
        s->cols[s->ncols].axis = ai;
        if (!(s->cols[s->ncols++].name = srl__sw_dup(core_keys[c])))
            return oom(err);
    }
    for (size_t i = 0; i < s->nax; i++) {
        if (is_core_key(s->ax[i].key) || s->ax[i].nval < 2)
            continue;
        s->cols[s->ncols].axis = (long)i;
        if (!(s->cols[s->ncols++].name = srl__sw_dup(s->ax[i].key)))
            return oom(err);
    }
    return SRL_OK;
}

/* The canonical command: every setting in column order, values as written, zips by group. */
static int make_command(build *g, srl_err *err)
{
    srl_sweep *s = g->s;
    srl__sw_text b = {0};
    srl__sw_printf(&b, "srlab sweep --command %s", s->kind == SRL_RUN_TRAIN ? "train" : "run");
    for (size_t i = 0; i < s->nax; i++) {
        srl__sw_printf(&b, " --%s ", s->ax[i].key);
        srl__sw_put_shell(&b, s->ax[i].canon);
    }
    if (g->t_seeds) {
        srl__sw_printf(&b, " --seeds %zu", s->nseeds);
    } else if (g->t_seed) {
        srl__sw_values l;
        srl_err e2;
        if (srl__sw_values_parse(g->t_seed->value, &l, &e2) == SRL_OK) {
            srl__sw_puts(&b, " --seed ");
            srl__sw_put_shell(&b, l.canon.p ? l.canon.p : "");
        }
        srl__sw_values_free(&l);
    }
    for (long grp = 0; grp < g->ngroups; grp++) {
        srl__sw_puts(&b, " --zip ");
        size_t k = 0;
        for (size_t i = 0; i < s->nax; i++)
            if (g->zipgroup[i] == grp)
                srl__sw_printf(&b, "%s%s", k++ ? "," : "", s->ax[i].key);
    }
    if (g->t_target) {
        srl__sw_puts(&b, " --target ");
        srl__sw_put_shell(&b, g->t_target->value);
    }
    if (!(s->command = srl__sw_take(&b)))
        return oom(err);
    return SRL_OK;
}

int srl_sweep_new(srl_sweep **out, const srl_sweep_setting *set, size_t n,
                  const srl_runner *const *runners, srl_err *err)
{
    *out = NULL;
    build g = {0};
    g.set = set;
    g.n = n;
    g.runners = runners;
    g.s = calloc(1, sizeof *g.s);
    if (!g.s)
        return oom(err);
    int st = read_sweep_keys(&g, err);
    if (!st)
        st = make_axes(&g, err);
    if (!st)
        st = find_problems(&g, err);
    if (!st)
        st = imply_format(&g, err);
    if (!st) {
        sort_axes(g.s);
        st = make_seeds(&g, err);
    }
    if (!st)
        st = make_zips(&g, err);
    if (!st)
        st = make_dims(&g, err);
    if (!st)
        st = make_columns(g.s, err);
    if (!st)
        st = make_command(&g, err);
    if (!st)
        st = srl__sw_resolve(g.s, err);
    free(g.zipgroup);
    if (st) {
        srl_sweep_free(g.s);
        return st;
    }
    *out = g.s;
    return SRL_OK;
}

/* ---- a sweep's runs ---- */

size_t srl_sweep_nruns(const srl_sweep *s)
{
    return s->nruns;
}

const char *srl_sweep_command(const srl_sweep *s)
{
    return s->command;
}

size_t srl_sweep_naxes(const srl_sweep *s)
{
    return s->ncols + 1;
}

const char *srl_sweep_axis_name(const srl_sweep *s, size_t i)
{
    return i < s->ncols ? s->cols[i].name : i == s->ncols ? "seed" : NULL;
}

const char *const *srl_sweep_values(const srl_sweep *s, const char *key, size_t *n)
{
    for (size_t i = 0; i < s->nax; i++)
        if (!strcmp(s->ax[i].key, key)) {
            *n = s->ax[i].nval;
            return (const char *const *)s->ax[i].val;
        }
    *n = 0;
    return NULL;
}

size_t srl__sw_value_index(const srl_sweep *s, const srl__sw_axis *a, size_t run)
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

const srl_runner *srl__sw_runner(const srl_sweep *s, size_t run)
{
    return s->prob[srl__sw_value_index(s, &s->ax[0], run)];
}

const char *srl_sweep_axis_value(const srl_sweep *s, size_t run, size_t i)
{
    if (run >= s->nruns || i > s->ncols)
        return NULL;
    if (i == s->ncols)
        return s->seeds[run % s->nseeds];
    const srl__sw_column *c = &s->cols[i];
    const char *res = srl__sw_resolved(s, run, c->name);
    if (res)
        return res; /* the weight format and rounding as srlab train resolves them */
    if (c->axis >= 0) {
        const srl__sw_axis *a = &s->ax[c->axis];
        return a->val[srl__sw_value_index(s, a, run)];
    }
    const srl_param *p = srl_runner_param(srl__sw_runner(s, run), c->name);
    return p && p->def ? p->def : "";
}

int srl__sw_config(const srl_sweep *s, size_t run, srl_config **out)
{
    *out = NULL;
    if (run >= s->nruns)
        return SRL_EINVAL;
    srl_config *c = srl_config_new();
    if (!c)
        return SRL_ENOMEM;
    int st = SRL_OK;
    for (size_t i = 0; i < s->nax && !st; i++)
        st = srl_config_set(c, s->ax[i].key, s->ax[i].val[srl__sw_value_index(s, &s->ax[i], run)]);
    if (!st)
        st = srl_config_set(c, "seed", s->seeds[run % s->nseeds]);
    if (st) {
        srl_config_free(c);
        return st;
    }
    *out = c;
    return SRL_OK;
}

uint64_t srl_sweep_rows_bound(const srl_sweep *s, size_t *largest, uint64_t *most)
{
    uint64_t total = 0;
    *largest = 0;
    *most = 0;
    for (size_t run = 0; run < s->nruns; run++) {
        srl_config *c;
        if (srl__sw_config(s, run, &c))
            return UINT64_MAX; /* out of memory: nothing this large can be held either */
        const uint64_t rows = srl_run_rows_bound(srl__sw_runner(s, run), c);
        srl_config_free(c);
        total = rows > UINT64_MAX - total ? UINT64_MAX : total + rows;
        if (rows > *most) {
            *most = rows;
            *largest = run;
        }
    }
    return total;
}

void srl__sw_describe_run(srl__sw_text *b, const srl_sweep *s, size_t run)
{
    srl__sw_printf(b, "problem '%s'", srl__sw_runner(s, run)->name);
    for (size_t i = 1; i < s->nax; i++)
        if (s->ax[i].dim >= 0)
            srl__sw_printf(b, ", %s=%s", s->ax[i].key,
                           s->ax[i].val[srl__sw_value_index(s, &s->ax[i], run)]);
}
