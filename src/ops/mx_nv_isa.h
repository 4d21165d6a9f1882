/* src/ops/mx_nv_isa.h: NVFP4's elements of binary32 inputs without a division (template,
 * instantiated per instruction set by src/ops/mx.c through src/core/isa_instantiate.h).
 *
 * An element is q = x / v rounded once into E2M1 (v = s_b s_t: a 4-bit E4M3 value times a
 * binary32, at most 28 significant bits, exact in binary64), then e v rounded to binary32. In
 * binary64 lanes: the binade of |q| from |x| >= 2v, 4v (exact products), so the grid spacing of
 * |q| is 2^qe (qe = -1, 0, 1) and |x| = (T + f) w with w = v 2^qe exactly; T from |x| times
 * 1/w (rounded twice: off by at most one, which the sign of r0 = |x| - T w corrects); then
 * r = |x| - T w is exact (|x| >= T w >= w puts |x|'s last bit at most 2^23 times below w's top
 * bit, and w has 28 bits, so r < w needs at most 52 bits; T = 0: r = |x|). Every deterministic
 * mode decides from r, w and T exactly: inexact iff r > 0, rn / rna from 2r against w. sr and
 * sr:r=R need f = r / w: fa = r (1/w) lies within 2^-51.9 of f, so U < f is decided from the
 * draw's first 32 bits unless they fall within 2^-16 units of f 2^32 (sr:r=R: F = floor(f 2^R)
 * unless f 2^R lies within 2^(R-50) of an integer); such a lane (probability about 2^-31) is
 * flagged for the reference path. |q| >= 6 gives 6 in every mode (E2M1 saturates); the result
 * (T + away) w, at most 6v, is exact in binary64 and rounded once to binary32 as the reference's
 * (double)(e s) is. Blocks of 16 in rn, rna, rz and sr take nv_cmp16 / nv_sr16 below instead:
 * E2M1's result by binary32 comparisons of |x| with a row of constants per E4M3 code (mx.c's
 * nv_rows says why they decide exactly). */

/* Elements [0, k) of x, k a multiple of 8, blocks of bs (a multiple of 8) elements with vb[b]
 * per block (0: a zero scale, giving +-0; NaN: a block with a NaN or an infinity, giving NaN)
 * and rb[b] = 1 / vb[b] rounded;
 * u: the elements' draws. Returns whether a lane was flagged (flag[i] = 1; flag is cleared
 * here first when so). */
#include "round/lanes_isa.h" /* (pcg32's lane output, for nv_sr16's draws; out16) */

typedef int64_t ISA(nv_s64x8) __attribute__((vector_size(64)));

/* Lanes of a where m (0 or -1 per lane), else of b (binary64 lanes; D and U in scope). */
#define SRL_NV_SEL(m, a, b)                                                                       \
    __extension__({                                                                               \
        const D a_ = (a), b_ = (b);                                                               \
        U ua_, ub_;                                                                               \
        memcpy(&ua_, &a_, sizeof ua_);                                                            \
        memcpy(&ub_, &b_, sizeof ub_);                                                            \
        ua_ = (ua_ & (U)(m)) | (ub_ & ~(U)(m));                                                   \
        D r_;                                                                                     \
        memcpy(&r_, &ua_, sizeof r_);                                                             \
        r_;                                                                                       \
    })

/* The same for 64-bit integer lanes. */
#define SRL_NV_SEL_S(m, a, b) (((a) & (m)) | ((b) & ~(m)))

