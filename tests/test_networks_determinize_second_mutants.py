"""Gaps found by a second mutation round (seed 4301) over agents/networks.py and mj_env/determinize.py, after both
changed since their first rounds (tests/test_networks_run_mutants.py, tests/test_determinize_actions_mutants.py):
each test here failed under the mutant named in its docstring and passes on the code. The expectations come from
the modules' documented behaviour (their docstrings) and docs/RULES.md."""
from __future__ import annotations

import numpy as np
import pytest
from test_networks_run_mutants import _agent_obs

from mj_env.tiles import N_KINDS

# --------------------------------------------------------------------------- agents/networks.py


@pytest.mark.parametrize("config", [["mlp"], "mlp", None])
def test_a_network_config_that_is_no_dict_is_a_type_error_naming_its_type(config):
    """``check_config``: a config that is not a dict is "an error naming the first bad entry", a TypeError naming
    what it is (mutant: the dict test forced False, an AttributeError from ``config.get`` instead)."""
    pytest.importorskip("torch")
    from agents.networks import build_network, check_config

    with pytest.raises(TypeError, match=rf"model_config is a {type(config).__name__}, not a dict"):
        check_config(config)
    with pytest.raises(TypeError, match="not a dict"):
        build_network(config)


@pytest.mark.parametrize("arch", ["mlp", "tiles"])
def test_a_network_agent_given_no_rows_returns_no_actions_for_either_architecture(arch):
    """``NetworkAgent.act``: "0 rows give an empty array", for the tile network too, whose convolutions cannot
    reshape an empty batch (mutant: the early return for 0 rows removed, the tile network run on no rows)."""
    pytest.importorskip("torch")
    from agents.networks import NetworkAgent, build_network

    agent = NetworkAgent(build_network({"arch": arch, **({"hidden": [8]} if arch == "mlp" else {"channels": 4})}))
    out = agent.act(_agent_obs(0), np.random.default_rng(0))
    assert out.shape == (0,) and out.dtype == np.int64
    assert agent.act(_agent_obs(3), np.random.default_rng(0)).shape == (3,)


def test_an_unknown_name_of_agents_networks_is_its_own_attribute_error():
    """The four checkpoint names are looked up in agents.checkpoints; any other unknown name is an AttributeError
    naming agents.networks, as a module's own (mutant: every name looked up in agents.checkpoints, whose error
    named that module)."""
    pytest.importorskip("torch")
    from agents import checkpoints, networks

    assert networks.save_checkpoint is checkpoints.save_checkpoint
    assert networks.CheckpointError is checkpoints.CheckpointError
    with pytest.raises(AttributeError, match=r"^module 'agents\.networks' has no attribute 'no_such_name'$"):
        networks.no_such_name  # noqa: B018
    assert not hasattr(networks, "no_such_name")


# --------------------------------------------------------------------------- mj_env/determinize.py


def test_the_redeals_chain_takes_500_steps_by_default():
    """The module docstring: the 报听 chain takes ``mcmc_steps`` proposals, "default 500" (benchmarks/README.md
    measured the mixing at that default), for ``redeal`` as for ``determinize`` (mutant: redeal's default 499)."""
    import inspect

    from mj_env.determinize import determinize, redeal

    for f in (determinize, redeal):
        params = inspect.signature(f).parameters
        assert params["mcmc_steps"].default == 500 and params["max_tries"].default == 64


@pytest.mark.parametrize("value", [True, np.bool_(True), 2.0, "3"])
@pytest.mark.parametrize("what", ["max_tries", "mcmc_steps"])
def test_a_redeals_budget_that_is_no_integer_is_a_type_error(what, value):
    """``max_tries`` and ``mcmc_steps`` are integers: a bool, a float or a string is a TypeError naming the
    argument, as ``table`` and ``seat`` are refused (mutant: the test's ``or`` made ``and``, True taken as 1 and
    2.0 as 2)."""
    from mj_env.determinize import determinize, redeal
    from mj_env.engine import Engine

    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset()
    hands = eng.state.hands.copy()
    with pytest.raises(TypeError, match=rf"{what} must be an integer, got"):
        redeal(eng, 0, 1, **{what: value})
    with pytest.raises(TypeError, match=rf"{what} must be an integer, got"):
        determinize(eng, 0, 0, n=2, rng=1, **{what: value})
    assert np.array_equal(eng.state.hands, hands)  # a refused call changes nothing


