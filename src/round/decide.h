/* src/round/decide.h: the rounding decision, written once (private).
 *
 * Every rounding in srlab describes the exact magnitude as |x| = (T + f) 2^qe (T an integer,
 * 0 <= f < 1, 2^qe the grid spacing at |x|; src/round/round_core.h) and then decides, from the
 * mode, what is known of f, T's last bit, the sign and the element's draw, whether the magnitude
 * goes away from zero to T + 1 or stays at T. This file is that decision. It is a template with
 * no include guard, compiled for a word type:
 *     srl__decide         uint64_t: the reference (srl__away in round_core.h), the scalar tiles
 *                         of bulk rounding, the quick paths of src/ops/ops.c;
 *     ISA(lane_decide64)  eight uint64_t lanes, ISA(lane_decide32) sixteen uint32_t lanes
 *                         (src/round/lanes_isa.h): the vector paths of bulk rounding and of the
 *                         kernels (src/round/round_bulk_isa.h, src/linalg/kernels_isa.h).
 * With it, SRL_DECIDE_ROUND_FN (srl__round_bits, ISA(lane_round64), ISA(lane_round32)) rounds
 * an encoding whose fraction is exactly its low bits, decision and assembly in one, for the
 * paths that work on bit patterns (bulk rounding, the kernels' lanes, the quick path of ops).
 * Usage: define SRL_DECIDE_FN and SRL_DECIDE_ROUND_FN (the functions' names), SRL_DECIDE_V (the
 * word type: an unsigned integer, or a GCC vector of them) and SRL_DECIDE_W (its bits per word,
 * 32 or 64), then include this file; it undefines the four (and SRL_DECIDE_LT / SRL_DECIDE_EQ,
 * the comparisons <, ==, which a vector instance may define as functions: src/round/lanes_isa.h).
 * Only those comparisons, &, |, ^, +, -, shifts are used, so the same text is scalar C and
 * generic vector code (a comparison is 1 or 0 in C and all ones or 0 in a vector lane; SRL__BIT
 * makes it 1 or 0 in both). Compiled with a
 * constant mode (the vector paths specialise their loops per mode) the switch folds away.
 *
 * A NEW ROUNDING MODE IS ONE EDIT HERE: its case in the switch of SRL_DECIDE_FN below (after
 * naming it in include/srlab/mode.h and src/core/mode.c; a mode that overflows to xmax adds
 * itself to srl__overflow_to_xmax, a stochastic one its P(away) to srl__info_c, both in
 * src/round/round_core.h, and srl__mode_stochastic there lists the stochastic ones). Every
 * path (srl_round, srl_round_array*, the MPFR path, srl_op_*, the kernels) then rounds with it;
 * the loops specialised per mode hand a mode they do not know to the reference path or to a
 * generic instance. tests/round and tests/ops compare every path with MPFR.
 * The rules written twice are rn and sr: SRL_DECIDE_ROUND_FN takes their carry forms, which
 * fuse decision and assembly (a third fewer instructions in the binary32-lane kernels and in
 * bulk rounding to nearest; 10-12% faster binary32 sr, BENCHMARKS.md); its comment shows that
 * each agrees with the decision here.
 *
 * Inputs, per word (scalar or lane), all but mode, r and ub 0/1 words where a flag:
 *   lo, hi   bounds on f's first word: lo <= floor(f 2^W) <= hi. lo == hi == f1 when the first
 *            word is known (then f = f1 2^-W exactly unless `strict`). A range (the quick paths
 *            of ops.c, where f is known only to lie in an interval) must not straddle 1/2, and
 *            lo > 0 or strict must hold (f > 0 is known), so that every deterministic mode is
 *            decided by lo alone (so hi - lo < 2^W - 1 too).
 *   strict   1: f > lo 2^-W is known (f1 known and more nonzero bits follow it, or an interval
 *            open at lo).
 *   todd     T's last bit (rn, ro); neg: 1 for a negative x (ru, rd).
 *   u        the draw's first W bits (U = 0.u w1 w2 ..., w_k = srl_rng_extra words); only the
 *            top ub of them are valid (ub = W: all; ub = 32 in 64-bit lanes that made only the
 *            draw's high half; the others are 0). sr compares only those bits.
 * Returns `away` (1 or 0 per word). *undecided gets 1 (or-ed in) where these inputs cannot
 * decide and the caller must look further (its result is then unspecified):
 *   sr       u's valid bits fall within [lo, hi]'s (for a known first word: u == f1 with
 *            strict, where the following words decide, srl__sr_tail; without strict, U >= f
 *            and the answer is 0, decided);
 *   sr:r=R   lo and hi differ in their top R bits, or R > ub.
 * mode and r: the rounding (r = R of sr:r=R, 1 <= R <= W; in 32-bit lanes, whose f has no bits
 * below 2^-32, the caller passes min(R, 32): the carry out of F + Z at bit R is then the carry
 * at bit 32).
 *
 * Defects (src/core/mutant.h; none in a default build, where every `SRL__MUT(...)` below is 0 and
 * its branch folds away): each branch of the decision and each carry form has its slip, marked
 * "defect". */

