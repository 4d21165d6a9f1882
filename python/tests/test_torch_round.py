"""srlab.torch rounding: round_ and round on every float dtype and layout, in place and out of
place, with the C library and with the torch-only implementation (forced on CPU); autograd's
rules for in-place writes; the quantizer against `srlab round --batch`, bit for bit, on 1 and
2 threads."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (Debian: apt-get install python3-torch): the torch "
                    "tests are skipped")

import srlab  # noqa: E402
import srlab.torch as st  # noqa: E402
from conftest import assert_same_bits, csv_rows, hexline, run  # noqa: E402

DTYPES = {torch.float16: ["fp16", "e5m2", "p=6,emax=10,subnormals=off"],
          torch.bfloat16: ["bf16", "e4m3", "e4m3,saturate=on"],
          torch.float32: ["fp32", "tf32", "p=20,emax=100"],
          torch.float64: ["fp64", "bf16", "p=40,emax=600,inf=off"]}
MODES = ["rn", "ro", "sr", "sr-eq", "sr:r=3"]
IMPLS = ["c", "torch"]


def values(dtype, shape=(40, 30), seed=1):
    g = torch.Generator().manual_seed(seed)
    base = torch.randn(shape, generator=g, dtype=torch.float64)
    scale = {torch.float16: 300.0, torch.bfloat16: 1e4}.get(dtype, 1e5)
    x = (base * scale).to(dtype)
    x.view(-1)[:4] = torch.tensor([float("inf"), float("-inf"), float("nan"), -0.0]).to(dtype)
    return x


LAYOUTS = {"contiguous": lambda m: m, "transposed": lambda m: m.t(),
           "strided": lambda m: m[::2, 1::3],
           "permuted": lambda m: m.view(4, 10, 30).permute(2, 0, 1)[:, 1:, ::2]}


def bits(t):
    t = t.detach().contiguous()
    return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]).numpy()


def reference(t, fmt, mode, seed, counter):
    """The C library on t's values in C order, stored back into t's dtype."""
    x = t.detach().to(torch.float64).contiguous().numpy().reshape(-1)
    y = srlab.round(x, fmt, mode, srlab.Stream(seed, counter=counter))
    if t.dtype == torch.bfloat16:  # the top half of the binary32 value; NaN 0x7FC0
        b = (y.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return torch.from_numpy(b.view(np.int16)).view(torch.bfloat16).reshape(t.shape)
    return torch.from_numpy(y).to(t.dtype).reshape(t.shape)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dtype", list(DTYPES), ids=lambda d: str(d).replace("torch.", ""))
def test_round_every_dtype_and_layout_in_and_out_of_place(dtype, impl):
    """round_ (in place) and round (a new tensor) on every dtype and four layouts equal the C
    library's srlab.round of the values in C order, stored back exactly; the stream moves by
    numel in stochastic modes; nothing else in the base tensor changes."""
    for fmt in DTYPES[dtype]:
        for mode in MODES:
            stoch = mode.startswith("sr")
            for name, layout in LAYOUTS.items():
                base = values(dtype)
                base_before = base.clone()
                view = layout(base)
                want = reference(view, fmt, mode, 9, 4)
                # out of place: the input is unchanged
                s = srlab.Stream(9, counter=4)
                out = st.round(view, fmt, mode, s, impl=impl)
                assert out.dtype == dtype and out.shape == view.shape and out.is_contiguous()
                assert (bits(base) == bits(base_before)).all()
                assert (bits(out) == bits(want)).all(), (fmt, mode, name, impl)
                assert s.counter == 4 + (view.numel() if stoch else 0)
                # in place: the view's elements change, the rest of the base does not
                s = srlab.Stream(9, counter=4)
                v0 = view._version
                r = st.round_(view, fmt, mode, s, impl=impl)
                assert r is view and view._version > v0
                assert (bits(view) == bits(want)).all(), (fmt, mode, name, impl)
                assert s.counter == 4 + (view.numel() if stoch else 0)
                mask = torch.ones_like(base, dtype=torch.bool)
                layout(mask).fill_(False)
                assert (bits(base)[mask.numpy()] == bits(base_before)[mask.numpy()]).all()


def test_round_stream_defaults_and_the_old_generator_name():
    t = torch.randn(1000, generator=torch.Generator().manual_seed(2)).to(torch.bfloat16)
    x = t.float().numpy().copy()
    d = srlab.default_stream()
    c0 = d.counter
    st.round_(t, "e4m3", "sr")
    assert d.counter == c0 + 1000 and st.default_generator() is d
    want = srlab.round(x, "e4m3", "sr", srlab.Stream(1, counter=c0))
    assert want.dtype == np.float32
    assert t.view(torch.int16).numpy().tobytes() == \
        (want.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    # the old keyword generator= and the old class name still work
    u = torch.full((5,), 1.00390625)
    g = srlab.Generator(seed=7)
    st.round_(u, "bf16", "sr", generator=g)
    assert g.counter == 5
    assert torch.equal(u, torch.from_numpy(srlab.round(np.full(5, 1.00390625), "bf16", "sr",
                                                       srlab.Stream(7))).float())
    with pytest.raises(TypeError, match="^generator: is the old name of stream"):
        st.round_(u, "bf16", "sr", srlab.Stream(), generator=g)


def test_in_place_follows_autograd_rules():
    """A leaf that requires grad is refused in place with torch's own message while gradients
    are enabled, and allowed under no_grad; a non-leaf that requires grad is refused (round_
    is not differentiable); round (out of place) reads such tensors; a graph that saved a
    tensor rounded in place refuses to run backward."""
    leaf = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        leaf.add_(1)
    with pytest.raises(RuntimeError) as ours:
        st.round_(leaf, "bf16", "rn")
    assert str(ours.value) == str(theirs.value)
    with torch.no_grad():
        st.round_(leaf, "e4m3", "rn")
    inner = leaf * 1.1
    with pytest.raises(RuntimeError, match="^tensor: requires grad, and round_ is not "
                                           "differentiable; use srlab.torch.quantizer"):
        st.round_(inner, "bf16", "rn")
    r = st.round(inner, "bf16", "rn")
    assert not r.requires_grad and r.grad_fn is None
    a = torch.randn(4, requires_grad=True)
    b = a.detach().clone()
    y = (a * b).sum()  # saves b for the gradient of a
    with torch.no_grad():
        st.round_(b, "bf16", "rn")
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_errors_leave_tensor_and_stream_unchanged():
    t = torch.linspace(-2, 2, 9, dtype=torch.bfloat16)
    keep = t.clone()
    s = srlab.Stream(3, counter=11)
    cases = [
        (lambda: st.round_(t, "fp32", "rn", s), ValueError, "^format: a torch.bfloat16 tensor"),
        (lambda: st.round_(t.half(), "bf16", "rn"), ValueError,
         "^format: a torch.float16 tensor cannot hold every value of bf16"),
        (lambda: st.round_(t, "bf17", "sr", s), ValueError, "^format: unknown format"),
        (lambda: st.round_(t, "bf16", "near", s), ValueError, "^rounding: "),
        (lambda: st.round_(t, "bf16", "sr", torch.Generator()), TypeError, "^stream: "),
        (lambda: st.round_(t, "bf16", "sr", 5), TypeError, "^stream: "),
        (lambda: st.round_(t.int(), "bf16"), TypeError, "^tensor: expected a float16, "
                                                        "bfloat16, float32, float64 tensor"),
        (lambda: st.round_(np.ones(3), "bf16"), TypeError, "^tensor: expected a torch.Tensor"),
        (lambda: st.round_(t.to_sparse(), "bf16"), ValueError, "^tensor: has layout"),
        (lambda: st.round_(t, "bf16", "sr", srlab.Stream(counter=2 ** 64 - 2)), ValueError,
         "^counter: "),
        (lambda: st.round_(t, "bf16", "sr", s, impl="gpu"), ValueError, "^impl: "),
        (lambda: st.round(t, "bf16\0", "sr", s), ValueError, "^format: contains a NUL"),
        (lambda: st.round(t, "bf16", "sr\0", s), ValueError, "^rounding: contains a NUL"),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()
        assert torch.equal(t.view(torch.int16), keep.view(torch.int16))
        assert s.counter == 11


def test_expanded_views_are_refused_as_torch_refuses_them():
    e = torch.ones(1, 3).expand(4, 3)
    with pytest.raises(RuntimeError) as theirs:
        e.add_(1)
    for impl in IMPLS:
        with pytest.raises(RuntimeError) as ours:
            st.round_(e, "bf16", "rn", impl=impl)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


# ---- the quantizer against srlab round --batch ----

def cli_round(cli, fmt, mode, xs, seed):
    out = run([cli, "round", "--batch", "-f", fmt, "-r", mode, "--seed", str(seed), "--quiet"],
              "\n".join(hexline(v) for v in xs) + "\n")
    return np.array([float.fromhex(r[6]) for r in csv_rows(out)])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("impl", IMPLS)
def test_quantizer_matches_cli_round_batch(cli, threads, impl):
    """A fresh Stream(S): the forward values are `srlab round --batch -f F --seed S` on x (lines
    0..n-1), the gradient's the lines n..2n-1 of `srlab round --batch -f G --seed S` (the n
    draws after the forward ones), whatever the order in which backward runs. A second call
    continues the stream after both."""
    n = 3000
    g = torch.Generator().manual_seed(4)
    x = (torch.randn(n, generator=g, dtype=torch.float64) * 7).float()
    grad = (torch.randn(n, generator=g, dtype=torch.float64) * 1e-3).float()
    fwd, bwd = ("bf16", "sr"), srlab.torch.Quant("e5m2", "sr:r=5")
    before = srlab.threads()
    srlab.set_threads(threads)
    try:
        with st.use_impl(impl):
            s = srlab.Stream(77)
            q = st.quantizer(forward=fwd, backward=bwd, stream=s)
            xa = x.clone().requires_grad_()
            ya = q(xa)
            xb = x.clone().requires_grad_()
            yb = q(xb)  # the second call's draws come after the first call's backward ones
            assert s.counter == 4 * n
            yb.backward(grad)  # backward in the other order
            ya.backward(grad)
    finally:
        srlab.set_threads(before)
    xs = x.double().numpy()
    gs = grad.double().numpy()
    assert_same_bits(ya.detach().double().numpy(), cli_round(cli, "bf16", "sr", xs, 77), "fwd")
    assert_same_bits(xa.grad.double().numpy(),
                     cli_round(cli, "e5m2", "sr:r=5", np.concatenate([gs, gs]), 77)[n:],
                     "bwd")
    ref_b = cli_round(cli, "bf16", "sr", np.concatenate([xs, xs, xs]), 77)[2 * n:]
    assert_same_bits(yb.detach().double().numpy(), ref_b, "second fwd")
    ref_gb = cli_round(cli, "e5m2", "sr:r=5", np.concatenate([gs] * 4), 77)[3 * n:]
    assert_same_bits(xb.grad.double().numpy(), ref_gb, "second bwd")


def test_quantize_passes_through_what_it_does_not_round():
    x = torch.randn(50, dtype=torch.float64, requires_grad=True)
    g = torch.randn(50, dtype=torch.float64)
    s = srlab.Stream(1)
    y = st.quantize(x, forward=("bf16", "rn"), backward=None, stream=s)
    y.backward(g)
    assert torch.equal(x.grad, g) and s.counter == 0  # straight-through, rn draws nothing
    assert torch.equal(y.detach(), st.round(x, "bf16", "rn"))
    x.grad = None
    y = st.quantize(x, forward=None, backward=("e4m3", "rn"))
    assert torch.equal(y.detach(), x.detach())
    (y * 1.0).backward(g)
    assert torch.equal(x.grad, st.round(g, "e4m3", "rn"))
    q = st.quantizer(forward=("bf16", "sr"))
    assert isinstance(q, torch.nn.Module) and q.forward_quant == st.Quant("bf16", "sr")
    assert "forward=srlab.torch.Quant('bf16', 'sr')" in repr(q)
    net = torch.nn.Sequential(torch.nn.Linear(3, 3), q)
    assert net(torch.randn(2, 3)).shape == (2, 3)


def test_quant_values_and_errors():
    assert st.Quant("p=8,emax=127", "sr:r=016") == st.Quant("bf16", "sr:r=16")
    assert st.Quant("e4m3").rounding == "rn" and not st.Quant("e4m3").stochastic
    assert hash(st.Quant("bf16", "sr")) == hash(st.Quant("bf16", "sr"))
    with pytest.raises(ValueError, match="^forward: format: unknown format"):
        st.quantizer(forward=("bf17", "rn"))
    with pytest.raises(TypeError, match="^backward: expected None, an srlab.torch.Quant"):
        st.quantizer(backward="bf16")
    with pytest.raises(ValueError, match="^rounding: "):
        st.Quant("bf16", "nearst")  # "nearest" is an alias of rn
    with pytest.raises(ValueError, match="^forward: a torch.bfloat16 tensor cannot hold every "
                                         "value of fp16"):
        st.quantize(torch.ones(3, dtype=torch.bfloat16), forward=("fp16", "rn"))


# ---- block formats (srlab.round's; include/srlab/mx.h) ----

def test_block_formats_round_as_srlab_round():
    """round_ and round with a block format, block size and scale rule give srlab.round's bits
    (tested against the CLI in test_round_mx.py), on float32 and float64 tensors, strided too."""
    x = torch.randn(6, 64, dtype=torch.float64) * 4
    for fmt, block, scale, dtype in (("mxfp4", None, "3/4", torch.float32),
                                     ("mxfp8", 16, None, torch.float32),
                                     ("mxint8", 8, "ceil", torch.float64),
                                     ("nvfp4", None, "ocp", torch.float64)):
        t = x.to(dtype).t()  # not contiguous: element i of reshape(-1) is C order
        want = srlab.round(t.reshape(-1).to(torch.float64).numpy(), fmt, "sr", srlab.Stream(8),
                           block=block, scale=scale)
        s = srlab.Stream(8)
        got = st.round(t, fmt, "sr", s, block=block, scale=scale)
        assert s.counter == t.numel()
        assert_same_bits(got.reshape(-1).to(torch.float64).numpy(), want, f"round {fmt}")
        st.round_(t, fmt, "sr", srlab.Stream(8), block=block, scale=scale)
        assert_same_bits(t.reshape(-1).to(torch.float64).numpy(), want, f"round_ {fmt}")


def test_quantizer_with_a_block_size():
    """Forward MXFP8 rn, backward MXFP4 sr with the 3/4 rule in blocks of 16: the values are
    srlab.round's with the stream's draws as quantize() reserves them (forward draws none)."""
    x = torch.randn(8, 32, requires_grad=True)
    q = st.quantizer(forward=("mxfp8", "rn"), backward=("mxfp4", "sr", 16, "3/4"),
                     stream=srlab.Stream(4))
    assert q.backward_quant == st.Quant("MXFP4", "sr", block=16, scale="3/4")
    y = q(x)
    assert_same_bits(y.detach().double().numpy(),
                     srlab.round(x.detach().double().numpy(), "mxfp8", "rn"), "forward")
    g = torch.randn(8, 32)
    y.backward(g)
    want = srlab.round(g.double().numpy(), "mxfp4", "sr", srlab.Stream(4), block=16, scale="3/4")
    assert_same_bits(x.grad.double().numpy(), want, "backward")
    assert q.stream.counter == x.numel()


def test_block_format_errors():
    x = torch.randn(4, 32)
    with pytest.raises(ValueError, match="^format: a torch.bfloat16 tensor cannot hold"):
        st.round(x.to(torch.bfloat16), "mxfp4", "rn")
    with pytest.raises(ValueError, match="^format: a torch.float32 tensor cannot hold every "
                                         "value of nvfp4"):
        st.round(x, "nvfp4", "rn")
    with pytest.raises(ValueError, match="^block: must be an integer"):
        st.Quant("mxfp4", "rn", 0)
    with pytest.raises(ValueError, match="^block: applies only to a block format"):
        st.Quant("bf16", "rn", 32)
    s = srlab.Stream(2)
    with pytest.raises(ValueError, match="^format: block formats are rounded by the C library"):
        st.round(x, "mxfp4", "sr", s, impl="torch")
    assert s.counter == 0
