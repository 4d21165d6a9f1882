/* src/problems/gpt_tpl.h: the GPT's forward and backward pass, written once and compiled three times by
 * src/problems/gpt.c (see src/problems/gpt_impl.h): GPT_MODE 0 (_emu: float, kernels, rounding into the
 * strategy's slots), 1 (_plain: float, plain loops), 2 (_f64: double, plain loops); REAL is the
 * element type and SFX(name) names this instance's functions.
 *
 * Legend: B sequences, T positions, C width, L layers, NH heads, hs = C/NH, V vocabulary,
 * BT = B*T rows. Row-major everywhere; "(B,T,C)" is BT rows of C.
 *
 * The order of operations is the contract that makes _emu with the fp32 strategy equal _plain bit
 * for bit: a matrix product C[i,j] = sum_l A[i,l] B[l,j] is summed from the first term in the
 * order l = 0, 1, ..., k-1, one rounding per product and per addition (the kernels' recursive
 * order, include/srlab/kernels.h); every other operation is written out below and is the same
 * code in every instance. What _emu adds is only roundings: after each line marked ROUND_ACT the
 * stored activation is rounded into the act slot, after ROUND_GRAD the stored gradient into the
 * grad slot (no-ops in _plain and _f64). Per-row statistics of layer norm (mean, 1/std) stay in
 * the compute arithmetic (REAL), as frameworks keep them in fp32.
 * Nonlinearities use the C library's expf/logf/tanhf/sqrtf (exp/log/tanh/sqrt in _f64):
 * deterministic, not correctly rounded; sqrt is correctly rounded. */

#ifndef SRL__PLAIN_CLONES
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define SRL__PLAIN_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define SRL__PLAIN_CLONES
#endif
#endif

#if GPT_MODE == 2
#define R_EXP exp
#define R_LOG log
#define R_TANH tanh
#define R_SQRT sqrt
#else
#define R_EXP expf
#define R_LOG logf
#define R_TANH tanhf
#define R_SQRT sqrtf
#endif

/* Elements below which a loop stays on the calling thread: a parallel region costs tens of
 * microseconds (more on a loaded machine), so only loops of ~10^5 operations and more fork. */
#ifndef GPT_OMP_MIN
#define GPT_OMP_MIN srl__models_omp_min
#endif

/* ---- matrix products ---- */

#if GPT_MODE == 0
/* C (m,n) = A (m,k) @ B (k,n) through the kernels; draws from rng. */
static int SFX(mm_nn)(const srl__gpt_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, srl_rng *rng, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_f(C, A, B, m, n, k, ps->accum, rng);
}
/* C (m,n) = A (m,k) @ B^T, B (n,k). */
static int SFX(mm_nt)(const srl__gpt_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, srl_rng *rng, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_nt_f(C, A, B, m, n, k, ps->accum, rng);
}
/* C (m,n) = A^T @ B, A (k,m), B (k,n). */
static int SFX(mm_tn)(const srl__gpt_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, srl_rng *rng, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_tn_f(C, A, B, m, n, k, ps->accum, rng);
}
static uint64_t SFX(mm_draws)(const srl__gpt_pass *ps, size_t m, size_t n, size_t k)
{
    return srl_gemm_draws(m, n, k, ps->accum);
}
static int SFX(round_act)(const srl__gpt_pass *ps, REAL *x, size_t n, srl_rng *rng)
{
    return srl__round_slot(x, n, &ps->act.fmt, ps->act.mode, rng);
}
static int SFX(round_grad)(const srl__gpt_pass *ps, REAL *x, size_t n, srl_rng *rng)
{
    return srl__round_slot(x, n, &ps->grad.fmt, ps->grad.mode, rng);
}
static uint64_t SFX(act_draws)(const srl__gpt_pass *ps, size_t n)
{
    return srl_rounding_is_stochastic(ps->act.mode) ? n : 0;
}
static uint64_t SFX(grad_draws)(const srl__gpt_pass *ps, size_t n)
{
    return srl_rounding_is_stochastic(ps->grad.mode) ? n : 0;
}
#else
/* Row i of C: c = a_i0 B[0,:], then c += a_il B[l,:] for l = 1 .. k-1 (the i-l-j loop keeps
 * every output's order l = 0, 1, ...; the compiler vectorises over j). Cloned for x86-64-v3 and
 * v4 and picked at run time, as the kernels' engines are: -ffp-contract=off and the fixed order
 * make every clone compute the same bits, only faster. */