static inline __attribute__((always_inline)) int
ISA(nv_elems_m)(float *y, const float *x, size_t k, size_t bs, const double *vb, const double *rb,
                srl_mode mode, int r, const uint64_t *u, unsigned char *flag)
{
    typedef srl__f64x8 D;
    typedef srl__u64x8 U;
    typedef ISA(nv_s64x8) S;
    const U sgnm = (U){0} + 0x8000000000000000u;
    int flagged = 0;
    for (size_t i = 0; i < k; i += 8) {
        const double v = vb[i / bs];
        srl__f32x8 xf;
        memcpy(&xf, x + i, sizeof xf);
        if (!(v > 0)) { /* a zero scale: +-0; a NaN one: NaN */
            for (int l = 0; l < 8; l++)
                y[i + l] = v == 0 ? copysignf(0.0f, xf[l]) : NAN;
            continue;
        }
        const D xd = __builtin_convertvector(xf, D);
        U bits;
        memcpy(&bits, &xd, sizeof bits);
        const U sgn = bits & sgnm, abits = bits & ~sgnm;
        D ax;
        memcpy(&ax, &abits, sizeof ax);
        const D vv = (D){0} + v, rv = (D){0} + rb[i / bs];
        const S big = ax >= vv * 4, mid = ax >= vv * 2, sat = ax >= vv * 6, neg = (S)sgn != 0;
        /* w = v/2, v, 2v and 1/w likewise (powers of two apart: exact) */
        const D w1 = SRL_NV_SEL(mid, vv, vv * 0.5), rw1 = SRL_NV_SEL(mid, rv, rv * 2);
        const D w = SRL_NV_SEL(big, vv * 2, w1), rw = SRL_NV_SEL(big, rv * 0.5, rw1);
        D qa = ax * rw;
        qa = SRL_NV_SEL(qa < 8, qa, (D){0} + 8); /* (a saturated lane's T is not used) */
        S T = __builtin_convertvector(qa, S);
        const D r0 = ax - __builtin_convertvector(T, D) * w;
        T = T + (S)(r0 >= w) - (S)(r0 < 0); /* (comparisons are 0 or -1) */
        const D Td = __builtin_convertvector(T, D), rr = ax - Td * w;
        const S inexact = rr > 0, todd = (T & 1) != 0;
        S away = (S){0}, und = (S){0};
        switch (mode) {
        case SRL_RN: away = (rr * 2 > w) | ((rr * 2 == w) & todd); break;
        case SRL_RNA: away = rr * 2 >= w; break;
        case SRL_RZ: break;
        case SRL_RU: away = inexact & ~neg; break;
        case SRL_RD: away = inexact & neg; break;
        case SRL_RO: away = inexact & ~todd; break;
        case SRL_SR_EQ: {
            U ub;
            memcpy(&ub, u + i, sizeof ub);
            away = inexact & -(S)(ub >> 63);
            break;
        }
        case SRL_SR: {
            U ub;
            memcpy(&ub, u + i, sizeof ub);
            const D uf = __builtin_convertvector(ub >> 32, D);
            const D d = rr * rw * 0x1p32 - uf;
            away = inexact & (d >= 1 + 0x1p-16);
            und = inexact & ~away & (d > -0x1p-16);
            break;
        }
        case SRL_SR_BITS: {
            U ub;
            memcpy(&ub, u + i, sizeof ub);
            if (r > 48) {
                und = inexact;
                break;
            }
            const double sc = (double)(UINT64_C(1) << r), e = sc * 0x1p-50;
            const D g = rr * rw * sc;
            const S flo = __builtin_convertvector(g - e, S), fhi = __builtin_convertvector(g + e, S);
            const S F = __builtin_convertvector(g, S), Z = (S)(ub >> (64 - r));
            und = inexact & ((flo != fhi) | (g - e < 0));
            away = inexact & ~und & ((F + Z) >= (S){0} + (int64_t)(UINT64_C(1) << r));
            break;
        }
        default: und = (S){0} - 1; break;
        }
        D m = (Td + __builtin_convertvector(away & 1, D)) * w;
        m = SRL_NV_SEL((m < vv * 6) & ~sat, m, vv * 6);
        U mb;
        memcpy(&mb, &m, sizeof mb);
        mb |= sgn;
        memcpy(&m, &mb, sizeof m);
        const srl__f32x8 yf = __builtin_convertvector(m, srl__f32x8);
        memcpy(y + i, &yf, sizeof yf);
        srl__u64x4 u4, h4;
        memcpy(&u4, &und, sizeof u4);
        memcpy(&h4, (const char *)&und + sizeof u4, sizeof h4);
        u4 |= h4;
        if (__builtin_expect((u4[0] | u4[1] | u4[2] | u4[3]) != 0, 0)) {
            if (!flagged)
                memset(flag, 0, k);
            flagged = 1;
            for (int l = 0; l < 8; l++)
                flag[i + l] = und[l] != 0;
        }
    }
    return flagged;
}

