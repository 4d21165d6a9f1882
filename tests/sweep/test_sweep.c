/* tests/sweep/test_sweep.c: the sweep engine (include/srlab/sweep.h) with the toy runners of
 * toy_runner.h: values and ranges, grids (order, zip, seeds, canonical command), bad input with
 * the setting it names, the union of columns, records identical for 1 and 2 threads and any
 * order, the summary (one line per grid point, statistics over seeds), the journal with every
 * torn tail, merge refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "srlab/rng.h"
#include "srlab/sweep.h"
#include "sweep/censored.h"
#include "sweep/sweep_impl.h"
#include "../testutil.h"
#include "toy_runner.h"

#define N_OF(a) (sizeof(a) / sizeof(a)[0])

static int values_are(const char *text, const char *const *want, size_t n)
{
    srl__sw_values l;
    srl_err err;
    if (srl__sw_values_parse(text, &l, &err)) {
        fprintf(stderr, "  '%s': %s\n", text, err.msg);
        srl__sw_values_free(&l);
        return 0;
    }
    int ok = l.n == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = !strcmp(l.v[i], want[i]);
    if (!ok) {
        fprintf(stderr, "  '%s' gave", text);
        for (size_t i = 0; i < l.n; i++)
            fprintf(stderr, " [%s]", l.v[i]);
        fputc('\n', stderr);
    }
    srl__sw_values_free(&l);
    return ok;
}

/* Parsing fails and the message holds `part`. */
static int values_fail(const char *text, const char *part)
{
    srl__sw_values l;
    srl_err err;
    err.msg[0] = 0;
    int st = srl__sw_values_parse(text, &l, &err);
    srl__sw_values_free(&l);
    if (st == SRL_OK) {
        fprintf(stderr, "  '%s' was accepted\n", text);
        return 0;
    }
    if (!strstr(err.msg, part)) {
        fprintf(stderr, "  '%s': message '%s' lacks '%s'\n", text, err.msg, part);
        return 0;
    }
    return 1;
}

static void test_values(void)
{
    long before = srl_test_failures;
    static const char *const a[] = {"0.0001", "0.001", "0.01", "0.1"};
    CHECK(values_are("1e-4:1e-1:log:4", a, 4), "log range");
    static const char *const b[] = {"0", "0.25", "0.5", "0.75", "1"};
    CHECK(values_are("0:1:lin:5", b, 5), "lin range");
    static const char *const b2[] = {"1", "5.5", "10"};
    CHECK(values_are("1:10:lin:3", b2, 3), "lin range with integer bounds: exact values");
    static const char *const c2[] = {"1", "3", "10", "32", "100"};
    CHECK(values_are("1:100:log:5", c2, 5), "log range with integer bounds: integers");
    static const char *const c3[] = {"1", "3.16227766016838", "10"};
    CHECK(values_are("1.0:10:log:3", c3, 3), "log range with a decimal bound: reals");
    static const char *const c[] = {"10", "100", "1000"};
    CHECK(values_are("10:1000:log:3", c, 3), "integer log range");
    static const char *const d[] = {"1", "4", "7", "10"};
    CHECK(values_are("1:10:lin:4", d, 4), "integer lin range");
    static const char *const e[] = {"rn", "sr", "sr:r=16"};
    CHECK(values_are(" rn, sr ,sr:r=16", e, 3), "list, spaces, a mode with a colon");
    static const char *const f[] = {"p=8,emax=127", "bf16"};
    CHECK(values_are("[p=8,emax=127],bf16", f, 2), "brackets protect commas");
    static const char *const g[] = {"0", "0.001", "0.01", "0.1"};
    CHECK(values_are("0,1e-3:1e-1:log:3", g, 4), "list mixing a value and a range");
    static const char *const h[] = {"0.1", "0.0316227766016838", "0.01"};
    CHECK(values_are("0.1:0.01:log:3", h, 3), "descending log range, 15 digits inside");
    static const char *const i[] = {"1e-5", "1e-6"};
    CHECK(values_are("1e-5:1e-6:lin:2", i, 2), "ends are the user's numbers, exponent tidy");
    static const char *const j[] = {"2"};
    CHECK(values_are("2:2:lin:1", j, 1), "one value with equal bounds");
    GROUP("values: lists and ranges", before);

    before = srl_test_failures;
    CHECK(values_fail("", "empty value"), "empty");
    CHECK(values_fail("1,,2", "empty value"), "stray comma");
    CHECK(values_fail("1,", "empty value"), "trailing comma");
    CHECK(values_fail("1:2:log:0", "must be an integer >= 1"), "n = 0");
    CHECK(values_fail("1:2:lin:-3", "must be an integer >= 1"), "negative n");
    CHECK(values_fail("1:2:lin:x", "must be an integer >= 1"), "n not a number");
    CHECK(values_fail("0:1:log:3", "bounds > 0"), "log with a zero bound");
    CHECK(values_fail("-1:1:log:3", "bounds > 0"), "log with a negative bound");
    CHECK(values_fail("1:2:geo:3", "unknown kind 'geo'"), "unknown range kind");
    CHECK(values_fail("1:2:lin:1", "one value needs equal bounds"), "n = 1, a != b");
    CHECK(values_fail("1:3:log:4", "repeated values"), "integer log bounds that repeat");
    CHECK(values_fail("a:2:lin:3", "'a' is not a finite number"), "bound not a number");
    CHECK(values_fail("1:inf:lin:3", "not a finite number"), "infinite bound");
    CHECK(values_fail("[a,b", "'[' without ']'"), "unclosed bracket");
    CHECK(values_fail("a],b", "']' without '['"), "stray bracket");
    CHECK(values_fail("[]", "empty value"), "empty brackets");
    GROUP("values: bad input is refused with a message", before);

    before = srl_test_failures;
    size_t si, sn;
    srl_err err;
    CHECK(srl_sweep_parse_shard("1/3", &si, &sn, &err) == SRL_OK && si == 1 && sn == 3, "1/3");
    CHECK(srl_sweep_parse_shard("0/1", &si, &sn, &err) == SRL_OK, "0/1");
    CHECK(srl_sweep_parse_shard("3/3", &si, &sn, &err) != SRL_OK && strstr(err.msg, "0 <= I < N"),
          "I >= N: %s", err.msg);
    CHECK(srl_sweep_parse_shard("0/0", &si, &sn, &err) != SRL_OK, "N = 0");
    CHECK(srl_sweep_parse_shard("-1/3", &si, &sn, &err) != SRL_OK, "negative");
    CHECK(srl_sweep_parse_shard("1", &si, &sn, &err) != SRL_OK, "no slash");
    CHECK(srl_sweep_parse_shard("1/3/4", &si, &sn, &err) != SRL_OK, "two slashes");
    GROUP("shards: I/N with 0 <= I < N", before);
}

