"""Random-play loops of every measured implementation, one decision (or one joint step) per call.

Each ``make_<impl>(batch, rules, seed)`` returns ``(step, info)``: ``step()`` plays one step of
random legal actions and returns ``(decisions, hands, sampler_seconds)`` -- the agent decisions
taken in that call, the hands (games) that finished in it, and the time spent choosing the
random action (so that the report can separate the environment from the sampler); ``info`` is a
dict of static facts (state bytes, what a decision is) that goes into the result.

The environments are imported inside the factories, so that each measured child process loads
only the implementation it measures (its peak memory is then that implementation's).

What a decision is, per implementation:

- ``vector`` / ``engine`` (ours, batched): one per table per step -- at every step every table
  has exactly one seat to act, so a step over N tables is N decisions. ``vector`` is
  ``MahjongVectorEnv.step`` (observations (N, 14, 34) and masks (N, 127) built every step, same-
  step autoreset); ``engine`` is the bare ``Engine.step`` + ``legal_mask()`` (no observation),
  with finished tables re-dealt by ``Engine.reset(tables=...)`` as the loop goes.
- ``aec`` (ours, PettingZoo): one per ``env.step(action)`` with an action (not the ``None``
  steps of terminated agents); the loop calls ``env.last()`` before each, which builds the
  acting agent's observation and mask.
- ``rlcard``: one per ``env.step(action)``; RLCard builds the next player's state (observation
  planes and legal actions) inside each step.
- ``riichienv`` / ``riichienv_encode``: ``RiichiEnv.step`` takes a dict of actions, one for each
  player that has a decision (several at once in a claim window), and every action in that dict
  counts as one decision. ``riichienv_encode`` also encodes each acting player's observation
  (``Observation.encode()``, a (74, 34) float32 feature array), as a learner would need.
"""
from __future__ import annotations

import random
import time

import numpy as np
from _common import MaskedSampler

perf = time.perf_counter

DESYNC_STEPS = 96
"""About one hand's decisions: the spread of hand starts that ``desync`` gives a batch."""


def desync(engine, play, steps: int = DESYNC_STEPS) -> None:
    """Spread the tables' hand starts over ``steps`` steps (untimed set-up of the batched loops).

    All tables are dealt at once by ``reset``, and hands are about equally long, so a fresh batch
    stays in lockstep for many hands: most tables discard in the same steps, then most finish in
    the same few steps. Per-step cost and hands per second then swing with the phase of the batch
    instead of showing the steady state a long training run sees. Here table ``b`` is re-dealt at
    step ``b % steps`` (``Engine.reset(tables=...)``), while ``play(mask)`` steps the batch with
    random legal actions, so that afterwards the tables are spread evenly over a hand.
    """
    from mj_env.state import END

    st = engine.state
    rows = np.arange(engine.num_tables)
    for i in range(steps):
        tables = rows[rows % steps == i]
        while len(tables):
            engine.reset(tables=tables)
            tables = tables[st.phase[tables] == END]       # a deal that ended at once: deal again
        play(engine.legal_mask())


def read_hand_tables() -> None:
    """Read every hand table now (untimed set-up of our loops). They are read from the cache file on
    first use, and some are first used late: the wait table ('plus') at the first 捉五魁 check of a
    won hand. Its one-off read (about 0.1 s) would otherwise be charged to the timed steps, and a
    per-step profile over 100 steps showed it as a third of the step. Also the one-off check of the 'kept'
    table that the 缺一门 distances of changed hands rely on (``hand._kept_monotone``, about 0.1 s)."""
    from mj_env import hand, tables

    for name in tables.NAMES:
        tables.get(name)
    hand._kept_monotone()


def make_vector(batch: int, rules: str | dict, seed: int, records: bool = False):
    from mj_env.vector import MahjongVectorEnv

    read_hand_tables()

    venv = MahjongVectorEnv(num_envs=batch, rules=rules, seed=seed, records=records)
    sampler = MaskedSampler(seed + 1)
    obs, _ = venv.reset(seed=seed)
    box = [obs]

    def play(mask):
        box[0] = venv.step(sampler(mask))[0]

    if batch > 1:
        desync(venv.engine, play)

    def step():
        t = perf()
        actions = sampler(box[0]["action_mask"])
        ts = perf() - t
        instant = venv.instant_hands
        obs, _, _, _, infos = venv.step(actions)
        box[0] = obs
        # hands that ended in the step, plus deals that ended at once (四惠牌) and were re-dealt
        hands = int(np.count_nonzero(infos["_settlement"])) + venv.instant_hands - instant
        return batch, hands, ts

    def last_mask():
        return box[0]["action_mask"]

    return step, {"state_bytes": venv.engine.state.nbytes(), "last_mask": last_mask,
                  "decision": "one per table per step (obs + mask built every step)"
                              + (", and each ended hand's record" if records else "")}


