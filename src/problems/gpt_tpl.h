/* src/problems/gpt_tpl.h: the GPT's forward and backward pass, written once and compiled three
 * times by src/problems/gpt.c through src/problems/model_instantiate.h (_emu, _plain, _f64; see
 * src/problems/gpt_impl.h): REAL is the element type, TPL(name) this instance's names, PASS_MODE
 * the instance, and src/problems/model_ops.h the operations shared with the MLP (products,
 * roundings, GELU, cross-entropy). From src/problems/gpt.c it uses block_at (layer l's weight
 * offsets) and rng_ahead/rng_advance.
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
 * Nonlinearities use the C library's expf/logf/sqrtf (exp/log/tanh/sqrt in _f64):
 * deterministic, not correctly rounded; sqrt is correctly rounded; tanh in binary32 is
 * srl__tanh32 (src/problems/tanh32.h: IEEE operations only, faithful, vectorised). Loops fork
 * OpenMP threads only above srl__models_omp_min elements (src/problems/model_impl.h). */

/* The elementwise and row-wise phases below round what they store into its slot (ROUND_ACT or
 * ROUND_GRAD) in their own parallel region: each thread rounds the items it has just written
 * (round_part), and rng then advances past the phase's draws, so that the values and draws are
 * round_slot's after the loop, without a region and a pass over the array of their own (at GPT
 * size b on two threads the bf16 strategies' separate roundings took 0.55 ms a step, longer than
 * on one thread). The linear layers do the same in their product's threads (mm_lin_rounded).
 * An elementwise operation on a phase's or a product's rounded output (a residual addition,
 * GELU) is a stage of it (model_ops.h): done piece by piece by the thread that has just rounded
 * it, with the draws it would take as a phase of its own, without that phase's region. */

/* Items [0, n) of `width` elements of out (n elements in all): body(ctx, lo, len) writes items
 * [lo, lo + len), a piece of about an eighth of a thread's share at a time (srl__bands: its own
 * band's pieces first, then those the other threads have not begun), and the thread rounds each
 * piece into slot as it finishes it, then runs the stage `then` on it (NULL: none; model_ops.h,
 * its skip 0 here: its draws follow the phase's, and rng advances past both). side(ctx, j) for
 * j in [0, nside): independent work of the phase with nothing to round (layer norm's weight
 * gradients, by blocks of columns), items after the pieces in the same bands. */
static int TPL(each_rounded)(size_t n, size_t width, size_t total, REAL *out,
                             void (*body)(const void *ctx, size_t lo, size_t len),
                             const void *ctx, const srl_slot *slot, srl_rng *rng,
                             const TPL(stage) *then, size_t nside,
                             void (*side)(const void *ctx, size_t j))
{
    int status = SRL_OK;
    const size_t nt = srl__max_threads(), pieces = n < 8 * nt ? n : 8 * nt;
    const uint64_t draws = TPL(round_draws)(total, slot);
    const srl_rng r2 = rng_ahead(rng, draws); /* the first draw of `then` */
    srl__bands bands;
    srl__bands_init(&bands, pieces + nside, nt);
#pragma omp parallel reduction(min : status) \
    if (total >= srl__models_omp_min && srl__workers_ok())
    for (size_t p; srl__bands_next(&bands, srl__thread_num(), &p);) {
        if (p >= pieces) {
            side(ctx, p - pieces);
            continue;
        }
        size_t lo, len;
        srl__share(n, pieces, p, &lo, &len);
        body(ctx, lo, len);
        const size_t e0 = lo * width, e1 = (lo + len) * width < total ? (lo + len) * width : total;
        int st = TPL(round_part)(out, e0, e1 > e0 ? e1 - e0 : 0, slot, rng);
        if (then && e1 > e0) {
            then->fn(then->ctx, e0, e1 - e0);
            const int st2 = TPL(round_part)(then->out, e0, e1 - e0, slot, rng ? &r2 : NULL);
            st = st2 < st ? st2 : st;
        }
        status = st < status ? st : status;
    }
    rng_advance(rng, then ? 2 * draws : draws);
    return status;
}

/* The operands of a phase's rows (what each body reads). */
typedef struct TPL(rows_ctx) {
    REAL *out, *mean, *rstd, *th, *dw, *db;
    const REAL *x, *y, *w, *b;
    size_t C, T, rows;
    const int32_t *tok;
} TPL(rows_ctx);

/* ---- layer norm: out = (x - mean) / sqrt(var + eps) * w + b, per row of C; out rounded ---- */

static void TPL(ln_fwd_rows)(const void *vctx, size_t lo, size_t len)
{
    const TPL(rows_ctx) *k = vctx;
    const size_t C = k->C;
    const REAL eps = (REAL)1e-5, Cr = (REAL)C;
    for (size_t i = lo; i < lo + len; i++) {
        const REAL *xi = k->x + i * C;
        REAL s = xi[0];
        for (size_t c = 1; c < C; c++)
            s = s + xi[c];
        const REAL m = s / Cr;
        REAL v = (xi[0] - m) * (xi[0] - m);
        for (size_t c = 1; c < C; c++)
            v = v + (xi[c] - m) * (xi[c] - m);
        const REAL r = (REAL)1 / R_SQRT(v / Cr + eps);
        REAL *o = k->out + i * C;
        for (size_t c = 0; c < C; c++)
            o[c] = ((xi[c] - m) * r) * k->w[c] + k->b[c];
        k->mean[i] = m;
        k->rstd[i] = r;
    }
}

