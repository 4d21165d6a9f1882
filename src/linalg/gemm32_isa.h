/* src/linalg/gemm32_isa.h: the micro-kernels of the packed binary32 matrix product, as a template
 * (private).
 *
 * src/linalg/gemm32.c compiles this file once per instruction set through
 * src/core/isa_instantiate.h (ISA(name) names the copies). A micro-kernel computes a tile of
 * G32_MR rows by nv vectors of G32_L columns from packed operands (src/linalg/gemm32.c lays them
 * out):
 *     Ap[l * G32_MR + r] = A[i0 + r, l0 + l],   Bp[l * nv G32_L + c] = B[l0 + l, j0 + c]
 * for l = 0 .. kc-1, and runs, for every output of the tile, its own sum in the order l = 0, 1,
 * ...: s = s + Ap[l, r] * Bp[l, c], the product rounded and then the sum (two binary32 roundings,
 * -ffp-contract=off), or one fused operation with fma. The tile's G32_MR x nv sums are the
 * registers; each vector of B feeds G32_MR rows and each broadcast value of A nv vectors.
 * Lanes are independent outputs, so the width of a vector, the tile's shape and the instruction
 * set change nothing but the speed.
 * How the tile starts and ends (`how`, gemm32.c says which segment of which sum this is):
 *     G32_FRESH  s = -0 before the first term, C = s after the last. -0 + x is x for every x
 *                (both zeros included), so the first addition is the definition's start(0),
 *                the product itself (or, fused, RN(a*b)).
 *     G32_LOAD   s = C before (the same sum continued: a binary32 value read back unchanged).
 *     G32_JOIN   s = -0 before, C = C + s after: the join of a finished block of the blocked
 *                order into the sum of the blocks before it, which C holds. */

#if SRL_ISA_LEVEL >= 2
#define G32_L 16
#define G32_NV 4
#elif SRL_ISA_LEVEL == 1
#define G32_L 8
#define G32_NV 2
#else
#define G32_L 4
#define G32_NV 2
#endif
typedef float ISA(g32v) __attribute__((vector_size(4 * G32_L)));

SRL_INLINE ISA(g32v) ISA(g32_fma)(ISA(g32v) a, ISA(g32v) b, ISA(g32v) c)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(g32v))_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif SRL_ISA_LEVEL == 1
    return (ISA(g32v))_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
    for (int q = 0; q < G32_L; q++) /* not selected (src/linalg/gemm32.c): fmaf is exact anyway */
        c[q] = fmaf(a[q], b[q], c[q]);
    return c;
#endif
}

SRL_INLINE ISA(g32v) ISA(g32_splat)(float a)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(g32v))_mm512_set1_ps(a);
#elif SRL_ISA_LEVEL == 1
    return (ISA(g32v))_mm256_set1_ps(a);
#else
    ISA(g32v) v;
    for (int q = 0; q < G32_L; q++)
        v[q] = a;
    return v;
#endif
}

SRL_INLINE void ISA(g32_core)(size_t kc, const float *restrict Ap, const float *restrict Bp,
                              float *restrict C, size_t ldc, int how, const int nv,
                              const int fused)
{
    typedef ISA(g32v) V;
    enum { MR = G32_MR, L = G32_L };
    V s[MR][G32_NV];
    const V mz = ISA(g32_splat)(-0.0f);

#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            if (how == G32_LOAD)
                memcpy(&s[r][v], C + r * ldc + v * L, sizeof(V));
            else
                s[r][v] = mz;
        }
    for (size_t l = 0; l < kc; l++) {
        V b[G32_NV];
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++)
            memcpy(&b[v], Bp + l * (size_t)(nv * L) + v * L, sizeof(V));
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            const float a = Ap[l * MR + r];
#pragma GCC unroll 4
            for (int v = 0; v < nv; v++)
                s[r][v] = fused ? ISA(g32_fma)(ISA(g32_splat)(a), b[v], s[r][v])
                                : s[r][v] + a * b[v]; /* two roundings: no contraction */
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            if (how == G32_JOIN) {
                V c;
                memcpy(&c, C + r * ldc + v * L, sizeof c);
                s[r][v] = c + s[r][v];
            }
            memcpy(C + r * ldc + v * L, &s[r][v], sizeof(V));
        }
}

#define G32_INSTANCE(nv, fused)                                                                   \
    static void ISA(g32_k##nv##_##fused)(size_t kc, const float *Ap, const float *Bp, float *C,   \
                                          size_t ldc, int how)                                    \
    {                                                                                             \
        ISA(g32_core)(kc, Ap, Bp, C, ldc, how, nv, fused);                                        \
    }
G32_INSTANCE(1, 0)
G32_INSTANCE(2, 0)
#if G32_NV == 4
G32_INSTANCE(3, 0)
G32_INSTANCE(4, 0)
#endif
#if SRL_ISA_LEVEL >= 1 /* the fused product takes the hardware's fma (gemm32.c) */
G32_INSTANCE(1, 1)
G32_INSTANCE(2, 1)
#if G32_NV == 4
G32_INSTANCE(3, 1)
G32_INSTANCE(4, 1)
#endif
#endif
#undef G32_INSTANCE

/* This level's shape and micro-kernels (kern[fused][nv - 1]). */
static void ISA(g32_level)(g32_level *lv)
{
    memset(lv, 0, sizeof *lv);
    lv->lanes = G32_L;
    lv->nv = G32_NV;
    lv->kern[0][0] = ISA(g32_k1_0);
    lv->kern[0][1] = ISA(g32_k2_0);
#if G32_NV == 4
    lv->kern[0][2] = ISA(g32_k3_0);
    lv->kern[0][3] = ISA(g32_k4_0);
#endif
#if SRL_ISA_LEVEL >= 1
    lv->kern[1][0] = ISA(g32_k1_1);
    lv->kern[1][1] = ISA(g32_k2_1);
#if G32_NV == 4
    lv->kern[1][2] = ISA(g32_k3_1);
    lv->kern[1][3] = ISA(g32_k4_1);
#endif
#endif
}

#undef G32_L
#undef G32_NV
