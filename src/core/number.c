/* src/core/number.c: the strict number parser (include/srlab/number.h). */
#include "srlab/number.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int refuse(char *why, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, SRL_NUMBER_WHY_LEN, fmt, ap);
    va_end(ap);
    return status;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Digits to a value; false when it exceeds max (or 2^64-1). */
static bool digits_value(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = 10 * v + d;
        if (v > max)
            return false;
    }
    *out = v;
    return true;
}

int srl_number_double(double *out, const char *s, int accept, char why[SRL_NUMBER_WHY_LEN])
{
    if (strlen(s) > SRL_NUMBER_MAX)
        return refuse(why, SRL_EPARSE, "is too long for a number (at most %d characters)",
                      SRL_NUMBER_MAX);
    if (!*s || isspace((unsigned char)s[0]))
        return refuse(why, SRL_EPARSE, "is not a number");
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    bool range = errno == ERANGE;
    if (end == s || *end)
        return refuse(why, SRL_EPARSE, "is not a number");
    if (accept == SRL_NUMBER_FINITE && !isfinite(x))
        return refuse(why, SRL_ERANGE, range ? "is beyond binary64's range" : "is not finite");
    if (accept == SRL_NUMBER_NO_OVERFLOW && range && isinf(x))
        return refuse(why, SRL_ERANGE, "is beyond binary64's range");
    *out = x;
    return SRL_OK;
}

int srl_number_u64(uint64_t *out, const char *s, uint64_t min, uint64_t max,
                   char why[SRL_NUMBER_WHY_LEN])
{
    char desc[48];
    if (min == 0)
        snprintf(desc, sizeof desc, "a non-negative integer");
    else if (min == 1)
        snprintf(desc, sizeof desc, "a positive integer");
    else
        snprintf(desc, sizeof desc, "an integer >= %llu", (unsigned long long)min);
    uint64_t v;
    if (!all_digits(s))
        return refuse(why, SRL_EPARSE, "is not %s", desc);
    if (!digits_value(s, max, &v))
        return refuse(why, SRL_ERANGE, "is too large (at most %llu)", (unsigned long long)max);
    if (v < min)
        return refuse(why, SRL_ERANGE, "is not %s", desc);
    *out = v;
    return SRL_OK;
}

int srl_number_i64(long long *out, const char *s, long long min, long long max,
                   char why[SRL_NUMBER_WHY_LEN])
{
    const char *t = s;
    bool neg = false;
    if (*t == '-' || *t == '+')
        neg = *t++ == '-';
    uint64_t v;
    if (!all_digits(t))
        return refuse(why, SRL_EPARSE, "is not an integer");
    if (!digits_value(t, (uint64_t)LLONG_MAX + 1u, &v) || (!neg && v > (uint64_t)LLONG_MAX))
        goto range;
    long long x = neg ? (v == (uint64_t)LLONG_MAX + 1u ? LLONG_MIN : -(long long)v) : (long long)v;
    if (x < min || x > max)
        goto range;
    *out = x;
    return SRL_OK;
range:
    return refuse(why, SRL_ERANGE, "is out of range (%lld to %lld)", min, max);
}

int srl_number_seed(uint64_t *out, const char *s, char why[SRL_NUMBER_WHY_LEN])
{
    static const char *desc = "an integer from 0 to 18446744073709551615, decimal or 0x hex";
    uint64_t v = 0;
    if ((s[0] == '0') && (s[1] == 'x' || s[1] == 'X')) {
        const char *h = s + 2;
        if (!*h)
            return refuse(why, SRL_EPARSE, "is not a seed (%s)", desc);
        for (; *h; h++) {
            if (!isxdigit((unsigned char)*h))
                return refuse(why, SRL_EPARSE, "is not a seed (%s)", desc);
            if (v >> 60)
                return refuse(why, SRL_ERANGE, "is too large for a seed (%s)", desc);
            int d = isdigit((unsigned char)*h) ? *h - '0' : tolower((unsigned char)*h) - 'a' + 10;
            v = (v << 4) | (uint64_t)d;
        }
    } else {
        if (!all_digits(s))
            return refuse(why, SRL_EPARSE, "is not a seed (%s)", desc);
        if (!digits_value(s, UINT64_MAX, &v))
            return refuse(why, SRL_ERANGE, "is too large for a seed (%s)", desc);
    }
    *out = v;
    return SRL_OK;
}
