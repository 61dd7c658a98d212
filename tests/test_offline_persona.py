"""An offline-RL / imitation researcher's checks, from the docs alone: a dataset logged from the batched self-play
env (mj_env.vector: observation, mask, action, the seat's settled points), hand records (mj_env.records) and
their hostile edits. One fix: a record's integer rule field too long to read (lines.HugeInt) was refused as
"must be int", though it is one; it is now refused as out of its range, as a shorter one is."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mj_env import actions as A
from mj_env import records
from mj_env.baselines import RuleBasedAgent
from mj_env.lines import load_json, parse_json_int
from mj_env.observation import P_HAND, observe
from mj_env.vector import MahjongVectorEnv


def _logged_hands(rules: str, mode: str, num_envs: int = 4, steps: int = 160, seed: int = 3):
    """Rule agents play ``num_envs`` tables; per hand ended: (decisions [(seat, action)], each seat's summed
    rewards of the hand, the settlement, the wall and dealer it was dealt with). Every decision is checked
    as it is logged: legal under its mask, the acting seat's own hand in P_HAND, and an observation that
    stays the same when the other seats' concealed hands and the wall order are changed."""
    venv = MahjongVectorEnv(num_envs, rules=rules, seed=seed, autoreset_mode=mode)
    obs, _ = venv.reset(seed=seed)
    st, agent, rng = venv.engine.state, RuleBasedAgent(rules), np.random.default_rng(seed)
    dealt = [(st.wall[i].copy(), int(st.dealer[i])) for i in range(num_envs)]
    acts = [[] for _ in range(num_envs)]
    summed = np.zeros((num_envs, 4))
    ended = np.zeros(num_envs, dtype=bool)  # NEXT_STEP: this table shows its ended hand (pass only, ignored)
    hands = []
    for _ in range(steps):
        a = agent.act(obs, rng)
        for i in np.flatnonzero(~ended):
            s = int(obs["seat"][i])
            assert obs["action_mask"][i, a[i]] == 1 and s == st.to_act[i]
            assert (obs["observation"][i, P_HAND] == st.hands[i, s]).all()
            other = st.take(np.array([i]))
            rest = [q for q in range(4) if q != s]
            other.hands[0, rest] = st.hands[i, np.roll(rest, 1)]
            other.wall[0] = other.wall[0, ::-1]
            assert (observe(venv.engine.rules, other, np.array([0]))[0] == obs["observation"][i]).all()
            acts[i].append((s, int(a[i])))
        obs, rewards, term, _, infos = venv.step(a)
        rewards = rewards - infos.get("deal_points", 0)  # a hand that ended at its deal: no decision of it logged
        for i in range(num_envs):
            if ended[i]:  # the step that deals it anew pays nothing of the ended hand
                assert not rewards[i].any()
                ended[i] = False
            elif term[i]:
                hands.append((acts[i], rewards[i] + summed[i], infos["settlement"][i], *dealt[i]))
                summed[i] = 0
                ended[i] = mode == "NEXT_STEP"
            else:
                summed[i] += rewards[i]
                continue
            if not ended[i]:
                dealt[i], acts[i] = (st.wall[i].copy(), int(st.dealer[i])), []
    assert len(hands) >= 3
    return venv.engine.rules, hands


@pytest.mark.parametrize("mode", ["SAME_STEP", "NEXT_STEP"])
@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_a_logged_dataset_keeps_hands_apart_and_each_hands_points_settle_zero_sum(rules, mode):
    """Per hand, every seat's rewards add up to the settlement's scores (docs/INTERFACES.md 2), which sum to zero
    (docs/RULES.md 6); the hand's decisions, with the wall and dealer read at its deal, make a record that
    replays to the same settlement (mj_env.records), so no decision was logged across a hand's end."""
    ruleset, hands = _logged_hands(rules, mode)
    for acts, points, settlement, wall, dealer in hands:
        assert points.tolist() == settlement["scores"] and sum(settlement["scores"]) == 0
        record = json.loads(json.dumps(records.hand_record(ruleset, wall, dealer, acts, settlement)))
        assert records.replay(record)["scores"] == settlement["scores"]


def test_a_replay_shows_the_observations_the_env_gave():
    """The AEC env's hand record replays decision by decision; ``visit`` sees each position, whose planes are
    the ones the acting agent observed, and the replayed settlement is the agents' rewards."""
    import mj_env
    env = mj_env.env(rules="hebei")
    env.reset(seed=1)
    agent, rng, seen, points = RuleBasedAgent("hebei"), np.random.default_rng(1), [], [0] * 4
    for name in env.agent_iter():
        o, r, done, trunc, _ = env.last()
        points[int(name[-1])] += r
        if done or trunc:
            env.step(None)
            continue
        a = int(agent.act({"observation": o["observation"][None], "action_mask": o["action_mask"][None],
                           "seat": np.array([int(name[-1])])}, rng)[0])
        seen.append((int(name[-1]), o["observation"].copy(), a))
        env.step(a)
    replayed = []
    settlement = records.replay(json.loads(json.dumps(env.unwrapped.hand_record())), lambda i, s, a, eng: s is None or
                                replayed.append((s, observe(eng.rules, eng.state, np.array([0]))[0], a)))
    assert len(replayed) == len(seen)
    assert all(s1 == s2 and a1 == a2 and (o1 == o2).all() for (s1, o1, a1), (s2, o2, a2) in zip(seen, replayed))
    assert settlement["scores"] == points and sum(points) == 0


