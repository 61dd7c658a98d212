"""The calculator ``python -m mj_env.score``: JSON lines in, JSON lines out, and every error path."""
from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mj_env import score
from mj_env.calculator import InputError, evaluate
from mj_env.score import answer

ROOT = Path(__file__).resolve().parent.parent

EXAMPLE_1 = {"rules": "beijing", "hand": "111m999p222s5z", "melds": [{"type": "pong", "tiles": "777s", "from": 2}],
             "win_tile": "5z", "hui": "9s", "winner": 0, "dealer": 0, "shaozhuang_rounds": 1, "base": 2000}
EXAMPLE_2 = {"rules": "beijing", "hand": "123m456m789p23s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1,
             "dealer": 0, "discarder": 0, "shaozhuang_rounds": 3, "hubao": [[1, 3]], "base": 500}
OUT_1 = '{"legal": true, "fan": 3, "patterns": {"庄": 1, "对对和": 2}, "shaozhuang": 1, "scores": [12000, -4000, -4000, -4000]}'
OUT_2 = '{"legal": true, "fan": 2, "patterns": {"庄": 1, "推倒和": 1}, "shaozhuang": 4, "scores": [-6000, 3000, 2000, 1000]}'

VALID = {"hand": "123m456p789s23s55z", "win_tile": "4s", "hui": "9p", "winner": 1, "dealer": 0}
HEBEI = {"rules": "hebei", "hand": "123m456p789s23s55z", "win_tile": "4s"}
QUEMEN = {"rules": "quemen", "hand": "123m456m789s23s55z", "win_tile": "4s"}
PONG = {"type": "pong", "tiles": "111z", "from": 2}


def run_cli(data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mj_env.score"], input=data, capture_output=True, check=False,
                          cwd=ROOT, timeout=60)


def test_cli_keeps_order_and_survives_bad_lines():
    lines = [
        json.dumps(EXAMPLE_1, ensure_ascii=False),
        "{not json",
        json.dumps(EXAMPLE_2),
        json.dumps(dict(VALID, hand="123m456p789s23s55x")),
        "",
        json.dumps(dict(VALID, win_tile="6s")),
        "[1, 2]",
        '{"hand": "123m456p789s23s55z", "hand": "123m456p789s23s55z", "win_tile": "4s"}',
    ]
    data = ("\n".join(lines) + "\n").encode("utf-8") + b'{"hand": "\xff"}\n' + json.dumps(VALID).encode()
    p = run_cli(data)  # the last line has no newline at the end: still answered
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode("utf-8").splitlines()
    assert len(out) == 10
    assert out[0] == OUT_1  # Chinese names as they are, not \\u escapes
    assert "error" in json.loads(out[1]) and "bad JSON" in json.loads(out[1])["error"]
    assert out[2] == OUT_2
    assert "55x" in json.loads(out[3])["error"]
    assert "empty line" in json.loads(out[4])["error"]
    assert json.loads(out[5]) == {"legal": False, "reason": "the tiles do not form a winning shape"}
    assert "JSON object" in json.loads(out[6])["error"]
    assert "twice" in json.loads(out[7])["error"]
    assert "UTF-8" in json.loads(out[8])["error"]
    assert json.loads(out[9])["legal"] is True
    assert p.stderr == b""


