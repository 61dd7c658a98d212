"""The examples run as a user runs them from what README.md, docs/*.md and their own --help say: flags that
would otherwise be ignored or misread without a word, and messages that name the flag and value at fault."""
from __future__ import annotations

from pathlib import Path

import pytest
from example_modules import load_example
from test_examples_trainers import Reached, refused, rllib_stopped, tianshou  # noqa: F401  (the last two: fixtures)

ROOT = Path(__file__).resolve().parents[1]
PRETRAINED = ROOT / "agents" / "data"


def rollout_improvement_stopped_at_labelling(monkeypatch):
    pytest.importorskip("torch")
    module = load_example("rollout_improvement")

    def collect(*a, **kw):
        raise Reached

    monkeypatch.setattr(module, "collect", collect)
    return module


def test_rollout_improvement_says_when_the_checkpoint_was_trained_under_other_rules(monkeypatch, capsys):
    """--checkpoint of the quemen player with the default --rules beijing was labelled, trained and played under
    beijing without a word (train.py's --init-from prints a note for the same)."""
    module = rollout_improvement_stopped_at_labelling(monkeypatch)
    capsys.readouterr()
    with pytest.raises(Reached):
        module.main(["--checkpoint", str(PRETRAINED / "pretrained_quemen.pt")])
    out = capsys.readouterr().out
    assert "note: --checkpoint" in out and "was trained under quemen" in out and "under beijing (--rules)" in out
    with pytest.raises(Reached):  # its own rule set: no note
        module.main(["--checkpoint", str(PRETRAINED / "pretrained_quemen.pt"), "--rules", "quemen"])
    assert "note:" not in capsys.readouterr().out


def test_rllib_says_that_opponents_and_tables_need_single_agent(rllib_stopped, capsys):  # noqa: F811
    """--opponents random (or --tables) without --single-agent trained all four seats with the shared policy and
    said nothing of the flag; the defaults stay rule and 64 tables, and a bad --tables is still refused first."""
    module, made = rllib_stopped
    made["past_init"] = True
    capsys.readouterr()
    for argv, note in ((["--opponents", "random"], "note: --opponents applies only with --single-agent"),
                       (["--tables", "5", "--opponents", "rule"], "note: --opponents and --tables apply only"),
                       (["--single-agent", "--opponents", "random", "--tables", "5"], None), ([], None)):
        with pytest.raises(Reached):
            module.main(argv)
        out, err = capsys.readouterr()
        assert out == "" and (note in err if note else "note:" not in err), (argv, err)
    assert (made["args"].opponents, made["args"].tables) == ("rule", 64)  # the defaults of the last run
    assert "--tables must be between 1" in refused(module, ["--tables", "0"], capsys)


@pytest.mark.parametrize("argv, message", [
    (["--walls", "1", "--seeds", "7,-5"], "--seeds must lie in [0, 2**32), not -5"),
    (["--walls", "0", "--seeds", "7"], "--walls must lie in [1, 100000], not 0"),
    (["--live", "145", "--walls", "1"], "--live must lie in [0, 144], not 145"),
    (["--threat-melds", "0", "--walls", "1"], "--threat-melds must lie in [1, 4], not 0"),
    (["--late", "-1", "--walls", "1"], "--late must lie in [0, 144], not -1"),
])
def test_rule_variants_names_the_flag_and_the_value_out_of_range(argv, message, capsys):
    """--seeds -5 was refused as '--walls must lie in [1, 100000] and seeds in [0, 2**32)': it blamed --walls
    too, and named neither value (nor did --live, --threat-melds and --late)."""
    assert refused(load_example("rule_variants"), argv, capsys).endswith(message)


def test_tianshou_gives_no_spread_from_a_single_test_hand(tianshou, capsys):  # noqa: F811
    """--test-hands 1 printed 'greedy learner +2.000 ± 0.000 points/hand over 1 hands': a spread of 0 from one
    hand, which has none to measure (tests of two hands or more keep their ±)."""
    module, made = tianshou
    made["epochs"] = [([2.0], {"player_0/loss": 0.5}), ([3.0], {"player_0/loss": 0.5})]
    module.main(["--envs", "1", "--epochs", "2", "--epoch-steps", "40", "--hidden", "8", "--test-hands", "1"])
    out = capsys.readouterr().out.splitlines()
    assert "greedy learner +2.000 points/hand over 1 hands vs 3 random" in out[1], out[1]
    assert out[-1].startswith("greedy learner over the last 1 epochs' tests: +3.000 points/hand over 1 hands"), out
    assert "±" not in "".join(out)


