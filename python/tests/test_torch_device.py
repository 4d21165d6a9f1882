"""The torch-only rounding (srlab/torch/_device.py, what tensors off the CPU use) against the C
core, forced on CPU tensors: the draws of both generators at any seed, stream and counter;
every format and mode on the inputs of the oracle tests, float32/bf16/fp16 tensors included;
and the ties of exact stochastic rounding that need the extra random words."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (Debian: apt-get install python3-torch): the torch "
                    "tests are skipped")

import srlab  # noqa: E402
import srlab.torch as st  # noqa: E402
from srlab.torch import _device  # noqa: E402
from conftest import FORMATS, MODES, assert_same_bits, format_values  # noqa: E402

STREAMS = [(1, 0, 0), (20261201, 7, 123_456_789), (2 ** 64 - 1, 2 ** 64 - 1, 2 ** 63 + 5),
           (3, 2 ** 63, 2 ** 64 - 20_000)]


@pytest.mark.parametrize("kind", ["pcg32", "pcg64"])
def test_draws_equal_the_c_streams(kind):
    """Draws at counters across a table block's edge, a chunk of blocks, and near 2^64."""
    for seed, stream, counter in STREAMS:
        n = 9000 if counter < 2 ** 64 - 10_000 else 20_000
        want = srlab.Stream(seed, stream, counter, rng=kind).draws(n)
        got = _device.draws(kind, seed, stream, counter, n, torch.device("cpu"))
        assert np.array_equal(got.numpy().view(np.uint64), want), (kind, seed, stream, counter)
    for index in (0, 1, 4095, 4096, 10 ** 12):  # the scalar reference too
        assert _device.draw_at(kind, 5, 6, index) == srlab.Stream(5, 6, index, kind).draws(1)[0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_mode_and_stream_equals_the_c_core(fmt):
    """The oracle tests' inputs (every encoding of the narrow formats, ties and their binary64
    neighbours, subnormals, overflow, specials, random values) in every mode, with both
    generators at four (seed, stream, counter) positions: the same bits as srlab.round, and the
    stream moved alike."""
    f = srlab.Format(fmt)
    x = format_values(f, np.random.default_rng(abs(hash(fmt)) % 2 ** 32), 1500)
    t = torch.from_numpy(x)
    for mode in MODES:
        for kind in ("pcg32", "pcg64"):
            for seed, stream, counter in (STREAMS if mode.startswith("sr") else STREAMS[:1]):
                if counter > 2 ** 64 - 1 - x.size:
                    continue
                a, b = srlab.Stream(seed, stream, counter, kind), None
                b = a.copy()
                want = srlab.round(x, f, mode, a)
                got = st.round(t, f, mode, b, impl="torch")
                assert_same_bits(got.numpy(), want, f"{fmt} {mode} {kind} {seed},{stream},"
                                                    f"{counter}")
                assert a == b


@pytest.mark.parametrize("dtype,fmt", [(torch.float32, "tf32"), (torch.float32, "e4m3"),
                                       (torch.bfloat16, "e5m2"), (torch.bfloat16, "bf16"),
                                       (torch.float16, "e5m2"), (torch.float16, "fp16")])
def test_narrow_dtypes_equal_the_c_path(dtype, fmt):
    """float32, bfloat16 and float16 tensors (the C path rounds their binary32 values with
    srl_round_array_float): the same bits, NaN included."""
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(5000, generator=g, dtype=torch.float64) * 300).to(dtype)
    x[:3] = torch.tensor([float("nan"), float("inf"), -0.0]).to(dtype)
    for mode in MODES:
        a = st.round(x, fmt, mode, srlab.Stream(8), impl="c")
        b = st.round(x, fmt, mode, srlab.Stream(8), impl="torch")
        ib = {2: torch.int16, 4: torch.int32}[x.element_size()]
        assert torch.equal(a.view(ib), b.view(ib)), (dtype, fmt, mode)


def _ties(fmt, kind, seed, count):
    """count (index, x) pairs that make exact sr undecided after the first word: the draw u of
    element `index` equals f1, the first 64 bits of x's fraction f, and f has more bits. x is
    below the format's smallest subnormal by 2^-(64 + sh), so f = M 2^-(64 + sh) with M x's
    53-bit significand: f1 = M >> sh = u needs u < 2^52 (one draw in 4096), M = (u << sh) | 1
    with sh = 53 - bitlength(u) so that M has 53 bits."""
    u = srlab.Stream(seed, rng=kind).draws(count * 4096 * 8)
    idx = np.flatnonzero(u < np.uint64(1 << 52))[:count]
    assert len(idx) == count
    f = srlab.Format(fmt)
    qe = f.emin - f.p + 1
    out = []
    for i in idx:
        ui = int(u[i])
        sh = 53 - ui.bit_length()
        M = (ui << sh) | 1
        out.append((int(i), M * 2.0 ** (qe - 64 - sh)))
    return out, len(u)


@pytest.mark.parametrize("kind", ["pcg32", "pcg64"])
def test_exact_sr_ties_read_the_extra_words_as_the_c_core(kind):
    """Thirty elements whose decision needs srl_rng_extra's words (x and -x), among ordinary
    ones: the same bits as the C core; both outcomes occur (the test would see a wrong tail)."""
    for fmt in ("bf16", "fp16", "p=20,emax=50"):
        ties, n = _ties(fmt, kind, 11, 30)
        x = np.random.default_rng(1).standard_normal(n)
        for k, (i, v) in enumerate(ties):
            x[i] = v if k % 2 else -v
        want = srlab.round(x, fmt, "sr", srlab.Stream(11, rng=kind))
        got = st.round(torch.from_numpy(x), fmt, "sr", srlab.Stream(11, rng=kind), impl="torch")
        assert_same_bits(got.numpy(), want, f"ties {fmt} {kind}")
        xmin = srlab.Format(fmt).xsub
        outcomes = {abs(want[i]) == xmin for i, _ in ties}
        assert outcomes == {True, False}, (fmt, kind)
        # f1 == u with nothing after it: U >= f, toward zero, decided without the tail
        u = srlab.Stream(11, rng=kind).draws(n)
        f = srlab.Format(fmt)
        exact = np.flatnonzero((u >= np.uint64(1 << 52)) & (u < np.uint64(1 << 53)))[:30]
        assert len(exact) == 30
        x2 = x.copy()
        for i in exact:
            x2[i] = float(int(u[i])) * 2.0 ** (f.emin - f.p + 1 - 64)
        want2 = srlab.round(x2, fmt, "sr", srlab.Stream(11, rng=kind))
        assert np.all(want2[exact] == 0)
        got2 = st.round(torch.from_numpy(x2), fmt, "sr", srlab.Stream(11, rng=kind),
                        impl="torch")
        assert_same_bits(got2.numpy(), want2, f"exact ties {fmt} {kind}")


def test_hash_and_extra_words_match_the_c_definitions():
    """srl_hash64 and srl_rng_extra in Python integers, against the C library through the
    streams they define (Stream.derive uses srl_hash64)."""
    for parent, key in ((0, 0), (5, 12345), (2 ** 64 - 1, 2 ** 63)):
        assert srlab.Stream(3, parent).derive(key).stream == _device.hash64(parent, key)