/* ---- rn, rna and rz of blocks of 16 by comparisons (binary32 lanes, no flags): the constants
 * per E4M3 code (mx.c's nv_rows, which says why these comparisons decide) ---- */

#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
/* The number of thresholds of `row` that ax passes, plus 16 (nv_rows's estimate c0 from t32
 * (ta, tb), then one comparison); *rowv: the row (thresholds in lanes 0-7, results in 8-15). */
static inline __attribute__((always_inline)) __m512i
ISA(nv_count)(__m512 ax, const nv_row *row, float rv, __m512i ta, __m512i tb, __m512i *rowv)
{
    const __m512 q = _mm512_mul_ps(ax, _mm512_set1_ps(rv));
    const __m512i k = _mm512_min_epu32(_mm512_cvttps_epu32(q), _mm512_set1_epi32(31));
    const __m512i c0 = _mm512_permutex2var_epi32(ta, k, tb);
    *rowv = _mm512_load_si512((const void *)row);
    const __m512 th = _mm512_castsi512_ps(_mm512_permutexvar_epi32(c0, *rowv));
    return _mm512_mask_add_epi32(c0, _mm512_cmp_ps_mask(ax, th, _CMP_GT_OQ), c0,
                                 _mm512_set1_epi32(1));
}

/* Lanes c - 16 (c = 16 .. 23) of the row's results: indices 16 .. 31 take the second table, the
 * 64 bytes from the row's results on (into the next row or the padding). */
static inline __attribute__((always_inline)) __m512i ISA(nv_res)(__m512i rowv, const nv_row *row,
                                                                  __m512i c)
{
    return _mm512_permutex2var_epi32(rowv, c, _mm512_loadu_si512((const void *)row->res));
}
#endif

/* y[0, 16 nb) from x's blocks of 16 by the rows of their scales' codes; nt: streaming stores
 * (lanes_isa.h's out16). Below AVX-512, or with a tensor scale outside nv_rows's est, the
 * thresholds one by one (the results' selections nested as the thresholds are nondecreasing). */
static void ISA(nv_cmp16)(float *y, const float *x, size_t nb, const uint8_t *codes,
                          const nv_tab *t, int nt)
{
#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
    if (t->est) {
        ISA(out16) w;
        ISA(out16_init)(&w, y, nt, nb);
        const __m512i ta = _mm512_loadu_si512((const void *)t->t32),
                      tb = _mm512_loadu_si512((const void *)(t->t32 + 16)),
                      absm = _mm512_set1_epi32(0x7fffffff);
        for (size_t b = 0; b < nb; b++) {
            const unsigned code = codes[b];
            const nv_row *row = t->row + code;
            const __m512i bits = _mm512_loadu_si512((const void *)(x + 16 * b));
            const __m512 ax = _mm512_castsi512_ps(_mm512_and_si512(bits, absm));
            __m512i rowv;
            const __m512i c = ISA(nv_count)(ax, row, t->rx[code].rv, ta, tb, &rowv);
            const __m512i o = _mm512_ternarylogic_epi32(ISA(nv_res)(rowv, row, c), bits,
                                                        _mm512_set1_epi32((int)t->rx[code].sm),
                                                        0xF8); /* a | (b & c) */
            ISA(out16_put)(&w, y, b, o);
        }
        ISA(out16_end)(&w, y, nb);
        return;
    }
#endif
    (void)nt;
    typedef srl__u32x16 V;
    for (size_t b = 0; b < nb; b++) {
        V bits;
        memcpy(&bits, x + 16 * b, sizeof bits);
        srl__f32x16 ax;
        const V ab = bits & 0x7fffffffu;
        memcpy(&ax, &ab, sizeof ax);
        const nv_row *row = t->row + codes[b];
        V o = (V){0} + row->res[0];
        for (int j = 0; j < 7; j++) {
            const V m = (V)(ax > row->th[j]);
            o = (o & ~m) | (((V){0} + row->res[j + 1]) & m);
        }
        o |= bits & t->rx[codes[b]].sm;
        memcpy(y + 16 * b, &o, sizeof o);
    }
}

