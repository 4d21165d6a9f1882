/* src/cli/cmd_train.c: `srlab train`: one training run (or one per seed) to tidy CSV
 * (DESIGN §7, §8, §10, §11).
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

#include "cli.h"
#include "rows.h"
#include "srlab/optim.h"
#include "srlab/run.h"
#include "srlab/strategy.h"
#include "srlab/train.h"

int cmd_train(int argc, char **argv);

static const char *const cmd = "train";

#define MAX_SEEDS 100000

static const char help_head[] =
    "usage: srlab train --problem NAME [--opt OPT] [--strategy S | --format F --rounding M]\n"
    "                   [--lr LR] [--steps N] [--log-every K] [--KEY VALUE]... [--seed S]\n"
    "                   [--seeds N] [-o FILE]\n"
    "       srlab train --problem NAME --help   (that problem's keys only)\n"
    "\n"
    "Train a problem with an optimizer under a precision strategy and write one row per logged\n"
    "step as tidy CSV: leading '#' lines (srlab version, the command, the seeds, the problem,\n"
    "the strategy and its bytes per parameter, warnings), a header, then one block of rows per\n"
    "seed. Steps 0, every --log-every, and the last are logged. A run that produces a\n"
    "non-finite weight or gradient stops: its last row has status 'diverged', a warning goes to\n"
    "standard error, and the exit status stays 0 (so a sweep goes on).\n"
    "\n"
    "options:\n"
    "  --problem NAME      the problem (below)\n"
    "  --KEY VALUE         any key below; -f is --format, -r is --rounding\n"
    "  --seed S            the first seed (default 1), decimal or 0x hex\n"
    "  --seeds N           run seeds S, S+1, ..., S+N-1 (1 <= N <= 100000), a block of rows each\n"
    "  -o, --output FILE   write the CSV to FILE, atomically (default standard output)\n"
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
    "  custom         fp32 to start with, set piece by piece\n"
    "--format F --rounding M is shorthand for --param-format F --param-rounding M.\n"
    "Formats: bf16 fp16 fp32 tf32 e4m3 e5m2 fp64, or p=P,emax=E[,...]. Roundings: rn rna rz ru\n"
    "rd ro sr sr-eq sr:r=R.\n";

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

static void print_params(FILE *fp, const srl_param *t)
{
    for (; t && t->key; t++) {
        if (!strcmp(t->key, "seed"))
            continue;
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", t->key);
        fprintf(fp, "  %-18s %s", flag, t->help);
        if (t->def && *t->def)
            fprintf(fp, " (default %s)", t->def);
        else if (!t->def)
            fputs(" (required)", fp);
        fputc('\n', fp);
    }
}

static int general_help(void)
{
    cli_out o;
    int rc = cli_out_open(&o, cmd, NULL, NULL);
    if (rc)
        return rc;
    fputs(help_head, o.fp);
    fputs("\nproblems (--problem):\n", o.fp);
    for (size_t i = 0; i < srl_runner_count(); i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind == SRL_RUN_TRAIN)
            fprintf(o.fp, "  %-10s %s\n", r->name, r->summary);
    }
    fputs("\nkeys of every problem (\"strategy\": the value of the --strategy preset):\n", o.fp);
    print_params(o.fp, srl_runner_common_params(SRL_RUN_TRAIN));
    for (size_t i = 0; i < srl_runner_count(); i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind != SRL_RUN_TRAIN)
            continue;
        fprintf(o.fp, "\nkeys of --problem %s:\n", r->name);
        print_params(o.fp, r->params);
    }
    fputs(help_columns, o.fp);
    fputs(help_tail, o.fp);
    return cli_out_commit(&o);
}

static int problem_help(const srl_runner *r)
{
    cli_out o;
    int rc = cli_out_open(&o, cmd, NULL, NULL);
    if (rc)
        return rc;
    fprintf(o.fp, "usage: srlab train --problem %s [--KEY VALUE]... [--seed S] [--seeds N] "
                  "[-o FILE]\n\n%s: %s\n\nkeys of %s:\n",
            r->name, r->name, r->summary, r->name);
    print_params(o.fp, r->params);
    fputs("\nkeys of every problem:\n", o.fp);
    print_params(o.fp, srl_runner_common_params(r->kind));
    fputs("  --seed S           the first seed (default 1); --seeds N runs S..S+N-1\n", o.fp);
    fputs(help_columns, o.fp);
    fprintf(o.fp, "\nexample:\n  srlab train --problem %s --opt adamw --strategy bf16-sr --lr 0.01 "
                  "-o %s.csv\n", r->name, r->name);
    return cli_out_commit(&o);
}

static const char *find_problem(int argc, char **argv)
{
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--problem") && i + 1 < argc)
            name = argv[++i];
        else if (!strncmp(argv[i], "--problem=", 10))
            name = argv[i] + 10;
    }
    return name;
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    }
    return false;
}

static void list_problems(char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < srl_runner_count() && k + 2 < len; i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind == SRL_RUN_TRAIN)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", r->name);
    }
}

/* A library message names a config key ("lr: ..."); the user typed it as --lr. */
static int run_error(const srl_runner *r, int st, const srl_err *err)
{
    const char *msg = err->msg[0] ? err->msg : srl_strerror(st);
    const char *colon = strchr(msg, ':');
    char key[64];
    bool is_key = false;
    if (colon && (size_t)(colon - msg) < sizeof key) {
        memcpy(key, msg, (size_t)(colon - msg));
        key[colon - msg] = 0;
        is_key = srl_runner_param(r, key) != NULL;
    }
    if (st == SRL_ENOMEM || st == SRL_EIO)
        return cli_sys_error(cmd, "%s%s", is_key ? "--" : "", msg);
    return cli_error(cmd, "%s%s", is_key ? "--" : "", msg);
}

