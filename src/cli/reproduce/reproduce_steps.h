/* src/cli/reproduce/reproduce_steps.h: the report folder made ready, and the steps of the plan
 * run in it (reproduce_steps.c).
 *
 * Every step is the srlab binary r->exe started with fork and exec (no shell) in the report
 * folder, its standard input /dev/null, its standard output and error in logs/STEP.log (whose
 * first line is "$ " and the command); one progress line per step on standard error. A step that
 * fails is recorded in its rp_step and the plan goes on; a figure whose sweep failed is not
 * drawn. A figure, the checks' table and index.html are removed before the step that writes
 * them, so a failed step cannot leave an old one for the report to show; an experiment's data
 * files are one set (src/cli/set.h) that its sweep replaces as a whole, or not at all, and the
 * report shows them only when the sweep succeeded. A sweep interrupted in an earlier reproduction
 * (--force) continues from its journal. SIGINT, SIGTERM and SIGHUP reach the running step too. */
#ifndef SRL_CLI_REPRODUCE_STEPS_H
#define SRL_CLI_REPRODUCE_STEPS_H

#include <stdbool.h>

#include "cli/reproduce/reproduce.h"
#include "cli/set.h"

/* Make the folder r->dir (when `create`), take its lock DIR/reproduce.lock (cli_lock_take,
 * src/cli/set.h: one reproduction at a time in a folder; released with cli_lock_release), make
 * logs/ and specs/, remove an old index.html (so an interrupted reproduction leaves none), and
 * copy each spec that can run into specs/ (the sweeps run the copies: the folder holds what
 * ran). Returns 0 or an exit status. */
int rp_steps_prepare(const rp_report *r, bool create, cli_lock *lock);

/* Run every step of the plan; r->seconds is the wall time of them all. Returns 0, or an exit
 * status when the system failed (a log cannot be written, fork fails): the steps' own failures
 * are in their rp_step. */
int rp_steps_run(rp_report *r);

#endif
