/* srlab/markov.h: a seeded order-k Markov source over V symbols, with its exact entropy rate and
 * the best achievable loss of a next-symbol predictor over a block of T symbols (docs/design.md §8: the
 * built-in data of the GPT problem, so that its optimal validation loss f* is known).
 *
 * The source. Symbols are 0 .. V-1. A context is the last k symbols (x_{t-k}, ..., x_{t-1}),
 * numbered s = sum_i x_{t-k+i} V^(k-1-i) (the oldest symbol is the most significant digit), so
 * there are S = V^k contexts. Each context has a transition row
 *     P(j | s) = exp(beta z_{s,j}) / sum_l exp(beta z_{s,l}),     z_{s,j} ~ N(0, 1)
 * (beta = the "sharpness": 0 gives the uniform source, larger values peakier rows), the z drawn
 * from the stream handed to srl_markov_new in the order s = 0 .. S-1, j = 0 .. V-1, two draws
 * each (srl_rng_normal). Every P(j | s) > 0, so the chain on contexts is irreducible and
 * aperiodic (its k-step transition matrix is positive) and has one stationary distribution pi.
 *
 * Exact quantities (binary64):
 *   pi       by power iteration pi <- pi P on the S contexts (P sparse: V successors each), from
 *            the uniform vector, renormalised every iteration, until the L1 change of one
 *            iteration is at most 1e-13, or is below 1e-12 and stops decreasing (the roundoff
 *            floor of an iteration, about V u in L1); 100000 iterations without that is a
 *            failure. `iters` and `resid` record how it stopped. The chain contracts
 *            geometrically, so the error left in pi is of the order of the last change, and H
 *            is off by at most that times log V (below 1e-11 nats).
 *   H        the entropy rate in nats: H = sum_s pi(s) sum_j -P(j|s) log P(j|s).
 *   H_m      the entropy of the stationary m-gram (m = 1 .. k): the marginals of pi on the
 *            m most recent symbols of a context (by stationarity, any m consecutive symbols).
 *   h_t      the least expected loss (cross-entropy, nats) of predicting x_{t+1} from
 *            x_0 .. x_t at position t = 0 .. T-1 of a window cut from a stationary sequence:
 *            h_t = H_{t+2} - H_{t+1} when t + 1 < k (the predictor sees fewer than k symbols and
 *            the best it can do is the conditional distribution of the stationary marginals),
 *            h_t = H otherwise.
 *   f*(T)    = (1/T) sum_{t<T} h_t: the optimal expected loss of a model that predicts every
 *            position of a window of T + 1 symbols from the symbols before it in the window (the
 *            GPT's loss on a block); no model can do better in expectation, the source itself
 *            (with its stationary marginals at the first positions) attains it.
 * Sampling: a stationary sequence starts with a context drawn from pi (one uniform draw, inverse
 * CDF over contexts in order) and continues with one uniform draw per symbol (inverse CDF over
 * the row in order j = 0 .. V-1).
 *
 * Nothing here prints; srl_markov_new allocates, the other functions do not. */
#ifndef SRLAB_MARKOV_H
#define SRLAB_MARKOV_H

#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct srl_markov {
    int V, k;        /* alphabet size (2 .. 256), order (1 .. 8) */
    size_t S;        /* V^k contexts */
    double beta;     /* sharpness */
    double *P;       /* S x V transition rows */
    double *cum;     /* S x V cumulative rows (for sampling; the last entry of a row is 1) */
    double *pi;      /* S stationary context probabilities */
    double *marg;    /* the m-gram marginals, m = 1 .. k, concatenated: V + V^2 + ... + V^k */
    double *Hm;      /* Hm[m] = H_m for m = 0 .. k (H_0 = 0) */
    double H;        /* entropy rate, nats */
    size_t iters;    /* power iterations used */
    double resid;    /* L1 change of the last iteration */
} srl_markov;

/* Build the source (above). V in [2, 256], k in [1, 8], V^k <= 2^22 contexts, beta finite and
 * >= 0; SRL_EINVAL with a message naming the parameter otherwise, SRL_ENOMEM, SRL_ERANGE if the
 * power iteration does not converge. On failure m is empty. */
int srl_markov_new(srl_markov *m, int V, int k, double beta, srl_rng *rng, srl_err *err) SRL_WUR;
void srl_markov_free(srl_markov *m); /* NULL-safe; leaves m empty */

/* h[t] for t = 0 .. T-1 (above). */
void srl_markov_position_entropy(const srl_markov *m, double *h, size_t T);

/* f*(T) (above); T >= 1. */
double srl_markov_fstar(const srl_markov *m, size_t T);

/* The stationary probability of the symbols x[0..len) being consecutive, len in 1 .. k. */
double srl_markov_marginal(const srl_markov *m, const uint8_t *x, size_t len);

/* log P(x[len] | x[0..len)) under the optimal predictor of a window: for len >= k the transition
 * probability from the last k symbols, for 1 <= len < k the ratio of stationary marginals,
 * for len = 0 the stationary probability of one symbol. */
double srl_markov_cond_logprob(const srl_markov *m, const uint8_t *x, size_t len);

/* Fill x[0..n) with a stationary sequence (above): 1 + max(0, n - k) draws of rng when n >= k
 * (the first k symbols come from one draw), or 1 draw when n < k. */
void srl_markov_sample(const srl_markov *m, uint8_t *x, size_t n, srl_rng *rng);

#ifdef __cplusplus
}
#endif
#endif
