/* tests/fuzz/fuzz_compare.c: the runs file `srlab compare` reads (srl_sweep_compare,
 * src/sweep/compare.c). The input is the options, "AXIS,BASELINE[,METRIC[,AT_BEST]]", a NUL
 * byte, then the runs file (exactly its bytes, no NUL after them, as the command reads a file);
 * the first byte of the options picks alpha and power. A comparison is written or refused with
 * a message. */
#include "srlab/compare.h"

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double alphas[4] = {0.05, 0.5, 1e-300, 0.999999};
    static const double powers[4] = {0.8, 0.5, 1e-9, 0.999999999};
    if (size < 1)
        return 0;
    const uint8_t *opt, *file;
    size_t olen, flen;
    fuzz_split(data + 1, size - 1, 0, &opt, &olen, &file, &flen);
    char *o = fuzz_cstr(opt, olen);
    char *fields[4] = {o, NULL, NULL, NULL};
    for (int i = 1; i < 4; i++) {
        char *c = fields[i - 1] ? strchr(fields[i - 1], ',') : NULL;
        if (c) {
            *c = 0;
            fields[i] = c + 1;
        }
    }
    char *text = malloc(flen ? flen : 1);
    if (!text)
        abort();
    if (flen)
        memcpy(text, file, flen);
    const srl_sweep_text runs = {"runs.csv", text, flen};
    const srl_compare_opts opts = {fields[0], fields[1] ? fields[1] : "", fields[2],
                                   alphas[data[0] % 4], powers[data[0] / 4 % 4], fields[3]};
    char *out = NULL;
    size_t len = 0;
    srl_err err;
    err.msg[0] = 0;
    if (srl_sweep_compare(&runs, &opts, &out, &len, &err) == SRL_OK) {
        if (!out)
            abort(); /* success without a text */
        if (flen && memchr(text, 0, flen))
            abort(); /* a NUL byte is an error wherever it is (issue 28, item 5) */
    } else if (!err.msg[0]) {
        abort(); /* a refusal without a message */
    }
    free(out);
    free(text);
    free(o);
    return 0;
}
