"""The trainer examples' own logic, checked without (or with a very short) training: their argument checks at
each bound, how they build, wrap and seed the env, what they hand the library, what they evaluate and print.
The libraries are stubbed where the example only passes values on; tests/test_examples.py runs each in --smoke."""
from __future__ import annotations

import argparse

import numpy as np
import pytest
from example_modules import load_example


class Reached(Exception):
    """Raised by a stub where the example gets past its argument checks."""


def refused(module, argv, capsys) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        module.main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == "" and "Traceback" not in err
    return err.strip().splitlines()[-1]


# --- examples/sb3_maskable_ppo.py -------------------------------------------------------------------------

@pytest.fixture
def sb3(monkeypatch):
    """The example with SB3 stubbed: returns (module, calls); main runs in milliseconds."""
    pytest.importorskip("sb3_contrib")
    module = load_example("sb3_maskable_ppo")
    calls = {}

    class Model:
        def __init__(self, policy, venv, **kw):
            calls["model"] = (policy, venv, kw)
            self.num_timesteps = 0

        def learn(self, total_timesteps):
            calls["learn"] = total_timesteps
            rollout = calls["model"][2]["n_steps"] * venv_size(calls["model"][1])
            self.num_timesteps = -(-total_timesteps // rollout) * rollout  # SB3: whole rollouts

    def venv_size(venv):
        return venv[1][0] if venv[0] == "monitor" else venv[1]["n_envs"]

    def evaluate(model, rules, opponents, hands, seed, obs="v1"):
        calls["evaluate"] = (rules, opponents, hands, seed, obs)
        return np.full(hands, 1.25)

    monkeypatch.setattr(module, "MaskablePPO", Model)
    monkeypatch.setattr(module, "MahjongSB3VecEnv", lambda *a, **kw: (a, kw))
    monkeypatch.setattr(module, "VecMonitor", lambda venv: ("monitor", venv[0], venv[1]))
    monkeypatch.setattr(module, "make_vec_env", lambda env_id, **kw: ("dummy", {"env_id": env_id, **kw}))
    monkeypatch.setattr(module, "evaluate", evaluate)
    return module, calls


def test_sb3_builds_the_batched_vecenv_and_evaluates_with_the_flags_given(sb3, capsys):
    module, calls = sb3
    score = module.main(["--rules", "quemen", "--opponents", "random", "--obs", "v2", "--n-envs", "16",
                         "--timesteps", "5000", "--eval-hands", "7", "--seed", "9"])
    assert score == 1.25
    policy, venv, kw = calls["model"]
    assert policy == "MultiInputPolicy" and venv == ("monitor", (16,), {"rules": "quemen", "opponents": "random",
                                                                       "obs": "v2"})
    assert kw["n_steps"] == 256 and kw["batch_size"] == 256 and kw["seed"] == 9  # 4096 // 16 decisions per table
    assert calls["learn"] == 5000
    assert calls["evaluate"] == ("quemen", "random", 7, 10_000, "v2")  # fixed evaluation tables, whatever --seed
    out = capsys.readouterr().out
    assert out.startswith("trained 8192 steps at ")  # 5000 rounded up to whole rollouts of 16 x 256
    assert "(16 tables in one batched VecEnv); +1.250 [+1.250, +1.250] points/hand over 7 hands vs random" in out


def test_sb3_one_table_envs_make_the_rules_env_with_opponents_and_obs(sb3, capsys):
    module, calls = sb3
    module.main(["--one-table-envs", "--rules", "hebei", "--opponents", "efficient", "--obs", "v2",
                 "--n-envs", "4", "--n-steps", "16", "--seed", "3"])
    _, venv, kw = calls["model"]
    assert venv == ("dummy", {"env_id": "mj_env/Hebei-v0", "n_envs": 4, "seed": 3,
                              "env_kwargs": {"opponents": "efficient", "obs": "v2"}})
    assert kw["n_steps"] == 16
    assert "(4 one-table envs)" in capsys.readouterr().out


def test_sb3_smoke_replaces_the_size_flags_and_n_steps_has_a_floor_of_8(sb3, capsys):
    module, calls = sb3
    module.main(["--smoke", "--n-envs", "64", "--n-steps", "1000", "--timesteps", "99999", "--eval-hands", "50"])
    assert calls["model"][1][1] == (2,) and calls["model"][2]["n_steps"] == 128
    assert calls["model"][2]["batch_size"] == 64 and calls["learn"] == 256 and calls["evaluate"][2] == 2
    module.main(["--n-envs", "1024"])  # 4096 // 1024 = 4 decisions per table: at least 8
    assert calls["model"][2]["n_steps"] == 8 and calls["model"][2]["batch_size"] == 256


def test_sb3_accepts_each_bound_and_refuses_just_past_it(sb3, capsys):
    from mj_env.engine import MAX_TABLES

    module, calls = sb3
    for argv in (["--seed", str(2**32 - 1)], ["--seed", "0"], ["--n-envs", str(MAX_TABLES), "--n-steps", "8"],
                 ["--n-envs", "1", "--n-steps", "2"], ["--n-envs", "2", "--n-steps", "128"],
                 ["--timesteps", "1"], ["--eval-hands", "1"]):
        calls.clear()
        module.main(argv)
        assert "evaluate" in calls, argv
    capsys.readouterr()
    assert "--seed" in refused(module, ["--seed", str(2**32)], capsys)
    assert "--n-envs" in refused(module, ["--n-envs", str(MAX_TABLES + 1)], capsys)
    assert "--eval-hands" in refused(module, ["--eval-hands", str(10**6 + 1)], capsys)
    assert "--n-steps" in refused(module, ["--n-steps", str(10**6 + 1)], capsys)
    # 3 x 3 = 9 decisions: minibatches of 256 leave one of 9 (9 % 9 == 0): accepted; 257 leaves one over
    calls.clear()
    module.main(["--n-envs", "3", "--n-steps", "3"])
    assert "model" in calls
    assert "--n-envs x --n-steps = 1 x 257 = 257" in refused(module, ["--n-envs", "1", "--n-steps", "257"], capsys)
    assert "model" in calls


def test_sb3_evaluate_scores_the_first_hand_at_each_table_with_sampled_masked_actions():
    """evaluate: one hand at each table (later hands at a table that ended early are not counted), actions
    sampled (deterministic=False) with the env's masks, on tables dealt from ``seed``."""
    pytest.importorskip("sb3_contrib")
    from gymnasium.vector import AutoresetMode

    from mj_env.single_agent import MahjongSingleAgentVectorEnv

    module = load_example("sb3_maskable_ppo")

    class RandomLegal:
        """A legal action drawn with its own generator (the same draws for the example and the reference)."""

        def __init__(self):
            self.rng = np.random.default_rng(0)

        def predict(self, obs, action_masks, deterministic):
            assert deterministic is False
            return pick(self.rng, action_masks), None

    def pick(rng, masks):
        return (rng.random(masks.shape) * masks).argmax(axis=1)

    score = module.evaluate(RandomLegal(), "beijing", "rule", 8, seed=5)
    env = MahjongSingleAgentVectorEnv(8, rules="beijing", opponents="rule", seed=5,
                                      autoreset_mode=AutoresetMode.NEXT_STEP)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    first, ended, later = np.zeros(8), np.zeros(8, dtype=bool), 0.0
    while not ended.all():
        _, reward, term, trunc, _ = env.step(pick(rng, env.action_masks()))
        first += np.where(ended, 0.0, reward)
        later += float(np.abs(np.where(ended, reward, 0.0)).sum())
        ended |= term | trunc
    assert later > 0  # some table played on past its first hand while the others finished
    assert score == pytest.approx(first)        # each table's first hand, in table order


# --- examples/torchrl_ppo.py ------------------------------------------------------------------------------

def test_torchrl_make_env_plays_the_rules_and_opponents_asked_seeded():
    pytest.importorskip("torchrl")
    from mj_env.baselines import RandomAgent

    module = load_example("torchrl_ppo")
    env = module.make_env("quemen", "random", 3, 7)
    inner = env._env.unwrapped
    assert tuple(env.batch_size) == (3,) and inner.rules.name == "quemen"
    assert all(isinstance(a, RandomAgent) for a in inner._opponents)
    first = env.reset()["observation"]
    assert (module.make_env("quemen", "random", 3, 7).reset()["observation"] == first).all()
    assert not (module.make_env("quemen", "random", 3, 8).reset()["observation"] == first).all()


def test_torchrl_logits_take_the_int8_planes_and_hand_masked_categorical_a_bool_mask():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from mj_env.observation import N_PLANES
    from mj_env.tiles import N_KINDS

    module = load_example("torchrl_ppo")
    obs = torch.ones((2, N_PLANES, N_KINDS), dtype=torch.uint8)
    mask = torch.tensor([[1, 0, 1], [0, 0, 1]], dtype=torch.int8)
    logits, out_mask = module.Logits(3, 8)(obs, mask)
    assert logits.shape == (2, 3) and logits.dtype == torch.float32
    assert out_mask.dtype == torch.bool and out_mask.tolist() == [[True, False, True], [False, False, True]]
    assert module.Value(8)(obs).shape == (2, 1)


def test_torchrl_mean_and_error_of_none_one_and_several_hands():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    module = load_example("torchrl_ppo")
    assert module.mean_and_error(torch.tensor([])) == "no hand ended"
    assert module.mean_and_error(torch.tensor([3.0])) == "+3.000 (1 hand)"
    assert module.mean_and_error(torch.tensor([1.0, -3.0])) == "-1.000 ± 2.000"  # std 2.83 / sqrt(2)


@pytest.fixture
def torchrl_stopped(monkeypatch):
    """The example stopped where it builds its env: returns (module, the make_env calls)."""
    pytest.importorskip("torchrl")
    module = load_example("torchrl_ppo")
    calls = []

    def make_env(*args):
        calls.append(args)
        raise Reached

    monkeypatch.setattr(module, "make_env", make_env)
    return module, calls


def test_torchrl_accepts_each_bound_and_refuses_just_past_it(torchrl_stopped, capsys):
    from mj_env.engine import MAX_TABLES

    module, calls = torchrl_stopped
    for argv in (["--tables", str(MAX_TABLES)], ["--lr", "10"], ["--lr", "1e-9"], ["--seed", str(2**32 - 1)],
                 ["--minibatch", str(10**6)], ["--epochs", "1000"], ["--frames", "2", "--tables", "1"],
                 ["--frames", "1", "--tables", "2"]):
        with pytest.raises(Reached):
            module.main(argv)
    for argv, flag in ((["--tables", str(MAX_TABLES + 1)], "--tables"), (["--lr", "0"], "--lr"),
                       (["--lr", "10.5"], "--lr"), (["--seed", str(2**32)], "--seed"),
                       (["--minibatch", str(10**6 + 1)], "--minibatch"), (["--epochs", "1001"], "--epochs"),
                       (["--iterations", "0"], "--iterations")):
        assert flag in refused(module, argv, capsys)
    calls.clear()
    with pytest.raises(Reached):
        module.main(["--rules", "hebei", "--opponents", "efficient", "--tables", "5", "--seed", "11"])
    assert calls == [("hebei", "efficient", 5, 11)]


def torchrl_run(module, argv, capsys, monkeypatch) -> tuple[str, int]:
    """(what main printed, the optimizer steps it took)."""
    import torch

    steps = []

    class Adam(torch.optim.Adam):
        def step(self, *a, **kw):
            steps.append(1)
            return super().step(*a, **kw)

    monkeypatch.setattr(torch.optim, "Adam", Adam)
    capsys.readouterr()
    module.main(argv)
    out = capsys.readouterr().out  # less TorchRL's own log lines (there when its logger took this stdout)
    return "".join(line for line in out.splitlines(keepends=True) if "[torchrl]" not in line), len(steps)


def test_torchrl_rounds_frames_to_whole_table_steps_and_seeds_torch(capsys, monkeypatch):
    """Fewer --frames than --tables: one decision at each table (8), and a --minibatch over the batch is cut
    to it (one step per epoch); the same --seed, the same run."""
    pytest.importorskip("torchrl")
    module = load_example("torchrl_ppo")
    argv = ["--tables", "8", "--frames", "4", "--iterations", "1", "--epochs", "3", "--hidden", "8",
            "--minibatch", "1000"]
    out, steps = torchrl_run(module, argv, capsys, monkeypatch)
    assert out.startswith("iter 1: 8 decisions, ") and "iter 2" not in out and steps == 3
    again, _ = torchrl_run(module, argv, capsys, monkeypatch)
    assert again.splitlines()[0] == out.splitlines()[0]  # the loss and entropy too


def test_torchrl_counts_the_hands_that_ended_and_compares_the_first_and_last_quarters(capsys, monkeypatch):
    pytest.importorskip("torchrl")
    module = load_example("torchrl_ppo")
    out, steps = torchrl_run(module, ["--tables", "8", "--frames", "64", "--iterations", "4", "--epochs", "2",
                                      "--hidden", "8", "--minibatch", "16"], capsys, monkeypatch)
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:4]] == ["iter 1", "iter 2", "iter 3", "iter 4"]
    assert steps == 4 * 2 * (64 // 16)
    hands = [int(line.split(", ")[1].split()[0]) for line in lines[:4]]
    assert 0 < sum(hands) < 4 * 8 * 64 // 20  # rewards where hands ended, not every decision's
    summary = lines[-1]
    assert summary.startswith("points/hand vs rule: first 1 iterations ")
    last = lines[3].split(", ")[2]  # iteration 4's "+m ± se points/hand vs rule" (or no hand ended)
    if hands[3] != 1:  # (one hand: "+p points" there, "+p.000 (1 hand)" here)
        assert summary.endswith(f"last 1 {last.removesuffix(' points/hand vs rule').removesuffix(' vs rule')}")


def test_torchrl_smoke_replaces_the_minibatch_given(capsys, monkeypatch):
    pytest.importorskip("torchrl")
    module = load_example("torchrl_ppo")
    out, steps = torchrl_run(module, ["--smoke", "--minibatch", "7", "--epochs", "5"], capsys, monkeypatch)
    assert out.startswith("iter 1: 256 decisions") and steps == 2  # 256 decisions in minibatches of 128, 1 epoch


# --- examples/tianshou_pettingzoo.py ----------------------------------------------------------------------

def test_tianshou_make_env_wraps_the_rules_env_in_numeric_infos():
    """Tianshou's buffer stacks the infos: the settlement objects must be numbers (NumericInfos)."""
    pytest.importorskip("tianshou")
    from mj_env.wrappers import NumericInfos

    env = load_example("tianshou_pettingzoo").make_env("quemen")
    assert isinstance(env.env, NumericInfos) and env.env.unwrapped.rules.name == "quemen"


def test_tianshou_accepts_each_bound_and_refuses_just_past_it(monkeypatch, capsys):
    pytest.importorskip("tianshou")
    module = load_example("tianshou_pettingzoo")
    rules = []
    monkeypatch.setattr(module, "make_env", lambda r: rules.append(r) or (_ for _ in ()).throw(Reached))
    for argv in (["--envs", "1024"], ["--hidden", "4096"], ["--lr", "10"], ["--seed", str(2**32 - 1)],
                 ["--n-step", "10000"], ["--batch-size", "65536"], ["--rules", "hebei"]):
        with pytest.raises(Reached):
            module.main(argv)
    assert rules[-1] == "hebei"
    for argv, flag in ((["--envs", "1025"], "--envs"), (["--hidden", "4097"], "--hidden"), (["--lr", "0"], "--lr"),
                       (["--lr", "inf"], "--lr"), (["--seed", str(2**32)], "--seed"), (["--epochs", "0"], "--epochs"),
                       (["--epoch-steps", "0"], "--epoch-steps"), (["--n-step", "0"], "--n-step")):
        assert flag in refused(module, argv, capsys)


@pytest.fixture
def tianshou(monkeypatch):
    """The example with its pieces recorded; ``made["epochs"]`` (stats to return, one list of the learner's test
    returns and its loss per epoch) stands in for training, else it stops when the trainer is made."""
    pytest.importorskip("tianshou")
    from types import SimpleNamespace

    module = load_example("tianshou_pettingzoo")
    made = {"seeds": [], "collectors": []}

    class Policy(module.DiscreteQLearningPolicy):
        def __init__(self, **kw):
            super().__init__(**kw)
            made["policy"] = self

    class DQN(module.DQN):
        def __init__(self, **kw):
            super().__init__(**kw)
            made["dqn"] = kw

    class Trainer:
        _epoch = 0

        def reset(self):
            pass

        def execute_epoch(self):
            returns, loss = made["epochs"][self._epoch]
            self._epoch += 1
            test = SimpleNamespace(returns=np.array(returns), n_collected_episodes=len(returns),
                                   returns_stat=SimpleNamespace(mean=np.mean(returns), std=np.std(returns)))
            training = None if loss is None else SimpleNamespace(get_loss_stats_dict=lambda: loss)
            return SimpleNamespace(epoch=self._epoch, test_collect_stat=test, training_stat=training,
                                   info_stat=SimpleNamespace(train_step=100 * self._epoch))

    class Algorithm(module.MultiAgentOffPolicyAlgorithm):
        def __init__(self, **kw):
            super().__init__(**kw)
            made["algorithm"] = self

        def create_trainer(self, params):
            made["params"] = params
            if "epochs" not in made:
                raise Reached
            return Trainer()

    class Venv(module.DummyVectorEnv):
        def seed(self, seed=None):
            made["seeds"].append(seed)
            return super().seed(seed)

    class Collector(module.Collector):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made["collectors"].append(self)

    for name, stub in (("DiscreteQLearningPolicy", Policy), ("DQN", DQN), ("MultiAgentOffPolicyAlgorithm", Algorithm),
                       ("DummyVectorEnv", Venv), ("Collector", Collector),
                       ("OffPolicyTrainerParams", lambda **kw: SimpleNamespace(**kw))):
        monkeypatch.setattr(module, name, stub)
    return module, made


TINY = ["--envs", "2", "--epochs", "3", "--epoch-steps", "40", "--hidden", "8"]


def test_tianshou_puts_a_greedy_tested_dqn_at_player_0_and_random_players_elsewhere(tianshou, capsys):
    module, made = tianshou
    with pytest.raises(Reached):
        module.main([*TINY, "--seed", "5", "--n-step", "7", "--test-hands", "9", "--batch-size", "16"])
    algorithm, policy, params = made["algorithm"], made["policy"], made["params"]
    assert algorithm.get_algorithm("player_0").policy is policy and policy.eps_inference == 0.0
    for seat in ("player_1", "player_2", "player_3"):
        assert isinstance(algorithm.get_algorithm(seat), module.MARLRandomDiscreteMaskedOffPolicyAlgorithm)
    assert made["dqn"]["n_step_return_horizon"] == 7 and made["dqn"]["gamma"] == 1.0
    assert made["seeds"] == [5, 10_005]  # the training tables, then the test tables
    assert (params.test_step_num_episodes, params.batch_size, params.max_epochs, params.epoch_num_steps) == (9, 16, 3, 40)
    assert params.multi_agent_return_reduction(np.arange(8).reshape(2, 4)).tolist() == [0, 4]  # the learner's column
    for step, eps in ((0, 1.0), (36, 0.525), (72, 0.05), (120, 0.05)):  # 1.0 to 0.05 over 60% of 3 x 40 steps
        params.training_fn(1, step)
        assert policy.eps_training == pytest.approx(eps)
    assert capsys.readouterr().out.startswith("warm-up: 40 masked random steps at ")  # no more than an epoch


def test_tianshou_seeds_the_masked_random_warm_up(tianshou):
    module, made = tianshou
    acts = []
    for _ in range(2):
        made["collectors"].clear()
        with pytest.raises(Reached):
            module.main([*TINY, "--seed", "3"])
        buffer = made["collectors"][0].buffer
        acts.append(np.asarray(buffer.act[:len(buffer)]).copy())
    assert len(acts[0]) == 40 and (acts[0] == acts[1]).all()


def test_tianshou_smoke_replaces_the_test_hands_given(tianshou):
    module, made = tianshou
    with pytest.raises(Reached):
        module.main(["--smoke", "--test-hands", "50", "--envs", "9"])
    assert made["params"].test_step_num_episodes == 2 and made["params"].max_epochs == 1
    assert len(made["seeds"]) == 2 and made["collectors"][0].env.env_num == 2


def test_tianshou_prints_each_epoch_and_the_later_half_of_the_tests(tianshou, capsys):
    module, made = tianshou
    made["epochs"] = [([1.0, 1.0], {"player_0/loss": 0.25}), ([2.0, 2.0], None), ([4.0, 6.0], {"player_1/loss": 1.0})]
    stats = module.main(TINY)
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("epoch 1: 100 steps, loss 0.250, eps ") and "+1.000 ± 0.000 points/hand over 2 hands" in out[1]
    assert out[2].startswith("epoch 2: 200 steps, loss n/a (none this epoch)")
    assert out[3].startswith("epoch 3: 300 steps, loss n/a (none this epoch)")  # no loss of player_0's
    assert out[4].startswith("trained on 300 decisions in ")
    # the last 2 of 3 epochs: 2, 2, 4, 6 (mean 3.5, sample std 1.915, over sqrt(4))
    assert out[5].startswith("greedy learner over the last 2 epochs' tests: +3.500 ± 0.957 points/hand over 4 hands")
    assert stats.epoch == 3
    made["epochs"] = made["epochs"][:2]
    module.main([*TINY[:2], "--epochs", "2", *TINY[4:]])
    assert "over the last 1 epochs' tests: +2.000 ± 0.000 points/hand over 2 hands" in capsys.readouterr().out


# --- examples/rllib_ppo.py --------------------------------------------------------------------------------

def test_rllib_env_creators_build_the_rules_opponents_and_tables_asked_with_penalized_illegal_actions():
    """RLlib's env check steps an unmasked random action: illegal_action="penalize" in both creators."""
    pytest.importorskip("ray.rllib")
    from mj_env.baselines import EfficientAgent, RuleBasedAgent
    from mj_env.wrappers import FlatObservations, FlatObservationsGym, FlatObservationsVector

    module = load_example("rllib_ppo")
    aec = module.env_creator({"rules": "quemen"})
    assert isinstance(aec.env, FlatObservations)
    assert aec.env.unwrapped.rules.name == "quemen" and aec.env.unwrapped.illegal_action == "penalize"
    assert module.env_creator({}).env.unwrapped.rules.name == "beijing"
    vec = module.single_env_creator({"rules": "hebei", "opponents": "efficient", "num_envs": 3})
    inner = vec.unwrapped
    assert isinstance(vec, FlatObservationsVector) and vec.num_envs == 3 and inner.rules.name == "hebei"
    assert inner.illegal_action == "penalize" and all(isinstance(a, EfficientAgent) for a in inner._opponents)
    one = module.single_env_creator({"rules": "quemen"})
    assert isinstance(one, FlatObservationsGym) and one.unwrapped.rules.name == "quemen"
    assert one.unwrapped.venv.illegal_action == "penalize"
    assert all(isinstance(a, RuleBasedAgent) for a in one.unwrapped.venv._opponents)  # --opponents' default


def rllib_args(**kw):
    base = {"single_agent": False, "rules": "beijing", "opponents": "rule", "tables": 64, "hidden": 256,
            "num_env_runners": 2, "batch": 4000, "epochs": 4, "seed": 0}
    return argparse.Namespace(**{**base, **kw})


def test_rllib_build_config_hands_ppo_the_flags_given():
    pytest.importorskip("ray.rllib")
    module = load_example("rllib_ppo")
    c = module.build_config(rllib_args(single_agent=True, rules="hebei", opponents="random", tables=5, hidden=16,
                                       num_env_runners=3, batch=100, epochs=7, seed=11))
    assert (c.env, c.env_config) == ("mj_env_single", {"rules": "hebei", "opponents": "random"})
    assert (c.num_envs_per_env_runner, c.gym_env_vectorize_mode, c.num_env_runners) == (5, "vector_entry_point", 3)
    assert (c.train_batch_size_per_learner, c.minibatch_size, c.num_epochs, c.seed) == (100, 100, 7, 11)
    assert c._rl_module_spec.model_config == {"head_fcnet_hiddens": [16, 16]}
    c = module.build_config(rllib_args(rules="quemen"))
    assert (c.env, c.env_config, set(c.policies), c.minibatch_size) == ("mj_env_aec", {"rules": "quemen"}, {"shared"}, 256)
    assert {c.policy_mapping_fn(f"player_{i}", None) for i in range(4)} == {"shared"}
    assert c._rl_module_spec.rl_module_specs["shared"].model_config == {"head_fcnet_hiddens": [256, 256]}


@pytest.fixture
def rllib_stopped(monkeypatch):
    """The example stopped where it starts Ray (or, with ``made["past_init"]``, where it builds PPO): returns
    (module, made): the ray.init keywords and the arguments build_config got."""
    pytest.importorskip("ray.rllib")
    module = load_example("rllib_ppo")
    made = {}

    def init(**kw):
        made["init"] = kw
        if not made.get("past_init"):
            raise Reached

    def build_config(args):
        made["args"] = args
        raise Reached

    monkeypatch.setattr(module.ray, "init", init)
    monkeypatch.setattr(module, "register_env", lambda *a: None)
    monkeypatch.setattr(module, "build_config", build_config)
    return module, made


def test_rllib_accepts_each_bound_and_refuses_just_past_it(rllib_stopped, capsys):
    from mj_env.engine import MAX_TABLES

    module, made = rllib_stopped
    for argv, cpus in ((["--num-env-runners", "0"], 1), (["--num-env-runners", "4096"], 4097),
                       (["--seed", str(2**32 - 1)], 3), (["--tables", str(MAX_TABLES)], 3), (["--epochs", "1000"], 3)):
        with pytest.raises(Reached):
            module.main(argv)
        assert made["init"]["num_cpus"] == cpus and made["init"]["address"] is None
    for argv, flag in ((["--num-env-runners", "-1"], "--num-env-runners"), (["--seed", str(2**32)], "--seed"),
                       (["--tables", str(MAX_TABLES + 1)], "--tables"), (["--epochs", "1001"], "--epochs"),
                       (["--hidden", "0"], "--hidden"), (["--iterations", "0"], "--iterations")):
        assert flag in refused(module, argv, capsys)


def test_rllib_smoke_replaces_the_size_flags_and_keeps_at_most_8_tables(rllib_stopped):
    module, made = rllib_stopped
    made["past_init"] = True
    for tables, kept in (("64", 8), ("3", 3)):
        with pytest.raises(Reached):
            module.main(["--smoke", "--tables", tables, "--num-env-runners", "5", "--batch", "9", "--epochs", "9",
                         "--hidden", "9", "--iterations", "9"])
        a = made["args"]
        assert (a.iterations, a.num_env_runners, a.batch, a.epochs, a.hidden, a.tables) == (1, 0, 256, 1, 32, kept)
        assert made["init"]["num_cpus"] == 1


def test_torchrl_reports_a_single_hand_as_its_points_without_a_spread(capsys, monkeypatch):
    """One hand ended in an iteration: its points, not a mean ± nan."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    module = load_example("torchrl_ppo")

    class OneHand(module.Collector):
        def __iter__(self):
            for data in super().__iter__():
                done = torch.zeros_like(data["next", "done"])
                done.view(-1)[0] = True
                data["next", "done"] = done
                data["next", "reward"] = done.to(data["next", "reward"].dtype) * 3.0
                yield data

    monkeypatch.setattr(module, "Collector", OneHand)
    out, _ = torchrl_run(module, ["--tables", "4", "--frames", "8", "--iterations", "1", "--epochs", "1",
                                  "--hidden", "8"], capsys, monkeypatch)
    assert out.startswith("iter 1: 8 decisions, 1 hands, +3 points vs rule, loss ")
