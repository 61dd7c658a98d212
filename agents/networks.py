"""PyTorch policy/value networks over the count-array observation, and a network as an agent.

Input: the planes of ``mj_obs_v1`` (``mj_env.observation``), (B, 14, 34) uint8, or of ``mj_obs_v2``
(``mj_env.features``: the same 14 planes and 4 computed from them), (B, 18, 34), turned into float
features inside the network (the environment stays integer). A network's layout is its config's
``obs`` (absent: ``mj_obs_v1``); ``model_inputs`` turns the environment's v1 planes into what a network
takes, so agents and the trainer feed either kind the same way. The v1 features:

=============================  ========  ================================================
feature                        size      from
=============================  ========  ================================================
natural hand, thermometer      4 x 34    P_HAND without the 惠牌: count >= 1, 2, 3, 4
melds, rivers of 4 seats       8 x 34    P_MELDS, P_RIVERS, counts / 4
indicator, 惠牌, claim, drawn   4 x 34    P_INDICATOR, P_HUI, P_CLAIM, P_DRAWN, one-hot
惠牌 held, thermometer          4         P_HAND at the 惠牌 kind: >= 1, 2, 3, 4
scalars                        34        P_SCALARS, each column divided by its range
=============================  ========  ================================================

and with ``mj_obs_v2`` besides (``V2_FEATURES``; for ``tiles`` the first three are per-tile channels, the
others go to the pooled summary):

=============================  ========  ================================================
feature                        size      from
=============================  ========  ================================================
need after each discard        34        P_DISCARD_NEED / 8
a discard of least need        34        P_DISCARD_NEED at its minimum over held kinds
improving tiles                34        P_DISCARD_IMPROVE / 32
need after each option         34        P_OPTION_NEED / 8
option better than as is       34        0 < P_OPTION_NEED < its column OPT_NOW
option as good as as is        34        P_OPTION_NEED == its column OPT_NOW (> 0)
improving tiles of options     34        P_OPTION_IMPROVE / 32
=============================  ========  ================================================

Two architectures (``build_network``; ``train.py --arch``):

- ``mlp`` (``PolicyValueNet``): the features above into an MLP trunk (CleanRL's orthogonal
  initialisation), a policy head of 127 logits and a value head;
- ``tiles`` (``TileNet``): the same information kept per tile kind, (B, C, 34), through
  convolutions along each suit (kernel 3, weights shared by the three suits, never across a
  suit boundary) and per-tile layers for the honors, with a pooled summary of the whole table
  fed back into every block. Discard, kong and 报听 logits come out per tile and chi logits per
  run, so what is learnt about one tile carries over to the others.

``masked_logits`` fills illegal logits with the dtype's minimum, so they get zero probability,
and ``MaskedCategorical.entropy`` zeroes their entropy terms.

A network's checkpoint files are written and read by ``agents.checkpoints`` (``save_checkpoint``,
``load_checkpoint``, ``CheckpointError``); ``NetworkAgent`` is a network as a batched agent, made from a model
or from a checkpoint.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

try:
    import torch
except ModuleNotFoundError as e:  # `pip install -e .` (the environment alone) has no torch: say what installs it
    if e.name != "torch":
        raise
    raise ModuleNotFoundError("torch is needed for network agents (pretrained, checkpoints) and training: pip "
                              "install torch (it comes with the train extra: pip install -e '.[train]')",
                              name="torch") from None
from torch import nn
from torch.distributions import Categorical

from mj_env import features as mjf
from mj_env.actions import N_ACTIONS
from mj_env.baselines import rule_fields_agents_read_differ
from mj_env.messages import brief, shown, user_stacklevel
from mj_env.observation import (
    COL_ASKER,
    COL_CLAIM_CATEGORY,
    COL_CLAIMED_BY_SELF,
    COL_CLAIMED_FROM_SELF,
    COL_CONCEALED_KONGS,
    COL_DEALER,
    COL_FLOWERS,
    COL_HUBAO_COUNT,
    COL_LIVE_LEFT,
    COL_PHASE,
    COL_REPLACEMENTS_LEFT,
    COL_SZ_ROUNDS,
    N_PLANES,
    N_SCALARS,
    OBS_NAME,
    P_CLAIM,
    P_DRAWN,
    P_HAND,
    P_HUI,
    P_INDICATOR,
    P_MELDS,
    P_RIVERS,
    P_SCALARS,
    checked_mask,
    checked_planes,
)
from mj_env.rules import RulesSpec, get_rules, rules_label
from mj_env.tiles import N_KINDS, N_SUITED, SUIT_SIZE

from . import check_flag
from .base import RulesMismatchWarning, check_rows_have_actions

OBS_VERSION = int(re.findall(r"_v(\d+)$", OBS_NAME)[0])
"""Version number of the observation layout, from its name (``mj_obs_v1`` -> 1)."""
LAYOUTS = {OBS_NAME: (OBS_VERSION, [N_PLANES, N_KINDS]),
           mjf.FEATURES_NAME: (mjf.FEATURES_VERSION, [mjf.N_PLANES_V2, N_KINDS])}
"""Observation layouts a network may take: name -> (version, shape of one observation)."""


def _scalar_range() -> np.ndarray:
    """The columns of the scalar plane (mj_env.observation) are divided by these (N_SCALARS,)."""
    r = np.ones(N_SCALARS, dtype=np.float32)  # 0/1 flags stay as they are
    r[COL_LIVE_LEFT], r[COL_REPLACEMENTS_LEFT] = 70, 20
    r[COL_DEALER], r[COL_PHASE], r[COL_ASKER] = 3, 2, 3
    r[COL_SZ_ROUNDS], r[COL_HUBAO_COUNT], r[COL_CLAIM_CATEGORY] = 4, 3, 3
    r[COL_CONCEALED_KONGS], r[COL_FLOWERS] = 4, 8
    r[COL_CLAIMED_BY_SELF], r[COL_CLAIMED_FROM_SELF] = 4, 4
    # 1 stays for the flags: COL_MUST_DISCARD, COL_SZ_ALIVE, COL_HUBAO, COL_TING, COL_FIRST_TURN
    return r


_SCALAR_RANGE = _scalar_range()
_TABLE_PLANES = slice(P_MELDS.start, P_RIVERS.stop)  # melds and rivers of the 4 seats (adjacent)
_ONE_HOT_PLANES = slice(P_INDICATOR, P_DRAWN + 1)     # indicator, 惠牌, claimed tile, drawn tile
assert P_MELDS.stop == P_RIVERS.start and (P_HUI, P_CLAIM, P_DRAWN) == tuple(P_INDICATOR + np.arange(1, 4))
N_FEATURES = (4 + 8 + 4) * N_KINDS + 4 + N_KINDS
V2_FEATURES = 7 * N_KINDS


def layer_init(layer: nn.Linear, std: float = np.sqrt(2)) -> nn.Linear:
    """CleanRL's initialisation: orthogonal weights with gain ``std``, zero bias."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, 0.0)
    return layer


