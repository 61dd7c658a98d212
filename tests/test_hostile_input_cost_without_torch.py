"""Outside input whose cost grows far past its size, in the parts that need no torch (command lines, JSON
lines, payments): each input here is small, and was once read into time or memory out of proportion to it.
tests/test_hostile_input_cost.py has the checkpoint and train.py cases, which need torch."""
from __future__ import annotations

import numpy as np
import pytest


def _parsers():
    import sys
    from pathlib import Path

    from mj_env.lines import ArgumentParser
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import _args
    finally:
        sys.path.pop(0)
    return [ArgumentParser, _args.ArgumentParser]


@pytest.mark.parametrize("which", [0, 1], ids=["mj_env.lines", "benchmarks._args"])
def test_command_lines_refuse_thousands_of_options_before_argparse_reads_them(which, capsys):
    # Python 3.10's and 3.11's argparse looks for the next option among all of them at each one: 10,000
    # options took 2-4 s, 100,000 (400 KB of command line) over a minute, before the usage error
    from mj_env.lines import MAX_OPTIONS
    p = _parsers()[which](prog="prog")
    p.add_argument("--show", type=int)
    p.add_argument("rest", nargs="*")
    assert p.parse_args(["--show=1"] * MAX_OPTIONS).show == 1
    assert p.parse_args(["x", "--", *["-1"] * (MAX_OPTIONS + 1)]).rest[-1] == "-1"  # (after --: positional)
    with pytest.raises(SystemExit) as info:
        p.parse_args(["--show=1"] * (MAX_OPTIONS + 1))
    assert info.value.code == 2
    said = capsys.readouterr().err
    assert f"{MAX_OPTIONS + 1:,} options on the command line; at most {MAX_OPTIONS:,}" in said


def test_the_checkers_command_line_refuses_them_too(capsys):
    from mj_env import records, tables
    for main in (records.main, tables.main):
        with pytest.raises(SystemExit):
            main(["--rebuild"] * 1001 if main is tables.main else ["x", *["--show=1"] * 1001])
        assert "1,001 options on the command line" in capsys.readouterr().err


def test_a_key_given_twice_is_placed_without_a_text_for_every_value_on_the_way():
    # load_json says where a key is given twice; it wrote the place of every value it passed as text, memory
    # growing as their number times their depth: this line of 98 KB took 635 MB, one of 2 MB all there is
    import tracemalloc

    from mj_env.lines import KeyGivenTwice, load_json
    key = '"' + "k" * 40 + '"'
    text = ("{" + (key + ":{") * 400 + '"a":[' + ",".join(["0"] * 40_000) + '],"b":{"x":1,"x":2}' + "}" * 400
            + "}")
    size = len(text)
    tracemalloc.start()
    try:
        with pytest.raises(KeyGivenTwice) as info:
            load_json(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * size, peak  # (about 50 times the text, the values read included; it was 6,800)
    assert str(info.value) == "field 'x' is given twice in " + ".".join(["k" * 40] * 400) + ".b"


@pytest.mark.parametrize("text, where", [
    ('{"melds": [{}, {"type": 1, "type": 2}]}', " in melds[1]"),
    ('{"a": [[0, {"b": {"c": 1, "c": 2}}]]}', " in a[0][1].b"),
    ('{"x": 1, "x": 2}', ""),
    ('[{"\\u001b[2J": {"y": 1, "y": 2}}]', " in [0].\\x1b[2J"),
])
def test_where_a_key_given_twice_is_said_as_before(text, where):
    from mj_env.lines import KeyGivenTwice, load_json
    with pytest.raises(KeyGivenTwice) as info:
        load_json(text)
    assert str(info.value).endswith(f"given twice{where}"), str(info.value)


def test_settle_draw_refuses_more_shaozhuang_rounds_than_a_hand_has():
    # its line is 2^(R-1): settle_draw(..., shaozhuang_rounds=10**12) computed it without end (10**8 made
    # a number of 30 million digits); the calculator's lines take 0-21 (docs/INTERFACES.md 1)
    from mj_env import calculator, payments
    assert payments.MAX_SHAOZHUANG_ROUNDS == calculator.MAX_SHAOZHUANG_ROUNDS == 21
    for rounds in (22, -1, 2.0, True, "3", 10**12):
        with pytest.raises(ValueError, match="shaozhuang_rounds must be an integer 0-21"):
            payments.settle_draw("beijing", 0, shaozhuang_rounds=rounds)
    assert payments.settle_draw("beijing", 1, shaozhuang_rounds=21)["shaozhuang"] == 2**20


@pytest.mark.parametrize("call, said", [
    (lambda p: p.settle_draw("beijing", 10**5000), "dealer must be a seat 0-3, got an integer of 16610 bits"),
    (lambda p: p.kong_payments("hebei", [(10**5000, "added", None)]), "got an integer of 16610 bits"),
    (lambda p: p.kong_payments("hebei", [(0, "x" * 10**6, None)]), "unknown kong type 'xxxx"),
])
def test_payment_messages_quote_a_huge_value_briefly(call, said):
    # (a seat of 5,000 digits was a ValueError of Python's int-to-str limit, naming nothing of the call's)
    from mj_env import payments
    with pytest.raises(ValueError) as info:
        call(payments)
    assert said in str(info.value) and len(str(info.value)) < 200


def test_the_shaozhuang_line_itself_refuses_more_rounds_than_a_hand_has():
    # mj_env.calculator exports it: shaozhuang_line(10**12) computed 2^(R-1) without end, and R = 10**7 made
    # a number of three million digits (an int64 array wrapped past R = 63); R <= 0 is still no line
    from mj_env.calculator import shaozhuang_line
    for rounds in (22, 10**7, np.int64(64), np.array([0, 3, 22]), 10**5000):
        with pytest.raises(ValueError, match="烧庄 rounds must be at most 21, got (22|10000000|64|an integer)"):
            shaozhuang_line(rounds)
    assert shaozhuang_line(21) == 2**20 and shaozhuang_line(-5) == 0
    assert shaozhuang_line(np.array([0, 1, 21])).tolist() == [0, 1, 2**20]


@pytest.mark.parametrize("call", [
    lambda t: t.code(10**5000), lambda t: t.glyph(-(10**5000)), lambda t: t.to_counts([3, 10**5000])])
def test_a_tile_index_of_thousands_of_digits_is_named_by_its_size(call):
    # (it was Python's int-to-str limit error, "Exceeds the limit (4300 digits)", naming nothing of the call)
    from mj_env import tiles
    with pytest.raises(tiles.TileError, match="^tile index an integer of 16610 bits is out of range 0-41$"):
        call(tiles)


@pytest.mark.parametrize("name", ["rllib_ppo", "torchrl_ppo", "sb3_maskable_ppo", "tianshou_pettingzoo"])
def test_the_trainer_examples_refuse_thousands_of_options_before_argparse_reads_them(name, capsys):
    # they built a plain argparse parser, which is quadratic in the number of options (100,000: over a minute)
    from example_modules import load_example

    from mj_env.lines import MAX_OPTIONS
    try:
        module = load_example(name)
    except (ImportError, SystemExit):  # its library is not installed (the example says which and exits)
        pytest.skip(f"examples/{name}.py: its library is not installed")
    with pytest.raises(SystemExit) as info:
        module.main(["--no-such-option"] * (MAX_OPTIONS + 1))
    assert info.value.code == 2
    assert f"{MAX_OPTIONS + 1:,} options on the command line; at most {MAX_OPTIONS:,}" in capsys.readouterr().err
