/* src/linalg/accum.c: accumulation configs (include/srlab/kernels.h, docs/design.md §6): the
 * default, parsing "prod=FMT:MODE,acc=...,fma=,order=,kahan=,join=", canonical names, validity,
 * and the number of draws each kernel uses. */
#include "srlab/kernels.h"

#include <stdio.h>
#include <string.h>

#include "linalg/kernels_impl.h"
#include "srlab/number.h"

static const srl_format *preset(const char *name)
{
    return srl_format_find(name);
}

srl_accum srl_accum_binary64(void)
{
    srl_accum c;
    memset(&c, 0, sizeof c);
    c.prod_fmt = *preset("fp64");
    c.acc_fmt = *preset("fp64");
    c.prod_mode = SRL_ROUND_RN;
    c.acc_mode = SRL_ROUND_RN;
    c.fma = false;
    c.order = SRL_ORDER_RECURSIVE;
    c.block = 0;
    c.kahan = false;
    return c;
}

#define SPEC_MAX 1024

/* "FMT[:MODE]" or "(SPEC)[:MODE]" into f and (when given) m. */
static int parse_fmt_mode(srl_format *f, srl_rounding *m, const char *key, char *val,
                          const char *spec, srl_err *err)
{
    char *fmt = val, *mode = NULL;
    if (val[0] == '(') {
        int depth = 0;
        char *p = val;
        for (; *p; p++) {
            if (*p == '(')
                depth++;
            else if (*p == ')' && --depth == 0)
                break;
        }
        if (!*p)
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': %s=%s: unbalanced parentheses", spec,
                               key, val);
        *p = '\0';
        fmt = val + 1;
        if (p[1] == ':')
            mode = p + 2;
        else if (p[1])
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': %s: expected ':MODE' after the format "
                               "in parentheses, found '%s'", spec, key, p + 1);
    } else {
        char *colon = strchr(val, ':');
        if (colon) {
            *colon = '\0';
            mode = colon + 1;
        }
    }
    srl_err sub;
    int st = srl_format_parse(f, fmt, &sub);
    if (st != SRL_OK) {
        const char *hint = strchr(fmt, '=') && !strchr(spec, '(')
                               ? " (put a custom format in parentheses: prod=(p=8,emax=127):rn)"
                               : "";
        return srl_err_set(err, st, "accumulation config '%s': %s: %s%s", spec, key, sub.msg,
                           hint);
    }
    if (mode) {
        st = srl_rounding_parse(m, mode, &sub);
        if (st != SRL_OK)
            return srl_err_set(err, st, "accumulation config '%s': %s: %s", spec, key, sub.msg);
    }
    return SRL_OK;
}

static int parse_onoff(bool *b, const char *key, const char *val, const char *spec, srl_err *err)
{
    if (!strcmp(val, "on"))
        *b = true;
    else if (!strcmp(val, "off"))
        *b = false;
    else
        return srl_err_set(err, SRL_EPARSE, "accumulation config '%s': %s=%s: expected on or off",
                           spec, key, val);
    return SRL_OK;
}

static int parse_order(srl_accum *c, const char *val, const char *spec, srl_err *err)
{
    if (!strcmp(val, "recursive")) {
        c->order = SRL_ORDER_RECURSIVE;
    } else if (!strcmp(val, "pairwise")) {
        c->order = SRL_ORDER_PAIRWISE;
    } else if (!strncmp(val, "blocked:", 8)) {
        const char *d = val + 8;
        uint64_t K = 0;
        char why[SRL_NUMBER_WHY_LEN];
        if (!*d)
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': order=blocked:K needs a block size K",
                               spec);
        if (srl_number_u64(&K, d, 0, SIZE_MAX, why) != SRL_OK) /* K = 0: config_error says */
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': order=%s: the block size must be "
                               "a positive integer", spec, val);
        c->order = SRL_ORDER_BLOCKED;
        c->block = (size_t)K;
    } else {
        return srl_err_set(err, SRL_EPARSE,
                           "accumulation config '%s': unknown order '%s' (known: recursive, "
                           "pairwise, blocked:K)", spec, val);
    }
    return SRL_OK;
}

