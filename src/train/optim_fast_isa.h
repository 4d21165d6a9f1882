/* src/train/optim_fast_isa.h: the fused bf16 Adam/AdamW step, as a template (private).
 *
 * src/train/optim.c compiles this file once per instruction set through
 * src/core/isa_instantiate.h, with ISA(name) naming the functions. The floating-point
 * operations are binary32, one C operation per rounding, the same sequence as
 * src/train/optim_tpl.h (so every instantiation and the generic path give the same bits:
 * tests/train/test_optim.c compares them); only the width of the vectors the compiler uses
 * differs. The pcg32 lane draw is src/round/lanes_isa.h's. */

#include "round/lanes_isa.h" /* lane_pcg32_out16: pcg32's output on sixteen states */

/* z[j] = top 16 bits of draws d .. d+k-1 (k a multiple of 32): the top half of the pcg32 output
 * 2(d+j), which is the high word of draw d+j. Lane l of ev[q] holds the state of output
 * 2(d + 8q + l); every lane steps by 64 outputs (a64, c64). Four independent vectors hide the
 * latency of the 64-bit multiply. */
static void ISA(hi16)(uint32_t *z, size_t k, srl__ov8q *ev, uint64_t a64, uint64_t c64)
{
    srl__ov8q s0 = ev[0], s1 = ev[1], s2 = ev[2], s3 = ev[3];
    for (size_t i = 0; i < k; i += 32) {
        const srl__u32x16 o01 = ISA(lane_pcg32_out16)(s0, s1) >> 16;
        const srl__u32x16 o23 = ISA(lane_pcg32_out16)(s2, s3) >> 16;
        memcpy(z + i, &o01, sizeof o01);
        memcpy(z + i + 16, &o23, sizeof o23);
        s0 = s0 * a64 + c64;
        s1 = s1 * a64 + c64;
        s2 = s2 * a64 + c64;
        s3 = s3 * a64 + c64;
    }
    ev[0] = s0, ev[1] = s1, ev[2] = s2, ev[3] = s3;
}

static void ISA(sqrt_f)(float *y, size_t k)
{
    size_t i = 0;
#if SRL_ISA_LEVEL >= 2
    for (; i + 16 <= k; i += 16)
        _mm512_storeu_ps(y + i, _mm512_sqrt_ps(_mm512_loadu_ps(y + i)));
#elif SRL_ISA_LEVEL >= 1
    for (; i + 8 <= k; i += 8)
        _mm256_storeu_ps(y + i, _mm256_sqrt_ps(_mm256_loadu_ps(y + i)));
#elif defined(__SSE2__)
    for (; i + 4 <= k; i += 4)
        _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(y + i)));
#endif
    for (; i < k; i++)
        y[i] = sqrtf(y[i]);
}

/* One tile of k <= FAST_TILE elements at w, g, m, v (bf16 patterns); z: the draws' top 16 bits
 * (used when sr; k rounded up to 32 entries). Counts into *lost, *nf, *nfg. */
