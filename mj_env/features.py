"""Observation layout ``mj_obs_v2``: the planes of ``mj_obs_v1`` plus what the rules core computes
about the acting seat's own hand, for many tables at once.

``mj_obs_v2`` is an array (N_PLANES_V2, 34) uint8 per table: planes 0-13 are exactly
``mj_env.observation`` (``mj_obs_v1``), planes 14-17 are computed from them (and the action mask)
by ``extra_planes``, so they use only what the acting seat can see. The measure is the rule-based
agent's (``mj_env.hand.hand_distance``: ``hand.tiles_to_win`` with the held 惠牌 as wildcards,
and the 缺一门 exchanges under ``lack_suit``, where a suit the seat's declared melds hold cannot be the
one dropped and a hand whose melds hold all three suits is ``hand.NO_WIN`` = 20 away), written here as
*tiles needed*:

    need(hand) = hand_distance(hand) + (1 if the concealed hand has 3k+1 tiles else 0)

the number of tiles the hand must still take in to win (a 3k+2 winning hand needs 0, a ready 3k+1
hand needs 1), so hands of both sizes compare. A tile *improves* a 3k+1 hand when drawing it
lowers the need (drawing the 惠牌 kind adds a wildcard). *Unseen* copies of a kind are 4 minus
the copies the seat sees (own hand, all melds face up, all rivers, the indicator), at least 0.

::

    plane  name                 content (one value per tile kind unless said otherwise)
    0-13   (mj_obs_v1)          mj_env.observation, unchanged
    14     P_DISCARD_NEED       3k+2 hand (own turn): need after discarding this kind, 1-14 (21: the
                                hand can no longer win);
                                0 where the kind is not held, and for a 3k+1 hand
    15     P_DISCARD_IMPROVE    3k+2 hand, for the discards of least need (P_DISCARD_NEED equal to its
                                minimum): unseen tiles that improve the hand left (the unseen
                                copies of every improving kind, summed), 0-136; 0 elsewhere
    16     P_OPTION_NEED        per option, by column (below): need after taking the option and
                                then the best discard (the one of least need); 0 where the option
                                is not legal
    17     P_OPTION_IMPROVE     per option: unseen tiles that improve the hand left by it (after
                                the best discard; the most among equally needed discards)

    column  option (planes 16, 17)
    0       OPT_NOW             the hand as it is: a 3k+1 hand (claim or rob window) as it
                                stands; a 3k+2 hand (own turn): plane 16 its own need, which
                                is the need after its best discard (the least of plane 14)
                                except that a winning hand has 0; plane 17 the unseen tiles
                                that improve the hand its best discard leaves
    1       OPT_PONG            pong the claimed tile (legal in the mask)
    2       OPT_KONG            exposed kong of the claimed tile (no discard: a replacement comes)
    3-23    OPT_CHI             chi action CHI + c in column 3 + c (c = 0-20)

Which of these a row gets is read from the size of its concealed hand (``P_HAND``), not from whose
decision it is. A 3k+2 hand is the seat's own turn, and also, in a rob window, the added kong's
declarer, whose kong tile stays in its hand until no one robs it: an observation of that seat (AEC
``observe``) holds planes 14 and 15. A 3k+1 hand gets ``OPT_NOW`` wherever it is observed (a seat
not asked too), and the claim options in a claim window as its mask offers them.

Claims take the 惠牌 into the meld where a natural copy is missing, as the engine allows under
``hui_wild_in_melds`` (the rule-based agent's reading). Values above 255 cannot occur.

``extra_planes(rules, planes, mask)`` -> (n, 4, 34) uint8; ``observe_v2`` -> (n, 18, 34) uint8
with the v1 planes first. Nothing loops over tables: the (table, discard) and (table, discard, draw)
hands of the batch are measured in one call each, as changes of one tile to the hands before them
(``tiles_needed_changed``: each hand's parts are looked up and combined once, not once per change).
``benchmarks/features_cost.py`` measures it.

Version history: v1 (``mj_env.observation``), v2 (this module).
"""
from __future__ import annotations

