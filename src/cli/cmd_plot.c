/* src/cli/cmd_plot.c: `srlab plot NAME --in CSV [-o FILE] [--set VAR=VALUE]...` (docs/design.md §13).
 *
 * Draws plots/NAME.gp with gnuplot. The scripts are found in $SRLAB_PLOTS if set, else in the
 * source tree this srlab was built from, else in the installed data directory (meson's
 * datadir/srlab/plots). Before gnuplot runs, everything is checked: the figure's name, the
 * columns its "# needs:" line names (they exist and hold numbers), and each --set against the
 * variable the script declares (src/cli/figure.h): unknown variables and values not of their type
 * are refused, exit 2, naming the --set. gnuplot then runs in a private folder (src/cli/gnuplot.h)
 * on copies of the scripts and the data under fixed names, with every value written as a number
 * or a checked string literal, and draws into a fixed name there; the drawing is checked and
 * copied into FILE through the atomic output (cli_out). docs/security.md states the rule. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/figure.h"
#include "cli/gnuplot.h"
#include "cli/host.h"
#include "cli/set.h"

#define CMD "plot"

static const char help_text[] =
    "usage: srlab plot NAME --in CSV [-o FILE.png|.svg|.pdf] [--set VAR=VALUE]...\n"
    "\n"
    "Draw a figure from srlab's CSV files with gnuplot (plots/NAME.gp; Debian package\n"
    "gnuplot-nox). gnuplot runs in a private folder on copies of the scripts and the data, and\n"
    "gets every --set value as a number or a checked string (docs/security.md).\n"
    "\n"
    "figures:\n"
    "  loss_vs_step  loss gap against step, a curve per strategy (mean over seeds, band from\n"
    "                the smallest to the largest seed), log scale      --in rows CSV\n"
    "  lr_sweep      final loss gap against learning rate per strategy, mean and 95%\n"
    "                confidence interval over seeds, log-log            --in summary CSV\n"
    "  steps_to_target  the fraction of runs reaching --target's loss gap, and the\n"
    "                Kaplan-Meier median step, against learning rate    --in summary CSV\n"
    "  stall         final distance to the optimum against learning rate, with RN's\n"
    "                s/(2 lr a), s the spacing where it stops (T05)     --in summary CSV\n"
    "  srrn          mean loss gap of noisy SGD against learning rate, with the model's exact,\n"
    "                RN and SR curves (theory T14)                      --in summary CSV\n"
    "  heat          RMS error of the heat equation against the time step, with theory T15's\n"
    "                lines                                              --in summary CSV\n"
    "  sum_error     summation relative error against n per rounding, with the n u and\n"
    "                sqrt(n) u lines (theory T03)                        --in rows CSV\n"
    "  gpt_lr        final validation gap against learning rate per strategy, mean +-\n"
    "                standard error and every seed                      --in summary CSV\n"
    "  gpt_curves    validation gap against step, each strategy at its best learning\n"
    "                rate                                               --in rows CSV\n"
    "  gpt_replicas  distance between data-parallel replicas, shared against independent\n"
    "                SR streams (theory T12)                            --in rows CSV\n"
    "  mx_gemm       final validation gap per block-scaled GEMM recipe (mx) and strategy,\n"
    "                and each recipe's paired difference from off       --in summary CSV\n"
    "(and any other plots/NAME.gp)\n"
    "\n"
    "options:\n"
    "  --in CSV           the data (the rows or the summary file of srlab sweep)\n"
    "  -o, --output FILE  the figure: .png, .svg or .pdf (default NAME.png); - or /dev/stdout:\n"
    "                     a PNG on standard output\n"
    "  --set VAR=VALUE    a variable the script declares, of its type (below), e.g.\n"
    "                     --set by=strategy,rounding, --set 'where=lr=0.01 format=bf16',\n"
    "                     --set ycol=dist_to_opt; each at most once\n"
    "\n"
    "Every grid axis that varies in the data gets a curve per value (or is the x axis): by\n"
    "default a figure separates them all; with --set by=COLS an axis that would be averaged\n"
    "within a curve is refused by name (add it to by, or keep one value with where). The\n"
    "footnote says how many seeds each point averages.\n"
    "  SRLAB_PLOTS=DIR    take the scripts from DIR\n"
    "\n"
    "examples:\n"
    "  srlab sweep noisy_sgd --quick -o lr.csv\n"
    "  srlab plot lr_sweep --in lr.summary.csv -o lr.png\n"
    "  srlab plot loss_vs_step --in lr.csv -o loss.pdf --set 'where=strategy=bf16-sr'\n";

/* ---- help: the variables, from the scripts' declarations ---- */

