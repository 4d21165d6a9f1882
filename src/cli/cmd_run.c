/* src/cli/cmd_run.c: `srlab run`: one experiment to tidy CSV (DESIGN §10-11).
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

#include "cli.h"
#include "rows.h"
#include "srlab/run.h"

static const char *const cmd = "run";

#define MAX_SEEDS 100000

static const char help_head[] =
    "usage: srlab run --problem NAME [--KEY VALUE]... [--seed S] [--seeds N] [-o FILE]\n"
    "       srlab run --problem NAME --help     (the problem's keys, defaults and columns)\n"
    "\n"
    "Run one experiment and write its rows as tidy CSV: leading '#' lines (srlab version, the\n"
    "command, the seeds, notes), a header line, then one block of rows per seed. Every row\n"
    "starts with the axis columns: problem, each key of the problem (the value given, or its\n"
    "default) and seed; then the problem's metric columns. Numbers have 17 significant digits.\n"
    "\n"
    "options:\n"
    "  --problem NAME      the experiment (below)\n"
    "  --KEY VALUE         a key of the problem; -f is --format, -r is --rounding\n"
    "  --seed S            the first seed (default 1), decimal or 0x hex\n"
    "  --seeds N           run the seeds S, S+1, ..., S+N-1 (1 <= N <= 100000, default 1), one\n"
    "                      block of rows each\n"
    "  -o, --output FILE   write the CSV to FILE, atomically (default standard output)\n"
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
    "  srlab run --problem matvec -f bf16 -r sr --n 512 --m 16\n";

/* What the metric columns of the problems of src/problems_sum.c mean (theory/T03, T04). */
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
    return NULL;
}

static int general_help(void)
{
    cli_out o;
    int rc = cli_out_open(&o, cmd, NULL, NULL);
    if (rc)
        return rc;
    fputs(help_head, o.fp);
    fputs("problems:\n", o.fp);
    for (size_t i = 0; i < srl_runner_count(); i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind == SRL_RUN_EXPERIMENT)
            fprintf(o.fp, "  %-10s %s\n", r->name, r->summary);
    }
    fputs(help_tail, o.fp);
    return cli_out_commit(&o);
}

/* The words of text from column `indent` on, wrapped before column 99, continuation lines
 * indented as the first. */
static void print_wrapped(FILE *fp, const char *text, int indent)
{
    const int width = 98;
    int col = indent;
    while (*text) {
        const char *sp = strchr(text, ' ');
        const int len = sp ? (int)(sp - text) : (int)strlen(text);
        if (col > indent && col + 1 + len > width) {
            fprintf(fp, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', fp);
            col++;
        }
        fwrite(text, 1, (size_t)len, fp);
        col += len;
        text += len;
        while (*text == ' ')
            text++;
    }
    fputc('\n', fp);
}

static void print_params(FILE *fp, const srl_param *t)
{
    for (; t && t->key; t++) {
        if (!strcmp(t->key, "seed"))
            continue;
        char flag[64], line[768];
        snprintf(flag, sizeof flag, "--%s", t->key);
        fprintf(fp, "  %-13s ", flag);
        snprintf(line, sizeof line, "%s%s%s%s", t->help,
                 t->def && *t->def ? " (default " : !t->def ? " (required)" : "",
                 t->def && *t->def ? t->def : "", t->def && *t->def ? ")" : "");
        print_wrapped(fp, line, 16);
    }
}

static int problem_help(const srl_runner *r)
{
    cli_out o;
    int rc = cli_out_open(&o, cmd, NULL, NULL);
    if (rc)
        return rc;
    fprintf(o.fp, "usage: srlab run --problem %s [--KEY VALUE]... [--seed S] [--seeds N] "
                  "[-o FILE]\n\n%s: %s\n\nkeys:\n",
            r->name, r->name, r->summary);
    print_params(o.fp, r->params);
    print_params(o.fp, srl_runner_common_params(r->kind));
    fputs("  --seed S      the first seed (default 1); --seeds N runs S..S+N-1\n", o.fp);
    const char *cols = columns_of(r->name);
    if (cols)
        fprintf(o.fp, "\ncolumns after the axis columns (problem, the keys above, seed):\n%s",
                cols);
    fprintf(o.fp, "\nexample:\n  srlab run --problem %s -o %s.csv\n", r->name, r->name);
    return cli_out_commit(&o);
}

/* The value of --problem, found before the options are parsed (they depend on it); NULL if
 * absent. */
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
        if (r->kind == SRL_RUN_EXPERIMENT)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", r->name);
    }
}

/* A runner's message names a config key ("n: ..."); the user typed it as --n. */
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

typedef struct run_opts {
    cli_opt *opts;           /* fixed options, then one per key of the problem */
    const srl_param **param; /* the key of option i, or NULL for a fixed one */
    size_t n;
} run_opts;

enum { O_PROBLEM, O_OUTPUT, O_SEED, O_SEEDS, O_FIXED };

static int build_opts(run_opts *t, const srl_runner *r)
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

