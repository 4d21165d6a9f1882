/* tests/problems/test_mlp.c: the MLP of src/problems/mlp.c.
 *
 *   grad   every analytic gradient of the binary64 pass (every element of every weight and
 *          bias) against central differences, for both tasks and the three activations, with
 *          the tolerance of tests/problems/test_gpt.c: 2 |D(2h) - D(h)| / 3 + 2 delta / h,
 *          h = 2^-16, delta = N u64 (|f| + 1), N the operation count of the pass. ReLU is not
 *          differentiable at 0: when a hidden pre-activation changes sign between the five
 *          points x, x +- h, x +- 2h the difference straddles a kink, so the check skips that
 *          parameter (it reports how many; at most a tenth).
 *   plain  the _emu pass under the fp32 strategy equals the _plain pass bit for bit (loss,
 *          activations, gradient), for both tasks and every activation.
 *   fp32   the fp32 strategy's forward pass against the binary64 pass, with a rigorous running
 *          error bound propagated layer by layer (Higham, Accuracy and Stability, Thm 3.1 and
 *          §3.1): for z = h W + b summed recursively in binary32 (the bias last),
 *              |z32 - z| <= gamma_{k+1}(u) (|h32| |W| + |b|) + E_h |W|,
 *          gamma_n(u) = n u / (1 - n u), u = 2^-24, E_h the bound on |h32 - h| carried from the
 *          layer before (0 at the input, which both passes read exactly); then
 *              |act32(z32) - act(z)| <= e_act(z32) + L |z32 - z|
 *          with L the Lipschitz constant of the activation (1 for ReLU and tanh, 1.13 for GELU:
 *          max |gelu'| = 1.1289...) and e_act the error of evaluating it in binary32: 0 for ReLU;
 *          8 u |tanh| for tanhf (glibc documents at most 2 ulp for tanhf on x86-64; 8 u |t| is
 *          4 ulp); for GELU the operation count of src/problems/mlp_tpl.h's line with tanhf's 4 ulp
 *          (see gelu_err). The binary64 pass gets the same bound with u = 2^-53 (and 4 ulp for
 *          tanh); the test requires |z32 - z64| <= E32 + E64 at every output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/mlp_impl.h"
#include "srlab/run.h"
#include "../testutil.h"

typedef struct net {
    size_t din, H, D, dout, B;
    int act, task;
    srl_weight_spec specs[2 * (SRL__MLP_MAX_DEPTH + 1)];
    size_t off[2 * (SRL__MLP_MAX_DEPTH + 1)], flat, numel;
    mlp_layout lay;
} net;

static size_t nin_of(const net *n, size_t l)
{
    return l ? n->H : n->din;
}

static size_t nout_of(const net *n, size_t l)
{
    return l < n->D ? n->H : n->dout;
}

static void net_init(net *n, size_t din, size_t H, size_t D, size_t dout, size_t B, int act,
                     int task)
{
    memset(n, 0, sizeof *n);
    n->din = din, n->H = H, n->D = D, n->dout = dout, n->B = B, n->act = act, n->task = task;
    size_t off = 0;
    for (size_t l = 0; l <= D; l++) {
        const size_t e[2] = {nin_of(n, l) * nout_of(n, l), nout_of(n, l)};
        for (int k = 0; k < 2; k++) {
            n->off[2 * l + k] = off;
            off += (e[k] + 15) & ~(size_t)15;
            n->numel += e[k];
        }
    }
    n->flat = off;
    srl__mlp_layout_make(&n->lay, B, din, H, D, dout);
}

static mlp_pass pass_of(const net *n, double *rl, double *rh)
{
    mlp_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.B = n->B, ps.din = n->din, ps.H = n->H, ps.D = n->D, ps.dout = n->dout;
    ps.act_fn = n->act, ps.task = n->task;
    ps.lay = &n->lay;
    ps.off = n->off;
    ps.row_loss = rl;
    ps.row_hit = rh;
    return ps;
}

/* Weights N(0, 1/fan_in) rounded to binary32, biases N(0, 0.2^2); inputs N(0, 1); targets
 * N(0, 1) or labels; all binary32 numbers, so the float and double passes read the same. */
static void random_case(const net *n, double *p, double *x, double *t, int32_t *lab,
                        uint64_t seed)
{
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 0);
    memset(p, 0, n->flat * sizeof *p);
    for (size_t l = 0; l <= n->D; l++) {
        const double sd = 1 / sqrt((double)nin_of(n, l));
        for (size_t i = 0; i < nin_of(n, l) * nout_of(n, l); i++)
            p[n->off[2 * l] + i] = (float)(sd * srl_rng_normal(&r));
        for (size_t j = 0; j < nout_of(n, l); j++)
            p[n->off[2 * l + 1] + j] = (float)(0.2 * srl_rng_normal(&r));
    }
    for (size_t i = 0; i < n->B * n->din; i++)
        x[i] = (float)srl_rng_normal(&r);
    for (size_t i = 0; i < n->B * n->dout; i++)
        t[i] = (float)srl_rng_normal(&r);
    for (size_t i = 0; i < n->B; i++)
        lab[i] = (int32_t)srl_rng_below(&r, n->dout);
}

