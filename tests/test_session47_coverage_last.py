"""Lines a branch-coverage run of the default suite never ran, each now checked by its result.

agents/checkpoints.py's pickle-depth scanner (``_Depth``), which refuses a checkpoint whose pickle nests values
more than ``_DEEPEST`` deep before torch.load reads it (docs/INTERFACES.md: nothing from outside, a checkpoint
included, may crash a process or run code; a tuple a million deep ended torch.load with a segmentation fault).
The depth it reports is checked against the true nesting of the unpickled value, found by a plain walk of it
(``true_depth``: 0 for a scalar or an empty container, one more than its deepest item for any other), on
pickles of every protocol and on pickles built by hand for the opcodes pickle.dumps never writes (DUP, a MARK
with no items, POP_MARK, a memo get of a key never put). Also ``_read``'s answer for a file that changes
between its checks.
"""
from __future__ import annotations

import errno
import os
import pickle
import pickletools
import struct
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import test_checkpoints
from test_checkpoints import refused
from test_checkpoints_training_checks_second_mutants import _with_pickle

from agents.checkpoints import _DEEPEST, CHECKPOINT_FORMAT, CheckpointError, _Depth, load_checkpoint

saved = test_checkpoints.saved  # the fixture: a small checkpoint saved in tmp_path


def true_depth(value) -> int:
    """How deep ``value`` nests, by a walk with a stack of its own (no recursion: deep values are fine):
    0 for a scalar or an empty container, 1 + the deepest item for a tuple, list, set, frozenset or dict
    (its keys and values)."""
    depth: dict[int, int] = {}
    todo = [(value, False)]
    while todo:
        v, done = todo.pop()
        items = (list(v) + list(v.values()) if isinstance(v, dict)
                 else list(v) if isinstance(v, (tuple, list, set, frozenset)) else [])
        if done:
            depth[id(v)] = 1 + max(depth[id(i)] for i in items) if items else 0
        elif id(v) not in depth:
            todo.append((v, True))
            todo.extend((i, False) for i in items if id(i) not in depth)
    return depth[id(value)]


def scanned(data: bytes) -> int:
    """The deepest the scanner finds ``data``'s values, as agents/checkpoints.py's ``_pickle_problem`` runs it."""
    scan = _Depth()
    return max((scan.step(op, arg) for op, arg, _ in pickletools.genops(data)), default=0)


def _chain(levels: int):
    v: object = 1
    for _ in range(levels):
        v = (v,)
    return v


_SHARED = ([1, (2,)], {"a": [[3]]})
VALUES = {
    "tuples": ((1, (2, (3, ()))), ()),
    "lists": [[], [[[]]], [1, [2, [3, [4]]]]],
    "dict": {"k": {"j": [1, {"i": (2,)}]}, (1, (2,)): 0},
    "shared": [_SHARED, [_SHARED, [_SHARED]]],  # written once, then got from the memo
    "empties": [(), [], {}, [()], ((),)],
    "chain": _chain(40),
}


@pytest.mark.parametrize("protocol", range(6))
@pytest.mark.parametrize("name", sorted(VALUES))
def test_the_scanner_reports_the_true_nesting_of_what_pickle_writes(protocol, name):
    # protocols 0 and 1 build with MARK ... TUPLE / LIST / DICT and the text PUT/GET, 2 and 3 with BINPUT,
    # 4 and 5 with MEMOIZE in frames
    data = pickle.dumps(VALUES[name], protocol=protocol)
    assert scanned(data) == true_depth(pickle.loads(data)) == true_depth(VALUES[name])


def test_sets_and_frozensets_are_counted_at_least_as_deep_as_they_nest():
    # protocol 4 adds set items with ADDITEMS and builds a frozenset with FROZENSET; before, both are a call
    # of the type on a list (REDUCE), counted one or two levels deeper, which is on the safe side
    value = [{1, 2}, frozenset({frozenset({(1,)})})]
    for protocol in range(6):
        data = pickle.dumps(value, protocol=protocol)
        assert scanned(data) >= true_depth(pickle.loads(data)) == 4
        if protocol >= 4:
            assert scanned(data) == 4


def _x3() -> bytes:
    return b"K\x01\x85\x85\x85"  # ((( 1, ), ), ): 3 deep