/* Axis columns: problem, the keys of the problem (own, then common but seed), seed. */
typedef struct axes {
    const char **names, **values;
    char seed[24];
    size_t n;
} axes;

static int build_axes(axes *a, const srl_runner *r, const srl_config *given)
{
    const srl_param *tables[2] = {r->params, srl_runner_common_params(r->kind)};
    size_t n = 2;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++)
            n++;
    a->names = calloc(n, sizeof *a->names);
    a->values = calloc(n, sizeof *a->values);
    if (!a->names || !a->values)
        return -1;
    n = 0;
    a->names[n] = "problem";
    a->values[n++] = r->name;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++) {
            if (!strcmp(p->key, "seed"))
                continue;
            const char *v = srl_config_get(given, p->key);
            a->names[n] = p->key;
            a->values[n++] = v ? v : p->def ? p->def : "";
        }
    a->names[n] = "seed";
    a->values[n++] = a->seed;
    a->n = n;
    return 0;
}

/* Run every seed into `body`; notes go to `notes` (one '#' line each) and standard error. */
static int run_seeds(const srl_runner *r, srl_config *cfg, axes *ax, uint64_t seed0,
                     uint64_t nseeds, FILE *body, FILE *notes)
{
    cli_rows w;
    cli_rows_init(&w, body, ax->n, ax->names);
    cli_rows_set_axis_values(&w, ax->values);
    srl_sink sink = cli_rows_sink(&w);
    int rc = 0;
    for (uint64_t b = 0; b < nseeds && !rc; b++) {
        const uint64_t seed = seed0 + b; /* wraps modulo 2^64, like every seed */
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
        if (rep.note[0]) {
            fprintf(notes, "# note (seed %" PRIu64 "): %s\n", seed, rep.note);
            fprintf(stderr, "srlab run: seed %" PRIu64 ": %s\n", seed, rep.note);
        }
    }
    cli_rows_free(&w);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    const char *name = find_problem(argc, argv);
    char known[256], q[CLI_QUOTE_LEN];
    list_problems(known, sizeof known);
    if (!name) {
        if (wants_help(argc, argv))
            return general_help();
        return cli_error(cmd, "--problem is required (known: %s; see 'srlab run --help')", known);
    }
    const srl_runner *r = srl_runner_find(SRL_RUN_EXPERIMENT, name);
    if (!r) {
        cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX);
        if (srl_runner_find(SRL_RUN_TRAIN, name))
            return cli_error(cmd, "--problem: %s is a training problem: see 'srlab train "
                                  "--help' (experiments: %s)", q, known);
        return cli_error(cmd, "--problem: unknown problem %s (known: %s)", q, known);
    }
    if (wants_help(argc, argv))
        return problem_help(r);

    run_opts t = {NULL, NULL, 0};
    axes ax;
    memset(&ax, 0, sizeof ax);
    srl_config *cfg = srl_config_new();
    char *mem = NULL, *notes_mem = NULL;
    size_t memlen = 0, notes_len = 0;
    FILE *body = NULL, *notes = NULL;
    cli_out out;
    bool out_open = false;
    int rc = 0;
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
            rc = cli_error(cmd, "unexpected argument %s (options are --KEY VALUE; see 'srlab run "
                                "--problem %s --help')", q, r->name);
            break;
        case O_PROBLEM: break; /* found above */
        case O_OUTPUT: path = a.val; break;
        case O_SEED: rc = cli_parse_seed(cmd, a.opt, a.val, &seed); break;
        case O_SEEDS: rc = cli_parse_count(cmd, a.opt, a.val, 1, MAX_SEEDS, &nseeds); break;
        default:
            if (srl_config_set(cfg, t.param[k]->key, a.val) != SRL_OK)
                rc = cli_sys_error(cmd, "out of memory");
            break;
        }
    }
    if (rc)
        goto done;
    if (build_axes(&ax, r, cfg)) {
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
    if ((rc = run_seeds(r, cfg, &ax, seed, nseeds, body, notes)))
        goto done;
    if (fclose(body) != 0 || fclose(notes) != 0) {
        body = notes = NULL;
        rc = cli_sys_error(cmd, "cannot buffer the output: %s", strerror(errno));
        goto done;
    }
    body = notes = NULL;
    char seeds_line[160], problem_line[320];
    if (nseeds == 1)
        snprintf(seeds_line, sizeof seeds_line, "seeds: %" PRIu64 " (pcg32 streams derived from "
                 "the seed)", seed);
    else
        snprintf(seeds_line, sizeof seeds_line, "seeds: %" PRIu64 " to %" PRIu64 " (--seed S "
                 "--seeds N: S, S+1, ..., S+N-1; one block of rows each; pcg32 streams derived "
                 "from the seed)", seed, seed + nseeds - 1);
    snprintf(problem_line, sizeof problem_line, "problem: %s: %s", r->name, r->summary);
    const char *extra[] = {seeds_line, problem_line, NULL};
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
    free(ax.names);
    free(ax.values);
    free(t.opts);
    free(t.param);
    srl_config_free(cfg);
    return rc;
}
