/* src/cli/cli.h: the framework every srlab command is written with.
 *
 * The srlab command only turns arguments into library calls and results into text, files and
 * exit statuses (docs/design.md §10); the library never prints or exits. Conventions:
 *
 *   Commands   one file per command, src/cli/cmd_NAME.c, defining `int cmd_NAME(int argc,
 *              char **argv)` (prototype below) and registered by one row of the table in
 *              src/cli/main.c (name, function, one-line summary) and one line in
 *              src/cli/meson.build. argv[0] is the command's name; the function returns the exit
 *              status and never calls exit().
 *   Options    parsed with cli_args_next() from a table of cli_opt: `--name VALUE`,
 *              `--name=VALUE`, `-x VALUE`, `-xVALUE`, flags, `--` ends the options. `--help` and
 *              `-h` are reserved everywhere and make the command print its help (with at least one
 *              example) on stdout and return 0. An argument that looks like a negative number
 *              ("-0.5", "-inf", "-nan") is a positional argument, not an option.
 *   Errors     one line on stderr, `srlab CMD: message`, naming the offending argument, option or
 *              input line (cli_error()). Helpers that validate something return 0 on success or
 *              the exit status after having printed the message, so a command writes
 *              `if ((rc = cli_parse_seed(...))) return rc;`.
 *   Exit       0 success; 1 a check failed (reserved for `srlab check`); 2 bad input or usage
 *              (anything the user fixes in the command line or the input); 3 the system failed
 *              (writing output, out of memory).
 *   Output     results go through a cli_out: standard output is buffered in memory and written
 *              only on success, and a file (-o FILE) is written to a temporary file in the same
 *              directory and renamed over the target on success (fsync first), so a failed or
 *              interrupted run never leaves a half-written or clobbered file. Open outputs before
 *              doing any work, so a bad path fails fast.
 *   Numbers    machine outputs use C99 hex floats (cli_fmt_hex, exact) or 17 significant digits
 *              (cli_fmt_g17, round-trips); CSV fields go through cli_csv_field (RFC 4180).
 *   Randomness every output that involves randomness echoes the seed (and the generator kind).
 *
 * Mutable global state: only the list of temporary files a signal handler removes on SIGINT,
 * SIGTERM and SIGHUP (cli_util.c). */
#ifndef SRL_CLI_H
#define SRL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "srlab/format.h"
#include "srlab/number.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

/* ---- exit statuses ---- */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAIL = 1,  /* a check failed (srlab check) */
    CLI_EXIT_USAGE = 2, /* bad input or usage */
    CLI_EXIT_SYSTEM = 3 /* I/O error, out of memory */
};

/* ---- commands (one file each; register them in main.c and meson.build) ---- */
int cmd_formats(int argc, char **argv);
int cmd_round(int argc, char **argv);
int cmd_op(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* ---- messages ---- */

/* Print "srlab CMD: message\n" on stderr; returns CLI_EXIT_USAGE. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same line for a failure of the system; returns CLI_EXIT_SYSTEM. */
int cli_sys_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a command's help text on stdout; returns CLI_EXIT_OK (or CLI_EXIT_SYSTEM if stdout
 * cannot be written). */
int cli_help(const char *text);

/* Copy user text s (slen bytes) into buf for a message: at most `max` characters, then "..." and
 * the total length; control characters shown as '?'. Returns buf. */
#define CLI_QUOTE_MAX 40
#define CLI_QUOTE_LEN (4 * CLI_QUOTE_MAX + 64)
const char *cli_quote(char *buf, size_t len, const char *s, size_t slen, size_t max);

/* ---- options ---- */

typedef struct cli_opt {
    const char *name; /* long name without "--"; NULL ends the table */
    char letter;      /* short name, or 0 */
    const char *arg;  /* placeholder of the value ("FMT"), or NULL for a flag */
} cli_opt;

typedef struct cli_args {
    const char *cmd;
    const cli_opt *opts;
    int argc;
    char **argv;
    int i;            /* next element of argv */
    bool positional;  /* after "--" */
    const char *val;  /* the value of the option, or the positional argument */
    char opt[48];     /* the option as the user spelled it ("-f", "--format"), for messages */
} cli_args;

enum {
    CLI_ARGS_DONE = -1,       /* no more arguments */
    CLI_ARGS_POSITIONAL = -2, /* a positional argument, in a->val */
    CLI_ARGS_HELP = -3,       /* --help or -h */
    CLI_ARGS_BAD = -4         /* an unknown option, a missing value, ...: message printed */
};

/* argv[0] is the command's name and is skipped. */
void cli_args_init(cli_args *a, const char *cmd, const cli_opt *opts, int argc, char **argv);
/* The index of the next option in opts (its value, if any, in a->val), or a CLI_ARGS_* code. */
int cli_args_next(cli_args *a);

/* ---- strict parsers: 0, or an exit status after one message naming `what` ----
 * `what` is how the user knows the argument ("--samples", "line 17", or NULL for a positional
 * argument); messages read "srlab CMD: WHAT: 'TEXT' is not ...". */

