/* src/problems/tanh32.h: tanh of a binary32 number, computed in binary64 with + - * / only
 * (private; the binary32 instances of src/problems/model_ops.h take it as R_TANH).
 *
 * Why not the C library's tanhf: GELU calls it once per element of the GPT's widest activation,
 * and glibc's tanhf (through expm1f) took a third of a training step of the GPT at size b
 * (BENCHMARKS.md). This function has no branch and no call, so the compiler vectorises the loops
 * that use it, and it uses only IEEE operations, so it gives the same bits on every machine, at
 * every instruction-set level and with every C library (glibc's tanhf may change between
 * releases); -ffp-contract=off keeps every product and sum a rounding of its own.
 *
 * The computation: |x| clamped to 10 (tanh(10) rounds to 1 in binary32: 1 - tanh(10) =
 * 4.1e-9 < 2^-25), y = 2|x|, y = k ln2 + r with k = floor(y / ln2) and 0 <= r < ln2 (ln2
 * split in two so that k ln2_hi is exact: k <= 28 and ln2_hi has 32 significant bits; r may
 * be below 0 by a rounding of y / ln2, which changes nothing below),
 * expm1(r) = r + r^2 (1/2! + r/3! + ... + r^15/17!) (Taylor: the first term left out, r^18/18!,
 * is below 2^-62 of r), t = expm1(y) = 2^k expm1(r) + (2^k - 1) (2^k expm1(r) is exact, 2^k - 1
 * too), and tanh|x| = t / (t + 2). With r >= 0 every sum adds terms of one sign, so nothing
 * cancels: expm1(r) comes within 2.5 2^-53 relative (r itself within 2^-53; r^2 p is at most
 * 0.45 r), t within 3.5 2^-53, the quotient within 5.5 2^-53 (t + 2 and the division one
 * rounding each); for small y, t ~ y and the quotient is y/2 (1 - y/2 + ...). The sign of x is
 * put back. So the binary32 result is correctly rounded except where tanh|x| lies within
 * 5.5 2^-53 relative of a binary32 rounding boundary, and always
 * within 1 binary32 ulp (faithful). tests/problems/test_tanh32.c compares it with MPFR: faithful
 * everywhere, odd exactly, NaN in NaN out, and correctly rounded on all but a few of its
 * millions of inputs. +-0 give +-0, +-inf give +-1, subnormals themselves, a NaN itself
 * (quieted, as tanhf does). */
#ifndef SRL_TANH32_H
#define SRL_TANH32_H

#include <stdint.h>
#include <string.h>

/* tanh|x| in binary64 for 0 <= ax <= 10 (above, in the binary32 result, it is 1), within
 * 5.5 2^-53 relative. */
static inline double srl__tanh32_abs(double ax)
{
    const double ln2_hi = 0x1.62e42feep-1, ln2_lo = 0x1.a39ef35793c76p-33;
    const double inv_ln2 = 0x1.71547652b82fep0, magic = 0x1.8p52; /* round to an integer */
    const double y = ax + ax;
    const double kb = (y * inv_ln2 - 0.5) + magic; /* k = floor(y / ln2): in the low bits */
    const double kd = kb - magic;
    const double r = (y - kd * ln2_hi) - kd * ln2_lo;
    double p = 1.0 / 355687428096000.0; /* 1/17! */
    p = p * r + 1.0 / 20922789888000.0;
    p = p * r + 1.0 / 1307674368000.0;
    p = p * r + 1.0 / 87178291200.0;
    p = p * r + 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    const double em = r + (r * r) * p; /* expm1(r) */
    uint64_t bits, mb;
    memcpy(&bits, &kb, sizeof bits);
    memcpy(&mb, &magic, sizeof mb);
    const uint64_t sb = (bits - mb + 1023) << 52; /* 2^k, 0 <= k <= 28 */
    double scale;
    memcpy(&scale, &sb, sizeof scale);
    const double t = scale * em + (scale - 1.0);
    return t / (t + 2.0);
}

/* Every choice is a select of integers, no floating-point operation is conditional: the
 * compiler can if-convert the loops that call it (it will not speculate a floating-point
 * operation that may trap). */
static inline float srl__tanh32(float xf)
{
    uint32_t xb;
    memcpy(&xb, &xf, sizeof xb);
    const uint32_t sign = xb & 0x80000000u, ab = xb & 0x7fffffffu;
    const uint32_t ten = 0x41200000u; /* 10.0f; NaN's bits are above, so it is clamped too */
    const uint32_t cb = ab < ten ? ab : ten;
    float axf;
    memcpy(&axf, &cb, sizeof axf);
    const float rf = (float)srl__tanh32_abs((double)axf);
    uint32_t rb;
    memcpy(&rb, &rf, sizeof rb);
    const uint32_t nan = 0u - (uint32_t)(ab > 0x7f800000u); /* NaN: itself, quiet */
    rb = ((xb | 0x00400000u) & nan) | ((rb | sign) & ~nan);
    float res;
    memcpy(&res, &rb, sizeof res);
    return res;
}

#endif
