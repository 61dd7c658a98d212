"""PyTorch policy/value networks over the count-array observation, and their checkpoints.

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

A checkpoint (``save_checkpoint``) is a dict of tensors and plain data only: format, the observation
layout's name, version and shape, the number of actions, the network config, the weights and metadata.
``load_checkpoint`` reads it with ``torch.load(weights_only=True)``, so a crafted file cannot run code,
and checks every field before using it; a checkpoint made for another layout, or broken in any way,
raises ``CheckpointError`` with a message naming the file and what is wrong.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import re
import sys
import threading
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, overload

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
from mj_env.messages import brief, printable, user_stacklevel
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
from mj_env.records import rules_json
from mj_env.rules import RuleError, RuleSet, get_rules, rules_label
from mj_env.tiles import N_KINDS, N_SUITED, SUIT_SIZE

from . import check_flag, path_problem
from .base import RulesMismatchWarning, as_bool_mask, check_rows_have_actions

OBS_VERSION = int(re.findall(r"_v(\d+)$", OBS_NAME)[0])
"""Version number of the observation layout, from its name (``mj_obs_v1`` -> 1)."""
LAYOUTS = {OBS_NAME: (OBS_VERSION, [N_PLANES, N_KINDS]),
           mjf.FEATURES_NAME: (mjf.FEATURES_VERSION, [mjf.N_PLANES_V2, N_KINDS])}
"""Observation layouts a network may take: name -> (version, shape of one observation)."""
CHECKPOINT_FORMAT = "mj_agents.policy/1"


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


def model_inputs(model: nn.Module, planes: np.ndarray, mask: np.ndarray, rules="beijing") -> np.ndarray:
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


# --------------------------------------------------------------------------- checkpoints


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used; the message names the file and what is wrong."""


class CheckpointWarning(UserWarning):
    """A checkpoint that loads, with keys beside those of its format that this version does not read."""


_PAYLOAD_TYPES = {"format": str, "obs_name": str, "obs_version": int, "obs_shape": list, "n_actions": int,
                  "model_config": dict, "state_dict": dict, "meta": dict}
"""Every key of a checkpoint and the type of its value."""
_FORMAT_META_KEYS = ("obs_name", "obs_version", "model_config")
"""The keys of the file that ``load_checkpoint`` adds to its ``meta`` (over any of ``meta``'s own of those names, in
a file written before ``save_checkpoint`` refused them as keywords)."""


