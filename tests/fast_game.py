"""FastGame: the batched engine (``mj_env/engine.py``) seen through RefGame's public surface.

A thin adapter over a one-table ``Engine`` (``BatchedFastGame``: table 0 of a three-table one) so that
the scripted scenarios of ``tests/test_scenarios.py`` run unchanged on both engines::

    g = FastGame(get_rules("beijing"), wall, dealer=0)
    while g.phase != "END":
        g.step(choose(g.to_act, g.legal()))
    g.result        # the engine's settlement; g.rewards: the rewards its steps returned

Everything here is read from ``engine.state`` (table 0) and translated, never decided:

- phase "TURN" | "CLAIM" | "ROB" | "END", to_act (None at END), legal() (sorted action ids);
- hands[s] (count lists), melds[s] (``Meld(type, tiles, from_seat)`` as in RefGame: the tiles
  at face value, a chi as its run, from_seat None for a concealed kong);
- river[s]: the unclaimed discards as a list SORTED BY KIND (the engine keeps counts, so the
  order cannot be recovered; ``river_counts`` gives the counts). A discard won on leaves the
  river in both;
- flower_counts[s] (the engine counts flowers; which ones they were is not kept);
- wins (the calculator inputs of the settlement), winners, result (the settlement),
  rewards (the sum of StepResult.rewards over this hand's steps), next_dealer;
- kongs (completed kongs, by seat then meld order, not in time order), claims_from,
  shaozhuang_rounds, shaozhuang_alive, turn_tile, turn_source, drew_last, undrawn(),
  live_next, live_end, can_draw(), kong_possible(), replacements_taken, hubao_pairs(), ...

One hand per game (``hands_per_episode`` 1): at END the engine keeps the final state. Tests of
matches of several hands use ``Engine`` directly.
"""
from __future__ import annotations

import numpy as np
from ref_engine import Meld

from mj_env import actions as A
from mj_env import wall as W
from mj_env.engine import Engine
from mj_env.hand_end import hubao_pairs, kong_list
from mj_env.state import END, MELD_CHI, MELD_CONCEALED_KONG, MELD_NAMES, MELD_PONG, PHASE_NAMES


