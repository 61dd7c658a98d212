"""The PettingZoo AEC environment: PettingZoo's own API and seed tests, explicit walls, errors."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import mj_env
from mj_env import actions as A
from mj_env.aec import raw_env
from mj_env.records import replay
from mj_env.rules import get_rules
from mj_env.tiles import CODES
from mj_env.wall import shuffled_walls

PRESETS = ["beijing", "hebei", "quemen"]


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api(preset):
    api_test(mj_env.env(rules=preset), num_cycles=200, verbose_progress=False)


def test_pettingzoo_seed():
    seed_test(lambda: mj_env.env(), num_cycles=200)


def play_random(e, seed):
    rng = np.random.default_rng(seed)
    total = {a: 0 for a in e.possible_agents}
    settlement = None
    for agent in e.agent_iter(max_iter=5000):
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if "settlement" in info:
            settlement = info["settlement"]
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    return total, settlement


def test_explicit_wall_and_dealer_and_rewards():
    rules = get_rules("beijing")
    wall = [CODES[t] for t in shuffled_walls(rules, np.random.default_rng(0), 1)[0]]
    e = mj_env.env()
    e.reset(options={"wall": wall, "dealer": 2})
    assert e.agent_selection == "player_2"
    obs = e.observe("player_2")["observation"]
    assert obs[0].sum() == 14
    dealt = np.bincount([CODES.index(c) for c in wall[0:13] + [wall[52]]], minlength=34)
    assert (obs[0] == dealt).all()
    assert e.observe("player_0")["action_mask"].sum() == 0
    total, settlement = play_random(e, 1)
    assert sum(total.values()) == 0
    assert settlement is not None
    assert [total[f"player_{i}"] for i in range(4)] == list(settlement["scores"])


def test_bad_wall_and_bad_dealer_are_refused():
    e = mj_env.env()
    rules = get_rules("beijing")
    wall = [CODES[t] for t in shuffled_walls(rules, np.random.default_rng(0), 1)[0]]
    with pytest.raises(ValueError, match="136 tiles"):
        e.reset(options={"wall": wall[:-1]})
    bad = list(wall)
    bad[5] = "9x"
    with pytest.raises(ValueError, match=r"wall\[5\]"):
        e.reset(options={"wall": bad})
    flower = list(wall)
    flower[7] = "1f"  # a tile of quemen's set only: named as the user wrote it
    with pytest.raises(ValueError, match=r"wall\[7\] = '1f' is not a tile of the beijing set"):
        e.reset(options={"wall": flower})
    dup = list(wall)
    dup[dup.index("1m")] = "2m"
    with pytest.raises(ValueError, match=r"3 x 1m \(a full set has 4\), 5 x 2m \(a full set has 4\)"):
        e.reset(options={"wall": dup})
    q = mj_env.env(rules="quemen")   # flowers come one of each: each count is named with its own
    qwall = [CODES[t] for t in shuffled_walls(get_rules("quemen"), np.random.default_rng(0), 1)[0]]
    qwall[qwall.index("1f")] = "1m"
    with pytest.raises(ValueError, match=r"5 x 1m \(a full set has 4\), 0 x 1f \(a full set has 1\)"):
        q.reset(options={"wall": qwall})
    with pytest.raises(ValueError, match="dealer"):
        e.reset(options={"wall": wall, "dealer": 4})


def test_illegal_action_raises_and_state_is_kept():
    e = mj_env.env()
    e.reset(seed=3)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = e.unwrapped.engine.state.copy()
    with pytest.raises(A.ActionError, match=A.name(illegal)):
        e.step(illegal)
    st = e.unwrapped.engine.state
    assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)
    assert e.agent_selection == agent
    e.step(int(np.flatnonzero(mask)[0]))


def test_penalize_option_ends_the_hand():
    e = mj_env.env(illegal_action="penalize", illegal_penalty=5)
    e.reset(seed=3)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values())
    assert e.rewards[agent] == -5
    m = mj_env.env(illegal_action="penalize", illegal_penalty=5, hands_per_episode=3)  # in a match: the episode
    m.reset(seed=3)
    m.step(int(np.flatnonzero(m.observe(m.agent_selection)["action_mask"] == 0)[0]))
    assert all(m.terminations.values()) and not any(m.truncations.values())
    assert sorted(m.rewards.values()) == [-5, 0, 0, 0]


def test_render_ansi_shows_the_table():
    e = mj_env.env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    st = e.unwrapped.engine.state
    assert "惠牌" in text and "East" in text and "to act" in text
    assert CODES[int(st.hui[0])] in text


def test_render_marks_the_seat_to_act_and_draws_a_chi_as_its_run():
    """After seat 1's chi 456m the picture marks seat 1 (not the dealer) as the one to act and shows the meld
    as 4m5m6m (from an outside mutation test: both could break unnoticed)."""
    from walls import build_wall

    from mj_env.tiles import glyph, index
    hands = {0: "123m456m789m2p5p7z7z", 1: "5p6p7p1234z22s46m9m3s", 2: "258m147p258s1234z", 3: "369m369p369s1234z"}
    e = mj_env.env(render_mode="ansi")
    e.reset(options={"wall": build_wall("beijing", hands=hands, indicator="9s"), "dealer": 0})
    e.step(A.index("discard 5m"))
    assert e.agent_selection == "player_1"
    e.step(A.index("chi 456m"))
    lines = e.render().splitlines()
    assert [line.split()[1] for line in lines if line.startswith(">")] == ["1"]
    assert "chi " + "".join(glyph(index(t)) for t in ("4m", "5m", "6m")) in e.render()


def _drawn(compact: str) -> str:
    """How the table draws a group of tiles: their glyphs, then the compact codes."""
    from mj_env.tiles import glyph, parse_tiles
    return "".join(glyph(t) for t in parse_tiles(compact)) + f"  ({compact or '-'})"


def test_render_draws_the_whole_table_through_a_claim_a_kong_and_the_end():
    """The full text at a claim window, after a pong and an exposed kong, and at the hand's end: the dealer named
    (South here), hands and rivers tile by tile, a kong as four tiles, what is claimed from whom, and no seat
    marked to act once the hand is over (from an outside mutation test: each of these could change unnoticed)."""
    from walls import build_wall

    hands = {1: "123m456m789m12p5z5z6z", 3: "5z5z2p3p4p7p8p9p1s2s3s4s7z", 2: "7z7z7z1m2m3m4p5p6p2s3s4s9p",
             0: "147m258p369s1234z"}
    e = mj_env.env(render_mode="ansi")
    e.reset(options={"wall": build_wall("beijing", hands=hands, indicator="9s", dealer=1, tail="9p"), "dealer": 1})
    from mj_env.tiles import glyph, index
    head = f"beijing | dealer South | live wall 68 | 惠坯 {glyph(index('9s'))} 9s -> 惠牌 {glyph(index('1s'))} 1s"
    east = f"  0 East  hand  {_drawn('147m258p369s1234z')}"
    e.step(A.index("discard 5z"))
    assert e.render().splitlines() == [
        head, east, f"          river {_drawn('')}",
        f"  1 South hand  {_drawn('123456789m12p56z')}", f"          river {_drawn('5z')}",
        f"  2 West  hand  {_drawn('123m4569p234s777z')}", f"          river {_drawn('')}",
        f"> 3 North hand  {_drawn('234789p1234s557z')}", f"          river {_drawn('')}",
        f"CLAIM: seat 3 (North) to act on {glyph(index('5z'))} 5z from seat 1"]
    e.step(A.index("pong"))
    e.step(A.index("discard 7z"))
    e.step(A.index("kong"))  # seat 2 claims 7z and draws the tail's 9p
    at_kong = [
        head, east, f"          river {_drawn('')}",
        f"  1 South hand  {_drawn('123456789m12p56z')}", f"          river {_drawn('')}",
        f"> 2 West  hand  {_drawn('123m45699p234s')}", f"          melds kong {glyph(index('7z')) * 4}",
        f"          river {_drawn('')}",
        f"  3 North hand  {_drawn('234789p1234s')}", f"          melds pong {glyph(index('5z')) * 3}",
        f"          river {_drawn('')}",
        "TURN: seat 2 (West) to act"]
    assert e.render().splitlines() == at_kong
    e.step(A.index("win"))
    assert e.render().splitlines() == [line.replace("> 2", "  2") for line in at_kong[:-1]] + [
        "hand over: seat 2 (West) wins by self-draw on a kong's replacement: 5 fan (杠上开花 5) | scores -5 -5 +15 -5"]


def _seat_lines(text: str) -> dict[int, list[str]]:
    """The lines of a rendered table under each seat's hand line, by seat."""
    out, seat = {}, None
    for line in text.splitlines():
        if re.match(r"[> ] \d ", line):
            seat = int(line[2])
            out[seat] = []
        elif seat is not None and line.startswith("          "):
            out[seat].append(line.strip())
    return out


