/* tests/fuzz/fuzz_spec.c: spec files of `srlab sweep` (the ini reader of src/cli/cmd_sweep.c,
 * then src/sweep's values, ranges, zips, grid and validation runs) through the command itself,
 * `sweep SPEC --dry-run`, with the toy runners of tests/sweep (so the target fuzzes the spec
 * and the sweep engine, not the trainers, and a grid point costs microseconds). --dry-run
 * writes nothing but standard output, which run.sh discards (-close_fd_mask). An input that
 * holds "[quick]" adds --quick (the spec's [quick] section then applies). */
#include "cli/cli.h"
#include "cli/sweep_cli.h"
#include "srlab/run.h"

#include "fuzz_util.h" /* first: toy_runner.h uses stdio */
#include "../sweep/toy_runner.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return fuzz_initialize(argc, argv);
}

static bool has_quick(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i + 7 <= size; i++)
        if (!memcmp(data + i, "[quick]", 7))
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("spec.ini", data, size);
    char *args[] = {"sweep", (char *)path, "--dry-run", "--quick", NULL};
    const int argc = has_quick(data, size) ? 4 : 3;
    args[argc] = NULL;
    const int rc = cli_sweep_main(argc, args, toy_runners);
    if (rc != 0 && rc != CLI_EXIT_USAGE)
        abort(); /* a spec is valid (0) or refused as the user's mistake (2), nothing else */
    if (rc == 0 && memchr(data, 0, size))
        abort(); /* a NUL byte is an error wherever it is (issue 28, item 5) */
    return 0;
}
