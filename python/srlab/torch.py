"""srlab.torch: srlab's rounding and precision strategies for PyTorch CPU tensors.

    round_(tensor, format, rounding, generator=None)   round a tensor in place
    AdamW(params, lr, betas, eps, weight_decay, strategy="bf16-sr", seed=1)
                                                       a torch.optim.Optimizer whose state and
                                                       weight writes are srlab train's, exactly
    PlainSRAdamW(params, ...)                          the seed paper's bf16 AdamW written
                                                       plainly in torch, for comparison
    param_dtype(strategy)                              the torch dtype for a strategy's weights

Needs Debian's python3-torch (CPU). Importing srlab does not import torch; importing
srlab.torch does.

How AdamW is exact. Each parameter's optimizer state lives in the library: its moments, master
copy (mp) and Kahan buffer (bf16-kahan) are the tensors `srlab train` allocates
(include/srlab/optim.h), in the strategy's formats (bf16 really 2 bytes), and a step is the
library's srl_optim_step: the same update arithmetic (binary32 or binary64, operation by
operation), the same roundings of every write, and the same draws -- a parameter named NAME
with seed S draws what `srlab train --seed S` draws for a weight called NAME. The optimizer's
state (optimizer.state[p]: "step", "exp_avg", "exp_avg_sq", and "master" or "kahan_comp" when
the strategy has them) is a torch view of that memory, so state_dict() shows the stored values
and load_state_dict() restores them bit for bit.
"""

import itertools
import math

import numpy as np
import torch

from . import Format, Generator, _core

__all__ = ["AdamW", "PlainSRAdamW", "default_generator", "param_dtype", "round_"]

_DTYPES = (torch.float32, torch.float64, torch.bfloat16)

_default_generator = Generator(seed=1)


def default_generator():
    """The srlab.Generator that round_ uses when none is given (seed 1, stream 0 at first).

    Like torch's default generator it is shared by every call without a generator; pass your
    own srlab.Generator for reproducible, independent streams.
    """
    return _default_generator


def _format_arg(fmt, name):
    if isinstance(fmt, Format):
        return fmt
    if not isinstance(fmt, str):
        raise TypeError(f"{name}: expected a format name or spec (str) or an srlab.Format, "
                        f"got {type(fmt).__name__}")
    try:
        return Format(fmt)
    except ValueError as e:
        msg = str(e)
        if msg.startswith("spec: "):
            msg = msg[len("spec: "):]
        raise ValueError(f"{name}: {msg}") from None


def _holds(dtype, fmt):
    """True when every value of fmt is a number of the torch dtype."""
    if dtype == torch.float64:
        return True
    if dtype == torch.float32:
        return fmt.fits_float
    if dtype == torch.bfloat16:
        return fmt.fits_bf16
    return False


def param_dtype(strategy):
    """The narrowest torch dtype that holds every value of the strategy's weight format:
    torch.bfloat16 for the bf16 strategies and mp (whose model weights are the bf16 cast of
    the master), torch.float32 for fp32, torch.float64 for wider formats. strategy is a preset
    name or a dict of `srlab train` keys (see AdamW)."""
    fmt = _core.strategy_info(strategy)["param"][0]
    for dt in (torch.bfloat16, torch.float32):
        if _holds(dt, fmt):
            return dt
    return torch.float64


