/* python/srlab/_core.c: the srlab._core module: srlab.Format, the argument conversions every
 * function shares, formats(), threads, strategies, and the module table. The rounding functions
 * are in _round.c, operations and kernels in _ops.c, the optimizer state for srlab.torch in
 * _optim.c. */
#define SRLPY_MAIN_FILE
#include "_core.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "srlab/run.h"

PyMODINIT_FUNC PyInit__core(void);

/* ---- argument conversion ---- */

static int value_error(const char *arg, const char *msg)
{
    PyErr_Format(PyExc_ValueError, "%s: %s", arg, msg);
    return -1;
}

int srlpy_format_arg(PyObject *o, srl_format *f, const char *arg)
{
    if (PyObject_TypeCheck(o, &srlpy_FormatType)) {
        *f = ((srlpy_Format *)o)->f;
        return 0;
    }
    const char *s;
    if (srlpy_text_arg(o, &s, arg, "a format name or spec (str) or an srlab.Format"))
        return -1;
    srl_err err = {""};
    if (srl_format_parse(f, s, &err) != SRL_OK)
        return value_error(arg, err.msg);
    return 0;
}

int srlpy_rounding_arg(PyObject *o, srl_rounding *m, const char *arg)
{
    const char *s;
    if (srlpy_text_arg(o, &s, arg,
                       "a rounding mode name (str: rn, rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R)"))
        return -1;
    srl_err err = {""};
    if (srl_rounding_parse(m, s, &err) != SRL_OK)
        return value_error(arg, err.msg);
    return 0;
}

int srlpy_u64_arg(PyObject *o, uint64_t def, uint64_t *v, const char *arg)
{
    if (!o) {
        *v = def;
        return 0;
    }
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected an integer in [0, 2^64), got %.80s", arg,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *i = PyNumber_Index(o);
    if (!i)
        return -1;
    unsigned long long x = PyLong_AsUnsignedLongLong(i);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyObject *r = PyObject_Repr(i);
        const char *rs = r ? PyUnicode_AsUTF8(r) : NULL;
        PyErr_Format(PyExc_ValueError, "%s: must be an integer in [0, 2^64), got %.60s", arg,
                     rs ? rs : "?");
        Py_XDECREF(r);
        Py_DECREF(i);
        return -1;
    }
    Py_DECREF(i);
    *v = (uint64_t)x;
    return 0;
}

int srlpy_kind_arg(PyObject *o, srl_rng_kind *k, const char *arg)
{
    if (!o) {
        *k = SRL_RNG_DEFAULT;
        return 0;
    }
    const char *s;
    if (srlpy_text_arg(o, &s, arg, "'pcg32' or 'pcg64'"))
        return -1;
    if (!strcmp(s, "pcg32"))
        *k = SRL_RNG_PCG32;
    else if (!strcmp(s, "pcg64"))
        *k = SRL_RNG_PCG64;
    else
        return PyErr_Format(PyExc_ValueError, "%s: unknown generator '%.60s'; known: pcg32, pcg64",
                            arg, s), -1;
    return 0;
}

int srlpy_accum_arg(PyObject *o, srl_accum *c, const char *arg)
{
    *c = srl_accum_binary64();
    if (!o || o == Py_None)
        return 0;
    const char *s;
    if (srlpy_text_arg(o, &s, arg, "an accumulation config (str, e.g. "
                                   "'prod=bf16:rn,acc=fp32:rn,order=pairwise')"))
        return -1;
    srl_err err = {""};
    if (srl_accum_parse(c, s, &err) != SRL_OK)
        return value_error(arg, err.msg);
    return 0;
}

/* The keys of srl_strategy_from_config (include/srlab/strategy.h). */
static const char *const strategy_keys[] = {
    "strategy",      "format",         "rounding",       "param-format",  "param-rounding",
    "grad-format",   "grad-rounding",  "state-format",   "state-rounding", "m-format",
    "m-rounding",    "v-format",       "v-rounding",     "master-format", "master-rounding",
    "kahan",         "comp-format",    "comp-rounding",  "update-arith",  "act-format",
    "act-rounding",  "accum",          NULL};

static int known_strategy_key(const char *k)
{
    for (int i = 0; strategy_keys[i]; i++)
        if (!strcmp(k, strategy_keys[i]))
            return 1;
    return 0;
}

