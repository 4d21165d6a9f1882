/* src/ops/ops_mpfr.c: the MPFR reference path of the exact operations (include/srlab/mpfr.h,
 * include/srlab/ops.h; docs/design.md §5).
 *
 * Computed with MPFR alone, independently of the fast path in src/ops/ops.c, and rounded with the same
 * shared rule (src/round/round_core.h), so both paths give the same bits for the same draw:
 *   add, sub, mul, fma  computed exactly: at precision (top exponent - lowest bit exponent + 1),
 *                       with the exponent range widened to MPFR's maximum (saved and restored);
 *   div, sqrt           computed rounded toward zero at a precision P with the ternary value:
 *                       the digits of RZ(|x|) are exact truncations of |x|'s expansion, so T, the
 *                       words of f and `more` (further bits nonzero, or inexact) are read off it;
 *                       when a word below bit P is asked for, |x| is recomputed at the precision
 *                       that word needs (words are wanted with probability 2^-64 per sr rounding).
 * Special values and the sign of zero come from MPFR's own IEEE 754 semantics (an exact zero sum is
 * computed with RNDD in rd and RNDN otherwise, which only decides that sign).
 * The description at or above 2^(emax+1) is the overflow description of src/ops/ops.c and
 * src/round/mpfr_round.c (T = 0, f = 0, trunc = inf; srl_round_info.frac is then 0, as rounding.h
 * says). */
#include "srlab/ops_mpfr.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "round/round_core.h"

_Static_assert(ULONG_MAX >= UINT64_MAX, "64-bit words are read with mpfr_get_ui");

typedef struct mp_op {
    srl_op op;
    mpfr_t A, B, C; /* the operands, exactly (53 bits) */
} mp_op;

static void mp_op_init(mp_op *o, srl_op op, double a, double b, double c)
{
    o->op = op;
    mpfr_inits2(53, o->A, o->B, o->C, (mpfr_ptr)0);
    mpfr_set_d(o->A, a, MPFR_RNDN);
    mpfr_set_d(o->B, b, MPFR_RNDN);
    mpfr_set_d(o->C, c, MPFR_RNDN);
}

static void mp_op_clear(mp_op *o)
{
    mpfr_clears(o->A, o->B, o->C, (mpfr_ptr)0);
}

static int mp_eval(mpfr_ptr r, const mp_op *o, mpfr_rnd_t rnd)
{
    switch (o->op) {
    case SRL_ADD: return mpfr_add(r, o->A, o->B, rnd);
    case SRL_SUB: return mpfr_sub(r, o->A, o->B, rnd);
    case SRL_MUL: return mpfr_mul(r, o->A, o->B, rnd);
    case SRL_FMA: return mpfr_fma(r, o->A, o->B, o->C, rnd);
    case SRL_DIV: return mpfr_div(r, o->A, o->B, rnd);
    default: return mpfr_sqrt(r, o->A, rnd);
    }
}

static bool is_exact_op(srl_op op)
{
    return op == SRL_ADD || op == SRL_SUB || op == SRL_MUL || op == SRL_FMA;
}

static bool regular(mpfr_srcptr x)
{
    return mpfr_regular_p(x) != 0;
}

/* Exponent of the lowest set bit of a regular x. */
static long low_exp(mpfr_srcptr x)
{
    return (long)mpfr_get_exp(x) - (long)mpfr_min_prec(x);
}

/* A precision at which add, sub, mul or fma is exact (64 when an operand is special: MPFR's
 * result is then an operand, zero, inf or NaN). */
