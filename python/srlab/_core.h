/* python/srlab/_core.h: what the files of the srlab._core extension share.
 *
 * The extension is a thin layer over the public API of libsrlab (the headers in include/srlab/): it turns
 * Python arguments into library values (formats, modes, streams, accumulation configs,
 * strategies), hands contiguous buffers to the library with the GIL released, and turns library
 * statuses into Python exceptions whose message names the argument. It computes nothing about
 * rounding itself.
 *
 * Conventions of every helper here: return 0 on success; on failure set a Python exception
 * (ValueError for a bad value, TypeError for a bad type, naming the argument) and return -1. */
#ifndef SRLAB_PY_CORE_H
#define SRLAB_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL srlab_py_ARRAY_API
#ifndef SRLPY_MAIN_FILE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stdbool.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/strategy.h"

/* ---- srlab.Format ---- */
typedef struct {
    PyObject_HEAD
    srl_format f;
} srlpy_Format;

extern PyTypeObject srlpy_FormatType;
/* A new srlab.Format holding f. */
PyObject *srlpy_format_new(const srl_format *f);

/* ---- argument conversion ---- */

/* A format from a str (preset name or custom spec) or an srlab.Format. */
int srlpy_format_arg(PyObject *o, srl_format *f, const char *arg);
/* A rounding mode from a str ("rn", "sr", "sr:r=16", ...). */
int srlpy_rounding_arg(PyObject *o, srl_rounding *m, const char *arg);
/* An integer in [0, 2^64): seeds, stream ids, counters. NULL gives def. */
int srlpy_u64_arg(PyObject *o, uint64_t def, uint64_t *v, const char *arg);
/* "pcg32" or "pcg64"; NULL gives SRL_RNG_DEFAULT. */
int srlpy_kind_arg(PyObject *o, srl_rng_kind *k, const char *arg);
/* An accumulation config string (include/srlab/kernels.h), parsed from binary64; NULL or None
 * gives binary64. */
int srlpy_accum_arg(PyObject *o, srl_accum *c, const char *arg);
/* A strategy: a preset name (str), or a dict of `srlab train` keys ({"strategy": "bf16-sr",
 * "param-rounding": "rd"}), checked by the library. */
int srlpy_strategy_arg(PyObject *o, srl_strategy *s, const char *arg);
/* The same keys set in cfg (srl_config_new'd by the caller), unchecked. */
struct srl_config;
int srlpy_strategy_config(PyObject *o, struct srl_config *cfg, const char *arg);

/* Text: o must be a str without NUL characters (TypeError naming arg and saying `what` is
 * expected, or ValueError naming the NUL's offset); *s is its UTF-8, valid while o lives. Every
 * text argument of the module goes through here: the library reads C strings, which a NUL would
 * cut short silently. */
int srlpy_text_arg(PyObject *o, const char **s, const char *arg, const char *what);

/* ---- srlab.Stream (_stream.c) ---- */
typedef struct {
    srl_rng_kind kind;
    uint64_t seed, stream, counter;
} srlpy_stream;

typedef struct {
    PyObject_HEAD
    srl_rng_kind kind;
    uint64_t seed, stream, counter;
} srlpy_Stream;

extern PyTypeObject srlpy_StreamType;
/* The stream of calls without one (srlab.default_stream()): seed 1, stream 0 at import. */
extern PyObject *srlpy_default_stream;
PyObject *srlpy_stream_new(srl_rng_kind kind, uint64_t seed, uint64_t stream, uint64_t counter);
/* The `stream` argument: an srlab.Stream, or None/NULL for the default stream. *owner gets the
 * Stream object (borrowed), *s its position. TypeError otherwise (an int says what to write). */
int srlpy_stream_arg(PyObject *o, PyObject **owner, srlpy_stream *s, const char *arg);
/* The position of a Stream object. */
void srlpy_stream_of(PyObject *o, srlpy_stream *s);
/* Move owner's counter to s->counter + n (the draws of a call, taken before the GIL is
 * released so that threads sharing a stream never share a draw). */
void srlpy_stream_advance(PyObject *owner, const srlpy_stream *s, uint64_t n);
/* The (format, rounding, stream) arguments most calls take: bf16 and sr where fo or ro is NULL,
 * the default stream for so NULL or None (srlpy_format_arg, srlpy_rounding_arg,
 * srlpy_stream_arg). */
int srlpy_frs_args(PyObject *fo, PyObject *ro, PyObject *so, srl_format *f, srl_rounding *m,
                   PyObject **owner, srlpy_stream *s);
/* TypeError when kw has seed=, counter= or rng= (the arguments Stream replaced), saying what to
 * write instead. */
int srlpy_refuse_old_stream_args(PyObject *kw, const char *fn);
void srlpy_stream_rng(srl_rng *r, const srlpy_stream *s);
/* ValueError unless counter + n draws fit below 2^64. */
int srlpy_check_draws(const srlpy_stream *s, uint64_t n, const char *what);

/* ---- arrays ---- */

/* Values for a rounding: an ndarray of dtype float32 or float64 (any shape, strides, byte order,
 * alignment), a Python float, an int that is exactly a binary64 number, or a sequence that NumPy
 * turns into float32/float64 values. Returns a new reference to a C-contiguous, aligned, native
 * array of NPY_FLOAT or NPY_DOUBLE (a copy only when needed), or NULL with TypeError/ValueError
 * naming arg. *scalar says whether o was not an ndarray and had no dimensions (a Python number),
 * so that the result can be returned as a number. */
PyArrayObject *srlpy_values_arg(PyObject *o, const char *arg, bool *scalar);
/* The same converted to NPY_DOUBLE (exactly: float32 -> float64 is exact). */
PyArrayObject *srlpy_values_arg_double(PyObject *o, const char *arg, bool *scalar);

/* Check an `out` array: an ndarray, dtype float32 or float64 (TypeError otherwise), the given
 * shape, C-contiguous, aligned, native byte order and writeable (ValueError otherwise). */
int srlpy_out_arg(PyObject *out, int ndim, const npy_intp *shape, const char *arg);

/* True when [a, a+na) and [b, b+nb) overlap. */
bool srlpy_overlap(const void *a, size_t na, const void *b, size_t nb);

/* True when every value of f is a bf16 number (p <= 8, emax <= 127, finest spacing >= 2^-133). */
bool srlpy_format_fits_bf16(const srl_format *f);

/* ---- module functions defined in the other files ---- */
PyObject *srlpy_round(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_explain(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_draws(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_c_round_timed(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_op(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_explain_op(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_sum(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_dot(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_gemv(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_gemm(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_gemm_draws(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_accum_name(PyObject *self, PyObject *args, PyObject *kw);
PyObject *srlpy_strategy_info(PyObject *self, PyObject *args, PyObject *kw);

extern const char srlpy_round_doc[], srlpy_explain_doc[], srlpy_draws_doc[],
    srlpy_c_round_timed_doc[], srlpy_op_doc[],
    srlpy_explain_op_doc[], srlpy_sum_doc[], srlpy_dot_doc[], srlpy_gemv_doc[], srlpy_gemm_doc[],
    srlpy_gemm_draws_doc[],
    srlpy_accum_name_doc[], srlpy_strategy_info_doc[];

/* The Explanation result type (a structseq), created at module init. */
extern PyTypeObject *srlpy_ExplanationType;
int srlpy_explanation_init(void);

/* srlab._core._OptimState (python/srlab/_optim.c), for srlab.torch. */
extern PyTypeObject srlpy_OptimStateType;

#endif
