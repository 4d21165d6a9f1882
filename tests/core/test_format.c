/* tests/core/test_format.c: formats as values (include/srlab/format.h), suite `unit`.
 *
 * Expectations are derived here from the header's definitions, not read back from the library:
 *   values      +-M 2^(e-p+1), 0 <= M < 2^p, emin <= e <= emax (normals M >= 2^(p-1));
 *   xmax        (2 - 2^(1-p)) 2^emax, or (2 - 2^(2-p)) 2^emax without infinities when the
 *               exponent field is full (the all-ones pattern is NaN and its number is given up);
 *   encoding    sign | exponent field | p-1 fraction bits, bias 1-emin, code 0 for zero and
 *               subnormals, all-ones code for inf/NaN when the format has infinities;
 *   ebits       the fewest bits holding codes 0 .. emax-emin+1 (+1 for inf/NaN);
 *   per sign    1 zero + (2^(p-1) - 1 subnormals) + (emax-emin+1) 2^(p-1) normals (- 1 given up).
 * Every check is an equality; nothing here is statistical (the fp32/tf32/fp64 samples use a
 * fixed seed and are compared with the C types' own bit patterns). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/config.h"
#include "srlab/format.h"
#include "srlab/mode.h"
#include "srlab/rng.h"
#include "../testutil.h"

/* ---- independent model ---- */

typedef struct model {
    int p, emin, emax;
    bool sub, inf, nan;
    int ebits, width;
    bool full; /* no infinities and the exponent field is full: the all-ones number is given up
                  (only with NaN: without NaN and infinities every pattern is a number) */
    double xmax;
} model;

static model model_of(int p, int emax, int emin, bool sub, bool inf, bool nan)
{
    model m = {p, emin, emax, sub, inf, nan, 0, 0, false, 0};
    const long codes = (long)emax - emin + 2 + (inf ? 1 : 0);
    m.ebits = 1;
    while ((1L << m.ebits) < codes)
        m.ebits++;
    m.width = 1 + m.ebits + p - 1;
    m.full = !inf && nan && (long)emax - emin + 2 == (1L << m.ebits);
    m.xmax = ldexp(2.0 - ldexp(1.0, (m.full ? 2 : 1) - p), emax);
    return m;
}

static model model_of_format(const srl_format *f)
{
    return model_of(f->p, f->emax, f->emin, f->subnormals, f->inf, f->nan);
}

/* Is x (finite) a value of the model? Checked from the definition of the grid. */
static bool model_contains(const model *m, double x)
{
    const double ax = fabs(x);
    if (ax == 0)
        return true;
    if (ax > m->xmax)
        return false;
    int e;
    (void)frexp(ax, &e);
    e -= 1; /* floor(log2 |x|) */
    if (e < m->emin && !m->sub)
        return false;
    const int q = (e < m->emin ? m->emin : e) - m->p + 1;
    const double M = ldexp(ax, -q); /* exact: a power-of-two scaling of a binary64 number */
    return M == floor(M) && M < ldexp(1.0, m->p);
}

/* The model's reading of a bit pattern: 0 a number (*x set), 1 NaN, -1 an unused pattern. */
static int model_decode(const model *m, uint64_t b, double *x)
{
    const int fb = m->p - 1;
    const uint64_t fmask = (UINT64_C(1) << fb) - 1, emask = (UINT64_C(1) << m->ebits) - 1;
    const bool neg = (b >> (m->width - 1)) & 1u;
    const uint64_t E = (b >> fb) & emask, F = b & fmask;
    double v;
    if (m->inf && E == emask) {
        if (F)
            return 1;
        v = INFINITY;
    } else if (!m->inf && m->nan && E == emask && F == fmask) {
        return 1;
    } else if (E == 0) {
        if (F && !m->sub)
            return -1;
        v = ldexp((double)F, m->emin - m->p + 1);
    } else {
        const long e = (long)E - 1 + m->emin;
        if (e > m->emax)
            return -1;
        v = ldexp((double)(F | (fmask + 1)), (int)(e - fb));
        if (v > m->xmax)
            return -1;
    }
    *x = neg ? -v : v;
    return 0;
}

static uint64_t model_canonical_nan(const model *m)
{
    const int fb = m->p - 1;
    const uint64_t emask = (UINT64_C(1) << m->ebits) - 1;
    if (m->inf)
        return (emask << fb) | (UINT64_C(1) << (fb - 1));
    return (emask << fb) | ((UINT64_C(1) << fb) - 1); /* the sign bit: see test_encode_nan */
}

static uint64_t dbits(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
}

static int fmt_make(srl_format *f, const char *spec)
{
    srl_err err = {{0}};
    const int st = srl_format_parse(f, spec, &err);
    CHECK(st == SRL_OK, "parse \"%s\" failed (%d): %s", spec, st, err.msg);
    return st;
}

/* ---- presets ---- */

typedef struct preset_want {
    const char *name;
    int p, emin, emax;
    bool sub, inf, sat, nan;
    int ebits, width;
    double u, xmin, xsub, xmax;
} preset_want;

/* By hand from the definitions: u = 2^-p, xmin = 2^emin, xsub = 2^(emin-p+1),
 * xmax = (2 - 2^(1-p)) 2^emax except e4m3 (no inf, field full): (2 - 2^-2) 2^8 = 448. The OCP
 * Microscaling elements (OCP MX v1.0 tables): e2m1 0, 0.5, ..., 6; e3m2 up to 28, smallest
 * 0.0625; e2m3 up to 7.5, smallest 0.125; int8 k/64 up to 127/64. */
