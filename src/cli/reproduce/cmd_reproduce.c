/* src/cli/reproduce/cmd_reproduce.c: `srlab reproduce [--quick] [-o DIR] [--force]` (docs/design.md §13).
 *
 * One command rebuilds the whole study as one report: the arguments are checked (nothing is
 * created on bad input), the plan is made from the spec files experiments/NAME.ini
 * (reproduce_plan.c: $SRLAB_EXPERIMENTS, else the source tree this srlab was built from, else the
 * installed data directory, the same rule as srlab plot's scripts), the report folder is made
 * ready and every step runs in it (reproduce_steps.c), and DIR/index.html is written last,
 * atomically (reproduce_report.c), so an interrupted reproduction leaves no index.html (a
 * previous one is removed first) and `--force` continues its sweeps from their journals.
 *
 * What it does not do: run steps in parallel (each sweep already uses every core), or fetch
 * anything. Test hook, not in --help: SRLAB_REPRODUCE_EXE=PROGRAM runs the steps with PROGRAM
 * instead of this binary (tests/reproduce stands a failing `srlab check` in with it). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "cli/reproduce/reproduce.h"
#include "cli/reproduce/reproduce_plan.h"
#include "cli/reproduce/reproduce_report.h"
#include "cli/reproduce/reproduce_steps.h"
#include "srlab/check.h"

#define CMD "reproduce"

static const char help_text[] =
    "usage: srlab reproduce [--quick] [-o DIR] [--force] [--only NAMES] [--checks NAMES|none]\n"
    "                       [--threads N]\n"
    "\n"
    "Rebuild the whole study as one report: every experiment of experiments/ (srlab sweep),\n"
    "every figure their headers name (srlab plot), srlab check, and DIR/index.html with the\n"
    "figures, the check table, the data, the exact commands, the machine and the measured wall\n"
    "and CPU time of each step. The report opens in a browser without a network: open\n"
    "DIR/index.html.\n"
    "Needs gnuplot (Debian package gnuplot-nox).\n"
    "\n"
    "options:\n"
    "  --quick            each spec's [quick] section and srlab check --quick:\n"
    "                     " RP_QUICK_TIME "; the report gives the\n"
    "                     full sizes and their CPU time as measured\n"
    "  -o, --output DIR   the report folder (default report); created if missing (its parent\n"
    "                     must exist); refused if it exists and is not empty, unless --force;\n"
    "                     a folder, so - and /dev/stdout are refused\n"
    "  --force            write into a folder that is not empty: the files reproduce writes\n"
    "                     are replaced, others are left alone, and a sweep interrupted in an\n"
    "                     earlier reproduction continues from its journal (NAME.journal)\n"
    "  --only NAMES       only these experiments (experiments/NAME.ini; a comma list,\n"
    "                     repeatable)\n"
    "  --checks NAMES     srlab check only these statements (a comma list: T01,T05), or\n"
    "                     none to skip the checks\n"
    "  --threads N        runs in parallel in each sweep (default: all cores)\n"
    "  SRLAB_EXPERIMENTS=DIR  take the specs from DIR; SRLAB_PLOTS=DIR the plot scripts\n"
    "\n"
    "The report folder: index.html; NAME.csv, NAME.summary.csv and NAME.runs.csv per\n"
    "experiment; the figures (.png); check.csv; specs/NAME.ini (the specs as run); logs/\n"
    "(every step's output). The steps run inside the folder, so the commands the report\n"
    "lists can be pasted there as they are.\n"
    "\n"
    "Times are CPU time (user + system over all threads), measured with srlab 0.1.0 on 2\n"
    "cores: the wall time on C free cores is about the CPU time divided by C.\n"
    "\n"
    "exit status: 0 everything reproduced and every check passed; 1 the report is written\n"
    "and shows a problem (a failed step or check, a figure that could not be drawn);\n"
    "2 bad input (the folder is not empty, gnuplot is missing, an unknown experiment...);\n"
    "3 a system error.\n"
    "\n"
    "examples:\n"
    "  srlab reproduce --quick                (then open report/index.html)\n"
    "  srlab reproduce -o full-report         (the sizes the specs define:\n"
    "                                         " RP_FULL_TIME ")\n"
    "  srlab reproduce --quick --only stall,summation --checks T05 -o small\n";

/* ---- the arguments ---- */

