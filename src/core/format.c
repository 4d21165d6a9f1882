/* src/core/format.c: format values, presets, parsing, grid queries and bit encodings (docs/design.md §2).
 * The contract, including the encoding and the no-infinity convention, is in
 * include/srlab/format.h. */
#include "srlab/format.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ceil_log2(long v)
{
    int b = 0;
    while ((1L << b) < v)
        b++;
    return b;
}

/* A format's one name: the preset's when its parameters are a preset's (so "p=8,emax=127" and
 * "bf16,saturate=off" are "bf16"), else the canonical spelling of its spec. */
static void canonical_name(srl_format *f)
{
    for (size_t i = 0; i < srl_format_preset_count(); i++)
        if (srl_format_equal(f, srl_format_preset(i))) {
            snprintf(f->name, sizeof f->name, "%s", srl_format_preset(i)->name);
            return;
        }
    int n = snprintf(f->name, sizeof f->name, "p=%d,emax=%d", f->p, f->emax);
    if (f->emin != 1 - f->emax)
        n += snprintf(f->name + n, sizeof f->name - (size_t)n, ",emin=%d", f->emin);
    if (!f->subnormals)
        n += snprintf(f->name + n, sizeof f->name - (size_t)n, ",subnormals=off");
    if (!f->inf)
        n += snprintf(f->name + n, sizeof f->name - (size_t)n, ",inf=off");
    if (!f->nan)
        n += snprintf(f->name + n, sizeof f->name - (size_t)n, ",nan=off");
    if (f->saturate)
        snprintf(f->name + n, sizeof f->name - (size_t)n, ",saturate=on");
}

/* srl_format_make with the nan flag (srl_format_parse's nan= key). */
static int make(srl_format *f, int p, int emax, int emin, bool subnormals, bool inf, bool nan,
                bool saturate, srl_err *err)
{
    if (p < 2 || p > 53)
        return srl_err_set(err, SRL_EINVAL,
                           "precision p=%d is impossible: p counts the significand bits including "
                           "the hidden bit and must be between 2 and 53 (binary64)", p);
    if (emax > 1023)
        return srl_err_set(err, SRL_EINVAL,
                           "emax=%d exceeds binary64's 1023: srlab formats are subsets of binary64",
                           emax);
    if (emin > emax)
        return srl_err_set(err, SRL_EINVAL, "emin=%d is larger than emax=%d", emin, emax);
    if ((long)emin - p + 1 < -1074)
        return srl_err_set(err, SRL_EINVAL,
                           "emin=%d with p=%d puts the smallest spacing 2^%ld below binary64's "
                           "2^-1074", emin, p, (long)emin - p + 1);
    if (!nan && inf)
        return srl_err_set(err, SRL_EINVAL, "a format with infinities has NaN (nan=off needs "
                           "inf=off)");
    if (!nan && !saturate)
        return srl_err_set(err, SRL_EINVAL, "without NaN and infinities nothing can stand for an "
                           "overflow: nan=off needs saturate=on");
    memset(f, 0, sizeof *f);
    f->p = p;
    f->emax = emax;
    f->emin = emin;
    f->subnormals = subnormals;
    f->inf = inf;
    f->saturate = saturate;
    f->nan = nan;
    long codes = (long)emax - emin + 2 + (inf ? 1 : 0); /* zero/subnormal, normals, inf/NaN */
    f->ebits = ceil_log2(codes);
    if (f->ebits < 1)
        f->ebits = 1;
    f->width = 1 + f->ebits + p - 1;
    f->u = ldexp(1.0, -p);
    f->xmin = ldexp(1.0, emin);
    f->xsub = subnormals ? ldexp(1.0, emin - p + 1) : f->xmin;
    /* Without infinities the all-ones pattern is NaN; if the exponent field is full it would
     * have been the top significand of the top binade, which is then given up (OCP E4M3). Without
     * NaN either it stays a number (OCP E2M1, E3M2, E2M3). */
    bool full = !inf && nan && ((long)emax - emin + 2 == (1L << f->ebits));
    f->xmax = ldexp(2.0 - ldexp(1.0, (full ? 2 : 1) - p), emax);
    canonical_name(f);
    return SRL_OK;
}