static const preset_want want_presets[] = {
    {"bf16", 8, -126, 127, true, true, false, true, 8, 16, 0x1p-8, 0x1p-126, 0x1p-133, 0x1.fep127},
    {"fp16", 11, -14, 15, true, true, false, true, 5, 16, 0x1p-11, 0x1p-14, 0x1p-24, 65504.0},
    {"fp32", 24, -126, 127, true, true, false, true, 8, 32, 0x1p-24, FLT_MIN, 0x1p-149, FLT_MAX},
    {"tf32", 11, -126, 127, true, true, false, true, 8, 19, 0x1p-11, 0x1p-126, 0x1p-136,
     0x1.ffcp127},
    {"e4m3", 4, -6, 8, true, false, false, true, 4, 8, 0x1p-4, 0x1p-6, 0x1p-9, 448.0},
    {"e5m2", 3, -14, 15, true, true, false, true, 5, 8, 0x1p-3, 0x1p-14, 0x1p-16, 57344.0},
    {"fp64", 53, -1022, 1023, true, true, false, true, 11, 64, 0x1p-53, DBL_MIN, 0x1p-1074,
     DBL_MAX},
    {"e2m1", 2, 0, 2, true, false, true, false, 2, 4, 0.25, 1.0, 0.5, 6.0},
    {"e3m2", 3, -2, 4, true, false, true, false, 3, 6, 0.125, 0.25, 0.0625, 28.0},
    {"e2m3", 4, 0, 2, true, false, true, false, 2, 6, 0.0625, 1.0, 0.125, 7.5},
    {"int8", 7, 0, 0, true, false, true, false, 1, 8, 0x1p-7, 1.0, 1.0 / 64, 127.0 / 64},
};

static bool same_derived(const srl_format *a, const srl_format *b)
{
    return srl_format_equal(a, b) && a->ebits == b->ebits && a->width == b->width &&
           a->u == b->u && a->xmin == b->xmin && a->xsub == b->xsub && a->xmax == b->xmax;
}

static void test_presets(void)
{
    const long before = srl_test_failures;
    const size_t n = sizeof want_presets / sizeof want_presets[0];
    CHECK(srl_format_preset_count() == n, "preset count %zu, want %zu", srl_format_preset_count(),
          n);
    for (size_t i = 0; i < n && i < srl_format_preset_count(); i++) {
        const srl_format *f = srl_format_preset(i);
        const preset_want *w = &want_presets[i];
        CHECK(f != NULL && strcmp(f->name, w->name) == 0, "preset %zu is \"%s\", want \"%s\"", i,
              f ? f->name : "(null)", w->name);
        if (!f)
            continue;
        CHECK(f->p == w->p && f->emin == w->emin && f->emax == w->emax &&
                  f->subnormals == w->sub && f->inf == w->inf && f->saturate == w->sat &&
                  f->nan == w->nan,
              "%s: p=%d emin=%d emax=%d sub=%d inf=%d sat=%d nan=%d", w->name, f->p, f->emin,
              f->emax, f->subnormals, f->inf, f->saturate, f->nan);
        CHECK(f->ebits == w->ebits && f->width == w->width, "%s: ebits %d width %d, want %d %d",
              w->name, f->ebits, f->width, w->ebits, w->width);
        CHECK(f->u == w->u && f->xmin == w->xmin && f->xsub == w->xsub && f->xmax == w->xmax,
              "%s: u %a xmin %a xsub %a xmax %a; want %a %a %a %a", w->name, f->u, f->xmin,
              f->xsub, f->xmax, w->u, w->xmin, w->xsub, w->xmax);
        /* the model agrees with the hand-written row */
        const model m = model_of(w->p, w->emax, w->emin, w->sub, w->inf, w->nan);
        CHECK(m.ebits == w->ebits && m.width == w->width && m.xmax == w->xmax,
              "%s: the test's model disagrees with its own table", w->name);
        /* the row equals srl_format_make of its parameters (the spec with nan=off without NaN) */
        srl_format g;
        srl_err err = {{0}};
        char spec[128];
        snprintf(spec, sizeof spec, "p=%d,emax=%d,emin=%d,subnormals=%s,inf=%s,saturate=%s%s",
                 w->p, w->emax, w->emin, w->sub ? "on" : "off", w->inf ? "on" : "off",
                 w->sat ? "on" : "off", w->nan ? "" : ",nan=off");
        const int st = w->nan ? srl_format_make(&g, w->p, w->emax, w->emin, w->sub, w->inf,
                                                w->sat, &err)
                              : srl_format_parse(&g, spec, &err);
        CHECK(st == SRL_OK && same_derived(f, &g),
              "%s: srl_format_make gives ebits %d width %d u %a xmin %a xsub %a xmax %a (%s)",
              w->name, g.ebits, g.width, g.u, g.xmin, g.xsub, g.xmax, err.msg);
        /* find and parse by name return the preset itself */
        CHECK(srl_format_find(w->name) == f, "srl_format_find(\"%s\")", w->name);
        srl_format h;
        const int st2 = srl_format_parse(&h, w->name, &err);
        CHECK(st2 == SRL_OK && same_derived(&h, f) && strcmp(h.name, w->name) == 0,
              "parse(\"%s\"): status %d name \"%s\"", w->name, st2, h.name);
    }
    CHECK(srl_format_find("bf17") == NULL && srl_format_find("") == NULL &&
              srl_format_find("p=8,emax=127") == NULL,
          "srl_format_find accepts a non-preset name");
    /* fp32 and fp64 are binary32 and binary64 */
    const srl_format *f32 = srl_format_find("fp32"), *f64 = srl_format_find("fp64");
    CHECK(f32 && f32->p == FLT_MANT_DIG && f32->emax == FLT_MAX_EXP - 1 &&
              f32->emin == FLT_MIN_EXP - 1,
          "fp32 is not binary32");
    CHECK(f64 && f64->p == DBL_MANT_DIG && f64->emax == DBL_MAX_EXP - 1 &&
              f64->emin == DBL_MIN_EXP - 1,
          "fp64 is not binary64");
    GROUP("presets: hand-derived values, rows == srl_format_make, find/parse by name", before);
}

/* ---- parsing ---- */

