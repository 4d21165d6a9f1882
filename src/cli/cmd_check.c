/* src/cli/cmd_check.c: `srlab check [ID...] [--quick] [--seeds N] [-o FILE] [--list]`: run the
 * experiment of every theory/ statement and compare it with the prediction (docs/design.md §9).
 *
 * Arguments -> library call -> output. The checks are the library's (include/srlab/check.h,
 * src/check/); this file selects them (parse_args, finish_selection), runs them (run_checks),
 * prints one row per check on standard output as each finishes (the table of a long run should
 * not wait for its end), writes the same rows as CSV with -o (atomically: written only when
 * every check ran), and turns the verdicts into the exit status: 0 all PASS, 1 a check FAILed,
 * 2 bad input, 3 a check could not run (a bug or out of memory: the message says which).
 * The CSV header is fixed: id,what,measured,ci_lo,ci_hi,predicted,margin,result; `srlab
 * reproduce` reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "srlab/check.h"

int cmd_check(int argc, char **argv);

static const char *const cmd = "check";

#define CSV_HEADER "id,what,measured,ci_lo,ci_hi,predicted,margin,result"
#define MAX_SEEDS 100000

static const char *const help_text =
    "usage: srlab check [ID...] [--quick] [--seeds N] [-o FILE] [--list] [--mutate KIND]\n"
    "\n"
    "Run the experiment of each theory/ statement and compare the measurement with the\n"
    "prediction. One row per check: id, PASS/FAIL, its basis (stat: a statistical check, a\n"
    "sample with a confidence level; probe: deterministic, inputs and draws chosen so that a\n"
    "defect changes the outcome for certain), the measured value, its interval, the predicted\n"
    "value or bound, the margin, and what was measured (with the seeds used).\n"
    "IDs select checks (T03b) or whole statements (T03); none selects all. The theory behind\n"
    "each check, its experiment and the reason for its tolerance are in theory/TNN-*.md.\n"
    "\n"
    "options:\n"
    "  --quick      smaller experiments (every check, a few seconds each; all of them in\n"
    "               well under 3 minutes on 2 cores)\n"
    "  --seeds N    seeds of the checks that run over seeds: 1..N (2 <= N <= 100000;\n"
    "               default: each check's own, fewer with --quick); the checks of single\n"
    "               roundings (T01, T02, T11b) use fixed streams of seed 1 and their draw\n"
    "               counts instead\n"
    "  -o FILE      also write the rows as CSV: " CSV_HEADER "\n"
    "               (written only when every check ran; - or /dev/stdout: the CSV on\n"
    "               standard output instead of the table)\n"
    "  --list       list the checks (basis, minimum detectable effect, what each mutation test\n"
    "               changes) and the built-in defects; run nothing\n"
    "  --mutate KIND  run each selected check's documented mutation instead (KIND experiment:\n"
    "               the experiment altered, e.g. sr swapped for rn; prediction: the predicted\n"
    "               constant perturbed); checks without one are skipped. Every mutated check\n"
    "               must FAIL: this shows that each check can fail (tests/check asserts it).\n"
    "               KIND bug (or bug=NAME,NAME...: those defects only): the realistic defects\n"
    "               built into the library's own paths (the rounding decision, the bulk\n"
    "               kernels, the bf16 and tensor writes, the optimizers, the matrix product, the\n"
    "               replicas' streams; --list names them), only in a build configured with\n"
    "               meson setup -Dmutants=true. Each defect is switched on in turn and the\n"
    "               selected checks run, probes first, until one FAILs (or cannot run): the row\n"
    "               names that check. Exit 1 when a defect made no check FAIL\n"
    "\n"
    "How to read a row. Four kinds of check; what each number means in each:\n"
    "  interval  (a statistical check) measured: the estimate; interval: its confidence\n"
    "            interval at level 1 - 1e-6 (Bonferroni over the comparisons inside the check),\n"
    "            widened by the deterministic tolerance the theory file derives; predicted: the\n"
    "            theory's value. PASS when predicted lies inside the interval. margin: the\n"
    "            fraction of the interval's half on the prediction's side that is left (1:\n"
    "            predicted = measured, 0: on the edge of the interval, negative: FAIL).\n"
    "  band      measured: a deterministic value; interval: the band the theory predicts;\n"
    "            predicted: the formula's value. PASS when measured lies in the band; margin as\n"
    "            for interval, with the band in place of the confidence interval.\n"
    "  bound     measured (and, when estimated, its interval); predicted: the bound. PASS when\n"
    "            measured, or the lower end of its interval, does not exceed it. margin:\n"
    "            1 - (lower end) / bound: 0 on the bound, 1 far below it.\n"
    "  exact     measured and predicted are equal numbers (counts, grid values, exact\n"
    "            computations); interval is [measured, measured]. There is no tolerance, so\n"
    "            no margin: the table says 'exact' (PASS) or 'differ' (FAIL); the CSV's\n"
    "            margin is 0 when equal and minus the relative difference otherwise.\n"
    "mde: the minimum detectable effect of the row, in the unit of measured: the smallest\n"
    "deviation from the prediction that the check FAILs with probability >= 0.99 (interval:\n"
    "the interval's larger half times 1 + z_0.99/z; bound: the room left to the bound; exact:\n"
    "'any', any change).\n"
    "With --mutate each row's 'what' starts with MUTATED (WHAT RAN INSTEAD): the description\n"
    "after it is the unmutated check's. Seeds are fixed, so a verdict is repeatable bit for bit\n"
    "on any machine and thread count; a correct implementation fails a statistical check for a\n"
    "random choice of seeds with probability at most 1e-6.\n"
    "\n"
    "exit status: 0 every check PASSed, 1 some check FAILed, 2 bad input, 3 a check could not\n"
    "run (out of memory, or a bug: the message says which)\n"
    "\n"
    "examples:\n"
    "  srlab check --quick\n"
    "  srlab check T05 T06a --seeds 50\n"
    "  srlab check --quick -o check.csv\n"
    "  srlab check T05c --mutate experiment     (must FAIL: rn in place of sr)\n"
    "  srlab check --quick --mutate bug         (a -Dmutants=true build: every defect caught)\n";

enum { O_QUICK, O_SEEDS, O_OUT, O_LIST, O_MUTATE };

static void csv_num(FILE *fp, double x)
{
    char b[CLI_NUM_LEN];
    fputs(cli_fmt_g17(b, x), fp);
}

static void csv_row(FILE *fp, const srl_check_result *r, const char *what)
{
    cli_csv_field(fp, r->id);
    fputc(',', fp);
    cli_csv_field(fp, what);
    const double v[5] = {r->measured, r->ci_lo, r->ci_hi, r->predicted, r->margin};
    for (int i = 0; i < 5; i++) {
        fputc(',', fp);
        csv_num(fp, v[i]);
    }
    fputs(r->pass ? ",PASS\n" : ",FAIL\n", fp);
}

static const char *basis_name(srl_check_basis b)
{
    return b == SRL_CHECK_PROBE ? "probe" : "stat";
}

static void table_row(FILE *fp, const srl_check_result *r, const char *basis, const char *what)
{
    char m[64], lo[64], hi[64], p[64], g[64];
    snprintf(m, sizeof m, "%.6g", r->measured);
    snprintf(lo, sizeof lo, "%.6g", r->ci_lo);
    snprintf(hi, sizeof hi, "%.6g", r->ci_hi);
    snprintf(p, sizeof p, "%.6g", r->predicted);
    if (r->kind == SRL_CHECK_EXACT) /* no tolerance: equal, or off by a relative difference */
        snprintf(g, sizeof g, "%s", r->pass ? "exact" : "differ");
    else
        snprintf(g, sizeof g, "%.3g", r->margin);
    char iv[140];
    snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
    char d[64]; /* an exact check detects any change: 'any' rather than a 0 read as no power */
    if (r->kind == SRL_CHECK_EXACT)
        snprintf(d, sizeof d, "any");
    else
        snprintf(d, sizeof d, "%.3g", r->mde);
    fprintf(fp, "%-5s %s  %-5s %-13s %-29s %-13s %-7s %-9s %s\n", r->id, r->pass ? "PASS" : "FAIL",
            basis, m, iv, p, g, d, what);
}