int srlpy_strategy_config(PyObject *o, srl_config *cfg, const char *arg)
{
    int rc = -1;
    if (PyUnicode_Check(o)) {
        const char *name;
        if (srlpy_text_arg(o, &name, arg, "a strategy name"))
            goto done;
        if (srl_config_set(cfg, "strategy", name) != SRL_OK) {
            PyErr_NoMemory();
            goto done;
        }
    } else if (PyDict_Check(o)) {
        PyObject *key, *val;
        Py_ssize_t pos = 0;
        while (PyDict_Next(o, &pos, &key, &val)) {
            const char *k;
            if (srlpy_text_arg(key, &k, arg, "str keys"))
                goto done;
            if (!known_strategy_key(k)) {
                PyErr_Format(PyExc_ValueError,
                             "%s: unknown key '%.60s'; known: strategy, format, rounding, "
                             "param-format, param-rounding, grad-format, grad-rounding, "
                             "state-format, state-rounding, m-format, m-rounding, v-format, "
                             "v-rounding, master-format, master-rounding, kahan, comp-format, "
                             "comp-rounding, update-arith, act-format, act-rounding, accum",
                             arg, k);
                goto done;
            }
            PyObject *sv = PyObject_Str(val);
            if (!sv)
                goto done;
            char what[80];
            snprintf(what, sizeof what, "%s['%.40s']", arg, k);
            const char *v;
            const int bad = srlpy_text_arg(sv, &v, what, "a str");
            int st = bad ? SRL_EINVAL : srl_config_set(cfg, k, v);
            Py_DECREF(sv);
            if (bad)
                goto done;
            if (st != SRL_OK) {
                PyErr_NoMemory();
                goto done;
            }
        }
    } else {
        PyErr_Format(PyExc_TypeError,
                     "%s: expected a strategy name (str: fp32, mp, bf16-rn, bf16-sr, "
                     "bf16-sr-exact, bf16-kahan, mp-tc, custom) or a dict of srlab train keys, got "
                     "%.80s",
                     arg, Py_TYPE(o)->tp_name);
        goto done;
    }
    rc = 0;
done:
    return rc;
}

int srlpy_strategy_arg(PyObject *o, srl_strategy *s, const char *arg)
{
    srl_config *cfg = srl_config_new();
    if (!cfg) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = srlpy_strategy_config(o, cfg, arg);
    srl_err err = {""};
    if (!rc && srl_strategy_from_config(s, cfg, &err) != SRL_OK)
        rc = value_error(arg, err.msg);
    srl_config_free(cfg);
    return rc;
}

void srlpy_stream_rng(srl_rng *r, const srlpy_stream *s)
{
    srl_rng_init(r, s->kind, s->seed, s->stream);
    srl_rng_seek(r, s->counter);
}

int srlpy_check_draws(const srlpy_stream *s, uint64_t n, const char *what)
{
    if (n > UINT64_MAX - s->counter) {
        PyErr_Format(PyExc_ValueError,
                     "counter: %llu + %llu draws (%s) would pass 2^64 - 1",
                     (unsigned long long)s->counter, (unsigned long long)n, what);
        return -1;
    }
    return 0;
}

/* ---- arrays ---- */

static PyArrayObject *from_python_int(PyObject *o, const char *arg)
{
    double d = PyLong_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: the integer is beyond binary64's range", arg);
        return NULL;
    }
    PyObject *back = PyLong_FromDouble(d);
    if (!back)
        return NULL;
    int same = PyObject_RichCompareBool(back, o, Py_EQ);
    Py_DECREF(back);
    if (same < 0)
        return NULL;
    if (!same) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the integer is not exactly a binary64 number; pass a float (which "
                     "Python has already rounded) if that is meant", arg);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(0, NULL, NPY_DOUBLE);
    if (a)
        *(double *)PyArray_DATA(a) = d;
    return a;
}

