"""Outside audit of what a person reads: the arena's printed table, the rendered table, the illegal-action
messages (docs/INTERFACES.md 2)."""
from __future__ import annotations

import math
import unicodedata

from agents.arena_report import format_table


def _agent(name, mean=0.0, ci=(-1.0, 1.0)):
    return {"name": name, "mean_points": mean, "ci95": list(ci), "win_rate": 0.25, "self_draw_rate": 0.1,
            "deal_in_rate": 0.05, "avg_fan": None, "hands": 4}


def _summary(agents, walls=2):
    return {"walls": walls, "hands_played": 4 * walls, "seatings": [[0, 1, 0, 1], [1, 0, 1, 0]],
            "draw_rate": 0.0, "agents": agents}


def _columns(text: str) -> int:
    """Terminal columns of one line: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def test_the_arena_table_stays_aligned_with_wide_and_odd_agent_names():
    """A checkpoint under a Chinese folder name (a likely path in a Chinese mahjong project) took 28 characters
    but up to 56 terminal columns, shifting every number of its row right; a name holding a line break broke
    the row in two. Every row of the table is now as wide as the header, on one line."""
    names = ["runs/规则对比实验/final.pt", "规则" * 20, "a" * 100, "x\ny", "random"]
    text = format_table(_summary([_agent(n) for n in names] + [_agent("one", ci=(-math.inf, math.inf))]))
    lines = text.splitlines()
    width = _columns(lines[0])
    rows = lines[2:2 + len(names) + 1]
    assert len(rows) == len(names) + 1 and all(r.split()[-1] == "-" for r in rows)  # each row on one line
    assert [_columns(r) for r in rows] == [width] * len(rows)
    assert "final.pt" in rows[0] and "规则" in rows[1] and "random" in rows[4]


def test_the_arena_table_prints_a_summary_read_back_from_its_json_file(tmp_path):
    """The ``--json`` file is the summary with a one-wall interval as ``[null, null]`` (agents/arena.py's
    docstring); printing the table of a summary read back from it raised "unsupported format string passed
    to NoneType.__format__". It now prints as the summary itself does."""
    import json

    from agents.arena_report import json_text
    summary = _summary([_agent("rule", ci=(-math.inf, math.inf)), _agent("random", ci=(-math.inf, math.inf))],
                       walls=1)
    back = json.loads(json_text(summary))
    assert back["agents"][0]["ci95"] == [None, None]
    assert format_table(back) == format_table(summary)


def test_an_action_for_an_agent_whose_hand_is_over_names_the_agent_and_the_action():
    """docs/INTERFACES.md 2: an illegal action "raises an error naming the action and why it is illegal". An action
    stepped for an agent already terminated was refused by PettingZoo's bare "when an agent is dead, the only valid
    action is None", naming neither. It now says which agent and which action, still as a ValueError, and the
    env goes on as it was (step(None) for each agent)."""
    import numpy as np
    import pytest

    import mj_env
    from mj_env import actions as A

    e = mj_env.env(illegal_action="penalize")
    e.reset(seed=0)
    e.step(A.index("pass"))                                # illegal on one's own turn: the hand ends
    assert all(e.terminations.values())
    for action in (3, np.int64(3), "x"):
        with pytest.raises(ValueError) as err:
            e.step(action)
        msg = str(err.value)
        assert "player_0" in msg and "is over" in msg and "step(None)" in msg and "\n" not in msg, msg
    with pytest.raises(A.ActionError, match=r"player_0: action 'discard 4m' .*step\(None\)"):
        e.step(3)
    for _ in range(4):
        e.step(None)
    assert e.agents == []


def test_settlement_text_says_who_won_how_with_what_and_every_seats_points():
    from mj_env.render import settlement_text

    def win(winner, discarder, fan, patterns, situation=None):
        return {"legal": True, "fan": fan, "patterns": patterns, "scores": [0, 0, 0, 0],
                "input": {"winner": winner, "discarder": discarder, "situation": situation or {}}}

    assert settlement_text({"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}) == "drawn | scores +0 +0 +0 +0"
    assert settlement_text({"draw": True, "shaozhuang": 2, "scores": [-6, 2, 2, 2]}) == \
        "drawn (烧庄 2) | scores -6 +2 +2 +2"
    one = {**win(1, 0, 2, {"庄": 1, "推倒和": 1}), "scores": [-6000, 3000, 2000, 1000]}
    assert settlement_text(one) == \
        "seat 1 (South) wins on seat 0's discard: 2 fan (庄 1, 推倒和 1) | scores -6000 +3000 +2000 +1000"
    robbed = {**win(3, 2, 1, {"抢杠": 1}, {"robbed_kong": True}), "scores": [0, 0, -4, 4]}
    assert settlement_text(robbed).startswith("seat 3 (North) wins robbing seat 2's kong: 1 fan (抢杠 1)")
    several = {"wins": [win(1, 0, 1, {"平和": 1}), win(3, 0, 2, {"对对和": 2})], "scores": [-5, 2, 0, 3]}
    assert settlement_text(several) == ("seat 1 (South) wins on seat 0's discard: 1 fan (平和 1); seat 3 (North) "
                                        "wins on seat 0's discard: 2 fan (对对和 2) | scores -5 +2 +0 +3")
    # the tile won from another seat is named: it has left the discarder's river (or the declarer's hand)
    for w, situation, how in ((one, {}, "on seat 0's discard 🀋 5m"),
                              (robbed, {"robbed_kong": True}, "robbing seat 2's kong of 🀋 5m")):
        named = {**w, "input": {**w["input"], "win_tile": "5m", "situation": situation}}
        assert settlement_text(named).split(": ")[0].endswith(how), settlement_text(named)


def test_a_rendered_match_says_hand_over_only_while_a_hand_is_over():
    """The AEC env's render names the ended hand's result; in a match the next hand, dealt at once, is not over."""
    import numpy as np

    import mj_env

    env = mj_env.env(render_mode="ansi", hands_per_episode=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    hands_seen = 0
    for agent in env.agent_iter(max_iter=3000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert env.render().splitlines()[-1].startswith("hand over: ")
            env.step(None)
            continue
        if "settlement" in info and agent == env.agents[0]:
            hands_seen += 1
        text = env.render()
        assert "hand over" not in text and "to act" in text.splitlines()[-1]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert hands_seen >= 1
