"""Second mutation pass over ``mj_env.calculator``: input checks and answer assembly that the earlier
tests (test_calculator_hardening.py, test_score_cli.py, the scoring tables) left unpinned."""
from __future__ import annotations

import pytest

from mj_env.calculator import InputError, evaluate

VALID = {"hand": "123m456p789s23s55z", "win_tile": "4s", "hui": "9p", "winner": 1, "dealer": 0}


@pytest.mark.parametrize("obj,words", [
    # seat 0 is falsy: a discarder 0 must still be checked against the winner, and false is no seat
    (dict(VALID, winner=0, discarder=0), "discarder 0 is the winner"),
    (dict(VALID, discarder=False), "discarder must be a seat 0-3, got False"),
    # a rule field that takes an integer takes no boolean (True is an int to isinstance)
    ({"rules": {"name": "beijing", "self_draw_only_hui": True}, **VALID},
     "rules.self_draw_only_hui must be an integer, got True"),
    ({"rules": {"name": "beijing", "reserve": False}, **VALID}, "rules.reserve must be an integer, got False"),
    # null is the default of a whole field, not a seat inside hubao
    (dict(VALID, hubao=[[None, 3]]), "hubao[0][0] must be a seat 0-3, got None"),
    (dict(VALID, hubao=[[1, 3], [3, None]]), "hubao[1][1] must be a seat 0-3, got None"),
    # a pair has exactly two seats: three are no pair (not a crash on unpacking)
    (dict(VALID, hubao=[[1, 2, 3]]), "hubao[0] must be a pair of seats like [1, 3], got [1, 2, 3]"),
    (dict(VALID, hubao=[[]]), "hubao[0] must be a pair of seats"),
    # seat 0 is falsy: binding it to itself is refused as for any seat
    (dict(VALID, hubao=[[1, 3], [0, 0]]), "hubao[1] binds seat 0 to itself"),
])
def test_mutant_input_checks_name_the_field(obj, words):
    with pytest.raises(InputError) as e:
        evaluate(obj)
    assert words in str(e.value)


@pytest.mark.parametrize("obj,words", [
    # situation must be an object: a list (even of flag names) is refused by name, not a TypeError
    (dict(VALID, situation=[]), "situation must be an object of booleans"),
    (dict(VALID, situation=["last_tile"]), "situation must be an object of booleans"),
    # the indicator is one tile, as hui is
    ({**VALID, "hui": None, "indicator": "12m"}, "indicator must be exactly one tile code, got '12m'"),
    ({**VALID, "hui": None, "indicator": ""}, "indicator must be exactly one tile code"),
    # a name-valued rule field takes a string only
    ({"rules": {"name": "beijing", "dealer_rotation": 1}, **VALID}, "rules.dealer_rotation must be a string, got 1"),
])
def test_mutant_shape_checks_name_the_field(obj, words):
    with pytest.raises(InputError) as e:
        evaluate(obj)
    assert words in str(e.value)


def test_name_valued_rule_fields_are_taken_as_strings():
    """docs: rule fields beside the score ones are taken, checked as a rule set checks them, and change nothing."""
    want = evaluate(VALID)
    for extra in ({"dealer_rotation": "next"}, {"first_dealer": "random"}, {"wall_layout": "indicator"}):
        assert evaluate(dict(VALID, rules={"name": "beijing", **extra})) == want, extra


def test_a_chi_from_the_winners_own_seat_is_an_error_not_an_illegal_win():
    """A meld's ``from``, when given, must be another seat, a chi's too (an error, not ``legal: false``)."""
    line = dict(VALID, hand="123m789s23s55z", melds=[{"type": "chi", "tiles": "456p", "from": 1}])
    with pytest.raises(InputError, match=r"melds\[0\]\.from is 1, the winner's own seat; a chi is claimed"):
        evaluate(line)
    assert evaluate(dict(line, melds=[{"type": "chi", "tiles": "456p", "from": 0}]))["legal"] is True


def test_an_illegal_chi_is_named_by_its_first_index():
    """The ``legal: false`` reason names the first offending meld: under rules without chi, the first chi; a chi
    claimed from the wrong seat, the first such chi."""
    melds = [{"type": "pong", "tiles": "777p", "from": 2}, {"type": "chi", "tiles": "456s", "from": 2},
             {"type": "chi", "tiles": "123s", "from": 3}]
    line = {"rules": "hebei", "hand": "23m55p", "win_tile": "1m", "winner": 1, "dealer": 0, "melds": melds}
    assert evaluate(line) == {"legal": False, "reason": "melds[1] is a chi, and rules 'hebei' have no chi"}
    out = evaluate(dict(line, rules="beijing"))
    assert out == {"legal": False, "reason": "melds[1].from is 2; a chi is claimed from the seat before the winner, 0"}


