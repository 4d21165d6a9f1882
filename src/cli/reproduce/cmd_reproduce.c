/* src/cli/reproduce/cmd_reproduce.c: `srlab reproduce [--quick] [-o DIR] [--force]` (docs/design.md §13).
 *
 * One command rebuilds the whole study as one report. The experiments are the spec files
 * experiments/NAME.ini ($SRLAB_EXPERIMENTS, else the source tree this srlab was built from, else
 * the installed data directory: the same rule as srlab plot's scripts). Each spec's header
 * comment names its figures, one `srlab plot` command per line after "Figure:" / "Figures:",
 * with OUT.csv and OUT.summary.csv standing for the sweep's files, e.g.
 *     # Figure: srlab plot stall --in OUT.summary.csv -o stall.png      (plots/stall.gp)
 * The plan, for every spec in name order: copy it to DIR/specs/NAME.ini, run
 *     srlab sweep specs/NAME.ini [--quick] -o NAME.csv
 * then each of its figures (srlab plot ... -o FILE.png); at the end
 *     srlab check [--quick] -o check.csv
 * and write DIR/index.html (reproduce_report.c). Every step is this very binary (/proc/self/exe)
 * started with fork and execv (no shell) in DIR, its standard output and error in
 * DIR/logs/STEP.log; one progress line per step on standard error. A step that fails is reported
 * and the plan goes on (a figure whose sweep failed is not drawn); the report is written last,
 * atomically, so an interrupted reproduction leaves no index.html (a previous one is removed
 * first) and `--force` continues its sweeps from their journals.
 *
 * What it does not do: run steps in parallel (each sweep already uses every core), or fetch
 * anything. Test hook, not in --help: SRLAB_REPRODUCE_EXE=PROGRAM runs the steps with PROGRAM
 * instead of this binary (tests/reproduce stands a failing `srlab check` in with it). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/reproduce/reproduce.h"
#include "srl_experiments_paths.h"
#include "srl_plots_paths.h"
#include "cli/sweep_cli.h"

#define CMD "reproduce"

static const char help_text[] =
    "usage: srlab reproduce [--quick] [-o DIR] [--force] [--only NAMES] [--checks NAMES|none]\n"
    "                       [--threads N]\n"
    "\n"
    "Rebuild the whole study as one report: every experiment of experiments/ (srlab sweep),\n"
    "every figure their headers name (srlab plot), srlab check, and DIR/index.html with the\n"
    "figures, the check table, the data, the exact commands, the machine and the wall time of\n"
    "each step. The report opens in a browser without a network: open DIR/index.html.\n"
    "Needs gnuplot (Debian package gnuplot-nox).\n"
    "\n"
    "options:\n"
    "  --quick            each spec's [quick] section and srlab check --quick: a few minutes\n"
    "                     on 2 cores; the report gives the full sizes and an estimate of\n"
    "                     their time on this machine\n"
    "  -o, --output DIR   the report folder (default report); created if missing (its parent\n"
    "                     must exist); refused if it exists and is not empty, unless --force\n"
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
    "The report folder: index.html; NAME.csv and NAME.summary.csv per experiment; the\n"
    "figures (.png); check.csv; specs/NAME.ini (the specs as run); logs/ (every step's\n"
    "output). The steps run inside the folder, so the commands the report lists can be\n"
    "pasted there as they are.\n"
    "\n"
    "exit status: 0 everything reproduced and every check passed; 1 the report is written\n"
    "and shows a problem (a failed step or check, a figure that could not be drawn);\n"
    "2 bad input (the folder is not empty, gnuplot is missing, an unknown experiment...);\n"
    "3 a system error.\n"
    "\n"
    "examples:\n"
    "  srlab reproduce --quick                (then open report/index.html)\n"
    "  srlab reproduce -o full-report         (the sizes the specs define: hours; see the\n"
    "                                         estimate in a --quick report)\n"
    "  srlab reproduce --quick --only stall,summation --checks T05 -o small\n";

/* ---- small helpers ---- */

