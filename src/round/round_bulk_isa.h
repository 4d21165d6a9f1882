/* src/round/round_bulk_isa.h: the vector kernels of bulk rounding, as a template (private).
 *
 * src/round/round_bulk.c includes this file once per instruction set, under
 * `#pragma GCC target(...)` and with ISA(name) naming the functions (name_v4i, name_v4, name_v3,
 * name_base; v4i is x86-64-v4 with AVX-512 IFMA, which only the pcg64 lanes use). The code is
 * integer arithmetic on bit patterns and generic GCC vectors (and intrinsics), so every
 * instantiation computes the same bits; only the speed differs. (A template rather than
 * target_clones or target attributes: GCC lowers generic vector code for the ISA in force where
 * it is *defined*, so the code must be defined inside the target region.)
 *
 * Semantics, shared by all kernels: for an input whose magnitude a (as bits) lies in [lo, hi]
 * (the format's normal range, also a normal input) the grid spacing is 2^s input ulps, and with
 * R = a mod 2^s, f1 = R << (64 - s) (the fraction's first word, exact: no tail) the result is
 * (a - R) + (away << s), `away` being the decision of src/round/decide.h (ISA(lane_decide64),
 * ISA(lane_decide32) on the lanes). If that leaves [lo, hi] or the input is
 * outside it, the element is flagged and the input is written back unchanged; the caller then
 * rounds it with the reference path and the same draw. */
#include "round/lanes_isa.h"

/* ---- pcg32 draws, eight per step (see srl__lanes in round_bulk.c) ---- */

static void ISA(fill_pcg32)(uint64_t *u, size_t k, srl__lanes *ln)
{
    srl__u64x8 ev = ln->ev, od = ln->od;
    const uint64_t a = ln->a16, c = ln->c16;
    for (size_t i = 0; i < k; i += 8) {
        const srl__u64x8 d = ISA(lane_draw)(ev, od);
        if (k - i >= 8)
            memcpy(u + i, &d, sizeof d);
        else
            for (size_t j = 0; j < k - i; j++)
                u[i + j] = d[j];
        ev = ev * a + c;
        od = od * a + c;
    }
    ln->ev = ev;
    ln->od = od;
}

/* ---- pcg64 draws, eight per step ----
 * A chain is eight 128-bit states, lane l's the state that outputs the chain's draw d + l (pcg64
 * outputs the state after its step); a step applies the 16-step map s <- s a + c mod 2^128 of
 * srl__lanes (ah, al, ch, cl), since two chains take turns. srl__lanes keeps each chain as
 * (high, low) word pairs; inside a kernel a chain is an ISA(p64) (ISA(p64_from) at the start,
 * ISA(p64_to) at the end), whose form depends on the instruction set. Integer arithmetic only:
 * every level gives the same bits (tests/round/test_round_isa.c forces each). */
#if SRL_ISA_IFMA_ON
/* The IFMA level: a state as three limbs of 52, 52 and 24 bits (s = s0 + s1 2^52 + s2 2^104), the
 * map's a and c likewise. A step leaves its carries in the limbs' upper bits (s0, s1 above bit
 * 52, s2 above bit 24): the multiply-adds read only the low 52 bits, the carries are already
 * added where they belong, and ISA(p64_words) masks them off, so no step masks. vpmadd52luq / vpmadd52huq add the low / high 52 bits of the 104-bit
 * product of two lanes' low 52 bits to a third; s a mod 2^128 needs the partial products
 * below 2^128, by limb position:
 *     2^0:    lo(s0 a0)
 *     2^52:   hi(s0 a0) + lo(s0 a1) + lo(s1 a0)
 *     2^104:  hi(s0 a1) + hi(s1 a0) + lo(s0 a2) + lo(s1 a1) + lo(s2 a0)   (only mod 2^24 matters)
 * nine multiply-adds, the c limbs as starting sums, then one carry pass (each position's sum is
 * below 2^56, no overflow; at 2^104 only the low 24 bits count, and bits of s2 above 24 reach
 * only those of its products). The 2^104 sum is split in three so the chain of dependent
 * multiply-adds stays short. */
typedef struct ISA(p64) {
    __m512i s0, s1, s2;
} ISA(p64);
typedef struct ISA(p64map) {
    __m512i a0, a1, a2, c0, c1, c2;
} ISA(p64map);
#define SRL__M52 ((UINT64_C(1) << 52) - 1)

SRL_INLINE ISA(p64) ISA(p64_from)(srl__u64x8 h, srl__u64x8 l)
{
    const srl__u64x8 s0 = l & SRL__M52, s1 = ((l >> 52) | (h << 12)) & SRL__M52, s2 = h >> 40;
    ISA(p64) c;
    memcpy(&c.s0, &s0, sizeof s0);
    memcpy(&c.s1, &s1, sizeof s1);
    memcpy(&c.s2, &s2, sizeof s2);
    return c;
}

SRL_INLINE void ISA(p64_words)(ISA(p64) c, __m512i *h, __m512i *l)
{
    /* bit selects (vpternlogq 0xca: mask ? second operand : third) */
    *l = _mm512_ternarylogic_epi64(_mm512_set1_epi64((long long)SRL__M52), c.s0,
                                   _mm512_slli_epi64(c.s1, 52), 0xca);
    *h = _mm512_ternarylogic_epi64(_mm512_set1_epi64((long long)(SRL__M52 >> 12)),
                                   _mm512_srli_epi64(c.s1, 12), _mm512_slli_epi64(c.s2, 40), 0xca);
}

SRL_INLINE void ISA(p64_to)(ISA(p64) c, srl__u64x8 *h, srl__u64x8 *l)
{
    __m512i hw, lw;
    ISA(p64_words)(c, &hw, &lw);
    memcpy(h, &hw, sizeof *h);
    memcpy(l, &lw, sizeof *l);
}

SRL_INLINE ISA(p64map) ISA(p64_map)(const srl__lanes *ln)
{
    ISA(p64map) m;
    m.a0 = _mm512_set1_epi64((long long)(ln->al & SRL__M52));
    m.a1 = _mm512_set1_epi64((long long)(((ln->al >> 52) | (ln->ah << 12)) & SRL__M52));
    m.a2 = _mm512_set1_epi64((long long)(ln->ah >> 40));
    m.c0 = _mm512_set1_epi64((long long)(ln->cl & SRL__M52));
    m.c1 = _mm512_set1_epi64((long long)(((ln->cl >> 52) | (ln->ch << 12)) & SRL__M52));
    m.c2 = _mm512_set1_epi64((long long)(ln->ch >> 40));
    return m;
}

SRL_INLINE ISA(p64) ISA(p64_step)(ISA(p64) c, const ISA(p64map) *m)
{
    const __m512i z = _mm512_setzero_si512();
    const __m512i t0 = _mm512_madd52lo_epu64(m->c0, c.s0, m->a0);
    __m512i t1 = _mm512_madd52hi_epu64(m->c1, c.s0, m->a0);
    const __m512i t1b = _mm512_madd52lo_epu64(z, c.s1, m->a0);
    t1 = _mm512_madd52lo_epu64(t1, c.s0, m->a1);
    __m512i t2 = _mm512_madd52hi_epu64(m->c2, c.s0, m->a1);
    __m512i t2b = _mm512_madd52hi_epu64(z, c.s1, m->a0);
    const __m512i t2c = _mm512_madd52lo_epu64(z, c.s2, m->a0);
    t2 = _mm512_madd52lo_epu64(t2, c.s0, m->a2);
    t2b = _mm512_madd52lo_epu64(t2b, c.s1, m->a1);
    t1 = _mm512_add_epi64(t1, _mm512_add_epi64(t1b, _mm512_srli_epi64(t0, 52)));
    t2 = _mm512_add_epi64(_mm512_add_epi64(t2, t2b),
                          _mm512_add_epi64(t2c, _mm512_srli_epi64(t1, 52)));
    c.s0 = t0;
    c.s1 = t1;
    c.s2 = t2;
    return c;
}

/* Eight draws (XSL-RR: the words' xor rotated right by the high word's top six bits). */
SRL_INLINE srl__u64x8 ISA(p64_out)(ISA(p64) c)
{
    __m512i h, l;
    ISA(p64_words)(c, &h, &l);
    const __m512i d = _mm512_rorv_epi64(_mm512_xor_si512(h, l), _mm512_srli_epi64(h, 58));
    srl__u64x8 out;
    memcpy(&out, &d, sizeof out);
    return out;
}
#undef SRL__M52
#else
/* Other levels: (high, low) words in 64-bit lanes. There is no vector 128-bit multiply, so
 * s a + c mod 2^128 is assembled from 64-bit products: the low word s_l a_l (mod 2^64), the high
 * word mulhi(s_l, a_l) + s_l a_h + s_h a_l + c_h + carry, mulhi from four 32 x 32 -> 64
 * products (MUL32: the products of the lanes' low 32 bits, one vpmuludq per register). The step
 * is written once, for a vector type V; x86-64-v3 holds each chain as two halves of four lanes
 * (AVX2 registers, see vec_d2d_h), the other levels as eight. */
#define SRL_P64_STEP(V, MUL32, LT, H, L, AH, AL, CH, CL)                                           \
    do {                                                                                          \
        const V x_ = (L), m32_ = (x_ & 0) + 0xffffffffu;                                          \
        const V x1_ = x_ >> 32, y1_ = (AL) >> 32;                                                 \
        const V p00_ = MUL32(x_, AL), p01_ = MUL32(x_, y1_), p10_ = MUL32(x1_, AL),               \
                p11_ = MUL32(x1_, y1_);                                                           \
        const V mid_ = (p00_ >> 32) + (p01_ & m32_) + (p10_ & m32_);                              \
        const V hi_ = p11_ + (p01_ >> 32) + (p10_ >> 32) + (mid_ >> 32);                          \
        const V pl_ = (p00_ & m32_) | (mid_ << 32), nl_ = pl_ + (CL);                             \
        const V carry_ = LT(nl_, pl_) & 1;                                                        \
        (H) = hi_ + x_ * (AH) + (H) * (AL) + (CH) + carry_;                                       \
        (L) = nl_;                                                                                \
    } while (0)
/* XSL-RR on (high, low) words: their xor rotated right by the high word's top six bits. */
#define SRL_P64_OUT(H, L) ((((H) ^ (L)) >> ((H) >> 58)) | (((H) ^ (L)) << ((0 - ((H) >> 58)) & 63)))

#if SRL_ISA_LEVEL == 1
typedef struct ISA(p64) {
    srl__u64x4 h[2], l[2]; /* lanes 0-3, 4-7 */
} ISA(p64);
typedef struct ISA(p64map) {
    srl__u64x4 ah, al, ch, cl;
} ISA(p64map);

SRL_INLINE ISA(p64) ISA(p64_from)(srl__u64x8 h, srl__u64x8 l)
{
    ISA(p64) c;
    memcpy(c.h, &h, sizeof h);
    memcpy(c.l, &l, sizeof l);
    return c;
}

SRL_INLINE void ISA(p64_to)(ISA(p64) c, srl__u64x8 *h, srl__u64x8 *l)
{
    memcpy(h, c.h, sizeof *h);
    memcpy(l, c.l, sizeof *l);
}

SRL_INLINE ISA(p64map) ISA(p64_map)(const srl__lanes *ln)
{
    const srl__u64x4 zero = {0};
    return (ISA(p64map)){zero + ln->ah, zero + ln->al, zero + ln->ch, zero + ln->cl};
}

SRL_INLINE srl__u64x4 ISA(mul32x4)(srl__u64x4 x, srl__u64x4 y)
{
    __m256i a, b;
    memcpy(&a, &x, sizeof a);
    memcpy(&b, &y, sizeof b);
    a = _mm256_mul_epu32(a, b);
    memcpy(&x, &a, sizeof x);
    return x;
}
SRL_INLINE srl__u64x4 ISA(lt64x4)(srl__u64x4 a, srl__u64x4 b)
{
    return (srl__u64x4)(a < b);
}

SRL_INLINE ISA(p64) ISA(p64_step)(ISA(p64) c, const ISA(p64map) *m)
{
    for (int q = 0; q < 2; q++)
        SRL_P64_STEP(srl__u64x4, ISA(mul32x4), ISA(lt64x4), c.h[q], c.l[q], m->ah, m->al, m->ch,
                     m->cl);
    return c;
}

/* Four draws, lanes 4q .. 4q + 3. */
SRL_INLINE srl__u64x4 ISA(p64_out4)(ISA(p64) c, int q)
{
    return SRL_P64_OUT(c.h[q], c.l[q]);
}

SRL_INLINE srl__u64x8 ISA(p64_out)(ISA(p64) c)
{
    const srl__u64x4 d[2] = {ISA(p64_out4)(c, 0), ISA(p64_out4)(c, 1)};
    srl__u64x8 out;
    memcpy(&out, d, sizeof out);
    return out;
}
#else
typedef struct ISA(p64) {
    srl__u64x8 h, l;
} ISA(p64);
typedef struct ISA(p64map) {
    srl__u64x8 ah, al, ch, cl;
} ISA(p64map);

SRL_INLINE ISA(p64) ISA(p64_from)(srl__u64x8 h, srl__u64x8 l)
{
    return (ISA(p64)){h, l};
}

SRL_INLINE void ISA(p64_to)(ISA(p64) c, srl__u64x8 *h, srl__u64x8 *l)
{
    *h = c.h;
    *l = c.l;
}

SRL_INLINE ISA(p64map) ISA(p64_map)(const srl__lanes *ln)
{
    const srl__u64x8 zero = ln->sh & 0;
    return (ISA(p64map)){zero + ln->ah, zero + ln->al, zero + ln->ch, zero + ln->cl};
}

/* The products of the low 32 bits of x's and y's lanes, 64 bits each (one vpmuludq: GCC 12 makes
 * a 64-bit multiply of the masked operands). */
SRL_INLINE srl__u64x8 ISA(lane_mul32)(srl__u64x8 x, srl__u64x8 y)
{
#if SRL_ISA_LEVEL >= 2
    __m512i a, b;
    memcpy(&a, &x, sizeof a);
    memcpy(&b, &y, sizeof b);
    const __m512i p = _mm512_mul_epu32(a, b);
    memcpy(&x, &p, sizeof x);
    return x;
#else
    const srl__u64x8 m32 = (x & 0) + 0xffffffffu;
    return (x & m32) * (y & m32);
#endif
}

