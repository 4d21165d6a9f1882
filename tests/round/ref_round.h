/* tests/round/ref_round.h: an independent reference for srlab's rounding, written with GNU MPFR
 * (shared by test_oracle_round.c and test_stat_round.c; header-only, static functions).
 *
 * It reads only a format's seven parameters (p, emin, emax, subnormals, inf, saturate, nan) and
 * re-derives everything else from the contracts in include/srlab/format.h and rounding.h; it
 * never calls srlab's rounding code. MPFR does the rounding:
 *
 *   MPFR writes x = 0.1b... * 2^E, so its smallest positive number is 2^(emin_m - 1).
 *   With subnormals:    emin_m = emin - p + 2 (2^(emin_m-1) is the smallest subnormal
 *                       2^(emin-p+1)); mpfr_set(r, x, rnd) at precision p, then
 *                       mpfr_subnormalize(r, ternary, rnd) rounds to the subnormal grid
 *                       (MPFR's documented way of emulating gradual underflow, free of double
 *                       rounding because it is given the first ternary value).
 *   Without subnormals: emin_m = emin + 1 (2^(emin_m-1) = xmin), no subnormalize: MPFR's own
 *                       underflow chooses between 0 and xmin in the direction of the mode.
 *   MPFR's emax is set to its maximum: the grid continues above the format's range and the
 *   overflow rules of rounding.h are applied here, per mode (overflow is decided on the rounded
 *   magnitude: |r| > xmax). That also handles formats whose xmax is below the top of the binade
 *   (e4m3: 448, not 480): a result of 480 overflows.
 *
 * Modes: rn = RNDN, rz = RNDZ, ru = RNDU, rd = RNDD. rna is not an MPFR mode for mpfr_set: from
 * RNDZ (z) and the directed rounding away from zero (a), the result is a iff |x| >= |z + a| / 2,
 * compared exactly. ro: z if exact, else z if z's last significand bit (on the format's grid) is
 * 1, else a; z = 0 counts as even, so below xmin without subnormals ro gives the nonzero
 * neighbour xmin, as rounding.h says.
 *
 * MPFR's RNDN at the exact midpoint between 0 and its smallest positive number (xmin without
 * subnormals, the smallest subnormal with them) returns 0 (ternary -1): verified at run time by
 * test_oracle_round.c ("reference self-checks"); this is the header's "ties to 0" for rn.
 *
 * MPFR forbids operands outside the current exponent range, so an MPFR input below the smallest
 * positive number 2^(emin_m-1) of the emulation is replaced, before the range is narrowed, by a
 * proxy on the same side of the midpoint 2^(emin_m-2): 2^(emin_m-5), the midpoint itself, or
 * 3 * 2^(emin_m-3). Every mode decides between 0 and 2^(emin_m-1) from that comparison and the
 * sign alone, so the proxy rounds as x does (the fraction is still computed from x itself).
 * Binary64 inputs are passed to mpfr_set_d directly; the self-checks compare both routes.
 *
 * Not covered here: stochastic decisions (the reference gives both candidates, their overflow
 * handling and the exact fraction; the stat suite derives probabilities from them). */
#ifndef SRL_TEST_REF_ROUND_H
#define SRL_TEST_REF_ROUND_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <mpfr.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "srlab/format.h"
#include "srlab/rounding.h"

/* Threads for the tests' parallel loops: MPFR keeps its exponent range per thread only when
 * built thread-safe (TLS); otherwise one thread. Results never depend on this. */
static inline int ref_threads(void)
{
#ifdef _OPENMP
    return mpfr_buildopt_tls_p() ? omp_get_max_threads() : 1;
#else
    return 1;
#endif
}

#define REF_NDET 6       /* deterministic modes: SRL_RN .. SRL_RO (enum values 0..5) */
#define REF_STO (-1)     /* "a stochastic mode", for the overflow rule */
#define REF_WPREC 400    /* working precision: enough for inputs of up to 320 bits */
#define REF_MAX_INPREC 320

