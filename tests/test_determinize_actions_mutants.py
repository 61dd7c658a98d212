"""Gaps found by mutating mj_env/determinize.py, mj_env/actions.py and mj_env/illegal.py (mutants that survived
the tests of each module): each test here failed under the mutant named in its docstring and passes on the code;
worked out from docs/RULES.md 7, docs/INTERFACES.md 2 and the modules' documented behaviour."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env.actions import ActionError, refuse_bools_in


# ------------------------------------------------------------------------------------------- actions.py
@pytest.mark.parametrize("actions", [np.array([0.5, 3.0]), np.ma.masked_array([1, 2], mask=[True, False]), 7,
                                     np.float64(2.0), None])
def test_refuse_bools_in_leaves_arrays_scalars_and_others_to_the_callers_checks(actions):
    """``refuse_bools_in`` looks into lists and tuples only: "Arrays and tensors are left to their dtype" (the
    caller refuses them by shape and dtype, with its own message). Mutants: the early return's test reduced to
    ``set(map(type, actions)) <= {int}`` or joined by ``and`` (an array's floats were refused here, a scalar or
    None raised a TypeError)."""
    assert refuse_bools_in(actions) is None


@pytest.mark.parametrize("actions, entry", [([3, True], "True"), ([[3], []], r"\[\]"), ([3, [1, [2]]], r"\[1, \[2\]\]"),
                                            ([[4], [np.True_]], r"np\.True_")])
def test_refuse_bools_in_refuses_a_non_integer_entry_by_its_table(actions, entry):
    """An entry that is no integer, nor a row of one integer, is an ActionError naming its table (not a TypeError
    or IndexError from looking into it). Mutants: ``isinstance(a, (list, tuple))`` dropped (len(True) raised), the
    row test ``len(a) == 1`` flipped or made ``== 0`` (``[]`` was indexed), a ragged entry counted an integer."""
    with pytest.raises(ActionError, match=rf"action {entry} \(\w+\) at table 1 is not an integer in 0-126"):
        refuse_bools_in(actions)


def test_one_action_takes_a_masked_array_whose_value_is_not_masked():
    """``one_action`` refuses "a masked value" only: a 0-d masked array with nothing masked is its integer. Mutant:
    the mask test dropped (every masked array refused)."""
    assert A.one_action(np.ma.masked_array(5, mask=False)) == 5
    with pytest.raises(ActionError, match="masked"):
        A.one_action(np.ma.masked_array(5, mask=True))


# ------------------------------------------------------------------------------------------- illegal.py
@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_why_states_no_reason_against_a_legal_win_discard_kong_or_claim(rules):
    """``illegal.why`` gives None for an action the mask allows (a win, a discard outside 报听, a kong, a pong, a
    chi): none of its reasons is true of such an action. (After 报听 its discard reason, and its 报听 and pass
    branches, assume a refusal: left out.) Mutants: the win branch's ``return None`` removed (a legal win fell
    through to "has no 报听"), its 缺一门 test joined by ``or`` (a beijing win "holds all three suits"), the 报听 test
    of a discard forced True."""
    from mj_env.baselines import RuleBasedAgent
    from mj_env.engine import Engine
    from mj_env.illegal import why
    from mj_env.observation import observe
    eng = Engine(rules, num_tables=16, seed=3)
    eng.reset()
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(0)
    seen = set()
    for _ in range(120):
        mask, st = eng.legal_mask(), eng.state
        for b, a in zip(*np.nonzero(mask)):
            a = int(a)
            if a == A.PASS or a >= A.TING or (a < A.KONG_SELF and st.ting[b, st.to_act[b]]):
                continue
            assert why(eng.rules, st, int(b), a) is None, (rules, int(b), A.name(a))
            seen.add(A.name(a).split()[0])
        live = mask.any(axis=1)
        acts = np.zeros(16, dtype=np.int64)
        obs = {"observation": observe(eng.rules, st), "action_mask": mask, "seat": st.to_act}
        acts[live] = agent.act({k: v[live] for k, v in obs.items()}, rng)
        eng.step(acts)
        ended = np.flatnonzero(~eng.legal_mask().any(axis=1))
        if len(ended):
            eng.reset(tables=ended)
    assert {"win", "discard", "kong", "pong"} <= seen


def test_an_added_kong_with_no_replacement_tile_is_refused_for_that():
    """Seat 1 pongs 5p and then draws the fourth 5p with the reserve empty (beijing, reserve=0): its added kong is
    refused because no tile is left to replace it (docs/RULES.md 3), not for want of tiles. Mutant: the kong test
    reduced to ``hand[x] == 4`` (an added kong was said to need four in hand)."""
    from fast_game import FastGame
    from scenario_helpers import play
    from walls import build_wall

    from mj_env.rules import get_rules
    hands = {0: "123m456m789m2p5p7z7z", 1: "55p66p1234z22s46m", 2: "258m147p258s1234z", 3: "369m369p369s1234z"}
    g = FastGame(get_rules("beijing", reserve=0), build_wall("beijing", hands=hands, indicator="9s",
                                                             draws="6z6z6z5p"), 0)
    play(g, (0, "discard 5p"), (1, "pong"), (1, "discard 4m"), (2, "discard 6z"), (3, "discard 6z"), (0, "discard 6z"))
    assert g.to_act == 1 and g.hands[1][A.index("discard 5p")] == 1
    with pytest.raises(ActionError) as e:
        g.step(A.index("kong 5p"))
    assert "no tile is left to replace a kong" in str(e.value) and "needs four" not in str(e.value)
