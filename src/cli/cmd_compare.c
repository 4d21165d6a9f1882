/* src/cli/cmd_compare.c: `srlab compare RUNS.csv --baseline LEVEL [...]`: paired comparisons of a
 * sweep's runs with Holm's correction and the minimum detectable difference (the statistics
 * are the library's: include/srlab/compare.h, src/sweep/compare.c). This file reads the runs
 * file, writes the CSV (atomically) and prints a one-line verdict count on standard error. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "cli/set.h"
#include "srlab/compare.h"

#define CMD "compare"

static const char help_text[] =
    "usage: srlab compare RUNS.csv --baseline LEVEL [--axis NAME] [--metric COL] [--alpha A]\n"
    "                     [--power P] [--at-best AXIS] [--margin D] [-o FILE]\n"
    "\n"
    "Compare every level of one axis of a sweep (default: strategy) with a baseline level, at\n"
    "every grid point of the other axes (each learning rate, say), seed by seed: a seed fixes\n"
    "the data, the initialisation and the random streams, so the paired difference\n"
    "metric(level, seed) - metric(baseline, seed) removes the spread the two runs share.\n"
    "RUNS.csv is the runs file of srlab sweep (NAME.runs.csv, or the merge of shards).\n"
    "\n"
    "Per comparison: pairs, mean difference, its standard deviation and standard error, the\n"
    "paired t on pairs-1 degrees of freedom and its two-sided p; p_holm, p adjusted by Holm's\n"
    "step-down method over all comparisons made (family-wise error rate alpha); the verdict\n"
    "(lower, higher: the level's metric against the baseline's, resolved at alpha after the\n"
    "correction; not resolved; too few pairs); and mdd, the minimum detectable difference:\n"
    "the |mean difference| a two-sided test at level alpha/m would find with probability P\n"
    "if the pairs' true spread were the one observed. 'not resolved' with mdd 0.01 means a\n"
    "difference below about 0.01 was out of this study's reach, not that there is none.\n"
    "To show that there is none, give a margin: --margin D tests equivalence (two one-sided\n"
    "tests, TOST, Holm over the same comparisons) and adds eq_bound (the smallest margin the\n"
    "test accepts at level alpha/m: the difference lies within it at confidence 1 - alpha),\n"
    "p_tost, p_tost_holm and the verdict 'equivalent' or 'not shown'.\n"
    "A run whose metric is not finite (diverged) leaves its seed unpaired (column unpaired).\n"
    "\n"
    "options:\n"
    "  --baseline LEVEL   the level every other level is compared with (required), e.g. mp\n"
    "  --axis NAME        the compared axis column (default strategy)\n"
    "  --metric COL       the per-run column compared (default final_val_loss when the file\n"
    "                     has it, the models' validation loss, else final_loss)\n"
    "  --alpha A          family-wise level, 0 < A < 1 (default 0.05)\n"
    "  --power P          power of the minimum detectable difference, 0 < P < 1 (default 0.8)\n"
    "  --at-best AXIS     compare each level at its own best value of AXIS (e.g. lr: the one\n"
    "                     whose mean metric over its seeds is lowest, every run finite) with\n"
    "                     the baseline at its own best: each strategy tuned against the\n"
    "                     baseline tuned. Columns AXIS_level, AXIS_baseline name the values;\n"
    "                     they are chosen from the same runs, so p does not account for the\n"
    "                     choice (a noisy level's best looks better than it is)\n"
    "  --margin D         also test equivalence within D (D > 0, in the metric's unit)\n"
    "  -o, --output FILE  the CSV (default, and - or /dev/stdout: standard output); its '#'\n"
    "                     lines repeat the runs file's (version, command, seeds) and state\n"
    "                     the method\n"
    "\n"
    "examples:\n"
    "  srlab sweep gpt_lr --quick -o g.csv\n"
    "  srlab compare g.runs.csv --baseline mp -o g.compare.csv\n"
    "  srlab compare g.runs.csv --baseline mp --at-best lr\n"
    "  srlab compare g.runs.csv --baseline mp --margin 0.01\n"
    "  srlab compare stall.runs.csv --baseline bf16-sr --metric final_loss_gap\n";

typedef struct args {
    const char *in, *out;
    srl_compare_opts o;
} args;

static int parse_args(int argc, char **argv, args *a, bool *help)
{
    enum { O_BASE, O_AXIS, O_METRIC, O_ALPHA, O_POWER, O_BEST, O_MARGIN, O_OUT };
    static const cli_opt opts[] = {[O_BASE] = {"baseline", 0, "LEVEL"},
                                   [O_AXIS] = {"axis", 0, "NAME"},
                                   [O_METRIC] = {"metric", 0, "COL"},
                                   [O_ALPHA] = {"alpha", 0, "A"},
                                   [O_POWER] = {"power", 0, "P"},
                                   [O_BEST] = {"at-best", 0, "AXIS"},
                                   [O_MARGIN] = {"margin", 0, "D"},
                                   [O_OUT] = {"output", 'o', "FILE"},
                                   {NULL, 0, NULL}};
    a->o = (srl_compare_opts){.axis = "strategy", .alpha = 0.05, .power = 0.8};
    cli_args c;
    cli_args_init(&c, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&c)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            *help = true;
            return cli_help(help_text);
        }
        if (k == CLI_ARGS_BAD)
            return CLI_EXIT_USAGE;
        if (k == CLI_ARGS_POSITIONAL) {
            if (a->in)
                return cli_error(CMD, "one runs file only (%s and %s given)", a->in, c.val);
            a->in = c.val;
            continue;
        }
        int rc = 0;
        switch (k) {
        case O_BASE: a->o.baseline = c.val; break;
        case O_AXIS: a->o.axis = c.val; break;
        case O_METRIC: a->o.metric = c.val; break;
        case O_BEST: a->o.at_best = c.val; break;
        case O_ALPHA: rc = cli_parse_real(CMD, c.opt, c.val, &a->o.alpha); break;
        case O_POWER: rc = cli_parse_real(CMD, c.opt, c.val, &a->o.power); break;
        case O_MARGIN: rc = cli_parse_real(CMD, c.opt, c.val, &a->o.margin); break;
        default: a->out = c.val; break;
        }
        if (rc)
            return rc;
        if ((k == O_ALPHA && !(a->o.alpha > 0 && a->o.alpha < 1)) ||
            (k == O_POWER && !(a->o.power > 0 && a->o.power < 1)))
            return cli_error(CMD, "%s %s: must lie strictly between 0 and 1", c.opt, c.val);
        if (k == O_MARGIN && !(a->o.margin > 0 && a->o.margin < INFINITY))
            return cli_error(CMD, "%s %s: must be a finite number > 0", c.opt, c.val);
    }
    if (!a->in)
        return cli_error(CMD, "no runs file (srlab compare RUNS.csv --baseline LEVEL)");
    if (!a->o.baseline)
        return cli_error(CMD, "no --baseline: name the level of --axis %s the others are "
                         "compared with (e.g. --baseline mp)", a->o.axis);
    return 0;
}

/* Field k counted from the end (0: the last) of the line p..nl; its length in *fl. The
 * fields after the keys are numbers and words, never quoted, so counting commas from the end
 * is exact. */
