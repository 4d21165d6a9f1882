/* src/problems/heat.c: the 1-D heat equation by explicit Euler in low precision (the solver is
 * described in src/problems/heat.h; theory/T15-heat-equation.md), and its runner `heat`: one row
 * at the final time with the rounding error against the binary64 scheme. */
#include "problems/heat.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "problems/runners.h"
#include "srlab/ops.h"
#include "srlab/rng.h"

static const double heat_pi = 3.14159265358979323846;

static int heat_check_cfg(const srl__heat_cfg *c, srl_err *err)
{
    if (c->m < 2 || c->m > SRL__HEAT_M_MAX)
        return srl_err_set(err, SRL_ERANGE, "m: %llu is out of range (2 to %d)",
                           (unsigned long long)c->m, SRL__HEAT_M_MAX);
    if (!(c->r > 0 && c->r <= 0.5))
        return srl_err_set(err, SRL_ERANGE, "r: %g must be in (0, 1/2] (stability)", c->r);
    if (!(c->t_end > 0 && isfinite(c->t_end)))
        return srl_err_set(err, SRL_ERANGE, "t: %g must be a positive finite time", c->t_end);
    const double h = 1.0 / (double)c->m, steps = nearbyint(c->t_end / (c->r * h * h));
    if (steps > 1e9)
        return srl_err_set(err, SRL_ERANGE, "t: %g needs %.3g steps at m = %llu (at most 10^9)",
                           c->t_end, steps, (unsigned long long)c->m);
    if (c->format.xmax < 1)
        return srl_err_set(err, SRL_ERANGE, "format: %s cannot hold the initial maximum 1",
                           c->format.name);
    return SRL_OK;
}

/* L = (a + b) - 2 c, and whether binary64 computed it exactly (TwoSum of both additions). */
static bool exact_laplacian(double a, double b, double c, double *L)
{
    const double s = a + b, bb = s - a, es = (a - (s - bb)) + (b - bb);
    const double c2 = 2 * c, d = s - c2, cc = s - d, ed = (s - (d + cc)) + (cc - c2);
    *L = d;
    return es == 0 && ed == 0;
}

int srl__heat_solve(srl__heat_out *o, const srl__heat_cfg *c, srl_err *err)
{
    int st = heat_check_cfg(c, err);
    if (st)
        return st;
    const size_t m = (size_t)c->m;
    const double h = 1.0 / (double)m, dt = c->r * h * h;
    const uint64_t steps = (uint64_t)fmax(1.0, nearbyint(c->t_end / dt));
    double *U = calloc(2 * (m + 1), sizeof *U), *V = calloc(2 * (m + 1), sizeof *V);
    if (!U || !V) {
        free(U);
        free(V);
        return srl_err_set(err, SRL_ENOMEM, "m: out of memory for %llu points",
                           (unsigned long long)c->m);
    }
    double *Un = U + m + 1, *Vn = V + m + 1; /* the next step; the ends stay 0 */
    for (size_t j = 1; j < m; j++)
        U[j] = V[j] = srl_round(sin(heat_pi * (double)j * h), &c->format, SRL_ROUND_RN, NULL);
    srl_rng base, rng;
    srl_rng_init(&base, SRL_RNG_DEFAULT, c->seed, 0);
    srl_rng_derive(&rng, &base, srl_hash_str("heat"));
    uint64_t lost = 0, changed = 0;
    for (uint64_t n = 0; n < steps && !st; n++) {
        for (size_t j = 1; j < m; j++) {
            double L;
            if (!exact_laplacian(U[j - 1], U[j + 1], U[j], &L)) {
                st = srl_err_set(err, SRL_EINVAL,
                                 "format: the Laplacian of %s values at step %llu is not exact "
                                 "in binary64 (a format this wide needs another solver)",
                                 c->format.name, (unsigned long long)(n + 1));
                break;
            }
            Un[j] = srl_fma(c->r, L, U[j], &c->format, c->mode, &rng);
            if (L != 0) {
                changed++;
                lost += Un[j] == U[j];
            }
            Vn[j] = V[j] + c->r * ((V[j - 1] + V[j + 1]) - 2 * V[j]);
        }
        double *t = U;
        U = Un, Un = t;
        t = V, V = Vn, Vn = t;
    }
    if (!st) {
        double s2 = 0, mx = 0, vmax = 0, de = 0;
        const double t = (double)steps * dt, decay = exp(-heat_pi * heat_pi * t);
        for (size_t j = 1; j < m; j++) {
            const double e = U[j] - V[j];
            s2 += e * e;
            mx = fmax(mx, fabs(e));
            vmax = fmax(vmax, fabs(V[j]));
            de = fmax(de, fabs(V[j] - decay * sin(heat_pi * (double)j * h)));
        }
        *o = (srl__heat_out){steps, dt, t, sqrt(s2 / (double)(m - 1)), mx, vmax,
                             changed ? (double)lost / (double)changed : 0.0, de};
    }
    free(U < Un ? U : Un);
    free(V < Vn ? V : Vn);
    return st;
}

/* ---- the runner ---- */

static const srl_param heat_params[] = {
    {"m", "64", "grid intervals, h = 1/m (2 to 4096); dt = r h^2"},
    {"r", "0.25", "dt / h^2, in (0, 1/2]"},
    {"t", "0.0625", "final time (steps = round(t / dt))"},
    {"format", "fp16", "format of the stored values (a preset or p=P,emax=E,...)"},
    {"rounding", "rn", "mode of every update: rn, rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R"},
    {NULL, NULL, NULL},
};

static int run_heat(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                    srl_err *err)
{
    (void)rep;
    srl__heat_cfg c;
    int st;
    if ((st = srl_config_u64(cfg, "m", "64", &c.m, err)) ||
        (st = srl_config_double(cfg, "r", "0.25", &c.r, err)) ||
        (st = srl_config_double(cfg, "t", "0.0625", &c.t_end, err)) ||
        (st = srl_config_format(cfg, "format", "fp16", &c.format, err)) ||
        (st = srl_config_rounding(cfg, "rounding", "rn", &c.mode, err)) ||
        (st = srl_config_u64(cfg, "seed", "1", &c.seed, err)))
        return st;
    srl__heat_out o;
    if ((st = srl__heat_solve(&o, &c, err)))
        return st;
    static const char *const names[] = {"steps", "dt", "t_final", "rms_err", "max_err",
                                        "rel_rms_err", "lost_frac", "discr_err"};
    static const srl_col_kind kinds[] = {SRL_COL_INT, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM,
                                         SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM};
    if ((st = out->begin(out->ctx, 8, names, kinds)))
        return st;
    const srl_value v[8] = {
        {SRL_COL_INT, 0, (int64_t)o.steps, NULL}, {SRL_COL_NUM, o.dt, 0, NULL},
        {SRL_COL_NUM, o.t, 0, NULL},              {SRL_COL_NUM, o.rms_err, 0, NULL},
        {SRL_COL_NUM, o.max_err, 0, NULL},        {SRL_COL_NUM, o.rms_err / o.ref_max, 0, NULL},
        {SRL_COL_NUM, o.lost_frac, 0, NULL},      {SRL_COL_NUM, o.discr_err, 0, NULL}};
    return out->row(out->ctx, v);
}

const srl_runner srl__runner_heat = {
    "heat", SRL_RUN_EXPERIMENT,
    "1-D heat equation by explicit Euler, every update rounded once: error vs the binary64 scheme",
    heat_params, run_heat};
