/* python/srlab/_stream.c: srlab.Stream, a position in one of the library's counter-addressed
 * random streams (include/srlab/rng.h), the argument conversions of the functions that draw,
 * and the one string conversion every text argument goes through.
 *
 * A Stream is (kind, seed, stream id, counter): draw k of it is a pure function of the first
 * three and k. A function that rounds n values stochastically uses the draws counter ..
 * counter + n - 1 (element i gets counter + i) and moves the counter past them, exactly as the
 * C API moves rng->counter; deterministic modes draw nothing and leave it. The counter is
 * moved before the GIL is released, so two Python threads sharing a stream never reuse a draw. */
#include "_core.h"

#include <string.h>

/* ---- text ---- */

int srlpy_text_arg(PyObject *o, const char **s, const char *arg, const char *what)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected %s, got %.80s", arg, what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n;
    const char *t = PyUnicode_AsUTF8AndSize(o, &n);
    if (!t)
        return -1;
    /* The library reads C strings: a NUL would end the text early and silently drop the rest
     * ('prod=bf16:rn\0,acc=bf16:sr' would lose its accumulator). */
    const char *nul = memchr(t, '\0', (size_t)n);
    if (nul) {
        PyErr_Format(PyExc_ValueError, "%s: contains a NUL character at offset %zd; text "
                                       "arguments may not contain NUL", arg, (Py_ssize_t)(nul - t));
        return -1;
    }
    *s = t;
    return 0;
}

/* ---- srlab.Stream ---- */

#define STREAM(o) ((srlpy_Stream *)(o))

static const char *kind_name(srl_rng_kind k)
{
    return k == SRL_RNG_PCG64 ? "pcg64" : "pcg32";
}

PyObject *srlpy_stream_new(srl_rng_kind kind, uint64_t seed, uint64_t stream, uint64_t counter)
{
    srlpy_Stream *o = PyObject_New(srlpy_Stream, &srlpy_StreamType);
    if (o) {
        o->kind = kind;
        o->seed = seed;
        o->stream = stream;
        o->counter = counter;
    }
    return (PyObject *)o;
}

static PyObject *Stream_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"seed", "stream", "counter", "rng", NULL};
    PyObject *seed = NULL, *stream = NULL, *counter = NULL, *rng = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO:Stream", kwlist, &seed, &stream, &counter,
                                     &rng))
        return NULL;
    srlpy_stream s;
    if (srlpy_u64_arg(seed, 1, &s.seed, "seed") || srlpy_u64_arg(stream, 0, &s.stream, "stream") ||
        srlpy_u64_arg(counter, 0, &s.counter, "counter") || srlpy_kind_arg(rng, &s.kind, "rng"))
        return NULL;
    srlpy_Stream *o = (srlpy_Stream *)type->tp_alloc(type, 0);
    if (o) {
        o->kind = s.kind;
        o->seed = s.seed;
        o->stream = s.stream;
        o->counter = s.counter;
    }
    return (PyObject *)o;
}

static PyObject *Stream_repr(PyObject *self)
{
    const srlpy_Stream *s = STREAM(self);
    return PyUnicode_FromFormat("srlab.Stream(seed=%llu, stream=%llu, counter=%llu, rng='%s')",
                                (unsigned long long)s->seed, (unsigned long long)s->stream,
                                (unsigned long long)s->counter, kind_name(s->kind));
}

static PyObject *Stream_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    const srlpy_Stream *s = STREAM(self);
    return Py_BuildValue("(O(KKKs))", (PyObject *)Py_TYPE(self), (unsigned long long)s->seed,
                         (unsigned long long)s->stream, (unsigned long long)s->counter,
                         kind_name(s->kind));
}

static PyObject *Stream_copy(PyObject *self, PyObject *unused)
{
    (void)unused;
    const srlpy_Stream *s = STREAM(self);
    return srlpy_stream_new(s->kind, s->seed, s->stream, s->counter);
}

static PyObject *Stream_deepcopy(PyObject *self, PyObject *memo)
{
    (void)memo;
    return Stream_copy(self, NULL);
}

