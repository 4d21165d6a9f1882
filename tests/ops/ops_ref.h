/* tests/ops/ops_ref.h: an independent MPFR reference for srlab's exact operations (shared by
 * test_ops_oracle.c and test_ops_stat.c; header-only, static functions).
 *
 * It never calls srlab's operations or rounding: it reads a format's parameters through
 * tests/round/ref_round.h (ref_fmt: xmax, the MPFR exponent range of the emulation, the overflow
 * rules of rounding.h) and lets MPFR do the arithmetic.
 *
 * Deterministic modes, "direct" route (every operand within the emulation's exponent range, as
 * MPFR requires of its inputs): the operation itself (mpfr_add, mpfr_sub, mpfr_mul, mpfr_fma,
 * mpfr_div, mpfr_sqrt) at precision p with emin = the emulation's, emax = MPFR's maximum, then
 * mpfr_subnormalize with the operation's ternary (gradual underflow without double rounding);
 * RNDN, RNDZ, RNDU, RNDD give rn, rz, ru, rd directly, with MPFR's ternary and MPFR's IEEE 754 sign
 * of an exact zero (+0 but in RNDD). rna: the directed neighbours z (toward zero) and a (away),
 * and a iff |x| >= (|z| + |a|) / 2, compared exactly (add/sub/mul/fma: the exact result at 3400
 * bits; div: |a| against mid |b|; sqrt: a against mid^2). ro: z if exact, else the neighbour
 * with an odd last significand bit (ref_even of ref_round.h). Overflow: the rules of rounding.h
 * (ref_adjust) on the unbounded-grid result.
 * "Odd" route (an operand below the emulation's range, e.g. 2^-1074 with bf16): the result
 * rounded to odd at p + 3 bits in MPFR's full exponent range (toward zero, last bit forced to 1
 * when inexact; it lies strictly between the same grid points as the exact result and is exact
 * when that is), then rounded by ref_round.h's reference. The tests also run both routes on
 * in-range operands and compare them (a self-check of the reference).
 *
 * Stochastic modes: the reference gives the two candidates (toward / away from zero, with the
 * stochastic overflow rule) and the words of the exact fraction f = (|x| - |z|) / (|a| - |z|),
 * from the exact result (add/sub/mul/fma) or from |x| rounded toward zero at as many bits as the
 * asked word needs (div/sqrt: the digits of a directed rounding are exact truncations).
 * The decision rule of rounding.h is then applied here: sr away iff U < f (U = 0.u w1 w2 ...,
 * wk = srl_rng_extra(rng, index, k-1)); sr-eq away iff inexact and u's top bit; sr:r=R away iff
 * floor(f 2^R) + (u >> (64-R)) >= 2^R. */
#ifndef SRL_TEST_OPS_REF_H
#define SRL_TEST_OPS_REF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <mpfr.h>

#include "srlab/ops.h"
#include "srlab/rng.h"

#include "../round/ref_round.h"

#define OPREF_XPREC 3400 /* add/sub/mul/fma of binary64 numbers are exact at this precision */

typedef struct opref {
    int kind;   /* of the exact result: REF_FINITE (nonzero), REF_ZERO, REF_INF, REF_NAN */
    bool neg;   /* sign of the exact result (of the zero, for REF_ZERO in rn) */
    bool inexact, exact;
    bool above; /* |x| >= 2^(emax+1) */
    bool fok;   /* the fraction is available (direct route, finite inexact result) */
    ref_out m[REF_NDET], rd, ru, tow, awy;
    int err;    /* the reference's own self-checks */
} opref;

/* Per-thread workspace. */
typedef struct opref_ws {
    ref_ws rw;
    mpfr_t A, B, C;      /* operands, 53 bits */
    mpfr_t r[4];         /* RNDN, RNDZ, RNDU, RNDD at precision p */
    mpfr_t X;            /* the exact result, or |x| toward zero at a working precision */
    bool Xinexact;
    mpfr_t mid, t1, t2;  /* scratch */
    mpfr_t odd;          /* p + 3 bits */
    long qexp;           /* grid spacing 2^qexp at x (valid when o->fok) */
    bool Xvalid;         /* X holds the current operation's result */
    srl_op op;
    int p;
} opref_ws;