static const char *field_from_end(const char *p, const char *nl, size_t k, size_t *fl)
{
    const char *e = nl;
    for (const char *q = nl; q > p; q--)
        if (q[-1] == ',') {
            if (!k--) {
                *fl = (size_t)(e - q);
                return q;
            }
            e = q - 1;
        }
    *fl = (size_t)(e - p);
    return k ? NULL : p;
}

static bool is(const char *f, size_t fl, const char *word)
{
    return f && fl == strlen(word) && !memcmp(f, word, fl);
}

/* "8 comparisons, 1 resolved ..." from the CSV's verdict column (the last field of each line,
 * or the fifth from the end before eq_bound, p_tost, p_tost_holm and equivalence). */
static void report(const char *csv, size_t len, double margin)
{
    size_t n = 0, res = 0, few = 0, eqv = 0, fl;
    const char *p = csv, *end = csv + len;
    bool header_seen = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        if (*p != '#' && header_seen) {
            n++;
            const char *v = field_from_end(p, nl, margin > 0 ? 4 : 0, &fl);
            res += is(v, fl, "lower") || is(v, fl, "higher");
            few += is(v, fl, "too few pairs");
            if (margin > 0) {
                const char *e = field_from_end(p, nl, 0, &fl);
                eqv += is(e, fl, "equivalent");
            }
        } else if (*p != '#') {
            header_seen = true;
        }
        p = nl + 1;
    }
    fprintf(stderr, "srlab compare: %zu comparisons, %zu resolved after Holm's correction, %zu "
            "with too few pairs", n, res, few);
    if (margin > 0)
        fprintf(stderr, "; %zu equivalent within %g", eqv, margin);
    fputc('\n', stderr);
}

int cmd_compare(int argc, char **argv)
{
    args a = {0};
    bool help = false;
    int rc = parse_args(argc, argv, &a, &help);
    if (rc || help)
        return rc;
    char q[CLI_QUOTE_LEN];
    cli_out o;
    if ((rc = cli_out_open(&o, CMD, "-o", a.out)))
        return rc;
    char *data = NULL, *csv = NULL;
    size_t n = 0, len = 0;
    int e = cli_read_file(a.in, &data, &n);
    if (e) {
        rc = cli_error(CMD, "cannot read %s: %s", cli_quote(q, sizeof q, a.in, strlen(a.in), 200),
                       cli_read_strerror(e));
    } else if (!(rc = cli_set_check(CMD, "RUNS.csv", a.in, data, n))) { /* src/cli/set.h */
        srl_sweep_text t = {a.in, data, n};
        srl_err err;
        int st = srl_sweep_compare(&t, &a.o, &csv, &len, &err);
        if (st)
            rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                  : cli_error(CMD, "%s", err.msg);
    }
    if (!rc) {
        fwrite(csv, 1, len, o.fp);
        rc = cli_out_commit(&o);
    }
    if (!rc)
        report(csv, len, a.o.margin);
    cli_out_abort(&o);
    free(data);
    free(csv);
    return rc;
}
