/* src/ops/ops.c: exact operations, fast path (include/srlab/ops.h, docs/design.md §5).
 *
 * Every operation forms its exact result and rounds it once with the shared rule of
 * src/round/round_core.h: it describes the magnitude as |x| = (T + f) 2^qe (T an integer,
 * 0 <= f < 1, 2^qe the grid spacing at |x|), f by its first word f1 = floor(f 2^64), a flag
 * `more` and a tail of further words, then calls srl__away() and srl__assemble(); the quick path
 * below calls the same decision, srl__decide and srl__round_bits (src/round/decide.h). The
 * description of an exact value is unique, so this file and the MPFR reference path
 * (src/ops/ops_mpfr.c) give the same bits for the same draw (theory/T01-sr-basics.md:
 * P(away) = f exactly).
 *
 * How the exact result is described, all in integer arithmetic on the operands' significands
 * (|a| = Ma 2^Ea with Ma < 2^53 an integer):
 *   add, sub, fma  two terms M1 2^E1 + M2 2^E2 (fma: the product is one term, Ma Mb 2^(Ea+Eb),
 *        a 106-bit integer: the pair TwoProd would give, without TwoProd's underflow limit).
 *        If one term lies wholly below the other's last bit, the result is the pair (big, small)
 *        that TwoSum / ErrFma would return, and the small term only enters f (its sign may
 *        borrow one unit from T); otherwise the terms overlap and their sum is an exact integer
 *        of at most 160 bits. Either way f is A 2^-sa +- L 2^-sb with integers A, L: every word
 *        of f is read off with shifts (pair_word).
 *   mul  the 106-bit product, one term.
 *   div  long division of odd significands: x/q = Ma 2^sh / Mb. For sh >= 0, T and the
 *        remainder R come from one 128/64 division and f = R/Mb; for sh < 0, T = I0 >> -sh with
 *        Ma = I0 Mb + R. Word k of R/Mb is floor(r 2^64 / Mb) with r = R 2^(64k) mod Mb (modular
 *        exponentiation), so any word is exact and cheap; the expansion is infinite iff R != 0.
 *   sqrt with an even exponent, x/q = sqrt(V), V = Ma 2^d: T = isqrt(V) (double estimate, exact
 *        integer correction), rem = V - T^2; rem == 0: exact; else f is irrational and
 *        f1 = max g with (T 2^64 + g)^2 <= V 2^128, found from a double estimate, one Newton
 *        step on the exact residual and exact comparisons. Further words (needed with
 *        probability 2^-64 per sr rounding) are isqrt(V 2^(2K)) mod 2^64, computed with GMP.
 * Magnitudes at or above 2^(emax+1) overflow in every mode whatever f is; they are described as
 * T = 0, f = 0, trunc = +inf (as src/round/mpfr_round.c does), which makes srl__assemble() apply the
 * overflow rules.
 *
 * The quick path in front (srl_op_apply_draw; kernels call it in inner loops) avoids most of that
 * work and gives the same bits. It starts from x0 = RN(x), the binary64 result of the operation
 * (IEEE 754 rounds a+b, a*b, fma, a/b, sqrt correctly), so |x - x0| <= ulp(x0)/2:
 *   1. quick_near (mul, fma, div, sqrt): when x0's binade is a normal binade of the format and
 *      x0's bits below the format's grid are neither 0 nor exactly half, f lies in a known
 *      interval of width 2^(p-53) that contains neither 0 nor 1/2, and every mode decides from
 *      x0 alone (sr unless the draw falls inside the interval, probability 2^(p-53); sr:r=R
 *      unless the interval straddles a multiple of 2^-R). add and sub skip this stage: a sum of
 *      two p-bit numbers usually ends exactly on the grid or a midpoint;
 *   2. else the exact residual: TwoSum's error (add, sub, fma with a binary64 product),
 *      fma(a, b, -p) (mul), the remainder fma(-x0, b, a) (div) or fma(-x0, x0, a) (sqrt), exact
 *      under the exponent guards stated at each use. Zero: x is x0 (quick_round); else x lies
 *      strictly inside half an ulp on a known side, or exactly on it (a tie of TwoSum / TwoProd),
 *      which pins f to an interval of width 2^(p-54) or a point (quick_round_side);
 *   3. else the integer description above (apply_general).
 * Stage 1 and 2 need x0 in a normal binade of the format (zeros, subnormal results, overflow
 * beyond the top binade and special operands go to stage 3) and 2^-960 < |x0| (the residuals
 * are exact there).
 *
 * The fast path covers every finite operand of every operation; it hands an operation to the MPFR
 * path only where a precondition of the description fails, which the analysis above excludes
 * (kept as a guard; srl_op_which_path() reports it).
 *
 * Not here: bulk arrays of operations (kernels.c) and the MPFR path (ops_mpfr.c). */
#include "srlab/ops.h"

#include <float.h>
#include <gmp.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "srlab/ops_mpfr.h"

#include "round/round_core.h"

typedef srl_u128 u128;
__extension__ typedef __int128 s128;

_Static_assert(ULONG_MAX >= UINT64_MAX, "GMP words are read through unsigned long");

/* ---- names ---- */

static const char *const op_names[SRL_OP_COUNT] = {"add", "sub", "mul", "fma", "div", "sqrt"};

int srl_op_parse(srl_op *op, const char *s, srl_err *err)
{
    for (int i = 0; i < SRL_OP_COUNT; i++) {
        if (s && strcmp(s, op_names[i]) == 0) {
            *op = (srl_op)i;
            return SRL_OK;
        }
    }
    return srl_err_set(err, SRL_EPARSE,
                       "unknown operation '%s' (known: add, sub, mul, fma, div, sqrt)",
                       s ? s : "");
}

const char *srl_op_name(srl_op op)
{
    return (unsigned)op < SRL_OP_COUNT ? op_names[op] : "invalid";
}

int srl_op_arity(srl_op op)
{
    return op == SRL_FMA ? 3 : op == SRL_SQRT ? 1 : 2;
}

/* ---- integer helpers ---- */

static inline int bitlen64(uint64_t x)
{
    return x ? 64 - __builtin_clzll(x) : 0;
}

static inline int bitlen128(u128 x)
{
    const uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 128 - __builtin_clzll(hi) : bitlen64((uint64_t)x);
}

/* x mod 2^s != 0, for s >= 0 */
static inline bool low_nonzero(u128 x, uint64_t s)
{
    if (s >= 128)
        return x != 0;
    return (x & (((u128)1 << s) - 1)) != 0;
}

/* (x 2^s) mod 2^64, s >= 0 */
static inline uint64_t lo64_shl(u128 x, uint64_t s)
{
    return s >= 64 ? 0 : (uint64_t)x << s;
}

/* floor(x 2^-s) mod 2^64, s >= 0 */
static inline uint64_t lo64_shr(u128 x, uint64_t s)
{
    return s >= 128 ? 0 : (uint64_t)(x >> s);
}

