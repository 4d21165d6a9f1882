"""srlab.torch: srlab's exact rounding, kernels and precision strategies for PyTorch.

Rounding (any float dtype, any layout, any device)
    round_(tensor, format, rounding, stream)     round a tensor in place
    round(tensor, format, rounding, stream)      the same, into a new tensor
    Quant(format, rounding)                      a (format, rounding) pair, checked once
    quantizer(forward, backward, stream)         a module rounding activations forward and
                                                 gradients backward (straight-through otherwise)
    quantize(x, forward, backward, stream)       the same as a function
Kernels (CPU)
    matmul(a, b, accum, stream)                  a matrix product whose products and sums follow
                                                 an accumulation config, in forward and backward
    nn.Linear(in, out, bias, accum=, stream=)    torch.nn.Linear with that product
Optimizers (CPU): srlab train's update, strategies and draws, bit for bit
    SGD(params, lr, momentum, weight_decay, strategy=, seed=), Adam(...), AdamW(...)
    OptimLP(optimizer, weight=, grad=, state=, seed=)   any torch optimizer with its weights,
                                                 gradients and state rounded after each step
    PlainSRAdamW(...)                            the seed paper's bf16 AdamW written plainly
    param_dtype(strategy)                        the torch dtype for a strategy's weights

Needs torch (Debian's python3-torch). Importing srlab does not import torch; importing
srlab.torch does.

Two implementations of rounding. CPU tensors are rounded by the C library (srlab.round), on the
library's threads. Tensors on any other device are rounded by a second implementation written in
torch tensor operations only (srlab/torch/_device.py: integer bit manipulation and the
counter-based PCG streams in int64 arithmetic), which gives the same bits: it is tested against
the C core on CPU tensors, forced with impl="torch" or use_impl("torch"), for every format, mode,
generator and stream. It has been tested on CPU only.
"""

import contextlib

import numpy as np
import torch

from .. import Format, Stream, _core, default_stream
from .. import round as _c_round
from . import _device

__all__ = ["Adam", "AdamW", "BlockFormat", "OptimLP", "PlainSRAdamW", "Quant", "SGD", "default_generator",
           "matmul", "nn", "param_dtype", "quantize", "quantizer", "round", "round_", "use_impl"]

_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_IMPLS = ("auto", "c", "torch")
_impl = "auto"


def default_generator():
    """srlab.default_stream(), under the name this module used before: the stream round_ uses
    when none is given (seed 1, stream 0 at import), shared by every such call."""
    return default_stream()


def checked(fn, value, own, name):
    """fn(value), with a ValueError or TypeError whose message starts "own: " renamed to start
    "name: " (the library names its own argument; the caller's is called otherwise)."""
    try:
        return fn(value)
    except (ValueError, TypeError) as e:
        msg = str(e)
        if msg.startswith(own + ": "):
            msg = msg[len(own) + 2:]
        raise type(e)(f"{name}: {msg}") from None


class BlockFormat:
    """A block format of srlab.round (mxfp8, mxfp6, mxfp4, mxint8, nvfp4, ...; docs/mx.md) with
    its block size (None: the format's) and scale rule (None: ocp), checked by the library.
    A tensor is cut into blocks in C order (along the last dimension when its length is a
    multiple of the block size). Attributes spec, block, scale, name."""

    __slots__ = ("spec", "block", "scale")

    def __init__(self, spec, block=None, scale=None):
        _c_round(_EMPTY, spec, "rn", block=block, scale=scale)  # the library's checks
        self.spec, self.block, self.scale = spec, block, scale

    @property
    def name(self):
        return self.spec + ("" if self.block is None else f",block={self.block}")

    def __eq__(self, other):
        return (isinstance(other, BlockFormat) and self.name.lower() == other.name.lower() and
                (self.scale or "ocp") == (other.scale or "ocp"))

    def __hash__(self):
        return hash((self.name.lower(), self.scale or "ocp"))

    def __repr__(self):
        return f"srlab.torch.BlockFormat({self.spec!r}, block={self.block!r}, scale={self.scale!r})"


_EMPTY = np.empty(0)