def _plain(value, where: str):
    """``value`` as data that ``torch.load(weights_only=True)`` reads back (tuples become lists, numpy
    scalars Python numbers); a TypeError for anything else."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"{where} is a {type(value).__name__}; a checkpoint holds only str-keyed dicts, lists, "
                    "str, int, float, bool and None")


def save_checkpoint(path: str | Path, model: nn.Module, **meta) -> Path:
    """Write the weights with the observation layout and ``meta`` (rules, step, args...: plain data only; ``rules``
    a preset's name, or a RuleSet or its object form ``{"name": preset, field: value}``, stored as a record writes it;
    any keyword but ``obs_name``, ``obs_version`` and ``model_config``, which ``load_checkpoint``'s meta gives from
    the file itself: those are a ``CheckpointError``, as they would be lost).
    ``model`` is a network of this module (``build_network``, ``PolicyValueNet``, ``TileNet``): the file stores
    its ``config`` and rebuilds it from that, so another module cannot be saved in this format. Nothing is written
    (a ``CheckpointError``) when ``load_checkpoint`` would refuse the file (``meta["rules"]`` no rule set, non-finite
    weights...) or ``path`` is a directory or under a file; the file is written to ``path.tmp`` and renamed (a write
    that fails, on a full disk say, is an ``OSError`` naming ``path`` and leaves no ``path.tmp`` behind)."""
    if not isinstance(model, tuple(ARCHS.values())):
        raise CheckpointError(f"save_checkpoint saves the networks of agents.networks (build_network(config): "
                              f"{', '.join(c.__name__ for c in ARCHS.values())}), got {type(model).__name__}; "
                              "save another module with torch.save and wrap it as an agent with name and act(obs, rng)")
    problem = path_problem(str(path))  # a NUL byte or a lone surrogate: open() would raise a bare ValueError
    if problem:
        raise CheckpointError(f"not saved: {problem}")
    taken = [k for k in _FORMAT_META_KEYS if k in meta]
    if taken:  # load_checkpoint's meta gives the file's own values under these names: the caller's would be lost
        raise CheckpointError(f"{path}: not saved: meta key{'s' if len(taken) > 1 else ''} {', '.join(taken)} "
                              f"{'are' if len(taken) > 1 else 'is'} the checkpoint's own (load_checkpoint's meta "
                              "gives the file's observation layout and model config under those names, and would "
                              "drop yours); save under another name")
    path = Path(path)
    rules = meta.get("rules")
    if isinstance(rules, dict):  # an object form: as the RuleSet it names (a bad one is refused below, by name)
        try:
            rules = get_rules(rules)
        except (RuleError, TypeError):
            pass
    if isinstance(rules, RuleSet):  # the rule set trained under, as a record writes it (a preset's name, or its
        meta = {**meta, "rules": rules_json(rules)}  # object form with only the fields changed from the preset)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "obs_name": obs_layout(model),
        "obs_version": LAYOUTS[obs_layout(model)][0],
        "obs_shape": LAYOUTS[obs_layout(model)][1],
        "n_actions": N_ACTIONS,
        "model_config": _plain(model.config, "model_config"),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "meta": _plain(meta, "meta"),
    }
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:  # load_checkpoint's own checks, before anything is written: a file saved is a file that loads
        _check_payload(payload, build=False)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: not saved, it would not load: {e}") from None
    for target in (path, tmp):
        if target.is_dir():
            raise CheckpointError(f"{target}: is a directory; give a file name")
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise CheckpointError(f"{path}: {folder} is not a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        torch.save(payload, tmp)
    except BaseException as e:  # a full disk, Ctrl-C: no half-written path.tmp is left behind
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(e, RuntimeError):  # torch says only "basic_ios::clear: iostream error" or "unexpected pos"
            said = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
            raise OSError(f"{path}: not saved, torch.save could not write {tmp.name} ({said[:200]}); is the disk "
                          "full?") from e
        raise
    tmp.replace(path)
    return path


_LOAD_LOCK = threading.Lock()
"""Held around ``torch.load`` and its ``warnings.catch_warnings`` (``_read``); a forked child gets a new one
(``_one_thread_in_forked_children``), the parent's may be held by a thread the child does not have."""


def _read(path: Path):
    """The unpickled payload of ``path``, read with ``weights_only=True``: tensors and plain data only,
    nothing in the file is run."""
    problem = path_problem(str(path))  # a loop of links or a folder that may not be searched is no missing file
    if problem:
        raise CheckpointError(problem)
    try:
        if not path.exists():
            raise CheckpointError(f"{path}: no such file")
        if not path.is_file():
            raise CheckpointError(f"{path}: not a file")
        if path.stat().st_size == 0:
            raise CheckpointError(f"{path}: the file is empty")
    except OSError as e:  # the file changed between path_problem's look and these (path_problem names the rest)
        raise CheckpointError(f"{brief(str(path))}: {e.strerror or type(e).__name__}") from None
    _check_zip(path)
    try:
        # catch_warnings swaps the process's one filter list: two threads inside it at once (envs with network
        # opponents made in a thread pool, a server loading agents per game) could leave "ignore" behind for good
        with _LOAD_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # whatever torch raises on a bad file becomes one clear error
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        # torch's weights-only refusal ends with "<the reason>", "Check the documentation ..."
        reason = lines[-2] if isinstance(e, pickle.UnpicklingError) and len(lines) > 1 else " ".join(lines[-1:])
        reason = printable(reason)  # torch quotes the file's own names (a GLOBAL, a member): no terminal escapes
        # a file that is no zip archive is read as torch's old pickle format, whose errors say little ("KeyError: 101")
        kind = "" if zipfile.is_zipfile(path) else "; nor is it the zip archive that torch.save writes"
        raise CheckpointError(f"{path}: not a checkpoint that loads with torch.load(weights_only=True), which "
                              f"reads only tensors and plain data ({type(e).__name__}: {reason}){kind}") from e


