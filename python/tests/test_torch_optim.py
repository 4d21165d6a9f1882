"""srlab.torch's optimizers: SGD, momentum, Adam and AdamW against `srlab train` (bit for bit,
every strategy) and against the C optimizer called directly on several tensors, threads,
resuming from a state dict, errors; OptimLP against the C library's rounding; the seed paper's
optimizer written plainly in torch."""

import copy
import csv
import io

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (Debian: apt-get install python3-torch): the torch "
                    "tests are skipped")

import srlab  # noqa: E402
import srlab.torch as st  # noqa: E402
from conftest import (assert_same_bits, bernstein_halfwidth, binomial_bounds,  # noqa: E402
                      hexline, run)

STRATEGIES = ["fp32", "mp", "bf16-rn", "bf16-sr", "bf16-sr-exact", "bf16-kahan"]
OPTS = ["sgd", "momentum", "adam", "adamw"]
HYPER = dict(lr=0.02, wd=0.1, beta1=0.9, beta2=0.99, eps=1e-6, momentum=0.8)


def f64(t):
    return t.detach().to(torch.float64).numpy().reshape(-1)


def make_opt(opt, params, strategy, seed, rng="pcg32", lr=HYPER["lr"], wd=HYPER["wd"],
             betas=(HYPER["beta1"], HYPER["beta2"]), eps=HYPER["eps"], mu=HYPER["momentum"]):
    kw = dict(strategy=strategy, seed=seed, rng=rng)
    if opt == "sgd":
        return st.SGD(params, lr=lr, weight_decay=wd, **kw)
    if opt == "momentum":
        return st.SGD(params, lr=lr, momentum=mu, weight_decay=wd, **kw)
    cls = st.Adam if opt == "adam" else st.AdamW
    return cls(params, lr=lr, betas=betas, eps=eps, weight_decay=wd, **kw)


# ---- against srlab train ----

