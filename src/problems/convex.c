/* src/problems/convex.c: the convex training problems of docs/design.md §8: quad1d, quadratic, lsq,
 * logreg, each a training runner (include/srlab/run.h, kind SRL_RUN_TRAIN) on one weight "x".
 *
 * Forward/backward. The gradient is computed in binary64 from the exact values of the weights
 * forward/backward read (the tensor "x": for mp the bf16 cast of the master), Gaussian noise of
 * standard deviation grad-noise is added in binary64 (srl_train_add_noise), and the result is
 * rounded once into the strategy's grad slot (format and rounding). So the emulated precision of
 * these problems lies in the storage of weights, gradients and optimizer state and in the update
 * arithmetic; the products of the gradient computation are not emulated. With the key
 * grad-compute=kernels (lsq and logreg), the two matrix-vector products of the gradient,
 * z = A x and A^T r, are srl_gemv calls with the strategy's accum (include/srlab/kernels.h:
 * every product and accumulation rounded as configured; A, x and r enter as the binary64
 * values they are), while the elementwise steps (r = z - b; for logreg r_i = -y_i
 * sigmoid(-y_i z_i); the scaling by 1/N; + l2 x) stay in binary64. Their draws come from the
 * run's "grad-kernels" stream, step t using the block of draws after those of steps 1 .. t-1
 * (each step consumes N D(d) + d D(N) draws, D = srl_dot_draws).
 *
 * Metrics are evaluated in binary64 on the exact stored parameters (master if any, else x):
 *   quad1d     f = a/2 (x - x*)^2, f* = 0, exact optimum x* (a = 0: f = 0, every point optimal,
 *              for weight decay alone; x* is then only the reference of dist_to_opt). Extra
 *              columns x, then m (momentum, adam, adamw) and v (adam, adamw): the parameter
 *              and the stored optimizer state.
 *   quadratic  f = 1/2 (x - x*)^T H (x - x*), f* = 0, H = diag(lambda) (basis=diag) or
 *              Q diag(lambda) Q^T with Q the orthogonal factor of the QR decomposition of a
 *              d x d standard normal matrix (basis=rotated); lambda_i = kappa^(i/(d-1)),
 *              i = 0 .. d-1 (geometric from 1 to kappa; lambda = 1 for d = 1); x*_i ~ N(0, 1).
 *   lsq        f = 1/(2N) ||A x - b||^2, A N x d standard normal, b = A x_true + noise * e,
 *              x_true, e standard normal; x* = argmin by Householder QR (GSL); loss_gap =
 *              1/(2N) ||A (x - x*)||^2, which equals f(x) - f* exactly at the least-squares
 *              optimum (the residual A x* - b is orthogonal to the range of A) and avoids the
 *              cancellation of f(x) - f*.
 *   logreg     f = (1/N) sum_i log(1 + exp(-y_i <a_i, w>)) + (l2/2) ||w||^2, a_i ~ N(0, I_d),
 *              y_i = +-1 drawn with P(y_i = 1) = sigmoid(<a_i, w_true>), w_true ~ N(0, I_d);
 *              the l2 > 0 term makes f strongly convex, so its minimiser exists and is unique
 *              even for separable data. x* by damped Newton in binary64 (Cholesky, GSL) until the
 *              gradient norm stops decreasing; f - f* as the difference of two compensated sums.
 * Data and x* come from the run's "data" stream, so runs that share a seed share the problem.
 * x0: quad1d's key x0; the others start from x0 (default 0) in every coordinate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "problems/convex.h"
#include "problems/runners.h"
#include "srlab/kernels.h"
#include "srlab/train.h"

typedef enum { P_QUAD1D, P_QUADRATIC, P_LSQ, P_LOGREG } pkind;

typedef struct convex {
    pkind kind;
    srl_train_config tc;
    srl_weight_spec spec;
    size_t d, N;
    double a, xstar1, x0; /* quad1d (x0 for all) */
    double *lambda;       /* quadratic: eigenvalues */
    double *Q;            /* quadratic rotated: d x d row-major, or NULL */
    double *xs;           /* optimum (d) */
    double *A, *b;        /* lsq: N x d, N; logreg: features N x d, labels N */
    double *At;           /* A transposed (d x N), for grad-compute=kernels; else NULL */
    double l2, fstar;
    /* scratch (no allocation per step): r max(N, d) and t d inside gradient(); hx d inside
     * loss(); xin, gout d in the callbacks */
    double *r, *t, *hx, *xin, *gout;
} convex;

