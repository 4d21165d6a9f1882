/* src/train/optim_tpl.h: one optimizer step on a tile, in the update arithmetic REAL (private).
 *
 * Included twice by src/train/optim.c: REAL float with TPL(name) = name_f, and REAL double with
 * name_d. The operations are exactly those listed in include/srlab/optim.h, one C operation per
 * rounding (-ffp-contract=off): tests/train/test_optim.c re-derives them in binary64. The tile
 * is processed in short passes over arrays of OPT_TILE elements (loads, moments, square roots,
 * step, writes) so that every pass vectorises; the writes are the tensors' own tile writers.
 * The arrays are the caller's scratch (arrays of the tile's length, one block per thread, on the
 * heap), never the stack: a step runs on OpenMP workers, whose stacks OMP_STACKSIZE may make
 * tiny. */

typedef struct TPL(coef) {
    REAL lr, wd, mu, b1, c1, b2, c2, bc1, bc2, eps;
    bool decay; /* wd != 0 */
} TPL(coef);

static void TPL(coef_init)(TPL(coef) *k, const srl_optim_config *c, uint64_t t, double lr)
{
    k->lr = (REAL)lr;
    k->wd = (REAL)c->wd;
    k->decay = c->wd != 0;
    k->mu = (REAL)c->momentum;
    k->b1 = (REAL)c->beta1;
    k->c1 = (REAL)(1.0 - c->beta1);
    k->b2 = (REAL)c->beta2;
    k->c2 = (REAL)(1.0 - c->beta2);
    const double tb = SRL__MUT(ADAM_BIAS) ? (double)t + 1 : (double)t; /* defect adam-bias */
    k->bc1 = (REAL)(1.0 - pow(c->beta1, tb));
    k->bc2 = (REAL)(1.0 - pow(c->beta2, tb));
    k->eps = (REAL)c->eps;
}

static int TPL(put)(srl_tensor *t, size_t off, const REAL *x, size_t k, srl_rounding m,
                    uint64_t idx, uint64_t *ws);
static void TPL(get)(REAL *y, const srl_tensor *t, size_t off, size_t k);
static void TPL(sqrt_tile)(REAL *y, const REAL *x, size_t k);

/* The step of each element, sv, from x and the gradient g (the L2 term already added for sgd,
 * momentum and adam), through the moments: their new values are written (momentum, adam,
 * adamw). */
static int TPL(step_values)(REAL *sv, const REAL *x, const REAL *g, srl_weight *p,
                            const srl_strategy *s, srl_optim_kind kind, const TPL(coef) *c,
                            size_t off, size_t k, uint64_t idx, REAL *ws, uint64_t *pw)
{
    REAL *mm = ws, *vv = ws + k, *q = ws + 2 * k;
    int rc;
    switch (kind) {
    case SRL_OPTIM_SGD:
        for (size_t i = 0; i < k; i++)
            sv[i] = c->lr * g[i];
        return SRL_OK;
    case SRL_OPTIM_MOMENTUM:
        TPL(get)(mm, p->m, off, k);
        for (size_t i = 0; i < k; i++) {
            mm[i] = c->mu * mm[i] + g[i];
            sv[i] = c->lr * mm[i];
        }
        return TPL(put)(p->m, off, mm, k, s->m.mode, idx, pw);
    default: /* adam, adamw */
        TPL(get)(mm, p->m, off, k);
        TPL(get)(vv, p->v, off, k);
        for (size_t i = 0; i < k; i++) {
            const REAL gi = g[i];
            mm[i] = c->b1 * mm[i] + c->c1 * gi;
            vv[i] = c->b2 * vv[i] + (c->c2 * gi) * gi;
            q[i] = SRL__MUT(ADAM_EPS) ? vv[i] / c->bc2 + c->eps /* defect adam-eps */
                                      : vv[i] / c->bc2;
        }
        TPL(sqrt_tile)(q, q, k);
        /* the denominator sqrt(v'/bc2) + eps; defect adam-eps: sqrt(v'/bc2 + eps) (above) */
#define TPL_DEN(i) (SRL__MUT(ADAM_EPS) ? q[i] : q[i] + c->eps)
        if (kind == SRL_OPTIM_ADAMW && c->decay)
            for (size_t i = 0; i < k; i++)
                sv[i] = c->lr * ((mm[i] / c->bc1) / TPL_DEN(i) + c->wd * x[i]);
        else
            for (size_t i = 0; i < k; i++)
                sv[i] = c->lr * ((mm[i] / c->bc1) / TPL_DEN(i));
#undef TPL_DEN
        rc = TPL(put)(p->m, off, mm, k, s->m.mode, idx, pw);
        if (!rc)
            rc = TPL(put)(p->v, off, vv, k, s->v.mode, idx, pw);
        return rc;
    }
}

