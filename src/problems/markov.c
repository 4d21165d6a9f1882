/* src/problems/markov.c: the order-k Markov source of the GPT problem and its exact entropy rate
 * (include/srlab/markov.h). Everything is binary64; the sums over contexts run in context order.
 * Not done here: sources whose rows have zeros (the power iteration would still work, but
 * aperiodicity would no longer be automatic). */
#include "srlab/markov.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTEXTS ((size_t)1 << 22)
#define MAX_ITERS 100000
#define TOL 1e-13       /* stop when one iteration changes pi by at most this (L1) */
#define FLOOR 1e-12     /* ... or, below this, when the change stops decreasing (roundoff) */

void srl_markov_free(srl_markov *m)
{
    if (!m)
        return;
    free(m->P);
    free(m->cum);
    free(m->pi);
    free(m->marg);
    free(m->Hm);
    memset(m, 0, sizeof *m);
}

/* Offset of the m-gram table (m = 1 .. k) inside marg. */
static size_t marg_off(const srl_markov *m, size_t len)
{
    size_t off = 0, p = 1;
    for (size_t i = 1; i < len; i++) {
        p *= (size_t)m->V;
        off += p;
    }
    return off;
}

static double entropy_of(const double *p, size_t n)
{
    double h = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] > 0)
            h -= p[i] * log(p[i]);
    return h;
}

/* Transition rows: a softmax of beta times standard normals, row s from draws in order; cum the
 * running sums (the last one exactly 1). */
static void markov_rows(srl_markov *m, srl_rng *rng)
{
    const int V = m->V;
    for (size_t s = 0; s < m->S; s++) {
        double *row = m->P + s * (size_t)V, mx = -INFINITY;
        for (int j = 0; j < V; j++) {
            row[j] = m->beta * srl_rng_normal(rng);
            mx = row[j] > mx ? row[j] : mx;
        }
        double z = 0;
        for (int j = 0; j < V; j++) {
            row[j] = exp(row[j] - mx);
            z += row[j];
        }
        double c = 0;
        for (int j = 0; j < V; j++) {
            row[j] /= z;
            c += row[j];
            m->cum[s * (size_t)V + (size_t)j] = c;
        }
        m->cum[s * (size_t)V + (size_t)V - 1] = 1.0;
    }
}

/* The stationary distribution pi of the context chain s -> (s mod V^(k-1)) V + j, by power
 * iteration from the uniform distribution (next: S doubles of scratch). */
static int markov_stationary(srl_markov *m, double *next, srl_err *err)
{
    const size_t S = m->S, V = (size_t)m->V, Sk1 = S / V;
    for (size_t s = 0; s < S; s++)
        m->pi[s] = 1.0 / (double)S;
    double dprev = INFINITY;
    for (m->iters = 1;; m->iters++) {
        memset(next, 0, S * sizeof *next);
        for (size_t s = 0; s < S; s++) {
            const double ps = m->pi[s];
            const double *row = m->P + s * V;
            const size_t base = (s % Sk1) * V;
            for (size_t j = 0; j < V; j++)
                next[base + j] += ps * row[j];
        }
        double tot = 0;
        for (size_t s = 0; s < S; s++)
            tot += next[s];
        double d = 0;
        for (size_t s = 0; s < S; s++) {
            next[s] /= tot;
            d += fabs(next[s] - m->pi[s]);
        }
        memcpy(m->pi, next, S * sizeof *next);
        m->resid = d;
        if (d <= TOL || (d <= FLOOR && d >= dprev))
            return SRL_OK;
        dprev = d;
        if (m->iters >= MAX_ITERS)
            return srl_err_set(err, SRL_ERANGE, "the Markov source's stationary distribution did "
                               "not converge in %d iterations (L1 change %g)", MAX_ITERS, d);
    }
}

/* The marginals of the len most recent symbols (pi summed over the older k - len digits), their
 * entropies Hm[len], and the entropy rate H. */
static void markov_entropies(srl_markov *m)
{
    const size_t S = m->S, V = (size_t)m->V;
    for (int len = 1; len <= m->k; len++) {
        double *mg = m->marg + marg_off(m, (size_t)len);
        size_t n = 1;
        for (int i = 0; i < len; i++)
            n *= V;
        memset(mg, 0, n * sizeof *mg);
        for (size_t s = 0; s < S; s++)
            mg[s % n] += m->pi[s];
        m->Hm[len] = entropy_of(mg, n);
    }
    double H = 0;
    for (size_t s = 0; s < S; s++)
        H += m->pi[s] * entropy_of(m->P + s * V, V);
    m->H = H;
}

