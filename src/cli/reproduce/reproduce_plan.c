/* src/cli/reproduce/reproduce_plan.c: the plan of `srlab reproduce`: which experiments, figures
 * and checks (src/cli/reproduce/reproduce_plan.h). */
#include "cli/reproduce/reproduce_plan.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/figure.h"
#include "cli/gnuplot.h"
#include "cli/host.h"

#define CMD "reproduce"

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

/* Record why the figure cannot be drawn. Returns FIG_PROBLEM, or FIG_NOMEM. */
enum { FIG_OK = 0, FIG_PROBLEM = 1, FIG_NOMEM = -1 };
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
    return f->problem ? FIG_PROBLEM : FIG_NOMEM;
}

/* The words after `srlab plot NAME`: -o FILE (any spelling) sets f->file; the others go into
 * the step with OUT. standing for the experiment's files. */
static int figure_args(rp_figure *f, const rp_experiment *e, char **w, int n)
{
    for (int i = 3; i < n; i++) {
        const char *out = NULL;
        if (!strcmp(w[i], "-o") || !strcmp(w[i], "--output")) {
            if (i + 1 == n)
                return set_problem(f, "%s without a file", w[i]);
            out = w[++i];
        } else if (!strncmp(w[i], "--output=", 9)) {
            out = w[i] + 9;
        } else if (!strncmp(w[i], "-o", 2)) {
            out = w[i] + 2;
        }
        if (out) {
            free(f->file);
            if (!(f->file = strdup(out)))
                return FIG_NOMEM;
            continue;
        }
        char *s = subst_out(w[i], e->name);
        int bad = !s || rp_step_push(&f->step, s);
        free(s);
        if (bad)
            return FIG_NOMEM;
    }
    return FIG_OK;
}

/* Every --set of the figure's step names a variable the script declares, with a value of its
 * type (src/cli/figure.h), and --in is a name srlab plot takes (src/cli/gnuplot.h): what srlab
 * plot would refuse is a problem of the figure now, before any work, and the plot never runs. (The columns a value names are checked by srlab plot
 * against the data, which the sweep has yet to write.) */
static int figure_sets(rp_figure *f, const char *script)
{
    char why[CLI_FIG_WHY_LEN], q[CLI_QUOTE_LEN];
    cli_fig fig;
    if (cli_fig_read(&fig, script, why))
        return set_problem(f, "the plot script %s cannot be used: %s", script, why);
    int rc = FIG_OK;
    for (int i = 0; i < f->step.argc && rc == FIG_OK; i++) {
        const char *a = f->step.argv[i], *set = NULL, *in = NULL;
        if (!strcmp(a, "--set") && i + 1 < f->step.argc)
            set = f->step.argv[++i];
        else if (!strncmp(a, "--set=", 6))
            set = a + 6;
        else if (!strcmp(a, "--in") && i + 1 < f->step.argc)
            in = f->step.argv[++i];
        else if (!strncmp(a, "--in=", 5))
            in = a + 5;
        if (in && cli_gp_path_check(in))
            rc = set_problem(f, "--in %s %s", cli_quote(q, sizeof q, in, strlen(in), 200),
                             cli_gp_path_check(in));
        if (!set)
            continue;
        const char *eq = strchr(set, '=');
        const cli_fig_var *v = eq ? cli_fig_find(&fig, set, (size_t)(eq - set)) : NULL;
        if (!v)
            rc = set_problem(f, "--set %s: the figure %s has no such variable",
                             cli_quote(q, sizeof q, set, strlen(set), CLI_QUOTE_MAX), f->plot);
        else if (cli_fig_check(v, eq + 1, why))
            rc = set_problem(f, "--set %s: %s %s (%s)", v->name,
                             cli_quote(q, sizeof q, eq + 1, strlen(eq + 1), 200), why,
                             cli_fig_type_name(v->type));
    }
    cli_fig_free(&fig);
    return rc;
}

/* The figure file (NAME.png by default) must be a plain name with a figure's extension; then
 * `-o FILE` ends the step, its log is named, and the plot script must be there. */
