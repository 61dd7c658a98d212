"""Findings of an outside audit of the command lines (records checker, learning curve): each test failed
before its fix."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mj_env
from mj_env import records
from mj_env.lines import DropWhenReaderGone

ROOT = Path(__file__).resolve().parents[1]


def _record(seed=3):
    """The record of one hand of random legal play in the AEC env, as JSON text."""
    env = mj_env.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return json.dumps(env.unwrapped.hand_record(), ensure_ascii=False)


def test_the_records_checker_skips_a_byte_order_mark_at_the_start_of_the_file(tmp_path, capsys):
    """A records file saved by an editor that writes a UTF-8 BOM (as the calculator's input may be) replays;
    it was 'record 0: Unexpected UTF-8 BOM'. A BOM anywhere else is still a bad record."""
    rec = _record()
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + rec.encode() + b"\r\n" + rec.encode() + b"\n")
    assert records.main([str(path)]) == 0
    assert "2 of 2 record(s) replay" in capsys.readouterr().out
    assert records.main([str(path), "--show", "0"]) == 0
    assert "settlement: {" in capsys.readouterr().out
    path.write_bytes(b"\xef\xbb\xbf\n" + rec.encode() + b"\n")  # a BOM alone on the first line: a blank line
    assert records.main([str(path)]) == 0
    assert "1 of 1 record(s) replay" in capsys.readouterr().out
    path.write_bytes(rec.encode() + b"\n\xef\xbb\xbf" + rec.encode() + b"\n")
    assert records.main([str(path)]) == 1
    assert "record 1: " in capsys.readouterr().err


def test_the_curve_refuses_a_row_with_more_cells_than_the_header(tmp_path):
    """A row with cells past the header's (a hand-edited or corrupted progress.csv) was drawn from whatever
    its columns then held; a row cut short was already refused."""
    from agents import curve

    d = tmp_path / "run"
    d.mkdir()
    header = "update,global_step,seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n"
    (d / "progress.csv").write_text(header + "1,100,60,-0.5,-0.7,-0.3\n2,200,120,0.1,-0.1,0.3,9\n", encoding="utf-8")
    with pytest.raises(curve.CurveError, match=r"line 3: 7 cells where the header has 6"):
        curve.read_curves(d / "progress.csv")


def test_the_curve_labels_a_progress_file_of_the_current_folder_by_that_folder(tmp_path, monkeypatch):
    """``python -m agents.curve progress.csv`` inside a run's folder: the label was '' (the parent of a bare
    file name), so the picture had no legend and matplotlib warned 'No artists with labels found'."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    from agents import curve

    d = tmp_path / "my_run"
    d.mkdir()
    header = "update,global_step,seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n"
    (d / "progress.csv").write_text(header + "1,100,60,-0.5,-0.7,-0.3\n", encoding="utf-8")
    drawn = []
    monkeypatch.setattr(curve, "_draw",
                        lambda runs, labels, opponents, out, title: drawn.append(labels))
    monkeypatch.chdir(d)
    curve.plot(["progress.csv"], str(tmp_path / "c.png"))
    assert drawn == [["my_run"]]


def test_output_to_a_reader_that_left_is_dropped_without_an_error():
    read, write = os.pipe()
    os.close(read)
    out = DropWhenReaderGone(io.TextIOWrapper(io.FileIO(write, "w"), encoding="utf-8"))
    print("a line", file=out, flush=True)  # a broken pipe: dropped, and the descriptor now writes nowhere
    print("another", file=out, flush=True)
    assert out.gone and out.encoding == "utf-8"
    out.stream.close()


