"""README.md and benchmarks/README.md traced as docs/rules_trace.md traced the spec: statements a user relies on
that no other test held (tests/test_audit_docs.py runs the README's snippets and checks its commands' flags;
tests/test_audit_newcomer.py and the module tests hold most of the rest). Each test here failed under a
hand-made breakage of the statement it holds (reverted). Where a statement is about an outside library's
reaction to our envs (Gymnasium's vector wrappers, PettingZoo's and RLlib's checks), a release that changes it
fails the test, and the README must change with it."""
from __future__ import annotations

import dataclasses
import importlib.metadata
import re
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (the declared floor) has no tomllib; pytest requires tomli there
    import tomli as tomllib

import mj_env
from mj_env.vector import MahjongVectorEnv

ROOT = Path(__file__).resolve().parents[1]


def _readme(rel: str = "README.md") -> str:
    """The text with every run of whitespace made one space (a phrase may wrap across lines)."""
    return re.sub(r"\s+", " ", (ROOT / rel).read_text(encoding="utf-8"))


def _masked_random(mask, rng) -> np.ndarray:
    mask = np.asarray(mask, dtype=float)
    return (rng.random(mask.shape) * mask).argmax(axis=1)


# --------------------------------------------------------------------------- "The default run: ..."


def test_the_default_run_is_what_the_readme_says_it_is():
    """README, "The default run: the per-tile network (``--arch tiles``, 16 channels) on ``mj_obs_v2`` planes ...":
    every number of that paragraph (and of the run's name, reward and time cap) is a default of ``train.Args``."""
    pytest.importorskip("torch")  # the train extra's
    import train

    a = train.Args()
    text = _readme()
    said = {  # README phrase: does the default agree with it
        "(`--arch tiles`, 16 channels) on `mj_obs_v2` planes": (a.arch, a.channels, a.obs) == ("tiles", 16, "v2"),
        "(`--bc-steps 256`: four rule agents play 256 steps at 256 tables, 65k decisions, each rollout of 16k "
        "trained 6 epochs by cross-entropy on their choices and, at weight 0.1, the value on their returns)":
            (a.bc_steps, a.num_envs, a.bc_teacher, a.bc_epochs, a.bc_vf_coef) == (256, 256, "rule", 6, 0.1)
            and a.bc_steps * a.num_envs // 1000 == 65 and a.num_envs * a.num_steps // 1000 == 16,
        "(`--opponent-prob 1 --opponent-rule 0.75`:": (a.opponent_prob, a.opponent_rule) == (1.0, 0.75),
        "learning rate 3e-4, 8 minibatches x 4 epochs of 16k decisions, entropy 0.001)":
            (a.learning_rate, a.num_minibatches, a.update_epochs, a.ent_coef) == (3e-4, 8, 4, 0.001),
        "Quick evaluations (64 walls, after the first update and every 5)": (a.eval_hands, a.eval_every) == (64, 5),
        "with 400 walls x 2 seatings against random and against rule (evaluation seed 12345). Both also play the "
        "pretrained player": (a.final_eval_hands, a.eval_seed, a.eval_pretrained) == (400, 12345, True),
        "(`--exp-name`, default `selfplay_ppo`)": a.exp_name == "selfplay_ppo",
        "`points` (default, the settled points), `scaled` (points / 4,": (a.reward, a.reward_scale) == ("points", 4.0),
        "PPO until an update ends past 9.5 min)": a.max_minutes == 9.5,
        "`python train.py`, `--seed 2`": a.seed == 1,   # the table's default run: seed 1, and seed 2 by the flag
    }
    missing = [phrase for phrase in said if phrase not in text]
    assert not missing, f"the README no longer says {missing}: update this test with it"
    wrong = [phrase for phrase, holds in said.items() if not holds]
    assert not wrong, f"train.Args' defaults disagree with the README: {wrong}"
    assert dataclasses.asdict(train.parse_args([])) == dataclasses.asdict(a)
    # "...final.pt,rule --hands 400 --seed 12345 --batch 256 # the last: train.py's final evaluation against rule,
    # figure for figure (train.py prints this command)": for the default run, the command it prints
    printed = train.repeat_command(a, Path("runs") / "selfplay_ppo" / "checkpoints" / "final.pt")
    assert printed == ("python -m agents.arena --agents runs/selfplay_ppo/checkpoints/final.pt,rule --hands 400 "
                       "--seed 12345 --batch 256")
    assert printed + " # the last: train.py's final evaluation against rule, figure for figure" in text


