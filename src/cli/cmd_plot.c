/* src/cli/cmd_plot.c: `srlab plot NAME --in CSV [-o FILE] [--set VAR=VALUE]...` (docs/design.md §13).
 *
 * Runs gnuplot on plots/NAME.gp with in='CSV', out='FILE' and fmt (png, svg or pdf from FILE's
 * extension), the same as `gnuplot -e "in='CSV'; out='FILE'" plots/NAME.gp`. The scripts are
 * found in $SRLAB_PLOTS if set, else in the source tree this srlab was built from, else in the
 * installed data directory (meson's datadir/srlab/plots). gnuplot writes to a temporary file
 * beside FILE that is renamed over it only when gnuplot succeeded and the file is not empty. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "cli/sweep_cli.h" /* cli_read_file */

#define CMD "plot"

static const char help_text[] =
    "usage: srlab plot NAME --in CSV [-o FILE.png|.svg|.pdf] [--set VAR=VALUE]...\n"
    "\n"
    "Draw a figure from srlab's CSV files with gnuplot (plots/NAME.gp; Debian package\n"
    "gnuplot-nox). The same as: gnuplot -e \"in='CSV'; out='FILE'\" plots/NAME.gp\n"
    "\n"
    "figures:\n"
    "  loss_vs_step  loss gap against step, a curve per strategy (mean over seeds, band from\n"
    "                the smallest to the largest seed), log scale      --in rows CSV\n"
    "  lr_sweep      final loss gap against learning rate per strategy, mean and 95%\n"
    "                confidence interval over seeds, log-log            --in summary CSV\n"
    "  stall         final distance to the optimum against learning rate, with the RN stall\n"
    "                line ulp(x*)/(2 lr a) (theory T05)                 --in summary CSV\n"
    "  sum_error     summation relative error against n per rounding, with the n u and\n"
    "                sqrt(n) u lines (theory T03)                        --in rows CSV\n"
    "  gpt_lr        final validation gap against learning rate per strategy, mean +-\n"
    "                standard error and every seed                      --in summary CSV\n"
    "  gpt_curves    validation gap against step, each strategy at its best learning\n"
    "                rate                                               --in rows CSV\n"
    "  gpt_replicas  distance between data-parallel replicas, shared against independent\n"
    "                SR streams (theory T12)                            --in rows CSV\n"
    "(and any other plots/NAME.gp)\n"
    "\n"
    "options:\n"
    "  --in CSV           the data (the rows or the summary file of srlab sweep)\n"
    "  -o, --output FILE  the figure: .png, .svg or .pdf (default NAME.png)\n"
    "  --set VAR=VALUE    a variable of the script, e.g. --set by=strategy,rounding,\n"
    "                     --set 'where=lr=0.01 format=bf16', --set ycol=dist_to_opt\n"
    "                     (each script's header lists its variables)\n"
    "\n"
    "Every grid axis that varies in the data gets a curve per value (or is the x axis): by\n"
    "default a figure separates them all; with --set by=COLS an axis that would be averaged\n"
    "within a curve is refused by name (add it to by, or keep one value with where). The\n"
    "footnote says how many seeds each point averages.\n"
    "  SRLAB_PLOTS=DIR    take the scripts from DIR\n"
    "\n"
    "examples:\n"
    "  srlab sweep experiments/lr_sweep.ini --quick -o lr.csv\n"
    "  srlab plot lr_sweep --in lr.summary.csv -o lr.png\n"
    "  srlab plot loss_vs_step --in lr.csv -o loss.pdf --set 'where=lr=0.01'\n";

