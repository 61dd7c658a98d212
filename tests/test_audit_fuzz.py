"""Property-based audit of what comes from outside the process: metamorphic checks of the hand calculator
(docs/INTERFACES.md 1) and the engine (docs/RULES.md 2-6: the rules treat seats, the suits p and s, and the
winds and dragons alike), refused AEC steps interleaved with good ones (docs/RULES.md 7: a refused action
changes no state), and mutated hand records (``mj_env.records``: refused with a RecordError, never a crash).

The scratch campaigns behind these ran thousands of cases each; the examples here are kept few so that the
file runs in seconds."""
from __future__ import annotations

import copy
import json
import random

import case_tables
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ref_scoring import random_beijing_input

import mj_env
from mj_env import actions as A
from mj_env import records
from mj_env.calculator import InputError, evaluate
from mj_env.engine import Engine
from mj_env.records import RecordError
from mj_env.state import END
from mj_env.tiles import CODES, hui_of_indicator, parse_tiles
from mj_env.wall import shuffled_walls

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------------------------
# Tile maps under which every rule set scores alike. 捉五魁 / 捉五 name 5m, so m stays put; the 惠牌
# successor (n -> n+1, E -> S -> W -> N, 中 -> 发 -> 白) commutes with each of these maps except the mirror
# (n -> 10 - n), which is used only with the 惠牌 given directly.


def swap_ps(t: int) -> int:
    return t + 9 if 9 <= t < 18 else t - 9 if 18 <= t < 27 else t


