"""The learner plays one seat against opponent agents: a single-agent Gymnasium environment,
natively batched.

::

    import gymnasium as gym
    import mj_env                                    # registers the ids below

    env = gym.make("mj_env/Beijing-v0", opponents="rule")              # one table, gym.Env
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                        opponents="rule")                              # 1024 tables, one VectorEnv
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # rewards (1024,)

Every ``step`` takes the learner's decision at every table; the opponents then act, in batch,
inside the step, until the learner decides again at every table (or its episode ended). Ids:
``mj_env/Beijing-v0``, ``mj_env/Hebei-v0``, ``mj_env/Quemen-v0`` (one per rule set; any rule
field can be overridden as a keyword, e.g. ``base=500``).

| | |
| --- | --- |
| Observation | ``{"observation": Box(0, 255, (14, 34), uint8), "action_mask": Box(0, 1, (127,), int8)}``: ``mj_obs_v1`` planes of the learner's seat (``mj_env.observation``); with ``obs="v2"`` (18, 34): ``mj_obs_v2``, those planes and four the rules core computes (tiles still needed after each discard and claim, and the unseen tiles that would then improve the hand: ``mj_env.features``) |
| Action | ``Discrete(127)`` (``mj_env.actions``); ``action_masks()`` gives the legal ones (bool) for SB3's ``MaskablePPO`` |
| Reward | the learner's settled points when a hand ends (float; exact), else 0; the points of a hand the learner never decided in (redealt, below) come with the next episode's first reward |
| Episode | one hand (or a match of ``hands_per_episode`` hands); truncated only after ``max_episode_steps`` |

## Arguments

- ``opponents``: ``"rule"`` (default), ``"random"``, ``"efficient"``, ``"pretrained"`` (the player shipped for the rule
  set, ``agents.pretrained``; needs torch and the package installed), or any object with the batched agent protocol
  (``name`` and ``act(obs, rng) -> (n,) int64`` legal actions, see ``mj_env.baselines``), e.g.
  a trained checkpoint ``agents.make_agent("runs/x/checkpoints/final.pt")``; or a list of three
  such specs for the seats after the learner's (next, opposite, previous). Opponents see the
  ``mj_obs_v1`` observations of their seat (``"seat"`` included), whatever ``obs`` is. An opponent that raises
  or answers an illegal action fails the whole ``step`` or ``reset``, which then changes nothing:
  the error names the opponent and the table, and the learner's action was not played. A name is built for the
  env's rules; an object whose ``rules`` names another rule set (``RuleBasedAgent()`` is beijing's) is played
  as it is, with a ``RulesMismatchWarning`` (``mj_env.baselines.warn_rules_mismatch``).
- ``obs``: the observation layout, ``"v1"`` (default) or ``"v2"`` (above; ``observation_layout`` names it).
  Network opponents of the v2 layout compute their extra planes from the v1 ones.
- ``seat``: the learner's seat, ``0``-``3``; ``"rotate"`` (table i starts at seat i % 4 and moves
  on one seat each episode); or ``"random"`` (drawn every episode). Under ``beijing`` East (seat 0) deals
  the first hand (docs/RULES.md 2), so with one-hand episodes ``seat=0`` is the dealer in every hand
  (``hebei`` and ``quemen`` draw the dealer); a player for every seat trains with ``"random"`` or ``"rotate"``.
- ``illegal_action``: ``"penalize"`` (default here, since Gymnasium's contract is that every
  element of the action space may be stepped: ``check_env`` and unmasked samplers do) ends the
  episode with ``-illegal_penalty`` for the learner (an integer outside the action space, 0-126, is
  refused with ``ActionError`` and changes nothing, in either mode, except at a ``NEXT_STEP`` table whose
  episode ended, where the action is ignored); ``"raise"`` raises ``ActionError`` and
  changes nothing, as ``mj_env.env`` does by default.
- ``max_episode_steps`` (vector form): ``None`` (default) or the learner's steps after which an
  episode is truncated (its hand abandoned, unsettled). ``gym.make_vec(id, max_episode_steps=N)``
  passes it here; the single-table form gets Gymnasium's ``TimeLimit`` from ``gym.make`` instead (which cuts
  the episode outside the env; in either form a truncated episode's last infos have no hand keys, the hand
  being abandoned unsettled).
- ``autoreset_mode`` (vector form): ``NEXT_STEP`` (default, what Gymnasium's wrappers expect) or
  ``SAME_STEP`` (``infos["final_obs"]`` / ``infos["_final_obs"]``, and ``infos["final_info"]``: the
  ended step's infos as a dict of arrays, ``scores``, ``win``, ``illegal_action``... included; at the top
  level an ended table shows its new episode's reset infos, its ``seat`` and any ``redealt``, as Gymnasium's
  ``SyncVectorEnv`` does). With ``NEXT_STEP`` the row of
  a table whose episode ended holds the learner's final observation; the next action there is ignored
  and the table is dealt anew. Where the hand ended (nothing is legal any more) its mask allows only
  ``pass``, so that masked samplers keep working; a truncated episode's final observation keeps its
  real mask (its hand stopped in the middle, where a value estimate is taken). ``final_obs`` alike.

## Infos (vector form; dicts of arrays with ``_key`` masks)

| key | shape, dtype | meaning |
| --- | --- | --- |
| ``seat`` | (N,) int64 | the learner's seat at each table |
| ``scores`` | (N, 4) float64 | settled points of every seat (in seat order: the learner's are ``scores[i, seat[i]]``), where a hand ended in this step, zeros where an illegal action was penalized (so that every terminated episode has these keys; a truncated one, its hand abandoned unsettled, has none) |
| ``win``, ``deal_in``, ``draw`` | (N,) bool | the learner won / discarded the winning tile / the hand was drawn |
| ``fan`` | (N,) int64 | the learner's fan when it won (0 otherwise) |
| ``illegal_action`` | (N,) bool | the learner's action was illegal and penalized (only when one was) |
| ``redealt`` | (N,) int64 | hands that ended before the learner's first decision and were dealt again (only when one was) |

All are numeric so that ``DictInfoToList`` and ``NumpyToTorch`` take them; the full settlement
objects (docs/INTERFACES.md 2) of the last step are in ``env.last_settlements`` (table -> object).
Where one step spans several hands of a match (a hand ends, and the next ends before the learner
decides again), ``scores`` is their sum, ``win``, ``deal_in`` and ``fan`` speak of any of them (``fan``:
the learner's last win), ``draw`` and ``last_settlements`` of the last.
A hand that ends before the learner's first decision in it (四惠牌 at the deal, or an opponent's
win before the learner has acted) is not an episode: the table is dealt again (from a freshly
shuffled wall, also where ``reset`` was given one), the learner's points from it (in the seat it
had there) are paid with the table's next reward, and ``redealt`` (N,) int64 counts such hands in
the step or reset that dealt again (present only then). In a match (``hands_per_episode`` > 1) such
a hand is one of the match's: the next hand follows as usual, and its points come with the next reward. The single-table ``MahjongSingleAgentEnv`` gives the same keys for its
one table, and its settlement as ``env.last_settlement``.
"""
from __future__ import annotations

