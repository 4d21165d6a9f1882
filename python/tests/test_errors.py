"""Every wrong argument raises a Python exception that names it (ValueError for a bad value,
TypeError for a bad type), with the library's message where the library judges; never a
crash; nothing is written to `out` when a call fails."""

import numpy as np
import pytest

import srlab

X = np.linspace(-3, 3, 12)


def bad_cases():
    x, x3 = X, X.reshape(3, 4)
    ro = X.copy()
    ro.flags.writeable = False
    nc = np.zeros(24)[::2]
    return [
        # (call, exception, regex the message must match)
        (lambda: srlab.round(x, "bf17"), ValueError, r"^format: unknown format 'bf17'; known:"),
        (lambda: srlab.round(x, "p=1,emax=7"), ValueError, r"^format: .*p"),
        (lambda: srlab.round(x, "p=5,emax=7,foo=1"), ValueError, r"^format: .*foo"),
        (lambda: srlab.round(x, 3), TypeError, r"^format: expected"),
        (lambda: srlab.round(x, "bf16", "nearest"), ValueError,
         r"^rounding: unknown rounding mode 'nearest'"),
        (lambda: srlab.round(x, "bf16", "sr:r=65"), ValueError, r"^rounding: .*R"),
        (lambda: srlab.round(x, "bf16", None), TypeError, r"^rounding: expected"),
        (lambda: srlab.round(np.arange(4), "bf16"), TypeError, r"^x: expected float32 or float64 "
                                                               r"values, got dtype int64"),
        (lambda: srlab.round(np.ones(3, np.float16)), TypeError, r"^x: .*float16"),
        (lambda: srlab.round(np.ones(3, np.complex128)), TypeError, r"^x: .*complex128"),
        (lambda: srlab.round(["a", "b"]), TypeError, r"^x: "),
        (lambda: srlab.round(True), TypeError, r"^x: .*bool"),
        (lambda: srlab.round(2 ** 60 + 1), ValueError, r"^x: the integer is not exactly"),
        (lambda: srlab.round(object()), TypeError, r"^x: "),
        (lambda: srlab.round(x, seed=-1), ValueError, r"^seed: must be an integer in \[0, 2\^64\)"),
        (lambda: srlab.round(x, seed=2 ** 64), ValueError, r"^seed: "),
        (lambda: srlab.round(x, seed=1.5), TypeError, r"^seed: expected an integer"),
        (lambda: srlab.round(x, stream="0"), TypeError, r"^stream: "),
        (lambda: srlab.round(x, counter=-5), ValueError, r"^counter: "),
        (lambda: srlab.round(x, counter=2 ** 64 - 3), ValueError, r"^counter: .*2\^64"),
        (lambda: srlab.round(x, rng="mt"), ValueError, r"^rng: unknown generator 'mt'"),
        (lambda: srlab.round(x, out=[0.0] * 12), TypeError, r"^out: expected a numpy.ndarray"),
        (lambda: srlab.round(x, out=np.zeros(12, np.int64)), TypeError, r"^out: expected dtype"),
        (lambda: srlab.round(x, out=np.zeros(11)), ValueError, r"^out: has shape \(11,\), the "
                                                              r"result has shape \(12,\)"),
        (lambda: srlab.round(x, out=nc), ValueError, r"^out: is not C-contiguous"),
        (lambda: srlab.round(x, out=ro), ValueError, r"^out: is read-only"),
        (lambda: srlab.round(x, "fp64", out=np.zeros(12, np.float32)), ValueError,
         r"^out: float32 cannot hold every value of format fp64"),
        (lambda: srlab.round(x, "bf16", "rn", 1, 0, 0, None, "pcg32"), TypeError, r"at most 7"),
        (lambda: srlab.round(x, formt="bf16"), TypeError, r"formt"),
        (lambda: srlab.explain(x, "bf16", "sr", seed=-2), ValueError, r"^seed: "),
        (lambda: srlab.explain("0.1"), TypeError, r"^x: "),
        (lambda: srlab.draws(-1), ValueError, r"^n: "),
        (lambda: srlab.draws(10, counter=2 ** 64 - 5), ValueError, r"^counter: "),
        (lambda: srlab.op("pow", x, x), ValueError, r"^name: unknown operation 'pow'"),
        (lambda: srlab.op(1, x, x), TypeError, r"^name: expected"),
        (lambda: srlab.op("add", x), TypeError, r"^b: add takes 2 operands \(a, b\); b is "
                                                r"missing"),
        (lambda: srlab.op("fma", x, x), TypeError, r"^c: fma takes 3 operands"),
        (lambda: srlab.op("sqrt", x, x), TypeError, r"^b: sqrt takes 1 operand \(a\)"),
        (lambda: srlab.op("add", x, x, x), TypeError, r"^c: add takes 2 operands"),
        (lambda: srlab.op("add", x, np.ones(5)), ValueError, r"^a, b: shapes \(12,\) \(5,\) "
                                                             r"cannot be broadcast"),
        (lambda: srlab.op("mul", x, np.arange(12)), TypeError, r"^b: expected float32"),
        (lambda: srlab.op("mul", x, x, out=np.zeros((12, 1))), ValueError, r"^out: has shape"),
        (lambda: srlab.explain_op("div", x, x3), ValueError, r"^a, b: shapes"),
        (lambda: srlab.sum(x3), ValueError, r"^x: expected a 1-dimensional array"),
        (lambda: srlab.sum(x, "acc=bf16:zz"), ValueError, r"^accum: "),
        (lambda: srlab.sum(x, "acc=bf16:rn,order=pairwise,kahan=on"), ValueError, r"^accum: "),
        (lambda: srlab.sum(x, 5), TypeError, r"^accum: expected"),
        (lambda: srlab.dot(x, x[:5]), ValueError, r"^y: has 5 elements, x has 12"),
        (lambda: srlab.gemv(x3, x), ValueError, r"^x: has 12 elements, A has 4 columns"),
        (lambda: srlab.gemm(x3, x3), ValueError, r"^B: has 3 rows, A has 4 columns"),
        (lambda: srlab.gemm(x, x3), ValueError, r"^A: expected a 2-dimensional array"),
        (lambda: srlab.Format("fp8"), ValueError, r"^spec: unknown format 'fp8'"),
        (lambda: srlab.Format(None), TypeError, r"^spec: "),
        (lambda: srlab.Format("bf16").ulp("1"), TypeError, r"^x: expected a float"),
        (lambda: srlab.strategy_info("bf32"), ValueError, r"^strategy: "),
        (lambda: srlab.strategy_info({"strategy": "mp", "param-round": "rd"}), ValueError,
         r"^strategy: unknown key 'param-round'"),
        (lambda: srlab.strategy_info({"param-rounding": "nearest"}), ValueError,
         r"^strategy: .*nearest"),
        (lambda: srlab.strategy_info(["mp"]), TypeError, r"^strategy: expected"),
        (lambda: srlab.set_threads(0), ValueError, r"^n: "),
        (lambda: srlab.set_threads("2"), TypeError, r"^n: "),
        (lambda: srlab.accum_name("prod=bf16"), None, None),  # valid: keeps the mode
    ]


