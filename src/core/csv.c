/* src/core/csv.c: a text field of srlab's CSV outputs, written and read back, and a word of the
 * command lines its '#' lines hold (include/srlab/rows.h, "CSV text"): RFC 4180 quoting, POSIX
 * shell quoting, and OWASP's rule against formula injection in both. */
#include "srlab/number.h"
#include "srlab/rows.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The characters a spreadsheet takes as the start of a formula (OWASP: =, +, -, @, tab, CR), and
 * the guard itself, so that a value starting with ' reads back as written. */
static bool guarded_start(char c)
{
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r' || c == '\'';
}

/* Whether s needs the guard: it starts like a formula and is not a number ("-0.5", "-inf" are
 * numbers, which a spreadsheet shows as numbers). */
static bool needs_guard(const char *s)
{
    char why[SRL_NUMBER_WHY_LEN];
    double x;
    return guarded_start(s[0]) &&
           (s[0] == '\'' || srl_number_double(&x, s, SRL_NUMBER_ANY, why) != SRL_OK);
}

/* The writers below put each byte c at out[n] while it fits (len bytes with the NUL), counting
 * them all in n; END terminates what fits. */
#define PUT(c)                                                                                    \
    do {                                                                                          \
        if (out && n + 1 < len)                                                                   \
            out[n] = (c);                                                                         \
        n++;                                                                                      \
    } while (0)
#define END()                                                                                     \
    do {                                                                                          \
        if (out && len)                                                                           \
            out[n < len ? n : len - 1] = 0;                                                       \
    } while (0)

size_t srl_csv_field(char *out, size_t len, const char *s)
{
    const bool guard = needs_guard(s);
    const bool quote = guard || strpbrk(s, ",\"\r\n") != NULL;
    size_t n = 0;
    if (quote)
        PUT('"');
    if (guard)
        PUT('\'');
    for (const char *p = s; *p; p++) {
        if (*p == '"' && quote)
            PUT('"');
        PUT(*p);
    }
    if (quote)
        PUT('"');
    END();
    return n;
}

size_t srl_csv_value(char *out, size_t len, const char *raw, size_t rn)
{
    size_t n = 0, i = 0;
    const bool quoted = rn && raw[0] == '"';
    if (quoted && (rn < 2 || raw[rn - 1] != '"'))
        return SIZE_MAX;
    for (i = quoted; i + quoted < rn; i++) {
        if (raw[i] == '"') {
            if (!quoted || i + 2 >= rn || raw[i + 1] != '"')
                return SIZE_MAX; /* a quote in an unquoted field, or one not doubled */
            i++;
        }
        PUT(raw[i]);
    }
    END();
    /* the guard: a quoted field starting with ' and a character the guard keeps (srl_csv_field
     * guards, hence quotes, every text that starts so) */
    if (rn >= 4 && quoted && raw[1] == '\'' && guarded_start(raw[2])) {
        if (out && len)
            memmove(out, out + 1, n < len ? n : len - 1); /* with the NUL */
        n--;
    }
    return n;
}

/* Whether a spreadsheet reading a line as CSV would start a cell with a formula at t, just after
 * a comma (OWASP's starting characters; spaces skipped). */
static bool formula_after_comma(const char *t)
{
    while (*t == ' ')
        t++;
    return *t && guarded_start(*t) && *t != '\'';
}

size_t srl_shell_word(char *out, size_t len, const char *s)
{
    bool plain = *s != 0, ctrl = false;
    for (const char *t = s; *t; t++) {
        if (!isalnum((unsigned char)*t) && !strchr("%+,-./:=@_^", *t))
            plain = false;
        if (*t == ',' && formula_after_comma(t + 1))
            plain = false;
        ctrl |= (unsigned char)*t < 0x20 || *t == 0x7f;
    }
    size_t n = 0;
#define PUTS(str)                                                                                 \
    do {                                                                                          \
        for (const char *c_ = (str); *c_; c_++)                                                   \
            PUT(*c_);                                                                             \
    } while (0)
    if (plain) {
        PUTS(s);
    } else {
        /* '...' ('\'' for a quote); with a control character $'...' and \xNN escapes, so the
         * line stays one line of text; after a comma a formula would follow, the quotes close
         * and reopen (',''=...'): the cell a spreadsheet starts there starts with a quote */
        PUTS(ctrl ? "$'" : "'");
        for (const char *t = s; *t; t++) {
            char one[8] = {*t, 0};
            if (*t == '\'')
                PUTS(ctrl ? "\\'" : "'\\''");
            else if (ctrl && *t == '\\')
                PUTS("\\\\");
            else if ((unsigned char)*t < 0x20 || *t == 0x7f) {
                snprintf(one, sizeof one, "\\x%02x", (unsigned char)*t);
                PUTS(one);
            } else
                PUTS(one);
            if (*t == ',' && formula_after_comma(t + 1))
                PUTS(ctrl ? "'$'" : "''");
        }
        PUTS("'");
    }
#undef PUTS
    END();
    return n;
}
