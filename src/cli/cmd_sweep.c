/* src/cli/cmd_sweep.c: `srlab sweep [SPEC.ini] [--KEY VALUES]... [-o out.csv]` (DESIGN §10-§12).
 *
 * This file turns a spec file and flags into the settings of a sweep (include/srlab/sweep.h:
 * grid, order, summaries and the journal format live in the library), runs the sweep with a
 * journal that makes it resumable, and writes the rows and summary files atomically. The spec
 * file is read with inih (Debian's libinih), with our own line reader so every message can name
 * the line; precedence: the spec's keys, then its [quick] section (--quick), then flags.
 *
 * Files: -o out.csv writes out.csv (rows) and out.summary.csv; while the sweep runs, out.journal
 * holds every finished run (appended with write(2) as the run finishes, so a killed process loses
 * only the runs in flight; a background thread fdatasyncs the journal every 0.5 s, and once more
 * at the end, so a machine crash loses at most the last half second, and no worker ever waits on
 * the disk: a sync per run costs milliseconds, more than a small run). The outputs are assembled
 * from the journal in run
 * order, which is why a resumed sweep prints the same bytes as an uninterrupted one; the journal
 * is removed once both files are in place. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "srlab/sweep.h"
#include "sweep_cli.h"
#include "sweep_slurm.h"

#define CMD "sweep"

static const char help_text[] =
    "usage: srlab sweep [SPEC.ini] [--KEY VALUES]... [--seeds N] [--zip KEY,KEY]\n"
    "                   [--target T] [-o out.csv] [--threads N] [--shard I/N] [--resume]\n"
    "                   [--quick] [--dry-run] [--quiet]\n"
    "       srlab sweep [SPEC.ini] [...] [-o out.csv] --slurm N [--partition P] [--time T]\n"
    "                   [--cpus-per-task C]\n"
    "       srlab sweep [SPEC.ini] [...] [-o out.csv] --slurm-status\n"
    "\n"
    "Run a grid of `srlab train` (or `srlab run`) runs in parallel and write tidy CSV.\n"
    "\n"
    "Every flag of srlab train / srlab run is an axis (--problem, --lr, --rounding, --strategy,\n"
    "--format, --steps, ...). VALUES is one value, a comma list (rn,sr), or a range:\n"
    "  a:b:log:n   n values from a to b, geometric (a, b > 0): --lr 1e-4:1e-1:log:7;\n"
    "              integer bounds give integers: --steps 100:10000:log:5\n"
    "  a:b:lin:n   n values from a to b, evenly spaced: --x0 0:1:lin:5\n"
    "  [...]       a value holding commas: --format '[p=8,emax=127],bf16'\n"
    "The runs are the cross product of the axes, each run once per seed.\n"
    "\n"
    "sweep settings (also keys of a spec file):\n"
    "  --command train|run  which runs: srlab train (default) or srlab run experiments\n"
    "  --problem NAMES      required; an axis like any other\n"
    "  --seeds N            seeds 1..N for every grid point (or --seed LIST)\n"
    "  --zip KEY,KEY        these axes go together (equal lengths) instead of crossing;\n"
    "                       repeat for several groups\n"
    "  --target T           the summary's steps_to_target: first logged step with\n"
    "                       loss_gap <= T\n"
    "  -o, --output FILE    rows to FILE, one row per run to FILE minus .csv plus\n"
    "                       .summary.csv; without -o the rows go to standard output\n"
    "\n"
    "how to run it (never part of the results):\n"
    "  --threads N          runs in parallel (default: all cores; OMP_NUM_THREADS)\n"
    "  --shard I/N          only runs whose number is I modulo N (0 <= I < N); join the\n"
    "                       shards with srlab merge\n"
    "  --resume             continue an interrupted sweep from its journal (OUT.journal)\n"
    "  --quick              apply the spec file's [quick] section (small, fast settings)\n"
    "  --dry-run            check everything and list the runs, run nothing\n"
    "  --quiet              no progress line (shown only when standard error is a terminal)\n"
    "\n"
    "on a SLURM cluster:\n"
    "  --slurm N            submit the sweep as a job array of N tasks (task I runs --shard I/N,\n"
    "                       resumable) plus a job that merges them, and return: the job script\n"
    "                       is written beside the outputs (out.sbatch; -o, else the spec's\n"
    "                       name in the current directory), the job ids and the commands to\n"
    "                       watch them are printed. A requeued, preempted or killed task, or\n"
    "                       one at its time limit, resumes from its journal\n"
    "  --partition P        the partition (#SBATCH --partition)\n"
    "  --time T             each task's time limit: minutes, HH:MM:SS or D-HH:MM:SS\n"
    "  --cpus-per-task C    CPUs (threads) of each task (default 1)\n"
    "  --slurm-status       runs done per shard of a submitted sweep (give the arguments it\n"
    "                       was submitted with)\n"
    "\n"
    "spec file: `key = value` lines with the same keys as the flags ([sweep] section or none),\n"
    "and a [quick] section applied by --quick; flags override the file. '#' and ';' start\n"
    "comments; an indented line continues a list. Example experiments/lr_sweep.ini:\n"
    "  command = train\n"
    "  problem = quad1d\n"
    "  strategy = fp32,bf16-rn,bf16-sr\n"
    "  lr = 1e-4:1e-1:log:7\n"
    "  seeds = 16\n"
    "  [quick]\n"
    "  seeds = 4\n"
    "\n"
    "output: '#' lines (srlab version, the canonical command, date, seeds, runs), then\n"
    "columns run, the axes, seed, and the runner's metrics; summary: one row per run (final\n"
    "and best loss, final loss gap, steps to target, diverged) with mean, sd and 95%\n"
    "confidence interval over the seeds of its grid point. Rows are in run order: the files\n"
    "are byte-identical for any --threads, after --resume, and after merging shards.\n"
    "SOURCE_DATE_EPOCH sets the date line (reproducible-builds convention).\n"
    "\n"
    "examples:\n"
    "  srlab sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 1e-3:1e-1:log:5 \\\n"
    "              --seeds 8 --steps 2000 -o lr.csv\n"
    "  srlab sweep experiments/lr_sweep.ini --quick -o lr.csv\n"
    "  srlab sweep experiments/lr_sweep.ini --shard 0/4 -o lr.0.csv && ... && \\\n"
    "  srlab merge lr.0.csv lr.1.csv lr.2.csv lr.3.csv -o lr.csv\n"
    "  srlab sweep experiments/noisy_sgd.ini --slurm 8 --time 1:00:00 -o results/noisy.csv\n"
    "  srlab sweep experiments/noisy_sgd.ini --slurm-status -o results/noisy.csv\n";

/* ---- settings ---- */