def _int_view(t):
    """The same memory as an integer tensor of the same item size (bits, for numpy)."""
    return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _numpy(t):
    """A numpy view of a contiguous CPU tensor's memory: float32/float64, or int16 bf16
    patterns."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().reshape(-1)
    return t.numpy().reshape(-1)


def _bump_version(t):
    """Tell autograd that t changed in place (we wrote its memory from C): the same bookkeeping
    as an in-place torch operation, so a graph that saved the old values refuses to run."""
    inc = getattr(getattr(torch.autograd, "graph", None), "increment_version", None)
    if inc is not None:
        inc(t)
    else:
        with torch.no_grad():
            _int_view(t).bitwise_or_(0)  # changes no bit


def _check_tensor(t, name):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"{name}: is on {t.device}; srlab works on CPU tensors")
    if t.layout != torch.strided:
        raise ValueError(f"{name}: has layout {t.layout}; srlab works on dense tensors")
    if t.dtype not in _DTYPES:
        raise TypeError(f"{name}: expected a float32, float64 or bfloat16 tensor, got {t.dtype}")


def round_(tensor, format="bf16", rounding="sr", generator=None):
    """round_(tensor, format="bf16", rounding="sr", generator=None)

    Round every element of a CPU tensor into a format, in place, exactly as srlab.round does
    (the library's bulk rounding, on the library's threads): element i of the tensor in C order
    uses draw generator.counter + i of the generator's stream, and the generator's counter then
    advances by tensor.numel() in stochastic modes. Returns the tensor.

    tensor     a float32, float64 or bfloat16 CPU tensor, any shape and strides. Its dtype must
               hold every value of the format: float32 needs Format.fits_float (p <= 24,
               emax <= 127), bfloat16 needs Format.fits_bf16 (p <= 8, emax <= 127, spacing
               >= 2^-133); otherwise ValueError.
    format     bf16, fp16, fp32, tf32, e4m3, e5m2, fp64, or a custom
               p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off][,saturate=on|off]
    rounding   rn, rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64); see help(srlab.round)
    generator  an srlab.Generator (seed, stream, counter); None uses default_generator()

    A bfloat16 tensor's values are rounded from their exact binary32 values and stored back
    exactly. The tensor is left unchanged when an argument is wrong.

        >>> g = srlab.Generator(seed=7)
        >>> t = torch.full((4,), 1.00390625)
        >>> _ = srlab.torch.round_(t, "bf16", "sr", generator=g); g.counter
        4
    """
    _check_tensor(tensor, "tensor")
    fmt = _format_arg(format, "format")
    if generator is None:
        generator = _default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator: expected an srlab.Generator or None, got "
                        f"{type(generator).__name__}")
    if not _holds(tensor.dtype, fmt):
        raise ValueError(f"format: a {tensor.dtype} tensor cannot hold every value of "
                         f"{fmt.name} (p={fmt.p}, emax={fmt.emax}, emin={fmt.emin})")
    g = generator
    work = tensor.detach()
    copy_back = not work.is_contiguous()
    if copy_back:
        work = work.contiguous()
    arr = _numpy(work)
    if tensor.dtype == torch.bfloat16:
        counter = _core._round_bf16_bits(arr, fmt, rounding, g.seed, g.stream, g.counter,
                                         rng=g.rng)
    else:
        res = _core.round(arr, fmt, rounding, g.seed, g.stream, g.counter, out=arr, rng=g.rng)
        counter = res[1] if isinstance(res, tuple) else g.counter
    if copy_back:
        with torch.no_grad():
            tensor.copy_(work)
    else:
        _bump_version(tensor)
    g.counter = counter
    return tensor


# ---- the optimizer ----

_STATE_KEYS = (("exp_avg", "m"), ("exp_avg_sq", "v"), ("master", "master"),
               ("kahan_comp", "comp"))


def _as_float(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    return float(value)


def _check_hyper(lr, betas, eps, weight_decay):
    lr = _as_float(lr, "lr")
    if not (lr >= 0 and math.isfinite(lr)):
        raise ValueError(f"lr: {lr} is not a non-negative finite learning rate")
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError("betas: expected a pair (beta1, beta2)")
    b1, b2 = (_as_float(b, "betas") for b in betas)
    for k, b in enumerate((b1, b2)):
        if not 0 <= b < 1:
            raise ValueError(f"betas: betas[{k}] = {b} is outside [0, 1)")
    eps = _as_float(eps, "eps")
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps: {eps} is not a positive finite number")
    wd = _as_float(weight_decay, "weight_decay")
    if not (wd >= 0 and math.isfinite(wd)):
        raise ValueError(f"weight_decay: {wd} is not a non-negative finite number")
    return lr, (b1, b2), eps, wd


def _split_names(params):
    """Accept tensors, (name, tensor) pairs (model.named_parameters()) and param-group dicts of
    either; return torch's form and {id(tensor): name}."""
    names = {}

    def unpack(seq):
        out = []
        for item in seq:
            if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                    and isinstance(item[1], torch.Tensor)):
                names[id(item[1])] = item[0]
                out.append(item[1])
            else:
                out.append(item)
        return out

    if isinstance(params, torch.Tensor):
        raise TypeError("params: expected an iterable of tensors, (name, tensor) pairs or "
                        "param groups, got a single tensor")
    params = list(params)
    if params and isinstance(params[0], dict):
        groups = []
        for g in params:
            g = dict(g)
            if isinstance(g.get("params"), torch.Tensor):
                g["params"] = [g["params"]]
            else:
                g["params"] = unpack(g.get("params", []))
            groups.append(g)
        return groups, names
    return unpack(params), names