typedef struct train_opts {
    cli_opt *opts;
    const srl_param **param; /* the key of option i, or NULL for a fixed one */
    size_t n;
} train_opts;

enum { O_PROBLEM, O_OUTPUT, O_SEED, O_SEEDS, O_FIXED };

static int build_opts(train_opts *t, const srl_runner *r)
{
    const srl_param *tables[2] = {r->params, srl_runner_common_params(r->kind)};
    size_t n = O_FIXED;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++)
            n++;
    t->opts = calloc(n + 1, sizeof *t->opts);
    t->param = calloc(n + 1, sizeof *t->param);
    if (!t->opts || !t->param)
        return -1;
    t->opts[O_PROBLEM] = (cli_opt){"problem", 0, "NAME"};
    t->opts[O_OUTPUT] = (cli_opt){"output", 'o', "FILE"};
    t->opts[O_SEED] = (cli_opt){"seed", 0, "S"};
    t->opts[O_SEEDS] = (cli_opt){"seeds", 0, "N"};
    n = O_FIXED;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++) {
            if (!strcmp(p->key, "seed") || !strcmp(p->key, "problem"))
                continue;
            char letter = !strcmp(p->key, "format") ? 'f' : !strcmp(p->key, "rounding") ? 'r' : 0;
            t->opts[n] = (cli_opt){p->key, letter, "VALUE"};
            t->param[n] = p;
            n++;
        }
    t->opts[n] = (cli_opt){NULL, 0, NULL};
    t->n = n;
    return 0;
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

typedef struct axes {
    const char **names, **values;
    char format[SRL_FORMAT_NAME_LEN], rounding[32], seed[24];
    size_t n;
} axes;

