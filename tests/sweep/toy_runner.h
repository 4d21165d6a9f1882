/* tests/sweep/toy_runner.h: small runners for the sweep tests, independent of the problems other
 * modules define (so these tests pin the sweep engine, not the trainers).
 *
 * toy (kind train): x_{k+1} = x_k - lr a x_k + noise z_k, z_k ~ N(0, 1) from a stream derived from
 * the seed alone; rows step (int), loss = x^2/2 (num), loss_gap = loss, status (str); optional
 * column `extra` (extra=on) to exercise the union of columns; diverges (status "diverged",
 * report.diverged) once |x| > 1e6. sleep-ms sleeps that long per logged row (for the kill
 * test). The common train keys (steps, lr, seed, ...) are the library's.
 * toyexp (kind run): rows n (int) and err (num) = seed-dependent noise / sqrt(n). */
#ifndef SRL_TEST_TOY_RUNNER_H
#define SRL_TEST_TOY_RUNNER_H

#include <math.h>
#include <string.h>
#include <time.h>

#include "srlab/rng.h"
#include "srlab/run.h"

static const srl_param toy_params[] = {
    {"a", "1", "curvature"},
    {"x0", "1", "start"},
    {"noise", "0", "noise standard deviation"},
    {"extra", "off", "on: one more column"},
    {"sleep-ms", "0", "milliseconds slept per logged row"},
    {NULL, NULL, NULL},
};

static int toy_run(const srl_config *cfg, const srl_sink *out, srl_run_report *rep, srl_err *err)
{
    double a, x, noise, lr;
    long steps, every, sleep_ms;
    uint64_t seed;
    bool extra;
    int st;
    if ((st = srl_config_double(cfg, "a", "1", &a, err)) ||
        (st = srl_config_double(cfg, "x0", "1", &x, err)) ||
        (st = srl_config_double(cfg, "noise", "0", &noise, err)) ||
        (st = srl_config_double(cfg, "lr", "0.01", &lr, err)) ||
        (st = srl_config_long(cfg, "steps", "100", &steps, err)) ||
        (st = srl_config_long(cfg, "log-every", "10", &every, err)) ||
        (st = srl_config_long(cfg, "sleep-ms", "0", &sleep_ms, err)) ||
        (st = srl_config_u64(cfg, "seed", "1", &seed, err)) ||
        (st = srl_config_bool(cfg, "extra", "off", &extra, err)))
        return st;
    if (!(lr > 0))
        return srl_err_set(err, SRL_EINVAL, "lr: '%s' must be > 0", srl_config_get(cfg, "lr"));
    if (every < 1)
        every = 1;
    const char *names[] = {"step", "loss", "loss_gap", "status", "extra"};
    const srl_col_kind kinds[] = {SRL_COL_INT, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_STR,
                                  SRL_COL_NUM};
    if ((st = out->begin(out->ctx, extra ? 5 : 4, names, kinds)))
        return st;
    srl_rng base, r;
    srl_rng_init(&base, SRL_RNG_PCG32, seed, 0);
    srl_rng_derive(&r, &base, 7);
    for (long k = 0; k <= steps; k++) {
        bool div = !(fabs(x) <= 1e6);
        if (k % every == 0 || k == steps || div) {
            srl_value v[5];
            memset(v, 0, sizeof v);
            v[0].kind = SRL_COL_INT;
            v[0].i = k;
            v[1].kind = v[2].kind = v[4].kind = SRL_COL_NUM;
            v[1].num = v[2].num = x * x / 2;
            v[4].num = x;
            v[3].kind = SRL_COL_STR;
            v[3].str = div ? "diverged" : "ok";
            if ((st = out->row(out->ctx, v)))
                return st;
            if (sleep_ms > 0) {
                struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
        }
        if (div) {
            rep->diverged = true;
            snprintf(rep->note, sizeof rep->note, "diverged: |x| > 1e6");
            return SRL_OK;
        }
        x = x - lr * a * x + noise * srl_rng_normal(&r);
    }
    return SRL_OK;
}

static const srl_param toyexp_params[] = {
    {"n", "10", "size"},
    {"format", "bf16", "a format name (not used)"},
    {NULL, NULL, NULL},
};

static int toyexp_run(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                      srl_err *err)
{
    long n;
    uint64_t seed;
    int st;
    (void)rep;
    if ((st = srl_config_long(cfg, "n", "10", &n, err)) ||
        (st = srl_config_u64(cfg, "seed", "1", &seed, err)))
        return st;
    if (n < 1)
        return srl_err_set(err, SRL_EINVAL, "n: must be >= 1");
    const char *names[] = {"n", "err"};
    const srl_col_kind kinds[] = {SRL_COL_INT, SRL_COL_NUM};
    if ((st = out->begin(out->ctx, 2, names, kinds)))
        return st;
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 3);
    srl_value v[2];
    v[0].kind = SRL_COL_INT;
    v[0].i = n;
    v[1].kind = SRL_COL_NUM;
    v[1].num = fabs(srl_rng_normal(&r)) / sqrt((double)n);
    return out->row(out->ctx, v);
}

static const srl_runner toy_runner = {"toy", SRL_RUN_TRAIN, "toy gradient descent", toy_params,
                                      toy_run};
static const srl_runner toy2_runner = {"toy2", SRL_RUN_TRAIN, "toy with other keys",
                                       toyexp_params, toy_run};
static const srl_runner toyexp_runner = {"toyexp", SRL_RUN_EXPERIMENT, "toy experiment",
                                         toyexp_params, toyexp_run};
static const srl_runner *const toy_runners[] = {&toy_runner, &toy2_runner, &toyexp_runner, NULL};

#endif
