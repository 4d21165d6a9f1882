/* python/srlab/_ops.c: srlab.op and srlab.explain_op (exact operations, elementwise over
 * broadcast arrays), the kernels srlab.sum, dot, gemv, gemm with accumulation configs, and
 * srlab.accum_name, srlab.strategy_info. */
#include "_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/ops.h"

/* ---- operands ---- */

typedef struct {
    srl_op op;
    int arity;
    PyArrayObject *v[3]; /* float64, C-contiguous, broadcast to the common shape (or NULL) */
    bool all_float32;    /* every operand given was float32 */
    bool scalar;         /* every operand was a Python number */
    int nd;
    npy_intp dims[NPY_MAXDIMS];
    size_t n;
} operands;

static void operands_free(operands *o)
{
    for (int k = 0; k < 3; k++)
        Py_CLEAR(o->v[k]);
}

static const char *const operand_names[3] = {"a", "b", "c"};

/* Parse the operation name and its operands, broadcast them (NumPy's rules) and make each a
 * C-contiguous float64 array of the common shape. */
static int operands_get(operands *o, PyObject *name, PyObject *a, PyObject *b, PyObject *c)
{
    memset(o, 0, sizeof *o);
    const char *ns;
    if (srlpy_text_arg(name, &ns, "name", "an operation name (str: add, sub, mul, fma, div, sqrt)"))
        return -1;
    srl_err err = {""};
    if (srl_op_parse(&o->op, ns, &err) != SRL_OK) {
        PyErr_Format(PyExc_ValueError, "name: %s", err.msg);
        return -1;
    }
    o->arity = srl_op_arity(o->op);
    PyObject *given[3] = {a, b, c};
    for (int k = 1; k < 3; k++) {
        const bool has = given[k] && given[k] != Py_None;
        if (k < o->arity && !has) {
            PyErr_Format(PyExc_TypeError, "%s: %s takes %d operands (%s); %s is missing",
                         operand_names[k], ns, o->arity, o->arity == 3 ? "a, b, c" : "a, b",
                         operand_names[k]);
            return -1;
        }
        if (k >= o->arity && has) {
            PyErr_Format(PyExc_TypeError, "%s: %s takes %d operand%s (%s)", operand_names[k], ns,
                         o->arity, o->arity == 1 ? "" : "s", o->arity == 1 ? "a" : "a, b");
            return -1;
        }
    }
    PyArrayObject *raw[3] = {NULL, NULL, NULL};
    o->all_float32 = true;
    o->scalar = true;
    for (int k = 0; k < o->arity; k++) {
        bool sc;
        raw[k] = srlpy_values_arg(given[k], operand_names[k], &sc);
        if (!raw[k])
            goto fail;
        o->all_float32 = o->all_float32 && PyArray_TYPE(raw[k]) == NPY_FLOAT;
        o->scalar = o->scalar && sc;
    }
    /* The common shape. */
    PyArrayMultiIterObject *mit = NULL;
    if (o->arity == 1)
        mit = (PyArrayMultiIterObject *)PyArray_MultiIterNew(1, raw[0]);
    else if (o->arity == 2)
        mit = (PyArrayMultiIterObject *)PyArray_MultiIterNew(2, raw[0], raw[1]);
    else
        mit = (PyArrayMultiIterObject *)PyArray_MultiIterNew(3, raw[0], raw[1], raw[2]);
    if (!mit) {
        PyErr_Clear();
        PyObject *msg = PyUnicode_FromString(o->arity == 3 ? "a, b, c: shapes" : "a, b: shapes");
        for (int k = 0; msg && k < o->arity; k++) {
            PyObject *sh = PyObject_GetAttrString((PyObject *)raw[k], "shape");
            PyObject *piece = sh ? PyUnicode_FromFormat(" %S", sh) : NULL;
            Py_XDECREF(sh);
            if (piece)
                PyUnicode_AppendAndDel(&msg, piece);
            else
                Py_CLEAR(msg);
        }
        if (msg) {
            PyUnicode_AppendAndDel(&msg, PyUnicode_FromString(" cannot be broadcast together"));
            if (msg)
                PyErr_SetObject(PyExc_ValueError, msg);
            Py_XDECREF(msg);
        }
        goto fail;
    }
    o->nd = mit->nd;
    for (int d = 0; d < mit->nd; d++)
        o->dims[d] = mit->dimensions[d];
    o->n = (size_t)mit->size;
    Py_DECREF(mit);
    PyObject *np = NULL, *shape = NULL;
    for (int k = 0; k < o->arity; k++) {
        PyArrayObject *d = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)raw[k], NPY_DOUBLE,
                                                             NPY_ARRAY_C_CONTIGUOUS |
                                                                 NPY_ARRAY_ALIGNED);
        if (!d)
            goto fail_np;
        bool same = PyArray_NDIM(d) == o->nd;
        for (int j = 0; same && j < o->nd; j++)
            same = PyArray_DIM(d, j) == o->dims[j];
        if (!same) { /* numpy.broadcast_to, then a contiguous copy */
            if (!np && !(np = PyImport_ImportModule("numpy")))
                goto fail_d;
            if (!shape) {
                shape = PyTuple_New(o->nd);
                if (!shape)
                    goto fail_d;
                for (int j = 0; j < o->nd; j++)
                    PyTuple_SET_ITEM(shape, j, PyLong_FromSsize_t(o->dims[j]));
            }
            PyObject *bc = PyObject_CallMethod(np, "broadcast_to", "OO", d, shape);
            if (!bc)
                goto fail_d;
            PyArrayObject *cc = (PyArrayObject *)PyArray_FROM_OTF(
                bc, NPY_DOUBLE, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_ENSURECOPY);
            Py_DECREF(bc);
            Py_DECREF(d);
            d = cc;
            if (!d)
                goto fail_np;
        }
        o->v[k] = d;
        continue;
    fail_d:
        Py_DECREF(d);
        goto fail_np;
    }
    Py_XDECREF(np);
    Py_XDECREF(shape);
    for (int k = 0; k < 3; k++)
        Py_XDECREF(raw[k]);
    return 0;
