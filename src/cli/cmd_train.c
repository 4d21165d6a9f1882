/* src/cli/cmd_train.c: `srlab train`: one training run (or one per seed) to tidy CSV
 * (docs/design.md §7, §8, §10, §11).
 *
 * Turns `--problem NAME --KEY VALUE...` into a config (the flags without their dashes) and runs
 * the SRL_RUN_TRAIN runner of that problem once per seed (S, S+1, ..., S+N-1 from --seed S
 * --seeds N). Everything about training (keys, defaults, checks, the loop, the rows) is in the
 * library (include/srlab/train.h); this file lays the rows out through src/cli/rows.h: leading
 * '#' lines (version, command, seeds, problem, strategy with its bytes per parameter, notes of
 * diverged runs), a header, then one block of rows per seed. Each row starts with the axis
 * columns problem, opt, strategy, format, rounding, lr (format and rounding: the weight format
 * and weight-write rounding in force, whether given or implied by the strategy), the problem's
 * keys (value in force), every other key given on the command line, and seed.
 * Output goes through cli_out: nothing is written unless every run succeeds (a diverged run is a
 * success: its last row says "diverged", a warning goes to standard error, the exit status is
 * 0), and -o replaces its file atomically. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/runcmd.h"
#include "srlab/optim.h"
#include "srlab/run.h"
#include "srlab/strategy.h"
#include "srlab/train.h"

int cmd_train(int argc, char **argv);

static const char *const cmd = "train";

static const char help_head[] =
    "usage: srlab train --problem NAME [--opt OPT] [--strategy S | --format F --rounding M]\n"
    "                   [--lr LR] [--steps N] [--log-every K] [--KEY VALUE]... [--seed S]\n"
    "                   [--seeds N] [--threads N] [-o FILE]\n"
    "       srlab train --problem NAME --help   (that problem's keys only)\n"
    "\n"
    "Train a problem with an optimizer under a precision strategy and write one row per logged\n"
    "step as tidy CSV: leading '#' lines (srlab version, the command, the seeds, the problem,\n"
    "the strategy and its bytes per parameter, the model's parameter count for mlp and gpt,\n"
    "warnings), a header, then one block of rows per seed. Steps 0, every --log-every, and the\n"
    "last are logged. A run that produces a non-finite weight or gradient stops: its last row\n"
    "has status 'diverged', a warning goes to standard error, and the exit status stays 0 (so a\n"
    "sweep goes on). One output holds at most 500000 rows of at most 512 bytes, each seed\n"
    "counting 4 rows for its notes (at most 252 MiB, so srlab can read it back): --steps,\n"
    "--log-every and --seeds that would write more are refused before the run starts, a\n"
    "wider row at the first (exit 2). The rows stream to a temporary file, not memory.\n"
    "On a terminal, standard error shows the steps done and the time left while it runs, and\n"
    "a closing line: what ran, in how long, where the rows are.\n"
    "\n"
    "options:\n"
    "  --problem NAME      the problem (below)\n"
    "  --KEY VALUE         any key below; -f is --format, -r is --rounding\n"
    "  --seed S            the first seed (default 1), decimal or 0x hex\n"
    "  --seeds N           run seeds S, S+1, ..., S+N-1 (1 <= N <= 100000), a block of rows each\n"
    "  --threads N         threads of each run's kernels (1 to 4096; default: all cores, or\n"
    "                      OMP_NUM_THREADS); the rows are bit-identical for any N\n"
    "  -o, --output FILE   write the CSV to FILE, atomically (default, and - or /dev/stdout:\n"
    "                      standard output)\n"
    "  -h, --help          this help\n"
    "\n"
    "optimizers (--opt), in binary32 or binary64 update arithmetic (see --update-arith):\n"
    "  sgd        x -= lr (g + wd x)\n"
    "  momentum   heavy ball: m = mu m + (g + wd x); x -= lr m\n"
    "  adam       m, v with bias correction; wd is an L2 term added to g\n"
    "  adamw      decoupled weight decay: x -= lr (m_hat / (sqrt(v_hat) + eps) + wd x)\n"
    "\n"
    "strategies (--strategy; every piece can be overridden by the keys below):\n"
    "  fp32           everything fp32, round to nearest\n"
    "  mp             fp32 master weights and moments; bf16 rn cast of the master for\n"
    "                 forward/backward; gradients bf16; update in fp32\n"
    "  bf16-rn        weights, gradients, moments bf16; update in fp32; every write rn\n"
    "  bf16-sr        as bf16-rn, weight written with sr:r=16 of the fp32 value (the seed\n"
    "                 paper's optimizer: a random 16-bit integer added to the fp32 bits)\n"
    "  bf16-sr-exact  as bf16-sr, update in binary64 rounded once with exact sr\n"
    "  bf16-kahan     as bf16-rn plus a bf16 Kahan compensation buffer for the update\n"
    "  mp-tc          as mp, every matrix product accumulated as FP8 tensor cores do: a\n"
    "                 14-bit partial sum (rz) added into fp32 every 128 products\n"
    "  custom         fp32 to start with, set piece by piece\n"
    "--format F --rounding M is shorthand for --param-format F --param-rounding M.\n"
    "Formats: bf16 fp16 fp32 tf32 e4m3 e5m2 fp64 (or bfloat16, half, float8_e4m3fn, ...), or\n"
    "p=P,emax=E[,...]. Roundings: rn rna rz ru rd ro sr sr-eq sr:r=R (or nearest, stochastic,\n"
    "...). Outputs name each by its one name. A strategy with a piece changed from fp32 is\n"
    "named custom in the outputs (fp32 names fp32 everywhere).\n";

static const char help_columns[] =
    "\ncolumns after the axis columns (problem, opt, strategy, format, rounding, lr, the\n"
    "problem's keys, other keys given, seed):\n"
    "  step              optimizer steps taken (0: the initial point)\n"
    "  lr_used           the learning rate of that step under the schedule\n"
    "  loss              the loss at the stored parameters (master if any), in binary64\n"
    "  loss_gap          loss - f*\n"
    "  dist_to_opt       ||x - x*||_2\n"
    "  grad_norm         ||grad f(x)||_2 (exact gradient, without noise)\n"
    "  lost_update_frac  fraction of parameters whose nonzero update left the stored value\n"
    "                    unchanged in that step\n"
    "  status            ok, or diverged\n"
    "  x, m, v           (quad1d) the parameter, and the moments the optimizer keeps (m for\n"
    "                    momentum, adam, adamw; v for adam, adamw)\n";

static const char help_tail[] =
    "\n"
    "exit status: 0 success (also when a run diverged); 2 bad input (the message names the\n"
    "argument: an unknown problem, optimizer, strategy or key, a value out of range, a format\n"
    "that cannot hold the initial values); 3 a system error.\n"
    "\n"
    "examples:\n"
    "  srlab train --problem quad1d --opt sgd --format bf16 --rounding rn --lr 0.01 --steps 500\n"
    "  srlab train --problem quad1d --strategy bf16-sr --lr 0.01 --steps 2000 --seeds 20 -o q.csv\n"
    "  srlab train --problem quadratic --d 1000 --kappa 100 --opt adamw --strategy bf16-sr \\\n"
    "      --lr 1e-2 --wd 0.01 --steps 2000 --log-every 100\n"
    "  srlab train --problem lsq --strategy custom --param-format bf16 --param-rounding sr \\\n"
    "      --grad-format fp32 --lr 0.5\n"
    "  srlab train --problem logreg --opt adam --strategy mp --grad-noise 0.01 --seeds 5\n";

static void general_help(FILE *fp, const srl_runner *none)
{
    (void)none;
    fputs(help_head, fp);
    fputs("\nproblems (--problem):\n", fp);
    cli_runcmd_print_problems(fp, SRL_RUN_TRAIN);
    fputs("\nkeys of every problem (\"strategy\": the value of the --strategy preset):\n", fp);
    cli_runcmd_print_params(fp, srl_runner_common_params(SRL_RUN_TRAIN), 18);
    for (size_t i = 0; i < srl_runner_count(); i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind != SRL_RUN_TRAIN)
            continue;
        fprintf(fp, "\nkeys of --problem %s:\n", r->name);
        cli_runcmd_print_params(fp, r->params, 18);
    }
    fputs(help_columns, fp);
    fputs(help_tail, fp);
}

static void problem_help(FILE *fp, const srl_runner *r)
{
    fprintf(fp, "usage: srlab train --problem %s [--KEY VALUE]... [--seed S] [--seeds N] "
                "[-o FILE]\n\n%s: %s\n\nkeys of %s:\n",
            r->name, r->name, r->summary, r->name);
    cli_runcmd_print_params(fp, r->params, 18);
    fputs("\nkeys of every problem:\n", fp);
    cli_runcmd_print_params(fp, srl_runner_common_params(r->kind), 18);
    fputs("  --seed S           the first seed (default 1); --seeds N runs S..S+N-1\n"
          "  --threads N        threads of each run's kernels (the rows do not depend on it)\n", fp);
    fputs(help_columns, fp);
    fprintf(fp, "\nexample:\n  srlab train --problem %s --opt adamw --strategy bf16-sr --lr 0.01 "
                "-o %s.csv\n", r->name, r->name);
}

/* ---- axis columns ---- */