typedef struct setting {
    char *key, *value, *origin;
} setting;

typedef struct layer {
    setting *s;
    size_t n, cap;
} layer;

static int layer_add(layer *l, const char *key, const char *value, const char *origin)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        setting *s = realloc(l->s, cap * sizeof *s);
        if (!s)
            return -1;
        l->s = s;
        l->cap = cap;
    }
    setting *t = &l->s[l->n];
    t->key = strdup(key);
    t->value = strdup(value);
    t->origin = strdup(origin);
    if (!t->key || !t->value || !t->origin) {
        free(t->key);
        free(t->value);
        free(t->origin);
        return -1;
    }
    l->n++;
    return 0;
}

static void layer_free(layer *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->s[i].key);
        free(l->s[i].value);
        free(l->s[i].origin);
    }
    free(l->s);
    memset(l, 0, sizeof *l);
}

static long layer_find(const layer *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->s[i].key, key))
            return (long)i;
    return -1;
}

/* seed and seeds are one setting for precedence. */
static bool same_slot(const char *a, const char *b)
{
    bool sa = !strcmp(a, "seed") || !strcmp(a, "seeds");
    bool sb = !strcmp(b, "seed") || !strcmp(b, "seeds");
    return sa ? sb : !strcmp(a, b);
}

/* Put `top` over `base` into `out` (pointers into the layers). */
static int resolve(const layer *const *layers, size_t nl, srl_sweep_setting **out, size_t *n)
{
    size_t cap = 0;
    for (size_t k = 0; k < nl; k++)
        cap += layers[k]->n;
    srl_sweep_setting *s = calloc(cap + 1, sizeof *s);
    if (!s)
        return -1;
    size_t m = 0;
    for (size_t k = 0; k < nl; k++) {
        const layer *l = layers[k];
        bool zips = layer_find(l, "zip") >= 0;
        /* Remove what this layer overrides. */
        size_t w = 0;
        for (size_t i = 0; i < m; i++) {
            bool over = false;
            if (!strcmp(s[i].key, "zip"))
                over = zips;
            else
                for (size_t j = 0; j < l->n && !over; j++)
                    over = same_slot(s[i].key, l->s[j].key);
            if (!over)
                s[w++] = s[i];
        }
        m = w;
        for (size_t j = 0; j < l->n; j++)
            s[m++] = (srl_sweep_setting){l->s[j].key, l->s[j].value, l->s[j].origin};
    }
    *out = s;
    *n = m;
    return 0;
}

/* ---- keys ---- */

/* The options of the sweep itself (the indices are used below). */
enum {
    O_COMMAND, O_SEEDS, O_ZIP, O_TARGET, O_OUTPUT, O_THREADS, O_SHARD, O_RESUME, O_QUICK,
    O_DRYRUN, O_QUIET, O_NOWN
};
static const cli_opt own_opts[O_NOWN] = {
    {"command", 0, "train|run"}, {"seeds", 0, "N"},        {"zip", 0, "KEY,KEY"},
    {"target", 0, "T"},          {"output", 'o', "FILE"},  {"threads", 0, "N"},
    {"shard", 0, "I/N"},         {"resume", 0, NULL},      {"quick", 0, NULL},
    {"dry-run", 0, NULL},        {"quiet", 0, NULL},
};

typedef struct keyset {
    const char **k;
    size_t n, cap;
} keyset;

static int keys_add(keyset *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k))
            return 0;
    for (size_t i = 0; i < O_NOWN; i++)
        if (!strcmp(own_opts[i].name, k))
            return 0; /* the sweep's own option shadows a runner key of the same name */
    if (ks->n == ks->cap) {
        size_t cap = ks->cap ? 2 * ks->cap : 64;
        const char **k2 = realloc(ks->k, cap * sizeof *k2);
        if (!k2)
            return -1;
        ks->k = k2;
        ks->cap = cap;
    }
    ks->k[ks->n++] = k;
    return 0;
}