static inline void opref_ws_init(opref_ws *w, const ref_fmt *F)
{
    ref_ws_init(&w->rw, F);
    mpfr_inits2(53, w->A, w->B, w->C, (mpfr_ptr)0);
    for (int k = 0; k < 4; k++)
        mpfr_init2(w->r[k], F->p);
    mpfr_init2(w->X, OPREF_XPREC);
    mpfr_init2(w->mid, F->p + 2);
    mpfr_init2(w->t1, OPREF_XPREC + 64);
    mpfr_init2(w->t2, OPREF_XPREC + 64);
    mpfr_init2(w->odd, F->p + 3);
    w->p = F->p;
    w->Xvalid = false;
}

static inline void opref_ws_clear(opref_ws *w)
{
    ref_ws_clear(&w->rw);
    mpfr_clears(w->A, w->B, w->C, w->X, w->mid, w->t1, w->t2, w->odd, (mpfr_ptr)0);
    for (int k = 0; k < 4; k++)
        mpfr_clear(w->r[k]);
}

static inline int opref_eval(mpfr_ptr r, srl_op op, mpfr_srcptr A, mpfr_srcptr B, mpfr_srcptr C,
                             mpfr_rnd_t rnd)
{
    switch (op) {
    case SRL_ADD: return mpfr_add(r, A, B, rnd);
    case SRL_SUB: return mpfr_sub(r, A, B, rnd);
    case SRL_MUL: return mpfr_mul(r, A, B, rnd);
    case SRL_FMA: return mpfr_fma(r, A, B, C, rnd);
    case SRL_DIV: return mpfr_div(r, A, B, rnd);
    default: return mpfr_sqrt(r, A, rnd);
    }
}

static inline bool opref_exact_op(srl_op op)
{
    return op != SRL_DIV && op != SRL_SQRT;
}

/* MPFR's exponent range widened to the maximum, and restored. */
typedef struct opref_range {
    mpfr_exp_t emin, emax;
} opref_range;

static inline opref_range opref_widen(void)
{
    opref_range r = {mpfr_get_emin(), mpfr_get_emax()};
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    return r;
}

static inline void opref_restore(opref_range r)
{
    mpfr_set_emin(r.emin);
    mpfr_set_emax(r.emax);
}

/* X = the exact result (add/sub/mul/fma: Xinexact stays false, OPREF_XPREC covers every bit),
 * or x rounded toward zero at precision P (div/sqrt), with Xinexact. Signed. Call with the range
 * widened. */
static inline void opref_compute_X(opref_ws *w, mpfr_prec_t P)
{
    w->Xvalid = true;
    if (opref_exact_op(w->op)) {
        mpfr_set_prec(w->X, OPREF_XPREC);
        w->Xinexact = opref_eval(w->X, w->op, w->A, w->B, w->C, MPFR_RNDN) != 0;
    } else {
        mpfr_set_prec(w->X, P);
        w->Xinexact = opref_eval(w->X, w->op, w->A, w->B, w->C, MPFR_RNDZ) != 0;
    }
}

/* sign(|x| - mid) exactly, mid > 0 (range widened, X computed). */
static inline int opref_cmp_mid(opref_ws *w, mpfr_srcptr mid)
{
    if (opref_exact_op(w->op))
        return mpfr_cmpabs(w->X, mid);
    if (w->op == SRL_DIV) { /* |a/b| vs mid  <=>  |a| vs mid |b| */
        mpfr_set_prec(w->t1, mpfr_get_prec(mid) + 53);
        mpfr_mul(w->t1, mid, w->B, MPFR_RNDN); /* exact */
        return mpfr_cmpabs(w->A, w->t1);
    }
    mpfr_set_prec(w->t1, 2 * mpfr_get_prec(mid)); /* sqrt(a) vs mid  <=>  a vs mid^2 */
    mpfr_sqr(w->t1, mid, MPFR_RNDN);               /* exact */
    return mpfr_cmp(w->A, w->t1);
}