/* Contradictions a config can hold: the same test for the parser and the kernels. */
static int config_error(const srl_accum *c, const char **why)
{
    if ((unsigned)c->order > SRL_ORDER_BLOCKED)
        return *why = "unknown order", SRL_EINVAL;
    if (c->order == SRL_ORDER_BLOCKED && c->block == 0)
        return *why = "order=blocked:K needs K >= 1", SRL_EINVAL;
    if (c->kahan && c->order != SRL_ORDER_RECURSIVE)
        return *why = "kahan=on needs order=recursive", SRL_EINVAL;
    if (!srl_rounding_valid(c->acc_mode) || !srl_rounding_valid(c->prod_mode))
        return *why = "invalid rounding mode", SRL_EINVAL;
    if (c->acc_fmt.p < 2 || c->acc_fmt.p > 53 || c->prod_fmt.p < 2 || c->prod_fmt.p > 53)
        return *why = "invalid format", SRL_EINVAL;
    if (c->join && c->order == SRL_ORDER_RECURSIVE)
        return *why = "join= needs order=blocked:K or pairwise (the recursive order has no joins)",
               SRL_EINVAL;
    if (c->join && (c->join_fmt.p < 2 || c->join_fmt.p > 53 || !srl_rounding_valid(c->join_mode)))
        return *why = "invalid join format or mode", SRL_EINVAL;
    return SRL_OK;
}

/* Is any accumulation rounding (terms, or joins) stochastic? */
static bool acc_stochastic(const srl_accum *c)
{
    return srl_rounding_is_stochastic(c->acc_mode) ||
           (c->join && srl_rounding_is_stochastic(c->join_mode));
}

/* The checks every kernel makes on its config and stream (kernels.h, "Errors"). */
int srl__accum_check(const srl_accum *c, bool products, const srl_rng *rng, bool isf)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK)
        return SRL_EINVAL;
    const bool sto =
        acc_stochastic(c) || (products && !c->fma && srl_rounding_is_stochastic(c->prod_mode));
    if (sto && !rng)
        return SRL_EINVAL;
    if (isf && (!srl_format_fits_float(&c->acc_fmt) ||
                (c->join && !srl_format_fits_float(&c->join_fmt))))
        return SRL_EINVAL;
    return SRL_OK;
}

int srl_accum_parse(srl_accum *c, const char *spec, srl_err *err)
{
    if (!c || !spec)
        return srl_err_set(err, SRL_EINVAL, "accumulation config: NULL argument");
    const size_t len = strlen(spec);
    if (len >= SPEC_MAX)
        return srl_err_set(err, SRL_EPARSE, "accumulation config is too long (%zu characters)",
                           len);
    char buf[SPEC_MAX];
    memcpy(buf, spec, len + 1);
    srl_accum t = *c;
    char *item = buf;
    while (*item) {
        /* the item ends at the next comma outside parentheses */
        char *end = item;
        int depth = 0;
        for (; *end && (*end != ',' || depth > 0); end++)
            depth += (*end == '(') - (*end == ')');
        const bool more = *end == ',';
        *end = '\0';
        char *eq = strchr(item, '=');
        if (!eq || eq == item)
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': '%s' is not KEY=VALUE (keys: prod, "
                               "acc, fma, order, kahan, join)", spec, item);
        *eq = '\0';
        char *val = eq + 1;
        int st;
        if (!strcmp(item, "prod"))
            st = parse_fmt_mode(&t.prod_fmt, &t.prod_mode, "prod", val, spec, err);
        else if (!strcmp(item, "acc"))
            st = parse_fmt_mode(&t.acc_fmt, &t.acc_mode, "acc", val, spec, err);
        else if (!strcmp(item, "fma"))
            st = parse_onoff(&t.fma, "fma", val, spec, err);
        else if (!strcmp(item, "kahan"))
            st = parse_onoff(&t.kahan, "kahan", val, spec, err);
        else if (!strcmp(item, "order"))
            st = parse_order(&t, val, spec, err);
        else if (!strcmp(item, "join") && !strcmp(val, "acc"))
            t.join = false;
        else if (!strcmp(item, "join")) {
            if (!t.join) { /* a mode not given is the accumulator's */
                t.join_fmt = t.acc_fmt;
                t.join_mode = t.acc_mode;
            }
            st = parse_fmt_mode(&t.join_fmt, &t.join_mode, "join", val, spec, err);
            t.join = st == SRL_OK;
        }
        else
            st = srl_err_set(err, SRL_EPARSE,
                             "accumulation config '%s': unknown key '%s' (known: prod, acc, fma, "
                             "order, kahan, join)", spec, item);
        if (st != SRL_OK)
            return st;
        if (more && !end[1])
            return srl_err_set(err, SRL_EPARSE, "accumulation config '%s': trailing comma",
                               spec);
        item = more ? end + 1 : end;
    }
    const char *why = NULL;
    int st = config_error(&t, &why);
    if (st != SRL_OK)
        return srl_err_set(err, st, "accumulation config '%s': %s", spec, why);
    *c = t;
    return SRL_OK;
}

