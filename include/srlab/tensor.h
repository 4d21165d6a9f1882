/* srlab/tensor.h: named arrays of values of a format, packed, carved from one allocation.
 *
 * A tensor holds n values of its format f (include/srlab/format.h) in the narrowest container
 * that holds every value of f exactly:
 *   SRL_STORAGE_BF16  uint16_t bit patterns: the bf16 encoding, which is the top half of the
 *                     binary32 encoding (used exactly when f has bf16's parameters);
 *   SRL_STORAGE_F32   float, for every other format whose values are all binary32 numbers
 *                     (fp32, fp16, tf32, e4m3, e5m2, custom formats inside binary32);
 *   SRL_STORAGE_F64   double, for the rest (fp64 and wide custom formats).
 * So "bytes per element actually allocated" is 2, 4 or 8 (srl_storage_size), and a bf16 tensor
 * really occupies 2 bytes per value. Formats narrower than bf16 (fp16, fp8) sit in floats: their
 * values are still exactly those of the format (srl_tensor_check), only the container is wider.
 *
 * Writes round. Every write into a tensor rounds binary32 or binary64 inputs into f with a mode
 * (include/srlab/rounding.h); a write performed as part of step `step` to elements
 * [offset, offset + k) uses draws step * n + offset + i (i < k) of the tensor's own stream, so
 * the value written at step t to element i is a pure function of (seed, tensor name, t, i),
 * whatever the tiling, the order of the writes or the number of threads. Each tensor may be
 * written once per step with a stochastic mode (a second stochastic write in the same step would
 * reuse the draws). Deterministic modes draw nothing.
 *
 * Streams: a tensor's stream is srl_rng_derive(writes_root, srl_hash_str(name)) where writes_root
 * is the stream handed to srl_tensor_set_alloc (src/train/train.c passes the run's seed stream derived
 * with the key srl_hash_str("writes")).
 *
 * Reads are exact: srl_tensor_get_d returns every value exactly; srl_tensor_get_f returns them
 * exactly when f fits binary32 (srl_format_fits_float), else rounded to nearest binary32.
 *
 * Nothing here prints; allocation happens only in srl_tensor_set_alloc. */
#ifndef SRLAB_TENSOR_H
#define SRLAB_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SRL_TENSOR_NAME_LEN 64
#define SRL_TENSOR_MAX_DIMS 4

typedef enum srl_storage {
    SRL_STORAGE_BF16 = 0, /* uint16_t bf16 bit patterns */
    SRL_STORAGE_F32 = 1,  /* float */
    SRL_STORAGE_F64 = 2   /* double */
} srl_storage;

/* The container srlab uses for values of f (see above). */
srl_storage srl_storage_for(const srl_format *f);
/* Bytes per element: 2, 4, 8. */
size_t srl_storage_size(srl_storage s);
/* "bf16", "f32", "f64". */
const char *srl_storage_name(srl_storage s);

/* A tensor's shape: ndim axes (0 <= ndim <= SRL_TENSOR_MAX_DIMS; ndim 0 is a scalar) whose
 * product is n. */
typedef struct srl_tensor_desc {
    const char *name;  /* unique within a set, 1..SRL_TENSOR_NAME_LEN-1 characters */
    int ndim;
    size_t shape[SRL_TENSOR_MAX_DIMS];
    srl_format fmt;    /* the values it holds */
} srl_tensor_desc;

typedef struct srl_tensor {
    char name[SRL_TENSOR_NAME_LEN];
    size_t n;                           /* number of elements */
    int ndim;
    size_t shape[SRL_TENSOR_MAX_DIMS];
    srl_format fmt;
    srl_storage storage;
    void *data;                         /* n elements of the storage type, 64-byte aligned */
    srl_rng rng;                        /* the tensor's write stream, at draw 0 (never moved) */
} srl_tensor;

/* Element count of a description (product of the shape; 1 for ndim 0); 0 on overflow. */
size_t srl_tensor_desc_numel(const srl_tensor_desc *d);

