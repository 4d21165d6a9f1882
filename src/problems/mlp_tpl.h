/* src/problems/mlp_tpl.h: the MLP's forward and backward pass, compiled three times by
 * src/problems/mlp.c through src/problems/model_instantiate.h: _emu (float, kernels, roundings
 * into the strategy's slots), _plain (float, plain loops, no extra rounding) and _f64 (double,
 * plain loops); REAL the element type, TPL(name) this instance's names, and
 * src/problems/model_ops.h the operations shared with the GPT (products, roundings, GELU,
 * cross-entropy).
 *
 * Legend: B rows (samples), din inputs, H width, D hidden layers, dout outputs; layer l maps
 * n_l -> n_{l+1} with n_0 = din, n_1 .. n_D = H, n_{D+1} = dout.
 *   z_l = h_l @ W_l + b_l   (the product a kernel call, the bias added to its binary32 result:
 *                            a fused epilogue, one ROUND_ACT)
 *   h_{l+1} = act(z_l)      (l < D; ROUND_ACT)        output y = z_D
 * teacher:  loss = (1/B) sum_b 1/2 ||y_b - t_b||^2
 * mixture:  loss = (1/B) sum_b -log softmax(y_b)[label_b]
 * Products (model_ops.h's mm_lin: block-scaled where the strategy says so, else the kernels)
 * summed in the order l = 0 .. k-1 (the kernels' recursive order), so _emu with the
 * fp32 strategy equals _plain bit for bit; the other operations are the same code everywhere. */

/* act(x) and act'(x) for ReLU, tanh, GELU (tanh form, as the GPT's). */
static inline REAL TPL(act)(int a, REAL x)
{
    switch (a) {
    case MLP_RELU: return x > 0 ? x : (REAL)0;
    case MLP_TANH: return R_TANH(x);
    default: return TPL(gelu)(x);
    }
}

static inline REAL TPL(dact)(int a, REAL x)
{
    switch (a) {
    case MLP_RELU: return x > 0 ? (REAL)1 : (REAL)0;
    case MLP_TANH: {
        const REAL t = R_TANH(x);
        return (REAL)1 - t * t;
    }
    default: return TPL(gelu_grad)(x);
    }
}

/* Layer l forward: z_l = h_l @ W_l + b_l (h_0 = x), then h_{l+1} = act(z_l) below the output. */
static int TPL(layer_fwd)(const mlp_pass *ps, const REAL *par, size_t l, const REAL *x, REAL *A)
{
    const size_t B = ps->B, D = ps->D;
    const size_t nin = l ? ps->H : ps->din, nout = l < D ? ps->H : ps->dout;
    const mlp_layout *y = ps->lay;
    const REAL *h = l ? A + y->h[l] : x;
    REAL *z = A + y->z[l];
    const REAL *W = par + ps->off[2 * l], *bias = par + ps->off[2 * l + 1];
    /* z = h @ W + b                                                               ROUND_ACT */
    SRL__TRY(TPL(mm_lin)(z, h, W, B, nout, nin, SRL_STRATEGY_FPROP, ps->mx, ps->accum, ps->rng,
                         A + y->scratch));
#pragma omp parallel for schedule(static) if (B * nout >= srl__models_omp_min && srl__workers_ok())
    for (size_t i = 0; i < B; i++)
        for (size_t j = 0; j < nout; j++)
            z[i * nout + j] = z[i * nout + j] + bias[j];
    SRL__TRY(TPL(round_slot)(z, B * nout, &ps->act, ps->rng));
    if (l == D)
        return SRL_OK;
    /* h = act(z)                                                                  ROUND_ACT */
    REAL *hn = A + y->h[l + 1];
#pragma omp parallel for schedule(static) if (B * nout >= srl__models_omp_min && srl__workers_ok())
    for (size_t i = 0; i < B * nout; i++)
        hn[i] = TPL(act)(ps->act_fn, z[i]);
    return TPL(round_slot)(hn, B * nout, &ps->act, ps->rng);
}

/* The per-row losses of the output y = z_D (ps->row_loss, and ps->row_hit: the largest output is
 * the label) and, with dz, dy = (y - t) / B (teacher) or (softmax(y) - onehot) / B. */
