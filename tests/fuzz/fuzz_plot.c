/* tests/fuzz/fuzz_plot.c: what `srlab plot` checks before gnuplot may run (src/cli/cmd_plot.c):
 * the --set values and the --in CSV (its header against the figure's "# needs:" columns, and
 * whatever else the command reads of it), through the command itself. The input is a byte that
 * picks the figure (one of the scripts in plots/), the --set values, one per line (at most 6),
 * a NUL byte, then the bytes of the CSV. PATH is emptied at start, so gnuplot is never
 * found: the command stops at its last check, and no fuzzed text can reach gnuplot or a shell.
 * Every command line must end in a usage error (2), or in a system error (3: gnuplot cannot be
 * started); never in 0 (a figure drawn without gnuplot) or anything else. */
#include "cli/cli.h"

#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (setenv("PATH", "/nonexistent/srlab-fuzz-no-gnuplot", 1) != 0)
        abort();
    return fuzz_initialize(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const figures[7] = {"loss_vs_step", "lr_sweep", "stall", "sum_error",
                                           "gpt_curves", "gpt_lr", "gpt_replicas"};
    if (size < 1)
        return 0;
    const uint8_t *sets, *csv;
    size_t slen, clen;
    fuzz_split(data + 1, size - 1, 0, &sets, &slen, &csv, &clen);
    const char *in = fuzz_file("in.csv", csv, clen);
    char *text = fuzz_cstr(sets, slen);
    char *args[6 * 2 + 8];
    int argc = 0;
    args[argc++] = "plot";
    args[argc++] = (char *)figures[data[0] % 7];
    args[argc++] = "--in";
    args[argc++] = (char *)in;
    args[argc++] = "-o";
    args[argc++] = "fig.png";
    for (char *s = text, *nl; s && argc < 6 * 2 + 6; s = nl ? nl + 1 : NULL) {
        if ((nl = strchr(s, '\n')))
            *nl = 0;
        if (!*s && !nl)
            break;
        args[argc++] = "--set";
        args[argc++] = s;
    }
    args[argc] = NULL;
    const int rc = cmd_plot(argc, args);
    free(text);
    if (rc != CLI_EXIT_USAGE && rc != CLI_EXIT_SYSTEM)
        abort(); /* without gnuplot no command line can succeed */
    return 0;
}
