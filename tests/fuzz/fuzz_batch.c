/* tests/fuzz/fuzz_batch.c: the --batch readers of `srlab round` and `srlab op` (src/cli/batch.c,
 * teach.c's line reader, op's field splitter, the number parser, then the rounding of every
 * line), through the commands themselves. The first byte picks the command (round, or op with
 * one of its operations), the format and the rounding mode; the rest is standard input: the
 * target points stdin at the bytes (fmemopen) for the call, so the command reads them exactly as
 * it reads a pipe. The CSV goes to a file in the target's temporary directory (-o); messages go
 * to standard error, which run.sh discards (-close_fd_mask). A batch is valid (0) or refused as
 * the user's mistake (2), nothing else. */
#include "cli/cli.h"

#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return fuzz_initialize(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[8] = {"bf16", "fp16", "e4m3", "e5m2", "fp64", "tf32",
                                           "p=3,emax=2,subnormals=off", "e4m3,saturate=on"};
    static const char *const modes[8] = {"rn", "sr", "sr:r=3", "ro", "rz", "rna", "ru", "sr-eq"};
    static const char *const ops[7] = {NULL, "add", "sub", "mul", "fma", "div", "sqrt"};
    if (size < 2)
        return 0;
    const unsigned sel = data[0];
    const char *op = ops[sel % 7];
    char *args[12];
    int argc = 0;
    args[argc++] = op ? "op" : "round";
    if (op)
        args[argc++] = (char *)op;
    args[argc++] = "--batch";
    args[argc++] = "-f";
    args[argc++] = (char *)formats[sel / 7 % 8];
    args[argc++] = "-r";
    args[argc++] = (char *)modes[(sel / 56 + size) % 8];
    args[argc++] = "--quiet";
    args[argc++] = "-o";
    args[argc++] = "batch.csv";
    args[argc] = NULL;
    uint8_t *in = malloc(size - 1);
    if (!in)
        abort();
    memcpy(in, data + 1, size - 1);
    FILE *saved = stdin, *f = fmemopen(in, size - 1, "r");
    if (!f)
        abort();
    stdin = f;
    const int rc = op ? cmd_op(argc, args) : cmd_round(argc, args);
    stdin = saved;
    fclose(f);
    free(in);
    if (rc != 0 && rc != CLI_EXIT_USAGE)
        abort(); /* a system error or a crash in the making: not an answer to bad input */
    if (rc == 0 && memchr(data + 1, 0, size - 1))
        abort(); /* a NUL byte is an error wherever it is (issue 28, item 5) */
    return 0;
}