#define NCORE 6
static const char *const core[NCORE] = {"problem", "opt", "strategy", "format", "rounding", "lr"};
/* Keys the core columns already show. */
static bool shown_by_core(const char *key)
{
    for (int i = 0; i < NCORE; i++)
        if (!strcmp(key, core[i]))
            return true;
    return !strcmp(key, "param-format") || !strcmp(key, "param-rounding") ||
           !strcmp(key, "seed");
}

/* The resolved weight format and rounding the format/rounding columns show. */
typedef struct resolved {
    char format[SRL_FORMAT_NAME_LEN], rounding[32];
} resolved;

static int build_axes(cli_runcmd_axes *ax, resolved *rs, const srl_runner *r,
                      const srl_config *cfg, const srl_strategy *s)
{
    const srl_param *common = srl_runner_common_params(r->kind);
    size_t n = NCORE + 1;
    for (const srl_param *p = r->params; p && p->key; p++)
        n++;
    for (const srl_param *p = common; p && p->key; p++)
        n++;
    if (cli_runcmd_axes_alloc(ax, n))
        return -1;
    snprintf(rs->format, sizeof rs->format, "%s", s->param.fmt.name);
    srl_rounding_name(rs->rounding, sizeof rs->rounding, s->param.mode);
    for (int i = 0; i < NCORE; i++) {
        const char *v = srl_config_get(cfg, core[i]);
        const srl_param *p = srl_runner_param(r, core[i]);
        if (i == 0)
            v = r->name;
        else if (i == 2) /* the name of what runs: custom for fp32 with a piece changed */
            v = s->name;
        else if (i == 3)
            v = rs->format;
        else if (i == 4)
            v = rs->rounding;
        else if (!v)
            v = p && p->def ? p->def : "";
        cli_runcmd_axes_add(ax, core[i], v);
    }
    for (const srl_param *p = r->params; p && p->key; p++) {
        const char *v = srl_config_get(cfg, p->key);
        cli_runcmd_axes_add(ax, p->key, v ? v : p->def ? p->def : "");
    }
    for (const srl_param *p = common; p && p->key; p++) {
        const char *v = srl_config_get(cfg, p->key);
        if (v && !shown_by_core(p->key))
            cli_runcmd_axes_add(ax, p->key, v);
    }
    cli_runcmd_axes_add(ax, "seed", ax->seed);
    return 0;
}

