"""Every wrong argument raises a Python exception that names it (ValueError for a bad value,
TypeError for a bad type), with the library's message where the library judges; never a
crash; nothing is written to `out` when a call fails."""

import re

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
        (lambda: srlab.round(x, "bf16", "sideways"), ValueError,
         r"^rounding: unknown rounding mode 'sideways'"),
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
        (lambda: srlab.Stream(seed=-1), ValueError, r"^seed: must be an integer in \[0, 2\^64\)"),
        (lambda: srlab.Stream(seed=2 ** 64), ValueError, r"^seed: "),
        (lambda: srlab.Stream(seed=1.5), TypeError, r"^seed: expected an integer"),
        (lambda: srlab.round(x, stream="0"), TypeError, r"^stream: expected an srlab.Stream"),
        (lambda: srlab.Stream(counter=-5), ValueError, r"^counter: "),
        (lambda: srlab.round(x, stream=srlab.Stream(counter=2 ** 64 - 3)), ValueError,
         r"^counter: .*2\^64"),
        (lambda: srlab.Stream(rng="mt"), ValueError, r"^rng: unknown generator 'mt'"),
        # the calls of the API before Stream say what to write now
        (lambda: srlab.round(x, "bf16", "sr", seed=3), TypeError,
         r"^srlab.round: 'seed=' was replaced by a stream: write srlab.round\(\.\.\., "
         r"stream=srlab.Stream\(seed=S"),
        (lambda: srlab.round(x, "bf16", "sr", counter=3), TypeError, r"'counter=' was replaced"),
        (lambda: srlab.op("add", x, x, rng="pcg64"), TypeError,
         r"^srlab.op: 'rng=' was replaced"),
        (lambda: srlab.gemm(x3, x3.T, None, seed=1), TypeError, r"^srlab.gemm: 'seed='"),
        (lambda: srlab.round(x, "bf16", "sr", 7), TypeError,
         r"^stream: expected an srlab.Stream or None, got an int; the seed, stream id and "
         r"counter are one srlab.Stream now"),
        (lambda: srlab.round(x, stream=1), TypeError, r"^stream: .*got an int"),
        (lambda: srlab.round(x, out=[0.0] * 12), TypeError, r"^out: expected a numpy.ndarray"),
        (lambda: srlab.round(x, out=np.zeros(12, np.int64)), TypeError, r"^out: expected dtype"),
        (lambda: srlab.round(x, out=np.zeros(11)), ValueError, r"^out: has shape \(11,\), the "
                                                              r"result has shape \(12,\)"),
        (lambda: srlab.round(x, out=nc), ValueError, r"^out: is not C-contiguous"),
        (lambda: srlab.round(x, out=ro), ValueError, r"^out: is read-only"),
        (lambda: srlab.round(x, "fp64", out=np.zeros(12, np.float32)), ValueError,
         r"^out: float32 cannot hold every value of format fp64"),
        (lambda: srlab.round(x, "bf16", "rn", None, None, "pcg32"), TypeError, r"at most 5"),
        (lambda: srlab.round(x, formt="bf16"), TypeError, r"formt"),
        (lambda: srlab.explain(x, "bf16", "sr", seed=-2), TypeError, r"^srlab.explain: 'seed='"),
        (lambda: srlab.explain("0.1"), TypeError, r"^x: "),
        (lambda: srlab.draws(-1), ValueError, r"^n: "),
        (lambda: srlab.draws(10, srlab.Stream(counter=2 ** 64 - 5)), ValueError, r"^counter: "),
        (lambda: srlab.draws(10, counter=5), TypeError, r"^srlab.draws: 'counter='"),
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
        (lambda: srlab.strategy_info({"param-rounding": "sideways"}), ValueError,
         r"^strategy: .*sideways"),
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
        lambda: srlab.round(X, "bf16", "sr", seed=1, out=out),
        lambda: srlab.round(X, "bf16", "sr", srlab.Stream(counter=2 ** 64 - 1), out=out),
        lambda: srlab.round(X, "bf16", "sr", 5, out=out),
        lambda: srlab.round(np.arange(12), "bf16", out=out),
        lambda: srlab.op("fma", X, X, None, out=out),
        lambda: srlab.op("add", X, X, None, "bf16", "sr", -3, out=out),
        lambda: srlab.op("add", X, X, None, "fp64", out=out.astype(np.float32)),
    ]
    s = srlab.default_stream()
    for call in failing:
        before = s.counter
        with pytest.raises((ValueError, TypeError)):
            call()
        assert out.tobytes() == sentinel.tobytes() and s.counter == before
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
    s = srlab.Stream(counter=2 ** 64 - 1)
    assert srlab.round(empty, "bf16", "sr", s).shape == (0, 3) and s.counter == 2 ** 64 - 1
    assert srlab.sum(np.zeros(0), "acc=bf16:rn") == 0.0
    assert srlab.gemm(np.zeros((2, 0)), np.zeros((0, 3))).shape == (2, 3)


# Issue 28, item 5: the library reads C strings, so a NUL would cut a text argument short and
# drop the rest silently ('prod=bf16:rn\0,acc=bf16:sr' ran with a binary64 accumulator). Every
# text argument is refused, naming it and the NUL's offset.
NUL_CASES = [
    ("accum", lambda: srlab.gemm(X.reshape(3, 4), X.reshape(4, 3), "prod=bf16:rn\0,acc=bf16:sr")),
    ("accum", lambda: srlab.sum(X, "acc=bf16:rn\0,order=pairwise")),
    ("accum", lambda: srlab.accum_name("acc=bf16:sr\0")),
    ("format", lambda: srlab.round(X, "bf16\0fp16", "rn")),
    ("format", lambda: srlab.op("add", X, X, format="p=5,emax=7\0,subnormals=off")),
    ("spec", lambda: srlab.Format("e4m3\0,saturate=on")),
    ("rounding", lambda: srlab.round(X, "bf16", "sr\0:r=3")),
    ("rounding", lambda: srlab.explain(X, "bf16", "rn\0")),
    ("name", lambda: srlab.op("add\0", X, X)),
    ("rng", lambda: srlab.Stream(rng="pcg64\0")),
    ("key", lambda: srlab.Stream().derive("a\0b")),
    ("strategy", lambda: srlab.strategy_info("bf16-sr\0")),
    ("strategy", lambda: srlab.strategy_info({"strategy\0": "mp"})),
    ("strategy['param-rounding']",
     lambda: srlab.strategy_info({"strategy": "bf16-sr", "param-rounding": "rd\0x"})),
    ("name", lambda: srlab._core._OptimState("w\0x", 3, "bf16-sr")),
    ("opt", lambda: srlab._core._OptimState("w", 3, "bf16-sr", opt="sgd\0")),
]


@pytest.mark.parametrize("arg,call", NUL_CASES, ids=[f"{c[0]}-{k}" for k, c in
                                                     enumerate(NUL_CASES)])
def test_a_nul_in_any_text_argument_is_refused(arg, call):
    with pytest.raises(ValueError, match=rf"^{re.escape(arg)}: contains a NUL character at "
                                         rf"offset \d+; text arguments may not contain NUL"):
        call()


def test_the_nul_case_of_the_issue_would_change_the_result():
    """Without the check the accumulator would be lost: the text before the NUL alone is a
    different config (so the test above can fail)."""
    A = np.full((1, 300), 1.0)
    assert srlab.gemm(A, A.T, "prod=bf16:rn,acc=bf16:rn")[0, 0] == 256.0  # bf16 stalls
    assert srlab.gemm(A, A.T, "prod=bf16:rn")[0, 0] == 300.0  # binary64 does not