int srl_markov_new(srl_markov *m, int V, int k, double beta, srl_rng *rng, srl_err *err)
{
    memset(m, 0, sizeof *m);
    if (V < 2 || V > 256)
        return srl_err_set(err, SRL_EINVAL, "vocab: %d symbols is outside [2, 256]", V);
    if (k < 1 || k > 8)
        return srl_err_set(err, SRL_EINVAL, "markov-order: %d is outside [1, 8]", k);
    if (!(beta >= 0) || !isfinite(beta))
        return srl_err_set(err, SRL_EINVAL, "markov-sharpness: %g is not a finite number >= 0",
                           beta);
    size_t S = 1;
    for (int i = 0; i < k; i++) {
        S *= (size_t)V;
        if (S > MAX_CONTEXTS)
            return srl_err_set(err, SRL_EINVAL,
                               "vocab^markov-order = %d^%d exceeds 2^22 contexts", V, k);
    }
    m->V = V;
    m->k = k;
    m->S = S;
    m->beta = beta;
    const size_t SV = S * (size_t)V;
    m->P = malloc(SV * sizeof *m->P);
    m->cum = malloc(SV * sizeof *m->cum);
    m->pi = malloc(S * sizeof *m->pi);
    m->marg = malloc(2 * S * sizeof *m->marg); /* V + ... + V^k <= 2 V^k */
    m->Hm = calloc((size_t)k + 2, sizeof *m->Hm);
    double *next = malloc(S * sizeof *next);
    if (!m->P || !m->cum || !m->pi || !m->marg || !m->Hm || !next) {
        free(next);
        srl_markov_free(m);
        return srl_err_set(err, SRL_ENOMEM, "out of memory for a Markov source of %zu contexts",
                           S);
    }
    markov_rows(m, rng);
    const int st = markov_stationary(m, next, err);
    free(next);
    if (st) {
        srl_markov_free(m);
        return st;
    }
    markov_entropies(m);
    return SRL_OK;
}

void srl_markov_position_entropy(const srl_markov *m, double *h, size_t T)
{
    for (size_t t = 0; t < T; t++)
        h[t] = t + 1 < (size_t)m->k ? m->Hm[t + 2] - m->Hm[t + 1] : m->H;
}

double srl_markov_fstar(const srl_markov *m, size_t T)
{
    double s = 0;
    for (size_t t = 0; t < T; t++)
        s += t + 1 < (size_t)m->k ? m->Hm[t + 2] - m->Hm[t + 1] : m->H;
    return s / (double)T;
}

static size_t code(const srl_markov *m, const uint8_t *x, size_t len)
{
    size_t c = 0;
    for (size_t i = 0; i < len; i++)
        c = c * (size_t)m->V + x[i];
    return c;
}

double srl_markov_marginal(const srl_markov *m, const uint8_t *x, size_t len)
{
    return m->marg[marg_off(m, len) + code(m, x, len)];
}

double srl_markov_cond_logprob(const srl_markov *m, const uint8_t *x, size_t len)
{
    const size_t k = (size_t)m->k;
    if (len >= k)
        return log(m->P[code(m, x + len - k, k) * (size_t)m->V + x[len]]);
    if (len == 0)
        return log(srl_markov_marginal(m, x, 1));
    return log(srl_markov_marginal(m, x, len + 1)) - log(srl_markov_marginal(m, x, len));
}

void srl_markov_sample(const srl_markov *m, uint8_t *x, size_t n, srl_rng *rng)
{
    if (n == 0)
        return;
    const size_t k = (size_t)m->k, V = (size_t)m->V;
    /* the first context from pi */
    const double u = srl_rng_uniform(rng);
    double c = 0;
    size_t s = m->S - 1;
    for (size_t i = 0; i < m->S; i++) {
        c += m->pi[i];
        if (u < c) {
            s = i;
            break;
        }
    }
    uint8_t ctx[8];
    for (size_t i = k; i-- > 0;) {
        ctx[i] = (uint8_t)(s % V);
        s /= V;
    }
    for (size_t i = 0; i < k && i < n; i++)
        x[i] = ctx[i];
    for (size_t t = k; t < n; t++) {
        const size_t cs = code(m, x + t - k, k);
        const double *cum = m->cum + cs * V;
        const double v = srl_rng_uniform(rng);
        size_t j = 0;
        while (j + 1 < V && v >= cum[j])
            j++;
        x[t] = (uint8_t)j;
    }
}
