/* python/srlab/_optim.c: srlab._core._OptimState, the optimizer state of one parameter for
 * srlab.torch.AdamW.
 *
 * One _OptimState is one srl_weights (include/srlab/optim.h) holding a single weight NAME of n
 * elements with the tensors the strategy and the optimizer need (NAME, NAME.grad, NAME.m,
 * NAME.v, NAME.master, NAME.comp). Its tensor streams derive from the stream `srlab train`
 * uses, srl_train_stream(seed, rng, "writes"), and each tensor's stream from its name, so a
 * parameter called NAME trained here draws exactly what `srlab train` draws for a weight called
 * NAME with the same seed: the step is the library's srl_optim_step, nothing is re-implemented.
 * (Splitting a model's weights into one srl_weights each changes no draw: a tensor's stream
 * depends only on the seed and its name.)
 *
 * Values move between the tensors and caller arrays (numpy views of torch tensors) exactly:
 * float64, float32, and int16/uint16 arrays of bf16 bit patterns. */
#include "_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/optim.h"
#include "srlab/run.h"
#include "srlab/train.h"

typedef struct {
    PyObject_HEAD
    srl_weights W;
    bool alloc;
    size_t n;
    float *scratch;        /* n floats: bf16 patterns widened */
    srl_optim_config base; /* the optimizer srl_train_config_from read (kind, defaults) */
} OptimState;

static void OptimState_dealloc(PyObject *self)
{
    OptimState *o = (OptimState *)self;
    if (o->alloc)
        srl_weights_free(&o->W);
    free(o->scratch);
    Py_TYPE(self)->tp_free(self);
}

/* The run's settings as `srlab train` reads them: a config with the strategy's keys, opt, seed
 * and rng, through srl_train_config_from (so the optimizer, the strategy and the write streams
 * are exactly those of `srlab train --opt OPT --strategy ... --seed S --rng R`). */
static int train_config(srl_train_config *tc, PyObject *so, const char *opt, const srlpy_stream *st)
{
    srl_config *cfg = srl_config_new();
    if (!cfg) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = srlpy_strategy_config(so, cfg, "strategy");
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)st->seed);
    if (!rc && (srl_config_set(cfg, "opt", opt) || srl_config_set(cfg, "seed", seed) ||
                srl_config_set(cfg, "rng", st->kind == SRL_RNG_PCG64 ? "pcg64" : "pcg32"))) {
        PyErr_NoMemory();
        rc = -1;
    }
    srl_err err = {""};
    if (!rc && srl_train_config_from(tc, cfg, &err) != SRL_OK) {
        PyErr_Format(PyExc_ValueError, "%s%s", strncmp(err.msg, "opt:", 4) ? "strategy: " : "",
                     err.msg);
        rc = -1;
    }
    srl_config_free(cfg);
    return rc;
}

static PyObject *OptimState_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"name", "n", "strategy", "seed", "rng", "opt", NULL};
    const char *name, *opt = "adamw";
    Py_ssize_t n;
    PyObject *no, *so, *seed = NULL, *rng = NULL, *oo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OnO|O$OO:_OptimState", kwlist, &no, &n, &so,
                                     &seed, &rng, &oo))
        return NULL;
    if (srlpy_text_arg(no, &name, "name", "a str") ||
        (oo && srlpy_text_arg(oo, &opt, "opt", "'sgd', 'momentum', 'adam' or 'adamw'")))
        return NULL;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "n: must be >= 0");
    srlpy_stream st = {SRL_RNG_DEFAULT, 1, 0, 0};
    srl_train_config tc;
    if (srlpy_u64_arg(seed, 1, &st.seed, "seed") || srlpy_kind_arg(rng, &st.kind, "rng") ||
        train_config(&tc, so, opt, &st))
        return NULL;
    OptimState *o = (OptimState *)type->tp_alloc(type, 0);
    if (!o)
        return NULL;
    o->n = (size_t)n;
    o->base = tc.opt;
    o->scratch = malloc((o->n ? o->n : 1) * sizeof(float));
    if (!o->scratch) {
        Py_DECREF(o);
        return PyErr_NoMemory();
    }
    srl_rng writes;
    srl_train_stream(&writes, &tc, "writes");
    srl_weight_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = name;
    spec.ndim = 1;
    spec.shape[0] = o->n;
    srl_err err = {""};
    if (srl_weights_alloc(&o->W, &spec, 1, &tc.strat, tc.opt.kind, &writes, &err) != SRL_OK) {
        Py_DECREF(o);
        return PyErr_Format(PyExc_ValueError, "name: %s", err.msg);
    }
    o->alloc = true;
    return (PyObject *)o;
}

