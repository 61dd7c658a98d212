"""Hostile-input audit: inputs that still escaped as unhelpful exceptions (an OSError from the file system, Python's
int-to-str limit, numpy's ambiguous truth value) instead of an error naming the argument."""
from __future__ import annotations

import numpy as np
import pytest
from unreadable import Unreadable

import mj_env
from mj_env import actions as A
from mj_env.engine import _STATE_FIELDS, Engine
from mj_env.rules import RuleError, get_rules

LONG = "a" * 300          # one path component longer than NAME_MAX (255): the OS answers ENAMETOOLONG
HUGE = 10**5000           # str() of it is refused by Python (more than 4,300 digits)


# ----------------------------------------------------------------- paths too long for the file system

@pytest.mark.parametrize("args", [
    ["--agents", f"{LONG},rule"],
    ["--agents", f"{LONG}.pt:greedy,rule"],
    ["--agents", "rule,random", "--json", LONG],
    ["--agents", "rule,random", "--record", LONG],
    ["--agents", "rule,random", "--plot", LONG + ".png"],
])
def test_arena_refuses_a_path_too_long_without_a_traceback(args, capsys):
    from agents.arena import main
    with pytest.raises(SystemExit) as exc:
        main(args + ["--hands", "1", "--quiet"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "python -m agents.arena: error: " in err
    assert args[-1].split(",")[0][:20] in err or args[1][:20] in err


def test_curve_refuses_an_output_path_too_long_without_a_traceback(tmp_path, capsys):
    pytest.importorskip("matplotlib")  # the plot extra: without it the curve refuses first
    from agents.curve import main
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "progress.csv"), "--out", str(tmp_path / (LONG + ".png"))])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err and "--out " in err and "File name too long" in err


def test_make_agent_refuses_a_path_too_long_with_a_value_error():
    from agents import make_agent
    with pytest.raises(ValueError, match="agent") as e:
        make_agent(LONG + ".pt")
    assert "File name too long" in str(e.value) and len(str(e.value)) < 250  # the path shown cut short


def _link_loop(tmp_path):
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    a.symlink_to(b)
    b.symlink_to(a)
    return str(a)


def test_make_agent_refuses_a_loop_of_links_and_a_nul_byte_with_a_value_error(tmp_path):
    """Path.resolve raises a RuntimeError on a loop of links (Python 3.11), Path.exists a bare ValueError on a
    NUL byte ("embedded null byte"): each is an error that names the agent and what is wrong."""
    from agents import make_agent
    with pytest.raises(ValueError, match="agent .*a loop of symbolic links"):
        make_agent(_link_loop(tmp_path))
    with pytest.raises(ValueError, match=r"agent .*'ck\\x00pt.pt': a path cannot hold a NUL byte"):
        make_agent("ck\0pt.pt")


def test_arena_refuses_a_loop_of_links_without_a_traceback(tmp_path, capsys):
    from agents.arena import main
    loop = _link_loop(tmp_path)
    for args in (["--agents", f"{loop},rule"], ["--agents", "rule,random", "--json", loop]):
        with pytest.raises(SystemExit) as exc:
            main(args + ["--hands", "1", "--quiet"])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "Traceback" not in err and "a loop of symbolic links" in err, err


def test_load_checkpoint_refuses_a_path_too_long_with_a_checkpoint_error():
    pytest.importorskip("torch")
    from agents.networks import CheckpointError, load_checkpoint
    with pytest.raises(CheckpointError, match="File name too long|too long"):
        load_checkpoint(LONG + ".pt")


# ----------------------------------------------------------------- rule fields

@pytest.mark.parametrize("field", ["reserve", "n_tiles", "hubao_claims", "self_draw_only_hui", "base",
                                   "hands_per_episode"])
def test_a_huge_integer_rule_field_is_a_rule_error_naming_it(field):
    with pytest.raises(RuleError) as e:
        get_rules("beijing", **{field: HUGE})
    assert field in str(e.value) and len(str(e.value)) < 200
    with pytest.raises(RuleError):  # the object form (a logged hand's rules) too
        get_rules({"name": "beijing", field: HUGE})


