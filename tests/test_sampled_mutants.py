"""Gaps found by mutating mj_env/aec.py's near_option and _one_edit_apart (never mutated before), and by seeded random
samples of mutants (an audit of earlier mutation rounds): first of engine.py, claims.py, score.py, calculator.py and
determinize.py; then of single-node AST mutants of mj_env/hand_end.py, mj_env/records.py, mj_env/rules.py,
mj_env/observation.py, agents/arena.py and others. Each test here failed under the mutant named in its docstring and
passes on the code; worked out from docs/RULES.md and docs/INTERFACES.md."""
from __future__ import annotations

import io
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fast_game import FastGame
from scenario_helpers import names, play
from score_io import CALC_LINE, FailingOut, Recorder
from walls import build_wall

import mj_env
from mj_env import actions as A
from mj_env import hand_end, score
from mj_env.aec import _one_edit_apart, near_option
from mj_env.calculator import short
from mj_env.determinize import N_CODES, _ting_chain, _ting_hand
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.state import K, M, S, allocate
from mj_env.tiles import parse_hand, parse_tiles

ROOT = Path(__file__).resolve().parent.parent


def _within_one_edit(b: str, alphabet: str) -> set[str]:
    """Every string one insertion, deletion, substitution or swap of neighbouring letters from ``b`` (and ``b``)."""
    out = {b}
    for i in range(len(b) + 1):
        for c in alphabet:
            out.add(b[:i] + c + b[i:])
    for i in range(len(b)):
        out.add(b[:i] + b[i + 1:])
        for c in alphabet:
            out.add(b[:i] + c + b[i + 1:])
        if i + 1 < len(b):
            out.add(b[:i] + b[i + 1] + b[i] + b[i + 2:])
    return out


@pytest.mark.parametrize("alphabet,longest", [("ab", 4), ("abc", 3)])
def test_one_edit_apart_is_exactly_one_edit(alphabet, longest):
    """_one_edit_apart against brute force over short strings: its docstring's contract (at most one insertion,
    deletion, substitution or neighbour swap). Mutants: the scan starting at i = 1 ("aa" vs "bb" one edit), stepping
    i by 2 or by -1, and the swap test's ``and`` made ``or`` ("abb" vs "baa")."""
    words = ["".join(p) for n in range(longest + 1) for p in itertools.product(alphabet, repeat=n)]
    for b in words:
        near = _within_one_edit(b, alphabet)
        for a in words:
            assert _one_edit_apart(a, b) == (a in near), (a, b)


@pytest.mark.parametrize("key", ["dxaxer", "dxyler", "dxxxxr", "daelre", "wxyl", "wlla", "wxlx", "walxx"])
def test_reset_ignores_keys_two_slips_from_an_option(key):
    """A key with the option's first letter but two slips from it is no near miss: reset ignores it like any other
    key (PettingZoo's api_test passes foreign keys). Mutants of _one_edit_apart that took these for one slip
    (i stepped by 2 or -1, the swap test's ``and`` made ``or``) refused them."""
    assert near_option(key) is None
    e = mj_env.env()
    e.reset(seed=0, options={key: 0})
    assert e.agents


# ---------------------------------------------------------------------------------------- engine.py sample
def test_explain_illegal_names_the_table_of_an_unknown_action_only_with_several_tables():
    """An action number outside the action space is explained by actions.name's own words; " (table N)" is added
    only when the engine has several tables, as its other answers add " at table N" (mutant: the one-table
    engine's answer also ended in " (table 0)")."""
    with pytest.raises(A.ActionError) as err:
        A.name(A.N_ACTIONS)
    one = Engine()
    one.reset(seed=0)
    assert one.explain_illegal(0, A.N_ACTIONS) == str(err.value)
    two = Engine(num_tables=2)
    two.reset(seed=0)
    assert two.explain_illegal(1, A.N_ACTIONS) == f"{err.value} (table 1)"


# ----------------------------------------------------------------------------------------- score.py sample


def test_respond_answers_an_answer_json_cannot_write_with_an_error_line(monkeypatch):
    """respond returns one JSON object always: an answer json.dumps cannot write becomes an internal-error line
    (mutant: the fallback returned None, and main's write of it would end the stream)."""
    monkeypatch.setattr(score, "answer", lambda line: {"legal": True, "fan": object()})
    assert json.loads(score.respond(CALC_LINE)) == {
        "error": "internal error: the answer could not be written (TypeError)"}