static mpfr_prec_t exact_prec(const mp_op *o)
{
    long top, low;
    switch (o->op) {
    case SRL_ADD:
    case SRL_SUB:
        if (!regular(o->A) || !regular(o->B))
            return 64;
        top = (long)(mpfr_get_exp(o->A) > mpfr_get_exp(o->B) ? mpfr_get_exp(o->A)
                                                             : mpfr_get_exp(o->B));
        low = low_exp(o->A) < low_exp(o->B) ? low_exp(o->A) : low_exp(o->B);
        return (mpfr_prec_t)(top - low + 1);
    case SRL_MUL:
        return mpfr_min_prec(o->A) + mpfr_min_prec(o->B) + 1;
    default: { /* fma */
        if (!regular(o->A) || !regular(o->B) || !regular(o->C))
            return 128;
        const long ptop = (long)mpfr_get_exp(o->A) + (long)mpfr_get_exp(o->B);
        const long plow = low_exp(o->A) + low_exp(o->B);
        top = ptop > (long)mpfr_get_exp(o->C) ? ptop : (long)mpfr_get_exp(o->C);
        low = plow < low_exp(o->C) ? plow : low_exp(o->C);
        return (mpfr_prec_t)(top - low + 1);
    }
    }
}

/* ---- the description of |x| from MPFR ---- */

typedef struct mp_desc {
    const mp_op *o;
    mpfr_t x;     /* |x| rounded toward zero at x's precision */
    bool inexact; /* x != |exact| */
    int qe;
} mp_desc;

/* Recompute |x| toward zero at precision P. */
static void mp_refine(mp_desc *d, mpfr_prec_t P)
{
    mpfr_set_prec(d->x, P);
    d->inexact = mp_eval(d->x, d->o, MPFR_RNDZ) != 0;
    mpfr_abs(d->x, d->x, MPFR_RNDN);
}

/* Make the digits of x exact down to 2^lsb. */
static void mp_need(mp_desc *d, long lsb)
{
    const long have = (long)mpfr_get_exp(d->x) - (long)mpfr_get_prec(d->x); /* last bit 2^have */
    if (d->inexact && have > lsb)
        mp_refine(d, (mpfr_prec_t)((long)mpfr_get_exp(d->x) - lsb + 64));
}

typedef struct mp_tail_ctx {
    mp_desc *d; /* refined in place when a word needs more bits */
} mp_tail_ctx;

/* Word k of f = frac(|x| / 2^qe): floor(frac(f 2^(64k)) 2^64). */
static uint64_t mp_word(const void *vctx, uint64_t k)
{
    mp_desc *d = ((const mp_tail_ctx *)vctx)->d;
    mp_need(d, (long)d->qe - 64 * (long)(k + 1));
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(d->x));
    mpfr_mul_2si(t, d->x, 64 * (long)k - d->qe, MPFR_RNDN); /* exact */
    mpfr_frac(t, t, MPFR_RNDN);                              /* exact */
    mpfr_mul_2ui(t, t, 64, MPFR_RNDN);
    const uint64_t w = (uint64_t)mpfr_get_ui(t, MPFR_RNDZ);
    mpfr_clear(t);
    return w;
}

/* f = frac(|x| / 2^g) and 1 - f, each rounded to nearest binary64 (f > 0). */
static void mp_fracs(mp_desc *d, int g, double *fr, double *fc)
{
    for (;;) {
        const mpfr_prec_t P = mpfr_get_prec(d->x);
        const long lsb = (long)mpfr_get_exp(d->x) - (long)P - g; /* last bit of t: 2^lsb */
        mpfr_t t, c;
        mpfr_init2(t, P + 2);
        mpfr_init2(c, (mpfr_prec_t)(lsb < 0 ? 4 - lsb : 4)); /* 1 - t: bits 2^0 .. 2^lsb */
        mpfr_mul_2si(t, d->x, -(long)g, MPFR_RNDN); /* exact */
        mpfr_frac(t, t, MPFR_RNDN);                 /* exact */
        mpfr_ui_sub(c, 1, t, MPFR_RNDN); /* exact: c has the bits down to 2^lsb */
        bool done = true;
        if (d->inexact) {
            /* f lies strictly between t and t + 2^lsb, 1 - f between c - 2^lsb and c. With
             * >= 55 bits of each above 2^lsb, a sticky half-bit (t + 2^(lsb-1), c - 2^(lsb-1))
             * makes RNDN see the true side of every binary64 midpoint; else more bits. */
            if (!mpfr_zero_p(t) && (long)mpfr_get_exp(t) - lsb >= 56 &&
                (long)mpfr_get_exp(c) - lsb >= 57) {
                mpfr_t h;
                mpfr_init2(h, 2);
                mpfr_set_ui_2exp(h, 1, (mpfr_exp_t)(lsb - 1), MPFR_RNDN);
                mpfr_add(t, t, h, MPFR_RNDN); /* exact at P + 2 bits */
                mpfr_sub(c, c, h, MPFR_RNDN); /* exact */
                mpfr_clear(h);
            } else {
                done = false;
            }
        }
        if (done) {
            *fr = mpfr_get_d(t, MPFR_RNDN);
            *fc = mpfr_get_d(c, MPFR_RNDN);
        }
        mpfr_clear(t);
        mpfr_clear(c);
        if (done)
            return;
        mp_refine(d, 2 * P + 64);
    }
}

