/* src/check/probe.c: the probes of the library's own paths (include/srlab/check.h, basis probe):
 * inputs and draws chosen so that a defect changes an outcome for certain, and every result
 * compared bit for bit with the definition, written here once more from the documents
 * (theory/T01-sr-basics.md and include/srlab/rounding.h for the modes, include/srlab/optim.h for
 * the step) and independently of the library's code (theory/README.md, "Statistical checks and
 * probes").
 *
 *   T01f  every rounding path against the definition of every mode: srl_round, srl_round_array,
 *         srl_round_array_float, srl_round_array_d2f, tensor writes from binary32 and binary64
 *         (bf16's own bit writes among them) and the matrix product's outputs (srl_gemm,
 *         srl_gemm_f with k = 1: an output is one rounding of its input), nine formats, twelve
 *         modes, binary64 and binary32 inputs. Each element's input is built from its own draw
 *         (the path's documented draw index): a fraction just below or just above the draw,
 *         equal to it where the draw's low bits are zero (a window is placed around such a
 *         draw), sr:r=R's carry edge F + Z = 2^R - 1 and 2^R, ties and their neighbours, exact
 *         values, the last spacing below a power of two, the subnormal range, the edge of
 *         overflow, zeros, infinities and NaNs; half of them negative. NaNs' stored bit
 *         patterns too (probe_nans: quiet, which sign, which payload).
 *   T02c  the seed paper's optimizer write (bf16 Adam, sr:r=16 of the binary32 update, and rn) in
 *         the fused kernel and the generic tiles: each element's exact new value placed at the
 *         carry's edge for its own draw (F = 2^16 - Z - 1 and 2^16 - Z; under rn ties and their
 *         neighbours), negative values, the last spacing below powers of two, results in bf16's
 *         subnormal range; weight and moments bit for bit.
 *   T10f  one Adam and AdamW step of include/srlab/optim.h (beta1 0.9, weight decay), in the
 *         fused kernel and the generic tiles with binary32 and binary64 arithmetic, at steps 1,
 *         2 and 9, second moments down to eps^2: every new moment, master and weight bit for bit.
 *   T16c  the Kahan-compensated write of include/srlab/optim.h, steps 1 and 2: weight and
 *         compensation bit for bit.
 * Every probe is deterministic (seed 1; the streams are named in the `what` text): any defect
 * that changes one of its results FAILs it, however rare that result would be at random. */
#include "check/check_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/optim.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/strategy.h"
#include "srlab/tensor.h"
#include "train/optim_impl.h" /* srl__optim_step_path: the fused kernel and the generic tiles */

/* ---- the definition of a rounding ---- */

/* x rounded into f with mode m and the element's draw u (theory/T01, include/srlab/rounding.h):
 * |x| = (T + r) q, q the spacing at |x| (2^(e-p+1) in the binade [2^e, 2^(e+1)) of the normal
 * range, 2^(emin-p+1) below it, 2^emin in a format without subnormals); the magnitude goes to
 * T + 1 when: rn r > 1/2 or r = 1/2 with T odd; rna r >= 1/2; ru, rd r > 0 and x positive,
 * negative; ro r > 0 and T even; sr U < r (U = u 2^-64; r has no bits below 2^-64 in the probes,
 * so the comparison of u with r 2^64 is exact); sr-eq r > 0 and u's top bit 1; sr:r=R F + Z >= 2^R
 * (F = floor(r 2^R), Z = u's top R bits). A magnitude above xmax overflows: to xmax for rz, ro, ru
 * of a negative and rd of a positive value, and in a saturating format; else to infinity, or
 * NaN in a format without. Exact: q is a power of two, T q and |x| - T q are binary64 numbers. */
static double def_round(double x, const srl_format *f, srl_rounding m, uint64_t u)
{
    if (x == 0 || isnan(x))
        return x; /* a zero keeps its sign, a NaN stays a NaN */
    if (isinf(x)) /* an infinity: itself, or the saturating format's xmax, else NaN */
        return f->saturate ? copysign(f->xmax, x) : f->inf ? x : NAN;
    const bool neg = x < 0;
    const double a = fabs(x);
    const int e = ilogb(a);
    const int qe = e >= f->emin ? e - f->p + 1 : f->subnormals ? f->emin - f->p + 1 : f->emin;
    const double q = ldexp(1.0, qe), T = floor(a / q), r = a / q - T;
    const uint64_t r64 = r > 0 ? (uint64_t)ldexp(r, 64) : 0;
    const bool todd = fmod(T, 2.0) == 1.0, inexact = r > 0;
    bool away = false;
    switch (m.mode) {
    case SRL_RN: away = r > 0.5 || (r == 0.5 && todd); break;
    case SRL_RNA: away = r >= 0.5; break;
    case SRL_RZ: break;
    case SRL_RU: away = inexact && !neg; break;
    case SRL_RD: away = inexact && neg; break;
    case SRL_RO: away = inexact && !todd; break;
    case SRL_SR: away = u < r64; break;
    case SRL_SR_EQ: away = inexact && (u >> 63); break;
    case SRL_SR_BITS: {
        const int R = m.r;
        const uint64_t F = R == 64 ? r64 : r64 >> (64 - R), Z = R == 64 ? u : u >> (64 - R);
        away = R == 64 ? F + Z < F : ((F + Z) >> R) != 0;
        break;
    }
    default: break;
    }
    const double mag = (T + (away ? 1 : 0)) * q;
    if (mag > f->xmax) {
        const bool to_max = m.mode == SRL_RZ || m.mode == SRL_RO || (m.mode == SRL_RU && neg) ||
                            (m.mode == SRL_RD && !neg) || f->saturate;
        const double v = to_max ? f->xmax : f->inf ? INFINITY : NAN;
        return neg ? -v : v;
    }
    return neg ? -mag : mag;
}

/* The same value (NaNs alike, zeros by sign). */
static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* The probes' streams: seed 1, stream hash(name). */
static void probe_rng(srl_rng *r, const char *name)
{
    srl_rng_init(r, SRL_RNG_DEFAULT, 1, srl_hash_str(name));
}

/* The first mismatch of a probe, for its `what` text. */
typedef struct miss {
    uint64_t count, total;
    char first[200];
} miss;

static void miss_note(miss *ms, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void miss_note(miss *ms, bool ok, const char *fmt, ...)
{
    ms->total++;
    if (ok)
        return;
    if (!ms->count++) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ms->first, sizeof ms->first, fmt, ap);
        va_end(ap);
    }
}

/* ================================================================================================
 * T01f: the rounding paths
 * ============================================================================================== */

