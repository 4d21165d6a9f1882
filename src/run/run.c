/* src/run/run.c: the registry of runners and srl_run (include/srlab/run.h). */
#include "srlab/run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "run/run_registry.h"

/* ---- registry ---- */

static const srl_param common_experiment[] = {
    {"seed", "1", "seed of every random stream of the run (non-negative integer)"},
    {NULL, NULL, NULL},
};

size_t srl_runner_count(void)
{
    size_t n = 0;
    while (srl__runners[n])
        n++;
    return n;
}

const srl_runner *srl_runner_at(size_t i)
{
    return i < srl_runner_count() ? srl__runners[i] : NULL;
}

const srl_runner *srl_runner_find(srl_run_kind kind, const char *name)
{
    for (size_t i = 0; srl__runners[i]; i++)
        if (srl__runners[i]->kind == kind && strcmp(srl__runners[i]->name, name) == 0)
            return srl__runners[i];
    return NULL;
}

const srl_param *srl_runner_common_params(srl_run_kind kind)
{
    return kind == SRL_RUN_TRAIN ? srl__train_common_params : common_experiment;
}

static const srl_param *in_table(const srl_param *t, const char *key)
{
    for (; t && t->key; t++)
        if (!strcmp(t->key, key))
            return t;
    return NULL;
}

const srl_param *srl_runner_param(const srl_runner *r, const char *key)
{
    const srl_param *p = in_table(r->params, key);
    return p ? p : in_table(srl_runner_common_params(r->kind), key);
}

int srl_run(const srl_runner *r, const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
            srl_err *err)
{
    for (size_t i = 0; i < srl_config_size(cfg); i++) {
        const char *k = srl_config_key(cfg, i);
        if (!strcmp(k, "problem"))
            continue;
        if (!srl_runner_param(r, k))
            return srl_err_set(err, SRL_EINVAL,
                               "unknown key '%s' for problem '%s' (see srlab %s --problem %s "
                               "--help)", k, r->name, r->kind == SRL_RUN_TRAIN ? "train" : "run",
                               r->name);
    }
    memset(rep, 0, sizeof *rep);
    return r->run(cfg, out, rep, err);
}

uint64_t srl_run_rows_bound(const srl_runner *r, const srl_config *cfg)
{
    if (r->kind != SRL_RUN_TRAIN)
        return 0;
    const srl_param *ps = srl_runner_param(r, "steps"), *pl = srl_runner_param(r, "log-every");
    uint64_t steps, every;
    srl_err err;
    if (!ps || !pl || srl_config_u64(cfg, "steps", ps->def, &steps, &err) ||
        srl_config_u64(cfg, "log-every", pl->def, &every, &err) || every == 0)
        return 0;
    const uint64_t logged = steps / every, extra = 1 + (steps % every != 0);
    return logged > UINT64_MAX - extra ? UINT64_MAX : logged + extra;
}

/* ---- threads ---- */

int srl_run_max_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    long max = SRL_RUN_THREADS_PER_CPU * cpus;
    return (int)(max > SRL_RUN_THREADS_MAX ? SRL_RUN_THREADS_MAX : max);
}

int srl_run_team(long long requested, size_t work)
{
    if (requested <= 0) {
#ifdef _OPENMP
        requested = omp_get_max_threads();
#else
        requested = 1;
#endif
    }
    long long max = srl_run_max_threads();
    if (requested > max)
        requested = max;
    if (work > 0 && (unsigned long long)requested > work)
        requested = (long long)work;
    return requested < 1 ? 1 : (int)requested;
}

void srl_run_clamp_threads(void)
{
#ifdef _OPENMP
    omp_set_num_threads(srl_run_team(0, 0));
#endif
}
