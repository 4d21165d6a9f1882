/* src/cli/figure.c: the variables a figure script declares, and their values
 * (src/cli/figure.h). */
#include "cli/figure.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gnuplot.h"
#include "cli/host.h"
#include "srlab/number.h"

/* ---- the types ---- */

static const struct {
    const char *name, *help;
} types[CLI_FIG_NTYPES] = {
    [CLI_FIG_NUMBER] = {"NUMBER", "a finite number"},
    [CLI_FIG_INTEGER] = {"INTEGER", "a whole number"},
    [CLI_FIG_COLUMN] = {"COLUMN", "a column of --in that holds numbers"},
    [CLI_FIG_METRIC] = {"METRIC", "M, where --in has the column M or M_mean"},
    [CLI_FIG_COLUMNS] = {"COLUMNS", "columns of --in, comma-separated"},
    [CLI_FIG_FILTER] = {"FILTER", "COL=VALUE COL=VALUE ..., space-separated: the rows whose "
                                  "column COL holds VALUE (as the CSV writes it, quotes or not)"},
    [CLI_FIG_TEXT] = {"TEXT", "letters, digits, space and _-+.,:=[]/()^{}*"},
    [CLI_FIG_INFILE] = {"INFILE", "a CSV file srlab reads for the figure (\"\" for none)"},
    [CLI_FIG_OUTFILE] = {"OUTFILE", "a file srlab writes (replaced)"},
};

const char *cli_fig_type_name(cli_fig_type t)
{
    return t < CLI_FIG_NTYPES ? types[t].name : "?";
}

const char *cli_fig_type_help(cli_fig_type t)
{
    return t < CLI_FIG_NTYPES ? types[t].help : "?";
}

/* ---- the declarations ---- */

