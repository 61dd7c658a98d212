"""An illegal action's error says why (docs/INTERFACES.md 2, docs/RULES.md 7; ``mj_env.illegal``): scripted
positions for each kind of reason, and random play in all three presets where every refused action's
message names the action, lists the legal ones, and never states a reason that is false of the table."""
from __future__ import annotations

import numpy as np
import pytest
from fast_game import FastGame
from scenario_helpers import BEIJING, names, play
from walls import build_wall

from mj_env import actions as A
from mj_env.baselines import RuleBasedAgent
from mj_env.engine import Engine
from mj_env.illegal import why
from mj_env.state import PHASE_NAMES
from mj_env.tiles import CODES, index


def game(rules, **layout):
    if rules.hui:
        layout.setdefault("indicator", "9s")   # 惠牌 1s
    return FastGame(rules, build_wall(rules, **layout), 0)


def refusal(g, action_name: str) -> str:
    before = g.engine.state.copy()
    with pytest.raises(A.ActionError) as e:
        g.step(A.index(action_name))
    after = g.engine.state
    assert all(np.array_equal(getattr(before, f), getattr(after, f)) for f in vars(before))  # nothing changed
    msg = str(e.value)
    assert f"'{action_name}' is illegal" in msg and "legal now:" in msg
    return msg


HANDS = {0: "123m456m789m2p5p7z7z", 1: "55p66p1234z22s46m", 2: "258m147p258s1234z", 3: "369m369p369s1234z"}


def test_own_turn_reasons():
    g = game(BEIJING, hands=HANDS, draws="1z")
    assert "is not a winning hand" in refusal(g, "win")
    assert "seat 0 holds no 9p" in refusal(g, "discard 9p")
    assert "a kong of 1m needs four 1m" in refusal(g, "kong 1m") and "holds 1 in hand and no pong" in refusal(g, "kong 1m")
    assert "no 报听" in refusal(g, "ting 1m")
    for name in ("pass", "pong", "kong", "chi 345m"):
        assert "own turn" in refusal(g, name)


def test_claim_window_reasons():
    g = game(BEIJING, hands=HANDS, draws="1z")
    play(g, (0, "discard 5p"))                        # seat 1 holds 55p: asked first (pong)
    assert g.to_act == 1
    assert "waits for one's own turn" in refusal(g, "discard 6p")
    assert "this rule set (beijing) has no 报听" in refusal(g, "ting 6p")  # not "waits for one's own turn"
    assert "an exposed kong needs three 5p in hand; seat 1 holds 2" in refusal(g, "kong")
    assert "a chi takes only the discard of the seat before" not in refusal(g, "chi 345p")  # seat 1 follows 0
    assert "needs 3p and 4p in hand" in refusal(g, "chi 345p")
    assert "惠牌" not in refusal(g, "chi 345p")    # beijing's 惠牌 count at face value in a chi (docs/RULES.md 5)
    assert "does not hold the discarded 5p" in refusal(g, "chi 678p")
    assert "not a winning hand" in refusal(g, "win")


def test_reasons_at_their_edges():
    """Each reason where it only just applies (from an outside mutation test, where each went unnoticed)."""
    from scenario_helpers import QUEMEN, ROB, ROB_MOVES

    from mj_env.rules import get_rules
    # a pong holding one copy: seat 1 is asked for its chi of 5p (567p) and holds one 5p
    g = game(BEIJING, hands={**HANDS, 1: "5p6p7p1234z22s46m9m3s"}, draws="1z")
    play(g, (0, "discard 5p"))
    assert g.to_act == 1 and "a pong needs two 5p in hand; seat 1 holds 1" in refusal(g, "pong")
    # exactly three 惠牌 (1s): the discard 5p would complete the hand, but only a self-draw may win
    g = game(BEIJING, hands={**HANDS, 1: "123m456m78p55p1s1s1s"}, draws="1z")
    play(g, (0, "discard 5p"))
    assert g.to_act == 1 and "holding 3 惠牌, seat 1 may only win by self-draw" in refusal(g, "win")
    # a rob window takes a win or pass (seat 1's added kong of 5m; seat 3 may rob it)
    g = game(BEIJING, **ROB)
    play(g, *ROB_MOVES, (1, "kong 5m"))
    assert g.phase == "ROB" and "can only be robbed by a win: pass otherwise" in refusal(g, "pong")
    # no replacement tile: a concealed kong with an empty reserve
    g = FastGame(get_rules("beijing", reserve=0), build_wall("beijing", hands={0: "1111m"}, indicator="9s"), 0)
    assert "no tile is left to replace a kong" in refusal(g, "kong 1m")
    # after 报听 only the tile just drawn goes (quemen: seat 0 declares with 9p, then draws 5p)
    g = game(QUEMEN, hands={0: "123m456m789m11z22z9p", 1: "123m456p789s33z44z", 2: "147m258p369s1234z",
                            3: "258m147p147s567z9m"}, draws="5z3z2z5p6z7z7z1z")
    play(g, (0, "ting 9p"), (1, "discard 5z"), (2, "discard 3z"), (1, "pass"), (3, "discard 2z"), (0, "pass"))
    assert g.to_act == 0 and "after 报听 only the tile just drawn (5p) may be discarded" in refusal(g, "discard 1m")