/* A format's parameters and the quantities the contracts derive from them. */
typedef struct ref_fmt {
    int p, emin, emax;
    bool sub, inf, sat, nan;
    int ebits, width;   /* minimal exponent field holding zero/subnormals, normals, inf/NaN */
    bool full;          /* no infinities, NaN, and the all-ones exponent code holds normals */
    double xmax, xmin, xsub, qtop; /* qtop: spacing of the top binade 2^(emax-p+1) */
    mpfr_exp_t emin_m;  /* MPFR emin of the emulation */
} ref_fmt;

static inline void ref_fmt_from(ref_fmt *r, const srl_format *f)
{
    memset(r, 0, sizeof *r);
    r->p = f->p;
    r->emin = f->emin;
    r->emax = f->emax;
    r->sub = f->subnormals;
    r->inf = f->inf;
    r->sat = f->saturate;
    r->nan = f->nan;
    /* format.h: exponent code 0 = zero and subnormals, one code per binade emin..emax, plus the
     * all-ones code for inf/NaN when the format has infinities. */
    const long codes = (long)r->emax - r->emin + 2 + (r->inf ? 1 : 0);
    int k = 1;
    while ((1L << k) < codes)
        k++;
    r->ebits = k;
    r->width = 1 + k + r->p - 1;
    /* format.h: without infinities S.1..1.1..1 is NaN; if that pattern would have been a finite
     * number (exponent field full), xmax = (2 - 2^(2-p)) 2^emax, else (2 - 2^(1-p)) 2^emax.
     * Without NaN as well that pattern stays a number. */
    r->full = !r->inf && r->nan && ((long)r->emax - r->emin + 2 == (1L << k));
    r->xmax = ldexp(2.0 - ldexp(1.0, (r->full ? 2 : 1) - r->p), r->emax);
    r->xmin = ldexp(1.0, r->emin);
    r->xsub = r->sub ? ldexp(1.0, r->emin - r->p + 1) : r->xmin;
    r->qtop = ldexp(1.0, r->emax - r->p + 1);
    r->emin_m = r->sub ? (mpfr_exp_t)r->emin - r->p + 2 : (mpfr_exp_t)r->emin + 1;
}

/* One deterministic result: the value, sign(value - x) (0 for NaN), and overflow. */
typedef struct ref_out {
    double v;
    int t;
    bool ovf;
} ref_out;

enum { REF_FINITE = 0, REF_ZERO, REF_INF, REF_NAN };

typedef struct ref_all {
    int kind;          /* REF_FINITE (nonzero), REF_ZERO, REF_INF, REF_NAN */
    bool neg;
    bool inexact;      /* x is not on the (unbounded) grid */
    bool exact;        /* x is a value of the format (format.h: NaN always; inf iff inf) */
    bool above;        /* |x| >= 2^(emax+1): beyond the top binade */
    ref_out m[REF_NDET];  /* indexed by srl_mode SRL_RN .. SRL_RO */
    ref_out rd, ru;    /* RD(x), RU(x) with the rd / ru overflow rules */
    ref_out tow, awy;  /* magnitude toward / away from zero, stochastic overflow rule */
    double frac;       /* the contract's fraction f rounded to nearest binary64 (0 when exact) */
    int err;           /* nonzero: the reference itself misbehaved (a self-check) */
} ref_all;

/* Per-thread MPFR workspace. After ref_round() of a finite nonzero inexact x, fr holds the exact
 * fraction f = (|x| - |z|) / (|a| - |z|) on the natural grid (the one MPFR rounds on). */
typedef struct ref_ws {
    mpfr_t r[4];  /* RNDN, RNDZ, RNDU, RNDD at precision p */
    mpfr_t mid;
    mpfr_t ts, frs, qs; /* working variables for inputs of up to 64 bits */
    mpfr_t tl, frl, ql; /* and for wider inputs */
    mpfr_ptr t, fr, q;  /* the set in use (fr: the exact fraction of the last input) */
    mpfr_t xd;    /* binary64 inputs, 53 bits */
    mpfr_t xmaxm; /* xmax */
    int p;
} ref_ws;

