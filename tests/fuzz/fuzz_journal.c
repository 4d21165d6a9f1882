/* tests/fuzz/fuzz_journal.c: journal records (srl_sweep_journal_read, src/sweep/journal.c), the
 * file `srlab sweep --resume` reads back after a kill. Every query a resuming sweep makes is
 * asked of whatever the reader accepted, against a small sweep of the toy runners prepared once
 * (the sweep whose journals are the seed corpus; its rows and runs files are assembled from the
 * journal's runs): the valid length must not exceed the text, and a file the reader says it
 * assembled must exist. Inputs of even length get their record checksums set right first, so
 * that mutations reach the code behind the checksum. */
#include <inttypes.h>

#include "srlab/rng.h"
#include "srlab/sweep.h"

#include "fuzz_util.h" /* first: toy_runner.h uses stdio */
#include "../sweep/toy_runner.h"

static srl_sweep *sw;
static char *pre;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    const srl_sweep_setting set[] = {{"problem", "toy", NULL}, {"lr", "0.1,0.2", NULL},
                                     {"seeds", "2", NULL}, {"steps", "3", NULL},
                                     {"sleep-ms", "300", NULL}};
    srl_err err;
    const srl_sweep_meta meta = {"2026-01-01T00:00:00Z", NULL, false, 0, 0};
    if (srl_sweep_new(&sw, set, sizeof set / sizeof set[0], toy_runners, &err) ||
        srl_sweep_prepare(sw, 1, &err) || srl_sweep_preamble(sw, &meta, &pre))
        abort();
    return 0;
}

/* Rewrite the checksum of every "@run R rows A summary B fnv H" line whose A + B bytes follow
 * it to the one the writer would give them (FNV-1a over R in decimal, the rows, the summary),
 * so that mutated records get past the checksum and the code after it is fuzzed too. */
static void resign(char *t, size_t n)
{
    size_t pos = 0;
    while (pos < n) {
        const char *nl = memchr(t + pos, '\n', n - pos);
        if (!nl)
            return;
        const size_t ll = (size_t)(nl - (t + pos)), body = pos + ll + 1;
        char line[160], hex[17];
        unsigned long long r, a, b;
        int used = 0;
        if (ll < sizeof line && t[pos] == '@') {
            memcpy(line, t + pos, ll);
            line[ll] = 0;
            if (sscanf(line, "@run %llu rows %llu summary %llu fnv %16[0-9a-f]%n", &r, &a, &b,
                       hex, &used) == 4 && (size_t)used == ll && strlen(hex) == 16 &&
                a <= n - body && b <= n - body - a) {
                char num[32];
                const int k = snprintf(num, sizeof num, "%zu", (size_t)r);
                uint64_t h = srl_fnv1a64(num, (size_t)k, SRL_FNV1A64_BASIS);
                h = srl_fnv1a64(t + body, (size_t)a, h);
                h = srl_fnv1a64(t + body + a, (size_t)b, h);
                snprintf(hex, sizeof hex, "%016" PRIx64, h);
                memcpy(t + pos + ll - 16, hex, 16);
                pos = body + (size_t)(a + b);
                continue;
            }
        }
        pos = body;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the reader gets exactly the bytes, without a terminating NUL, as cli_read_file gives them */
    uint8_t *text = malloc(size ? size : 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    if (size % 2 == 0) /* half the inputs: records whose checksums are right */
        resign((char *)text, size);
    srl_sweep_journal *j = NULL;
    srl_err err;
    if (srl_sweep_journal_read(&j, (const char *)text, size, &err) == SRL_OK && j) {
        if (srl_sweep_journal_valid_len(j) > size)
            abort(); /* a valid part longer than the text */
        char date[64], theirs[300], ours[300];
        (void)srl_sweep_journal_date(j, date, sizeof date);
        const char *p = srl_sweep_journal_preamble(j);
        if (p)
            (void)strlen(p);
        (void)srl_sweep_journal_differs(j, sw, pre, theirs, sizeof theirs, ours, sizeof ours);
        const size_t R = srl_sweep_nruns(sw);
        size_t runs[16], n = 0;
        for (size_t r = 0; r < R && n < 16; r++)
            if (srl_sweep_journal_has(j, r))
                runs[n++] = r;
        (void)srl_sweep_journal_has(j, (size_t)-1);
        (void)srl_sweep_journal_count(j);
        char *out = NULL;
        size_t len = 0;
        if (srl_sweep_journal_rows(j, sw, pre, runs, n, &out, &len, &err) == SRL_OK &&
            (!out || memchr(out, 0, len)))
            abort(); /* success without a file, or a file that is not text (a NUL kept) */
        free(out);
        out = NULL;
        if (srl_sweep_journal_runs(j, sw, pre, runs, n, &out, &len, &err) == SRL_OK &&
            (!out || memchr(out, 0, len)))
            abort();
        free(out);
    }
    srl_sweep_journal_free(j);
    free(text);
    return 0;
}