SRL__PLAIN_CLONES
static void SFX(row_nn)(REAL *restrict c, const REAL *a, size_t astep, const REAL *restrict B,
                        size_t n, size_t k)
{
    const REAL a0 = a[0];
    for (size_t j = 0; j < n; j++)
        c[j] = a0 * B[j];
    for (size_t l = 1; l < k; l++) {
        const REAL al = a[l * astep];
        const REAL *restrict b = B + l * n;
        for (size_t j = 0; j < n; j++)
            c[j] = c[j] + al * b[j];
    }
}
static int SFX(mm_nn)(const srl__gpt_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, srl_rng *rng, REAL *scratch)
{
    (void)ps, (void)rng, (void)scratch;
    if (k == 0) {
        memset(C, 0, m * n * sizeof *C);
        return SRL_OK;
    }
#pragma omp parallel for schedule(static) if (m * n * k >= 4 * GPT_OMP_MIN && m > 1)
    for (size_t i = 0; i < m; i++)
        SFX(row_nn)(C + i * n, A + i * k, 1, B, n, k);
    return SRL_OK;
}
static int SFX(mm_tn)(const srl__gpt_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, srl_rng *rng, REAL *scratch)
{
    (void)ps, (void)rng, (void)scratch;
    if (k == 0) {
        memset(C, 0, m * n * sizeof *C);
        return SRL_OK;
    }
#pragma omp parallel for schedule(static) if (m * n * k >= 4 * GPT_OMP_MIN && m > 1)
    for (size_t i = 0; i < m; i++)
        SFX(row_nn)(C + i * n, A + i, m, B, n, k);
    return SRL_OK;
}
/* B (n,k) transposed into scratch (k,n), then the i-l-j product. */
static int SFX(mm_nt)(const srl__gpt_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, srl_rng *rng, REAL *scratch)
{
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < k; l++)
            scratch[l * n + j] = B[j * k + l];
    return SFX(mm_nn)(ps, C, A, scratch, m, n, k, rng, NULL);
}
static uint64_t SFX(mm_draws)(const srl__gpt_pass *ps, size_t m, size_t n, size_t k)
{
    (void)ps, (void)m, (void)n, (void)k;
    return 0;
}
static int SFX(round_act)(const srl__gpt_pass *ps, REAL *x, size_t n, srl_rng *rng)
{
    (void)ps, (void)x, (void)n, (void)rng;
    return SRL_OK;
}
static int SFX(round_grad)(const srl__gpt_pass *ps, REAL *x, size_t n, srl_rng *rng)
{
    (void)ps, (void)x, (void)n, (void)rng;
    return SRL_OK;
}
static uint64_t SFX(act_draws)(const srl__gpt_pass *ps, size_t n)
{
    (void)ps, (void)n;
    return 0;
}
static uint64_t SFX(grad_draws)(const srl__gpt_pass *ps, size_t n)
{
    (void)ps, (void)n;
    return 0;
}
#endif

/* A copy of rng positioned `skip` draws ahead (for the items of a parallel loop). */
static srl_rng SFX(ahead)(const srl_rng *rng, uint64_t skip)
{
    srl_rng r;
    if (!rng) {
        memset(&r, 0, sizeof r);
        return r;
    }
    r = *rng;
    if (skip)
        srl_rng_seek(&r, r.counter + skip);
    return r;
}

static void SFX(advance)(srl_rng *rng, uint64_t n)
{
    if (rng && n)
        srl_rng_seek(rng, rng->counter + n);
}

/* ---- layer norm: out = (x - mean) / sqrt(var + eps) * w + b, per row of C ---- */

static void SFX(ln_fwd)(REAL *out, REAL *mean, REAL *rstd, const REAL *x, const REAL *w,
                        const REAL *b, size_t rows, size_t C)
{
    const REAL eps = (REAL)1e-5, Cr = (REAL)C;
#pragma omp parallel for schedule(static) if (rows * C >= GPT_OMP_MIN)
    for (size_t i = 0; i < rows; i++) {
        const REAL *xi = x + i * C;
        REAL s = xi[0];
        for (size_t c = 1; c < C; c++)
            s = s + xi[c];
        const REAL m = s / Cr;
        REAL v = (xi[0] - m) * (xi[0] - m);
        for (size_t c = 1; c < C; c++)
            v = v + (xi[c] - m) * (xi[c] - m);
        const REAL r = (REAL)1 / R_SQRT(v / Cr + eps);
        REAL *o = out + i * C;
        for (size_t c = 0; c < C; c++)
            o[c] = ((xi[c] - m) * r) * w[c] + b[c];
        mean[i] = m;
        rstd[i] = r;
    }
}

