"""The two output checks say the same thing: ``agents.arena.output_problem`` and its documented copy
``benchmarks._args.output_problem`` (kept apart so that the benchmarks can size their threads before NumPy
loads). Each case runs through both, so a change to one that the other lacks fails here."""
from __future__ import annotations

import os

import pytest

from agents import arena
from benchmarks import _args

CHECKS = pytest.mark.parametrize("module", [arena, _args], ids=["agents.arena", "benchmarks._args"])


@CHECKS
def test_a_writable_file_in_an_existing_folder_passes(module, tmp_path):
    assert module.output_problem("--json", tmp_path / "out.json") is None
    (tmp_path / "old.json").write_text("{}")
    assert module.output_problem("--json", tmp_path / "old.json") is None  # an existing file is overwritten


@CHECKS
def test_an_unwritable_folder_is_refused_before_anything_runs(module, tmp_path, monkeypatch):
    """os.access is stubbed: the tests may run as root, who may write anywhere."""
    target = tmp_path / "out.json"
    monkeypatch.setattr(module.os, "access", lambda path, mode: os.fspath(path) != os.fspath(tmp_path))
    assert module.output_problem("--json", target) == f"--json {target}: not writable"


@CHECKS
def test_an_existing_file_that_cannot_be_written_is_refused(module, tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("{}")
    monkeypatch.setattr(module.os, "access", lambda path, mode: os.fspath(path) != os.fspath(target))
    assert module.output_problem("--json", target) == f"--json {target}: not writable"
    other = tmp_path / "other.json"  # not there yet: only its folder counts
    assert module.output_problem("--json", other) is None


@CHECKS
def test_an_empty_name_is_refused(module):
    """(A name of spaces is refused by the arena's check_args before this check; the benchmarks' copy refuses
    it itself.)"""
    assert "empty" in module.output_problem("--json", "")


@CHECKS
def test_a_missing_folder_and_a_folder_are_refused(module, tmp_path):
    assert module.output_problem("--json", tmp_path / "gone" / "x.json") == (
        f"--json {tmp_path / 'gone' / 'x.json'}: no such directory: {tmp_path / 'gone'}")
    assert module.output_problem("--json", tmp_path) == f"--json {tmp_path}: is a directory; give a file name"


@CHECKS
def test_a_name_too_long_for_the_file_system_is_refused(module, tmp_path):
    problem = module.output_problem("--json", str(tmp_path / ("x" * 5000)))
    assert problem is not None and problem.startswith("--json ") and problem.endswith("File name too long")