static void list_checks(FILE *fp)
{
    fputs("checks (srlab check ID...; a statement id such as T03 selects all its checks):\n", fp);
    for (size_t i = 0; i < srl_check_count(); i++) {
        const srl_check *c = srl_check_at(i);
        fprintf(fp, "  %-5s %s\n", c->id, c->title);
        fprintf(fp, "        basis: %s\n",
                c->basis == SRL_CHECK_PROBE
                    ? "probe (deterministic: a defect that changes one result FAILs it)"
                    : "statistical (a sample at level 1 - 1e-6)");
        fprintf(fp, "        minimum detectable effect: %s\n",
                c->mde ? c->mde : "NOT STATED (a bug of the catalogue)");
        if (c->mutation[SRL_CHECK_MUT_EXPERIMENT])
            fprintf(fp, "        mutation test (experiment): %s\n",
                    c->mutation[SRL_CHECK_MUT_EXPERIMENT]);
        if (c->mutation[SRL_CHECK_MUT_PREDICTION])
            fprintf(fp, "        mutation test (prediction): %s\n",
                    c->mutation[SRL_CHECK_MUT_PREDICTION]);
    }
    fprintf(fp, "\nbuilt-in defects (--mutate bug; %s):\n",
            srl_check_bugs_built() ? "this build has them"
                                   : "not in this build: meson setup -Dmutants=true");
    for (unsigned b = 1; b <= srl_check_bug_count(); b++)
        fprintf(fp, "  %-15s %s\n", srl_check_bug_name(b), srl_check_bug_text(b));
}