# --------------------------------------------------------------------------- "Duplicate comparison"


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_a_seed_fixes_wall_i_for_any_number_of_hands(rules):
    """README: "A seed fixes the walls (wall i is the same for any ``--hands``); under hebei and quemen the
    dealers are drawn after the walls, so compare single walls only between runs of the same ``--hands``"."""
    from agents import RandomAgent
    from agents.arena import play_duplicate

    def walls(n):
        res = play_duplicate([RandomAgent(), RandomAgent()], n, seed=5, rules=rules, record_hands=True)
        return {rec["wall_index"]: (rec["wall"], rec["dealer"]) for rec in res.records}

    three, seven = walls(3), walls(7)
    assert [three[i][0] for i in range(3)] == [seven[i][0] for i in range(3)]
    assert len({tuple(seven[i][0]) for i in range(7)}) == 7
    if rules == "beijing":   # East deals every wall
        assert {three[i][1] for i in range(3)} == {seven[i][1] for i in range(7)} == {0}


# --------------------------------------------------------------------------- "Ecosystem": the one-table env


def test_the_one_table_env_takes_any_render_mode_as_sb3s_make_vec_env_asks():
    """README: the one-table env "takes any other ``render_mode``, since SB3's ``make_vec_env`` asks every env
    for ``"rgb_array"``: Gymnasium warns at ``make``, ``env.unwrapped.render()`` draws nothing and
    ``env.render()`` raises Gymnasium's assertion (the AEC env refuses an unknown mode)"."""
    with pytest.warns(UserWarning, match="render_mode"):
        env = gym.make("mj_env/Beijing-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.unwrapped.render() is None
    with pytest.raises(AssertionError):
        env.render()
    with pytest.raises(ValueError, match="render_mode"):
        mj_env.env(render_mode="rgb_array")
    sb3 = pytest.importorskip("stable_baselines3")
    with pytest.warns(UserWarning, match="rgb_array"):   # make_vec_env passes render_mode="rgb_array"
        venv = sb3.common.env_util.make_vec_env("mj_env/Beijing-v0", n_envs=2, seed=0)
    obs = venv.reset()
    venv.step(_masked_random(obs["action_mask"], np.random.default_rng(0)))
    venv.close()


def test_render_before_reset_through_the_wrappers_that_make_and_env_put_around_the_env():
    """README: ``render()`` before the first reset raises "call reset() first" from the env itself (held by
    tests/test_env_order.py), "or Gymnasium's ``ResetNeeded`` and PettingZoo's assertion from the
    order-enforcing wrappers that ``gym.make`` and ``mj_env.env()`` put around it"."""
    with pytest.raises(gym.error.ResetNeeded):
        gym.make("mj_env/Beijing-v0", render_mode="ansi").render()
    with pytest.raises(AssertionError, match="reset"):
        mj_env.env(render_mode="ansi").render()


def test_action_masks_through_gymnasiums_wrappers():
    """README: "through Gymnasium's wrappers call it as ``env.unwrapped.action_masks()``, or on the one-table
    env ``env.get_wrapper_attr("action_masks")()``"."""
    env = gym.make("mj_env/Beijing-v0")
    obs, _ = env.reset(seed=0)
    for masks in (env.unwrapped.action_masks(), env.get_wrapper_attr("action_masks")()):
        assert masks.dtype == bool and np.array_equal(masks, obs["action_mask"] != 0)


def test_sync_make_vec_raises_after_the_envs_before_the_refused_one_have_stepped():
    """README: in ``make_vec``'s ``"sync"`` mode "an action refused at env i raises after the envs before it have
    stepped (Gymnasium steps them one at a time)"; the batched form's check-everything-first is held by
    tests/test_single_agent.py."""
    from mj_env.actions import ActionError

    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync", illegal_action="raise",
                        opponents="random")
    obs, _ = envs.reset(seed=[0, 1])
    actions = _masked_random(obs["action_mask"], np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    before = [e.unwrapped.venv.engine.state.copy() for e in envs.envs]
    with pytest.raises(ActionError, match="illegal"):
        envs.step(actions)

    def same(a, b):
        return all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))

    assert not same(before[0], envs.envs[0].unwrapped.venv.engine.state)   # env 0 stepped
    assert same(before[1], envs.envs[1].unwrapped.venv.engine.state)       # env 1 refused its action


