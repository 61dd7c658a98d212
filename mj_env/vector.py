"""A natively batched training environment over N tables, in the Gymnasium ``VectorEnv`` style.

::

    from mj_env.vector import MahjongVectorEnv
    venv = MahjongVectorEnv(num_envs=1024, rules="beijing", seed=0)
    obs, infos = venv.reset(seed=0)
    while True:
        logits = policy(obs["observation"])                 # (N, 14, 34) uint8 -> (N, 127)
        actions = masked_sample(logits, obs["action_mask"])  # (N,) int
        obs, rewards, terminations, truncations, infos = venv.step(actions)

What one step returns, for N tables:

| key | shape, dtype | meaning |
| --- | --- | --- |
| ``obs["observation"]`` | (N, 14, 34) uint8 | planes of ``mj_obs_v1`` for the seat to act at each table; with ``obs="v2"`` (N, 18, 34), ``mj_obs_v2`` (``mj_env.features``: those planes and the tiles still needed after each discard and claim) |
| ``obs["action_mask"]`` | (N, 127) int8 | its legal actions |
| ``obs["seat"]`` | (N,) int64 | the seat to act (0-3) |
| ``rewards`` | (N, 4) float64 | settled points of each seat for the hands that ended in this step (exact: at most 2**53); a hand that ends at the deal itself (四惠牌 on the dealer's first turn) is dealt again and its points come with the table's next step, without a settlement |
| ``terminations`` | (N,) bool | the episode (a hand, or a match of hands) ended |
| ``truncations`` | (N,) bool | always False: every hand ends by the rules |
| ``infos["settlement"]`` | (N,) object | ``infos["settlement"][i]``: the settlement of the hand that ended at table i (docs/INTERFACES.md 2) where ``infos["_settlement"][i]``, else None (in a match whose next hand ends at its deal in the same step, the later hand's; the rewards hold both) |
| ``infos["earlier_settlements"]`` | (N,) object | only in a step where a match's next hand ended at its deal after a hand ended: at such a table i (``infos["_earlier_settlements"][i]``) the list of the settlements before ``settlement[i]``, in order (else None); the rewards hold them all |
| ``infos["hand_record"]`` | (N,) object | only with ``records=True`` (one-hand episodes): at a table i whose hand ended in this step (``infos["_hand_record"][i]``) its record (``mj_env.records``: rules, wall, dealer, every decision, settlement; plain JSON), which ``records.replay`` plays again exactly, else None. A deal that ended at once (below) has none. ``benchmarks/throughput.py --impls vector,vector_records`` measures what keeping them costs |
| ``infos["deal_points"]`` | (N, 4) float64 | only in a step that pays a hand that ended at its deal, dealt by a reset or an autoreset (``rewards`` above): those points, which ``rewards`` includes, where ``infos["_deal_points"]``, else 0; no seat decided anything in such a hand, so a learner may leave them out of its decisions' rewards (``train.py`` does). A later hand of a match that ends at its deal is settled in the step that dealt it instead (``settlement`` above) |

Infos follow Gymnasium's vector convention (a dict of arrays, each with a ``_key`` mask), so
``DictInfoToList`` takes them.

Rewards are per seat, not per table, so their shape is (N, 4), not Gymnasium's (N,): mahjong
has four players, every step can move every seat's points (a discard win pays the winner and
charges the discarder), and a self-play learner needs each seat's points (they sum to zero).
Wrappers that assume (N,) rewards (``RecordEpisodeStatistics``, ``NormalizeReward``) belong on
the single-agent environment (``mj_env.single_agent``), where the learner is one seat.

``autoreset_mode`` (an argument, shown in ``metadata["autoreset_mode"]``; ``AutoresetMode.SAME_STEP`` or
``NEXT_STEP``, or either as a string by value, ``"SameStep"``, or by name, ``"SAME_STEP"``): ``SAME_STEP``
(default) deals a table whose episode ended anew inside the same step, and the observation
returned for it is the new hand's first decision. ``NEXT_STEP`` returns the ended table as it
is (its mask allows only ``pass``); the next action there is ignored and the table is dealt
anew in that step. ``reset(options={"reset_mask": (N,) bool})`` deals only the tables marked.
``SAME_STEP`` infos hold no ``final_obs`` or ``final_info`` (Gymnasium's ``SyncVectorEnv`` has them): an
ended hand has no seat to decide, and what it ended with is in ``infos["settlement"]`` and the rewards.

## Self-play with it

Every step, at each table, exactly one seat decides (``obs["seat"]``). Keep, per table and seat,
the list of that seat's decisions; when a hand ends the reward ``rewards[i, seat]`` belongs to
that seat's last decision at table i (earlier ones get 0, or a shaped reward), and the seat's
trajectory ends there. One shared policy can play all four seats (the observation is already
seat-relative); an opponent pool plays some seats with frozen snapshots. ``train.py`` does this.
Seats are not alike (under ``beijing`` East deals the first hand, so seat 0 deals every one-hand
episode): two policies compared at fixed seats measure the seats as much as the policies; the
duplicate arena (``agents.arena``) plays every wall in every seating.
"""
from __future__ import annotations