/* Every key any runner accepts, both kinds. */
static int all_keys(keyset *ks, const srl_runner *const *runners)
{
    if (keys_add(ks, "problem"))
        return -1;
    for (int kind = 1; kind >= 0; kind--)
        for (const srl_param *p = srl_runner_common_params((srl_run_kind)kind); p && p->key; p++)
            if (keys_add(ks, p->key))
                return -1;
    size_t nr = 0;
    if (runners)
        while (runners[nr])
            nr++;
    else
        nr = srl_runner_count();
    for (size_t i = 0; i < nr; i++) {
        const srl_runner *r = runners ? runners[i] : srl_runner_at(i);
        for (const srl_param *p = r->params; p && p->key; p++)
            if (keys_add(ks, p->key))
                return -1;
    }
    return 0;
}

static bool key_known(const keyset *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k))
            return true;
    return false;
}

/* ---- the spec file ---- */

typedef struct spec_reader {
    const char *text;
    size_t len, pos;
    int lineno;
    bool indented;
    int too_long; /* first line longer than inih's buffer */
} spec_reader;

static char *spec_read(char *str, int num, void *stream)
{
    spec_reader *r = stream;
    if (r->pos >= r->len || num < 2)
        return NULL;
    const char *p = r->text + r->pos;
    const char *nl = memchr(p, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - p) + 1 : r->len - r->pos;
    r->pos += n;
    r->lineno++;
    r->indented = n && (p[0] == ' ' || p[0] == '\t');
    size_t m = n;
    if (m > (size_t)num - 1) {
        m = (size_t)num - 1;
        if (!r->too_long)
            r->too_long = r->lineno;
    }
    memcpy(str, p, m);
    str[m] = 0;
    return str;
}

typedef struct spec_state {
    spec_reader rd;
    const char *path;
    const keyset *keys;
    layer main, quick;
    int err_line;
    char err[600];
    int last_line[2]; /* line of each layer's last key (for continuations) */
} spec_state;

static int spec_fail(spec_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int spec_fail(spec_state *st, const char *fmt, ...)
{
    if (!st->err_line) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->err, sizeof st->err, fmt, ap);
        va_end(ap);
        st->err_line = st->rd.lineno;
    }
    return 0;
}

static int spec_handler(void *user, const char *section, const char *name, const char *value)
{
    spec_state *st = user;
    char q[CLI_QUOTE_LEN];
    int ln = st->rd.lineno;
    layer *l;
    int li;
    if (!*section || !strcmp(section, "sweep"))
        l = &st->main, li = 0;
    else if (!strcmp(section, "quick"))
        l = &st->quick, li = 1;
    else
        return spec_fail(st, "%s:%d: unknown section [%s] (sections: [sweep], [quick])", st->path,
                         ln, section);
    long at = layer_find(l, name);
    if (st->rd.indented && at >= 0 && st->last_line[li] && !strcmp(l->s[l->n - 1].key, name)) {
        /* An indented line continues the list of the key above it. */
        setting *t = &l->s[l->n - 1];
        size_t a = strlen(t->value), b = strlen(value);
        char *v = realloc(t->value, a + b + 2);
        if (!v)
            return spec_fail(st, "out of memory");
        bool comma = a && v[a - 1] == ','; /* "a, b," then "c": one comma */
        if (!comma)
            v[a++] = ',';
        memcpy(v + a, value, b + 1);
        t->value = v;
        return 1;
    }
    static const char *const invocation[] = {"threads", "shard", "resume", "quick", "dry-run",
                                             "quiet"};
    for (size_t i = 0; i < sizeof invocation / sizeof *invocation; i++)
        if (!strcmp(name, invocation[i]))
            return spec_fail(st, "%s:%d: '%s' says how to run a sweep, not what it is: give "
                             "--%s on the command line", st->path, ln, name, name);
    bool own = !strcmp(name, "command") || !strcmp(name, "seeds") || !strcmp(name, "zip") ||
               !strcmp(name, "target") || !strcmp(name, "output");
    if (!own && !key_known(st->keys, name))
        return spec_fail(st, "%s:%d: unknown key %s (not a key of srlab sweep, train or run)",
                         st->path, ln, cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX));
    if (at >= 0 && strcmp(name, "zip")) {
        char *o = l->s[at].origin, *colon = strrchr(o, ':');
        return spec_fail(st, "%s:%d: '%s' is already set on line %s", st->path, ln, name,
                         colon ? colon + 1 : o);
    }
    if (!strcmp(name, "output") && li == 1)
        return spec_fail(st, "%s:%d: 'output' belongs in the main section", st->path, ln);
    char origin[600];
    snprintf(origin, sizeof origin, "%s:%d", st->path, ln);
    if (layer_add(l, name, value, origin))
        return spec_fail(st, "out of memory");
    st->last_line[li] = ln;
    return 1;
}