def test_render_shows_ting_flowers_and_shaozhuang_where_they_are():
    """quemen: 报听 under the seat that declared it, a flowers line (with their count) only for a seat holding
    flowers, and 烧庄 in the head only when rounds of it are running (from an outside mutation test)."""
    from walls import build_wall

    from mj_env.render import render_table
    e = mj_env.env(rules="quemen", render_mode="ansi")
    e.reset(options={"wall": build_wall("quemen", hands={0: "123m456m789m12p55p1z"}), "dealer": 0})
    e.step(A.index("ting 1z"))
    assert [("报听" in lines) for lines in _seat_lines(e.render()).values()] == [True, False, False, False]
    e.reset(seed=4)
    assert e.unwrapped.engine.state.flowers[0].tolist() == [1, 0, 2, 1]
    flowers = [[x for x in lines if x.startswith("flowers")] for lines in _seat_lines(e.render()).values()]
    assert flowers == [["flowers 1"], [], ["flowers 2"], ["flowers 1"]]
    beijing = mj_env.env(render_mode="ansi")
    beijing.reset(seed=0)
    assert "烧庄" not in beijing.render()
    st = beijing.unwrapped.engine.state
    st.sz_rounds[0] = 2  # the picture of a table in its second round of 烧庄
    assert render_table(beijing.unwrapped.rules, st).splitlines()[0].endswith(" | 烧庄 x2")


