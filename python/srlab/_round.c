/* python/srlab/_round.c: srlab.round, srlab.explain, srlab.draws and the timing hook of
 * python/bench_round.py. */
#include "_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/mman.h>

#include "srlab/mx.h"

/* ---- srlab.round ---- */

const char srlpy_round_doc[] =
    "round(x, format='bf16', rounding='sr', stream=None, out=None, *, block=None, scale=None)\n"
    "--\n"
    "\n"
    "Round binary64 (or binary32) numbers into a format: every value of x is rounded once,\n"
    "exactly, with the library's bulk rounding (srl_round_array), using the library's threads\n"
    "with the GIL released. The same numbers, format, mode and stream give the same bits as\n"
    "`srlab round --batch` and as the C API, for any number of threads.\n"
    "\n"
    "x         float64 or float32 values: a numpy array of any shape and strides (non-contiguous\n"
    "          and byte-swapped arrays are copied to C order first), a float, or an int that is\n"
    "          exactly a binary64 number. Any other dtype raises TypeError.\n"
    "format    bf16, fp16, fp32, tf32, e4m3, e5m2, fp64, e2m1, e3m2, e2m3, int8 (or bfloat16,\n"
    "          half, float8_e4m3fn, ...: any case), a custom\n"
    "          p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,nan=on|off]\n"
    "          [,saturate=on|off]\n"
    "          (a str, or an srlab.Format); `srlab formats` and srlab.formats() list the presets.\n"
    "          Every format has one name (Format.name: bf16 for bfloat16 and p=8,emax=127).\n"
    "          Or a block format (a str: mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e2m3, mxfp4, mxint8,\n"
    "          nvfp4, any case, [,block=B]; docs/mx.md): x in C order is cut into blocks of B\n"
    "          values (the last may be shorter; along the last axis when its length is a\n"
    "          multiple of B), each block scaled as the format says and each value rounded once\n"
    "          into the element format; the result is the dequantized values (srl_mx_quantize).\n"
    "rounding  rn, rna, rz, ru, rd, ro, sr (default here), sr-eq, sr:r=R (1 <= R <= 64),\n"
    "          or nearest, toward-zero, stochastic, ... (any case):\n"
    "            rn   nearest, ties to even          rna  nearest, ties away from zero\n"
    "            rz   toward zero    ru  toward +inf    rd  toward -inf\n"
    "            ro   round to odd (the neighbour whose last significand bit is 1)\n"
    "            sr   stochastic, proportional and exact: away from zero with probability\n"
    "                 exactly f = (|x| - T)/q, so E[round(x)] = x for every input\n"
    "            sr-eq  stochastic, probability 1/2 when inexact\n"
    "            sr:r=R  the fraction truncated to R random bits (biased toward zero by what\n"
    "                 lies below them); the seed paper's bf16 write is sr:r=16 of an fp32 value\n"
    "stream    an srlab.Stream, or None for srlab.default_stream(). In stochastic modes element\n"
    "          i of x, in C order, uses draw stream.counter + i, and the counter then advances\n"
    "          by x.size; deterministic modes draw nothing. round(x, F, M, srlab.Stream(S))\n"
    "          equals `srlab round --batch -f F -r M --seed S` on the values of x one per line\n"
    "          (data line k (from 0) uses draw k of stream 0 of the seed).\n"
    "out       None (a new array), or a C-contiguous, writeable float32 or float64 array of x's\n"
    "          shape to write into (it may be x itself). A non-contiguous, read-only or\n"
    "          wrongly shaped out raises ValueError, a wrong dtype TypeError; nothing is\n"
    "          written to out and the stream does not move when the call fails.\n"
    "block     with a block format: the block size B (1 <= B <= 4096; None: the format's, 32 or\n"
    "          16 for nvfp4), as ',block=B' in the name does.\n"
    "scale     with a block format: the scale rule, 'ocp' (None: floor(log2 amax) - emax),\n"
    "          '3/4' (the block times 3/4 first: nothing clips, the result estimates 3/4 x) or\n"
    "          'ceil' (the smallest scale that does not clip). round(x, 'mxfp4', M,\n"
    "          srlab.Stream(S), scale=R) is the result column of `srlab round --batch -f mxfp4\n"
    "          -r M --scale R --seed S` on the values of x, one per line.\n"
    "\n"
    "Returns the rounded array (a float64/float32 scalar for a scalar x), in every mode.\n"
    "The result is float32 when x is float32 and every value of the format is a binary32 number\n"
    "(Format.fits_float: p <= 24, emax <= 127, spacing >= 2^-149), as in C; otherwise float64.\n"
    "A block format's values are binary32 numbers for the MX formats (float32 in, float32 out;\n"
    "the ceil rule can overflow binary32 only for |x| within a factor 1.5 of its largest, to\n"
    "inf), not for nvfp4 (e s_b s_t has up to 30 bits: float64 out).\n"
    "Every value is rounded as IEEE 754 and rounding.h say: NaN -> NaN, signed zeros kept,\n"
    "overflow per mode (rz, ro and rd/ru toward zero give +-xmax; the others +-inf, NaN without\n"
    "infinities, +-xmax when saturating), subnormals with spacing 2^(emin-p+1).\n"
    "(Earlier versions took seed=, stream=, counter=, rng= and returned (y, counter) in\n"
    "stochastic modes; those calls now raise TypeError saying what to write.)\n"
    "\n"
    "    >>> import numpy as np, srlab\n"
    "    >>> srlab.round(np.array([0.1, 1.00390625]), 'bf16', 'rn')\n"
    "    array([0.10009766, 1.        ])\n"
    "    >>> s = srlab.Stream(seed=7)\n"
    "    >>> y = srlab.round(np.full(4, 1.00390625), 'bf16', 'sr', s)\n"
    "    >>> s.counter\n"
    "    4\n";