/* "T01a, T01b, ..." into buf. */
static const char *known_ids(char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < srl_check_count() && k + 8 < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", srl_check_at(i)->id);
    return buf;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the arguments ask for. */
typedef struct check_args {
    bool *sel; /* per catalogue entry: selected by an ID given (every one when none is) */
    bool any;  /* an ID was given */
    srl_check_opts o;
    const char *out_path; /* -o */
    bool list, help;
    bool bugs;      /* --mutate bug: the built-in defects, each against the checks */
    bool *defects;  /* per defect 1 .. count (index b): selected (all, or bug=NAME,...) */
} check_args;

/* Select the checks an ID names (a check or a statement): 0, or an exit status after a message. */
static int select_id(check_args *a, const char *id)
{
    bool found = false;
    for (size_t i = 0; i < srl_check_count(); i++)
        if (srl_check_selects(id, srl_check_at(i)))
            a->sel[i] = found = true;
    a->any = true;
    if (found)
        return 0;
    static char ids[1024];
    char q[CLI_QUOTE_LEN];
    cli_quote(q, sizeof q, id, strlen(id), CLI_QUOTE_MAX);
    return cli_error(cmd, "unknown check %s; known: %s (or a statement %s..%s)", q,
                     known_ids(ids, sizeof ids), srl_check_at(0)->statement,
                     srl_check_at(srl_check_count() - 1)->statement);
}

/* bug=NAME,NAME...: select those defects (every one for plain `bug`). */
static int parse_defects(check_args *a, const char *opt, const char *list)
{
    char q[CLI_QUOTE_LEN];
    const unsigned nb = srl_check_bug_count();
    for (unsigned b = 1; b <= nb; b++)
        a->defects[b] = list == NULL;
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        unsigned hit = 0;
        for (unsigned b = 1; b <= nb && !hit; b++)
            if (strlen(srl_check_bug_name(b)) == len && !strncmp(p, srl_check_bug_name(b), len))
                hit = b;
        if (!hit) {
            cli_quote(q, sizeof q, p, len, CLI_QUOTE_MAX);
            return cli_error(cmd, "%s: %s is not a built-in defect (srlab check --list names them)",
                             opt, q);
        }
        a->defects[hit] = true;
        p = e ? e + 1 : p + len;
    }
    return 0;
}