@pytest.mark.parametrize("preset", PRESETS)
def test_match_of_several_hands(preset):
    e = mj_env.env(rules=preset, hands_per_episode=3)
    e.reset(seed=5)
    hands = 0
    rng = np.random.default_rng(2)
    total = {a: 0 for a in e.possible_agents}
    for agent in e.agent_iter(max_iter=20000):
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if e.unwrapped.engine.state.hands_played[0] > hands:
            hands = int(e.unwrapped.engine.state.hands_played[0])
    assert hands == 3
    match = e.unwrapped.engine.state.match_scores[0]
    assert match.sum() == 0
    assert [total[f"player_{i}"] for i in range(4)] == match.tolist()  # rewards of every hand add up


def test_raw_env_is_the_class_and_state_is_the_full_table():
    assert isinstance(mj_env.raw_env, type)
    e = mj_env.raw_env()
    e.reset(seed=0)
    s = e.state()
    assert s in e.state_space and s.shape == (4, 14, 34)
    assert (s[:, 0].sum(axis=1) == [14, 13, 13, 13]).all()  # every concealed hand is in it
    for seat in range(4):
        assert (s[seat] == e.observe(f"player_{seat}")["observation"]).all()


def test_penalize_lets_unmasked_samplers_play_whole_episodes():
    e = mj_env.env(illegal_action="penalize")
    for seed in range(5):
        e.reset(seed=seed)
        for agent in e.agent_iter(max_iter=2000):
            _, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(e.action_space(agent).sample()))
        assert not e.agents


