"""``python -m agents.play``: a person's game against the agents at a terminal (agents/play.py)."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mj_env
from agents import make_agent
from agents.play import Game, choose, main, seat_view
from agents.pretrained import DATA
from mj_env import actions as A
from mj_env.records import replay
from mj_env.rules import get_rules
from mj_env.state import MELD_CONCEALED_KONG, TURN
from mj_env.tiles import CODES

ROOT = Path(__file__).resolve().parents[1]
TOTALS = re.compile(r"=== game over\. totals after (\d+) of (\d+) hand\(s\): East ([+-]\d+)  South ([+-]\d+)  "
                    r"West ([+-]\d+)  North ([+-]\d+)")


def first_option(prompt: str) -> str:
    return "1"


def play(argv: list[str], input_fn=first_option, tmp_path: Path | None = None) -> tuple[int, str, list[dict]]:
    """``main(argv)`` with ``input_fn``; its exit status, its output and the hand records it wrote."""
    out = io.StringIO()
    records = []
    if tmp_path is not None:
        path = tmp_path / "hands.jsonl"
        argv = [*argv, "--record", str(path)]
    rc = main(argv, input_fn=input_fn, out=out)
    if tmp_path is not None and path.exists():
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return rc, out.getvalue(), records


@pytest.mark.parametrize("rules,hands", [("beijing", 1), ("hebei", 2), ("quemen", 2), ("beijing", 3)])
def test_a_scripted_game_plays_to_its_end(rules, hands, tmp_path):
    """First legal option at every prompt: the game ends, exit 0, the totals are the sum of the hands'
    settlements, which replay from the records written."""
    rc, out, records = play(["--rules", rules, "--seed", "5", "--hands", str(hands)], tmp_path=tmp_path)
    assert rc == 0, out[-2000:]
    assert "Traceback" not in out
    m = TOTALS.search(out)
    assert m, out[-2000:]
    assert (int(m[1]), int(m[2])) == (hands, hands)
    totals = [int(x) for x in m.groups()[2:]]
    assert sum(totals) == 0
    assert out.count("=== hand ") == hands
    assert len(records) == hands  # (no hand of these seeds ends at its deal)
    assert totals == np.sum([r["settlement"]["scores"] for r in records], axis=0).tolist()
    for rec in records:
        assert replay(rec) == rec["settlement"]  # (replay also checks every decision was legal)
        assert rec["players"][0] == "you" and rec["players"][1:] == ["rule"] * 3


@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_a_match_says_when_the_next_hand_is_dealt_and_by_whom(rules, tmp_path):
    """The moves of a match's second hand were printed straight after the first hand's totals, with nothing to say
    a new hand had begun until the person's next view: a line now says it, with the dealer (the record's). The
    first line names the rule set once (it said "hebei with hands_per_episode=2, 2 hand(s)")."""
    rc, out, records = play(["--rules", rules, "--seed", "4", "--hands", "2"], tmp_path=tmp_path)
    assert rc == 0 and len(records) == 2
    assert out.splitlines()[0].startswith(f"{rules}, 2 hand(s), seed 4:")
    header = f"--- hand 2 of 2: {('East', 'South', 'West', 'North')[records[1]['dealer']]} deals ---"
    assert out.count("--- hand ") == 1
    assert out.index("totals after 1 of 2 hand(s)") < out.index(header) < out.index("hand 2 of 2 |")


def _hostile(out: io.StringIO):
    """An input function that answers every prompt with hostile lines first, then "1": each bad line re-prompts."""
    bad = ["", "   ", "garbage", "999", "-1", "0", "1.5", "99999999999999999999999999", "x" * 10_000,
           "\x1b[2J\x1b[H", "ting 1m", "kong 9z", "1f", "help me"]
    state = {"queue": []}
    count = {"bad": 0}

    def input_fn(prompt):
        if not state["queue"]:
            # a tile this seat cannot discard now (not among the options listed last)
            shown = out.getvalue()
            block = shown[shown.rfind("your hand:"):]
            legal = set(re.findall(r"\d+\. discard (\w\w)", block))
            illegal_tile = next(c for c in CODES[:34] if c not in legal)
            state["queue"] = [*bad, illegal_tile.upper(), "1"]
        line = state["queue"].pop(0)
        if line != "1":
            count["bad"] += 1
        return line

    return input_fn, count


@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_hostile_answers_re_prompt_and_change_nothing(rules, tmp_path):
    rc0, out0, clean = play(["--rules", rules, "--seed", "11"], tmp_path=tmp_path)
    out = io.StringIO()
    input_fn, count = _hostile(out)
    path = tmp_path / "hostile.jsonl"
    rc = main(["--rules", rules, "--seed", "11", "--record", str(path)], input_fn=input_fn, out=out)
    text = out.getvalue()
    assert rc == rc0 == 0
    assert "Traceback" not in text
    hostile = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert hostile == clean  # the same decisions, the same settlement
    assert TOTALS.search(text)[0] == TOTALS.search(out0)[0]
    assert count["bad"] >= 15
    # one line of answer per bad line, none echoing the long line or a terminal escape
    assert "x" * 100 not in text and "\x1b" not in text
    for message in ("an empty answer", "no option 999", "no option 0", "not understood: '-1'", "you cannot discard",
                    "ting 1m is not one of your options now"):
        assert message in text, message


def test_choose_reads_numbers_names_and_tiles():
    legal = [A.index("discard 5m"), A.index("win"), A.index("ting 3p")]
    assert choose("1", legal) == legal[0] and choose(" 3 ", legal) == legal[2]
    assert choose("WIN", legal) == A.WIN and choose("Discard   5M", legal) == legal[0]
    assert choose("5m", legal) == legal[0] and choose("ting 3P", legal) == legal[2]
    assert choose("?", legal) == "help" and choose("help", legal) == "help"
    assert choose("quit", legal) is None
    for bad in ("", "4", "0", "-1", "3p", "pong", "discard 6m", "1" * 5000, "\u202e", "ting"):
        with pytest.raises(ValueError) as e:
            choose(bad, legal)
        assert "\n" not in str(e.value) and len(str(e.value)) < 160


@pytest.mark.parametrize("error,code,said", [(EOFError, 0, "input ended"), (KeyboardInterrupt, 130, "interrupted")])
@pytest.mark.parametrize("after", [0, 3])
def test_end_of_input_and_ctrl_c_end_cleanly(error, code, said, after):
    calls = []

    def input_fn(prompt):
        calls.append(prompt)
        if len(calls) > after:
            raise error
        return "1"

    rc, out, _ = play(["--seed", "2", "--hands", "2"], input_fn)
    assert rc == code
    assert said in out and "totals after 0 of 2 hand(s): East +0  South +0  West +0  North +0" in out
    assert "Traceback" not in out


def test_quit_ends_like_end_of_input():
    rc, out, _ = play(["--seed", "2"], lambda prompt: "quit")
    assert rc == 0 and "quit: the game stops" in out


def _perturbed(st, seat: int, rng: np.random.Generator):
    """A copy of ``st`` that differs only in what ``seat`` may not see: the other seats' concealed tiles (moved
    among them), the wall's order, another seat's drawn tile, the claims other seats may make or have made and
    not yet carried out, other seats' readiness, and the tiles of their concealed kongs."""
    p = st.copy()
    others = [s for s in range(4) if s != seat]
    pool = np.concatenate([np.repeat(np.arange(34), p.hands[0, s]) for s in others])
    rng.shuffle(pool)
    at = 0
    for s in others:
        n = int(p.hands[0, s].sum())
        p.hands[0, s] = np.bincount(pool[at:at + n], minlength=34)
        at += n
    rng.shuffle(p.wall[0])
    if not (p.phase[0] == TURN and p.turn_seat[0] == seat):
        p.drawn[0] = rng.integers(0, 34)
    p.claim_ok[0] = rng.random(p.claim_ok[0].shape) < 0.5
    p.pend_action[0], p.pend_seat[0], p.pend_cat[0] = rng.integers(69, 93), rng.choice(others), rng.integers(0, 4)
    p.ready[0, others] = rng.random(3) < 0.5
    for s in others:
        for m in range(int(p.n_melds[0, s])):
            if p.meld_type[0, s, m] == MELD_CONCEALED_KONG:
                p.meld_tile[0, s, m] = (p.meld_tile[0, s, m] + 1) % 34
    return p


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_a_seats_view_does_not_change_with_what_it_may_not_see(rules):
    """The leak test: at every decision of a hand played by rule agents, each seat's view is the same text when the
    other seats' concealed tiles, the wall and the other hidden state differ (``_perturbed``); and it does change
    with the seat's own tiles (so that the test can fail)."""
    rs = get_rules(rules)
    rng = np.random.default_rng(0)
    labels = ["a", "b", "c", "d"]
    checked = 0
    for seed in range(3):
        env = mj_env.env(rules=rs)
        env.reset(seed=seed)
        raw = env.unwrapped
        bots = [make_agent("rule", rules=rules) for _ in range(4)]
        while not all(raw.terminations.values()):
            st = raw.engine.state
            for seat in range(4):
                view = seat_view(rs, st, seat, labels)
                assert seat_view(rs, _perturbed(st, seat, rng), seat, labels) == view
                checked += 1
            own = st.copy()
            own.hands[0, 0, int(np.flatnonzero(own.hands[0, 0])[0])] -= 1
            assert seat_view(rs, own, 0, labels) != seat_view(rs, st, 0, labels)
            agent = env.agent_selection
            s = raw.agent_name_mapping[agent]
            obs = env.observe(agent)
            batch = {k: v[None] for k, v in obs.items()} | {"seat": np.array([s])}
            env.step(int(bots[s].act(batch, np.random.default_rng(seed))[0]))
    assert checked > 400