/* The output of srlab.round: out (checked: x's shape; float32 only when fits, else the error
 * float32_msg names) or a new array (float32 for float32 x when fits); *x replaced by a C-order
 * copy when it overlaps the output otherwise than exactly (the library allows y == x). */
static int round_output(PyArrayObject **x, PyObject *out, bool fits, const char *float32_msg,
                        PyArrayObject **y, int *out_t)
{
    const int in_t = PyArray_TYPE(*x);
    if (out != Py_None) {
        if (srlpy_out_arg(out, PyArray_NDIM(*x), PyArray_DIMS(*x), "out"))
            return -1;
        *out_t = PyArray_TYPE((PyArrayObject *)out);
        if (*out_t == NPY_FLOAT && !fits) {
            PyErr_Format(PyExc_ValueError, "out: %s; pass a float64 out", float32_msg);
            return -1;
        }
        *y = (PyArrayObject *)out;
        Py_INCREF(*y);
    } else {
        *out_t = (in_t == NPY_FLOAT && fits) ? NPY_FLOAT : NPY_DOUBLE;
        *y = (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(*x), PyArray_DIMS(*x), *out_t);
        if (!*y)
            return -1;
    }
    if (srlpy_overlap(PyArray_DATA(*x), (size_t)PyArray_NBYTES(*x), PyArray_DATA(*y),
                      (size_t)PyArray_NBYTES(*y)) &&
        !(PyArray_DATA(*x) == PyArray_DATA(*y) && in_t == *out_t)) {
        PyArrayObject *c = (PyArrayObject *)PyArray_NewCopy(*x, NPY_CORDER);
        if (!c)
            return -1;
        Py_DECREF(*x);
        *x = c;
    }
    return 0;
}

