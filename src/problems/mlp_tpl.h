/* src/problems/mlp_tpl.h: the MLP's forward and backward pass, compiled by src/problems/mlp.c as
 * MLP_MODE 0 (_emu: float, kernels, roundings into the strategy's slots), 1 (_plain: float, plain
 * loops, no extra rounding) and 2 (_f64: double, plain loops); REAL the element type, MFX(name)
 * this instance's names.
 *
 * Legend: B rows (samples), din inputs, H width, D hidden layers, dout outputs; layer l maps
 * n_l -> n_{l+1} with n_0 = din, n_1 .. n_D = H, n_{D+1} = dout.
 *   z_l = h_l @ W_l + b_l   (the product a kernel call, the bias added to its binary32 result:
 *                            a fused epilogue, one ROUND_ACT)
 *   h_{l+1} = act(z_l)      (l < D; ROUND_ACT)        output y = z_D
 * teacher:  loss = (1/B) sum_b 1/2 ||y_b - t_b||^2
 * mixture:  loss = (1/B) sum_b -log softmax(y_b)[label_b]
 * Products summed in the order l = 0 .. k-1 (the kernels' recursive order), so _emu with the
 * fp32 strategy equals _plain bit for bit; the other operations are the same code everywhere. */

#if MLP_MODE == 2
#define M_EXP exp
#define M_LOG log
#define M_TANH tanh
#else
#define M_EXP expf
#define M_LOG logf
#define M_TANH tanhf
#endif

#ifndef MLP_OMP_MIN
#define MLP_OMP_MIN srl__models_omp_min
#endif

#if MLP_MODE == 0
static int MFX(mm_nn)(const mlp_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_f(C, A, B, m, n, k, ps->accum, ps->rng);
}
static int MFX(mm_nt)(const mlp_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_nt_f(C, A, B, m, n, k, ps->accum, ps->rng);
}
static int MFX(mm_tn)(const mlp_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_tn_f(C, A, B, m, n, k, ps->accum, ps->rng);
}
static int MFX(round_act)(const mlp_pass *ps, REAL *x, size_t n)
{
    return srl__round_slot(x, n, &ps->act.fmt, ps->act.mode, ps->rng);
}
static int MFX(round_grad)(const mlp_pass *ps, REAL *x, size_t n)
{
    return srl__round_slot(x, n, &ps->grad.fmt, ps->grad.mode, ps->rng);
}
#else
static void MFX(row_nn)(REAL *restrict c, const REAL *a, size_t astep, const REAL *restrict B,
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
static int MFX(mm_nn)(const mlp_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, REAL *scratch)
{
    (void)ps, (void)scratch;
#pragma omp parallel for schedule(static) if (m * n * k >= 4 * MLP_OMP_MIN && m > 1)
    for (size_t i = 0; i < m; i++)
        MFX(row_nn)(C + i * n, A + i * k, 1, B, n, k);
    return SRL_OK;
}
static int MFX(mm_tn)(const mlp_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, REAL *scratch)
{
    (void)ps, (void)scratch;
#pragma omp parallel for schedule(static) if (m * n * k >= 4 * MLP_OMP_MIN && m > 1)
    for (size_t i = 0; i < m; i++)
        MFX(row_nn)(C + i * n, A + i, m, B, n, k);
    return SRL_OK;
}
static int MFX(mm_nt)(const mlp_pass *ps, REAL *C, const REAL *A, const REAL *B, size_t m,
                      size_t n, size_t k, REAL *scratch)
{
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < k; l++)
            scratch[l * n + j] = B[j * k + l];
    return MFX(mm_nn)(ps, C, A, scratch, m, n, k, NULL);
}
static int MFX(round_act)(const mlp_pass *ps, REAL *x, size_t n)
{
    (void)ps, (void)x, (void)n;
    return SRL_OK;
}
static int MFX(round_grad)(const mlp_pass *ps, REAL *x, size_t n)
{
    (void)ps, (void)x, (void)n;
    return SRL_OK;
}
#endif

#define MFX_TRY(call)                                                                             \
    do {                                                                                          \
        const int st_ = (call);                                                                   \
        if (st_)                                                                                  \
            return st_;                                                                           \
    } while (0)

/* act(x) and act'(x) for ReLU, tanh, GELU (tanh form, as the GPT's). */
static inline REAL MFX(act)(int a, REAL x)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c = (REAL)0.044715, half = (REAL)0.5;
    switch (a) {
    case MLP_RELU: return x > 0 ? x : (REAL)0;
    case MLP_TANH: return M_TANH(x);
    default: return (half * x) * ((REAL)1 + M_TANH(s2pi * (x + c * ((x * x) * x))));
    }
}

static inline REAL MFX(dact)(int a, REAL x)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c = (REAL)0.044715, half = (REAL)0.5;
    const REAL c3 = (REAL)(3 * 0.044715);
    switch (a) {
    case MLP_RELU: return x > 0 ? (REAL)1 : (REAL)0;
    case MLP_TANH: {
        const REAL t = M_TANH(x);
        return (REAL)1 - t * t;
    }
    default: {
        const REAL th = M_TANH(s2pi * (x + c * ((x * x) * x)));
        const REAL du = s2pi * ((REAL)1 + c3 * (x * x));
        return half * ((REAL)1 + th) + ((half * x) * ((REAL)1 - th * th)) * du;
    }
    }
}

/* x (B, din) inputs (values of the act format for _emu: the caller rounds them); target (B, dout)
 * for the teacher task or labels (B) for the mixture; grad NULL: forward only. *loss_sum = sum of
 * the per-sample losses (binary64 sum in sample order), *correct = samples whose largest output
 * is the label (mixture). */
