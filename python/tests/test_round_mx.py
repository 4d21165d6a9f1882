"""srlab.round with block formats (include/srlab/mx.h) against `srlab round --batch -f BLOCKFMT`,
bit for bit: every block format, scale rule and a deterministic and a stochastic mode, block
sizes given by name and by argument, float32 paths, draws and counters, errors."""

import numpy as np
import pytest

import srlab
from conftest import assert_same_bits, csv_rows, hexline, run

SEED = 20261206
BLOCK_FORMATS = ["mxfp8", "mxfp8-e5m2", "mxfp6", "mxfp6-e2m3", "mxfp4", "mxint8", "nvfp4"]


def cli_block_batch(cli, fmt, mode, rule, xs, seed=SEED):
    out = run([cli, "round", "--batch", "-f", fmt, "-r", mode, "--scale", rule, "--seed",
               str(seed), "--quiet"], "\n".join(hexline(v) for v in xs) + "\n")
    rows = csv_rows(out)
    assert len(rows) == len(xs)
    return np.array([float.fromhex(r[-1]) for r in rows])


def block_inputs(rng, n=205):
    """Blocks of different magnitudes (a factor 2^40 apart), zeros, values at a scale's edge, a
    NaN in one block, an infinity in another; n not a multiple of any block size."""
    x = rng.standard_normal(n) * np.repeat(2.0 ** rng.integers(-20, 20, n // 8 + 1), 8)[:n]
    x[3] = 0.0
    x[40:48] = 0.0
    x[70] = np.nan
    x[130] = -np.inf
    x[100] = 6.0 * 2.0 ** 5
    return x


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_block_formats_match_cli_batch(cli, fmt):
    rng = np.random.default_rng(BLOCK_FORMATS.index(fmt))
    x = block_inputs(rng)
    for rule in ("ocp", "3/4", "ceil"):
        for mode in ("rn", "sr"):
            ref = cli_block_batch(cli, fmt, mode, rule, x)
            s = srlab.Stream(SEED)
            got = srlab.round(x, fmt, mode, s, scale=rule)
            assert got.dtype == np.float64
            assert s.counter == (len(x) if mode == "sr" else 0)
            assert_same_bits(got, ref, f"{fmt} {mode} {rule}")


def test_block_size_argument_is_the_name_suffix(cli):
    x = block_inputs(np.random.default_rng(7))
    for fmt, b in (("mxfp4", 8), ("nvfp4", 4), ("mxfp8", 1), ("mxint8", 64)):
        ref = cli_block_batch(cli, f"{fmt},block={b}", "sr", "ocp", x)
        got = srlab.round(x, fmt, "sr", srlab.Stream(SEED), block=b)
        assert_same_bits(got, ref, f"{fmt} block={b}")
        assert_same_bits(srlab.round(x, f"{fmt},block={b}", "sr", srlab.Stream(SEED)), ref,
                         f"{fmt},block={b}")
    # and the block size changes the result (blocks of 8 in magnitudes 2^40 apart)
    assert not np.array_equal(srlab.round(x, "mxfp4", "rn", block=8),
                              srlab.round(x, "mxfp4", "rn"), equal_nan=True)


def test_names_in_any_case_and_float32():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(1000) * 3).astype(np.float32)
    for fmt in ("mxfp8", "mxfp6-e2m3", "mxfp4", "mxint8"):
        y32 = srlab.round(x, fmt.upper(), "sr", srlab.Stream(5), scale="3/4")
        assert y32.dtype == np.float32
        y64 = srlab.round(x.astype(np.float64), fmt, "sr", srlab.Stream(5), scale="3/4")
        assert_same_bits(y32.astype(np.float64), y64, fmt)
        out = np.empty(x.shape, np.float32)
        srlab.round(x.astype(np.float64), fmt, "sr", srlab.Stream(5), scale="3/4", out=out)
        assert_same_bits(out.astype(np.float64), y64, f"{fmt} out=float32")
    # NVFP4's values are not binary32 numbers: float64 out
    assert srlab.round(x, "nvfp4", "rn").dtype == np.float64
    with pytest.raises(ValueError, match="^out: float32 cannot hold"):
        srlab.round(x, "nvfp4", "rn", out=np.empty(x.shape, np.float32))


def test_two_calls_are_one_call_on_the_concatenation():
    """Whole blocks: the second call's draws continue where the first stopped."""
    x = np.random.default_rng(4).standard_normal(256)
    s = srlab.Stream(9)
    a = srlab.round(x[:128], "mxfp4", "sr", s)
    b = srlab.round(x[128:], "mxfp4", "sr", s)
    assert s.counter == 256
    assert_same_bits(np.concatenate([a, b]), srlab.round(x, "mxfp4", "sr", srlab.Stream(9)),
                     "split")


def test_in_place_and_shape():
    x = np.random.default_rng(5).standard_normal((4, 64))
    want = srlab.round(x, "mxfp6", "rn")
    assert want.shape == (4, 64)
    y = x.copy()
    assert srlab.round(y, "mxfp6", "rn", out=y) is y
    assert_same_bits(y, want, "in place")


def test_errors_name_the_argument():
    x = np.ones(4)
    with pytest.raises(ValueError, match="^block: must be an integer from 1 to 4096"):
        srlab.round(x, "mxfp4", "rn", block=0)
    with pytest.raises(TypeError, match="^block: expected an int"):
        srlab.round(x, "mxfp4", "rn", block=2.0)
    with pytest.raises(ValueError, match="^scale: unknown scale rule 'half'"):
        srlab.round(x, "mxfp4", "rn", scale="half")
    with pytest.raises(ValueError, match="^block: applies only to a block format"):
        srlab.round(x, "bf16", "rn", block=32)
    with pytest.raises(ValueError, match="^scale: applies only to a block format"):
        srlab.round(x, "e2m1", "rn", scale="3/4")
    with pytest.raises(ValueError, match="^format: block format 'mxfp4,blocks=2'"):
        srlab.round(x, "mxfp4,blocks=2", "rn")
    with pytest.raises(ValueError, match="^format: .*NUL"):
        srlab.round(x, "mxfp4\0,block=2", "rn")
    s = srlab.Stream(1)
    with pytest.raises(ValueError):
        srlab.round(x, "mxfp4", "sr", s, scale="bad")
    assert s.counter == 0
