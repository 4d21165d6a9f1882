/* srlab/ops_mpfr.h: the exact operations of srlab/ops.h computed with GNU MPFR only: the
 * reference that the fast paths are tested against, bit for bit and draw for draw. */
#ifndef SRLAB_OPS_MPFR_H
#define SRLAB_OPS_MPFR_H

#include <stdint.h>

#include <mpfr.h>

#include "srlab/format.h"
#include "srlab/mpfr.h"
#include "srlab/ops.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The MPFR reference path of the exact operations (include/srlab/ops.h): same results and
 * draws as srl_op_apply_draw, computed with MPFR only. */
int srl_op_mpfr_draw(double *y, srl_round_info *info, srl_op op, double a, double b, double c,
                     const srl_format *f, srl_rounding m, uint64_t u, const srl_rng *rng,
                     uint64_t index) SRL_WUR;

/* The exact result of op into r: exact for add, sub, mul and fma (r's precision is raised as
 * needed); for div and sqrt rounded to nearest at r's precision. Returns MPFR's ternary. */
int srl_op_exact(mpfr_t r, srl_op op, double a, double b, double c);

#ifdef __cplusplus
}
#endif
#endif