fail_np:
    Py_XDECREF(np);
    Py_XDECREF(shape);
fail:
    for (int k = 0; k < 3; k++)
        Py_XDECREF(raw[k]);
    operands_free(o);
    return -1;
}

static double opnd(const operands *o, int k, size_t i)
{
    return k < o->arity ? ((const double *)PyArray_DATA(o->v[k]))[i] : 0.0;
}

/* ---- srlab.op ---- */

const char srlpy_op_doc[] =
    "op(name, a, b=None, c=None, format='bf16', rounding='sr', stream=None, out=None)\n"
    "--\n"
    "\n"
    "One exact operation rounded once into a format, elementwise: the exact result r of\n"
    "    add a+b   sub a-b   mul a*b   fma a*b+c (one rounding)   div a/b   sqrt sqrt(a)\n"
    "on binary64 operands, rounded with the rule of srlab.round (the library's srl_op_apply: an\n"
    "error-free transformation or integer arithmetic, never a double rounding). So\n"
    "op('add', 1.0, 2.0**-200, format='fp32', rounding='sr') rounds up with probability exactly\n"
    "2^-177.\n"
    "\n"
    "a, b, c   float64 or float32 arrays (or floats), broadcast together as NumPy does; sqrt\n"
    "          takes a only, fma all three, the others a and b (a wrong count is a TypeError\n"
    "          naming the operand)\n"
    "format, rounding, stream, out: as srlab.round; element i of the broadcast shape, in C\n"
    "          order, uses draw stream.counter + i (the counter then advances by the size), so\n"
    "          op(name, a, b, format=F, rounding=M, stream=srlab.Stream(S)) equals\n"
    "          `srlab op NAME --batch -f F -r M --seed S` on the lines a,b (data line k uses\n"
    "          draw k of stream 0) bit for bit.\n"
    "\n"
    "Returns the results (float32 when every operand is float32 and the format fits binary32,\n"
    "else float64; a scalar for scalar operands), in every mode. IEEE 754 special cases: NaN\n"
    "operands give NaN, inf - inf,\n"
    "0 * inf, 0/0, sqrt of a negative number give NaN, x/0 a signed infinity.\n"
    "\n"
    "    >>> srlab.op('fma', 1.0, 1.0, 2.0**-30, 'bf16', 'rn')\n"
    "    1.0\n";

