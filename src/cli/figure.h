/* src/cli/figure.h: what a figure script (plots/NAME.gp) declares in its header, read by
 * src/cli/figure.c for srlab plot (the values it accepts, its help), srlab reproduce (a spec's
 * figure lines, checked before any work) and the bash completion.
 *
 * A script names each variable a user may set, with a type from a fixed list, on a header line
 *     # --set NAME=TYPE   what it is (continued on lines "#" followed by three spaces or more)
 * and the columns it cannot do without on a line "# needs: COL COL ...". srlab plot refuses a
 * --set of a variable the script does not declare, and a value that is not of its type, before
 * gnuplot runs; the types say how a value reaches gnuplot (src/cli/gnuplot.h): as a number, as a
 * checked string literal, or (a file) as a fixed name in gnuplot's private folder. in, out and
 * fmt are srlab plot's own (--in, -o and its extension) and are never declared. */
#ifndef SRL_CLI_FIGURE_H
#define SRL_CLI_FIGURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum cli_fig_type {
    CLI_FIG_NUMBER,  /* a finite number; gnuplot gets a real */
    CLI_FIG_INTEGER, /* a whole number (|n| <= 2^53) */
    CLI_FIG_COLUMN,  /* a column of --in that holds numbers */
    CLI_FIG_METRIC,  /* M, where --in has the column M or M_mean */
    CLI_FIG_COLUMNS, /* columns of --in, comma-separated */
    CLI_FIG_FILTER,  /* COL=VALUE ..., space-separated (a VALUE may be in double quotes) */
    CLI_FIG_TEXT,    /* a text (a title) */
    CLI_FIG_INFILE,  /* a file srlab reads and hands to gnuplot ("" for none) */
    CLI_FIG_OUTFILE, /* a file srlab writes from what gnuplot wrote */
    CLI_FIG_NTYPES
} cli_fig_type;

#define CLI_FIG_VARS 32     /* variables a script may declare */
#define CLI_FIG_NAME_MAX 31 /* the longest variable name */

typedef struct cli_fig_var {
    char name[CLI_FIG_NAME_MAX + 1];
    cli_fig_type type;
    char *desc; /* the description, its lines joined by single spaces */
} cli_fig_var;

typedef struct cli_fig {
    cli_fig_var vars[CLI_FIG_VARS];
    size_t nvars;
    char *needs; /* the names of the "# needs:" line, space-separated ("" without one) */
} cli_fig;

#define CLI_FIG_WHY_LEN 200

/* Read the declarations of the script at path. Returns 0; or -1 with why it cannot (it cannot be
 * read, a declaration is malformed, names an unknown type, repeats a name or declares in, out or
 * fmt, "line 12: ...") in why (CLI_FIG_WHY_LEN bytes). f is empty after a failure. */
int cli_fig_read(cli_fig *f, const char *path, char *why);
void cli_fig_free(cli_fig *f);
/* The variable `name` (n bytes) of f, or NULL. */
const cli_fig_var *cli_fig_find(const cli_fig *f, const char *name, size_t n);

/* The type's name as declarations spell it ("NUMBER"), and what a value of it is (for help). */
const char *cli_fig_type_name(cli_fig_type t);
const char *cli_fig_type_help(cli_fig_type t);

/* Whether value has the form of v's type, without the data (a column's name is checked, not that
 * --in has it): NULL, or a phrase completing "'VALUE' ..." in why (CLI_FIG_WHY_LEN bytes). */
const char *cli_fig_check(const cli_fig_var *v, const char *value, char *why);
/* The k-th column name (from 0) that value (checked) refers to, its length in *n; NULL after the
 * last. COLUMN and METRIC: the value; COLUMNS: each name; FILTER: each COL; others: none. */
const char *cli_fig_column(const cli_fig_var *v, const char *value, size_t k, size_t *n);
/* Write value (checked; not a file type) as gnuplot reads it: a real or an integer for the
 * numbers, else a string literal (a FILTER as "COL=VALUE COL=VALUE", its quotes undone). */
void cli_fig_render(FILE *m, const cli_fig_var *v, const char *value);

#endif