static srl_sweep *make(const srl_sweep_setting *s, size_t n, srl_err *err)
{
    srl_sweep *sw = NULL;
    if (srl_sweep_new(&sw, s, n, toy_runners, err))
        return NULL;
    return sw;
}

static int grid_fails(const srl_sweep_setting *s, size_t n, const char *part)
{
    srl_err err;
    err.msg[0] = 0;
    srl_sweep *sw = make(s, n, &err);
    if (sw) {
        srl_sweep_free(sw);
        fprintf(stderr, "  a bad grid was accepted (expected '%s')\n", part);
        return 0;
    }
    if (!strstr(err.msg, part)) {
        fprintf(stderr, "  message '%s' lacks '%s'\n", err.msg, part);
        return 0;
    }
    return 1;
}

static void test_grid(void)
{
    long before = srl_test_failures;
    srl_err err;
    const srl_sweep_setting s1[] = {
        {"seeds", "3", "--seeds"},     {"lr", "0.1,0.2", "--lr"},
        {"problem", "toy", "--problem"}, {"noise", "0,0.5,1", "--noise"},
        {"steps", "5,6,7", "--steps"}, {"zip", "noise,steps", "--zip"},
        {"rounding", "rn", "--rounding"}, {"target", "1e-3", "--target"},
    };
    srl_sweep *sw = make(s1, N_OF(s1), &err);
    CHECK(sw != NULL, "grid: %s", err.msg);
    if (sw) {
        CHECK(srl_sweep_nruns(sw) == 2 * 3 * 3, "runs %zu", srl_sweep_nruns(sw));
        CHECK(sw->npoints == 6 && sw->nseeds == 3, "points and seeds");
        /* Columns: the core keys toy knows (problem, opt, strategy, format, rounding, lr), then
         * the varying others in the order of the train table (steps before noise? steps is a
         * common key, noise toy's own), then seed. */
        const char *want[] = {"problem", "opt", "strategy", "format", "rounding", "lr",
                              "steps", "noise", "seed"};
        CHECK(srl_sweep_naxes(sw) == N_OF(want), "axes %zu", srl_sweep_naxes(sw));
        for (size_t i = 0; i < N_OF(want) && i < srl_sweep_naxes(sw); i++)
            CHECK(!strcmp(srl_sweep_axis_name(sw, i), want[i]), "axis %zu is %s, want %s", i,
                  srl_sweep_axis_name(sw, i), want[i]);
        /* Order: lr outermost, then the (steps, noise) zip, then seed. */
        CHECK(!strcmp(srl_sweep_axis_value(sw, 0, 5), "0.1"), "run 0 lr");
        CHECK(!strcmp(srl_sweep_axis_value(sw, 9, 5), "0.2"), "run 9 lr");
        CHECK(!strcmp(srl_sweep_axis_value(sw, 3, 6), "6") &&
                  !strcmp(srl_sweep_axis_value(sw, 3, 7), "0.5"), "run 3 zip partners");
        CHECK(!strcmp(srl_sweep_axis_value(sw, 4, 8), "2"), "run 4 seed");
        CHECK(!strcmp(srl_sweep_axis_value(sw, 0, 1), "sgd"), "unset core key: runner default");
        /* rounding without format or strategy: the weights are bf16 (an added setting), and
         * the strategy, format and rounding columns show what the run resolves: fp32's pieces
         * with the weight changed is custom, not fp32 (issue 30, item 5). */
        CHECK(!strcmp(srl_sweep_command(sw),
                      "srlab sweep --command train --problem toy --format bf16 --rounding rn "
                      "--lr 0.1,0.2 --steps 5,6,7 --noise 0,0.5,1 --seeds 3 --zip steps,noise "
                      "--target 1e-3"),
              "canonical command: %s", srl_sweep_command(sw));
        CHECK(!strcmp(srl_sweep_axis_value(sw, 0, 2), "custom") &&
                  !strcmp(srl_sweep_axis_value(sw, 0, 3), "bf16") &&
                  !strcmp(srl_sweep_axis_value(sw, 0, 4), "rn"),
              "resolved strategy, format, rounding: %s %s %s", srl_sweep_axis_value(sw, 0, 2),
              srl_sweep_axis_value(sw, 0, 3), srl_sweep_axis_value(sw, 0, 4));
        CHECK(!*srl_sweep_warnings(sw), "bf16 weights: no warning: %s", srl_sweep_warnings(sw));
        srl_config *c = NULL;
        CHECK(srl__sw_config(sw, 13, &c) == SRL_OK, "config");
        if (c) {
            CHECK(!strcmp(srl_config_get(c, "seed"), "2") && !strcmp(srl_config_get(c, "lr"), "0.2") &&
                      !strcmp(srl_config_get(c, "steps"), "6") &&
                      !strcmp(srl_config_get(c, "problem"), "toy"),
                  "run 13 config");
            srl_config_free(c);
        }
    }
    /* The same grid written in another order and spacing: the same command. */
    const srl_sweep_setting s2[] = {
        {"target", "1e-3", NULL}, {"zip", "steps, noise", NULL}, {"rounding", "rn", NULL},
        {"steps", "5, 6, 7", NULL}, {"noise", "0,0.5,1", NULL},  {"problem", "toy", NULL},
        {"lr", "0.1, 0.2", NULL},   {"seeds", "3", NULL},
    };
    srl_sweep *sw2 = make(s2, N_OF(s2), &err);
    CHECK(sw && sw2 && !strcmp(srl_sweep_command(sw), srl_sweep_command(sw2)),
          "command independent of order: %s", sw2 ? srl_sweep_command(sw2) : err.msg);
    srl_sweep_free(sw);
    srl_sweep_free(sw2);

    const srl_sweep_setting s3[] = {{"problem", "toy", NULL}, {"seed", "7,3", NULL}};
    sw = make(s3, N_OF(s3), &err);
    CHECK(sw && srl_sweep_nruns(sw) == 2 && !strcmp(sw->seeds_text, "7,3") &&
              !strcmp(srl_sweep_axis_value(sw, 0, srl_sweep_naxes(sw) - 1), "7"),
          "explicit seeds, in the order given");
    srl_sweep_free(sw);
    const srl_sweep_setting s4[] = {{"problem", "toy", NULL}, {"seed", "1:5:lin:5,9", NULL}};
    sw = make(s4, N_OF(s4), &err);
    CHECK(sw && !strcmp(sw->seeds_text, "1-5,9"), "seeds text %s",
          sw ? sw->seeds_text : err.msg);
    srl_sweep_free(sw);
    const srl_sweep_setting s5[] = {{"problem", "toyexp", NULL}, {"command", "run", NULL},
                                    {"n", "10:1000:log:3", NULL}};
    sw = make(s5, N_OF(s5), &err);
    CHECK(sw && sw->kind == SRL_RUN_EXPERIMENT && srl_sweep_nruns(sw) == 3 &&
              !strcmp(srl_sweep_axis_name(sw, 0), "problem") &&
              !strcmp(srl_sweep_axis_name(sw, 1), "format") &&
              !strcmp(srl_sweep_axis_value(sw, 0, 1), "bf16") &&
              !strcmp(srl_sweep_axis_name(sw, 2), "n"),
          "experiment grid: %s", sw ? "" : err.msg);
    srl_sweep_free(sw);
    GROUP("grid: order, columns, zip, seeds, canonical command", before);

    before = srl_test_failures;
    const srl_sweep_setting b1[] = {{"lr", "0.1", "--lr"}};
    CHECK(grid_fails(b1, 1, "no problem given"), "no problem");
    const srl_sweep_setting b2[] = {{"problem", "nope", "x.ini:3"}};
    CHECK(grid_fails(b2, 1, "x.ini:3: unknown problem 'nope'"), "unknown problem");
    const srl_sweep_setting b3[] = {{"problem", "toy,toy2", "--problem"}, {"a", "1,2", "x.ini:7"}};
    CHECK(grid_fails(b3, 2, "x.ini:7: unknown key 'a' for problem 'toy2'"), "key of one problem");
    const srl_sweep_setting b4[] = {{"problem", "toy", NULL}, {"seeds", "3", "--seeds"},
                                    {"seed", "1,2", "x.ini:2"}};
    CHECK(grid_fails(b4, 3, "contradict"), "seeds and seed");
    const srl_sweep_setting b5[] = {{"problem", "toy", NULL}, {"lr", "1,2", NULL},
                                    {"steps", "1,2,3", NULL}, {"zip", "lr,steps", "--zip"}};
    CHECK(grid_fails(b5, 4, "--zip: zipped axes need equal lengths"), "zip lengths");
    const srl_sweep_setting b6[] = {{"problem", "toy", NULL}, {"lr", "1,2", NULL},
                                    {"zip", "lr,noise", "--zip"}};
    CHECK(grid_fails(b6, 3, "'noise' is not an axis"), "zip of a missing axis");
    const srl_sweep_setting b7[] = {{"problem", "toy", NULL}, {"lr", "0.1,1e-1", "--lr"}};
    CHECK(grid_fails(b7, 2, "--lr: value '1e-1' repeats '0.1'"), "numerically equal values");
    const srl_sweep_setting b8[] = {{"problem", "toy", NULL}, {"seeds", "2", NULL},
                                    {"lr", "1,2", NULL}, {"zip", "lr,seed", "--zip"}};
    CHECK(grid_fails(b8, 4, "seeds cannot be zipped"), "zip of seed");
    const srl_sweep_setting b9[] = {{"problem", "toy", NULL}, {"lr", "1", "--lr"},
                                    {"lr", "2", "x.ini:4"}};
    CHECK(grid_fails(b9, 3, "x.ini:4: 'lr' is already set (--lr)"), "key twice");
    const srl_sweep_setting b10[] = {{"problem", "toy", NULL}, {"command", "fit", "--command"}};
    CHECK(grid_fails(b10, 2, "'fit' is not a command"), "bad command");
    const srl_sweep_setting b11[] = {{"problem", "toy", NULL}, {"target", "-1", "--target"}};
    CHECK(grid_fails(b11, 2, "--target: '-1'"), "negative target");
    const srl_sweep_setting b12[] = {{"problem", "toy", NULL}, {"seeds", "0", "--seeds"}};
    CHECK(grid_fails(b12, 2, "--seeds: '0' is not a number of seeds"), "zero seeds");
    const srl_sweep_setting b13[] = {{"problem", "toy", NULL}, {"lr", "", "--lr"}};
    CHECK(grid_fails(b13, 2, "--lr: '': an empty value"), "empty axis");
    const srl_sweep_setting b14[] = {{"problem", "toyexp", "--problem"}};
    CHECK(grid_fails(b14, 1, "it is an experiment: command = run"), "wrong kind names the fix");
    const srl_sweep_setting b15[] = {{"problem", "toy", NULL}, {"lr", "1:2:log:0", "--lr"}};
    CHECK(grid_fails(b15, 2, "--lr: range '1:2:log:0'"), "bad range names the flag");
    const srl_sweep_setting b16[] = {{"problem", "toy", NULL}, {"seed", "1,x", "--seed"}};
    CHECK(grid_fails(b16, 2, "'x' is not a seed"), "bad seed");
    const srl_sweep_setting b17[] = {{"problem", "toy", NULL}, {"lr", "1,2", NULL},
                                     {"a", "1,2", NULL}, {"zip", "lr,a", NULL},
                                     {"zip", "a,lr", "--zip"}};
    CHECK(grid_fails(b17, 5, "'a' is zipped twice"), "axis in two zips");
    GROUP("grid: bad input names the setting", before);
}