PyObject *srlpy_op(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"name", "a", "b", "c", "format", "rounding", "stream", "out", NULL};
    PyObject *name, *a, *b = Py_None, *c = Py_None, *fo = NULL, *ro = NULL, *so = NULL,
                        *out = Py_None, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.op") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOOO:op", kwlist, &name, &a, &b, &c, &fo,
                                     &ro, &so, &out))
        return NULL;
    srl_format f;
    srl_rounding m;
    srlpy_stream s;
    if (srlpy_frs_args(fo, ro, so, &f, &m, &owner, &s))
        return NULL;
    operands o;
    if (operands_get(&o, name, a, b, c))
        return NULL;
    const bool stoch = srl_rounding_is_stochastic(m);
    const bool fits = srl_format_fits_float(&f);
    PyArrayObject *y = NULL;
    int out_t;
    if (stoch && srlpy_check_draws(&s, o.n, "the broadcast size"))
        goto fail;
    if (out != Py_None) {
        if (srlpy_out_arg(out, o.nd, o.dims, "out"))
            goto fail;
        out_t = PyArray_TYPE((PyArrayObject *)out);
        if (out_t == NPY_FLOAT && !fits) {
            PyErr_Format(PyExc_ValueError,
                         "out: float32 cannot hold every value of format %s; pass a float64 out",
                         f.name);
            goto fail;
        }
        y = (PyArrayObject *)out;
        Py_INCREF(y);
    } else {
        out_t = (o.all_float32 && fits) ? NPY_FLOAT : NPY_DOUBLE;
        y = (PyArrayObject *)PyArray_SimpleNew(o.nd, o.dims, out_t);
        if (!y)
            goto fail;
    }
    {
        const size_t n = o.n;
        /* The operands are private float64 copies unless they were already contiguous float64
         * arrays; out may be one of them: results go to a buffer first when it overlaps. */
        bool overlap = false;
        for (int k = 0; k < o.arity; k++)
            overlap = overlap || srlpy_overlap(PyArray_DATA(o.v[k]), (size_t)PyArray_NBYTES(o.v[k]),
                                               PyArray_DATA(y), (size_t)PyArray_NBYTES(y));
        double *res = (out_t == NPY_DOUBLE && !overlap) ? PyArray_DATA(y)
                                                        : malloc((n ? n : 1) * sizeof(double));
        if (!res) {
            PyErr_NoMemory();
            goto fail;
        }
        const srl_op op = o.op;
        if (stoch)
            srlpy_stream_advance(owner, &s, n);
        Py_BEGIN_ALLOW_THREADS
        enum { CHUNK = 4096 };
        const long nch = (long)((n + CHUNK - 1) / CHUNK);
#pragma omp parallel for schedule(static) if (nch > 1)
        for (long ch = 0; ch < nch; ch++) {
            const size_t i0 = (size_t)ch * CHUNK, i1 = i0 + CHUNK < n ? i0 + CHUNK : n;
            srl_rng r;
            srl_rng_init(&r, s.kind, s.seed, s.stream);
            if (stoch)
                srl_rng_seek(&r, s.counter + i0);
            for (size_t i = i0; i < i1; i++)
                res[i] = srl_op_apply(op, opnd(&o, 0, i), opnd(&o, 1, i), opnd(&o, 2, i), &f, m, &r);
        }
        if (out_t == NPY_FLOAT) {
            float *yf = PyArray_DATA(y);
            for (size_t i = 0; i < n; i++)
                yf[i] = (float)res[i]; /* exact: every value of f is a binary32 number */
        } else if (res != PyArray_DATA(y)) {
            memcpy(PyArray_DATA(y), res, n * sizeof(double));
        }
        Py_END_ALLOW_THREADS
        if (res != PyArray_DATA(y))
            free(res);
    }
    operands_free(&o);
    return (out == Py_None && PyArray_NDIM(y) == 0) ? PyArray_Return(y) : (PyObject *)y;
fail:
    operands_free(&o);
    Py_XDECREF(y);
    return NULL;
}

/* ---- srlab.explain_op ---- */

const char srlpy_explain_op_doc[] =
    "explain_op(name, a, b=None, c=None, format='bf16', rounding='sr', stream=None)\n"
    "--\n"
    "\n"
    "Explain an exact operation, as `srlab op NAME A B` does: an srlab.Explanation whose x is the\n"
    "exact result rounded to nearest binary64 (for display), with the neighbours rd <= r <= ru of\n"
    "the exact result r, p_up, frac, the result of this call's draw, exact, overflow, ternary\n"
    "(sign of result - r). Operands and the other arguments as srlab.op; array operands give\n"
    "array fields, and the rd, ru, p_up and result columns of `srlab op NAME --batch`.\n"
    "\n"
    "    >>> srlab.explain_op('add', 1.0, 2.0**-200, format='fp32').p_up == 2.0**-177\n"
    "    True\n";

