"""Beijing mahjong (惠牌 wildcards), Hebei and 缺门 rules: a PettingZoo AEC environment.

::

    from mj_env import env
    e = env(rules="beijing", render_mode="ansi")
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

| | |
| --- | --- |
| Agents | ``player_0`` .. ``player_3``; seat 0 is East |
| Action space | ``Discrete(127)``, the same for every rule set (``mj_env.actions``) |
| Observation | ``{"observation": Box(0, 255, (14, 34), uint8), "action_mask": Box(0, 1, (127,), int8)}``; with ``obs="v2"`` (18, 34): ``mj_obs_v2`` (``mj_env.features``) |
| Rewards | settled points of the hand (zero-sum), given when the hand ends |
| Import | ``mj_env.env(rules="beijing", render_mode=None, **rule_overrides)`` |

## Actions

``mj_env.actions.name(i)`` / ``index(name)``::

    0-33     discard 1m .. discard 7z       own turn
    34-67    kong 1m .. kong 7z             concealed or added kong, own turn
    68       win                            self-draw, or on the discard / robbed kong
    69       pass                           decline a claim
    70       pong                           pong the discard
    71       kong                           exposed kong on the discard
    72-92    chi 123m .. chi 789s           chi forming that run (beijing)
    93-126   ting 1m .. ting 7z             报听 and discard (quemen)

Only the acting agent's mask has ones. By default an illegal action raises
``mj_env.actions.ActionError`` naming the action and why, and the game stays as it was; with
``illegal_action="penalize"`` the hand ends instead (in a match, ``hands_per_episode`` > 1, the whole
episode ends with it, as a PettingZoo classic game does) and the offender gets ``-illegal_penalty``
(the others 0; this breaks zero-sum, as in PettingZoo's classic environments), and the offender's
infos name the action: ``{"illegal_action": "discard 9p"}``. What is no action of the space (127, -1, 3.0,
True, "3", None while the agent is live) is an ``ActionError`` that changes nothing in either mode, as in
the single-agent envs.

## Observation

Seat-relative count planes, layout ``mj_obs_v1`` (``mj_env.observation``)::

    0 own hand | 1-4 melds of self, next, opposite, previous | 5-8 their rivers (unclaimed
    discards) | 9 indicator 惠坯 | 10 惠牌 | 11 tile being claimed | 12 tile drawn this turn |
    13 scalars: live wall, reserve, dealer, phase, 烧庄, 互包, kongs, 报听, flowers, claims ...

No other seat's concealed tiles and nothing of the wall order are in it.

## Rewards and info

When the hand ends every agent's reward is its settled points (docs/RULES.md 6, base applied) and
``infos[agent]["settlement"]`` holds the hand calculator's output for the win, with ``"input"``
the calculator input that reproduces it, or ``{"draw": true, "shaozhuang": S, "scores": [...]}``;
with several winners (hebei, or ``multiple_winners=True``) ``{"wins": [...], "scores": [...]}`` (beijing adds
``"shaozhuang"``: 烧庄 is paid once, docs/game_flow.md). Under rules with kong payments (hebei,
quemen), ``"scores"`` is the hand's total with them, ``"hand_scores"`` the calculator's scores and
``"kong_scores"`` the payments, zeros when no kong was paid (docs/RULES.md 6.4; a drawn hand shows them
where drawn hands pay kongs, quemen). With ``hands_per_episode`` > 1
an episode is a match: rewards come at the end of every hand and the episode ends after the last;
each agent's ``infos`` keep a hand's settlement until that agent next acts, so every seat reads every
hand's settlement through ``last()``, except where another hand ends before that seat is asked again:
its infos then hold the newer settlement (the rewards of both still add up in its cumulative reward). The
same holds when a match's next hand ends at its deal (四惠牌) in the step that ended a hand: the
settlement shown is the later hand's, the rewards hold both, and ``infos[agent]["earlier_settlements"]``
(only then) lists the settlements before it, in order. Each agent's settlement is its own copy: editing
it changes neither another agent's nor the hand record's.

``close()`` marks the env closed: every later ``reset``, ``step``, ``observe``, ``last``, ``state`` or
``render`` (in a render mode) is a RuntimeError, as in the Gymnasium envs; ``hand_record()`` still reads the
last hand.

## State (centralized critics)

``state()`` is the full table as ``state_space``, ``Box(0, 255, (4, 14, 34), uint8)``: the
``mj_obs_v1`` planes of seats 0, 1, 2, 3 in that (absolute) order, so it holds every concealed
hand; it leaves out only the order of the wall.

## Reset options

``reset(seed=None, options={"wall": [136 or 144 tile codes], "dealer": seat})``: an explicit wall
in dealing order (docs/RULES.md 3) and the first dealer; both optional. Other keys are ignored (PettingZoo's
``api_test`` passes one of its own), except these two in another case, as plurals or with one typing slip
past the first letter (``"walls"``, ``"Dealer"``, ``"dealr"``, ``"wlal"``), and ``"rules"`` or a rule field
(``"base"``, ...): the rule set is fixed when the env is made, so those are refused.

## Hand records

``env.unwrapped.hand_record()``: the hand so far as a ``mj_env.records`` record (rules, wall, dealer,
every decision, the settlement once it has ended), which ``mj_env.records.replay`` plays again exactly
(single hands: not under ``hands_per_episode`` > 1).

## Version history

- v0: first release (observation layout mj_obs_v1).
"""
from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import actions as A
from .engine import Engine, EngineRules
from .features import OBS_LAYOUTS, in_layout, obs_layout
from .messages import brief, refuse_arguments
from .observation import N_PLANES
from .observation import _observe_one as observe_one  # unchecked: the env passes table 0 and a seat 0-3
from .records import RecordError, hand_record
from .render import check_render_mode, print_table, render_table, settlement_text, warn_no_render_mode
from .rules import RulesSpec
from .state import END
from .tiles import N_KINDS