/* "  NAME=TYPE NAME=TYPE ..." of the figure at path, wrapped under `indent` columns. */
static void print_vars(FILE *o, const cli_fig *f, size_t indent)
{
    size_t col = indent;
    for (size_t i = 0; i < f->nvars; i++) {
        const size_t w = strlen(f->vars[i].name) + 1 + strlen(cli_fig_type_name(f->vars[i].type));
        if (i && col + 1 + w > 90) {
            fprintf(o, "\n%*s", (int)indent, "");
            col = indent;
        } else if (i) {
            fputc(' ', o);
            col++;
        }
        fprintf(o, "%s=%s", f->vars[i].name, cli_fig_type_name(f->vars[i].type));
        col += w;
    }
    fputc('\n', o);
}

/* text, its words wrapped at 90 columns; the first line starts at column `col`, the next ones at
 * `indent`. */
static void print_wrapped(FILE *o, const char *text, size_t col, size_t indent)
{
    bool first = true;
    for (const char *w = text + strspn(text, " "); *w; w += strspn(w, " "), first = false) {
        const size_t n = strcspn(w, " ");
        if (!first && col + 1 + n > 90) {
            fprintf(o, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', o);
            col++;
        }
        fwrite(w, 1, n, o);
        col += n;
        w += n;
    }
    fputc('\n', o);
}

static void print_types(FILE *o)
{
    fputs("\ntypes of --set values:\n"
          "  each value is checked, then given to gnuplot as a number or a quoted string; a file\n"
          "  is read or written by srlab, never opened by gnuplot\n", o);
    for (int t = 0; t < CLI_FIG_NTYPES; t++) {
        fprintf(o, "  %-8s ", cli_fig_type_name((cli_fig_type)t));
        print_wrapped(o, cli_fig_type_help((cli_fig_type)t), 11, 11);
    }
}

/* A figure's name: a letter or digit, then letters, digits, '_' and '-' (never an option of
 * gnuplot, never a path). */
static bool figure_name_ok(const char *name)
{
    bool ok = isalnum((unsigned char)name[0]) && strlen(name) <= 60;
    for (const char *c = name; ok && *c; c++)
        ok = isalnum((unsigned char)*c) || *c == '_' || *c == '-';
    return ok;
}

/* srlab plot --help: the text above, then each script's variables; with a figure named, its
 * variables in full. */
static int plot_help(const char *name)
{
    const char *dir = cli_host_plots_dir();
    char why[CLI_FIG_WHY_LEN];
    cli_fig f;
    if (name) {
        char q[CLI_QUOTE_LEN], *path = figure_name_ok(name) ? cli_host_path(dir, name) : NULL;
        char *gp = path ? cli_alloc_printf("%s.gp", path) : NULL;
        int bad = !gp || cli_fig_read(&f, gp, why);
        free(path), free(gp);
        if (bad)
            return cli_error(CMD, "no figure %s in %s (srlab plot --help lists them)",
                             cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX), dir);
        printf("usage: srlab plot %s --in CSV [-o FILE.png|.svg|.pdf] [--set VAR=VALUE]...\n\n"
               "the variables of %s (plots/%s.gp):\n", name, name, name);
        for (size_t i = 0; i < f.nvars; i++) {
            printf("  --set %s=%s\n      ", f.vars[i].name, cli_fig_type_name(f.vars[i].type));
            print_wrapped(stdout, f.vars[i].desc, 6, 6);
        }
        cli_fig_free(&f);
        print_types(stdout);
        return cli_help("");
    }
    fputs(help_text, stdout);
    fputs("\nvariables of the figures:\n"
          "  --set VAR=TYPE, as each script declares them (srlab plot NAME --help: what each is)\n",
          stdout);
    char **names;
    size_t n;
    if (!cli_host_list(dir, ".gp", &names, &n)) {
        for (size_t i = 0; i < n; i++) {
            char *path = cli_alloc_printf("%s/%s.gp", dir, names[i]);
            printf("  %-13s ", names[i]);
            if (path && !cli_fig_read(&f, path, why)) {
                print_vars(stdout, &f, 16);
                cli_fig_free(&f);
            } else {
                printf("(its declarations: %s)\n", path ? why : "out of memory");
            }
            free(path);
        }
        cli_host_names_free(names, n);
    }
    print_types(stdout);
    return cli_help("");
}