static int build_axes(axes *a, const srl_runner *r, const srl_config *cfg,
                      const srl_strategy *s)
{
    const srl_param *common = srl_runner_common_params(r->kind);
    size_t n = NCORE + 1;
    for (const srl_param *p = r->params; p && p->key; p++)
        n++;
    for (const srl_param *p = common; p && p->key; p++)
        n++;
    a->names = calloc(n, sizeof *a->names);
    a->values = calloc(n, sizeof *a->values);
    if (!a->names || !a->values)
        return -1;
    snprintf(a->format, sizeof a->format, "%s", s->param.fmt.name);
    srl_rounding_name(a->rounding, sizeof a->rounding, s->param.mode);
    n = 0;
    for (int i = 0; i < NCORE; i++) {
        a->names[n] = core[i];
        const char *v = srl_config_get(cfg, core[i]);
        const srl_param *p = srl_runner_param(r, core[i]);
        if (i == 0)
            v = r->name;
        else if (i == 3)
            v = a->format;
        else if (i == 4)
            v = a->rounding;
        else if (!v)
            v = p && p->def ? p->def : "";
        a->values[n++] = v;
    }
    for (const srl_param *p = r->params; p && p->key; p++) {
        const char *v = srl_config_get(cfg, p->key);
        a->names[n] = p->key;
        a->values[n++] = v ? v : p->def ? p->def : "";
    }
    for (const srl_param *p = common; p && p->key; p++) {
        const char *v = srl_config_get(cfg, p->key);
        if (!v || shown_by_core(p->key))
            continue;
        a->names[n] = p->key;
        a->values[n++] = v;
    }
    a->names[n] = "seed";
    a->values[n++] = a->seed;
    a->n = n;
    return 0;
}

static int run_seeds(const srl_runner *r, srl_config *cfg, axes *ax, uint64_t seed0,
                     uint64_t nseeds, FILE *body, FILE *notes, int *ndiverged)
{
    cli_rows w;
    cli_rows_init(&w, body, ax->n, ax->names);
    cli_rows_set_axis_values(&w, ax->values);
    srl_sink sink = cli_rows_sink(&w);
    int rc = 0;
    for (uint64_t b = 0; b < nseeds && !rc; b++) {
        const uint64_t seed = seed0 + b;
        snprintf(ax->seed, sizeof ax->seed, "%" PRIu64, seed);
        if (srl_config_set(cfg, "seed", ax->seed) != SRL_OK) {
            rc = cli_sys_error(cmd, "out of memory");
            break;
        }
        srl_run_report rep;
        srl_err err;
        err.msg[0] = 0;
        const int st = srl_run(r, cfg, &sink, &rep, &err);
        if (st) {
            rc = run_error(r, st, &err);
            break;
        }
        if (rep.diverged)
            (*ndiverged)++;
        if (rep.note[0]) {
            fprintf(notes, "# %s (seed %" PRIu64 "): %s\n", rep.diverged ? "warning" : "note",
                    seed, rep.note);
            fprintf(stderr, "srlab train: %sseed %" PRIu64 ": %s\n",
                    rep.diverged ? "warning: " : "", seed, rep.note);
        }
    }
    cli_rows_free(&w);
    return rc;
}

