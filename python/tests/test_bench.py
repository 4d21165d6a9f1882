"""python/bench_round.py and python/bench_torch.py run and report every method (small sizes:
timings are not asserted here; BENCHMARKS.md records full runs)."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT


def test_bench_round_reports_every_method():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "python", "bench_round.py"),
                        "--n", "200000", "--reps", "3", "--modes", "rn,sr:r=16"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for mode in ("rn", "sr:r=16"):
        for method in ("numpy.copy", "srlab.round", "srlab.round out=", "C new buffer",
                       "C preallocated"):
            assert re.search(rf"^{re.escape(mode)} +{re.escape(method)} +[0-9.]+ +[0-9.]+ +"
                             rf"[0-9.]+ +[0-9.]+$", out, re.M), (mode, method, out)
        for what in ("medians", "minima"):
            assert re.search(rf"^{re.escape(mode)} +overhead of the binding \({what}\): "
                             rf"[-+][0-9.]+% \(new array\), [-+][0-9.]+% \(out=\)$", out,
                             re.M), out
        assert re.search(rf"^{re.escape(mode)} +fixed cost per call: [0-9.]+ us binding, "
                         rf"[0-9.]+ us C: -?[0-9.]+% of the C call on 200000 values$", out,
                         re.M), out


def test_bench_torch_prints_a_markdown_table():
    """python/bench_torch.py runs every pair on small sizes and prints one table row each."""
    pytest.importorskip("torch", reason="torch is not installed: bench_torch.py needs it")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "python", "bench_torch.py"),
                        "--n", "4096", "--params", "1000", "--batch", "8", "--features", "16",
                        "--reps", "2", "--clock", "cpu"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("| ") and "---" not in ln]
    assert rows[0].startswith("| srlab.torch | torch | size |") and len(rows) == 1 + 9
    for r in rows[1:]:
        cells = [c.strip() for c in r.strip("|").split("|")]
        assert len(cells) == 7 and float(cells[5]) > 0 and float(cells[6]) > 0, r
