/* src/cli/help_gen.h: man pages and shell-completion words made from the commands' own texts
 * (src/cli/help_gen.c), for the hidden `srlab help --man [CMD]` and `srlab help --complete WHAT
 * [CMD]` that doc/meson.build and data/srlab.bash use. */
#ifndef SRL_CLI_HELP_GEN_H
#define SRL_CLI_HELP_GEN_H

#include <stdio.h>

/* Run run(argc, argv) with its standard output captured; the text, malloc'd (NULL when it
 * could not be captured), and the status in *rc. */
char *cli_help_capture(int (*run)(int, char **), int argc, char **argv, int *rc);

/* The man page of `name` ("srlab", "srlab-round") in roff: NAME from the summary, SYNOPSIS the
 * help's usage lines, then the rest of the help text as it is, its "word:" lines as sections,
 * and SEE ALSO: `see_also` (roff text), or srlab(1) when it is NULL. */
void cli_help_man(FILE *o, const char *name, const char *summary, const char *version,
                  const char *text, const char *see_also);

/* The completion words of `what`, one a line: formats, modes, problems, experiments (srlab
 * run's problems), trainings (srlab train's), strategies, optimizers, figures, specs, or
 * options (those help_text names). Returns 0, or -1 for an unknown `what`. */
int cli_help_complete(FILE *o, const char *what, const char *help_text);

#endif