def _closed_reader(argv, cwd):
    """Run ``python argv`` with its standard output a pipe whose reader has gone (``| true``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with subprocess.Popen([sys.executable, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:  # (its pipes closed on leaving)
        proc.stdout.close()
        err = proc.stderr.read()
        return proc.wait(timeout=300), err


def test_a_training_run_whose_output_reader_left_still_ends_with_its_files(tmp_path):
    """``python train.py | head -1``: the run's next line ('stopping after N minutes', then the final tables)
    raised BrokenPipeError, which ended the run, exit 1, before final.pt and final_eval.json were written."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    rc, err = _closed_reader([str(ROOT / "train.py"), "--exp-name", "p", "--total-steps", "16", "--num-envs", "1",
                              "--num-steps", "1", "--bc-steps", "1", "--max-minutes", "0.0001", "--eval-every", "0",
                              "--final-eval-hands", "1", "--no-eval-pretrained", "--no-progress"], tmp_path)
    assert rc == 0 and "Traceback" not in err, err
    run = tmp_path / "runs" / "p"
    assert (run / "checkpoints" / "final.pt").is_file() and (run / "final_eval.json").is_file()


def test_the_arena_writes_its_json_when_the_reader_of_its_table_left(tmp_path):
    """``python -m agents.arena ... --json cmp.json | true``: the table's print was a BrokenPipeError traceback
    and --json was never written."""
    rc, err = _closed_reader(["-m", "agents.arena", "--agents", "rule,random", "--hands", "1", "--quiet",
                              "--json", "cmp.json"], tmp_path)
    assert rc == 0 and "Traceback" not in err, err
    assert json.loads((tmp_path / "cmp.json").read_text(encoding="utf-8"))["walls"] == 1


def test_the_records_checker_is_quiet_when_the_reader_of_its_summary_left(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(_record() + "\n", encoding="utf-8")
    rc, err = _closed_reader(["-m", "mj_env.records", str(path)], tmp_path)
    assert rc == 0 and err == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_the_arena_says_once_that_its_output_cannot_be_written_and_writes_its_json(tmp_path):
    """``> /dev/full``: the table's print was an OSError traceback and --json was never written."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", "rule,random", "--hands", "1",
                               "--quiet", "--json", "cmp.json"], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300, check=False)
    assert "Traceback" not in proc.stderr and proc.returncode == 0
    assert proc.stderr.count("python -m agents.arena: cannot write to standard output: No space left on device") == 1
    assert (tmp_path / "cmp.json").is_file()


def test_the_calculators_help_to_a_reader_that_left_or_a_full_device_has_no_traceback(tmp_path):
    """The calculator's stream ends quietly (141, or 1 and one line) when its output fails; its --help was a
    BrokenPipeError or OSError traceback."""
    rc, err = _closed_reader(["-m", "mj_env.score", "--help"], tmp_path)
    assert rc == 141 and err == ""
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "mj_env.score", "--help"], cwd=tmp_path, stdout=full,
                                  stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                                  timeout=60, check=False)
        assert proc.returncode == 1
        assert proc.stderr == "python -m mj_env.score: cannot write to standard output: No space left on device\n"


def test_a_training_run_with_its_output_and_progress_bar_piped_to_a_reader_that_left_ends_with_its_files(tmp_path):
    """``python train.py 2>&1 | head -1``: the progress bar's next write on standard error raised
    BrokenPipeError (tqdm passes it on), which ended the run before final.pt was written."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with subprocess.Popen([sys.executable, str(ROOT / "train.py"), "--exp-name", "p", "--total-steps", "16",
                           "--num-envs", "1", "--num-steps", "1", "--bc-steps", "1", "--max-minutes", "0.0001",
                           "--eval-every", "0", "--final-eval-hands", "1", "--no-eval-pretrained"],
                          cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
        proc.stdout.close()
        assert proc.wait(timeout=300) == 0
    assert (tmp_path / "runs" / "p" / "checkpoints" / "final.pt").is_file()


def test_the_arena_with_its_standard_error_closed_still_plays_and_writes_its_json(tmp_path):
    """``2>&-``: Python makes sys.stderr None and the progress bar's first write was an AttributeError (unseen,
    with nowhere to print it), exit 1 and no --json."""
    pytest.importorskip("tqdm")  # the train extra: skipped in a core-only install
    proc = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", "rule,random", "--hands", "1",
                           "--json", "cmp.json"], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          stdout=subprocess.DEVNULL, stderr=None, timeout=300, check=False,
                          preexec_fn=lambda: os.close(2))
    assert proc.returncode == 0 and (tmp_path / "cmp.json").is_file()