def features(obs: torch.Tensor) -> torch.Tensor:
    """(B, 14, 34) uint8 observations -> (B, N_FEATURES) float32 (table in the module docstring)."""
    x = obs.to(torch.float32)
    hand, hui = x[:, P_HAND], x[:, P_HUI]
    wild = (hand * hui).sum(dim=1, keepdim=True)                      # (B, 1) 惠牌 held
    nat = hand * (1.0 - hui)
    levels = torch.arange(1, 5, device=x.device, dtype=torch.float32)
    nat_thermo = (nat[:, None, :] >= levels[None, :, None]).to(torch.float32)   # (B, 4, 34)
    wild_thermo = (wild >= levels[None, :]).to(torch.float32)                   # (B, 4)
    scale = torch.as_tensor(_SCALAR_RANGE, device=x.device)
    return torch.cat([
        nat_thermo.flatten(1), (x[:, _TABLE_PLANES] / 4.0).flatten(1), x[:, _ONE_HOT_PLANES].flatten(1),
        wild_thermo, x[:, P_SCALARS] / scale,
    ], dim=1)


def _v2_parts(x: torch.Tensor) -> list[torch.Tensor]:
    """The seven (B, 34) ``mj_obs_v2`` features of the module docstring from float planes (B, 18, 34)."""
    need, imp = x[:, mjf.P_DISCARD_NEED], x[:, mjf.P_DISCARD_IMPROVE]
    held = need > 0
    best = torch.where(held, need, torch.full_like(need, 255.0)).amin(dim=1, keepdim=True)
    opt, opt_imp = x[:, mjf.P_OPTION_NEED], x[:, mjf.P_OPTION_IMPROVE]
    now = opt[:, mjf.OPT_NOW:mjf.OPT_NOW + 1]
    legal = opt > 0
    return [need / 8.0, (held & (need == best)).float(), imp / 32.0, opt / 8.0,
            (legal & (opt < now)).float(), (legal & (opt == now)).float(), opt_imp / 32.0]


