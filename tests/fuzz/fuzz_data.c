/* tests/fuzz/fuzz_data.c: the file of `srlab train --problem gpt --data FILE` (the readers of
 * src/problems/gpt.c: size and memory checks; for text, the binary-text test and the byte
 * vocabulary; for a token file as llm.c writes them (first int32 20240520), the header's fields,
 * the size, the tokens against vocab; the training/validation split), through srl_run with the
 * smallest model. The sink stops the run at its first call, once the data is read and the model
 * built, so an input costs no training. The first byte picks the split (val-frac), the context
 * length (block-size) and, for a token file, vocab (auto, 2, 300, 65536); the rest is the file.
 * A file is accepted (the sink is reached) or refused with a message (SRL_EINVAL). */
#include "srlab/run.h"

#include "fuzz_util.h"

enum { REACHED = 99 };

static int stop_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *k)
{
    (void)ctx;
    (void)ncol;
    (void)names;
    (void)k;
    return REACHED;
}

static int no_row(void *ctx, const srl_value *v)
{
    (void)ctx;
    (void)v;
    abort(); /* begin stops the run */
}

static const srl_runner *gpt;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (!(gpt = srl_runner_find(SRL_RUN_TRAIN, "gpt")))
        abort();
    return fuzz_initialize(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const fracs[4] = {"0.1", "0.5", "0.9", "0.001"};
    static const char *const blocks[4] = {"1", "2", "4", "16"};
    static const char *const vocabs[4] = {"auto", "2", "300", "65536"};
    if (size < 1)
        return 0;
    const int tokens = size >= 5 && data[1] == 0xd8 && data[2] == 0xd3 && data[3] == 0x34 &&
                       data[4] == 0x01; /* 20240520, little endian */
    const char *path = fuzz_file("data.txt", data + 1, size - 1);
    srl_config *cfg = srl_config_new();
    if (!cfg)
        abort();
    const char *kv[][2] = {{"data", path},        {"val-frac", fracs[data[0] % 4]},
                           {"block-size", blocks[data[0] / 4 % 4]},
                           {"n-layer", "1"},      {"n-head", "1"},
                           {"n-embd", "4"},       {"batch-size", "1"},
                           {"eval-windows", "1"}, {"steps", "1"},
                           {"mem-limit", "256M"},
                           {"vocab", tokens ? vocabs[data[0] / 16 % 4] : "auto"}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        if (srl_config_set(cfg, kv[i][0], kv[i][1]) != SRL_OK)
            abort();
    const srl_sink sink = {stop_begin, no_row, NULL};
    srl_run_report rep;
    memset(&rep, 0, sizeof rep);
    srl_err err;
    err.msg[0] = 0;
    const int st = srl_run(gpt, cfg, &sink, &rep, &err);
    if (st != REACHED && !(st == SRL_EINVAL && err.msg[0]))
        abort(); /* neither accepted nor refused with a message */
    srl_config_free(cfg);
    return 0;
}
