/* src/cli/reproduce/reproduce_report.h: index.html of `srlab reproduce` (reproduce_report.c),
 * from the plan and what happened to each of its steps. */
#ifndef SRL_CLI_REPRODUCE_REPORT_H
#define SRL_CLI_REPRODUCE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "cli/reproduce/reproduce.h"

/* Write the report (index.html) of r to fp. Reads the CSV files and logs the steps left in
 * r->dir. *problems is the number of problems it shows (failed steps, figures not drawn,
 * failed checks): 0 means the whole study was reproduced and every check passed. Returns 0, or
 * -1 when out of memory. */
int rp_report_write(FILE *fp, const rp_report *r, size_t *problems);

#endif
