"""srlab.torch._device: srlab's rounding written in torch tensor operations only, for tensors that
are not on the CPU (a GPU's, say), where the C library cannot reach them.

It is a second implementation of two things the C library defines, and must agree with it bit
for bit (python/tests/test_torch_device.py runs it on CPU tensors and compares with the C core
for every format, mode, generator and stream):

* the counter-addressed streams of include/srlab/rng.h: draw k of (kind, seed, stream) is, for
  pcg32, the pcg32 outputs 2k and 2k+1 (high, low) of the generator seeded with (seed, stream);
  for pcg64 the k-th pcg64 output. Element i of a call starting at counter c needs the
  generator's state after a jump of 2(c + i) (pcg32) or c + i + 1 (pcg64) steps; an LCG jump is
  affine, state -> A^m state + inc S_m with S_m = 1 + A + ... + A^(m-1), so with the tables
  A^l and S_l for l < B (independent of seed and stream) every element's state is one
  multiply-add of a table entry and the state at its block's start. pcg64's 128-bit state is a
  pair of int64 words, multiplied with 32-bit halves.
* the rounding of src/round/round_core.h and src/round/decide.h: a binary64 value's magnitude is
  (T + f) 2^qe on the format's grid, f's first 64 bits f1 and a flag `more`; the mode decides
  from f1, more, T's parity, the sign and the draw u whether the magnitude goes to T + 1; the
  result is assembled with the format's overflow rules. Exact stochastic rounding consults
  further words (srl_rng_extra) only when u equals f1 and f has more bits (probability 2^-64
  per element for data that does not aim at it); those elements are finished in Python
  integers, on the host.

Integers are int64 tensors holding the bits of unsigned 64-bit words; + - * wrap modulo 2^64
(two's complement, as torch's CPU and CUDA kernels compute them), >> is arithmetic, so logical
shifts mask, and unsigned comparisons flip the sign bit first. Values are converted to float64
exactly (every float dtype is a subset) and rounded from there; the result is float64. The torch
operations used: view/reshape/to(dtype), &, |, ^, ~, <<, >> (tensor and scalar shift counts), +,
-, *, comparisons, torch.where, clamp, nonzero/any (the rare tie path), arange, cat, and
indexing. The device needs int64 and float64 tensors.
"""

import functools

import torch

_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_MIN = -(1 << 63)
_PCG32_MULT = 6364136223846793005
_PCG64_MULT = (2549297995355413924 << 64) | 4865540595714422341
_EXTRABIT = 0x4558545241424954  # "EXTRABIT", the domain tag of srl_rng_extra
_BLOCK = 4096                   # table length B
_CHUNK = 1 << 20                # elements rounded per pass (bounds the temporaries' memory)

# mode numbers of include/srlab/mode.h
RN, RNA, RZ, RU, RD, RO, SR, SR_EQ, SR_BITS = range(9)
_MODES = {"rn": RN, "rna": RNA, "rz": RZ, "ru": RU, "rd": RD, "ro": RO, "sr": SR, "sr-eq": SR_EQ}


def parse_mode(name):
    """(mode, R) from a canonical rounding name (srlab's own parser has checked it)."""
    if name.startswith("sr:r="):
        return SR_BITS, int(name[5:])
    return _MODES[name], 0


def stochastic(mode):
    return mode in (SR, SR_EQ, SR_BITS)


# ---- scalar reference (Python integers): seeding, jumps, hashes, single draws ----

def _s64(u):
    """An unsigned 64-bit word as the signed int64 with the same bits."""
    u &= _M64
    return u - (1 << 64) if u >> 63 else u


def _jump(mult, inc, delta, mod):
    """The LCG advanced delta steps as an affine map: (am, ac) with state -> am state + ac."""
    acc_m, acc_c, cur_m, cur_c = 1, 0, mult, inc
    while delta:
        if delta & 1:
            acc_m = acc_m * cur_m % mod
            acc_c = (acc_c * cur_m + cur_c) % mod
        cur_c = (cur_m + 1) * cur_c % mod
        cur_m = cur_m * cur_m % mod
        delta >>= 1
    return acc_m, acc_c


def _seeded(kind, seed, stream):
    """(state, inc, mult, mod) of the generator srl_rng_init seeds."""
    mult, mod = (_PCG32_MULT, 1 << 64) if kind == "pcg32" else (_PCG64_MULT, 1 << 128)
    inc = ((stream << 1) | 1) % mod
    return ((seed + inc) * mult + inc) % mod, inc, mult, mod