def _format_arg(fmt, name, block=None, scale=None):
    """An srlab.Format, or a BlockFormat when fmt names a block format (block and scale apply
    only then); errors name the argument (block and scale keep their own names)."""
    if isinstance(fmt, (Format, BlockFormat)) and block is None and scale is None:
        return fmt
    if isinstance(fmt, BlockFormat):
        fmt = fmt.name
    try:
        _c_round(_EMPTY, fmt, "rn", block=block, scale=scale)  # any format, block, scale
    except (ValueError, TypeError) as e:
        msg = str(e)
        if msg.startswith("format: "):
            raise type(e)(f"{name}: {msg[8:]}") from None
        raise
    if isinstance(fmt, Format):
        return fmt
    try:
        return Format(fmt)
    except ValueError:
        return BlockFormat(fmt, block, scale)


def _rounding_arg(rounding, name):
    return checked(_core._rounding_name, rounding, "rounding", name)


def holds(dtype, fmt):
    """True when every value of fmt is a number of the torch dtype."""
    if dtype == torch.float64:
        return True
    if isinstance(fmt, BlockFormat):  # MX values are binary32 numbers; NVFP4's are not
        return dtype == torch.float32 and not fmt.spec.lower().startswith("nvfp4")
    if dtype == torch.float32:
        return fmt.fits_float
    if dtype == torch.bfloat16:
        return fmt.fits_bf16
    if dtype == torch.float16:
        return fmt.p <= 11 and fmt.emax <= 15 and fmt.emin - fmt.p + 1 >= -24
    return False


def check_tensor(t, name, dtypes=_FLOAT_DTYPES):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.layout != torch.strided:
        raise ValueError(f"{name}: has layout {t.layout}; srlab works on dense tensors")
    if t.dtype not in dtypes:
        names = ", ".join(str(d).replace("torch.", "") for d in dtypes)
        raise TypeError(f"{name}: expected a {names} tensor, got {t.dtype}")


def _stream_arg(stream, generator):
    if generator is not None:
        if stream is not None:
            raise TypeError("generator: is the old name of stream; pass one of them")
        stream = generator
    if stream is None:
        return default_stream()
    if not isinstance(stream, Stream):
        raise TypeError(f"stream: expected an srlab.Stream or None, got {type(stream).__name__}")
    return stream


def _impl_arg(impl, device):
    impl = _impl if impl is None else impl
    if impl not in _IMPLS:
        raise ValueError(f"impl: expected 'auto', 'c' or 'torch', got {impl!r}")
    if impl == "auto":
        return "c" if device.type == "cpu" else "torch"
    if impl == "c" and device.type != "cpu":
        raise ValueError(f"impl: the C library rounds CPU tensors only; this one is on {device}")
    return impl


@contextlib.contextmanager
def use_impl(impl):
    """with srlab.torch.use_impl("torch"): ...  -- round CPU tensors with the torch-only
    implementation too (round_, round, quantizers, OptimLP), as on other devices; "c" or "auto"
    (the default: the C library on CPU, torch operations elsewhere). The setting is the
    module's, not the thread's."""
    global _impl
    if impl not in _IMPLS:
        raise ValueError(f"impl: expected 'auto', 'c' or 'torch', got {impl!r}")
    before, _impl = _impl, impl
    try:
        yield
    finally:
        _impl = before


def _bump_version(t):
    """Tell autograd that t changed in place (its memory was written from C): the same
    bookkeeping as an in-place torch operation, so a graph that saved the old values refuses to
    run."""
    inc = getattr(getattr(torch.autograd, "graph", None), "increment_version", None)
    if inc is not None:
        inc(t)
    else:
        with torch.no_grad():
            t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]) \
                .bitwise_or_(0)  # changes no bit


def _store(dst, values):
    """dst (any layout) <- values (same shape), which are numbers of dst's dtype: exactly, and
    NaN as the canonical quiet NaN (for bfloat16 the top half of binary32's, 0x7FC0: torch's own
    float-to-bfloat16 conversion gives 0xFFFF on some paths and 0x7FC0 on others)."""
    if dst.dtype == torch.bfloat16:
        b32 = values.to(torch.float32).contiguous().view(torch.int32)
        dst.view(torch.int16).copy_((b32 >> 16).to(torch.int16))
    else:
        dst.copy_(values)