static bool is_ident(const char *s, size_t n)
{
    if (!n || n > CLI_FIG_NAME_MAX || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                                        *s == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* Append the n bytes of a description line to *desc (joined by a space); false when out of
 * memory. */
static bool add_desc(char **desc, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    size_t old = *desc ? strlen(*desc) : 0;
    char *d = realloc(*desc, old + n + 2);
    if (!d)
        return false;
    if (old && n)
        d[old++] = ' ';
    memcpy(d + old, s, n);
    d[old + n] = '\0';
    *desc = d;
    return true;
}

/* The declaration "# --set NAME=TYPE description" [s, e), line `line`: into f. NULL or why not. */
static const char *declare(cli_fig *f, const char *s, const char *e, size_t line, char *why)
{
    const char *name = s + 8, *eq = memchr(name, '=', (size_t)(e - name));
    size_t tn = 0;
    if (eq)
        while (eq + 1 + tn < e && eq[1 + tn] >= 'A' && eq[1 + tn] <= 'Z')
            tn++;
    int t = -1;
    for (int k = 0; eq && k < CLI_FIG_NTYPES; k++)
        if (strlen(types[k].name) == tn && !memcmp(eq + 1, types[k].name, tn))
            t = k;
    const size_t n = eq ? (size_t)(eq - name) : 0;
    if (!eq || !is_ident(name, n))
        snprintf(why, CLI_FIG_WHY_LEN, "line %zu: not '# --set NAME=TYPE description'", line);
    else if (t < 0)
        snprintf(why, CLI_FIG_WHY_LEN, "line %zu: --set %.*s: unknown type '%.*s' (known: NUMBER, "
                 "INTEGER, COLUMN, METRIC, COLUMNS, FILTER, TEXT, INFILE, OUTFILE)", line, (int)n,
                 name, (int)(tn ? tn : 1), tn ? eq + 1 : "");
    else if (cli_fig_find(f, name, n))
        snprintf(why, CLI_FIG_WHY_LEN, "line %zu: --set %.*s is declared twice", line, (int)n, name);
    else if ((n == 2 && !memcmp(name, "in", 2)) || (n == 3 && !memcmp(name, "out", 3)) ||
             (n == 3 && !memcmp(name, "fmt", 3)))
        snprintf(why, CLI_FIG_WHY_LEN, "line %zu: %.*s is srlab plot's own (--in, -o)", line,
                 (int)n, name);
    else if (f->nvars == CLI_FIG_VARS)
        snprintf(why, CLI_FIG_WHY_LEN, "line %zu: more than %d variables", line, CLI_FIG_VARS);
    else {
        cli_fig_var *v = &f->vars[f->nvars++];
        memcpy(v->name, name, n);
        v->name[n] = '\0';
        v->type = (cli_fig_type)t;
        const char *d = eq + 1 + tn;
        if (d < e && *d != ' ' && *d != '\t') {
            f->nvars--;
            snprintf(why, CLI_FIG_WHY_LEN, "line %zu: --set %.*s: the type ends at a space", line,
                     (int)n, name);
            return why;
        }
        if (!add_desc(&v->desc, d, (size_t)(e - d)))
            snprintf(why, CLI_FIG_WHY_LEN, "out of memory");
        else
            return NULL;
    }
    return why;
}

int cli_fig_read(cli_fig *f, const char *path, char *why)
{
    memset(f, 0, sizeof *f);
    char *text;
    size_t len;
    int rc = cli_read_file(path, &text, &len);
    if (rc) {
        snprintf(why, CLI_FIG_WHY_LEN, "cannot read it: %s", cli_read_strerror(rc));
        return -1;
    }
    const char *end = text + len, *err = NULL;
    cli_fig_var *last = NULL; /* the declaration a continuation line belongs to */
    size_t line = 1;
    for (const char *s = text; s < end && *s == '#' && !err; line++) { /* the header */
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        if ((size_t)(e - s) > 8 && !memcmp(s, "# --set ", 8)) {
            if (!(err = declare(f, s, e, line, why)))
                last = &f->vars[f->nvars - 1];
        } else if (last && (size_t)(e - s) > 4 && !memcmp(s, "#   ", 4)) {
            if (!add_desc(&last->desc, s + 1, (size_t)(e - s - 1)))
                err = strcpy(why, "out of memory");
        } else {
            last = NULL;
            if ((size_t)(e - s) >= 8 && !memcmp(s, "# needs:", 8) && !f->needs &&
                !(f->needs = strndup(s + 8, strcspn(s + 8, "(\n"))))
                err = strcpy(why, "out of memory");
        }
        s = nl ? nl + 1 : end;
    }
    free(text);
    if (!err && !f->needs && !(f->needs = strdup("")))
        err = strcpy(why, "out of memory");
    if (err) {
        cli_fig_free(f);
        return -1;
    }
    return 0;
}

void cli_fig_free(cli_fig *f)
{
    for (size_t i = 0; i < f->nvars; i++)
        free(f->vars[i].desc);
    free(f->needs);
    memset(f, 0, sizeof *f);
}

const cli_fig_var *cli_fig_find(const cli_fig *f, const char *name, size_t n)
{
    for (size_t i = 0; i < f->nvars; i++)
        if (strlen(f->vars[i].name) == n && !memcmp(f->vars[i].name, name, n))
            return &f->vars[i];
    return NULL;
}

/* ---- values ---- */

/* A filter's item [s, s + n): its column in [s, s + *cn), its value in [*v, *v + *vn) (double
 * quotes around it removed). false when it has no '='. */
static bool filter_item(const char *s, size_t n, size_t *cn, const char **v, size_t *vn)
{
    const char *eq = memchr(s, '=', n);
    if (!eq)
        return false;
    *cn = (size_t)(eq - s);
    *v = eq + 1;
    *vn = n - *cn - 1;
    if (*vn >= 2 && (*v)[0] == '"' && (*v)[*vn - 1] == '"')
        (*v)++, *vn -= 2;
    return true;
}

/* The k-th item of a list: separated by `sep` characters (COLUMNS: ","; FILTER: spaces, any
 * number of them); its length in *n; NULL after the last. */
static const char *item(const char *s, const char *sep, bool runs, size_t k, size_t *n)
{
    for (size_t i = 0;; i++) {
        if (runs)
            s += strspn(s, sep);
        if (!*s && (runs || i))
            return NULL;
        *n = strcspn(s, sep);
        if (i == k)
            return s;
        s += *n;
        if (!*s)
            return NULL;
        s++;
    }
}

const char *cli_fig_check(const cli_fig_var *v, const char *value, char *why)
{
    char w[SRL_NUMBER_WHY_LEN > CLI_GP_WHY_LEN ? SRL_NUMBER_WHY_LEN : CLI_GP_WHY_LEN];
    const size_t len = strlen(value);
    switch (v->type) {
    case CLI_FIG_NUMBER: {
        double x;
        if (srl_number_double(&x, value, SRL_NUMBER_FINITE, w))
            return strcpy(why, w);
        return NULL;
    }
    case CLI_FIG_INTEGER: {
        long long x;
        if (srl_number_i64(&x, value, -(1LL << 53), 1LL << 53, w))
            return strcpy(why, w);
        return NULL;
    }
    case CLI_FIG_COLUMN:
    case CLI_FIG_METRIC:
        if (!len)
            return strcpy(why, "is not a column name (it is empty)");
        return cli_gp_text_check(value, len, CLI_GP_NAME, w) ? strcpy(why, w) : NULL;
    case CLI_FIG_COLUMNS: {
        size_t n;
        const char *c;
        for (size_t k = 0; (c = item(value, ",", false, k, &n)); k++) {
            if (!n)
                return strcpy(why, "is not a comma-separated list of column names (an empty name)");
            if (cli_gp_text_check(c, n, CLI_GP_NAME, w)) {
                snprintf(why, CLI_FIG_WHY_LEN, "has a column name that %s", w);
                return why;
            }
        }
        return NULL;
    }
    case CLI_FIG_FILTER: {
        size_t n, cn, vn;
        const char *c, *val;
        for (size_t k = 0; (c = item(value, " \t", true, k, &n)); k++) {
            if (!filter_item(c, n, &cn, &val, &vn) || !cn) {
                snprintf(why, CLI_FIG_WHY_LEN, "is not COL=VALUE COL=VALUE ... ('%.*s' is not "
                         "COL=VALUE)", (int)(n < 40 ? n : 40), c);
                return why;
            }
            if (cli_gp_text_check(c, cn, CLI_GP_NAME, w) ||
                cli_gp_text_check(val, vn, CLI_GP_LEVEL, w)) {
                snprintf(why, CLI_FIG_WHY_LEN, "has an item '%.*s' that %s", (int)(n < 40 ? n : 40),
                         c, w);
                return why;
            }
        }
        return NULL;
    }
    case CLI_FIG_TEXT:
        return cli_gp_text_check(value, len, CLI_GP_TEXT, w) ? strcpy(why, w) : NULL;
    case CLI_FIG_INFILE: /* read or written by srlab; gnuplot sees a fixed name */
    case CLI_FIG_OUTFILE:
        if (!len && v->type == CLI_FIG_OUTFILE)
            return strcpy(why, "is not a file name (it is empty)");
        return cli_gp_path_check(value) ? strcpy(why, cli_gp_path_check(value)) : NULL;
    default: return strcpy(why, "has no type");
    }
}

const char *cli_fig_column(const cli_fig_var *v, const char *value, size_t k, size_t *n)
{
    switch (v->type) {
    case CLI_FIG_COLUMN:
    case CLI_FIG_METRIC: *n = strlen(value); return k == 0 ? value : NULL;
    case CLI_FIG_COLUMNS: return item(value, ",", false, k, n);
    case CLI_FIG_FILTER: {
        size_t len, vn;
        const char *c = item(value, " \t", true, k, &len), *val;
        if (c && !filter_item(c, len, n, &val, &vn))
            return NULL;
        return c;
    }
    default: return NULL;
    }
}

void cli_fig_render(FILE *m, const cli_fig_var *v, const char *value)
{
    char why[SRL_NUMBER_WHY_LEN];
    switch (v->type) {
    case CLI_FIG_NUMBER: {
        double x = 0;
        if (!srl_number_double(&x, value, SRL_NUMBER_FINITE, why))
            cli_gp_real(m, x);
        break;
    }
    case CLI_FIG_INTEGER: {
        long long x = 0;
        if (!srl_number_i64(&x, value, -(1LL << 53), 1LL << 53, why))
            fprintf(m, "%lld", x);
        break;
    }
    case CLI_FIG_FILTER: { /* the items, one space apart, their values unquoted */
        fputc('\'', m);
        size_t n, cn, vn;
        const char *c, *val;
        for (size_t k = 0; (c = item(value, " \t", true, k, &n)); k++)
            if (filter_item(c, n, &cn, &val, &vn) &&
                !cli_gp_text_check(c, cn, CLI_GP_NAME, why) &&
                !cli_gp_text_check(val, vn, CLI_GP_LEVEL, why))
                fprintf(m, "%s%.*s=%.*s", k ? " " : "", (int)cn, c, (int)vn, val);
        fputc('\'', m);
        break;
    }
    case CLI_FIG_TEXT: cli_gp_literal(m, value, strlen(value), CLI_GP_TEXT); break;
    default: cli_gp_literal(m, value, strlen(value), CLI_GP_LEVEL); break; /* column names */
    }
}