def test_last_before_reset_is_refused_and_after_it_is_the_raw_envs():
    e = mj_env.env()
    with pytest.raises(AttributeError, match="before reset"):
        e.last()
    e.reset(seed=3)
    mine, raw = e.last(), e.unwrapped.last()
    assert np.array_equal(mine[0]["observation"], raw[0]["observation"]) and mine[1:] == raw[1:]
    assert e.last(observe=False)[0] is None


def test_every_seat_reads_every_settlement_of_a_match():
    # a seat's info keeps a hand's settlement until that seat acts again (not only the next to act)
    e = mj_env.env(hands_per_episode=4)
    e.reset(seed=0)
    seen = {a: [] for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if "settlement" in info:
            seen[agent].append(json.dumps(info["settlement"], sort_keys=True))
        e.step(None if (term or trunc) else int(np.flatnonzero(obs["action_mask"])[-1]))
    first = seen[e.possible_agents[0]]
    assert len(first) == 4
    for got in seen.values():
        assert sorted(got) == sorted(first)  # each hand's settlement once per seat


def test_each_agent_gets_its_own_copy_of_the_settlement():
    """A hostile-input audit: every agent's infos and the hand record held one settlement object, so a user
    editing what last() gave changed the other seats' infos and the record, whose replay then failed."""
    e = mj_env.env()
    e.reset(seed=2)
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            break
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    kept = json.dumps(e.unwrapped.infos["player_1"]["settlement"], sort_keys=True)
    info["settlement"]["scores"][0] += 999
    info["settlement"]["edited"] = True
    assert json.dumps(e.unwrapped.infos["player_1"]["settlement"], sort_keys=True) == kept
    record = e.unwrapped.hand_record()
    assert json.dumps(record["settlement"], sort_keys=True) == kept
    replay(record)  # raises if the record's settlement is not the replay's


@pytest.mark.parametrize("in_play", [False, True], ids=["before reset", "in play"])
def test_close_refuses_every_later_call_but_the_record(in_play):
    """As the Gymnasium envs do after close(): a RuntimeError naming the call, whatever state the hand is in."""
    e = mj_env.env()
    if in_play:
        e.reset(seed=0)
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
        record = e.unwrapped.hand_record()
    e.close()
    raw = e.unwrapped
    for name, call in (("reset()", lambda: e.reset(seed=1)), ("step()", lambda: raw.step(0)),
                       ("observe()", lambda: raw.observe("player_0")), ("state()", raw.state),
                       ("last()", raw.last)):
        with pytest.raises(RuntimeError, match=rf"{re.escape(name)} after close\(\): .*closed"):
            call()
    for name, call in (("last()", e.last), ("step()", lambda: e.step(0))):  # through the wrapper too
        with pytest.raises(RuntimeError, match=rf"{re.escape(name)} after close\(\)"):
            call()
    if in_play:
        assert e.unwrapped.hand_record() == record


def _play_to_the_end(e) -> None:
    """Every seat plays its first legal action until the hand is over (the agents done)."""
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_close_after_the_hand_ended_says_closed_through_the_wrapper():
    """Not "every agent is done; call reset() first", which reset() would then refuse."""
    e = mj_env.env()
    e.reset(seed=0)
    _play_to_the_end(e)
    e.close()
    for name, call in (("last()", e.last), ("step()", lambda: e.step(0)), ("reset()", e.reset)):
        with pytest.raises(RuntimeError, match=rf"{re.escape(name)} after close\(\)"):
            call()


def test_last_before_reset_on_the_raw_env_says_to_reset():
    with pytest.raises(RuntimeError, match=r"last\(\) before reset\(\).*call reset\(\) first"):
        mj_env.raw_env().last()


def test_step_and_last_after_the_hand_are_refused_until_reset():
    """docs/RULES.md 7: a step that is not valid now is an error, and changes nothing; reset() starts again."""
    e = mj_env.env()
    e.reset(seed=0)
    _play_to_the_end(e)
    for call in (lambda: e.step(0), e.last):
        with pytest.raises(mj_env.actions.ActionError, match="after the hand ended.*reset"):
            call()
    e.reset(seed=1)
    assert e.agent_selection in e.agents and e.last()[0]["action_mask"].any()


def test_chi_under_quemen_is_refused_naming_chi():
    with pytest.raises(mj_env.rules.RuleError, match="rule field 'chi'.*ting=False"):
        mj_env.env(rules="quemen", chi=True)


def test_obs_v2_in_the_aec_env():
    from mj_env.features import observe_v2
    from mj_env.wrappers import FlatObservations
    api_test(mj_env.env(obs="v2"), num_cycles=100, verbose_progress=False)
    a, b = mj_env.env(), mj_env.env(obs="v2")
    assert b.unwrapped.observation_layout == "mj_obs_v2"
    a.reset(seed=3)
    b.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in a.agent_iter(200):
        oa, ob = a.observe(agent), b.observe(agent)
        assert b.observation_space(agent).contains(ob)
        np.testing.assert_array_equal(ob["observation"],
                                      observe_v2(a.unwrapped.rules, oa["observation"][None], oa["action_mask"][None])[0])
        done = a.terminations[agent] or a.truncations[agent]
        act = None if done else int(rng.choice(np.flatnonzero(oa["action_mask"])))
        a.step(act)
        b.step(act)
    assert FlatObservations(mj_env.env(obs="v2")).observation_space("player_0")["observations"].shape == (18 * 34,)
    with pytest.raises(ValueError, match="obs must be"):
        mj_env.env(obs="v9")


def test_a_match_hand_that_ends_at_its_deal_keeps_the_settlement_before_it(monkeypatch):
    """East wins the first hand of a match by 天和 and the next deal gives it 四惠牌, which wins in the same step:
    every agent's infos show the later settlement and, under ``earlier_settlements``, the one before."""
    from walls import deals_first, four_hui_9s_wall, tian_hu_wall

    import mj_env.engine as engine_module
    four_hui = four_hui_9s_wall()
    tian_hu = [mj_env.tiles.CODES[t] for t in tian_hu_wall()]
    e = mj_env.env(hands_per_episode=2)
    e.reset(seed=0, options={"wall": tian_hu, "dealer": 0})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui, 1))
    e.step(A.WIN)
    for agent in e.possible_agents:
        info = e.infos[agent]
        assert [s["fan"] for s in info["earlier_settlements"]] == [11] and info["settlement"]["fan"] == 9
    assert e.rewards["player_0"] == 3 * 11 + 3 * 9 and e.terminations["player_0"]
    info = e.infos["player_1"]
    info["earlier_settlements"][0]["scores"][0] = 999                # each agent its own copy
    assert e.infos["player_2"]["earlier_settlements"][0]["scores"][0] == 33