int srl_format_make(srl_format *f, int p, int emax, int emin, bool subnormals, bool inf,
                    bool saturate, srl_err *err)
{
    return make(f, p, emax, emin, subnormals, inf, true, saturate, err);
}

/* ---- presets: one table ----
 * The derived fields are spelled out so the table is a compile-time constant;
 * tests/test_format.c checks every row against srl_format_make. */

static const srl_format presets[] = {
    /* name   p   emin   emax  sub   inf    sat    nan    ebits width u      xmin       xsub       xmax */
    {"bf16",  8,  -126,  127,  true, true,  false, true,  8,  16, 0x1p-8,  0x1p-126,  0x1p-133,  0x1.fep127},
    {"fp16",  11, -14,   15,   true, true,  false, true,  5,  16, 0x1p-11, 0x1p-14,   0x1p-24,   0x1.ffcp15},
    {"fp32",  24, -126,  127,  true, true,  false, true,  8,  32, 0x1p-24, 0x1p-126,  0x1p-149,  0x1.fffffep127},
    {"tf32",  11, -126,  127,  true, true,  false, true,  8,  19, 0x1p-11, 0x1p-126,  0x1p-136,  0x1.ffcp127},
    {"e4m3",  4,  -6,    8,    true, false, false, true,  4,  8,  0x1p-4,  0x1p-6,    0x1p-9,    0x1.cp8},
    {"e5m2",  3,  -14,   15,   true, true,  false, true,  5,  8,  0x1p-3,  0x1p-14,   0x1p-16,   0x1.cp15},
    {"fp64",  53, -1022, 1023, true, true,  false, true,  11, 64, 0x1p-53, 0x1p-1022, 0x1p-1074, 0x1.fffffffffffffp1023},
    {"e2m1",  2,  0,     2,    true, false, true,  false, 2,  4,  0x1p-2,  0x1p0,     0x1p-1,    0x1.8p2},
    {"e3m2",  3,  -2,    4,    true, false, true,  false, 3,  6,  0x1p-3,  0x1p-2,    0x1p-4,    0x1.cp4},
    {"e2m3",  4,  0,     2,    true, false, true,  false, 2,  6,  0x1p-4,  0x1p0,     0x1p-3,    0x1.ep2},
    {"int8",  7,  0,     0,    true, false, true,  false, 1,  8,  0x1p-7,  0x1p0,     0x1p-6,    0x1.fcp0},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

size_t srl_format_preset_count(void)
{
    return NPRESETS;
}

const srl_format *srl_format_preset(size_t i)
{
    return i < NPRESETS ? &presets[i] : NULL;
}

/* ---- names users type ----
 * What a user of PyTorch, NumPy, ml_dtypes, JAX or CPFloat would write for a preset, compared
 * without regard to case ("E4M3", "BFloat16"), after an optional module prefix ("torch.",
 * "np.", ...): one row per alias, so every spelling of one format gives its one name. */
static const struct alias {
    const char *name, *preset;
} aliases[] = {
    {"bfloat16", "bf16"},        {"b", "bf16"},
    {"half", "fp16"},            {"float16", "fp16"},        {"binary16", "fp16"},
    {"f16", "fp16"},             {"h", "fp16"},
    {"single", "fp32"},          {"float", "fp32"},          {"float32", "fp32"},
    {"binary32", "fp32"},        {"f32", "fp32"},            {"s", "fp32"},
    {"tensorfloat32", "tf32"},   {"tensorfloat-32", "tf32"}, {"t", "tf32"},
    {"float8_e4m3fn", "e4m3"},   {"float8_e4m3", "e4m3"},    {"e4m3fn", "e4m3"},
    {"fp8_e4m3", "e4m3"},        {"fp8-e4m3", "e4m3"},       {"f8e4m3fn", "e4m3"},
    {"q43", "e4m3"},
    {"float8_e5m2", "e5m2"},     {"fp8_e5m2", "e5m2"},       {"fp8-e5m2", "e5m2"},
    {"f8e5m2", "e5m2"},          {"q52", "e5m2"},
    {"double", "fp64"},          {"float64", "fp64"},        {"binary64", "fp64"},
    {"f64", "fp64"},             {"d", "fp64"},
    {"float4_e2m1fn", "e2m1"},   {"fp4_e2m1", "e2m1"},
    {"float6_e3m2fn", "e3m2"},   {"fp6_e3m2", "e3m2"},
    {"float6_e2m3fn", "e2m3"},   {"fp6_e2m3", "e2m3"},
};
static const char *const prefixes[] = {"torch.", "numpy.", "np.", "jnp.", "ml_dtypes."};

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if ((*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) != *b)
            return false;
    return !*a && !*b;
}

