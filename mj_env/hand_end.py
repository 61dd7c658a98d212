"""End of a hand: the calculator input that describes each win, and the settled points.

The engine never scores a hand itself: it writes down the win as a hand-calculator input object
(docs/INTERFACES.md 1) and asks the rules core (``mj_env.calculator``), so that the settlement in the
environment's info can be piped to ``python -m mj_env.score`` and gives the same result.
Drawn hands are settled here over the batch (``payments.draw_scores``: 烧庄 only; kong payments
where the rules settle them in a drawn hand).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import calculator
from .claims import hubao_bound
from .payments import draw_scores, kong_payments, shaozhuang_scores
from .rules import RuleSet
from .state import (
    KONG_MELDS,
    MELD_ADDED_KONG,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_NAMES,
    GameState,
    meld_tiles,
)
from .tiles import CODES, format_hand, format_tiles

_KONG_KIND = {MELD_KONG: "exposed", MELD_ADDED_KONG: "added", MELD_CONCEALED_KONG: "concealed"}


def hubao_pairs(rules: RuleSet, claims: np.ndarray) -> list[list[int]]:
    """互包 pairs [a, b] (a < b) of one table from its claims (4, 4) (``state.claims``): a claimed
    ``hubao_claims`` discards from b or b from a (``claims.hubao_bound``)."""
    if not rules.hubao:
        return []
    bound = hubao_bound(claims, claims.T, rules.hubao_claims)
    return [[a, b] for a in range(4) for b in range(a + 1, 4) if bound[a, b]]


def meld_list(st: GameState, b: int, seat: int) -> list[dict]:
    """The seat's declared melds as calculator input objects, listing their physical tiles (a
    惠牌 that fills in with ``hui_wild_in_melds`` is written as itself)."""
    out = []
    for m in range(int(st.n_melds[b, seat])):
        kind = int(st.meld_type[b, seat, m])
        meld: dict[str, str | int] = {"type": MELD_NAMES[kind], "tiles": format_tiles(meld_tiles(st, b, seat, m))}
        if kind != MELD_CONCEALED_KONG:
            meld["from"] = int(st.meld_from[b, seat, m])
        out.append(meld)
    return out


def kong_list(st: GameState, b: int) -> list[tuple]:
    """Every completed kong at table b as (seat, 'exposed'|'added'|'concealed', from or None)."""
    out = []
    for seat in range(4):
        for m in range(int(st.n_melds[b, seat])):
            kind = int(st.meld_type[b, seat, m])
            if kind in _KONG_KIND:
                frm = int(st.meld_from[b, seat, m]) if kind == MELD_KONG else None
                out.append((seat, _KONG_KIND[kind], frm))
    return out


def win_input(rules: RuleSet, st: GameState, b: int, winner: int) -> dict:
    """The calculator input object describing ``winner``'s win at table b."""
    frm = int(st.win_from[b])
    tile = int(st.win_tile[b])
    hand = st.hands[b, winner].astype(np.int64).copy()
    self_draw = frm < 0
    if self_draw:
        hand[tile] -= 1
    obj: dict[str, object] = {
        "rules": calculator.rules_json(rules),
        "hand": format_hand(hand),
        "win_tile": CODES[tile],
        "melds": meld_list(st, b, winner),
        "winner": winner,
        "dealer": int(st.dealer[b]),
        "discarder": None if self_draw else frm,
        "situation": {
            "last_tile": bool(st.last_draw[b]) if self_draw else bool(st.claim_last[b] and not st.robbed[b]),
            "after_kong": bool(self_draw and st.after_kong[b]),
            "robbed_kong": bool(st.robbed[b]),
            "first_turn": bool(st.n_discards[b, winner] == 0 and not st.any_meld[b]),
        },
        "base": rules.base,
    }
    if rules.hui:
        obj["hui"] = CODES[int(st.hui[b])]
    if rules.shaozhuang:
        obj["shaozhuang_rounds"] = int(st.sz_rounds[b])
    if rules.hubao:
        obj["hubao"] = hubao_pairs(rules, st.claims[b])
    if rules.flowers:
        obj["flowers"] = int(st.flowers[b, winner])
    if rules.ting:
        obj["ting"] = bool(st.ting[b, winner])
    return obj


