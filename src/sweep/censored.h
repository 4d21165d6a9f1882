/* src/sweep/censored.h: statistics of times that may be censored, and of the proportion behind
 * them (private to the library; src/sweep/censored.c).
 *
 * A run's steps_to_target is the first logged step at which its loss gap is at most the target.
 * A run that never gets there within its steps has no such step: its time is censored (known
 * only to exceed the run's last step). Dropping those runs and averaging the others (the mean of
 * the survivors) is biased, and undefined when none reached; the summary gives instead the
 * fraction of runs that reached the target, with its exact interval, and the Kaplan-Meier
 * estimate of the median time with its interval, which use the censored runs for what they
 * show. */
#ifndef SRL_SWEEP_CENSORED_H
#define SRL_SWEEP_CENSORED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The upper tail P(X >= k) and the lower tail P(X <= k) of X ~ Binomial(n, p), summed in log
 * space from the end next to the mode (no incomplete beta function, which loses accuracy for n
 * in the millions). */
double srl__binom_upper(uint64_t k, uint64_t n, double p);
double srl__binom_lower(uint64_t k, uint64_t n, double p);
/* Two-sided Clopper-Pearson interval of a binomial proportion at level 1 - alpha: k successes in
 * n trials (0 <= k <= n, n >= 1), by bisection on the tails: lo solves P(X >= k; lo) = alpha/2
 * (0 when k = 0), hi solves P(X <= k; hi) = alpha/2 (1 when k = n). */
void srl__clopper_pearson(double *lo, double *hi, uint64_t k, uint64_t n, double alpha);

/* The Kaplan-Meier median of n times and its interval.
 *   time[i]   the time of run i: when it reached the target (event[i]), else when it was last
 *             seen without reaching it (censored; INFINITY for a run known never to reach it,
 *             such as one that diverged: it stays at risk at every time)
 * The estimate S(t) = prod over event times t_j <= t of (1 - d_j / n_j), d_j the events at t_j
 * and n_j the runs whose time is >= t_j (a run censored at t_j is still at risk there). The
 * median is the smallest event time with S <= 1/2. Its interval at level 1 - alpha is where the
 * pointwise band of S crosses 1/2 (Brookmeyer and Crowley 1982): the band is Greenwood's
 * variance on the log(-log S) scale (Kalbfleisch and Prentice), S^exp(+-z w) with
 * w^2 = sum d_j / (n_j (n_j - d_j)) / log(S)^2 and z the normal quantile at 1 - alpha/2; it is
 * [1, 1] while S = 1 and [0, 0] once S = 0. lo is the first event time at which the band's
 * bottom is <= 1/2, hi the first at which its top is (lo <= median <= hi). NAN where no event
 * time qualifies (the median or a limit lies beyond the data). reached is the number of events. */
typedef struct srl__km {
    size_t reached;
    double median, lo, hi;
} srl__km;

/* Returns 0, or -1 when out of memory (km untouched). n may be 0 (every field NAN, 0 reached). */
int srl__km_median(srl__km *km, const double *time, const bool *event, size_t n, double alpha);

#endif