import copy

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import actions as A
from .engine import Engine, EngineRules, check_num_tables
from .features import OBS_LAYOUTS, in_layout, obs_layout
from .messages import brief, refuse_arguments
from .observation import N_PLANES, _observe_one, observe
from .records import HandLog
from .render import RENDER_MODES, check_render_mode, print_table, render_table
from .rules import RulesSpec
from .state import END, refuse_masked
from .tiles import N_KINDS


def checked_reset_options(options, known: tuple[str, ...]) -> dict:
    """A copy of ``reset``'s ``options`` as a dict: ValueError (nothing changed) for anything but a dict or
    None, and for keys other than ``known``, the message naming them (cut at 80 characters) and ``known``."""
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    options = dict(options or {})
    unknown = set(options) - set(known)
    if unknown:
        names = ", ".join(map(repr, known[:-1])) + f" and {known[-1]!r}"
        raise ValueError(f"unknown reset option(s): {', '.join(sorted(map(str, unknown)))[:80]}; use {names}")
    return options


class TablesEnvBasics:
    """What the batched environments (this one and ``mj_env.single_agent``'s) share over their
    ``engine``: ``render`` (``"ansi"``: the first four tables as text; ``"human"``: printed), ``close``
    and ``closed``, and ``rules`` (the engine's, read-only)."""

    closed = False
    rules = EngineRules()
    # set by the envs that mix it in (Gymnasium's VectorEnv declares num_envs and render_mode as these)
    engine: Engine
    num_envs: int
    render_mode: str | None
    _started: bool

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError(f"this {type(self).__name__} is closed")

    def _seeded(self, seed) -> None:
        """Gymnasium's ``VectorEnv.reset(seed=N)`` bookkeeping, which this env's own ``reset`` (and a constructor
        ``seed``) stand in for: ``np_random_seed`` reads N and ``np_random`` is seeded by it, as in Gymnasium's own
        vector envs (the tables deal from the engine's generator, not from ``np_random``). Called once the seed
        was checked and the reset done, so that a refused reset leaves them alone."""
        if seed is not None:
            VectorEnv.reset(self, seed=int(seed))  # type: ignore[arg-type]  # mixed into VectorEnv subclasses only

    def render(self):
        """``"ansi"``: the text of the first four tables, each under a line ``table i of N`` (a one-table env's
        without it); ``"human"``: the same text printed (returns None; a human-mode env also prints itself at
        every reset and step, Gymnasium's convention); other modes render nothing. A RuntimeError before the
        first reset (no table is dealt yet) and after ``close()`` (as ``reset``, ``step`` and ``action_masks``
        then, and the AEC env's ``render``)."""
        if self.render_mode not in RENDER_MODES:
            return None
        self._check_open()
        if not self._started:
            raise RuntimeError("render() before reset(): no table is dealt yet; call reset() first")
        if self.num_envs == 1:  # (the one-table env's picture needs no number)
            text = render_table(self.rules, self.engine.state, 0)
        else:
            text = "\n\n".join(f"table {b} of {self.num_envs}\n{render_table(self.rules, self.engine.state, b)}"
                                 for b in range(min(self.num_envs, 4)))
        if self.render_mode == "human":
            print_table(text)
            return None
        return text

    def _shown(self, result):
        """``result`` (of a reset or step) as it is, once the tables are printed where ``render_mode`` is "human"."""
        if self.render_mode == "human":
            self.render()
        return result

    def close(self, **kwargs):
        self.closed = True

    def _masked_tables(self, reset_mask) -> np.ndarray:
        """The tables a ``reset_mask`` option marks: (num_envs,) bools, an array or a list."""
        refuse_masked(reset_mask, "reset_mask")
        try:
            m = np.asarray(reset_mask)
        except Exception:  # noqa: BLE001 (ragged lists, an object whose __array__ raises: no mask)
            m = np.zeros(0)
        if m.shape != (self.num_envs,) or m.dtype != bool:
            raise ValueError(f"reset_mask must be a bool array of shape ({self.num_envs},)")
        if not self._started and not m.all():
            raise ValueError("the first reset must deal every table")
        return np.flatnonzero(m)

    @staticmethod
    def _checked_setup(num_envs, autoreset_mode) -> AutoresetMode:
        """Check the constructor's ``num_envs`` and ``autoreset_mode`` under their own names; the mode."""
        check_num_tables(num_envs, "num_envs")
        modes = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
        mode: AutoresetMode | None
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:  # the member's name as a string ("NEXT_STEP") is taken as well as its value
            mode = AutoresetMode.__members__.get(autoreset_mode) if isinstance(autoreset_mode, str) else None
        if mode is None or mode not in modes:
            raise ValueError(f"autoreset_mode must be AutoresetMode.NEXT_STEP or SAME_STEP (or 'NextStep', "
                             f"'SameStep', 'NEXT_STEP', 'SAME_STEP'), got {brief(autoreset_mode)}")
        return mode