static int parse_mutation(check_args *a, const char *opt, const char *v)
{
    char q[CLI_QUOTE_LEN];
    srl_check_mutation *m = &a->o.mutation;
    a->bugs = false;
    if (!strcmp(v, "bug") || !strncmp(v, "bug=", 4)) {
        *m = SRL_CHECK_MUT_NONE;
        a->bugs = true;
        return parse_defects(a, opt, v[3] == '=' ? v + 4 : NULL);
    } else if (!strcmp(v, "experiment")) {
        *m = SRL_CHECK_MUT_EXPERIMENT;
    } else if (!strcmp(v, "prediction")) {
        *m = SRL_CHECK_MUT_PREDICTION;
    } else {
        cli_quote(q, sizeof q, v, strlen(v), CLI_QUOTE_MAX);
        return cli_error(cmd, "%s: %s is not experiment, prediction, bug or bug=NAME,...", opt, q);
    }
    return 0;
}

/* Parse the arguments into *a (a->sel allocated here; the caller frees it): 0, or an exit status
 * after a message. --help stops the parsing. */
static int parse_args(check_args *a, int argc, char **argv)
{
    static const cli_opt opts[] = {
        [O_QUICK] = {"quick", 0, NULL},
        [O_SEEDS] = {"seeds", 0, "N"},
        [O_OUT] = {"output", 'o', "FILE"},
        [O_LIST] = {"list", 0, NULL},
        [O_MUTATE] = {"mutate", 0, "KIND"},
        {NULL, 0, NULL},
    };
    memset(a, 0, sizeof *a);
    a->sel = calloc(srl_check_count(), sizeof *a->sel);
    a->defects = calloc(srl_check_bug_count() + 1, sizeof *a->defects);
    if (!a->sel || !a->defects)
        return cli_sys_error(cmd, "out of memory");
    cli_args args;
    cli_args_init(&args, cmd, opts, argc, argv);
    int k, rc = 0;
    while (!rc && !a->help && (k = cli_args_next(&args)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: a->help = true; break;
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL: rc = select_id(a, args.val); break;
        case O_QUICK: a->o.quick = true; break;
        case O_SEEDS:
            rc = cli_parse_count(cmd, args.opt, args.val, 2, MAX_SEEDS, &a->o.seeds);
            break;
        case O_OUT: a->out_path = args.val; break;
        case O_LIST: a->list = true; break;
        case O_MUTATE: rc = parse_mutation(a, args.opt, args.val); break;
        default: break;
        }
    }
    return rc;
}

/* The number of checks to run: the selection (every check when no ID was given), less those
 * without a mutation of the kind asked for. */
static size_t finish_selection(check_args *a)
{
    size_t n = 0;
    for (size_t i = 0; i < srl_check_count(); i++) {
        if (!a->any)
            a->sel[i] = true;
        if (a->o.mutation != SRL_CHECK_MUT_NONE && !srl_check_at(i)->mutation[a->o.mutation])
            a->sel[i] = false; /* no mutation of that kind: nothing to run */
        n += a->sel[i];
    }
    return n;
}

static void table_header(FILE *tab, size_t n, const srl_check_opts *o)
{
    fprintf(tab,
            "srlab check: %zu check%s%s%s; each at level 1 - 1e-6; seeds fixed (in "
            "each row's description)\n",
            n, n == 1 ? "" : "s", o->quick ? " (--quick)" : "",
            o->mutation == SRL_CHECK_MUT_EXPERIMENT   ? ", MUTATED experiments (must FAIL)"
            : o->mutation == SRL_CHECK_MUT_PREDICTION ? ", MUTATED predictions (must FAIL)"
                                                      : "");
    fprintf(tab, "%-5s %s  %-5s %-13s %-29s %-13s %-7s %-9s %s\n", "id", "res.", "basis",
            "measured", "interval", "predicted", "margin", "mde", "what");
    fflush(tab);
}

/* Run the n selected checks: each row on standard output as it finishes (the table; none with
 * -o -) and into the CSV of -o, written only when every check ran. The exit status. */