/* Many tensors in one zeroed, 64-byte aligned allocation. */
typedef struct srl_tensor_set {
    size_t count;
    srl_tensor *t;     /* count tensors, in the order of the descriptions */
    void *mem;         /* the one allocation holding every tensor's data */
    size_t bytes;      /* sum over tensors of n * srl_storage_size (padding excluded) */
    size_t alloc;      /* bytes actually allocated for the data (with 64-byte padding) */
} srl_tensor_set;

/* Allocate count tensors, zero-filled (+0 is a value of every format). Streams as above.
 * Errors: SRL_EINVAL (empty, too long or duplicate name, bad ndim, zero-size... a zero-size
 * tensor is allowed; an element count that overflows), SRL_ENOMEM. On failure s is empty and
 * nothing is leaked. */
int srl_tensor_set_alloc(srl_tensor_set *s, const srl_tensor_desc *d, size_t count,
                         const srl_rng *writes_root, srl_err *err) SRL_WUR;
/* NULL-safe; leaves s empty. */
void srl_tensor_set_free(srl_tensor_set *s);
/* The tensor called name, or NULL. */
srl_tensor *srl_tensor_set_find(const srl_tensor_set *s, const char *name);

/* dst[i] = element offset + i, exactly (k elements; offset + k <= n). */
void srl_tensor_get_d(double *dst, const srl_tensor *t, size_t offset, size_t k);
/* dst[i] = element offset + i as binary32: exact when t's format fits binary32, otherwise
 * rounded to nearest. */
void srl_tensor_get_f(float *dst, const srl_tensor *t, size_t offset, size_t k);

/* Round x[0..k) into t's format with mode m and store them at offset .. offset+k-1; with a
 * stochastic m, element i uses draw step * t->n + offset + i of t's stream. x may not alias the
 * tensor's data. Parallel (OpenMP) above a size threshold, identical for any thread count.
 * srl_tensor_put_f requires t's format to fit binary32 when it is not stored as double (always
 * true by construction) and returns SRL_EINVAL for an invalid mode or an out-of-range slice. */
int srl_tensor_put_d(srl_tensor *t, size_t offset, const double *x, size_t k, srl_rounding m,
                     uint64_t step) SRL_WUR;
int srl_tensor_put_f(srl_tensor *t, size_t offset, const float *x, size_t k, srl_rounding m,
                     uint64_t step) SRL_WUR;

/* Set every element to v rounded to nearest (no draws). */
int srl_tensor_fill(srl_tensor *t, double v) SRL_WUR;

/* True when every element is a value of t's format (NaN and, in formats with infinities, +-inf
 * included: srl_format_contains); otherwise false and *bad (if non-NULL) is the first offending
 * index. For bf16 storage every pattern is a bf16 value, so this is true by construction. */
bool srl_tensor_check(const srl_tensor *t, size_t *bad);

/* Number of non-finite elements. */
size_t srl_tensor_count_nonfinite(const srl_tensor *t);

/* ---- bf16 bit patterns (exposed for tests and for kernels that fuse them) ---- */

/* bf16 pattern of the binary32 value x rounded to nearest even (overflow to +-inf as IEEE 754
 * rn; a NaN stays NaN, quieted: its sign and top seven payload bits kept, 0x0040 set). Equal bit
 * for bit to srl_round_array_float(.., bf16, rn, ..) for every input but a NaN, which that stores
 * as the canonical quiet NaN 0x7fc0 (theory/T01f's probe checks both). */
uint16_t srl_bf16_rn(float x);
/* bf16 pattern of x rounded with sr:r=16 with the draw u: the seed paper's trick, the top 16
 * bits of u added as an integer to x's binary32 pattern and the low 16 bits cleared (NaN guarded:
 * a NaN stays NaN, quieted as srl_bf16_rn does; +-inf stay +-inf). Equal bit for bit to
 * srl_round(x, bf16, sr:r=16) with that draw, subnormals and overflow included, for every input
 * but a NaN (tests/train/test_tensor.c). */
uint16_t srl_bf16_sr16(float x, uint64_t u);
/* The binary32 value of a bf16 pattern (exact). */
float srl_bf16_to_float(uint16_t b);

#ifdef __cplusplus
}
#endif
#endif