def test_cli_answers_each_line_before_the_next_arrives():
    """Interactive use: each answer is flushed as soon as its line is read."""
    with subprocess.Popen([sys.executable, "-m", "mj_env.score"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, cwd=ROOT) as p:  # (its pipes closed on leaving)
        try:
            for obj, out in ((EXAMPLE_1, OUT_1), (EXAMPLE_2, OUT_2)):
                p.stdin.write(json.dumps(obj).encode() + b"\n")
                p.stdin.flush()
                assert p.stdout.readline().decode("utf-8").rstrip("\n") == out
            p.stdin.close()
            assert p.wait(timeout=30) == 0
        finally:
            p.kill()


def test_cli_skips_a_byte_order_mark_at_the_start_of_input_only():
    bom = b"\xef\xbb\xbf"
    line = json.dumps(EXAMPLE_1).encode()
    p = run_cli(bom + line + b"\n" + bom + line + b"\n")
    out = p.stdout.decode("utf-8").splitlines()
    assert p.returncode == 0 and out[0] == OUT_1   # a file saved with a BOM
    assert "BOM" in json.loads(out[1])["error"]    # inside the stream it is a stray character


def test_a_bom_after_a_line_too_long_is_inside_the_stream(monkeypatch):
    """A line read past (too long) is the input's first line too: a BOM on the next one is no file's start."""
    import io

    from mj_env import lines
    line = json.dumps(EXAMPLE_1).encode()
    limit = len(line) + 10
    monkeypatch.setattr(lines.bounded_lines, "__defaults__", (limit,))  # the limit, for a short test
    out = io.StringIO()
    assert score.main(stdin=io.BytesIO(b"x" * 2 * limit + b"\n\xef\xbb\xbf" + line + b"\n" + line + b"\n"),
                      stdout=out) == 0
    first, second, third = out.getvalue().splitlines()
    assert "longer than" in json.loads(first)["error"] and "BOM" in json.loads(second)["error"] and third == OUT_1


def test_an_error_message_is_cut_to_max_error(monkeypatch):
    """Only a bug could make a long message; whatever makes one, the answer stays within MAX_ERROR."""
    n = score.MAX_ERROR
    for message, kind in (("y" * 5000, RuntimeError), ("x" * 5000, InputError), ("x" * (n + 1), InputError),
                          ("x" * n, InputError)):
        def fail(line, kind=kind, message=message):
            raise kind(message)
        monkeypatch.setattr(score, "_answer", fail)
        got = answer("{}")["error"]
        assert len(got) <= n and "x" * 100 in got or "y" * 100 in got
        if kind is InputError:  # its own message: cut to exactly MAX_ERROR, or kept whole when it fits
            assert got == (message if len(message) <= n else message[:n - 3] + "...")


def test_cli_empty_input():
    p = run_cli(b"")
    assert p.returncode == 0 and p.stdout == b""


# (mutation of a valid input, words the error must contain)
ERRORS = [
    ([1, 2], "must be a JSON object"),
    ("text", "must be a JSON object"),
    (None, "must be a JSON object"),
    ({"win_tile": "4s"}, "missing required field 'hand'"),
    ({"hand": "123m456p789s23s55z"}, "missing required field 'win_tile'"),
    (dict(VALID, foo=1), "unknown field(s) 'foo'"),
    (dict(VALID, rules="tokyo"), "unknown rules 'tokyo'"),
    (dict(VALID, rules=5), "rules must be"),
    (dict(VALID, rules={"hui": True}), "must name its preset"),
    (dict(VALID, rules={"name": "beijing", "nonsense": 1}), "unknown rule field(s): 'nonsense'"),
    (dict(VALID, rules={"name": "beijing", "base": 5}), "rules.base: base is a field of the line itself"),
    (dict(VALID, rules={"name": "beijing", "reserve": 99}), "rule field 'reserve': must be 0-40, got 99"),
    (dict(VALID, rules={"name": "beijing", "multiple_winners": 1}), "rules.multiple_winners must be true or false"),
    (dict(VALID, rules={"name": "beijing", "hubao": 1}), "rules.hubao must be true or false, got 1"),
    (dict(VALID, rules={"name": "beijing", "self_draw_only_hui": 9}), "'self_draw_only_hui': must be 0-4"),
    (dict(VALID, rules={"name": "tokyo"}), "rules.name must be one of beijing, hebei, quemen, got 'tokyo'"),
    (dict(VALID, rules={"name": ["beijing"]}), "rules.name must be one of beijing, hebei, quemen, got ['beijing']"),
    (dict(VALID, rules={"name": "hebei", "hui": True}), "'hui'"),
    (dict(VALID, hand=123), "hand must be a string"),
    (dict(VALID, hand="123m456p789s23s55x"), "hand: unexpected character 'x'"),
    (dict(VALID, hand="023m456p789s23s55z"), "no tile 0m"),
    (dict(VALID, hand="123m456p789s23s58z"), "no tile 8z"),
    (dict(VALID, hand="123m456p789s23s5z1f"), "flower"),
    (dict(VALID, hand="123m456p789s23s55"), "no suit letter"),
    (dict(VALID, hand="123m456p789s2s55z"), "hand holds 12 tiles; with 0 meld(s) it must hold 13"),
    (dict(VALID, hand="123m456p789s234s55z"), "hand holds 14 tiles"),
    (dict(VALID, hand="123m456p789s23s55z", melds=[PONG]), "hand holds 13 tiles; with 1 meld(s) it must hold 10"),
    (dict(VALID, hand="11111m6p789s23s55z"), "too many 1m: 5 counting hand 5"),
    (dict(VALID, hand="1111m56p789s23s55z", win_tile="1m"), "too many 1m: 5 counting hand 4, win_tile 1"),
    (dict(VALID, hand="1m456p789s23s5z", melds=[{"type": "kong", "tiles": "1111m", "from": 2}], win_tile="5z"),
     "too many 1m: 5 counting hand 1, melds 4"),
    (dict(VALID, win_tile="12m"), "win_tile must be exactly one tile"),
    (dict(VALID, win_tile=""), "win_tile must be exactly one tile"),
    (dict(VALID, win_tile=5), "win_tile must be a string"),
    (dict(VALID, win_tile="1f"), "flower"),
    (dict(VALID, winner=4), "winner must be a seat 0-3, got 4"),
    (dict(VALID, winner=True), "winner must be a seat 0-3, got True"),
    (dict(VALID, winner=1.0), "winner must be a seat 0-3"),
    (dict(VALID, dealer=-1), "dealer must be a seat 0-3"),
    (dict(VALID, discarder=7), "discarder must be a seat 0-3"),
    (dict(VALID, discarder=1), "discarder 1 is the winner"),
    (dict(VALID, hui="0z"), "hui: no tile 0z"),
    (dict(VALID, hui="12m"), "hui must be exactly one tile"),
    (dict(VALID, hui=9), "hui must be a string"),
    (dict(VALID, hui=None, indicator="9x"), "indicator: unexpected character"),
    (dict(VALID, hui="5m", indicator="5m"), "hui 5m does not follow indicator 5m (its 惠牌 is 6m)"),
    (dict(HEBEI, hui="5m"), "rules 'hebei' have no 惠牌"),
    (dict(HEBEI, indicator="5m"), "rules 'hebei' have no 惠牌"),
    (dict(VALID, melds="pong"), "melds must be a list"),
    (dict(VALID, hand="5z", melds=[PONG] * 5), "at most 4 melds, got 5"),
    (dict(VALID, melds=[5]), "melds[0] must be an object"),
    (dict(VALID, melds=[dict(PONG, x=1)]), "melds[0]: unknown field(s) 'x'"),
    (dict(VALID, melds=[dict(PONG, type="chow")]), "melds[0].type must be one of"),
    (dict(VALID, melds=[{"type": "pong", "from": 2}]), "melds[0]: missing field 'tiles'"),
    (dict(VALID, melds=[dict(PONG, tiles="5x")]), "melds[0].tiles: unexpected character"),
    (dict(VALID, melds=[{"type": "chi", "tiles": "135m", "from": 0}]), "'135m' is not a valid chi"),
    (dict(VALID, melds=[{"type": "chi", "tiles": "123z", "from": 0}]), "'123z' is not a valid chi"),
    (dict(VALID, melds=[{"type": "chi", "tiles": "89m1p", "from": 0}]), "not a valid chi"),
    # docs/RULES.md 4: a chi completes a sequence, three consecutive tiles: a tile given twice is none
    (dict(VALID, melds=[{"type": "chi", "tiles": "445m", "from": 0}]), "'445m' is not a valid chi"),
    (dict(VALID, melds=[{"type": "chi", "tiles": "1234m", "from": 0}]), "a chi has 3 tiles, got 4"),
    (dict(VALID, melds=[dict(PONG, tiles="556m")]), "'556m' is not a valid pong"),
    (dict(VALID, melds=[dict(PONG, tiles="5555m")]), "a pong has 3 tiles, got 4"),
    (dict(VALID, melds=[{"type": "kong", "tiles": "5556m", "from": 2}]), "not a valid kong"),
    (dict(VALID, melds=[{"type": "added_kong", "tiles": "55m", "from": 2}]), "an added_kong has 4 tiles, got 2"),
    (dict(VALID, melds=[{"type": "kong", "tiles": "556m", "from": 2}]), "a kong has 4 tiles, got 3"),
    (dict(VALID, melds=[{"type": "concealed_kong", "tiles": "5555m", "from": 2}]), "claimed from nobody"),
    (dict(VALID, melds=[dict(PONG, **{"from": 1})]), "melds[0].from is 1, the winner's own seat"),
    (dict(VALID, melds=[dict(PONG, **{"from": 9})]), "melds[0].from must be a seat 0-3"),
    (dict(VALID, situation="last"), "situation must be an object"),
    (dict(VALID, situation={"haidi": True}), "situation: unknown field(s) 'haidi'"),
    (dict(VALID, situation={"last_tile": 1}), "situation.last_tile must be true or false"),
    (dict(VALID, situation={"robbed_kong": True}), "robbed_kong needs a discarder"),
    (dict(VALID, shaozhuang_rounds=-1), "shaozhuang_rounds must be an integer 0-21"),
    (dict(VALID, shaozhuang_rounds="1"), "shaozhuang_rounds must be an integer"),
    (dict(VALID, shaozhuang_rounds=22), "shaozhuang_rounds must be an integer 0-21, got 22"),
    (dict(HEBEI, shaozhuang_rounds=1), "rules 'hebei' have no 烧庄"),
    (dict(VALID, hubao="1,3"), "hubao must be a list"),
    (dict(VALID, hubao=[[1]]), "hubao[0] must be a pair of seats"),
    (dict(VALID, hubao=[[1, 3], 2]), "hubao[1] must be a pair of seats"),
    (dict(VALID, hubao=[[1, 1]]), "hubao[0] binds seat 1 to itself"),
    (dict(VALID, hubao=[[1, 5]]), "hubao[0][1] must be a seat 0-3"),
    (dict(VALID, hubao=[[1, 2], ["0", 3]]), "hubao[1][0] must be a seat 0-3"),
    (dict(VALID, hubao=[[1, 3]] * 13), "hubao lists 13 pairs; four seats make at most 12"),
    (dict(HEBEI, hubao=[[1, 2]]), "rules 'hebei' have no 互包"),
    (dict(VALID, flowers=1), "rules 'beijing' have no flowers"),
    (dict(QUEMEN, flowers=9), "flowers must be an integer 0-8"),
    (dict(QUEMEN, flowers=True), "flowers must be an integer 0-8"),
    (dict(QUEMEN, ting="yes"), "ting must be true or false"),
    (dict(VALID, ting=True), "rules 'beijing' have no 报听"),
    (dict(VALID, base=0), "base must be an integer 1-1000000, got 0"),
    (dict(VALID, base=1.5), "base must be an integer 1-1000000, got 1.5"),
    (dict(VALID, base=1.0), "base must be an integer 1-1000000, got 1.0"),
    (dict(VALID, base=True), "base must be an integer 1-1000000, got True"),
    (dict(VALID, base=10**6 + 1), "base must be an integer 1-1000000, got 1000001"),
    (dict(VALID, hand="1m" * 33), "hand is 66 characters long"),
]


@pytest.mark.parametrize("obj,words", ERRORS, ids=[w for _, w in ERRORS])
def test_error_paths(obj, words):
    with pytest.raises(InputError) as e:
        evaluate(obj)
    assert words in str(e.value)
    out = answer(json.dumps(obj, ensure_ascii=False))
    assert list(out) == ["error"] and words in out["error"]


@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_a_chi_the_rules_cannot_make_is_no_legal_win(rules):
    """docs/INTERFACES.md 1: well-formed tiles that make no win the rules allow are ``legal: false``, and malformed
    input (bad JSON, tiles, counts, rules) an error. A chi meld is well formed; hebei and quemen have no chi
    (docs/RULES.md 4.2), so a hand holding one is no legal win there, while beijing scores the same hand."""
    line = {"rules": rules, "hand": "23m456m55p", "win_tile": "1m", "winner": 1, "dealer": 0,
            "melds": [{"type": "chi", "tiles": "456s", "from": 0}, {"type": "pong", "tiles": "777p", "from": 2}]}
    out = evaluate(line)
    assert out == {"legal": False, "reason": f"melds[0] is a chi, and rules {rules!r} have no chi"}
    assert evaluate(dict(line, rules="beijing"))["legal"] is True
    wrong_seat = evaluate(dict(line, rules="beijing", melds=[dict(line["melds"][0], **{"from": 2}), line["melds"][1]]))
    assert wrong_seat == {"legal": False, "reason": "melds[0].from is 2; a chi is claimed from the seat before the "
                                                    "winner, 0"}  # only the next player may chi (docs/RULES.md 4.2)
    no_from = evaluate(dict(line, rules="beijing", melds=[{"type": "chi", "tiles": "456s"}, line["melds"][1]]))
    assert no_from == evaluate(dict(line, rules="beijing"))  # no from: claimed from the seat before the winner
    with pytest.raises(InputError, match="'457s' is not a valid chi"):  # a malformed chi is still an error
        evaluate(dict(line, melds=[{"type": "chi", "tiles": "457s", "from": 0}, line["melds"][1]]))


def test_rule_fields_that_do_not_bear_on_the_score_are_taken_and_change_nothing():
    """docs/RULES.md's Decision items are rule fields; one that the engine alone reads (a wall, turn or episode
    field) is a valid rules-object field, checked as a rule set checks it, and the score is the preset's."""
    want = evaluate(VALID)
    for extra in ({"multiple_winners": True}, {"shaozhuang_on_draw": False}, {"hands_per_episode": 3},
                  {"reserve": 16}):
        assert evaluate(dict(VALID, rules={"name": "beijing", **extra})) == want, extra


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_any_value_of_any_rule_field_is_a_score_or_an_input_error(preset):
    """Every RuleSet field in the rules object, given values of every JSON type: the line scores or is an
    InputError naming what is wrong, never another exception (the names fields, wall_layout, dealer_rotation,
    first_dealer, raised KeyError once fields beside the score ones were taken)."""
    import dataclasses

    from mj_env.rules import RuleSet
    line = dict(VALID) if preset == "beijing" else {k: v for k, v in VALID.items() if k not in ("hui", "indicator")}
    values = [True, False, 0, 1, -1, 99, 10**30, 1.5, None, [], {}, "x", "tail", "next", "random", "hebei"]
    scored = 0
    for f in dataclasses.fields(RuleSet):
        for v in values:
            try:
                out = evaluate(dict(line, rules={"name": preset, f.name: v}))
            except InputError:
                continue
            scored += 1
            assert "legal" in out
    assert scored > 20


def test_a_concealed_kong_is_read_at_face_value_even_where_hui_are_wild_in_melds():
    """docs/RULES.md 5: with hui_wild_in_melds a 惠牌 may complete a chi, pong or exposed kong; a concealed kong
    is four of one kind in hand (the engine declares no other), so "777m5z" with 惠牌 5z is no concealed kong
    (it scored 一条龙 + 清一色 as if it were 7777m). An added kong tops up a pong, which may hold a 惠牌."""
    line = {"rules": {"name": "beijing", "hui_wild_in_melds": True}, "hand": "123m456m789m1m", "win_tile": "1m",
            "hui": "5z", "winner": 1, "dealer": 0, "melds": [{"type": "concealed_kong", "tiles": "777m5z"}]}
    with pytest.raises(InputError, match="'777m5z' is not a valid concealed_kong"):
        evaluate(line)
    added = evaluate(dict(line, melds=[{"type": "added_kong", "tiles": "777m5z", "from": 2}]))
    assert added["legal"] is True and added["patterns"] == {"一条龙": 3, "清一色": 6}
    assert evaluate(dict(line, melds=[{"type": "concealed_kong", "tiles": "2222z"}]))["legal"] is True


def test_defaults_and_nulls_are_accepted():
    """Optional fields may be null or absent; the defaults of docs/INTERFACES.md 1 apply."""
    full = dict(VALID, rules=None, melds=None, discarder=None, indicator=None, situation=None,
                shaozhuang_rounds=None, hubao=None, flowers=None, ting=None, base=None)
    assert evaluate(full) == evaluate(VALID)
    assert evaluate(dict(VALID, hui="5m", indicator="4m"))["legal"] is True


def test_answer_reports_unexpected_failures_as_errors(monkeypatch):
    import mj_env.score as cli

    def boom(obj):
        raise KeyError("x")

    monkeypatch.setattr(cli, "evaluate", boom)
    assert cli.answer(json.dumps(VALID)) == {"error": "internal error: KeyError: 'x'"}


# ---------------------------------------------------------------------------------------------
# The process around the stream: a reader that goes away, closed or failing standard streams.

LINE = (json.dumps(VALID) + "\n").encode()


def test_cli_ends_quietly_when_its_reader_goes_away():
    """Like ``... | python -m mj_env.score | head -1``: no traceback, exit status 141 (as a tool
    killed by SIGPIPE shows in the shell)."""
    with subprocess.Popen([sys.executable, "-m", "mj_env.score"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=ROOT) as p:
        try:
            p.stdin.write(LINE)
            p.stdin.flush()
            assert json.loads(p.stdout.readline())["legal"] is True
            p.stdout.close()  # the reader has what it wanted
            try:
                p.stdin.write(LINE * 50)
                p.stdin.close()
            except BrokenPipeError:  # (closing what is left raises it once more, then the pipe is closed)
                with contextlib.suppress(BrokenPipeError):
                    p.stdin.close()
            assert p.wait(timeout=30) == 141
            assert p.stderr.read() == b""
        finally:
            p.kill()


def test_cli_ends_quietly_in_a_shell_pipeline_into_head():
    cmd = f"yes '{json.dumps(VALID)}' | head -5000 | {shlex.quote(sys.executable)} -m mj_env.score | head -1"
    p = subprocess.run(["sh", "-c", cmd], capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert p.returncode == 0 and p.stderr == b""
    assert json.loads(p.stdout)["legal"] is True


def _run_sh(redirect: str, data: bytes = LINE) -> subprocess.CompletedProcess:
    cmd = f"exec {shlex.quote(sys.executable)} -m mj_env.score {redirect}"
    return subprocess.run(["sh", "-c", cmd], input=data, capture_output=True, cwd=ROOT, timeout=60, check=False)


@pytest.mark.parametrize("redirect,words", [
    ("<&-", "standard input is closed"),
    (">&-", "standard output is closed"),
    ("> /dev/full", "cannot write to standard output: No space left on device"),
])
def test_cli_says_in_one_line_why_it_cannot_run(redirect, words):
    if "/dev/full" in redirect and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    p = _run_sh(redirect)
    assert p.returncode == 1
    assert p.stderr.decode() == f"python -m mj_env.score: {words}\n"
    assert p.stdout == b""


class _FailingInput:
    """Standard input that gives ``lines`` and then raises ``error`` from ``readline``."""

    def __init__(self, lines: list[bytes], error: BaseException):
        self.lines, self.error = list(lines), error

    def readline(self, size=-1):
        if self.lines:
            return self.lines.pop(0)
        raise self.error


def test_ctrl_c_while_reading_ends_with_status_130_and_no_traceback(capsys):
    """From an outside mutation test: status 1 instead of 130 went unnoticed."""
    import io

    out = io.StringIO()
    assert score.main(stdin=_FailingInput([LINE], KeyboardInterrupt()), stdout=out) == 130
    assert [json.loads(x)["legal"] for x in out.getvalue().splitlines()] == [True]  # the line read before
    assert capsys.readouterr().err == ""


def test_a_failed_read_is_one_line_on_stderr_and_status_1(capsys):
    """A read that fails (EIO: a terminal gone) stops the stream with one line saying so (from an outside
    mutation test: returning 0 quietly went unnoticed)."""
    import errno
    import io
    import os

    out = io.StringIO()
    failing = _FailingInput([LINE], OSError(errno.EIO, os.strerror(errno.EIO)))
    assert score.main(stdin=failing, stdout=out) == 1
    assert [json.loads(x)["legal"] for x in out.getvalue().splitlines()] == [True]
    assert capsys.readouterr().err == (f"python -m mj_env.score: cannot read standard input: "
                                       f"{os.strerror(errno.EIO)}\n")


def test_cli_with_no_stderr_still_exits_non_zero():
    assert _run_sh("<&- 2>&-").returncode == 1
    assert _run_sh(">&- 2>&-").returncode == 1


def test_help_and_stray_arguments(capsys):
    """``--help`` prints the input format and exits 0; any other argument is refused with exit status 2
    instead of being ignored while the process waits on standard input."""
    assert score.cli(["--help"]) == 0 and score.cli(["-h"]) == 0 and score.cli(["-h", "--bogus"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m mj_env.score") and "win_tile" in out and out.count("\n") > 5
    assert score.cli(["--rules", "hebei"]) == 2
    captured = capsys.readouterr()
    assert not captured.out and "takes no arguments, got '--rules'" in captured.err
    assert score.cli(["hebei"]) == 2  # a single stray argument is refused too
    assert "takes no arguments, got 'hebei'" in capsys.readouterr().err
    p = subprocess.run([sys.executable, "-m", "mj_env.score", "--help"], input=b"", capture_output=True,
                       check=False, cwd=ROOT, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith(b"usage:")


def test_a_chi_under_beijing_with_chi_off_names_the_field():
    """The chi refusal names the rule that forbids it: the preset's own (hebei, quemen), or the ``chi`` field
    set to false on beijing, which has chi as a preset (the message named the preset alone before)."""
    line = {"rules": {"name": "beijing", "chi": False}, "hand": "23m456m55p", "win_tile": "1m", "winner": 1,
            "dealer": 0, "melds": [{"type": "chi", "tiles": "456s", "from": 0}, {"type": "pong", "tiles": "777p", "from": 2}]}
    assert evaluate(line) == {"legal": False, "reason": "melds[0] is a chi, and rules 'beijing' with chi=false have no chi"}