/* srlab.round with a block format (srlab/mx.h): x in C order cut into blocks. */
static PyObject *round_mx(PyObject *xo, const char *name, PyObject *ro, PyObject *so,
                          PyObject *out, PyObject *bo, PyObject *sco)
{
    srl_mx_format f;
    srl_mx_rule rule = SRL_MX_OCP;
    srl_rounding m = SRL_ROUND_SR;
    srl_err err = {""};
    if (srl_mx_parse(&f, name, &err) != SRL_OK)
        return PyErr_Format(PyExc_ValueError, "format: %s", err.msg);
    if (bo && bo != Py_None) {
        if (PyBool_Check(bo) || !PyLong_Check(bo))
            return PyErr_Format(PyExc_TypeError, "block: expected an int, got %.80s",
                                Py_TYPE(bo)->tp_name);
        const long b = PyLong_AsLong(bo);
        if (b == -1 && PyErr_Occurred())
            PyErr_Clear();
        if (b < 1 || b > 4096)
            return PyErr_Format(PyExc_ValueError, "block: must be an integer from 1 to 4096");
        char spec[SRL_MX_NAME_LEN + 24];
        const char *c = strchr(name, ',');
        snprintf(spec, sizeof spec, "%.*s,block=%ld", (int)(c ? c - name : (long)strlen(name)),
                 name, b);
        if (srl_mx_parse(&f, spec, &err) != SRL_OK)
            return PyErr_Format(PyExc_ValueError, "block: %s", err.msg);
    }
    if (sco && sco != Py_None) {
        const char *r;
        if (srlpy_text_arg(sco, &r, "scale", "a scale rule (str: ocp, 3/4, ceil)"))
            return NULL;
        if (srl_mx_rule_parse(&rule, r, &err) != SRL_OK)
            return PyErr_Format(PyExc_ValueError, "scale: %s", err.msg);
    }
    PyObject *owner;
    srlpy_stream s;
    if ((ro && srlpy_rounding_arg(ro, &m, "rounding")) ||
        srlpy_stream_arg(so, &owner, &s, "stream"))
        return NULL;
    bool scalar;
    PyArrayObject *x = srlpy_values_arg(xo, "x", &scalar), *y = NULL;
    if (!x)
        return NULL;
    const int in_t = PyArray_TYPE(x);
    const size_t n = (size_t)PyArray_SIZE(x);
    const bool stoch = srl_rounding_is_stochastic(m);
    const bool fits = f.scale == SRL_MX_E8M0; /* every dequantized value a binary32 number */
    int out_t;
    if (stoch && srlpy_check_draws(&s, n, "x.size"))
        goto fail;
    {
        char msg[128];
        snprintf(msg, sizeof msg, "float32 cannot hold every value of %s (its values e s_b s_t "
                 "have up to 30 bits)", f.name);
        if (round_output(&x, out, fits, msg, &y, &out_t))
            goto fail;
    }
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    if (stoch)
        srlpy_stream_advance(owner, &s, n);
    int st = SRL_OK;
    double *tmp = NULL;
    Py_BEGIN_ALLOW_THREADS
    if (in_t == NPY_FLOAT && out_t == NPY_FLOAT) {
        st = srl_mx_quantize_float(PyArray_DATA(y), NULL, NULL, PyArray_DATA(x), n, &f, rule, m,
                                   &r);
    } else if (in_t == NPY_DOUBLE && out_t == NPY_DOUBLE) {
        st = srl_mx_quantize(PyArray_DATA(y), NULL, NULL, PyArray_DATA(x), n, &f, rule, m, &r);
    } else if (in_t == NPY_FLOAT) { /* float32 in, float64 out: widen exactly, quantize */
        double *yd = PyArray_DATA(y);
        const float *xf = PyArray_DATA(x);
        for (size_t i = 0; i < n; i++)
            yd[i] = (double)xf[i];
        st = srl_mx_quantize(yd, NULL, NULL, yd, n, &f, rule, m, &r);
    } else { /* float64 in, float32 out (MX only): binary32 values, stored exactly */
        tmp = malloc((n ? n : 1) * sizeof *tmp);
        if (!tmp)
            st = SRL_ENOMEM;
        else
            st = srl_mx_quantize(tmp, NULL, NULL, PyArray_DATA(x), n, &f, rule, m, &r);
        float *yf = PyArray_DATA(y);
        for (size_t i = 0; st == SRL_OK && i < n; i++)
            yf[i] = (float)tmp[i];
        free(tmp);
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(x);
    x = NULL;
    if (st != SRL_OK) {
        if (st == SRL_ENOMEM)
            PyErr_NoMemory();
        else
            PyErr_Format(PyExc_RuntimeError, "srlab: the library refused the quantization (%s)",
                         srl_strerror(st));
        goto fail;
    }
    return (out == Py_None && PyArray_NDIM(y) == 0) ? PyArray_Return(y) : (PyObject *)y;
fail:
    Py_XDECREF(x);
    Py_XDECREF(y);
    return NULL;
}

PyObject *srlpy_round(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"x", "format", "rounding", "stream", "out", "block", "scale", NULL};
    PyObject *xo, *fo = NULL, *ro = NULL, *so = NULL, *out = Py_None, *owner, *bo = NULL,
                  *sco = NULL;
    if (srlpy_refuse_old_stream_args(kw, "srlab.round") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O|OOOO$OO:round", kwlist, &xo, &fo, &ro, &so,
                                     &out, &bo, &sco))
        return NULL;
    if (fo && PyUnicode_Check(fo)) {
        const char *name = PyUnicode_AsUTF8(fo);
        if (!name)
            PyErr_Clear(); /* (srlpy_format_arg says what is wrong with it) */
        if (name && srl_mx_is_name(name)) {
            const char *t;
            if (srlpy_text_arg(fo, &t, "format", "a format name"))
                return NULL;
            return round_mx(xo, name, ro, so, out, bo, sco);
        }
    }
    if ((bo && bo != Py_None) || (sco && sco != Py_None))
        return PyErr_Format(PyExc_ValueError, "%s: applies only to a block format (mxfp8, "
                            "mxfp6, mxfp4, mxint8, nvfp4, ...)",
                            bo && bo != Py_None ? "block" : "scale");
    srl_format f;
    srl_rounding m;
    srlpy_stream s;
    if (srlpy_frs_args(fo, ro, so, &f, &m, &owner, &s))
        return NULL;
    bool scalar;
    PyArrayObject *x = srlpy_values_arg(xo, "x", &scalar);
    if (!x)
        return NULL;
    PyArrayObject *y = NULL;
    const int in_t = PyArray_TYPE(x);
    const size_t n = (size_t)PyArray_SIZE(x);
    const bool stoch = srl_rounding_is_stochastic(m);
    const bool fits = srl_format_fits_float(&f);
    int out_t;
    if (stoch && srlpy_check_draws(&s, n, "x.size"))
        goto fail;
    {
        char msg[160];
        snprintf(msg, sizeof msg, "float32 cannot hold every value of format %s (p=%d, emax=%d, "
                 "emin=%d)", f.name, f.p, f.emax, f.emin);
        if (round_output(&x, out, fits, msg, &y, &out_t))
            goto fail;
    }
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    if (stoch)
        srlpy_stream_advance(owner, &s, n);
    int st = SRL_OK;
    Py_BEGIN_ALLOW_THREADS
    if (in_t == NPY_DOUBLE && out_t == NPY_DOUBLE) {
        st = srl_round_array(PyArray_DATA(y), PyArray_DATA(x), n, &f, m, &r);
    } else if (in_t == NPY_FLOAT && out_t == NPY_FLOAT) {
        st = srl_round_array_float(PyArray_DATA(y), PyArray_DATA(x), n, &f, m, &r);
    } else if (in_t == NPY_DOUBLE) { /* float64 in, float32 out: round once, store exactly */
        st = srl_round_array_d2f(PyArray_DATA(y), PyArray_DATA(x), n, &f, m, &r);
    } else { /* float32 in, float64 out: widen exactly, round in place */
        double *yd = PyArray_DATA(y);
        const float *xf = PyArray_DATA(x);
        for (size_t i = 0; i < n; i++)
            yd[i] = (double)xf[i];
        st = srl_round_array(yd, yd, n, &f, m, &r);
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(x);
    x = NULL;
    if (st != SRL_OK) {
        PyErr_Format(PyExc_RuntimeError, "srlab: the library refused the rounding (%s)",
                     srl_strerror(st));
        goto fail;
    }
    return (out == Py_None && PyArray_NDIM(y) == 0) ? PyArray_Return(y) : (PyObject *)y;
fail:
    Py_XDECREF(x);
    Py_XDECREF(y);
    return NULL;
}