PyArrayObject *srlpy_values_arg(PyObject *o, const char *arg, bool *scalar)
{
    *scalar = false;
    PyArrayObject *in = NULL;
    if (PyArray_Check(o)) {
        in = (PyArrayObject *)o;
        Py_INCREF(in);
    } else if (PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected float32 or float64 values, got bool", arg);
        return NULL;
    } else if (PyLong_Check(o)) {
        *scalar = true;
        return from_python_int(o, arg);
    } else {
        in = (PyArrayObject *)PyArray_FROM_O(o);
        if (!in) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s: expected a float32 or float64 array or a float, got %.80s", arg,
                         Py_TYPE(o)->tp_name);
            return NULL;
        }
        *scalar = PyArray_NDIM(in) == 0;
    }
    const int tn = PyArray_TYPE(in);
    if (tn != NPY_FLOAT && tn != NPY_DOUBLE) {
        PyObject *r = PyObject_Str((PyObject *)PyArray_DESCR(in));
        const char *rs = r ? PyUnicode_AsUTF8(r) : NULL;
        PyErr_Format(PyExc_TypeError,
                     "%s: expected float32 or float64 values, got dtype %.40s (convert explicitly, "
                     "e.g. numpy.asarray(x, dtype=numpy.float64), if that is exact)",
                     arg, rs ? rs : "?");
        Py_XDECREF(r);
        Py_DECREF(in);
        return NULL;
    }
    /* C-contiguous, aligned, native byte order: a copy only when in is not already. */
    PyArray_Descr *d = PyArray_DescrFromType(tn);
    PyArrayObject *out = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)in, d, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED,
        NULL);
    Py_DECREF(in);
    return out;
}

PyArrayObject *srlpy_values_arg_double(PyObject *o, const char *arg, bool *scalar)
{
    PyArrayObject *a = srlpy_values_arg(o, arg, scalar);
    if (!a || PyArray_TYPE(a) == NPY_DOUBLE)
        return a;
    PyArrayObject *d = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)a, NPY_DOUBLE,
                                                         NPY_ARRAY_C_CONTIGUOUS |
                                                             NPY_ARRAY_ALIGNED);
    Py_DECREF(a);
    return d;
}

int srlpy_out_arg(PyObject *out, int ndim, const npy_intp *shape, const char *arg)
{
    if (!PyArray_Check(out)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a numpy.ndarray or None, got %.80s", arg,
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)out;
    const int tn = PyArray_TYPE(a);
    if (tn != NPY_FLOAT && tn != NPY_DOUBLE) {
        PyObject *r = PyObject_Str((PyObject *)PyArray_DESCR(a));
        const char *rs = r ? PyUnicode_AsUTF8(r) : NULL;
        PyErr_Format(PyExc_TypeError, "%s: expected dtype float32 or float64, got %.40s", arg,
                     rs ? rs : "?");
        Py_XDECREF(r);
        return -1;
    }
    bool same = PyArray_NDIM(a) == ndim;
    for (int k = 0; same && k < ndim; k++)
        same = PyArray_DIM(a, k) == shape[k];
    if (!same) {
        PyObject *want = PyTuple_New(ndim);
        if (!want)
            return -1;
        for (int k = 0; k < ndim; k++)
            PyTuple_SET_ITEM(want, k, PyLong_FromSsize_t(shape[k]));
        PyObject *got = PyObject_GetAttrString(out, "shape");
        PyErr_Format(PyExc_ValueError, "%s: has shape %R, the result has shape %R", arg,
                     got ? got : Py_None, want);
        Py_XDECREF(got);
        Py_DECREF(want);
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS(a))
        return value_error(arg, "is not C-contiguous; srlab writes results in C order into "
                                "contiguous memory (pass out=None, or numpy.ascontiguousarray "
                                "and copy back)");
    if (!PyArray_ISWRITEABLE(a))
        return value_error(arg, "is read-only");
    if (!PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a))
        return value_error(arg, "is not aligned in native byte order");
    return 0;
}

bool srlpy_overlap(const void *a, size_t na, const void *b, size_t nb)
{
    const char *pa = a, *pb = b;
    if (!na || !nb)
        return false;
    return pa < pb + nb && pb < pa + na;
}

bool srlpy_format_fits_bf16(const srl_format *f)
{
    return f->p <= 8 && f->emax <= 127 && f->emin - f->p + 1 >= -133;
}

/* ---- srlab.Format ---- */

PyObject *srlpy_format_new(const srl_format *f)
{
    srlpy_Format *o = PyObject_New(srlpy_Format, &srlpy_FormatType);
    if (o)
        o->f = *f;
    return (PyObject *)o;
}

static PyObject *Format_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"spec", NULL};
    PyObject *spec;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Format", kwlist, &spec))
        return NULL;
    srl_format f;
    if (srlpy_format_arg(spec, &f, "spec"))
        return NULL;
    srlpy_Format *o = (srlpy_Format *)type->tp_alloc(type, 0);
    if (o)
        o->f = f;
    return (PyObject *)o;
}

