"""Rare combinations at the public interfaces (docs/INTERFACES.md 1 and 2, and the environments' documented
arguments: the AEC env of ``mj_env/aec.py``, ``MahjongVectorEnv`` of ``mj_env/vector.py``, the single-agent
envs of ``mj_env/single_agent.py``) that the other tests meet only in their common case: an illegal action at
the last decision of a hand as well as the first, a penalty in a later hand of a match, a hand that ended at its
deal met by a step, a render or a record, ``reset`` options combined with a seed, a table's reset in the middle
of a match, a rotating seat over a match, the calculator's fields that belong to another rule set. Each
expectation was written from those documents before the code was read; all of them hold (no code changed).
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from walls import build_wall, four_hui_wall

import mj_env
from mj_env import actions as A
from mj_env.baselines import RuleBasedAgent
from mj_env.calculator import evaluate
from mj_env.engine import _STATE_FIELDS
from mj_env.records import replay
from mj_env.score import answer
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv

PRESETS = ("beijing", "hebei", "quemen")


# ----------------------------------------------------------------------------- helpers

def _rule_action(e, agent: RuleBasedAgent, rng) -> int:
    """The rule agent's action for the AEC env's agent to act (a batch of one row)."""
    who = e.agent_selection
    obs = e.observe(who)
    return int(agent.act({"observation": obs["observation"][None], "action_mask": obs["action_mask"][None],
                          "seat": np.array([int(who[-1])])}, rng)[0])


def _play_aec_hand(e, rules: str, seed: int) -> list[int]:
    """Rule agents play ``e`` (reset already) until every agent is done; the actions taken, in order."""
    agent, rng, taken = RuleBasedAgent(rules), np.random.default_rng(seed), []
    while not all(e.terminations.values()):
        a = _rule_action(e, agent, rng)
        taken.append(a)
        e.step(a)
    return taken


def _illegal(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def _without_input(settlement: dict) -> dict:
    """A win's settlement as the calculator gives it for its ``input`` (the calculator's scores are
    ``hand_scores`` where kong payments exist, docs/RULES.md 6.4)."""
    out = {k: v for k, v in settlement.items() if k not in ("input", "hand_scores", "kong_scores")}
    out["scores"] = settlement.get("hand_scores", settlement["scores"])
    return out


def _vector_rule_actions(obs, agent, rng):
    return agent.act({k: obs[k] for k in ("observation", "action_mask", "seat")}, rng)


# ----------------------------------------------------------------------------- the AEC env: reset

@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_aec_a_dealer_option_beside_a_seed_keeps_the_seeds_wall(rules):
    """reset(seed=s, options={"dealer": d}): the seed still decides the wall (hebei draws its dealer after the wall,
    README), the option only who deals; the dealer acts first."""
    e = mj_env.env(rules=rules)
    e.reset(seed=5)
    wall = e.unwrapped.hand_record()["wall"]
    for dealer in range(4):
        e.reset(seed=5, options={"dealer": dealer})
        assert e.agent_selection == f"player_{dealer}"
        assert e.unwrapped.hand_record()["wall"] == wall
        assert e.unwrapped.hand_record()["dealer"] == dealer


def test_aec_an_explicit_wall_makes_the_seed_irrelevant_and_options_none_or_empty_are_the_default():
    wall = build_wall("beijing", seed=9)
    seen = []
    for seed, options in ((1, {"wall": wall}), (2, {"wall": wall, "dealer": None}), (None, {"wall": wall, "dealer": 0})):
        e = mj_env.env()
        e.reset(seed=seed, options=options)
        seen.append(e.state())
    assert all((s == seen[0]).all() for s in seen)
    a, b = mj_env.env(), mj_env.env()
    a.reset(seed=3, options=None)
    b.reset(seed=3, options={})
    assert (a.state() == b.state()).all()


def test_aec_an_explicit_wall_in_a_match_deals_the_first_hand_and_the_seed_the_later_ones():
    """reset(seed=s, options={"wall": w}) with hands_per_episode=2: w is the first hand's wall; the next hand's wall
    comes from the seed, so the same seed and actions repeat the match and another seed deals another wall."""
    wall = build_wall("beijing", seed=4)

    def walls(seed):
        e = mj_env.env(hands_per_episode=2)
        e.reset(seed=seed, options={"wall": wall})
        agent, rng, st, seen = RuleBasedAgent(), np.random.default_rng(0), e.unwrapped.engine.state, []
        while not all(e.terminations.values()):
            if len(seen) == int(st.hands_played[0]):
                seen.append(st.wall[0].tolist())
            e.step(_rule_action(e, agent, rng))
        return seen

    a, b, c = walls(5), walls(5), walls(6)
    assert len(a) == 2 and a[0] == b[0] == c[0] == wall
    assert a[1] == b[1] and a[1] != c[1]


# ----------------------------------------------------------------------------- the AEC env: the end of a hand

@pytest.mark.parametrize("rules", PRESETS)
def test_aec_every_agents_last_reward_is_its_settled_points_and_done_agents_see_no_legal_action(rules):
    """After a won hand, agent_iter gives every agent once more: last() holds its points (the settlement's
    ``scores`` at its seat) and the settlement; its mask is all zero; step(None) retires it; then the iteration
    ends, the agents list is empty, and last() and step() are refused with a word to reset. observe() of a retired
    agent still answers (mask all zero)."""
    e = mj_env.env(rules=rules)
    e.reset(seed=0)
    _play_aec_hand(e, rules, 0)
    seen = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        assert term and not trunc and not obs["action_mask"].any()
        assert obs["action_mask"].dtype == np.int8
        seen[agent] = reward
        settlement = info["settlement"]
        assert reward == settlement["scores"][int(agent[-1])]
        e.step(None)
    assert not settlement.get("draw"), "the seed was chosen for a won hand"
    assert e.infos == {} and e.rewards == {}  # (PettingZoo's step(None) drops a retired agent's entries)
    assert sorted(seen) == e.possible_agents and sum(seen.values()) == 0
    assert e.agents == [] and list(e.agent_iter()) == []
    assert not e.observe("player_2")["action_mask"].any()
    with pytest.raises(A.ActionError, match="reset"):
        e.last()
    with pytest.raises(A.ActionError, match="reset"):
        e.step(None)


def test_aec_an_action_for_a_done_agent_is_refused_not_penalized_even_under_penalize():
    """A hand that ended at its deal (四惠牌): every agent is done at once. An action instead of None is an error
    naming the agent (PettingZoo: step(None) for a done agent), not an illegal action to penalize; nothing
    changes."""
    e = mj_env.env(illegal_action="penalize")
    e.reset(options={"wall": four_hui_wall(), "dealer": 0})
    rewards = dict(e.rewards)
    with pytest.raises(A.ActionError, match=r"player_0.*over"):
        e.step(0)
    assert e.rewards == rewards and e._cumulative_rewards == rewards
    assert all("illegal_action" not in e.infos[a] for a in e.agents)
    assert rewards == {"player_0": 27, "player_1": -9, "player_2": -9, "player_3": -9}


def test_aec_a_hand_that_ended_at_its_deal_renders_records_and_replays():
    e = mj_env.env(render_mode="ansi")
    e.reset(options={"wall": four_hui_wall(), "dealer": 0})
    assert "四惠牌 8" in e.render().splitlines()[-1]
    assert e.state().shape == (4, 14, 34)
    assert all(not e.observe(a)["action_mask"].any() for a in e.agents)
    record = e.unwrapped.hand_record()
    assert record["actions"] == [] and replay(record) == e.infos["player_3"]["settlement"]
    human = mj_env.env(render_mode="human")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        human.reset(options={"wall": four_hui_wall(), "dealer": 0})
        assert human.render() is None
    assert "四惠牌 8" in out.getvalue()


@pytest.mark.parametrize("rules", PRESETS)
def test_aec_an_illegal_action_at_the_last_decision_is_refused_then_the_legal_one_settles_as_before(rules):
    """illegal_action="raise" (the default) at the decision that ends the hand: an error, the same agent still to
    act with the same mask and rewards; the legal action then gives the settlement of the undisturbed run."""
    first = mj_env.env(rules=rules)
    first.reset(seed=4)
    taken = _play_aec_hand(first, rules, 4)
    want = first.infos["player_0"]["settlement"]
    e = mj_env.env(rules=rules)
    e.reset(seed=4)
    for a in taken[:-1]:
        e.step(a)
    who = e.agent_selection
    mask = e.observe(who)["action_mask"]
    cumulative = dict(e._cumulative_rewards)
    with pytest.raises(A.ActionError, match=who):
        e.step(_illegal(mask))
    assert e.agent_selection == who and (e.observe(who)["action_mask"] == mask).all()
    assert e._cumulative_rewards == cumulative and not any(e.terminations.values())
    e.step(taken[-1])
    assert e.infos["player_0"]["settlement"] == want and all(e.terminations.values())


@pytest.mark.parametrize("rules", PRESETS)
def test_aec_a_penalized_illegal_action_at_the_last_decision_settles_nothing(rules):
    """illegal_action="penalize" at the decision that would have ended the hand (a win, a pass ...): the hand ends
    with the penalty instead, no settlement reaches any agent, the offender alone pays, every mask is empty, the
    picture says why, and the hand has no record to replay."""
    first = mj_env.env(rules=rules)
    first.reset(seed=4)
    taken = _play_aec_hand(first, rules, 4)
    e = mj_env.env(rules=rules, illegal_action="penalize", render_mode="ansi")
    e.reset(seed=4)
    for a in taken[:-1]:
        e.step(a)
    who = e.agent_selection
    bad = _illegal(e.observe(who)["action_mask"])
    e.step(bad)
    assert all(e.terminations.values())
    assert e._cumulative_rewards == {a: (-10 if a == who else 0) for a in e.possible_agents}
    assert e.infos[who] == {"illegal_action": A.name(bad)}
    assert all("settlement" not in e.infos[a] for a in e.agents)
    assert all(not e.observe(a)["action_mask"].any() for a in e.agents)
    assert e.render().splitlines()[-1].endswith(f"{who}'s illegal action '{A.name(bad)}' was penalized")
    with pytest.raises(mj_env.records.RecordError, match="illegal"):
        e.unwrapped.hand_record()
    e.reset(seed=4)  # a new hand starts clean: the penalty is gone
    assert e.observe(e.agent_selection)["action_mask"].any() and e.unwrapped.hand_record()["actions"] == []


def test_aec_a_penalty_at_the_first_decision_of_a_later_hand_ends_the_match_and_keeps_earlier_points():
    """hands_per_episode=3 with penalize: the first hand is won; the penalty at the next hand's first decision
    ends the whole match (a PettingZoo classic game's way). The offender's cumulative reward is the penalty alone
    (it read its earlier points before it acted), the others keep the first hand's points they have not read
    yet, with its settlement in their infos."""
    e = mj_env.env(hands_per_episode=3, illegal_action="penalize")
    e.reset(seed=0)
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    while "settlement" not in e.infos["player_1"]:
        e.step(_rule_action(e, agent, rng))
    first = e.infos["player_1"]["settlement"]
    assert not any(e.terminations.values()) and not first.get("draw")
    who = e.agent_selection
    e.step(_illegal(e.observe(who)["action_mask"]))
    assert all(e.terminations.values())
    for a in e.possible_agents:
        if a == who:
            assert e._cumulative_rewards[a] == -10 and "illegal_action" in e.infos[a]
        else:
            assert e._cumulative_rewards[a] == first["scores"][int(a[-1])]
            assert e.infos[a]["settlement"] == first
    with pytest.raises(mj_env.records.RecordError, match="hands_per_episode"):
        e.unwrapped.hand_record()


def test_aec_a_hebei_match_read_through_last_sums_to_the_match_scores_and_settlements():
    """hands_per_episode=3 under hebei (kong payments, a random first dealer): summed over every last(), each
    agent's rewards are the engine's match scores and the sum of the three hands' settled ``scores``; every
    settlement's ``input`` gives the calculator's answer again."""
    e = mj_env.env(rules="hebei", hands_per_episode=3)
    e.reset(seed=2)
    agent, rng = RuleBasedAgent("hebei"), np.random.default_rng(2)
    total = dict.fromkeys(e.possible_agents, 0)
    hands: list[dict] = []
    for who in e.agent_iter():
        _obs, reward, term, trunc, info = e.last()
        total[who] += reward
        s = info.get("settlement")
        if s is not None and all(s is not h and s != h for h in hands):
            hands.append(copy.deepcopy(s))
        e.step(None if term or trunc else _rule_action(e, agent, rng))
    assert len(hands) == 3
    match = e.unwrapped.engine.state.match_scores[0].tolist()
    assert [total[a] for a in e.possible_agents] == match == np.sum([h["scores"] for h in hands], axis=0).tolist()
    for s in hands:
        for w in s.get("wins", [s] if "input" in s else []):
            assert evaluate(w["input"]) == _without_input(w if "wins" in s else s)


def test_aec_a_reset_in_the_middle_of_a_match_drops_its_unread_points_and_settlement():
    """reset() while a match's first hand is settled but its points are not yet read by every agent: a new episode,
    with no rewards, no settlement in any infos, no match points, and East dealing again (beijing)."""
    e = mj_env.env(hands_per_episode=3)
    e.reset(seed=0)
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    while "settlement" not in e.infos["player_1"]:
        e.step(_rule_action(e, agent, rng))
    assert any(e._cumulative_rewards.values())
    e.reset(seed=1)
    zero = dict.fromkeys(e.possible_agents, 0)
    assert e._cumulative_rewards == zero and e.rewards == zero and e.infos == {a: {} for a in e.possible_agents}
    st = e.unwrapped.engine.state
    assert st.hands_played[0] == 0 and not st.match_scores[0].any() and st.dealer[0] == 0


def _shaozhuang_then_draw_wall() -> list[int]:
    """A beijing wall whose first four discards can be the four 7z (the dealer's 14th tile wall[52] and the next
    three draws), so that one round of 烧庄 happens when every seat discards its 7z."""
    wall = build_wall("beijing", draws="7z7z7z", seed=1)
    seven = 33
    j = next(i for i, t in enumerate(wall) if t == seven and i not in (53, 54, 55))
    wall[52], wall[j] = wall[j], wall[52]
    return wall


@pytest.mark.parametrize(("fields", "want"), [
    ({}, {"draw": True, "shaozhuang": 1, "scores": [-3, 1, 1, 1]}),
    ({"base": 5}, {"draw": True, "shaozhuang": 1, "scores": [-15, 5, 5, 5]}),
    ({"shaozhuang_on_draw": False}, {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}),
    ({"base": 5, "shaozhuang_on_draw": False}, {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}),
])
def test_aec_a_drawn_hand_after_a_round_of_shaozhuang_with_a_base_and_the_draw_decision(fields, want):
    """docs/RULES.md 6.1: 烧庄 is settled in a drawn hand (Decision ``shaozhuang_on_draw``), base applied to the
    points, not to the ``shaozhuang`` line (2^(R-1), as the calculator gives it; docs/INTERFACES.md 1); with the
    Decision off nothing is settled and the line is 0. The seats discard the four 7z, then pass every claim and
    never win until the live wall is empty."""
    e = mj_env.env(**fields)
    e.reset(options={"wall": _shaozhuang_then_draw_wall(), "dealer": 0})
    rng, n = np.random.default_rng(0), 0
    while not all(e.terminations.values()):
        mask = e.observe(e.agent_selection)["action_mask"]
        if n < 4:
            a = A.index("discard 7z")
        elif mask[A.PASS]:
            a = A.PASS
        else:
            a = int(rng.choice([x for x in np.flatnonzero(mask) if A.name(int(x)).startswith("discard")]))
        e.step(a)
        n += 1
    assert all(e.infos[a]["settlement"] == want for a in e.possible_agents)
    assert [e.rewards[a] for a in e.possible_agents] == want["scores"]


# ----------------------------------------------------------------------------- the AEC env: state, render, close

def test_aec_state_is_the_v1_planes_of_every_seat_whatever_the_observation_layout():
    v1, v2 = mj_env.env(), mj_env.env(obs="v2")
    v1.reset(seed=2)
    v2.reset(seed=2)
    assert v2.observe("player_0")["observation"].shape == (18, 34)
    state = v2.state()
    assert state.shape == (4, 14, 34) and state.dtype == np.uint8 and (state == v1.state()).all()
    assert all((state[s] == v1.observe(f"player_{s}")["observation"]).all() for s in range(4))


def test_aec_close_twice_is_harmless_and_the_record_outlives_it():
    e = mj_env.env(render_mode="ansi")
    e.reset(seed=1)
    e.step(_illegal(1 - e.observe(e.agent_selection)["action_mask"]))  # a legal action: the first the mask allows
    e.close()
    e.close()
    for call in (lambda: e.reset(), lambda: e.last(), lambda: e.state(), lambda: e.render(),
                 lambda: e.observe("player_0"), lambda: e.step(0)):
        with pytest.raises(RuntimeError, match="close"):
            call()
    assert len(e.unwrapped.hand_record()["actions"]) == 1
    quiet = mj_env.env()
    quiet.reset(seed=1)
    quiet.close()
    quiet.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert quiet.render() is None  # no render mode: a warning and None, closed or not
    assert caught


@pytest.mark.parametrize("fields", [
    {"hands_per_episode": 2},
    {"rules": "quemen", "hands_per_episode": 2, "illegal_action": "penalize", "obs": "v2"},
    {"rules": "hebei", "hands_per_episode": 2, "render_mode": "ansi", "multiple_winners": False},
])
def test_pettingzoos_api_and_seed_tests_pass_on_matches(fields):
    """PettingZoo's own api_test and seed_test (the tests elsewhere run them on single hands) on matches of hands,
    with a penalty, the v2 layout, a render mode or a Decision field beside; enough cycles to end a match."""
    from pettingzoo.test import api_test, seed_test

    e = mj_env.env(**fields)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(e, num_cycles=1000, verbose_progress=False)
        seed_test(lambda: mj_env.env(**fields), num_cycles=500)


# ----------------------------------------------------------------------------- the calculator input of the env

def test_the_settlement_input_of_a_custom_match_carries_only_the_score_fields_and_the_base():
    """A match (hands_per_episode, a field that does not bear on a score) of base 500 with 惠牌 wild in melds:
    each win's ``input`` names the rule field that bears on the score in the object form and the base as its own
    field (docs/RULES.md 6.4), and ``python -m mj_env.score``'s answer to it is the settlement."""
    e = mj_env.env(hands_per_episode=2, base=500, hui_wild_in_melds=True)
    e.reset(seed=0)
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    wins = []
    while not all(e.terminations.values()):
        e.step(_rule_action(e, agent, rng))
        s = e.infos[e.possible_agents[0]].get("settlement")
        if s is not None and "input" in s and s not in wins:
            wins.append(copy.deepcopy(s))
    assert wins
    for s in wins:
        assert s["input"]["rules"] == {"name": "beijing", "hui_wild_in_melds": True} and s["input"]["base"] == 500
        assert answer(json.dumps(s["input"], ensure_ascii=False)) == _without_input(s)


NON_DEFAULT_DECISIONS = {  # every **Decision** field of docs/RULES.md that the preset reads, at its non-default value
    "beijing": {"multiple_winners": True, "hui_wild_in_melds": True, "shaozhuang_on_draw": False, "dealer_rotation": "next"},
    "hebei": {"multiple_winners": False, "discard_bonus_all_pay": False, "dealer_rotation": "previous"},
    "quemen": {"multiple_winners": True, "dealer_rotation": "previous"},
}


@pytest.mark.parametrize("preset", PRESETS)
def test_every_decision_field_off_its_default_together_through_a_match_of_the_aec_env(preset):
    """All the preset's Decision fields at their other value at once, over a match of four hands: the deal moves as
    ``dealer_rotation`` says after a hand the dealer neither won nor drew; every win's ``input`` names exactly the
    changed fields that bear on a score (docs/RULES.md 6.4) and gives the calculator's answer again."""
    fields = NON_DEFAULT_DECISIONS[preset]
    step = {"previous": -1, "next": 1}[fields["dealer_rotation"]]
    e = mj_env.env(rules=preset, hands_per_episode=4, **fields)
    score_fields = {k: v for k, v in fields.items() if k in ("hui_wild_in_melds", "discard_bonus_all_pay")}
    want_rules = {"name": preset, **score_fields} if score_fields else preset
    moved = 0
    for seed in range(2):
        e.reset(seed=seed)
        agent, rng = RuleBasedAgent(preset), np.random.default_rng(seed)
        st = e.unwrapped.engine.state
        dealer = int(st.dealer[0])
        while not all(e.terminations.values()):
            played = int(st.hands_played[0])
            e.step(_rule_action(e, agent, rng))
            if int(st.hands_played[0]) == played:
                continue
            s = e.infos["player_0"]["settlement"]
            wins = [] if s.get("draw") else s.get("wins", [s])
            for w in wins:
                assert w["input"]["rules"] == want_rules
                assert evaluate(w["input"]) == (_without_input(w) if "wins" not in s else
                                                {k: v for k, v in w.items() if k != "input"})
            if not all(e.terminations.values()):  # (the match's last hand deals no next one)
                winners = {w["input"]["winner"] for w in wins}
                stays = not wins or dealer in winners
                assert int(st.dealer[0]) == (dealer if stays else (dealer + step) % 4)
                moved += not stays
            dealer = int(st.dealer[0])
    assert moved, "the seeds were chosen for matches where the deal passes on"


# ----------------------------------------------------------------------------- the vector env

@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_vector_a_constructor_seed_deals_as_a_reset_seed(rules):
    a, b, c = MahjongVectorEnv(8, rules=rules, seed=7), MahjongVectorEnv(8, rules=rules), MahjongVectorEnv(8, rules=rules, seed=7)
    oa, _ = a.reset()
    ob, _ = b.reset(seed=7)
    oc, _ = c.reset(seed=7)
    for k in oa:
        assert (oa[k] == ob[k]).all() and (oc[k] == ob[k]).all()
    assert a.np_random_seed == b.np_random_seed == 7


@pytest.mark.parametrize("bad", [0, 126, 127, -1, 10**6])
def test_vector_next_step_ignores_whatever_action_an_ended_table_gets(bad):
    """NEXT_STEP: an ended table's mask allows only ``pass`` and "the next action there is ignored": an illegal
    one, and one outside the action space, too; the table is dealt anew."""
    v = MahjongVectorEnv(4, autoreset_mode="NEXT_STEP", seed=0)
    obs, _ = v.reset(seed=0)
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    for _ in range(600):
        obs, _r, term, _t, _i = v.step(_vector_rule_actions(obs, agent, rng))
        if term.any():
            break
    i = int(np.flatnonzero(term)[0])
    assert obs["action_mask"][i].tolist() == [int(a == A.PASS) for a in range(A.N_ACTIONS)]
    acts = _vector_rule_actions(obs, agent, rng)
    acts[i] = bad
    obs, rewards, term, _t, infos = v.step(acts)
    assert not term[i] and not rewards[i].any() and not infos["_settlement"][i]
    assert obs["action_mask"][i].sum() > 1 and v.engine.state.hands_played[i] == 0


def test_vector_same_step_match_ends_after_its_last_hand_only():
    """hands_per_episode=2 with SAME_STEP: every hand's settlement comes in the step it ends, with its points as
    the rewards; the episode terminates at every second hand only, and the next match is dealt at once."""
    v = MahjongVectorEnv(2, seed=3, hands_per_episode=2)
    obs, _ = v.reset(seed=3)
    agent, rng = RuleBasedAgent(), np.random.default_rng(1)
    ends: dict[int, list[bool]] = {0: [], 1: []}
    for _ in range(3000):
        obs, rewards, term, _t, infos = v.step(_vector_rule_actions(obs, agent, rng))
        for i in np.flatnonzero(infos["_settlement"]):
            assert rewards[i].tolist() == list(infos["settlement"][i]["scores"])
            ends[int(i)].append(bool(term[i]))
        assert not (term & ~infos["_settlement"]).any()
        if min(len(x) for x in ends.values()) >= 4:
            break
    for flags in ends.values():
        assert flags[:4] == [False, True, False, True]


def test_vector_a_reset_mask_in_the_middle_of_a_match_starts_that_table_a_new_match():
    """reset(options={"reset_mask": m}) deals only the marked tables; a marked table in the middle of a match
    starts a new one (first dealer East under beijing, no hands played, no match points); the others go on."""
    v = MahjongVectorEnv(4, seed=3, hands_per_episode=3)
    obs, _ = v.reset(seed=3)
    agent, rng = RuleBasedAgent(), np.random.default_rng(1)
    st = v.engine.state
    for _ in range(3000):
        obs, *_ = v.step(_vector_rule_actions(obs, agent, rng))
        moved = np.flatnonzero((st.dealer != 0) & (st.hands_played >= 1))
        if len(moved):
            break
    i = int(moved[0])
    keep = [j for j in range(4) if j != i]
    before = (st.dealer[keep].copy(), st.hands_played[keep].copy(), st.match_scores[keep].copy(), obs["observation"][keep])
    obs, _ = v.reset(options={"reset_mask": np.arange(4) == i})
    st = v.engine.state
    assert st.dealer[i] == 0 and st.hands_played[i] == 0 and not st.match_scores[i].any() and obs["seat"][i] == 0
    assert (st.dealer[keep] == before[0]).all() and (st.hands_played[keep] == before[1]).all()
    assert (st.match_scores[keep] == before[2]).all() and (obs["observation"][keep] == before[3]).all()


def test_vector_refuses_an_illegal_action_at_a_tables_last_decision_and_changes_nothing():
    """MahjongVectorEnv always refuses an illegal action (mj_env/vector.py): at the decision that would end a
    table's hand too, the other tables' legal actions are not played either."""
    v = MahjongVectorEnv(3, seed=1)
    obs, _ = v.reset(seed=1)
    agent, rng = RuleBasedAgent(), np.random.default_rng(1)
    saved = None
    for _ in range(3000):
        acts = _vector_rule_actions(obs, agent, rng)
        saved = (v.engine._save(), obs, acts)
        obs, _r, term, _t, _i = v.step(acts)
        if term.any():
            break
    state, obs, acts = saved
    v.engine._load(state)
    i = int(np.flatnonzero(term)[0])
    bad = acts.copy()
    bad[i] = _illegal(obs["action_mask"][i])
    before = _snapshot(v)
    with pytest.raises(A.ActionError, match=A.name(int(bad[i]))):
        v.step(bad)
    assert _same(before, _snapshot(v))
    _o, _r, term2, _t, _i = v.step(acts)  # the legal batch ends the hand as before
    assert term2[i] and not _same(before, _snapshot(v))


@pytest.mark.parametrize("rules", PRESETS)
def test_vector_an_illegal_first_decision_is_refused_and_the_illegal_action_setting_is_not_its(rules):
    """At the first decision after a reset, an illegal action at one table is refused (the error names it), nothing
    changes at any table; asking MahjongVectorEnv for a penalty instead is refused by name."""
    v = MahjongVectorEnv(3, rules=rules, seed=2)
    obs, _ = v.reset(seed=2)
    acts = obs["action_mask"].argmax(axis=1)
    bad = acts.copy()
    bad[2] = _illegal(obs["action_mask"][2])
    before = _snapshot(v)
    with pytest.raises(A.ActionError, match=A.name(int(bad[2]))):
        v.step(bad)
    assert _same(before, _snapshot(v))
    v.step(acts)
    for setting in ({"illegal_action": "penalize"}, {"illegal_penalty": 5}):
        with pytest.raises((TypeError, ValueError), match="always refuses an illegal action"):
            MahjongVectorEnv(2, rules=rules, **setting)


def _snapshot(v) -> list:
    """Copies of what a vector env's step changes: every state array, the masks, the generator's state, the
    points waiting to be paid."""
    st = v.engine.state
    return [*(getattr(st, f).copy() for f in _STATE_FIELDS), v.engine._mask.copy(), v.pending_rewards.copy(),
            json.dumps(v.engine.rng.bit_generator.state, default=str)]


def _same(a: list, b: list) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


# ----------------------------------------------------------------------------- the single-agent envs

def test_single_agent_rotate_moves_once_per_episode_not_per_hand_of_a_match():
    """seat="rotate" with hands_per_episode=2: table i starts at seat i % 4, keeps its seat through the match's
    hands, and moves on one seat when the next episode (match) starts."""
    v = MahjongSingleAgentVectorEnv(4, seat="rotate", hands_per_episode=2, seed=0, opponents="rule")
    obs, info = v.reset(seed=0)
    assert info["seat"].tolist() == [0, 1, 2, 3]
    rng = np.random.default_rng(0)
    hands = {i: [] for i in range(4)}
    for _ in range(3000):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, term, _t, info = v.step(acts)
        for i in np.flatnonzero(info.get("_scores", np.zeros(4, bool))):
            seat = int(info["seat"][i])
            hands[int(i)].append((seat, bool(term[i])))
            assert rewards[i] == info["scores"][i][seat]
        if min(len(h) for h in hands.values()) >= 4:
            break
    for i, h in hands.items():
        assert [t for _s, t in h[:4]] == [False, True, False, True]
        assert [s for s, _t in h[:4]] == [i, i, (i + 1) % 4, (i + 1) % 4]


def test_single_agent_rotate_starts_over_at_a_seeded_reset_of_the_one_table_env():
    env = gym.make("mj_env/Beijing-v0", seat="rotate", opponents="random")
    seats = []
    obs, info = env.reset(seed=0)
    seats.append(info["seat"])
    rng = np.random.default_rng(0)
    for _ in range(5):
        term = trunc = False
        while not (term or trunc):
            obs, _r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        obs, info = env.reset()
        seats.append(info["seat"])
    assert seats == [0, 1, 2, 3, 0, 1]
    assert env.reset(seed=0)[1]["seat"] == 0


def test_single_agent_vector_constructor_seed_plays_as_a_reset_seed_with_random_seats():
    """The vector form's constructor seed gives the same walls, seats and opponents' numbers as reset(seed=N)."""
    a = MahjongSingleAgentVectorEnv(4, seed=5, seat="random")
    b = MahjongSingleAgentVectorEnv(4, seat="random")
    oa, ia = a.reset()
    ob, ib = b.reset(seed=5)
    assert (ia["seat"] == ib["seat"]).all()
    for _ in range(8):
        assert (oa["observation"] == ob["observation"]).all()
        acts = oa["action_mask"].argmax(axis=1)
        oa, ra, *_ = a.step(acts)
        ob, rb, *_ = b.step(acts)
        assert (ra == rb).all()


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_single_agent_an_illegal_action_at_the_learners_last_decision(mode):
    """The learner's decision that ends its hand, made illegal: "raise" refuses it and changes nothing (the legal
    one then ends the episode as in the undisturbed run); "penalize" ends the episode with -illegal_penalty, zero
    scores and ``illegal_action`` in the infos."""
    def run(actions=None):
        env = gym.make("mj_env/Beijing-v0", opponents="rule", illegal_action=mode)
        obs, _ = env.reset(seed=6)
        taken, rng = [], np.random.default_rng(6)
        while True:
            a = actions[len(taken)] if actions is not None and len(taken) < len(actions) else \
                int(rng.choice(np.flatnonzero(obs["action_mask"])))
            if actions is not None and len(taken) == len(actions):
                return env, obs
            taken.append(a)
            obs, r, term, trunc, info = env.step(a)
            if term or trunc:
                return taken, (r, info)
    taken, (reward, info) = run()
    env, obs = run(taken[:-1])
    bad = _illegal(obs["action_mask"])
    if mode == "raise":
        with pytest.raises(A.ActionError, match=A.name(bad)):
            env.step(bad)
        assert (env.unwrapped.action_masks() == obs["action_mask"].astype(bool)).all()
        _o, r, term, _t, info2 = env.step(taken[-1])
        assert term and r == reward and (info2["scores"] == info["scores"]).all()
    else:
        _o, r, term, trunc, info2 = env.step(bad)
        assert term and not trunc and r == -10.0 and info2["illegal_action"] is True
        assert not info2["scores"].any() and env.unwrapped.last_settlement is None


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_single_agent_an_illegal_first_decision_of_a_hebei_match(mode):
    """The learner's very first decision of a match (hands_per_episode=2, hebei, seat 3), made illegal: "raise"
    changes nothing; "penalize" ends the whole match at once with the penalty."""
    env = gym.make("mj_env/Hebei-v0", seat=3, hands_per_episode=2, illegal_action=mode, illegal_penalty=4)
    obs, info = env.reset(seed=8)
    assert info["seat"] == 3
    bad = _illegal(obs["action_mask"])
    if mode == "raise":
        with pytest.raises(A.ActionError, match=A.name(bad)):
            env.step(bad)
        assert (env.unwrapped.action_masks() == obs["action_mask"].astype(bool)).all()
        assert env.step(int(np.flatnonzero(obs["action_mask"])[0]))[2] is False
    else:
        _o, r, term, trunc, info = env.step(bad)
        assert (r, term, trunc, info["illegal_action"]) == (-4.0, True, False, True)
        with pytest.raises(A.ActionError, match="reset"):
            env.step(A.PASS)


def test_single_agent_one_table_reset_seed_repeats_the_opponents_play_too():
    """reset(seed=N) of the one-table env, twice on one env and once on another: the same walls, the same opponents'
    decisions (their generator is seeded too), so the same actions give the same episode."""
    def episode(env, seed):
        obs, _ = env.reset(seed=seed)
        trace = [obs["observation"].copy()]
        while True:
            obs, r, term, trunc, _info = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
            trace.append(obs["observation"].copy())
            if term or trunc:
                return trace, r
    a = gym.make("mj_env/Quemen-v0", opponents=["random", "rule", "efficient"], seat="random")
    b = gym.make("mj_env/Quemen-v0", opponents=["random", "rule", "efficient"], seat="random")
    first, r1 = episode(a, 21)
    episode(a, 22)
    again, r2 = episode(a, 21)
    other, r3 = episode(b, 21)
    assert r1 == r2 == r3 and len(first) == len(again) == len(other) > 2
    assert all((x == y).all() and (x == z).all() for x, y, z in zip(first, again, other))


def test_single_agent_same_step_penalty_is_in_final_info_and_the_rotated_seat_at_the_top():
    v = MahjongSingleAgentVectorEnv(3, seat="rotate", seed=0, autoreset_mode="SAME_STEP")
    obs, _ = v.reset(seed=0)
    acts = obs["action_mask"].argmax(axis=1)
    acts[1] = _illegal(obs["action_mask"][1])
    obs, rewards, term, trunc, info = v.step(acts)
    assert rewards[1] == -10 and term.tolist() == [False, True, False] and not trunc.any()
    assert "illegal_action" not in info and info["final_info"]["illegal_action"].tolist() == [False, True, False]
    assert not info["final_info"]["scores"][1].any() and info["final_info"]["seat"][1] == 1
    assert info["seat"][1] == 2  # the new episode's seat
    final = info["final_obs"][1]["action_mask"]
    assert final.sum() == 1 and final[A.PASS] == 1 and obs["action_mask"][1].sum() > 1


def test_time_limit_over_a_match_truncates_without_hand_keys_and_reset_goes_on():
    """gym.make(id, max_episode_steps=N) over hands_per_episode=2: a truncated step's infos hold no hand keys even
    where an earlier hand of the match was settled; a reset starts the next match."""
    env = gym.make("mj_env/Hebei-v0", max_episode_steps=10, opponents="rule", hands_per_episode=2)
    obs, _ = env.reset(seed=0)
    settled = []
    for _ in range(10):
        obs, _r, term, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not term, "the seed was chosen for a match that lasts past ten learner steps"
        settled.append("scores" in info)
    assert any(settled[:-1]), "the seed was chosen for a match whose first hand ends before the cut"
    assert trunc and sorted(info) == ["seat"] and env.unwrapped.last_settlement is None
    obs, info = env.reset()
    assert obs["action_mask"].any() and env.step(int(np.flatnonzero(obs["action_mask"])[0]))[3] is False


# ----------------------------------------------------------------------------- the calculator

LINE = {"hand": "123m456m789p23s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1, "dealer": 0, "discarder": 0}


@pytest.mark.parametrize(("change", "want"), [
    ({"indicator": "8s"}, {"fan": 2}),                                     # hui and its own indicator: one 惠牌
    ({"hui": None, "indicator": "8s"}, {"fan": 2}),
    ({"indicator": "7s"}, {"error": "does not follow indicator 7s"}),
    ({"rules": {"name": "beijing", "base": 5}}, {"error": "base is a field of the line itself"}),
    ({"rules": {"name": "beijing", "hands_per_episode": 3}}, {"fan": 2}),   # a field that moves no score
    ({"ting": True}, {"error": "no 报听"}),
    ({"flowers": 1}, {"error": "no flowers"}),
    ({"rules": "hebei"}, {"error": "no 惠牌"}),
    ({"rules": "hebei", "hui": None, "shaozhuang_rounds": 1}, {"error": "no 烧庄"}),
    ({"rules": "quemen", "hui": None, "flowers": 9}, {"error": "0-8"}),
    ({"discarder": 1}, {"error": "is the winner"}),
    ({"hubao": [[1, 1]]}, {"error": "to itself"}),
])
def test_calculator_fields_combined_with_another_rule_set_or_field(change, want):
    obj = {k: v for k, v in {**LINE, **change}.items() if v is not None or k == "discarder"}
    got = answer(json.dumps(obj))
    if "error" in want:
        assert want["error"] in got.get("error", "")
    else:
        assert got["legal"] is True and got["fan"] == want["fan"] and got["patterns"] == {"庄": 1, "推倒和": 1}
