/* src/cli/sweep_slurm.c: `srlab sweep SPEC --slurm N` and `srlab sweep SPEC --slurm-status`.
 *
 * --slurm N [--partition P] [--time T] [--cpus-per-task C] turns a sweep into a SLURM job array
 * of N tasks plus the job that merges them, and returns once both are submitted:
 *
 *   1. the sweep is checked by a dry run in a child process (the very code and messages of
 *      `srlab sweep ... --dry-run`), which also gives its '# command:' line and number of runs;
 *   2. a job script is written, atomically, beside the outputs: OUT minus .csv plus .sbatch
 *      (so the user can read it and submit it again). Array task I runs
 *      `srlab sweep ... --shard I/N --resume -o OUT.shard.I.csv`; `SCRIPT merge` runs
 *      `srlab merge` into OUT, OUT.runs.csv and OUT.summary.csv;
 *   3. `sbatch --array=0-(N-1) SCRIPT`, then `sbatch --dependency=afterok:ID SCRIPT merge`;
 *      the job ids and the commands to watch them are printed.
 *
 * Bad input (no sbatch on PATH, N < 1 or more shards than runs, bad --partition/--time/
 * --cpus-per-task, a sweep its dry run refuses) exits 2 before anything is written or submitted.
 *
 * Safety: the script is a fixed template. The values in it are validated to a small alphabet
 * (partition, time, counts, the job name) or written as single-quoted shell words (paths, the
 * sweep's arguments; control characters are refused, so no value can end a line); sbatch is run
 * with posix_spawnp and an argv array, never through a shell.
 *
 * Interruptions (the template's comments say the same): a task requeued by SLURM (scontrol
 * requeue, preemption, node failure: #SBATCH --requeue) starts again and resumes from its
 * shard's journal. Near its time limit SLURM sends the script USR1 (#SBATCH --signal) and the
 * task requeues itself once it has finished a run in this attempt; so does a task whose srlab
 * was killed with SIGKILL (the OOM killer, an administrator). A task that finished no run in an
 * attempt is not requeued: it fails rather than loop.
 *
 * --slurm-status reads the job script (shard count), the shards' files and journals, and prints
 * how many runs each shard has finished. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "srlab/common.h"
#include "srlab/sweep.h"
#include "cli/sweep_cli.h"
#include "cli/sweep_slurm.h"

#define CMD "sweep"

extern char **environ;

/* ---- the command line ---- */

typedef struct sl_args {
    const char *slurm, *partition, *time, *cpus, *output, *spec;
    bool status, help;
    const char *missing; /* --slurm, --partition, --time or --cpus-per-task without a value */
    const char *refused; /* an option --slurm makes itself (--shard, --threads, ...) */
    char **fwd;          /* the sweep's own arguments, in order, without the above and -o */
    int nfwd;
} sl_args;

/* The sweep's options that take no value (cmd_sweep.c's flags). */
static bool is_flag(const char *name, size_t n)
{
    static const char *const flags[] = {"resume", "quick", "dry-run", "quiet", "help"};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (strlen(flags[i]) == n && !strncmp(flags[i], name, n))
            return true;
    return false;
}

/* A short option at argv[*k] (-o only; the others are forwarded); *k moves past its value. */
static void scan_short(sl_args *A, int argc, char **argv, int *k)
{
    char *s = argv[*k];
    if (s[1] == 'o') {
        if (s[2])
            A->output = s + 2;
        else if (*k + 1 < argc)
            A->output = argv[++*k];
        else
            A->fwd[A->nfwd++] = s; /* the dry run says it needs a value */
        return;
    }
    A->fwd[A->nfwd++] = s; /* -f FMT, -r MODE, or one the dry run refuses */
    if ((s[1] == 'f' || s[1] == 'r') && !s[2] && *k + 1 < argc)
        A->fwd[A->nfwd++] = argv[++*k];
}

/* A long option at argv[*k], `--name VALUE` or `--name=VALUE`; *k moves past its value. */
static void scan_long(sl_args *A, int argc, char **argv, int *k)
{
    char *s = argv[*k];
    const char *name = s + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    const char *val = eq ? eq + 1 : NULL;
#define IS(lit) (n == sizeof(lit) - 1 && !strncmp(name, lit, n))
    if (IS("help")) {
        A->help = true;
        return;
    }
    if (IS("slurm-status")) {
        A->status = true;
        return;
    }
    if (IS("quiet"))
        return; /* the job script runs every srlab quietly */
    if (is_flag(name, n)) {
        if (IS("resume") || IS("dry-run"))
            A->refused = IS("resume") ? "--resume" : "--dry-run";
        else
            A->fwd[A->nfwd++] = s;
        return;
    }
    /* Everything else takes a value. */
    if (!val) {
        if (*k + 1 >= argc) {
            /* Ours is reported by the caller; the sweep's, by the dry run. */
            if (IS("slurm") || IS("partition") || IS("time") || IS("cpus-per-task"))
                A->missing = s;
            else
                A->fwd[A->nfwd++] = s;
            return;
        }
        val = argv[++*k];
    }
    if (IS("slurm"))
        A->slurm = val;
    else if (IS("partition"))
        A->partition = val;
    else if (IS("time"))
        A->time = val;
    else if (IS("cpus-per-task"))
        A->cpus = val;
    else if (IS("output"))
        A->output = val;
    else if (IS("shard") || IS("threads"))
        A->refused = IS("shard") ? "--shard" : "--threads";
    else {
        A->fwd[A->nfwd++] = s;
        if (!eq)
            A->fwd[A->nfwd++] = argv[*k];
    }
#undef IS
}

/* Split argv (argv[0] is "sweep") the way cli_args_next reads it: `--name VALUE`,
 * `--name=VALUE`, flags, `-o VALUE`, `-oVALUE`, positional arguments, `--`. Nothing is reported
 * here (an ordinary sweep reports its own mistakes); -1 when out of memory. */
