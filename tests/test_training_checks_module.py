"""The boundary of ``agents.training_checks``: what train.py checks of its arguments before anything is built or
written moved out of train.py, which reads as the algorithm. train.py no longer defines the checks and calls the
module's own; the module never imports train.py (it takes train.py's ``Args`` as an argument), and ``import agents``
does not import it (it needs the ``train`` extra)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_training_run_module import _defined, _python

ROOT = Path(__file__).resolve().parent.parent
MOVED = ("check_args", "init_problem", "run_dir_problem", "init_checkpoint", "flags_of_network", "network_config",
         "run_rules", "windows_device", "MAX_DECISIONS", "MAX_NAME", "MAX_EVAL_HANDS", "MAX_FLOAT_FLAG",
         "WINDOWS_FORBIDDEN", "WINDOWS_DEVICES")


def test_the_checks_are_defined_in_the_module_and_no_longer_in_train_py():
    in_train, in_module = _defined(ROOT / "train.py"), _defined(ROOT / "agents" / "training_checks.py")
    assert not in_train & set(MOVED), sorted(in_train & set(MOVED))
    assert set(MOVED) <= in_module, sorted(set(MOVED) - in_module)
    # the command line itself (tyro over Args, its exit status 2) stays in train.py with Args
    assert {"Args", "parse_args", "usage_error", "flags_given"} <= in_train


def test_train_py_calls_the_modules_own_checks():
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train
    from agents import training_checks

    for name in ("check_args", "run_dir_problem", "init_checkpoint", "flags_of_network", "network_config",
                 "run_rules"):
        assert getattr(train, name) is getattr(training_checks, name), name


def test_the_checks_read_the_fields_of_the_args_they_are_given():
    """The module reads train.py's ``Args`` from the object it is given (its fields' types for the float checks and
    the choices, its defaults for --init-from's flags), not from an import of train.py."""
    pytest.importorskip("torch")
    import train
    from agents import training_checks

    assert training_checks.check_args(train.Args()) is None
    assert training_checks.check_args(train.Args(obs="v3")) == "--obs must be one of v1, v2, not 'v3'"
    assert training_checks.check_args(train.Args(gamma=float("nan"))) == "--gamma must be a finite number, not nan"
    assert training_checks.check_args(train.Args(gamma=2)) == "--gamma must be in [0, 1], not 2"
    pretrained = str(ROOT / "agents" / "data" / "pretrained_beijing.pt")
    args = train.Args(init_from=pretrained, bc_steps=0)
    assert training_checks.init_problem(args) is None
    wrong = training_checks.init_problem(train.Args(init_from=pretrained, bc_steps=0, channels=8))
    assert wrong is not None and wrong.startswith("--channels 8: the network of --init-from")
    # the defaults are the Args class's own: --bc-steps at its default with --init-from is not "asked for"
    assert training_checks.init_problem(train.Args(init_from=pretrained)) is None
    assert training_checks.init_problem(train.Args(init_from=pretrained), frozenset({"bc_steps"})) is not None


def test_the_module_never_imports_train_py():
    """A lower layer never imports a higher one (docs/modules.md): nothing in the module names train, and it
    imports where train.py cannot be imported at all."""
    pytest.importorskip("torch")
    pytest.importorskip("tensorboard")
    tree = ast.parse((ROOT / "agents" / "training_checks.py").read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "train" not in imported
    code = ("import sys\nsys.modules['train'] = None  # import train raises ImportError\n"
            "import agents.training_checks\nprint('train' in sys.modules and sys.modules['train'] is not None)\n")
    run = _python(code)
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr[-2000:]


def test_import_agents_does_not_import_the_module():
    """``import agents`` works in a core install without torch: the package's front door does not import it."""
    code = "import agents, sys\nprint('agents.training_checks' in sys.modules)\n"
    run = _python(code)
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr[-2000:]