def test_train_refuses_a_runs_link_to_a_missing_folder_before_it_starts(tmp_path, monkeypatch):
    """runs -> a folder that does not exist: the run built its tables, printed its plan and then failed with
    'cannot write the run's files: runs: File exists'."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").symlink_to(tmp_path / "gone")
    problem = train.run_dir_problem(train.Args(exp_name="x"))
    assert problem is not None and "runs is a symbolic link to a folder that does not exist" in problem


def test_an_output_path_that_is_a_link_into_a_missing_folder_is_refused_up_front(tmp_path):
    """--json LINK, LINK -> a missing folder: passed the checks, then the whole comparison was played before
    the write failed ('cannot write ...: No such file or directory')."""
    from agents.arena import output_problem
    from benchmarks._args import output_problem as bench_output_problem

    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "gone" / "out.json")
    for check in (output_problem, bench_output_problem):
        assert f"no such directory: {tmp_path / 'gone'}" in check("--json", str(link))
    fresh = tmp_path / "fresh.json"
    fresh.symlink_to(tmp_path / "new.json")  # a link to a file not written yet, in a folder that exists: fine
    assert output_problem("--json", str(fresh)) is None and bench_output_problem("--json", str(fresh)) is None


def test_the_curve_refuses_a_file_without_line_breaks_before_reading_it_whole(tmp_path):
    """``python -m agents.curve /dev/zero``: csv read one endless line, 6.6 GB in 15 s until memory ran out."""
    from agents import curve

    big = tmp_path / "progress.csv"
    big.write_bytes(b"seconds," + b"x" * (curve.MAX_LINE + 10))
    with pytest.raises(curve.CurveError, match="line 1: longer than 1,048,576 bytes"):
        curve.read_curves(big)
    if Path("/dev/zero").exists():
        with pytest.raises(curve.CurveError, match="line 1: longer than"):
            curve.read_curves("/dev/zero")


@pytest.mark.parametrize("extra, message", [
    (["--channels", "16"], "--channels 16: the network of --init-from pretrained has channels 32"),  # the default
    (["--channels=16"], "--channels 16: the network of --init-from pretrained has channels 32"),
    (["--bc-steps", "256"], "--bc-steps: --init-from starts from the checkpoint's weights"),  # the default
])
def test_init_from_refuses_a_network_flag_named_at_its_default_value(extra, message, tmp_path, monkeypatch, capsys):
    """'--init-from: ... --arch, sizes and --obs need not be given, and if given must agree': a flag given at its
    default value disagreeing with the checkpoint (the shipped player has 32 channels) passed unnoticed."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    sys.path.insert(0, str(ROOT))
    import train
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        train.main(["--exp-name", "bad", "--init-from", "pretrained", "--total-steps", "0", "--final-eval-hands", "0",
                    "--eval-every", "0", *extra])  # (a tiny run where the flag is not refused)
    assert e.value.code == 2 and message in capsys.readouterr().err and not (tmp_path / "runs").exists()


def test_flags_given_names_the_fields_on_the_command_line():
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    sys.path.insert(0, str(ROOT))
    import train
    assert train.flags_given(["--arch=tiles", "--bc-steps", "256", "--no-anneal-lr", "x", "--nothing"]) == \
        {"arch", "bc_steps", "anneal_lr"}


def test_the_records_checker_refuses_a_key_given_twice(tmp_path, capsys):
    """A hand-edited record that gives a field twice ('"dealer": 0, ..., "dealer": 2') was replayed with the last
    value, silently; the calculator refuses a key given twice, and so does the checker now."""
    rec = _record()
    twice = rec[:-1] + ', "dealer": ' + str(json.loads(rec)["dealer"]) + "}"
    path = tmp_path / "twice.jsonl"
    path.write_text(rec + "\n" + twice + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 1
    assert "record 1: field 'dealer' is given twice" in capsys.readouterr().err