static const char *const act_names[] = {"relu", "gelu", "tanh"};

/* ---- grad ---- */

static double loss64(const net *n, const double *p, const double *x, const double *t,
                     const int32_t *lab, double *A, double *rl, double *rh)
{
    mlp_pass ps = pass_of(n, rl, rh);
    double ls, hit;
    if (srl__mlp_pass_f64(&ps, p, NULL, x, t, lab, A, &ls, &hit))
        return NAN;
    return ls / (double)n->B;
}

/* Number of hidden pre-activations whose sign differs from the reference signs. */
static size_t sign_changes(const net *n, const double *A, const unsigned char *ref)
{
    size_t c = 0;
    for (size_t l = 0; l < n->D; l++)
        for (size_t i = 0; i < n->B * n->H; i++)
            c += (A[n->lay.z[l] + i] > 0) != ref[l * n->B * n->H + i];
    return c;
}

static void test_grad(void)
{
    long before = srl_test_failures;
    for (int task = 0; task < 2; task++)
        for (int act = 0; act < 3; act++) {
            net n;
            net_init(&n, 5, 7, 2, 3, 6, act, task);
            const uint64_t seed = 30 + (uint64_t)(3 * task + act);
            double *p = calloc(n.flat, sizeof *p), *g = calloc(n.flat, sizeof *g);
            double *A = calloc(n.lay.total, sizeof *A), x[64], t[64], rl[8], rh[8];
            int32_t lab[8];
            random_case(&n, p, x, t, lab, seed);
            for (size_t i = 0; i < n.B; i++)
                A[n.lay.ones + i] = 1;
            mlp_pass ps = pass_of(&n, rl, rh);
            double ls, hit;
            CHECK(srl__mlp_pass_f64(&ps, p, g, x, t, lab, A, &ls, &hit) == SRL_OK, "pass");
            const double f0 = ls / (double)n.B;
            unsigned char sg[2 * 6 * 7];
            for (size_t l = 0; l < n.D; l++)
                for (size_t i = 0; i < n.B * n.H; i++)
                    sg[l * n.B * n.H + i] = A[n.lay.z[l] + i] > 0;
            const double N = 2 * (4.0 * (double)n.numel * (double)n.B + 40.0 * (double)(n.B * n.H));
            const double h = ldexp(1.0, -16), delta = N * ldexp(1.0, -53) * (fabs(f0) + 1);
            size_t skipped = 0, checked = 0;
            double worst = 0;
            for (size_t l = 0; l <= n.D; l++)
                for (int k = 0; k < 2; k++) {
                    const size_t cnt = k ? nout_of(&n, l) : nin_of(&n, l) * nout_of(&n, l);
                    for (size_t i = 0; i < cnt; i++) {
                        double *xi = p + n.off[2 * l + k] + i;
                        const double x0 = *xi;
                        double f[4];
                        size_t flips = 0;
                        const double st[4] = {h, -h, 2 * h, -2 * h};
                        for (int q = 0; q < 4; q++) {
                            *xi = x0 + st[q];
                            f[q] = loss64(&n, p, x, t, lab, A, rl, rh);
                            flips += sign_changes(&n, A, sg);
                        }
                        *xi = x0;
                        /* a ReLU kink crossed inside [x - 2h, x + 2h]: not differentiable */
                        if (act == MLP_RELU && flips) {
                            skipped++;
                            continue;
                        }
                        checked++;
                        const double D1 = (f[0] - f[1]) / (2 * h), D2 = (f[2] - f[3]) / (4 * h);
                        const double tol = 2 * fabs(D2 - D1) / 3 + 2 * delta / h;
                        const double an = g[n.off[2 * l + k] + i], e = fabs(an - D1);
                        worst = fmax(worst, e / tol);
                        CHECK(e <= tol, "seed %llu task %d %s: d/d %s%zu[%zu]: analytic %.12g, "
                              "difference %.12g, error %.3g > %.3g", (unsigned long long)seed,
                              task, act_names[act], k ? "b" : "w", l, i, an, D1, e, tol);
                    }
                }
            CHECK(skipped * 10 <= checked, "%zu of %zu parameters skipped near a ReLU kink",
                  skipped, checked + skipped);
            printf("gradient check %s %s: %zu parameters (%zu skipped at a kink), largest error / "
                   "tolerance %.3g\n", task ? "mixture" : "teacher", act_names[act], checked,
                   skipped, worst);
            free(p);
            free(g);
            free(A);
        }
    GROUP("mlp: every analytic gradient against central differences (binary64)", before);
}

