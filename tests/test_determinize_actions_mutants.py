"""Gaps found by mutating mj_env/determinize.py, mj_env/actions.py and mj_env/illegal.py (mutants that survived
the tests of each module): each test here failed under the mutant named in its docstring and passes on the code;
worked out from docs/RULES.md 7, docs/INTERFACES.md 2 and the modules' documented behaviour."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env.actions import ActionError, refuse_bools_in


# ------------------------------------------------------------------------------------------- actions.py
@pytest.mark.parametrize("actions", [np.array([0.5, 3.0]), np.ma.masked_array([1, 2], mask=[True, False]), 7,
                                     np.float64(2.0), None])
def test_refuse_bools_in_leaves_arrays_scalars_and_others_to_the_callers_checks(actions):
    """``refuse_bools_in`` looks into lists and tuples only: "Arrays and tensors are left to their dtype" (the
    caller refuses them by shape and dtype, with its own message). Mutants: the early return's test reduced to
    ``set(map(type, actions)) <= {int}`` or joined by ``and`` (an array's floats were refused here, a scalar or
    None raised a TypeError)."""
    assert refuse_bools_in(actions) is None


@pytest.mark.parametrize("actions, entry", [([3, True], "True"), ([[3], []], r"\[\]"), ([3, [1, [2]]], r"\[1, \[2\]\]"),
                                            ([[4], [np.True_]], r"np\.True_")])
def test_refuse_bools_in_refuses_a_non_integer_entry_by_its_table(actions, entry):
    """An entry that is no integer, nor a row of one integer, is an ActionError naming its table (not a TypeError
    or IndexError from looking into it). Mutants: ``isinstance(a, (list, tuple))`` dropped (len(True) raised), the
    row test ``len(a) == 1`` flipped or made ``== 0`` (``[]`` was indexed), a ragged entry counted an integer."""
    with pytest.raises(ActionError, match=rf"action {entry} \(\w+\) at table 1 is not an integer in 0-126"):
        refuse_bools_in(actions)


def test_one_action_takes_a_masked_array_whose_value_is_not_masked():
    """``one_action`` refuses "a masked value" only: a 0-d masked array with nothing masked is its integer. Mutant:
    the mask test dropped (every masked array refused)."""
    assert A.one_action(np.ma.masked_array(5, mask=False)) == 5
    with pytest.raises(ActionError, match="masked"):
        A.one_action(np.ma.masked_array(5, mask=True))


# ------------------------------------------------------------------------------------------- illegal.py
@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_why_states_no_reason_against_a_legal_win_discard_kong_or_claim(rules):
    """``illegal.why`` gives None for an action the mask allows (a win, a discard outside 报听, a kong, a pong, a
    chi): none of its reasons is true of such an action. (After 报听 its discard reason, and its 报听 and pass
    branches, assume a refusal: left out.) Mutants: the win branch's ``return None`` removed (a legal win fell
    through to "has no 报听"), its 缺一门 test joined by ``or`` (a beijing win "holds all three suits"), the 报听 test
    of a discard forced True."""
    from mj_env.baselines import RuleBasedAgent
    from mj_env.engine import Engine
    from mj_env.illegal import why
    from mj_env.observation import observe
    eng = Engine(rules, num_tables=16, seed=3)
    eng.reset()
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(0)
    seen = set()
    for _ in range(120):
        mask, st = eng.legal_mask(), eng.state
        for b, a in zip(*np.nonzero(mask)):
            a = int(a)
            if a == A.PASS or a >= A.TING or (a < A.KONG_SELF and st.ting[b, st.to_act[b]]):
                continue
            assert why(eng.rules, st, int(b), a) is None, (rules, int(b), A.name(a))
            seen.add(A.name(a).split()[0])
        live = mask.any(axis=1)
        acts = np.zeros(16, dtype=np.int64)
        obs = {"observation": observe(eng.rules, st), "action_mask": mask, "seat": st.to_act}
        acts[live] = agent.act({k: v[live] for k, v in obs.items()}, rng)
        eng.step(acts)
        ended = np.flatnonzero(~eng.legal_mask().any(axis=1))
        if len(ended):
            eng.reset(tables=ended)
    assert {"win", "discard", "kong", "pong"} <= seen


def test_an_added_kong_with_no_replacement_tile_is_refused_for_that():
    """Seat 1 pongs 5p and then draws the fourth 5p with the reserve empty (beijing, reserve=0): its added kong is
    refused because no tile is left to replace it (docs/RULES.md 3), not for want of tiles. Mutant: the kong test
    reduced to ``hand[x] == 4`` (an added kong was said to need four in hand)."""
    from fast_game import FastGame
    from scenario_helpers import play
    from walls import build_wall

    from mj_env.rules import get_rules
    hands = {0: "123m456m789m2p5p7z7z", 1: "55p66p1234z22s46m", 2: "258m147p258s1234z", 3: "369m369p369s1234z"}
    g = FastGame(get_rules("beijing", reserve=0), build_wall("beijing", hands=hands, indicator="9s",
                                                             draws="6z6z6z5p"), 0)
    play(g, (0, "discard 5p"), (1, "pong"), (1, "discard 4m"), (2, "discard 6z"), (3, "discard 6z"), (0, "discard 6z"))
    assert g.to_act == 1 and g.hands[1][A.index("discard 5p")] == 1
    with pytest.raises(ActionError) as e:
        g.step(A.index("kong 5p"))
    assert "no tile is left to replace a kong" in str(e.value) and "needs four" not in str(e.value)


# ------------------------------------------------------------------------------------------- determinize.py
def test_redeal_of_many_tables_with_different_numbers_of_concealed_kongs():
    """One ``redeal`` call over tables where other seats hold different numbers of concealed kongs (as a search
    redeals all its tables at once): every table is redealt, keeps each seat's count of concealed kongs and
    gives each a kind of four tiles. Mutant: ``np.minimum(seat_of, S - 1)`` in ``_deal`` made ``S + 1`` (the rows
    with fewer kongs than the most read past the last seat: an IndexError)."""
    from test_clone import play_until

    from mj_env.determinize import redeal
    from mj_env.engine import Engine
    from mj_env.state import TURN
    eng = Engine("hebei", num_tables=64, seed=6)
    eng.reset()

    def kongs_differ(e):
        st = e.state
        others = st.n_hidden.sum(axis=1) - st.n_hidden[np.arange(64), st.to_act]
        return bool(((st.phase == TURN) & (others > 0)).any() and (others == 0).any())

    play_until(eng, np.random.default_rng(5), kongs_differ)
    st = eng.state
    n_hidden = st.n_hidden.copy()
    assert len(set((n_hidden.sum(axis=1) - n_hidden[np.arange(64), st.to_act]).tolist())) > 1
    assert redeal(eng, st.to_act.astype(np.int64), np.random.default_rng(1)).all()
    assert np.array_equal(eng.state.n_hidden, n_hidden)
    assert (eng.state.hidden.sum(axis=2) == 4 * n_hidden).all()
    assert set(np.unique(eng.state.hidden)) <= {0, 4}


@pytest.mark.parametrize("avail", ["1s1s1s5z", "1s1s5z5z", "1s1s4s5s"])
def test_ting_hand_finds_a_wait_on_a_triplet_of_exactly_three_a_pair_and_a_pair_or_two_of_a_run(avail):
    """``_ting_hand`` (where the 报听 chain starts) takes k triplets or runs "and one single tile to wait on (or k - 1
    of them and a pair with another pair ...)": beside three face-up pongs of p (quemen, 缺一门), a 4-tile hand out
    of three 1s and a 5z (a triplet of all three there are, waiting on 5z), two 1s and two 5z (waiting on
    either), or two 1s and 45s (waiting on 3s or 6s). Where no start is found a table keeps its real 报听 hand, which a search would read. Mutants: a triplet
    taken only from four available (``a[t] > 3``), the branch ``groups == k - 1`` made ``k + 1`` or ``k`` (never taken), the two tiles of a run
    only two apart (``d in (2, 2)``)."""
    from mj_env.determinize import _ting_hand
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand
    got = _ting_hand(get_rules("quemen"), parse_hand(avail), 4, parse_hand("111p222p333p"))
    assert got is not None
    assert got[0].tolist() == parse_hand(avail).tolist() and got[1].tolist() == []


def test_a_reporting_seats_concealed_kong_of_the_first_kind_moves_too(monkeypatch):
    """A 报听 seat's concealed kong of 1m (kind 0) is one of its kongs like any other: with kong moves alone, one
    step moves it in every chain to an eligible kind (7p, 9s or 1z, all four unseen; beside the pongs of 234m the
    hand 2z still waits). Mutant: the seat's kongs counted as ``own_kongs >= 1`` (a kong of 1m never moved, so its
    real kind stayed in every world)."""
    import mj_env.determinize as D
    from mj_env.rules import get_rules
    from mj_env.tiles import index
    monkeypatch.setattr(D, "INDEPENDENT_SHARE", 0.0)
    monkeypatch.setattr(D, "KONG_SHARE", 1.0)
    m = 200
    melds = np.zeros((m, 4, 34), dtype=np.int16)
    melds[:, 0, [index("2m"), index("3m"), index("4m")]] = 3
    ting = np.zeros((m, 4), dtype=bool)
    ting[:, 0] = True
    part = np.zeros((m, 4, 34), dtype=np.int64)
    part[:, 0, index("2z")] = 1
    kongs = np.full((m, 4, 4), -1, dtype=np.int64)
    kongs[:, 0, 0] = index("1m")
    pool = np.zeros((m, D.N_CODES), dtype=np.int64)
    for code, c in {"7p": 4, "9s": 4, "1z": 4, "2z": 1, "3p": 3}.items():
        pool[:, index(code)] = c
    _, _, k = D._ting_chain(get_rules("quemen"), melds, ting, part, pool, np.zeros(m, dtype=np.int64), 1,
                            np.random.default_rng(0), np.full(m, -1), kongs)
    assert set(k[:, 0, 0].tolist()) == {index("7p"), index("9s"), index("1z")}


@pytest.mark.parametrize("melds, size, n_kong, avail", [
    ("111p222p", 7, 1, "5m6m6m6m6m3s4s4s4s4s5s5s6s6s6s2z2z"),
    ("111p", 10, 0, "5m6m6m7m7m7m7m7p7p9p9p9p9p2z2z6z6z6z")])
def test_ting_hand_takes_its_hand_and_kongs_out_of_the_tiles_available(melds, size, n_kong, avail):
    """``_ting_hand`` builds "a 报听 hand of ``size`` tiles and the kinds of the seat's concealed kongs, out of
    ``avail``": no kind more often than available, counting its kongs' four, and the hand waits beside the melds and
    kongs. Mutants: a kong's kind taken out as five (``rest[kinds] -= 5``: a run then took a fifth 4s), two pairs of
    one kind (``q >= p``: four 7p out of two)."""
    from mj_env.determinize import _kong_tiles, _ting_hand, ting_waits
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand
    quemen, have, face_up = get_rules("quemen"), parse_hand(avail), parse_hand(melds)
    got = _ting_hand(quemen, have, size, face_up, n_kong)
    assert got is not None
    hand, kinds = got
    assert len(kinds) == n_kong and hand.sum() == size
    kong_tiles = _kong_tiles(np.array([kinds.tolist() + [-1] * (4 - n_kong)]))[0]
    assert (hand + kong_tiles <= have).all()
    assert ting_waits(quemen, hand[None], (face_up + kong_tiles)[None])[0]



@pytest.mark.parametrize("call", ["redeal", "shuffle_wall"])
def test_redeal_and_shuffle_wall_refuse_what_is_not_an_engine(call):
    """``redeal`` and ``shuffle_wall`` name a wrong first argument as ``determinize`` does (docs/RULES.md 7: what
    is not valid is refused with an error naming what is wrong), rather than failing inside on a missing attribute.
    Mutant: redeal's ``raise TypeError`` removed."""
    import mj_env.determinize as D
    with pytest.raises(TypeError, match="engine must be an Engine, got str"):
        getattr(D, call)("eng", *([0] if call == "redeal" else []))