/* A C-contiguous aligned array of n elements of dtype float64, float32 or int16/uint16 (bf16
 * patterns); writeable when asked. Returns its type number, or -1 with an exception. */
static int vec_arg(PyObject *a, size_t n, bool writeable, const char *arg)
{
    if (!PyArray_Check(a)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a numpy array", arg);
        return -1;
    }
    PyArrayObject *x = (PyArrayObject *)a;
    const int t = PyArray_TYPE(x);
    if (t != NPY_DOUBLE && t != NPY_FLOAT && t != NPY_INT16 && t != NPY_UINT16) {
        PyErr_Format(PyExc_TypeError, "%s: expected float64, float32 or int16 (bf16 bits) values",
                     arg);
        return -1;
    }
    if ((size_t)PyArray_SIZE(x) != n) {
        PyErr_Format(PyExc_ValueError, "%s: has %zd elements, the parameter has %zu", arg,
                     PyArray_SIZE(x), n);
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS(x) || !PyArray_ISALIGNED(x) || !PyArray_ISNOTSWAPPED(x) ||
        (writeable && !PyArray_ISWRITEABLE(x))) {
        PyErr_Format(PyExc_ValueError, "%s: must be C-contiguous, aligned, native%s", arg,
                     writeable ? " and writeable" : "");
        return -1;
    }
    return t;
}

static void widen_bf16(float *y, const uint16_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = (uint32_t)b[i] << 16;
        memcpy(&y[i], &u, sizeof u);
    }
}

static PyObject *OptimState_init(PyObject *self, PyObject *arg)
{
    OptimState *o = (OptimState *)self;
    bool sc;
    PyArrayObject *x = srlpy_values_arg_double(arg, "x0", &sc);
    if (!x)
        return NULL;
    if ((size_t)PyArray_SIZE(x) != o->n) {
        Py_DECREF(x);
        return PyErr_Format(PyExc_ValueError, "x0: has %zd elements, the parameter has %zu",
                            PyArray_SIZE(x), o->n);
    }
    srl_err err = {""};
    const int st = srl_weights_init(&o->W, 0, PyArray_DATA(x), &err);
    Py_DECREF(x);
    if (st != SRL_OK)
        return PyErr_Format(PyExc_ValueError, "%s", err.msg);
    Py_RETURN_NONE;
}

/* Copy the caller's parameter values into the weight tensor NAME: exactly when they are values
 * of its format, rounded to nearest otherwise (no draws). */
static PyObject *OptimState_load_param(PyObject *self, PyObject *arg)
{
    OptimState *o = (OptimState *)self;
    const int t = vec_arg(arg, o->n, false, "param");
    if (t < 0)
        return NULL;
    srl_tensor *w = o->W.p[0].w;
    const void *src = PyArray_DATA((PyArrayObject *)arg);
    int st = SRL_OK;
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_DOUBLE) {
        st = srl_tensor_put_d(w, 0, src, o->n, SRL_ROUND_RN, 0);
    } else if (t == NPY_FLOAT) {
        st = srl_tensor_put_f(w, 0, src, o->n, SRL_ROUND_RN, 0);
    } else if (w->storage == SRL_STORAGE_BF16) {
        memcpy(w->data, src, o->n * sizeof(uint16_t));
    } else {
        widen_bf16(o->scratch, src, o->n);
        st = srl_tensor_put_f(w, 0, o->scratch, o->n, SRL_ROUND_RN, 0);
    }
    Py_END_ALLOW_THREADS
    if (st != SRL_OK)
        return PyErr_Format(PyExc_RuntimeError, "srlab: writing the parameter failed (%s)",
                            srl_strerror(st));
    Py_RETURN_NONE;
}

