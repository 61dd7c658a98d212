"""Gaps found by mutating mj_env/records.py, mj_env/observation.py, mj_env/lines.py and mj_env/render.py (seeded
samples of single-node AST mutants; records.py and observation.py had been mutated only at a few lines before, in
tests/test_sampled_mutants.py). Each test here failed under the mutant named in its docstring and passes on the code;
the expectations come from the modules' documented behaviour (mj_env/records.py's record format and checker,
mj_env/observation.py's plane layout, mj_env/lines.py's escaping) and docs/INTERFACES.md."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from test_records import _played
from walls import four_hui_wall

import mj_env
from mj_env import records
from mj_env.records import RecordError


@pytest.mark.parametrize("value, kind", [([1, 2], "list"), ("text", "str"), (3, "int"), (None, "NoneType")])
def test_a_record_that_is_not_an_object_is_refused_by_name(value, kind, tmp_path, capsys):
    """records.py line 162 (the refusal of a record that is not a JSON object removed): the line was read as a dict,
    ``[1, 2].get`` raised AttributeError, and ``python -m mj_env.records`` died with a traceback on a file holding
    one such line instead of counting it as a bad record."""
    with pytest.raises(RecordError, match=f"a record is a JSON object, got {kind}"):
        records.replay(value)
    _, rec = _played(seed=3)
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(value) + "\n" + json.dumps(rec) + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 1
    out = capsys.readouterr()
    assert f"record 0: a record is a JSON object, got {kind}" in out.err
    assert "1 of 2 record(s) replay to their stored settlements" in out.out



@pytest.mark.parametrize("i", [0, 1])
def test_the_checker_names_the_win_that_differs_whatever_the_order_of_the_wins(i):
    """records.py line 279 (lists of equal length not compared item by item) survived, and showed a bug: with several
    winners (hebei), the replay lists the wins in play order and the stored record may list them by seat; the wins
    are compared in seat order (``_wins_by_seat``), but the message was looked for in the orders as they were, so a
    fan changed in either win was reported as ``settlement.wins[0].scores`` differing, the scores of two different
    winners side by side. The message now names the field that differs, in seat order."""
    rec = json.loads((Path(__file__).parent / "cases" / "hebei_two_winners_by_seat.json").read_text(encoding="utf-8"))
    fan = rec["settlement"]["wins"][i]["fan"]
    rec["settlement"]["wins"][i]["fan"] += 1
    with pytest.raises(RecordError) as e:
        records.replay(rec)
    assert (f"the replay settles otherwise than the record: settlement.wins[{i}].fan is {fan} in the replay, "
            f"{fan + 1} in the record") in str(e.value)


def test_a_huge_integer_in_a_stored_settlement_is_a_difference_never_null(tmp_path, capsys):
    """records.py lines 291-292 (``_unwritable``: a ``HugeInt`` refused, or written as null): a stored settlement whose
    ``discarder`` (null for a self-draw) was a 50-digit integer was either refused as unreadable or, written as null,
    compared equal to the replay's and passed as replaying. It is a difference, named with its first digits."""
    env = mj_env.env()
    env.reset(seed=0, options={"wall": four_hui_wall(), "dealer": 0})  # 四惠牌 at the deal: a self-draw, no decision
    rec = json.loads(json.dumps(env.unwrapped.hand_record()))
    assert rec["settlement"]["input"]["discarder"] is None
    line = json.dumps(rec).replace('"discarder": null', '"discarder": ' + "9" * 50)
    path = tmp_path / "huge.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert ("record 0: the replay settles otherwise than the record: settlement.input.discarder is None in the "
            "replay, " + "9" * 20 + "... (50 digits) in the record") in err


def test_the_checker_stops_reading_at_a_line_no_record_could_be(tmp_path, capsys):
    """records.py line 352 (the ``break`` after a line past the bound removed): the checker says it "stopped reading
    here", but read on and replayed the records after it (counted "1 of 2"); /dev/zero was read forever."""
    from mj_env.lines import MAX_LINE_BYTES
    _, rec = _played(seed=3)
    path = tmp_path / "long.jsonl"
    path.write_bytes(b" " * (MAX_LINE_BYTES + 5) + b"\n" + json.dumps(rec).encode() + b"\n")
    assert records.main([str(path)]) == 1
    out = capsys.readouterr()
    assert "record 0: line longer than" in out.err and "stopped reading here" in out.err
    assert "0 of 1 record(s) replay" in out.out