static int TPL(ln_fwd)(REAL *out, REAL *mean, REAL *rstd, const REAL *x, const REAL *w,
                       const REAL *b, size_t rows, size_t C, const srl_slot *slot, srl_rng *rng)
{
    const TPL(rows_ctx) k = {.out = out, .mean = mean, .rstd = rstd, .x = x, .w = w, .b = b,
                             .C = C};
    return TPL(each_rounded)(rows, C, rows * C, out, TPL(ln_fwd_rows), &k, slot, rng, NULL, 0,
                             NULL);
}

/* dx = (dnorm - mean(dnorm) - xhat mean(dnorm xhat)) rstd, dnorm = w dout, xhat = (x - mean)
 * rstd (the forward line o = (x - m) r w + b); k->y is dout. */
static void TPL(ln_bwd_rows)(const void *vctx, size_t lo, size_t len)
{
    const TPL(rows_ctx) *k = vctx;
    const size_t C = k->C;
    const REAL Cr = (REAL)C, *w = k->w;
    for (size_t i = lo; i < lo + len; i++) {
        const REAL *xi = k->x + i * C, *di = k->y + i * C;
        const REAL m = k->mean[i], r = k->rstd[i];
        REAL a = w[0] * di[0], bb = (w[0] * di[0]) * ((xi[0] - m) * r);
        for (size_t c = 1; c < C; c++) {
            const REAL dn = w[c] * di[c];
            a = a + dn;
            bb = bb + dn * ((xi[c] - m) * r);
        }
        a = a / Cr;
        bb = bb / Cr;
        REAL *o = k->out + i * C;
        for (size_t c = 0; c < C; c++) {
            const REAL xh = (xi[c] - m) * r;
            o[c] = ((w[c] * di[c] - a) - xh * bb) * r;
        }
    }
}

/* Columns [j LN_COLS, (j + 1) LN_COLS) of layer norm's weight gradients: dw[c] = sum_i
 * dout[i,c] xhat[i,c], db[c] = sum_i dout[i,c], each summed in row order (k->y is dout). The
 * rows outside, a block of columns inside: every sum keeps its order, and each row's block is
 * one cache line of each operand, where a loop over one column at a time read a line for every
 * element. */
#ifndef LN_COLS
#define LN_COLS 16
#endif
SRL__PLAIN_CLONES
static void TPL(ln_wgrad_cols)(const void *vctx, size_t j)
{
    const TPL(rows_ctx) *k = vctx;
    const size_t C = k->C, c0 = j * LN_COLS, w = C - c0 < LN_COLS ? C - c0 : LN_COLS;
    const REAL *x = k->x + c0, *d = k->y + c0, *mean = k->mean, *rstd = k->rstd;
    REAL sw[LN_COLS], sb[LN_COLS];
    for (size_t c = 0; c < w; c++) {
        sw[c] = d[c] * ((x[c] - mean[0]) * rstd[0]);
        sb[c] = d[c];
    }
    for (size_t i = 1; i < k->rows; i++) {
        const REAL *xi = x + i * C, *di = d + i * C, m = mean[i], r = rstd[i];
        if (w == LN_COLS) { /* a constant trip count: the compiler's vectors */
            for (size_t c = 0; c < LN_COLS; c++) {
                sw[c] = sw[c] + di[c] * ((xi[c] - m) * r);
                sb[c] = sb[c] + di[c];
            }
        } else {
            for (size_t c = 0; c < w; c++) {
                sw[c] = sw[c] + di[c] * ((xi[c] - m) * r);
                sb[c] = sb[c] + di[c];
            }
        }
    }
    for (size_t c = 0; c < w; c++) {
        k->dw[c0 + c] = sw[c];
        k->db[c0 + c] = sb[c];
    }
}

/* elements [lo, lo + len): k->out = k->x + k->y */
static void TPL(add_els)(const void *vctx, size_t lo, size_t len)
{
    const TPL(rows_ctx) *k = vctx;
    for (size_t i = lo; i < lo + len; i++)
        k->out[i] = k->x[i] + k->y[i];
}

/* Backward of ln_fwd: dx (rows, C), rounded; dw, db (C) = the sums over rows (row order), in
 * the same region (blocks of columns, ln_wgrad_cols). resid (NULL: none) = resid + dx, rounded
 * after dx (the backward residual addition). */
static int TPL(ln_bwd)(REAL *dx, REAL *dw, REAL *db, const REAL *dout, const REAL *x,
                       const REAL *mean, const REAL *rstd, const REAL *w, size_t rows, size_t C,
                       REAL *resid, const srl_slot *slot, srl_rng *rng)
{
    const TPL(rows_ctx) k = {.out = dx, .mean = (REAL *)mean, .rstd = (REAL *)rstd, .dw = dw,
                             .db = db, .x = x, .y = dout, .w = w, .C = C, .rows = rows};
    const TPL(rows_ctx) ka = {.out = resid, .x = resid, .y = dx};
    const TPL(stage) add = {resid, TPL(add_els), &ka, 0};
    return TPL(each_rounded)(rows, C, rows * C, dx, TPL(ln_bwd_rows), &k, slot, rng,
                             resid ? &add : NULL, rows ? (C + LN_COLS - 1) / LN_COLS : 0,
                             TPL(ln_wgrad_cols));
}