/* Write the weight tensor NAME's values into the caller's array, exactly. */
static PyObject *OptimState_store_param(PyObject *self, PyObject *arg)
{
    OptimState *o = (OptimState *)self;
    const int t = vec_arg(arg, o->n, true, "param");
    if (t < 0)
        return NULL;
    srl_tensor *w = o->W.p[0].w;
    if (t == NPY_FLOAT && !srl_format_fits_float(&w->fmt))
        return PyErr_Format(PyExc_ValueError, "param: float32 cannot hold every value of %s",
                            w->fmt.name);
    if ((t == NPY_INT16 || t == NPY_UINT16) && !srlpy_format_fits_bf16(&w->fmt))
        return PyErr_Format(PyExc_ValueError, "param: bfloat16 cannot hold every value of %s",
                            w->fmt.name);
    void *dst = PyArray_DATA((PyArrayObject *)arg);
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_DOUBLE) {
        srl_tensor_get_d(dst, w, 0, o->n);
    } else if (t == NPY_FLOAT) {
        srl_tensor_get_f(dst, w, 0, o->n);
    } else if (w->storage == SRL_STORAGE_BF16) {
        memcpy(dst, w->data, o->n * sizeof(uint16_t));
    } else {
        srl_tensor_get_f(o->scratch, w, 0, o->n);
        uint16_t *b = dst;
        for (size_t i = 0; i < o->n; i++) {
            uint32_t u;
            memcpy(&u, &o->scratch[i], sizeof u);
            b[i] = (uint16_t)(u >> 16); /* exact: the value is a bf16 number */
        }
    }
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static int step_arg(PyObject *o, uint64_t *t)
{
    if (srlpy_u64_arg(o, 0, t, "step"))
        return -1;
    if (*t == 0) {
        PyErr_SetString(PyExc_ValueError, "step: steps count from 1");
        return -1;
    }
    return 0;
}

/* Write the gradient for step t: rounded into the grad slot with draws (t-1) n + i of
 * NAME.grad's stream, as a problem of `srlab train` writes it (srl_weights_set_grad_*). */
static PyObject *OptimState_set_grad(PyObject *self, PyObject *args)
{
    OptimState *o = (OptimState *)self;
    PyObject *g, *to;
    if (!PyArg_ParseTuple(args, "OO:set_grad", &g, &to))
        return NULL;
    uint64_t t;
    const int ty = vec_arg(g, o->n, false, "grad");
    if (ty < 0 || step_arg(to, &t))
        return NULL;
    const void *src = PyArray_DATA((PyArrayObject *)g);
    int st;
    Py_BEGIN_ALLOW_THREADS
    if (ty == NPY_DOUBLE) {
        st = srl_weights_set_grad_d(&o->W, 0, src, t);
    } else if (ty == NPY_FLOAT) {
        st = srl_weights_set_grad_f(&o->W, 0, src, t);
    } else {
        widen_bf16(o->scratch, src, o->n);
        st = srl_weights_set_grad_f(&o->W, 0, o->scratch, t);
    }
    Py_END_ALLOW_THREADS
    if (st != SRL_OK)
        return PyErr_Format(PyExc_RuntimeError, "srlab: writing the gradient failed (%s)",
                            srl_strerror(st));
    Py_RETURN_NONE;
}

