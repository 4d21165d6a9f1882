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
    "prediction. One row per check: id, PASS/FAIL, the measured value, its interval, the\n"
    "predicted value or bound, the margin, and what was measured (with the seeds used).\n"
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
    "  --list       list the checks, the minimum detectable effect of each, the defects that\n"
    "               reach it and what each mutation test changes; run nothing\n"
    "  --mutate KIND  run each selected check's documented mutation instead (KIND experiment:\n"
    "               the experiment altered, e.g. sr swapped for rn; prediction: the predicted\n"
    "               constant perturbed); checks without one are skipped. Every mutated check\n"
    "               must FAIL: this shows that each check can fail (tests/check asserts it).\n"
    "               KIND bug: every small realistic defect (sr deciding with 8 random bits, sr\n"
    "               with U <= f, rn ties away from zero, element i reusing draw i/2, fp16's\n"
    "               subnormal spacing off by 2, the sr:r=16 write with 12 bits, Adam's eps inside\n"
    "               the square root, replicas' streams differing by replica index) on each check\n"
    "               its experiment reaches (a wrong variant swapped in inside the check only),\n"
    "               then the matrix defect x check; exit 1 when a defect made no check FAIL\n"
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
    "  srlab check --quick --mutate bug         (the matrix of realistic defects)\n";

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

static void table_row(FILE *fp, const srl_check_result *r, const char *what)
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
    fprintf(fp, "%-5s %s  %-13s %-29s %-13s %-7s %-9s %s\n", r->id, r->pass ? "PASS" : "FAIL", m,
            iv, p, g, d, what);
}