@pytest.mark.parametrize("field", ["dealer_rotation", "first_dealer", "wall_layout", "scoring", "name"])
@pytest.mark.parametrize("value", ["x" * 10_000, np.array(["next", "previous"]), ["next"]])
def test_a_bad_string_rule_field_is_a_short_rule_error(field, value):
    with pytest.raises(RuleError) as e:
        get_rules("beijing", **{field: value})
    assert field in str(e.value) and len(str(e.value)) < 300


def test_an_unknown_rule_field_name_is_quoted_briefly():
    with pytest.raises(RuleError) as e:
        get_rules("beijing", **{"w" * 10_000: 1})
    assert len(str(e.value)) < 300


# ----------------------------------------------------------------- huge integers and arrays in the APIs

def _state(eng):
    return {f: getattr(eng.state, f).copy() for f in _STATE_FIELDS}


@pytest.mark.parametrize("make, words", [
    (lambda: Engine(num_tables=HUGE), "num_tables"),
    (lambda: Engine(seed=-HUGE), "seed"),
    (lambda: A.name(HUGE), "action"),
    (lambda: A.name(-HUGE), "action"),
    (lambda: mj_env.env(illegal_action="penalize", illegal_penalty=HUGE), "illegal_penalty"),
    (lambda: mj_env.env(illegal_action=np.array(["raise", "penalize"])), "illegal_action"),
    (lambda: mj_env.env(render_mode=np.array(["ansi", "human"])), "render_mode"),
    (lambda: __import__("mj_env.vector", fromlist=["x"]).MahjongVectorEnv(num_envs=HUGE), "num_envs"),
    (lambda: __import__("mj_env.single_agent", fromlist=["x"]).MahjongSingleAgentVectorEnv(num_envs=1, seat=HUGE),
     "seat"),
    (lambda: __import__("mj_env.baselines", fromlist=["x"]).make_baseline(HUGE), "unknown baseline"),
    (lambda: __import__("mj_env.vector", fromlist=["x"]).MahjongVectorEnv(num_envs=1, autoreset_mode=HUGE),
     "autoreset_mode"),
])
def test_huge_integers_and_arrays_in_arguments_are_named(make, words):
    # ValueError only: a TypeError ("got an unexpected keyword argument 'num_envs'") also names the argument
    with pytest.raises(ValueError) as e:
        make()
    assert words in str(e.value) and len(str(e.value)) < 300


def test_engine_reset_with_a_huge_dealer_names_it_and_changes_nothing():
    eng = Engine(num_tables=2, seed=0)
    eng.reset()
    before = _state(eng)
    with pytest.raises(ValueError, match="dealer of table 0"):
        eng.reset(dealers=[HUGE, 0])
    assert all(np.array_equal(before[f], getattr(eng.state, f)) for f in _STATE_FIELDS)


@pytest.mark.parametrize("action, shown", [(HUGE, r"an integer of \d+ bits"), (-1, "-1"), (A.N_ACTIONS, str(A.N_ACTIONS))],
                         ids=["huge", "-1", "N_ACTIONS"])
def test_aec_step_outside_the_action_space_is_an_action_error_and_changes_nothing(action, shown):
    """A huge integer, and the action space's edges (from a mutation test: 127 reached the mask as an IndexError)."""
    env = mj_env.env()
    env.reset(seed=0)
    before = _state(env.unwrapped.engine)
    with pytest.raises(A.ActionError, match=rf"^player_0: action {shown} is not in the action space"):
        env.step(action)
    assert all(np.array_equal(before[f], getattr(env.unwrapped.engine.state, f)) for f in _STATE_FIELDS)
    assert A.one_action(A.N_ACTIONS - 1) == A.N_ACTIONS - 1