def test_duplicate_baseline_without_torch_says_so_in_one_line():
    """Its default --agent pretrained is a network: without torch (an install without the train extra) it ended in
    a ModuleNotFoundError traceback, where the other examples say what to install in one line (an agent that needs
    no torch, --agent rule, still runs)."""
    import subprocess
    import sys

    def run(*argv):
        code = ("import runpy, sys; sys.modules['torch'] = None; "  # as on a machine without torch
                f"sys.argv = ['x', '--walls', '1', *{list(argv)!r}]; "
                f"runpy.run_path({str(ROOT / 'examples' / 'duplicate_baseline.py')!r}, run_name='__main__')")
        return subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120,
                              cwd=ROOT)

    done = run()
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.startswith("error: --agent 'pretrained': torch is needed for network agents")
    done = run("--agent", "rule")
    assert done.returncode == 0 and "rule in two seats against two rule agents" in done.stdout, done.stderr[-2000:]


@pytest.mark.parametrize("example, library, flag, says", [
    ("torchrl_ppo", "torchrl", "--frames", "rounded down to a multiple of --tables"),
    ("tianshou_pettingzoo", "tianshou", "--epoch-steps", "rounded up to whole collects of 10 x --envs"),
])
def test_help_says_how_a_size_is_rounded(example, library, flag, says, capsys):
    """--frames 100 at 64 tables collected 64 decisions an iteration, --frames 4097 4096; --epoch-steps 100 at 4
    tables took 120 steps an epoch: what each run prints, but --help said neither."""
    pytest.importorskip(library)
    module = load_example(example)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        module.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help at the terminal's width
    assert e.value.code == 0 and says in text[text.rindex(f"{flag} "):]  # its entry, after the usage line


def test_rllib_counts_env_steps_as_a_whole_number(rllib_stopped, capsys, monkeypatch):  # noqa: F811
    """RLlib's results hold the steps sampled as a float: each line read 'iter 1: 256.0 env steps'."""
    from types import SimpleNamespace

    module, made = rllib_stopped
    made["past_init"] = True
    seats = {"player_1": -1.5, "player_0": 3.0, "player_3": 0.0, "player_2": -1.5}
    results = iter([{"num_env_steps_sampled_lifetime": 256.0,
                     "env_runners": {"episode_return_mean": 0.0, "agent_episode_returns_mean": seats, "num_episodes": 2}},
                    {"num_env_steps_sampled_lifetime": 512.0}])
    algo = SimpleNamespace(train=lambda: next(results), stop=lambda: None)
    monkeypatch.setattr(module, "build_config", lambda args: SimpleNamespace(build_algo=lambda: algo))
    monkeypatch.setattr(module.ray, "shutdown", lambda: None)
    capsys.readouterr()
    assert module.main(["--iterations", "2"]) == 512
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("iter 1: 256 env steps, ")
    # the multi-agent run printed "episode return (all seats)", the sum over the seats: 0 in every hand (zero-sum)
    assert lines[0].endswith("2 hands, mean return by seat player_0 +3.00, player_1 -1.50, player_2 -1.50, player_3 +0.00")
    assert lines[1].startswith("iter 2: 512 env steps, ") and lines[1].endswith("no hand ended")


# --------------------------------------------------------------------------- a checkpoint's rule set compared as a rule set


def test_rollout_improvement_compares_a_checkpoints_rule_set_as_a_rule_set(tmp_path, monkeypatch, capsys):
    """examples/rollout_improvement.py --checkpoint compared the stored rules with --rules as raw values, as train.py
    did: a checkpoint whose meta holds {"name": "beijing", "chi": true} (beijing itself) got the note "was trained
    under beijing; this run labels, trains and plays it under beijing"."""
    torch = pytest.importorskip("torch")
    from agents.networks import PolicyValueNet, save_checkpoint

    module = rollout_improvement_stopped_at_labelling(monkeypatch)
    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules="beijing")
    payload = torch.load(path, weights_only=True)
    payload["meta"]["rules"] = {"name": "beijing", "chi": True}  # as 9ef4348..147a435 stored it
    torch.save(payload, path)
    capsys.readouterr()
    with pytest.raises(Reached):
        module.main(["--checkpoint", str(path)])
    assert "note:" not in capsys.readouterr().out