PyObject *srlpy_explain_op(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"name", "a", "b", "c", "format", "rounding", "stream", NULL};
    PyObject *name, *a, *b = Py_None, *c = Py_None, *fo = NULL, *ro = NULL, *so = NULL, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.explain_op") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOO:explain_op", kwlist, &name, &a, &b, &c,
                                     &fo, &ro, &so))
        return NULL;
    srl_format f;
    srl_rounding m;
    srlpy_stream s;
    if (srlpy_frs_args(fo, ro, so, &f, &m, &owner, &s))
        return NULL;
    operands o;
    if (operands_get(&o, name, a, b, c))
        return NULL;
    const bool stoch = srl_rounding_is_stochastic(m);
    if (stoch && srlpy_check_draws(&s, o.n, "the broadcast size")) {
        operands_free(&o);
        return NULL;
    }
    enum { F_X, F_RD, F_RU, F_PUP, F_FRAC, F_RES, F_ULP, NDBL };
    PyArrayObject *dbl[NDBL] = {NULL}, *ex = NULL, *ov = NULL, *te = NULL;
    PyObject *res = NULL;
    for (int k = 0; k < NDBL; k++)
        if (!(dbl[k] = (PyArrayObject *)PyArray_SimpleNew(o.nd, o.dims, NPY_DOUBLE)))
            goto done;
    if (!(ex = (PyArrayObject *)PyArray_SimpleNew(o.nd, o.dims, NPY_BOOL)) ||
        !(ov = (PyArrayObject *)PyArray_SimpleNew(o.nd, o.dims, NPY_BOOL)) ||
        !(te = (PyArrayObject *)PyArray_SimpleNew(o.nd, o.dims, NPY_INT8)))
        goto done;
    int st = SRL_OK;
    {
        double *d[NDBL];
        for (int k = 0; k < NDBL; k++)
            d[k] = PyArray_DATA(dbl[k]);
        npy_bool *exv = PyArray_DATA(ex), *ovv = PyArray_DATA(ov);
        npy_int8 *tev = PyArray_DATA(te);
        srl_rng r;
        srlpy_stream_rng(&r, &s);
        if (stoch)
            srlpy_stream_advance(owner, &s, o.n);
        Py_BEGIN_ALLOW_THREADS
        for (size_t i = 0; i < o.n && st == SRL_OK; i++) {
            srl_round_info in;
            if (stoch && r.counter != s.counter + i)
                srl_rng_seek(&r, s.counter + i);
            st = srl_op_explain(&in, o.op, opnd(&o, 0, i), opnd(&o, 1, i), opnd(&o, 2, i), &f, m,
                                &r);
            d[F_X][i] = in.x;
            d[F_RD][i] = in.rd;
            d[F_RU][i] = in.ru;
            d[F_PUP][i] = in.p_up;
            d[F_FRAC][i] = in.frac;
            d[F_RES][i] = in.result;
            d[F_ULP][i] = srl_format_ulp(&f, in.x);
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
    const int order[7] = {F_X, F_RD, F_RU, F_PUP, F_FRAC, F_RES, F_ULP};
    const int slot[7] = {0, 1, 2, 3, 4, 5, 9};
    if (o.scalar || o.nd == 0) {
        for (int k = 0; k < 7; k++)
            items[slot[k]] = PyFloat_FromDouble(*(double *)PyArray_DATA(dbl[order[k]]));
        items[6] = PyBool_FromLong(*(npy_bool *)PyArray_DATA(ex));
        items[7] = PyBool_FromLong(*(npy_bool *)PyArray_DATA(ov));
        items[8] = PyLong_FromLong(*(npy_int8 *)PyArray_DATA(te));
    } else {
        for (int k = 0; k < 7; k++) {
            Py_INCREF(dbl[order[k]]);
            items[slot[k]] = (PyObject *)dbl[order[k]];
        }
        Py_INCREF(ex);
        Py_INCREF(ov);
        Py_INCREF(te);
        items[6] = (PyObject *)ex;
        items[7] = (PyObject *)ov;
        items[8] = (PyObject *)te;
    }
    items[10] = PyUnicode_FromString(f.name);
    items[11] = PyUnicode_FromString(mode);
    items[12] = PyLong_FromUnsignedLongLong(stoch ? s.counter + o.n : s.counter);
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
    operands_free(&o);
    for (int k = 0; k < NDBL; k++)
        Py_XDECREF(dbl[k]);
    Py_XDECREF(ex);
    Py_XDECREF(ov);
    Py_XDECREF(te);
    return res;
}

/* ---- kernels ---- */

/* A float32/float64 array of ndim dimensions, as C-contiguous float64. */
static PyArrayObject *matrix_arg(PyObject *o, int ndim, const char *arg, bool *f32)
{
    bool sc;
    PyArrayObject *a = srlpy_values_arg(o, arg, &sc);
    if (!a)
        return NULL;
    if (PyArray_NDIM(a) != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: expected a %d-dimensional array, got %d dimensions",
                     arg, ndim, PyArray_NDIM(a));
        Py_DECREF(a);
        return NULL;
    }
    *f32 = PyArray_TYPE(a) == NPY_FLOAT;
    if (*f32) {
        PyArrayObject *d = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)a, NPY_DOUBLE,
                                                             NPY_ARRAY_C_CONTIGUOUS |
                                                                 NPY_ARRAY_ALIGNED);
        Py_DECREF(a);
        a = d;
    }
    return a;
}

