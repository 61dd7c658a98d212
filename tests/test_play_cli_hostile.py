"""``python -m agents.play`` under hostile use: what the person is told (never more than the seat may see, the
drawn seed included), what is said when reading or writing fails, and that the points and records it gives are the
env's over matches of every preset."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from test_play_cli import ROOT, TOTALS, _run, first_option, play
from walls import deals_first, four_hui_9s_wall, tian_hu_wall

import mj_env
import mj_env.engine
from agents import make_agent
from agents.play import Game, seat_view
from mj_env import actions as A
from mj_env.determinize import determinize
from mj_env.records import replay
from mj_env.rules import get_rules
from mj_env.tiles import CODES

PRESETS = ["beijing", "hebei", "quemen", {"name": "beijing", "hui_wild_in_melds": True}]


class _Watched:
    """``mj_env.env`` for ``agents.play`` with every reward of every step (and of the deal) added up, the env at hand."""

    def __init__(self, monkeypatch):
        self.env = None
        self.rewards = np.zeros(4, dtype=np.int64)
        real = mj_env.env

        def make(**kw):
            env = real(**kw)
            raw = env.unwrapped
            step, reset = env.step, env.reset

            def counted(f):
                def g(*a, **k):
                    f(*a, **k)
                    self.rewards += [raw.rewards[x] for x in raw.possible_agents]
                return g
            env.step, env.reset = counted(step), counted(reset)
            self.env = env
            return env
        monkeypatch.setattr("agents.play.mj_env.env", make)

    def legal(self) -> list[int]:
        env = self.env
        return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def _game(rules, seat: int, seed: int, hands: int, answer, records=None) -> Game:
    one = get_rules(rules, hands_per_episode=1)
    agents = [None if s == seat else make_agent("rule", rules=one) for s in range(4)]
    labels = ["you" if s == seat else "rule" for s in range(4)]
    return Game(get_rules(rules, hands_per_episode=hands), agents, labels, seat, seed, None, answer, io.StringIO(),
                on_record=None if records is None else records.append)


@pytest.mark.parametrize("rules", PRESETS, ids=["beijing", "hebei", "quemen", "beijing-hui-wild"])
def test_the_view_is_the_same_in_every_world_the_seat_cannot_tell_apart(rules, monkeypatch):
    """At every decision, the view rebuilt from tables whose hidden tiles (the others' hands and concealed kongs,
    the wall) ``mj_env.determinize`` dealt afresh from the seat's view is the same text."""
    watched = _Watched(monkeypatch)
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(2):
        seat = (seed + 1) % 4
        labels = ["you" if s == seat else "rule" for s in range(4)]

        def answer(prompt, seat=seat, labels=labels):
            nonlocal checked
            engine = watched.env.unwrapped.engine
            real = seat_view(get_rules(rules), engine.state, seat, labels)
            worlds = determinize(engine, 0, seat, n=2, rng=int(rng.integers(2**31)))
            for b in range(2):
                assert seat_view(get_rules(rules), worlds.state, seat, labels, b) == real
            checked += 1
            return str(int(rng.integers(len(watched.legal()))) + 1)
        _game(rules, seat, seed, 2, answer).play()
    assert checked > 20


def test_a_drawn_seed_is_told_at_the_end_never_before(monkeypatch):
    """The seed deals every wall: told before the game, it gives away every seat's tiles. One drawn (no --seed) is
    told once the game is over, and deals the same game again."""
    monkeypatch.setattr("agents.play.secrets.randbelow", lambda n: 4242)
    before_first_answer = []
    out = io.StringIO()

    def first(prompt):
        before_first_answer.append(out.getvalue())
        return "quit"
    from agents.play import main
    assert main([], input_fn=first, out=out) == 0
    told = before_first_answer[0]
    assert "4242" not in told and "seed drawn (told at the end)" in told
    assert out.getvalue().rstrip().endswith("seed 4242: --seed 4242 deals this game again")
    rc, again, _ = play(["--seed", "4242"], input_fn=lambda prompt: "quit")
    assert rc == 0 and again.split("\n", 1)[1].startswith(told.split("\n", 1)[1])  # the same deal