#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
/* nv_sr16's loop; reg: the draws' first 32 bits made here from pcg32 states (nv_lanes) rather
 * than read from u. */
static inline __attribute__((always_inline)) int
ISA(nv_sr16_m)(float *y, const float *x, size_t nb, const uint8_t *codes, const nv_tab *t,
               const uint64_t *u, nv_lanes *ln, unsigned char *flag, int nt, int reg)
{
    int flagged = 0;
    const __m512i absm = _mm512_set1_epi32(0x7fffffff), one = _mm512_set1_epi32(1);
    const __m512i ta = _mm512_loadu_si512((const void *)t->t32),
                  tb = _mm512_loadu_si512((const void *)(t->t32 + 16));
    const __m512i hi32 =
        _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const __m512 bnd = _mm512_set1_ps(2048), nbnd = _mm512_set1_ps(-2048);
    ISA(out16) w;
    ISA(out16_init)(&w, y, nt, nb);
    srl__u64x8 s0 = reg ? ln->s[0] : (srl__u64x8){0}, s1 = reg ? ln->s[1] : (srl__u64x8){0};
    const uint64_t la = reg ? ln->a : 0, lc = reg ? ln->c : 0;
    for (size_t b = 0; b < nb; b++) {
        const unsigned code = codes[b];
        const nv_row *row = t->row + code;
        const nv_srrow *sw = t->sr + code;
        const __m512i bits = _mm512_loadu_si512((const void *)(x + 16 * b));
        const __m512 ax = _mm512_castsi512_ps(_mm512_and_si512(bits, absm));
        __m512i rowv;
        const __m512i c = ISA(nv_count)(ax, row, t->rx[code].rv, ta, tb, &rowv);
        __m512i d;
        if (reg) { /* the sixteen elements' first outputs, then the states 32 steps on */
            const srl__u32x16 d16 = ISA(lane_pcg32_out16)(s0, s1);
            memcpy(&d, &d16, sizeof d);
            s0 = s0 * la + lc;
            s1 = s1 * la + lc;
        } else { /* (the draws' high halves) */
            d = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)(u + 16 * b)), hi32,
                                          _mm512_loadu_si512((const void *)(u + 16 * b + 8)));
        }
        /* the fraction F = (|x| - g_k v) 2^32 / (w_k v) less the draw's first 32 bits U */
        const __m512 lo = _mm512_castsi512_ps(ISA(nv_res)(rowv, row, c));
        const __m512i swv = _mm512_load_si512((const void *)sw);
        const __m512 r2 = _mm512_sub_ps(_mm512_sub_ps(ax, lo),
                                        _mm512_castsi512_ps(_mm512_permutexvar_epi32(c, swv)));
        const __m512 rk = _mm512_castsi512_ps(
            _mm512_permutex2var_epi32(swv, c, _mm512_loadu_si512((const void *)sw->r)));
        const __m512 dd = _mm512_sub_ps(_mm512_mul_ps(r2, rk), _mm512_cvtepu32_ps(d));
        const __mmask16 away = _mm512_cmp_ps_mask(dd, bnd, _CMP_GE_OQ);
        const __mmask16 und = _mm512_mask_cmp_ps_mask(
            _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(r2, _mm512_setzero_ps(), _CMP_GT_OQ), dd,
                                    nbnd, _CMP_GT_OQ),
            dd, bnd, _CMP_LT_OQ);
        const __m512i o = _mm512_ternarylogic_epi32(
            ISA(nv_res)(rowv, row, _mm512_mask_add_epi32(c, away, c, one)), bits,
            _mm512_set1_epi32((int)t->rx[code].sm), 0xF8); /* a | (b & c) */
        ISA(out16_put)(&w, y, b, o);
        if (__builtin_expect(und != 0, 0)) {
            if (!flagged)
                memset(flag, 0, 16 * nb);
            flagged = 1;
            for (int l = 0; l < 16; l++)
                flag[16 * b + (size_t)l] = (und >> l) & 1;
        }
    }
    ISA(out16_end)(&w, y, nb);
    if (reg)
        ln->s[0] = s0, ln->s[1] = s1;
    return flagged;
}
#endif