/* "a, b, c": the figures of dir (plots/NAME.gp), for a message; "" when there are none. */
static void list_plots(const char *dir, char *out, size_t len)
{
    char **names;
    size_t n;
    out[0] = 0;
    if (cli_host_list(dir, ".gp", &names, &n))
        return;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (used + strlen(names[i]) + 3 < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", names[i]);
    cli_host_names_free(names, n);
}

/* Does the comma-separated header line `hdr` have the column `col`? A `col` of the form *SUFFIX
 * asks for any column whose name ends in SUFFIX. */
static bool has_column(const char *hdr, const char *col)
{
    const bool any = col[0] == '*';
    const char *want = any ? col + 1 : col;
    const size_t n = strlen(want);
    for (const char *c = hdr; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL) {
        const size_t len = strcspn(c, ",");
        if (any ? len >= n && !strncmp(c + len - n, want, n) : len == n && !strncmp(c, want, n))
            return true;
    }
    return false;
}

/* The names of a script's "# needs:" line into needs[512] ("" without one); the names end
 * where the explanation starts. */
static void script_needs(const char *script, char *needs)
{
    char *text;
    size_t len;
    needs[0] = '\0';
    if (cli_read_file(script, &text, &len) != 0)
        return;
    for (const char *l = text; *l == '#'; l += strcspn(l, "\n"), l += *l == '\n')
        if (!strncmp(l, "# needs:", 8)) {
            snprintf(needs, 512, "%.*s", (int)strcspn(l + 8, "(\n"), l + 8);
            break;
        }
    free(text);
}

/* Field k (from 0) of the CSV line [s, e) into [*b, *fe) (quotes kept); false if the line is
 * shorter. */
static bool csv_field(const char *s, const char *e, size_t k, const char **b, const char **fe)
{
    for (size_t i = 0;; i++) {
        const char *c = s;
        for (bool quoted = false; c < e && (quoted || *c != ','); c++)
            if (*c == '"')
                quoted = !quoted;
        if (i == k) {
            *b = s;
            *fe = c;
            return true;
        }
        if (c >= e)
            return false;
        s = c + 1;
    }
}

/* Issue 12, item 13: gnuplot draws an empty figure, and exits 0, when a plotted column holds no
 * number. Every column the script plots as a number -- the names of its "# needs:" line (not
 * *SUFFIX ones, nor NAME:text), and the columns --set xcol=/ycol= name -- must hold at least one
 * finite number in the data rows of --in; else refuse, naming the column. Returns 0, or the exit
 * status of the error printed (a file that cannot be read is left to gnuplot's message). */
static int check_numbers(const char *script, const char *in, const char *const *sets, size_t nsets)
{
    char q[CLI_QUOTE_LEN], needs[512], cols[1024];
    script_needs(script, needs);
    size_t used = (size_t)snprintf(cols, sizeof cols, "%s", needs);
    for (size_t i = 0; i < nsets; i++)
        if ((!strncmp(sets[i], "ycol=", 5) || !strncmp(sets[i], "xcol=", 5)) && used < sizeof cols)
            used += (size_t)snprintf(cols + used, sizeof cols - used, " %s", sets[i] + 5);
    char *data;
    size_t len;
    if (cli_read_file(in, &data, &len))
        return 0;
    const char *end = data + len, *hdr = NULL, *line = data, *hdr_end = NULL;
    int rc = 0;
    while (line < end && !hdr) { /* the header: the first line not starting with '#' */
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *e = nl ? nl : end;
        if (*line != '#')
            hdr = line, hdr_end = e;
        line = nl ? nl + 1 : end;
    }
    for (char *save = NULL, *col = strtok_r(cols, " \t\r\n", &save); hdr && !rc && col;
         col = strtok_r(NULL, " \t\r\n", &save)) {
        if (col[0] == '*' || strchr(col, ':'))
            continue;
        size_t k = 0, n = strlen(col);
        const char *b, *fe;
        while (csv_field(hdr, hdr_end, k, &b, &fe) &&
               !((size_t)(fe - b) - (fe > b && fe[-1] == '\r') == n && !strncmp(b, col, n)))
            k++;
        if (!csv_field(hdr, hdr_end, k, &b, &fe))
            continue; /* not a column of this file: check_columns or gnuplot says so */
        bool found = false;
        for (const char *l = line; l < end && !found;) {
            const char *nl = memchr(l, '\n', (size_t)(end - l));
            const char *e = nl ? nl : end;
            if (*l != '#' && csv_field(l, e, k, &b, &fe) && fe > b && fe - b < 64) {
                char num[64], *stop;
                snprintf(num, sizeof num, "%.*s", (int)(fe - b), b);
                num[strcspn(num, "\r")] = '\0';
                double v = strtod(num, &stop);
                found = stop != num && !*stop && isfinite(v);
            }
            l = nl ? nl + 1 : end;
        }
        if (!found)
            rc = cli_error(CMD, "--in %s: column '%s' holds no finite number (every value is nan, "
                           "inf, text or empty): nothing to plot",
                           cli_quote(q, sizeof q, in, strlen(in), 200), col);
    }
    free(data);
    return rc;
}

/* A script names the columns it cannot do without in a "# needs: a b c" line of its header (a
 * summary file has seeds, a runs file last_step, a rows file step). Check them against the CSV's header before
 * gnuplot runs, since gnuplot only warns about a missing column and draws an empty figure.
 * Returns 0, or the exit status of the error it printed. */
static int check_columns(const char *script, const char *name, const char *in, const char *hdr)
{
    char q[CLI_QUOTE_LEN], needs[512];
    script_needs(script, needs);
    if (!needs[0])
        return 0;
    for (char *save = NULL, *col = strtok_r(needs, " \t\r\n", &save); col;
         col = strtok_r(NULL, " \t\r\n", &save)) {
        col[strcspn(col, ":")] = '\0'; /* "format:text" */
        if (has_column(hdr, col))
            continue;
        const char *hint = "";
        const bool stats = has_column(hdr, "*_mean");
        if (!stats && has_column(hdr, "step"))
            hint = ": this is a rows file, and the figure reads the summary file of the sweep "
                   "(NAME.summary.csv)";
        else if (!stats && has_column(hdr, "last_step"))
            hint = ": this is the runs file, and the figure reads the summary file of the sweep "
                   "(NAME.summary.csv)";
        else if (stats && (!strcmp(col, "step") || !strcmp(col, "run") || !strcmp(col, "k")))
            hint = ": this is a summary file, and the figure reads the rows file of the sweep "
                   "(NAME.csv)";
        if (col[0] == '*')
            return cli_error(CMD, "--in %s has no statistics columns (METRIC%s), which the figure "
                             "%s needs%s", cli_quote(q, sizeof q, in, strlen(in), 200), col + 1,
                             name, hint);
        return cli_error(CMD, "--in %s has no column '%s', which the figure %s needs%s",
                         cli_quote(q, sizeof q, in, strlen(in), 200), col, name, hint);
    }
    return 0;
}

/* ---- the command line ---- */

typedef struct plot_args {
    const char *name; /* the figure, plots/NAME.gp */
    const char *in;   /* --in CSV */
    const char *out;  /* -o FILE, or NULL */
    const char **sets; /* --set VAR=VALUE, in order */
    size_t nsets;
} plot_args;

/* Returns 0, CLI_ARGS_HELP, or an exit status after a message. */
static int parse_args(plot_args *p, int argc, char **argv)
{
    enum { O_IN, O_OUTPUT, O_SET };
    static const cli_opt opts[] = {[O_IN] = {"in", 0, "CSV"},
                                   [O_OUTPUT] = {"output", 'o', "FILE"},
                                   [O_SET] = {"set", 0, "VAR=VALUE..."},
                                   {NULL, 0, NULL}};
    char q[CLI_QUOTE_LEN];
    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        switch (k) {
        case CLI_ARGS_HELP: return CLI_ARGS_HELP;
        case CLI_ARGS_BAD: return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (p->name)
                return cli_error(CMD, "one figure at a time: %s after '%s'",
                                 cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX),
                                 p->name);
            p->name = a.val;
            break;
        case O_IN:
            if (p->in)
                return cli_error(CMD, "--in is given twice");
            p->in = a.val;
            break;
        case O_OUTPUT:
            if (p->out)
                return cli_error(CMD, "%s is given twice", a.opt);
            p->out = a.val;
            break;
        default: p->sets[p->nsets++] = a.val; break;
        }
    }
    return 0;
}