/* ---- plain ---- */

static void test_plain(void)
{
    long before = srl_test_failures;
    srl_strategy st;
    srl_err e;
    CHECK(srl_strategy_preset(&st, "fp32", &e) == SRL_OK, "%s", e.msg);
    for (int task = 0; task < 2; task++)
        for (int act = 0; act < 3; act++) {
            net n;
            net_init(&n, 19, 40, 3, 5, 37, act, task);
            double *pd = calloc(n.flat, sizeof *pd), xd[37 * 19], td[37 * 5];
            int32_t lab[37];
            random_case(&n, pd, xd, td, lab, 40 + (uint64_t)act);
            float *p = calloc(n.flat, sizeof *p), x[37 * 19], t[37 * 5];
            for (size_t i = 0; i < n.flat; i++)
                p[i] = (float)pd[i];
            for (size_t i = 0; i < 37 * 19; i++)
                x[i] = (float)xd[i];
            for (size_t i = 0; i < 37 * 5; i++)
                t[i] = (float)td[i];
            float *g1 = calloc(n.flat, sizeof *g1), *g2 = calloc(n.flat, sizeof *g2);
            float *A1 = calloc(n.lay.total, sizeof *A1), *A2 = calloc(n.lay.total, sizeof *A2);
            for (size_t i = 0; i < n.B; i++)
                A1[n.lay.ones + i] = A2[n.lay.ones + i] = 1;
            double rl[40], rh[40], l1, l2, h1, h2;
            srl_rng rng;
            srl_rng_init(&rng, SRL_RNG_PCG32, 1, 1);
            mlp_pass ps = pass_of(&n, rl, rh);
            ps.accum = &st.accum_cfg;
            ps.act = st.act;
            ps.grad = st.grad;
            ps.rng = &rng;
            CHECK(srl__mlp_pass_emu(&ps, p, g1, x, t, lab, A1, &l1, &h1) == SRL_OK, "emu");
            ps.rng = NULL;
            CHECK(srl__mlp_pass_plain(&ps, p, g2, x, t, lab, A2, &l2, &h2) == SRL_OK, "plain");
            CHECK(srl_test_same(l1, l2), "task %d %s: loss %.17g vs %.17g", task, act_names[act],
                  l1, l2);
            size_t bad = 0;
            for (size_t i = 0; i < n.lay.scratch; i++)
                bad += memcmp(&A1[i], &A2[i], sizeof(float)) != 0;
            for (size_t i = 0; i < n.flat; i++)
                bad += memcmp(&g1[i], &g2[i], sizeof(float)) != 0;
            CHECK(bad == 0, "task %d %s: %zu activations or gradients differ", task,
                  act_names[act], bad);
            free(pd);
            free(p);
            free(g1);
            free(g2);
            free(A1);
            free(A2);
        }
    GROUP("mlp: the fp32 strategy's pass equals plain float bit for bit", before);
}

/* ---- fp32 against binary64 ---- */

static double gamma_n(double n, double u)
{
    return n * u / (1 - n * u);
}

/* Error of evaluating gelu(x) = (0.5 x)(1 + tanh(s (x + c x^3))) in precision u, with the
 * operations of src/problems/mlp_tpl.h: x^3 (2 roundings), c x^3, x + (...), s (...) : the argument a with
 * |a_hat - a| <= gamma_5 S, S = s (|x| + c |x|^3); tanh off by at most that (|tanh'| <= 1) plus
 * 4 ulp (8 u); 1 + th one rounding; 0.5 x exact; the product one rounding. */
static double gelu_err(double x, double u)
{
    const double s = 0.79788456080286535588, c = 0.044715;
    const double S = s * (fabs(x) + c * fabs(x) * fabs(x) * fabs(x));
    const double a = s * (x + c * x * x * x), th = tanh(a);
    const double eth = gamma_n(5, u) * S + 8 * u * fabs(th);
    const double e1 = eth + u * (1 + fabs(th)) * 1.0000001;
    return 0.5 * fabs(x) * e1 + u * fabs(0.5 * x * (1 + th)) * 1.0000001;
}

