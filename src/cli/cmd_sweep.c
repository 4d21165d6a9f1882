/* src/cli/cmd_sweep.c: `srlab sweep [SPEC.ini] [--KEY VALUES]... [-o out.csv]` (docs/design.md §10-§12).
 *
 * Arguments -> library -> files: the spec file and the flags become the settings of a sweep
 * (include/srlab/sweep.h: the grid, its order, the summaries and the journal's format are the
 * library's); srl_sweep_execute runs it, each finished run appended to a journal that makes it
 * resumable; the rows and runs files come out of the journal in run order, the summary from the
 * runs file (srl_sweep_summary), all written atomically. The spec file (a path, or a name looked
 * up in the experiments folders, src/cli/host.h) is read with inih (Debian's libinih), with our
 * own line reader so every message can name the line; precedence: the spec's keys, then its
 * [quick] section (--quick), then flags. sweep_main reads as its phases: parse_args, read_inputs,
 * make_sweep, read_journal, make_preamble, plan_runs, then list_runs (--dry-run) or
 * open_journal, run_sweep, write_outputs.
 *
 * Files: -o out.csv writes out.csv (rows), out.runs.csv (one line per run) and out.summary.csv
 * (one line per grid point; not for a shard); while the sweep runs, out.journal
 * holds every finished run (appended with write(2) as the run finishes, so a killed process loses
 * only the runs in flight; a background thread fdatasyncs the journal every 0.5 s, and once more
 * at the end, so a machine crash loses at most the last half second, and no worker ever waits on
 * the disk: a sync per run costs milliseconds, more than a small run). The outputs are assembled
 * from the journal in run order, which is why a resumed sweep prints the same bytes as an
 * uninterrupted one. The three files are one set, committed as one transaction under the lock
 * the journal is (src/cli/set.h); the journal is emptied and removed once they are in place.
 * Without -o (or with -o - or -o /dev/stdout) the journal is kept in memory and the rows go to
 * standard output, no other file. A line on standard error ends the sweep (print_result),
 * terminal or not, unless --quiet. */
#include <errno.h>
#include <inttypes.h>
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

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/host.h"
#include "cli/set.h"
#include "srlab/sweep.h"
#include "cli/runcmd.h" /* CLI_MAX_ROWS */
#include "cli/sweep_cli.h"
#include "cli/sweep_slurm.h"

#define CMD "sweep"