/* Returns 0, CLI_ARGS_HELP, or an exit status after a message. o->only has room for argc. */
static int parse_args(rp_opts *o, int argc, char **argv)
{
    enum { O_QUICK, O_OUTPUT, O_FORCE, O_ONLY, O_CHECKS, O_THREADS };
    static const cli_opt opts[] = {[O_QUICK] = {"quick", 0, NULL},
                                   [O_OUTPUT] = {"output", 'o', "DIR"},
                                   [O_FORCE] = {"force", 0, NULL},
                                   [O_ONLY] = {"only", 0, "NAMES..."},
                                   [O_CHECKS] = {"checks", 0, "NAMES"},
                                   [O_THREADS] = {"threads", 0, "N"},
                                   {NULL, 0, NULL}};
    char q[CLI_QUOTE_LEN];
    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        const char **slot = NULL;
        switch (k) {
        case CLI_ARGS_HELP: return CLI_ARGS_HELP;
        case CLI_ARGS_BAD: return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            return cli_error(CMD, "unexpected argument %s (see srlab reproduce --help)",
                             cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX));
        case O_QUICK: o->quick = true; break;
        case O_FORCE: o->force = true; break;
        case O_ONLY:
            if (!*a.val || a.val[strlen(a.val) - 1] == ',' || a.val[0] == ',' ||
                strstr(a.val, ",,"))
                return cli_error(CMD, "%s: %s is not a comma list of experiment names", a.opt,
                                 cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX));
            o->only[o->nonly++] = a.val;
            break;
        case O_OUTPUT: slot = &o->dir; break;
        case O_CHECKS: slot = &o->checks; break;
        case O_THREADS: slot = &o->threads; break;
        default: break;
        }
        if (slot) /* once each: cli_args_next refuses a repeat */
            *slot = a.val;
    }
    return 0;
}

/* --threads and --checks: the syntax, then every name is a check or a statement that srlab
 * check knows (or the list is "none"), so that no experiment runs for a list that fails at the
 * end. */
static int check_values(const rp_opts *o)
{
    char q[CLI_QUOTE_LEN];
    long long t;
    int rc;
    if (o->threads && (rc = cli_parse_int(CMD, "--threads", o->threads, 1, 4096, &t)))
        return rc;
    if (o->checks) {
        bool ok = *o->checks && o->checks[0] != ',' && o->checks[strlen(o->checks) - 1] != ',' &&
                  !strstr(o->checks, ",,");
        for (const char *c = o->checks; ok && *c; c++)
            ok = isalnum((unsigned char)*c) || strchr(",_-", *c);
        if (!ok)
            return cli_error(CMD, "--checks: %s is not a comma list of statement names (T01,T05) "
                             "or none", cli_quote(q, sizeof q, o->checks, strlen(o->checks),
                                                  CLI_QUOTE_MAX));
        for (const char *p = o->checks; strcmp(o->checks, "none") && *p;) {
            size_t l = strcspn(p, ",");
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(l < sizeof name ? l : sizeof name - 1), p);
            bool known = false;
            for (size_t i = 0; !known && l < sizeof name && i < srl_check_count(); i++)
                known = srl_check_selects(name, srl_check_at(i));
            if (!known)
                return cli_error(CMD, "--checks: unknown check %s (a statement %s..%s, a check "
                                 "such as T05a, or none; see srlab check --list)",
                                 cli_quote(q, sizeof q, p, l, CLI_QUOTE_MAX),
                                 srl_check_at(0)->statement,
                                 srl_check_at(srl_check_count() - 1)->statement);
            p += l + (p[l] == ',');
        }
    }
    return 0;
}

/* DIR must be a directory that is empty (or --force), or a new name in an existing directory.
 * Nothing is created here: bad input leaves no trace. *create says whether to mkdir it. */
static int check_dir(const char *dir, bool force, bool *create)
{
    char q[CLI_QUOTE_LEN];
    cli_quote(q, sizeof q, dir, strlen(dir), 200);
    *create = false;
    if (!*dir)
        return cli_error(CMD, "-o: empty folder name");
    if (cli_out_is_stdout(dir)) /* the one rule for -o (src/cli/cli.h) */
        return cli_error(CMD, "-o: %s is standard output, and a report is a folder of files: "
                         "name a folder", q);
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return cli_error(CMD, "-o: %s exists and is not a folder", q);
        DIR *d = opendir(dir);
        if (!d)
            return cli_error(CMD, "-o: cannot read %s: %s", q, strerror(errno));
        bool empty = true;
        struct dirent *de;
        while (empty && (de = readdir(d)))
            empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
        closedir(d);
        if (!empty && !force)
            return cli_error(CMD, "-o: %s exists and is not empty: choose another folder, or add "
                             "--force to write into it (the files reproduce writes are replaced)",
                             q);
        if (access(dir, W_OK | X_OK) != 0)
            return cli_error(CMD, "-o: cannot write into %s: %s", q, strerror(errno));
        return 0;
    }
    if (errno != ENOENT)
        return cli_error(CMD, "-o: %s: %s", q, strerror(errno));
    /* a new folder: its parent must exist */
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    while (n && dir[n - 1] != '/')
        n--;
    char *parent = n ? strndup(dir, n > 1 ? n - 1 : 1) : strdup("."); /* without its '/' */
    if (!parent)
        return cli_sys_error(CMD, "out of memory");
    char qp[CLI_QUOTE_LEN];
    cli_quote(qp, sizeof qp, parent, strlen(parent), 200);
    int rc = 0;
    if (stat(parent, &sb) != 0)
        rc = cli_error(CMD, "-o: cannot create %s: folder %s does not exist", q, qp);
    else if (!S_ISDIR(sb.st_mode))
        rc = cli_error(CMD, "-o: cannot create %s: %s is not a folder", q, qp);
    else if (access(parent, W_OK | X_OK) != 0)
        rc = cli_error(CMD, "-o: cannot create %s in %s: %s", q, qp, strerror(errno));
    free(parent);
    *create = rc == 0;
    return rc;
}

