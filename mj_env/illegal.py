"""Why an action is not legal now, in words (docs/INTERFACES.md 2: an illegal action "raises an error naming
the action and why it is illegal"; docs/RULES.md 7).

``why(rules, st, b, action)`` looks at one table only when an action has already been refused, so it is
plain Python and costs nothing on the legal path. It reuses the legality helpers of ``legal.py`` and
``wall.py`` for the facts (a winning shape, a kong's replacement tile, 报听's waits) and gives the first
reason that applies, or None where the refusal comes from something it does not single out (a claim
that a seat of higher priority has taken); the engine's message always lists the legal actions too.
"""
from __future__ import annotations

import numpy as np

from . import actions as A
from . import legal
from .rules import RuleSet, rules_label
from .state import CLAIM, ROB, TURN, GameState, S
from .tiles import CODES
from .wall import kong_possible


def _one(x) -> np.ndarray:
    return np.array([int(x)])


def why(rules: RuleSet, st: GameState, b: int, action: int) -> str | None:
    """The reason ``action`` (0-126) is not legal for the seat to act at table ``b``, or None.

    Only for an action the mask has refused (the engine asks after checking its mask): of a legal one it may
    still name a reason (a pass, a 报听 discard), since it looks for the first fact that would refuse it."""
    phase, s = int(st.phase[b]), int(st.to_act[b])
    if phase == TURN:
        return _own_turn(rules, st, b, s, action)
    if phase in (CLAIM, ROB):
        return _claim(rules, st, b, s, action, robbing=phase == ROB)
    return None


def _own_turn(rules: RuleSet, st: GameState, b: int, s: int, action: int) -> str | None:
    hand = st.hands[b, s]
    if action in (A.PASS, A.PONG, A.KONG) or A.CHI <= action < A.TING:
        return (f"it is seat {s}'s own turn, and '{A.name(action)}' answers another seat's discard: "
                "discard, or kong or win where offered")
    if action == A.WIN:
        if st.claimed_turn[b]:
            return "the turn after one's own chi or pong is a discard only"
        nat, wild = legal.split_wild(rules, st, _one(b), _one(s))
        if not legal.shape_win(rules, nat, wild)[0]:
            return "the concealed hand" + (" (惠牌 wild)" if rules.hui else "") + " is not a winning hand"
        if rules.lack_suit and not legal.lacks_a_suit_with_melds(st, _one(b), _one(s), hand[None])[0]:
            return "the hand holds all three suits, and a win must lack one (缺一门)"
        return None
    if action < A.KONG_SELF:                                             # discard
        x = action - A.DISCARD
        if hand[x] == 0:
            return f"seat {s} holds no {CODES[x]}"
        if st.ting[b, s]:
            return f"after 报听 only the tile just drawn ({CODES[st.drawn[b]]}) may be discarded"
        return None
    if action < A.WIN:                                                   # concealed or added kong
        x = action - A.KONG_SELF
        if st.claimed_turn[b]:
            return "the turn after one's own chi or pong is a discard only: no kong"
        if st.ting[b, s]:
            return "after 报听 the hand stays as it is: no kong"
        if not (hand[x] == 4 or (hand[x] > 0 and st.ponged[b, s, x])):
            return (f"a kong of {CODES[x]} needs four {CODES[x]} in hand (concealed) or a pong of it and the fourth "
                    f"in hand (added); seat {s} holds {int(hand[x])} in hand and "
                    f"{'a' if st.ponged[b, s, x] else 'no'} pong of it")
        if not kong_possible(rules, st, _one(b))[0]:
            return "no tile is left to replace a kong"
        return None
    x = action - A.TING                                                  # 报听 with a discard
    if not rules.ting:
        return f"this rule set ({rules_label(rules)}) has no 报听 (ting)"
    if st.ting[b, s]:
        return f"seat {s} has declared 报听 already"
    if hand[x] == 0:
        return f"seat {s} holds no {CODES[x]}"
    return f"discarding {CODES[x]} leaves no wait that can still come, and 报听 needs one"


def _claim(rules: RuleSet, st: GameState, b: int, s: int, action: int, robbing: bool) -> str | None:
    t, d = int(st.claim_tile[b]), int(st.turn_seat[b])
    what = f"seat {d}'s added kong of {CODES[t]}" if robbing else f"seat {d}'s discard {CODES[t]}"
    if action >= A.TING and not rules.ting:
        return f"this rule set ({rules_label(rules)}) has no 报听 (ting)"
    if action < A.WIN or action >= A.TING:
        return (f"seat {s} is asked about {what}: answer pass, or a claim where offered; "
                f"'{A.name(action)}' waits for one's own turn")
    hand = st.hands[b, s]
    if action == A.WIN:
        return _no_discard_win(rules, st, b, s, t, what)
    if robbing:
        return f"{what} can only be robbed by a win: pass otherwise"
    if st.ting[b, s]:
        return "after 报听 the only claim is a win"
    # hui_wild_in_melds: 惠牌 fill a pong or kong, as legal.claim_options counts them
    h = int(st.hui[b])
    wilds = rules.hui_wild_in_melds and h >= 0 and h != t
    wild = int(hand[h]) if wilds else 0
    fill, held = (", or 惠牌 to fill in", f" and {wild} 惠牌") if wilds else ("", "")
    if action == A.PONG:
        return (f"a pong needs two {CODES[t]} in hand{fill}; seat {s} holds {int(hand[t])}{held}"
                if hand[t] + wild < 2 else None)
    if action == A.KONG:
        if hand[t] + wild < 3:
            return f"an exposed kong needs three {CODES[t]} in hand{fill}; seat {s} holds {int(hand[t])}{held}"
        return None if kong_possible(rules, st, _one(b))[0] else "no tile is left to replace a kong"
    start = int(A.CHI_START[action - A.CHI])                             # chi
    run = [start, start + 1, start + 2]
    if not rules.chi:
        return f"this rule set ({rules_label(rules)}) has no chi"
    if s != (d + 1) % S:
        return f"a chi takes only the discard of the seat before ({(s - 1) % S}); this is seat {d}'s"
    if t not in run:
        return f"'{A.name(action)}' does not hold the discarded {CODES[t]}"
    need = [x for x in run if x != t and hand[x] == 0]
    if not need:
        return None
    fill = ", or 惠牌 to fill in" if rules.hui_wild_in_melds and st.hui[b] >= 0 else ""
    return f"'{A.name(action)}' needs {' and '.join(CODES[x] for x in need)} in hand{fill}"


def _no_discard_win(rules: RuleSet, st: GameState, b: int, s: int, t: int, what: str) -> str | None:
    if rules.discard_win_concealed_only and st.open_hand[b, s]:
        return "after a chi, pong or exposed or added kong only a self-draw wins (this rule set)"
    nat, w = legal.split_wild(rules, st, _one(b), _one(s))
    if rules.self_draw_only_hui and w[0] >= rules.self_draw_only_hui:
        return f"holding {int(w[0])} 惠牌, seat {s} may only win by self-draw"
    nat[0, t] += 1
    if not legal.shape_win(rules, nat, w)[0]:
        return f"the hand with {what} (at face value) is not a winning hand"
    if rules.lack_suit:
        full = st.hands[b, s].copy()[None]
        full[0, t] += 1
        if not legal.lacks_a_suit_with_melds(st, _one(b), _one(s), full)[0]:
            return "the win would hold all three suits, and a win must lack one (缺一门)"
    return None

