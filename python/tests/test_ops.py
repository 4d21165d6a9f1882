"""srlab.op / explain_op against `srlab op --batch`, and the kernels (sum, dot, gemv, gemm)
against their definition in include/srlab/kernels.h written out with srlab.op and srlab.round."""

import numpy as np
import pytest

import srlab
from conftest import assert_same_bits, csv_rows, format_values, hexline, run

SEED = 424242
OPS = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "div": 2, "sqrt": 1}
OP_FORMATS = ["bf16", "e4m3", "fp32", "p=5,emax=7,subnormals=off"]
OP_MODES = ["rn", "ru", "ro", "sr", "sr:r=3"]


def operands(fmt, arity, rng, n=2500):
    pool = format_values(srlab.Format(fmt), rng, n_random=500)
    return [rng.choice(pool, size=n) for _ in range(arity)]


def cli_op(cli, op, fmt, mode, ops):
    lines = "\n".join(",".join(hexline(v) for v in row) for row in zip(*ops)) + "\n"
    out = run([cli, "op", op, "--batch", "-f", fmt, "-r", mode, "--seed", str(SEED), "--quiet"],
              lines)
    rows = csv_rows(out)
    assert len(rows) == len(ops[0])
    col = lambda k: np.array([float.fromhex(r[k]) for r in rows])  # noqa: E731
    return {"rd": col(6), "ru": col(7), "p_up": np.array([float(r[8]) for r in rows]),
            "result": col(9)}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("fmt", OP_FORMATS)
def test_op_matches_cli_batch(cli, op, fmt):
    rng = np.random.default_rng([SEED, len(op), len(fmt)])
    ops = operands(fmt, OPS[op], rng)
    args = ops + [None] * (3 - len(ops))
    for mode in OP_MODES:
        ref = cli_op(cli, op, fmt, mode, ops)
        s = srlab.Stream(SEED)
        got = srlab.op(op, *args, format=fmt, rounding=mode, stream=s)
        assert s.counter == (len(ops[0]) if mode.startswith("sr") else 0)
        assert_same_bits(got, ref["result"], f"op {op} {fmt} {mode}")
        e = srlab.explain_op(op, *args, format=fmt, rounding=mode, stream=srlab.Stream(SEED))
        for k in ("rd", "ru", "p_up", "result"):
            assert_same_bits(getattr(e, k), ref[k], f"explain_op {k} {op} {fmt} {mode}")


def test_op_broadcasts_in_c_order():
    a = np.linspace(0.1, 3.0, 7)[:, None]
    b = np.linspace(-2.0, 5.0, 11)[None, :]
    s = srlab.Stream(3, counter=9)
    got = srlab.op("div", a, b, format="bf16", rounding="sr", stream=s)
    assert got.shape == (7, 11) and s.counter == 9 + 77
    A, B = np.broadcast_arrays(a, b)
    want = srlab.op("div", A.ravel(), B.ravel(), format="bf16", rounding="sr",
                    stream=srlab.Stream(3, counter=9))
    assert got.ravel().tobytes() == want.tobytes()
    s = srlab.op("sqrt", 2.0, format="fp16", rounding="rn")
    assert isinstance(s, np.float64) and s == np.float16(np.sqrt(2.0))
    f32 = srlab.op("add", np.float32([1, 2]), np.float32([2.0 ** -30, 3]), format="bf16",
                   rounding="rn")
    assert f32.dtype == np.float32
    # exactness: 1 + 2^-200 into fp32 goes up with probability exactly 2^-177
    assert srlab.explain_op("add", 1.0, 2.0 ** -200, format="fp32", rounding="sr").p_up == \
        2.0 ** -177


# ---- kernels: the definition of include/srlab/kernels.h, written out ----

def rnd(v, fmt, mode, k):
    """round_acc(v) with draw index k (a start rounding)."""
    return float(srlab.round(float(v), fmt, mode, srlab.Stream(SEED, counter=k)))


def opd(name, a, b, c, fmt, mode, k):
    return float(srlab.op(name, a, b, c, fmt, mode, srlab.Stream(SEED, counter=k)))