static PyObject *kernel_error(int st, const char *what)
{
    if (st == SRL_ERANGE)
        return PyErr_Format(PyExc_ValueError, "counter: the number of draws of this %s does not "
                                              "fit in 64 bits", what);
    if (st == SRL_ENOMEM)
        return PyErr_NoMemory();
    return PyErr_Format(PyExc_ValueError, "accum: the library refused the config for %s (%s)",
                        what, srl_strerror(st));
}

#define KERNEL_STREAM_DOC                                                                          \
    "accum     the accumulation config of `srlab run`/`srlab train` (--accum) and\n"              \
    "          include/srlab/kernels.h: 'prod=FMT:MODE,acc=FMT:MODE[,fma=on|off]\n"                \
    "          [,order=recursive|pairwise|blocked:K][,kahan=on|off][,join=FMT:MODE]', keys\n"     \
    "          in any order, each optional, missing keys from binary64 (None: a plain binary64\n" \
    "          loop); FMT a preset or a custom spec in parentheses, prod=(p=8,emax=127):rn\n"   \
    "stream    an srlab.Stream (None: srlab.default_stream()); the kernel's k-th rounding (the\n"  \
    "          layout of include/srlab/kernels.h) uses draw stream.counter + k, and the counter\n" \
    "          advances by the kernel's draws (0 when every mode in use is deterministic)\n"

const char srlpy_sum_doc[] =
    "sum(x, accum=None, stream=None)\n"
    "--\n"
    "\n"
    "The sum of the 1-D array x in emulated precision (srl_sum): terms t_i = x_i, every\n"
    "accumulation operation rounded once into acc's format with acc's mode, in the given order.\n"
    "\n" KERNEL_STREAM_DOC
    "\n"
    "Returns the sum (a float).\n"
    "\n"
    "    >>> srlab.sum(np.ones(1000), 'acc=bf16:rn')\n"
    "    256.0\n";

const char srlpy_dot_doc[] =
    "dot(x, y, accum=None, stream=None)\n"
    "--\n"
    "\n"
    "The dot product of two 1-D arrays of equal length in emulated precision (srl_dot): each\n"
    "product rounded into prod's format (or kept exact with fma=on), accumulated as accum says.\n"
    "\n" KERNEL_STREAM_DOC
    "\n"
    "Returns the result (a float).\n";

const char srlpy_gemv_doc[] =
    "gemv(A, x, accum=None, stream=None)\n"
    "--\n"
    "\n"
    "y = A x for an m-by-n matrix A in emulated precision (srl_gemv): y[i] = dot(A[i,:], x) with\n"
    "the config; row i uses the draws after those of rows 0 .. i-1.\n"
    "\n" KERNEL_STREAM_DOC
    "\n"
    "Returns y (float32 when A and x are float32 and acc's format fits binary32, else float64).\n";

const char srlpy_gemm_doc[] =
    "gemm(A, B, accum=None, stream=None)\n"
    "--\n"
    "\n"
    "C = A B for A m-by-k and B k-by-n in emulated precision (srl_gemm): C[i,j] = dot(A[i,:],\n"
    "B[:,j]) with the config, terms in the order l = 0 .. k-1; output (i,j) uses the block of\n"
    "draws (i*n + j)*D .. (i*n + j + 1)*D - 1 after the stream's counter, D the draws of one dot\n"
    "of length k. Bit-identical for any number of threads. Float32 A and B with an acc format\n"
    "that fits binary32 run the library's binary32 kernel (srl_gemm_f: same definition, same\n"
    "draws).\n"
    "\n" KERNEL_STREAM_DOC
    "\n"
    "Returns C (float32 when A and B are float32 and acc's format fits binary32, else float64).\n"
    "\n"
    "    >>> A = np.ones((2, 300)); C = srlab.gemm(A, A.T, 'prod=bf16:rn,acc=bf16:rn')\n"
    "    >>> C[0, 0]\n"
    "    256.0\n";

/* The arguments every kernel shares: the config and the stream. */
static int kernel_common(PyObject *ao, PyObject *so, srl_accum *c, PyObject **owner,
                         srlpy_stream *s)
{
    if (srlpy_accum_arg(ao, c, "accum") || srlpy_stream_arg(so, owner, s, "stream"))
        return -1;
    return 0;
}

/* Check that D draws fit after the stream's counter, and take them (before the GIL is
 * released). */
static int kernel_take(PyObject *owner, const srlpy_stream *s, uint64_t D, const char *what)
{
    if (D == UINT64_MAX) {
        kernel_error(SRL_ERANGE, what);
        return -1;
    }
    if (srlpy_check_draws(s, D, what))
        return -1;
    srlpy_stream_advance(owner, s, D);
    return 0;
}