int cli_read_file(const char *path, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return errno ? errno : EIO;
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(fp);
        return EISDIR;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(fp);
        return ENOMEM;
    }
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *b2 = realloc(buf, cap + 1);
            if (!b2) {
                free(buf);
                fclose(fp);
                return ENOMEM;
            }
            buf = b2;
        }
        size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0)
            break;
    }
    int e = ferror(fp) ? (errno ? errno : EIO) : 0;
    fclose(fp);
    if (e) {
        free(buf);
        return e;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

static int read_spec(spec_state *st, const char *path)
{
    char q[CLI_QUOTE_LEN];
    char *text;
    size_t len;
    cli_quote(q, sizeof q, path, strlen(path), 200);
    int e = cli_read_file(path, &text, &len);
    if (e)
        return cli_error(CMD, "cannot read the spec file %s: %s", q, strerror(e));
    st->path = path;
    st->rd.text = text;
    st->rd.len = len;
    int rc = ini_parse_stream(spec_read, &st->rd, spec_handler, st);
    free(text);
    if (st->rd.too_long && (!st->err_line || st->rd.too_long <= st->err_line))
        return cli_error(CMD, "%s:%d: a line longer than %d characters (continue a long list on "
                         "indented lines)", path, st->rd.too_long, INI_MAX_LINE - 2);
    if (rc > 0 && (!st->err_line || rc < st->err_line))
        return cli_error(CMD, "%s:%d: not a 'key = value' line or a [section]", path, rc);
    if (st->err_line)
        return cli_error(CMD, "%s", st->err);
    if (rc < 0)
        return cli_error(CMD, "cannot read the spec file %s", q);
    return 0;
}

/* ---- dates ---- */

static int sweep_date(char *buf, size_t len)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t t;
    if (sde && *sde) {
        uint64_t v;
        if (cli_parse_count(CMD, "SOURCE_DATE_EPOCH", sde, 0, 253402300799ull, &v))
            return CLI_EXIT_USAGE;
        t = (time_t)v;
    } else {
        t = time(NULL);
    }
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return cli_sys_error(CMD, "cannot format the date");
    return 0;
}

/* ---- progress ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fmt_dur(char *buf, size_t len, double s)
{
    if (!(s >= 0) || s > 1e8)
        s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* ---- running ---- */

typedef struct note {
    char text[256];
    size_t count, first_run;
} note;

typedef struct run_ctx {
    int jfd;               /* journal, or -1 */
    const char *jpath;
    char **mem;            /* standard output mode: rows per run */
    size_t *mem_len;
    size_t done, todo, total, already;
    double t0, last_print;
    bool progress;
    note notes[8];
    size_t nnotes, more_notes;
    int io_errno;
} run_ctx;

static void progress(run_ctx *c, bool final)
{
    if (!c->progress)
        return;
    double t = now_s();
    if (!final && t - c->last_print < 0.25)
        return;
    c->last_print = t;
    char el[32], left[32];
    fmt_dur(el, sizeof el, t - c->t0);
    if (final) {
        fprintf(stderr, "\rsrlab sweep: %zu/%zu runs, %s elapsed%24s\n", c->already + c->done,
                c->total, el, "");
        return;
    }
    if (c->done)
        fmt_dur(left, sizeof left, (t - c->t0) / (double)c->done * (double)(c->todo - c->done));
    fprintf(stderr, "\rsrlab sweep: %zu/%zu runs, %s elapsed, %s%s left   ", c->already + c->done,
            c->total, el, c->done ? "about " : "", c->done ? left : "?");
    fflush(stderr);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int on_done(void *ctx, const srl_sweep_record *rec)
{
    run_ctx *c = ctx;
    if (c->jfd >= 0) {
        char *text;
        size_t len;
        if (srl_sweep_journal_record(rec, &text, &len))
            return SRL_ENOMEM;
        int e = write_all(c->jfd, text, len);
        free(text);
        if (e) {
            c->io_errno = e;
            return SRL_EIO;
        }
    } else {
        c->mem[rec->run] = malloc(rec->rows_len + 1);
        if (!c->mem[rec->run])
            return SRL_ENOMEM;
        memcpy(c->mem[rec->run], rec->rows, rec->rows_len);
        c->mem_len[rec->run] = rec->rows_len;
    }
    if (rec->note[0]) {
        size_t k = 0;
        while (k < c->nnotes && strcmp(c->notes[k].text, rec->note))
            k++;
        if (k < c->nnotes) {
            c->notes[k].count++;
            if (rec->run < c->notes[k].first_run)
                c->notes[k].first_run = rec->run;
        } else if (c->nnotes < sizeof c->notes / sizeof *c->notes) {
            snprintf(c->notes[k].text, sizeof c->notes[k].text, "%s", rec->note);
            c->notes[k].count = 1;
            c->notes[k].first_run = rec->run;
            c->nnotes++;
        } else {
            c->more_notes++;
        }
    }
    c->done++;
    progress(c, false);
    return SRL_OK;
}

/* The journal's background fdatasync (see the top of this file). */
typedef struct syncer {
    int fd;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop, started;
    int err;
    pthread_t th;
} syncer;

static void *sync_main(void *arg)
{
    syncer *y = arg;
    pthread_mutex_lock(&y->mu);
    while (!y->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 500000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&y->cv, &y->mu, &ts);
        if (y->stop)
            break;
        pthread_mutex_unlock(&y->mu);
        int e = fdatasync(y->fd) != 0 ? errno : 0;
        pthread_mutex_lock(&y->mu);
        if (e && !y->err)
            y->err = e;
    }
    pthread_mutex_unlock(&y->mu);
    return NULL;
}