/* sr of x's blocks of 16 (y[0, 16 nb)) with the draws u (or, u NULL, pcg32's from ln, whose
 * states move on 32 steps per block), by the rows of their scales' codes made for rz and
 * nv_rows_sr's: the estimate and the comparison (nv_count) give k, |q|'s lower neighbour g_k on
 * E2M1's grid (k = 7: |q| >= 6, which gives 6 whatever the draw), the result's bits RN32(g_k v)
 * and, one step more, RN32(g_(k+1) v). The draw decides between them as nv_elems's does, in
 * binary32 lanes: r1 = |x| - RN32(g_k v) is exact (Sterbenz: |x| >= g_k v and |x| < g_(k+1) v
 * <= 2 g_k v for k >= 1; k = 0: |x|), r1 - lo[k] is r = |x| - g_k v rounded once (so r > 0 iff
 * inexact), times r[k] F = r 2^32 / (w_k v) within 3.0001 2^-24 F < 769 (three roundings),
 * then less U rounded to binary32 (off by at most 128) and the difference rounded (256): D
 * within 1153 of F - U. D >= 2048 is away (F > U + 1: f above the draw whatever its other bits),
 * D <= -2048 not (F < U); a lane between, inexact, is flagged for the reference path
 * (probability about 2^-20). Returns whether a lane was flagged (flag cleared first then, over
 * [0, 16 nb)). Below AVX-512 every lane is flagged (mx.c takes this path only from x86-64-v4
 * and with nv_rows's est). y, nt: as nv_cmp16's. */
static int ISA(nv_sr16)(float *y, const float *x, size_t nb, const uint8_t *codes,
                        const nv_tab *t, const uint64_t *u, nv_lanes *ln, unsigned char *flag,
                        int nt)
{
#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
    return u ? ISA(nv_sr16_m)(y, x, nb, codes, t, u, ln, flag, nt, 0)
             : ISA(nv_sr16_m)(y, x, nb, codes, t, u, ln, flag, nt, 1);
#else
    (void)y, (void)x, (void)codes, (void)t, (void)u, (void)ln, (void)nt;
    memset(flag, 1, 16 * nb);
    return nb != 0;
#endif
}

#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
/* nv_amax8's maxima before their last permutation: block k's (k < 4) in lanes 4k and 4k + 1,
 * block 4 + k's in lanes 4k + 2 and 4k + 3. */
static inline __attribute__((always_inline)) __m512i ISA(nv_amax8_m)(const float *x)
{
    const __m512i absm = _mm512_set1_epi32(0x7fffffff);
    __m512i w[4], z[2];
    for (int p = 0; p < 4; p++) { /* lanes 0-7: block 2p's halves' maxima; 8-15: 2p + 1's */
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512((const void *)(x + 32 * p)), absm);
        const __m512i b =
            _mm512_and_si512(_mm512_loadu_si512((const void *)(x + 32 * p + 16)), absm);
        w[p] = _mm512_max_epu32(_mm512_shuffle_i32x4(a, b, 0x44), _mm512_shuffle_i32x4(a, b, 0xEE));
    }
    for (int p = 0; p < 2; p++) /* four lanes per block, blocks 4p .. 4p + 3 */
        z[p] = _mm512_max_epu32(_mm512_shuffle_i32x4(w[2 * p], w[2 * p + 1], 0x88),
                                _mm512_shuffle_i32x4(w[2 * p], w[2 * p + 1], 0xDD));
    /* 128-bit lane k: two lanes of block k, two of block 4 + k; then one each */
    __m512i m = _mm512_max_epu32(_mm512_unpacklo_epi64(z[0], z[1]),
                                 _mm512_unpackhi_epi64(z[0], z[1]));
    return _mm512_max_epu32(m, _mm512_shuffle_epi32(m, (_MM_PERM_ENUM)0xB1));
}

