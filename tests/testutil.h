/* tests/testutil.h: the few helpers every srlab test uses.
 *
 * A test fails loudly: CHECK prints the file, line, the failed condition and a message with the
 * inputs (and seed) that reproduce it, counts the failure, and the test exits non-zero at the
 * end (TEST_END). Tests print one PASS/FAIL line per check group, GSL-style. */
#ifndef SRL_TESTUTIL_H
#define SRL_TESTUTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"

static long srl_test_failures;
static long srl_test_checks;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        srl_test_checks++;                                                                        \
        if (!(cond)) {                                                                            \
            srl_test_failures++;                                                                  \
            if (srl_test_failures <= 50) {                                                        \
                fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
                fprintf(stderr, __VA_ARGS__);                                                     \
                fputc('\n', stderr);                                                              \
            }                                                                                     \
        }                                                                                         \
    } while (0)

/* Report a named group: PASS if no failure since `before`. */
#define GROUP(name, before)                                                                       \
    printf("%s: %s\n", (srl_test_failures == (before)) ? "PASS" : "FAIL", (name))

#define TEST_END()                                                                                \
    do {                                                                                          \
        printf("%ld checks, %ld failures\n", srl_test_checks, srl_test_failures);                 \
        return srl_test_failures ? 1 : 0;                                                         \
    } while (0)

/* Bitwise equality of doubles, NaN equal to NaN (any payload). */
static inline int srl_test_same(double a, double b)
{
    if (a != a && b != b)
        return 1;
    uint64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x == y;
}

/* Scale a test's size down when SRL_TEST_SCALE is set (0 < scale <= 1), e.g. for a quick run
 * under a sanitizer; the statistical thresholds are always derived from the n actually used. */
static inline long srl_test_n(long n)
{
    const char *s = getenv("SRL_TEST_SCALE");
    double f = s ? atof(s) : 1.0;
    if (!(f > 0 && f <= 1))
        f = 1.0;
    long m = (long)(n * f);
    return m < 1 ? 1 : m;
}

/* Parse the format `text` into *f: 1, or 0 after a failed check naming the text and the
 * parser's message. */
static inline int srl_test_format(srl_format *f, const char *text)
{
    srl_err err;
    if (srl_format_parse(f, text, &err) == SRL_OK)
        return 1;
    CHECK(0, "format %s does not parse: %s", text, err.msg);
    return 0;
}

#endif