static char *fmt_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_alloc(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *rp_path(const char *dir, const char *name)
{
    return fmt_alloc("%s/%s", dir, name);
}

char *rp_read(const char *dir, const char *name, size_t *len)
{
    char *p = rp_path(dir, name), *data = NULL;
    size_t n = 0;
    if (p && cli_read_file(p, &data, &n) != 0)
        data = NULL;
    free(p);
    if (len)
        *len = data ? n : 0;
    return data;
}

bool rp_step_ok(const rp_step *s)
{
    return s->ran && s->status == 0;
}

static bool is_dir(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A name that is safe as a file name and in a URL: letters, digits, '_', '-', '.'. */
static bool plain_name(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return false;
    return true;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fmt_duration(char *buf, size_t len, double s)
{
    if (s < 100)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

/* gnuplot on PATH? */
static bool have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char *p = fmt_alloc("%.*s/gnuplot", (int)n, path);
        bool ok = n && p && access(p, X_OK) == 0;
        free(p);
        if (ok)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

/* The command line of a step as a user types it: "srlab sweep specs/x.ini --quick -o x.csv". */
static char *step_command(const rp_step *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return NULL;
    cli_fprint_command(fp, s->argc, s->argv);
    if (fclose(fp) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- argument vectors ---- */

static int step_push(rp_step *s, const char *arg)
{
    char **v = realloc(s->argv, ((size_t)s->argc + 2) * sizeof *v);
    if (!v)
        return -1;
    s->argv = v;
    if (!(v[s->argc] = strdup(arg)))
        return -1;
    v[++s->argc] = NULL;
    return 0;
}

static void step_free(rp_step *s)
{
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->log);
    free(s->last);
    memset(s, 0, sizeof *s);
}

static void experiment_free(rp_experiment *e)
{
    for (size_t k = 0; k < e->nfigs; k++) {
        rp_figure *f = &e->figs[k];
        free(f->line);
        free(f->plot);
        free(f->file);
        free(f->problem);
        step_free(&f->step);
    }
    free(e->figs);
    free(e->name);
    free(e->source);
    free(e->spec);
    free(e->about);
    free(e->problem);
    free(e->rows);
    free(e->summary);
    step_free(&e->sweep);
    step_free(&e->plan);
}

/* ---- the figures a spec names ---- */

/* Split a command line into words the way a POSIX shell does for the quoting a spec's header
 * uses: '...' literal, "..." with \" \\ \$ \` escapes, \x outside quotes. The command ends at an
 * unquoted word that opens with '(' (a remark: "(plots/stall.gp)") or '#'. Returns the number of
 * words, or -1 (an unterminated quote) or -2 (out of memory). *words is NULL-terminated. */
static int split_words(const char *s, char ***words)
{
    char **w = NULL;
    int n = 0;
    *words = NULL;
    size_t cap = strlen(s) + 1;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '(' || *s == '#')
            break;
        char *word = malloc(cap);
        char **w2 = realloc(w, ((size_t)n + 2) * sizeof *w);
        if (!word || !w2) {
            free(word);
            w = w2 ? w2 : w;
            goto nomem;
        }
        w = w2;
        size_t k = 0;
        while (*s && *s != ' ' && *s != '\t') {
            if (*s == '\'') {
                const char *e = strchr(s + 1, '\'');
                if (!e) {
                    free(word);
                    goto unterminated;
                }
                memcpy(word + k, s + 1, (size_t)(e - s - 1));
                k += (size_t)(e - s - 1);
                s = e + 1;
            } else if (*s == '"') {
                for (s++; *s && *s != '"'; s++) {
                    if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
                        s++;
                    word[k++] = *s;
                }
                if (*s != '"') {
                    free(word);
                    goto unterminated;
                }
                s++;
            } else if (*s == '\\' && s[1]) {
                word[k++] = s[1];
                s += 2;
            } else {
                word[k++] = *s++;
            }
        }
        word[k] = 0;
        w[n++] = word;
        w[n] = NULL;
    }
    *words = w;
    return n;
unterminated:
    for (int i = 0; i < n; i++)
        free(w[i]);
    free(w);
    return -1;
nomem:
    for (int i = 0; i < n; i++)
        free(w[i]);
    free(w);
    return -2;
}

static void words_free(char **w)
{
    for (char **p = w; p && *p; p++)
        free(*p);
    free(w);
}

/* w with every OUT.<suffix> (at the start, or after '=' or ',') written NAME.<suffix>. */
static char *subst_out(const char *w, const char *name)
{
    size_t extra = 0, nl = strlen(name);
    for (const char *p = w; (p = strstr(p, "OUT.")); p += 4)
        extra += nl;
    char *r = malloc(strlen(w) + extra + 1), *q = r;
    if (!r)
        return NULL;
    for (const char *p = w; *p;) {
        if (!strncmp(p, "OUT.", 4) && (p == w || p[-1] == '=' || p[-1] == ',')) {
            memcpy(q, name, nl);
            q += nl;
            p += 3;
        } else {
            *q++ = *p++;
        }
    }
    *q = 0;
    return r;
}

static int set_problem(rp_figure *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_problem(rp_figure *f, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    free(f->problem);
    f->problem = strdup(msg);
    return f->problem ? 0 : -1;
}

/* Turn the header's command `text` into the figure's step. Problems with the line itself (not a
 * srlab plot command, an output that is not a plain file name, a missing script) go into
 * f->problem: the report shows them instead of the figure. -1 only when out of memory. */
static int figure_from_line(rp_figure *f, const rp_experiment *e, const char *text,
                            const char *plots)
{
    if (!(f->line = strdup(text)))
        return -1;
    char **w;
    int n = split_words(text, &w);
    if (n == -2)
        return -1;
    if (n == -1)
        return set_problem(f, "the figure's command has an unterminated quote");
    int rc = 0;
    if (n < 3 || strcmp(w[0], "srlab") || strcmp(w[1], "plot")) {
        rc = set_problem(f, "not a `srlab plot NAME ...` command");
        goto done;
    }
    if (!plain_name(w[2], strlen(w[2])) || strchr(w[2], '.')) {
        rc = set_problem(f, "'%.100s' is not a figure name", w[2]);
        goto done;
    }
    if (!(f->plot = strdup(w[2])) || step_push(&f->step, "plot") || step_push(&f->step, w[2])) {
        rc = -1;
        goto done;
    }
    for (int i = 3; i < n; i++) {
        const char *out = NULL;
        if (!strcmp(w[i], "-o") || !strcmp(w[i], "--output")) {
            if (i + 1 == n) {
                rc = set_problem(f, "%s without a file", w[i]);
                goto done;
            }
            out = w[++i];
        } else if (!strncmp(w[i], "--output=", 9)) {
            out = w[i] + 9;
        } else if (!strncmp(w[i], "-o", 2)) {
            out = w[i] + 2;
        }
        if (out) {
            free(f->file);
            if (!(f->file = strdup(out))) {
                rc = -1;
                goto done;
            }
            continue;
        }
        char *s = subst_out(w[i], e->name);
        int bad = !s || step_push(&f->step, s);
        free(s);
        if (bad) {
            rc = -1;
            goto done;
        }
    }
    if (!f->file && !(f->file = fmt_alloc("%s.png", f->plot))) {
        rc = -1;
        goto done;
    }
    size_t fl = strlen(f->file);
    if (!plain_name(f->file, fl) ||
        (fl < 5 || (strcmp(f->file + fl - 4, ".png") && strcmp(f->file + fl - 4, ".svg") &&
                    strcmp(f->file + fl - 4, ".pdf")))) {
        rc = set_problem(f, "the figure file '%.100s' must be a plain name ending in .png, .svg "
                         "or .pdf (it goes into the report folder)", f->file);
        goto done;
    }
    if (step_push(&f->step, "-o") || step_push(&f->step, f->file) ||
        !(f->step.log = fmt_alloc("logs/plot-%s.log", f->file))) {
        rc = -1;
        goto done;
    }
    char *script = fmt_alloc("%s/%s.gp", plots, f->plot);
    if (!script) {
        rc = -1;
        goto done;
    }
    if (access(script, R_OK) != 0)
        rc = set_problem(f, "the plot script %s is missing: the figure cannot be drawn", script);
    free(script);
done:
    words_free(w);
    return rc;
}

/* Read the spec's header comment: its prose (e->about), its figures, and whether the file has
 * a [quick] section. The header is the run of '#' lines at the top. -1 when out of memory. */
static int read_spec(rp_experiment *e, const char *text, size_t len, const char *plots)
{
    char *about = malloc(len + 1);
    if (!about)
        return -1;
    size_t alen = 0;
    bool header = true;
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *q = p;
        while (q < le && (*q == ' ' || *q == '\t'))
            q++;
        size_t ql = (size_t)(le - q);
        while (ql && (q[ql - 1] == '\r' || q[ql - 1] == ' ' || q[ql - 1] == '\t'))
            ql--;
        if (ql == 7 && !memcmp(q, "[quick]", 7))
            e->has_quick = true;
        if (header && (ql == 0 || q[0] != '#'))
            header = false;
        if (header) {
            const char *t = q + 1, *te = q + ql;
            while (t < te && (*t == ' ' || *t == '\t'))
                t++;
            if ((size_t)(te - t) >= 8 && !memcmp(t, "Figures:", 8))
                t += 8;
            else if ((size_t)(te - t) >= 7 && !memcmp(t, "Figure:", 7))
                t += 7;
            while (t < te && (*t == ' ' || *t == '\t'))
                t++;
            size_t tl = (size_t)(te - t);
            if (tl >= 11 && !memcmp(t, "srlab plot ", 11)) {
                rp_figure *g = realloc(e->figs, (e->nfigs + 1) * sizeof *g);
                if (!g) {
                    free(about);
                    return -1;
                }
                e->figs = g;
                rp_figure *f = &e->figs[e->nfigs++];
                memset(f, 0, sizeof *f);
                char *line = strndup(t, tl);
                int rc = line ? figure_from_line(f, e, line, plots) : -1;
                free(line);
                if (rc) {
                    free(about);
                    return -1;
                }
            } else if (!(tl >= 12 && !memcmp(t, "srlab sweep ", 12)) && tl) {
                /* prose (the spec's own `srlab sweep` line is replaced by the exact command) */
                const char *s = q + 1;
                if (s < te && *s == ' ')
                    s++;
                while (s < te && (*s == ' ' || *s == '\t'))
                    s++;
                if (alen)
                    about[alen++] = '\n';
                memcpy(about + alen, s, (size_t)(te - s));
                alen += (size_t)(te - s);
            }
        }
        p = nl ? nl + 1 : end;
    }
    about[alen] = 0;
    e->about = about;
    return 0;
}

/* ---- the plan ---- */

typedef struct rp_opts {
    bool quick, force;
    const char *dir, *threads;
    const char **only; /* comma lists */
    size_t nonly;
    const char *checks;
} rp_opts;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is `name` (nl bytes) in one of the comma lists (items NAME or NAME.ini)? */
static bool in_lists(const char *const *lists, size_t n, const char *name, size_t nl)
{
    for (size_t i = 0; i < n; i++)
        for (const char *p = lists[i]; *p;) {
            size_t l = strcspn(p, ",");
            size_t m = l;
            if (m > 4 && !memcmp(p + m - 4, ".ini", 4))
                m -= 4;
            if (m == nl && !memcmp(p, name, nl))
                return true;
            p += l + (p[l] == ',');
        }
    return false;
}

/* The spec files of `dir`, sorted; --only applied (an unknown name is an error). */
static int list_experiments(const char *dir, const rp_opts *o, char ***names, size_t *count)
{
    char q[CLI_QUOTE_LEN];
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return cli_error(CMD, "cannot read the experiments folder %s: %s (set "
                         "SRLAB_EXPERIMENTS=DIR)", cli_quote(q, sizeof q, dir, strlen(dir), 200),
                         strerror(errno));
    char **v = NULL;
    size_t n = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l <= 4 || strcmp(de->d_name + l - 4, ".ini") || de->d_name[0] == '.')
            continue;
        char *p = rp_path(dir, de->d_name);
        struct stat sb;
        bool file = p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
        free(p);
        if (!file)
            continue;
        char **v2 = realloc(v, (n + 1) * sizeof *v);
        if (!v2 || !(v2[n] = strndup(de->d_name, l - 4))) {
            v = v2 ? v2 : v;
            rc = cli_sys_error(CMD, "out of memory");
            break;
        }
        v = v2;
        n++;
    }
    closedir(d);
    if (!rc && n)
        qsort(v, n, sizeof *v, cmp_str);
    if (!rc && n == 0)
        rc = cli_error(CMD, "no experiments (NAME.ini files) in %s",
                       cli_quote(q, sizeof q, dir, strlen(dir), 200));
    /* --only: every name must exist */
    for (size_t i = 0; !rc && i < o->nonly; i++)
        for (const char *p = o->only[i]; *p && !rc;) {
            size_t l = strcspn(p, ",");
            size_t m = l > 4 && !memcmp(p + l - 4, ".ini", 4) ? l - 4 : l;
            bool found = false;
            for (size_t k = 0; k < n && !found; k++)
                found = strlen(v[k]) == m && !memcmp(v[k], p, m);
            if (!found) {
                char known[600] = "";
                for (size_t k = 0, u = 0; k < n && u + 80 < sizeof known; k++)
                    u += (size_t)snprintf(known + u, sizeof known - u, "%s%s", k ? ", " : "", v[k]);
                rc = cli_error(CMD, "--only: unknown experiment %s (in %s: %s)",
                               cli_quote(q, sizeof q, p, l, CLI_QUOTE_MAX), dir, known);
            }
            p += l + (p[l] == ',');
        }
    if (!rc && o->nonly) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (in_lists(o->only, o->nonly, v[i], strlen(v[i])))
                v[k++] = v[i];
            else
                free(v[i]);
        }
        n = k;
    }
    if (rc) {
        for (size_t i = 0; i < n; i++)
            free(v[i]);
        free(v);
        return rc;
    }
    *names = v;
    *count = n;
    return 0;
}

