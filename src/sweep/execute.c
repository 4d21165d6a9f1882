/* src/sweep/execute.c: running runs (include/srlab/sweep.h, "runs"). One run goes through a sink
 * that writes its rows file lines (the run's axis values, then its metrics in the union's order)
 * and keeps what its summary line needs (the last value of every numeric metric, the best loss,
 * the first step that reached the target); srl_sweep_execute runs a list of runs on OpenMP
 * threads, one run per thread, and hands each record to the caller as it finishes.
 *
 * A record is a function of its run's config alone (runners derive every stream from the
 * config's seed), so the order of completion, the thread count and interruptions cannot change
 * a byte of it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/threads.h"
#include "sweep/sweep_impl.h"

/* The sink of one run. */
typedef struct rsink {
    const srl_sweep *s;
    size_t run;
    srl__sw_text rows;
    char *prefix; /* "RUN,AXES...,SEED" */
    size_t prefix_len;
    bool begun;
    size_t ncol;
    long *slot; /* union column -> the run's column, or -1 */
    srl_col_kind *kind;
    char (*last)[SRL__SW_NUM_LEN]; /* last row's text per union column (numeric ones) */
    bool *has_last;
    bool has_best;
    double best;
    bool reached;
    char target_step[SRL__SW_NUM_LEN];
    size_t nrows;
    srl_err *err;
} rsink;

static int r_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds)
{
    rsink *r = ctx;
    const srl_sweep *s = r->s;
    if (r->begun)
        return srl_err_set(r->err, SRL_EINVAL, "the runner began its rows twice");
    r->begun = true;
    r->ncol = ncol;
    r->kind = malloc((ncol ? ncol : 1) * sizeof *r->kind);
    if (!r->kind)
        return SRL_ENOMEM;
    for (size_t m = 0; m < s->nmet; m++)
        r->slot[m] = -1;
    for (size_t c = 0; c < ncol; c++) {
        size_t m = 0;
        while (m < s->nmet && strcmp(s->met[m], names[c]))
            m++;
        if (m == s->nmet || s->metk[m] != kinds[c])
            return srl_err_set(r->err, SRL_EINVAL,
                               "column '%s' was not reported (with this type) by the "
                               "validation runs; the runner's columns depend on more than its "
                               "problem", names[c]);
        r->slot[m] = (long)c;
        r->kind[c] = kinds[c];
    }
    return SRL_OK;
}

/* The best loss and the first step with loss_gap <= target, from one row. */
static void r_track(rsink *r, const srl_value *v)
{
    const srl_sweep *s = r->s;
    if (s->c_loss >= 0 && r->slot[s->c_loss] >= 0) {
        const srl_value *x = &v[r->slot[s->c_loss]];
        double y = x->kind == SRL_COL_INT ? (double)x->i : x->num;
        if (isfinite(y) && (!r->has_best || y < r->best)) {
            r->best = y;
            r->has_best = true;
        }
    }
    if (s->has_target && !r->reached && s->c_gap >= 0 && s->c_step >= 0 &&
        r->slot[s->c_gap] >= 0 && r->slot[s->c_step] >= 0) {
        const srl_value *x = &v[r->slot[s->c_gap]];
        double g = x->kind == SRL_COL_INT ? (double)x->i : x->num;
        if (g <= s->target) {
            r->reached = true;
            memcpy(r->target_step, r->last[s->c_step], sizeof r->target_step);
        }
    }
}