static int run_checks(const check_args *a, size_t n)
{
    cli_out out;
    const bool csv = a->out_path != NULL, csv_stdout = csv && cli_out_is_stdout(a->out_path);
    int rc;
    /* the CSV output, opened before any work so that a bad path fails fast */
    if (csv && (rc = cli_out_open(&out, cmd, "-o", a->out_path)))
        return rc;
    if (csv)
        fputs(CSV_HEADER "\n", out.fp);
    FILE *tab = csv_stdout ? NULL : stdout;
    if (tab)
        table_header(tab, n, &a->o);
    const double t0 = now();
    size_t failed = 0;
    for (size_t i = 0; i < srl_check_count(); i++) {
        if (!a->sel[i])
            continue;
        const srl_check *c = srl_check_at(i);
        srl_check_result r;
        srl_err e;
        e.msg[0] = 0;
        const int st = srl_check_run(&r, c, &a->o, &e);
        if (st) {
            if (csv)
                cli_out_abort(&out);
            return cli_sys_error(cmd, "%s could not run: %s", c->id,
                                 e.msg[0] ? e.msg : srl_strerror(st));
        }
        failed += !r.pass;
        char *what = NULL; /* say what ran: the mutation of the check */
        if (a->o.mutation != SRL_CHECK_MUT_NONE &&
            !(what = cli_alloc_printf("MUTATED (%s) %s", c->mutation[a->o.mutation], r.what))) {
            if (csv)
                cli_out_abort(&out);
            return cli_sys_error(cmd, "out of memory");
        }
        if (tab) {
            table_row(tab, &r, basis_name(c->basis), what ? what : r.what);
            fflush(tab);
        }
        if (csv)
            csv_row(out.fp, &r, what ? what : r.what);
        free(what);
    }
    if (tab) {
        fprintf(tab, "%zu check%s: %zu PASS, %zu FAIL (%.1f s)\n", n, n == 1 ? "" : "s",
                n - failed, failed, now() - t0);
        const int e = cli_stdout_flush(); /* tab is standard output */
        if (e) {
            if (csv)
                cli_out_abort(&out);
            return cli_sys_error(cmd, "cannot write standard output: %s", strerror(e));
        }
    }
    if (csv && (rc = cli_out_commit(&out)))
        return rc;
    return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* The selected checks in the order --mutate bug runs them: the probes (deterministic, quick), then
 * the statistical ones, each in catalogue order. Returns the count written to order[]. */
static size_t bug_order(size_t *order, const check_args *a)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < srl_check_count(); i++)
            if (a->sel[i] && (srl_check_at(i)->basis == SRL_CHECK_PROBE) == (pass == 0))
                order[n++] = i;
    return n;
}

/* What one defect came to: the check that caught it (NULL: none), the runs, the time. */
typedef struct defect_res {
    const srl_check *by;
    size_t runs;
    double seconds;
} defect_res;

/* Defect b against the checks in order until one FAILs or cannot run (both catch it), each run a
 * CSV row when csv. 0, or an exit status after a message. */
static int hunt_defect(defect_res *dr, unsigned b, const check_args *a, const size_t *order,
                       size_t n, FILE *csv, FILE *tab)
{
    const double t0 = now();
    memset(dr, 0, sizeof *dr);
    srl_check_opts o = a->o;
    o.bug = b;
    for (size_t k = 0; k < n && !dr->by; k++) {
        const srl_check *c = srl_check_at(order[k]);
        srl_check_result r;
        srl_err e;
        e.msg[0] = 0;
        const int st = srl_check_run(&r, c, &o, &e);
        dr->runs++;
        if (st == SRL_ENOMEM)
            return cli_sys_error(cmd, "%s with the defect %s: out of memory", c->id,
                                 srl_check_bug_name(b));
        char *what = st ? cli_alloc_printf("DEFECT %s: could not run (%s)", srl_check_bug_name(b),
                                           e.msg[0] ? e.msg : srl_strerror(st))
                        : cli_alloc_printf("DEFECT %s (%s) %s", srl_check_bug_name(b),
                                           srl_check_bug_text(b), r.what);
        if (!what)
            return cli_sys_error(cmd, "out of memory");
        if (st || !r.pass) {
            dr->by = c;
            if (tab)
                table_row(tab, &r, basis_name(c->basis), what);
        }
        if (csv)
            csv_row(csv, &r, what);
        free(what);
    }
    dr->seconds = now() - t0;
    if (tab && !dr->by)
        fprintf(tab, "%-5s %s  %-5s DEFECT %s (%s): no check FAILed\n", "-", "pass", "-",
                srl_check_bug_name(b), srl_check_bug_text(b));
    if (tab)
        fflush(tab);
    return 0;
}

