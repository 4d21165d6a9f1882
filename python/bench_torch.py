#!/usr/bin/python3
"""srlab.torch beside torch's own operations, in one process, as a markdown table.

Each row pairs an srlab.torch call with the torch operation a user would otherwise write for
the same job, on the same tensors, timed interleaved (one repetition of every method, then the
next, so that a noisy machine hurts all alike); the table gives the minimum and the median time
of each (wall, or with --clock cpu the process's CPU time) and the ratio srlab.torch / torch of
both (below 1: srlab.torch is faster).

    rounding      a float32 tensor of --n values rounded to bf16: srlab.torch.round (a new
                  tensor) against tensor.to(torch.bfloat16); round_ in place against
                  tensor.copy_(tensor.to(torch.bfloat16)); exact sr in place against the seed
                  paper's trick written in torch (a random 16-bit integer added to the bits, the
                  low 16 cut); and the torch-only implementation (impl="torch", what other
                  devices run) against the C library on the same CPU
    optimizers    one step on a --params-element parameter: srlab.torch.AdamW (fp32 and
                  bf16-sr strategies) against torch.optim.AdamW in float32, srlab.torch.SGD with
                  momentum (fp32) against torch.optim.SGD
    Linear        forward and backward of a --batch x --features -> --features layer:
                  srlab.torch.nn.Linear (fp32 products and sums, the kernels' emulation of a
                  plain float loop; and bf16 products with bf16 sr accumulation) against
                  torch.nn.Linear in float32 (BLAS)

Threads: --threads N sets both torch's and srlab's. Speed is never asserted by the tests.

    PYTHONPATH=build/python /usr/bin/python3 python/bench_torch.py [--threads 1] [--reps 11]
"""

import argparse
import os
import statistics
import sys
import time

# Python puts this script's folder first on sys.path, and it holds the srlab *sources* (no built
# extension): drop it, so that srlab comes from PYTHONPATH (build/python) or the installation.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import torch  # noqa: E402

import srlab  # noqa: E402
import srlab.torch as st  # noqa: E402


def race(pairs, reps, clock):
    """pairs: [(label, srlab_fn, torch_fn)]; returns {label: ((min, med), (min, med))}."""
    fns = [(lab, k, f) for lab, a, b in pairs for k, f in ((0, a), (1, b))]
    for _, _, f in fns:  # warm-up: pages, thread pools, caches
        f()
    times = {(lab, k): [] for lab, k, _ in fns}
    for _ in range(reps):
        for lab, k, f in fns:
            t0 = clock()
            f()
            times[(lab, k)].append(clock() - t0)
    return {lab: tuple((min(times[(lab, k)]), statistics.median(times[(lab, k)]))
                       for k in (0, 1)) for lab, _, _ in pairs}


def rounding_pairs(n):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, generator=g)
    t = x.clone()
    s = srlab.Stream(1)

    def trick():
        r = torch.randint(0, 1 << 16, (n,), dtype=torch.int32, generator=g)
        t.view(torch.int32).add_(r).bitwise_and_(-65536)

    return [
        ("round to bf16 rn, new tensor | `t.to(torch.bfloat16)`",
         lambda: st.round(x, "bf16", "rn"), lambda: x.to(torch.bfloat16)),
        ("round_ to bf16 rn, in place | `t.copy_(t.to(torch.bfloat16))`",
         lambda: st.round_(t, "bf16", "rn"), lambda: t.copy_(t.to(torch.bfloat16))),
        ("round_ to bf16 exact sr, in place | the 16-bit trick in torch",
         lambda: st.round_(t, "bf16", "sr", s), trick),
        ("round_ bf16 sr, impl=\"torch\" (other devices) | the same, C library",
         lambda: st.round_(t, "bf16", "sr", s, impl="torch"),
         lambda: st.round_(t, "bf16", "sr", s, impl="c")),
    ]


def optimizer_pairs(n):
    def setup(dtype):
        p = torch.nn.Parameter(torch.randn(n, generator=torch.Generator().manual_seed(2))
                               .to(dtype))
        p.grad = torch.randn(n, generator=torch.Generator().manual_seed(3)).to(dtype)
        return p

    a32, b32, abf, c32, d32 = (setup(torch.float32), setup(torch.float32),
                               setup(torch.bfloat16), setup(torch.float32),
                               setup(torch.float32))
    mine32 = st.AdamW([a32], lr=1e-3, strategy="fp32")
    minebf = st.AdamW([abf], lr=1e-3, strategy="bf16-sr")
    theirs = torch.optim.AdamW([b32], lr=1e-3)
    sgd_mine = st.SGD([c32], lr=1e-3, momentum=0.9, strategy="fp32")
    sgd_theirs = torch.optim.SGD([d32], lr=1e-3, momentum=0.9)
    return [
        ("AdamW step, strategy fp32 | `torch.optim.AdamW`, float32",
         mine32.step, theirs.step),
        ("AdamW step, strategy bf16-sr (bf16 weights) | `torch.optim.AdamW`, float32",
         minebf.step, theirs.step),
        ("SGD momentum step, strategy fp32 | `torch.optim.SGD`, float32",
         sgd_mine.step, sgd_theirs.step),
    ]


def linear_pairs(batch, features):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(batch, features, generator=g)

    def fwd_bwd(layer):
        def f():
            layer.zero_grad(set_to_none=True)
            layer(x).sum().backward()
        return f

    torch.manual_seed(5)
    ref = torch.nn.Linear(features, features)
    fp32 = st.nn.Linear(features, features, accum="prod=fp32:rn,acc=fp32:rn")
    bf16 = st.nn.Linear(features, features, accum="prod=bf16:rn,acc=bf16:sr")
    return [
        ("Linear forward+backward, fp32 products and sums | `torch.nn.Linear`, float32",
         fwd_bwd(fp32), fwd_bwd(ref)),
        ("Linear forward+backward, bf16 products, bf16 sr sums | `torch.nn.Linear`, float32",
         fwd_bwd(bf16), fwd_bwd(ref)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1 << 22, help="values rounded (default 2^22)")
    ap.add_argument("--params", type=int, default=1 << 20, help="optimizer parameter size")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--features", type=int, default=512)
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time, or the process's CPU time (steadier on a shared machine "
                         "with one thread; with more it adds the threads' times)")
    args = ap.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    torch.set_num_threads(args.threads)
    srlab.set_threads(args.threads)
    print(f"srlab {srlab.__version__}, torch {torch.__version__}, {args.threads} thread(s), "
          f"{args.reps} interleaved repetitions; {args.clock} times in ms, min / median\n")
    print("| srlab.torch | torch | size | srlab.torch ms | torch ms | ratio (min) | "
          "ratio (median) |")
    print("|---|---|---|---|---|---|---|")
    groups = [(f"{args.n} values", rounding_pairs(args.n)),
              (f"{args.params} parameters", optimizer_pairs(args.params)),
              (f"{args.batch} x {args.features} -> {args.features}",
               linear_pairs(args.batch, args.features))]
    for size, pairs in groups:
        for label, ((a_min, a_med), (b_min, b_med)) in race(pairs, args.reps, clock).items():
            mine, theirs = label.split(" | ")
            print(f"| {mine} | {theirs} | {size} | {1e3 * a_min:.2f} / {1e3 * a_med:.2f} | "
                  f"{1e3 * b_min:.2f} / {1e3 * b_med:.2f} | {a_min / b_min:.2f} | "
                  f"{a_med / b_med:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
