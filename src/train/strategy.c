/* src/train/strategy.c: precision strategy presets and their overrides (include/srlab/strategy.h,
 * docs/design.md §7). The presets are one table; the keys are read here so that `srlab train`, sweeps
 * and checks resolve a strategy identically. */
#include "srlab/strategy.h"

#include <stdio.h>
#include <string.h>

#include "srlab/tensor.h"

const char *const srl_strategy_names[] = {"fp32",          "mp",         "bf16-rn", "bf16-sr",
                                          "bf16-sr-exact", "bf16-kahan", "mp-tc",   "custom",
                                          NULL};

#define ACCUM_FP32 "prod=fp32:rn,acc=fp32:rn"
/* FP8 tensor cores' accumulation (docs/design.md §6): a 14-bit partial sum, truncated, promoted
 * into binary32 every 128 products */
#define ACCUM_TC "prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128,join=fp32:rn"

static srl_slot slot(const char *fmt, srl_rounding m)
{
    srl_slot s;
    s.fmt = *srl_format_find(fmt);
    s.mode = m;
    return s;
}

int srl_strategy_preset(srl_strategy *s, const char *name, srl_err *err)
{
    int k = -1;
    for (int i = 0; srl_strategy_names[i]; i++)
        if (!strcmp(name, srl_strategy_names[i]))
            k = i;
    if (k < 0)
        return srl_err_set(err, SRL_EPARSE,
                           "unknown strategy '%s' (known: fp32, mp, bf16-rn, bf16-sr, "
                           "bf16-sr-exact, bf16-kahan, mp-tc, custom)", name);
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    const srl_rounding rn = SRL_ROUND_RN;
    /* fp32 everywhere, the base of every preset */
    s->param = s->grad = s->m = s->v = s->act = slot("fp32", rn);
    s->master = s->comp = slot("fp32", rn);
    s->arith = SRL_ARITH_FP32;
    const char *accum = !strcmp(name, "mp-tc") ? ACCUM_TC : ACCUM_FP32;
    snprintf(s->accum, sizeof s->accum, "%s", accum);
    s->accum_cfg = srl_accum_binary64();
    if (srl_accum_parse(&s->accum_cfg, accum, NULL) != SRL_OK)
        return srl_err_set(err, SRL_EINVAL, "internal: the preset accum spec does not parse");
    if (!strcmp(name, "fp32") || !strcmp(name, "custom"))
        return SRL_OK;
    if (!strcmp(name, "mp") || !strcmp(name, "mp-tc")) {
        s->has_master = true;
        s->param = s->grad = s->act = slot("bf16", rn);
        return SRL_OK;
    }
    /* the bf16 family */
    s->param = s->grad = s->m = s->v = s->act = s->comp = slot("bf16", rn);
    if (!strcmp(name, "bf16-sr"))
        s->param.mode = (srl_rounding){SRL_SR_BITS, 16};
    else if (!strcmp(name, "bf16-sr-exact")) {
        s->param.mode = SRL_ROUND_SR;
        s->arith = SRL_ARITH_FP64;
    } else if (!strcmp(name, "bf16-kahan"))
        s->kahan = true;
    return SRL_OK;
}

/* A key is "set" when present with a value other than "strategy". */
static const char *given(const srl_config *cfg, const char *key)
{
    const char *v = srl_config_get(cfg, key);
    return (v && strcmp(v, "strategy") != 0) ? v : NULL;
}

static int read_fmt(srl_format *f, const srl_config *cfg, const char *key, srl_err *err)
{
    if (!given(cfg, key))
        return SRL_OK;
    return srl_config_format(cfg, key, NULL, f, err);
}

static int read_mode(srl_rounding *m, const srl_config *cfg, const char *key, srl_err *err)
{
    if (!given(cfg, key))
        return SRL_OK;
    return srl_config_rounding(cfg, key, NULL, m, err);
}

/* The shorthand and the long key for one piece: both may be given only with the same value. */
static const char *one_of(const srl_config *cfg, const char *shortk, const char *longk,
                          const char **which, int *st, srl_err *err)
{
    const char *a = given(cfg, shortk), *b = given(cfg, longk);
    if (a && b && strcmp(a, b)) {
        *st = srl_err_set(err, SRL_EINVAL, "%s '%s' and %s '%s' name the same piece (the weight "
                          "%s) with different values; give one", shortk, a, longk, b,
                          !strcmp(shortk, "format") ? "format" : "rounding");
        return NULL;
    }
    *which = a ? shortk : longk;
    return a ? a : b;
}