def v2_features(obs: torch.Tensor) -> torch.Tensor:
    """(B, 18, 34) ``mj_obs_v2`` observations -> (B, N_FEATURES + V2_FEATURES) float32."""
    return torch.cat([features(obs[:, :N_PLANES]), *_v2_parts(obs.to(torch.float32))], dim=1)


def model_inputs(model: nn.Module, planes: np.ndarray, mask: np.ndarray,
                 rules: RulesSpec = "beijing") -> np.ndarray:
    """What ``model`` takes, from the environment's planes and masks (n, 127): the ``mj_obs_v1`` planes
    (n, 14, 34) uint8 for ``mj_obs_v1`` networks (the first 14 planes of an env's ``obs="v2"``
    observation), ``mj_env.features.observe_v2`` (n, 18, 34) for ``mj_obs_v2`` ones (computed for rule
    set ``rules`` from v1 planes; v2 planes pass through)."""
    return mjf.in_layout("v2" if obs_layout(model) == mjf.FEATURES_NAME else "v1", rules, planes, mask)


def obs_layout(model_or_config) -> str:
    """The observation layout a network (or a network config) takes."""
    config = model_or_config if isinstance(model_or_config, dict) else model_or_config.config
    return config.get("obs", OBS_NAME)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal entries (mask False) set to the dtype's minimum: probability exactly 0 after softmax
    as long as one entry is legal, and no inf/nan in gradients (CleanRL's invalid-action masking)."""
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def _torch_readable(a: np.ndarray) -> np.ndarray:
    """``a`` as ``torch.as_tensor`` takes it without a fuss: a copy where it has a negative stride (a reversed
    view, ``planes[::-1]``: torch's ValueError "At least one stride in the given numpy array is negative") or
    is read-only (a broadcast, or a read-only array: torch's UserWarning "The given NumPy array is not
    writable"); the array itself otherwise."""
    if a.flags.writeable and all(s >= 0 for s in a.strides):
        return a
    return np.array(a)


class NonFiniteLogits(ValueError):
    """The network's policy logits hold nan or inf (its weights overflowed): raised in place of torch's
    distribution check, whose message prints the whole tensor, so that training can say what happened."""


class MaskedCategorical(Categorical):
    """A categorical over the legal actions only; illegal actions contribute nothing to the entropy."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor):
        self.mask = mask.to(torch.bool)
        bad = ~torch.isfinite(logits)
        if bad.any():
            raise NonFiniteLogits(f"the network's policy logits hold nan or inf ({int(bad.any(-1).sum())} "
                                  f"of {len(logits)} rows): its weights are out of range")
        super().__init__(logits=masked_logits(logits, self.mask))

    def entropy(self) -> torch.Tensor:
        p_log_p = self.logits * self.probs
        return -torch.where(self.mask, p_log_p, torch.zeros_like(p_log_p)).sum(-1)


class PolicyValueNet(nn.Module):
    """MLP over ``features(obs)``: a shared trunk, 127 policy logits and a scalar value."""

    def __init__(self, hidden: tuple[int, ...] = (256, 256), obs: str = OBS_NAME):
        super().__init__()
        self.config = {"arch": "mlp", "hidden": list(hidden), **({"obs": obs} if obs != OBS_NAME else {})}
        self.features = v2_features if obs == mjf.FEATURES_NAME else features
        layers, width = [], N_FEATURES + (V2_FEATURES if obs == mjf.FEATURES_NAME else 0)
        for h in hidden:
            layers += [layer_init(nn.Linear(width, h)), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = layer_init(nn.Linear(width, N_ACTIONS), std=0.01)
        self.value = layer_init(nn.Linear(width, 1), std=1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 14 or 18, 34) uint8 (its layout) -> (raw logits (B, 127), value (B,))."""
        h = self.trunk(self.features(obs))
        return self.policy(h), self.value(h).squeeze(-1)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value(self.trunk(self.features(obs))).squeeze(-1)

    def get_action_and_value(self: PolicyValueNet | TileNet, obs: torch.Tensor, mask: torch.Tensor,
                             action: torch.Tensor | None = None):
        """CleanRL's interface: (action, log-prob, entropy, value); samples when ``action`` is None. (``TileNet``
        shares it: ``self`` is either network.)"""
        logits, value = self(obs)
        dist = MaskedCategorical(logits, mask)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), value