/* ---- GELU (model_ops.h), elementwise ---- */

/* th: the tanh term of each element, for GELU's backward. gelu_run is the loop the compiler
 * vectorises (binary32's tanh is branch-free, src/problems/tanh32.h), in a copy per instruction
 * set. */
SRL__PLAIN_CLONES
static void TPL(gelu_run)(REAL *restrict out, REAL *restrict th, const REAL *restrict x,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = TPL(gelu_th)(x[i], th + i);
}

/* elements [lo, lo + len): k->out = gelu(k->x), the tanh terms k->th */
static void TPL(gelu_fwd_els)(const void *vctx, size_t lo, size_t len)
{
    const TPL(rows_ctx) *k = vctx;
    TPL(gelu_run)(k->out + lo, k->th + lo, k->x + lo, len);
}

/* elements [lo, lo + len): k->out = gelu'(k->x) k->y, the tanh terms k->th */
static void TPL(gelu_bwd_els)(const void *vctx, size_t lo, size_t len)
{
    const TPL(rows_ctx) *k = vctx;
    for (size_t i = lo; i < lo + len; i++)
        k->out[i] = TPL(gelu_grad_th)(k->x[i], k->th[i]) * k->y[i];
}

/* The stage sg over the n outputs of a product that mm_lin_rounded has just rounded into slot:
 * done (its epilogue ran sg), rng past sg's draws; else sg as an elementwise phase of its own. */
static int TPL(lin_finish)(const srl__gpt_pass *ps, const TPL(stage) *sg, size_t n, bool done,
                           const srl_slot *slot)
{
    if (done) {
        rng_advance(ps->rng, TPL(round_draws)(n, slot));
        return SRL_OK;
    }
    return TPL(each_rounded)(n, 1, n, sg->out, sg->fn, sg->ctx, slot, ps->rng, NULL, 0, NULL);
}

/* ---- heads: (B,T,C) slices <-> (B,NH,T,hs), one (b,h) pair at a time ---- */

/* dst[t,i] = src[b,t, col0 + h hs + i] for pair bh = b NH + h; src rows of width w. */
static void TPL(head_get)(REAL *dst, const REAL *src, size_t w, size_t col0, size_t bh,
                          const srl__gpt_pass *ps)
{
    const size_t T = ps->d.T, NH = ps->d.NH, hs = ps->d.C / NH, b = bh / NH, h = bh % NH;
    for (size_t t = 0; t < T; t++)
        memcpy(dst + t * hs, src + (b * T + t) * w + col0 + h * hs, hs * sizeof *dst);
}

/* dst[b,t, col0 + h hs + i] = src[t,i] for pair bh = b NH + h. */
static void TPL(head_put)(REAL *dst, size_t w, size_t col0, const REAL *src, size_t bh,
                          const srl__gpt_pass *ps)
{
    const size_t T = ps->d.T, NH = ps->d.NH, hs = ps->d.C / NH, b = bh / NH, h = bh % NH;
    for (size_t t = 0; t < T; t++)
        memcpy(dst + (b * T + t) * w + col0 + h * hs, src + t * hs, hs * sizeof *dst);
}

/* ---- attention ---- */

/* Causal self-attention of layer buffers Ly (forward): for every (b,h)
 *   q, k, v = the head's slices of qkv        (T,hs)  (split)
 *   att = softmax_causal(q k^T * scale)       (T,T)   ROUND_ACT
 *   y   = att v                               (T,hs)  ROUND_ACT
 *   atty[b, :, h hs ..] = y                           (merge)
 * (b,h) pairs in parallel (srl__bands), each with its own block of draws. Each pair splits its
 * own slices and merges its own output: on the thread that uses them, while they are in its
 * cache (as loops of their own, two of the five passes over the activations did not speed up on
 * two threads at GPT size b). */
static int TPL(attn_fwd)(const srl__gpt_pass *ps, REAL *Ly, REAL *tsc, srl_rng *rng)
{
    const srl__gpt_layout *lay = ps->lay;
    const size_t B = ps->d.B, T = ps->d.T, NH = ps->d.NH, C = ps->d.C, hs = C / NH;
    const srl_accum *acc = ps->accum;
    const srl_slot *act = &ps->act;
    const REAL scale = (REAL)(1.0 / sqrt((double)hs));
    const uint64_t D1 = TPL(mm_draws)(T, T, hs, acc), R1 = TPL(round_draws)(T * T, act);
    const uint64_t D2 = TPL(mm_draws)(T, hs, T, acc), R2 = TPL(round_draws)(T * hs, act);
    const uint64_t per = D1 + R1 + D2 + R2;
    int status = SRL_OK;
    srl__bands bands; /* each pair's outputs and draws are its own: any thread, same bits */
    srl__bands_init(&bands, B * NH, srl__max_threads());
#pragma omp parallel reduction(min : status) \
    if (B * NH > 1 && B * NH * T * T * hs >= 4 * srl__models_omp_min && srl__workers_ok())
    for (size_t bh; srl__bands_next(&bands, srl__thread_num(), &bh);) {
        srl_rng r = rng_ahead(rng, bh * per);
        REAL *q = Ly + lay->qh + bh * T * hs, *k = Ly + lay->kh + bh * T * hs;
        REAL *v = Ly + lay->vh + bh * T * hs;
        REAL *att = Ly + lay->att + bh * T * T, *y = Ly + lay->yh + bh * T * hs;
        TPL(head_get)(q, Ly + lay->qkv, 3 * C, 0, bh, ps);
        TPL(head_get)(k, Ly + lay->qkv, 3 * C, C, bh, ps);
        TPL(head_get)(v, Ly + lay->qkv, 3 * C, 2 * C, bh, ps);
        int st = TPL(mm_nt)(att, q, k, T, T, hs, acc, &r, tsc + bh * T * hs);
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
            st = TPL(round_slot)(att, T * T, act, &r); /* ROUND_ACT */
        if (!st)
            st = TPL(mm_nn)(y, att, v, T, hs, T, acc, &r, NULL);
        if (!st)
            st = TPL(round_slot)(y, T * hs, act, &r); /* ROUND_ACT */
        TPL(head_put)(Ly + lay->atty, C, 0, y, bh, ps);
        if (st < status)
            status = st;
    }
    rng_advance(rng, B * NH * per);
    return status;
}

