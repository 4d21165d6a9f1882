/* src/cli/reproduce/reproduce_report.c: index.html of `srlab reproduce` (docs/design.md §13).
 *
 * One self-contained HTML page: inline CSS, no external resource, figures as the PNG files beside
 * it, every link relative to the report folder. Sections: a summary (what was reproduced, the
 * problems, with links), the check table (check.csv), one section per experiment (its header's
 * prose, figures, data files, the '#' lines of its rows file: srlab version, command, spec,
 * seeds, runs), the sizes and wall times (and, for --quick, the full mode's sizes and its
 * measured CPU time), every command with its exit status, wall time and log, and the machine.
 * A small inline script marks every image's load state on the page (data-state="loaded" or
 * "broken", and the counts on <body>), for the reader and for tests/reproduce's browser check.
 *
 * The report records the measured wall and CPU time of every step. The full mode's time is not
 * extrapolated from the quick run (the costs of the small and the large models do not scale
 * alike): each spec's header records the full sweep's CPU time as measured ("# Full mode: N
 * CPU-s"), and the report shows those, their sum with srlab check's (RP_CHECK_FULL_CPU), and
 * how this quick run's CPU time compares with the quick mode's as measured (RP_QUICK_CPU): the
 * reader scales by that. So the figure it states is the one srlab states everywhere
 * (RP_FULL_TIME). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "cli/reproduce/reproduce_report.h"
#include "srlab/common.h"

/* ---- text ---- */

static void esc_n(FILE *fp, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default: fputc(s[i], fp);
        }
    }
}

static void esc(FILE *fp, const char *s)
{
    esc_n(fp, s ? s : "", (size_t)-1);
}

/* The value of the '#'-line "# key: value" in text (up to its end of line), malloc'd, or NULL. */
static char *meta_value(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p == '#'; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, "# ", 2) && !strncmp(p + 2, key, kl) && p[2 + kl] == ':') {
            const char *v = p + 3 + kl;
            while (*v == ' ')
                v++;
            return strndup(v, strcspn(v, "\r\n"));
        }
    return NULL;
}

/* The same in a log: the lines may follow the log's "$ srlab ..." line. */
static char *log_value(const char *text, const char *key)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (*p == '#')
            return meta_value(p, key);
    return NULL;
}

/* ---- CSV (RFC 4180; '#' lines before the header are comments) ---- */

typedef struct csv_table {
    char **meta;      /* the '#' lines */
    size_t nmeta;
    char ***rows;     /* rows[0] is the header */
    size_t *nf;
    size_t nrows;
} csv_table;

static void csv_free(csv_table *t)
{
    for (size_t i = 0; i < t->nmeta; i++)
        free(t->meta[i]);
    free(t->meta);
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->nf[i]; j++)
            free(t->rows[i][j]);
        free(t->rows[i]);
    }
    free(t->rows);
    free(t->nf);
    memset(t, 0, sizeof *t);
}

static int push_ptr(void *vec, size_t n, void *item)
{
    void ***v = vec;
    void **nv = realloc(*v, (n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nv[n] = item;
    *v = nv;
    return 0;
}

/* One record from *sp (before end): its fields into *row (malloc'd, *nf of them), field being
 * scratch space as long as the input. *sp moves past the record and its line end. 0, or -1 when
 * out of memory (nothing is left allocated). */
static int csv_record(const char **sp, const char *end, char *field, char ***row, size_t *nf)
{
    const char *s = *sp;
    *row = NULL;
    *nf = 0;
    for (;;) {
        size_t k = 0;
        if (s < end && *s == '"') {
            for (s++; s < end; s++) {
                if (*s == '"') {
                    if (s + 1 < end && s[1] == '"')
                        s++;
                    else {
                        s++;
                        break;
                    }
                }
                field[k++] = *s;
            }
        }
        while (s < end && *s != ',' && *s != '\n' && *s != '\r')
            field[k++] = *s++;
        char *f = strndup(field, k);
        if (!f || push_ptr(row, *nf, f)) {
            free(f);
            for (size_t j = 0; j < *nf; j++)
                free((*row)[j]);
            free(*row);
            return -1;
        }
        (*nf)++;
        if (s < end && *s == ',') {
            s++;
            continue;
        }
        break;
    }
    if (s < end && *s == '\r')
        s++;
    if (s < end && *s == '\n')
        s++;
    *sp = s;
    return 0;
}

/* 0, or -1 when out of memory. */
static int csv_parse(const char *s, size_t len, csv_table *t)
{
    memset(t, 0, sizeof *t);
    const char *end = s + len;
    char *field = malloc(len + 1);
    if (!field)
        return -1;
    while (s < end) {
        if (*s == '#' && t->nrows == 0) {
            size_t l = strcspn(s, "\r\n");
            char *m = strndup(s, l);
            if (!m || push_ptr(&t->meta, t->nmeta, m)) {
                free(m);
                goto nomem;
            }
            t->nmeta++;
            s += l;
            while (s < end && (*s == '\r' || *s == '\n'))
                s++;
            continue;
        }
        if (*s == '\n' || *s == '\r') { /* blank line */
            s++;
            continue;
        }
        char **row;
        size_t nf;
        if (csv_record(&s, end, field, &row, &nf))
            goto nomem;
        size_t *nnf = realloc(t->nf, (t->nrows + 1) * sizeof *nnf);
        if (nnf)
            t->nf = nnf;
        if (!nnf || push_ptr(&t->rows, t->nrows, row)) {
            for (size_t j = 0; j < nf; j++)
                free(row[j]);
            free(row);
            goto nomem;
        }
        t->nf[t->nrows++] = nf;
    }
    free(field);
    return 0;
nomem:
    free(field);
    csv_free(t);
    return -1;
}

static long csv_column(const csv_table *t, const char *name)
{
    for (size_t j = 0; t->nrows && j < t->nf[0]; j++)
        if (!strcmp(t->rows[0][j], name))
            return (long)j;
    return -1;
}

static bool is_fail(const char *s)
{
    return s && (!strcmp(s, "FAIL") || !strcmp(s, "fail") || !strcmp(s, "FAILED"));
}

/* ---- problems ---- */

typedef struct problem_list {
    char **text;   /* plain text */
    char **anchor; /* the section it links to */
    size_t n;      /* entries in text and anchor */
    size_t count;  /* problems (more than n only when out of memory) */
} problem_list;

static void add_problem(problem_list *p, const char *anchor, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_problem(problem_list *p, const char *anchor, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->count++;
    char *t = strdup(msg), *a = strdup(anchor);
    char **nt = t && a ? realloc(p->text, (p->n + 1) * sizeof *nt) : NULL;
    if (nt)
        p->text = nt;
    char **na = nt ? realloc(p->anchor, (p->n + 1) * sizeof *na) : NULL;
    if (!na) { /* out of memory: the count stays right, the text is lost */
        free(t);
        free(a);
        return;
    }
    p->anchor = na;
    p->text[p->n] = t;
    p->anchor[p->n++] = a;
}

static void problems_free(problem_list *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->text[i]);
        free(p->anchor[i]);
    }
    free(p->text);
    free(p->anchor);
}

static void step_failure(char *buf, size_t len, const rp_step *s)
{
    if (s->status > 128 && s->status < 128 + 65)
        snprintf(buf, len, "killed by signal %d", s->status - 128);
    else if (s->status == 127)
        snprintf(buf, len, "exit 127 (could not start)");
    else
        snprintf(buf, len, "exit %d", s->status);
}

/* ---- machine ---- */

static char *cpu_model(void)
{
    char *text = cli_host_read("/proc", "cpuinfo", NULL);
    char *r = NULL;
    for (const char *p = text; p && *p && !r; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, "model name", 10)) {
            const char *v = strchr(p, ':');
            if (v) {
                v++;
                while (*v == ' ' || *v == '\t')
                    v++;
                r = strndup(v, strcspn(v, "\n"));
            }
        }
    free(text);
    return r;
}

