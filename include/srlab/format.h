/* srlab/format.h: binary floating-point formats as immutable values (docs/design.md §2).
 *
 * A format is the set of numbers  +-M * 2^(e-p+1)  with integer significand 0 <= M < 2^p and
 * emin <= e <= emax, plus signed zeros, NaN and (optionally) infinities:
 *   p      precision in bits, hidden bit included (2 <= p <= 53: every format is a subset of binary64);
 *   emin   exponent of the smallest normal number 2^emin;
 *   emax   exponent of the largest binade; largest finite (2 - 2^(1-p)) * 2^emax;
 *   subnormals  gradual underflow: multiples of 2^(emin-p+1) below 2^emin (off: only 0 there);
 *   inf    the format has infinities. Without them the all-ones bit pattern S.1..1.1..1 is NaN
 *          (the OCP FP8 E4M3 convention); when that pattern would be a finite number (the exponent
 *          field is full, as in e4m3) that number is given up, so xmax = (2 - 2^(2-p)) * 2^emax;
 *   saturate  overflow (and infinite input) clamps to +-xmax instead of giving inf or NaN;
 *   nan    the format has a NaN encoding (always, with infinities). Without NaN and infinities
 *          (OCP FP6 E3M2/E2M3, FP4 E2M1, the MX INT8 element) every pattern is a finite number,
 *          xmax = (2 - 2^(1-p)) * 2^emax, and the format must saturate. Rounding a NaN into such a
 *          format gives NaN, which is not a value of it: an MX block carries it in its scale
 *          (srlab/mx.h).
 *
 * Presets (one table, srl_format_preset_*): bf16 (8,127), fp16 (11,15), fp32 (24,127),
 * tf32 (11,127), e4m3 (4, emax 8, emin -6, no inf, xmax 448), e5m2 (3,15), fp64 (53,1023), and
 * the OCP Microscaling elements, saturating, without NaN or infinities: e2m1 (FP4: p 2, emax 2,
 * emin 0, xmax 6), e3m2 (FP6: 3, 4, -2, xmax 28), e2m3 (FP6: 4, 2, 0, xmax 7.5) and int8 (MX
 * INT8, two's complement with an implicit 2^-6: here the grid k 2^-6, |k| <= 127, as p 7, emax 0,
 * emin 0 with subnormals; OCP's -2 = -128/64 is not produced, and the encoding below is
 * sign-magnitude, srlab/mx.h gives the two's complement code).
 * A preset is also found by the names users of other tools type, in any case, with or without a
 * module prefix (torch., np., numpy., jnp., ml_dtypes.): bfloat16 and b; half, float16,
 * binary16, f16 and h; single, float, float32, binary32, f32 and s; tensorfloat32 and t;
 * float8_e4m3fn, float8_e4m3, e4m3fn, fp8_e4m3, fp8-e4m3, f8e4m3fn and q43; float8_e5m2,
 * fp8_e5m2, fp8-e5m2, f8e5m2 and q52; double, float64, binary64, f64 and d (the single letters
 * and qNM are CPFloat's); float4_e2m1fn and fp4_e2m1; float6_e3m2fn and fp6_e3m2;
 * float6_e2m3fn and fp6_e2m3. The "fnuz" float8 formats (no negative zero) are refused by name.
 * Custom spec strings:
 * "p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,nan=on|off][,saturate=on|off]"
 * with emin defaulting to 1-emax, or a preset followed by overrides ("e4m3,saturate=on"); each
 * key at most once.
 * One name per format: a format's name is the preset's when its parameters are a preset's
 * (however it was spelled: "bfloat16", "p=8,emax=127" and "bf16,saturate=off" are all "bf16"),
 * else the canonical spelling of its spec ("p=8,emax=127,emin=-125"), which parses back to it.
 *
 * Encoding (formats up to 64 bits wide): sign | exponent field | p-1 fraction bits, bias 1-emin;
 * exponent code 0 holds zero and subnormals; with infinities the all-ones exponent code holds
 * inf (fraction 0) and NaN (fraction != 0). Without NaN the all-ones pattern is the largest
 * finite number. */
