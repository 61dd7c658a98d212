"""Audit of aliasing: what a user holds, changes or keeps of what the environments return.

RL code keeps what an env returns (replay buffers, rollout storage, logs) and edits arrays in place
(normalising, masking, writing actions into a buffer it reuses). Expected here, for every batched env layer: a
return held from step t is unchanged by steps t+1, t+2 and a reset (no output buffer is reused); writing into
a returned array or settlement changes nothing the env does or returns later; the actions, options, rules and
opponents a caller passes are read or copied, so changing them afterwards changes nothing; two envs never
share what one of them lets a caller change (``metadata``); ``mj_env``'s public look-up arrays refuse a write;
and a reward option's ``hand_end`` never hands back the array it was given. The AEC env's observations are
held to the same in ``tests/test_aec_overhead.py``, ``Engine.clone`` in ``tests/test_clone.py``.
"""
from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from walls import four_hui_wall

import mj_env
from mj_env.aec import raw_env
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv

_ENV_CLASSES = (raw_env, MahjongVectorEnv, MahjongSingleAgentVectorEnv, MahjongSingleAgentEnv)


@pytest.fixture
def class_metadata(monkeypatch):
    """Each env class's metadata as a copy for this test only: a test that fails leaves the real ones as they
    were."""
    for cls in _ENV_CLASSES:
        monkeypatch.setattr(cls, "metadata", copy.deepcopy(cls.metadata))
    return {cls: copy.deepcopy(cls.metadata) for cls in _ENV_CLASSES}


_MAKERS = {
    "env()": lambda: mj_env.env(),
    "raw_env": lambda: raw_env(),
    "MahjongVectorEnv": lambda: MahjongVectorEnv(2),
    "MahjongSingleAgentVectorEnv": lambda: MahjongSingleAgentVectorEnv(2, opponents="random"),
    "MahjongSingleAgentEnv": lambda: MahjongSingleAgentEnv(opponents="random"),
    "gym.make": lambda: gym.make("mj_env/Beijing-v0", opponents="random"),
}


@pytest.mark.parametrize("kind", list(_MAKERS))
def test_an_envs_metadata_is_its_own(kind, class_metadata):
    """The AEC env and the one-table env used their class's ``metadata`` dict itself, and the vector envs a
    copy that still held the class's ``render_modes`` list: ``env.metadata["render_fps"] = 30``, or a mode
    appended to ``render_modes``, reached every env of the kind, made before or after, and the class default.
    Each env now holds its own copy."""
    make = _MAKERS[kind]
    before, changed = make(), make()
    changed.metadata["render_fps"] = 30
    changed.metadata["render_modes"].append("rgb_array")
    after = make()
    for other in (before, after):
        assert other.metadata["render_fps"] == 1
        assert other.metadata["render_modes"] == ["ansi", "human"]
    for cls, meta in class_metadata.items():
        assert cls.metadata == meta, cls.__name__


def test_a_sync_vector_env_keeps_its_autoreset_mode_when_another_is_made(class_metadata):
    """Gymnasium's sync (and async) vector env writes its ``autoreset_mode`` into its first env's
    ``metadata``, which was ``MahjongSingleAgentEnv``'s class dict: a second ``make_vec(..., "sync")`` of
    another mode rewrote the first's ``metadata["autoreset_mode"]`` (what Gymnasium's vector wrappers,
    ``RecordEpisodeStatistics`` among them, read to know how it resets), and every one-table env made later
    showed an ``autoreset_mode`` it does not have."""
    same = gym.make_vec("mj_env/Beijing-v0", num_envs=1, vectorization_mode="sync", opponents="random",
                        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})
    nxt = gym.make_vec("mj_env/Beijing-v0", num_envs=1, vectorization_mode="sync", opponents="random")
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert nxt.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert "autoreset_mode" not in gym.make("mj_env/Beijing-v0", opponents="random").metadata
    assert MahjongSingleAgentEnv.metadata == class_metadata[MahjongSingleAgentEnv]


# ------------------------------------------------------------------------------------- returns held, edited
def _scribble(x) -> None:
    """Write over every writeable array and every container reachable from ``x`` (what a careless caller
    might)."""
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            for v in x.ravel():
                _scribble(v)
        elif x.flags.writeable:
            x[...] = 1
    elif isinstance(x, dict):
        for k in list(x):
            if isinstance(x[k], (dict, list, tuple, np.ndarray)):
                _scribble(x[k])
            else:
                x[k] = "edited"
        x["edited"] = True
    elif isinstance(x, list):
        for i, v in enumerate(x):
            if isinstance(v, (dict, list, tuple, np.ndarray)):
                _scribble(v)
            else:
                x[i] = "edited"
        x.append("edited")
    elif isinstance(x, tuple):
        for v in x:
            _scribble(v)


