/* srlab/rounding.h: rounding binary64/binary32 values into any format, in any mode
 * (docs/design.md §3). Every function rounds the *exact* input once.
 *
 * Modes (values of srlab/mode.h, parsed by srl_rounding_parse from these names):
 *   rn       nearest, ties to even           rna   nearest, ties away from zero
 *   rz       toward zero                     ru    toward +inf          rd   toward -inf
 *   ro       round to odd: the neighbour whose last significand bit is 1 (an exact input is
 *            returned unchanged; below 2^emin without subnormals, the nonzero neighbour xmin;
 *            above xmax the overflow rule below wins, so in e4m3 (448, 480) gives 448, even)
 *   sr       stochastic, proportional: away from zero with probability f = (|x| - T) / q, where
 *            T is |x| truncated to the grid and q the grid spacing there. Decided exactly: a
 *            uniform U in [0,1) is compared with f, U's first 64 bits being the element's draw
 *            and further words (srl_rng_extra) consulted only while they tie with f's binary
 *            expansion. So P(up) = f exactly and E[SR(x)] = x for every exact input.
 *   sr-eq    stochastic, equal probability: away from zero with probability 1/2 when inexact
 *            (the top bit of the draw).
 *   sr:r=R   stochastic with R random bits (1 <= R <= 64): f truncated to R bits, F = floor(f 2^R),
 *            plus an R-bit random integer Z (the top R bits of the draw); away from zero iff
 *            F + Z >= 2^R. P(up) = F / 2^R, biased toward zero by (f - F/2^R) q. The seed paper's
 *            bf16 write is sr:r=16 of an fp32 value, which is unbiased for fp32 inputs since their
 *            f has at most 16 bits.
 * Stochastic modes consume exactly one draw per rounded value, exact or not.
 * Exact inputs are returned unchanged by every mode (when they are in range).
 *
 * Special values and range, per IEEE 754 and per mode:
 *   NaN -> NaN. +-0 -> +-0. A nonzero value that rounds to zero keeps its sign.
 *   +-inf -> +-inf in a format with infinities; NaN without (e4m3); +-xmax when saturating (a
 *   saturating format never produces an infinity, even if it has encodings for them).
 *   Overflow (the rounded magnitude exceeds xmax, the grid continuing above xmax with the spacing
 *   of the top binade): rz, ro, and rd/ru in the direction of zero give +-xmax; rn, rna, away-
 *   directed and the stochastic modes give +-inf (so SR overflows only when it rounds past xmax).
 *   A format without infinities gives NaN where inf would be (OCP FP8); a saturating format
 *   gives +-xmax instead.
 *   Subnormals: spacing 2^(emin-p+1) below 2^emin; without subnormals the only values below
 *   2^emin are 0, and rounding chooses between 0 and xmin in the mode (rn's tie at xmin/2 goes
 *   to 0, the even neighbour; rna's goes to xmin).
 *
 * Randomness: with a stochastic mode, srl_round() uses draw rng->counter and increments it, and
 * the array functions use draws rng->counter + i for element i and add n to rng->counter. With a
 * deterministic mode nothing is drawn, rng may be NULL and is not touched. Results never depend
 * on the thread count.
 *
 * One rule: every rounding in srlab -- these functions, srlab/mpfr.h, the exact operations of
 * srlab/ops.h, the kernels of srlab/kernels.h -- describes the exact value the same way
 * (src/round/round_core.h) and takes the same decision (src/round/decide.h), so given the same
 * draws they agree bit for bit. */
#ifndef SRLAB_ROUNDING_H
#define SRLAB_ROUNDING_H

#include <stdbool.h>
#include <stddef.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/mode.h"
#include "srlab/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Round x into f with mode m (one draw when stochastic; rng must then be non-NULL). */
double srl_round(double x, const srl_format *f, srl_rounding m, srl_rng *rng);

/* Everything about one rounding, for teaching views, CSV output and oracle tests. */
typedef struct srl_round_info {
    double x;       /* the input */
    double rd, ru;  /* RD(x) and RU(x) in the format, with the overflow rules above */
    double p_up;    /* probability that the result is ru (toward +inf), 0 when rd == ru (an
                       exact input, a saturated overflow: nothing to choose): 0 or 1 for the
                       deterministic modes, the probability rounded to binary64 for the
                       stochastic ones. For negative x it is 1 - P(away from zero), so a tiny
                       chance of rounding down can vanish in the subtraction (p_up prints as 1):
                       use frac for the exact magnitude probability */
    double frac;    /* f = (|x| - T)/q, the fraction of the magnitude (0 when exact): sr rounds
                       away from zero with probability exactly f. Exact as a binary64 number for
                       binary64 inputs unless f < 2^-1074 (it is then rounded). 0 when
                       |x| >= 2^(emax+1), where every neighbour overflows */
    double result;  /* the rounded value (this call's draw for stochastic modes) */
    int ternary;    /* sign(result - x) as in MPFR: 0 exact, >0 rounded up, <0 down; 0 for NaN */
    bool exact;     /* x is returned unchanged (a value of the format; NaN counts as one) */
    bool overflow;  /* the rounded magnitude exceeds xmax (the result follows the overflow
                       rules), or an infinite input did not stay infinite */
} srl_round_info;

/* Fill *info for x (one draw when stochastic). Returns SRL_EINVAL for a NULL rng with a
 * stochastic mode or an invalid mode. */
int srl_round_explain(srl_round_info *info, double x, const srl_format *f, srl_rounding m,
                      srl_rng *rng) SRL_WUR;

/* Bulk rounding. y may alias x exactly (y == x), not partially. OpenMP-parallel above a size
 * threshold; bit-identical for any thread count. n draws when stochastic. */
int srl_round_array(double *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                    srl_rng *rng) SRL_WUR;

/* Float in, float out; every value of the format must be a binary32 number
 * (srl_format_fits_float: p <= 24, emax <= 127, finest spacing 2^(emin-p+1) >= 2^-149),
 * else SRL_EINVAL. */
int srl_round_array_float(float *y, const float *x, size_t n, const srl_format *f,
                          srl_rounding m, srl_rng *rng) SRL_WUR;

/* Double in, float out (the format must be a subset of binary32): round once, store exactly. */
int srl_round_array_d2f(float *y, const double *x, size_t n, const srl_format *f,
                        srl_rounding m, srl_rng *rng) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