/* ---- srlab.explain ---- */

PyTypeObject *srlpy_ExplanationType;

static PyStructSequence_Field explanation_fields[] = {
    {"x", "the input (binary64)"},
    {"rd", "RD(x): the neighbour below (toward -inf), with the overflow rules"},
    {"ru", "RU(x): the neighbour above (toward +inf)"},
    {"p_up", "probability that the result is ru: 0 or 1 for the deterministic modes, 0 when "
             "rd == ru"},
    {"frac", "f = (|x| - T)/q, the fraction of the magnitude (sr rounds away from zero with "
             "probability exactly f); 0 when exact"},
    {"result", "the rounded value (this call's draw for stochastic modes)"},
    {"exact", "True when x is returned unchanged (a value of the format; NaN counts)"},
    {"overflow", "True when the rounded magnitude exceeds xmax"},
    {"ternary", "sign(result - x) as in MPFR: 0 exact, 1 rounded up, -1 down"},
    {"ulp", "the format's grid spacing at x (Format.ulp)"},
    {"format", "the format's name"},
    {"rounding", "the mode's canonical name"},
    {"counter", "the stream's counter after the call (its counter before + x.size in stochastic "
                "modes)"},
    {NULL, NULL},
};

static PyStructSequence_Desc explanation_desc = {
    "srlab.Explanation",
    "Everything about a rounding, as `srlab round X` shows it: the neighbours rd <= x <= ru,\n"
    "p_up, the exact fraction, the result, exactness, overflow. Fields are floats for a scalar\n"
    "input and arrays (of the input's shape) for an array input.",
    explanation_fields,
    13,
};

