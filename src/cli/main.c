/* src/cli/main.c: the srlab command: `srlab COMMAND [ARGS...]` dispatched through one table.
 *
 * To add a command: write src/cli/cmd_NAME.c with `int cmd_NAME(int argc, char **argv)` (argv[0]
 * is "NAME"; the conventions are in src/cli/cli.h), declare it in cli.h, add a row below and the
 * file to src/cli/meson.build. This file owns the process: it switches GSL's abort-on-error
 * handler off (the commands check GSL's return values) and frees MPFR's caches at the end. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <mpfr.h>

#include "cli/cli.h"
#include "cli/help_gen.h"
#include "cli/host.h"
#include "srlab/common.h"
#include "srlab/run.h" /* srl_run_clamp_threads */

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line for `srlab --help` */
} cli_command;

static const cli_command commands[] = {
    {"formats", cmd_formats, "the format presets: precision, exponent range, u, smallest and largest values"},
    {"round", cmd_round, "round numbers into a format, explained step by step, or a CSV batch from stdin"},
    {"op", cmd_op, "one exact operation (add sub mul fma div sqrt) rounded once, explained, or a CSV batch"},
    {"run", cmd_run, "run one experiment (harmonic, sum, matvec, heat) and write tidy CSV"},
    {"train", cmd_train, "train a problem with an optimizer under a precision strategy; tidy CSV per logged step"},
    {"sweep", cmd_sweep, "run a grid of train/run configs over seeds in parallel: tidy CSV + summary, resumable, shardable"},
    {"merge", cmd_merge, "join the shards of a sweep (srlab sweep --shard I/N) into the single-machine files"},
    {"compare", cmd_compare, "paired comparisons of a sweep's runs: Holm-corrected p and the smallest detectable difference"},
    {"plot", cmd_plot, "draw a figure from sweep CSV files with gnuplot (plots/NAME.gp): PNG, SVG or PDF"},
    {"theory", cmd_theory, "the predictions of a theory/ statement for given parameters"},
    {"check", cmd_check, "run every theory/ statement's experiment: measured vs predicted, PASS/FAIL"},
    {"reproduce", cmd_reproduce, "rebuild the whole study as one report: experiments, figures, checks (index.html)"},
    {"bench", cmd_bench, "measure speed against a reference in the same process (round, ops, kernels, train, sweep)"},
    {"demo", cmd_demo, "short step-by-step demonstrations for teaching (srlab demo lists them)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (strcmp(commands[k].name, name) == 0)
            return &commands[k];
    return NULL;
}

static void print_help(FILE *fp)
{
    fprintf(fp, "usage: srlab COMMAND [ARGS...]      (srlab COMMAND --help for its options)\n"
                "\n"
                "srlab %s: exact emulation of low-precision formats and rounding modes, stochastic\n"
                "rounding, training in emulated precision.\n"
                "\n"
                "commands:\n",
            srl_version());
    for (size_t k = 0; k < NCOMMANDS; k++)
        fprintf(fp, "  %-9s %s\n", commands[k].name, commands[k].summary);
    fprintf(fp, "  %-9s %s\n", "help", "this list; 'srlab help COMMAND' is 'srlab COMMAND --help'");
    fputs("\n"
          "options:\n"
          "  -h, --help     this list\n"
          "  -V, --version  print 'srlab VERSION'\n"
          "\n"
          "exit status: 0 success, 1 a check failed (srlab check), 2 bad input or usage,\n"
          "3 a system error (writing output, out of memory)\n"
          "\n"
          "examples:\n"
          "  srlab formats\n"
          "  srlab round 0.1 -f bf16\n"
          "  srlab round 1.00390625 -f bf16 -r sr --samples 10000\n",
          fp);
}

/* srlab's own help, as a command (for capturing it). */
static int top_help(int argc, char **argv)
{
    (void)argc, (void)argv;
    print_help(stdout);
    return cli_help("");
}

/* The hidden generators (src/cli/help_gen.h): `srlab help --man [CMD]` writes the man page of
 * srlab or of CMD from its --help text; `srlab help --complete WHAT [CMD]` the completion words
 * of WHAT (the options of CMD, or of srlab itself). */
static int help_generate(int argc, char **argv)
{
    const bool man = !strcmp(argv[2], "--man");
    const char *what = man ? NULL : argc > 3 ? argv[3] : NULL;
    const char *name = man ? (argc > 3 ? argv[3] : NULL) : (argc > 4 ? argv[4] : NULL);
    char q[CLI_QUOTE_LEN];
    if (argc > (man ? 4 : 5) || (!man && !what))
        return cli_error("help", "usage: srlab help --man [COMMAND] | --complete WHAT [COMMAND]");
    const cli_command *c = name ? find_command(name) : NULL;
    if (name && !c) {
        cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX);
        return cli_error("help", "unknown command %s (see 'srlab --help')", q);
    }
    char *text = NULL;
    int rc = 0;
    if (man || !strcmp(what, "options")) {
        char help[] = "--help";
        char *hargv[] = {c ? (char *)c->name : "srlab", help, NULL};
        text = cli_help_capture(c ? c->run : top_help, 2, hargv, &rc);
        if (!text)
            return cli_sys_error("help", "cannot capture the help text: %s", strerror(errno));
        if (rc) {
            free(text);
            return rc;
        }
    }
    if (!man && !strcmp(what, "commands")) {
        for (size_t k = 0; k < NCOMMANDS; k++)
            printf("%s\n", commands[k].name);
        printf("help\n");
    } else if (man) {
        char title[64], see[2048] = "";
        snprintf(title, sizeof title, c ? "srlab-%s" : "srlab", c ? c->name : "");
        if (!c) { /* srlab(1): every command's page, the library's, and the documents */
            for (size_t k = 0; k < NCOMMANDS; k++)
                snprintf(see + strlen(see), sizeof see - strlen(see), "%ssrlab\\-%s(1), ",
                         k ? "" : ".nh\n", commands[k].name);
            snprintf(see + strlen(see), sizeof see - strlen(see), "%s",
                     "srlab(3) (the C library, a page per header of include/srlab/).\n.PP\n"
                     "The statements that srlab theory evaluates and srlab check tests: "
                     "share/srlab/theory/ (theory/ in the source tree). README.md and docs/ "
                     "(design, tutorial, reference, testing): share/doc/srlab/.");
        }
        cli_help_man(stdout, title,
                     c ? c->summary : "exact emulation of low-precision formats and rounding modes",
                     srl_version(), text, c ? NULL : see);
    } else if (cli_help_complete(stdout, what, text)) {
        free(text);
        cli_quote(q, sizeof q, what, strlen(what), CLI_QUOTE_MAX);
        return cli_error("help", "--complete: unknown word list %s (commands, options, formats, "
                         "modes, problems, experiments, trainings, strategies, optimizers, "
                         "figures, specs)", q);
    }
    free(text);
    const int e = cli_stdout_flush();
    return e ? cli_sys_error("help", "cannot write standard output: %s", strerror(e)) : 0;
}