SRL_INLINE ISA(p64) ISA(p64_step)(ISA(p64) c, const ISA(p64map) *m)
{
    SRL_P64_STEP(srl__u64x8, ISA(lane_mul32), ISA(lane_lt64), c.h, c.l, m->ah, m->al, m->ch,
                 m->cl);
    return c;
}

/* Eight draws. */
SRL_INLINE srl__u64x8 ISA(p64_out)(ISA(p64) c)
{
    return SRL_P64_OUT(c.h, c.l);
}
#endif
#undef SRL_P64_STEP
#undef SRL_P64_OUT
#endif

static void ISA(fill_pcg64)(uint64_t *u, size_t k, srl__lanes *ln)
{
    ISA(p64) c1 = ISA(p64_from)(ln->sh, ln->sl), c2 = ISA(p64_from)(ln->sh2, ln->sl2);
    const ISA(p64map) map = ISA(p64_map)(ln);
    for (size_t i = 0; i < k; i += 16) {
        const srl__u64x8 d[2] = {ISA(p64_out)(c1), ISA(p64_out)(c2)};
        if (k - i >= 16)
            memcpy(u + i, d, sizeof d);
        else
            for (size_t j = 0; j < k - i; j++)
                u[i + j] = d[j / 8][j % 8];
        c1 = ISA(p64_step)(c1, &map);
        c2 = ISA(p64_step)(c2, &map);
    }
    ISA(p64_to)(c1, &ln->sh, &ln->sl);
    ISA(p64_to)(c2, &ln->sh2, &ln->sl2);
}

/* ---- the format's subnormal range on lanes ----
 * Below xmin the grid is uniform, spacing q = 2^eq (eq = emin - p + 1). An input magnitude a
 * (bits: biased exponent e, m fraction bits) has units of 2^(max(e,1) - bias - m), so there the
 * grid spacing is 2^sv units, sv = (eq + bias + m) - max(e, 1) (sub_c = eq + bias + m; in the
 * format's normal range it is 2^s, and sv = sub_c - min(max(e, 1), C) gives both, C being the
 * biased exponent of xmin, sub_c - s). lane_sub rounds a on the grid of 2^sv units, sv given
 * per lane, in the general form of decide.h's rounding (R = a mod 2^sv, f1 = R 2^(W - sv):
 * exact, nothing further; the result (a - R) + (away << sv), `away` the decision of decide.h).
 *   sv <= m: a - R keeps the exponent field, and the carry of (a - R) + 2^sv into it is the
 *     step to the next binade (to xmin from its last subnormal; for an input subnormal, e = 0,
 *     whose units are those of e = 1, to the input's smallest normal): exact;
 *   m < sv < W (a below q: q a normal input number, the caller's qbits its bits): with the
 *     significand M (hidden bit included where e >= 1; an input subnormal or zero, e = 0, has
 *     none) T = 0, R = M, and the result is 0 or q (0 for zero, exact in every mode);
 *   sv >= W (zero and values far below the grid when q is normal, an input subnormal then):
 *     *bad (all ones) for the reference path. (The block-scaled path, srlab/mx.h, relies on it:
 *     a scaled value that underflowed to zero must reach the reference path.)
 * Integer arithmetic only. (A floating-point product N * q would be exact too, but a subnormal
 * product costs a microcode assist of a hundred cycles or more, and GCC may compute this block
 * for every group: that made bf16 rounding of binary32 arrays ten times slower.) The caller
 * takes this only where xmin is a normal input number and the format has subnormals: either q
 * is normal in the input, or xmin is the input's smallest normal (then sv <= m for every input
 * below xmin, the format's subnormals being the input's). */
#define SRL_DEFINE_SUB(NAME, V, W, MBITS, DECIDE, LT, EQ)                                         \
    SRL_INLINE V ISA(NAME)(V a, V sv, V neg, V u, srl_mode mode, int r, int ub, V qbits, V *bad,  \
                           V *undecided)                                                          \
    {                                                                                             \
        const V zero = a & 0, one = zero + 1, implicit = one << (MBITS);                          \
        const V big = ISA(LT)(zero + (MBITS), sv);                                                \
        /* sv >= m and e >= 1: T's last bit is M's (an input subnormal or zero, e = 0, has no  \
           hidden bit: its A is a, below 2^m) */                                                 \
        const V sig = ISA(LT)(zero + ((MBITS) - 1), sv) & ~ISA(EQ)(a >> (MBITS), zero);         \
        *bad = ISA(LT)(zero + ((W) - 1), sv);                                                    \
        const V svc = sv & ((W) - 1);                                                             \
        /* A: a, or for sv >= m its significand M (a's fraction and the hidden bit, e >= 1), */  \
        /* which has the same bits below m */                                                     \
        const V A = (a | (implicit & sig)) & (~sig | (implicit | (implicit - one)));              \
        const V R = A & ((one << svc) - one), f1 = R << (((W) - svc) & ((W) - 1));                \
        const V away = ISA(DECIDE)(mode, r, f1, f1, zero, (A >> svc) & one, neg, u, ub,           \
                                   undecided);                                                    \
        const V near = (a - R) + (away << svc);                                                   \
        return (near & ~big) | (qbits & (zero - away) & big);                                     \
    }

SRL_DEFINE_SUB(lane_sub64, srl__u64x8, 64, 52, lane_decide64, lane_lt64, lane_eq64)
SRL_DEFINE_SUB(lane_sub32, srl__u32x16, 32, 23, lane_decide32, lane_lt32, lane_eq32)
#if SRL_ISA_LEVEL == 1
/* x86-64-v3: the binary32 kernel also in eight 32-bit lanes, one AVX2 register (vec_f2f_h) */
#define SRL_DECIDE_FN ISA(lane_decide32x8)
#define SRL_DECIDE_ROUND_FN ISA(lane_round32x8)
#define SRL_DECIDE_V srl__u32x8
#define SRL_DECIDE_W 32
#include "round/decide.h"
SRL_INLINE srl__u32x8 ISA(lane_lt32x8)(srl__u32x8 a, srl__u32x8 b)
{
    return (srl__u32x8)(a < b);
}
SRL_INLINE srl__u32x8 ISA(lane_eq32x8)(srl__u32x8 a, srl__u32x8 b)
{
    return (srl__u32x8)(a == b);
}
SRL_DEFINE_SUB(lane_sub32x8, srl__u32x8, 32, 23, lane_decide32x8, lane_lt32x8, lane_eq32x8)
/* ... and the binary64 kernel in four 64-bit lanes (vec_d2d_h) */
#define SRL_DECIDE_FN ISA(lane_decide64x4)
#define SRL_DECIDE_ROUND_FN ISA(lane_round64x4)
#define SRL_DECIDE_V srl__u64x4
#define SRL_DECIDE_W 64
#include "round/decide.h"
SRL_INLINE srl__u64x4 ISA(lane_lt64x4)(srl__u64x4 a, srl__u64x4 b)
{
    return (srl__u64x4)(a < b);
}
SRL_INLINE srl__u64x4 ISA(lane_eq64x4)(srl__u64x4 a, srl__u64x4 b)
{
    return (srl__u64x4)(a == b);
}
SRL_DEFINE_SUB(lane_sub64x4, srl__u64x4, 64, 52, lane_decide64x4, lane_lt64x4, lane_eq64x4)

SRL_INLINE int ISA(any256)(const void *v)
{
    __m256i w;
    memcpy(&w, v, sizeof w);
    return !_mm256_testz_si256(w, w);
}