def test_another_seats_concealed_kong_is_face_down():
    rs = get_rules("beijing")
    env = mj_env.env(rules=rs)
    env.reset(seed=0)
    st = env.unwrapped.engine.state.copy()
    st.meld_type[0, 1, 0], st.meld_tile[0, 1, 0], st.meld_from[0, 1, 0], st.n_melds[0, 1] = MELD_CONCEALED_KONG, 4, -1, 1
    mine = seat_view(rs, st, 1, ["a"] * 4)
    theirs = seat_view(rs, st, 0, ["a"] * 4)
    assert "concealed_kong \U0001f00b\U0001f00b\U0001f00b\U0001f00b (5555m)" in mine
    assert "concealed_kong (face down)" in theirs and "5555m" not in theirs


def test_the_records_of_a_one_hand_game_are_the_envs():
    """The record a game writes is the AEC env's own ``hand_record()`` of the hand, players added."""
    rs = get_rules("beijing")
    agents = [None] + [make_agent("rule", rules="beijing") for _ in range(3)]
    game = Game(rs, agents, ["you", "rule", "rule", "rule"], 0, seed=9, input_fn=first_option, out=io.StringIO())
    outcome = game.play()
    assert outcome.finished and len(outcome.records) == 1
    assert outcome.records[0] == game.env.unwrapped.hand_record() | {"players": ["you", "rule", "rule", "rule"]}