/* ---- the '#' lines ---- */

/* What the rows file says of the run, besides the version and the command. */
typedef struct train_lines {
    char seeds[320], problem[320], strategy[512];
} train_lines;

static void describe_run(train_lines *l, const srl_runner *r, const cli_runcmd_args *a,
                         const srl_train_config *tc)
{
    char streams[200], desc[400];
    const char *kind = tc->rng == SRL_RNG_PCG32 ? "pcg32" : "pcg64";
    if (a->nseeds == 1)
        snprintf(streams, sizeof streams, "%s streams derived from the seed: data, init, "
                 "grad-noise, one per tensor for its writes", kind);
    else
        snprintf(streams, sizeof streams, "%s streams", kind);
    cli_runcmd_seeds_line(l->seeds, sizeof l->seeds, a, streams);
    snprintf(l->problem, sizeof l->problem, "problem: %s: %s", r->name, r->summary);
    const srl_bytes by = srl_strategy_bytes(&tc->strat, srl_optim_has_m(tc->opt.kind),
                                            srl_optim_has_v(tc->opt.kind));
    snprintf(l->strategy, sizeof l->strategy, "strategy: %s: %s; %zu bytes per parameter with %s",
             tc->strat.name, srl_strategy_describe(desc, sizeof desc, &tc->strat), by.total,
             srl_optim_names[tc->opt.kind]);
}

/* ---- the command ---- */

/* The options parsed into a config and its common keys checked (before any output exists; the
 * runner checks its own again), then every seed run and written. */
static int train(const srl_runner *r, int argc, char **argv)
{
    cli_runcmd_args a;
    cli_runcmd_axes ax;
    resolved rs;
    memset(&ax, 0, sizeof ax);
    int rc = cli_runcmd_parse(&a, cmd, r, argc, argv), ndiverged = 0;
    if (rc == -1) {
        srl_config_free(a.cfg);
        return cli_runcmd_help(cmd, problem_help, r);
    }
    srl_train_config tc;
    srl_err err;
    err.msg[0] = 0;
    int st = rc ? SRL_OK : srl_train_config_from(&tc, a.cfg, &err);
    if (!rc && st)
        rc = cli_runcmd_error(cmd, r, st, &err);
    if (!rc && build_axes(&ax, &rs, r, a.cfg, &tc.strat))
        rc = cli_sys_error(cmd, "out of memory");
    if (!rc) {
        train_lines l;
        describe_run(&l, r, &a, &tc);
        const char *extra[] = {l.seeds, l.problem, l.strategy, NULL};
        rc = cli_runcmd_execute(cmd, r, &a, &ax, argc, argv, extra, &ndiverged);
    }
    cli_runcmd_axes_free(&ax);
    srl_config_free(a.cfg);
    return rc;
}

int cmd_train(int argc, char **argv)
{
    const srl_runner *r;
    int rc = cli_runcmd_runner(cmd, SRL_RUN_TRAIN, general_help, problem_help, argc, argv, &r);
    if (rc || !r)
        return rc;
    return train(r, argc, argv);
}