static void test_parse_accept(void)
{
    const long before = srl_test_failures;
    srl_format f, g, h;
    srl_err err = {{0}};
    /* a custom spec equal to a preset's parameters: the preset, by its one name */
    if (fmt_make(&f, "p=8,emax=127") == SRL_OK) {
        CHECK(same_derived(&f, srl_format_find("bf16")) && strcmp(f.name, "bf16") == 0,
              "\"p=8,emax=127\": name \"%s\" or fields differ from bf16", f.name);
    }
    if (fmt_make(&f, "p=8,emax=127,emin=-126") == SRL_OK)
        CHECK(strcmp(f.name, "bf16") == 0, "p=8,emax=127,emin=-126: name \"%s\"", f.name);
    if (fmt_make(&f, "e4m3,saturate=off") == SRL_OK)
        CHECK(strcmp(f.name, "e4m3") == 0, "e4m3,saturate=off: name \"%s\"", f.name);
    if (srl_format_make(&f, 24, 127, -126, true, true, false, &err) == SRL_OK)
        CHECK(strcmp(f.name, "fp32") == 0, "srl_format_make(fp32's parameters): name \"%s\"",
              f.name);
    /* key order and spelled-out defaults do not change the format or its canonical name */
    if (fmt_make(&f, "emax=15,p=11") == SRL_OK &&
        fmt_make(&g, "p=11,emax=15,emin=-14,subnormals=on,inf=on,saturate=off") == SRL_OK) {
        CHECK(same_derived(&f, &g) && same_derived(&f, srl_format_find("fp16")) &&
                  strcmp(f.name, g.name) == 0,
              "fp16 spelled two ways: names \"%s\" and \"%s\"", f.name, g.name);
    }
    /* e4m3 spelled as a custom format has e4m3's values (the all-ones number given up) */
    if (fmt_make(&f, "p=4,emax=8,emin=-6,inf=off") == SRL_OK)
        CHECK(same_derived(&f, srl_format_find("e4m3")), "custom e4m3: xmax %a", f.xmax);
    /* preset with overrides: the preset's parameters, the override applied */
    if (fmt_make(&f, "e4m3,saturate=on") == SRL_OK) {
        const srl_format *e = srl_format_find("e4m3");
        CHECK(f.p == 4 && f.emax == 8 && f.emin == -6 && f.subnormals && !f.inf && f.saturate &&
                  f.xmax == 448.0 && f.ebits == e->ebits && f.width == e->width,
              "e4m3,saturate=on: p %d emax %d emin %d sub %d inf %d sat %d xmax %a", f.p, f.emax,
              f.emin, f.subnormals, f.inf, f.saturate, f.xmax);
        /* its name is the canonical custom spec: keys in the grammar's order, defaults omitted */
        CHECK(strcmp(f.name, "p=4,emax=8,emin=-6,inf=off,saturate=on") == 0,
              "e4m3,saturate=on: name \"%s\"", f.name);
        /* which re-parses to the same format and the same name */
        if (fmt_make(&g, f.name) == SRL_OK)
            CHECK(same_derived(&f, &g) && strcmp(f.name, g.name) == 0,
                  "\"%s\" re-parses as \"%s\"", f.name, g.name);
    }
    if (fmt_make(&f, "fp16,subnormals=off") == SRL_OK)
        CHECK(f.p == 11 && f.emax == 15 && f.emin == -14 && !f.subnormals && f.inf &&
                  f.xsub == 0x1p-14 && f.xmax == 65504.0,
              "fp16,subnormals=off: sub %d xsub %a", f.subnormals, f.xsub);
    if (fmt_make(&f, "bf16,emin=-100,inf=off") == SRL_OK)
        CHECK(f.p == 8 && f.emax == 127 && f.emin == -100 && !f.inf && f.xsub == 0x1p-107,
              "bf16,emin=-100,inf=off: emin %d inf %d xsub %a", f.emin, f.inf, f.xsub);
    /* canonical names are canonical: every custom spelling below re-parses to itself */
    const char *specs[] = {"p=2,emax=1",
                           "p=3,emax=5,emin=-3,inf=off",
                           "p=5,emax=7,subnormals=off",
                           "saturate=on,p=7,emax=9",
                           "p=53,emax=1023,emin=-1022",
                           "p=2,emax=-1073,emin=-1073",
                           "p=24,emax=127,emin=-126,subnormals=off,inf=off,saturate=on",
                           "fp64,saturate=on"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        if (fmt_make(&f, specs[i]) != SRL_OK)
            continue;
        const int st = srl_format_parse(&g, f.name, &err);
        CHECK(st == SRL_OK && same_derived(&f, &g) && strcmp(f.name, g.name) == 0,
              "\"%s\" has name \"%s\", which parses (%d) to \"%s\"", specs[i], f.name, st, g.name);
        /* and srl_format_make gives the same format and name */
        const int st2 = srl_format_make(&h, f.p, f.emax, f.emin, f.subnormals, f.inf, f.saturate,
                                        &err);
        CHECK(st2 == SRL_OK && same_derived(&f, &h) && strcmp(f.name, h.name) == 0,
              "\"%s\": make gives \"%s\"", specs[i], h.name);
    }
    /* the extreme accepted range: smallest spacing exactly 2^-1074, largest binade 2^1023 */
    if (fmt_make(&f, "p=2,emax=-1073,emin=-1073") == SRL_OK)
        CHECK(f.xsub == 0x1p-1074 && f.xmin == 0x1p-1073 && f.xmax == 0x3p-1074,
              "p=2,emax=-1073: xsub %a xmin %a xmax %a", f.xsub, f.xmin, f.xmax);
    if (fmt_make(&f, "p=4,emax=1023,emin=993,inf=off") == SRL_OK)
        CHECK(f.xmax == 0x1.cp1023 && f.ebits == 5, "p=4,emax=1023,emin=993,inf=off: xmax %a",
              f.xmax);
    GROUP("srl_format_parse accepts presets, custom specs, overrides; canonical names", before);
}

