/* tests/install/client.c: a program outside the project, built against an installed srlab with
 * `pkg-config --cflags --libs srlab` (and --static) by tests/install/install.sh. It rounds values
 * through the public API and checks the results it knows exactly; exit 0 when every one holds.
 * It uses no header but the installed <srlab/...> ones. */
#include <stdio.h>
#include <string.h>

#include <srlab/common.h>
#include <srlab/format.h>
#include <srlab/mode.h>
#include <srlab/rng.h>
#include <srlab/rounding.h>

static int failures;

static void expect(const char *what, double got, double want)
{
    if (!(got == want)) {
        printf("FAIL: %s = %a, expected %a\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    const srl_format *bf16 = srl_format_find("bf16");
    if (!bf16) {
        puts("FAIL: no bf16 preset");
        return 1;
    }
    /* 0.1 lies between the bf16 neighbours 0x1.98p-4 and 0x1.9ap-4, nearer the upper one */
    expect("rn(0.1)", srl_round(0.1, bf16, SRL_ROUND_RN, NULL), 0x1.9ap-4);
    srl_rounding rz;
    srl_err err;
    if (srl_rounding_parse(&rz, "rz", &err) != SRL_OK) {
        printf("FAIL: rz: %s\n", err.msg);
        return 1;
    }
    expect("rz(0.1)", srl_round(0.1, bf16, rz, NULL), 0x1.98p-4);
    /* stochastic rounding of an array (the bulk path, OpenMP inside the library): every
     * result is one of the two neighbours, and both occur */
    enum { N = 1 << 16 };
    static double x[N], y[N];
    for (size_t i = 0; i < N; i++)
        x[i] = 1.0 + 0x1p-9; /* a quarter of the way from 1 to its bf16 successor 1 + 2^-7 */
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, 7, 0);
    if (srl_round_array(y, x, N, bf16, SRL_ROUND_SR, &rng) != SRL_OK) {
        puts("FAIL: srl_round_array");
        return 1;
    }
    size_t up = 0;
    for (size_t i = 0; i < N; i++) {
        if (y[i] != 1.0 && y[i] != 1.0 + 0x1p-7) {
            printf("FAIL: sr(1 + 2^-9) = %a, not a neighbour\n", y[i]);
            return 1;
        }
        up += y[i] != 1.0;
    }
    /* P(up) = 1/4 exactly: 16384 expected, standard deviation 111 */
    if (up < 16384 - 1000 || up > 16384 + 1000) {
        printf("FAIL: sr(1 + 2^-9) went up %zu times of %d, expected about %d\n", up, N, N / 4);
        failures++;
    }
    printf("srlab %s: rn(0.1) = %a, sr(1 + 2^-9) up %zu of %d\n", srl_version(),
           srl_round(0.1, bf16, SRL_ROUND_RN, NULL), up, N);
    return failures ? 1 : 0;
}