def test_numpy_to_torch_over_dict_info_to_list_fails_as_the_readme_says():
    """README: "``NumpyToTorch`` over ``DictInfoToList`` does not [work]: Gymnasium cannot convert the per-table
    ``numpy.bool`` of the ``win``, ``deal_in`` and ``draw`` infos; put ``NumpyToTorch`` on its own" (on its own it
    works: tests/test_single_agent.py)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")
    try:
        from gymnasium.wrappers.vector import DictInfoToList, NumpyToTorch
    except gym.error.DependencyNotInstalled as e:
        pytest.skip(f"Gymnasium's NumpyToTorch: {e}")
    envs = NumpyToTorch(DictInfoToList(gym.make_vec("mj_env/Beijing-v0", num_envs=4,
                                                    vectorization_mode="vector_entry_point")))
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    with pytest.raises(Exception, match="numpy.bool"):  # Gymnasium raises a bare Exception
        for _ in range(200):
            actions = _masked_random(obs["action_mask"].numpy(), rng)
            obs, *_ = envs.step(torch.as_tensor(actions))


def test_torchrls_gym_wrapper_still_fails_on_same_step_as_the_readme_says():
    """README: "TorchRL's ``GymWrapper`` still fails on ``SAME_STEP`` (``generator raised StopIteration``) ...
    Use ``ResetByMask`` over the default ``NEXT_STEP`` form" (which tests/test_wrappers.py runs). A TorchRL
    release that mends it fails this test: then the README's advice changes."""
    pytest.importorskip("torchrl")
    from gymnasium.vector import AutoresetMode
    from torchrl.envs import GymWrapper

    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=4, vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (the wrapper's constructor already steps the env, to read the infos' specs)
        with pytest.raises(RuntimeError, match="generator raised StopIteration"):
            GymWrapper(envs, categorical_action_encoding=True).rollout(300, break_when_any_done=False)


# --------------------------------------------------------------------------- "Ecosystem": self-play, multi-agent


def _play(env, steps=150, flat=False):
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    for _ in range(steps):
        obs, *_ = env.step(_masked_random(obs[:, :127] if flat else obs["action_mask"], rng))


def test_gymnasiums_vector_wrappers_on_the_self_play_env_fail_as_the_readme_says():
    """README, self-play: "the reward wrappers (``RecordEpisodeStatistics``, ``NormalizeReward``) take ``(N,)``
    rewards, so on these ``(N, 4)`` ones they fail with a broadcast error (``NormalizeReward`` at ``num_envs=4``
    runs under Gymnasium 1.1 and 1.2 ...; from 1.3 it fails at the first step with a ``TypeError`` ...); the
    observation wrappers (``FlattenObservation``, ``TransformObservation``, ``DtypeObservation``) assert
    ``NEXT_STEP`` and fail on ``SAME_STEP`` with a bare ``AssertionError`` (from Gymnasium 1.4 a ``ValueError``
    naming the mode; make it with ``autoreset_mode="NEXT_STEP"``)". The README said the first runs and the others
    raise AssertionError: so they did under the Gymnasium 1.2 of CI, not under the 1.4 that a fresh install took
    (the Python-versions audit). (``NumpyToTorch``: tests/test_audit_vector.py.)"""
    from gymnasium.wrappers.vector import (
        DtypeObservation,
        FlattenObservation,
        NormalizeReward,
        RecordEpisodeStatistics,
        TransformObservation,
    )

    for wrapper in (RecordEpisodeStatistics, NormalizeReward):
        with pytest.raises(ValueError, match="broadcast"):
            _play(wrapper(MahjongVectorEnv(8)))
    gymnasium = Version(importlib.metadata.version("gymnasium"))
    if gymnasium < Version("1.3"):
        _play(NormalizeReward(MahjongVectorEnv(4)))     # runs, reading seats as tables
    else:  # its running return is indexed by a (4, 4) mask of ended hands
        with pytest.raises(TypeError, match="boolean array indexing"):
            _play(NormalizeReward(MahjongVectorEnv(4)), steps=1)
    text = _readme()
    assert ("(`NormalizeReward` at `num_envs=4` runs under Gymnasium 1.1 and 1.2, and mixes up tables and seats "
            "without a word; from 1.3 it fails at the first step with a `TypeError`") in text
    assert "with a bare `AssertionError` (from Gymnasium 1.4 a `ValueError` naming the mode;" in text
    for make in (FlattenObservation, lambda e: TransformObservation(e, lambda o: o),
                 lambda e: DtypeObservation(e, np.float32)):
        with pytest.raises(AssertionError) if gymnasium < Version("1.4") else pytest.raises(ValueError,
                                                                                          match="SAME_STEP"):
            make(MahjongVectorEnv(8))
    _play(FlattenObservation(MahjongVectorEnv(8, autoreset_mode="NEXT_STEP")), flat=True)