static PyObject *OptimState_step(PyObject *self, PyObject *args, PyObject *kw)
{
    OptimState *o = (OptimState *)self;
    static char *kwlist[] = {"step", "lr", "beta1", "beta2", "eps", "weight_decay", "momentum",
                             NULL};
    PyObject *to;
    double lr, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0, mu = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Od|ddddd:step", kwlist, &to, &lr, &b1, &b2, &eps,
                                     &wd, &mu))
        return NULL;
    uint64_t t;
    if (step_arg(to, &t))
        return NULL;
    if (!(lr >= 0) || !isfinite(lr))
        return PyErr_Format(PyExc_ValueError, "lr: %g is not a non-negative finite learning rate",
                            lr);
    srl_optim_config c = o->base;
    c.lr = lr > 0 ? lr : 1.0; /* the check wants a positive peak; the step takes lr itself */
    c.momentum = mu;
    c.beta1 = b1;
    c.beta2 = b2;
    c.eps = eps;
    c.wd = wd;
    c.warmup = 0;
    c.lr_min = 0;
    c.steps = t;
    srl_err err = {""};
    if (srl_optim_config_check(&c, &err) != SRL_OK) {
        /* The library names its keys as `srlab train` does (wd, beta1, ...); say which torch
         * argument that is. */
        const char *arg = !strncmp(err.msg, "wd:", 3)      ? "weight_decay"
                          : !strncmp(err.msg, "beta1:", 6) ? "betas[0]"
                          : !strncmp(err.msg, "beta2:", 6) ? "betas[1]"
                          : !strncmp(err.msg, "eps:", 4)   ? "eps"
                          : !strncmp(err.msg, "momentum:", 9) ? "momentum"
                                                           : "lr";
        return PyErr_Format(PyExc_ValueError, "%s: %s", arg, err.msg);
    }
    srl_step_stats s = {0, 0, 0};
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = srl_optim_step(&s, &o->W, &c, t, lr);
    Py_END_ALLOW_THREADS
    if (st != SRL_OK)
        return PyErr_Format(PyExc_RuntimeError, "srlab: the optimizer step failed (%s)",
                            srl_strerror(st));
    return Py_BuildValue("(KKK)", (unsigned long long)s.lost, (unsigned long long)s.nonfinite,
                         (unsigned long long)s.nonfinite_grad);
}

static srl_tensor *which_tensor(OptimState *o, const char *which)
{
    srl_weight *p = &o->W.p[0];
    if (!strcmp(which, "param"))
        return p->w;
    if (!strcmp(which, "grad"))
        return p->g;
    if (!strcmp(which, "m"))
        return p->m;
    if (!strcmp(which, "v"))
        return p->v;
    if (!strcmp(which, "master"))
        return p->master;
    if (!strcmp(which, "comp"))
        return p->comp;
    return NULL;
}

static int known_which(const char *which)
{
    static const char *const names[] = {"param", "grad", "m", "v", "master", "comp", NULL};
    for (int k = 0; names[k]; k++)
        if (!strcmp(which, names[k]))
            return 1;
    return 0;
}

/* A numpy view (no copy) of a tensor's storage: int16 for bf16 patterns, float32, float64; it
 * keeps this object alive. None when the strategy has no such tensor. */
