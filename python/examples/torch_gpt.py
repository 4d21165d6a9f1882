#!/usr/bin/python3
"""Train a small character GPT in PyTorch under srlab's precision strategies, with srlab's
optimizer and quantizers, and print the summary `srlab sweep` prints.

The text is a file you name (--text FILE: its characters are the vocabulary; the last tenth is
held out), or, by default, generated: 300 000 characters from a first-order Markov chain over
16 letters with a fixed random transition matrix, whose entropy rate H (nats per character) is
the lowest loss any model can reach, so the summary's final_loss_gap is loss - H.

The model: token and position embeddings, --layers pre-norm blocks (causal self-attention with
--heads heads, a 4x GELU MLP), a final LayerNorm and an output layer. For each strategy:

    weights    stored in srlab.torch.param_dtype(strategy) (bfloat16 for mp and the bf16-*
               strategies, float32 for fp32), updated by srlab.torch.AdamW(strategy=...): the
               library's update, roundings and draws, bit for bit those of `srlab train`
    forward    in float32 from the stored weights; the output of every block, attention and MLP
               rounded with srlab.torch.quantizer into the strategy's activation slot
               (forward) and, backward, the gradient flowing through it into its gradient slot
    products   torch's, or with --accum CONFIG srlab.torch.nn.Linear with that accumulation
               config (the C library's kernels; slow, but every product and sum emulated)

Each (strategy, seed) run trains from the same initial weights for that seed on the same
batches, evaluating the loss on held-out windows every --log-every steps. The output is the
summary of `srlab sweep` (columns problem, opt, strategy, format, rounding, lr, seeds, diverged
and, for final_loss, best_loss, final_loss_gap and final_dist_to_opt, the count of finite values
over the seeds, their mean, standard deviation and Student t 95% interval; dist_to_opt has no
meaning here and stays empty, as for `srlab sweep --problem gpt`), one line per strategy:

    PYTHONPATH=build/python /usr/bin/python3 python/examples/torch_gpt.py --steps 300 --seeds 3
    /usr/bin/python3 python/examples/torch_gpt.py --text book.txt -o book.summary.csv
"""

import argparse
import bisect
import math
import os
import sys
import time

import torch

import srlab
import srlab.torch as st

STRATEGIES = "fp32,mp,bf16-rn,bf16-sr,bf16-kahan"


# ---- data ----

def markov_text(n, k, seed):
    """n characters of a first-order Markov chain over k letters, with peaked random transition
    rows (uniforms to the 4th power, normalised), and its entropy rate in nats per character:
    H = -sum_i pi_i sum_j P_ij log P_ij, pi the stationary distribution."""
    g = torch.Generator().manual_seed(seed)
    P = torch.rand(k, k, generator=g, dtype=torch.float64) ** 4
    P = P / P.sum(1, keepdim=True)
    pi = torch.full((k,), 1.0 / k, dtype=torch.float64)
    for _ in range(1000):
        pi = pi @ P
    H = float(-(pi[:, None] * P * torch.log(P)).sum())
    cdf = P.cumsum(1).tolist()
    u = torch.rand(n, generator=g, dtype=torch.float64).tolist()
    out, cur = [], 0
    for ui in u:
        cur = min(bisect.bisect_right(cdf[cur], ui), k - 1)
        out.append(chr(ord("a") + cur))
    return "".join(out), H


def encode(text):
    vocab = sorted(set(text))
    pos = {c: i for i, c in enumerate(vocab)}
    return torch.tensor([pos[c] for c in text], dtype=torch.int64), len(vocab)


# ---- the model ----

