/* srlab/rows.h: runs as values (docs/design.md §1, §11): rows, sinks and runners.
 *
 * A run is fully described by a config (srlab/config.h). A runner turns a config into rows of
 * named columns delivered to a sink; it never prints, never opens files and never reads the
 * clock, so the same config gives the same rows on any machine state, thread count or
 * execution order. The CLI, sweeps and checks are all clients of this interface: they build
 * configs, choose runners (srlab/run.h), and turn rows into CSV files.
 *
 * Randomness: a runner derives every stream from the config's `seed` and a purpose key
 * (srl_rng_derive), never from the other hyper-parameters, so grid points that share a seed share
 * their data, initialisation and noise (common random numbers: paired comparisons across learning
 * rates or strategies), and a run's rows never depend on which other runs exist. */
#ifndef SRLAB_ROWS_H
#define SRLAB_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/config.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- CSV text ----
 * How srlab writes a text field of its CSV outputs (rows, runs, summaries, compare, the CLI's
 * tables): per RFC 4180, quoted when it holds a comma, a double quote, CR or LF, inner quotes
 * doubled; and per OWASP's rule against formula injection, a text that begins with =, +, -, @, a
 * tab or CR and is not a number (a file name or other text a user gave) is written with a ' before
 * it, and quoted, so a spreadsheet shows it as text and never evaluates it (a text beginning with
 * ' is guarded too, so every field reads back as it was). Numbers ("-0.5", "-inf") are written as
 * they are. Writes the field into out (at most len bytes with the NUL; out may be NULL) and
 * returns its whole length. */
size_t srl_csv_field(char *out, size_t len, const char *s);
/* The text of a field srl_csv_field wrote, from its raw bytes (raw, n bytes, quotes and guard
 * included): unquoted, the guard dropped, into out (at most len bytes with the NUL; out may be
 * NULL). Returns its length, or SIZE_MAX when raw is not a CSV field (a quote that does not
 * close, or one inside an unquoted field). srlab's readers compare and show this text (compare's
 * --baseline, plot's labels). */
size_t srl_csv_value(char *out, size_t len, const char *raw, size_t n);
/* A word of the command lines srlab writes in its outputs' '#' lines ("# command: srlab ..."),
 * quoted for a POSIX shell so the line can be pasted back: as it is when it is made of letters,
 * digits and %+,-./:=@_^ only; else in '...' (a quote as '\''), or in $'...' with \xNN escapes
 * when it holds a control character (the line stays one line); and quotes close and reopen just
 * after a comma that =, +, -, @, a tab or CR follows (',''=...'), so that a spreadsheet reading
 * the line as CSV starts no cell with a formula. Written as srl_csv_field writes (out may be
 * NULL); returns the whole length. */
size_t srl_shell_word(char *out, size_t len, const char *s);

#ifdef __cplusplus
}
#endif
#endif