_RANK_CHANNELS = np.zeros((10, N_KINDS), dtype=np.float32)   # rank one-hot for suit tiles, then "honor"
_RANK_CHANNELS[np.arange(N_SUITED) % SUIT_SIZE, np.arange(N_SUITED)] = 1.0
_RANK_CHANNELS[SUIT_SIZE, N_SUITED:] = 1.0
N_TILE_CHANNELS = 4 + 1 + 8 + 3 + 1 + 10
N_GLOBALS = N_KINDS + 4
V2_TILE_CHANNELS = 3      # need after each discard, least need, improving tiles
V2_GLOBALS = 4 * N_KINDS  # the option features


def tile_features(obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, 14, 34) uint8 -> (per-tile channels (B, N_TILE_CHANNELS, 34), globals (B, N_GLOBALS)).

    Per tile: natural hand thermometer (4), is the 惠牌 (1), melds and rivers of the 4 seats / 4 (8),
    indicator, claimed tile, drawn tile (3), copies seen anywhere / 4 (1), rank one-hot and honor (10).
    Globals: the plane-13 scalars scaled, and the 惠牌 held as a thermometer (4).
    """
    x = obs.to(torch.float32)
    hand, hui = x[:, P_HAND], x[:, P_HUI]
    wild = (hand * hui).sum(dim=1, keepdim=True)
    nat = hand * (1.0 - hui)
    levels = torch.arange(1, 5, device=x.device, dtype=torch.float32)
    seen = (hand + x[:, _TABLE_PLANES].sum(dim=1) + x[:, P_INDICATOR]) / 4.0
    ranks = torch.as_tensor(_RANK_CHANNELS, device=x.device).expand(x.shape[0], -1, -1)
    per_tile = torch.cat([
        (nat[:, None, :] >= levels[None, :, None]).to(torch.float32), hui[:, None], x[:, _TABLE_PLANES] / 4.0,
        x[:, [P_INDICATOR, P_CLAIM, P_DRAWN]], seen[:, None], ranks,
    ], dim=1)
    scale = torch.as_tensor(_SCALAR_RANGE, device=x.device)
    glob = torch.cat([x[:, P_SCALARS] / scale, (wild >= levels[None, :]).to(torch.float32)], dim=1)
    if x.shape[1] > N_PLANES:  # mj_obs_v2
        parts = _v2_parts(x)
        per_tile = torch.cat([per_tile, torch.stack(parts[:V2_TILE_CHANNELS], dim=1)], dim=1)
        glob = torch.cat([glob, *parts[V2_TILE_CHANNELS:]], dim=1)
    return per_tile, glob


class _TileBlock(nn.Module):
    """Residual block: a kernel-3 convolution along each suit, a per-tile layer for the honors,
    and the table summary (mean over tiles) added to every tile."""

    def __init__(self, c: int):
        super().__init__()
        self.suit = nn.Conv2d(c, c, (1, 3), padding=(0, 1))
        self.honor = nn.Conv2d(c, c, 1)
        self.mix = nn.Linear(2 * c, c)

    def forward(self, hs: torch.Tensor, hh: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ctx = self.mix(torch.cat([hs.mean(dim=(2, 3)), hh.mean(dim=(2, 3))], dim=1))[:, :, None, None]
        return torch.relu(hs + self.suit(hs) + ctx), torch.relu(hh + self.honor(hh) + ctx)


class TileNet(nn.Module):
    """Per-tile policy/value network (module docstring). ``channels`` per tile, ``blocks`` residual
    blocks, ``head`` width of the pooled layer that gives the claim logits and the value."""

    def __init__(self, channels: int = 32, blocks: int = 2, head: int = 128, obs: str = OBS_NAME):
        super().__init__()
        self.config = {"arch": "tiles", "channels": channels, "blocks": blocks, "head": head,
                       **({"obs": obs} if obs != OBS_NAME else {})}
        c = channels
        v2 = obs == mjf.FEATURES_NAME
        n_in = N_TILE_CHANNELS + (V2_TILE_CHANNELS if v2 else 0)
        self.glob = nn.Linear(N_GLOBALS + (V2_GLOBALS if v2 else 0), c)
        self.suit_in = nn.Conv2d(n_in, c, (1, 3), padding=(0, 1))
        self.honor_in = nn.Conv2d(n_in, c, 1)
        self.blocks = nn.ModuleList(_TileBlock(c) for _ in range(blocks))
        self.tile_head = nn.Conv2d(c, 3, 1)           # discard, kong, 报听 of each tile
        self.chi_head = nn.Conv2d(c, 1, (1, 3))        # run starting at ranks 1-7 of each suit
        self.pool = layer_init(nn.Linear(3 * c, head))
        self.claim_head = layer_init(nn.Linear(head, 4), std=0.01)  # win, pass, pong, kong
        self.value = layer_init(nn.Linear(head, 1), std=1.0)
        for conv in (self.tile_head, self.chi_head):
            nn.init.normal_(conv.weight, std=0.01)
            assert conv.bias is not None  # (made with a bias, nn.Conv2d's default)
            nn.init.zeros_(conv.bias)

    def _trunk(self, obs: torch.Tensor):
        per_tile, glob = tile_features(obs)
        B = per_tile.shape[0]
        g = self.glob(glob)[:, :, None, None]
        hs = torch.relu(self.suit_in(per_tile[:, :, :27].reshape(B, -1, 3, 9)) + g)
        hh = torch.relu(self.honor_in(per_tile[:, :, 27:].reshape(B, -1, 1, 7)) + g)
        for block in self.blocks:
            hs, hh = block(hs, hh)
        flat = torch.cat([hs.reshape(B, hs.shape[1], 27), hh.reshape(B, hh.shape[1], 7)], dim=2)  # (B, C, 34)
        pooled = torch.relu(self.pool(torch.cat([flat.mean(dim=2), flat.amax(dim=2), g[:, :, 0, 0]], dim=1)))
        return hs, flat, pooled

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 14 or 18, 34) uint8 (its layout) -> (raw logits (B, 127) in the action layout, value (B,))."""
        hs, flat, pooled = self._trunk(obs)
        B = flat.shape[0]
        per_tile = self.tile_head(flat[:, :, None, :]).reshape(B, 3, N_KINDS)
        chi = self.chi_head(hs).reshape(B, 21)
        claim = self.claim_head(pooled)
        logits = torch.cat([per_tile[:, 0], per_tile[:, 1], claim, chi, per_tile[:, 2]], dim=1)
        return logits, self.value(pooled).squeeze(-1)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value(self._trunk(obs)[2]).squeeze(-1)

    get_action_and_value = PolicyValueNet.get_action_and_value