def make_vector_records(batch: int, rules: str | dict, seed: int):
    """The vector env keeping hand records (``records=True``): the ``vector`` row's loop, each ended hand's
    record built in ``infos["hand_record"]``."""
    return make_vector(batch, rules, seed, records=True)


def make_engine(batch: int, rules: str | dict, seed: int):
    from mj_env.engine import Engine
    from mj_env.state import END

    read_hand_tables()
    eng = Engine(rules, num_tables=batch, seed=seed)
    sampler = MaskedSampler(seed + 1)
    eng.reset(seed=seed)
    st = eng.state

    def play(mask):
        eng.step(sampler(mask))
        ended = np.flatnonzero(st.phase == END)
        if len(ended):
            eng.reset(tables=ended)

    if batch > 1:
        desync(eng, play)
    pending = [0]  # hands that ended at the deal (四惠牌) when finished tables were re-dealt

    def step():
        mask = eng.legal_mask()
        t = perf()
        actions = sampler(mask)
        ts = perf() - t
        live = int(np.count_nonzero(st.phase != END))
        res = eng.step(actions)
        hands = int(np.count_nonzero(res.hand_over)) + pending[0]
        pending[0] = 0
        ended = np.flatnonzero(st.phase == END)
        if len(ended):
            eng.reset(tables=ended)
            pending[0] = int(np.count_nonzero(st.phase[ended] == END))
        return live, hands, ts

    return step, {"state_bytes": st.nbytes(), "last_mask": eng.legal_mask,
                  "decision": "one per live table per step (bare Engine.step + legal_mask, no observation)"}


def make_aec(batch: int, rules: str | dict, seed: int):
    import mj_env

    read_hand_tables()
    env = mj_env.env(rules=rules)
    env.reset(seed=seed)
    rnd = random.Random(seed + 1)

    def step():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            if not env.agents:
                env.reset()
                return 0, 1, 0.0
            return 0, 0, 0.0
        mask = obs["action_mask"]  # pyright: ignore[reportOptionalSubscript]  (an observation while an agent acts)
        t = perf()
        legal = np.flatnonzero(mask)
        action = int(legal[rnd.randrange(len(legal))])
        ts = perf() - t
        env.step(action)
        return 1, 0, ts

    return step, {"state_bytes": env.unwrapped.engine.state.nbytes(),
                  "decision": "one per env.step(action) (env.last() builds obs + mask before each)"}


def make_rlcard(batch: int, rules: str | dict, seed: int):
    import rlcard  # pyright: ignore[reportMissingImports]  (the optional peers extra)

    env = rlcard.make("mahjong", config={"seed": seed})
    rnd = random.Random(seed + 1)
    box = [env.reset()[0]]

    def step():
        legal = box[0]["legal_actions"]
        t = perf()
        action = rnd.choice(tuple(legal))
        ts = perf() - t
        state, _ = env.step(action)
        if env.is_over():
            box[0] = env.reset()[0]
            return 1, 1, ts
        box[0] = state
        return 1, 0, ts

    return step, {"decision": "one per env.step(action); RLCard builds the next state inside step"}


def _make_riichi(seed: int, encode: bool):
    from riichienv import RiichiEnv  # pyright: ignore[reportMissingImports]  (the optional peers extra)

    # one hand per game ("4p-red-single": a single kyoku); the MJAI event log is not needed
    env = RiichiEnv(game_mode="4p-red-single", skip_mjai_logging=True, seed=seed)
    rnd = random.Random(seed + 1)
    box = [env.reset()]

    def step():
        actions = {}
        ts = 0.0
        for player, ob in box[0].items():
            if encode:
                np.frombuffer(ob.encode(), dtype=np.float32)
            legal = ob.legal_actions()
            t = perf()
            actions[player] = legal[rnd.randrange(len(legal))]
            ts += perf() - t
        obs = env.step(actions)
        # every player's action in the dict is one decision (a claim window asks several at once)
        if env.done():
            box[0] = env.reset()
            return len(actions), 1, ts
        box[0] = obs
        return len(actions), 0, ts

    what = "one per player action in the dict passed to RiichiEnv.step"
    if encode:
        what += "; each acting player's Observation.encode() (74x34 float32) computed"
    return step, {"decision": what}


def make_riichienv(batch: int, rules: str | dict, seed: int):
    return _make_riichi(seed, encode=False)


def make_riichienv_encode(batch: int, rules: str | dict, seed: int):
    return _make_riichi(seed, encode=True)


FACTORIES = {
    "vector": make_vector, "vector_records": make_vector_records, "engine": make_engine, "aec": make_aec, "rlcard": make_rlcard,
    "riichienv": make_riichienv, "riichienv_encode": make_riichienv_encode,
}