/* Run every run of sw with `threads` threads in the order of `runs`; records by run. */
typedef struct collect {
    char **rows, **sums;
} collect;

static int collect_done(void *ctx, const srl_sweep_record *rec)
{
    collect *c = ctx;
    c->rows[rec->run] = strdup(rec->rows);
    c->sums[rec->run] = strdup(rec->summary);
    return SRL_OK;
}

static void collect_free(collect *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c->rows[i]);
        free(c->sums[i]);
    }
    free(c->rows);
    free(c->sums);
}

static int run_all(srl_sweep *sw, int threads, bool reverse, collect *c)
{
    size_t n = srl_sweep_nruns(sw);
    size_t *runs = malloc(n * sizeof *runs);
    c->rows = calloc(n, sizeof *c->rows);
    c->sums = calloc(n, sizeof *c->sums);
    for (size_t i = 0; i < n; i++)
        runs[i] = reverse ? n - 1 - i : i;
    srl_err err;
    size_t failed;
    int st = srl_sweep_execute(sw, runs, n, threads, collect_done, c, &failed, &err);
    if (st)
        fprintf(stderr, "  execute: %s\n", err.msg);
    free(runs);
    return st;
}

/* The last k fields of a summary line (up to its '\n') as numbers, NAN for an empty one. */
static bool last_fields(const char *line, size_t k, double *v)
{
    const char *end = line ? strchr(line, '\n') : NULL;
    if (!end)
        return false;
    const char *p = end;
    for (size_t i = k; i-- > 0;) {
        const char *f = p;
        while (f > line && f[-1] != ',')
            f--;
        if (f == line)
            return false;
        v[i] = f == p ? NAN : strtod(f, NULL);
        p = f - 1;
    }
    return true;
}