static const char *experiments_dir(void)
{
    const char *env = getenv("SRLAB_EXPERIMENTS");
    if (env && *env)
        return env;
    if (is_dir(SRL_EXPERIMENTS_SOURCE_DIR))
        return SRL_EXPERIMENTS_SOURCE_DIR;
    return SRL_EXPERIMENTS_INSTALL_DIR;
}

static const char *plots_dir(void) /* srlab plot's rule (cmd_plot.c) */
{
    const char *env = getenv("SRLAB_PLOTS");
    if (env && *env)
        return env;
    if (is_dir(SRL_PLOTS_SOURCE_DIR))
        return SRL_PLOTS_SOURCE_DIR;
    return SRL_PLOTS_INSTALL_DIR;
}

/* Build the experiment's steps (the spec itself is read here; its copy is made when it runs). */
static int plan_experiment(rp_experiment *e, const char *name, const rp_report *r,
                           const rp_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    if (!(e->name = strdup(name)) || !(e->source = fmt_alloc("%s/%s.ini", r->experiments, name)) ||
        !(e->spec = fmt_alloc("specs/%s.ini", name)) || !(e->rows = fmt_alloc("%s.csv", name)) ||
        !(e->summary = fmt_alloc("%s.summary.csv", name)))
        return -1;
    int err = cli_read_file(e->source, &text, &len);
    if (err) {
        e->problem = fmt_alloc("cannot read %s: %s", e->source, strerror(err));
        return e->problem ? 0 : -1;
    }
    int rc = read_spec(e, text, len, r->plots);
    free(text);
    if (rc)
        return -1;
    if (!plain_name(name, strlen(name))) {
        e->problem = fmt_alloc("the spec's name '%s' is not a plain file name (letters, digits, "
                               "'_', '-', '.'): rename it", name);
        return e->problem ? 0 : -1;
    }
    rp_step *s = &e->sweep;
    if (step_push(s, "sweep") || step_push(s, e->spec) ||
        (o->quick && e->has_quick && step_push(s, "--quick")) ||
        (o->threads && (step_push(s, "--threads") || step_push(s, o->threads))) ||
        step_push(s, "-o") || step_push(s, e->rows) ||
        !(s->log = fmt_alloc("logs/sweep-%s.log", name)))
        return -1;
    if (o->quick) { /* the full mode's size, from a dry run */
        rp_step *p = &e->plan;
        if (step_push(p, "sweep") || step_push(p, e->spec) || step_push(p, "--dry-run") ||
            !(p->log = fmt_alloc("logs/plan-%s.log", name)))
            return -1;
    }
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

static void write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* The last non-empty line of the step's log (at most 300 characters), or NULL. */
static char *last_line(const char *dir, const char *log)
{
    size_t len;
    char *text = rp_read(dir, log, &len);
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

/* Run srlab with s->argv in dir, its output into dir/s->log. Returns 0, or an exit status for a
 * failure of the system (the log cannot be created, fork fails). The step's own failure is in
 * s->status. */
static int run_step(const rp_report *r, rp_step *s)
{
    char q[CLI_QUOTE_LEN];
    char *logpath = rp_path(r->dir, s->log), *line = step_command(s);
    char **argv = malloc(((size_t)s->argc + 2) * sizeof *argv);
    if (!logpath || !line || !argv) {
        free(logpath);
        free(line);
        free(argv);
        return cli_sys_error(CMD, "out of memory");
    }
    argv[0] = "srlab";
    for (int i = 0; i < s->argc; i++)
        argv[i + 1] = s->argv[i];
    argv[s->argc + 1] = NULL;
    int rc = 0;
    int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        rc = cli_sys_error(CMD, "cannot write %s: %s",
                           cli_quote(q, sizeof q, logpath, strlen(logpath), 200), strerror(errno));
        goto done;
    }
    write_all(fd, "$ ", 2);
    write_all(fd, line, strlen(line));
    write_all(fd, "\n", 1);
    double t0 = now_seconds();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        rc = cli_sys_error(CMD, "cannot start %s: %s", line, strerror(errno));
        close(fd);
        goto done;
    }
    if (pid == 0) { /* the child: only async-signal-safe calls until execv */
        static const char m1[] = "srlab reproduce: cannot enter the report folder\n";
        static const char m2[] = "srlab reproduce: cannot start srlab\n";
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (chdir(r->dir) != 0) {
            write_all(2, m1, sizeof m1 - 1);
            _exit(127);
        }
        execv(r->exe, argv);
        write_all(2, m2, sizeof m2 - 1);
        _exit(127);
    }
    rp_child = pid;
    close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            rc = cli_sys_error(CMD, "waiting for %s: %s", line, strerror(errno));
            rp_child = 0;
            goto done;
        }
    }
    rp_child = 0;
    s->seconds = now_seconds() - t0;
    s->ran = true;
    s->status = WIFEXITED(status) ? WEXITSTATUS(status)
                : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    if (s->status != 0)
        s->last = last_line(r->dir, s->log);
