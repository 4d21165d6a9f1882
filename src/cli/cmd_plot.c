/* src/cli/cmd_plot.c: `srlab plot NAME --in CSV [-o FILE] [--set VAR=VALUE]...` (docs/design.md §13).
 *
 * Runs gnuplot on plots/NAME.gp with in='CSV', out='FILE' and fmt (png, svg or pdf from FILE's
 * extension), the same as `gnuplot -e "in='CSV'; out='FILE'" plots/NAME.gp`. The scripts are
 * found in $SRLAB_PLOTS if set, else in the source tree this srlab was built from, else in the
 * installed data directory (meson's datadir/srlab/plots). gnuplot writes to a temporary file
 * beside FILE that is renamed over it only when gnuplot succeeded and the file is not empty. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "srl_plots_paths.h"

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
    "(and any other plots/NAME.gp)\n"
    "\n"
    "options:\n"
    "  --in CSV           the data (the rows or the summary file of srlab sweep)\n"
    "  -o, --output FILE  the figure: .png, .svg or .pdf (default NAME.png)\n"
    "  --set VAR=VALUE    a variable of the script, e.g. --set by=rounding,\n"
    "                     --set 'where=lr=0.01 format=bf16', --set ycol=dist_to_opt\n"
    "                     (each script's header lists its variables)\n"
    "  SRLAB_PLOTS=DIR    take the scripts from DIR\n"
    "\n"
    "examples:\n"
    "  srlab sweep experiments/lr_sweep.ini --quick -o lr.csv\n"
    "  srlab plot lr_sweep --in lr.summary.csv -o lr.png\n"
    "  srlab plot loss_vs_step --in lr.csv -o loss.pdf --set 'where=lr=0.01'\n";

static bool is_dir(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static const char *plots_dir(void)
{
    const char *env = getenv("SRLAB_PLOTS");
    if (env && *env)
        return env;
    if (is_dir(SRL_PLOTS_SOURCE_DIR))
        return SRL_PLOTS_SOURCE_DIR;
    return SRL_PLOTS_INSTALL_DIR;
}

/* gnuplot on PATH? */
static bool find_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char buf[4096];
        if (n && n + 10 < sizeof buf) {
            memcpy(buf, path, n);
            strcpy(buf + n, "/gnuplot");
            if (access(buf, X_OK) == 0)
                return true;
        }
        path += n + (path[n] == ':');
    }
    return false;
}

/* Append s as a gnuplot single-quoted string ('' inside). */
static int gp_quote(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t need = *len + 2 * strlen(s) + 4;
    if (need > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < need)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return -1;
        *buf = b;
        *cap = c;
    }
    char *p = *buf + *len;
    *p++ = '\'';
    for (; *s; s++) {
        if (*s == '\'')
            *p++ = '\'';
        *p++ = *s;
    }
    *p++ = '\'';
    *p = 0;
    *len = (size_t)(p - *buf);
    return 0;
}

static int gp_raw(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s), need = *len + n + 1;
    if (need > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < need)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return -1;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

