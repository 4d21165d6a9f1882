/* tests/sweep/sweep_testcli.c: `srlab sweep` and `srlab merge` (the very code of
 * src/cli/cmd_sweep.c and cmd_merge.c) with the toy runners of
 * toy_runner.h, for the shell tests that need runs of a controlled length (the kill test). */
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "srlab/run.h"
#include "cli/sweep_cli.h"
#include "toy_runner.h"

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc >= 2 && !strcmp(argv[1], "sweep"))
        return cli_sweep_main(argc - 1, argv + 1, toy_runners);
    if (argc >= 2 && !strcmp(argv[1], "merge"))
        return cmd_merge(argc - 1, argv + 1);
    return cli_error(NULL, "usage: sweep_testcli sweep|merge ARGS...");
}
