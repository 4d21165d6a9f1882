/* tests/problems/test_markov.c: the Markov source of the GPT problem (include/srlab/markov.h).
 *
 *   unit  pi is stationary and sums to 1; beta = 0 gives H = f* = log V; an order-1 source on
 *         two symbols against its closed form; f*(T) against the position entropies; the
 *         optimal predictor's conditional probabilities sum to 1 at every context length.
 *   stat  (1) the empirical log-loss of the true transition probabilities along one long
 *         sample, -(1/n) sum log P(x_{t+1} | x_{t-k+1..t}), converges to H. The terms are not
 *         independent (they depend on the chain's state), so the standard error comes from
 *         batch means: 200 batches of n/200 terms, far longer than the chain's mixing time
 *         (every row is positive: it forgets its start in a few symbols), whose sample standard
 *         deviation s gives the interval H +- z s / sqrt(200), z = 5 (a false alarm about 6e-7
 *         under normality of the batch means). The sample is the generator's own output, so a
 *         wrong pi (the start and the weighting of H) or a wrong sampler fails here.
 *         (2) f*(T): 20000 independent windows of T + 1 symbols, each a fresh stationary
 *         sequence from the generator; the optimal predictor's mean loss per window (the
 *         conditional probabilities of srl_markov_cond_logprob) is i.i.d. across windows with
 *         mean exactly f*(T): interval f* +- 5 s / sqrt(20000) with s the sample standard
 *         deviation of the window means.
 * Seeds are fixed and printed on failure. */
#include <math.h>
#include <stdlib.h>

#include "srlab/markov.h"
#include "../testutil.h"

static void unit(void)
{
    long before = srl_test_failures;
    srl_rng r;
    srl_err e;
    for (int V = 2; V <= 20; V += 9)
        for (int k = 1; k <= 3; k++) {
            srl_rng_init(&r, SRL_RNG_PCG32, 7, (uint64_t)(V * 10 + k));
            srl_markov m;
            if (srl_markov_new(&m, V, k, 1.5, &r, &e) != SRL_OK) {
                CHECK(0, "V=%d k=%d: %s", V, k, e.msg);
                continue;
            }
            /* stationarity: || pi P - pi ||_1 and sum pi */
            double *nx = calloc(m.S, sizeof *nx), tot = 0, d = 0;
            const size_t Sk1 = m.S / (size_t)V;
            for (size_t s = 0; s < m.S; s++) {
                tot += m.pi[s];
                for (int j = 0; j < V; j++)
                    nx[(s % Sk1) * (size_t)V + (size_t)j] += m.pi[s] * m.P[s * (size_t)V + (size_t)j];
            }
            for (size_t s = 0; s < m.S; s++)
                d += fabs(nx[s] - m.pi[s]);
            free(nx);
            /* the power iteration stops at an L1 change <= 1e-12, which bounds ||pi P - pi|| */
            CHECK(d <= 1e-12, "V=%d k=%d: ||pi P - pi||_1 = %g after %zu iterations", V, k, d,
                  m.iters);
            CHECK(fabs(tot - 1) <= 1e-12, "V=%d k=%d: sum pi = %.17g", V, k, tot);
            CHECK(m.H > 0 && m.H < log((double)V), "V=%d k=%d: H = %g outside (0, log V)", V, k,
                  m.H);
            /* f*(T) = mean of the position entropies; decreasing in T to H */
            double h[16], s = 0;
            srl_markov_position_entropy(&m, h, 16);
            for (int t = 0; t < 16; t++)
                s += h[t];
            CHECK(fabs(s / 16 - srl_markov_fstar(&m, 16)) <= 1e-14, "V=%d k=%d", V, k);
            for (int t = 1; t < 16; t++)
                CHECK(h[t] <= h[t - 1] + 1e-12, "V=%d k=%d: h[%d] = %g > h[%d] = %g", V, k, t,
                      h[t], t - 1, h[t - 1]);
            CHECK(h[15] == m.H, "V=%d k=%d: positions past k must have entropy H", V, k);
            /* the predictor's distributions sum to 1 at every context length */
            uint8_t x[9] = {0};
            for (size_t len = 0; len <= (size_t)k; len++) {
                double p = 0;
                for (int j = 0; j < V; j++) {
                    x[len] = (uint8_t)j;
                    p += exp(srl_markov_cond_logprob(&m, x, len));
                }
                CHECK(fabs(p - 1) <= 1e-12, "V=%d k=%d len=%zu: sum of probabilities %.17g", V,
                      k, len, p);
            }
            srl_markov_free(&m);
        }
    /* beta = 0: every row uniform, H = f* = log V */
    srl_markov m;
    srl_rng_init(&r, SRL_RNG_PCG32, 1, 0);
    if (srl_markov_new(&m, 7, 2, 0.0, &r, &e) == SRL_OK) {
        CHECK(fabs(m.H - log(7.0)) <= 1e-14, "uniform: H = %.17g", m.H);
        CHECK(fabs(srl_markov_fstar(&m, 5) - log(7.0)) <= 1e-14, "uniform: f*");
        srl_markov_free(&m);
    }
    /* order 1 on two symbols: pi_0 = P(1->0) / (P(0->1) + P(1->0)) */
    srl_rng_init(&r, SRL_RNG_PCG32, 3, 0);
    if (srl_markov_new(&m, 2, 1, 2.0, &r, &e) == SRL_OK) {
        const double a = m.P[1], b = m.P[2]; /* 0 -> 1, 1 -> 0 */
        const double pi0 = b / (a + b);
        CHECK(fabs(m.pi[0] - pi0) <= 1e-13, "two-state pi0 %.17g vs %.17g", m.pi[0], pi0);
        const double H = pi0 * (-a * log(a) - (1 - a) * log(1 - a)) +
                         (1 - pi0) * (-b * log(b) - (1 - b) * log(1 - b));
        CHECK(fabs(m.H - H) <= 1e-13, "two-state H %.17g vs %.17g", m.H, H);
        srl_markov_free(&m);
    }
    /* bad parameters */
    CHECK(srl_markov_new(&m, 1, 2, 1, &r, &e) == SRL_EINVAL, "V = 1 accepted");
    CHECK(srl_markov_new(&m, 300, 2, 1, &r, &e) == SRL_EINVAL, "V = 300 accepted");
    CHECK(srl_markov_new(&m, 4, 0, 1, &r, &e) == SRL_EINVAL, "k = 0 accepted");
    CHECK(srl_markov_new(&m, 256, 4, 1, &r, &e) == SRL_EINVAL, "2^32 contexts accepted");
    CHECK(srl_markov_new(&m, 4, 2, -1, &r, &e) == SRL_EINVAL, "beta < 0 accepted");
    GROUP("markov: stationarity, entropies, closed forms, bad parameters", before);
}

