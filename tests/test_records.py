"""Hand records (mj_env.records): written by the AEC env and the arena, replayed exactly, and every
way a record can be wrong refused with a message naming where."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import mj_env
from agents import RandomAgent, RuleBasedAgent
from agents.arena import main as arena_main
from agents.arena import play_duplicate
from mj_env import actions as A
from mj_env import records
from mj_env.records import RecordError


def _played(rules="beijing", seed=5, stop=None, **overrides):
    """A hand of random legal play in the AEC env and its record (``stop``: after that many decisions)."""
    env = mj_env.env(rules=rules, **overrides)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    env.seen_settlement = None
    for n, _agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, info = env.last()
        if stop is not None and n == stop:
            break
        env.seen_settlement = info.get("settlement", env.seen_settlement)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env, json.loads(json.dumps(env.unwrapped.hand_record()))


@pytest.mark.parametrize("rules, overrides", [("beijing", {}), ("hebei", {}), ("quemen", {}),
                                              ("beijing", {"hui_wild_in_melds": True, "base": 3})])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_played_hand_replays_to_its_settlement(rules, overrides, seed):
    env, rec = _played(rules, seed, **overrides)
    assert rec["format"] == "mj_hand_v1" and len(rec["wall"]) == env.unwrapped.rules.n_tiles
    assert rec["rules"] == (rules if not overrides else {"name": rules, **overrides})
    settlement = records.replay(rec)
    assert settlement == rec["settlement"] == json.loads(json.dumps(env.seen_settlement))
    seen = []
    records.replay(rec, lambda i, seat, a, eng: seen.append((i, seat, a)))
    assert [(s, A.name(a)) for _, s, a in seen[:-1]] == [tuple(p) for p in rec["actions"]]
    assert seen[-1] == (len(rec["actions"]), None, None)


def test_a_record_listing_several_winners_by_seat_still_replays():
    # written at commit 35dbe10, when the engine listed hebei's winners on one discard by seat ([1, 3]);
    # it now lists them in play order from the discarder, seat 2 ([3, 1]): their order carries no meaning
    from pathlib import Path
    rec = json.loads((Path(__file__).parent / "cases" / "hebei_two_winners_by_seat.json").read_text())
    assert [w["input"]["winner"] for w in rec["settlement"]["wins"]] == [1, 3]
    assert [w["input"]["winner"] for w in records.replay(rec)["wins"]] == [3, 1]
    rec["settlement"]["wins"][0]["fan"] += 1  # a real difference is still found
    with pytest.raises(RecordError, match="settles otherwise"):
        records.replay(rec)


def test_a_hand_recorded_before_its_end_replays_to_where_it_was():
    _, rec = _played(stop=17)
    assert "settlement" not in rec and len(rec["actions"]) == 17
    assert records.replay(rec) is None
    short = copy.deepcopy(rec)
    short["settlement"] = {"scores": [0, 0, 0, 0]}  # a finished hand's record missing decisions
    with pytest.raises(RecordError, match="has not ended after the record's 17 decision"):
        records.replay(short)


def _broken(change):
    _, rec = _played(seed=2)
    change(rec)
    return rec


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(format="mj_hand_v0"), "format must be 'mj_hand_v1'"),
    (lambda r: r.pop("wall"), "missing field 'wall'"),
    (lambda r: r.update(rules="tokyo"), "unknown preset 'tokyo'"),
    (lambda r: r.update(rules={"name": "beijing", "bogus": 1}), "unknown field(s) 'bogus'"),
    (lambda r: r.update(rules={"name": ["beijing"]}), "rules must be a preset name or an object"),  # unhashable
    (lambda r: r.update(rules=5), "rules must be a preset name or an object"),
    (lambda r: r.update(rules={"name": "beijing", 1: 2, "x": 3}), "unknown field(s) 1, 'x'"),  # a Python dict
    (lambda r: r.update(rules={"name": "beijing", "base": -4}), "rules: "),
    (lambda r: r.update(rules={"name": "beijing", "hands_per_episode": 4}), "a record holds one hand"),
    (lambda r: r.update(rules={"name": "beijing", "hands_per_episode": 2}), "a record holds one hand"),
    (lambda r: r.pop("format"), "format must be 'mj_hand_v1', got None"),
    (lambda r: r.update(dealer=4), "dealer must be a seat 0-3, got 4"),
    (lambda r: r.update(dealer=True), "dealer must be a seat 0-3"),
    (lambda r: r.update(dealer=1.0), "dealer must be a seat 0-3, got 1.0"),
    (lambda r: r.pop("dealer"), "missing field 'dealer'"),
    (lambda r: r["wall"].pop(), "wall: the beijing wall has 136 tiles, got 135"),
    (lambda r: r["wall"].__setitem__(0, "9z"), "wall: wall[0] = '9z' is not a tile code"),
    (lambda r: r.update(actions="discard 1m"), "actions must be a list"),
    (lambda r: r["actions"].__setitem__(3, [1, "discard 10m"]), "actions[3]: 'discard 10m' is not an action name"),
    (lambda r: r["actions"].__setitem__(3, [5, "pass"]), "actions[3] must be [seat 0-3, action name]"),
    (lambda r: r["actions"].__setitem__(3, [-1, "pass"]), "actions[3] must be [seat 0-3, action name]"),
    (lambda r: r["actions"].__setitem__(3, r["actions"][3] + ["x"]), "actions[3] must be [seat 0-3, action name]"),
    (lambda r: r["actions"].__setitem__(3, [r["actions"][3][0], 5]), "actions[3] must be [seat 0-3, action name]"),
    (lambda r: r["actions"].__setitem__(3, [True, r["actions"][3][1]]),
     "actions[3] must be [seat 0-3, action name], got [True"),  # JSON true is no seat, though Python's == 1
    (lambda r: r["actions"].__setitem__(0, [(r["dealer"] + 1) % 4, r["actions"][0][1]]), "actions[0]: seat "),
    (lambda r: r["actions"].__setitem__(0, [r["actions"][0][0], "ting 1m"]), "actions[0]: ting 1m by seat"),
    (lambda r: r["actions"].append([0, "pass"]), "the hand ended after"),
    (lambda r: r["settlement"].update(scores=[9, -3, -3, -3]), "the replay settles"),
    (lambda r: r.update(settlement={}), "the replay settles"),   # an empty settlement is one to compare with
    (lambda r: r["settlement"].update(wins=[{}]), "the replay settles"),           # wins not as the engine writes
    (lambda r: r["settlement"].update(wins=[1, "x"]), "the replay settles"),        # them: compared, never read
    # where the scores and another field differ, the scores are named (looked at first)
    (lambda r: r["settlement"].update(scores=[9, -3, -3, -3], fan=99, another=1), "settlement.scores"),
    (lambda r: r.update(actions=[[0, "pass"]] * 2001), "2001 actions: a hand has at most 2000"),
    (lambda r: r.update(actions=[[0, "pass"]] * 2000), "actions[0]: "),  # 2000 are replayed (and fail there)
])
def test_a_wrong_record_is_refused_with_where(change, message):
    with pytest.raises(RecordError) as e:
        records.replay(_broken(change))
    assert message in str(e.value)


def test_records_only_for_single_hands_and_played_moves():
    env = mj_env.env(hands_per_episode=2)
    env.reset(seed=0)
    for _ in range(30):  # a match keeps no decision list: it would grow through every hand (soak audit)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.unwrapped._hand["actions"] == []
    with pytest.raises(RecordError, match="matches of 2 hands"):
        env.unwrapped.hand_record()
    with pytest.raises(RecordError, match="call reset"):
        mj_env.env().unwrapped.hand_record()
    env = mj_env.env(illegal_action="penalize")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(RecordError, match="illegal action"):
        env.unwrapped.hand_record()


def test_arena_records_replay_to_its_scores():
    res = play_duplicate([RuleBasedAgent(), RandomAgent()], n_walls=3, seed=4, batch_walls=2, record_hands=True)
    assert len(res.records) == len(res.wall) == 6
    for h, rec in enumerate(res.records):
        assert rec["wall_index"] == res.wall[h] and rec["seating"] == res.seating[h]
        assert rec["players"] == [res.names[k] for k in res.seat_agent[h]]
        settlement = records.replay(json.loads(json.dumps(rec)))
        assert settlement["scores"] == res.scores[h].tolist()
    assert play_duplicate([RuleBasedAgent(), RandomAgent()], n_walls=1, seed=4).records is None


def test_command_lines_write_and_check_records(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    arena_main(["--agents", "rule,random", "--hands", "2", "--seed", "1", "--record", str(path), "--quiet"])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4
    capsys.readouterr()
    assert records.main([str(path)]) == 0
    assert "4 of 4 record(s) replay to their stored settlements" in capsys.readouterr().out
    assert records.main([str(path), "--show", "1"]) == 0
    shown = capsys.readouterr().out
    assert shown.count("--> decision ") == len(json.loads(lines[1])["actions"]) and "settlement: {" in shown
    bad = json.loads(lines[0])
    bad["settlement"]["scores"] = [1, 1, 1, -3]
    path.write_text(lines[1] + "\n" + json.dumps(bad) + "\nnot json\n" + '{"rules": \r\n', encoding="utf-8")
    assert records.main([str(path)]) == 1
    out = capsys.readouterr()
    assert "1 of 4 record(s)" in out.out and "record 1: the replay settles otherwise" in out.err and "record 2: " in out.err
    assert "record 3: Expecting value: line 1 column 11" in out.err  # its own line, not "line 2" after its line end
    with pytest.raises(SystemExit):
        records.main([str(path), "--show", "4"])
    assert "--show 4: the file holds 4 record(s), 0-3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        records.main([str(path), "--show", "-1"])
    assert "--show -1: records are numbered from 0" in capsys.readouterr().err


def test_arena_refuses_a_record_file_it_cannot_write(tmp_path, capsys):
    with pytest.raises(SystemExit):
        arena_main(["--agents", "rule,random", "--hands", "1", "--record", str(tmp_path / "no" / "x.jsonl")])
    assert "--record" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        arena_main(["--agents", "rule,random", "--hands", "1", "--record", str(tmp_path / "a.json"),
                    "--json", str(tmp_path / "a.json")])
    assert "--json and --record name the same file" in capsys.readouterr().err


def test_the_checker_reports_unreadable_lines_and_goes_on(tmp_path, capsys):
    _, rec = _played(seed=3)
    good = json.dumps(rec)
    odd = dict(rec, players=["\ud800", "b", "c", "d"])  # a lone surrogate: JSON allows it, UTF-8 cannot print it
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\xff\xfe{}\n" + ('{"dealer": ' + "1" * 5000 + "}\n").encode() + good.encode() + b"\n"
                     + json.dumps(odd).encode() + b"\n")
    assert records.main([str(path)]) == 1
    out = capsys.readouterr()
    assert "2 of 4 record(s) replay" in out.out and "record 0: " in out.err and "record 1: " in out.err
    assert records.main([str(path), "--show", "3"]) == 0
    assert "seat " in capsys.readouterr().out
    deep = []
    for _ in range(5000):
        deep = [deep]
    nested = dict(rec, settlement=deep)
    with pytest.raises(RecordError, match="settlement: not a settlement object"):
        records.replay(nested)


def test_a_record_is_a_copy_that_changes_nothing_in_the_env():
    env, _ = _played(seed=4)
    rec = env.unwrapped.hand_record()
    rec["settlement"]["scores"][0] = 999
    rec["actions"].clear()
    again = env.unwrapped.hand_record()
    assert again["settlement"]["scores"][0] != 999 and again["actions"]
    assert records.replay(again) == again["settlement"]


def test_arena_hands_go_to_a_callable_batch_by_batch():
    batches = []
    res = play_duplicate([RuleBasedAgent(), RandomAgent()], n_walls=5, seed=4, batch_walls=2,
                         record_hands=batches.append)
    assert res.records is None and [len(b) for b in batches] == [4, 4, 2]
    assert [r["wall_index"] for b in batches for r in b] == res.wall.tolist()


def test_messages_show_a_bad_value_briefly():
    _, rec = _played(seed=2)
    deep = []
    for _ in range(5000):
        deep = [deep]
    many = {"name": "beijing", **{f"f{i}": 0 for i in range(10_000)}}  # unknown fields: the first 5 named
    for key, value in (("dealer", deep), ("format", "x" * 100_000), ("rules", {"name": "y" * 100_000}), ("rules", many)):
        with pytest.raises(RecordError) as e:
            records.replay(dict(rec, **{key: value}))
        assert len(str(e.value)) < 200


def test_the_checker_says_what_differs_counts_unsettled_records_and_stops_listing(tmp_path, capsys):
    _, rec = _played(seed=3)
    wrong = copy.deepcopy(rec)
    wrong["settlement"]["scores"] = [-1, -1, -1, 3]
    with pytest.raises(RecordError) as e:
        records.replay(wrong)
    assert (f"the replay settles otherwise than the record: settlement.scores is {rec['settlement']['scores']} in "
            "the replay, [-1, -1, -1, 3] in the record") in str(e.value)
    open_hand = {k: v for k, v in rec.items() if k != "settlement"}
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps(open_hand) + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 0
    assert "1 of 2 record(s) replay to their stored settlements; 1 recorded before the hand ended" in \
        capsys.readouterr().out
    path.write_text("not json\n" * 50, encoding="utf-8")
    assert records.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\nrecord ") == 19 and "only the first 20 are shown" in err
    path.write_text("\n", encoding="utf-8")
    assert records.main([str(path)]) == 1 and "no records" in capsys.readouterr().err


def test_visit_sees_the_table_before_each_decision():
    """replay's ``visit(i, seat, action, engine)`` comes before the i-th decision is made: the seat is the one to
    act and the action is legal there (after the step, another seat acts, or the hand has ended)."""
    _, rec = _played(seed=3)
    seen = []

    def visit(i, seat, a, eng):
        if seat is not None:
            seen.append((int(eng.state.to_act[0]) == seat, bool(eng.legal_mask()[0, a])))

    records.replay(rec, visit)
    assert seen == [(True, True)] * len(rec["actions"])


def test_a_finished_hand_without_its_settlement_replays_to_the_replays_settlement():
    _, rec = _played(seed=2)
    settlement = rec.pop("settlement")
    assert records.replay(rec) == settlement  # nothing to compare with, but the hand ended: its settlement


def test_the_checker_shows_record_0_and_a_bad_record_deeply_nested_or_not(tmp_path, capsys):
    _, rec = _played(seed=3)
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert records.main([str(path), "--show", "0"]) == 0  # records are numbered from 0: the first is there
    assert "--> decision 0: seat " in capsys.readouterr().out
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n" + json.dumps(rec) + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 1  # a line JSON cannot read for its depth is one bad record
    out = capsys.readouterr()
    assert "record 0: nested too deeply" in out.err and "1 of 2 record(s) replay" in out.out
    assert records.main([str(path), "--show", "0"]) == 1  # shown: why it cannot be, no usage error
    assert "record 0: nested too deeply" in capsys.readouterr().err


def test_show_names_the_players_only_when_there_are_four():
    import io
    _, rec = _played(seed=3)
    for players, named in ((["a", "b"], False), (["a", "b", "c", "d"], True), ("abcd", False)):
        out = io.StringIO()
        records.show(dict(rec, players=players), out)
        assert (f"seat {rec['actions'][0][0]} ({'abcd'[rec['actions'][0][0]]})" in out.getvalue()) is named


def test_a_record_of_numpy_values_is_plain_json():
    """hand_record takes the dealer, seats and actions as NumPy integers (as the engine holds them) and writes
    plain ints, so that the record is JSON."""
    rules = mj_env.get_rules("beijing")
    rec = records.hand_record(rules, np.arange(136) // 4, np.int64(2), [(np.int64(2), np.int64(5))])
    assert json.loads(json.dumps(rec))["dealer"] == 2 and rec["actions"] == [[2, A.name(5)]]


# --------------------------------------------------------------------------- the checker given '-' with standard input closed


def test_the_records_checker_given_a_dash_with_standard_input_closed_says_so(monkeypatch, capsys):
    """``python -m mj_env.records - <&-`` (standard input closed: Python sets ``sys.stdin`` to None) was an
    AttributeError traceback ("'NoneType' object has no attribute 'buffer'"); a text stream put in stdin's place
    (``io.StringIO``) the same. Now a usage error that says what is wrong."""
    import io

    from mj_env import records

    for stdin in (None, io.StringIO("{}\n")):
        monkeypatch.setattr("sys.stdin", stdin)
        with pytest.raises(SystemExit) as e:
            records.main(["-"])
        assert e.value.code == 2
        assert "-: standard input is closed or not a byte stream" in capsys.readouterr().err


# --------------------------------------------------------------------------- a real settlement's depth


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def test_real_settlements_with_several_winners_and_melds_replay_well_within_the_depth_limit(tmp_path):
    """docs/RULES.md: hebei pays every player who can win on a discard; each win's input lists its melds."""
    pytest.importorskip("scipy")  # the train extra: the arena's intervals
    from agents.arena import main as arena_main

    path = tmp_path / "hands.jsonl"
    arena_main(["--agents", "rule,efficient", "--rules", "hebei", "--hands", "50", "--seed", "0", "--record",
                str(path), "--quiet"])
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    several = [r for r in recs if len(r["settlement"].get("wins") or []) > 1
               and any(w["input"]["melds"] for w in r["settlement"]["wins"])]
    assert several, "no hand of several winners with a meld among these walls: pick others"
    for rec in several:
        assert _depth(rec["settlement"]) == 6
        records.replay(rec)  # a RecordError if refused as nested too deeply
    assert max(_depth(r["settlement"]) for r in recs) <= records.MAX_SETTLEMENT_DEPTH // 8  # ample headroom