static PyObject *OptimState_tensor(PyObject *self, PyObject *args)
{
    OptimState *o = (OptimState *)self;
    const char *which;
    PyObject *wo;
    if (!PyArg_ParseTuple(args, "O:tensor", &wo) || srlpy_text_arg(wo, &which, "which", "a str"))
        return NULL;
    if (!known_which(which))
        return PyErr_Format(PyExc_ValueError,
                            "which: '%s' is not one of param, grad, m, v, master, comp", which);
    srl_tensor *t = which_tensor(o, which);
    if (!t)
        Py_RETURN_NONE;
    const int type = t->storage == SRL_STORAGE_BF16   ? NPY_INT16
                     : t->storage == SRL_STORAGE_F32 ? NPY_FLOAT
                                                     : NPY_DOUBLE;
    npy_intp dim = (npy_intp)t->n;
    PyObject *a = PyArray_SimpleNewFromData(1, &dim, type, t->data);
    if (!a)
        return NULL;
    Py_INCREF(self);
    if (PyArray_SetBaseObject((PyArrayObject *)a, self) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* (format, rounding, seed, stream id) of a tensor: its write stream, for tests that draw the
 * same numbers (srlab.draws(n, seed, stream, counter=(t-1)*n)). */
static PyObject *OptimState_stream(PyObject *self, PyObject *args)
{
    OptimState *o = (OptimState *)self;
    const char *which;
    PyObject *wo;
    if (!PyArg_ParseTuple(args, "O:stream", &wo) || srlpy_text_arg(wo, &which, "which", "a str"))
        return NULL;
    if (!known_which(which))
        return PyErr_Format(PyExc_ValueError,
                            "which: '%s' is not one of param, grad, m, v, master, comp", which);
    srl_tensor *t = which_tensor(o, which);
    if (!t)
        Py_RETURN_NONE;
    return Py_BuildValue("(KKs)", (unsigned long long)t->rng.seed,
                         (unsigned long long)t->rng.stream,
                         t->rng.kind == SRL_RNG_PCG64 ? "pcg64" : "pcg32");
}

static PyObject *OptimState_values(PyObject *self, PyObject *unused)
{
    (void)unused;
    OptimState *o = (OptimState *)self;
    npy_intp dim = (npy_intp)o->n;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    if (a)
        srl_weights_values(PyArray_DATA(a), &o->W, 0);
    return (PyObject *)a;
}

static PyObject *OptimState_get_n(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(((OptimState *)self)->n);
}

static PyObject *OptimState_get_name(PyObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(((OptimState *)self)->W.p[0].w->name);
}

static PyObject *OptimState_get_bytes(PyObject *self, void *c)
{
    (void)c;
    return PyFloat_FromDouble(srl_weights_bytes_per_param(&((OptimState *)self)->W));
}

static PyMethodDef OptimState_methods[] = {
    {"init", OptimState_init, METH_O,
     "init(x0)\n--\n\nsrl_weights_init: master and weight x0 rounded to nearest into their\n"
     "formats (the weight the cast of the master), moments and compensation +0."},
    {"load_param", OptimState_load_param, METH_O,
     "load_param(a)\n--\n\nCopy a (float64, float32 or int16 bf16 patterns) into the weight tensor:\n"
     "exactly for values of its format, rounded to nearest otherwise."},
    {"store_param", OptimState_store_param, METH_O,
     "store_param(a)\n--\n\nWrite the weight tensor's values into a, exactly."},
    {"set_grad", OptimState_set_grad, METH_VARARGS,
     "set_grad(g, step)\n--\n\nWrite the gradient of step `step` (srl_weights_set_grad_*)."},
    {"step", (PyCFunction)(void (*)(void))OptimState_step, METH_VARARGS | METH_KEYWORDS,
     "step(step, lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0, momentum=0)\n--\n\n"
     "srl_optim_step number `step` with learning rate lr; returns (lost, nonfinite,\n"
     "nonfinite_grad) of include/srlab/optim.h's srl_step_stats."},
    {"tensor", OptimState_tensor, METH_VARARGS,
     "tensor(which)\n--\n\nA numpy view of the storage of param, grad, m, v, master or comp (int16\n"
     "bf16 patterns, float32 or float64), or None."},
    {"stream", OptimState_stream, METH_VARARGS,
     "stream(which)\n--\n\n(seed, stream id, kind) of a tensor's write stream, or None."},
    {"values", OptimState_values, METH_NOARGS,
     "values()\n--\n\nThe parameter values in float64, exactly: the master if any, else the weight."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef OptimState_getset[] = {
    {"n", OptimState_get_n, NULL, "Number of elements.", NULL},
    {"name", OptimState_get_name, NULL, "The weight's name (its tensors' stream keys).", NULL},
    {"bytes_per_param", OptimState_get_bytes, NULL,
     "Bytes per parameter actually allocated (srl_weights_bytes_per_param).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject srlpy_OptimStateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "srlab._core._OptimState",
    .tp_basicsize = sizeof(OptimState),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_OptimState(name, n, strategy, seed=1, *, rng='pcg32', opt='adamw')\n--\n\n"
              "Internal (srlab.torch): the library's optimizer state of one parameter of n\n"
              "elements called name, under a precision strategy, with the write streams\n"
              "`srlab train --seed seed` gives a weight of that name.",
    .tp_new = OptimState_new,
    .tp_dealloc = OptimState_dealloc,
    .tp_methods = OptimState_methods,
    .tp_getset = OptimState_getset,
};
