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
#include <string.h>

#include "srlab/run.h"

#define CLI_ROWS_MAX_COLS 128

/* Bounded outputs: srlab never writes a file it could not read back itself (cli_read_file reads
 * at most CLI_READ_MAX bytes, src/cli/host.h). Every output of train, run and sweep (and a
 * sweep's journal) is at most
 *     CLI_HEAD_BYTES                 the '#' lines, the header (the journal's start)
 *   + CLI_ROW_BYTES per row          one row's line, its '\n' included
 *   + CLI_RUN_BYTES per run or seed  what a run adds besides its rows: its line of the runs
 *                                    file and its journal record line, or a train run's notes;
 * the row writers enforce the row and run bounds at the first row that breaks them (exit 2, the
 * widest part of the row named), and the number of rows and runs is bounded before any work
 * (CLI_MAX_ROWS in src/cli/runcmd.h, which checks at compile time that the sum fits). Rows are
 * 150-350 bytes (a GPT row about 200), a run's line about 150-400. A sweep's summary line (one
 * per grid point, so no more of them than runs) holds the axes (under CLI_ROW_BYTES / 2, checked
 * before any run) and five statistics of the headline metrics (of every final_C for a runner
 * without a loss): 430-840 bytes today, within CLI_RUN_BYTES; it is not checked by a writer (a
 * future runner with many metrics and no loss could make it wider). */
#define CLI_ROW_BYTES 512u
#define CLI_RUN_BYTES 2048u
#define CLI_HEAD_BYTES ((size_t)8 << 20)

/* The length of the longest line of text[0 .. len), its '\n' included. */
static inline size_t cli_rows_widest(const char *text, size_t len)
{
    size_t most = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
        most = n > most ? n : most;
        i += n;
    }
    return most;
}

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
    FILE *line;                     /* the row being written (open_memstream), then copied */
    char *line_buf;
    size_t line_len;
    size_t wide;                    /* a row's bytes, when it broke CLI_ROW_BYTES (else 0) */
    size_t wide_col;                /* its widest field: the column (axes first) */
    size_t wide_field;              /* ... and that field's bytes */
} cli_rows;

void cli_rows_init(cli_rows *w, FILE *fp, size_t naxes, const char *const *axis_names);
void cli_rows_set_axis_values(cli_rows *w, const char *const *axis_values);
/* The sink: a row wider than CLI_ROW_BYTES is not written and stops the run with SRL_ERANGE
 * (w->wide says so; cli_rows_wide_message words it). */
srl_sink cli_rows_sink(cli_rows *w);
/* "a row of N bytes, more than the 512 one row may take ... (its widest field: COL, M bytes)",
 * for a message; w->wide must be set. The column's name: name_of(col) (axes first). */
void cli_rows_wide_message(const cli_rows *w, char *buf, size_t len);
void cli_rows_free(cli_rows *w);

/* The leading comment lines: "# srlab VERSION", "# command: srlab ...", then each extra line
 * (already without '#', may be NULL-terminated list or NULL). */
void cli_rows_preamble(FILE *fp, int argc, char **argv, const char *const *extra);

#endif