int srlpy_explanation_init(void)
{
    srlpy_ExplanationType = PyStructSequence_NewType(&explanation_desc);
    return srlpy_ExplanationType ? 0 : -1;
}

const char srlpy_explain_doc[] =
    "explain(x, format='bf16', rounding='sr', stream=None)\n"
    "--\n"
    "\n"
    "Explain the rounding of x into a format, as `srlab round X` does: returns an\n"
    "srlab.Explanation with the neighbours rd <= x <= ru (with the overflow rules), p_up (the\n"
    "probability of rounding up, toward +inf), frac (the exact fraction f; sr rounds away from\n"
    "zero with probability exactly f), the result of this call's draw, exact (x is a value of\n"
    "the format), overflow, ternary (sign of result - x), the ulp at x, the format and mode\n"
    "names, and the stream's counter after the call.\n"
    "\n"
    "x is a float (the fields are then floats), or a float32/float64 array (the fields are then\n"
    "arrays of its shape; element i in C order uses draw counter + i, as srlab.round does).\n"
    "format, rounding and stream are those of srlab.round (the stream advances as it does):\n"
    "explain(x, F, M, srlab.Stream(S)) gives the rd, ru, p_up and result columns of\n"
    "`srlab round --batch -f F -r M --seed S`, bit for bit.\n"
    "\n"
    "    >>> e = srlab.explain(0.1, 'bf16', 'sr')\n"
    "    >>> e.rd, e.ru, e.exact\n"
    "    (0.099609375, 0.10009765625, False)\n";