def test_same_step_infos_of_the_self_play_env_hold_the_settlement_and_no_final_obs():
    """README, self-play: "``SAME_STEP`` infos hold no ``final_obs``: an ended hand has no seat to decide" (what it
    ended with is the ``settlement`` info, where ``_settlement`` marks the tables)."""
    env = MahjongVectorEnv(8, seed=0)
    obs, _ = env.reset(seed=0)
    rng, ended = np.random.default_rng(0), 0
    for _ in range(300):
        obs, _, term, _, infos = env.step(_masked_random(obs["action_mask"], rng))
        assert not {"final_obs", "_final_obs", "final_info", "_final_info"} & set(infos)
        assert np.array_equal(infos["_settlement"], term)
        ended += int(term.sum())
    assert ended >= 8


def test_the_aec_env_is_turn_based_and_only_the_turn_based_conversion_takes_it():
    """README: "It is turn-based (``is_parallelizable`` is False), so PettingZoo's ``aec_to_parallel`` refuses it;
    ``pettingzoo.utils.conversions.turn_based_aec_to_parallel`` gives a Parallel env (it passes
    ``parallel_api_test``)", and ``parallel_seed_test`` passes with ``illegal_action="penalize"``."""
    from pettingzoo.test import parallel_api_test, parallel_seed_test
    from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

    assert mj_env.env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError):
        aec_to_parallel(mj_env.env())
    parallel_api_test(turn_based_aec_to_parallel(mj_env.env()), num_cycles=100)
    parallel_seed_test(lambda: turn_based_aec_to_parallel(mj_env.env(illegal_action="penalize")))


def test_rllibs_environment_pre_check_needs_penalize_as_the_readme_says():
    """README: RLlib's environment pre-check steps actions sampled without the mask and "reports the raised
    ``ActionError`` as 'does not abide to the new gymnasium-style API'"; with ``illegal_action="penalize"`` it
    passes."""
    pytest.importorskip("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from mj_env.wrappers import FlatObservations

    # the pre-check samples one action from each action space, unseeded, and about one sample in twenty is a legal
    # discard (seeds 23 and 38 of 0-39 are): the spaces are seeded so that the sampled action is an illegal one
    raising = mj_env.env()
    for agent in raising.possible_agents:
        raising.action_space(agent).seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="does not abide to the new gymnasium-style API"):
            check_multiagent_environments(PettingZooEnv(FlatObservations(raising)))
        check_multiagent_environments(PettingZooEnv(FlatObservations(mj_env.env(illegal_action="penalize"))))


# --------------------------------------------------------------------------- "The pretrained players"


def test_the_shipped_players_are_as_the_readme_describes_them():
    """README: "files in ``agents/data/``, about 150 KB each"; "``pretrained`` plays as ``PLAYERS`` says (hebei
    greedy, the others sampling)"; its table's "made by" column gives each player's command, the one
    ``PLAYERS`` records (tests/test_pretrained.py holds the agent to ``PLAYERS``, not ``PLAYERS`` to the README)."""
    from agents.pretrained import PLAYERS

    text = _readme()
    assert "files in `agents/data/`, about 150 KB each" in text and "(hebei greedy, the others sampling)" in text
    assert {rules: card["greedy"] for rules, card in PLAYERS.items()} == {"beijing": False, "hebei": True,
                                                                         "quemen": False}
    for rules, card in PLAYERS.items():
        assert 100_000 <= (ROOT / "agents" / "data" / card["file"]).stat().st_size <= 200_000, rules
        assert f"| {rules} | `{card['command']}` (" in text, rules


# --------------------------------------------------------------------------- Quick start, Speed, Rule sets


