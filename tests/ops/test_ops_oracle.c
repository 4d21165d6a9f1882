/* tests/ops/test_ops_oracle.c: srlab's exact operations (include/srlab/ops.h) bit for bit
 * (suite `oracle`, tests/meson.build).
 *
 * Three judges:
 *   the MPFR path    srl_op_mpfr_draw, the library's reference path: the fast path
 *                    (srl_op_apply_draw, srl_op_apply, srl_op_explain) must give the same bits,
 *                    stochastic modes included, for the same draw u and index;
 *   an independent   tests/ops/ops_ref.h: MPFR performs the operation itself at precision p with
 *   reference        the format's exponent range emulated (mpfr_subnormalize), rna/ro from the
 *                    directed neighbours and exact comparisons, the overflow rules of rounding.h;
 *                    with the ternary. For the stochastic modes it supplies the candidates and the
 *                    exact fraction's words, and this file applies rounding.h's decision rule to
 *                    the draw (and to the extra words srl_rng_extra gives) to predict the result;
 *   the contract     hand-written IEEE 754 expectations for special operands and zero signs.
 *
 * Groups:
 *   1. random operands: per operation 10^6 operand sets (values of the format from random
 *      encodings, neighbours at random exponent gaps, cancellations, arbitrary binary64), split
 *      evenly over 12 formats (the presets and 5 custom ones); each set is checked in one
 *      deterministic mode (rn rna rz ru rd ro, rotating) and one stochastic mode (sr sr-eq sr:r=R,
 *      R rotating over 1 5 16 33 64), so each (operation, format, stochastic mode) cell gets
 *      ~28000 sets and each deterministic one ~14000. Per set: fast vs MPFR path vs the
 *      reference, with the draw at f1-1, f1, f1+1, 0, ~0 or random (f1 the fraction's first
 *      word); every third set also through srl_op_explain (every field) against the MPFR path's
 *      explanation and the reference; every fourth through srl_op_apply (draw counting);
 *   2. hard cases: exponent gaps across the whole range (1 + 2^-200 in fp32: p_up = 2^-177
 *      exactly), stochastic decisions settled by the extra words (indices chosen so the first
 *      extra word falls below and above f's second word), exact cancellation and the sign of zero,
 *      exact ties and one binary64 ulp either side, subnormal results, overflow, quotients and
 *      roots with runs of zeros or ones after f's first word, special operands (also against
 *      hand-written IEEE 754 expectations); all 9 modes and four draws per stochastic mode;
 *   3. e4m3 and e5m2: every operand pair of add sub mul div (every value for sqrt), and 2 10^5
 *      random triples for fma, every mode, against the reference and the MPFR path;
 *   and the small API: names, arity, argument checks, draw counting, srl_op_exact.
 * The reference is itself checked: its direct route against its odd route on in-range operands.
 *
 * Sizes scale with SRL_TEST_SCALE (tests/testutil.h); seeds are fixed and printed on failure.
 * OpenMP over independent items (each item derives its inputs from its index), failures reported
 * serially in index order, so output does not depend on the thread count. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpfr.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "srlab/format.h"
#include "srlab/ops_mpfr.h"
#include "srlab/ops.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#include "../testutil.h"
#include "ops_ref.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef _OPENMP
#define NTHREADS (mpfr_buildopt_tls_p() ? omp_get_max_threads() : 1)
#else
#define NTHREADS 1
#endif

/* ---------------------------------------------------------------------------------------- */
/* Formats and modes.                                                                        */

static const char *const fmt_specs[] = {
    "bf16", "fp16", "fp32", "tf32", "e4m3", "e5m2", "fp64",
    "p=5,emax=7,subnormals=off",      /* tiny, flush to zero */
    "p=13,emax=40,emin=-20,inf=off",  /* no infinities: overflow gives NaN */
    "p=20,emax=200,saturate=on",      /* saturating */
    "p=40,emax=1023",                 /* near binary64's range, subnormals to 2^-1061 */
    "p=3,emax=2",                     /* three bits */
};
#define NFMT ((int)(sizeof fmt_specs / sizeof fmt_specs[0]))

static srl_format fmts[NFMT];
static ref_fmt rfmts[NFMT];

#define NMODE 9
static const int sr_bits[5] = {1, 5, 16, 33, 64};

static srl_rounding mode_of(int md, uint64_t i)
{
    srl_rounding m = {(srl_mode)md, 0};
    if (md == SRL_SR_BITS)
        m.r = sr_bits[(i / NMODE) % 5];
    return m;
}

static bool is_sto(srl_rounding m)
{
    return m.mode >= SRL_SR;
}

static const char *mname(char *buf, srl_rounding m)
{
    return srl_rounding_name(buf, 32, m);
}

/* ---------------------------------------------------------------------------------------- */
/* Operands.                                                                                 */

static uint64_t mix(uint64_t a, uint64_t b)
{
    trng g = {a * UINT64_C(0x9e3779b97f4a7c15) ^ b};
    tr_next(&g);
    return tr_next(&g);
}

/* A value of the format from a random encoding (zeros, subnormals, inf and NaN included). */
static double gen_value(trng *g, const srl_format *f)
{
    uint64_t bits = tr_next(g);
    if (f->width < 64)
        bits &= (UINT64_C(1) << f->width) - 1;
    double x = 0.0;
    if (srl_format_decode(&x, f, bits) != SRL_OK)
        x = 0.0;
    return x;
}

/* A value of the format at a random exponent distance (up to p + 70 binades) from a. */
static double gen_near(trng *g, const srl_format *f, double a)
{
    if (!isfinite(a) || a == 0)
        return gen_value(g, f);
    const int span = f->p + 70;
    const int k = (int)tr_below(g, (uint64_t)(2 * span + 1)) - span;
    const double m = tr_from_bits((UINT64_C(0x3ff) << 52) | tr_sig52(g)); /* [1, 2) */
    double x = ldexp(m, ilogb(a) + k);
    if (tr_next(g) & 1)
        x = -x;
    return srl_round(x, f, SRL_ROUND_RN, NULL);
}

/* An arbitrary binary64 number near the format's range, or anywhere. */
static double gen_any(trng *g, const srl_format *f)
{
    if (tr_below(g, 4) == 0)
        return tr_double_whole(g);
    return tr_double_exp(g, (long)f->emin - f->p - 24, (long)f->emax + 3);
}

static double gen_operand(trng *g, const srl_format *f)
{
    return tr_below(g, 8) == 0 ? gen_any(g, f) : gen_value(g, f);
}