ARCHS: dict[str, type[PolicyValueNet | TileNet]] = {"mlp": PolicyValueNet, "tiles": TileNet}
_SIZES = {"mlp": {"hidden": (1, 4096)}, "tiles": {"channels": (1, 512), "blocks": (0, 32), "head": (1, 4096)}}
"""Allowed range of each size in a network config, per architecture."""
_MAX_HIDDEN_LAYERS = 8


def check_config(config: dict) -> dict:
    """``config`` if it is a dict naming a known architecture with sizes of the right type and range; else
    an error naming the first bad entry (a bool is not an int here; missing sizes take their defaults)."""
    if not isinstance(config, dict):
        raise TypeError(f"model_config is a {type(config).__name__}, not a dict")
    arch = config.get("arch", "mlp")
    if not isinstance(arch, str) or arch not in ARCHS:
        raise ValueError(f"unknown network architecture {brief(arch)}; choose one of {', '.join(ARCHS)}")
    for key, value in config.items():
        if key == "arch":
            continue
        if key == "obs":
            if not isinstance(value, str) or value not in LAYOUTS:
                raise ValueError(f"model_config['obs'] must be one of {', '.join(LAYOUTS)}, not {brief(value)}")
            continue
        if key not in _SIZES[arch]:
            raise ValueError(f"model_config has key {brief(key)}, which {arch} networks do not take")
        low, high = _SIZES[arch][key]
        values: list | tuple = [value]
        if key == "hidden":
            if not isinstance(value, (list, tuple)) or len(value) > _MAX_HIDDEN_LAYERS:
                raise ValueError(f"model_config['hidden'] must be a list of at most {_MAX_HIDDEN_LAYERS} "
                                 f"layer widths, not {brief(value)}")
            values = value
        for v in values:
            if type(v) is not int or not low <= v <= high:
                raise ValueError(f"model_config[{key!r}] must hold ints in [{low}, {high}], not {brief(value)}")
    return config