/* The named recipes of key mx: each GEMM's spec (NULL: off), Fprop, Dgrad, Wgrad. */
#define FP4_SR "fmt=mxfp4,round=sr,scale=3/4"
static const struct {
    const char *name, *spec[SRL_STRATEGY_GEMMS];
} mx_recipes[] = {
    {"mxfp8", {"fmt=mxfp8", "fmt=mxfp8", "fmt=mxfp8"}},
    {"fp4-rn", {"fmt=mxfp4", "fmt=mxfp4", "fmt=mxfp4"}},
    {"fp4-fprop", {"fmt=mxfp4", NULL, NULL}},
    {"fp4-dgrad", {NULL, "fmt=mxfp4", NULL}},
    {"fp4-wgrad", {NULL, NULL, "fmt=mxfp4"}},
    {"fp4-sr", {"fmt=mxfp4", FP4_SR, FP4_SR}},
    {"fp4-sr-rht", {"fmt=mxfp4", FP4_SR ",rot=rht", FP4_SR ",rot=rht"}},
    {"fp4-had", {"fmt=mxfp4,rot=hadamard", "fmt=mxfp4,rot=hadamard", "fmt=mxfp4,rot=hadamard"}},
};
#undef FP4_SR

const char *srl_strategy_mx_recipe(size_t i)
{
    return i < sizeof mx_recipes / sizeof *mx_recipes ? mx_recipes[i].name : NULL;
}

/* Keys mx, mx-fprop, mx-dgrad, mx-wgrad (srlab/strategy.h). */
static int read_mx(srl_strategy *s, const srl_config *cfg, srl_err *err)
{
    static const char *const keys[SRL_STRATEGY_GEMMS] = {"mx-fprop", "mx-dgrad", "mx-wgrad"};
    srl_mxgemm all = srl_mxgemm_default();
    srl_err e2;
    const char *v = given(cfg, "mx");
    for (int k = 0; k < SRL_STRATEGY_GEMMS; k++) {
        s->mx[k] = all;
        s->mx_on[k] = false;
    }
    if (v && strcmp(v, "off") && !strchr(v, '=')) {
        size_t i = 0, n = sizeof mx_recipes / sizeof *mx_recipes;
        while (i < n && strcmp(mx_recipes[i].name, v))
            i++;
        if (i == n)
            return srl_err_set(err, SRL_EPARSE, "mx: '%s' is not off, a recipe (mxfp8, fp4-rn, "
                               "fp4-fprop, fp4-dgrad, fp4-wgrad, fp4-sr, fp4-sr-rht, fp4-had) "
                               "or a spec KEY=VALUE,...", v);
        for (int k = 0; k < SRL_STRATEGY_GEMMS; k++)
            if (mx_recipes[i].spec[k]) {
                s->mx_on[k] = true;
                if (srl_mxgemm_parse(&s->mx[k], mx_recipes[i].spec[k], &e2))
                    return srl_err_set(err, SRL_EINVAL, "internal: recipe %s: %s", v, e2.msg);
            }
    } else if (v && strcmp(v, "off")) {
        if (srl_mxgemm_parse(&all, v, &e2))
            return srl_err_set(err, SRL_EINVAL, "mx: %s", e2.msg);
        for (int k = 0; k < SRL_STRATEGY_GEMMS; k++) {
            s->mx[k] = all;
            s->mx_on[k] = true;
        }
    }
    for (int k = 0; k < SRL_STRATEGY_GEMMS; k++) {
        const char *w = given(cfg, keys[k]);
        if (!w)
            continue;
        s->mx_on[k] = strcmp(w, "off") != 0;
        if (s->mx_on[k] && srl_mxgemm_parse(&s->mx[k], w, &e2))
            return srl_err_set(err, SRL_EINVAL, "%s: %s", keys[k], e2.msg);
    }
    for (int k = 0; k < SRL_STRATEGY_GEMMS; k++)
        if (s->mx_on[k] && !srl_format_fits_float(&s->mx[k].accum.acc_fmt))
            return srl_err_set(err, SRL_EINVAL,
                               "%s: the accumulator %s is not a subset of binary32 (the GEMM "
                               "writes binary32 outputs)", given(cfg, keys[k]) ? keys[k] : "mx",
                               s->mx[k].accum.acc_fmt.name);
    return SRL_OK;
}