static const char help_text[] =
    "usage: srlab sweep [SPEC.ini] [--KEY VALUES]... [--seeds N] [--zip KEY,KEY]\n"
    "                   [--target T] [-o out.csv] [--threads N] [--shard I/N] [--resume]\n"
    "                   [--quick] [--dry-run] [--quiet]\n"
    "       srlab sweep --list\n"
    "       srlab sweep [SPEC.ini] [...] [-o out.csv] --slurm N [--partition P] [--time T]\n"
    "                   [--cpus-per-task C]\n"
    "       srlab sweep [SPEC.ini] [...] [-o out.csv] --slurm-status\n"
    "\n"
    "Run a grid of `srlab train` (or `srlab run`) runs in parallel and write tidy CSV.\n"
    "\n"
    "SPEC is a spec file, or the name of one of srlab's specs (srlab sweep summation: the\n"
    "file experiments/summation.ini of the source tree, else of the installed data folder;\n"
    "$SRLAB_EXPERIMENTS overrides the folder); --list shows them.\n"
    "\n"
    "Every flag of srlab train / srlab run is an axis (--problem, --lr, -r/--rounding,\n"
    "--strategy, -f/--format, --steps, ...). VALUES is one value, a comma list (rn,sr), or a\n"
    "range:\n"
    "  a:b:log:n   n values from a to b, geometric (a, b > 0): --lr 1e-4:1e-1:log:7;\n"
    "              integer bounds give integers: --steps 100:10000:log:5\n"
    "  a:b:lin:n   n values from a to b, evenly spaced: --x0 0:1:lin:5\n"
    "  [...]       a value holding commas: --format '[p=8,emax=127],bf16'\n"
    "The runs are the cross product of the axes, each run once per seed. Integers may be\n"
    "written with an exponent (--steps 1e4).\n"
    "--rounding without --format or --strategy rounds the weights into bf16 (a '# format:'\n"
    "line says so): under the default strategy fp32 the weights hold every value of the fp32\n"
    "update and no rounding could change anything. A rounding that cannot change anything\n"
    "(weights that hold every value the update writes) gets a warning.\n"
    "The format and rounding columns show what each run resolved (fp32,rn), as srlab train.\n"
    "\n"
    "sweep settings (also keys of a spec file):\n"
    "  --command train|run  which runs: srlab train (default) or srlab run experiments\n"
    "  --problem NAMES      required; an axis like any other\n"
    "  --seeds N            seeds 1..N for every grid point (or --seed LIST)\n"
    "  --zip KEY,KEY        these axes go together (equal lengths) instead of crossing;\n"
    "                       repeat for several groups\n"
    "  --target T           each run's steps_to_target: first logged step with\n"
    "                       loss_gap <= T; the summary gives the fraction of runs\n"
    "                       that reach it and the Kaplan-Meier median step, with\n"
    "                       95% intervals (a run that does not reach it is censored)\n"
    "  -o, --output FILE    rows to FILE, one row per run to FILE minus .csv plus\n"
    "                       .runs.csv, one row per grid point to .summary.csv: one set,\n"
    "                       replaced as a whole or not at all; without -o, or with -o -\n"
    "                       or -o /dev/stdout, the rows go to standard output and no\n"
    "                       other file is written\n"
    "\n"
    "how to run it (never part of the results):\n"
    "  --threads N          runs in parallel (default: all cores; OMP_NUM_THREADS)\n"
    "  --shard I/N          only runs whose number is I modulo N (0 <= I < N); join the\n"
    "                       shards with srlab merge\n"
    "  --resume             continue an interrupted sweep from its journal (OUT.journal):\n"
    "                       a damaged record is dropped (named on standard error) and only\n"
    "                       its run runs again. The journal is locked while a sweep writes\n"
    "                       it: a second sweep on the same output exits 2 at once\n"
    "  --allow-outside      let the spec's `output =` be an absolute path or leave the\n"
    "                       spec's folder with ..; a relative `output =` is a path from\n"
    "                       the spec file's folder (a spec found by name: this folder)\n"
    "  --quick              apply the spec file's [quick] section (small, fast settings)\n"
    "  --dry-run            check everything and list the runs, run nothing\n"
    "  --quiet              no progress line (shown only when standard error is a terminal)\n"
    "                       and no result line\n"
    "  --list               the specs srlab sweep finds by name, and where""\n"
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
    "comments; an indented line continues a list. Example lr_sweep.ini:\n"
    "  command = train\n"
    "  problem = quad1d\n"
    "  strategy = fp32,bf16-rn,bf16-sr\n"
    "  lr = 1e-4:1e-1:log:7\n"
    "  seeds = 16\n"
    "  [quick]\n"
    "  seeds = 4\n"
    "\n"
    "output: '#' lines (srlab version, the canonical command, date, seeds, runs), then\n"
    "columns run, the axes, seed, and the runner's metrics. Runs file: one row per run\n"
    "(last step, final values, best loss, steps to target, diverged). Summary: one row per\n"
    "grid point: its axes, seeds, diverged (how many), then M_n, M_mean, M_sd, M_ci95_lo,\n"
    "M_ci95_hi over its seeds for the final and best loss, final loss gap, final distance\n"
    "to the optimum and steps to target. A shard writes rows and runs; srlab merge writes\n"
    "all three. Rows are in run order: the files are byte-identical for any --threads,\n"
    "after --resume, and after merging shards. A line on standard error ends the sweep:\n"
    "runs, diverged, time, the files (none with --quiet).\n"
    "SOURCE_DATE_EPOCH sets the date line (reproducible-builds convention).\n"
    "\n"
    "examples:\n"
    "  srlab sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 1e-3:1e-1:log:5 \\\n"
    "              --seeds 8 --steps 2000 -o lr.csv\n"
    "  srlab sweep --problem quad1d --rounding rn,sr --lr 1e-3,1e-2,1e-1 -o rs.csv\n"
    "  srlab sweep summation --quick -o summation.csv\n"
    "  srlab sweep stall --shard 0/4 -o stall.0.csv && ... && \\\n"
    "  srlab merge stall.0.csv stall.1.csv stall.2.csv stall.3.csv -o stall.csv\n"
    "  srlab sweep noisy_sgd --slurm 8 --time 1:00:00 -o results/noisy.csv\n"
    "  srlab sweep noisy_sgd --slurm-status -o results/noisy.csv\n";

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
    O_DRYRUN, O_QUIET, O_LIST, O_ALLOW_OUTSIDE, O_NOWN
};
static const cli_opt own_opts[O_NOWN] = {
    {"command", 0, "train|run"}, {"seeds", 0, "N"},        {"zip", 0, "KEY,KEY..."},
    {"target", 0, "T"},          {"output", 'o', "FILE"},  {"threads", 0, "N"},
    {"shard", 0, "I/N"},         {"resume", 0, NULL},      {"quick", 0, NULL},
    {"dry-run", 0, NULL},        {"quiet", 0, NULL},       {"list", 0, NULL},
    {"allow-outside", 0, NULL},
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

/* What an ini reader would misread without a word (cli_read_file has refused NUL bytes and
 * dropped a byte-order mark at the start): lines that end in CR alone (a classic Mac file is one
 * long line to it), a byte-order mark inside the file (invisible; two files joined). */
static int spec_text_check(const char *path, const char *text, size_t len)
{
    const char *cr = text, *bom = NULL, *end = text + len;
    while ((cr = memchr(cr, '\r', (size_t)(end - cr))) && cr + 1 < end && cr[1] == '\n')
        cr++;
    for (const char *b = text; !bom && (b = memchr(b, '\xEF', (size_t)(end - b))); b++)
        if (end - b >= 3 && !memcmp(b, "\xEF\xBB\xBF", 3))
            bom = b;
    const char *bad = cr && (!bom || cr < bom) ? cr : bom;
    if (!bad)
        return 0;
    int line = 1;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(bad - p))); p++)
        line++;
    if (bad == cr)
        return cli_error(CMD, "%s:%d: a line ends in CR alone (classic Mac line endings): srlab "
                         "reads lines that end in LF or CR LF; convert the file (mac2unix)", path,
                         line);
    return cli_error(CMD, "%s:%d: a UTF-8 byte-order mark (bytes EF BB BF, invisible) inside the "
                     "file, as where two files were joined: remove it", path, line);
}

/* The spec file: `path` when it is a file (or cannot be read for another reason than its
 * absence), else, when it names no folder (or experiments/, relative), the spec of that name
 * (experiments/NAME.ini in the source tree or the installed data folder, src/cli/host.h);
 * *found is then its path. */