#define PN 256 /* elements per window: whole vector groups and tiles, above the short writes */

/* bf16's range without subnormals, and bf16's and tf32's without infinities and saturating
 * (neither takes the bulk kernels' pattern path: their subnormals are binary32 subnormals
 * rounded on the lanes) */
static const char *const pf_formats[] = {
    "bf16", "fp16", "e4m3", "e5m2", "tf32", "p=8,emax=127,subnormals=off",
    "p=8,emax=127,inf=off", "p=11,emax=127,saturate=on", "fp32",
};
#define NPF (sizeof pf_formats / sizeof pf_formats[0])

static const srl_rounding pf_modes[] = {
    {SRL_RN, 0}, {SRL_RNA, 0},     {SRL_RZ, 0},      {SRL_RU, 0},
    {SRL_RD, 0}, {SRL_RO, 0},      {SRL_SR, 0},      {SRL_SR_EQ, 0},
    {SRL_SR_BITS, 1}, {SRL_SR_BITS, 4}, {SRL_SR_BITS, 8}, {SRL_SR_BITS, 16},
};
#define NPM (sizeof pf_modes / sizeof pf_modes[0])

/* The paths, by the draw index of element i: c0 + i, or (the matrix product, whose outputs
 * draw a product draw then an accumulation draw) c0 + 2i + 1. */
enum { P_SCALAR, P_ARRAY, P_FLOAT, P_D2F, P_TPUT_F, P_TPUT_D, P_GEMM, P_GEMM_F, NPATH };
static const char *const path_name[NPATH] = {
    "srl_round", "srl_round_array", "srl_round_array_float", "srl_round_array_d2f",
    "srl_tensor_put_f", "srl_tensor_put_d", "srl_gemm", "srl_gemm_f",
};

static uint64_t path_index(int path, uint64_t c0, size_t i)
{
    return path == P_GEMM || path == P_GEMM_F ? c0 + 2 * (uint64_t)i + 1 : c0 + i;
}

/* One group of probes: a format, binary32 or binary64 inputs (bits: the fraction bits an input
 * has below the format's grid, 24 - p or 53 - p), a mode. */
typedef struct pgroup {
    const srl_format *f;
    bool b32;
    int bits;
    srl_rounding m;
} pgroup;

/* A draw whose low bits are zero where the path compares them: the fraction that equals it is an
 * input of the group (binary64 inputs: u's low 64 - bits bits; binary32 inputs, which the
 * binary32 lanes compare in the draw's high word: u's bits 32 .. 63 - bits). */
static bool equal_draw(const pgroup *g, uint64_t u)
{
    if (g->b32)
        return g->bits >= 1 && g->bits < 32 &&
               ((u >> 32) & ((UINT64_C(1) << (32 - g->bits)) - 1)) == 0;
    return g->bits >= 1 && (u & ((UINT64_C(1) << (64 - g->bits)) - 1)) == 0;
}

/* +-(T 2^bits + F) 2^(qe - bits): the grid of 2^qe, T its count, F/2^bits the fraction. */
static double compose(uint64_t T, uint64_t F, int qe, int bits, bool neg)
{
    const double v = ldexp((double)((T << bits) | F), qe - bits);
    return neg ? -v : v;
}

static uint64_t rnd(srl_rng *r, uint64_t n)
{
    return n ? srl_rng_next(r) % n : 0;
}

/* The input of element i whose draw is u (sto: a stochastic mode's; shape from the stream sh). */
static double probe_input(const pgroup *g, size_t i, uint64_t u, bool sto, srl_rng *sh)
{
    const srl_format *f = g->f;
    const int p = f->p, bits = g->bits;
    const uint64_t Fmax = UINT64_C(1) << bits, half = Fmax >> 1, Tlo = UINT64_C(1) << (p - 1);
    const int elo = f->emin > (g->b32 ? -126 : -1022) ? f->emin : (g->b32 ? -126 : -1022);
    const int ehi = f->emax < (g->b32 ? 127 : 1023) ? f->emax : (g->b32 ? 127 : 1023);
    const bool neg = srl_rng_next(sh) & 1;
    int e = elo + (int)rnd(sh, (uint64_t)(ehi - elo + 1));
    uint64_t T = Tlo + rnd(sh, Tlo), F = rnd(sh, Fmax);
    const uint64_t Fu = u >> (64 - bits); /* the draw's top bits: U just above F/2^bits */
    int kind = (int)(i % 12);
    if (sto && equal_draw(g, u))
        kind = 1; /* the fraction equal to the draw (sr: stays; U <= f would go away) */
    switch (kind) {
    case 1: F = Fu; break;
    case 2: F = Fu + 1 < Fmax ? Fu + 1 : Fu; break; /* just above the draw: sr goes away */
    case 3: F = half; break;                         /* a tie */
    case 4: F = half - 1; break;
    case 5: F = half + 1; break;
    case 6: F = 0; break; /* exact */
    case 7: /* the last spacing below 2^(e+1) */
        T = 2 * Tlo - 1;
        F = (i / 12) % 2 ? Fu : F;
        break;
    case 8: /* the range below xmin */
        if (f->subnormals)
            return compose(rnd(sh, Tlo), (i / 12) % 2 ? Fu : F, f->emin - p + 1, bits, neg);
        return compose(0, F, f->emin, bits, neg);
    case 9: { /* the edge of overflow: T q at or just above xmax in the top binade */
        e = ehi;
        const double q = ldexp(1.0, e - p + 1);
        T = (uint64_t)floor(f->xmax / q) + ((i / 12) % 2 && e == f->emax ? 1 : 0);
        if (T >= 2 * Tlo)
            T = 2 * Tlo - 1;
        F = (i / 24) % 2 ? half : F;
        break;
    }
    case 10: /* sr:r=R's carry edge: F's top R bits + Z = 2^R - 1 (stays) or 2^R (away) */
        if (g->m.mode == SRL_SR_BITS && g->m.r <= bits) {
            const int R = g->m.r;
            const uint64_t Z = u >> (64 - R), top = ((UINT64_C(1) << R) - Z - ((i / 12) % 2)) &
                                                    ((UINT64_C(1) << R) - 1);
            const uint64_t low = (i / 24) % 2 ? F & ((UINT64_C(1) << (bits - R)) - 1) : 0;
            F = top << (bits - R) | low;
        }
        break;
    case 11: { /* every 4th: the specials, +-0, +-inf, NaN */
        static const double sp[5] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
        if ((i / 12) % 4 == 3)
            return sp[(i / 48) % 5];
        break;
    }
    default: break; /* 0, 11: anywhere */
    }
    return compose(T, F, e - p + 1, bits, neg);
}