static void test_fp32(void)
{
    long before = srl_test_failures;
    srl_strategy st;
    srl_err e;
    CHECK(srl_strategy_preset(&st, "fp32", &e) == SRL_OK, "%s", e.msg);
    const double u32 = ldexp(1.0, -24), u64 = ldexp(1.0, -53);
    const double lip[3] = {1.0, 1.13, 1.0};
    for (int act = 0; act < 3; act++) {
        net n;
        net_init(&n, 24, 48, 3, 6, 20, act, MLP_TEACHER);
        double *pd = calloc(n.flat, sizeof *pd), xd[20 * 24], td[20 * 6];
        int32_t lab[20];
        random_case(&n, pd, xd, td, lab, 50 + (uint64_t)act);
        float *p = calloc(n.flat, sizeof *p), x[20 * 24], t[20 * 6];
        for (size_t i = 0; i < n.flat; i++)
            p[i] = (float)pd[i];
        for (size_t i = 0; i < 20 * 24; i++)
            x[i] = (float)xd[i];
        for (size_t i = 0; i < 20 * 6; i++)
            t[i] = (float)td[i];
        float *A32 = calloc(n.lay.total, sizeof *A32);
        double *A64 = calloc(n.lay.total, sizeof *A64), rl[20], rh[20], l1, l2, h1;
        srl_rng rng;
        srl_rng_init(&rng, SRL_RNG_PCG32, 1, 1);
        mlp_pass ps = pass_of(&n, rl, rh);
        ps.accum = &st.accum_cfg;
        ps.act = st.act;
        ps.grad = st.grad;
        ps.rng = &rng;
        CHECK(srl__mlp_pass_emu(&ps, p, NULL, x, t, lab, A32, &l1, &h1) == SRL_OK, "emu");
        CHECK(srl__mlp_pass_f64(&ps, pd, NULL, xd, td, lab, A64, &l2, &h1) == SRL_OK, "f64");
        /* the running bounds, per element of h_l, for the binary32 and binary64 passes */
        const size_t wmax = 48;
        double E32[20 * 48], E64[20 * 48], F32[20 * 48], F64[20 * 48];
        for (size_t i = 0; i < n.B * wmax; i++)
            E32[i] = E64[i] = 0;
        double worst = 0;
        for (size_t l = 0; l <= n.D; l++) {
            const size_t ni = nin_of(&n, l), no = nout_of(&n, l);
            const double *W = pd + n.off[2 * l], *b = pd + n.off[2 * l + 1];
            for (size_t r = 0; r < n.B; r++)
                for (size_t j = 0; j < no; j++) {
                    double ab32 = fabs(b[j]), ab64 = fabs(b[j]), p32 = 0, p64 = 0;
                    for (size_t k = 0; k < ni; k++) {
                        const double h32 = l ? A32[n.lay.h[l] + r * ni + k] : x[r * ni + k];
                        const double h64 = l ? A64[n.lay.h[l] + r * ni + k] : xd[r * ni + k];
                        ab32 += fabs(h32) * fabs(W[k * no + j]);
                        ab64 += fabs(h64) * fabs(W[k * no + j]);
                        p32 += E32[r * ni + k] * fabs(W[k * no + j]);
                        p64 += E64[r * ni + k] * fabs(W[k * no + j]);
                    }
                    /* bounds on |z - z_exact| of each pass */
                    const double ez32 = gamma_n((double)ni + 1, u32) * ab32 + p32;
                    const double ez64 = gamma_n((double)ni + 1, u64) * ab64 + p64;
                    const double z32 = A32[n.lay.z[l] + r * no + j], z64 = A64[n.lay.z[l] + r * no + j];
                    if (l == n.D) {
                        const double d = fabs(z32 - z64), tol = ez32 + ez64;
                        worst = fmax(worst, d / tol);
                        CHECK(d <= tol, "%s output (%zu,%zu): |z32 - z64| = %.3g > bound %.3g",
                              act_names[act], r, j, d, tol);
                        continue;
                    }
                    double ea32 = 0, ea64 = 0;
                    if (act == MLP_TANH)
                        ea32 = 8 * u32 * fabs(tanh(z32)), ea64 = 8 * u64 * fabs(tanh(z64));
                    else if (act == MLP_GELU)
                        ea32 = gelu_err(z32, u32), ea64 = gelu_err(z64, u64);
                    F32[r * no + j] = ea32 + lip[act] * ez32;
                    F64[r * no + j] = ea64 + lip[act] * ez64;
                }
            if (l < n.D)
                for (size_t i = 0; i < n.B * no; i++)
                    E32[i] = F32[i], E64[i] = F64[i];
        }
        printf("fp32 forward %s: largest |z32 - z64| / bound = %.3g\n", act_names[act], worst);
        free(pd);
        free(p);
        free(A32);
        free(A64);
    }
    GROUP("mlp: the fp32 forward pass is within its running error bound of binary64", before);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(w, "all");
    if (all || !strcmp(w, "grad"))
        test_grad();
    if (all || !strcmp(w, "plain"))
        test_plain();
    if (all || !strcmp(w, "fp32"))
        test_fp32();
    TEST_END();
}