/* The preset a name denotes (a preset's own name or an alias, any case), or NULL. */
static const srl_format *find_name(const char *name)
{
    for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++) {
        size_t n = strlen(prefixes[k]);
        if (!strncmp(name, prefixes[k], n) && name[n]) {
            name += n;
            break;
        }
    }
    for (size_t i = 0; i < NPRESETS; i++)
        if (same_name(name, presets[i].name))
            return &presets[i];
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (same_name(name, aliases[i].name))
            return srl_format_find(aliases[i].preset);
    return NULL;
}

const srl_format *srl_format_find(const char *name)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

/* ---- parsing ---- */

static const char *known_list(void)
{
    return "bf16, fp16, fp32, tf32, e4m3, e5m2, fp64, e2m1, e3m2, e2m3, int8 (or the names of "
           "PyTorch, NumPy and CPFloat: bfloat16, half, float8_e4m3fn, ...), or "
           "p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,nan=on|off][,saturate=on|off]";
}

static int parse_int(const char *s, size_t len, int *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno || v < INT_MIN / 2 || v > INT_MAX / 2)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_onoff(const char *s, size_t len, bool *out)
{
    if (len == 2 && !strncmp(s, "on", 2))
        *out = true;
    else if (len == 3 && !strncmp(s, "off", 3))
        *out = false;
    else
        return -1;
    return 0;
}

/* A format spec as it is read: the preset's values or the keys given so far. */
typedef struct spec_state {
    int p, emax, emin;
    bool have_p, have_emax, have_emin;
    bool sub, inf, sat, nan;
    unsigned seen; /* keys already given, to reject duplicates */
} spec_state;

/* The leading preset name of spec (the text before the first comma, when it has no '='): its
 * values into *st; *rest is where the keys start (NULL: the spec is the bare preset). */
static int parse_preset(spec_state *st, const srl_format **pre, const char *spec,
                        const char **rest, srl_err *err)
{
    const char *s = spec;
    const char *comma = strchr(s, ',');
    size_t first = comma ? (size_t)(comma - s) : strlen(s);
    *pre = NULL;
    *rest = spec;
    if (memchr(s, '=', first))
        return SRL_OK; /* no preset: keys from the start */
    char name[32];
    if (first >= sizeof name)
        return srl_err_set(err, SRL_EPARSE, "unknown format '%.*s'; known: %s",
                           (int)(first > 40 ? 40 : first), s, known_list());
    memcpy(name, s, first);
    name[first] = 0;
    *pre = find_name(name);
    if (!*pre && strstr(name, "fnuz"))
        return srl_err_set(err, SRL_EPARSE, "format '%s' is not srlab's: its encoding has no "
                           "negative zero (the pattern is its one NaN) and no infinity, and every "
                           "srlab format has signed zeros; e4m3 and e5m2 are the OCP formats "
                           "(PyTorch's float8_e4m3fn and float8_e5m2)", name);
    if (!*pre)
        return srl_err_set(err, SRL_EPARSE, "unknown format '%s'; known: %s", name,
                           known_list());
    st->p = (*pre)->p, st->emax = (*pre)->emax, st->emin = (*pre)->emin;
    st->have_p = st->have_emax = st->have_emin = true;
    st->sub = (*pre)->subnormals, st->inf = (*pre)->inf, st->sat = (*pre)->saturate;
    st->nan = (*pre)->nan;
    *rest = comma ? comma + 1 : NULL;
    if (comma && !comma[1])
        return srl_err_set(err, SRL_EPARSE, "format '%s': trailing comma", spec);
    return SRL_OK;
}

