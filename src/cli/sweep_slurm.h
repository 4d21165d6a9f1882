/* src/cli/sweep_slurm.h: `srlab sweep ... --slurm N` and `srlab sweep ... --slurm-status`
 * (src/cli/sweep_slurm.c): a sweep as a SLURM job array plus its merge job, and its progress.
 *
 * cli_sweep_main() calls cli_sweep_slurm() first: it returns -1 when argv holds none of --slurm,
 * --slurm-status, --partition, --time, --cpus-per-task (an ordinary sweep), else the exit status
 * of the whole command. */
#ifndef SRL_CLI_SWEEP_SLURM_H
#define SRL_CLI_SWEEP_SLURM_H

#include "srlab/run.h"

int cli_sweep_slurm(int argc, char **argv, const srl_runner *const *runners);

#endif
