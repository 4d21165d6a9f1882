/* src/theory/t07_sr_random_walk.c: the predictions of theory/T07-sr-random-walk.md
 * (include/srlab/theory.h): at a learning rate whose step lr |g| is below one spacing, SR moves
 * the weight one spacing with probability lr |g| / ulp per step: a random walk, with binomial
 * move counts, geometric waits and negative binomial cover times. */
#include "srlab/theory.h"

#include <math.h>

double srl_t07_move_prob(double lr, double g, double ulp)
{
    return lr * fabs(g) / ulp;
}

double srl_t07_wait_steps(double p)
{
    return 1 / p;
}

void srl_t07_moves(double *mean, double *sd, uint64_t steps, double p)
{
    const double T = (double)steps;
    *mean = T * p;
    *sd = sqrt(T * p * (1 - p));
}

void srl_t07_cover_steps(double *mean, double *sd, double distance, double ulp, double p)
{
    const double K = fabs(distance) / ulp;
    *mean = K / p;
    *sd = sqrt(K * (1 - p)) / p;
}

void srl_t07_eval(srl_t07_values *out, double x, double lr, double g, uint64_t steps,
                  double distance, const srl_format *f)
{
    out->ulp = srl_format_ulp(f, x);
    out->drift = lr * fabs(g);
    out->move_prob = srl_t07_move_prob(lr, g, out->ulp);
    out->rn_frozen = out->drift < out->ulp / 2; /* T05 step 1: RN loses every step */
    srl_t07_moves(&out->moves_mean, &out->moves_sd, steps, out->move_prob);
    out->wait_mean = srl_t07_wait_steps(out->move_prob);
    srl_t07_cover_steps(&out->cover_mean, &out->cover_sd, distance, out->ulp, out->move_prob);
}
