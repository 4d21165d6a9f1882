"""srlab.torch.nn: layers whose matrix products follow an accumulation config (the C library's
gemm engine, include/srlab/kernels.h) in forward and in both backward products, and the
functional product they use, srlab.torch.matmul.

    Linear(in_features, out_features, bias=True, *, accum=..., stream=None, device=None,
           dtype=None)
    matmul(a, b, accum, stream)
"""

import torch

from .. import _core
from .. import gemm as _gemm
from . import _stream_arg, check_tensor, checked, reserve

__all__ = ["Linear", "matmul"]

_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _accum_arg(accum):
    return checked(_core.accum_name, accum, "accum", "accum")


def _gemm_t(a, b, accum, stream):
    """a @ b for 2-D CPU tensors with the config, draws from stream (a Stream at the product's
    first draw). float32 operands (bfloat16 and float16 are widened exactly) run the library's
    binary32 kernel when the accumulator fits binary32; the result comes back in the
    operands' promoted dtype."""
    dtype = torch.promote_types(a.dtype, b.dtype)
    work = torch.float64 if dtype == torch.float64 else torch.float32
    an = a.detach().to(work).numpy()
    bn = b.detach().to(work).numpy()
    c = _gemm(an, bn, accum, stream)
    return torch.from_numpy(c).to(dtype)


class _MatmulFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, accum, pos):
        ctx.save_for_backward(a, b)
        ctx.accum, ctx.pos = accum, pos
        return _gemm_t(a, b, accum, pos[0])

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:  # dA = dC B^T                         (m,k) = (m,n)(n,k)
            ga = _gemm_t(g, b.t(), ctx.accum, ctx.pos[1])
        if ctx.needs_input_grad[1]:  # dB = A^T dC                         (k,n) = (k,m)(m,n)
            gb = _gemm_t(a.t(), g, ctx.accum, ctx.pos[2])
        return ga, gb, None, None


def matmul(a, b, accum="prod=fp32:rn,acc=fp32:rn", stream=None):
    """matmul(a, b, accum="prod=fp32:rn,acc=fp32:rn", stream=None)

    C = A B for A (m, k) and B (k, n) CPU tensors, every product and every addition rounded as
    the accumulation config says (srlab.gemm: C[i,j] = dot(A[i,:], B[:,j]), terms in the order
    l = 0 .. k-1), differentiable: the backward products dA = dC B^T and dB = A^T dC follow the
    same config. A may have leading batch dimensions (..., k): they are flattened into m rows
    and restored.

    accum   'prod=FMT:MODE,acc=FMT:MODE[,fma=on|off][,order=recursive|pairwise|blocked:K]
            [,kahan=on|off][,join=FMT:MODE]' (srlab.gemm's; missing keys binary64)
    stream  an srlab.Stream (None: srlab.default_stream()). Each call reserves, at the
            stream's counter c, D_f = gemm_draws(m, n, k) draws for the forward product, then
            D_a = gemm_draws(m, k, n) for dA and D_b = gemm_draws(k, n, m) for dB, and moves the
            counter past all three, whether backward runs or not: the bits depend only on the
            stream's position at the call. (0 draws when the config's modes are deterministic.)

    Dtypes float16, bfloat16 (widened exactly to float32), float32, float64; the result has the
    operands' promoted dtype: when the accumulator format is wider than it, torch's cast rounds
    the kernel's result to nearest. Float32 operands with an accumulator that fits binary32 run
    the library's binary32 kernel (srl_gemm_f, the same bits as srl_gemm).
    """
    for t, name in ((a, "a"), (b, "b")):
        check_tensor(t, name, _DTYPES)
        if t.device.type != "cpu":
            raise ValueError(f"{name}: is on {t.device}; srlab's matrix products run on the CPU "
                             f"(the C library's gemm)")
    if b.dim() != 2 or a.dim() < 1:
        raise ValueError(f"a, b: expected a (..., k) and b (k, n), got shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    k = a.shape[-1]
    if b.shape[0] != k:
        raise ValueError(f"b: has {b.shape[0]} rows, a has {k} columns")
    accum = _accum_arg(accum)
    stream = _stream_arg(stream, None)
    lead = a.shape[:-1]
    a2 = a.reshape(-1, k)
    m, n = a2.shape[0], b.shape[1]
    d_f = _core.gemm_draws(m, n, k, accum)
    d_a = _core.gemm_draws(m, k, n, accum)
    d_b = _core.gemm_draws(k, n, m, accum)
    at = reserve(stream, d_f + d_a + d_b)
    pa, pb = at.copy(), at.copy()
    pa.counter += d_f
    pb.counter += d_f + d_a
    return _MatmulFn.apply(a2, b, accum, (at, pa, pb)).reshape(*lead, n)


class Linear(torch.nn.Linear):
    """Linear(in_features, out_features, bias=True, *,
              accum="prod=bf16:rn,acc=fp32:rn", stream=None, device=None, dtype=None)

    torch.nn.Linear (same parameters, same initialisation) whose product y = x W^T follows an
    accumulation config, in forward and in both backward products (dx = dy W, dW = dy^T x),
    through srlab.torch.matmul; the bias is added to the product's result with torch's add (one
    rounding to nearest in the dtype), and its gradient is torch's sum.

    accum   the config (srlab.gemm's), e.g. "prod=bf16:rn,acc=bf16:sr,order=pairwise"
    stream  the layer's srlab.Stream (None: srlab.default_stream()); each forward call reserves
            its draws as matmul says. For a model, derive one per layer:
            srlab.Stream(seed).derive("layer1")
    CPU tensors; float32 (default), float64, and bfloat16/float16 (computed in float32).
    """

    def __init__(self, in_features, out_features, bias=True, *,
                 accum="prod=bf16:rn,acc=fp32:rn", stream=None, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        self.accum = _accum_arg(accum)
        self.stream = _stream_arg(stream, None)

    def forward(self, x):
        y = matmul(x, self.weight.t(), self.accum, self.stream)
        return y if self.bias is None else y + self.bias

    def extra_repr(self):
        return super().extra_repr() + f", accum={self.accum}"