def _arena_like_record() -> str:
    """One finished beijing hand as a JSON line (as agents.arena --record writes one)."""
    _, hands = _logged_hands("beijing", "SAME_STEP", steps=80)
    acts, _, settlement, wall, dealer = hands[0]
    return json.dumps(records.hand_record(records.rules_of("beijing"), wall, dealer,
                                          [(s, A.name(a)) for s, a in acts], settlement), ensure_ascii=False)


@pytest.mark.parametrize("digits", [40, 41, 400])
def test_an_integer_rule_field_far_too_large_is_refused_as_out_of_range(digits, tmp_path, capsys):
    """docs/RULES.md 7: a bad value is refused naming what is wrong. A record's base of 41 digits or more (read as
    lines.HugeInt) was refused as "must be int"; it is an integer, out of range as one of 40 digits is."""
    line = _arena_like_record().replace('"rules": "beijing"',
                                        '"rules": {"name": "beijing", "base": 1' + "0" * (digits - 1) + "}", 1)
    with pytest.raises(records.RecordError, match=r"rules: rule field 'base'.* must be an integer in"):
        records.replay(load_json(line, parse_int=parse_json_int))
    path = tmp_path / "hands.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("record 0: rules: rule field 'base'") and "must be int," not in err


def test_hostile_edits_of_a_record_are_refused_by_field_and_the_good_lines_still_replay(tmp_path, capsys):
    """A changed action, a truncated line, a wrong tile code, a huge seat, a non-UTF-8 byte and a deeply nested
    value: each line is refused with a message naming the record and the field; the good line still replays."""
    good = _arena_like_record()
    rec = json.loads(good)
    changed = json.loads(good)
    changed["actions"][-1][1] = "pass"  # the winner's last decision (its win) made a pass
    wrong_tile = json.loads(good)
    wrong_tile["wall"][3] = "0m"
    lines = [json.dumps(changed).encode(), good.encode()[: len(good) // 2], json.dumps(wrong_tile).encode(),
             good.replace('"actions": [[' + str(rec["actions"][0][0]), '"actions": [[' + "9" * 5000, 1).encode(),
             good.encode().replace(b'"format"', b'"\xff": 1, "format"', 1),
             good.replace('"settlement": {', '"settlement": {"x": ' + "[" * 5000 + "]" * 5000 + ", ", 1).encode(),
             good.encode()]
    path = tmp_path / "hands.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert records.main([str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("1 of 7 record(s) replay")
    why = err.splitlines()
    assert len(why) == 6
    assert why[0].startswith("record 0: actions[") and "pass" in why[0]
    assert why[1].startswith("record 1: ")
    assert why[2] == "record 2: wall: wall[3] = '0m' is not a tile code"
    assert why[3].startswith("record 3: actions[0] must be [seat 0-3, action name]")
    assert why[4].startswith("record 4: 'utf-8' codec can't decode byte 0xff")
    assert why[5] == "record 5: nested too deeply"


@pytest.mark.parametrize(("obs", "size"), [("v1", 607), ("v2", 743)])
def test_the_self_play_env_flattened_is_mask_planes_then_seat_as_the_readme_says(obs, size):
    """README (self-play, observation wrappers): Gymnasium's FlattenObservation over the NEXT_STEP MahjongVectorEnv
    gives the mask's 127, the planes, then the seat one-hot (Dict keys sorted), so [127:] is not the planes alone."""
    from gymnasium.wrappers.vector import FlattenObservation
    raw = MahjongVectorEnv(3, seed=0, autoreset_mode="NEXT_STEP", obs=obs)
    flat = FlattenObservation(MahjongVectorEnv(3, seed=0, autoreset_mode="NEXT_STEP", obs=obs))
    o, _ = raw.reset(seed=0)
    f, _ = flat.reset(seed=0)
    assert f.shape == (3, size)
    assert (f[:, :127] == o["action_mask"]).all()
    assert (f[:, 127:-4] == o["observation"].reshape(3, -1)).all()
    assert (f[:, -4:] == np.eye(4)[o["seat"]]).all()
    readme = (__import__("pathlib").Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "`FlattenObservation` then gives 607 numbers a table, 743 with `obs=\"v2\"`" in " ".join(readme.split())