/* Operands of item i (a pure function of its seed). */
static void gen_operands(srl_op op, const srl_format *f, uint64_t seed, double *a, double *b,
                         double *c)
{
    trng g = {seed};
    *a = gen_operand(&g, f);
    *b = 0.0;
    *c = 0.0;
    const unsigned r = (unsigned)tr_below(&g, 100);
    switch (op) {
    case SRL_ADD:
    case SRL_SUB: {
        const double s = op == SRL_SUB ? -1.0 : 1.0;
        if (r < 40)
            *b = gen_operand(&g, f);
        else if (r < 85)
            *b = gen_near(&g, f, *a);
        else if (r < 90)
            *b = -s * *a; /* exact cancellation */
        else
            *b = gen_any(&g, f);
        break;
    }
    case SRL_MUL:
        *b = r < 80 ? gen_operand(&g, f) : gen_any(&g, f);
        break;
    case SRL_FMA:
        *b = r < 85 ? gen_operand(&g, f) : gen_any(&g, f);
        {
            const unsigned r2 = (unsigned)tr_below(&g, 100);
            const double p = *a * *b;
            if (r2 < 30)
                *c = gen_operand(&g, f);
            else if (r2 < 60)
                *c = gen_near(&g, f, p);
            else if (r2 < 75)
                *c = -srl_round(p, f, SRL_ROUND_RN, NULL); /* near cancellation */
            else if (r2 < 85)
                *c = -p; /* cancellation (exact when the product is a binary64 number) */
            else
                *c = gen_any(&g, f);
        }
        break;
    case SRL_DIV:
        if (r < 75) {
            *b = gen_operand(&g, f);
        } else if (r < 85) { /* exact quotients */
            *b = gen_value(&g, f);
            *a = srl_round(*b * (double)(1 + tr_below(&g, 9)), f, SRL_ROUND_RN, NULL);
        } else {
            *b = gen_any(&g, f);
        }
        break;
    default: /* sqrt */
        if (r < 70) {
            *a = fabs(*a);
        } else if (r < 80) { /* perfect squares */
            const double y = srl_round(fabs(gen_value(&g, f)), f, SRL_ROUND_RN, NULL);
            *a = y * y;
        } else if (r < 90) {
            *a = fabs(gen_any(&g, f));
        }
        break;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* One item: an operation, a mode, a draw; checked against every judge.                     */

enum {
    M_FAST_MPFR = 1 << 0,  /* srl_op_apply_draw vs srl_op_mpfr_draw */
    M_MPFR_ST = 1 << 1,    /* srl_op_mpfr_draw status */
    M_REF = 1 << 2,        /* result vs the reference (or its stochastic prediction) */
    M_EXPL_MPFR = 1 << 3,  /* explain vs the MPFR path's explanation (any field) */
    M_EXPL_REF = 1 << 4,   /* explain vs the reference (result, ternary, rd, ru, exact, ...) */
    M_EXPL_FRAC = 1 << 5,  /* explain frac / p_up vs the reference's fraction */
    M_APPLY = 1 << 6,      /* srl_op_apply vs apply_draw, draw counting */
    M_REFSELF = 1 << 7,    /* reference self-check (direct vs odd route, internal flags) */
    M_EXPL_ST = 1 << 8,    /* explain status */
};

typedef struct item {
    srl_op op;
    int fi;            /* format index */
    double a, b, c;
    unsigned modes;    /* bit md: check mode md (0..8) */
    unsigned ukinds;   /* stochastic draws: bit 0 random, 1 f1-1, 2 f1, 3 f1+1, 4 zero, 5 ~0 */
    uint64_t u_rand;
    uint64_t index;
    int explain;       /* mode explained with the stream's own draw, or -1 */
    bool apply, selfcheck;
} item;

typedef struct judge_ws {
    opref_ws w[NFMT];
    bool init[NFMT];
} judge_ws;

static opref_ws *ws_for(judge_ws *J, int fi)
{
    if (!J->init[fi]) {
        opref_ws_init(&J->w[fi], &rfmts[fi]);
        J->init[fi] = true;
    }
    return &J->w[fi];
}

static void judge_clear(judge_ws *J)
{
    for (int k = 0; k < NFMT; k++)
        if (J->init[k])
            opref_ws_clear(&J->w[k]);
}

static srl_rng item_rng(int fi, srl_op op)
{
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_DEFAULT, UINT64_C(0x5eed0000) + (uint64_t)fi, (uint64_t)op);
    return r;
}

/* The reference's expected result and ternary sign of mode m for draw u (stochastic modes via the
 * decision rule); false when the reference cannot predict (odd route, stochastic). */
static bool ref_expect(opref_ws *w, const opref *o, srl_rounding m, uint64_t u, const srl_rng *rng,
                       uint64_t index, ref_out *out)
{
    if (!is_sto(m)) {
        *out = o->m[m.mode];
        return true;
    }
    if (o->kind != REF_FINITE || !o->inexact || o->above) {
        *out = o->tow; /* exact, special, or both candidates overflow alike */
        return true;
    }
    if (!o->fok)
        return false;
    *out = opref_decide(w, o, m, u, rng, index) ? o->awy : o->tow;
    return true;
}

/* p_up as the contract defines it, from the reference (stochastic modes need fok or !inexact). */
static bool ref_pup(opref_ws *w, const opref *o, srl_rounding m, double *pup)
{
    if (ref_same(o->rd.v, o->ru.v) || o->kind == REF_ZERO) {
        *pup = 0.0;
        return true;
    }
    if (!is_sto(m)) {
        *pup = ref_same(o->m[m.mode].v, o->ru.v) ? 1.0 : 0.0;
        return true;
    }
    if (o->kind != REF_FINITE || !o->inexact || o->above) {
        *pup = ref_same(o->tow.v, o->ru.v) ? 1.0 : 0.0;
        return true;
    }
    if (!o->fok)
        return false;
    /* probabilities of moving away from / toward zero, each rounded once (srl_round_info) */
    double pa, pc;
    if (m.mode == SRL_SR) {
        pa = opref_frac_rn(w, w->qexp, false);
        pc = opref_frac_rn(w, w->qexp, true);
    } else if (m.mode == SRL_SR_EQ) {
        pa = pc = 0.5;
    } else {
        bool ends;
        const uint64_t f1 = opref_word(w, w->qexp, 0, &ends);
        const uint64_t F = f1 >> (64 - m.r);
        pa = ldexp((double)F, -m.r);
        pc = F == 0 ? 1.0 : ldexp((double)((m.r == 64 ? 0 : (UINT64_C(1) << m.r)) - F), -m.r);
    }
    double p = 0.0;
    if (ref_same(o->tow.v, o->ru.v))
        p += pc;
    if (ref_same(o->awy.v, o->ru.v))
        p += pa;
    *pup = p;
    return true;
}

static bool same_out(ref_out a, ref_out b)
{
    return ref_same(a.v, b.v) && a.t == b.t && a.ovf == b.ovf;
}

#define MSG(...)                                                                                  \
    do {                                                                                          \
        if (msg && mlen < msz)                                                                    \
            mlen += (size_t)snprintf(msg + mlen, msz - mlen, __VA_ARGS__);                       \
    } while (0)

/* Check one item; returns the mismatch mask. With msg, describes every mismatch. */
static unsigned check_item(judge_ws *J, const item *it, char *msg, size_t msz)
{
    size_t mlen = 0;
    unsigned bad = 0;
    const srl_format *f = &fmts[it->fi];
    const ref_fmt *F = &rfmts[it->fi];
    opref_ws *w = ws_for(J, it->fi);
    const srl_rng rng = item_rng(it->fi, it->op);
    char mb[32];

    opref o;
    opref_run(&o, w, F, it->op, it->a, it->b, it->c, 0);
    if (o.err) {
        bad |= M_REFSELF;
        MSG(" [reference self-check err %d]", o.err);
    }
    if (it->selfcheck && opref_in_range(F, w->A) && opref_in_range(F, w->B) &&
        opref_in_range(F, w->C)) {
        opref o2;
        opref_ws *w2 = w; /* the odd route does not need the direct route's state */
        opref_run(&o2, w2, F, it->op, it->a, it->b, it->c, 1);
        bool same = o2.kind == o.kind && same_out(o2.tow, o.tow) && same_out(o2.awy, o.awy) &&
                    o2.exact == o.exact;
        for (int k = 0; k < REF_NDET; k++)
            same = same && same_out(o2.m[k], o.m[k]);
        if (!same || o2.err) {
            bad |= M_REFSELF;
            MSG(" [reference: direct and odd routes differ (err %d)]", o2.err);
        }
        opref_run(&o, w, F, it->op, it->a, it->b, it->c, 0); /* restore the direct state */
    }

    /* every mode of the item, every draw kind of the stochastic ones */
    uint64_t f1 = 0;
    const bool have_f1 = o.fok && !o.above;
    if (have_f1) {
        bool ends;
        f1 = opref_word(w, w->qexp, 0, &ends);
    }
    for (int md = 0; md < NMODE; md++) {
        if (!(it->modes >> md & 1))
            continue;
        const srl_rounding m = mode_of(md, it->index);
        for (int uk = 0; uk < 6; uk++) {
            if (is_sto(m) ? !(it->ukinds >> uk & 1) : uk != 0)
                continue;
            uint64_t u = it->u_rand;
            if (uk && !have_f1)
                continue;
            switch (uk) {
            case 1: u = f1 - 1; break;
            case 2: u = f1; break;
            case 3: u = f1 + 1; break;
            case 4: u = 0; break;
            case 5: u = UINT64_MAX; break;
            default: break;
            }
            const double yf = srl_op_apply_draw(it->op, it->a, it->b, it->c, f, m, u, &rng,
                                                it->index);
            double ym = NAN;
            const int st = srl_op_mpfr_draw(&ym, NULL, it->op, it->a, it->b, it->c, f, m, u, &rng,
                                            it->index);
            if (st != SRL_OK) {
                bad |= M_MPFR_ST;
                MSG(" [mode %s: srl_op_mpfr_draw status %d]", mname(mb, m), st);
            }
            if (!ref_same(yf, ym)) {
                bad |= M_FAST_MPFR;
                MSG(" [mode %s u=0x%016" PRIx64 ": fast %a, MPFR path %a]", mname(mb, m), u, yf,
                    ym);
            }
            ref_out ex;
            if (ref_expect(w, &o, m, u, &rng, it->index, &ex) && !ref_same(yf, ex.v)) {
                bad |= M_REF;
                MSG(" [mode %s u=0x%016" PRIx64 ": fast %a, reference %a]", mname(mb, m), u, yf,
                    ex.v);
            }
        }
    }

    /* explain with the stream's own draw */
    const srl_rounding m = mode_of(it->explain < 0 ? 0 : it->explain, it->index);
    if (it->explain >= 0) {
        srl_rng r1 = rng;
        srl_rng_seek(&r1, it->index);
        const uint64_t ur = srl_rng_draw_at(&rng, it->index);
        srl_round_info I, M;
        memset(&I, 0, sizeof I);
        memset(&M, 0, sizeof M);
        const int s1 = srl_op_explain(&I, it->op, it->a, it->b, it->c, f, m, &r1);
        double yy = NAN;
        const int s2 = srl_op_mpfr_draw(&yy, &M, it->op, it->a, it->b, it->c, f, m, ur, &rng,
                                        it->index);
        const uint64_t want_counter = it->index + (is_sto(m) ? 1 : 0);
        if (s1 != SRL_OK || s2 != SRL_OK || r1.counter != want_counter) {
            bad |= M_EXPL_ST;
            MSG(" [explain status %d / %d, counter %" PRIu64 " (want %" PRIu64 ")]", s1, s2,
                r1.counter, want_counter);
        }
        if (!ref_same(I.x, M.x) || !ref_same(I.rd, M.rd) || !ref_same(I.ru, M.ru) ||
            !ref_same(I.p_up, M.p_up) || !ref_same(I.frac, M.frac) ||
            !ref_same(I.result, M.result) || ref_sgn(I.ternary) != ref_sgn(M.ternary) ||
            I.exact != M.exact || I.overflow != M.overflow || !ref_same(M.result, yy)) {
            bad |= M_EXPL_MPFR;
            MSG(" [explain fast/MPFR: x %a/%a rd %a/%a ru %a/%a p_up %a/%a frac %a/%a result "
                "%a/%a ternary %d/%d exact %d/%d overflow %d/%d]", I.x, M.x, I.rd, M.rd, I.ru,
                M.ru, I.p_up, M.p_up, I.frac, M.frac, I.result, M.result, I.ternary, M.ternary,
                I.exact, M.exact, I.overflow, M.overflow);
        }
        ref_out e2;
        if (ref_expect(w, &o, m, ur, &rng, it->index, &e2)) {
            /* An exact zero result is the mode's signed zero (+0, or -0 in rd), and so are its
             * neighbours rd and ru (this file's reading: both are that zero, p_up 0). */
            const double rdw = o.kind == REF_ZERO ? e2.v : o.rd.v;
            const double ruw = o.kind == REF_ZERO ? e2.v : o.ru.v;
            if (!ref_same(I.result, e2.v) || ref_sgn(I.ternary) != e2.t ||
                !ref_same(I.rd, rdw) || !ref_same(I.ru, ruw) || I.exact != o.exact ||
                I.overflow != e2.ovf) {
                bad |= M_EXPL_REF;
                MSG(" [explain vs reference: result %a/%a ternary %d/%d rd %a/%a ru %a/%a exact "
                    "%d/%d overflow %d/%d]", I.result, e2.v, I.ternary, e2.t, I.rd, rdw, I.ru,
                    ruw, I.exact, o.exact, I.overflow, e2.ovf);
            }
        }
        double pup;
        if (ref_pup(w, &o, m, &pup) && !ref_same(I.p_up, pup)) {
            bad |= M_EXPL_FRAC;
            MSG(" [p_up %a, reference %a]", I.p_up, pup);
        }
        if (o.kind == REF_FINITE && (o.fok || !o.inexact || o.above)) {
            /* rounding.h: 0 when exact, and for |x| >= 2^(emax+1) */
            const double fr = (o.inexact && !o.above) ? opref_frac_d(w, w->qexp) : 0.0;
            if (!ref_same(I.frac, fr)) {
                bad |= M_EXPL_FRAC;
                MSG(" [frac %a, reference %a]", I.frac, fr);
            }
        }
        /* the x field: the exact result rounded to nearest binary64 */
        if (o.kind == REF_FINITE) {
            const opref_range rg = opref_widen();
            mpfr_t t;
            mpfr_init2(t, 53);
            const mpfr_exp_t e0 = mpfr_get_emin(), e1 = mpfr_get_emax();
            mpfr_set_emin(-1073);
            mpfr_set_emax(1024);
            int tt = opref_eval(t, it->op, w->A, w->B, w->C, MPFR_RNDN);
            tt = mpfr_check_range(t, tt, MPFR_RNDN);
            mpfr_subnormalize(t, tt, MPFR_RNDN);
            const double xd = mpfr_get_d(t, MPFR_RNDN);
            mpfr_set_emin(e0);
            mpfr_set_emax(e1);
            mpfr_clear(t);
            opref_restore(rg);
            if (!ref_same(I.x, xd)) {
                bad |= M_EXPL_REF;
                MSG(" [explain x %a, reference %a]", I.x, xd);
            }
        }
    }

    /* srl_op_apply: the stream's draw, counter + 1 in stochastic modes */
    if (it->apply) {
        srl_rng r2 = rng;
        srl_rng_seek(&r2, it->index);
        const double ya = srl_op_apply(it->op, it->a, it->b, it->c, f, m, &r2);
        const uint64_t ur = srl_rng_draw_at(&rng, it->index);
        const double yd = srl_op_apply_draw(it->op, it->a, it->b, it->c, f, m, ur, &rng,
                                            it->index);
        if (!ref_same(ya, yd) || r2.counter != it->index + (is_sto(m) ? 1 : 0)) {
            bad |= M_APPLY;
            MSG(" [srl_op_apply %a vs apply_draw %a, counter %" PRIu64 "]", ya, yd, r2.counter);
        }
    }
    if (bad)
        MSG(" (op %s format %s a=%a b=%a c=%a; explained mode %s; index %" PRIu64
            ", rng seed 0x%" PRIx64 " stream %d)", srl_op_name(it->op), f->name, it->a, it->b,
            it->c, mname(mb, m), it->index, (uint64_t)(UINT64_C(0x5eed0000) + (uint64_t)it->fi),
            (int)it->op);
    return bad;
}

/* Run items in parallel; report failures serially. Returns the number of failing items. */
typedef void (*item_gen)(item *it, size_t i, const void *ctx);

static long run_items(const char *label, size_t n, item_gen gen, const void *ctx)
{
    const long before = srl_test_failures;
    const size_t CHUNK = 4096;
    unsigned *mask = malloc(CHUNK * sizeof *mask);
    if (!mask) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    long nbad = 0, printed = 0;
    for (size_t c0 = 0; c0 < n; c0 += CHUNK) {
        const size_t k = n - c0 < CHUNK ? n - c0 : CHUNK;
#pragma omp parallel num_threads(NTHREADS)
        {
            judge_ws J;
            memset(&J, 0, sizeof J);
#pragma omp for schedule(dynamic, 64)
            for (size_t i = 0; i < k; i++) {
                item it;
                gen(&it, c0 + i, ctx);
                mask[i] = check_item(&J, &it, NULL, 0);
            }
            judge_clear(&J);
        }
        for (size_t i = 0; i < k; i++) {
            srl_test_checks++;
            if (!mask[i])
                continue;
            nbad++;
            if (printed++ < 8) {
                judge_ws J;
                memset(&J, 0, sizeof J);
                item it;
                gen(&it, c0 + i, ctx);
                char buf[2400];
                buf[0] = 0;
                check_item(&J, &it, buf, sizeof buf);
                judge_clear(&J);
                srl_test_checks--;
                CHECK(mask[i] == 0, "%s: item %zu mask 0x%x:%s", label, c0 + i, mask[i], buf);
            } else {
                srl_test_failures++;
            }
        }
    }
    free(mask);
    if (nbad)
        fprintf(stderr, "%s: %ld of %zu items failed\n", label, nbad, n);
    GROUP(label, before);
    return nbad;
}

/* ---------------------------------------------------------------------------------------- */
/* 1. Random operands.                                                                       */

typedef struct rand_ctx {
    srl_op op;
    size_t per_fmt;
} rand_ctx;

static void gen_random(item *it, size_t i, const void *vctx)
{
    const rand_ctx *c = vctx;
    memset(it, 0, sizeof *it);
    it->op = c->op;
    it->fi = (int)(i / c->per_fmt) % NFMT;
    it->index = i;
    /* one deterministic and one stochastic mode, rotating */
    const int mdet = (int)(i % 6), msto = 6 + (int)((i / 6) % 3);
    it->modes = (1u << mdet) | (1u << msto);
    const uint64_t seed = mix(UINT64_C(0x0b5e0000) + (uint64_t)c->op, i);
    gen_operands(c->op, &fmts[it->fi], seed, &it->a, &it->b, &it->c);
    trng g = {seed ^ UINT64_C(0xd1ce)};
    it->u_rand = tr_next(&g);
    const unsigned r = (unsigned)tr_below(&g, 10);
    it->ukinds = 1u << (r < 4 ? 0 : r < 6 ? 2 : r < 7 ? 1 : r < 8 ? 3 : r < 9 ? 4 : 5);
    it->explain = i % 3 == 0 ? mdet : i % 3 == 1 ? msto : -1;
    it->apply = (i & 3) == 1;
    it->selfcheck = (i % 16) == 3;
}

/* ---------------------------------------------------------------------------------------- */
/* 2. Hard cases.                                                                            */

typedef struct list_ctx {
    const item *v;
} list_ctx;

static void gen_list(item *it, size_t i, const void *vctx)
{
    const list_ctx *c = vctx;
    *it = c->v[i];
}

typedef struct ivec {
    item *v;
    size_t n, cap;
} ivec;

static void iv_push(ivec *d, srl_op op, int fi, double a, double b, double c)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 4096;
        d->v = realloc(d->v, d->cap * sizeof *d->v);
        if (!d->v) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    item *it = &d->v[d->n];
    memset(it, 0, sizeof *it);
    it->op = op;
    it->fi = fi;
    it->a = a;
    it->b = b;
    it->c = c;
    it->index = d->n;
    it->modes = (1u << NMODE) - 1;
    it->ukinds = 0xf; /* random, f1-1, f1, f1+1 */
    it->u_rand = mix(UINT64_C(0xc0ffee), d->n);
    it->explain = (int)(d->n % NMODE);
    it->apply = (d->n & 3) == 0;
    it->selfcheck = (d->n & 7) == 0;
    d->n++;
}

