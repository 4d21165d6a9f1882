/* srlab/sweep.h: sweeps: grids of runs, their order, shards, journals, summaries and merging
 * (docs/design.md §10-§12).
 *
 * A sweep is a set of runs (include/srlab/run.h) described by settings: every key a runner
 * accepts is an axis whose text is one value, a comma list, or a range; the sweep is the cross
 * product of the axes (axes named together in a `zip` vary together), repeated over seeds.
 * Everything here is a pure function of the settings and the runners' rows: no printing, no
 * files, no clock. The command line (src/cli/cmd_sweep.c, cmd_merge.c) reads spec files and
 * flags into settings, and writes what these functions produce to files.
 *
 * Values (srl_sweep_parse_values)
 *   one value          `bf16`, `0.01`
 *   comma list         `rn,sr,sr:r=16`; a value holding commas goes in brackets: `[p=8,emax=127]`
 *   range              `a:b:log:n` (n values, geometric from a to b; a, b > 0) or `a:b:lin:n`
 *                      (arithmetic). Both ends are exact; inner values are printed with 15
 *                      significant digits (so 1e-4:1e-1:log:4 gives 0.0001,0.001,0.01,0.1). A log
 *                      range whose bounds are written as integers gives integers (log-spaced
 *                      sizes and step counts: 1:100:log:5 is 1,3,10,32,100), which must stay
 *                      distinct; write 1.0 for real values. n = 1 needs a = b.
 *   A list may mix values and ranges: `0,1e-3:1e-1:log:3`.
 *
 * Settings (srl_sweep_new)
 *   command = train | run   the runner kind (SRL_RUN_TRAIN, the default, or SRL_RUN_EXPERIMENT)
 *   problem = NAME[,NAME]   required; an axis like any other
 *   seeds = N               seeds 1..N for every grid point; or `seed = LIST` for given seeds
 *                           (at most one of the two; without either: the runner's default seed)
 *   zip = KEY,KEY[,...]     these axes vary together (equal lengths); may be given repeatedly
 *   target = T              loss_gap target of the summary's steps_to_target (T >= 0)
 *   KEY = VALUES            any other key: an axis; it must be a parameter of every problem of
 *                           the grid (srl_runner_param), checked before anything runs
 *   Each key at most once (zip excepted); the caller resolves precedence (flags over a spec).
 *
 * Order (what makes files independent of threads, shards and interruptions)
 *   Axis columns: run, problem, opt, strategy, format, rounding, lr (those any runner of the grid
 *   knows), then every other axis with more than one value, in the order of the first problem's
 *   parameter table, then seed. Runs are numbered in the nesting of that order, the first axis
 *   outermost and seed innermost, values in the order given: run = point * nseeds + seed index.
 *   A zip group nests at the place of its first member. Constant keys are not columns (the
 *   `# command:` line holds them). Core columns a run does not set show the runner's default.
 *
 * Columns (srl_sweep_prepare)
 *   Before any run, one validation run per problem and per value of every axis (stopped at its
 *   sink's begin) checks every value with the runner's own parser and collects the metric
 *   columns; the file's metric columns are their union in order of first appearance, so they are
 *   fixed by the grid alone (the same for every shard). A run without a column leaves it empty.
 *
 * Files (text, RFC 4180, one header line after the '#' lines)
 *   rows      `run,AXES...,seed,METRICS...`, one line per logged step per run, in run order
 *   summary   `run,AXES...,seed,` then per run: last_step, final_C for every numeric metric C,
 *             best_loss, steps_to_target (first logged step with loss_gap <= target), diverged;
 *             then per grid point over its seeds, for the headline metrics (final_loss,
 *             best_loss, final_loss_gap, final_dist_to_opt, steps_to_target; every final_C when
 *             the runner reports no loss): M_n (finite values used), M_mean, M_sd, M_ci95_lo,
 *             M_ci95_hi (Student t, GSL). Undefined entries are empty fields. Shards leave the
 *             statistics empty (they do not hold every seed); srl_sweep_merge fills them.
 *   '#' lines `# srlab VERSION`, `# command: srlab sweep ...` (canonical: every setting, in
 *             column order, without options that cannot change a result), `# spec: PATH` (if
 *             any), `# date: YYYY-MM-DDTHH:MM:SSZ`, `# seeds: ...`, `# runs: R (P grid points x
 *             S seeds)`, and `# shard: I/N` for a shard.
 *
 * Journal (srl_sweep_journal_*): an append-only file beside the output: a header (magic line,
 * the '#' lines, both column lines, "@begin"), then one record per finished run:
 * `@run RUN rows BYTES summary BYTES fnv HEX16` and the bytes. A torn or corrupt tail (a record
 * cut by kill -9) is detected by its lengths and its FNV-1a checksum and ignored. */