static void test_parse_reject(void)
{
    const long before = srl_test_failures;
    static const struct {
        const char *spec;
        const char *piece; /* the message must name this ("" : only non-empty) */
    } bad[] = {
        {"", ""},
        {"bf17", "bf17"},
        {"fp16x", "fp16x"},
        {"float16x", "float16x"},
        {"float8_e4m3fnuz", "negative zero"},
        {"torch.", "torch."},
        {"bfloat", "bfloat"},
        {"p=8,emax=10,foo=1", "foo"},
        {"p=8,emax=10,Emax=3", "Emax"},
        {"bf16,colour=on", "colour"},
        {"p=abc,emax=10", "abc"},
        {"p=8,emax=1x", "1x"},
        {"p=8,emax=", "emax"},
        {"p=8,emax=99999999999", "99999999999"},
        {"p=8,emax=10,subnormals=yes", "yes"},
        {"p=8,emax=10,inf=maybe", "maybe"},
        {"p=8,emax=10,saturate=1", "saturate"},
        {"fp16,p", "p"},
        {"p=1,emax=10", "p=1"},
        {"p=0,emax=10", "p=0"},
        {"p=-3,emax=10", "-3"},
        {"p=54,emax=10", "54"},
        {"p=8,emax=17,emin=23", "23"},
        {"p=8,emax=1024", "1024"},
        {"p=8,emax=1024,emin=1000", "1024"},
        {"p=40,emax=100,emin=-1040", "-1040"},
        {"p=53,emax=1023,emin=-1023", "-1023"},
        {"p=2,emax=-1074,emin=-1074", "-1074"},
        {"p=8", "emax"},
        {"emax=10", "p"},
        {"p=8,emax=10,", ""},
        {"fp16,", ""},
        {",p=8,emax=10", ""},
        {"p=8,,emax=10", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        srl_format f;
        srl_err err;
        memset(&err, 0, sizeof err);
        const int st = srl_format_parse(&f, bad[i].spec, &err);
        CHECK(st == SRL_EPARSE || st == SRL_EINVAL, "\"%s\" accepted or wrong status (%d)",
              bad[i].spec, st);
        CHECK(err.msg[0] != 0, "\"%s\": empty message", bad[i].spec);
        CHECK(strstr(err.msg, bad[i].piece) != NULL, "\"%s\": message \"%s\" does not name \"%s\"",
              bad[i].spec, err.msg, bad[i].piece);
        /* err is optional */
        CHECK(srl_format_parse(&f, bad[i].spec, NULL) == st, "\"%s\": different status without err",
              bad[i].spec);
    }
    /* the same limits through srl_format_make */
    static const int bad_make[][3] = {{1, 10, -9}, {54, 10, -9}, {8, 17, 23}, {8, 1024, -1023},
                                      {53, 1023, -1023}};
    for (size_t i = 0; i < sizeof bad_make / sizeof bad_make[0]; i++) {
        srl_format f;
        srl_err err;
        memset(&err, 0, sizeof err);
        const int st = srl_format_make(&f, bad_make[i][0], bad_make[i][1], bad_make[i][2], true,
                                       true, false, &err);
        CHECK(st == SRL_EINVAL || st == SRL_EPARSE, "make(p=%d, emax=%d, emin=%d) status %d",
              bad_make[i][0], bad_make[i][1], bad_make[i][2], st);
        CHECK(err.msg[0] != 0, "make(p=%d, emax=%d, emin=%d): empty message", bad_make[i][0],
              bad_make[i][1], bad_make[i][2]);
    }
    GROUP("srl_format_parse / make reject bad specs, each with a message naming it", before);
}

/* ---- ulp and contains ---- */

/* ---- names users type ---- */

/* Every name of a format gives the preset, under its one name, in any case and with the module
 * prefixes of PyTorch, NumPy, JAX and ml_dtypes; every name of a mode gives the mode, and
 * srl_rounding_name its one name back. */
static void test_names(void)
{
    const long before = srl_test_failures;
    static const struct {
        const char *name, *preset;
    } fmts[] = {
        {"bfloat16", "bf16"},        {"BF16", "bf16"},          {"torch.bfloat16", "bf16"},
        {"jnp.bfloat16", "bf16"},    {"b", "bf16"},             {"half", "fp16"},
        {"float16", "fp16"},         {"np.float16", "fp16"},    {"numpy.float16", "fp16"},
        {"torch.half", "fp16"},      {"Binary16", "fp16"},      {"h", "fp16"},
        {"float32", "fp32"},         {"single", "fp32"},        {"torch.float", "fp32"},
        {"s", "fp32"},               {"TF32", "tf32"},          {"tensorfloat-32", "tf32"},
        {"float8_e4m3fn", "e4m3"},   {"torch.float8_e4m3fn", "e4m3"},
        {"ml_dtypes.float8_e4m3fn", "e4m3"},                    {"E4M3", "e4m3"},
        {"e4m3fn", "e4m3"},          {"fp8-e4m3", "e4m3"},      {"q43", "e4m3"},
        {"float8_e5m2", "e5m2"},     {"E5M2", "e5m2"},          {"q52", "e5m2"},
        {"double", "fp64"},          {"float64", "fp64"},       {"d", "fp64"},
        {"p=11,emax=15", "fp16"},    {"half,saturate=off", "fp16"},
    };
    for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++) {
        srl_format f;
        srl_err err = {{0}};
        const int st = srl_format_parse(&f, fmts[i].name, &err);
        CHECK(st == SRL_OK && same_derived(&f, srl_format_find(fmts[i].preset)) &&
                  !strcmp(f.name, fmts[i].preset),
              "\"%s\": status %d, name \"%s\" (want %s): %s", fmts[i].name, st, f.name,
              fmts[i].preset, err.msg);
    }
    /* an alias with overrides is the overridden preset, named by its spec */
    srl_format f;
    CHECK(srl_format_parse(&f, "float8_e4m3fn,saturate=on", NULL) == SRL_OK &&
              !strcmp(f.name, "p=4,emax=8,emin=-6,inf=off,saturate=on"),
          "float8_e4m3fn,saturate=on: \"%s\"", f.name);
    static const struct {
        const char *name, *canon;
    } modes[] = {
        {"stochastic", "sr"},           {"Stochastic", "sr"},       {"SR", "sr"},
        {"nearest", "rn"},              {"RNE", "rn"},              {"roundTiesToEven", "rn"},
        {"ROUND_NEAREST_EVEN", "rn"},   {"nearest-away", "rna"},    {"roundTiesToAway", "rna"},
        {"toward_zero", "rz"},          {"truncate", "rz"},         {"RZ", "rz"},
        {"up", "ru"},                   {"roundTowardPositive", "ru"}, {"ceil", "ru"},
        {"down", "rd"},                 {"floor", "rd"},            {"odd", "ro"},
        {"stochastic-equal", "sr-eq"},  {"SR-EQ", "sr-eq"},         {"SR:R=16", "sr:r=16"},
        {"sr:r=8", "sr:r=8"},
    };
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        srl_rounding m;
        char buf[32] = "";
        const int st = srl_rounding_parse(&m, modes[i].name, NULL);
        CHECK(st == SRL_OK && !strcmp(srl_rounding_name(buf, sizeof buf, m), modes[i].canon),
              "rounding \"%s\": status %d, name \"%s\" (want %s)", modes[i].name, st, buf,
              modes[i].canon);
    }
    static const char *const bad_modes[] = {"stochastical", "rtn", "sr:r=0", "sr:r=65", "",
                                            "nearest even", "sr:r=x"};
    for (size_t i = 0; i < sizeof bad_modes / sizeof *bad_modes; i++) {
        srl_rounding m;
        CHECK(srl_rounding_parse(&m, bad_modes[i], NULL) != SRL_OK, "\"%s\" accepted",
              bad_modes[i]);
    }
    /* one name per value for the config keys that hold them */
    char buf[SRL_FORMAT_NAME_LEN];
    CHECK(!strcmp(srl_config_canonical(buf, sizeof buf, "param-format", "[x]"), "[x]") &&
              !strcmp(srl_config_canonical(buf, sizeof buf, "format", "bfloat16"), "bf16") &&
              !strcmp(srl_config_canonical(buf, sizeof buf, "act-format", "p=8,emax=127"),
                      "bf16") &&
              !strcmp(srl_config_canonical(buf, sizeof buf, "m-rounding", "stochastic"), "sr") &&
              !strcmp(srl_config_canonical(buf, sizeof buf, "master-format", "none"), "none") &&
              !strcmp(srl_config_canonical(buf, sizeof buf, "lr", "bfloat16"), "bfloat16") &&
              !strcmp(srl_config_canonical(buf, sizeof buf, "informat", "half"), "half"),
          "srl_config_canonical");
    GROUP("names: aliases of formats and modes, one canonical name each", before);
}