static void test_runs(void)
{
    long before;
    srl_err err;
    srl_sweep *sw;
    before = srl_test_failures;
    const srl_sweep_setting s2[] = {
        {"problem", "toy", NULL}, {"lr", "0.01:1:log:5,2.5", NULL}, {"noise", "0,0.01", NULL},
        {"seeds", "4", NULL},     {"steps", "60", NULL},            {"target", "0.1", NULL},
    };
    sw = make(s2, N_OF(s2), &err);
    CHECK(sw && srl_sweep_prepare(sw, 2, &err) == SRL_OK, "prepare: %s", err.msg);
    if (!sw)
        return;
    CHECK(!strcmp(sw->rows_header, "run,problem,opt,strategy,format,rounding,lr,noise,"
                                             "seed,step,loss,loss_gap,status"),
          "rows header %s", sw->rows_header);
    CHECK(!strcmp(sw->runs_header,
                  "run,problem,opt,strategy,format,rounding,lr,noise,seed,last_step,final_loss,"
                  "final_loss_gap,best_loss,steps_to_target,diverged"),
          "runs header %s", sw->runs_header);
    collect c1, c2, c3;
    CHECK(run_all(sw, 1, false, &c1) == SRL_OK, "1 thread");
    CHECK(run_all(sw, 2, false, &c2) == SRL_OK, "2 threads");
    CHECK(run_all(sw, 2, true, &c3) == SRL_OK, "2 threads, reversed");
    size_t n = srl_sweep_nruns(sw);
    for (size_t r = 0; r < n; r++) {
        CHECK(c1.rows[r] && c2.rows[r] && c3.rows[r] && !strcmp(c1.rows[r], c2.rows[r]) &&
                  !strcmp(c1.rows[r], c3.rows[r]), "run %zu rows differ between thread counts", r);
        CHECK(c1.sums[r] && c2.sums[r] && c3.sums[r] && !strcmp(c1.sums[r], c2.sums[r]) &&
                  !strcmp(c1.sums[r], c3.sums[r]), "run %zu summary differs", r);
    }
    /* lr = 2.5 diverges: |1 - 2.5| = 1.5 per step. Run 40 is lr=2.5, noise=0, seed 1. */
    CHECK(strstr(c1.rows[40], ",diverged\n") != NULL, "divergence row: %s", c1.rows[40]);
    const char *tail = c1.sums[40] + strlen(c1.sums[40]) - 3;
    CHECK(!strcmp(tail, ",1\n"), "diverged flag: %s", c1.sums[40]);
    /* lr = 1 reaches x = 0 at step 1: steps_to_target 1 (noise 0). Run 32 = lr 1, noise 0. */
    CHECK(strstr(c1.sums[32], ",0,10,0\n") != NULL, "steps_to_target: %s", c1.sums[32]);
    /* Common random numbers: seeds differ, noise-free runs do not. */
    GROUP("records: identical for 1 and 2 threads in any order; divergence; target", before);

    /* The summary of the runs file: one line per grid point, statistics recomputed here from
     * the printed per-run values. */
    before = srl_test_failures;
    char *pre0 = NULL;
    srl_sweep_meta meta0 = {"2024-01-01T00:00:00Z", NULL, false, 0, 0};
    CHECK(srl_sweep_preamble(sw, &meta0, &pre0) == SRL_OK, "preamble");
    size_t room0 = strlen(pre0) + strlen(sw->runs_header) + 2;
    for (size_t r = 0; r < n; r++)
        room0 += strlen(c1.sums[r]);
    char *runs_text = malloc(room0 + 64);
    size_t rt_len = (size_t)snprintf(runs_text, room0, "%s%s\n", pre0, sw->runs_header);
    for (size_t r = 0; r < n; r++) {
        strcpy(runs_text + rt_len, c1.sums[r]);
        rt_len += strlen(c1.sums[r]);
    }
    srl_sweep_text rt = {"t.runs.csv", runs_text, rt_len};
    char *out = NULL;
    size_t len = 0;
    CHECK(srl_sweep_summary(&rt, &out, &len, &err) == SRL_OK && out, "summary: %s", err.msg);
    /* Its lines: the preamble, the header, then grid point p on line p. */
    const char *sline[16] = {0};
    size_t nsl = 0;
    const char *hdr = NULL;
    for (const char *q = out; q && *q && nsl < 16;) {
        if (*q != '#') {
            if (hdr)
                sline[nsl++] = q;
            else
                hdr = q;
        }
        q = strchr(q, '\n');
        q = q ? q + 1 : NULL;
    }
    CHECK(out && !strncmp(out, pre0, strlen(pre0)), "the runs file's '#' lines");
    CHECK(hdr && !strncmp(hdr, "problem,opt,strategy,format,rounding,lr,noise,seeds,diverged,"
                               "final_loss_n,final_loss_mean,final_loss_sd,final_loss_ci95_lo,"
                               "final_loss_ci95_hi,best_loss_n,best_loss_mean,best_loss_sd,"
                               "best_loss_ci95_lo,best_loss_ci95_hi,final_loss_gap_n,"
                               "final_loss_gap_mean,final_loss_gap_sd,final_loss_gap_ci95_lo,"
                               "final_loss_gap_ci95_hi,steps_to_target_reached,"
                               "steps_to_target_frac,steps_to_target_frac_lo,"
                               "steps_to_target_frac_hi,steps_to_target_median,"
                               "steps_to_target_median_lo,steps_to_target_median_hi\n", 400),
          "summary header: %.300s", hdr ? hdr : "");
    CHECK(nsl == 12, "one line per grid point: %zu", nsl);
    /* grid point 4: lr = 0.1, noise = 0 -> runs 16..19 (noise-free: sd 0) */
    const char *sd4 = sline[4];
    for (int j = 0; sd4 && j < 11; j++) /* final_loss_sd is field 12 (0-based 11) */
        sd4 = strchr(sd4, ',') ? strchr(sd4, ',') + 1 : NULL;
    CHECK(sline[4] && !strncmp(sline[4], "toy,sgd,fp32,fp32,rn,0.1,0,4,0,4,", 33) && sd4 &&
              !strncmp(sd4, "0,", 2),
          "noise-free point: 4 seeds, 0 diverged, n=4, sd 0: %.80s", sline[4] ? sline[4] : "");
    /* A noisy point: 4 seeds, mean/sd/CI by hand. Point 5: lr 0.1, noise 0.01: runs 20..23. */
    double x[4];
    for (size_t k = 0; k < 4; k++) {
        /* final_loss is field 11 (0-based 10). */
        const char *f = c1.sums[20 + k];
        for (int j = 0; j < 10; j++)
            f = strchr(f, ',') + 1;
        x[k] = strtod(f, NULL);
    }
    double mean = (x[0] + x[1] + x[2] + x[3]) / 4, ss = 0;
    for (int k = 0; k < 4; k++)
        ss += (x[k] - mean) * (x[k] - mean);
    double sd = sqrt(ss / 3), half = gsl_cdf_tdist_Pinv(0.975, 3) * sd / 2;
    char want[240];
    snprintf(want, sizeof want, "toy,sgd,fp32,fp32,rn,0.1,0.01,4,0,4,%.17g,%.17g,%.17g,%.17g,",
             mean, sd, mean - half, mean + half);
    CHECK(sline[5] && !strncmp(sline[5], want, strlen(want)), "statistics %s not in %.200s",
          want, sline[5] ? sline[5] : "");
    CHECK(sd > 0, "noise makes seeds differ");
    /* Point 10: lr 2.5, noise 0: every seed diverges; no finite final loss; none reaches the
     * target (0 of 4: Clopper-Pearson [0, 1 - 0.025^(1/4)]) and no median. Point 8: lr 1,
     * noise 0: every seed reaches it at its first logged step, 10 (median 10, interval
     * [10, 10]). */
    CHECK(sline[10] && !strncmp(sline[10], "toy,sgd,fp32,fp32,rn,2.5,0,4,4,", 31),
          "diverged count: %.80s", sline[10] ? sline[10] : "");
    double c10[7], c8[7];
    CHECK(last_fields(sline[10], 7, c10) && c10[0] == 0 && c10[1] == 0 && c10[2] == 0 &&
              fabs(c10[3] - (1 - pow(0.025, 0.25))) < 1e-12 && isnan(c10[4]) && isnan(c10[5]) &&
              isnan(c10[6]), "none reached: %.300s", sline[10] ? sline[10] : "");
    CHECK(last_fields(sline[8], 7, c8) && c8[0] == 4 && c8[1] == 1 &&
              fabs(c8[2] - pow(0.025, 0.25)) < 1e-12 && c8[3] == 1 && c8[4] == 10 && c8[5] == 10 &&
              c8[6] == 10, "all reached at step 10: %.300s", sline[8] ? sline[8] : "");
    free(out);
    /* Not a whole sweep: a shard's runs, a missing run. */
    char *shard_text = malloc(rt_len + 64);
    snprintf(shard_text, rt_len + 64, "# shard: 0/2 (x)\n%s", runs_text);
    srl_sweep_text st1 = {"s.runs.csv", shard_text, strlen(shard_text)};
    CHECK(srl_sweep_summary(&st1, &out, &len, &err) != SRL_OK &&
              strstr(err.msg, "merge the shards first"), "a shard's runs: %s", err.msg);
    srl_sweep_text st2 = {"cut.runs.csv", runs_text, rt_len - strlen(c1.sums[n - 1])};
    CHECK(srl_sweep_summary(&st2, &out, &len, &err) != SRL_OK &&
              strstr(err.msg, "cut.runs.csv: run 47 is missing"), "a missing run: %s", err.msg);
    free(shard_text);
    free(runs_text);
    free(pre0);
    GROUP("summary: one line per grid point; mean, sd, Student t 95% interval over seeds",
          before);

    /* The journal: every cut of the last record is detected. Records in completion order. */
    before = srl_test_failures;
    char *pre = NULL, *h = NULL;
    size_t hl;
    srl_sweep_meta meta = {"2024-01-01T00:00:00Z", NULL, false, 0, 0};
    CHECK(srl_sweep_preamble(sw, &meta, &pre) == SRL_OK, "preamble");
    CHECK(srl_sweep_journal_start(sw, pre, &h, &hl) == SRL_OK, "header");
    char *j = malloc(hl + 100000);
    memcpy(j, h, hl);
    static const size_t order[4] = {6, 4, 5, 7};
    size_t jl = hl, ends[4];
    for (size_t k = 0; k < 4; k++) {
        size_t r = order[k];
        srl_sweep_record rec = {r, c1.rows[r], strlen(c1.rows[r]), c1.sums[r],
                                strlen(c1.sums[r]), false, ""};
        char *t;
        size_t tl;
        CHECK(srl_sweep_journal_entry(&rec, &t, &tl) == SRL_OK, "record");
        memcpy(j + jl, t, tl);
        jl += tl;
        ends[k] = jl;
        free(t);
    }
    srl_sweep_journal jr;
    CHECK(srl__sw_journal_parse(j, jl, &jr, &err) == SRL_OK && jr.complete_header &&
              jr.nentries == 4 && jr.good_len == jl && jr.entries[2].run == 5 &&
              !strncmp(j + jr.entries[2].rows_off, c1.rows[5], jr.entries[2].rows_len) &&
              !strcmp(jr.preamble, pre),
          "whole journal");
    srl__sw_journal_clear(&jr);
    int bad = 0;
    for (size_t cut = ends[2]; cut < ends[3]; cut++) {
        if (srl__sw_journal_parse(j, cut, &jr, &err) != SRL_OK || jr.nentries != 3 ||
            jr.good_len != ends[2])
            bad++;
        srl__sw_journal_clear(&jr);
    }
    CHECK(bad == 0, "%d cuts of the last record misread", bad);
    bad = 0;
    for (size_t cut = 0; cut < hl; cut++) {
        if (srl__sw_journal_parse(j, cut, &jr, &err) != SRL_OK || jr.complete_header ||
            jr.nentries)
            bad++;
        srl__sw_journal_clear(&jr);
    }
    CHECK(bad == 0, "%d cuts of the header misread", bad);
    CHECK(srl__sw_journal_parse("hello\n", 6, &jr, &err) != SRL_OK &&
              strstr(err.msg, "not a srlab sweep journal"), "not a journal");

    char la[200], lb[200];
    const char *pa = "# srlab 1\n# command: a\n# date: x\n# runs: 2\n";
    const char *pb = "# srlab 1\n# command: b\n# date: y\n# runs: 2\n";
    const char *pc = "# srlab 1\n# command: a\n# date: z\n# runs: 2\n";
    CHECK(srl__sw_preamble_diff(pa, pb, la, sizeof la, lb, sizeof lb) == 2 &&
              !strcmp(la, "# command: a") && !strcmp(lb, "# command: b"), "diff names the line");
    CHECK(srl__sw_preamble_diff(pa, pc, la, sizeof la, lb, sizeof lb) == 0, "dates ignored");
    GROUP("journal: records, torn tails, corruption; preamble comparison", before);

    /* The journal read back through the public functions: the runs it holds, its date, whether
     * it belongs to the sweep, and the files in run order. */
    before = srl_test_failures;
    srl_sweep_journal *jp = NULL;
    CHECK(srl_sweep_journal_read(&jp, j, ends[3] - 1, &err) == SRL_OK && jp, "read: %s", err.msg);
    if (jp) {
        CHECK(srl_sweep_journal_has(jp, 4) && srl_sweep_journal_has(jp, 5) &&
                  srl_sweep_journal_has(jp, 6) && !srl_sweep_journal_has(jp, 7) &&
                  !srl_sweep_journal_has(jp, 0),
              "runs held (7 is torn)");
        CHECK(srl_sweep_journal_valid_len(jp) == ends[2], "valid length");
        srl_sweep_journal_free(jp);
    }
    CHECK(srl_sweep_journal_read(&jp, j, jl, &err) == SRL_OK && jp, "read: %s", err.msg);
    if (jp) {
        char date[32], tiny[8];
        CHECK(srl_sweep_journal_date(jp, date, sizeof date) &&
                  !strcmp(date, "2024-01-01T00:00:00Z"), "the journal's date");
        CHECK(!srl_sweep_journal_date(jp, tiny, sizeof tiny), "a date that does not fit");
        CHECK(srl_sweep_journal_differs(jp, sw, pre, la, sizeof la, lb, sizeof lb) == 0,
              "its own sweep: %s / %s", la, lb);
        char *pre2 = NULL;
        srl_sweep_meta later = {"2030-01-01T00:00:00Z", "x.ini", false, 0, 0};
        CHECK(srl_sweep_preamble(sw, &later, &pre2) == SRL_OK &&
                  srl_sweep_journal_differs(jp, sw, pre2, la, sizeof la, lb, sizeof lb) == 4 &&
                  !strcmp(la, "# seeds: 1-4 (every grid point runs each seed; a run's random "
                              "streams derive from its seed)") &&
                  !strcmp(lb, "# spec: x.ini"),
              "another preamble: the journal's line 4, '%s' / '%s'", la, lb);
        free(pre2);

        static const size_t point1[4] = {4, 5, 6, 7};
        char *rows = NULL, *sums = NULL;
        size_t rl = 0, sl = 0;
        CHECK(srl_sweep_journal_rows(jp, sw, pre, point1, 4, &rows, &rl, &err) == SRL_OK,
              "rows: %s", err.msg);
        size_t room = strlen(pre) + strlen(sw->runs_header) + strlen(sw->rows_header) + 2;
        for (size_t r = 4; r < 8; r++)
            room += strlen(c1.rows[r]) + 2 * strlen(c1.sums[r]);
        char *expect = malloc(room);
        snprintf(expect, room, "%s%s\n%s%s%s%s", pre, sw->rows_header, c1.rows[4], c1.rows[5],
                 c1.rows[6], c1.rows[7]);
        CHECK(rows && rl == strlen(expect) && !strcmp(rows, expect), "rows in run order");
        CHECK(srl_sweep_journal_runs(jp, sw, pre, point1, 4, &sums, &sl, &err) == SRL_OK,
              "runs: %s", err.msg);
        snprintf(expect, room, "%s%s\n%s%s%s%s", pre, sw->runs_header, c1.sums[4], c1.sums[5],
                 c1.sums[6], c1.sums[7]);
        CHECK(sums && sl == strlen(expect) && !strcmp(sums, expect), "runs in run order");
        free(sums);
        static const size_t missing[2] = {4, 8};
        CHECK(srl_sweep_journal_rows(jp, sw, pre, missing, 2, &sums, &sl, &err) != SRL_OK &&
                  strstr(err.msg, "run 8 is not in the journal"), "a run it does not hold: %s",
              err.msg);
        free(expect);
        free(rows);
        srl_sweep_journal_free(jp);
    }
    CHECK(srl_sweep_journal_read(&jp, j, hl - 1, &err) == SRL_OK && !jp,
          "a torn start: nothing to resume");
    CHECK(srl_sweep_journal_read(&jp, "hello\n", 6, &err) != SRL_OK && !jp, "not a journal");
    /* A flipped byte in the second record (run 4): it alone is dropped, and said so; every
     * record after it that verifies is kept (issue 12, item 9). */
    j[ends[0] + (ends[1] - ends[0]) / 2] ^= 1;
    CHECK(srl__sw_journal_parse(j, jl, &jr, &err) == SRL_OK && jr.nentries == 3 &&
              jr.entries[0].run == 6 && jr.entries[1].run == 5 && jr.entries[2].run == 7 &&
              jr.good_len == jl && jr.damage &&
              strstr(jr.damage, "the record of run 4 at line ") &&
              strstr(jr.damage, "its checksum does not match its contents\n") &&
              !strchr(jr.damage, '\n')[1],
          "corrupt record: %s", jr.damage ? jr.damage : "(no damage)");
    srl__sw_journal_clear(&jr);
    j[ends[0] + (ends[1] - ends[0]) / 2] ^= 1;
    /* A digit of the third record's '@run' line (its rows length) made a letter: its line is
     * damaged, the run it claims unknown; the fourth record is kept. */
    j[ends[1] + strlen("@run 5 rows ")] = 'x';
    CHECK(srl__sw_journal_parse(j, jl, &jr, &err) == SRL_OK && jr.nentries == 3 &&
              jr.entries[2].run == 7 && jr.damage && strstr(jr.damage, "'@run' line is damaged"),
          "damaged record line: %s", jr.damage ? jr.damage : "(no damage)");
    srl__sw_journal_clear(&jr);
    /* The same damage in the last record: nothing after it, so the file is cut before it. */
    CHECK(srl__sw_journal_parse(j, ends[2], &jr, &err) == SRL_OK && jr.nentries == 2 &&
              jr.good_len == ends[1], "damaged last record");
    srl__sw_journal_clear(&jr);
    free(j);
    free(h);
    GROUP("journal: runs held, date, belonging, the files in run order", before);

    /* Merge refusals. */
    before = srl_test_failures;
    const char *f0 = "# srlab 1\n# command: a\n# date: 2\n# runs: 2 (2 grid points x 1 seeds)\n"
                     "# shard: 0/2 (x)\n# rows per run: 1\nrun,v\n0,a\n";
    const char *f1 = "# srlab 1\n# command: a\n# date: 1\n# runs: 2 (2 grid points x 1 seeds)\n"
                     "# shard: 1/2 (x)\n# rows per run: 2\nrun,v\n1,b\n1,c\n";
    const char *f1b = "# srlab 1\n# command: zz\n# date: 1\n# runs: 2 (2 grid points x 1 seeds)\n"
                      "# shard: 1/2 (x)\nrun,v\n1,b\n";
    const char *f1c = "# srlab 1\n# command: a\n# date: 1\n# runs: 2 (2 grid points x 1 seeds)\n"
                      "# shard: 1/2 (x)\nrun,v\n0,b\n";
    srl_sweep_text t[2] = {{"s1.csv", f1, strlen(f1)}, {"s0.csv", f0, strlen(f0)}};
    char *m = NULL;
    size_t ml;
    CHECK(srl_sweep_merge(t, 2, false, &m, &ml, &err) == SRL_OK && m &&
              !strcmp(m, "# srlab 1\n# command: a\n# date: 1\n# runs: 2 (2 grid points x 1 "
                         "seeds)\nrun,v\n0,a\n1,b\n1,c\n"),
          "merge: %s", m ? m : err.msg);
    free(m);
    t[0].data = f1b;
    t[0].len = strlen(f1b);
    CHECK(srl_sweep_merge(t, 2, false, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "s0.csv and s1.csv are not shards of one sweep: '# command: a' differs from '# command: zz'"),
          "different sweeps: %s", err.msg);
    t[0].data = f1c;
    t[0].len = strlen(f1c);
    CHECK(srl_sweep_merge(t, 2, false, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "run 0 is out of place"), "a row in the wrong shard: %s", err.msg);
    t[0].data = f1;
    t[0].len = strlen(f1);
    CHECK(srl_sweep_merge(t, 2, true, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "s1.csv: data line 2: run 1 is out of place"),
          "runs files: one line per run: %s", err.msg);
    t[0].data = f1c;
    t[0].len = strlen(f1c);
    CHECK(srl_sweep_merge(t + 1, 1, false, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "shard 1/2 is missing"), "missing shard: %s", err.msg);
    t[0] = t[1];
    CHECK(srl_sweep_merge(t, 2, false, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "are both shard 0/2"), "shard twice: %s", err.msg);
    /* Completeness (issue 12, item 6): each shard's rows against its '# rows per run:' line. */
    t[1] = (srl_sweep_text){"s1.csv", f1, strlen(f1)};
    static const struct {
        const char *f0, *want;
    } incomplete[] = {
        {"# rows per run: 1\nrun,v\n", "s0.csv (shard 0/2): run 0 is missing (1 line expected)"},
        {"# rows per run: 3\nrun,v\n0,a\n0,a\n", "s0.csv (shard 0/2): run 0 has 2 lines where "
                                               "3 were written (lines cut)"},
        {"# rows per run: 1\nrun,v\n0,a\n0,a\n", "s0.csv (shard 0/2): run 0 has 2 lines where "
                                               "1 were written (lines repeated or added)"},
        {"run,v\n0,a\n", "s0.csv (shard 0/2) has no '# rows per run:' line"},
        {"# rows per run: 1*x\nrun,v\n0,a\n", "line is damaged or too short (at run 0)"},
        {"# rows per run: 1 1\nrun,v\n0,a\n", "counts more runs than the shard has"},
    };
    for (size_t k = 0; k < sizeof incomplete / sizeof *incomplete; k++) {
        const char *head = "# srlab 1\n# command: a\n# date: 2\n# runs: 2 (2 grid points x 1 "
                           "seeds)\n# shard: 0/2 (x)\n";
        size_t hl0 = strlen(head), bl = strlen(incomplete[k].f0);
        char *bad0 = malloc(hl0 + bl + 1);
        memcpy(bad0, head, hl0);
        memcpy(bad0 + hl0, incomplete[k].f0, bl + 1);
        t[0] = (srl_sweep_text){"s0.csv", bad0, hl0 + bl};
        CHECK(srl_sweep_merge(t, 2, false, &m, &ml, &err) != SRL_OK &&
                  strstr(err.msg, incomplete[k].want), "incomplete shard %zu: %s", k, err.msg);
        free(bad0);
    }
    const char *r0 = "# srlab 1\n# command: a\n# date: 2\n# runs: 4 (2 grid points x 2 seeds)\n"
                     "# shard: 0/2 (x)\nrun,v\n0,a\n";
    const char *r1 = "# srlab 1\n# command: a\n# date: 2\n# runs: 4 (2 grid points x 2 seeds)\n"
                     "# shard: 1/2 (x)\nrun,v\n1,a\n3,b\n";
    t[0] = (srl_sweep_text){"s0.runs.csv", r0, strlen(r0)};
    t[1] = (srl_sweep_text){"s1.runs.csv", r1, strlen(r1)};
    CHECK(srl_sweep_merge(t, 2, true, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "s0.runs.csv (shard 0/2): run 2 is missing (1 line expected)"),
          "a runs file without a run: %s", err.msg);
    const char *nos = "# srlab 1\nrun,v\n0,a\n";
    srl_sweep_text u = {"full.csv", nos, strlen(nos)};
    CHECK(srl_sweep_merge(&u, 1, false, &m, &ml, &err) != SRL_OK &&
              strstr(err.msg, "full.csv: not a shard"), "not a shard: %s", err.msg);
    GROUP("merge: joins in run order, earliest date; refuses mixtures", before);

    free(pre);
    collect_free(&c1, n);
    collect_free(&c2, n);
    collect_free(&c3, n);
    srl_sweep_free(sw);

    /* Validation names the value the runner refuses, and the setting. */
    before = srl_test_failures;
    const srl_sweep_setting v1[] = {{"problem", "toy", NULL}, {"lr", "0.1,abc", "x.ini:5"}};
    sw = make(v1, 2, &err);
    CHECK(sw && srl_sweep_prepare(sw, 2, &err) != SRL_OK &&
              strstr(err.msg, "x.ini:5: lr: 'abc' is not a number (problem 'toy', lr=abc)"),
          "bad value: %s", err.msg);
    srl_sweep_free(sw);
    const srl_sweep_setting v2[] = {{"problem", "toy", NULL}, {"lr", "0.1,-1", "--lr"},
                                    {"noise", "0,1", NULL}};
    sw = make(v2, 3, &err);
    CHECK(sw && srl_sweep_prepare(sw, 1, &err) != SRL_OK &&
              strstr(err.msg, "--lr: lr: '-1' must be > 0"), "runner's own check: %s", err.msg);
    srl_sweep_free(sw);
    const srl_sweep_setting v3[] = {{"problem", "toy", NULL}, {"extra", "off,on", NULL}};
    sw = make(v3, 2, &err);
    CHECK(sw && srl_sweep_prepare(sw, 1, &err) != SRL_OK &&
              strstr(err.msg, "metric column 'extra' that is also an axis"), "clash: %s",
          err.msg);
    srl_sweep_free(sw);
    const srl_sweep_setting v5[] = {{"problem", "toy", NULL}};
    sw = make(v5, 1, &err);
    char *start = NULL;
    size_t start_len = 0;
    CHECK(sw && srl_sweep_journal_start(sw, "", &start, &start_len) == SRL_EINVAL && !start,
          "no journal before the columns are known");
    srl_sweep_free(sw);
    const srl_sweep_setting v4[] = {{"problem", "toy", NULL}, {"noise", "0,1", NULL},
                                    {"x0", "1,2", NULL}, {"steps", "3", NULL}};
    sw = make(v4, 4, &err);
    CHECK(sw && srl_sweep_prepare(sw, 1, &err) == SRL_OK, "%s", err.msg);
    srl_sweep_free(sw);
    GROUP("validation runs: values checked by the runner before anything runs", before);
}