static inline void ref_ws_init(ref_ws *w, const ref_fmt *F)
{
    for (int k = 0; k < 4; k++)
        mpfr_init2(w->r[k], F->p);
    mpfr_init2(w->mid, F->p + 2);
    mpfr_init2(w->ts, 72);
    mpfr_init2(w->frs, 72);
    mpfr_init2(w->qs, 72);
    mpfr_init2(w->tl, REF_WPREC);
    mpfr_init2(w->frl, REF_WPREC);
    mpfr_init2(w->ql, REF_WPREC);
    w->t = w->ts, w->fr = w->frs, w->q = w->qs;
    mpfr_init2(w->xd, 53);
    mpfr_init2(w->xmaxm, 53);
    mpfr_set_d(w->xmaxm, F->xmax, MPFR_RNDN);
    w->p = F->p;
}

static inline void ref_ws_clear(ref_ws *w)
{
    for (int k = 0; k < 4; k++)
        mpfr_clear(w->r[k]);
    mpfr_clear(w->mid);
    mpfr_clear(w->ts);
    mpfr_clear(w->frs);
    mpfr_clear(w->qs);
    mpfr_clear(w->tl);
    mpfr_clear(w->frl);
    mpfr_clear(w->ql);
    mpfr_clear(w->xd);
    mpfr_clear(w->xmaxm);
}

static inline int ref_sgn(int t)
{
    return (t > 0) - (t < 0);
}

/* rounding.h: rz, ro, and rd/ru in the direction of zero give +-xmax on overflow; rn, rna, the
 * away-directed modes and the stochastic ones give +-inf; NaN without infinities; a saturating
 * format always gives +-xmax. `mode` is an srl_mode (deterministic) or REF_STO. */
static inline double ref_overflow_value(const ref_fmt *F, int mode, bool neg)
{
    const bool to_xmax = mode == SRL_RZ || mode == SRL_RO || (mode == SRL_RD && !neg) ||
                         (mode == SRL_RU && neg);
    double v;
    if (F->sat || to_xmax)
        v = F->xmax;
    else if (F->inf)
        v = INFINITY;
    else
        return NAN;
    return neg ? -v : v;
}

/* sign(v - x) for a finite x, 0 for NaN v. */
static inline int ref_tern_of(double v, mpfr_srcptr x)
{
    if (isnan(v))
        return 0;
    return -ref_sgn(mpfr_cmp_d(x, v));
}

/* The unbounded-grid result r (ternary t) of mode `mode` through the overflow rules. */
static inline ref_out ref_adjust(const ref_fmt *F, ref_ws *w, mpfr_srcptr r, int t,
                                 mpfr_srcptr x, int mode, bool neg, int *err)
{
    ref_out o;
    if (mpfr_cmpabs(r, w->xmaxm) > 0) {
        o.v = ref_overflow_value(F, mode, neg);
        o.t = ref_tern_of(o.v, x);
        o.ovf = true;
    } else {
        o.v = mpfr_get_d(r, MPFR_RNDN);
        if (mpfr_cmp_d(r, o.v) != 0)
            *err |= 1; /* a value of the format must be a binary64 number */
        o.t = ref_sgn(t);
        o.ovf = false;
    }
    return o;
}

/* Is z's significand even on the format's grid (z = 0 counts as even)? */
static inline bool ref_even(ref_ws *w, const ref_fmt *F, mpfr_srcptr z)
{
    if (mpfr_zero_p(z))
        return true;
    const long e = (long)mpfr_get_exp(z) - 1; /* floor(log2 |z|) */
    const long qe = (e >= F->emin ? e : F->emin) - F->p + 1;
    mpfr_mul_2si(w->t, z, -(qe + 1), MPFR_RNDN); /* exact */
    return mpfr_integer_p(w->t) != 0;
}