static void test_ulp_contains(void)
{
    const long before = srl_test_failures;
    const srl_format *bf16 = srl_format_find("bf16"), *fp16 = srl_format_find("fp16"),
                     *e4m3 = srl_format_find("e4m3"), *fp64 = srl_format_find("fp64");
    srl_format nosub, deep;
    if (!bf16 || !fp16 || !e4m3 || !fp64 || fmt_make(&nosub, "bf16,subnormals=off") ||
        fmt_make(&deep, "p=2,emax=0,emin=-1073"))
        return;
    static const struct {
        int which; /* 0 bf16, 1 fp16, 2 e4m3, 3 fp64, 4 bf16 no subnormals, 5 deep */
        double x, ulp;
    } u[] = {
        {0, 1.0, 0x1p-7},        {0, 1.5, 0x1p-7},          {0, 0x1.fep0, 0x1p-7},
        {0, 2.0, 0x1p-6},        {0, -3.0, 0x1p-6},         {0, 0.99, 0x1p-8},
        {0, 0x1p-126, 0x1p-133}, {0, 0x1p-130, 0x1p-133},   {0, 0x1p-140, 0x1p-133},
        {0, 0.0, 0x1p-133},      {0, -0.0, 0x1p-133},       {0, 0x1p127, 0x1p120},
        {0, 0x1p200, 0x1p193},   {1, 1.0, 0x1p-10},         {1, 65504.0, 32.0},
        {1, 0x1p20, 0x1p10},     {1, 0x1p-20, 0x1p-24},     {1, 0x1.8p-14, 0x1p-24},
        {2, 448.0, 32.0},        {2, 1.0, 0x1p-3},          {2, 0x1p-8, 0x1p-9},
        {3, 1.0, 0x1p-52},       {3, DBL_MAX, 0x1p971},     {3, 0x1p-1074, 0x1p-1074},
        {3, DBL_MIN, 0x1p-1074}, {3, 0.0, 0x1p-1074},       {4, 0x1p-130, 0x1p-126},
        {4, 0.0, 0x1p-126},      {4, 0x1p-126, 0x1p-133},   {5, 0x1p-1073, 0x1p-1074},
        {5, 0x1p-1074, 0x1p-1074}, {5, 0.75, 0.25},
    };
    const srl_format *fs[6] = {bf16, fp16, e4m3, fp64, &nosub, &deep};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        const double got = srl_format_ulp(fs[u[i].which], u[i].x);
        CHECK(srl_test_same(got, u[i].ulp), "ulp(%a) in %s = %a, want %a", u[i].x,
              fs[u[i].which]->name, got, u[i].ulp);
    }
    CHECK(isnan(srl_format_ulp(bf16, INFINITY)) && isnan(srl_format_ulp(bf16, -INFINITY)) &&
              isnan(srl_format_ulp(bf16, NAN)),
          "ulp of a non-finite value is not NaN");
    static const struct {
        int which;
        double x;
        bool in;
    } c[] = {
        {0, 1.0, true},           {0, 1 + 0x1p-7, true},      {0, 1 + 0x1p-8, false},
        {0, 0x1.fep127, true},    {0, -0x1.fep127, true},     {0, 0x1p128, false},
        {0, 0x1p-133, true},      {0, 0x3p-133, true},        {0, 0x1p-134, false},
        {0, 0x1.02p-126, true},   {0, 0x1.01p-126, false},    {0, -0.0, true},
        {0, INFINITY, true},      {0, -INFINITY, true},       {0, NAN, true},
        {1, 65504.0, true},       {1, 65520.0, false},        {1, 0x1p-24, true},
        {1, 0x1p-25, false},      {1, 2049.0, false},         {1, 2050.0, true},
        {2, 448.0, true},         {2, -448.0, true},          {2, 480.0, false},
        {2, 464.0, false},        {2, INFINITY, false},       {2, NAN, true},
        {2, 0x1p-9, true},        {2, 0x1p-10, false},        {2, 0x1.ep0, true},
        {2, 0x1.fp0, false},      {4, 0x1p-133, false},       {4, 0x1p-126, true},
        {4, 0x1p-127, false},     {4, 0.0, true},             {5, 0x1p-1074, true},
        {5, 0x3p-1074, true},     {5, 0.75, true},            {5, 1.0, true},
        {5, 1.5, true},           {5, 1.25, false},           {5, 2.0, false},
        {3, 0x1p-1074, true},     {3, DBL_MAX, true},         {3, INFINITY, true},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const bool got = srl_format_contains(fs[c[i].which], c[i].x);
        CHECK(got == c[i].in, "contains(%s, %a) = %d", fs[c[i].which]->name, c[i].x, got);
    }
    GROUP("srl_format_ulp and srl_format_contains on chosen points", before);
}