/* |x| = M 2^E with M < 2^53 the binary64 significand (hidden bit included, trailing zeros kept).
 * x finite and nonzero. */
typedef struct term {
    u128 M;
    int E;
    bool neg;
} term;

static inline term split(double x)
{
    const uint64_t b = srl__bits(x);
    const uint64_t be = (b >> 52) & 0x7ff;
    term t;
    t.neg = (b >> 63) != 0;
    if (be) {
        t.M = (b & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
        t.E = (int)be - 1075;
    } else {
        t.M = b & ((UINT64_C(1) << 52) - 1);
        t.E = -1074;
    }
    return t;
}

/* The same with the significand made odd. */
static inline void split_odd(double x, uint64_t *M, int *E)
{
    term t = split(x);
    uint64_t m = (uint64_t)t.M;
    const int tz = __builtin_ctzll(m);
    *M = m >> tz;
    *E = t.E + tz;
}

/* ---- outcome of describing an operation ---- */

enum { DESC_OK = 0, DESC_SPECIAL = 1, DESC_FALLBACK = 2 };

static inline void set_beyond(srl__exact *r, const srl_format *f, bool neg)
{
    r->neg = neg;
    r->qe = f->emax - f->p + 1;
    r->T = 0;
    r->trunc = INFINITY;
    r->f1 = 0;
    r->more = false;
    r->tail = NULL;
}

/* ---- pairs: |x| = H 2^EH + s L 2^EL (s = -1 when sneg) with L 2^EL < 2^EH ---- */

/* f = A 2^-sa + s L 2^-sb, taken mod 1 (when A == 0 and s < 0, T was lowered by one). */
typedef struct pair_ctx {
    u128 A, L;
    uint64_t sa, sb;
    bool sneg;
} pair_ctx;

/* floor(f 2^K) mod 2^64 for K >= 64. Since L 2^-sb < 2^-sa: for K >= sa, A 2^(K-sa) is an integer
 * and the small term adds its own floor; for K < sa the small term only matters through a borrow
 * when A's dropped bits are all zero. */
static uint64_t pair_word_K(const pair_ctx *c, uint64_t K)
{
    uint64_t w;
    if (K >= c->sa) {
        w = lo64_shl(c->A, K - c->sa);
        if (c->L) {
            if (K >= c->sb) {
                const uint64_t t = lo64_shl(c->L, K - c->sb);
                w = c->sneg ? w - t : w + t;
            } else {
                const uint64_t d = c->sb - K;
                const uint64_t t = lo64_shr(c->L, d);
                w = c->sneg ? w - t - (uint64_t)low_nonzero(c->L, d) : w + t;
            }
        }
    } else {
        const uint64_t d = c->sa - K;
        w = lo64_shr(c->A, d);
        if (c->sneg && c->L && !low_nonzero(c->A, d))
            w -= 1;
    }
    return w;
}

static uint64_t pair_word(const void *ctx, uint64_t k)
{
    return pair_word_K((const pair_ctx *)ctx, 64 * (k + 1));
}

/* Describe |x| = H 2^EH + s L 2^EL. Requires H >= 1 and, when L != 0, L 2^EL < 2^(EH-1). */
static int describe_pair(srl__exact *r, pair_ctx *pc, srl__tail *tail, bool neg, u128 H, int EH,
                         bool sneg, u128 L, int EL, const srl_format *f)
{
    const int nb = bitlen128(H);
    int e = EH + nb - 1;
    if (L && sneg && (H & (H - 1)) == 0) {
        /* x = 2^(EH+nb-1) - small with small < 2^(EH-1): one binade lower */
        e -= 1;
    }
    if (e > f->emax) {
        set_beyond(r, f, neg);
        return DESC_OK;
    }
    const int qe = srl__qe(f, e);
    const int sh = qe - EH;
    uint64_t T;
    if (sh <= 0) {
        T = (uint64_t)(H << -sh);
        pc->A = 0;
        pc->sa = 0;
    } else {
        T = lo64_shr(H, (uint64_t)sh);
        pc->A = sh >= 128 ? H : H & (((u128)1 << sh) - 1);
        pc->sa = (uint64_t)sh;
    }
    pc->L = L;
    pc->sneg = sneg && L;
    pc->sb = 0;
    if (L) {
        /* the small term must lie below the grid spacing: L 2^EL < 2^qe */
        if ((long)EL + bitlen128(L) > (long)qe)
            return DESC_FALLBACK;
        pc->sb = (uint64_t)((long)qe - EL);
        if (sneg && pc->A == 0)
            T -= 1; /* f = 1 - L 2^-sb */
    }
    r->neg = neg;
    r->qe = qe;
    r->T = T;
    r->trunc = (double)T * srl__pow2(qe);
    r->f1 = pair_word_K(pc, 64);
    r->more = (pc->sa > 64 && low_nonzero(pc->A, pc->sa - 64)) ||
              (L && pc->sb > 64 && low_nonzero(L, pc->sb - 64));
    r->tail = NULL;
    if (r->more) {
        const uint64_t s = pc->sb > pc->sa ? pc->sb : pc->sa;
        tail->word = pair_word;
        tail->ctx = pc;
        tail->nwords = (s + 63) / 64 - 1;
        r->tail = tail;
    }
    return DESC_OK;
}

/* A 192-bit unsigned integer hi 2^128 + lo, for overlapping fma terms (at most 160 bits). */
typedef struct u192 {
    uint64_t hi;
    u128 lo;
} u192;

static inline u192 shl192(u128 m, int s) /* m 2^s, 0 <= s < 128, result < 2^192 */
{
    u192 r;
    r.lo = m << s;
    r.hi = s ? (uint64_t)(m >> (128 - s)) : 0;
    return r;
}

static inline int cmp192(u192 a, u192 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return a.lo < b.lo ? -1 : a.lo > b.lo;
}

static inline u192 add192(u192 a, u192 b)
{
    u192 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

static inline u192 sub192(u192 a, u192 b) /* a >= b */
{
    u192 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

/* Describe x + y for two nonzero terms; DESC_SPECIAL with *zero = +0 when they cancel exactly
 * (the caller applies the sign rule). */
static int describe_sum(srl__exact *r, pair_ctx *pc, srl__tail *tail, term x, term y,
                        const srl_format *f)
{
    const int topx = x.E + bitlen128(x.M), topy = y.E + bitlen128(y.M);
    const bool sneg = x.neg != y.neg;
    if (topy <= x.E - 1) /* y wholly below half of x's last bit */
        return describe_pair(r, pc, tail, x.neg, x.M, x.E, sneg, y.M, y.E, f);
    if (topx <= y.E - 1)
        return describe_pair(r, pc, tail, y.neg, y.M, y.E, sneg, x.M, x.E, f);
    /* Overlap: align on the lower exponent. The shift is below the other term's length (at most
     * 106 bits), so each aligned term is below 2^160. */
    const int Eb = x.E < y.E ? x.E : y.E;
    const int sx = x.E - Eb, sy = y.E - Eb;
    if (sx >= 128 || sy >= 128)
        return DESC_FALLBACK;
    if (bitlen128(x.M) + sx <= 126 && bitlen128(y.M) + sy <= 126) {
        /* the common case: both fit 127 bits, and so does their sum */
        const u128 nx = x.M << sx, ny = y.M << sy;
        u128 N;
        bool neg;
        if (!sneg) {
            N = nx + ny;
            neg = x.neg;
        } else if (nx >= ny) {
            N = nx - ny;
            neg = x.neg;
        } else {
            N = ny - nx;
            neg = y.neg;
        }
        if (N == 0)
            return DESC_SPECIAL;
        return describe_pair(r, pc, tail, neg, N, Eb, false, 0, 0, f);
    }
    const u192 nx = shl192(x.M, sx), ny = shl192(y.M, sy);
    u192 N;
    bool neg;
    if (!sneg) {
        N = add192(nx, ny);
        neg = x.neg;
    } else {
        const int c = cmp192(nx, ny);
        if (c == 0)
            return DESC_SPECIAL;
        N = c > 0 ? sub192(nx, ny) : sub192(ny, nx);
        neg = c > 0 ? x.neg : y.neg;
    }
    if (N.hi == 0)
        return describe_pair(r, pc, tail, neg, N.lo, Eb, false, 0, 0, f);
    /* Keep the top 128 bits as H and the rest (below H's last bit) as a positive small term. */
    const int s = bitlen64(N.hi); /* N < 2^(128+s) */
    const u128 H = (N.lo >> s) | ((u128)N.hi << (128 - s));
    const u128 L = N.lo & (((u128)1 << s) - 1);
    return describe_pair(r, pc, tail, neg, H, Eb + s, false, L, Eb, f);
}

/* ---- division ---- */

typedef struct div_ctx {
    uint64_t Y, R, Mb; /* f = (Y + R/Mb) 2^-z, Y < 2^z, R < Mb, Mb odd */
    uint64_t z;
} div_ctx;

static inline uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((u128)a * b % m);
}

static uint64_t pow2mod(uint64_t n, uint64_t m)
{
    uint64_t r = 1 % m, b = 2 % m;
    while (n) {
        if (n & 1)
            r = mulmod(r, b, m);
        b = mulmod(b, b, m);
        n >>= 1;
    }
    return r;
}

/* floor(R 2^j / Mb) mod 2^64 for 0 <= R < Mb, j >= 0: with R 2^(j-64) = Q Mb + r, it is
 * floor(r 2^64 / Mb). */
static inline uint64_t div_digits(uint64_t R, uint64_t Mb, uint64_t j)
{
    if (R == 0)
        return 0;
    if (j > 64) {
        R = mulmod(R, pow2mod(j - 64, Mb), Mb);
        j = 64;
    }
    return (uint64_t)(((u128)R << j) / Mb);
}

static uint64_t div_word_K(const div_ctx *c, uint64_t K)
{
    if (K >= c->z) {
        const uint64_t j = K - c->z;
        return lo64_shl(c->Y, j) + div_digits(c->R, c->Mb, j);
    }
    return lo64_shr(c->Y, c->z - K); /* the R/Mb part stays below one unit */
}

static uint64_t div_word(const void *ctx, uint64_t k)
{
    return div_word_K((const div_ctx *)ctx, 64 * (k + 1));
}

/* |a / b| for finite nonzero a, b. */
static int describe_div(srl__exact *r, div_ctx *dc, srl__tail *tail, double a, double b,
                        const srl_format *f)
{
    uint64_t Ma, Mb;
    int Ea, Eb;
    split_odd(a, &Ma, &Ea);
    split_odd(b, &Mb, &Eb);
    const bool neg = signbit(a) != signbit(b);
    const int la = bitlen64(Ma), lb = bitlen64(Mb);
    /* floor(log2(Ma/Mb)) = la - lb, less one when Ma's normalised significand is below Mb's */
    const int c = (Ma << (64 - la)) < (Mb << (64 - lb));
    const int e = (Ea + la - 1) - (Eb + lb - 1) - c;
    if (e > f->emax) {
        set_beyond(r, f, neg);
        return DESC_OK;
    }
    const int qe = srl__qe(f, e);
    const long sh = (long)Ea - Eb - qe; /* x/q = Ma 2^sh / Mb */
    uint64_t T, R, Y = 0, z = 0;
    if (sh >= 0) {
        if (la + sh > 127) /* excluded: T < 2^p gives N < 2^(p+lb) */
            return DESC_FALLBACK;
        const u128 N = (u128)Ma << sh;
        if (N >> 64 == 0) {
            T = (uint64_t)N / Mb;
            R = (uint64_t)N - T * Mb;
        } else {
            T = (uint64_t)(N / Mb);
            R = (uint64_t)(N - (u128)T * Mb);
        }
    } else {
        z = (uint64_t)-sh;
        const uint64_t I0 = Ma / Mb;
        R = Ma - I0 * Mb;
        T = lo64_shr(I0, z);
        Y = z >= 64 ? I0 : I0 & ((UINT64_C(1) << z) - 1);
    }
    dc->Y = Y;
    dc->R = R;
    dc->Mb = Mb;
    dc->z = z;
    r->neg = neg;
    r->qe = qe;
    r->T = T;
    r->trunc = (double)T * srl__pow2(qe);
    r->f1 = div_word_K(dc, 64);
    /* Mb is odd: R 2^j / Mb is never an integer when R != 0 */
    r->more = R != 0 || (z > 64 && low_nonzero(Y, z - 64));
    r->tail = NULL;
    if (r->more) {
        tail->word = div_word;
        tail->ctx = dc;
        tail->nwords = R ? UINT64_MAX : (z + 63) / 64 - 1; /* R != 0: periodic, never ending */
        r->tail = tail;
    }
    return DESC_OK;
}

/* ---- square root ---- */

typedef struct sqrt_ctx {
    uint64_t M; /* x/q = sqrt(M 2^d), d even */
    long d;
} sqrt_ctx;

static uint64_t isqrt128(u128 V)
{
    uint64_t t = (uint64_t)sqrt((double)V);
    while ((u128)t * t > V)
        t--;
    while ((u128)(t + 1) * (t + 1) <= V)
        t++;
    return t;
}

/* With V = T^2 + rem (0 < rem <= 2T), g = floor(2^j (sqrt(V) - T)) is the largest g < 2^j with
 * D(g) = rem 2^(2j) - g (2T 2^j + g) >= 0. Exactly: D = 2^j D' - (g^2 mod 2^j) with the integer
 * D' = rem 2^j - 2T g - floor(g^2 / 2^j) (|D'| < 2^120), so D >= 0 iff D' > 0, or D' == 0 and
 * 2^j divides g^2. Requires T < 2^55, 1 <= j <= 64. */
static inline s128 sq_resid(uint64_t T, uint64_t rem, int j, uint64_t g, bool *low)
{
    const u128 G = (u128)g * g;
    const u128 Gh = j >= 128 ? 0 : G >> j;
    *low = low_nonzero(G, (uint64_t)j);
    return ((s128)rem << j) - (s128)((u128)(2 * T) * g) - (s128)Gh;
}

static inline bool sq_ok(uint64_t T, uint64_t rem, int j, uint64_t g)
{
    bool low;
    const s128 D = sq_resid(T, rem, j, g, &low);
    return D > 0 || (D == 0 && !low);
}

static uint64_t sqrt_frac_bits(uint64_t T, uint64_t rem, int j)
{
    if (j <= 0 || rem == 0)
        return 0;
    const uint64_t gmax = j >= 64 ? UINT64_MAX : (UINT64_C(1) << j) - 1;
    /* sqrt(V) - T = rem / (T + sqrt(V)): relative error a few 2^-53, so g within ~2^(j-50) */
    const double Td = (double)T;
    const double fd = (double)rem / (Td + sqrt(Td * Td + (double)rem));
    const double gd = ldexp(fd, j);
    uint64_t g = gd >= 0x1p64 ? UINT64_MAX : (uint64_t)gd;
    if (g > gmax)
        g = gmax;
    /* one Newton step on the exact residual: D(g + d) ~ D(g) - d (2T 2^j + 2g) */
    bool low;
    const s128 D = sq_resid(T, rem, j, g, &low);
    double delta = floor((double)D / (2.0 * Td + ldexp((double)g, 1 - j)));
    if (delta > 0x1p62)
        delta = 0x1p62;
    if (delta < -0x1p62)
        delta = -0x1p62;
    const int64_t di = (int64_t)delta;
    if (di >= 0)
        g = gmax - g < (uint64_t)di ? gmax : g + (uint64_t)di;
    else
        g = g < (uint64_t)-di ? 0 : g - (uint64_t)-di;
    while (g > 0 && !sq_ok(T, rem, j, g))
        g--;
    while (g < gmax && sq_ok(T, rem, j, g + 1))
        g++;
    return g;
}

/* Word k: floor(sqrt(M 2^d) 2^K) mod 2^64 = isqrt(M 2^(d+2K)) mod 2^64 (exact, GMP). */
static uint64_t sqrt_word(const void *vctx, uint64_t k)
{
    const sqrt_ctx *c = (const sqrt_ctx *)vctx;
    const long s = c->d + 2 * 64 * (long)(k + 1);
    mpz_t v;
    mpz_init_set_ui(v, (unsigned long)c->M);
    if (s >= 0) {
        mpz_mul_2exp(v, v, (mp_bitcnt_t)s);
        mpz_sqrt(v, v);
    } else {
        mpz_sqrt(v, v);
        mpz_fdiv_q_2exp(v, v, (mp_bitcnt_t)(-s / 2));
    }
    mpz_fdiv_r_2exp(v, v, 64);
    const uint64_t w = (uint64_t)mpz_get_ui(v);
    mpz_clear(v);
    return w;
}

static inline int floor_half(int x)
{
    return x >= 0 ? x / 2 : -((1 - x) / 2);
}

/* sqrt(a) for finite a > 0. */
static int describe_sqrt(srl__exact *r, sqrt_ctx *sc, srl__tail *tail, double a,
                         const srl_format *f)
{
    uint64_t M;
    int E;
    split_odd(a, &M, &E);
    if (E & 1) { /* make the exponent even: sqrt(M 2^E) = sqrt(M) 2^(E/2) */
        M <<= 1;
        E -= 1;
    }
    const int e = floor_half(E + bitlen64(M) - 1);
    if (e > f->emax) {
        set_beyond(r, f, false);
        return DESC_OK;
    }
    const int qe = srl__qe(f, e);
    const long d = (long)E - 2L * qe; /* x/q = sqrt(M 2^d) */
    uint64_t T, f1;
    bool more;
    sc->M = M;
    sc->d = d;
    uint64_t nwords = UINT64_MAX;
    if (d >= 0) {
        if (bitlen64(M) + d > 120) /* excluded: T < 2^p gives V < 2^(2p) */
            return DESC_FALLBACK;
        const u128 V = (u128)M << d;
        T = isqrt128(V);
        const uint64_t rem = (uint64_t)(V - (u128)T * T);
        more = rem != 0;
        f1 = more ? sqrt_frac_bits(T, rem, 64) : 0;
    } else {
        /* x/q = sqrt(M) 2^-z: T = isqrt(M) >> z, f = ((S mod 2^z) + sqrt(M) - S) 2^-z */
        const uint64_t z = (uint64_t)(-d / 2);
        const uint64_t S = isqrt128(M);
        const uint64_t rem = M - S * S;
        T = lo64_shr(S, z);
        const uint64_t Y = z >= 64 ? S : S & ((UINT64_C(1) << z) - 1);
        if (z <= 64) {
            const int j = (int)(64 - z);
            f1 = lo64_shl(Y, (uint64_t)j) + sqrt_frac_bits(S, rem, j);
        } else {
            f1 = lo64_shr(Y, z - 64);
        }
        more = rem != 0 || (z > 64 && low_nonzero(Y, z - 64));
        if (rem == 0)
            nwords = (z + 63) / 64 - 1;
    }
    r->neg = false;
    r->qe = qe;
    r->T = T;
    r->trunc = (double)T * srl__pow2(qe);
    r->f1 = f1;
    r->more = more;
    r->tail = NULL;
    if (more) {
        tail->word = sqrt_word;
        tail->ctx = sc;
        tail->nwords = nwords;
        r->tail = tail;
    }
    return DESC_OK;
}

/* ---- dispatch: special values and the description ---- */

typedef struct desc_ws {
    srl__exact e;
    srl__tail tail;
    union {
        pair_ctx pair;
        div_ctx div;
        sqrt_ctx sqrt;
    } c;
} desc_ws;

static inline term term_of(double x, bool flip)
{
    term t = split(x);
    t.neg ^= flip;
    return t;
}

/* The signed zero of an exact zero sum x + y of zeros or of cancelling terms (IEEE 754 §6.3). */
static inline double zero_sum(bool nx, bool ny, srl_mode mode)
{
    if (nx && ny)
        return -0.0;
    if (!nx && !ny)
        return 0.0;
    return mode == SRL_RD ? -0.0 : 0.0;
}

/* A special result (NaN, an infinity, a signed zero), in *special. */
static inline int special_result(double *special, double v)
{
    *special = v;
    return DESC_SPECIAL;
}

/* a + s b for finite a, b (flip: b's sign is flipped). */
static int describe_add(desc_ws *w, double a, double b, bool flip, const srl_format *f,
                        srl_mode mode, double *special)
{
    const bool nb = (signbit(b) != 0) != flip;
    if (a == 0 || b == 0) {
        if (a == 0 && b == 0)
            return special_result(special, zero_sum(signbit(a) != 0, nb, mode));
        const term t = a == 0 ? term_of(b, flip) : term_of(a, false);
        return describe_pair(&w->e, &w->c.pair, &w->tail, t.neg, t.M, t.E, false, 0, 0, f);
    }
    const int k = describe_sum(&w->e, &w->c.pair, &w->tail, term_of(a, false), term_of(b, flip), f);
    if (k == DESC_SPECIAL)
        *special = zero_sum(false, true, mode);
    return k;
}

/* a + b (flip = 0) or a - b (flip = 1). */
static int describe_add_op(desc_ws *w, double a, double b, bool flip, const srl_format *f,
                           srl_mode mode, double *special)
{
    if (isnan(a) || isnan(b))
        return special_result(special, NAN);
    if (isinf(a) || isinf(b)) {
        const bool nb = (signbit(b) != 0) != flip;
        if (isinf(a) && isinf(b) && (signbit(a) != 0) != nb)
            return special_result(special, NAN);
        return special_result(special, isinf(a) ? a : nb ? -INFINITY : INFINITY);
    }
    return describe_add(w, a, b, flip, f, mode, special);
}

static int describe_mul_op(desc_ws *w, double a, double b, const srl_format *f, double *special)
{
    if (isnan(a) || isnan(b))
        return special_result(special, NAN);
    const bool neg = (signbit(a) != 0) != (signbit(b) != 0);
    if (isinf(a) || isinf(b))
        return special_result(special, (a == 0 || b == 0) ? NAN : neg ? -INFINITY : INFINITY);
    if (a == 0 || b == 0)
        return special_result(special, neg ? -0.0 : 0.0);
    const term x = split(a), y = split(b);
    return describe_pair(&w->e, &w->c.pair, &w->tail, neg, x.M * y.M, x.E + y.E, false, 0, 0, f);
}

/* a b + c. */
static int describe_fma_op(desc_ws *w, double a, double b, double c, const srl_format *f,
                           srl_mode mode, double *special)
{
    if (isnan(a) || isnan(b) || isnan(c))
        return special_result(special, NAN);
    const bool np = (signbit(a) != 0) != (signbit(b) != 0);
    if (isinf(a) || isinf(b)) {
        if (a == 0 || b == 0 || (isinf(c) && (signbit(c) != 0) != np))
            return special_result(special, NAN);
        return special_result(special, np ? -INFINITY : INFINITY);
    }
    if (isinf(c))
        return special_result(special, c);
    if (a == 0 || b == 0) { /* an exact zero product plus c */
        if (c == 0)
            return special_result(special, zero_sum(np, signbit(c) != 0, mode));
        const term t = split(c);
        return describe_pair(&w->e, &w->c.pair, &w->tail, t.neg, t.M, t.E, false, 0, 0, f);
    }
    const term x = split(a), y = split(b);
    const term prod = {x.M * y.M, x.E + y.E, np};
    if (c == 0)
        return describe_pair(&w->e, &w->c.pair, &w->tail, np, prod.M, prod.E, false, 0, 0, f);
    const int k = describe_sum(&w->e, &w->c.pair, &w->tail, prod, split(c), f);
    if (k == DESC_SPECIAL)
        *special = zero_sum(false, true, mode);
    return k;
}

static int describe_div_op(desc_ws *w, double a, double b, const srl_format *f, double *special)
{
    if (isnan(a) || isnan(b))
        return special_result(special, NAN);
    const bool neg = (signbit(a) != 0) != (signbit(b) != 0);
    if ((isinf(a) && isinf(b)) || (a == 0 && b == 0))
        return special_result(special, NAN);
    if (isinf(a) || b == 0) /* inf / finite, or x / 0 (division by zero) */
        return special_result(special, neg ? -INFINITY : INFINITY);
    if (isinf(b) || a == 0)
        return special_result(special, neg ? -0.0 : 0.0);
    return describe_div(&w->e, &w->c.div, &w->tail, a, b, f);
}

static int describe_sqrt_op(desc_ws *w, double a, const srl_format *f, double *special)
{
    if (isnan(a) || (a < 0)) /* sqrt of a negative number (-inf included) */
        return special_result(special, NAN);
    if (a == 0 || isinf(a)) /* sqrt(+-0) = +-0, sqrt(+inf) = +inf */
        return special_result(special, a);
    return describe_sqrt(&w->e, &w->c.sqrt, &w->tail, a, f);
}

/* The exact result of op, described in w (DESC_OK), special (DESC_SPECIAL: *special is the
 * IEEE 754 result, to be rounded as a special value), or beyond the description (DESC_FALLBACK:
 * the MPFR path). */
static int describe_op(desc_ws *w, srl_op op, double a, double b, double c, const srl_format *f,
                       srl_mode mode, double *special)
{
    switch (op) {
    case SRL_ADD:
    case SRL_SUB: return describe_add_op(w, a, b, op == SRL_SUB, f, mode, special);
    case SRL_MUL: return describe_mul_op(w, a, b, f, special);
    case SRL_FMA: return describe_fma_op(w, a, b, c, f, mode, special);
    case SRL_DIV: return describe_div_op(w, a, b, f, special);
    case SRL_SQRT: return describe_sqrt_op(w, a, f, special);
    default: return special_result(special, NAN);
    }
}

/* ---- the quick path: exact binary64 results in the format's normal range ---- */

/* Branch-light on purpose: kernels call these in their inner loops. */
#if defined(__GNUC__)
#define SRL_ALWAYS_INLINE inline __attribute__((always_inline))
#define SRL_NOINLINE __attribute__((noinline))
#define SRL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SRL_ALWAYS_INLINE inline
#define SRL_NOINLINE
#define SRL_UNLIKELY(x) (x)
#endif

/* The decision (src/round/decide.h) for a fraction whose expansion ends at its first word f1
 * (more = false): exact, every mode decided. */
static SRL_ALWAYS_INLINE int decide_f1(uint64_t f1, int todd, int neg, srl_rounding m, uint64_t u)
{
    uint64_t undecided = 0; /* (never: sr with u == f1 and nothing after f1 is decided, 0) */
    return (int)srl__decide(m.mode, m.r, f1, f1, 0, (uint64_t)todd, (uint64_t)neg, u, 64,
                            &undecided);
}

/* The result for a rounded magnitude rb, the encoding of (T + away) q (T q in a binade of the
 * format's normal range; moving away adds one unit at bit s, a carry into the exponent field
 * included, which is srl__assemble()'s (T+1) 2^qe): the overflow rules, then the sign. */
static SRL_ALWAYS_INLINE double quick_result(uint64_t rb, uint64_t sign, const srl_format *f,
                                             srl_mode mode)
{
    if (srl__from_bits(rb) > f->xmax)
        return srl__overflow_value(f, mode, sign != 0);
    return srl__from_bits(rb | sign);
}

/* Round an exact binary64 value x whose binade e lies in [emin, emax]; false otherwise (zeros,
 * binary64 subnormals, inf and NaN included). There the description is immediate: qe = e-p+1
 * sits s = 53-p bits above x's last bit, so T = M >> s, f1 = (M mod 2^s) 2^(64-s), more = false:
 * x's encoding with its low s bits as the fraction, which srl__round_bits rounds (exactness
 * included: f1 = 0 decides "stay" in every mode). */
static SRL_ALWAYS_INLINE bool quick_round(double *y, double x, const srl_format *f,
                                          srl_rounding m, uint64_t u)
{
    const uint64_t b = srl__bits(x), sign = b & SRL__HALF, a = b ^ sign;
    const int e = (int)(a >> 52) - 1023;
    if (e < f->emin || e > f->emax)
        return false;
    uint64_t undecided = 0; /* (never: x's fraction is its bits below the grid) */
    const uint64_t rb = srl__round_bits(a, 53 - f->p, m.mode, m.r, sign != 0, u, 64, &undecided);
    *y = quick_result(rb, sign, f, m.mode);
    return true;
}

/* The first stage of every quick path: x0 = RN(x), the binary64 result of the operation (IEEE 754
 * operations are correctly rounded), so |x - x0| <= ulp(x0)/2. With frb the bits of x0 below the
 * format's grid (s = 53-p of them), the fraction lies in [2 frb - 1, 2 frb + 1] 2^-(s+1), in the
 * same T and binade as x0 when frb != 0. Unless frb is 0 or 2^(s-1) (x0 on the grid or on a
 * midpoint: the side of x matters), or sr's draw or sr:r=R's truncation falls inside that
 * interval, every mode decides from x0 alone, exact or not (srl__decide on the interval: rn and
 * rna see on which side of 1/2 it lies, the directed modes and ro see f > 0). Otherwise false:
 * the exact residual decides. */
static SRL_ALWAYS_INLINE bool quick_near(double *y, double x0, const srl_format *f,
                                         srl_rounding m, uint64_t u)
{
    const uint64_t b = srl__bits(x0), sign = b & SRL__HALF, a = b ^ sign;
    const int e = (int)(a >> 52) - 1023;
    if (e < f->emin || e > f->emax)
        return false;
    const unsigned s = 53u - (unsigned)f->p;
    const uint64_t lowmask = (UINT64_C(1) << s) - 1;
    const uint64_t frb = a & lowmask, half = lowmask ^ (lowmask >> 1); /* 2^(s-1); 0 when s = 0 */
    if (SRL_UNLIKELY(frb == 0 || frb == half))
        return false;
    /* f1 lies in [lo, hi], which holds neither 0 nor 1/2 (frb is neither 0 nor half) */
    const uint64_t lo = ((2 * frb - 1) << (63 - s)) - 1, hi = (2 * frb + 1) << (63 - s);
    uint64_t undecided = 0;
    const int away = (int)srl__decide(m.mode, m.r, lo, hi, 1, (a >> s) & 1, sign != 0, u, 64,
                                      &undecided);
    if (SRL_UNLIKELY(undecided)) /* sr's draw or sr:r=R's truncation falls inside [lo, hi] */
        return false;
    *y = quick_result((a & ~lowmask) + ((uint64_t)away << s), sign, f, m.mode);
    return true;
}

/* An inexact exact result known to lie strictly between x0 and the midpoint of x0 and its binary64
 * neighbour on the side `up` (away from zero when up != 0): x0 = RN(x) and the sign of the exact
 * residual x - x0. With y = |x0| / q (binade of x0 in [emin, emax], so y has s = 53-p bits after
 * the point), the fraction lies in the open interval (L, L+1) 2^-(s+1):
 *   up:                L = 2 frac(y) 2^s,
 *   down, frac(y) > 0: L = 2 frac(y) 2^s - 1,
 *   down, frac(y) = 0: T = y - 1 and L = 2^(s+1) - 1 (x0 a power of two: the binade below, so
 *                      the exact path decides);
 * and `more` holds (x is not a binary64 number). Every mode's decision follows from the interval,
 * except sr when the draw u falls inside it (probability 2^(p-54)) and sr:r=R when the interval
 * straddles a multiple of 2^-R: then false, and the exact path decides. rn never straddles: 1/2 is
 * an interval end. */
static SRL_ALWAYS_INLINE bool quick_round_side(double *y, double x0, int up, int tie,
                                               const srl_format *f, srl_rounding m, uint64_t u)
{
    const uint64_t b = srl__bits(x0), sign = b & SRL__HALF, a = b ^ sign;
    const int e = (int)(a >> 52) - 1023;
    if (e < f->emin || e > f->emax)
        return false;
    const unsigned s = 53u - (unsigned)f->p;
    const uint64_t lowmask = (UINT64_C(1) << s) - 1;
    const uint64_t frb = a & lowmask;
    uint64_t tb = a & ~lowmask; /* T q, as an encoding */
    uint64_t L = 2 * frb - (uint64_t)!up; /* branch-free: the side is random */
    if (SRL_UNLIKELY(!up && frb == 0)) {
        if ((a & ((UINT64_C(1) << 52) - 1)) == 0)
            return false;
        tb -= UINT64_C(1) << s;
        L = (UINT64_C(2) << s) - 1;
    }
    const unsigned sh = 63u - s;                            /* 12 .. 63 */
    const uint64_t lo = L << sh;                            /* f 2^64 > lo */
    const uint64_t hi = lo + ((UINT64_C(1) << sh) - 1);     /* f1 <= hi */
    const int neg = sign != 0, todd = (int)((tb >> s) & 1);
    if (SRL_UNLIKELY(tie)) {
        /* x exactly half an ulp from x0: an end of the interval, f = (L + up) 2^-(s+1), a
         * 64-bit word (s + 1 <= 52) with nothing after it */
        const uint64_t f1 = (L + (uint64_t)(up != 0)) << sh;
        *y = quick_result(tb + ((uint64_t)decide_f1(f1, todd, neg, m, u) << s), sign, f, m.mode);
        return true;
    }
    /* f 2^64 lies in (lo, hi + 1): f1 in [lo, hi], strictly above lo; 1/2 is no interior point */
    uint64_t undecided = 0;
    const int away = (int)srl__decide(m.mode, m.r, lo, hi, 1, (uint64_t)todd, (uint64_t)neg, u,
                                      64, &undecided);
    if (SRL_UNLIKELY(undecided)) /* sr's draw or sr:r=R's truncation falls inside (lo, hi] */
        return false;
    *y = quick_result(tb + ((uint64_t)away << s), sign, f, m.mode);
    return true;
}

/* x0 + err with err the exact error of x0 = RN(x) (TwoSum, TwoProd): round it quickly if err = 0,
 * or from x0's side (a tie: |err| = ulp(x0)/2, exactly an end of the interval), x0's binade far
 * from underflow. */
static SRL_ALWAYS_INLINE bool quick_pair(double *y, double x0, double err, const srl_format *f,
                                         srl_rounding m, uint64_t u)
{
    if (err == 0)
        return quick_round(y, x0, f, m, u);
    const uint64_t ex = srl__bits(x0) & (UINT64_C(0x7ff) << 52);
    if (ex < ((uint64_t)(1023 - 960) << 52) || ex == (UINT64_C(0x7ff) << 52))
        return false;
    const double ulp = srl__from_bits(ex - (UINT64_C(52) << 52)), e2 = 2.0 * fabs(err);
    if (SRL_UNLIKELY(!(e2 <= ulp))) /* not reached: |err| <= ulp/2 */
        return false;
    return quick_round_side(y, x0, (err > 0) == (x0 > 0), e2 == ulp, f, m, u);
}

/* TwoSum's error term (Knuth): a + b - s exactly, for s = RN(a + b) finite. */
static SRL_ALWAYS_INLINE double two_sum_err(double a, double b, double s)
{
    const double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/* fma(a, b, -p) is the exact error of p = RN(a b) when every bit of the exact product is at or
 * above 2^-1074, which |p| >= 2^-970 guarantees (the product's last bit is at least 2^(e-105)). */
static SRL_ALWAYS_INLINE bool prod_ok(double p)
{
    return fabs(p) >= 0x1p-970;
}

/* a / b and sqrt(a): x0 = RN(x) in binary64 and the sign of the exact remainder a - x0 b
 * (a - x0^2), which fma computes exactly when its lowest possible bit, lsb(x0) lsb(b) (lsb(x0)^2),
 * is at least 2^-1074; a nonzero remainder then keeps its sign through rounding. */
static SRL_ALWAYS_INLINE bool quick_div(double *y, double a, double b, const srl_format *f,
                                        srl_rounding m, uint64_t u)
{
    const double A = fabs(a), B = fabs(b), q = A / B;
    const int eq = (int)(srl__bits(q) >> 52) - 1023, eb = (int)(srl__bits(B) >> 52) - 1023;
    if (eq < f->emin || eq > f->emax || eq + eb < -970 || eb > 1023)
        return false;
    const double r = fma(-q, B, A);
    const double x0 = (signbit(a) != signbit(b)) ? -q : q;
    if (SRL_UNLIKELY(r == 0))
        return quick_round(y, x0, f, m, u);
    return quick_round_side(y, x0, r > 0, 0, f, m, u);
}

static SRL_ALWAYS_INLINE bool quick_sqrt(double *y, double a, const srl_format *f,
                                         srl_rounding m, uint64_t u)
{
    if (!(a >= 0x1p-968 && a <= DBL_MAX))
        return false;
    const double s = sqrt(a);
    const double r = fma(-s, s, a);
    if (SRL_UNLIKELY(r == 0))
        return quick_round(y, s, f, m, u);
    return quick_round_side(y, s, r > 0, 0, f, m, u);
}

/* ---- public entry points ---- */

static SRL_ALWAYS_INLINE bool args_ok(const srl_format *f, srl_rounding m, const srl_rng *rng)
{
    if ((unsigned)m.mode < SRL_SR) /* deterministic */
        return f != NULL;
    if (m.mode == SRL_SR_BITS && (m.r < 1 || m.r > 64))
        return false;
    return f && rng && (unsigned)m.mode < SRL_MODE_COUNT;
}

/* Everything but the quick path: the integer descriptions, special values, the fallback. */
static SRL_NOINLINE double apply_general(srl_op op, double a, double b, double c,
                                         const srl_format *f, srl_rounding m, uint64_t u,
                                         const srl_rng *rng, uint64_t index)
{
    desc_ws w;
    double special = 0.0;
    const int k = describe_op(&w, op, a, b, c, f, m.mode, &special);
    if (k == DESC_SPECIAL)
        return srl__round_special(special, f);
    if (k == DESC_FALLBACK) {
        double y = NAN;
        if (srl_op_mpfr_draw(&y, NULL, op, a, b, c, f, m, u, rng, index) != SRL_OK)
            return NAN;
        return y;
    }
    bool ovf;
    return srl__assemble(&w.e, srl__away(&w.e, m.mode, m.r, u, rng, index), f, m.mode, &ovf);
}

/* Where the CPU has FMA (x86-64, chosen at run time like the bulk kernels), fma() of the quick path
 * becomes one correctly rounded instruction instead of a libm call: the same results, faster. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("fma", "default")))
#endif
double srl_op_apply_draw(srl_op op, double a, double b, double c, const srl_format *f,
                         srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t index)
{
    if (SRL_UNLIKELY(!args_ok(f, m, rng)))
        return NAN;
    double y, x;
    switch (op) {
    case SRL_ADD: /* the sum of two p-bit numbers often has one bit below the grid, exactly on a
                   * midpoint, where quick_near cannot decide: TwoSum's error at once */
        x = a + b;
        if (quick_pair(&y, x, two_sum_err(a, b, x), f, m, u))
            return y;
        break;
    case SRL_SUB:
        x = a - b;
        if (quick_pair(&y, x, two_sum_err(a, -b, x), f, m, u))
            return y;
        break;
    case SRL_MUL:
        x = a * b;
        if (quick_near(&y, x, f, m, u) ||
            (prod_ok(x) && quick_pair(&y, x, fma(a, b, -x), f, m, u)))
            return y;
        break;
    case SRL_FMA: {
        if (quick_near(&y, fma(a, b, c), f, m, u))
            return y;
        const double p = a * b;
        if (prod_ok(p) && fma(a, b, -p) == 0) {
            x = p + c;
            if (quick_pair(&y, x, two_sum_err(p, c, x), f, m, u))
                return y;
        }
        break;
    }
    case SRL_DIV:
        if (quick_near(&y, a / b, f, m, u) || quick_div(&y, a, b, f, m, u))
            return y;
        break;
    case SRL_SQRT:
        if (quick_near(&y, sqrt(a), f, m, u) || quick_sqrt(&y, a, f, m, u))
            return y;
        break;
    default:
        return NAN;
    }
    return apply_general(op, a, b, c, f, m, u, rng, index);
}

double srl_op_apply(srl_op op, double a, double b, double c, const srl_format *f,
                    srl_rounding m, srl_rng *rng)
{
    uint64_t u, index;
    if (!srl__take_draw(m, rng, &u, &index))
        return NAN;
    return srl_op_apply_draw(op, a, b, c, f, m, u, rng, index);
}

srl_op_path srl_op_which_path(srl_op op, double a, double b, double c, const srl_format *f)
{
    desc_ws w;
    double special;
    if (!f)
        return SRL_PATH_FAST;
    return describe_op(&w, op, a, b, c, f, SRL_RN, &special) == DESC_FALLBACK ? SRL_PATH_MPFR
                                                                              : SRL_PATH_FAST;
}

/* ---- explain: f and 1 - f rounded once to binary64, from the words of f ---- */

typedef uint64_t (*word_fn)(const void *ctx, uint64_t k);

/* 0.w0 w1 w2 ... in 64-bit words, rounded to nearest binary64 (ties to even): n words when !inf
 * (all further words are zero), else an infinite expansion with infinitely many nonzero bits. */
static double rn_words(word_fn get, const void *ctx, uint64_t n, bool inf)
{
    uint64_t k = 0, w;
    for (;; k++) {
        if (!inf && k >= n)
            return 0.0;
        if ((w = get(ctx, k)) != 0)
            break;
    }
    const int lz = __builtin_clzll(w);
    const uint64_t nxt = (inf || k + 1 < n) ? get(ctx, k + 1) : 0;
    const uint64_t m = lz ? (w << lz) | (nxt >> (64 - lz)) : w;
    bool sticky = lz ? (nxt << lz) != 0 : nxt != 0;
    if (!sticky && inf)
        sticky = true; /* nonzero bits follow somewhere */
    for (uint64_t j = k + 2; !sticky && j < n; j++)
        sticky = get(ctx, j) != 0;
    /* m holds the 64 bits from the leading one, whose weight is 2^lead */
    const long lead = -64L * (long)k - 1 - lz;
    const long nbits = lead >= -1022 ? 53 : lead + 1075; /* bits down to 2^-1074 */
    if (nbits <= 0) {
        if (nbits < 0)
            return 0.0;
        return ((m << 1) != 0 || sticky) ? 0x1p-1074 : 0.0; /* half of 2^-1074: tie to 0 */
    }
    uint64_t keep = m >> (64 - nbits);
    const int rb = (int)((m >> (63 - nbits)) & 1);
    const bool st = (m & ((UINT64_C(1) << (63 - nbits)) - 1)) != 0 || sticky;
    keep += (uint64_t)(rb && (st || (keep & 1)));
    return ldexp((double)keep, (int)(lead - nbits + 1));
}

static uint64_t f_word(const void *ctx, uint64_t k)
{
    const srl__exact *e = (const srl__exact *)ctx;
    return k == 0 ? e->f1 : e->tail->word(e->tail->ctx, k);
}

static uint64_t f_word_not(const void *ctx, uint64_t k)
{
    return ~f_word(ctx, k);
}

typedef struct word_array {
    const uint64_t *w;
} word_array;

static uint64_t array_word(const void *ctx, uint64_t k)
{
    return ((const word_array *)ctx)->w[k];
}

#define EXPLAIN_MAX_WORDS 64 /* finite expansions here end within 40 words (2200 bits) */

/* RN(f) and RN(1 - f) for an inexact description; false when a finite expansion is longer than
 * EXPLAIN_MAX_WORDS (not reached; the MPFR path explains instead). 1 - f of an infinite expansion
 * is its word-wise complement (1 = 0.111...); of a finite one, 2^(64n) minus its n words. */
static bool desc_fracs(const srl__exact *e, double *fr, double *fc)
{
    const bool inf = e->more && e->tail->nwords == UINT64_MAX;
    if (inf) {
        *fr = rn_words(f_word, e, 0, true);
        *fc = rn_words(f_word_not, e, 0, true);
        return true;
    }
    const uint64_t n = e->more ? e->tail->nwords + 1 : 1;
    if (n > EXPLAIN_MAX_WORDS)
        return false;
    uint64_t g[EXPLAIN_MAX_WORDS];
    uint64_t last = 0;
    for (uint64_t k = 0; k < n; k++) {
        g[k] = f_word(e, k);
        if (g[k])
            last = k;
    }
    word_array wa = {g};
    *fr = rn_words(array_word, &wa, last + 1, false);
    /* negate the (last + 1)-word integer: complement and add one at the last word */
    uint64_t carry = 1;
    for (uint64_t k = last + 1; k-- > 0;) {
        g[k] = ~g[k] + carry;
        carry = carry && g[k] == 0;
    }
    *fc = rn_words(array_word, &wa, last + 1, false);
    return true;
}

/* sign(result - x) from the description of x (MPFR's ternary convention; 0 for NaN). */
static int desc_ternary(const srl__exact *e, double y)
{
    if (isnan(y))
        return 0;
    const double mag = fabs(y);
    int c;
    if (isinf(e->trunc)) /* |x| >= 2^(emax+1) > xmax: y is inf, or xmax */
        c = isinf(mag) ? 1 : -1;
    else if (mag > e->trunc)
        c = 1; /* a grid point above T q, or inf */
    else if (mag == e->trunc)
        c = (e->f1 || e->more) ? -1 : 0;
    else
        c = -1;
    return e->neg ? -c : c;
}

/* The exact result rounded to nearest binary64 (finite nonzero exact results only). */
static double ieee_op(srl_op op, double a, double b, double c)
{
    switch (op) {
    case SRL_ADD: return a + b;
    case SRL_SUB: return a - b;
    case SRL_MUL: return a * b;
    case SRL_FMA: return fma(a, b, c);
    case SRL_DIV: return a / b;
    default: return sqrt(a);
    }
}

int srl_op_explain(srl_round_info *info, srl_op op, double a, double b, double c,
                   const srl_format *f, srl_rounding m, srl_rng *rng)
{
    if (!info || !args_ok(f, m, rng) || (unsigned)op >= SRL_OP_COUNT)
        return SRL_EINVAL;
    uint64_t u, index;
    if (!srl__take_draw(m, rng, &u, &index)) /* (not reached: args_ok) */
        return SRL_EINVAL;
    desc_ws w;
    double special = 0.0;
    const int k = describe_op(&w, op, a, b, c, f, m.mode, &special);
    double fr = 0.0, fc = 1.0;
    const bool inexact = k == DESC_OK && (w.e.f1 || w.e.more);
    if (k == DESC_FALLBACK || (inexact && !desc_fracs(&w.e, &fr, &fc))) {
        double y;
        return srl_op_mpfr_draw(&y, info, op, a, b, c, f, m, u, rng, index);
    }
    memset(info, 0, sizeof *info);
    if (k == DESC_SPECIAL) {
        const double v = srl__round_special(special, f);
        info->x = special;
        info->rd = info->ru = info->result = v;
        info->exact = isnan(special) || srl__same_value(v, special); /* returned unchanged */
        info->overflow = isinf(special) && !srl__same_value(v, special);
        info->ternary = (isnan(v) || isnan(special)) ? 0 : (v > special) - (v < special);
        return SRL_OK;
    }
    const int away = srl__away(&w.e, m.mode, m.r, u, rng, index);
    srl__info_c(info, &w.e, f, m, away, fr, fc, rng, index);
    info->x = ieee_op(op, a, b, c);
    info->ternary = desc_ternary(&w.e, info->result);
    return SRL_OK;
}