import numpy as np

from . import actions as A
from .hand import ORPHAN_KINDS, hand_distance, hand_distance_changed
from .messages import brief
from .observation import (
    COL_PHASE,
    N_PLANES,
    OBS_NAME,
    P_CLAIM,
    P_HAND,
    P_HUI,
    P_INDICATOR,
    P_MELDS,
    P_RIVERS,
    P_SCALARS,
    checked_mask,
    checked_planes,
)
from .rules import RuleSet, RulesSpec, get_rules
from .state import bool_among_ints, refuse_masked
from .tiles import N_KINDS, N_SUITED, SUIT_SIZE, suits_held

K = N_KINDS
FEATURES_NAME = "mj_obs_v2"
FEATURES_VERSION = 2
N_EXTRA = 4
N_PLANES_V2 = N_PLANES + N_EXTRA
OBS_SHAPE_V2 = (N_PLANES_V2, K)
assert OBS_NAME == "mj_obs_v1", "mj_obs_v2 extends mj_obs_v1; check the layout before changing this"

P_DISCARD_NEED = N_PLANES
P_DISCARD_IMPROVE = N_PLANES + 1
P_OPTION_NEED = N_PLANES + 2
P_OPTION_IMPROVE = N_PLANES + 3

OPT_NOW = 0
OPT_PONG = 1
OPT_KONG = 2
OPT_CHI = 3
N_OPTIONS = OPT_CHI + A.N_CHI