def test_the_checker_help_says_what_it_does_first(capsys):
    """records.py line 320 (the description taken from the docstring's last paragraph, not its first): ``python -m
    mj_env.records --help`` opened with "Only single hands: ..." instead of what the command does."""
    with pytest.raises(SystemExit) as e:
        records.main(["--help"])
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Hand records: one hand as plain JSON, replayed decision by decision and checked." in out
    assert "Only single hands" not in out



def test_checked_planes_refuses_ragged_lists_by_name():
    """observation.py line 263 (the refusal of planes numpy cannot make an array of removed): ragged lists from outside
    (an agent's input) ended in an UnboundLocalError instead of the ValueError naming the argument."""
    from mj_env.observation import checked_planes
    ragged = [[[0] * 34] * 14, [[0] * 34] * 13]
    with pytest.raises(ValueError, match="^obs must be an array: "):
        checked_planes(ragged, "obs")


def test_the_escape_handler_gives_back_every_byte_a_file_name_stood_for():
    """lines.py line 243 (the byte of a ``surrogateescape`` character off by one, or its range's first character,
    \\udc80 for the byte 0x80, left out): under an ASCII locale a file name's bytes that are not UTF-8 were written
    as other bytes, or as a ``\\udc80`` escape, instead of as themselves; other characters are backslash escapes.
    Line 240 (the decoding branch's return removed): bytes a decoder could not read raised TypeError."""
    import mj_env.lines  # noqa: F401 (registers the "mj_env.escape" error handler)
    assert "caf\udce9 \udc80\udcff 惠x".encode("ascii", "mj_env.escape") == b"caf\xe9 \x80\xff \\u60e0x"
    assert b"caf\xe9".decode("utf-8", "mj_env.escape") == "caf\\xe9"  # line 240: decoding escapes as Python does


def test_a_key_given_twice_is_named_whole_up_to_40_characters():
    """lines.py line 117 (``...`` added past 39 characters, not 40): the message of a key given twice marks a key of
    40 characters as cut short although it is shown whole."""
    from mj_env.lines import KeyGivenTwice, load_json
    for n, cut in ((40, ""), (41, "...")):
        with pytest.raises(KeyGivenTwice) as e:
            load_json(json.dumps({"k" * n: 1})[:-1] + ", " + json.dumps({"k" * n: 2})[1:])
        assert str(e.value) == f"field '{'k' * 40}'{cut} is given twice"


def test_a_key_given_twice_is_named_where_it_is():
    """lines.py lines 125 and 131 (every value taken for the object that gave a key twice, or for an object): the
    walk that says where failed with AttributeError instead of naming the field and its place."""
    from mj_env.lines import KeyGivenTwice, load_json
    for text, message in (('{"a": {"b": 1, "b": 2}}', "field 'b' is given twice in a"),
                          ('{"melds": [{}, {"type": 1, "type": 2}]}', "field 'type' is given twice in melds[1]"),
                          ('[1, {"x": [{"y": 0, "y": 0}]}]', "field 'y' is given twice in [1].x[0]")):
        with pytest.raises(KeyGivenTwice) as e:
            load_json(text)
        assert str(e.value) == message


def test_a_line_one_past_the_bound_with_its_break_does_not_take_the_next_line():
    """lines.py line 66 (the end of a line past the bound looked for in its last two characters): a line that ends
    exactly one character past the bound, its line break included, was read on into the next line, which was lost
    (a good line of the calculator or the records checker unanswered)."""
    from mj_env.lines import TooLong, bounded_lines
    for stream in (io.BytesIO(b"x" * 10 + b"\nnext\n"), io.StringIO("x" * 10 + "\nnext\n")):
        got = list(bounded_lines(stream, limit=10))
        assert len(got) == 2 and isinstance(got[0], TooLong) and got[1] in (b"next\n", "next\n")


