"""Artifacts written by older versions still work: hand records, checkpoints, the arena's figures with an old
checkpoint, a run's progress.csv, and an old checkpoint as train.py's --init-from.

The files are in tests/data/compat/ (its README says which commit wrote each and how): hand records of
agents.arena --record (the three presets), of agents.play --record and of MahjongVectorEnv(records=True), two
train.py checkpoints (the per-tile network on mj_obs_v2 under beijing, an MLP on mj_obs_v1 under quemen), the
hands and --json figures those checkpoints played in the arena then, their network outputs then, and a
progress.csv. A change that no longer reads one of them, or reads it into other numbers, fails here: an old
artifact must work as before or be refused with a clear error, and a deliberate change of format that refuses
these files should come with a new format name (and these files replaced on purpose).
"""
from __future__ import annotations

import csv
import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from mj_env import records
from mj_env.observation import observe

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "compat"
REL = DATA.relative_to(ROOT)  # as the old arena runs named the checkpoints (run from the repository root)
CHECKPOINTS = {"tiles_v2_beijing": "beijing", "mlp_v1_quemen": "quemen"}
RECORD_FILES = ["arena_hands.jsonl", "play_and_vector_hands.jsonl",
                *(f"{name}_hands.jsonl" for name in CHECKPOINTS)]