static PyObject *Stream_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &srlpy_StreamType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    const srlpy_Stream *x = STREAM(a), *y = STREAM(b);
    const int eq = x->kind == y->kind && x->seed == y->seed && x->stream == y->stream &&
                   x->counter == y->counter;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *Stream_draws(PyObject *self, PyObject *arg)
{
    uint64_t n;
    if (srlpy_u64_arg(arg, 0, &n, "n"))
        return NULL;
    srlpy_stream s;
    srlpy_stream_of(self, &s);
    if (srlpy_check_draws(&s, n, "n"))
        return NULL;
    if (n > (uint64_t)NPY_MAX_INTP / 8)
        return PyErr_Format(PyExc_ValueError, "n: %llu draws do not fit in memory",
                            (unsigned long long)n);
    npy_intp dim = (npy_intp)n;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &dim, NPY_UINT64);
    if (!a)
        return NULL;
    srlpy_stream_advance(self, &s, n);
    uint64_t *u = PyArray_DATA(a);
    srl_rng r;
    srlpy_stream_rng(&r, &s);
    Py_BEGIN_ALLOW_THREADS
    for (uint64_t i = 0; i < n; i++)
        u[i] = srl_rng_next(&r);
    Py_END_ALLOW_THREADS
    return (PyObject *)a;
}

static PyObject *Stream_derive(PyObject *self, PyObject *key)
{
    uint64_t k;
    if (PyUnicode_Check(key)) {
        const char *s;
        if (srlpy_text_arg(key, &s, "key", "a str or an integer"))
            return NULL;
        k = srl_hash_str(s);
    } else if (srlpy_u64_arg(key, 0, &k, "key")) {
        return NULL;
    }
    const srlpy_Stream *p = STREAM(self);
    srl_rng parent, child;
    srl_rng_init(&parent, p->kind, p->seed, p->stream);
    srl_rng_derive(&child, &parent, k);
    return srlpy_stream_new(child.kind, child.seed, child.stream, 0);
}