/* The --set variables that name columns of --in, checked against its header line hdr before
 * gnuplot runs, which would otherwise stop on an internal error: by=COL,COL..., xcol=COL,
 * ycol=METRIC (a column, or METRIC_mean in a summary file), where=COL=VALUE COL=VALUE...
 * Returns 0, or the exit status of the error it printed. */
static int check_sets(const plot_args *p, const char *hdr)
{
    char q[CLI_QUOTE_LEN], col[256];
    for (size_t i = 0; i < p->nsets; i++) {
        const char *set = p->sets[i], *val = strchr(set, '=');
        if (!val)
            continue; /* refused later, with its own message */
        val++;
        const size_t vlen = (size_t)(val - 1 - set);
        const bool by = vlen == 2 && !strncmp(set, "by", 2);
        const bool where = vlen == 5 && !strncmp(set, "where", 5);
        const bool xcol = vlen == 4 && !strncmp(set, "xcol", 4);
        const bool ycol = vlen == 4 && !strncmp(set, "ycol", 4);
        if (!by && !where && !xcol && !ycol)
            continue;
        const char *sep = by ? "," : where ? " \t" : "";
        for (const char *c = val; *c;) {
            size_t n = strcspn(c, sep);
            size_t name = where ? strcspn(c, "=") : n;
            if (name > n)
                name = n;
            if (n && name) {
                snprintf(col, sizeof col, "%.*s", (int)(name < 200 ? name : 200), c);
                char mean[300];
                snprintf(mean, sizeof mean, "%s_mean", col);
                if (!has_column(hdr, col) && !(ycol && has_column(hdr, mean)))
                    return cli_error(CMD, "--set %.*s: --in %s has no column %s%s", (int)vlen,
                                     set, cli_quote(q, sizeof q, p->in, strlen(p->in), 200),
                                     cli_quote(mean, sizeof mean, col, strlen(col), CLI_QUOTE_MAX),
                                     ycol ? " (nor METRIC_mean)" : "");
            }
            c += n;
            c += strspn(c, sep);
        }
    }
    return 0;
}