#ifndef SRLAB_SWEEP_H
#define SRLAB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- values ---- */

/* Split text into values (see above). *values is a malloc'd array of malloc'd strings (free with
 * srl_sweep_values_free). Errors name the text: empty values, bad ranges. */
int srl_sweep_parse_values(const char *text, char ***values, size_t *n, srl_err *err) SRL_WUR;
void srl_sweep_values_free(char **values, size_t n);

/* "I/N" with 0 <= I < N. */
int srl_sweep_parse_shard(const char *text, size_t *i, size_t *n, srl_err *err) SRL_WUR;

/* ---- sweeps ---- */

typedef struct srl_sweep_setting {
    const char *key;    /* "lr", "problem", "seeds", "zip", ... */
    const char *value;  /* the text */
    const char *origin; /* where the user wrote it, for messages ("--lr", "x.ini:12"); NULL: key */
} srl_sweep_setting;

typedef struct srl_sweep srl_sweep;

/* Parse and check the settings against `runners` (NULL-terminated; NULL: the registry) and expand
 * the grid. Messages start with the origin of the offending setting. */
int srl_sweep_new(srl_sweep **out, const srl_sweep_setting *settings, size_t n,
                  const srl_runner *const *runners, srl_err *err) SRL_WUR;
void srl_sweep_free(srl_sweep *s); /* NULL-safe */

srl_run_kind srl_sweep_kind(const srl_sweep *s);
size_t srl_sweep_nruns(const srl_sweep *s);
size_t srl_sweep_npoints(const srl_sweep *s);
size_t srl_sweep_nseeds(const srl_sweep *s);
/* The canonical command line, "srlab sweep --command train --problem ..." (shell-quoted). */
const char *srl_sweep_command(const srl_sweep *s);
/* The seeds, "1-8" or "3,7". */
const char *srl_sweep_seeds_text(const srl_sweep *s);

/* Axis columns (without `run`): names, and the value of column i in run `run`. */
size_t srl_sweep_naxes(const srl_sweep *s);
const char *srl_sweep_axis_name(const srl_sweep *s, size_t i);
const char *srl_sweep_axis_value(const srl_sweep *s, size_t run, size_t i);
const srl_runner *srl_sweep_runner(const srl_sweep *s, size_t run);
/* The config of a run (problem, every set key, seed); the caller frees it. */
int srl_sweep_config(const srl_sweep *s, size_t run, srl_config **out) SRL_WUR;

/* Validation runs (see above), in parallel on up to nthreads threads; then the column lines. */
int srl_sweep_prepare(srl_sweep *s, int nthreads, srl_err *err) SRL_WUR;
const char *srl_sweep_rows_header(const srl_sweep *s);    /* after prepare; no newline */
const char *srl_sweep_summary_header(const srl_sweep *s); /* after prepare; no newline */

typedef struct srl_sweep_meta {
    const char *date;  /* "2026-01-01T00:00:00Z" */
    const char *spec;  /* spec file as the user named it, or NULL */
    bool quick;        /* the spec's [quick] section applied */
    size_t shard_i, shard_n; /* shard_n == 0: not a shard */
} srl_sweep_meta;

/* The '#' lines, each ending in '\n'; malloc'd. */
int srl_sweep_preamble(const srl_sweep *s, const srl_sweep_meta *m, char **out) SRL_WUR;