#include "core/mutant.h"
#if defined(SRL_MUTANTS)
#include "core/isa.h" /* SRL_CAT */
#endif

#ifndef SRL_DECIDE_LT
#define SRL_DECIDE_LT(a, b) ((a) < (b))
#endif
#ifndef SRL_DECIDE_EQ
#define SRL_DECIDE_EQ(a, b) ((a) == (b))
#endif
#define SRL__BIT(c) ((SRL_DECIDE_V)(c) & one) /* a comparison as a 0/1 word */
#define SRL__INEXACT (SRL__BIT(SRL_DECIDE_LT(zero, lo)) | strict) /* f > 0 */

static inline __attribute__((always_inline)) SRL_DECIDE_V
SRL_DECIDE_FN(srl_mode mode, int r, SRL_DECIDE_V lo, SRL_DECIDE_V hi, SRL_DECIDE_V strict,
              SRL_DECIDE_V todd, SRL_DECIDE_V neg, SRL_DECIDE_V u, int ub,
              SRL_DECIDE_V *undecided)
{
    const SRL_DECIDE_V zero = (SRL_DECIDE_V){0}, one = zero + 1, half = one << (SRL_DECIDE_W - 1);
    if (SRL__MUT(SR8) && mode == SRL_SR) { /* defect sr8: exact sr as sr:r=8 */
        mode = SRL_SR_BITS;
        r = 8;
    }
    switch (mode) {
    case SRL_RN: /* f > 1/2, or f == 1/2 and T odd: lo > half - 1 when strict or T odd */
        if (SRL__MUT(TIES_AWAY)) /* defect ties-away: rna's rule */
            return SRL__BIT(SRL_DECIDE_LT(half - one, lo));
        return SRL__BIT(SRL_DECIDE_LT(half - (strict | todd), lo));
    case SRL_RNA: /* f >= 1/2 */
        if (SRL__MUT(RNA_TIE)) /* defect rna-tie: f > 1/2 */
            return SRL__BIT(SRL_DECIDE_LT(half - strict, lo));
        return SRL__BIT(SRL_DECIDE_LT(half - one, lo));
    case SRL_RZ:
        return zero;
    case SRL_RU:
        if (SRL__MUT(DIRECTED_SIGN)) /* defect directed-sign */
            return SRL__INEXACT & neg;
        return SRL__INEXACT & (neg ^ one);
    case SRL_RD:
        if (SRL__MUT(DIRECTED_SIGN)) /* defect directed-sign */
            return SRL__INEXACT & (neg ^ one);
        return SRL__INEXACT & neg;
    case SRL_RO: /* to the odd neighbour */
        if (SRL__MUT(RO_EVEN)) /* defect ro-even */
            return SRL__INEXACT & todd;
        return SRL__INEXACT & (todd ^ one);
    case SRL_SR: { /* away iff U < f: P(away) = f */
        const int sh = SRL_DECIDE_W - ub;
        const SRL_DECIDE_V us = u >> sh, ls = lo >> sh, below = SRL__BIT(SRL_DECIDE_LT(us, ls));
        const SRL_DECIDE_V within = SRL__BIT(SRL_DECIDE_LT(us - ls, (hi >> sh) - ls + one)); /* ls..hs */
        const SRL_DECIDE_V open =
            strict | SRL__BIT(SRL_DECIDE_LT(lo, hi)) | (ub < SRL_DECIDE_W ? one : zero);
        *undecided |= within & open;
        if (SRL__MUT(SR_LE)) /* defect sr-le: u <= f1 */
            return below | SRL__BIT(SRL_DECIDE_EQ(us, ls));
        if (SRL__MUT(SR_SIGNED)) /* defect sr-signed: a negative value away with 1 - f */
            return below ^ (neg & SRL__INEXACT);
        return below;
    }
    case SRL_SR_EQ: /* the draw's top bit, when inexact */
        if (SRL__MUT(SR_EQ_FLIP)) /* defect sr-eq-flip */
            return SRL__INEXACT & ((u >> (SRL_DECIDE_W - 1)) ^ one);
        return SRL__INEXACT & (u >> (SRL_DECIDE_W - 1));
    case SRL_SR_BITS: { /* F = floor(f 2^R), Z = the draw's top R bits: away iff F + Z >= 2^R */
        const int sh = SRL_DECIDE_W - r;
        const SRL_DECIDE_V F = lo >> sh;
        SRL_DECIDE_V Z = u >> sh;
        if (SRL__MUT(SR12) && r == 16) /* defect sr12: Z's low 4 bits lost */
            Z &= ~(zero + 15);
        if (SRL__MUT(SR_R1)) /* defect sr-r-1: Z's lowest bit lost */
            Z &= ~one;
        *undecided |= (SRL__BIT(SRL_DECIDE_EQ(F, hi >> sh)) ^ one) | (r > ub ? one : zero);
        if (SRL__MUT(SR_LE)) /* defect sr-le: F + Z + 1 >= 2^R */
            return r == SRL_DECIDE_W ? SRL__BIT(SRL_DECIDE_LT(F + Z, F)) |
                                           SRL__BIT(SRL_DECIDE_EQ(F + Z, ~zero))
                                     : SRL__BIT(SRL_DECIDE_LT(zero, (F + Z + one) >> r));
        if (SRL__MUT(SR_SIGNED)) /* defect sr-signed */
            return (r == SRL_DECIDE_W ? SRL__BIT(SRL_DECIDE_LT(F + Z, F))
                                      : SRL__BIT(SRL_DECIDE_LT(zero, (F + Z) >> r))) ^
                   (neg & SRL__INEXACT);
        return r == SRL_DECIDE_W ? SRL__BIT(SRL_DECIDE_LT(F + Z, F))
                                 : SRL__BIT(SRL_DECIDE_LT(zero, (F + Z) >> r));
    }
    default:
        return zero;
    }
}

