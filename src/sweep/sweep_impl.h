/* src/sweep/sweep_impl.h: what the sweep files share (private to the library; the contract is
 * include/srlab/sweep.h).
 *
 *   text.c     growable text (srl__sw_text), CSV fields, shell words, numbers in and out, lines
 *   values.c   an axis's values: lists, bracketed values and ranges (srl__sw_values_parse)
 *   grid.c     struct srl_sweep from the settings: axes, seeds, zip groups, dimensions, columns,
 *              the canonical command; the value, the runner and the config of a run
 *   resolve.c  the resolved weight format and rounding of training runs; inert roundings
 *   prepare.c  validation runs, the metric columns, the column lines, the preamble and the
 *              comparison of two preambles (srl__sw_preamble_diff: what makes two files belong
 *              to one sweep)
 *   execute.c  one run into a record (srl__sw_run), the runs of a list in parallel
 *   summary.c  the summary file from a runs file: one line per grid point, statistics over seeds
 *   journal.c  the journal's text format, reading it back, the files it holds
 *   merge.c    joining shards
 *   compare.c  paired comparisons of a runs file (include/srlab/compare.h, srlab compare)
 *
 * The journal (written by srl_sweep_journal_start and _entry, read by srl__sw_journal_parse):
 *   header   "srlab-sweep-journal 1\n", the preamble ('#' lines), the rows column line, the
 *            runs column line, "@begin\n";
 *   records  one per finished run, in completion order:
 *            "@run RUN rows BYTES summary BYTES fnv HEX16\n", then the run's rows (BYTES bytes)
 *            and its line of the runs file (BYTES bytes); HEX16 is the FNV-1a checksum (srlab/rng.h) of
 *            RUN in decimal, the rows and the summary line, as 16 lowercase hex digits.
 * A record cut by kill -9, or damaged, fails its lengths or its checksum. A damaged record is
 * dropped and reading goes on at the next record that verifies (a line "@run ..." whose lengths
 * and checksum hold), so one flipped digit costs one run; what was dropped and why is in
 * `damage`. A record cut short with nothing valid after it is the torn tail (good_len ends before
 * it: the file is cut there before appending). A torn header means no run was recorded. A run
 * recorded twice keeps its first record. */
#ifndef SRL_SWEEP_IMPL_H
#define SRL_SWEEP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/run.h"
#include "srlab/sweep.h"

#define SRL__SW_MAX_VALUES 1000000u /* values of one axis */
#define SRL__SW_MAX_RUNS 100000000u /* runs of one sweep */

/* ---- text (text.c) ---- */

/* Growable text, always NUL-terminated once non-empty; an allocation failure sets oom and makes
 * every later call a no-op, so builders check once at the end (srl__sw_take). */
typedef struct srl__sw_text {
    char *p;
    size_t len, cap;
    bool oom;
} srl__sw_text;

