"""Strategy comparison in duplicate format: ``python -m agents.arena``.

Mahjong's luck is mostly the wall. Duplicate play takes it out: every wall (drawn from a seeded
generator with ``mj_env.wall.shuffled_walls``) is dealt once per *seating* of the agents, each
seating with the same dealer, so every agent gets to play every seat's tiles of every wall.
All hands of a batch of walls run at once as tables of one ``mj_env.engine.Engine``.

Seatings (agents A, B, C, D; one row = seats 0-3, East first):

==========  ==========================================================  ==============
agents      seatings played for each wall                               hands per wall
==========  ==========================================================  ==============
2           ABAB, BABA (two seats each, partners opposite)              2
3           every seating with one agent doubled: AABC, AACB, ABAC,     36
            ABCA, ... (the 12 orders of AABC, the 12 of BBCA, the 12
            of CCAB)
4           every order of ABCD: ABCD, ABDC, ACBD, ... (24)             24
==========  ==========================================================  ==============

In every case each agent sits in each seat equally often over one wall's seatings, and the set of
seatings is symmetric: renaming the agents, or turning the table by a seat, maps it onto itself. So
the points of a wall's seatings, per agent, are a duplicate score in which the deal's luck cancels
(the luck of the draws that follow different decisions does not, and cannot), and two copies of one
agent have the same expected score wherever they sit. Seat balance alone is not enough: with the
4 rotations of ABCD only, B always plays right after A, and in ``rule,rule,rule,random`` the rule
agent sitting after the random one scored 0.07 more per hand than its two copies (8000 walls), which
every seating of the table removes. With 2 agents the two seatings are ABAB and its rotation by one;
rotating by two, or renaming, gives the same two again.

Reported per agent:

- ``mean_points``: points per hand played (per seat-hand), with ``ci95`` a Student-t 95%
  interval over walls of the agent's per-hand mean within each wall (the hands of one wall
  are correlated, the walls are independent);
- ``win_rate``: fraction of its hands it won; ``self_draw_rate``: won by self-draw;
- ``deal_in_rate``: fraction of its hands in which it discarded the winning tile (or had its
  added kong robbed), i.e. ``settlement["input"]["discarder"]`` was its seat;
- ``avg_fan``: mean ``settlement["fan"]`` of its wins (null without wins);
- ``hands``: its seat-hands, the denominator of the rates (2 agents: twice the hands played, each agent
  holding two seats of every hand).

Beside the agents, the summary (and the ``--json`` file) holds ``walls``, ``hands_played``, ``seatings``,
``draw_rate`` (of the hands played), and from ``compare`` ``rules`` (a preset's name, or ``{"name": preset,
field: value}`` with the fields changed, as a hand record writes it), ``seed``, ``batch`` and ``common_random``:
with the agents, all a run needs to be repeated.

``summarize`` returns Python floats, with an interval that cannot be computed (one wall, so no
spread) as ``[-inf, inf]``; the ``--json`` file is strict JSON (RFC 8259, no ``Infinity`` or
``NaN``), in which such an interval is ``[null, null]``: ``json_safe`` turns every non-finite
float into None and ``json_text`` writes with ``allow_nan=False``, so a non-finite number that
slipped past would raise rather than be written.

An agent is an object with ``act(obs, rng)`` (``agents.base``) or, for search, ``act_tables(engine,
tables, rng)``, which gets the engine and the tables where it is to act and must leave them as they
were (``agents.search``). What either returns is checked (``mj_env.baselines.agent_actions``): (n,)
integers legal at their tables, else a TypeError or ``ActionError`` naming the agent; an exception the
agent raises comes back as an ``AgentError`` naming it and the tables (its own error is the cause). By
name: ``random``, ``rule``, ``efficient`` (``mj_env.baselines``), ``pretrained`` (the shipped player,
``agents.pretrained``) or the path of a checkpoint written by ``train.py`` (append ``:greedy`` to play
its most likely action instead of sampling; ``:sample``, the default, samples). A run is deterministic for a
seed and a batch size: the walls come from ``default_rng([seed, 0])`` (wall i of a seed is the same
for any ``--hands``; under ``hebei`` and ``quemen``, which draw the first dealer, the dealers are drawn after
all the walls, so a wall's dealer, and with it its deal, repeats only in runs of the same ``--hands``), agent k draws from
``default_rng([seed, 1, k])`` for all the tables of a batch together, so ``--batch`` decides which numbers
each table's sampling and tie-breaks get (train.py's evaluations play 256 walls at a time, the CLI 128).
With ``--common-random`` (``common_random=True``) they come instead from streams keyed by the seed, the wall,
the seat and the seat's decision count in the hand (``agents.common_random``): the same in both seatings of
a wall and for any ``--batch``, so identical agents score exactly 0 and the interval holds only the luck of
where two agents' choices differ. That needs an agent whose choice at a row does not depend on the other rows
it is asked about with it: a network's float32 log-probabilities move by up to about 1e-5 with the batch
(measured on CPU for the shipped player), so a near-tie could rarely go the other way (1000 walls of the
shipped player against itself on CPU scored exactly 0; other devices are not measured). Off by default,
which keeps the published runs repeatable. An agent with
``act_tables`` (``agents.search``) still gets agent k's ordinary generator: its numbers are not common, and
depend on ``--batch``, with or without it.
Seeds stay below 2**32: NumPy's ``SeedSequence`` reads a larger one as several 32-bit words, so 2**32 + k
would deal the walls of seed k's agent 0 stream. ``default_rng([seed, 0])`` is also the stream that
``Engine(seed=S)`` and ``MahjongVectorEnv(seed=S)`` deal from (``train.py --seed S`` trains on them), so the
walls of seed S are the first walls such a run sees: evaluate on seeds that no run trained on (the
evaluations here use 12345, 777 and 4242; the training runs 1, 2 and 3).

::

    python -m agents.arena --agents rule,random --hands 400 --seed 0 --json out.json --plot out.png

``--hands N`` is the number of walls; each is played once per seating (2N hands for 2 agents).
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import stat
import sys
import time
import unicodedata
import warnings
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

from agents import check_flag, checkpoint_play, is_plugin_spec, make_agent, other_plugins, path_problem
from agents.base import RulesMismatchWarning
from agents.common_random import CommonStreams, decision_keys
from agents.plot_text import drawable, rc
from agents.pretrained import DATA, is_pretrained_spec
from mj_env.baselines import BASELINES, AgentError, agent_actions, warn_rules_mismatch
from mj_env.engine import Engine
from mj_env.lines import guard_output, load_json, parse_json_int, utf8_text
from mj_env.messages import brief, shown
from mj_env.observation import observe
from mj_env.records import hand_record, rules_json
from mj_env.rules import RuleError, RuleSet, get_rules, rules_label
from mj_env.state import END
from mj_env.wall import shuffled_walls

MAX_STEPS_PER_HAND = 2000
"""A hand takes about 100-200 decisions; more than this means the engine is stuck."""

MAX_WALLS = 1_000_000
"""The bound on ``--hands`` and ``play_duplicate``'s ``n_walls`` (``check_run``): the walls are dealt at once
(about 2 KB each while shuffled)."""
MAX_HANDS = 12_000_000
"""The bound on ``--hands`` (``n_walls``) times the seatings: every hand keeps a row of results (about 250 B
with the concatenation), so all of them stay within a few GB."""
MAX_BATCH = 16_384
"""The bound on ``--batch`` (``batch_walls``: walls at once)."""
MAX_TABLES = 196_608
"""The bound on ``--batch`` (``batch_walls``) times the seatings (2, 36 or 24): the tables of one engine, a few GB
at most."""
MAX_SEED = 2**32 - 1
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")
"""File suffixes ``--plot`` accepts: formats matplotlib writes with its Agg backend."""


# --------------------------------------------------------------------------- seatings


def seatings(n_agents: int) -> np.ndarray:
    """(S, 4) agent index per seat for every seating of one wall (module docstring): 2 agents ABAB
    and BABA; 3 agents every order of the seats with one agent doubled (36); 4 agents every order (24)."""
    if n_agents == 2:
        return np.array([[0, 1, 0, 1], [1, 0, 1, 0]])
    if n_agents == 3:
        rows = sorted({order for a in range(3) for order in permutations((a, a, (a + 1) % 3, (a + 2) % 3))},
                      key=lambda r: (max(r, key=r.count), r))  # grouped by the doubled agent
        return np.array(rows)
    if n_agents == 4:
        return np.array(list(permutations(range(4))))
    raise ValueError(f"the arena seats 2, 3 or 4 agents, got {n_agents}")


def check_run(n_agents: int, n_walls, batch_walls, seed, names: tuple[str, str, str] = ("n_walls", "batch_walls",
                                                                                    "seed")) -> None:
    """The arena's bounds on a run of ``n_agents`` agents, the command line's and ``play_duplicate``'s: ``n_walls``
    integer walls in 1-MAX_WALLS and MAX_HANDS hands at most over the seatings, ``batch_walls`` in 1-MAX_BATCH and
    MAX_TABLES tables at once at most, ``seed`` in 0 to 2**32 - 1; a TypeError (not an integer) or ValueError that
    calls the three ``names`` (the command line: its flags)."""
    hands, batch, seed_name = names
    for name, value in zip(names, (n_walls, batch_walls, seed), strict=True):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {brief(value)}")
    if not 1 <= n_walls <= MAX_WALLS:
        raise ValueError(f"{hands} must be between 1 and {MAX_WALLS:,} walls, got {shown(n_walls)}")
    if not 1 <= batch_walls <= MAX_BATCH:
        raise ValueError(f"{batch} must be between 1 and {MAX_BATCH:,} walls, got {shown(batch_walls)}")
    n_seatings = len(seatings(n_agents))
    if n_walls * n_seatings > MAX_HANDS:
        raise ValueError(f"{hands} {n_walls:,} walls x {n_seatings} seatings of {n_agents} agents = "
                         f"{n_walls * n_seatings:,} hands, more than {MAX_HANDS:,}: use {hands} "
                         f"{MAX_HANDS // n_seatings:,} or fewer")
    if batch_walls * n_seatings > MAX_TABLES:
        raise ValueError(f"{batch} {batch_walls} walls x {n_seatings} seatings of {n_agents} agents = "
                         f"{batch_walls * n_seatings:,} tables at once, more than {MAX_TABLES:,}: use {batch} "
                         f"{MAX_TABLES // n_seatings:,} or fewer")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{seed_name} must be between 0 and 2**32 - 1, got {shown(seed)}")


# --------------------------------------------------------------------------- playing


@dataclass
class DuplicateResult:
    """Every hand played, one row per (wall, seating). H hands, S seatings per wall."""

    names: list[str]
    seatings: np.ndarray     # (S, 4) agent index per seat
    wall: np.ndarray         # (H,) index of the wall played
    seating: np.ndarray      # (H,) index of the seating
    seat_agent: np.ndarray   # (H, 4) agent index per seat (= seatings[seating])
    scores: np.ndarray       # (H, 4) settled points per seat
    won: np.ndarray          # (H, 4) bool, the seat won
    self_draw: np.ndarray    # (H, 4) bool, won by self-draw
    dealt_in: np.ndarray     # (H, 4) bool, the seat discarded the winning tile / was robbed
    fan: np.ndarray          # (H, 4) fan of the seat's win, 0 otherwise
    drawn: np.ndarray        # (H,) bool, the hand was drawn (荒牌)
    deals: np.ndarray | None = None  # (H, 4, 34) concealed tiles right after the deal, if recorded
    records: list[dict] | None = None  # (H,) hand records (mj_env.records), if recorded


def _wins(settlement: dict) -> list[dict]:
    if settlement.get("draw"):
        return []
    return settlement.get("wins", [settlement])


def play_duplicate(agents: list, n_walls: int, seed: int = 0, rules: str | RuleSet = "beijing",
                   batch_walls: int = 128, record_deals: bool = False, progress=None,
                   record_hands=False, labels: list[str] | None = None,
                   common_random: bool = False) -> DuplicateResult:
    """Play ``n_walls`` walls in every seating of ``agents`` (2-4 objects with ``act``).

    ``batch_walls`` walls (times the seatings) run as tables of one engine at a time.
    ``progress``: optional callable(walls_done) after each batch. ``record_hands``: True keeps every
    hand's record (``mj_env.records``, with the agents' names as ``players`` and the ``wall_index`` and
    ``seating``) in ``result.records``; a callable gets each batch's records instead, as they are made
    (the command line writes them out that way, so memory holds one batch of them). ``labels``: the agents'
    names in the result and the records (default: each agent's ``name``, as a str; a repeated one gets ``#2``...).
    ``common_random``: True gives every decision the random numbers of its wall, seat and place in the hand
    (``agents.common_random``), the same in every seating and for any ``batch_walls`` (not to an agent with
    ``act_tables``, which gets its ordinary generator). The
    sizes and seed are checked first (``check_run``: the command line's bounds), and every agent must have
    ``act`` or ``act_tables``.
    """
    _check_agents(agents)
    check_flag("common_random", common_random)
    check_flag("record_deals", record_deals)
    _check_output("record_hands", record_hands)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable given the walls done, got {brief(progress)}")
    check_run(len(agents), n_walls, batch_walls, seed)
    rules = _checked_rules(rules)
    _warn_rules_mismatch(agents, rules)
    seats_of = seatings(len(agents))
    wall_rng = np.random.default_rng([seed, 0])
    walls = shuffled_walls(rules, wall_rng, n_walls)
    if rules.first_dealer == "random":
        dealers = wall_rng.integers(0, 4, size=n_walls)
    else:
        dealers = np.zeros(n_walls, dtype=np.int64)
    rngs = [np.random.default_rng([seed, 1, k]) for k in range(len(agents))]
    if labels is not None and (not isinstance(labels, (list, tuple)) or len(labels) != len(agents)):
        raise ValueError(f"labels must be a list of one name per agent ({len(agents)}), got {brief(labels)}")
    names = _unique_names([utf8_text(str(x)) for x in labels] if labels is not None
                          else [utf8_text(str(getattr(a, "name", type(a).__name__))) for a in agents])

    parts, kept = [], []
    for start in range(0, n_walls, batch_walls):
        w_idx = np.arange(start, min(start + batch_walls, n_walls))
        parts.append(_play_batch(agents, rngs, rules, walls[w_idx], dealers[w_idx], w_idx, seats_of,
                                 record_deals, bool(record_hands), seed if common_random else None))
        if record_hands:
            batch = parts[-1].pop("records")
            for rec, row in zip(batch, parts[-1]["seat_agent"], strict=True):
                rec["players"] = [names[k] for k in row.tolist()]
            if callable(record_hands):
                record_hands(batch)
            else:
                kept.extend(batch)
        if progress is not None:
            progress(int(w_idx[-1]) + 1)
    cat = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return DuplicateResult(names=names, seatings=seats_of, deals=cat.pop("deals", None),
                           records=kept if bool(record_hands) and not callable(record_hands) else None, **cat)


def _checked_rules(rules) -> RuleSet:
    """``rules`` as a RuleSet the arena can play: one hand per wall, else a ValueError."""
    rules = get_rules(rules)
    if rules.hands_per_episode != 1:  # each table plays one wall; a match's later hands would be dealt unseeded
        raise ValueError(f"the duplicate arena plays one hand per wall: rules with hands_per_episode="
                         f"{rules.hands_per_episode} are not for it (use hands_per_episode=1)")
    return rules


RULES_HELP = ("rule set: a preset, beijing (default), hebei or quemen, or one of one's own as a JSON object of a preset "
              "and the fields changed (the fields of mj_env.rules.RuleSet, as a hand record writes them), e.g. "
              "'{\"name\": \"beijing\", \"chi\": false}'")
"""The ``--rules`` help of the arena and the examples (``rules_option``)."""
RULES_HELP_NO_DEFAULT = RULES_HELP.replace("beijing (default), ", "beijing, ", 1)
"""``RULES_HELP`` without its "(default)", for a parser whose formatter adds the default itself
(``argparse.ArgumentDefaultsHelpFormatter``: agents.search, agents.rollouts), which said it twice."""


def rules_option(text: str) -> RuleSet:
    """The rule set a ``--rules`` value names (the arena's, train.py's): a preset's name, or the object form of
    docs/INTERFACES.md 1, ``{"name": preset, field: value, ...}``, as JSON text, read as the calculator reads a line
    (a key given twice, NaN or a number too long to be a field are refused) and made by ``get_rules``. A
    ``RuleError`` (a ValueError) names what is wrong: the JSON, the field (a misspelt one with the name meant), its
    value."""
    if not isinstance(text, str):
        return get_rules(text)  # a RuleSet, or an object form, given in Python
    if not text.lstrip().startswith("{"):
        try:
            return get_rules(text)
        except RuleError as e:
            raise RuleError(f"{e}, or a rule set of one's own as a JSON object: "
                            f"'{{\"name\": \"beijing\", \"chi\": false}}'") from None
    try:
        obj = load_json(text, parse_int=parse_json_int, parse_constant=_not_a_number)
    except json.JSONDecodeError as e:
        raise RuleError(f"bad JSON: {e.msg.removesuffix(' at')} at column {e.colno}") from None
    except ValueError as e:  # a key given twice (KeyGivenTwice), NaN or Infinity
        raise RuleError(f"{e}") from None
    except RecursionError:  # '{"name": [[[[...': the calculator's "nested too deeply", not a traceback
        raise RuleError("bad JSON: nested too deeply") from None
    return get_rules(obj)  # (an integer too long to read, lines.HugeInt, is out of its field's range: RuleSet)


def _not_a_number(name: str):
    raise RuleError(f"bad JSON: {name} is not a JSON number")


def rules_argument(text: str) -> RuleSet:
    """``rules_option`` as an argparse ``type``: its error the flag's message (``argument --rules: ...``)."""
    try:
        return rules_option(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def rules_given(text: str) -> str | RuleSet:
    """``rules_argument`` for the command lines that pass ``--rules`` on to agents, engines and environments
    (agents.search, agents.rollouts, the examples, the benchmarks): a preset's name goes on as that name, the str
    they were given before they took rule sets of one's own (so a preset's run is the run it was, output and
    all); a rule set of one's own, the JSON object form, goes on as its RuleSet (one that is a preset unchanged,
    ``'{"name": "hebei"}'``, as the preset's name). Show either with ``rules_label(get_rules(value))``."""
    rules = rules_argument(text)
    if isinstance(text, str) and not text.lstrip().startswith("{"):
        return text  # (a preset's name goes on as given)
    return passed_on(rules)


def passed_on(rules: RuleSet) -> str | RuleSet:
    """``rules`` as the command lines pass it on: a preset's name as that name (a preset given as an object,
    ``'{"name": "hebei"}'``, too), a rule set of one's own as itself."""
    return rules.name if rules_json(rules) == rules.name else rules


def duplicate_rules_given(text: str) -> str | RuleSet:
    """``rules_given`` for a command line that plays the duplicate arena (``play_duplicate``): a rule set of more
    hands than one per wall is refused there too, as the flag's error, before any wall is played."""
    value = rules_given(text)
    try:
        _checked_rules(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return value


def one_hand_rules_given(text: str) -> str | RuleSet:
    """``rules_given`` for a command line that counts each episode as one hand (the RL library examples: their
    "points/hand" is an episode's return): a rule set of matches (``hands_per_episode`` > 1) is refused, as the
    flag's error, before any env is built; train.py refuses it too."""
    value = rules_given(text)
    n = get_rules(value).hands_per_episode
    if n != 1:
        raise argparse.ArgumentTypeError(f"hands_per_episode={n}: this command line counts each episode as one hand "
                                         "(its points a hand), so it plays one hand per episode (use "
                                         "hands_per_episode=1)")
    return value


def _check_output(name: str, value) -> None:
    """A TypeError unless ``value`` is True, False or a callable (a file name is not: nothing would be written)."""
    if not (isinstance(value, (bool, np.bool_)) or callable(value)):
        raise TypeError(f"{name} must be True, False or a callable given each batch's hand records, got "
                        f"{brief(value)}; to write them to a file, pass a callable that writes them")


def _check_agents(agents) -> None:
    """A TypeError unless ``agents`` is a list of agent objects (``act`` or ``act_tables``), not names."""
    if isinstance(agents, (str, bytes)) or not isinstance(agents, (list, tuple)):
        raise TypeError(f"agents must be a list of agent objects, not {brief(agents)}; load agents by name "
                        "with load_agents")
    for k, a in enumerate(agents):
        if not (hasattr(a, "act") or hasattr(a, "act_tables")):
            raise TypeError(f"agents[{k}] is a {type(a).__name__}, not an agent (an object with act(obs, rng) or "
                            "act_tables(engine, tables, rng)); load agents by name with load_agents")


def _warn_rules_mismatch(agents, rules: RuleSet) -> None:
    """A ``RulesMismatchWarning`` for each agent built for another rule set than the run's
    (``mj_env.baselines.warn_rules_mismatch``): ``RuleBasedAgent()``, built for beijing, in a quemen run would
    chase three-suit hands and still be reported as ``rule``."""
    for k, a in enumerate(agents):
        warn_rules_mismatch(a, rules, f"agents[{k}]", "run", f"build it for {rules.name} (e.g. RuleBasedAgent("
                            f"{rules.name!r}), or load_agents(specs, rules={rules.name!r}))",
                            library=(sys.modules["agents"],))  # (the agents folder: also run as __main__ by runpy)


def _unique_names(names: list[str]) -> list[str]:
    """``names`` made distinct: a repeated one gets ``#2``, ``#3``..., skipping any suffixed name that is taken (by
    another name as given, or by a suffix already handed out), so that every row and record names one agent."""
    out: list[str] = []
    for i, n in enumerate(names):
        k = names[:i].count(n)
        name = n
        while name in out or (k and name in names):
            k += 1
            name = f"{n}#{k}"
        out.append(name)
    return out


def _play_batch(agents, rngs, rules, walls, dealers, w_idx, seats_of, record_deals, record_hands=False,
                common_seed: int | None = None) -> dict:
    S = len(seats_of)
    n = len(walls)
    B = n * S
    eng = Engine(rules, num_tables=B)
    dealt = eng.reset(walls=np.repeat(walls, S, axis=0), dealers=np.repeat(dealers, S))
    seat_agent = np.tile(seats_of, (n, 1))                     # table b = wall (b // S), seating (b % S)
    out: dict[str, Any] = {
        "wall": np.repeat(w_idx, S), "seating": np.tile(np.arange(S), n), "seat_agent": seat_agent,
        "scores": np.zeros((B, 4)), "won": np.zeros((B, 4), bool), "self_draw": np.zeros((B, 4), bool),
        "dealt_in": np.zeros((B, 4), bool), "fan": np.zeros((B, 4)), "drawn": np.zeros(B, bool),
    }
    if record_deals:
        out["deals"] = eng.state.hands.copy()
    ended = np.zeros(B, dtype=bool)
    settlements = [None] * B
    steps = []  # per step, with record_hands: (tables, seats, actions) of the decisions made

    def record(res):
        for b, s in res.settlements.items():
            ended[b] = True
            settlements[b] = s
            out["scores"][b] = s["scores"]
            wins = _wins(s)
            out["drawn"][b] = not wins
            for w in wins:
                inp = w["input"]
                seat = int(inp["winner"])
                out["won"][b, seat] = True
                out["fan"][b, seat] = w["fan"]
                if inp["discarder"] is None:
                    out["self_draw"][b, seat] = True
                else:
                    out["dealt_in"][b, int(inp["discarder"])] = True

    # hands that end at the deal (四惠牌) are settled inside reset
    record(dealt)
    st = eng.state
    rows = np.arange(B)
    decisions = np.zeros((B, 4), dtype=np.int64)  # each seat's decisions so far (common random numbers)
    for _ in range(MAX_STEPS_PER_HAND):
        live = np.flatnonzero(st.phase != END)
        if not len(live):
            break
        seat = st.to_act[live].astype(np.int64)
        who = seat_agent[live, seat]
        obs = observe(rules, st, idx=live)
        mask = eng.legal_mask()[live]
        actions = np.zeros(B, dtype=np.int64)
        for k, agent in enumerate(agents):
            sel = np.flatnonzero(who == k)
            if not len(sel):
                continue
            args: tuple
            if hasattr(agent, "act_tables"):     # an engine-aware agent (search: agents.search)
                method, args = agent.act_tables, (eng, live[sel], rngs[k])
            else:
                rng = rngs[k]
                if common_seed is not None:
                    t = live[sel]
                    rng = CommonStreams(decision_keys(common_seed, out["wall"][t], seat[sel], decisions[t, seat[sel]]), rng)
                method, args = agent.act, ({"observation": obs[sel], "action_mask": mask[sel], "seat": seat[sel]}, rng)
            # (n,) legal integers, or an error naming the agent: no float truncated, bool or scalar broadcast,
            # and an exception the agent raises comes back as an AgentError naming it
            actions[live[sel]] = agent_actions(agent, method, args, mask[sel], live[sel], eng.explain_illegal)
        if record_hands:
            steps.append((live, seat, actions[live]))
        decisions[live, seat] += 1
        record(eng.step(actions))
    else:
        raise RuntimeError(f"hands still running after {MAX_STEPS_PER_HAND} steps at tables "
                           f"{rows[st.phase != END][:5].tolist()}")
    if not ended.all():
        raise RuntimeError(f"tables {np.flatnonzero(~ended)[:5].tolist()} ended without a settlement")
    if record_hands:
        out["records"] = _hand_records(rules, walls, dealers, w_idx, S, steps, settlements)
    return out


def _hand_records(rules, walls, dealers, w_idx, S, steps, settlements) -> list[dict]:
    """One record per table (``mj_env.records``) from the decisions of every step, in order."""
    B = len(settlements)
    if steps:
        tables = np.concatenate([t for t, _, _ in steps])
        order = np.argsort(tables, kind="stable")  # by table, each table's decisions in step order
        tables, seats, acts = tables[order], np.concatenate([s for _, s, _ in steps])[order], \
            np.concatenate([a for _, _, a in steps])[order]
        bounds = np.searchsorted(tables, np.arange(B + 1))
    else:
        seats = acts = np.zeros(0, dtype=np.int64)
        bounds = np.zeros(B + 1, dtype=np.int64)
    out = []
    for b in range(B):
        lo, hi = bounds[b], bounds[b + 1]
        rec = hand_record(rules, walls[b // S], int(dealers[b // S]),
                          zip(seats[lo:hi].tolist(), acts[lo:hi].tolist(), strict=True), settlements[b])
        rec["wall_index"], rec["seating"] = int(w_idx[b // S]), b % S
        out.append(rec)
    return out


# --------------------------------------------------------------------------- statistics


def missing_module(name: str, needed_for: str, extra: str = "train") -> str | None:
    """Why ``name`` cannot be imported, as one line naming what needs it and how to install it; None if it can.
    scipy and tqdm come with the ``train`` extra and matplotlib with ``plot``, not with ``pip install -e .`` (the
    environment alone), so the command lines ask before they start rather than end in a traceback (``--help``
    works without them)."""
    try:
        importlib.import_module(name)
    except ImportError:
        return (f"{name} is needed for {needed_for}: pip install {name} (it comes with the {extra} extra: "
                f"pip install -e '.[{extra}]')")
    return None


def _student_t():
    """``scipy.stats.t``, imported when first needed (the arena's module loads without scipy)."""
    try:
        from scipy import stats
    except ImportError as e:
        raise ModuleNotFoundError(missing_module("scipy", "the 95% intervals (Student-t)") or str(e)) from e
    return stats.t


def mean_ci95(values: np.ndarray, groups: np.ndarray | None = None) -> tuple[float, float, float]:
    """(mean, low, high): Student-t 95% interval (``scipy.stats.t``) of the mean of independent ``values``.
    Values all equal give that value three times: an interval of no width (``format_table`` says so); a
    single value (or group) gives (mean, -inf, inf): no interval can be computed (``summarize``).

    With ``groups`` (one label per value), the values of one group may be correlated (the positions of one
    hand share its wall) and the groups are the independent units: the mean of all values with the
    cluster-robust standard error of a ratio of group totals, sqrt(G / (G - 1) * sum_g (T_g - mean n_g)^2) / N
    for G groups of n_g values summing to T_g, and G - 1 degrees of freedom. Groups of one value each give
    the interval without groups."""
    v = np.asarray(values, dtype=np.float64)
    m = float(v.mean())
    if groups is not None:
        if np.shape(groups) != v.shape:
            raise ValueError(f"groups must give one label per value ({v.shape}), got shape {np.shape(groups)}")
        _, g = np.unique(np.asarray(groups), return_inverse=True)
    n_groups = len(v) if groups is None else int(g.max(initial=-1)) + 1
    if n_groups < 2:
        return m, float("-inf"), float("inf")
    if (v == v[0]).all():  # not v.mean() and v.std(): off by a rounding, 50 walls of 0.1 gave (0.09999999999999998,
        return float(v[0]), float(v[0]), float(v[0])  # an interval 1e-17 wide that missed 0.1, and no note)
    if n_groups == len(v):
        se = float(v.std(ddof=1)) / math.sqrt(len(v))
    else:
        resid = np.bincount(g, weights=v - m, minlength=n_groups)   # T_g - mean * n_g
        se = math.sqrt(n_groups / (n_groups - 1) * float((resid ** 2).sum())) / len(v)
    half = float(_student_t().ppf(0.975, n_groups - 1)) * se
    return m, m - half, m + half


def summarize(result: DuplicateResult) -> dict:
    """Per-agent statistics of a duplicate run, as the JSON ``--json`` writes, except that an interval
    that cannot be computed (one wall) is ``[-inf, inf]`` here and ``[null, null]`` there: write this
    with ``json_text`` (or pass it through ``json_safe``), not a bare ``json.dumps``."""
    n_walls = int(result.wall.max()) + 1 if len(result.wall) else 0
    agents = []
    for k, name in enumerate(result.names):
        mine = result.seat_agent == k                                         # (H, 4)
        count = mine.sum()
        # per wall: the agent's points over all its seats in all seatings, per hand
        wall_points = np.bincount(result.wall, weights=(result.scores * mine).sum(axis=1), minlength=n_walls)
        wall_hands = np.bincount(result.wall, weights=mine.sum(axis=1), minlength=n_walls)
        mean, low, high = mean_ci95(wall_points / wall_hands)
        wins = (result.won & mine).sum()
        agents.append({
            "name": name,
            "mean_points": mean,
            "ci95": [low, high],
            "win_rate": float(wins / count),
            "self_draw_rate": float((result.self_draw & mine).sum() / count),
            "deal_in_rate": float((result.dealt_in & mine).sum() / count),
            "avg_fan": float(result.fan[result.won & mine].mean()) if wins else None,
            "hands": int(count),
        })
    return {
        "walls": n_walls,
        "hands_played": len(result.wall),
        "seatings": result.seatings.tolist(),
        "draw_rate": float(result.drawn.mean()) if len(result.drawn) else 0.0,
        "agents": agents,
    }


def json_safe(obj):
    """``obj`` made fit for strict JSON: every non-finite float (inf, -inf, nan) becomes None, numpy
    scalars and arrays become Python numbers and lists, tuples become lists; dicts and lists are
    copied, recursively. Anything else is returned as it is (``json`` then judges it)."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def json_text(obj, indent: int | None = 2) -> str:
    """``obj`` as strict JSON text (non-finite numbers as null, see ``json_safe``), written with
    ``allow_nan=False`` so that anything non-finite left over raises ValueError instead of
    producing ``Infinity`` or ``NaN``, which JSON parsers other than Python's reject."""
    return json.dumps(json_safe(obj), indent=indent, ensure_ascii=False, allow_nan=False)


def short_name(name: str, width: int) -> str:
    """A display name: a checkpoint path keeps its last two parts (``run/final.pt``), then its end."""
    parts = name.replace("\\", "/").split("/")
    if len(parts) > 2:
        name = "/".join(parts[-3:]) if parts[-2] == "checkpoints" else "/".join(parts[-2:])
        name = name.replace("/checkpoints/", "/")
    return name if len(name) <= width else "..." + name[-(width - 3):]


def _columns(text: str) -> int:
    """Terminal columns of ``text``: East Asian wide and full-width characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _name_cell(name: str, width: int) -> str:
    """``short_name`` on one line (control characters written as escapes), cut from the front and padded to
    ``width`` terminal columns, so that a CJK name keeps the table's columns in line."""
    name = "".join(repr(c)[1:-1] if unicodedata.category(c) == "Cc" else c for c in short_name(name, width))
    if _columns(name) > width:
        while _columns(name) > width - 3:
            name = name[1:]
        name = "..." + name
    return name + " " * (width - _columns(name))


def format_table(summary: dict) -> str:
    """A plain-text table of ``summarize``'s output (or of the ``--json`` file's summary, read back)."""
    head = (f"{'agent':<28} {'points/hand':>11} {'95% CI':>18} {'win':>7} {'self-draw':>9} {'deal-in':>8} "
            f"{'avg fan':>8}")
    lines = [head, "-" * len(head)]
    for a in summary["agents"]:
        fan = "-" if a["avg_fan"] is None else f"{a['avg_fan']:.2f}"
        # a summary read back from the --json file holds a one-wall interval as [null, null]
        low, high = (bound if bound is not None else edge for bound, edge in zip(a["ci95"], (-math.inf, math.inf)))
        ci = f"[{low:+.3f}, {high:+.3f}]"
        name = _name_cell(a["name"], 28)
        lines.append(f"{name} {a['mean_points']:>+11.3f} {ci:>18} {a['win_rate']:>7.1%} "
                     f"{a['self_draw_rate']:>9.1%} {a['deal_in_rate']:>8.1%} {fan:>8}")
    lines.append(f"{summary['walls']} walls x {len(summary['seatings'])} seatings = "
                 f"{summary['hands_played']} hands, {summary['draw_rate']:.1%} drawn")
    rules = summary.get("rules")
    if isinstance(rules, dict):  # a rule set of one's own (compare(rules=RuleSet)): never shown as its bare preset
        try:
            label = rules_label(get_rules(rules))
        except (RuleError, TypeError):  # a summary read back and edited: its rules as they are
            label = json.dumps(rules, ensure_ascii=False)[:200]
        lines.append(f"rules: {label}")
    flat = [a["name"] for a in summary["agents"] if summary["walls"] > 1 and a["ci95"][0] == a["ci95"][1]]
    if flat:  # Student-t over walls that all scored the same: an interval of no width, which is no certainty
        lines.append(f"(every wall scored the same for {', '.join(flat)}, so the interval has no width: too few "
                     "walls, or agents that play every wall alike; not certainty about other walls)")
    return "\n".join(lines)


def plot(summary: dict, path: str, title: str | None = None) -> None:
    """Bar charts of points per hand (with the 95% intervals) and of win / deal-in rates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(rc()):  # a CJK font where one is installed; a '$' in an agent's name is a '$', not TeX
        _draw(plt, summary, path, title)


def _draw(plt, summary: dict, path: str, title: str | None) -> None:
    ag = summary["agents"]
    names = [drawable(short_name(a["name"], 24)) for a in ag]  # 运行 1 and 训练 1 as two names, not boxes
    x = np.arange(len(ag))
    mean = np.array([a["mean_points"] for a in ag])
    ci = np.array([[np.nan if v is None else v for v in a["ci95"]] for a in ag], dtype=np.float64)
    err = np.abs(ci.T - mean)
    no_interval = not np.isfinite(err).all()  # one wall: no spread to take an interval from
    err[~np.isfinite(err)] = 0.0
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.bar(x, mean, yerr=err, capsize=6, color=["tab:blue", "tab:orange", "tab:green", "tab:red"][:len(ag)])
    ax1.axhline(0, color="black", linewidth=0.8)
    ax1.set_xticks(x, names, rotation=15)
    ax1.set_ylabel("points per hand" + (" (no interval: one wall)" if no_interval else " (95% CI over walls)"))
    w = 0.38
    wins, deal_ins = [a["win_rate"] for a in ag], [a["deal_in_rate"] for a in ag]
    ax2.bar(x - w / 2, wins, w, label="win rate")
    ax2.bar(x + w / 2, deal_ins, w, label="deal-in rate")
    ax2.set_xticks(x, names, rotation=15)
    ax2.set_ylim(0, max(max(*wins, *deal_ins) * 1.3, 0.05))  # room above the bars for the legend
    ax2.legend(loc="upper center", ncol=2)
    walls, hands = summary["walls"], summary["hands_played"]
    fig.suptitle(drawable(title) if title else f"duplicate arena: {walls} wall{'s' * (walls != 1)}, {hands} hand{'s' * (hands != 1)}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --------------------------------------------------------------------------- command line


def _check_specs(specs) -> None:
    """A TypeError unless ``specs`` is a list of names: a str (the command line's comma-separated --agents) is
    refused, not read as a list of its characters."""
    if isinstance(specs, (str, bytes)) or not isinstance(specs, (list, tuple)):
        raise TypeError(f"specs must be a list of agent names, not {brief(specs)}; the command line's "
                        "--agents 'rule,random' is ['rule', 'random'] here")


def load_agents(specs: list[str], rules: str | RuleSet = "beijing", device: str = "cpu") -> list:
    """Agents by name (``random``, ``rule``, ``pretrained``, a checkpoint path); a ValueError names a bad one (a
    ``CheckpointError`` a checkpoint file that cannot be used). ``specs`` is a list of names, as the command line
    splits ``--agents``: a str, even ``"rule,random"``, is a TypeError."""
    _check_specs(specs)
    return [make_agent(s, rules=rules, device=device) for s in specs]


def compare(specs: list[str], hands: int, seed: int = 0, rules: str | RuleSet = "beijing", batch_walls: int = 128,
            device: str = "cpu", progress: bool = False, agents: list | None = None,
            records=None, common_random: bool = False) -> dict:
    """Load agents by name (``random``, ``rule``, ``pretrained``, a checkpoint path), unless ``agents`` are given already
    loaded from ``specs``, and summarise a duplicate run. ``records``: a callable given each batch's hand
    records (``mj_env.records``) as they are made; ``common_random`` as ``play_duplicate``. Everything is checked before an agent is loaded: ``specs`` a list
    of names (``load_agents``), ``hands``, ``batch_walls`` and ``seed`` as ``play_duplicate`` checks them, ``rules``."""
    _check_specs(specs)
    if agents is not None:
        _check_agents(agents)
        if len(agents) != len(specs):
            raise ValueError(f"compare: {len(specs)} specs for {len(agents)} agents; give one spec (its label in "
                             "the summary) per agent")
    check_run(len(specs if agents is None else agents), hands, batch_walls, seed, names=("hands", "batch_walls", "seed"))
    _checked_rules(rules)  # a preset, or rules of one hand per wall, before a network is loaded
    check_flag("common_random", common_random)
    if records is not None and not callable(records):
        raise TypeError(f"records must be None or a callable given each batch's hand records, got {brief(records)}")
    check_flag("progress", progress)
    given = agents is not None
    if agents is None:
        agents = load_agents(specs, rules=rules, device=device)
    bar = None
    if progress:
        problem = missing_module("tqdm", "the progress bar (progress=True)")
        if problem:
            raise ModuleNotFoundError(problem)
        from tqdm import tqdm

        bar = tqdm(total=hands, unit="wall", desc="arena", file=sys.stderr)
    # an agent given loaded is labelled by its spec, in the summary and in the hand records alike
    labels = [x if isinstance(x, str) else shown(x) for x in specs] if given else None
    result = play_duplicate(agents, hands, seed=seed, rules=rules, batch_walls=batch_walls,
                            progress=None if bar is None else (lambda done: bar.update(done - bar.n)),
                            record_hands=records or False, labels=labels, common_random=common_random)
    if bar is not None:
        bar.close()
    summary = summarize(result)
    # the rules as a record writes them: the preset's name, or it and the fields changed (base=5 is no beijing run)
    summary.update({"rules": rules_json(get_rules(rules)), "seed": seed, "batch": batch_walls,
                    "common_random": bool(common_random)})
    for a, label in zip(summary["agents"], specs):  # an object given as a label: its text, as the records write it
        a["spec"] = utf8_text(label) if isinstance(label, str) else shown(label)
    return summary


def _device_problem(device: str) -> str | None:
    """Why the torch ``device`` cannot run a network agent here, or None if it can."""
    try:
        from agents.networks import device_problem
    except ImportError:
        return "network agents (pretrained, checkpoints) need torch: pip install torch"
    return device_problem(device)


def output_problem(flag: str, path) -> str | None:
    """Why ``path`` cannot be written (a name the file system refuses, a missing or unwritable folder, a folder
    itself), or None. No folder is ever created. The one check of an output path for the arena and the curve
    (the benchmarks keep their own copy, ``benchmarks/_args.output_problem``, which does not import ``agents``)."""
    problem = path_problem(str(path))
    if problem:
        return f"{flag} {problem}"
    target = Path(path)
    parent = target.parent
    if target.is_dir():
        return f"{flag} {path}: is a directory; give a file name"
    if target.is_symlink() and not target.exists():  # a link to a file not there yet: written in the link's target
        parent = Path(os.path.realpath(target)).parent
    if not parent.is_dir():
        return f"{flag} {path}: no such directory: {parent}"
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"{flag} {path}: not writable"
    return None


def file_key(path) -> tuple:
    """What tells files apart (equal keys: the same file): an existing file's device and inode, so that a hard link
    (or another spelling on a case-insensitive file system) of a player's checkpoint is the checkpoint (``resolve``
    alone let ``--record LINK`` empty it); the resolved path of one not there yet. The arena's outputs are checked
    with it against its inputs and each other, and benchmarks/throughput.py's --json against its --plot."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # not there yet (a name path_problem refuses was refused before this)
        return ("path", str(Path(path).resolve()))
    return ("file", st.st_dev, st.st_ino)


def check_args(args: argparse.Namespace) -> list[str]:
    """The agent specs of the parsed command line, after checking everything that could fail later (before
    any agent is loaded or hand played); a ValueError naming the flag and what it allows."""
    specs = [s.strip() for s in args.agents.split(",")]
    if "" in specs:  # ",,rule,random" is a slip, not two agents
        raise ValueError(f"--agents: agent {specs.index('') + 1} of {args.agents[:80]!r} is empty; give 2-4 "
                         "comma-separated names")
    if not 2 <= len(specs) <= 4:
        raise ValueError(f"--agents needs 2, 3 or 4 comma-separated agents, got {len(specs)}")
    for spec in specs:
        if spec in BASELINES or is_pretrained_spec(spec) or is_plugin_spec(spec):
            continue
        path = checkpoint_play(spec)[0]
        problem = path_problem(path)
        if problem:
            raise ValueError(f"--agents: {problem}")
        if Path(path).is_file():
            continue
        if Path(path).exists():
            raise ValueError(f"--agents: {path} is not a checkpoint file (a directory or a device)")
        if path.endswith(".pt") or "/" in path or os.sep in path:
            raise ValueError(f"--agents: no such checkpoint file: {path}")
        raise ValueError(f"--agents: unknown agent {spec!r}: use random, rule, efficient, pretrained[:greedy|:sample]"
                         f"{other_plugins()} or "
                         "the path of a checkpoint (PATH, PATH:greedy or PATH:sample)")
    check_run(len(specs), args.hands, args.batch, args.seed, names=("--hands", "--batch", "--seed"))
    try:  # (parsed by main's argparse already; an argparse.Namespace built in Python may hold the text)
        rules = _checked_rules(rules_option(args.rules))
        # a preset goes on as its name, as the command line gave it before it took rule sets of one's own (an
        # installed agent's factory(name, rules=rules) got the str 'beijing'); a rule set of one's own as the RuleSet
        args.rules = passed_on(rules)
    except ValueError as e:  # a RuleError names the presets, the field and its value
        raise ValueError(f"--rules: {e}") from None
    if any(s not in BASELINES for s in specs):  # only network agents use the device
        problem = _device_problem(args.device)
        if problem:
            raise ValueError(problem)
    inputs = {file_key(path) for path in (Path(checkpoint_play(s)[0]) for s in specs) if path.is_file()}
    inputs |= {file_key(f) for f in DATA.glob("*.pt")}  # the shipped players, whichever rule set a spec names
    output_flags = (("--json", args.json), ("--plot", args.plot), ("--record", args.record))
    for flag, out in output_flags:
        if out is not None and not out.strip():  # not "no file": a slip, which would write nothing
            raise ValueError(f"{flag} {out!r}: an empty file name; give a file, or leave {flag} out")
    outputs = [(flag, out) for flag, out in output_flags if out]
    for flag, out in outputs:
        problem = path_problem(out)
        if problem:
            raise ValueError(f"{flag} {problem}")
    for flag, out in outputs:
        if file_key(out) in inputs:
            raise ValueError(f"{flag} {out}: is a player's checkpoint (of --agents, or a shipped one); writing "
                             "there would destroy it")
    for i, (flag, out) in enumerate(outputs):
        same = [f for f, o in outputs[:i] if file_key(o) == file_key(out)]
        if same:
            raise ValueError(f"{same[0]} and {flag} name the same file: {out}")
    for flag, out in outputs:
        if flag != "--plot":
            problem = output_problem(flag, out)
            if problem:
                raise ValueError(problem)
    if args.plot:
        suffix = Path(args.plot).suffix.lower().lstrip(".")
        if suffix not in PLOT_FORMATS:
            raise ValueError(f"--plot {args.plot}: the file name must end in one of "
                             f"{', '.join('.' + f for f in PLOT_FORMATS)}")
        problem = missing_module("matplotlib", "--plot", extra="plot")
        if problem:
            raise ValueError(problem)
        problem = output_problem("--plot", args.plot)
        if problem:
            raise ValueError(problem)
    for name, needed_for in (("scipy", "the arena's 95% intervals"), ("tqdm", "the progress bar (or give --quiet)")):
        problem = None if name == "tqdm" and args.quiet else missing_module(name, needed_for)
        if problem:
            raise ValueError(problem)
    return specs


def open_records(path: str):
    """``path`` opened to write hand records, emptied, and (a regular file, where the system has ``flock``) locked
    for as long as it is open: two arena runs given one ``--record`` file both wrote into it, batch by batch,
    and left records of both runs mixed and cut into each other, with no error. The second is refused (an
    OSError) before it empties anything. Special files (``/dev/stdout``, a pipe) are written as they are."""
    f = open(path, "a", encoding="utf-8")  # noqa: SIM115 (the caller closes it); "a": not emptied before the lock
    try:
        if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            try:
                import fcntl
            except ImportError:  # Windows: written as before, unguarded
                pass
            else:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise OSError("another process is writing it (an arena run with the same --record?)") from None
                except OSError:  # a file system without locks (NFS with no lock daemon: ENOLCK): written as before
                    pass
            f.truncate(0)
    except BaseException:
        f.close()
        raise
    return f


class _RecordWriteError(Exception):
    """Writing a batch of hand records failed (``--record``)."""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.arena",
                                description="Duplicate-format strategy comparison.")
    p.add_argument("--agents", required=True,
                   help="comma-separated, 2-4 of: random, rule, efficient, pretrained[:greedy|:sample], a name an installed "
                        "package declares (the mj_env.agents entry points), a checkpoint path "
                        "(optionally PATH:greedy, or PATH:sample, the default)")
    p.add_argument("--hands", type=int, default=400,
                   help=f"walls to deal (1 to {MAX_WALLS:,}; default 400); each is played in every seating")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the walls and of the agents' randomness (0 to 2**32 - 1; default 0)")
    p.add_argument("--rules", default="beijing", type=rules_argument, help=RULES_HELP)
    p.add_argument("--batch", type=int, default=128,
                   help=f"walls played at once, 1 to {MAX_BATCH:,} (default 128; times the seatings = tables); part of the "
                        "recipe: the same seed and batch repeat a run exactly (train.py's evaluations: 256)")
    p.add_argument("--device", default="cpu",
                   help="torch device for network agents (pretrained, checkpoints): cpu (default), cuda, cuda:N or mps; "
                        "checked only when one plays")
    p.add_argument("--json", default=None,
                   help="write the summary here as strict JSON; a 95%% interval that cannot be computed "
                        "(fewer than 2 walls) is [null, null]")
    p.add_argument("--plot", default=None,
                   help=f"write a bar chart here; the suffix picks the format ({', '.join(PLOT_FORMATS)})")
    p.add_argument("--record", default=None,
                   help="write every hand played here as JSON lines, one hand record each (mj_env.records: rules, "
                        "wall, dealer, every decision, settlement, players); `python -m mj_env.records FILE --show K` "
                        "replays one")
    p.add_argument("--common-random", action="store_true",
                   help="common random numbers: every decision draws the numbers of its wall, seat and place in the hand, "
                        "the same in every seating and for any --batch (agents.common_random); identical agents then "
                        "score exactly 0")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    try:  # every argument is checked before anything is loaded or played
        specs = check_args(args)
    except ValueError as e:
        p.error(str(e))
    try:
        with warnings.catch_warnings(record=True) as caught:  # a checkpoint trained under other rules: one line
            warnings.simplefilter("always", RulesMismatchWarning)
            agents = load_agents(specs, rules=args.rules, device=args.device)
    except ValueError as e:  # a checkpoint file that cannot be used (CheckpointError)
        p.error(f"--agents: {e}")
    for w in caught:  # other warnings go on as Python shows them, under the filters in force
        if issubclass(w.category, RulesMismatchWarning):
            print(f"note: {w.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if "torch" in sys.modules:  # network agents: batches of a few hundred rows gain nothing from more threads,
        sys.modules["torch"].set_num_threads(1)  # and lose tenfold when another process holds a core (measured)
    t0 = time.perf_counter()
    record_file = None
    if args.record:  # written batch by batch, so that memory holds one batch of records
        try:
            record_file = open_records(args.record)
        except OSError as e:
            print(f"python -m agents.arena: cannot write {args.record}: {e.strerror or e}", file=sys.stderr)
            return 1

    def write_records(batch):
        try:
            record_file.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in batch))
        except OSError as e:  # a full disk: stop the run here, one line and exit 1 below
            raise _RecordWriteError(e.strerror or str(e)) from None

    try:
        summary = compare(specs, args.hands, seed=args.seed, rules=args.rules, batch_walls=args.batch,
                          device=args.device, progress=not args.quiet, agents=agents,
                          records=write_records if record_file else None, common_random=args.common_random)
        if record_file:
            try:
                record_file.close()  # flushes the last batch
            except OSError as e:
                raise _RecordWriteError(e.strerror or str(e)) from None
    except _RecordWriteError as e:
        print(f"python -m agents.arena: cannot write {args.record}: {e}", file=sys.stderr)
        return 1
    except AgentError as e:  # an agent that failed on these hands (a checkpoint whose logits overflow): one line
        print(f"python -m agents.arena: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback; the records written so far are whole lines
        kept = f"; {args.record} holds the hands of the batches played so far" if record_file else ""
        print(f"python -m agents.arena: interrupted (Ctrl-C), no summary{kept}", file=sys.stderr)
        return 130  # as a shell reports a command ended by Ctrl-C (128 + SIGINT)
    finally:
        if record_file and not record_file.closed:
            record_file.close()  # (flushes the batches written: a batch is written whole, records end in newlines)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    print(format_table(summary))
    target = None
    try:  # checked up front, a write can still fail (a full disk, /proc): one line, exit 1, no traceback
        if args.json:
            target = args.json
            text = json_text(summary)  # before opening, so a failure leaves no truncated file
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        if args.plot:
            target = args.plot
            plot(summary, args.plot)
    except OSError as e:
        print(f"python -m agents.arena: cannot write {target}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    guard_output("python -m agents.arena")  # the table to a reader that left (| true): dropped; --json, --plot are written all the same
    raise SystemExit(main())