static void convex_free(convex *c)
{
    if (!c)
        return;
    free(c->lambda);
    free(c->Q);
    free(c->xs);
    free(c->A);
    free(c->At);
    free(c->b);
    free(c->r);
    free(c->t);
    free(c->hx);
    free(c->xin);
    free(c->gout);
    free(c);
}

/* ---- compensated sums (Neumaier), for losses that are differences of nearby values ---- */

typedef struct ksum {
    double s, c;
} ksum;

static void ks_add(ksum *k, double v)
{
    const double t = k->s + v;
    if (fabs(k->s) >= fabs(v))
        k->c += (k->s - t) + v;
    else
        k->c += (v - t) + k->s;
    k->s = t;
}

static double ks_val(const ksum *k)
{
    return k->s + k->c;
}

static double dot(const double *a, const double *b, size_t n)
{
    ksum k = {0, 0};
    for (size_t i = 0; i < n; i++)
        ks_add(&k, a[i] * b[i]);
    return ks_val(&k);
}

static double norm2(const double *a, size_t n)
{
    return sqrt(dot(a, a, n));
}

/* log(1 + exp(-z)) without overflow. */
static double softplus_neg(double z)
{
    return z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
}

/* sigmoid(-z) = 1 / (1 + exp(z)) without overflow. */
static double sigm_neg(double z)
{
    if (z >= 0) {
        const double e = exp(-z);
        return e / (1 + e);
    }
    return 1 / (1 + exp(z));
}

/* ---- the problems' mathematics, in binary64 ---- */

/* grad f at x into g (noise-free). */
static void gradient(convex *c, const double *x, double *g)
{
    const size_t d = c->d;
    switch (c->kind) {
    case P_QUAD1D:
        g[0] = c->a * (x[0] - c->xstar1);
        break;
    case P_QUADRATIC:
        for (size_t i = 0; i < d; i++)
            c->r[i] = x[i] - c->xs[i];
        if (!c->Q) {
            for (size_t i = 0; i < d; i++)
                g[i] = c->lambda[i] * c->r[i];
        } else { /* g = Q diag(lambda) Q^T r */
            for (size_t j = 0; j < d; j++) {
                ksum k = {0, 0};
                for (size_t i = 0; i < d; i++)
                    ks_add(&k, c->Q[i * d + j] * c->r[i]);
                c->t[j] = c->lambda[j] * ks_val(&k);
            }
            for (size_t i = 0; i < d; i++)
                g[i] = dot(c->Q + i * d, c->t, d);
        }
        break;
    case P_LSQ:
        for (size_t i = 0; i < c->N; i++)
            c->r[i] = dot(c->A + i * d, x, d) - c->b[i];
        for (size_t j = 0; j < d; j++) {
            ksum k = {0, 0};
            for (size_t i = 0; i < c->N; i++)
                ks_add(&k, c->A[i * d + j] * c->r[i]);
            g[j] = ks_val(&k) / (double)c->N;
        }
        break;
    case P_LOGREG:
        for (size_t i = 0; i < c->N; i++) {
            const double z = c->b[i] * dot(c->A + i * d, x, d);
            c->r[i] = -c->b[i] * sigm_neg(z);
        }
        for (size_t j = 0; j < d; j++) {
            ksum k = {0, 0};
            for (size_t i = 0; i < c->N; i++)
                ks_add(&k, c->A[i * d + j] * c->r[i]);
            g[j] = ks_val(&k) / (double)c->N + c->l2 * x[j];
        }
        break;
    }
}

static double logreg_loss(const convex *c, const double *x)
{
    ksum k = {0, 0};
    for (size_t i = 0; i < c->N; i++)
        ks_add(&k, softplus_neg(c->b[i] * dot(c->A + i * c->d, x, c->d)));
    return ks_val(&k) / (double)c->N + 0.5 * c->l2 * dot(x, x, c->d);
}