/* Eight pcg32 outputs of eight states (two halves of four), in 32-bit lanes. */
SRL_INLINE srl__u32x8 ISA(pcg32_out8)(srl__u64x4 s0, srl__u64x4 s1)
{
    const srl__u32x8 a = (srl__u32x8)ISA(lane_pcg32_out4)(s0),
                     b = (srl__u32x8)ISA(lane_pcg32_out4)(s1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#else
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#endif
}

/* The high halves of eight 64-bit draws, in 32-bit lanes. */
SRL_INLINE srl__u32x8 ISA(high8)(srl__u64x4 d0, srl__u64x4 d1)
{
    const srl__u32x8 a = (srl__u32x8)d0, b = (srl__u32x8)d1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#else
    return __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#endif
}

/* Four full 64-bit draws of four states (the states of their first outputs). */
SRL_INLINE srl__u64x4 ISA(pcg32_draw4)(srl__u64x4 st, uint64_t mult, uint64_t inc)
{
    return ISA(lane_draw4)(st, st * mult + inc);
}
#endif
#undef SRL_DEFINE_SUB

/* ---- the vector path for binary64 input (all modes), binary64 or binary32 output ----
 * Eight elements per step. Draws come from the pcg32 lanes (`src` 1) or the pcg64 lanes (`src`
 * 2), generated in registers (and written to u only where the reference path needs them), or
 * not at all (`src` 0, deterministic modes). The results go to y (binary64), or, with y NULL
 * and yf given, to yf converted to binary32 (srl_round_array_d2f: the format fits binary32, so
 * every result of the lanes converts exactly; a flagged lane's conversion is overwritten by the
 * reference path). With `nt` the results are written with streaming stores (y or yf must then
 * be 64-byte aligned): for arrays far larger than the caches this avoids reading y's lines before
 * overwriting them. Every
 * scalar is broadcast first, and only ==, < are used: GCC 12 scalarises vector-with-scalar
 * comparisons and vector <=. */

/* The body of a tile function: every (mode, draw source) pair gets its own loop, through
 * SRL_VEC(MODE, R, SRC) and SRL_VEC_STO(MODE, R) as the tile function defines them; a mode
 * without a loop of its own sends every element to the reference path, with its draws in u
 * (src, u, k, ln, flag: the tile function's). */
#define SRL_TILE_SWITCH(RBITS)                                                                    \
    switch (m.mode) {                                                                             \
    case SRL_RN: return SRL_VEC(SRL_RN, 0, 0);                                                    \
    case SRL_RNA: return SRL_VEC(SRL_RNA, 0, 0);                                                  \
    case SRL_RZ: return SRL_VEC(SRL_RZ, 0, 0);                                                    \
    case SRL_RU: return SRL_VEC(SRL_RU, 0, 0);                                                    \
    case SRL_RD: return SRL_VEC(SRL_RD, 0, 0);                                                    \
    case SRL_RO: return SRL_VEC(SRL_RO, 0, 0);                                                    \
    case SRL_SR: return SRL_VEC_STO(SRL_SR, 0);                                                   \
    case SRL_SR_EQ: return SRL_VEC_STO(SRL_SR_EQ, 0);                                             \
    case SRL_SR_BITS: return SRL_VEC_STO(SRL_SR_BITS, RBITS);                                     \
    default:                                                                                      \
        if (src == 1)                                                                             \
            ISA(fill_pcg32)(u, k, ln);                                                            \
        else if (src == 2)                                                                        \
            ISA(fill_pcg64)(u, k, ln);                                                            \
        memset(flag, 1, k);                                                                       \
        return 1;                                                                                 \
    }

/* In a vector kernel: the elements i.. of a partial last group go to the reference path
 * (written back unchanged, flagged); the flags of a tile from the lanes' masks. */
#define SRL_TAIL_TO_REFERENCE(Y)                                                                  \
    do {                                                                                          \
        for (size_t l = 0; i + l < k; l++) {                                                      \
            if (Y)                                                                                \
                (Y)[i + l] = x[i + l];                                                            \
            nok_buf[i + l] = 1;                                                                   \
        }                                                                                         \
        bad = 1;                                                                                  \
    } while (0)
#define SRL_FLAGS_FROM_NOK()                                                                      \
    for (size_t j = 0; j < k; j++)                                                                \
    flag[j] = (unsigned char)(nok_buf[j] & 1u)
/* The 512-bit kernels store their groups' flags lazily (a store per group costs a tenth of a
 * short loop): nothing until the tile's first flagged group or partial tail, group I, which
 * zeroes the flags before it and sets nok_set; every group from there on stores its flags. */
#define SRL_NOK_FIRST(I)                                                                          \
    do {                                                                                          \
        if (!nok_set) {                                                                           \
            memset(nok_buf, 0, (I) * sizeof *nok_buf);                                            \
            nok_set = 1;                                                                          \
        }                                                                                         \
    } while (0)

/* ---- one group of lanes: the rule every vector kernel below applies ----
 * b: the inputs' bits, ud: their draws' first W bits, of which the top ub are valid (decide.h:
 * lanes these cannot decide are or-ed into *undecided, the others are decided; with ub = W every
 * lane is, the fraction being a's low bits). The magnitude is rounded on the grid of
 * 2^s input units (lane_round), the format's subnormal range on its lanes when the format has
 * them there (lane_sub); a lane outside the range, or one the subnormal computation cannot take,
 * gets *nok (all ones) and keeps its input bits for the reference path. ISA(NAME_consts) makes
 * the broadcast constants once per tile.
 * PAT (a constant; srl__vparams.pat): the format has the input format's exponent range,
 * subnormals, infinities and no saturation (bf16 and tf32 of binary32). Then the grid rule holds
 * for every finite input: the format's subnormals are the input's own with their low s bits
 * clear, so a subnormal or zero input rounds on the same grid of 2^s units; and a rounding past
 * xmax carries into the exponent field to exactly the infinity's bits, which is the overflow
 * rule of every mode that rounds past xmax (rn, rna, ru/rd away from zero, the stochastic ones;
 * rz, ro and the directed modes toward zero never round past xmax, since xmax's significand is
 * all ones). An infinity is exact and stays. A NaN gives the canonical quiet NaN, as the
 * reference path does (srl__round_special; test_round_isa has NaNs of either sign and of random
 * payloads), so no lane goes to the reference path, and there is no range check, subnormal
 * block or flag: a loop of a dozen instructions (BENCHMARKS.md). */
#define SRL_DEFINE_GROUP(NAME, V, ET, W, MBITS, ROUND, LT, EQ, SUB, ANY, PAT)                     \
    typedef struct ISA(NAME##_k) {                                                                \
        V lo, span, hi, sub_c, qbits, inf, qnan;                                                  \
        int s, sub;                                                                               \
    } ISA(NAME##_k);                                                                              \
    SRL_INLINE ISA(NAME##_k) ISA(NAME##_consts)(const srl__vparams *vp)                           \
    {                                                                                             \
        const V zero = {0};                                                                       \
        return (ISA(NAME##_k)){zero + (ET)vp->lo,    zero + (ET)(vp->hi - vp->lo),                \
                               zero + (ET)vp->hi,    zero + (ET)vp->sub_c,                        \
                               zero + (ET)vp->qbits, zero + (ET)vp->inf,                          \
                               zero + (ET)vp->qnan,  vp->s,                                       \
                               vp->sub};                                                          \
    }                                                                                             \
    SRL_INLINE V ISA(NAME)(V b, V ud, int ub, srl_mode mode, int r, const ISA(NAME##_k) *g,       \
                           V *nok_out, V *undecided)                                              \
    {                                                                                             \
        const V zero = b & 0, one = zero + 1, sign_b = one << ((W) - 1);                          \
        const V a = b & ~sign_b;                                                                  \
        if (SRL__MUT(DRAW_HALF)) { /* defect draw-half: lane l takes lane l - l mod 2's draw */  \
            ET w_[sizeof(V) / sizeof(ET)];                                                        \
            memcpy(w_, &ud, sizeof w_);                                                           \
            for (size_t l_ = 1; l_ < sizeof w_ / sizeof w_[0]; l_ += 2)                           \
                w_[l_] = w_[l_ - 1];                                                              \
            memcpy(&ud, w_, sizeof w_);                                                           \
        }                                                                                         \
        V res = ISA(ROUND)(a, g->s, mode, r, b >> ((W) - 1), ud, ub, undecided);                  \
        if (PAT) {                                                                                \
            const V nan = ISA(LT)(g->inf, a);                                                     \
            *nok_out = zero;                                                                      \
            if (SRL__MUT(BF16_FTZ) && g->s == 16) /* defect bf16-ftz: exponent field 0 -> 0 */   \
                res &= ~ISA(LT)(res, zero + ((ET)1 << 23));                                       \
            return ((res | (b & sign_b)) & ~nan) | (g->qnan & nan);                               \
        }                                                                                         \
        const V out = ISA(LT)(g->span, a - g->lo); /* outside [lo, hi] (a below lo wraps) */     \
        V nok = out | ISA(LT)(g->hi, res);                                                        \
        if (g->sub && ISA(ANY)(out)) { /* the format's subnormal range, on the lanes too (a lane \
                                          below lo is an outside one: one test per group, on a \
                                          mask known as soon as the input is) */               \
            const V below = ISA(LT)(a, g->lo);                                                    \
            const V e = a >> (MBITS), sv = g->sub_c - (e | (ISA(EQ)(e, zero) & one));             \
            V sbad;                                                                               \
            const V sres = ISA(SUB)(a, sv, b >> ((W) - 1), ud, mode, r, ub, g->qbits, &sbad,      \
                                    undecided);                                                   \
            res = (sres & below) | (res & ~below);                                                \
            nok = (sbad & below) | (nok & ~below);                                                \
        }                                                                                         \
        *nok_out = nok;                                                                           \
        return ((res | (b & sign_b)) & ~nok) | (b & nok);                                         \
    }

SRL_INLINE int ISA(lane_any32)(srl__u32x16 v)
{
    return ISA(lane_any)((srl__u64x8)v);
}
SRL_DEFINE_GROUP(group64, srl__u64x8, uint64_t, 64, 52, lane_round64, lane_lt64, lane_eq64, lane_sub64, lane_any,
                 0)
SRL_DEFINE_GROUP(group32, srl__u32x16, uint32_t, 32, 23, lane_round32, lane_lt32, lane_eq32, lane_sub32,
                 lane_any32, 0)
SRL_DEFINE_GROUP(group32p, srl__u32x16, uint32_t, 32, 23, lane_round32, lane_lt32, lane_eq32, lane_sub32,
                 lane_any32, 1)
#if SRL_ISA_LEVEL == 1
SRL_INLINE int ISA(any64x4)(srl__u64x4 v)
{
    return ISA(any256)(&v);
}
SRL_INLINE int ISA(any32x8)(srl__u32x8 v)
{
    return ISA(any256)(&v);
}
SRL_DEFINE_GROUP(group64x4, srl__u64x4, uint64_t, 64, 52, lane_round64x4, lane_lt64x4, lane_eq64x4, lane_sub64x4,
                 any64x4, 0)
SRL_DEFINE_GROUP(group32x8, srl__u32x8, uint32_t, 32, 23, lane_round32x8, lane_lt32x8, lane_eq32x8, lane_sub32x8,
                 any32x8, 0)
SRL_DEFINE_GROUP(group32x8p, srl__u32x8, uint32_t, 32, 23, lane_round32x8, lane_lt32x8, lane_eq32x8, lane_sub32x8,
                 any32x8, 1)
#endif
#undef SRL_DEFINE_GROUP

#if defined(__x86_64__)
/* Stream 32 bytes from v to p (32-byte aligned). */
SRL_INLINE void ISA(stream32)(void *p, const void *v)
{
#if SRL_ISA_LEVEL >= 1
    __m256i w;
    memcpy(&w, v, sizeof w);
    _mm256_stream_si256((__m256i *)p, w);
#else
    for (int q = 0; q < 2; q++) {
        __m128i w;
        memcpy(&w, (const char *)v + 16 * q, sizeof w);
        _mm_stream_si128((__m128i *)(void *)((char *)p + 16 * q), w);
    }
#endif
}
#endif

/* Store 64 bytes; streaming when nt (p 64-byte aligned). */
SRL_INLINE void ISA(store64)(void *p, srl__u64x8 v, int nt)
{
#if defined(__x86_64__)
    if (nt) {
#if SRL_ISA_LEVEL >= 2
        __m512i w;
        memcpy(&w, &v, sizeof w);
        _mm512_stream_si512((__m512i *)(void *)p, w);
#else
        ISA(stream32)(p, &v);
        ISA(stream32)((char *)p + 32, (const char *)&v + 32);
#endif
        return;
    }
#else
    (void)nt;
#endif
    memcpy(p, &v, sizeof v);
}

/* Store eight binary32 values (32 bytes); streaming when nt (p 32-byte aligned: two of these
 * fill a line, one after the other, so the line leaves the write-combining buffer whole). */
SRL_INLINE void ISA(store32f)(float *p, srl__f32x8 v, int nt)
{
#if defined(__x86_64__)
    if (nt) {
        ISA(stream32)(p, &v);
        return;
    }
#else
    (void)nt;
#endif
    memcpy(p, &v, sizeof v);
}

#if SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS)
/* ---- x86-64-v4: groups rounded by the hardware (rn, rz, ru, rd) ----
 * In the IEEE modes m (rn, rz, ru, rd) a group whose lanes all lie in the format's range takes
 * one floating-point addition rounded in m and one exact subtraction, in AVX-512's embedded
 * rounding (the mode is the instruction's: MXCSR is neither read nor changed, no exception flag
 * is raised), about half the instructions of the integer rule:
 *     y = (x + c) - c,   c = copysign(2^(P-1) u, x),
 * P the input's precision (24, 53), u the format's spacing at x: 2^(e-p+1) in its binade
 * [2^e, 2^(e+1)) of the normal range, q = 2^(emin-p+1) below xmin (its subnormal range, zero
 * included). Proof. The input numbers in [c, 2c] are the multiples of u there (their spacing is
 * 2^(1-P) c = u). |x| < c: in the normal range |x| < 2^(e+1) <= 2^(e+P-p) = c as p <= P - 1
 * (s = P - p >= 1 on every vector path); below xmin, |x| < xmin = 2^(p-1) q <= c. So
 * |x| + c lies in [c, 2c), where rounding in m to the input's grid is rounding to the multiples
 * of u: the sum rounds to c + r, r being |x| rounded in m to a multiple of u (with x's sign, the
 * negative sum, for ru and rd), which is the format's rounding of x (its numbers around x are
 * the multiples of u, up to 2^(e+1)). Ties go to even alike: c / u = 2^(P-1) is even, so
 * c + k u has k's parity in its last bit. r is a format number, so an input number, and
 * (c + r) - c = r exactly, whatever the subtraction's mode; an r of zero comes out +0 (in rz)
 * and x's sign is or-ed back, as the reference path's zero keeps it. The result never exceeds
 * xmax for |x| <= xmax (xmax is a multiple of its u; rounding is monotonic), so the range test
 * is on the input: a lane above xmax (overflow, infinities, NaNs) sends the group to the
 * integer rule (and so to the reference path), as does one of the input's own subnormals
 * (under DAZ, an MXCSR flag that embedded rounding does not override, the sum would see zero),
 * and, when q is not a normal input number or the format has no subnormals, one in (0, lo).
 * No other operand or result is subnormal: r is 0 or at least q, c at least 2^(P-1) q.
 * c's bits: in the normal range, x's exponent field plus s (c = 2^(e+s)); below xmin,
 * q's bits plus P - 1 in the exponent field (cq); the larger of the two as integers (positive
 * floats order as their bits) is cq exactly below xmin (e < emin) and the former from xmin up
 * (equal in xmin's binade); for zero it is cq (or, without cq, 2^(s - bias), a normal number:
 * 0 + c - c = 0 too). The largest c, 2^(emax+s), must be finite: ISA(hwN_consts) checks it.
 * Not in a build with the defects (src/core/mutant.h): they live in lane_round, bypassed. */
#define SRL_DEFINE_HW(NAME, W, MBITS, ET, FT, SET1, AND, ANDNOT, ADD, SUB, SRL, MAX, CMPLE,     \
                      CMPGT, MCMPGE, TERN, CASTF, CASTI, ADDR, SUBR, MASKT, ALL)                  \
    typedef struct ISA(NAME##_k) {                                                                \
        __m512i emask, cs, csub, hi, low, one, mask, half, lo, span;                              \
        __m128i s;                                                                                \
    } ISA(NAME##_k);                                                                              \
    /* the constants of a tile; which groups can take mode m and this format: SRL_HW_ADD (the      \
       addition), SRL_HW_INT (the integer rule, for rz), neither (0) */                      \
    SRL_INLINE int ISA(NAME##_consts)(ISA(NAME##_k) *k, const srl__vparams *vp, srl_mode m)      \
    {                                                                                             \
        const uint64_t emax_field = (UINT64_C(1) << ((W) - 1 - (MBITS))) - 2;                     \
        if (vp->s < 1)                                                                            \
            return 0;                                                                             \
        k->hi = SET1((ET)vp->hi);                                                                 \
        k->mask = SET1((ET)((UINT64_C(1) << vp->s) - 1));                                         \
        k->half = SET1((ET)((UINT64_C(1) << vp->s >> 1) - 1));                                    \
        k->lo = SET1((ET)vp->lo);                                                                 \
        k->span = SET1((ET)(vp->hi - vp->lo));                                                    \
        k->s = _mm_cvtsi32_si128(vp->s);                                                          \
        /* the integer rule first for rz only where groups rarely leave its range: formats whose \
           normal range reaches 2^-14 (bf16, tf32, fp16, e5m2); e4m3's starts at 2^-6, below   \
           which 1.2% of standard-normal values lie, sending 18% of the groups to the addition \
           after it (e4m3 rz of binary32 ran at 0.53x memcpy, rn at 1.3x) */                   \
        const int in = m == SRL_RZ && (vp->lo >> (MBITS)) + 14 <= (emax_field + 1) / 2         \
                           ? SRL_HW_INT                                                           \
                           : 0;                                                                   \
        if (!(m == SRL_RN || m == SRL_RZ || m == SRL_RU || m == SRL_RD) ||                        \
            (vp->hi >> (MBITS)) + (uint64_t)vp->s > emax_field)                                   \
            return in;                                                                            \
        const uint64_t cq = vp->qbits + ((uint64_t)(MBITS) << (MBITS));                           \
        const int sub = vp->sub && vp->qbits != 0 && (cq >> (MBITS)) <= emax_field;               \
        k->emask = SET1((ET)((emax_field + 1) << (MBITS)));                                       \
        k->cs = SET1((ET)((uint64_t)vp->s << (MBITS)));                                           \
        k->csub = SET1((ET)(sub ? cq : 0));                                                       \
        k->one = SET1((ET)(vp->zero_ref ? 0 : 1));                                                \
        k->low = SET1((ET)((sub ? UINT64_C(1) << (MBITS) : vp->lo) - (vp->zero_ref ? 0 : 1)));    \
        return in | SRL_HW_ADD;                                                                       \
    }                                                                                             \
    /* the addition: a group's results into *out; 0 if a lane is outside its range (*out is    \
       then not the result) */                                                                    \
    SRL_INLINE int ISA(NAME)(__m512i *out, __m512i b, srl_mode m, const ISA(NAME##_k) *k)        \
    {                                                                                             \
        const __m512i sign = SET1((ET)(UINT64_C(1) << ((W) - 1)));                                \
        const __m512i a = ANDNOT(sign, b);                                                        \
        /* a <= hi, and a - one >= low - one, low the least nonzero magnitude taken (one = 1:  \
           a = 0 wraps round and is taken; one = 0, vp->zero_ref: it is not) */                  \
        const MASKT ok = MCMPGE(CMPLE(a, k->hi), SUB(a, k->one), k->low);                         \
        /* c | (b & sign) */                                                                      \
        const __m512i c = TERN(MAX(ADD(AND(a, k->emask), k->cs), k->csub), b, sign, 0xf8);       \
        const FT xf_ = CASTF(b), cf_ = CASTF(c);                                                  \
        const FT t = m == SRL_RN   ? ADDR(xf_, cf_, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) \
                     : m == SRL_RZ ? ADDR(xf_, cf_, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)     \
                     : m == SRL_RU ? ADDR(xf_, cf_, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)  \
                                   : ADDR(xf_, cf_, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); \
        const __m512i r = CASTI(SUBR(t, cf_, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));          \
        *out = TERN(r, b, sign, 0xf8); /* r | (b & sign) */                                       \
        return ok == (ALL);                                                                       \
    }                                                                                             \
    /* rn or rz of a group whose lanes all lie in [lo, hi] and stay there: lane_round's rule   \
       (decide.h's carry form for rn: (a + 2^(s-1) - 1 + T's last bit) with the low s bits     \
       cleared) and group's range test, the masks in mask registers; taken for rz, where it is  \
       a few instructions fewer than the addition (a group it cannot take tries the addition   \
       next: 6% slower than this alone in the caches, on binary64, where that was the first    \
       tier for rn too it made rn 11% slower than the addition alone); 0 if a lane is not */  \
    SRL_INLINE int ISA(NAME##_int)(__m512i *out, __m512i b, srl_mode m, const ISA(NAME##_k) *k)  \
    {                                                                                             \
        const __m512i one = SET1(1), sign = SET1((ET)(UINT64_C(1) << ((W) - 1)));                 \
        const __m512i a = ANDNOT(sign, b);                                                        \
        const __m512i res =                                                                       \
            m == SRL_RZ ? ANDNOT(k->mask, a)                                                      \
                        : ANDNOT(k->mask, ADD(ADD(a, k->half), AND(SRL(a, k->s), one)));          \
        const MASKT kn = CMPGT(SUB(a, k->lo), k->span) | CMPGT(res, k->hi);                       \
        *out = TERN(res, b, sign, 0xf8); /* res | (b & sign) */                                   \
        return kn == 0;                                                                           \
    }
#define SRL_HW_INT 1
#define SRL_HW_ADD 2
SRL_DEFINE_HW(hw32, 32, 23, int, __m512, _mm512_set1_epi32, _mm512_and_si512, _mm512_andnot_si512,
              _mm512_add_epi32, _mm512_sub_epi32, _mm512_srl_epi32, _mm512_max_epu32,
              _mm512_cmple_epu32_mask, _mm512_cmpgt_epu32_mask, _mm512_mask_cmpge_epu32_mask,
              _mm512_ternarylogic_epi32, _mm512_castsi512_ps, _mm512_castps_si512,
              _mm512_add_round_ps, _mm512_sub_round_ps, __mmask16, 0xffff)
SRL_DEFINE_HW(hw64, 64, 52, long long, __m512d, _mm512_set1_epi64, _mm512_and_si512,
              _mm512_andnot_si512, _mm512_add_epi64, _mm512_sub_epi64, _mm512_srl_epi64,
              _mm512_max_epu64, _mm512_cmple_epu64_mask, _mm512_cmpgt_epu64_mask,
              _mm512_mask_cmpge_epu64_mask, _mm512_ternarylogic_epi64, _mm512_castsi512_pd,
              _mm512_castpd_si512, _mm512_add_round_pd, _mm512_sub_round_pd, __mmask8, 0xff)
#undef SRL_DEFINE_HW
#endif

/* tiers (a constant; v4, v4i): the hardware tiers (SRL_HW_INT, SRL_HW_ADD) the loop may take */
SRL_INLINE int ISA(vec_d2d)(double *y, float *yf, const double *x, size_t k, srl_mode mode,
                            int r, const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                            unsigned char *flag, int nt, int tiers)
{
    const ISA(group64_k) gk = ISA(group64_consts)(vp);
    const srl__u64x8 zero = ln->ev & 0, one = zero + 1; /* (one: the `bad` flag) */
    srl__u64x8 ev = ln->ev, badv = zero;
    const uint64_t a16 = ln->a16, c16 = ln->c16, mult = SRL_PCG32_MULT, inc = ln->inc;
    /* pcg32: a draw is the outputs of the states in ev and of those after them (ev mult + inc,
     * srl__lanes' od). In the modes that the draw's first 32 bits decide but for a fraction
     * that shares them (sr: probability 2^-32 a lane; sr-eq and sr:r=R with R <= 32: never),
     * the lanes make only those bits, ev's outputs (ub = 32), and the whole draws only for a
     * group with an undecided lane, to decide it, or with a flagged lane, for the reference
     * path; both are found by the one test a group has anyway. Half the generator's work. */
    const int hi_only =
        src == 1 && (mode == SRL_SR || mode == SRL_SR_EQ || (mode == SRL_SR_BITS && r <= 32));
    /* pcg64: the two chains of eight lanes take turns (c1 the next one) */
    ISA(p64) c1 = ISA(p64_from)(ln->sh, ln->sl), c2 = ISA(p64_from)(ln->sh2, ln->sl2);
    const ISA(p64map) map = ISA(p64_map)(ln);
    uint64_t *const nok_buf = ln->nok; /* the block's workspace: no tile array on the stack */
    int nok_set = 0; /* SRL_NOK_FIRST */
#if SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS) /* (ISA(hw64)) */
    ISA(hw64_k) fk = {0};
    const int fast = src == 0 ? ISA(hw64_consts)(&fk, vp, mode) & tiers : 0;
#else
    (void)tiers;
#endif
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
        srl__u64x8 ud = zero;
        const srl__u64x8 e = ev;
        if (src == 1) {
            ud = hi_only ? ISA(lane_pcg32_out)(e) << 32 : ISA(lane_draw)(e, e * mult + inc);
            ev = ev * a16 + c16;
        } else if (src == 2) {
            ud = ISA(p64_out)(c1);
            const ISA(p64) next = ISA(p64_step)(c1, &map);
            c1 = c2, c2 = next;
        }
        /* The loop body is long for a memory-bound loop: fetch well ahead so enough lines are
         * in flight (prefetching past the end of x is harmless). */
        __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        srl__u64x8 b;
        memcpy(&b, x + i, sizeof b);
#if SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS)
        if (fast) { /* a group by ISA(hw64_int) or ISA(hw64), else on below */
            __m512i o, bz;
            memcpy(&bz, &b, sizeof bz);
            if (__builtin_expect(((fast & SRL_HW_INT) && ISA(hw64_int)(&o, bz, mode, &fk)) ||
                                     ((fast & SRL_HW_ADD) && ISA(hw64)(&o, bz, mode, &fk)),
                                 1)) {
                if (y) {
                    srl__u64x8 ov;
                    memcpy(&ov, &o, sizeof ov);
                    ISA(store64)(y + i, ov, nt);
                } else { /* (exact: the format fits binary32) */
                    ISA(store32f)(yf + i, (srl__f32x8)_mm512_cvtpd_ps(_mm512_castsi512_pd(o)), nt);
                }
                if (nok_set)
                    memset(nok_buf + i, 0, 8 * sizeof *nok_buf);
                continue;
            }
        }
#endif
        srl__u64x8 nok, und = zero;
        srl__u64x8 yb = ISA(group64)(b, ud, hi_only ? 32 : 64, mode, r, &gk, &nok, &und);
        if (__builtin_expect(ISA(lane_any)(nok | und), 0)) { /* rare */
            if (hi_only) { /* the whole draws: they decide every lane, the reference path
                              takes them */
                ud = ISA(lane_draw)(e, e * mult + inc);
                und = zero;
                yb = ISA(group64)(b, ud, 64, mode, r, &gk, &nok, &und);
            }
            if (ISA(lane_any)(nok)) { /* what the reference path needs */
                SRL_NOK_FIRST(i);
                if (src != 0)
                    memcpy(u + i, &ud, sizeof ud);
                badv |= one;
            }
        }
        if (y) {
            ISA(store64)(y + i, yb, nt);
        } else {
            srl__f64x8 yd;
            memcpy(&yd, &yb, sizeof yd);
            ISA(store32f)(yf + i, __builtin_convertvector(yd, srl__f32x8), nt);
        }
        if (nok_set)
            memcpy(nok_buf + i, &nok, sizeof nok);
    }
    int bad = badv[0] != 0;
    if (i < k) { /* the last partial group goes to the reference path */
        SRL_NOK_FIRST(i);
        if (src == 1) {
            const srl__u64x8 ud = ISA(lane_draw)(ev, ev * mult + inc);
            ev = ev * a16 + c16;
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = ud[l];
        } else if (src == 2) {
            const srl__u64x8 ud = ISA(p64_out)(c1);
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = ud[l];
        }
        SRL_TAIL_TO_REFERENCE(y);
    }
    if (bad)
        SRL_FLAGS_FROM_NOK();
    ln->ev = ev;
    ln->od = ev * mult + inc;
    ISA(p64_to)(c1, &ln->sh, &ln->sl);
    ISA(p64_to)(c2, &ln->sh2, &ln->sl2);
    return bad;
}

#if SRL_ISA_LEVEL == 1
/* x86-64-v3: vec_d2d on four-lane halves of each group of eight (the halves of ev and od, of
 * the pcg64 chains: the same draws; see vec_f2f_h below). */
SRL_INLINE int ISA(vec_d2d_h)(double *y, float *yf, const double *x, size_t k, srl_mode mode,
                              int r, const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                              unsigned char *flag, int nt)
{
    typedef srl__u64x4 V;
    const ISA(group64x4_k) gk = ISA(group64x4_consts)(vp);
    const V zero = (V){0};
    const uint64_t a16 = ln->a16, c16 = ln->c16;
    V ev[2], od[2];
    memcpy(ev, &ln->ev, sizeof ev);
    memcpy(od, &ln->od, sizeof od);
    ISA(p64) c1 = ISA(p64_from)(ln->sh, ln->sl), c2 = ISA(p64_from)(ln->sh2, ln->sl2);
    const ISA(p64map) map = ISA(p64_map)(ln);
    uint64_t *const nok_buf = ln->nok; /* the block's workspace: no tile array on the stack */
    int bad = 0;
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
        __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        for (int h = 0; h < 2; h++) {
            const V ud = src == 1   ? ISA(lane_draw4)(ev[h], od[h])
                         : src == 2 ? ISA(p64_out4)(c1, h)
                                    : zero;
            V b;
            memcpy(&b, x + i + 4 * h, sizeof b);
            V nok;
            V und = zero; /* (never: ub = W) */
            const V yb = ISA(group64x4)(b, ud, 64, mode, r, &gk, &nok, &und);
            if (y) {
                __m256i w;
                memcpy(&w, &yb, sizeof w);
                if (nt)
                    _mm256_stream_si256((__m256i *)(void *)(y + i + 4 * h), w);
                else
                    _mm256_storeu_si256((__m256i *)(void *)(y + i + 4 * h), w);
            } else {
                __m256d d;
                memcpy(&d, &yb, sizeof d);
                if (nt)
                    _mm_stream_ps(yf + i + 4 * h, _mm256_cvtpd_ps(d));
                else
                    _mm_storeu_ps(yf + i + 4 * h, _mm256_cvtpd_ps(d));
            }
            memcpy(nok_buf + i + 4 * h, &nok, sizeof nok);
            if (__builtin_expect(ISA(any64x4)(nok), 0)) {
                if (src != 0)
                    memcpy(u + i + 4 * h, &ud, sizeof ud);
                bad = 1;
            }
        }
        if (src == 1)
            for (int h = 0; h < 2; h++) {
                ev[h] = ev[h] * a16 + c16;
                od[h] = od[h] * a16 + c16;
            }
        else if (src == 2) { /* the chains take turns, as in vec_d2d */
            const ISA(p64) next = ISA(p64_step)(c1, &map);
            c1 = c2, c2 = next;
        }
    }
    if (i < k) { /* the last partial group goes to the reference path */
        for (size_t l = 0; src != 0 && i + l < k; l++) {
            const V d = src == 1 ? ISA(lane_draw4)(ev[l / 4], od[l / 4])
                                 : ISA(p64_out4)(c1, (int)(l / 4));
            u[i + l] = d[l % 4];
        }
        SRL_TAIL_TO_REFERENCE(y);
    }
    if (bad)
        SRL_FLAGS_FROM_NOK();
    memcpy(&ln->ev, ev, sizeof ev);
    memcpy(&ln->od, od, sizeof od);
    ISA(p64_to)(c1, &ln->sh, &ln->sl);
    ISA(p64_to)(c2, &ln->sh2, &ln->sl2);
    return bad;
}
#define SRL_VEC_D2D(Y, YF, NT, MODE, R, SRC)                                                      \
    ISA(vec_d2d_h)(Y, YF, x, k, MODE, R, vp, ln, SRC, u, flag, NT)
#elif SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS)
/* rz of a format whose normal range starts above 2^-14 (e4m3's: ISA(hw64_consts) gives it the
 * addition alone) gets a loop of its own, rz_add (the tile function's): in the loop of both
 * tiers the compiler puts the addition out of line behind the integer rule's test, two taken
 * jumps a group (e4m3 rz ran 14% slower than rn in the caches, 0.82x the streaming copy on
 * uniform inputs beyond them). Other modes fold the test away. */
#define SRL_VEC_D2D(Y, YF, NT, MODE, R, SRC)                                                      \
    ((MODE) == SRL_RZ && (SRC) == 0 && rz_add                                                     \
         ? ISA(vec_d2d)(Y, YF, x, k, MODE, R, vp, ln, SRC, u, flag, NT, SRL_HW_ADD)               \
         : ISA(vec_d2d)(Y, YF, x, k, MODE, R, vp, ln, SRC, u, flag, NT, SRL_HW_INT | SRL_HW_ADD))
#define SRL_RZ_ADD()                                                                              \
    ISA(hw64_k) rz_k;                                                                             \
    const int rz_add =                                                                            \
        m.mode == SRL_RZ && src == 0 && ISA(hw64_consts)(&rz_k, vp, SRL_RZ) == SRL_HW_ADD
#else
#define SRL_VEC_D2D(Y, YF, NT, MODE, R, SRC)                                                      \
    ISA(vec_d2d)(Y, YF, x, k, MODE, R, vp, ln, SRC, u, flag, NT, 0)
#endif
#ifndef SRL_RZ_ADD
#define SRL_RZ_ADD() (void)0
#endif

static int ISA(tile_vec_d2d)(double *y, const double *x, size_t k, srl_rounding m,
                             const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                             unsigned char *flag, int nt)
{
    /* Every (mode, draw source, streaming or not) gets its own loop: constants fold, branches
     * vanish (y is never NULL here: the loops' binary32 branch folds away too). */
    if (!y)
        __builtin_unreachable();
    SRL_RZ_ADD();
#define SRL_VEC(MODE, R, SRC)                                                                     \
    (nt ? SRL_VEC_D2D(y, NULL, 1, MODE, R, SRC) : SRL_VEC_D2D(y, NULL, 0, MODE, R, SRC))
#define SRL_VEC_STO(MODE, R) (src == 1 ? SRL_VEC(MODE, R, 1) : SRL_VEC(MODE, R, 2))
    SRL_TILE_SWITCH(m.r);
#undef SRL_VEC_STO
#undef SRL_VEC
}

/* binary64 in, binary32 out; streaming when nt (y 64-byte aligned), as tile_vec_d2d */
static int ISA(tile_vec_d2f)(float *y, const double *x, size_t k, srl_rounding m,
                             const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                             unsigned char *flag, int nt)
{
    SRL_RZ_ADD();
#define SRL_VEC(MODE, R, SRC)                                                                     \
    (nt ? SRL_VEC_D2D(NULL, y, 1, MODE, R, SRC) : SRL_VEC_D2D(NULL, y, 0, MODE, R, SRC))
#define SRL_VEC_STO(MODE, R) (src == 1 ? SRL_VEC(MODE, R, 1) : SRL_VEC(MODE, R, 2))
    SRL_TILE_SWITCH(m.r);
#undef SRL_VEC_STO
#undef SRL_VEC
}

/* ---- a group's sixteen draws in registers (vec_f2f, mx_tile_m) ----
 * Lane l of ev0 / ev1 is the pcg32 state of draw d + l / d + 8 + l, and pcg64's chains c1 / c2
 * make the same draws likewise. ISA(draws16_next) gives a group's draws' high halves (all that
 * binary32 lanes read) and steps on by sixteen: pcg32 (src 1) from the states alone (their
 * outputs), the group keeping the states before the step (e0, e1); pcg64 (src 2) keeps the full
 * draws (d0, d1). ISA(draws16_put) writes a flagged group's full draws to u for the reference
 * path. */
typedef struct ISA(draws16) {
    srl__u64x8 ev0, ev1;
    ISA(p64) c1, c2;
    ISA(p64map) map;
    uint64_t a32, c32, mult, inc;
} ISA(draws16);
typedef struct ISA(group16) {
    srl__u32x16 hi;
    srl__u64x8 e0, e1, d0, d1;
} ISA(group16);

SRL_INLINE ISA(draws16) ISA(draws16_from)(const srl__lanes *ln)
{
    ISA(draws16) g;
    g.a32 = ln->a32, g.c32 = ln->c32, g.mult = SRL_PCG32_MULT, g.inc = ln->inc;
    g.ev0 = ln->ev, g.ev1 = ln->ev * ln->a16 + ln->c16;
    g.c1 = ISA(p64_from)(ln->sh, ln->sl), g.c2 = ISA(p64_from)(ln->sh2, ln->sl2);
    g.map = ISA(p64_map)(ln);
    return g;
}

SRL_INLINE ISA(group16) ISA(draws16_next)(ISA(draws16) *g, int src)
{
    typedef srl__u32x16 V;
    ISA(group16) d;
    d.hi = (V){0};
    d.e0 = g->ev0, d.e1 = g->ev1, d.d0 = g->ev0 & 0, d.d1 = d.d0;
    if (src == 1) {
        d.hi = ISA(lane_pcg32_out16)(g->ev0, g->ev1);
        g->ev0 = g->ev0 * g->a32 + g->c32;
        g->ev1 = g->ev1 * g->a32 + g->c32;
    } else if (src == 2) {
        d.d0 = ISA(p64_out)(g->c1);
        d.d1 = ISA(p64_out)(g->c2);
        g->c1 = ISA(p64_step)(g->c1, &g->map);
        g->c2 = ISA(p64_step)(g->c2, &g->map);
        V w0, w1;
        memcpy(&w0, &d.d0, sizeof w0);
        memcpy(&w1, &d.d1, sizeof w1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        d.hi = __builtin_shufflevector(w0, w1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                       28, 30);
#else
        d.hi = __builtin_shufflevector(w0, w1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27,
                                       29, 31);
#endif
    }
    return d;
}

SRL_INLINE void ISA(draws16_put)(const ISA(draws16) *g, ISA(group16) d, int src, uint64_t *u)
{
    if (src == 1) {
        d.d0 = ISA(lane_draw)(d.e0, d.e0 * g->mult + g->inc);
        d.d1 = ISA(lane_draw)(d.e1, d.e1 * g->mult + g->inc);
    }
    if (src != 0) {
        memcpy(u, &d.d0, sizeof d.d0);
        memcpy(u + 8, &d.d1, sizeof d.d1);
    }
}

/* The lanes' state after the draws made (pcg32: ev0 the next group's states). */
SRL_INLINE void ISA(draws16_to)(const ISA(draws16) *g, srl__lanes *ln)
{
    ln->ev = g->ev0;
    ln->od = g->ev0 * g->mult + g->inc;
    ISA(p64_to)(g->c1, &ln->sh, &ln->sl);
    ISA(p64_to)(g->c2, &ln->sh2, &ln->sl2);
}

/* ---- the vector path for binary32 input and output (all modes) ----
 * Sixteen elements per step in 32-bit lanes, as vec_d2d does eight: the same rounding of bit
 * patterns (lane_round32), the same range check, the subnormal range on the lanes. A binary32
 * fraction has at most 23 bits, so the first 32 bits of a draw decide every mode exactly (sr:
 * U < f iff u32 < f1, f1 being the whole fraction; sr:r=R with R > 32: the carry out of F + Z
 * at bit R is the carry at bit 32, decide.h); the lanes take the draws' high halves. pcg32 (src
 * 1): those are the outputs of the states in ev alone, so only ev is stepped (two vectors of
 * eight draws, 32 outputs per step); a group with a flagged element gets its full draws (od =
 * the state after ev) for the reference path. pcg64 (src 2): the two chains make the sixteen
 * draws in registers, as in vec_d2d, written to u only for a flagged group. */
SRL_INLINE int ISA(vec_f2f)(float *y, const float *x, size_t k, srl_mode mode, int r,
                            const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                            unsigned char *flag, int nt, int pat, int tiers)
{
    typedef srl__u32x16 V;
    const ISA(group32_k) gk = ISA(group32_consts)(vp);
    const ISA(group32p_k) gkp = ISA(group32p_consts)(vp);
    const V zero = (V){0}, one = zero + 1;
    ISA(draws16) g = ISA(draws16_from)(ln);
    uint32_t *const nok_buf = ln->nok; /* the block's workspace: no tile array on the stack */
    V badv = zero;
    int nok_set = 0; /* SRL_NOK_FIRST */
#if SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS) /* (ISA(hw32)) */
    ISA(hw32_k) fk = {0};
    const int fast = src == 0 && !pat ? ISA(hw32_consts)(&fk, vp, mode) & tiers : 0;
#else
    (void)tiers;
#endif
    size_t i = 0;
    for (; i + 16 <= k; i += 16) {
        const ISA(group16) dg = ISA(draws16_next)(&g, src);
        const V ud = dg.hi;
        /* Fetch ahead, as vec_d2d does: without it the loads stall the longer loop bodies (sr,
         * fp8's range checks), which then run at 0.6-0.8x memcpy. Not on the pattern path: its
         * short loop keeps up with the hardware's own prefetch, and the extra load slot cost it
         * a quarter of its speed on arrays in the caches (BENCHMARKS.md, Zen 4). */
        if (!pat)
            __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        V b;
        memcpy(&b, x + i, sizeof b);
#if SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS)
        if (fast) { /* a group by ISA(hw32_int) or ISA(hw32), else on below */
            __m512i o, bz;
            memcpy(&bz, &b, sizeof bz);
            if (__builtin_expect(tiers == SRL_HW_ADD
                                     ? ISA(hw32)(&o, bz, mode, &fk)
                                     : ((fast & SRL_HW_INT) && ISA(hw32_int)(&o, bz, mode, &fk)) ||
                                           ((fast & SRL_HW_ADD) && ISA(hw32)(&o, bz, mode, &fk)),
                                 1)) {
                memcpy(&b, &o, sizeof b);
                ISA(store64)(y + i, (srl__u64x8)b, nt);
                if (nok_set)
                    memset(nok_buf + i, 0, 16 * sizeof *nok_buf);
                continue;
            }
        }
#endif
        V nok;
        V und = zero; /* (never: ub = W) */
        const V yb = pat ? ISA(group32p)(b, ud, 32, mode, r, &gkp, &nok, &und)
                         : ISA(group32)(b, ud, 32, mode, r, &gk, &nok, &und);
        ISA(store64)(y + i, (srl__u64x8)yb, nt);
        if (pat) /* (no lane is flagged; nothing is stored per group: k may exceed a tile) */
            continue;
        if (__builtin_expect(ISA(lane_any32)(nok), 0)) {
            SRL_NOK_FIRST(i);
            ISA(draws16_put)(&g, dg, src, u + i);
            badv |= one;
        }
        if (nok_set)
            memcpy(nok_buf + i, &nok, sizeof nok);
    }
    int bad = badv[0] != 0;
    if (i < k) { /* the last partial group goes to the reference path */
        SRL_NOK_FIRST(i);
        if (src == 1) {
            const srl__u64x8 d0 = ISA(lane_draw)(g.ev0, g.ev0 * g.mult + g.inc);
            const srl__u64x8 d1 = ISA(lane_draw)(g.ev1, g.ev1 * g.mult + g.inc);
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = l < 8 ? d0[l] : d1[l - 8];
            g.ev0 = g.ev0 * g.a32 + g.c32;
            g.ev1 = g.ev1 * g.a32 + g.c32;
        } else if (src == 2) {
            const srl__u64x8 t0 = ISA(p64_out)(g.c1), t1 = ISA(p64_out)(g.c2);
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = l < 8 ? t0[l] : t1[l - 8];
        }
        SRL_TAIL_TO_REFERENCE(y);
    }
    if (bad)
        SRL_FLAGS_FROM_NOK();
    ISA(draws16_to)(&g, ln);
    return bad;
}

#if SRL_ISA_LEVEL == 1
/* ---- x86-64-v3: vec_f2f in 256-bit vectors ----
 * Under AVX2 GCC 12 lowers vec_f2f's 512-bit generic vectors poorly (lanes_isa.h: values kept on
 * the stack and moved in pieces), so this level runs the same computation on eight-lane halves
 * of each group of sixteen: the first half takes its draws from the states of ev0, the second
 * from ev1, exactly as vec_f2f's lanes 0-7 and 8-15 do, so every element gets the same draw and
 * the same bits (round_isa_v3 compares with srl_round); pcg64 likewise, the first half from the
 * chain c1 (two halves of four lanes), the second from c2. */
SRL_INLINE int ISA(vec_f2f_h)(float *y, const float *x, size_t k, srl_mode mode, int r,
                              const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                              unsigned char *flag, int nt, int pat)
{
    typedef srl__u32x8 V;
    const ISA(group32x8_k) gk = ISA(group32x8_consts)(vp);
    const ISA(group32x8p_k) gkp = ISA(group32x8p_consts)(vp);
    const V zero = (V){0};
    const uint64_t a32 = ln->a32, c32 = ln->c32, mult = SRL_PCG32_MULT, inc = ln->inc;
    const srl__u64x8 ev1 = ln->ev * ln->a16 + ln->c16;
    srl__u64x4 e[4]; /* ev0's halves, then ev1's */
    memcpy(e, &ln->ev, sizeof ln->ev);
    memcpy(e + 2, &ev1, sizeof ev1);
    ISA(p64) c[2] = {ISA(p64_from)(ln->sh, ln->sl), ISA(p64_from)(ln->sh2, ln->sl2)};
    const ISA(p64map) map = ISA(p64_map)(ln);
    uint32_t *const nok_buf = ln->nok; /* the block's workspace: no tile array on the stack */
    int bad = 0;
    size_t i = 0;
    for (; i + 16 <= k; i += 16) {
        if (!pat) /* (as in vec_f2f) */
            __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        for (int h = 0; h < 2; h++) {
            srl__u64x4 d64[2] = {{0}, {0}}; /* pcg64: the half's full draws */
            if (src == 2) {
                d64[0] = ISA(p64_out4)(c[h], 0);
                d64[1] = ISA(p64_out4)(c[h], 1);
            }
            const V ud = src == 1 ? ISA(pcg32_out8)(e[2 * h], e[2 * h + 1])
                         : src == 2 ? ISA(high8)(d64[0], d64[1])
                                    : zero;
            V b;
            memcpy(&b, x + i + 8 * h, sizeof b);
            V nok;
            V und = zero; /* (never: ub = W) */
            const V yb = pat ? ISA(group32x8p)(b, ud, 32, mode, r, &gkp, &nok, &und)
                             : ISA(group32x8)(b, ud, 32, mode, r, &gk, &nok, &und);
            __m256i w;
            memcpy(&w, &yb, sizeof w);
            if (nt)
                _mm256_stream_si256((__m256i *)(void *)(y + i + 8 * h), w);
            else
                _mm256_storeu_si256((__m256i *)(void *)(y + i + 8 * h), w);
            if (pat) /* (no lane is flagged; nothing is stored per group: k may exceed a tile) */
                continue;
            memcpy(nok_buf + i + 8 * h, &nok, sizeof nok);
            if (__builtin_expect(ISA(any32x8)(nok), 0)) {
                if (src == 1) {
                    d64[0] = ISA(pcg32_draw4)(e[2 * h], mult, inc);
                    d64[1] = ISA(pcg32_draw4)(e[2 * h + 1], mult, inc);
                }
                if (src != 0)
                    memcpy(u + i + 8 * h, d64, sizeof d64);
                bad = 1;
            }
        }
        if (src == 1)
            for (int q = 0; q < 4; q++)
                e[q] = e[q] * a32 + c32;
        else if (src == 2)
            for (int q = 0; q < 2; q++)
                c[q] = ISA(p64_step)(c[q], &map);
    }
    if (i < k) { /* the last partial group goes to the reference path */
        for (size_t l = 0; src != 0 && i + l < k; l++) {
            const srl__u64x4 d = src == 1 ? ISA(pcg32_draw4)(e[l / 4], mult, inc)
                                          : ISA(p64_out4)(c[l / 8], (int)(l / 4 % 2));
            u[i + l] = d[l % 4];
        }
        SRL_TAIL_TO_REFERENCE(y);
    }
    if (bad)
        SRL_FLAGS_FROM_NOK();
    memcpy(&ln->ev, e, sizeof ln->ev);
    ln->od = ln->ev * mult + inc;
    ISA(p64_to)(c[0], &ln->sh, &ln->sl);
    ISA(p64_to)(c[1], &ln->sh2, &ln->sl2);
    return bad;
}
#endif

static int ISA(tile_vec_f2f)(float *y, const float *x, size_t k, srl_rounding m,
                             const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                             unsigned char *flag, int nt)
{
    const int r32 = m.r < 32 ? m.r : 32; /* see above */
    /* a loop per (mode, draw source, vp->pat) */
#if SRL_ISA_LEVEL == 1
#define SRL_VEC(MODE, R, SRC)                                                                     \
    (vp->pat ? ISA(vec_f2f_h)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 1)                      \
             : ISA(vec_f2f_h)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 0))
#elif SRL_ISA_LEVEL >= 2 && !defined(SRL_MUTANTS)
    /* rz with the addition alone (e4m3's: ISA(hw32_consts)) gets a loop of its own, as
     * tile_vec_d2d's rz_add: behind the integer rule's test the compiler put the addition out
     * of line (e4m3 rz of binary32 ran at 0.81x the streaming copy, rn at 1.12x) */
    ISA(hw32_k) rz_k;
    const int rz_add = m.mode == SRL_RZ && src == 0 && !vp->pat &&
                       ISA(hw32_consts)(&rz_k, vp, SRL_RZ) == SRL_HW_ADD;
#define SRL_VEC(MODE, R, SRC)                                                                     \
    ((MODE) == SRL_RZ && (SRC) == 0 && rz_add                                                     \
         ? ISA(vec_f2f)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 0, SRL_HW_ADD)                \
     : vp->pat ? ISA(vec_f2f)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 1, SRL_HW_INT | SRL_HW_ADD) \
               : ISA(vec_f2f)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 0, SRL_HW_INT | SRL_HW_ADD))
#else
#define SRL_VEC(MODE, R, SRC)                                                                     \
    (vp->pat ? ISA(vec_f2f)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 1, 0)                     \
             : ISA(vec_f2f)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt, 0, 0))
#endif
#define SRL_VEC_STO(MODE, R) (src == 1 ? SRL_VEC(MODE, R, 1) : SRL_VEC(MODE, R, 2))
    SRL_TILE_SWITCH(r32);
#undef SRL_VEC_STO
#undef SRL_VEC
}
#undef SRL_TILE_SWITCH
#undef SRL_NOK_FIRST
#undef SRL_VEC_D2D
#undef SRL_RZ_ADD

/* ---- block-scaled binary32 (srlab/mx.h; block_mx_f2f in round_bulk.c) ----
 * The work around the tile kernel, on a tile already in the caches: each block's largest
 * magnitude (as bits: the absolute values' patterns order as the values do, NaN and infinities
 * above 0x7f800000), its scale exponent and code, the block times 2^-k (binary32: exact where the
 * kernel rounds, see block_mx_f2f) or times (3/4) 2^-k in binary64 (exact); afterwards the
 * results times 2^k (exact), NaN for a block holding a NaN or an infinity. Integer compares and
 * products by powers of two: every level gives the same bits. Vectors of 8 lanes below
 * x86-64-v4 (GCC 12 lowers 512-bit generic vectors poorly under AVX2, see vec_f2f_h). */
#if SRL_ISA_LEVEL >= 2
typedef srl__u32x16 ISA(mxu);
typedef srl__f32x16 ISA(mxf);
#else
typedef srl__u32x8 ISA(mxu);
typedef srl__f32x8 ISA(mxf);
#endif
#define SRL_MXL (sizeof(ISA(mxu)) / 4)

/* The largest lane (all lanes below 2^31). */
SRL_INLINE uint32_t ISA(mx_hmax)(ISA(mxu) a)
{
#if SRL_ISA_LEVEL >= 2
    ISA(mxu) t = __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6,
                                         7);
    a = (a & (ISA(mxu))(a > t)) | (t & ~(ISA(mxu))(a > t));
    t = __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
#else
    ISA(mxu) t = __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3);