_ONE_SEAT = ("MahjongVectorEnv plays all four seats (self-play: obs['seat'] says who acts); for one seat against "
             "opponent agents use mj_env.single_agent.MahjongSingleAgentVectorEnv(num_envs, opponents=..., seat=...)")
_ILLEGAL = ("MahjongVectorEnv always refuses an illegal action (ActionError, nothing changed); the penalty is an "
            "option of mj_env.env() and of the single-agent envs")
NOT_VECTOR_ARGUMENTS = {"num_tables": "the number of tables is num_envs", "opponents": _ONE_SEAT, "seat": _ONE_SEAT,
                        "illegal_action": _ILLEGAL, "illegal_penalty": _ILLEGAL}
"""Arguments of the other environments, refused by name (not as unknown rule fields)."""


# (render gives text, Gymnasium's VectorEnv types it as a tuple of frames)
class MahjongVectorEnv(TablesEnvBasics, VectorEnv):  # pyright: ignore[reportIncompatibleMethodOverride]
    """N tables stepped together; one decision per table per step (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(self, num_envs: int = 64, rules: RulesSpec = "beijing", seed=None,
                 render_mode: str | None = None, autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                 obs: str = "v1", records: bool = False, **overrides):
        refuse_arguments(overrides, NOT_VECTOR_ARGUMENTS)
        mode = self._checked_setup(num_envs, autoreset_mode)
        self.obs_layout = obs_layout(obs)
        if not isinstance(records, (bool, np.bool_)):
            raise TypeError(f"records must be True or False, not {brief(records)}")
        self.metadata = {**copy.deepcopy(self.metadata), "autoreset_mode": mode}  # its own (render_modes too)
        self._next_step = mode == AutoresetMode.NEXT_STEP
        self.engine = Engine(rules, num_tables=num_envs, seed=seed, **overrides)
        self.num_envs = int(num_envs)
        if records and self.engine.rules.hands_per_episode != 1:
            raise ValueError("records=True: a hand record holds one hand, and these rules play matches of "
                             f"{self.engine.rules.hands_per_episode} hands (hands_per_episode)")
        self._log = HandLog(self.engine.rules, self.num_envs) if records else None
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.observation_layout = OBS_LAYOUTS[self.obs_layout][0]
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0, 255, (OBS_LAYOUTS[self.obs_layout][1], N_KINDS), dtype=np.uint8),
            "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), dtype=np.int8),
            "seat": spaces.Discrete(4),
        })
        self.single_action_space = spaces.Discrete(A.N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.instant_hands = 0  # deals that ended before any decision (四惠牌 at the deal), redealt
        self.pending_rewards = np.zeros((self.num_envs, 4), dtype=np.int64)
        self._over = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: ended, dealt anew on the next step
        self.closed = False
        self._started = False
        self._seeded(seed)

    def _redeal_instant(self, res) -> None:
        """Deal again at tables whose new hand ended at the deal itself (四惠牌 on the dealer's
        first turn, quemen flowers emptying the wall); their points wait in ``pending_rewards``
        and are paid with the next step's rewards, so that every hand's points reach the seats."""
        while True:
            self.pending_rewards += res.rewards
            ended = np.flatnonzero((self.engine.state.phase == END) & ~self._over)  # not NEXT_STEP's
            if not len(ended):
                return
            self.instant_hands += len(ended)
            res = self.engine.reset(tables=ended)

    def _deal_again(self, tables: np.ndarray) -> None:
        """Autoreset: deal ``tables`` anew (again where a deal ends at once), their hand records begun."""
        self._redeal_instant(self.engine.reset(tables=tables))
        if self._log is not None:
            self._log.dealt(self.engine.state, tables)

    def _obs(self) -> dict:
        engine = self.engine
        rules, st = engine.rules, engine.state  # (what the rules descriptor reads)
        # fresh arrays every step (callers may keep them); the bool mask is reinterpreted as int8
        if self.num_envs == 1:  # the one-table path (benchmarks/fast_paths.py: +20-28% on observing)
            obs = _observe_one(rules, st, 0, int(st.to_act[0]))[None]  # (table 0, the engine's seat 0-3: unchecked)
        else:
            obs = observe(rules, st, out=np.empty((self.num_envs, N_PLANES, N_KINDS), dtype=np.uint8))
        mask = engine._mask.view(np.int8).copy()  # (legal_mask()'s read-only view, read at once)
        if self._next_step and self._over.any():  # NEXT_STEP: an ended table's only "action" is pass, and it is ignored
            mask[self._over] = 0
            mask[self._over, A.PASS] = 1
        return {"observation": obs if self.obs_layout == "v1" else in_layout(self.obs_layout, rules, obs, mask),
                "action_mask": mask, "seat": st.to_act.astype(np.int64)}

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """``metadata["autoreset_mode"]`` (TorchRL's ``GymWrapper`` reads this attribute)."""
        return self.metadata["autoreset_mode"]

    def reset(self, *, seed=None, options=None):
        """Deal every table anew. options: {"walls": (n, W) tile codes/indices, "dealers": (n,),
        "reset_mask": (N,) bool (only those n tables)}. The first reset must deal every table: a mask that leaves
        one out there is a ValueError."""
        self._check_open()
        options = checked_reset_options(options, ("walls", "dealers", "reset_mask"))
        tables = None
        if options.get("reset_mask") is not None:
            tables = self._masked_tables(options["reset_mask"])
        res = self.engine.reset(seed=seed, walls=options.get("walls"), dealers=options.get("dealers"),
                                tables=tables)
        if tables is None:
            self.pending_rewards[:] = 0
            self._over[:] = False
        else:
            self.pending_rewards[tables] = 0
            self._over[tables] = False
        self._redeal_instant(res)
        if self._log is not None:
            self._log.dealt(self.engine.state, tables)
        self._started = True
        self._seeded(seed)
        return self._shown((self._obs(), {}))

    def step(self, actions):
        """One decision at every table: ``actions`` is an integer array of shape (N,).

        Returns obs, rewards (N, 4) float64, terminations, truncations, infos."""
        self._check_open()
        if not self._started:
            raise A.ActionError("step() before reset(): call reset() first")
        seats = self.engine.state.to_act.copy() if self._log is not None else None
        res = self.engine.step(actions)           # checks shape (N,), integer dtype, legality
        done = res.episode_over                   # (ended tables are ignored: NEXT_STEP)
        infos_records = None
        if self._log is not None and seats is not None:  # (seats are read exactly when a log is kept)
            self._log.decided(seats, np.asarray(actions), np.flatnonzero(~self._over) if self._next_step else None)
            infos_records = np.full(self.num_envs, None, dtype=object)
            for b in np.flatnonzero(done):
                infos_records[b] = self._log.record(b, res.settlements.get(b))
        settlement = np.full(self.num_envs, None, dtype=object)
        hand_over = res.hand_over.copy()
        if hand_over.any():
            for b, obj in res.settlements.items():
                settlement[b] = obj
        infos = {"settlement": settlement, "_settlement": hand_over}
        if infos_records is not None:  # (a log is kept)
            infos.update({"hand_record": infos_records, "_hand_record": done.copy()})
        several = res.settlements.several()
        if several:  # a match's next hand ended at its deal in this step: the hands before it
            earlier = np.full(self.num_envs, None, dtype=object)
            for table in several:
                earlier[table] = res.settlements.every(table)[:-1]
            infos.update({"earlier_settlements": earlier, "_earlier_settlements": np.isin(np.arange(self.num_envs), several)})
        rewards = res.rewards
        if self.pending_rewards.any():  # rare: hands ended at a deal are paid with the table's next real step
            pay = np.flatnonzero(~self._over & self.pending_rewards.any(axis=1))
            rewards[pay] += self.pending_rewards[pay]
            paid = np.zeros(self.num_envs, dtype=bool)
            paid[pay] = True
            deal_points = np.zeros((self.num_envs, 4))
            deal_points[pay] = self.pending_rewards[pay]
            infos.update({"deal_points": deal_points, "_deal_points": paid})
            self.pending_rewards[pay] = 0
        if self._next_step:
            restart = np.flatnonzero(self._over)
            self._over = done.copy()
            if len(restart):
                self._deal_again(restart)
        elif done.any():
            self._deal_again(np.flatnonzero(done))
        return self._shown((self._obs(), rewards.astype(np.float64), done.copy(),
                            np.zeros(self.num_envs, dtype=bool), infos))