/* Backward of ln_fwd: dx (rows, C); dw, db (C) = the sums over rows (row order). */
static void SFX(ln_bwd)(REAL *dx, REAL *dw, REAL *db, const REAL *dout, const REAL *x,
                        const REAL *mean, const REAL *rstd, const REAL *w, size_t rows, size_t C)
{
    const REAL Cr = (REAL)C;
    /* dx = (dnorm - mean(dnorm) - xhat mean(dnorm xhat)) rstd, dnorm = w dout,
     * xhat = (x - mean) rstd (the forward line o = (x - m) r w + b) */
#pragma omp parallel for schedule(static) if (rows * C >= GPT_OMP_MIN)
    for (size_t i = 0; i < rows; i++) {
        const REAL *xi = x + i * C, *di = dout + i * C;
        const REAL m = mean[i], r = rstd[i];
        REAL a = w[0] * di[0], bb = (w[0] * di[0]) * ((xi[0] - m) * r);
        for (size_t c = 1; c < C; c++) {
            const REAL dn = w[c] * di[c];
            a = a + dn;
            bb = bb + dn * ((xi[c] - m) * r);
        }
        a = a / Cr;
        bb = bb / Cr;
        REAL *o = dx + i * C;
        for (size_t c = 0; c < C; c++) {
            const REAL xh = (xi[c] - m) * r;
            o[c] = ((w[c] * di[c] - a) - xh * bb) * r;
        }
    }
    /* dw[c] = sum_i dout[i,c] xhat[i,c], db[c] = sum_i dout[i,c] */
#pragma omp parallel for schedule(static) if (rows * C >= GPT_OMP_MIN)
    for (size_t c = 0; c < C; c++) {
        REAL sw = dout[c] * ((x[c] - mean[0]) * rstd[0]), sb = dout[c];
        for (size_t i = 1; i < rows; i++) {
            sw = sw + dout[i * C + c] * ((x[i * C + c] - mean[i]) * rstd[i]);
            sb = sb + dout[i * C + c];
        }
        dw[c] = sw;
        db[c] = sb;
    }
}

/* ---- GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) ---- */

static void SFX(gelu_fwd)(REAL *out, const REAL *x, size_t n)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c = (REAL)0.044715, half = (REAL)0.5;
#pragma omp parallel for schedule(static) if (n >= GPT_OMP_MIN)
    for (size_t i = 0; i < n; i++) {
        const REAL xi = x[i];
        const REAL u = s2pi * (xi + c * ((xi * xi) * xi));
        out[i] = (half * xi) * ((REAL)1 + R_TANH(u));
    }
}

static void SFX(gelu_bwd)(REAL *dx, const REAL *x, const REAL *dout, size_t n)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c = (REAL)0.044715, half = (REAL)0.5;
    const REAL c3 = (REAL)(3 * 0.044715);
#pragma omp parallel for schedule(static) if (n >= GPT_OMP_MIN)
    for (size_t i = 0; i < n; i++) {
        const REAL xi = x[i];
        const REAL u = s2pi * (xi + c * ((xi * xi) * xi));
        const REAL th = R_TANH(u);
        const REAL sech2 = (REAL)1 - th * th;
        const REAL du = s2pi * ((REAL)1 + c3 * (xi * xi));
        const REAL local = half * ((REAL)1 + th) + ((half * xi) * sech2) * du;
        dx[i] = local * dout[i];
    }
}

