"""The ```python blocks of docs/python.md run, in order, in one namespace, and do what the text
around them says (the torch blocks only where torch is installed)."""

import importlib.util

import numpy as np

import srlab
from conftest import doc_python_blocks


def test_docs_python_blocks_run(capsys):
    blocks = doc_python_blocks()
    assert len(blocks) >= 4
    have_torch = importlib.util.find_spec("torch") is not None
    env = {}
    ran = 0
    for block in blocks:
        if "torch" in block and not have_torch:
            continue
        exec(compile(block, "docs/python.md", "exec"), env)
        ran += 1
    out = capsys.readouterr().out.splitlines()
    assert abs(float(out[0])) < 0.01  # the mean error over u: unbiased
    assert env["s"].counter == 10 ** 6 and env["z"].dtype == np.float32
    assert env["p"] == 2.0 ** -177 and env["f"].xmax == 248.0 and env["C"].shape == (64, 64)
    if have_torch:
        import torch
        assert ran == len(blocks)
        assert env["a"].grad is not None and torch.equal(
            env["a"].grad, srlab.torch.round(env["a"].grad, "e5m2", "rn"))  # e5m2 values
        assert out[-1].startswith("loss ")
        assert env["opt"].state[env["net"][0].weight]["step"] == 100
        assert float(out[-1].split()[1].rstrip(";")) < 0.5 * float(
            ((env["yb"].float() - env["yb"].float().mean()) ** 2).mean())  # it learned


def test_docs_say_how_to_install():
    from conftest import ROOT
    import os
    text = open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8").read()
    assert "pip install --no-build-isolation ." in text
    assert "python3 -m venv --system-site-packages" in text


def test_readme_python_block(capsys, cli):
    """README.md's one ```python block runs and does what its comments say: the stream's counter
    moves past the 10^6 draws, the mean error over u is 0 within 6 standard errors, and the
    values are `srlab round --batch -f bf16 -r sr --seed 1`'s bit for bit (the first 2000)."""
    from conftest import assert_same_bits, csv_rows, hexline, run
    (block,) = doc_python_blocks("README.md")
    env = {}
    exec(compile(block, "README.md", "exec"), env)
    counter, mean = capsys.readouterr().out.split()
    x, y, s = env["x"], env["y"], env["s"]
    assert int(counter) == s.counter == x.size == 10 ** 6
    err = (y - x) / srlab.Format("bf16").u
    assert abs(float(mean)) <= 6 * err.std() / np.sqrt(err.size)
    out = run([cli, "round", "--batch", "-f", "bf16", "-r", "sr", "--seed", "1", "--quiet"],
              "\n".join(hexline(v) for v in x[:2000]) + "\n")
    assert_same_bits(np.array([float.fromhex(r[6]) for r in csv_rows(out)]), y[:2000])
