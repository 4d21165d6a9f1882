/* src/cli/batch.h: what `srlab round` and `srlab op` share (src/cli/batch.c).
 *
 * Both commands take the same options (-f, -r, --seed, --rng, --samples, --compact, --batch, -o,
 * --comments, --quiet), refuse the same combinations, echo their seed the same way, and have the
 * same two faces:
 *   the teaching view  arguments on the command line, explained on standard output (buffered,
 *                      printed only when complete); --samples repeats the rounding N times with
 *                      draws from the stream derived from (seed, stream 0) with the key
 *                      "CMD --samples", and tests what it saw against p_up;
 *   --batch            one data line of standard input in, one CSV row out; data line k (from 0)
 *                      uses draw k of stream 0 of the seed, so the output is a pure function of
 *                      the input and the seed; nothing is written unless every line is valid.
 * The commands supply what differs: their positional arguments, how a data line becomes a row,
 * and the explanation itself (src/cli/teach.h). */
#ifndef SRL_CLI_BATCH_H
#define SRL_CLI_BATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "srlab/mx.h"

/* The options of a command, parsed. */
typedef struct cli_batch {
    const char *cmd;     /* "round", "op": messages and the --samples key */
    srl_format f;        /* -f (default bf16); with a block format its element format */
    bool is_mx;          /* -f named a block format (srlab/mx.h) */
    srl_mx_format mx;    /* it */
    srl_mx_rule rule;    /* --scale (default ocp) */
    char scale_opt[48];  /* --scale as the user spelled it, or "" */
    srl_rounding m;      /* -r (default rn) */
    char mode[32];       /* canonical name of m */
    bool stoch;          /* m is stochastic */
    uint64_t seed;       /* --seed (default 1) */
    srl_rng_kind kind;   /* --rng (default pcg32) */
    uint64_t samples;    /* --samples N; 0: none */
    bool batch, comments, quiet;
    bool compact;        /* --compact: the teaching view in 80 columns with short numbers */
    const char *path;    /* -o FILE, or NULL */
    char out_opt[48];    /* -o as the user spelled it */
    char only_batch[48]; /* the last option given that applies only to --batch, or "" */
    char **pos;          /* the positional arguments, in order (pointers into argv) */
    int npos;
} cli_batch;

enum { CLI_BATCH_HELP = -1 };

/* Parse argv (argv[0] is the command) into *b; --samples accepts 1..max_samples. Returns 0,
 * CLI_BATCH_HELP when --help or -h came first (the caller prints its help), or an exit status
 * after a message. Free b->pos with cli_batch_free whatever it returns. */
int cli_batch_parse(cli_batch *b, const char *cmd, uint64_t max_samples, int argc, char **argv);
void cli_batch_free(cli_batch *b);

/* The combinations both commands refuse: --batch with `ninputs` inputs on the command line
 * (called `inputs` in the message: "numbers", "operands"), --samples with --batch, an option of
 * --batch without it. Returns 0 or an exit status after a message. */
int cli_batch_check(const cli_batch *b, const char *inputs, int ninputs);

/* ---- the teaching view ---- */

/* Write the view into buffered standard output: `write` returns 0 (the view is printed) or an
 * exit status after a message (nothing is printed). */
typedef int (*cli_batch_view_fn)(FILE *o, const cli_batch *b, void *ctx);
int cli_batch_view(const cli_batch *b, cli_batch_view_fn write, void *ctx);
/* The "format" and "rounding" lines at the top of the view; with --compact one line: format,
 * mode and, when stochastic, the seed. */
void cli_batch_print_mode(FILE *o, const cli_batch *b);
/* The "seed" line, when the mode is stochastic or --samples is given: `uses` says which draw
 * the view uses ("the operation uses draw 0 of stream 0"). */
void cli_batch_print_seed(FILE *o, const cli_batch *b, const char *uses);

/* --samples: the stream its draws come from, derived from (seed, stream 0) with the key
 * "CMD --samples". */
void cli_batch_samples_stream(const cli_batch *b, srl_rng *s);

/* What --samples saw, against what the mode promises. */
typedef struct cli_batch_tally {
    const char *what;     /* what was repeated: "roundings", "operations" */
    const char *sym;      /* the exact value's name: "x", "r" */
    uint64_t first;       /* the first draw index of the samples stream used */
    uint64_t nup, nother; /* results equal to ru; results neither rd nor ru (a library bug) */
    double rd, ru, p_up;  /* the neighbours and the mode's probability of ru */
    bool finite;          /* the exact value is finite */
    double ulp;           /* the grid spacing at the exact value */
    double F;             /* (value - rd) / ulp, read only when rd, ru and the value are finite */
} cli_batch_tally;
/* Count one result y of a sample. */
void cli_batch_tally_add(cli_batch_tally *t, double y);
/* The "samples", "up" and "mean" lines: the frequency of ru and the sample mean against p_up
 * and the mode's E[result], with 95% Clopper-Pearson intervals; with --compact two short lines,
 * the frequency only. */
void cli_batch_print_samples(FILE *o, const cli_batch *b, const cli_batch_tally *t);

/* ---- --batch ---- */

/* One data line: `text` (trimmed, not empty) is the line, `what` names it in messages ("line
 * 3"); compute it with the stream r (already at draw k for data line k) and write its CSV row
 * to o. Returns 0 or an exit status after a message. */
typedef int (*cli_batch_row_fn)(FILE *o, const cli_batch *b, char *text, const char *what,
                                srl_rng *r, void *ctx);
/* Read standard input to its end and write the CSV (-o FILE or standard output, atomically):
 * with --comments the '#' lines (version, command, seed), then `header` (its line), then a row
 * per data line. Afterwards, for a stochastic mode and without --quiet, the seed line on
 * standard error, with the number of lines when `count_lines`. Returns 0 or an exit status. */
/* end (may be NULL) runs after the last data line, before the output is committed (a command
 * that groups lines writes its last group there); it returns 0 or an exit status. */
typedef int (*cli_batch_end_fn)(FILE *o, const cli_batch *b, void *ctx);
int cli_batch_run(const cli_batch *b, const char *header, cli_batch_row_fn row,
                  cli_batch_end_fn end, void *ctx, bool count_lines, int argc, char **argv);

#endif
