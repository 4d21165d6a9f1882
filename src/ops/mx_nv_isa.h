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
 * (double)(e s) is. */

/* Elements [0, k) of x, k a multiple of 8, blocks of bs (a multiple of 8) elements with vb[b]
 * per block (0: a zero scale, giving +-0; NaN: a block with a NaN or an infinity, giving NaN)
 * and rb[b] = 1 / vb[b] rounded;
 * u: the elements' draws. Returns whether a lane was flagged (flag[i] = 1; flag is cleared
 * here first when so). */
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

static int ISA(nv_elems)(float *y, const float *x, size_t k, size_t bs, const double *vb,
                         const double *rb, srl_mode mode, int r, const uint64_t *u, unsigned char *flag)
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
        if (__builtin_expect(und[0] | und[1] | und[2] | und[3] | und[4] | und[5] | und[6] | und[7],
                             0)) {
            if (!flagged)
                memset(flag, 0, k);
            flagged = 1;
            for (int l = 0; l < 8; l++)
                flag[i + l] = und[l] != 0;
        }
    }
    return flagged;
}
#undef SRL_NV_SEL
