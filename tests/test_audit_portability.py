"""Portability: the project on machines other than a Linux box with a UTF-8 locale (Windows' cp1252 or cp936
default encodings, an ASCII locale, macOS' and Windows' ``spawn`` start method, other hash seeds)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = sorted([ROOT / "train.py"] + [p for top in ("mj_env", "agents", "examples", "benchmarks")
                                      for p in (ROOT / top).rglob("*.py")])


def _mode(call: ast.Call) -> str:
    node = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "r"


def _text_io_without_encoding(path: Path) -> list[str]:
    """The calls in ``path`` that open a file in text mode without ``encoding=``: ``open(p, "w")``,
    ``p.open()``, ``p.write_text(s)``, ``p.read_text()``. (Exempt: the null device, where nothing is read or kept,
    and Linux's /proc files, ASCII text on the one system that has them.)"""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open" or isinstance(f, ast.Attribute) and f.attr == "open" and (
                not isinstance(f.value, ast.Name) or f.value.id not in ("os", "z", "zipfile", "tarfile")):
            if isinstance(f, ast.Attribute):  # Path.open(mode): the mode is its first argument
                node = ast.Call(func=f, args=[f.value, *node.args], keywords=node.keywords)
            where = ast.unparse(node.args[0]) if node.args else ""
            if "b" in _mode(node) or "devnull" in where or where.startswith("'/proc/"):
                continue
        elif not (isinstance(f, ast.Attribute) and (f.attr == "write_text" and len(node.args) == 1
                                                    or f.attr == "read_text" and not node.args)):
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_text_files_are_opened_with_an_explicit_encoding():
    """Without ``encoding=`` a text file is read and written in the locale's encoding: cp1252 or cp936 on Windows,
    ASCII under ``LANG=C PYTHONUTF8=0``. train.py wrote args.json (``--exp-name 运行 1``, which check_args accepts,
    and ``--init-from`` a path) that way: a UnicodeEncodeError traceback after the run's folder was made under
    cp1252, a GBK file that no JSON reader takes under cp936; progress.csv too, which ``agents.curve`` reads as
    UTF-8. (Found with ``python -X warn_default_encoding train.py ...``: EncodingWarning at these three lines.)"""
    found = [line for path in CODE for line in _text_io_without_encoding(path)]
    assert not found, "\n".join(found)