/* One key=value of length len at s into *st. */
static int parse_key(spec_state *st, const char *spec, const char *s, size_t len, srl_err *err)
{
    const char *eq = memchr(s, '=', len);
    if (!eq)
        return srl_err_set(err, SRL_EPARSE, "format '%s': '%.*s' is not key=value; expected %s",
                           spec, (int)len, s, known_list());
    size_t klen = (size_t)(eq - s);
    const char *v = eq + 1;
    size_t vlen = len - klen - 1;
    int bad = 0;
    static const char *const keys[] = {"p",   "emax",     "emin", "subnormals",
                                       "inf", "saturate", "nan"};
    for (unsigned kk = 0; kk < 7; kk++) {
        if (strlen(keys[kk]) == klen && !strncmp(s, keys[kk], klen)) {
            if (st->seen & (1u << kk))
                return srl_err_set(err, SRL_EPARSE, "format '%s': key '%s' given twice", spec,
                                   keys[kk]);
            st->seen |= 1u << kk;
        }
    }
    if (klen == 1 && s[0] == 'p')
        bad = parse_int(v, vlen, &st->p), st->have_p = true;
    else if (klen == 4 && !strncmp(s, "emax", 4))
        bad = parse_int(v, vlen, &st->emax), st->have_emax = true;
    else if (klen == 4 && !strncmp(s, "emin", 4))
        bad = parse_int(v, vlen, &st->emin), st->have_emin = true;
    else if (klen == 10 && !strncmp(s, "subnormals", 10))
        bad = parse_onoff(v, vlen, &st->sub);
    else if (klen == 3 && !strncmp(s, "inf", 3))
        bad = parse_onoff(v, vlen, &st->inf);
    else if (klen == 8 && !strncmp(s, "saturate", 8))
        bad = parse_onoff(v, vlen, &st->sat);
    else if (klen == 3 && !strncmp(s, "nan", 3))
        bad = parse_onoff(v, vlen, &st->nan);
    else
        return srl_err_set(err, SRL_EPARSE,
                           "format '%s': unknown key '%.*s' (keys: p, emax, emin, subnormals, "
                           "inf, nan, saturate)", spec, (int)klen, s);
    if (bad)
        return srl_err_set(err, SRL_EPARSE, "format '%s': bad value '%.*s' for '%.*s'", spec,
                           (int)vlen, v, (int)klen, s);
    return SRL_OK;
}

int srl_format_parse(srl_format *f, const char *spec, srl_err *err)
{
    if (!spec || !*spec)
        return srl_err_set(err, SRL_EPARSE, "empty format name; expected %s", known_list());
    spec_state st = {.sub = true, .inf = true, .sat = false, .nan = true};
    const srl_format *pre;
    const char *s;
    int rc = parse_preset(&st, &pre, spec, &s, err);
    if (rc)
        return rc;
    if (pre && !s) {
        *f = *pre;
        return SRL_OK;
    }
    while (*s) {
        const char *end = strchr(s, ',');
        if ((rc = parse_key(&st, spec, s, end ? (size_t)(end - s) : strlen(s), err)))
            return rc;
        if (!end)
            break;
        s = end + 1;
        if (!*s)
            return srl_err_set(err, SRL_EPARSE, "format '%s': trailing comma", spec);
    }
    if (!st.have_p || !st.have_emax)
        return srl_err_set(err, SRL_EPARSE, "format '%s': a custom format needs p= and emax=; "
                           "expected %s", spec, known_list());
    if (!st.have_emin) {
        /* the default emin is the user's emax in disguise: say so in terms of what was given */
        st.emin = 1 - st.emax;
        if (st.emax < 1) /* (with emax <= 1023, 1 - emax never goes below binary64's range) */
            return srl_err_set(err, SRL_EINVAL, "format '%s': emax=%d is too small: without emin= "
                               "the smallest normal exponent is 1 - emax = %d, above emax (give "
                               "emax >= 1, or emin=)", spec, st.emax, st.emin);
    }
    return make(f, st.p, st.emax, st.emin, st.sub, st.inf, st.nan, st.sat, err);
}

/* ---- grid queries ---- */

static int quantum_exp(const srl_format *f, double ax)
{
    int e;
    (void)frexp(ax, &e);
    e -= 1; /* floor(log2 ax) */
    if (e >= f->emin)
        return e - f->p + 1;
    return f->subnormals ? f->emin - f->p + 1 : f->emin;
}