/* loss and loss_gap at x. */
static void loss(convex *c, const double *x, double *f, double *gap)
{
    const size_t d = c->d;
    switch (c->kind) {
    case P_QUAD1D: {
        const double r = x[0] - c->xstar1;
        *f = *gap = 0.5 * c->a * r * r;
        break;
    }
    case P_QUADRATIC: {
        gradient(c, x, c->hx); /* H r, with r = x - x* left in c->r */
        *f = *gap = 0.5 * dot(c->r, c->hx, d);
        break;
    }
    case P_LSQ: {
        ksum kf = {0, 0}, kg = {0, 0};
        for (size_t i = 0; i < c->N; i++) {
            const double ri = dot(c->A + i * d, x, d) - c->b[i];
            ks_add(&kf, ri * ri);
        }
        for (size_t j = 0; j < d; j++)
            c->t[j] = x[j] - c->xs[j];
        for (size_t i = 0; i < c->N; i++) {
            const double ei = dot(c->A + i * d, c->t, d);
            ks_add(&kg, ei * ei);
        }
        *f = 0.5 * ks_val(&kf) / (double)c->N;
        *gap = 0.5 * ks_val(&kg) / (double)c->N;
        break;
    }
    case P_LOGREG:
        *f = logreg_loss(c, x);
        *gap = *f - c->fstar;
        break;
    }
}

/* ---- setup ---- */

static int alloc_vectors(convex *c, srl_err *err)
{
    const size_t m = c->N > c->d ? c->N : c->d;
    c->xs = calloc(c->d, sizeof *c->xs);
    c->r = calloc(m, sizeof *c->r);
    c->t = calloc(c->d, sizeof *c->t);
    c->hx = calloc(c->d, sizeof *c->hx);
    c->xin = calloc(c->d, sizeof *c->xin);
    c->gout = calloc(c->d, sizeof *c->gout);
    if (!c->xs || !c->r || !c->t || !c->hx || !c->xin || !c->gout)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return SRL_OK;
}

static int setup_quadratic(convex *c, srl_rng *data, bool rotated, double kappa, srl_err *err)
{
    const size_t d = c->d;
    c->lambda = malloc(d * sizeof *c->lambda);
    if (!c->lambda)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t i = 0; i < d; i++)
        c->lambda[i] = d == 1 ? 1.0 : pow(kappa, (double)i / (double)(d - 1));
    for (size_t i = 0; i < d; i++)
        c->xs[i] = srl_rng_normal(data);
    if (!rotated)
        return SRL_OK;
    gsl_matrix *M = gsl_matrix_alloc(d, d), *Qm = gsl_matrix_alloc(d, d),
               *R = gsl_matrix_alloc(d, d);
    gsl_vector *tau = gsl_vector_alloc(d);
    c->Q = malloc(d * d * sizeof *c->Q);
    int st = SRL_OK;
    if (!M || !Qm || !R || !tau || !c->Q) {
        st = srl_err_set(err, SRL_ENOMEM, "quadratic: out of memory for a %zu x %zu basis", d, d);
    } else {
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++)
                gsl_matrix_set(M, i, j, srl_rng_normal(data));
        if (gsl_linalg_QR_decomp(M, tau) || gsl_linalg_QR_unpack(M, tau, Qm, R))
            st = srl_err_set(err, SRL_EINVAL, "quadratic: the QR factorisation failed");
        else
            for (size_t i = 0; i < d; i++)
                for (size_t j = 0; j < d; j++)
                    c->Q[i * d + j] = gsl_matrix_get(Qm, i, j);
    }
    gsl_matrix_free(M);
    gsl_matrix_free(Qm);
    gsl_matrix_free(R);
    gsl_vector_free(tau);
    return st;
}

static int setup_lsq(convex *c, srl_rng *data, double noise, srl_err *err)
{
    const size_t N = c->N, d = c->d;
    c->A = malloc(N * d * sizeof *c->A);
    c->b = malloc(N * sizeof *c->b);
    if (!c->A || !c->b)
        return srl_err_set(err, SRL_ENOMEM, "lsq: out of memory");
    for (size_t i = 0; i < N * d; i++)
        c->A[i] = srl_rng_normal(data);
    for (size_t j = 0; j < d; j++)
        c->gout[j] = srl_rng_normal(data); /* x_true */
    for (size_t i = 0; i < N; i++)
        c->b[i] = dot(c->A + i * d, c->gout, d) + noise * srl_rng_normal(data);
    gsl_matrix *M = gsl_matrix_alloc(N, d);
    gsl_vector *tau = gsl_vector_alloc(d), *bv = gsl_vector_alloc(N), *xv = gsl_vector_alloc(d),
               *res = gsl_vector_alloc(N);
    int st = SRL_OK;
    if (!M || !tau || !bv || !xv || !res) {
        st = srl_err_set(err, SRL_ENOMEM, "lsq: out of memory");
    } else {
        for (size_t i = 0; i < N; i++) {
            for (size_t j = 0; j < d; j++)
                gsl_matrix_set(M, i, j, c->A[i * d + j]);
            gsl_vector_set(bv, i, c->b[i]);
        }
        if (gsl_linalg_QR_decomp(M, tau) || gsl_linalg_QR_lssolve(M, tau, bv, xv, res))
            st = srl_err_set(err, SRL_EINVAL, "lsq: the least-squares solve failed");
        for (size_t j = 0; j < d && !st; j++) {
            c->xs[j] = gsl_vector_get(xv, j);
            if (!isfinite(c->xs[j]))
                st = srl_err_set(err, SRL_EINVAL, "lsq: A is rank deficient (no unique x*)");
        }
    }
    gsl_matrix_free(M);
    gsl_vector_free(tau);
    gsl_vector_free(bv);
    gsl_vector_free(xv);
    gsl_vector_free(res);
    if (!st) {
        double f, gap;
        loss(c, c->xs, &f, &gap);
        c->fstar = f;
    }
    return st;
}