def test_skip_bom_takes_text_lines_too():
    """lines.py line 84 (the bytes branch taken for every line): ``skip_bom`` of a text stream's lines (``bounded_lines``
    reads binary and text streams alike) raised TypeError instead of removing the text BOM of the first line only."""
    from mj_env.lines import skip_bom
    assert list(skip_bom(["\ufeffa\n", "\ufeffb\n"])) == ["a\n", "\ufeffb\n"]
    assert list(skip_bom([b"\xef\xbb\xbfa\n", b"\xef\xbb\xbfb\n"])) == [b"a\n", b"\xef\xbb\xbfb\n"]


class _Stream:
    """A text stream whose writes (and flushes) fail with ``error`` (None: they succeed), counting them."""

    encoding = "cp1252"

    def __init__(self, error=None):
        self.error, self.writes, self.flushes = error, 0, 0

    def write(self, text):
        self.writes += 1
        if self.error is not None:
            raise self.error
        return len(text)

    def flush(self):
        self.flushes += 1

    def fileno(self):
        raise io.UnsupportedOperation("no file descriptor")


def test_output_dropped_once_said_once_and_only_for_a_failure_other_than_a_broken_pipe(capsys, monkeypatch):
    """lines.py lines 197-232 (``DropWhenReaderGone``: the write after a failure tried again, flush never passed on,
    the message said for a broken pipe or for ``prog`` None or never, the null device opened with its arguments
    swapped or used when it could not be opened, the wrapped stream's attributes lost): "said once on standard
    error, ``PROG: cannot write to standard output: <why>; ...``, and the output dropped the same way"."""
    from mj_env.lines import DropWhenReaderGone
    good = _Stream()
    out = DropWhenReaderGone(good, "prog")
    assert out.write("ab") == 2 and good.writes == 1
    out.flush()
    assert good.flushes == 1 and not out.gone and out.encoding == "cp1252"
    full = _Stream(OSError(28, "No space left on device"))
    out = DropWhenReaderGone(full, "prog")
    assert out.write("a") == 1 and out.write("bcd") == 3  # dropped: as if written
    out.flush()
    assert out.gone and full.writes == 1 and full.flushes == 0
    assert capsys.readouterr().err == ("prog: cannot write to standard output: No space left on device; the rest of "
                                       "its output is dropped\n")
    for error, prog in ((BrokenPipeError(32, "Broken pipe"), "prog"), (OSError(28, "No space left"), None)):
        out = DropWhenReaderGone(_Stream(error), prog)
        assert out.write("a") == 1 and out.gone
    assert capsys.readouterr().err == ""

    def no_null(*args):
        raise OSError(24, "Too many open files")
    monkeypatch.setattr("os.open", no_null)
    out = DropWhenReaderGone(_Stream(BrokenPipeError(32, "Broken pipe")), "prog")
    assert out.write("a") == 1 and out.gone


def test_a_dropped_stream_s_descriptor_writes_to_the_null_device():
    """lines.py line 225 (``os.dup2`` with its arguments swapped): the broken pipe's descriptor was left as it was
    (the null device's own descriptor made a copy of it), so the interpreter's last flush failed again."""
    import os
    import stat

    from mj_env.lines import DropWhenReaderGone
    read, write = os.pipe()
    os.close(read)
    out = DropWhenReaderGone(io.TextIOWrapper(io.FileIO(write, "w"), encoding="utf-8"))
    print("a line", file=out, flush=True)
    try:
        assert out.gone and stat.S_ISCHR(os.fstat(write).st_mode)
        assert os.fstat(write).st_rdev == os.stat(os.devnull).st_rdev
    finally:
        out.stream.close()


def test_escape_unencodable_leaves_a_stream_it_cannot_change_as_it_is():
    """lines.py line 255 (``hasattr(stream, "reconfigure")`` dropped): a standard output replaced by an object that
    has ``errors`` but no ``reconfigure`` (a wrapper a test or a notebook puts there) raised AttributeError."""
    from mj_env.lines import escape_unencodable

    class Plain:
        errors = "strict"
    escape_unencodable(Plain())
    real = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    escape_unencodable(real)
    assert real.errors == "mj_env.escape"
    real.write("惠\udce9")
    real.flush()
    assert real.buffer.getvalue() == b"\\u60e0\xe9"