def train_rows(cli, opt, strategy_args, seed, rng="pcg32"):
    out = run([cli, "train", "--problem", "quad1d", "--opt", opt, *strategy_args,
               "--lr", str(HYPER["lr"]), "--wd", str(HYPER["wd"]),
               "--beta2", str(HYPER["beta2"]), "--eps", str(HYPER["eps"]),
               "--momentum", str(HYPER["momentum"]),
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
STATE_COLUMNS = {"sgd": [], "momentum": [("momentum_buffer", "m")],
                 "adam": [("exp_avg", "m"), ("exp_avg_sq", "v")],
                 "adamw": [("exp_avg", "m"), ("exp_avg_sq", "v")]}


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("label,args,strategy", TRAIN_CASES, ids=[c[0] for c in TRAIN_CASES])
def test_matches_srlab_train(cli, opt, label, args, strategy):
    """quad1d, f(x) = (x - 0.3)^2 / 2, 30 steps under a cosine schedule with warm-up: after
    every step the parameter (the master for mp), the optimizer's state and the lost-update
    flag equal the x, m, v and lost_update_frac columns of `srlab train --opt OPT`, bit for bit,
    for three seeds and both generators."""
    for seed, rng in ((1, "pcg32"), (2, "pcg32"), (3, "pcg64")):
        rows = train_rows(cli, opt, args, seed, rng)
        assert len(rows) == 31
        p = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        o = make_opt(opt, [("x", p)], strategy, seed, rng)
        state = o.state[p]
        has_master = "master" in state

        def check(row):
            x = state["master"] if has_master else p
            assert float(x.double()) == float(row["x"]), (label, seed, row["step"])
            for key, col in STATE_COLUMNS[opt]:
                assert float(state[key].double()) == float(row[col]), (label, seed, key,
                                                                       row["step"])

        check(rows[0])
        for row in rows[1:]:
            o.param_groups[0]["lr"] = float(row["lr_used"])
            p.grad = 1.0 * (p.detach() - 0.3)  # the problem's gradient, in binary64, at the
            o.step()                            # weights forward reads (mp: the bf16 cast)
            check(row)
            assert o.last_stats["lost"] == float(row["lost_update_frac"])
        assert state["step"] == 30


# ---- AdamW against the C optimizer called directly ----

SHAPES = [("layer.weight", (3000, 7)), ("layer.bias", (37,)), ("w2", (5, 4)), ("s", (1,))]


def make_params(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return [(name, torch.nn.Parameter((0.5 * torch.randn(*shape, generator=g,
                                                         dtype=torch.float64)).to(dtype)))
            for name, shape in SHAPES]


def run_c_reference(optim_ref, opt, strategy, seed, rng, hyper, x0s, steps):
    """steps: [(t, lr, [grad arrays])]. Returns {t: {(name, tensor): float64 array}}."""
    lines = [f"seed {seed}", f"rng {rng}", f"opt {opt}"]
    cfg = strategy if isinstance(strategy, dict) else {"strategy": strategy}
    lines += [f"cfg {k} {v}" for k, v in cfg.items()]
    lines.append("hyper " + " ".join(hexline(v) for v in hyper))
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


@pytest.mark.parametrize("opt_kind", OPTS)
@pytest.mark.parametrize("strategy,dtype", C_CASES, ids=[f"{c[0]}-{c[1]}".replace("torch.", "")
                                                         for c in C_CASES])
def test_matches_the_c_optimizer(optim_ref, opt_kind, strategy, dtype):
    """Four parameters (one of 21000 elements, so the fused kernel's parallel chunks run), four
    steps with changing lr: weights, moments, master and Kahan buffer after every step equal
    the C optimizer's (all weights in one srl_weights, as srlab train allocates them), on 1 and
    2 threads."""
    seed, rng = 17, "pcg32"
    hyper = (0.9, 0.995, 1e-8, 0.05, 0.7)
    params = make_params(dtype, 5)
    x0s = [(n, f64(p).copy()) for n, p in params]
    opt = make_opt(opt_kind, params, strategy, seed, rng, lr=1e-3, betas=hyper[:2],
                   eps=hyper[2], wd=hyper[3], mu=hyper[4])
    threads = srlab.threads()
    g = torch.Generator().manual_seed(6)
    steps = []
    mine = {}
    for t, lr in ((1, 1e-2), (2, 3e-3), (3, 3e-3), (4, 5e-4)):
        grads = []
        for _, p in params:
            p.grad = torch.randn(p.shape, generator=g, dtype=torch.float64).to(dtype)
            grads.append(f64(p.grad))
        opt.param_groups[0]["lr"] = lr
        srlab.set_threads(1 + t % 2)
        try:
            opt.step()
        finally:
            srlab.set_threads(threads)
        steps.append((t, lr, grads))
        snap = {}
        for name, p in params:
            s = opt.state[p]
            key = name.replace(".", "/")
            snap[(key, "param")] = f64(p).copy()
            for k, which in (("exp_avg", "m"), ("exp_avg_sq", "v"), ("momentum_buffer", "m"),
                             ("master", "master"), ("kahan_comp", "comp")):
                if k in s:
                    snap[(key, which)] = f64(s[k]).copy()
        mine[t] = snap
    ref = run_c_reference(optim_ref, opt_kind, strategy, seed, rng, hyper, x0s, steps)
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


def test_threads_and_resume():
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


def test_errors():
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
        (lambda: st.AdamW([p.half()]), TypeError, "^params: expected a float32, float64, "
                                                  "bfloat16 tensor"),
        (lambda: st.SGD([p], momentum=1.0), ValueError, "^momentum: "),
        (lambda: st.SGD([p], lr=float("inf")), ValueError, "^lr: "),
        (lambda: st.Adam([p], betas=(1.5, 0.9)), ValueError, r"^betas: betas\[0\]"),
        (lambda: st.AdamW([("w\0x", p)]), ValueError,
         "^params: parameter 'w\0x': name: contains a NUL"),
        (lambda: st.AdamW([p], strategy="bf16-sr\0"), ValueError, "^strategy: contains a NUL"),
        (lambda: st.AdamW([p], rng="pcg32\0"), ValueError, "^rng: contains a NUL"),
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
        u = srlab.Stream(seed, stream, (t - 1) * n, kind).draws(n)
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
    y = srlab.round(np.full(n, x), "bf16", "sr", srlab.Stream(31))
    ups = int(np.count_nonzero(y > 1.0))
    lo, hi = binomial_bounds(n, 2.0 ** -18, 1e-6)
    assert lo <= ups <= hi and ups > 0
    bits = torch.full((n,), x, dtype=torch.float64).float().view(torch.int32)
    r = torch.randint(0, 1 << 16, (n,), dtype=torch.int32,
                      generator=torch.Generator().manual_seed(31))
    plain = ((bits + r) & -65536).view(torch.float32)
    assert int((plain > 1.0).sum()) == 0
    y16 = srlab.round(np.full(n, x), "bf16", "sr:r=16", srlab.Stream(31))
    assert int(np.count_nonzero(y16 > 1.0)) == 0


def test_sgd_momentum_fixed_at_construction():
    p = torch.nn.Parameter(torch.ones(3, dtype=torch.bfloat16))
    o = st.SGD([p], lr=0.1)
    assert "momentum_buffer" not in o.state[p]
    o.param_groups[0]["momentum"] = 0.5
    p.grad = torch.ones(3, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="^momentum: this SGD was built with momentum 0"):
        o.step()
    assert torch.equal(p.detach(), torch.ones(3, dtype=torch.bfloat16))
    q = torch.nn.Parameter(torch.ones(3, dtype=torch.bfloat16))
    o = st.SGD([q], lr=0.1, momentum=0.9)
    assert o.state[q]["momentum_buffer"].dtype == torch.bfloat16


def test_torch_sgd_and_adam_compute_the_same_update_in_fp32():
    """With the fp32 strategy (fp32 arithmetic, every write rn) SGD with momentum and Adam
    agree with torch.optim.SGD (no dampening, no nesterov) and torch.optim.Adam within a few
    units in the last place: the same update, written in another operation order by torch."""
    g = torch.Generator().manual_seed(2)
    w0 = torch.randn(200, generator=g)
    grads = [torch.randn(200, generator=g) for _ in range(5)]
    for mine_cls, theirs_cls, kw in ((st.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9,
                                                                    weight_decay=0.01)),
                                     (st.Adam, torch.optim.Adam, dict(lr=0.01, weight_decay=0.01))):
        a = torch.nn.Parameter(w0.clone())
        b = torch.nn.Parameter(w0.clone())
        oa = mine_cls([a], strategy="fp32", **kw)
        ob = theirs_cls([b], **kw)
        for gr in grads:
            a.grad, b.grad = gr.clone(), gr.clone()
            oa.step()
            ob.step()
        u = 2.0 ** -24 * b.detach().abs().max().item()
        assert (a.detach() - b.detach()).abs().max().item() <= 64 * u, mine_cls


# ---- OptimLP ----

def test_optimlp_rounds_as_the_c_library():
    """OptimLP(torch.optim.Adam) with bf16 weights (sr), e5m2 gradients (sr) and bf16 state
    (rn): after each step every tensor equals the same torch step on unwrapped copies followed
    by srlab.round (the C library) with the documented streams, srlab train's tensor streams
    for the names p0, p0.grad, p0.exp_avg, ...; on any device's path (the torch-only rounding
    forced on CPU gives the same bits)."""
    g = torch.Generator().manual_seed(7)
    shapes = [(30, 20), (20,)]
    w0 = [st.round(torch.randn(s, generator=g), "bf16", "rn") for s in shapes]
    grads = [[torch.randn(s, generator=g) * 0.1 for s in shapes] for _ in range(3)]

    def wrapped(impl):
        ps = [torch.nn.Parameter(w.clone()) for w in w0]
        o = st.OptimLP(torch.optim.Adam(ps, lr=0.01), weight=("bf16", "sr"),
                       grad=st.Quant("e5m2", "sr"), state=("bf16", "rn"), seed=5)
        for gs in grads:
            for p, gr in zip(ps, gs):
                p.grad = gr.clone()
            with st.use_impl(impl):
                o.step()
        return ps, o

    def by_hand():
        ps = [torch.nn.Parameter(w.clone()) for w in w0]
        o = torch.optim.Adam(ps, lr=0.01)
        root = srlab.Stream(5).derive("writes")

        def rnd(t, fmt, mode, name, step):
            s = root.derive(name)
            s.counter = (step - 1) * t.numel()
            y = srlab.round(t.detach().double().numpy().reshape(-1), fmt, mode, s)
            with torch.no_grad():
                t.copy_(torch.from_numpy(y).reshape(t.shape))

        for step, gs in enumerate(grads, 1):
            for k, (p, gr) in enumerate(zip(ps, gs)):
                p.grad = gr.clone()
                rnd(p.grad, "e5m2", "sr", f"p{k}.grad", step)
            o.step()
            for k, p in enumerate(ps):
                for key in ("exp_avg", "exp_avg_sq"):
                    rnd(o.state[p][key], "bf16", "rn", f"p{k}.{key}", step)
                rnd(p, "bf16", "sr", f"p{k}", step)
        return ps, o

    ref, oref = by_hand()
    for impl in ("c", "torch"):
        mine, o = wrapped(impl)
        for k, (a, b) in enumerate(zip(mine, ref)):
            assert torch.equal(a.detach(), b.detach()), (impl, k)
            for key in ("exp_avg", "exp_avg_sq"):
                assert torch.equal(o.state[a][key], oref.state[b][key]), (impl, k, key)
            assert torch.equal(o.state[a]["step"], oref.state[b]["step"])  # not rounded
    # the weights really are bf16 values and the stream of p0 is srlab train's for a tensor p0
    assert torch.equal(mine[0], st.round(mine[0], "bf16", "rn"))
    ost = srlab._core._OptimState("p0", 4, "bf16-sr", 5)
    assert ost.stream("param")[:2] == (5, srlab.Stream(5).derive("writes").derive("p0").stream)


def test_optimlp_state_dict_scheduler_and_errors():
    p = torch.nn.Parameter(torch.zeros(4))
    o = st.OptimLP(torch.optim.SGD([p], lr=0.1, momentum=0.9), weight=("bf16", "sr"), seed=2)
    sched = torch.optim.lr_scheduler.StepLR(o, step_size=1, gamma=0.5)
    for _ in range(2):
        p.grad = torch.full((4,), 0.3)
        o.step()
        sched.step()
    assert o.param_groups[0]["lr"] == 0.025
    sd = copy.deepcopy(o.state_dict())
    assert sd["srlab"]["step"] == 2
    q = torch.nn.Parameter(p.detach().clone())
    o2 = st.OptimLP(torch.optim.SGD([q], lr=0.1, momentum=0.9), weight=("bf16", "sr"), seed=2)
    o2.load_state_dict(sd)
    for opt, t in ((o, p), (o2, q)):
        t.grad = torch.full((4,), 0.3)
        opt.step()
    assert torch.equal(p, q)
    o3 = st.OptimLP(torch.optim.SGD([q], lr=0.1, momentum=0.9), weight=("bf16", "sr"), seed=3)
    with pytest.raises(ValueError, match="^state_dict: saved with seed"):
        o3.load_state_dict(sd)
    with pytest.raises(TypeError, match="^optimizer: expected a torch.optim.Optimizer"):
        st.OptimLP([p])
    b = torch.nn.Parameter(torch.zeros(3, dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="^weight: parameter p0 is torch.bfloat16, which cannot "
                                         "hold every value of fp16"):
        st.OptimLP(torch.optim.SGD([b], lr=0.1), weight=("fp16", "rn"))
