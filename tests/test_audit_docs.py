"""The documentation as a new user follows it: the commands it shows, its Python snippets, its module maps.

README.md, docs/modules.md, docs/game_flow.md, docs/training_results.md, benchmarks/README.md and the
docstrings of the command-line modules show commands and code; these tests hold them to the code, reading
the text (no command is run, so they are fast) except the README's two environment loops, run small.
"""
from __future__ import annotations

import ast
import dataclasses
import re
import shlex
import sys
import typing
from pathlib import Path

import pytest

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


def documented_commands() -> list[tuple[str, str, str]]:
    """(where, program, the rest of the line) for every ``python -m MODULE ...`` or ``python FILE.py ...``
    in the docs' code spans and blocks and in the code's comments and docstrings."""
    found = []

    def add(where: str, text: str) -> None:
        text = re.sub(r"\s+", " ", re.sub(r"\\\s*\n\s*", " ", text))
        for m in re.finditer(r"python3? (-m [a-z_.]+|[a-z_/]+\.py)((?: [^`|#;)]*)?)", text):
            found.append((where, m.group(1), m.group(2).strip()))

    for rel in DOCS:
        text = _text(rel)
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL):
            for line in re.sub(r"\\\n", " ", block).splitlines():
                add(rel, line)
        for span in re.findall(r"`([^`]*)`", re.sub(r"```.*?```", "", text, flags=re.DOTALL)):
            add(rel, span)
    for rel in _code_files():
        for line in re.sub(r"\\\n", " ", _text(rel)).splitlines():
            if "python" in line:
                add(rel, line)
    return found


def cli_source(program: str) -> Path | None:
    """The file that defines a documented program's flags (None: not one of ours)."""
    if program.startswith("-m "):
        module = program[3:]
        if not module.startswith(("mj_env.", "agents.")):
            return None  # pytest, venv
        path = ROOT / (module.replace(".", "/") + ".py")
    else:
        path = ROOT / program
    return path


def train_flags() -> set[str]:
    """train.py's flags, as tyro makes them from ``train.Args``: ``--field-name``, and ``--no-field`` for a bool."""
    tree = ast.parse(_text("train.py"))
    args = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Args")
    flags = {"--help"}
    for node in args.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            flag = "--" + node.target.id.replace("_", "-")
            flags.add(flag)
            if ast.unparse(node.annotation) == "bool":
                flags.add("--no-" + node.target.id.replace("_", "-"))
    return flags


def argparse_flags(path: Path) -> set[str]:
    return {"--help"} | set(re.findall(r"add_argument\(\s*\"(--[a-z0-9-]+)\"", path.read_text(encoding="utf-8")))


def test_the_docs_show_commands_of_every_command_line_program():
    """The extraction below finds the commands (a guard against a pattern that matches nothing)."""
    programs = {program for _, program, _ in documented_commands()}
    for expected in ("train.py", "-m agents.arena", "-m mj_env.score", "-m mj_env.records", "-m agents.curve",
                     "-m agents.search", "benchmarks/throughput.py", "examples/rule_variants.py"):
        assert expected in programs, sorted(programs)


def test_every_flag_of_a_documented_command_exists_in_that_program():
    """A flag the docs show (``--opponent-rule 0.75``, ``--common-random``) is one the program defines, spelled
    the same: argparse would take an abbreviation, the docs should not rely on it."""
    flags_of: dict[Path, set[str]] = {}
    bad = []
    for where, program, rest in documented_commands():
        path = cli_source(program)
        if path is None:
            continue
        assert path.is_file(), f"{where}: `python {program}`: no such file {path.relative_to(ROOT)}"
        if path not in flags_of:
            flags_of[path] = train_flags() if path.name == "train.py" else argparse_flags(path)
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", rest):
            if flag not in flags_of[path]:
                bad.append(f"{where}: python {program} ... {flag}")
    assert not bad, bad


def test_train_py_flags_read_from_args_match_its_dataclass():
    """The flags the test above reads from train.py's source are those of ``train.Args`` itself."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    fields = dataclasses.fields(train.Args)
    hints = typing.get_type_hints(train.Args)
    expected = {"--help"} | {"--" + f.name.replace("_", "-") for f in fields}
    expected |= {"--no-" + f.name.replace("_", "-") for f in fields if hints[f.name] is bool}
    assert train_flags() == expected


def test_documented_train_commands_parse():
    """Every ``python train.py ...`` of the docs parses and passes train.py's checks (placeholders such as R,
    S, NAME and PATH given a value of their kind)."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train
    from agents import training_checks

    fill = {"R": "points", "S": "1", "NAME": "x", "PATH": str(ROOT / "agents" / "data" / "pretrained_beijing.pt")}
    seen = 0
    for where, program, rest in documented_commands():
        if program != "train.py" or not rest or rest.count('"') % 2:
            continue
        try:
            argv = shlex.split(rest)
        except ValueError:
            continue
        if argv and argv[-1].startswith("--") and not argv[-1].startswith("--no-") and argv[-1] not in {
                "--overwrite", "--torch-deterministic", "--anneal-lr", "--norm-adv", "--clip-vloss",
                "--eval-pretrained", "--eval-greedy", "--progress", "--help"}:
            continue  # a command wrapped across a table cell or a line of prose, its value on the next
        if "--help" in argv:
            continue
        if "--rules" in argv:
            fill_r = dict(fill, R="beijing")
        else:
            fill_r = fill
        argv = [fill_r.get(a, a) for a in argv]
        argv = [re.sub(r"S(?=$|_)", "1", a) if a.startswith(("rw5s", "s16_seed")) else a for a in argv]
        try:
            args = train.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{where}: python train.py {rest}: refused (its message is above)")
        assert training_checks.init_problem(args, train.flags_given(argv)) is None, (where, rest)
        seen += 1
    assert seen >= 10


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