def test_arena_bounds_name_a_huge_integer():
    from agents import RandomAgent, RuleBasedAgent
    from agents.arena import play_duplicate
    for kw, words in (({"n_walls": HUGE}, "n_walls"), ({"n_walls": 1, "seed": HUGE}, "seed"),
                      ({"n_walls": 1, "batch_walls": HUGE}, "batch_walls")):
        with pytest.raises(ValueError) as e:
            play_duplicate([RuleBasedAgent(), RandomAgent()], **kw)
        assert words in str(e.value) and len(str(e.value)) < 300


# ----------------------------------------------------------------- the one helper every message uses

def test_messages_cut_any_value_short_and_never_fail():
    from mj_env.messages import brief, shown

    class Broken:
        def __repr__(self):
            raise RuntimeError("no repr")
        __str__ = __repr__

    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    for value in (HUGE, -HUGE, "x" * 10**6, deep, Broken(), np.zeros((300, 300)), {i: i for i in range(10**4)}):
        for f in (shown, brief):
            text = f(value)
            assert isinstance(text, str) and len(text) <= 60 and "\n" not in text, (f.__name__, text)
    assert shown(HUGE) == brief(HUGE) == f"an integer of {HUGE.bit_length()} bits"
    assert (shown("abc"), brief("abc"), shown(5), brief(5), brief(10**29)) == ("abc", "'abc'", "5", "5", str(10**29))
    assert brief("y" * 100) == "'" + "y" * 39 + "..." and shown("y" * 100) == "y" * 40


def test_messages_keep_their_cut_forms():
    """What the cut looks like (from an outside mutation test, each change unnoticed): a huge negative integer is
    described by its size, not "<a int>"; lists are cut three deep; an OrderedDict (a checkpoint's weights) is
    written as a dict cut at four items; a string keeps its line breaks for shown (callers quote it with !r);
    a repr of exactly the limit is kept whole, with no "..."."""
    from collections import OrderedDict

    from mj_env.messages import brief, shown

    assert shown(-HUGE) == brief(-HUGE) == f"an integer of {HUGE.bit_length()} bits"
    assert brief([[[[[1]]]]]) == "[[[[...]]]]"
    assert brief(OrderedDict((i, i) for i in range(10))) == "{0: 0, 1: 1, 2: 2, 3: 3, ...}"
    assert shown("a\nb") == "a\nb"
    assert brief("z" * 38) == "'" + "z" * 38 + "'"  # 40 characters: the limit


@pytest.mark.parametrize("kw, words", [({"n": HUGE}, "n must be"), ({"rng": -HUGE}, "rng seed"),
                                       ({"max_tries": HUGE}, "max_tries"), ({"seat": HUGE}, "seat")])
def test_determinize_names_a_huge_integer(kw, words):
    from mj_env.determinize import determinize
    eng = Engine(num_tables=1, seed=0)
    eng.reset()
    args = {"table": 0, "seat": 0, **kw}
    # ValueError only: a TypeError ("got an unexpected keyword argument 'max_tries'") also names the argument
    with pytest.raises(ValueError) as e:
        determinize(eng, **args)
    assert words in str(e.value) and len(str(e.value)) < 300


# ----------------------------------------------------------------- input without line breaks

def test_bounded_lines_reads_past_a_line_longer_than_the_bound():
    import io

    from mj_env.lines import TooLong, bounded_lines
    data = b"ab\n" + b"x" * 25 + b"\ncd\n" + b"y" * 11 + b"\n" + b"z" * 10
    got = list(bounded_lines(io.BytesIO(data), limit=10))
    assert got[0] == b"ab\n" and isinstance(got[1], TooLong) and got[2] == b"cd\n"
    assert isinstance(got[3], TooLong) and got[4] == b"z" * 10 and len(got) == 5  # 11 + the line break > 10
    text = list(bounded_lines(io.StringIO("a\n" + "q" * 30), limit=10))
    assert text[0] == "a\n" and isinstance(text[1], TooLong) and len(text) == 2
    assert list(bounded_lines([b"p\n", b"q\n"])) == [b"p\n", b"q\n"]  # no readline: iterated as it is
    # a text stream's long line ends at its "\n" too: the next line is read, not swallowed with it
    text = list(bounded_lines(io.StringIO("q" * 30 + "\nb\n"), limit=10))
    assert isinstance(text[0], TooLong) and text[1:] == ["b\n"]