def ref_sum(t, fmt, mode, order, base, block=None, xy=None):
    """Sum of terms t; with xy=(x, y) and fma the terms are the exact products x_i y_i."""
    n = len(t)

    def start(i):
        if xy is not None:
            return opd("mul", xy[0][i], xy[1][i], None, fmt, mode, base + i)
        return rnd(t[i], fmt, mode, base + i)

    def add(s, i, k):
        if xy is not None:
            return opd("fma", xy[0][i], xy[1][i], s, fmt, mode, k)
        return opd("add", s, t[i], None, fmt, mode, k)

    if n == 0:
        return 0.0
    if order == "recursive":
        s = start(0)
        for i in range(1, n):
            s = add(s, i, base + i)
        return s
    if order == "blocked":
        sums = []
        for b0 in range(0, n, block):
            s = start(b0)
            for i in range(b0 + 1, min(n, b0 + block)):
                s = add(s, i, base + i)
            sums.append(s)
        s = sums[0]
        for b in range(1, len(sums)):
            s = opd("add", s, sums[b], None, fmt, mode, base + n + b - 1)
        return s
    if order == "pairwise":
        def rec(a, b):
            if b - a == 1:
                return start(a)
            h = 1
            while 2 * h < b - a:
                h *= 2
            m = a + h
            left, right = rec(a, m), rec(m, b)
            return opd("add", left, right, None, fmt, mode, base + n + m - 1)
        return rec(0, n)
    if order == "kahan":
        s, c = start(0), 0.0
        for i in range(1, n):
            k = base + 4 * i - 3
            if xy is not None:
                y = opd("fma", xy[0][i], xy[1][i], -c, fmt, mode, k)
            else:
                y = opd("sub", t[i], c, None, fmt, mode, k)
            tt = opd("add", s, y, None, fmt, mode, k + 1)
            z = opd("sub", tt, s, None, fmt, mode, k + 2)
            c = opd("sub", z, y, None, fmt, mode, k + 3)
            s = tt
        return s
    raise ValueError(order)


ACCUMS = [
    ("acc=bf16:sr", "recursive", None),
    ("acc=fp16:sr:r=4,order=pairwise", "pairwise", None),
    ("acc=bf16:sr,order=blocked:5", "blocked", 5),
    ("acc=e5m2:sr,kahan=on", "kahan", None),
    ("acc=bf16:rn,order=pairwise", "pairwise", None),
]


@pytest.mark.parametrize("spec,order,block", ACCUMS)
def test_sum_follows_its_definition(spec, order, block):
    x = np.random.default_rng(7).standard_normal(37)
    fmt, mode = spec.split(",")[0][4:].split(":", 1)
    s = srlab.Stream(SEED)
    got = srlab.sum(x, spec, s)
    n = len(x)
    draws = {"recursive": n, "pairwise": 2 * n - 1, "blocked": n + -(-n // (block or 1)) - 1,
             "kahan": 4 * n - 3}[order]
    assert s.counter == (draws if mode.startswith("sr") else 0)
    assert got == ref_sum(x, fmt, mode, order, 0, block)


@pytest.mark.parametrize("fma", [False, True])
def test_dot_follows_its_definition(fma):
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal(29), rng.standard_normal(29)
    spec = "prod=bf16:sr,acc=bf16:sr" + (",fma=on" if fma else "")
    s = srlab.Stream(SEED, counter=100)
    got = srlab.dot(x, y, spec, s)
    c = s.counter
    n = len(x)
    if fma:
        want = ref_sum([0.0] * n, "bf16", "sr", "recursive", 100, xy=(x, y))
        assert c == 100 + n
    else:
        t = [opd("mul", x[i], y[i], None, "bf16", "sr", 100 + i) for i in range(n)]
        want = ref_sum(t, "bf16", "sr", "recursive", 100 + n)
        assert c == 100 + 2 * n
    assert got == want


def test_gemm_gemv_are_blocks_of_dots():
    rng = np.random.default_rng(9)
    A, B = rng.standard_normal((4, 13)), rng.standard_normal((13, 3))
    spec = "prod=bf16:sr,acc=fp16:sr,order=pairwise"
    D = 13 + (2 * 13 - 1)
    S = srlab.Stream
    s = S(SEED, counter=5)
    C = srlab.gemm(A, B, spec, s)
    assert C.shape == (4, 3) and s.counter == 5 + 12 * D == 5 + srlab.gemm_draws(4, 3, 13, spec)
    for i in range(4):
        for j in range(3):
            d = srlab.dot(A[i], B[:, j], spec, S(SEED, counter=5 + (i * 3 + j) * D))
            assert C[i, j] == d
    s = S(SEED, counter=5)
    y = srlab.gemv(A, B[:, 0], spec, s)
    assert s.counter == 5 + 4 * D
    for i in range(4):
        d = srlab.dot(A[i], B[:, 0], spec, S(SEED, counter=5 + i * D))
        assert y[i] == d
    # float32 in, float32 out when acc fits binary32 (the library's binary32 kernel), the same
    # bits as the binary64 kernel on the same values; large enough for the vector lanes
    for shape_a, shape_b in (((4, 13), (13, 3)), ((37, 70), (70, 45))):
        A = rng.standard_normal(shape_a).astype(np.float32)
        B = rng.standard_normal(shape_b).astype(np.float32)
        for sp in (spec, "prod=bf16:rn,acc=fp32:rn", "prod=e5m2:sr,acc=bf16:sr:r=9,fma=on"):
            C32 = srlab.gemm(A, B, sp, S(SEED, counter=5))
            C64 = srlab.gemm(A.astype(np.float64), B.astype(np.float64), sp, S(SEED, counter=5))
            assert C32.dtype == np.float32 and np.array_equal(C32.astype(np.float64), C64), sp
    # deterministic configs return the value alone; binary64 by default is a plain loop
    assert srlab.dot(np.ones(3), np.ones(3)) == 3.0
    assert srlab.accum_name(None) == \
        "prod=fp64:rn,acc=fp64:rn,fma=off,order=recursive,kahan=off"