/* The magnitude a (an encoding with the sign cleared) rounded to the grid of 2^s of its units,
 * when a's fraction is exactly its low s bits (R = a mod 2^s, f1 = R 2^(W-s), nothing further;
 * 0 <= s < W): (a - R) + (away << s), the carry into the exponent field being the step to the
 * next binade. The caller checks the range. rn takes its carry form, (a + 2^(s-1) - 1 + T) with
 * the low s bits cleared: R + 2^(s-1) - 1 + T carries out of the low s bits exactly when
 * f1 > half - T, the decision's rn case (s = 0: exact, a itself). So does sr when the draw's
 * valid bits cover the grid (0 < s <= ub): with Z = u's top s bits, f1 = R 2^(W-s) has no bits
 * below them, so U < f exactly when Z < R, and (a + (2^s - 1 - Z)) with the low s bits cleared
 * (2^s - 1 - Z being ~u's top s bits) carries out of them exactly when R - 1 - Z >= 0: the
 * decision's sr case, never undecided. Every other mode asks the decision. neg, u, ub,
 * undecided: as above. */
#if defined(SRL_MUTANTS) /* the rule below, wrapped by the defect pow2-ulp's (after it) */
#define SRL__ROUND_RULE SRL_CAT(SRL_DECIDE_ROUND_FN, _rule)
#else
#define SRL__ROUND_RULE SRL_DECIDE_ROUND_FN
#endif
static inline __attribute__((always_inline)) SRL_DECIDE_V
SRL__ROUND_RULE(SRL_DECIDE_V a, int s, srl_mode mode, int r, SRL_DECIDE_V neg, SRL_DECIDE_V u,
                int ub, SRL_DECIDE_V *undecided)
{
    const SRL_DECIDE_V zero = (SRL_DECIDE_V){0}, one = zero + 1, mask = (one << s) - one;
    if (mode == SRL_RN) {
        if (SRL__MUT(TIES_AWAY)) /* defect ties-away: rna's carry, R + 2^(s-1) */
            return s ? (a + (one << (s - 1))) & ~mask : a;
        return (a + (mask >> 1) + ((a >> s) & (s ? one : zero))) & ~mask;
    }
    if (mode == SRL_SR && s > 0 && s <= ub && !SRL__MUT(SR8) && !SRL__MUT(SR_SIGNED)) {
        if (SRL__MUT(SR_LE)) /* defect sr-le: carries when R >= Z */
            return (a + (~u >> (SRL_DECIDE_W - s)) + one) & ~mask;
        return (a + (~u >> (SRL_DECIDE_W - s))) & ~mask;
    }
    /* f1 = R 2^(W-s); s = 0: R = 0, and the shift count (W - s) mod W is 0 */
    const SRL_DECIDE_V R = a & mask, f1 = R << ((SRL_DECIDE_W - s) & (SRL_DECIDE_W - 1));
    return (a - R) + (SRL_DECIDE_FN(mode, r, f1, f1, zero, (a >> s) & one, neg, u, ub,
                                    undecided)
                      << s);
}