static double fmt_ulp(const srl_format *f, double y)
{
    return srl_format_ulp(f, y);
}

/* exponent gaps: 1 + 2^-g style sums at every scale, products and quotients alike */
static void hard_gaps(ivec *d)
{
    for (int fi = 0; fi < NFMT; fi++) {
        const srl_format *f = &fmts[fi];
        const int es[] = {f->emin, f->emin + 1, -1, 0, 1, f->emax / 2, f->emax - 1, f->emax};
        for (size_t k = 0; k < sizeof es / sizeof es[0]; k++) {
            for (int g = 1; g < 2200; g += (g < 70 ? 1 : g < 200 ? 7 : 61)) {
                const int eb = es[k] - g;
                if (eb < -1074)
                    break;
                const double a = ldexp(1.0, es[k]), b = ldexp(1.0, eb);
                iv_push(d, SRL_ADD, fi, a, b, 0);
                iv_push(d, SRL_SUB, fi, a, b, 0);
                iv_push(d, SRL_ADD, fi, -a, b * 3, 0);
                iv_push(d, SRL_FMA, fi, a, 1.0 + 0x1p-20, -b);
                if (g % 5 == 0)
                    iv_push(d, SRL_FMA, fi, b, a, a * 0.75);
            }
        }
    }
}

