/* srlab/ops.h: exact arithmetic in any format and rounding mode (docs/design.md §5).
 *
 * srl_op_apply(op, a, b, c, f, m, rng) forms the *exact* result of op on the binary64 operands (any
 * binary64 values; in practice values of f) and rounds it once into f with mode m, with the rule
 * of srl_round() (include/srlab/rounding.h): the same special values, overflow and subnormal
 * rules, and for stochastic modes the same exact decision (one draw; extra words from
 * srl_rng_extra only while they tie with the exact fraction's expansion).
 *
 *   add a+b   sub a-b   mul a*b   fma a*b+c   div a/b   sqrt sqrt(a)
 *
 * Exactness is not an approximation here: 1 + 2^-200 rounded into fp32 with sr goes up with
 * probability exactly 2^-177. The quotient and the square root usually have infinite binary
 * expansions; their fraction words are produced exactly (long division, integer square root)
 * as far as a decision needs them.
 *
 * Two paths compute every operation and agree bit for bit, draws included:
 *   fast path: a quick front end decides from the binary64 result and its exact residual
 *              (TwoSum; TwoProd with fma) whenever that settles the rounding (nearly always for
 *              low-precision operands); otherwise the exact result is formed with integers:
 *              products as 106-bit integers, sums of overlapping terms exactly, long division
 *              and integer square root with exact remainders (GMP for the rare deep words of a
 *              square root);
 *   MPFR path: the reference (srl_op_mpfr_draw in srlab/mpfr.h), computed with MPFR only. The
 *              fast path keeps a fallback to it for any case it could not decide; none is
 *              known (srl_op_which_path reports it, and the tests count it).
 * IEEE 754 special cases: NaN operands give NaN; inf - inf, 0 * inf, 0/0, inf/inf, sqrt of a
 * negative number give NaN; x/0 gives a signed infinity (NaN without infinities, xmax when
 * saturating); the sign of an exact zero sum is + except in rd (x + (-x) = +0 in every mode but
 * rd, where it is -0); sqrt(-0) = -0. For an exact zero result srl_op_explain reports
 * rd = ru = the mode's signed zero and p_up = 0; when the exact result lies beyond binary64's
 * range its info->x is +-inf. */
#ifndef SRLAB_OPS_H
#define SRLAB_OPS_H

#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srl_op { SRL_ADD = 0, SRL_SUB, SRL_MUL, SRL_FMA, SRL_DIV, SRL_SQRT, SRL_OP_COUNT } srl_op;

/* "add", "sub", "mul", "fma", "div", "sqrt". */
int srl_op_parse(srl_op *op, const char *s, srl_err *err) SRL_WUR;
const char *srl_op_name(srl_op op);
/* Number of operands: 2, 2, 2, 3, 2, 1. */
int srl_op_arity(srl_op op);

/* The exact result of op rounded once into f with m; one draw (rng->counter, then +1) when m is
 * stochastic (rng must then be non-NULL). Unused operands are ignored. */
double srl_op_apply(srl_op op, double a, double b, double c, const srl_format *f, srl_rounding m,
              srl_rng *rng);

/* As srl_op_apply with the draw u of index `index` given explicitly (rng is only read, for the rare
 * extra words): for kernels with their own draw schedule. */
double srl_op_apply_draw(srl_op op, double a, double b, double c, const srl_format *f, srl_rounding m,
                   uint64_t u, const srl_rng *rng, uint64_t index);

/* Everything about one operation (one draw when stochastic): neighbours, probability, result,
 * ternary against the exact result; info->x is the exact result rounded to nearest binary64
 * (for display; srl_op_exact in srlab/mpfr.h gives the exact value). */
int srl_op_explain(srl_round_info *info, srl_op op, double a, double b, double c,
                   const srl_format *f, srl_rounding m, srl_rng *rng) SRL_WUR;

/* Which path srl_op_apply_draw takes for these operands (for tests and benchmarks). */
typedef enum srl_op_path { SRL_PATH_FAST = 0, SRL_PATH_MPFR = 1 } srl_op_path;
srl_op_path srl_op_which_path(srl_op op, double a, double b, double c, const srl_format *f);

static inline double srl_add(double a, double b, const srl_format *f, srl_rounding m, srl_rng *r)
{
    return srl_op_apply(SRL_ADD, a, b, 0.0, f, m, r);
}
static inline double srl_sub(double a, double b, const srl_format *f, srl_rounding m, srl_rng *r)
{
    return srl_op_apply(SRL_SUB, a, b, 0.0, f, m, r);
}
static inline double srl_mul(double a, double b, const srl_format *f, srl_rounding m, srl_rng *r)
{
    return srl_op_apply(SRL_MUL, a, b, 0.0, f, m, r);
}
static inline double srl_fma(double a, double b, double c, const srl_format *f, srl_rounding m,
                             srl_rng *r)
{
    return srl_op_apply(SRL_FMA, a, b, c, f, m, r);
}
static inline double srl_div(double a, double b, const srl_format *f, srl_rounding m, srl_rng *r)
{
    return srl_op_apply(SRL_DIV, a, b, 0.0, f, m, r);
}
static inline double srl_sqrt(double a, const srl_format *f, srl_rounding m, srl_rng *r)
{
    return srl_op_apply(SRL_SQRT, a, 0.0, 0.0, f, m, r);
}

#ifdef __cplusplus
}
#endif
#endif