/* Whether two strategies have the same block-scaled GEMMs (each on or off, and its config). */
static bool same_mx(const srl_strategy *a, const srl_strategy *b)
{
    char na[256], nb[256];
    for (int k = 0; k < SRL_STRATEGY_GEMMS; k++)
        if (a->mx_on[k] != b->mx_on[k] ||
            (a->mx_on[k] && strcmp(srl_mxgemm_name(na, sizeof na, &a->mx[k]),
                                   srl_mxgemm_name(nb, sizeof nb, &b->mx[k]))))
            return false;
    return true;
}

static bool same_slot(const srl_slot *a, const srl_slot *b)
{
    return srl_format_equal(&a->fmt, &b->fmt) && a->mode.mode == b->mode.mode &&
           a->mode.r == b->mode.r;
}

/* Whether two strategies run alike: every piece in use the same. */
static bool same_strategy(const srl_strategy *a, const srl_strategy *b)
{
    return same_slot(&a->param, &b->param) && same_slot(&a->grad, &b->grad) &&
           same_slot(&a->m, &b->m) && same_slot(&a->v, &b->v) && same_slot(&a->act, &b->act) &&
           a->has_master == b->has_master &&
           (!a->has_master || same_slot(&a->master, &b->master)) && a->kahan == b->kahan &&
           (!a->kahan || same_slot(&a->comp, &b->comp)) && a->arith == b->arith &&
           !strcmp(a->accum, b->accum) && same_mx(a, b);
}

int srl_strategy_from_config(srl_strategy *s, const srl_config *cfg, srl_err *err)
{
    const char *name = srl_config_get(cfg, "strategy");
    int st = srl_strategy_preset(s, name ? name : "fp32", err);
    if (st) {
        if (err) {
            srl_err e2 = *err;
            srl_err_set(err, st, "strategy: %s", e2.msg);
        }
        return st;
    }
    const char *which = NULL;
    const char *v = one_of(cfg, "format", "param-format", &which, &st, err);
    if (st)
        return st;
    if (v && (st = srl_config_format(cfg, which, NULL, &s->param.fmt, err)))
        return st;
    v = one_of(cfg, "rounding", "param-rounding", &which, &st, err);
    if (st)
        return st;
    if (v && (st = srl_config_rounding(cfg, which, NULL, &s->param.mode, err)))
        return st;
    if ((st = read_fmt(&s->grad.fmt, cfg, "grad-format", err)) ||
        (st = read_mode(&s->grad.mode, cfg, "grad-rounding", err)) ||
        (st = read_fmt(&s->m.fmt, cfg, "state-format", err)) ||
        (st = read_mode(&s->m.mode, cfg, "state-rounding", err)))
        return st;
    s->v = s->m;
    if ((st = read_fmt(&s->m.fmt, cfg, "m-format", err)) ||
        (st = read_mode(&s->m.mode, cfg, "m-rounding", err)) ||
        (st = read_fmt(&s->v.fmt, cfg, "v-format", err)) ||
        (st = read_mode(&s->v.mode, cfg, "v-rounding", err)))
        return st;
    if ((v = given(cfg, "master-format"))) {
        if (!strcmp(v, "none"))
            s->has_master = false;
        else {
            if ((st = srl_config_format(cfg, "master-format", NULL, &s->master.fmt, err)))
                return st;
            s->has_master = true;
        }
    }
    if ((st = read_mode(&s->master.mode, cfg, "master-rounding", err)))
        return st;
    if (given(cfg, "kahan") && (st = srl_config_bool(cfg, "kahan", NULL, &s->kahan, err)))
        return st;
    if ((st = read_fmt(&s->comp.fmt, cfg, "comp-format", err)) ||
        (st = read_mode(&s->comp.mode, cfg, "comp-rounding", err)) ||
        (st = read_fmt(&s->act.fmt, cfg, "act-format", err)) ||
        (st = read_mode(&s->act.mode, cfg, "act-rounding", err)))
        return st;
    if (given(cfg, "update-arith")) {
        static const char *const ar[] = {"fp32", "fp64", NULL};
        int a;
        if ((st = srl_config_choice(cfg, "update-arith", NULL, ar, &a, err)))
            return st;
        s->arith = a ? SRL_ARITH_FP64 : SRL_ARITH_FP32;
    }
    if ((v = given(cfg, "accum"))) {
        if (strlen(v) >= sizeof s->accum)
            return srl_err_set(err, SRL_EINVAL, "accum: '%.40s...' is too long", v);
        snprintf(s->accum, sizeof s->accum, "%s", v);
        s->accum_cfg = srl_accum_binary64();
        srl_err e2;
        if ((st = srl_accum_parse(&s->accum_cfg, v, &e2)))
            return srl_err_set(err, st, "accum: %s", e2.msg);
    }
    if ((st = read_mx(s, cfg, err)))
        return st;
    /* Name what runs: fp32 with a piece changed is no longer fp32 (beside a bf16 format column,
     * "fp32" reads as fp32 weights): it is custom, the preset that starts from fp32's pieces and
     * is set piece by piece, so the name and the pieces' columns together say what ran. */
    srl_strategy base;
    if (!strcmp(s->name, "fp32") && srl_strategy_preset(&base, "fp32", NULL) == SRL_OK &&
        !same_strategy(s, &base))
        snprintf(s->name, sizeof s->name, "custom");
    return srl_strategy_check(s, err);
}

