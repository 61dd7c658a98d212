"""Stable-Baselines3's ``VecEnv`` over the batched single-agent environment: N tables in one process.

::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = VecMonitor(MahjongSB3VecEnv(num_envs=256, rules="beijing", opponents="rule"))
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=64, seed=0)
    model.learn(200_000)

SB3 steps a ``VecEnv``, not a Gymnasium vector env; given one-table envs it builds a
``DummyVecEnv`` and steps them one by one in Python, so the engine runs one table at a time. This
class gives SB3 the natively batched ``MahjongSingleAgentVectorEnv`` (``mj_env.single_agent``, the
same arguments but ``autoreset_mode``) as its ``VecEnv``: one engine step and one batch of
opponent decisions for all N tables. It needs stable-baselines3 (``pip install 'mj-env[sb3]'``);
``mj_env`` itself never imports this module.

What SB3 gets, as from its own ``DummyVecEnv`` of N one-table envs (``mj_env/Beijing-v0``):

- ``reset()`` -> observations ``{"observation": (N, 14, 34) uint8 ((N, 18, 34) with ``obs="v2"``),
  "action_mask": (N, 127) int8}``;
  the seed of ``seed(s)`` (``model = ...(seed=s)`` calls it) seeds the one generator of all N
  tables at the next ``reset`` (SB3 gives env i the seed ``s + i``; the tables share ``s``), and
  ``set_options`` passes the single-agent env's reset options (``walls``, ``dealers``), the same
  for every env, to the next ``reset`` only (as SB3's own envs do; options that reset would refuse are refused
  by ``set_options``, which keeps the options set before);
- ``step_wait()`` -> observations, rewards (N,) float32 (the learner's settled points; float32 as in SB3's
  own ``DummyVecEnv``: exact up to 2**24 points, rounded above, which a large ``base`` reaches), dones
  (N,) bool, and a list of N info dicts: ``seat`` always; ``scores`` (4,) (float64, exact), ``win``,
  ``deal_in``, ``draw``, ``fan`` where a hand ended; ``TimeLimit.truncated`` (cut by
  ``max_episode_steps``, not ended by the rules); for an ended episode ``terminal_observation`` (its
  last observation, with its real mask where it was truncated; the returned row is already the next
  episode's first decision, whose seat ``reset_infos[i]`` gives);
- ``env_method("action_masks")`` -> N bool rows (what ``MaskablePPO`` calls; any other method runs once for
  all tables, so it is asked of all, ``indices=None``), ``get_attr`` /
  ``set_attr`` of the batched env's attributes (its spaces are the batched ones), ``env_is_wrapped``
  False, ``render()`` of the batched env (its first tables) in ``render_mode="ansi"`` / ``"human"``.

SB3's wrappers (``VecMonitor``, ``VecNormalize`` with ``norm_obs_keys=["observation"]``,
``VecFrameStack``...) go on top as on any ``VecEnv``. ``self.envs`` is the batched env (its
``last_settlements``, ``engine``...).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from . import actions as A
from .actions import ActionError
from .render import check_render_mode
from .single_agent import INFO_KEYS, MahjongSingleAgentVectorEnv

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("mj_env.sb3 needs stable-baselines3: pip install 'mj-env[sb3]' "
                      "(or pip install stable-baselines3 sb3-contrib)") from e


def _same_options(a: dict, b: dict) -> bool:
    """Two reset options dicts alike (their values may be arrays, which ``==`` cannot compare). A dict is
    alike itself: SB3's ``set_options`` of one dict lists that dict's copy once per env, and a value that is
    not equal to itself (a NaN dealer) made it refused as options that differ by env, not with the error
    reset gives."""
    if a is b:
        return True
    if a.keys() != b.keys():
        return False
    try:
        return all(np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)
    except ValueError:  # ragged values: alike only if the same objects
        return all(a[k] is b[k] for k in a)


class MahjongSB3VecEnv(VecEnv):
    """N tables of ``MahjongSingleAgentVectorEnv`` as one Stable-Baselines3 ``VecEnv`` (module docstring).

    ``num_envs`` and every keyword are the batched env's (``rules``, ``opponents``, ``seat``, ``seed``,
    ``illegal_action``, ``max_episode_steps``, rule overrides...); its autoreset is SB3's (same step)."""

    def __init__(self, num_envs: int = 64, **kwargs):
        if "autoreset_mode" in kwargs:
            raise ValueError("autoreset_mode: SB3 resets an ended env inside the same step, which this adapter "
                             "does; leave the argument out")
        self.envs = MahjongSingleAgentVectorEnv(num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        self._actions: np.ndarray | None = None
        super().__init__(self.envs.num_envs, self.envs.single_observation_space, self.envs.single_action_space)

    # ------------------------------------------------------------------ reset and step
    def seed(self, seed=None) -> Sequence[int | None]:
        """SB3's ``seed``: the seed of the next ``reset`` (listed as ``seed + i`` for env i; the tables share
        ``seed``). Checked here, as every env of this package checks a seed (None or a non-negative integer,
        NumPy's too), so that a bad one is refused now, not at each later reset, and kept as a Python int
        (``np.uint64`` + i would wrap)."""
        if seed is not None:
            self.envs.engine.check_reset(seed)
            seed = int(seed)
        return super().seed(seed)

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """SB3's ``set_options``: the reset options of the next ``reset`` only (SB3 clears them there), one dict for
        every env. Checked here, as ``seed`` checks a seed: options the next reset would refuse (dicts that differ
        by env, an unknown key, a bad wall or dealer) are refused now, with the error that reset gives, and the
        options set before stay as they were. Stored, they made every later reset refuse until set_options
        was called again."""
        kept = self._options
        super().set_options(options)  # (SB3's: None as {}, a dict for every env, deep copies)
        try:
            if not isinstance(self._options, (list, tuple)) or not all(isinstance(o, dict) for o in self._options):
                raise ValueError(f"set_options: options must be a dict, None or a list of dicts (one per env), got "
                                 f"{type(options).__name__}")
            first = self._options[0] if len(self._options) else {}
            if not all(_same_options(o, first) for o in self._options[1:]):
                raise ValueError("set_options: the tables are reset together, so give one options dict for all envs")
            self.envs._checked_reset(None, first or None)
        except Exception:
            self._options = kept
            raise

    def reset(self):
        options = self._options[0] if len(self._options) else {}  # (set_options checked them)
        obs, infos = self.envs.reset(seed=self._seeds[0], options=options or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = self._info_list(infos)
        self._actions = None
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        A.refuse_bools_in(actions)  # a list's bools would be ints once in an array
        try:  # a masked array stays one (np.asarray would drop its mask): the env refuses masked entries
            self._actions = actions if isinstance(actions, np.ma.MaskedArray) else np.asarray(actions)
        except Exception as e:  # noqa: BLE001 (a ragged list, an __array__ that raises: as the env says)
            raise ActionError(f"expected {self.num_envs} integer actions: {str(e)[:80]}") from None

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions) before it")
        actions, self._actions = self._actions, None
        if actions.ndim == 2 and actions.shape[1] == 1 and actions.dtype.kind in "iu":  # SB3 hands Discrete
            # actions as (N,) or (N, 1); anything else reaches the env's check as it was given
            actions = actions[:, 0]
        obs, rewards, terminated, truncated, infos = self.envs.step(actions)
        dones = terminated | truncated
        info_list = self._info_list(infos)  # at an ended table: the new episode's reset infos
        if dones.any():
            ended = self._info_list(infos["final_info"])
            for b in np.flatnonzero(dones):
                self.reset_infos[b] = info_list[b]  # as DummyVecEnv keeps them
                info_list[b] = ended[b]
                info_list[b]["terminal_observation"] = infos["final_obs"][b]
        for i, info in enumerate(info_list):
            info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, rewards.astype(np.float32), dones, info_list

    def _info_list(self, infos: dict) -> list[dict[str, Any]]:
        """The batched env's dict of arrays as one dict per table (SB3's form)."""
        out = [{"seat": int(s)} for s in infos["seat"]]
        if "_scores" in infos:
            for b in np.flatnonzero(infos["_scores"]):
                d = out[b]
                for k in INFO_KEYS:
                    v = infos[k][b]
                    d[k] = v.copy() if k == "scores" else v.item()
        for key in ("illegal_action", "redealt"):
            if key in infos:
                for b in np.flatnonzero(infos["_" + key]):
                    out[b][key] = infos[key][b].item()
        return out

    # ------------------------------------------------------------------ SB3's env access
    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        def is_int(i) -> bool:
            return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))

        items = [indices] if is_int(indices) else \
            list(indices) if isinstance(indices, Iterable) and not isinstance(indices, (str, bytes)) else None
        if items is None or not all(map(is_int, items)):
            raise TypeError(f"env indices must be an int or a sequence of ints, not {str(indices)[:60]}")
        out = [int(i) for i in items]
        bad = [i for i in out if not 0 <= i < self.num_envs]
        if bad:
            raise IndexError(f"env indices {bad[:5]} out of range 0-{self.num_envs - 1}")
        return out

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``action_masks``: the rows of the batched env's (N, 127) mask; any other method is the batched
        env's, called once for all tables, its result given to each env: so it is asked of all of them
        (``indices=None``), and a part of them is refused, as ``set_attr`` refuses it (``set_opponents`` asked
        of one table would change the opponents at every table)."""
        idx = self._indices(indices)
        if method_name != "action_masks" and len(idx) != self.num_envs:
            raise ValueError(f"env_method({str(method_name)[:40]!r}): the tables share one env, which runs it for "
                             f"all of them: call it with indices=None, not for {len(idx)} of {self.num_envs}")
        result = getattr(self.envs, method_name)(*method_args, **method_kwargs)
        if method_name == "action_masks":
            return [result[i] for i in idx]
        return [result] * len(idx)

    def get_attr(self, attr_name: str, indices=None) -> list:
        idx = self._indices(indices)
        return [getattr(self.envs, attr_name)] * len(idx)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set ``attr_name`` on the batched env, for all tables at once. ``opponents`` (through its
        ``set_opponents``), ``seat_mode`` (or ``seat``, the constructor's name), ``illegal_action`` and
        ``illegal_penalty`` are checked as the constructor checks them, ``render_mode`` too (None or any string:
        ``render.check_render_mode(any_mode=True)``; SB3 itself never sets it); names the env
        does not have are set as they are (a caller's own bookkeeping); the env's other attributes (tables, rules,
        spaces, state) are refused: make a new env."""
        idx = self._indices(indices)
        if not isinstance(attr_name, str):
            raise TypeError(f"set_attr: the attribute name must be a string, got {type(attr_name).__name__}")
        if len(idx) != self.num_envs:
            raise ValueError(f"set_attr({attr_name[:40]!r}): the tables share one env, so set it for all of them "
                             f"(indices=None), not {len(idx)} of {self.num_envs}")
        env = self.envs
        if attr_name == "opponents":
            env.set_opponents(value)
        elif attr_name in ("seat_mode", "seat", "illegal_action", "illegal_penalty"):
            setattr(env, attr_name, value)  # the batched env's own properties check it as its constructor does
        elif attr_name == "render_mode":  # None or any mode string, as the constructor takes it
            check_render_mode(value, any_mode=True)
            env.render_mode = value
        elif not hasattr(env, attr_name):
            setattr(env, attr_name, value)
        else:
            raise ValueError(f"set_attr({attr_name[:40]!r}): part of the env's make-up, not settable; make a new "
                             "env (settable: opponents, seat_mode, illegal_action, illegal_penalty, render_mode, "
                             "and names the env does not have)")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def action_masks(self) -> np.ndarray:
        """(N, 127) bool: the learner's legal actions at every table."""
        return self.envs.action_masks()

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs  # text rendering only ("ansi", "human")

    # (text: ansi and human are the render modes; SB3's VecEnv types render as returning an image)
    def render(self, mode: str | None = None):  # pyright: ignore[reportIncompatibleMethodOverride]
        if mode is not None and mode != self.render_mode:  # as SB3's VecEnv: a warning, no picture
            warnings.warn(f"render mode {mode!r}: this env was made with render_mode={self.render_mode!r}",
                          stacklevel=2)
            return None
        return self.envs.render()

    def close(self) -> None:
        self.envs.close()
