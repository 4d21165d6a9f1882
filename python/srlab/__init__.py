"""srlab: exact rounding emulation and stochastic rounding, from Python.

A NumPy binding of libsrlab (the C library of the `srlab` command). Every function calls the
library's public C API; nothing about rounding is re-implemented in Python, so results are
bit-identical to the C API and to `srlab round --batch` / `srlab op --batch` with the same seed,
for any number of threads.

Rounding
    round(x, format, rounding, stream, out)           bulk rounding of arrays
    explain(x, format, rounding, stream)              neighbours, p_up, exactness
Random streams
    Stream(seed, stream, counter, rng)                a position in a counter-addressed stream
    default_stream(), draws(n, stream)                the stream of calls without one; raw draws
Formats
    Format(spec), formats()
Exact operations and kernels
    op(name, a, b, c, format, rounding, stream, out), explain_op(...)
    sum(x, accum, stream), dot(x, y, ...), gemv(A, x, ...), gemm(A, B, ...),
    gemm_draws(m, n, k, accum), accum_name(accum)
Strategies and threads
    strategies(), strategy_info(strategy), threads(), set_threads(n)
PyTorch (imported on use; needs torch)
    srlab.torch: round_/round on tensors of any dtype and device, quantizer, nn.Linear and
    matmul with kernel configs, SGD/Adam/AdamW with srlab train's strategies, OptimLP

Randomness: a stochastic rounding of element i (in C order) uses draw stream.counter + i of an
srlab.Stream, whose counter then advances past the draws, as the C API's rng->counter does;
every function returns the same type in every mode.

    >>> import numpy as np, srlab
    >>> s = srlab.Stream(seed=7)
    >>> y = srlab.round(np.array([0.1, 1.00390625]), "bf16", "sr", s); s.counter
    2
"""

try:
    import numpy as _numpy  # noqa: F401  (the extension needs it; say so plainly)
except ImportError:
    raise ImportError("srlab needs NumPy, which this Python cannot import: install it "
                      "(Debian: apt-get install python3-numpy; or pip install numpy)") from None

from ._core import (  # noqa: F401,E402  (the public API)
    Explanation,
    Format,
    Stream,
    __version__,
    accum_name,
    default_stream,
    dot,
    draws,
    explain,
    explain_op,
    formats,
    gemm,
    gemm_draws,
    gemv,
    op,
    round,
    set_threads,
    strategies,
    strategy_info,
    sum,
    threads,
)

# The name of srlab.Stream in earlier versions (srlab.torch.round_(t, generator=
# srlab.Generator(seed=1))): the same constructor and attributes, so that code keeps working.
Generator = Stream

__all__ = [
    "Explanation",
    "Format",
    "Generator",
    "Stream",
    "__version__",
    "accum_name",
    "default_stream",
    "dot",
    "draws",
    "explain",
    "explain_op",
    "formats",
    "gemm",
    "gemm_draws",
    "gemv",
    "op",
    "round",
    "set_threads",
    "strategies",
    "strategy_info",
    "sum",
    "threads",
]