/* The window of a group: generic (element i at draw index 3 PN + i, a tensor's step 3), or
 * around the first draw at index >= 64 PN whose low bits make an equal fraction (searched up to
 * 2^23 draws; none: no such window). Returns false when there is none. */
static bool window_start(uint64_t *c0, const pgroup *g, int w, const srl_rng *root)
{
    if (w == 0) {
        *c0 = 3 * PN;
        return true;
    }
    if (g->bits < 1 || (g->b32 && (g->bits >= 32 || 32 - g->bits > 23)) ||
        (!g->b32 && 64 - g->bits > 23))
        return false; /* a draw that rare is not worth the search */
    srl_rng r = *root;
    srl_rng_seek(&r, 64 * PN);
    for (uint64_t j = 64 * PN; j < 64 * PN + (UINT64_C(1) << 23); j++)
        if (equal_draw(g, srl_rng_next(&r))) {
            *c0 = j;
            return true;
        }
    return false;
}

/* The draw index base of path `path` for a window starting at c0: the arrays and tensors start at
 * the multiple of PN at or below c0 (a tensor's step), the matrix product so that output 37 takes
 * c0's draw. */
static uint64_t path_base(int path, uint64_t c0)
{
    if (path == P_GEMM || path == P_GEMM_F)
        return c0 >= 75 ? c0 - 75 : 0;
    return c0 / PN * PN;
}

/* Run path `path` on the inputs x (binary64) / xf (binary32) into y; the tensor (of PN
 * elements, in g's format, its stream the probes') for the tensor writes. */
static int run_path(double *y, int path, const double *x, const float *xf, const pgroup *g,
                    uint64_t base, const srl_rng *root, srl_tensor *t)
{
    srl_rng r = *root;
    srl_rng_seek(&r, base);
    float yf[PN];
    int st = SRL_OK;
    switch (path) {
    case P_SCALAR:
        for (size_t i = 0; i < PN; i++) {
            srl_rng_seek(&r, base + i);
            y[i] = srl_round(x[i], g->f, g->m, &r);
        }
        return SRL_OK;
    case P_ARRAY: return srl_round_array(y, x, PN, g->f, g->m, &r);
    case P_FLOAT: st = srl_round_array_float(yf, xf, PN, g->f, g->m, &r); break;
    case P_D2F: st = srl_round_array_d2f(yf, x, PN, g->f, g->m, &r); break;
    case P_TPUT_F:
    case P_TPUT_D:
        t->rng = *root;
        st = path == P_TPUT_F ? srl_tensor_put_f(t, 0, xf, PN, g->m, base / PN)
                              : srl_tensor_put_d(t, 0, x, PN, g->m, base / PN);
        if (!st)
            srl_tensor_get_d(y, t, 0, PN);
        return st;
    case P_GEMM:
    case P_GEMM_F: {
        /* C (PN x 1) = A (PN x 1) B (1 x 1), B = 1: products exact in binary64, written with sr
         * there (a product draw per output: D = 2), then each rounded once into g's format */
        srl_accum c = srl_accum_binary64();
        c.prod_mode = SRL_ROUND_SR;
        c.acc_fmt = *g->f;
        c.acc_mode = g->m;
        if (path == P_GEMM) {
            const double one = 1;
            return srl_gemm(y, x, &one, PN, 1, 1, &c, &r);
        }
        const float one = 1;
        st = srl_gemm_f(yf, xf, &one, PN, 1, 1, &c, &r);
        break;
    }
    default: return SRL_EINVAL;
    }
    for (size_t i = 0; !st && i < PN; i++)
        y[i] = yf[i];
    return st;
}

/* Which paths take group g: binary32 inputs every one (those that write binary32 when the format
 * fits it); binary64 inputs those that read binary64. */
static bool path_takes(int path, const pgroup *g)
{
    const bool fits = srl_format_fits_float(g->f);
    switch (path) {
    case P_FLOAT:
    case P_TPUT_F:
    case P_GEMM_F: return g->b32 && fits;
    case P_D2F: return fits;
    default: return true;
    }
}

/* One group on one window over every path it takes, into ms. mutation: the paths draw one index
 * late (experiment), the definition breaks rn's ties away from zero (prediction). */
static int probe_group(miss *ms, const pgroup *g, int w, const srl_rng *root,
                       srl_check_mutation mutation, srl_tensor *t, const char *fname)
{
    uint64_t c0;
    if (!window_start(&c0, g, w, root))
        return SRL_OK;
    double x[PN], y[PN];
    float xf[PN];
    char mname[32];
    srl_rounding_name(mname, sizeof mname, g->m);
    for (int path = 0; path < NPATH; path++) {
        if (!path_takes(path, g))
            continue;
        const uint64_t base = path_base(path, c0);
        srl_rng sh;
        probe_rng(&sh, "T01f/shapes");
        srl_rng_seek(&sh, (uint64_t)w << 40 | base);
        /* u: the element's draw (a deterministic mode draws none: its inputs are shaped by a
         * draw of the shape stream instead, and the definition ignores u) */
        const bool sto = srl_rounding_is_stochastic(g->m);
        uint64_t u[PN];
        for (size_t i = 0; i < PN; i++) {
            u[i] = sto ? srl_rng_draw_at(root, path_index(path, base, i)) : srl_rng_next(&sh);
            x[i] = probe_input(g, i, u[i], sto, &sh);
            xf[i] = (float)x[i]; /* exact for binary32 inputs */
        }
        const uint64_t run_base = base + (mutation == SRL_CHECK_MUT_EXPERIMENT ? 1 : 0);
        const int st = run_path(y, path, x, xf, g, run_base, root, t);
        if (st)
            return st;
        srl_rounding dm = g->m;
        if (mutation == SRL_CHECK_MUT_PREDICTION && dm.mode == SRL_RN)
            dm.mode = SRL_RNA;
        for (size_t i = 0; i < PN; i++) {
            const double want = def_round(x[i], g->f, dm, sto ? u[i] : 0);
            miss_note(ms, same(y[i], want), "%s, %s, %s, %s input %a (draw %016llx): %a, not %a",
                      path_name[path], fname, mname, g->b32 ? "binary32" : "binary64", x[i],
                      (unsigned long long)u[i], y[i], want);
        }
    }
    return SRL_OK;
}

/* ---- T01f's NaN patterns ---- */

static int probe_weights(srl_weights *W, const char *strat, srl_optim_kind kind, size_t n,
                         const double *x, const double *g, const double *m, const double *v,
                         uint64_t t, srl_err *err);