static int r_row(void *ctx, const srl_value *v)
{
    rsink *r = ctx;
    const srl_sweep *s = r->s;
    if (!r->begun)
        return srl_err_set(r->err, SRL_EINVAL, "the runner wrote a row before its columns");
    srl__sw_put(&r->rows, r->prefix, r->prefix_len);
    for (size_t m = 0; m < s->nmet; m++) {
        srl__sw_putc(&r->rows, ',');
        long c = r->slot[m];
        r->has_last[m] = false;
        if (c < 0)
            continue;
        char buf[SRL__SW_NUM_LEN];
        switch (v[c].kind) {
        case SRL_COL_NUM: srl__sw_fmt_num(buf, v[c].num); break;
        case SRL_COL_INT: snprintf(buf, sizeof buf, "%" PRId64, v[c].i); break;
        default: srl__sw_put_csv(&r->rows, v[c].str ? v[c].str : ""); continue;
        }
        srl__sw_puts(&r->rows, buf);
        memcpy(r->last[m], buf, sizeof buf);
        r->has_last[m] = true;
    }
    srl__sw_putc(&r->rows, '\n');
    r->nrows++;
    r_track(r, v);
    return r->rows.oom ? SRL_ENOMEM : SRL_OK;
}

static void rsink_free(rsink *r)
{
    free(r->rows.p);
    free(r->prefix);
    free(r->slot);
    free(r->kind);
    free(r->last);
    free(r->has_last);
}

/* The sink of run `run`, with its line prefix. */
static int rsink_init(rsink *r, const srl_sweep *s, size_t run)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->run = run;
    srl__sw_text pre = {0};
    srl__sw_printf(&pre, "%zu", run);
    for (size_t i = 0; i <= s->ncols; i++) {
        srl__sw_putc(&pre, ',');
        srl__sw_put_csv(&pre, srl_sweep_axis_value(s, run, i));
    }
    r->prefix = srl__sw_take(&pre);
    r->prefix_len = r->prefix ? strlen(r->prefix) : 0;
    size_t nm = s->nmet ? s->nmet : 1;
    r->slot = malloc(nm * sizeof *r->slot);
    r->last = calloc(nm, sizeof *r->last);
    r->has_last = calloc(nm, sizeof *r->has_last);
    if (!r->prefix || !r->slot || !r->last || !r->has_last)
        return SRL_ENOMEM;
    for (size_t m = 0; m < s->nmet; m++)
        r->slot[m] = -1;
    return SRL_OK;
}

/* The run's summary line without statistics: its prefix, last step, final values, best loss,
 * steps to target, diverged. */
static char *summary_line(const rsink *r, bool diverged)
{
    const srl_sweep *s = r->s;
    srl__sw_text sm = {0};
    srl__sw_put(&sm, r->prefix, r->prefix_len);
    if (s->c_step >= 0) {
        srl__sw_putc(&sm, ',');
        if (r->has_last[s->c_step])
            srl__sw_puts(&sm, r->last[s->c_step]);
    }
    for (size_t m = 0; m < s->nmet; m++)
        if (srl__sw_numeric(s->metk[m]) && (long)m != s->c_step) {
            srl__sw_putc(&sm, ',');
            if (r->has_last[m])
                srl__sw_puts(&sm, r->last[m]);
        }
    if (s->c_loss >= 0) {
        srl__sw_putc(&sm, ',');
        if (r->has_best) {
            char buf[SRL__SW_NUM_LEN];
            srl__sw_fmt_num(buf, r->best);
            srl__sw_puts(&sm, buf);
        }
    }
    if (s->c_gap >= 0 && s->c_step >= 0 && s->has_target) {
        srl__sw_putc(&sm, ',');
        if (r->reached)
            srl__sw_puts(&sm, r->target_step);
    }
    srl__sw_puts(&sm, diverged ? ",1\n" : ",0\n");
    return srl__sw_take(&sm);
}

void srl__sw_record_free(srl_sweep_record *rec)
{
    if (!rec)
        return;
    free(rec->rows);
    free(rec->summary);
    memset(rec, 0, sizeof *rec);
}