def _round_into(tensor, fmt, rounding, stream, impl):
    """Round tensor's values in place (checked arguments; no autograd bookkeeping)."""
    n = tensor.numel()
    stoch = rounding.startswith("sr")
    if stoch and n > (1 << 64) - 1 - stream.counter:
        raise ValueError(f"counter: {stream.counter} + {n} draws (the tensor's size) would pass "
                         f"2^64 - 1")
    work = tensor.detach()
    kw = {}
    if isinstance(fmt, BlockFormat):
        if impl == "torch":
            raise ValueError(f"format: block formats are rounded by the C library only (CPU "
                             f"tensors, impl 'c' or 'auto'); this tensor is on {tensor.device}, "
                             f"impl {impl!r}")
        fmt, kw = fmt.name, {"scale": fmt.scale}
    if impl == "torch":
        mode, r = _device.parse_mode(rounding)
        pos = (stream.rng, stream.seed, stream.stream, stream.counter) if stoch else None
        _store(work, _device.round_flat(work, fmt, mode, r, pos).view(work.shape))
        if stoch:
            stream.counter += n
        return
    if work.dtype in (torch.float32, torch.float64) and work.is_contiguous():
        arr = work.numpy()
        _c_round(arr, fmt, rounding, stream, out=arr, **kw)
        return
    # a C-order copy (bfloat16 and float16 values widened exactly to binary32), rounded, and
    # stored back exactly
    buf = torch.empty(work.shape, dtype=torch.float64 if work.dtype == torch.float64 else
                      torch.float32)
    buf.copy_(work)
    arr = buf.numpy()
    _c_round(arr, fmt, rounding, stream, out=arr, **kw)
    _store(work, buf)


def round_(tensor, format="bf16", rounding="sr", stream=None, *, generator=None, impl=None,
           block=None, scale=None):
    """round_(tensor, format="bf16", rounding="sr", stream=None, *, impl=None, block=None,
              scale=None)

    Round every element of a tensor into a format, in place, exactly as srlab.round does:
    element i in C order (the order of tensor.reshape(-1), whatever the strides) uses draw
    stream.counter + i, and in stochastic modes the stream's counter then advances by
    tensor.numel(). Returns the tensor.

    tensor     a float16, bfloat16, float32 or float64 tensor, any shape and strides, on any
               device. Its dtype must hold every value of the format: float32 needs
               Format.fits_float (p <= 24, emax <= 127), bfloat16 Format.fits_bf16 (p <= 8,
               emax <= 127, spacing >= 2^-133), float16 p <= 11, emax <= 15, spacing >= 2^-24;
               otherwise ValueError. Its values are rounded from their exact values and stored
               back exactly.
    format     bf16, fp16, fp32, tf32, e4m3, e5m2, fp64 (or bfloat16, half, float8_e4m3fn, ...:
               any case), or a custom
               p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,saturate=on|off]
    rounding   rn, rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64), or nearest,
               toward-zero, stochastic, ... (any case); see help(srlab.round)
    stream     an srlab.Stream; None uses srlab.default_stream(). (generator= is its old name.)
    impl       None (use_impl's setting, "auto" unless changed), "auto" (the C library for CPU
               tensors, torch operations elsewhere), "c" or "torch" (the torch-only
               implementation, also on the CPU: the same bits)
    block, scale  with a block format (mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e2m3, mxfp4, mxint8,
               nvfp4: srlab.round's): the block size and the scale rule ('ocp', '3/4',
               'ceil'). Blocks are cut in C order (along the last dimension when its length is a
               multiple of the block size); the values are the dequantized ones, as srlab.round
               gives them. CPU tensors only; float32 for the MX formats, float64 for both and
               for nvfp4 (whose values are not binary32 numbers).

    Like torch's in-place operations, round_ refuses (RuntimeError) a leaf tensor that requires
    grad while gradients are enabled; it also refuses other tensors that require grad then,
    since it is not differentiable (srlab.torch.quantizer is). The tensor and the stream are
    unchanged when an argument is wrong.

        >>> s = srlab.Stream(seed=7)
        >>> t = torch.full((4,), 1.00390625)
        >>> _ = srlab.torch.round_(t, "bf16", "sr", s); s.counter
        4
    """
    check_tensor(tensor, "tensor")
    fmt = _format_arg(format, "format", block, scale)
    rounding = _rounding_arg(rounding, "rounding")
    stream = _stream_arg(stream, generator)
    impl = _impl_arg(impl, tensor.device)
    _check_holds(tensor.dtype, fmt)
    if tensor.requires_grad and torch.is_grad_enabled():
        if tensor.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        raise RuntimeError("tensor: requires grad, and round_ is not differentiable; use "
                           "srlab.torch.quantizer (straight-through gradients), or call round_ "
                           "under torch.no_grad()")
    _round_into(tensor, fmt, rounding, stream, impl)
    _bump_version(tensor)
    return tensor


