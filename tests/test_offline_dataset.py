"""examples/offline_dataset.py: the offline dataset of MahjongVectorEnv play that its docstring and the README
describe. Every action legal under its mask; per hand, the points the settlement the env reported (docs/INTERFACES.md
2), zero-sum (docs/RULES.md 6), with a hand that ended at its deal (infos["deal_points"]) credited to no decision;
one ``done`` per (hand, seat) that acted; the same seed, the same bytes; each hand replays as a hand record
(mj_env.records) to the observations stored; bad arguments refused naming the flag, exit 2, no file written."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
from example_modules import load_example

from mj_env.vector import MahjongVectorEnv

od = load_example("offline_dataset")


def _check(data: dict) -> None:
    """What the docstring's table says of every array."""
    n = len(data["action"])
    assert n and all(len(data[k]) == n for k in ("obs", "mask", "seat", "table", "hand", "points", "done"))
    assert data["obs"].dtype == np.uint8 and data["mask"].dtype == np.int8
    assert (data["mask"][np.arange(n), data["action"]] == 1).all()   # every action legal under its mask
    H = len(data["hand_scores"])
    assert sorted(set(data["hand"].tolist())) == list(range(H))
    for h in range(H):
        scores = json.loads(str(data["hand_settlement"][h]))["scores"]
        assert data["hand_scores"][h].tolist() == scores and sum(scores) == 0
        mine = data["hand"] == h
        assert (data["points"][mine] == data["hand_scores"][h, data["seat"][mine]]).all()
        for s in set(data["seat"][mine].tolist()):   # exactly one done per seat that acted, on its last decision
            rows = np.flatnonzero(mine & (data["seat"] == s))
            assert np.flatnonzero(data["done"][rows]).tolist() == [len(rows) - 1]
    assert data["done"].sum() == len({(h, s) for h, s in zip(data["hand"].tolist(), data["seat"].tolist())})


@pytest.mark.parametrize("rules, obs", [("beijing", "v1"), ("hebei", "v2"), ("quemen", "v1"), ("quemen", "v2")])
def test_every_rule_set_gives_legal_actions_settled_zero_sum_points_and_one_done_per_hand_and_seat(rules, obs):
    data = od.collect(rules, 4, 6, seed=2, obs=obs, agents=("rule", "random", "efficient", "rule"))
    assert data["obs"].shape[1] == (14 if obs == "v1" else 18) and len(data["hand_scores"]) == 6
    _check(data)


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_each_hand_replays_as_a_record_to_the_observations_stored(rules):
    """The docstring's recipe: a hand's rows, wall, dealer and settlement make a record that replays
    (records.replay checks each decision and the settlement), and ``replayed`` rebuilds the same planes."""
    obs = "v2" if rules == "hebei" else "v1"
    data = od.collect(rules, 3, 4, seed=5, obs=obs)
    for h in range(4):
        again = od.replayed(od.hand_record(data, h), obs)
        mine = data["hand"] == h
        for k in ("obs", "mask", "action", "seat"):
            assert np.array_equal(again[k], data[k][mine]), (h, k)


def test_exactly_the_hands_asked_for_are_kept_and_each_is_whole():
    """At 32 tables a 5th hand ends in the step that ends the 4th: 4 are kept, the first to end, and the hands
    still running are dropped; each kept hand replays from its deal to its settlement."""
    data = od.collect("beijing", 32, 4, seed=0)
    assert len(data["hand_scores"]) == 4 and len(data["hand_wall"]) == 4
    _check(data)
    for h in range(4):
        assert len(od.replayed(od.hand_record(data, h))["action"]) == (data["hand"] == h).sum()


def test_a_hand_that_ended_at_its_deal_pays_no_decision(monkeypatch):
    """A hand ended at its deal (四惠牌: about 1 in 14,000) is paid with the table's next step, in rewards and
    apart in infos["deal_points"] (mj_env.vector). Made to happen at every table's 5th step: the points kept
    are still each hand's settlement, not the deal-ended hand's added to it."""
    step, calls = MahjongVectorEnv.step, [0]

    def with_deal_points(self, actions):
        o, rewards, term, trunc, infos = step(self, actions)
        calls[0] += 1
        if calls[0] == 5:
            extra = np.tile([6.0, -2.0, -2.0, -2.0], (self.num_envs, 1))
            rewards = rewards + extra
            infos = {**infos, "deal_points": extra, "_deal_points": np.ones(self.num_envs, bool)}
        return o, rewards, term, trunc, infos

    monkeypatch.setattr(MahjongVectorEnv, "step", with_deal_points)
    data = od.collect("beijing", 3, 3, seed=1)
    assert calls[0] > 5
    _check(data)