static inline void ref_special(ref_all *o, const ref_fmt *F, int kind, bool neg, double xd)
{
    double v;
    if (kind == REF_NAN) {
        v = NAN;
        o->exact = true;
    } else if (kind == REF_INF) {
        /* rounding.h: +-inf -> +-inf with infinities; NaN without; +-xmax when saturating. */
        if (F->sat)
            v = neg ? -F->xmax : F->xmax;
        else
            v = F->inf ? xd : NAN;
        o->exact = F->inf && !F->sat; /* "returned unchanged": saturation clamps infinities */
    } else {
        v = xd; /* signed zero */
        o->exact = true;
    }
    ref_out r;
    r.v = v;
    r.ovf = kind == REF_INF && !(isinf(v));
    r.t = (kind == REF_INF && !isnan(v) && !isinf(v)) ? (neg ? 1 : -1) : 0;
    for (int k = 0; k < REF_NDET; k++)
        o->m[k] = r;
    o->rd = o->ru = o->tow = o->awy = r;
    o->frac = 0;
}

/* The reference description of rounding x (any precision up to REF_MAX_INPREC bits). If xd is
 * not NULL, x holds the binary64 number *xd and MPFR is given *xd itself (mpfr_set_d). */
static inline void ref_round_gen(ref_all *o, ref_ws *w, const ref_fmt *F, mpfr_srcptr x,
                                 const double *xd)
{
    memset(o, 0, sizeof *o);
    o->neg = mpfr_signbit(x) != 0;
    if (mpfr_nan_p(x)) {
        o->kind = REF_NAN;
        ref_special(o, F, REF_NAN, o->neg, NAN);
        return;
    }
    if (mpfr_inf_p(x) || mpfr_zero_p(x)) {
        o->kind = mpfr_inf_p(x) ? REF_INF : REF_ZERO;
        ref_special(o, F, o->kind, o->neg, mpfr_get_d(x, MPFR_RNDN));
        return;
    }
    o->kind = REF_FINITE;
    const bool neg = o->neg;
    if (mpfr_get_prec(x) > REF_MAX_INPREC) {
        o->err |= 64;
        return;
    }
    if (mpfr_get_prec(x) <= 64)
        w->t = w->ts, w->fr = w->frs, w->q = w->qs;
    else
        w->t = w->tl, w->fr = w->frl, w->q = w->ql;
    /* Proxy for inputs below the emulation's smallest positive number (see the file comment). */
    const mpfr_exp_t E = mpfr_get_exp(x);
    bool tiny = false;
    long tiny_si = 0;
    mpfr_exp_t tiny_e = 0;
    if (!xd && E < F->emin_m) {
        /* c = sign(|x| - 2^(emin_m-2)) */
        const int c = neg ? -mpfr_cmp_si_2exp(x, -1, F->emin_m - 2)
                          : mpfr_cmp_ui_2exp(x, 1, F->emin_m - 2);
        tiny = true;
        if (c < 0)
            tiny_si = 1, tiny_e = F->emin_m - 5;
        else if (c == 0)
            tiny_si = 1, tiny_e = F->emin_m - 2;
        else
            tiny_si = 3, tiny_e = F->emin_m - 3;
        if (neg)
            tiny_si = -tiny_si;
    }
    static const mpfr_rnd_t rnds[4] = {MPFR_RNDN, MPFR_RNDZ, MPFR_RNDU, MPFR_RNDD};
    int tern[4];
    const mpfr_exp_t emin0 = mpfr_get_emin(), emax0 = mpfr_get_emax();
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_set_emin(F->emin_m);
    for (int k = 0; k < 4; k++) {
        int t;
        if (xd)
            t = mpfr_set_d(w->r[k], *xd, rnds[k]);
        else if (tiny)
            t = mpfr_set_si_2exp(w->r[k], tiny_si, tiny_e, rnds[k]);
        else
            t = mpfr_set(w->r[k], x, rnds[k]);
        if (F->sub)
            t = mpfr_subnormalize(w->r[k], t, rnds[k]);
        tern[k] = ref_sgn(t);
    }
    mpfr_set_emin(emin0);
    mpfr_set_emax(emax0);

    mpfr_srcptr N = w->r[0], Z = w->r[1], U = w->r[2], D = w->r[3];
    mpfr_srcptr A = neg ? D : U;
    const int tz = tern[1], ta = neg ? tern[3] : tern[2];
    o->inexact = tz != 0;
    /* Self-checks: RNDZ is the directed rounding toward zero; exactness is mode-independent. */
    if (!mpfr_equal_p(Z, neg ? U : D) || (tz == 0) != (ta == 0) || (tz == 0) != (tern[0] == 0))
        o->err |= 2;
    if (!mpfr_signbit(Z) != !mpfr_signbit(x) || !mpfr_signbit(A) != !mpfr_signbit(x))
        o->err |= 2;

    /* rna: away iff |x| >= |z + a| / 2 (exact: z and a are neighbours on a p-bit grid). */
    mpfr_srcptr rna = Z;
    int t_rna = tz;
    if (tz) {
        if (mpfr_add(w->mid, Z, A, MPFR_RNDN) != 0)
            o->err |= 4;
        mpfr_div_2ui(w->mid, w->mid, 1, MPFR_RNDN);
        if (mpfr_cmpabs(x, w->mid) >= 0)
            rna = A, t_rna = ta;
    }
    /* ro: the odd neighbour. */
    mpfr_srcptr ro = Z;
    int t_ro = tz;
    if (tz && ref_even(w, F, Z))
        ro = A, t_ro = ta;

    int *err = &o->err;
    o->m[SRL_RN] = ref_adjust(F, w, N, tern[0], x, SRL_RN, neg, err);
    o->m[SRL_RNA] = ref_adjust(F, w, rna, t_rna, x, SRL_RNA, neg, err);
    o->m[SRL_RZ] = ref_adjust(F, w, Z, tz, x, SRL_RZ, neg, err);
    o->m[SRL_RU] = ref_adjust(F, w, U, tern[2], x, SRL_RU, neg, err);
    o->m[SRL_RD] = ref_adjust(F, w, D, tern[3], x, SRL_RD, neg, err);
    o->m[SRL_RO] = ref_adjust(F, w, ro, t_ro, x, SRL_RO, neg, err);
    o->rd = o->m[SRL_RD];
    o->ru = o->m[SRL_RU];
    o->tow = ref_adjust(F, w, Z, tz, x, REF_STO, neg, err);
    o->awy = ref_adjust(F, w, A, ta, x, REF_STO, neg, err);
    o->exact = tz == 0 && mpfr_cmpabs(x, w->xmaxm) <= 0;
    o->above = (long)E - 1 >= (long)F->emax + 1;

    /* The exact fraction on the natural grid: |x - z| / |a - z| (a - z is a power of two). */
    if (tz == 0) {
        mpfr_set_zero(w->fr, 1);
    } else {
        if (mpfr_sub(w->fr, x, Z, MPFR_RNDN) != 0 || mpfr_sub(w->q, A, Z, MPFR_RNDN) != 0)
            *err |= 8;
        mpfr_abs(w->fr, w->fr, MPFR_RNDN);
        /* q = |a - z| is a power of two: divide by scaling */
        if (mpfr_cmp_ui_2exp(w->q, 1, mpfr_get_exp(w->q) - 1) != 0 &&
            mpfr_cmp_si_2exp(w->q, -1, mpfr_get_exp(w->q) - 1) != 0)
            *err |= 8;
        mpfr_mul_2si(w->fr, w->fr, -((long)mpfr_get_exp(w->q) - 1), MPFR_RNDN);
        if (mpfr_cmp_ui(w->fr, 1) >= 0 || mpfr_sgn(w->fr) <= 0)
            *err |= 8;
    }
    if (o->above) {
        /* rounding.h: frac is 0 for |x| >= 2^(emax+1), where every neighbour overflows. */
        o->frac = 0.0;
    } else {
        o->frac = mpfr_get_d(w->fr, MPFR_RNDN);
    }
}