SRL_INLINE void ISA(tile)(uint16_t *restrict w, const uint16_t *restrict g, uint16_t *restrict m,
                          uint16_t *restrict v, size_t k, const coef_f *c, int adamw, int sr,
                          const uint32_t *restrict z, uint64_t *lost, uint64_t *nf, uint64_t *nfg)
{
    float mb[FAST_TILE], q[FAST_TILE];
    const float b1 = c->b1, c1 = c->c1, b2 = c->b2, c2 = c->c2, bc1 = c->bc1, bc2 = c->bc2;
    const float lr = c->lr, wd = c->wd, eps = c->eps;
    uint32_t cnt_g = 0; /* per tile: k <= FAST_TILE, no overflow; 32-bit lanes vectorise */
    if (!adamw && c->decay) { /* adam: L2 term in the gradient */
        for (size_t i = 0; i < k; i++) {
            const float x = srl__bf16_to_f32(w[i]);
            const float gi = srl__bf16_to_f32(g[i]) + wd * x;
            const float mi = b1 * srl__bf16_to_f32(m[i]) + c1 * gi;
            const float vi = b2 * srl__bf16_to_f32(v[i]) + (c2 * gi) * gi;
            cnt_g += (g[i] & 0x7f80u) == 0x7f80u;
            m[i] = srl__bf16_rn(mi);
            v[i] = srl__bf16_rn(vi);
            mb[i] = mi;
            q[i] = SRL__MUT(ADAM_EPS) ? vi / bc2 + eps : vi / bc2; /* defect adam-eps */
        }
    } else {
        for (size_t i = 0; i < k; i++) {
            const float gi = srl__bf16_to_f32(g[i]);
            const float mi = b1 * srl__bf16_to_f32(m[i]) + c1 * gi;
            const float vi = b2 * srl__bf16_to_f32(v[i]) + (c2 * gi) * gi;
            cnt_g += (g[i] & 0x7f80u) == 0x7f80u;
            m[i] = srl__bf16_rn(mi);
            v[i] = srl__bf16_rn(vi);
            mb[i] = mi;
            q[i] = SRL__MUT(ADAM_EPS) ? vi / bc2 + eps : vi / bc2; /* defect adam-eps */
        }
    }
    ISA(sqrt_f)(q, k);
    uint32_t cnt_l = 0, cnt_nf = 0;
#define FAST_WRITE(STEP_EXPR, PACK)                                                               \
    for (size_t i = 0; i < k; i++) {                                                              \
        const float x = srl__bf16_to_f32(w[i]);                                                   \
        const float s = STEP_EXPR;                                                                \
        const float xe = x - s;                                                                   \
        const uint16_t nw = PACK;                                                                 \
        cnt_l += (s != 0) & (srl__bf16_to_f32(nw) == x);                                          \
        cnt_nf += (nw & 0x7f80u) == 0x7f80u;                                                      \
        w[i] = nw;                                                                                \
    }
    const int decay = adamw && c->decay;
    /* the denominator sqrt(v'/bc2) + eps; defect adam-eps: sqrt(v'/bc2 + eps) (above) */
#define FAST_DEN (SRL__MUT(ADAM_EPS) ? q[i] : q[i] + eps)
    if (decay && sr) {
        FAST_WRITE(lr * ((mb[i] / bc1) / FAST_DEN + wd * x), srl__bf16_sr16_z(xe, z[i]))
    } else if (decay) {
        FAST_WRITE(lr * ((mb[i] / bc1) / FAST_DEN + wd * x), srl__bf16_rn(xe))
    } else if (sr) {
        FAST_WRITE(lr * ((mb[i] / bc1) / FAST_DEN), srl__bf16_sr16_z(xe, z[i]))
    } else {
        FAST_WRITE(lr * ((mb[i] / bc1) / FAST_DEN), srl__bf16_rn(xe))
    }
#undef FAST_DEN
#undef FAST_WRITE
    *lost += cnt_l;
    *nf += cnt_nf;
    *nfg += cnt_g;
}

/* Elements [off, off + k) of one weight. The draws of element i are those of index
 * idx * n + i of the weight tensor's stream: the lanes are positioned once per call. */
static void ISA(chunk)(srl_step_stats *st, srl_weight *p, const coef_f *c, int adamw, int sr,
                       size_t off, size_t k, uint64_t idx)
{
    uint16_t *w = (uint16_t *)p->w->data + off;
    const uint16_t *g = (const uint16_t *)p->g->data + off;
    uint16_t *m = (uint16_t *)p->m->data + off;
    uint16_t *v = (uint16_t *)p->v->data + off;
    uint32_t z[FAST_TILE];
    srl__ov8q ev[4] = {{0}, {0}, {0}, {0}};
    uint64_t a64 = 0, c64 = 0;
    if (sr) {
        srl_rng r = p->w->rng;
        srl_rng_seek(&r, (SRL__MUT(DRAW_STUCK) ? 0 : idx) /* defect draw-stuck */ *
                             (uint64_t)p->n + off);
        uint64_t s0 = r.g.p32.state;
        for (int l = 0; l < 32; l++) {
            ev[l / 8][l % 8] = s0; /* the state of output 2(d+l) */
            s0 = s0 * SRL__PCG32_MULT + r.g.p32.inc;
            s0 = s0 * SRL__PCG32_MULT + r.g.p32.inc;
        }
        srl__lcg64_jump(&a64, &c64, SRL__PCG32_MULT, r.g.p32.inc, 64);
    }
    uint64_t lost = 0, nf = 0, nfg = 0;
    for (size_t t0 = 0; t0 < k; t0 += FAST_TILE) {
        const size_t kk = k - t0 < FAST_TILE ? k - t0 : FAST_TILE;
        if (sr)
            ISA(hi16)(z, (kk + 31) & ~(size_t)31, ev, a64, c64);
        if (SRL__MUT(DRAW_HALF)) /* defect draw-half */
            for (size_t j = 1; j < kk; j += 2)
                z[j] = z[j - 1];
        ISA(tile)(w + t0, g + t0, m + t0, v + t0, kk, c, adamw, sr, z, &lost, &nf, &nfg);
    }
    st->lost += lost;
    st->nonfinite += nf;
    st->nonfinite_grad += nfg;
}