def _rotr(v, r, bits):
    r &= bits - 1
    return ((v >> r) | (v << ((bits - r) & (bits - 1)))) & ((1 << bits) - 1)


def _out32(s):
    return _rotr((((s >> 18) ^ s) >> 27) & 0xFFFFFFFF, s >> 59, 32)


def _out64(s):
    return _rotr(((s >> 64) ^ s) & _M64, s >> 122, 64)


def draw_at(kind, seed, stream, index):
    """Draw `index` of the stream, as srl_rng_draw_at (one Python-integer draw)."""
    state, inc, mult, mod = _seeded(kind, seed, stream)
    if kind == "pcg32":
        am, ac = _jump(mult, inc, 2 * index, mod)
        s0 = (am * state + ac) % mod
        s1 = (s0 * mult + inc) % mod
        return (_out32(s0) << 32) | _out32(s1)
    am, ac = _jump(mult, inc, index + 1, mod)
    return _out64((am * state + ac) % mod)


def hash64(a, b):
    """srl_hash64 (src/core/rng.c)."""
    z = ((a * 0x9E3779B97F4A7C15) & _M64) ^ ((b + 0xD1B54A32D192ED03) & _M64)
    z ^= z >> 30
    z = z * 0xBF58476D1CE4E5B9 & _M64
    z ^= z >> 27
    z = z * 0x94D049BB133111EB & _M64
    z ^= z >> 31
    z = (z + b) & _M64
    z ^= z >> 29
    z = z * 0xBF58476D1CE4E5B9 & _M64
    z ^= z >> 32
    return z


def extra_word(kind, seed, stream, index, k):
    """srl_rng_extra: word k of the extra random bits of draw `index`."""
    return draw_at(kind, seed, hash64(hash64(stream, _EXTRABIT), index), k)


# ---- vectorised draws ----

def _u(t):
    """int64 bits -> a value to compare as unsigned (flip the sign bit)."""
    return t ^ _MIN


def _ult(a, b):
    return _u(a) < _u(b)


def _srl(x, k):
    """Logical right shift of int64 words by a Python int 0 <= k <= 63."""
    return x if k == 0 else (x >> k) & ((1 << (64 - k)) - 1)


def _srl_t(x, k):
    """Logical right shift by a tensor of counts 0 <= k <= 63."""
    kk = k.clamp(1, 63)
    one = torch.ones_like(x)
    r = (x >> kk) & ((one << (64 - kk)) - 1)
    return torch.where(k == 0, x, r)


def _mulhi(x, y):
    """The high 64 bits of the unsigned 128-bit product of two words."""
    m32 = 0xFFFFFFFF
    x0, x1 = x & m32, _srl(x, 32)
    y0, y1 = y & m32, _srl(y, 32)
    p00, p01, p10, p11 = x0 * y0, x0 * y1, x1 * y0, x1 * y1
    mid = _srl(p00, 32) + (p01 & m32) + (p10 & m32)
    return p11 + _srl(p01, 32) + _srl(p10, 32) + _srl(mid, 32)


def _mul128(ah, al, bh, bl):
    """(ah:al) * (bh:bl) mod 2^128 as (hi, lo)."""
    return _mulhi(al, bl) + al * bh + ah * bl, al * bl


def _add128(ah, al, bh, bl):
    lo = al + bl
    return ah + bh + _ult(lo, al).to(torch.int64), lo


def _tensor(vals, device):
    return torch.tensor([_s64(v) for v in vals], dtype=torch.int64, device=device)


@functools.lru_cache(maxsize=16)
def _tables(kind, device):
    """A^l and S_l (l < B) for the jump of one draw: 2 steps for pcg32, 1 for pcg64; pcg64's as
    (hi, lo) pairs."""
    if kind == "pcg32":
        mult, mod, steps = _PCG32_MULT, 1 << 64, 2
    else:
        mult, mod, steps = _PCG64_MULT, 1 << 128, 1
    a_step, s_step = _jump(mult, 1, steps, mod)  # with inc = 1, the constant term is S_steps
    P, S = [1], [0]
    for _ in range(_BLOCK - 1):
        P.append(P[-1] * a_step % mod)
        S.append((S[-1] * a_step + s_step) % mod)
    if kind == "pcg32":
        return _tensor(P, device), _tensor(S, device)
    return (_tensor([v >> 64 for v in P], device), _tensor(P, device),
            _tensor([v >> 64 for v in S], device), _tensor(S, device))


