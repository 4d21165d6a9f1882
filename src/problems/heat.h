/* src/problems/heat.h: the 1-D heat equation in low precision (theory/T15-heat-equation.md;
 * Croci and Giles, IMA J. Numer. Anal. 2022), private to the library: the runner `heat`
 * (src/problems/heat.c) and the check T15 (src/check/t15_17_literature.c) share the solver.
 *
 * u_t = u_xx on [0, 1], u(0) = u(1) = 0, u(x, 0) = sin(pi x), on the grid x_j = j h, h = 1/m,
 * by explicit Euler with the three-point Laplacian and time step dt = r h^2:
 *     U_j <- U_j + r (U_{j-1} - 2 U_j + U_{j+1}),  j = 1 .. m-1,
 * every update computed exactly and rounded once into the format with the mode (the Laplacian
 * L_j = (U_{j-1} + U_{j+1}) - 2 U_j is exact in binary64 for the formats and grids used here;
 * the solver verifies it at every point and refuses the run otherwise, then rounds the exact
 * fma r L_j + U_j once). The reference is the same scheme in binary64 from the same rounded
 * initial values, so the difference is the rounding error alone, not the discretisation error.
 *
 * Draws: stream key "heat" of the seed (stream 0); update j of step n uses draw
 * (n - 1)(m - 1) + (j - 1). Serial: nothing depends on the thread count. */
#ifndef SRL_PROBLEMS_HEAT_H
#define SRL_PROBLEMS_HEAT_H

#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/mode.h"

#define SRL__HEAT_M_MAX 4096

typedef struct srl__heat_cfg {
    uint64_t m;        /* grid intervals (h = 1/m), 2 .. SRL__HEAT_M_MAX */
    double r;          /* dt / h^2, in (0, 1/2] (stability in the max norm) */
    double t_end;      /* final time; steps = round(t_end / dt), at least 1 */
    srl_format format; /* the stored values */
    srl_rounding mode; /* every update's rounding */
    uint64_t seed;
} srl__heat_cfg;

typedef struct srl__heat_out {
    uint64_t steps;
    double dt, t;        /* time step, final time steps * dt */
    double rms_err;      /* sqrt(mean_j (U_j - V_j)^2) at the final time, V the binary64 scheme */
    double max_err;      /* max_j |U_j - V_j| */
    double ref_max;      /* max_j |V_j| at the final time */
    double lost_frac;    /* share of updates with an exact change y != U_j rounded back to U_j */
    double discr_err;    /* max_j |V_j - exp(-pi^2 t) sin(pi x_j)|: the scheme's own error */
} srl__heat_out;

/* Solve; SRL_ERANGE/SRL_EINVAL with a message naming the key on a bad config. */
int srl__heat_solve(srl__heat_out *o, const srl__heat_cfg *c, srl_err *err);

#endif