/* CPUs this process may run on (what nproc prints): Cpus_allowed_list of /proc/self/status. */
static long cpus_allowed(void)
{
    char *text = cli_host_read("/proc/self", "status", NULL);
    const char *p = text ? strstr(text, "Cpus_allowed_list:") : NULL;
    long n = 0;
    if (p) {
        p += 18;
        while (*p && *p != '\n') {
            while (*p == ' ' || *p == '\t' || *p == ',')
                p++;
            if (!isdigit((unsigned char)*p))
                break;
            char *e;
            long a = strtol(p, &e, 10), b = a;
            if (*e == '-')
                b = strtol(e + 1, &e, 10);
            n += b - a + 1;
            p = e;
        }
    }
    free(text);
    return n;
}

static char *mem_total(void)
{
    char *text = cli_host_read("/proc", "meminfo", NULL);
    const char *p = text ? strstr(text, "MemTotal:") : NULL;
    char *r = NULL;
    if (p) {
        double kb = strtod(p + 9, NULL);
        char buf[64];
        snprintf(buf, sizeof buf, "%.1f GiB", kb / (1024.0 * 1024.0));
        r = strdup(buf);
    }
    free(text);
    return r;
}

/* ---- pieces of the page ---- */

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "max-width:1100px;margin:0 auto;padding:1em 1.5em 4em;color:#1b1b1b;line-height:1.45}\n"
    "h1{font-size:1.7em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;"
    "margin-top:2em}h3{margin-top:1.6em}\n"
    "code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.88em}\n"
    "pre{background:#f5f5f5;padding:.6em .8em;border-radius:4px;white-space:pre-wrap;"
    "overflow-wrap:anywhere}\n"
    "td,th,code,figcaption{overflow-wrap:anywhere}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.92em}\n"
    "th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".PASS,.ok{color:#11641d;font-weight:bold}.FAIL,.bad{color:#b00020;font-weight:bold}\n"
    "tr.FAIL td{background:#fdecee}.skip{color:#777}#checks td{font-size:.9em}\n"
    ".box{border:1px solid #ccc;border-left:6px solid #11641d;padding:.6em 1em;margin:1em 0;"
    "background:#fafafa}.box.bad{border-left-color:#b00020;font-weight:normal;color:inherit}\n"
    "figure{margin:1em 0;display:inline-block;max-width:100%}figure img{max-width:100%;box-sizing:border-box;"
    "border:1px solid #ddd}figcaption{font-size:.85em;color:#444}\n"
    "nav ul{columns:2}\n";

/* Marks every image's load state (data-state, data-width) and the totals on <body>. */
static const char img_script[] =
    "<script>\n"
    "(function () {\n"
    "  var imgs = document.getElementsByTagName('img'), left = imgs.length, ok = 0, bad = 0;\n"
    "  /* what a reader cannot see without scrolling sideways, once every image has its size: a\n"
    "     box wider than the window, a cell or block whose text runs past its edge (the count\n"
    "     and the first few on body) */\n"
    "  function measure() {\n"
    "    var over = [], els = document.querySelectorAll('pre,code,th,td,table,figure');\n"
    "    for (var k = 0; k < els.length; k++) {\n"
    "      var el = els[k], r = el.getBoundingClientRect();\n"
    "      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 ||\n"
    "          r.right > document.documentElement.clientWidth + 1)\n"
    "        over.push(el.tagName.toLowerCase() + ' ' + (el.textContent || '').slice(0, 40)\n"
    "                  .replace(/[^ -~]/g, ' ').replace(/[\"&<>]/g, ' '));\n"
    "    }\n"
    "    document.body.setAttribute('data-overflow', String(over.length));\n"
    "    document.body.setAttribute('data-overflow-what', over.slice(0, 5).join(' | '));\n"
    "  }\n"
    "  function total() {\n"
    "    document.body.setAttribute('data-images', String(imgs.length));\n"
    "    document.body.setAttribute('data-images-loaded', String(ok));\n"
    "    document.body.setAttribute('data-images-broken', String(bad));\n"
    "    document.body.setAttribute('data-images-pending', String(left));\n"
    "    if (left === 0) measure();\n"
    "  }\n"
    "  function mark(img) {\n"
    "    if (img.getAttribute('data-state')) return;\n"
    "    var good = img.complete && img.naturalWidth > 0;\n"
    "    img.setAttribute('data-state', good ? 'loaded' : 'broken');\n"
    "    img.setAttribute('data-width', String(img.naturalWidth));\n"
    "    if (good) ok++; else bad++;\n"
    "    left--;\n"
    "    total();\n"
    "  }\n"
    "  total();\n"
    "  for (var i = 0; i < imgs.length; i++) {\n"
    "    var img = imgs[i];\n"
    "    if (img.complete) mark(img);\n"
    "    else {\n"
    "      img.addEventListener('load', function () { mark(this); });\n"
    "      img.addEventListener('error', function () { mark(this); });\n"
    "    }\n"
    "  }\n"
    "})();\n"
    "</script>\n";

static void cmd_code(FILE *fp, const rp_step *s)
{
    char *line = rp_command(s->argc, s->argv);
    if (line) {
        fputs("<code>", fp);
        esc(fp, line);
        fputs("</code>", fp);
    }
    free(line);
}

/* The step's last line of output (when it failed), as code after `lead`, which opens it. */
static void last_message(FILE *fp, const rp_step *s, const char *lead)
{
    if (!s->last)
        return;
    fputs(lead, fp);
    esc(fp, s->last);
    fputs("</code>", fp);
}

static void status_cell(FILE *fp, const rp_step *s, bool check)
{
    char why[64];
    if (!s->ran)
        fputs("<span class=\"skip\">not run</span>", fp);
    else if (rp_step_ok(s))
        fputs("<span class=\"ok\">ok</span>", fp);
    else if (check && s->status == 1)
        fputs("<span class=\"bad\">exit 1: a check failed</span>", fp);
    else {
        step_failure(why, sizeof why, s);
        fprintf(fp, "<span class=\"bad\">%s</span>", why);
    }
}

/* A number shown to 4 significant digits, the exact text in its title; other text as is. */
static void csv_cell(FILE *fp, const char *v, const char *cls_extra)
{
    char *end;
    errno = 0;
    double x = *v ? strtod(v, &end) : 0;
    bool num = *v && !*end && !errno && !isspace((unsigned char)*v);
    if (num && strlen(v) > 7) {
        char b[64];
        snprintf(b, sizeof b, "%.4g", x);
        fprintf(fp, "<td class=\"num%s\" title=\"", cls_extra);
        esc(fp, v);
        fputs("\">", fp);
        esc(fp, b);
    } else {
        fprintf(fp, "<td class=\"%s%s\">", num ? "num" : "", cls_extra);
        esc(fp, v);
    }
    fputs("</td>", fp);
}

/* The line under the checks' heading: the command, its status and time, its log and data. */
static void checks_intro(FILE *fp, const rp_step *s, bool have_data)
{
    fputs("<p>", fp);
    cmd_code(fp, s);
    fputs(": ", fp);
    status_cell(fp, s, true);
    if (s->ran) {
        char t[32];
        rp_duration(t, sizeof t, s->seconds);
        fprintf(fp, " in %s", t);
    }
    fputs("; <a href=\"", fp);
    esc(fp, s->log);
    fputs("\">log</a>", fp);
    if (have_data)
        fputs("; data <a href=\"check.csv\">check.csv</a>", fp);
    fputs(". Each statement is in <code>theory/</code> under its id; <code>srlab theory "
          "ID</code> prints its prediction.</p>\n",
          fp);
}

/* Why there is no table (`have_data`: check.csv exists, and is empty). */
static void no_check_table(FILE *fp, const rp_step *s, bool have_data, problem_list *pl)
{
    fputs("<p class=\"bad\">No check table: ", fp);
    if (!s->ran)
        fputs("srlab check did not run.", fp);
    else if (have_data)
        fputs("check.csv is empty.", fp);
    else
        fputs("srlab check wrote no check.csv.", fp);
    last_message(fp, s, " Its last message: <code>");
    fputs("</p>\n", fp);
    add_problem(pl, "checks-section", "srlab check did not produce its table (%s)",
                s->last ? s->last : "see logs/check.log");
}

/* The value of row i's result column, or "". */
static const char *check_result(const csv_table *t, long res, size_t i)
{
    return res >= 0 && (size_t)res < t->nf[i] ? t->rows[i][res] : "";
}

/* The counts, check.csv's '#' lines and the table, a failed check a problem each. Returns the
 * number of rows that say FAIL. */
static size_t check_table(FILE *fp, const csv_table *t, problem_list *pl)
{
    const long res = csv_column(t, "result"), idc = csv_column(t, "id");
    size_t npass = 0, nfail = 0;
    for (size_t i = 1; i < t->nrows; i++) {
        const char *v = check_result(t, res, i);
        if (is_fail(v))
            nfail++;
        else if (!strcmp(v, "PASS"))
            npass++;
    }
    fprintf(fp, "<p><b>%zu</b> check%s: <span class=\"PASS\">%zu PASS</span>, "
                "<span class=\"%s\">%zu FAIL</span>.</p>\n",
            t->nrows - 1, t->nrows == 2 ? "" : "s", npass, nfail ? "FAIL" : "", nfail);
    if (t->nmeta) {
        fputs("<pre>", fp);
        for (size_t i = 0; i < t->nmeta; i++) {
            esc(fp, t->meta[i]);
            fputc('\n', fp);
        }
        fputs("</pre>\n", fp);
    }
    fputs("<table id=\"checks\">\n<tr>", fp);
    for (size_t j = 0; j < t->nf[0]; j++) {
        fputs("<th>", fp);
        esc(fp, t->rows[0][j]);
        fputs("</th>", fp);
    }
    fputs("</tr>\n", fp);
    for (size_t i = 1; i < t->nrows; i++) {
        const char *v = check_result(t, res, i);
        fprintf(fp, "<tr class=\"%s\">", is_fail(v) ? "FAIL" : "");
        for (size_t j = 0; j < t->nf[i]; j++)
            csv_cell(fp, t->rows[i][j],
                     (long)j == res ? (is_fail(v) ? " FAIL" : !strcmp(v, "PASS") ? " PASS" : "")
                                    : "");
        fputs("</tr>\n", fp);
        if (is_fail(v)) {
            const char *id = idc >= 0 && (size_t)idc < t->nf[i] ? t->rows[i][idc] : "?";
            add_problem(pl, "checks-section", "check %s failed", id);
        }
    }
    fputs("</table>\n", fp);
    return nfail;
}

/* srlab check's exit status against its table. */
static void check_status_problems(const rp_step *s, size_t nfail, problem_list *pl)
{
    if (rp_step_ok(s) && nfail)
        add_problem(pl, "checks-section", "srlab check exited 0 but its table has a FAIL");
    if (s->ran && s->status == 1 && !nfail)
        add_problem(pl, "checks-section", "srlab check exited 1 (a check failed) but no row says "
                    "FAIL");
    if (s->ran && s->status != 0 && s->status != 1) {
        char why[64];
        step_failure(why, sizeof why, s);
        add_problem(pl, "checks-section", "srlab check failed (%s): %s", why,
                    s->last ? s->last : "see logs/check.log");
    }
}

static void write_checks(FILE *fp, const rp_report *r, problem_list *pl)
{
    fputs("<h2 id=\"checks-section\">Checks: theory against measurement</h2>\n", fp);
    if (r->check_skipped) {
        fputs("<p class=\"skip\">Skipped (<code>--checks none</code>).</p>\n", fp);
        return;
    }
    const rp_step *s = &r->check;
    size_t len = 0;
    char *text = cli_host_read(r->dir, "check.csv", &len);
    checks_intro(fp, s, text != NULL);
    csv_table t;
    if (!text || csv_parse(text, len, &t) || t.nrows == 0) {
        if (text)
            csv_free(&t);
        no_check_table(fp, s, text != NULL, pl);
        free(text);
        return;
    }
    check_status_problems(s, check_table(fp, &t, pl), pl);
    csv_free(&t);
    free(text);
}

static void data_link(FILE *fp, const rp_report *r, const char *name, const char *what)
{
    if (!cli_host_access(r->dir, name, R_OK))
        return;
    fprintf(fp, " <a href=\"");
    esc(fp, name);
    fprintf(fp, "\">%s</a>", what);
}

/* The sweep's line: its command, status, time and files; a failed sweep is a problem. */
static void experiment_sweep(FILE *fp, const rp_report *r, const rp_experiment *e,
                             const char *anchor, problem_list *pl)
{
    const rp_step *s = &e->sweep;
    char t[32];
    fputs("<p>", fp);
    cmd_code(fp, s);
    fputs(": ", fp);
    status_cell(fp, s, false);
    if (s->ran) {
        rp_duration(t, sizeof t, s->seconds);
        fprintf(fp, " in %s", t);
    }
    if (r->quick && !e->has_quick)
        fputs(" (the spec has no [quick] section: run at its full size)", fp);
    if (e->resumed)
        fputs(" (continued from the journal of an interrupted sweep)", fp);
    fputs(".<br>Files:", fp);
    data_link(fp, r, e->spec, "spec");
    if (rp_step_ok(s)) { /* a failed sweep leaves the set of an earlier one: not this report's */
        data_link(fp, r, e->rows, "rows (CSV)");
        data_link(fp, r, e->summary, "summary (CSV)");
        data_link(fp, r, e->runs, "per-run finals (CSV)");
    }
    data_link(fp, r, s->log, "log");
    fputs("</p>\n", fp);
    if (s->ran && !rp_step_ok(s)) {
        char why[64];
        step_failure(why, sizeof why, s);
        fputs("<p class=\"bad\">The sweep failed (", fp);
        esc(fp, why);
        fputs(")", fp);
        last_message(fp, s, ": <code>");
        fputs("</p>\n", fp);
        add_problem(pl, anchor, "%s: the sweep failed (%s)%s%s", e->name, why,
                    s->last ? ": " : "", s->last ? s->last : "");
    }
}

/* A figure drawn: the image (a link for a PDF) with its command as the caption. */
static void figure_drawn(FILE *fp, const rp_figure *f)
{
    const rp_step *ps = &f->step;
    char t[32];
    bool pdf = strlen(f->file) > 4 && !strcmp(f->file + strlen(f->file) - 4, ".pdf");
    fputs("<figure>", fp);
    if (pdf) {
        fputs("<a href=\"", fp);
        esc(fp, f->file);
        fputs("\">", fp);
        esc(fp, f->file);
        fputs(" (PDF)</a>", fp);
    } else {
        fputs("<a href=\"", fp);
        esc(fp, f->file);
        fputs("\"><img src=\"", fp);
        esc(fp, f->file);
        fputs("\" alt=\"", fp);
        esc(fp, f->file);
        fputs("\"></a>", fp);
    }
    rp_duration(t, sizeof t, ps->seconds);
    fputs("<figcaption>", fp);
    esc(fp, f->file);
    fputs(": ", fp);
    cmd_code(fp, ps);
    fprintf(fp, " (%s; <a href=\"", t);
    esc(fp, ps->log);
    fputs("\">log</a>)</figcaption></figure>\n", fp);
}

/* One figure of the experiment: drawn, or why not (a problem, unless its sweep failed). */
static void experiment_figure(FILE *fp, const rp_report *r, const rp_experiment *e,
                              const rp_figure *f, const char *anchor, problem_list *pl)
{
    const rp_step *ps = &f->step;
    if (f->problem) {
        fputs("<p class=\"bad\">Figure not drawn: ", fp);
        esc(fp, f->problem);
        fputs("<br><span class=\"skip\">The spec's line: <code>", fp);
        esc(fp, f->line);
        fputs("</code></span></p>\n", fp);
        add_problem(pl, anchor, "%s: a figure is not drawn: %s", e->name, f->problem);
        return;
    }
    if (!ps->ran) {
        fputs("<p class=\"skip\">Figure ", fp);
        esc(fp, f->file);
        fputs(" not drawn: its sweep failed.</p>\n", fp);
        return;
    }
    if (rp_step_ok(ps) && cli_host_access(r->dir, f->file, R_OK)) {
        figure_drawn(fp, f);
        return;
    }
    char why[64];
    step_failure(why, sizeof why, ps);
    fputs("<p class=\"bad\">Figure ", fp);
    esc(fp, f->file);
    fprintf(fp, " could not be drawn (%s): ", why);
    cmd_code(fp, ps);
    last_message(fp, ps, ": <code>");
    fputs(" (<a href=\"", fp);
    esc(fp, ps->log);
    fputs("\">log</a>)</p>\n", fp);
    add_problem(pl, anchor, "%s: figure %s could not be drawn (%s)", e->name, f->file,
                ps->last ? ps->last : why);
}

/* The '#' lines at the top of the experiment's rows file. */
static void rows_comments(FILE *fp, const rp_report *r, const rp_experiment *e)
{
    char *head = rp_step_ok(&e->sweep) ? cli_host_read_head(r->dir, e->rows, 8192) : NULL;
    if (head && *head == '#') {
        fputs("<pre>", fp);
        for (const char *p = head; p && *p == '#';) {
            size_t l = strcspn(p, "\r\n");
            esc_n(fp, p, l);
            fputc('\n', fp);
            p = strchr(p, '\n');
            p = p ? p + 1 : NULL;
        }
        fputs("</pre>\n", fp);
    }
    free(head);
}

static void write_experiment(FILE *fp, const rp_report *r, const rp_experiment *e,
                             problem_list *pl)
{
    char anchor[200];
    snprintf(anchor, sizeof anchor, "x-%s", e->name);
    fprintf(fp, "<h3 id=\"%s\">", anchor);
    esc(fp, e->name);
    fputs("</h3>\n", fp);
    if (e->about && *e->about) {
        fputs("<p class=\"about\">", fp);
        esc(fp, e->about);
        fputs("</p>\n", fp);
    }
    if (e->problem) {
        fputs("<p class=\"bad\">Not run: ", fp);
        esc(fp, e->problem);
        fputs("</p>\n", fp);
        add_problem(pl, anchor, "%s: not run: %s", e->name, e->problem);
        return;
    }
    experiment_sweep(fp, r, e, anchor, pl);
    if (e->nfigs == 0)
        fputs("<p class=\"skip\">The spec's header names no figure.</p>\n", fp);
    for (size_t j = 0; j < e->nfigs; j++)
        experiment_figure(fp, r, e, &e->figs[j], anchor, pl);
    rows_comments(fp, r, e);
}

/* The full mode's measured CPU time, summed over the experiments. */
typedef struct rp_estimate {
    double total; /* seconds */
    bool all;     /* every experiment's spec records it */
} rp_estimate;

/* The full mode's cells of e's row (quick mode): its runs, from the dry run's log, and its
 * sweep's CPU time as measured, from its spec's "# Full mode:" line. */
static void size_full_cells(FILE *fp, const rp_report *r, const rp_experiment *e,
                            rp_estimate *est)
{
    char t[32];
    char *plan = cli_host_read(r->dir, e->plan.log ? e->plan.log : "", NULL);
    char *fruns = plan && rp_step_ok(&e->plan) ? log_value(plan, "runs") : NULL;
    fputs("<td>", fp);
    if (fruns) {
        esc(fp, fruns);
        fputs(" <a href=\"", fp);
        esc(fp, e->plan.log);
        fputs("\">(runs)</a>", fp);
    } else {
        fputs("-", fp);
    }
    fputs("</td><td class=\"num\">", fp);
    if (isfinite(e->full_cpu)) {
        est->total += e->full_cpu;
        rp_duration(t, sizeof t, e->full_cpu);
        fputs(t, fp);
    } else {
        est->all = false;
        fputs("not measured", fp);
    }
    fputs("</td>", fp);
    free(plan);
    free(fruns);
}

/* e's row of the size table: runs and seeds (from its rows file), the wall times of its sweep
 * and figures, and in quick mode the full mode's. */
static void size_row(FILE *fp, const rp_report *r, const rp_experiment *e, rp_estimate *est)
{
    char t[32];
    char *head = rp_step_ok(&e->sweep) ? cli_host_read_head(r->dir, e->rows, 8192) : NULL;
    char *runs = head ? meta_value(head, "runs") : NULL;
    char *seeds = head ? meta_value(head, "seeds") : NULL;
    if (seeds) { /* "1-4 (every grid point ...)": the list only */
        char *paren = strstr(seeds, " (");
        if (paren)
            *paren = 0;
    }
    fprintf(fp, "<tr><td><a href=\"#x-");
    esc(fp, e->name);
    fputs("\">", fp);
    esc(fp, e->name);
    fputs("</a></td><td>", fp);
    esc(fp, runs ? runs : "-");
    fputs("</td><td>", fp);
    esc(fp, seeds ? seeds : "-");
    fputs("</td><td class=\"num\">", fp);
    if (e->sweep.ran) {
        char c[32];
        rp_duration(t, sizeof t, e->sweep.seconds);
        rp_duration(c, sizeof c, e->sweep.cpu);
        fprintf(fp, "%s (%s)", t, c);
    } else {
        fputs("-", fp);
    }
    double ft = 0;
    for (size_t j = 0; j < e->nfigs; j++)
        ft += e->figs[j].step.seconds;
    rp_duration(t, sizeof t, ft);
    fprintf(fp, "</td><td class=\"num\">%s</td>", t);
    if (r->quick)
        size_full_cells(fp, r, e, est);
    fputs("</tr>\n", fp);
    free(head);
    free(runs);
    free(seeds);
}

/* The heading, what the mode ran, and the table's header. */
static void sizes_intro(FILE *fp, const rp_report *r)
{
    fprintf(fp, "<h2 id=\"sizes\">Sizes and times</h2>\n<p>This report ran the %s mode: %s",
            r->quick ? "quick" : "full",
            r->quick ? "each spec's <code>[quick]</code> section (smaller grids, fewer seeds and "
                       "steps, smaller models)."
                     : "every spec at the sizes it defines.");
    if (r->quick)
        fputs(" The full mode (<code>srlab reproduce</code> without <code>--quick</code>) runs "
              "the sizes below. Its CPU time (user + system over all threads, which other work "
              "on the machine does not stretch) is as measured with srlab 0.1.0 on a 2-core VM, "
              "each sweep's recorded in its spec (<code># Full mode:</code>); on another machine "
              "scale it by this run's CPU time against the quick mode's as measured there. "
              "Measured: quick " RP_QUICK_TIME ", full " RP_FULL_TIME ".",
              fp);
    fputs(" Times in this table are measured: wall time (CPU time).", fp);
    fputs("</p>\n<table id=\"size-table\">\n<tr><th>experiment</th><th>runs (this report)</th>"
          "<th>seeds</th><th>sweep</th><th>figures</th>",
          fp);
    if (r->quick)
        fputs("<th>runs (full mode)</th><th>full sweep (CPU, measured)</th>", fp);
    fputs("</tr>\n", fp);
}

/* The rows of srlab check and of the total. */
static void sizes_totals(FILE *fp, const rp_report *r, const rp_estimate *est)
{
    char t[32];
    if (!r->check_skipped) {
        fputs("<tr><td><a href=\"#checks-section\">srlab check</a></td><td>-</td><td>-</td>"
              "<td class=\"num\">",
              fp);
        rp_duration(t, sizeof t, r->check.seconds);
        fputs(r->check.ran ? t : "-", fp);
        fputs("</td><td></td>", fp);
        if (r->quick) {
            rp_duration(t, sizeof t, RP_CHECK_FULL_CPU);
            fprintf(fp, "<td></td><td class=\"num\">%s</td>", t);
        }
        fputs("</tr>\n", fp);
    }
    char c[32];
    rp_duration(t, sizeof t, r->seconds);
    rp_duration(c, sizeof c, r->cpu);
    fprintf(fp, "<tr><th>total</th><th></th><th></th><th class=\"num\" colspan=\"2\">%s (%s)</th>",
            t, c);
    if (r->quick) {
        rp_duration(t, sizeof t, est->total + (r->check_skipped ? 0 : RP_CHECK_FULL_CPU));
        fprintf(fp, "<th></th><th class=\"num\">%s%s</th>", t,
                est->all ? "" : " + the experiments not measured");
    }
    fputs("</tr>\n</table>\n", fp);
}

static void write_sizes(FILE *fp, const rp_report *r, rp_estimate *est)
{
    est->total = 0;
    est->all = true;
    sizes_intro(fp, r);
    for (size_t i = 0; i < r->nex; i++)
        size_row(fp, r, &r->ex[i], est);
    sizes_totals(fp, r, est);
}

/* One row of the Commands table: number k, the command (and a note after it, or NULL), its
 * status, wall time and log. */
static void command_row(FILE *fp, int k, const rp_step *s, const char *note, bool check)
{
    char t[32];
    fprintf(fp, "<tr><td class=\"num\">%d</td><td>", k);
    cmd_code(fp, s);
    if (note)
        fprintf(fp, " <span class=\"skip\">%s</span>", note);
    fputs("</td><td>", fp);
    status_cell(fp, s, check);
    rp_duration(t, sizeof t, s->seconds);
    fprintf(fp, "</td><td class=\"num\">%s</td><td>", s->ran ? t : "-");
    if (s->ran) {
        fputs("<a href=\"", fp);
        esc(fp, s->log);
        fputs("\">log</a>", fp);
    }
    fputs("</td></tr>\n", fp);
}

static void write_commands(FILE *fp, const rp_report *r)
{
    fputs("<h2 id=\"commands\">Commands</h2>\n<p>Every step, in order, exactly as it ran: the "
          "srlab binary below, with the report folder as the working directory (<code>cd ",
          fp);
    esc(fp, r->dir);
    fputs("</code>, then paste). Each step's standard output and error are in its log.</p>\n"
          "<table>\n<tr><th>#</th><th>command</th><th>status</th><th>wall time</th><th>log</th>"
          "</tr>\n",
          fp);
    int k = 0;
    for (size_t i = 0; i < r->nex; i++) {
        const rp_experiment *e = &r->ex[i];
        if (e->plan.argv)
            command_row(fp, ++k, &e->plan, "(lists the full mode's runs)", false);
        if (e->sweep.argv)
            command_row(fp, ++k, &e->sweep, NULL, false);
        for (size_t j = 0; j < e->nfigs; j++)
            if (e->figs[j].step.argv && !e->figs[j].problem)
                command_row(fp, ++k, &e->figs[j].step, NULL, false);
    }
    if (!r->check_skipped)
        command_row(fp, ++k, &r->check, NULL, true);
    fputs("</table>\n", fp);
}

static void write_machine(FILE *fp, const rp_report *r)
{
    char *cpu = cpu_model(), *mem = mem_total();
    long allowed = cpus_allowed(), online = sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname u;
    bool have_u = uname(&u) == 0;
    const char *omp = getenv("OMP_NUM_THREADS");
    fputs("<h2 id=\"machine\">Machine and versions</h2>\n<table>\n", fp);
    fprintf(fp, "<tr><th>srlab</th><td>%s (", srl_version());
    esc(fp, r->exe);
    fputs(")</td></tr>\n<tr><th>this command</th><td><code>", fp);
    char *line = rp_command(r->argc, r->argv);
    if (line)
        esc(fp, line);
    free(line);
    fputs("</code></td></tr>\n<tr><th>date (UTC)</th><td>", fp);
    esc(fp, r->date);
    fputs("</td></tr>\n<tr><th>CPU</th><td>", fp);
    esc(fp, cpu ? cpu : "unknown");
    fprintf(fp, "</td></tr>\n<tr><th>cores</th><td>%ld available to srlab (nproc), %ld online",
            allowed > 0 ? allowed : online, online);
    if (omp && *omp) {
        fputs("; OMP_NUM_THREADS=", fp);
        esc(fp, omp);
    }
    fputs("</td></tr>\n", fp);
    if (mem) {
        fputs("<tr><th>memory</th><td>", fp);
        esc(fp, mem);
        fputs("</td></tr>\n", fp);
    }
    char *load = cli_host_read("/proc", "loadavg", NULL);
    if (load) { /* other work on the machine stretches every wall time above */
        int n = 0;
        for (int sp = 0; load[n] && sp < 3; n++)
            sp += load[n] == ' ';
        fputs("<tr><th>load average</th><td>", fp);
        esc_n(fp, load, n ? (size_t)n - 1 : 0);
        fputs(" (1, 5, 15 min, when the report was written: more than the cores means other work "
              "shared them and stretched the wall times)</td></tr>\n",
              fp);
        free(load);
    }
    if (have_u) {
        fputs("<tr><th>system</th><td>", fp);
        esc(fp, u.sysname);
        fputc(' ', fp);
        esc(fp, u.release);
        fputc(' ', fp);
        esc(fp, u.machine);
        fputs("</td></tr>\n", fp);
    }
    fputs("<tr><th>experiments</th><td>", fp);
    esc(fp, r->experiments);
    fputs(" (copied into <code>specs/</code>)</td></tr>\n<tr><th>plot scripts</th><td>", fp);
    esc(fp, r->plots);
    fputs("</td></tr>\n<tr><th>seeds</th><td>each experiment's seeds are in its rows file's "
          "<code># seeds:</code> line (shown with it and in the size table); a run's random "
          "streams derive from its seed, so every number here is reproducible bit for bit"
          "</td></tr>\n</table>\n",
          fp);
    free(cpu);
    free(mem);
}

/* Everything under the summary, written to memory first: the summary at the top lists the
 * problems found while writing the sections. body is malloc'd; -1 when out of memory. */
static int write_body(const rp_report *r, problem_list *pl, rp_estimate *est, char **body,
                      size_t *blen)
{
    FILE *b = open_memstream(body, blen);
    if (!b)
        return -1;
    write_checks(b, r, pl);
    fputs("<h2 id=\"experiments\">Experiments and figures</h2>\n<p>One section per spec of "
          "<code>experiments/</code>: what it tests (its header), its figures, its data. The "
          "'#' lines of each rows file give the srlab version, the canonical command, the "
          "seeds and the number of runs.</p>\n",
          b);
    for (size_t i = 0; i < r->nex; i++)
        write_experiment(b, r, &r->ex[i], pl);
    write_sizes(b, r, est);
    write_commands(b, r);
    write_machine(b, r);
    if (fclose(b) != 0) {
        free(*body);
        *body = NULL;
        return -1;
    }
    return 0;
}

/* The page's head, up to the title line: srlab's version, the mode, the date, the wall time. */
static void write_head(FILE *fp, const rp_report *r)
{
    char t[32];
    rp_duration(t, sizeof t, r->seconds);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>srlab report</title>\n<style>\n",
          fp);
    fputs(css, fp);
    fputs("</style>\n</head>\n<body>\n<h1>srlab: rounding theory, reproduced</h1>\n", fp);
    fprintf(fp, "<p>srlab %s &middot; %s mode &middot; ", srl_version(),
            r->quick ? "quick (<code>--quick</code>)" : "full");
    esc(fp, r->date);
    char c[32];
    rp_duration(c, sizeof c, r->cpu);
    fprintf(fp, " &middot; wall time %s &middot; CPU time %s (measured)</p>\n", t, c);
}