/* The script of the figure p->name, plots/NAME.gp (malloc'd into *script). */
static int find_script(const plot_args *p, char **script)
{
    char q[CLI_QUOTE_LEN];
    if (!p->name)
        return cli_error(CMD, "which figure? srlab plot NAME --in CSV (see srlab plot --help)");
    for (const char *c = p->name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
            return cli_error(CMD, "%s is not a figure name (letters, digits, _ and -)",
                             cli_quote(q, sizeof q, p->name, strlen(p->name), CLI_QUOTE_MAX));
    const char *dir = cli_host_plots_dir();
    if (!(*script = cli_alloc_printf("%s/%s.gp", dir, p->name)))
        return cli_sys_error(CMD, "out of memory");
    if (access(*script, R_OK) != 0) {
        char known[512];
        list_plots(dir, known, sizeof known);
        return cli_error(CMD, "unknown figure %s (in %s: %s)",
                         cli_quote(q, sizeof q, p->name, strlen(p->name), CLI_QUOTE_MAX), dir,
                         known[0] ? known : "no scripts; set SRLAB_PLOTS=DIR");
    }
    return 0;
}

/* The data, the figure file (*fmt: its extension) and the --set variables, checked before
 * gnuplot runs. */
static int check_inputs(const plot_args *p, const char *script, const char **fmt)
{
    char q[CLI_QUOTE_LEN];
    if (!p->in)
        return cli_error(CMD, "no data: --in CSV");
    char *data;
    size_t len;
    int rc = cli_read_file(p->in, &data, &len);
    if (rc)
        return cli_error(CMD, "--in: cannot read %s: %s",
                         cli_quote(q, sizeof q, p->in, strlen(p->in), 200), cli_read_strerror(rc));
    char hdr[8192] = ""; /* the first line that is no '#' comment (the reader drops a BOM) */
    for (const char *l = data; *l; l += strcspn(l, "\n"), l += *l == '\n')
        if (*l != '#') {
            snprintf(hdr, sizeof hdr, "%.*s", (int)strcspn(l, "\r\n"), l);
            break;
        }
    free(data);
    rc = check_columns(script, p->name, p->in, hdr);
    if (!rc)
        rc = check_sets(p, hdr);
    if (!rc)
        rc = check_numbers(script, p->in, p->sets, p->nsets);
    if (rc)
        return rc;
    const char *dot = strrchr(p->out, '.');
    *fmt = dot ? dot + 1 : "";
    if (strcmp(*fmt, "png") && strcmp(*fmt, "svg") && strcmp(*fmt, "pdf"))
        return cli_error(CMD, "-o: %s: the figure must end in .png, .svg or .pdf",
                         cli_quote(q, sizeof q, p->out, strlen(p->out), 200));
    for (size_t i = 0; i < p->nsets; i++) {
        const char *set = p->sets[i], *eq = strchr(set, '=');
        bool ok = eq && eq > set && (isalpha((unsigned char)set[0]) || set[0] == '_');
        for (const char *c = set; ok && c < eq; c++)
            ok = isalnum((unsigned char)*c) || *c == '_';
        if (!ok || !strncmp(set, "in=", 3) || !strncmp(set, "out=", 4) ||
            !strncmp(set, "fmt=", 4))
            return cli_error(CMD, "--set: %s is not VAR=VALUE with a variable of the script (in, "
                             "out and fmt come from --in and -o)",
                             cli_quote(q, sizeof q, set, strlen(set), CLI_QUOTE_MAX));
    }
    if (!cli_host_has_program("gnuplot"))
        return cli_error(CMD, "gnuplot is not installed: install Debian's gnuplot-nox "
                         "(apt-get install gnuplot-nox)");
    return 0;
}

/* ---- gnuplot ---- */

void cli_gp_quote(FILE *m, const char *s)
{
    fputc('\'', m);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', m);
        fputc(*s, m);
    }
    fputc('\'', m);
}