static int read_spec(spec_state *st, const char *path, char **found)
{
    char q[CLI_QUOTE_LEN];
    char *text;
    size_t len;
    cli_quote(q, sizeof q, path, strlen(path), 200);
    int e = cli_read_file(path, &text, &len);
    /* NAME, NAME.ini, or experiments/NAME.ini as the demos and the README write it */
    const char *name = !strncmp(path, "experiments/", 12) ? path + 12 : path;
    if (e == ENOENT && !strchr(name, '/')) {
        char looked[1200];
        *found = cli_host_find_spec(name, looked, sizeof looked);
        if (!*found)
            return cli_error(CMD, "cannot read the spec file %s: %s; no spec of that name in %s "
                             "(srlab sweep --list shows them)", q, cli_read_strerror(e), looked);
        path = *found;
        e = cli_read_file(path, &text, &len);
    }
    if (e)
        return cli_error(CMD, "cannot read the spec file %s: %s", q, cli_read_strerror(e));
    int rc0 = spec_text_check(path, text, len);
    if (rc0) {
        free(text);
        return rc0;
    }
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

/* ---- running ---- */

typedef struct note {
    char text[256];
    size_t count, first_run;
} note;

typedef struct run_ctx {
    int jfd;               /* the journal file, or -1: the journal is kept in memory (mem) */
    char *mem;             /* without -o: the journal */
    size_t mem_len, mem_cap;
    size_t done, todo, total, already;
    cli_progress progress;
    note notes[8];
    size_t nnotes, more_notes;
    int io_errno;
    size_t wide_run, wide_row, wide_own; /* a run whose row or own lines broke rows.h's bounds */
} run_ctx;

/* Append to the journal in memory; false when out of memory. */
static bool mem_append(run_ctx *c, const char *p, size_t n)
{
    if (c->mem_len + n + 1 > c->mem_cap) {
        size_t cap = c->mem_cap ? c->mem_cap : 1 << 16;
        while (cap < c->mem_len + n + 1)
            cap *= 2;
        char *m = realloc(c->mem, cap);
        if (!m)
            return false;
        c->mem = m;
        c->mem_cap = cap;
    }
    memcpy(c->mem + c->mem_len, p, n);
    c->mem_len += n;
    return true;
}

/* Count a runner's note by its text (the first eight texts; the others only counted). */
static void count_note(run_ctx *c, const srl_sweep_record *rec)
{
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

/* A finished run: its entry appended to the journal (written at once, synced in the
 * background). */
static int on_done(void *ctx, const srl_sweep_record *rec)
{
    run_ctx *c = ctx;
    char *text;
    size_t len;
    if (srl_sweep_journal_entry(rec, &text, &len))
        return SRL_ENOMEM;
    /* bounded outputs (src/cli/rows.h): no row wider than CLI_ROW_BYTES, and the run's line of
     * the runs file with its record line within CLI_RUN_BYTES, or the sweep stops here */
    const size_t row = cli_rows_widest(rec->rows, rec->rows_len), own = len - rec->rows_len;
    if (row > CLI_ROW_BYTES || own > CLI_RUN_BYTES) {
        free(text);
        c->wide_run = rec->run;
        c->wide_row = row;
        c->wide_own = own;
        return SRL_ERANGE;
    }
    int e = 0;
    bool stored = true;
    if (c->jfd >= 0)
        e = cli_write_all(c->jfd, text, len);
    else
        stored = mem_append(c, text, len);
    free(text);
    if (!stored)
        return SRL_ENOMEM;
    if (e) {
        c->io_errno = e;
        return SRL_EIO;
    }
    if (rec->note[0])
        count_note(c, rec);
    c->done++;
    cli_progress_show(&c->progress, c->done);
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

/* The message of a library call that failed with st. */
static int library_error(int st, const srl_err *err)
{
    return st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory") : cli_error(CMD, "%s", err->msg);
}

/* ---- the command: arguments -> the sweep -> its runs -> the files ---- */

/* How to run the sweep (never part of its results). */
typedef struct sweep_args {
    const char *spec, *output, *threads, *shard;
    bool resume, quick, dry_run, quiet, list, allow_outside;
    bool to_stdout; /* -o - or -o /dev/stdout: the rows to standard output, as without -o */
} sweep_args;

/* What sweep_main holds between its phases; sweep_cmd_free releases it. */
typedef struct sweep_cmd {
    const srl_runner *const *runners;
    keyset keys;         /* every key of every runner: an option each, besides the sweep's own */
    cli_opt *opts;
    layer flags;         /* the settings given as flags */
    spec_state spec;     /* the spec file's settings, [sweep] and [quick] */
    sweep_args a;
    char *output_owned;  /* the spec's `output` */
    char *spec_path;     /* the spec file found by its name (experiments/NAME.ini) */
    int nthreads;
    size_t shard_i, shard_n; /* shard_n == 0: not a shard */
    srl_sweep *sw;
    cli_set set;         /* the files (-o FILE, src/cli/set.h); its names: */
    const char *sum_path, *runs_path, *jpath; /* NULL without -o FILE */
    size_t diverged;     /* diverged runs, counted in the runs file */
    char date[64];
    char *pre;           /* the '#' lines */
    char *jtext;         /* the journal file, read */
    size_t jlen;
    srl_sweep_journal *jr; /* the journal of an interrupted sweep (--resume) */
    size_t *runs, nr;    /* the runs of this shard */
    size_t *todo, ntodo; /* those the journal does not hold */
    run_ctx rcx;
} sweep_cmd;

static void sweep_cmd_free(sweep_cmd *c)
{
    if (c->rcx.jfd >= 0)
        close(c->rcx.jfd);
    /* the lock released; the journal removed when empty (refused before its start was written,
     * or emptied after the files were committed): no trace */
    cli_set_free(&c->set);
    free(c->rcx.mem);
    srl_sweep_journal_free(c->jr);
    free(c->jtext);
    free(c->runs);
    free(c->todo);
    free(c->pre);
    srl_sweep_free(c->sw);
    layer_free(&c->flags);
    layer_free(&c->spec.main);
    layer_free(&c->spec.quick);
    free(c->output_owned);
    free(c->spec_path);
    free(c->opts);
    free(c->keys.k);
}

/* One option: the sweep's own into c->a, any other a setting into c->flags. */
static int take_option(sweep_cmd *c, const cli_args *a, int k)
{
    switch (k) {
    case O_THREADS: c->a.threads = a->val; return 0;
    case O_SHARD: c->a.shard = a->val; return 0;
    case O_RESUME: c->a.resume = true; return 0;
    case O_QUICK: c->a.quick = true; return 0;
    case O_DRYRUN: c->a.dry_run = true; return 0;
    case O_QUIET: c->a.quiet = true; return 0;
    case O_LIST: c->a.list = true; return 0;
    case O_ALLOW_OUTSIDE: c->a.allow_outside = true; return 0;
    case O_OUTPUT: c->a.output = a->val; return 0;
    default: break;
    }
    /* each option once (cli_args_next refuses a repeat), but --zip, which repeats */
    const char *name = c->opts[k].name;
    char origin[64];
    snprintf(origin, sizeof origin, "--%s", name);
    if (layer_add(&c->flags, name, a->val, origin))
        return cli_sys_error(CMD, "out of memory");
    return 0;
}

/* The arguments: the sweep's own options, every runner key as an option, one spec file. */
static int parse_args(sweep_cmd *c, int argc, char **argv, bool *help)
{
    char q[CLI_QUOTE_LEN];
    if (all_keys(&c->keys, c->runners))
        return cli_sys_error(CMD, "out of memory");
    c->opts = calloc(O_NOWN + c->keys.n + 1, sizeof *c->opts);
    if (!c->opts)
        return cli_sys_error(CMD, "out of memory");
    memcpy(c->opts, own_opts, sizeof own_opts);
    for (size_t i = 0; i < c->keys.n; i++) {
        /* -f and -r as in srlab train and srlab run */
        const char *k = c->keys.k[i];
        char sh = !strcmp(k, "format") ? 'f' : !strcmp(k, "rounding") ? 'r' : 0;
        c->opts[O_NOWN + i] = (cli_opt){k, sh, "VALUES"};
    }
    cli_args a;
    cli_args_init(&a, CMD, c->opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            *help = true;
            return cli_help(help_text);
        }
        if (k == CLI_ARGS_BAD)
            return CLI_EXIT_USAGE;
        if (k != CLI_ARGS_POSITIONAL) {
            int rc = take_option(c, &a, k);
            if (rc)
                return rc;
        } else if (c->a.spec) {
            return cli_error(CMD, "one spec file at a time: %s after '%s'",
                             cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX),
                             c->a.spec);
        } else {
            c->a.spec = cli_host_plain_path(a.val); /* "./k.ini" is "k.ini": one identity */
        }
    }
    return 0;
}

/* The output: -o, else the spec's `output` (not a setting of the grid), relative to the spec
 * file's folder and inside it unless --allow-outside (cli_host_spec_output). */
static int take_spec_output(sweep_cmd *c)
{
    layer *m = &c->spec.main;
    long oi = layer_find(m, "output");
    if (oi < 0)
        return 0;
    setting t = m->s[oi];
    memmove(m->s + oi, m->s + oi + 1, (m->n - (size_t)oi - 1) * sizeof *m->s);
    m->n--;
    free(t.key);
    if (c->a.output) { /* -o wins */
        free(t.value);
        free(t.origin);
        return 0;
    }
    const char *why = NULL;
    int e = cli_host_spec_output(c->spec_path ? NULL : c->a.spec, t.value, c->a.allow_outside,
                                 &c->output_owned, &why);
    char q[CLI_QUOTE_LEN];
    int rc = e == ENOMEM ? cli_sys_error(CMD, "out of memory")
             : e ? cli_error(CMD, "%s: output = %s: %s (give --allow-outside to write there)",
                             t.origin, cli_quote(q, sizeof q, t.value, strlen(t.value), 200), why)
                 : 0;
    free(t.value);
    free(t.origin);
    c->a.output = c->output_owned;
    return rc;
}

/* The spec file, where the output goes, the threads, the shard. */
static int read_inputs(sweep_cmd *c)
{
    int rc;
    if (c->a.spec) {
        c->spec.keys = &c->keys;
        if ((rc = read_spec(&c->spec, c->a.spec, &c->spec_path)))
            return rc;
    }
    if (c->a.quick && !c->a.spec)
        return cli_error(CMD, "--quick applies a spec file's [quick] section: give the spec file");
    if (c->a.quick && c->spec.quick.n == 0)
        return cli_error(CMD, "--quick: %s has no [quick] section", c->a.spec);
    if ((rc = take_spec_output(c)))
        return rc;
    if (c->a.output && cli_out_is_stdout(c->a.output)) /* -o - and -o /dev/stdout: no -o */
        c->a.output = NULL, c->a.to_stdout = true;
    c->nthreads = srl_run_team(0, 0); /* OMP_NUM_THREADS, clamped (srlab/run.h) */
    if (c->a.threads) {
        long long t;
        if ((rc = cli_parse_int(CMD, "--threads", c->a.threads, 1, 4096, &t)))
            return rc;
        c->nthreads = srl_run_team(t, 0);
    }
    srl_err err;
    if (c->a.shard && srl_sweep_parse_shard(c->a.shard, &c->shard_i, &c->shard_n, &err))
        return cli_error(CMD, "--shard: %s", err.msg);
    if ((c->a.shard || c->a.resume) && !c->a.output && !c->a.dry_run)
        return cli_error(CMD, "%s needs an output file (-o out.csv%s): the journal and the files "
                         "are kept beside it", c->a.shard ? "--shard" : "--resume",
                         c->a.to_stdout ? "; standard output holds the rows alone" : "");
    return 0;
}

/* The names beside the output (its set, src/cli/set.h), and whether the files can be written
 * (before any work; nothing is written until the end). */
static int check_outputs(sweep_cmd *c)
{
    int rc = cli_set_init(&c->set, CMD, c->a.output);
    if (rc)
        return rc;
    c->sum_path = c->set.summary;
    c->runs_path = c->set.runs;
    c->jpath = c->set.journal;
    return c->a.dry_run ? 0 : cli_set_check_paths(&c->set, !c->shard_n);
}

/* The files the runs read (a file key's values: cli_runcmd_file_key, as the sweep parsed them),
 * from the spec or the flags, noted as inputs (cli.h), so no output of the sweep replaces one
 * (issue 12, item 7), as train --data does. */
static void note_run_inputs(const srl_sweep *sw, const srl_sweep_setting *set, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!cli_runcmd_file_key(set[i].key))
            continue;
        size_t nv;
        const char *const *v = srl_sweep_values(sw, set[i].key, &nv);
        for (size_t k = 0; k < nv; k++)
            cli_input_note(v[k], NULL); /* nothing when no such file: markov */
    }
}

