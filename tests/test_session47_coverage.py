"""Lines that the default suite never ran (a coverage audit, helper BK): each test here checks the result of
such lines, and fails when they are broken by hand.

- ``hand.hand_distance_changed`` under 缺一门 with seven pairs switched off (``_lack_suit_changed``'s
  ``rules.seven_pairs`` false branch): a RuleSet a user can make (``quemen`` or ``beijing`` with
  ``lack_suit``, and ``seven_pairs=False``), which tests/test_hand_distance_changed.py's rule sets leave out.
- ``determinize.redeal`` and ``shuffle_wall`` given no tables (``tables=[]``): an empty answer, no table, no
  random number and no tile touched.
- ``actions.one_action`` given an object whose ``__array__`` raises (a torch tensor that needs grad): the
  ActionError naming its type that every other non-integer gets, from the AEC and the single-agent env's
  ``step``, and the game goes on.
- ``agents.play.seat_view`` (what ``python -m agents.play`` shows a seat): the 烧庄 rounds in its head line
  once a round is complete, and the question of a seat that may rob an added kong.
- ``python train.py`` whose behaviour cloning diverges (TrainingDiverged, not the overflowing logits that
  tests/test_train_smoke.py's run meets): one line on standard error, exit status 1, no traceback.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fast_game import FastGame
from scenario_helpers import BEIJING, ROB, ROB_MOVES, play
from test_hand_distance_changed import check, legal_changes, wild_rich_hands
from unreadable import Unreadable
from walls import build_wall

import mj_env
from agents.play import seat_view
from mj_env import hand
from mj_env.actions import ActionError
from mj_env.determinize import redeal, shuffle_wall
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.single_agent import MahjongSingleAgentEnv


@pytest.mark.parametrize("preset, fields", [("quemen", {"seven_pairs": False}),
                                            ("beijing", {"lack_suit": True, "seven_pairs": False})])
def test_lack_suit_changes_without_seven_pairs_match_the_plain_call(preset, fields):
    """The changed hands' distances equal ``hand_distance`` of the changed hands (``check``), with and without
    declared melds' suits; and seven pairs is really off: a hand one tile from seven pairs of two suits
    (and far from four melds and a pair) is not 1 from a win."""
    rules = get_rules(preset, **fields)
    assert rules.lack_suit and not rules.seven_pairs
    rng = np.random.default_rng(47)
    counts, hui = wild_rich_hands(rng, 400)
    if not rules.hui:
        hui[:] = -1
    melds = rng.random((len(counts), 3)) < 0.3
    for delta in (1, -1):
        rows, kinds = legal_changes(rng, counts, hui, delta, 0.7)
        assert len(rows) > 500
        for ms in (melds, None):
            check(rules, counts, hui, ms, rows, kinds, delta)
    pairs = np.zeros((1, 34), dtype=np.int8)
    pairs[0, [0, 2, 4, 6, 9, 11, 13]] = 2          # 1357m 135p pairs (no 惠牌) ...
    pairs[0, 13] = 1                                # ... less one 5p: 13 tiles, seven pairs wants one 5p
    no_hui = np.array([-1])
    with_pairs = get_rules(preset, **{**fields, "seven_pairs": True})
    kinds = np.array([13])
    assert hand.hand_distance_changed(with_pairs, pairs, no_hui, None, np.array([0]), kinds, 1)[0] == 0
    got = hand.hand_distance_changed(rules, pairs, no_hui, None, np.array([0]), kinds, 1)[0]
    assert got == hand.hand_distance(rules, pairs + np.eye(34, dtype=np.int8)[13], no_hui)[0] > 0


@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_redeal_and_shuffle_wall_of_no_tables_change_nothing(rules):
    eng = Engine(rules, num_tables=3, seed=1)
    before = {k: v.copy() for k, v in vars(eng.state).items() if isinstance(v, np.ndarray)}
    rng = np.random.default_rng(5)
    got = redeal(eng, 0, rng, tables=[])
    assert got.dtype == bool and got.shape == (0,)
    assert shuffle_wall(eng, rng, tables=[]) is None
    assert rng.random() == np.random.default_rng(5).random()  # no random number taken
    for k, v in before.items():
        assert np.array_equal(getattr(eng.state, k), v), k


def test_an_action_numpy_cannot_read_is_refused_as_no_integer_and_the_game_goes_on():
    env = mj_env.env()
    env.reset(seed=3)
    seat = env.agent_selection
    with pytest.raises(ActionError, match=r"\(Unreadable\) is not an integer in 0-126"):
        env.step(Unreadable())
    assert env.agent_selection == seat
    env.step(int(np.flatnonzero(env.observe(seat)["action_mask"])[0]))
    single = MahjongSingleAgentEnv()
    single.reset(seed=3)
    with pytest.raises(ActionError, match=r"\(Unreadable\) is not an integer in 0-126"):
        single.step(Unreadable())
    single.step(int(np.flatnonzero(single.action_masks())[0]))


def test_the_play_view_shows_shaozhuang_rounds_and_asks_the_robber():
    # each seat holds one East wind (no pong, no chi of an honor): the dealer and then the three others
    # discard it in turn, one round of 烧庄 (docs/RULES.md 6.1)
    g = FastGame(BEIJING, build_wall(BEIJING, indicator="9s", hands={s: "1z" for s in range(4)}, seed=3), 0)
    play(g, (0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"))
    assert "烧庄" not in seat_view(BEIJING, g.engine.state, 3, ["a"] * 4)
    play(g, (3, "discard 1z"))
    head = seat_view(BEIJING, g.engine.state, 0, ["a"] * 4).splitlines()[0]
    assert head.endswith("-> 惠牌 🀐 1s | 烧庄 x1"), head
    # seat 1 adds a kong of 5m to its pong; seat 3 waits on 5m with a concealed hand (docs/RULES.md 4.4)
    g = FastGame(BEIJING, build_wall(BEIJING, indicator="9s", **ROB), 0)
    play(g, *ROB_MOVES, (1, "kong 5m"))
    assert (g.phase, g.to_act) == ("ROB", 3)
    last = seat_view(BEIJING, g.engine.state, 3, ["a"] * 4).splitlines()[-1]
    assert last == "South (a) declares an added kong of 🀋 5m: rob it?"


def test_train_py_whose_cloning_diverges_says_so_in_one_line(tmp_path):
    pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, str(root / "train.py"), "--bc-learning-rate", "1e9", "--bc-steps", "8",
                           "--total-steps", "0", "--num-envs", "16", "--num-steps", "32", "--final-eval-hands", "0",
                           "--eval-every", "0", "--no-progress", "--no-eval-pretrained", "--threads", "1"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("train.py: error: training diverged: the loss of behaviour "
                                                   "cloning is nan; lower --bc-learning-rate"), proc.stderr