/* NaNs of both signs, quiet and signalling, with payload bits above and below bit 16 of binary32
 * (bf16 keeps those above) and binary64 NaNs with payload bits binary32 keeps and loses. */
static const uint32_t nan32[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                 0x7fa00000u, 0xff810000u, 0x7fe12345u, 0xffc0ffffu};
static const uint64_t nan64[] = {UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
                                 UINT64_C(0x7ff0000000000001), UINT64_C(0xfff0000000000001),
                                 UINT64_C(0x7ff4000000000000), UINT64_C(0xfff0200000000000),
                                 UINT64_C(0x7ffc2468ace00000), UINT64_C(0xfff8000000000001)};
#define NNAN (sizeof nan32 / sizeof nan32[0])

static uint32_t bits32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static uint64_t bits64(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* What a bf16 bit write stores for the binary32 NaN b (src/linalg/tensor_impl.h): the sign and
 * the top seven payload bits of b, the quiet bit (0x0040) set. */
static uint16_t def_bf16_nan(uint32_t b)
{
    return (uint16_t)((b >> 16) | 0x0040u);
}

/* Every path that stores a NaN into bf16, fp16, e4m3 or e5m2, bit for bit. The rounding rule
 * (include/srlab/rounding.h, "NaN -> NaN") gives the canonical quiet NaN, sign clear: binary64's
 * in the binary64 outputs, binary32's in the binary32 outputs and containers, 0x7fc0 in bf16's,
 * in every mode and format. The bf16 bit writes (srl_bf16_rn, srl_bf16_sr16, and a bf16 tensor's
 * writes from binary32 under rn and sr:r=16, which take them) keep the sign and the top seven
 * payload bits and set bf16's quiet bit 0x0040. The optimizer's bf16 writes (fused and generic)
 * store quiet NaNs; the binary32 arithmetic made them from the NaN gradient, so their sign is the
 * processor's, and from a gradient without payload below the quiet bit their payload is 0. */
static int probe_nans(miss *ms, const srl_rng *root, srl_err *err)
{
    static const char *const fm[] = {"bf16", "fp16", "e4m3", "e5m2"};
    static const srl_rounding md[] = {{SRL_RN, 0}, {SRL_RZ, 0}, {SRL_SR, 0}, {SRL_SR_BITS, 16}};
    enum { NN = 2 * NNAN };
    double x[NN], y[NN];
    float xf[NN], yf[NN];
    for (size_t i = 0; i < NNAN; i++) {
        memcpy(&xf[i], &nan32[i], sizeof xf[i]);
        memcpy(&xf[NNAN + i], &nan32[i], sizeof xf[i]);
        x[i] = xf[i]; /* binary64 inputs: the binary32 NaNs (quieted) and nan64 */
        memcpy(&x[NNAN + i], &nan64[i], sizeof x[i]);
    }
    const uint64_t qd = UINT64_C(0x7ff8000000000000);
    const uint32_t qf = 0x7fc00000u;
    for (size_t k = 0; k < sizeof fm / sizeof fm[0]; k++) {
        const srl_format *f = srl_format_find(fm[k]);
        srl_tensor_desc d = {"nan", 1, {NN, 0, 0, 0}, *f};
        srl_tensor_set ts;
        int st = srl_tensor_set_alloc(&ts, &d, 1, root, err);
        if (st)
            return st;
        srl_tensor *t = &ts.t[0];
        const bool b16 = t->storage == SRL_STORAGE_BF16;
        for (size_t j = 0; j < sizeof md / sizeof md[0] && !st; j++) {
            char mname[32];
            srl_rounding_name(mname, sizeof mname, md[j]);
            srl_rng r = *root;
            if (!(st = srl_round_array(y, x, NN, f, md[j], &r)))
                for (size_t i = 0; i < NN; i++)
                    miss_note(ms, bits64(y[i]) == qd, "NaN, srl_round_array, %s, %s: %016llx of "
                              "%016llx", fm[k], mname, (unsigned long long)bits64(y[i]),
                              (unsigned long long)bits64(x[i]));
            if (!st && srl_format_fits_float(f) && !(st = srl_round_array_float(yf, xf, NN, f,
                                                                               md[j], &r)))
                for (size_t i = 0; i < NN; i++)
                    miss_note(ms, bits32(yf[i]) == qf, "NaN, srl_round_array_float, %s, %s: "
                              "%08x of %08x", fm[k], mname, (unsigned)bits32(yf[i]),
                              (unsigned)bits32(xf[i]));
            /* binary32 into bf16 under rn and sr:r=16 takes the bit writes */
            const bool bitw = md[j].mode == SRL_RN || md[j].mode == SRL_SR_BITS;
            for (int put = 0; put < 2 && !st; put++) {
                st = put ? srl_tensor_put_d(t, 0, x, NN, md[j], 1)
                         : srl_tensor_put_f(t, 0, xf, NN, md[j], 1);
                for (size_t i = 0; !st && i < NN; i++) {
                    uint32_t got, want;
                    if (b16) {
                        got = ((const uint16_t *)t->data)[i];
                        want = put || !bitw ? 0x7fc0u : def_bf16_nan(bits32(xf[i]));
                    } else {
                        got = ((const uint32_t *)t->data)[i];
                        want = qf;
                    }
                    miss_note(ms, got == want, "NaN, %s, %s, %s: %04x, not %04x",
                              put ? "srl_tensor_put_d" : "srl_tensor_put_f", fm[k], mname,
                              (unsigned)got, (unsigned)want);
                }
            }
        }
        srl_tensor_set_free(&ts);
        if (st)
            return st;
    }
    for (size_t i = 0; i < NNAN; i++) {
        const uint16_t want = def_bf16_nan(nan32[i]);
        const uint16_t a = srl_bf16_rn(xf[i]), b = srl_bf16_sr16(xf[i], srl_rng_draw_at(root, i));
        miss_note(ms, a == want && b == want, "NaN, srl_bf16_rn/sr16 of %08x: %04x, %04x, not "
                  "%04x", (unsigned)nan32[i], (unsigned)a, (unsigned)b, (unsigned)want);
    }
    /* the optimizer's writes: a NaN gradient makes weight and moments NaN */
    const srl_optim_config c = {.kind = SRL_OPTIM_ADAM, .lr = 0x1p-6, .beta1 = 0.9, .beta2 = 0.99,
                                .eps = 0x1p-14, .schedule = SRL_SCHED_CONSTANT, .steps = 10};
    double one[NN];
    for (size_t i = 0; i < NN; i++)
        one[i] = 1;
    for (int sr = 0; sr < 2; sr++)
        for (int path = 0; path < 2; path++) {
            srl_weights W;
            const char *strat = sr ? "bf16-sr" : "bf16-rn";
            int st = probe_weights(&W, strat, SRL_OPTIM_ADAM, NN, one, x, one, one, 1, err);
            if (st)
                return st;
            st = srl__optim_step_path(NULL, &W, &c, 1, c.lr,
                                      path ? SRL__PATH_GENERIC : SRL__PATH_AUTO);
            if (!st && !path && !srl__optim_fast_applies(&W))
                st = srl_err_set(err, SRL_EINVAL, "T01f: the fused kernel does not apply");
            for (size_t i = 0; !st && i < NN; i++) {
                const uint16_t w = ((const uint16_t *)W.p[0].w->data)[i],
                               m = ((const uint16_t *)W.p[0].m->data)[i],
                               v = ((const uint16_t *)W.p[0].v->data)[i];
                const bool q = (w & 0x7fc0u) == 0x7fc0u && (m & 0x7fc0u) == 0x7fc0u &&
                               (v & 0x7fc0u) == 0x7fc0u;
                /* a NaN the arithmetic made from a quiet binary32 NaN with no payload below the
                 * quiet bit stores exactly 0x7fc0 with its sign */
                const bool p0 = (bits32((float)x[i]) & 0x003fffffu) != 0 ||
                                ((w | m | v) & 0x003fu) == 0;
                miss_note(ms, q && p0, "NaN, the optimizer's write (%s, %s) of gradient %016llx: "
                          "weight %04x, m %04x, v %04x", strat, path ? "generic" : "fused",
                          (unsigned long long)bits64(x[i]), (unsigned)w, (unsigned)m, (unsigned)v);
            }
            srl_weights_free(&W);
            if (st)
                return st;
        }
    return SRL_OK;
}

int srl__chk_probe_paths(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    miss ms = {0, 0, ""};
    srl_rng root;
    probe_rng(&root, "T01f");
    int st = SRL_OK;
    for (size_t k = 0; k < NPF && !st; k++) {
        srl_format f;
        if ((st = srl_format_parse(&f, pf_formats[k], err)))
            break;
        srl_tensor_desc d = {"probe", 1, {PN, 0, 0, 0}, f};
        srl_tensor_set ts;
        if ((st = srl_tensor_set_alloc(&ts, &d, 1, &root, err)))
            break;
        for (int b32 = 0; b32 < 2 && !st; b32++) {
            const int bits = (b32 ? 24 : 53) - f.p;
            if (bits < 1)
                continue;
            for (size_t j = 0; j < NPM && !st; j++) {
                const pgroup g = {&f, b32 != 0, bits, pf_modes[j]};
                for (int w = 0; w < 2 && !st; w++)
                    st = probe_group(&ms, &g, w, &root, o->mutation, &ts.t[0], pf_formats[k]);
            }
        }
        srl_tensor_set_free(&ts);
    }
    if (!st)
        st = probe_nans(&ms, &root, err);
    if (st)
        return st == SRL_ENOMEM ? srl_err_set(err, st, "out of memory")
                                : srl_err_set(err, st, "%s: a rounding path failed: %s",
                                              row->check.id, srl_strerror(st));
    srl__chk_result_begin(out, row->check.id,
                          "%llu of %llu results of %d rounding paths differ from the definition "
                          "(9 formats, 12 modes, inputs from each element's draw; NaNs' bit "
                          "patterns; seed 1, streams T01f*)%s%s",
                          (unsigned long long)ms.count, (unsigned long long)ms.total, NPATH,
                          ms.count ? "; first: " : "", ms.first);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)ms.count, (double)ms.count,
                        (double)ms.count, 0.0);
    return SRL_OK;
}