# --------------------------------------------------------------------------- the README's Python snippets


def readme_python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", _text("README.md"), re.DOTALL)


def _run(code: str, tmp_path: Path) -> dict:
    import runpy

    script = tmp_path / "readme_snippet.py"
    script.write_text(code, encoding="utf-8")
    return runpy.run_path(str(script))


def test_the_readme_aec_loop_runs_as_written(capsys, tmp_path):
    code = readme_python_blocks()[0]
    assert "mj_env.env(" in code
    _run(code, tmp_path)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and sorted(line.split()[0] for line in lines) == [f"player_{i}" for i in range(4)]


def test_the_readme_vector_loop_runs_as_written_at_a_smaller_size(tmp_path):
    code = readme_python_blocks()[1]
    assert "MahjongVectorEnv(num_envs=1024" in code and "range(1000)" in code
    small = code.replace("num_envs=1024", "num_envs=8").replace("range(1000)", "range(60)")
    scope = _run(small, tmp_path)
    assert scope["mask"].shape == (8, 127) and str(scope["mask"].dtype) == "int8"
    assert scope["rewards"].shape == (8, 4) and scope["obs"]["seat"].shape == (8,)


def test_the_readme_calculator_example_gives_the_seeds_answer():
    """The README's calculator line is docs/INTERFACES.md's second worked example without "rules": same answer."""
    import json

    from mj_env.score import respond

    line = re.search(r"echo '(\{.*?\})' \| python -m mj_env\.score", _text("README.md")).group(1)
    answer = json.loads(respond(line))
    assert answer == {"legal": True, "fan": 2, "patterns": {"庄": 1, "推倒和": 1}, "shaozhuang": 4,
                      "scores": [-6000, 3000, 2000, 1000]}


# --------------------------------------------------------------------------- what a training run writes