class AdamW(torch.optim.Optimizer):
    """AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *,
             strategy="bf16-sr", seed=1, rng="pcg32")

    A drop-in torch.optim.Optimizer for CPU tensors whose state and weight writes follow a
    precision strategy exactly as `srlab train --opt adamw` does: each step is the library's
    srl_optim_step, with the update

        m' = b1 m + (1-b1) g;  v' = b2 v + ((1-b2) g) g
        x <- x - lr ((m'/(1-b1^t)) / (sqrt(v'/(1-b2^t)) + eps) + wd x)

    computed operation by operation in the strategy's arithmetic, m' and v' written with their
    slots' rounding, the new weight written with the weight slot's rounding (sr:r=16 for
    bf16-sr: a random 16-bit integer added to the fp32 bits; exact SR of the binary64 value for
    bf16-sr-exact), and every draw a pure function of (seed, parameter name, step, element).

    params        tensors, (name, tensor) pairs such as model.named_parameters(), or param
                  groups (dicts) of either. Names key the random streams (a '.' becomes '/');
                  unnamed parameters are called p0, p1, ... in order. Float32, float64 or
                  bfloat16 CPU tensors whose dtype holds the strategy's weight format
                  (param_dtype(strategy) is the narrowest); they are rounded to nearest into
                  it here, as `srlab train` rounds x0.
    lr, betas, eps, weight_decay   as torch.optim.AdamW; per group; lr may change between steps
                  (schedulers work)
    strategy      fp32, mp, bf16-rn, bf16-sr (default), bf16-sr-exact, bf16-kahan, or a dict of
                  `srlab train` keys ({"strategy": "bf16-sr", "state-format": "fp32"}):
                    fp32           everything fp32, round to nearest
                    mp             fp32 master weights and moments, kept here; the parameters
                                   are the bf16 rn cast of the master; gradients bf16
                    bf16-rn        weights, gradients, moments bf16; update in fp32; writes rn
                    bf16-sr        as bf16-rn, the weight written with sr:r=16 of the fp32 value
                    bf16-sr-exact  as bf16-sr, update in binary64 rounded once with exact sr
                    bf16-kahan     as bf16-rn plus a bf16 Kahan compensation buffer
    seed, rng     the run's seed and generator, as `srlab train --seed --rng`

    Each step reads the gradient p.grad (rounded into the strategy's gradient format, as the
    problems of `srlab train` write theirs), the weights from p (except with a master copy,
    which is authoritative: writes to p between steps are overwritten by the cast of the
    master), and writes the new weights into p. Parameters without a gradient are skipped;
    each parameter counts its own steps (state["step"]). last_stats holds the step's lost
    updates (nonzero step, stored weight unchanged), non-finite weights and gradients.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *,
                 strategy="bf16-sr", seed=1, rng="pcg32"):
        lr, betas, eps, weight_decay = _check_hyper(lr, betas, eps, weight_decay)
        self._info = _core.strategy_info(strategy)
        self._strategy = strategy
        self._seed = Generator(seed=seed).seed
        self._rng = Generator(rng=rng).rng
        self._srl = {}
        self._used_names = set()
        self._unnamed = 0
        self.last_stats = {"lost": 0, "nonfinite": 0, "nonfinite_grad": 0, "numel": 0}
        groups, self._pending_names = _split_names(params)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(groups, defaults)
        self._pending_names = {}

    @property
    def strategy(self):
        """The strategy as given (a preset name or a dict of keys)."""
        return self._strategy

    @property
    def strategy_info(self):
        """srlab.strategy_info(strategy): the formats and roundings of every slot."""
        return dict(self._info)

    def add_param_group(self, param_group):
        """Add a param group (torch's semantics) and allocate its parameters' srlab state."""
        if isinstance(param_group, dict):
            groups, names = _split_names([param_group])
            param_group = groups[0]
            self._pending_names.update(names)
        _check_hyper(param_group.get("lr", self.defaults["lr"]),
                     param_group.get("betas", self.defaults["betas"]),
                     param_group.get("eps", self.defaults["eps"]),
                     param_group.get("weight_decay", self.defaults["weight_decay"]))
        params = param_group["params"]
        params = [params] if isinstance(params, torch.Tensor) else list(params)
        prepared, taken = [], set()
        for p in params:  # everything is checked before anything changes
            name, st = self._prepare(p)
            if name in taken:
                raise ValueError(f"params: two parameters are called '{name}'")
            taken.add(name)
            prepared.append((name, st))
        super().add_param_group(param_group)
        for p, (name, st) in zip(params, prepared):
            self._attach(p, name, st)

    def _prepare(self, p):
        _check_tensor(p, "params")
        fmt = self._info["param"][0]
        if not _holds(p.dtype, fmt):
            raise ValueError(f"params: a {p.dtype} parameter cannot hold every value of "
                             f"{fmt.name}, the weight format of strategy {self._info['name']}; "
                             f"convert the model to {param_dtype(self._strategy)}")
        if id(p) in self._srl:
            raise ValueError("params: a parameter appears twice")
        name = self._pending_names.get(id(p))
        if name is None:
            name = f"p{self._unnamed}"
            self._unnamed += 1
        name = name.replace(".", "/")
        if name in self._used_names:
            raise ValueError(f"params: two parameters are called '{name}'")
        try:
            st = _core._OptimState(name, p.numel(), self._strategy, self._seed, rng=self._rng)
        except ValueError as e:
            msg = str(e)
            if msg.startswith("name: weight 0: "):
                msg = msg[len("name: weight 0: "):]
            raise ValueError(f"params: parameter '{name}': {msg}") from None
        x0 = p.detach().to(torch.float64).reshape(-1).numpy()
        try:
            st.init(np.ascontiguousarray(x0))
        except ValueError as e:
            raise ValueError(f"params: {e}") from None
        return name, st

    def _attach(self, p, name, st):
        self._used_names.add(name)
        self._srl[id(p)] = st
        self._write_param(p, st)
        state = self.state[p]
        state["step"] = 0
        for key, which in _STATE_KEYS:
            a = st.tensor(which)
            if a is not None:
                t = torch.from_numpy(a)
                if a.dtype == np.int16:
                    t = t.view(torch.bfloat16)
                state[key] = t.view(p.shape)

    @staticmethod
    def _write_param(p, st):
        if p.is_contiguous():
            st.store_param(_numpy(p))
            _bump_version(p)
        else:
            tmp = torch.empty(p.shape, dtype=p.dtype)
            st.store_param(_numpy(tmp))
            with torch.no_grad():
                p.copy_(tmp)

    @staticmethod
    def _flat(t):
        t = t.detach()
        return _numpy(t if t.is_contiguous() else t.contiguous())

    @torch.no_grad()
    def step(self, closure=None):
        """One optimizer step on every parameter that has a gradient; returns closure()'s loss
        if a closure is given (evaluated with gradients enabled first)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        master = self._info["master"] is not None
        stats = {"lost": 0, "nonfinite": 0, "nonfinite_grad": 0, "numel": 0}
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = _check_hyper(group["lr"], group["betas"], group["eps"],
                                                 group["weight_decay"])
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                if g.layout != torch.strided:
                    raise RuntimeError("srlab.torch.AdamW does not support sparse gradients")
                if g.dtype not in _DTYPES or g.device.type != "cpu":
                    raise TypeError(f"a gradient is {g.dtype} on {g.device}; expected a "
                                    f"float32, float64 or bfloat16 CPU tensor")
                st = self._srl[id(p)]
                state = self.state[p]
                t = state["step"] + 1
                if not master:
                    st.load_param(self._flat(p))
                st.set_grad(self._flat(g), t)
                lost, nonfinite, nonfinite_grad = st.step(t, lr, b1, b2, eps, wd)
                self._write_param(p, st)
                state["step"] = t
                stats["lost"] += lost
                stats["nonfinite"] += nonfinite
                stats["nonfinite_grad"] += nonfinite_grad
                stats["numel"] += p.numel()
        self.last_stats = stats
        return loss

    def state_dict(self):
        """torch's state dict ("state", "param_groups") plus "srlab": the strategy, seed, rng
        and parameter names, which load_state_dict checks. The state tensors are views of the
        live state (as torch's optimizers return theirs); copy.deepcopy or torch.save them."""
        sd = super().state_dict()
        names = [self._srl[id(p)].name for g in self.param_groups for p in g["params"]]
        sd["srlab"] = {"strategy": self._strategy, "seed": self._seed, "rng": self._rng,
                       "names": names}
        return sd

    def load_state_dict(self, state_dict):
        """Restore the state saved by state_dict(), bit for bit (moments, master copy, Kahan
        buffer, step counts, group hyper-parameters). The state must come from the same
        strategy, seed and parameter names; every entry is checked before anything changes."""
        if not isinstance(state_dict, dict) or "state" not in state_dict or \
                "param_groups" not in state_dict:
            raise ValueError("state_dict: expected the dict of AdamW.state_dict()")
        meta = state_dict.get("srlab")
        if meta is not None:
            names = [self._srl[id(p)].name for g in self.param_groups for p in g["params"]]
            mine = {"strategy": self._strategy, "seed": self._seed, "rng": self._rng,
                    "names": names}
            for k in ("strategy", "seed", "rng", "names"):
                if meta.get(k) != mine[k]:
                    raise ValueError(f"state_dict: saved with {k} {meta.get(k)!r}, this "
                                     f"optimizer has {mine[k]!r}")
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("state_dict: a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("state_dict: a parameter group of a different size")
        id_map = dict(zip(itertools.chain.from_iterable(s["params"] for s in saved_groups),
                          itertools.chain.from_iterable(g["params"] for g in groups)))
        todo = []
        for k, saved in state_dict["state"].items():
            if k not in id_map:
                raise ValueError(f"state_dict: state for an unknown parameter index {k!r}")
            p = id_map[k]
            cur = self.state[p]
            step = saved.get("step")
            if isinstance(step, torch.Tensor):
                step = int(step.item())
            if isinstance(step, bool) or not isinstance(step, int) or step < 0:
                raise ValueError(f"state_dict: parameter {k}: 'step' must be an int >= 0")
            for key, _ in _STATE_KEYS:
                if key not in cur:
                    continue
                v = saved.get(key)
                if not isinstance(v, torch.Tensor) or v.dtype != cur[key].dtype or \
                        v.shape != cur[key].shape:
                    raise ValueError(f"state_dict: parameter {k}: '{key}' must be a "
                                     f"{cur[key].dtype} tensor of shape {tuple(cur[key].shape)}")
                todo.append((cur[key], v))
            todo.append((cur, step))
        for dst, src in todo:
            if isinstance(dst, dict):
                dst["step"] = src
            else:
                dst.copy_(src)  # same dtype: a bit copy into the library's memory
        for g, s in zip(groups, saved_groups):
            for k, v in s.items():
                if k != "params":
                    g[k] = v


class PlainSRAdamW(torch.optim.Optimizer):
    """PlainSRAdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *,
                    generator=None, random_bits=None)

    The seed paper's pure-bf16 AdamW written plainly in torch, without srlab, for comparison:
    bfloat16 parameters and moments; each step computes the update in float32 with torch
    operations in the order AdamW (above) uses, writes the moments rounded to nearest, and
    writes the weight by adding a random 16-bit integer to the float32 bit pattern and cutting
    the low 16 bits. That is sr:r=16: unbiased for float32 inputs (their fraction below bf16's
    last bit has at most 16 bits), biased toward zero for anything finer. srlab's bf16-sr
    strategy computes the same float32 update and has the same distribution; bf16-sr-exact and
    srlab.round(..., "sr") are exactly unbiased for every input.

    generator    a torch.Generator for the random integers (torch.randint)
    random_bits  optional callable (param, step) -> int32 tensor of param's shape with values
                 in [0, 2^16), replacing torch.randint (tests feed srlab's draws to compare
                 bit for bit)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *,
                 generator=None, random_bits=None):
        lr, betas, eps, weight_decay = _check_hyper(lr, betas, eps, weight_decay)
        self._gen = generator
        self._bits = random_bits
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        for g in self.param_groups:
            for p in g["params"]:
                if p.dtype != torch.bfloat16:
                    raise TypeError("params: PlainSRAdamW trains bfloat16 parameters")

    @torch.no_grad()
    def step(self, closure=None):
        """One step on every parameter with a gradient (see the class); returns closure()'s
        loss if a closure is given."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        f32 = lambda v: torch.tensor(v, dtype=torch.float32)  # noqa: E731  (rounded to nearest)
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                x = p.float()
                g = p.grad.to(torch.bfloat16).float()  # the gradient as bf16, rounded to nearest
                m = f32(b1) * state["exp_avg"].float() + f32(1.0 - b1) * g
                v = f32(b2) * state["exp_avg_sq"].float() + (f32(1.0 - b2) * g) * g
                q = torch.sqrt(v / f32(1.0 - b2 ** t))
                upd = (m / f32(1.0 - b1 ** t)) / (q + f32(group["eps"]))
                if group["weight_decay"] != 0:
                    upd = upd + f32(group["weight_decay"]) * x
                xe = x - f32(group["lr"]) * upd
                state["exp_avg"].copy_(m)      # float32 -> bfloat16: round to nearest even
                state["exp_avg_sq"].copy_(v)
                if self._bits is not None:
                    r = self._bits(p, t).to(torch.int32).reshape(p.shape)
                else:
                    r = torch.randint(0, 1 << 16, p.shape, dtype=torch.int32,
                                      generator=self._gen)
                bits = (xe.view(torch.int32) + r) & -65536  # add 16 random bits, cut the low 16
                p.copy_(bits.view(torch.float32))  # exact: a bf16 value
        return loss