static inline void ref_round_d(ref_all *o, ref_ws *w, const ref_fmt *F, double x)
{
    mpfr_set_d(w->xd, x, MPFR_RNDN); /* exact */
    ref_round_gen(o, w, F, w->xd, &x);
}

static inline void ref_round_mp(ref_all *o, ref_ws *w, const ref_fmt *F, mpfr_srcptr x)
{
    ref_round_gen(o, w, F, x, NULL);
}

static inline bool ref_same(double a, double b)
{
    if (a != a && b != b)
        return true;
    uint64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x == y;
}

/* The contract's p_up for the deterministic mode `mode`: 0 when rd and ru coincide, else 1 iff
 * the result is ru. */
static inline double ref_pup_det(const ref_all *o, int mode)
{
    if (ref_same(o->rd.v, o->ru.v))
        return 0.0;
    return ref_same(o->m[mode].v, o->ru.v) ? 1.0 : 0.0;
}

/* splitmix64: the tests' own input generator (independent of srlab's PCG streams). */
typedef struct trng {
    uint64_t s;
} trng;

static inline uint64_t tr_next(trng *g)
{
    uint64_t z = (g->s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t tr_below(trng *g, uint64_t n)
{
    return tr_next(g) % n;
}

static inline double tr_from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, 8);
    return x;
}

