/* tests/fuzz/fuzz_merge.c: CSV shards for `srlab merge` (srl_sweep_merge, src/sweep/merge.c)
 * and the summary of a runs file (srl_sweep_summary). The input is up to four files separated
 * by NUL bytes (a shard is text: it has none); the first byte says whether they are rows or runs
 * files. Whatever is accepted must be a text of the length returned. */
#include "srlab/sweep.h"

#include "fuzz_util.h"

static void check_text(const char *out, size_t len)
{
    if (!out || memchr(out, 0, len) != NULL)
        abort(); /* a merged file that is not one text of the length returned */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const char *const names[4] = {"a.csv", "b.csv", "c.csv", "d.csv"};
    const bool runs = data[0] & 1;
    srl_sweep_text files[4];
    char *copies[4];
    size_t n = 0;
    const uint8_t *rest = data + 1;
    size_t left = size - 1;
    for (;;) {
        const uint8_t *cut = left ? memchr(rest, 0, left) : NULL;
        const size_t alen = cut ? (size_t)(cut - rest) : left;
        copies[n] = malloc(alen ? alen : 1); /* exactly the bytes, no NUL after them */
        if (!copies[n])
            abort();
        if (alen)
            memcpy(copies[n], rest, alen);
        files[n] = (srl_sweep_text){names[n], copies[n], alen};
        n++;
        if (!cut || n == 4)
            break;
        rest = cut + 1;
        left -= alen + 1;
    }
    char *out = NULL;
    size_t len = 0;
    srl_err err;
    if (srl_sweep_merge(files, n, runs, &out, &len, &err) == SRL_OK) {
        check_text(out, len);
        if (runs) {
            char *sum = NULL;
            size_t slen = 0;
            const srl_sweep_text merged = {"merged.runs.csv", out, len};
            if (srl_sweep_summary(&merged, &sum, &slen, &err) == SRL_OK)
                check_text(sum, slen);
            free(sum);
        }
    }
    free(out);
    if (runs) { /* the first file alone, as the summary of a whole sweep reads it */
        char *sum = NULL;
        size_t slen = 0;
        if (srl_sweep_summary(&files[0], &sum, &slen, &err) == SRL_OK)
            check_text(sum, slen);
        free(sum);
    }
    for (size_t i = 0; i < n; i++)
        free(copies[i]);
    return 0;
}