class Block(torch.nn.Module):
    def __init__(self, d, heads, linear):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = linear(d, 3 * d), linear(d, d)
        self.fc, self.out = linear(d, 4 * d), linear(4 * d, d)
        self.heads = heads

    def forward(self, x, q):
        B, T, C = x.shape
        h = self.qkv(self.ln1(x)).view(B, T, 3, self.heads, C // self.heads)
        qh, kh, vh = h.unbind(2)
        qh, kh, vh = (t.transpose(1, 2) for t in (qh, kh, vh))  # (B, heads, T, C/heads)
        att = (qh @ kh.transpose(-1, -2)) / math.sqrt(C // self.heads)
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        y = (att @ vh).transpose(1, 2).reshape(B, T, C)
        x = x + q(self.proj(y))
        return x + q(self.out(torch.nn.functional.gelu(self.fc(self.ln2(x)))))


class GPT(torch.nn.Module):
    def __init__(self, vocab, d, layers, heads, ctx, linear):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(ctx, d)
        self.blocks = torch.nn.ModuleList([Block(d, heads, linear) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(d)
        self.head = linear(d, vocab)

    def forward(self, idx, q):
        """Logits (B, T, vocab) in float32; q rounds activations (forward) and their
        gradients (backward) into the strategy's slots."""
        T = idx.shape[1]
        x = q(self.tok(idx) + self.pos(torch.arange(T)))
        for b in self.blocks:
            x = q(b(x, q))
        return self.head(self.ln(x))


class Float32View(torch.nn.Module):
    """Runs a module in float32 from weights stored in a narrower dtype: the forward reads
    w.float() (exact), so gradients come back to the stored weights rounded to nearest into
    their dtype by torch's cast."""

    def __init__(self, module):
        super().__init__()
        self.m = module

    def forward(self, *args):
        params = {n: p for n, p in self.m.named_parameters()}
        wide = {n: p.float() for n, p in params.items()}
        call = getattr(getattr(torch, "func", None), "functional_call", None) or \
            torch.nn.utils.stateless.functional_call
        return call(self.m, wide, args)


# ---- one run ----

def run(strategy, seed, data, vocab, args):
    info = srlab.strategy_info(strategy)
    dtype = st.param_dtype(strategy)
    streams = srlab.Stream(seed).derive("torch_gpt")
    if args.accum:
        def linear(i, o):
            return st.nn.Linear(i, o, accum=args.accum,
                                stream=streams.derive(f"linear{len(linears)}"))
    else:
        linear = torch.nn.Linear
    linears = []
    torch.manual_seed(seed)
    model = GPT(vocab, args.d_model, args.layers, args.heads, args.ctx, linear).double()
    model = model.to(dtype)
    net = Float32View(model)
    q = st.quantizer(forward=info["act"], backward=info["grad"], stream=streams.derive("acts"))
    opt = st.AdamW(model.named_parameters(), lr=args.lr, weight_decay=args.wd,
                   strategy=strategy, seed=seed)
    train, held = data
    g = torch.Generator().manual_seed(seed)
    eg = torch.Generator().manual_seed(12345)  # the same held-out windows for every run
    starts = torch.randint(0, len(held) - args.ctx - 1, (args.eval_batches * args.batch,),
                           generator=eg)
    xe = torch.stack([held[s:s + args.ctx] for s in starts.tolist()])
    ye = torch.stack([held[s + 1:s + args.ctx + 1] for s in starts.tolist()])

    def loss_of(x, y):
        logits = net(x, q)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, vocab).double(),
                                                 y.reshape(-1))

    def evaluate():
        with torch.no_grad():
            return sum(float(loss_of(xe[k::args.eval_batches], ye[k::args.eval_batches]))
                       for k in range(args.eval_batches)) / args.eval_batches

    losses, diverged = [evaluate()], False
    for step in range(1, args.steps + 1):
        s = torch.randint(0, len(train) - args.ctx - 1, (args.batch,), generator=g).tolist()
        x = torch.stack([train[i:i + args.ctx] for i in s])
        y = torch.stack([train[i + 1:i + args.ctx + 1] for i in s])
        opt.zero_grad(set_to_none=True)
        loss = loss_of(x, y)
        loss.backward()
        opt.step()
        if step % args.log_every == 0 or step == args.steps:
            losses.append(evaluate())
            if not math.isfinite(losses[-1]):
                diverged = True
                break
    return losses, diverged


# ---- the summary of srlab sweep ----

def _betacf(a, b, x):
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _ibeta(a, b, x):
    """I_x(a, b)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    lf = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + \
        b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lf) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lf) * _betacf(b, a, 1 - x) / b


def t_quantile(p, nu):
    """The p-quantile (p > 1/2) of Student's t with nu degrees of freedom, by bisection on its
    distribution function 1 - I_{nu/(nu+t^2)}(nu/2, 1/2)/2."""
    lo, hi = 0.0, 1.0
    while 1 - 0.5 * _ibeta(nu / 2, 0.5, nu / (nu + hi * hi)) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - 0.5 * _ibeta(nu / 2, 0.5, nu / (nu + mid * mid)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def num(v):
    return f"{v:.17g}"


def stats(values):
    """n, mean, sd, ci95_lo, ci95_hi over the finite values (empty where undefined), as
    `srlab sweep` writes them."""
    x = [v for v in values if v is not None and math.isfinite(v)]
    if not x:
        return ["0", "", "", "", ""]
    mean = sum(x) / len(x)
    if len(x) < 2:
        return [str(len(x)), num(mean), "", "", ""]
    sd = math.sqrt(sum((v - mean) ** 2 for v in x) / (len(x) - 1))
    half = t_quantile(0.975, len(x) - 1) * sd / math.sqrt(len(x))
    return [str(len(x)), num(mean), num(sd), num(mean - half), num(mean + half)]


METRICS = ["final_loss", "best_loss", "final_loss_gap", "final_dist_to_opt"]
SUFFIXES = ["_n", "_mean", "_sd", "_ci95_lo", "_ci95_hi"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--text", help="a UTF-8 text file (default: generated Markov text)")
    ap.add_argument("--strategies", default=STRATEGIES, help=f"default {STRATEGIES}")
    ap.add_argument("--seeds", type=int, default=2, help="seeds 1..N per strategy (default 2)")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--wd", type=float, default=0.0)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ctx", type=int, default=32)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--eval-batches", type=int, default=4)
    ap.add_argument("--accum", help="products through srlab.torch.nn.Linear with this "
                                    "accumulation config, e.g. prod=bf16:rn,acc=bf16:sr")
    ap.add_argument("--threads", type=int, default=0, help="torch and srlab threads (0: as is)")
    ap.add_argument("-o", "--output", help="write the summary here (default standard output)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        srlab.set_threads(args.threads)
    if args.text:
        with open(args.text, encoding="utf-8") as f:
            text = f.read()
        H = None
    else:
        text, H = markov_text(300_000, 16, 1)
    if len(text) < 20 * (args.ctx + 1):
        sys.exit(f"torch_gpt.py: --text: {len(text)} characters are too few for --ctx "
                 f"{args.ctx}")
    data, vocab = encode(text)
    cut = len(data) * 9 // 10
    splits = (data[:cut], data[cut:])
    strategies = args.strategies.split(",")
    lines = [f"# srlab {srlab.__version__} (python/examples/torch_gpt.py, torch "
             f"{torch.__version__})",
             "# command: " + " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
             f"# seeds: 1..{args.seeds} (every strategy runs each seed)",
             f"# runs: {len(strategies) * args.seeds} ({len(strategies)} grid points x "
             f"{args.seeds} seeds)",
             f"# data: {args.text or 'generated Markov text'}, {len(text)} characters, "
             f"vocabulary {vocab}" + (f", entropy rate {H:.6f} nats" if H is not None else ""),
             ",".join(["problem", "opt", "strategy", "format", "rounding", "lr", "seeds",
                       "diverged"] + [m + s for m in METRICS for s in SUFFIXES])]
    for strategy in strategies:
        info = srlab.strategy_info(strategy)
        finals, bests, gaps, diverged = [], [], [], 0
        for seed in range(1, args.seeds + 1):
            t0 = time.perf_counter()
            losses, div = run(strategy, seed, splits, vocab, args)
            diverged += div
            finals.append(losses[-1])
            bests.append(min(v for v in losses if math.isfinite(v)) if any(
                math.isfinite(v) for v in losses) else None)
            gaps.append(losses[-1] - H if H is not None else None)
            print(f"torch_gpt.py: {strategy} seed {seed}: final loss {losses[-1]:.4f} "
                  f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
        row = ["torch-gpt", "adamw", strategy, info["param"][0].name, info["param"][1],
               repr(args.lr), str(args.seeds), str(diverged)]
        for values in (finals, bests, gaps, [None] * args.seeds):
            row += stats(values)
        lines.append(",".join(row))
    out = "\n".join(lines) + "\n"
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(out)
        os.replace(tmp, args.output)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