/* Backward of attn_fwd for one layer: from datty (B,T,C) to dqkv (B,T,3C), through dyh, dqh,
 * dkh, dvh (B,NH,T,hs) and the scratch datt; as in attn_fwd, each (b,h) pair splits its dy and
 * merges its dq, dk, dv itself.
 *   datt = dy v^T                                 ROUND_GRAD   (y = att v)
 *   dv   = att^T dy                               ROUND_GRAD
 *   dpre = att (datt - rowsum(att datt)) scale    ROUND_GRAD   (att = softmax(pre scale))
 *   dq   = dpre k                                 ROUND_GRAD   (pre = q k^T)
 *   dk   = dpre^T q                               ROUND_GRAD */
static int TPL(attn_bwd)(const srl__gpt_pass *ps, REAL *Ly, REAL *A, REAL *tsc, srl_rng *rng)
{
    const srl__gpt_layout *lay = ps->lay;
    const size_t B = ps->d.B, T = ps->d.T, NH = ps->d.NH, C = ps->d.C, hs = C / NH;
    const srl_accum *acc = ps->accum;
    const srl_slot *gs = &ps->grad;
    const REAL scale = (REAL)(1.0 / sqrt((double)hs));
    const uint64_t Dtt = TPL(mm_draws)(T, T, hs, acc), Dth = TPL(mm_draws)(T, hs, T, acc);
    const uint64_t Gtt = TPL(round_draws)(T * T, gs), Gth = TPL(round_draws)(T * hs, gs);
    const uint64_t per = (Dtt + Gtt) + (Dth + Gth) + Gtt + 2 * (Dth + Gth);
    int status = SRL_OK;
    srl__bands bands; /* each pair's outputs and draws are its own: any thread, same bits */
    srl__bands_init(&bands, B * NH, srl__max_threads());
#pragma omp parallel reduction(min : status) \
    if (B * NH > 1 && B * NH * T * T * hs >= 4 * srl__models_omp_min && srl__workers_ok())
    for (size_t bh; srl__bands_next(&bands, srl__thread_num(), &bh);) {
        srl_rng r = rng_ahead(rng, bh * per);
        const REAL *q = Ly + lay->qh + bh * T * hs, *k = Ly + lay->kh + bh * T * hs;
        const REAL *v = Ly + lay->vh + bh * T * hs, *att = Ly + lay->att + bh * T * T;
        REAL *dy = A + lay->dyh + bh * T * hs, *datt = A + lay->datt + bh * T * T;
        REAL *dq = A + lay->dqh + bh * T * hs, *dk = A + lay->dkh + bh * T * hs;
        REAL *dv = A + lay->dvh + bh * T * hs;
        TPL(head_get)(dy, A + lay->datty, C, 0, bh, ps);
        int st = TPL(mm_nt)(datt, dy, v, T, T, hs, acc, &r, tsc + bh * T * hs);
        if (!st)
            st = TPL(round_slot)(datt, T * T, gs, &r); /* ROUND_GRAD */
        if (!st)
            st = TPL(mm_tn)(dv, att, dy, T, hs, T, acc, &r, NULL);
        if (!st)
            st = TPL(round_slot)(dv, T * hs, gs, &r); /* ROUND_GRAD */
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
            st = TPL(round_slot)(datt, T * T, gs, &r); /* ROUND_GRAD */
        if (!st)
            st = TPL(mm_nn)(dq, datt, k, T, hs, T, acc, &r, NULL);
        if (!st)
            st = TPL(round_slot)(dq, T * hs, gs, &r); /* ROUND_GRAD */
        if (!st)
            st = TPL(mm_tn)(dk, datt, q, T, hs, T, acc, &r, NULL);
        if (!st)
            st = TPL(round_slot)(dk, T * hs, gs, &r); /* ROUND_GRAD */
        REAL *dqkv = A + lay->dqkv;
        TPL(head_put)(dqkv, 3 * C, 0, dq, bh, ps);
        TPL(head_put)(dqkv, 3 * C, C, dk, bh, ps);
        TPL(head_put)(dqkv, 3 * C, 2 * C, dv, bh, ps);
        if (st < status)
            status = st;
    }
    rng_advance(rng, B * NH * per);
    return status;
}