/* ---- encodings ---- */

typedef struct finite_val {
    double v;
    uint64_t bits;
} finite_val;

static int cmp_val(const void *a, const void *b)
{
    const double x = ((const finite_val *)a)->v, y = ((const finite_val *)b)->v;
    if (x != y)
        return (x > y) - (x < y);
    const int sx = signbit(x) != 0, sy = signbit(y) != 0; /* -0 before +0 */
    return sy - sx;
}

/* All 2^width patterns of a format at most 16 bits wide. */
static void exhaustive(const srl_format *f)
{
    const long before = srl_test_failures;
    const model m = model_of_format(f);
    CHECK(f->ebits == m.ebits && f->width == m.width && f->xmax == m.xmax,
          "%s: ebits %d width %d xmax %a; model %d %d %a", f->name, f->ebits, f->width, f->xmax,
          m.ebits, m.width, m.xmax);
    if (f->width != m.width || m.width > 16)
        return;
    const uint64_t npat = UINT64_C(1) << m.width;
    finite_val *vals = malloc(npat * sizeof *vals);
    size_t nfin = 0;
    long ninf = 0, nnan = 0;
    for (uint64_t b = 0; b < npat; b++) {
        double x = 0, mx = 0;
        const int st = srl_format_decode(&x, f, b);
        const int mk = model_decode(&m, b, &mx);
        if (mk == -1) {
            CHECK(st != SRL_OK, "%s: unused pattern %#llx decodes to %a", f->name,
                  (unsigned long long)b, x);
            continue;
        }
        CHECK(st == SRL_OK, "%s: pattern %#llx (%s %a) does not decode: %d", f->name,
              (unsigned long long)b, mk ? "NaN" : "value", mx, st);
        if (st != SRL_OK)
            continue;
        if (mk == 1) {
            CHECK(isnan(x), "%s: pattern %#llx decodes to %a, want NaN", f->name,
                  (unsigned long long)b, x);
            nnan++;
        } else {
            CHECK(srl_test_same(x, mx), "%s: pattern %#llx decodes to %a, want %a", f->name,
                  (unsigned long long)b, x, mx);
        }
        if (isnan(x)) {
            uint64_t e = 0;
            const int se = srl_format_encode(&e, f, x);
            CHECK(se == SRL_OK && e == model_canonical_nan(&m),
                  "%s: NaN from %#llx encodes (%d) to %#llx, canonical %#llx", f->name,
                  (unsigned long long)b, se, (unsigned long long)e,
                  (unsigned long long)model_canonical_nan(&m));
            continue;
        }
        uint64_t e = ~UINT64_C(0);
        const int se = srl_format_encode(&e, f, x);
        CHECK(se == SRL_OK && e == b, "%s: %a decoded from %#llx encodes (%d) to %#llx", f->name,
              x, (unsigned long long)b, se, (unsigned long long)e);
        CHECK(srl_format_contains(f, x), "%s: decoded %a (%#llx) is not contained", f->name, x,
              (unsigned long long)b);
        if (isinf(x)) {
            ninf++;
            continue;
        }
        CHECK(model_contains(&m, x), "%s: decoded %a (%#llx) is not on the grid", f->name, x,
              (unsigned long long)b);
        vals[nfin].v = x;
        vals[nfin].bits = b;
        nfin++;
    }
    /* every value once per sign: distinct, all on the grid, and as many as the closed form */
    qsort(vals, nfin, sizeof *vals, cmp_val);
    long dup = 0, nneg = 0;
    for (size_t i = 0; i < nfin; i++) {
        nneg += signbit(vals[i].v) != 0;
        if (i && srl_test_same(vals[i].v, vals[i - 1].v) && ++dup <= 3)
            fprintf(stderr, "%s: %a decoded from both %#llx and %#llx\n", f->name, vals[i].v,
                    (unsigned long long)vals[i - 1].bits, (unsigned long long)vals[i].bits);
    }
    const long half = 1L << (m.p - 1);
    const long per_sign = 1 + (m.sub ? half - 1 : 0) + ((long)m.emax - m.emin + 1) * half -
                          (m.full ? 1 : 0);
    CHECK(dup == 0 && (long)nfin == 2 * per_sign && nneg == per_sign,
          "%s: %zu finite values (%ld negative, %ld repeated), closed form %ld per sign", f->name,
          nfin, nneg, dup, per_sign);
    CHECK(ninf == (m.inf ? 2 : 0), "%s: %ld infinities", f->name, ninf);
    CHECK(nnan == (m.inf ? 2 * (half - 1) : m.nan ? 2 : 0), "%s: %ld NaN patterns", f->name, nnan);
    /* the midpoints between neighbours are not values (when binary64 holds them exactly) */
    for (size_t i = 1; i < nfin; i++) {
        const double a = vals[i - 1].v, b = vals[i].v;
        if (a == b)
            continue;
        const double mid = a + (b - a) / 2;
        if (!(mid > a && mid < b) || mid - a != b - mid)
            continue;
        uint64_t e;
        const bool in = srl_format_contains(f, mid);
        const int se = srl_format_encode(&e, f, mid);
        if (in || se != SRL_EINVAL) {
            CHECK(!in && se == SRL_EINVAL, "%s: midpoint %a of %a and %a: contains %d, encode %d",
                  f->name, mid, a, b, in, se);
            break;
        }
    }
    /* beyond the largest finite, and patterns above the width */
    const double above = m.xmax + ldexp(1.0, m.emax - m.p + 1);
    uint64_t e;
    CHECK(!srl_format_contains(f, above) && srl_format_encode(&e, f, above) == SRL_EINVAL,
          "%s: %a above xmax is accepted", f->name, above);
    if (!m.inf)
        CHECK(!srl_format_contains(f, INFINITY) && srl_format_encode(&e, f, -INFINITY) == SRL_EINVAL,
              "%s: infinity accepted by a format without infinities", f->name);
    const uint64_t over[] = {npat, npat | 1u, npat << 1, ~UINT64_C(0), UINT64_C(1) << 63};
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        double x;
        CHECK(srl_format_decode(&x, f, over[i]) == SRL_ERANGE, "%s: decode(%#llx) is not ERANGE",
              f->name, (unsigned long long)over[i]);
    }
    free(vals);
    char name[160];
    snprintf(name, sizeof name, "encode/decode exhaustive: %s (width %d)", f->name, m.width);
    GROUP(name, before);
}