import copy
import sys
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import actions as A
from .baselines import Opponents, agent_actions, make_named_agent, warn_rules_mismatch
from .engine import Engine, EngineRules
from .features import OBS_LAYOUTS, in_layout, obs_layout
from .messages import brief, refuse_arguments
from .observation import N_PLANES, observe
from .render import check_render_mode, warn_no_render_mode
from .rules import RulesSpec
from .state import END
from .tiles import N_KINDS
from .vector import TablesEnvBasics, checked_reset_options

INFO_KEYS = ("scores", "win", "deal_in", "draw", "fan")


def single_observation_space(obs: str = "v1") -> spaces.Dict:
    return spaces.Dict({
        "observation": spaces.Box(0, 255, (OBS_LAYOUTS[obs][1], N_KINDS), dtype=np.uint8),
        "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), dtype=np.int8),
    })


def _opponent(spec, rules):
    if isinstance(spec, str):
        try:
            return make_named_agent(spec, rules)
        except ValueError as e:
            raise ValueError(f"opponent: {e}; or pass an agent object (e.g. "
                             f"agents.make_agent('path/to/checkpoint.pt', rules={rules.name!r}))") from None
    if not callable(getattr(spec, "act", None)):
        raise TypeError(f"opponent {brief(spec)} has no act(obs, rng) method")
    warn_rules_mismatch(spec, rules, "an opponent", "env", f"build it for {rules.name} (e.g. RuleBasedAgent({rules.name!r}), "
                        f"or for a checkpoint agents.make_agent(path, rules={rules.name!r})), or give a name such as "
                        "'rule' or 'pretrained'", library=tuple(filter(None, map(sys.modules.get, _WRAPPERS))))
    return spec


_WRAPPERS = ("gymnasium", "stable_baselines3", "sb3_contrib")
"""The packages whose frames an opponent's RulesMismatchWarning passes over to name the user's line: Gymnasium's
vectors and wrappers (``call("set_opponents", ...)``, ``gym.make``), and SB3's (``env_method``, ``set_attr`` through
``VecMonitor`` or ``DummyVecEnv``), each when it is loaded (this module never imports SB3)."""


def checked_seat(seat):
    """The ``seat`` argument: 0-3, "rotate" or "random", or a ValueError."""
    if not (seat in ("rotate", "random") if isinstance(seat, str) else
            isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)) and 0 <= seat <= 3):
        raise ValueError(f"seat must be 0-3, 'rotate' or 'random', got {brief(seat)}")
    return seat if isinstance(seat, str) else int(seat)


def _players_rng(seed) -> np.random.Generator:
    """The opponents' and seats' generator of a seed (None: unseeded): a stream of its own, apart from the
    engine's ``default_rng(seed)``, whose numbers shuffle the walls."""
    return np.random.default_rng(None if seed is None else [int(seed), 1])