_BARE_INSTALL = """
import io, json, sys
for name in ("scipy", "tqdm", "torch", "matplotlib", "tensorboard", "tyro"):
    sys.modules[name] = None       # none of the extras: what `pip install .` alone brings
import gymnasium as gym
import numpy as np
import mj_env
import agents
from mj_env import records, score
from mj_env.vector import MahjongVectorEnv

rng = np.random.default_rng(0)
env = mj_env.env()
env.reset(seed=0)
for agent in env.agent_iter():
    obs, _, term, trunc, _ = env.last()
    env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
path = sys.argv[1]
with open(path, "w", encoding="utf-8") as f:
    f.write(json.dumps(env.unwrapped.hand_record(), ensure_ascii=False) + "\\n")
assert records.main([path]) == 0
venv = MahjongVectorEnv(4, seed=0)
obs, _ = venv.reset(seed=0)
players = [agents.make_agent(name) for name in ("random", "rule", "efficient")]
for t in range(30):
    obs, *_ = venv.step(players[t % 3].act(obs, rng))
one = gym.make("mj_env/Hebei-v0", opponents="efficient")
obs, _ = one.reset(seed=0)
one.step(int(np.flatnonzero(obs["action_mask"])[0]))
line = sys.argv[2].encode()
assert score.main(io.BytesIO(line + b"\\n"), sys.stdout) == 0
"""