/* nv_amax8 of the sixteen blocks at x in one vector (block k in lane k), in registers. */
static inline __attribute__((always_inline)) __m512i ISA(nv_amax16)(const float *x)
{
    return _mm512_permutex2var_epi32(
        ISA(nv_amax8_m)(x),
        _mm512_set_epi32(30, 26, 22, 18, 28, 24, 20, 16, 14, 10, 6, 2, 12, 8, 4, 0),
        ISA(nv_amax8_m)(x + 128));
}

/* nv_amax8 of the eight blocks at x in lanes 0-7 (block k in lane k), 0 in lanes 8-15. */
static inline __attribute__((always_inline)) __m512i ISA(nv_amax8_v)(const float *x)
{
    return _mm512_maskz_permutexvar_epi32(
        0xff, _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 14, 10, 6, 2, 12, 8, 4, 0),
        ISA(nv_amax8_m)(x));
}
#endif

/* The bits of the largest magnitudes of the eight blocks of 16 at x (NaN's bits above an
 * infinity's above every finite magnitude's). AVX-512: the sixteen-lane maxima folded into one
 * vector as a transposition does (halves of two blocks side by side, then quarters, ...). */
static inline __attribute__((always_inline)) void ISA(nv_amax8)(srl__u32x8 *am, const float *x)
{
#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
    const __m256i o8 = _mm512_castsi512_si256(ISA(nv_amax8_v)(x));
    memcpy(am, &o8, sizeof *am);
#else
    srl__u32x8 am32;
    for (int l = 0; l < 8; l++) { /* each block's largest magnitude's bits */
        srl__u32x16 v;
        memcpy(&v, x + 16 * l, sizeof v);
        v &= 0x7fffffffu;
        srl__u32x8 a, b;
        memcpy(&a, &v, sizeof a);
        memcpy(&b, (const char *)&v + sizeof a, sizeof b);
        a = SRL_NV_SEL_S((srl__u32x8)(a > b), a, b);
        srl__u32x8 c = __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3);
        a = SRL_NV_SEL_S((srl__u32x8)(a > c), a, c);
        c = __builtin_shufflevector(a, a, 2, 3, 0, 1, 6, 7, 4, 5);
        a = SRL_NV_SEL_S((srl__u32x8)(a > c), a, c);
        c = __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6);
        a = SRL_NV_SEL_S((srl__u32x8)(a > c), a, c);
        am32[l] = a[0];
    }
    *am = am32;
#endif
}

/* The scales of nb whole blocks of 16 elements of x (nb a multiple of 8), eight blocks at a time
 * in binary64 lanes, as mx.c's scale_of and nv_sb make them one by one: vb[b] = s_b s_t (NaN for
 * a block with a NaN or an infinity, 0 for s_b = 0), rb[b] = 1 / vb[b] rounded (neither when vb
 * is NULL), codes[b] (when not NULL) E4M3's code of s_b (0x7F: NaN). d = t s_t, up: the ceil
 * rule (s_b rounded up). */
