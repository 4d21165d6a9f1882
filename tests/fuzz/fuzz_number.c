/* tests/fuzz/fuzz_number.c: the strict number parser (srlab/number.h) behind every option,
 * config key, spec value and batch line. The first byte picks the function and its bounds, the
 * rest is the text. A success must honour the bounds and what `accept` allows; a refusal must
 * leave *out untouched and say why. */
#include <limits.h>
#include <math.h>

#include "srlab/number.h"

#include "fuzz_util.h"

static void check_why(const char *why)
{
    if (!why[0] || memchr(why, 0, SRL_NUMBER_WHY_LEN) == NULL)
        abort(); /* a refusal without its phrase */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const uint64_t umax[4] = {UINT64_MAX, 1000, 1u << 20, 64};
    static const long long imin[4] = {LLONG_MIN, -1000, 0, -1}, imax[4] = {LLONG_MAX, 1000, 30, 1};
    const unsigned sel = data[0];
    char *s = fuzz_cstr(data + 1, size - 1);
    char why[SRL_NUMBER_WHY_LEN];
    why[0] = 0;
    switch (sel % 4) {
    case 0: {
        const int accept = (int)(sel / 4 % 3);
        double x = 12345.0;
        if (srl_number_double(&x, s, accept, why) == SRL_OK) {
            if (accept == SRL_NUMBER_FINITE && !isfinite(x))
                abort(); /* a non-finite value where only finite ones are accepted */
        } else {
            check_why(why);
            if (x != 12345.0)
                abort(); /* *out written on a refusal */
        }
        break;
    }
    case 1: {
        const uint64_t max = umax[sel / 4 % 4], min = sel / 16 % 2;
        uint64_t v = 7;
        if (srl_number_u64(&v, s, min, max, why) == SRL_OK) {
            if (v < min || v > max)
                abort(); /* out of the bounds asked for */
        } else {
            check_why(why);
            if (v != 7)
                abort();
        }
        break;
    }
    case 2: {
        const long long lo = imin[sel / 4 % 4], hi = imax[sel / 4 % 4];
        long long v = 7;
        if (srl_number_i64(&v, s, lo, hi, why) == SRL_OK) {
            if (v < lo || v > hi)
                abort();
        } else {
            check_why(why);
            if (v != 7)
                abort();
        }
        break;
    }
    default: {
        uint64_t v = 7;
        if (srl_number_seed(&v, s, why) != SRL_OK) {
            check_why(why);
            if (v != 7)
                abort();
        }
        break;
    }
    }
    free(s);
    return 0;
}