/* Bounded outputs (src/cli/rows.h), before any run: the axis columns of every run (its run
 * number, its axis values, a comma each) leave room in CLI_ROW_BYTES for the metric columns.
 * The whole rows are checked as the runs finish (on_done). */
static int check_axes_width(const srl_sweep *sw)
{
    const size_t nruns = srl_sweep_nruns(sw), naxes = srl_sweep_naxes(sw);
    size_t widest = 0, wrun = 0, wcol = 0, wlen = 0;
    for (size_t r = 0; r < nruns; r++) {
        size_t n = (size_t)snprintf(NULL, 0, "%zu", r), col = 0, clen = 0;
        for (size_t i = 0; i < naxes; i++) {
            const size_t f = cli_csv_width(srl_sweep_axis_value(sw, r, i));
            n += 1 + f;
            if (f >= clen)
                clen = f, col = i;
        }
        if (n > widest)
            widest = n, wrun = r, wcol = col, wlen = clen;
    }
    if (widest + 1 < CLI_ROW_BYTES / 2)
        return 0;
    return cli_error(CMD, "run %zu's axis columns alone take %zu bytes of a row, more than half "
                     "the %u one row may take (so that every output srlab writes is one it can "
                     "read back; its widest: %s, %zu bytes): shorten the values of the axes",
                     wrun, widest, CLI_ROW_BYTES, srl_sweep_axis_name(sw, wcol), wlen);
}

