"""Second mutation round on mj_env/calculator.py and mj_env/score.py (seed 4601: 130 mutants of the calculator, 60 of
the calculator's command line). Each test here failed under the mutant named in its docstring and passes on the code;
the earlier rounds are tests/test_calculator_mutants.py, tests/test_score_mutants.py and tests/test_sampled_mutants.py.
Every other survivor was killed by a test elsewhere in tests/ or is equivalent."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from score_io import CALC_LINE, FailingOut

from mj_env import score
from mj_env.calculator import MAX_TILES_TEXT, InputError, evaluate

ROOT = Path(__file__).resolve().parents[1]
LINE = {"hand": "123m456p789s23s55z", "win_tile": "4s"}


def test_a_long_unknown_field_name_is_quoted_by_its_first_30_characters():
    """Error messages quote a bad value by a short prefix (mj_env/calculator.py docstring); an unknown field's name is
    cut to 30 characters. Mutants: cut to 31 or to 29."""
    name = "abcdefghij" * 4
    with pytest.raises(InputError) as e:
        evaluate(dict(LINE, **{name: 1}))
    assert str(e.value).startswith(f"unknown field(s) {name[:30]!r}...; known fields: rules, hand,")


def test_a_tile_text_of_exactly_the_length_bound_is_read_as_tiles():
    """MAX_TILES_TEXT is the longest tile string taken: one of that length is read (here it holds too many tiles, and
    the error says so); one character more is refused by its length. Mutant: len(text) >= MAX_TILES_TEXT, which
    refused the longest one taken with a message that contradicts itself ("64 characters long; ... more than 64")."""
    at_bound = "1m" * (MAX_TILES_TEXT // 2)
    with pytest.raises(InputError) as e:
        evaluate(dict(LINE, hand=at_bound))
    assert str(e.value).startswith(f"hand holds {MAX_TILES_TEXT // 2} tiles; with 0 meld(s) it must hold 13")
    with pytest.raises(InputError, match=f"^hand is {MAX_TILES_TEXT + 1} characters long; no tiles of a hand take "
                                         f"more than {MAX_TILES_TEXT}:"):
        evaluate(dict(LINE, hand=at_bound + "1"))


def test_a_failed_write_without_a_reason_is_named_by_its_type(capsys):
    """A write that fails with an OSError that carries no strerror still says why in its one line on standard error:
    the error's type (mj_env/score.py docstring: ``python -m mj_env.score: <why>``, exit status 1). Mutant: the reason
    was e.strerror alone, and the line read "cannot write to standard output: None". (File descriptor -1: the null
    device cannot be put under it, which _discard passes over.)"""
    assert score.main(io.BytesIO((CALC_LINE + "\n").encode()), FailingOut(-1, OSError())) == 1
    assert capsys.readouterr().err == "python -m mj_env.score: cannot write to standard output: OSError\n"


def test_the_command_line_writes_utf8_whatever_the_stdout_encoding():
    """``python -m mj_env.score`` writes UTF-8 with the pattern names as docs/RULES.md writes them (mj_env/score.py
    docstring), also where Python's standard output encoding is ASCII (``PYTHONIOENCODING=ascii``; a Windows console
    redirected is alike with cp1252). Mutant: no reconfigure of standard output to UTF-8 under ``__main__``, and the
    first 庄 ended the stream with a UnicodeEncodeError traceback."""
    run = subprocess.run([sys.executable, "-m", "mj_env.score"], input=(CALC_LINE + "\n").encode(),
                         capture_output=True, timeout=60, check=False,
                         env={**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    assert json.loads(run.stdout.decode("utf-8")) == {"legal": True, "fan": 3, "patterns": {"庄": 1, "对对和": 2},
                                                      "shaozhuang": 0, "scores": [9, -3, -3, -3]}
    assert "庄".encode() in run.stdout
