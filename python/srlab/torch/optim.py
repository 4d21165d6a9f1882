"""srlab.torch.optim: optimizers whose step is the C library's (SGD, heavy-ball momentum, Adam,
AdamW under srlab train's precision strategies), OptimLP (any torch optimizer with its weights,
gradients and state rounded into chosen formats), and the seed paper's optimizer written plainly
in torch for comparison. Imported by srlab.torch; the names are srlab.torch.SGD, ...

How the library optimizers are exact. Each parameter's optimizer state lives in the library:
its weight, gradient, moments, master copy (mp) and Kahan buffer (bf16-kahan) are the tensors
`srlab train` allocates (include/srlab/optim.h), in the strategy's formats (bf16 really 2
bytes), and a step is the library's srl_optim_step: the same update arithmetic (binary32 or
binary64, operation by operation), the same roundings of every write, and the same draws -- a
parameter named NAME with seed S draws what `srlab train --seed S` draws for a weight called
NAME. The optimizer's state (optimizer.state[p]) is a torch view of that memory, so
state_dict() shows the stored values and load_state_dict() restores them bit for bit.
"""

import itertools
import math

import numpy as np
import torch

from .. import Stream, _core
from . import _bump_version, as_quant, check_tensor, holds, round_

_LIB_DTYPES = (torch.float32, torch.float64, torch.bfloat16)


def param_dtype(strategy):
    """The narrowest torch dtype that holds every value of the strategy's weight format:
    torch.bfloat16 for the bf16 strategies and mp (whose model weights are the bf16 cast of
    the master), torch.float32 for fp32, torch.float64 for wider formats. strategy is a preset
    name or a dict of `srlab train` keys (see AdamW)."""
    fmt = _core.strategy_info(strategy)["param"][0]
    for dt in (torch.bfloat16, torch.float32):
        if holds(dt, fmt):
            return dt
    return torch.float64