static int figure_file(rp_figure *f, const char *plots)
{
    if (!f->file && !(f->file = cli_alloc_printf("%s.png", f->plot)))
        return FIG_NOMEM;
    size_t fl = strlen(f->file);
    if (!plain_name(f->file, fl) ||
        (fl < 5 || (strcmp(f->file + fl - 4, ".png") && strcmp(f->file + fl - 4, ".svg") &&
                    strcmp(f->file + fl - 4, ".pdf"))))
        return set_problem(f, "the figure file '%.100s' must be a plain name ending in .png, "
                           ".svg or .pdf (it goes into the report folder)", f->file);
    if (rp_step_push(&f->step, "-o") || rp_step_push(&f->step, f->file) ||
        !(f->step.log = cli_alloc_printf("logs/plot-%s.log", f->file)))
        return FIG_NOMEM;
    char *script = cli_alloc_printf("%s/%s.gp", plots, f->plot);
    if (!script)
        return FIG_NOMEM;
    int rc = FIG_OK;
    if (access(script, R_OK) != 0)
        rc = set_problem(f, "the plot script %s is missing: the figure cannot be drawn", script);
    else
        rc = figure_sets(f, script);
    free(script);
    return rc;
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
    int n = split_words(text, &w), rc;
    if (n == -2)
        return -1;
    if (n == -1)
        return set_problem(f, "the figure's command has an unterminated quote") < 0 ? -1 : 0;
    if (n < 3 || strcmp(w[0], "srlab") || strcmp(w[1], "plot"))
        rc = set_problem(f, "not a `srlab plot NAME ...` command");
    else if (!plain_name(w[2], strlen(w[2])) || strchr(w[2], '.'))
        rc = set_problem(f, "'%.100s' is not a figure name", w[2]);
    else if (!(f->plot = strdup(w[2])) || rp_step_push(&f->step, "plot") ||
             rp_step_push(&f->step, w[2]))
        rc = FIG_NOMEM;
    else if ((rc = figure_args(f, e, w, n)) == FIG_OK)
        rc = figure_file(f, plots);
    words_free(w);
    return rc < 0 ? -1 : 0;
}

/* Read the spec's header comment: its prose (e->about), its figures, the full mode's measured
 * CPU time (e->full_cpu), and whether the file has a [quick] section. The header is the run of
 * '#' lines at the top. -1 when out of memory. */
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
            if (tl > 10 && !memcmp(t, "Full mode:", 10)) { /* "Full mode: N CPU-s (...)" */
                char *ve;
                const double v = strtod(t + 10, &ve);
                if (ve > t + 10 && v >= 0 && isfinite(v))
                    e->full_cpu = v;
            } else if (tl >= 11 && !memcmp(t, "srlab plot ", 11)) {
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

/* ---- the experiments ---- */

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

/* Every name of --only must be a spec of dir (names: the specs found there, n of them). */
static int check_only(const rp_opts *o, const char *dir, char *const *names, size_t n)
{
    char q[CLI_QUOTE_LEN];
    for (size_t i = 0; i < o->nonly; i++)
        for (const char *p = o->only[i]; *p;) {
            size_t l = strcspn(p, ",");
            size_t m = l > 4 && !memcmp(p + l - 4, ".ini", 4) ? l - 4 : l;
            bool found = false;
            for (size_t k = 0; k < n && !found; k++)
                found = strlen(names[k]) == m && !memcmp(names[k], p, m);
            if (!found) {
                char known[600] = "";
                for (size_t k = 0, u = 0; k < n && u + 80 < sizeof known; k++)
                    u += (size_t)snprintf(known + u, sizeof known - u, "%s%s", k ? ", " : "",
                                          names[k]);
                return cli_error(CMD, "--only: unknown experiment %s (in %s: %s)",
                                 cli_quote(q, sizeof q, p, l, CLI_QUOTE_MAX), dir, known);
            }
            p += l + (p[l] == ',');
        }
    return 0;
}

/* The spec files of `dir`, sorted; --only applied (an unknown name is an error). */
static int list_experiments(const char *dir, const rp_opts *o, char ***names, size_t *count)
{
    char q[CLI_QUOTE_LEN];
    int err = cli_host_list(dir, ".ini", names, count);
    if (err == ENOMEM)
        return cli_sys_error(CMD, "out of memory");
    if (err)
        return cli_error(CMD, "cannot read the experiments folder %s: %s (set "
                         "SRLAB_EXPERIMENTS=DIR)", cli_quote(q, sizeof q, dir, strlen(dir), 200),
                         strerror(err));
    char **v = *names;
    size_t n = *count;
    int rc = 0;
    if (n == 0)
        rc = cli_error(CMD, "no experiments (NAME.ini files) in %s",
                       cli_quote(q, sizeof q, dir, strlen(dir), 200));
    if (!rc)
        rc = check_only(o, dir, v, n);
    if (!rc && o->nonly) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (in_lists(o->only, o->nonly, v[i], strlen(v[i])))
                v[k++] = v[i];
            else
                free(v[i]);
        }
        *count = k;
    }
    return rc;
}