/* A preset's name, or the canonical custom spec in parentheses. */
static void format_text(char *b, size_t len, const srl_format *f)
{
    for (size_t i = 0; i < srl_format_preset_count(); i++) {
        if (srl_format_equal(srl_format_preset(i), f)) {
            snprintf(b, len, "%s", srl_format_preset(i)->name);
            return;
        }
    }
    srl_format t;
    if (!f->nan) /* (srl_format_make builds formats with NaN; f's name is canonical) */
        snprintf(b, len, "(%s)", f->name);
    else if (srl_format_make(&t, f->p, f->emax, f->emin, f->subnormals, f->inf, f->saturate,
                             NULL) == SRL_OK)
        snprintf(b, len, "(%s)", t.name);
    else
        snprintf(b, len, "(invalid)");
}

const char *srl_accum_name(char *buf, size_t len, const srl_accum *c)
{
    if (!buf || len == 0)
        return buf;
    if (!c) {
        snprintf(buf, len, "invalid");
        return buf;
    }
    char pf[SRL_FORMAT_NAME_LEN + 2], af[SRL_FORMAT_NAME_LEN + 2], pm[16], am[16], ord[40];
    format_text(pf, sizeof pf, &c->prod_fmt);
    format_text(af, sizeof af, &c->acc_fmt);
    srl_rounding_name(pm, sizeof pm, c->prod_mode);
    srl_rounding_name(am, sizeof am, c->acc_mode);
    if (c->order == SRL_ORDER_BLOCKED)
        snprintf(ord, sizeof ord, "blocked:%zu", c->block);
    else
        snprintf(ord, sizeof ord, "%s", c->order == SRL_ORDER_PAIRWISE ? "pairwise" : "recursive");
    char jn[SRL_FORMAT_NAME_LEN + 32] = "";
    if (c->join) {
        char jf[SRL_FORMAT_NAME_LEN + 2], jm[16];
        format_text(jf, sizeof jf, &c->join_fmt);
        srl_rounding_name(jm, sizeof jm, c->join_mode);
        snprintf(jn, sizeof jn, ",join=%s:%s", jf, jm);
    }
    snprintf(buf, len, "prod=%s:%s,acc=%s:%s,fma=%s,order=%s,kahan=%s%s", pf, pm, af, am,
             c->fma ? "on" : "off", ord, c->kahan ? "on" : "off", jn);
    return buf;
}

/* Accumulation roundings of one n-term sum (kernels.h, "Draws"). */
static uint64_t acc_rounds(size_t n, const srl_accum *c)
{
    if (n == 0)
        return 0;
    const uint64_t N = n;
    if (c->kahan)
        return 4 * N - 3;
    if (c->order == SRL_ORDER_PAIRWISE)
        return 2 * N - 1;
    if (c->order == SRL_ORDER_BLOCKED)
        return N + (N + c->block - 1) / c->block - 1;
    return N;
}

uint64_t srl_sum_draws(size_t n, const srl_accum *c)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK || !acc_stochastic(c))
        return 0;
    return acc_rounds(n, c);
}

/* Product draws of one n-term dot product. */
static uint64_t prod_draws(size_t n, const srl_accum *c)
{
    return (!c->fma && srl_rounding_is_stochastic(c->prod_mode)) ? (uint64_t)n : 0;
}

uint64_t srl_dot_draws(size_t n, const srl_accum *c)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK)
        return 0;
    return prod_draws(n, c) + srl_sum_draws(n, c);
}

uint64_t srl_axpy_draws(size_t n, const srl_accum *c)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK)
        return 0;
    const bool sto = srl_rounding_is_stochastic(c->acc_mode) || prod_draws(1, c) != 0;
    return sto ? 2 * (uint64_t)n : 0;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t srl_gemv_draws(size_t m, size_t n, const srl_accum *c)
{
    return mul_sat(m, srl_dot_draws(n, c));
}

uint64_t srl_gemm_draws(size_t m, size_t n, size_t k, const srl_accum *c)
{
    return mul_sat(mul_sat(m, n), srl_dot_draws(k, c));
}
