"""Values users pass that come from NumPy or other libraries (rule fields, agent specs, the envs' settings such as
an illegal action's penalty and the seat): taken as plain Python values, or refused by name."""
import dataclasses
import json
import warnings

import gymnasium as gym
import numpy as np
import pytest

import mj_env
from mj_env import actions as A
from mj_env.rules import RuleError, get_rules
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv


def test_rule_fields_take_numpy_scalars_as_plain_python_values():
    # A sweep over np.arange or a config loaded through NumPy hands over np.int64 / np.bool_ / np.str_:
    # the same rule set as the plain values, and it stays plain JSON.
    r = get_rules("beijing", base=np.int64(500), hui_wild_in_melds=np.True_, dealer_rotation=np.str_("next"))
    assert r == get_rules("beijing", base=500, hui_wild_in_melds=True, dealer_rotation="next")
    assert (type(r.base), type(r.hui_wild_in_melds), type(r.dealer_rotation)) == (int, bool, str)
    json.dumps(dataclasses.asdict(r))
    assert type(r.replace(hands_per_episode=np.int32(3)).hands_per_episode) is int
    env = mj_env.env(rules="hebei", base=np.uint16(7))
    env.reset(seed=0)
    assert env.rules.base == 7 and type(env.rules.base) is int


@pytest.mark.parametrize("field, bad", [("base", np.True_), ("base", np.float64(5)), ("chi", np.int64(1)),
                                        ("dealer_rotation", np.int64(0))])
def test_numpy_values_of_the_wrong_kind_are_still_refused(field, bad):
    with pytest.raises(RuleError, match=repr(field)):
        get_rules("beijing", **{field: bad})


def test_a_network_agent_takes_greedy_as_true_or_false_only(tmp_path):
    # a truthy string ("no", "False") used to play greedily without a word; checked before a checkpoint is read
    torch = pytest.importorskip("torch")
    from agents.networks import NetworkAgent, PolicyValueNet

    torch.manual_seed(0)
    for bad in ("no", "False", 1, None):
        with pytest.raises(TypeError, match="greedy must be True or False"):
            NetworkAgent(PolicyValueNet(hidden=(8,)), greedy=bad)
        with pytest.raises(TypeError, match="greedy must be True or False"):
            NetworkAgent.from_checkpoint(tmp_path / "absent.pt", greedy=bad)
    assert NetworkAgent(PolicyValueNet(hidden=(8,)), greedy=np.True_).greedy is True


def test_compare_with_agents_labelled_by_objects_writes_json():
    # compare(specs, agents=...) takes any labels; the summary kept the objects, and json_text then raised
    pytest.importorskip("scipy")
    from agents.arena import compare
    from agents.arena_report import json_text
    from mj_env.baselines import RandomAgent, RuleBasedAgent

    rule, rand = RuleBasedAgent("beijing"), RandomAgent()
    summary = compare([rule, rand], hands=2, seed=0, agents=[rule, rand])
    assert all(isinstance(a["spec"], str) for a in summary["agents"])
    assert json.loads(json_text(summary))["agents"][0]["spec"] == summary["agents"][0]["spec"]


@pytest.mark.parametrize("spec", [":greedy", ":sample"])
def test_an_agent_suffix_without_a_path_says_the_path_is_empty(spec, capsys):
    # '' was looked up as the current folder: "':greedy':  is not a checkpoint file (a directory or a device)"
    import agents
    from agents.arena import main

    with pytest.raises(ValueError, match=f"agent '{spec}': the path is empty"):
        agents.make_agent(spec)
    with pytest.raises(SystemExit):
        main(["--agents", f"{spec},rule", "--hands", "2"])
    assert "--agents: the path is empty" in capsys.readouterr().err


def test_the_object_form_pairs_a_numpy_flowers_value_with_its_tile_count():
    # {"name": "quemen", "flowers": np.False_} used to be refused as "flowers need n_tiles=144": the
    # pairing of flowers with 144 or 136 tiles read a Python bool only
    for flag, tiles in ((np.False_, 136), (np.True_, 144)):
        r = get_rules({"name": "quemen", "flowers": flag})
        assert r == get_rules({"name": "quemen", "flowers": bool(flag)})
        assert (r.flowers, r.n_tiles, type(r.flowers)) == (bool(flag), tiles, bool)


# --------------------------------------------------------------------------- illegal_penalty and other settings: NumPy scalars


INF16 = np.float16("inf")


def test_an_infinite_float16_penalty_is_refused():
    # NumPy compares np.float16 with the bound 1e15 cast to float16, which is inf: np.float16("inf") passed the
    # check, the one-table env took it and paid -inf, and the AEC setter stored it, after which setting
    # illegal_action (which rechecks the stored penalty) failed on a value the env itself had taken
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        A.illegal_policy("penalize", INF16)
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        MahjongSingleAgentEnv(illegal_penalty=INF16)
    aec = mj_env.env()
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        aec.illegal_penalty = INF16
    assert aec.illegal_penalty == 10
    aec.illegal_action = "penalize"  # the stored penalty is still a valid one
    venv = MahjongSingleAgentVectorEnv(2)
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        venv.illegal_penalty = INF16
    assert venv.illegal_penalty == 10.0


def test_numpy_scalar_settings_an_rl_library_passes_are_taken_as_plain_python_values():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the float16 comparison warned of an overflow
        for penalty, want in ((np.float16(1), 1.0), (np.float16(65504), 65504.0), (np.float32(2.5), 2.5),
                              (np.int64(5), 5.0), (np.longdouble(3), 3.0)):
            got = A.illegal_policy("penalize", penalty)[1]
            assert got == want and type(got) is float
    aec = mj_env.env()
    aec.illegal_penalty = np.float32(2.5)
    assert aec.illegal_penalty == 2.5 and type(aec.illegal_penalty) is float
    aec.illegal_penalty = np.int64(5)
    assert aec.illegal_penalty == 5 and type(aec.illegal_penalty) is int
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync")
    try:
        envs.set_attr("seat", np.int64(2))
        envs.set_attr("illegal_penalty", np.float32(2.5))
        assert envs.get_attr("seat") == (2, 2) and all(type(s) is int for s in envs.get_attr("seat"))
        assert envs.get_attr("illegal_penalty") == (2.5, 2.5)
        with pytest.raises(ValueError, match="seat must be 0-3"):
            envs.set_attr("seat", np.float32(1))
        assert envs.get_attr("seat") == (2, 2)
    finally:
        envs.close()