def test_a_claimed_turn_and_a_chi_short_of_tiles():
    """A win on the turn after one's own pong is refused for that, whatever the hand; a chi names only the tiles
    it lacks besides the discard (seat 1 holds no 5p, and 456p lacks 4p only)."""
    g = game(BEIJING, hands=HANDS, draws="1z")
    play(g, (0, "discard 5p"), (1, "pong"))
    assert g.to_act == 1 and "the turn after one's own chi or pong is a discard only" in refusal(g, "win")
    g = game(BEIJING, hands={**HANDS, 1: "6p7p1234z22s46m9m3s"}, draws="1z")
    play(g, (0, "discard 5p"))
    assert g.to_act == 1 and "'chi 456p' needs 4p in hand" in refusal(g, "chi 456p")

@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_random_refusals_state_true_reasons(rules):
    eng = Engine(rules, num_tables=16, seed=3)
    eng.reset()
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(0)
    from mj_env.observation import observe
    checked, seen = 0, {}
    for _ in range(120):
        mask = eng.legal_mask()
        st = eng.state
        for b in range(16):
            if not mask[b].any():
                continue
            for a in rng.choice(np.flatnonzero(~mask[b]), size=6, replace=False):
                msg = eng.explain_illegal(b, int(a))
                assert f"'{A.name(int(a))}' is illegal at table {b}" in msg and "legal now:" in msg
                reason = why(eng.rules, st, b, int(a))
                assert reason, (rules, b, A.name(int(a)))      # every refused action has its reason
                s, phase, a = int(st.to_act[b]), PHASE_NAMES[st.phase[b]], int(a)
                seen[reason.split(":")[0][:30]] = seen.get(reason.split(":")[0][:30], 0) + 1
                # each reason where, and only where, it is true
                if phase == "TURN" and a < A.KONG_SELF:
                    assert ("holds no" in reason) == (st.hands[b, s, a] == 0)
                assert ("'s own turn, and" in reason) == (phase == "TURN" and A.PASS <= a < A.TING)
                no_ting = a >= A.TING and not eng.rules.ting   # a rule set without 报听 says so first
                assert ("waits for one's own turn" in reason) == (phase != "TURN" and not A.WIN <= a < A.TING
                                                                  and not no_ting)
                assert ("has no 报听" in reason) == no_ting
                if phase == "CLAIM" and a == A.WIN and eng.rules.discard_win_concealed_only:
                    assert ("only a self-draw wins" in reason) == bool(st.open_hand[b, s])
                if phase == "CLAIM" and a == A.WIN and not eng.rules.discard_win_concealed_only:
                    assert "only a self-draw wins" not in reason    # the rule set lets an open hand win on a discard
                if phase == "CLAIM" and A.CHI <= a < A.TING and eng.rules.chi and not st.ting[b, s]:
                    assert ("the seat before" in reason) == (s != (int(st.turn_seat[b]) + 1) % 4)
                if phase == "CLAIM" and A.CHI <= a < A.TING and not eng.rules.chi and not st.ting[b, s]:
                    assert "has no chi" in reason
                checked += 1
        obs = {"observation": observe(eng.rules, eng.state), "action_mask": mask, "seat": eng.state.to_act}
        live = mask.any(axis=1)
        acts = np.zeros(16, dtype=np.int64)
        acts[live] = agent.act({k: v[live] for k, v in obs.items()}, rng)
        eng.step(acts)
        ended = np.flatnonzero(~eng.legal_mask().any(axis=1))
        if len(ended):
            eng.reset(tables=ended)
    assert checked > 5000 and len(seen) >= 8  # many kinds of reason were given


