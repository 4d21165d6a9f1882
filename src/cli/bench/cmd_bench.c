/* src/cli/bench/cmd_bench.c: `srlab bench [round|ops|kernels|train|all] [--csv]`.
 * Speed is measured, never asserted: every case is timed against a reference run in the same
 * process (see src/cli/bench/bench.h). Results go to BENCHMARKS.md with the command that made them. */
#include <string.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"

static const char help_text[] =
    "usage: srlab bench [round|ops|kernels|train|sweep|all] [--csv] [-o FILE]\n"
    "\n"
    "Measure srlab's speed against a reference run in the same process:\n"
    "  round    bulk rounding of 10^7 binary64 and binary32 values (standard normal and\n"
    "           uniform [-1,1]) to bf16, fp16, e4m3, e5m2 with rn, rz, sr (pcg32 and pcg64),\n"
    "           1 thread and all threads, beside memcpy of the same bytes; then block\n"
    "           quantization of the binary32 normal values into every block format (mxfp8-e4m3,\n"
    "           mxfp8-e5m2, mxfp6-e3m2, mxfp6-e2m3, mxfp4, mxint8, nvfp4) under every scale\n"
    "           rule (ocp, 3/4, ceil), rn and sr, beside bf16 rounding of the same array in\n"
    "           the same mode (ratio_to_bf16); case and reference run in turn, and each\n"
    "           ratio is the median over the repeats of the reference's time over the case's\n"
    "  ops      each exact operation in bf16 and fp32 with rn and sr, fast path beside MPFR\n"
    "  kernels  512x512 gemm with bf16 products (fp32 rn / bf16 sr accumulation) beside a\n"
    "           plain float triple loop\n"
    "  train    AdamW steps per second on a 10^6-parameter quadratic per strategy, beside a\n"
    "           plain float AdamW loop; GPT training tokens per second per strategy, beside\n"
    "           the same model in plain float arithmetic\n"
    "  sweep    sweep runs per second on 1 and all threads (a grid of small quadratic runs)\n"
    "  all      all of the above (the default)\n"
    "\n"
    "options:\n"
    "  --csv       machine-readable CSV (one header per benchmark)\n"
    "  -o FILE     write to FILE (atomically) instead of standard output (- or /dev/stdout:\n"
    "              standard output)\n"
    "  OMP_NUM_THREADS sets \"all threads\".\n"
    "\n"
    "example:\n"
    "  srlab bench round --csv\n";

int cmd_bench(int argc, char **argv)
{
    static const cli_opt opts[] = {{"csv", 0, NULL}, {"output", 'o', "FILE"}, {NULL, 0, NULL}};
    cli_args a;
    cli_args_init(&a, "bench", opts, argc, argv);
    int csv = 0;
    const char *which = NULL, *path = NULL;
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP)
            return cli_help(help_text);
        if (k == CLI_ARGS_BAD)
            return CLI_EXIT_USAGE;
        if (k == CLI_ARGS_POSITIONAL) {
            if (which)
                return cli_error("bench", "one benchmark at a time: '%s' after '%s'", a.val,
                                 which);
            which = a.val;
        } else if (k == 0) {
            csv = 1;
        } else {
            path = a.val;
        }
    }
    if (!which)
        which = "all";
    static const struct {
        const char *name;
        int (*fn)(FILE *, int);
    } benches[] = {{"round", cli_bench_round},
                   {"ops", cli_bench_ops},
                   {"kernels", cli_bench_kernels},
                   {"train", cli_bench_train},
                   {"train", cli_bench_gpt},
                   {"sweep", cli_bench_sweep}};
    const size_t nb = sizeof benches / sizeof *benches;
    int all = !strcmp(which, "all"), found = all;
    for (size_t i = 0; i < nb; i++)
        found |= !strcmp(which, benches[i].name);
    if (!found)
        return cli_error("bench", "unknown benchmark '%s' (known: round, ops, kernels, train, sweep, all)",
                         which);
    cli_out o;
    int rc = cli_out_open(&o, "bench", "-o", path);
    if (rc)
        return rc;
    for (size_t i = 0; i < nb && !rc; i++) {
        if (!all && strcmp(which, benches[i].name))
            continue;
        rc = benches[i].fn(o.fp, csv);
        if (all && i + 1 < nb)
            fputc('\n', o.fp);
    }
    if (rc) {
        cli_out_abort(&o);
        return rc;
    }
    return cli_out_commit(&o);
}