/* The grid (the spec's settings, then its [quick] section, then the flags), the outputs, the
 * validation runs. */
static int make_sweep(sweep_cmd *c)
{
    const layer *layers[3];
    size_t nl = 0;
    layers[nl++] = &c->spec.main;
    if (c->a.quick)
        layers[nl++] = &c->spec.quick;
    layers[nl++] = &c->flags;
    srl_sweep_setting *set = NULL;
    size_t nset = 0;
    if (resolve(layers, nl, &set, &nset))
        return cli_sys_error(CMD, "out of memory");
    srl_err err;
    int st = srl_sweep_new(&c->sw, set, nset, c->runners, &err);
    if (!st)
        note_run_inputs(c->sw, set, nset);
    free(set);
    if (st)
        return library_error(st, &err);
    int rc = c->a.output ? check_outputs(c) : 0;
    if (rc)
        return rc;
    size_t big;
    uint64_t most;
    const size_t nruns = srl_sweep_nruns(c->sw);
    /* The runs alone first: counting the rows builds every run's config, which for millions of
     * runs takes seconds (fuzz_spec: 888377 seeds timed out) before a refusal they decide. */
    const uint64_t rows = cli_output_rows(0, nruns) > CLI_MAX_ROWS
                              ? 0
                              : srl_sweep_rows_bound(c->sw, &big, &most);
    if (cli_output_rows(rows, nruns) > CLI_MAX_ROWS && !rows) /* runs alone, or experiments */
        return cli_error(CMD, "the sweep's %zu runs would write more than one output holds (at "
                         "most %u rows, each run counting %u for its own lines, so that srlab "
                         "can read its files back): run fewer grid points or seeds", nruns,
                         CLI_MAX_ROWS, CLI_RUN_ROWS);
    if (cli_output_rows(rows, nruns) > CLI_MAX_ROWS) /* bounded work, before any run */
        return cli_error(CMD, "the sweep would write up to %" PRIu64 " rows (--steps and "
                         "--log-every over %zu runs; run %zu alone up to %" PRIu64 "), more "
                         "than one output holds (at most %u rows, each run counting %u for its "
                         "own lines, so that srlab can read its files back): log less often "
                         "(--log-every), or run fewer steps, runs or seeds", rows, nruns, big,
                         most, CLI_MAX_ROWS, CLI_RUN_ROWS);
    if ((rc = check_axes_width(c->sw)))
        return rc;
    for (const char *w = srl_sweep_warnings(c->sw); *w;) {
        size_t n = strcspn(w, "\n");
        cli_note(CMD, "warning: %.*s", (int)n, w);
        w += n + (w[n] ? 1 : 0);
    }
    st = srl_sweep_prepare(c->sw, c->nthreads, &err);
    return st ? library_error(st, &err) : 0;
}

/* One sweep at a time per output (issue 12, item 10): the set's lock, its journal OUT.journal
 * (src/cli/set.h), taken before the journal is read and held until the files are written; a
 * second srlab sweep or merge on the same output -- --resume or not -- is refused at once with
 * exit status 2 and does no work. Taking it recovers a commit an interrupted srlab left half
 * done. Not for --dry-run (it writes nothing) nor without -o (the journal is in memory). */
static int lock_journal(sweep_cmd *c)
{
    if (!c->jpath || c->a.dry_run)
        return 0;
    return cli_set_lock(&c->set);
}

/* The journal an interrupted sweep left beside the output: refused without --resume, read with
 * it (c->jr stays NULL when it holds no run yet). An empty journal (a sweep stopped before it
 * wrote the journal's start) is no journal. */