/* Damped Newton in binary64: Cholesky solves of H dx = -g, backtracking on f (Armijo), until
 * the gradient norm stops decreasing below 1e-12 (or 200 iterations). */
static int setup_logreg(convex *c, srl_rng *data, srl_err *err)
{
    const size_t N = c->N, d = c->d;
    c->A = malloc(N * d * sizeof *c->A);
    c->b = malloc(N * sizeof *c->b);
    double *wt = malloc(d * sizeof *wt), *dx = malloc(d * sizeof *dx), *xt = malloc(d * sizeof *xt);
    gsl_matrix *H = gsl_matrix_alloc(d, d);
    gsl_vector *gv = gsl_vector_alloc(d), *sv = gsl_vector_alloc(d);
    int st = SRL_OK;
    if (!c->A || !c->b || !wt || !dx || !xt || !H || !gv || !sv) {
        st = srl_err_set(err, SRL_ENOMEM, "logreg: out of memory");
        goto done;
    }
    for (size_t j = 0; j < d; j++)
        wt[j] = srl_rng_normal(data);
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < d; j++)
            c->A[i * d + j] = srl_rng_normal(data);
        const double z = dot(c->A + i * d, wt, d);
        const double p1 = 1.0 - sigm_neg(z); /* sigmoid(z) */
        c->b[i] = srl_rng_uniform(data) < p1 ? 1.0 : -1.0;
    }
    memset(c->xs, 0, d * sizeof *c->xs);
    double gn_best = INFINITY;
    for (int it = 0; it < 200; it++) {
        gradient(c, c->xs, c->gout);
        const double gn = norm2(c->gout, d);
        if (!(gn < gn_best))
            break;
        gn_best = gn;
        if (gn < 1e-14)
            break;
        /* H = (1/N) sum s(1-s) a a^T + l2 I */
        gsl_matrix_set_zero(H);
        for (size_t i = 0; i < N; i++) {
            const double z = dot(c->A + i * d, c->xs, d);
            const double s = sigm_neg(z), w = s * (1 - s) / (double)N;
            const double *a = c->A + i * d;
            for (size_t p = 0; p < d; p++)
                for (size_t q = 0; q <= p; q++)
                    *gsl_matrix_ptr(H, p, q) += w * a[p] * a[q];
        }
        for (size_t p = 0; p < d; p++) {
            *gsl_matrix_ptr(H, p, p) += c->l2;
            for (size_t q = 0; q < p; q++)
                gsl_matrix_set(H, q, p, gsl_matrix_get(H, p, q));
            gsl_vector_set(gv, p, -c->gout[p]);
        }
        if (gsl_linalg_cholesky_decomp1(H) || gsl_linalg_cholesky_solve(H, gv, sv)) {
            st = srl_err_set(err, SRL_EINVAL, "logreg: the Newton system is not positive definite");
            goto done;
        }
        for (size_t p = 0; p < d; p++)
            dx[p] = gsl_vector_get(sv, p);
        const double f0 = logreg_loss(c, c->xs), slope = dot(c->gout, dx, d);
        double step = 1.0;
        for (int ls = 0; ls < 60; ls++, step *= 0.5) {
            for (size_t p = 0; p < d; p++)
                xt[p] = c->xs[p] + step * dx[p];
            if (logreg_loss(c, xt) <= f0 + 1e-4 * step * slope || step < 1e-12)
                break;
        }
        memcpy(c->xs, xt, d * sizeof *xt);
    }
    c->fstar = logreg_loss(c, c->xs);