/* in='...'; out='...'; fmt='png'; VAR=VALUE... (numbers as numbers, other text quoted), malloc'd;
 * NULL when out of memory. */
static char *gp_expression(const plot_args *p, const char *tmp, const char *fmt)
{
    char *expr = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&expr, &len);
    if (!m)
        return NULL;
    fputs("in=", m);
    cli_gp_quote(m, p->in);
    fputs("; out=", m);
    cli_gp_quote(m, tmp);
    fputs("; fmt=", m);
    cli_gp_quote(m, fmt);
    for (size_t i = 0; i < p->nsets; i++) {
        const char *eq = strchr(p->sets[i], '=');
        fprintf(m, "; %.*s=", (int)(eq - p->sets[i]), p->sets[i]);
        char *end;
        errno = 0;
        (void)strtod(eq + 1, &end);
        if (eq[1] && !*end && !errno && !isspace((unsigned char)eq[1]))
            fputs(eq + 1, m);
        else
            cli_gp_quote(m, eq + 1);
    }
    if (fclose(m) != 0) {
        free(expr);
        return NULL;
    }
    return expr;
}

/* gnuplot -e EXPR SCRIPT, drawing into the file tmp; 0 when it drew something. */
static int run_gnuplot(const plot_args *p, const char *script, const char *tmp, const char *fmt)
{
    char q[CLI_QUOTE_LEN];
    char *expr = gp_expression(p, tmp, fmt);
    if (!expr)
        return cli_sys_error(CMD, "out of memory");
    char *args[] = {"gnuplot", "-e", expr, (char *)script, NULL};
    const cli_host_child child = {"gnuplot", true, args, NULL, -1, false, NULL, NULL};
    pid_t pid;
    cli_host_exit e;
    int err = cli_host_spawn(&child, &pid), rc = 0;
    if (err)
        rc = cli_sys_error(CMD, "cannot start gnuplot: %s", strerror(err));
    else if ((err = cli_host_wait(pid, &e)))
        rc = cli_sys_error(CMD, "waiting for gnuplot: %s", strerror(err));
    free(expr);
    if (rc)
        return rc;
    if (e.signal)
        return cli_sys_error(CMD, "gnuplot was killed by signal %d", e.signal);
    if (e.status != 0)
        return cli_error(CMD, "gnuplot could not draw %s from %s (its message is above)", p->name,
                         cli_quote(q, sizeof q, p->in, strlen(p->in), 200));
    struct stat sb;
    if (stat(tmp, &sb) != 0 || sb.st_size == 0)
        return cli_error(CMD, "gnuplot drew nothing for %s from %s", p->name,
                         cli_quote(q, sizeof q, p->in, strlen(p->in), 200));
    return 0;
}