static void ISA(nv_scales16)(double *vb, double *rb, uint8_t *codes, const float *x, size_t nb,
                             double d, double ts, int up)
{
    typedef srl__f64x8 D;
    typedef srl__u64x8 U;
    typedef ISA(nv_s64x8) S;
    const D zero = (D){0};
    for (size_t b0 = 0; b0 < nb; b0 += 8) {
        srl__u32x8 am32;
        ISA(nv_amax8)(&am32, x + 16 * b0);
        const U amb = __builtin_convertvector(am32, U);
        const S bad = (S)(amb >= 0x7f800000u);
        srl__f32x8 af;
        memcpy(&af, &am32, sizeof af);
        const D amax = __builtin_convertvector(af, D);
        const D qa = amax / d; /* (one division per block) */
        U qb;
        memcpy(&qb, &qa, sizeof qb);
        const S e = SRL_NV_SEL_S(qa >= 0x1p-6, (S)(qb >> 52) - (1023 + 3), (S){0} - 9);
        const U spb = (U)((e + 1023) << 52), ispb = (U)((1023 - e) << 52);
        D sp, isp;
        memcpy(&sp, &spb, sizeof sp);
        memcpy(&isp, &ispb, sizeof isp);
        const D qs = SRL_NV_SEL(qa < 448, qa * isp, zero); /* (L < 16 below 448) */
        const S L = __builtin_convertvector(qs, S);
        const D lo = __builtin_convertvector(L, D) * sp, hi = lo + sp;
        D sb;
        if (up) {
            sb = SRL_NV_SEL(amax > lo * d, hi, lo);
        } else {
            const D mid = (lo + sp * 0.5) * d;
            const D tie = SRL_NV_SEL((L & 1) == 0, lo, hi), below = SRL_NV_SEL(amax < mid, lo, tie);
            sb = SRL_NV_SEL(amax > mid, hi, below);
        }
        sb = SRL_NV_SEL(qa >= 448, zero + 448, sb);
        const D v = SRL_NV_SEL(bad, zero + NAN, sb * ts);
        if (vb) {
            const D r = 1.0 / v;
            memcpy(vb + b0, &v, sizeof v);
            memcpy(rb + b0, &r, sizeof r);
        }
        if (codes) {
            U sbb;
            memcpy(&sbb, &sb, sizeof sbb);
            const S sub = sb < 0x1p-6;
            const S cn = ((S)(sbb >> 52) - 1023 + 7) << 3 | (S)((sbb >> 49) & 7);
            const S cs = __builtin_convertvector(sb * 0x1p9, S);
            S c = (cn & ~sub) | (cs & sub);
            c = (c & ~bad) | (((S){0} + 0x7F) & bad);
            typedef uint8_t C8 __attribute__((vector_size(8)));
            const C8 c8 = __builtin_convertvector(c, C8);
            memcpy(codes + b0, &c8, sizeof c8);
        }
    }
}

/* The E4M3 codes of s_b of nb whole blocks of 16 of x (nb a multiple of 8) as nv_scales16 makes
 * them, from x86-64-v4 with nv_rows_sb's est by an estimate and one comparison (nv_rows_sb says
 * why they decide), sixteen blocks at a time; otherwise by nv_scales16. */
static void ISA(nv_codes16)(uint8_t *codes, const float *x, size_t nb, const nv_tab *t)
{
#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
    if (t->sbest) {
        const __m512 rd = _mm512_set1_ps(t->rd), s10 = _mm512_set1_ps(0x1p10f);
        const __m512i up = _mm512_set1_epi32(t->up), one = _mm512_set1_epi32(1);
        for (size_t b0 = 0; b0 < nb; b0 += 16) {
            /* (in registers: two halves stored apart and loaded back as one vector make the
             * load wait until both stores are done, as no single store can forward it) */
            const __m512i a =
                b0 + 8 < nb ? ISA(nv_amax16)(x + 16 * b0) : ISA(nv_amax8_v)(x + 16 * b0);
            const __m512 amax = _mm512_castsi512_ps(a);
            const __m512 y = _mm512_mul_ps(amax, rd);
            const __m512i kn = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_castps_si512(y), 19),
                                                _mm512_set1_epi32(1920));
            const __m512i ks = _mm512_min_epi32(_mm512_cvttps_epi32(_mm512_mul_ps(y, s10)),
                                                _mm512_set1_epi32(31));
            const __m512i kf = _mm512_min_epi32(_mm512_max_epi32(ks, kn), _mm512_set1_epi32(252));
            const __m512i c0 = _mm512_srli_epi32(_mm512_add_epi32(kf, up), 1);
            const __m512 th = _mm512_i32gather_ps(c0, t->tb, 4);
            __m512i c = _mm512_mask_add_epi32(c0, _mm512_cmp_ps_mask(amax, th, _CMP_GT_OQ), c0,
                                              one);
            c = _mm512_mask_mov_epi32(
                c, _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32(0x7f800000)),
                _mm512_set1_epi32(0x7F)); /* (a NaN or an infinity in the block) */
            const __m128i c8 = _mm512_cvtepi32_epi8(c);
            memcpy(codes + b0, &c8, b0 + 8 < nb ? 16 : 8);
        }
        return;
    }