done:
    free(wt);
    free(dx);
    free(xt);
    gsl_matrix_free(H);
    gsl_vector_free(gv);
    gsl_vector_free(sv);
    return st;
}

/* The gradient with the two matrix-vector products in emulated precision (see the top). */
static int gradient_kernels(convex *c, const double *x, double *g, uint64_t t, srl_err *err)
{
    const srl_accum *ac = &c->tc.strat.accum_cfg;
    const size_t N = c->N, d = c->d;
    const uint64_t D1 = (uint64_t)N * srl_dot_draws(d, ac), D2 = (uint64_t)d * srl_dot_draws(N, ac);
    srl_rng r;
    srl_train_stream(&r, &c->tc, "grad-kernels");
    srl_rng_seek(&r, (t - 1) * (D1 + D2));
    int st = srl_gemv(c->r, c->A, x, N, d, ac, &r); /* z = A x */
    if (st)
        return srl_err_set(err, st, "accum: the kernels refused the config (%s)",
                           srl_strerror(st));
    for (size_t i = 0; i < N; i++)
        c->r[i] = c->kind == P_LSQ ? c->r[i] - c->b[i] : -c->b[i] * sigm_neg(c->b[i] * c->r[i]);
    if ((st = srl_gemv(g, c->At, c->r, d, N, ac, &r))) /* A^T r */
        return srl_err_set(err, st, "accum: the kernels refused the config (%s)",
                           srl_strerror(st));
    for (size_t j = 0; j < d; j++)
        g[j] = g[j] / (double)N + (c->kind == P_LOGREG ? c->l2 * x[j] : 0.0);
    return SRL_OK;
}

/* ---- the srl_train_problem callbacks ---- */

static int cb_init(void *ctx, size_t j, double *x0, srl_err *err)
{
    (void)err;
    (void)j;
    convex *c = ctx;
    for (size_t i = 0; i < c->d; i++)
        x0[i] = c->x0;
    return SRL_OK;
}

static int cb_gradient(void *ctx, srl_weights *W, uint64_t t, srl_err *err)
{
    convex *c = ctx;
    srl_tensor_get_d(c->xin, W->p[0].w, 0, c->d); /* what forward/backward read */
    if (c->At) {
        int s2 = gradient_kernels(c, c->xin, c->gout, t, err);
        if (s2)
            return s2;
    } else {
        gradient(c, c->xin, c->gout);
    }
    srl_train_add_noise(c->gout, c->d, 0, c->d, t, &c->tc);
    int st = srl_weights_set_grad_d(W, 0, c->gout, t);
    if (st)
        return srl_err_set(err, st, "writing the gradient failed");
    return SRL_OK;
}

static int cb_evaluate(void *ctx, const srl_weights *W, srl_train_metrics *m, srl_err *err)
{
    (void)err;
    convex *c = ctx;
    double *x = c->xin, *g = c->gout;
    srl_weights_values(x, W, 0);
    loss(c, x, &m->loss, &m->loss_gap);
    gradient(c, x, g);
    m->grad_norm = norm2(g, c->d);
    ksum k = {0, 0};
    for (size_t i = 0; i < c->d; i++) {
        const double e = x[i] - c->xs[i];
        ks_add(&k, e * e);
    }
    m->dist_to_opt = sqrt(ks_val(&k));
    if (c->kind == P_QUAD1D) { /* the 1-d state, for teaching and theory T09 */
        m->extra[0] = x[0];
        if (W->p[0].m) /* "m" and "v" follow "x" in the order of quad1d_extra */
            srl_tensor_get_d(&m->extra[1], W->p[0].m, 0, 1);
        if (W->p[0].v)
            srl_tensor_get_d(&m->extra[2], W->p[0].v, 0, 1);
    }
    return SRL_OK;
}

/* ---- parameters and runners ---- */