/* The srlab binary the steps run: $SRLAB_REPRODUCE_EXE (a test hook), else this one. */
static int find_exe(rp_report *r)
{
    const char *hook = getenv("SRLAB_REPRODUCE_EXE");
    if (hook && *hook) {
        r->exe = strdup(hook);
    } else {
        char buf[4096];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n <= 0)
            return cli_sys_error(CMD, "cannot find the srlab binary (/proc/self/exe): %s",
                                 strerror(errno));
        buf[n] = 0;
        r->exe = strdup(buf);
    }
    return r->exe ? 0 : cli_sys_error(CMD, "out of memory");
}

static void report_date(char *buf, size_t len)
{
    time_t t = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH"); /* reproducible-builds convention */
    if (sde && *sde) {
        char *end;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (!*end && !errno && v >= 0)
            t = (time_t)v;
    }
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, len, "unknown");
}

/* ---- the report ---- */

/* Write DIR/index.html, atomically, and say where it is (with the problems it shows on standard
 * error). Returns the exit status of the whole reproduction. */
static int write_index(const rp_report *r)
{
    char *index = cli_host_path(r->dir, "index.html");
    if (!index)
        return cli_sys_error(CMD, "out of memory");
    cli_out out;
    int rc = cli_out_open(&out, CMD, "-o", index);
    if (rc) {
        free(index);
        return rc;
    }
    size_t problems = 0;
    rc = rp_report_write(out.fp, r, &problems) ? cli_sys_error(CMD, "out of memory")
                                                : cli_out_commit(&out);
    cli_out_abort(&out);
    if (!rc) {
        char t[32];
        rp_duration(t, sizeof t, r->seconds);
        if (problems)
            fprintf(stderr, "srlab %s: the report shows %zu problem%s (see its summary)\n", CMD,
                    problems, problems == 1 ? "" : "s");
        fputs("report: ", stdout); /* the folder the user named: shown as text */
        cli_fputs_text(stdout, index);
        printf(" (%s)\n", t);
        const int e = cli_stdout_flush();
        if (e)
            rc = cli_sys_error(CMD, "cannot write standard output: %s", strerror(e));
        else
            rc = problems ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    free(index);
    return rc;
}

/* ---- the command ---- */

int cmd_reproduce(int argc, char **argv)
{
    rp_opts o;
    memset(&o, 0, sizeof o);
    rp_report r;
    memset(&r, 0, sizeof r);
    if (!(o.only = calloc((size_t)argc + 1, sizeof *o.only)))
        return cli_sys_error(CMD, "out of memory");
    int rc = parse_args(&o, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        free(o.only);
        return cli_help(help_text);
    }
    if (!rc)
        rc = check_values(&o);
    r.dir = o.dir ? o.dir : "report";
    r.quick = o.quick;
    r.argc = argc;
    r.argv = argv;
    r.experiments = cli_host_experiments_dir();
    r.plots = cli_host_plots_dir();
    r.check_skipped = o.checks && !strcmp(o.checks, "none");

    /* bad input first, before anything is created */
    bool create = false;
    if (!rc)
        rc = check_dir(r.dir, o.force, &create);
    if (!rc && !cli_host_has_program("gnuplot"))
        rc = cli_error(CMD, "gnuplot is not installed: the figures need it; install Debian's "
                       "gnuplot-nox (apt-get install gnuplot-nox)");
    if (!rc)
        rc = rp_plan_build(&r, &o);
    if (!rc)
        rc = find_exe(&r);
    /* then the folder, the steps, and the report last */
    cli_lock lock = {.fd = -1};
    if (!rc)
        rc = rp_steps_prepare(&r, create, &lock);
    if (!rc)
        report_date(r.date, sizeof r.date);
    if (!rc)
        rc = rp_steps_run(&r);
    if (!rc)
        rc = write_index(&r);
    cli_lock_release(&lock); /* after index.html: the folder is complete */
    rp_plan_free(&r);
    free(r.exe);
    free(o.only);
    return rc;
}
