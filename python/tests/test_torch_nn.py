"""srlab.torch.matmul and srlab.torch.nn.Linear: the forward product and both backward products
follow the accumulation config bit for bit (against the C library's srlab.gemm with the
documented draws, and against `srlab op mul --batch`), on 1 and 2 threads."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (Debian: apt-get install python3-torch): the torch "
                    "tests are skipped")

import srlab  # noqa: E402
import srlab.torch as st  # noqa: E402
from conftest import csv_rows, hexline, run  # noqa: E402

ACCUMS = ["prod=bf16:rn,acc=bf16:sr,order=pairwise", "prod=e4m3:sr,acc=fp16:sr:r=7",
          "prod=bf16:rn,acc=fp32:rn,order=blocked:8", "acc=bf16:sr,fma=on,kahan=on"]


def gemm_ref(a, b, accum, seed, counter):
    """srlab.gemm (the C library) on the operands' values, in binary64."""
    s = srlab.Stream(seed, counter=counter)
    return srlab.gemm(a.detach().double().numpy(), b.detach().double().numpy(), accum, s)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("accum", ACCUMS)
def test_matmul_forward_and_backward_follow_the_config(accum, dtype, threads):
    """C = A B and, from one backward, dA = dC B^T and dB = A^T dC, each equal to srlab.gemm
    with the draws reserved at the call: [c, c + D_f) forward, then D_a for dA, then D_b for
    dB (D = gemm_draws of each product); A has a batch dimension, flattened into rows."""
    g = torch.Generator().manual_seed(3)
    A = torch.randn(3, 7, 40, generator=g, dtype=dtype).requires_grad_()
    B = torch.randn(40, 24, generator=g, dtype=dtype).requires_grad_()
    dC = torch.randn(3, 7, 24, generator=g, dtype=dtype)
    before = srlab.threads()
    srlab.set_threads(threads)
    try:
        s = srlab.Stream(21, counter=1000)
        C = st.matmul(A, B, accum, s)
        C.backward(dC)
    finally:
        srlab.set_threads(before)
    m, k, n = 21, 40, 24
    d_f, d_a, d_b = (srlab.gemm_draws(m, n, k, accum), srlab.gemm_draws(m, k, n, accum),
                     srlab.gemm_draws(k, n, m, accum))
    assert s.counter == 1000 + d_f + d_a + d_b
    A2, dC2 = A.detach().reshape(m, k), dC.reshape(m, n)
    want = gemm_ref(A2, B, accum, 21, 1000)
    assert C.shape == (3, 7, 24) and C.dtype == dtype
    assert np.array_equal(C.detach().double().numpy().reshape(m, n), want.astype(dtype_np(dtype)))
    want_a = gemm_ref(dC2, B.detach().t(), accum, 21, 1000 + d_f)
    want_b = gemm_ref(A2.t(), dC2, accum, 21, 1000 + d_f + d_a)
    assert np.array_equal(A.grad.double().numpy().reshape(m, k), cast(want_a, dtype))
    assert np.array_equal(B.grad.double().numpy(), cast(want_b, dtype))


def dtype_np(dtype):
    return np.float32 if dtype == torch.float32 else np.float64


def cast(a, dtype):
    """The kernel's binary64 result stored in the tensor dtype (rounded to nearest by torch when
    the accumulator is wider), as float64 for comparison."""
    return torch.from_numpy(a).to(dtype).double().numpy()