/* ---- the data ---- */

/* The columns of the CSV header line hdr (hlen bytes): is `col` (n bytes) one of them? A `col` of
 * the form *SUFFIX asks for any column whose name ends in SUFFIX. */
static bool has_column(const char *hdr, size_t hlen, const char *col, size_t n)
{
    const bool any = n && col[0] == '*';
    const char *want = any ? col + 1 : col;
    if (any)
        n--;
    for (const char *c = hdr, *end = hdr + hlen; c <= end;) {
        const char *comma = memchr(c, ',', (size_t)(end - c));
        const size_t len = comma ? (size_t)(comma - c) : (size_t)(end - c);
        if (any ? len >= n && !memcmp(c + len - n, want, n) : len == n && !memcmp(c, want, n))
            return true;
        if (!comma)
            break;
        c = comma + 1;
    }
    return false;
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

/* The data of --in, read once: the text, its header line (the first line not starting with '#',
 * without its line end), where the rows after it start, and the copy gnuplot reads. */
typedef struct plot_data {
    char *text, *gp;
    size_t len, gplen;
    const char *hdr, *rows;
    size_t hlen;
} plot_data;

/* The copy for gnuplot (cli_gp_csv) of the CSV text read from `path`, given as `what`
 * ("--in", "--set runs"); 0, or an exit status after a message naming the line. */
static int gp_copy(const char *what, const char *path, const char *text, size_t len, char **out,
                   size_t *outlen)
{
    char q[CLI_QUOTE_LEN];
    const char *why;
    size_t line;
    int e = cli_gp_csv(text, len, out, outlen, &line, &why);
    if (e == ENOMEM)
        return cli_sys_error(CMD, "out of memory");
    if (e)
        return cli_error(CMD, "%s %s line %zu: %s", what,
                         cli_quote(q, sizeof q, path, strlen(path), 200), line, why);
    return 0;
}

static int read_data(plot_data *d, const char *in)
{
    char q[CLI_QUOTE_LEN];
    if (cli_gp_path_check(in))
        return cli_error(CMD, "--in: %s %s", cli_quote(q, sizeof q, in, strlen(in), 200),
                         cli_gp_path_check(in));
    int rc = cli_read_file(in, &d->text, &d->len);
    if (rc)
        return cli_error(CMD, "--in: cannot read %s: %s",
                         cli_quote(q, sizeof q, in, strlen(in), 200), cli_read_strerror(rc));
    if ((rc = cli_set_check(CMD, "--in", in, d->text, d->len))) /* a set's files belong together */
        return rc;
    if ((rc = gp_copy("--in", in, d->text, d->len, &d->gp, &d->gplen)))
        return rc;
    const char *end = d->text + d->len;
    d->hdr = d->rows = end;
    d->hlen = 0;
    for (const char *l = d->text; l < end;) { /* the reader drops a BOM */
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        const char *e = nl ? nl : end;
        if (*l != '#') {
            d->hdr = l;
            d->hlen = (size_t)(e - l) - (e > l && e[-1] == '\r');
            d->rows = nl ? nl + 1 : end;
            break;
        }
        l = nl ? nl + 1 : end;
    }
    return 0;
}

/* Issue 12, item 13: gnuplot draws an empty figure, and exits 0, when a plotted column holds no
 * number. The column `col` (n bytes), when --in has it, must hold at least one finite number in
 * its rows; else refuse, naming it. Returns 0, or the exit status of the error printed. */
static int check_number_column(const plot_data *d, const char *in, const char *col, size_t n)
{
    char q[CLI_QUOTE_LEN];
    const char *b, *fe, *hend = d->hdr + d->hlen, *end = d->text + d->len;
    size_t k = 0;
    while (csv_field(d->hdr, hend, k, &b, &fe) && !((size_t)(fe - b) == n && !memcmp(b, col, n)))
        k++;
    if (!csv_field(d->hdr, hend, k, &b, &fe))
        return 0; /* not a column of this file: the column checks say so */
    for (const char *l = d->rows; l < end;) {
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        const char *e = nl ? nl : end;
        if (*l != '#' && csv_field(l, e, k, &b, &fe) && fe > b && fe - b < 64) {
            char num[64], *stop;
            snprintf(num, sizeof num, "%.*s", (int)(fe - b), b);
            num[strcspn(num, "\r")] = '\0';
            double v = strtod(num, &stop);
            if (stop != num && !*stop && isfinite(v))
                return 0;
        }
        l = nl ? nl + 1 : end;
    }
    return cli_error(CMD, "--in %s: column '%.*s' holds no finite number (every value is nan, inf, "
                     "text or empty): nothing to plot", cli_quote(q, sizeof q, in, strlen(in), 200),
                     (int)n, col);
}

/* A script names the columns it cannot do without in a "# needs: a b c" line of its header (a
 * summary file has seeds, a runs file last_step, a rows file step); they must be in the header,
 * since gnuplot only warns about a missing column and draws an empty figure, and hold numbers
 * (but NAME:text and *SUFFIX ones). Returns 0, or the exit status of the error it printed. */
static int check_needs(const cli_fig *f, const char *name, const char *in, const plot_data *d)
{
    char q[CLI_QUOTE_LEN];
    const char *hdr = d->hdr;
    const size_t hl = d->hlen;
    for (const char *c = f->needs; *(c += strspn(c, " \t\r")); c += strcspn(c, " \t\r")) {
        const size_t len = strcspn(c, " \t\r"), n = strcspn(c, ":");
        const size_t cn = n < len ? n : len; /* "format:text" */
        int rc = 0;
        if (has_column(hdr, hl, c, cn)) {
            if (cn == len && c[0] != '*')
                rc = check_number_column(d, in, c, cn);
            if (rc)
                return rc;
            continue;
        }
        const char *hint = "";
        const bool stats = has_column(hdr, hl, "*_mean", 6);
        if (!stats && has_column(hdr, hl, "step", 4))
            hint = ": this is a rows file, and the figure reads the summary file of the sweep "
                   "(NAME.summary.csv)";
        else if (!stats && has_column(hdr, hl, "last_step", 9))
            hint = ": this is the runs file, and the figure reads the summary file of the sweep "
                   "(NAME.summary.csv)";
        else if (stats && ((cn == 4 && !memcmp(c, "step", 4)) || (cn == 3 && !memcmp(c, "run", 3)) ||
                           (cn == 1 && c[0] == 'k')))
            hint = ": this is a summary file, and the figure reads the rows file of the sweep "
                   "(NAME.csv)";
        if (c[0] == '*')
            return cli_error(CMD, "--in %s has no statistics columns (METRIC%.*s), which the figure "
                             "%s needs%s", cli_quote(q, sizeof q, in, strlen(in), 200),
                             (int)cn - 1, c + 1, name, hint);
        return cli_error(CMD, "--in %s has no column '%.*s', which the figure %s needs%s",
                         cli_quote(q, sizeof q, in, strlen(in), 200), (int)cn, c, name, hint);
    }
    return 0;
}

/* ---- the command line ---- */

typedef struct plot_set {
    const char *text;       /* VAR=VALUE as given */
    const char *value;      /* after the '=' */
    const cli_fig_var *var; /* its declaration */
} plot_set;

typedef struct plot_args {
    const char *name; /* the figure, plots/NAME.gp */
    const char *in;   /* --in CSV */
    const char *out;  /* -o FILE, or NULL */
    plot_set *sets;   /* --set VAR=VALUE, in order */
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
        default: p->sets[p->nsets++].text = a.val; break;
        }
    }
    return 0;
}

