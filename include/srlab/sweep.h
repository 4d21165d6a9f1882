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
 * Values (the text of a setting)
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
 *   target = T              loss_gap target of the runs' steps_to_target (T >= 0)
 *   KEY = VALUES            any other key: an axis; it must be a parameter of every problem of
 *                           the grid (srl_runner_param), checked before anything runs
 *   Each key at most once (zip excepted); the caller resolves precedence (flags over a spec).
 *   A training sweep given `rounding` (or param-rounding) without format, param-format or
 *   strategy stores the weights in bf16: a constant setting format = bf16 is added, shown in the
 *   canonical command and in a `# format:` line (under the default strategy fp32 the weights
 *   would hold every value of the fp32 update, and no rounding could change anything).
 *
 * Order (what makes files independent of threads, shards and interruptions)
 *   Axis columns: run, problem, opt, strategy, format, rounding, lr (those any runner of the grid
 *   knows), then every other axis with more than one value, in the order of the first problem's
 *   parameter table, then seed. Runs are numbered in the nesting of that order, the first axis
 *   outermost and seed innermost, values in the order given: run = point * nseeds + seed index.
 *   A zip group nests at the place of its first member. Constant keys are not columns (the
 *   `# command:` line holds them). Core columns a run does not set show the runner's default;
 *   in a training sweep the format and rounding columns show the weight format and rounding
 *   the run resolves from its strategy and keys, as `srlab train` prints them (fp32, rn).
 *
 * Columns (srl_sweep_prepare)
 *   Before any run, one validation run per problem and per value of every axis (stopped at its
 *   sink's begin) checks every value with the runner's own parser and collects the metric
 *   columns; the file's metric columns are their union in order of first appearance, so they are
 *   fixed by the grid alone (the same for every shard). A run without a column leaves it empty.
 *
 * Files (srl_sweep_journal_rows and _runs, srl_sweep_summary, srl_sweep_merge: text, RFC 4180,
 * one header line after the '#' lines)
 *   rows      `run,AXES...,seed,METRICS...`, one line per logged step per run, in run order;
 *             a run's lines in the order its runner delivered them, in which the first metric
 *             column (step; an experiment's k) never goes down (merge checks it)
 *   runs      `run,AXES...,seed,` then per run: last_step, final_C for every numeric metric C,
 *             best_loss, steps_to_target (first logged step with loss_gap <= target), diverged
 *             (0 or 1); one line per run, in run order (NAME.runs.csv)
 *   summary   one line per grid point, in point order: `AXES...` (the axis columns without run
 *             and seed), `seeds` (the number of seeds aggregated), `diverged` (how many of them
 *             diverged), then for the headline metrics (final_loss, best_loss, final_loss_gap,
 *             final_dist_to_opt; every final_C when the runner reports no loss): M_n (finite
 *             values used), M_mean, M_sd, M_ci95_lo, M_ci95_hi (Student t, GSL); for
 *             steps_to_target, which a run that never reaches the target does not have (its
 *             time is censored at its last_step, or never comes if it diverged), the censored
 *             statistics instead: steps_to_target_reached (runs that reached it),
 *             _frac (their fraction), _frac_lo, _frac_hi (Clopper-Pearson 95%), _median,
 *             _median_lo, _median_hi (the Kaplan-Meier median and its 95% interval,
 *             Brookmeyer-Crowley on the log-log Greenwood band); undefined entries are empty
 *             fields (NAME.summary.csv). It is computed from
 *             the runs file alone, so a whole sweep and the merge of its shards give the same
 *             bytes; a shard writes no summary (it does not hold every seed).
 *   '#' lines `# srlab VERSION`, `# command: srlab sweep ...` (canonical: every setting, in
 *             column order, without options that cannot change a result), `# spec: PATH` (if
 *             any), `# date: YYYY-MM-DDTHH:MM:SSZ`, `# format: bf16 (...)` when implied (see
 *             Settings), `# seeds: ...`, `# runs: R (P grid points x
 *             S seeds)`, and `# shard: I/N` for a shard. A shard's rows file also carries
 *             `# rows per run: C C*K ...`, the number of rows of each of its runs in run order
 *             (C*K: K runs of C rows each), which srl_sweep_merge checks its rows against.
 *             A file stored as a member of a set (the command line's rows, runs and summary
 *             files, written as one transaction: src/cli/set.h) ends its '#' lines with
 *             `# set: HEX`, the same in every member; the functions here ignore that line (it is
 *             neither compared nor copied into what they write: a merged file or a summary is
 *             the member of a set of its own).
 *
 * Journal (srl_sweep_journal_*): what makes a sweep resumable. The caller keeps an append-only
 * text (a file beside the output): its start, written before any run, then one entry per
 * finished run, appended as the run is delivered, in completion order. Read back, it tells which
 * runs are done and whether it belongs to a given sweep, and it holds the rows and runs files,
 * assembled in run order. An entry cut short by kill -9, or damaged, is detected (lengths and a
 * checksum) and ignored with everything after it. Its format is the library's. Kept in memory,
 * the same text is how a caller without files collects the records of a sweep. */
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

/* The start of a set's stamp line (see Files, '#' lines). */
#define SRL_SWEEP_SET_LINE "# set: "

/* ---- sweeps ---- */

typedef struct srl_sweep_setting {
    const char *key;    /* "lr", "problem", "seeds", "zip", ... */
    const char *value;  /* the text */
    const char *origin; /* where the user wrote it, for messages ("--lr", "x.ini:12"); NULL: key */
} srl_sweep_setting;

typedef struct srl_sweep srl_sweep;

/* Parse and check the settings against `runners` (NULL-terminated; NULL: the registry) and expand
 * the grid. Messages start with the origin of the offending setting. A value holding a control
 * character is refused (values are text on one line). The values of a format or rounding key
 * (srl_config_canonical) are kept under their one name, so "bfloat16" and "[p=8,emax=127]" are
 * "bf16" in every output, and two spellings of one value are one run given twice (refused,
 * naming both). */
int srl_sweep_new(srl_sweep **out, const srl_sweep_setting *settings, size_t n,
                  const srl_runner *const *runners, srl_err *err) SRL_WUR;
void srl_sweep_free(srl_sweep *s); /* NULL-safe */

/* The number of runs (grid points x seeds); runs are numbered 0 .. nruns - 1 (see Order). */
size_t srl_sweep_nruns(const srl_sweep *s);
/* The canonical command line, "srlab sweep --command train --problem ..." (shell-quoted). */
const char *srl_sweep_command(const srl_sweep *s);

/* Axis columns (without `run`; the last is seed): names, and the value of column i in run
 * `run` (NULL when either is out of range). */
size_t srl_sweep_naxes(const srl_sweep *s);
const char *srl_sweep_axis_name(const srl_sweep *s, size_t i);
const char *srl_sweep_axis_value(const srl_sweep *s, size_t run, size_t i);

/* The values the setting `key` takes, as parsed (a comma list split, brackets removed, ranges
 * expanded; one value for a constant setting), their count in *n; NULL with *n = 0 when no
 * setting names key. */
const char *const *srl_sweep_values(const srl_sweep *s, const char *key, size_t *n);

/* Warnings about the grid, each line ending in '\n' ("" when none): a requested rounding that
 * cannot change anything (training runs whose weight format holds every value the update writes
 * into it: fp32 weights under an fp32 update, for instance). */
const char *srl_sweep_warnings(const srl_sweep *s);

/* An upper bound of the rows the sweep's rows file holds (srl_run_rows_bound summed over its
 * runs, saturating at UINT64_MAX), known before any run; *largest is the run with the most,
 * *most its bound. */
uint64_t srl_sweep_rows_bound(const srl_sweep *s, size_t *largest, uint64_t *most);

/* "I/N" with 0 <= I < N: the runs whose number is I modulo N. */
int srl_sweep_parse_shard(const char *text, size_t *i, size_t *n, srl_err *err) SRL_WUR;

/* Validation runs (see Columns), in parallel on up to nthreads threads; then the columns. Needed
 * before running and before the journal. */
int srl_sweep_prepare(srl_sweep *s, int nthreads, srl_err *err) SRL_WUR;

typedef struct srl_sweep_meta {
    const char *date;  /* "2026-01-01T00:00:00Z" */
    const char *spec;  /* spec file as the user named it, or NULL */
    bool quick;        /* the spec's [quick] section applied */
    size_t shard_i, shard_n; /* shard_n == 0: not a shard */
} srl_sweep_meta;

/* The '#' lines of the files, each ending in '\n'; malloc'd. */
int srl_sweep_preamble(const srl_sweep *s, const srl_sweep_meta *m, char **out) SRL_WUR;

/* ---- runs ---- */

/* A finished run, as srl_sweep_execute delivers it (valid during the call only). */
typedef struct srl_sweep_record {
    size_t run;
    char *rows;         /* the run's lines of the rows file, each ending in '\n' */
    size_t rows_len;
    char *summary;      /* the run's line of the runs file, ending in '\n' */
    size_t summary_len;
    bool diverged;      /* a diverged run is a result, not an error */
    char note[256];     /* the runner's note, or empty */
} srl_sweep_record;

/* Called once per finished run, one call at a time, in completion order. Non-zero stops the
 * sweep (runs in flight finish; their records are not delivered) and is returned. */
typedef int (*srl_sweep_done_fn)(void *ctx, const srl_sweep_record *rec);

/* Run the listed runs (after prepare) on nthreads threads (runs are the parallel unit; nested
 * parallel regions run on one thread, which cannot change a result). On a run's failure the
 * sweep stops, *failed (if not NULL) is the lowest failed run, and its status is returned with
 * the runner's message prefixed by the run. */
int srl_sweep_execute(const srl_sweep *s, const size_t *runs, size_t n, int nthreads,
                      srl_sweep_done_fn done, void *ctx, size_t *failed, srl_err *err) SRL_WUR;

/* ---- journal ---- */

/* The journal's start for sweep s (after prepare) with `preamble` (srl_sweep_preamble's), and
 * the entry of a finished run: malloc'd texts (*len bytes) to write and append. SRL_EINVAL
 * before prepare, SRL_ENOMEM. */
int srl_sweep_journal_start(const srl_sweep *s, const char *preamble, char **out,
                            size_t *len) SRL_WUR;
int srl_sweep_journal_entry(const srl_sweep_record *rec, char **out, size_t *len) SRL_WUR;

typedef struct srl_sweep_journal srl_sweep_journal;

/* Read a journal back. *out is NULL (and the status SRL_OK) when the text holds no complete
 * start: it was cut before any run finished (start over). `text` must outlive *out. Errors: a
 * text that is not a journal, a damaged start. */
int srl_sweep_journal_read(srl_sweep_journal **out, const char *text, size_t len,
                           srl_err *err) SRL_WUR;
void srl_sweep_journal_free(srl_sweep_journal *j); /* NULL-safe */

/* The length up to the end of the last record that verifies: bytes beyond it are an entry torn
 * by an interruption or damaged (cut the file to this length before appending to it). A damaged
 * record before it is skipped, and every record after it that verifies is kept. */
size_t srl_sweep_journal_valid_len(const srl_sweep_journal *j);
/* What reading dropped, one line per record ("the record of run 7 at line 57 (812 bytes): its
 * checksum does not match its contents", "a record cut short by the interruption ..."), each
 * ending in '\n'; "" when nothing was. */
const char *srl_sweep_journal_damage(const srl_sweep_journal *j);
/* How many runs the journal holds, and its preamble (the '#' lines the sweep's outputs start
 * with), for progress reports such as `srlab sweep --slurm-status`. */
size_t srl_sweep_journal_count(const srl_sweep_journal *j);
const char *srl_sweep_journal_preamble(const srl_sweep_journal *j);
/* Whether run `run` is in the journal (a run to skip when resuming). */
bool srl_sweep_journal_has(const srl_sweep_journal *j, size_t run);
/* The date of the journal's preamble into buf (a resumed sweep keeps it); false when there is
 * none or it does not fit in len bytes with its NUL. */
bool srl_sweep_journal_date(const srl_sweep_journal *j, char *buf, size_t len);
/* Whether the journal belongs to sweep s (after prepare) with `preamble`: 0 when its preamble is
 * that one but for the date line and its columns are s's; else the 1-based number of the first
 * differing preamble line (1 for the columns) and the differing texts, the journal's in
 * `theirs` and this sweep's in `ours` (either may be "(missing)"). */
size_t srl_sweep_journal_differs(const srl_sweep_journal *j, const srl_sweep *s,
                                 const char *preamble, char *theirs, size_t tlen, char *ours,
                                 size_t olen);

/* The rows file and the runs file of the listed runs (in the order given, normally every run
 * of the sweep or of one shard in increasing order) from the journal, each starting with
 * `preamble` and its column line: malloc'd texts of *len bytes. Errors name a listed run the
 * journal does not hold. */
int srl_sweep_journal_rows(const srl_sweep_journal *j, const srl_sweep *s,
                           const char *preamble, const size_t *runs, size_t n, char **out,
                           size_t *len, srl_err *err) SRL_WUR;
int srl_sweep_journal_runs(const srl_sweep_journal *j, const srl_sweep *s,
                           const char *preamble, const size_t *runs, size_t n, char **out,
                           size_t *len, srl_err *err) SRL_WUR;
/* The `# rows per run: ...` line (see Files, '#' lines; with its '\n') of the listed runs (a
 * shard's, in increasing order), malloc'd into *line; the rows file of a shard carries it in its
 * preamble. SRL_EINVAL names a run the journal does not hold. */
int srl_sweep_journal_row_counts(const srl_sweep_journal *j, const size_t *runs, size_t n,
                                 char **line, srl_err *err) SRL_WUR;

/* ---- merge ---- */

typedef struct srl_sweep_text {
    const char *name; /* for messages */
    const char *data;
    size_t len;
} srl_sweep_text;

/* Join shard files (every shard of one sweep, each once, in any order) into the file the whole
 * sweep would have written: rows files (runs false) or runs files (true: one line per run, every
 * run of the sweep). Refuses files of different sweeps, naming the first differing '#' line; the
 * date is the earliest shard's. Proves every shard complete: a runs file must hold each run of its
 * shard once, and a rows file exactly the rows its `# rows per run:` line counts for each run
 * (a shard without that line is refused); a missing run, a cut tail or a repeated line is refused
 * naming the file, its shard and the run, and so is a run whose rows are out of order (the
 * first metric column going down). Every file must be text: a NUL byte or a CR (a copy that
 * converted the lines to CR LF) is refused, naming the file and its line. */
int srl_sweep_merge(const srl_sweep_text *files, size_t n, bool runs, char **out,
                    size_t *len, srl_err *err) SRL_WUR;

/* The summary file (see Files) of the runs file of a whole sweep (every run in order, not a
 * shard's: refused), with the same '#' lines: malloc'd text of *len bytes. */
int srl_sweep_summary(const srl_sweep_text *runs, char **out, size_t *len, srl_err *err) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