int cmd_train(int argc, char **argv)
{
    const char *name = find_problem(argc, argv);
    char known[256], q[CLI_QUOTE_LEN];
    list_problems(known, sizeof known);
    if (!name) {
        if (wants_help(argc, argv))
            return general_help();
        return cli_error(cmd, "--problem is required (known: %s; see 'srlab train --help')",
                         known);
    }
    const srl_runner *r = srl_runner_find(SRL_RUN_TRAIN, name);
    if (!r) {
        cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX);
        return cli_error(cmd, "--problem: unknown problem %s (known: %s)", q, known);
    }
    if (wants_help(argc, argv))
        return problem_help(r);

    train_opts t = {NULL, NULL, 0};
    axes ax;
    memset(&ax, 0, sizeof ax);
    srl_config *cfg = srl_config_new();
    char *mem = NULL, *notes_mem = NULL;
    size_t memlen = 0, notes_len = 0;
    FILE *body = NULL, *notes = NULL;
    cli_out out;
    bool out_open = false;
    int rc = 0, ndiverged = 0;
    if (!cfg || build_opts(&t, r)) {
        rc = cli_sys_error(cmd, "out of memory");
        goto done;
    }
    uint64_t seed = 1, nseeds = 1;
    const char *path = NULL;
    cli_args a;
    cli_args_init(&a, cmd, t.opts, argc, argv);
    int k;
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: rc = problem_help(r); goto done;
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL:
            cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX);
            rc = cli_error(cmd, "unexpected argument %s (options are --KEY VALUE; see 'srlab "
                                "train --problem %s --help')", q, r->name);
            break;
        case O_PROBLEM: break; /* found above */
        case O_OUTPUT: path = a.val; break;
        case O_SEED: rc = cli_parse_seed(cmd, a.opt, a.val, &seed); break;
        case O_SEEDS: rc = cli_parse_count(cmd, a.opt, a.val, 1, MAX_SEEDS, &nseeds); break;
        default:
            if (srl_config_get(cfg, t.param[k]->key))
                rc = cli_error(cmd, "%s: given twice", a.opt);
            else if (srl_config_set(cfg, t.param[k]->key, a.val) != SRL_OK)
                rc = cli_sys_error(cmd, "out of memory");
            break;
        }
    }
    if (rc)
        goto done;
    /* Check the common keys before any output exists; the runner checks its own again. */
    srl_train_config tc;
    srl_err err;
    err.msg[0] = 0;
    int st = srl_train_config_from(&tc, cfg, &err);
    if (st) {
        rc = run_error(r, st, &err);
        goto done;
    }
    if (build_axes(&ax, r, cfg, &tc.strat)) {
        rc = cli_sys_error(cmd, "out of memory");
        goto done;
    }
    if ((rc = cli_out_open(&out, cmd, "-o", path)))
        goto done;
    out_open = true;
    body = open_memstream(&mem, &memlen);
    notes = open_memstream(&notes_mem, &notes_len);
    if (!body || !notes) {
        rc = cli_sys_error(cmd, "cannot buffer the output: %s", strerror(errno));
        goto done;
    }
    if ((rc = run_seeds(r, cfg, &ax, seed, nseeds, body, notes, &ndiverged)))
        goto done;
    if (fclose(body) != 0 || fclose(notes) != 0) {
        body = notes = NULL;
        rc = cli_sys_error(cmd, "cannot buffer the output: %s", strerror(errno));
        goto done;
    }
    body = notes = NULL;
    char seeds_line[200], problem_line[320], strat_line[512], desc[400];
    const char *kind = tc.rng == SRL_RNG_PCG32 ? "pcg32" : "pcg64";
    if (nseeds == 1)
        snprintf(seeds_line, sizeof seeds_line, "seeds: %" PRIu64 " (%s streams derived from the "
                 "seed: data, init, grad-noise, one per tensor for its writes)", seed, kind);
    else
        snprintf(seeds_line, sizeof seeds_line, "seeds: %" PRIu64 " to %" PRIu64 " (--seed S "
                 "--seeds N: S, S+1, ..., S+N-1; one block of rows each; %s streams)", seed,
                 seed + nseeds - 1, kind);
    snprintf(problem_line, sizeof problem_line, "problem: %s: %s", r->name, r->summary);
    const srl_bytes by = srl_strategy_bytes(&tc.strat, srl_opt_has_m(tc.opt.kind),
                                            srl_opt_has_v(tc.opt.kind));
    snprintf(strat_line, sizeof strat_line, "strategy: %s: %s; %zu bytes per parameter with %s",
             tc.strat.name, srl_strategy_describe(desc, sizeof desc, &tc.strat), by.total,
             srl_opt_names[tc.opt.kind]);
    const char *extra[] = {seeds_line, problem_line, strat_line, NULL};
    cli_rows_preamble(out.fp, argc, argv, extra);
    if ((notes_len && fwrite(notes_mem, 1, notes_len, out.fp) != notes_len) ||
        (memlen && fwrite(mem, 1, memlen, out.fp) != memlen)) {
        rc = cli_sys_error(cmd, "cannot write the output: %s", strerror(errno));
        goto done;
    }
    rc = cli_out_commit(&out);
    out_open = false;
done:
    if (body)
        fclose(body);
    if (notes)
        fclose(notes);
    if (out_open)
        cli_out_abort(&out);
    free(mem);
    free(notes_mem);
    free(t.opts);
    free(t.param);
    free(ax.names);
    free(ax.values);
    srl_config_free(cfg);
    return rc;
}