static int run_command(const cli_command *c, int argc, char **argv)
{
    int rc = c->run(argc, argv);
    mpfr_free_cache();
    return rc;
}

static int dispatch(int argc, char **argv)
{
    srl_run_clamp_threads(); /* whatever OMP_NUM_THREADS says (srlab/run.h) */
    if (argc < 2) {
        char list[256] = "";
        for (size_t k = 0; k < NCOMMANDS; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                     commands[k].name);
        return cli_error(NULL, "no command; commands: %s (see 'srlab --help')", list);
    }
    const char *name = argv[1];
    char q[CLI_QUOTE_LEN];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
        (strcmp(name, "help") == 0 && argc == 2)) {
        print_help(stdout);
        return cli_help("");
    }
    if (strcmp(name, "help") == 0 && (!strcmp(argv[2], "--man") || !strcmp(argv[2], "--complete")))
        return help_generate(argc, argv);
    if (strcmp(name, "help") == 0) {
        const cli_command *c = find_command(argv[2]);
        if (!c) {
            cli_quote(q, sizeof q, argv[2], strlen(argv[2]), CLI_QUOTE_MAX);
            return cli_error("help", "unknown command %s (see 'srlab --help')", q);
        }
        if (argc > 3)
            return cli_error("help", "give one command: srlab help COMMAND");
        char help[] = "--help";
        char *hargv[] = {argv[2], help, NULL};
        return run_command(c, 2, hargv);
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        if (argc > 2)
            return cli_error(NULL, "%s takes no arguments", name);
        printf("srlab %s\n", srl_version());
        return cli_help("");
    }
    const cli_command *c = find_command(name);
    if (!c) {
        cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX);
        if (name[0] == '-')
            return cli_error(NULL, "unknown option %s (see 'srlab --help')", q);
        return cli_error(NULL, "unknown command %s (see 'srlab --help')", q);
    }
    return run_command(c, argc - 1, argv + 1);
}

/* Standard output goes through a checked stream (src/cli/cli.h): whatever a command printed to
 * it, a failure to write it is the command's failure, with its errno (issue 28, item 3). */
int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    cli_stdout_init();
    int rc = dispatch(argc, argv), e = cli_stdout_flush();
    if (e && (rc == CLI_EXIT_OK || rc == CLI_EXIT_FAIL))
        rc = cli_sys_error(argc > 1 && find_command(argv[1]) ? argv[1] : NULL,
                           "cannot write standard output: %s", strerror(e));
    return rc;
}
