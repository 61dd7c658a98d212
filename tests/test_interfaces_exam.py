"""A black-box exam of docs/INTERFACES.md: expectations written from the interface text alone (the calculator's
JSON lines, the settlement objects, the AEC environment's reset options), before reading the code, then checked
through the public interfaces only: ``python -m mj_env.score`` as a subprocess, ``mj_env.env`` and
``mj_env.actions``. Where docs/INTERFACES.md leaves room, the expectation is the project's documented reading
(``mj_env.calculator``'s "Input decisions", docs/game_flow.md). Checks that other test files already make (the
seed's two worked examples, bad JSON, a missing field, NaN, a 10,000-digit number, non-UTF-8 bytes, ...) are
not repeated here.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from test_score_cli import ROOT
from walls import build_wall

import mj_env
from mj_env import actions

H = '"hand":"111m999p222s777s5z","win_tile":"5z"'  # East (dealer) self-draws: 庄 1 + 门清无惠 1 + 对对和 2
PLAIN = {"legal": True, "fan": 4, "patterns": {"庄": 1, "门清无惠": 1, "对对和": 2}, "shaozhuang": 0,
         "scores": [12, -4, -4, -4]}


def _win(fan, patterns, scores, shaozhuang=0):
    return {"legal": True, "fan": fan, "patterns": patterns, "shaozhuang": shaozhuang, "scores": scores}


# (input line, expected output): a dict is the whole answer; a string is a word that an {"error": ...} answer names
CASES: list[tuple[str, dict | str]] = [
    # the line is one JSON object, nothing before or after it
    ("3", "JSON object"),
    ("null", "JSON object"),
    ('"x"', "JSON object"),
    ("{" + H + "} {}", "bad JSON"),
    ("{" + H + "}x", "bad JSON"),
    # a key spelled with a JSON escape is the same key; a key given twice in a nested object is refused
    ('{"\\u0068and":"111m999p222s777s5z","win_tile":"5z"}', PLAIN),
    ("{" + H + ',"rules":{"name":"beijing","name":"hebei"}}', "twice"),
    # null is the field's default (docs/INTERFACES.md 1's defaults)
    ("{" + H + ',"rules":null}', PLAIN),
    ("{" + H + ',"situation":null}', PLAIN),
    ("{" + H + ',"hui":null}', PLAIN),
    ("{" + H + ',"melds":null}', PLAIN),
    ("{" + H + ',"discarder":null}', PLAIN),
    # the object form of "rules" names its preset; alone it is the preset
    ("{" + H + ',"rules":{"name":"beijing"}}', PLAIN),
    ("{" + H + ',"rules":{}}', "name"),
    ("{" + H + ',"rules":["beijing"]}', "rules"),
    ("{" + H + ',"rules":"BEIJING"}', "BEIJING"),
    ("{" + H + ',"rules":{"name":"beijing","bogus":true}}', "bogus"),
    ("{" + H + ',"rules":{"name":"beijing","hui_wild_in_melds":1}}', "hui_wild_in_melds"),
    ("{" + H + ',"rules":{"name":"beijing","base":5}}', "base"),
    # seats and base are integers: not a bool, not a float even when integral, within range
    ("{" + H + ',"winner":true}', "winner"),
    ("{" + H + ',"winner":1.0}', "winner"),
    ("{" + H + ',"dealer":4}', "dealer"),
    ("{" + H + ',"discarder":4}', "discarder"),
    ("{" + H + ',"discarder":0}', "discarder"),  # the winner itself
    ("{" + H + ',"base":true}', "base"),
    ("{" + H + ',"base":2.0}', "base"),
    ("{" + H + ',"base":1E2}', "base"),
    ("{" + H + ',"base":2.5}', "base"),
    ("{" + H + ',"base":1e400}', "base"),
    ("{" + H + ',"base":1000000000000000000000000000000}', "base"),
    ("{" + H + ',"base":-0}', "base"),
    ("{" + H + ',"base":1000000}', _win(4, PLAIN["patterns"], [12000000, -4000000, -4000000, -4000000])),
    # 烧庄: the line is 2^(R-1) at any R the calculator takes, exact
    ("{" + H + ',"shaozhuang_rounds":21}',
     _win(4, PLAIN["patterns"], [12 - 3 * 2 ** 20, 2 ** 20 - 4, 2 ** 20 - 4, 2 ** 20 - 4], shaozhuang=2 ** 20)),
    ("{" + H + ',"shaozhuang_rounds":2,"base":3}', _win(4, PLAIN["patterns"], [18, -6, -6, -6], shaozhuang=2)),
    ("{" + H + ',"shaozhuang_rounds":-1}', "shaozhuang_rounds"),
    # 互包: a pair that binds the winner redirects the whole settlement; a pair given both ways counts once
    ("{" + H + ',"hubao":[[0,1]],"base":2}', _win(4, PLAIN["patterns"], [24, -24, 0, 0])),
    ("{" + H + ',"hubao":[[1,2],[2,1]]}', PLAIN),
    ("{" + H + ',"hubao":[[0,1],[1,0]]}', _win(4, PLAIN["patterns"], [12, -12, 0, 0])),
    # bound to two: each pays a whole settlement; a discarder among them pays only its share, one outside nothing
    ("{" + H + ',"hubao":[[0,1],[2,0]]}', _win(4, PLAIN["patterns"], [24, -12, -12, 0])),
    ("{" + H + ',"hubao":[[0,1],[2,0]],"discarder":2}', _win(4, PLAIN["patterns"], [8, -4, -4, 0])),
    ("{" + H + ',"hubao":[[0,1],[2,0]],"discarder":3}', _win(4, PLAIN["patterns"], [8, -4, -4, 0])),
    ("{" + H + ',"hubao":[[1,1]]}', "hubao"),
    ("{" + H + ',"hubao":[[1,2,3]]}', "hubao"),
    # tile codes are lower case and without spaces; the winning tile is one tile
    ('{"hand":"111m999p222s777s5z","win_tile":"5Z"}', "Z"),
    ('{"hand":"111M999p222s777s5z","win_tile":"5z"}', "M"),
    ('{"hand":"111m 999p222s777s5z","win_tile":"5z"}', "hand"),
    ('{"hand":"111m999p222s777s5z","win_tile":"5z5z"}', "win_tile"),
    ('{"hand":"5555z123m456p789s","win_tile":"5z"}', "5z"),  # five of a kind
    # hui and indicator together must agree (indicator 8s: 惠牌 9s)
    ("{" + H + ',"hui":"9s","indicator":"8s"}', PLAIN),
    ("{" + H + ',"hui":"9s","indicator":"7s"}', "indicator"),
    ("{" + H + ',"hui":"9s","rules":"hebei"}', "hui"),
    # situation: the four booleans only
    ("{" + H + ',"situation":{"bogus":true}}', "bogus"),
    ("{" + H + ',"situation":{"last_tile":1}}', "last_tile"),
    ("{" + H + ',"situation":[]}', "situation"),
    ("{" + H + ',"situation":{"robbed_kong":true}}', "discarder"),
    # 杠上开花 is a self-draw on the replacement; 天和 scores no 庄 (docs/RULES.md 6.1)
    ("{" + H + ',"situation":{"after_kong":true}}',
     _win(9, {"庄": 1, "门清无惠": 1, "对对和": 2, "杠上开花": 5}, [27, -9, -9, -9])),
    ("{" + H + ',"discarder":1,"situation":{"after_kong":true}}', _win(4, PLAIN["patterns"], [4, -4, 0, 0])),
    ("{" + H + ',"situation":{"first_turn":true}}',
     _win(13, {"门清无惠": 1, "对对和": 2, "天和": 10}, [39, -13, -13, -13])),
    # beijing 捉五魁 with the 惠牌 given by its indicator (1z: 惠牌 2z)
    ('{"hand":"123m46m789p11s234s","win_tile":"5m","indicator":"1z"}',
     _win(4, {"庄": 1, "门清无惠": 1, "捉五魁": 2}, [12, -4, -4, -4])),
    # melds: a kong may be written with three tiles; a concealed kong's "from" may be null; no chi under hebei
    ('{"hand":"111m999p123s5z","melds":[{"type":"kong","tiles":"777s","from":1}],"win_tile":"5z"}',
     _win(2, {"庄": 1, "推倒和": 1}, [6, -2, -2, -2])),
    ('{"hand":"111m999p123s5z","melds":[{"type":"concealed_kong","tiles":"7777s","from":null}],"win_tile":"5z"}',
     _win(3, {"庄": 1, "门清无惠": 1, "推倒和": 1}, [9, -3, -3, -3])),
    ('{"hand":"111m999p123s5z","melds":[{"type":"concealed_kong","tiles":"7777s","from":1}],"win_tile":"5z"}',
     "from"),
    ('{"hand":"111m999p123s5z","melds":[{"type":"pong","tiles":"778s","from":1}],"win_tile":"5z"}', "pong"),
    ('{"hand":"111m999p123s5z","melds":[{"type":"pong","tiles":"777s","from":0}],"win_tile":"5z"}', "from"),
    ('{"hand":"111m999p123s5z","melds":[{"type":"pong","tiles":"777s","from":2.0}],"win_tile":"5z"}', "from"),
    ('{"hand":"111m999p123s5z","melds":[{"type":"pong","tiles":"555z","from":1}],"win_tile":"5z"}', "5z"),
    # hebei (docs/RULES.md 6.2): 十三幺's 14th tile is a dragon; a dealer's discard win with X > 0 makes the
    # discarder pay 8 + X and each other X; 抢杠胡 with the robbed kong's declarer as the discarder
    ('{"rules":"hebei","hand":"19m19p19s1234567z","win_tile":"5z"}',
     _win(12, {"门清": 2, "十三幺": 10}, [48, -16, -16, -16])),
    ('{"rules":"hebei","hand":"19m19p19s1234567z","win_tile":"1z"}', {"legal": False}),
    ('{"rules":"hebei","hand":"1111m2222m3333m4m","win_tile":"4m"}',
     _win(37, {"门清": 2, "清一色": 3, "三豪华": 32}, [123, -41, -41, -41])),
    (('{"rules":"hebei","hand":"11m46m","melds":[{"type":"pong","tiles":"222p","from":1},{"type":"pong","tiles":"333p",'
     '"from":1},{"type":"pong","tiles":"444p","from":2}],"win_tile":"5m","discarder":3}'),
     _win(5, {"捉五": 5}, [23, -5, -5, -13])),
    (('{"rules":"hebei","hand":"5m","melds":[{"type":"pong","tiles":"222p","from":1},{"type":"pong","tiles":"333p",'
     '"from":1},{"type":"pong","tiles":"444p","from":2},{"type":"kong","tiles":"6666s","from":2}],"win_tile":"5m",'
     '"situation":{"robbed_kong":true},"discarder":1}'),
     _win(7, {"抢杠胡": 2, "碰碰胡": 3, "大吊车": 2}, [29, -15, -7, -7])),
    # quemen (docs/RULES.md 6.3): 天胡 adds 3; 地胡 is a non-dealer's self-draw only; 报听 doubles the scores
    # and leaves fan and patterns as they are
    ('{"rules":"quemen","hand":"111m222m333m444m5m","win_tile":"5m","situation":{"first_turn":true}}',
     _win(7, {"清碰": 4, "天胡": 3}, [21, -7, -7, -7])),
    ('{"rules":"quemen","hand":"111m222m333m444m5m","win_tile":"5m","situation":{"first_turn":true},"winner":1}',
     _win(6, {"清碰": 4, "地胡": 2}, [-6, 18, -6, -6])),
    (('{"rules":"quemen","hand":"111m222m333m444m5m","win_tile":"5m","situation":{"first_turn":true},"winner":1,'
     '"discarder":0}'), _win(4, {"清碰": 4}, [-4, 4, 0, 0])),
    ('{"rules":"quemen","hand":"111m999m222m333p5p","win_tile":"5p","ting":true,"flowers":2}',
     _win(4, {"碰碰胡": 2, "花牌": 2}, [24, -8, -8, -8])),
    ("{" + H + ',"ting":true}', "ting"),
    ("{" + H + ',"flowers":1}', "flowers"),
    ('{"rules":"quemen","hand":"111m999m222m333p5p","win_tile":"5p","flowers":9}', "flowers"),
]


@pytest.fixture(scope="module")
def answers() -> list[dict]:
    """Every line of `CASES` through one run of ``python -m mj_env.score``, CRLF line ends (docs/INTERFACES.md 1:
    one answer per line, in order, exit status 0)."""
    data = b"".join(line.encode("utf-8") + b"\r\n" for line, _ in CASES)
    p = subprocess.run([sys.executable, "-m", "mj_env.score"], input=data, capture_output=True, check=False,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode("utf-8").split("\n")
    assert out[-1] == "" and len(out) == len(CASES) + 1
    return [json.loads(line) for line in out[:-1]]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[line[:60] for line, _ in CASES])
def test_each_exam_line_answers_as_docs_interfaces_says(answers, i):
    _line, want = CASES[i]
    got = answers[i]
    if isinstance(want, str):
        assert set(got) == {"error"} and isinstance(got["error"], str), got
        assert want in got["error"], got
    elif want == {"legal": False}:
        assert set(got) == {"legal", "reason"} and got["legal"] is False and got["reason"], got
    else:
        assert got == want
        assert list(got) == ["legal", "fan", "patterns", "shaozhuang", "scores"]


def test_every_win_in_the_exam_has_the_documented_shape(answers):
    """``fan`` is the sum of ``patterns``; ``scores`` are four integers that sum to zero (docs/INTERFACES.md 1)."""
    wins = [a for a in answers if a.get("legal") is True]
    assert len(wins) > 20
    for a in wins:
        assert a["fan"] == sum(a["patterns"].values())
        assert len(a["scores"]) == 4 and all(type(s) is int for s in a["scores"]) and sum(a["scores"]) == 0
        assert type(a["shaozhuang"]) is int and a["shaozhuang"] >= 0


def _pipe(objs: list[dict]) -> list[dict]:
    data = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8")
    p = subprocess.run([sys.executable, "-m", "mj_env.score"], input=data, capture_output=True, check=False,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.decode("utf-8").splitlines()]


def _answer_of(win: dict) -> dict:
    return {k: v for k, v in win.items() if k != "input"}


def test_two_hebei_winners_on_one_discard_each_pipe_back_and_sum():
    """docs/INTERFACES.md 2: with several winners on one discard (hebei), ``wins`` lists one calculator object per
    winner, each with the ``input`` that gives it again through ``python -m mj_env.score``, and ``scores`` is
    their sum; the rewards are those scores. East deals in 5z to South and West, both 门清 (6 + 2 from East to
    each, 2 from each other non-winner, the co-winner included)."""
    a = actions.index
    wall = build_wall("hebei", hands={0: "5z", 1: "123m456m789p111s5z", 2: "234m567m789s222s5z"}, seed=3)
    e = mj_env.env(rules="hebei")
    e.reset(options={"wall": wall, "dealer": 0})
    e.step(a("discard 5z"))
    for agent in ("player_1", "player_2"):
        assert e.agent_selection == agent
        assert [actions.name(i) for i in np.flatnonzero(e.observe(agent)["action_mask"])] == ["win", "pass"]
        e.step(a("win"))
    assert all(e.terminations.values())
    s = e.infos["player_0"]["settlement"]
    assert [w["scores"] for w in s["wins"]] == [[-8, 12, -2, -2], [-8, -2, 12, -2]]
    assert s["scores"] == [-16, 10, 10, -4]
    assert [e.rewards[f"player_{i}"] for i in range(4)] == s["scores"]
    assert _pipe([w["input"] for w in s["wins"]]) == [_answer_of(w) for w in s["wins"]]
    assert all(not e.observe(agent)["action_mask"].any() for agent in e.agents)


@pytest.mark.parametrize("overrides, rules", [
    ({"base": 7}, "beijing"),
    ({"hubao_claims": 2, "shaozhuang": False}, {"name": "beijing", "shaozhuang": False}),
])
def test_a_win_input_names_only_the_rule_fields_that_bear_on_the_score(overrides, rules):
    """docs/RULES.md 6.4 on docs/INTERFACES.md 2's ``input``: ``rules`` is the preset name unless a rule field that
    bears on the score differs (then the object form with only such fields); ``base`` travels as its own field.
    South wins East's first discard (地和), and only the seat asked has ones in its mask."""
    a = actions.index
    wall = build_wall("beijing", hands={0: "5z", 1: "123m456m789p111s5z"}, indicator="1p", seed=3)
    e = mj_env.env(**overrides)
    e.reset(options={"wall": wall, "dealer": 0})
    e.step(a("discard 5z"))
    assert e.agent_selection == "player_1"
    assert all(not e.observe(agent)["action_mask"].any() for agent in e.agents if agent != "player_1")
    e.step(a("win"))
    s = e.infos["player_1"]["settlement"]
    base = overrides.get("base", 1)
    assert s["input"]["rules"] == rules and s["input"]["base"] == base
    assert s["patterns"] == {"庄": 1, "门清无惠": 1, "地和": 8} and s["scores"] == [-10 * base, 10 * base, 0, 0]
    assert _pipe([s["input"]]) == [_answer_of(s)]