/* exact cancellation and signed zeros in every mode */
static void hard_zeros(ivec *d)
{
    const double xs[] = {1.0, -1.5, 0x1p-1074, 3.0 * 0x1p-140, 448.0, 0x1.8p100, DBL_MAX};
    for (int fi = 0; fi < NFMT; fi++) {
        for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
            const double x = xs[k];
            iv_push(d, SRL_ADD, fi, x, -x, 0);
            iv_push(d, SRL_SUB, fi, x, x, 0);
            iv_push(d, SRL_SUB, fi, -x, -x, 0);
            iv_push(d, SRL_FMA, fi, x, 2.0, -2.0 * x);
            iv_push(d, SRL_FMA, fi, -x, 0.5, 0.5 * x);
        }
        const double z[2] = {0.0, -0.0};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                iv_push(d, SRL_ADD, fi, z[i], z[j], 0);
                iv_push(d, SRL_SUB, fi, z[i], z[j], 0);
                iv_push(d, SRL_MUL, fi, z[i], i ? 3.0 : -3.0, 0);
                iv_push(d, SRL_DIV, fi, z[i], j ? 3.0 : -3.0, 0);
                for (int k = 0; k < 2; k++)
                    iv_push(d, SRL_FMA, fi, z[i], j ? 2.0 : -2.0, z[k]);
                iv_push(d, SRL_FMA, fi, 1.0, 1.0, -1.0);
            }
        iv_push(d, SRL_SQRT, fi, -0.0, 0, 0);
        iv_push(d, SRL_SQRT, fi, 0.0, 0, 0);
    }
}