static int read_journal(sweep_cmd *c)
{
    char q[CLI_QUOTE_LEN];
    struct stat sb;
    if (!c->jpath || (!c->a.resume && c->a.dry_run) || stat(c->jpath, &sb) != 0 ||
        sb.st_size == 0)
        return 0;
    cli_quote(q, sizeof q, c->jpath, strlen(c->jpath), 200);
    if (!c->a.resume)
        return cli_error(CMD, "%s holds the runs of an unfinished sweep: add --resume to "
                         "finish it, or remove it to start over", q);
    int e = cli_read_bytes(c->jpath, &c->jtext, &c->jlen);
    if (e)
        return cli_error(CMD, "cannot read %s: %s", q, cli_read_strerror(e));
    srl_err err;
    if (srl_sweep_journal_read(&c->jr, c->jtext, c->jlen, &err))
        return cli_error(CMD, "%s: %s (remove it to start over)", q, err.msg);
    return 0;
}

/* The '#' lines: with today's date (c->date), or the date of the journal a resumed sweep
 * continues, which must be of this very sweep. */
static int make_preamble(sweep_cmd *c)
{
    char q[CLI_QUOTE_LEN];
    if (c->jr)
        srl_sweep_journal_date(c->jr, c->date, sizeof c->date);
    srl_sweep_meta meta = {c->date, c->a.spec, c->a.quick, c->shard_i, c->shard_n};
    if (srl_sweep_preamble(c->sw, &meta, &c->pre))
        return cli_sys_error(CMD, "out of memory");
    char la[300], lb[300];
    if (c->jr && srl_sweep_journal_differs(c->jr, c->sw, c->pre, la, sizeof la, lb, sizeof lb))
        return cli_error(CMD, "%s belongs to another sweep: its '%s' is '%s' here (remove it "
                         "to start over)", cli_quote(q, sizeof q, c->jpath, strlen(c->jpath), 200),
                         la, lb);
    return 0;
}

/* The runs of this shard, and those the journal does not hold yet. */
static int plan_runs(sweep_cmd *c)
{
    size_t R = srl_sweep_nruns(c->sw);
    c->runs = malloc((R + 1) * sizeof *c->runs);
    c->todo = malloc((R + 1) * sizeof *c->todo);
    if (!c->runs || !c->todo)
        return cli_sys_error(CMD, "out of memory");
    for (size_t r = 0; r < R; r++) {
        if (c->shard_n && r % c->shard_n != c->shard_i)
            continue;
        c->runs[c->nr++] = r;
        if (!c->jr || !srl_sweep_journal_has(c->jr, r))
            c->todo[c->ntodo++] = r;
    }
    return 0;
}

/* --dry-run: the '#' lines and the runs still to run, with their axis values. */
static int list_runs(const sweep_cmd *c)
{
    cli_out o;
    int rc = cli_out_open(&o, CMD, NULL, NULL);
    if (rc)
        return rc;
    fputs(c->pre, o.fp);
    if (c->a.resume && c->jr)
        fprintf(o.fp, "# to run: %zu of %zu (the others are in the journal)\n", c->ntodo, c->nr);
    fputs("run", o.fp);
    for (size_t i = 0; i < srl_sweep_naxes(c->sw); i++) {
        fputc(',', o.fp);
        cli_csv_field(o.fp, srl_sweep_axis_name(c->sw, i));
    }
    fputc('\n', o.fp);
    for (size_t k = 0; k < c->ntodo; k++) {
        fprintf(o.fp, "%zu", c->todo[k]);
        for (size_t i = 0; i < srl_sweep_naxes(c->sw); i++) {
            fputc(',', o.fp);
            cli_csv_field(o.fp, srl_sweep_axis_value(c->sw, c->todo[k], i));
        }
        fputc('\n', o.fp);
    }
    return cli_out_commit(&o);
}

/* Say what reading the journal (quoted q) dropped, record by record: each such run runs again
 * (issue 12, item 9). */
static void report_damage(const srl_sweep_journal *j, const char *q)
{
    for (const char *d = srl_sweep_journal_damage(j); *d;) {
        size_t n = strcspn(d, "\n");
        cli_note(CMD, "%s: dropped %.*s; that run runs again", q, (int)n, d);
        d += n + (d[n] ? 1 : 0);
    }
}

/* The journal to append to: the interrupted sweep's, cut to its valid part; or a new one with
 * its start (a file beside the output, or in memory when the rows go to standard output). */
static int open_journal(sweep_cmd *c)
{
    char q[CLI_QUOTE_LEN];
    run_ctx *x = &c->rcx;
    char *h = NULL;
    size_t hl = 0;
    if (!c->jpath) {
        bool ok = !srl_sweep_journal_start(c->sw, c->pre, &h, &hl) && mem_append(x, h, hl);
        free(h);
        return ok ? 0 : cli_sys_error(CMD, "out of memory");
    }
    cli_quote(q, sizeof q, c->jpath, strlen(c->jpath), 200);
    if (c->jr) {
        size_t good = srl_sweep_journal_valid_len(c->jr);
        int rc = cli_out_append(CMD, "-o", c->jpath, false, &x->jfd); /* no link, no device */
        if (rc)
            return rc;
        if (ftruncate(x->jfd, (off_t)good) != 0)
            return cli_sys_error(CMD, "cannot write %s: %s", q, strerror(errno));
        if (!c->a.quiet)
            report_damage(c->jr, q);
        return 0;
    }
    int e = 0, rc = cli_out_append(CMD, "-o", c->jpath, true, &x->jfd); /* no link, no device */
    if (rc)
        return rc;
    if (srl_sweep_journal_start(c->sw, c->pre, &h, &hl))
        e = ENOMEM;
    if (!e && hl > CLI_HEAD_BYTES) { /* bounded outputs (src/cli/rows.h), before any run */
        free(h);
        return cli_error(CMD, "the journal's '#' lines and headers take %zu bytes, more than "
                         "the %zu they may (a shorter command line or spec)", hl, CLI_HEAD_BYTES);
    }
    if (!e)
        e = cli_write_all(x->jfd, h, hl);
    if (!e && fsync(x->jfd) != 0)
        e = errno;
    free(h);
    return e ? cli_sys_error(CMD, "cannot write %s: %s", q, strerror(e)) : 0;
}