/* ---- the pass, phase by phase; every phase draws from ps->rng in the order written ---- */

/* rows [lo, lo + len) of enc: k->out = wte[token] + wpe[position] (k->x wte, k->y wpe) */
static void TPL(embed_rows)(const void *vctx, size_t lo, size_t len)
{
    const TPL(rows_ctx) *k = vctx;
    const size_t C = k->C, T = k->T;
    for (size_t bt = lo; bt < lo + len; bt++) {
        const size_t b = bt / T, t = bt % T;
        const REAL *e = k->x + (size_t)k->tok[b * (T + 1) + t] * C, *p = k->y + t * C;
        for (size_t c = 0; c < C; c++)
            k->out[bt * C + c] = e[c] + p[c];
    }
}

/* x = wte[token] + wpe[position], into enc                                          ROUND_ACT */
static int TPL(embed_fwd)(const srl__gpt_pass *ps, const REAL *par, const int32_t *tok, REAL *A)
{
    const size_t T = ps->d.T, C = ps->d.C, BT = ps->d.B * T;
    REAL *enc = A + ps->lay->enc;
    const TPL(rows_ctx) k = {.out = enc, .x = par + ps->off[GP_WTE], .y = par + ps->off[GP_WPE],
                             .C = C, .T = T, .tok = tok};
    return TPL(each_rounded)(BT, C, BT * C, enc, TPL(embed_rows), &k, &ps->act, ps->rng, NULL,
                             0, NULL);
}

/* Block l, forward: from the residual stream res (enc, or block l-1's res3) to its res3. Its
 * linear layers (qkv, proj, fc, fcproj) are mm_lin's, block-scaled where the strategy says so;
 * the attention's products and the tied head stay with the kernels (as in the MXFP4 recipes,
 * which quantize the linear layers). The residual additions and GELU are stages of the products
 * before them (model_ops.h: in their epilogue where the engine runs one). */
static int TPL(block_fwd)(const srl__gpt_pass *ps, const REAL *par, size_t l, const REAL *res,
                          REAL *A)
{
    const srl__gpt_layout *lay = ps->lay;
    const srl__gpt_dims *d = &ps->d;
    const size_t BT = d->B * d->T, C = d->C, C3 = 3 * C, C4 = 4 * C;
    const srl_slot *act = &ps->act;
    srl_rng *rng = ps->rng;
    const block_off w = block_at(ps->off, l, C);
    REAL *Ly = A + lay->l0 + l * lay->per_layer, *tmpc = A + lay->tmpc, *tsc = A + lay->tsc;
    bool done;
    /* ln1 = layernorm(res)                                                        ROUND_ACT */
    SRL__TRY(TPL(ln_fwd)(Ly + lay->ln1, Ly + lay->ln1_mean, Ly + lay->ln1_rstd, res,
                         par + w.ln1w, par + w.ln1b, BT, C, act, rng));
    /* qkv = ln1 @ qkvw                                                            ROUND_ACT */
    SRL__TRY(TPL(mm_lin_rounded)(Ly + lay->qkv, Ly + lay->ln1, par + w.qkvw, BT, C3, C,
                                 SRL_STRATEGY_FPROP, ps->mx, ps->accum, rng, tsc, act, NULL,
                                 NULL));
    SRL__TRY(TPL(attn_fwd)(ps, Ly, tsc, rng));
    /* res2 = res + atty @ projw                                         ROUND_ACT (both lines) */
    const TPL(rows_ctx) k2 = {.out = Ly + lay->res2, .x = res, .y = tmpc};
    const TPL(stage) add2 = {Ly + lay->res2, TPL(add_els), &k2, 0};
    SRL__TRY(TPL(mm_lin_rounded)(tmpc, Ly + lay->atty, par + w.projw, BT, C, C,
                                 SRL_STRATEGY_FPROP, ps->mx, ps->accum, rng, tsc, act, &add2,
                                 &done));
    SRL__TRY(TPL(lin_finish)(ps, &add2, BT * C, done, act));
    /* ln2 = layernorm(res2)                                                       ROUND_ACT */
    SRL__TRY(TPL(ln_fwd)(Ly + lay->ln2, Ly + lay->ln2_mean, Ly + lay->ln2_rstd, Ly + lay->res2,
                         par + w.ln2w, par + w.ln2b, BT, C, act, rng));
    /* fch = ln2 @ fcw; fchg = gelu(fch)                                 ROUND_ACT (both lines) */
    const TPL(rows_ctx) kg = {.out = Ly + lay->fchg, .th = Ly + lay->fcth, .x = Ly + lay->fch};
    const TPL(stage) gelu = {Ly + lay->fchg, TPL(gelu_fwd_els), &kg, 0};
    SRL__TRY(TPL(mm_lin_rounded)(Ly + lay->fch, Ly + lay->ln2, par + w.fcw, BT, C4, C,
                                 SRL_STRATEGY_FPROP, ps->mx, ps->accum, rng, tsc, act, &gelu,
                                 &done));
    SRL__TRY(TPL(lin_finish)(ps, &gelu, BT * C4, done, act));
    /* res3 = res2 + fchg @ fcprojw                                      ROUND_ACT (both lines) */
    const TPL(rows_ctx) k3 = {.out = Ly + lay->res3, .x = Ly + lay->res2, .y = tmpc};
    const TPL(stage) add3 = {Ly + lay->res3, TPL(add_els), &k3, 0};
    SRL__TRY(TPL(mm_lin_rounded)(tmpc, Ly + lay->fchg, par + w.fcprojw, BT, C, C4,
                                 SRL_STRATEGY_FPROP, ps->mx, ps->accum, rng, tsc, act, &add3,
                                 &done));
    return TPL(lin_finish)(ps, &add3, BT * C, done, act);
}