def _kong_scores(rules: RuleSet, st: GameState, b: int) -> list[int]:
    kongs = kong_list(st, b)
    return kong_payments(rules, kongs) if kongs else [0, 0, 0, 0]


_NO_KONGS = (0, 0, 0, 0)


class Settlements(Mapping):
    """table -> settlement object (docs/INTERFACES.md 2) of the hands that ended in one step.

    Wins are stored as built by the rules core; drawn hands are kept as arrays and their small
    objects are built only when read, so that a step with many drawn hands costs no Python
    work per table unless someone looks.

    A table maps to the last hand that ended there. In a match (``hands_per_episode`` > 1) one step
    can end two hands at a table: the next hand is dealt at once and can end at its deal (四惠牌).
    ``every(table)`` gives them all, in order.
    """

    def __init__(self) -> None:
        self._built: dict[int, dict] = {}
        self._tables = np.zeros(0, dtype=np.int64)
        self._lines = np.zeros(0, dtype=np.int64)
        self._scores = np.zeros((0, 4), dtype=np.int64)
        self._kongs: dict[int, list[int]] = {}
        self._earlier: dict[int, list[dict]] = {}   # table -> hands that ended before its last one in this step

    def add(self, table: int, obj: dict) -> None:
        if table in self._built or (len(self._tables) and (self._tables == table).any()):
            self._push_earlier([table])
        self._built[table] = obj

    def add_draws(self, tables, lines, scores, kongs: dict | None) -> None:
        """Drawn hands at ``tables``; ``kongs``: table -> its kong payments where not all zero, or
        None where drawn hands pay none (then their objects show no kong lines)."""
        if self._built or len(self._tables):
            self._push_earlier(tables)
        self._tables = np.concatenate([self._tables, tables])
        self._lines = np.concatenate([self._lines, lines])
        self._scores = np.concatenate([self._scores, scores])
        if kongs is not None:  # a Python loop only under rules whose drawn hands pay kongs (quemen)
            for t in np.asarray(tables).tolist():
                self._kongs[int(t)] = kongs.get(int(t), _NO_KONGS)

    def _push_earlier(self, tables) -> None:
        """Move the hands already ended at ``tables`` in this step to ``_earlier``: a later one replaces them."""
        tables = np.asarray(tables, dtype=np.int64)
        built = np.fromiter(self._built, dtype=np.int64, count=len(self._built))  # int64 even when empty
        again = np.union1d(np.intersect1d(tables, self._tables), np.intersect1d(tables, built))
        for t in again.tolist():
            self._earlier.setdefault(t, []).append(self[t])
            del self._built[t]
        if len(again):
            keep = ~np.isin(self._tables, again)
            self._tables, self._lines, self._scores = self._tables[keep], self._lines[keep], self._scores[keep]

    def every(self, table) -> list[dict]:
        """Every hand that ended at ``table`` in this step, in order (the last is ``self[table]``); [] if none."""
        table = int(table)
        if table not in self:
            return []
        return [*self._earlier.get(table, []), self[table]]

    def several(self) -> list[int]:
        """The tables where more than one hand ended in this step (a match: ``every``), in order."""
        return sorted(self._earlier)

    def _draw_object(self, table: int, line: int, scores: list[int]) -> dict:
        obj = {"draw": True, "shaozhuang": line, "scores": scores}
        kongs = self._kongs.get(table)
        if kongs is not None:  # as for wins: scores = hand_scores + kong_scores
            obj["hand_scores"] = [a - b for a, b in zip(scores, kongs)]
            obj["kong_scores"] = list(kongs)
        return obj

    def __getitem__(self, table) -> dict:
        table = int(table)
        if table not in self._built:
            at = np.flatnonzero(self._tables == table)
            if not len(at):
                raise KeyError(table)
            j = int(at[-1])
            self._built[table] = self._draw_object(table, int(self._lines[j]), self._scores[j].tolist())
        return self._built[table]

    def items(self):  # pyright: ignore[reportIncompatibleMethodOverride] (a list, built in one pass)
        """(table, settlement) in table order, every drawn hand's object built in one pass (what the
        vector env reads at every step; ``Mapping.items`` would look each table up on its own)."""
        if len(self._tables):
            for t, line, sc in zip(self._tables.tolist(), self._lines.tolist(), self._scores.tolist(), strict=True):
                self._built[t] = self._draw_object(t, line, sc)
            self._tables = self._tables[:0]
            self._lines = self._lines[:0]
            self._scores = self._scores[:0]
        return sorted(self._built.items())

    def __iter__(self):
        return iter(sorted(set(self._built) | set(self._tables.tolist())))

    def __len__(self) -> int:
        return len(set(self._built) | set(self._tables.tolist()))