static inline bool opref_in_range(const ref_fmt *F, mpfr_srcptr x)
{
    return !mpfr_regular_p(x) || mpfr_get_exp(x) >= F->emin_m;
}

/* Finish a reference from the four directed/nearest results (direct route). */
static inline void opref_direct(opref *o, opref_ws *w, const ref_fmt *F)
{
    static const mpfr_rnd_t rnds[4] = {MPFR_RNDN, MPFR_RNDZ, MPFR_RNDU, MPFR_RNDD};
    int tern[4];
    {
        const mpfr_exp_t e0 = mpfr_get_emin(), x0 = mpfr_get_emax();
        mpfr_set_emax(mpfr_get_emax_max());
        mpfr_set_emin(F->emin_m);
        for (int k = 0; k < 4; k++) {
            int t = opref_eval(w->r[k], w->op, w->A, w->B, w->C, rnds[k]);
            if (F->sub)
                t = mpfr_subnormalize(w->r[k], t, rnds[k]);
            tern[k] = ref_sgn(t);
        }
        mpfr_set_emin(e0);
        mpfr_set_emax(x0);
    }
    mpfr_srcptr N = w->r[0], Z = w->r[1], U = w->r[2], D = w->r[3];
    if (mpfr_nan_p(N) || mpfr_inf_p(N) || (mpfr_zero_p(N) && tern[1] == 0)) {
        /* special results: NaN, an infinite exact result, an exact zero (its sign per rnd) */
        o->kind = mpfr_nan_p(N) ? REF_NAN : mpfr_inf_p(N) ? REF_INF : REF_ZERO;
        o->neg = mpfr_signbit(N) != 0;
        ref_out r[4];
        for (int k = 0; k < 4; k++) {
            const double xd = mpfr_get_d(w->r[k], MPFR_RNDN);
            double v = xd;
            if (o->kind == REF_INF)
                v = F->sat ? (xd < 0 ? -F->xmax : F->xmax) : F->inf ? xd : NAN;
            else if (o->kind == REF_NAN)
                v = NAN;
            r[k].v = v;
            r[k].ovf = o->kind == REF_INF && !isinf(v);
            r[k].t = (isnan(v) || o->kind != REF_INF || isinf(v)) ? 0 : (xd < 0 ? 1 : -1);
        }
        o->m[SRL_RN] = r[0];
        o->m[SRL_RZ] = r[1];
        o->m[SRL_RU] = r[2];
        o->m[SRL_RD] = r[3];
        o->m[SRL_RNA] = r[1]; /* the zero sum is +0 except in rd (inf, NaN: the same in all) */
        o->m[SRL_RO] = r[1];
        o->rd = r[3];
        o->ru = r[2];
        o->tow = o->awy = r[1];
        /* rounding.h: exact = returned unchanged (NaN counts; saturation clamps infinities) */
        o->exact = o->kind == REF_NAN || o->kind == REF_ZERO ||
                   (o->kind == REF_INF && F->inf && !F->sat);
        return;
    }
    o->kind = REF_FINITE;
    const bool neg = mpfr_signbit(Z) != 0;
    o->neg = neg;
    mpfr_srcptr Aw = neg ? D : U;
    const int tz = tern[1], ta = neg ? tern[3] : tern[2];
    o->inexact = tz != 0;
    if (!mpfr_equal_p(Z, neg ? U : D) || (tz == 0) != (ta == 0) || (tz == 0) != (tern[0] == 0))
        o->err |= 2;
    /* rna */
    mpfr_srcptr rna = Z;
    int t_rna = tz;
    if (tz) {
        if (mpfr_add(w->mid, Z, Aw, MPFR_RNDN) != 0)
            o->err |= 4;
        mpfr_div_2ui(w->mid, w->mid, 1, MPFR_RNDN);
        mpfr_abs(w->mid, w->mid, MPFR_RNDN);
        const opref_range rg = opref_widen();
        if (opref_exact_op(w->op) && !w->Xvalid)
            opref_compute_X(w, 0);
        const int c = opref_cmp_mid(w, w->mid);
        opref_restore(rg);
        if (c >= 0)
            rna = Aw, t_rna = ta;
    }
    mpfr_srcptr ro = Z;
    int t_ro = tz;
    if (tz && ref_even(&w->rw, F, Z))
        ro = Aw, t_ro = ta;
    /* Overflowing results are compared with Aw, which lies beyond xmax whenever any rounding of x
     * does (a proxy for x on the right side of xmax; see ref_adjust). */
    int *err = &o->err;
    o->m[SRL_RN] = ref_adjust(F, &w->rw, N, tern[0], Aw, SRL_RN, neg, err);
    o->m[SRL_RNA] = ref_adjust(F, &w->rw, rna, t_rna, Aw, SRL_RNA, neg, err);
    o->m[SRL_RZ] = ref_adjust(F, &w->rw, Z, tz, Aw, SRL_RZ, neg, err);
    o->m[SRL_RU] = ref_adjust(F, &w->rw, U, tern[2], Aw, SRL_RU, neg, err);
    o->m[SRL_RD] = ref_adjust(F, &w->rw, D, tern[3], Aw, SRL_RD, neg, err);
    o->m[SRL_RO] = ref_adjust(F, &w->rw, ro, t_ro, Aw, SRL_RO, neg, err);
    o->rd = o->m[SRL_RD];
    o->ru = o->m[SRL_RU];
    o->tow = ref_adjust(F, &w->rw, Z, tz, Aw, REF_STO, neg, err);
    o->awy = ref_adjust(F, &w->rw, Aw, ta, Aw, REF_STO, neg, err);
    o->exact = tz == 0 && mpfr_cmpabs(Z, w->rw.xmaxm) <= 0;
    o->above = !mpfr_zero_p(Z) && (long)mpfr_get_exp(Z) - 1 >= (long)F->emax + 1;
    /* the fraction's grid: q = |a| - |z| (a power of two), |z| */
    if (tz) {
        mpfr_set_prec(w->t2, F->p + 2);
        if (mpfr_sub(w->t2, Aw, Z, MPFR_RNDN) != 0)
            o->err |= 8;
        mpfr_abs(w->t2, w->t2, MPFR_RNDN);
        if (mpfr_cmp_ui_2exp(w->t2, 1, mpfr_get_exp(w->t2) - 1) != 0)
            o->err |= 8;
        w->qexp = (long)mpfr_get_exp(w->t2) - 1;
        o->fok = true;
    }
}