static const srl_param quad1d_params[] = {
    {"a", "1", "curvature a >= 0 of f(x) = a/2 (x - xstar)^2 (0: flat, for weight decay alone)"},
    {"xstar", "0.3", "the minimiser xstar (any finite binary64)"},
    {"x0", "1", "the initial point"},
    {NULL, NULL, NULL},
};
static const srl_param quadratic_params[] = {
    {"d", "100", "dimension (1 .. 10^8; rotated: at most 4096)"},
    {"kappa", "10", "condition number >= 1: eigenvalues geometric from 1 to kappa"},
    {"basis", "diag", "eigenbasis: diag (coordinate axes) or rotated (random orthogonal)"},
    {"x0", "0", "initial value of every coordinate (x* ~ N(0,1) per coordinate)"},
    {NULL, NULL, NULL},
};
static const srl_param lsq_params[] = {
    {"samples", "200", "rows N of A (>= d)"},
    {"d", "20", "columns d of A (unknowns)"},
    {"noise", "0.1", "standard deviation of the noise in b = A x_true + noise e"},
    {"x0", "0", "initial value of every coordinate"},
    {"grad-compute", "binary64",
     "gradient products: binary64, or kernels (srl_gemv with the strategy's accum)"},
    {NULL, NULL, NULL},
};
static const srl_param logreg_params[] = {
    {"samples", "200", "number of examples N"},
    {"d", "10", "number of features"},
    {"l2", "1e-3", "L2 regularisation l2 > 0 (makes the optimum exist and unique)"},
    {"x0", "0", "initial value of every coordinate"},
    {"grad-compute", "binary64",
     "gradient products: binary64, or kernels (srl_gemv with the strategy's accum)"},
    {NULL, NULL, NULL},
};

static const char *const quad1d_extra[] = {"x", "m", "v"};

static int read_finite(const srl_config *cfg, const srl_param *tab, const char *key, double *out,
                       srl_err *err)
{
    const char *d = NULL;
    for (; tab->key; tab++)
        if (!strcmp(tab->key, key))
            d = tab->def;
    int st = srl_config_double(cfg, key, d, out, err);
    if (st)
        return st;
    if (!isfinite(*out))
        return srl_err_set(err, SRL_EINVAL, "%s: %g is not finite", key, *out);
    return SRL_OK;
}

static int read_size(const srl_config *cfg, const srl_param *tab, const char *key, size_t lo,
                     size_t hi, size_t *out, srl_err *err)
{
    const char *d = NULL;
    for (; tab->key; tab++)
        if (!strcmp(tab->key, key))
            d = tab->def;
    uint64_t v;
    int st = srl_config_u64(cfg, key, d, &v, err);
    if (st)
        return st;
    if (v < lo || v > hi)
        return srl_err_set(err, SRL_EINVAL, "%s: %llu is outside [%zu, %zu]", key,
                           (unsigned long long)v, lo, hi);
    *out = (size_t)v;
    return SRL_OK;
}

/* quad1d's keys: a >= 0, xstar, x0. */
static int build_quad1d(convex *c, const srl_config *cfg, srl_err *err)
{
    const srl_param *tab = quad1d_params;
    c->kind = P_QUAD1D;
    c->d = 1;
    int st;
    if (!(st = read_finite(cfg, tab, "a", &c->a, err)) &&
        !(st = read_finite(cfg, tab, "xstar", &c->xstar1, err)))
        st = read_finite(cfg, tab, "x0", &c->x0, err);
    if (!st && !(c->a >= 0))
        st = srl_err_set(err, SRL_EINVAL, "a: %g is negative (f would have no minimum)", c->a);
    if (!st)
        st = alloc_vectors(c, err);
    if (!st)
        c->xs[0] = c->xstar1;
    return st;
}

/* quadratic's keys (d, kappa >= 1, basis, x0), then its spectrum, basis and optimum. */
static int build_quadratic(convex *c, const srl_config *cfg, srl_rng *data, srl_err *err)
{
    const srl_param *tab = quadratic_params;
    static const char *const bases[] = {"diag", "rotated", NULL};
    c->kind = P_QUADRATIC;
    double kappa = 0;
    int basis = 0, st;
    if (!(st = read_size(cfg, tab, "d", 1, 100000000, &c->d, err)) &&
        !(st = read_finite(cfg, tab, "kappa", &kappa, err)) &&
        !(st = srl_config_choice(cfg, "basis", "diag", bases, &basis, err)))
        st = read_finite(cfg, tab, "x0", &c->x0, err);
    if (!st && !(kappa >= 1))
        st = srl_err_set(err, SRL_EINVAL, "kappa: %g is below 1 (a condition number is at least "
                         "1)", kappa);
    if (!st && basis == 1 && c->d > 4096)
        st = srl_err_set(err, SRL_EINVAL, "d: %zu is too large for basis=rotated (at most 4096: "
                         "the basis is a dense d x d matrix)", c->d);
    if (!st)
        st = alloc_vectors(c, err);
    if (!st)
        st = setup_quadratic(c, data, basis == 1, kappa, err);
    return st;
}