def test_codes_and_names():
    assert CODES[index("9p")] == "9p"
    assert A.name(np.int64(4)) == "discard 5m"
    for bad in (True, 4.0, "4", None, 127, -1):
        with pytest.raises(A.ActionError, match="not an integer in 0-126"):
            A.name(bad)
    eng = Engine("beijing", num_tables=4, seed=0)
    eng.reset()
    with pytest.raises(A.ActionError, match=r"action 9223372036854775808 at table 3 is not an integer"):
        eng.step(np.array([0, 0, 0, 2**63], dtype=np.uint64))
    with pytest.raises(A.ActionError, match=r"action -1 is not an integer in 0-126 \(table 1\)"):
        eng.step(np.array([int(np.flatnonzero(eng.legal_mask()[0])[0]), -1, 0, 0]))


def test_lack_a_suit_and_empty_tail_reasons():
    """The reasons that random play did not reach (a coverage run): a quemen hand of winning shape that holds all
    three suits, by self-draw and on a discard (docs/RULES.md 5, 缺一门), and an exposed kong with no tile left to
    replace it (docs/RULES.md 3: with the reserve empty no kong may be declared)."""
    from scenario_helpers import QUEMEN

    from mj_env.rules import get_rules
    g = game(QUEMEN, hands={0: "123m456p789s111z22z", 1: "147m258p369s3456z", 2: "258m147p258s3456z",
                            3: "369m369p147s3456z"})
    assert "the hand holds all three suits, and a win must lack one (缺一门)" in refusal(g, "win")
    g = game(QUEMEN, hands={0: "147m258p369s2z3z4z5z6z", 1: "123m456p789s11z22z", 2: "258m147p258s3457z",
                            3: "369m369p147s3457z"})
    play(g, (0, "discard 2z"))                        # seat 1 is asked: it may pong
    assert g.to_act == 1 and "the win would hold all three suits, and a win must lack one (缺一门)" in refusal(g, "win")
    g = FastGame(get_rules("beijing", reserve=0),
                 build_wall("beijing", hands={**HANDS, 1: "555p66p1234z22s4m"}, indicator="9s"), 0)
    play(g, (0, "discard 5p"))
    assert g.to_act == 1 and "no tile is left to replace a kong" in refusal(g, "kong")


def test_reasons_that_name_their_facts():
    """The parts of a reason that name a fact of the table (from a hand-made mutation round, where each could
    change unnoticed): the seat a chi may take from, what a claim window asks about (a discard, or an added kong
    in a rob window), a pong already held for an added kong, and 惠牌 named only where the rule set has them."""
    from scenario_helpers import HEBEI, ROB, ROB_MOVES
    g = game(BEIJING, hands={**HANDS, 2: "258m122p258s1234z"}, draws="1z")
    assert "the concealed hand (惠牌 wild) is not a winning hand" in refusal(g, "win")
    play(g, (0, "discard 2p"))                        # seat 2 holds 22p: asked (pong); seat 1 has no claim
    assert g.to_act == 2
    assert "a chi takes only the discard of the seat before (1); this is seat 0's" in refusal(g, "chi 123p")
    assert "seat 2 is asked about seat 0's discard 2p" in refusal(g, "discard 5m")
    g = game(BEIJING, **ROB)
    play(g, *ROB_MOVES, (1, "kong 5m"))
    assert "seat 3 is asked about seat 1's added kong of 5m" in refusal(g, "discard 4m")
    g = game(HEBEI, hands=HANDS, draws="1z")
    msg = refusal(g, "win")
    assert "the concealed hand is not a winning hand" in msg and "惠牌" not in msg
    # seat 1 pongs 5p, holding no 5p after it: at its next turn a kong of 5p lacks the fourth in hand
    g = game(BEIJING, hands=HANDS, draws="6z6z6z6z")
    play(g, (0, "discard 5p"), (1, "pong"), (1, "discard 4m"), (2, "discard 6z"), (3, "discard 6z"), (0, "discard 6z"))
    assert g.to_act == 1 and "seat 1 holds 0 in hand and a pong of it" in refusal(g, "kong 5p")


def test_reasons_after_a_pong_and_after_ting():
    """A kong on the turn after one's own pong is refused for that; after 报听 a kong or a second 报听 is
    refused for the 报听, and before it a 报听 with a tile not held names the tile."""
    from scenario_helpers import QUEMEN
    g = game(BEIJING, hands=HANDS, draws="1z")
    play(g, (0, "discard 5p"), (1, "pong"))
    assert "the turn after one's own chi or pong is a discard only: no kong" in refusal(g, "kong 1z")
    g = game(QUEMEN, hands={0: "123m456m789m11z22z9p", 1: "123m456p789s33z44z", 2: "147m258p369s1234z",
                            3: "258m147p147s567z9m"}, draws="5z3z2z5p6z7z7z1z")
    assert "seat 0 holds no 9s" in refusal(g, "ting 9s")
    play(g, (0, "ting 9p"), (1, "discard 5z"), (2, "discard 3z"), (1, "pass"), (3, "discard 2z"), (0, "pass"))
    assert g.to_act == 0
    assert "after 报听 the hand stays as it is: no kong" in refusal(g, "kong 1m")
    assert "seat 0 has declared 报听 already" in refusal(g, "ting 5p")


