"""The boundary of ``agents.training_run``: train.py's run directory (its lock), logs and stopping moved out of
train.py, which now reads as the algorithm. train.py no longer defines them and uses the module's own objects; the
module never imports train.py, and ``import agents`` does not import it (it needs the ``train`` extra); train.py
without tensorboard or tqdm still says what installs them."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MOVED = ("lock_run_dir", "unlock_run_dir", "run_in_use", "RunDirTaken", "RunLog", "STOP_SIGNALS", "Terminated",
         "interruption", "signals_held", "tell", "signals_end_the_process", "written_whole", "prune_snapshots")


def _defined(path: Path) -> set[str]:
    """The names a file's top level defines (functions, classes, assignments), not those it imports."""
    out = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def _python(code: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_run_plumbing_is_defined_in_the_module_and_no_longer_in_train_py():
    in_train, in_module = _defined(ROOT / "train.py"), _defined(ROOT / "agents" / "training_run.py")
    assert not in_train & set(MOVED), sorted(in_train & set(MOVED))
    assert set(MOVED) <= in_module, sorted(set(MOVED) - in_module)
    # the algorithm stays in train.py
    algorithm = {"Args", "Rollout", "SeatPlan", "collect_rollout", "ppo_update", "evaluate", "finish_run", "main"}
    assert algorithm <= in_train


def test_train_py_uses_the_modules_own_objects():
    """One ``Terminated``: train.py's ``__main__`` raises it on SIGTERM and the module's ``interruption`` tells it
    from Ctrl-C by ``isinstance``; a copy in train.py would name every SIGTERM "Ctrl-C"."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train
    from agents import training_checks, training_run

    for name in ("RunLog", "RunDirTaken", "Terminated", "interruption", "signals_held", "tell", "written_whole",
                 "prune_snapshots", "signals_end_the_process"):
        assert getattr(train, name) is getattr(training_run, name), name
    assert training_checks.run_in_use is training_run.run_in_use  # (--overwrite's check of a run still going)
    assert training_run.interruption(train.Terminated()) == "SIGTERM"
    assert training_run.interruption(KeyboardInterrupt()) == "Ctrl-C"


def test_the_module_never_imports_train_py():
    """A lower layer never imports a higher one (docs/modules.md): nothing in the module names train, and it
    imports where train.py cannot be imported at all."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    pytest.importorskip("tensorboard")
    tree = ast.parse((ROOT / "agents" / "training_run.py").read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "train" not in imported
    run = _python("import sys\nsys.modules['train'] = None  # import train raises ImportError\n"
                  "import agents.training_run\nprint('train' in sys.modules and sys.modules['train'] is not None)\n")
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr[-2000:]


def test_import_agents_does_not_import_the_module():
    """``import agents`` (and ``mj_env``) works in a core install without torch, tensorboard or tqdm: the package's
    front door must not import the training run's module, nor TensorBoard through it."""
    run = _python("import sys\nimport agents, mj_env\n"
                  "print(sorted(m for m in ('agents.training_run', 'torch.utils.tensorboard') if m in sys.modules))\n")
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stderr[-2000:]


@pytest.mark.parametrize("blocked", ["tensorboard", "tqdm"])
def test_train_py_without_tensorboard_or_tqdm_says_what_installs_it(blocked):
    """The module imports TensorBoard's writer and tqdm at its top; train.py imports it inside the guard that names
    the ``train`` extra, so a missing one is still that one line, not a traceback (as before the move)."""
    pytest.importorskip("torch")  # without torch the message names torch (tests/test_python_runtime.py)
    code = ("import runpy, sys\n"
            "class Blocked:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            f"        if name.split('.')[0] == {blocked!r}:\n"
            "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
            "sys.meta_path.insert(0, Blocked())\n"
            "sys.argv = ['train.py', '--help']\n"
            "runpy.run_path('train.py', run_name='__main__')\n")
    run = _python(code)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.stderr.strip().startswith(f"train.py needs the module '{blocked}': pip install -e '.[train]'"), \
        run.stderr[-2000:]