#define FMT(self) (&((srlpy_Format *)(self))->f)

static PyObject *Format_repr(PyObject *self)
{
    return PyUnicode_FromFormat("srlab.Format('%s')", FMT(self)->name);
}

static PyObject *Format_str(PyObject *self)
{
    return PyUnicode_FromString(FMT(self)->name);
}

static Py_hash_t Format_hash(PyObject *self)
{
    const srl_format *f = FMT(self);
    PyObject *t = Py_BuildValue("(iiiOOO)", f->p, f->emin, f->emax, f->subnormals ? Py_True : Py_False,
                                f->inf ? Py_True : Py_False, f->saturate ? Py_True : Py_False);
    if (!t)
        return -1;
    Py_hash_t h = PyObject_Hash(t);
    Py_DECREF(t);
    return h;
}

static PyObject *Format_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &srlpy_FormatType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    const bool eq = srl_format_equal(FMT(a), FMT(b));
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *Format_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("(O(s))", (PyObject *)Py_TYPE(self), FMT(self)->name);
}

static int double_arg(PyObject *o, double *x, const char *arg)
{
    if (PyBool_Check(o) || !(PyFloat_Check(o) || PyLong_Check(o) || PyArray_IsScalar(o, Floating))) {
        PyErr_Format(PyExc_TypeError, "%s: expected a float, got %.80s", arg, Py_TYPE(o)->tp_name);
        return -1;
    }
    bool scalar;
    PyArrayObject *a = srlpy_values_arg_double(o, arg, &scalar);
    if (!a)
        return -1;
    *x = *(double *)PyArray_DATA(a);
    Py_DECREF(a);
    return 0;
}

static PyObject *Format_ulp(PyObject *self, PyObject *x)
{
    double v;
    if (double_arg(x, &v, "x"))
        return NULL;
    return PyFloat_FromDouble(srl_format_ulp(FMT(self), v));
}

static PyObject *Format_contains(PyObject *self, PyObject *x)
{
    double v;
    if (double_arg(x, &v, "x"))
        return NULL;
    return PyBool_FromLong(srl_format_contains(FMT(self), v));
}

static PyObject *Format_encode(PyObject *self, PyObject *x)
{
    double v;
    if (double_arg(x, &v, "x"))
        return NULL;
    uint64_t bits;
    const int st = srl_format_encode(&bits, FMT(self), v);
    if (st == SRL_ERANGE)
        return PyErr_Format(PyExc_ValueError, "format %s is %d bits wide: no encoding above 64",
                            FMT(self)->name, FMT(self)->width);
    if (st != SRL_OK)
        return PyErr_Format(PyExc_ValueError, "x: %R is not a value of %s (round it first)", x,
                            FMT(self)->name);
    return PyLong_FromUnsignedLongLong(bits);
}

static PyObject *Format_decode(PyObject *self, PyObject *b)
{
    uint64_t bits;
    if (srlpy_u64_arg(b, 0, &bits, "bits"))
        return NULL;
    double x;
    const int st = srl_format_decode(&x, FMT(self), bits);
    if (st == SRL_ERANGE)
        return PyErr_Format(PyExc_ValueError, "bits: 0x%llx has a bit set above %s's %d bits",
                            (unsigned long long)bits, FMT(self)->name, FMT(self)->width);
    if (st != SRL_OK)
        return PyErr_Format(PyExc_ValueError, "bits: 0x%llx denotes no value of %s",
                            (unsigned long long)bits, FMT(self)->name);
    return PyFloat_FromDouble(x);
}

#define GET_INT(field)                                                                             \
    static PyObject *Format_get_##field(PyObject *self, void *c)                                   \
    {                                                                                              \
        (void)c;                                                                                   \
        return PyLong_FromLong(FMT(self)->field);                                                  \
    }
#define GET_BOOL(name, field)                                                                      \
    static PyObject *Format_get_##name(PyObject *self, void *c)                                    \
    {                                                                                              \
        (void)c;                                                                                   \
        return PyBool_FromLong(FMT(self)->field);                                                  \
    }
#define GET_DBL(field)                                                                             \
    static PyObject *Format_get_##field(PyObject *self, void *c)                                   \
    {                                                                                              \
        (void)c;                                                                                   \
        return PyFloat_FromDouble(FMT(self)->field);                                               \
    }