static void test_exhaustive(void)
{
    for (size_t i = 0; i < srl_format_preset_count(); i++)
        if (srl_format_preset(i)->width <= 16)
            exhaustive(srl_format_preset(i));
    const char *specs[] = {
        "p=2,emax=1",                          /* 3 bits */
        "p=2,emax=0,emin=0,inf=off",           /* 3 bits, one binade, full field: 1.5 given up */
        "p=3,emax=5,emin=-3",                  /* unused exponent codes under inf/NaN */
        "p=3,emax=5,emin=-3,inf=off",          /* unused codes, NaN only at all ones */
        "p=4,emax=8,emin=-6",                  /* e4m3 with infinities: a 5-bit field */
        "e4m3,saturate=on",                    /* saturation does not change the encoding */
        "p=5,emax=7,subnormals=off",           /* no subnormal patterns */
        "p=8,emax=127,subnormals=off,inf=off", /* 16 bits, field not full */
        "p=11,emax=15,inf=off",                /* fp16 without inf: 65504 kept */
        "p=11,emax=16,emin=-14,inf=off",       /* full field: (2 - 2^-9) 2^16 */
        "p=6,emax=3,emin=-20",
        "p=3,emax=-1000,emin=-1072",           /* binary64 subnormals, spacing 2^-1074 */
        "p=4,emax=1023,emin=993,inf=off",      /* the top of binary64, full field */
        "p=14,emax=1,emin=0",                  /* 16 bits with a 2-bit field */
        "p=2,emax=-1073,emin=-1073",
        "p=3,emax=5,emin=-3,inf=off,nan=off,saturate=on", /* unused codes, no NaN */
        "p=5,emax=3,emin=-4,inf=off,nan=off,saturate=on,subnormals=off",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        srl_format f;
        if (fmt_make(&f, specs[i]) == SRL_OK)
            exhaustive(&f);
    }
}