HAND_BUILT = {
    # DUP: the copy is the same value, as deep; here the copy alone is wrapped again: (X, (X,)), X 3 deep
    "dup": _x3() + b"2\x85\x86.",
    # a MARK with no items above it: an empty tuple, list and dict
    "empty marks": b"(t(l(d\x87.",
    # marks within marks: (1, [2, (3,)], 4)
    "nested marks": b"(K\x01(K\x02(K\x03tlK\x04t.",
    # APPENDS and SETITEMS after nested marks: [1, (2, [3])] and {"a": (1, (2,))}
    "appends": b"](K\x01(K\x02(K\x03lte}(X\x01\x00\x00\x00a(K\x01(K\x02ttu\x86.",
    # POP_MARK drops the items above the mark and the mark: what is left under it is wrapped on
    "pop mark": _x3() + b"(K\x01K\x02" + b"(K\x03t1" + b"\x85.",
}


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_the_scanner_reports_the_true_nesting_of_opcodes_pickle_dumps_never_writes(name):
    data = HAND_BUILT[name]
    assert scanned(data) == true_depth(pickle.loads(data))


def test_a_memo_get_of_a_key_never_put_counts_as_nothing_and_such_a_checkpoint_is_refused(saved, tmp_path):
    data = b"\x80\x02}h\x07K\x01s."  # {<memo 7>: 1}: the unpickler has no memo 7
    with pytest.raises((KeyError, pickle.UnpicklingError)):
        pickle.loads(data)
    assert scanned(data) == 1
    refused(_with_pickle(saved[1], tmp_path, data), "not a checkpoint that loads with torch.load")


_PUT_GET = {  # how a value is stored in the memo (key 0) and got back, in each protocol's opcodes
    "PUT/GET": (b"p0\n", b"g0\n"),
    "BINPUT/BINGET": (b"q\x00", b"h\x00"),
    "LONG_BINPUT/LONG_BINGET": (b"r" + struct.pack("<I", 0), b"j" + struct.pack("<I", 0)),
    "MEMOIZE/BINGET": (b"\x94", b"h\x00"),
}


def _memo_deep(first: int, then: int, put_get: tuple[bytes, bytes]) -> bytes:
    """{(T, T'): 1}: T a tuple ``first`` deep, kept in the memo; T' the memo's T got back and wrapped ``then``
    more times (so the key nests 1 + first + then deep, the dict one more)."""
    put, get = put_get
    return (b"\x80\x04}N" + b"\x85" * first + put + get + b"\x85" * then + b"\x86K\x01s.")


@pytest.mark.parametrize("how", sorted(_PUT_GET))
def test_a_value_got_from_the_memo_keeps_its_depth(how):
    data = _memo_deep(30, 20, _PUT_GET[how])
    assert scanned(data) == true_depth(pickle.loads(data)) == 52


@pytest.mark.parametrize("how", sorted(_PUT_GET))
def test_a_pickle_nested_too_deep_through_the_memo_is_refused_naming_the_file(saved, tmp_path, how):
    # neither half alone is past the limit: only the memo's depth carries the first on to the second
    half = _DEEPEST // 2 + 10
    too_deep = _with_pickle(saved[1], tmp_path, _memo_deep(half, half, _PUT_GET[how]))
    refused(too_deep, f"nests values more than {_DEEPEST:,} deep")
    # as deep, less 30: past the scanner to torch.load, which reads it (a dict, not a checkpoint dict), or
    # refuses the opcodes it does not take (PUT, MEMOIZE)
    fine = _with_pickle(saved[1], tmp_path, _memo_deep(half - 30, half, _PUT_GET[how]))
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(fine)
    said = str(info.value)
    assert said == (f"{fine}: not a policy checkpoint of format {CHECKPOINT_FORMAT} (its format: None)"
                    if "BINPUT" in how else f"{fine}: not a checkpoint that loads with torch.load"
                    f"(weights_only=True), which reads only tensors and plain data (UnpicklingError: "
                    f"Unsupported operand {(_PUT_GET[how][0][0])})"), said


# --------------------------------------------------------------------------- _read: a file that changes


@pytest.mark.parametrize("error, said", [(OSError(errno.EACCES, "Permission denied"), "Permission denied"),
                                         (OSError("no errno"), "OSError")])
