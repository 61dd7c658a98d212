"""The package's imports point only downward, in the order of docs/modules.md."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "mj_env"


def documented_order() -> list[str]:
    """The mj_env modules in the order docs/modules.md lists them (families/ as one module)."""
    order = []
    for line in (ROOT / "docs" / "modules.md").read_text(encoding="utf-8").splitlines():
        order.extend(re.findall(r"`mj_env/([a-z0-9_]+)(?:\.py|/)`", line.split("|")[2] if line.count("|") > 3 else ""))
    return order


def imports_of(path: Path) -> set[str]:
    """The mj_env modules a file imports (relative imports), leaving out ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    in_families = path.parent.name == "families"
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or id(node) in skip or node.level == 0:
            continue
        up = node.level - (1 if in_families else 0)  # levels above the mj_env package directory
        if up == 0 and in_families:
            out.add("families")
        elif node.module:
            out.add(node.module.split(".")[0])
        else:
            out.update(a.name for a in node.names)
    return out


def test_every_module_is_in_the_map():
    order = documented_order()
    files = {p.stem for p in PKG.glob("*.py") if p.stem != "__init__"} | {"families"}
    assert files == set(order), f"docs/modules.md and mj_env differ: {sorted(files ^ set(order))}"


def test_imports_point_only_downward():
    order = documented_order()
    rank = {name: i for i, name in enumerate(order)}
    bad = []
    for path in [*PKG.glob("*.py"), *(PKG / "families").glob("*.py")]:
        if path.name == "__init__.py" and path.parent == PKG:
            continue  # the package's front door imports the environments it exports
        me = "families" if path.parent.name == "families" else path.stem
        for dep in imports_of(path) - {me}:
            if dep not in rank or rank[dep] > rank[me]:
                bad.append(f"{path.relative_to(ROOT)} imports {dep}")
    assert not bad, bad


def test_the_package_never_imports_agents_or_training():
    for path in PKG.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) (agents|train|torch)\b", text, re.MULTILINE), path


def test_each_module_imports_only_what_the_map_says():
    """The "may import" column of docs/modules.md is exact enough to hold: nothing outside it."""
    order = documented_order()
    allowed: dict[str, set[str]] = {}
    for line in (ROOT / "docs" / "modules.md").read_text(encoding="utf-8").splitlines():
        cells = line.split("|")
        if len(cells) < 6:
            continue
        names = re.findall(r"`mj_env/([a-z0-9_]+)(?:\.py|/)`", cells[2])
        may = set(re.findall(r"[a-z_]+", cells[4])) & set(order)
        for name in names:
            allowed[name] = may
    bad = []
    for path in [*PKG.glob("*.py"), *(PKG / "families").glob("*.py")]:
        if path.name == "__init__.py" and path.parent == PKG:
            continue
        me = "families" if path.parent.name == "families" else path.stem
        extra = imports_of(path) - {me} - allowed[me]
        if extra:
            bad.append(f"{path.relative_to(ROOT)} imports {sorted(extra)}, not in its row of docs/modules.md")
    assert not bad, bad


def test_no_program_imports_a_private_name_of_the_packages():
    """benchmarks/throughput.py imported ``agents.arena._file_key``: a rename inside the arena would break it
    unseen. The programs above the packages (benchmarks/, examples/, train.py) import only public names of them."""
    bad = []
    for path in [*sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "examples").glob("*.py")),
                 ROOT / "train.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("agents", "mj_env"):
                bad += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_")]
    assert not bad, bad