def _check_zip(path: Path) -> None:
    """torch.save writes a zip archive of stored (uncompressed) members with CRC-32 checksums, which
    torch.load does not verify. Refused before torch reads anything: a compressed member, or members
    whose sizes add up to more than the file (overlapping ones), since either lets a small file unpack
    to any size; and a member whose checksum does not match (a damaged file, which would load wrong
    weights). A checksum of 0 is not checked: torch writes 0 when told not to compute them
    (``torch.serialization.set_crc32_options(False)``). A file that begins as a zip archive but lacks its end
    is refused as cut short (a copy or a save that did not finish: torch.load says "Invalid argument"); any other
    file that is not a zip archive is left to torch.load, which refuses it."""
    problem = None
    try:
        if not zipfile.is_zipfile(path):
            with open(path, "rb") as f:
                head = f.read(4)
            if head == b"PK\x03\x04":  # a zip archive's first member: torch.load would say "Invalid argument"
                problem = ("cut short or damaged: it begins as the zip archive that torch.save writes, but its end "
                           "(the archive's directory) is missing; a copy or a save that did not finish?")
            else:
                return
        else:
            problem = _zip_problem(path)
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError,
            EOFError) as e:
        raise CheckpointError(f"{path}: a damaged archive ({type(e).__name__}: {brief(str(e))})") from None
    if problem:
        raise CheckpointError(f"{path}: {problem}")


def _zip_problem(path: Path) -> str | None:
    """What ``_check_zip`` refuses in the zip archive ``path`` (None: nothing); zipfile's errors pass through."""
    problem = None
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        packed = [i.filename for i in infos if i.compress_type != zipfile.ZIP_STORED or i.file_size > i.compress_size]
        if packed:
            problem = (f"member {brief(packed[0])} is compressed; torch.save stores records uncompressed, and a "
                       "compressed one could unpack to any size")
        elif (unpacked := sum(i.file_size for i in infos)) > (size := path.stat().st_size):
            problem = (f"its members add up to {unpacked:,} bytes, more than the file's {size:,}: they "
                       "overlap, and would unpack to more than the file holds")
        else:
            for i in infos:
                if i.CRC == 0:
                    continue
                try:
                    with z.open(i) as f:  # zipfile checks the CRC-32 as the member is read to its end
                        while f.read(1 << 20):
                            pass
                except zipfile.BadZipFile:
                    problem = f"a damaged file: its member {brief(i.filename)} fails its CRC-32 check"
                    break
    return problem