def test_a_bug_whose_message_cannot_be_read_is_still_an_error_line(monkeypatch):
    """A bug in the calculator is answered "internal error: <type>: <message>"; an exception whose str() fails
    shows "(no message)" (mutant: _safe_str returned None, shown as "None")."""
    class Unprintable(Exception):
        def __str__(self):
            raise ValueError("no")

    def boom(obj):
        raise Unprintable()

    monkeypatch.setattr(score, "evaluate", boom)
    assert score.answer(CALC_LINE) == {"error": "internal error: Unprintable: (no message)"}


def test_help_with_standard_output_closed_says_so_and_fails(monkeypatch, capsys):
    """``python -m mj_env.score --help >&-``: one line on standard error and exit status 1, as the stream does
    (mutant: cli returned None, which sys.exit reads as success, and said nothing)."""
    monkeypatch.setattr(sys, "stdout", None)
    assert score.cli(["--help"]) == 1
    assert capsys.readouterr().err == "python -m mj_env.score: standard output is closed\n"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash (set -o pipefail)")
def test_calculator_into_head_is_quiet_with_buffered_output_too():
    """``... | python -m mj_env.score | head -1`` exits 141 with nothing on standard error also when standard
    output is block-buffered, as it is for a user (without PYTHONUNBUFFERED, which this repository's test
    environment sets and under which tests/test_score_cli.py's pipe tests cannot see the difference). Mutant: _discard
    no longer pointed the descriptor at the null device, and the buffer's flush at exit printed "Exception ignored
    ... BrokenPipeError"."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(ROOT)
    cmd = (f"set -o pipefail; yes '{CALC_LINE}' | head -5000 | {shlex.quote(sys.executable)} -m mj_env.score"
           " | head -1")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, cwd=ROOT, env=env, timeout=60, check=False)
    assert json.loads(p.stdout)["legal"] is True
    assert p.stderr == b""
    assert p.returncode == 141


# ------------------------------------------------------------------------------------ calculator.py sample
def test_short_marks_only_a_cut_string_inside_a_container():
    """A string inside a container is quoted by its first 20 characters and '...' only where it was cut
    (mutants: '...' also after exactly 20 characters; never '...')."""
    assert short(["x" * 20]) == "['xxxxxxxxxxxxxxxxxxxx']"
    assert short(["x" * 21]) == "['xxxxxxxxxxxxxxxxxxxx'...]"


def test_short_quotes_an_integer_of_128_bits_in_full():
    """Integers past 128 bits are named by their size, never converted; one of 128 bits (39 digits) is still quoted
    (mutant: bit_length() >= 128)."""
    assert short([2 ** 127], limit=60) == f"[{2 ** 127}]"
    assert short([2 ** 128], limit=60) == "[<an integer of about 39 digits>]"


def test_unknown_fields_are_counted_past_the_fifth_only():
    """An error names the first five unknown fields and counts the rest: exactly five has no "and 0 more"
    (mutant: len(keys) >= 5)."""
    line = {"hand": "111m999p222s5z", "win_tile": "5z"}
    five = score.answer(json.dumps({**line, **{k: 1 for k in "abcde"}}))["error"]
    assert five.startswith("unknown field(s) 'a', 'b', 'c', 'd', 'e'; known fields:")
    six = score.answer(json.dumps({**line, **{k: 1 for k in "abcdef"}}))["error"]
    assert six.startswith("unknown field(s) 'a', 'b', 'c', 'd', 'e' and 1 more; known fields:")


# ---------------------------------------------------------------------------------------- claims.py sample
def test_a_claim_that_waited_on_a_win_leaves_no_stale_priority_for_the_next_window():
    """docs/RULES.md 4.2: seat 1 may win or pong the dealer's 5s and pongs; seat 2, who may win on it too, is still
    asked, so the pong waits as the pending claim; seat 2 passes and the pong is carried out. The next window (seat
    1's 7s) offers seat 3 its pong. Mutant: open_window no longer cleared the pending claim's category, so the
    carried-out pong's category still stood and the next window offered pong (and chi) to nobody."""
    wall = build_wall("beijing", hands={0: "111z222z333z444z5s5z", 1: "123m456m789m55s77s",
                                        2: "234p678p234s99s46s", 3: "77s13m35p68p2s8s9s6z7z"}, indicator="9p")
    g = FastGame(get_rules("beijing"), wall)
    play(g, (0, "discard 5s"))
    assert g.to_act == 1 and {"win", "pong", "pass"} <= set(names(g))
    play(g, (1, "pong"), (2, "pass"), (1, "discard 7s"))
    assert g.to_act == 3
    assert sorted(names(g)) == ["pass", "pong"]


def test_respond_has_a_last_answer_when_even_the_error_cannot_be_written(monkeypatch):
    """Where json cannot write the answer nor the internal-error object, respond returns its fixed line (mutant:
    None)."""
    def boom(*args, **kwargs):
        raise RecursionError("no")

    monkeypatch.setattr(score, "answer", lambda line: {"legal": True})
    monkeypatch.setattr(score.json, "dumps", boom)
    assert score.respond(CALC_LINE) == score._FALLBACK



def test_main_flushes_each_answer_before_reading_on():
    """The stream answers line by line, flushing each (mj_env/score.py docstring), so a caller that writes a line
    and waits reads its answer; mutant: no flush after an answer (buffered to the end under a block-buffered
    standard output, which tests/test_score_cli.py's subprocess tests cannot see under PYTHONUNBUFFERED=1)."""
    out = Recorder()
    assert score.main(io.BytesIO((CALC_LINE + "\n" + CALC_LINE + "\n").encode()), out) == 0
    assert [e[0] for e in out.events] == ["write", "flush", "write", "flush"]



@pytest.mark.parametrize("error,status,said", [
    (BrokenPipeError(32, "Broken pipe"), 141, ""),
    (OSError(28, "No space left on device"), 1,
     "python -m mj_env.score: cannot write to standard output: No space left on device\n")])
def test_help_whose_output_fails_ends_quietly_and_points_stdout_at_the_null_device(monkeypatch, capsys, error,
                                                                                   status, said):
    """``python -m mj_env.score --help | true`` or ``> /dev/full``: the flush fails, cli returns 141 (or 1 and one
    line) and points the descriptor at the null device so the exit's flush cannot fail again. Mutants: no flush
    after the usage text (the failure left to the exit); no _discard in the OSError handler."""
    read_end, write_end = os.pipe()
    try:
        monkeypatch.setattr(sys, "stdout", FailingOut(write_end, error))
        assert score.cli(["--help"]) == status
        assert os.path.samestat(os.fstat(write_end), os.stat(os.devnull))
        assert capsys.readouterr().err == said
    finally:
        os.close(read_end)
        os.close(write_end)


# ------------------------------------------------------------------------------------ determinize.py sample
def test_ting_hand_takes_the_only_waiting_hand_there_is():
    """_ting_hand (the start of the 报听 chain) takes the first candidate hand that waits; where only one is left
    (a 报听 seat beside four face-up pongs, one unseen tile it may hold) it is that one (mutant: the second
    candidate, an IndexError here). Under 缺一门 (docs/RULES.md 6.3) the suit dropped first, m, leaves 6s."""
    quemen = get_rules("quemen")
    melds = parse_hand("111p222p333p444p")
    hand, kinds = _ting_hand(quemen, parse_hand("5m"), 1, melds)
    assert hand.tolist() == parse_hand("5m").tolist() and kinds.tolist() == []
    hand, _ = _ting_hand(quemen, parse_hand("5m6s"), 1, melds)
    assert hand.tolist() == parse_hand("6s").tolist()


class _ScriptedRandom:
    """A generator whose ``random`` answers by the shape asked: a proposal that draws the 报听 seat's whole hand and
    kong kinds afresh (u = 0), the kinds 2p-5p for its kongs (lowest keys), and the physical tile 1m first."""

    def __init__(self, kinds):
        self.kinds = kinds

    def random(self, size=None):
        if size == 1:                       # the tiles a swap would move, and u: 0 < INDEPENDENT_SHARE
            return np.zeros(1)
        if size == (1, S):                  # which 报听 seat (there is one)
            return np.full(size, 0.5)
        if size == (1, K):                  # keys of the kinds for its kongs
            keys = np.full(size, 0.9)
            keys[:, self.kinds] = 0.1
            return keys
        keys = np.full(size, 0.9)           # the order of the physical tiles its hand is drawn from: 1m first
        keys[0] = 0.0
        return keys


def test_ting_chain_accepts_a_fresh_draw_that_changes_every_kong_kind_and_keeps_the_hand():
    """A 报听 seat with four concealed kongs (2m-5m) waiting on its single 1m: a fresh proposal gives its kongs the
    kinds 2p-5p and draws the same 1m. That is a move (the kongs changed), and it waits, so it is taken (mutant:
    ``moved`` read "some kong kept its kind", false here, and the proposal was dropped)."""
    melds = np.zeros((1, S, K), dtype=np.int16)
    ting = np.zeros((1, S), dtype=bool)
    ting[0, 0] = True
    part = np.zeros((1, S, K), dtype=np.int64)
    part[0, 0] = parse_hand("1m")
    pool = np.zeros((1, N_CODES), dtype=np.int64)
    pool[0, :K] = parse_hand("2222333344445555p")
    kongs = np.full((1, S, M), -1, dtype=np.int64)
    kongs[0, 0] = parse_tiles("2m3m4m5m")
    new_part, _, new_kongs = _ting_chain(get_rules("quemen"), melds, ting, part, pool, np.zeros(1, dtype=np.int64), 1,
                                         _ScriptedRandom(parse_tiles("2p3p4p5p")), np.array([-1]), kongs)
    assert sorted(new_kongs[0, 0].tolist()) == sorted(parse_tiles("2p3p4p5p"))
    assert new_part[0, 0].tolist() == parse_hand("1m").tolist()


# --------------------------------------------- second sample: hand_end.py, records.py, rules.py, observation.py, arena
def _fake_evaluate(obj):
    return {"legal": True, "scores": [0, 0, 0, 0], "shaozhuang": 0, "fan": 1, "patterns": {}}


def _won_state(winners, frm):
    st = allocate(1, 136)
    st.winners[0, winners] = True
    st.win_from[0] = frm
    st.win_tile[0] = 0
    st.hands[0, :, 0] = 1
    return st


def test_several_winners_on_one_discard_are_listed_in_play_order_from_the_discarder(monkeypatch):
    """multiple_winners: North and East (seats 3 and 0) win on West's discard: the settlement's
    "wins" run in play order from the discarder (North, then East), as they were asked (docs/RULES.md 4.2),
    not in seat order. (Killed a mutant that dropped the sort.)"""
    monkeypatch.setattr(hand_end.calculator, "evaluate", _fake_evaluate)
    rules = get_rules("beijing", multiple_winners=True)
    st = _won_state([0, 3], 2)
    out = hand_end.Settlements()
    hand_end.hand_results(rules, st, np.array([0]), np.array([True]), out)
    assert [w["input"]["winner"] for w in out[0]["wins"]] == [3, 0]


def test_a_discard_win_reads_last_tile_from_the_discard_not_from_the_current_draw():
    """河底 on a discard win is whether that discard was made in a last-draw turn (claim_last), not whether the
    current turn's draw was the last tile (last_draw, which is the self-draw 海底 flag). (Killed a mutant that
    read last_draw for every win.)"""
    rules = get_rules("beijing")
    st = _won_state([1], 0)
    st.last_draw[0], st.claim_last[0] = True, False
    assert hand_end.win_input(rules, st, 0, 1)["situation"]["last_tile"] is False
    st.last_draw[0], st.claim_last[0] = False, True
    assert hand_end.win_input(rules, st, 0, 1)["situation"]["last_tile"] is True


def test_the_arena_output_check_reports_an_unwritable_folder_or_file(tmp_path, monkeypatch):
    """agents.arena.output_problem names an output whose folder (or existing file) the user cannot write, before
    any hand is played. Checked with os.access stubbed, since root may write anywhere. (Killed a mutant that
    dropped the check.)"""
    from agents import arena

    target = tmp_path / "out.json"
    assert arena.output_problem("--record", target) is None
    monkeypatch.setattr(arena.os, "access", lambda *a, **k: False)
    assert arena.output_problem("--record", target) == f"--record {target}: not writable"


def test_a_reward_other_than_shaped_has_zero_potential_on_real_hands():
    """agents.rewards.RewardTransform.potential is all zero unless kind == "shaped" (its docstring),
    also for a batch of hands far from ready, where the shaped potential is not zero. (Killed a mutant that
    computed the shaped potential for every kind whenever the batch was not empty.)"""
    from agents.rewards import REWARD_KINDS, RewardTransform

    planes = np.zeros((2, 14, 34), dtype=np.int8)
    planes[:, 0, [0, 2, 4, 6, 9, 11, 13, 15, 18, 20, 22, 27, 29]] = 1  # 13 lone tiles: far from ready
    assert (RewardTransform("shaped").potential(planes) < 0).all()
    for kind in REWARD_KINDS:
        if kind != "shaped":
            got = RewardTransform(kind).potential(planes)
            assert got.dtype == np.float32 and got.tolist() == [0.0, 0.0], kind
