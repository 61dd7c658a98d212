"""Gaps found by mutating the command line of agents/arena.py (``main``) and its loading of agents
(``_check_specs``, ``load_agents``, ``file_key``, ``player_files``, ``loading_agents``, ``tell_warning``): a
seeded run of every single-node AST mutant on those lines, against the tests that name the arena. Each test here
failed under the mutant named in its docstring and passes on the code; the expectations come from the module's
docstrings, its ``--help`` and the README's arena section."""
from __future__ import annotations

import json

import pytest

from agents import arena
from agents.arena import load_agents, main
from mj_env.rules import get_rules


@pytest.mark.parametrize("specs", [{"rule", "random"}, {"rule": 1, "random": 2}, iter(["rule", "random"])])
def test_load_agents_takes_a_list_or_tuple_of_names_and_nothing_else(specs):
    """_check_specs with ``or not isinstance(specs, (list, tuple))`` dropped or made ``and``: a set (whose order,
    and with it which agent is which, is not the caller's), a dict or an iterator was taken for the list of names."""
    with pytest.raises(TypeError, match="specs must be a list of agent names"):
        load_agents(specs)


def test_the_command_line_runs_torch_on_one_thread_once_a_network_is_loaded(monkeypatch, tmp_path):
    """one_torch_thread (loading_agents, before) with ``if torch is None`` forced True, or
    ``set_num_threads(1)`` made 0 or 2: the docstring's one thread (batches of a few hundred rows gain
    nothing from more) was not set.
    The count before is put back after the play (tests/test_process_global_state.py)."""
    torch = pytest.importorskip("torch")
    threads = []
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    assert main(["--agents", "pretrained,rule", "--hands", "1", "--quiet", "--json", str(tmp_path / "r.json")]) == 0
    assert threads == [1, torch.get_num_threads()]