def _transcript(env, steps: int, *, edit: bool, seed: int = 3, reset_kwargs=None) -> tuple[list, list, int]:
    """Random legal play of ``env`` (a batched env: reset and step of Gymnasium's vector API). Returns (what
    each call returned, kept as it was; the same objects as they are after the play and a last reset; episodes
    ended). ``edit``: every return is written over once it has been read, and the actions array after each
    step. The actions and reset options given must come back from each call as they were given."""
    rng = np.random.default_rng(0)
    given = copy.deepcopy(reset_kwargs or {})
    out = env.reset(seed=seed, **(reset_kwargs or {}))
    assert pickle.dumps(reset_kwargs or {}) == pickle.dumps(given)  # the options are read, never written
    kept, held, ended = [pickle.dumps(out)], [out], 0
    mask = out[0]["action_mask"].copy()
    if edit:
        _scribble(out)
    for _ in range(steps):
        actions = uniform_legal(mask, rng)
        given = actions.copy()
        out = env.step(actions)
        assert np.array_equal(actions, given)  # the actions given are read, never written
        kept.append(pickle.dumps(out))
        held.append(out)
        mask = out[0]["action_mask"].copy()
        ended += int((out[2] | out[3]).sum())
        if edit:
            actions[:] = 0
            _scribble(out)
    again = env.reset(seed=seed + 1)
    env.step(uniform_legal(again[0]["action_mask"], rng))
    return kept, [pickle.dumps(h) for h in held], ended


def _check_returns_are_the_callers_own(make, steps: int, **kw) -> None:
    kept, later, ended = _transcript(make(), steps, edit=False, **kw)
    assert ended >= 2  # (episodes ended, and were dealt anew, within the play)
    changed = [t for t, (a, b) in enumerate(zip(kept, later)) if a != b]
    assert not changed, f"returns of calls {changed[:5]} changed after they were returned"
    edited, _, _ = _transcript(make(), steps, edit=True, **kw)
    differ = [t for t, (a, b) in enumerate(zip(kept, edited)) if a != b]
    assert not differ, f"writing into earlier returns changed the returns of calls {differ[:5]}"


@pytest.mark.parametrize(("mode", "records", "obs"), [
    ("SameStep", False, "v1"), ("SameStep", True, "v1"), ("NextStep", False, "v1"), ("NextStep", True, "v1"),
    ("SameStep", True, "v2"),
])
def test_the_vector_envs_returns_are_the_callers_own(mode, records, obs):
    """``MahjongVectorEnv``: observations, masks, seats, rewards, ends, settlements and hand records returned
    at a step stay as they were through later steps, autoresets and a reset, and writing into them (and into
    the actions array given) changes no later return."""
    def make():
        return MahjongVectorEnv(4, seed=3, autoreset_mode=mode, records=records, obs=obs)
    _check_returns_are_the_callers_own(make, 120 if obs == "v2" else 220)


def test_the_one_table_vector_envs_returns_are_the_callers_own():
    """The same for a one-table ``MahjongVectorEnv`` (its own observation path), dealt first a hand that ends
    at its deal (its points come as ``deal_points`` with the next step)."""
    _check_returns_are_the_callers_own(lambda: MahjongVectorEnv(1, seed=3), 300,
                                       reset_kwargs={"options": {"walls": [four_hui_wall()]}})


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("obs", ["v1", "v2"])
def test_the_single_agent_vector_envs_returns_are_the_callers_own(mode, obs):
    """``MahjongSingleAgentVectorEnv``: the same for its observations, masks, rewards, ends and infos (hand
    outcomes, ``final_obs`` and ``final_info`` of truncated episodes); ``action_masks()`` is a copy as well.
    """
    def make():
        return MahjongSingleAgentVectorEnv(3, opponents="random", seat="rotate", seed=5, autoreset_mode=mode,
                                           obs=obs, max_episode_steps=9)
    _check_returns_are_the_callers_own(make, 40)
    env = make()
    env.reset(seed=1)
    masks = env.action_masks()
    masks[...] = True
    assert not env.action_masks().all()


