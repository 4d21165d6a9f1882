/* srlab/mpfr.h: rounding GNU MPFR values into srlab formats, with srlab's modes.
 *
 * The MPFR value is taken as exact, whatever its precision, and rounded once with the same rule
 * as srl_round() (src/round/round_core.h, src/round/decide.h), so a binary64 input gives the
 * same bits through either path, stochastic modes included when they are given the same draw.
 * This is the reference and fallback path for the exact operations (their own MPFR path is
 * srlab/ops_mpfr.h); the rest of the core does not need MPFR.
 * The caller's MPFR exponent range is saved and restored. */
#ifndef SRLAB_MPFR_H
#define SRLAB_MPFR_H

#include <stdint.h>
#include <stdio.h>

#include <mpfr.h>

#include "srlab/format.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Round x into f with mode m: *y receives the value; info (may be NULL) receives the same
 * description as srl_round_explain (p_up and frac rounded to binary64). One draw when stochastic
 * (rng->counter, then incremented). */
int srl_mpfr_round(double *y, srl_round_info *info, mpfr_srcptr x, const srl_format *f,
                   srl_rounding m, srl_rng *rng) SRL_WUR;

/* As srl_mpfr_round, with the draw u and its index given explicitly (rng is only read, for
 * the rare extra words): lets callers with their own draw schedule, such as kernels, use the
 * MPFR path with exactly the draws of the fast path. */
int srl_mpfr_round_draw(double *y, srl_round_info *info, mpfr_srcptr x, const srl_format *f,
                        srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t index) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