def _check_holds(dtype, fmt):
    if holds(dtype, fmt):
        return
    if isinstance(fmt, BlockFormat):
        raise ValueError(f"format: a {dtype} tensor cannot hold every value of {fmt.name} "
                         f"(float32 holds the MX formats' values, float64 every block format's)")
    raise ValueError(f"format: a {dtype} tensor cannot hold every value of "
                     f"{fmt.name} (p={fmt.p}, emax={fmt.emax}, emin={fmt.emin})")


def round(tensor, format="bf16", rounding="sr", stream=None, *, generator=None, impl=None,
          block=None, scale=None):
    """round(tensor, format="bf16", rounding="sr", stream=None, *, impl=None, block=None,
             scale=None)

    The values of tensor rounded into a format, as a new tensor of the same dtype, shape and
    device (contiguous), which does not require grad; tensor is not changed. Arguments, draws
    and errors as round_ (a tensor that requires grad is fine here: it is read only). For a
    rounding with gradients use srlab.torch.quantizer."""
    check_tensor(tensor, "tensor")
    fmt = _format_arg(format, "format", block, scale)
    rounding = _rounding_arg(rounding, "rounding")
    stream = _stream_arg(stream, generator)
    impl = _impl_arg(impl, tensor.device)
    _check_holds(tensor.dtype, fmt)
    out = tensor.detach().clone(memory_format=torch.contiguous_format)
    _round_into(out, fmt, rounding, stream, impl)
    return out


class Quant:
    """Quant(format, rounding="rn", block=None, scale=None)

    A number format and a rounding mode, checked once: what a quantizer applies forward or
    backward and what OptimLP stores weights, gradients and state in. Wherever srlab.torch takes
    one, a tuple (format, rounding) is read as Quant(*tuple), and None means "not rounded".
    Attributes: format (an srlab.Format, or a BlockFormat), rounding (the canonical mode name),
    stochastic. Quants compare equal when both are. A block format (mxfp8, mxfp6, mxfp4,
    mxint8, nvfp4, ...) takes a block size and a scale rule ('ocp', '3/4', 'ceil'), as
    round_ does: Quant("mxfp4", "sr", 32, "3/4"), or the tuple ("mxfp4", "sr", 32, "3/4").

        >>> srlab.torch.Quant("e4m3", "sr")
        srlab.torch.Quant('e4m3', 'sr')
    """

    __slots__ = ("format", "rounding")

    def __init__(self, format, rounding="rn", block=None, scale=None):
        self.format = _format_arg(format, "format", block, scale)
        self.rounding = _rounding_arg(rounding, "rounding")

    @property
    def stochastic(self):
        """True when the mode draws (sr, sr-eq, sr:r=R): one draw per rounded value."""
        return self.rounding.startswith("sr")

    def __eq__(self, other):
        return (isinstance(other, Quant) and self.format == other.format and
                self.rounding == other.rounding)

    def __hash__(self):
        return hash((self.format, self.rounding))

    def __repr__(self):
        if isinstance(self.format, BlockFormat):
            return (f"srlab.torch.Quant({self.format.name!r}, {self.rounding!r}, "
                    f"scale={self.format.scale!r})")
        return f"srlab.torch.Quant({self.format.name!r}, {self.rounding!r})"