#endif
    a = (a & (ISA(mxu))(a > t)) | (t & ~(ISA(mxu))(a > t));
    uint32_t m = 0;
    for (int l = 0; l < 4; l++)
        m = a[l] > m ? a[l] : m;
    return m;
}

static void ISA(mx_prep)(float *tf, double *td, int *kb, unsigned char *special, uint8_t *scales,
                         const float *x, size_t k, size_t bs, const srl_format *elem, int rule)
{
    const int q34 = rule == SRL__MX_RULE_34;
    const ISA(mxu) absm = (ISA(mxu)){0} + 0x7fffffffu;
    for (size_t i0 = 0, b = 0; i0 < k; i0 += bs, b++) {
        const size_t len = k - i0 < bs ? k - i0 : bs;
        const float *xb = x + i0;
        size_t j = 0;
        uint32_t am = 0;
        if (len >= SRL_MXL) {
            ISA(mxu) a = (ISA(mxu)){0};
            for (; j + SRL_MXL <= len; j += SRL_MXL) {
                ISA(mxu) v;
                memcpy(&v, xb + j, sizeof v);
                v &= absm;
                a = (a & (ISA(mxu))(a > v)) | (v & ~(ISA(mxu))(a > v));
            }
            am = ISA(mx_hmax)(a);
        }
        for (; j < len; j++) {
            uint32_t v;
            memcpy(&v, xb + j, 4);
            v &= 0x7fffffffu;
            am = v > am ? v : am;
        }
        const int bad = am >= 0x7f800000u;
        float amax;
        memcpy(&amax, &am, 4);
        const int kk = bad ? 0 : srl__mx_k((double)amax, elem, rule);
        kb[b] = kk;
        special[b] = (unsigned char)bad;
        if (scales)
            scales[b] = bad ? 0xFF : (uint8_t)(kk + 127);
        j = 0;
        if (q34) {
            const double c = 0.75 * srl__pow2(-kk);
            for (; j + 8 <= len; j += 8) {
                srl__f32x8 v;
                memcpy(&v, xb + j, sizeof v);
                const srl__f64x8 d = __builtin_convertvector(v, srl__f64x8) * c;
                memcpy(td + i0 + j, &d, sizeof d);
            }
            for (; j < len; j++)
                td[i0 + j] = (double)xb[j] * c;
        } else {
            /* A saturating E takes every magnitude above xmax to xmax in every mode (the
             * overflow rule, src/round/round_core.h), and xmax is exact: such a lane is given
             * xmax (the ocp rule clips an element in a quarter of fp8 blocks, in half of fp4's),
             * the others keep their bits (sat: all ones, no lane is above it). */
            const float c = srl__pow2f(-kk), xm = (float)elem->xmax;
            uint32_t sat32;
            memcpy(&sat32, &xm, 4);
            if (!elem->saturate)
                sat32 = 0xffffffffu;
            const ISA(mxu) sat = (ISA(mxu)){0} + sat32;
            for (; j + SRL_MXL <= len; j += SRL_MXL) {
                ISA(mxf) v;
                memcpy(&v, xb + j, sizeof v);
                v *= c;
                ISA(mxu) w, a;
                memcpy(&w, &v, sizeof w);
                a = w & absm;
                const ISA(mxu) over = (ISA(mxu))(a > sat);
                w = (w & ~over) | (((w & ~absm) | sat) & over);
                memcpy(tf + i0 + j, &w, sizeof w);
            }
            for (; j < len; j++) {
                const float v = xb[j] * c;
                uint32_t w;
                memcpy(&w, &v, 4);
                if ((w & 0x7fffffffu) > sat32)
                    w = (w & 0x80000000u) | sat32;
                memcpy(tf + i0 + j, &w, 4);
            }
        }
    }
}

