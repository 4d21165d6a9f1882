/* src/cli/progress.h: the progress line of a long command on a terminal (src/cli/progress.c).
 *
 *   srlab sweep: 12/80 runs, 1:03 elapsed, about 5:36 left
 *
 * written over itself with a carriage return on standard error, at most every quarter second,
 * only when standard error is a terminal and the command was not asked to be quiet; cleared
 * when the work is done, so that the command's result line or output follows on a clean line.
 * `srlab sweep`, `train`, `run` and `demo crossover` show it. Nothing here changes a result. */
#ifndef SRL_CLI_PROGRESS_H
#define SRL_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cli_progress {
    const char *what; /* "sweep", "train", ... */
    const char *unit; /* "runs", "steps", ... */
    uint64_t total;   /* units in all */
    uint64_t already; /* units done before this start (a resumed sweep's runs) */
    double t0, last;  /* the start, the last line (cli_host_now) */
    bool on;          /* shown: standard error is a terminal and not quiet */
} cli_progress;

/* Start: `total` units of which `already` are done; shown when standard error is a terminal
 * and !quiet. The first line is printed at once. */
void cli_progress_start(cli_progress *p, const char *what, const char *unit, uint64_t total,
                        uint64_t already, bool quiet);
/* `done` more units since the start (at most total - already); the line is redrawn when a
 * quarter second has passed since the last one. */
void cli_progress_show(cli_progress *p, uint64_t done);
/* Clear the line (nothing when not shown). */
void cli_progress_clear(const cli_progress *p);
/* Seconds since the start. */
double cli_progress_elapsed(const cli_progress *p);
/* A duration as "M:SS", or "H:MM:SS" from an hour on. */
void cli_duration(char *buf, size_t len, double seconds);

#endif