/* A decimal integer in [min, max] (digits with an optional sign; no spaces, no exponent). */
int cli_parse_int(const char *cmd, const char *what, const char *s, long long min, long long max,
                  long long *out);
/* A count in [min, max], min >= 0 (digits only). */
int cli_parse_count(const char *cmd, const char *what, const char *s, uint64_t min, uint64_t max,
                    uint64_t *out);
/* A seed: any 64-bit unsigned integer, decimal or 0x-prefixed hexadecimal. */
int cli_parse_seed(const char *cmd, const char *what, const char *s, uint64_t *out);
/* A finite binary64 value written in decimal or as a C99 hex float (strtod; the nearest binary64
 * of the text); NaN, infinities and values beyond binary64's range are rejected. */
int cli_parse_real(const char *cmd, const char *what, const char *s, double *out);
/* Any binary64 number, as srlab's rounding commands read them: decimal, hex float, "inf",
 * "-inf", "nan" (strtod's spellings); text beyond binary64's range gives +-inf or +-0, its nearest
 * binary64. At most CLI_NUMBER_MAX characters. */
#define CLI_NUMBER_MAX SRL_NUMBER_MAX
int cli_parse_number(const char *cmd, const char *what, const char *s, double *out);
/* Is the text s (already accepted by cli_parse_number as x) exactly the binary64 number x?
 * Decided exactly with MPFR: 1 when exact; 0 when not, with x - text written into gap
 * (CLI_NUM_LEN bytes) to 3 significant digits ("+5.55e-18"; empty when the text overflows
 * binary64 and x is +-inf). */
int cli_number_exact(const char *s, double x, char *gap);

/* A format (preset or custom spec), a rounding mode, a generator kind ("pcg32", "pcg64");
 * messages carry the library's sentence. */
int cli_parse_format(const char *cmd, const char *what, const char *s, srl_format *f);
int cli_parse_rounding(const char *cmd, const char *what, const char *s, srl_rounding *m);
int cli_parse_rng_kind(const char *cmd, const char *what, const char *s, srl_rng_kind *k);
const char *cli_rng_kind_name(srl_rng_kind k);

/* Print the command line as "srlab ARG..." (argv[0] is the command's name), quoting arguments
 * for a POSIX shell where needed, so it can be pasted back: for `# command:` lines of outputs. */
void cli_fprint_command(FILE *fp, int argc, char **argv);

/* ---- number formatting ---- */
#define CLI_NUM_LEN 48     /* enough for every format below but cli_fmt_exact */
#define CLI_EXACT_LEN 1200 /* enough for the exact decimal of any binary64 number */

/* C99 hex float as glibc prints it ("0x1.8p-3", "nan", "-inf"): exact; for machine output. */
const char *cli_fmt_hex(char *buf, double x);
/* Hex float with a normalised significand even for subnormals ("0x1p-1074"): for people. */
const char *cli_fmt_hexn(char *buf, double x);
/* "%.17g": 17 significant digits, enough to round-trip any binary64 number. */
const char *cli_fmt_g17(char *buf, double x);
/* The shortest "%.Ng" (N <= 17) that reads back as x: for people. */
const char *cli_fmt_short(char *buf, double x);
/* The exact decimal value with all its digits (positional for 1e-5 <= |x| < 1e21, otherwise
 * d.ddd...e+NN), trailing zeros removed; "nan", "inf", "-inf". buf holds CLI_EXACT_LEN. */
const char *cli_fmt_exact(char *buf, double x);

/* One CSV field per RFC 4180: quoted when it holds a comma, a double quote, CR or LF, with inner
 * double quotes doubled. */
void cli_csv_field(FILE *fp, const char *s);

/* s as a gnuplot single-quoted string ('' inside), for scripts srlab writes (src/cli/cmd_plot.c). */
void cli_gp_quote(FILE *fp, const char *s);

/* printf into a malloc'd string; NULL when out of memory. */
char *cli_alloc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- atomic outputs ---- */
typedef struct cli_out {
    const char *cmd;
    FILE *fp;     /* write here */
    char *path;   /* destination; NULL for standard output */
    char *tmp;    /* the temporary file next to it */
    char *mem;    /* standard output's buffer (open_memstream) */
    size_t memlen;
    int slot;     /* signal-cleanup slot of tmp, or -1 */
} cli_out;

/* Open an output: path NULL or "-" is standard output (buffered in memory until commit);
 * otherwise a temporary file is created in path's directory. A missing directory, a path that is
 * a directory, or an uncreatable file is reported (naming `what`, e.g. "-o") before any work.
 * Returns 0 or an exit status. */
int cli_out_open(cli_out *o, const char *cmd, const char *what, const char *path);
/* Make the output visible: write the buffer to stdout, or flush, fsync and rename the temporary
 * file over the destination. Returns 0 or an exit status (the temporary file is removed). */
int cli_out_commit(cli_out *o);
/* Discard everything written (remove the temporary file); the destination is untouched.
 * Safe after a failed open or a commit. */
void cli_out_abort(cli_out *o);

#endif
