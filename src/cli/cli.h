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
 *   Output     results go through a cli_out (the rule for every output path: "atomic outputs"
 *              below): standard output is buffered in memory and written
 *              only on success, and a file (-o FILE) is written to a temporary file in the same
 *              directory and renamed over the target on success (fsync first), so a failed or
 *              interrupted run never leaves a half-written or clobbered file. Open outputs before
 *              doing any work, so a bad path fails fast. Every write is checked to the end and a
 *              failure names its errno ("checked writes" below). The files of a sweep or a merge
 *              are one set, written as one transaction under a lock (src/cli/set.h).
 *   Numbers    machine outputs use C99 hex floats (cli_fmt_hex, exact) or 17 significant digits
 *              (cli_fmt_g17, round-trips); CSV fields go through cli_csv_field (RFC 4180).
 *   Randomness every output that involves randomness echoes the seed (and the generator kind).
 *
 * Mutable global state: the list of temporary files a signal handler removes on SIGINT,
 * SIGTERM and SIGHUP, the inputs read, and standard output's checked stream (cli_util.c). */
#ifndef SRL_CLI_H
#define SRL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "srlab/format.h"
#include "srlab/mx.h"
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
/* The same line for what is not an error (a warning, a note, a result). */
void cli_note(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every message on stderr goes through these three, which write it as one line of text: the
 * bytes that are not printable text in it -- control characters, bytes that are not UTF-8,
 * characters that are invisible or reorder the text -- are written as escapes ("\x1b",
 * "\u{202e}"), so no input echoed in a message can drive the terminal (a spec value
 * "\x1b[2J" would clear it) or hide or reorder what the message says. */
/* s written to fp with the same escapes (for text that echoes input outside those messages). */
void cli_fputs_text(FILE *fp, const char *s);
/* Print a command's help text on stdout; returns CLI_EXIT_OK (or CLI_EXIT_SYSTEM if stdout
 * cannot be written). */
int cli_help(const char *text);

/* Copy user text s (slen bytes) into buf for a message: at most `max` bytes of it, then "..."
 * and the total length; what is not printable text escaped as in messages (above). Returns
 * buf. */
#define CLI_QUOTE_MAX 40
#define CLI_QUOTE_LEN (4 * CLI_QUOTE_MAX + 64)
const char *cli_quote(char *buf, size_t len, const char *s, size_t slen, size_t max);

/* ---- options ---- */

/* One rule for repeated options, in every command: an option given twice (by either of its
 * names) is refused, "option --x is given twice", exit 2; only an option whose placeholder ends
 * in "..." ("VAR=VALUE...") may be given more than once, each value adding to a list. */
typedef struct cli_opt {
    const char *name; /* long name without "--"; NULL ends the table */
    char letter;      /* short name, or 0 */
    const char *arg;  /* placeholder of the value ("FMT"), or NULL for a flag; "...": repeatable */
} cli_opt;

#define CLI_ARGS_MAX_OPTS 1024 /* options a table may hold (cli_args_init refuses more) */

typedef struct cli_args {
    const char *cmd;
    const cli_opt *opts;
    int argc;
    char **argv;
    int i;            /* next element of argv */
    bool positional;  /* after "--" */
    const char *val;  /* the value of the option, or the positional argument */
    char opt[48];     /* the option as the user spelled it ("-f", "--format"), for messages */
    unsigned char seen[CLI_ARGS_MAX_OPTS / 8]; /* the options given so far (one bit each) */
} cli_args;

enum {
    CLI_ARGS_DONE = -1,       /* no more arguments */
    CLI_ARGS_POSITIONAL = -2, /* a positional argument, in a->val */
    CLI_ARGS_HELP = -3,       /* --help or -h */
    CLI_ARGS_BAD = -4         /* an unknown option, a missing value, ...: message printed */
};

/* argv[0] is the command's name and is skipped. A table of more than CLI_ARGS_MAX_OPTS options
 * is a programming error: every option of it is then reported as CLI_ARGS_BAD. */
void cli_args_init(cli_args *a, const char *cmd, const cli_opt *opts, int argc, char **argv);
/* The index of the next option in opts (its value, if any, in a->val), or a CLI_ARGS_* code;
 * CLI_ARGS_BAD (after the message) for an option given twice that is not repeatable. */
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
/* A block format (srlab/mx.h) and a scale rule ("ocp", "3/4", "ceil"). */
int cli_parse_mx(const char *cmd, const char *what, const char *s, srl_mx_format *f);
int cli_parse_mx_rule(const char *cmd, const char *what, const char *s, srl_mx_rule *r);
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

/* One CSV text field, as srl_csv_field writes it (srlab/rows.h: quoted per RFC 4180; a text
 * that a spreadsheet would take for a formula guarded with a ', per OWASP). */
void cli_csv_field(FILE *fp, const char *s);
/* The bytes cli_csv_field writes for s. */
size_t cli_csv_width(const char *s);

/* printf into a malloc'd string; NULL when out of memory. */
char *cli_alloc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- inputs ----
 * Every file srlab reads (cli_read_file in src/cli/host.c notes it; a file a library call reads,
 * such as train --data, is noted by its command) is remembered by device and inode, so that no
 * output replaces an input whatever its spelling ("./a.csv", a link to it): cli_out_open and
 * cli_out_commit refuse such an output (exit 2). Mutable global state, like the temporary files. */
struct stat;
/* Remember path (st: its stat, or NULL to stat it now; nothing when it does not exist). */
void cli_input_note(const char *path, const struct stat *st);
/* The name under which an input that is the same file as path was read, or NULL. */
const char *cli_input_same(const char *path);

/* ---- checked writes (issue 28, item 3) ----
 * Every write srlab makes is checked to the end -- each write, flush, fsync, close and rename --
 * and a failure is reported with its own errno ("No space left on device"): stdio keeps only a
 * flag, and errno is overwritten by later calls, so the streams srlab writes files and standard
 * output through record the errno of their first failure themselves. */

/* Write all n bytes of buf to fd (EINTR retried); 0, or the errno of the failure. */
int cli_write_all(int fd, const void *buf, size_t n);
/* A stream on fd that records its first error (k must outlive it; fclose closes fd). mode "w",
 * or "w+" to read it back and seek. NULL (errno set) when out of memory. */
typedef struct cli_stream {
    int fd;
    int err; /* errno of the first failed write, read or close; 0 */
} cli_stream;
FILE *cli_stream_open(cli_stream *k, int fd, const char *mode);
/* Flush fp (opened on k); 0 or the errno of its first failure. */
int cli_stream_finish(FILE *fp, cli_stream *k);
/* Standard output as such a stream (main calls it first), and its flush: 0 or the errno. */
void cli_stdout_init(void);
int cli_stdout_flush(void);
/* The folder of path, malloc'd ("." for a bare name; NULL when out of memory). */
char *cli_dir_name(const char *path);
/* Remove the files of path's folder whose name `match` accepts (best effort: a folder that cannot
 * be listed keeps them); for the temporary files a killed srlab left, under a lock. */
void cli_remove_matching(const char *path, bool (*match)(const char *name, const void *ctx),
                         const void *ctx);
/* fsync the folder of path (a rename into it made durable); 0 or the errno (a file system that
 * cannot sync folders is not an error). */
int cli_sync_dir(const char *path);

/* ---- atomic outputs ----
 * The rule for an output path (every file srlab writes goes through cli_out, or through a set,
 * src/cli/set.h):
 *   "-", "/dev/stdout"     standard output, written on success (both spellings, every command;
 *                          docs/reliability.md: a command that writes several files writes its
 *                          main one there and says which);
 *   absent, regular file   a temporary file in the same directory, renamed over it on success
 *                          (keeping the permissions of the file it replaces);
 *   a character device or a FIFO, or a link to one (/dev/null, /dev/stderr, a named pipe)
 *                          written into on success (opened then, never replaced);
 *   any other symbolic link, a directory, a socket, a block device
 *                          refused, exit 2, the message naming the path: srlab never replaces
 *                          a link or a special file;
 *   a file this run read   refused, exit 2 (see inputs above), at open and again at commit. */
typedef struct cli_out {
    const char *cmd;
    const char *what; /* how the user named the output ("-o") */
    FILE *fp;     /* write here */
    char *path;   /* destination; NULL for standard output */
    char *tmp;    /* the temporary file next to it; NULL when written through (device, FIFO) */
    cli_stream *ck; /* the temporary file's checked stream (malloc'd), or NULL */
    char *mem;    /* the buffer of standard output, a device or a FIFO (open_memstream) */
    size_t memlen;
    int slot;     /* signal-cleanup slot of tmp, or -1 */
} cli_out;

/* Is path standard output: NULL (no -o), "-" or "/dev/stdout"? */
bool cli_out_is_stdout(const char *path);
/* Open an output following the rule above: standard output, a device or a FIFO is buffered in
 * memory until commit; otherwise a temporary file is created in path's directory. A missing
 * directory, a path that is a directory, a link, a special file, an input or an uncreatable file
 * is reported (naming `what`, e.g. "-o") before any work. Returns 0 or an exit status. */
int cli_out_open(cli_out *o, const char *cmd, const char *what, const char *path);
/* Flush what was written so far (for a temporary file another program reads before commit);
 * 0, or exit status 3 after the message with the errno. */
int cli_out_flush(cli_out *o);
/* Make the output visible: write the buffer to stdout, or flush, fsync and rename the temporary
 * file over the destination. Returns 0 or an exit status (the temporary file is removed). */
int cli_out_commit(cli_out *o);
/* 0 when o writes a file (a temporary file renamed over path), else an exit status after
 * "WHAT: PATH is not a regular file: WHY": for outputs that need a file (gnuplot draws into one;
 * a sweep writes its runs and summary files beside its rows). */
int cli_out_need_file(const cli_out *o, const char *path, const char *why);
/* The rule for a path that must be a file srlab replaces (absent, or a regular file this run did
 * not read): 0, else exit status 2 after "WHAT: PATH ...: WHY" (standard output, a device, a
 * link, a directory, an input). For the members of a set (src/cli/set.h). */
int cli_out_check_file(const char *cmd, const char *what, const char *path, const char *why);
/* path's folder exists and srlab may create files in it: 0, else exit status 2 after the
 * message (as cli_out_open's). Nothing is created. */
int cli_out_check_dir(const char *cmd, const char *what, const char *path);
/* Remove the temporary files cli_out_open made for path that a killed srlab left (.BASE.tmp-
 * XXXXXX beside it): only under a lock that keeps every other writer of path away (srlab
 * reproduce's folder). */
void cli_out_remove_stale(const char *path);
/* The permissions a file replacing path gets: path's when it is a regular file, else 0666 masked
 * by the umask. */
mode_t cli_out_mode(const char *path);
/* A file written as the work goes, not at the end (a sweep's journal, reproduce's logs): opened
 * for appending into *fd (create: created when absent, else emptied), only when it is a regular
 * file or absent; a link, a FIFO or a device is refused (exit 2, naming `what` and path). It may
 * be a file the run read (a journal resumed). Returns 0 or an exit status. */
int cli_out_append(const char *cmd, const char *what, const char *path, bool create, int *fd);
/* Discard everything written (remove the temporary file); the destination is untouched.
 * Safe after a failed open or a commit. */
void cli_out_abort(cli_out *o);
/* A temporary file (or, once the files in it are, an empty folder) that SIGINT, SIGTERM and SIGHUP
 * remove before the process dies: files first, then folders. Returns its slot (-1 when there is
 * no room: then nothing removes it on a signal); unregister it once it is renamed or removed. */
int cli_tmp_register(const char *path);
void cli_tmp_unregister(int slot);

#endif