PyObject *srlpy_explain(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"x", "format", "rounding", "stream", NULL};
    PyObject *xo, *fo = NULL, *ro = NULL, *so = NULL, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.explain") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O|OOO:explain", kwlist, &xo, &fo, &ro, &so))
        return NULL;
    srl_format f;
    srl_rounding m;
    srlpy_stream s;
    if (srlpy_frs_args(fo, ro, so, &f, &m, &owner, &s))
        return NULL;
    bool scalar;
    PyArrayObject *x = srlpy_values_arg_double(xo, "x", &scalar);
    if (!x)
        return NULL;
    const size_t n = (size_t)PyArray_SIZE(x);
    const bool stoch = srl_rounding_is_stochastic(m);
    if (stoch && srlpy_check_draws(&s, n, "x.size")) {
        Py_DECREF(x);
        return NULL;
    }
    const int nd = PyArray_NDIM(x);
    npy_intp *dims = PyArray_DIMS(x);
    enum { F_RD, F_RU, F_PUP, F_FRAC, F_RES, F_ULP, NDBL };
    PyArrayObject *dbl[NDBL] = {NULL}, *ex = NULL, *ov = NULL, *te = NULL;
    PyObject *res = NULL;
    for (int k = 0; k < NDBL; k++)
        if (!(dbl[k] = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_DOUBLE)))
            goto done;
    if (!(ex = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_BOOL)) ||
        !(ov = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_BOOL)) ||
        !(te = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_INT8)))
        goto done;
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    if (stoch)
        srlpy_stream_advance(owner, &s, n);
    int st = SRL_OK;
    {
        const double *xv = PyArray_DATA(x);
        double *d[NDBL];
        for (int k = 0; k < NDBL; k++)
            d[k] = PyArray_DATA(dbl[k]);
        npy_bool *exv = PyArray_DATA(ex), *ovv = PyArray_DATA(ov);
        npy_int8 *tev = PyArray_DATA(te);
        Py_BEGIN_ALLOW_THREADS
        for (size_t i = 0; i < n && st == SRL_OK; i++) {
            srl_round_info in;
            if (stoch && r.counter != s.counter + i)
                srl_rng_seek(&r, s.counter + i);
            st = srl_round_explain(&in, xv[i], &f, m, &r);
            d[F_RD][i] = in.rd;
            d[F_RU][i] = in.ru;
            d[F_PUP][i] = in.p_up;
            d[F_FRAC][i] = in.frac;
            d[F_RES][i] = in.result;
            d[F_ULP][i] = srl_format_ulp(&f, xv[i]);
            exv[i] = in.exact;
            ovv[i] = in.overflow;
            tev[i] = (npy_int8)(in.ternary > 0 ? 1 : in.ternary < 0 ? -1 : 0);
        }
        Py_END_ALLOW_THREADS
    }
    if (st != SRL_OK) {
        PyErr_Format(PyExc_RuntimeError, "srlab: the library refused the explanation (%s)",
                     srl_strerror(st));
        goto done;
    }
    res = PyStructSequence_New(srlpy_ExplanationType);
    if (!res)
        goto done;
    char mode[32];
    srl_rounding_name(mode, sizeof mode, m);
    PyObject *items[13];
    if (scalar || nd == 0) {
        const double xv = *(double *)PyArray_DATA(x);
        items[0] = PyFloat_FromDouble(xv);
        for (int k = 0; k < 5; k++)
            items[1 + k] = PyFloat_FromDouble(*(double *)PyArray_DATA(dbl[k]));
        items[6] = PyBool_FromLong(*(npy_bool *)PyArray_DATA(ex));
        items[7] = PyBool_FromLong(*(npy_bool *)PyArray_DATA(ov));
        items[8] = PyLong_FromLong(*(npy_int8 *)PyArray_DATA(te));
        items[9] = PyFloat_FromDouble(*(double *)PyArray_DATA(dbl[F_ULP]));
    } else {
        Py_INCREF(x);
        items[0] = (PyObject *)x;
        for (int k = 0; k < 5; k++) {
            Py_INCREF(dbl[k]);
            items[1 + k] = (PyObject *)dbl[k];
        }
        Py_INCREF(ex);
        Py_INCREF(ov);
        Py_INCREF(te);
        Py_INCREF(dbl[F_ULP]);
        items[6] = (PyObject *)ex;
        items[7] = (PyObject *)ov;
        items[8] = (PyObject *)te;
        items[9] = (PyObject *)dbl[F_ULP];
    }
    items[10] = PyUnicode_FromString(f.name);
    items[11] = PyUnicode_FromString(mode);
    items[12] = PyLong_FromUnsignedLongLong(stoch ? s.counter + n : s.counter);
    for (int k = 0; k < 13; k++) {
        if (!items[k]) {
            for (int j = 0; j < 13; j++)
                Py_XDECREF(items[j]);
            Py_CLEAR(res);
            goto done;
        }
    }
    for (int k = 0; k < 13; k++)
        PyStructSequence_SET_ITEM(res, k, items[k]);
done:
    Py_XDECREF(x);
    for (int k = 0; k < NDBL; k++)
        Py_XDECREF(dbl[k]);
    Py_XDECREF(ex);
    Py_XDECREF(ov);
    Py_XDECREF(te);
    return res;
}

/* ---- srlab.draws ---- */

const char srlpy_draws_doc[] =
    "draws(n, stream=None)\n"
    "--\n"
    "\n"
    "The raw 64-bit draws counter .. counter+n-1 of an srlab.Stream (None: the default stream)\n"
    "as a uint64 array, and the stream's counter advances by n: the same as stream.draws(n).\n"
    "Draw counter + i is what a stochastic rounding of element i compares with the exact\n"
    "fraction (its top R bits for sr:r=R). For pcg32, draw k is the pcg32 outputs 2k and 2k+1\n"
    "as the high and low halves; for pcg64 the k-th pcg64 output (include/srlab/rng.h).\n";

