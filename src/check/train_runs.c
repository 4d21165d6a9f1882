/* src/check/train_runs.c: what the training checks (src/check/t05_gd.c .. t12_replicas.c) share
 * (src/check/check_impl.h): runs of a training runner over seeds 1 .. N, in parallel, each seed's
 * runs reduced to a few numbers in its own slot, and the averages they take of a run's rows.
 * Training runs derive every stream from their seed (include/srlab/run.h). */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"

const srl_format *srl__chk_bf16(void)
{
    return srl_format_find("bf16");
}

void srl__chk_job_init(srl__chk_job *j, const char *problem, int nkv, size_t nout,
                       srl__chk_job_reduce reduce, const void *ctx)
{
    memset(j, 0, sizeof *j);
    j->problem = problem;
    j->nkv = nkv;
    j->nout = nout;
    j->reduce = reduce;
    j->ctx = ctx;
    for (int k = 0; k < nkv; k++)
        srl__chk_kv_init(&j->kv[k]);
}

static int job_item(void *ctx, size_t i, srl_err *err)
{
    srl__chk_job *j = ctx;
    srl__chk_rows rows[2];
    memset(rows, 0, sizeof rows);
    int st = SRL_OK;
    for (int k = 0; k < j->nkv && !st; k++)
        st = srl__chk_run(&rows[k], SRL_RUN_TRAIN, j->problem, &j->kv[k], (uint64_t)i + 1, NULL,
                          NULL, err);
    if (!st)
        st = j->reduce(j, (uint64_t)i + 1, rows, j->out + i * j->nout, err);
    for (int k = 0; k < 2; k++)
        srl__chk_rows_free(&rows[k]);
    return st;
}

int srl__chk_job_run(srl__chk_job *j, uint64_t N, srl_err *err)
{
    j->out = calloc((size_t)N * j->nout, sizeof *j->out);
    if (!j->out)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    const int st = srl__chk_parallel((size_t)N, job_item, j, err);
    if (st) {
        free(j->out);
        j->out = NULL;
    }
    return st;
}

double *srl__chk_job_col(const srl__chk_job *j, uint64_t N, size_t k)
{
    double *v = malloc((size_t)N * sizeof *v);
    if (v)
        for (uint64_t s = 0; s < N; s++)
            v[s] = j->out[s * j->nout + k];
    return v;
}

double srl__chk_late_mean(const srl__chk_rows *r, const char *name, double burn)
{
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (srl__chk_col(r, i, "step") > burn) {
            s += srl__chk_col(r, i, name);
            n++;
        }
    return n ? s / (double)n : NAN;
}