int srl__sw_run(const srl_sweep *s, size_t run, srl_sweep_record *rec, srl_err *err)
{
    memset(rec, 0, sizeof *rec);
    rec->run = run;
    if (!s->prepared || run >= s->nruns)
        return srl_err_set(err, SRL_EINVAL, "run %zu: not a run of this prepared sweep", run);
    rsink r;
    srl_config *cfg = NULL;
    if (rsink_init(&r, s, run) || srl__sw_config(s, run, &cfg)) {
        rsink_free(&r);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    srl_sink sink = {r_begin, r_row, &r};
    srl_run_report rep;
    memset(&rep, 0, sizeof rep);
    srl_err e2;
    e2.msg[0] = 0;
    r.err = &e2;
    int rc = srl_run(srl__sw_runner(s, run), cfg, &sink, &rep, &e2);
    srl_config_free(cfg);
    if (rc == SRL_EDIVERGED) {
        rep.diverged = true;
        rc = SRL_OK;
    }
    int st = SRL_OK;
    if (rc) {
        srl__sw_text d = {0};
        srl__sw_describe_run(&d, s, run);
        st = srl_err_set(err, rc, "run %zu (%s): %s", run, d.p ? d.p : "",
                         e2.msg[0] ? e2.msg : srl_strerror(rc));
        free(d.p);
    } else {
        rec->diverged = rep.diverged;
        memcpy(rec->note, rep.note, sizeof rec->note);
        rec->note[sizeof rec->note - 1] = 0;
        rec->summary = summary_line(&r, rep.diverged);
        rec->rows = srl__sw_take(&r.rows);
        r.rows.p = NULL;
        if (!rec->summary || !rec->rows) {
            srl__sw_record_free(rec);
            rec->run = run;
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        } else {
            rec->summary_len = strlen(rec->summary);
            rec->rows_len = strlen(rec->rows);
        }
    }
    rsink_free(&r);
    return st;
}

int srl__sw_parallel_begin(int *nthreads)
{
    if (*nthreads < 1)
        *nthreads = 1;
#ifdef _OPENMP
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
    return levels;
#else
    return 1;
#endif
}

void srl__sw_parallel_end(int levels)
{
#ifdef _OPENMP
    omp_set_max_active_levels(levels);
#else
    (void)levels;
#endif
}

/* What the tasks of srl_sweep_execute share. */
typedef struct exec_ctx {
    const srl_sweep *s;
    const size_t *runs;
    srl_sweep_done_fn done;
    void *ctx;
    int status, stop;
    size_t first_failed;
    srl_err ferr;
} exec_ctx;

/* One run, delivered (or its failure noted) one at a time. */
static int exec_one(void *arg, size_t k, srl__pool *pool)
{
    exec_ctx *x = arg;
    srl_sweep_record rec;
    srl_err e;
    e.msg[0] = 0;
    int st = srl__sw_run(x->s, x->runs[k], &rec, &e), stop;
    srl__pool_lock(pool);
    if (st) {
        if (x->runs[k] < x->first_failed) {
            x->first_failed = x->runs[k];
            x->status = st;
            x->ferr = e;
        }
        x->stop = 1;
    } else if (!x->stop) {
        int rc = x->done ? x->done(x->ctx, &rec) : SRL_OK;
        if (rc) {
            x->status = rc;
            x->ferr.msg[0] = 0;
            x->stop = 1;
        }
    }
    stop = x->stop;
    srl__pool_unlock(pool);
    srl__sw_record_free(&rec);
    return stop;
}

int srl_sweep_execute(const srl_sweep *s, const size_t *runs, size_t n, int nthreads,
                      srl_sweep_done_fn done, void *ctx, size_t *failed, srl_err *err)
{
    exec_ctx x = {s, runs, done, ctx, SRL_OK, 0, SIZE_MAX, {{0}}};
    int levels = srl__sw_parallel_begin(&nthreads);
    srl__pool_run(n, nthreads, exec_one, &x);
    int status = x.status;
    size_t first_failed = x.first_failed;
    srl_err ferr = x.ferr;
    srl__sw_parallel_end(levels);
    if (failed)
        *failed = first_failed;
    if (status && ferr.msg[0])
        srl_err_set(err, status, "%s", ferr.msg);
    else if (status)
        srl_err_set(err, status, "the sweep was stopped (%s)", srl_strerror(status));
    return status;
}