/* The script of the figure p->name, plots/NAME.gp (malloc'd into *script), and its
 * declarations. */
static int find_script(const plot_args *p, char **script, cli_fig *f)
{
    char q[CLI_QUOTE_LEN], why[CLI_FIG_WHY_LEN];
    if (!p->name)
        return cli_error(CMD, "which figure? srlab plot NAME --in CSV (see srlab plot --help)");
    if (!figure_name_ok(p->name))
        return cli_error(CMD, "%s is not a figure name (a letter or digit, then letters, digits, "
                         "_ and -)", cli_quote(q, sizeof q, p->name, strlen(p->name), CLI_QUOTE_MAX));
    const char *dir = cli_host_plots_dir();
    if (!(*script = cli_alloc_printf("%s/%s.gp", dir, p->name)))
        return cli_sys_error(CMD, "out of memory");
    if (access(*script, R_OK) != 0) {
        char known[512] = "";
        char **names;
        size_t n, used = 0;
        if (!cli_host_list(dir, ".gp", &names, &n)) {
            for (size_t i = 0; i < n; i++)
                if (used + strlen(names[i]) + 3 < sizeof known)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                             i ? ", " : "", names[i]);
            cli_host_names_free(names, n);
        }
        return cli_error(CMD, "unknown figure %s (in %s: %s)",
                         cli_quote(q, sizeof q, p->name, strlen(p->name), CLI_QUOTE_MAX), dir,
                         known[0] ? known : "no scripts; set SRLAB_PLOTS=DIR");
    }
    if (cli_fig_read(f, *script, why))
        return cli_error(CMD, "%s: %s", *script, why);
    return 0;
}

