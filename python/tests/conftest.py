"""Shared helpers of the srlab Python tests (python/tests).

Run by meson (`meson test -C build --suite python`), which sets PYTHONPATH to build/python (the
importable package in the build tree), SRLAB_CLI to the `srlab` command of the same build and
SRLAB_OPTIM_REF to python/tests/optim_ref.c's program. Run by hand from a build:

    PYTHONPATH=build/python SRLAB_CLI=build/src/cli/srlab \\
        SRLAB_OPTIM_REF=build/python/optim_ref /usr/bin/python3 -m pytest -q python/tests
"""

import csv
import math
import os
import subprocess

import numpy as np
import pytest

import srlab

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _tool(env, default):
    path = os.environ.get(env) or os.path.join(ROOT, default)
    if not os.access(path, os.X_OK):
        pytest.skip(f"{env} is not set and {path} does not exist: build first (ninja -C build)")
    return path


@pytest.fixture(scope="session")
def cli():
    """Path of the srlab command of this build."""
    return _tool("SRLAB_CLI", "build/src/cli/srlab")


@pytest.fixture(scope="session")
def optim_ref():
    """Path of the C optimizer reference (python/tests/optim_ref.c)."""
    return _tool("SRLAB_OPTIM_REF", "build/python/optim_ref")


def hexline(v):
    """A binary64 number as text the CLI reads exactly (C99 hex float, inf, nan)."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v.hex()


def run(args, stdin=""):
    p = subprocess.run(args, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def csv_rows(text):
    """The data rows of a CSV the CLI wrote (header dropped), as lists of fields."""
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    return list(csv.reader(lines[1:]))


def same_bits(a, b):
    """Elementwise: equal as binary64 bit patterns, every NaN equal to every NaN (the CLI prints
    NaN without sign or payload)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    return both_nan | (a.view(np.uint64) == b.view(np.uint64))


def assert_same_bits(a, b, what=""):
    ok = same_bits(a, b)
    if not ok.all():
        i = int(np.flatnonzero(~ok.reshape(-1))[0])
        a1 = np.asarray(a, dtype=np.float64).reshape(-1)
        b1 = np.asarray(b, dtype=np.float64).reshape(-1)
        raise AssertionError(f"{what}: {int((~ok).sum())} of {ok.size} differ; first at "
                             f"{i}: {a1[i].hex()} vs {b1[i].hex()}")


def format_values(fmt, rng, n_random=1500):
    """Binary64 inputs that exercise every rule of a rounding into fmt: values of the format
    (every encoding of narrow formats, a sample of wide ones), the midpoints between neighbours
    (ties) and the binary64 numbers on either side of them, the subnormal range and the tie
    below the smallest subnormal, the neighbourhood of xmin, xmax and the overflow threshold,
    binary64 subnormals, specials (NaN, +-inf, +-0), and random values over the format's
    exponent range and beyond."""
    vals = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 2.2250738585072014e-308,
            1.7976931348623157e308, -1.7976931348623157e308]
    enc = []
    if fmt.width <= 16:
        step = 1 if fmt.width <= 10 else 23
        codes = range(0, 1 << fmt.width, step)
    else:
        codes = rng.integers(0, 1 << min(fmt.width, 63), size=600, dtype=np.int64)
        codes = [int(c) | (int(rng.integers(0, 2)) << (fmt.width - 1)) for c in codes]
    for c in codes:
        try:
            enc.append(fmt.decode(int(c)))
        except ValueError:  # a pattern that denotes no value
            pass
    enc = np.array(enc, dtype=np.float64)
    vals.extend(enc.tolist())
    fin = enc[np.isfinite(enc) & (enc != 0)]
    if fmt.p < 53:
        ulps = np.array([fmt.ulp(v) for v in fin])
        mids = fin + np.sign(fin) * ulps / 2
        mids = mids[np.isfinite(mids)]
        vals.extend(mids.tolist())
        vals.extend(np.nextafter(mids, np.inf).tolist())
        vals.extend(np.nextafter(mids, -np.inf).tolist())
    top = fmt.xmax + fmt.ulp(fmt.xmax)
    special = [fmt.xsub, fmt.xsub / 2, fmt.xsub / 4, 3 * fmt.xsub / 4, fmt.xmin, fmt.xmin / 2,
               fmt.xmax, (fmt.xmax + top) / 2, top, 2 * top]
    with np.errstate(over="ignore"):
        for v in special:
            if math.isfinite(v) and v > 0:
                for w in (v, np.nextafter(v, 0), np.nextafter(v, math.inf)):
                    vals.extend([float(w), -float(w)])
    lo = max(math.log2(fmt.xsub) - 4, -1074)
    hi = min(math.log2(fmt.xmax) + 2, 1023)
    e = rng.uniform(lo, hi, size=n_random)
    r = np.exp2(e) * rng.choice([-1.0, 1.0], size=n_random)
    vals.extend(r[np.isfinite(r)].tolist())
    return np.array(vals, dtype=np.float64)