/* ---- runs ---- */

typedef struct srl_sweep_record {
    size_t run;
    char *rows;         /* the run's lines of the rows file, each ending in '\n' */
    size_t rows_len;
    char *summary;      /* the run's line of the summary file without the statistics, '\n' */
    size_t summary_len;
    bool diverged;
    char note[256];     /* the runner's note, or empty */
} srl_sweep_record;

/* Run one run (after prepare) into rec (which the caller frees with srl_sweep_record_free).
 * A diverged run is a result, not an error. Errors are the runner's, prefixed with the run. */
int srl_sweep_run(const srl_sweep *s, size_t run, srl_sweep_record *rec, srl_err *err) SRL_WUR;
void srl_sweep_record_free(srl_sweep_record *rec);

/* Called once per finished run, one call at a time, in completion order. Non-zero stops the
 * sweep (runs in flight finish; their records are not delivered) and is returned. */
typedef int (*srl_sweep_done_fn)(void *ctx, const srl_sweep_record *rec);

/* Run the listed runs on nthreads threads (runs are the parallel unit; nested parallel regions
 * run on one thread, which cannot change a result). On a run's failure the sweep stops, *failed
 * (if not NULL) is the lowest failed run, and its status is returned. */
int srl_sweep_execute(const srl_sweep *s, const size_t *runs, size_t n, int nthreads,
                      srl_sweep_done_fn done, void *ctx, size_t *failed, srl_err *err) SRL_WUR;

/* ---- summaries ---- */

/* Number of statistics columns at the end of a summary header line. */
size_t srl_sweep_stats_count(const char *summary_header);

/* One grid point: lines are its runs' summary lines without statistics (each ending in '\n'),
 * in run order. Appends to *out (malloc'd, grown; *len its length) each line with its
 * statistics (or empty ones when `empty`). */
int srl_sweep_summary_point(const char *summary_header, const char *const *lines,
                            const size_t *lens, size_t nlines, bool empty, char **out,
                            size_t *len, size_t *cap, srl_err *err) SRL_WUR;

/* ---- journal ---- */

int srl_sweep_journal_header(const char *preamble, const char *rows_header,
                             const char *summary_header, char **out, size_t *len) SRL_WUR;
int srl_sweep_journal_record(const srl_sweep_record *rec, char **out, size_t *len) SRL_WUR;

typedef struct srl_sweep_journal_entry {
    size_t run;
    size_t rows_off, rows_len;       /* offsets into the parsed text */
    size_t summary_off, summary_len;
} srl_sweep_journal_entry;

typedef struct srl_sweep_journal {
    char *preamble, *rows_header, *summary_header; /* malloc'd copies (headers without '\n') */
    srl_sweep_journal_entry *entries; /* in file order; a run at most once (first kept) */
    size_t nentries;
    size_t good_len;  /* length of the valid prefix; bytes beyond it are a torn record */
    bool complete_header; /* false: the header itself is torn (no run was recorded) */
} srl_sweep_journal;

int srl_sweep_journal_parse(const char *text, size_t len, srl_sweep_journal *j,
                            srl_err *err) SRL_WUR;
void srl_sweep_journal_free(srl_sweep_journal *j);

/* Compare two preambles line by line ignoring `# date:`; 0 when equal, else the 1-based number
 * of the first differing line, its text in each (either may be "(missing)") in a and b. */
size_t srl_sweep_preamble_diff(const char *pa, const char *pb, char *a, size_t alen, char *b,
                               size_t blen);

/* ---- merge ---- */

typedef struct srl_sweep_text {
    const char *name; /* for messages */
    const char *data;
    size_t len;
} srl_sweep_text;

/* Join shard files (every shard of one sweep, each once, in any order) into the file the whole
 * sweep would have written: rows files (summary false) or summary files (true). Refuses files of
 * different sweeps, naming the first differing '#' line; the date is the earliest shard's. */
int srl_sweep_merge(const srl_sweep_text *files, size_t n, bool summary, char **out,
                    size_t *len, srl_err *err) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