static void ISA(mx_back)(float *y, size_t k, size_t bs, const int *kb,
                         const unsigned char *special)
{
    for (size_t i0 = 0, b = 0; i0 < k; i0 += bs, b++) {
        const size_t len = k - i0 < bs ? k - i0 : bs;
        float *yb = y + i0;
        size_t j = 0;
        if (special[b]) {
            for (; j < len; j++)
                yb[j] = NAN;
            continue;
        }
        const float back = srl__pow2f(kb[b]);
        for (; j + SRL_MXL <= len; j += SRL_MXL) {
            ISA(mxf) v;
            memcpy(&v, yb + j, sizeof v);
            v *= back;
            memcpy(yb + j, &v, sizeof v);
        }
        for (; j < len; j++)
            yb[j] *= back;
    }
}
#undef SRL_MXL

/* ---- block-scaled binary32, a tile of whole blocks in one pass (power-of-two scales, the
 * block a multiple of sixteen: block_mx_f2f) ----
 * Per block: the largest magnitude and the scale exponent k, as mx_prep; then each group of
 * lanes is scaled, v = x 2^-k (exact where the lane is rounded here; see block_mx_f2f), a
 * magnitude above xmax_E set to xmax_E when E saturates (mx_prep), and rounded into E with the
 * subnormal-range rule of lane_sub applied to every lane: a lane of exponent e has the grid
 * spacing 2^eq, eq = max(e, emin) - p + 1, which is E's spacing in E's normal range and its
 * subnormal spacing below it, 2^sv units of v (sv = eq - (max(e, 1) - 127 - 23)), so lane_sub's
 * (v - R) + (away << sv) is the rounding into E there too (the carry into the exponent field,
 * the step into the next binade, included; 0 or q = 2^(emin - p + 1), a normal binary32 number,
 * for a lane below q). The decision is decide.h's with the
 * draw's first 32 bits, which decide every lane (v's fraction has at most 23 bits: 32-bit
 * lanes of vec_f2f). The result times 2^k is the element (exact). A lane lane_sub cannot take
 * (v below q/256, or a binary32 subnormal) is flagged for the reference path;
 * a zero is exact. A block with a NaN or an infinity gives NaN and flags nothing. u: the
 * tile's draws (whole, as lanes_fill makes them), NULL for a deterministic mode. Returns
 * whether a lane is flagged (then flag[0..k) says which). nt: from x86-64-v4, y is written with
 * streaming stores (lanes_isa.h's out16; the caller fences before it writes y again), so a large
 * array's tile goes out without a copy; below, nt is ignored. */
