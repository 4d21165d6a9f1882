/* srlab/number.h: the one strict parser of numbers in text, for every command-line option,
 * config key, spec-file value, theory parameter and batch line.
 *
 * Strict: the whole text is the number (no leading or trailing space, nothing after it), and a
 * value out of range is refused rather than clamped. Each function returns SRL_OK or an error
 * status and, on error, sets *why to a static phrase that completes "'TEXT' ...": "is not a
 * number", "is beyond binary64's range", "is too large (at most 1000)". The caller names the
 * key or the option and quotes the text; the parser never prints. *out is written only on
 * success. */
#ifndef SRLAB_NUMBER_H
#define SRLAB_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest text accepted as a number (a longer one: "is too long for a number ..."). */
#define SRL_NUMBER_MAX 4096

/* Room for the phrases that carry a bound ("is too large (at most 18446744073709551615)"). */
#define SRL_NUMBER_WHY_LEN 96

/* What srl_number_double accepts besides finite numbers written within binary64's range. */
enum {
    SRL_NUMBER_ANY = 0,         /* inf, nan, and decimals beyond the range (they give +-inf) */
    SRL_NUMBER_NO_OVERFLOW = 1, /* inf and nan written as such, but no overflowing decimal */
    SRL_NUMBER_FINITE = 2       /* finite values only */
};

/* A binary64 number as strtod reads it (decimal, hexadecimal, inf, nan), the whole text, with
 * what `accept` allows ("is beyond binary64's range", "is not finite"). */
int srl_number_double(double *out, const char *s, int accept, char why[SRL_NUMBER_WHY_LEN])
    SRL_WUR;

/* Decimal digits (no sign, no space), or an integer written with an exponent when its value is
 * exactly an integer ("1e4", "2.5e3"; "1.5e0" is refused), min <= value <= max. The phrase says what was
 * expected: "is not a non-negative integer", "is not a positive integer", "is not an integer
 * >= 3", or "is too large (at most MAX)" for a value merely beyond max. */
int srl_number_u64(uint64_t *out, const char *s, uint64_t min, uint64_t max,
                   char why[SRL_NUMBER_WHY_LEN]) SRL_WUR;

/* An optional sign then decimal digits (or an exact integer with an exponent, as above),
 * min <= value <= max ("is not an integer", "is out of
 * range (MIN to MAX)"). */
int srl_number_i64(long long *out, const char *s, long long min, long long max,
                   char why[SRL_NUMBER_WHY_LEN]) SRL_WUR;

/* A seed: 0 to 2^64-1, decimal or 0x hexadecimal ("is not a seed (...)", "is too large for a
 * seed (...)"). */
int srl_number_seed(uint64_t *out, const char *s, char why[SRL_NUMBER_WHY_LEN]) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