int MFX(srl__mlp_pass)(const mlp_pass *ps, const REAL *par, REAL *grad, const REAL *x,
                       const REAL *target, const int32_t *label, REAL *A, double *loss_sum,
                       double *correct)
{
    const size_t B = ps->B, D = ps->D, din = ps->din, H = ps->H, dout = ps->dout;
    const mlp_layout *y = ps->lay;
    REAL *sc = A + y->scratch;
    /* ---- forward ---- */
    for (size_t l = 0; l <= D; l++) {
        const size_t nin = l ? H : din, nout = l < D ? H : dout;
        const REAL *h = l ? A + y->h[l] : x;
        REAL *z = A + y->z[l];
        const REAL *W = par + ps->off[2 * l], *bias = par + ps->off[2 * l + 1];
        /* z = h @ W + b                                                       ROUND_ACT */
        MFX_TRY(MFX(mm_nn)(ps, z, h, W, B, nout, nin, sc));
#pragma omp parallel for schedule(static) if (B * nout >= MLP_OMP_MIN)
        for (size_t i = 0; i < B; i++)
            for (size_t j = 0; j < nout; j++)
                z[i * nout + j] = z[i * nout + j] + bias[j];
        MFX_TRY(MFX(round_act)(ps, z, B * nout));
        if (l < D) {
            /* h = act(z)                                                      ROUND_ACT */
            REAL *hn = A + y->h[l + 1];
#pragma omp parallel for schedule(static) if (B * nout >= MLP_OMP_MIN)
            for (size_t i = 0; i < B * nout; i++)
                hn[i] = MFX(act)(ps->act_fn, z[i]);
            MFX_TRY(MFX(round_act)(ps, hn, B * nout));
        }
    }
    /* loss; with a gradient dy = (y - t) / B (teacher) or (softmax(y) - onehot) / B  ROUND_GRAD */
    const REAL *out = A + y->z[D];
    REAL *dz = grad ? A + y->dz : NULL;
    const REAL inv = (REAL)1 / (REAL)B;
#pragma omp parallel for schedule(static) if (B * dout >= MLP_OMP_MIN)
    for (size_t i = 0; i < B; i++) {
        const REAL *o = out + i * dout;
        if (ps->task == MLP_TEACHER) {
            const REAL *t = target + i * dout;
            REAL s = (REAL)0.5 * ((o[0] - t[0]) * (o[0] - t[0]));
            for (size_t j = 1; j < dout; j++)
                s = s + (REAL)0.5 * ((o[j] - t[j]) * (o[j] - t[j]));
            ps->row_loss[i] = (double)s;
            ps->row_hit[i] = 0;
            if (dz)
                for (size_t j = 0; j < dout; j++)
                    dz[i * dout + j] = (o[j] - t[j]) * inv;
        } else {
            const size_t lab = (size_t)label[i];
            REAL mx = o[0];
            size_t arg = 0;
            for (size_t j = 1; j < dout; j++)
                if (o[j] > mx)
                    mx = o[j], arg = j;
            REAL s = M_EXP(o[0] - mx);
            for (size_t j = 1; j < dout; j++)
                s = s + M_EXP(o[j] - mx);
            ps->row_loss[i] = (double)(M_LOG(s) - (o[lab] - mx));
            ps->row_hit[i] = arg == lab;
            if (dz)
                for (size_t j = 0; j < dout; j++)
                    dz[i * dout + j] = (M_EXP(o[j] - mx) / s - (j == lab ? (REAL)1 : (REAL)0)) * inv;
        }
    }
    double ls = 0, hits = 0;
    for (size_t i = 0; i < B; i++) {
        ls += ps->row_loss[i];
        hits += ps->row_hit[i];
    }
    *loss_sum = ls;
    *correct = hits;
    if (!grad)
        return SRL_OK;
    MFX_TRY(MFX(round_grad)(ps, dz, B * dout));
    /* ---- backward, l = D .. 0; dz holds d z_l ---- */
    REAL *dh = A + y->dh;
    const REAL *ones = A + y->ones;
    for (size_t l = D + 1; l-- > 0;) {
        const size_t nin = l ? H : din, nout = l < D ? H : dout;
        const REAL *h = l ? A + y->h[l] : x;
        const REAL *W = par + ps->off[2 * l];
        /* z = h @ W + b: dW = h^T dz, db = 1^T dz (kernels) */
        MFX_TRY(MFX(mm_tn)(ps, grad + ps->off[2 * l], h, dz, nin, nout, B, sc));
        MFX_TRY(MFX(mm_tn)(ps, grad + ps->off[2 * l + 1], ones, dz, 1, nout, B, sc));
        if (l == 0)
            break;
        /* dh = dz W^T                                                         ROUND_GRAD */
        MFX_TRY(MFX(mm_nt)(ps, dh, dz, W, B, nin, nout, sc));
        MFX_TRY(MFX(round_grad)(ps, dh, B * nin));
        /* h = act(z_{l-1}): dz_{l-1} = dh act'(z_{l-1})                       ROUND_GRAD */
        const REAL *zp = A + y->z[l - 1];
#pragma omp parallel for schedule(static) if (B * nin >= MLP_OMP_MIN)
        for (size_t i = 0; i < B * nin; i++)
            dz[i] = dh[i] * MFX(dact)(ps->act_fn, zp[i]);
        MFX_TRY(MFX(round_grad)(ps, dz, B * nin));
    }
    return SRL_OK;
}

#undef MFX_TRY
#undef M_EXP
#undef M_LOG
#undef M_TANH
