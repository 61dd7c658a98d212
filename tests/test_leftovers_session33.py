"""Leftovers of session 33, mended: the programs' --help says what leaving out an option whose default is None
means, benchmarks/throughput.py uses the arena's test of one file under a public name (``agents.arena.file_key``),
a CheckpointWarning under ``python -m agents.arena`` names a line of code instead of ``<frozen runpy>``, and
train.py's ``--keep-checkpoints N`` keeps only the newest N snapshot checkpoints."""
from __future__ import annotations

import ast
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- "(default: None)" in --help












# --------------------------------------------------------------------------- one file, one public name


def test_no_program_imports_a_private_name_of_the_packages():
    """benchmarks/throughput.py imported ``agents.arena._file_key``: a rename inside the arena would break it
    unseen. The programs above the packages (benchmarks/, examples/, train.py) import only public names of them."""
    bad = []
    for path in [*sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "examples").glob("*.py")),
                 ROOT / "train.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("agents", "mj_env"):
                bad += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_")]
    assert not bad, bad


def test_file_key_tells_a_hard_link_and_another_spelling_for_the_same_file(tmp_path):
    from agents.arena import file_key

    a = tmp_path / "a.json"
    a.write_text("{}")
    os.link(a, tmp_path / "b.json")
    assert file_key(a) == file_key(tmp_path / "b.json") == file_key(tmp_path / "." / "a.json")
    assert file_key(a) != file_key(tmp_path / "c.json")  # not there yet: its resolved path
    assert file_key(tmp_path / "c.json") == file_key(tmp_path / "x" / ".." / "c.json")


# --------------------------------------------------------------------------- a warning's line under python -m


def _checkpoint_with_a_key_beside_its_format(tmp_path):
    torch = pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.pretrained import pretrained_path

    payload = torch.load(pretrained_path("beijing"), weights_only=True)
    payload["normalizer"] = 1
    torch.save(payload, tmp_path / "later.pt")
    return tmp_path / "later.pt"


def test_a_checkpoint_warning_under_runpy_names_the_users_line(tmp_path, monkeypatch):
    """The arena run by a user's ``runpy.run_module`` (as ``python -m`` runs it): the warning named
    ``<frozen runpy>``, runpy's own line; the frames of runpy are passed over as the library's are."""
    from agents.networks import CheckpointWarning
    from mj_env import lines

    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    monkeypatch.setattr(lines, "guard_output", lambda prog: None)  # (it would wrap pytest's sys.stdout)
    monkeypatch.setattr(sys, "argv", ["arena", "--agents", f"{path},rule", "--hands", "1", "--quiet"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(SystemExit) as e:
            runpy.run_module("agents.arena", run_name="__main__")
    line = sys._getframe().f_lineno - 1  # the line above: the run_module call
    assert e.value.code == 0
    named = [(Path(w.filename), w.lineno) for w in caught if issubclass(w.category, CheckpointWarning)]
    assert named == [(Path(__file__), line)]


def test_a_checkpoint_warning_under_python_m_names_a_line_of_code(tmp_path):
    """``python -m agents.arena --agents LATER.pt,rule``: no line of the user's lies above the library's; the
    warning named ``<frozen runpy>:88``, and names the line of agents/checkpoints.py that warns now."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    done = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"{path},rule", "--hands", "1",
                           "--quiet"], check=False, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    warned = [ln for ln in done.stderr.splitlines() if "CheckpointWarning" in ln]
    assert len(warned) == 1 and "runpy" not in done.stderr
    assert warned[0].startswith(f"{ROOT / 'agents' / 'checkpoints.py'}:")
    assert f"CheckpointWarning: {path}: its key 'normalizer' is not of format" in warned[0]


# --------------------------------------------------------------------------- train.py --keep-checkpoints


def _tiny_run(name, *extra):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from test_train_interrupt import TINY

    import train

    train.main(["--exp-name", name, "--total-steps", "2048", "--snapshot-every", "1", "--final-eval-hands", "0",
                "--max-minutes", "none", *TINY, *extra])  # 4 updates of 512 decisions, a snapshot after each
    return Path("runs") / name / "checkpoints"


def test_keep_checkpoints_keeps_the_newest_snapshots_and_the_run_as_it_was(tmp_path, monkeypatch):
    """A snapshot checkpoint every --snapshot-every updates piled up for good; --keep-checkpoints N deletes the
    oldest beyond N as each is saved (final.pt kept). The run draws the same numbers: its weights are those of a
    run that keeps all (the default, unchanged). There is no resuming, and the pool holds its snapshots in memory:
    no file deleted is read again."""
    torch = pytest.importorskip("torch")
    from agents.networks import load_checkpoint

    monkeypatch.chdir(tmp_path)
    every = _tiny_run("all")
    assert sorted(p.name for p in every.iterdir()) == ["final.pt", *(f"update_0000{u}.pt" for u in range(1, 5))]
    kept = _tiny_run("two", "--keep-checkpoints", "2")
    assert sorted(p.name for p in kept.iterdir()) == ["final.pt", "update_00003.pt", "update_00004.pt"]
    for name in ("final.pt", "update_00004.pt"):
        a, _ = load_checkpoint(every / name)
        b, meta = load_checkpoint(kept / name)
        assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
    assert meta["args"]["keep_checkpoints"] == 2
    assert sorted(p.name for p in _tiny_run("one", "--keep-checkpoints", "1").iterdir()) == ["final.pt",
                                                                                              "update_00004.pt"]


def test_keep_checkpoints_is_checked_like_the_other_counts(capsys):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    assert train.Args().keep_checkpoints == 0 and train.parse_args([]).keep_checkpoints == 0
    assert train.check_args(train.Args(keep_checkpoints=-1)) == "--keep-checkpoints must be at least 0, not -1"
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--keep-checkpoints", "-1"])
    assert e.value.code == 2 and "--keep-checkpoints must be at least 0, not -1" in capsys.readouterr().err


def test_prune_snapshots_deletes_only_the_oldest_files_it_is_given(tmp_path):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.training_run import prune_snapshots

    files = [tmp_path / f"update_{u:05d}.pt" for u in (10, 20, 30)]
    for f in [*files, tmp_path / "final.pt"]:
        f.write_bytes(b"")
    saved = list(files)
    prune_snapshots(saved, 0)  # keep all
    assert saved == files and all(f.exists() for f in files)
    files[1].unlink()  # one deleted by hand meanwhile
    prune_snapshots(saved, 1)
    assert saved == files[2:] and sorted(p.name for p in tmp_path.iterdir()) == ["final.pt", "update_00030.pt"]
