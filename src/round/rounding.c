/* src/round/rounding.c: rounding binary64 and binary32 values into any format, one value at a
 * time and in bulk (docs/design.md §3, §5). The semantics are in include/srlab/rounding.h, the
 * description and assembly in src/round/round_core.h and the decision in src/round/decide.h;
 * this file only describes inputs and runs loops.
 *
 * Bulk calls split [0, n) into one contiguous block per thread (schedule(static)); each block
 * positions its own copy of the stream at counter + first index, so element i always uses draw
 * counter + i and the output does not depend on the number of threads. */
#include "srlab/rounding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "round/round_bulk.h"
#include "round/round_core.h"

/* ---- one value ---- */

double srl__round_one(double x, const srl_format *f, srl_rounding m, uint64_t u,
                      const srl_rng *rng, uint64_t index)
{
    if (!isfinite(x) || x == 0)
        return srl__round_special(x, f);
    srl__exact e;
    srl__mtail_ctx ctx;
    srl__tail tail;
    srl__exact_from_double(&e, x, f, &ctx, &tail);
    bool ovf;
    return srl__assemble(&e, srl__away(&e, m.mode, m.r, u, rng, index), f, m.mode, &ovf);
}

double srl_round(double x, const srl_format *f, srl_rounding m, srl_rng *rng)
{
    uint64_t u, index;
    if (!srl__take_draw(m, rng, &u, &index))
        return NAN;
    return srl__round_one(x, f, m, u, rng, index);
}

int srl_round_explain(srl_round_info *info, double x, const srl_format *f, srl_rounding m,
                      srl_rng *rng)
{
    if (!srl_rounding_valid(m))
        return SRL_EINVAL;
    uint64_t u, index;
    if (!srl__take_draw(m, rng, &u, &index))
        return SRL_EINVAL;
    if (!isfinite(x) || x == 0) {
        srl__info_special(info, x, srl__round_special(x, f));
        return SRL_OK;
    }
    memset(info, 0, sizeof *info);
    info->x = x;
    srl__exact e;
    srl__mtail_ctx ctx;
    srl__tail tail;
    srl__exact_from_double(&e, x, f, &ctx, &tail);
    const int away = srl__away(&e, m.mode, m.r, u, rng, index);
    const double frac = ldexp(fabs(x) - e.trunc, -e.qe); /* |x| - T 2^qe is exact */
    srl__info(info, &e, f, m, away, frac, rng, index);
    info->ternary = srl__ternary(info->result, x);
    return SRL_OK;
}

/* ---- arrays ---- */

/* The checks every array entry point makes: a valid format and mode, a generator when the mode
 * is stochastic, and (float outputs) a format whose values are all binary32 numbers. */
static int check_args(const srl_format *f, srl_rounding m, const srl_rng *rng, bool float_out)
{
    if (!f || !srl_rounding_valid(m))
        return SRL_EINVAL;
    if (srl_rounding_is_stochastic(m) && !rng)
        return SRL_EINVAL;
    if (float_out && !srl_format_fits_float(f))
        return SRL_EINVAL;
    return SRL_OK;
}

/* After a bulk call on n elements: a stochastic mode used draws counter .. counter + n - 1. */
static int advance(srl_rounding m, srl_rng *rng, size_t n)
{
    if (srl_rounding_is_stochastic(m))
        srl_rng_seek(rng, rng->counter + n);
    return SRL_OK;
}

int srl_round_array(double *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                    srl_rng *rng)
{
    int st = check_args(f, m, rng, false);
    if (st)
        return st;
    srl__bulk_d2d(y, x, n, f, m, rng);
    return advance(m, rng, n);
}

int srl__round_array_float_fork(float *y, const float *x, size_t n, const srl_format *f,
                                srl_rounding m, srl_rng *rng, size_t fork_min)
{
    int st = check_args(f, m, rng, true);
    if (st)
        return st;
    srl__bulk_f2f(y, x, n, f, m, rng, fork_min);
    return advance(m, rng, n);
}

int srl_round_array_float(float *y, const float *x, size_t n, const srl_format *f,
                          srl_rounding m, srl_rng *rng)
{
    return srl__round_array_float_fork(y, x, n, f, m, rng, 0);
}

int srl_round_array_d2f(float *y, const double *x, size_t n, const srl_format *f,
                        srl_rounding m, srl_rng *rng)
{
    int st = check_args(f, m, rng, true);
    if (st)
        return st;
    srl__bulk_d2f(y, x, n, f, m, rng);
    return advance(m, rng, n);
}
