/* src/round/round_core.h: the description of an exact value and the assembly of its rounding,
 * which every path shares (private).
 *
 * Every rounding in srlab, whether of a binary64 input (src/round/rounding.c), of an MPFR value
 * (src/round/mpfr_round.c) or of the exact result of an operation (src/ops/ops.c), first describes
 * the exact value's magnitude relative to the format's grid,
 *
 *     |x| = (T + f) * 2^qe,    T an integer, 0 <= f < 1, 2^qe the grid spacing at |x|,
 *
 * with f given by its binary expansion: the first word f1 = floor(f * 2^64), a flag `more`
 * (f * 2^64 is not an integer), and a tail that yields the following 64-bit words on demand.
 * srl__away() then decides, for the mode, whether the magnitude goes to T+1 (away from zero) or
 * stays at T -- with srl__decide, the one decision of src/round/decide.h, which the bulk, ops and
 * kernel paths call too -- and srl__assemble() builds the result with the overflow rules of the
 * format. Because all paths run this same code on the same description, and the description of
 * an exact value is unique, two paths given the same draws produce the same bits
 * (theory/T01-sr-basics.md).
 *
 * Stochastic rule (sr): U = 0.u w1 w2 ... in binary, with u the element's draw and wk the
 * words srl_rng_extra(rng, index, k-1); away iff U < f, comparing word by word and stopping at
 * the first difference. If f's expansion ends while all words agree, U >= f: toward zero.
 * Hence P(away) = f exactly. */
#ifndef SRL_ROUND_CORE_H
#define SRL_ROUND_CORE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#include "core/mutant.h"

#define SRL__HALF (UINT64_C(1) << 63)

typedef struct srl__tail {
    /* Word k >= 1 of f's expansion: floor(f * 2^(64(k+1))) mod 2^64. */
    uint64_t (*word)(const void *ctx, uint64_t k);
    const void *ctx;
    uint64_t nwords; /* words beyond nwords are all zero */
} srl__tail;

typedef struct srl__exact {
    bool neg;      /* sign of x */
    int qe;        /* grid spacing 2^qe at |x| */
    uint64_t T;    /* truncated significand count (its parity matters for rn and ro) */
    double trunc;  /* T * 2^qe as a binary64 number (exact); |x| itself when f == 0 */
    uint64_t f1;   /* floor(f * 2^64) */
    bool more;     /* f * 2^64 is not an integer */
    const srl__tail *tail; /* may be NULL when !more */
} srl__exact;

static inline uint64_t srl__bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double srl__from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* 2^e for -1074 <= e <= 1023, built from bits. */
static inline double srl__pow2(int e)
{
    if (e >= -1022)
        return srl__from_bits((uint64_t)(e + 1023) << 52);
    return srl__from_bits(UINT64_C(1) << (e + 1074));
}

/* Grid exponent at a magnitude of binary exponent e = floor(log2|x|). */
static inline int srl__qe(const srl_format *f, int e)
{
    if (e >= f->emin)
        return e - f->p + 1;
    return f->subnormals ? f->emin - f->p + 1 + SRL__MUT(SUBNORMAL) /* defect subnormal */
                         : f->emin;
}

/* Extra comparison for sr once the first words tie: U's further words against f's. */
static inline int srl__sr_tail(const srl__exact *x, const srl_rng *rng, uint64_t index)
{
    for (uint64_t k = 1; k <= x->tail->nwords; k++) {
        uint64_t w = srl_rng_extra(rng, index, k - 1);
        uint64_t fk = x->tail->word(x->tail->ctx, k);
        if (w != fk)
            return w < fk;
    }
    return 0; /* U agrees with all of f's bits, so U >= f */
}

/* The draw of one rounding with m: the next draw of rng and its index (rng moves on) when m is
 * stochastic, else 0 and 0. false: m is stochastic and rng is NULL. */
static inline bool srl__take_draw(srl_rounding m, srl_rng *rng, uint64_t *u, uint64_t *index)
{
    *u = 0;
    *index = 0;
    if (!srl_rounding_is_stochastic(m))
        return true;
    if (!rng)
        return false;
    *index = rng->counter;
    *u = srl_rng_next(rng);
    return true;
}

/* Does the mode draw? (srl_rounding_is_stochastic, inline for hot loops.) */
static inline bool srl__mode_stochastic(srl_mode m)
{
    return m == SRL_SR || m == SRL_SR_EQ || m == SRL_SR_BITS;
}

/* srl__decide, srl__round_bits: the rounding decision on uint64_t words (src/round/decide.h). */
#define SRL_DECIDE_FN srl__decide
#define SRL_DECIDE_ROUND_FN srl__round_bits
#define SRL_DECIDE_V uint64_t
#define SRL_DECIDE_W 64
#include "round/decide.h"

