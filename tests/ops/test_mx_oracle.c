/* tests/ops/test_mx_oracle.c: block-scaled quantization (include/srlab/mx.h) against an
 * independent MPFR reference (suite `oracle`: bit for bit).
 *
 * The reference never calls srlab's rounding or scale code:
 *   - the scale exponent k is found by brute force over every E8M0 exponent -127..127 from the
 *     rule's definition (ocp: the largest k with 2^(emax+k) <= amax; ceil: the smallest k with
 *     amax <= xmax 2^k; clamped at the ends; amax = 0 gives -127), and NVFP4's s_t and s_b are
 *     the exact quotients amax / 2688 and amax_b / (t s_t) rounded by MPFR (tests/ops/ops_ref.h);
 *   - each element is rounded by ops_ref.h in the element format shifted by k, written as its own
 *     custom spec "p=..,emax=..,emin=..": x * 1 (or x * 3/4, or NVFP4's x / (s_b s_t)) rounded
 *     exactly, in the deterministic modes directly and in the stochastic ones by the contract's
 *     decision applied to the element's draw (counter + i) and the exact fraction.
 * For every block format (mxfp8-e4m3, mxfp8-e5m2, mxfp6-e3m2, mxfp6-e2m3, mxfp4, mxint8, nvfp4),
 * every scale rule (ocp, 3/4, ceil) and every mode (rn rna rz ru rd ro sr sr-eq sr:r=3), on:
 *   - every element value of the format at several scales, with the midpoints between neighbours
 *     and the midpoints +- one binary64 ulp, the block's amax set so the scale is known;
 *   - saturation: elements just below, at and above each format's largest times 2^k (the OCP
 *     rule's clipping band up to 2^(emax+1+k));
 *   - scale clamping (amax below 2^-127 and above 2^128 times the element range), zeros, blocks
 *     with a NaN or an infinity, partial last blocks, binary64 subnormals;
 *   - random blocks over wide and narrow exponent ranges;
 * both srl_mx_quantize and srl_mx_quantize_float (inputs that are binary32 numbers), the scale
 * codes, srl_mx_block_scale and srl_mx_explain's results. Fixed seeds; a failure prints the
 * format, rule, mode, input and both values. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/mx.h"
#include "srlab/rounding.h"

#include "../testutil.h"
#include "ops_ref.h"

#define NMODES 9
static const char *const mode_names[NMODES] = {"rn", "rna", "rz", "ru", "rd",
                                               "ro", "sr", "sr-eq", "sr:r=3"};

/* ---- the reference ---- */

/* k by brute force over every E8M0 exponent (see the file comment). */
static int ref_k(double amax, const srl_format *e, srl_mx_rule r)
{
    if (amax == 0)
        return -127;
    if (r == SRL_MX_CEIL) {
        for (int k = -127; k <= 127; k++)
            if (amax <= ldexp(e->xmax, k))
                return k;
        return 127;
    }
    int best = -127;
    for (int k = -127; k <= 127; k++)
        if (ldexp(1.0, e->emax + k) <= amax)
            best = k;
    return best;
}

/* The element format shifted by k, built from its own spec. */
static void shifted(srl_format *fs, const srl_format *e, int k)
{
    char spec[160];
    snprintf(spec, sizeof spec, "p=%d,emax=%d,emin=%d,subnormals=%s,inf=%s,nan=%s,saturate=on",
             e->p, e->emax + k, e->emin + k, e->subnormals ? "on" : "off", e->inf ? "on" : "off",
             e->nan ? "on" : "off");
    srl_err err;
    if (srl_format_parse(fs, spec, &err) != SRL_OK) {
        printf("FAIL: spec %s: %s\n", spec, err.msg);
        exit(1);
    }
}