/* The tied head's products: with the kernels, never block-scaled. */
static const srl_mxgemm *const TPL(no_mx)[SRL_STRATEGY_GEMMS] = {NULL};

/* lnf = layernorm(res); logits = lnf @ wte^T                            ROUND_ACT (both lines) */
static int TPL(head_fwd)(const srl__gpt_pass *ps, const REAL *par, const REAL *res, REAL *A)
{
    const srl__gpt_layout *lay = ps->lay;
    const size_t BT = ps->d.B * ps->d.T, C = ps->d.C, V = ps->d.V;
    const size_t *off = ps->off;
    REAL *lnf = A + lay->lnf, *logits = A + lay->logits;
    SRL__TRY(TPL(ln_fwd)(lnf, A + lay->lnf_mean, A + lay->lnf_rstd, res, par + off[GP_LNFW],
                         par + off[GP_LNFB], BT, C, &ps->act, ps->rng));
    return TPL(mm_lin_rounded)(logits, lnf, par + off[GP_WTE], BT, V, C, SRL_STRATEGY_DGRAD,
                               TPL(no_mx), ps->accum, ps->rng, A + lay->tsc, &ps->act, NULL,
                               NULL);
}


/* The sum of the B*T per-position losses (model_ops.h's xent_row; ps->row_loss holds them, the
 * sum is binary64 in position order); with dlogits, the gradient of their mean,
 * (softmax(z) - onehot(y)) / (B T). */
static double TPL(loss)(const srl__gpt_pass *ps, const int32_t *tok, const REAL *logits,
                        REAL *dlogits)
{
    const size_t T = ps->d.T, V = ps->d.V, BT = ps->d.B * T;
    const REAL inv = (REAL)1 / (REAL)BT;
    /* each value takes an expf, the work of several elementwise values: forks from 1/8 of the
     * threshold (serial, the loss was 85 us of a GPT step at size b on two threads) */
#pragma omp parallel for schedule(static) \
    if (8 * BT * V >= srl__models_omp_min && srl__workers_ok())
    for (size_t bt = 0; bt < BT; bt++) {
        const size_t b = bt / T, t = bt % T;
        const size_t y = (size_t)tok[b * (T + 1) + t + 1];
        ps->row_loss[bt] = TPL(xent_row)(logits + bt * V, V, y, inv,
                                         dlogits ? dlogits + bt * V : NULL, NULL);
    }
    double ls = 0;
    for (size_t bt = 0; bt < BT; bt++)
        ls += ps->row_loss[bt];
    return ls;
}

/* Backward of head_fwd, from dlogits to dres = d res (the input of the final layer norm). */
static int TPL(head_bwd)(const srl__gpt_pass *ps, const REAL *par, REAL *grad, const REAL *res,
                         REAL *A)
{
    const srl__gpt_layout *lay = ps->lay;
    const size_t BT = ps->d.B * ps->d.T, C = ps->d.C, V = ps->d.V;
    const size_t *off = ps->off;
    const REAL *dlogits = A + lay->dlogits;
    REAL *dln = A + lay->dln, *dres = A + lay->dres, *tsc = A + lay->tsc;
    /* logits = lnf @ wte^T: dwte = dlogits^T lnf; dlnf = dlogits wte                ROUND_GRAD */
    SRL__TRY(TPL(mm_tn)(grad + off[GP_WTE], dlogits, A + lay->lnf, V, C, BT, ps->accum, ps->rng,
                        tsc));
    SRL__TRY(TPL(mm_lin_rounded)(dln, dlogits, par + off[GP_WTE], BT, C, V, SRL_STRATEGY_FPROP,
                                 TPL(no_mx), ps->accum, ps->rng, tsc, &ps->grad, NULL, NULL));
    /* lnf = layernorm(res)                                                           ROUND_GRAD */
    return TPL(ln_bwd)(dres, grad + off[GP_LNFW], grad + off[GP_LNFB], dln, res,
                       A + lay->lnf_mean, A + lay->lnf_rstd, par + off[GP_LNFW], BT, C, NULL,
                       &ps->grad, ps->rng);
}

/* Products below LIN_PAIR_MAX multiply-adds are too small to split well over two threads (GPT
 * size b: each thread packed its own copy of an operand, and the Wgrads ran 1.2x or slower). */
#ifndef LIN_PAIR_MAX
#define LIN_PAIR_MAX ((size_t)1 << 25)
#endif