def test_ting_starts_builds_each_table_from_its_own_tiles():
    """``_ting_starts`` works a start out once per distinct input (copies of one table share it), but two tables
    with the same unseen pool and hand sizes whose 报听 hands differ in kind have different tiles to build from:
    each table's start holds exactly its own tiles (hand and pool together). Mutant: the memo key read the hands'
    sizes twice instead of their kinds (the second table got the first one's start: 1s it does not hold)."""
    import mj_env.determinize as D
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand
    melds = np.zeros((2, 4, 34), dtype=np.int16)
    melds[:, 0] = parse_hand("111p222p333p")
    ting = np.zeros((2, 4), dtype=bool)
    ting[:, 0] = True
    part = np.zeros((2, 4, 34), dtype=np.int64)
    part[0, 0], part[1, 0] = parse_hand("1s1s1s5z"), parse_hand("2s2s2s5z")
    pool = np.zeros((2, D.N_CODES), dtype=np.int64)
    pool[:, :34] = parse_hand("7s7s6z6z6z")
    kongs = np.full((2, 4, 4), -1, dtype=np.int64)
    new_part, new_pool, _ = D._ting_starts(get_rules("quemen"), melds, ting, part, pool, np.zeros(2, dtype=np.int64),
                                           np.full(2, -1), kongs)
    assert (new_part.sum(axis=2) == part.sum(axis=2)).all()
    assert np.array_equal(new_part.sum(axis=1) + new_pool[:, :34], part.sum(axis=1) + pool[:, :34])
