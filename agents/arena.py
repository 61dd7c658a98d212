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
  are correlated, the walls are independent). Student-t is exact for normal wall figures; points are
  discrete and skewed, so with very few walls the interval is approximate. Measured: rule against random
  (beijing) covered its 20,000-wall mean in 80% of 5,000 runs of 2 walls (two walls that score the same
  give an interval of no width), 93% of runs of 3 walls, 94-96% of runs of 5 to 100 walls; two copies of
  rule, efficient or random (beijing, hebei, quemen) covered 0 in 90-100% of runs of 100-400 walls and
  in 97-100% of runs of 2-10 walls (runs: disjoint blocks of 10,000-20,000 walls);
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

The figures, the ``--json`` file (strict JSON: an interval that cannot be computed is ``[null, null]``), the
table and the ``--plot`` chart are made by ``agents.arena_report``; the ``--rules`` argument is read by
``agents.rules_args``. This module plays (``seatings``, ``check_run``, ``play_duplicate``) and runs the command
line (``load_agents``, ``compare``, ``main``).

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
import contextlib
import os
import stat
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

from agents import check_flag, checkpoint_play, is_plugin_spec, make_agent, other_plugins, path_problem

# The statistics and reports, and the reading of --rules, live in their own modules. The names that users were
# shown as agents.arena.X stay importable from here: rules_option (the README, docs/modules.md), summarize (read
# beside play_duplicate), and mean_ci95, rules_given, duplicate_rules_given and one_hand_rules_given (the examples,
# which users copy, imported them from here with RULES_HELP); the code of this repository imports each from its
# module.
from agents.arena_report import (  # noqa: F401 (mean_ci95: kept as agents.arena.mean_ci95 for users)
    PLOT_FORMATS,
    format_table,
    json_text,
    mean_ci95,
    missing_module,
    plot,
    summarize,
)
from agents.base import RulesMismatchWarning
from agents.common_random import CommonStreams, decision_keys
from agents.pretrained import DATA, is_pretrained_spec
from agents.rules_args import (  # noqa: F401 (the *_given: kept as agents.arena names for users)
    RULES_HELP,
    duplicate_rules,
    duplicate_rules_given,
    one_hand_rules_given,
    passed_on,
    rules_argument,
    rules_given,
    rules_option,
)
from mj_env.baselines import BASELINES, AgentError, agent_actions, warn_rules_mismatch
from mj_env.engine import Engine
from mj_env.lines import ArgumentParser, guard_output, json_line, terminal_line, utf8_text
from mj_env.messages import brief, shown
from mj_env.observation import observe
from mj_env.records import hand_record, rules_json
from mj_env.rules import RuleSet, RulesSpec, get_rules
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


def settlement_wins(settlement: dict) -> list[dict]:
    """The wins of a settlement (docs/INTERFACES.md 2), each with its calculator ``"input"``: none for a drawn
    hand, the settlement itself for one winner, its ``"wins"`` for several."""
    if settlement.get("draw"):
        return []
    return settlement.get("wins", [settlement])