/* A linear layer's backward from dY (BT x nout), its input X (BT x nin) and weight W (nin x
 * nout): dX = dY W^T (Dgrad, rounded into the grad slot, with the stage sg: NULL none, *done as
 * mm_lin_rounded's) and dW = X^T dY (Wgrad), the same number of multiply-adds each. On two
 * threads and below LIN_PAIR_MAX, both at once, one per thread (a region of two sections: each
 * product on its thread, none split, one fork for both); otherwise one after the other on every
 * thread. Same values and draws either way: the Dgrad's and its rounding's, then the Wgrad's,
 * each product starting at its own offset (a copy of rng), rng then past them all. */
static int TPL(lin_bwd)(const srl__gpt_pass *ps, REAL *dX, REAL *dW, const REAL *dY,
                        const REAL *X, const REAL *W, size_t nin, size_t nout,
                        const TPL(stage) *sg, bool *done, REAL *tsc)
{
    const size_t BT = ps->d.B * ps->d.T;
    srl_rng *rng = ps->rng;
    const srl_slot *gs = &ps->grad;
    if (!(srl__max_threads() == 2 && BT * nin * nout < LIN_PAIR_MAX && srl__may_fork())) {
        SRL__TRY(TPL(mm_lin_rounded)(dX, dY, W, BT, nin, nout, SRL_STRATEGY_DGRAD, ps->mx,
                                     ps->accum, rng, tsc, gs, sg, done));
        return TPL(mm_lin)(dW, X, dY, nin, nout, BT, SRL_STRATEGY_WGRAD, ps->mx, ps->accum, rng,
                           tsc);
    }
    const uint64_t dd = TPL(lin_draws)(BT, nin, nout, SRL_STRATEGY_DGRAD, ps->mx, ps->accum);
    const uint64_t rd = TPL(round_draws)(BT * nin, gs);
    const uint64_t dw = TPL(lin_draws)(nin, nout, BT, SRL_STRATEGY_WGRAD, ps->mx, ps->accum);
    srl_rng r1 = rng_ahead(rng, 0), r2 = rng_ahead(rng, dd + rd);
    int s1 = SRL_OK, s2 = SRL_OK;
    /* each section writes its own status; the region's end (a barrier) makes them visible */
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
        s1 = TPL(mm_lin_rounded)(dX, dY, W, BT, nin, nout, SRL_STRATEGY_DGRAD, ps->mx, ps->accum,
                                 rng ? &r1 : NULL, tsc, gs, sg, done);
#pragma omp section
        s2 = TPL(mm_lin)(dW, X, dY, nin, nout, BT, SRL_STRATEGY_WGRAD, ps->mx, ps->accum,
                         rng ? &r2 : NULL, NULL);
    }
    rng_advance(rng, dd + rd + dw);
    return s1 != SRL_OK ? s1 : s2;
}

/* Block l, backward: dres = d res3 in, d res (the block's input) out; the block's weight
 * gradients into grad. GELU's backward is a stage of the product before it, the residual
 * additions stages of the layer norms' backward. */
static int TPL(block_bwd)(const srl__gpt_pass *ps, const REAL *par, REAL *grad, size_t l,
                          REAL *A)
{
    const srl__gpt_layout *lay = ps->lay;
    const srl__gpt_dims *d = &ps->d;
    const size_t BT = d->B * d->T, C = d->C, C3 = 3 * C, C4 = 4 * C;
    const srl_slot *gs = &ps->grad;
    srl_rng *rng = ps->rng;
    const block_off w = block_at(ps->off, l, C);
    REAL *Ly = A + lay->l0 + l * lay->per_layer, *tsc = A + lay->tsc;
    const REAL *resin = l ? A + lay->l0 + (l - 1) * lay->per_layer + lay->res3 : A + lay->enc;
    REAL *dres = A + lay->dres, *dln = A + lay->dln, *dtmp = A + lay->dtmp;
    REAL *dfchg = A + lay->dfchg, *dfch = A + lay->dfch, *dqkv = A + lay->dqkv;
    bool done;
    /* res3 = res2 + fchg @ fcprojw: dfchg = dres fcprojw^T (ROUND_GRAD); dfcprojw = fchg^T dres;
     * fchg = gelu(fch): dfch = gelu'(fch) dfchg (ROUND_GRAD, its draws after dfcprojw's) */
    const TPL(rows_ctx) kg = {.out = dfch, .th = Ly + lay->fcth, .x = Ly + lay->fch, .y = dfchg};
    const TPL(stage) gelu = {dfch, TPL(gelu_bwd_els), &kg,
                             TPL(lin_draws)(C4, C, BT, SRL_STRATEGY_WGRAD, ps->mx, ps->accum)};
    SRL__TRY(TPL(lin_bwd)(ps, dfchg, grad + w.fcprojw, dres, Ly + lay->fchg, par + w.fcprojw, C4,
                          C, &gelu, &done, tsc));
    SRL__TRY(TPL(lin_finish)(ps, &gelu, BT * C4, done, gs));
    /* fch = ln2 @ fcw: dln = dfch fcw^T (ROUND_GRAD); dfcw = ln2^T dfch */
    SRL__TRY(TPL(lin_bwd)(ps, dln, grad + w.fcw, dfch, Ly + lay->ln2, par + w.fcw, C, C4, NULL,
                          NULL, tsc));
    /* ln2 = layernorm(res2); dres = d res2 = dres + dtmp                  ROUND_GRAD (both) */
    SRL__TRY(TPL(ln_bwd)(dtmp, grad + w.ln2w, grad + w.ln2b, dln, Ly + lay->res2,
                         Ly + lay->ln2_mean, Ly + lay->ln2_rstd, par + w.ln2w, BT, C, dres, gs,
                         rng));
    /* res2 = res + atty @ projw: datty = dres projw^T (ROUND_GRAD); dprojw = atty^T dres */
    SRL__TRY(TPL(lin_bwd)(ps, A + lay->datty, grad + w.projw, dres, Ly + lay->atty,
                          par + w.projw, C, C, NULL, NULL, tsc));
    /* attention */
    SRL__TRY(TPL(attn_bwd)(ps, Ly, A, tsc, rng));
    /* qkv = ln1 @ qkvw: dln = dqkv qkvw^T (ROUND_GRAD); dqkvw = ln1^T dqkv */
    SRL__TRY(TPL(lin_bwd)(ps, dln, grad + w.qkvw, dqkv, Ly + lay->ln1, par + w.qkvw, C, C3, NULL,
                          NULL, tsc));
    /* ln1 = layernorm(res); dres = d res = dres + dtmp                    ROUND_GRAD (both) */
    return TPL(ln_bwd)(dtmp, grad + w.ln1w, grad + w.ln1b, dln, resin, Ly + lay->ln1_mean,
                       Ly + lay->ln1_rstd, par + w.ln1w, BT, C, dres, gs, rng);
}