static inline uint64_t tr_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
}

/* A 52-bit significand field: uniform, or structured so that ties, near-ties and short
 * fractions relative to any grid occur often (random top bits, then a pattern from a random
 * cut: 0..0, 1..1, 10..0, 01..1, 10..01, 0..01). */
static inline uint64_t tr_sig52(trng *g)
{
    const uint64_t m52 = (UINT64_C(1) << 52) - 1;
    uint64_t s = tr_next(g) & m52;
    if (tr_next(g) & 1)
        return s;
    const int c = (int)tr_below(g, 53); /* low c bits replaced */
    if (c == 0)
        return s;
    const uint64_t low = (UINT64_C(1) << c) - 1;
    const uint64_t top = UINT64_C(1) << (c - 1);
    uint64_t pat;
    switch (tr_below(g, 6)) {
    case 0: pat = 0; break;
    case 1: pat = low; break;
    case 2: pat = top; break;
    case 3: pat = low >> 1; break;
    case 4: pat = top | 1; break;
    default: pat = 1; break;
    }
    return (s & ~low) | (pat & low);
}

/* A random binary64 over the whole finite range: random sign, biased exponent 0..2046 (0 gives
 * subnormals), significand from tr_sig52. */
static inline double tr_double_whole(trng *g)
{
    const uint64_t sign = (tr_next(g) & 1) << 63;
    const uint64_t be = tr_below(g, 2047);
    return tr_from_bits(sign | (be << 52) | tr_sig52(g));
}

/* A random binary64 with binary exponent uniform in [elo, ehi] (clipped to binary64). */
static inline double tr_double_exp(trng *g, long elo, long ehi)
{
    if (elo < -1074)
        elo = -1074;
    if (ehi > 1023)
        ehi = 1023;
    if (ehi < elo)
        ehi = elo;
    const long e = elo + (long)tr_below(g, (uint64_t)(ehi - elo + 1));
    const uint64_t sign = (tr_next(g) & 1) << 63;
    const uint64_t sig = tr_sig52(g);
    if (e >= -1022)
        return tr_from_bits(sign | ((uint64_t)(e + 1023) << 52) | sig);
    /* binary64 subnormal with leading bit at 2^e: keep e + 1074 bits */
    const int nb = (int)(e + 1074); /* bits below the leading one */
    const uint64_t m = (UINT64_C(1) << nb) | ((sig >> (52 - nb)) & ((UINT64_C(1) << nb) - 1));
    return tr_from_bits(sign | m);
}

#endif