static void print_notes(const run_ctx *x)
{
    for (size_t k = 0; k < x->nnotes; k++)
        cli_note(CMD, "%zu run%s (first: run %zu): %s", x->notes[k].count,
                 x->notes[k].count == 1 ? "" : "s", x->notes[k].first_run, x->notes[k].text);
    if (x->more_notes)
        cli_note(CMD, "and %zu more notes", x->more_notes);
}

/* Run the runs not done yet, each appended to the journal as it finishes; progress on a
 * terminal, the runners' notes at the end. */
static int run_sweep(sweep_cmd *c)
{
    run_ctx *x = &c->rcx;
    x->todo = c->ntodo;
    x->total = c->nr;
    x->already = c->nr - c->ntodo;
    cli_progress_start(&x->progress, CMD, "runs", x->total, x->already, c->a.quiet);
    syncer ysync;
    if (x->jfd >= 0)
        sync_start(&ysync, x->jfd);
    srl_err err;
    int st = srl_sweep_execute(c->sw, c->todo, c->ntodo, srl_run_team(c->nthreads, c->ntodo),
                               on_done, x, NULL, &err);
    if (x->jfd >= 0) {
        int e = sync_stop(&ysync);
        if (!e && fdatasync(x->jfd) != 0)
            e = errno;
        if (e && !st) {
            x->io_errno = e;
            st = SRL_EIO;
        }
    }
    if (x->progress.on && st) /* the line stays; the message goes below it */
        fputc('\n', stderr);
    if (st) {
        int rc;
        if (x->io_errno)
            rc = cli_sys_error(CMD, "cannot write %s: %s", c->jpath, strerror(x->io_errno));
        else if (x->wide_row || x->wide_own)
            rc = cli_error(CMD, "run %zu: %s of %zu bytes, more than the %u %s may take (so "
                           "that every output srlab writes is one it can read back): shorten "
                           "the values of the axes", x->wide_run,
                           x->wide_row > CLI_ROW_BYTES ? "a row" : "its own lines",
                           x->wide_row > CLI_ROW_BYTES ? x->wide_row : x->wide_own,
                           x->wide_row > CLI_ROW_BYTES ? CLI_ROW_BYTES : CLI_RUN_BYTES,
                           x->wide_row > CLI_ROW_BYTES ? "one row" : "a run's line and record");
        else
            rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                  : (cli_error(CMD, "%s", err.msg), status_exit(st));
        if (c->jpath && x->done + x->already)
            cli_note(CMD, "%zu finished runs are kept in %s", x->done + x->already, c->jpath);
        return rc;
    }
    cli_progress_clear(&x->progress);
    if (!c->a.quiet)
        print_notes(x);
    return 0;
}

/* An output not opened yet (cli_out_abort is a no-op on it). */
static void out_none(cli_out *o)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
}

/* Diverged runs in a runs file: lines whose last field, diverged, is 1. */
static size_t count_diverged(const char *t, size_t n)
{
    size_t k = 0;
    for (size_t i = 2; i < n; i++)
        if (t[i] == '\n' && t[i - 1] == '1' && t[i - 2] == ',')
            k++;
    return k;
}

/* The rows file (and, with -o, the runs file and, unless a shard, the summary file) from the
 * journal text, in run order. */
static int write_files(sweep_cmd *c, const char *jtext, size_t jlen)
{
    srl_sweep_journal *j = NULL;
    srl_err err;
    if (srl_sweep_journal_read(&j, jtext, jlen, &err) || !j)
        return cli_sys_error(CMD, "the journal cannot be read back: %s",
                             j ? err.msg : "its start is cut short");
    bool files = c->jpath != NULL, summary = files && !c->shard_n;
    char *rows = NULL, *runs = NULL, *sums = NULL;
    size_t rows_len = 0, runs_len = 0, sums_len = 0;
    int rc = 0;
    for (size_t k = 0; k < c->nr && !rc; k++)
        if (!srl_sweep_journal_has(j, c->runs[k]))
            rc = cli_sys_error(CMD, "internal error: run %zu finished but is not in the journal",
                               c->runs[k]);
    char *counts = NULL, *rows_pre = NULL; /* a shard's rows file: its rows per run as well */
    if (!rc && c->shard_n && srl_sweep_journal_row_counts(j, c->runs, c->nr, &counts, &err))
        rc = cli_sys_error(CMD, "%s", err.msg);
    if (!rc && counts && !(rows_pre = cli_alloc_printf("%s%s", c->pre, counts)))
        rc = cli_sys_error(CMD, "out of memory");
    if (!rc && srl_sweep_journal_rows(j, c->sw, rows_pre ? rows_pre : c->pre, c->runs, c->nr,
                                      &rows, &rows_len, &err))
        rc = cli_sys_error(CMD, "%s", err.msg);
    free(counts);
    free(rows_pre);
    if (!rc && srl_sweep_journal_runs(j, c->sw, c->pre, c->runs, c->nr, &runs, &runs_len, &err))
        rc = cli_sys_error(CMD, "%s", err.msg);
    srl_sweep_text rt = {c->runs_path ? c->runs_path : "runs", runs, runs_len};
    if (!rc && summary && srl_sweep_summary(&rt, &sums, &sums_len, &err))
        rc = cli_sys_error(CMD, "summary: %s", err.msg);
    if (!rc)
        c->diverged = count_diverged(runs, runs_len);
    srl_sweep_journal_free(j);
    cli_out o;
    out_none(&o);
    if (!rc && files) /* the set, as one transaction (src/cli/set.h) */
        rc = cli_set_commit(&c->set, rows, rows_len, runs, runs_len, summary ? sums : NULL,
                            sums_len);
    else if (!rc && !(rc = cli_out_open(&o, CMD, NULL, NULL)) && rows_len &&
             fwrite(rows, 1, rows_len, o.fp) != rows_len)
        rc = cli_sys_error(CMD, "out of memory");
    if (!rc && !files)
        rc = cli_out_commit(&o);
    cli_out_abort(&o);
    free(rows);
    free(runs);
    free(sums);
    return rc;
}