void srl__sw_put(srl__sw_text *b, const char *s, size_t n);
void srl__sw_puts(srl__sw_text *b, const char *s);
void srl__sw_putc(srl__sw_text *b, char c);
void srl__sw_printf(srl__sw_text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One CSV text field (srl_csv_field, srlab/rows.h: RFC 4180, and OWASP's guard). */
void srl__sw_put_csv(srl__sw_text *b, const char *s);
/* One shell word, quoted unless plain, for a command line that can be pasted back. */
void srl__sw_put_shell(srl__sw_text *b, const char *s);
/* Take the text (the caller frees it; "" when nothing was put); NULL after an allocation
 * failure, which also frees what there was. */
char *srl__sw_take(srl__sw_text *b);

/* malloc'd copies; NULL when out of memory. */
char *srl__sw_dupn(const char *s, size_t n);
char *srl__sw_dup(const char *s);

/* Room for one formatted number. */
#define SRL__SW_NUM_LEN 48
/* "%.17g": every binary64 reads back exactly (as the rows of `srlab train`). */
void srl__sw_fmt_num(char buf[SRL__SW_NUM_LEN], double x);
/* The whole of s (n bytes) as a finite binary64 (srl_number_double, srlab/number.h); false when
 * it is not one, or longer than 200 bytes. */
bool srl__sw_number(const char *s, size_t n, double *out);
/* The line at *pos of t (without its '\n'), and *pos past it; false when no complete line is
 * left. */
bool srl__sw_next_line(const char *t, size_t len, size_t *pos, const char **line, size_t *ll);
/* Field offsets of one CSV line (without its newline): starts[k] = start, ends[k] = end (the
 * raw text, quotes included). Returns the number of fields (at most max), SRL__SW_CSV_MANY when
 * the line has more than max, or SRL__SW_CSV_BAD when it is malformed (a quote that does not
 * close, text after a closing quote). */
#define SRL__SW_CSV_BAD SIZE_MAX
#define SRL__SW_CSV_MANY (SIZE_MAX - 1)
size_t srl__sw_csv_split(const char *p, size_t n, size_t *starts, size_t *ends, size_t max);
/* Is the line l (ll bytes, without '\n') a set's stamp, SRL_SWEEP_SET_LINE...? */
bool srl__sw_set_line(const char *l, size_t ll);
/* The '#' lines t[0 .. pre_end) without a set's stamp line: what an output made from a file
 * repeats of it (include/srlab/sweep.h, '#' lines). */
void srl__sw_put_pre(srl__sw_text *o, const char *t, size_t pre_end);
/* A data line's field count k (srl__sw_csv_split's result) against the want of its column line,
 * for a message: "has 3 fields where the column line has 4", "has more fields than the 4 of the
 * column line", "is not a CSV line (...)". */
const char *srl__sw_fields_why(char buf[160], size_t k, size_t want);
/* The bytes a sweep file (rows, runs, summary, shard) never holds, refused before any reading:
 * a NUL (every reader after it would stop there), a CR (srlab ends lines with LF alone and its
 * values hold no control character, so a CR is a conversion to CR LF on the way, or a foreign
 * file). SRL_EPARSE names the file and the line. */
int srl__sw_check_text(const srl_sweep_text *t, srl_err *err) SRL_WUR;
/* The number of '\n' in [t, t + n). */
size_t srl__sw_count_lines(const char *t, size_t n);
/* The numbers of the "# runs: R (P grid points x S seeds)" line at p, for merge and summary
 * alike: true when the line has them and they describe a sweep, R = P S exactly (no
 * wrap-around) with P, S >= 1. */
bool srl__sw_runs_line(const char *p, unsigned long long *R, unsigned long long *P,
                       unsigned long long *S);

/* The '#' lines [t, t + n) of a runs file read as a whole sweep's: its "# runs:" numbers into
 * R, P, S; SRL_EINVAL for a shard's file ("merge the shards first"), SRL_EPARSE when there is no
 * valid '# runs:' line, or when R exceeds `most` (no more runs than the text has lines). Messages
 * start with name. */
int srl__sw_whole_runs(const char *t, size_t n, const char *name, unsigned long long most,
                       unsigned long long *R, unsigned long long *P, unsigned long long *S,
                       srl_err *err) SRL_WUR;

/* ---- values (values.c) ---- */

/* The values of one axis, and its canonical text (the pieces as written, joined by ','). */
typedef struct srl__sw_values {
    char **v;
    size_t n, cap;
    srl__sw_text canon;
} srl__sw_values;

/* Split text into values (include/srlab/sweep.h: one value, a comma list, [bracketed] values,
 * ranges a:b:log:n and a:b:lin:n). *l is filled even on failure: free it either way. Errors
 * name the text. */
int srl__sw_values_parse(const char *text, srl__sw_values *l, srl_err *err);
void srl__sw_values_free(srl__sw_values *l);
/* Free an array of n malloc'd strings (NULL-safe). */
void srl__sw_strings_free(char **v, size_t n);

/* ---- the grid (grid.c) ---- */

typedef struct srl__sw_axis {
    char *key, *origin, *canon; /* canon: the values as written, for the canonical command */
    char **val;
    size_t nval;
    char **orig; /* a format or rounding axis: val[i] as the user spelled it when that is not its
                  * one name (srl_config_canonical), else NULL; orig itself NULL when none is */
    long dim; /* its dimension, or -1 when constant */
} srl__sw_axis;

/* A dimension of the grid: one axis, or the axes of a zip group, varying together. */
typedef struct srl__sw_dim {
    size_t *ax; /* members (axis indices, canonical order) */
    size_t nax, len;
} srl__sw_dim;

typedef struct srl__sw_column {
    char *name;
    long axis; /* index into ax, or -1: a core key no setting names (the runner's default) */
} srl__sw_column;

struct srl_sweep {
    srl_run_kind kind;
    srl__sw_axis *ax; /* canonical order; ax[0] is problem */
    size_t nax;
    const srl_runner **prob; /* runner of each value of ax[0] */
    srl__sw_dim *dims;       /* outermost first */
    size_t ndims;
    char **seeds;
    size_t nseeds;
    srl__sw_column *cols; /* axis columns without run and seed */
    size_t ncols;
    size_t npoints, nruns;
    bool has_target;
    double target;
    char *command, *seeds_text;
    bool implied_format; /* rounding without format or strategy: format = bf16 (added axis) */
    /* the resolved weight format and rounding (resolve.c): one entry per combination of the
     * indices of the dimensions rdims (those holding a strategy key); nres 0: not resolved */
    size_t *rdims, nrdims, nres;
    char **res_fmt, **res_rnd, **res_str; /* format, rounding and strategy columns */
    char *warnings; /* srl_sweep_warnings, or NULL */
    /* after srl_sweep_prepare */
    bool prepared;
    char **met; /* metric columns (the union over the validation runs) */
    srl_col_kind *metk;
    size_t nmet;
    long c_step, c_loss, c_gap; /* the metric columns step, loss, loss_gap, or -1 */
    char *rows_header, *runs_header; /* the column lines of rows and runs, without '\n' */
};

/* The index into a->val of axis a's value in run `run`. */
size_t srl__sw_value_index(const srl_sweep *s, const srl__sw_axis *a, size_t run);
/* The runner of a run. */
const srl_runner *srl__sw_runner(const srl_sweep *s, size_t run);
/* The config of a run (problem, every set key, seed); the caller frees it. SRL_EINVAL for a run
 * out of range, SRL_ENOMEM. */
int srl__sw_config(const srl_sweep *s, size_t run, srl_config **out) SRL_WUR;
/* "problem 'P', KEY=VALUE, ..." for the varying axes of a run (for messages). */
void srl__sw_describe_run(srl__sw_text *b, const srl_sweep *s, size_t run);

/* The resolved weight format and rounding (resolve.c) after the dimensions and seeds are made;
 * then what column col ("format", "rounding" or "strategy": the name of what runs, as
 * srl_strategy_from_config gives it) shows for a run, or NULL when not resolved. */
int srl__sw_resolve(srl_sweep *s, srl_err *err) SRL_WUR;
const char *srl__sw_resolved(const srl_sweep *s, size_t run, const char *col);

/* Whether a column of this kind gets final values and statistics. */
static inline bool srl__sw_numeric(srl_col_kind k)
{
    return k == SRL_COL_NUM || k == SRL_COL_INT;
}

/* ---- the preamble (prepare.c) ---- */

/* Compare two preambles line by line ignoring `# date:`; 0 when equal, else the 1-based number
 * of the first differing line, its text in each (either may be "(missing)") in a and b. */
size_t srl__sw_preamble_diff(const char *pa, const char *pb, char *a, size_t alen, char *b,
                             size_t blen);

/* ---- running (execute.c) ---- */

/* Runs are the parallel unit: nthreads raised to at least 1 and nested parallel regions run on
 * one thread (which cannot change a result). Returns what srl__sw_parallel_end restores. */
int srl__sw_parallel_begin(int *nthreads);
void srl__sw_parallel_end(int levels);

/* Run one run (after prepare) into rec (which the caller frees with srl__sw_record_free). A
 * diverged run is a result, not an error. Errors are the runner's, prefixed with the run. */
int srl__sw_run(const srl_sweep *s, size_t run, srl_sweep_record *rec, srl_err *err) SRL_WUR;
void srl__sw_record_free(srl_sweep_record *rec);

/* ---- the journal (journal.c) ---- */

typedef struct srl__sw_journal_entry {
    size_t run;
    size_t rows_off, rows_len; /* offsets into the parsed text */
    size_t summary_off, summary_len;
} srl__sw_journal_entry;

struct srl_sweep_journal {
    const char *text; /* the caller's text, which the entries point into */
    char *preamble, *rows_header, *runs_header; /* malloc'd copies (headers without '\n') */
    srl__sw_journal_entry *entries; /* in file order; a run at most once (first kept) */
    size_t nentries;
    srl__sw_journal_entry *by_run; /* the entries by increasing run (srl_sweep_journal_read) */
    size_t good_len; /* up to the end of the last valid record; beyond it, a torn or bad tail */
    char *damage;    /* malloc'd: one line per dropped record (srl_sweep_journal_damage), or NULL */
    bool complete_header; /* false: the header itself is torn (no run was recorded) */
};

/* Parse a journal's text into *j (entries point into text). A torn header is not an error
 * (complete_header false); a text that is not a journal, or a damaged header, is. */
int srl__sw_journal_parse(const char *text, size_t len, srl_sweep_journal *j,
                          srl_err *err) SRL_WUR;
/* Free what *j holds (not j). */
void srl__sw_journal_clear(srl_sweep_journal *j);

#endif