def test_closed_standard_input_is_the_end_of_input(monkeypatch):
    """``<&-``: Python makes sys.stdin None and input() a RuntimeError; the game stops as at the end of input."""
    from agents.play import main
    monkeypatch.setattr(sys, "stdin", None)
    out = io.StringIO()
    assert main(["--seed", "3"], out=out) == 0
    assert "input ended: the game stops" in out.getvalue()


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="no /bin/sh")
def test_the_entry_point_with_standard_input_closed():
    run = subprocess.run(["/bin/sh", "-c", 'exec "$0" -m agents.play --seed 3 <&-', sys.executable], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0 and run.stderr == "", run.stderr[-2000:]
    assert "input ended: the game stops" in run.stdout


def test_an_answer_that_cannot_be_read_is_one_line_naming_the_input(capsys):
    def broken(prompt):
        raise OSError(5, "Input/output error")
    rc, _, _ = play(["--seed", "3"], input_fn=broken)
    err = capsys.readouterr().err
    assert rc == 1 and err == "python -m agents.play: cannot read an answer: Input/output error\n"


def test_an_output_that_fails_is_one_line_naming_the_output(capsys):
    from agents.play import main

    class Full(io.StringIO):
        def write(self, s):
            raise OSError(28, "No space left on device")
    assert main(["--seed", "3"], input_fn=first_option, out=Full()) == 1
    assert capsys.readouterr().err == "python -m agents.play: cannot write the output: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_record_file_on_a_full_device_is_one_line(capsys):
    from agents.play import main
    assert main(["--seed", "3", "--record", "/dev/full"], input_fn=first_option, out=io.StringIO()) == 1
    assert capsys.readouterr().err == "python -m agents.play: cannot write /dev/full: No space left on device\n"


@pytest.mark.parametrize("rules", PRESETS, ids=["beijing", "hebei", "quemen", "beijing-hui-wild"])
@pytest.mark.parametrize("policy", ["pass", "first", "random"])
def test_a_match_tells_the_envs_points_and_records_that_replay(rules, policy, monkeypatch):
    """Four hands, the person passing every claim, taking the first option or any: the totals told are the env's
    rewards added up (kong payments included), every hand is told once, every record replays to its settlement,
    and the dealer told at each decision is the env's."""
    watched = _Watched(monkeypatch)
    rng = np.random.default_rng(1)

    def answer(prompt):
        legal = watched.legal()
        assert f"| dealer {['East', 'South', 'West', 'North'][int(watched.env.unwrapped.engine.state.dealer[0])]} |" \
            in game.out.getvalue().rsplit("\nhand ", 1)[-1]
        if policy == "pass" and A.index("pass") in legal:
            return "pass"
        return str(int(rng.integers(len(legal))) + 1) if policy == "random" else "1"
    records: list[dict] = []
    game = _game(rules, 2, 6, 4, answer, records)
    outcome = game.play()
    assert outcome.totals == watched.rewards.tolist()
    if get_rules(rules).kong_payments:  # (seed 6: kongs paid in these matches)
        assert any(any(s.get("kong_scores", ())) for s in outcome.settlements)
    assert len(outcome.settlements) == 4 and "could not be shown" not in game.out.getvalue()
    for rec in records:
        replay(rec)
    assert [int(x) for x in TOTALS.search(game.out.getvalue()).groups()[2:]] == outcome.totals


def test_a_match_hand_that_ends_at_its_deal_after_a_step(monkeypatch):
    """Hand 1: East wins at once (天和) and stays dealer; hand 2 deals East four 惠牌 and ends at its deal inside
    that step (the env's ``earlier_settlements``); hand 3 is played. Three hands told, counted and recorded."""
    watched = _Watched(monkeypatch)
    monkeypatch.setattr(mj_env.engine, "shuffled_walls", deals_first(mj_env.engine.shuffled_walls, four_hui_9s_wall(), 1))

    def answer(prompt):
        return "win" if A.index("win") in watched.legal() else "1"
    records: list[dict] = []
    game = _game("beijing", 0, 3, 3, answer, records)
    real_env = mj_env.env

    def with_wall(**kw):
        env = real_env(**kw)
        reset = env.reset
        env.reset = lambda seed=None, options=None: reset(
            seed=seed, options={**(options or {}), "wall": [CODES[t] for t in tian_hu_wall()]})
        watched.env = env
        return env
    monkeypatch.setattr("agents.play.mj_env.env", with_wall)
    outcome = game.play()
    text = game.out.getvalue()
    assert len(outcome.settlements) == 3 and outcome.finished
    assert "天和" in outcome.settlements[0]["patterns"] and "四惠牌" in outcome.settlements[1]["patterns"]
    assert text.count("(it ended at its deal)") == 1 and "=== hand 2 of 3 over" in text
    assert len(records) == 2  # hands 1 and 3: hand 2 had no decision
    for rec in records:
        replay(rec)
    assert outcome.totals == np.sum([s["scores"] for s in outcome.settlements], axis=0).tolist()


def test_a_winner_on_another_seats_tile_is_shown_with_it(tmp_path):
    """A hand won on a discard ends with the tile out of the winner's concealed tiles (and out of the river): the
    winner's line adds it, so that it shows a whole winning hand; a self-drawn winner's tiles hold it already."""
    seen = 0
    for seed in range(1, 5):
        (tmp_path / "hands.jsonl").unlink(missing_ok=True)
        rc, out, records = play(["--rules", "hebei", "--seed", str(seed)], tmp_path=tmp_path)
        assert rc == 0 and len(records) == 1
        settlement = records[0]["settlement"]
        for w in settlement.get("wins", [settlement] if "input" in settlement else []):
            winner, tile = w["input"]["winner"], w["input"]["win_tile"]
            line = next(x for x in out.splitlines() if x.startswith(f"    {['East', 'South', 'West', 'North'][winner]} "))
            if w["input"]["discarder"] is None:
                assert "(won on)" not in line
            else:
                seen += 1
                assert re.search(rf"\) \+ \S+ {tile} \(won on\)( \| melds .*)?$", line), line
    assert seen


def test_an_answer_an_ascii_terminal_cannot_decode_is_not_understood():
    """``é`` typed where standard input is ASCII (``PYTHONIOENCODING=ascii``): one line and the question again, then
    the game goes on (was a UnicodeDecodeError traceback)."""
    run = _run(["-m", "agents.play", "--seed", "1"], "\u00e9\n1\n", env={"PYTHONIOENCODING": "ascii", "LANG": "C"})
    assert run.returncode == 0 and run.stderr == "", run.stderr[-2000:]
    assert "not understood: " in run.stdout and "East (you) discards" in run.stdout
