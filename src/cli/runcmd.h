/* src/cli/runcmd.h: what `srlab run` and `srlab train` share (src/cli/runcmd.c).
 *
 * Both turn `--problem NAME --KEY VALUE...` into a config (the flags without their dashes), run
 * the problem's runner once per seed (seeds S, S+1, ..., S+N-1 from --seed S and --seeds N) and
 * write the rows as tidy CSV (src/cli/rows.h): '#' lines, the header, one block of rows per
 * seed, each row starting with the command's axis columns and ending the axes with `seed`.
 * Output goes through cli_out: nothing is written unless every run succeeds. The options of a
 * problem are its runner's parameter table, so a new problem needs no CLI change. */
#ifndef SRL_CLI_RUNCMD_H
#define SRL_CLI_RUNCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/host.h"
#include "cli/rows.h"
#include "srlab/run.h"

#define CLI_RUNCMD_MAX_SEEDS 100000
/* Bounded work (issue 12, item 5) and bounded outputs (src/cli/rows.h): the most rows one
 * output of srlab train, run or sweep may hold, a run (a seed of train or run, a run of a sweep)
 * counting CLI_RUN_ROWS rows for its own lines besides its rows; checked from the settings
 * before any run (srl_run_rows_bound, srl_sweep_rows_bound), with the rows' and runs' bytes
 * bounded by their writers (rows.h). The bound is chosen so that the largest output, or a
 * sweep's journal, is one srlab reads back (CLI_READ_MAX, host.h): about 250 MB of CSV. */
#define CLI_MAX_ROWS 500000u
#define CLI_RUN_ROWS (CLI_RUN_BYTES / CLI_ROW_BYTES)
_Static_assert(CLI_RUN_ROWS * CLI_ROW_BYTES >= CLI_RUN_BYTES,
               "a run's own lines fit in the rows it counts for");
_Static_assert(CLI_HEAD_BYTES + (uint64_t)CLI_MAX_ROWS * CLI_ROW_BYTES <= CLI_READ_MAX,
               "the largest output srlab writes is one it can read back (cli_read_file)");

/* rows + CLI_RUN_ROWS x runs, saturating: what CLI_MAX_ROWS bounds. */
static inline uint64_t cli_output_rows(uint64_t rows, uint64_t runs)
{
    const uint64_t r = runs > UINT64_MAX / CLI_RUN_ROWS ? UINT64_MAX : runs * CLI_RUN_ROWS;
    return rows > UINT64_MAX - r ? UINT64_MAX : rows + r;
}

/* Is `key` a config key whose value may name a file the run reads (gpt's `data`: a text file,
 * or `markov`)? Such a file is noted as an input (cli_input_note in cli.h), so no output of
 * train, run or sweep (flags or spec) replaces it. */
static inline bool cli_runcmd_file_key(const char *key)
{
    return !strcmp(key, "data");
}

/* A help text: write(fp, r) composes it (r: the problem, or NULL for the command's own help). */
typedef void (*cli_runcmd_help_fn)(FILE *fp, const srl_runner *r);
/* Print a help text on standard output, whole. Returns 0 or an exit status. */
int cli_runcmd_help(const char *cmd, cli_runcmd_help_fn write, const srl_runner *r);
/* "  NAME       summary" lines: the problems of a kind, for a help text. */
void cli_runcmd_print_problems(FILE *fp, srl_run_kind kind);

/* The runner of `kind` that --problem names (found before the options are parsed: they depend
 * on it). Returns 0 with *r set; or 0 with *r NULL when --help was asked, after printing
 * general_help (no --problem) or problem_help; or an exit status after a message: no
 * --problem, an unknown problem (for srlab run, a training problem is pointed to srlab train). */
int cli_runcmd_runner(const char *cmd, srl_run_kind kind, cli_runcmd_help_fn general_help,
                      cli_runcmd_help_fn problem_help, int argc, char **argv,
                      const srl_runner **r);

/* A library message names a config key ("lr: ..."); the user typed it as --lr. Prints the
 * message and returns the exit status. */
int cli_runcmd_error(const char *cmd, const srl_runner *r, int st, const srl_err *err);

/* Parsed options: the config (every --KEY VALUE, a key at most once), -o, the seeds, --threads
 * (0: not given; the OpenMP threads of the runs' kernels, which the results do not depend on). */
typedef struct cli_runcmd_args {
    srl_config *cfg;
    const char *path;
    uint64_t seed, nseeds;
    int threads;
} cli_runcmd_args;

/* Parse argv for runner r into *a (a->cfg allocated here; free it with srl_config_free even on
 * failure). Returns 0, an exit status after a message, or -1 when --help was asked (the caller
 * prints the problem's help). */
int cli_runcmd_parse(cli_runcmd_args *a, const char *cmd, const srl_runner *r, int argc,
                     char **argv);

/* Axis columns: names and values (the last one must be "seed"; its value is filled per seed). */
typedef struct cli_runcmd_axes {
    const char **names, **values;
    size_t n;
    char seed[24];
} cli_runcmd_axes;

/* Allocate room for n axes (free with cli_runcmd_axes_free). Returns 0 or -1. */
int cli_runcmd_axes_alloc(cli_runcmd_axes *ax, size_t n);
void cli_runcmd_axes_add(cli_runcmd_axes *ax, const char *name, const char *value);
void cli_runcmd_axes_free(cli_runcmd_axes *ax);

/* Run every seed, then write the file: cli_rows_preamble with `extra` lines (NULL-terminated),
 * the runs' notes as '#' lines (a diverged run's note as a warning, also on standard error),
 * the rows. *ndiverged (may be NULL) counts diverged runs. Returns 0 or an exit status. */
int cli_runcmd_execute(const char *cmd, const srl_runner *r, const cli_runcmd_args *a,
                       cli_runcmd_axes *ax, int argc, char **argv, const char *const *extra,
                       int *ndiverged);

/* "seeds: ..." for the preamble (`streams` says what the seed's streams are). */
void cli_runcmd_seeds_line(char *buf, size_t len, const cli_runcmd_args *a, const char *streams);

/* "  --KEY     help (default D)" lines, wrapped before column 99, the key column `width` wide;
 * the seed key is skipped (--seed/--seeds are the command's own). */
void cli_runcmd_print_params(FILE *fp, const srl_param *t, int width);

#endif