/* x rounded to nearest binary64, with its sign. */
static double mp_near_d(mp_desc *d, bool neg)
{
    double v;
    if (!d->inexact) {
        v = mpfr_get_d(d->x, MPFR_RNDN);
    } else {
        mpfr_t t, h;
        mpfr_init2(t, mpfr_get_prec(d->x) + 2);
        mpfr_init2(h, 2);
        mpfr_set_ui_2exp(h, 1, mpfr_get_exp(d->x) - (mpfr_exp_t)mpfr_get_prec(d->x) - 1,
                         MPFR_RNDN);
        mpfr_add(t, d->x, h, MPFR_RNDN); /* exact: a sticky half of the last bit */
        v = mpfr_get_d(t, MPFR_RNDN);
        mpfr_clear(t);
        mpfr_clear(h);
    }
    return neg ? -v : v;
}

/* sign(y - x) for the result y (0 for NaN). y is a grid point of the format (or xmax, or inf),
 * representable at x's precision, so y > RZ(|x|) implies y > |x|. */
static int mp_ternary(mp_desc *d, bool neg, double y)
{
    if (isnan(y))
        return 0;
    const double mag = fabs(y);
    int c;
    if (isinf(mag)) {
        c = 1;
    } else {
        const int k = mpfr_cmp_d(d->x, mag);
        c = k < 0 ? 1 : k == 0 ? (d->inexact ? -1 : 0) : -1;
    }
    return neg ? -c : c;
}

/* Compute the result into d->x: exactly (add, sub, mul, fma; the mode only chooses the sign of
 * an exact zero sum, IEEE 754 §6.3) or toward zero at p + 72 bits (div, sqrt). SRL_ENOTSUP if
 * an exact operation was not exact (not reached: the precision covers every bit). */
static int mp_compute(mp_desc *d, const srl_format *f, srl_mode mode)
{
    if (is_exact_op(d->o->op)) {
        mpfr_set_prec(d->x, exact_prec(d->o));
        d->inexact = false;
        return mp_eval(d->x, d->o, mode == SRL_RD ? MPFR_RNDD : MPFR_RNDN) != 0 ? SRL_ENOTSUP
                                                                                : SRL_OK;
    }
    mpfr_set_prec(d->x, (mpfr_prec_t)f->p + 72);
    d->inexact = mp_eval(d->x, d->o, MPFR_RNDZ) != 0;
    return SRL_OK;
}

/* Describe |x| = d->x (regular, made nonnegative here) relative to f's grid: e, with tail (whose
 * context refines d) for the words past the first. */