/* Hand-picked patterns of the 8-bit and 16-bit presets. */
static void test_known_patterns(void)
{
    const long before = srl_test_failures;
    static const struct {
        const char *fmt;
        uint64_t bits;
        double v; /* NaN: must decode to NaN */
    } k[] = {
        {"e4m3", 0x7F, NAN},       {"e4m3", 0xFF, NAN},        {"e4m3", 0x7E, 448.0},
        {"e4m3", 0xFE, -448.0},    {"e4m3", 0x78, 256.0},      {"e4m3", 0x00, 0.0},
        {"e4m3", 0x80, -0.0},      {"e4m3", 0x01, 0x1p-9},     {"e4m3", 0x08, 0x1p-6},
        {"e4m3", 0x38, 1.0},       {"e5m2", 0x7C, INFINITY},   {"e5m2", 0xFC, -INFINITY},
        {"e5m2", 0x7B, 57344.0},   {"e5m2", 0x7D, NAN},        {"e5m2", 0x7F, NAN},
        {"e5m2", 0x3C, 1.0},       {"e5m2", 0x01, 0x1p-16},    {"fp16", 0x7BFF, 65504.0},
        {"fp16", 0x3C00, 1.0},     {"fp16", 0x0001, 0x1p-24},  {"fp16", 0x0400, 0x1p-14},
        {"fp16", 0x7C00, INFINITY}, {"fp16", 0xC000, -2.0},    {"fp16", 0x3555, 0x1.554p-2},
        {"bf16", 0x3F80, 1.0},     {"bf16", 0x7F7F, 0x1.fep127}, {"bf16", 0x0001, 0x1p-133},
        {"bf16", 0x7F80, INFINITY}, {"bf16", 0x7FC0, NAN},      {"bf16", 0xBF80, -1.0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const srl_format *f = srl_format_find(k[i].fmt);
        double x = 0;
        const int st = f ? srl_format_decode(&x, f, k[i].bits) : -99;
        CHECK(st == SRL_OK && (isnan(k[i].v) ? isnan(x) : srl_test_same(x, k[i].v)),
              "%s: decode(%#llx) = %a (%d), want %a", k[i].fmt, (unsigned long long)k[i].bits, x,
              st, k[i].v);
    }
    /* e4m3 has no infinity anywhere among its 256 patterns */
    const srl_format *e4 = srl_format_find("e4m3");
    long ninf = 0;
    for (uint64_t b = 0; e4 && b < 256; b++) {
        double x;
        if (srl_format_decode(&x, e4, b) == SRL_OK && isinf(x))
            ninf++;
    }
    CHECK(ninf == 0, "e4m3: %ld patterns decode to infinity", ninf);
    /* bf16 is the top half of binary32: every non-NaN pattern b decodes to the float b << 16 */
    const srl_format *bf = srl_format_find("bf16");
    long bad = 0;
    for (uint64_t b = 0; bf && b < 65536; b++) {
        uint32_t w = (uint32_t)b << 16;
        float fl;
        memcpy(&fl, &w, 4);
        double x;
        const int st = srl_format_decode(&x, bf, b);
        if (st != SRL_OK || (isnan(fl) ? !isnan(x) : !srl_test_same(x, (double)fl)))
            bad++;
    }
    CHECK(bad == 0, "bf16: %ld patterns differ from the binary32 top half", bad);
    GROUP("known patterns of e4m3, e5m2, fp16, bf16", before);
}

/* The NaN encoding: one canonical pattern, whatever the NaN's sign. */
static void test_encode_nan(void)
{
    const long before = srl_test_failures;
    for (size_t i = 0; i < srl_format_preset_count(); i++) {
        const srl_format *f = srl_format_preset(i);
        const model m = model_of_format(f);
        uint64_t a = 0, b = 0;
        if (!f->nan) { /* no NaN pattern: encoding one is an error */
            CHECK(srl_format_encode(&a, f, NAN) == SRL_EINVAL && !srl_format_contains(f, NAN),
                  "%s: a format without NaN encodes or contains NaN", f->name);
            continue;
        }
        const int s1 = srl_format_encode(&a, f, NAN), s2 = srl_format_encode(&b, f, -NAN);
        double x = 0;
        CHECK(s1 == SRL_OK && s2 == SRL_OK && a == b && a == model_canonical_nan(&m) &&
                  srl_format_decode(&x, f, a) == SRL_OK && isnan(x),
              "%s: NaN encodes to %#llx, -NaN to %#llx; canonical %#llx", f->name,
              (unsigned long long)a, (unsigned long long)b,
              (unsigned long long)model_canonical_nan(&m));
    }
    GROUP("NaN encodes to the canonical pattern (sign bit clear)", before);
}

/* fp32 and tf32 against binary32 bit patterns; fp64 against binary64. Fixed seed. */
static void test_wide_samples(void)
{
    const long before = srl_test_failures;
    const uint64_t seed = 20240601u;
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG64, seed, 0);
    const srl_format *f32 = srl_format_find("fp32"), *t32 = srl_format_find("tf32"),
                     *f64 = srl_format_find("fp64");
    if (!f32 || !t32 || !f64)
        return;
    const long n = srl_test_n(1L << 20);
    long bad32 = 0, badt = 0, bad64 = 0;
    for (long i = 0; i < n + 16; i++) {
        const uint64_t d = srl_rng_next(&r);
        /* the first 16 samples are special patterns: zeros, extremes, infinities, NaNs */
        static const uint32_t sp32[16] = {0u,          0x80000000u, 1u,          0x80000001u,
                                          0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,
                                          0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7F800001u,
                                          0xFFFFFFFFu, 0x3F800000u, 0x3F7FFFFFu, 0x33800000u};
        static const uint64_t sp64[16] = {
            0u, UINT64_C(0x8000000000000000), 1u, UINT64_C(0x000FFFFFFFFFFFFF),
            UINT64_C(0x0010000000000000), UINT64_C(0x7FEFFFFFFFFFFFFF), UINT64_C(0xFFEFFFFFFFFFFFFF),
            UINT64_C(0x7FF0000000000000), UINT64_C(0xFFF0000000000000), UINT64_C(0x7FF8000000000000),
            UINT64_C(0x7FF0000000000001), ~UINT64_C(0), UINT64_C(0x3FF0000000000000),
            UINT64_C(0x3FEFFFFFFFFFFFFF), UINT64_C(0x8000000000000001), UINT64_C(0x4000000000000000)};
        const uint32_t b32 = i < 16 ? sp32[i] : (uint32_t)(d >> 32);
        const uint64_t b64 = i < 16 ? sp64[i] : d;
        const uint32_t bt = i < 16 ? sp32[i] >> 13 : (uint32_t)(d & 0x7FFFFu); /* 19 bits */
        float fl;
        memcpy(&fl, &b32, 4);
        double x;
        uint64_t e;
        /* fp32 */
        int st = srl_format_decode(&x, f32, b32);
        bool ok = st == SRL_OK && (isnan(fl) ? isnan(x) : srl_test_same(x, (double)fl));
        if (ok && !isnan(fl))
            ok = srl_format_encode(&e, f32, (double)fl) == SRL_OK && e == b32;
        if (!ok && bad32++ < 3)
            CHECK(ok, "fp32 pattern %#x (%a): decode %d -> %a", b32, (double)fl, st, x);
        /* tf32: the top 19 bits of binary32 */
        const uint32_t wt = bt << 13;
        float ft;
        memcpy(&ft, &wt, 4);
        st = srl_format_decode(&x, t32, bt);
        ok = st == SRL_OK && (isnan(ft) ? isnan(x) : srl_test_same(x, (double)ft));
        if (ok && !isnan(ft))
            ok = srl_format_encode(&e, t32, (double)ft) == SRL_OK && e == bt;
        if (!ok && badt++ < 3)
            CHECK(ok, "tf32 pattern %#x (%a): decode %d -> %a", bt, (double)ft, st, x);
        /* fp64: encode is the binary64 bit pattern */
        double xd;
        memcpy(&xd, &b64, 8);
        st = srl_format_decode(&x, f64, b64);
        ok = st == SRL_OK && (isnan(xd) ? isnan(x) : srl_test_same(x, xd));
        if (ok)
            ok = srl_format_encode(&e, f64, xd) == SRL_OK &&
                 e == (isnan(xd) ? UINT64_C(0x7FF8000000000000) : b64);
        if (!ok && bad64++ < 3)
            CHECK(ok, "fp64 pattern %#llx (%a): decode %d -> %a, encode %#llx",
                  (unsigned long long)b64, xd, st, x, (unsigned long long)e);
    }
    CHECK(bad32 == 0 && badt == 0 && bad64 == 0, "seed=%llu: %ld fp32, %ld tf32, %ld fp64 mismatches",
          (unsigned long long)seed, bad32, badt, bad64);
    /* values of binary64 that tf32 / fp32 do not hold are rejected */
    uint64_t e;
    CHECK(srl_format_encode(&e, t32, 1 + 0x1p-11) == SRL_EINVAL &&
              srl_format_encode(&e, f32, 1 + 0x1p-24) == SRL_EINVAL &&
              srl_format_encode(&e, f32, 0x1p-150) == SRL_EINVAL &&
              srl_format_encode(&e, f32, 0x1p128) == SRL_EINVAL,
          "a binary64 value outside binary32/tf32 encodes");
    CHECK(dbits(0.1) == UINT64_C(0x3FB999999999999A) && srl_format_encode(&e, f64, 0.1) == SRL_OK &&
              e == UINT64_C(0x3FB999999999999A),
          "fp64 encode(0.1) = %#llx", (unsigned long long)e);
    GROUP("fp32, tf32, fp64: random patterns against binary32/binary64", before);
}

int main(void)
{
    test_names();
    test_presets();
    test_parse_accept();
    test_parse_reject();
    test_ulp_contains();
    test_known_patterns();
    test_encode_nan();
    test_exhaustive();
    test_wide_samples();
    TEST_END();
}