def test_a_penalized_illegal_action_is_named_in_the_offenders_infos():
    e = mj_env.env(illegal_action="penalize", illegal_penalty=5)
    e.reset(seed=3)
    agent = e.agent_selection
    bad = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    e.step(bad)
    assert e.infos[agent] == {"illegal_action": A.name(bad)} and e.rewards[agent] == -5


def test_the_action_names_are_reachable_after_a_plain_import():
    """docs/INTERFACES.md 2: ``mj_env.actions.name(i)`` and ``mj_env.actions.index(name)`` after ``import mj_env``
    alone, in a fresh interpreter (here the test session has imported the submodule already)."""
    import subprocess
    import sys

    code = "import mj_env; i = mj_env.actions.index('chi 345m'); print(i, mj_env.actions.name(i))"
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(maxsplit=1)[1].strip() == "chi 345m"


def test_an_observation_kept_by_the_caller_is_its_own():
    """``observe()`` gives fresh arrays: the mask a caller keeps stays as it was after the next step, and
    the caller may edit it."""
    env = mj_env.env()
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    kept = obs["action_mask"].copy()
    env.step(int(np.flatnonzero(kept)[0]))
    assert np.array_equal(obs["action_mask"], kept)
    obs["action_mask"][:] = 0
    assert env.unwrapped.engine.legal_mask().any()