def as_quant(spec, name):
    """None, a Quant, or a tuple/list read as Quant(*spec)."""
    if spec is None or isinstance(spec, Quant):
        return spec
    if isinstance(spec, (tuple, list)) and spec:
        try:
            return Quant(*spec)
        except (ValueError, TypeError) as e:
            raise type(e)(f"{name}: {e}") from None
    raise TypeError(f"{name}: expected None, an srlab.torch.Quant or a tuple (format, rounding), "
                    f"got {type(spec).__name__}")


def reserve(stream, n):
    """The stream's position for n draws (a new Stream), and the stream moved past them."""
    if n > (1 << 64) - 1 - stream.counter:
        raise ValueError(f"counter: {stream.counter} + {n} draws would pass 2^64 - 1")
    at = stream.copy()
    stream.counter += n
    return at


class _QuantizeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fq, bq, fpos, bpos):
        ctx.bq, ctx.bpos = bq, bpos
        if fq is None:
            return x.view_as(x)
        return round(x, fq.format, fq.rounding, fpos)

    @staticmethod
    def backward(ctx, g):
        if ctx.bq is not None and g is not None:
            g = round(g, ctx.bq.format, ctx.bq.rounding, ctx.bpos)
        return g, None, None, None, None


def quantize(x, forward=None, backward=None, stream=None):
    """quantize(x, forward=None, backward=None, stream=None)

    x rounded with `forward` (a Quant or (format, rounding); None leaves it), as a new tensor in
    an autograd graph whose backward rounds the incoming gradient with `backward` (None passes
    it through): straight-through otherwise. x's dtype must hold both formats. Draws: the call
    reserves the stream's next n draws for the forward rounding and the n after them for the
    backward one (n = x.numel(), each only when its mode is stochastic), so the bits depend
    only on the stream's position at the call, not on when backward runs. So with a fresh
    Stream(S), the forward values are `srlab round --batch --seed S` on x's values and the
    gradient's are the next n lines of the same run."""
    check_tensor(x, "x")
    fq, bq = as_quant(forward, "forward"), as_quant(backward, "backward")
    stream = _stream_arg(stream, None)
    for q, what in ((fq, "forward"), (bq, "backward")):
        if q is not None and not holds(x.dtype, q.format):
            raise ValueError(f"{what}: a {x.dtype} tensor cannot hold every value of "
                             f"{q.format.name}")
    n = x.numel()
    nf = n if fq is not None and fq.stochastic else 0
    nb = n if bq is not None and bq.stochastic else 0
    fpos = reserve(stream, nf + nb)
    bpos = fpos.copy()
    bpos.counter += nf
    return _QuantizeFn.apply(x, fq, bq, fpos, bpos)


class Quantizer(torch.nn.Module):
    """The module quantizer() returns: forward(x) is quantize(x, forward, backward, stream) with
    its own stream. Attributes forward_quant, backward_quant (Quant or None) and stream."""

    def __init__(self, forward=None, backward=None, stream=None):
        super().__init__()
        self.forward_quant = as_quant(forward, "forward")
        self.backward_quant = as_quant(backward, "backward")
        self.stream = _stream_arg(stream, None)

    def forward(self, x):
        return quantize(x, self.forward_quant, self.backward_quant, self.stream)

    def extra_repr(self):
        return f"forward={self.forward_quant}, backward={self.backward_quant}"


def quantizer(forward=None, backward=None, stream=None):
    """quantizer(forward=None, backward=None, stream=None)

    A torch.nn.Module (also usable as a function) that rounds activations forward and gradients
    backward, as QPyTorch's quantizer does, with srlab's formats and modes:

        q = srlab.torch.quantizer(forward=("bf16", "sr"), backward=("e5m2", "sr"),
                                  stream=srlab.Stream(seed=1))
        y = q(x)        # y: x rounded to bf16; y.grad flows back rounded to e5m2

    forward, backward  srlab.torch.Quant(format, rounding) or a tuple (format, rounding); None
                       passes values (or gradients) through unchanged
    stream             the module's srlab.Stream (None: srlab.default_stream()); each call
                       takes its draws as quantize() says
    Any float dtype, any device (the torch-only implementation off the CPU)."""
    return Quantizer(forward, backward, stream)


from . import nn  # noqa: E402  (these import the helpers above)
from .nn import matmul  # noqa: E402
from .optim import SGD, Adam, AdamW, OptimLP, PlainSRAdamW, param_dtype  # noqa: E402
