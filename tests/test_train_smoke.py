"""train.py: a tiny run end to end, its command line, and the per-seat rollout chains and GAE."""
from __future__ import annotations

import csv
import json
import os
import shlex
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch

ROOT = Path(__file__).resolve().parents[1]

from test_train_interrupt import TINY

import train
from agents import curve, make_agent, training_checks
from agents.networks import ARCHS, load_checkpoint
from agents.rewards import REWARD_KINDS
from mj_env.observation import OBS_NAME
from mj_env.vector import MahjongVectorEnv


def test_tiny_run_writes_a_checkpoint_that_loads(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    result = train.main([
        "--exp-name", "tiny", "--total-steps", "1536", "--num-envs", "16", "--num-steps", "32",
        "--snapshot-every", "1", "--eval-every", "2", "--eval-hands", "4", "--final-eval-hands", "4",
        "--arch", "mlp", "--obs", "v1", "--bc-steps", "0", "--opponent-prob", "0.5", "--opponent-rule", "0",
        "--hidden", "32", "--threads", "1", "--no-progress", "--reward", "shaped", "--pool-size", "2",
    ])
    run = tmp_path / "runs" / "tiny"
    ckpt = run / "checkpoints" / "final.pt"
    assert ckpt.is_file() and Path(result["checkpoint"]).resolve() == ckpt.resolve()
    _, meta = load_checkpoint(ckpt)
    assert meta["obs_name"] == OBS_NAME and meta["rules"] == "beijing" and meta["args"]["reward"] == "shaped"
    assert len(list((run / "checkpoints").glob("update_*.pt"))) == 3
    # the checkpoint plays legal moves as an agent
    agent = make_agent(str(ckpt))
    env = MahjongVectorEnv(num_envs=8, seed=0)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = agent.act(obs, rng)
        assert obs["action_mask"][np.arange(8), a].all()
        obs, *_ = env.step(a)
    with open(run / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["update"]) for r in rows] == [1, 2, 3]
    assert rows[0]["vs_random_points"] != "" and rows[1]["vs_rule_points"] != ""
    assert int(rows[-1]["global_step"]) == 3 * 16 * 32
    final = json.loads((run / "final_eval.json").read_text())
    assert set(final["eval"]) == {"random", "rule", "pretrained"}
    assert final["eval"]["rule"]["agents"][0]["name"] == "trained"
    assert list(run.glob("events.out.tfevents.*"))
    out = capsys.readouterr().out
    assert out.startswith("tiny: beijing, reward shaped (points / 4 + shaping 0.25 a tile); then PPO: up to 3 updates of 512 decisions, stopping after the update "
                          "that passes 9.5 minutes; then 4 walls x 2 seatings against random, rule, pretrained\n")
    # the printed arena command repeats the final evaluation against the rule agent figure for figure
    command = shlex.split(out.split("repeat the evaluation against rule: ")[1].splitlines()[0])
    assert command[:3] == ["python", "-m", "agents.arena"]
    from agents import arena
    repeated = arena.main(command[3:] + ["--quiet"])
    assert repeated == 0
    again = capsys.readouterr().out
    got = final["eval"]["rule"]["agents"][0]["mean_points"]
    assert f"{got:+.3f}" in again


def test_repeat_command_quotes_what_a_shell_would_split():
    args = train.Args(exp_name="my run", rules="hebei", eval_greedy=True, device="cuda")
    line = train.repeat_command(args, Path("runs") / "my run" / "checkpoints" / "final.pt")
    assert shlex.split(line) == ["python", "-m", "agents.arena", "--agents", "runs/my run/checkpoints/final.pt:greedy,rule",
                                 "--hands", "400", "--seed", "12345", "--batch", "256", "--rules", "hebei",
                                 "--device", "cuda"]
    assert train.check_args(train.Args(exp_name="a,b")).startswith("--exp-name must be a plain directory name")


def test_command_line_over_the_dataclass():
    assert train.parse_args([]) == train.Args()
    args = train.parse_args(["--num-envs", "8", "--no-anneal-lr", "--target-kl", "0.02", "--reward", "sign"])
    assert args.num_envs == 8 and args.anneal_lr is False and args.target_kl == 0.02 and args.reward == "sign"
    assert train.parse_args(["--target-kl", "none"]).target_kl is None
    assert train.parse_args(["--max-minutes", "None"]).max_minutes is None
    assert train.parse_args(["--max-minutes", "3"]).max_minutes == 3.0
    # the choices on the command line are the ones the libraries know
    hints = typing.get_type_hints(train.Args)
    assert typing.get_args(hints["arch"]) == tuple(ARCHS)
    assert typing.get_args(hints["reward"]) == REWARD_KINDS