static int scan(sl_args *A, int argc, char **argv)
{
    memset(A, 0, sizeof *A);
    A->fwd = calloc((size_t)argc + 1, sizeof *A->fwd);
    if (!A->fwd)
        return -1;
    bool positional = false;
    for (int k = 1; k < argc; k++) {
        char *s = argv[k];
        if (positional || s[0] != '-' || !s[1]) {
            if (!A->spec)
                A->spec = s;
            A->fwd[A->nfwd++] = s;
        } else if (!strcmp(s, "--")) {
            positional = true;
            A->fwd[A->nfwd++] = s;
        } else if (!strcmp(s, "-h")) {
            A->help = true;
        } else if (s[1] != '-') {
            scan_short(A, argc, argv, &k);
        } else {
            scan_long(A, argc, argv, &k);
        }
    }
    return 0;
}

/* ---- small helpers ---- */

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            return true;
    return false;
}

/* One single-quoted shell word: 'it'\''s'. */
static void put_sq(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", fp);
        else
            fputc(*s, fp);
    }
    fputc('\'', fp);
}

/* A word for a command shown to a person: bare when it is plain, else single-quoted. */
static void put_word(FILE *fp, const char *s)
{
    bool plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_./:=,+@%-", *p);
    if (plain)
        fputs(s, fp);
    else
        put_sq(fp, s);
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* An executable file named `name` in a directory of PATH (what posix_spawnp would run). */
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        char *f = n ? xprintf("%.*s/%s", (int)n, p, name) : xprintf("./%s", name);
        struct stat st;
        bool ok = f && stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0;
        free(f);
        if (ok)
            return true;
        if (!c)
            return false;
        p = c + 1;
    }
}

/* The path of the running program (the srlab the job script runs). */
static char *self_exe(void)
{
    size_t cap = 256;
    for (;;) {
        char *b = malloc(cap);
        if (!b)
            return NULL;
        ssize_t n = readlink("/proc/self/exe", b, cap);
        if (n < 0) {
            free(b);
            return NULL;
        }
        if ((size_t)n < cap) {
            b[n] = 0;
            return b;
        }
        free(b);
        cap *= 2;
    }
}

static char *current_dir(void)
{
    size_t cap = 256;
    for (;;) {
        char *b = malloc(cap);
        if (!b)
            return NULL;
        if (getcwd(b, cap))
            return b;
        free(b);
        if (errno != ERANGE)
            return NULL;
        cap *= 2;
    }
}

/* ---- the dry run ---- */

typedef struct dry {
    char *text;      /* what `srlab sweep ... --dry-run` printed */
    char *command;   /* its "# command: ..." line (without '\n') */
    size_t runs;     /* its "# runs: R" */
} dry;

static void dry_free(dry *d)
{
    free(d->text);
    free(d->command);
    memset(d, 0, sizeof *d);
}

/* The dry run's argv: "sweep", the sweep's arguments and --dry-run (before any "--", after which
 * everything is positional); its count in *acp. NULL when out of memory. */
static char **dry_argv(const sl_args *A, int *acp)
{
    char **av = calloc((size_t)A->nfwd + 3, sizeof *av);
    if (!av)
        return NULL;
    static char sweep[] = "sweep", dry_flag[] = "--dry-run";
    int ac = 0;
    av[ac++] = sweep;
    for (int i = 0; i < A->nfwd; i++)
        av[ac++] = A->fwd[i];
    /* After "--" everything is positional: put --dry-run before it. */
    int dd = -1;
    for (int i = 1; i < ac; i++)
        if (!strcmp(av[i], "--")) {
            dd = i;
            break;
        }
    if (dd >= 0) {
        memmove(av + dd + 1, av + dd, (size_t)(ac - dd) * sizeof *av);
        av[dd] = dry_flag;
        ac++;
    } else {
        av[ac++] = dry_flag;
    }
    av[ac] = NULL;
    *acp = ac;
    return av;
}

/* Everything the child writes to fd, into *bufp (room for a final '\0'). 0, or an exit status. */
static int dry_read_all(int fd, char **bufp, size_t *lenp)
{
    size_t len = 0, cap = 0;
    char *buf = NULL;
    int rc = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *b = realloc(buf, cap);
            if (!b) {
                rc = cli_sys_error(CMD, "out of memory");
                break;
            }
            buf = b;
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    *bufp = buf;
    *lenp = len;
    return rc;
}

/* The "# command:" and "# runs:" lines of what the dry run printed (buf, owned by d now). */
static int dry_parse(char *buf, dry *d)
{
    d->text = buf;
    const char *c = strstr(buf, "# command: ");
    const char *r = strstr(buf, "\n# runs: ");
    if (!c || (c != buf && c[-1] != '\n') || !r) {
        dry_free(d);
        return cli_sys_error(CMD, "internal error: the dry run printed no '# command:' or "
                             "'# runs:' line");
    }
    d->command = strndup(c, strcspn(c, "\n"));
    d->runs = strtoull(r + 9, NULL, 10);
    if (!d->command) {
        dry_free(d);
        return cli_sys_error(CMD, "out of memory");
    }
    return 0;
}

/* Run `sweep ARGS --dry-run` in a child process (the messages of a refused sweep are its own, on
 * standard error) and read what it prints. 0, or an exit status. */