def play_duplicate(agents: list, n_walls: int, seed: int = 0, rules: RulesSpec = "beijing",
                   batch_walls: int = 128, record_deals: bool = False, progress=None,
                   record_hands: bool | Callable[[list], object] = False, labels: list[str] | None = None,
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
    rules = duplicate_rules(rules)
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
            wins = settlement_wins(s)
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


# --------------------------------------------------------------------------- command line


def _check_specs(specs) -> None:
    """A TypeError unless ``specs`` is a list of names: a str (the command line's comma-separated --agents) is
    refused, not read as a list of its characters."""
    if isinstance(specs, (str, bytes)) or not isinstance(specs, (list, tuple)):
        raise TypeError(f"specs must be a list of agent names, not {brief(specs)}; the command line's "
                        "--agents 'rule,random' is ['rule', 'random'] here")


def load_agents(specs: list[str], rules: RulesSpec = "beijing", device: str = "cpu") -> list:
    """Agents by name (``random``, ``rule``, ``pretrained``, a checkpoint path); a ValueError names a bad one (a
    ``CheckpointError`` a checkpoint file that cannot be used). ``specs`` is a list of names, as the command line
    splits ``--agents``: a str, even ``"rule,random"``, is a TypeError."""
    _check_specs(specs)
    return [make_agent(s, rules=rules, device=device) for s in specs]


def compare(specs: list[str], hands: int, seed: int = 0, rules: RulesSpec = "beijing", batch_walls: int = 128,
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
    duplicate_rules(rules)  # a preset, or rules of one hand per wall, before a network is loaded
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
    try:
        result = play_duplicate(agents, hands, seed=seed, rules=rules, batch_walls=batch_walls,
                                progress=None if bar is None else (lambda done: bar.update(done - bar.n)),
                                record_hands=records or False, labels=labels, common_random=common_random)
    finally:  # also when an agent or records raises (Ctrl-C too): the bar's line ends before an error is told
        if bar is not None:  # (it was written onto the bar's line, and the bar drawn again once collected)
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


def player_files(specs) -> set[tuple]:
    """The ``file_key`` of every player's checkpoint an output must never write over: those ``specs`` name (agent
    specs, ``PATH[:greedy|:sample]``) and the shipped players, whichever rule set a spec names."""
    keys = {file_key(path) for path in (Path(checkpoint_play(s)[0]) for s in specs) if path.is_file()}
    return keys | {file_key(f) for f in DATA.glob("*.pt")}


@contextlib.contextmanager
def loading_agents():
    """Around a command line's loading of its agents (the arena's, ``agents.play``'s): once they are loaded, a
    RulesMismatchWarning (a checkpoint trained under other rules) is one ``note:`` line on standard error, a
    CheckpointWarning one ``warning:`` line naming the checkpoint's file (``tell_warning``), other warnings go on as
    Python shows them (under the filters in force); torch's one thread for the play is ``one_torch_thread``'s.
    Where loading fails, nothing is said; a CheckpointWarning that the warning filters in force made an
    exception (``-W error``) comes out as the CheckpointError (a ValueError) the command line tells for a file
    it cannot use (``agents.checkpoints.warning_refused``), not a traceback."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RulesMismatchWarning)
        try:
            yield
        except Warning as raised:
            checkpoints = sys.modules.get("agents.checkpoints")  # (not imported: the warning is not a checkpoint's)
            if checkpoints is None or not isinstance(raised, checkpoints.CheckpointWarning):
                raise
            raise checkpoints.warning_refused(raised) from None
    for w in caught:
        tell_warning(w)


@contextlib.contextmanager
def one_torch_thread():
    """Around a command line's play (the arena's, ``agents.play``'s), once its agents are loaded: torch,
    where a network agent loaded it, runs one thread (batches of a few hundred rows gain nothing from more,
    and lose tenfold when another process holds a core: measured), and its thread count is put back when
    the play ends or raises, so that ``main(argv)`` called in a user's process (a notebook, a script) leaves
    their torch as it found it (it stayed at one thread for the rest of the process, before)."""
    torch = sys.modules.get("torch")  # (None where no network was loaded, or its import is blocked)
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def tell_warning(w: warnings.WarningMessage) -> None:
    """A warning caught while a command line loaded its agents (``loading_agents``), told as the command line tells
    it, on standard error: a RulesMismatchWarning as one ``note:`` line; a CheckpointWarning (a checkpoint with keys
    beside its format's) as one ``warning:`` line, its message, which begins with the checkpoint's file: Python
    would name the line of agents/checkpoints.py that warns, which tells the user nothing; any other as Python shows
    it. The filters in force chose what was caught (``-W ignore::UserWarning`` leaves a CheckpointWarning out); a
    Python user of ``load_checkpoint`` or ``make_agent`` gets the warning itself, naming the caller's line.
    The line is ``terminal_line``'s: a file name of a line break or an escape sequence cannot write a second line."""
    checkpoints = sys.modules.get("agents.checkpoints")  # (not imported: no checkpoint was loaded, nor torch)
    if issubclass(w.category, RulesMismatchWarning):
        print(f"note: {terminal_line(w.message)}", file=sys.stderr)
    elif checkpoints is not None and issubclass(w.category, checkpoints.CheckpointWarning):
        print(f"warning: {terminal_line(w.message)}", file=sys.stderr)
    else:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


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
        rules = duplicate_rules(rules_option(args.rules))
        # a preset goes on as its name, as the command line gave it before it took rule sets of one's own (an
        # installed agent's factory(name, rules=rules) got the str 'beijing'); a rule set of one's own as the RuleSet
        args.rules = passed_on(rules)
    except ValueError as e:  # a RuleError names the presets, the field and its value
        raise ValueError(f"--rules: {e}") from None
    # only network agents (pretrained, checkpoints) use the device: a baseline or an installed package's agent
    # (made without one, mj_env.baselines.make_named_agent) plays where torch is not installed
    if any(s not in BASELINES and not is_plugin_spec(s) for s in specs):
        problem = _device_problem(args.device)
        if problem:
            raise ValueError(problem)
    inputs = player_files(specs)
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


def _kept(record: str | None, record_file) -> str:
    """The end of the line that tells a run stopped before its summary (Ctrl-C, an agent's error): what its
    --record file holds, or nothing when the run has none."""
    return f"; {terminal_line(record)} holds the hands of the batches played so far" if record_file else ""


def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m agents.arena",
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
        with loading_agents():
            agents = load_agents(specs, rules=args.rules, device=args.device)
    except ValueError as e:  # a checkpoint file that cannot be used (CheckpointError)
        p.error(f"--agents: {e}")
    t0 = time.perf_counter()
    record_file = None
    if args.record:  # written batch by batch, so that memory holds one batch of records
        try:
            record_file = open_records(args.record)
        except OSError as e:
            print(f"python -m agents.arena: cannot write {terminal_line(args.record)}: {e.strerror or e}", file=sys.stderr)
            return 1

    def write_records(batch):
        assert record_file is not None  # (compare calls it only where the file is open)
        try:
            record_file.write("".join(json_line(r) + "\n" for r in batch))  # (a name's U+2028: escaped)
        except OSError as e:  # a full disk: stop the run here, one line and exit 1 below
            raise _RecordWriteError(e.strerror or str(e)) from None

    try:
        with one_torch_thread():
            summary = compare(specs, args.hands, seed=args.seed, rules=args.rules, batch_walls=args.batch,
                              device=args.device, progress=not args.quiet, agents=agents,
                              records=write_records if record_file else None,
                              common_random=args.common_random)
        if record_file:
            try:
                record_file.close()  # flushes the last batch
            except OSError as e:
                raise _RecordWriteError(e.strerror or str(e)) from None
    except _RecordWriteError as e:
        print(f"python -m agents.arena: cannot write {terminal_line(args.record)}: {e}", file=sys.stderr)
        return 1
    except AgentError as e:  # an agent that failed on these hands (a checkpoint whose logits overflow): one line,
        # which names what the --record file holds, as the Ctrl-C line does
        print(f"python -m agents.arena: {terminal_line(e)}{_kept(args.record, record_file)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback; the records written so far are whole lines
        print(f"python -m agents.arena: interrupted (Ctrl-C), no summary{_kept(args.record, record_file)}",
              file=sys.stderr)
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
        print(f"python -m agents.arena: cannot write {terminal_line(target)}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    guard_output("python -m agents.arena")  # the table to a reader that left (| true): dropped; --json, --plot are written all the same
    raise SystemExit(main())