def _numpy(t):
    """A numpy view of a contiguous CPU tensor's memory: float32/float64, or int16 bf16
    patterns."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().reshape(-1)
    return t.numpy().reshape(-1)


# ---- hyper-parameters ----

def _as_float(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    return float(value)


def _nonneg(value, name):
    v = _as_float(value, name)
    if not (v >= 0 and math.isfinite(v)):
        raise ValueError(f"{name}: {v} is not a non-negative finite number")
    return v


def _unit(value, name):
    v = _as_float(value, name)
    if not 0 <= v < 1:
        raise ValueError(f"{name}: {v} is outside [0, 1)")
    return v


def _check_lr(v):
    v = _as_float(v, "lr")
    if not (v >= 0 and math.isfinite(v)):
        raise ValueError(f"lr: {v} is not a non-negative finite learning rate")
    return v


def _check_betas(betas):
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError("betas: expected a pair (beta1, beta2)")
    out = []
    for k, b in enumerate(betas):
        b = _as_float(b, "betas")
        if not 0 <= b < 1:
            raise ValueError(f"betas: betas[{k}] = {b} is outside [0, 1)")
        out.append(b)
    return tuple(out)


def _check_eps(v):
    v = _as_float(v, "eps")
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"eps: {v} is not a positive finite number")
    return v


_CHECKS = {"lr": _check_lr, "betas": _check_betas, "eps": _check_eps,
           "weight_decay": lambda v: _nonneg(v, "weight_decay"),
           "momentum": lambda v: _unit(v, "momentum")}


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


# ---- the library optimizers ----

class _LibraryOptimizer(torch.optim.Optimizer):
    """What SGD, Adam and AdamW share: the library state of each parameter and its step."""

    _opt = None          # srlab train's --opt of the subclass ("sgd", "adam", ...)
    _hyper = ()          # the group keys the subclass checks
    _state_keys = ()     # (torch state key, library tensor) of the moments

    def __init__(self, params, defaults, strategy, seed, rng):
        self._check_group(defaults)
        self._info = _core.strategy_info(strategy)
        self._strategy = strategy
        self._seed = Stream(seed=seed).seed
        self._rng = Stream(rng=rng).rng
        self._srl = {}
        self._used_names = set()
        self._unnamed = 0
        self.last_stats = {"lost": 0, "nonfinite": 0, "nonfinite_grad": 0, "numel": 0}
        groups, self._pending_names = _split_names(params)
        super().__init__(groups, defaults)
        self._pending_names = {}

    @classmethod
    def _check_group(cls, group):
        return {k: _CHECKS[k](group[k]) for k in cls._hyper}

    def _step_args(self, h):
        """The keyword arguments of the library step for checked group values h."""
        raise NotImplementedError

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
        self._check_group({k: param_group.get(k, self.defaults[k]) for k in self._hyper})
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
        check_tensor(p, "params", _LIB_DTYPES)
        if p.device.type != "cpu":
            raise ValueError(f"params: a parameter is on {p.device}; srlab.torch's library "
                             f"optimizers work on CPU tensors (OptimLP works on any device)")
        fmt = self._info["param"][0]
        if not holds(p.dtype, fmt):
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
            st = _core._OptimState(name, p.numel(), self._strategy, self._seed, rng=self._rng,
                                   opt=self._opt)
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
        for key, which in self._state_keys + (("master", "master"), ("kahan_comp", "comp")):
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
            args = self._step_args(self._check_group(group))
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                if g.layout != torch.strided:
                    raise RuntimeError(f"srlab.torch.{type(self).__name__} does not support "
                                       f"sparse gradients")
                if g.dtype not in _LIB_DTYPES or g.device.type != "cpu":
                    raise TypeError(f"a gradient is {g.dtype} on {g.device}; expected a "
                                    f"float32, float64 or bfloat16 CPU tensor")
                st = self._srl[id(p)]
                state = self.state[p]
                t = state["step"] + 1
                if not master:
                    st.load_param(self._flat(p))
                st.set_grad(self._flat(g), t)
                lost, nonfinite, nonfinite_grad = st.step(t, **args)
                self._write_param(p, st)
                state["step"] = t
                stats["lost"] += lost
                stats["nonfinite"] += nonfinite
                stats["nonfinite_grad"] += nonfinite_grad
                stats["numel"] += p.numel()
        self.last_stats = stats
        return loss

    def _meta(self):
        names = [self._srl[id(p)].name for g in self.param_groups for p in g["params"]]
        return {"optimizer": self._opt, "strategy": self._strategy, "seed": self._seed,
                "rng": self._rng, "names": names}

    def state_dict(self):
        """torch's state dict ("state", "param_groups") plus "srlab": the optimizer, strategy,
        seed, rng and parameter names, which load_state_dict checks. The state tensors are views
        of the live state (as torch's optimizers return theirs); copy.deepcopy or torch.save
        them."""
        sd = super().state_dict()
        sd["srlab"] = self._meta()
        return sd

    def load_state_dict(self, state_dict):
        """Restore the state saved by state_dict(), bit for bit (moments, master copy, Kahan
        buffer, step counts, group hyper-parameters). The state must come from the same
        optimizer, strategy, seed and parameter names; every entry is checked before anything
        changes."""
        if not isinstance(state_dict, dict) or "state" not in state_dict or \
                "param_groups" not in state_dict:
            raise ValueError(f"state_dict: expected the dict of {type(self).__name__}."
                             f"state_dict()")
        meta = state_dict.get("srlab")
        if meta is not None:
            mine = self._meta()
            for k in mine:
                if k in meta and meta[k] != mine[k]:
                    raise ValueError(f"state_dict: saved with {k} {meta.get(k)!r}, this "
                                     f"optimizer has {mine[k]!r}")
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("state_dict: a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("state_dict: a parameter group of a different size")
        for s in saved_groups:
            self._check_group({k: s.get(k, self.defaults[k]) for k in self._hyper})
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
            for key in cur:
                if key == "step":
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


_COMMON_DOC = """
    params        tensors, (name, tensor) pairs such as model.named_parameters(), or param
                  groups (dicts) of either. Names key the random streams (a '.' becomes '/');
                  unnamed parameters are called p0, p1, ... in order. Float32, float64 or
                  bfloat16 CPU tensors whose dtype holds the strategy's weight format
                  (param_dtype(strategy) is the narrowest); they are rounded to nearest into
                  it here, as `srlab train` rounds x0.
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
    each parameter counts its own steps (state["step"]). Hyper-parameters are per group and may
    change between steps (schedulers work). last_stats holds the step's lost updates (nonzero
    step, stored weight unchanged), non-finite weights and gradients.