/* The one-line result on standard error (unless --quiet, terminal or not): the runs, the
 * diverged ones, the time, and where the files are. */
static void print_result(const sweep_cmd *c)
{
    if (c->a.quiet)
        return;
    char el[32];
    cli_duration(el, sizeof el, cli_progress_elapsed(&c->rcx.progress));
    char head[160];
    snprintf(head, sizeof head, "%zu run%s%s in %s, %zu diverged", c->nr, c->nr == 1 ? "" : "s",
             c->shard_n ? " of this shard" : "", el, c->diverged);
    if (!c->jpath)
        cli_note(CMD, "%s; rows on standard output (-o FILE also writes the runs and summary "
                 "files)", head);
    else if (c->shard_n)
        cli_note(CMD, "%s; rows %s, per-run finals %s (srlab merge joins the shards and writes "
                 "the summary)", head, c->a.output, c->runs_path);
    else
        cli_note(CMD, "%s; rows %s, summary %s (one row per grid point), per-run finals %s",
                 head, c->a.output, c->sum_path, c->runs_path);
}

/* The files, in run order, from the journal (then removed): the rows to standard output from
 * the journal in memory, or both files beside each other from the journal file, read back. */
static int write_outputs(sweep_cmd *c)
{
    if (!c->jpath) {
        int rc = write_files(c, c->rcx.mem, c->rcx.mem_len);
        if (!rc)
            print_result(c);
        return rc;
    }
    close(c->rcx.jfd);
    c->rcx.jfd = -1;
    srl_sweep_journal_free(c->jr);
    c->jr = NULL;
    free(c->jtext);
    c->jtext = NULL;
    int e = cli_read_bytes(c->jpath, &c->jtext, &c->jlen);
    if (e)
        return cli_sys_error(CMD, "cannot read %s back: %s", c->jpath, cli_read_strerror(e));
    int rc = write_files(c, c->jtext, c->jlen);
    /* committed: the journal is emptied, and so removed with the lock (a kill before leaves it
     * whole: --resume then writes the same set again, running nothing) */
    if (!rc && ftruncate(c->set.lock.fd, 0) != 0)
        rc = cli_sys_error(CMD, "cannot empty %s: %s", c->jpath, strerror(errno));
    if (!rc)
        print_result(c);
    return rc;
}

/* --list: the specs srlab sweep finds by name, with the first line of each. */
static int list_specs(void)
{
    const char *dirs[2];
    size_t nd = cli_host_experiments_dirs(dirs);
    cli_out o;
    int rc = cli_out_open(&o, CMD, NULL, NULL);
    if (rc)
        return rc;
    size_t shown = 0;
    for (size_t i = 0; i < nd; i++) {
        char **names;
        size_t n;
        if (cli_host_list(dirs[i], ".ini", &names, &n))
            continue;
        fprintf(o.fp, "%sspecs in %s (srlab sweep NAME):\n", shown ? "\n" : "", dirs[i]);
        for (size_t k = 0; k < n; k++) {
            char file[300];
            snprintf(file, sizeof file, "%s.ini", names[k]);
            char *head = cli_host_read_head(dirs[i], file, 400);
            const char *d = head && head[0] == '#' ? head + 1 : "";
            while (*d == ' ')
                d++;
            int dl = (int)strcspn(d, "\n");
            if (dl > 62) { /* one line of 80 columns: cut at a word */
                dl = 59;
                while (dl > 30 && d[dl] != ' ')
                    dl--;
                fprintf(o.fp, "  %-14s %.*s ...\n", names[k], dl, d);
            } else {
                fprintf(o.fp, "  %-14s %.*s\n", names[k], dl, d);
            }
            free(head);
        }
        shown += n + 1;
        cli_host_names_free(names, n);
        if (shown)
            break; /* the first folder that has specs is the one names are found in first */
    }
    if (!shown)
        fprintf(o.fp, "no specs found in %s%s%s\n", dirs[0], nd > 1 ? " or " : "",
                nd > 1 ? dirs[1] : "");
    return cli_out_commit(&o);
}

/* arguments -> the sweep and its journal -> the runs -> the files */
static int sweep_main(sweep_cmd *c, int argc, char **argv)
{
    bool help = false;
    int rc = parse_args(c, argc, argv, &help);
    if (rc || help)
        return rc;
    if (c->a.list)
        return list_specs();
    if ((rc = read_inputs(c)) || (rc = make_sweep(c)) ||
        (rc = sweep_date(c->date, sizeof c->date)) || (rc = lock_journal(c)) ||
        (rc = read_journal(c)) ||
        (rc = make_preamble(c)) || (rc = plan_runs(c)))
        return rc;
    if (c->a.dry_run)
        return list_runs(c);
    if ((rc = open_journal(c)) || (rc = run_sweep(c)))
        return rc;
    return write_outputs(c);
}

int cli_sweep_main(int argc, char **argv, const srl_runner *const *runners)
{
    int slurm_rc = cli_sweep_slurm(argc, argv, runners); /* --slurm, --slurm-status */
    if (slurm_rc >= 0)
        return slurm_rc;
    sweep_cmd c;
    memset(&c, 0, sizeof c);
    c.runners = runners;
    c.rcx.jfd = -1;
    c.set.lock.fd = -1;
    int rc = sweep_main(&c, argc, argv);
    sweep_cmd_free(&c);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    return cli_sweep_main(argc, argv, NULL);
}
