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