def test_help_shows_every_flag_with_its_docstring(capsys):
    with pytest.raises(SystemExit) as exit_:
        train.parse_args(["--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.replace("\u2502", " ").split())   # box edges and wrapping out
    for flag, doc in [("--total-steps", "PPO table steps over the whole run, all tables together"),
                      ("--exp-name", "name of the run: output goes to runs/<exp_name>/"),
                      ("--opponent-prob", "fraction of hands dealt against the opponent pool"),
                      ("--no-anneal-lr", "decay the learning rate linearly to zero"),
                      ("--arch {mlp,tiles}", "(default: tiles)"), ("--seed", "(default: 1)")]:
        assert flag in text and doc in text, flag


@pytest.mark.parametrize("argv, message", [
    (["--arch", "mlp", "--hidden", "abc"], "--hidden must be layer widths"),
    (["--arch", "mlp", "--hidden", "0"], "network: --hidden must hold ints in [1, 4096], not [0]"),
    (["--arch", "mlp", "--hidden=-4,8"], "must hold ints in [1, 4096]"),
    (["--arch", "tiles", "--blocks=-1"], "network: --blocks must hold ints in [0, 32], not -1"),
    (["--channels", "0"], "network: --channels must hold ints in [1, 512], not 0"),  # the flag, not the config key
    # the sizes of the architecture not chosen are checked too: a flag given is never silently ignored
    (["--arch", "mlp", "--channels", "0"], "network (the --arch tiles sizes): --channels must"),
    (["--arch", "mlp", "--blocks=-7"], "network (the --arch tiles sizes): --blocks must"),
    (["--arch", "tiles", "--hidden", "abc"], "--hidden must be layer widths"),
    (["--arch", "tiles", "--hidden", "0"], "network (the --arch mlp sizes): --hidden must"),
    (["--num-envs=-1"], "--num-envs must be in [1, 4,194,304], not -1"),
    (["--num-envs", "100000000"], "--num-envs must be in [1, 4,194,304]"),   # the engine's limit
    (["--total-steps=-1"], "--total-steps must be at least 0"),
    (["--bc-epochs", "0"], "--bc-epochs must be at least 1"),
    (["--snapshot-every", "0"], "--snapshot-every must be at least 1"),
    (["--threads", "0"], "--threads must be in [1, "),
    (["--opponent-prob", "1.5"], "--opponent-prob must be in [0, 1]"),
    (["--rules", "nope"], "unknown rules 'nope'"),
    (["--reward-scale", "0"], "--reward-scale must be greater than 0"),
    (["--reward-scale", "1e-50"], "--reward-scale must be a number from 1e-06 to 1e+06, got 1e-50"),  # 0 in float32
    (["--shaping-coef", "1e7"], "--shaping-coef must be a number from -1e+06 to 1e+06, got 1"),
    (["--reward", "bogus"], "bogus"),
    (["--learning-rate", "fast"], "fast"),
    # every float is finite
    (["--gamma", "nan"], "--gamma must be a finite number, not nan"),
    (["--bc-vf-coef", "nan"], "--bc-vf-coef must be a finite number"),
    (["--shaping-coef", "nan"], "--shaping-coef must be a finite number"),
    (["--learning-rate", "inf"], "--learning-rate must be a finite number"),
    (["--opponent-prob", "nan"], "--opponent-prob must be a finite number"),
    (["--target-kl", "nan"], "--target-kl must be a finite number"),
    (["--max-minutes=-inf"], "--max-minutes must be a finite number"),
    # and of a size torch's float32 scalars take (1e39 passed, then failed in torch.clamp)
    (["--clip-coef", "1e39"], "--clip-coef must be at most 1e+09 in size, not 1e+39"),
    (["--ent-coef", "2e9"], "--ent-coef must be at most 1e+09 in size"),
    # and in its range
    (["--gamma", "1.5"], "--gamma must be in [0, 1], not 1.5"),
    (["--gae-lambda=-0.1"], "--gae-lambda must be in [0, 1]"),
    (["--clip-coef", "0"], "--clip-coef must be greater than 0"),
    (["--ent-coef=-0.01"], "--ent-coef must be at least 0"),
    (["--vf-coef=-1"], "--vf-coef must be at least 0"),
    (["--bc-vf-coef=-1"], "--bc-vf-coef must be at least 0"),
    (["--max-grad-norm", "0"], "--max-grad-norm must be greater than 0"),
    (["--target-kl", "0"], "--target-kl must be greater than 0 (or none)"),
    (["--learning-rate=-1"], "--learning-rate must be greater than 0, not -1.0"),
    (["--bc-learning-rate", "0"], "--bc-learning-rate must be greater than 0"),
    (["--max-minutes", "0"], "--max-minutes must be greater than 0 (or none)"),
    # seeds, evaluation sizes and the device
    (["--seed=-1"], "--seed must be in [0, 4,294,967,295], not -1"),
    (["--seed", "99999999999999999999999"], "--seed must be in [0, 4,294,967,295]"),
    (["--eval-seed", str(2**32)], "--eval-seed must be in [0, 4,294,967,295]"),
    (["--final-eval-hands", "100000000"], "--final-eval-hands must be in [0, 100,000]"),
    (["--eval-hands", "100001"], "--eval-hands must be in [1, 100,000]"),
    (["--device", "meta"], "--device 'meta' cannot run networks: use cpu, cuda, cuda:N or mps"),
    (["--device", "bogus"], "--device 'bogus' is not a torch device: use cpu, cuda, cuda:N or mps"),
    (["--device", "cuda:-1"], "--device 'cuda:-1' is not a torch device"),
    # the run's directory stays under runs/
    (["--exp-name", ""], "--exp-name must be a plain directory name under runs/"),
    (["--exp-name", "../x"], "--exp-name must be a plain directory name"),
    (["--exp-name", ".."], "--exp-name must be a plain directory name"),
    (["--exp-name", "."], "--exp-name must be a plain directory name"),
    (["--exp-name", "/tmp/abs"], "--exp-name must be a plain directory name"),
    (["--exp-name", "a/b"], "--exp-name must be a plain directory name"),
    (["--exp-name", "a\\b"], "--exp-name must be a plain directory name"),
    (["--exp-name", "a\nb"], "--exp-name must be a plain directory name"),
    (["--exp-name", " "], "--exp-name must not begin or end with a space, not ' '"),  # was a run named ' '
    (["--exp-name", "run "], "--exp-name must not begin or end with a space"),
    (["--exp-name", "x" * 101], "--exp-name must be at most 100 bytes long, not 101"),
    # names Windows cannot hold (a:b is a stream of a file a there), refused on every system so runs/ copies anywhere
    (["--exp-name", "a:b"], "--exp-name must be a name Windows can hold too"),
    (["--exp-name", "what?"], "no <>:\"|?* characters"),
    (["--exp-name", "run."], "no '.' at the end"),
    (["--exp-name", "CON"], "not a device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9"),
    (["--exp-name", "nul.txt"], "not 'nul.txt'"),
    (["--exp-name", "Com9 .x"], "not a device name"),
    # a value outside its own range is named so, not only refused by a later check (sum of shares, float32 size)
    (["--opponent-pretrained", "1.5", "--opponent-rule", "0"], "--opponent-pretrained must be in [0, 1], not 1.5"),
    (["--ent-coef=-2e9"], "--ent-coef must be at most 1e+09 in size, not -2e+09"),
    # sizes that would exhaust the machine
    (["--threads", str((os.cpu_count() or 1) + 1)], f"--threads must be in [1, {os.cpu_count() or 1}]"),
    (["--threads", str(10**30)], "--threads must be in [1,"),
    (["--num-steps", str(10**9)], "--num-envs x --num-steps must be at most 4,194,304 decisions per update"),
])
def test_bad_values_are_usage_errors(argv, message, capsys, tmp_path, monkeypatch):
    """Refused before any work: status 2, the flag and what it allows, no traceback and no run directory."""
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    # a value let through fails here at once, not after a whole default run (an outside mutation test's timeout)
    monkeypatch.setattr(train, "seed_everything", lambda args: pytest.fail(f"{argv} started a run"))
    with pytest.raises(SystemExit) as exit_:
        train.main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in " ".join(err.replace("\u2502", " ").split())
    assert "Traceback" not in err and [p.name for p in tmp_path.rglob("*")] == ["cwd"]


def test_the_exp_name_limit_counts_bytes():
    """100 bytes of UTF-8, what the file system holds, not 100 characters (an outside mutation test: 34 x 运, 102
    bytes, passed as 34 characters)."""
    assert train.check_args(train.Args(exp_name="运" * 33)) is None
    assert train.check_args(train.Args(exp_name="运" * 34)) == "--exp-name must be at most 100 bytes long, not 102"


@pytest.mark.parametrize("argv", [
    ["--exp-name", "my_run-1.2"], ["--gamma", "0", "--gae-lambda", "1"], ["--seed", "0", "--eval-seed", str(2**32 - 1)],
    ["--num-envs", str(1 << 22), "--num-steps", "1"], ["--final-eval-hands", "100000", "--eval-hands", "100000"],
    ["--threads", str(os.cpu_count() or 1)], ["--exp-name", "x" * 100], ["--exp-name", "运行 1"], ["--exp-name", "console"], ["--exp-name", "COM10"],
    ["--target-kl", "none", "--max-minutes", "none"], ["--ent-coef", "0", "--vf-coef", "0", "--bc-vf-coef", "0"],
    ["--shaping-coef=-2", "--device", "cpu:0"],
    ["--opponent-rule", "0.25", "--opponent-pretrained", "0.75"],  # shares of the hands that add up to all of them
])
def test_values_at_the_edges_are_accepted(argv):
    train.parse_args(argv)


def test_choices_are_checked_for_args_built_in_python(capsys):
    """The command line refuses a value outside a field's choices (tyro); check_args does too, for an Args made in code."""
    assert train.check_args(train.Args(bc_teacher="random")) == "--bc-teacher must be one of rule, efficient, not 'random'"
    assert train.check_args(train.Args(obs="v3")) == "--obs must be one of v1, v2, not 'v3'"
    assert train.check_args(train.Args(bc_teacher="efficient")) is None
    with pytest.raises(SystemExit) as exit_:
        train.parse_args(["--bc-teacher", "random"])
    err = " ".join(capsys.readouterr().err.replace("\u2502", " ").split())   # box edges and wrapping out
    assert exit_.value.code == 2 and "invalid choice 'random' for argument '--bc-teacher'" in err


def test_unavailable_cuda_device_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    n = torch.cuda.device_count()
    for device in ([] if n else ["cuda", "cuda:0"]) + [f"cuda:{n}"]:
        with pytest.raises(SystemExit) as exit_:
            train.main(["--device", device, "--total-steps", "64", "--num-envs", "4", "--num-steps", "16",
                        "--no-progress"])
        err = capsys.readouterr().err
        why = "CUDA is not available on this machine" if not n else f"this machine has {n} CUDA device(s)"
        assert exit_.value.code == 2 and f"--device {device!r}: {why}" in err, device
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("argv, message", [
    (["--arch", "mlp", "--hidden", "64,x"], "--hidden must be layer widths"),
    (["--gamma", "nan"], "--gamma must be a finite number"),
    (["--exp-name", "../x"], "--exp-name must be a plain directory name"),
])
def test_bad_value_from_the_shell_has_no_traceback(argv, message, tmp_path):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and message in proc.stderr
    assert "Traceback" not in proc.stderr and [p.name for p in tmp_path.rglob("*")] == ["cwd"]


@pytest.mark.parametrize("argv, updates", [
    (["--bc-steps", "1", "--total-steps", "0"], 0),                      # no cloning decision's outcome known yet
    (["--bc-steps", "2", "--num-envs", "1", "--num-steps", "1", "--total-steps", "2"], 2),   # single decisions
])
def test_tiny_settings_with_nothing_to_train_on_complete(argv, updates, tmp_path, monkeypatch):
    """Rollouts whose decisions all still wait for their outcome train on nothing instead of crashing."""
    monkeypatch.chdir(tmp_path)
    result = train.main([*argv, "--final-eval-hands", "0", "--eval-every", "0", "--no-progress",
                         "--no-eval-pretrained", "--threads", "1", "--exp-name", "tiny"])
    assert result["updates"] == updates and "eval" not in result
    model, _ = load_checkpoint(result["checkpoint"])
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_rollout_chains_and_gae_per_seat():
    """Two seats at one table decide in turn; each seat's chain gets its own rewards and GAE."""
    store = train.Rollout(capacity=16, num_envs=1, obs_shape=(14, 34), n_actions=127)
    store.start()
    obs = np.zeros((1, 14, 34), np.uint8)
    mask = np.ones((1, 127), bool)
    t0 = np.array([0])

    def decide(seat, value, phi=0.0):
        store.add(t0, np.array([seat]), obs, mask, np.array([0]), np.array([0.0]),
                  np.array([value], np.float32), np.array([phi], np.float32), gamma=1.0)

    decide(0, 1.0, phi=-2.0)   # entry 0
    decide(1, 0.5)             # entry 1
    decide(0, 2.0, phi=-1.0)   # entry 2: seat 0's second decision, shaping -1 - (-2) = +1 to entry 0
    decide(1, 0.0)             # entry 3
    store.pay(np.array([[3.0, -3.0, 0, 0]], np.float32), np.array([True]), np.array([True]))
    assert store.next[:4].tolist() == [2, 3, -1, -1]
    assert store.done[:4].tolist() == [False, False, True, True]
    assert store.reward[:4].tolist() == [1.0, 0.0, 3.0 + 1.0, -3.0]   # terminal: points - Phi(last)
    adv, ret, trainable = store.advantages(gamma=1.0, lam=1.0)
    assert trainable[:4].all()
    # lambda = 1: advantage = sum of the chain's later rewards - value
    assert np.allclose(adv, [1 + 4 - 1.0, -3 - 0.5, 4 - 2.0, -3 - 0.0])
    assert np.allclose(ret, adv + store.value[:4])


@pytest.mark.parametrize("gamma, lam", [(0.9, 0.8), (0.99, 0.95), (1.0, 0.5)])
def test_rollout_gae_and_shaping_against_a_plain_reference(gamma, lam):
    """Random play at 6 tables (one seat decides per table and step, hands end at random): the rewards with
    the shaping gamma * Phi(next) - Phi(now) (terminal Phi 0) and GAE, A = delta + gamma * lam * A(next) with
    delta = r + gamma * V(next) - V, each seat's chain on its own, computed here decision by decision; a chain's
    last decision still waiting is not trained and its value bootstraps the one before (from an outside
    mutation test: tests with gamma = lambda = 1 could not see either factor dropped)."""
    rng = np.random.default_rng(7)
    n_tables, steps = 6, 60
    store = train.Rollout(capacity=n_tables * steps, num_envs=n_tables, obs_shape=(14, 34), n_actions=127)
    store.start()
    chains = {}            # (table, seat, hand) -> [(entry, value, phi)], and the hand's points when it ended
    ended_with = {}
    hand = np.zeros(n_tables, dtype=np.int64)
    for _ in range(steps):
        seats = rng.integers(0, 4, n_tables)
        values, phis = rng.normal(size=n_tables).astype(np.float32), rng.normal(size=n_tables).astype(np.float32)
        first = store.size
        store.add(np.arange(n_tables), seats, np.zeros((n_tables, 14, 34), np.uint8), np.ones((n_tables, 127), bool),
                  np.zeros(n_tables, np.int64), np.zeros(n_tables, np.float32), values, phis, gamma=gamma)
        for t in range(n_tables):
            chains.setdefault((t, int(seats[t]), int(hand[t])), []).append((first + t, values[t], phis[t]))
        over = rng.random(n_tables) < 0.15
        points = rng.normal(size=(n_tables, 4)).astype(np.float32)
        store.pay(points, over, over)
        for t in np.flatnonzero(over):
            for seat in range(4):
                ended_with[(t, seat, int(hand[t]))] = float(points[t, seat])
            hand[t] += 1
    adv, ret, trainable = store.advantages(gamma, lam)
    want_adv, want_trainable = np.zeros(store.size), np.zeros(store.size, dtype=bool)
    for key, chain in chains.items():
        done = key in ended_with
        following = 0.0                               # A of the next decision (0 past the end or if waiting)
        for i in reversed(range(len(chain))):
            entry, value, phi = chain[i]
            if i == len(chain) - 1:
                if not done:
                    continue                           # waiting: not trained; bootstraps the one before
                reward, next_value = ended_with[key] - phi, 0.0
            else:
                reward, next_value = gamma * chain[i + 1][2] - phi, chain[i + 1][1]
            assert store.reward[entry] == pytest.approx(reward, abs=1e-5)
            following = reward + gamma * next_value - value + gamma * lam * following
            want_adv[entry], want_trainable[entry] = following, True
    assert np.array_equal(trainable, want_trainable) and 0 < want_trainable.sum() < store.size
    if gamma == 1.0:  # a finished chain's rewards telescope to points - Phi(first): policy invariance
        for key, chain in chains.items():
            if key in ended_with:
                got = sum(float(store.reward[entry]) for entry, _, _ in chain)
                assert got == pytest.approx(ended_with[key] - chain[0][2], abs=1e-4)
    assert np.allclose(adv, want_adv, atol=1e-4) and np.allclose(ret, adv + store.value[:store.size])


def test_rollout_carries_pending_decisions_over():
    store = train.Rollout(capacity=8, num_envs=2, obs_shape=(14, 34), n_actions=127)
    store.start()
    obs = np.zeros((2, 14, 34), np.uint8)
    obs[1, 0, 5] = 3
    store.add(np.array([0, 1]), np.array([2, 3]), obs, np.ones((2, 127), bool), np.array([4, 5]),
              np.array([-1.0, -2.0]), np.array([0.25, 0.75], np.float32), np.zeros(2, np.float32), 1.0)
    adv, _, trainable = store.advantages(1.0, 0.95)
    assert not trainable.any()                     # outcome unknown: not trained in this rollout
    store.start()                                  # next rollout: both move to the front
    assert store.size == 2 and store.pending[0, 2] == 0 and store.pending[1, 3] == 1
    assert store.action[:2].tolist() == [4, 5] and store.obs[1, 0, 5] == 3
    both = np.array([True, True])
    store.pay(np.array([[0, 0, 2.0, 0], [0, 0, 0, -1.0]], np.float32), both, both)
    adv, _, trainable = store.advantages(1.0, 0.95)
    assert trainable[:2].all() and np.allclose(adv[:2], [2.0 - 0.25, -1.0 - 0.75])


def test_tiny_run_with_v2_imitation_and_rule_opponents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = train.main([
        "--exp-name", "tiny_v2", "--total-steps", "1024", "--num-envs", "16", "--num-steps", "32", "--obs", "v2",
        "--bc-steps", "40", "--opponent-prob", "1", "--opponent-rule", "0.5", "--eval-every", "0",
        "--final-eval-hands", "4", "--arch", "mlp", "--hidden", "32", "--threads", "1", "--no-progress",
    ])
    _, meta = load_checkpoint(result["checkpoint"])
    assert meta["obs_name"] == "mj_obs_v2" and meta["model_config"]["obs"] == "mj_obs_v2"
    assert result["observation"] == "mj_obs_v2" and set(result["eval"]) == {"random", "rule", "pretrained"}
    with open(tmp_path / "runs" / "tiny_v2" / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert sum(float(r["pool_hands"]) if "pool_hands" in r else 0 for r in rows) >= 0
    assert all(r["pool_win_rate"] != "" for r in rows)


def test_rule_opponents_are_seated_in_their_share_of_the_pool_hands():
    args = train.parse_args(["--num-envs", "2000", "--opponent-prob", "0.5", "--opponent-rule", "0.5"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(torch.nn.Linear(1, 1), "s")
    seats.deal(np.arange(2000))
    share = np.bincount(seats.opp + 2, minlength=3) / 2000      # rule (-2), self-play (-1), snapshot 0
    assert abs(share[0] - 0.25) < 0.04 and abs(share[1] - 0.5) < 0.04 and abs(share[2] - 0.25) < 0.04
    assert (seats.learner[seats.opp == train.SeatPlan.RULE].sum(axis=1) == 2).all()
    seats.add_snapshot(torch.nn.Linear(1, 1), "t")                   # pool turnover never drops the rule agent
    assert train.SeatPlan.RULE in seats.snapshots


def test_cloning_only_run(tmp_path, monkeypatch):
    """--total-steps 0: behaviour cloning, then the checkpoint and the final evaluation, no PPO update."""
    monkeypatch.chdir(tmp_path)
    result = train.main([
        "--exp-name", "bc_only", "--total-steps", "0", "--num-envs", "16", "--num-steps", "16", "--obs", "v2",
        "--bc-steps", "32", "--bc-epochs", "2", "--final-eval-hands", "2", "--arch", "mlp", "--hidden", "32", "--threads", "1",
        "--no-eval-pretrained",
        "--no-progress",
    ])
    assert result["updates"] == 0 and result["global_step"] == 0 and set(result["eval"]) == {"random", "rule"}
    _, meta = load_checkpoint(result["checkpoint"])
    assert meta["obs_name"] == "mj_obs_v2"


def test_an_existing_run_is_refused_unless_overwrite(tmp_path, monkeypatch, capsys):
    """A second run under the same --exp-name must not mix its files into the first or truncate its logs."""
    monkeypatch.chdir(tmp_path)
    old = tmp_path / "runs" / "same"
    (old / "checkpoints").mkdir(parents=True)
    (old / "progress.csv").write_text("update\n1\n")
    (old / "checkpoints" / "update_00007.pt").write_bytes(b"old")
    tiny = ["--exp-name", "same", "--total-steps", "0", "--bc-steps", "0", "--final-eval-hands", "0",
            "--num-envs", "4", "--num-steps", "4", "--no-progress", "--no-eval-pretrained"]
    with pytest.raises(SystemExit) as exit_:
        train.main(tiny)
    assert exit_.value.code == 2 and "runs/same/ exists" in capsys.readouterr().err
    assert (old / "progress.csv").read_text() == "update\n1\n"
    train.main([*tiny, "--overwrite"])
    assert not (old / "checkpoints" / "update_00007.pt").exists() and (old / "checkpoints" / "final.pt").is_file()
    # a link is never followed nor deleted; runs/ that is a file is named
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "runs" / "link").symlink_to(tmp_path / "elsewhere")
    assert "symbolic link" in train.run_dir_problem(train.Args(exp_name="link", overwrite=True))
    assert train.check_args(train.Args(exp_name="same")) is None  # the file system is main()'s to check
    monkeypatch.chdir(tmp_path / "elsewhere")
    Path("runs").write_text("")
    assert train.run_dir_problem(train.Args()) == "runs is not a directory: the run would be written to runs/selfplay_ppo/"


def test_overwrite_does_not_delete_the_init_from_checkpoint(tmp_path, monkeypatch, capsys):
    """--exp-name X --overwrite --init-from runs/X/checkpoints/final.pt loaded the checkpoint, then deleted
    runs/X/ with it in it: the run went on and the starting weights were gone."""
    monkeypatch.chdir(tmp_path)
    ckpt = Path("runs", "same", "checkpoints", "final.pt")
    ckpt.parent.mkdir(parents=True)
    src = Path(__file__).resolve().parents[1] / "agents" / "data" / "pretrained_beijing.pt"
    ckpt.write_bytes(src.read_bytes())
    tiny = ["--exp-name", "same", "--overwrite", "--total-steps", "0", "--final-eval-hands", "0",
            "--num-envs", "4", "--num-steps", "4", "--no-progress", "--no-eval-pretrained"]
    for start in (str(ckpt), str(tmp_path / ckpt)):
        with pytest.raises(SystemExit) as exit_:
            train.main([*tiny, "--init-from", start])
        assert exit_.value.code == 2
        assert "--overwrite would delete runs/same/, which holds the --init-from checkpoint" in capsys.readouterr().err
        assert ckpt.read_bytes() == src.read_bytes()
    copy = tmp_path / "start.pt"
    copy.write_bytes(src.read_bytes())
    assert train.run_dir_problem(train.Args(exp_name="same", overwrite=True, init_from=str(copy))) is None
    assert train.run_dir_problem(train.Args(exp_name="same", overwrite=True, init_from="pretrained")) is None


def test_an_evaluation_whose_logits_overflow_stops_with_a_message(overflowing_checkpoint, tmp_path):
    """--init-from a network whose finite weights make nan logits, evaluated only (--total-steps 0): its
    evaluation played each row's first legal action and reported figures; now one line, exit 1."""
    ckpt = overflowing_checkpoint
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--init-from", str(ckpt), "--total-steps", "0",
                           "--final-eval-hands", "2", "--no-eval-pretrained", "--no-progress", "--exp-name", "huge"],
                          check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "train.py: error: training diverged: agent 'trained' raised NonFiniteLogits" in proc.stderr
    assert "with --init-from, check that checkpoint" in proc.stderr


def test_a_diverging_run_stops_with_a_message():
    """A nan loss or weight ends training with TrainingDiverged; nan logits are named by the network."""
    from agents.networks import MaskedCategorical, NonFiniteLogits

    args = train.Args()
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    with pytest.raises(train.TrainingDiverged, match="the loss of the PPO update is nan; lower --learning-rate"):
        train.optimizer_step(model, opt, torch.tensor(float("nan"), requires_grad=True), args, "the PPO update")

    class Overflowing(torch.optim.SGD):
        """A step that overflows, as a far too large learning rate does."""

        def step(self, closure=None):
            with torch.no_grad():
                model.bias.fill_(float("inf"))

    with pytest.raises(train.TrainingDiverged, match="a weight became nan or infinite in behaviour cloning; "
                                                     "lower --bc-learning-rate"):
        train.optimizer_step(model, Overflowing(model.parameters(), lr=1.0), model(torch.ones(1, 2)).sum(), args,
                             "behaviour cloning")
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(NonFiniteLogits, match="1 of 2 rows"):
            MaskedCategorical(torch.tensor([[0.0, 1.0], [bad, 0.0]]), torch.ones(2, 2, dtype=torch.bool))


def test_a_diverging_run_from_the_shell_ends_without_a_traceback(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--learning-rate", "1e8", "--total-steps", "1024",
                           "--num-envs", "16", "--num-steps", "32", "--bc-steps", "8", "--final-eval-hands", "0",
                           "--eval-every", "0", "--no-progress", "--no-eval-pretrained"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 1 and "train.py: error: training diverged" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_init_from_starts_from_the_checkpoints_weights_and_network(tmp_path, monkeypatch, capsys):
    """--init-from: the run's network is the checkpoint's (its flags recorded as the run's), cloning is skipped,
    and with nothing to train the final weights are the checkpoint's exactly."""
    from agents.networks import build_network, save_checkpoint

    monkeypatch.chdir(tmp_path)
    torch.manual_seed(3)
    start = save_checkpoint(tmp_path / "start.pt", build_network({"arch": "mlp", "hidden": [32, 16]}), rules="beijing")
    result = train.main(["--init-from", str(start), "--total-steps", "0", "--final-eval-hands", "0", "--eval-every",
                         "0", "--no-progress", "--no-eval-pretrained", "--threads", "1", "--exp-name", "init"])
    out = capsys.readouterr().out
    assert "init: beijing; start from " in out and "note:" not in out   # trained under the run's rules: no note
    before, _ = load_checkpoint(start)
    after, meta = load_checkpoint(result["checkpoint"])
    assert after.config == before.config
    assert all(torch.equal(a, b) for a, b in zip(before.state_dict().values(), after.state_dict().values(), strict=True))
    assert meta["args"]["init_from"] == str(start) and meta["args"]["bc_steps"] == 0
    assert (meta["args"]["arch"], meta["args"]["hidden"], meta["args"]["obs"]) == ("mlp", "32,16", "v1")
    # and training from it moves the weights
    result = train.main(["--init-from", str(start), "--total-steps", "256", "--num-envs", "8", "--num-steps", "32",
                         "--final-eval-hands", "0", "--eval-every", "0", "--no-progress", "--no-eval-pretrained",
                         "--threads", "1", "--exp-name", "init2"])
    moved, _ = load_checkpoint(result["checkpoint"])
    assert result["updates"] == 1 and not all(
        torch.equal(a, b) for a, b in zip(before.state_dict().values(), moved.state_dict().values(), strict=True))


@pytest.mark.parametrize("extra, message", [
    (["--init-from", "nothere.pt"], "--init-from: nothere.pt: no such file"),
    (["--init-from", ""], "--init-from: '': no file named (an empty path)"),
    (["--init-from", "pretrained", "--channels", "8"],
     "--channels 8: the network of --init-from pretrained has channels 32; leave --channels out, or give 32"),
    (["--init-from", "pretrained", "--arch", "mlp"], "--arch mlp: the network of --init-from pretrained has arch tiles"),
    (["--init-from", "pretrained", "--obs", "v1"], "--obs v1: the network of --init-from pretrained has obs v2"),
    (["--init-from", "pretrained", "--bc-steps", "10"], "--bc-steps: --init-from starts from the checkpoint's weights"),
])
def test_init_from_is_checked_before_the_run(extra, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        train.main(["--exp-name", "bad", *extra])
    assert e.value.code == 2 and message in capsys.readouterr().err and not (tmp_path / "runs").exists()


def test_args_built_in_python_are_bounded_as_the_command_line_is():
    # an int in a float field (Args(clip_coef=10**39)) passed the check, then overflowed in torch.clamp
    assert train.check_args(train.Args(clip_coef=10**39)) == "--clip-coef must be at most 1e+09 in size, not 1e+39"
    assert train.check_args(train.Args(reward_scale=3)) is None


class _Raises:
    name = "raises"

    def act(self, obs, rng):
        raise RuntimeError("the opponent failed")


def test_evaluate_restores_threads_and_training_mode_when_an_opponent_raises():
    """evaluate plays on one thread in eval mode; an opponent's error leaves both as they were before it."""
    args = train.parse_args(["--arch", "mlp", "--hidden", "16", "--no-eval-pretrained"])
    model = train.build_network(train.network_config(args))
    model.train()
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pytest.raises(RuntimeError, match="the opponent failed"):
            train.evaluate(model, args, 2, "cpu", [_Raises()])
        assert torch.get_num_threads() == 2 and model.training
    finally:
        torch.set_num_threads(threads)


def test_a_one_wall_evaluation_is_logged_without_an_interval_that_the_curve_reads(tmp_path):
    """--eval-hands 1: one wall has no interval (arena_report.summarize's [-inf, inf]); progress.csv leaves its cells
    empty, where '-inf,inf' made agents.curve refuse the whole file, and the curve keeps the evaluation's mean."""
    from agents import curve
    from mj_env.baselines import RandomAgent

    args = train.parse_args(["--arch", "mlp", "--hidden", "16", "--no-eval-pretrained", "--eval-hands", "1"])
    model = train.build_network(train.network_config(args))
    evaluation = train.evaluate(model, args, args.eval_hands, "cpu", [RandomAgent()])
    mean = evaluation["random"]["agents"][0]["mean_points"]
    assert evaluation["random"]["agents"][0]["ci95"] == [-np.inf, np.inf]
    losses = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
              "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}
    stats = {"hands": 4, "drawn": 1, "self_hands": 4, "self_wins": 1, "self_fan": 2.0, "pool_points": 0.0,
             "pool_hands": 0, "pool_wins": 0, "pool_deal_ins": 0}
    rows = [train.progress_row(u, 100 * u, 60.0 * u, 3e-4, losses, stats, 1, 1.0, e)
            for u, e in ((1, evaluation), (2, {}))]
    assert (rows[0]["vs_random_ci_low"], rows[0]["vs_random_ci_high"]) == ("", "")
    assert rows[0]["vs_random_points"] == mean and rows[0]["vs_rule_points"] == ""
    with (tmp_path / "progress.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (point,) = curve.read_curves(tmp_path / "progress.csv")["random"]
    assert point[:2] == (1.0, pytest.approx(mean)) and np.isnan(point[2:]).all()



def test_the_snapshot_pool_turns_over_and_deals_all_its_snapshots():
    """--pool-size 2: snapshots get new ids, the oldest leaves the pool (and memory once no table plays it), and
    the pool's hands are dealt among all its snapshots."""
    args = train.parse_args(["--num-envs", "1000", "--opponent-prob", "1", "--opponent-rule", "0", "--pool-size", "2"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    for tag in "ab":
        seats.add_snapshot(torch.nn.Linear(1, 1), tag)
    assert seats.pool_ids == [0, 1]
    seats.deal(np.arange(1000))
    assert np.allclose(np.bincount(seats.opp, minlength=2) / 1000, [0.5, 0.5], atol=0.05)
    seats.add_snapshot(torch.nn.Linear(1, 1), "c")
    assert seats.pool_ids == [1, 2] and 0 in seats.snapshots      # 0 left the pool but tables still play it
    seats.deal(np.arange(1000))
    seats.add_snapshot(torch.nn.Linear(1, 1), "d")
    assert seats.pool_ids == [2, 3] and set(seats.snapshots) == {train.SeatPlan.RULE, 1, 2, 3}
    assert seats.snapshots[3].name == "d"

def _scalars(run: Path) -> dict:
    """The TensorBoard scalars of a run: tag -> [(step, value)]."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run), size_guidance={"scalars": 0})
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_a_tiny_run_logs_each_figure_under_its_name_and_step(tmp_path, monkeypatch):
    """Cloning, then 3 updates of 128 decisions against a pool of one snapshot: the TensorBoard tags and steps,
    progress.csv's evaluation cells and pool size, the checkpoints and the final evaluation's walls."""
    monkeypatch.chdir(tmp_path)
    result = train.main([
        "--exp-name", "logs", "--total-steps", "384", "--num-envs", "8", "--num-steps", "16", "--bc-steps", "20",
        "--snapshot-every", "2", "--eval-every", "2", "--eval-hands", "2", "--final-eval-hands", "3",
        "--pool-size", "1", "--opponent-prob", "1", "--opponent-rule", "0", "--no-anneal-lr", "--max-minutes", "none",
        "--arch", "mlp", "--obs", "v1", "--hidden", "16", "--threads", "1", "--no-progress", "--no-eval-pretrained",
    ])
    run = tmp_path / "runs" / "logs"
    scalars = _scalars(run)
    # cloning: 16 steps of 8 tables, then the last 4 (never past --bc-steps)
    assert [s for s, _ in scalars["bc/agreement"]] == [128, 160]
    # PPO starts at --learning-rate, not the cloning's rate; every chart at the update's global step
    assert scalars["charts/learning_rate"] == [(128, pytest.approx(3e-4)), (256, pytest.approx(3e-4)),
                                               (384, pytest.approx(3e-4))]
    assert [s for s, _ in scalars["charts/SPS"]] == [128, 256, 384]
    # (update 3 ended no hand of the learner's: its win rate is unknown, an empty progress.csv cell and no point)
    assert [s for s, _ in scalars["charts/win_rate"]] == [128, 256]
    # quick evaluations after updates 1 and 2 (the first, then every --eval-every), under their names
    for base in ("random", "rule"):
        assert [s for s, _ in scalars[f"eval/vs_{base}_points"]] == [128, 256]
        assert [s for s, _ in scalars[f"eval/vs_{base}_win_rate"]] == [128, 256]
        assert [s for s, _ in scalars[f"eval/final_vs_{base}_mean_points"]] == [384]
    with open(run / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["pool_size"] for r in rows] == ["1", "1", "1"]           # --pool-size 1: the rule agent not counted
    assert [r["win_rate"] != "" for r in rows] == [True, True, False]
    assert [r["vs_rule_points"] != "" for r in rows] == [True, True, False]  # update 3 not evaluated: empty cells
    # update 2's cells are the evaluation of update 2's checkpoint, column for column
    model, _ = load_checkpoint(run / "checkpoints" / "update_00002.pt")
    args = train.parse_args(["--eval-hands", "2"])
    again = train.evaluate(model, args, 2, "cpu", [make_agent("rule")])["rule"]["agents"][0]
    assert float(rows[1]["vs_rule_points"]) == pytest.approx(again["mean_points"])
    assert float(rows[1]["vs_rule_win_rate"]) == pytest.approx(again["win_rate"])
    assert scalars["eval/vs_rule_win_rate"][1][1] == pytest.approx(again["win_rate"])
    # a snapshot (and its checkpoint) every --snapshot-every updates and after the last
    assert sorted(p.name for p in (run / "checkpoints").glob("update_*.pt")) == ["update_00002.pt",
                                                                                 "update_00003.pt"]
    final = json.loads((run / "final_eval.json").read_text())
    assert result["updates"] == 3 and {e["hands_played"] for e in final["eval"].values()} == {6}  # 3 walls x 2


def test_progress_row_rates_have_their_own_denominators():
    """win_rate per learner seat-hand (2 per hand against the pool, 4 in self-play), avg_fan per win, the pool's
    figures per learner seat-hand against it; an evaluation's figures are the trained player's (the first)."""
    losses = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
              "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}
    stats = {"hands": 3, "drawn": 1, "self_hands": 10, "self_wins": 2, "self_fan": 6.0, "pool_points": -3.0,
             "pool_hands": 6, "pool_wins": 1, "pool_deal_ins": 2}
    evaluation = {"rule": {"agents": [{"mean_points": 1.5, "ci95": [0.5, 2.5], "win_rate": 0.3, "deal_in_rate": 0.1},
                                      {"mean_points": -1.5, "ci95": [-2.5, -0.5], "win_rate": 0.2, "deal_in_rate": 0.2}]}}
    evaluated = train.progress_row(2, 200, 10.0, 3e-4, losses, stats, 4, 1.0, evaluation)
    assert [evaluated[f"vs_rule_{k}"] for k in ("points", "ci_low", "ci_high", "win_rate")] == [1.5, 0.5, 2.5, 0.3]
    assert evaluated["vs_random_points"] == evaluated["vs_random_win_rate"] == ""
    row = train.progress_row(2, 200, 10.0, 3e-4, losses, stats, 4, 1.0, {})
    assert (row["draw_rate"], row["win_rate"], row["avg_fan"]) == (pytest.approx(1 / 3), 0.2, 3.0)
    assert (row["pool_points"], row["pool_win_rate"], row["pool_deal_in_rate"]) == (-0.5, pytest.approx(1 / 6),
                                                                                    pytest.approx(1 / 3))
    assert (row["pool_size"], row["SPS"], row["samples"], row["vs_rule_points"]) == (4, 20, 8, "")


def test_a_run_repeats_exactly_from_its_seed(tmp_path, monkeypatch):
    """Two runs with the same --seed (and no time limit) end with the same weights, whatever the state of the
    random generators before them; fewer --total-steps than one update still make one update."""
    monkeypatch.chdir(tmp_path)
    tiny = ["--num-envs", "8", "--num-steps", "16", "--bc-steps", "16", "--opponent-prob", "0.5", "--opponent-rule",
            "0.5", "--max-minutes", "none", "--eval-every", "0", "--final-eval-hands", "0", "--arch", "mlp",
            "--obs", "v1", "--hidden", "16", "--threads", "1", "--no-progress", "--no-eval-pretrained"]
    results = []
    for name, steps in (("a", "128"), ("b", "100")):
        torch.manual_seed(len(results))                    # the global generators differ before each run
        np.random.seed(len(results))
        results.append(train.main([*tiny, "--exp-name", name, "--total-steps", steps]))
    (a, _), (b, _) = (load_checkpoint(r["checkpoint"]) for r in results)
    assert [r["updates"] for r in results] == [1, 1]
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def run_on_a_20_second_clock(monkeypatch, max_minutes: str) -> dict:
    """A tiny run of 3 updates with ``--max-minutes max_minutes`` on a clock that moves 20 s at every reading
    (update 1 ends at 60 s, update 2 at 120 s), in the current folder; its result."""
    from types import SimpleNamespace

    now = [0.0]

    def clock():
        now[0] += 20.0
        return now[0]

    monkeypatch.setattr(train, "time", SimpleNamespace(monotonic=clock))
    return train.main(["--exp-name", "timed", "--total-steps", "384", "--num-envs", "8", "--num-steps", "16",
                       "--bc-steps", "0", "--max-minutes", max_minutes, "--eval-every", "0", "--final-eval-hands",
                       "0", "--arch", "mlp", "--obs", "v1", "--hidden", "16", "--threads", "1", "--no-progress",
                       "--no-eval-pretrained"])


def test_max_minutes_stops_after_the_update_that_passes_them(tmp_path, monkeypatch, capsys):
    """--max-minutes 1.5 on a clock that moves 20 s at every reading: update 1 ends at 60 s and goes on, update 2
    ends at 120 s and is the last of the 3."""
    monkeypatch.chdir(tmp_path)
    result = run_on_a_20_second_clock(monkeypatch, "1.5")
    assert result["updates"] == 2 and result["global_step"] == 256
    assert "stopping after 2.0 minutes (--max-minutes)" in capsys.readouterr().out


def test_a_run_name_taken_by_a_file_is_refused(tmp_path, monkeypatch):
    """runs/<exp_name> that is a file: refused as an earlier run without --overwrite, and named with it (the
    run's directory could not be made)."""
    monkeypatch.chdir(tmp_path)
    Path("runs").mkdir()
    Path("runs", "f").write_text("")
    assert "--exp-name: runs/f/ exists (an earlier run)" in train.run_dir_problem(train.Args(exp_name="f"))
    assert train.run_dir_problem(train.Args(exp_name="f", overwrite=True)) == \
        "--exp-name: runs/f exists and is not a directory"


def test_plan_text_names_the_cloning():
    args = train.parse_args(["--bc-steps", "8", "--num-envs", "16", "--num-steps", "32", "--bc-teacher", "efficient",
                             "--total-steps", "0", "--final-eval-hands", "0"])
    assert train.plan_text(args, 0, []) == "selfplay_ppo: beijing; imitate the efficient agent (8 steps at 16 tables)"


# --------------------------------------------------------------------------- the plan line's budget


@pytest.mark.parametrize("minutes", [1.0000001, 0.9999999])
def test_a_budget_printed_as_1_is_one_minute(minutes):
    """``--max-minutes 1.0000001`` printed "passes 1 minutes" (the number is written with :g, six digits)."""
    args = train.Args(total_steps=512, num_envs=16, num_steps=32, bc_steps=0, final_eval_hands=0,
                      max_minutes=minutes)
    assert train.plan_text(args, 1, []).endswith("stopping after the update that passes 1 minute")


# --------------------------------------------------------------------------- --exp-name: Windows device names


@pytest.mark.parametrize("name", ["COM\u00b9", "lpt\u00b3.log", "CONIN$", "conout$.txt", "Com\u00b2 .x"])
def test_windows_device_names_with_superscript_digits_or_console_buffers_are_refused(name):
    """Windows reads COM\u00b9-\u00b3 and LPT\u00b9-\u00b3 as devices (its superscript digits count as digits there), and
    CONIN$ and CONOUT$ are the console's buffers; --exp-name took them, and such a run directory cannot be
    copied to Windows, which the check was made for."""
    assert training_checks.windows_device(name)
    assert "not a device name" in train.check_args(train.Args(exp_name=name))


@pytest.mark.parametrize("name", ["COM0", "COM\u2074", "AUX_1", "CONIN", "console", "LPT10"])
def test_names_next_to_the_device_names_are_accepted(name):
    assert not training_checks.windows_device(name) and train.check_args(train.Args(exp_name=name)) is None


# --------------------------------------------------------------------------- progress.csv: a rate over no hands


LOSSES = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
          "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}


RATES = ("draw_rate", "win_rate", "avg_fan", "pool_points", "pool_win_rate", "pool_deal_in_rate")


def test_a_rate_over_no_hands_is_an_empty_cell_not_0():
    """No hand ended, no learner win, no hand against the pool: the rates over them were written as 0 (a run
    without pool hands seemed to lose none and win none); unknown, they are empty, as unevaluated cells are."""
    none = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0, "pool_points": 0.0,
            "pool_hands": 0, "pool_wins": 0, "pool_deal_ins": 0}
    row = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, none, 1, 1.0, {})
    assert [row[k] for k in RATES] == [""] * 6 and row["hands"] == 0
    some = {**none, "hands": 2, "drawn": 0, "self_hands": 8, "self_wins": 0}  # hands, none won, none vs the pool
    row = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, some, 1, 1.0, {})
    assert [row[k] for k in RATES] == [0.0, 0.0, "", "", "", ""]
    full = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, {**some, "pool_hands": 4, "pool_points": -2.0}, 1, 1.0, {})
    assert list(full) == list(row) and (full["pool_points"], full["pool_win_rate"]) == (-0.5, 0.0)


def test_a_run_without_pool_hands_leaves_their_cells_empty_and_every_reader_copes(tmp_path, monkeypatch):
    """--opponent-prob 0 (self-play only): the pool_* cells are empty in every row (they were 0), the columns
    are those of any run, TensorBoard gets no charts/pool_* point, the progress bar shows '-' and the curve reads it."""
    monkeypatch.chdir(tmp_path)
    small = [a for a in TINY if a != "--no-progress"]  # the bar's figures too (written to stderr)
    train.main(["--exp-name", "self", "--total-steps", "4096", "--opponent-prob", "0", "--final-eval-hands", "0",
                *small, "--num-steps", "128", "--eval-every", "1", "--eval-hands", "1"])  # (after TINY's)
    run = tmp_path / "runs" / "self"
    with open(run / "progress.csv", newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = reader.fieldnames, list(reader)
    assert len(rows) == 2 and all(r[k] == "" for r in rows for k in RATES if k.startswith("pool_"))
    assert all(r["hands"] != "0" and r["draw_rate"] != "" and r["win_rate"] != "" for r in rows)
    expected = train.progress_row(1, 1, 1.0, 0.0, LOSSES, {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0,
                                  "self_fan": 0.0, "pool_points": 0.0, "pool_hands": 0, "pool_wins": 0,
                                  "pool_deal_ins": 0}, 0, 0.0, {})
    assert columns == list(expected)
    scalars = _scalars(run)
    assert "charts/win_rate" in scalars and not [t for t in scalars if t.startswith("charts/pool_")]
    assert set(curve.read_curves(run / "progress.csv")) == {"random", "rule"}
