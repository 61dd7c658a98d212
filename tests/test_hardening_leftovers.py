"""The hardening leftovers (audit AR): bad input refused with an error naming the argument and the value,
before anything changes; the valid inputs next to it answer as before."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import hand
from mj_env.tiles import parse_hand
from tests.test_hand_distance_changed import rules_of

READY_13 = "123m456m789m11p22p"  # 13 tiles: one more 1p or 2p (or a wildcard) wins
HANDS_14 = ["123m456m789m11p22p5z", "1m9m1p9p1s9s1234567z7z", "1122m3344p5566s77z", "147m258p369s1234z5z"]


def hands_14():
    """(4, 34) hands of 14 tiles, no 惠牌, and a held kind of each (the discard)."""
    counts = np.stack([parse_hand(h) for h in HANDS_14])
    return counts, np.full(len(counts), -1), np.arange(len(counts)), np.argmax(counts > 0, axis=1)


# --------------------------------------------------------------------------- 1. bools as counts


@pytest.mark.parametrize("wild", [True, np.True_, np.array(True), np.array([True, False]), [True, 0]], ids=repr)
def test_a_bool_wildcard_count_is_refused_by_every_win_check(wild):
    """A wildcard count of True was read as one wildcard (a bool array as ones), where counts refuse a bool
    dtype; a list's bool is NumPy's int64 1 (``state.bool_among_ints``). All four entry points refuse it."""
    rules = rules_of("beijing")
    c = np.stack([parse_hand(READY_13)] * 2)
    for call in (lambda: hand.is_win(c, wild), lambda: hand.waits(c, wild),
                 lambda: hand.is_win_rules(c, wild, rules), lambda: hand.waits_rules(c, wild, rules),
                 lambda: hand.tiles_to_win(c, wild)):
        with pytest.raises(TypeError, match=r"wild must be (an )?integer count"):
            call()


def test_integer_wildcard_counts_answer_as_before():
    c = np.stack([parse_hand(READY_13)] * 2)
    for wild in (1, np.int8(1), np.array([1, 1], dtype=np.uint8), [1, 1]):
        assert hand.is_win(c, wild).tolist() == [True, True]
    assert hand.is_win(c, [1, 0]).tolist() == [True, False]
    assert hand.waits(c[0], 0).nonzero()[0].tolist() == [9, 10]  # 1p 2p


@pytest.mark.parametrize("delta", [True, np.True_, np.array(True), 0.5, 1.0, np.float64(-1.0), "1"], ids=repr)
def test_hand_distance_changed_refuses_a_delta_that_is_not_an_integer(delta):
    """A delta of True was read as +1 (and 0.5 failed as an IndexError naming nothing): ``messages.integer_value``
    refuses both, as it refuses them elsewhere; ``features.tiles_needed_changed`` passes it on."""
    from mj_env import features as F
    rules = rules_of("beijing")
    counts, hui, rows, kinds = hands_14()
    for f in (hand.hand_distance_changed, F.tiles_needed_changed):
        with pytest.raises(TypeError, match=r"delta must be an integer .* got "):
            f(rules, counts, hui, None, rows, kinds, delta)


def test_an_integer_delta_answers_as_the_plain_call():
    rules = rules_of("beijing")
    counts, hui, rows, kinds = hands_14()
    for delta in (-1, np.int64(-1), np.array(-1)):
        changed = counts.copy()
        changed[rows, kinds] -= 1
        want = hand.hand_distance(rules, changed, hui)
        assert hand.hand_distance_changed(rules, counts, hui, None, rows, kinds, delta).tolist() == want.tolist()


# --------------------------------------------------------------------------- 2. the needs' counts


@pytest.mark.parametrize("need", [hand.seven_pairs_need, hand.orphans_need, hand.standard_need],
                         ids=lambda f: f.__name__)
def test_the_needs_refuse_the_counts_standard_need_refuses_in_its_words(need):
    """seven_pairs_need read a count of -1 by its parity and orphans_need as a missing kind, and both took any
    number of copies above 4: they check counts as ``standard_need`` (and ``is_win``) do, with its messages."""
    c = np.zeros(34, dtype=np.int64)
    c[3] = -1
    with pytest.raises(ValueError, match=r"negative count -1 of kind 3 in hand 0"):
        need(c)
    c[3] = 4 + hand.MAX_EXTRA_COPIES + 1
    with pytest.raises(ValueError, match=r"hand 0 holds 5 .*MAX_EXTRA_COPIES|MAX_EXTRA_COPIES.*hand 0 holds 5"):
        need(np.stack([c, np.zeros(34, dtype=np.int64)]))
    with pytest.raises(TypeError, match=r"counts must be an integer array, got dtype float64"):
        need(np.ones(34))
    with pytest.raises(ValueError, match=r"counts must have shape \(\.\.\., 34\), got \(33,\)"):
        need(np.ones(33, dtype=np.int8))


def test_the_needs_of_valid_counts_answer_as_before():
    """0-4 per kind, and a fifth copy at face value (as is_win reads one) within MAX_EXTRA_COPIES."""
    seven = parse_hand("1122m3344p5566s7z")  # 13 tiles: six pairs and a single
    orphans = parse_hand("19m19p19s1234567z")
    assert hand.seven_pairs_need(seven) == 1 and hand.orphans_need(orphans) == 1
    assert hand.orphans_need(orphans + np.eye(34, dtype=np.int8)[33]) == 0
    assert hand.orphans_need(orphans + np.eye(34, dtype=np.int8)[0], extra_dragon=False) == 0
    assert hand.orphans_need(orphans + np.eye(34, dtype=np.int8)[0]) == hand.IMPOSSIBLE
    five = np.zeros(34, dtype=np.int64)
    five[[0, 9]] = [5, 4 + hand.MAX_EXTRA_COPIES - 1]  # MAX_EXTRA_COPIES above 4 in all: taken
    assert hand.seven_pairs_need(five) == sum(int(x) % 2 for x in five)  # the odd counts
    assert hand.orphans_need(five) == hand.IMPOSSIBLE
    assert hand.seven_pairs_need(np.stack([seven, seven])).tolist() == [1, 1]


# --------------------------------------------------------------------------- 3. float indices and claim tiles


@pytest.mark.parametrize("arg", ["rows", "kinds"])
@pytest.mark.parametrize("bad", [np.array([0.0, 1.0, 2.0, 3.0]), [0, 1, 2, 3.5], np.ones(4, dtype=bool)], ids=repr)
def test_hand_distance_changed_refuses_float_and_bool_indices_naming_them(arg, bad):
    """A float row or kind failed as an IndexError naming nothing (the plain call's NumPy index); a bool array
    was read as a mask. Both are a TypeError naming the argument; features.tiles_needed_changed passes it on."""
    from mj_env import features as F
    rules = rules_of("beijing")
    counts, hui, rows, kinds = hands_14()
    given = {"rows": rows, "kinds": kinds, arg: bad}
    for f in (hand.hand_distance_changed, F.tiles_needed_changed):
        with pytest.raises(TypeError, match=rf"{arg} must be integer indices, got dtype (float64|bool)"):
            f(rules, counts, hui, None, given["rows"], given["kinds"], -1)
    given[arg] = [0, True, 2, 3]  # NumPy's int64 [0, 1, 2, 3]
    with pytest.raises(TypeError, match=rf"{arg} must be integer indices, got True at position 1"):
        hand.hand_distance_changed(rules, counts, hui, None, given["rows"], given["kinds"], -1)


def test_integer_indices_answer_as_before_and_an_empty_list_is_no_change():
    rules = rules_of("beijing")
    counts, hui, rows, kinds = hands_14()
    want = hand.hand_distance_changed(rules, counts, hui, None, rows, kinds, -1).tolist()
    assert hand.hand_distance_changed(rules, counts, hui, None, rows.tolist(), kinds.astype(np.uint8), -1).tolist() \
        == want
    for none in ([], np.zeros(0, dtype=np.int64)):  # no change: nothing to answer ([] was an IndexError)
        assert hand.hand_distance_changed(rules, counts, hui, None, none, none, -1).shape == (0,)


@pytest.mark.parametrize("tile", [np.array([4.0, 13.0]), np.array([True, False]), [4, True]], ids=repr)
def test_a_claim_tile_that_is_not_an_integer_kind_is_refused_naming_tile(tile):
    """suits_after_claim and claim_hands indexed with ``tile``: 4.0 failed as an IndexError naming nothing, True
    was read as kind 1 (2m)."""
    from mj_env import features as F
    rules = rules_of("beijing")
    hands = np.stack([parse_hand("456m11p"), parse_hand("13m55p7z")])
    hui, rows = np.full(2, -1), np.arange(2)
    with pytest.raises(TypeError, match=r"tile must be tile kinds 0-33 as integers, got (dtype|True)"):
        F.suits_after_claim(np.zeros((2, 3), dtype=bool), hands, hands, tile)
    with pytest.raises(TypeError, match=r"tile must be tile kinds 0-33 as integers, got (dtype|True)"):
        F.claim_hands(rules, hands, hui, tile, rows, F.OPT_PONG)


def test_integer_claim_tiles_answer_as_before():
    from mj_env import features as F
    rules = rules_of("beijing")
    hands = np.stack([parse_hand("456m11p"), parse_hand("13m55p7z")])
    tile = np.array([9, 13])  # 1p onto 11p; 5p onto 55p
    after = F.claim_hands(rules, hands, np.full(2, -1), tile, np.arange(2), F.OPT_PONG)
    assert (hands - after).sum(axis=1).tolist() == [2, 2] and after[0, 9] == 0 and after[1, 13] == 0
    assert F.suits_after_claim(np.zeros((2, 3), dtype=bool), hands, after, tile).tolist() == \
        [[False, True, False], [False, True, False]]


# --------------------------------------------------------------------------- 4. SB3's set_options


def test_sb3_set_options_refuses_what_reset_would_and_keeps_the_options_set_before():
    """Options a reset refuses were stored by set_options, so every later reset was refused until set_options
    again. SB3 applies options at the next reset and then clears them; set_options now checks them first (as
    ``seed`` checks a seed) and a refused call changes nothing: the options and seed set before stay."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    venv = MahjongSB3VecEnv(4, seed=0)
    venv.seed(7)
    venv.set_options({"dealers": [1, 2, 3, 0]})
    for bad, message in (({"foo": 1}, r"unknown reset option\(s\): foo"),
                         ({"dealers": [9, 9, 9, 9]}, r"dealer of table 0 .* got 9"),
                         ({"walls": [[1]] * 4}, r"wall of table 0 .*136 tiles"),
                         ([{}, {"dealers": [1, 2, 3, 0]}, {}, {}], r"set_options: .* one options dict"),
                         ("walls", r"set_options: options must be a dict, None or a list of dicts .* got str")):
        with pytest.raises(ValueError, match=message):
            venv.set_options(bad)
    assert venv._options == [{"dealers": [1, 2, 3, 0]}] * 4 and venv._seeds == [7 + i for i in range(4)]
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [1, 2, 3, 0]
    venv.reset()  # applied once, then cleared (SB3's set_options)
    assert venv.envs.engine.state.dealer.tolist() == [0, 0, 0, 0]


def test_sb3_valid_options_apply_at_the_next_reset_as_before():
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    venv = MahjongSB3VecEnv(2, seed=0)
    for options in ({"dealers": [3, 1]}, [{"dealers": [3, 1]}] * 2, None):
        venv.set_options(options)
        venv.reset()
        assert venv.envs.engine.state.dealer.tolist() == ([0, 0] if options is None else [3, 1])


# --------------------------------------------------------------------------- 5. the arena stopped by an agent


def test_an_arena_stopped_by_an_agent_says_what_its_record_file_holds(tmp_path, monkeypatch, capsys):
    """``python -m agents.arena --record FILE`` stopped by an agent that raises told the agent's error only; like
    the Ctrl-C line it now says that FILE holds the hands of the batches played so far (the batches before the
    failure, whole lines). Without --record the line is as it was."""
    from agents import arena
    from mj_env.baselines import AgentError

    real_compare = arena.compare

    def fails_after_the_first_batch(*a, records=None, **k):
        def write(batch):
            if records is not None:
                records(batch)
            raise AgentError("agent 'x' raised ValueError acting at table(s) 0: no")
        return real_compare(*a, records=write, **k)

    monkeypatch.setattr(arena, "compare", fails_after_the_first_batch)
    out = tmp_path / "hands.jsonl"
    argv = ["--agents", "rule,random", "--hands", "4", "--batch", "2", "--quiet"]
    assert arena.main(argv + ["--record", str(out)]) == 1
    assert capsys.readouterr().err == (f"python -m agents.arena: agent 'x' raised ValueError acting at table(s) 0: "
                                       f"no; {out} holds the hands of the batches played so far\n")
    assert len(out.read_text().splitlines()) == 4  # the first batch: 2 walls x 2 seatings
    assert arena.main(argv) == 1
    assert capsys.readouterr().err == "python -m agents.arena: agent 'x' raised ValueError acting at table(s) 0: no\n"