static void sync_start(syncer *y, int fd)
{
    memset(y, 0, sizeof *y);
    y->fd = fd;
    pthread_mutex_init(&y->mu, NULL);
    pthread_cond_init(&y->cv, NULL);
    y->started = pthread_create(&y->th, NULL, sync_main, y) == 0; /* else: the final sync only */
}

/* Stop the thread; 0 or the first errno of its syncs. */
static int sync_stop(syncer *y)
{
    if (y->started) {
        pthread_mutex_lock(&y->mu);
        y->stop = true;
        pthread_cond_signal(&y->cv);
        pthread_mutex_unlock(&y->mu);
        pthread_join(y->th, NULL);
        y->started = false;
    }
    pthread_mutex_destroy(&y->mu);
    pthread_cond_destroy(&y->cv);
    return y->err;
}

static int status_exit(int st)
{
    return st == SRL_ENOMEM || st == SRL_EIO ? CLI_EXIT_SYSTEM : CLI_EXIT_USAGE;
}

char *cli_sweep_sibling(const char *out, const char *suffix)
{
    size_t n = strlen(out);
    if (n > 4 && !strcmp(out + n - 4, ".csv"))
        n -= 4;
    char *s = malloc(n + strlen(suffix) + 1);
    if (s) {
        memcpy(s, out, n);
        strcpy(s + n, suffix);
    }
    return s;
}

/* Can path be written (its directory exists, it is not a directory)? Checked before any work. */
static int check_output(const char *what, const char *path)
{
    cli_out o;
    int rc = cli_out_open(&o, CMD, what, path);
    if (rc)
        return rc;
    cli_out_abort(&o);
    return 0;
}

/* The "# date: ..." value of a preamble. */
static bool preamble_date(const char *pre, char *buf, size_t len)
{
    const char *p = strstr(pre, "# date: ");
    if (!p || (p != pre && p[-1] != '\n'))
        return false;
    p += 8;
    size_t n = strcspn(p, "\n");
    if (n == 0 || n >= len)
        return false;
    memcpy(buf, p, n);
    buf[n] = 0;
    return true;
}

typedef struct sweep_args {
    const char *spec, *output, *threads, *shard;
    bool resume, quick, dry_run, quiet;
} sweep_args;

/* Write the final files from the journal text. */
static int assemble(const srl_sweep *sw, const char *pre, const char *jtext, size_t jlen,
                    const size_t *runs, size_t nr, bool shard, const char *out_path,
                    const char *sum_path)
{
    srl_sweep_journal j;
    srl_err err;
    if (srl_sweep_journal_parse(jtext, jlen, &j, &err))
        return cli_sys_error(CMD, "the journal cannot be read back: %s", err.msg);
    size_t R = srl_sweep_nruns(sw), S = srl_sweep_nseeds(sw);
    size_t *at = malloc(R * sizeof *at);
    if (!at) {
        srl_sweep_journal_free(&j);
        return cli_sys_error(CMD, "out of memory");
    }
    for (size_t r = 0; r < R; r++)
        at[r] = SIZE_MAX;
    for (size_t k = 0; k < j.nentries; k++)
        if (j.entries[k].run < R)
            at[j.entries[k].run] = k;
    int rc = 0;
    for (size_t k = 0; k < nr && !rc; k++)
        if (at[runs[k]] == SIZE_MAX)
            rc = cli_sys_error(CMD, "internal error: run %zu finished but is not in the journal",
                               runs[k]);
    cli_out o, os;
    memset(&os, 0, sizeof os);
    if (!rc)
        rc = cli_out_open(&o, CMD, "-o", out_path);
    if (!rc) {
        fputs(pre, o.fp);
        fprintf(o.fp, "%s\n", srl_sweep_rows_header(sw));
        for (size_t k = 0; k < nr; k++) {
            const srl_sweep_journal_entry *e = &j.entries[at[runs[k]]];
            fwrite(jtext + e->rows_off, 1, e->rows_len, o.fp);
        }
        rc = cli_out_open(&os, CMD, "-o", sum_path);
        if (rc)
            cli_out_abort(&o);
    }
    if (!rc) {
        fputs(pre, os.fp);
        fprintf(os.fp, "%s\n", srl_sweep_summary_header(sw));
        char *buf = NULL;
        size_t len = 0, cap = 0;
        const char **lines = malloc((S + 1) * sizeof *lines);
        size_t *lens = malloc((S + 1) * sizeof *lens);
        if (!lines || !lens)
            rc = cli_sys_error(CMD, "out of memory");
        /* Unsharded: whole grid points; a shard: run by run, with empty statistics. */
        size_t step = shard ? 1 : S;
        for (size_t k = 0; k < nr && !rc; k += step) {
            for (size_t i = 0; i < step; i++) {
                const srl_sweep_journal_entry *e = &j.entries[at[runs[k + i]]];
                lines[i] = jtext + e->summary_off;
                lens[i] = e->summary_len;
            }
            len = 0;
            if (srl_sweep_summary_point(srl_sweep_summary_header(sw), lines, lens, step, shard,
                                        &buf, &len, &cap, &err))
                rc = cli_sys_error(CMD, "summary: %s", err.msg);
            else
                fwrite(buf, 1, len, os.fp);
        }
        free(buf);
        free(lines);
        free(lens);
        if (rc) {
            cli_out_abort(&o);
            cli_out_abort(&os);
        }
    }
    if (!rc) {
        rc = cli_out_commit(&o);
        if (rc)
            cli_out_abort(&os);
        else
            rc = cli_out_commit(&os);
    }
    free(at);
    srl_sweep_journal_free(&j);
    return rc;
}