/* Odd route: x rounded to odd at p + 3 bits, then ref_round.h. */
static inline void opref_odd(opref *o, opref_ws *w, const ref_fmt *F)
{
    const opref_range rg = opref_widen();
    int t = opref_eval(w->odd, w->op, w->A, w->B, w->C, MPFR_RNDZ);
    if (t != 0 && mpfr_regular_p(w->odd)) {
        /* force the last bit to 1: the next number away from zero when it is 0 */
        mpfr_set_prec(w->t1, F->p + 3);
        mpfr_mul_2si(w->t1, w->odd, (long)F->p + 3 - (long)mpfr_get_exp(w->odd), MPFR_RNDN);
        if (mpfr_integer_p(w->t1)) {
            mpfr_div_2ui(w->t1, w->t1, 1, MPFR_RNDN);
            if (mpfr_integer_p(w->t1)) { /* last bit 0 */
                if (mpfr_signbit(w->odd))
                    mpfr_nextbelow(w->odd);
                else
                    mpfr_nextabove(w->odd);
            }
        }
    }
    /* the sign of an exact zero in rd */
    mpfr_set_prec(w->t2, 64);
    const bool zero_exact = t == 0 && mpfr_zero_p(w->odd);
    if (zero_exact)
        opref_eval(w->t2, w->op, w->A, w->B, w->C, MPFR_RNDD);
    opref_restore(rg);
    ref_all ra;
    ref_round_mp(&ra, &w->rw, F, w->odd);
    o->kind = ra.kind;
    o->neg = ra.neg;
    o->inexact = ra.inexact;
    o->exact = ra.exact;
    for (int k = 0; k < REF_NDET; k++)
        o->m[k] = ra.m[k];
    o->rd = ra.rd;
    o->ru = ra.ru;
    o->tow = ra.tow;
    o->awy = ra.awy;
    o->err |= ra.err;
    o->above = ra.above;
    if (zero_exact) {
        const double zd = mpfr_get_d(w->t2, MPFR_RNDN);
        o->m[SRL_RD].v = zd;
        o->rd.v = zd;
    }
}