@pytest.mark.parametrize("obj,words", [
    # honors have four copies too: a fifth is counted wherever it lies
    (dict(VALID, hand="123m456p789s5555z", win_tile="5z"), "too many 5z: 5 counting hand 4, win_tile 1"),
    (dict(VALID, hand="123m456p789s7z", win_tile="7z", melds=[{"type": "kong", "tiles": "7777z", "from": 2}]),
     "too many 7z: 6 counting hand 1, melds 4, win_tile 1"),
    ({**VALID, "hui": None, "indicator": "1z", "hand": "123m456p789s1111z", "win_tile": "2z"},
     "too many 1z: 5 counting hand 4, indicator 1"),
])
def test_honor_copies_are_bounded(obj, words):
    with pytest.raises(InputError) as e:
        evaluate(obj)
    assert words in str(e.value)


def test_many_unknown_fields_are_named_by_the_first_five_and_a_count():
    extra = {f"x{i}": 1 for i in range(7)}
    with pytest.raises(InputError) as e:
        evaluate(dict(VALID, **extra))
    msg = str(e.value)
    assert "unknown field(s) 'x0', 'x1', 'x2', 'x3', 'x4' and 2 more;" in msg and "'x5'" not in msg
    with pytest.raises(InputError, match=r"situation: unknown field\(s\) 'a', 'b', 'c', 'd', 'e' and 1 more;"):
        evaluate(dict(VALID, situation={k: True for k in "abcdef"}))


def test_winner_and_dealer_default_to_seat_0():
    """docs/INTERFACES.md 1: ``winner`` and ``dealer`` default to 0 (absent or null)."""
    line = {k: v for k, v in VALID.items() if k not in ("winner", "dealer")}
    at_0 = evaluate(dict(line, winner=0, dealer=0))
    assert at_0["patterns"].get("庄") == 1 and at_0["scores"][0] > 0
    assert evaluate(line) == at_0 == evaluate(dict(line, winner=None, dealer=None))
    assert evaluate(dict(line, winner=1)) == evaluate(dict(line, winner=1, dealer=0)) \
        != evaluate(dict(line, winner=1, dealer=1))


QUEMEN = {"rules": "quemen", "hand": "123m456m789s23s55z", "win_tile": "4s"}


@pytest.mark.parametrize("obj,words", [
    (dict(QUEMEN, flowers=-1), "flowers must be an integer 0-8, got -1"),
    (dict(QUEMEN, ting=0), "ting must be true or false, got 0"),
    (dict(VALID, ting=0), "ting must be true or false, got 0"),
])
def test_flowers_and_ting_take_only_their_types(obj, words):
    with pytest.raises(InputError) as e:
        evaluate(obj)
    assert words in str(e.value)


def test_the_longest_well_formed_hand_text_is_taken():
    """13 tiles each with its own suit letter: 26 characters, the longest well-formed hand (MAX_TILES_TEXT)."""
    long = "1m2m3m4p5p6p7s8s9s2s3s5z5z"
    assert len(long) == 26
    assert evaluate(dict(VALID, hand=long)) == evaluate(VALID)


def test_an_added_kong_may_be_written_with_three_tiles():
    """A kong meld, exposed, added or concealed, may be written with three tiles as shorthand for four."""
    line = dict(VALID, hand="123m789s23s55z", hui=None)
    for kind, src in (("kong", 2), ("added_kong", 2), ("concealed_kong", None)):
        meld = {"type": kind, "tiles": "5555p"} if src is None else {"type": kind, "tiles": "5555p", "from": src}
        assert evaluate(dict(line, melds=[dict(meld, tiles="555p")])) == evaluate(dict(line, melds=[meld])), kind


def test_null_hui_and_indicator_are_the_default_under_rules_without_hui():
    hebei = {"rules": "hebei", "hand": "123m456p789s23s55z", "win_tile": "4s"}
    assert evaluate(dict(hebei, hui=None, indicator=None)) == evaluate(hebei)
    assert evaluate(VALID)["shaozhuang"] == 0  # no 烧庄 this hand: the line is 0, not null


def test_a_melds_from_is_optional_but_a_concealed_kong_takes_none_even_seat_0():
    line = dict(VALID, hand="123m456p789s5z", win_tile="5z", melds=[{"type": "pong", "tiles": "111z"}])
    assert evaluate(line) == evaluate(dict(line, melds=[{"type": "pong", "tiles": "111z", "from": 2}]))
    assert evaluate(line)["legal"] is True
    with pytest.raises(InputError, match=r"melds\[0\]: a concealed kong is claimed from nobody; drop 'from' \(got 0\)"):
        evaluate(dict(line, melds=[{"type": "concealed_kong", "tiles": "1111z", "from": 0}]))