"""


class SGD(_LibraryOptimizer):
    __doc__ = """SGD(params, lr=1e-3, momentum=0, weight_decay=0, *, strategy="bf16-sr", seed=1,
           rng="pcg32")

    Stochastic gradient descent, with heavy-ball momentum when momentum > 0, whose step is
    `srlab train --opt sgd` (momentum 0) or `--opt momentum --momentum MU`, bit for bit:

        sgd       x <- x - lr (g + wd x)
        momentum  m' = mu m + (g + wd x);  x <- x - lr m'

    the operations of include/srlab/optim.h in the strategy's arithmetic, every write rounded
    with its slot's rounding. torch.optim.SGD without dampening and nesterov computes the same
    (its first momentum buffer is g + wd x, as m' = mu 0 + ... is). The buffer is
    state[p]["momentum_buffer"]; momentum is fixed at construction to zero or not (a buffer is
    allocated or not), its value may change per group.
""" + _COMMON_DOC

    _hyper = ("lr", "momentum", "weight_decay")
    _state_keys = (("momentum_buffer", "m"),)

    def __init__(self, params, lr=1e-3, momentum=0.0, weight_decay=0.0, *, strategy="bf16-sr",
                 seed=1, rng="pcg32"):
        self._opt = "momentum" if _CHECKS["momentum"](momentum) > 0 else "sgd"
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay),
                         strategy, seed, rng)

    def _step_args(self, h):
        if self._opt == "sgd" and h["momentum"] != 0:
            raise ValueError("momentum: this SGD was built with momentum 0 and has no momentum "
                             "buffer; build it with momentum > 0")
        return dict(lr=h["lr"], weight_decay=h["weight_decay"], momentum=h["momentum"])


class Adam(_LibraryOptimizer):
    __doc__ = """Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *,
            strategy="bf16-sr", seed=1, rng="pcg32")

    Adam with L2 weight decay in the gradient, whose step is `srlab train --opt adam`, bit for
    bit (torch.optim.Adam's update):

        d = g + wd x;  m' = b1 m + (1-b1) d;  v' = b2 v + ((1-b2) d) d
        x <- x - lr (m'/(1-b1^t)) / (sqrt(v'/(1-b2^t)) + eps)

    operation by operation in the strategy's arithmetic, m' and v' written with their slots'
    rounding (state[p]["exp_avg"], state[p]["exp_avg_sq"]), the new weight with the weight
    slot's.
""" + _COMMON_DOC

    _opt = "adam"
    _hyper = ("lr", "betas", "eps", "weight_decay")
    _state_keys = (("exp_avg", "m"), ("exp_avg_sq", "v"))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *,
                 strategy="bf16-sr", seed=1, rng="pcg32"):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay),
                         strategy, seed, rng)

    def _step_args(self, h):
        return dict(lr=h["lr"], beta1=h["betas"][0], beta2=h["betas"][1], eps=h["eps"],
                    weight_decay=h["weight_decay"])


class AdamW(Adam):
    __doc__ = """AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *,
             strategy="bf16-sr", seed=1, rng="pcg32")

    AdamW (decoupled weight decay), whose step is `srlab train --opt adamw`, bit for bit:

        m' = b1 m + (1-b1) g;  v' = b2 v + ((1-b2) g) g
        x <- x - lr ((m'/(1-b1^t)) / (sqrt(v'/(1-b2^t)) + eps) + wd x)

    computed operation by operation in the strategy's arithmetic, m' and v' written with their
    slots' rounding (state[p]["exp_avg"], state[p]["exp_avg_sq"]), the new weight written with
    the weight slot's rounding (sr:r=16 for bf16-sr: a random 16-bit integer added to the fp32
    bits; exact SR of the binary64 value for bf16-sr-exact), and every draw a pure function of
    (seed, parameter name, step, element).
