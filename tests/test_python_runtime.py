"""What a user gets from ``pip install -e .`` without torch (the core install: numpy, gymnasium, pettingzoo), on any
Python that pyproject.toml's ``requires-python`` admits. Found by the Python-versions audit, which installed the
core package (no extra) with pytest, hypothesis, mahjong and scipy under 3.10, 3.12 and 3.13 and ran the suite:

- 21 test files failed to collect (``ModuleNotFoundError: No module named 'torch'``) instead of skipping, three of
  them (the baselines' mutation tests, which need no torch) only because they took their observation helpers
  from tests/test_agents.py; the helpers are now in tests/agent_obs.py and the files that need torch skip;
- ``agents.make_agent("pretrained")`` or a checkpoint's path ended in a bare ``No module named 'torch'`` raised at
  ``import torch`` inside agents/networks.py, where ``mj_env``'s own ``opponents="pretrained"`` names the
  ``train`` extra;
- under ``python -OO`` (docstrings removed) ``python -m mj_env.records --help`` and the other command lines that
  took their description from their module's docstring died with AttributeError (``None.split``), on every version.

torch is blocked here (``_NO_TORCH``), so these run (and fail without the fixes) where torch is installed too."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# torch (and torch.*) cannot be imported, as where it is not installed; a finder rather than sys.modules["torch"] = None
# (tests/test_examples_missing.py's way), since scipy's array-API helpers read sys.modules["torch"] as a module
_NO_TORCH = """import sys