/* The summary: per defect the check that caught it, its basis, the checks run, the seconds. */
static void bug_summary(FILE *tab, const check_args *a, const defect_res *res, size_t n)
{
    size_t caught = 0, tried = 0;
    fprintf(tab, "\n%-15s %-9s %-6s %5s %8s  %s\n", "defect", "caught by", "basis", "runs",
            "seconds", "what it does");
    for (unsigned b = 1; b <= srl_check_bug_count(); b++) {
        if (!a->defects[b])
            continue;
        const defect_res *d = &res[b];
        tried++;
        caught += d->by != NULL;
        fprintf(tab, "%-15s %-9s %-6s %5zu %8.1f  %s\n", srl_check_bug_name(b),
                d->by ? d->by->id : "UNDETECTED", d->by ? basis_name(d->by->basis) : "-", d->runs,
                d->seconds, srl_check_bug_text(b));
    }
    fprintf(tab, "%zu of %zu defects caught (%zu checks selected%s)\n", caught, tried, n,
            a->o.quick ? ", --quick" : "");
}

/* --mutate bug: each selected defect switched on in turn against the selected checks (probes
 * first) until one FAILs; the row of the check that caught it as it happens (every run into the
 * CSV of -o), then the summary. Exit 1 when some defect made no check FAIL. */
static int run_bugs(const check_args *a, size_t n)
{
    if (!srl_check_bugs_built())
        return cli_error(cmd, "--mutate bug: this srlab was built without the defects; build "
                              "one with meson setup BUILDDIR -Dmutants=true (theory/README.md, "
                              "\"Built-in defects\")");
    size_t *order = calloc(n ? n : 1, sizeof *order);
    defect_res *res = calloc(srl_check_bug_count() + 1, sizeof *res);
    if (!order || !res) {
        free(order);
        free(res);
        return cli_sys_error(cmd, "out of memory");
    }
    bug_order(order, a);
    cli_out out;
    const bool csv = a->out_path != NULL, csv_stdout = csv && cli_out_is_stdout(a->out_path);
    int rc = csv ? cli_out_open(&out, cmd, "-o", a->out_path) : 0;
    if (!rc) {
        if (csv)
            fputs(CSV_HEADER "\n", out.fp);
        FILE *tab = csv_stdout ? NULL : stdout;
        if (tab) {
            fprintf(tab, "srlab check --mutate bug: each built-in defect against the %zu selected "
                         "checks, probes first, until one FAILs%s\n",
                    n, a->o.quick ? " (--quick)" : "");
            table_header(tab, n, &a->o);
        }
        for (unsigned b = 1; b <= srl_check_bug_count() && !rc; b++)
            if (a->defects[b])
                rc = hunt_defect(&res[b], b, a, order, n, csv ? out.fp : NULL, tab);
        if (!rc && tab) {
            bug_summary(tab, a, res, n);
            const int e = cli_stdout_flush(); /* tab is standard output */
            if (e)
                rc = cli_sys_error(cmd, "cannot write standard output: %s", strerror(e));
        }
        if (csv && !rc)
            rc = cli_out_commit(&out);
        else if (csv)
            cli_out_abort(&out);
    }
    bool missed = false;
    for (unsigned b = 1; b <= srl_check_bug_count(); b++)
        missed |= a->defects[b] && !res[b].by;
    free(order);
    free(res);
    return rc ? rc : missed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* Arguments -> the library's checks -> the table and the CSV. */
int cmd_check(int argc, char **argv)
{
    check_args a;
    int rc = parse_args(&a, argc, argv);
    if (!rc && a.help) {
        rc = cli_help(help_text);
    } else if (!rc && a.list) {
        list_checks(stdout);
        const int e = cli_stdout_flush();
        rc = e ? cli_sys_error(cmd, "cannot write standard output: %s", strerror(e)) : 0;
    } else if (!rc) {
        const size_t n = finish_selection(&a);
        rc = n && a.bugs ? run_bugs(&a, n)
             : n         ? run_checks(&a, n)
                         : cli_error(cmd, "--mutate: none of the selected checks has a mutation "
                                          "of that kind (see srlab check --list)");
    }
    free(a.sel);
    free(a.defects);
    return rc;
}