static void stat(void)
{
    long before = srl_test_failures;
    const uint64_t seed = 11;
    srl_rng r;
    srl_err e;
    srl_markov m;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 1);
    if (srl_markov_new(&m, 16, 2, 2.0, &r, &e) != SRL_OK) {
        CHECK(0, "%s", e.msg);
        return;
    }
    /* (1) entropy rate by batch means */
    const size_t nb = 200, per = (size_t)srl_test_n(20000), n = nb * per + 2;
    uint8_t *x = malloc(n);
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 2);
    srl_markov_sample(&m, x, n, &r);
    double sum = 0, sum2 = 0;
    for (size_t b = 0; b < nb; b++) {
        double s = 0;
        for (size_t i = 0; i < per; i++) {
            const size_t t = 2 + b * per + i;
            s -= srl_markov_cond_logprob(&m, x + t - 2, 2);
        }
        s /= (double)per;
        sum += s;
        sum2 += s * s;
    }
    free(x);
    const double mean = sum / (double)nb;
    const double sd = sqrt((sum2 - sum * sum / (double)nb) / (double)(nb - 1));
    const double tol = 5 * sd / sqrt((double)nb);
    CHECK(fabs(mean - m.H) <= tol, "seed %llu: empirical log-loss %.6f vs H %.6f (tolerance %.2g)",
          (unsigned long long)seed, mean, m.H, tol);
    printf("entropy rate: H = %.6f nats, empirical %.6f +- %.2g (5 sigma, %zu symbols)\n", m.H,
           mean, tol, nb * per);
    /* (2) f*(T) over independent windows */
    const size_t T = 8, W = (size_t)srl_test_n(20000);
    uint8_t win[9];
    sum = sum2 = 0;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 3);
    for (size_t w = 0; w < W; w++) {
        srl_markov_sample(&m, win, T + 1, &r);
        double s = 0;
        for (size_t t = 0; t < T; t++)
            s -= srl_markov_cond_logprob(&m, win, t + 1);
        s /= (double)T;
        sum += s;
        sum2 += s * s;
    }
    const double fm = sum / (double)W;
    const double fsd = sqrt((sum2 - sum * sum / (double)W) / (double)(W - 1));
    const double fstar = srl_markov_fstar(&m, T), ftol = 5 * fsd / sqrt((double)W);
    CHECK(fabs(fm - fstar) <= ftol, "seed %llu: window loss %.6f vs f*(%zu) %.6f (tolerance %.2g)",
          (unsigned long long)seed, fm, T, fstar, ftol);
    printf("f*(%zu) = %.6f nats (H = %.6f), empirical %.6f +- %.2g over %zu windows\n", T, fstar,
           m.H, fm, ftol, W);
    srl_markov_free(&m);
    GROUP("markov: empirical entropy rate and f* within 5 standard errors", before);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    if (!strcmp(which, "unit") || !strcmp(which, "all"))
        unit();
    if (!strcmp(which, "stat") || !strcmp(which, "all"))
        stat();
    TEST_END();
}