/* exact ties between neighbours, and one binary64 ulp either side */
static void hard_ties(ivec *d)
{
    trng g = {0x71e5};
    for (int fi = 0; fi < NFMT; fi++) {
        const srl_format *f = &fmts[fi];
        for (int k = 0; k < 60; k++) {
            double y = fabs(gen_value(&g, f));
            if (!isfinite(y) || y == 0 || y >= f->xmax)
                continue;
            const double q = fmt_ulp(f, y);
            const double h = q / 2, m = y + h; /* the tie (a binary64 number: p <= 52 here) */
            if (m - y != h)
                continue;
            const double hs[3] = {h, nextafter(h, 0), nextafter(h, INFINITY)};
            for (int j = 0; j < 3; j++) {
                iv_push(d, SRL_ADD, fi, y, hs[j], 0);
                iv_push(d, SRL_SUB, fi, -y, hs[j], 0);
                iv_push(d, SRL_FMA, fi, y, 1.0, hs[j]);
            }
            const double ms[3] = {m, nextafter(m, 0), nextafter(m, INFINITY)};
            for (int j = 0; j < 3; j++) {
                iv_push(d, SRL_MUL, fi, ms[j], 1.0, 0);
                iv_push(d, SRL_MUL, fi, ms[j] * 0.5, -2.0, 0);
                const double t3 = ms[j] * 3.0; /* exact when ms[j] has <= 51 bits */
                if (t3 / 3.0 == ms[j] && t3 - 2.0 * ms[j] == ms[j])
                    iv_push(d, SRL_DIV, fi, t3, 3.0, 0);
                iv_push(d, SRL_DIV, fi, nextafter(m * 3.0, 0), 3.0, 0);
                iv_push(d, SRL_DIV, fi, nextafter(m * 3.0, INFINITY), 3.0, 0);
                const double sq = ms[j] * ms[j];
                iv_push(d, SRL_SQRT, fi, sq, 0, 0);
                iv_push(d, SRL_SQRT, fi, nextafter(sq, 0), 0, 0);
                iv_push(d, SRL_SQRT, fi, nextafter(sq, INFINITY), 0, 0);
            }
        }
    }
}

/* subnormal results and the underflow boundary; overflow and the largest finite */
static void hard_range(ivec *d)
{
    trng g = {0x5ab};
    for (int fi = 0; fi < NFMT; fi++) {
        const srl_format *f = &fmts[fi];
        for (int k = 0; k < 150; k++) {
            /* products and quotients landing between 2^(emin-p-2) and 2^(emin+1) */
            const int e = f->emin - f->p - 2 + (int)tr_below(&g, (uint64_t)f->p + 4);
            const int e1 = e / 2 + (int)tr_below(&g, 9) - 4;
            const double m1 = tr_from_bits((UINT64_C(0x3ff) << 52) | tr_sig52(&g));
            const double m2 = tr_from_bits((UINT64_C(0x3ff) << 52) | tr_sig52(&g));
            const double a = srl_round(ldexp(m1, e1), f, SRL_ROUND_RN, NULL);
            const double b = srl_round(ldexp(m2, e - e1), f, SRL_ROUND_RN, NULL);
            iv_push(d, SRL_MUL, fi, a, (k & 1) ? b : -b, 0);
            iv_push(d, SRL_DIV, fi, a, b != 0 ? 1.0 / b : 3.0, 0);
            iv_push(d, SRL_FMA, fi, a, b, ldexp(1.0, f->emin) * ((k & 2) ? 1 : -1));
            iv_push(d, SRL_SQRT, fi, ldexp(m1, 2 * f->emin - 2 * f->p + (int)tr_below(&g, 40)), 0,
                    0);
            iv_push(d, SRL_ADD, fi, ldexp(1.0, f->emin), -ldexp(m2, f->emin - (int)tr_below(&g, 3)),
                    0);
            /* near the largest finite */
            const double q = ldexp(1.0, f->emax - f->p + 1);
            const double xm = f->xmax;
            const double hs[] = {q / 4, q / 2, 3 * q / 4, q, 1.5 * q, 2 * q, q / 2 * m1};
            iv_push(d, SRL_ADD, fi, xm, hs[k % 7], 0);
            iv_push(d, SRL_SUB, fi, -xm, hs[k % 7], 0);
            iv_push(d, SRL_MUL, fi, xm, 1.0 + ldexp(m2 - 1.0, -(int)tr_below(&g, 30)), 0);
            iv_push(d, SRL_FMA, fi, xm, m1, -xm * (m1 - 1.0));
            iv_push(d, SRL_DIV, fi, xm, 1.0 - ldexp(m2, -(int)tr_below(&g, 40) - 2), 0);
            iv_push(d, SRL_SQRT, fi, xm * xm * m1, 0, 0);
        }
    }
}

/* Quotients and roots whose fraction has a run of 12 zeros or ones right after its first word:
 * any path that reads a fixed window of bits beyond f1 must still get `more` and the tail right
 * (found by search with the reference). */
static void hard_windows(ivec *d)
{
    trng g = {0x3d0};
    opref_ws w;
    for (int fi = 0; fi < NFMT; fi++) {
        const srl_format *f = &fmts[fi];
        opref_ws_init(&w, &rfmts[fi]);
        int found[2] = {0, 0};
        for (int t = 0; t < 60000 && (found[0] < 12 || found[1] < 12); t++) {
            const int which = t & 1; /* 0: sqrt, 1: div */
            double a = fabs(gen_value(&g, f)), b = which ? gen_value(&g, f) : 0.0;
            if ((t & 6) == 6) /* some arbitrary binary64 operands */
                a = fabs(gen_any(&g, f));
            if (!isfinite(a) || a == 0 || (which && (!isfinite(b) || b == 0)) || found[which] >= 12)
                continue;
            const srl_op op = which ? SRL_DIV : SRL_SQRT;
            opref o;
            opref_run(&o, &w, &rfmts[fi], op, a, b, 0, 0);
            if (!o.fok || o.above)
                continue;
            bool ends;
            const uint64_t w1 = opref_word(&w, w.qexp, 1, &ends);
            if ((w1 >> 52) == 0 || (w1 >> 52) == 0xfff) {
                iv_push(d, op, fi, a, b, 0);
                found[which]++;
            }
        }
        opref_ws_clear(&w);
    }
}

/* special operands: every combination, every mode, against the MPFR path and the reference */
static const double specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 3.0,
                                  0x1p-1074, -DBL_MAX, 448.0};
#define NSPEC ((int)(sizeof specials / sizeof specials[0]))

static void hard_specials(ivec *d)
{
    for (int fi = 0; fi < NFMT; fi++)
        for (int i = 0; i < NSPEC; i++)
            for (int j = 0; j < NSPEC; j++) {
                for (int op = 0; op < SRL_OP_COUNT; op++) {
                    if (op == SRL_FMA)
                        continue;
                    if (op == SRL_SQRT && j)
                        continue;
                    iv_push(d, (srl_op)op, fi, specials[i], specials[j], 0);
                }
                if (fi % 4 == 0)
                    for (int k = 0; k < NSPEC; k++)
                        iv_push(d, SRL_FMA, fi, specials[i], specials[j], specials[k]);
            }
}

/* The contract's IEEE 754 results for special operands (NaN for "not special"): the value
 * before rounding into the format. */