def test_train_py_docstring_names_every_file_and_scalar_group_a_run_writes():
    """train.py's docstring says what ``runs/<exp_name>/`` holds: it left out args.json and the ``bc/``
    scalars (``bc/agreement``, where agents.curve sends the reader of a cloning-only run). A run writes from train.py
    and from agents/training_run.py (its ``RunLog``)."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    source = _text("train.py") + _text("agents/training_run.py")
    groups = set(re.findall(r"add_scalar\(f?\"([a-z_]+)/", source))
    files = set(re.findall(r"self\.dir / \"([a-z_]+\.[a-z]+)\"", source)) | {"final_eval.json"}
    assert {"bc", "charts", "losses", "eval"} <= groups and "args.json" in files
    missing = [f"{g}/*" for g in sorted(groups) if f"``{g}/*``" not in train.__doc__]
    missing += [f for f in sorted(files) if f"``{f}``" not in train.__doc__]
    assert not missing, f"train.py's docstring does not name {missing}"


# --------------------------------------------------------------------------- the command lines without an extra


def _without(monkeypatch, *names: str) -> None:
    """Make ``import NAME`` fail, as it does where that extra is not installed."""
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def test_the_arena_without_scipy_says_what_to_install_instead_of_a_traceback():
    """``pip install -e .`` (the environment alone, README) brings no scipy: ``python -m agents.arena`` ended in
    a ModuleNotFoundError traceback at its import, even for ``--help``; now --help works and a run is refused
    in one line naming the install."""
    import subprocess

    code = ("import runpy, sys; sys.modules['scipy'] = None; sys.argv = ['arena'] + sys.argv[1:]; "
            "runpy.run_module('agents.arena', run_name='__main__', alter_sys=True)")
    run = subprocess.run([sys.executable, "-c", code, "--agents", "rule,random", "--hands", "2"], cwd=ROOT, check=False,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "scipy is needed for the arena's 95% intervals: pip install scipy" in run.stderr
    helped = subprocess.run([sys.executable, "-c", code, "--help"], cwd=ROOT, check=False, capture_output=True, text=True,
                            timeout=120)
    assert helped.returncode == 0 and "--agents" in helped.stdout, helped.stderr


def test_the_arena_without_tqdm_asks_for_it_or_for_quiet(monkeypatch, capsys):
    from agents import arena

    _without(monkeypatch, "tqdm")
    with pytest.raises(SystemExit) as e:
        arena.main(["--agents", "rule,random", "--hands", "2"])
    assert e.value.code == 2
    assert "tqdm is needed for the progress bar (or give --quiet): pip install tqdm" in capsys.readouterr().err
    assert arena.main(["--agents", "rule,random", "--hands", "2", "--quiet"]) in (0, None)
    with pytest.raises(ModuleNotFoundError, match="pip install tqdm"):
        arena.compare(["rule", "random"], 2, progress=True)


def test_the_arena_plot_without_matplotlib_names_the_plot_extra(monkeypatch, capsys, tmp_path):
    """--plot asks for matplotlib through the same ``missing_module`` as the other extras (it had its own
    find_spec check, naming no extra)."""
    from agents import arena

    _without(monkeypatch, "matplotlib")
    with pytest.raises(SystemExit) as e:
        arena.main(["--agents", "rule,random", "--hands", "2", "--quiet", "--plot", str(tmp_path / "p.png")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "matplotlib is needed for --plot" in err and "'.[plot]'" in err, err


def test_the_intervals_without_scipy_name_the_install(monkeypatch):
    from agents import arena_report

    _without(monkeypatch, "scipy", "scipy.stats")
    with pytest.raises(ModuleNotFoundError, match=r"scipy is needed for the 95% intervals .*pip install scipy"):
        arena_report.mean_ci95([1.0, 2.0, 3.0])


@pytest.mark.parametrize("module, argv", [("agents.search", ["--walls", "1", "--worlds", "1"]),
                                          ("agents.rollouts", ["--seconds", "1", "--tables", "1"])])
def test_search_and_rollouts_without_scipy_stop_before_they_play(module, argv, monkeypatch, capsys):
    """They print 95% intervals at the end: without scipy they stopped there, in a traceback, after the work."""
    import importlib

    main = importlib.import_module(module).main
    _without(monkeypatch, "scipy", "scipy.stats")
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and "scipy is needed for the 95% intervals" in capsys.readouterr().err


def test_the_curve_without_matplotlib_names_the_plot_extra(monkeypatch, capsys, tmp_path):
    """agents.curve "needs the plot extra": without matplotlib it ended in a traceback at the import."""
    from agents import curve

    _without(monkeypatch, "matplotlib", "matplotlib.pyplot")
    with pytest.raises(SystemExit) as e:
        curve.main([str(tmp_path / "progress.csv"), "--out", str(tmp_path / "c.png")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "matplotlib is needed for the curve" in err and "'.[plot]'" in err


def test_train_without_scipy_is_refused_before_it_trains(monkeypatch, capsys):
    """train.py imports the arena; its evaluations need scipy, asked when the arguments are read."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    _without(monkeypatch, "scipy", "scipy.stats")
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--exp-name", "never_written"])
    assert e.value.code == 2 and "scipy is needed for the evaluations" in capsys.readouterr().err
    assert train.parse_args(["--eval-every", "0", "--final-eval-hands", "0"]).eval_every == 0


def test_a_pretrained_opponent_without_torch_says_what_is_missing(monkeypatch):
    """mj_env.baselines.make_named_agent: "one whose package cannot be imported (torch missing) says what is
    missing". It loaded the entry point (agents.pretrained, which imports no torch) inside its check and
    called the factory outside it, so gym.make(..., opponents="pretrained") without torch ended in a bare
    ModuleNotFoundError from deep in agents.networks."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import gymnasium as gym

    import agents.networks  # noqa: F401  (so that monkeypatch puts it back)
    import mj_env  # noqa: F401  (registers the ids)
    from mj_env.baselines import make_named_agent

    monkeypatch.delitem(sys.modules, "agents.networks")
    _without(monkeypatch, "torch")
    with pytest.raises(ValueError, match=r"needs torch: install the training extra"):
        make_named_agent("pretrained")
    with pytest.raises(ValueError, match=r"opponent: agent 'pretrained' .* needs torch"):
        gym.make("mj_env/Beijing-v0", opponents="pretrained")


def test_rule_variants_without_scipy_stops_before_it_plays(monkeypatch, capsys):
    """examples/rule_variants.py printed its table's intervals after every variant had played its walls:
    without scipy it failed there (minutes into --walls 1000), now when it reads its arguments."""
    from example_modules import load_example

    rule_variants = load_example("rule_variants")
    _without(monkeypatch, "scipy", "scipy.stats")
    with pytest.raises(SystemExit) as e:
        rule_variants.parse_args(["--smoke"])
    assert e.value.code == 2 and "scipy is needed for the 95% intervals" in capsys.readouterr().err
