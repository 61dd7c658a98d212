"""pyproject.toml declares ``requires-python = ">=3.10"`` but CI runs one interpreter (3.11): these checks read
the sources so that, on any interpreter, CI catches what would break or silently skip on the floor
(found by the Python-versions audit: under 3.10 two test files skipped whole because of
``pytest.importorskip("tomllib")``, a 3.11 module, so the floors they pin were never checked there).

They read, not run: the syntax of every file is parsed with the floor's grammar, and imports of what the
standard library gained after 3.10 are refused unless a ``try`` that catches ImportError guards them."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 has no tomllib; pytest requires tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FLOOR = (3, 10)

# modules new after 3.10, and names added after 3.10 to modules that 3.10 has
NEW_MODULES = {"tomllib": "3.11", "wsgiref.types": "3.11"}
NEW_NAMES = {
    "typing": {"Self": "3.11", "LiteralString": "3.11", "Never": "3.11", "assert_never": "3.11",
               "assert_type": "3.11", "reveal_type": "3.11", "TypeVarTuple": "3.11", "Unpack": "3.11",
               "Required": "3.11", "NotRequired": "3.11", "dataclass_transform": "3.11",
               "override": "3.12", "TypeAliasType": "3.12", "get_protocol_members": "3.13",
               "is_protocol": "3.13", "ReadOnly": "3.13", "TypeIs": "3.13", "NoDefault": "3.13"},
    "enum": {"StrEnum": "3.11", "ReprEnum": "3.11", "verify": "3.11", "member": "3.11", "nonmember": "3.11",
             "global_enum": "3.11", "EnumCheck": "3.11", "FlagBoundary": "3.11", "property": "3.11",
             "EnumType": "3.11"},
    "datetime": {"UTC": "3.11"},
    "itertools": {"batched": "3.12"},
    "hashlib": {"file_digest": "3.11"},
    "contextlib": {"chdir": "3.11"},
    "operator": {"call": "3.11"},
    "math": {"cbrt": "3.11", "exp2": "3.11", "sumprod": "3.12", "fma": "3.13"},
    "asyncio": {"TaskGroup": "3.11", "timeout": "3.11", "Runner": "3.11", "Barrier": "3.11"},
    "warnings": {"deprecated": "3.13"},
    "copy": {"replace": "3.13"},
}
NEW_BUILTINS = {"ExceptionGroup": "3.11", "BaseExceptionGroup": "3.11"}


def _sources() -> list[Path]:
    files = [ROOT / "train.py"]
    for folder in ("mj_env", "agents", "tests", "benchmarks", "examples"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [f for f in files if f.is_file()]


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return caught is None or any(isinstance(n, ast.Name) and n.id in {"ImportError", "ModuleNotFoundError",
                                                                       "AttributeError", "Exception"}
                                 for n in names)


def _guarded(tree: ast.AST) -> set[int]:
    """Ids of the nodes under the body of a ``try`` whose handlers catch ImportError (a fallback for old
    interpreters) or under ``if sys.version_info >= ...``."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        bodies = []
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            bodies = node.body
        elif isinstance(node, ast.If) and "version_info" in ast.unparse(node.test):
            bodies = node.body + node.orelse
        for stmt in bodies:
            ids.update(id(n) for n in ast.walk(stmt))
    return ids


def _problems(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT)
    try:
        tree = ast.parse(text, str(rel), feature_version=FLOOR)
    except SyntaxError as e:
        return [f"{rel}:{e.lineno}: not Python {FLOOR[0]}.{FLOOR[1]} syntax: {e.msg}"]
    guarded = _guarded(tree)
    found = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import) and id(node) not in guarded:
            found += [f"{where}: import {a.name} (new in {NEW_MODULES[a.name]})" for a in node.names
                      if a.name in NEW_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and id(node) not in guarded:
            if node.module in NEW_MODULES:
                found.append(f"{where}: from {node.module} import ... (new in {NEW_MODULES[node.module]})")
            new = NEW_NAMES.get(node.module) or {}
            found += [f"{where}: from {node.module} import {a.name} (new in {new[a.name]})" for a in node.names
                      if a.name in new]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.attr in (NEW_NAMES.get(node.value.id) or {}) and id(node) not in guarded):
            found.append(f"{where}: {node.value.id}.{node.attr} (new in {NEW_NAMES[node.value.id][node.attr]})")
        elif isinstance(node, ast.Name) and node.id in NEW_BUILTINS and id(node) not in guarded:
            found.append(f"{where}: {node.id} (new in {NEW_BUILTINS[node.id]})")
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "importorskip"
              and node.args
              and isinstance(node.args[0], ast.Constant) and node.args[0].value in NEW_MODULES):
            found.append(f"{where}: importorskip({node.args[0].value!r}) skips on Python "
                         f"{FLOOR[0]}.{FLOOR[1]} (new in {NEW_MODULES[node.args[0].value]})")
    return found


def test_the_floor_checked_here_is_the_declared_one():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert declared == f">={FLOOR[0]}.{FLOOR[1]}", "update FLOOR and the names above with requires-python"


def test_every_source_parses_with_the_floors_grammar_and_uses_no_newer_stdlib_unguarded():
    """``ast.parse(feature_version=(3, 10))`` refuses the grammar added later that the parser knows to check
    (``except*``, PEP 695 type parameters, ``type X = ...``); the walk refuses unguarded imports of modules
    and names the standard library added after 3.10, and ``importorskip`` of such a module, which skips a
    whole test file on the floor instead of falling back (``tomllib`` -> ``tomli``)."""
    problems = [p for f in _sources() for p in _problems(f)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("snippet, expected", [
    ('tomllib = pytest.importorskip("tomllib")\n', "importorskip('tomllib')"),
    ("import tomllib\n", "import tomllib"),
    ("from typing import Self\n", "from typing import Self"),
    ("from enum import StrEnum\n", "from enum import StrEnum"),
    ("import datetime\nx = datetime.UTC\n", "datetime.UTC"),
    ("try:\n    pass\nexcept* ValueError:\n    pass\n", "not Python 3.10 syntax"),
    ("raise ExceptionGroup('x', [ValueError()])\n", "ExceptionGroup"),
])
def test_the_check_finds_what_it_looks_for(tmp_path, monkeypatch, snippet, expected):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / "probe.py"
    path.write_text(snippet, encoding="utf-8")
    assert any(expected in p for p in _problems(path)), _problems(path)


@pytest.mark.parametrize("snippet", [
    "try:\n    import tomllib\nexcept ModuleNotFoundError:\n    import tomli as tomllib\n",
    "import sys\nif sys.version_info >= (3, 11):\n    from typing import Self\n",
    "from typing import Annotated, Literal\nimport datetime\nx = datetime.timezone.utc\n",
])
def test_the_check_lets_guarded_and_old_uses_pass(tmp_path, monkeypatch, snippet):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / "probe.py"
    path.write_text(snippet, encoding="utf-8")
    assert _problems(path) == []