#endif
    ISA(nv_scales16)(NULL, NULL, codes, x, nb, t->d, t->ts, t->up);
}

/* The bits of the largest finite magnitude among x[0..n) (0 if none). */
static uint32_t ISA(nv_amax)(const float *x, size_t n)
{
    typedef srl__u32x16 V;
    V m = (V){0};
    size_t i = 0;
#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
    /* four running maxima, so that the loop is not one chain of dependent maxima */
    const __m512i absm = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    __m512i a4[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                     _mm512_setzero_si512()};
    for (; i + 64 <= n; i += 64)
        for (int q = 0; q < 4; q++) {
            const __m512i v =
                _mm512_and_si512(_mm512_loadu_si512((const void *)(x + i + 16 * q)), absm);
            a4[q] = _mm512_mask_max_epu32(a4[q], _mm512_cmplt_epu32_mask(v, inf), a4[q], v);
        }
    const __m512i a2 = _mm512_max_epu32(_mm512_max_epu32(a4[0], a4[1]),
                                        _mm512_max_epu32(a4[2], a4[3]));
    memcpy(&m, &a2, sizeof m);
#endif
    for (; i + 16 <= n; i += 16) {
        V v;
        memcpy(&v, x + i, sizeof v);
        v &= 0x7fffffffu;
        v &= (V)(v < 0x7f800000u); /* (an infinity or a NaN counts as 0) */
        m = SRL_NV_SEL_S((V)(v > m), v, m);
    }
    uint32_t a = 0;
    for (int l = 0; l < 16; l++)
        a = m[l] > a ? m[l] : a;
    for (; i < n; i++) {
        uint32_t b;
        memcpy(&b, x + i, sizeof b);
        b &= 0x7fffffffu;
        a = b > a && b < 0x7f800000u ? b : a;
    }
    return a;
}

/* nv_elems_m with the mode a constant in each copy (the decision's switch out of the loop). */
static int ISA(nv_elems)(float *y, const float *x, size_t k, size_t bs, const double *vb,
                         const double *rb, srl_mode mode, int r, const uint64_t *u,
                         unsigned char *flag)
{
#define SRL_NV_M(M) ISA(nv_elems_m)(y, x, k, bs, vb, rb, M, r, u, flag)
    switch (mode) {
    case SRL_RN: return SRL_NV_M(SRL_RN);
    case SRL_RNA: return SRL_NV_M(SRL_RNA);
    case SRL_RZ: return SRL_NV_M(SRL_RZ);
    case SRL_RU: return SRL_NV_M(SRL_RU);
    case SRL_RD: return SRL_NV_M(SRL_RD);
    case SRL_RO: return SRL_NV_M(SRL_RO);
    case SRL_SR: return SRL_NV_M(SRL_SR);
    case SRL_SR_EQ: return SRL_NV_M(SRL_SR_EQ);
    case SRL_SR_BITS: return SRL_NV_M(SRL_SR_BITS);
    default: return SRL_NV_M(mode); /* (every lane flagged) */
    }
#undef SRL_NV_M
}
#undef SRL_NV_SEL
#undef SRL_NV_SEL_S