def test_ting_waits_counts_the_melds_among_the_seats_tiles():
    """``ting_waits``: no wait on a kind the seat holds all four of, its melds included; under 缺一门 the melds'
    suits count. A single wait on 5p beside a pong of 5p waits on nothing; beside a pong of 5s it holds all three
    suits (mutant: the melds subtracted from the hand instead of added)."""
    from mj_env.determinize import ting_waits
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand

    quemen = get_rules("quemen")
    hand = parse_hand("456m789m111z5p")[None]
    none = np.zeros((1, N_KINDS), dtype=np.int16)
    pong_5p, pong_5s = (parse_hand(t)[None].astype(np.int16) for t in ("555p", "555s"))
    assert ting_waits(quemen, hand, none).tolist() == [True]
    assert ting_waits(quemen, hand, pong_5p).tolist() == [False]
    assert ting_waits(quemen, hand, pong_5s).tolist() == [False]
    plain = get_rules("quemen", lack_suit=False)
    assert ting_waits(plain, hand, pong_5s).tolist() == [True]
    assert ting_waits(plain, hand, pong_5p).tolist() == [False]


def test_ting_waits_asks_no_missing_suit_without_the_lack_suit_rule():
    """``ting_waits``: "(缺一门) the win lacks a suit" only where the rule set has ``lack_suit`` (a quemen of one's own
    without it, or any other rule set): a hand of all three suits waits there (mutant: the 缺一门 test made
    unconditional)."""
    from mj_env.determinize import ting_waits
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand

    hand = parse_hand("123m456p789s111z5p")[None]
    none = np.zeros((1, N_KINDS), dtype=np.int16)
    assert ting_waits(get_rules("quemen"), hand, none).tolist() == [False]
    assert ting_waits(get_rules("quemen", lack_suit=False), hand, none).tolist() == [True]
    assert ting_waits(get_rules("beijing"), hand, none).tolist() == [True]


def test_another_seats_concealed_kong_may_be_of_any_unseen_kind_the_red_dragon_too():
    """A concealed kong gets "a kind of which all four tiles are unseen", uniformly: over many copies every such
    kind shows up, the last kind (7z) included where no 惠牌 rule bars one (mutant: the ``no_kong`` rows test
    ``>= -1``, which barred kind -1, 7z, at every table)."""
    from test_clone import play_until

    from mj_env.determinize import determinize
    from mj_env.engine import Engine
    from mj_env.state import TURN

    rng = np.random.default_rng(5)
    eng = Engine("hebei", num_tables=64, seed=6)
    eng.reset()

    def seen_by_asked(e):
        st, rows = e.state, np.arange(64)
        return (st.hands[rows, st.to_act] + st.river.sum(axis=1) + st.meld_counts.sum(axis=1)
                - st.hidden.sum(axis=1))

    def found(e):  # another seat holds one concealed kong, and the seat to act has seen no 7z
        st = e.state
        return ((st.phase == TURN) & (st.n_hidden.sum(axis=1) == 1) & (st.n_hidden[np.arange(64), st.to_act] == 0)
                & (seen_by_asked(e)[:, N_KINDS - 1] == 0))

    play_until(eng, rng, lambda e: bool(found(e).any()))
    st = eng.state
    b = int(np.flatnonzero(found(eng))[0])
    seat = int(st.to_act[b])
    seen = seen_by_asked(eng)[b]
    worlds = determinize(eng, b, seat, n=600, rng=1)
    o = int(np.flatnonzero(st.n_hidden[b])[0])
    kinds = {int(np.flatnonzero(h)[0]) for h in worlds.state.hidden[:, o]}
    unseen_kinds = set(np.flatnonzero(seen == 0).tolist())
    assert N_KINDS - 1 in unseen_kinds and len(unseen_kinds) > 5
    assert kinds == unseen_kinds