def build_network(config: dict) -> PolicyValueNet | TileNet:
    """A network from its ``config`` (``model.config``, as stored in checkpoints), checked by ``check_config``."""
    cfg = dict(check_config(config))
    arch = cfg.pop("arch", "mlp")
    sizes: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in cfg.items()}
    return ARCHS[arch](**sizes)


# --------------------------------------------------------------------------- checkpoints (agents.checkpoints)

# The checkpoint files live in agents.checkpoints, which imports this module (its networks). These four names
# were documented here (README, docs, examples, error messages) before the move, so they stay importable from
# agents.networks: looked up in agents.checkpoints when first asked for, not imported at the top, which
# would make each module's import wait on the other's.
_CHECKPOINT_NAMES = ("CheckpointError", "CheckpointWarning", "load_checkpoint", "save_checkpoint")
if TYPE_CHECKING:
    # what type checkers read (re-exported: the names of a user's import from here)
    from .checkpoints import CheckpointError, CheckpointWarning, load_checkpoint, save_checkpoint  # noqa: F401
else:
    def __getattr__(name: str):
        if name in _CHECKPOINT_NAMES:
            from . import checkpoints
            return getattr(checkpoints, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*globals(), *_CHECKPOINT_NAMES})


# --------------------------------------------------------------------------- devices and threads


