/* src/cli/cmd_run.c: `srlab run`: one experiment to tidy CSV (docs/design.md §10-11).
 *
 * Turns `--problem NAME --KEY VALUE...` into a config (the flags without their dashes), runs the
 * runner of kind SRL_RUN_EXPERIMENT once per seed (seeds S, S+1, ..., S+N-1 from --seed S and
 * --seeds N), and writes the rows through src/cli/rows.h: leading '#' lines (version, command,
 * seeds, problem, and the runners' notes), the header, then one block of rows per seed. Each
 * row starts with the axis columns: problem, every key of the problem with the value in force
 * (given or default), and seed. Output goes through cli_out: nothing is written unless every
 * run succeeds, and -o replaces its file atomically.
 * The options of a problem are its runner's parameter table, so a new problem needs no change
 * here (only, optionally, a line describing its columns in `columns_of`). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/runcmd.h"
#include "srlab/run.h"

static const char *const cmd = "run";

static const char help_head[] =
    "usage: srlab run --problem NAME [--KEY VALUE]... [--seed S] [--seeds N] [--threads N] [-o FILE]\n"
    "       srlab run --problem NAME --help     (the problem's keys, defaults and columns)\n"
    "\n"
    "Run one experiment and write its rows as tidy CSV: leading '#' lines (srlab version, the\n"
    "command, the seeds, notes), a header line, then one block of rows per seed. Every row\n"
    "starts with the axis columns: problem, each key of the problem (the value given, or its\n"
    "default) and seed; then the problem's metric columns. Numbers have 17 significant digits.\n"
    "On a terminal, standard error shows the seeds done and the time left while it runs, and\n"
    "a closing line: what ran, in how long, where the rows are.\n"
    "\n"
    "options:\n"
    "  --problem NAME      the experiment (below)\n"
    "  --KEY VALUE         a key of the problem; -f is --format, -r is --rounding\n"
    "  --seed S            the first seed (default 1), decimal or 0x hex\n"
    "  --seeds N           run the seeds S, S+1, ..., S+N-1 (1 <= N <= 100000, default 1), one\n"
    "                      block of rows each\n"
    "  --threads N         threads of each run's kernels (1 to 4096; default: all cores, or\n"
    "                      OMP_NUM_THREADS); the rows are bit-identical for any N\n"
    "  -o, --output FILE   write the CSV to FILE, atomically (default, and - or /dev/stdout:\n"
    "                      standard output)\n"
    "  -h, --help          this help\n"
    "\n";

static const char help_tail[] =
    "\n"
    "exit status: 0 success; 2 bad input (the message names the argument: an unknown problem\n"
    "or key, a value out of range, a size beyond this machine's memory); 3 a system error.\n"
    "\n"
    "examples:\n"
    "  srlab run --problem harmonic -f bf16 -r rn --n 100\n"
    "  srlab run --problem harmonic -f fp16 -r sr --n 2000 --seeds 5 -o harmonic.csv\n"
    "  srlab run --problem sum -f fp16 -r sr --n 100000 --dist uniform --seeds 10\n"
    "  srlab run --problem matvec -f bf16 -r sr --n 512 --m 16\n"
    "  srlab run --problem heat -f fp16 -r sr --m 128 --seeds 8\n";

/* What the metric columns of the problems of src/problems/sum.c mean (theory/T03, T04). */
static const char *columns_of(const char *problem)
{
    if (!strcmp(problem, "harmonic"))
        return "  k           terms summed so far (rows at log-spaced k, the stagnation term, n)\n"
               "  term        t_k = fl(1/k): the exact 1/k rounded once with the mode\n"
               "  sum         s_k = fl(s_{k-1} + t_k)\n"
               "  exact       H_k = 1 + 1/2 + ... + 1/k (MPFR, 256 bits)\n"
               "  rel_err     |s_k - H_k| / H_k\n"
               "  terms_sum   the exact sum of the rounded terms t_1..t_k\n"
               "  stagnation  the first k whose term left the sum unchanged, under a\n"
               "              deterministic mode (permanent from there on: theory T03); under\n"
               "              sr:r=R the first k from which no term can move it (RU(1/k) <\n"
               "              2^-R ulp(s)); 0 if none yet; always 0 under sr and sr-eq\n"
               "  unchanged   how many consecutive terms up to k left the sum unchanged\n";
    if (!strcmp(problem, "sum"))
        return "  k         terms summed (the first k of the run's n terms)\n"
               "  sum       the computed sum s\n"
               "  exact     S = the exact sum (MPFR)\n"
               "  sum_abs   sum |x_i| (exact)\n"
               "  rel_err   |s - S| / sum |x_i|\n"
               "  gamma     the deterministic bound gamma_h(v) (gamma_{k-1}(u) for recursive rn)\n"
               "  sr_rule   lambda sqrt(k) u, the first-order rule of Connolly-Higham-Mary 2021\n"
               "  sr_bound  the rigorous bound for sr of theory T03, holding with probability\n"
               "            >= sr_prob\n"
               "  sr_prob   1 - 2 exp(-lambda^2/2)\n";
    if (!strcmp(problem, "matvec"))
        return "  k         columns of A (and length of x)\n"
               "  rows      rows of A (m, or k when m = 0)\n"
               "  bwd_norm  ||yhat - y||_inf / (||A||_inf ||x||_inf), y exact (MPFR)\n"
               "  bwd_comp  max_i |yhat_i - y_i| / (|A| |x|)_i\n"
               "  nu        k u;   sqrt_nu  sqrt(k) u   (u of the accumulator)\n"
               "  gamma     the deterministic bound of theory T04 (about k u under rn)\n"
               "  sr_bound  the bound of T04 for sr, for all m rows at once with probability\n"
               "            >= sr_prob\n"
               "  sr_prob   1 - 2 exp(-lambda^2/2)\n";
    if (!strcmp(problem, "heat"))
        return "  steps        time steps: round(t / dt), dt = r h^2, h = 1/m\n"
               "  dt, t_final  the time step and the final time steps dt\n"
               "  rms_err      sqrt(mean_j (U_j - V_j)^2) at t, V the same scheme in binary64\n"
               "  max_err      max_j |U_j - V_j|;  rel_rms_err  rms_err / max_j |V_j|\n"
               "  lost_frac    share of updates whose exact change was rounded away\n"
               "  discr_err    max_j |V_j - exp(-pi^2 t) sin(pi x_j)|: the scheme's own error\n"
               "               (theory T15: RN stagnates for small dt, SR grows like dt^-1/4)\n";
    return NULL;
}