done:
    free(logpath);
    free(line);
    free(argv);
    return rc;
}

/* Progress: "srlab reproduce: [ 3/27] srlab plot stall ... ok (0.3 s)". */
static void progress_start(int k, int n, const rp_step *s)
{
    char *line = step_command(s);
    fprintf(stderr, "srlab %s: [%*d/%d] %s ... ", CMD, n >= 10 ? 2 : 1, k, n,
            line ? line : s->argv[0]);
    fflush(stderr);
    free(line);
}

static void progress_end(const rp_step *s)
{
    char t[32];
    fmt_duration(t, sizeof t, s->seconds);
    if (rp_step_ok(s))
        fprintf(stderr, "ok (%s)\n", t);
    else if (s->status > 128 && s->status < 128 + 65)
        fprintf(stderr, "FAILED: killed by signal %d (%s; see %s)\n", s->status - 128, t, s->log);
    else
        fprintf(stderr, "FAILED: exit %d (%s; see %s)%s%s\n", s->status, t, s->log,
                s->last ? ": " : "", s->last ? s->last : "");
}

static void progress_skip(int k, int n, const char *what, const char *why)
{
    fprintf(stderr, "srlab %s: [%*d/%d] %s: not run: %s\n", CMD, n >= 10 ? 2 : 1, k, n, what,
            why);
}