static void list_plots(const char *dir, char *out, size_t len)
{
    out[0] = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[64];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64) {
        size_t l = strlen(e->d_name);
        if (l > 3 && !strcmp(e->d_name + l - 3, ".gp") && (names[n] = strndup(e->d_name, l - 3)))
            n++;
    }
    closedir(d);
    for (size_t i = 1; i < n; i++) /* sorted, so the message does not depend on the directory */
        for (size_t k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (used + strlen(names[i]) + 3 < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
}

/* Does the comma-separated header line `hdr` have the column `col`? */
static bool has_column(const char *hdr, const char *col)
{
    const size_t n = strlen(col);
    for (const char *c = hdr; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
        if (!strncmp(c, col, n) && (c[n] == ',' || c[n] == '\0'))
            return true;
    return false;
}

/* A script names the columns it cannot do without in a "# needs: a b c" line of its header (a
 * summary file has last_step, a rows file step). Check them against the CSV's header before
 * gnuplot runs, since gnuplot only warns about a missing column and draws an empty figure.
 * Returns 0, or the exit status of the error it printed. */
static int check_columns(const char *script, const char *name, const char *in)
{
    char q[CLI_QUOTE_LEN], needs[512] = "", hdr[8192] = "", line[8192];
    FILE *f = fopen(script, "r");
    while (f && fgets(line, sizeof line, f) && line[0] == '#')
        if (!strncmp(line, "# needs:", 8)) {
            line[strcspn(line, "(")] = '\0'; /* the names end where the explanation starts */
            snprintf(needs, sizeof needs, "%.511s", line + 8);
            break;
        }
    if (f)
        fclose(f);
    if (!needs[0])
        return 0;
    f = fopen(in, "r");
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '#') {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(hdr, sizeof hdr, "%s", line);
            break;
        }
    if (f)
        fclose(f);
    for (char *save = NULL, *col = strtok_r(needs, " \t\r\n", &save); col;
         col = strtok_r(NULL, " \t\r\n", &save)) {
        if (has_column(hdr, col))
            continue;
        const char *hint = "";
        if (!strcmp(col, "last_step") && has_column(hdr, "step"))
            hint = ": this is a rows file, and the figure reads the summary file of the sweep "
                   "(NAME.summary.csv)";
        else if (!strcmp(col, "step") && has_column(hdr, "last_step"))
            hint = ": this is a summary file, and the figure reads the rows file of the sweep "
                   "(NAME.csv)";
        return cli_error(CMD, "--in %s has no column '%s', which the figure %s needs%s",
                         cli_quote(q, sizeof q, in, strlen(in), 200), col, name, hint);
    }
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    static const cli_opt opts[] = {
        {"in", 0, "CSV"}, {"output", 'o', "FILE"}, {"set", 0, "VAR=VALUE"}, {NULL, 0, NULL}};
    char q[CLI_QUOTE_LEN];
    const char *name = NULL, *in = NULL, *out = NULL;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    size_t nsets = 0;
    if (!sets)
        return cli_sys_error(CMD, "out of memory");
    int rc = 0;
    char *script = NULL, *expr = NULL, *dflt = NULL;
    size_t elen = 0, ecap = 0;
    cli_out o;
    memset(&o, 0, sizeof o);
    o.slot = -1;
    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            free(sets);
            return cli_help(help_text);
        }
        if (k == CLI_ARGS_BAD) {
            free(sets);
            return CLI_EXIT_USAGE;
        }
        if (k == CLI_ARGS_POSITIONAL) {
            if (name) {
                rc = cli_error(CMD, "one figure at a time: %s after '%s'",
                               cli_quote(q, sizeof q, a.val, strlen(a.val), CLI_QUOTE_MAX), name);
                goto done;
            }
            name = a.val;
        } else if (k == 0) {
            if (in) {
                rc = cli_error(CMD, "--in is given twice");
                goto done;
            }
            in = a.val;
        } else if (k == 1) {
            if (out) {
                rc = cli_error(CMD, "%s is given twice", a.opt);
                goto done;
            }
            out = a.val;
        } else {
            sets[nsets++] = a.val;
        }
    }
    if (!name) {
        rc = cli_error(CMD, "which figure? srlab plot NAME --in CSV (see srlab plot --help)");
        goto done;
    }
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') {
            rc = cli_error(CMD, "%s is not a figure name (letters, digits, _ and -)",
                           cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX));
            goto done;
        }
    const char *dir = plots_dir();
    size_t sl = strlen(dir) + strlen(name) + 8;
    script = malloc(sl);
    if (!script) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    snprintf(script, sl, "%s/%s.gp", dir, name);
    if (access(script, R_OK) != 0) {
        char known[512];
        list_plots(dir, known, sizeof known);
        rc = cli_error(CMD, "unknown figure %s (in %s: %s)",
                       cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX), dir,
                       known[0] ? known : "no scripts; set SRLAB_PLOTS=DIR");
        goto done;
    }
    if (!in) {
        rc = cli_error(CMD, "no data: --in CSV");
        goto done;
    }
    if (access(in, R_OK) != 0 || is_dir(in)) {
        rc = cli_error(CMD, "--in: cannot read %s: %s", cli_quote(q, sizeof q, in, strlen(in), 200),
                       is_dir(in) ? "a directory" : strerror(errno));
        goto done;
    }
    if ((rc = check_columns(script, name, in)))
        goto done;
    if (!out) {
        dflt = malloc(strlen(name) + 5);
        if (!dflt) {
            rc = cli_sys_error(CMD, "out of memory");
            goto done;
        }
        sprintf(dflt, "%s.png", name);
        out = dflt;
    }
    const char *dot = strrchr(out, '.');
    const char *fmt = dot ? dot + 1 : "";
    if (strcmp(fmt, "png") && strcmp(fmt, "svg") && strcmp(fmt, "pdf")) {
        rc = cli_error(CMD, "-o: %s: the figure must end in .png, .svg or .pdf",
                       cli_quote(q, sizeof q, out, strlen(out), 200));
        goto done;
    }
    for (size_t i = 0; i < nsets; i++) {
        const char *eq = strchr(sets[i], '=');
        bool ok = eq && eq > sets[i] && (isalpha((unsigned char)sets[i][0]) || sets[i][0] == '_');
        for (const char *c = sets[i]; ok && c < eq; c++)
            ok = isalnum((unsigned char)*c) || *c == '_';
        if (!ok || !strncmp(sets[i], "in=", 3) || !strncmp(sets[i], "out=", 4) ||
            !strncmp(sets[i], "fmt=", 4)) {
            rc = cli_error(CMD, "--set: %s is not VAR=VALUE with a variable of the script (in, out "
                           "and fmt come from --in and -o)",
                           cli_quote(q, sizeof q, sets[i], strlen(sets[i]), CLI_QUOTE_MAX));
            goto done;
        }
    }
    if (!find_gnuplot()) {
        rc = cli_error(CMD, "gnuplot is not installed: install Debian's gnuplot-nox "
                       "(apt-get install gnuplot-nox)");
        goto done;
    }
    if ((rc = cli_out_open(&o, CMD, "-o", out)))
        goto done;
    /* in='...'; out='...'; fmt='png'; VAR=VALUE... (numbers as numbers, other text quoted) */
    bool mem = gp_raw(&expr, &elen, &ecap, "in=") || gp_quote(&expr, &elen, &ecap, in) ||
               gp_raw(&expr, &elen, &ecap, "; out=") || gp_quote(&expr, &elen, &ecap, o.tmp) ||
               gp_raw(&expr, &elen, &ecap, "; fmt=") || gp_quote(&expr, &elen, &ecap, fmt);
    for (size_t i = 0; i < nsets && !mem; i++) {
        const char *eq = strchr(sets[i], '=');
        char var[128];
        snprintf(var, sizeof var, "; %.*s=", (int)(eq - sets[i]), sets[i]);
        char *end;
        errno = 0;
        (void)strtod(eq + 1, &end);
        bool number = eq[1] && !*end && !errno && !isspace((unsigned char)eq[1]);
        mem = gp_raw(&expr, &elen, &ecap, var) ||
              (number ? gp_raw(&expr, &elen, &ecap, eq + 1)
                      : gp_quote(&expr, &elen, &ecap, eq + 1));
    }
    if (mem) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        rc = cli_sys_error(CMD, "cannot start gnuplot: %s", strerror(errno));
        goto done;
    }
    if (pid == 0) {
        char *args[] = {"gnuplot", "-e", expr, script, NULL};
        execvp("gnuplot", args);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            rc = cli_sys_error(CMD, "waiting for gnuplot: %s", strerror(errno));
            goto done;
        }
    if (WIFSIGNALED(status)) {
        rc = cli_sys_error(CMD, "gnuplot was killed by signal %d", WTERMSIG(status));
        goto done;
    }
    if (WEXITSTATUS(status) != 0) {
        rc = cli_error(CMD, "gnuplot could not draw %s from %s (its message is above)", name,
                       cli_quote(q, sizeof q, in, strlen(in), 200));
        goto done;
    }
    struct stat sb;
    if (stat(o.tmp, &sb) != 0 || sb.st_size == 0) {
        rc = cli_error(CMD, "gnuplot drew nothing for %s from %s", name,
                       cli_quote(q, sizeof q, in, strlen(in), 200));
        goto done;
    }
    rc = cli_out_commit(&o);
done:
    cli_out_abort(&o);
    free(expr);
    free(script);
    free(dflt);
    free(sets);
    return rc;
}
