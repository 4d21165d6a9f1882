/* src/linalg/tensor.c: packed tensors of format values (include/srlab/tensor.h).
 *
 * Writes go tile by tile (SRL__TILE elements): each tile positions its own copy of the tensor's
 * stream at step * n + offset of its first element, so the result depends neither on the tiling
 * nor on the thread count. bf16 rn and sr:r=16 from binary32 are done here on bit patterns
 * (src/linalg/tensor_impl.h); every other case is the library's bulk rounding (srl_round_array*),
 * followed for bf16 by an exact repacking of the binary32 result. */
#include "srlab/tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mutant.h"
#include "core/threads.h"
#include "round/round_bulk.h" /* srl__draws */
#include "linalg/tensor_impl.h"

/* Below this many elements a put stays on the calling thread. */
#define SRL__PUT_OMP_MIN ((size_t)1 << 15)

/* ---- formats and containers ---- */

static bool same_params(const srl_format *f, const char *preset)
{
    const srl_format *p = srl_format_find(preset);
    return p && srl_format_equal(f, p);
}

srl_storage srl_storage_for(const srl_format *f)
{
    if (srl_format_is_bf16(f))
        return SRL_STORAGE_BF16;
    return srl_format_fits_float(f) ? SRL_STORAGE_F32 : SRL_STORAGE_F64;
}

size_t srl_storage_size(srl_storage s)
{
    return s == SRL_STORAGE_BF16 ? 2 : s == SRL_STORAGE_F32 ? 4 : 8;
}

const char *srl_storage_name(srl_storage s)
{
    return s == SRL_STORAGE_BF16 ? "bf16" : s == SRL_STORAGE_F32 ? "f32" : "f64";
}

/* ---- bf16 patterns ---- */

uint16_t srl_bf16_rn(float x)
{
    return srl__bf16_rn(x);
}

uint16_t srl_bf16_sr16(float x, uint64_t u)
{
    return srl__bf16_sr16(x, u);
}

float srl_bf16_to_float(uint16_t b)
{
    return srl__bf16_to_f32(b);
}

/* ---- sets ---- */

size_t srl_tensor_desc_numel(const srl_tensor_desc *d)
{
    size_t n = 1;
    for (int k = 0; k < d->ndim; k++) {
        if (d->shape[k] && n > SIZE_MAX / d->shape[k])
            return 0;
        n *= d->shape[k];
    }
    return n;
}