/* On a library error after kernel_take: give the draws back unless another call took more. */
static void kernel_untake(PyObject *owner, const srlpy_stream *s, uint64_t D)
{
    srlpy_stream now;
    srlpy_stream_of(owner, &now);
    if (now.counter == s->counter + D)
        srlpy_stream_advance(owner, s, 0);
}

PyObject *srlpy_sum(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"x", "accum", "stream", NULL};
    PyObject *xo, *ao = NULL, *so = NULL, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.sum") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O|OO:sum", kwlist, &xo, &ao, &so))
        return NULL;
    srl_accum c;
    srlpy_stream s;
    if (kernel_common(ao, so, &c, &owner, &s))
        return NULL;
    bool f32;
    PyArrayObject *x = matrix_arg(xo, 1, "x", &f32);
    if (!x)
        return NULL;
    const size_t n = (size_t)PyArray_SIZE(x);
    const uint64_t D = srl_sum_draws(n, &c);
    if (kernel_take(owner, &s, D, "sum")) {
        Py_DECREF(x);
        return NULL;
    }
    double v = 0;
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = srl_sum(&v, PyArray_DATA(x), n, &c, &r);
    Py_END_ALLOW_THREADS
    Py_DECREF(x);
    if (st != SRL_OK) {
        kernel_untake(owner, &s, D);
        return kernel_error(st, "sum");
    }
    return PyFloat_FromDouble(v);
}

PyObject *srlpy_dot(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"x", "y", "accum", "stream", NULL};
    PyObject *xo, *yo, *ao = NULL, *so = NULL, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.dot") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:dot", kwlist, &xo, &yo, &ao, &so))
        return NULL;
    srl_accum c;
    srlpy_stream s;
    if (kernel_common(ao, so, &c, &owner, &s))
        return NULL;
    bool f1, f2;
    PyArrayObject *x = matrix_arg(xo, 1, "x", &f1), *y = x ? matrix_arg(yo, 1, "y", &f2) : NULL;
    if (!y) {
        Py_XDECREF(x);
        return NULL;
    }
    const size_t n = (size_t)PyArray_SIZE(x);
    if ((size_t)PyArray_SIZE(y) != n) {
        PyErr_Format(PyExc_ValueError, "y: has %zd elements, x has %zu", PyArray_SIZE(y), n);
        goto fail;
    }
    const uint64_t D = srl_dot_draws(n, &c);
    if (kernel_take(owner, &s, D, "dot product"))
        goto fail;
    double v = 0;
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = srl_dot(&v, PyArray_DATA(x), PyArray_DATA(y), n, &c, &r);
    Py_END_ALLOW_THREADS
    Py_DECREF(x);
    Py_DECREF(y);
    if (st != SRL_OK) {
        kernel_untake(owner, &s, D);
        return kernel_error(st, "dot product");
    }
    return PyFloat_FromDouble(v);
fail:
    Py_DECREF(x);
    Py_DECREF(y);
    return NULL;
}

/* The result array of gemv/gemm: float32 when the inputs were and acc's format fits binary32
 * (every value of acc's format is then stored exactly). */
static PyObject *kernel_out(double *v, int nd, npy_intp *dims, bool f32)
{
    PyArrayObject *y = (PyArrayObject *)PyArray_SimpleNew(nd, dims, f32 ? NPY_FLOAT : NPY_DOUBLE);
    if (!y)
        return NULL;
    const size_t n = (size_t)PyArray_SIZE(y);
    if (f32) {
        float *yf = PyArray_DATA(y);
        for (size_t i = 0; i < n; i++)
            yf[i] = (float)v[i];
    } else {
        memcpy(PyArray_DATA(y), v, n * sizeof *v);
    }
    return (PyObject *)y;
}

