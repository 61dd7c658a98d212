"""mj_env.tiles (index layout, compact notation, 惠牌 successor) and mj_env.rules (presets,
validation that names the bad field)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mj_env
from mj_env import tiles as T
from mj_env.rules import BEIJING, HEBEI, PRESETS, QUEMEN, RuleError, RuleSet, get_rules
from mj_env.tiles import TileError

# --------------------------------------------------------------------------- layout and codes

LAYOUT = [  # index, code, Chinese name (docs/RULES.md 1)
    (0, "1m", "一万"), (8, "9m", "九万"), (9, "1p", "一筒"), (17, "9p", "九筒"),
    (18, "1s", "一条"), (26, "9s", "九条"), (27, "1z", "东"), (28, "2z", "南"), (29, "3z", "西"),
    (30, "4z", "北"), (31, "5z", "白"), (32, "6z", "发"), (33, "7z", "中"), (34, "1f", "春"),
    (41, "8f", "菊"),
]


@pytest.mark.parametrize("i, code, zh", LAYOUT)
def test_layout(i, code, zh):
    assert T.code(i) == code == T.CODES[i]
    assert T.index(code) == i
    assert T.NAMES_ZH[i] == zh


def test_every_code_round_trips():
    assert len(T.CODES) == len(T.NAMES_ZH) == T.N_KINDS + T.N_FLOWERS == 42
    assert [T.index(T.code(i)) for i in range(42)] == list(range(42))
    assert len(set(T.CODES)) == 42


@pytest.mark.parametrize("bad", [-1, 42, 100])
def test_code_out_of_range(bad):
    with pytest.raises(TileError, match=f"tile index {bad} is out of range 0-41"):
        T.code(bad)


@pytest.mark.parametrize("bad", ["0m", "8z", "9f", "1x", "", "m1", None, 5, ["5m"]])
def test_index_unknown_code(bad):
    with pytest.raises(TileError, match="unknown tile code"):
        T.index(bad)


GLYPHS = [(0, "\U0001F007"), (8, "\U0001F00F"), (9, "\U0001F019"), (18, "\U0001F010"),
          (27, "\U0001F000"), (30, "\U0001F003"), (31, "\U0001F006"), (32, "\U0001F005"),
          (33, "\U0001F004"), (34, "\U0001F026")]


@pytest.mark.parametrize("i, g", GLYPHS)
def test_glyphs(i, g):
    assert T.glyph(i) == g


@pytest.mark.parametrize("i, suit", [(0, 0), (8, 0), (9, 1), (17, 1), (18, 2), (26, 2), (27, 3), (33, 3), (34, 4), (41, 4)])
def test_suit_of(i, suit):
    assert T.suit_of(i) == suit
    if i < T.N_KINDS:
        assert T.SUIT_OF[i] == suit


def test_suit_constants_describe_the_layout():
    assert (T.N_SUITS, T.SUIT_SIZE, T.N_SUITED, T.N_HONORS) == (3, 9, 27, 7)
    assert T.N_SUITED + T.N_HONORS == T.N_KINDS == T.FIRST_FLOWER
    for t in range(T.N_KINDS):
        c = T.code(t)
        if t < T.N_SUITED:
            assert c == f"{t % T.SUIT_SIZE + 1}{'mps'[t // T.SUIT_SIZE]}"
        else:
            assert c[1] == "z" and T.SUIT_OF[t] == T.N_SUITS


# --------------------------------------------------------------------------- compact notation

PARSE = [
    ("123m11z", [0, 1, 2, 27, 27]),
    ("5m1m", [4, 0]),                          # in the order written
    ("1m2p3s4z", [0, 10, 20, 30]),
    ("19m19p19s1234567z", [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]),
    ("", []),
    ("555m", [4, 4, 4]),
]


@pytest.mark.parametrize("text, want", PARSE)
def test_parse_tiles(text, want):
    assert T.parse_tiles(text) == want


PARSE_ERRORS = [
    # text, what the message must name
    ("x", "unexpected character 'x' at position 0"),
    ("12m3x", "unexpected character 'x' at position 4"),
    ("1 m", "unexpected character ' ' at position 1"),
    ("123", "digit '1' at position 0 of '123' has no suit letter after it"),
    ("1m23", "digit '2' at position 2"),
    ("m", "suit letter 'm' at position 0 of 'm' has no digits before it"),
    ("11mp", "suit letter 'p' at position 3"),
    ("0m", "no tile 0m (digit at position 0"),
    ("12308m", "no tile 0m (digit at position 3"),
    ("8z", "no tile 8z"),
    ("1234567z8z", "no tile 8z (digit at position 8"),
    ("1f", "flower tiles (1f at position 0 of '1f') are not allowed here"),
]


@pytest.mark.parametrize("text, message", PARSE_ERRORS)
def test_parse_errors_name_the_bad_character(text, message):
    with pytest.raises(TileError) as e:
        T.parse_tiles(text)
    assert message in str(e.value)


def test_parse_flowers_when_allowed():
    assert T.parse_tiles("18f1m", allow_flowers=True) == [34, 41, 0]
    with pytest.raises(TileError, match="no tile 9f"):
        T.parse_tiles("9f", allow_flowers=True)


@pytest.mark.parametrize("bad", [None, 123, ["1m"], b"1m"])
def test_parse_rejects_non_strings(bad):
    with pytest.raises(TileError, match="must be a string in compact notation"):
        T.parse_tiles(bad)


@pytest.mark.parametrize("text", ["\u0663m", "\u00b2m"])
def test_parse_rejects_non_ascii_digits(text):
    with pytest.raises(TileError, match="unexpected character"):
        T.parse_tiles(text)


def test_parse_hand_counts():
    c = T.parse_hand("1112345678999m1z")
    assert c.shape == (34,) and c.dtype == np.int64
    assert list(c[:9]) == [3, 1, 1, 1, 1, 1, 1, 1, 3] and c[27] == 1 and c.sum() == 14


@pytest.mark.parametrize("text, message", [
    ("11111m", "hand holds 5 copies of 1m; there are only 4"),
    ("123m7777z7z", "hand holds 5 copies of 7z"),
    ("1p1m1p1p1p1p", "5 copies of 1p"),
])
def test_parse_hand_names_the_tile_with_too_many_copies(text, message):
    with pytest.raises(TileError, match=message):
        T.parse_hand(text)


def test_to_counts_rejects_flowers_and_names_what():
    with pytest.raises(TileError, match="1f cannot be part of a hand"):
        T.to_counts([34])
    with pytest.raises(TileError, match="wall holds 2 copies of 5z; there are only 1"):
        T.to_counts([31, 31], max_copies=1, what="wall")
    with pytest.raises(TileError, match="out of range"):
        T.to_counts([42])
    with pytest.raises(TileError, match="tile index -1 is out of range"):
        T.to_counts([-1])  # not counted as 7z (counts[-1])


FORMAT = [
    ([27, 0, 9], "1m1p1z"),
    ([4, 4, 0, 33, 20], "155m3s7z"),
    ([34, 0], "1m1f"),
    ([], ""),
]


@pytest.mark.parametrize("tiles, text", FORMAT)
def test_format_tiles(tiles, text):
    assert T.format_tiles(tiles) == text


def test_format_hand_of_counts():
    assert T.format_hand(T.parse_hand("7z123m99p1s")) == "123m99p1s7z"
    assert T.format_hand(np.zeros(34, dtype=np.int8)) == ""


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=34, max_size=34))
def test_format_then_parse_round_trips(counts):
    counts = np.array(counts)
    text = T.format_hand(counts)
    np.testing.assert_array_equal(T.parse_hand(text), counts)
    assert T.format_tiles(T.parse_tiles(text)) == text  # canonical: sorted, grouped m p s z


# --------------------------------------------------------------------------- 惠牌 successor

HUI = [  # indicator 惠坯 -> 惠牌 (docs/RULES.md 3)
    ("1m", "2m"), ("8m", "9m"), ("9m", "1m"), ("9p", "1p"), ("5s", "6s"), ("9s", "1s"),
    ("1z", "2z"), ("2z", "3z"), ("3z", "4z"), ("4z", "1z"),   # E -> S -> W -> N -> E
    ("7z", "6z"), ("6z", "5z"), ("5z", "7z"),                 # 中 -> 发 -> 白 -> 中
]


@pytest.mark.parametrize("indicator, hui", HUI)
def test_hui_successor(indicator, hui):
    assert T.code(T.hui_of_indicator(T.index(indicator))) == hui
    assert T.CODES[T.HUI_OF_INDICATOR[T.index(indicator)]] == hui


@pytest.mark.parametrize("group, length", [(range(9), 9), (range(9, 18), 9), (range(18, 27), 9),
                                           (range(27, 31), 4), (range(31, 34), 3)])
def test_hui_successor_cycles_within_its_group(group, length):
    for start in group:
        seen, k = [], start
        for _ in range(length):
            seen.append(k)
            k = T.hui_of_indicator(k)
        assert k == start and sorted(seen) == list(group)  # one cycle through the whole group


def test_hui_table_matches_function():
    assert T.HUI_OF_INDICATOR.shape == (34,)
    assert [T.hui_of_indicator(i) for i in range(34)] == list(T.HUI_OF_INDICATOR)


@pytest.mark.parametrize("bad, message", [(34, "1f cannot be an indicator"), (41, "8f cannot be an indicator"),
                                          (-1, "out of range"), (42, "out of range")])
def test_hui_of_bad_indicator(bad, message):
    with pytest.raises(TileError, match=message):
        T.hui_of_indicator(bad)


def test_full_set():
    s = T.full_set()
    assert len(s) == 136 and (np.bincount(s, minlength=34) == 4).all()
    f = T.full_set(144)
    assert len(f) == 144 and sorted(f[136:]) == list(range(34, 42))
    with pytest.raises(TileError, match="136 or 144 tiles, not 100"):
        T.full_set(100)
    for bad in (137, 140, 145, 200):  # not a shorter or longer set silently
        with pytest.raises(TileError, match=f"136 or 144 tiles, not {bad}"):
            T.full_set(bad)


# --------------------------------------------------------------------------- rule sets


def test_presets_follow_rules_md():
    assert PRESETS == {"beijing": BEIJING, "hebei": HEBEI, "quemen": QUEMEN}
    b = BEIJING
    assert (b.chi, b.hui, b.reserve, b.seven_pairs, b.thirteen_orphans, b.n_tiles) == (True, True, 14, True, False, 136)
    assert (b.shaozhuang, b.hubao, b.hubao_claims, b.four_hui_win, b.self_draw_only_hui) == (True, True, 3, True, 3)
    assert (b.dealer_rotation, b.first_dealer, b.multiple_winners, b.hui_wild_in_melds) == ("previous", "east", False, False)
    h = HEBEI
    assert (h.chi, h.hui, h.thirteen_orphans, h.orphans_extra_dragon, h.multiple_winners) == (False, False, True, True, True)
    assert (h.tail_stacks_kept, h.kong_payments, h.kong_payments_on_draw, h.dealer_rotation) == (6, True, False, "next")
    q = QUEMEN
    assert (q.n_tiles, q.flowers, q.lack_suit, q.ting, q.chi, q.kong_payments_on_draw) == (144, True, True, True, False, True)
    assert (q.multiple_winners, q.dealer_rotation, q.first_dealer, q.discard_win_concealed_only) == (False, "next", "random", False)
    assert (h.first_dealer, h.discard_win_concealed_only, b.discard_win_concealed_only) == ("random", False, True)
    assert (b.wall_layout, h.wall_layout, q.wall_layout) == ("indicator", "tail", "tail")
    for r in PRESETS.values():
        assert r.live_wall_start == 53


def test_decisions_are_fields():
    names = {f.name for f in dataclasses.fields(RuleSet)}
    assert {"multiple_winners", "hui_wild_in_melds", "shaozhuang_on_draw", "dealer_rotation",
            "discard_bonus_all_pay", "orphans_extra_dragon"} <= names


def test_get_rules():
    assert get_rules() is BEIJING and get_rules("hebei") is HEBEI
    assert get_rules(QUEMEN) is QUEMEN
    r = get_rules("beijing", hui_wild_in_melds=True, base=500)
    assert (r.hui_wild_in_melds, r.base, r.name) == (True, 500, "beijing")
    assert BEIJING.base == 1  # presets are not changed
    assert get_rules(r, base=2).hui_wild_in_melds is True


@pytest.mark.parametrize("bad", ["sichuan", None, 3, ["beijing"]])
def test_unknown_rules(bad):
    with pytest.raises(RuleError, match="unknown rules .*choose one of beijing, hebei, quemen"):
        get_rules(bad)


def test_rules_object_form_as_the_calculator_writes_it():
    """``{"name": preset, field: value}`` (a calculator line's or a settlement input's rules) is a rule set too,
    so the rules of a logged hand go back into an environment as they are."""
    assert get_rules({"name": "beijing", "hui_wild_in_melds": True}) == get_rules("beijing", hui_wild_in_melds=True)
    assert get_rules({"name": "hebei"}, base=7) == get_rules("hebei", base=7)
    env = mj_env.env(rules={"name": "beijing", "hui_wild_in_melds": True})
    env.reset(seed=0)
    assert env.unwrapped.engine.rules.hui_wild_in_melds is True
    for bad, match in [({}, 'need "name"'), ({"name": "tokyo"}, 'need "name".*got \'tokyo\''),
                       ({"name": ["beijing"]}, 'need "name"'), ({"name": "beijing", 3: True}, "names are strings"),
                       ({"name": "beijing", "colour": 1}, "unknown rule field\\(s\\): colour"),
                       ({"name": "beijing", "base": 0}, "rule field 'base'")]:
        with pytest.raises(RuleError, match=match):
            get_rules(bad)
    with pytest.raises(RuleError, match="base given both in the rules object and as keyword arguments"):
        get_rules({"name": "beijing", "base": 2}, base=3)
    with pytest.raises(RuleError) as err:
        get_rules("x" * 100_000)
    assert len(str(err.value)) < 200


def test_unknown_fields_are_named():
    with pytest.raises(RuleError, match="unknown rule field\\(s\\): colour, size"):
        BEIJING.replace(size=3, colour="red")
    with pytest.raises(RuleError, match="unknown rule field"):
        get_rules("hebei", seven_pair=False)
    # also a TypeError in Python's words: wrappers that retry a constructor without a keyword it refuses
    # (TorchRL's GymEnv drops ``frameskip``) catch exactly that
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        BEIJING.replace(frameskip=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):  # the first by name
        BEIJING.replace(zoom=1, frameskip=1)


def test_range_edges_are_accepted():
    """The documented ranges include their ends (reserve 0-40, tail_stacks_kept 0-20, self_draw_only_hui 0-4,
    hubao_claims 1-4 (a seat makes at most 4 claims in a hand), base 1-MAX_BASE, hands_per_episode 1-MAX_HANDS_PER_EPISODE); one past an end is refused."""
    top = BEIJING.replace(reserve=40, self_draw_only_hui=4, hubao_claims=4, base=10**6, hands_per_episode=10_000)
    assert (top.reserve, top.self_draw_only_hui, top.hubao_claims, top.base) == (40, 4, 4, 10**6)
    low = BEIJING.replace(reserve=0, self_draw_only_hui=0, hubao_claims=1, base=1, hands_per_episode=1)
    assert (low.reserve, low.self_draw_only_hui, low.hubao_claims) == (0, 0, 1)
    assert HEBEI.replace(tail_stacks_kept=20).tail_stacks_kept == 20
    assert HEBEI.replace(tail_stacks_kept=0).tail_stacks_kept == 0
    for base, field, value in [(BEIJING, "hubao_claims", 5), (BEIJING, "base", 10**6 + 1),
                               (BEIJING, "hands_per_episode", 10_001),
                               (HEBEI, "tail_stacks_kept", -1), (BEIJING, "self_draw_only_hui", -1)]:
        with pytest.raises(RuleError, match=f"rule field '{field}'"):
            base.replace(**{field: value})


def test_preset_diff_lists_the_fields_that_differ_from_the_preset():
    from mj_env.rules import preset_diff
    assert preset_diff(HEBEI) == {} and preset_diff(BEIJING) == {}
    assert preset_diff(BEIJING.replace(base=5, hui_wild_in_melds=True)) == {"base": 5, "hui_wild_in_melds": True}
    assert preset_diff(BEIJING.replace(base=5), ["base", "chi"]) == {"base": 5}


def test_rule_sets_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        BEIJING.base = 5


BAD_FIELDS = [
    # base preset, changes, the field the error must name
    (BEIJING, {"n_tiles": 100}, "n_tiles"),
    (BEIJING, {"n_tiles": 144}, "flowers"),
    (QUEMEN, {"flowers": False}, "flowers"),
    (BEIJING, {"reserve": -1}, "reserve"),
    (BEIJING, {"reserve": 41}, "reserve"),
    (HEBEI, {"reserve": 14}, "reserve"),                    # a reserve needs the indicator
    (HEBEI, {"tail_stacks_kept": 21}, "tail_stacks_kept"),
    (BEIJING, {"self_draw_only_hui": 5}, "self_draw_only_hui"),
    (HEBEI, {"hui_wild_in_melds": True}, "hui_wild_in_melds"),
    (HEBEI, {"four_hui_win": True}, "four_hui_win"),
    (BEIJING, {"hubao_claims": 0}, "hubao_claims"),
    (BEIJING, {"dealer_rotation": "clockwise"}, "dealer_rotation"),
    (BEIJING, {"first_dealer": "north"}, "first_dealer"),
    (BEIJING, {"base": 0}, "base"),
    (BEIJING, {"hands_per_episode": 0}, "hands_per_episode"),
    (BEIJING, {"ting": True}, "ting"),                      # 报听 only without chi
    (BEIJING, {"name": "sichuan"}, "name"),
    (BEIJING, {"scoring": "riichi"}, "scoring"),
    (BEIJING, {"base": 1.5}, "base"),                       # wrong types
    (BEIJING, {"base": True}, "base"),
    (BEIJING, {"seven_pairs": 1}, "seven_pairs"),
    (BEIJING, {"orphans_extra_dragon": "yes"}, "orphans_extra_dragon"),
    (BEIJING, {"name": 3}, "name"),
    (BEIJING, {"wall_layout": "tail"}, "wall_layout"),      # 惠牌 is named by the indicator
    (BEIJING, {"wall_layout": "middle"}, "wall_layout"),
    (QUEMEN, {"wall_layout": "indicator"}, "wall_layout"),  # flowers are replaced from the tail
    (HEBEI, {"wall_layout": "indicator", "tail_stacks_kept": 3}, "tail_stacks_kept"),  # no tail stacks
    (BEIJING, {"hui": False, "wall_layout": "tail", "reserve": 10}, "reserve"),      # no reserve
    (BEIJING, {"n_tiles": 108}, "n_tiles"),                 # 136 or 144 only
    (HEBEI, {"n_tiles": 144, "flowers": True}, "flowers"),  # flowers are a quemen pattern
    (HEBEI, {"hui": True, "wall_layout": "indicator"}, "hui"),  # 惠牌 only under beijing scoring
    (QUEMEN, {"chi": True}, "chi"),                         # 报听 is defined without chi
    (HEBEI, {"shaozhuang": True}, "shaozhuang"),            # beijing payments
    (HEBEI, {"hubao": True}, "hubao"),
    (BEIJING, {"kong_payments": True}, "kong_payments"),    # beijing has no kong payments
]


@pytest.mark.parametrize("base, changes, field", BAD_FIELDS)
def test_validation_names_the_bad_field(base, changes, field):
    with pytest.raises(RuleError, match=f"rule field '{field}'"):
        base.replace(**changes)
    with pytest.raises(RuleError, match=f"'{field}'"):
        RuleSet(**{**dataclasses.asdict(base), **changes})


def test_valid_variants_are_accepted():
    r = HEBEI.replace(orphans_extra_dragon=False, thirteen_orphans=True)
    assert not r.orphans_extra_dragon
    assert BEIJING.replace(hui=False, reserve=0, four_hui_win=False).hui is False
    assert QUEMEN.replace(flowers=True, n_tiles=144) == QUEMEN
    assert BEIJING.replace(dealer_rotation="next", first_dealer="random").dealer_rotation == "next"
    # the wall layout on its own: beijing's wall without 惠牌, or the tail layout; hebei with a reserve
    assert BEIJING.replace(hui=False).wall_layout == "indicator"
    assert BEIJING.replace(hui=False, wall_layout="tail", tail_stacks_kept=6).tail_stacks_kept == 6
    assert HEBEI.replace(wall_layout="indicator", reserve=10).reserve == 10


def test_get_rules_gives_a_rule_set_itself_as_its_docstring_says():
    custom = get_rules("beijing", base=500, hui_wild_in_melds=True)  # no preset object
    assert get_rules(custom) is custom
    changed = get_rules(custom, base=2)
    assert changed is not custom and (changed.base, changed.hui_wild_in_melds, custom.base) == (2, True, 500)