int cli_sweep_main(int argc, char **argv, const srl_runner *const *runners)
{
    int slurm_rc = cli_sweep_slurm(argc, argv, runners); /* --slurm, --slurm-status */
    if (slurm_rc >= 0)
        return slurm_rc;
    char q[CLI_QUOTE_LEN], date[64];
    int rc = 0;
    keyset ks = {0};
    cli_opt *opts = NULL;
    layer flags = {0};
    spec_state spec;
    memset(&spec, 0, sizeof spec);
    sweep_args A = {0};
    srl_sweep *sw = NULL;
    srl_sweep_setting *set = NULL;
    size_t nset = 0;
    char *pre = NULL, *jpath = NULL, *sum_path = NULL, *jtext = NULL, *output_owned = NULL;
    size_t *runs = NULL;
    run_ctx rcx;
    memset(&rcx, 0, sizeof rcx);
    rcx.jfd = -1;
    srl_err err;
    srl_sweep_journal jr;
    memset(&jr, 0, sizeof jr);

    if (all_keys(&ks, runners)) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    opts = calloc(O_NOWN + ks.n + 1, sizeof *opts);
    if (!opts) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    memcpy(opts, own_opts, sizeof own_opts);
    for (size_t i = 0; i < ks.n; i++)
        opts[O_NOWN + i] = (cli_opt){ks.k[i], 0, "VALUES"};

    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            rc = cli_help(help_text);
            goto done;
        }
        if (k == CLI_ARGS_BAD) {
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        if (k == CLI_ARGS_POSITIONAL) {
            if (A.spec) {
                rc = cli_error(CMD, "one spec file at a time: %s after '%s'",
                               cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX),
                               A.spec);
                goto done;
            }
            A.spec = a.val;
            continue;
        }
        const char *name = opts[k].name;
        switch (k) {
        case O_THREADS: A.threads = a.val; continue;
        case O_SHARD: A.shard = a.val; continue;
        case O_RESUME: A.resume = true; continue;
        case O_QUICK: A.quick = true; continue;
        case O_DRYRUN: A.dry_run = true; continue;
        case O_QUIET: A.quiet = true; continue;
        case O_OUTPUT:
            if (A.output) {
                rc = cli_error(CMD, "%s is given twice", a.opt);
                goto done;
            }
            A.output = a.val;
            continue;
        default: break;
        }
        if (strcmp(name, "zip") && layer_find(&flags, name) >= 0) {
            rc = cli_error(CMD, "%s is given twice (give one list: --%s a,b,c)", a.opt, name);
            goto done;
        }
        char origin[64];
        snprintf(origin, sizeof origin, "--%s", name);
        if (layer_add(&flags, name, a.val, origin)) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
    }
    if (A.spec) {
        spec.keys = &ks;
        if ((rc = read_spec(&spec, A.spec)))
            goto done;
    }
    if (A.quick && !A.spec) {
        rc = cli_error(CMD, "--quick applies a spec file's [quick] section: give the spec file");
        goto done;
    }
    if (A.quick && spec.quick.n == 0) {
        rc = cli_error(CMD, "--quick: %s has no [quick] section", A.spec);
        goto done;
    }
    /* The output: -o, else the spec's `output` (not a setting of the grid). */
    {
        long oi = layer_find(&spec.main, "output");
        if (oi >= 0) {
            setting t = spec.main.s[oi];
            memmove(spec.main.s + oi, spec.main.s + oi + 1,
                    (spec.main.n - (size_t)oi - 1) * sizeof *spec.main.s);
            spec.main.n--;
            output_owned = t.value;
            free(t.key);
            free(t.origin);
            if (!A.output)
                A.output = output_owned;
        }
    }
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#endif
    if (A.threads) {
        long long t;
        if ((rc = cli_parse_int(CMD, "--threads", A.threads, 1, 4096, &t)))
            goto done;
        nthreads = (int)t;
    }
    size_t shard_i = 0, shard_n = 0;
    if (A.shard && srl_sweep_parse_shard(A.shard, &shard_i, &shard_n, &err)) {
        rc = cli_error(CMD, "--shard: %s", err.msg);
        goto done;
    }
    if ((A.shard || A.resume) && !A.output && !A.dry_run) {
        rc = cli_error(CMD, "%s needs an output file (-o out.csv): the journal and the files "
                       "are kept beside it", A.shard ? "--shard" : "--resume");
        goto done;
    }

    /* The grid. */
    const layer *layers[3];
    size_t nl = 0;
    layers[nl++] = &spec.main;
    if (A.quick)
        layers[nl++] = &spec.quick;
    layers[nl++] = &flags;
    if (resolve(layers, nl, &set, &nset)) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    int st = srl_sweep_new(&sw, set, nset, runners, &err);
    if (st) {
        rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory") : cli_error(CMD, "%s", err.msg);
        goto done;
    }

    /* Outputs: checked before any work; nothing is written until the end. */
    if (A.output) {
        sum_path = cli_sweep_sibling(A.output, ".summary.csv");
        jpath = cli_sweep_sibling(A.output, ".journal");
        if (!sum_path || !jpath) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
        if (!strcmp(sum_path, A.output)) {
            rc = cli_error(CMD, "-o: %s would be its own summary: name the rows file",
                           cli_quote(q, sizeof q, A.output, strlen(A.output), 200));
            goto done;
        }
        if (!A.dry_run &&
            ((rc = check_output("-o", A.output)) || (rc = check_output("-o", sum_path))))
            goto done;
    }

    /* Validation runs and the columns. */
    st = srl_sweep_prepare(sw, nthreads, &err);
    if (st) {
        rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory") : cli_error(CMD, "%s", err.msg);
        goto done;
    }
    if ((rc = sweep_date(date, sizeof date)))
        goto done;
    srl_sweep_meta meta = {date, A.spec, A.quick, shard_i, shard_n};

    /* The journal of an interrupted sweep. */
    bool have_journal = false;
    size_t jlen = 0;
    if (jpath && (A.resume || !A.dry_run)) {
        struct stat sb;
        if (stat(jpath, &sb) == 0) {
            cli_quote(q, sizeof q, jpath, strlen(jpath), 200);
            if (!A.resume) {
                rc = cli_error(CMD, "%s holds the runs of an unfinished sweep: add --resume to "
                               "finish it, or remove it to start over", q);
                goto done;
            }
            int e = cli_read_file(jpath, &jtext, &jlen);
            if (e) {
                rc = cli_error(CMD, "cannot read %s: %s", q, strerror(e));
                goto done;
            }
            if (srl_sweep_journal_parse(jtext, jlen, &jr, &err)) {
                rc = cli_error(CMD, "%s: %s (remove it to start over)", q, err.msg);
                goto done;
            }
            have_journal = jr.complete_header;
        }
    }
    if (have_journal) {
        char j_date[64];
        if (preamble_date(jr.preamble, j_date, sizeof j_date))
            meta.date = j_date;
        if ((st = srl_sweep_preamble(sw, &meta, &pre))) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
        char la[300], lb[300];
        size_t no = srl_sweep_preamble_diff(jr.preamble, pre, la, sizeof la, lb, sizeof lb);
        if (!no && strcmp(jr.rows_header, srl_sweep_rows_header(sw))) {
            no = 1;
            snprintf(la, sizeof la, "columns %.280s", jr.rows_header);
            snprintf(lb, sizeof lb, "columns %.280s", srl_sweep_rows_header(sw));
        } else if (!no && strcmp(jr.summary_header, srl_sweep_summary_header(sw))) {
            no = 1;
            snprintf(la, sizeof la, "summary columns %.270s", jr.summary_header);
            snprintf(lb, sizeof lb, "summary columns %.270s", srl_sweep_summary_header(sw));
        }
        if (no) {
            rc = cli_error(CMD, "%s belongs to another sweep: its '%s' is '%s' here (remove it "
                           "to start over)", q, la, lb);
            goto done;
        }
        strcpy(date, meta.date);
        meta.date = date;
    } else {
        if ((st = srl_sweep_preamble(sw, &meta, &pre))) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
    }

    /* The runs of this shard that are not done yet. */
    size_t R = srl_sweep_nruns(sw), nr = 0, ntodo = 0;
    runs = malloc((R + 1) * sizeof *runs);
    bool *done_run = calloc(R + 1, sizeof *done_run);
    if (!runs || !done_run) {
        free(done_run);
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    for (size_t k = 0; have_journal && k < jr.nentries; k++)
        if (jr.entries[k].run < R)
            done_run[jr.entries[k].run] = true;
    size_t *todo = malloc((R + 1) * sizeof *todo);
    if (!todo) {
        free(done_run);
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    for (size_t r = 0; r < R; r++) {
        if (shard_n && r % shard_n != shard_i)
            continue;
        runs[nr++] = r;
        if (!done_run[r])
            todo[ntodo++] = r;
    }
    free(done_run);

    if (A.dry_run) {
        cli_out o;
        if ((rc = cli_out_open(&o, CMD, NULL, NULL))) {
            free(todo);
            goto done;
        }
        fputs(pre, o.fp);
        if (A.resume && have_journal)
            fprintf(o.fp, "# to run: %zu of %zu (the others are in the journal)\n", ntodo, nr);
        fputs("run", o.fp);
        for (size_t i = 0; i < srl_sweep_naxes(sw); i++) {
            fputc(',', o.fp);
            cli_csv_field(o.fp, srl_sweep_axis_name(sw, i));
        }
        fputc('\n', o.fp);
        for (size_t k = 0; k < ntodo; k++) {
            fprintf(o.fp, "%zu", todo[k]);
            for (size_t i = 0; i < srl_sweep_naxes(sw); i++) {
                fputc(',', o.fp);
                cli_csv_field(o.fp, srl_sweep_axis_value(sw, todo[k], i));
            }
            fputc('\n', o.fp);
        }
        free(todo);
        rc = cli_out_commit(&o);
        goto done;
    }

    /* Open (or create) the journal. */
    if (jpath) {
        cli_quote(q, sizeof q, jpath, strlen(jpath), 200);
        if (have_journal) {
            rcx.jfd = open(jpath, O_WRONLY | O_APPEND);
            if (rcx.jfd < 0 || ftruncate(rcx.jfd, (off_t)jr.good_len) != 0) {
                free(todo);
                rc = cli_sys_error(CMD, "cannot write %s: %s", q, strerror(errno));
                goto done;
            }
            if (jr.good_len < jlen && !A.quiet)
                fprintf(stderr, "srlab %s: %s: dropped a record cut short by the interruption "
                        "(%zu bytes); that run runs again\n", CMD, q, jlen - jr.good_len);
        } else {
            rcx.jfd = open(jpath, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC, 0666);
            char *h = NULL;
            size_t hl = 0;
            int e = rcx.jfd < 0 ? errno : 0;
            if (!e && srl_sweep_journal_header(pre, srl_sweep_rows_header(sw),
                                               srl_sweep_summary_header(sw), &h, &hl))
                e = ENOMEM;
            if (!e)
                e = write_all(rcx.jfd, h, hl);
            if (!e && fsync(rcx.jfd) != 0)
                e = errno;
            free(h);
            if (e) {
                free(todo);
                rc = cli_sys_error(CMD, "cannot write %s: %s", q, strerror(e));
                goto done;
            }
        }
    } else {
        rcx.mem = calloc(R + 1, sizeof *rcx.mem);
        rcx.mem_len = calloc(R + 1, sizeof *rcx.mem_len);
        if (!rcx.mem || !rcx.mem_len) {
            free(todo);
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
    }

    rcx.jpath = jpath;
    rcx.todo = ntodo;
    rcx.total = nr;
    rcx.already = nr - ntodo;
    rcx.t0 = now_s();
    rcx.last_print = 0;
    rcx.progress = !A.quiet && isatty(2);
    progress(&rcx, false);
    size_t failed = SIZE_MAX;
    syncer ysync;
    if (rcx.jfd >= 0)
        sync_start(&ysync, rcx.jfd);
    st = srl_sweep_execute(sw, todo, ntodo, nthreads, on_done, &rcx, &failed, &err);
    free(todo);
    if (rcx.jfd >= 0) {
        int e = sync_stop(&ysync);
        if (!e && fdatasync(rcx.jfd) != 0)
            e = errno;
        if (e && !st) {
            rcx.io_errno = e;
            st = SRL_EIO;
        }
    }
    if (rcx.progress)
        fputs(st ? "\n" : "", stderr);
    if (st) {
        if (rcx.io_errno)
            rc = cli_sys_error(CMD, "cannot write %s: %s", jpath, strerror(rcx.io_errno));
        else
            rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                  : (cli_error(CMD, "%s", err.msg), status_exit(st));
        if (jpath && rcx.done + rcx.already)
            fprintf(stderr, "srlab %s: %zu finished runs are kept in %s\n", CMD,
                    rcx.done + rcx.already, jpath);
        goto done;
    }
    progress(&rcx, true);
    if (!A.quiet) {
        for (size_t k = 0; k < rcx.nnotes; k++)
            fprintf(stderr, "srlab %s: %zu run%s (first: run %zu): %s\n", CMD, rcx.notes[k].count,
                    rcx.notes[k].count == 1 ? "" : "s", rcx.notes[k].first_run, rcx.notes[k].text);
        if (rcx.more_notes)
            fprintf(stderr, "srlab %s: and %zu more notes\n", CMD, rcx.more_notes);
    }

    /* The files, in run order. */
    if (!jpath) {
        cli_out o;
        if ((rc = cli_out_open(&o, CMD, NULL, NULL)))
            goto done;
        fputs(pre, o.fp);
        fprintf(o.fp, "%s\n", srl_sweep_rows_header(sw));
        for (size_t k = 0; k < nr; k++)
            if (rcx.mem[runs[k]])
                fwrite(rcx.mem[runs[k]], 1, rcx.mem_len[runs[k]], o.fp);
        rc = cli_out_commit(&o);
        goto done;
    }
    close(rcx.jfd);
    rcx.jfd = -1;
    free(jtext);
    jtext = NULL;
    int e = cli_read_file(jpath, &jtext, &jlen);
    if (e) {
        rc = cli_sys_error(CMD, "cannot read %s back: %s", jpath, strerror(e));
        goto done;
    }
    rc = assemble(sw, pre, jtext, jlen, runs, nr, shard_n != 0, A.output, sum_path);
    if (!rc && unlink(jpath) != 0)
        rc = cli_sys_error(CMD, "cannot remove %s: %s", jpath, strerror(errno));

done:
    if (rcx.jfd >= 0)
        close(rcx.jfd);
    if (rcx.mem)
        for (size_t r = 0; r < srl_sweep_nruns(sw); r++)
            free(rcx.mem[r]);
    free(rcx.mem);
    free(rcx.mem_len);
    srl_sweep_journal_free(&jr);
    free(jtext);
    free(runs);
    free(pre);
    free(jpath);
    free(sum_path);
    free(set);
    srl_sweep_free(sw);
    layer_free(&flags);
    layer_free(&spec.main);
    layer_free(&spec.quick);
    free(output_owned);
    free(opts);
    free(ks.k);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    return cli_sweep_main(argc, argv, NULL);
}
