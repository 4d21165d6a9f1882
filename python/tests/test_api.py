"""Formats, explanations, draws, generators and docstrings: the Python API against the CLI."""

import copy
import csv
import doctest
import inspect
import io
import math
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import srlab
from conftest import run

PUBLIC = ["round", "explain", "draws", "op", "explain_op", "sum", "dot", "gemv", "gemm",
          "gemm_draws", "accum_name", "formats", "strategies", "strategy_info", "threads",
          "set_threads", "default_stream"]


def cli_formats(cli, *specs):
    rows = list(csv.DictReader(io.StringIO(run([cli, "formats", "--csv", *specs]))))
    assert rows
    return rows


def test_formats_match_cli(cli):
    rows = cli_formats(cli)
    fs = srlab.formats()
    assert [f.name for f in fs] == [r["name"] for r in rows]
    for f, r in zip(fs, rows):
        check_format_row(f, r)


@pytest.mark.parametrize("spec", ["p=5,emax=7,subnormals=off", "e4m3,saturate=on",
                                  "p=3,emax=4,inf=off", "p=53,emax=1023,emin=-1022",
                                  "p=12,emax=20,emin=-3"])
def test_custom_formats_match_cli(cli, spec):
    (r,) = cli_formats(cli, spec)
    f = srlab.Format(spec)
    assert f.name == r["name"]
    check_format_row(f, r)


def check_format_row(f, r):
    onoff = {"on": True, "off": False}
    assert (f.p, f.emin, f.emax, f.width) == (int(r["p"]), int(r["emin"]), int(r["emax"]),
                                              int(r["width"]))
    assert (f.subnormals, f.has_inf, f.saturate) == (onoff[r["subnormals"]], onoff[r["inf"]],
                                                      onoff[r["saturate"]])
    assert f.u == float(r["u"]) == 2.0 ** -f.p
    assert f.xsub == float(r["smallest_subnormal"])
    assert f.xmin == float(r["smallest_normal"]) == 2.0 ** f.emin
    assert f.xmax == float(r["largest_finite"])


def test_format_example_of_the_issue():
    f = srlab.Format("p=5,emax=7,subnormals=off")
    assert (f.p, f.emin, f.emax, f.xmax, f.xmin, f.u, f.has_inf) == \
        (5, -6, 7, 248.0, 0.015625, 0.03125, True)
    assert f.xsub == f.xmin and not f.subnormals and f.fits_float and f.fits_bf16
    e = srlab.Format("e4m3")
    assert e.xmax == 448 and not e.has_inf and e.fits_bf16
    assert not srlab.Format("fp32").fits_bf16 and srlab.Format("fp32").fits_float
    assert not srlab.Format("fp64").fits_float


def test_format_values_and_methods():
    f = srlab.Format("bf16")
    assert f == srlab.Format("p=8,emax=127") and f != srlab.Format("fp16")
    assert hash(f) == hash(srlab.Format("p=8,emax=127"))
    assert pickle.loads(pickle.dumps(srlab.Format("e4m3,saturate=on"))) == \
        srlab.Format("e4m3,saturate=on")
    assert repr(f) == "srlab.Format('bf16')" and str(f) == "bf16"
    assert srlab.Format(f) == f
    assert f.ulp(1.0) == 2.0 ** -7 and f.ulp(0.0) == f.xsub
    assert f.contains(1.0078125) and not f.contains(1.001) and f.contains(math.nan)
    assert f.encode(1.0) == 0x3F80 and f.decode(0x3F80) == 1.0
    assert f.encode(-0.0) == 0x8000
    e4 = srlab.Format("e4m3")
    for code in range(256):
        v = e4.decode(code)
        if not math.isnan(v):
            assert e4.encode(v) == code
    with pytest.raises(ValueError, match="not a value of bf16"):
        f.encode(0.1)
    with pytest.raises(ValueError, match="bits"):
        f.decode(1 << 16)


def test_explain_matches_cli_teaching_view(cli):
    """`srlab round X -r sr --seed S` prints the draw it used; srlab.draws gives the same word,
    and srlab.explain the same neighbours, p_up and result."""
    out = run([cli, "round", "0.1", "2.5", "-3e-40", "-r", "sr", "--seed", "5"])
    draws = [int(h, 16) for h in re.findall(r"draw +number \d+ of stream 0: (0x[0-9a-f]+)", out)]
    assert list(srlab.draws(3, srlab.Stream(5))) == draws
    results = [float.fromhex(h) for h in re.findall(r"^ +result +\S+ +(\S+)", out, re.M)]
    s = srlab.Stream(5)
    e = srlab.explain(np.array([0.1, 2.5, -3e-40]), "bf16", "sr", s)
    assert list(e.result) == results
    assert e.counter == 3 and s.counter == 3


def test_explain_fields():
    e = srlab.explain(np.array([[1.0, 1.00390625], [np.inf, -np.nan]]), "bf16", "rn")
    assert e.rd.shape == (2, 2) and e.exact.dtype == np.bool_ and e.ternary.dtype == np.int8
    assert e.exact.tolist() == [[True, False], [True, True]]
    assert e.result[0, 1] == 1.0 and e.p_up[0, 1] == 0.0  # a tie: rn keeps the even neighbour
    assert e.frac[0, 1] == 0.5
    assert e.ulp[0, 0] == 2.0 ** -7
    e = srlab.explain(1.0 + 2.0 ** -30, "fp32", "sr")
    assert e.frac == 2.0 ** -7 and e.p_up == 2.0 ** -7  # 2^-30 / 2^-23


