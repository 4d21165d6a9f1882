/* src/sweep/resolve.c: what the format and rounding columns of a training sweep show, and which
 * requested roundings cannot change anything (include/srlab/sweep.h, "Columns" and "Warnings").
 *
 * The weight format and rounding of a training run follow from its strategy and its piece keys
 * (srl_strategy_from_config), exactly as `srlab train` resolves and prints them ("fp32", "rn"),
 * never the placeholder "strategy". They depend only on the dimensions that hold one of the keys
 * below, so they are resolved once per combination of those dimensions' indices, when the sweep
 * is made, into a table the runs read (no work and no shared state while runs execute). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/strategy.h"
#include "sweep/sweep_impl.h"

/* The keys that decide the strategy of a run: its name, the weight slot and what the update
 * writes into it. */
static const char *const slot_keys[] = {"strategy",      "format",        "rounding",
                                        "param-format",  "param-rounding", "master-format",
                                        "update-arith",  "grad-format",   "grad-rounding",
                                        "state-format",  "state-rounding", "m-format",
                                        "m-rounding",    "v-format",      "v-rounding",
                                        "master-rounding", "kahan",       "comp-format",
                                        "comp-rounding", "act-format",    "act-rounding",
                                        "accum"};
#define NSLOT (sizeof slot_keys / sizeof slot_keys[0])
#define MAX_TABLE 100000u

static bool is_slot_key(const char *k)
{
    for (size_t i = 0; i < NSLOT; i++)
        if (!strcmp(k, slot_keys[i]))
            return true;
    return false;
}

static long axis_index(const srl_sweep *s, const char *key)
{
    for (size_t i = 0; i < s->nax; i++)
        if (!strcmp(s->ax[i].key, key))
            return (long)i;
    return -1;
}

/* Does format a hold every value of format b (precision, range, subnormals)? */
static bool holds(const srl_format *a, const srl_format *b)
{
    return a->p >= b->p && a->emax >= b->emax && a->emin <= b->emin &&
           (a->subnormals || !b->subnormals);
}

/* Entry k of the table as a run of the sweep: the table's dimensions at k's indices, every other
 * dimension at its first value. */
static size_t entry_run(const srl_sweep *s, size_t k)
{
    size_t point = 0;
    for (size_t d = 0; d < s->ndims; d++) {
        size_t idx = 0;
        size_t rest = k;
        for (size_t j = s->nrdims; j-- > 0;) {
            size_t len = s->dims[s->rdims[j]].len;
            if (s->rdims[j] == d)
                idx = rest % len;
            rest /= len;
        }
        point = point * s->dims[d].len + idx;
    }
    return point * s->nseeds;
}

/* The inert roundings found so far, grouped by what makes them inert (one warning each). */
typedef struct inert {
    char why[400];  /* "with strategy fp32: the weights (fp32) hold ..." */
    char vals[200]; /* "sr,rn" */
} inert;
#define MAX_INERT 16

/* Note that run's rounding cannot change anything under strategy st. */
static void note_inert(inert *w, size_t *nw, const srl_sweep *s, const srl_strategy *st,
                       const char *preset, size_t run)
{
    const char *rk = axis_index(s, "rounding") >= 0 ? "rounding" : "param-rounding";
    const srl__sw_axis *ra = &s->ax[axis_index(s, rk)];
    const char *rv = ra->val[srl__sw_value_index(s, ra, run)];
    const char *src = st->has_master ? st->master.fmt.name
                                     : st->arith == SRL_ARITH_FP64 ? "fp64" : "fp32";
    char why[400];
    snprintf(why, sizeof why,
             "with strategy %s: the weights (%s) hold every value the update writes into them "
             "(%s%s); give --format bf16 (or another narrower format) or a bf16 strategy",
             preset, st->param.fmt.name, src, st->has_master ? ", the master copy" : " arithmetic");
    size_t k = 0;
    while (k < *nw && strcmp(w[k].why, why))
        k++;
    if (k == *nw) {
        if (*nw == MAX_INERT)
            return;
        snprintf(w[k].why, sizeof w[k].why, "%s", why);
        w[k].vals[0] = 0;
        (*nw)++;
    }
    char *v = w[k].vals;
    size_t vl = strlen(v), rl = strlen(rv);
    for (const char *p = v; *p;) { /* each value once */
        size_t n = strcspn(p, ",");
        if (n == rl && !memcmp(p, rv, n))
            return;
        p += n + (p[n] ? 1 : 0);
    }
    if (vl + rl + 2 < sizeof w[k].vals)
        snprintf(v + vl, sizeof w[k].vals - vl, "%s%s", vl ? "," : "", rv);
}