static bool contract_special(srl_op op, double a, double b, double c, srl_mode mode, double *x)
{
    const bool rd = mode == SRL_RD;
    switch (op) {
    case SRL_ADD:
    case SRL_SUB: {
        if (op == SRL_SUB)
            b = -b;
        if (isnan(a) || isnan(b)) {
            *x = NAN;
            return true;
        }
        if (isinf(a) && isinf(b)) {
            *x = (a == b) ? a : NAN;
            return true;
        }
        if (isinf(a) || isinf(b)) {
            *x = isinf(a) ? a : b;
            return true;
        }
        if (a == -b) { /* an exact zero sum: x + (-x), or zeros */
            if (a == 0 && signbit(a) && signbit(b))
                *x = -0.0;
            else if (a == 0 && !signbit(a) && !signbit(b))
                *x = 0.0;
            else
                *x = rd ? -0.0 : 0.0;
            return true;
        }
        return false;
    }
    case SRL_MUL:
        if (isnan(a) || isnan(b) || ((isinf(a) || isinf(b)) && (a == 0 || b == 0))) {
            *x = NAN;
            return true;
        }
        if (isinf(a) || isinf(b) || a == 0 || b == 0) {
            *x = a * b;
            return true;
        }
        return false;
    case SRL_FMA:
        if (isnan(a) || isnan(b) || isnan(c) || ((isinf(a) || isinf(b)) && (a == 0 || b == 0))) {
            *x = NAN;
            return true;
        }
        if (isinf(a) || isinf(b)) {
            const double p = a * b;
            *x = (isinf(c) && signbit(c) != signbit(p)) ? NAN : p;
            return true;
        }
        if (isinf(c)) {
            *x = c;
            return true;
        }
        if (a == 0 || b == 0) {
            const double p = a * b;
            if (c == 0) {
                if (signbit(p) && signbit(c))
                    *x = -0.0;
                else if (!signbit(p) && !signbit(c))
                    *x = 0.0;
                else
                    *x = rd ? -0.0 : 0.0;
                return true;
            }
            return false;
        }
        return false;
    case SRL_DIV:
        if (isnan(a) || isnan(b) || (isinf(a) && isinf(b)) || (a == 0 && b == 0)) {
            *x = NAN;
            return true;
        }
        if (isinf(a) || isinf(b) || a == 0 || b == 0) {
            *x = a / b; /* +-inf (x/0 included) or +-0 */
            return true;
        }
        return false;
    default:
        if (isnan(a) || a < 0) {
            *x = NAN;
            return true;
        }
        if (a == 0 || isinf(a)) {
            *x = a;
            return true;
        }
        return false;
    }
}

static double contract_round_special(const srl_format *f, double x)
{
    if (isnan(x))
        return NAN;
    if (isinf(x)) {
        if (f->saturate)
            return x > 0 ? f->xmax : -f->xmax;
        return f->inf ? x : NAN;
    }
    return x;
}

static void check_contract_specials(void)
{
    const long before = srl_test_failures;
    for (int fi = 0; fi < NFMT; fi++) {
        const srl_format *f = &fmts[fi];
        srl_rng rng = item_rng(fi, SRL_ADD);
        for (int i = 0; i < NSPEC; i++)
            for (int j = 0; j < NSPEC; j++)
                for (int k = 0; k < NSPEC; k++)
                    for (int op = 0; op < SRL_OP_COUNT; op++) {
                        if (op != SRL_FMA && k)
                            continue;
                        if (op == SRL_SQRT && j)
                            continue;
                        const double a = specials[i], b = specials[j], c = specials[k];
                        for (int md = 0; md < NMODE; md++) {
                            const srl_rounding m = mode_of(md, (uint64_t)(i + j + k));
                            double x;
                            if (!contract_special((srl_op)op, a, b, c, m.mode, &x))
                                continue;
                            const double want = contract_round_special(f, x);
                            const double y = srl_op_apply_draw((srl_op)op, a, b, c, f, m, 12345,
                                                               &rng, 7);
                            double ym = NAN;
                            const int st = srl_op_mpfr_draw(&ym, NULL, (srl_op)op, a, b, c, f, m,
                                                            12345, &rng, 7);
                            char mb[32];
                            CHECK(ref_same(y, want) && st == SRL_OK && ref_same(ym, want),
                                  "contract special: %s(%a, %a, %a) format %s mode %s: expected "
                                  "%a, fast %a, MPFR path %a (status %d)", srl_op_name((srl_op)op),
                                  a, b, c, f->name, mname(mb, m), want, y, ym, st);
                        }
                    }
    }
    GROUP("special operands and zero signs against the contract (IEEE 754)", before);
}

/* 1 + 2^-200 in fp32 with sr: p_up = 2^-177 exactly; decisions at chosen draws. */
static void check_tiny_probability(void)
{
    const long before = srl_test_failures;
    const srl_format *f = srl_format_find("fp32");
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, 2024, 1);
    srl_round_info I;
    int st = srl_op_explain(&I, SRL_ADD, 1.0, 0x1p-200, 0, f, SRL_ROUND_SR, &rng);
    CHECK(st == SRL_OK && I.p_up == 0x1p-177 && I.frac == 0x1p-177 && I.rd == 1.0 &&
          I.ru == 1.0 + 0x1p-23 && I.ternary != 0 && !I.exact,
          "fp32 sr 1 + 2^-200: p_up %a frac %a rd %a ru %a ternary %d exact %d (want p_up = "
          "frac = 2^-177, rd 1, ru 1+2^-23)", I.p_up, I.frac, I.rd, I.ru, I.ternary, I.exact);
    st = srl_op_explain(&I, SRL_SUB, -1.0, 0x1p-200, 0, f, SRL_ROUND_SR, &rng);
    /* -1 - 2^-200: ru = -1 is toward zero, p_up = 1 - 2^-177, which rounds to 1 */
    CHECK(st == SRL_OK && I.p_up == 1.0 && I.frac == 0x1p-177 && I.rd == -1.0 - 0x1p-23 &&
              I.ru == -1.0,
          "fp32 sr -1 - 2^-200: p_up %a frac %a rd %a ru %a", I.p_up, I.frac, I.rd, I.ru);
    /* f = 2^-177: f1 = 0 and more. u = 0 ties the first word, so U < f would need the extra
     * words to be zero down to bit 177: the result is 1 whatever word the stream holds there,
     * unless that word is 0 (never, for these indices). u >= 1: U > f, down. */
    for (uint64_t idx = 0; idx < 64; idx++) {
        const uint64_t w1 = srl_rng_extra(&rng, idx, 0);
        const uint64_t us[3] = {0, 1, UINT64_MAX};
        for (int k = 0; k < 3; k++) {
            const double y = srl_op_apply_draw(SRL_ADD, 1.0, 0x1p-200, 0, f, SRL_ROUND_SR, us[k],
                                               &rng, idx);
            double ym;
            const int s2 = srl_op_mpfr_draw(&ym, NULL, SRL_ADD, 1.0, 0x1p-200, 0, f, SRL_ROUND_SR,
                                            us[k], &rng, idx);
            CHECK(w1 != 0 && y == 1.0 && s2 == SRL_OK && ym == 1.0,
                  "fp32 sr 1 + 2^-200, u=%" PRIx64 " index %" PRIu64 ": fast %a MPFR %a (want 1)",
                  us[k], idx, y, ym);
        }
    }
    /* 1 - 2^-200 in fp32 (binade [1/2, 1), q = 2^-24): f = 1 - 2^-176, f1 = 2^64 - 1 and more.
     * u = f1 - 1 < f1: up. u = f1: the first extra word decides, and it is below f's second word
     * (all ones) unless it is all ones: up. */
    for (uint64_t idx = 0; idx < 64; idx++) {
        const uint64_t us[2] = {UINT64_MAX - 1, UINT64_MAX};
        for (int k = 0; k < 2; k++) {
            const uint64_t w1 = srl_rng_extra(&rng, idx, 0);
            const double want = (k == 0 || w1 != UINT64_MAX) ? 1.0 : 1.0 - 0x1p-24;
            const double y = srl_op_apply_draw(SRL_SUB, 1.0, 0x1p-200, 0, f, SRL_ROUND_SR, us[k],
                                               &rng, idx);
            double ym;
            const int s2 = srl_op_mpfr_draw(&ym, NULL, SRL_SUB, 1.0, 0x1p-200, 0, f, SRL_ROUND_SR,
                                            us[k], &rng, idx);
            CHECK(y == want && s2 == SRL_OK && ym == want,
                  "fp32 sr 1 - 2^-200, u=%" PRIx64 " index %" PRIu64 ": fast %a MPFR %a want %a",
                  us[k], idx, y, ym, want);
        }
    }
    GROUP("1 + 2^-200 in fp32 with sr: p_up = 2^-177 exactly; draws at the boundary", before);
}