/* ================================================================================================
 * The optimizer's step (include/srlab/optim.h), written once more
 * ============================================================================================== */

/* One element's Adam or AdamW step in binary32 (the operations of include/srlab/optim.h, in
 * order, each rounded to nearest binary32: no contraction in this file): from x, g, m, v the new
 * moments m1, v1 and the unrounded new value xe. */
typedef struct adam32 {
    float lr, wd, b1, c1, b2, c2, bc1, bc2, eps;
    bool adamw;
} adam32;

static adam32 adam32_of(const srl_optim_config *c, uint64_t t, double lr)
{
    adam32 k = {(float)lr, (float)c->wd, (float)c->beta1, (float)(1.0 - c->beta1),
                (float)c->beta2, (float)(1.0 - c->beta2),
                (float)(1.0 - pow(c->beta1, (double)t)), (float)(1.0 - pow(c->beta2, (double)t)),
                (float)c->eps, c->kind == SRL_OPTIM_ADAMW};
    return k;
}

static void adam32_step(float *m1, float *v1, float *xe, const adam32 *k, float x, float g,
                        float m, float v)
{
    const float d = k->adamw ? g : g + k->wd * x;
    *m1 = k->b1 * m + k->c1 * d;
    *v1 = k->b2 * v + (k->c2 * d) * d;
    const float den = sqrtf(*v1 / k->bc2) + k->eps;
    const float s = k->adamw ? k->lr * ((*m1 / k->bc1) / den + k->wd * x)
                             : k->lr * ((*m1 / k->bc1) / den);
    *xe = x - s;
}

/* The same in binary64. */
static void adam64_step(double *m1, double *v1, double *xe, const srl_optim_config *c, uint64_t t,
                        double lr, double x, double g, double m, double v)
{
    const bool adamw = c->kind == SRL_OPTIM_ADAMW;
    const double c1 = 1.0 - c->beta1, c2 = 1.0 - c->beta2, bc1 = 1.0 - pow(c->beta1, (double)t),
                 bc2 = 1.0 - pow(c->beta2, (double)t);
    const double d = adamw ? g : g + c->wd * x;
    *m1 = c->beta1 * m + c1 * d;
    *v1 = c->beta2 * v + (c2 * d) * d;
    const double den = sqrt(*v1 / bc2) + c->eps;
    const double s = adamw ? lr * ((*m1 / bc1) / den + c->wd * x) : lr * ((*m1 / bc1) / den);
    *xe = x - s;
}

/* Weights of one tensor "w" of n elements under strategy `strat` and optimizer kind, at x, g, m, v
 * (values of their slots' formats), before step t. */