/* Remove a file reproduce is about to write again, so a failed step cannot leave an old one
 * that the report would show. */
static int remove_stale(const char *dir, const char *name)
{
    char *p = rp_path(dir, name);
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
    char *text = NULL, *dst = rp_path(r->dir, e->spec);
    size_t len = 0;
    if (!dst)
        return cli_sys_error(CMD, "out of memory");
    int rc, err = cli_read_file(e->source, &text, &len);
    if (err) {
        free(dst);
        return cli_sys_error(CMD, "cannot read %s: %s", e->source, strerror(err));
    }
    cli_out o;
    if (!(rc = cli_out_open(&o, CMD, "-o", dst))) {
        if (len && fwrite(text, 1, len, o.fp) != len)
            rc = cli_sys_error(CMD, "cannot write %s: %s", dst, strerror(errno));
        else
            rc = cli_out_commit(&o);
        cli_out_abort(&o);
    }
    free(text);
    free(dst);
    return rc;
}

static bool exists(const char *dir, const char *name)
{
    char *p = rp_path(dir, name);
    bool ok = p && access(p, F_OK) == 0;
    free(p);
    return ok;
}

/* ---- the report folder ---- */

/* DIR must be a directory that is empty (or --force), or a new name in an existing directory.
 * Nothing is created here: bad input leaves no trace. *create says whether to mkdir it. */