int srl__sw_resolve(srl_sweep *s, srl_err *err)
{
    if (s->kind != SRL_RUN_TRAIN)
        return SRL_OK;
    for (size_t v = 0; v < s->ax[0].nval; v++)
        if (!srl_runner_param(s->prob[v], "strategy"))
            return SRL_OK; /* a runner without strategies: its columns are its own */
    s->rdims = calloc(s->ndims + 1, sizeof *s->rdims);
    if (!s->rdims)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    size_t n = 1;
    for (size_t d = 0; d < s->ndims; d++) {
        bool slot = false;
        for (size_t j = 0; j < s->dims[d].nax; j++)
            slot |= is_slot_key(s->ax[s->dims[d].ax[j]].key);
        if (!slot)
            continue;
        if (n > MAX_TABLE / s->dims[d].len)
            return SRL_OK; /* too many combinations: the columns show the values as given */
        n *= s->dims[d].len;
        s->rdims[s->nrdims++] = d;
    }
    s->res_fmt = calloc(n, sizeof *s->res_fmt);
    s->res_rnd = calloc(n, sizeof *s->res_rnd);
    s->res_str = calloc(n, sizeof *s->res_str);
    if (!s->res_fmt || !s->res_rnd || !s->res_str)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    s->nres = n;
    bool asked = axis_index(s, "rounding") >= 0 || axis_index(s, "param-rounding") >= 0;
    inert in[MAX_INERT];
    size_t nin = 0;
    for (size_t k = 0; k < n; k++) {
        size_t run = entry_run(s, k);
        srl_config *cfg = NULL;
        if (srl__sw_config(s, run, &cfg))
            return srl_err_set(err, SRL_ENOMEM, "out of memory");
        srl_strategy st;
        srl_err e2;
        /* A combination the strategy refuses stays unresolved: validation reports it. */
        if (srl_strategy_from_config(&st, cfg, &e2) == SRL_OK) {
            char rb[64];
            srl_rounding_name(rb, sizeof rb, st.param.mode);
            s->res_fmt[k] = srl__sw_dup(st.param.fmt.name);
            s->res_rnd[k] = srl__sw_dup(rb);
            s->res_str[k] = srl__sw_dup(st.name);
            if (!s->res_fmt[k] || !s->res_rnd[k] || !s->res_str[k]) {
                srl_config_free(cfg);
                return srl_err_set(err, SRL_ENOMEM, "out of memory");
            }
            const srl_format *src = st.has_master ? &st.master.fmt
                                    : srl_format_find(st.arith == SRL_ARITH_FP64 ? "fp64" : "fp32");
            if (asked && src && holds(&st.param.fmt, src))
                note_inert(in, &nin, s, &st,
                           srl_config_get(cfg, "strategy") ? srl_config_get(cfg, "strategy")
                                                           : "fp32", run);
        }
        srl_config_free(cfg);
    }
    srl__sw_text w = {0};
    for (size_t k = 0; k < nin; k++) {
        const char *rk = axis_index(s, "rounding") >= 0 ? "rounding" : "param-rounding";
        srl__sw_printf(&w, "%s %s cannot change anything %s\n",
                       s->ax[axis_index(s, rk)].origin, in[k].vals, in[k].why);
    }
    if (w.oom)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    s->warnings = w.p;
    return SRL_OK;
}

const char *srl__sw_resolved(const srl_sweep *s, size_t run, const char *col)
{
    if (!s->nres)
        return NULL;
    const int which = !strcmp(col, "format") ? 0 : !strcmp(col, "rounding") ? 1
                      : !strcmp(col, "strategy") ? 2 : -1;
    if (which < 0)
        return NULL;
    size_t k = 0;
    for (size_t j = 0; j < s->nrdims; j++) {
        const srl__sw_dim *d = &s->dims[s->rdims[j]];
        k = k * d->len + srl__sw_value_index(s, &s->ax[d->ax[0]], run);
    }
    char **res = which == 0 ? s->res_fmt : which == 1 ? s->res_rnd : s->res_str;
    return k < s->nres ? res[k] : NULL;
}

const char *srl_sweep_warnings(const srl_sweep *s)
{
    return s->warnings ? s->warnings : "";
}