def test_draws_and_streams():
    S = srlab.Stream
    s = S(seed=3, stream=2, counter=5)
    d = srlab.draws(10, s)
    assert d.dtype == np.uint64 and len(d) == 10 and s.counter == 15
    assert list(srlab.draws(5, S(3, 2, 10))) == list(d[5:])
    assert list(srlab.draws(4, S(3, 2, 5, rng="pcg64"))) != list(d[:4])
    g = srlab.Generator(seed=3, stream=2, counter=5)  # the old name
    assert type(g) is S
    assert list(g.draws(4)) == list(d[:4]) and g.counter == 9
    assert repr(g) == "srlab.Stream(seed=3, stream=2, counter=9, rng='pcg32')"
    assert eval(repr(g), {"srlab": srlab}) == g
    assert pickle.loads(pickle.dumps(g)) == g and copy.deepcopy(g) == g and g.copy() is not g
    g2 = g.copy()
    g2.draws(1)
    assert g.counter == 9 and g2.counter == 10 and g2 != g
    g.counter = 0
    g.seed, g.stream, g.rng = 4, 5, "pcg64"
    assert g == S(4, 5, 0, "pcg64")
    for bad, exc in (({"seed": -1}, ValueError), ({"rng": "mt19937"}, ValueError),
                     ({"counter": 1.5}, TypeError), ({"stream": 2 ** 64}, ValueError),
                     ({"rng": "pcg32\0"}, ValueError)):
        with pytest.raises(exc, match=list(bad)[0]):
            S(**bad)
    with pytest.raises(ValueError, match="counter"):
        S(counter=2 ** 64 - 3).draws(5)
    # derive: srl_rng_derive, the streams srlab train gives its tensors
    c = S(7).derive("writes")
    assert c.seed == 7 and c.counter == 0 and c.stream != 0
    assert c == S(7, counter=99).derive("writes") and c != S(7).derive("other")
    assert S(7).derive(12).stream != S(7).derive(13).stream


def test_strategies():
    assert srlab.strategies() == ["fp32", "mp", "bf16-rn", "bf16-sr", "bf16-sr-exact",
                                  "bf16-kahan", "mp-tc", "custom"]
    info = srlab.strategy_info("bf16-sr")
    assert info["param"] == (srlab.Format("bf16"), "sr:r=16")
    assert info["master"] is None and info["bytes_per_param"] == 8
    assert srlab.strategy_info("mp")["master"] == (srlab.Format("fp32"), "rn")
    assert srlab.strategy_info("bf16-kahan")["bytes_per_param"] == 10
    custom = srlab.strategy_info({"strategy": "bf16-sr", "param-rounding": "rd"})
    assert custom["param"][1] == "rd"


def test_every_public_function_is_documented():
    for name in PUBLIC + ["Format", "Stream", "Explanation"]:
        obj = getattr(srlab, name)
        assert obj.__doc__ and len(obj.__doc__) > 80, name
    for name in PUBLIC:
        inspect.signature(getattr(srlab, name))  # the text signature parses
    for name in ("p", "emin", "emax", "xmax", "xmin", "u", "has_inf", "ulp", "encode"):
        assert getattr(srlab.Format, name).__doc__, name
    assert srlab.__doc__ and "round" in srlab.__doc__


def squash(s):
    return " ".join(s.split())


def test_help_round_says_what_the_cli_help_says(cli):
    """The format and mode lists, the custom spec syntax, the seed and draw conventions of
    `srlab round --help` appear in help(srlab.round)."""
    clihelp = run([cli, "round", "--help"])
    doc = squash(srlab.round.__doc__)
    fm = re.search(r"--format FMT\s+(.*?)\n\s+-", clihelp, re.S).group(1)
    # the element formats (srlab.round has no block formats: the CLI's list goes on with them)
    fm = squash(fm).replace("bf16 (default), ", "bf16, ").split(", or a block format")[0]
    assert fm in doc, fm
    modes = re.search(r"--rounding MODE\s+(.*?)\n", clihelp).group(1)
    modes = squash(modes).replace("rn (default), ", "rn, ").replace("sr, sr-eq",
                                                                    "sr (default here), sr-eq")
    assert modes in doc, modes
    assert squash("data line k (from 0) uses draw k of stream 0 of the seed") in doc
    assert squash("`srlab round --batch`") in doc
    assert "srlab.Stream" in doc  # whose help names the generators, as --rng does
    assert "'pcg32'" in srlab.Stream.__doc__ and "'pcg64'" in srlab.Stream.__doc__


def test_docstring_examples():
    """The examples in the docstrings run and print what they say."""
    globs = {"srlab": srlab, "np": np}
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    n = 0
    for name in PUBLIC + ["Format", "Stream"]:
        for test in finder.find(getattr(srlab, name), name, globs=dict(globs)):
            n += len(test.examples)
            runner.run(test)
    assert n >= 8
    assert runner.failures == 0


def test_an_interpreter_without_numpy_is_told_so_in_one_line():
    """python3 -S (no site directories, so no NumPy) importing the package: an ImportError
    whose one-line message says NumPy is missing and how to install it (it was "numpy.core.
    multiarray failed to import")."""
    pkg_root = os.path.dirname(os.path.dirname(srlab.__file__))
    p = subprocess.run([sys.executable, "-S", "-c",
                        f"import sys; sys.path.insert(0, {pkg_root!r}); import srlab"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    last = p.stderr.strip().splitlines()[-1]
    assert last == ("ImportError: srlab needs NumPy, which this Python cannot import: install "
                    "it (Debian: apt-get install python3-numpy; or pip install numpy)"), p.stderr
    assert "multiarray" not in p.stderr