int srl_strategy_check(const srl_strategy *s, srl_err *err)
{
    const struct {
        const char *key;
        const srl_slot *sl;
        bool used;
    } slots[] = {
        {"param", &s->param, true},         {"grad", &s->grad, true},
        {"m", &s->m, true},                 {"v", &s->v, true},
        {"master", &s->master, s->has_master}, {"comp", &s->comp, s->kahan},
    };
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        if (!slots[i].used)
            continue;
        if (!srl_rounding_valid(slots[i].sl->mode))
            return srl_err_set(err, SRL_EINVAL, "%s-rounding: invalid rounding mode",
                               slots[i].key);
        if (s->arith == SRL_ARITH_FP32 && !srl_format_fits_float(&slots[i].sl->fmt))
            return srl_err_set(err, SRL_EINVAL,
                               "%s-format: %s: its values are not all binary32 numbers, so the "
                               "fp32 update arithmetic cannot hold them (reading them would "
                               "round them); use update-arith=fp64 or a format inside binary32",
                               slots[i].key, slots[i].sl->fmt.name);
    }
    if (s->kahan && s->has_master)
        return srl_err_set(err, SRL_EINVAL,
                           "kahan=on compensates the rounding of the weight write, and with a "
                           "master copy (master-format %s) the update is not written into the "
                           "weights; use one or the other", s->master.fmt.name);
    return SRL_OK;
}

srl_bytes srl_strategy_bytes(const srl_strategy *s, bool has_m, bool has_v)
{
    srl_bytes b;
    memset(&b, 0, sizeof b);
    b.param = srl_storage_size(srl_storage_for(&s->param.fmt));
    b.grad = srl_storage_size(srl_storage_for(&s->grad.fmt));
    b.m = has_m ? srl_storage_size(srl_storage_for(&s->m.fmt)) : 0;
    b.v = has_v ? srl_storage_size(srl_storage_for(&s->v.fmt)) : 0;
    b.master = s->has_master ? srl_storage_size(srl_storage_for(&s->master.fmt)) : 0;
    b.comp = s->kahan ? srl_storage_size(srl_storage_for(&s->comp.fmt)) : 0;
    b.total = b.param + b.grad + b.m + b.v + b.master + b.comp;
    return b;
}

const char *srl_strategy_describe(char *buf, size_t len, const srl_strategy *s)
{
    char r[6][32];
    size_t k = 0;
    int n = snprintf(buf, len, "param %s %s, grad %s %s, m %s %s, v %s %s", s->param.fmt.name,
                     srl_rounding_name(r[0], 32, s->param.mode), s->grad.fmt.name,
                     srl_rounding_name(r[1], 32, s->grad.mode), s->m.fmt.name,
                     srl_rounding_name(r[2], 32, s->m.mode), s->v.fmt.name,
                     srl_rounding_name(r[3], 32, s->v.mode));
    k = n > 0 ? (size_t)n : 0;
    if (s->has_master && k < len) {
        n = snprintf(buf + k, len - k, ", master %s %s", s->master.fmt.name,
                     srl_rounding_name(r[4], 32, s->master.mode));
        k += n > 0 ? (size_t)n : 0;
    }
    if (s->kahan && k < len) {
        n = snprintf(buf + k, len - k, ", kahan comp %s %s", s->comp.fmt.name,
                     srl_rounding_name(r[5], 32, s->comp.mode));
        k += n > 0 ? (size_t)n : 0;
    }
    if (k < len)
        snprintf(buf + k, len - k, ", update %s", s->arith == SRL_ARITH_FP32 ? "fp32" : "fp64");
    return buf;
}