/* Columns [j EMB_COLS, (j + 1) EMB_COLS) of the embeddings' gradients (k->x is dres):
 * dwte[token] += dx (rows in order, after the head's part), dwpe[t] = sum_b dx[b,t] (b in
 * order). Rows outside, a block of columns inside (ln_wgrad_cols' reason): every sum keeps its
 * order. */
#ifndef EMB_COLS
#define EMB_COLS 16
#endif
static void TPL(embed_bwd_cols)(const void *vctx, size_t j)
{
    const TPL(rows_ctx) *k = vctx;
    const size_t C = k->C, T = k->T, B = k->rows / T, c0 = j * EMB_COLS;
    const size_t w = C - c0 < EMB_COLS ? C - c0 : EMB_COLS;
    const REAL *dres = k->x + c0;
    REAL *dwte = k->dw + c0, *dwpe = k->db + c0;
    for (size_t bt = 0; bt < B * T; bt++) {
        const size_t b = bt / T, t = bt % T;
        REAL *e = dwte + (size_t)k->tok[b * (T + 1) + t] * C;
        const REAL *g = dres + bt * C;
        for (size_t c = 0; c < w; c++)
            e[c] = e[c] + g[c];
    }
    for (size_t t = 0; t < T; t++) {
        REAL s[EMB_COLS];
        for (size_t c = 0; c < w; c++)
            s[c] = dres[t * C + c];
        for (size_t b = 1; b < B; b++)
            for (size_t c = 0; c < w; c++)
                s[c] = s[c] + dres[(b * T + t) * C + c];
        for (size_t c = 0; c < w; c++)
            dwpe[t * C + c] = s[c];
    }
}

/* x = wte[token] + wpe[position]: the embeddings' gradients, by blocks of columns. */
static void TPL(embed_bwd)(const srl__gpt_pass *ps, REAL *grad, const int32_t *tok,
                           const REAL *dres)
{
    const size_t B = ps->d.B, T = ps->d.T, C = ps->d.C, BT = B * T;
    const TPL(rows_ctx) k = {.dw = grad + ps->off[GP_WTE], .db = grad + ps->off[GP_WPE],
                             .x = dres, .C = C, .T = T, .rows = BT, .tok = tok};
    const size_t nb = (C + EMB_COLS - 1) / EMB_COLS;
#pragma omp parallel for schedule(static) if (BT * C >= srl__models_omp_min && srl__workers_ok())
    for (size_t j = 0; j < nb; j++)
        TPL(embed_bwd_cols)(&k, j);
}

int TPL(srl__gpt_pass)(const srl__gpt_pass *ps, const REAL *par, REAL *grad, const int32_t *tok,
                       REAL *A, double *loss_sum)
{
    const srl__gpt_layout *lay = ps->lay;
    /* ---- forward ---- */
    SRL__TRY(TPL(embed_fwd)(ps, par, tok, A));
    const REAL *res = A + lay->enc;
    for (size_t l = 0; l < ps->d.L; l++) {
        SRL__TRY(TPL(block_fwd)(ps, par, l, res, A));
        res = A + lay->l0 + l * lay->per_layer + lay->res3;
    }
    SRL__TRY(TPL(head_fwd)(ps, par, res, A));
    REAL *dlogits = grad ? A + lay->dlogits : NULL;
    *loss_sum = TPL(loss)(ps, tok, A + lay->logits, dlogits);
    if (!grad)
        return SRL_OK;
    /* ---- backward ---- */
    SRL__TRY(TPL(round_slot)(dlogits, ps->d.B * ps->d.T * ps->d.V, &ps->grad, ps->rng));
    SRL__TRY(TPL(head_bwd)(ps, par, grad, res, A));
    for (size_t l = ps->d.L; l-- > 0;)
        SRL__TRY(TPL(block_bwd)(ps, par, grad, l, A));
    TPL(embed_bwd)(ps, grad, tok, A + lay->dres);
    return SRL_OK;
}