def test_action_names_and_indices_round_trip_and_refuse_what_is_no_action():
    """docs/INTERFACES.md 2: ``name(i)`` and ``index(name)`` are inverse over the one Discrete space, with the
    documented names; a name not in the list and an integer outside the space are refused."""
    n = int(mj_env.env().action_space("player_0").n)
    assert [actions.index(actions.name(i)) for i in range(n)] == list(range(n))
    assert actions.name(np.int64(4)) == actions.name(4) == "discard 5m"
    for name in ("discard 5m", "kong 5m", "win", "pass", "pong", "kong", "chi 345m", "ting 5m"):
        assert actions.name(actions.index(name)) == name
    for bad in ("discard 0m", "chi 346m", "Win", " win", "discard  5m", "ting 5f"):
        with pytest.raises(actions.ActionError):
            actions.index(bad)
    for bad in (-1, n, 1.0, True, "3"):
        with pytest.raises(actions.ActionError):
            actions.name(bad)


@pytest.mark.parametrize("options, seed", [({"dealer": 4}, None), ({"dealer": 1.0}, None), ({}, -1), ({}, "5")])
def test_a_refused_reset_leaves_the_running_hand_as_it_was(options, seed):
    """docs/RULES.md 7 for reset's options and seed (docs/INTERFACES.md 2): a bad dealer or seed is refused and
    the hand being played goes on as it was."""
    e = mj_env.env()
    e.reset(seed=4)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    agent = e.agent_selection
    before = (agent, e.observe(agent)["observation"].copy(), e.observe(agent)["action_mask"].copy())
    with pytest.raises(ValueError):
        e.reset(seed=seed, options=options)
    assert e.agent_selection == before[0]
    assert np.array_equal(e.observe(agent)["observation"], before[1])
    assert np.array_equal(e.observe(agent)["action_mask"], before[2])