def device_problem(device: str | torch.device, name: str = "--device") -> str | None:
    """Why the torch ``device`` cannot run a network here, or None if it can (``--device`` of train.py and
    the arena; ``name``: what the message calls it)."""
    allowed = "use cpu, cuda, cuda:N or mps"
    named = f"{name} {brief(device)}"
    try:
        d = torch.device(device)
    except (RuntimeError, ValueError, TypeError):
        return f"{named} is not a torch device: {allowed}"
    if d.type == "cpu":
        return None
    if d.type == "cuda":
        if not torch.cuda.is_available():
            return f"{named}: CUDA is not available on this machine ({allowed})"
        if d.index is not None and d.index >= torch.cuda.device_count():
            return f"{named}: this machine has {torch.cuda.device_count()} CUDA device(s)"
        return None
    if d.type == "mps":
        return None if torch.backends.mps.is_available() else f"{named}: MPS is not available ({allowed})"
    return f"{named} cannot run networks: {allowed}"


def _one_thread_in_forked_children() -> None:
    """A process forked after torch ran (Gymnasium's ``AsyncVectorEnv`` with the default ``fork``, its envs
    playing network opponents) gets one torch thread, as PyTorch's own DataLoader workers do: the OpenMP
    pool the parent started does not survive a fork, and the child's first parallel operation would wait
    on it forever. (Its free checkpoint-loading lock is ``agents.checkpoints``' own.)"""
    torch.set_num_threads(1)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_one_thread_in_forked_children)
if multiprocessing.parent_process() is not None and "OMP_NUM_THREADS" not in os.environ:
    # a worker started by spawn or forkserver (SB3's SubprocVecEnv, Gymnasium's AsyncVectorEnv with those
    # methods) that loads networks: one torch thread too, as DataLoader workers get, else every worker takes
    # all cores for its opponents' batches of a few rows (measured under SB3's SubprocVecEnv, two workers,
    # pretrained opponents, 2 loaded cores: 94 ms per step, 38 ms with one thread each). OMP_NUM_THREADS,
    # when set, is left to decide; or call torch.set_num_threads after this import.
    torch.set_num_threads(1)


# --------------------------------------------------------------------------- as an agent