""" + _COMMON_DOC

    _opt = "adamw"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *,
                 strategy="bf16-sr", seed=1, rng="pcg32"):
        super().__init__(params, lr, betas, eps, weight_decay, strategy=strategy, seed=seed,
                         rng=rng)


# ---- any torch optimizer, stored in chosen formats ----

class OptimLP(torch.optim.Optimizer):
    """OptimLP(optimizer, weight=None, grad=None, state=None, *, seed=1, rng="pcg32")

    Any torch optimizer with its weights, gradients and state stored in chosen formats, as
    QPyTorch's OptimLP: each step rounds every gradient with `grad`, runs optimizer.step(),
    then rounds every floating-point state tensor of the parameter's size (momentum buffers,
    Adam's moments: not the step counts) with `state` and every weight with `weight`. Each is
    an srlab.torch.Quant or a tuple (format, rounding); None leaves that kind alone. The
    parameters' dtypes must hold the formats (bf16 values in float32 tensors are the usual
    choice: torch's update then runs in float32, its results rounded here).

    Draws: parameter k of the optimizer's groups (in order) is called p{k}; at OptimLP step t
    (from 1) the rounding of its tensor NAME (p{k} for the weight, p{k}.grad, p{k}.KEY for
    state[p][KEY]) uses draws (t-1) n + i of srlab.Stream(seed, rng=rng).derive("writes")
    .derive(NAME) for element i, n = p.numel(): the stream `srlab train` gives a tensor of
    that name. So the result is a pure function of the seed, the parameter's place, the step
    and the element, on any device (off the CPU the torch-only rounding runs).

    param_groups and state are the wrapped optimizer's (schedulers work); the wrapped
    optimizer is .optimizer. state_dict() adds {"srlab": {"step": t, ...}}.
    """

    def __init__(self, optimizer, weight=None, grad=None, state=None, *, seed=1, rng="pcg32"):
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"optimizer: expected a torch.optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.weight_quant = as_quant(weight, "weight")
        self.grad_quant = as_quant(grad, "grad")
        self.state_quant = as_quant(state, "state")
        self._root = Stream(seed=seed, rng=rng).derive("writes")
        self._seed, self._rng = self._root.seed, self._root.rng
        self.optimizer = optimizer
        self._t = 0
        for k, p in enumerate(self._params()):
            for q, what in ((self.weight_quant, "weight"), (self.grad_quant, "grad"),
                            (self.state_quant, "state")):
                if q is not None and not holds(p.dtype, q.format):
                    raise ValueError(f"{what}: parameter p{k} is {p.dtype}, which cannot hold "
                                     f"every value of {q.format.name}")
        super().__init__(optimizer.param_groups, optimizer.defaults)
        self.param_groups = optimizer.param_groups
        self.state = optimizer.state

    def _params(self):
        return [p for g in self.optimizer.param_groups for p in g["params"]]

    def _stream(self, name, t, n):
        s = self._root.derive(name)
        s.counter = (t - 1) * n
        return s

    def _round(self, x, q, name, t):
        if q is None:
            return
        if not holds(x.dtype, q.format):
            raise ValueError(f"{name}: a {x.dtype} tensor cannot hold every value of "
                             f"{q.format.name}")
        round_(x, q.format, q.rounding, self._stream(name, t, x.numel()))

    @torch.no_grad()
    def step(self, closure=None):
        """Round the gradients, take the wrapped optimizer's step, round its state and the
        weights (see the class); returns closure()'s loss if a closure is given (evaluated with
        gradients enabled first)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        t = self._t + 1
        params = self._params()
        for k, p in enumerate(params):
            if p.grad is not None:
                self._round(p.grad, self.grad_quant, f"p{k}.grad", t)
        self.optimizer.step()
        for k, p in enumerate(params):
            if p.grad is None:
                continue
            st = self.optimizer.state.get(p, {})
            for key in sorted(st):
                v = st[key]
                if (key != "step" and isinstance(v, torch.Tensor) and v.is_floating_point()
                        and v.numel() == p.numel()):
                    self._round(v, self.state_quant, f"p{k}.{key}", t)
            self._round(p, self.weight_quant, f"p{k}", t)
        self._t = t
        return loss

    def zero_grad(self, set_to_none=False):
        """The wrapped optimizer's zero_grad."""
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def state_dict(self):
        """The wrapped optimizer's state dict plus "srlab": OptimLP's step count, seed, rng and
        quants."""
        sd = self.optimizer.state_dict()
        sd["srlab"] = {"step": self._t, "seed": self._seed, "rng": self._rng,
                       "weight": self.weight_quant, "grad": self.grad_quant,
                       "state": self.state_quant}
        return sd

    def load_state_dict(self, state_dict):
        """Restore a state_dict(): the wrapped optimizer's state and OptimLP's step count (the
        seed, rng and quants must be the same)."""
        sd = dict(state_dict)
        meta = sd.pop("srlab", None)
        if meta is not None:
            for k, v in (("seed", self._seed), ("rng", self._rng), ("weight", self.weight_quant),
                         ("grad", self.grad_quant), ("state", self.state_quant)):
                if meta.get(k) != v:
                    raise ValueError(f"state_dict: saved with {k} {meta.get(k)!r}, this "
                                     f"OptimLP has {v!r}")
        self.optimizer.load_state_dict(sd)
        if meta is not None:
            self._t = int(meta["step"])

    def __repr__(self):
        return (f"OptimLP({self.optimizer!r}, weight={self.weight_quant}, "
                f"grad={self.grad_quant}, state={self.state_quant})")


# ---- the seed paper's optimizer, plainly in torch ----

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
        Adam._check_group(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
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