#if SRL_ISA_LEVEL == 1
typedef srl__u32x8 ISA(mxv);
typedef srl__f32x8 ISA(mxvf);
#define SRL_MX_SUB ISA(lane_sub32x8)
#define SRL_MX_ANY(v) ISA(any32x8)(v)
#else
typedef srl__u32x16 ISA(mxv);
typedef srl__f32x16 ISA(mxvf);
#define SRL_MX_SUB ISA(lane_sub32)
#define SRL_MX_ANY(v) ISA(lane_any32)(v)
#endif
#define SRL_MXK (sizeof(ISA(mxv)) / 4)

/* The largest of two vectors' lanes, unsigned. */
SRL_INLINE ISA(mxv) ISA(mx_max)(ISA(mxv) a, ISA(mxv) b)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(mxv))_mm512_max_epu32((__m512i)a, (__m512i)b);
#elif SRL_ISA_LEVEL == 1
    return (ISA(mxv))_mm256_max_epu32((__m256i)a, (__m256i)b);
#else
    return (a & (ISA(mxv))(a > b)) | (b & ~(ISA(mxv))(a > b));
#endif
}

/* The smaller lanes, unsigned; the larger, signed. */
SRL_INLINE ISA(mxv) ISA(mx_min)(ISA(mxv) a, ISA(mxv) b)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(mxv))_mm512_min_epu32((__m512i)a, (__m512i)b);
#elif SRL_ISA_LEVEL == 1
    return (ISA(mxv))_mm256_min_epu32((__m256i)a, (__m256i)b);
#else
    return (a & (ISA(mxv))(a < b)) | (b & ~(ISA(mxv))(a < b));
#endif
}

SRL_INLINE ISA(mxv) ISA(mx_maxs)(ISA(mxv) a, ISA(mxv) b)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(mxv))_mm512_max_epi32((__m512i)a, (__m512i)b);
#elif SRL_ISA_LEVEL == 1
    return (ISA(mxv))_mm256_max_epi32((__m256i)a, (__m256i)b);
#else
    typedef int32_t S __attribute__((vector_size(sizeof(ISA(mxv)))));
    const ISA(mxv) gt = (ISA(mxv))((S)a > (S)b);
    return (a & gt) | (b & ~gt);
#endif
}

/* The largest lane of a, in every lane (a butterfly of lane swaps). */
SRL_INLINE ISA(mxv) ISA(mx_bmax)(ISA(mxv) a)
{
#if SRL_ISA_LEVEL == 1
    a = ISA(mx_max)(a, __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3));
    a = ISA(mx_max)(a, __builtin_shufflevector(a, a, 2, 3, 0, 1, 6, 7, 4, 5));
    return ISA(mx_max)(a, __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6));
#else
    a = ISA(mx_max)(a, __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,
                                               5, 6, 7));
    a = ISA(mx_max)(a, __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9,
                                               10, 11));
    a = ISA(mx_max)(a, __builtin_shufflevector(a, a, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15,
                                               12, 13));
    return ISA(mx_max)(a, __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13,
                                                  12, 15, 14));
#endif
}

/* The first pass over a tile: each block's scale exponent kb[b] and E8M0 code scales[b] (when
 * scales is not NULL), and cb[b] = {2^-k, 2^k} ({0, 1} for a block holding a NaN or an
 * infinity). A block's steps depend on each other (its largest lane, then k); the blocks do not,
 * so a pass of its own lets them overlap. */
SRL_INLINE void ISA(mx_scales)(float (*cb)[2], int *kb, uint8_t *scales, const float *x, size_t k,
                               size_t bs, const srl_format *elem, int rule)
{
    typedef ISA(mxv) V;
    const V absm = (V){0} + 0x7fffffffu;
    const int64_t xfrac = srl__mx_xfrac(elem);
    for (size_t i0 = 0, b = 0; i0 < k; i0 += bs, b++) {
        const float *xb = x + i0;
        V a = absm & 0;
        for (size_t j = 0; j < bs; j += SRL_MXK) {
            __builtin_prefetch((const char *)(xb + j) + SRL_PREFETCH_BYTES); /* (vec_f2f) */
            V v;
            memcpy(&v, xb + j, sizeof v);
            a = ISA(mx_max)(a, v & absm);
        }
        a = ISA(mx_bmax)(a);
        const uint32_t am = a[0];
        const int bad = __builtin_expect(am >= 0x7f800000u, 0);
        const int kk = bad ? 0 : srl__mx_k32(am, xfrac, elem, rule);
        kb[b] = kk;
        if (scales)
            scales[b] = bad ? 0xFF : (uint8_t)(kk + 127);
        cb[b][0] = bad ? 0.0f : srl__pow2f(-kk);
        cb[b][1] = bad ? 1.0f : srl__pow2f(kk);
    }
}

#if SRL_ISA_LEVEL != 1
/* mx_scales for sixteen blocks of 32 at a time (nb a multiple of 16), in sixteen-lane vectors:
 * each block's two vectors' lane maxima, then four levels of pairing (halves, quarters, eighths,
 * sixteenths of two vectors) leave block b0 + i's largest magnitude in lane i, and k, the codes
 * and 2^-k, 2^k follow in the lanes as srl__mx_k32 and mx_scales make them; sixteen blocks with a
 * lane that srl__mx_k32 sends to srl__mx_k (a zero or binary32 subnormal largest magnitude, or
 * an E whose xmax lies below 2^emax's binade) take mx_scales' scalar steps from those maxima. */