def test_the_same_seed_gives_the_same_bytes(tmp_path):
    paths = [tmp_path / f"{i}.npz" for i in range(3)]
    for path, seed in zip(paths, (7, 7, 8)):
        assert od.main(["--rules", "hebei", "--tables", "3", "--hands", "4", "--seed", str(seed), "--obs", "v2",
                        "--out", str(path)]) == 0
    a, b, c = (np.load(p) for p in paths)
    assert a.files == b.files
    for k in a.files:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes(), k
    assert not np.array_equal(a["action"], c["action"]) or not np.array_equal(a["hand_wall"], c["hand_wall"])
    assert str(a["rules"]) == "hebei" and int(a["seed"]) == 7 and str(a["obs_layout"]) == "v2"
    _check(dict(a))


def _refused(argv, capsys) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        od.main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == "" and "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("argv, flag", [
    (["--tables", "-1"], "--tables"), (["--tables", "0"], "--tables"), (["--hands", "-3"], "--hands"),
    (["--seed", "-1"], "--seed"), (["--agents", "rule,bogus,rule,rule"], "--agents"), (["--agents", "rule,rule"], "--agents"),
    (["--rules", "bogus"], "--rules"), (["--obs", "v3"], "--obs"), (["--out", "x.csv"], "--out"),
    (["--out", "no/such/folder/x.npz"], "--out")])
def test_bad_arguments_name_the_flag_and_write_nothing(argv, flag, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = argv if "--out" in argv else [*argv, "--out", "x.npz"]
    assert flag in _refused([*argv, "--hands", "1"] if "--hands" not in argv else argv, capsys)
    assert os.listdir(tmp_path) == []


def test_an_existing_folder_or_an_unwritable_out_is_refused_before_play(tmp_path, monkeypatch, capsys):
    (tmp_path / "d.npz").mkdir()
    monkeypatch.setattr(od, "collect", lambda *a, **k: pytest.fail("played before --out was checked"))
    assert _refused(["--out", str(tmp_path / "d.npz")], capsys).endswith("is a directory; give a file name")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real(p, mode))
    assert _refused(["--out", str(tmp_path / "x.npz")], capsys).endswith(f"--out {tmp_path / 'x.npz'}: not writable")
    assert os.listdir(tmp_path) == ["d.npz"]


def test_a_write_that_fails_leaves_no_file(tmp_path, monkeypatch, capsys):
    """A write that fails after play (a full disk) says so naming --out, exit 2, and leaves nothing, not half a file."""
    def full(f, **arrays):
        f.write(b"PK partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full)
    assert od.main(["--tables", "2", "--hands", "1", "--out", str(tmp_path / "x.npz")]) == 2
    assert "--out" in capsys.readouterr().err and os.listdir(tmp_path) == []


def test_the_readme_loading_snippet_runs_on_a_file_the_example_wrote(tmp_path, monkeypatch):
    """README.md's paragraph on the example: its ``np.load`` snippet, as written, on a small file of its command."""
    import re
    import runpy
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    [code] = [b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if 'np.load("beijing.npz")' in b]
    [command] = re.findall(r"python examples/offline_dataset\.py (.*)", text)
    argv = command.split()
    argv[argv.index("--tables") + 1], argv[argv.index("--hands") + 1] = "4", "5"   # seconds, not minutes
    monkeypatch.chdir(tmp_path)
    assert od.main(argv) == 0 and (tmp_path / "beijing.npz").is_file()
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    scope = runpy.run_path(str(tmp_path / "snippet.py"))
    assert scope["x"].shape[1:] == (18, 34) and len(scope["ret"]) == len(scope["y"])


# --------------------------------------------------------------------------- a run whose last allowed step ends the last hand


def test_a_run_whose_last_allowed_step_ends_the_last_hand_is_no_shortfall(monkeypatch):
    """collect() stops once ``hands`` hands have ended, within MAX_STEPS_PER_HAND x hands steps; it checked the
    count only before each step, so a run whose last allowed step ended the last hand raised 'fewer than 1 hands
    ended in k steps' about a hand that had ended."""
    data = od.collect("hebei", 1, 1, seed=3)
    k = len(data["action"])                      # one table: one decision a step
    monkeypatch.setattr(od, "MAX_STEPS_PER_HAND", k)
    again = od.collect("hebei", 1, 1, seed=3)
    assert all(np.array_equal(again[key], data[key]) for key in data)
    monkeypatch.setattr(od, "MAX_STEPS_PER_HAND", k - 1)
    with pytest.raises(RuntimeError, match=f"fewer than 1 hands ended in {k - 1} steps"):
        od.collect("hebei", 1, 1, seed=3)
