/* src/cli/sweep_cli.h: `srlab sweep` and `srlab merge` with an explicit table of runners.
 *
 * cmd_sweep() is cli_sweep_main(argc, argv, NULL): the registry's runners. A test program passes
 * its own NULL-terminated table to drive the same command, files and messages with small runners
 * of its own (tests/sweep/). */
#ifndef SRL_CLI_SWEEP_H
#define SRL_CLI_SWEEP_H

#include "srlab/run.h"

int cli_sweep_main(int argc, char **argv, const srl_runner *const *runners);

/* The file names that go with an output: "out.csv" -> "out.summary.csv", "out.journal" (a name
 * without ".csv" gets the suffixes appended). malloc'd; NULL when out of memory. */
char *cli_sweep_sibling(const char *out, const char *suffix);

/* Files are read with cli_read_file (src/cli/host.h). */

#endif