static int probe_weights(srl_weights *W, const char *strat, srl_optim_kind kind, size_t n,
                         const double *x, const double *g, const double *m, const double *v,
                         uint64_t t, srl_err *err)
{
    srl_strategy s;
    int st = srl_strategy_preset(&s, strat, err);
    if (st)
        return st;
    srl_weight_spec spec = {"w", 1, {n, 0, 0, 0}};
    srl_rng root;
    probe_rng(&root, "probe/writes");
    if ((st = srl_weights_alloc(W, &spec, 1, &s, kind, &root, err)))
        return st;
    srl_weight *p = &W->p[0];
    st = srl_weights_init(W, 0, x, err);
    if (!st)
        st = srl_weights_set_grad_d(W, 0, g, t);
    if (!st && p->m)
        st = srl_tensor_put_d(p->m, 0, m, n, SRL_ROUND_RN, 0);
    if (!st && p->v)
        st = srl_tensor_put_d(p->v, 0, v, n, SRL_ROUND_RN, 0);
    if (st) {
        srl_weights_free(W);
        return srl_err_set(err, st, "probe: setting up %s failed", strat);
    }
    return SRL_OK;
}

/* ---- T02c: the seed paper's write in the optimizer ---- */

#define T02C_N 4096

/* Pairs (x, g) whose Adam step (beta1 = beta2 = 0: m' = g, v' = g^2, s = lr g / (|g| + eps),
 * xe = x - s, all exact but s) gives each fraction F of xe below the bf16 grid: table[F] holds
 * one pair (x index, g index) + 1, 0 for none. */
typedef struct t02c_tab {
    float x[64 * 2], g[2048];
    uint32_t pair[65536];
} t02c_tab;

static void t02c_table(t02c_tab *tb, const adam32 *k)
{
    memset(tb->pair, 0, sizeof tb->pair);
    /* x: bf16 values in [1, 4) of either sign, among them the powers of two (whose step down
     * lands in the last spacing below them); g: bf16 values 2^-24 .. 2^-3, either sign */
    srl_rng r;
    probe_rng(&r, "T02c/table");
    for (int i = 0; i < 128; i++) {
        const float v = i % 16 == 0 ? ldexpf(1, 1 + (i / 16) % 2)
                                    : ldexpf((float)(128 + rnd(&r, 128)), (int)rnd(&r, 2) - 7);
        tb->x[i] = i < 64 ? v : -v;
    }
    for (int j = 0; j < 2048; j++) {
        const float v = ldexpf((float)(128 + rnd(&r, 128)), -31 + (int)rnd(&r, 21));
        tb->g[j] = j % 2 ? -v : v;
    }
    for (int i = 0; i < 128; i++)
        for (int j = 0; j < 2048; j++) {
            float m1, v1, xe;
            adam32_step(&m1, &v1, &xe, k, tb->x[i], tb->g[j], 0, 0);
            uint32_t b;
            memcpy(&b, &xe, sizeof b);
            if (!tb->pair[b & 0xffff])
                tb->pair[b & 0xffff] = (uint32_t)(i * 2048 + j) + 1;
        }
}

/* One element's (x, g) for its draw u: kind by i: the carry's edge for its Z (sr: F + Z =
 * 2^16 - 1 and 2^16; rn: F = 2^15 - 1, 2^15, 2^15 + 1), else any pair of the table. */
static void t02c_pick(double *x, double *g, const t02c_tab *tb, size_t i, uint64_t u, bool sr,
                      srl_rng *sh)
{
    const uint32_t Z = (uint32_t)(u >> 48);
    uint32_t want;
    if (sr)
        want = (0x10000u - Z - (uint32_t)(i % 3 == 0)) & 0xffffu;
    else
        want = 0x8000u - 1 + (uint32_t)(i % 3);
    uint32_t pr = i % 3 == 2 && sr ? 0 : tb->pair[want];
    if (!pr)
        pr = (uint32_t)rnd(sh, 128 * 2048) + 1;
    *x = tb->x[(pr - 1) / 2048];
    *g = tb->g[(pr - 1) % 2048];
}

int srl__chk_probe_write(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    const uint64_t t = 3;
    const srl_optim_config c = {.kind = SRL_OPTIM_ADAM, .lr = 0x1p-6, .beta1 = 0, .beta2 = 0,
                                .eps = 0x1p-14, .schedule = SRL_SCHED_CONSTANT, .steps = 10};
    /* a second weight of tiny values at lr 2^-130: new values in bf16's subnormal range */
    const double lr_sub = 0x1p-130;
    const adam32 k = adam32_of(&c, t, c.lr), ks = adam32_of(&c, t, lr_sub);
    t02c_tab *tb = malloc(sizeof *tb);
    double *buf = malloc(6 * T02C_N * sizeof *buf);
    if (!tb || !buf) {
        free(tb);
        free(buf);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    double *x = buf, *g = x + T02C_N, *zero = g + T02C_N, *w = zero + T02C_N,
           *mm = w + T02C_N, *vv = mm + T02C_N;
    memset(zero, 0, T02C_N * sizeof *zero);
    t02c_table(tb, &k);
    miss ms = {0, 0, ""};
    const srl_format *bf16 = srl_format_find("bf16");
    int st = SRL_OK;
    for (int sr = 0; sr < 2 && !st; sr++)
        for (int path = 0; path < 2 && !st; path++)
            for (int sub = 0; sub < 2 && !st; sub++) {
                const char *strat = sr ? "bf16-sr" : "bf16-rn";
                const adam32 *kk = sub ? &ks : &k;
                /* the weight tensor's stream, as srl_weights_alloc derives it: read back below */
                srl_weights W;
                if ((st = probe_weights(&W, strat, SRL_OPTIM_ADAM, T02C_N, zero, zero, zero, zero,
                                        t, err)))
                    break;
                const srl_rng wr = W.p[0].w->rng;
                srl_weights_free(&W);
                srl_rng sh;
                probe_rng(&sh, "T02c/shapes");
                for (size_t i = 0; i < T02C_N; i++) {
                    const uint64_t u = srl_rng_draw_at(&wr, (t - 1) * T02C_N + i);
                    t02c_pick(&x[i], &g[i], tb, i, u, sr, &sh);
                    if (sub) /* tiny weights, 2^-133 .. 2^-125, stepped at lr 2^-130 */
                        x[i] = def_round(ldexp(x[i], -128 - (int)(i % 6)), bf16, SRL_ROUND_RN, 0);
                }
                if ((st = probe_weights(&W, strat, SRL_OPTIM_ADAM, T02C_N, x, g, zero, zero, t,
                                        err)))
                    break;
                /* the experiment mutation: the step numbered t - 1 (its write draws step 2's) */
                st = srl__optim_step_path(NULL, &W, &c,
                                          o->mutation == SRL_CHECK_MUT_EXPERIMENT ? t - 1 : t,
                                          sub ? lr_sub : c.lr,
                                          path ? SRL__PATH_GENERIC : SRL__PATH_AUTO);
                if (!st && !path && !srl__optim_fast_applies(&W))
                    st = srl_err_set(err, SRL_EINVAL, "T02c: the fused kernel does not apply");
                if (!st) {
                    srl_tensor_get_d(w, W.p[0].w, 0, T02C_N);
                    srl_tensor_get_d(mm, W.p[0].m, 0, T02C_N);
                    srl_tensor_get_d(vv, W.p[0].v, 0, T02C_N);
                }
                srl_weights_free(&W);
                if (st)
                    break;
                for (size_t i = 0; i < T02C_N; i++) {
                    float m1, v1, xe;
                    adam32_step(&m1, &v1, &xe, kk, (float)x[i], (float)g[i], 0, 0);
                    const uint64_t u = srl_rng_draw_at(&wr, (t - 1) * T02C_N + i);
                    srl_rounding wm = sr ? (srl_rounding){SRL_SR_BITS, 16} : SRL_ROUND_RN;
                    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
                        wm = sr ? (srl_rounding){SRL_SR_BITS, 15} : (srl_rounding){SRL_RNA, 0};
                    const double want = def_round(xe, bf16, wm, u),
                                 wm1 = def_round(m1, bf16, SRL_ROUND_RN, 0),
                                 wv1 = def_round(v1, bf16, SRL_ROUND_RN, 0);
                    miss_note(&ms, same(w[i], want) && same(mm[i], wm1) && same(vv[i], wv1),
                              "%s, %s path, x %a, g %a, xe %a (Z %04x): weight %a, m %a, v %a; "
                              "defined %a, %a, %a",
                              strat, path ? "generic" : "fused", x[i], g[i], (double)xe,
                              (unsigned)(u >> 48), w[i], mm[i], vv[i], want, wm1, wv1);
                }
            }
    free(tb);
    free(buf);
    if (st)
        return st;
    srl__chk_result_begin(out, row->check.id,
                          "%llu of %llu elements differ from the definition (bf16 Adam step %llu, "
                          "sr:r=16 and rn writes at each draw's carry edge, fused and generic; "
                          "seed 1, streams T02c*)%s%s",
                          (unsigned long long)ms.count, (unsigned long long)ms.total,
                          (unsigned long long)t, ms.count ? "; first: " : "", ms.first);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)ms.count, (double)ms.count,
                        (double)ms.count, 0.0);
    return SRL_OK;
}