def test_pip_install_alone_runs_what_the_quick_start_says_it_runs(tmp_path):
    """README, Quick start: ``pip install .`` "alone ... runs the environments, the NumPy agents, ``mj_env.score``
    and ``mj_env.records``; the arena and the search want the ``train`` extra's scipy ..." (it said the install was
    "enough for the environments, the agents, the arena and the ``python -m`` tools below": the arena refuses
    without scipy, tests/test_audit_docs.py). Played with every extra's modules made unimportable."""
    import subprocess
    import sys

    text = _readme()
    assert ("alone it runs the environments, the NumPy agents, `mj_env.score` and `mj_env.records`; the arena and "
            "the search want the `train` extra's scipy") in text
    line = re.search(r"echo '(\{.*?\})' \| python -m mj_env\.score", text).group(1)
    run = subprocess.run([sys.executable, "-c", _BARE_INSTALL, str(tmp_path / "hand.jsonl"), line], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert "1 of 1 record(s) replay to their stored settlements" in run.stdout and '"legal": true' in run.stdout


def test_the_extras_and_dependencies_are_those_the_quick_start_lists():
    """README, Quick start: the core needs "numpy, gymnasium>=1.1 and pettingzoo"; ``train`` is "(torch, tqdm,
    scipy, tensorboard, tyro ...)" with ``torch>=2.1,<3``; ``plot`` matplotlib; ``sb3`` Stable-Baselines3 and
    sb3-contrib; ``peers`` RLCard and RiichiEnv (benchmarks/README.md: RLCard 1.2, RiichiEnv 0.4); ``dev`` "tests,
    with ``train`` and ``plot``"; ``ray[rllib]`` "at its floor 2.52"."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]

    def names(reqs):
        return {re.match(r"[A-Za-z0-9_.\-]+(\[[^\]]*\])?", r).group(0).lower() for r in reqs}

    text, bench = _readme(), _readme("benchmarks/README.md")
    assert names(project["dependencies"]) == {"numpy", "gymnasium", "pettingzoo"}
    assert "gymnasium>=1.1" in project["dependencies"] and "numpy, gymnasium>=1.1 and pettingzoo" in text
    assert names(extras["train"]) == {"torch", "tqdm", "scipy", "tensorboard", "tyro"}
    assert "`train` (torch, tqdm, scipy, tensorboard, tyro;" in text
    assert "torch>=2.1,<3" in extras["train"] and "accepts `torch>=2.1,<3`" in text
    assert names(extras["plot"]) == {"matplotlib"} and "`plot` (matplotlib:" in text
    assert names(extras["sb3"]) == {"stable-baselines3", "sb3-contrib"}
    assert "`sb3` (Stable-Baselines3 and sb3-contrib" in text
    assert set(extras["peers"]) == {"rlcard>=1.2", "riichienv>=0.4"} and "(RLCard 1.2, RiichiEnv 0.4)" in bench
    assert "mj-env[train,plot]" in extras["dev"] and "`dev` (tests, with `train` and `plot`)" in text
    assert "ray[rllib]>=2.52" in extras["examples"] and "at its floor 2.52" in text


def test_the_state_of_4096_tables_is_the_size_the_speed_section_gives():
    """README, Speed: "the whole state of 4,096 tables in 4.02 MiB" (benchmarks/README.md: **engine state for
    4096 tables** is ``Engine.state.nbytes()``); a new state field changes it, and the sentence with it."""
    from mj_env.engine import Engine

    assert "the whole state of 4,096 tables in 4.02 MiB" in _readme()
    eng = Engine("beijing", num_tables=4096, seed=0)
    eng.reset()
    assert f"{eng.state.nbytes() / 2**20:.2f}" == "4.02"


def test_the_readme_counts_the_rows_of_the_rules_trace():
    """README, Rule sets: docs/rules_trace.md "lists each rule of the spec (230 rows, one no code path reaches),
    each clause of docs/INTERFACES.md (58 rows) and each reading of docs/game_flow.md (37 rows)"."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in (ROOT / "docs" / "rules_trace.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line
        elif current and line.startswith("| ") and not line.startswith(("| #", "| ---")):
            sections.setdefault(current, []).append(line)
    spec = [r for s, rows in sections.items() if s.startswith("## Sections") for r in rows]
    last = [r.rstrip(" |").rsplit(" | ", 1)[-1] for r in spec]
    interfaces = next(rows for s, rows in sections.items() if "docs/INTERFACES.md" in s)
    readings = next(rows for s, rows in sections.items() if "game_flow.md" in s)
    said = (f"lists each rule of the spec ({len(spec)} rows, one no code path reaches), each clause of "
            f"docs/INTERFACES.md ({len(interfaces)} rows) and each reading of docs/game_flow.md ({len(readings)} rows)")
    assert said in _readme()
    assert sum(c.startswith("unreachable") for c in last) == 1


# --------------------------------------------------------------------------- benchmarks/README.md


def _readme_commands() -> list[tuple[str, str, list[str]]]:
    """(where, program, argv) of every ``python -m agents.X`` / ``mj_env.records`` / ``benchmarks/X.py`` command
    of the two READMEs, the placeholders S and R given a value (train.py's: tests/test_audit_docs.py)."""
    import shlex

    from test_audit_docs import documented_commands

    found = []
    for where, program, rest in documented_commands():
        if where not in ("README.md", "benchmarks/README.md") or rest.count('"') % 2:
            continue  # a quoted value cut at a ")" by the extraction (agents.curve's --labels)
        if program.startswith(("-m agents.", "-m mj_env.records", "benchmarks/")):
            argv = ["1" if a == "S" else "beijing" if a == "R" else a for a in shlex.split(rest)]
            found.append((where, program, argv))
    for span in re.findall(r"`python -m (agents\.curve [^`]*)`", (ROOT / "README.md").read_text(encoding="utf-8")):
        found.append(("README.md", "-m agents.curve", shlex.split(span)[1:]))   # its --labels "... (20a2946),..."
    return found


def test_every_command_of_the_readmes_parses(monkeypatch):
    """Every arena, search, records, curve and benchmark command the READMEs show is accepted by its program's
    parser as written (tests/test_audit_docs.py checks only that each flag exists, and train.py's commands)."""
    pytest.importorskip("matplotlib")  # the plot extra: throughput.py's parse_args refuses --plot without it
    import argparse
    import importlib

    class Parsed(Exception):
        pass

    real = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        raise Parsed(real(self, args, namespace))

    monkeypatch.chdir(ROOT)
    commands = _readme_commands()
    programs = {program for _, program, _ in commands}
    assert {"-m agents.arena", "-m agents.search", "-m agents.curve", "-m mj_env.records", "benchmarks/throughput.py",
            "benchmarks/profile_step.py", "benchmarks/search.py", "benchmarks/fast_paths.py"} <= programs
    refused = []
    for where, program, argv in commands:
        module = importlib.import_module(program[3:] if program.startswith("-m ") else Path(program).stem)
        try:
            if hasattr(module, "parse_args"):   # throughput.py, benchmarks/search.py: with their checks
                module.parse_args(argv)
            else:
                with monkeypatch.context() as m:
                    m.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
                    with pytest.raises(Parsed):
                        module.main(argv)
        except SystemExit:
            refused.append(f"{where}: python {program} {' '.join(argv)}")
    assert not refused, refused


def test_the_flags_of_the_ecosystem_table_are_its_examples_flags():
    """README, the Ecosystem table: each library's row shows its example's flags (``--one-table-envs``,
    ``--random-learner``, ``--single-agent --iterations 5 --num-env-runners 1``, ``--tables 1`` ...), most in
    table cells that the command extraction of tests/test_audit_docs.py does not read: each is a flag of that
    example."""
    from test_audit_docs import argparse_flags

    rows = {"| Stable-Baselines3": "sb3_maskable_ppo.py", "| Ray RLlib": "rllib_ppo.py",
            "| Tianshou": "tianshou_pettingzoo.py", "| TorchRL": "torchrl_ppo.py"}
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    bad, seen = [], 0
    for start, example in rows.items():
        [row] = [line for line in lines if line.startswith(start)]
        flags = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", row))
        assert "--smoke" in flags, start
        seen += len(flags)
        bad += [f"{example} {flag}" for flag in sorted(flags - argparse_flags(ROOT / "examples" / example))]
    assert seen >= 15 and not bad, bad


def test_the_benchmark_defaults_are_those_benchmarks_readme_names(monkeypatch):
    """benchmarks/README.md: throughput.py "``--seconds`` (... default 5), ``--batch-sizes`` (default
    ``1,64,1024,4096``) ... ``--impls`` (... all but ``single_rule`` and ``vector_records`` by default)", "``--timeout S`` (...; default
    10 x (seconds + warm-up) + 120)"; profile_step.py "# vector env, beijing, batch 4096, 200 steps"; search.py
    "# beijing, 3 s per row, batches 256 and 1024" and the chain's "(``mcmc_steps``, default 500)";
    fast_paths.py's variants "``all fast paths``, ... ``claims off``, ``observe off``, ``hand off``, ``step off``,
    ``draw off``, ``masks off`` and ``all off``". (The warm-up's ``min(1, seconds)``: tests/test_benchmarks.py.)"""
    import argparse
    import inspect

    import fast_paths
    import profile_step
    import search
    import throughput

    from mj_env.determinize import determinize, redeal

    text = _readme("benchmarks/README.md")
    t = throughput.parse_args([])
    assert (t.seconds, t.batch_list, t.rules) == (5.0, [1, 64, 1024, 4096], "beijing")
    assert t.impls.split(",") == [i for i in throughput.ALL_IMPLS if i not in ("single_rule", "vector_records")]
    listed = "vector,vector_records,engine,aec,single_rule,rlcard,riichienv,riichienv_encode"
    assert f"`--impls` (a subset of `{listed}`; all but `single_rule` and `vector_records` by default)" in text
    assert sorted(throughput.ALL_IMPLS) == sorted(listed.split(","))
    assert "default 10 x (seconds + warm-up) + 120" in text
    assert "args.timeout or 10 * (args.seconds + args.warmup) + 120" in inspect.getsource(throughput.main)

    class Parsed(Exception):
        pass

    def keep(self, argv=None, namespace=None):
        raise Parsed(argparse.ArgumentParser.parse_known_args(self, argv, namespace)[0])

    with monkeypatch.context() as m:
        m.setattr(argparse.ArgumentParser, "parse_args", keep)
        with pytest.raises(Parsed) as got:
            profile_step.main([])
    p = got.value.args[0]
    assert (p.env, p.rules, p.batch, p.steps) == ("vector", "beijing", 4096, 200)
    assert "# vector env, beijing, batch 4096, 200 steps" in text
    s = search.parse_args([])
    assert (s.rules, s.seconds, s.batch_sizes) == ("beijing", 3.0, "256,1024")
    assert "# beijing, 3 s per row, batches 256 and 1024" in text
    for f in (determinize, redeal):
        assert inspect.signature(f).parameters["mcmc_steps"].default == 500
    assert "(`mcmc_steps`, default 500)" in text
    assert list(fast_paths.VARIANTS) == ["all fast paths", "claims off", "observe off", "hand off", "step off",
                                         "draw off", "masks off", "all off"]
    assert ("`all fast paths`, one path routed to its batched form (`claims off`, `observe off`, `hand off`, "
            "`step off`, `draw off`, `masks off`) and `all off`") in text