static void mp_describe(srl__exact *e, srl__tail *tail, mp_desc *d, const srl_format *f)
{
    memset(e, 0, sizeof *e);
    e->neg = mpfr_signbit(d->x) != 0;
    mpfr_abs(d->x, d->x, MPFR_RNDN);
    const long ex = (long)mpfr_get_exp(d->x) - 1; /* floor(log2 |x|): RZ keeps the binade */
    if (ex > (long)f->emax) {
        /* at or above 2^(emax+1): every neighbour overflows, in every mode */
        e->qe = f->emax - f->p + 1;
        e->trunc = INFINITY;
        return;
    }
    e->qe = srl__qe(f, ex < -100000 ? -100000 : (int)ex);
    d->qe = e->qe;
    mp_need(d, (long)e->qe - 64); /* f1 exact */
    const mpfr_prec_t P = mpfr_get_prec(d->x);
    mpfr_t t, fr;
    mpfr_inits2(P, t, fr, (mpfr_ptr)0);
    mpfr_mul_2si(t, d->x, -(long)e->qe, MPFR_RNDN); /* exact: |x| / q < 2^p */
    mpfr_frac(fr, t, MPFR_RNDN);                    /* exact */
    mpfr_sub(t, t, fr, MPFR_RNDN);                  /* T, exact */
    e->T = (uint64_t)mpfr_get_ui(t, MPFR_RNDZ);
    e->trunc = (double)e->T * srl__pow2(e->qe);
    mpfr_mul_2ui(fr, fr, 64, MPFR_RNDN);
    e->f1 = (uint64_t)mpfr_get_ui(fr, MPFR_RNDZ);
    e->more = !mpfr_integer_p(fr) || d->inexact;
    if (e->more) {
        if (d->inexact) {
            tail->nwords = UINT64_MAX;
        } else { /* bits after the point: L; words beyond ceil(L/64) - 1 are zero */
            const long L = (long)e->qe - ((long)mpfr_get_exp(d->x) - (long)P);
            tail->nwords = (uint64_t)((L + 63) / 64) - 1;
        }
        e->tail = tail;
    }
    mpfr_clears(t, fr, (mpfr_ptr)0);
}

/* Round a regular result d->x: *y and, when asked, *info. */
static void mp_round(double *y, srl_round_info *info, mp_desc *d, const srl_format *f,
                     srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t index)
{
    srl__exact e;
    mp_tail_ctx tctx = {d};
    srl__tail tail = {mp_word, &tctx, 0};
    mp_describe(&e, &tail, d, f);
    const int away = srl__away(&e, m.mode, m.r, u, rng, index);
    bool ovf;
    *y = srl__assemble(&e, away, f, m.mode, &ovf);
    if (info) {
        memset(info, 0, sizeof *info);
        double fr = 0.0, fc = 1.0;
        if (e.f1 || e.more)
            mp_fracs(d, e.qe, &fr, &fc);
        srl__info_c(info, &e, f, m, away, fr, fc, rng, index);
        info->x = mp_near_d(d, e.neg);
        info->ternary = mp_ternary(d, e.neg, *y);
    }
}

int srl_op_mpfr_draw(double *y, srl_round_info *info, srl_op op, double a, double b, double c,
                     const srl_format *f, srl_rounding m, uint64_t u, const srl_rng *rng,
                     uint64_t index)
{
    if (!y || !f || (unsigned)op >= SRL_OP_COUNT || !srl_rounding_valid(m) ||
        (srl_rounding_is_stochastic(m) && !rng))
        return SRL_EINVAL;
    const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mp_op o;
    mp_op_init(&o, op, a, b, c);
    mp_desc d;
    d.o = &o;
    mpfr_init2(d.x, 2);
    const int st = mp_compute(&d, f, m.mode);
    if (st == SRL_OK && (!mpfr_number_p(d.x) || mpfr_zero_p(d.x))) {
        const double xd = mpfr_get_d(d.x, MPFR_RNDN); /* exact for NaN, +-inf, +-0 */
        *y = srl__round_special(xd, f);
        if (info)
            srl__info_special(info, xd, *y);
    } else if (st == SRL_OK) {
        mp_round(y, info, &d, f, m, u, rng, index);
    }
    mpfr_clear(d.x);
    mp_op_clear(&o);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    return st;
}

int srl_op_exact(mpfr_t r, srl_op op, double a, double b, double c)
{
    const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mp_op o;
    mp_op_init(&o, op, a, b, c);
    if (is_exact_op(op)) {
        const mpfr_prec_t P = exact_prec(&o);
        if (mpfr_get_prec(r) < P)
            mpfr_set_prec(r, P);
    }
    const int t = mp_eval(r, &o, MPFR_RNDN);
    mp_op_clear(&o);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    return t;
}
