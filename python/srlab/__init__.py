"""srlab: exact rounding emulation and stochastic rounding, from Python.

A NumPy binding of libsrlab (the C library of the `srlab` command). Every function calls the
library's public C API; nothing about rounding is re-implemented in Python, so results are
bit-identical to the C API and to `srlab round --batch` / `srlab op --batch` with the same seed,
for any number of threads.

Rounding
    round(x, format, rounding, seed, stream, counter, out)   bulk rounding of arrays
    explain(x, format, rounding, ...)                         neighbours, p_up, exactness
    draws(n, seed, stream, counter)                           the raw 64-bit draws
Formats
    Format(spec), formats()
Exact operations and kernels
    op(name, a, b, c, format, rounding, ...), explain_op(...)
    sum(x, accum), dot(x, y, accum), gemv(A, x, accum), gemm(A, B, accum), accum_name(accum)
Strategies and threads
    strategies(), strategy_info(strategy), threads(), set_threads(n)
PyTorch (imported on use; needs python3-torch)
    srlab.torch.round_(tensor, format, rounding, generator), srlab.torch.AdamW(...)

Randomness: a stochastic rounding of element i (in C order) uses draw counter + i of stream
`stream` of `seed` (pcg32 by default), and functions that draw return the counter to continue
from. Generator bundles (seed, stream, counter) for code that rounds repeatedly.

    >>> import numpy as np, srlab
    >>> y, counter = srlab.round(np.array([0.1, 1.00390625]), "bf16", "sr", seed=7)
"""

from ._core import (  # noqa: F401  (the public API)
    Explanation,
    Format,
    __version__,
    accum_name,
    dot,
    draws,
    explain,
    explain_op,
    formats,
    gemm,
    gemv,
    op,
    round,
    set_threads,
    strategies,
    strategy_info,
    sum,
    threads,
)

__all__ = [
    "Explanation",
    "Format",
    "Generator",
    "__version__",
    "accum_name",
    "dot",
    "draws",
    "explain",
    "explain_op",
    "formats",
    "gemm",
    "gemv",
    "op",
    "round",
    "set_threads",
    "strategies",
    "strategy_info",
    "sum",
    "threads",
]

_RNG_KINDS = ("pcg32", "pcg64")
_U64 = 1 << 64


def _u64(value, name):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name}: expected an integer in [0, 2^64), got {type(value).__name__}")
    value = value.__index__()
    if not 0 <= value < _U64:
        raise ValueError(f"{name}: must be an integer in [0, 2^64), got {value}")
    return value


class Generator:
    """Generator(seed=1, stream=0, counter=0, rng="pcg32")

    A position in one of srlab's counter-addressed random streams: draw k of stream `stream` of
    `seed` is a pure function of (rng, seed, stream, k). Functions that take a generator
    (srlab.torch.round_) use the draws counter, counter + 1, ... and advance `counter` past
    them, so successive calls never reuse a draw, and

        g = srlab.Generator(seed=5); srlab.torch.round_(t, "bf16", "sr", generator=g)

    rounds exactly as srlab.round(t.numpy(), "bf16", "sr", seed=5, counter=0) does.
    Attributes: seed, stream, counter (ints in [0, 2^64)), rng ("pcg32" or "pcg64").
    """

    __slots__ = ("_seed", "_stream", "_counter", "_rng")

    def __init__(self, seed=1, stream=0, counter=0, rng="pcg32"):
        self.seed = seed
        self.stream = stream
        self.counter = counter
        self.rng = rng

    @property
    def seed(self):
        """The seed (pcg initstate), an integer in [0, 2^64)."""
        return self._seed

    @seed.setter
    def seed(self, v):
        self._seed = _u64(v, "seed")

    @property
    def stream(self):
        """The stream id (pcg initseq), an integer in [0, 2^64)."""
        return self._stream

    @stream.setter
    def stream(self, v):
        self._stream = _u64(v, "stream")

    @property
    def counter(self):
        """The index of the next draw, an integer in [0, 2^64)."""
        return self._counter

    @counter.setter
    def counter(self, v):
        self._counter = _u64(v, "counter")

    @property
    def rng(self):
        """The generator kind: "pcg32" (srlab's default) or "pcg64"."""
        return self._rng

    @rng.setter
    def rng(self, v):
        if not isinstance(v, str):
            raise TypeError(f"rng: expected 'pcg32' or 'pcg64', got {type(v).__name__}")
        if v not in _RNG_KINDS:
            raise ValueError(f"rng: unknown generator '{v}'; known: pcg32, pcg64")
        self._rng = v

    def draws(self, n):
        """The next n raw 64-bit draws (a uint64 array); advances the counter by n."""
        out = draws(n, self._seed, self._stream, self._counter, rng=self._rng)
        self._counter += len(out)
        return out

    def __repr__(self):
        return (f"srlab.Generator(seed={self._seed}, stream={self._stream}, "
                f"counter={self._counter}, rng='{self._rng}')")