def mirror(t: int) -> int:
    return (t // 9) * 9 + 8 - t % 9 if t < 27 else t


def next_wind(t: int) -> int:
    return 27 + (t - 26) % 4 if 27 <= t < 31 else t


def next_dragon(t: int) -> int:
    return 31 + (t - 30) % 3 if 31 <= t < 34 else t


TILE_MAPS = {"swap_ps": swap_ps, "mirror": mirror, "next_wind": next_wind, "next_dragon": next_dragon}


def _codes(tiles) -> str:
    return "".join(CODES[t] for t in tiles)


def map_line(obj: dict, f) -> dict:
    """The calculator line with every tile mapped by ``f`` (an ``indicator`` becomes the one naming the mapped 惠牌)."""
    out = copy.deepcopy(obj)
    for key in ("hand", "win_tile"):
        out[key] = _codes(f(t) for t in parse_tiles(out[key]))
    for m in out.get("melds") or []:
        m["tiles"] = _codes(f(t) for t in parse_tiles(m["tiles"]))
    if out.get("hui") is not None:
        out["hui"] = CODES[f(parse_tiles(out["hui"])[0])]
    if out.get("indicator") is not None:
        hui = f(hui_of_indicator(parse_tiles(out["indicator"])[0]))
        out["indicator"] = CODES[next(i for i in range(34) if hui_of_indicator(i) == hui)]
    return out


def rotate_line(obj: dict, k: int) -> dict:
    """The calculator line with every seat moved on by ``k``."""
    out = copy.deepcopy(obj)
    for key in ("winner", "dealer", "discarder"):
        value = out.get(key, 0 if key != "discarder" else None)
        if value is not None:
            out[key] = (value + k) % 4
    for m in out.get("melds") or []:
        if m.get("from") is not None:
            m["from"] = (m["from"] + k) % 4
    if out.get("hubao"):
        out["hubao"] = [[(a + k) % 4, (b + k) % 4] for a, b in out["hubao"]]
    return out


def _score(obj: dict) -> dict:
    try:
        return evaluate(json.loads(json.dumps(obj, ensure_ascii=False)))
    except InputError as e:
        return {"error": str(e)}


CASE_LINES = [c["input"] for rules in ("beijing", "hebei", "quemen") for c in case_tables.load(rules)]
LINES = st.one_of(st.sampled_from(CASE_LINES),
                  st.integers(0, 10**6).map(lambda s: random_beijing_input(random.Random(s))))


@FAST
@given(LINES, st.integers(1, 3), st.sampled_from(sorted(TILE_MAPS)), st.randoms(use_true_random=False))
def test_a_calculator_line_scores_alike_under_the_rules_symmetries(obj, k, tile_map, rnd):
    """Turning the table (every seat + k) turns the scores; the maps above keep fan, patterns and scores; tiles
    and keys written in another order, or a default written as null, change nothing."""
    want = _score(obj)
    assert "error" not in want, want

    got = _score(rotate_line(obj, k))
    assert got.get("legal") == want["legal"]
    if want["legal"]:
        assert (got["fan"], got["patterns"], got["shaozhuang"]) == (want["fan"], want["patterns"], want["shaozhuang"])
        assert got["scores"] == want["scores"][-k:] + want["scores"][:-k]

    line = dict(obj)
    if tile_map == "mirror" and line.get("indicator") is not None:  # the 惠牌 given directly (see TILE_MAPS)
        line["hui"] = CODES[hui_of_indicator(parse_tiles(line.pop("indicator"))[0])]
    got = _score(map_line(line, TILE_MAPS[tile_map]))
    assert got.get("legal") == want["legal"]
    if want["legal"]:
        assert got == want

    shuffled = copy.deepcopy(obj)
    tiles = parse_tiles(shuffled["hand"])
    rnd.shuffle(tiles)
    shuffled["hand"] = _codes(tiles)
    for m in shuffled.get("melds") or []:
        tiles = parse_tiles(m["tiles"])
        rnd.shuffle(tiles)
        m["tiles"] = _codes(tiles)
    keys = list(shuffled)
    rnd.shuffle(keys)
    shuffled = {key: shuffled[key] for key in keys}
    for key in ("discarder", "melds", "situation", "hubao"):
        shuffled.setdefault(key, None)
    assert _score(shuffled) == want


# ---------------------------------------------------------------------------------------------
# The engine: a hand played on a mapped wall with the mapped decisions, or dealt with the dealer k seats on,
# offers the mapped masks and settles the same points (turned by k).

NAMES = [A.name(i) for i in range(A.N_ACTIONS)]


def map_action(a: int, f) -> int:
    verb, _, arg = NAMES[a].partition(" ")
    if verb in ("discard", "kong", "ting") and arg:
        return A.index(f"{verb} {CODES[f(parse_tiles(arg)[0])]}")
    if verb == "chi":
        run = sorted(f(t) for t in parse_tiles(arg))
        return A.index("chi " + "".join(CODES[t][0] for t in run) + CODES[run[0]][1])
    return a


def _play(rules: str, wall, dealer: int, choose):
    eng = Engine(rules, num_tables=1)
    total = eng.reset(walls=[wall], dealers=[dealer]).rewards[0].copy()
    n = 0
    while eng.state.phase[0] != END:
        a = choose(n, eng.legal_mask()[0], int(eng.state.to_act[0]))
        total += eng.step(np.array([a])).rewards[0]
        n += 1
    return total, n


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
@pytest.mark.parametrize("seed", [3, 8])
def test_a_hand_plays_alike_on_a_mapped_wall_and_a_turned_table(rules, seed):
    wall = shuffled_walls(Engine(rules, num_tables=1).rules, np.random.default_rng(seed), 1)[0].astype(int)
    rng = np.random.default_rng(seed)
    log = []

    def first(n, mask, seat):
        legal = np.flatnonzero(mask)
        weight = np.where(legal == A.WIN, 30.0, 1.0)  # wins when it can, mostly: settled hands, not draws only
        a = int(rng.choice(legal, p=weight / weight.sum()))
        log.append((legal, a, seat))
        return a

    want, steps = _play(rules, wall, 0, first)
    maps = [("swap_ps", 2), ("next_wind", 1), ("next_dragon", 3)] + ([("mirror", 0)] if rules != "beijing" else [])
    for name, k in maps:
        f = TILE_MAPS[name]

        def again(n, mask, seat, f=f, k=k, name=name):
            legal, a, s = log[n]
            assert seat == (s + k) % 4
            assert sorted(map_action(x, f) for x in legal) == np.flatnonzero(mask).tolist(), (name, k, n)
            return map_action(a, f)

        got, n = _play(rules, [f(t) if t < 34 else t for t in wall], k, again)
        assert n == steps and got.tolist() == np.roll(want, k).tolist(), (name, k)


# ---------------------------------------------------------------------------------------------
# The AEC env: refused steps between good ones leave the game as the good steps alone play it.

def _not_actions(legal: np.ndarray, mask: np.ndarray):
    a = int(legal[0])
    illegal = np.flatnonzero(mask == 0)
    # (the timedelta has a unit: NumPy 2.5, a fresh install's on Python 3.12 and 3.13, deprecates the generic one)
    return [int(illegal[0]) if len(illegal) else -1, -1, A.N_ACTIONS, 2**64, -2**63, True, float(a), str(a), A.name(a),
            None, [a], np.array([a]), np.array(a, dtype=np.float32), complex(a), np.bool_(True), np.array(str(a)),
            np.ma.masked_array(a, mask=True), np.timedelta64(a, "s"), (a,), float("nan")]


def _aec_game(rules: str, seed: int, rnd: random.Random | None):
    env = mj_env.env(rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter(max_iter=1000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if rnd is not None and rnd.random() < 0.3:
            before = (env.unwrapped.hand_record(), env.state().copy(), obs["action_mask"].copy(), env.agent_selection)
            with pytest.raises(A.ActionError, match=r"^player_\d: action "):
                env.step(rnd.choice(_not_actions(legal, obs["action_mask"])))
            after = (env.unwrapped.hand_record(), env.state(), env.last()[0]["action_mask"], env.agent_selection)
            assert before[0] == after[0] and before[3] == after[3]
            assert np.array_equal(before[1], after[1]) and np.array_equal(before[2], after[2])
        env.step(int(rng.choice(legal)))
    return env.unwrapped.hand_record(), dict(env.unwrapped._cumulative_rewards)


@settings(max_examples=4, deadline=None)
@given(st.sampled_from(["beijing", "hebei", "quemen"]), st.integers(0, 10**6), st.randoms(use_true_random=False))
def test_refused_aec_steps_between_good_ones_change_nothing(rules, seed, rnd):
    assert _aec_game(rules, seed, rnd) == _aec_game(rules, seed, None)


# ---------------------------------------------------------------------------------------------
# Hand records: any mutation of a real record replays, or is refused with a RecordError.

def _record(rules: str, seed: int) -> dict:
    env = mj_env.env(rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter(max_iter=1000):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return json.loads(json.dumps(env.unwrapped.hand_record()))


RECORDS = [_record(rules, seed) for rules in ("beijing", "hebei", "quemen") for seed in (1, 2)]
ODD = [None, True, 0, -1, 4, 2**70, 1.5, -0.0, float("nan"), "", "5m", "pass", "win", [], {}, [0, "pass"], [[0, "pass"]],
       {"name": "beijing"}, "\ud800", "５m"]


def _places(obj, at=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield (*at, k)
            yield from _places(v, (*at, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:12]):
            yield (*at, i)
            yield from _places(v, (*at, i))


@st.composite
def mutated_records(draw):
    rec = copy.deepcopy(draw(st.sampled_from(RECORDS)))
    how = draw(st.sampled_from(["value", "drop", "swap actions", "swap wall", "cut actions", "repeat action"]))
    if how in ("value", "drop"):
        place = draw(st.sampled_from(list(_places(rec))))
        holder = rec
        for k in place[:-1]:
            holder = holder[k]
        if how == "drop":
            del holder[place[-1]]
        else:
            holder[place[-1]] = copy.deepcopy(draw(st.sampled_from(ODD)))
    else:
        key = "wall" if how == "swap wall" else "actions"
        items = rec[key]
        i, j = draw(st.integers(0, len(items) - 1)), draw(st.integers(0, len(items) - 1))
        if how.startswith("swap"):
            items[i], items[j] = items[j], items[i]
        elif how == "cut actions":
            del items[i:]
        else:
            items.insert(i, list(items[i]))
    return json.loads(json.dumps(rec))


@FAST
@given(mutated_records())
def test_a_mutated_record_replays_or_is_refused_with_a_record_error(rec):
    try:
        settlement = records.replay(rec)
    except RecordError as e:
        assert str(e)
        return
    if "settlement" in rec:  # replay compared it: a record that replays and holds a settlement has ended
        assert settlement is not None and "scores" in settlement


# ---------------------------------------------------------------------------------------------
# Checkpoint paths from Python callers (or JSON, whose \ud800 escape gives one): a lone surrogate is no NUL byte.

@pytest.mark.parametrize("path", ["ck\ud800pt.pt", "\udfff"])
def test_a_path_with_a_lone_surrogate_is_refused_for_what_it_holds(path):
    """os.stat raises UnicodeEncodeError (a ValueError) for a str no file name can encode; that was reported as
    "a path cannot hold a NUL byte", with the surrogate raw in the message (which then cannot be printed)."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents import make_agent
    from agents.networks import CheckpointError, load_checkpoint
    for call, error in ((make_agent, ValueError), (load_checkpoint, CheckpointError)):
        with pytest.raises(error) as e:
            call(path)
        message = str(e.value)
        assert "NUL" not in message and "surrogate" in message
        message.encode("utf-8")  # printable: the path is shown escaped


@pytest.mark.parametrize("bad", ["x\x00.csv", "x\ud800.csv"])
def test_command_line_mains_refuse_a_path_no_file_name_can_hold(bad, tmp_path, capsys):
    """``main(argv)`` of the records checker and of the curve, called from Python with a path holding a NUL byte or
    a lone surrogate: open() raises a ValueError there, which went out as a traceback; now a usage error (exit 2)
    naming the path, as the arena's and the curve's ``--out`` already did."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    from agents import curve
    for main, argv in ((records.main, [bad]), (curve.main, [bad, "--out", str(tmp_path / "c.png")])):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "cannot hold" in err or "not a file name" in err, err


@pytest.mark.parametrize("bad", ["ck\x00.pt", "ck\ud800.pt"])
def test_save_checkpoint_refuses_a_path_no_file_name_can_hold_by_name(bad, tmp_path):
    """save_checkpoint raised open()'s bare ValueError ("embedded null byte", or a UnicodeEncodeError) that names
    no path; now the CheckpointError it documents, naming the path and what it holds, and nothing is written."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.networks import CheckpointError, build_network, save_checkpoint
    model = build_network({"arch": "mlp", "hidden": [8]})
    with pytest.raises(CheckpointError, match="not saved: .*cannot hold"):
        save_checkpoint(str(tmp_path / bad), model, rules="beijing")
    assert not list(tmp_path.iterdir())