NO_RECORDS = ("the single-agent envs keep no hand records; MahjongVectorEnv(num_envs, records=True) gives each ended "
              "hand's record (all four seats decided by the caller), and python -m agents.arena --record PATH writes "
              "the hands agents play")
"""``records``, refused by name (it is ``MahjongVectorEnv``'s argument, not a rule field)."""


# (render gives text, Gymnasium's VectorEnv types it as a tuple of frames)
class MahjongSingleAgentVectorEnv(A.IllegalPolicySettings, TablesEnvBasics, VectorEnv):  # pyright: ignore[reportIncompatibleMethodOverride]
    """N tables; the learner plays one seat at each, the opponents act inside ``step``
    (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(self, num_envs: int = 64, rules: RulesSpec = "beijing", opponents: Opponents = "rule",
                 seat: int | np.integer | str = 0, seed=None, render_mode: str | None = None,
                 illegal_action: str = "penalize", illegal_penalty: float = 10.0,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 max_episode_steps: int | np.integer | None = None, obs: str = "v1", **overrides):
        refuse_arguments(overrides, {"num_tables": "the number of tables is num_envs", "records": NO_RECORDS})
        mode = self._checked_setup(num_envs, autoreset_mode)
        self.obs_layout = obs_layout(obs)
        self.max_episode_steps = max_episode_steps  # (checked by its setter)
        self.engine = Engine(rules, num_tables=num_envs, seed=seed, **overrides)
        self.num_envs = n = int(num_envs)
        check_render_mode(render_mode, any_mode=True)
        self.render_mode = render_mode
        self._set_illegal_policy(illegal_action, illegal_penalty)
        self.metadata = {**copy.deepcopy(self.metadata), "autoreset_mode": mode}  # its own (render_modes too)
        self.set_opponents(opponents)
        self.seat_mode = checked_seat(seat)
        self.observation_layout = OBS_LAYOUTS[self.obs_layout][0]
        self.single_observation_space = single_observation_space(self.obs_layout)
        self.single_action_space = spaces.Discrete(A.N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.rng = _players_rng(seed)  # opponents' and seat draws, as reset(seed=...) gives them
        self.seats = np.zeros(n, dtype=np.int64)
        self._episodes = np.zeros(n, dtype=np.int64)  # episodes started per table ("rotate")
        self._steps = np.zeros(n, dtype=np.int64)     # the learner's steps in the current episode
        self._pending = np.zeros(n, dtype=np.int64)      # the learner's points of hands it never decided in
        self._redealt = np.zeros(n, dtype=np.int64)   # hands dealt again in this call (infos["redealt"])
        self._over = np.zeros(n, dtype=bool)          # NEXT_STEP: ended, dealt anew on the next step
        self._new_hand_info()                         # this call's hand outcomes (infos) and settlements
        self.closed = False
        self._started = False
        self._seeded(seed)

    def set_opponents(self, opponents: Opponents) -> None:
        """Play the opponents' seats with ``opponents`` from the next decision on, as the constructor takes them:
        one spec (an agent name or an agent object, e.g. ``agents.make_agent(checkpoint_path)``) for all three
        seats, or three (next, opposite, previous seat). Checked before anything changes; the hands in play go on."""
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != 3:
                raise ValueError(f"opponents: one spec or three (next, opposite, previous seat), got {len(opponents)}")
            self._opponents = tuple(_opponent(s, self.rules) for s in opponents)
        else:
            self._opponents = (_opponent(opponents, self.rules),) * 3  # one object: one act() per round

    @property
    def opponents(self) -> tuple:
        """The three opponent agents (next, opposite, previous seat). Assigning to it is ``set_opponents``: what
        Gymnasium's and SB3's ``set_attr("opponents", ...)`` do, checked before anything changes."""
        return self._opponents

    @opponents.setter
    def opponents(self, opponents: Opponents) -> None:
        self.set_opponents(opponents)

    @property
    def seat_mode(self):
        """The constructor's ``seat`` (0-3, "rotate" or "random"): where the learner sits in the episodes dealt from
        now on (``seats`` holds each table's seat of the hand in play). Assigning to it is checked as the constructor
        checks it (a bad value used to be taken and fail at a later reset)."""
        return self._seat_mode

    @seat_mode.setter
    def seat_mode(self, seat) -> None:
        self._seat_mode = checked_seat(seat)

    @property
    def max_episode_steps(self) -> int | None:
        """The constructor's ``max_episode_steps`` (None or an integer >= 1). Assigning to it is checked as the
        constructor checks it (a bad value used to be taken and fail, or truncate every step, at the next step)."""
        return self._max_episode_steps

    @max_episode_steps.setter
    def max_episode_steps(self, steps) -> None:
        if steps is not None and (isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer))
                                  or steps < 1):
            raise ValueError(f"max_episode_steps must be None or an integer >= 1, got {brief(steps)}")
        self._max_episode_steps = None if steps is None else int(steps)

    seat = seat_mode  # the constructor's name for it, as on the one-table env (``envs.seat = "random"`` used to set
    # a plain attribute that the game never read; ``seats`` holds each table's seat of the hand in play)

    # ------------------------------------------------------------------ dealing and opponents
    def _deal(self, tables, seed=None, walls=None, dealers=None, redeal: bool = False) -> None:
        """Start episodes at ``tables`` and choose the learner's seat there. ``redeal``: the hand before
        ended before the learner decided, so it was no episode and "rotate" keeps the seat it gave."""
        if redeal:
            self._episodes[tables] -= 1
        if self.seat_mode == "rotate":
            self.seats[tables] = (tables + self._episodes[tables]) % 4
        elif self.seat_mode == "random":
            self.seats[tables] = self.rng.integers(0, 4, size=len(tables))
        else:
            self.seats[tables] = self.seat_mode
        self._episodes[tables] += 1
        self._steps[tables] = 0
        self._over[tables] = False
        res = self.engine.reset(seed=seed, walls=walls, dealers=dealers, tables=tables)
        # a hand ended at the deal: _advance deals again; the learner's points, in the seat it had there
        self._pending[tables] += res.rewards[tables, self.seats[tables]]

    def _advance(self, tables, acc, fresh) -> np.ndarray:
        """Let the opponents act at ``tables`` until the learner decides at each of them.

        The hands' points go to ``acc`` (N, 4), and the tables whose episode ended are returned;
        at ``fresh`` tables (just dealt, the learner has not decided yet) an episode that ends is
        not the learner's: its points wait in ``_pending`` and the table is dealt again."""
        st = self.engine.state
        tables = np.asarray(tables, dtype=np.int64)
        fresh = np.asarray(fresh, dtype=np.int64)
        ended = []
        while len(tables):
            instant = fresh[st.phase[fresh] == END]  # the deal itself ended the hand (四惠牌)
            if len(instant):
                self._redealt[instant] += 1
                self._deal(instant, redeal=True)
                continue
            wait = tables[st.to_act[tables] != self.seats[tables]]
            if not len(wait):
                break
            res = self._step_some(wait, self._opponent_actions(wait))
            is_fresh = np.zeros(self.num_envs, dtype=bool)
            is_fresh[fresh] = True
            self._pending[fresh] += res.rewards[fresh, self.seats[fresh]]  # before a redeal moves the seat
            acc[~is_fresh] += res.rewards[~is_fresh]
            self._settled(res, ~is_fresh)
            done = np.flatnonzero(res.episode_over & ~is_fresh)
            if len(done):
                ended.append(done)
                tables = np.setdiff1d(tables, done, assume_unique=True)
            redeal = np.flatnonzero(res.episode_over & is_fresh)
            if len(redeal):
                self._redealt[redeal] += 1
                self._deal(redeal, redeal=True)
        return np.concatenate(ended) if ended else np.zeros(0, dtype=np.int64)

    def _opponent_actions(self, idx) -> np.ndarray:
        st = self.engine.state
        to_act = st.to_act[idx].astype(np.int64)
        legal = self.engine.legal_mask()[idx]
        obs = {"observation": observe(self.rules, st, idx), "seat": to_act, "action_mask": legal.view(np.int8)}
        rel = (to_act - self.seats[idx]) % 4
        out = np.empty(len(idx), dtype=np.int64)
        groups = [(self._opponents[0], np.ones(len(idx), bool))] if len(set(map(id, self._opponents))) == 1 \
            else [(self._opponents[k - 1], rel == k) for k in (1, 2, 3)]
        for agent, sel in groups:
            if sel.any():
                sub = {k: v[sel] for k, v in obs.items()}  # copies: what an opponent does to them stays there
                out[sel] = agent_actions(agent, agent.act, (sub, self.rng), legal[sel], idx[sel],
                                         self.engine.explain_illegal, role="opponent")
        return out

    def _step_some(self, idx, acts):
        """Engine step at ``idx`` only: the other live tables wait on the learner."""
        full = np.zeros(self.num_envs, dtype=np.int64)
        full[idx] = acts
        return self.engine.step(full, tables=idx)

    def _settled(self, res, keep) -> None:
        """Record the settlements of the learner's hands that ended (tables where ``keep``)."""
        settlements = res.settlements
        for b, last in settlements.items():
            if not keep[b]:
                continue
            self.last_settlements[b] = last
            seat = self.seats[b]
            info = self._hand_info
            info["_scores"][b] = True
            for s in settlements.every(b):   # more than one where a match's next hand ended at its deal
                info["scores"][b] += s["scores"]
                wins = [] if s.get("draw") else s.get("wins", [s])
                info["draw"][b] = not wins
                for w in wins:
                    if w["input"]["winner"] == seat:
                        info["win"][b] = True
                        info["fan"][b] = w["fan"]
                    if w["input"].get("discarder") == seat:
                        info["deal_in"][b] = True

    def _new_hand_info(self) -> None:
        n = self.num_envs
        self._hand_info = {"scores": np.zeros((n, 4)), "_scores": np.zeros(n, dtype=bool),
                           "win": np.zeros(n, dtype=bool), "deal_in": np.zeros(n, dtype=bool),
                           "draw": np.zeros(n, dtype=bool), "fan": np.zeros(n, dtype=np.int64)}
        self.last_settlements: dict[int, dict] = {}

    def _infos(self, extra=None) -> dict:
        n = self.num_envs
        infos: dict[str, object] = {"seat": self.seats.copy(), "_seat": np.ones(n, dtype=bool)}
        hand = self._hand_info
        if hand["_scores"].any():
            for k in INFO_KEYS:
                infos[k] = hand[k]
                infos["_" + k] = hand["_scores"].copy()
        if self._redealt.any():
            infos["redealt"] = self._redealt.copy()
            infos["_redealt"] = self._redealt > 0
        infos.update(extra or {})
        return infos

    # ------------------------------------------------------------------ observations
    def _obs(self, over) -> dict:
        st = self.engine.state
        obs = observe(self.rules, st, np.arange(self.num_envs), self.seats,
                      out=np.empty((self.num_envs, N_PLANES, N_KINDS), dtype=np.uint8))
        mask = self.engine.legal_mask().view(np.int8).copy()
        ended = over & (st.phase == END)  # the hand is over (or abandoned for an illegal action): only `pass`,
        if ended.any():                   # ignored under NEXT_STEP; a truncated hand keeps its real mask
            mask[ended] = 0
            mask[ended, A.PASS] = 1
        return {"observation": in_layout(self.obs_layout, self.rules, obs, mask), "action_mask": mask}

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """``metadata["autoreset_mode"]`` (TorchRL's ``GymWrapper`` reads this attribute)."""
        return self.metadata["autoreset_mode"]

    def action_masks(self) -> np.ndarray:
        """(N, 127) bool: the learner's legal actions (``MaskablePPO``'s hook)."""
        self._check_open()
        if not self._started:
            raise A.ActionError("action_masks() before reset(): call reset() first")
        return self._last_mask.astype(bool)

    # ------------------------------------------------------------------ all or nothing
    _BOOKKEEPING = ("seats", "_episodes", "_steps", "_pending", "_redealt", "_over")

    def _undoable(self, run, *args):
        """``run(*args)``; when it raises (an opponent's exception or illegal action, an interrupt), the engine
        and this env's bookkeeping are put back as they were before the error is passed on, so that a failed
        ``step`` or ``reset`` changes nothing and the learner's next action is not played in an opponent's seat
        (docs/RULES.md 7). The opponents' own state, if they keep any, is theirs to mind. The copy costs about
        1.2 KB and 0.1 us per table each call (0.1 ms at 1,024 tables, against a step of tens of ms)."""
        saved = (self.engine._save(), {k: getattr(self, k).copy() for k in self._BOOKKEEPING}, self.rng,
                 copy.deepcopy(self.rng.bit_generator.state), self.last_settlements, self._hand_info,
                 self._started, getattr(self, "_last_mask", None))
        try:
            return run(*args)
        except BaseException:
            engine, book, self.rng, rng_state, self.last_settlements, self._hand_info, self._started, mask = saved
            self.engine._load(engine)
            for k, v in book.items():
                getattr(self, k)[...] = v
            self.rng.bit_generator.state = rng_state
            if mask is not None:
                self._last_mask = mask
            raise

    # ------------------------------------------------------------------ the Gymnasium API
    def reset(self, *, seed=None, options=None):
        """Deal anew. options: {"reset_mask": (N,) bool} (only those tables; NEXT_STEP's partial
        reset), "walls": (n, W) tile codes/indices and "dealers": (n,) seats for the tables dealt.
        A seed starts ``seat="rotate"`` over, so that a seeded reset repeats its episode; one whose mask deals
        no table still seeds the walls dealt after it, as ``MahjongVectorEnv.reset`` does. The first reset must deal
        every table: a mask that leaves one out there is a ValueError."""
        return self._reset(seed, options, restart_seats=seed is not None)

    def _reset(self, seed, options, restart_seats: bool):
        """``reset``; ``restart_seats``: "rotate" starts over (the one-table env passes a seed of its own
        drawing at every reset, and starts the seats over only when its caller gave one)."""
        self._check_open()
        options, tables = self._checked_reset(seed, options)
        result = self._undoable(self._reset_checked, seed, options, tables, restart_seats)
        self._seeded(seed)
        return self._shown(result)

    def _checked_reset(self, seed, options) -> tuple[dict, np.ndarray]:
        """``reset``'s options as a dict and the tables it deals, or the ValueError ``reset`` gives: the options,
        seed, walls and dealers are checked before anything here or in the engine changes (``mj_env.sb3``'s
        ``set_options`` checks options with it)."""
        options = checked_reset_options(options, ("reset_mask", "walls", "dealers"))
        tables = np.arange(self.num_envs)
        if options.get("reset_mask") is not None:
            tables = self._masked_tables(options["reset_mask"])
        self.engine.check_reset(seed, options.get("walls"), options.get("dealers"), tables)
        return options, tables

    def _reset_checked(self, seed, options: dict, tables: np.ndarray, restart_seats: bool):
        if seed is not None:
            self.rng = _players_rng(seed)
        if restart_seats:
            self._episodes[tables] = 0  # "rotate": as in a new env
        self._redealt[:] = 0
        self._new_hand_info()
        # also with no table marked: the seed still seeds the walls dealt later, as in MahjongVectorEnv.reset
        self._pending[tables] = 0
        self._deal(tables, seed=seed, walls=options.get("walls"), dealers=options.get("dealers"))
        self._advance(tables, np.zeros((self.num_envs, 4), dtype=np.int64), tables)
        self._started = True
        self._new_hand_info()
        obs = self._obs(self._over)
        self._last_mask = obs["action_mask"].copy()  # the caller may edit the observation it got
        return obs, self._infos()

    def step(self, actions):
        """The learner's action at every table, (N,) integers. Returns obs, rewards (N,) float64,
        terminations, truncations (only with ``max_episode_steps``), infos (see the module docstring)."""
        self._check_open()
        if not self._started:
            raise A.ActionError("step() before reset(): call reset() first")
        acts = A.action_batch(actions, self.num_envs)
        return self._shown(self._undoable(self._step_checked, acts))

    def _step_checked(self, acts: np.ndarray):
        n, rows = self.num_envs, np.arange(self.num_envs)
        st = self.engine.state
        restart = np.flatnonzero(self._over)   # NEXT_STEP: the action there is ignored
        live = ~self._over
        in_range = (acts >= 0) & (acts < A.N_ACTIONS)
        if not (in_range | ~live).all():  # outside the action space: refused, never played as a move (NEXT_STEP's
            b = int(np.flatnonzero(~in_range & live)[0])  # ended tables ignore theirs, whatever it is)
            raise A.ActionError(f"action {int(acts[b])} at table {b} is not in the action space "
                                f"Discrete({A.N_ACTIONS}): an integer in 0-{A.N_ACTIONS - 1}")
        legal = in_range & self.engine.legal_mask()[rows, np.where(in_range, acts, 0)]
        illegal = live & ~legal
        if illegal.any() and self.illegal_action == "raise":
            b = int(np.flatnonzero(illegal)[0])
            raise A.ActionError(self.engine.explain_illegal(b, int(acts[b])))
        self._new_hand_info()
        self._redealt[:] = 0
        rewards = np.zeros(n)
        rewards[live] = self._pending[live]  # points of hands that ended before the learner decided
        self._pending[live] = 0
        terminated = np.zeros(n, dtype=bool)
        extra = {}
        if illegal.any():
            bad = np.flatnonzero(illegal)
            st.phase[bad] = END  # the hand is abandoned: dealt anew when the episode restarts
            rewards[bad] -= self.illegal_penalty
            terminated[bad] = True
            # a terminated episode always carries the hand keys, which SB3's Monitor(info_keywords=("win",))
            # reads at its end: a penalized hand settles nothing, so zeros (after _new_hand_info above)
            self._hand_info["_scores"][bad] = True
            extra = {"illegal_action": illegal.copy(), "_illegal_action": illegal.copy()}
        acc = np.zeros((n, 4), dtype=np.int64)
        st.phase[restart] = END  # a truncated hand is abandoned (no settlement); dealt anew below
        res = self.engine.step(np.where(legal, acts, 0))  # ended and abandoned tables are ignored
        acc += res.rewards
        self._settled(res, live)
        ended = [np.flatnonzero(res.episode_over)]
        go_on = np.flatnonzero(live & ~illegal & ~res.episode_over)
        if len(restart):
            self._deal(restart)
        ended.append(self._advance(np.concatenate([go_on, restart]), acc, restart))
        terminated[np.concatenate(ended)] = True
        rewards += acc[rows, self.seats]
        self._steps[live] += 1
        truncated = np.zeros(n, dtype=bool)
        if self.max_episode_steps is not None:
            truncated = live & ~terminated & (self._steps >= self.max_episode_steps)
        finished = terminated | truncated
        if self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP and finished.any():
            done = np.flatnonzero(finished)
            # Gymnasium's SAME_STEP convention (its SyncVectorEnv): the ended step's infos, illegal_action
            # included, nested in final_info; at the top level those tables show their new episode's reset
            # infos (its seat, and hands redealt before the learner's first decision in it)
            final_info = self._only(self._infos(extra), finished)
            final = self._obs(finished)
            extra = {"final_obs": np.empty(n, dtype=object), "_final_obs": finished.copy(),
                     "final_info": final_info, "_final_info": finished.copy()}  # illegal_action: only there
            for b in done.tolist():
                extra["final_obs"][b] = {k: v[b] for k, v in final.items()}
            self._forget_hands(done)
            self._deal(done)
            self._advance(done, np.zeros((n, 4), dtype=np.int64), done)
            over = np.zeros(n, dtype=bool)
        else:
            self._over = finished
            over = self._over
        obs = self._obs(over)
        self._last_mask = obs["action_mask"].copy()  # the caller may edit the observation it got
        return obs, rewards, terminated, truncated, self._infos(extra)

    @staticmethod
    def _only(infos: dict, rows: np.ndarray) -> dict:
        """``infos`` of the tables where ``rows`` only, as Gymnasium nests an ended env's infos: every
        ``_key`` mask cut to them, the other tables' values zero, a key none of them has left out."""
        out = {}
        for k, v in infos.items():
            if k.startswith("_"):
                continue
            keep = infos["_" + k] & rows
            if keep.any():
                v = v.copy()
                v[~keep] = 0
                out[k], out["_" + k] = v, keep
        return out

    def _forget_hands(self, tables) -> None:
        """Clear the hand infos and redeal counts of ``tables`` (their episode ended; final_info holds copies)."""
        hand = self._hand_info
        for k in ("_scores", *INFO_KEYS):
            hand[k][tables] = 0
        self._redealt[tables] = 0



_ONE_TABLE = ("the one-table env plays one table; for N tables batched use gym.make_vec(id, num_envs=N, "
              "vectorization_mode=\"vector_entry_point\") or MahjongSingleAgentVectorEnv(N)")
NOT_ONE_TABLE_ARGUMENTS = {
    # gym.make(id, max_episode_steps=N) wraps TimeLimit instead
    "max_episode_steps": "the one-table env is cut by Gymnasium's TimeLimit, gym.make(id, max_episode_steps=N); the "
                         "vector form takes it itself",
    # make_vec(id, vectorization_mode="sync", autoreset_mode=...) lands here
    "autoreset_mode": "the one-table env has no autoreset (Gymnasium's vector env around it has); give it to "
                      "gym.make_vec(id, vectorization_mode=\"vector_entry_point\", ...) or to MahjongSingleAgentVectorEnv",
    # gym.make(id, num_envs=N) would fail deep inside with a TypeError
    "num_envs": _ONE_TABLE, "num_tables": _ONE_TABLE,
    # it used to be taken and ignored; seeding every env of make_vec alike is worse
    "seed": "a one-table env is seeded by reset(seed=N), Gymnasium's way (gym.make_vec's sync and async modes would "
            "give every env the same seed); the vector form takes seed=N",
    "records": NO_RECORDS,
}
"""Arguments of the vector form (and ``seed``, and ``records``, MahjongVectorEnv's), refused by name in this order (not as
unknown rule fields)."""


def _table_setting(name: str, doc: str) -> property:
    """A setting of the one-table env that is its inner batched env's, read and set there (checked there)."""
    return property(lambda self: getattr(self.venv, name), lambda self, value: setattr(self.venv, name, value),
                    doc=doc)


class MahjongSingleAgentEnv(gym.Env):
    """One table of ``MahjongSingleAgentVectorEnv`` as a plain ``gymnasium.Env`` (what
    ``gymnasium.make("mj_env/Beijing-v0")`` builds); the same arguments but ``num_envs``, ``seed``
    (``reset(seed=N)``), ``max_episode_steps`` (Gymnasium's ``TimeLimit``) and ``autoreset_mode``, infos for the
    one table. ``reset(seed=N)`` seeds Gymnasium's ``np_random``, which draws the table's own seed: the same N
    always deals the same wall here, but not the wall that ``reset(seed=N)`` of the AEC, vector and SB3 envs deals
    (those seed their engine with N itself)."""

    rules = EngineRules()  # the engine's rule set, read-only

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(self, rules: RulesSpec = "beijing", opponents: Opponents = "rule",
                 seat: int | np.integer | str = 0, render_mode: str | None = None,
                 illegal_action: str = "penalize", illegal_penalty: float = 10.0, obs: str = "v1",
                 **overrides):
        refuse_arguments(overrides, NOT_ONE_TABLE_ARGUMENTS)
        # this env's own copy of the class's metadata: Gymnasium's sync and async vector envs write their
        # autoreset_mode into their first env's, which was the class's dict, shared by every one-table env
        self.metadata = copy.deepcopy(self.metadata)
        self.venv = MahjongSingleAgentVectorEnv(1, rules=rules, opponents=opponents, seat=seat,
                                                render_mode=render_mode, illegal_action=illegal_action,
                                                illegal_penalty=illegal_penalty, obs=obs, **overrides)
        self.render_mode = render_mode
        self.observation_layout = self.venv.observation_layout
        self.observation_space = self.venv.single_observation_space
        self.action_space = self.venv.single_action_space
        self._done = True

    @staticmethod
    def _one(obs) -> dict:
        return {k: v[0] for k, v in obs.items()}

    @staticmethod
    def _one_info(infos) -> dict:
        return {k: (v[0].item() if v[0].ndim == 0 else v[0])
                for k, v in infos.items() if not k.startswith("_") and infos.get("_" + k, [True])[0]}

    def reset(self, *, seed=None, options=None):
        options = checked_reset_options(options, ("wall", "dealer"))
        # as in the AEC env, a None option is the default; a wall or dealer is checked before the
        # generator moves, so a refused reset leaves the hand in play as it was
        opts = {wrap: [options[key]] for key, wrap in (("wall", "walls"), ("dealer", "dealers"))
                if options.get(key) is not None} or None
        self._check_open()
        # the seed is checked as the vector envs check it (a ValueError naming it; Gymnasium's own check would
        # take True and refuse NumPy integers), a wall or dealer as the engine checks them
        self.venv.engine.check_reset(seed, (opts or {}).get("walls"), (opts or {}).get("dealers"), [0])
        seed = None if seed is None else int(seed)
        before = (self._np_random, self._np_random_seed,
                  None if self._np_random is None else copy.deepcopy(self._np_random.bit_generator.state))
        super().reset(seed=seed)
        inner = int(self.np_random.integers(2**62))
        try:
            obs, infos = self.venv._reset(inner, opts, restart_seats=seed is not None)
        except BaseException:  # an opponent failed: the table is as it was (_undoable), and so is this generator
            self._np_random, self._np_random_seed, state = before
            if self._np_random is not None and state is not None:  # (a state is kept exactly when a generator is)
                self._np_random.bit_generator.state = state
            raise
        self._done = False
        return self._one(obs), self._one_info(infos)

    def _check_open(self) -> None:
        if self.venv.closed:
            raise RuntimeError(f"this {type(self).__name__} is closed")

    def step(self, action):
        self._check_open()
        if self._done:
            raise A.ActionError("the episode is over (or not started): call reset() first")
        a = A.one_action(action)  # checked here: the vector form would name "table 0", which this user never made
        obs, rew, term, _, infos = self.venv.step(np.array([a], dtype=np.int64))
        self._done = bool(term[0])
        return self._one(obs), float(rew[0]), bool(term[0]), False, self._one_info(infos)

    def set_opponents(self, opponents: Opponents) -> None:
        """As the vector form's ``set_opponents``: the opponents from the next decision on, checked before anything
        changes; the hand in play goes on. Reached through Gymnasium's wrappers and vector envs by
        ``set_wrapper_attr``/``set_attr("opponents", ...)`` (the ``opponents`` property) or
        ``call("set_opponents", ...)``, through SB3's by ``env_method("set_opponents", ...)``."""
        self._check_open()
        self.venv.set_opponents(opponents)

    @property
    def opponents(self) -> tuple:
        """The three opponent agents (next, opposite, previous seat); assigning to it is ``set_opponents``."""
        return self.venv.opponents

    @opponents.setter
    def opponents(self, opponents: Opponents) -> None:
        self.set_opponents(opponents)

    seat_mode = _table_setting("seat_mode", """The constructor's ``seat`` (0-3, "rotate" or "random"; also readable and
        settable as ``seat``): where the learner sits from the next hand on (the seat of the hand in play is
        ``infos["seat"]``). Assigning to it is checked as the constructor checks it, so that Gymnasium's
        ``set_attr("seat", ...)`` on make_vec's sync and async modes reaches the game (it sets a name no layer has on
        the outermost wrapper, where the game never reads it); through SB3's vectors of one-table envs:
        ``env_method("set_wrapper_attr", "seat", ...)``.""")
    seat = seat_mode  # the constructor's name for it
    illegal_action = _table_setting("illegal_action", """The constructor's ``illegal_action`` ("penalize" or "raise");
        settable, checked, as ``seat_mode``.""")
    illegal_penalty = _table_setting("illegal_penalty", """The constructor's ``illegal_penalty`` (the learner gets minus
        it); settable, checked, as ``seat_mode``.""")

    @property
    def last_settlement(self) -> dict | None:
        """The settlement object (docs/INTERFACES.md 2) of the learner's hand that ended in the last ``step`` (the
        last of them where one step spanned several hands of a match), None where none did and after ``reset``: the
        vector form's ``last_settlements[0]``. A hand that ended before the learner's first decision (infos
        ``redealt``) was no episode of the learner's and shows none, whether in ``reset`` or in a ``step``. Through
        Gymnasium's wrappers: ``env.unwrapped.last_settlement`` or ``env.get_wrapper_attr("last_settlement")``."""
        return self.venv.last_settlements.get(0)

    def action_masks(self) -> np.ndarray:
        """(127,) bool: the learner's legal actions (``MaskablePPO``'s hook). Gymnasium's wrappers (what
        ``gym.make`` returns) do not pass it on: ``env.unwrapped.action_masks()`` or
        ``env.get_wrapper_attr("action_masks")()``."""
        self._check_open()
        return self.venv.action_masks()[0]

    def render(self):
        """The vector form's ``render`` of the one table; with no render mode, a warning and None, as Gymnasium's own
        envs (CartPole ...) give."""
        if self.render_mode is None:
            warn_no_render_mode("gym.make('mj_env/Beijing-v0', render_mode='ansi' or 'human')")
            return None
        return self.venv.render()

    def close(self):
        self.venv.close()