/* lsq and logreg: at most 10^8 entries of A (samples x d), then the vectors. */
static int alloc_samples(convex *c, srl_err *err)
{
    if (c->N * c->d > 100000000)
        return srl_err_set(err, SRL_EINVAL, "samples x d = %zu x %zu exceeds 10^8 entries", c->N,
                           c->d);
    return alloc_vectors(c, err);
}

/* lsq's keys (d, samples >= d, noise >= 0, x0), then its data and optimum. */
static int build_lsq(convex *c, const srl_config *cfg, srl_rng *data, srl_err *err)
{
    const srl_param *tab = lsq_params;
    c->kind = P_LSQ;
    double noise = 0;
    int st;
    if (!(st = read_size(cfg, tab, "d", 1, 100000, &c->d, err)) &&
        !(st = read_size(cfg, tab, "samples", 1, 10000000, &c->N, err)) &&
        !(st = read_finite(cfg, tab, "noise", &noise, err)))
        st = read_finite(cfg, tab, "x0", &c->x0, err);
    if (!st && c->N < c->d)
        st = srl_err_set(err, SRL_EINVAL, "samples: %zu is below d = %zu (x* would not be "
                         "unique)", c->N, c->d);
    if (!st && !(noise >= 0))
        st = srl_err_set(err, SRL_EINVAL, "noise: %g is negative", noise);
    if (!st)
        st = alloc_samples(c, err);
    if (!st)
        st = setup_lsq(c, data, noise, err);
    return st;
}

/* logreg's keys (d, samples, l2 > 0, x0), then its data and optimum. */
static int build_logreg(convex *c, const srl_config *cfg, srl_rng *data, srl_err *err)
{
    const srl_param *tab = logreg_params;
    c->kind = P_LOGREG;
    int st;
    if (!(st = read_size(cfg, tab, "d", 1, 2000, &c->d, err)) &&
        !(st = read_size(cfg, tab, "samples", 1, 1000000, &c->N, err)) &&
        !(st = read_finite(cfg, tab, "l2", &c->l2, err)))
        st = read_finite(cfg, tab, "x0", &c->x0, err);
    if (!st && !(c->l2 > 0))
        st = srl_err_set(err, SRL_EINVAL, "l2: %g must be positive (it makes the optimum "
                         "exist)", c->l2);
    if (!st)
        st = alloc_samples(c, err);
    if (!st)
        st = setup_logreg(c, data, err);
    return st;
}

/* grad-compute (lsq, logreg): kernels needs A transposed. */
static int read_grad_compute(convex *c, const srl_config *cfg, srl_err *err)
{
    static const char *const modes[] = {"binary64", "kernels", NULL};
    int mode = 0;
    int st = srl_config_choice(cfg, "grad-compute", "binary64", modes, &mode, err);
    if (st || mode == 0)
        return st;
    if (!(c->At = malloc(c->N * c->d * sizeof *c->At)))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->N; i++)
        for (size_t j = 0; j < c->d; j++)
            c->At[j * c->N + i] = c->A[i * c->d + j];
    return SRL_OK;
}

/* Read the keys of problem `name` and build it (data, optimum). */
static int build(convex **out, const char *name, const srl_config *cfg, srl_err *err)
{
    *out = NULL;
    convex *c = calloc(1, sizeof *c);
    if (!c)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    int st = srl_train_config_from(&c->tc, cfg, err);
    srl_rng data;
    srl_train_stream(&data, &c->tc, "data");
    if (!st && !strcmp(name, "quad1d"))
        st = build_quad1d(c, cfg, err);
    else if (!st && !strcmp(name, "quadratic"))
        st = build_quadratic(c, cfg, &data, err);
    else if (!st && !strcmp(name, "lsq"))
        st = build_lsq(c, cfg, &data, err);
    else if (!st && !strcmp(name, "logreg"))
        st = build_logreg(c, cfg, &data, err);
    else if (!st)
        st = srl_err_set(err, SRL_EINVAL, "unknown convex problem '%s'", name);
    if (!st && (c->kind == P_LSQ || c->kind == P_LOGREG))
        st = read_grad_compute(c, cfg, err);
    if (st) {
        convex_free(c);
        return st;
    }
    *out = c;
    return SRL_OK;
}