/* Each --set: a variable the script declares, given once, with a value of its type; the columns
 * it names are columns of --in (a METRIC: M or M_mean), and a COLUMN or METRIC one holds numbers.
 * Returns 0, or the exit status of the error it printed. */
static int check_sets(plot_args *p, const cli_fig *f, const plot_data *d)
{
    char q[CLI_QUOTE_LEN], q2[CLI_QUOTE_LEN], why[CLI_FIG_WHY_LEN];
    for (size_t i = 0; i < p->nsets; i++) {
        plot_set *s = &p->sets[i];
        const char *eq = strchr(s->text, '=');
        const size_t n = eq ? (size_t)(eq - s->text) : 0;
        if (!eq || !(s->var = cli_fig_find(f, s->text, n))) {
            char list[600] = "";
            for (size_t k = 0, used = 0; k < f->nvars && used + 40 < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                         f->vars[k].name);
            return cli_error(CMD, "--set %s: %s %s (its variables: %s; in, out and fmt come from "
                             "--in and -o)", cli_quote(q, sizeof q, s->text, strlen(s->text),
                                                       CLI_QUOTE_MAX),
                             eq ? "the figure has no variable" : "is not VAR=VALUE with a variable of",
                             eq ? cli_quote(q2, sizeof q2, s->text, n, CLI_QUOTE_MAX) : p->name,
                             f->nvars ? list : "none");
        }
        s->value = eq + 1;
        for (size_t k = 0; k < i; k++)
            if (p->sets[k].var == s->var)
                return cli_error(CMD, "--set %s is given twice", s->var->name);
        if (cli_fig_check(s->var, s->value, why))
            return cli_error(CMD, "--set %s: %s %s (%s)", s->var->name,
                             cli_quote(q, sizeof q, s->value, strlen(s->value), 200), why,
                             cli_fig_type_name(s->var->type));
        size_t cn;
        const char *c;
        for (size_t k = 0; (c = cli_fig_column(s->var, s->value, k, &cn)); k++) {
            const bool metric = s->var->type == CLI_FIG_METRIC;
            char mean[CLI_GP_TEXT_MAX + 8];
            snprintf(mean, sizeof mean, "%.*s_mean", (int)cn, c);
            if (!has_column(d->hdr, d->hlen, c, cn) &&
                !(metric && has_column(d->hdr, d->hlen, mean, strlen(mean))))
                return cli_error(CMD, "--set %s: --in %s has no column %s%s", s->var->name,
                                 cli_quote(q, sizeof q, p->in, strlen(p->in), 200),
                                 cli_quote(q2, sizeof q2, c, cn, CLI_QUOTE_MAX),
                                 metric ? " (nor METRIC_mean)" : "");
            int rc = metric || s->var->type == CLI_FIG_COLUMN
                         ? check_number_column(d, p->in, c, cn) : 0;
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The figure file's format (*fmt: png, svg or pdf, from its extension), and gnuplot. */
static int check_output(const plot_args *p, const char **fmt)
{
    char q[CLI_QUOTE_LEN];
    const char *dot = strrchr(p->out, '.'); /* standard output: a PNG, the default figure */
    *fmt = cli_out_is_stdout(p->out) ? "png" : dot ? dot + 1 : "";
    if (strcmp(*fmt, "png") && strcmp(*fmt, "svg") && strcmp(*fmt, "pdf"))
        return cli_error(CMD, "-o: %s: the figure must end in .png, .svg or .pdf",
                         cli_quote(q, sizeof q, p->out, strlen(p->out), 200));
    if (cli_gp_path_check(p->out))
        return cli_error(CMD, "-o: %s %s", cli_quote(q, sizeof q, p->out, strlen(p->out), 200),
                         cli_gp_path_check(p->out));
    if (!cli_host_has_program("gnuplot"))
        return cli_error(CMD, "gnuplot is not installed: install Debian's gnuplot-nox "
                         "(apt-get install gnuplot-nox)");
    return 0;
}

/* ---- gnuplot ---- */

/* The fixed names of gnuplot's folder: the data (NAME.summary.csv keeps its suffix, so that a
 * script finds NAME.runs.csv beside it, plots/common.gpi), a file --set names, the figure. */
#define IN_CSV "srlab-in.csv"
#define IN_SUMMARY "srlab-in.summary.csv"
#define IN_RUNS "srlab-in.runs.csv"

static bool is_summary(const char *in)
{
    const size_t n = strlen(in);
    return n > 12 && !strcmp(in + n - 12, ".summary.csv");
}

/* The scripts (NAME.gp and every .gpi beside it) and the data into gnuplot's folder. */
static int put_inputs(cli_gp *g, const plot_args *p, const plot_data *d, bool beside_runs)
{
    const char *dir = cli_host_plots_dir();
    char **names, *text = NULL, *file = NULL;
    size_t n, len;
    int rc = 0, err = cli_host_list(dir, ".gpi", &names, &n);
    if (err)
        return cli_sys_error(CMD, "cannot list %s: %s", dir, strerror(err));
    for (size_t i = 0; i <= n && !rc; i++) {
        file = cli_alloc_printf("%s.%s", i < n ? names[i] : p->name, i < n ? "gpi" : "gp");
        if (!file || !(text = cli_host_read(dir, file, &len)))
            rc = file ? cli_sys_error(CMD, "cannot read %s/%s", dir, file)
                      : cli_sys_error(CMD, "out of memory");
        else
            rc = cli_gp_put(g, file, NULL, text, len);
        free(file), free(text);
        file = text = NULL;
    }
    cli_host_names_free(names, n);
    if (!rc)
        rc = cli_gp_put(g, is_summary(p->in) ? IN_SUMMARY : IN_CSV, p->in, d->gp, d->gplen);
    if (rc || !beside_runs || !is_summary(p->in))
        return rc;
    /* the runs file beside a summary, as plots/common.gpi looks for it */
    char *runs = cli_alloc_printf("%.*s.runs.csv", (int)(strlen(p->in) - 12), p->in);
    if (!runs)
        return cli_sys_error(CMD, "out of memory");
    if (access(runs, F_OK) != 0) {
        rc = cli_gp_expect(g, IN_RUNS, runs); /* gnuplot's message names it */
    } else if ((err = cli_read_file(runs, &text, &len))) {
        char q[CLI_QUOTE_LEN];
        rc = cli_error(CMD, "--in: cannot read the runs file beside it, %s: %s",
                       cli_quote(q, sizeof q, runs, strlen(runs), 200), cli_read_strerror(err));
    } else {
        char *gp = NULL;
        size_t gplen;
        if (!(rc = gp_copy("the runs file", runs, text, len, &gp, &gplen)))
            rc = cli_gp_put(g, IN_RUNS, runs, gp, gplen);
        free(text), free(gp);
    }
    free(runs);
    return rc;
}

/* The fixed name of the file of a file-typed --set ("srlab-runs.csv", "srlab-debug.out"). */
static void set_file(char *buf, size_t len, const plot_set *s)
{
    snprintf(buf, len, "srlab-%s.%s", s->var->name, s->var->type == CLI_FIG_INFILE ? "csv" : "out");
}

/* in='...'; out='...'; fmt='png'; VAR=VALUE... (each value typed: cli_fig_render, or a fixed
 * name), malloc'd; NULL when out of memory. */
static char *gp_expression(const plot_args *p, const char *fig, const char *fmt)
{
    char *expr = NULL, file[64];
    size_t len = 0;
    FILE *m = open_memstream(&expr, &len);
    if (!m)
        return NULL;
    fprintf(m, "in='%s'; out='%s'; fmt='%s'", is_summary(p->in) ? IN_SUMMARY : IN_CSV, fig, fmt);
    for (size_t i = 0; i < p->nsets; i++) {
        const plot_set *s = &p->sets[i];
        fprintf(m, "; %s=", s->var->name);
        set_file(file, sizeof file, s);
        if (s->var->type == CLI_FIG_OUTFILE || (s->var->type == CLI_FIG_INFILE && *s->value))
            fprintf(m, "'%s'", file);
        else if (s->var->type == CLI_FIG_INFILE)
            fputs("''", m);
        else
            cli_fig_render(m, s->var, s->value);
    }
    if (fclose(m) != 0) {
        free(expr);
        return NULL;
    }
    return expr;
}

/* The files the --set values name: an INFILE read and copied into the folder, an OUTFILE opened
 * (outs[i], for set i) and its fixed name announced. */
static int set_files(cli_gp *g, const plot_args *p, cli_out *outs)
{
    char file[64], what[64];
    for (size_t i = 0; i < p->nsets; i++) {
        const plot_set *s = &p->sets[i];
        set_file(file, sizeof file, s);
        snprintf(what, sizeof what, "--set %s", s->var->name);
        int rc = 0;
        if (s->var->type == CLI_FIG_OUTFILE) {
            if (!(rc = cli_out_open(&outs[i], CMD, what, s->value)))
                rc = cli_gp_expect(g, file, s->value);
        } else if (s->var->type == CLI_FIG_INFILE && *s->value) {
            char q[CLI_QUOTE_LEN], *text;
            size_t len;
            int err = cli_read_file(s->value, &text, &len);
            if (err)
                return cli_error(CMD, "%s: cannot read %s: %s", what,
                                 cli_quote(q, sizeof q, s->value, strlen(s->value), 200),
                                 cli_read_strerror(err));
            char *gp = NULL;
            size_t gplen;
            if (!(rc = gp_copy(what, s->value, text, len, &gp, &gplen)))
                rc = cli_gp_put(g, file, s->value, gp, gplen);
            free(text), free(gp);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* The OUTFILE --set values: what gnuplot wrote into their fixed names (nothing: an empty file),
 * into their outputs. */
static int take_set_files(cli_gp *g, const plot_args *p, cli_out *outs)
{
    char file[64];
    for (size_t i = 0; i < p->nsets; i++) {
        const plot_set *s = &p->sets[i];
        if (s->var->type != CLI_FIG_OUTFILE)
            continue;
        set_file(file, sizeof file, s);
        size_t len = 0;
        char *text = cli_host_read(g->dir, file, &len);
        if (text && fwrite(text, 1, len, outs[i].fp) != len) {
            free(text);
            return cli_sys_error(CMD, "--set %s: cannot write: %s", s->var->name, strerror(errno));
        }
        free(text);
    }
    return 0;
}

/* Draw the figure into the output o (and the OUTFILE --set values into outs). */
static int draw(const plot_args *p, const plot_data *d, const char *fmt, cli_out *o, cli_out *outs)
{
    char q[CLI_QUOTE_LEN], fig[32];
    snprintf(fig, sizeof fig, "srlab-figure.%s", fmt);
    bool runs_set = false;
    for (size_t i = 0; i < p->nsets; i++)
        runs_set = runs_set || !strcmp(p->sets[i].var->name, "runs");
    cli_gp g;
    int rc = cli_gp_open(&g, CMD);
    if (rc)
        return rc;
    char *expr = NULL, *script = cli_alloc_printf("%s.gp", p->name);
    if (!script)
        rc = cli_sys_error(CMD, "out of memory");
    if (!rc)
        rc = put_inputs(&g, p, d, !runs_set);
    if (!rc)
        rc = set_files(&g, p, outs);
    if (!rc)
        rc = cli_gp_expect(&g, fig, p->out);
    if (!rc && !(expr = gp_expression(p, fig, fmt)))
        rc = cli_sys_error(CMD, "out of memory");
    cli_host_exit e;
    if (!rc)
        rc = cli_gp_run(&g, script, expr, &e);
    if (!rc && e.signal)
        rc = cli_sys_error(CMD, "gnuplot was killed by signal %d", e.signal);
    else if (!rc && e.status)
        rc = cli_error(CMD, "gnuplot could not draw %s from %s (its message is above)", p->name,
                       cli_quote(q, sizeof q, p->in, strlen(p->in), 200));
    if (!rc)
        rc = cli_gp_take(&g, fig, fmt, "-o", o->fp);
    if (!rc)
        rc = take_set_files(&g, p, outs);
    cli_gp_close(&g);
    free(expr);
    free(script);
    return rc;
}

/* ---- the command ---- */

int cmd_plot(int argc, char **argv)
{
    plot_args p = {NULL, NULL, NULL, calloc((size_t)argc + 1, sizeof *p.sets), 0};
    cli_out o, *outs = calloc((size_t)argc + 1, sizeof *outs);
    if (!p.sets || !outs) {
        free(p.sets), free(outs);
        return cli_sys_error(CMD, "out of memory");
    }
    char *script = NULL, *dflt = NULL;
    const char *fmt = NULL;
    cli_fig f;
    plot_data d;
    memset(&f, 0, sizeof f), memset(&d, 0, sizeof d), memset(&o, 0, sizeof o);
    o.slot = -1;
    for (int i = 0; i <= argc; i++)
        outs[i].slot = -1;
    int rc = parse_args(&p, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        free(p.sets), free(outs);
        return plot_help(p.name);
    }
    if (!rc)
        rc = find_script(&p, &script, &f);
    if (!rc && !p.out && !(p.out = dflt = cli_alloc_printf("%s.png", p.name)))
        rc = cli_sys_error(CMD, "out of memory"); /* the default figure file, NAME.png */
    if (!rc && !p.in)
        rc = cli_error(CMD, "no data: --in CSV");
    if (!rc && !(rc = read_data(&d, p.in)) && !(rc = check_needs(&f, p.name, p.in, &d)))
        rc = check_sets(&p, &f, &d);
    if (!rc)
        rc = check_output(&p, &fmt);
    if (!rc)
        rc = cli_out_open(&o, CMD, "-o", p.out);
    if (!rc)
        rc = draw(&p, &d, fmt, &o, outs);
    for (size_t i = 0; i < p.nsets && !rc; i++)
        if (outs[i].fp)
            rc = cli_out_commit(&outs[i]);
    if (!rc)
        rc = cli_out_commit(&o);
    cli_out_abort(&o);
    for (int i = 0; i <= argc; i++)
        cli_out_abort(&outs[i]);
    cli_fig_free(&f);
    free(d.text), free(d.gp);
    free(script);
    free(dflt);
    free(p.sets);
    free(outs);
    return rc;
}
