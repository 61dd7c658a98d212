"""The programs' --help: an option left out says what that means (no ``(default: None)``), no option gives its
default twice, and train.py's ``NO_COLOR`` leaves tyro's colours as they were once its parse is over."""
from __future__ import annotations

import importlib
import re

import pytest
from example_modules import load_example

# --------------------------------------------------------------------------- "(default: None)" in --help


def _benchmark(name, parse):
    return lambda: getattr(importlib.import_module(name), parse)(["--help"])


def _example(name):
    def show_help():
        try:
            module = load_example(name)
        except (ImportError, SystemExit):  # its library is not installed (the example says which and exits)
            pytest.skip(f"examples/{name}.py: its library is not installed")
        module.main(["--help"])
    return show_help


def _train_help():
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train
    train.parse_args(["--help"])


HELPS = {
    **{f"-m {m}": (lambda m=m: importlib.import_module(m).main(["--help"]))
       for m in ("agents.arena", "agents.curve", "agents.rollouts", "agents.search", "agents.play",
                 "mj_env.records", "mj_env.tables")},
    **{f"benchmarks/{b}.py": _benchmark(b, parse) for b, parse in (
        ("fast_paths", "main"), ("features_cost", "main"), ("profile_step", "main"), ("search", "parse_args"),
        ("throughput", "main"), ("win_checks", "_parse_args"))},
    **{f"examples/{e}.py": _example(e) for e in (
        "duplicate_baseline", "offline_dataset", "rollout_improvement", "rule_variants", "rllib_ppo",
        "sb3_maskable_ppo", "tianshou_pettingzoo", "torchrl_ppo")},
    "train.py": _train_help,
}


@pytest.mark.parametrize("program", list(HELPS))
def test_no_help_says_default_none(program, capsys, monkeypatch):
    """``python -m agents.search --help`` showed ``--clairvoyant ... (default: None)`` (argparse's
    ArgumentDefaultsHelpFormatter), and train.py's --target-kl and --init-from the same (tyro): an option left out
    says what that means (a fair search; every epoch; a new network, cloned first). Each --help in this process."""
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as e:
        HELPS[program]()
    out = capsys.readouterr().out
    assert e.value.code == 0 and "--help" in out
    text = " ".join(out.replace("\u2502", " ").split())  # (tyro draws boxes: a hint may wrap across rows)
    assert "(default: None)" not in text
    if program == "-m agents.search":
        assert "the undrawn wall shuffled (default: a fair search, on redeals)" in text
        assert "(default: 100)" in text  # the other options' defaults as they were
    if program == "train.py":
        assert "(none: never) (default: none: every epoch runs)" in text
        assert "if given must agree with it (default: none: a new network, cloned first as --bc-steps says)" in text


# --------------------------------------------------------------------------- an option's default said once


def _main(module: str, fn: str = "main"):
    return getattr(importlib.import_module(module), fn)


CLIS = [("agents.arena", "main"), ("agents.search", "main"), ("agents.rollouts", "main"),
        ("agents.curve", "main"), ("agents.play", "main"), ("mj_env.records", "main"), ("throughput", "parse_args"),
        ("profile_step", "main"), ("search", "parse_args"), ("win_checks", "_parse_args"), ("fast_paths", "main"),
        ("features_cost", "main")]


@pytest.mark.parametrize("module,fn", CLIS, ids=[m for m, _f in CLIS])
def test_no_option_gives_its_default_twice(module, fn, monkeypatch, capsys):
    """``python -m agents.rollouts --help`` said ``beijing (default)`` and ``(default: beijing)`` for --rules: the
    arena's help text beside argparse.ArgumentDefaultsHelpFormatter's own. Every option's help says it once."""
    monkeypatch.setenv("COLUMNS", "10000")  # one line per option
    with pytest.raises(SystemExit) as e:
        _main(module, fn)(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    options = [b for b in re.split(r"\n(?=  -)", out) if b.startswith("  -")]
    assert options
    twice = [b.split()[0] for b in options if len(re.findall(r"\bdefault\b", b)) > 1]
    assert twice == [], out


# --------------------------------------------------------------------------- NO_COLOR


def test_no_color_is_set_for_train_parse_args_only(monkeypatch, capsys):
    """``NO_COLOR`` turned tyro's colours off through its option dict for the rest of the process (a notebook or a
    test run after ``train.parse_args`` lost tyro's colours everywhere); it is restored once the call is over, also
    after ``--help``'s exit and an error's."""
    pytest.importorskip("torch")
    tyro = pytest.importorskip("tyro")
    import train

    options = getattr(tyro, "_experimental_options", None)
    if not isinstance(options, dict) or "ansi_codes" not in options:
        pytest.skip("this tyro has no ansi_codes option")
    monkeypatch.setitem(options, "ansi_codes", True)
    monkeypatch.setenv("NO_COLOR", "1")
    for argv in (["--help"], ["--num-envs", "zero"]):
        with pytest.raises(SystemExit):
            train.parse_args(argv)
        assert options["ansi_codes"] is True, argv
    capsys.readouterr()
