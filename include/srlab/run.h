/* srlab/run.h: the table of every runner srlab knows (each problem of src/problems/) and
 * srl_run, which checks a config against a runner's keys and runs it (docs/design.md §1, §11). What a
 * runner, a config and a row are is in srlab/rows.h and srlab/config.h. */
#ifndef SRLAB_RUN_H
#define SRLAB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/config.h"
#include "srlab/rows.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t srl_runner_count(void);
const srl_runner *srl_runner_at(size_t i);
const srl_runner *srl_runner_find(srl_run_kind kind, const char *name);

/* Keys every runner of a kind accepts besides its own (seed for all; optimizer, strategy and
 * schedule keys for training). Terminated by {NULL}. */
const srl_param *srl_runner_common_params(srl_run_kind kind);

/* The param entry of `key` for runner r (its own or common), or NULL: an unknown key. */
const srl_param *srl_runner_param(const srl_runner *r, const char *key);

/* Check that every key of cfg is known to r (message names the unknown key and lists the known
 * ones), then run. Sinks' non-zero returns abort the run and are passed through. */
int srl_run(const srl_runner *r, const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
            srl_err *err) SRL_WUR;

/* Bounded work (issue 12, item 5): an upper bound of the rows one run of r under cfg delivers,
 * known before it starts. A training problem logs step 0, every log-every-th step and the last:
 * floor(steps / log-every) + 1 rows, plus one when log-every does not divide steps (fewer when
 * it diverges; saturating at UINT64_MAX). 0 for an experiment
 * (srlab run: its own keys' ranges bound its rows) and when steps or log-every do not parse (the
 * run itself refuses them). */
uint64_t srl_run_rows_bound(const srl_runner *r, const srl_config *cfg);

/* ---- threads ----
 * The one clamp of OpenMP team sizes (issue 12, item 3), for the command line and the Python
 * package alike: every team is at most srl_run_max_threads() threads, whatever OMP_NUM_THREADS
 * or a caller asks (OMP_NUM_THREADS=100000 would otherwise try to start that many threads and
 * crash), and a team over a list of work items has at most one thread per item. Results never
 * depend on the team size (docs/design.md). */
#define SRL_RUN_THREADS_PER_CPU 4 /* a few per online processor: more only wait */
#define SRL_RUN_THREADS_MAX 1024
/* SRL_RUN_THREADS_PER_CPU x the online processors, at most SRL_RUN_THREADS_MAX. */
int srl_run_max_threads(void);
/* A team size: `requested` (<= 0: OpenMP's default, omp_get_max_threads()), at most
 * srl_run_max_threads(), at most `work` when work > 0, at least 1. */
int srl_run_team(long long requested, size_t work);
/* Clamp OpenMP's default team size (OMP_NUM_THREADS) to srl_run_team(0, 0) for every parallel
 * region that sets none of its own; no effect without OpenMP. */
void srl_run_clamp_threads(void);

#ifdef __cplusplus
}
#endif
#endif