def test_ting_hand_builds_a_start_of_runs_alone():
    """``_ting_hand`` takes "k triplets or runs": tiles that make runs and no triplet still give a start, so the
    table's real 报听 hand is not kept for a search to read (mutant: the run branch tested ``kind_of_group == 2``,
    never taken)."""
    from mj_env.determinize import _ting_hand
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand

    avail = parse_hand("123m456m789m123p5p")
    got = _ting_hand(get_rules("quemen"), avail, 13, np.zeros(N_KINDS, dtype=np.int64))
    assert got is not None and got[0].tolist() == avail.tolist()


def test_ting_hands_built_from_random_tiles_take_only_what_is_available():
    """``_ting_hand`` over 300 random sets of available tiles: each hand it gives is ``size`` tiles out of
    ``avail`` (no kind more often than available) and waits as ``ting_waits`` requires; most sets give one
    (mutants: a run's third tile tested at ``t - 2``, the second pair's partner tile ``t + d`` not tested, both
    taking tiles that are not there)."""
    from mj_env.determinize import _ting_hand, ting_waits
    from mj_env.rules import get_rules
    from mj_env.tiles import full_set

    quemen = get_rules("quemen")
    rng = np.random.default_rng(4301)
    naturals = np.sort(full_set(136))
    found = 0
    for _ in range(300):
        avail = np.bincount(rng.choice(naturals, size=int(rng.integers(14, 40)), replace=False), minlength=N_KINDS)
        size = int(rng.choice([4, 7, 10, 13]))
        melds = np.zeros(N_KINDS, dtype=np.int64)
        got = _ting_hand(quemen, avail, size, melds)
        if got is None:
            continue
        found += 1
        hand = got[0]
        assert hand.sum() == size and (hand >= 0).all() and (hand <= avail).all()
        assert ting_waits(quemen, hand[None], melds[None])[0]
    assert found > 150


def test_ting_starts_keep_every_real_hand_where_one_reporting_seat_has_none():
    """``_ting_starts``: "A table where that finds no hands ... keeps its real hands and kong kinds", every 报听 seat's,
    and no tile is made or lost. Seat 0's face-up melds hold all three suits, so under 缺一门 no hand of its waits;
    seat 1 alone could be rebuilt (mutant: the ``break`` after a seat with no hand removed, the missing hand read as
    one: a TypeError out of the redeal)."""
    import mj_env.determinize as D
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand

    melds = np.zeros((1, 4, N_KINDS), dtype=np.int16)
    melds[0, 0] = parse_hand("111m222p333s")
    melds[0, 1] = parse_hand("111p222p333p")
    ting = np.array([[True, True, False, False]])
    part = np.zeros((1, 4, N_KINDS), dtype=np.int64)
    part[0, 0], part[0, 1] = parse_hand("5m5m7z7z"), parse_hand("4s4s6z6z")
    pool = np.zeros((1, D.N_CODES), dtype=np.int64)
    pool[0, :N_KINDS] = parse_hand("2m3m4m6m7m8m9m1s2s3s5s6s7s8s9s1z1z2z2z3z3z4z")
    kongs = np.full((1, 4, 4), -1, dtype=np.int64)
    new_part, new_pool, new_kongs = D._ting_starts(get_rules("quemen"), melds, ting, part, pool,
                                                   np.zeros(1, dtype=np.int64), np.full(1, -1), kongs)
    assert np.array_equal(new_part, part) and np.array_equal(new_pool, pool) and np.array_equal(new_kongs, kongs)