PyObject *srlpy_gemv(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"A", "x", "accum", "stream", NULL};
    PyObject *Ao, *xo, *ao = NULL, *so = NULL, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.gemv") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:gemv", kwlist, &Ao, &xo, &ao, &so))
        return NULL;
    srl_accum c;
    srlpy_stream s;
    if (kernel_common(ao, so, &c, &owner, &s))
        return NULL;
    bool f1, f2;
    PyArrayObject *A = matrix_arg(Ao, 2, "A", &f1), *x = A ? matrix_arg(xo, 1, "x", &f2) : NULL;
    if (!x) {
        Py_XDECREF(A);
        return NULL;
    }
    const size_t m = (size_t)PyArray_DIM(A, 0), n = (size_t)PyArray_DIM(A, 1);
    double *y = NULL;
    PyObject *ret = NULL;
    if ((size_t)PyArray_SIZE(x) != n) {
        PyErr_Format(PyExc_ValueError, "x: has %zd elements, A has %zu columns", PyArray_SIZE(x),
                     n);
        goto done;
    }
    if (!(y = malloc((m ? m : 1) * sizeof *y))) {
        PyErr_NoMemory();
        goto done;
    }
    const uint64_t D = srl_gemv_draws(m, n, &c);
    if (kernel_take(owner, &s, D, "matrix-vector product"))
        goto done;
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = srl_gemv(y, PyArray_DATA(A), PyArray_DATA(x), m, n, &c, &r);
    Py_END_ALLOW_THREADS
    if (st != SRL_OK) {
        kernel_untake(owner, &s, D);
        kernel_error(st, "matrix-vector product");
        goto done;
    }
    npy_intp dims[1] = {(npy_intp)m};
    ret = kernel_out(y, 1, dims, f1 && f2 && srl_format_fits_float(&c.acc_fmt));
done:
    free(y);
    Py_DECREF(A);
    Py_DECREF(x);
    return ret;
}

/* A 2-D float32/float64 array as C-contiguous float32 (when it is float32) or float64. */
static PyArrayObject *matrix_native(PyObject *o, const char *arg)
{
    bool sc;
    PyArrayObject *a = srlpy_values_arg(o, arg, &sc);
    if (a && PyArray_NDIM(a) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: expected a 2-dimensional array, got %d dimensions",
                     arg, PyArray_NDIM(a));
        Py_CLEAR(a);
    }
    return a;
}

/* The same matrix as C-contiguous float64 (a new reference; a exactly when it is float64). */
static PyArrayObject *as_double(PyArrayObject *a)
{
    return (PyArrayObject *)PyArray_FROM_OTF((PyObject *)a, NPY_DOUBLE,
                                             NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
}

PyObject *srlpy_gemm(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"A", "B", "accum", "stream", NULL};
    PyObject *Ao, *Bo, *ao = NULL, *so = NULL, *owner;
    if (srlpy_refuse_old_stream_args(kw, "srlab.gemm") ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:gemm", kwlist, &Ao, &Bo, &ao, &so))
        return NULL;
    srl_accum c;
    srlpy_stream s;
    if (kernel_common(ao, so, &c, &owner, &s))
        return NULL;
    PyArrayObject *A = matrix_native(Ao, "A"), *B = A ? matrix_native(Bo, "B") : NULL;
    if (!B) {
        Py_XDECREF(A);
        return NULL;
    }
    const size_t m = (size_t)PyArray_DIM(A, 0), k = (size_t)PyArray_DIM(A, 1);
    const size_t n = (size_t)PyArray_DIM(B, 1);
    /* binary32 in, binary32 out: the library's float kernel, no widening copies */
    const bool f32 = PyArray_TYPE(A) == NPY_FLOAT && PyArray_TYPE(B) == NPY_FLOAT &&
                     srl_format_fits_float(&c.acc_fmt);
    PyArrayObject *Y = NULL;
    PyObject *ret = NULL;
    if ((size_t)PyArray_DIM(B, 0) != k) {
        PyErr_Format(PyExc_ValueError, "B: has %zd rows, A has %zu columns", PyArray_DIM(B, 0), k);
        goto done;
    }
    if (!f32) {
        PyArrayObject *Ad = as_double(A), *Bd = Ad ? as_double(B) : NULL;
        Py_DECREF(A);
        Py_DECREF(B);
        A = Ad;
        B = Bd;
        if (!B)
            goto done;
    }
    npy_intp dims[2] = {(npy_intp)m, (npy_intp)n};
    if (!(Y = (PyArrayObject *)PyArray_SimpleNew(2, dims, f32 ? NPY_FLOAT : NPY_DOUBLE)))
        goto done;
    const uint64_t D = srl_gemm_draws(m, n, k, &c);
    if (kernel_take(owner, &s, D, "matrix product"))
        goto done;
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    int st;
    Py_BEGIN_ALLOW_THREADS
    if (f32)
        st = srl_gemm_f(PyArray_DATA(Y), PyArray_DATA(A), PyArray_DATA(B), m, n, k, &c, &r);
    else
        st = srl_gemm(PyArray_DATA(Y), PyArray_DATA(A), PyArray_DATA(B), m, n, k, &c, &r);
    Py_END_ALLOW_THREADS
    if (st != SRL_OK) {
        kernel_untake(owner, &s, D);
        kernel_error(st, "matrix product");
        goto done;
    }
    ret = (PyObject *)Y;
    Y = NULL;
done:
    Py_XDECREF(Y);
    Py_XDECREF(A);
    Py_XDECREF(B);
    return ret;
}

const char srlpy_gemm_draws_doc[] =
    "gemm_draws(m, n, k, accum=None)\n"
    "--\n"
    "\n"
    "The draws srlab.gemm takes for an m-by-k times k-by-n product with the config (the\n"
    "library's srl_gemm_draws: m*n times the draws of one dot of length k; 0 when every mode in\n"
    "use is deterministic): the counter advance of one gemm call. ValueError when it does not fit\n"
    "in 64 bits.\n";

static int size_arg(PyObject *o, size_t *v, const char *arg)
{
    uint64_t u;
    if (srlpy_u64_arg(o, 0, &u, arg))
        return -1;
    if (u > (uint64_t)SIZE_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: %llu is too large", arg, (unsigned long long)u);
        return -1;
    }
    *v = (size_t)u;
    return 0;
}

PyObject *srlpy_gemm_draws(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"m", "n", "k", "accum", NULL};
    PyObject *mo, *no, *ko, *ao = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O:gemm_draws", kwlist, &mo, &no, &ko, &ao))
        return NULL;
    size_t m, n, k;
    srl_accum c;
    if (size_arg(mo, &m, "m") || size_arg(no, &n, "n") || size_arg(ko, &k, "k") ||
        srlpy_accum_arg(ao, &c, "accum"))
        return NULL;
    const uint64_t D = srl_gemm_draws(m, n, k, &c);
    if (D == UINT64_MAX)
        return kernel_error(SRL_ERANGE, "matrix product");
    return PyLong_FromUnsignedLongLong(D);
}