/* The reference for op(a, b, c) in F. `route`: 0 automatic, 1 force odd (self-checks). */
static inline void opref_run(opref *o, opref_ws *w, const ref_fmt *F, srl_op op, double a,
                             double b, double c, int route)
{
    memset(o, 0, sizeof *o);
    w->op = op;
    w->Xvalid = false;
    mpfr_set_d(w->A, a, MPFR_RNDN);
    mpfr_set_d(w->B, b, MPFR_RNDN);
    mpfr_set_d(w->C, c, MPFR_RNDN);
    if (op == SRL_ADD || op == SRL_SUB || op == SRL_MUL || op == SRL_DIV)
        mpfr_set_zero(w->C, 1); /* unused operands are ignored */
    if (op == SRL_SQRT)
        mpfr_set_zero(w->B, 1), mpfr_set_zero(w->C, 1);
    const bool in = opref_in_range(F, w->A) && opref_in_range(F, w->B) &&
                    opref_in_range(F, w->C);
    if (in && route == 0)
        opref_direct(o, w, F);
    else
        opref_odd(o, w, F);
}

/* ---- the exact fraction ----
 * f = frac(|x| / 2^g) with g = qexp, the grid spacing at x (o->fok), or the top binade's grid
 * exponent emax - p + 1 (rounding.h's fraction for |x| >= 2^(emax+1)). Word k of f is
 * floor(|x| 2^(64(k+1) - g)) mod 2^64: the integer part T contributes a multiple of 2^64. */

/* t1 = |x| 2^(s - g), its digits exact down to 2^0 (X is recomputed at a higher precision when
 * needed; further digits, if any, follow). Range widened by the caller. */
static inline void opref_scaled(opref_ws *w, long g, long s)
{
    if (!w->Xvalid)
        opref_compute_X(w, (mpfr_prec_t)w->p + 192);
    const long need = (long)mpfr_get_exp(w->X) - (g - s) + 2;
    if (w->Xinexact && (long)mpfr_get_prec(w->X) < need)
        opref_compute_X(w, (mpfr_prec_t)(need + 64));
    mpfr_set_prec(w->t1, mpfr_get_prec(w->X));
    mpfr_abs(w->t1, w->X, MPFR_RNDN);
    mpfr_mul_2si(w->t1, w->t1, s - g, MPFR_RNDN); /* exact */
}

/* floor(f 2^(64(k+1))) mod 2^64, and *ends: f 2^(64(k+1)) is an integer (f has no more bits). */
static inline uint64_t opref_word(opref_ws *w, long g, uint64_t k, bool *ends)
{
    const opref_range rg = opref_widen();
    opref_scaled(w, g, 64 * (long)(k + 1));
    *ends = !w->Xinexact && mpfr_integer_p(w->t1);
    mpz_t z;
    mpz_init(z);
    mpfr_get_z(z, w->t1, MPFR_RNDD);
    mpz_fdiv_r_2exp(z, z, 64);
    const uint64_t v = (uint64_t)mpz_get_ui(z);
    mpz_clear(z);
    opref_restore(rg);
    return v;
}

