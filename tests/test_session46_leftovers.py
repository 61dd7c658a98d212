"""Small leftovers from the last note: durations on a clock that does not jump, play's --record lines, the
throughput plot's own Figure, records' broken-pipe guard, other threads' warnings during a checkpoint load."""
import ast
from pathlib import Path

import pytest
from test_process_global_state import users_pyplot  # noqa: F401  (the fixture: a user's pyplot on svg)

ROOT = Path(__file__).resolve().parent.parent


def _wall_clock_calls(path):
    """Lines of ``path`` that call ``time.time()`` (or a bare ``time()`` imported from ``time``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bare = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "time"
            for a in n.names if a.name == "time"}
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr == "time" and isinstance(f.value, ast.Name)
                and f.value.id == "time") or (isinstance(f, ast.Name) and f.id in bare):
            lines.append(node.lineno)
    return lines


def test_durations_are_not_timed_on_the_wall_clock():
    """Printed rates and seconds use time.perf_counter or time.monotonic: the wall clock can be stepped back or
    forward mid-run (NTP, a suspended laptop). The one wall-clock reading left is mj_env/tables.py's stale-file
    cutoff, which compares against file modification times and so must be the wall clock."""
    files = [ROOT / "train.py"] + [p for d in ("examples", "agents", "benchmarks", "mj_env")
                                   for p in sorted((ROOT / d).rglob("*.py"))]
    found = {str(p.relative_to(ROOT)): ls for p in files if (ls := _wall_clock_calls(p))}
    allowed = {"mj_env/tables.py"}
    assert {k: v for k, v in found.items() if k not in allowed} == {}
    assert len(found.get("mj_env/tables.py", [])) == 1


def test_play_record_is_one_line_per_hand_for_every_line_splitter(tmp_path, monkeypatch):
    """agents.play --record writes JSON Lines with mj_env.lines.json_line, as agents.arena --record and
    ``python -m mj_env.score`` do: U+2028, U+2029 and U+0085 inside a string are written as \\u escapes, so that
    str.splitlines keeps one hand record per line. Today play's player names reach the record through
    ``printable`` (already escaped), so the test lets a name through raw to reach the writer (a rule agent
    under a checkpoint-like name); with a bare
    ``json.dumps(..., ensure_ascii=False)`` the record was cut in three."""
    import io
    import json

    from agents import play

    monkeypatch.setattr(play, "printable", lambda text: text)
    made = play.make_agent
    monkeypatch.setattr(play, "make_agent", lambda spec, rules: made("rule", rules=rules))  # (a checkpoint's path)
    name = "x\u2028y\u2029z\x85w"
    out = tmp_path / "r.jsonl"
    rc = play.main(["--opponents", f"rule,random,{name}", "--seed", "1", "--record", str(out)],
                   input_fn=lambda prompt: "1", out=io.StringIO())
    assert rc == 0
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) == text.count("\n") == 1
    assert json.loads(lines[0])["players"][3] == name


def test_the_throughput_plot_leaves_the_users_matplotlib_backend_and_figures_alone(users_pyplot, tmp_path):  # noqa: F811
    """benchmarks/throughput.py's ``plot`` called ``matplotlib.use("Agg")`` and drew with pyplot; it draws on a
    ``Figure`` of its own now, as agents.arena_report.plot and agents.curve.plot do (686c8d5): a process that
    calls it keeps its backend, open figures and current figure. (The PNG is byte for byte the one pyplot drew.)"""
    import matplotlib
    import throughput

    plt, fig = users_pyplot
    row = {"impl": "vector", "batch": 1, "steps_per_sec": 10.0, "env_only_steps_per_sec": 12.0, "cpu_util": 1.0}
    machine = {"cpu": "cpu", "cores": 2, "date": "2026-12-07T00:00:00"}
    throughput.plot([row], str(tmp_path / "t.png"), machine, "beijing")
    assert matplotlib.get_backend() == "svg"
    assert plt.get_fignums() == [fig.number] and plt.gcf() is fig
    assert (tmp_path / "t.png").stat().st_size > 0


class _ReaderGone:
    """A standard output whose reader has gone away: every write and flush is a broken pipe."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_records_main_called_from_python_leaves_the_callers_stdout_alone(tmp_path, monkeypatch):
    """``mj_env.records.main(argv)`` called in a user's process whose standard output breaks mid ``--show``
    returned 0 having set ``sys.stdout = open(os.devnull, "w")`` for good: the caller's stdout was gone for the
    rest of the process. ``python -m mj_env.records`` has guard_output under __main__ for that (0e09e69); main
    now just stops, exit 0, and leaves sys.stdout as it found it."""
    import json
    import sys

    from test_records import _played

    from mj_env import records

    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(_played()[1]) + "\n", encoding="utf-8")
    broken = _ReaderGone()
    monkeypatch.setattr(sys, "stdout", broken)
    assert records.main([str(path), "--show", "0"]) == 0
    assert sys.stdout is broken


def test_a_warning_of_another_thread_during_a_checkpoint_load_is_not_lost(monkeypatch):
    """Checkpoints were read inside ``warnings.catch_warnings()`` with ``simplefilter("ignore")``; the filter list
    is the process's one (Python before 3.14), so for as long as torch.load ran, a warning raised by any other
    thread was dropped, whatever its category or the filters the user had set. The load is made to wait here until
    the other thread has warned."""
    import threading
    import warnings

    torch = pytest.importorskip("torch")

    from agents import checkpoints
    from agents.pretrained import pretrained_path

    real, loading, warned = torch.load, threading.Event(), threading.Event()

    def waiting_load(*a, **k):
        loading.set()
        warned.wait(5)
        return real(*a, **k)

    def other_thread():
        loading.wait(5)
        warnings.warn("the other thread's warning", UserWarning, stacklevel=1)
        warned.set()

    monkeypatch.setattr(torch, "load", waiting_load)
    with warnings.catch_warnings(record=True) as shown:  # (the test's own: the filters after it are kept)
        warnings.simplefilter("always")
        other = threading.Thread(target=other_thread)
        other.start()
        checkpoints.load_checkpoint(pretrained_path("beijing"))
        other.join()
    assert [str(w.message) for w in shown] == ["the other thread's warning"]