/* Decisions settled by the first extra word: f's second word is known (a periodic quotient or
 * a gap sum), and indices are chosen so that the stream's extra word falls below and above it. */
static void check_tail_decisions(void)
{
    const long before = srl_test_failures;
    typedef struct tcase {
        const char *fmt;
        srl_op op;
        double a, b, c;
    } tcase;
    const tcase T[] = {
        {"fp32", SRL_DIV, 1.0, 3.0, 0},           /* f = 0.0101..., periodic */
        {"bf16", SRL_DIV, 2.0, 7.0, 0},
        {"fp64", SRL_DIV, 1.0, 3.0, 0},
        {"fp16", SRL_DIV, -5.0, 11.0, 0},
        {"fp32", SRL_SQRT, 2.0, 0, 0},            /* irrational */
        {"bf16", SRL_SQRT, 3.0, 0, 0},
        {"fp64", SRL_SQRT, 2.0, 0, 0},
        {"fp32", SRL_ADD, 1.0 + 0x1p-30, 0x1.8p-95, 0}, /* f = 2^-7 + 1.5 2^-72: word 1 = 3 2^56 */
        {"bf16", SRL_FMA, 1.0 + 0x1p-20, 1.0 + 0x1p-40, 0x1p-72}, /* word 1 = 2^63 */
        {"p=40,emax=1023", SRL_DIV, 0x1p-1040, 3.0, 0}, /* a subnormal result of the format */
        {"fp32", SRL_MUL, 1.0 + 0x1p-40, 1.0 + 0x1p-48, 0},  /* f = 2^-17 + 2^-25 + 2^-65 */
    };
    ref_fmt F;
    for (size_t t = 0; t < sizeof T / sizeof T[0]; t++) {
        srl_format f;
        srl_err err;
        if (srl_format_parse(&f, T[t].fmt, &err) != SRL_OK)
            continue;
        ref_fmt_from(&F, &f);
        opref_ws w;
        opref_ws_init(&w, &F);
        opref o;
        opref_run(&o, &w, &F, T[t].op, T[t].a, T[t].b, T[t].c, 0);
        bool ends;
        const uint64_t f1 = opref_word(&w, w.qexp, 0, &ends);
        const uint64_t f2 = opref_word(&w, w.qexp, 1, &ends);
        srl_rng rng;
        srl_rng_init(&rng, SRL_RNG_DEFAULT, 77, t);
        int seen_up = 0, seen_down = 0;
        for (uint64_t idx = 0; idx < 4096 && (seen_up < 4 || seen_down < 4); idx++) {
            const uint64_t w1 = srl_rng_extra(&rng, idx, 0);
            const int want_up = w1 < f2; /* w1 == f2 has probability 2^-64 */
            if (w1 == f2)
                continue;
            if ((want_up && seen_up >= 4) || (!want_up && seen_down >= 4))
                continue;
            *(want_up ? &seen_up : &seen_down) += 1;
            const double want = want_up ? o.awy.v : o.tow.v;
            const double y = srl_op_apply_draw(T[t].op, T[t].a, T[t].b, T[t].c, &f, SRL_ROUND_SR,
                                               f1, &rng, idx);
            double ym;
            const int s2 = srl_op_mpfr_draw(&ym, NULL, T[t].op, T[t].a, T[t].b, T[t].c, &f,
                                            SRL_ROUND_SR, f1, &rng, idx);
            CHECK(o.fok && y == want && s2 == SRL_OK && ym == want,
                  "tail decision %s(%a, %a, %a) in %s: u = f1 = 0x%016" PRIx64 ", f's word 2 "
                  "0x%016" PRIx64 ", extra word 0x%016" PRIx64 " (index %" PRIu64 "): fast %a "
                  "MPFR %a, want %a", srl_op_name(T[t].op), T[t].a, T[t].b, T[t].c, T[t].fmt, f1,
                  f2, w1, idx, y, ym, want);
        }
        CHECK(seen_up == 4 && seen_down == 4, "tail decision %s in %s: draws on both sides not "
              "found (%d up, %d down)", srl_op_name(T[t].op), T[t].fmt, seen_up, seen_down);
        opref_ws_clear(&w);
    }
    GROUP("sr decisions settled by the first extra word, both ways", before);
}

/* The small API: names, arity, argument checks, srl_op_exact. */
static void check_api(void)
{
    const long before = srl_test_failures;
    static const char *const names[SRL_OP_COUNT] = {"add", "sub", "mul", "fma", "div", "sqrt"};
    static const int arity[SRL_OP_COUNT] = {2, 2, 2, 3, 2, 1};
    for (int k = 0; k < SRL_OP_COUNT; k++) {
        srl_op op;
        CHECK(srl_op_parse(&op, names[k], NULL) == SRL_OK && op == (srl_op)k &&
                  strcmp(srl_op_name((srl_op)k), names[k]) == 0 && srl_op_arity((srl_op)k) ==
                  arity[k], "operation %s: parse, name or arity", names[k]);
    }
    srl_op op;
    srl_err err;
    CHECK(srl_op_parse(&op, "mod", &err) == SRL_EPARSE && strstr(err.msg, "mod") != NULL,
          "srl_op_parse(\"mod\") must fail naming the input");
    CHECK(srl_op_parse(&op, NULL, NULL) == SRL_EPARSE, "srl_op_parse(NULL)");
    CHECK(strcmp(srl_op_name(SRL_OP_COUNT), "invalid") == 0, "srl_op_name(out of range)");
    const srl_format *f = srl_format_find("bf16");
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, 1, 2);
    const srl_rounding bad_r = {SRL_SR_BITS, 0}, bad_m = {SRL_MODE_COUNT, 0};
    srl_round_info I;
    CHECK(isnan(srl_op_apply(SRL_ADD, 1, 2, 0, f, SRL_ROUND_SR, NULL)) &&
              isnan(srl_op_apply_draw(SRL_ADD, 1, 2, 0, f, SRL_ROUND_SR, 0, NULL, 0)) &&
              isnan(srl_op_apply(SRL_ADD, 1, 2, 0, f, bad_r, &rng)) &&
              isnan(srl_op_apply(SRL_ADD, 1, 2, 0, f, bad_m, &rng)) &&
              srl_op_explain(&I, SRL_ADD, 1, 2, 0, f, SRL_ROUND_SR, NULL) == SRL_EINVAL &&
              srl_op_explain(&I, SRL_ADD, 1, 2, 0, f, bad_r, &rng) == SRL_EINVAL &&
              srl_op_explain(&I, SRL_OP_COUNT, 1, 2, 0, f, SRL_ROUND_RN, NULL) == SRL_EINVAL,
          "invalid modes, a NULL stream with a stochastic mode, an invalid operation");
    /* deterministic modes never touch the stream; stochastic ones take one draw */
    CHECK(srl_op_apply(SRL_DIV, 1, 3, 0, f, SRL_ROUND_RN, NULL) == srl_round(1.0 / 3, f,
                                                                             SRL_ROUND_RN, NULL) &&
              srl_op_explain(&I, SRL_DIV, 1, 3, 0, f, SRL_ROUND_RN, NULL) == SRL_OK,
          "deterministic modes with a NULL stream");
    const uint64_t c0 = rng.counter;
    CHECK(srl_op_explain(&I, SRL_SQRT, 2, 0, 0, f, SRL_ROUND_SR, &rng) == SRL_OK &&
              rng.counter == c0 + 1, "srl_op_explain takes exactly one draw");
    /* unused operands are ignored, NaN included */
    CHECK(srl_op_apply(SRL_ADD, 1, 2, NAN, f, SRL_ROUND_RN, NULL) == 3 &&
              srl_op_apply(SRL_SQRT, 4, NAN, NAN, f, SRL_ROUND_RN, NULL) == 2,
          "unused operands must be ignored");
    /* srl_op_exact: exact for add, sub, mul, fma (ternary 0, precision raised), rounded to
     * nearest at r's precision for div and sqrt */
    trng g = {0xe4ac7};
    mpfr_t r, t, A, B, C;
    mpfr_inits2(53, r, A, B, C, (mpfr_ptr)0);
    mpfr_init2(t, OPREF_XPREC);
    for (int k = 0; k < 3000; k++) {
        const srl_op o = (srl_op)(k % SRL_OP_COUNT);
        const double a = o == SRL_SQRT ? fabs(tr_double_whole(&g)) : tr_double_whole(&g);
        const double b = tr_double_whole(&g), c = tr_double_whole(&g);
        mpfr_set_prec(r, 113);
        const int tern = srl_op_exact(r, o, a, b, c);
        const opref_range rg = opref_widen();
        mpfr_set_d(A, a, MPFR_RNDN);
        mpfr_set_d(B, b, MPFR_RNDN);
        mpfr_set_d(C, c, MPFR_RNDN);
        mpfr_set_prec(t, opref_exact_op(o) ? OPREF_XPREC : 113);
        const int t2 = opref_eval(t, o, A, B, C, MPFR_RNDN);
        const bool same = (mpfr_nan_p(r) && mpfr_nan_p(t)) || (mpfr_equal_p(r, t) &&
                          mpfr_signbit(r) == mpfr_signbit(t));
        opref_restore(rg);
        CHECK(same && ref_sgn(tern) == ref_sgn(t2) && (!opref_exact_op(o) || tern == 0),
              "srl_op_exact %s(%a, %a, %a): ternary %d (reference %d)", srl_op_name(o), a, b, c,
              tern, t2);
    }
    mpfr_clears(r, t, A, B, C, (mpfr_ptr)0);
    GROUP("API: names, arity, argument checks, draw counting, srl_op_exact", before);
}

