"""Strategy comparison: variants of the rule-based agent against it, in the duplicate arena.

Change one decision of ``RuleBasedAgent`` in a subclass, and the duplicate arena (the same walls played
twice with the seats swapped, ``agents.arena``) says with a 95% interval whether the change is worth
points. Each variant plays two seats against two rule agents:

- ``fan``: discards that weigh what the hand would be worth as well as how near it is. After each legal
  discard, three routes: any winning shape (the rule agent's distance), seven pairs alone and a one-suit
  hand (清一色; the other suits' tiles each cost one exchange, as ``mj_env.hand.hand_distance`` does for
  缺一门). A route of value V at distance d is worth V * q**d, the discard keeps the best route's worth,
  and the rule agent's own order breaks ties. ``--values`` (any shape, seven pairs, one suit) and ``--q``
  set it (worths of 0 or more); the defaults are beijing's fan (a plain win about 1.5 with 庄 and 门清无惠,
  七对子 4 and more, 清一色 6 and more).
- ``no_chi``: passes where the rule agent would chi.
- ``no_claims``: passes every chi, pong and exposed kong (wins are still taken).
- ``kong``: claims an exposed kong wherever one is legal on a discard, where the rule agent would pass or
  pong (``agents.rollouts`` measured that deviation a little above 0, within its interval).
- ``pass_ron``: passes a win on a discard while 40 (``--live``) or more live tiles are left, waiting for a
  self-draw.
- ``no_hubao``: passes a claim that would be its third from the same player (互包).
- ``combined``: ``fan``, ``pass_ron`` and ``no_hubao`` together.
- ``fan_kong``: ``fan`` and ``kong`` together (the two that common random numbers put above 0).
- ``defend``: reads the opponents from what the seat sees. Another seat threatens when it may still win
  on a discard (under beijing only a seat with no chi, pong or exposed kong, docs/RULES.md 5) and looks
  near: ``--threat-melds`` declared melds (concealed kongs included; two by default), a 报听 (quemen), or
  ``--late`` live tiles or fewer left (40 by default). While one threatens, it discards, among the discards that keep the
  rule agent's distance, the safest: the kind whose copies it sees most (fewer left for a pair or a
  triplet), and that every threatening seat has discarded itself. Where the hand is ready, the most live
  winning tiles still come first and safety only breaks their ties. It never gives up distance to defend.

Under beijing none of them is worth anything measurable (docs/training_results.md has the table):
the rule agent's speed-first play leaves little room, which is also what the rollout measurements of
``agents.rollouts`` found::

    python examples/rule_variants.py --walls 1000 --seeds 777,4242
    python examples/rule_variants.py --smoke       # seconds: 16 walls
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from agents import arena, arena_report
from agents.arena_report import missing_module
from agents.rules_args import RULES_HELP, duplicate_rules_given
from mj_env import actions as A
from mj_env import features as F
from mj_env import hand as H
from mj_env.baselines import RuleBasedAgent
from mj_env.hand import split_hui
from mj_env.lines import ArgumentParser, guard_output
from mj_env.observation import (
    COL_ASKER,
    COL_CLAIMED_BY_SELF,
    COL_CONCEALED_KONGS,
    COL_LIVE_LEFT,
    COL_PHASE,
    COL_TING,
    P_MELDS,
    P_RIVERS,
    P_SCALARS,
)
from mj_env.rules import get_rules, rules_label
from mj_env.state import CLAIM, TURN
from mj_env.tiles import N_KINDS, N_SUITS, SUIT_SIZE

_EYE = np.eye(N_KINDS, dtype=np.int8)


def route_distances(rules, counts: np.ndarray, hui: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts (m, 34) of 13-tile concealed hands with their 惠牌 kind (m,) -> distances (m,) along three
    routes: any shape the rules allow (``hand_distance``), seven pairs alone (a large number where the rules
    have no seven pairs or ask for a missing suit), the nearest one-suit hand."""
    nat, wild = split_hui(counts, hui)
    n = nat.sum(axis=1).astype(np.int16)
    any_shape = H.hand_distance(rules, counts, hui)
    singles = (nat & 1).sum(axis=1)
    pairs = np.minimum((n - singles) // 2, 7)
    seven_pairs = n - (2 * pairs + np.minimum(singles, 7 - pairs))  # wildcards pair the singles
    if not rules.seven_pairs or rules.lack_suit:
        seven_pairs = np.full_like(seven_pairs, 99)
    one_suit = []
    for suit in range(N_SUITS):
        cols = slice(SUIT_SIZE * suit, SUIT_SIZE * (suit + 1))
        only = np.zeros_like(nat)
        only[:, cols] = nat[:, cols]
        off = n - only.sum(axis=1)                                     # each tile off the suit: one exchange
        one_suit.append(H.tiles_to_win(only, wild + off, seven_pairs=True) + off)
    return any_shape, seven_pairs, np.min(np.stack(one_suit), axis=0)


def fan_settings_problem(values, q, names=("values", "q")) -> str | None:
    """Why the ``fan`` variant's worths (any shape, seven pairs, one suit) or ``q`` cannot be used, or None;
    ``names`` are what the message calls them (the CLI's flags)."""
    if len(values) != 3 or not all(np.isfinite(v) and v >= 0 for v in values):
        # a worth below 0 would rank a legal discard past the illegal ones' key
        return (f"{names[0]}: three finite worths of 0 or more (any shape, seven pairs, one suit), "
                f"not {', '.join(map(str, values))}")
    if not 0 < q < 1:
        return f"{names[1]} must lie in (0, 1), not {q}"
    return None


class FanAwareAgent(RuleBasedAgent):
    """The rule agent with discards ranked by route worth (module docstring, ``fan``)."""

    def __init__(self, rules="beijing", values=(1.5, 4.5, 7.0), q: float = 0.4):
        values, q = tuple(float(v) for v in values), float(q)
        problem = fan_settings_problem(values, q)
        if problem:
            raise ValueError(problem)
        super().__init__(rules)
        self.values, self.q = values, q
        self.name = "fan"

    def _discard_keys(self, o, hands, hui, discard_ok, rng):
        key, best = super()._discard_keys(o, hands, hui, discard_ok, rng)
        r, t = np.nonzero(key < self.ILLEGAL_KEY)
        if not len(r):
            return key, best
        after = hands[r] - _EYE[t]
        routes = route_distances(self.rules, after, hui[r])
        worth = np.max([v * self.q ** d.astype(np.float64) for v, d in zip(self.values, routes)], axis=0)
        concealed = after.sum(axis=1) >= 13       # seven pairs and the routes above need no declared meld
        worth = np.where(concealed, worth, self.values[0] * self.q ** routes[0].astype(np.float64))
        key = key.copy()
        key[r, t] = -worth * 1e7 + key[r, t]      # worth first; the rule agent's key breaks ties
        return key, best


class NoChiAgent(RuleBasedAgent):
    """The rule agent, passing where it would chi."""

    name = "no_chi"
    skipped = (A.CHI, A.CHI + A.N_CHI)

    def act(self, obs, rng):
        out = super().act(obs, rng)
        lo, hi = self.skipped
        out[(out >= lo) & (out < hi)] = A.PASS  # pass is legal wherever a claim is
        return out


class NoClaimsAgent(NoChiAgent):
    """The rule agent, passing every chi, pong and exposed kong."""

    name = "no_claims"
    skipped = (A.PONG, A.CHI + A.N_CHI)


def pass_early_wins(out: np.ndarray, obs, live: int) -> np.ndarray:
    """Actions ``out`` with a win on a discard (or a robbed kong) passed while ``live`` or more live tiles are left."""
    sc = np.asarray(obs["observation"])[:, P_SCALARS]
    early = (sc[:, COL_PHASE] != TURN) & (sc[:, COL_LIVE_LEFT] >= live)
    out[(out == A.WIN) & early] = A.PASS  # pass is legal wherever a win on a discard is
    return out


def pass_third_claims(out: np.ndarray, obs) -> np.ndarray:
    """Actions ``out`` with a chi, pong or kong passed where it would be the third claim from the same player."""
    sc = np.asarray(obs["observation"])[:, P_SCALARS]
    from_asker = sc[:, COL_CLAIMED_BY_SELF][np.arange(len(out)), sc[:, COL_ASKER].astype(np.int64)]
    third = (sc[:, COL_PHASE] == CLAIM) & (out != A.WIN) & (out != A.PASS) & (from_asker >= 2)
    out[third] = A.PASS
    return out


def claim_kongs(out: np.ndarray, obs) -> np.ndarray:
    """Actions ``out`` with an exposed kong claimed wherever one is legal (a win on the discard still comes first)."""
    out[np.asarray(obs["action_mask"])[:, A.KONG].astype(bool) & (out != A.WIN)] = A.KONG
    return out


class KongAgent(RuleBasedAgent):
    """The rule agent, claiming an exposed kong wherever it may (a win on the discard still comes first)."""

    name = "kong"

    def act(self, obs, rng):
        return claim_kongs(super().act(obs, rng), obs)


class PassRonAgent(RuleBasedAgent):
    """The rule agent, passing a win on a discard (or a robbed kong) while ``live`` or more live tiles are
    left, to wait for a self-draw, which every other player pays (3F against F, docs/RULES.md 6.1)."""

    name = "pass_ron"

    def __init__(self, rules="beijing", live: int = 40):
        super().__init__(rules)
        self.live = live

    def act(self, obs, rng):
        return pass_early_wins(super().act(obs, rng), obs, self.live)


class NoHubaoAgent(RuleBasedAgent):
    """The rule agent, passing a chi, pong or kong that would be its third claim from the same player (互包,
    docs/RULES.md 6.1): the binding only adds to what the claimer pays when that player wins."""

    name = "no_hubao"

    def act(self, obs, rng):
        return pass_third_claims(super().act(obs, rng), obs)


class CombinedAgent(FanAwareAgent):
    """``fan``, ``pass_ron`` and ``no_hubao`` at once: the three that came out a little above 0."""

    def __init__(self, rules="beijing", values=(1.5, 4.5, 7.0), q: float = 0.4, live: int = 40):
        super().__init__(rules, values, q)
        self.live, self.name = live, "combined"

    def act(self, obs, rng):
        return pass_third_claims(pass_early_wins(super().act(obs, rng), obs, self.live), obs)


class FanKongAgent(FanAwareAgent):
    """``fan`` and ``kong`` at once: the two one-decision changes that common random numbers put above 0."""

    def __init__(self, rules="beijing", values=(1.5, 4.5, 7.0), q: float = 0.4):
        super().__init__(rules, values, q)
        self.name = "fan_kong"

    def act(self, obs, rng):
        return claim_kongs(super().act(obs, rng), obs)


def threats(o: np.ndarray, rules, threat_melds: int, late: int) -> np.ndarray:
    """Observations (m, planes, 34) -> (m, 3) which other seats (offsets 1-3) threaten (module docstring,
    ``defend``). Melds are counted from the meld planes, three tiles each, a kind's fourth tile (a kong)
    adding none, plus the seat's concealed kongs."""
    meld_tiles = o[:, P_MELDS][:, 1:].astype(np.int16)                  # (m, 3, 34)
    melds = (meld_tiles.sum(axis=2) - (meld_tiles == 4).sum(axis=2)) // 3
    sc = o[:, P_SCALARS].astype(np.int16)
    melds = melds + sc[:, COL_CONCEALED_KONGS][:, 1:]
    near = (melds >= threat_melds) | (sc[:, COL_TING][:, 1:] > 0) | (sc[:, COL_LIVE_LEFT][:, None] <= late)
    if rules.discard_win_concealed_only:                                # a seat that has melded wins only by self-draw
        near &= meld_tiles.sum(axis=2) == 0
    return near


def discard_safety(o: np.ndarray, threat: np.ndarray) -> np.ndarray:
    """Observations (m, planes, 34) and which other seats threaten (m, 3) -> safety (m, 34), larger is
    safer: the share of a kind's four copies the observer sees (its hand, every meld and river, the 惠坯),
    plus 1 where every threatening seat has discarded the kind (0 in rows that no seat threatens)."""
    discarded = o[:, P_RIVERS][:, 1:] > 0                                # (m, 3, 34)
    by_all = np.where(threat[:, :, None], discarded, True).all(axis=1)
    return (4 - F.unseen_counts(o)) / 4.0 + (by_all & threat.any(axis=1, keepdims=True))


class DefendAgent(RuleBasedAgent):
    """The rule agent, discarding the safest of its nearest discards while another seat threatens (module
    docstring, ``defend``)."""

    def __init__(self, rules="beijing", threat_melds: int = 2, late: int = 40):
        super().__init__(rules)
        self.threat_melds, self.late, self.name = int(threat_melds), int(late), "defend"

    def _discard_keys(self, o, hands, hui, discard_ok, rng):
        key, best = super()._discard_keys(o, hands, hui, discard_ok, rng)
        o = np.asarray(o)
        threat = threats(o, self.rules, self.threat_melds, self.late)
        safety = discard_safety(o, threat)
        r, t, low = self.nearest_discards(key)
        keep = np.any(threat, axis=1)[r]
        r, t = r[keep], t[keep]
        key = key.copy()
        ready = best[r] == 0
        # not ready: safety first (steps of 25 in [0, 200]), the rule agent's key (within 500 of low) breaking
        # ties; ready: the rule agent's key first (one live winning tile is 1.0), safety (at most 0.8) next
        key[r, t] = np.where(ready, key[r, t] - 0.4 * safety[r, t],
                             low[r] - 100.0 * safety[r, t] + 0.001 * (key[r, t] - low[r]))
        return key, best


def variants(rules: str, values, q: float, live: int = 40, threat_melds: int = 2, late: int = 40,
             ) -> list[RuleBasedAgent]:
    return [FanAwareAgent(rules, values, q), NoChiAgent(rules), NoClaimsAgent(rules), KongAgent(rules),
            PassRonAgent(rules, live), NoHubaoAgent(rules), CombinedAgent(rules, values, q, live),
            DefendAgent(rules, threat_melds, late), FanKongAgent(rules, values, q)]


def parse_args(argv=None) -> argparse.Namespace:
    p = ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--rules", default="beijing", type=duplicate_rules_given, help=RULES_HELP)
    p.add_argument("--walls", type=int, default=1000, help="walls per seed, each played in 2 seatings")
    p.add_argument("--seeds", default="777,4242", help="comma-separated wall seeds")
    p.add_argument("--values", default="1.5,4.5,7", help="fan: worth of any shape, seven pairs, one suit")
    p.add_argument("--q", type=float, default=0.4, help="fan: worth kept per tile still to exchange, in (0, 1)")
    p.add_argument("--live", type=int, default=40, help="pass_ron: pass discard wins while this many live tiles are left")
    p.add_argument("--threat-melds", type=int, default=2,
                   help="defend: another seat with this many declared melds threatens (if it may win on a discard)")
    p.add_argument("--late", type=int, default=40,
                   help="defend: with this many live tiles left or fewer, every seat that may win on a discard threatens")
    p.add_argument("--common-random", action="store_true",
                   help="common random numbers (agents.common_random): both seatings of a wall draw the same numbers, "
                        "so a variant differs from the rule agent only where its choices do")
    p.add_argument("--smoke", action="store_true", help="16 walls in place of --walls, and only the first of --seeds: a check that it runs")
    args = p.parse_args(argv)
    try:
        args.seeds = [int(s) for s in args.seeds.split(",")]
        args.values = [float(v) for v in args.values.split(",")]
    except ValueError as e:
        p.error(f"--seeds takes integers and --values numbers, comma-separated ({e})")
    problem = fan_settings_problem(args.values, args.q, names=("--values", "--q"))
    if problem:
        p.error(problem)
    if not 0 <= args.live <= 144:
        p.error(f"--live must lie in [0, 144], not {args.live}")
    if not 1 <= args.threat_melds <= 4:
        p.error(f"--threat-melds must lie in [1, 4], not {args.threat_melds}")
    if not 0 <= args.late <= 144:
        p.error(f"--late must lie in [0, 144], not {args.late}")
    if not 1 <= args.walls <= 100_000:
        p.error(f"--walls must lie in [1, 100000], not {args.walls}")
    bad_seeds = [s for s in args.seeds if not 0 <= s < 2**32]
    if bad_seeds:
        p.error(f"--seeds must lie in [0, 2**32), not {', '.join(map(str, bad_seeds))}")
    problem = missing_module("scipy", "the 95% intervals")  # asked now, not after the walls are played
    if problem:
        p.error(problem)
    if args.smoke:
        args.walls, args.seeds = 16, args.seeds[:1]
    return args


def fan_text(avg_fan: float | None) -> str:
    """An agent's average fan for the table: "-" when it won no hand (``arena_report.summarize`` gives None)."""
    return "-" if avg_fan is None else f"{avg_fan:.2f}"


def main(argv=None) -> list[dict]:
    args = parse_args(argv)
    rows = []
    print(f"{rules_label(get_rules(args.rules))}, {args.walls} walls x 2 seatings per seed"
          f"{', common random numbers' if args.common_random else ''}; each variant against the rule agent\n")
    print("| variant | seed | points/hand [95% CI] | win | deal-in | avg fan (variant vs rule) | s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for agent in variants(args.rules, args.values, args.q, args.live, args.threat_melds, args.late):
        for seed in args.seeds:
            t0 = time.perf_counter()
            summary = arena_report.summarize(arena.play_duplicate([agent, RuleBasedAgent(args.rules)], args.walls,
                                                                  seed=seed, rules=args.rules, batch_walls=256,
                                                                  common_random=args.common_random))
            me, rule = summary["agents"]
            rows.append({"variant": agent.name, "seed": seed, **me})
            print(f"| {agent.name} | {seed} | {me['mean_points']:+.3f} [{me['ci95'][0]:+.3f}, {me['ci95'][1]:+.3f}] "
                  f"| {me['win_rate']:.1%} | {me['deal_in_rate']:.1%} "
                  f"| {fan_text(me['avg_fan'])} vs {fan_text(rule['avg_fan'])} "
                  f"| {time.perf_counter() - t0:.0f} |", flush=True)
    return rows


if __name__ == "__main__":
    guard_output("examples/rule_variants.py")  # what standard output cannot encode: an escape, not a UnicodeEncodeError
    main()