class FastGame:
    OTHER_TABLES = 0
    """Tables beside the scenario's (table 0), each playing a shuffled wall by random legal moves
    (``BatchedFastGame``)."""

    def __init__(self, rules, wall, dealer: int = 0):
        if rules.hands_per_episode != 1:
            raise ValueError("FastGame plays one hand; use Engine for a match of several hands")
        self.rules = rules
        self.engine = Engine(rules, num_tables=1 + self.OTHER_TABLES)
        others = [w.tolist() for w in W.shuffled_walls(rules, np.random.default_rng(5), self.OTHER_TABLES)] \
            if self.OTHER_TABLES else []
        dealt = self.engine.reset(walls=[list(wall), *others], dealers=[dealer] + [(dealer + 1) % 4] * len(others))
        self._other_rng = np.random.default_rng(7)
        self.rewards = [0, 0, 0, 0]
        self._result = None
        # A hand can end in the reset itself (四惠牌 on the dealer's first turn).
        self._collect(dealt)

    # ------------------------------------------------------------------ stepping
    def legal(self) -> list[int]:
        return np.flatnonzero(self.engine.legal_mask()[0]).tolist()

    def step(self, action) -> None:
        if self.phase == "END":
            raise A.ActionError(f"action {action!r} is illegal: the hand is over")
        acts = [action]
        if self.OTHER_TABLES:
            mask = self.engine.legal_mask()[1:].astype(bool)
            live = self.engine.state.phase[1:] != END
            acts += [int(self._other_rng.choice(np.flatnonzero(m))) if on else 0 for m, on in zip(mask, live, strict=True)]
        self._collect(self.engine.step(np.array(acts)))

    def _collect(self, res) -> None:
        self.rewards = [a + int(b) for a, b in zip(self.rewards, res.rewards[0])]
        if res.hand_over[0]:
            self._result = dict(res.settlements[0])

    # ------------------------------------------------------------------ state
    @property
    def _st(self):
        return self.engine.state

    @property
    def phase(self) -> str:
        return PHASE_NAMES[int(self._st.phase[0])]

    @property
    def to_act(self):
        return None if self.phase == "END" else int(self._st.to_act[0])

    @property
    def dealer(self) -> int:
        return int(self._st.dealer[0])

    @property
    def wall(self) -> list[int]:
        return self._st.wall[0].tolist()

    @property
    def indicator(self):
        t = int(self._st.indicator[0])
        return None if t < 0 else t

    @property
    def hui(self):
        t = int(self._st.hui[0])
        return None if t < 0 else t

    @property
    def hands(self) -> list[list[int]]:
        return self._st.hands[0].astype(int).tolist()

    @property
    def melds(self) -> list[list[Meld]]:
        st, out = self._st, []
        for s in range(4):
            seat = []
            for m in range(int(st.n_melds[0, s])):
                kind, t = int(st.meld_type[0, s, m]), int(st.meld_tile[0, s, m])
                tiles = (t, t + 1, t + 2) if kind == MELD_CHI else (t,) * (3 if kind == MELD_PONG else 4)
                frm = None if kind == MELD_CONCEALED_KONG else int(st.meld_from[0, s, m])
                seat.append(Meld(MELD_NAMES[kind], tiles, frm))
            out.append(seat)
        return out

    @property
    def meld_counts(self) -> list[list[int]]:
        """Tiles physically in each seat's melds (惠牌 fill-ins included)."""
        return self._st.meld_counts[0].astype(int).tolist()

    @property
    def river_counts(self) -> list[list[int]]:
        return self._st.river[0].astype(int).tolist()

    @property
    def river(self) -> list[list[int]]:
        return [[k for k, c in enumerate(row) for _ in range(c)] for row in self.river_counts]

    @property
    def flower_counts(self) -> list[int]:
        return self._st.flowers[0].astype(int).tolist()

    @property
    def claims_from(self) -> list[list[int]]:
        return self._st.claims[0].astype(int).tolist()

    @property
    def kongs(self) -> list[tuple]:
        return kong_list(self._st, 0)

    def hubao_pairs(self) -> list[list[int]]:
        return hubao_pairs(self.rules, self._st.claims[0])

    @property
    def shaozhuang_rounds(self) -> int:
        return int(self._st.sz_rounds[0])

    @property
    def shaozhuang_alive(self) -> bool:
        return bool(self._st.sz_alive[0])

    @property
    def ting_declared(self) -> list[bool]:
        return self._st.ting[0].tolist()

    @property
    def has_discarded(self) -> list[bool]:
        return (self._st.n_discards[0] > 0).tolist()

    @property
    def turn_tile(self):
        t = int(self._st.drawn[0])
        return None if t < 0 else t

    @property
    def turn_source(self) -> str:
        """"deal", "live", "kong" or "claim", as RefGame names the origin of the turn's tile."""
        st = self._st
        if st.after_kong[0]:
            return "kong"
        if st.drawn[0] < 0:
            return "claim"
        return "deal" if st.n_discards[0].sum() == 0 else "live"

    @property
    def drew_last(self) -> bool:
        return bool(self._st.last_draw[0])

    # ------------------------------------------------------------------ the wall
    @property
    def live_next(self) -> int:
        return int(self._st.live_pos[0])

    @property
    def live_end(self) -> int:
        return int(W.live_end(self.rules, self._st, np.array([0]))[0])

    @property
    def replacements_taken(self) -> int:
        return int(self._st.replaced[0])

    def undrawn(self) -> list[int]:
        """Tiles still in the wall (live part and tail/reserve), the indicator excluded."""
        return self._st.wall[0, self.live_next:int(self._st.tail_pos[0]) + 1].tolist()

    def can_draw(self) -> bool:
        return bool(W.live_left(self.rules, self._st, np.array([0]))[0] > 0)

    def kong_possible(self) -> bool:
        return bool(W.kong_possible(self.rules, self._st, np.array([0]))[0])

    # ------------------------------------------------------------------ end of hand
    @property
    def claimed_win_tile(self):
        """The discard won on or the robbed added-kong tile (None for a self-draw or a draw)."""
        st = self._st
        if st.phase[0] != END or not st.winners[0].any() or st.win_from[0] < 0:
            return None
        return int(st.win_tile[0])

    @property
    def result(self) -> dict:
        if self.phase != "END":
            raise ValueError("the hand has not ended")
        return self._result

    @property
    def wins(self) -> list[dict]:
        if self.phase != "END":
            return []
        res = self._result
        if "wins" in res:
            return [w["input"] for w in res["wins"]]
        return [res["input"]] if "input" in res else []

    @property
    def winners(self) -> list[int]:
        return [w["winner"] for w in self.wins]

    @property
    def next_dealer(self) -> int:
        """Stays after a dealer win or a drawn hand; else passes (rules.dealer_rotation)."""
        if self.phase != "END":
            raise ValueError("the hand has not ended")
        d = self.dealer
        if not self.wins or d in self.winners:
            return d
        return (d + (-1 if self.rules.dealer_rotation == "previous" else 1)) % 4


class BatchedFastGame(FastGame):
    """FastGame at table 0 of a three-table engine whose other tables play other walls: the engine takes
    its one-table paths (``Engine._step_one``, the one-table mask) only with one table, so this runs every
    scenario through the batched code, beside tables in other phases."""

    OTHER_TABLES = 2