AGENTS = [f"player_{i}" for i in range(4)]
RESET_OPTIONS = ("wall", "dealer")
_ONE_TABLE = ("the AEC environment plays one table; for many at once use "
              "mj_env.vector.MahjongVectorEnv(num_envs=...)")
_ALL_SEATS = ("the AEC environment has an agent at every seat (player_0 ... player_3); for one seat against "
              "opponent agents use gymnasium.make('mj_env/Beijing-v0', opponents=..., seat=...)")
_RECORDS = ("records=True is MahjongVectorEnv's (each ended hand's record in its infos); the AEC environment's "
            "record of its hand is env.unwrapped.hand_record() (mj_env.records)")
_AUTORESET = ("the AEC environment has no autoreset: after an episode ends, call env.reset(); autoreset_mode is "
              "MahjongVectorEnv's and the single-agent vector env's")
NOT_AEC_ARGUMENTS = {"num_tables": _ONE_TABLE, "num_envs": _ONE_TABLE, "opponents": _ALL_SEATS, "seat": _ALL_SEATS,
                     "records": _RECORDS, "autoreset_mode": _AUTORESET}
"""Arguments of the other environments, refused by name (not as unknown rule fields)."""


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by at most one insertion, deletion, substitution or swap of two
    neighbouring letters."""
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return (a[i + 1:] == b[i + 1:] or a[i:] == b[i + 1:] or a[i + 1:] == b[i:]
            or (a[i + 2:] == b[i + 2:] and a[i:i + 2] == b[i:i + 2][::-1]))


def near_option(key) -> str | None:
    """The reset option ``key`` looks like a slip for: another case, a plural (``"walls"``, as the vector
    envs spell it) or one typing slip past the first letter (``"dealr"``, ``"wlal"``); None for other keys,
    which ``reset`` ignores unless they are ``"rules"`` or a rule field (PettingZoo's api_test passes ``{"options": 1}``;
    ``"all"`` or ``"deal"`` stay ignored)."""
    if not isinstance(key, str):
        return None
    low = key.lower()
    for name in RESET_OPTIONS:
        if low.removesuffix("s") == name or (low[:1] == name[0] and _one_edit_apart(low, name)):
            return name
    return None


_LAST_AFTER_END = "last() after the hand ended: every agent is done; call reset() first"


def _refuse_if_closed(wrapper, call: str) -> None:
    """The RuntimeError that mj_env.env() gives for ``call`` after close(), asked of the unwrapped raw_env (a
    PettingZoo wrapper between refuses private attributes such as ``_check_open``); nothing for another library's
    env, which has no such check."""
    check_open = getattr(wrapper.unwrapped, "_check_open", None)
    if check_open is not None:
        check_open(call)


class ForwardsSettings:
    """For mj_env's AEC wrappers: ``illegal_action`` and ``illegal_penalty`` read and set on the game itself
    (``unwrapped``, the ``raw_env``), whatever wrappers lie between. PettingZoo's ``BaseWrapper`` reads a name it
    lacks from the env it wraps but sets one on itself, so ``mj_env.env().illegal_action = "penalize"`` read back
    "penalize" while the game went on raising (and so would a PettingZoo wrapper between two of mj_env's). And
    ``last()`` after the hand ended is the ``ActionError`` that ``mj_env.env()`` gives (PettingZoo's ``last()``,
    which a ``BaseWrapper`` runs on itself, failed with a bare ``KeyError: 'player_0'``)."""

    if TYPE_CHECKING:  # (the wrapper it is mixed into has it: PettingZoo's BaseWrapper.unwrapped)
        @property
        def unwrapped(self) -> raw_env: ...

    def last(self, observe: bool = True):
        _refuse_if_closed(self, "last()")  # whether the hand ended, went on or never began
        if getattr(self.unwrapped, "_hand", None) and not self.unwrapped.agents:
            raise A.ActionError(_LAST_AFTER_END)
        return super().last(observe)  # type: ignore[misc]  # a mixin: the PettingZoo wrapper after it has last()

    @property
    def illegal_action(self) -> str:
        return self.unwrapped.illegal_action

    @illegal_action.setter
    def illegal_action(self, value) -> None:
        self.unwrapped.illegal_action = value

    @property
    def illegal_penalty(self):
        return self.unwrapped.illegal_penalty

    @illegal_penalty.setter
    def illegal_penalty(self, value) -> None:
        self.unwrapped.illegal_penalty = value


class OrderEnforcing(ForwardsSettings, wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, whose ``last()`` asks the wrapped env directly: the
    inherited one reads five attributes through the wrapper's ``__getattr__`` at every decision
    (about 7 us of a 120 us decision; benchmarks/throughput.py, aec row). Same checks: before
    ``reset()``, ``last()`` raises the AttributeError that reading ``agent_selection`` raises; after the
    hand, ``last()`` and ``step()`` raise an ``ActionError`` saying to reset (PettingZoo's wrapper only logs a
    warning for such a step, and its ``last()`` fails on a missing key).

    ``last()`` and ``step()`` (every decision) read the unwrapped raw_env's ``_closed`` flag, kept from
    construction, and only then ask ``_refuse_if_closed`` for the error: the same check without going through
    ``unwrapped`` twice a decision."""

    _has_reset: bool  # (PettingZoo's wrapper sets both in its __init__; its module has no annotations mypy reads)
    _has_updated: bool

    def __init__(self, env):
        super().__init__(env)
        self._game = env.unwrapped  # (a wrapper's env is fixed: so is the game under it)

    def __setstate__(self, state):
        # (pickle and copy.deepcopy) an env pickled before the wrapper kept its game (4b73506 and earlier) has no
        # _game, which PettingZoo's __getattr__ then refused at every last() and step(): take it from env
        self.__dict__.update(state)
        if "_game" not in self.__dict__:
            self._game = self.env.unwrapped

    def last(self, observe: bool = True):
        if getattr(self._game, "_closed", False):
            _refuse_if_closed(self, "last()")
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        if not self.env.agents:
            raise A.ActionError(_LAST_AFTER_END)
        return self.env.last(observe)

    def reset(self, seed=None, options=None):
        # PettingZoo's wrapper marks itself reset before the env's reset runs: a refused reset (docs/RULES.md 7:
        # it changes nothing) must leave it as it was, or a never-reset env would answer as if a hand had ended
        was = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset, self._has_updated = was
            raise

    # after close(), before the first reset too: the RuntimeError that mj_env.env() gives (PettingZoo's own check
    # would say "reset() needs to be called before observe.", and reset is refused then)
    def observe(self, agent):
        _refuse_if_closed(self, "observe()")
        return super().observe(agent)

    def state(self):
        _refuse_if_closed(self, "state()")
        return super().state()

    def render(self):
        # (no render mode: a warning and None, as raw_env.render gives; PettingZoo's AECEnv declares no render_mode)
        if self.env.render_mode is not None:  # pyright: ignore[reportAttributeAccessIssue]
            _refuse_if_closed(self, "render()")
        return super().render()

    def step(self, action) -> None:
        """PettingZoo's checks, except that a step after every agent is done is refused with an error (as
        any other action that is not valid now, docs/RULES.md 7) instead of a logged warning."""
        if getattr(self._game, "_closed", False):
            _refuse_if_closed(self, "step()")
        if self._has_reset and not self.env.agents:
            raise A.ActionError("step() after the hand ended: every agent is done; call reset() first")
        super().step(action)


def env(rules: RulesSpec = "beijing", render_mode: str | None = None, **kwargs) -> OrderEnforcing:
    """The AEC environment wrapped in PettingZoo's order-enforcing wrapper."""
    e = raw_env(rules=rules, render_mode=render_mode, **kwargs)
    return OrderEnforcing(e)


class raw_env(A.IllegalPolicySettings, AECEnv):
    """One mahjong table as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "mj_env_v0",  # noqa: RUF012 (PettingZoo's convention)
                "is_parallelizable": False, "render_fps": 1}
    rules = EngineRules()  # the engine's rule set, read-only (the env's own code reads self.engine.rules)
    _closed = False  # close() sets it
    _hand: dict | None = None  # reset() deals one: the record of the hand so far

    def __init__(self, rules: RulesSpec = "beijing", render_mode: str | None = None,
                 illegal_action: str = "raise", illegal_penalty: float = 10, obs: str = "v1", **overrides):
        super().__init__()
        # this env's own copy of the class's metadata: a change through one env (a user's, or a library's that
        # writes into env.metadata) must not reach every other env, nor the class default
        self.metadata = copy.deepcopy(self.metadata)
        self.obs_layout = obs_layout(obs)
        check_render_mode(render_mode)
        self._set_illegal_policy(illegal_action, illegal_penalty)  # checked once, before the rule set
        refuse_arguments(overrides, NOT_AEC_ARGUMENTS)
        self.engine = Engine(rules, num_tables=1, **overrides)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agent_name_mapping = {a: i for i, a in enumerate(AGENTS)}
        # one space object per agent, as PettingZoo's own environments have: seeding one agent's action space
        # (its generator lives in the space) must not reseed another's samples
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 255, (OBS_LAYOUTS[self.obs_layout][1], N_KINDS), dtype=np.uint8),
            "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), dtype=np.int8),
        }) for a in AGENTS}
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(A.N_ACTIONS) for a in AGENTS}
        self.state_space = spaces.Box(0, 255, (4, N_PLANES, N_KINDS), dtype=np.uint8)
        self.observation_layout = OBS_LAYOUTS[self.obs_layout][0]
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}

    def observation_space(self, agent):
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._known(agent)]

    @staticmethod
    def _known(agent):
        """``agent`` itself; a KeyError naming the agents where it is not one (PettingZoo raises KeyError)."""
        if not isinstance(agent, str) or agent not in AGENTS:
            raise KeyError(f"unknown agent {agent!r}: the agents are {', '.join(AGENTS)}")
        return agent

    # --------------------------------------------------------------------------
    def reset(self, seed=None, options=None):
        # Other keys are ignored, as PettingZoo's api_test expects of every environment, except slips of ours
        # (near_option: "walls", "Dealer", "dealr"): those would deal a random wall without a word; and "rules" or
        # a rule field, which would deal under the env's own rules without a word.
        self._check_open("reset()")
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        options = dict(options or {})
        rule_fields = {f.name for f in dataclasses.fields(self.engine.rules)} - {"name"} if options else ()
        for key in options:
            near = near_option(key) if key not in RESET_OPTIONS else None
            if near is not None:
                raise ValueError(f"unknown reset option {key[:40]!r}: did you mean {near!r}? "
                                 f"(this env takes {' and '.join(map(repr, RESET_OPTIONS))})")
            if key == "rules" or key in rule_fields:  # not ignored either: the hand would be dealt under the old rules
                raise ValueError(f"reset option {key!r}: the rule set is fixed when the env is made (this one plays "
                                 f"{self.rules.name}); make a new env, e.g. mj_env.env(rules=..., field=value)")
        walls = None if options.get("wall") is None else [options["wall"]]
        dealers = None if options.get("dealer") is None else [options["dealer"]]
        res = self.engine.reset(seed=seed, walls=walls, dealers=dealers)  # checks before it changes
        st = self.engine.state
        self._hand = {"wall": st.wall[0].copy(), "dealer": int(st.dealer[0]), "actions": [], "settlement": None,
                      "penalized": False}
        self.agents = list(AGENTS)
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict] = {a: {} for a in AGENTS}
        if res.hand_over[0]:  # the deal itself ended a hand (四惠牌 on the dealer's first turn)
            self._record(res)
            self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()

    def _dealt(self, call: str) -> dict:
        """The hand dealt (its record so far); a RuntimeError after ``close()``, or before the first reset (no
        hand is dealt: the engine's state is all zeros)."""
        self._check_open(call)
        if not self._hand:
            raise RuntimeError(f"{call} before reset(): no hand is dealt yet; call reset() first")
        return self._hand

    def _planes(self, seat: int) -> np.ndarray:
        """``observe_one`` of ``seat``; once a penalized illegal action ended the hand, the planes of the ended
        hand (``COL_PHASE`` 2, no tile asked about or drawn), as the single-agent env shows such a hand,
        although the engine, which never played that action, still waits on the offender."""
        st = self.engine.state
        assert self._hand is not None  # (its callers check that a hand is dealt)
        if self._hand["penalized"]:
            st = st.take(np.array([0]))
            st.phase[0] = END
        return observe_one(self.engine.rules, st, 0, seat)

    def observe(self, agent):
        # (called at every decision: the checks of _known and _dealt, each done first where it is cheap)
        seat = self.agent_name_mapping.get(agent) if type(agent) is str else None
        if seat is None:
            seat = self.agent_name_mapping[self._known(agent)]
        hand = self._hand
        if self._closed or not hand:
            hand = self._dealt("observe()")
        st = self.engine.state
        obs = self._planes(seat) if hand["penalized"] else observe_one(self.engine.rules, st, 0, seat)
        # a hand ended by a penalized illegal action (illegal_action="penalize") is over although the engine,
        # which never played that action, still waits on the offender: no agent has a legal action then
        if st.phase[0] != END and st.to_act[0] == seat and not hand["penalized"]:
            mask = self.engine._mask[0].view(np.int8).copy()  # (legal_mask()'s read-only view, read at once)
        else:
            mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        if self.obs_layout == "v1":  # the planes as they are (the values in_layout gives for v1)
            return {"observation": obs, "action_mask": mask}
        return {"observation": in_layout(self.obs_layout, self.engine.rules, obs[None], mask[None])[0],
                "action_mask": mask}

    def state(self) -> np.ndarray:
        """(4, 14, 34) uint8: every seat's observation planes, seat 0 first (see the docstring; ``mj_obs_v1``
        whatever ``obs`` is)."""
        self._dealt("state()")
        return np.stack([self._planes(seat) for seat in range(4)])

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``, with a RuntimeError saying to call reset() before the first one (the
        inherited one fails on the missing ``agent_selection``) and after ``close()``, and after the hand ended
        the ``ActionError`` that ``mj_env.env()``'s order-enforcing wrapper gives (the inherited one: ``KeyError``)."""
        if self._closed or not self._hand:
            self._dealt("last()")
        if not self.agents:
            raise A.ActionError(_LAST_AFTER_END)
        return super().last(observe)

    def step(self, action):
        if self._closed:
            self._check_open("step()")
        hand = self._hand  # (dealt whenever there are agents: reset() deals it before it names them)
        if not self.agents or hand is None:
            raise A.ActionError("step() before reset(), or after the episode ended: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # (PettingZoo's own refusal names neither the agent nor the action)
                try:
                    what = f"'{A.name(A.one_action(action))}'"
                except A.ActionError:
                    what = brief(action)
                ended = "terminated" if self.terminations[agent] else "truncated"
                raise A.ActionError(f"{agent}: action {what} after {agent}'s episode is over ({ended}): "
                                    f"step(None) for each agent whose episode is over")
            return self._was_dead_step(action)
        # Check the action before anything changes (a refused action keeps unread rewards).
        if not (type(action) is int and 0 <= action < A.N_ACTIONS):  # (a plain int in range: one_action's own value)
            try:
                action = A.one_action(action)  # e.g. a 0-d array, as SB3's predict gives for one observation
            except A.ActionError as e:
                raise A.ActionError(f"{agent}: {e}") from None
        rules = self.engine.rules
        legal = bool(self.engine._mask[0, action])  # (legal_mask()'s read-only view, read at once)
        if not legal and self.illegal_action == "raise":
            raise A.ActionError(f"{agent}: " + self.engine.explain_illegal(0, action))
        self._cumulative_rewards[agent] = 0
        for a in self.agents:
            self.rewards[a] = 0
        if not legal:
            hand["penalized"] = f"{agent}'s illegal action '{A.name(action)}' was penalized"
            self.rewards[agent] = -self.illegal_penalty
            self.infos[agent] = {"illegal_action": A.name(action)}
            for a in self.agents:
                self.terminations[a] = True
            self._accumulate_rewards()
            return
        if rules.hands_per_episode == 1:  # a match gives no record (hand_record): keep no list growing
            hand["actions"].append((self.agent_name_mapping[agent], action))
        res = self.engine.step(np.array([action]))
        # each agent's info keeps the last hand's settlement until that agent acts again, so that in
        # a match every seat reads every settlement through last(), not only the next to act
        self.infos[agent] = {}
        if res.hand_over[0]:
            self._record(res)
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _record(self, res) -> None:
        settlement = res.settlements.get(0)
        earlier = res.settlements.every(0)[:-1]   # a match's next hand ended at its deal in this step
        assert self._hand is not None  # (reset() and step() call it once a hand is dealt)
        self._hand["settlement"] = settlement
        for i, a in enumerate(AGENTS):
            self.rewards[a] = int(res.rewards[0, i])
            # each agent its own copy: one agent's edits reach neither another's infos nor the hand record
            self.infos[a] = {"settlement": copy.deepcopy(settlement)}
            if earlier:
                self.infos[a]["earlier_settlements"] = copy.deepcopy(earlier)
        if res.episode_over[0]:
            for a in self.agents:
                self.terminations[a] = True

    def hand_record(self) -> dict:
        """The record of this episode's hand so far (``mj_env.records``: rules, wall, dealer, every decision,
        and the settlement once it has ended), which ``mj_env.records.replay`` plays again exactly.
        Single hands only: under ``hands_per_episode`` > 1 a later hand starts from what the earlier
        ones left, which a record does not hold; and not after an illegal action ended the hand
        (``illegal_action="penalize"``), which the engine never plays."""
        if not self._hand:
            raise RecordError("no hand yet: call reset() first")
        if self.rules.hands_per_episode != 1:
            raise RecordError("a record holds one hand; this env plays matches of "
                              f"{self.rules.hands_per_episode} hands (hands_per_episode)")
        if self._hand["penalized"]:
            raise RecordError("the hand ended on an illegal action (illegal_action='penalize'): nothing to replay")
        h = self._hand
        return hand_record(self.rules, h["wall"], h["dealer"], h["actions"], copy.deepcopy(h["settlement"]))

    def _select(self) -> None:
        self.agent_selection = AGENTS[int(self.engine.state.to_act[0])]

    def render(self):
        if self.render_mode is None:  # as PettingZoo's classic envs (and Gymnasium's env checker) say it
            warn_no_render_mode("mj_env.env(render_mode='ansi' or 'human')")
            return None
        hand = self._dealt("render()")
        settled = hand["settlement"]  # (in a match, the last hand's while the next is played)
        over = settled is not None and self.engine.state.phase[0] == END
        ended = hand["penalized"] or (settlement_text(settled) if over and settled is not None else None)
        text = render_table(self.rules, self.engine.state, 0, ended=ended)
        if self.render_mode == "human":
            print_table(text)
            return None
        return text

    def close(self):
        """Marks the env closed (it holds no other resource): reset, step, observe, last, state and render (in
        a render mode) then raise a RuntimeError, as the Gymnasium envs do after ``close()``, through the
        order-enforcing wrapper too; ``hand_record()`` still reads the last hand."""
        self._closed = True

    def _set_illegal_policy(self, illegal_action, illegal_penalty) -> None:
        super()._set_illegal_policy(illegal_action, illegal_penalty)  # checked (A.IllegalPolicySettings)
        # an integral penalty is an int, as the other seats' 0 and the settled points are (10.0 -> 10)
        if float(self._illegal_penalty).is_integer():  # (a float here: illegal_policy gives one)
            self._illegal_penalty = int(self._illegal_penalty)

    def _check_open(self, call: str) -> None:
        if self._closed:
            raise RuntimeError(f"{call} after close(): this mj_env AEC env is closed; make a new one")