#define GET_U64(field)                                                                             \
    static PyObject *Stream_get_##field(PyObject *self, void *c)                                   \
    {                                                                                              \
        (void)c;                                                                                   \
        return PyLong_FromUnsignedLongLong(STREAM(self)->field);                                   \
    }                                                                                              \
    static int Stream_set_##field(PyObject *self, PyObject *v, void *c)                            \
    {                                                                                              \
        (void)c;                                                                                   \
        if (!v) {                                                                                  \
            PyErr_SetString(PyExc_AttributeError, #field ": cannot be deleted");                   \
            return -1;                                                                             \
        }                                                                                          \
        uint64_t x;                                                                                \
        if (srlpy_u64_arg(v, 0, &x, #field))                                                       \
            return -1;                                                                             \
        STREAM(self)->field = x;                                                                   \
        return 0;                                                                                  \
    }
GET_U64(seed)
GET_U64(stream)
GET_U64(counter)

static PyObject *Stream_get_rng(PyObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(kind_name(STREAM(self)->kind));
}

static int Stream_set_rng(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "rng: cannot be deleted");
        return -1;
    }
    return srlpy_kind_arg(v, &STREAM(self)->kind, "rng");
}

static PyGetSetDef Stream_getset[] = {
    {"seed", Stream_get_seed, Stream_set_seed, "The seed (pcg initstate), an integer in [0, 2^64).",
     NULL},
    {"stream", Stream_get_stream, Stream_set_stream,
     "The stream id (pcg initseq), an integer in [0, 2^64).", NULL},
    {"counter", Stream_get_counter, Stream_set_counter,
     "The index of the next draw, an integer in [0, 2^64); set it to seek.", NULL},
    {"rng", Stream_get_rng, Stream_set_rng, "The generator: 'pcg32' (srlab's default) or 'pcg64'.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Stream_methods[] = {
    {"draws", Stream_draws, METH_O,
     "draws(n, /)\n--\n\nThe next n raw 64-bit draws (a uint64 array), counter .. counter+n-1;\n"
     "the counter then advances by n. Draw counter + i is what a stochastic rounding of element\n"
     "i compares with the exact fraction (its top R bits for sr:r=R). For pcg32, draw k is the\n"
     "pcg32 outputs 2k and 2k+1 as the high and low halves; for pcg64 the k-th pcg64 output."},
    {"derive", Stream_derive, METH_O,
     "derive(key, /)\n--\n\nA child stream for an independent purpose, at counter 0: same rng and\n"
     "seed, stream id srl_hash64(self.stream, k) with k = srl_hash_str(key) for a str key or\n"
     "the integer key itself (include/srlab/rng.h, srl_rng_derive). The parent's counter is\n"
     "irrelevant and unchanged. srlab train's weight tensor NAME writes with\n"
     "Stream(seed).derive('writes').derive(NAME) (rng as --rng), as srlab.torch's optimizers do."},
    {"copy", Stream_copy, METH_NOARGS, "copy()\n--\n\nAn independent Stream at the same position."},
    {"__copy__", Stream_copy, METH_NOARGS, "The same as copy()."},
    {"__deepcopy__", Stream_deepcopy, METH_O, "The same as copy()."},
    {"__reduce__", Stream_reduce, METH_NOARGS, "Pickle support."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject srlpy_StreamType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "srlab.Stream",
    .tp_basicsize = sizeof(srlpy_Stream),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Stream(seed=1, stream=0, counter=0, rng='pcg32')\n--\n\n"
              "A position in one of srlab's counter-addressed random streams: draw k of stream\n"
              "`stream` of `seed` is a pure function of (rng, seed, stream, k). Every function\n"
              "that rounds stochastically takes one (argument `stream`), uses the draws counter,\n"
              "counter + 1, ... (element i of the input, in C order, gets counter + i) and moves\n"
              "the counter past them, as the C API moves rng->counter; so successive calls never\n"
              "reuse a draw, and two calls equal one call on the concatenation. Deterministic\n"
              "modes draw nothing.\n\n"
              "    >>> s = srlab.Stream(seed=7)\n"
              "    >>> y = srlab.round(np.full(4, 1.00390625), 'bf16', 'sr', s); s.counter\n"
              "    4\n\n"
              "srlab.round(x, F, M, srlab.Stream(S)) is `srlab round --batch -f F -r M --seed S`\n"
              "on the values of x one per line, bit for bit (data line k uses draw k of stream\n"
              "0).\n"
              "Attributes seed, stream, counter (integers in [0, 2^64), settable) and rng\n"
              "('pcg32' or 'pcg64'). Methods draws(n), derive(key), copy(). Streams compare equal\n"
              "when all four are equal; they pickle and copy.",
    .tp_new = Stream_new,
    .tp_repr = Stream_repr,
    .tp_richcompare = Stream_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_methods = Stream_methods,
    .tp_getset = Stream_getset,
};

/* ---- the stream argument of the functions that draw ---- */

PyObject *srlpy_default_stream;

void srlpy_stream_of(PyObject *o, srlpy_stream *s)
{
    const srlpy_Stream *t = STREAM(o);
    s->kind = t->kind;
    s->seed = t->seed;
    s->stream = t->stream;
    s->counter = t->counter;
}

int srlpy_stream_arg(PyObject *o, PyObject **owner, srlpy_stream *s, const char *arg)
{
    if (!o || o == Py_None)
        o = srlpy_default_stream;
    if (!PyObject_TypeCheck(o, &srlpy_StreamType)) {
        if (PyLong_Check(o))
            PyErr_Format(PyExc_TypeError,
                         "%s: expected an srlab.Stream or None, got an int; the seed, stream id "
                         "and counter are one srlab.Stream now: pass srlab.Stream(seed=S, "
                         "stream=ID, counter=C) and read its counter after the call", arg);
        else
            PyErr_Format(PyExc_TypeError, "%s: expected an srlab.Stream or None, got %.80s", arg,
                         Py_TYPE(o)->tp_name);
        return -1;
    }
    *owner = o;
    srlpy_stream_of(o, s);
    return 0;
}

void srlpy_stream_advance(PyObject *owner, const srlpy_stream *s, uint64_t n)
{
    STREAM(owner)->counter = s->counter + n;
}

int srlpy_refuse_old_stream_args(PyObject *kw, const char *fn)
{
    static const char *const old[] = {"seed", "counter", "rng", NULL};
    if (!kw)
        return 0;
    for (int k = 0; old[k]; k++) {
        if (PyDict_GetItemString(kw, old[k])) {
            PyErr_Format(PyExc_TypeError,
                         "%s: '%s=' was replaced by a stream: write %s(..., "
                         "stream=srlab.Stream(seed=S, stream=0, counter=C, rng='pcg32')); the "
                         "call returns its result only and the Stream's counter advances past "
                         "the draws it used", fn, old[k], fn);
            return -1;
        }
    }
    return 0;
}

int srlpy_frs_args(PyObject *fo, PyObject *ro, PyObject *so, srl_format *f, srl_rounding *m,
                   PyObject **owner, srlpy_stream *s)
{
    *f = *srl_format_find("bf16");
    *m = SRL_ROUND_SR;
    return (fo && srlpy_format_arg(fo, f, "format")) ||
           (ro && srlpy_rounding_arg(ro, m, "rounding")) ||
           srlpy_stream_arg(so, owner, s, "stream");
}
