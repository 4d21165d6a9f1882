/* srlab/run.h: runs as values (DESIGN §1, §11).
 *
 * A run is fully described by a config: an ordered set of key=value text pairs (exactly the
 * command-line flags without their dashes: problem=quad1d, lr=0.01, seed=3, ...). A runner turns
 * a config into rows of named columns delivered to a sink; it never prints, never opens files
 * and never reads the clock, so the same config gives the same rows on any machine state, thread
 * count or execution order. The CLI, sweeps and checks are all clients of this interface: they
 * build configs, choose runners, and turn rows into CSV files.
 *
 * Randomness: a runner derives every stream from the config's `seed` and a purpose key
 * (srl_rng_derive), never from the other hyper-parameters, so grid points that share a seed share
 * their data, initialisation and noise (common random numbers: paired comparisons across learning
 * rates or strategies), and a run's rows never depend on which other runs exist. */
#ifndef SRLAB_RUN_H
#define SRLAB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configs ---- */
typedef struct srl_config srl_config;

srl_config *srl_config_new(void);
void srl_config_free(srl_config *c);                /* NULL-safe */
srl_config *srl_config_dup(const srl_config *c);    /* NULL on allocation failure */
/* Set key (replacing its value, keeping its position; new keys go last). */
int srl_config_set(srl_config *c, const char *key, const char *value) SRL_WUR;
int srl_config_unset(srl_config *c, const char *key); /* SRL_OK even if absent */
const char *srl_config_get(const srl_config *c, const char *key); /* NULL if absent */
size_t srl_config_size(const srl_config *c);
const char *srl_config_key(const srl_config *c, size_t i);
const char *srl_config_value(const srl_config *c, size_t i);

/* Typed reads of a present key, or of `def` (text) when the key is absent. Errors name the key
 * and the value: "lr: 'abc' is not a number". Finite checks are the caller's business. */
int srl_config_double(const srl_config *c, const char *key, const char *def, double *out,
                      srl_err *err) SRL_WUR;
int srl_config_long(const srl_config *c, const char *key, const char *def, long *out,
                    srl_err *err) SRL_WUR;
int srl_config_u64(const srl_config *c, const char *key, const char *def, uint64_t *out,
                   srl_err *err) SRL_WUR;
int srl_config_bool(const srl_config *c, const char *key, const char *def, bool *out,
                    srl_err *err) SRL_WUR; /* on/off, true/false, 1/0, yes/no */
int srl_config_format(const srl_config *c, const char *key, const char *def, srl_format *out,
                      srl_err *err) SRL_WUR;
int srl_config_rounding(const srl_config *c, const char *key, const char *def,
                        srl_rounding *out, srl_err *err) SRL_WUR;
/* A string among `choices` (NULL-terminated); *out is its index. */
int srl_config_choice(const srl_config *c, const char *key, const char *def,
                      const char *const *choices, int *out, srl_err *err) SRL_WUR;

/* ---- rows ---- */
typedef enum srl_col_kind { SRL_COL_NUM = 0, SRL_COL_INT, SRL_COL_STR } srl_col_kind;

typedef struct srl_value {
    srl_col_kind kind;
    double num;      /* SRL_COL_NUM: written with 17 significant digits (round-trips) */
    int64_t i;       /* SRL_COL_INT */
    const char *str; /* SRL_COL_STR: valid during the row call only */
} srl_value;

typedef struct srl_sink {
    /* Called once before any row, with the metric columns of the run. */
    int (*begin)(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds);
    int (*row)(void *ctx, const srl_value *values);
    void *ctx;
} srl_sink;

/* What a run reports besides its rows (warnings the CLI shows, a sweep records). */
typedef struct srl_run_report {
    bool diverged;      /* the run stopped on a non-finite value (a row says where and why) */
    char note[256];     /* one sentence for the user, or empty */
    char info[160];     /* what the run built, for the output's '#' lines (a model's parameter
                           count), or empty; not a warning */
} srl_run_report;

/* ---- runners ---- */
typedef struct srl_param {
    const char *key;  /* "lr" */
    const char *def;  /* default value as text; NULL: required */
    const char *help; /* one line, with the unit or range */
} srl_param;

typedef enum srl_run_kind {
    SRL_RUN_EXPERIMENT = 0, /* `srlab run`: summation, matvec, ... (no optimizer) */
    SRL_RUN_TRAIN = 1       /* `srlab train`: a problem trained by an optimizer under a strategy */
} srl_run_kind;

typedef struct srl_runner {
    const char *name;       /* the --problem value */
    srl_run_kind kind;
    const char *summary;    /* one line for --help */
    const srl_param *params; /* problem-specific keys, terminated by {NULL, NULL, NULL} */
    int (*run)(const srl_config *cfg, const srl_sink *out, srl_run_report *rep, srl_err *err);
} srl_runner;

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

#ifdef __cplusplus
}
#endif
#endif
