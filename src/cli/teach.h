/* src/cli/teach.h: display pieces shared by the teaching views of `srlab round` and `srlab op`.
 *
 * They lay out what the library computed (srl_round_info from srl_round_explain or
 * srl_op_explain): a format's description, a value's bit pattern, the neighbours, why a rounding
 * went the way it did, and the Clopper-Pearson interval of a sampled frequency. Nothing here
 * decides anything about rounding. */
#ifndef SRL_CLI_TEACH_H
#define SRL_CLI_TEACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpfr.h>

#include "cli/cli.h"

/* a and b are the same value: NaN equals NaN, and the sign of zero counts. */
bool teach_same_value(double a, double b);

/* A string being built into a fixed buffer; appends are truncated silently at its end. */
typedef struct teach_buf {
    char *p;
    size_t len, k;
} teach_buf;
void teach_add(teach_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "+0.5", "-0.25", "0" (shortest round-trip digits). buf holds CLI_NUM_LEN. */
const char *teach_signed_short(char *buf, double v);
/* "2^-7" for a power of two v. buf holds CLI_NUM_LEN. */
const char *teach_pow2_name(char *buf, double v);
/* Bit pattern of the format value v: "0 01111111 0000001  0x3f81", or why there is none. */
void teach_bits(char *buf, size_t len, const srl_format *f, double v);
/* "format    NAME: p=..., emin=..., ...; u = 2^-P" */
void teach_describe_format(FILE *o, const srl_format *f);
/* One phrase per mode: "to nearest, ties to even", ... */
const char *teach_mode_description(srl_rounding m);
/* "  LABEL     DEC  HEX  BITS TAG" with the decimal and hex columns padded to wd and wh. */
void teach_value_row(FILE *o, const char *label, const char *dec, int wd, const char *hex, int wh,
                     const char *bits, const char *tag);

/* The decimal, hex and bit columns of rd, ru and the result (in that order), with the widths
 * of the decimal and hex columns. */
typedef struct teach_neighbours {
    char dec[3][CLI_NUM_LEN], hex[3][CLI_NUM_LEN], bits[3][160];
    int wd, wh;
} teach_neighbours;
/* Fill nb from in; the widths start at wd and wh (those of rows printed with them, or 0). */
void teach_neighbours_fill(teach_neighbours *nb, const srl_format *f, const srl_round_info *in,
                           int wd, int wh);
/* The rd and ru rows. `finite` says whether the exact value is finite: a neighbour that is not
 * is then the overflow rule at work, and says so. */
void teach_neighbour_rows(FILE *o, const teach_neighbours *nb, const srl_round_info *in,
                          bool finite);
/* The result row, tagged (rd), (ru) or (rd = ru). */
void teach_result_row(FILE *o, const teach_neighbours *nb, const srl_round_info *in);
/* "  p_up      P   p_down Q", or that the result is certain; with name_pow2, a p_up that is a
 * power of two below 2^-10 is also named ("= 2^-177"). */
void teach_p_up_line(FILE *o, const srl_round_info *in, bool name_pow2);
/* "  draw      number I of stream 0: 0x..., U = ...": draw i of stream 0 is u. */
void teach_draw_line(FILE *o, uint64_t i, uint64_t u);

/* The "error" line: result - v in ulps (ulp, a power of two) and relative to |v|, for the exact
 * value v named `sym` ("x", "r"), computed with MPFR at `prec` bits (enough to hold result - v
 * exactly); or why there is no error to show (NaN, infinities, overflow). */
void teach_error_line(FILE *o, const srl_round_info *in, mpfr_srcptr v, const char *sym,
                      mpfr_prec_t prec, double ulp);

/* The compact view of one rounding, in 80 columns with short numbers (6 significant digits, 4
 * for probabilities and errors):
 *   LABEL                                  (the input, cut to 76 characters)
 *     rd A  ru B  p_up P
 *     -> R (ru)  error E ulp[  draw U]
 * v is the exact value (prec bits for result - v, as for teach_error_line); with stoch, U is
 * the draw u as a fraction of 2^64. */
void teach_compact_rows(FILE *o, const char *label, const srl_round_info *in, mpfr_srcptr v,
                        mpfr_prec_t prec, double ulp, bool stoch, uint64_t u);

/* The grid point above the largest finite of f: where overflow begins. */
double teach_overflow_threshold(const srl_format *f);
/* The reason for an exact value `sym` ("x", "r") that is a value of f: every mode returns it
 * unchanged (a stochastic mode consumes its draw all the same). */
void teach_exact_reason(teach_buf *b, const srl_format *f, const char *sym, bool stoch);
/* The reason for an exact value `sym` at or beyond teach_overflow_threshold(f) (>= in
 * magnitude), rounded to `result` in mode m named `mode`. */
void teach_beyond_reason(teach_buf *b, const srl_format *f, srl_rounding m, const char *mode,
                         const char *sym, double result);

/* Why the result overflowed (to an infinity, NaN, or the largest finite), in mode m named
 * `mode`. */
void teach_overflow_clause(teach_buf *b, const srl_format *f, srl_rounding m, const char *mode,
                           double result);

/* The mode's part of a reason for an inexact rounding of the value called `sym` ("x"), which
 * lies F ulp above the grid point below it; `pos` says so in words; frac is srl_round_info's
 * fraction of the magnitude; up/away the direction taken; u and i the draw and its index;
 * below_xmin whether the value lies below the smallest normal. */
void teach_mode_clause(teach_buf *b, const srl_format *f, srl_rounding m, const char *sym,
                       const char *pos, double frac, double F, bool up, bool away, uint64_t u,
                       uint64_t i, bool below_xmin);
/* What follows a mode clause: the overflow clause, underflow to zero, or a subnormal result. */
void teach_result_clause(teach_buf *b, const srl_format *f, srl_rounding m, const char *mode,
                         const srl_round_info *in, const char *sym);

/* Read the next data line of a --batch input: the line without its LF or CRLF, spaces and tabs
 * around it removed, into *text (inside t->line, which the caller frees). Returns TEACH_LINE
 * for a line, TEACH_EOF at the end of the input, or an exit status (> 0) after a message naming
 * the line: a NUL byte, an empty line, a read error. t->lineno counts the lines read; t->what
 * receives "line N". */
enum { TEACH_LINE = -1, TEACH_EOF = 0 };
typedef struct teach_lines {
    FILE *fp;
    char *line;
    size_t cap;
    uint64_t lineno;
    char what[48];
} teach_lines;
/* A line longer than TEACH_LINE_MAX bytes is refused (exit 2) after reading that much of it. */
#define TEACH_LINE_MAX ((size_t)64 << 20)
int teach_next_line(teach_lines *t, const char *cmd, char **text);

/* Clopper-Pearson interval [lo, hi] for k successes in n trials at the given confidence. */
void teach_clopper_pearson(uint64_t k, uint64_t n, double conf, double *lo, double *hi);

#endif
