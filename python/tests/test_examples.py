"""The examples users copy: python/examples/torch_mlp.py trains every strategy, and
python/examples/torch_gpt.py prints the summary columns of `srlab sweep` (the same header as a
real sweep's, statistics computed as the sweep computes them), on generated text and on a file."""

import csv
import io
import math
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (Debian: apt-get install python3-torch): the torch "
                    "tests are skipped")

from conftest import ROOT, run  # noqa: E402

EXAMPLES = os.path.join(ROOT, "python", "examples")
STRATEGIES = ["fp32", "mp", "bf16-rn", "bf16-sr", "bf16-sr-exact", "bf16-kahan"]


def example(name, *args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_mlp_example_trains_every_strategy():
    out = example("torch_mlp.py", "--steps", "4", "--hidden", "16")
    for s in STRATEGIES + ["plain-torch-sr", "torch-adamw"]:
        assert any(ln.split()[0] == s for ln in out.splitlines() if ln.strip()), s


def summary(text):
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    return lines[0], list(csv.DictReader(io.StringIO("\n".join(lines))))


def test_gpt_example_prints_the_sweep_summary(cli, tmp_path):
    """Generated text (whose entropy rate gives final_loss_gap) and a text file (no gap): one
    line per strategy with the columns of `srlab sweep`'s summary, in its order."""
    small = ["--steps", "3", "--log-every", "2", "--seeds", "2", "--d-model", "16", "--layers",
             "1", "--heads", "2", "--ctx", "8", "--batch", "4", "--eval-batches", "1"]
    out = example("torch_gpt.py", *small)
    header, rows = summary(out)
    sweep_dir = tmp_path / "sweep"
    sweep_dir.mkdir()
    run([cli, "sweep", "--problem", "gpt", "--strategy", "fp32", "--steps", "1", "--seeds", "1",
         "--quiet", "-o", str(sweep_dir / "s")])
    want, _ = summary((sweep_dir / "s.summary.csv").read_text())
    assert header == want
    assert [r["strategy"] for r in rows] == ["fp32", "mp", "bf16-rn", "bf16-sr", "bf16-kahan"]
    for r in rows:
        assert r["seeds"] == "2" and r["diverged"] == "0" and r["final_loss_n"] == "2"
        assert r["final_loss_gap_n"] == "2" and r["final_dist_to_opt_n"] == "0"
        assert float(r["best_loss_mean"]) <= float(r["final_loss_mean"]) + 1e-12
        mean, sd = float(r["final_loss_mean"]), float(r["final_loss_sd"])
        half = 12.706204736174707 * sd / math.sqrt(2)  # t(0.975, 1), as GSL gives it
        assert math.isclose(float(r["final_loss_ci95_hi"]), mean + half, rel_tol=1e-12)
    assert rows[3]["rounding"] == "sr:r=16" and rows[1]["format"] == "bf16"
    book = tmp_path / "book.txt"
    book.write_text("the quick brown fox jumps over the lazy dog. " * 40, encoding="utf-8")
    out = example("torch_gpt.py", *small, "--text", str(book), "--strategies", "bf16-sr",
                  "--accum", "prod=bf16:rn,acc=bf16:sr", "-o", str(tmp_path / "s.csv"))
    assert out == ""
    header, rows = summary((tmp_path / "s.csv").read_text())
    assert header == want and len(rows) == 1 and rows[0]["final_loss_gap_n"] == "0"


def test_student_t_quantiles():
    sys.path.insert(0, EXAMPLES)
    try:
        import torch_gpt
    finally:
        sys.path.remove(EXAMPLES)
    # t(0.975, nu) to 15 digits (GSL's gsl_cdf_tdist_Pinv, which srlab sweep uses)
    for nu, want in ((1, 12.706204736174707), (2, 4.302652729749464), (4, 2.7764451051977934),
                     (10, 2.2281388519862744), (30, 2.0422724563012378)):
        assert math.isclose(torch_gpt.t_quantile(0.975, nu), want, rel_tol=1e-12), nu
