"""Portability: the project on machines other than a Linux box with a UTF-8 locale (Windows' cp1252 or cp936
default encodings, an ASCII locale, macOS' and Windows' ``spawn`` start method, other hash seeds)."""
from __future__ import annotations

import ast
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mj_env
from mj_env.lines import guard_output
from mj_env.vector import MahjongVectorEnv

ROOT = Path(__file__).resolve().parents[1]
CODE = sorted([ROOT / "train.py"] + [p for top in ("mj_env", "agents", "examples", "benchmarks")
                                      for p in (ROOT / top).rglob("*.py")])


def _mode(call: ast.Call) -> str:
    node = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "r"


def _text_io_without_encoding(path: Path) -> list[str]:
    """The calls in ``path`` that open a file in text mode without ``encoding=``: ``open(p, "w")``,
    ``p.open()``, ``p.write_text(s)``, ``p.read_text()``. (Exempt: the null device, where nothing is read or kept,
    and Linux's /proc files, ASCII text on the one system that has them.)"""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open" or isinstance(f, ast.Attribute) and f.attr == "open" and (
                not isinstance(f.value, ast.Name) or f.value.id not in ("os", "z", "zipfile", "tarfile")):
            if isinstance(f, ast.Attribute):  # Path.open(mode): the mode is its first argument
                node = ast.Call(func=f, args=[f.value, *node.args], keywords=node.keywords)
            where = ast.unparse(node.args[0]) if node.args else ""
            if "b" in _mode(node) or "devnull" in where or where.startswith("'/proc/"):
                continue
        elif not (isinstance(f, ast.Attribute) and (f.attr == "write_text" and len(node.args) == 1
                                                    or f.attr == "read_text" and not node.args)):
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_text_files_are_opened_with_an_explicit_encoding():
    """Without ``encoding=`` a text file is read and written in the locale's encoding: cp1252 or cp936 on Windows,
    ASCII under ``LANG=C PYTHONUTF8=0``. train.py wrote args.json (``--exp-name 运行 1``, which check_args accepts,
    and ``--init-from`` a path) that way: a UnicodeEncodeError traceback after the run's folder was made under
    cp1252, a GBK file that no JSON reader takes under cp936; progress.csv too, which ``agents.curve`` reads as
    UTF-8. (Found with ``python -X warn_default_encoding train.py ...``: EncodingWarning at these three lines.)"""
    found = [line for path in CODE for line in _text_io_without_encoding(path)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("encoding", ["ascii", "cp1252", "cp936"])
@pytest.mark.parametrize("make", ["aec", "vector", "gym"])
def test_human_rendering_on_a_stdout_that_cannot_encode_the_tiles(make, encoding, monkeypatch):
    """``render_mode="human"`` prints the table at every reset and step; its tile glyphs (and 惠坯, 惠牌) are not
    in cp1252, cp936 or ASCII, the encoding of standard output on Windows (output redirected) or under ``LANG=C
    PYTHONUTF8=0``: ``reset()`` raised UnicodeEncodeError. The glyphs the encoding lacks are backslash escapes."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding=encoding)
    monkeypatch.setattr(sys, "stdout", out)
    if make == "aec":
        env = mj_env.env(render_mode="human")
        env.reset(seed=1)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    elif make == "vector":
        env = MahjongVectorEnv(num_envs=2, seed=1, render_mode="human")
        obs, _ = env.reset(seed=1)
        env.step(obs["action_mask"].argmax(axis=-1))
    else:
        env = gym.make("mj_env/Beijing-v0", render_mode="human")
        obs, _ = env.reset(seed=1)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    out.flush()
    text = raw.getvalue().decode(encoding)
    assert "East" in text and "\\U0001f0" in text
    assert ("惠牌" in text) == (encoding == "cp936") and ("\\u60e0\\u724c" in text) == (encoding != "cp936")


def _ascii_std_streams(monkeypatch, errors="strict"):
    """Standard output and error as on a machine whose encoding is ASCII; the bytes written to stdout."""
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii", errors=errors))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="backslashreplace"))
    return raw


def _train():
    """train.py, or a skip where torch (the train extra) is missing: the other tests here need none
    (tests/test_python_runtime.py)."""
    pytest.importorskip("torch")
    import train

    return train


def test_train_help_on_an_ascii_stdout(monkeypatch):
    """``train.py --help`` (its flags' help names 进张) died in a UnicodeEncodeError where standard output is not
    UTF-8 (``PYTHONIOENCODING=ascii``; Windows' cp1252 with the output redirected). guard_output, which every
    command-line program calls first, now has standard output escape what its encoding lacks."""
    train = _train()
    raw = _ascii_std_streams(monkeypatch)
    guard_output("train.py")
    with pytest.raises(SystemExit) as stop:
        train.parse_args(["--help"])
    sys.stdout.flush()
    assert stop.value.code == 0 and "\\u8fdb\\u5f20" in raw.getvalue().decode("ascii")


def test_records_show_on_an_ascii_stdout(tmp_path):
    """``python -m mj_env.records FILE --show 0`` under an ASCII standard output said ``record 0: 'ascii' codec
    can't encode characters ...`` and exited 1, as if the record were bad (the UnicodeEncodeError of printing the
    table, 惠坯, was caught as a ValueError of the record)."""
    env = mj_env.env()
    env.reset(seed=3)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(env.unwrapped.hand_record(), ensure_ascii=False) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "mj_env.records", str(path), "--show", "0"], check=False,
                         capture_output=True,
                         env={**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT)}, timeout=60)
    assert run.returncode == 0, run.stderr.decode("ascii", "replace")
    assert b"\\u60e0\\u576f" in run.stdout and b"settlement: {" in run.stdout


def test_benchmark_search_help_on_an_ascii_stdout():
    """``benchmarks/search.py --help`` (which names 报听) reads its flags before anything is imported, so before
    guard_output: a UnicodeEncodeError where standard output is ASCII."""
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "search.py"), "--help"], check=False,
                         capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii"}, timeout=60)
    assert run.returncode == 0, run.stderr.decode("ascii", "replace")
    assert b"\\u62a5\\u542c" in run.stdout


def _no_proc(monkeypatch):
    import throughput

    def no_file(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory")
    monkeypatch.setattr(throughput, "open", no_file, raising=False)  # no /proc/self/status: macOS, Windows
    return throughput


def test_benchmark_peak_rss_on_macos_is_in_bytes(monkeypatch):
    """Without /proc, benchmarks/throughput.py reads ``ru_maxrss``, which macOS gives in bytes (Linux and the BSDs
    in KiB): a row of 100 MB was reported as 102,400 MB."""
    import resource

    throughput = _no_proc(monkeypatch)
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(resource, "getrusage", lambda who: type("R", (), {"ru_maxrss": 100 * 2**20})())
    assert throughput._maxrss_mb() == 100


def test_benchmark_peak_rss_on_windows_is_unknown_not_a_crash(monkeypatch):
    """Windows has neither /proc nor the ``resource`` module: ``import resource`` ended every row of the
    benchmark with an error."""
    throughput = _no_proc(monkeypatch)
    monkeypatch.setitem(sys.modules, "resource", None)  # import resource: ImportError
    assert math.isnan(throughput._maxrss_mb())


def test_benchmark_machine_lines_on_windows(monkeypatch):
    """Every benchmark stores the machine it ran on, with the load average; Windows has no ``os.getloadavg``
    (AttributeError, where the code caught only OSError), so each benchmark died there before measuring."""
    import _common
    import win_checks

    monkeypatch.delattr(os, "getloadavg")
    assert _common.machine_info()["load_average"] is None
    assert win_checks.machine()["load_average"] is None


def test_arena_outputs_for_a_checkpoint_whose_file_name_is_not_utf8():
    """A file name that is not UTF-8 (a Latin-1 ``café.pt`` on a Linux box in a UTF-8 locale) reaches Python as
    lone surrogates. ``python -m agents.arena --agents caf?.pt,rule`` played such a checkpoint and printed its
    table, then --json, --record and --plot died in a UnicodeEncodeError (``surrogates not allowed``), each
    leaving an empty file. The name is written with ``\\xe9`` escapes (the plot's labels are the same names).
    (Two rule agents given as objects under the checkpoint's name: what main writes, without loading torch.)"""
    from agents import arena, arena_report
    from mj_env.baselines import RuleBasedAgent

    name = os.fsdecode(b"caf\xe9.pt")
    records = []
    summary = arena.compare([name, "rule"], 1, agents=[RuleBasedAgent(), RuleBasedAgent()], records=records.extend)
    assert [(a["name"], a["spec"]) for a in summary["agents"]] == [("caf\\xe9.pt",) * 2, ("rule",) * 2]
    arena_report.json_text(summary).encode("utf-8")  # what --json writes
    assert len(records) == 2 and "caf\\xe9.pt" in records[0]["players"]
    json.dumps(records[0], ensure_ascii=False).encode("utf-8")  # what --record writes


def test_train_run_files_for_an_init_checkpoint_whose_file_name_is_not_utf8(tmp_path, monkeypatch):
    """``train.py --init-from caf?.pt`` (a Latin-1 file name, lone surrogates in Python) died in TensorBoard's
    add_text of the hyperparameters (``surrogates not allowed``) before training; args.json could not be written
    either. Both show the path with ``\\xe9`` escapes."""
    train = _train()
    from agents.training_run import RunLog

    monkeypatch.chdir(tmp_path)
    log = RunLog(train.Args(exp_name="lat", init_from=os.fsdecode(b"caf\xe9.pt")), 1)
    log.writer.close()
    log.csv_file.close()
    assert json.loads((tmp_path / "runs" / "lat" / "args.json").read_text(encoding="utf-8"))["init_from"] == "caf\\xe9.pt"


def test_curve_of_a_run_directory_whose_name_is_not_utf8(tmp_path):
    """``python -m agents.curve d?/progress.csv`` labels the curve by the run's directory; one whose name is not
    UTF-8 (lone surrogates) crashed matplotlib's text layout. The label has ``\\xe9`` escapes."""
    pytest.importorskip("matplotlib")  # the plot extra
    from agents import curve

    d = tmp_path / os.fsdecode(b"d\xe9")
    d.mkdir()
    (d / "progress.csv").write_text("update,global_step,seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n"
                                    "1,100,60,-0.5,-0.7,-0.3\n2,200,120,0.1,-0.1,0.3\n", encoding="utf-8")
    curve.plot([d / "progress.csv"], str(tmp_path / "c.png"))
    curve.plot([d / "progress.csv"], str(tmp_path / "c.png"), labels=[d.name], title=d.name)
    assert (tmp_path / "c.png").stat().st_size > 0


def test_tables_cli_on_an_ascii_stdout_with_a_cache_path_that_is_not_ascii(tmp_path, monkeypatch):
    """``python -m mj_env.tables`` prints the cache's path: under a home such as ``C:\\Users\\张三`` and an ASCII or
    cp1252 standard output it died in a UnicodeEncodeError (it was the one command line without guard_output)."""
    from mj_env import tables

    cache = tmp_path / "缓存.npz"
    cache.write_bytes(b"x")
    monkeypatch.setattr(tables, "load", lambda **kw: cache)
    raw = _ascii_std_streams(monkeypatch)
    guard_output("python -m mj_env.tables")  # (as its __main__ does)
    assert tables.main([]) == 0
    sys.stdout.flush()
    assert "\\u7f13\\u5b58.npz" in raw.getvalue().decode("ascii")


def test_the_torchrl_example_on_an_ascii_stdout(monkeypatch):
    """examples/torchrl_ppo.py (and tianshou_pettingzoo.py) print "+m ± se": where standard output is ASCII the
    run died at its first report in a UnicodeEncodeError. Run as a script, it calls guard_output first."""
    pytest.importorskip("torchrl")
    import runpy

    raw = _ascii_std_streams(monkeypatch)
    monkeypatch.setattr(sys, "argv", ["torchrl_ppo.py", "--tables", "8", "--frames", "64", "--iterations", "2",
                                      "--epochs", "1", "--hidden", "8", "--minibatch", "64"])
    runpy.run_path(str(ROOT / "examples" / "torchrl_ppo.py"), run_name="__main__")
    sys.stdout.flush()
    assert "\\xb1" in raw.getvalue().decode("ascii")  # a hand ended in 2 x 8 x 64 decisions


def test_every_example_guards_its_output_when_run():
    """Every example calls guard_output when run as a script: the trainers print "±", and duplicate_baseline.py
    prints its --agent, which may be a checkpoint named in any script (a review found it without)."""
    for path in sorted((ROOT / "examples").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "guard_output(" in text.split('if __name__ == "__main__":')[-1], path.name