GET_INT(p)
GET_INT(emin)
GET_INT(emax)
GET_INT(ebits)
GET_INT(width)
GET_BOOL(subnormals, subnormals)
GET_BOOL(has_inf, inf)
GET_BOOL(saturate, saturate)
GET_DBL(u)
GET_DBL(xmin)
GET_DBL(xsub)
GET_DBL(xmax)

static PyObject *Format_get_name(PyObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(FMT(self)->name);
}
static PyObject *Format_get_fits_float(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(srl_format_fits_float(FMT(self)));
}
static PyObject *Format_get_fits_bf16(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(srlpy_format_fits_bf16(FMT(self)));
}

static PyGetSetDef Format_getset[] = {
    {"name", Format_get_name, NULL, "The preset name, or the canonical spelling of a custom spec.", NULL},
    {"p", Format_get_p, NULL, "Precision in bits, hidden bit included (2 <= p <= 53).", NULL},
    {"emin", Format_get_emin, NULL, "Exponent of the smallest normal number 2^emin.", NULL},
    {"emax", Format_get_emax, NULL, "Exponent of the largest binade.", NULL},
    {"subnormals", Format_get_subnormals, NULL,
     "True with gradual underflow (multiples of 2^(emin-p+1) below 2^emin).", NULL},
    {"has_inf", Format_get_has_inf, NULL,
     "True when the format has infinities (False for e4m3: the all-ones pattern is NaN).", NULL},
    {"saturate", Format_get_saturate, NULL,
     "True when overflow and infinite inputs clamp to +-xmax.", NULL},
    {"ebits", Format_get_ebits, NULL, "Width of the exponent field of the encoding.", NULL},
    {"width", Format_get_width, NULL, "Encoding width 1 + ebits + p - 1 in bits.", NULL},
    {"u", Format_get_u, NULL, "Unit roundoff 2^-p.", NULL},
    {"xmin", Format_get_xmin, NULL, "Smallest positive normal number 2^emin.", NULL},
    {"xsub", Format_get_xsub, NULL,
     "Smallest positive subnormal 2^(emin-p+1) (xmin without subnormals).", NULL},
    {"xmax", Format_get_xmax, NULL, "Largest finite number.", NULL},
    {"fits_float", Format_get_fits_float, NULL,
     "True when every value of the format is a binary32 number (float32 in, float32 out).", NULL},
    {"fits_bf16", Format_get_fits_bf16, NULL,
     "True when every value of the format is a bf16 number (torch.bfloat16 tensors can hold it).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Format_methods[] = {
    {"ulp", Format_ulp, METH_O,
     "ulp(x, /)\n--\n\nThe spacing of the format's grid at |x|: 2^(max(e, emin) - p + 1) with\n"
     "e = floor(log2 |x|); below 2^emin the smallest subnormal (2^emin without subnormals);\n"
     "above xmax the spacing the grid would have if it continued; NaN for non-finite x."},
    {"contains", Format_contains, METH_O,
     "contains(x, /)\n--\n\nTrue when x is a value of the format: NaN always, +-inf iff the format\n"
     "has infinities, a finite x iff it lies on the grid and |x| <= xmax."},
    {"encode", Format_encode, METH_O,
     "encode(x, /)\n--\n\nThe bit pattern (int) of x, which must be a value of the format:\n"
     "sign | exponent field | p-1 fraction bits, bias 1-emin. NaN encodes as the canonical quiet\n"
     "pattern. ValueError when x is not a value, or the format is wider than 64 bits."},
    {"decode", Format_decode, METH_O,
     "decode(bits, /)\n--\n\nThe value (float) of a bit pattern; ValueError for patterns wider than\n"
     "the format or that denote no value."},
    {"__reduce__", Format_reduce, METH_NOARGS, "Pickle support."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject srlpy_FormatType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "srlab.Format",
    .tp_basicsize = sizeof(srlpy_Format),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Format(spec)\n--\n\n"
              "A binary floating-point format, an immutable value: the numbers +-M 2^(e-p+1) with\n"
              "integer significand 0 <= M < 2^p and emin <= e <= emax, signed zeros, NaN and\n"
              "(optionally) infinities.\n\n"
              "spec is a preset name -- bf16, fp16, fp32, tf32, e4m3 (OCP: no infinities, largest\n"
              "448), e5m2, fp64 -- or a custom spec\n"
              "    p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,saturate=on|off]\n"
              "with emin defaulting to 1-emax, or a preset followed by overrides ('e4m3,saturate=on').\n"
              "An unknown name or impossible parameters raise ValueError with the library's message.\n\n"
              "Properties: name, p, emin, emax, subnormals, has_inf, saturate, ebits, width, u,\n"
              "xmin, xsub, xmax, fits_float, fits_bf16. Methods: ulp, contains, encode, decode.\n"
              "Two formats are equal when their parameters are (names are ignored).\n\n"
              "    >>> f = srlab.Format('p=5,emax=7,subnormals=off')\n"
              "    >>> f.p, f.emin, f.emax, f.xmax, f.xmin, f.u, f.has_inf\n"
              "    (5, -6, 7, 248.0, 0.015625, 0.03125, True)",
    .tp_new = Format_new,
    .tp_repr = Format_repr,
    .tp_str = Format_str,
    .tp_hash = Format_hash,
    .tp_richcompare = Format_richcompare,
    .tp_methods = Format_methods,
    .tp_getset = Format_getset,
};

/* ---- module functions ---- */

static PyObject *py_formats(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const size_t n = srl_format_preset_count();
    PyObject *l = PyList_New((Py_ssize_t)n);
    if (!l)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *f = srlpy_format_new(srl_format_preset(i));
        if (!f) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, f);
    }
    return l;
}

