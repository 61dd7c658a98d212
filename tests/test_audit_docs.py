"""The documentation as a new user follows it: its module maps."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "docs/modules.md", "docs/game_flow.md", "docs/training_results.md", "benchmarks/README.md"]
CODE_DIRS = ["agents", "benchmarks", "examples", "mj_env"]


def _text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _code_files() -> list[str]:
    files = ["train.py"]
    for top in CODE_DIRS:
        files += sorted(str(p.relative_to(ROOT)) for p in (ROOT / top).glob("*.py"))
    return files


# --------------------------------------------------------------------------- the module maps


def _agents_modules() -> list[str]:
    return sorted(p.stem for p in (ROOT / "agents").glob("*.py") if p.stem != "__init__")


def test_the_agents_package_docstring_lists_every_agents_module():
    """``help(agents)`` shows a table of the package's modules: it had no row for agents.common_random (the
    arena's --common-random) nor agents.curve (``python -m agents.curve``)."""
    import agents

    listed = set(re.findall(r"``agents\.([a-z_]+)``", agents.__doc__))
    assert set(_agents_modules()) <= listed, sorted(set(_agents_modules()) - listed)


def test_modules_md_names_every_agents_module():
    """docs/modules.md is the module map: its ``agents/`` row named a few modules (common_random, rollouts,
    pretrained) and left out the search player, the learning curve, the arena and the agents themselves."""
    row = next(line for line in _text("docs/modules.md").splitlines() if line.startswith("| above the package | `agents/`"))
    missing = [m for m in _agents_modules() if f"`agents/{m}.py`" not in row]
    assert not missing, f"docs/modules.md's agents/ row does not name {missing}"


def _first_party_imports(path: Path) -> set[str]:
    """Top-level names of this repository's modules that a file imports (anywhere in it)."""
    ours = {"mj_env", "agents", "train"}
    for top in ("tests", "benchmarks", "examples"):
        ours |= {p.stem for p in (ROOT / top).glob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & ours


def test_code_above_the_package_imports_only_what_modules_md_says():
    """docs/modules.md: ``agents/`` may import mj_env; ``train.py``, ``benchmarks/``, ``examples/`` mj_env and
    agents, plus the exceptions its row names (a file and what it imports). examples/rollout_improvement.py
    imports ``train`` (its starting clone is train.py's ``main``), which the row did not say."""
    rows = {line.split("|")[2]: line for line in _text("docs/modules.md").splitlines()
            if line.startswith("| above the package |")}
    agents_row = next(r for k, r in rows.items() if "`agents/`" in k)
    top_row = next(r for k, r in rows.items() if "`train.py`" in k)
    assert "| mj_env |" in agents_row
    bad = []
    for path in sorted((ROOT / "agents").glob("*.py")):
        extra = _first_party_imports(path) - {"mj_env", "agents"}
        if extra:
            bad.append(f"{path.relative_to(ROOT)} imports {sorted(extra)}")
    for path in [ROOT / "train.py", *sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "examples").glob("*.py"))]:
        siblings = {p.stem for p in path.parent.glob("*.py")} if path.parent.name == "benchmarks" else set()
        for name in sorted(_first_party_imports(path) - {"mj_env", "agents"} - siblings):
            rel = str(path.relative_to(ROOT))
            if f"`{rel}`" not in top_row or not re.search(rf"`(tests/)?{name}(\.py)?`", top_row):
                bad.append(f"{rel} imports {name}, which docs/modules.md's row does not name")
    assert not bad, bad


def test_the_readme_layout_names_every_module():
    """The README's "Layout" block names each module of mj_env, mj_env/families, agents and benchmarks."""
    layout = _text("README.md").split("## Layout", 1)[1].split("```", 2)[1]
    names = set(re.findall(r"[a-z_0-9]+\.py", layout))
    missing = []
    for top in ("mj_env", "mj_env/families", "agents", "benchmarks"):
        for path in (ROOT / top).glob("*.py"):
            if path.stem != "__init__" and not path.stem.startswith("_") and path.name not in names:
                missing.append(str(path.relative_to(ROOT)))
    assert not missing, missing