def test_a_file_that_changes_between_reads_checks_is_one_checkpoint_error(saved, monkeypatch, error, said):
    # path_problem found the file fine; then it was replaced or its folder's permissions changed before
    # _read's own look at its size (the same would happen between any two of its checks)
    # (exists and is_file answer as before the change: whether they call Path.stat varies with the version)
    path = saved[1]
    real = {name: getattr(Path, name) for name in ("stat", "exists", "is_file")}

    def patched(name):
        def call(self, *args, **kwargs):
            if self != path:
                return real[name](self, *args, **kwargs)
            if name == "stat":
                raise error
            return True
        return call

    for name in real:
        monkeypatch.setattr(Path, name, patched(name))
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    assert str(info.value) == f"{path}: {said}"


_ALIASED = r'''
import struct, sys, zipfile
from agents.checkpoints import load_checkpoint, save_checkpoint
from agents.networks import PolicyValueNet
n, folder = int(sys.argv[1]), sys.argv[2]
base = save_checkpoint(folder + "/base.pt", PolicyValueNet(hidden=(8,)), rules="beijing", x="MARKERMARKER")
put = lambda i: b"r" + struct.pack("<I", i)
get = lambda i: b"j" + struct.pack("<I", i)
# J = [l0, ..., ln] (each empty when the memo keeps it), then l1.append(l0), J.append(l1), l2.append(l1) ...
chain = b"]" + b"".join(b"]" + put(i) + b"a" for i in range(n + 1))
chain += b"".join(get(i + 1) + get(i) + b"aa" for i in range(n))
with zipfile.ZipFile(base) as src, zipfile.ZipFile(folder + "/aliased.pt", "w") as dst:
    for info in src.infolist():
        data = src.read(info.filename)
        if info.filename.endswith("/data.pkl"):
            data = data.replace(b"X" + struct.pack("<I", 12) + b"MARKERMARKER", chain)
        dst.writestr(info.filename, data)
x = load_checkpoint(folder + "/aliased.pt")[1]["x"]
depth = 0
while x:
    x, depth = x[-1], depth + 1
print(depth)
try:
    repr(load_checkpoint(folder + "/aliased.pt")[1])
except RecursionError:
    print("RecursionError")
'''


@pytest.mark.slow
def test_lists_nested_through_the_memo_after_it_kept_them_load_without_ending_the_process(tmp_path):
    # the scanner follows the depth a value had when the memo kept it: lists filled after that (l1.append(l0),
    # l2.append(l1), ... each got from the memo while empty) nest a million deep in meta while it counts a few levels.
    # Only lists and dicts can be filled so, and Python guards its recursion through them (repr raises
    # RecursionError) and frees them without recursing; the tuples whose hash recursed in C until the process
    # ended (test_hostile_input_cost.py) are made of finished items, counted exactly above. About 40 s here
    import subprocess
    import sys
    root = str(Path(__file__).resolve().parent.parent)
    run = subprocess.run([sys.executable, "-c", _ALIASED, "1000000", str(tmp_path)], capture_output=True, text=True,
                         timeout=300, cwd=root, check=False)
    assert run.returncode == 0, (run.returncode, run.stderr[-300:])
    assert run.stdout.split() == ["1000001", "RecursionError"], run.stdout


# --------------------------------------------------------------------------- agents/training_run.py


def test_a_ctrl_c_that_write_raises_itself_goes_on_and_write_is_not_run_again():
    # written_whole runs write() again only where a Ctrl-C came before its block took over; one raised inside
    # write (no file written) is the caller's
    pytest.importorskip("tensorboard")
    from agents.training_run import written_whole
    calls = []

    def write():
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt("from write")
        return "written"

    with pytest.raises(KeyboardInterrupt, match="from write"):
        written_whole(write)
    assert calls == [1]


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files in /proc (Linux)")
@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()])
def test_a_run_log_that_fails_while_opening_its_files_closes_them_and_lets_its_directory_go(
        tmp_path, monkeypatch, error):
    # a full disk or a Ctrl-C while RunLog opens TensorBoard's writer, progress.csv and the bar: the error goes
    # on, no file stays open and the run directory is not left locked ("still running" to --overwrite)
    pytest.importorskip("tensorboard")
    import dataclasses

    from agents import training_run

    @dataclasses.dataclass
    class Args:
        exp_name: str = "failing"
        overwrite: bool = False
        progress: bool = False

    def bar(*args, **kwargs):
        raise error

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(training_run, "tqdm", bar)
    before = _open_fds()
    with pytest.raises(type(error)):
        training_run.RunLog(Args(), num_updates=3)
    assert _open_fds() == before
    run = tmp_path / "runs" / "failing"
    assert (run / "progress.csv").is_file() and (run / "args.json").is_file()  # (it got as far as the bar)
    assert training_run.run_in_use(run) is None


