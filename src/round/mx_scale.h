/* src/round/mx_scale.h: the shared scale of a power-of-two block-scaled format, written once
 * (private; the contract is include/srlab/mx.h).
 *
 * A block quantized with the shared scale 2^k into an element format E is the block rounded into
 * E_k, the format E with every exponent shifted by k (emin + k, emax + k): the values of E_k are
 * exactly 2^k times those of E, and for every input x the fraction f of |x| between its two
 * neighbours in E_k is the fraction of |x| 2^-k in E, so every mode (sr included, draw for draw)
 * gives 2^k RN_E(x 2^-k) = RN_{E_k}(x). Quantizing is therefore the one rounding of
 * src/round/decide.h into E_k, with no division by the scale and nothing rounded twice. The
 * scale rules choose k from the block's largest magnitude amax (OCP Microscaling v1.0, 6.3;
 * Tseng, Yu, Park 2025):
 *   ocp   k = floor(log2 amax) - emax_E: amax 2^-k lies in [2^emax, 2^(emax+1)), so elements
 *         above xmax_E 2^k clip (saturate) when xmax_E < 2^(emax+1) (all MX element formats);
 *   3/4   the same k, the block multiplied by 3/4 first: amax (3/4) 2^-k < 1.5 2^emax <= xmax_E
 *         in every MX element format, so nothing clips; the result estimates (3/4) x;
 *   ceil  the smallest k with amax <= xmax_E 2^k: k_ocp or k_ocp + 1 (amax 2^-k_ocp < 2^(emax+1)
 *         <= 2 xmax_E); nothing clips, at a grid up to twice as coarse.
 * k is clamped to the E8M0 range [-127, 127]; amax = 0 gives -127. */
#ifndef SRL_MX_SCALE_H
#define SRL_MX_SCALE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/mode.h"

/* The rules' codes (srl_mx_rule in include/srlab/mx.h has the same values). */
#define SRL__MX_RULE_OCP 0
#define SRL__MX_RULE_34 1
#define SRL__MX_RULE_CEIL 2

#define SRL__MX_KMIN (-127)
#define SRL__MX_KMAX 127

/* The scale exponent k for a block whose largest magnitude is amax (finite, >= 0). A normal amax
 * (every block of binary32 values but one of subnormals) takes integer arithmetic on its bits:
 * floor(log2 amax) is its exponent field less the bias, and under the ceil rule amax and
 * xmax_E 2^k share their binade [2^(k+emax), 2^(k+emax+1)) (xmax_E < 2^(emax+1)), so amax >
 * xmax_E 2^k compares their fraction fields. The bulk path calls this once per block, where
 * ilogb and ldexp (library calls) cost as much as the block's rounding; the rest takes them. */
static inline int srl__mx_k(double amax, const srl_format *elem, int rule)
{
    if (!(amax > 0))
        return SRL__MX_KMIN;
    const uint64_t frac = (UINT64_C(1) << 52) - 1;
    uint64_t b, xb;
    memcpy(&b, &amax, sizeof b);
    memcpy(&xb, &elem->xmax, sizeof xb);
    int k;
    if ((b >> 52) != 0 && (int)(xb >> 52) == elem->emax + 1023) {
        k = (int)(b >> 52) - 1023 - elem->emax;
        if (rule == SRL__MX_RULE_CEIL && (b & frac) > (xb & frac))
            k++;
    } else {
        k = ilogb(amax) - elem->emax; /* floor(log2 amax) - emax, binary64 subnormals included */
        if (rule == SRL__MX_RULE_CEIL && amax > ldexp(elem->xmax, k))
            k++;
    }
    return k < SRL__MX_KMIN ? SRL__MX_KMIN : k > SRL__MX_KMAX ? SRL__MX_KMAX : k;
}

/* srl__mx_k for a binary32 amax given by its bits am (finite, >= 0), xfrac the fraction field
 * of xmax_E as binary32 (exact: E is a small format), or -1 when xmax_E does not lie in the
 * binade of 2^emax (then srl__mx_k decides). The same k: a normal amax's exponent field is
 * its binary64 one rebiased, and its fraction field compares with xmax_E's as the binary64
 * fields do (both are the binary32 fields shifted left by 29). */
static inline int srl__mx_k32(uint32_t am, int64_t xfrac, const srl_format *elem, int rule)
{
    if (__builtin_expect(am - UINT32_C(0x00800000) >= UINT32_C(0x7f000000) || xfrac < 0, 0)) {
        float a;
        memcpy(&a, &am, 4);
        return srl__mx_k((double)a, elem, rule);
    }
    int k = (int)(am >> 23) - 127 - elem->emax;
    k += rule == SRL__MX_RULE_CEIL && (int64_t)(am & 0x7fffffu) > xfrac;
    return k < SRL__MX_KMIN ? SRL__MX_KMIN : k > SRL__MX_KMAX ? SRL__MX_KMAX : k;
}

/* srl__mx_k32's xfrac for E. */
static inline int64_t srl__mx_xfrac(const srl_format *elem)
{
    uint64_t xb;
    memcpy(&xb, &elem->xmax, sizeof xb);
    return (int)(xb >> 52) == elem->emax + 1023 ? (int64_t)((xb >> 29) & 0x7fffffu) : -1;
}

/* Which form the bulk kernel (src/round/round_bulk_isa.h, mx_tile) rounds a block's lanes in:
 * 1, the carry forms of rn and sr (a saturating E with subnormals, p >= 2); 2, the same on the
 * wide pattern of (3/4) x 2^-k (the 3/4 rule; E's xmax in the binade of 2^emax and its exponent
 * range small enough for the pattern's six exponent bits); 0, the general form (every mode but
 * the 3/4 rule, which then takes the scaled tile). On AVX-512, mx_tile turns form 1 of rn and
 * sr into forms 3 and 4, and form 2 into 5 and 6, the same results by the hardware's addition. A build with defects
 * (src/core/mutant.h) takes the general form: the defects live in decide.h's rules. */
static inline int srl__mx_form(const srl_format *elem, int rule, srl_mode mode)
{
#if defined(SRL_MUTANTS)
    (void)elem, (void)rule, (void)mode;
    return 0;
#else
    if ((mode != SRL_RN && mode != SRL_SR) || !elem->saturate || !elem->subnormals || elem->p < 2)
        return 0;
    if (rule != SRL__MX_RULE_34)
        return 1;
    return srl__mx_xfrac(elem) >= 0 && elem->emax >= 0 && elem->emax <= 40 &&
                   elem->emax - elem->emin + elem->p <= 40
               ? 2
               : 0;
#endif
}

/* 2^e as a binary32 number, -127 <= e <= 127 (2^-127 is subnormal). */
static inline float srl__pow2f(int e)
{
    const uint32_t b = e >= -126 ? (uint32_t)(e + 127) << 23 : UINT32_C(1) << 22;
    float v;
    memcpy(&v, &b, 4);
    return v;
}

/* E_k: elem with every exponent shifted by k (|k| <= 127, elem a small format: it stays inside
 * binary64). The name is elem's; the derived fields are elem's times 2^k, exactly. */
static inline void srl__format_shift(srl_format *s, const srl_format *elem, int k)
{
    *s = *elem;
    s->emin += k;
    s->emax += k;
    s->xmin = ldexp(elem->xmin, k);
    s->xsub = ldexp(elem->xsub, k);
    s->xmax = ldexp(elem->xmax, k);
}

#endif