/* The summary box: what ran, and every problem with a link to its section. */
static void write_summary(FILE *fp, const rp_report *r, const problem_list *pl,
                          const rp_estimate *est)
{
    size_t nfig = 0, ndrawn = 0;
    for (size_t i = 0; i < r->nex; i++)
        for (size_t j = 0; j < r->ex[i].nfigs; j++) {
            nfig++;
            ndrawn += rp_step_ok(&r->ex[i].figs[j].step);
        }
    fprintf(fp, "<div class=\"box%s\" id=\"summary\"><p>", pl->count ? " bad" : "");
    fprintf(fp, "%zu experiment%s run, %zu of %zu figures drawn, ", r->nex, r->nex == 1 ? "" : "s",
            ndrawn, nfig);
    if (r->check_skipped)
        fputs("checks skipped.", fp);
    else
        fputs("srlab check run.", fp);
    if (!pl->count) {
        fputs(r->check_skipped
                  ? " <span class=\"ok\">Every experiment and figure was reproduced</span> (no "
                    "checks were run).</p>"
                  : " <span class=\"ok\">Everything was reproduced and every check "
                    "passed.</span></p>",
              fp);
    } else {
        fprintf(fp, " <span class=\"bad\">%zu problem%s:</span></p>\n<ul>\n", pl->count,
                pl->count == 1 ? "" : "s");
        for (size_t i = 0; i < pl->n; i++) {
            fputs("<li><a href=\"#", fp);
            esc(fp, pl->anchor[i]);
            fputs("\">", fp);
            esc(fp, pl->text[i]);
            fputs("</a></li>\n", fp);
        }
        fputs("</ul>", fp);
    }
    if (r->quick && est->total > 0) {
        char t[32], q[32], m[32];
        rp_duration(t, sizeof t, est->total + (r->check_skipped ? 0 : RP_CHECK_FULL_CPU));
        rp_duration(q, sizeof q, r->cpu);
        rp_duration(m, sizeof m, RP_QUICK_CPU);
        fprintf(fp, "<p>The full mode of these experiments%s took %s of CPU time as measured "
                    "with srlab 0.1.0%s, when the whole quick mode took %s; this quick run took "
                    "%s (<a href=\"#sizes\">sizes and time</a>).</p>",
                r->check_skipped ? "" : " and srlab check", t,
                est->all ? "" : " (plus the experiments not measured)", m, q);
    }
    fputs("</div>\n", fp);
}

