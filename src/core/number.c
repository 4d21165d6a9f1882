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

/* An integer written with an exponent ("1e4", "2.5E+3"): its plain decimal digits into buf
 * (cap bytes), without leading zeros; false when s is not digits[.digits](e|E)[+-]digits or its
 * value is not exactly an integer. A value too long for buf is written as 21 nines, which every
 * bound refuses as too large. */
static bool exponent_integer(const char *s, char *buf, size_t cap)
{
    char dig[SRL_NUMBER_MAX + 1];
    size_t nd = 0, nint = 0;
    const char *p = s;
    for (; isdigit((unsigned char)*p); p++)
        dig[nd++] = *p;
    nint = nd;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            dig[nd++] = *p;
    if (nd == 0 || (*p != 'e' && *p != 'E'))
        return false;
    p++;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (!*p)
        return false;
    long e = 0;
    for (; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return false;
        if (e < 100000)
            e = 10 * e + (*p - '0');
    }
    long point = (long)nint + (neg ? -e : e); /* digits before the decimal point */
    for (long i = point < 0 ? 0 : point; i < (long)nd; i++)
        if (dig[i] != '0')
            return false; /* a fraction is left */
    size_t k = 0, first = 0;
    while (first < nd && (long)first < point && dig[first] == '0')
        first++;
    for (long i = (long)first; i < point; i++) {
        if (k + 1 >= cap) {
            memset(buf, '9', 21);
            buf[21] = 0;
            return true;
        }
        buf[k++] = i < (long)nd ? dig[i] : '0';
    }
    if (k == 0)
        buf[k++] = '0';
    buf[k] = 0;
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
    char plain[32];
    if (strlen(s) <= SRL_NUMBER_MAX && exponent_integer(s, plain, sizeof plain))
        s = plain; /* 1e4: an integer written with an exponent */
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
    char plain[32];
    if (strlen(t) <= SRL_NUMBER_MAX && exponent_integer(t, plain, sizeof plain))
        t = plain; /* -1e3: an integer written with an exponent */
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
