"""Small leftovers outside train.py, mended: benchmarks/win_checks.py stores the machine as every other benchmark
does (``_common.machine_info``), benchmarks/throughput.py tells its --json and --plot apart by device and inode as
the arena tells its outputs apart (a hard link of the JSON was overwritten by the plot), ``save_checkpoint`` refuses
the meta keys that ``load_checkpoint`` fills from the file (they were lost without a word), and the --help of
agents.search and agents.rollouts gives --rules' default once."""
from __future__ import annotations

import importlib
import json
import os

import _common
import pytest
import win_checks

# --------------------------------------------------------------------------- win_checks.py's machine


def test_win_checks_stores_the_machine_every_benchmark_stores(monkeypatch):
    """win_checks.py built its own machine description (no cores, no memory_gib; cpu_count instead of cores):
    its JSON could not be read as the other benchmarks' are. It is ``_common.machine_info()`` now, with its own
    blas_threads and the cpu_count its JSON gave before (tests/test_hand.py reads it)."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    shared, mine = _common.machine_info(), win_checks.machine()
    assert set(shared) <= set(mine)
    for key in ("cpu", "cores", "memory_gib", "python", "numpy", "platform"):
        assert mine[key] == shared[key], key
    assert mine["cpu_count"] == mine["cores"] == os.cpu_count() and mine["blas_threads"] == 2


def test_win_checks_prints_the_shared_machine_line(tmp_path, capsys):
    args = win_checks._parse_args(["--seconds", "0.001", "--batch-sizes", "2", "--checks", "is_win",
                                   "--no-reference", "--json", str(tmp_path / "w.json")])
    assert win_checks.main(args) == 0
    first = capsys.readouterr().out.splitlines()[0]
    machine = json.loads((tmp_path / "w.json").read_text())["machine"]
    assert first.startswith(_common.machine_line(machine)) and first.endswith("BLAS threads 1")


# --------------------------------------------------------------------------- throughput.py's two outputs


def _throughput_refuses(argv, capsys) -> str:
    throughput = importlib.import_module("throughput")
    with pytest.raises(SystemExit) as e:
        throughput.parse_args(argv)
    assert e.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("how", ["hard link", "symbolic link"])
def test_throughput_refuses_a_plot_that_is_the_json_under_another_name(how, tmp_path, capsys):
    """``--json r.json --plot r.png`` with r.png a hard link of r.json: the names resolve apart, so the plot was
    drawn over the JSON just written. Compared by device and inode now, as agents.arena compares its outputs."""
    pytest.importorskip("matplotlib")  # the plot extra: --plot is refused without it, before this check
    out = tmp_path / "r.json"
    out.write_text("{}\n")
    other = tmp_path / "r.png"
    (os.link if how == "hard link" else os.symlink)(out, other)
    err = _throughput_refuses(["--json", str(out), "--plot", str(other)], capsys)
    assert "--json and --plot name the same file" in err


def test_throughput_takes_two_files_that_differ(tmp_path):
    pytest.importorskip("matplotlib")
    throughput = importlib.import_module("throughput")
    (tmp_path / "r.json").write_text("{}\n")
    (tmp_path / "r.png").write_text("")
    args = throughput.parse_args(["--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png")])
    assert args.json.endswith("r.json") and args.plot.endswith("r.png")


# --------------------------------------------------------------------------- checkpoint meta keys










# --------------------------------------------------------------------------- --help