class NetworkAgent:
    """A policy network as a batched agent: samples from the masked distribution (or, with
    ``greedy``, takes its most likely legal action). Sampling uses the ``rng`` given to ``act``
    (Gumbel-max on the log-probabilities), so arena runs are repeatable for a seed."""

    def __init__(self, model: nn.Module, name: str = "policy", greedy: bool = False,
                 device: str | torch.device = "cpu", rules: RulesSpec = "beijing"):
        problem = device_problem(device, name="device")
        if problem:
            raise ValueError(problem)
        check_flag("greedy", greedy)
        self.model = model
        self.name = name
        self.greedy = bool(greedy)
        self.device = torch.device(device)
        self.rules = rules  # what mj_obs_v2 features are computed for

    @classmethod
    def from_checkpoint(cls, path: str | Path, greedy: bool = False, device: str | torch.device = "cpu",
                        name: str | None = None, rules: RulesSpec | None = None):
        """The agent of a checkpoint; ``rules`` (default: the checkpoint's own) for ``mj_obs_v2`` features. A
        ``device`` that cannot run it here (``device_problem``) is a ValueError before the file is read."""
        problem = device_problem(device, name="device")
        if problem:
            raise ValueError(problem)
        check_flag("greedy", greedy)  # before the file is read
        from .checkpoints import load_checkpoint  # (it imports this module: here, not at the top)
        model, meta = load_checkpoint(path, device=device)
        trained_for = meta.get("rules")
        plays_under = None if rules is None else get_rules(rules).name
        # (a rule set of one's own is named with its fields: 'quemen with lack_suit=False')
        mine = None if trained_for is None else get_rules(trained_for)
        trained_label = None if mine is None else rules_label(mine)
        if mine is not None and plays_under not in (None, mine.name):
            warnings.warn(f"{path} was trained for rule set {trained_label!r} and plays under {plays_under!r}",
                          RulesMismatchWarning, stacklevel=user_stacklevel(mjf, sys.modules[__name__]))
        elif mine is not None and rules is not None:  # the preset, with other fields agents read?
            theirs = get_rules(rules)
            differ = rule_fields_agents_read_differ(mine, theirs)
            if differ:
                warnings.warn(f"{path} was trained for rule set {trained_label!r} and plays under {mine.name!r} with "
                              + ", ".join(f"{f}={getattr(theirs, f)!r}" for f in differ), RulesMismatchWarning,
                              stacklevel=user_stacklevel(mjf, sys.modules[__name__]))
        rules = rules or trained_for or "beijing"
        return cls(model, name=name or str(path), greedy=greedy, device=device, rules=rules)

    @torch.no_grad()
    def act(self, obs: dict, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64 legal actions for ``obs`` (``agents.base``): "observation" (n, 14 or 18, 34) planes and
        "action_mask" (n, 127); 0 rows give an empty array. Shapes that do not fit, and values that are no planes
        or mask (``mj_env.observation.checked_planes``, ``checked_mask``: as the baselines check them), are a
        ValueError, an ``rng`` that is not a ``np.random.Generator`` a TypeError, all checked before the network runs."""
        who = f"agent {brief(self.name)}"
        if not isinstance(obs, Mapping) or "observation" not in obs or "action_mask" not in obs:
            raise TypeError(f"{who}: obs must be a dict with 'observation' and 'action_mask', not a {type(obs).__name__}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"{who}: rng must be a np.random.Generator, not a {type(rng).__name__}")
        key = "observation"
        try:  # (a tensor that needs grad or lives on a GPU: NumPy cannot read it and raises, a RuntimeError)
            planes = np.asarray(obs[key])
            key = "action_mask"
            mask = np.asarray(obs[key])  # (its values checked below)
        except Exception as e:  # noqa: BLE001 (whatever an odd __array__ raises, it is no observation)
            raise ValueError(f"{who}: obs[{key!r}] must be an array: {shown(e, 80)}") from None
        expected = f"expected (n, {N_PLANES} or {mjf.N_PLANES_V2}, {N_KINDS}) planes and (n, {N_ACTIONS}) masks"
        if planes.ndim != 3 or planes.shape[1:] not in ((N_PLANES, N_KINDS), (mjf.N_PLANES_V2, N_KINDS)) \
                or planes.dtype.kind not in "biuf":
            raise ValueError(f"{who}: obs['observation'] is {planes.dtype} of shape {planes.shape}; {expected}")
        if mask.shape != (len(planes), N_ACTIONS):
            raise ValueError(f"{who}: obs['action_mask'] has shape {mask.shape} for {len(planes)} observations; "
                             f"{expected}")
        try:  # values as the baselines check them: a NaN, 2 or 0.5 is no mask (a NaN read as legal), and
            # planes of NaN, -1 or 1000 are no mj_obs planes (a NaN read as weights out of range, the others played)
            mask = checked_mask(obs["action_mask"], len(planes), N_ACTIONS, "obs['action_mask']")
            planes = checked_planes(planes, "obs['observation']")
        except ValueError as e:
            raise ValueError(f"{who}: {e}") from None
        if not len(planes):
            return np.zeros(0, dtype=np.int64)
        check_rows_have_actions(mask)
        x = _torch_readable(model_inputs(self.model, planes, mask, self.rules))
        o = torch.as_tensor(x, device=self.device)
        logits, _ = self.model(o)
        bad = ~torch.isfinite(logits)  # else a nan row played its first legal action, as if the network chose it
        if bad.any():
            raise NonFiniteLogits(f"the network's policy logits hold nan or inf ({int(bad.any(-1).sum())} "
                                  f"of {len(logits)} rows): its weights are out of range")
        legal = torch.as_tensor(_torch_readable(mask), device=self.device)
        logp_t = torch.log_softmax(masked_logits(logits, legal), dim=-1)
        logp = logp_t.cpu().numpy().astype(np.float64)
        if not self.greedy:
            logp = logp + rng.gumbel(size=logp.shape)
        return np.where(mask, logp, -np.inf).argmax(axis=1).astype(np.int64)