#ifndef SRLAB_FORMAT_H
#define SRLAB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SRL_FORMAT_NAME_LEN 96

typedef struct srl_format {
    char name[SRL_FORMAT_NAME_LEN]; /* preset name, or canonical custom spec */
    int p;                          /* precision, hidden bit included */
    int emin, emax;                 /* normal exponent range */
    bool subnormals, inf, saturate;
    bool nan;                       /* a NaN encoding (srl_format_make: always) */
    /* Derived by the constructors; never set these by hand. */
    int ebits;   /* exponent field width */
    int width;   /* encoding width 1 + ebits + p - 1 (may exceed 64: then no encoding) */
    double u;    /* unit roundoff 2^-p */
    double xmin; /* smallest positive normal 2^emin */
    double xsub; /* smallest positive subnormal 2^(emin-p+1); equals xmin without subnormals */
    double xmax; /* largest finite */
} srl_format;

/* Build a format from a preset name or a custom spec (see above). Unknown names, unknown keys,
 * malformed numbers and impossible parameters (p < 2 or p > 53, emin > emax, a range outside
 * binary64, an exponent field wider than 30 bits) give SRL_EPARSE / SRL_EINVAL and a message. */
int srl_format_parse(srl_format *f, const char *spec, srl_err *err) SRL_WUR;

/* Build a format from its parameters; its name is its one name (above). */
int srl_format_make(srl_format *f, int p, int emax, int emin, bool subnormals, bool inf,
                    bool saturate, srl_err *err) SRL_WUR;

/* The preset table, in a fixed order (bf16, fp16, fp32, tf32, e4m3, e5m2, fp64, e2m1, e3m2,
 * e2m3, int8). */
size_t srl_format_preset_count(void);
const srl_format *srl_format_preset(size_t i);
/* A preset by its own name (exactly: "bf16"; srl_format_parse takes the other names), or
 * NULL. */
const srl_format *srl_format_find(const char *name);

/* ulp(x): the spacing of the format's grid at |x|, 2^(max(e,emin)-p+1) with e = floor(log2|x|);
 * for non-finite x, NaN. Below 2^emin (x = 0 included) it is the smallest subnormal 2^(emin-p+1)
 * with subnormals and 2^emin without (the gap between 0 and xmin). Above xmax it is the spacing
 * the grid would have if it continued (2^(e-p+1)). */
double srl_format_ulp(const srl_format *f, double x);

/* True when x (finite or not) is a value of the format: NaN iff f->nan; +-inf iff f->inf; a
 * finite x iff it lies on the grid and |x| <= xmax. */
bool srl_format_contains(const srl_format *f, double x);

/* Bit pattern of x, which must be a value of the format (SRL_EINVAL otherwise: NaN without nan) in a format at
 * most 64 bits wide (SRL_ERANGE otherwise). NaN encodes as the canonical quiet pattern with the
 * sign bit clear: all-ones exponent and the top fraction bit; for formats without infinities
 * all ones but the sign (0x7F in e4m3). */
int srl_format_encode(uint64_t *bits, const srl_format *f, double x) SRL_WUR;

/* Value of a bit pattern; SRL_ERANGE when bits has a bit set above the width; SRL_EINVAL for
 * patterns that denote no value (an exponent code above emax, a subnormal pattern in a format
 * without subnormals). */
int srl_format_decode(double *x, const srl_format *f, uint64_t bits) SRL_WUR;

/* Same parameters (names are ignored). */
bool srl_format_equal(const srl_format *a, const srl_format *b);

/* True when every value of f is a binary32 number: p <= 24, emax <= 127 and the finest spacing
 * 2^(emin-p+1) >= 2^-149. */
bool srl_format_fits_float(const srl_format *f);

/* True when f has exactly the parameters of the bf16 preset (p 8, emax 127, subnormals,
 * infinities, no saturation). */
bool srl_format_is_bf16(const srl_format *f);

#ifdef __cplusplus
}
#endif
#endif