def test_reasons_with_wild_tiles_in_melds_and_a_pending_win():
    """Rule sets where 惠牌 fill melds (hui_wild_in_melds; here 惠牌 1m, the first tile kind): a chi short of
    tiles says 惠牌 could fill in, and with 缺一门 too a win on a discard is judged with the discard in the
    hand (seat 1 holds only m and p, and two 惠牌 that make its pong of 5s: the win would add s). And a pong
    refused only because another seat's win is pending (hebei, several winners) states no false shortage."""
    from scenario_helpers import HEBEI

    from mj_env.rules import get_rules
    g = game(get_rules("beijing", hui_wild_in_melds=True), hands=HANDS, indicator="9m", draws="1z")
    play(g, (0, "discard 5p"))
    assert g.to_act == 1 and "'chi 345p' needs 3p and 4p in hand, or 惠牌 to fill in" in refusal(g, "chi 345p")
    g = game(get_rules("beijing", hui_wild_in_melds=True, lack_suit=True), indicator="9m",
             hands={**HANDS, 0: "123m456m789m2p5s7z7z", 1: "234m567m789p11z1m1m"}, draws="6z")
    play(g, (0, "discard 5s"))
    assert g.to_act == 1 and "pong" in names(g)
    assert "the win would hold all three suits, and a win must lack one (缺一门)" in refusal(g, "win")
    g = game(HEBEI, hands={0: "1m9m1p9p3z4z5z6z2s8s3p7p5m", 1: "123p456p789p46m7z7z", 2: "123s456s789s55m1z1z"})
    play(g, (0, "discard 5m"), (1, "win"))
    assert g.to_act == 2 and names(g) == ["win", "pass"]
    assert "a pong needs two" not in refusal(g, "pong")


def test_a_pong_filled_by_hui_is_not_refused_for_want_of_tiles():
    """With hui_wild_in_melds a pong counts 惠牌 (here 1m) as legal.py does: seat 2 holds one 5p and a 1m, so its pong
    of 5p is legal when seat 1 passes; when seat 1's win is pending (multiple_winners) the pong is refused for that,
    not for a shortage of 5p (the reason said "a pong needs two 5p in hand; seat 2 holds 1"). A pong short even
    with 惠牌 names both counts."""
    from mj_env.rules import get_rules
    rules = get_rules("beijing", hui_wild_in_melds=True, multiple_winners=True)
    hands = {0: "123m456m789m2p5p7z7z", 1: "234m567m789s46p7z7z", 2: "234s567s666z33z5p1m"}
    g = game(rules, hands=hands, indicator="9m", draws="1z")
    play(g, (0, "discard 5p"), (1, "pass"))
    assert g.to_act == 2 and "pong" in names(g)
    g = game(rules, hands=hands, indicator="9m", draws="1z")
    play(g, (0, "discard 5p"), (1, "win"))
    assert g.to_act == 2 and names(g) == ["win", "pass"]
    msg = refusal(g, "pong")
    assert "a pong needs two" not in msg and "exposed kong needs three 5p in hand, or 惠牌 to fill in; seat 2 holds 1 " \
        "and 1 惠牌" in refusal(g, "kong")
    hands[2] = "234s567s666z3z5p1m1m"                 # two 惠牌: an exposed kong of 5p too
    g = game(rules, hands=hands, indicator="9m", draws="1z")
    play(g, (0, "discard 5p"), (1, "pass"))
    assert g.to_act == 2 and {"pong", "kong"} <= set(names(g))
    g = game(rules, hands=hands, indicator="9m", draws="1z")
    play(g, (0, "discard 5p"), (1, "win"))
    assert g.to_act == 2 and "needs three" not in refusal(g, "kong")
    # a discarded 惠牌 kind is ponged with natural tiles only: seat 1's one 1m does not count twice
    g = game(rules, hands={**HANDS, 1: "123m456p789p1z2z3z4z"}, indicator="9m", draws="6z")
    play(g, (0, "discard 1m"))
    assert g.to_act == 1 and "a pong needs two 1m in hand; seat 1 holds 1" in refusal(g, "pong")