int srl__convex_run(const char *name, const srl_config *cfg, const srl_sink *out,
                    srl_run_report *rep,
                    int (*inspect)(void *arg, const srl_weights *W, uint64_t t,
                                   const srl_step_stats *st),
                    void *arg, srl_err *err)
{
    convex *c;
    int st = build(&c, name, cfg, err);
    if (st)
        return st;
    c->spec.name = "x";
    c->spec.ndim = 1;
    c->spec.shape[0] = c->d;
    srl_train_problem p;
    memset(&p, 0, sizeof p);
    p.ctx = c;
    p.nweights = 1;
    p.weights = &c->spec;
    p.init = cb_init;
    p.gradient = cb_gradient;
    p.evaluate = cb_evaluate;
    if (c->kind == P_QUAD1D) { /* x, then the moments the optimizer keeps */
        p.nextra = 1 + srl_optim_has_m(c->tc.opt.kind) + srl_optim_has_v(c->tc.opt.kind);
        p.extra_names = quad1d_extra;
    }
    st = srl_train_run_inspect(&p, &c->tc, out, rep, inspect, arg, err);
    convex_free(c);
    return st;
}

int srl__convex_spectrum(const char *name, const srl_config *cfg, double *lmin, double *lmax,
                         double *xstar_norm, srl_err *err)
{
    convex *c;
    int st = build(&c, name, cfg, err);
    if (st)
        return st;
    const size_t d = c->d;
    gsl_matrix *H = gsl_matrix_calloc(d, d), *evec = NULL;
    gsl_vector *ev = gsl_vector_alloc(d);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(d);
    if (!H || !ev || !ws) {
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    /* the Hessian: H e_j = grad(x* + e_j) - grad(x*) for these quadratics; for logreg the
     * Hessian at x* */
    for (size_t j = 0; j < d; j++) {
        if (c->kind == P_LOGREG) {
            for (size_t p = 0; p < d; p++) {
                ksum k = {0, 0};
                for (size_t i = 0; i < c->N; i++) {
                    const double z = dot(c->A + i * d, c->xs, d), sg = sigm_neg(z);
                    ks_add(&k, sg * (1 - sg) * c->A[i * d + j] * c->A[i * d + p]);
                }
                gsl_matrix_set(H, p, j, ks_val(&k) / (double)c->N + (p == j ? c->l2 : 0));
            }
            continue;
        }
        memcpy(c->xin, c->xs, d * sizeof *c->xin);
        c->xin[j] += 1;
        gradient(c, c->xin, c->gout);
        for (size_t p = 0; p < d; p++)
            gsl_matrix_set(H, p, j, c->gout[p]);
    }
    if (gsl_eigen_symm(H, ev, ws)) {
        st = srl_err_set(err, SRL_EINVAL, "eigenvalues failed");
        goto done;
    }
    *lmin = gsl_vector_min(ev);
    *lmax = gsl_vector_max(ev);
    *xstar_norm = norm2(c->xs, d);
done:
    gsl_matrix_free(H);
    gsl_matrix_free(evec);
    gsl_vector_free(ev);
    if (ws)
        gsl_eigen_symm_free(ws);
    convex_free(c);
    return st;
}

static int run_quad1d(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                      srl_err *err)
{
    return srl__convex_run("quad1d", cfg, out, rep, NULL, NULL, err);
}

static int run_quadratic(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                         srl_err *err)
{
    return srl__convex_run("quadratic", cfg, out, rep, NULL, NULL, err);
}

static int run_lsq(const srl_config *cfg, const srl_sink *out, srl_run_report *rep, srl_err *err)
{
    return srl__convex_run("lsq", cfg, out, rep, NULL, NULL, err);
}

static int run_logreg(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                      srl_err *err)
{
    return srl__convex_run("logreg", cfg, out, rep, NULL, NULL, err);
}

const srl_runner srl__runner_quad1d = {
    "quad1d", SRL_RUN_TRAIN, "f(x) = a/2 (x - xstar)^2 in one variable (theory T05-T08)",
    quad1d_params, run_quad1d};
const srl_runner srl__runner_quadratic = {
    "quadratic", SRL_RUN_TRAIN,
    "f(x) = 1/2 (x - x*)^T H (x - x*), eigenvalues 1 .. kappa, random x*", quadratic_params,
    run_quadratic};
const srl_runner srl__runner_lsq = {
    "lsq", SRL_RUN_TRAIN, "least squares 1/(2N) ||Ax - b||^2, x* by a GSL QR solve", lsq_params,
    run_lsq};
const srl_runner srl__runner_logreg = {
    "logreg", SRL_RUN_TRAIN,
    "L2-regularised logistic regression on synthetic data, x* by Newton in binary64",
    logreg_params, run_logreg};