def test_the_seat_and_the_first_dealer_are_taken(tmp_path):
    rc, out, records = play(["--seat", "2", "--dealer", "3", "--seed", "4", "--opponents", "random,efficient,rule"],
                            tmp_path=tmp_path)
    assert rc == 0
    assert "you sit West (seat 2)" in out and "North random, East efficient, South rule" in out
    assert records[0]["dealer"] == 3 and records[0]["players"] == ["efficient", "rule", "you", "random"]
    assert "> West (you)" in out


@pytest.mark.parametrize("argv,said", [
    (["--seat", "4"], "--seat must be 0-3"), (["--dealer", "-1"], "--dealer must be 0-3"),
    (["--opponents", "rule,rule"], "three comma-separated"), (["--opponents", "rule,,rule"], "three comma-separated"),
    (["--opponents", "rule,nobody,rule"], "unknown agent 'nobody'"), (["--hands", "0"], "--hands must be 1"),
    (["--seed", "-1"], "--seed must be between"), (["--rules", "shanghai"], "--rules"),
    (["--rules", '{"name": "beijing", "hands_per_episode": 3}', "--hands", "2"], "differ"),
    (["--record", "/no/such/folder/hands.jsonl"], "no such directory"), (["--record", " "], "an empty file name"),
    (["--record", str(next(DATA.glob("*.pt")))], "is a player's checkpoint"),
])
def test_bad_arguments_exit_2_with_one_line(argv, said, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv, input_fn=first_option, out=io.StringIO())
    assert e.value.code == 2
    assert said in capsys.readouterr().err