/* The table of contents. */
static void write_nav(FILE *fp, const rp_report *r)
{
    fputs("<nav><ul>\n<li><a href=\"#checks-section\">Checks</a></li>\n", fp);
    for (size_t i = 0; i < r->nex; i++) {
        fputs("<li><a href=\"#x-", fp);
        esc(fp, r->ex[i].name);
        fputs("\">", fp);
        esc(fp, r->ex[i].name);
        fputs("</a></li>\n", fp);
    }
    fputs("<li><a href=\"#sizes\">Sizes and wall time</a></li>\n"
          "<li><a href=\"#commands\">Commands</a></li>\n"
          "<li><a href=\"#machine\">Machine and versions</a></li>\n</ul></nav>\n",
          fp);
}

int rp_report_write(FILE *fp, const rp_report *r, size_t *problems)
{
    problem_list pl;
    memset(&pl, 0, sizeof pl);
    rp_estimate est;
    char *body = NULL;
    size_t blen = 0;
    if (write_body(r, &pl, &est, &body, &blen)) {
        problems_free(&pl);
        return -1;
    }
    write_head(fp, r);
    write_summary(fp, r, &pl, &est);
    write_nav(fp, r);
    fwrite(body, 1, blen, fp);
    free(body);
    fputs(img_script, fp);
    fputs("</body>\n</html>\n", fp);
    *problems = pl.count;
    problems_free(&pl);
    return 0;
}