static void general_help(FILE *fp, const srl_runner *none)
{
    (void)none;
    fputs(help_head, fp);
    fputs("problems:\n", fp);
    cli_runcmd_print_problems(fp, SRL_RUN_EXPERIMENT);
    fputs(help_tail, fp);
}

static void problem_help(FILE *fp, const srl_runner *r)
{
    fprintf(fp, "usage: srlab run --problem %s [--KEY VALUE]... [--seed S] [--seeds N] "
                  "[-o FILE]\n\n%s: %s\n\nkeys:\n",
            r->name, r->name, r->summary);
    cli_runcmd_print_params(fp, r->params, 13);
    cli_runcmd_print_params(fp, srl_runner_common_params(r->kind), 13);
    fputs("  --seed S      the first seed (default 1); --seeds N runs S..S+N-1\n"
          "  --threads N   threads of each run's kernels (the rows do not depend on it)\n", fp);
    const char *cols = columns_of(r->name);
    if (cols)
        fprintf(fp, "\ncolumns after the axis columns (problem, the keys above, seed):\n%s",
                cols);
    fprintf(fp, "\nexample:\n  srlab run --problem %s -o %s.csv\n", r->name, r->name);
}

/* Axis columns: problem, the keys of the problem (own, then common but seed), seed. */
static int build_axes(cli_runcmd_axes *ax, const srl_runner *r, const srl_config *given)
{
    const srl_param *tables[2] = {r->params, srl_runner_common_params(r->kind)};
    size_t n = 2;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++)
            n++;
    if (cli_runcmd_axes_alloc(ax, n))
        return -1;
    cli_runcmd_axes_add(ax, "problem", r->name);
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++) {
            if (!strcmp(p->key, "seed"))
                continue;
            const char *v = srl_config_get(given, p->key);
            cli_runcmd_axes_add(ax, p->key, v ? v : p->def ? p->def : "");
        }
    cli_runcmd_axes_add(ax, "seed", ax->seed);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    const srl_runner *r;
    int rc = cli_runcmd_runner(cmd, SRL_RUN_EXPERIMENT, general_help, problem_help, argc, argv,
                               &r);
    if (rc || !r)
        return rc;
    cli_runcmd_args a;
    cli_runcmd_axes ax;
    memset(&ax, 0, sizeof ax);
    rc = cli_runcmd_parse(&a, cmd, r, argc, argv);
    if (rc == -1) {
        srl_config_free(a.cfg);
        return cli_runcmd_help(cmd, problem_help, r);
    }
    if (!rc && build_axes(&ax, r, a.cfg))
        rc = cli_sys_error(cmd, "out of memory");
    if (!rc) {
        char seeds_line[320], problem_line[320];
        cli_runcmd_seeds_line(seeds_line, sizeof seeds_line, &a,
                              "pcg32 streams derived from the seed");
        snprintf(problem_line, sizeof problem_line, "problem: %s: %s", r->name, r->summary);
        const char *extra[] = {seeds_line, problem_line, NULL};
        rc = cli_runcmd_execute(cmd, r, &a, &ax, argc, argv, extra, NULL);
    }
    cli_runcmd_axes_free(&ax);
    srl_config_free(a.cfg);
    return rc;
}