_EYE = np.eye(K, dtype=np.int8)
_PART_START = np.array([0, SUIT_SIZE, 2 * SUIT_SIZE, N_SUITED])   # first kind of each part
_SUIT_START = _PART_START[:3]
_SAME_SUIT = {s: (np.arange(s, N_SUITED) // SUIT_SIZE) == (np.arange(N_SUITED - s) // SUIT_SIZE) for s in (1, 2)}
_ORPHAN = np.isin(np.arange(K), ORPHAN_KINDS)


def _arrays(names: str, *values) -> tuple:
    """The array arguments of the helpers below as plain ndarrays (None stays None), as the hand functions
    take theirs: an np.matrix kept its 2-D rows through ``sum(axis=1)`` (``tiles_needed`` answered an (m, m)
    matrix, ``claim_takeable`` an (m, m) one), and a list or a torch tensor failed on a missing ``.sum``,
    ``.astype`` or ``.copy``. Big-endian, strided and read-only arrays pass as they are (NumPy reads them by
    their dtype). A masked entry is refused (``state.refuse_masked``), naming the argument (``names``: theirs,
    by spaces)."""
    for name, v in zip(names.split(), values):
        refuse_masked(v, name)
    return tuple(None if v is None else np.asarray(v) for v in values)


def hui_kind(planes: np.ndarray) -> np.ndarray:
    """(n,) the 惠牌 kind of each row of (n, >=14, 34) planes, -1 without 惠牌."""
    hui = np.asarray(planes)[:, P_HUI]
    return np.where(hui.any(axis=1), hui.argmax(axis=1), -1)


def unseen_counts(planes: np.ndarray) -> np.ndarray:
    """(n, 34) int64: 4 minus the copies the acting seat sees (hand, melds, rivers, indicator), >= 0."""
    if type(planes) is not np.ndarray or planes.dtype != np.uint8:  # (the observations' own pass at once)
        planes = checked_planes(planes, "planes")  # the int16 cast read a count of 65,539 as 3, and 2.7 as 2
    p = planes.astype(np.int16)
    visible = p[:, P_HAND] + p[:, P_MELDS].sum(axis=1) + p[:, P_RIVERS].sum(axis=1) + p[:, P_INDICATOR]
    return np.clip(4 - visible, 0, 4)


def own_meld_suits(planes: np.ndarray) -> np.ndarray:
    """(n, 3) bool: the suits the acting seat's declared melds hold (plane 1: chi, pong, exposed, added and
    concealed kongs), which 缺一门 counts (docs/RULES.md 5)."""
    return suits_held(np.asarray(planes)[:, P_MELDS.start])


def _claimed_tiles(tile, rows=None) -> np.ndarray:
    """The claimed ``tile`` kinds (``tile[rows]`` where ``rows`` is given) as an integer array, or a TypeError
    naming the argument: a float failed as an IndexError naming nothing, and a bool was read as kind 1 (2m).
    Only the kinds read are range-checked: a row that ``rows`` leaves out may hold anything, -1 for no claim
    included (``claim_hands`` never read it)."""
    t = np.asarray(tile)
    if t.dtype.kind not in "iu":
        raise TypeError(f"tile must be tile kinds 0-{K - 1} as integers, got dtype {t.dtype}")
    if (j := bool_among_ints(tile)) is not None:
        raise TypeError(f"tile must be tile kinds 0-{K - 1} as integers, got {tile[j]!r} at position {j}")
    if rows is not None:
        t = t[rows]
    if t.size and (t.min() < 0 or t.max() >= K):  # (-1 was read as the last kind, 7z; 34 an IndexError)
        bad = t[(t < 0) | (t >= K)].flat[0]
        raise ValueError(f"tile must be tile kinds 0-{K - 1}, got {bad.item()}")
    return t


def suits_after_claim(meld_suits: np.ndarray, before: np.ndarray, after: np.ndarray, tile: np.ndarray) -> np.ndarray:
    """(m, 3) bool: the declared melds' suits once a claim of ``tile`` (m,) has taken ``before - after`` (m, 34)
    from the concealed hand: the new meld holds those tiles and the claimed one."""
    meld_suits, before, after = _arrays("meld_suits before after", meld_suits, before, after)
    return meld_suits | suits_held(before - after + _EYE[_claimed_tiles(tile)])


def tiles_needed(rules: RuleSet, hands: np.ndarray, hui: np.ndarray, meld_suits: np.ndarray | None = None) -> np.ndarray:
    """need (module docstring) of concealed hands (m, 34) with their 惠牌 kinds (m,) and the suits of their
    declared melds (m, 3) (None: no melds; they matter under 缺一门 only) -> (m,) int16."""
    hands, hui, meld_suits = _arrays("hands hui meld_suits", hands, hui, meld_suits)
    if len(hands) == 0:
        return np.zeros(0, dtype=np.int16)
    d = hand_distance(rules, hands, hui, meld_suits).astype(np.int16)
    return d + (hands.sum(axis=1) % 3 == 1)


def tiles_needed_changed(rules: RuleSet, hands: np.ndarray, hui: np.ndarray, meld_suits: np.ndarray | None,
                         rows: np.ndarray, kinds: np.ndarray, delta: int) -> np.ndarray:
    """``tiles_needed`` of the hands ``hands[rows]`` with one tile of ``kinds`` drawn (delta +1) or discarded
    (-1), each hand's own 惠牌 kind and melds -> (len(rows),) int16, without building the changed hands
    (``hand.hand_distance_changed``)."""
    hands, hui, meld_suits, rows, kinds = _arrays("hands hui meld_suits rows kinds", hands, hui, meld_suits,
                                                  rows, kinds)
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int16)
    d = hand_distance_changed(rules, hands, hui, meld_suits, rows, kinds, delta)
    # (int64: unsigned hands, plane 0 as it is, summed to uint64, to which delta -1 was an OverflowError)
    return d + ((hands.sum(axis=1, dtype=np.int64)[rows] + delta) % 3 == 1)


def _near(hands: np.ndarray, hui: np.ndarray) -> np.ndarray:
    """(m, 34) bool: kinds a natural tile of the hand can share a group with (the same kind, or within two
    ranks in its suit), and the 惠牌 kind."""
    nat = (hands > 0) & (np.arange(K) != hui[:, None])
    near = nat.copy()
    for shift in (1, 2):
        near[:, shift:N_SUITED] |= nat[:, :N_SUITED - shift] & _SAME_SUIT[shift]
        near[:, :N_SUITED - shift] |= nat[:, shift:N_SUITED] & _SAME_SUIT[shift]
    near[np.arange(len(hands)), np.maximum(hui, 0)] |= hui >= 0
    return near


def _checked_unseen(unseen) -> np.ndarray:
    """``unseen`` (m, 34) as int16, or a ValueError where a value is not a whole number 0-4."""
    u = np.asarray(unseen)
    with np.errstate(invalid="ignore"):  # (NaN: refused below)
        ok = u.dtype.kind in "iuf" and bool(((u >= 0) & (u <= 4) & (u == np.floor(u))).all())
    if not ok:
        raise ValueError(f"unseen must hold whole numbers 0-4 (unseen copies of a kind, unseen_counts), got "
                         f"{u.dtype} {brief(u.tolist())}")
    return u.astype(np.int16)


def improvement(rules: RuleSet, hands: np.ndarray, hui: np.ndarray, unseen: np.ndarray,
                need: np.ndarray, meld_suits: np.ndarray | None = None) -> np.ndarray:
    """Unseen tiles that lower the need of 3k+1 hands: hands (m, 34), hui (m,), unseen (m, 34), need (m,)
    the hands' own need, meld_suits (m, 3) or None (``tiles_needed``) -> (m,) int16.

    A kind no natural tile can group with ("far") can only start a group of its own, so every far kind
    of one part (suit or honors; orphans apart when thirteen orphans count) answers alike: one of them is
    evaluated for all. Every (hand, kind) pair left is one row of one batched call. ``unseen`` is
    ``unseen_counts``' int16, or whole numbers 0-4 (a ValueError otherwise: the sums were cast to int16,
    so two kinds of 4.7 unseen copies counted 9)."""
    names = "hands hui unseen need meld_suits"
    hands, hui, unseen, need, meld_suits = _arrays(names, hands, hui, unseen, need, meld_suits)
    if unseen.dtype != np.int16:
        unseen = _checked_unseen(unseen)
    m = len(hands)
    near = _near(hands, hui)
    far = ~near
    if rules.thirteen_orphans:
        near |= _ORPHAN
        far &= ~_ORPHAN
    # the first far kind of each part (the three suits, the honors) stands for the part
    suits = far[:, :N_SUITED].reshape(m, 3, SUIT_SIZE)
    honors = far[:, N_SUITED:]
    has = np.concatenate([suits.any(axis=2), honors.any(axis=1, keepdims=True)], axis=1)     # (m, 4)
    first = np.concatenate([suits.argmax(axis=2) + _SUIT_START, honors.argmax(axis=1)[:, None] + N_SUITED], axis=1)
    r1, t1 = np.nonzero(near & (unseen > 0))
    r2, p2 = np.nonzero(has)
    r = np.concatenate([r1, r2])
    t = np.concatenate([t1, first[r2, p2]])
    out = np.zeros(m, dtype=np.int16)
    if len(r):
        better = tiles_needed_changed(rules, hands, hui, meld_suits, r, t, 1) < need[r]  # each hand with t drawn
        n1 = len(r1)
        good = better[:n1]
        out += np.bincount(r1[good], weights=unseen[r1[good], t1[good]], minlength=m).astype(np.int16)
        good_part = np.zeros((m, 4), dtype=bool)
        good_part[r2, p2] = better[n1:]
        part_unseen = np.add.reduceat(np.where(far, unseen, 0), _PART_START, axis=1)             # (m, 4)
        out += np.where(good_part, part_unseen, 0).sum(axis=1).astype(np.int16)
    return out


def discard_table(rules: RuleSet, hands: np.ndarray, hui: np.ndarray, unseen: np.ndarray,
                  meld_suits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For 3k+2 hands (m, 34): (need after discarding each kind, 0 where the kind is not held; improving
    unseen tiles after each discard of least need, 0 for the others), both (m, 34) int16. The worse
    discards get no count: they are not worth comparing, and leaving them out halves the cost.
    ``meld_suits`` (m, 3) or None: ``tiles_needed``."""
    hands, hui, unseen, meld_suits = _arrays("hands hui unseen meld_suits", hands, hui, unseen, meld_suits)
    need = np.zeros(hands.shape, dtype=np.int16)
    imp = np.zeros(hands.shape, dtype=np.int16)
    r, d = np.nonzero(hands > 0)
    if len(r):
        n = tiles_needed_changed(rules, hands, hui, meld_suits, r, d, -1)  # each hand with d discarded
        need[r, d] = n
        best = np.where(need > 0, need, np.iinfo(np.int16).max).min(axis=1)
        top = n == best[r]
        r, d = r[top], d[top]
        imp[r, d] = improvement(rules, hands[r] - _EYE[d], hui[r], unseen[r], n[top],
                                None if meld_suits is None else meld_suits[r])
    return need, imp


def best_discard(need: np.ndarray, imp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(least need over the held kinds, the most improving tiles among the discards of that need),
    both (m,), from ``discard_table``'s arrays."""
    need, imp = (v if v.dtype == np.int16 else v.astype(np.int64) for v in _arrays("need imp", need, imp))
    # (discard_table's int16 at once; others widened and signed: an int8 need read the fill 32767 as -1, the
    # least of every row, and an unsigned imp read the -1 below as 255 or 65535, the most of every row: the
    # planes' own uint8, plane 15 of observe_v2, gave 255 for every row)
    held = need > 0
    best = np.where(held, need, np.iinfo(np.int16).max).min(axis=1)
    at_best = held & (need == best[:, None])
    return best.astype(np.int16), np.where(at_best, imp, -1).max(axis=1).astype(np.int16)


def claim_takeable(before: np.ndarray, after: np.ndarray, kong) -> np.ndarray:
    """Which claims ``claim_hands`` made from hands the seat could take them with: (m,) bool of hands
    ``before`` and ``after`` (m, 34), ``kong`` (bool or (m,)) for exposed kongs (3 tiles from the hand,
    else 2). A mask that is not the hand's (outside input only) asks for tiles it lacks: fewer are taken,
    or a count goes below 0."""
    before, after = _arrays("before after", before, after)
    taken = before.sum(axis=1, dtype=np.int16) - after.sum(axis=1, dtype=np.int16)
    return (after >= 0).all(axis=1) & (taken == np.where(kong, 3, 2))


def claim_hands(rules: RuleSet, hands, hui, tile, rows, option) -> np.ndarray:
    """Concealed hands of ``rows`` after taking claim ``option`` of ``tile``: naturals first, the 惠牌 for a
    missing copy where ``hui_wild_in_melds`` lets it fill one (as the engine takes them); elsewhere, and in a
    row without 惠牌, nothing stands in for a missing copy, so fewer tiles are taken (``claim_takeable``).
    ``option``: OPT_PONG, OPT_KONG or OPT_CHI + c, or for chis an array of OPT_CHI + c, one per row. The one
    place this reading lives (the rule agent uses it too)."""
    hands, hui, rows = _arrays("hands hui rows", hands, hui, rows)
    after = hands[rows].astype(np.int8)
    i = np.arange(len(rows))
    h = np.maximum(hui[rows], 0)
    fill = (hui[rows] >= 0) & rules.hui_wild_in_melds   # rows whose 惠牌 may fill a missing copy
    t = _claimed_tiles(tile, rows)
    if np.isscalar(option) and option in (OPT_PONG, OPT_KONG):
        need = 2 if option == OPT_PONG else 3
        nat = np.minimum(after[i, t], need)
        after[i, t] -= nat
        after[i, h] -= np.where(fill, need - nat, 0).astype(np.int8)
        return after
    start = A.CHI_START[np.asarray(option) - OPT_CHI]
    for k in range(3):
        kind = np.full(len(rows), start + k)
        other = kind != t
        have = after[i, kind] > 0
        after[i[other & have], kind[other & have]] -= 1
        after[i[other & ~have & fill], h[other & ~have & fill]] -= 1
    return after


def _checked_inputs(planes, mask) -> tuple[np.ndarray, np.ndarray]:
    """``extra_planes``'s arguments as (n, P, 34) uint8 planes and (n, 127) bool masks, or a ValueError naming
    the argument (``observation.checked_planes`` and ``checked_mask``)."""
    planes = checked_planes(planes, "planes")
    return planes, checked_mask(mask, len(planes), A.N_ACTIONS, "mask")


def extra_planes(rules: RulesSpec, planes: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Planes 14-17 of ``mj_obs_v2`` (module docstring): planes (n, 14, 34) uint8 of ``mj_obs_v1``,
    mask (n, 127) the legal actions -> (n, 4, 34) uint8."""
    planes, mask = _checked_inputs(planes, mask)
    return _extra_planes(get_rules(rules), planes, mask)


def _extra_planes(rules: RuleSet, planes: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``extra_planes`` of inputs already checked (``_checked_inputs``: uint8 planes, bool masks)."""
    n = len(planes)
    out = np.zeros((n, N_EXTRA, K), dtype=np.int16)
    if n == 0:
        return out.astype(np.uint8)
    hands = planes[:, P_HAND].astype(np.int8)
    hui = hui_kind(planes)
    unseen = unseen_counts(planes)
    melds = own_meld_suits(planes)
    size = hands.sum(axis=1, dtype=np.int16)
    turn = np.flatnonzero(size % 3 == 2)        # own turn: a discard is due
    wait = np.flatnonzero(size % 3 == 1)        # claim or rob window

    if len(turn):
        need, imp = discard_table(rules, hands[turn], hui[turn], unseen[turn], melds[turn])
        out[turn, P_DISCARD_NEED - N_PLANES] = need
        out[turn, P_DISCARD_IMPROVE - N_PLANES] = imp
        out[turn, P_OPTION_NEED - N_PLANES, OPT_NOW] = tiles_needed(rules, hands[turn], hui[turn], melds[turn])
        out[turn, P_OPTION_IMPROVE - N_PLANES, OPT_NOW] = best_discard(need, imp)[1]
    if len(wait):
        now = tiles_needed(rules, hands[wait], hui[wait], melds[wait])
        out[wait, P_OPTION_NEED - N_PLANES, OPT_NOW] = now
        out[wait, P_OPTION_IMPROVE - N_PLANES, OPT_NOW] = improvement(
            rules, hands[wait], hui[wait], unseen[wait], now, melds[wait])

    claiming = planes[:, P_SCALARS, COL_PHASE] == 1
    tile = planes[:, P_CLAIM].argmax(axis=1)
    legal = {OPT_PONG: mask[:, A.PONG], OPT_KONG: mask[:, A.KONG]}
    legal.update({OPT_CHI + c: mask[:, A.CHI + c] for c in range(A.N_CHI)})
    opts = [(o, np.flatnonzero(claiming & ok & (size % 3 == 1))) for o, ok in legal.items()]
    opts = [(o, rows) for o, rows in opts if len(rows)]
    if opts:  # all claim options of the batch in one discard table (kongs: no discard)
        after = np.concatenate([claim_hands(rules, hands, hui, tile, rows, o) for o, rows in opts])
        rows_of = np.concatenate([rows for _, rows in opts])
        col_of = np.concatenate([np.full(len(rows), o) for o, rows in opts])
        # an option the hand cannot take (a mask that is not this hand's: outside input) is left at 0
        ok = claim_takeable(hands[rows_of], after, col_of == OPT_KONG)
        rows_of, col_of, after = rows_of[ok], col_of[ok], after[ok]
        # the new meld's suits join the declared ones: the tiles it took from the hand and the claimed tile
        ms = suits_after_claim(melds[rows_of], hands[rows_of], after, tile[rows_of])
        kong = col_of == OPT_KONG
        need = np.zeros(len(after), dtype=np.int16)
        imp = np.zeros(len(after), dtype=np.int16)
        if (~kong).any():
            d_need, d_imp = discard_table(rules, after[~kong], hui[rows_of[~kong]], unseen[rows_of[~kong]], ms[~kong])
            need[~kong], imp[~kong] = best_discard(d_need, d_imp)
        if kong.any():
            k_rows = rows_of[kong]
            need[kong] = tiles_needed(rules, after[kong], hui[k_rows], ms[kong])
            imp[kong] = improvement(rules, after[kong], hui[k_rows], unseen[k_rows], need[kong], ms[kong])
        out[rows_of, P_OPTION_NEED - N_PLANES, col_of] = need
        out[rows_of, P_OPTION_IMPROVE - N_PLANES, col_of] = imp
    return np.clip(out, 0, 255).astype(np.uint8)


def observe_v2(rules: RulesSpec, planes: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``mj_obs_v2`` observations (n, 18, 34) uint8: the v1 planes (n, 14, 34) and ``extra_planes``."""
    planes, mask = _checked_inputs(planes, mask)  # once: _extra_planes takes them as they are
    return np.concatenate([planes[:, :N_PLANES], _extra_planes(get_rules(rules), planes, mask)], axis=1)


OBS_LAYOUTS = {"v1": (OBS_NAME, N_PLANES), "v2": (FEATURES_NAME, N_PLANES_V2)}
"""The environments' ``obs=`` choices: the layout's name and its number of planes."""


def obs_layout(obs) -> str:
    """``obs`` checked: ``"v1"`` (``mj_env.observation``) or ``"v2"`` (this module)."""
    if not isinstance(obs, str) or obs not in OBS_LAYOUTS:
        raise ValueError(f"obs must be 'v1' (mj_obs_v1, the 14 planes) or 'v2' (mj_obs_v2: those and 4 planes of "
                         f"tiles still needed after each discard and claim, mj_env.features), got {brief(obs)}")
    return obs


def in_layout(obs: str, rules: RulesSpec, planes: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Planes (n, 14 or 18, 34) of either layout, and their masks (n, 127), in layout ``obs`` (``"v1"``: the
    first 14 planes; ``"v2"``: ``observe_v2`` of v1 planes, v2 planes as they are). Planes of another shape
    are a ValueError (16 planes were passed through as v2, or cut to 14 as v1)."""
    planes = np.asarray(planes)
    if planes.ndim != 3 or planes.shape[1:] not in ((N_PLANES, N_KINDS), (N_PLANES_V2, N_KINDS)):
        raise ValueError(f"planes must be (n, {N_PLANES} or {N_PLANES_V2}, {N_KINDS}), got shape {planes.shape}")
    if obs_layout(obs) == "v1":
        return planes[:, :N_PLANES]
    return observe_v2(rules, planes, mask) if planes.shape[1] == N_PLANES else planes


__all__ = [
    "FEATURES_NAME", "FEATURES_VERSION", "N_EXTRA", "N_OPTIONS", "N_PLANES_V2", "OBS_LAYOUTS", "OBS_SHAPE_V2",
    "OPT_CHI", "OPT_KONG", "OPT_NOW", "OPT_PONG", "P_DISCARD_IMPROVE", "P_DISCARD_NEED", "P_OPTION_IMPROVE",
    "P_OPTION_NEED", "discard_table", "extra_planes", "improvement", "in_layout", "obs_layout", "observe_v2", "own_meld_suits",
    "suits_after_claim", "tiles_needed", "tiles_needed_changed", "unseen_counts",
]