static void list_checks(FILE *fp)
{
    fputs("checks (srlab check ID...; a statement id such as T03 selects all its checks):\n", fp);
    for (size_t i = 0; i < srl_check_count(); i++) {
        const srl_check *c = srl_check_at(i);
        fprintf(fp, "  %-5s %s\n", c->id, c->title);
        fprintf(fp, "        minimum detectable effect: %s\n",
                c->mde ? c->mde : "NOT STATED (a bug of the catalogue)");
        if (c->bugs) {
            fputs("        defects that reach it (--mutate bug):", fp);
            for (int b = 1; b < SRL_CHECK_BUG_COUNT; b++)
                if (c->bugs & SRL_CHECK_BUG_BIT(b))
                    fprintf(fp, " %s", srl_check_bug_name((srl_check_bug)b));
            fputc('\n', fp);
        }
        if (c->mutation[SRL_CHECK_MUT_EXPERIMENT])
            fprintf(fp, "        mutation test (experiment): %s\n",
                    c->mutation[SRL_CHECK_MUT_EXPERIMENT]);
        if (c->mutation[SRL_CHECK_MUT_PREDICTION])
            fprintf(fp, "        mutation test (prediction): %s\n",
                    c->mutation[SRL_CHECK_MUT_PREDICTION]);
    }
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
    bool bugs; /* --mutate bug: the matrix of realistic defects x checks */
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

static int parse_mutation(srl_check_mutation *m, bool *bugs, const char *opt, const char *v)
{
    char q[CLI_QUOTE_LEN];
    *bugs = false;
    if (!strcmp(v, "bug")) {
        *m = SRL_CHECK_MUT_NONE;
        *bugs = true;
    } else if (!strcmp(v, "experiment")) {
        *m = SRL_CHECK_MUT_EXPERIMENT;
    } else if (!strcmp(v, "prediction")) {
        *m = SRL_CHECK_MUT_PREDICTION;
    } else {
        cli_quote(q, sizeof q, v, strlen(v), CLI_QUOTE_MAX);
        return cli_error(cmd, "%s: %s is not experiment, prediction or bug", opt, q);
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
    if (!a->sel)
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
        case O_MUTATE: rc = parse_mutation(&a->o.mutation, &a->bugs, args.opt, args.val); break;
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
        if (a->bugs && !srl_check_at(i)->bugs)
            a->sel[i] = false; /* no defect reaches its experiment */
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
    fprintf(tab, "%-5s %s  %-13s %-29s %-13s %-7s %-9s %s\n", "id", "res.", "measured", "interval",
            "predicted", "margin", "mde", "what");
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
            table_row(tab, &r, what ? what : r.what);
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

/* One run of check c with defect b into *r: 0, or an exit status after a message. */
static int run_defect(srl_check_result *r, const srl_check *c, const check_args *a, int b)
{
    srl_check_opts o = a->o;
    o.bug = (srl_check_bug)b;
    srl_err e;
    e.msg[0] = 0;
    const int st = srl_check_run(r, c, &o, &e);
    if (st)
        return cli_sys_error(cmd, "%s with the defect %s could not run: %s", c->id,
                             srl_check_bug_name(o.bug), e.msg[0] ? e.msg : srl_strerror(st));
    return 0;
}

/* The matrix defect x check: FAIL (the check caught the defect), pass (it did not), - (the
 * defect does not reach its experiment), and per defect caught or UNDETECTED. */
static void bug_matrix(FILE *tab, const check_args *a, const unsigned char *res)
{
    const size_t nc = srl_check_count();
    fprintf(tab, "\ndefect x check (FAIL: caught, pass: missed, -: does not reach the check)\n");
    fprintf(tab, "%-15s", "defect");
    for (size_t i = 0; i < nc; i++)
        if (a->sel[i])
            fprintf(tab, " %-5s", srl_check_at(i)->id);
    fputs(" verdict\n", tab);
    for (int b = 1; b < SRL_CHECK_BUG_COUNT; b++) {
        bool caught = false;
        fprintf(tab, "%-15s", srl_check_bug_name((srl_check_bug)b));
        for (size_t i = 0; i < nc; i++) {
            if (!a->sel[i])
                continue;
            const unsigned char v = res[(size_t)b * nc + i];
            fprintf(tab, " %-5s", v == 2 ? "FAIL" : v == 1 ? "pass" : "-");
            caught |= v == 2;
        }
        fprintf(tab, " %s\n", caught ? "caught" : "UNDETECTED");
    }
}

/* --mutate bug: every realistic defect on every selected check it reaches, each row as it
 * finishes (and into the CSV of -o), then the matrix. Exit 1 when some defect made no check
 * FAIL. */
static int run_bugs(const check_args *a, size_t n)
{
    const size_t nc = srl_check_count();
    unsigned char *res = calloc((size_t)SRL_CHECK_BUG_COUNT * nc, 1);
    if (!res)
        return cli_sys_error(cmd, "out of memory");
    cli_out out;
    const bool csv = a->out_path != NULL, csv_stdout = csv && cli_out_is_stdout(a->out_path);
    int rc = csv ? cli_out_open(&out, cmd, "-o", a->out_path) : 0;
    if (rc) {
        free(res);
        return rc;
    }
    if (csv)
        fputs(CSV_HEADER "\n", out.fp);
    FILE *tab = csv_stdout ? NULL : stdout;
    if (tab) {
        fprintf(tab, "srlab check --mutate bug: %d realistic defects on the %zu checks they reach "
                     "(each defect must make some check FAIL)%s\n",
                SRL_CHECK_BUG_COUNT - 1, n, a->o.quick ? " (--quick)" : "");
        table_header(tab, n, &a->o);
    }
    for (int b = 1; b < SRL_CHECK_BUG_COUNT && !rc; b++)
        for (size_t i = 0; i < nc && !rc; i++) {
            const srl_check *c = srl_check_at(i);
            if (!a->sel[i] || !(c->bugs & SRL_CHECK_BUG_BIT(b)))
                continue;
            srl_check_result r;
            if ((rc = run_defect(&r, c, a, b)))
                break;
            res[(size_t)b * nc + i] = r.pass ? 1 : 2;
            char *what = cli_alloc_printf("DEFECT %s (%s) %s", srl_check_bug_name((srl_check_bug)b),
                                          srl_check_bug_text((srl_check_bug)b), r.what);
            if (!what) {
                rc = cli_sys_error(cmd, "out of memory");
                break;
            }
            if (tab) {
                table_row(tab, &r, what);
                fflush(tab);
            }
            if (csv)
                csv_row(out.fp, &r, what);
            free(what);
        }
    if (rc) {
        if (csv)
            cli_out_abort(&out);
        free(res);
        return rc;
    }
    bool missed = false;
    for (int b = 1; b < SRL_CHECK_BUG_COUNT; b++) {
        bool caught = false;
        for (size_t i = 0; i < nc; i++)
            caught |= res[(size_t)b * nc + i] == 2;
        missed |= !caught;
    }
    if (tab) {
        bug_matrix(tab, a, res);
        const int e = cli_stdout_flush(); /* tab is standard output */
        if (e)
            rc = cli_sys_error(cmd, "cannot write standard output: %s", strerror(e));
    }
    free(res);
    if (!rc && csv)
        rc = cli_out_commit(&out);
    else if (csv)
        cli_out_abort(&out);
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
    return rc;
}