/* The stochastic modes, from the contract (srlab/rounding.h) alone: X = op(a, b) in MPFR (x c
 * exactly, or x / S truncated at 2400 bits with its sticky bit), its grid spacing 2^qe in f, the
 * fraction fr of |X| 2^-qe, U = 0.u w1 w2 ... (twenty words: srl_rng_extra) and the rule: sr away
 * iff U < f, sr-eq iff inexact and u's top bit, sr:r=R iff floor(f 2^R) + (u >> (64 - R)) >= 2^R;
 * the magnitude (T + away) 2^qe saturates at xmax. */
static double ref_sto(const srl_format *f, srl_op op, double a, double b, srl_rounding m,
                      uint64_t u, const srl_rng *rng, uint64_t index)
{
    mpfr_t X, A, fr, U, t;
    mpfr_inits2(2400, X, A, fr, U, t, (mpfr_ptr)0);
    int tern;
    if (op == SRL_MUL) {
        mpfr_set_d(X, a, MPFR_RNDN);
        tern = mpfr_mul_d(X, X, b, MPFR_RNDZ); /* exact: 53 + 53 bits */
    } else {
        mpfr_set_d(t, a, MPFR_RNDN);
        tern = mpfr_div_d(X, t, b, MPFR_RNDZ);
    }
    double out;
    if (mpfr_zero_p(X)) {
        out = mpfr_get_d(X, MPFR_RNDN);
    } else {
        const bool neg = mpfr_signbit(X) != 0;
        const long e = (long)mpfr_get_exp(X) - 1; /* floor(log2 |X|) */
        const long qe = (e >= f->emin ? e : f->emin) - f->p + 1;
        mpfr_abs(A, X, MPFR_RNDN);
        mpfr_mul_2si(A, A, -qe, MPFR_RNDN); /* exact */
        mpfr_frac(fr, A, MPFR_RNDN);        /* exact */
        mpfr_sub(t, A, fr, MPFR_RNDN);      /* T, exact */
        const bool inexact = !mpfr_zero_p(fr) || tern != 0;
        int away = 0;
        if (m.mode == SRL_SR) {
            mpfr_set_zero(U, 1);
            for (int k = 0; k < 20; k++) {
                const uint64_t wk = k == 0 ? u : srl_rng_extra(rng, index, (uint64_t)k - 1);
                mpfr_set_ui_2exp(A, (unsigned long)(wk >> 32), -32 - 64 * k, MPFR_RNDN);
                mpfr_add(U, U, A, MPFR_RNDN);
                mpfr_set_ui_2exp(A, (unsigned long)(wk & 0xffffffffu), -64 - 64 * k, MPFR_RNDN);
                mpfr_add(U, U, A, MPFR_RNDN); /* exact at 2400 bits */
            }
            const int c = mpfr_cmp(U, fr);
            away = c < 0 || (c == 0 && tern != 0);
        } else if (m.mode == SRL_SR_EQ) {
            away = inexact && (u >> 63);
        } else {
            mpfr_mul_2si(A, fr, m.r, MPFR_RNDN);
            mpfr_floor(A, A);
            const uint64_t F = (uint64_t)mpfr_get_d(A, MPFR_RNDN), Z = u >> (64 - m.r);
            away = F + Z >= (UINT64_C(1) << m.r);
        }
        double mag = ldexp(mpfr_get_d(t, MPFR_RNDN) + away, (int)qe); /* T < 2^p: exact */
        if (mag > f->xmax)
            mag = f->xmax;
        out = neg ? -mag : mag;
    }
    mpfr_clears(X, A, fr, U, t, (mpfr_ptr)0);
    return out;
}

/* op(a, b) rounded into f with mode index mi (0..5 deterministic; 6.. stochastic, draw u). */
static double ref_op(opref_ws *w, const srl_format *f, srl_op op, double a, double b, int mi,
                     srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t index)
{
    static srl_format last; /* the workspace is made for one format: remake it on a change */
    ref_fmt F;
    ref_fmt_from(&F, f);
    if (!srl_format_equal(&last, f)) {
        opref_ws_clear(w);
        opref_ws_init(w, &F);
        last = *f;
    }
    opref o;
    opref_run(&o, w, &F, op, a, b, 0, 0);
    if (mi < REF_NDET)
        return o.m[mi].v;
    if (isnan(a) || isinf(a))
        return o.tow.v;
    return ref_sto(f, op, a, b, m, u, rng, index);
}

