"""Helpers of the scripted scenarios (tests/test_scenarios.py): playing named moves, reading
the legal set by name, playing a hand out to the end, and checking a settled hand.

Every helper works on a game of either engine: ``RefGame`` (tests/ref_engine.py) or
``FastGame`` (tests/fast_game.py, the batched engine).
"""
from __future__ import annotations

from collections import Counter

from ref_engine import END, Meld

from mj_env.actions import PASS, index, name
from mj_env.rules import get_rules
from mj_env.tiles import code, parse_tiles

BEIJING, HEBEI, QUEMEN = get_rules("beijing"), get_rules("hebei"), get_rules("quemen")

# Seat 1 pongs the dealer's 5m, draws the fourth 5m later and declares an added kong; seat 3
# waits on 5m (4m6m) with a concealed hand.
ROB = {"hands": {0: "111z222z333z44z5m", 1: "55m789p234s567s6z7z", 2: "11m22m33m77s88s99s6z",
                  3: "46m123p456p789p22s"},
       "draws": "5z5z5z5m", "tail": "3m"}
ROB_MOVES = [(0, "discard 5m"), (3, "pass"), (1, "pong"), (1, "discard 7z"),
             (2, "discard 5z"), (3, "discard 5z"), (0, "discard 5z")]
# The same under hebei with seat 2 waiting on 5m too (123m 123m 789s 99s, 67m: 5m or 8m): both pass the
# dealer's 5m, and seat 1's added kong opens a rob window asking seat 2, then seat 3.
TWO_ROBBERS = {**ROB, "hands": {**ROB["hands"], 2: "11m22m33m789s99s67m"}}
TWO_ROBBERS_MOVES = [(0, "discard 5m"), (2, "pass"), (3, "pass"), (1, "pong"), (1, "discard 7z"),
                     (2, "discard 5z"), (3, "discard 5z"), (0, "discard 5z"), (1, "kong 5m")]


def names(g) -> list[str]:
    """The legal action names of the seat asked now, in action-id order."""
    return [name(a) for a in g.legal()]


def play(g, *moves):
    """Each move is (seat, action name); the seat must be the one asked."""
    for seat, action in moves:
        assert (g.phase, g.to_act) != (END, None), f"hand ended before {seat}: {action}"
        assert g.to_act == seat, f"expected seat {seat} to act for {action!r}; {g.phase} seat {g.to_act}: {names(g)}"
        g.step(index(action))


def tiles(text: str) -> list[int]:
    return parse_tiles(text)


def tile(text: str) -> int:
    (t,) = parse_tiles(text)
    return t


def meld(kind: str, text: str, from_seat) -> Meld:
    return Meld(kind, tuple(parse_tiles(text)), from_seat)


def flower_counts(g) -> list[int]:
    """Flowers laid out per seat (quemen)."""
    return g.flower_counts if hasattr(g, "flower_counts") else [len(f) for f in g.flowers]


def hand_of(g, seat) -> Counter:
    return Counter({k: c for k, c in enumerate(g.hands[seat]) if c})


def counts(tile_list) -> list[int]:
    """Count list (34) of a list of tile indices."""
    out = [0] * 34
    for t in tile_list:
        out[t] += 1
    return out


def unscripted_move(seat: int, st, legal: list[str], *, win_when=None, claim=None) -> str:
    """The move the AEC env's whole-hand play-throughs (tests/test_audit_*_play.py) make after their scripted
    moves, by name: a win where ``win_when(seat, st)`` says so; in a claim window the claim that ``claim(seat,
    st, legal)`` names, else pass; on a turn the tile just drawn (the first legal discard after a claim)."""
    if win_when is not None and "win" in legal and win_when(seat, st):
        return "win"
    if "pass" in legal:
        return (claim(seat, st, legal) if claim is not None else None) or "pass"
    drawn = f"discard {code(int(st.drawn[0]))}" if st.drawn[0] >= 0 else None
    return drawn if drawn in legal else next(a for a in legal if a.startswith("discard"))


def pass_and_discard_drawn(g):
    """One step of a player who never wins or kongs: pass every claim, discard the tile just
    drawn (after a chi or pong, the lowest tile)."""
    if g.phase != "TURN":
        return g.step(PASS)
    discards = [a for a in g.legal() if a < 34]
    g.step(g.turn_tile if g.turn_tile in discards else discards[0])


def count_live_draws_to_the_end(g) -> int:
    draws = 0
    while g.phase != END:
        before = g.live_next
        pass_and_discard_drawn(g)
        draws += g.live_next - before
    return draws


def settled(g) -> list[int]:
    """The final scores of an ended hand, after checking the settlement: zero-sum, every win
    legal by the rules core, and (batched engine) the rewards its steps returned equal to it."""
    assert g.phase == END and g.to_act is None and g.legal() == []
    res = g.result
    scores = list(res["scores"])
    assert sum(scores) == 0, res
    for w in res.get("wins", [res] if g.wins else []):
        assert w["legal"] is True, w
    if hasattr(g, "rewards"):
        assert g.rewards == scores, (g.rewards, res)
    return scores