def test_print_table_writes_to_its_file_escaping_only_what_the_encoding_lacks(capsys):
    """render.py lines 44-49 (``print_table``: the file ignored, the encoding taken as ASCII whatever it is, the
    arguments of ``encode`` swapped): "human" text goes to the stream given, and only the characters its encoding
    cannot hold become backslash escapes (cp1252 holds é, not the tile glyphs)."""
    from mj_env.render import print_table
    given = io.StringIO()
    print_table("East 🀋 5m", file=given)
    assert given.getvalue() == "East 🀋 5m\n" and capsys.readouterr().out == ""
    raw = io.BytesIO()
    cp1252 = io.TextIOWrapper(raw, encoding="cp1252", errors="strict")
    print_table("é 🀋 惠牌", file=cp1252)
    cp1252.flush()
    assert raw.getvalue() == b"\xe9 \\U0001f00b \\u60e0\\u724c\n"


def test_render_modes_outside_ansi_and_human_are_refused_where_any_mode_is_not_taken():
    """render.py lines 24 and 29 (any str taken as a render mode, by the AEC and self-play vector envs too):
    ``render_mode="rgb_array"`` was accepted there and drew nothing, instead of the ValueError that names the modes;
    the single-agent envs (``any_mode``) take any str, but not another type."""
    from mj_env.render import check_render_mode
    for mode in (None, "ansi", "human"):
        check_render_mode(mode)
    check_render_mode("rgb_array", any_mode=True)
    with pytest.raises(ValueError, match="^render_mode must be None, 'ansi' or 'human', got 'rgb_array'$"):
        check_render_mode("rgb_array")
    with pytest.raises(ValueError, match="^render_mode must be None or a str"):
        check_render_mode(3, any_mode=True)


def test_a_table_whose_hand_has_ended_renders_as_over_without_being_told():
    """render.py line 111 (``over`` only when ``ended`` is given): a table the engine has ended (四惠牌 at the deal)
    was drawn with a seat marked to act and "turn: seat 0 (East) to act" instead of "hand over"."""
    from mj_env.render import render_table
    env = mj_env.env()
    env.reset(seed=0, options={"wall": four_hui_wall(), "dealer": 0})
    lines = render_table(env.unwrapped.engine.rules, env.unwrapped.engine.state, 0).splitlines()
    assert lines[-1] == "hand over" and not any(line.startswith(">") for line in lines)


@pytest.mark.parametrize("change, where", [
    (lambda s: s.update(another=1), "settlement.another is '(missing)' in the replay, 1 in the record"),
    (lambda s: s.update(patterns=["庄", "四惠牌"]),
     "settlement.patterns is {'四惠牌': 8, '庄': 1} in the replay, ['庄', '四惠牌'] in the record"),
    (lambda s: s.update(input=["x"]), "settlement.input is {"),
])
def test_the_checker_names_where_a_stored_settlement_differs_in_kind(change, where):
    """records.py lines 273-279 (``_first_difference``: a dict compared with a list as if both were dicts, a dict with
    a list of as many items as if both were lists, ``dict.get``'s arguments swapped): a stored value of another
    kind than the replay's crashed the checker (AttributeError, KeyError) instead of naming it; a key missing
    from the replay was shown as its own name instead of ``(missing)``."""
    env = mj_env.env()
    env.reset(seed=0, options={"wall": four_hui_wall(), "dealer": 0})
    rec = json.loads(json.dumps(env.unwrapped.hand_record()))
    change(rec["settlement"])
    with pytest.raises(RecordError) as e:
        records.replay(rec)
    assert f"the replay settles otherwise than the record: {where}" in str(e.value)
    rec["settlement"] = [1]
    with pytest.raises(RecordError, match=r"settlement is \{.* in the replay, \[1\] in the record"):
        records.replay(rec)
