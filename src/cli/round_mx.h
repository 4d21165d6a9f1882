/* src/cli/round_mx.h: `srlab round` with a block format (src/cli/round_mx.c). */
#ifndef SRL_CLI_ROUND_MX_H
#define SRL_CLI_ROUND_MX_H

#include <stddef.h>
#include <stdio.h>

#include "cli/batch.h"

/* The teaching view of the numbers xs[0..n), cut into blocks. */
int round_mx_view(FILE *o, const cli_batch *c, const double *xs, int n);

/* --batch: the CSV header, and the row and end functions of cli_batch_run with a
 * round_mx_batch as their context (the lines are kept until the end). */
#define ROUND_MX_HEADER "input,format,rounding,scale_rule,block,scale_code,scale,rd,ru,p_up,result"
typedef struct round_mx_batch {
    double *x;
    size_t n, cap;
} round_mx_batch;
void round_mx_batch_init(round_mx_batch *t);
void round_mx_batch_free(round_mx_batch *t);
int round_mx_batch_row(FILE *o, const cli_batch *c, char *text, const char *what, srl_rng *r,
                       void *ctx);
int round_mx_batch_end(FILE *o, const cli_batch *c, void *ctx);

#endif