static const srl_format *fmt(const char *name)
{
    static srl_format f[4];
    static int n;
    srl_format *g = &f[n++ % 4];
    if (srl_format_parse(g, name, NULL) != SRL_OK)
        exit(1);
    return g;
}

/* The reference quantization of a whole array (blocks of f->block). */
static void ref_quantize(double *y, uint8_t *codes, const double *x, size_t n,
                         const srl_mx_format *f, srl_mx_rule r, int mi, srl_rounding m,
                         const srl_rng *rng0, opref_ws *w)
{
    const size_t bs = (size_t)f->block;
    double ts = 1;
    if (f->scale == SRL_MX_E4M3_T32) {
        double amax = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(x[i]) && fabs(x[i]) > amax)
                amax = fabs(x[i]);
        ts = amax == 0 ? 1
                       : ref_op(w, fmt("fp32"), SRL_DIV, amax, r == SRL_MX_34 ? 2016 : 2688,
                                SRL_RN, m, 0, NULL, 0); /* 448 t */
        if (ts == 0)
            ts = 0x1p-149;
    }
    for (size_t b = 0; b * bs < n; b++) {
        const size_t i0 = b * bs, len = n - i0 < bs ? n - i0 : bs;
        double amax = 0;
        bool bad = false;
        for (size_t j = 0; j < len; j++) {
            bad |= !isfinite(x[i0 + j]);
            amax = fabs(x[i0 + j]) > amax ? fabs(x[i0 + j]) : amax;
        }
        int k = 0;
        double sb = 0;
        const srl_format *e4 = fmt("e4m3,saturate=on");
        if (bad) {
            codes[b] = f->scale == SRL_MX_E8M0 ? 0xFF : 0x7F;
        } else if (f->scale == SRL_MX_E8M0) {
            k = ref_k(amax, &f->elem, r);
            codes[b] = (uint8_t)(k + 127);
        } else {
            const double t = r == SRL_MX_34 ? 4.5 : 6;
            sb = ref_op(w, e4, SRL_DIV, amax, t * ts, r == SRL_MX_CEIL ? SRL_RU : SRL_RN, m, 0,
                        NULL, 0);
            uint64_t c = 0;
            if (srl_format_encode(&c, e4, sb) != SRL_OK)
                c = 0xEE;
            codes[b] = (uint8_t)c;
        }
        srl_format fs;
        if (f->scale == SRL_MX_E8M0)
            shifted(&fs, &f->elem, k);
        for (size_t j = 0; j < len; j++) {
            const uint64_t index = (rng0 ? rng0->counter : 0) + i0 + j;
            const uint64_t u = mi >= REF_NDET ? srl_rng_draw_at(rng0, index) : 0;
            const double xv = x[i0 + j];
            double v;
            if (bad)
                v = NAN;
            else if (f->scale == SRL_MX_E8M0)
                v = ref_op(w, &fs, SRL_MUL, xv, r == SRL_MX_34 ? 0.75 : 1.0, mi, m, u, rng0,
                           index);
            else if (sb == 0)
                v = 0.0 * xv;
            else
                v = ref_op(w, &f->elem, SRL_DIV, xv, sb * ts, mi, m, u, rng0, index) * (sb * ts);
            y[i0 + j] = v;
        }
    }
}

/* ---- inputs ---- */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static void push(dvec *d, double x)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 256;
        d->v = realloc(d->v, d->cap * sizeof *d->v);
    }
    d->v[d->n++] = x;
}