/* The Kahan-compensated write of x - sv: y = e + c with e = -s (computed as c - s, the same
 * rounding), x + y rounded into the weight, t = new - x, comp <- round(y - t). Counts the lost
 * updates (weight and compensation both unchanged) and non-finite new weights. */
static int TPL(write_kahan)(srl_step_stats *st, srl_weight *p, const srl_strategy *s,
                            const REAL *x, const REAL *sv, size_t off, size_t k, uint64_t idx,
                            REAL *ws, uint64_t *pw)
{
    REAL *cc = ws, *y = ws + k, *xe = ws + 2 * k, *nx = ws + 3 * k, *nc = ws + 4 * k;
    int rc;
    TPL(get)(cc, p->comp, off, k);
    for (size_t i = 0; i < k; i++) {
        y[i] = cc[i] - sv[i];
        xe[i] = x[i] + y[i];
    }
    if ((rc = TPL(put)(p->w, off, xe, k, s->param.mode, idx, pw)))
        return rc;
    TPL(get)(nx, p->w, off, k);
    for (size_t i = 0; i < k; i++)
        nc[i] = y[i] - (nx[i] - x[i]);
    if (!(SRL__MUT(KAHAN_DROP) && idx == 0) && /* defect kahan-drop: step 1's not written */
        (rc = TPL(put)(p->comp, off, nc, k, s->comp.mode, idx, pw)))
        return rc;
    TPL(get)(nc, p->comp, off, k);
    uint32_t lost = 0, nf = 0; /* per tile: 32-bit counters vectorise */
    for (size_t i = 0; i < k; i++) {
        lost += (sv[i] != 0) & (nx[i] == x[i]) & (nc[i] == cc[i]);
        nf += !isfinite(nx[i]);
    }
    st->lost += lost;
    st->nonfinite += nf;
    return SRL_OK;
}

/* The write of x - sv into the master (then its cast into the weight) or the weight; counts the
 * lost updates (stored value unchanged) and non-finite new values. */
static int TPL(write_plain)(srl_step_stats *st, srl_weight *p, const srl_strategy *s,
                            const REAL *x, const REAL *sv, size_t off, size_t k, uint64_t idx,
                            REAL *ws, uint64_t *pw)
{
    REAL *xe = ws, *nx = ws + k;
    srl_tensor *xt = p->master ? p->master : p->w;
    int rc;
    for (size_t i = 0; i < k; i++)
        xe[i] = x[i] - sv[i];
    if ((rc = TPL(put)(xt, off, xe, k, p->master ? s->master.mode : s->param.mode, idx, pw)))
        return rc;
    TPL(get)(nx, xt, off, k);
    if (p->master && (rc = TPL(put)(p->w, off, nx, k, s->param.mode, idx, pw)))
        return rc;
    uint32_t lost = 0, nf = 0;
    for (size_t i = 0; i < k; i++) {
        lost += (sv[i] != 0) & (nx[i] == x[i]);
        nf += !isfinite(nx[i]);
    }
    st->lost += lost;
    st->nonfinite += nf;
    return SRL_OK;
}

/* Elements [off, off + k) of weight p, k <= OPT_TILE; idx = t - 1 (the write index of step t);
 * scratch: OPT_SCRATCH * k values (arrays of k each), then k words for the tensor writes. */
static int TPL(step_tile)(srl_step_stats *st, srl_weight *p, const srl_strategy *s,
                          srl_optim_kind kind, const TPL(coef) *c, size_t off, size_t k,
                          uint64_t idx, void *scratch)
{
    REAL *x = scratch, *g = x + k, *sv = g + k, *ws = sv + k;
    uint64_t *pw = (uint64_t *)(x + OPT_SCRATCH * k); /* the tensor writes' scratch */
    TPL(get)(x, p->master ? p->master : p->w, off, k);
    TPL(get)(g, p->g, off, k);
    uint32_t nfg = 0; /* per tile: 32-bit counters vectorise */
    for (size_t i = 0; i < k; i++)
        nfg += !isfinite(g[i]);
    st->nonfinite_grad += nfg;
    /* d: the gradient, plus the L2 term for sgd, momentum and adam */
    if (c->decay && kind != SRL_OPTIM_ADAMW)
        for (size_t i = 0; i < k; i++)
            g[i] = g[i] + c->wd * x[i];
    int rc = TPL(step_values)(sv, x, g, p, s, kind, c, off, k, idx, ws, pw);
    if (rc)
        return rc;
    return p->comp ? TPL(write_kahan)(st, p, s, x, sv, off, k, idx, ws, pw)
                   : TPL(write_plain)(st, p, s, x, sv, off, k, idx, ws, pw);
}