#if defined(SRL_MUTANTS)
/* The rule, and the defect pow2-ulp: a magnitude in the last spacing below a power of two (its
 * significand's bits above the grid all ones, inexact, a normal input) rounded on the grid of the
 * binade above, 2^(s+1) units. The input's significand has 52 (binary64) or 23 (binary32) bits. */
static inline __attribute__((always_inline)) SRL_DECIDE_V
SRL_DECIDE_ROUND_FN(SRL_DECIDE_V a, int s, srl_mode mode, int r, SRL_DECIDE_V neg,
                    SRL_DECIDE_V u, int ub, SRL_DECIDE_V *undecided)
{
    const int mb = SRL_DECIDE_W == 64 ? 52 : 23;
    const SRL_DECIDE_V res = SRL__ROUND_RULE(a, s, mode, r, neg, u, ub, undecided);
    if (!SRL__MUT(POW2_ULP) || s < 1 || s + 1 >= mb)
        return res;
    const SRL_DECIDE_V zero = (SRL_DECIDE_V){0}, one = zero + 1, fm = (one << (mb - s)) - one;
    const SRL_DECIDE_V top = SRL__BIT(SRL_DECIDE_EQ((a >> s) & fm, fm)) &
                             SRL__BIT(SRL_DECIDE_LT((one << mb) - one, a)) &
                             (SRL__BIT(SRL_DECIDE_EQ(a & ((one << s) - one), zero)) ^ one);
    const SRL_DECIDE_V sel = zero - top; /* all ones where top */
    const SRL_DECIDE_V up = SRL__ROUND_RULE(a, s + 1, mode, r, neg, u, ub, undecided);
    return (up & sel) | (res & ~sel);
}
#endif

#undef SRL__ROUND_RULE
#undef SRL__BIT
#undef SRL__INEXACT
#undef SRL_DECIDE_ROUND_FN
#undef SRL_DECIDE_FN
#undef SRL_DECIDE_V
#undef SRL_DECIDE_W
#undef SRL_DECIDE_LT
#undef SRL_DECIDE_EQ
