/* src/cli/reproduce/reproduce_steps.c: the report folder made ready and the steps of
 * `srlab reproduce` run in it (src/cli/reproduce/reproduce_steps.h). */
#include "cli/reproduce/reproduce_steps.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/host.h"

#define CMD "reproduce"

/* ---- the folder ---- */

/* CPU time (user + system) of the waited-for children so far, in seconds. */
static double children_cpu(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_CHILDREN, &u) != 0)
        return 0;
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

static int make_dir(const char *dir, const char *sub)
{
    char *p = sub ? cli_host_path(dir, sub) : strdup(dir);
    if (!p)
        return cli_sys_error(CMD, "out of memory");
    int rc = 0;
    if (mkdir(p, 0777) != 0 && !(errno == EEXIST && cli_host_is_dir(p)))
        rc = cli_sys_error(CMD, "cannot create the folder %s: %s", p, strerror(errno));
    free(p);
    return rc;
}

/* Remove a file reproduce is about to write again, so a failed step cannot leave an old one
 * that the report would show. */
static int remove_stale(const char *dir, const char *name)
{
    char *p = cli_host_path(dir, name);
    if (!p)
        return cli_sys_error(CMD, "out of memory");
    int rc = 0;
    if (unlink(p) != 0 && errno != ENOENT)
        rc = cli_sys_error(CMD, "cannot replace %s: %s", p, strerror(errno));
    free(p);
    return rc;
}

/* Copy the spec into the report folder (the sweep runs the copy: the folder holds what ran). */
static int copy_spec(const rp_report *r, const rp_experiment *e)
{
    char *text = NULL, *dst = cli_host_path(r->dir, e->spec);
    size_t len = 0;
    if (!dst)
        return cli_sys_error(CMD, "out of memory");
    int rc, err = cli_read_file(e->source, &text, &len);
    if (err) {
        free(dst);
        return cli_sys_error(CMD, "cannot read %s: %s", e->source, cli_read_strerror(err));
    }
    cli_out o;
    if (!(rc = cli_out_open(&o, CMD, "-o", dst))) {
        fwrite(text, 1, len, o.fp); /* a failure is kept, with its errno, for the commit */
        rc = cli_out_commit(&o);
        cli_out_abort(&o);
    }
    free(text);
    free(dst);
    return rc;
}

/* The temporary files an srlab killed in this folder left (a reproduction, or one of its steps,
 * killed with SIGKILL) of the files reproduce writes: its lock is held, so no writer of them is
 * alive. (An experiment's set recovers itself, under its own lock: src/cli/set.h.) */
static int remove_stale_temporaries(const rp_report *r)
{
    const char *own[2] = {"index.html", "check.csv"};
    for (size_t i = 0; i < 2 + r->nex; i++) {
        const rp_experiment *e = i >= 2 ? &r->ex[i - 2] : NULL;
        for (size_t j = 0; j <= (e ? e->nfigs : 0); j++) {
            const char *name = !e ? own[i] : j == 0 ? e->spec : e->figs[j - 1].file;
            char *p = name ? cli_host_path(r->dir, name) : NULL;
            if (name && !p)
                return cli_sys_error(CMD, "out of memory");
            if (p)
                cli_out_remove_stale(p);
            free(p);
        }
    }
    return 0;
}

int rp_steps_prepare(const rp_report *r, bool create, cli_lock *lock)
{
    int rc = 0;
    char *lpath = cli_host_path(r->dir, "reproduce.lock");
    if (!lpath)
        return cli_sys_error(CMD, "out of memory");
    if (!(create && (rc = make_dir(r->dir, NULL))))
        rc = cli_lock_take(lock, CMD, "-o", lpath, "another srlab reproduce is writing into this "
                           "folder now; wait for it to finish, or stop it");
    free(lpath);
    if (!rc)
        rc = remove_stale_temporaries(r);
    if (rc || (rc = make_dir(r->dir, "logs")) ||
        (rc = make_dir(r->dir, "specs")) || (rc = remove_stale(r->dir, "index.html")))
        return rc;
    for (size_t i = 0; i < r->nex; i++) /* the specs as they are now: what the report shows */
        if (!r->ex[i].problem && (rc = copy_spec(r, &r->ex[i])))
            return rc;
    return 0;
}

/* ---- running a step ---- */