static size_t pad64(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

void srl_tensor_set_free(srl_tensor_set *s)
{
    if (!s)
        return;
    free(s->t);
    free(s->mem);
    memset(s, 0, sizeof *s);
}

int srl_tensor_set_alloc(srl_tensor_set *s, const srl_tensor_desc *d, size_t count,
                         const srl_rng *writes_root, srl_err *err)
{
    memset(s, 0, sizeof *s);
    size_t alloc = 0, bytes = 0;
    for (size_t j = 0; j < count; j++) {
        const char *nm = d[j].name;
        if (!nm || !*nm || strlen(nm) >= SRL_TENSOR_NAME_LEN)
            return srl_err_set(err, SRL_EINVAL, "tensor %zu: the name must have 1 to %d characters",
                               j, SRL_TENSOR_NAME_LEN - 1);
        for (size_t i = 0; i < j; i++)
            if (!strcmp(d[i].name, nm))
                return srl_err_set(err, SRL_EINVAL, "tensor name '%s' appears twice", nm);
        if (d[j].ndim < 0 || d[j].ndim > SRL_TENSOR_MAX_DIMS)
            return srl_err_set(err, SRL_EINVAL, "tensor '%s': %d axes (at most %d)", nm,
                               d[j].ndim, SRL_TENSOR_MAX_DIMS);
        size_t n = srl_tensor_desc_numel(&d[j]);
        int zero_axis = 0;
        for (int k = 0; k < d[j].ndim; k++)
            zero_axis |= d[j].shape[k] == 0;
        if (!n && !zero_axis)
            return srl_err_set(err, SRL_EINVAL, "tensor '%s': the element count overflows", nm);
        const size_t es = srl_storage_size(srl_storage_for(&d[j].fmt));
        if (n > (SIZE_MAX / 2) / es || alloc > SIZE_MAX / 2)
            return srl_err_set(err, SRL_ENOMEM, "tensor '%s': too large", nm);
        bytes += n * es;
        alloc += pad64(n * es);
    }
    srl_tensor *t = calloc(count ? count : 1, sizeof *t);
    void *mem = NULL;
    if (t && alloc) {
        mem = aligned_alloc(64, alloc);
        if (mem)
            memset(mem, 0, alloc);
    }
    if (!t || (alloc && !mem)) {
        free(t);
        free(mem);
        return srl_err_set(err, SRL_ENOMEM, "cannot allocate %zu bytes of tensors", alloc);
    }
    size_t off = 0;
    for (size_t j = 0; j < count; j++) {
        srl_tensor *x = &t[j];
        snprintf(x->name, sizeof x->name, "%s", d[j].name);
        x->ndim = d[j].ndim;
        for (int k = 0; k < d[j].ndim; k++)
            x->shape[k] = d[j].shape[k];
        x->n = srl_tensor_desc_numel(&d[j]);
        x->fmt = d[j].fmt;
        x->storage = srl_storage_for(&d[j].fmt);
        x->data = (char *)mem + off;
        off += pad64(x->n * srl_storage_size(x->storage));
        srl_rng_derive(&x->rng, writes_root, srl_hash_str(x->name));
    }
    s->count = count;
    s->t = t;
    s->mem = mem;
    s->bytes = bytes;
    s->alloc = alloc;
    return SRL_OK;
}

srl_tensor *srl_tensor_set_find(const srl_tensor_set *s, const char *name)
{
    for (size_t j = 0; j < s->count; j++)
        if (!strcmp(s->t[j].name, name))
            return &s->t[j];
    return NULL;
}

/* ---- reads ---- */

static void get_d_run(double *dst, const srl_tensor *t, size_t offset, size_t k)
{
    switch (t->storage) {
    case SRL_STORAGE_BF16: {
        const uint16_t *p = (const uint16_t *)t->data + offset;
        for (size_t i = 0; i < k; i++)
            dst[i] = (double)srl__bf16_to_f32(p[i]);
        break;
    }
    case SRL_STORAGE_F32: {
        const float *p = (const float *)t->data + offset;
        for (size_t i = 0; i < k; i++)
            dst[i] = (double)p[i];
        break;
    }
    default:
        memcpy(dst, (const double *)t->data + offset, k * sizeof *dst);
        break;
    }
}

static void get_f_run(float *dst, const srl_tensor *t, size_t offset, size_t k)
{
    switch (t->storage) {
    case SRL_STORAGE_BF16: {
        const uint16_t *p = (const uint16_t *)t->data + offset;
        for (size_t i = 0; i < k; i++)
            dst[i] = srl__bf16_to_f32(p[i]);
        break;
    }
    case SRL_STORAGE_F32:
        memcpy(dst, (const float *)t->data + offset, k * sizeof *dst);
        break;
    default: {
        const double *p = (const double *)t->data + offset;
        for (size_t i = 0; i < k; i++)
            dst[i] = (float)p[i];
        break;
    }
    }
}

/* Reads of SRL__PUT_OMP_MIN values or more split into tiles over the threads, as writes do
 * (a training step reads every weight: 3.2M values at GPT size c). A copy, so the split changes
 * nothing but where the values land in cache. */
#define DEFINE_GET(NAME, RUN, T)                                                                  \
    void NAME(T *dst, const srl_tensor *t, size_t offset, size_t k)                               \
    {                                                                                             \
        if (k < SRL__PUT_OMP_MIN || !srl__may_fork()) {                                           \
            RUN(dst, t, offset, k);                                                               \
            return;                                                                               \
        }                                                                                         \
        const long ntiles = (long)((k + SRL__TILE - 1) / SRL__TILE);                              \
        _Pragma("omp parallel for schedule(static)")                                              \
        for (long b = 0; b < ntiles; b++) {                                                       \
            const size_t i0 = (size_t)b * SRL__TILE;                                              \
            RUN(dst + i0, t, offset + i0, k - i0 < SRL__TILE ? k - i0 : SRL__TILE);               \
        }                                                                                         \
    }

DEFINE_GET(srl_tensor_get_d, get_d_run, double)
DEFINE_GET(srl_tensor_get_f, get_f_run, float)

/* ---- writes ---- */

/* The tensor's stream positioned at the first draw of a tile. */
static srl_rng tile_rng(const srl_tensor *t, size_t offset, uint64_t step)
{
    srl_rng r = t->rng;
    srl_rng_seek(&r, (SRL__MUT(DRAW_STUCK) ? 0 : step) /* defect draw-stuck */ * (uint64_t)t->n +
                         offset);
    return r;
}

static bool is_plain(srl_rounding m, int r)
{
    return m.mode == SRL_SR_BITS && m.r == r;
}

/* One tile (k <= SRL__TILE) from binary32. */
/* Short writes one value at a time with srl_round (the same results as the bulk functions, by
 * their contract), sparing the bulk functions' per-call set-up. */
#define SRL__SHORT 32

static void put_short(srl_tensor *t, size_t off, const double *x, size_t k, srl_rounding m,
                      srl_rng *r)
{
    for (size_t i = 0; i < k; i++) {
        const double y = srl_round(x[i], &t->fmt, m, r);
        switch (t->storage) {
        case SRL_STORAGE_BF16:
            ((uint16_t *)t->data)[off + i] = (uint16_t)(srl__f32_bits((float)y) >> 16);
            break;
        case SRL_STORAGE_F32: ((float *)t->data)[off + i] = (float)y; break;
        default: ((double *)t->data)[off + i] = y; break;
        }
    }
}

/* The scratch of a tile write: the caller's; a short tile's own (small, SRL__SHORT words on the
 * stack); or k words of the heap (*own, freed by the caller). NULL when out of memory. */
static uint64_t *tile_ws(uint64_t *ws, size_t k, uint64_t **own, uint64_t *small)
{
    *own = NULL;
    if (ws)
        return ws;
    if (k <= SRL__SHORT)
        return small;
    return *own = malloc(k * sizeof *ws);
}

int srl__tensor_put_tile_f(srl_tensor *t, size_t off, const float *x, size_t k, srl_rounding m,
                           uint64_t step, uint64_t *ws)
{
    const bool sto = srl_rounding_is_stochastic(m);
    srl_rng r = sto ? tile_rng(t, off, step) : t->rng;
    const bool own = t->storage == SRL_STORAGE_BF16 && (m.mode == SRL_RN || is_plain(m, 16));
    if (k < SRL__SHORT && !own) {
        double y[SRL__SHORT];
        for (size_t i = 0; i < k; i++)
            y[i] = (double)x[i];
        put_short(t, off, y, k, m, &r);
        return SRL_OK;
    }
    uint64_t *mine = NULL, small[SRL__SHORT];
    int st = SRL_OK;
    switch (t->storage) {
    case SRL_STORAGE_BF16: {
        uint16_t *p = (uint16_t *)t->data + off;
        if (m.mode == SRL_RN) {
            for (size_t i = 0; i < k; i++)
                p[i] = srl__bf16_rn(x[i]);
            return SRL_OK;
        }
        uint64_t *u = tile_ws(ws, k, &mine, small);
        if (!u)
            return SRL_ENOMEM;
        if (is_plain(m, 16)) {
            srl__draws(u, k, &r);
            for (size_t i = 0; i < k; i++)
                p[i] = srl__bf16_sr16(x[i], u[i]);
            break;
        }
        float *y = (float *)u;
        st = srl_round_array_float(y, x, k, &t->fmt, m, &r);
        for (size_t i = 0; i < k && !st; i++)
            p[i] = (uint16_t)(srl__f32_bits(y[i]) >> 16);
        break;
    }
    case SRL_STORAGE_F32: {
        float *p = (float *)t->data + off;
        if (same_params(&t->fmt, "fp32")) { /* a binary32 number is already a value */
            memcpy(p, x, k * sizeof *p);
            return SRL_OK;
        }
        return srl_round_array_float(p, x, k, &t->fmt, m, &r);
    }
    default: {
        double *y = (double *)tile_ws(ws, k, &mine, small);
        if (!y)
            return SRL_ENOMEM;
        for (size_t i = 0; i < k; i++)
            y[i] = (double)x[i];
        st = srl_round_array((double *)t->data + off, y, k, &t->fmt, m, &r);
        break;
    }
    }
    free(mine);
    return st;
}

/* One tile from binary64. */
int srl__tensor_put_tile_d(srl_tensor *t, size_t off, const double *x, size_t k, srl_rounding m,
                           uint64_t step, uint64_t *ws)
{
    if (SRL__MUT(DOUBLE_ROUND) && t->storage != SRL_STORAGE_F64) { /* defect double-round */
        float xf[SRL__TILE];
        for (size_t i = 0; i < k; i++)
            xf[i] = (float)x[i];
        return srl__tensor_put_tile_f(t, off, xf, k, m, step, ws);
    }
    const bool sto = srl_rounding_is_stochastic(m);
    srl_rng r = sto ? tile_rng(t, off, step) : t->rng;
    if (k < SRL__SHORT) {
        put_short(t, off, x, k, m, &r);
        return SRL_OK;
    }
    switch (t->storage) {
    case SRL_STORAGE_BF16: {
        uint64_t *mine, small[SRL__SHORT];
        float *y = (float *)tile_ws(ws, k, &mine, small);
        if (!y)
            return SRL_ENOMEM;
        int st = srl_round_array_d2f(y, x, k, &t->fmt, m, &r);
        uint16_t *p = (uint16_t *)t->data + off;
        for (size_t i = 0; i < k && !st; i++)
            p[i] = (uint16_t)(srl__f32_bits(y[i]) >> 16);
        free(mine);
        return st;
    }
    case SRL_STORAGE_F32:
        return srl_round_array_d2f((float *)t->data + off, x, k, &t->fmt, m, &r);
    default:
        if (same_params(&t->fmt, "fp64")) {
            memcpy((double *)t->data + off, x, k * sizeof *x);
            return SRL_OK;
        }
        return srl_round_array((double *)t->data + off, x, k, &t->fmt, m, &r);
    }
}

static int check_put(const srl_tensor *t, size_t offset, size_t k, srl_rounding m)
{
    if (!t || !srl_rounding_valid(m) || offset > t->n || k > t->n - offset)
        return SRL_EINVAL;
    return SRL_OK;
}

/* Short writes, fills and checks take pieces of at most SRL__PIECE values on the stack. */
#define SRL__PIECE 128

/* The tiles' scratch (srl__tensor_put_tile_*) is one block per thread, on the heap. */
#define DEFINE_PUT(NAME, TILE_FN, T)                                                              \
    int NAME(srl_tensor *t, size_t offset, const T *x, size_t k, srl_rounding m, uint64_t step)   \
    {                                                                                             \
        int st = check_put(t, offset, k, m);                                                      \
        if (st)                                                                                   \
            return st;                                                                            \
        const long ntiles = (long)((k + SRL__TILE - 1) / SRL__TILE);                              \
        const size_t wk = k < SRL__TILE ? k : SRL__TILE;                                          \
        if (k < SRL__PUT_OMP_MIN || !srl__may_fork()) { /* no region: even if(0) costs a team */ \
            uint64_t sw[SRL__PIECE]; /* a short write's scratch: no allocation */                \
            uint64_t *ws = wk <= SRL__PIECE ? sw : malloc(wk * sizeof *ws);                       \
            for (long b = 0; b < ntiles && !st; b++) {                                            \
                const size_t i0 = (size_t)b * SRL__TILE;                                          \
                const size_t kk = k - i0 < SRL__TILE ? k - i0 : SRL__TILE;                        \
                st = TILE_FN(t, offset + i0, x + i0, kk, m, step, ws);                            \
            }                                                                                     \
            if (ws != sw)                                                                         \
                free(ws);                                                                         \
            return st;                                                                            \
        }                                                                                         \
        _Pragma("omp parallel reduction(min : st)")                                               \
        {                                                                                         \
            uint64_t *ws = malloc(SRL__TILE * sizeof *ws);                                        \
            _Pragma("omp for schedule(static)")                                                   \
            for (long b = 0; b < ntiles; b++) {                                                   \
                const size_t i0 = (size_t)b * SRL__TILE;                                          \
                const size_t kk = k - i0 < SRL__TILE ? k - i0 : SRL__TILE;                        \
                int s2 = TILE_FN(t, offset + i0, x + i0, kk, m, step, ws);                        \
                if (s2 < st)                                                                      \
                    st = s2;                                                                      \
            }                                                                                     \
            free(ws);                                                                             \
        }                                                                                         \
        return st;                                                                                \
    }

DEFINE_PUT(srl_tensor_put_f, srl__tensor_put_tile_f, float)
DEFINE_PUT(srl_tensor_put_d, srl__tensor_put_tile_d, double)

int srl_tensor_fill(srl_tensor *t, double v)
{
    double tile[SRL__PIECE];
    uint64_t ws[SRL__PIECE];
    for (size_t i = 0; i < SRL__PIECE; i++)
        tile[i] = v;
    for (size_t i0 = 0; i0 < t->n; i0 += SRL__PIECE) {
        size_t kk = t->n - i0 < SRL__PIECE ? t->n - i0 : SRL__PIECE;
        int st = srl__tensor_put_tile_d(t, i0, tile, kk, SRL_ROUND_RN, 0, ws);
        if (st)
            return st;
    }
    return SRL_OK;
}

/* ---- checks ---- */

bool srl_tensor_check(const srl_tensor *t, size_t *bad)
{
    if (t->storage == SRL_STORAGE_BF16)
        return true;
    double tile[SRL__PIECE];
    for (size_t i0 = 0; i0 < t->n; i0 += SRL__PIECE) {
        size_t kk = t->n - i0 < SRL__PIECE ? t->n - i0 : SRL__PIECE;
        srl_tensor_get_d(tile, t, i0, kk);
        for (size_t i = 0; i < kk; i++)
            if (!srl_format_contains(&t->fmt, tile[i])) {
                if (bad)
                    *bad = i0 + i;
                return false;
            }
    }
    return true;
}

size_t srl_tensor_count_nonfinite(const srl_tensor *t)
{
    size_t c = 0;
    switch (t->storage) {
    case SRL_STORAGE_BF16: {
        const uint16_t *p = t->data;
        for (size_t i = 0; i < t->n; i++)
            c += (p[i] & 0x7f80u) == 0x7f80u;
        break;
    }
    case SRL_STORAGE_F32: {
        const float *p = t->data;
        for (size_t i = 0; i < t->n; i++)
            c += !isfinite(p[i]);
        break;
    }
    default: {
        const double *p = t->data;
        for (size_t i = 0; i < t->n; i++)
            c += !isfinite(p[i]);
        break;
    }
    }
    return c;
}