/* 1: the magnitude goes to T+1; 0: it stays at T. `u` is the element's draw (ignored by the
 * deterministic modes); rng and index locate the extra words (only sr uses them, when u ties
 * with f1 and f has more bits: probability 2^-64). */
static inline int srl__away(const srl__exact *x, srl_mode mode, int r, uint64_t u,
                            const srl_rng *rng, uint64_t index)
{
    if (!(x->f1 | x->more))
        return 0; /* exact: every mode keeps T */
    uint64_t undecided = 0;
    const uint64_t away = srl__decide(mode, r, x->f1, x->f1, x->more, x->T & 1u, x->neg, u, 64,
                                      &undecided);
    if (__builtin_expect(undecided != 0, 0))
        return srl__sr_tail(x, rng, index);
    return (int)away;
}

/* Does the mode take an overflowing magnitude to xmax (rather than to inf)? IEEE 754: rounding
 * toward zero does; so does round-to-odd, which never produces an infinity from a finite value. */
static inline bool srl__overflow_to_xmax(srl_mode mode, bool neg)
{
    return mode == SRL_RZ || mode == SRL_RO || (mode == SRL_RU && neg) || (mode == SRL_RD && !neg);
}

static inline double srl__overflow_value(const srl_format *f, srl_mode mode, bool neg)
{
    double v;
    if (srl__overflow_to_xmax(mode, neg) || f->saturate)
        v = f->xmax;
    else if (f->inf)
        v = INFINITY;
    else
        return NAN;
    return neg ? -v : v;
}

/* The rounded value for the decision `away`; *ovf reports overflow. */
static inline double srl__assemble(const srl__exact *x, int away, const srl_format *f,
                                   srl_mode mode, bool *ovf)
{
    double mag = away ? (double)(x->T + 1u) * srl__pow2(x->qe) : x->trunc;
    if (mag > f->xmax) {
        *ovf = true;
        return srl__overflow_value(f, mode, x->neg);
    }
    *ovf = false;
    return x->neg ? -mag : mag;
}

/* Tail words of f = M * 2^-s for an integer M < 2^64 and s > 64 (binary64 inputs far below the
 * grid spacing). */
typedef struct srl__mtail_ctx {
    uint64_t M;
    int s;
} srl__mtail_ctx;

static inline uint64_t srl__mtail_word(const void *ctx, uint64_t k)
{
    const srl__mtail_ctx *c = (const srl__mtail_ctx *)ctx;
    long sh = (long)c->s - 64L * (long)(k + 1); /* word k = floor(M 2^(64(k+1)-s)) mod 2^64 */
    if (sh >= 64)
        return 0;
    if (sh >= 0)
        return c->M >> sh;
    if (sh <= -64)
        return 0;
    return c->M << (-sh);
}

/* Describe a finite nonzero binary64 value. tail_ctx and tail are caller-provided storage used
 * only when the expansion of f is longer than 64 bits. */
static inline void srl__exact_from_double(srl__exact *r, double x, const srl_format *f,
                                          srl__mtail_ctx *tail_ctx, srl__tail *tail)
{
    const uint64_t b = srl__bits(x);
    const uint64_t a = b & ~SRL__HALF;
    const int be = (int)(a >> 52);
    uint64_t M;
    int E, e;
    if (be) {
        M = (a & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
        E = be - 1075;
        e = be - 1023;
    } else {
        M = a;
        E = -1074;
        e = 63 - __builtin_clzll(M) - 1074;
    }
    r->neg = (b >> 63) != 0;
    r->qe = srl__qe(f, e);
    r->more = false;
    r->tail = NULL;
    const int s = r->qe - E; /* bits of M below the grid */
    if (s <= 0) {             /* on the grid: exact */
        r->T = 0;
        r->f1 = 0;
        r->trunc = srl__from_bits(a);
    } else if (s < 64) {
        r->T = M >> s;
        r->f1 = (M & ((UINT64_C(1) << s) - 1)) << (64 - s);
        r->trunc = (s <= 52) ? srl__from_bits(a & ~((UINT64_C(1) << s) - 1)) : 0.0;
    } else {
        r->T = 0;
        r->trunc = 0.0;
        const int sh = s - 64;
        r->f1 = sh < 64 ? M >> sh : 0;
        const uint64_t low = sh < 64 ? (M & ((UINT64_C(1) << sh) - 1)) : M;
        if (low) {
            r->more = true;
            tail_ctx->M = M;
            tail_ctx->s = s;
            tail->word = srl__mtail_word;
            tail->ctx = tail_ctx;
            tail->nwords = (uint64_t)((s + 63) / 64) - 1;
            r->tail = tail;
        }
    }
    if (SRL__MUT(POW2_ULP) && e >= f->emin && r->f1 && r->T == (UINT64_C(1) << f->p) - 1) {
        /* defect pow2-ulp: the last spacing below a power of two on the grid of the binade
         * above (f1's low bit is 0 here: s <= 53) */
        r->f1 = (r->f1 >> 1) | ((r->T & 1) << 63);
        r->T >>= 1;
        r->qe++;
        r->trunc = (double)r->T * srl__pow2(r->qe);
    }
}

/* Result for NaN, infinities and zeros (x not finite-nonzero). */
static inline double srl__round_special(double x, const srl_format *f)
{
    if (isnan(x))
        return NAN;
    if (isinf(x)) {
        if (f->saturate)
            return x > 0 ? f->xmax : -f->xmax;
        return f->inf ? x : NAN;
    }
    return x; /* signed zero */
}

static inline bool srl__same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || srl__bits(a) == srl__bits(b);
}