/* ---------------------------------------------------------------------------------------- */
/* 3. Every operand pair of e4m3 and e5m2.                                                   */

typedef struct pair_ctx {
    int fi;
    srl_op op;
    int nvals;
    const double *vals;
} pair_ctx;

static void gen_pairs(item *it, size_t i, const void *vctx)
{
    const pair_ctx *c = vctx;
    memset(it, 0, sizeof *it);
    const size_t nv = (size_t)c->nvals;
    it->op = c->op;
    it->fi = c->fi;
    it->index = i;
    it->modes = (1u << NMODE) - 1;
    if (c->op == SRL_FMA) {
        trng g = {mix(UINT64_C(0xf3a), i)};
        it->a = c->vals[tr_below(&g, nv)];
        it->b = c->vals[tr_below(&g, nv)];
        it->c = c->vals[tr_below(&g, nv)];
    } else {
        it->a = c->vals[i % nv];
        it->b = c->op == SRL_SQRT ? 0.0 : c->vals[i / nv];
    }
    trng g = {mix(UINT64_C(0xe4e5), i)};
    it->u_rand = tr_next(&g);
    it->ukinds = 1u | (1u << (1 + tr_below(&g, 3))); /* random, and one of f1-1, f1, f1+1 */
    it->explain = (int)(i % NMODE);
    it->apply = (i % 7) == 0;
    it->selfcheck = (i % 13) == 0;
}

static void exhaustive_fp8(void)
{
    const char *names[2] = {"e4m3", "e5m2"};
    for (int k = 0; k < 2; k++) {
        int fi = -1;
        for (int j = 0; j < NFMT; j++)
            if (strcmp(fmt_specs[j], names[k]) == 0)
                fi = j;
        double vals[256];
        for (int b = 0; b < 256; b++)
            if (srl_format_decode(&vals[b], &fmts[fi], (uint64_t)b) != SRL_OK)
                vals[b] = NAN;
        for (int op = 0; op < SRL_OP_COUNT; op++) {
            const double t = now();
            pair_ctx c = {fi, (srl_op)op, 256, vals};
            size_t n;
            if (op == SRL_SQRT)
                n = 256;
            else if (op == SRL_FMA)
                n = (size_t)srl_test_n(200000);
            else
                n = (size_t)256 * 256;
            char label[200];
            snprintf(label, sizeof label, "%s %s: %s (%zu), every mode", names[k],
                     srl_op_name((srl_op)op),
                     op == SRL_FMA ? "random triples" : op == SRL_SQRT ? "every value"
                                                                       : "every pair", n);
            run_items(label, n, gen_pairs, &c);
            printf("  [%.1f s]\n", now() - t);
        }
    }
}

/* ---------------------------------------------------------------------------------------- */

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double t0 = now();
    printf("test_ops_oracle: MPFR %s (TLS %s), %d threads, SRL_TEST_SCALE=%s\n",
           mpfr_get_version(), mpfr_buildopt_tls_p() ? "yes" : "no", NTHREADS,
           getenv("SRL_TEST_SCALE") ? getenv("SRL_TEST_SCALE") : "1");
    for (int k = 0; k < NFMT; k++) {
        srl_err err;
        const int st = srl_format_parse(&fmts[k], fmt_specs[k], &err);
        CHECK(st == SRL_OK, "format %s: %s", fmt_specs[k], err.msg);
        if (st != SRL_OK)
            TEST_END();
        ref_fmt_from(&rfmts[k], &fmts[k]);
    }

    check_api();

    /* 2. hard cases first: they are the most telling when they fail */
    {
        const double t = now();
        check_contract_specials();
        check_tiny_probability();
        check_tail_decisions();
        ivec d = {0};
        hard_gaps(&d);
        hard_zeros(&d);
        hard_ties(&d);
        hard_range(&d);
        hard_windows(&d);
        hard_specials(&d);
        list_ctx c = {d.v};
        char label[200];
        snprintf(label, sizeof label, "hard cases (gaps, zeros, ties, range, windows, specials): %zu items",
                 d.n);
        run_items(label, d.n, gen_list, &c);
        free(d.v);
        printf("  [hard cases: %.1f s]\n", now() - t);
    }

    /* 1. random operands: per operation 10^6 sets over 12 formats, each set in one deterministic
     *    and one stochastic mode (rotating), so every (operation, format, mode) cell gets
     *    10^6 / 12 / 3 sets (stochastic) or / 6 (deterministic) */
    {
        const size_t per_op = (size_t)srl_test_n(1000000);
        const size_t per_fmt = (per_op + NFMT - 1) / NFMT;
        long fast_paths = 0, total = 0;
        for (int op = 0; op < SRL_OP_COUNT; op++) {
            const double t = now();
            rand_ctx c = {(srl_op)op, per_fmt};
            const size_t n = per_fmt * NFMT;
            char label[200];
            snprintf(label, sizeof label, "%s: %zu random operand sets (%zu per format), fast vs "
                     "MPFR path vs reference", srl_op_name((srl_op)op), n, per_fmt);
            run_items(label, n, gen_random, &c);
            /* which path: count MPFR fallbacks on these operands */
            long fb = 0;
            for (size_t i = 0; i < n; i++) {
                item it;
                gen_random(&it, i, &c);
                fb += srl_op_which_path(it.op, it.a, it.b, it.c, &fmts[it.fi]) == SRL_PATH_MPFR;
            }
            fast_paths += (long)n - fb;
            total += (long)n;
            printf("  [%s: %.1f s; MPFR fallbacks %ld of %zu]\n", srl_op_name((srl_op)op),
                   now() - t, fb, n);
        }
        printf("  fast path taken for %ld of %ld random operand sets\n", fast_paths, total);
    }

    /* 3. e4m3 and e5m2 exhaustively */
    exhaustive_fp8();

    printf("total %.1f s\n", now() - t0);
    TEST_END();
}