static uint64_t sm_state;
static uint64_t sm_next(void) /* splitmix64: the inputs' own generator */
{
    uint64_t z = (sm_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static double sm_unit(void)
{
    return (double)(sm_next() >> 11) * 0x1p-53;
}

/* Pad d to a multiple of bs with zeros (so every case is its own block). */
static void pad(dvec *d, size_t bs)
{
    while (d->n % bs)
        push(d, 0.0);
}

/* Every element value of e (positive and negative) at scale 2^k, the midpoints, +- one ulp,
 * in blocks that each start with 2^(emax + k) (so the ocp scale is k). */
static void grid_blocks(dvec *d, const srl_format *e, int k, size_t bs)
{
    srl_format fs;
    shifted(&fs, e, k);
    dvec vals = {0};
    for (uint64_t b = 0; b < (UINT64_C(1) << (e->width - 1)); b++) {
        double v;
        if (srl_format_decode(&v, &fs, b) == SRL_OK && isfinite(v))
            push(&vals, v);
    }
    for (size_t i = 0; i < vals.n; i++) {
        const double a = vals.v[i], c = i + 1 < vals.n ? vals.v[i + 1] : a;
        const double cands[5] = {a, (a + c) / 2, nextafter((a + c) / 2, 0),
                                 nextafter((a + c) / 2, INFINITY), nextafter(a, INFINITY)};
        for (int q = 0; q < 5; q++) {
            if (d->n % bs == 0)
                push(d, ldexp(1.0, e->emax + k));
            push(d, (sm_next() & 1) ? -cands[q] : cands[q]);
        }
    }
    pad(d, bs);
    free(vals.v);
}

/* Saturation: elements around the largest times 2^k, up to the top of the binade. */
static void saturation_blocks(dvec *d, const srl_format *e, int k, size_t bs)
{
    const double xm = ldexp(e->xmax, k), top = ldexp(1.0, e->emax + 1 + k);
    const double c[] = {xm, nextafter(xm, 0), nextafter(xm, INFINITY), (xm + top) / 2,
                        nextafter(top, 0), -xm, -nextafter(top, 0), xm * 0.999, top * 0.75};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        push(d, c[i]);
        push(d, ldexp(1.0, e->emax + k)); /* amax below top: the ocp scale is k */
        pad(d, bs);
    }
}

static void special_blocks(dvec *d, size_t bs)
{
    const double c[][4] = {
        {0.0, -0.0, 0.0, 0.0},         {1e-300, -3e-310, 0x1p-1074, 0.0}, /* k clamps at -127 */
        {1e300, 1.0, -1e299, 1e-300},  {NAN, 1.0, 2.0, 3.0},
        {INFINITY, 1.0, 0.0, 0.0},     {-INFINITY, 0.5, 0.0, 0.0},
        {0x1p-126, 0x1p-140, 0x1p-149, 0x1.8p-149}, {3.0, 0x1p-1074, -0x1p-1060, 0x1p-200},
        {FLT_MAX, -FLT_MAX, 1.0, 0x1p100},
        {0x1p20, 0x1p-140, -0x1.8p-148, 0x1.4p-130}, /* x 2^-k underflows in binary32 */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        for (int j = 0; j < 4; j++)
            push(d, c[i][j]);
        pad(d, bs);
    }
}

static void random_blocks(dvec *d, size_t nblocks, size_t bs, int ewide)
{
    for (size_t b = 0; b < nblocks; b++) {
        const int e0 = (int)(sm_next() % 60) - 30;
        for (size_t j = 0; j < bs; j++) {
            double v = ldexp(1.0 + sm_unit(), e0 - (int)(sm_next() % (unsigned)ewide));
            if (sm_next() % 8 == 0) /* a binary32 number sometimes */
                v = (double)(float)v;
            push(d, (sm_next() & 1) ? -v : v);
        }
    }
}

/* ---- the comparison ---- */

static long nbad;

static void compare(const char *what, const srl_mx_format *f, srl_mx_rule r, int mi,
                    const double *x, size_t n, opref_ws *w)
{
    srl_rounding m;
    if (srl_rounding_parse(&m, mode_names[mi], NULL) != SRL_OK)
        exit(1);
    const size_t nb = (n + (size_t)f->block - 1) / (size_t)f->block;
    double *y = malloc(n * sizeof *y), *yr = malloc(n * sizeof *yr);
    float *xf = malloc(n * sizeof *xf), *yf = malloc(n * sizeof *yf);
    uint8_t *c = malloc(nb), *cr = malloc(nb), *cf = malloc(nb);
    srl_rng g, g0, gf;
    srl_rng_init(&g, SRL_RNG_PCG32, 0x5eed00 + (uint64_t)mi, 3);
    srl_rng_seek(&g, 1000);
    g0 = g, gf = g;
    double ts;
    const int st = srl_mx_quantize(y, c, &ts, x, n, f, r, m, &g);
    CHECK(st == SRL_OK, "%s %s %s: srl_mx_quantize returned %d", f->name, srl_mx_rule_name(r),
          mode_names[mi], st);
    CHECK(mi < REF_NDET ? g.counter == 1000 : g.counter == 1000 + n,
          "%s: the counter moved to %llu", f->name, (unsigned long long)g.counter);
    ref_quantize(yr, cr, x, n, f, r, mi, m, &g0, w);
    long bad = 0;
    for (size_t b = 0; b < nb; b++)
        if (c[b] != cr[b] && bad++ < 3)
            CHECK(0, "%s %s %s %s: block %zu scale code 0x%02X, reference 0x%02X (x0 %a)", what,
                  f->name, srl_mx_rule_name(r), mode_names[mi], b, c[b], cr[b],
                  x[b * (size_t)f->block]);
    for (size_t i = 0; i < n; i++)
        if (!srl_test_same(y[i], yr[i]) && bad++ < 3)
            CHECK(0, "%s %s %s %s: x[%zu] = %a: %a, reference %a", what, f->name,
                  srl_mx_rule_name(r), mode_names[mi], i, x[i], y[i], yr[i]);
    /* binary32: the inputs rounded to binary32 (NaN kept), against the reference of those */
    const size_t bs = (size_t)f->block;
    {
        double *x2 = malloc(n * sizeof *x2);
        for (size_t i = 0; i < n; i++) {
            xf[i] = (float)x[i];
            x2[i] = (double)xf[i];
        }
        srl_rng g2 = gf;
        ref_quantize(yr, cr, x2, n, f, r, mi, m, &g2, w);
        const int s2 = srl_mx_quantize_float(yf, cf, NULL, xf, n, f, r, m, &gf);
        CHECK(s2 == SRL_OK && (mi < REF_NDET ? gf.counter == 1000 : gf.counter == 1000 + n),
              "srl_mx_quantize_float returned %d, counter %llu", s2,
              (unsigned long long)gf.counter);
        for (size_t b = 0; b < nb; b++)
            if (cf[b] != cr[b] && bad++ < 3)
                CHECK(0, "%s %s %s %s (binary32): block %zu scale code 0x%02X, reference 0x%02X",
                      what, f->name, srl_mx_rule_name(r), mode_names[mi], b, cf[b], cr[b]);
        for (size_t i = 0; i < n; i++) {
            /* MX: the value itself (+-inf beyond binary32's range); NVFP4: to nearest */
            const double want = (double)(float)yr[i], got = yf[i];
            if (!srl_test_same(got, want) && bad++ < 3)
                CHECK(0, "%s %s %s %s (binary32): x[%zu] = %a: %a, reference %a", what, f->name,
                      srl_mx_rule_name(r), mode_names[mi], i, x2[i], (double)yf[i], want);
        }
        /* in place (y == x): the same bits, binary32 and binary64 */
        srl_rng ga = g0, gb = g0;
        float *xa = malloc(n * sizeof *xa);
        double *xd = malloc(n * sizeof *xd);
        for (size_t i = 0; i < n; i++)
            xa[i] = xf[i], xd[i] = x[i];
        if (srl_mx_quantize_float(xa, NULL, NULL, xa, n, f, r, m, &ga) != SRL_OK ||
            srl_mx_quantize(xd, NULL, NULL, xd, n, f, r, m, &gb) != SRL_OK)
            CHECK(0, "in-place quantization failed");
        for (size_t i = 0; i < n; i++)
            if ((!srl_test_same(xa[i], yf[i]) || !srl_test_same(xd[i], y[i])) && bad++ < 3)
                CHECK(0, "%s %s %s %s in place: x[%zu] = %a: %a / %a, not in place %a / %a",
                      what, f->name, srl_mx_rule_name(r), mode_names[mi], i, x[i], (double)xa[i],
                      xd[i], (double)yf[i], y[i]);
        free(xa), free(xd), free(x2);
        ref_quantize(yr, cr, x, n, f, r, mi, m, &g0, w); /* (the binary64 reference again) */
    }
    /* srl_mx_explain of the first block: the same results and draws */
    {
        srl_mx_scale s;
        srl_round_info in[64];
        const size_t len = n < bs ? n : bs;
        srl_rng ge = g0;
        if (bs <= 64 && srl_mx_explain(&s, in, x, len, ts, f, r, m, &ge) == SRL_OK) {
            for (size_t i = 0; i < len; i++)
                if (!srl_test_same(in[i].result, yr[i]) && bad++ < 3)
                    CHECK(0, "%s %s %s: explain x[%zu] = %a: %a, reference %a", what, f->name,
                          mode_names[mi], i, x[i], in[i].result, yr[i]);
            CHECK(s.code == cr[0], "%s %s: explain's scale code 0x%02X, reference 0x%02X", what,
                  f->name, s.code, cr[0]);
        }
    }
    srl_test_checks++;
    if (bad)
        nbad++;
    free(y), free(yr), free(xf), free(yf), free(c), free(cr), free(cf);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    sm_state = 0x3c0ffee;
    opref_ws w;
    {
        ref_fmt F;
        ref_fmt_from(&F, fmt("fp32"));
        opref_ws_init(&w, &F);
    }
    for (size_t fi = 0; fi < srl_mx_preset_count(); fi++) {
        const long before = srl_test_failures;
        const srl_mx_format *f = srl_mx_preset(fi);
        const size_t bs = (size_t)f->block;
        dvec grid = {0}, sat = {0}, spec = {0}, rnd = {0};
        const int ks[] = {-127, -5, 0, 3, 127 - f->elem.emax - 1};
        for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
            grid_blocks(&grid, &f->elem, ks[q], bs);
            saturation_blocks(&sat, &f->elem, ks[q], bs);
        }
        special_blocks(&spec, bs);
        random_blocks(&rnd, (size_t)srl_test_n(48), bs, 3);
        random_blocks(&rnd, (size_t)srl_test_n(16), bs, 40);
        push(&rnd, 1.5); /* a partial last block */
        push(&rnd, -0.3);
        for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
            for (int mi = 0; mi < NMODES; mi++) {
                compare("grid", f, (srl_mx_rule)r, mi, grid.v, grid.n, &w);
                compare("saturation", f, (srl_mx_rule)r, mi, sat.v, sat.n, &w);
                compare("specials", f, (srl_mx_rule)r, mi, spec.v, spec.n, &w);
                compare("random", f, (srl_mx_rule)r, mi, rnd.v, rnd.n, &w);
            }
        char name[160];
        snprintf(name, sizeof name, "%s: %zu grid, %zu saturation, %zu special, %zu random inputs "
                 "x 3 rules x 9 modes, against MPFR", f->name, grid.n, sat.n, spec.n, rnd.n);
        GROUP(name, before);
        free(grid.v), free(sat.v), free(spec.v), free(rnd.v);
    }
    /* srl_mx_block_scale against brute force, every exponent: amax = 2^e (1 + t) */
    {
        const long before = srl_test_failures;
        for (size_t fi = 0; fi + 1 < srl_mx_preset_count(); fi++) {
            const srl_mx_format *f = srl_mx_preset(fi);
            for (int e = -1074; e <= 1023; e++)
                for (int q = 0; q < 4; q++) {
                    const double ts[4] = {1.0, f->elem.xmax / ldexp(1.0, f->elem.emax),
                                          nextafter(f->elem.xmax / ldexp(1.0, f->elem.emax), 2),
                                          1.0 + sm_unit()};
                    const double amax = ldexp(ts[q], e);
                    if (!isfinite(amax) || amax == 0)
                        continue;
                    double x[2] = {amax, -amax / 3};
                    for (int r = 0; r < SRL_MX_RULE_COUNT; r++) {
                        srl_mx_scale s;
                        const int st = srl_mx_block_scale(&s, x, 2, f, (srl_mx_rule)r, 1.0);
                        const int k = ref_k(amax, &f->elem, (srl_mx_rule)r);
                        CHECK(st == SRL_OK && s.k == k && s.code == (uint8_t)(k + 127) &&
                                  s.value == ldexp(1.0, k),
                              "%s %s: amax %a: k %d, brute force %d", f->name,
                              srl_mx_rule_name((srl_mx_rule)r), amax, s.k, k);
                    }
                }
        }
        GROUP("scale selection: every binary64 exponent, every MX format and rule, brute force",
              before);
    }
    /* NVFP4's block scale s_b against MPFR: amax at t s_t times each E4M3 value, the midpoints
     * (ties of rn) and one binary64 unit either side, for tensor scales 1, a 24-bit one, one
     * whose products with E4M3's midpoints are near binary64's precision and the smallest */
    {
        const long before = srl_test_failures;
        const srl_mx_format *f = srl_mx_preset(srl_mx_preset_count() - 1);
        const srl_format *e4 = fmt("e4m3,saturate=on");
        const double tss[] = {1.0, 0x1.6a09e6p-3, 0x1.fffffep+100, 0x1p-149};
        double prev = 0;
        for (uint64_t code = 1; code <= 0x7E; code++) {
            double v;
            if (srl_format_decode(&v, e4, code) != SRL_OK)
                continue;
            const double mid = (prev + v) / 2;
            const double cands[5] = {v, mid, nextafter(mid, 0), nextafter(mid, INFINITY),
                                     nextafter(v, INFINITY)};
            prev = v;
            for (size_t q = 0; q < sizeof tss / sizeof *tss; q++)
                for (int c = 0; c < 5; c++)
                    for (int r = 0; r < SRL_MX_RULE_COUNT; r++) {
                        const double t = r == SRL_MX_34 ? 4.5 : 6, amax = cands[c] * t * tss[q];
                        const double x[2] = {amax, -amax / 3};
                        srl_mx_scale s;
                        const int st = srl_mx_block_scale(&s, x, 2, f, (srl_mx_rule)r, tss[q]);
                        const double sb = ref_op(&w, e4, SRL_DIV, amax, t * tss[q],
                                                 r == SRL_MX_CEIL ? SRL_RU : SRL_RN,
                                                 SRL_ROUND_RN, 0, NULL, 0);
                        uint64_t want = 0;
                        CHECK(st == SRL_OK && s.sb == sb &&
                                  srl_format_encode(&want, e4, sb) == SRL_OK && s.code == want,
                              "nvfp4 %s: amax %a, s_t %a: s_b %a (code 0x%02X), MPFR %a",
                              srl_mx_rule_name((srl_mx_rule)r), amax, tss[q], s.sb, s.code, sb);
                    }
        }
        GROUP("nvfp4's block scale at E4M3's values and midpoints times t s_t, every rule, "
              "against MPFR",
              before);
    }
    opref_ws_clear(&w);
    mpfr_free_cache();
    printf("%ld comparisons failed\n", nbad);
    TEST_END();
}