/* sign(y - x): the ternary value of a result y for the input x (0 when either is NaN). */
static inline int srl__ternary(double y, double x)
{
    if (isnan(y) || isnan(x))
        return 0;
    return (y > x) - (y < x);
}

/* The description of rounding a special input x (NaN, an infinity, a zero) to v. */
static inline void srl__info_special(srl_round_info *info, double x, double v)
{
    memset(info, 0, sizeof *info);
    info->x = x;
    info->rd = info->ru = info->result = v;
    info->exact = isnan(x) || srl__same_value(v, x); /* returned unchanged */
    info->overflow = isinf(x) && !srl__same_value(v, x);
    info->ternary = srl__ternary(v, x);
}

/* Fill the description of one rounding (everything but x and ternary): the directed neighbours,
 * the result for the decision `away`, and the probability of landing on ru. `frac` is f rounded
 * once to binary64 and `frac_c` is 1 - f rounded once (callers with an exact f compute both from
 * it, so neither probability is rounded twice). Above 2^(emax+1), where every neighbour
 * overflows, frac is reported as 0. */
static inline void srl__info_c(srl_round_info *info, const srl__exact *e, const srl_format *f,
                               srl_rounding m, int away, double frac, double frac_c,
                               const srl_rng *rng, uint64_t index)
{
    const bool inexact = e->f1 != 0 || e->more;
    bool ovf, o;
    info->rd = srl__assemble(e, srl__away(e, SRL_RD, 0, 0, rng, index), f, SRL_RD, &o);
    info->ru = srl__assemble(e, srl__away(e, SRL_RU, 0, 0, rng, index), f, SRL_RU, &o);
    info->result = srl__assemble(e, away, f, m.mode, &ovf);
    info->overflow = ovf;
    info->exact = !inexact && !ovf;
    const bool beyond = e->trunc >= ldexp(1.0, f->emax + 1); /* |x| >= 2^(emax+1) */
    info->frac = inexact && !beyond ? frac : 0.0;
    /* pa, pa_c: probabilities of rounding the magnitude away from / toward zero, each rounded
     * once from its exact value. */
    double pa, pa_c;
    switch (m.mode) {
    case SRL_SR:
        pa = frac, pa_c = frac_c;
        break;
    case SRL_SR_EQ:
        pa = inexact ? 0.5 : 0.0, pa_c = 1.0 - pa;
        break;
    case SRL_SR_BITS: {
        const uint64_t F = e->f1 >> (64 - m.r); /* P(away) = F / 2^R exactly */
        pa = ldexp((double)F, -m.r);
        pa_c = F == 0 ? 1.0 : ldexp((double)((m.r == 64 ? 0 : (UINT64_C(1) << m.r)) - F), -m.r);
        break;
    }
    default:
        pa = away, pa_c = 1.0 - pa;
        break;
    }
    info->p_up = 0.0;
    if (!srl__same_value(info->rd, info->ru)) {
        if (srl__same_value(srl__assemble(e, 0, f, m.mode, &o), info->ru))
            info->p_up += pa_c;
        if (inexact && srl__same_value(srl__assemble(e, 1, f, m.mode, &o), info->ru))
            info->p_up += pa;
    }
}

/* As srl__info_c for an f that is exact as a binary64 number (then 1 - f rounds once). */
static inline void srl__info(srl_round_info *info, const srl__exact *e, const srl_format *f,
                             srl_rounding m, int away, double frac, const srl_rng *rng,
                             uint64_t index)
{
    srl__info_c(info, e, f, m, away, frac, 1.0 - frac, rng, index);
}

#endif
