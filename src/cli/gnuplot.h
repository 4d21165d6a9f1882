/* src/cli/gnuplot.h: how srlab runs gnuplot (srlab plot; srlab demo --plot and --table), in
 * src/cli/gnuplot.c. gnuplot is a programming language that can run commands and open any file
 * (plots/common.gpi lists how), so the rule is (docs/security.md):
 *
 *   values  nothing from a user, a file name or a spec is written into a gnuplot command but a
 *           number re-printed from the double it was parsed into (cli_gp_real), or a string
 *           literal in single quotes whose every character is of a fixed, harmless class
 *           (cli_gp_literal): no quote, backquote, '@', '|', '<', '!', '$', ';', backslash or
 *           control character can reach it;
 *   files   every file gnuplot opens is in a private folder (cli_gp: mkdtemp, mode 0700, in
 *           $TMPDIR or /tmp) under a fixed name srlab chose: the scripts, copies of the data,
 *           the drawing. gnuplot starts there without a shell (src/cli/host.h), with -d (no
 *           init file), HOME and TMPDIR set to the folder, no GNUPLOT_*, GNUTERM or XDG_*
 *           variables and /dev/null as its input. Its messages are collected and printed with
 *           the fixed names replaced by the user's; a file in the folder that srlab did not
 *           name is an error; the drawing is checked (its format's first and last bytes) and
 *           copied into the command's output (cli_out); the folder is removed, on a signal too.
 *
 * Nothing here decides what a figure draws: plots/NAME.gp does (src/cli/figure.h reads what it
 * declares), srlab demo writes its own short scripts. */
#ifndef SRL_CLI_GNUPLOT_H
#define SRL_CLI_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/host.h"

/* ---- values ---- */

/* The classes of text that may become a gnuplot string literal. */
typedef enum cli_gp_class {
    CLI_GP_NAME,  /* a column name: letters, digits, _ - + . */
    CLI_GP_LEVEL, /* a value of a column, as a filter names it: a NAME's, and , : = [ ] / */
    CLI_GP_TEXT   /* a title: a LEVEL's, and space ( ) ^ { } *, and UTF-8 letters (U+00A0 up) */
} cli_gp_class;
#define CLI_GP_TEXT_MAX 1000 /* bytes, for every class */

/* Whether s (n bytes) may become a literal of class c: NULL when it may, else a phrase that
 * completes "'S' ..." ("holds '|', which a column name cannot have (letters, ...)"), in why
 * (CLI_GP_WHY_LEN bytes). An empty text is of every class. */
#define CLI_GP_WHY_LEN 160
const char *cli_gp_text_check(const char *s, size_t n, cli_gp_class c, char *why);
/* 's' (n bytes) as a gnuplot single-quoted literal; false (nothing written) when s is not of
 * class c. */
bool cli_gp_literal(FILE *m, const char *s, size_t n, cli_gp_class c);
/* x (finite) as a gnuplot real: "%.17g", with ".0" added to an integral value so that gnuplot
 * never reads it as an integer (1/2 is 0 in gnuplot, 1.0/2 is 0.5). */
void cli_gp_real(FILE *m, double x);

/* A file name given for gnuplot's sake (plot --in, -o and file --set values, demo --plot and
 * --table): NULL, or a phrase completing "'PATH' ..." when a part of it begins with '|' or '<'.
 * srlab never hands such a name to gnuplot (which would run it as a command), but refuses it all
 * the same, so that no command srlab prints, pasted into gnuplot -e, can run anything. */
const char *cli_gp_path_check(const char *path);

/* ---- the private folder ---- */

#define CLI_GP_FILES 24 /* files a folder may name */

typedef struct cli_gp_file {
    char *name;  /* its fixed name in the folder */
    char *shown; /* how messages name it (the user's path), or NULL */
    int slot;    /* its signal-cleanup slot (cli_tmp_register), or -1 */
} cli_gp_file;

typedef struct cli_gp {
    const char *cmd;  /* for messages ("plot") */
    char *dir;        /* the folder, an absolute path */
    int dir_slot;
    cli_gp_file files[CLI_GP_FILES];
    size_t nfiles;
} cli_gp;

/* Make the private folder. Returns 0 or an exit status after a message. */
int cli_gp_open(cli_gp *g, const char *cmd);
/* Write the file `name` (letters, digits, '.', '_', '-'; not starting with '.' or '-') into the
 * folder with len bytes of data. shown: how gnuplot's messages should name it, or NULL. */
int cli_gp_put(cli_gp *g, const char *name, const char *shown, const void *data, size_t len);
/* The CSV text data (len bytes) as gnuplot can read it, malloc'd into *out (*outlen bytes):
 * gnuplot 5.4 cuts a quoted field at its first comma (datafile.c reads a quoted field only up to
 * the separator), so every field is written unquoted and a comma inside one becomes U+201A
 * (SINGLE LOW-9 QUOTATION MARK, which looks like a comma; plots/common.gpi matches it for a comma
 * in where= and turns it back in labels, and cli_gp_run in messages). Comment lines ('#') are
 * copied, after a first comment line of the copy's own. Returns 0; -1 with the line (from 1) in
 * *line and why in *why for what gnuplot would misread: a field holding a double quote, a quoted
 * field that does not end on its line, a NUL byte; or ENOMEM. */
int cli_gp_csv(const char *data, size_t len, char **out, size_t *outlen, size_t *line,
               const char **why);
/* Name a file gnuplot may write into the folder (the drawing, a debug file). */
int cli_gp_expect(cli_gp *g, const char *name, const char *shown);
/* Is `name` a file of the folder now? */
bool cli_gp_has(const cli_gp *g, const char *name);
/* Run `gnuplot -d [-e expr] script` in the folder (script: a file put there; expr: NULL or
 * values made with cli_gp_literal and cli_gp_real) and print its messages. Returns 0 with how
 * it ended in *e, or an exit status after a message (it could not start, or wrote a file the
 * folder does not name). */
int cli_gp_run(cli_gp *g, const char *script, const char *expr, cli_host_exit *e);
/* Check the file `name` gnuplot drew (kind "png", "svg", "pdf": its first and last bytes, which a
 * cut-short drawing lacks; "txt": text ending in a newline) and copy it to `to`. what: how the
 * user named the output ("-o", "--plot"). Returns 0 or an exit status after a message: a drawing
 * missing or cut short on a file system with no room left is exit 3, "No space left on device"
 * (gnuplot exits 0 after a failed write). */
int cli_gp_take(cli_gp *g, const char *name, const char *kind, const char *what, FILE *to);
/* Remove the folder and everything in it. Safe after a failed open. */
void cli_gp_close(cli_gp *g);

#endif