/* A figure for standard output, a character device or a FIFO (an output with no temporary file
 * beside it, src/cli/cli.h): gnuplot draws into a temporary file of its own ($TMPDIR, else
 * /tmp), which is copied into the output's buffer and removed. */
static int draw_through(const plot_args *p, const char *script, cli_out *o, const char *fmt)
{
    const char *dir = getenv("TMPDIR");
    char *tmp = cli_alloc_printf("%s/.srlab-plot-XXXXXX", dir && *dir ? dir : "/tmp");
    if (!tmp)
        return cli_sys_error(CMD, "out of memory");
    int fd = mkstemp(tmp), rc = 0;
    if (fd < 0) {
        rc = cli_sys_error(CMD, "cannot create a temporary file %s: %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    rc = run_gnuplot(p, script, tmp, fmt);
    char buf[1 << 15];
    for (ssize_t k; !rc && (k = read(fd, buf, sizeof buf)) != 0;) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || fwrite(buf, 1, (size_t)k, o->fp) != (size_t)k)
            rc = cli_sys_error(CMD, "cannot copy the figure from %s: %s", tmp, strerror(errno));
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return rc;
}

/* ---- the command ---- */

int cmd_plot(int argc, char **argv)
{
    plot_args p = {NULL, NULL, NULL, calloc((size_t)argc + 1, sizeof *p.sets), 0};
    if (!p.sets)
        return cli_sys_error(CMD, "out of memory");
    char *script = NULL, *dflt = NULL;
    const char *fmt = NULL;
    cli_out o;
    memset(&o, 0, sizeof o);
    o.slot = -1;
    int rc = parse_args(&p, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        free(p.sets);
        return cli_help(help_text);
    }
    if (!rc)
        rc = find_script(&p, &script);
    if (!rc && !p.out && !(p.out = dflt = cli_alloc_printf("%s.png", p.name)))
        rc = cli_sys_error(CMD, "out of memory"); /* the default figure file, NAME.png */
    if (!rc)
        rc = check_inputs(&p, script, &fmt);
    if (!rc)
        rc = cli_out_open(&o, CMD, "-o", p.out);
    if (!rc && o.tmp)
        rc = run_gnuplot(&p, script, o.tmp, fmt);
    else if (!rc)
        rc = draw_through(&p, script, &o, fmt);
    if (!rc)
        rc = cli_out_commit(&o);
    cli_out_abort(&o);
    free(script);
    free(dflt);
    free(p.sets);
    return rc;
}