def test_agents_is_a_required_flag_a_usage_error_without_it(capsys):
    """main's ``required=True`` of --agents made False: a command line without it was a traceback (``None.split``)
    instead of argparse's usage error, exit status 2."""
    with pytest.raises(SystemExit) as e:
        main(["--hands", "1", "--quiet"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "the following arguments are required: --agents" in err and "Traceback" not in err


def test_the_command_lines_defaults_are_the_documented_ones(monkeypatch, capsys):
    """main's defaults made one more or less: ``--hands`` 400 and ``--seed`` 0 (its help, and the README's
    ``--hands 400 --seed 0`` commands, which the defaults repeat); --rules beijing, --device cpu, no outputs."""
    seen = []

    def check_args(args):
        seen.append(vars(args).copy())
        raise ValueError("stop here")

    monkeypatch.setattr(arena, "check_args", check_args)
    with pytest.raises(SystemExit):
        main(["--agents", "rule,random"])
    capsys.readouterr()
    assert seen[0].pop("rules") == get_rules("beijing")  # (read by --rules' type, the default too)
    assert seen == [{"agents": "rule,random", "hands": 400, "seed": 0, "batch": 128,
                     "device": "cpu", "json": None, "plot": None, "record": None, "common_random": False,
                     "quiet": False}]


def test_the_progress_bar_is_shown_unless_quiet(capsys):
    """main's ``progress=not args.quiet`` with ``not`` dropped: --quiet drew the bar and a plain run had none."""
    pytest.importorskip("tqdm")
    assert main(["--agents", "rule,random", "--hands", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["--agents", "rule,random", "--hands", "1"]) == 0
    err = capsys.readouterr().err
    assert "arena" in err and "1/1" in err


def test_the_json_holds_the_runs_seconds_rounded_to_hundredths(monkeypatch, tmp_path, capsys):
    """main's ``round(time.perf_counter() - t0, 2)`` with ``-`` made ``+`` or 2 made 1 or 3: the --json file's
    ``seconds`` was not the run's wall time in hundredths of a second."""
    clock = iter([100.0])
    monkeypatch.setattr(arena.time, "perf_counter", lambda: next(clock, 101.23456))
    out = tmp_path / "r.json"
    assert main(["--agents", "rule,random", "--hands", "1", "--quiet", "--json", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["seconds"] == 1.23


def test_a_plain_user_warning_while_loading_is_shown_as_python_shows_it_not_as_a_checkpoints(capsys, monkeypatch):
    """tell_warning with ``issubclass(w.category, checkpoints.CheckpointWarning)``'s arguments swapped: once a
    checkpoint module was imported, any UserWarning (CheckpointWarning's base: torch's own, say) raised while
    loading was told as a ``warning:`` line about a checkpoint, and not shown as Python shows it."""
    pytest.importorskip("torch")
    import warnings

    import agents.checkpoints  # noqa: F401 (imported, as a network agent's loading imports it)
    from agents import RandomAgent, RuleBasedAgent

    def load(specs, rules, device):
        warnings.warn("something else", UserWarning, stacklevel=1)
        return [RuleBasedAgent(), RandomAgent()]

    monkeypatch.setattr(arena, "load_agents", load)
    with pytest.warns(UserWarning, match="something else"):
        assert main(["--agents", "rule,random", "--hands", "1", "--quiet"]) == 0
    assert "warning: something else" not in capsys.readouterr().err


class _FailingRecords:
    """A --record file whose write (``fail="write"``) or closing flush (``fail="close"``) raises ``error``."""

    def __init__(self, error: OSError, fail: str):
        self.error, self.fail, self.closed, self.written = error, fail, False, []

    def write(self, text):
        if self.fail == "write":
            raise self.error
        self.written.append(text)

    def close(self):
        if not self.closed:
            self.closed = True
            if self.fail == "close":
                raise self.error


@pytest.mark.parametrize("fail", ["write", "close"])
@pytest.mark.parametrize("error, told", [(OSError(28, "No space left on device"), "No space left on device"),
                                         (OSError("quota exceeded"), "quota exceeded")])
def test_a_record_write_that_fails_stops_the_run_in_one_line_exit_1(fail, error, told, monkeypatch, tmp_path,
                                                                      capsys):
    """main's write_records (and the closing flush) with its ``raise _RecordWriteError(...)`` removed, or
    ``e.strerror or str(e)`` made ``and``, or either operand dropped: a batch that could not be written was
    skipped and the run ended 0 with records missing, or the line said ``[Errno 28] ...`` or ``None``, not why."""
    records = _FailingRecords(error, fail)
    monkeypatch.setattr(arena, "open_records", lambda path: records)
    out = tmp_path / "r.json"
    argv = ["--agents", "rule,random", "--hands", "3", "--batch", "1", "--quiet", "--record", str(tmp_path / "h"),
            "--json", str(out)]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err == f"python -m agents.arena: cannot write {tmp_path / 'h'}: {told}\n"
    assert captured.out == "" and not out.exists() and records.closed  # no summary, the file closed
    assert len(records.written) == (0 if fail == "write" else 3)


@pytest.mark.parametrize("stop", [KeyboardInterrupt, "agent error"])
def test_a_run_stopped_mid_way_closes_its_record_file_before_it_returns(stop, monkeypatch, tmp_path, capsys):
    """main's ``finally`` with ``record_file.close()`` removed, or ``not record_file.closed`` made
    ``record_file.closed``: a run stopped by Ctrl-C (exit 130) or by an agent's error (exit 1) returned with its
    --record file still open, the batches written so far left in its buffer until the object was collected."""
    from mj_env.baselines import AgentError

    opened = []
    real_open, real_compare = arena.open_records, arena.compare

    def open_records(path):
        opened.append(real_open(path))
        return opened[-1]

    def stopped_after_the_first_batch(*a, records=None, **k):
        def write(batch):
            records(batch)
            raise KeyboardInterrupt if stop is KeyboardInterrupt else AgentError("agent 'x' failed")
        return real_compare(*a, records=write, **k)

    monkeypatch.setattr(arena, "open_records", open_records)
    monkeypatch.setattr(arena, "compare", stopped_after_the_first_batch)
    out = tmp_path / "hands.jsonl"
    status = main(["--agents", "rule,random", "--hands", "4", "--batch", "2", "--quiet", "--record", str(out)])
    assert status == (130 if stop is KeyboardInterrupt else 1)
    capsys.readouterr()
    assert opened[0].closed and len(out.read_text().splitlines()) == 4  # the first batch: 2 walls x 2 seatings


def test_a_plot_that_cannot_be_written_is_named_in_one_line_exit_1(monkeypatch, tmp_path, capsys):
    """main with ``target = args.plot`` removed: a --plot that failed to be written (a full disk) was told as the
    --json file's failure, which had been written."""
    pytest.importorskip("matplotlib")

    def full(summary, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(arena, "plot", full)
    out, chart = tmp_path / "r.json", tmp_path / "r.png"
    assert main(["--agents", "rule,random", "--hands", "1", "--quiet", "--json", str(out), "--plot", str(chart)]) == 1
    assert capsys.readouterr().err == f"python -m agents.arena: cannot write {chart}: No space left on device\n"
    assert json.loads(out.read_text())["walls"] == 1


def test_the_note_of_a_checkpoint_of_other_rules_is_said_whatever_pythons_warning_filters(capsys):
    """loading_agents with ``warnings.simplefilter("always", RulesMismatchWarning)`` removed: under a filter that
    ignores UserWarnings (``-W ignore::UserWarning``) the run no longer said that it plays a checkpoint under other
    rules (the README's "the run says so"); only other warnings are left to the filters in force."""
    import warnings
    from pathlib import Path

    pytest.importorskip("torch")
    ckpt = Path(arena.__file__).resolve().parent / "data" / "pretrained_beijing.pt"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        assert main(["--agents", f"{ckpt},rule", "--hands", "1", "--rules", "quemen", "--quiet"]) == 0
    assert f"note: {ckpt} was trained for rule set 'beijing' and plays under 'quemen'\n" in capsys.readouterr().err