/* The step running now, for the signal handler: SIGTERM or SIGHUP to reproduce reach it too
 * (SIGINT from a terminal reaches the whole process group by itself). The handler then calls the
 * one it replaced: cli_util.c's, which removes the temporary files of atomic outputs and dies
 * with the signal. */
static volatile sig_atomic_t rp_child;
#define RP_NSIGS 3
static const int rp_sigs[RP_NSIGS] = {SIGINT, SIGTERM, SIGHUP};
static void (*rp_previous[RP_NSIGS])(int);

static void rp_on_signal(int sig)
{
    pid_t p = (pid_t)rp_child;
    if (p > 0)
        kill(p, sig);
    for (int k = 0; k < RP_NSIGS; k++)
        if (rp_sigs[k] == sig && rp_previous[k] != SIG_DFL && rp_previous[k] != SIG_IGN &&
            rp_previous[k] != SIG_ERR)
            rp_previous[k](sig);
    raise(sig); /* installed with SA_RESETHAND | SA_NODEFER: the default action now */
}

/* Call after cli_out has installed its handlers (a first cli_out_open): it installs them once,
 * and would otherwise replace these. */
static void install_signal_forwarding(void)
{
    for (int k = 0; k < RP_NSIGS; k++) {
        struct sigaction old, sa;
        if (sigaction(rp_sigs[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        rp_previous[k] = old.sa_handler;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = rp_on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(rp_sigs[k], &sa, NULL);
    }
}

/* The last non-empty line of the step's log (at most 300 characters), or NULL. */
static char *last_line(const char *dir, const char *log)
{
    size_t len;
    char *text = cli_host_read(dir, log, &len);
    if (!text)
        return NULL;
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
        len--;
    size_t b = len;
    while (b && text[b - 1] != '\n')
        b--;
    char *r = len > b ? strndup(text + b, len - b > 300 ? 300 : len - b) : NULL;
    free(text);
    return r;
}

/* Run srlab with s->argv in r->dir, its output into r->dir/s->log. Returns 0, or an exit status
 * for a failure of the system (the log cannot be created, fork fails). The step's own failure
 * is in s->status. */
static int run_step(const rp_report *r, rp_step *s)
{
    char *logpath = cli_host_path(r->dir, s->log), *line = rp_command(s->argc, s->argv);
    char **argv = malloc(((size_t)s->argc + 2) * sizeof *argv);
    int rc = 0, fd = -1, err;
    if (!logpath || !line || !argv) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    argv[0] = "srlab";
    for (int i = 0; i < s->argc; i++)
        argv[i + 1] = s->argv[i];
    argv[s->argc + 1] = NULL;
    if ((rc = cli_out_append(CMD, "the log", logpath, true, &fd))) /* no link, no device */
        goto done;
    char *head = cli_alloc_printf("$ %s\n", line);
    if (!head || (err = cli_write_all(fd, head, strlen(head)))) {
        rc = head ? cli_sys_error(CMD, "cannot write %s: %s", logpath, strerror(err))
                  : cli_sys_error(CMD, "out of memory");
        free(head);
        goto done;
    }
    free(head);
    const double t0 = cli_host_now(), c0 = children_cpu();
    const cli_host_child child = {r->exe, false, argv, r->dir, fd, true,
                                  "srlab reproduce: cannot enter the report folder\n",
                                  "srlab reproduce: cannot start srlab\n", NULL};
    pid_t pid;
    if ((err = cli_host_spawn(&child, &pid))) {
        rc = cli_sys_error(CMD, "cannot start %s: %s", line, strerror(err));
        goto done;
    }
    rp_child = pid;
    close(fd);
    fd = -1;
    cli_host_exit e;
    err = cli_host_wait(pid, &e);
    rp_child = 0;
    if (err) {
        rc = cli_sys_error(CMD, "waiting for %s: %s", line, strerror(err));
        goto done;
    }
    s->seconds = cli_host_now() - t0;
    s->cpu = children_cpu() - c0;
    s->ran = true;
    s->status = e.status;
    if (s->status != 0)
        s->last = last_line(r->dir, s->log);
done:
    if (fd >= 0)
        close(fd);
    free(logpath);
    free(line);
    free(argv);
    return rc;
}

/* Progress: "srlab reproduce: [ 3/27] srlab plot stall ... ok (0.3 s)". */
static void progress_start(int k, int n, const rp_step *s)
{
    char *line = rp_command(s->argc, s->argv);
    fprintf(stderr, "srlab %s: [%*d/%d] ", CMD, n >= 10 ? 2 : 1, k, n);
    cli_fputs_text(stderr, line ? line : s->argv[0]);
    fputs(" ... ", stderr);
    fflush(stderr);
    free(line);
}

static void progress_end(const rp_step *s)
{
    char t[32];
    rp_duration(t, sizeof t, s->seconds);
    if (rp_step_ok(s)) {
        fprintf(stderr, "ok (%s)\n", t);
        return;
    }
    if (s->status > 128 && s->status < 128 + 65)
        fprintf(stderr, "FAILED: killed by signal %d (%s; see ", s->status - 128, t);
    else
        fprintf(stderr, "FAILED: exit %d (%s; see ", s->status, t);
    cli_fputs_text(stderr, s->log);
    fputs(")", stderr);
    if (s->last) { /* the step's last line: what a child wrote stays text */
        fputs(": ", stderr);
        cli_fputs_text(stderr, s->last);
    }
    fputc('\n', stderr);
}

static void progress_skip(int k, int n, const char *what, const char *why)
{
    cli_note(CMD, "[%*d/%d] %s: not run: %s", n >= 10 ? 2 : 1, k, n, what, why);
}

/* ---- the plan ---- */

/* The position of the steps in the progress lines: step k of n. */
typedef struct rp_progress {
    int k, n;
} rp_progress;

/* A step, between its progress lines. */
static int run_shown(const rp_report *r, rp_step *s, rp_progress *pr)
{
    progress_start(++pr->k, pr->n, s);
    int rc = run_step(r, s);
    if (!rc)
        progress_end(s);
    return rc;
}

/* The figures of an experiment whose sweep has run. */
static int run_figures(const rp_report *r, rp_experiment *e, rp_progress *pr)
{
    int rc;
    for (size_t j = 0; j < e->nfigs; j++) {
        rp_figure *f = &e->figs[j];
        char what[200];
        snprintf(what, sizeof what, "srlab plot %s", f->plot ? f->plot : "?");
        if (f->problem) {
            progress_skip(++pr->k, pr->n, what, f->problem);
            continue;
        }
        if ((rc = remove_stale(r->dir, f->file)))
            return rc;
        if (!rp_step_ok(&e->sweep)) {
            progress_skip(++pr->k, pr->n, what, "its sweep failed");
            continue;
        }
        if ((rc = run_shown(r, &f->step, pr)))
            return rc;
    }
    return 0;
}

/* The quick mode's dry run, the sweep (continuing an interrupted sweep's journal, --force) and
 * the figures of an experiment. */
static int run_experiment(const rp_report *r, rp_experiment *e, rp_progress *pr)
{
    int rc;
    if (e->problem) {
        progress_skip(++pr->k, pr->n, e->name, e->problem);
        pr->k += (int)e->nfigs;
        return 0;
    }
    if (e->plan.argv && (rc = run_step(r, &e->plan)))
        return rc;
    char *journal = cli_alloc_printf("%s/%s.journal", r->dir, e->name);
    if (!journal)
        return cli_sys_error(CMD, "out of memory");
    struct stat sb; /* an empty journal (a sweep killed before its start) is no journal */
    e->resumed = stat(journal, &sb) == 0 && sb.st_size > 0;
    free(journal);
    if (e->resumed && rp_step_push(&e->sweep, "--resume"))
        return cli_sys_error(CMD, "out of memory");
    /* no remove_stale of its files: the sweep replaces its set as one transaction, or leaves the
     * old one whole (src/cli/set.h), which the report then does not show */
    if ((rc = run_shown(r, &e->sweep, pr)))
        return rc;
    return run_figures(r, e, pr);
}

int rp_steps_run(rp_report *r)
{
    install_signal_forwarding();
    const double t0 = cli_host_now(), c0 = children_cpu();
    rp_progress pr = {0, r->check_skipped ? 0 : 1};
    for (size_t i = 0; i < r->nex; i++)
        pr.n += 1 + (int)r->ex[i].nfigs;
    int rc;
    for (size_t i = 0; i < r->nex; i++)
        if ((rc = run_experiment(r, &r->ex[i], &pr)))
            return rc;
    if (!r->check_skipped &&
        ((rc = remove_stale(r->dir, "check.csv")) || (rc = run_shown(r, &r->check, &pr))))
        return rc;
    r->seconds = cli_host_now() - t0;
    r->cpu = children_cpu() - c0;
    return 0;
}