/* out = a + b, elementwise (the residual connections). */
static void SFX(add)(REAL *out, const REAL *a, const REAL *b, size_t n)
{
#pragma omp parallel for schedule(static) if (n >= GPT_OMP_MIN)
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

/* ---- heads: (B,T,C) slices <-> (B,NH,T,hs) ---- */

/* dst[b,h,t,i] = src[b,t, col0 + h hs + i], src rows of width w. */
static void SFX(split)(REAL *dst, const REAL *src, size_t w, size_t col0, const srl__gpt_dims *d)
{
    const size_t B = d->B, T = d->T, NH = d->NH, hs = d->C / d->NH;
#pragma omp parallel for schedule(static) if (B * T * d->C >= GPT_OMP_MIN)
    for (size_t bt = 0; bt < B * T; bt++) {
        const size_t b = bt / T, t = bt % T;
        for (size_t h = 0; h < NH; h++)
            memcpy(dst + ((b * NH + h) * T + t) * hs, src + bt * w + col0 + h * hs,
                   hs * sizeof *dst);
    }
}

/* dst[b,t, col0 + h hs + i] = src[b,h,t,i]. */
static void SFX(merge)(REAL *dst, const REAL *src, size_t w, size_t col0, const srl__gpt_dims *d)
{
    const size_t B = d->B, T = d->T, NH = d->NH, hs = d->C / d->NH;
#pragma omp parallel for schedule(static) if (B * T * d->C >= GPT_OMP_MIN)
    for (size_t bt = 0; bt < B * T; bt++) {
        const size_t b = bt / T, t = bt % T;
        for (size_t h = 0; h < NH; h++)
            memcpy(dst + bt * w + col0 + h * hs, src + ((b * NH + h) * T + t) * hs,
                   hs * sizeof *dst);
    }
}

/* ---- the pass ---- */

#define SFX_TRY(call)                                                                             \
    do {                                                                                          \
        const int st_ = (call);                                                                   \
        if (st_)                                                                                  \
            return st_;                                                                           \
    } while (0)

/* Causal self-attention of layer buffers Ly (forward): for every (b,h)
 *   att = softmax_causal(q k^T * scale)       (T,T)   ROUND_ACT
 *   y   = att v                               (T,hs)  ROUND_ACT
 * (b,h) pairs in parallel, each with its own block of draws. */
static int SFX(attn_fwd)(const srl__gpt_pass *ps, REAL *Ly, REAL *tsc, srl_rng *rng)
{
    const srl__gpt_layout *lay = ps->lay;
    const size_t B = ps->d.B, T = ps->d.T, NH = ps->d.NH, hs = ps->d.C / ps->d.NH;
    const REAL scale = (REAL)(1.0 / sqrt((double)hs));
    const uint64_t D1 = SFX(mm_draws)(ps, T, T, hs), R1 = SFX(act_draws)(ps, T * T);
    const uint64_t D2 = SFX(mm_draws)(ps, T, hs, T), R2 = SFX(act_draws)(ps, T * hs);
    const uint64_t per = D1 + R1 + D2 + R2;
    int status = SRL_OK;
#pragma omp parallel for schedule(static) reduction(min : status) if (B * NH > 1 && B * NH * T * T * hs >= 4 * GPT_OMP_MIN)
    for (size_t bh = 0; bh < B * NH; bh++) {
        srl_rng r = SFX(ahead)(rng, bh * per);
        const REAL *q = Ly + lay->qh + bh * T * hs, *k = Ly + lay->kh + bh * T * hs;
        const REAL *v = Ly + lay->vh + bh * T * hs;
        REAL *att = Ly + lay->att + bh * T * T, *y = Ly + lay->yh + bh * T * hs;
        int st = SFX(mm_nt)(ps, att, q, k, T, T, hs, &r, tsc + bh * T * hs);
        for (size_t i = 0; i < T && !st; i++) {
            REAL *a = att + i * T;
            REAL mx = a[0] * scale;
            for (size_t j = 1; j <= i; j++)
                mx = a[j] * scale > mx ? a[j] * scale : mx;
            REAL s = R_EXP(a[0] * scale - mx);
            for (size_t j = 1; j <= i; j++)
                s = s + R_EXP(a[j] * scale - mx);
            for (size_t j = 0; j <= i; j++)
                a[j] = R_EXP(a[j] * scale - mx) / s;
            for (size_t j = i + 1; j < T; j++)
                a[j] = 0;
        }
        if (!st)
            st = SFX(round_act)(ps, att, T * T, &r); /* ROUND_ACT */
        if (!st)
            st = SFX(mm_nn)(ps, y, att, v, T, hs, T, &r, NULL);
        if (!st)
            st = SFX(round_act)(ps, y, T * hs, &r); /* ROUND_ACT */
        if (st < status)
            status = st;
    }
    SFX(advance)(rng, B * NH * per);
    return status;
}

/* Backward of attn_fwd for one layer: from dyh (B,NH,T,hs) to dqh, dkh, dvh; datt scratch.
 *   datt = dy v^T                                 ROUND_GRAD   (y = att v)
 *   dv   = att^T dy                               ROUND_GRAD
 *   dpre = att (datt - rowsum(att datt)) scale    ROUND_GRAD   (att = softmax(pre scale))
 *   dq   = dpre k                                 ROUND_GRAD   (pre = q k^T)
 *   dk   = dpre^T q                               ROUND_GRAD */
static int SFX(attn_bwd)(const srl__gpt_pass *ps, REAL *Ly, REAL *A, REAL *tsc, srl_rng *rng)
{
    const srl__gpt_layout *lay = ps->lay;
    const size_t B = ps->d.B, T = ps->d.T, NH = ps->d.NH, hs = ps->d.C / ps->d.NH;
    const REAL scale = (REAL)(1.0 / sqrt((double)hs));
    const uint64_t Dtt = SFX(mm_draws)(ps, T, T, hs), Dth = SFX(mm_draws)(ps, T, hs, T);
    const uint64_t Gtt = SFX(grad_draws)(ps, T * T), Gth = SFX(grad_draws)(ps, T * hs);
    const uint64_t per = (Dtt + Gtt) + (Dth + Gth) + Gtt + 2 * (Dth + Gth);
    int status = SRL_OK;
#pragma omp parallel for schedule(static) reduction(min : status) if (B * NH > 1 && B * NH * T * T * hs >= 4 * GPT_OMP_MIN)
    for (size_t bh = 0; bh < B * NH; bh++) {
        srl_rng r = SFX(ahead)(rng, bh * per);
        const REAL *q = Ly + lay->qh + bh * T * hs, *k = Ly + lay->kh + bh * T * hs;
        const REAL *v = Ly + lay->vh + bh * T * hs, *att = Ly + lay->att + bh * T * T;
        const REAL *dy = A + lay->dyh + bh * T * hs;
        REAL *datt = A + lay->datt + bh * T * T;
        REAL *dq = A + lay->dqh + bh * T * hs, *dk = A + lay->dkh + bh * T * hs;
        REAL *dv = A + lay->dvh + bh * T * hs;
        int st = SFX(mm_nt)(ps, datt, dy, v, T, T, hs, &r, tsc + bh * T * hs);
        if (!st)
            st = SFX(round_grad)(ps, datt, T * T, &r); /* ROUND_GRAD */
        if (!st)
            st = SFX(mm_tn)(ps, dv, att, dy, T, hs, T, &r, NULL);
        if (!st)
            st = SFX(round_grad)(ps, dv, T * hs, &r); /* ROUND_GRAD */
        for (size_t i = 0; i < T && !st; i++) {
            const REAL *a = att + i * T;
            REAL *g = datt + i * T;
            REAL dot = a[0] * g[0];
            for (size_t j = 1; j <= i; j++)
                dot = dot + a[j] * g[j];
            for (size_t j = 0; j <= i; j++)
                g[j] = (a[j] * (g[j] - dot)) * scale;
            for (size_t j = i + 1; j < T; j++)
                g[j] = 0;
        }
        if (!st)
            st = SFX(round_grad)(ps, datt, T * T, &r); /* ROUND_GRAD */
        if (!st)
            st = SFX(mm_nn)(ps, dq, datt, k, T, hs, T, &r, NULL);
        if (!st)
            st = SFX(round_grad)(ps, dq, T * hs, &r); /* ROUND_GRAD */
        if (!st)
            st = SFX(mm_tn)(ps, dk, datt, q, T, hs, T, &r, NULL);
        if (!st)
            st = SFX(round_grad)(ps, dk, T * hs, &r); /* ROUND_GRAD */
        if (st < status)
            status = st;
    }
    SFX(advance)(rng, B * NH * per);
    return status;
}

int SFX(srl__gpt_pass)(const srl__gpt_pass *ps, const REAL *par, REAL *grad, const int32_t *tok,
                       REAL *A, double *loss_sum)
{
    const srl__gpt_dims *d = &ps->d;
    const srl__gpt_layout *lay = ps->lay;
    const size_t B = d->B, T = d->T, C = d->C, L = d->L, V = d->V, BT = B * T;
    const size_t C3 = 3 * C, C4 = 4 * C;
    const size_t *off = ps->off;
    srl_rng *rng = ps->rng;
    REAL *tsc = A + lay->tsc;
    const REAL *wte = par + off[GP_WTE], *wpe = par + off[GP_WPE];

    /* ---- forward ---- */
    /* x = wte[token] + wpe[position]                                          ROUND_ACT */
    REAL *enc = A + lay->enc;
#pragma omp parallel for schedule(static) if (BT * C >= GPT_OMP_MIN)
    for (size_t bt = 0; bt < BT; bt++) {
        const size_t b = bt / T, t = bt % T;
        const REAL *e = wte + (size_t)tok[b * (T + 1) + t] * C, *p = wpe + t * C;
        for (size_t c = 0; c < C; c++)
            enc[bt * C + c] = e[c] + p[c];
    }
    SFX_TRY(SFX(round_act)(ps, enc, BT * C, rng));
    const REAL *res = enc;
    for (size_t l = 0; l < L; l++) {
        REAL *Ly = A + lay->l0 + l * lay->per_layer;
        const REAL *ln1w = par + off[GP_LN1W] + l * C, *ln1b = par + off[GP_LN1B] + l * C;
        const REAL *ln2w = par + off[GP_LN2W] + l * C, *ln2b = par + off[GP_LN2B] + l * C;
        const REAL *qkvw = par + off[GP_QKVW] + l * C * C3;
        const REAL *projw = par + off[GP_ATTPROJW] + l * C * C;
        const REAL *fcw = par + off[GP_FCW] + l * C * C4;
        const REAL *fcprojw = par + off[GP_FCPROJW] + l * C4 * C;
        REAL *tmpc = A + lay->tmpc;
        /* ln1 = layernorm(res)                                                ROUND_ACT */
        SFX(ln_fwd)(Ly + lay->ln1, Ly + lay->ln1_mean, Ly + lay->ln1_rstd, res, ln1w, ln1b, BT, C);
        SFX_TRY(SFX(round_act)(ps, Ly + lay->ln1, BT * C, rng));
        /* qkv = ln1 @ qkvw                                                    ROUND_ACT */
        SFX_TRY(SFX(mm_nn)(ps, Ly + lay->qkv, Ly + lay->ln1, qkvw, BT, C3, C, rng, tsc));
        SFX_TRY(SFX(round_act)(ps, Ly + lay->qkv, BT * C3, rng));
        SFX(split)(Ly + lay->qh, Ly + lay->qkv, C3, 0, d);
        SFX(split)(Ly + lay->kh, Ly + lay->qkv, C3, C, d);
        SFX(split)(Ly + lay->vh, Ly + lay->qkv, C3, 2 * C, d);
        SFX_TRY(SFX(attn_fwd)(ps, Ly, tsc, rng));
        SFX(merge)(Ly + lay->atty, Ly + lay->yh, C, 0, d);
        /* res2 = res + atty @ projw                                 ROUND_ACT (both lines) */
        SFX_TRY(SFX(mm_nn)(ps, tmpc, Ly + lay->atty, projw, BT, C, C, rng, tsc));
        SFX_TRY(SFX(round_act)(ps, tmpc, BT * C, rng));
        SFX(add)(Ly + lay->res2, res, tmpc, BT * C);
        SFX_TRY(SFX(round_act)(ps, Ly + lay->res2, BT * C, rng));
        /* ln2 = layernorm(res2)                                               ROUND_ACT */
        SFX(ln_fwd)(Ly + lay->ln2, Ly + lay->ln2_mean, Ly + lay->ln2_rstd, Ly + lay->res2, ln2w,
                    ln2b, BT, C);
        SFX_TRY(SFX(round_act)(ps, Ly + lay->ln2, BT * C, rng));
        /* fch = ln2 @ fcw; fchg = gelu(fch)                         ROUND_ACT (both lines) */
        SFX_TRY(SFX(mm_nn)(ps, Ly + lay->fch, Ly + lay->ln2, fcw, BT, C4, C, rng, tsc));
        SFX_TRY(SFX(round_act)(ps, Ly + lay->fch, BT * C4, rng));
        SFX(gelu_fwd)(Ly + lay->fchg, Ly + lay->fch, BT * C4);
        SFX_TRY(SFX(round_act)(ps, Ly + lay->fchg, BT * C4, rng));
        /* res3 = res2 + fchg @ fcprojw                              ROUND_ACT (both lines) */
        SFX_TRY(SFX(mm_nn)(ps, tmpc, Ly + lay->fchg, fcprojw, BT, C, C4, rng, tsc));
        SFX_TRY(SFX(round_act)(ps, tmpc, BT * C, rng));
        SFX(add)(Ly + lay->res3, Ly + lay->res2, tmpc, BT * C);
        SFX_TRY(SFX(round_act)(ps, Ly + lay->res3, BT * C, rng));
        res = Ly + lay->res3;
    }
    /* lnf = layernorm(res); logits = lnf @ wte^T                    ROUND_ACT (both lines) */
    REAL *lnf = A + lay->lnf, *logits = A + lay->logits;
    SFX(ln_fwd)(lnf, A + lay->lnf_mean, A + lay->lnf_rstd, res, par + off[GP_LNFW],
                par + off[GP_LNFB], BT, C);
    SFX_TRY(SFX(round_act)(ps, lnf, BT * C, rng));
    SFX_TRY(SFX(mm_nt)(ps, logits, lnf, wte, BT, V, C, rng, tsc));
    SFX_TRY(SFX(round_act)(ps, logits, BT * V, rng));
    /* loss_i = log sum_v exp(z_v - max) - (z_y - max); with a gradient,
     * dlogits = (softmax(z) - onehot(y)) / (B T)                               ROUND_GRAD */
    REAL *dlogits = grad ? A + lay->dlogits : NULL;
    const REAL inv = (REAL)1 / (REAL)BT;
#pragma omp parallel for schedule(static) if (BT * V >= GPT_OMP_MIN)
    for (size_t bt = 0; bt < BT; bt++) {
        const size_t b = bt / T, t = bt % T;
        const size_t y = (size_t)tok[b * (T + 1) + t + 1];
        const REAL *z = logits + bt * V;
        REAL mx = z[0];
        for (size_t v = 1; v < V; v++)
            mx = z[v] > mx ? z[v] : mx;
        REAL s = R_EXP(z[0] - mx);
        for (size_t v = 1; v < V; v++)
            s = s + R_EXP(z[v] - mx);
        ps->row_loss[bt] = (double)(R_LOG(s) - (z[y] - mx));
        if (dlogits)
            for (size_t v = 0; v < V; v++)
                dlogits[bt * V + v] = (R_EXP(z[v] - mx) / s - (v == y ? (REAL)1 : (REAL)0)) * inv;
    }
    double ls = 0;
    for (size_t bt = 0; bt < BT; bt++)
        ls += ps->row_loss[bt];
    *loss_sum = ls;
    if (!grad)
        return SRL_OK;
    SFX_TRY(SFX(round_grad)(ps, dlogits, BT * V, rng));

    /* ---- backward ---- */
    REAL *dres = A + lay->dres, *dln = A + lay->dln, *dtmp = A + lay->dtmp;
    /* logits = lnf @ wte^T: dwte = dlogits^T lnf; dlnf = dlogits wte            ROUND_GRAD */
    REAL *dwte = grad + off[GP_WTE];
    SFX_TRY(SFX(mm_tn)(ps, dwte, dlogits, lnf, V, C, BT, rng, tsc));
    SFX_TRY(SFX(mm_nn)(ps, dln, dlogits, wte, BT, C, V, rng, tsc));
    SFX_TRY(SFX(round_grad)(ps, dln, BT * C, rng));
    /* lnf = layernorm(res)                                                       ROUND_GRAD */
    SFX(ln_bwd)(dres, grad + off[GP_LNFW], grad + off[GP_LNFB], dln, res, A + lay->lnf_mean,
                A + lay->lnf_rstd, par + off[GP_LNFW], BT, C);
    SFX_TRY(SFX(round_grad)(ps, dres, BT * C, rng));
    for (size_t l = L; l-- > 0;) {
        REAL *Ly = A + lay->l0 + l * lay->per_layer;
        const REAL *resin = l ? A + lay->l0 + (l - 1) * lay->per_layer + lay->res3 : enc;
        const REAL *ln1w = par + off[GP_LN1W] + l * C, *ln2w = par + off[GP_LN2W] + l * C;
        const REAL *qkvw = par + off[GP_QKVW] + l * C * C3;
        const REAL *projw = par + off[GP_ATTPROJW] + l * C * C;
        const REAL *fcw = par + off[GP_FCW] + l * C * C4;
        const REAL *fcprojw = par + off[GP_FCPROJW] + l * C4 * C;
        REAL *dfchg = A + lay->dfchg, *dfch = A + lay->dfch, *dqkv = A + lay->dqkv;
        /* dres = d res3. res3 = res2 + fchg @ fcprojw:
         * dfchg = dres fcprojw^T (ROUND_GRAD); dfcprojw = fchg^T dres */
        SFX_TRY(SFX(mm_nt)(ps, dfchg, dres, fcprojw, BT, C4, C, rng, tsc));
        SFX_TRY(SFX(round_grad)(ps, dfchg, BT * C4, rng));
        SFX_TRY(SFX(mm_tn)(ps, grad + off[GP_FCPROJW] + l * C4 * C, Ly + lay->fchg, dres, C4, C,
                           BT, rng, tsc));
        /* fchg = gelu(fch)                                                       ROUND_GRAD */
        SFX(gelu_bwd)(dfch, Ly + lay->fch, dfchg, BT * C4);
        SFX_TRY(SFX(round_grad)(ps, dfch, BT * C4, rng));
        /* fch = ln2 @ fcw: dln = dfch fcw^T (ROUND_GRAD); dfcw = ln2^T dfch */
        SFX_TRY(SFX(mm_nt)(ps, dln, dfch, fcw, BT, C, C4, rng, tsc));
        SFX_TRY(SFX(round_grad)(ps, dln, BT * C, rng));
        SFX_TRY(SFX(mm_tn)(ps, grad + off[GP_FCW] + l * C * C4, Ly + lay->ln2, dfch, C, C4, BT,
                           rng, tsc));
        /* ln2 = layernorm(res2); dres = d res2 = dres + dtmp          ROUND_GRAD (both) */
        SFX(ln_bwd)(dtmp, grad + off[GP_LN2W] + l * C, grad + off[GP_LN2B] + l * C, dln,
                    Ly + lay->res2, Ly + lay->ln2_mean, Ly + lay->ln2_rstd, ln2w, BT, C);
        SFX_TRY(SFX(round_grad)(ps, dtmp, BT * C, rng));
        SFX(add)(dres, dres, dtmp, BT * C);
        SFX_TRY(SFX(round_grad)(ps, dres, BT * C, rng));
        /* res2 = res + atty @ projw: datty = dres projw^T (ROUND_GRAD); dprojw = atty^T dres */
        SFX_TRY(SFX(mm_nt)(ps, A + lay->datty, dres, projw, BT, C, C, rng, tsc));
        SFX_TRY(SFX(round_grad)(ps, A + lay->datty, BT * C, rng));
        SFX_TRY(SFX(mm_tn)(ps, grad + off[GP_ATTPROJW] + l * C * C, Ly + lay->atty, dres, C, C,
                           BT, rng, tsc));
        /* attention */
        SFX(split)(A + lay->dyh, A + lay->datty, C, 0, d);
        SFX_TRY(SFX(attn_bwd)(ps, Ly, A, tsc, rng));
        SFX(merge)(dqkv, A + lay->dqh, C3, 0, d);
        SFX(merge)(dqkv, A + lay->dkh, C3, C, d);
        SFX(merge)(dqkv, A + lay->dvh, C3, 2 * C, d);
        /* qkv = ln1 @ qkvw: dln = dqkv qkvw^T (ROUND_GRAD); dqkvw = ln1^T dqkv */
        SFX_TRY(SFX(mm_nt)(ps, dln, dqkv, qkvw, BT, C, C3, rng, tsc));
        SFX_TRY(SFX(round_grad)(ps, dln, BT * C, rng));
        SFX_TRY(SFX(mm_tn)(ps, grad + off[GP_QKVW] + l * C * C3, Ly + lay->ln1, dqkv, C, C3, BT,
                           rng, tsc));
        /* ln1 = layernorm(res); dres = d res = dres + dtmp            ROUND_GRAD (both) */
        SFX(ln_bwd)(dtmp, grad + off[GP_LN1W] + l * C, grad + off[GP_LN1B] + l * C, dln, resin,
                    Ly + lay->ln1_mean, Ly + lay->ln1_rstd, ln1w, BT, C);
        SFX_TRY(SFX(round_grad)(ps, dtmp, BT * C, rng));
        SFX(add)(dres, dres, dtmp, BT * C);
        SFX_TRY(SFX(round_grad)(ps, dres, BT * C, rng));
    }
    /* x = wte[token] + wpe[position]: dwte[token] += dx (after the head's part, rows in order);
     * dwpe[t] = sum_b dx[b,t] (b in order) */
    REAL *dwpe = grad + off[GP_WPE];
#pragma omp parallel for schedule(static) if (BT * C >= GPT_OMP_MIN)
    for (size_t c = 0; c < C; c++) {
        for (size_t bt = 0; bt < BT; bt++) {
            const size_t b = bt / T, t = bt % T;
            const size_t row = (size_t)tok[b * (T + 1) + t];
            dwte[row * C + c] = dwte[row * C + c] + dres[bt * C + c];
        }
        for (size_t t = 0; t < T; t++) {
            REAL s = dres[t * C + c];
            for (size_t b = 1; b < B; b++)
                s = s + dres[(b * T + t) * C + c];
            dwpe[t * C + c] = s;
        }
    }
    return SRL_OK;
}

#undef SFX_TRY
#undef R_EXP
#undef R_LOG
#undef R_TANH
#undef R_SQRT
