/* src/cli/help_gen.c: what `srlab help --man` and `srlab help --complete` make from the commands'
 * own texts (src/cli/help_gen.h): a man page is the --help text laid out in roff, and the
 * completion words come from the same tables the commands read (formats, modes, problems,
 * strategies, optimizers, plots/NAME.gp, experiments/NAME.ini) or from the options their --help
 * names. So a man page or a completion cannot say other than --help. */
#include "cli/help_gen.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/host.h"
#include "srlab/format.h"
#include "srlab/mx.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/run.h"
#include "srlab/strategy.h"

char *cli_help_capture(int (*run)(int, char **), int argc, char **argv, int *rc)
{
    FILE *tmp = tmpfile();
    if (!tmp)
        return NULL;
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        fclose(tmp);
        return NULL;
    }
    *rc = run(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    char *text = NULL;
    long len = (fseek(tmp, 0, SEEK_END) == 0) ? ftell(tmp) : -1;
    if (len >= 0 && fseek(tmp, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1))) {
        if (fread(text, 1, (size_t)len, tmp) != (size_t)len) {
            free(text);
            text = NULL;
        } else {
            text[len] = 0;
        }
    }
    fclose(tmp);
    return text;
}

/* One line of text in roff, inside .nf: backslashes doubled, a leading '.' or '\'' made
 * literal. */
static void roff_line(FILE *o, const char *s, size_t n)
{
    if (n && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", o);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            fputs("\\e", o);
        else if (s[i] == '-')
            fputs("\\-", o);
        else
            fputc(s[i], o);
    }
    fputc('\n', o);
}

/* A section heading of a help text: a line at column 0 that ends with ':' and is a few
 * lowercase words ("options:", "exit status:", "examples:"). */
static bool heading(const char *s, size_t n)
{
    if (n < 2 || n > 40 || s[n - 1] != ':' || !islower((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (!islower((unsigned char)s[i]) && s[i] != ' ' && s[i] != '-' && s[i] != '(' &&
            s[i] != ')' && s[i] != '/')
            return false;
    return true;
}

void cli_help_man(FILE *o, const char *name, const char *summary, const char *version,
                  const char *text, const char *see_also)
{
    char upper[64];
    size_t k = 0;
    for (; name[k] && k + 1 < sizeof upper; k++)
        upper[k] = (char)toupper((unsigned char)name[k]);
    upper[k] = 0;
    fprintf(o, ".\\\" %s(1): made by `srlab help --man` from the text of --help; do not edit.\n",
            name);
    fprintf(o, ".TH %s 1 \"\" \"srlab %s\" \"srlab manual\"\n.SH NAME\n", upper, version);
    char line[512];
    snprintf(line, sizeof line, "%s - %s", name, summary);
    roff_line(o, line, strlen(line));
    /* the usage block first (up to the first empty line), then every section */
    fputs(".SH SYNOPSIS\n.nf\n", o);
    bool in_usage = true;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (in_usage && n == 0) {
            fputs(".fi\n.SH DESCRIPTION\n.nf\n", o);
            in_usage = false;
        } else if (!in_usage && heading(p, n)) {
            fputs(".fi\n.SH ", o);
            for (size_t i = 0; i + 1 < n; i++)
                fputc(toupper((unsigned char)p[i]), o);
            fputs("\n.nf\n", o);
        } else {
            roff_line(o, p, n);
        }
        p += n + (e ? 1 : 0);
    }
    fprintf(o, ".fi\n.SH SEE ALSO\n%s\n", see_also ? see_also : "srlab(1)");
}

/* The names of the files NAME`suffix` in dir, one a line. */
static int list_dir(FILE *o, const char *dir, const char *suffix)
{
    char **names;
    size_t n;
    if (!dir || cli_host_list(dir, suffix, &names, &n))
        return 0; /* nothing to complete from */
    for (size_t i = 0; i < n; i++)
        fprintf(o, "%s\n", names[i]);
    cli_host_names_free(names, n);
    return 0;
}

/* Every "--word" and "-x" option a help text names, once each, in order. */
static void options_of(FILE *o, const char *text)
{
    char seen[8192] = " ";
    for (const char *p = text; *p; p++) {
        if (*p != '-' || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-')))
            continue;
        const char *q = p + 1;
        if (*q == '-')
            q++;
        if (!islower((unsigned char)*q) && !(p[1] != '-' && isupper((unsigned char)*q)))
            continue; /* --KEY and --NAME are placeholders; -V and -o are options */
        q++;
        while (p[1] == '-' && (islower((unsigned char)*q) || isdigit((unsigned char)*q) ||
                               *q == '-'))
            q++;
        if (p[1] != '-' && (isalnum((unsigned char)*q) || *q == '-'))
            continue; /* "-inf", "-th": words, not options */
        const size_t n = (size_t)(q - p);
        if (n < 2 || (p[1] != '-' && n != 2) || q[-1] == '-' || n > 40)
            continue;
        char word[48];
        snprintf(word, sizeof word, " %.*s ", (int)n, p);
        if (strstr(seen, word) || strlen(seen) + n + 2 >= sizeof seen)
            continue;
        strcat(seen, word + 1);
        fprintf(o, "%.*s\n", (int)n, p);
    }
}

int cli_help_complete(FILE *o, const char *what, const char *help_text)
{
    if (!strcmp(what, "formats")) {
        for (size_t i = 0; i < srl_format_preset_count(); i++)
            fprintf(o, "%s\n", srl_format_preset(i)->name);
        for (size_t i = 0; i < srl_mx_preset_count(); i++)
            fprintf(o, "%s\n", srl_mx_preset(i)->name);
    } else if (!strcmp(what, "modes")) {
        for (int k = 0; k < SRL_SR_BITS; k++) {
            char b[32];
            srl_rounding_name(b, sizeof b, (srl_rounding){(srl_mode)k, 0});
            fprintf(o, "%s\n", b);
        }
        fputs("sr:r=\n", o);
    } else if (!strcmp(what, "problems") || !strcmp(what, "experiments") ||
               !strcmp(what, "trainings")) {
        for (size_t i = 0; i < srl_runner_count(); i++) {
            const srl_runner *r = srl_runner_at(i);
            if (!strcmp(what, "problems") ||
                (r->kind == SRL_RUN_EXPERIMENT) == !strcmp(what, "experiments"))
                fprintf(o, "%s\n", r->name);
        }
    } else if (!strcmp(what, "strategies")) {
        for (int i = 0; srl_strategy_names[i]; i++)
            fprintf(o, "%s\n", srl_strategy_names[i]);
    } else if (!strcmp(what, "optimizers")) {
        for (int i = 0; srl_optim_names[i]; i++)
            fprintf(o, "%s\n", srl_optim_names[i]);
    } else if (!strcmp(what, "figures")) {
        return list_dir(o, cli_host_plots_dir(), ".gp");
    } else if (!strcmp(what, "specs")) {
        return list_dir(o, cli_host_experiments_dir(), ".ini");
    } else if (!strcmp(what, "options") && help_text) {
        options_of(o, help_text);
    } else {
        return -1;
    }
    return 0;
}