@overload
def _check_payload(payload, build: Literal[True] = True) -> PolicyValueNet | TileNet: ...
@overload
def _check_payload(payload, build: bool) -> PolicyValueNet | TileNet | None: ...
def _check_payload(payload, build: bool = True) -> PolicyValueNet | TileNet | None:
    """The network of a checkpoint payload with its weights, after checking every field; a CheckpointError
    (without the file name) names the first thing that is wrong. ``build`` False: the checks only (None)."""
    if not isinstance(payload, dict):
        raise CheckpointError(f"holds a {type(payload).__name__}, not a checkpoint dict")
    fmt = payload.get("format")
    if not isinstance(fmt, str) or fmt != CHECKPOINT_FORMAT:
        raise CheckpointError(f"not a policy checkpoint of format {CHECKPOINT_FORMAT} (its format: {brief(fmt)})")
    for key, typ in _PAYLOAD_TYPES.items():
        if key not in payload:
            raise CheckpointError(f"missing key {key!r}")
        if not isinstance(payload[key], typ) or (typ is int and isinstance(payload[key], bool)):
            raise CheckpointError(f"{key!r} is a {type(payload[key]).__name__}, not a {typ.__name__}")
    name, version, shape = payload["obs_name"], payload["obs_version"], payload["obs_shape"]
    known = LAYOUTS.get(name)
    shape_ok = known is not None and all(type(d) is int for d in shape) and shape == known[1]
    if known is None or version != known[0] or not shape_ok:
        layouts = " or ".join(f"{k} (version {v}, shape {sh})" for k, (v, sh) in LAYOUTS.items())
        raise CheckpointError(f"trained on observation layout {brief(name)} (version {version}, shape "
                              f"{brief(shape)}); networks here take {layouts}")
    if payload["n_actions"] != N_ACTIONS:
        raise CheckpointError(f"has {payload['n_actions']} actions; this environment has {N_ACTIONS}")
    if not all(isinstance(k, str) for k in payload["meta"]):
        raise CheckpointError("'meta' has a key that is not a str")
    trained_for = payload["meta"].get("rules")
    if trained_for is not None:  # a preset's name, or the object form of a rule set of one's own
        try:
            if not isinstance(trained_for, (str, dict)):
                raise RuleError("a rule set is a preset's name or an object {\"name\": preset, field: value, ...}")
            get_rules(trained_for)
        except (RuleError, TypeError) as e:
            raise CheckpointError(f"'meta' names rule set {brief(trained_for)}: {e}") from None
    config = payload["model_config"]
    try:  # a skeleton without memory or initialisation (the meta device) to check the weights against
        with torch.device("meta"):
            skeleton = build_network(config)
    except (TypeError, ValueError) as e:  # check_config's message
        raise CheckpointError(str(e)) from None
    if obs_layout(skeleton) != name:
        raise CheckpointError(f"its observation layout is {name} but its model_config takes {obs_layout(skeleton)}")
    weights, expected = payload["state_dict"], skeleton.state_dict()
    for key in [*expected, *(k for k in weights if k not in expected)]:
        v, ref = weights.get(key), expected.get(key)
        if ref is None:
            raise CheckpointError(f"weight {brief(key)} is not in the network of model_config {brief(config)}")
        if v is None:
            raise CheckpointError(f"weight {key!r} is missing (model_config {brief(config)})")
        if (not isinstance(v, torch.Tensor) or v.is_nested or v.layout != torch.strided or v.device.type != "cpu"
                or v.dtype != ref.dtype):
            what = f"a {type(v).__name__}"
            if isinstance(v, torch.Tensor):
                kind = "nested" if v.is_nested else "" if v.layout == torch.strided else str(v.layout)
                what = f"a {kind + ' ' if kind else ''}{v.dtype} tensor on {v.device.type}"
            raise CheckpointError(f"weight {key!r} is {what}, not a dense {ref.dtype} tensor on cpu")
        if v.shape != ref.shape:
            raise CheckpointError(f"weight {key!r} has shape {list(v.shape)}; the network of model_config "
                                  f"{brief(config)} has {list(ref.shape)}")
        if not torch.isfinite(v).all():
            raise CheckpointError(f"weight {key!r} has non-finite values (nan or inf)")
    if not build:
        return None
    # the skeleton gets memory and the file's weights: no initial weights, so no numbers are drawn from torch's
    # global generator: a seeded script that loads a network, then samples, draws what it draws without the load
    # (building a network and overwriting its initial weights drew them before). train.py draws them itself
    # after the loads that follow its seeding, so that its seeded runs repeat as published
    model = skeleton.to_empty(device="cpu")
    model.load_state_dict(weights)
    return model


_UNKNOWN_KEYS_NAMED = 8
"""How many of a file's keys beside its format's the ``CheckpointWarning`` names (the rest are counted)."""