static PyObject *py_threads(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
#ifdef _OPENMP
    return PyLong_FromLong(omp_get_max_threads());
#else
    return PyLong_FromLong(1);
#endif
}

static PyObject *py_set_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    if (PyBool_Check(arg) || !PyLong_Check(arg))
        return PyErr_Format(PyExc_TypeError, "n: expected an int >= 1, got %.80s",
                            Py_TYPE(arg)->tp_name);
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (overflow > 0) /* more than a long long: as many as allowed */
        n = LLONG_MAX;
    if (overflow < 0 || n < 1)
        return PyErr_Format(PyExc_ValueError, "n: must be >= 1, got %S", arg);
#ifdef _OPENMP
    /* the library's clamp (srlab/run.h), as the command line's: a huge n starts no more than
     * srl_run_max_threads() threads (results do not depend on the team size) */
    omp_set_num_threads(srl_run_team(n, 0));
#endif
    Py_RETURN_NONE;
}

static PyObject *py_strategies(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && srl_strategy_names[i]; i++) {
        PyObject *s = PyUnicode_FromString(srl_strategy_names[i]);
        if (!s || PyList_Append(l, s)) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyObject *py_default_stream(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    Py_INCREF(srlpy_default_stream);
    return srlpy_default_stream;
}

static PyObject *py_rounding_name(PyObject *self, PyObject *arg)
{
    (void)self;
    srl_rounding m;
    if (srlpy_rounding_arg(arg, &m, "rounding"))
        return NULL;
    char buf[32];
    return PyUnicode_FromString(srl_rounding_name(buf, sizeof buf, m));
}

static PyMethodDef module_methods[] = {
    {"_rounding_name", py_rounding_name, METH_O,
     "_rounding_name(rounding, /)\n--\n\nInternal (srlab.torch.Quant): the canonical name of a\n"
     "rounding mode ('sr:r=016' -> 'sr:r=16'); ValueError/TypeError as srlab.round's rounding."},
    {"default_stream", py_default_stream, METH_NOARGS,
     "default_stream()\n--\n\nThe srlab.Stream that calls without a stream use (seed 1, stream 0,\n"
     "counter 0 at import). Like torch's default generator it is shared by every such call, so\n"
     "its counter moves with each; pass your own srlab.Stream for reproducible results."},
    {"round", (PyCFunction)(void (*)(void))srlpy_round, METH_VARARGS | METH_KEYWORDS, srlpy_round_doc},
    {"explain", (PyCFunction)(void (*)(void))srlpy_explain, METH_VARARGS | METH_KEYWORDS, srlpy_explain_doc},
    {"draws", (PyCFunction)(void (*)(void))srlpy_draws, METH_VARARGS | METH_KEYWORDS, srlpy_draws_doc},
    {"_c_round_timed", (PyCFunction)(void (*)(void))srlpy_c_round_timed,
     METH_VARARGS | METH_KEYWORDS, srlpy_c_round_timed_doc},
    {"op", (PyCFunction)(void (*)(void))srlpy_op, METH_VARARGS | METH_KEYWORDS, srlpy_op_doc},
    {"explain_op", (PyCFunction)(void (*)(void))srlpy_explain_op, METH_VARARGS | METH_KEYWORDS,
     srlpy_explain_op_doc},
    {"sum", (PyCFunction)(void (*)(void))srlpy_sum, METH_VARARGS | METH_KEYWORDS, srlpy_sum_doc},
    {"dot", (PyCFunction)(void (*)(void))srlpy_dot, METH_VARARGS | METH_KEYWORDS, srlpy_dot_doc},
    {"gemv", (PyCFunction)(void (*)(void))srlpy_gemv, METH_VARARGS | METH_KEYWORDS, srlpy_gemv_doc},
    {"gemm", (PyCFunction)(void (*)(void))srlpy_gemm, METH_VARARGS | METH_KEYWORDS, srlpy_gemm_doc},
    {"gemm_draws", (PyCFunction)(void (*)(void))srlpy_gemm_draws, METH_VARARGS | METH_KEYWORDS,
     srlpy_gemm_draws_doc},
    {"accum_name", (PyCFunction)(void (*)(void))srlpy_accum_name, METH_VARARGS | METH_KEYWORDS,
     srlpy_accum_name_doc},
    {"strategy_info", (PyCFunction)(void (*)(void))srlpy_strategy_info,
     METH_VARARGS | METH_KEYWORDS, srlpy_strategy_info_doc},
    {"formats", py_formats, METH_NOARGS,
     "formats()\n--\n\nThe preset formats, in the library's order (bf16, fp16, fp32, tf32, e4m3,\n"
     "e5m2, fp64), as a list of srlab.Format: what `srlab formats` lists."},
    {"strategies", py_strategies, METH_NOARGS,
     "strategies()\n--\n\nThe precision strategy presets (fp32, mp, bf16-rn, bf16-sr,\n"
     "bf16-sr-exact, bf16-kahan, mp-tc, custom): what `srlab train --strategy`\n"
     "accepts."},
    {"threads", py_threads, METH_NOARGS,
     "threads()\n--\n\nThe number of threads the library's parallel loops use for calls from this\n"
     "thread (OpenMP's limit; 1 in a build without OpenMP). Results never depend on it."},
    {"set_threads", py_set_threads, METH_O,
     "set_threads(n, /)\n--\n\nUse n threads (n >= 1; at most 4 per online processor and 1024, whatever n\n"
     "asks) in the library's parallel loops for calls made from the calling thread (OpenMP's\n"
     "per-thread setting; no effect without OpenMP). The import clamps OMP_NUM_THREADS the same way.\n"
     "Results are bit-identical for every n: element i always uses draw counter + i."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "srlab._core",
    "The C extension under the srlab package: every function calls libsrlab's public API\n"
    "(include/srlab/*.h). Use it through `import srlab`.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    srl_run_clamp_threads(); /* OMP_NUM_THREADS=100000 would crash the first parallel loop */
    if (PyType_Ready(&srlpy_FormatType) < 0 || PyType_Ready(&srlpy_OptimStateType) < 0 ||
        PyType_Ready(&srlpy_StreamType) < 0)
        return NULL;
    if (!srlpy_default_stream &&
        !(srlpy_default_stream = srlpy_stream_new(SRL_RNG_DEFAULT, 1, 0, 0)))
        return NULL;
    if (srlpy_explanation_init())
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    Py_INCREF(&srlpy_FormatType);
    Py_INCREF(&srlpy_OptimStateType);
    Py_INCREF(&srlpy_StreamType);
    Py_INCREF(srlpy_ExplanationType);
    if (PyModule_AddObject(m, "Format", (PyObject *)&srlpy_FormatType) ||
        PyModule_AddObject(m, "_OptimState", (PyObject *)&srlpy_OptimStateType) ||
        PyModule_AddObject(m, "Stream", (PyObject *)&srlpy_StreamType) ||
        PyModule_AddObject(m, "Explanation", (PyObject *)srlpy_ExplanationType) ||
        PyModule_AddStringConstant(m, "__version__", srl_version()) ||
        PyModule_AddIntConstant(m, "_openmp",
#ifdef _OPENMP
                                1
#else
                                0
#endif
                                )) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