/* ---- T10f: the Adam and AdamW step ---- */

#define T10F_N 1024

/* Inputs of the step probe: values of bf16 (so of every slot's format), the weights in
 * [2^-3, 2^3), gradients and first moments of either sign across ten binades, second moments
 * from v = g^2 scale down to 2^-60 (below eps^2 = 1e-16, where eps decides the denominator). */
static void t10f_inputs(double *x, double *g, double *m, double *v, size_t n)
{
    const srl_format *bf16 = srl_format_find("bf16");
    srl_rng r;
    probe_rng(&r, "T10f/inputs");
    for (size_t i = 0; i < n; i++) {
        const double sx = srl_rng_next(&r) & 1 ? -1 : 1, sg = srl_rng_next(&r) & 1 ? -1 : 1;
        x[i] = def_round(sx * ldexp(1 + srl_rng_uniform(&r), (int)rnd(&r, 6) - 3), bf16,
                         SRL_ROUND_RN, 0);
        g[i] = def_round(sg * ldexp(1 + srl_rng_uniform(&r), -(int)rnd(&r, 20)), bf16,
                         SRL_ROUND_RN, 0);
        m[i] = def_round(0.5 * g[i] * (1 + srl_rng_uniform(&r)), bf16, SRL_ROUND_RN, 0);
        const int ve = i % 4 == 0 ? -40 - (int)rnd(&r, 20) : 2 * ilogb(g[i]) - (int)rnd(&r, 4);
        v[i] = def_round(ldexp(1 + srl_rng_uniform(&r), ve), bf16, SRL_ROUND_RN, 0);
    }
}