class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "torch":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, NoTorch())
"""


def _run(code: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _NO_TORCH + code, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_every_test_file_collects_without_torch():
    """A test file that needs torch skips (``pytest.importorskip("torch")``) rather than failing to collect, and one
    that needs none collects its tests."""
    code = ("import pytest\n"
            "raise SystemExit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:xdist', '--collect-only', "
            "'tests']))\n")
    run = _run(code)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "error" not in run.stdout.splitlines()[-1], run.stdout[-3000:]
    for name in ("test_baselines_wrappers_mutants", "test_agents_core"):
        assert f"tests/{name}.py::" in run.stdout, name  # no torch needed: they still run


def test_a_network_agent_without_torch_names_the_extra_that_installs_it(tmp_path):
    """``make_agent`` of the shipped player or of a checkpoint file says what installs torch (the ``train`` extra), as
    ``mj_env``'s own agent names do (``make_named_agent``), instead of a bare ``No module named 'torch'``; the error
    is still the ModuleNotFoundError of torch (``name == "torch"``), which ``make_named_agent`` reads. A misspelt
    name or a bad path is the ValueError it is with torch (it was the missing torch: torch was imported first)."""
    checkpoint = tmp_path / "player.pt"
    checkpoint.write_bytes(b"not read: torch is asked for first")
    code = ("import agents\n"
            "from mj_env.baselines import make_named_agent\n"
            "for spec in ('pretrained', 'pretrained:greedy', sys.argv[1]):\n"
            "    try:\n"
            "        agents.make_agent(spec)\n"
            "    except ModuleNotFoundError as e:\n"
            "        print('MNF', e.name, e)\n"
            "try:\n"
            "    make_named_agent('pretrained')\n"
            "except ValueError as e:\n"
            "    print('VE', e)\n"
            "print(agents.make_agent('rule').__class__.__name__)\n"
            "for spec in ('no_such_agent', ':greedy', sys.argv[1] + '.missing'):\n"
            "    try:\n"
            "        agents.make_agent(spec)\n"
            "    except ValueError as e:\n"
            "        print('VE', e)\n")
    run = _run(code, str(checkpoint), timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    extra = "pip install -e '.[train]'"
    assert len(lines) == 8 and lines[4] == "RuleBasedAgent", run.stdout
    for line in lines[:3]:
        assert line.startswith("MNF torch torch is needed for network agents") and extra in line, line
    assert lines[3].startswith("VE ") and "which needs torch" in lines[3] and extra in lines[3], lines[3]
    # a name that is no agent, or no file, is refused as such before torch is asked for
    assert lines[5].startswith("VE unknown agent 'no_such_agent'"), lines[5]
    assert lines[6].startswith("VE agent ':greedy': the path is empty"), lines[6]
    assert lines[7].startswith("VE unknown agent") and ".missing" in lines[7], lines[7]


# python -OO (PYTHONOPTIMIZE=2) removes docstrings: ``__doc__`` is None, and the command lines that took their
# description from it (``__doc__.split("\n")[0]``) died with AttributeError before parsing, --help included
_CLIS = ("mj_env.records", "mj_env.tables", "mj_env.score", "agents.arena", "agents.curve", "agents.rollouts",
         "agents.search", "agents.play")


def test_the_command_lines_give_their_help_under_python_OO():
    for module in _CLIS:
        run = subprocess.run([sys.executable, "-OO", "-B", "-m", module, "--help"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120, check=False)
        assert run.returncode == 0 and "usage:" in run.stdout, (module, run.stderr[-2000:])


def test_no_source_reads_a_docstring_that_python_OO_removes():
    """The scripts (train.py, benchmarks/, examples/) as the package: ``(__doc__ or "")``, never ``__doc__.attr``,
    and no ``splitlines()[0]`` of it (an empty string has no first line)."""
    files = [ROOT / "train.py"]
    for folder in ("mj_env", "agents", "benchmarks", "examples"):
        files += sorted((ROOT / folder).rglob("*.py"))
    bad = [f"{path.relative_to(ROOT)}:{n}" for path in files
           for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           if re.search(r"(?<![\w.])__doc__\s*\.|__doc__ or \"\"\)\.splitlines\(\)\[0\]", line)]
    assert not bad, bad


@pytest.mark.parametrize("depth", [65, 500, 5000])
def test_a_record_whose_settlement_nests_too_deeply_is_refused_as_such_on_every_python(depth):
    """mj_env.records refused a stored settlement nested 5000 deep as "not a settlement object (nested too deeply)"
    where json.dumps ran out of recursion (3.10-3.12), but under 3.13, whose encoder goes deeper, as a settlement
    that differs (tests/test_records.py failed there); 500 deep it said "differs" on every version. The depth is
    now counted (``MAX_SETTLEMENT_DEPTH``)."""
    from test_records import _played

    from mj_env import records

    _, rec = _played(seed=3)
    deep = []
    for _ in range(depth - 1):
        deep = [deep]
    with pytest.raises(records.RecordError, match="settlement: not a settlement object .nested too deeply"):
        records.replay(dict(rec, settlement=deep))
    if depth == 65:  # one level less is a settlement that differs, not one nested too deeply
        with pytest.raises(records.RecordError, match="the replay settles otherwise than the record"):
            records.replay(dict(rec, settlement=deep[0]))


def test_train_py_without_torch_says_what_installs_it():
    """``python train.py`` (``--help`` too) in a core install ended in a ``No module named 'torch'`` traceback; it now
    says what installs it, as the examples do (tests/test_examples_missing.py). Imported, it raises the
    ModuleNotFoundError still (the tests' ``pytest.importorskip("torch")`` comes first)."""
    code = ("import runpy\n"
            "sys.argv = ['train.py', '--help']\n"
            "runpy.run_path('train.py', run_name='__main__')\n")
    run = _run(code, timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.stderr.strip() == ("train.py needs the module 'torch': pip install -e '.[train]' (after pip install "
                                  "torch==2.13.0; the README says where its CPU wheel is)")
    imported = _run("try:\n    import train\nexcept ModuleNotFoundError as e:\n    print(e.name)\n", timeout=120)
    assert imported.returncode == 0 and imported.stdout.strip() == "torch", imported.stderr[-2000:]


@pytest.mark.parametrize("example,library", [("torchrl_ppo", "torchrl"), ("rllib_ppo", "ray")])
def test_the_examples_whose_library_fails_under_python_OO_say_so_in_one_line(example, library):
    """torchrl and ray read docstrings at import, so ``python -OO examples/torchrl_ppo.py --help`` ended in their
    TypeError / AttributeError traceback; the example now says in one line that the library cannot run under -OO."""
    pytest.importorskip(library)
    run = subprocess.run([sys.executable, "-OO", "-B", f"examples/{example}.py", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, check=False)
    if run.returncode == 0 and "usage:" in run.stdout:  # (a version of the library that imports under -OO)
        return
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert f"{library} cannot be imported under python -OO" in run.stderr