def _rotr_t(v, r, bits):
    """Rotate right words of `bits` bits (32: values below 2^32) by counts r in [0, bits)."""
    if bits == 32:
        return (_srl_t(v, r) | (v << ((32 - r) & 31))) & 0xFFFFFFFF
    return _srl_t(v, r) | (v << ((64 - r) & 63))


def _out32_t(s):
    x = _srl(_srl(s, 18) ^ s, 27) & 0xFFFFFFFF
    return _rotr_t(x, _srl(s, 59), 32)


def draws(kind, seed, stream, counter, n, device):
    """Draws counter .. counter + n - 1 of the stream, as an int64 tensor of length n."""
    state, inc, mult, mod = _seeded(kind, seed, stream)
    nblk = -(-n // _BLOCK)
    steps = 2 if kind == "pcg32" else 1
    first = 2 * counter if kind == "pcg32" else counter + 1
    am, ac = _jump(mult, inc, first, mod)
    h = (am * state + ac) % mod
    bm, bc = _jump(mult, inc, steps * _BLOCK, mod)
    heads = []
    for _ in range(nblk):  # the state at each block's first draw
        heads.append(h)
        h = (bm * h + bc) % mod
    width = min(n, _BLOCK)
    if kind == "pcg32":
        P, S = _tables(kind, device)
        hs = _tensor(heads, device)[:, None]
        s0 = (P[None, :width] * hs + S[None, :width] * _s64(inc)).reshape(-1)[:n]
        s1 = s0 * _s64(mult) + _s64(inc)
        return (_out32_t(s0) << 32) | _out32_t(s1)
    Ph, Pl, Sh, Sl = _tables(kind, device)
    ih, il = _s64(inc >> 64), _s64(inc)
    qh, ql = _mul128(Sh[:width], Sl[:width], torch.full_like(Sh[:width], ih),
                     torch.full_like(Sl[:width], il))
    hh = _tensor([v >> 64 for v in heads], device)[:, None]
    hl = _tensor(heads, device)[:, None]
    sh, sl = _mul128(Ph[None, :width], Pl[None, :width], hh, hl)
    sh, sl = _add128(sh, sl, qh[None, :], ql[None, :])
    sh, sl = sh.reshape(-1)[:n], sl.reshape(-1)[:n]
    return _rotr_t(sh ^ sl, _srl(sh, 58), 64)


# ---- the rounding ----

def _pow2(q):
    """2^q as float64 for integer tensors -1074 <= q <= 1023, built from bits."""
    q = q.clamp(-1074, 1023)
    normal = ((q + 1023).clamp(min=1) << 52).view(torch.float64)
    sub = (torch.ones_like(q) << (q + 1074).clamp(0, 51)).view(torch.float64)
    return torch.where(q >= -1022, normal, sub)


def _decide(mode, r, f1, more, todd, neg, u):
    """away (bool) and undecided (bool, sr only) per element: src/round/decide.h with a known
    first word (lo == hi == f1, strict = more, all 64 bits of u valid)."""
    inexact = (f1 != 0) | more
    und = None
    if mode == RN:
        thr = torch.where(more | (todd != 0), (1 << 63) - 1, _MIN)  # half - (strict | todd)
        away = _ult(thr, f1)
    elif mode == RNA:
        away = f1 < 0  # f1 >= half
    elif mode == RZ:
        away = torch.zeros_like(more)
    elif mode == RU:
        away = ~neg
    elif mode == RD:
        away = neg
    elif mode == RO:
        away = todd == 0
    elif mode == SR:
        away = _ult(u, f1)
        und = (u == f1) & more
    elif mode == SR_EQ:
        away = u < 0  # the top bit
    else:  # sr:r=R: away iff F + Z >= 2^R
        if r == 64:
            away = _ult(f1 + u, f1)
        else:
            F, Z = _srl(f1, 64 - r), _srl(u, 64 - r)
            away = _srl(F + Z, r) != 0
    return away & inexact, und


def _tail_decision(M, s, kind, seed, stream, index):
    """srl__sr_tail for one element: U's further words against f's, f = M 2^-s (s > 64)."""
    nwords = (s + 63) // 64 - 1
    for k in range(1, nwords + 1):
        w = extra_word(kind, seed, stream, index, k - 1)
        sh = s - 64 * (k + 1)
        fk = (M >> sh if sh >= 0 else M << -sh) & _M64 if -64 < sh < 64 else 0
        if w != fk:
            return w < fk
    return False


def round_flat(x, fmt, mode, r, pos):
    """The values of x (a float tensor, C order) rounded into fmt: a float64 tensor of the same
    number of elements. pos = (kind, seed, stream, counter) of element 0's draw (stochastic
    modes only)."""
    xd = x.reshape(-1).to(torch.float64)
    out = torch.empty_like(xd)
    n = xd.numel()
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        p = None if pos is None else (pos[0], pos[1], pos[2], pos[3] + start)
        out[start:stop] = _round_chunk(xd[start:stop], fmt, mode, r, p)
    return out


def _round_chunk(xd, fmt, mode, r, pos):
    b = xd.view(torch.int64)
    a = b & ((1 << 63) - 1)
    neg = b < 0
    be = a >> 52
    normal = be != 0
    M = torch.where(normal, (a & ((1 << 52) - 1)) | (1 << 52), a)
    E = torch.where(normal, be - 1075, torch.full_like(be, -1074))
    lg = (M.to(torch.float64).view(torch.int64) >> 52) - 1023  # floor(log2 M) for 0 < M < 2^53
    e = torch.where(normal, be - 1023, lg - 1074)
    below = (fmt.emin - fmt.p + 1) if fmt.subnormals else fmt.emin
    qe = torch.where(e >= fmt.emin, e - fmt.p + 1, torch.full_like(e, below))
    s = qe - E  # bits of M below the grid
    # |x| = (T + f) 2^qe: T, f1 = floor(f 2^64), more = f 2^64 is not an integer
    mid = (s >= 1) & (s <= 63)
    big = s >= 64
    sm = s.clamp(1, 63)
    one = torch.ones_like(M)
    T = torch.where(mid, M >> sm, torch.zeros_like(M))
    f1_mid = (M & ((one << sm) - 1)) << (64 - sm)
    sh = (s - 64).clamp(0, 63)
    far = s >= 128
    f1_big = torch.where(far, torch.zeros_like(M), M >> sh)
    low_big = torch.where(far, M, M & ((one << sh) - 1))
    f1 = torch.where(mid, f1_mid, torch.where(big, f1_big, torch.zeros_like(M)))
    more = big & (low_big != 0)
    u = None
    if stochastic(mode):
        u = draws(pos[0], pos[1], pos[2], pos[3], xd.numel(), xd.device)
    away, und = _decide(mode, r, f1, more, T & 1, neg, u)
    finite_nz = (a != 0) & (be != 2047)
    if und is not None:
        und = und & finite_nz
        if bool(und.any()):  # the rare ties of exact sr: finish them on the host
            idx = und.nonzero().reshape(-1).tolist()
            Ms, ss = M[idx].tolist(), s[idx].tolist()
            dec = [_tail_decision(Mi, si, pos[0], pos[1], pos[2], pos[3] + i)
                   for Mi, si, i in zip(Ms, ss, idx)]
            away[idx] = torch.tensor(dec, dtype=torch.bool, device=xd.device)
    mag = torch.where(s <= 0, a.view(torch.float64),
                      (T + away.to(torch.int64)).to(torch.float64) * _pow2(qe))
    # overflow: rz, ro, and rd/ru toward zero (or a saturating format) give xmax; the others
    # inf, or NaN in a format without infinities
    if fmt.saturate or mode in (RZ, RO):
        to_xmax = torch.ones_like(neg)
    elif mode == RU:
        to_xmax = neg
    elif mode == RD:
        to_xmax = ~neg
    else:
        to_xmax = torch.zeros_like(neg)
    big_val = torch.where(to_xmax, torch.full_like(mag, fmt.xmax),
                          torch.full_like(mag, float("inf") if fmt.has_inf else float("nan")))
    ovf = mag > fmt.xmax
    mag = torch.where(ovf, big_val, mag)
    res = torch.where(neg & ~torch.isnan(mag), -mag, mag)
    # specials: NaN -> NaN; +-inf -> +-xmax (saturating), itself (with inf), NaN (without);
    # zeros unchanged
    isnan = be.eq(2047) & (a != (2047 << 52))
    isinf = a == (2047 << 52)
    if fmt.saturate:
        inf_val = torch.where(neg, -fmt.xmax, fmt.xmax).to(torch.float64)
    elif fmt.has_inf:
        inf_val = xd
    else:
        inf_val = torch.full_like(xd, float("nan"))
    res = torch.where(isinf, inf_val, res)
    res = torch.where(a == 0, xd, res)
    return torch.where(isnan, torch.full_like(xd, float("nan")), res)