/* f, or 1 - f (complement), rounded to nearest binary64. */
static inline double opref_frac_rn(opref_ws *w, long g, bool complement)
{
    const opref_range rg = opref_widen();
    double v;
    for (long s = 192;; s *= 2) {
        opref_scaled(w, g, s);
        /* keep f 2^s: drop the multiple of 2^s (exact) */
        mpfr_div_2si(w->t1, w->t1, s, MPFR_RNDN);
        mpfr_frac(w->t1, w->t1, MPFR_RNDN);
        mpfr_mul_2si(w->t1, w->t1, s, MPFR_RNDN);
        mpfr_set_prec(w->t2, mpfr_get_prec(w->t1) + s + 4);
        if (!w->Xinexact) {
            if (complement) { /* 2^s - f 2^s */
                mpfr_set_ui_2exp(w->t2, 1, s, MPFR_RNDN);
                mpfr_sub(w->t2, w->t2, w->t1, MPFR_RNDN); /* exact */
            } else {
                mpfr_set(w->t2, w->t1, MPFR_RNDN);
            }
            mpfr_div_2si(w->t2, w->t2, s, MPFR_RNDN);
            v = mpfr_get_d(w->t2, MPFR_RNDN);
            break;
        }
        /* f 2^s lies strictly between k = floor(t1) and k + 1 (nonzero bits follow), and
         * (1 - f) 2^s between 2^s - k - 1 and 2^s - k. With >= 60 bits before the point, no
         * binary64 midpoint lies inside, so the midpoint of the interval rounds as the value. */
        mpfr_floor(w->t1, w->t1);
        if (complement) {
            mpfr_set_ui_2exp(w->t2, 1, s, MPFR_RNDN);
            mpfr_sub(w->t2, w->t2, w->t1, MPFR_RNDN); /* 2^s - k, exact */
            mpfr_sub_d(w->t2, w->t2, 0.5, MPFR_RNDN);  /* exact */
        } else {
            mpfr_add_d(w->t2, w->t1, 0.5, MPFR_RNDN);  /* exact */
        }
        if ((long)mpfr_get_exp(w->t2) >= 61) {
            mpfr_div_2si(w->t2, w->t2, s, MPFR_RNDN);
            v = mpfr_get_d(w->t2, MPFR_RNDN);
            break;
        }
    }
    opref_restore(rg);
    return v;
}

static inline double opref_frac_d(opref_ws *w, long g)
{
    return opref_frac_rn(w, g, false);
}

/* The stochastic decision (1: away from zero) for draw u of `index` (rounding.h's rule). */
static inline int opref_decide(opref_ws *w, const opref *o, srl_rounding m, uint64_t u,
                               const srl_rng *rng, uint64_t index)
{
    if (o->kind != REF_FINITE || !o->inexact || o->above)
        return 0; /* above 2^(emax+1) both candidates overflow alike */
    bool ends;
    const uint64_t f1 = opref_word(w, w->qexp, 0, &ends);
    switch (m.mode) {
    case SRL_SR:
        if (u != f1)
            return u < f1;
        for (uint64_t k = 1; !ends; k++) {
            const uint64_t wk = srl_rng_extra(rng, index, k - 1);
            const uint64_t fk = opref_word(w, w->qexp, k, &ends);
            if (wk != fk)
                return wk < fk;
        }
        return 0;
    case SRL_SR_EQ:
        return (int)(u >> 63);
    default: {
        const int r = m.r;
        const uint64_t F = r == 64 ? f1 : f1 >> (64 - r), Z = r == 64 ? u : u >> (64 - r);
        return r == 64 ? (F != 0 && Z >= (uint64_t)0 - F) : (F + Z) >> r != 0;
    }
    }
}

#endif
