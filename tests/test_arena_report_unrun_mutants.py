"""The 24 mutants of agents/arena_report.py (seed 5804) that round AG sampled but did not run, run after it
against seven files naming the module (16 survived them), and the five not judged below then against
test_python_runtime, test_audit_arena and test_arena (one more killed: line 157, ``width - 4``). Of the 15
left, 2 are closed here; 7 are equivalent: lines 144 and 205 (annotations, never evaluated), 154 (``>= 2``:
two parts join the same), 148 (``allow_nan=True``: ``json_safe`` has already made non-finite numbers null),
82 twice (``v[-1]``, ``v[1]``: all values equal, and there are two or more there), 78 (``initial=0``: no
groups still gives fewer than two); 5 change only the picture's looks, which nothing promises (line 225
figure size, 240 dpi, 227 line width, 226 cap size, 209 ``matplotlib.use("Agg")``: savefig writes the file
under any backend); 1 is unreachable (line 96, the walls of an empty result: ``play_duplicate`` plays at
least one wall, ``check_run``)."""
from __future__ import annotations

import sys

import pytest

from agents.arena_report import _student_t, missing_module


def test_a_module_that_cannot_be_imported_is_named_with_how_to_install_it():
    """``missing_module``: why ``name`` cannot be imported, naming what needs it and how to install it;
    None if it can. Kills arena_report.py line 41 (the ``importlib.import_module`` call deleted: every module
    passed as importable, so the command lines would start and end in a traceback)."""
    said = missing_module("mj_env_no_such_module", "the test", extra="plot")
    assert said is not None
    assert "mj_env_no_such_module is needed for the test" in said and "pip install -e '.[plot]'" in said
    assert missing_module("json", "the test") is None


def test_the_intervals_without_scipy_say_what_installs_it(monkeypatch):
    """``_student_t`` without scipy: a ModuleNotFoundError naming scipy, what needs it and the extra that
    installs it. Kills arena_report.py line 53 (the ``raise`` deleted: a NameError instead)."""
    monkeypatch.setitem(sys.modules, "scipy", None)  # (an import of scipy now raises ImportError)
    with pytest.raises(ModuleNotFoundError, match=r"scipy is needed for the 95% intervals .*\[train\]"):
        _student_t()