def test_the_sb3_vec_envs_returns_are_the_callers_own():
    """``MahjongSB3VecEnv``: observations, rewards, dones and the info dicts (``terminal_observation``
    included)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    def play(edit: bool):
        env = MahjongSB3VecEnv(3, opponents="random", max_episode_steps=6)
        env.seed(2)
        rng = np.random.default_rng(0)
        kept, held = [], []
        obs = env.reset()
        for _ in range(30):
            actions = uniform_legal(env.action_masks(), rng)
            env.step_async(actions)
            out = env.step_wait()
            kept.append(pickle.dumps(out))
            held.append(out)
            if edit:
                actions[:] = 0
                _scribble(out)
        assert sum(int(o[2].sum()) for o in held) >= 2
        env.seed(3)
        obs = env.reset()
        assert obs["observation"].shape == (3, 14, 34)
        return kept, [pickle.dumps(h) for h in held]

    kept, later = play(False)
    assert kept == later
    assert play(True)[0] == kept


# ----------------------------------------------------------------------------------------- shared constants
@pytest.mark.parametrize("name", ["tiles.SUIT_OF", "tiles.HUI_OF_INDICATOR", "hand.ORPHAN_KINDS",
                                  "state.CLAIM_CATEGORY", "actions.CHI_START"])
def test_the_packages_public_constant_arrays_refuse_a_write(name):
    """``mj_env``'s public look-up arrays are read by every engine, observation and agent of the process. They
    were writeable: a user's ``HUI_OF_INDICATOR[0] += 1`` (or a view of ``SUIT_OF`` edited for features of
    one's own) made every later beijing hand dealt with the indicator 1m take 3m as its 惠牌, not 2m, without a
    word. NumPy now refuses the write (ValueError), as it does for ``Engine.legal_mask()`` and the hand
    tables."""
    import importlib

    module, attr = name.split(".")
    arr = getattr(importlib.import_module(f"mj_env.{module}"), attr)
    saved = arr.copy()
    try:
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = arr[0]
    finally:  # (where the write was taken: the value it had)
        if arr.flags.writeable:
            arr[...] = saved
    assert np.array_equal(arr, saved)


@pytest.mark.parametrize("kind", ["points", "scaled", "sign", "shaped"])
def test_a_reward_options_hand_end_is_never_the_array_it_was_given(kind):
    """``RewardTransform.hand_end`` of float64 points (what the envs return) under ``points`` was the points
    array itself, where the other kinds give a new one: a caller that edited the reward in place (``r =
    hand_end(x); r[ended] -= penalty``) changed the rewards it had kept, under that kind only."""
    from agents.rewards import RewardTransform

    points = np.array([[8.0, -4.0, -2.0, -2.0]])
    kept = points.copy()
    out = RewardTransform(kind).hand_end(points)
    out[...] = 0
    assert np.array_equal(points, kept)


# ------------------------------------------------------------------------------------- inputs changed after
def _play_records(env, steps: int, rng) -> list:
    """``steps`` random legal steps of a ``MahjongVectorEnv(records=True)`` already reset: its returns,
    pickled."""
    out, mask = [], env._obs()["action_mask"]
    for _ in range(steps):
        step = env.step(uniform_legal(mask, rng))
        mask = step[0]["action_mask"]
        out.append(pickle.dumps(step))
    return out


def test_what_a_caller_changes_after_passing_it_changes_nothing():
    """A rules dict, the walls and dealers of a reset, and an opponents list, each changed by the caller after
    the call that took it: the env plays, records and settles as a twin given copies does (each was read or
    copied when it was given)."""
    from agents.rule_based import RuleBasedAgent
    from mj_env.rules import get_rules
    from mj_env.wall import shuffled_walls

    spec = {"name": "beijing", "hui_wild_in_melds": True}
    walls = shuffled_walls(get_rules(spec), np.random.default_rng(4), 2)
    dealers = [1, 3]
    twin = MahjongVectorEnv(2, rules=dict(spec), records=True)
    twin.reset(seed=1, options={"walls": walls.copy(), "dealers": list(dealers)})
    env = MahjongVectorEnv(2, rules=spec, records=True)
    env.reset(seed=1, options={"walls": walls, "dealers": dealers})
    spec["hui_wild_in_melds"], spec["name"] = False, "hebei"
    walls[:] = walls[:, ::-1].copy()
    dealers[:] = [0, 0]
    played = _play_records(env, 250, np.random.default_rng(0))
    assert played == _play_records(twin, 250, np.random.default_rng(0))
    records = sum(pickle.loads(p)[4].get("_hand_record", np.zeros(2)).sum() for p in played)
    assert records >= 2  # (hands ended and were recorded)

    opponents = [RuleBasedAgent(), RuleBasedAgent(), RuleBasedAgent()]
    single = MahjongSingleAgentVectorEnv(2, opponents=opponents, seed=2)
    kept = single.opponents
    opponents[:] = ["random"] * 3
    assert single.opponents == kept and all(isinstance(a, RuleBasedAgent) for a in single.opponents)