def test_linear_forward_equals_cli_op_mul(cli):
    """Linear(1, n, bias=False) with 'acc=F:M,fma=on': each output x_i w_j is one exact product
    rounded once (start(0) of a one-term sum) with draw (i n + j): `srlab op mul --batch -f F
    -r M --seed S` on the lines x_i,w_j in row-major order, bit for bit."""
    torch.manual_seed(0)
    lin = st.nn.Linear(1, 30, bias=False, accum="acc=bf16:sr,fma=on", stream=srlab.Stream(13),
                       dtype=torch.float64)
    x = torch.randn(50, 1, dtype=torch.float64) * 3
    y = lin(x)
    w = lin.weight.detach()[:, 0].numpy()
    lines = [f"{hexline(xi)},{hexline(wj)}" for xi in x[:, 0].numpy() for wj in w]
    out = run([cli, "op", "mul", "--batch", "-f", "bf16", "-r", "sr", "--seed", "13",
               "--quiet"], "\n".join(lines) + "\n")
    res = np.array([float.fromhex(r[9]) for r in csv_rows(out)])
    assert np.array_equal(y.detach().numpy().reshape(-1), res)
    assert len(set(res)) > 100  # real work, and sr varied it


def test_linear_is_torch_linear_with_the_product_replaced():
    """Same parameters and initialisation as torch.nn.Linear; with a binary64 config the layer
    computes x W^T + b as torch does (the product summed in order, then the bias added); the
    bias gradient is torch's sum; the stream moves by the reserved draws."""
    torch.manual_seed(5)
    ref = torch.nn.Linear(16, 8, dtype=torch.float64)
    torch.manual_seed(5)
    lin = st.nn.Linear(16, 8, accum="prod=fp64:rn,acc=fp64:rn", dtype=torch.float64)
    assert torch.equal(ref.weight, lin.weight) and torch.equal(ref.bias, lin.bias)
    assert isinstance(lin, torch.nn.Linear)
    x = torch.randn(4, 16, dtype=torch.float64)
    y = lin(x)
    assert torch.allclose(y, ref(x), rtol=1e-14, atol=0)
    y.sum().backward()
    assert torch.equal(lin.bias.grad, torch.full((8,), 4.0, dtype=torch.float64))
    s = srlab.Stream(1)
    lin2 = st.nn.Linear(16, 8, accum="prod=bf16:sr,acc=bf16:sr", stream=s)
    lin2(torch.randn(4, 16))
    D = srlab.gemm_draws
    acc = "prod=bf16:sr,acc=bf16:sr"
    assert s.counter == D(4, 8, 16, acc) + D(4, 16, 8, acc) + D(16, 8, 4, acc)
    assert "accum=prod=bf16:sr,acc=bf16:sr" in repr(lin2)


def test_linear_trains_in_low_precision():
    """A two-layer regression with bf16-sr accumulation learns (the loss falls below half its
    initial value in 200 AdamW steps): gradients flow through both products."""
    torch.manual_seed(1)
    s = srlab.Stream(2)
    net = torch.nn.Sequential(st.nn.Linear(8, 32, accum="prod=bf16:rn,acc=bf16:sr",
                                           stream=s.derive("l1")),
                              torch.nn.Tanh(),
                              st.nn.Linear(32, 1, accum="prod=bf16:rn,acc=bf16:sr",
                                           stream=s.derive("l2")))
    x = torch.randn(256, 8)
    y = torch.sin(x[:, :1] * 2)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
    first = None
    for _ in range(200):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < 0.5 * first


def test_errors():
    a = torch.ones(3, 4)
    cases = [
        (lambda: st.matmul(a, torch.ones(5, 2)), ValueError, "^b: has 5 rows, a has 4 columns"),
        (lambda: st.matmul(a, torch.ones(4)), ValueError, "^a, b: expected"),
        (lambda: st.matmul(a.int(), torch.ones(4, 2)), TypeError, "^a: expected"),
        (lambda: st.matmul(a, torch.ones(4, 2), "acc=bf16:zz"), ValueError, "^accum: "),
        (lambda: st.matmul(a, torch.ones(4, 2), "prod=bf16:rn\0,acc=bf16:sr"), ValueError,
         "^accum: contains a NUL"),
        (lambda: st.matmul(a, torch.ones(4, 2), stream=3), TypeError, "^stream: "),
        (lambda: st.nn.Linear(4, 2, accum=5), TypeError, "^accum: "),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()
