/* src/round/round_bulk.h: bulk rounding kernels behind srl_round_array* (private).
 * Element i uses draw rng->counter + i; the kernels do not move rng (the caller does). */
#ifndef SRL_ROUND_BULK_H
#define SRL_ROUND_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

/* One value with an explicit draw u for element `index` of rng's stream (src/round/rounding.c). */
double srl__round_one(double x, const srl_format *f, srl_rounding m, uint64_t u,
                      const srl_rng *rng, uint64_t index);

void srl__bulk_d2d(double *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng);
/* fork_min: the fewest elements that open a parallel region; 0 for the path's own threshold
 * (SRL_BULK_OMP_MIN and the pattern path's, below). */
void srl__bulk_f2f(float *y, const float *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng, size_t fork_min);
void srl__bulk_d2f(float *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng);

/* Block-scaled binary32 (srlab/mx.h, power-of-two scales): blocks of bs elements, block b
 * rounded into elem shifted by its scale exponent under the rule (src/round/mx_scale.h), its
 * E8M0 code into scales[b] (scales may be NULL). Element i uses draw rng->counter + i; rng does
 * not move. Returns 0 (and does nothing) unless bs divides the kernels' tile (a power of two up
 * to 512) and elem fits binary32 (srl_format_fits_float), or when its workspace cannot be
 * allocated: the caller then takes another path (the same bits). */
int srl__bulk_mx_f2f(float *y, uint8_t *scales, const float *x, size_t n,
                     const srl_format *elem, size_t bs, int rule, srl_rounding m,
                     const srl_rng *rng);

/* srl_round_array_float with srl__bulk_f2f's fork_min (src/round/rounding.c). */
int srl__round_array_float_fork(float *y, const float *x, size_t n, const srl_format *f,
                                srl_rounding m, srl_rng *rng, size_t fork_min) SRL_WUR;

/* Fill u[0..k) with draws first .. first+k-1 of g's stream, where g is positioned at `first`;
 * leaves g positioned at first + k. */
void srl__draws(uint64_t *u, size_t k, srl_rng *g);

/* Tests only: run the bulk kernels at instruction-set level min(force, the CPU's) from now on
 * (0 baseline x86-64, 1 x86-64-v3, 2 x86-64-v4, 3 x86-64-v4 with AVX-512 IFMA, as
 * srl__isa_level_ifma(); force < 0: the CPU's own),
 * and return the level that will run. Not thread-safe: set it before rounding. */
int srl__round_bulk_isa(int force);

/* The level the bulk kernels run at (the CPU's, at most the forced one): for other templates that
 * follow srl__round_bulk_isa (src/ops/mx.c). */
int srl__bulk_isa_level(void);

/* Below this many elements bulk calls stay on the calling thread: SRL_BULK_OMP_MIN, but for
 * binary32 in and out on the pattern path (bf16, tf32 of binary32; srl__vparams.pat), whose loop
 * is a dozen instructions: there SRL_BULK_OMP_MIN_PAT_SR for the stochastic modes and
 * SRL_BULK_OMP_MAX for the others. Measured on 2 cores: at 49152 values two threads took 11.6 us
 * against one's 4.3 for bf16 rn, 12.3 against 12.2 for bf16 sr, 24.3 against 39.6 for e4m3 sr
 * (BENCHMARKS.md). SRL_BULK_OMP_MAX is the largest of the three (tests/core/test_determinism.c
 * sizes its arrays above it). */
#define SRL_BULK_OMP_MIN ((size_t)1 << 15)
#define SRL_BULK_OMP_MIN_PAT_SR ((size_t)1 << 16)
#define SRL_BULK_OMP_MAX ((size_t)1 << 17)

#endif