def test_each_hand_record_has_its_own_settlement():
    """Editing the settlement of one ``hand_record()`` changes neither the env's record nor the next one."""
    env = mj_env.env()
    env.reset(seed=0)
    while env.agents:
        obs, _rew, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    rec = env.unwrapped.hand_record()
    want = json.dumps(rec["settlement"], sort_keys=True)
    rec["settlement"]["scores"][0] += 1000
    rec["settlement"]["edited"] = True
    assert json.dumps(env.unwrapped.hand_record()["settlement"], sort_keys=True) == want


def test_no_hand_record_after_a_penalized_illegal_action():
    """``illegal_action="penalize"`` ends the hand on an action the engine never plays: no record to replay."""
    from mj_env.records import RecordError
    env = mj_env.env(illegal_action="penalize")
    env.reset(seed=0)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(RecordError, match="illegal"):
        env.unwrapped.hand_record()


def test_reset_options_must_be_a_dict_and_none_values_are_not_given():
    """``options`` is a dict or None (a list of pairs is refused, not read as a dict), and ``"wall": None`` or
    ``"dealer": None`` is the option left out: a shuffled wall, the rule set's first dealer."""
    env = mj_env.env()
    for bad in (1, [("dealer", 2)], "wall"):
        with pytest.raises(ValueError, match="options must be a dict or None"):
            env.reset(seed=0, options=bad)
    env.reset(seed=5, options={"wall": None, "dealer": None})
    plain = mj_env.env()
    plain.reset(seed=5)
    assert np.array_equal(env.unwrapped.state(), plain.unwrapped.state())
    assert env.agent_selection == plain.agent_selection


def test_the_hand_record_keeps_the_dealer_of_the_reset():
    """A hand dealt with ``options={"dealer": 2}`` is recorded with dealer 2 and replays to its settlement."""
    env = mj_env.env()
    env.reset(seed=1, options={"dealer": 2})
    assert env.agent_selection == "player_2"
    while env.agents:
        obs, _rew, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    rec = env.unwrapped.hand_record()
    assert rec["dealer"] == 2 and replay(rec) == rec["settlement"]


def test_the_penalized_offender_reads_its_penalty_through_last():
    """``illegal_action="penalize"``: the offender, still the agent to act, reads ``-illegal_penalty`` as its
    reward in ``last()``; the others read 0 when asked in turn."""
    env = mj_env.env(illegal_action="penalize", illegal_penalty=7)
    env.reset(seed=3)
    offender = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    seen = {}
    for agent in env.agent_iter():
        _obs, reward, term, _trunc, _info = env.last()
        assert term
        seen[agent] = reward
        env.step(None)
    assert seen == {a: (-7 if a == offender else 0) for a in env.possible_agents}


def test_hand_record_needs_a_dealt_single_hand():
    """``hand_record()`` before the first reset, or under a match of 2 hands, is a RecordError saying why."""
    from mj_env.records import RecordError
    with pytest.raises(RecordError, match="no hand yet"):
        mj_env.env().unwrapped.hand_record()
    env = mj_env.env(hands_per_episode=2)
    env.reset(seed=0)
    with pytest.raises(RecordError, match="a record holds one hand"):
        env.unwrapped.hand_record()


def test_infos_hold_earlier_settlements_only_where_there_are_some():
    """A hand that ends in play leaves ``{"settlement": ...}`` alone in every agent's infos: no empty
    ``earlier_settlements`` (docs: "only then", a match hand that ends at its deal)."""
    env = mj_env.env()
    env.reset(seed=0)
    while not any(env.terminations.values()):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(set(env.infos[a]) == {"settlement"} for a in env.possible_agents)


def test_step_before_the_first_reset_says_to_reset_not_that_the_hand_ended():
    env = mj_env.env()
    with pytest.raises(Exception, match="reset") as e:
        env.step(0)
    assert "ended" not in str(e.value)


def test_an_illegal_action_error_names_the_agent_first():
    """The refusal of an illegal action starts with the acting agent's name, then the engine's reason."""
    env = mj_env.env()
    env.reset(seed=3)
    agent = env.agent_selection
    bad = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(A.ActionError, match=rf"^{agent}: action '{re.escape(A.name(bad))}' is illegal"):
        env.step(bad)