static void TPL(loss_rows)(const mlp_pass *ps, const REAL *out, const REAL *target,
                           const int32_t *label, REAL *dz)
{
    const size_t B = ps->B, dout = ps->dout;
    const REAL inv = (REAL)1 / (REAL)B;
#pragma omp parallel for schedule(static) if (B * dout >= srl__models_omp_min && srl__workers_ok())
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
            size_t arg;
            ps->row_loss[i] = TPL(xent_row)(o, dout, lab, inv, dz ? dz + i * dout : NULL, &arg);
            ps->row_hit[i] = arg == lab;
        }
    }
}

/* Layer l backward, dz = d z_l in: dW_l = h_l^T dz, db_l = 1^T dz (kernels); below the first
 * layer dz becomes d z_{l-1} (through dh = dz W_l^T and act'). */
static int TPL(layer_bwd)(const mlp_pass *ps, const REAL *par, REAL *grad, size_t l,
                          const REAL *x, REAL *A)
{
    const size_t B = ps->B, D = ps->D;
    const size_t nin = l ? ps->H : ps->din, nout = l < D ? ps->H : ps->dout;
    const mlp_layout *y = ps->lay;
    const REAL *h = l ? A + y->h[l] : x;
    REAL *dz = A + y->dz, *dh = A + y->dh, *sc = A + y->scratch;
    SRL__TRY(TPL(mm_lin)(grad + ps->off[2 * l], h, dz, nin, nout, B, SRL_STRATEGY_WGRAD, ps->mx,
                         ps->accum, ps->rng, sc));
    SRL__TRY(TPL(mm_tn)(grad + ps->off[2 * l + 1], A + y->ones, dz, 1, nout, B, ps->accum,
                        ps->rng, sc));
    if (l == 0)
        return SRL_OK;
    /* dh = dz W^T                                                                 ROUND_GRAD */
    SRL__TRY(TPL(mm_lin)(dh, dz, par + ps->off[2 * l], B, nin, nout, SRL_STRATEGY_DGRAD, ps->mx,
                         ps->accum, ps->rng, sc));
    SRL__TRY(TPL(round_slot)(dh, B * nin, &ps->grad, ps->rng));
    /* h = act(z_{l-1}): dz_{l-1} = dh act'(z_{l-1})                               ROUND_GRAD */
    const REAL *zp = A + y->z[l - 1];
#pragma omp parallel for schedule(static) if (B * nin >= srl__models_omp_min && srl__workers_ok())
    for (size_t i = 0; i < B * nin; i++)
        dz[i] = dh[i] * TPL(dact)(ps->act_fn, zp[i]);
    return TPL(round_slot)(dz, B * nin, &ps->grad, ps->rng);
}

/* x (B, din) inputs (values of the act format for _emu: the caller rounds them); target (B, dout)
 * for the teacher task or labels (B) for the mixture; grad NULL: forward only. *loss_sum = sum of
 * the per-sample losses (binary64 sum in sample order), *correct = samples whose largest output
 * is the label (mixture). */
int TPL(srl__mlp_pass)(const mlp_pass *ps, const REAL *par, REAL *grad, const REAL *x,
                       const REAL *target, const int32_t *label, REAL *A, double *loss_sum,
                       double *correct)
{
    const size_t B = ps->B, D = ps->D;
    for (size_t l = 0; l <= D; l++)
        SRL__TRY(TPL(layer_fwd)(ps, par, l, x, A));
    REAL *dz = grad ? A + ps->lay->dz : NULL;
    TPL(loss_rows)(ps, A + ps->lay->z[D], target, label, dz);
    double ls = 0, hits = 0;
    for (size_t i = 0; i < B; i++) {
        ls += ps->row_loss[i];
        hits += ps->row_hit[i];
    }
    *loss_sum = ls;
    *correct = hits;
    if (!grad)
        return SRL_OK;
    SRL__TRY(TPL(round_slot)(dz, B * ps->dout, &ps->grad, ps->rng)); /* ROUND_GRAD */
    for (size_t l = D + 1; l-- > 0;)
        SRL__TRY(TPL(layer_bwd)(ps, par, grad, l, x, A));
    return SRL_OK;
}