def hand_results(rules: RuleSet, st: GameState, idx: np.ndarray, won: np.ndarray, out: Settlements):
    """Settle the hands at tables ``idx`` (won (n,) says which were won, the rest were drawn),
    adding their settlement objects to ``out``. Returns the scores (n, 4) int64."""
    n = len(idx)
    scores = np.zeros((n, 4), dtype=np.int64)
    # Drawn hands: 烧庄 only (and kong payments where a drawn hand keeps them), batched.
    drawn = np.flatnonzero(~won)
    if len(drawn):
        tables = idx[drawn]
        line, sc = draw_scores(rules, st.dealer[tables].astype(np.int64), st.sz_rounds[tables].astype(np.int64),
                               rules.base)
        # table -> kong payments, where a drawn hand pays them (docs/RULES.md 6.4)
        draw_kongs: dict[int, list[int]] | None = None
        if rules.kong_payments and rules.kong_payments_on_draw:
            draw_kongs = {}
            has_kong = np.flatnonzero(np.isin(st.meld_type[tables], KONG_MELDS).any(axis=(1, 2)))
            for k in has_kong.tolist():
                pay = _kong_scores(rules, st, int(tables[k]))
                if any(pay):
                    draw_kongs[int(tables[k])] = pay
                    sc[k] += pay
        scores[drawn] = sc
        out.add_draws(tables, line, sc, draw_kongs)
    for j in np.flatnonzero(won).tolist():
        b = int(idx[j])
        seats = np.flatnonzero(st.winners[b]).tolist()
        frm = int(st.win_from[b])
        if frm >= 0:  # several winners on one discard: in play order from the discarder, as they were asked
            seats.sort(key=lambda w: (w - frm) % 4)
        wins = []
        for w in seats:
            obj = win_input(rules, st, b, w)
            result = calculator.evaluate(obj)
            if not result.get("legal"):
                raise AssertionError(f"engine let seat {w} win at table {b} but the rules core says "
                                     f"{result}: {obj}")
            result = dict(result)
            result["input"] = obj
            wins.append(result)
            scores[j] += result["scores"]
        rounds = int(st.sz_rounds[b]) if rules.shaozhuang else 0
        if len(wins) > 1 and rounds:  # each win's object carries the hand's one 烧庄 line: paid once
            scores[j] -= (len(wins) - 1) * np.asarray(shaozhuang_scores(int(st.dealer[b]), rounds, rules.base))
        # under kong payments every win shows them, zeros included (docs/RULES.md 6.4)
        kongs = _kong_scores(rules, st, b) if rules.kong_payments else None
        if kongs is not None:
            scores[j] += kongs
        total = [int(x) for x in scores[j]]
        if len(wins) > 1:
            # several winners (multiple_winners): the wins' sum, with 烧庄 (beijing) once, as its own line
            obj = {"wins": wins, "scores": total}
            if rules.shaozhuang:
                obj["shaozhuang"] = wins[0]["shaozhuang"]
            if kongs is not None:  # docs/RULES.md 6.4: hand_scores are the wins alone
                obj["hand_scores"] = [sum(w["scores"][i] for w in wins) for i in range(4)]
        else:
            # one winner: the calculator's object; with kong payments, "scores" is the total and
            # the calculator's own scores stay as "hand_scores"
            obj = wins[0] if kongs is None else dict(wins[0], scores=total, hand_scores=wins[0]["scores"])
        if kongs is not None:
            obj["kong_scores"] = kongs
        out.add(b, obj)
    return scores
