"""Who pays whom for a won or drawn hand (docs/RULES.md 6), for every rule family.

Every function returns points for the four seats, ``[s0, s1, s2, s3]``, zero-sum, with the
底分 ``base`` already applied. The steps of a won hand with fan F (`win_scores`):

1. the family's hand payment (``mj_env.families``: ``hand_payments``), ``{payer: amount}``, on
   the fan doubled after 报听 where the family doubles (``ting_doubles``, quemen):

   - ``beijing``, ``quemen``: self-draw, each other player pays F; discard, the discarder pays F;
   - ``hebei``: the base score of the win type plus the bonus fan, see ``families/hebei.py``;

2. 互包 (``rules.hubao``): if the winner is bound to one seat, that seat pays the whole hand
   settlement and nobody else does; bound to two or more, each of them pays it once;
3. 烧庄 (``rules.shaozhuang``) with R rounds: the dealer pays 3 x 2^(R-1), each other seat
   gets 2^(R-1) (`shaozhuang_line`); never redirected by 互包;
4. everything times base.

A drawn hand settles 烧庄 only (`settle_draw`, `draw_scores`). Kong payments follow the family's
kong table (`kong_payments`); the environment adds them to the hand's scores.
"""
from __future__ import annotations

import numpy as np

from .families import FAMILIES, KONG_TYPES
from .messages import brief, integer_value
from .rules import MAX_BASE, RuleSet, get_rules

MAX_SHAOZHUANG_ROUNDS = (136 - 4 * 13 + 1) // 4
"""= 21, the most rounds of 烧庄 a hand can have: ``mj_env.calculator.MAX_SHAOZHUANG_ROUNDS``, whose docstring
says why. `shaozhuang_line` and `settle_draw` refuse more: the line 2^(R-1) grows without bound (R = 10**12
never ended)."""


def shaozhuang_line(rounds):
    """The 烧庄 line L: 2^(R-1) for R >= 1 rounds, 0 for none (R <= 0). Each non-dealer gets L, the
    dealer pays 3L. ``rounds``: an int -> int, or an int64 array (...) -> (...) int64; a count
    over `MAX_SHAOZHUANG_ROUNDS` is a ValueError, a bool, a float or anything but an integer a TypeError.
    Narrower integers are read as int64: 2 ** 20 in int8 (np.int8(21) rounds) was 0, and 2.5 rounds
    gave 2.83."""
    one = isinstance(rounds, (int, np.integer)) and not isinstance(rounds, (bool, np.bool_))
    arr = np.asarray(rounds)  # (read once: np.max of a torch tensor called the tensor's own max, which failed)
    if not one and arr.dtype.kind not in "iu":
        raise TypeError(f"烧庄 rounds must be integers, got {brief(rounds)} ({arr.dtype})")
    if arr.size and arr.max() > MAX_SHAOZHUANG_ROUNDS:
        bad = next(int(r) for r in arr.ravel() if r > MAX_SHAOZHUANG_ROUNDS)
        raise ValueError(f"烧庄 rounds must be at most {MAX_SHAOZHUANG_ROUNDS}, got {brief(bad)}")
    rounds = int(rounds) if one else arr.astype(np.int64, copy=False)
    on = rounds > 0
    return on * 2 ** ((rounds - 1) * on)  # one expression for Python ints (exact) and arrays


def shaozhuang_scores(dealer, rounds, base=1):
    """烧庄 points, times ``base``: the dealer -3L, each other seat +L (L = `shaozhuang_line`).
    ``dealer``, ``rounds``: ints -> [4 ints]; or int64 arrays (n,) -> (n, 4) int64."""
    line = shaozhuang_line(rounds)
    if np.ndim(line) == 0:
        return [(-3 * line if seat == dealer else line) * base for seat in range(4)]
    scores = np.repeat(line[:, None] * base, 4, axis=1)
    scores[np.arange(len(scores)), dealer] = -3 * line * base
    return scores


def hubao_partners(rules: RuleSet, winner: int, hubao) -> list[int]:
    """The seats the winner is bound to by 互包 (``hubao``: seat pairs), sorted; none without
    ``rules.hubao``."""
    if not rules.hubao:
        return []
    return sorted({b if a == winner else a for a, b in hubao if winner in (a, b)})


def win_scores(rules: RuleSet, fan: int, winner: int, dealer: int, discarder: int | None, *,
               hubao=(), shaozhuang_rounds: int = 0, ting: bool = False, base: int = 1) -> list[int]:
    """Points of the four seats for a won hand: hand settlement, 互包, 烧庄, times base.
    ``discarder`` None is a self-draw; ``ting``: the winner had declared 报听."""
    family = FAMILIES[rules.scoring]
    if ting and family.ting_doubles:
        fan *= 2
    pay = family.hand_payments(rules, fan, winner, dealer, discarder)
    partners = hubao_partners(rules, winner, hubao)
    if partners:
        whole = sum(pay.values())
        pay = {p: whole for p in partners}
    scores = [0] * 4
    for payer, amount in pay.items():
        scores[payer] -= amount
        scores[winner] += amount
    if rules.shaozhuang:
        scores = [a + int(b) for a, b in zip(scores, shaozhuang_scores(dealer, shaozhuang_rounds))]
    scores = [s * base for s in scores]
    assert sum(scores) == 0, scores
    return scores