/* The censored statistics of the summary (src/sweep/censored.h) on cases worked by hand. */
static void test_censored(void)
{
    long before = srl_test_failures;
    srl__km km;
    /* Ten runs: events at 1, 2, 2, 3, 5, 6, 8; censored at 4 and 7; one never reaches the target
     * (diverged: INFINITY). At risk n_j and events d_j at each event time, and S:
     *   t=1 10,1 S=0.9   t=2 9,2 S=0.7   t=3 7,1 S=0.6   t=5 5,1 S=0.48   t=6 4,1 S=0.36
     *   t=8 2,1 S=0.18.  Median: the first S <= 1/2, t = 5.
     * Band at t=1: Greenwood 1/90, w = 1.959964 sqrt(1/90)/|log 0.9| = 1.96086, bottom
     * 0.9^exp(w) = 0.4730 <= 1/2: lo = 1. At t=8: Greenwood 1/90+2/63+1/42+1/20+1/12+1/2 = 0.7,
     * w = 1.959964 sqrt(0.7)/|log 0.18| = 0.95627, top 0.18^exp(-w) = 0.5174 > 1/2, and S never
     * reaches 0: no upper limit. */
    const double t1[] = {3, 1, 2, 8, 4, 2, 5, INFINITY, 7, 6};
    const bool e1[] = {1, 1, 1, 1, 0, 1, 1, 0, 0, 1};
    CHECK(srl__km_median(&km, t1, e1, 10, 0.05) == 0 && km.reached == 7 && km.median == 5 &&
              km.lo == 1 && isnan(km.hi), "ten runs: %zu %g [%g, %g]", km.reached, km.median,
          km.lo, km.hi);
    /* The same with the last run reaching it at 9: S(9) = 0, the band [0, 0]: hi = 9. */
    const double t2[] = {3, 1, 2, 8, 4, 2, 5, 9, 7, 6};
    const bool e2[] = {1, 1, 1, 1, 0, 1, 1, 1, 0, 1};
    CHECK(srl__km_median(&km, t2, e2, 10, 0.05) == 0 && km.reached == 8 && km.median == 5 &&
              km.lo == 1 && km.hi == 9, "S reaching 0: %g [%g, %g]", km.median, km.lo, km.hi);
    /* A run censored at an event time is at risk there: events at 1 and 2, censored at 1.
     * S(1) = 1 - 1/3 (not 1 - 1/2, which would put the median at 1), S(2) = 0: median 2. */
    const double t3[] = {1, 2, 1};
    const bool e3[] = {1, 1, 0};
    CHECK(srl__km_median(&km, t3, e3, 3, 0.05) == 0 && km.median == 2 && km.lo == 1 &&
              km.hi == 2, "tie of an event and a censoring: %g [%g, %g]", km.median, km.lo,
          km.hi);
    /* Nobody reaches it: nothing defined. No runs at all: the same. */
    const double t4[] = {5, INFINITY};
    const bool e4[] = {0, 0};
    CHECK(srl__km_median(&km, t4, e4, 2, 0.05) == 0 && km.reached == 0 && isnan(km.median) &&
              isnan(km.lo) && isnan(km.hi), "none reached");
    CHECK(srl__km_median(&km, NULL, NULL, 0, 0.05) == 0 && km.reached == 0 && isnan(km.median),
          "no runs");
    /* Clopper-Pearson, 95%: 1 of 8 is [0.0031597, 0.52651] (the tables' values; the ends solve
     * 1 - (1 - lo)^8 = 0.025 and P(X <= 1; hi) = 0.025); 0 of 8 is [0, 1 - 0.025^(1/8)]. */
    double lo, hi;
    srl__clopper_pearson(&lo, &hi, 1, 8, 0.05);
    CHECK(fabs(lo - (1 - pow(0.975, 0.125))) < 1e-12 && fabs(hi - 0.52651) < 5e-6,
          "1 of 8: [%.17g, %.17g]", lo, hi);
    CHECK(fabs(srl__binom_lower(1, 8, hi) - 0.025) < 1e-12, "hi solves its tail: %.17g",
          srl__binom_lower(1, 8, hi));
    srl__clopper_pearson(&lo, &hi, 0, 8, 0.05);
    CHECK(lo == 0 && fabs(hi - (1 - pow(0.025, 0.125))) < 1e-12, "0 of 8: [%g, %.17g]", lo, hi);
    GROUP("censored times: Kaplan-Meier median and interval, Clopper-Pearson, worked by hand",
          before);
}

/* The journal's checksum is FNV-1a (srlab/rng.h): the published test vectors, and chaining. */
static void test_checksum(void)
{
    long before = srl_test_failures;
    CHECK(srl_fnv1a64("", 0, SRL_FNV1A64_BASIS) == SRL_FNV1A64_BASIS, "empty text");
    CHECK(srl_fnv1a64("a", 1, SRL_FNV1A64_BASIS) == UINT64_C(0xaf63dc4c8601ec8c), "'a'");
    CHECK(srl_fnv1a64("foobar", 6, SRL_FNV1A64_BASIS) == UINT64_C(0x85944171f73967e8), "'foobar'");
    CHECK(srl_fnv1a64("bar", 3, srl_fnv1a64("foo", 3, SRL_FNV1A64_BASIS)) ==
              UINT64_C(0x85944171f73967e8), "'foo' then 'bar' is 'foobar'");
    GROUP("checksum: FNV-1a test vectors", before);
}

int main(void)
{
    test_checksum();
    test_censored();
    test_values();
    test_grid();
    test_runs();
    TEST_END();
}