def test_the_score_stream_answers_a_line_without_end_as_one_bad_line():
    import io
    import json

    from mj_env import score
    from mj_env.lines import MAX_LINE_BYTES
    good = b'{"hand":"111m999p222s5z","melds":[{"type":"pong","tiles":"777s","from":2}],"win_tile":"5z"}\n'
    stdout = io.StringIO()
    assert score.main(io.BytesIO(good + b"\0" * (MAX_LINE_BYTES + 5) + b"\n" + good), stdout) == 0
    out = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert len(out) == 3 and out[0] == out[2] and out[0]["legal"] is True
    assert out[1] == {"error": f"line longer than {MAX_LINE_BYTES:,} bytes: skipped (one JSON object per line is expected)"}


def test_the_records_cli_counts_a_line_without_end_as_one_bad_record(tmp_path, capsys):
    from mj_env.lines import MAX_LINE_BYTES
    from mj_env.records import main
    path = tmp_path / "zeros.jsonl"
    path.write_bytes(b"\0" * (MAX_LINE_BYTES + 5))
    assert main([str(path)]) == 1
    assert "record 0: line longer than" in capsys.readouterr().err


def test_the_records_cli_stops_at_a_line_no_record_could_be(capsys):
    """/dev/zero is one line without end: the reader stops at the bound instead of reading it past forever,
    with --show too (it read past every line before the one asked for)."""
    import os
    import subprocess
    import sys

    from mj_env.lines import MAX_LINE_BYTES
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    for extra in ([], ["--show", "3"]):
        run = subprocess.run([sys.executable, "-m", "mj_env.records", "/dev/zero", *extra], check=False,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 1 and "Traceback" not in run.stderr, (extra, run.stderr)
        assert f"record 0: line longer than {MAX_LINE_BYTES:,} bytes" in run.stderr and "stopped reading" in run.stderr


def test_the_too_long_line_comes_before_the_rest_of_it_is_read():
    import io

    from mj_env.lines import TooLong, bounded_lines
    stream = io.BytesIO(b"x" * 50 + b"\nnext\n")
    lines = bounded_lines(stream, limit=10)
    assert isinstance(next(lines), TooLong) and stream.tell() == 11  # the bound and one byte, no more
    assert next(lines) == b"next\n"


def test_a_masked_action_is_no_action():
    from mj_env.vector import MahjongVectorEnv
    env = MahjongVectorEnv(num_envs=3, seed=0)
    env.reset(seed=0)
    before = _state(env.engine)
    acts = np.ma.masked_array(np.full(3, A.PASS), mask=[False, True, False])
    with pytest.raises(A.ActionError, match="entry 1 masked"):
        env.step(acts)
    assert all(np.array_equal(before[f], getattr(env.engine.state, f)) for f in _STATE_FIELDS)
    legal = env.engine.legal_mask().argmax(axis=1)
    env.step(np.ma.masked_array(legal, mask=False))  # a masked array with nothing masked is its data


def test_an_action_batch_numpy_cannot_read_is_an_action_error_and_changes_nothing():
    # An outside trainer's audit: a float tensor needing grad reached the vector envs as torch's own RuntimeError
    from mj_env.vector import MahjongVectorEnv
    env = MahjongVectorEnv(num_envs=3, seed=0)
    env.reset(seed=0)
    before = _state(env.engine)
    with pytest.raises(A.ActionError, match="expected 3 integer actions, got Unreadable that NumPy cannot read"):
        env.step(Unreadable())
    with pytest.raises(A.ActionError, match="NumPy cannot read"):
        env.engine.step(Unreadable())
    assert all(np.array_equal(before[f], getattr(env.engine.state, f)) for f in _STATE_FIELDS)
    torch = pytest.importorskip("torch")
    legal = env.engine.legal_mask().argmax(axis=1)
    with pytest.raises(A.ActionError, match="Tensor that NumPy cannot read"):
        env.step(torch.tensor(legal, dtype=torch.float32, requires_grad=True))
    assert all(np.array_equal(before[f], getattr(env.engine.state, f)) for f in _STATE_FIELDS)
    env.step(torch.tensor(legal))  # an integer tensor is an action batch


@pytest.mark.parametrize("odd", [True, np.True_, np.array(True)], ids=["bool", "np.bool_", "0-d bool array"])
def test_a_bool_in_a_list_of_int_actions_is_refused_and_changes_nothing(odd):
    """NumPy reads [True, 3] as int64 [1, 3]: the bool would have played action 1 (a hostile-input audit)."""
    from mj_env.vector import MahjongVectorEnv
    env = MahjongVectorEnv(num_envs=3, seed=0)
    env.reset(seed=0)
    before = _state(env.engine)
    legal = [int(a) for a in env.engine.legal_mask().argmax(axis=1)]
    for acts in ([legal[0], odd, legal[2]], (legal[0], odd, legal[2])):
        with pytest.raises(A.ActionError, match=r"at table 1 is not an integer in 0-126"):
            env.step(acts)
        with pytest.raises(A.ActionError, match=r"at table 1 is not an integer"):
            env.engine.step(acts)
    assert all(np.array_equal(before[f], getattr(env.engine.state, f)) for f in _STATE_FIELDS)
    env.step([legal[0], np.int64(legal[1]), np.array(legal[2])])  # NumPy integers in a list are actions


# ----------------------------------------------------------------- mj_env.actions: the parsers' own contracts

def test_action_parsers_give_plain_python_and_int64_values():
    """``one_action``: a Python int, also for an int subclass (an IntEnum); ``action_batch``: an int64 array
    whatever integer dtype came in; ``illegal_policy``: the penalty as a float."""
    import enum

    class Act(enum.IntEnum):
        WIN = A.WIN

    got = A.one_action(Act.WIN)
    assert got == A.WIN and type(got) is int
    for dtype in (np.uint8, np.int16, np.uint64):
        batch = A.action_batch(np.array([3, A.N_ACTIONS - 1], dtype=dtype), 2)
        assert batch.dtype == np.int64 and batch.tolist() == [3, A.N_ACTIONS - 1]
    for penalty in (2, np.int64(2), np.float32(2)):
        assert A.illegal_policy("penalize", penalty) == ("penalize", 2.0)
        assert type(A.illegal_policy("penalize", penalty)[1]) is float


def test_illegal_penalty_edges_and_action_name_edges():
    """The penalty range 0-1e15 includes both ends; ``name`` and ``index`` refuse with an ActionError
    (never an IndexError / TypeError) just outside the action space and for an unhashable name."""
    assert A.illegal_policy("raise", 0) == ("raise", 0.0)
    assert A.illegal_policy("penalize", 1e15) == ("penalize", 1e15)
    for bad in (1e15 * (1 + 2**-52), np.complex64(3), np.complex128(3), 3 + 0j):  # (np.complex64 is no Python complex)
        with pytest.raises(ValueError, match="illegal_penalty must be"):
            A.illegal_policy("penalize", bad)
    assert A.name(A.N_ACTIONS - 1) == "ting 7z" and A.name(0) == "discard 1m"
    for bad in (A.N_ACTIONS, -1, np.int64(A.N_ACTIONS)):
        with pytest.raises(A.ActionError, match=f"action {int(bad)} is not an integer in 0-126"):
            A.name(bad)
    for bad in ([], {"win": 1}, None, "Win"):
        with pytest.raises(A.ActionError, match="unknown action name"):
            A.index(bad)