/* Build the experiment's steps (the spec itself is read here; its copy is made when it runs). */
static int plan_experiment(rp_experiment *e, const char *name, const rp_report *r,
                           const rp_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    e->full_cpu = NAN;
    if (!(e->name = strdup(name)) ||
        !(e->source = cli_alloc_printf("%s/%s.ini", r->experiments, name)) ||
        !(e->spec = cli_alloc_printf("specs/%s.ini", name)) ||
        !(e->rows = cli_alloc_printf("%s.csv", name)) ||
        !(e->summary = cli_alloc_printf("%s.summary.csv", name)) ||
        !(e->runs = cli_alloc_printf("%s.runs.csv", name)))
        return -1;
    int err = cli_read_file(e->source, &text, &len);
    if (err) {
        e->problem = cli_alloc_printf("cannot read %s: %s", e->source, cli_read_strerror(err));
        return e->problem ? 0 : -1;
    }
    int rc = read_spec(e, text, len, r->plots);
    free(text);
    if (rc)
        return -1;
    if (!plain_name(name, strlen(name))) {
        e->problem = cli_alloc_printf("the spec's name '%s' is not a plain file name (letters, "
                                      "digits, '_', '-', '.'): rename it", name);
        return e->problem ? 0 : -1;
    }
    rp_step *s = &e->sweep;
    if (rp_step_push(s, "sweep") || rp_step_push(s, e->spec) ||
        (o->quick && e->has_quick && rp_step_push(s, "--quick")) ||
        (o->threads && (rp_step_push(s, "--threads") || rp_step_push(s, o->threads))) ||
        rp_step_push(s, "-o") || rp_step_push(s, e->rows) ||
        !(s->log = cli_alloc_printf("logs/sweep-%s.log", name)))
        return -1;
    if (o->quick) { /* the full mode's size, from a dry run */
        rp_step *p = &e->plan;
        if (rp_step_push(p, "sweep") || rp_step_push(p, e->spec) ||
            rp_step_push(p, "--dry-run") || !(p->log = cli_alloc_printf("logs/plan-%s.log", name)))
            return -1;
    }
    return 0;
}

/* srlab check [--quick] -o check.csv [NAMES...] */
static int plan_check(rp_step *s, const rp_opts *o)
{
    if (rp_step_push(s, "check") || (o->quick && rp_step_push(s, "--quick")) ||
        rp_step_push(s, "-o") || rp_step_push(s, "check.csv") ||
        !(s->log = strdup("logs/check.log")))
        return -1;
    for (const char *p = o->checks; p && *p;) {
        size_t l = strcspn(p, ",");
        char *name = strndup(p, l);
        int bad = !name || rp_step_push(s, name);
        free(name);
        if (bad)
            return -1;
        p += l + (p[l] == ',');
    }
    return 0;
}

/* Two specs drawing the same file: the later figure is refused. (Figures of a spec that cannot
 * run are not drawn, and not refused either; the earlier figures they would clash with are
 * those of every spec.) */
static int refuse_shared_files(rp_report *r)
{
    for (size_t i = 0; i < r->nex; i++) {
        if (r->ex[i].problem)
            continue;
        for (size_t j = 0; j < r->ex[i].nfigs; j++) {
            rp_figure *f = &r->ex[i].figs[j];
            for (size_t i2 = 0; i2 <= i && !f->problem && f->file; i2++)
                for (size_t j2 = 0; j2 < (i2 == i ? j : r->ex[i2].nfigs); j2++)
                    if (r->ex[i2].figs[j2].file && !strcmp(r->ex[i2].figs[j2].file, f->file) &&
                        set_problem(f, "%s is already a figure of %s: give this one another "
                                    "file name", f->file, r->ex[i2].name) < 0)
                        return -1;
        }
    }
    return 0;
}

int rp_plan_build(rp_report *r, const rp_opts *o)
{
    char **names = NULL;
    size_t nnames = 0;
    int rc = list_experiments(r->experiments, o, &names, &nnames);
    if (!rc && !(r->ex = calloc(nnames ? nnames : 1, sizeof *r->ex)))
        rc = cli_sys_error(CMD, "out of memory");
    if (!rc)
        r->nex = nnames;
    for (size_t i = 0; !rc && i < nnames; i++)
        if (plan_experiment(&r->ex[i], names[i], r, o))
            rc = cli_sys_error(CMD, "out of memory");
    if (!rc && (refuse_shared_files(r) || (!r->check_skipped && plan_check(&r->check, o))))
        rc = cli_sys_error(CMD, "out of memory");
    cli_host_names_free(names, nnames);
    return rc;
}

static void experiment_free(rp_experiment *e)
{
    for (size_t k = 0; k < e->nfigs; k++) {
        rp_figure *f = &e->figs[k];
        free(f->line);
        free(f->plot);
        free(f->file);
        free(f->problem);
        rp_step_free(&f->step);
    }
    free(e->figs);
    free(e->name);
    free(e->source);
    free(e->spec);
    free(e->about);
    free(e->problem);
    free(e->rows);
    free(e->summary);
    free(e->runs);
    rp_step_free(&e->sweep);
    rp_step_free(&e->plan);
}

void rp_plan_free(rp_report *r)
{
    for (size_t i = 0; i < r->nex; i++)
        experiment_free(&r->ex[i]);
    free(r->ex);
    r->ex = NULL;
    r->nex = 0;
    rp_step_free(&r->check);
}