PyObject *srlpy_draws(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"n", "stream", NULL};
    PyObject *no, *so = NULL, *owner;
    srlpy_stream s;
    if (srlpy_refuse_old_stream_args(kw, "srlab.draws") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O|O:draws", kwlist, &no, &so) ||
        srlpy_stream_arg(so, &owner, &s, "stream"))
        return NULL;
    return PyObject_CallMethod(owner, "draws", "O", no);
}

/* ---- timing hook for python/bench_round.py ---- */

const char srlpy_c_round_timed_doc[] =
    "_c_round_timed(x, format, rounding, reps, seed=1, *, alloc=False)\n"
    "--\n"
    "\n"
    "Internal (python/bench_round.py): time `reps` calls of srl_round_array on the float64 array\n"
    "x from C, with no Python in the loop, and return the seconds of each call (a list). With\n"
    "alloc=False the output buffer is allocated and touched once before timing (the C analogue\n"
    "of srlab.round(x, out=y)); with alloc=True each call allocates its output as numpy.empty\n"
    "does (malloc, and the huge-page hint for 4 MiB or more) and frees it (the analogue of\n"
    "srlab.round(x), which returns a new array).\n";

/* malloc, with the hint NumPy gives the kernel for arrays of 4 MiB or more (transparent huge
 * pages), so that "C, new buffer" allocates as numpy.empty does. */
static void *alloc_like_numpy(size_t bytes)
{
    char *p = malloc(bytes ? bytes : 1);
#ifdef MADV_HUGEPAGE
    if (p && bytes >= ((size_t)1 << 22)) {
        const size_t off = 4096u - (size_t)((uintptr_t)p % 4096u);
        madvise(p + off, bytes - off, MADV_HUGEPAGE);
    }
#endif
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

PyObject *srlpy_c_round_timed(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"x", "format", "rounding", "reps", "seed", "alloc", NULL};
    PyObject *xo, *fo, *ro, *seed = NULL;
    int reps, alloc = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOi|O$p:_c_round_timed", kwlist, &xo, &fo, &ro,
                                     &reps, &seed, &alloc))
        return NULL;
    srl_format f;
    srl_rounding m;
    srlpy_stream s = {SRL_RNG_DEFAULT, 1, 0, 0};
    if (srlpy_format_arg(fo, &f, "format") || srlpy_rounding_arg(ro, &m, "rounding") ||
        srlpy_u64_arg(seed, 1, &s.seed, "seed"))
        return NULL;
    if (reps < 1)
        return PyErr_Format(PyExc_ValueError, "reps: must be >= 1");
    if (!PyArray_Check(xo) || PyArray_TYPE((PyArrayObject *)xo) != NPY_DOUBLE ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)xo))
        return PyErr_Format(PyExc_TypeError, "x: expected a C-contiguous float64 array");
    PyArrayObject *x = (PyArrayObject *)xo;
    const size_t n = (size_t)PyArray_SIZE(x);
    PyObject *times = PyList_New(reps);
    if (!times)
        return NULL;
    double *y = NULL;
    if (!alloc) {
        y = alloc_like_numpy(n * sizeof *y);
        if (!y) {
            Py_DECREF(times);
            return PyErr_NoMemory();
        }
        memset(y, 0, n * sizeof *y);
    }
    int st = SRL_OK;
    for (int k = 0; k < reps && st == SRL_OK; k++) {
        srl_rng r;
        srlpy_stream_rng(&r, &s);
        double t0, t1;
        Py_BEGIN_ALLOW_THREADS
        t0 = now_s();
        double *yy = alloc ? alloc_like_numpy(n * sizeof *yy) : y;
        if (!yy)
            st = SRL_ENOMEM;
        else
            st = srl_round_array(yy, PyArray_DATA(x), n, &f, m, &r);
        if (alloc)
            free(yy);
        t1 = now_s();
        Py_END_ALLOW_THREADS
        PyList_SET_ITEM(times, k, PyFloat_FromDouble(t1 - t0));
    }
    free(y);
    if (st != SRL_OK) {
        Py_DECREF(times);
        return PyErr_Format(PyExc_RuntimeError, "srlab: %s", srl_strerror(st));
    }
    return times;
}
