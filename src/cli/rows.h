/* src/cli/rows.h: writing runs' rows as tidy CSV (docs/design.md §11).
 *
 * A file holds leading `#` lines (srlab version, the full command, the seeds, and anything the
 * command adds), then one header line, then one row per logged step per run. Each row starts
 * with the run's axis columns (the config values that identify the run: problem, opt, strategy,
 * format, rounding, lr, seed, ...), constant within a run, followed by the runner's metric
 * columns. Numbers are written with 17 significant digits (round-trip), integers in decimal,
 * strings as RFC 4180 fields. Readable as is by gnuplot, pandas (comment='#') and R.
 *
 * Usage:
 *     cli_rows w;
 *     cli_rows_init(&w, out.fp, naxes, axis_names);
 *     for each run: cli_rows_set_axis_values(&w, values); srl_run(r, cfg, &sink, ...)
 *         with srl_sink sink = cli_rows_sink(&w);
 * Every run must have the same metric columns as the first (else the sink returns SRL_EINVAL). */
#ifndef SRL_CLI_ROWS_H
#define SRL_CLI_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "srlab/run.h"

#define CLI_ROWS_MAX_COLS 128

typedef struct cli_rows {
    FILE *fp;
    size_t naxes;
    const char *const *axis_names;
    const char *const *axis_values; /* current run's values (set per run) */
    bool header_done;
    size_t ncol;                    /* metric columns of the first run */
    char *col_names[CLI_ROWS_MAX_COLS];
    srl_col_kind col_kinds[CLI_ROWS_MAX_COLS];
    size_t rows;                    /* rows written so far */
} cli_rows;

void cli_rows_init(cli_rows *w, FILE *fp, size_t naxes, const char *const *axis_names);
void cli_rows_set_axis_values(cli_rows *w, const char *const *axis_values);
srl_sink cli_rows_sink(cli_rows *w);
void cli_rows_free(cli_rows *w);

/* The leading comment lines: "# srlab VERSION", "# command: srlab ...", then each extra line
 * (already without '#', may be NULL-terminated list or NULL). */
void cli_rows_preamble(FILE *fp, int argc, char **argv, const char *const *extra);

#endif