# --------------------------------------------------------------------------- an illegal action's penalty: an int reward as the others


def _penalized_rewards(**kwargs):
    env = mj_env.env(illegal_action="penalize", **kwargs)
    env.reset(seed=3)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0]))
    return agent, env.rewards


@pytest.mark.parametrize(("penalty", "expected"), [(None, -10), (10.0, -10), (np.float32(3), -3), (2.5, -2.5)])
def test_an_integral_penalty_is_an_int_reward_as_the_others_are(penalty, expected):
    """The offender got float -10.0 while the other seats got int 0 (and a settled hand gives int points)."""
    agent, rewards = _penalized_rewards(**({} if penalty is None else {"illegal_penalty": penalty}))
    assert rewards[agent] == expected
    assert type(rewards[agent]) is type(expected)
    assert all(type(r) is int for a, r in rewards.items() if a != agent)


# --------------------------------------------------------------------------- raw_env checks its illegal-action policy once


def test_raw_env_checks_its_illegal_action_policy_once_and_before_the_rules(monkeypatch):
    calls = []
    real = A.illegal_policy

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(A, "illegal_policy", counted)
    env = raw_env(illegal_action="penalize", illegal_penalty=np.float32(4))
    assert len(calls) == 1
    assert (env.illegal_action, env.illegal_penalty) == ("penalize", 4) and type(env.illegal_penalty) is int
    # still checked before the other arguments and the rule set, as before
    with pytest.raises(ValueError, match="illegal_action must be"):
        raw_env(rules="sichuan", illegal_action="ignore")
    with pytest.raises(ValueError, match="illegal_penalty must be"):
        raw_env(num_envs=2, illegal_penalty=-1)


# --------------------------------------------------------------------------- autoreset_mode refused by name


@pytest.mark.parametrize("value", ["SameStep", "NEXT_STEP"])
def test_the_aec_env_refuses_autoreset_mode_by_name(value):
    """An argument of the other environments is refused by name, saying what to do, not as an unknown rule field."""
    with pytest.raises(ValueError, match="autoreset_mode.*no autoreset.*env.reset"):
        mj_env.env(autoreset_mode=value)


# --------------------------------------------------------------------------- aec.OrderEnforcing over another PettingZoo wrapper


@pytest.mark.parametrize("call", ["observe", "state"])
def test_order_enforcing_over_another_wrapper_still_says_closed(call):
    """aec.OrderEnforcing's after-close checks ask the unwrapped raw_env: over a PettingZoo wrapper, which refuses
    private attributes, ``self.env._check_open`` was an AttributeError instead of the RuntimeError."""
    from pettingzoo.utils import wrappers

    from mj_env.aec import OrderEnforcing, raw_env

    env = OrderEnforcing(wrappers.AssertOutOfBoundsWrapper(raw_env()))
    env.close()
    with pytest.raises(RuntimeError, match=rf"{call}\(\) after close\(\)"):
        env.observe("player_0") if call == "observe" else env.state()


def test_order_enforcing_over_another_wrapper_plays_a_hand_and_says_closed():
    """d636d45 made observe/state/render ask the unwrapped raw_env, so that the wrapper holds over another
    PettingZoo wrapper; ``last()`` and ``step()`` still asked ``self.env._check_open``, which such a wrapper refuses
    (AttributeError 'accessing private attribute'), so no hand could be played through it at all."""
    from pettingzoo.utils import wrappers

    from mj_env.aec import OrderEnforcing, raw_env

    env = OrderEnforcing(wrappers.AssertOutOfBoundsWrapper(raw_env()))
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
        assert agent
    assert steps > 4 and env.agents == []
    with pytest.raises(A.ActionError, match="after the hand ended"):
        env.last()
    env.close()
    for call, name in ((env.last, "last"), (lambda: env.step(0), "step")):
        with pytest.raises(RuntimeError, match=rf"{name}\(\) after close\(\)"):
            call()
