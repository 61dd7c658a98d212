"""The boundary of the arena's split: ``agents.arena`` plays duplicate matches and runs their command line;
``agents.arena_report`` makes the statistics and reports (``summarize``, ``mean_ci95``, JSON, the table, the plot)
and ``agents.rules_args`` reads ``--rules`` for every command line. The two never import the arena (nor anything
heavy when imported: no torch, scipy or matplotlib); the arena defines none of their names again, and keeps as
``agents.arena.X`` only what it uses and the names users were shown there; the code of this repository
(train.py, agents/, benchmarks/, examples/) imports each name from its own module."""
from __future__ import annotations

import ast

import pytest
from test_training_run_module import ROOT, _defined, _python

from agents import arena, arena_report, make_agent, rules_args

MODULES = {"agents.arena_report": ROOT / "agents" / "arena_report.py", "agents.rules_args": ROOT / "agents" / "rules_args.py"}
KEPT_FOR_USERS = {"rules_option", "summarize", "mean_ci95", "rules_given", "duplicate_rules_given",
                  "one_hand_rules_given"}
"""Moved names that ``agents.arena`` keeps although its own code does not read them all (its import comment says
why): the README and docs/modules.md named ``agents.arena.rules_option``, the examples imported mean_ci95 and the
three ``*_rules_given`` from it."""


def _moved() -> dict[str, str]:
    """Every name the two modules define at their top level, with the module that defines it."""
    return {name: module for module, path in MODULES.items() for name in _defined(path) if not name.startswith("__")}


def _loaded(tree: ast.AST) -> set[str]:
    """The bare names a file reads (``Name`` loads), not those it only imports."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def test_the_arena_defines_none_of_the_moved_names_and_keeps_only_what_it_uses():
    moved = _moved()
    assert {"summarize", "mean_ci95", "json_text", "format_table", "plot", "missing_module", "rules_option",
            "rules_given", "duplicate_rules_given", "one_hand_rules_given", "RULES_HELP"} <= set(moved)
    assert not _defined(ROOT / "agents" / "arena.py") & set(moved), "a moved name is defined in agents/arena.py again"
    used = _loaded(ast.parse((ROOT / "agents" / "arena.py").read_text(encoding="utf-8")))
    exposed = {name for name in moved if hasattr(arena, name)}
    assert exposed <= used | KEPT_FOR_USERS, f"agents.arena keeps aliases it does not use: {sorted(exposed - used)}"
    for name in exposed:  # the module's own object, not a copy
        assert getattr(arena, name) is getattr({"agents.arena_report": arena_report,
                                                "agents.rules_args": rules_args}[moved[name]], name), name


def test_the_names_users_were_shown_still_work_as_agents_arena_names():
    pytest.importorskip("scipy")  # (summarize's intervals; the train extra)
    from agents.arena import (  # noqa: F401 (imported to show they import)
        MAX_WALLS,
        DuplicateResult,
        compare,
        mean_ci95,
        play_duplicate,
        rules_option,
        summarize,
    )

    assert (summarize, mean_ci95, rules_option) == (arena_report.summarize, arena_report.mean_ci95,
                                                    rules_args.rules_option)
    summary = summarize(play_duplicate([make_agent("rule"), make_agent("random")], 2, seed=3))
    assert summary["walls"] == 2 and rules_option('{"name": "hebei", "base": 5}').base == 5


def test_the_new_modules_import_without_the_arena_and_without_torch_scipy_or_matplotlib():
    """Each module imports with ``agents.arena`` blocked (so it never imports it at run time), and leaves torch,
    scipy and matplotlib unimported (scipy and matplotlib are imported when an interval or a plot is made)."""
    code = ("import sys; sys.modules['agents.arena'] = None\n"
            "import importlib; importlib.import_module(sys.argv[1])\n"
            "print(sorted(m for m in ('torch', 'scipy', 'matplotlib') if m in sys.modules))")
    for module in MODULES:
        run = _python(code, module)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.split() == ["[]"], (module, run.stdout)


def test_the_repository_imports_each_moved_name_from_its_module():
    """train.py, agents/ (but the arena, which imports them to use), benchmarks/ and examples/ read no moved name
    through agents.arena: neither ``from agents.arena import X`` nor ``arena.X``."""
    moved = _moved()
    files = [ROOT / "train.py", *sorted((ROOT / "agents").glob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted((ROOT / "examples").glob("*.py"))]
    bad = []
    for path in files:
        if path.name == "arena.py" and path.parent.name == "agents":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "agents.arena":
                bad += [f"{path.relative_to(ROOT)}: from agents.arena import {a.name}" for a in node.names
                        if a.name in moved]
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "arena"
                  and node.attr in moved):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: arena.{node.attr}")
    assert not bad, "\n".join(bad)


def test_import_agents_does_not_import_the_new_modules():
    run = _python("import sys, agents; print(sorted(m for m in ('agents.arena', 'agents.arena_report', "
                  "'agents.rules_args', 'torch', 'scipy') if m in sys.modules))")
    assert run.returncode == 0 and run.stdout.split() == ["[]"], run.stderr[-2000:] or run.stdout


def test_the_rules_helpers_the_examples_imported_from_the_arena_still_import_from_it():
    # the import lines of examples/ before the split (953b29d), each as a user who copied the example has it
    from agents.arena import RULES_HELP, duplicate_rules_given, one_hand_rules_given, rules_given

    assert (RULES_HELP, duplicate_rules_given, one_hand_rules_given, rules_given) == (
        rules_args.RULES_HELP, rules_args.duplicate_rules_given, rules_args.one_hand_rules_given,
        rules_args.rules_given)  # the module's own objects, not copies
