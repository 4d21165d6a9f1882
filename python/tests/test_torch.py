"""srlab.torch: round_ on tensors, AdamW against `srlab train` and against the C optimizer
called directly (bit for bit, every strategy), resuming from a state dict, threads, and the
comparison with the seed paper's optimizer written plainly in torch."""

import copy
import csv
import io
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="python3-torch is not installed (apt-get install python3-torch): the torch "
                    "tests are skipped")

import srlab  # noqa: E402
import srlab.torch as st  # noqa: E402
from conftest import (ROOT, assert_same_bits, bernstein_halfwidth, binomial_bounds,  # noqa: E402
                      hexline, run)

STRATEGIES = ["fp32", "mp", "bf16-rn", "bf16-sr", "bf16-sr-exact", "bf16-kahan"]


def f64(t):
    return t.detach().to(torch.float64).numpy().reshape(-1)


# ---- round_ ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_round_inplace_matches_srlab_round(dtype):
    base = torch.randn(40, 30, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    t = (base * 100).to(dtype).t()  # non-contiguous
    x = t.to(torch.float64).contiguous().numpy().copy()
    g = srlab.Generator(seed=9, counter=4)
    before = t._version
    out = st.round_(t, "e5m2", "sr", generator=g)
    assert out is t and t.dtype == dtype and g.counter == 4 + t.numel()
    assert t._version > before  # autograd knows the tensor changed
    want, _ = srlab.round(x, "e5m2", "sr", seed=9, counter=4)
    assert_same_bits(f64(t.contiguous()), want.reshape(-1), f"round_ {dtype}")
    # deterministic modes draw nothing
    st.round_(t, "p=7,emax=20,emin=-20", "rn", generator=g)
    assert g.counter == 4 + t.numel()


def test_round_bfloat16_bits_and_default_generator():
    t = torch.randn(1000, generator=torch.Generator().manual_seed(2)).to(torch.bfloat16)
    x = t.float().numpy().copy()
    g0 = st.default_generator().counter
    st.round_(t, "e4m3", "sr")
    assert st.default_generator().counter == g0 + 1000
    want, _ = srlab.round(x, "e4m3", "sr", seed=1, counter=g0)
    assert want.dtype == np.float32
    assert t.view(torch.int16).numpy().tobytes() == \
        (want.view(np.uint32) >> 16).astype(np.uint16).tobytes()


def test_round_errors_leave_the_tensor_unchanged():
    t = torch.linspace(-2, 2, 9, dtype=torch.bfloat16)
    keep = t.clone()
    cases = [
        (lambda: st.round_(t, "fp32", "rn"), ValueError, "^format: a torch.bfloat16 tensor"),
        (lambda: st.round_(t, "bf17"), ValueError, "^format: unknown format"),
        (lambda: st.round_(t, "bf16", "near"), ValueError, "^rounding: "),
        (lambda: st.round_(t, "bf16", "sr", generator=torch.Generator()), TypeError,
         "^generator: "),
        (lambda: st.round_(t.half(), "bf16"), TypeError, "^tensor: expected a float32"),
        (lambda: st.round_(np.ones(3), "bf16"), TypeError, "^tensor: expected a torch.Tensor"),
        (lambda: st.round_(t.to_sparse(), "bf16"), ValueError, "^tensor: has layout"),
        (lambda: st.round_(t, "bf16", "sr", generator=srlab.Generator(counter=2 ** 64 - 2)),
         ValueError, "^counter: "),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()
        assert torch.equal(t.view(torch.int16), keep.view(torch.int16))


# ---- AdamW against srlab train ----

def train_rows(cli, strategy_args, seed, rng="pcg32"):
    out = run([cli, "train", "--problem", "quad1d", "--opt", "adamw", *strategy_args,
               "--lr", "0.02", "--wd", "0.1", "--beta2", "0.99", "--eps", "1e-6",
               "--schedule", "cosine", "--warmup", "3", "--lr-min", "0.002",
               "--steps", "30", "--log-every", "1", "--seed", str(seed), "--rng", rng,
               "--xstar", "0.3", "--x0", "1"])
    lines = [ln for ln in out.splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


TRAIN_CASES = [(s, ["--strategy", s], s) for s in STRATEGIES] + [
    ("bf16-sr+fp32-state", ["--strategy", "bf16-sr", "--state-format", "fp32"],
     {"strategy": "bf16-sr", "state-format": "fp32"}),
    ("bf16-sr-exact+sr-grad", ["--strategy", "bf16-sr-exact", "--grad-rounding", "sr"],
     {"strategy": "bf16-sr-exact", "grad-rounding": "sr"}),
]


@pytest.mark.parametrize("label,args,strategy", TRAIN_CASES, ids=[c[0] for c in TRAIN_CASES])
def test_adamw_matches_srlab_train(cli, label, args, strategy):
    """quad1d, f(x) = (x - 0.3)^2 / 2, 30 AdamW steps under a cosine schedule: after every
    step the parameter (the master for mp), both moments and the lost-update flag equal the
    x, m, v and lost_update_frac columns of `srlab train`, bit for bit, for three seeds."""
    for seed, rng in ((1, "pcg32"), (2, "pcg32"), (3, "pcg64")):
        rows = train_rows(cli, args, seed, rng)
        assert len(rows) == 31
        p = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        opt = st.AdamW([("x", p)], lr=0.02, betas=(0.9, 0.99), eps=1e-6, weight_decay=0.1,
                       strategy=strategy, seed=seed, rng=rng)
        state = opt.state[p]
        has_master = "master" in state

        def check(row):
            x = state["master"] if has_master else p
            assert float(x.double()) == float(row["x"]), (label, seed, row["step"])
            assert float(state["exp_avg"].double()) == float(row["m"]), (label, seed, row["step"])
            assert float(state["exp_avg_sq"].double()) == float(row["v"]), (label, seed,
                                                                            row["step"])

        check(rows[0])
        for row in rows[1:]:
            opt.param_groups[0]["lr"] = float(row["lr_used"])
            p.grad = 1.0 * (p.detach() - 0.3)  # the problem's gradient, in binary64, at the
            opt.step()                          # weights forward reads (mp: the bf16 cast)
            check(row)
            assert opt.last_stats["lost"] == float(row["lost_update_frac"])
        assert state["step"] == 30


# ---- AdamW against the C optimizer called directly ----

SHAPES = [("layer.weight", (3000, 7)), ("layer.bias", (37,)), ("w2", (5, 4)), ("s", (1,))]


def make_params(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return [(name, torch.nn.Parameter((0.5 * torch.randn(*shape, generator=g,
                                                         dtype=torch.float64)).to(dtype)))
            for name, shape in SHAPES]


def run_c_reference(optim_ref, strategy, seed, rng, hyper, x0s, steps):
    """steps: [(t, lr, [grad arrays])]. Returns {t: {(name, tensor): float64 array}}."""
    lines = [f"seed {seed}", f"rng {rng}"]
    cfg = strategy if isinstance(strategy, dict) else {"strategy": strategy}
    lines += [f"cfg {k} {v}" for k, v in cfg.items()]
    lines.append("hyper " + " ".join(hexline(v) for v in hyper) + " " + hexline(0.0))
    for name, x0 in x0s:
        lines.append(f"weight {name.replace('.', '/')} {x0.size} " +
                     " ".join(hexline(v) for v in x0))
    for t, lr, grads in steps:
        lines.append(f"step {t} {hexline(lr)}")
        lines += ["grad " + " ".join(hexline(v) for v in g) for g in grads]
    out = run([optim_ref], "\n".join(lines) + "\n")
    res, cur = {}, None
    for ln in out.splitlines():
        f = ln.split()
        if f[0] == "step":
            cur = res.setdefault(int(f[1]), {})
        elif f[0] != "stats":
            cur[(f[0], f[1])] = np.array([float.fromhex(v) for v in f[2:]])
    return res


C_CASES = ([(s, st.param_dtype(s)) for s in STRATEGIES] +
           [("bf16-sr", torch.float32), ("bf16-sr", torch.float64), ("mp", torch.float32),
            ({"strategy": "bf16-kahan", "comp-format": "fp32"}, torch.bfloat16),
            ({"strategy": "custom", "param-format": "e5m2", "param-rounding": "sr"},
             torch.bfloat16)])


@pytest.mark.parametrize("strategy,dtype", C_CASES, ids=[f"{c[0]}-{c[1]}".replace("torch.", "")
                                                         for c in C_CASES])
def test_adamw_matches_the_c_optimizer(optim_ref, strategy, dtype):
    """Four parameters (one of 21000 elements, so the fused kernel's parallel chunks run), four
    steps with changing lr: weights, moments, master and Kahan buffer after every step equal
    the C optimizer's (all weights in one srl_weights, as srlab train allocates them)."""
    seed, rng = 17, "pcg32"
    hyper = (0.9, 0.995, 1e-8, 0.05)
    params = make_params(dtype, 5)
    x0s = [(n, f64(p).copy()) for n, p in params]
    opt = st.AdamW(params, lr=1e-3, betas=hyper[:2], eps=hyper[2], weight_decay=hyper[3],
                   strategy=strategy, seed=seed, rng=rng)
    g = torch.Generator().manual_seed(6)
    steps = []
    mine = {}
    for t, lr in ((1, 1e-2), (2, 3e-3), (3, 3e-3), (4, 5e-4)):
        grads = []
        for _, p in params:
            p.grad = torch.randn(p.shape, generator=g, dtype=torch.float64).to(dtype)
            grads.append(f64(p.grad))
        opt.param_groups[0]["lr"] = lr
        opt.step()
        steps.append((t, lr, grads))
        snap = {}
        for name, p in params:
            s = opt.state[p]
            key = name.replace(".", "/")
            snap[(key, "param")] = f64(p).copy()
            for k, which in (("exp_avg", "m"), ("exp_avg_sq", "v"), ("master", "master"),
                             ("kahan_comp", "comp")):
                if k in s:
                    snap[(key, which)] = f64(s[k]).copy()
        mine[t] = snap
    ref = run_c_reference(optim_ref, strategy, seed, rng, hyper, x0s, steps)
    for t in mine:
        assert set(mine[t]) == set(ref[t])
        for k in ref[t]:
            assert_same_bits(mine[t][k], ref[t][k], f"step {t} {k}")


def grads_of(params, k):
    """The gradients of step k (from 0), a pure function of k: the same in every run."""
    for j, (_, p) in enumerate(params):
        g = torch.Generator().manual_seed(1000 * k + j)
        p.grad = torch.randn(p.shape, generator=g).to(p.dtype)


def blob(params):
    return b"".join(p.detach().view(torch.int16).numpy().tobytes() for _, p in params)


def test_adamw_threads_and_resume():
    """The same steps on 1 and 3 threads give the same bits; a run resumed from a state dict
    continues bit for bit."""
    def train(threads, ks, params=None, state=None):
        before = srlab.threads()
        srlab.set_threads(threads)
        try:
            params = params or make_params(torch.bfloat16, 8)
            opt = st.AdamW(params, lr=3e-3, weight_decay=0.1, strategy="bf16-sr", seed=4)
            if state is not None:
                opt.load_state_dict(state)
            for k in ks:
                grads_of(params, k)
                opt.step()
            return params, opt
        finally:
            srlab.set_threads(before)

    full, _ = train(1, range(4))
    full3, _ = train(3, range(4))
    assert blob(full) == blob(full3)

    # two steps, save (deep copies: the state tensors are views of the live state), two more
    half, opt = train(1, range(2))
    saved = copy.deepcopy(opt.state_dict())
    saved_params = copy.deepcopy(half)
    assert saved["state"][0]["exp_avg"].dtype == torch.bfloat16
    assert saved["state"][0]["step"] == 2 and saved["srlab"]["seed"] == 4
    resumed, opt2 = train(1, range(2, 4), params=saved_params, state=saved)
    assert opt2.state[resumed[0][1]]["step"] == 4
    assert blob(resumed) == blob(full)
    # without the state the continuation differs (the test can fail)
    fresh, _ = train(1, range(2, 4), params=copy.deepcopy(half))
    assert blob(fresh) != blob(full)
    # a state dict of another seed is refused, and nothing changes
    other = st.AdamW(make_params(torch.bfloat16, 8), strategy="bf16-sr", seed=5)
    m_before = other.state[other.param_groups[0]["params"][0]]["exp_avg"].clone()
    with pytest.raises(ValueError, match="seed"):
        other.load_state_dict(saved)
    assert torch.equal(other.state[other.param_groups[0]["params"][0]]["exp_avg"], m_before)


def test_adamw_errors():
    p = torch.nn.Parameter(torch.ones(3, dtype=torch.bfloat16))
    q = torch.nn.Parameter(torch.ones(3))
    cases = [
        (lambda: st.AdamW([p], strategy="bf17"), ValueError, "^strategy: "),
        (lambda: st.AdamW([p], strategy={"strategy": "mp", "kahan": "on"}), ValueError,
         "^strategy: "),
        (lambda: st.AdamW([p], strategy="fp32"), ValueError,
         "^params: a torch.bfloat16 parameter cannot hold every value of fp32"),
        (lambda: st.AdamW([p], lr=-1), ValueError, "^lr: "),
        (lambda: st.AdamW([p], betas=(0.9, 1.0)), ValueError, r"^betas: betas\[1\]"),
        (lambda: st.AdamW([p], betas=0.9), TypeError, "^betas: "),
        (lambda: st.AdamW([p], eps=0), ValueError, "^eps: "),
        (lambda: st.AdamW([p], weight_decay=-0.1), ValueError, "^weight_decay: "),
        (lambda: st.AdamW([p], seed=-1), ValueError, "^seed: "),
        (lambda: st.AdamW([p], rng="mt"), ValueError, "^rng: "),
        (lambda: st.AdamW([p.half()]), TypeError, "^params: expected a float32"),
        (lambda: st.AdamW([("a", p), ("a", q)]), ValueError, "^params: two parameters are "
                                                             "called 'a'"),
        (lambda: st.AdamW([("x" * 60, p)]), ValueError, "^params: parameter 'xxx.*': the name "
                                                        "must have 1 to 56 characters"),
        (lambda: st.AdamW([torch.nn.Parameter(torch.tensor([1e39], dtype=torch.float64))],
                          strategy="bf16-rn"), ValueError, "^params: .*cannot hold"),
        (lambda: st.AdamW([torch.nn.Parameter(torch.tensor([np.inf]))]), ValueError,
         "^params: .*not finite"),
        (lambda: st.AdamW(p), TypeError, "^params: "),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()
    assert torch.equal(p, torch.ones(3, dtype=torch.bfloat16))
    opt = st.AdamW([p], lr=1e-2)
    opt.param_groups[0]["lr"] = float("nan")
    p.grad = torch.ones(3, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="^lr: "):
        opt.step()
    assert torch.equal(p, torch.ones(3, dtype=torch.bfloat16))


# ---- the seed paper's optimizer, plainly in torch ----

def bf16_params(seed, n=200_000):
    g = torch.Generator().manual_seed(seed)
    return [torch.nn.Parameter((0.1 * torch.randn(n, generator=g)).to(torch.bfloat16)),
            torch.nn.Parameter(torch.randn(33, 3, generator=g).to(torch.bfloat16))]


def test_plain_paper_optimizer_with_srlab_draws_is_bit_identical():
    """PlainSRAdamW fed with srlab's draws for each parameter's weight writes (the top 16 bits
    of draw (t-1) n + i of the weight tensor's stream) reproduces srlab's bf16-sr AdamW bit for
    bit: weights and both moments, over several steps. So srlab's bf16-sr is exactly the seed
    paper's optimizer."""
    mine, plain = bf16_params(1, 50_000), bf16_params(1, 50_000)
    opt = st.AdamW(mine, lr=1e-2, weight_decay=0.1, strategy="bf16-sr", seed=12)
    streams = {id(q): opt._srl[id(p)].stream("param") for p, q in zip(mine, plain)}

    def srlab_bits(p, t):
        seed, stream, kind = streams[id(p)]
        n = p.numel()
        u = srlab.draws(n, seed, stream, (t - 1) * n, rng=kind)
        return torch.from_numpy((u >> np.uint64(48)).astype(np.int32))

    popt = st.PlainSRAdamW(plain, lr=1e-2, weight_decay=0.1, random_bits=srlab_bits)
    g = torch.Generator().manual_seed(3)
    for _ in range(5):
        for p, q in zip(mine, plain):
            grad = torch.randn(p.shape, generator=g).to(torch.bfloat16)
            p.grad, q.grad = grad.clone(), grad.clone()
        opt.step()
        popt.step()
        for p, q in zip(mine, plain):
            assert torch.equal(p.view(torch.int16), q.view(torch.int16))
            for k in ("exp_avg", "exp_avg_sq"):
                assert torch.equal(opt.state[p][k].view(torch.int16),
                                   popt.state[q][k].view(torch.int16))


def one_step(strategy, params_seed, grads, opt_seed):
    ps = bf16_params(params_seed)
    if strategy == "xe":  # the fp32 update itself, stored exactly in fp32
        ps = [torch.nn.Parameter(p.detach().float()) for p in ps]
        strategy = {"strategy": "bf16-rn", "param-format": "fp32"}
    opt = st.AdamW(ps, lr=1e-2, weight_decay=0.1, strategy=strategy, seed=opt_seed)
    for p, g in zip(ps, grads):
        p.grad = g.to(p.dtype)
    opt.step()
    return torch.cat([p.detach().float().reshape(-1) for p in ps]).double().numpy()


def test_plain_paper_optimizer_has_srlab_bf16_sr_distribution():
    """One step from the same weights and gradients. The fp32 update xe is the same (every
    plain result and every srlab bf16-sr result is one of xe's two bf16 neighbours); each
    element rounds up with probability p_i = the fraction of xe (exact: sr:r=16 of an fp32
    value); the number of round-ups of both optimizers, over 200033 elements and 3 seeds, lies
    within Bernstein bounds around sum p_i (false alarm 1e-6 per check)."""
    g = torch.Generator().manual_seed(21)
    grads = [torch.randn(p.shape, generator=g).to(torch.bfloat16) for p in bf16_params(2)]
    xe = one_step("xe", 2, grads, 1)
    lo = one_step({"strategy": "bf16-sr", "param-rounding": "rd"}, 2, grads, 1)
    hi = one_step({"strategy": "bf16-sr", "param-rounding": "ru"}, 2, grads, 1)
    assert np.array_equal(lo, srlab.round(xe, "bf16", "rd")) and \
        np.array_equal(hi, srlab.round(xe, "bf16", "ru"))
    pe = srlab.explain(xe, "bf16", "sr:r=16")
    p = np.where(lo == hi, 0.0, pe.p_up)
    assert np.array_equal(pe.p_up, srlab.explain(xe, "bf16", "sr").p_up)  # fp32 xe: exact
    mean, var = p.sum(), (p * (1 - p)).sum()
    half = bernstein_halfwidth(var, 1e-6)
    assert var > 1000  # the test has power: thousands of elements are truly random
    for seed in (1, 2, 3):
        ours = one_step("bf16-sr", 2, grads, seed)
        ps = bf16_params(2)
        popt = st.PlainSRAdamW(ps, lr=1e-2, weight_decay=0.1,
                               generator=torch.Generator().manual_seed(seed))
        for q, gr in zip(ps, grads):
            q.grad = gr.clone()
        popt.step()
        plain = torch.cat([q.detach().float().reshape(-1) for q in ps]).double().numpy()
        for name, r in (("srlab bf16-sr", ours), ("plain torch", plain)):
            assert np.all((r == lo) | (r == hi)), name
            ups = int(np.count_nonzero((r == hi) & (lo != hi)))
            assert abs(ups - mean) <= half, (name, seed, ups, mean, half)


def test_exact_sr_is_unbiased_where_the_plain_trick_is_not():
    """For fp32 inputs the plain trick (sr:r=16) and exact SR have the same probabilities, the
    exact fraction: both unbiased. For binary64 inputs with bits below the 16 random ones the
    trick is biased toward zero: x = 1 + 2^-25 (f = 2^-18 of bf16's ulp) never rounds up with
    the trick (in torch on float32(x) = 1, or srlab's sr:r=16), while srlab's exact sr rounds
    up with probability exactly 2^-18 (the count over 2^24 draws is checked against exact
    binomial bounds; P(no up at all) = e^-64)."""
    x32 = (torch.randn(100_000, generator=torch.Generator().manual_seed(5)) * 3).numpy()
    x = x32.astype(np.float64)
    e_exact, e_trick = srlab.explain(x, "bf16", "sr"), srlab.explain(x, "bf16", "sr:r=16")
    assert np.array_equal(e_exact.p_up, e_trick.p_up)
    assert np.array_equal(e_exact.frac, np.where(e_exact.exact, 0, e_exact.frac))

    x = 1.0 + 2.0 ** -25
    n = 1 << 24
    e = srlab.explain(x, "bf16", "sr")
    assert e.p_up == 2.0 ** -18 and e.frac == 2.0 ** -18
    assert srlab.explain(x, "bf16", "sr:r=16").p_up == 0.0
    y, _ = srlab.round(np.full(n, x), "bf16", "sr", seed=31)
    ups = int(np.count_nonzero(y > 1.0))
    lo, hi = binomial_bounds(n, 2.0 ** -18, 1e-6)
    assert lo <= ups <= hi and ups > 0
    bits = torch.full((n,), x, dtype=torch.float64).float().view(torch.int32)
    r = torch.randint(0, 1 << 16, (n,), dtype=torch.int32,
                      generator=torch.Generator().manual_seed(31))
    plain = ((bits + r) & -65536).view(torch.float32)
    assert int((plain > 1.0).sum()) == 0
    y16, _ = srlab.round(np.full(n, x), "bf16", "sr:r=16", seed=31)
    assert int(np.count_nonzero(y16 > 1.0)) == 0


def test_example_trains_every_strategy():
    """python/examples/torch_mlp.py (the README's training loop) runs and reports a loss per
    strategy."""
    env = dict(os.environ)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples", "torch_mlp.py"),
                          "--steps", "4", "--hidden", "16"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    for s in STRATEGIES + ["plain-torch-sr", "torch-adamw"]:
        assert any(ln.split()[0] == s for ln in out.stdout.splitlines() if ln.strip()), s


def test_readme_training_loop_runs(capsys):
    from conftest import readme_python_blocks
    (block,) = [b for b in readme_python_blocks() if "srlab.torch" in b]
    env = {}
    exec(compile(block, "README.md", "exec"), env)
    out = capsys.readouterr().out
    assert out.startswith("loss ") and env["opt"].state[env["model"][0].weight]["step"] == 300
    assert float(out.split()[1].rstrip(";")) < 0.5 * float(
        ((env["y"].float() - env["y"].float().mean()) ** 2).mean())  # it learned something


def test_everything_public_is_documented():
    import inspect
    for name in st.__all__:
        obj = getattr(st, name)
        assert obj.__doc__ and len(obj.__doc__) > 80, name
        if inspect.isclass(obj):
            for m in ("step", "state_dict", "load_state_dict", "add_param_group"):
                if m in vars(obj):
                    assert vars(obj)[m].__doc__, (name, m)
    assert "round_" in st.__doc__ and "AdamW" in st.__doc__