static int dry_run(const sl_args *A, const srl_runner *const *runners, dry *d)
{
    memset(d, 0, sizeof *d);
    int ac = 0;
    char **av = dry_argv(A, &ac);
    if (!av)
        return cli_sys_error(CMD, "out of memory");

    int fds[2];
    if (pipe(fds) != 0) {
        free(av);
        return cli_sys_error(CMD, "cannot run the dry run: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        free(av);
        return cli_sys_error(CMD, "cannot run the dry run: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(CLI_EXIT_SYSTEM);
        close(fds[1]);
        int rc = cli_sweep_main(ac, av, runners);
        fflush(NULL);
        _exit(rc);
    }
    close(fds[1]);
    free(av);
    size_t len;
    char *buf;
    int rc = dry_read_all(fds[0], &buf, &len);
    close(fds[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    if (!rc && !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0)) {
        /* The child printed why. */
        rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : cli_sys_error(CMD, "the dry run died (signal %d)",
                                                               WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    }
    if (rc) {
        free(buf);
        return rc;
    }
    buf[len] = 0;
    return dry_parse(buf, d);
}

/* ---- where the files go ---- */

typedef struct spec_out {
    char *output;
} spec_out;

static int spec_out_handler(void *user, const char *section, const char *name, const char *value)
{
    spec_out *so = user;
    if ((!*section || !strcmp(section, "sweep")) && !strcmp(name, "output") && !so->output)
        so->output = strdup(value);
    return 1;
}

/* -o, else the spec file's `output` key, else SPEC's name with .csv in the current directory.
 * malloc'd, or NULL after a message (*rc set). */
static char *output_of(const sl_args *A, int *rc)
{
    if (A->output && cli_out_is_stdout(A->output)) { /* the one rule for -o (src/cli/cli.h) */
        *rc = cli_error(CMD, "--slurm needs -o OUT.csv, not standard output (the job script, the "
                        "shards and the merged files are written beside it)");
        return NULL;
    }
    if (A->output)
        return strdup(A->output);
    if (!A->spec) {
        *rc = cli_error(CMD, "--slurm needs -o OUT.csv (the job script, the shards and the "
                        "merged files are written beside it)");
        return NULL;
    }
    spec_out so = {NULL};
    char *found = access(A->spec, F_OK) != 0 && !strchr(A->spec, '/')
                      ? cli_host_find_spec(A->spec, NULL, 0) /* a spec by its name */
                      : NULL;
    (void)ini_parse(found ? found : A->spec, spec_out_handler, &so); /* the dry run checked it */
    free(found);
    if (so.output)
        return so.output;
    const char *slash = strrchr(A->spec, '/');
    const char *base = slash ? slash + 1 : A->spec;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ini"))
        n -= 4;
    return xprintf("%.*s.csv", (int)n, base);
}

/* ---- validation of the values that go into #SBATCH lines ---- */

/* SLURM's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. Seconds, or -1. */
static long long parse_time(const char *s)
{
    long long f[4];
    int nf = 0;
    bool day = false;
    const char *p = s;
    for (;;) {
        if (!isdigit((unsigned char)*p) || nf == 4)
            return -1;
        long long v = 0;
        int nd = 0;
        while (isdigit((unsigned char)*p)) {
            if (++nd > 7)
                return -1;
            v = 10 * v + (*p++ - '0');
        }
        f[nf++] = v;
        if (*p == '-' && nf == 1 && !day) {
            day = true;
            p++;
            continue;
        }
        if (*p == ':') {
            p++;
            continue;
        }
        if (*p)
            return -1;
        break;
    }
    long long sec;
    if (day) { /* D-H[:M[:S]] */
        if (nf < 2)
            return -1;
        sec = f[0] * 86400 + f[1] * 3600 + (nf > 2 ? f[2] * 60 : 0) + (nf > 3 ? f[3] : 0);
    } else if (nf == 1) {
        sec = f[0] * 60;
    } else if (nf == 2) {
        sec = f[0] * 60 + f[1];
    } else if (nf == 3) {
        sec = f[0] * 3600 + f[1] * 60 + f[2];
    } else {
        return -1;
    }
    return sec;
}

static bool partition_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 200)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.,-", *s))
            return false;
    return true;
}

/* ---- the job script ---- */

typedef struct plan {
    long long shards, cpus, lead; /* lead: seconds between the USR1 warning and the limit */
    const char *partition, *time;
    char *srlab, *cwd, *out, *script, *wscript, *prefix, *log, *mlog, *name;
    unsigned long long sde; /* SOURCE_DATE_EPOCH of every shard */
    const dry *d;
    const sl_args *A;
} plan;

static void plan_free(plan *P)
{
    free(P->srlab);
    free(P->cwd);
    free(P->out);
    free(P->script);
    free(P->wscript);
    free(P->prefix);
    free(P->log);
    free(P->mlog);
    free(P->name);
}

/* "%" means a pattern in sbatch's --output: a literal one is "%%". */
static char *sbatch_escape(const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += *p == '%' ? 2 : 1;
    char *e = malloc(n + 1), *w = e;
    if (!e)
        return NULL;
    for (const char *p = s; *p; p++) {
        *w++ = *p;
        if (*p == '%')
            *w++ = '%';
    }
    *w = 0;
    return e;
}

/* An absolute form of path (relative to cwd). */
static char *absolute(const char *cwd, const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    return xprintf("%s/%s", strcmp(cwd, "/") ? cwd : "", path);
}

/* The sbatch commands, as the script's header and the final message show them. */
static void put_array_cmd(FILE *fp, const plan *P)
{
    fprintf(fp, "sbatch --parsable --array=0-%lld ", P->shards - 1);
    char *o = xprintf("--output=%s", P->log);
    put_word(fp, o ? o : "");
    free(o);
    fputc(' ', fp);
    put_word(fp, P->script);
}

static void put_merge_cmd(FILE *fp, const plan *P, const char *jid)
{
    fprintf(fp, "sbatch --parsable --dependency=afterok:%s --cpus-per-task=1 ", jid);
    char *o = xprintf("--output=%s", P->mlog);
    put_word(fp, o ? o : "");
    free(o);
    fputc(' ', fp);
    put_word(fp, P->script);
    fputs(" merge", fp);
}

/* The script's first line and its comment: what it runs, how it was submitted, interruptions. */
static void write_script_header(FILE *fp, const plan *P)
{
    fputs("#!/bin/bash\n", fp);
    fprintf(fp, "# This job script was written by `srlab sweep --slurm` (srlab %s): the sweep\n",
            srl_version());
    fprintf(fp, "#   %s\n", P->d->command + strlen("# command: "));
    fprintf(fp, "# (%zu runs) as a SLURM job array of %lld tasks plus the job that merges them.\n",
            P->d->runs, P->shards);
    fputs("# Array task I runs the runs whose number is I modulo the number of tasks (srlab sweep\n"
          "# --shard I/N --resume) into ", fp);
    cli_fputs_text(fp, P->prefix); /* in a comment: a newline in a path would end it */
    fputs("I.csv; `THIS_SCRIPT merge` joins the\n# shards with srlab merge into ", fp);
    cli_fputs_text(fp, P->out);
    fputs(" and its .runs.csv and .summary.csv, byte-identical\n"
          "# to the same sweep run on one machine.\n"
          "#\n"
          "# Submitted with (from any directory; run both again to resubmit: finished shards are\n"
          "# skipped and an interrupted shard continues from its journal):\n"
          "#   jid=$(", fp);
    put_array_cmd(fp, P);
    fputs(")\n#   ", fp);
    put_merge_cmd(fp, P, "$jid");
    fputs("\n"
          "# Watch: squeue --me; progress: srlab sweep ... --slurm-status (the same sweep arguments).\n"
          "#\n"
          "# Interruptions. A task that SLURM requeues (scontrol requeue, preemption, a node that\n"
          "# fails) starts again and resumes from its shard's journal (--requeue). Near the time\n",
          fp);
    fprintf(fp, "# limit SLURM sends this script USR1 (--signal: %lld s before it, or up to a minute\n",
            P->lead);
    fputs("# earlier) and the task requeues itself as soon as this attempt has finished a run; so\n"
          "# does a task whose srlab was killed with SIGKILL (the OOM killer, an administrator). An\n"
          "# attempt that finished no run is not requeued: the task fails instead of looping (give\n"
          "# a longer --time). Each attempt adds a line to the task's log.\n", fp);
}

/* The #SBATCH options and the shell variables of this sweep. */
static void write_script_settings(FILE *fp, const plan *P)
{
    const sl_args *A = P->A;
    fprintf(fp, "#SBATCH --job-name=%s\n", P->name);
    fprintf(fp, "#SBATCH --cpus-per-task=%lld\n", P->cpus);
    if (P->time)
        fprintf(fp, "#SBATCH --time=%s\n", P->time);
    if (P->partition)
        fprintf(fp, "#SBATCH --partition=%s\n", P->partition);
    fputs("#SBATCH --requeue\n#SBATCH --open-mode=append\n", fp);
    fprintf(fp, "#SBATCH --signal=B:USR1@%lld\n", P->lead);
    fputs("set -u\ncd ", fp);
    put_sq(fp, P->cwd);
    fputs(" || exit 3\nsrlab=", fp);
    put_sq(fp, P->srlab);
    fprintf(fp, "\nshards=%lld\nruns=%zu\nout=", P->shards, P->d->runs);
    put_sq(fp, P->out);
    fputs("\nprefix=", fp);
    put_sq(fp, P->prefix);
    fputs("\ncommand=", fp);
    put_sq(fp, P->d->command);
    fprintf(fp, "\nexport SOURCE_DATE_EPOCH=%llu\nsweep_args=(", P->sde);
    for (int i = 0; i < A->nfwd; i++) {
        if (i)
            fputc(' ', fp);
        put_sq(fp, A->fwd[i]);
    }
    fputs(")\n", fp);
}

/* The script's fixed shell code (the merge job, the array task and its requeueing). Kept whole:
 * it is one template text, clearer unsplit than cut into arbitrary pieces. */
static void write_script_body(FILE *fp)
{
    fputs(
        "\n"
        "say() { echo \"srlab-slurm: $(date -u +%Y-%m-%dT%H:%M:%SZ) $*\"; }\n"
        "\n"
        "if [ \"${1:-}\" = merge ]; then\n"
        "    shard_files=()\n"
        "    for ((i = 0; i < shards; i++)); do shard_files+=(\"$prefix$i.csv\"); done\n"
        "    say \"merging $shards shards into $out\"\n"
        "    trap '' USR1 # the time-limit warning is for the array tasks\n"
        "    exec \"$srlab\" merge \"${shard_files[@]}\" -o \"$out\"\n"
        "fi\n"
        "\n"
        "i=${SLURM_ARRAY_TASK_ID:?submit as a job array: sbatch --array=0-$((shards - 1)) ...}\n"
        "csv=$prefix$i.csv\n"
        "journal=$prefix$i.journal\n"
        "mine=$(((runs - i + shards - 1) / shards))\n"
        "done_runs() { if [ -f \"$journal\" ]; then grep -c '^@run ' \"$journal\"; else echo 0; fi; }\n"
        "if [ -f \"$csv\" ] && [ ! -f \"$journal\" ] && grep -qxF -- \"$command\" \"$csv\" &&\n"
        "    grep -q \"^# shard: $i/$shards \" \"$csv\"; then\n"
        "    say \"task $i: shard $i/$shards is already finished ($csv)\"\n"
        "    exit 0\n"
        "fi\n"
        "before=$(done_runs)\n"
        "say \"task $i: shard $i/$shards, attempt $((${SLURM_RESTART_COUNT:-0} + 1)), $before of $mine runs in the journal\"\n"
        "\n"
        "out_of_time=0\n"
        "stopping=0\n"
        "trap 'out_of_time=1' USR1\n"
        "trap 'stopping=1' TERM\n"
        "\"$srlab\" sweep --shard \"$i/$shards\" --threads \"${SLURM_CPUS_PER_TASK:-1}\" --resume --quiet \\\n"
        "    -o \"$csv\" \"${sweep_args[@]}\" &\n"
        "pid=$!\n"
        "\n"
        "# Ask SLURM to start this task again (it stops this attempt: TERM, then KILL).\n"
        "requeue() {\n"
        "    say \"task $i: $1; $(done_runs) of $mine runs in the journal; requeueing the task\"\n"
        "    if scontrol requeue \"$SLURM_JOB_ID\"; then\n"
        "        sleep 300 &\n"
        "        wait $!\n"
        "        exit 0\n"
        "    fi\n"
        "    say \"task $i: scontrol requeue failed\"\n"
        "    return 1\n"
        "}\n"
        "\n"
        "while :; do\n"
        "    wait \"$pid\"\n"
        "    if [ \"$out_of_time\" = 1 ]; then\n"
        "        out_of_time=0\n"
        "        say \"task $i: SLURM warns of the time limit\"\n"
        "        while [ \"$stopping\" = 0 ] && kill -0 \"$pid\" 2>/dev/null; do\n"
        "            if [ \"$(done_runs)\" -gt \"$before\" ]; then\n"
        "                requeue \"near the time limit\" || break\n"
        "            fi\n"
        "            sleep 2\n"
        "        done\n"
        "        continue\n"
        "    fi\n"
        "    kill -0 \"$pid\" 2>/dev/null || break # else a signal interrupted wait\n"
        "done\n"
        "wait \"$pid\" # bash keeps the status of a finished child\n"
        "status=$?\n"
        "if [ \"$status\" = 137 ] && [ \"$stopping\" = 0 ]; then\n"
        "    if [ \"$(done_runs)\" -gt \"$before\" ]; then\n"
        "        requeue \"srlab was killed (SIGKILL)\"\n"
        "    else\n"
        "        say \"task $i: srlab was killed (SIGKILL) before this attempt finished a run: not requeued\"\n"
        "    fi\n"
        "fi\n"
        "say \"task $i: srlab sweep exited with status $status\"\n"
        "exit \"$status\"\n",
        fp);
}

static void write_script(FILE *fp, const plan *P)
{
    write_script_header(fp, P);
    write_script_settings(fp, P);
    write_script_body(fp);
}

/* ---- running sbatch ---- */

/* Run argv (PATH lookup), its standard output into *out (malloc'd), standard error through.
 * The exit status of the program, or -1 (errno in *err) when it could not run. */
static int run_capture(char *const argv[], char **out, int *err)
{
    *out = NULL;
    *err = 0;
    int fds[2];
    if (pipe(fds) != 0) {
        *err = errno;
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    fflush(NULL);
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e) {
        close(fds[0]);
        *err = e;
        return -1;
    }
    char buf[4096];
    size_t len = 0;
    for (;;) {
        ssize_t k = read(fds[0], buf + len, sizeof buf - 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len == sizeof buf - 1) /* more than a job id: keep the start */
            break;
    }
    close(fds[0]);
    buf[len] = 0;
    int ws;
    while (waitpid(pid, &ws, 0) < 0) {
        if (errno != EINTR) {
            *err = errno;
            return -1;
        }
    }
    *out = strdup(buf);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

/* sbatch --parsable prints "ID" or "ID;CLUSTER". */
static bool job_id(const char *text, char *id, size_t len)
{
    size_t n = strspn(text, "0123456789");
    if (n == 0 || n >= len || (text[n] && !strchr(";\r\n", text[n])))
        return false;
    memcpy(id, text, n);
    id[n] = 0;
    return true;
}

/* Submit argv; the job id in id. 0 or an exit status (after a message). */
static int submit(char *const argv[], const char *what, char *id, size_t len)
{
    char *out = NULL;
    int err;
    int st = run_capture(argv, &out, &err);
    int rc = 0;
    if (st < 0) {
        rc = cli_sys_error(CMD, "cannot run sbatch: %s", strerror(err));
    } else if (st != 0) {
        rc = cli_sys_error(CMD, "sbatch refused the %s (exit status %d; its message is above)",
                           what, st);
    } else if (!job_id(out, id, len)) {
        char q[CLI_QUOTE_LEN];
        rc = cli_sys_error(CMD, "sbatch printed no job id for the %s: %s", what,
                           cli_quote(q, sizeof q, out, strlen(out), 80));
    }
    free(out);
    return rc;
}

/* ---- files of earlier submissions ---- */

/* The "# shard: I/N " line and the "# command:" line of a preamble or a file's text match? */
static bool preamble_matches(const char *text, const char *command, long long i, long long n)
{
    char shard[64];
    snprintf(shard, sizeof shard, "# shard: %lld/%lld ", i, n);
    bool c = false, s = false;
    for (const char *p = text; p && *p == '#';) {
        size_t l = strcspn(p, "\n");
        if (l == strlen(command) && !strncmp(p, command, l))
            c = true;
        if (!strncmp(p, shard, strlen(shard)))
            s = true;
        p = p[l] ? p + l + 1 : NULL;
    }
    return c && s;
}

/* The runs in a shard's journal, or -1 when it cannot be read, -2 when it belongs to another
 * sweep or shard. */
static long long journal_runs(const char *path, const char *command, long long i, long long n)
{
    char *text;
    size_t len;
    if (cli_read_bytes(path, &text, &len))
        return -1;
    srl_sweep_journal *j = NULL;
    srl_err err;
    long long r;
    if (srl_sweep_journal_read(&j, text, len, &err))
        r = -1;
    else if (!j)
        r = 0; /* cut before its start was complete: no run recorded */
    else if (!preamble_matches(srl_sweep_journal_preamble(j), command, i, n))
        r = -2;
    else
        r = (long long)srl_sweep_journal_count(j);
    srl_sweep_journal_free(j);
    free(text);
    return r;
}

/* The runs of a finished shard (rows of its runs file), -1 unreadable, -2 another sweep. */
static long long finished_runs(const char *csv, const char *command, long long i, long long n)
{
    char *text, *sum = cli_sweep_sibling(csv, ".runs.csv");
    size_t len;
    if (!sum)
        return -1;
    long long r = -1;
    if (!cli_read_file(csv, &text, &len)) {
        bool ok = preamble_matches(text, command, i, n);
        free(text);
        if (!ok)
            r = -2;
        else if (!cli_read_file(sum, &text, &len)) {
            r = 0;
            bool header = false;
            for (const char *p = text; *p;) {
                size_t l = strcspn(p, "\n");
                if (*p != '#' && l) {
                    if (header)
                        r++;
                    header = true;
                }
                p += l + (p[l] ? 1 : 0);
            }
            free(text);
        }
    }
    free(sum);
    return r;
}

/* ---- --slurm N ---- */

/* The options --slurm reads and the ones it refuses; 0 when all are usable. */
static int submit_check_options(const sl_args *A, plan *P)
{
    char q[CLI_QUOTE_LEN];
    long long v;
    int rc;
    if ((rc = cli_parse_int(CMD, "--slurm", A->slurm, 1, 1000000, &v)))
        return rc;
    P->shards = v;
    P->cpus = 1;
    if (A->cpus) {
        if ((rc = cli_parse_int(CMD, "--cpus-per-task", A->cpus, 1, 4096, &v)))
            return rc;
        P->cpus = v;
    }
    P->lead = 120;
    if (A->time) {
        long long t = parse_time(A->time);
        if (t <= 0)
            return cli_error(CMD, "--time: %s is not a SLURM time limit (minutes, MM:SS, HH:MM:SS "
                             "or D-HH:MM:SS)",
                             cli_quote(q, sizeof q, A->time, strlen(A->time), CLI_QUOTE_MAX));
        P->time = A->time;
        if (t / 2 < P->lead)
            P->lead = t / 2;
    }
    if (A->partition) {
        if (!partition_ok(A->partition))
            return cli_error(CMD, "--partition: %s is not a partition name (letters, digits, "
                             "'_', '.', '-'; ',' between several)",
                             cli_quote(q, sizeof q, A->partition, strlen(A->partition),
                                       CLI_QUOTE_MAX));
        P->partition = A->partition;
    }
    if (A->refused)
        return cli_error(CMD, "%s and --slurm: %s", A->refused,
                         !strcmp(A->refused, "--threads") ? "each task runs --cpus-per-task threads"
                         : !strcmp(A->refused, "--shard") ? "each array task gets its own --shard"
                         : !strcmp(A->refused, "--resume")
                             ? "each task resumes from its journal already"
                             : "check the sweep with --dry-run alone; --slurm submits it");
    for (int i = 0; i < A->nfwd; i++)
        if (has_control(A->fwd[i]))
            return cli_error(CMD, "--slurm: the argument %s holds a control character",
                             cli_quote(q, sizeof q, A->fwd[i], strlen(A->fwd[i]), CLI_QUOTE_MAX));
    if (!on_path("sbatch"))
        return cli_error(CMD, "--slurm: no sbatch on PATH (is this a SLURM login node?); "
                         "nothing was submitted");
    return 0;
}

/* The job name: srlab- and the output's name, in letters, digits and _.- */
static char *job_name(const char *out)
{
    const char *slash = strrchr(out, '/');
    const char *base = slash ? slash + 1 : out;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".csv"))
        n -= 4;
    if (n > 60)
        n = 60;
    char *name = xprintf("srlab-%.*s", (int)n, base);
    for (char *p = name ? name + 6 : NULL; p && *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
            *p = '_';
    return name;
}

/* The plan's paths (output, program, directory, script, shard prefix, logs), job name and date. */
static int submit_plan_paths(const sl_args *A, plan *P)
{
    char q[CLI_QUOTE_LEN];
    int orc = 0;
    P->out = output_of(A, &orc);
    if (!P->out)
        return orc ? orc : cli_sys_error(CMD, "out of memory");
    if (has_control(P->out))
        return cli_error(CMD, "-o: %s holds a control character",
                         cli_quote(q, sizeof q, P->out, strlen(P->out), CLI_QUOTE_MAX));
    P->srlab = self_exe();
    P->cwd = current_dir();
    if (!P->srlab || !P->cwd)
        return cli_sys_error(CMD, "cannot find %s: %s", P->srlab ? "the current directory"
                             : "the srlab program (/proc/self/exe)", strerror(errno));
    if (has_control(P->cwd) || has_control(P->srlab))
        return cli_error(CMD, "--slurm: the current directory or srlab's path holds a control "
                         "character");
    char *absout = absolute(P->cwd, P->out);
    char *ab = absout ? cli_sweep_sibling(absout, ".slurm-") : NULL;
    char *abe = ab ? sbatch_escape(ab) : NULL;
    P->script = cli_sweep_sibling(P->out, ".sbatch");
    P->prefix = cli_sweep_sibling(P->out, ".shard.");
    if (abe) {
        P->log = xprintf("%s%%A_%%a.log", abe);
        P->mlog = xprintf("%smerge-%%j.log", abe);
    }
    free(ab);
    free(abe);
    P->name = job_name(P->out);
    P->wscript = P->script; /* written as the user names it; submitted by its absolute path */
    P->script = P->wscript ? absolute(P->cwd, P->wscript) : NULL;
    free(absout);
    if (!P->wscript || !P->script || !P->prefix || !P->log || !P->mlog || !P->name)
        return cli_sys_error(CMD, "out of memory");
    /* One date line for every shard: SOURCE_DATE_EPOCH (the dry run has checked it), else now. */
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    P->sde = sde && *sde ? strtoull(sde, NULL, 10) : (unsigned long long)time(NULL);
    return 0;
}

/* Journals of an earlier submission must belong to this sweep and this many shards. */
static int submit_check_journals(const plan *P)
{
    char q[CLI_QUOTE_LEN];
    int rc = 0;
    for (long long i = 0; i < P->shards; i++) {
        char *jp = xprintf("%s%lld.journal", P->prefix, i);
        if (!jp)
            return cli_sys_error(CMD, "out of memory");
        struct stat st;
        long long r = stat(jp, &st) == 0 ? journal_runs(jp, P->d->command, i, P->shards) : 0;
        if (r < 0)
            rc = cli_error(CMD, "%s %s: remove it, or write this sweep elsewhere (-o)",
                           cli_quote(q, sizeof q, jp, strlen(jp), 200),
                           r == -2 ? "holds the runs of another sweep or another --slurm N"
                                   : "cannot be read");
        free(jp);
        if (rc)
            return rc;
    }
    return 0;
}

/* Submit the job array, then the merge job that depends on it; their ids in jid and mid. */
static int submit_jobs(const plan *P, char *jid, size_t jlen, char *mid, size_t mlen)
{
    int rc;
    char *arr = xprintf("--array=0-%lld", P->shards - 1);
    char *olog = xprintf("--output=%s", P->log);
    if (!arr || !olog) {
        free(arr);
        free(olog);
        return cli_sys_error(CMD, "out of memory");
    }
    {
        static char sbatch[] = "sbatch", parsable[] = "--parsable";
        char *argv[] = {sbatch, parsable, arr, olog, P->script, NULL};
        rc = submit(argv, "job array", jid, jlen);
    }
    free(arr);
    free(olog);
    if (rc) {
        cli_note(CMD, "nothing was submitted; the job script is %s", P->script);
        return rc;
    }
    char *dep = xprintf("--dependency=afterok:%s", jid);
    char *mlog = xprintf("--output=%s", P->mlog);
    if (!dep || !mlog) {
        rc = cli_sys_error(CMD, "out of memory");
    } else {
        static char sbatch[] = "sbatch", parsable[] = "--parsable", one[] = "--cpus-per-task=1",
                    merge[] = "merge";
        char *argv[] = {sbatch, parsable, dep, one, mlog, P->script, merge, NULL};
        rc = submit(argv, "merge job", mid, mlen);
    }
    free(dep);
    free(mlog);
    if (rc) {
        char *m = NULL;
        size_t ml = 0;
        FILE *mf = open_memstream(&m, &ml);
        if (mf) {
            put_merge_cmd(mf, P, jid);
            fclose(mf);
        }
        cli_note(CMD, "the job array is submitted as job %s but the merge is not; submit it "
                 "with: %s", jid, m ? m : "(out of memory)");
        free(m);
    }
    return rc;
}

/* What was submitted, and how to follow it. */
static int submit_report(const sl_args *A, const plan *P, const char *jid, const char *mid)
{
    int rc;
    cli_out so;
    if ((rc = cli_out_open(&so, CMD, NULL, NULL)))
        return rc;
    /* the paths the user chose are shown as text (cli_fputs_text: no control character) */
    fputs("job script: ", so.fp);
    cli_fputs_text(so.fp, P->script);
    fprintf(so.fp, "\narray job %s: %lld tasks, %zu runs (shard I: ", jid, P->shards,
            P->d->runs);
    cli_fputs_text(so.fp, P->prefix);
    fputs("I.csv)\n", so.fp);
    fprintf(so.fp, "merge job %s: after array job %s succeeds (", mid, jid);
    cli_fputs_text(so.fp, P->out);
    fputs(" and its .runs.csv and .summary.csv)\n", so.fp);
    fprintf(so.fp, "watch: squeue -j %s,%s\n", jid, mid);
    fputs("progress: srlab sweep", so.fp);
    for (int i = 0; i < A->nfwd; i++) {
        fputc(' ', so.fp);
        put_word(so.fp, A->fwd[i]);
    }
    if (A->output) {
        fputs(" -o ", so.fp);
        put_word(so.fp, A->output);
    }
    fputs(" --slurm-status\n", so.fp);
    return cli_out_commit(&so);
}

static int do_submit(const sl_args *A, const srl_runner *const *runners)
{
    plan P;
    memset(&P, 0, sizeof P);
    P.A = A;
    int rc;
    if ((rc = submit_check_options(A, &P)))
        return rc;
    dry d;
    if ((rc = dry_run(A, runners, &d)))
        return rc;
    P.d = &d;
    if ((size_t)P.shards > d.runs) {
        rc = cli_error(CMD, "--slurm: %lld shards for %zu runs: give at most %zu (every array "
                       "task needs a run)", P.shards, d.runs, d.runs);
        goto done;
    }
    if ((rc = submit_plan_paths(A, &P)) || (rc = submit_check_journals(&P)))
        goto done;

    /* The script (its directory is the outputs'; a missing one is reported here). */
    cli_out o;
    if ((rc = cli_out_open(&o, CMD, "-o", P.wscript)))
        goto done;
    write_script(o.fp, &P);
    if ((rc = cli_out_commit(&o)))
        goto done;

    char jid[64], mid[64];
    if ((rc = submit_jobs(&P, jid, sizeof jid, mid, sizeof mid)))
        goto done;
    rc = submit_report(A, &P, jid, mid);
done:
    dry_free(&d);
    plan_free(&P);
    return rc;
}

/* ---- --slurm-status ---- */

/* The job script's shard count (its shards= line); 0 when it is not this sweep's script (its
 * command= line must be d's command). -1 when out of memory. */
static long long status_script_shards(const char *text, const char *command)
{
    const char *s = strstr(text, "\nshards=");
    long long n = s ? strtoll(s + 8, NULL, 10) : 0;
    char *want = NULL;
    size_t bl = 0;
    FILE *m = open_memstream(&want, &bl);
    if (m) {
        fputs("\ncommand=", m);
        put_sq(m, command);
        fputc('\n', m);
        fclose(m);
    }
    if (!want)
        return -1;
    if (n < 1 || !strstr(text, want))
        n = 0;
    free(want);
    return n;
}

/* Shard i's line of the status table; its finished runs are added to *total. */
static int status_shard_row(FILE *fp, const dry *d, const char *prefix, long long i, long long n,
                            size_t *total)
{
    size_t mine = d->runs > (size_t)i ? (d->runs - (size_t)i + (size_t)n - 1) / (size_t)n : 0;
    char *jp = xprintf("%s%lld.journal", prefix, i);
    char *cp = xprintf("%s%lld.csv", prefix, i);
    if (!jp || !cp) {
        free(jp);
        free(cp);
        return -1;
    }
    struct stat st;
    long long r = 0;
    const char *state;
    if (stat(jp, &st) == 0) {
        r = journal_runs(jp, d->command, i, n);
        state = r == -2 ? "another sweep's journal" : r < 0 ? "unreadable journal"
                                                            : "started (journal)";
    } else if (stat(cp, &st) == 0) {
        r = finished_runs(cp, d->command, i, n);
        state = r == -2 ? "another sweep's file" : r < 0 ? "unreadable file" : "finished";
    } else {
        state = "not started";
    }
    if (r < 0)
        r = 0;
    *total += (size_t)r;
    fprintf(fp, "%lld,%zu,%lld,%s\n", i, mine, r, state);
    free(jp);
    free(cp);
    return 0;
}

/* Whether out is the merged output of this sweep: its comment lines hold the command, and it
 * is no shard. */
static bool status_merged(const char *out, const char *command)
{
    bool merged = false;
    char *mt;
    size_t ml;
    if (!cli_read_file(out, &mt, &ml)) {
        for (const char *p = mt; *p == '#' && !merged;) {
            size_t l = strcspn(p, "\n");
            merged = l == strlen(command) && !strncmp(p, command, l);
            p += l + (p[l] ? 1 : 0);
        }
        merged = merged && !strstr(mt, "\n# shard: ");
        free(mt);
    }
    return merged;
}

static int do_status(const sl_args *A, const srl_runner *const *runners)
{
    char q[CLI_QUOTE_LEN];
    if (A->slurm || A->partition || A->time || A->cpus)
        return cli_error(CMD, "--slurm-status reads the files of a submitted sweep: give the "
                         "sweep's arguments without --slurm, --partition, --time, --cpus-per-task");
    if (A->refused && strcmp(A->refused, "--threads"))
        return cli_error(CMD, "%s and --slurm-status: give the sweep's arguments as submitted",
                         A->refused);
    dry d;
    int rc = dry_run(A, runners, &d);
    if (rc)
        return rc;
    char *out = NULL, *script = NULL, *text = NULL, *prefix = NULL;
    size_t len;
    int orc = 0;
    out = output_of(A, &orc);
    if (!out) {
        rc = orc ? orc : cli_sys_error(CMD, "out of memory");
        goto done;
    }
    script = cli_sweep_sibling(out, ".sbatch");
    prefix = cli_sweep_sibling(out, ".shard.");
    if (!script || !prefix) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    cli_quote(q, sizeof q, script, strlen(script), 200);
    int e = cli_read_file(script, &text, &len);
    if (e) {
        rc = cli_error(CMD, "--slurm-status: cannot read the job script %s (%s): submit the sweep "
                       "with --slurm N first", q, cli_read_strerror(e));
        goto done;
    }
    long long n = status_script_shards(text, d.command);
    if (n < 0) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    if (n == 0) {
        rc = cli_error(CMD, "--slurm-status: %s was written for another sweep: give the "
                       "arguments it was submitted with", q);
        goto done;
    }
    cli_out o;
    if ((rc = cli_out_open(&o, CMD, NULL, NULL)))
        goto done;
    fprintf(o.fp, "%s\n# job script: %s (%lld shards, %zu runs)\n", d.command, script, n, d.runs);
    fputs("shard,runs,done,state\n", o.fp);
    size_t total = 0;
    for (long long i = 0; i < n; i++)
        if (status_shard_row(o.fp, &d, prefix, i, n, &total)) {
            cli_out_abort(&o);
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
    bool merged = status_merged(out, d.command);
    fprintf(o.fp, "# done: %zu of %zu runs; merged: %s (%s)\n", total, d.runs,
            merged ? "yes" : "no", out);
    rc = cli_out_commit(&o);
done:
    dry_free(&d);
    free(out);
    free(script);
    free(prefix);
    free(text);
    return rc;
}

int cli_sweep_slurm(int argc, char **argv, const srl_runner *const *runners)
{
    sl_args A;
    if (scan(&A, argc, argv)) {
        free(A.fwd);
        return cli_sys_error(CMD, "out of memory");
    }
    int rc;
    if (!A.slurm && !A.status && !A.partition && !A.time && !A.cpus && !A.missing)
        rc = -1; /* the ordinary sweep */
    else if (A.help) { /* the sweep's help, which describes these options too */
        static char sweep[] = "sweep", help[] = "--help";
        char *hargv[] = {sweep, help, NULL};
        rc = cli_sweep_main(2, hargv, runners);
    } else if (A.missing)
        rc = cli_error(CMD, "%s needs a value", A.missing);
    else if (A.slurm && A.status)
        rc = cli_error(CMD, "--slurm submits, --slurm-status reports: give one of them");
    else if (A.status)
        rc = do_status(&A, runners);
    else if (!A.slurm)
        rc = cli_error(CMD, "%s needs --slurm N", A.partition ? "--partition"
                                                  : A.time    ? "--time"
                                                              : "--cpus-per-task");
    else
        rc = do_submit(&A, runners);
    free(A.fwd);
    return rc;
}