def draw_scores(rules: RuleSet, dealer, shaozhuang_rounds, base: int):
    """The 烧庄 line and points of a drawn hand (荒牌): no hand settlement; 烧庄 when
    ``rules.shaozhuang`` and ``rules.shaozhuang_on_draw``, else nothing. ``dealer`` and
    ``shaozhuang_rounds``: ints -> (line, [4 ints]); or int64 arrays (n,) -> ((n,), (n, 4))."""
    settled = rules.shaozhuang and rules.shaozhuang_on_draw
    rounds = shaozhuang_rounds if settled else shaozhuang_rounds * 0
    return shaozhuang_line(rounds), shaozhuang_scores(dealer, rounds, base)


def settle_draw(rules, dealer: int, shaozhuang_rounds: int = 0, base: int | None = None) -> dict:
    """The settlement of a drawn hand (荒牌): ``{"draw": True, "shaozhuang": S, "scores": [...]}``
    (`draw_scores`; S is 2^(R-1) when 烧庄 is settled, else 0). ``rules``: a RuleSet or a preset
    name; ``base`` defaults to ``rules.base``."""
    rules = get_rules(rules)
    base = rules.base if base is None else _checked_base(base)
    _check_seat(dealer, "dealer")
    if (not isinstance(shaozhuang_rounds, (int, np.integer)) or isinstance(shaozhuang_rounds, bool)
            or not 0 <= shaozhuang_rounds <= MAX_SHAOZHUANG_ROUNDS):  # 2^(R-1) of R = 10**12 would never end
        raise ValueError(f"shaozhuang_rounds must be an integer 0-{MAX_SHAOZHUANG_ROUNDS}, "
                         f"got {brief(shaozhuang_rounds)}")
    line, scores = draw_scores(rules, dealer, shaozhuang_rounds, base)
    return {"draw": True, "shaozhuang": line, "scores": scores}


_KONG_TYPES = {"exposed": "exposed", "kong": "exposed", "added": "added", "added_kong": "added",
               "concealed": "concealed", "concealed_kong": "concealed"}
assert set(_KONG_TYPES.values()) == set(KONG_TYPES)


def kong_payments(rules, kongs, *, base: int | None = None, drawn: bool = False) -> list[int]:
    """Kong payments of one hand (docs/RULES.md 6.2, 6.3), times base, as 4 seat scores.

    ``kongs``: iterable of ``(seat, type, from_seat_or_None)``, type ``"exposed"`` (明杠 on a
    discard; ``from_seat`` is the discarder), ``"added"`` (补杠) or ``"concealed"`` (暗杠); the
    meld type names ``kong`` / ``added_kong`` / ``concealed_kong`` are accepted too. An exposed
    kong is paid by the discarder, the others by each other seat, the amount of the family's
    kong table (``hebei``: 3 / 1 / 2, ``quemen``: 1 / 0 / 1); a family without a kong table
    (``beijing``) or rules without ``kong_payments`` pay nothing.

    In a drawn hand (``drawn=True``) the payments are void unless ``kong_payments_on_draw``.
    A robbed kong did not complete: do not list it.
    """
    rules = get_rules(rules)
    base = rules.base if base is None else _checked_base(base)
    scores = [0] * 4
    if not rules.kong_payments or (drawn and not rules.kong_payments_on_draw):
        return scores
    table = FAMILIES[rules.scoring].kong_table
    if table is None:
        return scores
    for n, kong in enumerate(kongs):
        try:
            seat, kind, source = kong
        except (TypeError, ValueError):
            raise ValueError(f"kongs[{n}] must be (seat, type, from_seat_or_None), "
                             f"got {brief(kong)}") from None
        _check_seat(seat, f"kongs[{n}] seat")
        if kind not in _KONG_TYPES:
            raise ValueError(f"kongs[{n}]: unknown kong type {brief(kind)}; use exposed, added or concealed")
        kind = _KONG_TYPES[kind]
        amount = table[kind]
        if kind == "exposed":
            _check_seat(source, f"kongs[{n}] from_seat")
            if source == seat:
                raise ValueError(f"kongs[{n}]: an exposed kong is claimed from another seat, not {seat}")
            payers = [source]
        else:
            payers = [s for s in range(4) if s != seat]
        for p in payers:
            scores[p] -= amount * base
            scores[seat] += amount * base
    return scores


def _checked_base(base) -> int:
    """``base`` as an int 1-MAX_BASE (a Python or NumPy integer, a 0-d integer array or tensor), or a
    ValueError: a float base gave float points (2.5 -> -7.5), True was 1 and an np.int8 base wrapped (100 x 3
    kong points read as 44)."""
    b = integer_value(base)
    if b is None or not 1 <= b <= MAX_BASE:
        raise ValueError(f"base must be an integer 1-{MAX_BASE:,}, got {brief(base)}")
    return b


def _check_seat(seat, what: str) -> None:
    if type(seat) is not int or not 0 <= seat <= 3:
        raise ValueError(f"{what} must be a seat 0-3, got {brief(seat)}")  # (brief: repr of a huge int fails)