def read_records(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


# --------------------------------------------------------------------------- hand records


@pytest.mark.parametrize("name", RECORD_FILES)
def test_old_hand_records_replay_to_their_stored_settlements(name):
    recs = read_records(name)
    assert recs and all(r["format"] == records.FORMAT for r in recs)
    for k, rec in enumerate(recs):
        settled = records.replay(rec)  # raises RecordError where a decision is illegal or the settlement differs
        assert settled is not None, f"{name} record {k}: the hand did not end"
        assert settled["scores"] == rec["settlement"]["scores"], f"{name} record {k}"


def test_old_records_cover_the_presets_wins_and_draws():
    recs = read_records("arena_hands.jsonl")
    assert {r["rules"] for r in recs} == {"beijing", "hebei", "quemen"}
    assert sum(bool(r["settlement"].get("draw")) for r in recs) == 3 == sum(r["settlement"].get("legal") is True
                                                                         for r in recs)


@pytest.mark.parametrize("name", RECORD_FILES)
def test_the_records_checker_accepts_old_files(name, capsys):
    assert records.main([str(DATA / name)]) == 0
    n = len(read_records(name))
    assert capsys.readouterr().out.strip() == f"{n} of {n} record(s) replay to their stored settlements"


def test_an_old_record_shows_decision_by_decision():
    rec = read_records("play_and_vector_hands.jsonl")[0]
    out = io.StringIO()
    records.show(rec, out)
    text = out.getvalue()
    assert text.count("--> decision ") == len(rec["actions"])
    assert "(you)" in text or "(rule)" in text  # the players' names an agents.play record holds
    assert rec["actions"][-1][1] in text.rsplit("--> decision ", 1)[1]


# --------------------------------------------------------------------------- checkpoints

# (the tests above run without torch; those below need the train extra, and skip without it)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def load_checkpoint(path):
    from agents.checkpoints import load_checkpoint

    return load_checkpoint(path)


@pytest.mark.parametrize(("name", "rules"), CHECKPOINTS.items())
def test_old_checkpoints_load_without_warnings(name, rules, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a CheckpointWarning (keys beside the format) would fail here
        model, meta = load_checkpoint(DATA / f"{name}.pt")
    assert meta["rules"] == rules and meta["obs_name"] == ("mj_obs_v2" if "v2" in name else "mj_obs_v1")
    assert meta["model_config"]["arch"] == name.split("_")[0] and not model.training
    assert {"args", "update", "global_step", "obs_version"} <= set(meta)


def network_outputs(name: str, torch) -> list[dict]:
    """The network's logits (legal actions only) and value at the first four decisions of record 0 of its
    hands file, replayed: outputs.json holds what this gave at the commit that wrote the checkpoint."""
    from agents.networks import model_inputs

    model, _ = load_checkpoint(DATA / f"{name}.pt")
    rec = read_records(f"{name}_hands.jsonl")[0]
    rows: list[dict] = []

    def visit(i, seat, action, eng):
        if seat is None or len(rows) >= 4:
            return
        mask = eng.legal_mask()
        planes = observe(eng.rules, eng.state, np.array([0]))
        x = torch.as_tensor(model_inputs(model, planes, mask, eng.rules), dtype=torch.float32)
        with torch.no_grad():
            logits, value = model(x)
        legal = np.flatnonzero(mask[0])
        rows.append({"decision": i, "legal": legal.tolist(), "logits": logits[0, legal].tolist(),
                     "value": float(value.reshape(-1)[0])})

    records.replay(rec, visit)
    return rows


@pytest.mark.parametrize("name", CHECKPOINTS)
def test_old_checkpoints_give_the_outputs_they_gave(name, torch):
    """Same weights, same planes (mj_obs_v1, and mj_obs_v2 computed from them), same numbers: a change of the
    observation that keeps its layout's name and version would feed old networks what they were not trained on."""
    then = json.loads((DATA / "outputs.json").read_text(encoding="utf-8"))[name]
    now = network_outputs(name, torch)
    assert [(r["decision"], r["legal"]) for r in now] == [(r["decision"], r["legal"]) for r in then]
    for a, b in zip(now, then):
        np.testing.assert_allclose(a["logits"], b["logits"], atol=1e-4, err_msg=f"decision {a['decision']}")
        assert abs(a["value"] - b["value"]) < 1e-4


@pytest.mark.parametrize(("name", "rules"), CHECKPOINTS.items())
def test_old_checkpoints_play_the_same_hands_in_the_arena(name, rules, tmp_path, monkeypatch, torch):
    """The command line that wrote the hands file then, run now: the same hands, decision for decision, and the
    same --json figures (but its seconds; and batch and common_random, which the old summary did not hold)."""
    from agents import arena

    monkeypatch.chdir(ROOT)
    out = tmp_path / "hands.jsonl"
    summary = tmp_path / "summary.json"
    assert arena.main(["--agents", f"{REL / name}.pt,rule", "--rules", rules, "--hands", "2", "--seed", "5",
                       "--batch", "2", "--record", str(out), "--json", str(summary), "--quiet"]) in (0, None)
    assert out.read_text(encoding="utf-8") == (DATA / f"{name}_hands.jsonl").read_text(encoding="utf-8")
    now = json.loads(summary.read_text(encoding="utf-8"))
    then = json.loads((DATA / f"{name}_hands.json").read_text(encoding="utf-8"))
    assert now.pop("common_random") is False and now.pop("batch") == 2
    now.pop("seconds"), then.pop("seconds")
    assert now == then


def test_an_old_checkpoint_starts_a_run_as_init_from(tmp_path, monkeypatch, torch):
    import train

    monkeypatch.chdir(tmp_path)
    old = DATA / "mlp_v1_quemen.pt"
    train.main(["--init-from", str(old), "--rules", "quemen", "--exp-name", "ft", "--total-steps", "0",
                "--final-eval-hands", "0", "--num-envs", "4", "--num-steps", "8", "--threads", "1", "--no-progress"])
    model, meta = load_checkpoint(tmp_path / "runs" / "ft" / "checkpoints" / "final.pt")
    before, then = load_checkpoint(old)
    assert meta["model_config"] == then["model_config"]
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), before.state_dict().values()))


def test_a_checkpoint_of_a_layout_version_not_known_here_is_refused_by_name(tmp_path, torch):
    """The other half of the promise: what cannot work is refused, naming the file and what is wrong."""
    payload = torch.load(DATA / "tiles_v2_beijing.pt", weights_only=True)
    payload["obs_version"] += 1
    path = tmp_path / "later.pt"
    torch.save(payload, path)
    from agents.checkpoints import CheckpointError

    with pytest.raises(CheckpointError, match=rf"{path}: trained on observation layout 'mj_obs_v2' \(version 3"):
        load_checkpoint(path)


# --------------------------------------------------------------------------- a run's progress.csv


def test_an_old_progress_csv_draws_its_curve():
    from agents import curve

    with open(DATA / "progress.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    curves = curve.read_curves(DATA / "progress.csv")
    assert set(curves) == {"random", "rule", "pretrained"}
    evaluated = [r for r in rows if r["vs_rule_points"]]
    assert evaluated and [p for _, p, _, _ in curves["rule"]] == [float(r["vs_rule_points"]) for r in evaluated]
