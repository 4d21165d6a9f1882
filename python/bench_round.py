#!/usr/bin/python3
"""Rounding throughput of the srlab Python binding against numpy.copy and the C library.

For n float64 values (standard normal, fixed seed) and each mode, in the same process and
interleaved (one repetition of every method, then the next, so a noisy machine hurts all
alike), the median time of

    numpy.copy(x)                      the memory-bound reference: read 8n bytes, write 8n
    srlab.round(x, f, m)               the binding, returning a new array
    srlab.round(x, f, m, out=y)        the binding, into a preallocated array
    C, new buffer                      srl_round_array called from C with no Python around it,
                                       into a buffer malloc'd (and freed) per call
    C, preallocated                    srl_round_array from C into a buffer allocated once

and the binding's overhead: srlab.round(x) against "C, new buffer" and srlab.round(x, out=y)
against "C, preallocated" (each pair does the same work, buffers allocated alike; the
difference is what Python, the argument checks and the array object cost). Times are the
minimum and the median over the repetitions, and the overheads are given from both: on a quiet
machine they agree; on a shared one the medians are the steadier (a minimum is one lucky
repetition), and --check uses them. Because those differences are small
against the noise of a shared machine, the binding's fixed cost per call is also measured
directly, on a 1-element array (srlab.round(x1, out=y1) against srl_round_array from C, best of
7 x 1000 calls), and given as a fraction of the C call on n values: a bound on the overhead
that does not depend on subtracting two noisy large times. --check exits 1 when an overhead is
10% or more.

    PYTHONPATH=build/python /usr/bin/python3 python/bench_round.py [--n 10000000] [--reps 15]
"""

import argparse
import os
import statistics
import sys
import time
import timeit

# Python puts this script's folder first on sys.path, and it holds the srlab *sources* (no built
# extension): drop it, so that srlab comes from PYTHONPATH (build/python) or the installation.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import numpy as np  # noqa: E402

import srlab  # noqa: E402
from srlab import _core  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench(x, fmt, mode, reps):
    y = np.empty_like(x)
    y.fill(0.0)  # touch the pages once
    methods = {
        "numpy.copy": lambda: timed(lambda: np.copy(x)),
        "srlab.round": lambda: timed(lambda: srlab.round(x, fmt, mode, srlab.Stream(1))),
        "srlab.round out=": lambda: timed(lambda: srlab.round(x, fmt, mode, srlab.Stream(1),
                                                              out=y)),
        "C new buffer": lambda: _core._c_round_timed(x, fmt, mode, 1, alloc=True)[0],
        "C preallocated": lambda: _core._c_round_timed(x, fmt, mode, 1, alloc=False)[0],
    }
    for fn in methods.values():  # warm-up: page cache, thread pool, CPU clock
        fn()
    times = {k: [] for k in methods}
    for _ in range(reps):
        for k, fn in methods.items():
            times[k].append(fn())
    return {k: (min(v), statistics.median(v)) for k, v in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="values (default 10^7)")
    ap.add_argument("--reps", type=int, default=15, help="repetitions, median reported")
    ap.add_argument("--format", default="bf16")
    ap.add_argument("--modes", default="rn,sr", help="comma-separated modes (default rn,sr)")
    ap.add_argument("--threads", type=int, default=0, help="library threads (0: OpenMP's)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the binding's overhead is 10%% or more")
    args = ap.parse_args()
    if args.threads:
        srlab.set_threads(args.threads)
    x = np.random.default_rng(1).standard_normal(args.n)
    print(f"# srlab {srlab.__version__} Python binding, {args.n} float64 values, format "
          f"{args.format}, {srlab.threads()} thread(s), {args.reps} repetitions")
    print(f"{'mode':<8} {'method':<17} {'min ms':>9} {'median ms':>10} {'M values/s':>11} "
          f"{'x numpy.copy':>13}")
    worst = 0.0
    for mode in args.modes.split(","):
        tt = bench(x, args.format, mode, args.reps)
        t = {k: v[0] for k, v in tt.items()}
        for k, (lo, med) in tt.items():
            print(f"{mode:<8} {k:<17} {1e3 * lo:>9.2f} {1e3 * med:>10.2f} "
                  f"{args.n / lo / 1e6:>11.1f} {t['numpy.copy'] / lo:>13.2f}")
        for i, what in ((1, "medians"), (0, "minima")):
            o_new = tt["srlab.round"][i] / tt["C new buffer"][i] - 1
            o_out = tt["srlab.round out="][i] / tt["C preallocated"][i] - 1
            if i == 1:
                worst = max(worst, o_new, o_out)
            print(f"{mode:<8} overhead of the binding ({what}): {100 * o_new:+.1f}% (new "
                  f"array), {100 * o_out:+.1f}% (out=)")
        x1, y1, s1 = x[:1].copy(), np.empty(1), srlab.Stream(1)
        py1 = min(timeit.repeat(lambda: srlab.round(x1, args.format, mode, s1, out=y1),
                                number=1000, repeat=7)) / 1000
        c1 = min(_core._c_round_timed(x1, args.format, mode, 7000))
        print(f"{mode:<8} fixed cost per call: {1e6 * py1:.2f} us binding, {1e6 * c1:.2f} us C: "
              f"{100 * (py1 - c1) / t['C preallocated']:.3f}% of the C call on {args.n} values")
    if args.check and worst >= 0.10:
        print(f"FAIL: the binding's overhead {100 * worst:.1f}% is 10% or more", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
