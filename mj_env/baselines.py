"""The NumPy baseline agents, batched and acting from observations only.

They live in ``mj_env`` (not ``agents``) because they need nothing but NumPy and the rules core,
and the single-agent environment (``mj_env.single_agent``) plays them as opponents; ``agents``
re-exports them under their old names.

The batched agent protocol (``agents.base``): an object with a ``name`` and
``act(obs, rng) -> (n,) int64`` legal actions, where ``obs`` holds ``"observation"`` (n, 14, 34)
uint8 planes of ``mj_obs_v1`` for the seat to act, ``"action_mask"`` (n, 127) int8 or bool and
``"seat"`` (n,) int.

- ``RandomAgent``: uniform over the legal actions (``uniform_legal``).
- ``RuleBasedAgent``: described below.
- ``EfficientAgent``: the rule agent with one change, its ties among the nearest discards broken by
  进张 (below).

## The rule-based agent

Its one measure is the *distance* of the concealed hand: ``mj_env.hand.tiles_to_win``, the fewest
tiles to exchange before the hand wins (a 3k+2 hand) or is ready (a 3k+1 hand), with the 惠牌
held counted as wildcards. Every comparison below is between hands of the same kind (3k+1, i.e.
after the discard that ends a turn), so the numbers are comparable.

=============  ===============================================================================
decision       rule
=============  ===============================================================================
win            always, whenever ``win`` is legal (own turn, a discard, a robbed kong)
discard        the tile whose discard leaves the smallest distance; never a 惠牌 unless nothing
               else may be discarded. Ties: when the hand is then ready, the discard that waits
               on the most tiles not yet seen, counted up to 100 (more, which only a 惠牌's many
               waits reach, ties with 100); otherwise the most isolated tile (fewest tiles of
               the same kind and within two ranks in its suit), honors and terminals first
kong (own)     a concealed or added kong when the hand after it is no farther than after the
               best discard (the replacement draw is a free extra tile)
pong/kong/chi  only when the claim (followed by the best discard) leaves a strictly smaller
               distance than passing; among claims the smallest distance, then kong > pong > chi.
               In fact it never claims an exposed kong: the three tiles the kong takes already make
               a meld in hand, so passing is never farther (``examples/rule_variants.py``'s ``kong``
               variant claims every one)
rob window     pass unless it can win
报听 (quemen)   declared with the chosen discard whenever that is legal (it doubles the win)
=============  ===============================================================================

With ``lack_suit`` rules (quemen) the distance also pays one exchange for every tile of the
suit the hand should drop (the cheapest of the three its declared melds leave free), since a winning
hand must lack a suit.
Remaining ties among discards are broken at random with the ``rng`` given to ``act``; the other
decisions take the first of equal options, not a random one: of chi options at equal distance, the
one whose sequence starts lowest (``mj_env.actions``' order), and of kongs at equal distance, the
lowest tile kind.

## The efficient agent (进张)

``EfficientAgent`` decides everything as the rule agent does, except which of the discards that
leave the smallest distance it makes: the one after which the most unseen tiles would bring the
hand closer (进张, "ukeire" in riichi terms; ``mj_env.features.improvement``, the number the
``mj_obs_v2`` planes give for each discard), then the rule agent's own order. Unseen means not in
the seat's hand, any meld, any river or the indicator. Measured against the rule agent in the
duplicate arena (README, "Agents"), this one change is worth a few hundredths of a point per hand
under beijing, about a tenth under hebei and 0.3 under quemen.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any, Literal, Protocol, TypeAlias, overload

import numpy as np

from . import actions as A
from . import features as F
from . import hand as H
from .hand import hand_distance, hand_distance_changed, split_hui
from .messages import brief, user_stacklevel
from .observation import (
    COL_PHASE,
    P_CLAIM,
    P_HAND,
    P_HUI,
    P_SCALARS,
    checked_mask,
    checked_planes,
)
from .rules import RuleSet, RulesSpec, get_rules
from .state import CLAIM, ROB, TURN, K, refuse_masked
from .tiles import N_SUITS, SUIT_OF, SUIT_SIZE, suits_held


class Actor(Protocol):
    """What the envs need of an agent object they play (``opponents``): a batched ``act(obs, rng)``,
    called with the observation dict and the generator positionally; what it returns is checked at run
    time (n legal actions). ``agents.base.Agent`` is this with a ``name``."""

    def act(self, obs: dict, rng: np.random.Generator, /) -> Any: ...


Opponents: TypeAlias = str | Actor | Sequence[str | Actor]
"""The single-agent envs' ``opponents``: an agent name, an agent object, or three of them (next,
opposite, previous seat)."""


def as_bool_mask(mask) -> np.ndarray:
    """The action mask as a bool array (the env gives int8). A float mask must hold 0s and 1s: NaN and 0.5
    were read as legal (``!= 0``), a ValueError now; integer masks are read as they were. A masked entry is
    refused (``state.refuse_masked``)."""
    refuse_masked(mask, "the action mask")
    m = np.asarray(mask)
    if m.dtype == bool:
        return m
    if m.dtype.kind == "f" and not ((m == 0) | (m == 1)).all():  # (NaN fails both)
        bad = m[(m != 0) & (m != 1)][0].item()  # (0.5, not np.float64(0.5))
        raise ValueError(f"the action mask must hold bools or 0s and 1s, got {brief(bad)}")
    return m != 0


@overload
def checked_obs(obs, *, planes: Literal[True] = True) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def checked_obs(obs, *, planes: bool) -> tuple[np.ndarray | None, np.ndarray]: ...
def checked_obs(obs, *, planes: bool = True) -> tuple[np.ndarray | None, np.ndarray]:
    """``obs`` as an agent's ``act`` takes it, checked: (uint8 observation or None, bool mask), or a ValueError
    that says what is wrong. ``obs["action_mask"]`` is (n, N_ACTIONS) of bools or 0s and 1s (integers or
    floats); ``obs["observation"]`` (read when ``planes``) is (n, P, 34) planes with P >= N_PLANES
    (``mj_obs_v1`` or a layout that starts with it; ``observation.checked_planes``). A batch of 0 rows is
    allowed."""
    if not hasattr(obs, "__getitem__") or isinstance(obs, (str, bytes, np.ndarray)):
        raise ValueError(f'obs must be a dict with "observation" and "action_mask", got {type(obs).__name__}')
    try:
        mask, o = obs["action_mask"], obs["observation"] if planes else None
    except KeyError as e:
        raise ValueError(f'obs must be a dict with "observation" and "action_mask"; {e} is missing') from None
    except (TypeError, IndexError):  # a tuple or list: env.reset()'s (obs, infos) without the unpacking, say
        raise ValueError(f'obs must be a dict with "observation" and "action_mask", got {type(obs).__name__} '
                         "(an env's reset returns (obs, infos): obs, infos = env.reset())") from None
    o = checked_planes(o, "observation") if planes else None  # an observation of None is refused there
    return o, checked_mask(mask, None if o is None else len(o), A.N_ACTIONS, "action_mask")


def check_rng(rng, who: str) -> None:
    """A TypeError naming the agent ``who`` unless ``rng`` can draw as the baselines draw (``random(size)``, a
    ``np.random.Generator``): a None or a seed failed deep inside with an AttributeError, and only when a row
    drew (own-turn rows do, claim-window rows do not)."""
    if not callable(getattr(rng, "random", None)):
        raise TypeError(f"agent {who!r}: rng must be a np.random.Generator (e.g. np.random.default_rng(seed)), "
                        f"not {brief(rng)}")


_TURN_ACTIONS = np.zeros(A.N_ACTIONS, dtype=bool)
_TURN_ACTIONS[[*range(A.DISCARD, A.WIN + 1), *range(A.TING, A.N_ACTIONS)]] = True  # discard, kong, win, ting
_TURN_DISCARDS = np.zeros(A.N_ACTIONS, dtype=bool)
_TURN_DISCARDS[[*range(A.DISCARD, A.DISCARD + K), *range(A.TING, A.N_ACTIONS)]] = True
_CLAIM_ACTIONS = np.zeros(A.N_ACTIONS, dtype=bool)
_CLAIM_ACTIONS[A.WIN:A.TING] = True  # win, pass, pong, kong, chi


def check_positions(o: np.ndarray, mask: np.ndarray) -> None:
    """Raise a ValueError where an observation row and its action mask do not make a position the engine
    could ask about (the rule agent reasons from the hand, so planes that are not one cannot be played):
    an own turn holds 3k+2 concealed tiles and allows a discard and only own-turn actions, each discard
    and kong of a kind it holds; a claim window holds 3k+1 and allows pass and only claim actions; a rob
    window (or an ended hand's pass) allows pass and only claim actions."""
    phase = o[:, P_SCALARS, COL_PHASE]
    hand = o[:, P_HAND]
    size = hand.sum(axis=1, dtype=np.int64)
    turn = phase == TURN
    outside = (mask & ~np.where(turn[:, None], _TURN_ACTIONS, _CLAIM_ACTIONS)).any(axis=1)
    kinds = mask[:, A.DISCARD:A.DISCARD + K] | mask[:, A.KONG_SELF:A.KONG_SELF + K] | mask[:, A.TING:A.TING + K]
    problems = [
        (phase > ROB, f"the phase is 0-{ROB}"),
        (turn & (outside | ~(mask & _TURN_DISCARDS).any(axis=1)),
         "an own turn's mask allows a discard and only discards, kongs, win and ting"),
        (~turn & (outside | ~mask[:, A.PASS]),
         "a claim or rob window's mask allows pass and only win, pass, pong, kong and chi"),
        (turn & (size % 3 != 2), "an own turn holds 3k+2 concealed tiles"),
        ((phase == CLAIM) & (size % 3 != 1), "a claim window holds 3k+1 concealed tiles"),
        (turn & (kinds & (hand == 0)).any(axis=1), "an own turn discards and kongs only kinds it holds"),
    ]
    for bad, rule in problems:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            allowed = np.flatnonzero(mask[i])
            raise ValueError(
                f"observation row {i} and its action mask are no position: {rule} (the row: phase "
                f"{int(phase[i])} in plane {P_SCALARS} column {COL_PHASE}, {int(size[i])} tiles in plane {P_HAND}; the "
                f"mask allows {', '.join(A.name(int(a)) for a in allowed[:4]) or 'nothing'}"
                f"{', ...' if len(allowed) > 4 else ''})")


def check_rows_have_actions(mask: np.ndarray) -> None:
    """Raise if a row of the mask allows nothing (a table that ended was passed to an agent)."""
    empty = ~mask.any(axis=1)
    if empty.any():
        raise ValueError(f"row {int(np.flatnonzero(empty)[0])} of the action mask has no legal action; "
                         "pass only tables that wait on a decision")


class RulesMismatchWarning(UserWarning):
    """An agent plays under other rules than it was built or trained for: a checkpoint
    (``agents.networks.NetworkAgent.from_checkpoint``), or an agent object whose ``rules`` names another rule set,
    or the same preset with other values of the fields agents read (`warn_rules_mismatch`: the arena's agents, the single-agent env's opponents). The arena's command line prints
    it as one ``note:`` line."""


RULE_FIELDS_AGENTS_READ = ("seven_pairs", "thirteen_orphans", "orphans_extra_dragon", "lack_suit", "hui_wild_in_melds",
                           "ting")
"""The rule fields beside the preset's name that the baselines read (their distances, waits, claim hands and 报听)
and the mj_obs_v2 features: an agent object built with other values of one of them, in a game of the same
preset, decides by other rules (`warn_rules_mismatch`)."""


def rule_fields_agents_read_differ(own: RuleSet, rules: RuleSet) -> list[str]:
    """The `RULE_FIELDS_AGENTS_READ` whose values differ between ``own`` and ``rules`` (in that order), for the
    warnings of `warn_rules_mismatch` and ``agents.networks.NetworkAgent.from_checkpoint``."""
    return [f for f in RULE_FIELDS_AGENTS_READ if getattr(own, f) != getattr(rules, f)]


def warn_rules_mismatch(agent, rules: RuleSet, who: str, where: str, fix: str, stacklevel: int | None = None,
                        library: tuple = ()) -> None:
    """A `RulesMismatchWarning` when ``agent`` says (its ``rules``: a RuleSet, a preset's name or its object form,
    as the baselines and network agents keep them) that it decides by another rule set than ``rules``:
    ``RuleBasedAgent()``, built for beijing, in a quemen game would chase three-suit hands. ``who`` names the agent
    in the message, ``where`` what it plays in (a run, an env), ``fix`` says how to build it right. An attribute that names no rule set is not read.
    The warning names the line given by ``stacklevel``, by default the first line outside mj_env and the packages
    in ``library`` (the user's, however the agent came in)."""
    if stacklevel is None:
        stacklevel = user_stacklevel(A, *library)
    own = getattr(agent, "rules", None)
    if not isinstance(own, (RuleSet, str, dict)):
        return
    try:
        own = get_rules(own)
    except (ValueError, TypeError):  # an attribute of the agent's own that names no rule set
        return
    name = brief(getattr(agent, 'name', type(agent).__name__))
    if own.name != rules.name:
        warnings.warn(f"{who} ({name}) decides by the {own.name} rules but plays in a {rules.name} {where}; {fix}",
                      RulesMismatchWarning, stacklevel=stacklevel)
        return
    differ = rule_fields_agents_read_differ(own, rules)
    if differ:
        mine = ", ".join(f"{f}={getattr(own, f)!r}" for f in differ)
        theirs = ", ".join(f"{f}={getattr(rules, f)!r}" for f in differ)
        warnings.warn(f"{who} ({name}) decides by {own.name} rules with {mine} but plays in a {rules.name} {where} "
                      f"with {theirs}; build it with the {where}'s rule set (e.g. RuleBasedAgent(rules) with the "
                      f"RuleSet the {where} was made with), or give its name", RulesMismatchWarning,
                      stacklevel=stacklevel)


class AgentError(RuntimeError):
    """An agent's ``act`` (or ``act_tables``) raised: the message names the agent and the tables it was
    acting for, and the agent's own exception is the ``__cause__``."""


def agent_actions(agent, method, args: tuple, mask, tables, explain, role: str = "agent") -> np.ndarray:
    """``method(*args)`` (the agent's ``act`` or ``act_tables`` for ``tables``), checked as
    ``checked_agent_actions`` checks it; an exception it raises comes back as an AgentError naming the agent
    (as ``role``) and the tables, so that a failing opponent reads as that opponent's fault, not the env's."""
    try:
        got = method(*args)
    except Exception as e:
        who = str(getattr(agent, "name", type(agent).__name__))[:40]
        shown_tables = ", ".join(str(int(t)) for t in tables[:8]) + (", ..." if len(tables) > 8 else "")
        raise AgentError(f"{role} {who!r} raised {type(e).__name__} acting at table(s) {shown_tables}: "
                         f"{str(e)[:200]}") from e
    return checked_agent_actions(agent, got, mask, tables, explain, role)


def checked_agent_actions(agent, actions, mask, tables, explain, role: str = "agent") -> np.ndarray:
    """An agent's ``act`` result as (n,) int64 legal actions, or an error that names the agent (as ``role``)
    and the table, with ``explain(table, action)`` (the engine's ``explain_illegal``) saying why the action is
    not legal. An agent is user code: its mistakes must not read as another player's, and what it returns is
    checked as the engine checks actions (integers only: no floats truncated, no bools, no broadcast scalar)."""
    who = str(getattr(agent, "name", type(agent).__name__))[:40]
    n = len(tables)
    try:
        a = np.asarray(actions)
    except Exception:  # noqa: BLE001 (ragged lists, a tensor needing grad: no actions, named below)
        a = np.asarray(None)
    if a.shape != (n,) or a.dtype.kind not in "iu":
        # None, or what NumPy cannot read (a torch tensor needing grad), is named as itself, not as "object actions"
        got = (f"{brief(actions)} (a {type(actions).__name__})" if a.dtype == object and a.shape == ()
               else f"{a.dtype} actions of shape {a.shape}")
        raise TypeError(f"{role} {who!r} returned {got}; act() must return ({n},) integers, one per observation row")
    try:
        A.refuse_bools_in(actions, unit="row")  # [True, 3] reads as the ints [1, 3]
    except A.ActionError as e:
        raise TypeError(f"{role} {who!r} returned a list holding a non-integer ({e}); act() must return "
                        f"({n},) integers, one per observation row") from None
    ok = (a >= 0) & (a < A.N_ACTIONS)
    ok[ok] = mask[np.flatnonzero(ok), a[ok]] != 0
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise A.ActionError(f"{role} {who!r} at table {int(tables[i])}: {explain(int(tables[i]), int(a[i]))}; "
                            "an agent must pick from its action mask")
    return a.astype(np.int64)


def rows_of(rng: np.random.Generator, rows: np.ndarray) -> np.random.Generator:
    """The generator for some of an ``act`` call's rows (indices): one that keeps numbers per row (the
    arena's common random numbers, ``agents.common_random``, has ``take_rows``) gives those rows' own
    streams; any other generator is returned as it is. Draw through it for a subset of rows, so that a
    row's numbers do not depend on which other rows share the call."""
    take = getattr(rng, "take_rows", None)
    return rng if take is None else take(rows)


def uniform_legal(mask: np.ndarray, rng: np.random.Generator, *, empty_ok: bool = False) -> np.ndarray:
    """One action per row drawn uniformly from the legal ones. mask (n, A) bool or 0/1 ints ->
    (n,) int64. The project's one random-legal-action sampler (agents, tests, examples).

    Argmax of independent uniforms restricted to legal entries picks each legal action with
    equal probability, with one vectorised draw for the whole batch. A row with no legal action
    is an error, or action 0 with ``empty_ok`` (the bare engine's ended tables, whose action is
    ignored). ``benchmarks/_common.MaskedSampler`` is a faster sampler kept for the timed loops.
    """
    mask = as_bool_mask(mask)
    if not empty_ok:
        check_rows_have_actions(mask)
    u = rng.random(mask.shape)
    return np.where(mask, u, -1.0).argmax(axis=1).astype(np.int64)


class RandomAgent:
    """Picks each legal action with equal probability (a claim window's ``pass`` included)."""

    name = "random"

    def act(self, obs: dict, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64 uniform legal actions for the n rows of ``obs["action_mask"]``."""
        check_rng(rng, self.name)
        return uniform_legal(checked_obs(obs, planes=isinstance(obs, dict) and "observation" in obs)[1], rng)


_EYE = np.eye(K, dtype=np.int8)
_SUIT = SUIT_OF                                      # 0-2 the suits, N_SUITS (3) the honors
_RANK = np.where(SUIT_OF < N_SUITS, np.arange(K) % SUIT_SIZE, -1)
# Discard preference among equally distant, equally connected tiles: honors, then 1/9, then 2/8.
_EDGE_BONUS = np.where(_SUIT == N_SUITS, 0.3,
                       np.select([np.isin(_RANK, (0, 8)), np.isin(_RANK, (1, 7))], [0.2, 0.1], 0.0))

UNREACHABLE = 1e9
"""Key of a discard that is not legal."""
HUI_DISCARD = 1e6
"""Added to the key of discarding a 惠牌: done only when no other discard is legal."""


def discard_distances(rules: RuleSet, hands: np.ndarray, hui: np.ndarray, legal: np.ndarray,
                      meld_suits: np.ndarray | None = None) -> np.ndarray:
    """Distance after each legal discard: hands (m, 34), hui (m,), legal (m, 34), the suits of the declared
    melds (m, 3) or None (``hand.hand_distance``) -> (m, 34) float, ``UNREACHABLE`` where the discard is
    not legal. Measured as one-tile changes of the hands (``hand.hand_distance_changed``: each hand's parts
    combined once, not once per discard), as the ``mj_obs_v2`` planes' discards are."""
    out = np.full(legal.shape, UNREACHABLE)
    r, t = np.nonzero(legal)
    if len(r):
        out[r, t] = hand_distance_changed(rules, hands, hui, meld_suits, r, t, -1)
    return out


def _neighbour_weights() -> np.ndarray:
    """(34, 34) float: [j, i] the weight of kind j's count in kind i's connectedness (1 a neighbour in the suit,
    0.5 a tile two ranks away)."""
    w = np.zeros((K, K))
    for d, weight in ((1, 1.0), (2, 0.5)):
        for sign in (-1, 1):
            src = np.arange(K) + sign * d
            ok = (src >= 0) & (src < K)
            ok[ok] &= (_SUIT[src[ok]] == _SUIT[np.arange(K)[ok]]) & (_SUIT[np.arange(K)[ok]] < N_SUITS)
            w[src[ok], np.arange(K)[ok]] += weight
    return w


_NEIGHBOURS = _neighbour_weights()
_NEIGHBOURS.flags.writeable = False
_PRODUCT_ROWS = 128
"""Rows of ``connectedness``'s products with the weights: one product of more rows goes to the BLAS library's
threads, which on a machine whose cores are busy took 4-8 ms for 1,024 rows (0.1 ms on the calling thread)."""


def connectedness(nat: np.ndarray) -> np.ndarray:
    """How much each kind is tied to the rest of the hand: (m, 34) -> (m, 34) float.

    Other copies of the kind count 2, a neighbour in the suit 1, a tile two ranks away 0.5 (products with
    the weights, ``_PRODUCT_ROWS`` rows at a time: sums of halves of small counts, exact in any order).
    """
    c = nat.astype(np.float64)
    flat = c.reshape(-1, K)
    near = np.empty_like(flat)
    for s in range(0, len(flat), _PRODUCT_ROWS):
        np.matmul(flat[s:s + _PRODUCT_ROWS], _NEIGHBOURS, out=near[s:s + _PRODUCT_ROWS])
    return 2.0 * np.maximum(c - 1, 0) + near.reshape(c.shape)


def _hand_and_hui(o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(concealed counts (m, 34) int8, 惠牌 kind (m,) or -1) of observation planes (m, 14, 34)."""
    return o[:, P_HAND].astype(np.int8), np.where(o[:, P_HUI].any(axis=1), o[:, P_HUI].argmax(axis=1), -1)


def _discard_ok(mask: np.ndarray) -> np.ndarray:
    """(m, 34) kinds the mask lets the seat discard, with or without 报听."""
    return mask[:, A.DISCARD:A.DISCARD + K] | mask[:, A.TING:A.TING + K]


class RuleBasedAgent:
    """The baseline described in the module docstring. ``rules`` decides the shapes that count
    (seven pairs, thirteen orphans) and the 缺一门 constraint; the 惠牌 is read from plane 10."""

    name = "rule"

    def __init__(self, rules: RulesSpec = "beijing"):
        self.rules = get_rules(rules)

    # ----------------------------------------------------------------------------- acting
    def act(self, obs: dict, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64 actions for the n rows of ``obs`` (see ``agents.base``)."""
        o, mask = checked_obs(obs)
        check_rng(rng, self.name)
        check_rows_have_actions(mask)
        check_positions(o, mask)
        n = len(o)
        out = np.full(n, A.PASS, dtype=np.int64)
        hands, hui = _hand_and_hui(o)
        phase = o[:, P_SCALARS, COL_PHASE]
        win = mask[:, A.WIN]
        out[win] = A.WIN
        turn = np.flatnonzero(~win & (phase == TURN))
        claim = np.flatnonzero(~win & (phase == CLAIM))
        if len(turn):
            out[turn] = self._turn(o[turn], hands[turn], hui[turn], mask[turn], rows_of(rng, turn))
        if len(claim):
            out[claim] = self._claim(o[claim], hands[claim], hui[claim], mask[claim], rows_of(rng, claim))
        bad = ~mask[np.arange(n), out]
        if bad.any():  # a bug here must never reach the engine as an illegal move
            i = int(np.flatnonzero(bad)[0])
            raise AssertionError(f"rule agent chose illegal action {A.name(int(out[i]))!r} in row {i}")
        return out

    ILLEGAL_KEY = UNREACHABLE * 1000
    """``discard_keys`` of a kind that may not be discarded."""

    def discard_keys(self, o, mask, rng) -> np.ndarray:
        """How the agent ranks the discards of own-turn rows: (m, 34) keys, the smallest discarded,
        ``ILLEGAL_KEY`` where the kind may not be discarded. ``o`` (m, 14, 34) planes, ``mask`` (m, 127) of
        bools or 0s and 1s (the env's int8)."""
        o = np.asarray(o)  # (a list or a torch tensor of planes failed on a missing .astype)
        hands, hui = _hand_and_hui(o)
        return self._discard_keys(o, hands, hui, _discard_ok(as_bool_mask(mask)), rng)[0]

    @classmethod
    def nearest_discards(cls, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The nearest bracket of ``discard_keys``' keys (m, 34): (rows, kinds) of the discards at the row's
        smallest distance (a 惠牌 only if nothing else may go), whose keys lie within the tie range of each
        other, and the row's smallest key (m,)."""
        legal = key < cls.ILLEGAL_KEY
        low = np.where(legal, key, np.inf).min(axis=1)
        r, t = np.nonzero(legal & (key < low[:, None] + 500.0))  # a tile of distance is 1000, the ties +-100
        return r, t, low

    def _discard_keys(self, o, hands, hui, discard_ok, rng) -> tuple[np.ndarray, np.ndarray]:
        """(keys (m, 34), distance after the best discard (m,)); see ``discard_keys``."""
        dist = discard_distances(self.rules, hands, hui, discard_ok, F.own_meld_suits(o))
        key = dist * 1000.0 + np.where(np.arange(K) == hui[:, None], HUI_DISCARD, 0.0)
        best = np.where(discard_ok, dist, UNREACHABLE).min(axis=1)

        nat, _ = split_hui(hands, hui)
        tie = connectedness(nat) - _EDGE_BONUS  # more connected: larger key, kept longer
        ready = (dist == 0) & discard_ok
        if ready.any():
            r, t = np.nonzero(ready)
            after_nat, after_wild = split_hui(hands[r] - _EYE[t], hui[r])
            w = H.waits_rules(after_nat, after_wild, self.rules)
            tie[r, t] = -(w * F.unseen_counts(o[r])).sum(axis=1)  # more live winning tiles: smaller key
        key = key + np.clip(tie, -100, 100) + 0.01 * rng.random(key.shape)
        key[~discard_ok] = self.ILLEGAL_KEY
        return key, best

    def _turn(self, o, hands, hui, mask, rng) -> np.ndarray:
        """Own turn: kong when it costs nothing, else the best discard (报听 with it if legal)."""
        m = len(o)
        rows = np.arange(m)
        key, best = self._discard_keys(o, hands, hui, _discard_ok(mask), rng)
        choice = key.argmin(axis=1)
        ting = (self.rules.ting | ~mask[rows, A.DISCARD + choice]) & mask[rows, A.TING + choice]
        out = np.where(ting, A.TING + choice, A.DISCARD + choice)  # 报听 with the discard where legal

        kong_ok = mask[:, A.KONG_SELF:A.KONG_SELF + K]
        if kong_ok.any():
            r, t = np.nonzero(kong_ok)
            take = np.where(hands[r, t] == 4, 4, 1).astype(np.int8)  # concealed: four; added: the one
            after = hands[r].copy()
            after[np.arange(len(r)), t] -= take
            suits = F.own_meld_suits(o)[r] | suits_held(_EYE[t])  # the kong is a declared meld of its suit
            d = hand_distance(self.rules, after, hui[r], suits).astype(np.float64)
            kdist = np.full((m, K), np.inf)
            kdist[r, t] = d
            kt = kdist.argmin(axis=1)
            do = kdist[rows, kt] <= best
            out = np.where(do, A.KONG_SELF + kt, out)
        return out.astype(np.int64)

    def _claim(self, o, hands, hui, mask, rng) -> np.ndarray:
        """Claim window: the claim that gets closest, if it beats passing; else pass."""
        m = len(o)
        tile = o[:, P_CLAIM].argmax(axis=1)
        melds = F.own_meld_suits(o)
        best = np.full(m, np.inf)
        best_key = np.full(m, np.inf)
        best_action = np.full(m, A.PASS, dtype=np.int64)

        options = []  # (rows, hands after, action(s), bonus, suits after, then a discard), in the order weighed

        def consider(sel, after, action: int | np.ndarray, bonus, then_discard):
            """Rows ``sel`` could hold ``after`` (len(sel), 34) by taking ``action``; an option the hand cannot
            take (tiles it lacks, so that fewer are taken: planes from outside only) is left out."""
            one = not isinstance(action, np.ndarray)  # one action for every row, or one per row
            can = F.claim_takeable(hands[sel], after, one and action == A.KONG)
            sel, after = sel[can], after[can]
            if isinstance(action, np.ndarray):
                action = action[can]
            # the new meld's suits join the declared ones: the tiles it takes from the hand and the claimed tile
            suits = F.suits_after_claim(melds[sel], hands[sel], after, tile[sel])
            options.append((sel, after, action, bonus, suits, then_discard))

        kong = np.flatnonzero(mask[:, A.KONG])
        if len(kong):
            consider(kong, F.claim_hands(self.rules, hands, hui, tile, kong, F.OPT_KONG), A.KONG, 0.2,
                     then_discard=False)
        pong = np.flatnonzero(mask[:, A.PONG])
        if len(pong):
            consider(pong, F.claim_hands(self.rules, hands, hui, tile, pong, F.OPT_PONG), A.PONG, 0.1,
                     then_discard=True)
        chi_ok = mask[:, A.CHI:A.CHI + A.N_CHI]
        if chi_ok.any():
            r, c = np.nonzero(chi_ok)
            after = F.claim_hands(self.rules, hands, hui, tile, r, F.OPT_CHI + c)
            # several chi options of one row: consider them one group at a time
            order = np.argsort(r, kind="stable")
            first = np.ones(len(r), dtype=bool)
            first[1:] = r[order][1:] != r[order][:-1]
            group = np.cumsum(first) - 1
            rank = np.arange(len(r)) - np.flatnonzero(first)[group]
            for g in range(int(rank.max()) + 1):
                pick = order[rank == g]
                consider(r[pick], after[pick], A.CHI + c[pick], 0.0, then_discard=True)
        # the distance of passing and of the options kept (an exposed kong) in one pass (a hand's distance does not
        # depend on the other hands of the pass)
        kept = [x for x in options if not x[5]]
        now = hand_distance(self.rules, np.concatenate([hands, *(x[1] for x in kept)]),
                            np.concatenate([hui, *(hui[x[0]] for x in kept)]),
                            np.concatenate([melds, *(x[4] for x in kept)])).astype(np.float64)
        now, after_kept = now[:m], np.split(now[m:], np.cumsum([len(x[0]) for x in kept])[:-1])
        # and the distance after the best discard, of every option that discards, in one pass
        then = [x for x in options if x[5]]
        after_discard: list[np.ndarray] = []
        if then:
            sel = np.concatenate([x[0] for x in then])
            after = np.concatenate([x[1] for x in then])
            legal = after > 0
            d = discard_distances(self.rules, after, hui[sel], legal, np.concatenate([x[4] for x in then]))
            no_hui = legal & (np.arange(K) != hui[sel, None])
            d = np.where(no_hui.any(axis=1), np.where(no_hui, d, UNREACHABLE).min(axis=1), d.min(axis=1))
            after_discard = np.split(d, np.cumsum([len(x[0]) for x in then])[:-1])
        for sel, after, action, bonus, suits, then_discard in options:
            if then_discard:
                d = after_discard.pop(0)
            else:
                d = after_kept.pop(0)
            better = d - bonus < best_key[sel]  # the bonus only orders claims of equal distance
            best_key[sel[better]] = (d - bonus)[better]
            best[sel[better]] = d[better]
            best_action[sel[better]] = action[better] if isinstance(action, np.ndarray) else action
        return np.where(best < now, best_action, A.PASS).astype(np.int64)


class EfficientAgent(RuleBasedAgent):
    """The rule agent whose nearest discards are ranked by 进张 first (module docstring)."""

    name = "efficient"
    IMPROVEMENT_WEIGHT = 1000.0
    """Key per improving tile: more than the rule agent's whole tie range (200), so 进张 decides first."""

    def _discard_keys(self, o, hands, hui, discard_ok, rng) -> tuple[np.ndarray, np.ndarray]:
        key, best = super()._discard_keys(o, hands, hui, discard_ok, rng)
        r, t, _ = self.nearest_discards(key)
        if len(r):
            after = hands[r] - _EYE[t]
            suits = F.own_meld_suits(o)[r]
            need = F.tiles_needed(self.rules, after, hui[r], suits)
            imp = F.improvement(self.rules, after, hui[r], F.unseen_counts(o[r]), need, suits)
            key = key.copy()
            key[r, t] -= self.IMPROVEMENT_WEIGHT * imp
        return key, best


BASELINES = ("random", "rule", "efficient")

AGENT_ENTRY_POINTS = "mj_env.agents"
"""Entry-point group through which installed packages name more agents (``agents`` declares
``pretrained``); ``mj_env`` never imports them otherwise."""


def make_baseline(name: str, rules: RulesSpec = "beijing"):
    """``"random"`` -> ``RandomAgent()``, ``"rule"`` -> ``RuleBasedAgent(rules)``, ``"efficient"`` ->
    ``EfficientAgent(rules)``. ``rules`` is checked for every name, so that a misspelt rule set is refused for
    ``"random"`` (which plays the same under any rules) as it is for the others."""
    if name == "random":
        get_rules(rules)
        return RandomAgent()
    if name == "rule":
        return RuleBasedAgent(rules)
    if name == "efficient":
        return EfficientAgent(rules)
    raise ValueError(f"unknown baseline {brief(name)}: use one of {', '.join(BASELINES)}")


def plugin_agent_names() -> tuple[str, ...]:
    """The agent names that installed packages declare in ``AGENT_ENTRY_POINTS``."""
    return tuple(sorted({ep.name for ep in entry_points(group=AGENT_ENTRY_POINTS)}))


def _declared(spec: str) -> list:
    """The entry points of ``AGENT_ENTRY_POINTS`` that the agent name ``spec`` asks for, in the order tried: one
    declaring the whole name first (a declared name may hold ':', else NAME:... could never reach it), then one
    declaring the part before ':'."""
    base = spec.split(":", 1)[0]
    declared = entry_points(group=AGENT_ENTRY_POINTS)
    return [ep for ep in declared if ep.name == spec] + [ep for ep in declared if ep.name == base]


def is_declared_agent(spec: str) -> bool:
    """Whether an installed package declares the agent name ``spec`` (``make_named_agent`` would find it)."""
    return bool(_declared(spec))


def make_named_agent(spec: str, rules: RulesSpec = "beijing"):
    """A baseline (``random``, ``rule``, ``efficient``) or an agent that an installed package names through
    ``AGENT_ENTRY_POINTS`` (``pretrained``, ``pretrained:sample``: the part before ``:`` is the entry
    point's name, unless the whole name is one; the whole name goes to its factory ``factory(spec, rules=rules)``). A ValueError
    names the known names; one whose package cannot be imported (torch missing) says what is missing."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent name must be a string (random, rule, efficient, ...), got {type(spec).__name__}")
    if spec in BASELINES:
        return make_baseline(spec, rules)
    for ep in _declared(spec):
        try:  # the factory imports what it needs when called (agents.pretrained: torch), so both are asked
            return ep.load()(spec, rules=rules)
        except ImportError as e:
            ours = ep.value.startswith(("agents.", "mj_env."))  # another package's needs are not our extra's
            raise ValueError(f"agent {spec[:40]!r} comes from {ep.value}, which needs {e.name or e}: "
                             + ("install the training extra (pip install -e '.[train]')" if ours
                                else "install what that package needs")) from None
    raise ValueError(f"unknown agent {spec[:40]!r}: use one of "
                     f"{', '.join(dict.fromkeys(BASELINES + plugin_agent_names()))}")