# --------------------------------------------------------------------------- agents/rollouts.py


def test_the_rollouts_command_prints_a_row_per_kind_of_choice_with_enough_positions(monkeypatch, capsys):
    # a second of labelling never gives 100 positions of one kind (the default tests' case: "none has 100 yet");
    # here labelled_play gives 150 claims the rule agent passed with a pong as the alternative (2 of 3 better),
    # both rolled out, two positions a hand
    pytest.importorskip("scipy")
    import numpy as np

    from agents import rollouts as R
    from mj_env import actions as A
    n = 150
    got = {"table": np.zeros(n, dtype=np.int64), "candidates": np.tile([A.PASS, A.PONG], (n, 1)),
           "q": np.stack([np.zeros(n), np.tile([1.0, 1.0, -1.0], n // 3)], axis=1), "hand": np.arange(n) // 2}
    monkeypatch.setattr(R, "labelled_play", lambda *args: iter([got]))
    assert R.main(["--seconds", "1", "--tables", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("150 positions with a choice, 300 rollouts in ")
    (row,) = R.deviation_table(got["candidates"], got["q"], hands=got["hand"])
    lo, hi = row["ci95"]
    assert lo < 1 / 3 < hi
    assert lines[2].split() == ["pass", "pong", "1", "150", "+0.333", f"[{lo:+.3f},", f"{hi:+.3f}]", "67%"]
    # under the header's columns, each right-aligned to its title's end (the interval and the share ended 2
    # and 3 columns short of "95% CI" and "better")
    assert len(lines[2]) == len(lines[1])
    assert lines[2].index(f"{hi:+.3f}]") + len(f"{hi:+.3f}]") == lines[1].index("95% CI") + len("95% CI")
    assert lines[3] == "(rows of fewer than 100 positions are left out)"


# --------------------------------------------------------------------------- agents/play.py: read_answer


def test_an_answer_in_bytes_standard_input_cannot_decode_is_read_as_escapes(monkeypatch, capsys):
    # PYTHONIOENCODING=ascii and an é typed: the answer holds an escape (which no answer names) rather than
    # raising UnicodeDecodeError; the prompt goes to standard output
    import io

    from agents.play import read_answer
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9\nd\n"), encoding="ascii"))
    assert read_answer("> ") == "caf\udce9"
    assert read_answer("> ") == "d"
    assert capsys.readouterr().out == "> > "


class _NoTerminal:
    """A stream of answers whose isatty is missing or fails (a test's stand-in, a closed stream)."""

    def __init__(self, text: str, isatty_error: type[Exception] | None) -> None:
        import io
        self._lines = io.StringIO(text)
        if isatty_error is not None:
            def isatty():
                raise isatty_error("closed")
            self.isatty = isatty

    def readline(self, size: int = -1) -> str:
        return self._lines.readline(size)


@pytest.mark.parametrize("isatty_error", [None, ValueError, OSError])
@pytest.mark.parametrize("stdout", ["kept", None])
def test_answers_from_a_stream_that_is_no_terminal_are_read_line_by_line(monkeypatch, capsys, isatty_error,
                                                                         stdout):
    # a stream without isatty, or whose isatty fails, is read as a pipe is (not by input()); with standard
    # output closed (Python makes it None) the prompt is not written and the answer is still read
    from agents.play import read_answer
    monkeypatch.setattr("sys.stdin", _NoTerminal("pong\n\n", isatty_error))
    if stdout is None:
        monkeypatch.setattr("sys.stdout", None)
    assert read_answer("> ") == "pong"
    assert read_answer("> ") == ""
    with pytest.raises(EOFError):
        read_answer("> ")
    if stdout is not None:
        assert capsys.readouterr().out == "> " * 3
