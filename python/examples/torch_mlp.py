#!/usr/bin/python3
"""Train a small MLP in PyTorch with srlab.torch.AdamW under every precision strategy.

A teacher-student regression: inputs x ~ N(0, I_d), targets from a fixed random two-layer tanh
network plus a little noise; the student is an MLP d -> h -> h -> 1 (tanh). Each strategy
trains the same student from the same initial weights on the same batches:

    fp32           float32 model, every optimizer write fp32 rn
    mp             bfloat16 model (the cast of an fp32 master kept by the optimizer)
    bf16-rn        bfloat16 model, moments and weights written rn
    bf16-sr        bfloat16 model, weights written with sr:r=16 (the seed paper's optimizer)
    bf16-sr-exact  bfloat16 model, binary64 update rounded once with exact SR
    bf16-kahan     bfloat16 model plus a bf16 Kahan compensation buffer
and, for comparison, the seed paper's optimizer written plainly in torch (plain-torch-sr) and
torch's own AdamW in float32 (torch-adamw). The table gives the final training loss (the
full data set, evaluated in float64 from the stored weights), the fraction of weight updates
lost to rounding in the last 10 steps, the optimizer's bytes per parameter and the time.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/torch_mlp.py [--steps N]
"""

import argparse
import copy
import time

import torch

import srlab
import srlab.torch as st

STRATEGIES = ["fp32", "mp", "bf16-rn", "bf16-sr", "bf16-sr-exact", "bf16-kahan"]


def make_data(n, d, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g, dtype=torch.float64)
    w1 = torch.randn(d, 32, generator=g, dtype=torch.float64) / d ** 0.5
    w2 = torch.randn(32, 1, generator=g, dtype=torch.float64) / 32 ** 0.5
    y = torch.tanh(x @ w1) @ w2 + 0.01 * torch.randn(n, 1, generator=g, dtype=torch.float64)
    return x, y


def make_student(d, hidden, seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(d, hidden), torch.nn.Tanh(),
                               torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                               torch.nn.Linear(hidden, 1)).double()


def full_loss(net, x, y):
    with torch.no_grad():
        ref = copy.deepcopy(net).double()
        return float(((ref(x) - y) ** 2).mean())


def train(kind, args, x, y, student):
    if kind == "torch-adamw":
        dtype = torch.float32
    elif kind == "plain-torch-sr":
        dtype = torch.bfloat16
    else:
        dtype = st.param_dtype(kind)
    net = copy.deepcopy(student).to(dtype)
    if kind == "torch-adamw":
        opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.wd)
        bytes_pp = 16
    elif kind == "plain-torch-sr":
        opt = st.PlainSRAdamW(net.parameters(), lr=args.lr, weight_decay=args.wd,
                              generator=torch.Generator().manual_seed(args.seed))
        bytes_pp = 8
    else:
        opt = st.AdamW(net.named_parameters(), lr=args.lr, weight_decay=args.wd, strategy=kind,
                       seed=args.seed)
        bytes_pp = srlab.strategy_info(kind)["bytes_per_param"]
    batches = torch.Generator().manual_seed(args.seed + 1)
    lost, numel = 0, 0
    t0 = time.perf_counter()
    for step in range(args.steps):
        idx = torch.randint(0, x.shape[0], (args.batch,), generator=batches)
        xb, yb = x[idx].to(dtype), y[idx].to(dtype)
        opt.zero_grad()
        loss = ((net(xb) - yb) ** 2).mean()
        loss.backward()
        opt.step()
        if isinstance(opt, st.AdamW) and step >= args.steps - 10:
            lost += opt.last_stats["lost"]
            numel += opt.last_stats["numel"]
    secs = time.perf_counter() - t0
    lost_frac = f"{100 * lost / numel:.1f}%" if numel else "-"
    return full_loss(net, x, y), lost_frac, bytes_pp, str(dtype).replace("torch.", ""), secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--wd", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    x, y = make_data(4096, args.dim, args.seed)
    student = make_student(args.dim, args.hidden, args.seed)
    print(f"# teacher-student MLP {args.dim}-{args.hidden}-{args.hidden}-1, {args.steps} AdamW "
          f"steps, lr {args.lr}, weight decay {args.wd}, batch {args.batch}, seed {args.seed}; "
          f"initial loss {full_loss(student, x, y):.6f}")
    print(f"{'strategy':<15} {'weights':<9} {'bytes/param':>11} {'final loss':>12} "
          f"{'lost (last 10)':>15} {'seconds':>8}")
    for kind in STRATEGIES + ["plain-torch-sr", "torch-adamw"]:
        loss, lost, bpp, dt, secs = train(kind, args, x, y, student)
        print(f"{kind:<15} {dt:<9} {bpp:>11} {loss:>12.6f} {lost:>15} {secs:>8.2f}")


if __name__ == "__main__":
    main()