@pytest.mark.parametrize("case", range(len(bad_cases())))
def test_bad_argument_raises_naming_it(case):
    call, exc, pattern = bad_cases()[case]
    if exc is None:
        call()
        return
    with pytest.raises(exc, match=pattern):
        call()


def test_nothing_is_written_to_out_on_failure():
    sentinel = np.full(12, 7.25)
    out = sentinel.copy()
    failing = [
        lambda: srlab.round(X, "bf17", out=out),
        lambda: srlab.round(X, "bf16", "xx", out=out),
        lambda: srlab.round(X, "bf16", "sr", seed=-1, out=out),
        lambda: srlab.round(X, "bf16", "sr", counter=2 ** 64 - 1, out=out),
        lambda: srlab.round(X, "bf16", "sr", rng="x", out=out),
        lambda: srlab.round(np.arange(12), "bf16", out=out),
        lambda: srlab.op("fma", X, X, None, out=out),
        lambda: srlab.op("add", X, X, None, "bf16", "sr", -3, out=out),
        lambda: srlab.op("add", X, X, None, "fp64", out=out.astype(np.float32)),
    ]
    for call in failing:
        with pytest.raises((ValueError, TypeError)):
            call()
        assert out.tobytes() == sentinel.tobytes()
    # and the same out is written by a valid call
    srlab.round(X, "bf16", "rn", out=out)
    assert out.tobytes() != sentinel.tobytes()


def test_special_values_never_crash():
    weird = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, 1.7976931348623157e308])
    for fmt in ("bf16", "e4m3", "e4m3,saturate=on", "p=2,emax=1,inf=off,subnormals=off", "fp64"):
        for mode in ("rn", "ro", "sr", "sr:r=64", "sr-eq"):
            srlab.round(weird, fmt, mode)
            srlab.explain(weird, fmt, mode)
            for op in ("add", "sub", "mul", "div"):
                srlab.op(op, weird[:, None], weird[None, :], None, fmt, mode)
            srlab.op("sqrt", weird, None, None, fmt, mode)
            srlab.op("fma", weird[:, None, None], weird[None, :, None], weird[None, None, :],
                     fmt, mode)
    empty = np.zeros((0, 3))
    assert srlab.round(empty, "bf16", "rn").shape == (0, 3)
    assert srlab.round(empty, "bf16", "sr", counter=2 ** 64 - 1)[1] == 2 ** 64 - 1
    assert srlab.sum(np.zeros(0), "acc=bf16:rn") == 0.0
    assert srlab.gemm(np.zeros((2, 0)), np.zeros((0, 3))).shape == (2, 3)