def test_a_drawn_hand_settles_its_shaozhuang_line_unbased_and_its_scores_based():
    """docs/INTERFACES.md 2: a drawn hand's settlement is exactly ``{"draw": true, "shaozhuang": S, "scores": [...]}``
    with S the 烧庄 line 2^(R-1) (as the calculator's ``shaozhuang``: not multiplied by the base) and ``scores``
    with the base applied. East and the three others discard 1z in turn (one round), then nobody claims or wins."""
    a = actions.index
    wall = build_wall("beijing", hands={0: "1z", 1: "1z", 2: "1z", 3: "1z"}, indicator="9p", seed=0)
    e = mj_env.env(base=10)
    e.reset(options={"wall": wall, "dealer": 0})
    for _ in range(4):
        while e.observe(e.agent_selection)["action_mask"][a("pass")]:
            e.step(a("pass"))
        e.step(a("discard 1z"))
    while not all(e.terminations.values()):
        legal = [actions.name(i) for i in np.flatnonzero(e.observe(e.agent_selection)["action_mask"])]
        e.step(a("pass") if "pass" in legal else a(next(n for n in legal if n.startswith("discard"))))
    assert e.infos["player_0"]["settlement"] == {"draw": True, "shaozhuang": 1, "scores": [-30, 10, 10, 10]}
    assert [e.rewards[f"player_{i}"] for i in range(4)] == [-30, 10, 10, 10]