const char srlpy_accum_name_doc[] =
    "accum_name(accum)\n"
    "--\n"
    "\n"
    "The canonical spelling of an accumulation config (every key, custom formats in\n"
    "parentheses), as the library writes it: accum_name('acc=bf16:sr') is\n"
    "'prod=fp64:rn,acc=bf16:sr,fma=off,order=recursive,kahan=off'. ValueError with the\n"
    "library's message for a malformed config.\n";

PyObject *srlpy_accum_name(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"accum", NULL};
    PyObject *ao;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:accum_name", kwlist, &ao))
        return NULL;
    srl_accum c;
    if (srlpy_accum_arg(ao, &c, "accum"))
        return NULL;
    char buf[2 * SRL_ACCUM_SPEC_LEN + 2 * SRL_FORMAT_NAME_LEN];
    return PyUnicode_FromString(srl_accum_name(buf, sizeof buf, &c));
}

/* ---- strategies ---- */

const char srlpy_strategy_info_doc[] =
    "strategy_info(strategy)\n"
    "--\n"
    "\n"
    "What a precision strategy stores and how it rounds, as `srlab train` reads it: a dict with\n"
    "name, description (one line), the slots param, grad, m, v, master, comp, act -- each a pair\n"
    "(srlab.Format, rounding name), master and comp None when absent -- update_arith ('fp32'\n"
    "or 'fp64'), accum, and bytes_per_param with AdamW.\n"
    "\n"
    "strategy is a preset name (fp32, mp, bf16-rn, bf16-sr, bf16-sr-exact, bf16-kahan, custom)\n"
    "or a dict of `srlab train` keys: {'strategy': 'bf16-sr', 'param-rounding': 'rd'}.\n";

static PyObject *slot_pair(const srl_slot *sl)
{
    char mode[32];
    srl_rounding_name(mode, sizeof mode, sl->mode);
    return Py_BuildValue("(Ns)", srlpy_format_new(&sl->fmt), mode);
}

PyObject *srlpy_strategy_info(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"strategy", NULL};
    PyObject *so;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:strategy_info", kwlist, &so))
        return NULL;
    srl_strategy s;
    if (srlpy_strategy_arg(so, &s, "strategy"))
        return NULL;
    char desc[512];
    srl_strategy_describe(desc, sizeof desc, &s);
    const srl_bytes b = srl_strategy_bytes(&s, true, true);
    PyObject *master = s.has_master ? slot_pair(&s.master) : (Py_INCREF(Py_None), Py_None);
    PyObject *comp = s.kahan ? slot_pair(&s.comp) : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue("{s:s,s:s,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:s,s:s,s:n}", "name", s.name,
                         "description", desc, "param", slot_pair(&s.param), "grad",
                         slot_pair(&s.grad), "m", slot_pair(&s.m), "v", slot_pair(&s.v), "master",
                         master, "comp", comp, "act", slot_pair(&s.act), "update_arith",
                         s.arith == SRL_ARITH_FP64 ? "fp64" : "fp32", "accum", s.accum,
                         "bytes_per_param", (Py_ssize_t)b.total);
}