int srl__chk_probe_step(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                        srl_err *err)
{
    static const char *const strats[] = {"fp32", "mp", "bf16-rn", "bf16-sr", "bf16-sr-exact"};
    static const uint64_t steps[] = {1, 2, 9};
    double *buf = malloc(9 * T10F_N * sizeof *buf);
    if (!buf)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    double *x = buf, *g = x + T10F_N, *m = g + T10F_N, *v = m + T10F_N, *w = v + T10F_N,
           *mm = w + T10F_N, *vv = mm + T10F_N, *ms_ = vv + T10F_N, *dummy = ms_ + T10F_N;
    (void)dummy;
    t10f_inputs(x, g, m, v, T10F_N);
    miss ms = {0, 0, ""};
    int st = SRL_OK;
    for (size_t s = 0; s < sizeof strats / sizeof strats[0] && !st; s++)
        for (int kind = 0; kind < 2 && !st; kind++)
            for (size_t ti = 0; ti < 3 && !st; ti++)
                for (int path = 0; path < 2 && !st; path++) {
                    const uint64_t t = steps[ti];
                    srl_optim_config c = {.kind = kind ? SRL_OPTIM_ADAMW : SRL_OPTIM_ADAM,
                                          .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8,
                                          .wd = 0.1, .schedule = SRL_SCHED_CONSTANT, .steps = 10};
                    srl_weights W;
                    if ((st = probe_weights(&W, strats[s], c.kind, T10F_N, x, g, m, v, t, err)))
                        break;
                    /* the experiment mutation: the step numbered one more than the moments' */
                    st = srl__optim_step_path(NULL, &W, &c,
                                              o->mutation == SRL_CHECK_MUT_EXPERIMENT ? t + 1 : t,
                                              c.lr, path ? SRL__PATH_GENERIC : SRL__PATH_AUTO);
                    const srl_weight *p = &W.p[0];
                    const srl_strategy *S = &W.strat;
                    if (!st) {
                        srl_tensor_get_d(w, p->w, 0, T10F_N);
                        srl_tensor_get_d(mm, p->m, 0, T10F_N);
                        srl_tensor_get_d(vv, p->v, 0, T10F_N);
                        if (p->master)
                            srl_tensor_get_d(ms_, p->master, 0, T10F_N);
                    }
                    const adam32 k = adam32_of(&c, t, c.lr);
                    const uint64_t idx = (t - 1) * T10F_N;
                    for (size_t i = 0; i < T10F_N && !st; i++) {
                        double m1, v1, xe;
                        if (S->arith == SRL_ARITH_FP32) {
                            float fm1, fv1, fxe;
                            adam32_step(&fm1, &fv1, &fxe, &k, (float)x[i], (float)g[i],
                                        (float)m[i], (float)v[i]);
                            m1 = fm1, v1 = fv1, xe = fxe;
                        } else {
                            adam64_step(&m1, &v1, &xe, &c, t, c.lr, x[i], g[i], m[i], v[i]);
                        }
                        if (o->mutation == SRL_CHECK_MUT_PREDICTION) /* eps inside the root */
                            xe = x[i] - c.lr * ((m1 / (1 - pow(c.beta1, (double)t))) /
                                                    sqrt(v1 / (1 - pow(c.beta2, (double)t)) +
                                                         c.eps) +
                                                (kind ? c.wd * x[i] : 0));
                        const double wm1 = def_round(m1, &S->m.fmt, S->m.mode,
                                                     srl_rng_draw_at(&p->m->rng, idx + i)),
                                     wv1 = def_round(v1, &S->v.fmt, S->v.mode,
                                                     srl_rng_draw_at(&p->v->rng, idx + i));
                        double wx = xe, wmaster = NAN;
                        if (p->master) {
                            wmaster = def_round(xe, &S->master.fmt, S->master.mode,
                                                srl_rng_draw_at(&p->master->rng, idx + i));
                            wx = wmaster;
                        }
                        wx = def_round(wx, &S->param.fmt, S->param.mode,
                                       srl_rng_draw_at(&p->w->rng, idx + i));
                        miss_note(&ms,
                                  same(w[i], wx) && same(mm[i], wm1) && same(vv[i], wv1) &&
                                      (!p->master || same(ms_[i], wmaster)),
                                  "%s, %s, step %llu, %s path, x %a g %a m %a v %a: weight %a, m "
                                  "%a, v %a; defined %a, %a, %a",
                                  strats[s], kind ? "adamw" : "adam", (unsigned long long)t,
                                  path ? "generic" : "auto", x[i], g[i], m[i], v[i], w[i], mm[i],
                                  vv[i], wx, wm1, wv1);
                    }
                    srl_weights_free(&W);
                }
    free(buf);
    if (st)
        return st;
    srl__chk_result_begin(out, row->check.id,
                          "%llu of %llu elements differ from optim.h (Adam, AdamW step 1, 2, 9; "
                          "fp32, mp, bf16-rn, -sr, -sr-exact; both paths; seed 1, stream "
                          "T10f/inputs)%s%s",
                          (unsigned long long)ms.count, (unsigned long long)ms.total,
                          ms.count ? "; first: " : "", ms.first);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)ms.count, (double)ms.count,
                        (double)ms.count, 0.0);
    return SRL_OK;
}

/* ---- T16c: the Kahan-compensated write ---- */

int srl__chk_probe_kahan(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    const size_t n = T10F_N;
    double *buf = malloc(8 * n * sizeof *buf);
    if (!buf)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    double *x = buf, *g = x + n, *m = g + n, *v = m + n, *w = v + n, *cc = w + n, *wc = cc + n,
           *wx = wc + n;
    t10f_inputs(x, g, m, v, n);
    miss ms = {0, 0, ""};
    int st = SRL_OK;
    for (int kind = 0; kind < 2 && !st; kind++) {
        srl_optim_config c = {.kind = kind ? SRL_OPTIM_ADAM : SRL_OPTIM_SGD, .lr = 1e-3,
                              .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8,
                              .schedule = SRL_SCHED_CONSTANT, .steps = 10};
        srl_weights W;
        if ((st = probe_weights(&W, "bf16-kahan", c.kind, n, x, g, m, v, 1, err)))
            break;
        const srl_weight *p = &W.p[0];
        const srl_strategy *S = &W.strat;
        for (size_t i = 0; i < n; i++) { /* the defined state: weight, comp, m, v */
            wx[i] = x[i];
            wc[i] = 0;
        }
        double mi[T10F_N], vi[T10F_N];
        memcpy(mi, m, sizeof mi);
        memcpy(vi, v, sizeof vi);
        for (uint64_t t = 1; t <= 2 && !st; t++) {
            if (t > 1)
                st = srl_weights_set_grad_d(&W, 0, g, t);
            if (!st)
                st = srl_optim_step(NULL, &W, &c, t, c.lr);
            if (st)
                break;
            srl_tensor_get_d(w, p->w, 0, n);
            srl_tensor_get_d(cc, p->comp, 0, n);
            const adam32 k = adam32_of(&c, t, c.lr);
            for (size_t i = 0; i < n; i++) {
                /* s, then y = c - s; weight <- R(x + y); comp <- R_c(y - (weight - x)) */
                float s;
                if (kind) {
                    float m1, v1, xe;
                    adam32_step(&m1, &v1, &xe, &k, (float)wx[i], (float)g[i], (float)mi[i],
                                (float)vi[i]);
                    (void)xe; /* the Kahan write uses s itself */
                    mi[i] = def_round(m1, &S->m.fmt, S->m.mode, 0);
                    vi[i] = def_round(v1, &S->v.fmt, S->v.mode, 0);
                    s = k.lr * ((m1 / k.bc1) / (sqrtf(v1 / k.bc2) + k.eps));
                } else {
                    s = k.lr * (float)g[i];
                }
                const float y = (float)wc[i] - s, xe = (float)wx[i] + y;
                const double nw = def_round(xe, &S->param.fmt, S->param.mode, 0);
                const float tt = (float)nw - (float)wx[i];
                const double nc = o->mutation == SRL_CHECK_MUT_PREDICTION
                                      ? 0 /* the prediction mutation: no compensation */
                                      : def_round(y - tt, &S->comp.fmt, S->comp.mode, 0);
                wx[i] = nw;
                wc[i] = nc;
                miss_note(&ms, same(w[i], nw) && same(cc[i], nc),
                          "%s, step %llu, x %a g %a: weight %a comp %a; defined %a, %a",
                          kind ? "adam" : "sgd", (unsigned long long)t, x[i], g[i], w[i], cc[i],
                          nw, nc);
            }
        }
        srl_weights_free(&W);
    }
    free(buf);
    if (st)
        return st;
    srl__chk_result_begin(out, row->check.id,
                          "%llu of %llu elements differ from optim.h's Kahan write (bf16-kahan, "
                          "SGD and Adam, steps 1, 2; seed 1, stream T10f/inputs)%s%s",
                          (unsigned long long)ms.count, (unsigned long long)ms.total,
                          ms.count ? "; first: " : "", ms.first);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)ms.count, (double)ms.count,
                        (double)ms.count, 0.0);
    return SRL_OK;
}