double srl_format_ulp(const srl_format *f, double x)
{
    if (!isfinite(x))
        return NAN;
    if (x == 0)
        return f->subnormals ? f->xsub : f->xmin;
    return ldexp(1.0, quantum_exp(f, fabs(x)));
}

bool srl_format_contains(const srl_format *f, double x)
{
    if (isnan(x))
        return f->nan;
    if (isinf(x))
        return f->inf;
    double ax = fabs(x);
    if (ax == 0)
        return true;
    if (ax > f->xmax)
        return false;
    if (ax < f->xmin && !f->subnormals)
        return false;
    double m = ldexp(ax, -quantum_exp(f, ax)); /* exact: m < 2^p */
    return m == floor(m);
}

bool srl_format_equal(const srl_format *a, const srl_format *b)
{
    return a->p == b->p && a->emax == b->emax && a->emin == b->emin &&
           a->subnormals == b->subnormals && a->inf == b->inf && a->saturate == b->saturate &&
           a->nan == b->nan;
}

/* ---- encodings ---- */

int srl_format_encode(uint64_t *bits, const srl_format *f, double x)
{
    if (f->width > 64)
        return SRL_ERANGE;
    if (!srl_format_contains(f, x))
        return SRL_EINVAL;
    const int fb = f->p - 1;
    const uint64_t fmask = (fb == 64) ? ~UINT64_C(0) : ((UINT64_C(1) << fb) - 1);
    const uint64_t ecodes = (UINT64_C(1) << f->ebits) - 1;
    uint64_t sign = signbit(x) ? UINT64_C(1) << (f->width - 1) : 0;
    if (isnan(x)) {
        if (f->inf)
            *bits = (ecodes << fb) | (UINT64_C(1) << (fb - 1));
        else
            *bits = (ecodes << fb) | fmask;
        return SRL_OK;
    }
    if (isinf(x)) {
        *bits = sign | (ecodes << fb);
        return SRL_OK;
    }
    double ax = fabs(x);
    if (ax == 0) {
        *bits = sign;
        return SRL_OK;
    }
    int e;
    (void)frexp(ax, &e);
    e -= 1;
    if (e < f->emin) { /* subnormal: code 0, fraction = ax / 2^(emin-p+1) */
        *bits = sign | (uint64_t)ldexp(ax, -(f->emin - f->p + 1));
        return SRL_OK;
    }
    uint64_t code = (uint64_t)((long)e - f->emin + 1);
    uint64_t m = (uint64_t)ldexp(ax, -(e - f->p + 1)); /* 2^(p-1) <= m < 2^p */
    *bits = sign | (code << fb) | (m & fmask);
    return SRL_OK;
}

int srl_format_decode(double *x, const srl_format *f, uint64_t bits)
{
    if (f->width > 64)
        return SRL_ERANGE;
    if (f->width < 64 && (bits >> f->width))
        return SRL_ERANGE;
    const int fb = f->p - 1;
    const uint64_t fmask = (UINT64_C(1) << fb) - 1;
    const uint64_t ecodes = (UINT64_C(1) << f->ebits) - 1;
    bool neg = (bits >> (f->width - 1)) & 1u;
    uint64_t code = (bits >> fb) & ecodes;
    uint64_t frac = bits & fmask;
    double v;
    if (f->inf && code == ecodes) {
        v = frac ? NAN : INFINITY;
    } else if (!f->inf && f->nan && code == ecodes && frac == fmask) {
        v = NAN;
    } else if (code == 0) {
        if (frac && !f->subnormals)
            return SRL_EINVAL; /* a subnormal pattern in a format without subnormals */
        v = ldexp((double)frac, f->emin - f->p + 1);
    } else {
        long e = (long)code - 1 + f->emin;
        if (e > f->emax)
            return SRL_EINVAL; /* an exponent code the format does not use */
        v = ldexp((double)(frac | (fmask + 1)), (int)(e - fb));
        if (v > f->xmax)
            return SRL_EINVAL;
    }
    *x = neg ? -v : v;
    return SRL_OK;
}

bool srl_format_fits_float(const srl_format *f)
{
    return f->p <= 24 && f->emax <= 127 && f->emin - f->p + 1 >= -149;
}

bool srl_format_is_bf16(const srl_format *f)
{
    const srl_format *b = srl_format_find("bf16");
    return b && srl_format_equal(f, b);
}
