"""python/bench_round.py runs and reports every method and the binding's overhead (a small n:
timings are not asserted here; BENCHMARKS.md records a full run)."""

import os
import re
import subprocess
import sys

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