static int check_dir(const char *dir, bool force, bool *create)
{
    char q[CLI_QUOTE_LEN];
    cli_quote(q, sizeof q, dir, strlen(dir), 200);
    *create = false;
    if (!*dir)
        return cli_error(CMD, "-o: empty folder name");
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

static int make_dir(const char *dir, const char *sub)
{
    char *p = sub ? rp_path(dir, sub) : strdup(dir);
    if (!p)
        return cli_sys_error(CMD, "out of memory");
    int rc = 0;
    if (mkdir(p, 0777) != 0 && !(errno == EEXIST && is_dir(p)))
        rc = cli_sys_error(CMD, "cannot create the folder %s: %s", p, strerror(errno));
    free(p);
    return rc;
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

/* ---- the command ---- */

int cmd_reproduce(int argc, char **argv)
{
    enum { O_QUICK, O_OUTPUT, O_FORCE, O_ONLY, O_CHECKS, O_THREADS };
    static const cli_opt opts[] = {{"quick", 0, NULL},       {"output", 'o', "DIR"},
                                   {"force", 0, NULL},       {"only", 0, "NAMES"},
                                   {"checks", 0, "NAMES"},   {"threads", 0, "N"},
                                   {NULL, 0, NULL}};
    char q[CLI_QUOTE_LEN];
    rp_opts o;
    memset(&o, 0, sizeof o);
    rp_report r;
    memset(&r, 0, sizeof r);
    char **names = NULL;
    size_t nnames = 0;
    int rc = 0;
    o.only = calloc((size_t)argc + 1, sizeof *o.only);
    if (!o.only)
        return cli_sys_error(CMD, "out of memory");
    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            free(o.only);
            return cli_help(help_text);
        }
        if (k == CLI_ARGS_BAD) {
            free(o.only);
            return CLI_EXIT_USAGE;
        }
        const char **slot = NULL;
        switch (k) {
        case CLI_ARGS_POSITIONAL:
            rc = cli_error(CMD, "unexpected argument %s (see srlab reproduce --help)",
                           cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX));
            goto done;
        case O_QUICK: o.quick = true; continue;
        case O_FORCE: o.force = true; continue;
        case O_ONLY:
            if (!*a.val || a.val[strlen(a.val) - 1] == ',' || a.val[0] == ',' ||
                strstr(a.val, ",,")) {
                rc = cli_error(CMD, "%s: %s is not a comma list of experiment names", a.opt,
                               cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX));
                goto done;
            }
            o.only[o.nonly++] = a.val;
            continue;
        case O_OUTPUT: slot = &o.dir; break;
        case O_CHECKS: slot = &o.checks; break;
        case O_THREADS: slot = &o.threads; break;
        default: break;
        }
        if (!slot)
            continue;
        if (*slot) {
            rc = cli_error(CMD, "%s is given twice", a.opt);
            goto done;
        }
        *slot = a.val;
    }
    if (o.threads) {
        long long t;
        if ((rc = cli_parse_int(CMD, "--threads", o.threads, 1, 4096, &t)))
            goto done;
    }
    if (o.checks) {
        bool ok = *o.checks && o.checks[0] != ',' && o.checks[strlen(o.checks) - 1] != ',' &&
                  !strstr(o.checks, ",,");
        for (const char *c = o.checks; ok && *c; c++)
            ok = isalnum((unsigned char)*c) || strchr(",_-", *c);
        if (!ok) {
            rc = cli_error(CMD, "--checks: %s is not a comma list of statement names (T01,T05) "
                           "or none", cli_quote(q, sizeof q, o.checks, strlen(o.checks),
                                                CLI_QUOTE_MAX));
            goto done;
        }
    }
    r.dir = o.dir ? o.dir : "report";
    r.quick = o.quick;
    r.argc = argc;
    r.argv = argv;
    r.experiments = experiments_dir();
    r.plots = plots_dir();
    r.check_skipped = o.checks && !strcmp(o.checks, "none");

    /* bad input first, before anything is created */
    bool create;
    if ((rc = check_dir(r.dir, o.force, &create)))
        goto done;
    if (!have_gnuplot()) {
        rc = cli_error(CMD, "gnuplot is not installed: the figures need it; install Debian's "
                       "gnuplot-nox (apt-get install gnuplot-nox)");
        goto done;
    }
    if ((rc = list_experiments(r.experiments, &o, &names, &nnames)))
        goto done;
    const char *hook = getenv("SRLAB_REPRODUCE_EXE");
    if (hook && *hook) {
        r.exe = strdup(hook);
    } else {
        char buf[4096];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n <= 0) {
            rc = cli_sys_error(CMD, "cannot find the srlab binary (/proc/self/exe): %s",
                               strerror(errno));
            goto done;
        }
        buf[n] = 0;
        r.exe = strdup(buf);
    }
    r.ex = calloc(nnames ? nnames : 1, sizeof *r.ex);
    if (!r.exe || !r.ex) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    r.nex = nnames;
    for (size_t i = 0; i < nnames; i++)
        if (plan_experiment(&r.ex[i], names[i], &r, &o)) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
    if (!r.check_skipped) {
        rp_step *s = &r.check;
        if (step_push(s, "check") || (o.quick && step_push(s, "--quick")) ||
            step_push(s, "-o") || step_push(s, "check.csv") ||
            !(s->log = strdup("logs/check.log"))) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
        for (const char *p = o.checks; p && *p;) {
            size_t l = strcspn(p, ",");
            char *name = strndup(p, l);
            int bad = !name || step_push(s, name);
            free(name);
            if (bad) {
                rc = cli_sys_error(CMD, "out of memory");
                goto done;
            }
            p += l + (p[l] == ',');
        }
    }

    /* the folder; an old report goes first, so an interrupted run leaves none */
    if ((create && (rc = make_dir(r.dir, NULL))) || (rc = make_dir(r.dir, "logs")) ||
        (rc = make_dir(r.dir, "specs")) || (rc = remove_stale(r.dir, "index.html")))
        goto done;
    report_date(r.date, sizeof r.date);
    for (size_t i = 0; i < r.nex; i++) /* the specs as they are now: what the report shows */
        if (!r.ex[i].problem && (rc = copy_spec(&r, &r.ex[i])))
            goto done;
    install_signal_forwarding();
    double t0 = now_seconds();
    int nsteps = r.check_skipped ? 0 : 1, k = 0;
    for (size_t i = 0; i < r.nex; i++)
        nsteps += 1 + (int)r.ex[i].nfigs;

    for (size_t i = 0; i < r.nex; i++) {
        rp_experiment *e = &r.ex[i];
        if (e->problem) {
            progress_skip(++k, nsteps, e->name, e->problem);
            k += (int)e->nfigs;
            continue;
        }
        if (e->plan.argv && (rc = run_step(&r, &e->plan)))
            goto done;
        /* an interrupted sweep of an earlier reproduction (--force) continues from its journal */
        char *journal = fmt_alloc("%s.journal", e->name);
        if (!journal) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
        e->resumed = exists(r.dir, journal);
        free(journal);
        if (e->resumed && step_push(&e->sweep, "--resume")) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
        if ((rc = remove_stale(r.dir, e->rows)) || (rc = remove_stale(r.dir, e->summary)))
            goto done;
        progress_start(++k, nsteps, &e->sweep);
        if ((rc = run_step(&r, &e->sweep)))
            goto done;
        progress_end(&e->sweep);
        for (size_t j = 0; j < e->nfigs; j++) {
            rp_figure *f = &e->figs[j];
            /* two specs drawing the same file: the second is refused */
            for (size_t i2 = 0; i2 <= i && !f->problem && f->file; i2++)
                for (size_t j2 = 0; j2 < (i2 == i ? j : r.ex[i2].nfigs); j2++)
                    if (r.ex[i2].figs[j2].file && !strcmp(r.ex[i2].figs[j2].file, f->file) &&
                        set_problem(f, "%s is already a figure of %s: give this one another file "
                                    "name", f->file, r.ex[i2].name)) {
                        rc = cli_sys_error(CMD, "out of memory");
                        goto done;
                    }
            char what[200];
            snprintf(what, sizeof what, "srlab plot %s", f->plot ? f->plot : "?");
            if (f->problem) {
                progress_skip(++k, nsteps, what, f->problem);
                continue;
            }
            if ((rc = remove_stale(r.dir, f->file)))
                goto done;
            if (!rp_step_ok(&e->sweep)) {
                progress_skip(++k, nsteps, what, "its sweep failed");
                continue;
            }
            progress_start(++k, nsteps, &f->step);
            if ((rc = run_step(&r, &f->step)))
                goto done;
            progress_end(&f->step);
        }
    }
    if (!r.check_skipped) {
        if ((rc = remove_stale(r.dir, "check.csv")))
            goto done;
        progress_start(++k, nsteps, &r.check);
        if ((rc = run_step(&r, &r.check)))
            goto done;
        progress_end(&r.check);
    }
    r.seconds = now_seconds() - t0;

    /* the report, last and atomically */
    char *index = rp_path(r.dir, "index.html");
    if (!index) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    cli_out out;
    if ((rc = cli_out_open(&out, CMD, "-o", index))) {
        free(index);
        goto done;
    }
    size_t problems = 0;
    rc = rp_report_write(out.fp, &r, &problems) ? cli_sys_error(CMD, "out of memory")
                                                 : cli_out_commit(&out);
    cli_out_abort(&out);
    if (!rc) {
        char t[32];
        fmt_duration(t, sizeof t, r.seconds);
        if (problems)
            fprintf(stderr, "srlab %s: the report shows %zu problem%s (see its summary)\n", CMD,
                    problems, problems == 1 ? "" : "s");
        printf("report: %s (%s)\n", index, t);
        if (fflush(stdout) != 0)
            rc = cli_sys_error(CMD, "cannot write standard output: %s", strerror(errno));
        else
            rc = problems ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    free(index);
done:
    for (size_t i = 0; i < r.nex; i++)
        experiment_free(&r.ex[i]);
    free(r.ex);
    step_free(&r.check);
    free(r.exe);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(o.only);
    return rc;
}