def load_checkpoint(path: str | Path, device: str | torch.device = "cpu") -> tuple[PolicyValueNet | TileNet, dict]:
    """(model in eval mode on ``device``, the checkpoint's metadata). The file is read with
    ``torch.load(weights_only=True)``, so loading runs no code from it, and every field is checked before
    the weights are used. A file that is missing, not a checkpoint, of another format, observation layout or
    action space, or with a bad config or bad weights raises ``CheckpointError`` naming the file and the
    problem; a ``device`` that cannot run here, a ValueError (``device_problem``), before the file is read.
    Loading draws nothing from torch's global random generator (the network is not initialised first).
    Keys of the file beside those of its format (which ``save_checkpoint`` never writes: another writer's, or a
    later version's that kept the format) are left out with a ``CheckpointWarning`` naming them; the keys in
    ``meta`` are the writer's own (``save_checkpoint``'s keywords) and load as they are, whatever their names, beside
    the file's ``obs_name``, ``obs_version`` and ``model_config`` (which ``save_checkpoint`` refuses as keywords; a
    ``meta`` key of those names in a file written otherwise gives way to the file's own value)."""
    problem = device_problem(device, name="device")
    if problem:
        raise ValueError(problem)
    if isinstance(path, str) and not path.strip():
        raise CheckpointError(f"{path!r}: no file named (an empty path)")
    path = Path(path)
    payload = _read(path)
    try:
        model = _check_payload(payload)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from None
    unknown = sorted((k for k in payload if k not in _PAYLOAD_TYPES), key=str)
    if unknown:  # the format's own keys are all checked; these are read by nothing here
        # (the first few named: a file with thousands of them printed every one, a warning of any length)
        named = ", ".join(brief(k) for k in unknown[:_UNKNOWN_KEYS_NAMED])
        if len(unknown) > _UNKNOWN_KEYS_NAMED:
            named += f" and {len(unknown) - _UNKNOWN_KEYS_NAMED:,} more"
        warnings.warn(f"{path}: its key{'s' if len(unknown) > 1 else ''} {named} "
                      f"{'are' if len(unknown) > 1 else 'is'} not of format {CHECKPOINT_FORMAT} and left out (written "
                      "by a later version of this package, or by another tool?)", CheckpointWarning,
                      stacklevel=user_stacklevel(mjf, sys.modules[__name__]))
    model.to(device).eval()
    meta = dict(payload["meta"])
    meta.update({k: payload[k] for k in _FORMAT_META_KEYS})
    return model, meta


# --------------------------------------------------------------------------- as an agent


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
    on it forever. The child gets a free ``_LOAD_LOCK`` too: a thread of the parent may have been loading."""
    global _LOAD_LOCK
    _LOAD_LOCK = threading.Lock()
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


class NetworkAgent:
    """A policy network as a batched agent: samples from the masked distribution (or, with
    ``greedy``, takes its most likely legal action). Sampling uses the ``rng`` given to ``act``
    (Gumbel-max on the log-probabilities), so arena runs are repeatable for a seed."""

    def __init__(self, model: nn.Module, name: str = "policy", greedy: bool = False,
                 device: str | torch.device = "cpu", rules="beijing"):
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
    def from_checkpoint(cls, path: str | Path, greedy: bool = False, device="cpu", name: str | None = None,
                        rules=None):
        """The agent of a checkpoint; ``rules`` (default: the checkpoint's own) for ``mj_obs_v2`` features. A
        ``device`` that cannot run it here (``device_problem``) is a ValueError before the file is read."""
        problem = device_problem(device, name="device")
        if problem:
            raise ValueError(problem)
        check_flag("greedy", greedy)  # before the file is read
        model, meta = load_checkpoint(path, device=device)
        trained_for = meta.get("rules")
        plays_under = None if rules is None else get_rules(rules).name
        # (a rule set of one's own is named with its fields: 'quemen with lack_suit=False')
        mine = None if trained_for is None else get_rules(trained_for)
        trained_label = None if mine is None else rules_label(mine)
        if mine is not None and plays_under not in (None, mine.name):
            warnings.warn(f"{path} was trained for rule set {trained_label!r} and plays under {plays_under!r}",
                          RulesMismatchWarning, stacklevel=user_stacklevel(mjf, sys.modules[__name__]))
        elif mine is not None and plays_under is not None:  # the preset, with other fields agents read?
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
        planes, mask = np.asarray(obs["observation"]), as_bool_mask(obs["action_mask"])
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
        o = torch.as_tensor(model_inputs(self.model, planes, mask, self.rules), device=self.device)
        logits, _ = self.model(o)
        bad = ~torch.isfinite(logits)  # else a nan row played its first legal action, as if the network chose it
        if bad.any():
            raise NonFiniteLogits(f"the network's policy logits hold nan or inf ({int(bad.any(-1).sum())} "
                                  f"of {len(logits)} rows): its weights are out of range")
        logp_t = torch.log_softmax(masked_logits(logits, torch.as_tensor(mask, device=self.device)), dim=-1)
        logp = logp_t.cpu().numpy().astype(np.float64)
        if not self.greedy:
            logp = logp + rng.gumbel(size=logp.shape)
        return np.where(mask, logp, -np.inf).argmax(axis=1).astype(np.int64)