SRL_INLINE void ISA(mx_scales32x16)(float (*cb)[2], int *kb, uint8_t *scales, const float *x,
                                    size_t nb, const srl_format *elem, int rule)
{
    typedef srl__u32x16 V;
    typedef int32_t SI __attribute__((vector_size(sizeof(V))));
    const V absm = (V){0} + 0x7fffffffu;
    const int64_t xfrac = srl__mx_xfrac(elem);
    for (size_t b0 = 0; b0 < nb; b0 += 16) {
        V m[16];
        for (int l = 0; l < 16; l++) {
            const float *xb = x + 32 * (b0 + (size_t)l);
            __builtin_prefetch((const char *)xb + SRL_PREFETCH_BYTES); /* (vec_f2f) */
            __builtin_prefetch((const char *)(xb + 16) + SRL_PREFETCH_BYTES);
            V v0, v1;
            memcpy(&v0, xb, sizeof v0);
            memcpy(&v1, xb + 16, sizeof v1);
            m[l] = ISA(mx_max)(v0 & absm, v1 & absm);
        }
        for (int l = 0; l < 8; l++)
            m[l] = ISA(mx_max)(__builtin_shufflevector(m[2 * l], m[2 * l + 1], 0, 1, 2, 3, 4, 5, 6,
                                                       7, 16, 17, 18, 19, 20, 21, 22, 23),
                               __builtin_shufflevector(m[2 * l], m[2 * l + 1], 8, 9, 10, 11, 12,
                                                       13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
        for (int l = 0; l < 4; l++)
            m[l] = ISA(mx_max)(__builtin_shufflevector(m[2 * l], m[2 * l + 1], 0, 1, 2, 3, 8, 9, 10,
                                                       11, 16, 17, 18, 19, 24, 25, 26, 27),
                               __builtin_shufflevector(m[2 * l], m[2 * l + 1], 4, 5, 6, 7, 12, 13,
                                                       14, 15, 20, 21, 22, 23, 28, 29, 30, 31));
        for (int l = 0; l < 2; l++)
            m[l] = ISA(mx_max)(__builtin_shufflevector(m[2 * l], m[2 * l + 1], 0, 1, 4, 5, 8, 9, 12,
                                                       13, 16, 17, 20, 21, 24, 25, 28, 29),
                               __builtin_shufflevector(m[2 * l], m[2 * l + 1], 2, 3, 6, 7, 10, 11,
                                                       14, 15, 18, 19, 22, 23, 26, 27, 30, 31));
        const V am = ISA(mx_max)(__builtin_shufflevector(m[0], m[1], 0, 2, 4, 6, 8, 10, 12, 14, 16,
                                                         18, 20, 22, 24, 26, 28, 30),
                                 __builtin_shufflevector(m[0], m[1], 1, 3, 5, 7, 9, 11, 13, 15, 17,
                                                         19, 21, 23, 25, 27, 29, 31));
        const V bad = (V)(am >= 0x7f800000u);
        const V odd = (V)(am - 0x00800000u >= 0x7f000000u) & ~bad;
        if (__builtin_expect(xfrac < 0 || ISA(lane_any32)(odd), 0)) {
            for (size_t l = 0; l < 16; l++) { /* (mx_scales' steps) */
                const size_t b = b0 + l;
                const int bl = am[l] >= 0x7f800000u;
                const int kk = bl ? 0 : srl__mx_k32(am[l], xfrac, elem, rule);
                kb[b] = kk;
                if (scales)
                    scales[b] = bl ? 0xFF : (uint8_t)(kk + 127);
                cb[b][0] = bl ? 0.0f : srl__pow2f(-kk);
                cb[b][1] = bl ? 1.0f : srl__pow2f(kk);
            }
            continue;
        }
        SI kv = (SI)(am >> 23) - (127 + elem->emax);
        if (rule == SRL__MX_RULE_CEIL)
            kv -= (SI)((am & 0x7fffffu) > (uint32_t)xfrac); /* (a comparison is -1) */
        kv = (SI)ISA(mx_maxs)((V)kv, (V){0} + (uint32_t)SRL__MX_KMIN);
        kv = (SI)ISA(mx_min)((V)(kv - SRL__MX_KMIN),
                             (V){0} + (uint32_t)(SRL__MX_KMAX - SRL__MX_KMIN)) +
             SRL__MX_KMIN;
        kv &= (SI)~bad;
        memcpy(kb + b0, &kv, sizeof kv);
        if (scales) { /* (each lane's low byte: k + 127, or 0xFF for a bad block) */
            typedef uint8_t B __attribute__((vector_size(16)));
            const B sc = __builtin_convertvector((V)(kv + 127) | bad, B);
            memcpy(scales + b0, &sc, sizeof sc);
        }
        /* 2^-k and 2^k as binary32 (2^-127: subnormal), {0, 1} for a bad block */
        const V lo = (V)(-kv >= -126), hi = (V)(kv >= -126);
        const V sub = (V){0} + (1u << 22), one = (V){0} + 0x3f800000u;
        const V p0 = ((((V)(127 - kv) << 23) & lo) | (sub & ~lo)) & ~bad;
        const V p1 = (((((V)(kv + 127) << 23) & hi) | (sub & ~hi)) & ~bad) | (one & bad);
        const V c0 = __builtin_shufflevector(p0, p1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6,
                                             22, 7, 23);
        const V c1 = __builtin_shufflevector(p0, p1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29,
                                             14, 30, 15, 31);
        memcpy(&cb[b0][0], &c0, sizeof c0);
        memcpy(&cb[b0 + 8][0], &c1, sizeof c1);
    }
}
#endif

/* mx_scales with OCP's block of 32 known to the compiler (its loop unrolled; sixteen blocks at a
 * time in sixteen-lane vectors). */
SRL_INLINE void ISA(mx_scales_bs)(float (*cb)[2], int *kb, uint8_t *scales, const float *x,
                                  size_t k, size_t bs, const srl_format *elem, int rule)
{
#if SRL_ISA_LEVEL != 1
    if (bs == 32) {
        const size_t nv = k / 32 & ~(size_t)15;
        ISA(mx_scales32x16)(cb, kb, scales, x, nv, elem, rule);
        if (nv * 32 < k)
            ISA(mx_scales)(cb + nv, kb + nv, scales ? scales + nv : NULL, x + nv * 32, k - nv * 32,
                           32, elem, rule);
        return;
    }
#endif
    if (bs == 32)
        ISA(mx_scales)(cb, kb, scales, x, k, 32, elem, rule);
    else
        ISA(mx_scales)(cb, kb, scales, x, k, bs, elem, rule);
}

/* Draws. At x86-64-v3 (eight-lane vectors) the tile's draws are made first, into u, as
 * lanes_fill makes them, and read back per group; elsewhere a group of sixteen makes its own in
 * registers, as vec_f2f does (ISA(draws16)), and writes them to u only for a flagged group. */
#define SRL_MX_REG (SRL_ISA_LEVEL != 1)

SRL_INLINE int ISA(mx_tile_m)(float *y, uint8_t *scales, int *kb, const float *x, size_t k,
                              size_t bs, const srl_format *elem, int rule, srl_mode mode, int r,
                              srl__lanes *ln, int src, uint64_t *u, unsigned char *flag, int form,
                              int nform, int nt)
{
    const int fast = form != 0, wide = form == 2;
    typedef ISA(mxv) V;
    const V zero = (V){0}, absm = zero + 0x7fffffffu, sgn = zero + 0x80000000u;
    const V emin_b = zero + (uint32_t)(elem->emin + 127), c_off = zero + (uint32_t)(24 - elem->p);
    const V one = zero + 1, qbits = zero + ((uint32_t)(elem->emin - elem->p + 128) << 23);
    const float xm = (float)elem->xmax;
    uint32_t sat32;
    memcpy(&sat32, &xm, 4);
    const V sat = zero + sat32;
    /* the pattern: binary32's (mb = 23) or the wide one (mb = 25, exponent bias bw) */
    const int mb = wide ? 25 : 23, bw = 62 - elem->emax;
    const V c_offw = zero + (uint32_t)(mb + 1 - elem->p);
    const V qw = wide ? zero + ((uint32_t)(elem->emin - elem->p + 1 + bw) << 25) : qbits;
    const V q_half = qw - (one << mb), q_3half = qw | (one << (mb - 1)), q_two = qw + (one << mb);
    const V c_sv = zero + (uint32_t)(elem->emin + (wide ? bw : 127)) + c_offw, implicit = one << mb;
    const V satw = wide ? zero + ((uint32_t)(elem->emax + bw) << 25 | (sat32 & 0x7fffffu) << 2)
                        : sat;
#if SRL_ISA_LEVEL >= 2
    /* forms 3 and 4: C's fields from av's exponent field, 2^32 / q's from C's (see the loop),
     * and the least exponent field that is not tiny (the carry form's sv <= 31) */
    const int hw = form == 3 || form == 5, hwsr = form == 4 || form == 6, q34 = form >= 5;
    const V expm = zero + 0x7f800000u, eminq = emin_b << 23;
    const V cadd = zero + (((uint32_t)(24 - elem->p) << 23) | 0x400000u);
    const V pk = zero + ((309u << 23) | 0x400000u);
    /* tiny: av below q 2^-8 (form 4), v below q 2^-7 (form 6, whose X has two more bits) */
    const int tiny_e = elem->emin + 127 + 24 - elem->p - 31 + q34;
    const V tinylim = zero + (tiny_e > 0 ? (uint32_t)tiny_e << 23 : 0u);
    /* form 4's groups wholly in E's normal range (nfast: see there) */
    const int nfast = form == 4 && nform;
    const V lowm = zero + ((1u << (24 - elem->p)) - 1u);
    const V draw_tiny = one << (24 + q34), qoff = zero + ((uint32_t)(elem->p - 1) << 23);
#else
    (void)nform;
#endif
    int flagged = 0;
#if SRL_MX_REG
    ISA(draws16) g = ISA(draws16_from)(ln);
#else
    if (src == 1)
        ISA(fill_pcg32)(u, k, ln);
    else if (src == 2)
        ISA(fill_pcg64)(u, k, ln);
#endif
    float cb[SRL_MX_TILE / 16][2];
    ISA(mx_scales_bs)(cb, kb, scales, x, k, bs, elem, rule);
#if SRL_ISA_LEVEL >= 2
    ISA(out16) wo; /* (groups of sixteen, streamed when nt) */
    ISA(out16_init)(&wo, y, nt, k / 16);
#else
    (void)nt;
#endif
    for (size_t i0 = 0, b = 0; i0 < k; i0 += bs, b++) {
        const float c = cb[b][0], back = cb[b][1];
#if SRL_ISA_LEVEL >= 2
        const __m512 c34 = _mm512_set1_ps(c * 0.75f); /* (3/4) 2^-k: exact (c is 2^-k) */
#endif
        const int bad = c == 0;
        for (size_t j = 0; j < bs; j += SRL_MXK) {
            const size_t i = i0 + j;
            V ud = zero;
#if SRL_MX_REG
            const ISA(group16) dg = ISA(draws16_next)(&g, src);
            ud = dg.hi;
#else
            if (src != 0) { /* the draws' high halves */
                V d0, d1;
                memcpy(&d0, u + i, sizeof d0);
                memcpy(&d1, u + i + SRL_MXK / 2, sizeof d1);
                ud = __builtin_shufflevector(d0, d1, 1, 3, 5, 7, 9, 11, 13, 15);
            }
#endif
            if (bad) { /* (the block's draws are taken all the same) */
#if SRL_ISA_LEVEL >= 2
                ISA(out16_put)(&wo, y, i / 16, _mm512_castps_si512(_mm512_set1_ps(NAN)));
#else
                for (size_t l = 0; l < SRL_MXK; l++)
                    y[i + l] = NAN;
#endif
                continue;
            }
            ISA(mxvf) vf;
            memcpy(&vf, x + i, sizeof vf);
            __builtin_prefetch((const char *)(x + i) + SRL_MX_PREFETCH_BYTES);
            V xb; /* x's bits: its zeros (a nonzero x may scale to 0, a binary32 underflow) and
                   * its signs */
            memcpy(&xb, &vf, sizeof xb);
            const V xz = (V)((xb & absm) == zero);
            vf *= c;
            V w;
            memcpy(&w, &vf, sizeof w);
            V res, sbad;
#if SRL_ISA_LEVEL >= 2
            __mmask16 ksb = 0; /* forms 4 and 6: their flagged lanes */
            if (q34) {
                /* The 3/4 rule (forms 5 and 6): v = (3/4) x 2^-k needs up to 26 bits. hz = |x|
                 * (3/4) 2^-k rounded toward zero and l = v - hz (the fused product's residual,
                 * exact for every lane that is not tiny, and 0 <= l < hz's ulp) carry v
                 * exactly. */
                const __m512 ax = (__m512)(xb & absm);
                const __m512 hz = _mm512_mul_round_ps(ax, c34,
                                                      _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                w = (V)hz;
                if (hw) {
                    /* rn (form 5): hz with its last bit set when l > 0 is v rounded to odd in
                     * binary32 (the residual rounded up: nonzero iff l is). E's points and
                     * midpoints are binary32 numbers with two or more zero bits at the end
                     * (p <= 22), so v and its odd rounding lie on the same side of each, or v
                     * is one of them and exact: RN_E of the one is RN_E of the other, and form
                     * 3 rounds it. */
                    const __m512 l = _mm512_fmsub_round_ps(
                        ax, c34, hz, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
                    const __mmask16 st = _mm512_test_epi32_mask((__m512i)l, (__m512i)absm);
                    w = (V)_mm512_mask_or_epi32((__m512i)w, st, (__m512i)w, (__m512i)one);
                }
            }
            if (hw) {
                /* rn by binary32's own addition (form 3; mx_tile says when): with q av's
                 * spacing in E (2^(max(e, emin) - p + 1), E's subnormal spacing below its
                 * normal range) and C = 1.5 x 2^23 q, C + av lies in C's binade (av < 2^p q <=
                 * 2^22 q), whose spacing is q, so the sum rounded to nearest-even is C plus av
                 * rounded to E's grid, ties to the even multiple of q (C is one), and the
                 * difference is exact: RN_E(av), the carry form's result, in three instructions
                 * and no shifts. The rounding is the instruction's own, whatever MXCSR says. */
                const V av = ISA(mx_min)(w & absm, sat);
                const V cq = ISA(mx_max)(av & expm, eminq) + cadd;
                const __m512 t = _mm512_add_round_ps((__m512)av, (__m512)cq,
                                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                res = (V)_mm512_sub_round_ps(t, (__m512)cq,
                                             _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                sbad = zero;
            } else if (hwsr) {
                /* sr by the addition (form 4): C as in form 3; C + av rounded toward zero is C
                 * plus av rounded down to E's grid, so down = (C + av) - C and rem = av - down
                 * are exact, and X = rem 2^32 / q (a product by a power of two, exact) is the
                 * carry form's low bits of av put at the draw's scale: an integer below 2^32
                 * for every lane that is not tiny. Up (one step of C's binade, q) iff X > the
                 * draw's 32 bits, the carry form's rule; a tiny lane (av below q 2^-8, the
                 * carry form's sv > 31) has X < 2^24 and is flagged where the draw is below
                 * 2^24, as the carry form flags it. */
                const V av = ISA(mx_min)(w & absm, sat);
                if (nfast && _mm512_cmpge_epu32_mask((__m512i)av, (__m512i)eminq) == 0xffff) {
                    /* a group wholly in E's normal range (mx_tile says for which E: almost
                     * every group of fp8): E's spacing is av's ulp times 2^s, s = 24 - p, so
                     * the carry form's sr with that constant s: the draw's first 32 - s bits
                     * inverted, added to av, the low s bits cleared (up iff the low bits of av
                     * exceed the draw's first 32 - s, the same rule as X > the draw's 32 bits
                     * for an X that is a multiple of 2^(32 - s)). No lane is tiny. */
                    res = (av + ((ud >> (uint32_t)(8 + elem->p)) ^ lowm)) & ~lowm;
                    sbad = zero;
                } else {
                    const V mq = ISA(mx_max)(av & expm, eminq), cq = mq + cadd;
                    const __m512 cf = (__m512)cq;
                    const __m512 s32 = (__m512)(pk - cq); /* 2^32 / q */
                    const __m512 t = _mm512_add_round_ps((__m512)av, cf,
                                                         _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                    const __m512 down = _mm512_sub_round_ps(t, cf,
                                                            _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                    const __m512 rem = _mm512_sub_round_ps((__m512)av, down,
                                                           _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                    const __m512 xs = _mm512_mul_round_ps(rem, s32,
                                                          _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                    __m512i xi = _mm512_cvtt_roundps_epu32(xs, _MM_FROUND_NO_EXC);
                    if (q34) {
                        /* form 6: X = (rem + l) 2^32 / q, the two parts' sum as integers.
                         * l 2^32 / q is an integer below 2^(p + 8) (v's last bit is 2^-25 of
                         * its binade's top, q 2^-(p - 1) of it or more) and rem 2^32 / q one at
                         * most 2^32 - 2^(p + 8) (rem a multiple of hz's ulp, below q): X < 2^32,
                         * exact. A lane clipped to E's largest value has no residual. */
                        const __m512 ax = (__m512)(xb & absm); /* (the prologue's, again) */
                        const __m512 l = _mm512_fmsub_round_ps(
                            ax, c34, (__m512)w, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                        const __mmask16 in = _mm512_cmplt_epu32_mask((__m512i)w, (__m512i)sat);
                        const __m512 xl = _mm512_mul_round_ps(
                            l, s32, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                        xi = _mm512_add_epi32(
                            xi, _mm512_maskz_cvtt_roundps_epu32(in, xl, _MM_FROUND_NO_EXC));
                    }
                    const __mmask16 up = _mm512_cmpgt_epu32_mask(xi, (__m512i)ud);
                    /* down + q (exact: at most 2^p q), q from C's exponent field */
                    res = (V)_mm512_mask_add_round_ps(down, up, down, (__m512)(mq - qoff),
                                                      _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                    /* (in a mask register, made a vector only for a flagged group). Three mask
                     * operations every group, no branch: a branch on the draw alone (below
                     * 2^24, 2^25 with the 3/4 rule) is taken in 6% or 12% of the groups, at
                     * random, and its mispredictions cost the 3/4 rule's sr 10-15% at 10^7
                     * values (one thread, Zen 4). */
                    ksb = _mm512_cmplt_epu32_mask((__m512i)ud, (__m512i)draw_tiny);
                    ksb = _mm512_mask_cmplt_epu32_mask(ksb, (__m512i)av, (__m512i)tinylim);
                    ksb = _mm512_mask_test_epi32_mask(ksb, (__m512i)xb, (__m512i)absm); /* 0 */
                    sbad = zero;
                }
            } else
#endif
            if (fast) { /* see above */
                V av, sub = zero;
                if (wide) { /* (3/4) x 2^-k = 3M 2^(e - 152 - k), exactly, on the wide pattern */
                    typedef int32_t S __attribute__((vector_size(sizeof(V))));
                    V ax;
                    memcpy(&ax, x + i, sizeof ax);
                    ax &= absm;
                    const V ex = ax >> 23, m = (ax & 0x7fffffu) | (one << 23), m3 = m + (m << 1);
                    const V hi = m3 >> 25, eb = ex + hi + (uint32_t)(bw - 128 - kb[b]);
                    const V fw = (m3 << (one - hi)) & ((one << 25) - one);
                    sub = (V)(ex == zero) & ~xz; /* a binary32 subnormal: the reference path */
                    av = ((eb << 25) | fw) & (V)((S)eb > (S)zero) & ~(V)(ex == zero);
                    av = ISA(mx_min)(av, satw);
                } else {
                    av = ISA(mx_min)(w & absm, sat);
                }
                const V e = av >> mb;
                const V sv = ISA(mx_maxs)(c_sv - e, c_offw), small = (V)(sv > (uint32_t)(mb - 1));
                const V s = ISA(mx_min)(sv, zero + (uint32_t)(mb - 1)), mask = (one << s) - one;
                if (mode == SRL_RN) {
                    const V up = (V)(av >= q_3half);
                    const V rs = (q_two & up) | (qw & ~up & (V)(av > q_half));
                    const V rn = (av + (mask >> 1) + ((av >> s) & one)) & ~mask;
                    res = (rn & ~small) | (rs & small);
                    sbad = sub;
                } else {
                    const V tiny = (V)(sv > 31);
                    const V f1 = (((av & (implicit - one)) | implicit)
                                  << (zero + 32 - ISA(mx_min)(sv, zero + 31))) & ~tiny;
                    const V n = ((V)(sv == zero + (uint32_t)mb) & one) + ((V)(ud < f1) & one);
                    const V rs = (qw + ((n >> 1) << mb)) & ~(V)(n == zero);
                    const V rn = (av + (~ud >> (zero + 32 - s))) & ~mask;
                    res = (rn & ~small) | (rs & small);
                    sbad = (tiny & ~xz & (V)(ud < (one << (mb + 1)))) | sub;
                }
                if (wide) /* back to binary32 (the low two bits are 0: p <= 23) */
                    res = ((((res >> 25) + (uint32_t)(127 - bw)) << 23) |
                           ((res & ((one << 25) - one)) >> 2)) & ~(V)(res == zero);
            } else {
                V av = w & absm;
                const V over = (V)(av > sat); /* (a NaN's lanes: its block is special) */
                if (elem->saturate)
                    av = (av & ~over) | (sat & over);
                const V e = av >> 23, el = (e & (V)(e > emin_b)) | (emin_b & ~(V)(e > emin_b));
                const V sv = (el + c_off) - (e | ((V)(e == zero) & one));
                V und = zero;
                res = SRL_MX_SUB(av, sv, w >> 31, ud, mode, r, 32, qbits, &sbad, &und);
                sbad &= ~xz;
                if (!elem->saturate) /* overflow: the reference path */
                    sbad |= over;
            }
            ISA(mxvf) of;
            const V ob = res | (xb & sgn);
            memcpy(&of, &ob, sizeof of);
            of *= back;
#if SRL_ISA_LEVEL >= 2
            ISA(out16_put)(&wo, y, i / 16, (__m512i)of);
#else
            memcpy(y + i, &of, sizeof of);
#endif
#if SRL_ISA_LEVEL >= 2
            if (hwsr && __builtin_expect(ksb != 0, 0))
                sbad = (V)_mm512_movm_epi32(ksb);
            if (__builtin_expect(hwsr ? ksb != 0 : SRL_MX_ANY(sbad), 0)) {
#else
            if (__builtin_expect(SRL_MX_ANY(sbad), 0)) {
#endif
                if (!flagged)
                    memset(flag, 0, k);
                flagged = 1;
                for (size_t l = 0; l < SRL_MXK; l++)
                    flag[i + l] = (unsigned char)(sbad[l] & 1u);
#if SRL_MX_REG
                ISA(draws16_put)(&g, dg, src, u + i);
#endif
            }
        }
    }
#if SRL_ISA_LEVEL >= 2
    ISA(out16_end)(&wo, y, k / 16);
#endif
#if SRL_MX_REG
    ISA(draws16_to)(&g, ln);
#endif
    return flagged;
}

static int ISA(mx_tile)(float *y, uint8_t *scales, int *kb, const float *x, size_t k, size_t bs,
                        const srl_format *elem, int rule, srl_rounding m, srl__lanes *ln, int src,
                        uint64_t *u, unsigned char *flag, int nt)
{
    const int r32 = m.r < 32 ? m.r : 32; /* (vec_f2f) */
    /* (the draws' source known to the compiler where it can be: a deterministic mode makes
     * none, and the fast forms' sr with pcg32 then steps its states with no test per group) */
#define SRL_MXT(MODE, R)                                                                          \
    ISA(mx_tile_m)(y, scales, kb, x, k, bs, elem, rule, MODE, R, ln,                               \
                   (MODE) == SRL_SR || (MODE) == SRL_SR_EQ || (MODE) == SRL_SR_BITS ? src : 0, u, \
                   flag, 0, 0, nt)
#define SRL_MXF(MODE, FORM)                                                                       \
    ((MODE) == SRL_RN ? ISA(mx_tile_m)(y, scales, kb, x, k, bs, elem, rule, MODE, 0, ln, 0, u,    \
                                       flag, FORM, nform, nt)                                      \
     : src == 1       ? ISA(mx_tile_m)(y, scales, kb, x, k, bs, elem, rule, MODE, 0, ln, 1, u,    \
                                       flag, FORM, nform, nt)                                      \
                      : ISA(mx_tile_m)(y, scales, kb, x, k, bs, elem, rule, MODE, 0, ln, src, u,  \
                                       flag, FORM, nform, nt))
    int form = srl__mx_form(elem, rule, m.mode);
    /* sr's groups wholly in E's normal range take form 4's shortcut where nearly all are: where
     * E's normal range spans 2^10 or more below a block's largest magnitude (fp8). The test is
     * a branch; where groups leave the range now and then (e3m2: about one in five, for normal
     * data) the predictor cannot learn it on real arrays, and its misses cost more than the
     * shortcut saves. e3m2 sr of 10^7 values ran at 850 Mvalues/s with it, 1170 without (one
     * thread, Zen 4). A small array rounded many times over hides this, as the predictor then
     * learns that array's outcomes (65536 values: 2245 with, 1925 without). For e2m1, e2m3 and
     * int8 the test would mostly fail. */
    const int nform = elem->emax - elem->emin >= 10;
#if SRL_ISA_LEVEL >= 2
    /* rn by the addition (mx_tile_m's form 3) where C = 1.5 x 2^23 q is a normal binary32
     * number for every q of E (E's normal range inside binary32's, and C below 2^128) and
     * C + av stays in C's binade (p <= 22) */
    const int add = (form == 1 || form == 2) && elem->p <= 22 && elem->emin >= -126 &&
                    elem->emax - elem->p + 24 <= 127;
    if (add && m.mode == SRL_RN)
        form = form == 2 ? 5 : 3; /* (the 3/4 rule: form 5) */
    /* sr likewise (form 4; 6 with the 3/4 rule), where 2^32 / q is a normal binary32 number
     * too */
    else if (add && m.mode == SRL_SR && elem->emin - elem->p + 1 >= -95)
        form = form == 2 ? 6 : 4;
#endif
    if (rule == SRL__MX_RULE_34 && form != 2 && form < 5)
        return -1; /* (the caller takes the scaled tile) */
    switch (m.mode) {
    case SRL_RN:
        return form == 5   ? SRL_MXF(SRL_RN, 5)
               : form == 3 ? SRL_MXF(SRL_RN, 3)
               : form == 2 ? SRL_MXF(SRL_RN, 2)
               : form      ? SRL_MXF(SRL_RN, 1)
                           : SRL_MXT(SRL_RN, 0);
    case SRL_RNA: return SRL_MXT(SRL_RNA, 0);
    case SRL_RZ: return SRL_MXT(SRL_RZ, 0);
    case SRL_RU: return SRL_MXT(SRL_RU, 0);
    case SRL_RD: return SRL_MXT(SRL_RD, 0);
    case SRL_RO: return SRL_MXT(SRL_RO, 0);
    case SRL_SR:
        return form == 6   ? SRL_MXF(SRL_SR, 6)
               : form == 4 ? SRL_MXF(SRL_SR, 4)
               : form == 2 ? SRL_MXF(SRL_SR, 2)
               : form      ? SRL_MXF(SRL_SR, 1)
                           : SRL_MXT(SRL_SR, 0);
    case SRL_SR_EQ: return SRL_MXT(SRL_SR_EQ, 0);
    case SRL_SR_BITS: return SRL_MXT(SRL_SR_BITS, r32);
    default: return -1; /* (a mode without a loop: the caller's other path) */
    }
#undef SRL_MXT
#undef SRL_MXF
}
#undef SRL_MX_SUB
#undef SRL_MX_ANY
#undef SRL_MXK
#undef SRL_MX_REG

/* y[0..k) = t[0..k), the 64-byte-aligned part of y with streaming stores (mx tiles of large
 * arrays: the output is not read before it is overwritten). */
static void ISA(stream_copy32)(float *y, const float *t, size_t k)
{
    size_t h = ((64 - ((uintptr_t)y & 63)) & 63) / sizeof *y;
    h = h < k ? h : k;
    memcpy(y, t, h * sizeof *y);
    size_t i = h;
    for (; i + 16 <= k; i += 16) {
        srl__u64x8 v;
        memcpy(&v, t + i, sizeof v);
        ISA(store64)(y + i, v, 1);
    }
    memcpy(y + i, t + i, (k - i) * sizeof *y);
}