def test_help_says_how_to_answer_and_the_exit_statuses(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10000")
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert "130 on Ctrl-C" in out and "(default: None)" not in out
    options = [b for b in re.split(r"\n(?=  -)", out) if b.startswith("  -")]
    assert options and not [b for b in options if len(re.findall(r"\bdefault\b", b)) > 1]


def test_a_pretrained_opponent_plays():
    pytest.importorskip("torch")
    rc, out, _ = play(["--seed", "3", "--opponents", "pretrained,pretrained:greedy,rule"])
    assert rc == 0 and TOTALS.search(out), out[-2000:]
    assert "South pretrained, West pretrained:greedy, North rule" in out


def _run(args: list[str], stdin: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], input=stdin, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False, env={**os.environ, **(env or {})}, **kw)


def test_importing_agents_play_leaves_torch_out():
    run = _run(["-c", "import sys, agents.play; print('torch' in sys.modules)"], "")
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr[-2000:]


def test_the_entry_point_plays_from_standard_input():
    run = _run(["-m", "agents.play", "--seed", "1"], "\n".join(["nonsense", "?", *["1"] * 400]) + "\n")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "not understood: 'nonsense'" in run.stdout and TOTALS.search(run.stdout)
    assert run.stderr == ""


def test_the_entry_point_on_an_ascii_terminal_and_at_end_of_input():
    run = _run(["-m", "agents.play", "--seed", "1"], "1\n1\n", env={"PYTHONIOENCODING": "ascii"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert "input ended: the game stops" in run.stdout and "\\U0001f" in run.stdout  # the glyphs as escapes
    assert run.stderr == ""


def test_the_entry_point_gives_its_help_under_python_OO():
    run = _run(["-OO", "-B", "-m", "agents.play", "--help"], "")
    assert run.returncode == 0 and "usage:" in run.stdout, run.stderr[-2000:]


@pytest.mark.parametrize("hands", [1, 2])
def test_a_hand_that_ends_at_its_deal_is_told_by_its_settlement(hands, monkeypatch, tmp_path):
    """四惠牌 dealt to the dealer: the first hand ends inside reset(), before any decision; it is told and counted
    (it has no record: no decision, and a match deals its next hand at once), and a match goes on."""
    from walls import four_hui_wall

    real_env = mj_env.env

    def dealt_four_hui(**kw):
        env = real_env(**kw)
        reset = env.reset

        def first_wall(seed=None, options=None):
            reset(seed=seed, options={**(options or {}), "wall": [CODES[t] for t in four_hui_wall()]})

        env.reset = first_wall
        return env

    monkeypatch.setattr("agents.play.mj_env.env", dealt_four_hui)
    rc, out, records = play(["--seed", "1", "--hands", str(hands)], tmp_path=tmp_path)
    assert rc == 0, out[-2000:]
    assert "=== hand 1 of" in out and "四惠牌 8" in out and "(it ended at its deal)" in out
    assert len(records) == hands - 1
    totals = [int(x) for x in TOTALS.search(out).groups()[2:]]
    assert (f"=== hand 1 of {hands} over: seat 0 (East) wins by self-draw: 9 fan (庄 1, 四惠牌 8) | scores +27 -9 -9 -9"
            in out)
    assert totals == (np.sum([r["settlement"]["scores"] for r in records], axis=0) + [27, -9, -9, -9]).tolist()