FORMATS = ["bf16", "fp16", "fp32", "tf32", "e4m3", "e5m2", "fp64",
           "p=5,emax=7,subnormals=off", "e4m3,saturate=on", "p=3,emax=4,inf=off"]
MODES = ["rn", "rna", "rz", "ru", "rd", "ro", "sr", "sr-eq", "sr:r=1", "sr:r=3", "sr:r=16",
         "sr:r=64"]


def binomial_bounds(n, p, alpha):
    """[lo, hi] such that a Binomial(n, p) count falls below lo or above hi with probability at
    most alpha/2 each, from the exact distribution (log-pmf summed over a window of 40 standard
    deviations around the mean; the mass outside is below 1e-300)."""
    if p <= 0:
        return 0, 0
    if p >= 1:
        return n, n
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    k0 = max(0, int(mean - 40 * sd) - 10)
    k1 = min(n, int(mean + 40 * sd) + 10)
    k = np.arange(k0, k1 + 1)
    lg = np.vectorize(math.lgamma)
    logpmf = (lg(n + 1.0) - lg(k + 1.0) - lg(n - k + 1.0) + k * math.log(p)
              + (n - k) * math.log1p(-p))
    pmf = np.exp(logpmf)
    cdf = np.cumsum(pmf)
    sf = np.cumsum(pmf[::-1])[::-1]  # P(X >= k)
    below = np.flatnonzero(cdf <= alpha / 2)  # P(X <= k) <= alpha/2: k is rejected
    above = np.flatnonzero(sf <= alpha / 2)   # P(X >= k) <= alpha/2: k is rejected
    lo = int(k[below[-1]]) + 1 if below.size else k0
    hi = int(k[above[0]]) - 1 if above.size else k1
    return lo, hi


def bernstein_halfwidth(var, alpha, b=1.0):
    """t with P(|S - E S| >= t) <= alpha for a sum S of independent terms in [0, b] of total
    variance var (Bernstein's inequality, 2 exp(-t^2 / (2 (var + b t / 3))) = alpha)."""
    L = math.log(2 / alpha)
    return b * L / 3 + math.sqrt((b * L / 3) ** 2 + 2 * var * L)


def pytest_sessionfinish(session, exitstatus):
    """When every test of the run was skipped (python3-torch absent for test_torch.py), exit
    77, meson's "skipped", so `meson test` shows SKIP rather than OK; the reason is in the log
    (pytest -rs)."""
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = tr.stats if tr is not None else {}
    ran = any(stats.get(k) for k in ("passed", "failed", "error", "xfailed", "xpassed"))
    if exitstatus in (0, 5) and not ran and stats.get("skipped"):
        session.exitstatus = 77


def doc_python_blocks(path="docs/python.md"):
    """The ```python blocks of a document, in order (python/tests/test_docs.py runs them)."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    blocks, pos = [], 0
    while True:
        a = text.find("```python\n", pos)
        if a < 0:
            return blocks
        b = text.index("\n```", a)
        blocks.append(text[a + len("```python\n"):b + 1])
        pos = b + 4
