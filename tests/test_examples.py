"""Every example in examples/ runs in its --smoke mode (skipped when its library is missing;
CI installs the ``examples`` extra so that they run)."""
from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

from mj_env import actions as A

ROOT = Path(__file__).resolve().parents[1]


def run_smoke(script: str, timeout: int = 240, extra: tuple | list = (), cwd: Path = ROOT,
              home: Path | None = None) -> str:
    """``examples/<script> --smoke``; ``cwd``: where it runs (a test's tmp_path for an example writing under
    the current directory, as rollout_improvement.py's runs/), ``home``: its $HOME (RLlib's trainers make a
    folder in ~/ray_results, which no option of ours moves)."""
    env = None if home is None else {**os.environ, "HOME": str(home)}
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--smoke", *extra], cwd=cwd,
                         check=False, capture_output=True, text=True, timeout=timeout, env=env)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    return out.stdout


def test_sb3_maskable_ppo_smoke():
    pytest.importorskip("sb3_contrib")
    out = run_smoke("sb3_maskable_ppo.py")
    assert "points/hand over 2 hands vs rule" in out and out.startswith("trained ")


def test_sb3_random_learner_is_scored_on_the_evaluation_hands_without_training():
    pytest.importorskip("sb3_contrib")
    out = run_smoke("sb3_maskable_ppo.py", extra=("--random-learner",))
    assert out.startswith("a random legal learner: ") and "trained" not in out
    sb3 = load_example("sb3_maskable_ppo")
    learner = sb3.RandomLegalLearner(0)
    masks = np.zeros((500, 5), dtype=bool)
    masks[:, [1, 3]] = True
    picked, _ = learner.predict(None, masks)
    assert set(np.unique(picked)) == {1, 3}     # only legal actions, and both of them


def test_tianshou_smoke():
    pytest.importorskip("tianshou")
    out = run_smoke("tianshou_pettingzoo.py")  # one epoch of DQN at player_0 against 3 random seats
    assert "epoch 1: " in out and "greedy learner" in out and "trained on" in out


def test_torchrl_smoke():
    pytest.importorskip("torchrl")
    out = run_smoke("torchrl_ppo.py")  # one PPO iteration on GymWrapper(ResetByMask(make_vec(...)))
    assert "iter 1: 256 decisions" in out and "loss" in out and "decisions/s training" in out


def test_rllib_smoke(tmp_path):
    pytest.importorskip("ray.rllib")
    assert "iter 1:" in run_smoke("rllib_ppo.py", home=tmp_path)
    assert any((tmp_path / "ray_results").iterdir())  # RLlib's trainer folder, there and not in the user's ~


def test_rllib_single_agent_smoke(tmp_path):
    pytest.importorskip("ray.rllib")
    out = run_smoke("rllib_ppo.py", extra=["--single-agent"], home=tmp_path)
    assert "episode return (the learner)" in out


def test_rollout_improvement_smoke(tmp_path):
    """Run in tmp_path: the clone goes to ./runs/, which in the checkout replaced a user's own
    runs/rollout_improvement_clone/ (and left one behind in every checkout that ran the suite)."""
    pytest.importorskip("torch")
    # a tiny clone, 2 s of rollout targets, one epoch, 8 walls
    out = run_smoke("rollout_improvement.py", cwd=tmp_path)
    assert out.startswith("no --checkpoint: cloning the rule agent into runs/rollout_improvement_clone/\n")
    assert (tmp_path / "runs" / "rollout_improvement_clone" / "checkpoints" / "final.pt").is_file()
    assert "positions labelled" in out and "epoch 1: held-out gain" in out and "vs rule:" in out


def test_rollout_improvement_refuses_a_bad_checkpoint(tmp_path):
    pytest.importorskip("torch")
    bad = tmp_path / "bad.pt"
    bad.write_text("not a checkpoint")
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "rollout_improvement.py"), "--checkpoint", str(bad)],
                         cwd=ROOT, check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"error: --checkpoint: {bad}: not a checkpoint" in out.stderr.strip().splitlines()[-1]


def test_rollout_improvement_refuses_an_empty_checkpoint(capsys, monkeypatch, tmp_path):
    """--checkpoint '' was read as no --checkpoint: a clone was trained into runs/, replacing an earlier one."""
    pytest.importorskip("torch")
    module = load_example("rollout_improvement")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "train", types.SimpleNamespace(main=lambda argv: pytest.fail("cloned")))
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        module.main(["--checkpoint", ""])
    out, err = capsys.readouterr()
    assert e.value.code == 2 and "error: --checkpoint: '': no file named" in err and "Traceback" not in err
    assert out == "" and not (tmp_path / "runs").exists()


def test_rollout_improvement_stops_in_one_line_when_the_logits_overflow(overflowing_checkpoint, tmp_path):
    """--learning-rate 1e30 (or a checkpoint whose finite weights overflow) left nan logits: the final match
    reported figures for a network that played each row's first legal action; after that was refused, an
    AgentError traceback. Now one line, exit 1."""
    ckpt = overflowing_checkpoint
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "rollout_improvement.py"), "--checkpoint", str(ckpt),
                          "--seconds", "2", "--tables", "16", "--epochs", "0", "--eval-walls", "2"],
                         cwd=tmp_path, check=False, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "error: agent 'improved:greedy' raised NonFiniteLogits" in last and "lower --learning-rate" in last


def test_rule_variants_smoke_and_what_each_variant_changes():
    out = run_smoke("rule_variants.py")  # 16 walls: each variant against the rule agent
    assert all(f"| {name} | 777 |" in out
               for name in ("fan", "no_chi", "no_claims", "kong", "pass_ron", "no_hubao", "combined", "defend",
                            "fan_kong"))
    rv = load_example("rule_variants")
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand
    # 13 tiles, no 惠牌: 123m 456m 7m 11p 99s 5z 6z is 2 exchanges from ready (7m and 99s each short of
    # a meld), seven pairs 4 (two pairs, five singles to pair), all characters 6 (one exchange per tile off
    # the suit, after which 1234567m and six free tiles are ready)
    hand = parse_hand("1234567m11p99s5z6z")[None].astype(np.int8)
    any_shape, pairs, one_suit = rv.route_distances(get_rules("beijing"), hand, np.array([-1]))
    assert (int(any_shape[0]), int(pairs[0]), int(one_suit[0])) == (2, 4, 6)
    from mj_env.vector import MahjongVectorEnv
    env = MahjongVectorEnv(num_envs=64, rules="beijing", seed=0)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    agents = {a.name: a for a in rv.variants("beijing", (1.5, 4.5, 7.0), 0.4)}
    claimed = 0
    # 150 steps, not 300: counted once by hand, every (variant, phase, wall before or after 40 live tiles, kind
    # of action, same as fan's or not) seen in 300 steps comes up in the first 150, with 801 claims by fan
    for _ in range(150):
        acts = {name: a.act(obs, rng) for name, a in agents.items()}
        for name, a in acts.items():
            assert (obs["action_mask"][np.arange(64), a] == 1).all(), name
        assert not ((acts["no_chi"] >= A.CHI) & (acts["no_chi"] < A.CHI + A.N_CHI)).any()
        assert not ((acts["no_claims"] >= A.PONG) & (acts["no_claims"] < A.CHI + A.N_CHI)).any()
        claimed += int(((acts["fan"] >= A.PONG) & (acts["fan"] < A.CHI + A.N_CHI)).sum())
        obs, *_ = env.step(acts["fan"])
    assert claimed > 0  # the fan variant still claims, so the two others had claims to pass


def test_pass_ron_no_hubao_and_kong_change_only_their_decision():
    """With the same random numbers each plays the rule agent's move except where its one rule applies: a
    discard win with 40+ live tiles left (pass_ron), a third claim from the same player (no_hubao), an
    exposed kong legal where the rule agent would not win (kong)."""
    from mj_env.baselines import RuleBasedAgent
    from mj_env.observation import COL_ASKER, COL_CLAIMED_BY_SELF, COL_LIVE_LEFT, COL_PHASE, P_SCALARS
    from mj_env.vector import MahjongVectorEnv

    rv = load_example("rule_variants")
    rule, pass_ron, no_hubao = RuleBasedAgent("beijing"), rv.PassRonAgent("beijing"), rv.NoHubaoAgent("beijing")
    kong = rv.KongAgent("beijing")
    fan, combined, fan_kong = rv.FanAwareAgent("beijing"), rv.CombinedAgent("beijing"), rv.FanKongAgent("beijing")
    env = MahjongVectorEnv(num_envs=256, rules="beijing", seed=1)
    obs, _ = env.reset(seed=1)
    changed = {"pass_ron": 0, "no_hubao": 0, "kong": 0, "fan_kong": 0}
    # 200 steps, not 400: every case each check tells apart still comes up (counted once by hand: each rule
    # applying 33 to 315 times, a discard win with under 40 live tiles 96, a kong legal where the rule agent
    # wins 2); each position is checked alone, so the other 200 steps only repeated these cases
    for step in range(200):
        want = rule.act(obs, np.random.default_rng(step))
        sc = obs["observation"][:, P_SCALARS]
        rows = np.arange(len(want))
        ron = (want == A.WIN) & (sc[:, COL_PHASE] != 0) & (sc[:, COL_LIVE_LEFT] >= 40)
        third = ((sc[:, COL_PHASE] == 1) & (want != A.WIN) & (want != A.PASS)
                 & (sc[:, COL_CLAIMED_BY_SELF][rows, sc[:, COL_ASKER]] >= 2))
        for name, agent, rule_applies in (("pass_ron", pass_ron, ron), ("no_hubao", no_hubao, third)):
            got = agent.act(obs, np.random.default_rng(step))
            assert (got == np.where(rule_applies, A.PASS, want)).all(), name
            changed[name] += int(rule_applies.sum())
        may_kong = (obs["action_mask"][:, A.KONG] == 1) & (want != A.WIN)
        assert (kong.act(obs, np.random.default_rng(step)) == np.where(may_kong, A.KONG, want)).all()
        changed["kong"] += int((may_kong & (want != A.KONG)).sum())
        fan_wants = fan.act(obs, np.random.default_rng(step))  # combined: fan's move, then both passes
        ron = (fan_wants == A.WIN) & (sc[:, COL_PHASE] != 0) & (sc[:, COL_LIVE_LEFT] >= 40)
        third = ((sc[:, COL_PHASE] == 1) & (fan_wants != A.WIN) & (fan_wants != A.PASS)
                 & (sc[:, COL_CLAIMED_BY_SELF][rows, sc[:, COL_ASKER]] >= 2))
        got = combined.act(obs, np.random.default_rng(step))
        assert (got == np.where(ron | third, A.PASS, fan_wants)).all()
        fan_may_kong = (obs["action_mask"][:, A.KONG] == 1) & (fan_wants != A.WIN)  # fan_kong: fan's move, then kong
        got = fan_kong.act(obs, np.random.default_rng(step))
        assert (got == np.where(fan_may_kong, A.KONG, fan_wants)).all()
        changed["fan_kong"] += int((fan_may_kong & (fan_wants != A.KONG)).sum())
        obs, *_ = env.step(want)
    assert min(changed.values()) > 0, changed


@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_defend_keeps_the_rule_agents_distance_and_discards_the_safest_only_when_threatened(rules):
    """Unthreatened, its discard ranking is the rule agent's; threatened, it discards within the rule
    agent's nearest bracket: the safest kind there, or, where the hand is ready, one with the most live
    winning tiles (the rule agent's key within its 0.01 noise) and the safest of those."""
    from mj_env.baselines import RuleBasedAgent
    from mj_env.observation import COL_PHASE, P_SCALARS
    from mj_env.rules import get_rules
    from mj_env.vector import MahjongVectorEnv

    rv = load_example("rule_variants")
    rule, defend = RuleBasedAgent(rules), rv.DefendAgent(rules, threat_melds=2, late=40)
    env = MahjongVectorEnv(num_envs=256, rules=rules, seed=2)
    obs, _ = env.reset(seed=2)
    moved = threatened_turns = ready_turns = 0
    # 150 steps, not 300: counted once by hand, 150 steps give 2311 threatened turns, 1444 of them ready and 537
    # moved under beijing (9943, 2788, 3877 under quemen), late-wall positions and hands dealt anew; each
    # position is checked alone, so the other 150 steps only repeated these cases
    for step in range(150):
        o, mask = obs["observation"], obs["action_mask"]
        turn = np.flatnonzero((o[:, P_SCALARS, COL_PHASE] == 0) & (mask[:, A.DISCARD:A.DISCARD + 34].any(axis=1)))
        if len(turn):
            want = rule.discard_keys(o[turn], mask[turn], np.random.default_rng(step))
            got = defend.discard_keys(o[turn], mask[turn], np.random.default_rng(step))
            threat = rv.threats(o[turn], get_rules(rules), 2, 40).any(axis=1)
            safety = rv.discard_safety(o[turn], rv.threats(o[turn], get_rules(rules), 2, 40))
            assert (got[~threat] == want[~threat]).all()
            rows = np.arange(len(turn))
            low = want.min(axis=1)
            ready = low < 500.0                                  # distance 0 after the best discard
            pick = got.argmin(axis=1)
            assert (want[rows, pick] < low + 500.0).all()        # never farther from winning than the rule agent
            top = np.where(ready[:, None], want < low[:, None] + 0.5, want < low[:, None] + 500.0)
            assert top[rows, pick][threat].all()                 # ready: no fewer live winning tiles
            best_safety = np.where(top, safety, -1.0).max(axis=1)
            assert (safety[rows, pick][threat] == best_safety[threat]).all()
            moved += int((pick != want.argmin(axis=1))[threat].sum())
            threatened_turns += int(threat.sum())
            ready_turns += int((threat & ready).sum())
        obs, *_ = env.step(rule.act(obs, np.random.default_rng(step)))
    assert threatened_turns > 100 and ready_turns > 10 and moved > 10, (threatened_turns, ready_turns, moved)


def test_threats_and_discard_safety_read_melds_kongs_ting_the_wall_and_every_threatening_river():
    from mj_env.observation import (
        COL_CONCEALED_KONGS,
        COL_LIVE_LEFT,
        COL_TING,
        N_PLANES,
        P_HAND,
        P_MELDS,
        P_RIVERS,
    )
    from mj_env.observation import P_SCALARS as SC
    from mj_env.rules import get_rules
    rv = load_example("rule_variants")
    beijing, hebei, quemen = get_rules("beijing"), get_rules("hebei"), get_rules("quemen")
    o = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    o[0, SC, COL_LIVE_LEFT] = 60
    o[0, P_HAND, 0] = 2                                      # two 1m in hand
    o[0, P_MELDS.start + 2, 9:12] = 1                        # the opposite seat: chi 123p
    o[0, P_MELDS.start + 2, 20] = 3                          # and pong 3s: two melds
    o[0, P_MELDS.start + 1, 30] = 4                          # the next seat: one kong (4 tiles, one meld)
    o[0, P_RIVERS.start + 2, [27, 28]] = 1                   # the opposite seat discarded 1z and 2z
    o[0, P_RIVERS.start + 1, 28] = 1                         # the next seat 2z
    assert rv.threats(o, hebei, 2, 40).tolist() == [[False, True, False]]
    assert rv.threats(o, hebei, 1, 40).tolist() == [[True, True, False]]
    assert rv.threats(o, hebei, 3, 40).tolist() == [[False, False, False]]
    assert rv.threats(o, beijing, 1, 40).tolist() == [[False, False, False]]  # melded: self-draw only
    o[0, SC, COL_CONCEALED_KONGS.start + 1] = 1                  # a concealed kong makes the next seat's second meld
    assert rv.threats(o, hebei, 2, 40).tolist() == [[True, True, False]]
    threat = rv.threats(o, hebei, 2, 40)
    safety = rv.discard_safety(o, threat)
    # seen: 1m 2 of 4, 3s 3, 1z 1, 2z 2, 4z 4 (the kong); +1 only for 2z, which both threatening seats discarded
    assert (safety[0, [0, 20, 27, 28, 30]] == [0.5, 0.75, 0.25, 1.5, 1.0]).all()
    assert (rv.discard_safety(o, np.zeros((1, 3), bool))[0, [27, 28]] == [0.25, 0.5]).all()
    o[0, SC, COL_TING.start + 3] = 1                             # the previous seat declared 报听
    assert rv.threats(o, quemen, 2, 40).tolist() == [[True, True, True]]
    o[0, SC, COL_LIVE_LEFT] = 40                                 # late: every seat that may win on a discard
    o[0, SC, COL_TING.start + 3] = 0
    assert rv.threats(o, beijing, 4, 40).tolist() == [[False, False, True]]
    assert rv.threats(o, beijing, 4, 39).tolist() == [[False, False, False]]


def test_offline_dataset_smoke(tmp_path):
    out = run_smoke("offline_dataset.py", extra=("--out", str(tmp_path / "d.npz")))  # 8 tables, 16 hands
    assert "decisions of 16 complete hands (beijing, 8 tables" in out
    data = np.load(tmp_path / "d.npz")
    assert len(data["hand_scores"]) == 16 and (data["hand_scores"].sum(axis=1) == 0).all()


FAST = ["--walls", "1", "--seeds", "0"]
NO_CKPT = ["--checkpoint", "no such checkpoint.pt"]  # a value wrongly accepted fails at once, not after a clone
# (example, the library it needs, arguments, the flag the message must name): each exits 2 through p.error
# before anything is trained, labelled or started
BAD_ARGS = [
    ("sb3_maskable_ppo", "sb3_contrib", ["--rules", "bogus"], "--rules"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--opponents", "bogus"], "--opponents"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--seed", "-1"], "--seed"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--n-envs", "0"], "--n-envs"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--timesteps", "-5"], "--timesteps"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--eval-hands", "0"], "--eval-hands"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--n-steps", "0"], "--n-steps"),
    ("rllib_ppo", "ray.rllib", ["--tables", "0"], "--tables"),
    ("torchrl_ppo", "torchrl", ["--opponents", "bogus"], "--opponents"),
    ("torchrl_ppo", "torchrl", ["--minibatch", "0"], "--minibatch"),
    ("torchrl_ppo", "torchrl", ["--lr", "-1"], "--lr"),
    ("torchrl_ppo", "torchrl", ["--seed", "-1"], "--seed"),
    ("tianshou_pettingzoo", "tianshou", ["--rules", "bogus"], "--rules"),
    ("tianshou_pettingzoo", "tianshou", ["--envs", "0"], "--envs"),
    ("tianshou_pettingzoo", "tianshou", ["--test-hands", "0"], "--test-hands"),
    ("tianshou_pettingzoo", "tianshou", ["--lr", "nan"], "--lr"),
    ("rllib_ppo", "ray.rllib", ["--rules", "bogus"], "--rules"),
    ("rllib_ppo", "ray.rllib", ["--seed", "-1"], "--seed"),
    ("rollout_improvement", "torch", ["--tables", "0"], "--tables"),
    ("rollout_improvement", "torch", ["--eval-walls", "0"], "--eval-walls"),
    ("rollout_improvement", "torch", ["--learning-rate", "nan"], "--learning-rate"),
    ("rollout_improvement", "torch", ["--rules", "bogus"], "--rules"),
    ("rollout_improvement", "torch", ["--seed", "-1"], "--seed"),
    # and sizes a machine can allocate (a fuzz: 3.8 TB for --hidden 2e9, 73 TiB for --batch-size 1e13)
    ("tianshou_pettingzoo", "tianshou", ["--hidden", "2000000000"], "--hidden"),
    ("tianshou_pettingzoo", "tianshou", ["--batch-size", "10000000000000"], "--batch-size"),
    ("tianshou_pettingzoo", "tianshou", ["--n-step", "10000000000000", "--smoke"], "--n-step"),
    ("torchrl_ppo", "torchrl", ["--hidden", "2000000000", "--smoke"], "--hidden"),
    ("rllib_ppo", "ray.rllib", ["--batch", "100000000000"], "--batch"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--n-envs", "100000000"], "--n-envs"),
    # rollouts of one decision: advantages normalized over no spread are NaN, and the run crashed a step later
    ("sb3_maskable_ppo", "sb3_contrib", ["--n-envs", "1", "--n-steps", "1"], "--n-envs x --n-steps"),
    ("sb3_maskable_ppo", "sb3_contrib", ["--n-envs", "1", "--n-steps", "257"], "--n-envs x --n-steps"),  # 256 + 1
    ("torchrl_ppo", "torchrl", ["--frames", "1", "--tables", "1"], "--frames"),
    ("rollout_improvement", "torch", ["--tables", "4194305", *NO_CKPT], "--tables"),
    ("rollout_improvement", "torch", ["--epochs", "-1", *NO_CKPT], "--epochs"),
    ("rollout_improvement", "torch", ["--eval-walls", "1000001", *NO_CKPT], "--eval-walls"),
    ("rollout_improvement", "torch", ["--seconds", "0", *NO_CKPT], "--seconds"),
    ("rollout_improvement", "torch", ["--seconds", "inf", *NO_CKPT], "--seconds"),
    ("rollout_improvement", "torch", ["--scale", "-1", *NO_CKPT], "--scale"),
    ("rollout_improvement", "torch", ["--seed", str(2**32), *NO_CKPT], "--seed"),
    # rule_variants: each bound of its numbers, ends just outside (FAST: a wrongly accepted one plays 1 wall, not 2000)
    ("rule_variants", "numpy", ["--q", "1", *FAST], "--q"),
    ("rule_variants", "numpy", ["--q", "0", *FAST], "--q"),
    ("rule_variants", "numpy", ["--live", "145", *FAST], "--live"),
    ("rule_variants", "numpy", ["--live", "-1", *FAST], "--live"),
    ("rule_variants", "numpy", ["--threat-melds", "5", *FAST], "--threat-melds"),
    ("rule_variants", "numpy", ["--threat-melds", "0", *FAST], "--threat-melds"),
    ("rule_variants", "numpy", ["--late", "145", *FAST], "--late"),
    ("rule_variants", "numpy", ["--late", "-1", *FAST], "--late"),
    ("rule_variants", "numpy", ["--walls", "0", "--seeds", "0"], "--walls"),
    ("rule_variants", "numpy", ["--walls", "100001"], "--walls"),
    ("rule_variants", "numpy", ["--walls", "1", "--seeds", "0,4294967296"], "seeds"),
    ("rule_variants", "numpy", ["--walls", "1", "--seeds", "-1"], "seeds"),
    ("rule_variants", "numpy", ["--seeds", "1,,2"], "--seeds"),
    ("rule_variants", "numpy", ["--values", "1,2", *FAST], "--values"),
    ("rule_variants", "numpy", ["--values", "1,nan,2", *FAST], "--values"),
    ("rule_variants", "numpy", ["--values", "1,2,1e999", *FAST], "--values"),
    # negative worths put the fan variant's legal discards above the illegal ones' key: it chose an illegal
    # discard, an AgentError traceback after the first match had started
    ("rule_variants", "numpy", ["--values=-1e6,-1e6,-1e6", *FAST], "--values"),
    # offline_dataset: an --out no run could write, so that a bad value wrongly accepted writes nothing
    *[("offline_dataset", "numpy", [*argv, "--out", "/no/such/folder/d.npz"], flag) for argv, flag in
      ((["--tables", "-1"], "--tables"), (["--hands", "0"], "--hands"), (["--seed", "-1"], "--seed"),
       (["--agents", "bogus"], "--agents"), (["--rules", "bogus"], "--rules"))],
    ("offline_dataset", "numpy", ["--out", "/no/such/folder/d.npz"], "--out"),
]


def test_rllib_says_when_there_is_no_cluster_to_join(capsys, monkeypatch):
    """--address auto joins the cluster of Ray's note (/tmp/ray/ray_current_cluster, left by `ray start`) or else any
    GCS process it finds in `ps`: the local cluster of test_rllib_smoke on the other xdist worker (or any Ray run on
    the machine) was joined, and this test trained on it and died with it (3 runs of 3 beside a running
    rllib_ppo.py --smoke). Both lookups find nothing here, as on a machine without Ray running."""
    pytest.importorskip("ray.rllib")
    from ray._private import services

    def no_gcs_process():
        return []

    no_gcs_process.cache_clear = lambda: None  # ray.init clears the (lru) cache of the real one
    monkeypatch.setattr(services, "find_gcs_addresses", no_gcs_process)
    monkeypatch.setattr(services, "find_bootstrap_address", lambda temp_dir: None)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    module = load_example("rllib_ppo")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        module.main(["--address", "auto", "--smoke"])
    err = capsys.readouterr().err
    assert e.value.code == 1 and "--address auto: no Ray cluster to join" in err and "Traceback" not in err


def test_rllib_names_an_address_it_cannot_read(capsys):
    """--address nonsense ended in Ray's 'ValueError: Invalid address format' traceback."""
    pytest.importorskip("ray.rllib")
    module = load_example("rllib_ppo")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        module.main(["--address", "nonsense", "--smoke"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "error: --address nonsense: not a Ray cluster address" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("example,library,argv,flag", BAD_ARGS,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_examples_refuse_bad_arguments(example, library, argv, flag, capsys):
    pytest.importorskip(library)
    module = load_example(example)
    capsys.readouterr()  # what importing the library printed (Ray logs deprecations)
    with pytest.raises(SystemExit) as e:
        module.main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and flag in err.strip().splitlines()[-1] and "Traceback" not in err
    assert out == ""  # nothing started (rollout_improvement: no clone announced)


def test_rule_variants_prints_a_dash_for_the_fan_of_an_agent_that_never_won(capsys):
    rv = load_example("rule_variants")
    assert rv.fan_text(None) == "-" and rv.fan_text(2.5) == "2.50"
    rows = rv.main(["--walls", "1", "--seeds", "0"])  # one wall: some variant wins no hand
    out = capsys.readouterr().out
    assert len(rows) == 9 and any(r["avg_fan"] is None for r in rows)
    for r in rows:
        if r["avg_fan"] is None:
            assert f"| {r['variant']} | 0 |" in out and "| - vs " in out


def test_rule_variants_passes_its_flags_to_the_variants_and_the_arena(capsys, monkeypatch):
    """main hands --live, --threat-melds, --late, --values and --q to the variants, and --walls, the seeds,
    --rules and --common-random to each match (--smoke: 16 walls, the first seed only)."""
    rv = load_example("rule_variants")
    made = rv.variants("quemen", (1.0, 2.0, 3.0), 0.3, live=7, threat_melds=3, late=11)
    by_name = {a.name: a for a in made}
    assert list(by_name) == ["fan", "no_chi", "no_claims", "kong", "pass_ron", "no_hubao", "combined", "defend",
                             "fan_kong"]
    assert by_name["fan"].values == by_name["combined"].values == by_name["fan_kong"].values == (1.0, 2.0, 3.0)
    assert by_name["fan"].q == by_name["combined"].q == by_name["fan_kong"].q == 0.3
    assert by_name["pass_ron"].live == by_name["combined"].live == 7
    assert (by_name["defend"].threat_melds, by_name["defend"].late) == (3, 11)
    assert all(a.rules.name == "quemen" for a in made)
    calls = []

    class Arena:
        @staticmethod
        def play_duplicate(agents, walls, **kw):
            calls.append((agents[0].name, agents[1].rules.name, walls, kw["seed"], kw["rules"], kw["common_random"]))

    class Report:
        @staticmethod
        def summarize(_):
            me = {"mean_points": 0.5, "ci95": (-1.0, 2.0), "win_rate": 0.25, "deal_in_rate": 0.125, "avg_fan": 3.0}
            return {"agents": [me, {**me, "avg_fan": None}]}

    monkeypatch.setattr(rv, "arena", Arena)
    monkeypatch.setattr(rv, "arena_report", Report)
    rows = rv.main(["--rules", "quemen", "--walls", "5", "--seeds", "3,9", "--common-random", "--live", "7"])
    out = capsys.readouterr().out
    assert out.startswith("quemen, 5 walls x 2 seatings per seed, common random numbers; each variant")
    assert "| pass_ron | 9 | +0.500 [-1.000, +2.000] | 25.0% | 12.5% | 3.00 vs - |" in out
    assert len(rows) == 18 and calls[:2] == [("fan", "quemen", 5, 3, "quemen", True), ("fan", "quemen", 5, 9, "quemen", True)]
    calls.clear()
    rv.main(["--smoke", "--seeds", "3,9"])
    assert ", common random numbers" not in capsys.readouterr().out
    assert {c[2:] for c in calls} == {(16, 3, "beijing", False)} and len(calls) == 9


def test_pass_ron_and_no_hubao_at_their_thresholds():
    """pass_ron passes a win on a discard or a robbed kong (not on its own turn) at exactly --live live tiles;
    no_hubao passes a claim (not a win) once two earlier claims came from the asker."""
    from mj_env.observation import (
        COL_ASKER,
        COL_CLAIMED_BY_SELF,
        COL_LIVE_LEFT,
        COL_PHASE,
        N_PLANES,
        P_SCALARS,
    )
    from mj_env.state import CLAIM, ROB, TURN

    rv = load_example("rule_variants")
    o = np.zeros((6, N_PLANES, 34), dtype=np.uint8)
    o[:, P_SCALARS, COL_PHASE] = [CLAIM, ROB, TURN, CLAIM, ROB, CLAIM]
    o[:, P_SCALARS, COL_LIVE_LEFT] = [40, 40, 60, 39, 39, 41]
    out = rv.pass_early_wins(np.full(6, A.WIN), {"observation": o}, 40)
    assert out.tolist() == [A.PASS, A.PASS, A.WIN, A.WIN, A.WIN, A.PASS]
    o = np.zeros((5, N_PLANES, 34), dtype=np.uint8)
    o[:, P_SCALARS, COL_PHASE] = [CLAIM, CLAIM, CLAIM, CLAIM, TURN]
    o[:, P_SCALARS, COL_ASKER] = 2                                  # the opposite seat discarded
    o[:, P_SCALARS, COL_CLAIMED_BY_SELF.start + 2] = [2, 1, 2, 3, 2]
    o[1, P_SCALARS, COL_CLAIMED_BY_SELF.start + 1] = 2              # two claims from another seat: no matter
    out = rv.pass_third_claims(np.array([A.PONG, A.PONG, A.WIN, A.CHI, A.DISCARD]), {"observation": o})
    assert out.tolist() == [A.PASS, A.PONG, A.WIN, A.PASS, A.DISCARD]


def test_threats_count_kongs_as_one_meld_and_under_beijing_any_meld_rules_out_a_discard_win():
    from mj_env.observation import COL_LIVE_LEFT, N_PLANES, P_MELDS, P_SCALARS
    from mj_env.rules import get_rules

    rv = load_example("rule_variants")
    o = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    o[0, P_SCALARS, COL_LIVE_LEFT] = 60
    o[0, P_MELDS.start + 1, [0, 9, 18]] = 4                        # the next seat: three kongs, three melds
    o[0, P_MELDS.start + 3, 27] = 3                                # the previous seat: one pong
    hebei, beijing = get_rules("hebei"), get_rules("beijing")
    assert rv.threats(o, hebei, 3, 40).tolist() == [[True, False, False]]
    assert rv.threats(o, hebei, 4, 40).tolist() == [[False, False, False]]
    assert rv.threats(o, hebei, 1, 40).tolist() == [[True, False, True]]
    o[0, P_SCALARS, COL_LIVE_LEFT] = 10                            # late: only the seat with no meld
    assert rv.threats(o, beijing, 4, 40).tolist() == [[False, True, False]]


def test_fan_discards_keep_the_best_route_worth_with_the_rule_agents_order_breaking_ties():
    """Each own-turn discard of the fan variant keeps the largest V * q**d over its routes (any shape, seven
    pairs, one suit; any shape alone once the seat has melded), and among those the rule agent's choice."""
    from mj_env.baselines import RuleBasedAgent, _hand_and_hui
    from mj_env.observation import COL_PHASE, P_SCALARS
    from mj_env.rules import get_rules
    from mj_env.vector import MahjongVectorEnv

    rv = load_example("rule_variants")
    values, q = (1.5, 4.5, 7.0), 0.4
    rule, fan, rules = RuleBasedAgent("beijing"), rv.FanAwareAgent("beijing", values, q), get_rules("beijing")
    env = MahjongVectorEnv(num_envs=64, rules="beijing", seed=3)
    obs, _ = env.reset(seed=3)
    moved = melded = 0
    for step in range(60):
        o, mask = obs["observation"], obs["action_mask"]
        turn = np.flatnonzero((o[:, P_SCALARS, COL_PHASE] == 0) & (mask[:, A.DISCARD:A.DISCARD + 34].any(axis=1)))
        if len(turn):
            want = rule.discard_keys(o[turn], mask[turn], np.random.default_rng(step))
            pick = fan.discard_keys(o[turn], mask[turn], np.random.default_rng(step)).argmin(axis=1)
            hands, hui = _hand_and_hui(o[turn])
            r, t = np.nonzero(want < rule.ILLEGAL_KEY)
            after = hands[r] - np.eye(34, dtype=np.int8)[t]
            routes = np.stack(rv.route_distances(rules, after, hui[r])).astype(np.float64)  # (3, legal discards)
            routes[1:, after.sum(axis=1) < 13] = np.inf                # melded: the any-shape route alone
            worth = np.full(want.shape, -np.inf)
            worth[r, t] = (np.array(values)[:, None] * q ** routes).max(axis=0)
            rows = np.arange(len(turn))
            best = worth.max(axis=1)
            assert np.allclose(worth[rows, pick], best)
            tied_keys = np.where(np.isclose(worth, best[:, None]), want, np.inf)
            assert (want[rows, pick] == tied_keys.min(axis=1)).all()
            moved += int((pick != want.argmin(axis=1)).sum())
            melded += int((hands.sum(axis=1) < 14).sum())
        obs, *_ = env.step(rule.act(obs, np.random.default_rng(step)))
    assert moved > 5 and melded > 5, (moved, melded)


def _candidates_data(torch):
    """Two positions of 5 actions: logits, a mask, candidates (row 0's third a pad) and their rollout values."""
    return {"obs": torch.tensor([[0.5, -1.0, 2.0, 0.0, 1.0], [1.0, 0.0, -0.5, 3.0, 0.2]]),
            "mask": torch.tensor([[True, True, True, True, False], [True] * 5]),
            "cand": torch.tensor([[1, 2, 0], [3, 0, 2]]), "valid": torch.tensor([[True, True, False], [True] * 3]),
            "q": torch.tensor([[1.0, 3.0, 0.0], [0.0, 2.0, -2.0]])}


def test_rollout_improvement_losses_and_held_out_gain_follow_their_formulas():
    """pg: -sum_c pi_C(c) (Q_c - mean Q) / scale, reg: sum_c (logit_c - logit_rule - (Q_c - Q_rule) / scale)^2,
    both plus -log pi(C), averaged over positions; the held-out gain is Q(the network's pick among the valid
    candidates) - Q(the rule agent's, the first), with the share of positions where they differ."""
    torch = pytest.importorskip("torch")
    ri = load_example("rollout_improvement")
    data, idx, scale = _candidates_data(torch), torch.tensor([0, 1]), 2.0
    model = lambda obs: (obs, None)  # the logits are the inputs
    logits = data["obs"].numpy().astype(np.float64)
    logits[0, 4] = -np.inf
    on_cands = pi_terms = reg_terms = 0.0
    for row, (cand, n) in enumerate(((data["cand"][0, :2], 2), (data["cand"][1], 3))):
        cand, q = cand.numpy(), data["q"][row, :n].numpy().astype(np.float64)
        logp = logits[row] - np.log(np.exp(logits[row]).sum())
        on_cands -= np.log(np.exp(logp[cand]).sum()) / 2
        pi_c = np.exp(logits[row, cand]) / np.exp(logits[row, cand]).sum()
        pi_terms -= (pi_c * (q - q.mean()) / scale).sum() / 2
        reg_terms += (((logits[row, cand] - logits[row, cand[0]]) - (q - q[0]) / scale) ** 2).sum() / 2
    assert ri.losses(model, data, idx, "pg", scale).item() == pytest.approx(pi_terms + on_cands, rel=1e-5)
    assert ri.losses(model, data, idx, "reg", scale).item() == pytest.approx(reg_terms + on_cands, rel=1e-5)
    # row 0 picks its second candidate (logit 2.0 against -1.0), gaining 3 - 1; row 1 keeps the rule agent's
    # (action 3, logit 3.0, the largest): a mean gain of 1.0, half the positions changed
    assert ri.held_out_gain(model, data, idx) == pytest.approx((1.0, 0.5))
    data["valid"][0, 1] = False  # a pad is never picked, whatever its logit
    assert ri.held_out_gain(model, data, torch.tensor([0])) == pytest.approx((0.0, 0.0))


def _rollout_improvement_offline(monkeypatch, argv, play=None):
    """rollout_improvement.main on 40 made-up labelled positions with a 5-action linear network, the match
    stubbed (``play`` stands for arena.play_duplicate): returns (the batches it trained on, the hold-out)."""
    torch = pytest.importorskip("torch")
    ri = load_example("rollout_improvement")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(5, 5)

        def forward(self, x):
            return self.lin(x), None

    rng = np.random.default_rng(0)
    raw = {"obs": rng.normal(size=(40, 5)).astype(np.float32), "mask": np.ones((40, 5), bool),
           "cand": np.tile([0, 1, -1], (40, 1)), "q": rng.normal(size=(40, 3))}
    trained = []
    losses = ri.losses
    monkeypatch.setattr(ri, "load_checkpoint", lambda path: (Net(), {}))
    monkeypatch.setattr(ri, "collect", lambda *args: raw)
    monkeypatch.setattr(ri, "losses", lambda model, data, idx, *a: trained.append(idx.numpy()) or losses(model, data, idx, *a))
    monkeypatch.setattr(ri, "NetworkAgent", lambda model, name, **kw: type("Me", (), {"name": name}))
    summary = {"agents": [{"mean_points": 0.0, "ci95": (-1.0, 1.0)}]}
    monkeypatch.setattr(ri, "arena", type("Arena", (), {"play_duplicate": staticmethod(play or (lambda *a, **k: None)),
                                                         "MAX_WALLS": 10**6}))
    monkeypatch.setattr(ri, "arena_report", type("Report", (), {"summarize": staticmethod(lambda _: summary)}))
    ri.main(argv)
    return trained, np.random.default_rng(0).permutation(40)[:4]


def test_rollout_improvement_trains_only_on_positions_it_does_not_hold_out(monkeypatch, capsys):
    trained, held = _rollout_improvement_offline(monkeypatch, ["--checkpoint", "x", "--epochs", "2", "--seed", "0"])
    assert len(trained) == 2 and all(sorted(t) == sorted(set(range(40)) - set(held)) for t in trained)
    out = capsys.readouterr().out
    assert "40 positions labelled, 80 rollouts" in out and "epoch 2: held-out gain" in out and "epoch 3" not in out


def test_rollout_improvement_lets_an_agent_error_of_another_kind_through(monkeypatch):
    """Only the network's overflowing logits (NonFiniteLogits) end in the one-line exit 1; another AgentError
    (a bug) keeps its traceback."""
    from mj_env.baselines import AgentError

    def play(*args, **kw):
        raise AgentError("agent 'improved:greedy' raised KeyError") from KeyError("x")

    with pytest.raises(AgentError, match="raised KeyError"):
        _rollout_improvement_offline(monkeypatch, ["--checkpoint", "x", "--epochs", "0"], play)


def test_rollout_improvement_clones_with_train_py_and_says_it_replaces_an_earlier_clone(monkeypatch, tmp_path, capsys):
    pytest.importorskip("torch")
    ri = load_example("rollout_improvement")
    calls = []

    def train_main(argv):
        calls.append(argv)
        raise SystemExit(0)  # stop before labelling

    monkeypatch.setitem(sys.modules, "train", type(sys)("train"))
    monkeypatch.setattr(sys.modules["train"], "main", train_main, raising=False)
    monkeypatch.chdir(tmp_path)
    for earlier in ("", " (replacing the earlier clone there)"):
        with pytest.raises(SystemExit):
            ri.main(["--rules", "quemen", "--seed", "5", "--smoke"])
        assert capsys.readouterr().out == f"no --checkpoint: cloning the rule agent into runs/{ri.CLONE}/{earlier}\n"
        (tmp_path / "runs" / ri.CLONE).mkdir(parents=True, exist_ok=True)
    assert calls[0] == ["--total-steps", "0", "--exp-name", ri.CLONE, "--overwrite", "--final-eval-hands", "0",
                        "--no-progress", "--rules", "quemen", "--seed", "5", "--bc-steps", "8", "--num-envs", "16",
                        "--num-steps", "8"]


def test_route_distances_have_no_seven_pairs_route_where_a_suit_must_be_missing():
    """quemen asks for a missing suit (缺一门), which seven pairs of three suits cannot have: that route is 99."""
    from mj_env.rules import get_rules
    from mj_env.tiles import parse_hand

    rv = load_example("rule_variants")
    hand = parse_hand("1234567m11p99s5z6z")[None].astype(np.int8)
    assert int(rv.route_distances(get_rules("quemen"), hand, np.array([-1]))[1][0]) == 99
    assert int(rv.route_distances(get_rules("hebei"), hand, np.array([-1]))[1][0]) == 4


@pytest.mark.parametrize("values,q", [((-1.0, 4.5, 7.0), 0.4), ((1.5, float("nan"), 7.0), 0.4),
                                      ((1.5, 4.5), 0.4), ((1.5, 4.5, 7.0), 1.0), ((1.5, 4.5, 7.0), 0.0)])
def test_the_fan_variant_refuses_negative_worths_and_q_outside_0_1_when_built_in_python(values, q):
    """A worth below 0 would rank a legal discard past the illegal ones' key (an illegal action, an
    AgentError mid-match); the class refuses it as the CLI does, before anything is built."""
    rv = load_example("rule_variants")
    with pytest.raises(ValueError, match="values: three finite worths|q must lie in"):
        rv.FanAwareAgent("beijing", values, q)
    with pytest.raises(ValueError, match="values: three finite worths|q must lie in"):
        rv.CombinedAgent("beijing", values, q)


def test_duplicate_baseline_smoke_and_its_statistics(capsys):
    out = run_smoke("duplicate_baseline.py", extra=("--agent", "rule"))
    # the rule agent as the player: with common random numbers its games are its twins', to the last point
    assert "| correlation rho of G and B | 1.000 [1.000, 1.000] |" in out
    assert "| variance of G - B | 0.00 [0.00, 0.00] |" in out
    db = load_example("duplicate_baseline")
    from mj_env.baselines import EfficientAgent
    s = db.measure(EfficientAgent("beijing"), 24, seed=3)
    assert 0.0 < s["rho"] < 1.0 and s["var_g_minus_b"] > 0 and s["ci"]["rho"][0] <= s["rho"] <= s["ci"]["rho"][1]
    # the statistics against NumPy's own, and the best c's share left is 1 - rho**2
    g, b = np.array([[1.0, -2.0], [3.0, 0.0]]), np.array([[0.0, -1.0], [2.0, 1.0]])
    st = db.correlation_stats(g, b)
    assert np.isclose(st["rho"], np.corrcoef(g.ravel(), b.ravel())[0, 1])
    assert np.isclose(st["var_g_minus_b"], np.var(g.ravel() - b.ravel()))
    c = np.cov(g.ravel(), b.ravel(), bias=True)[0, 1] / b.var()
    assert np.isclose(np.var(g.ravel() - c * b.ravel()) / g.var(), st["left_best_c"])
    with pytest.raises(SystemExit) as e:
        db.parse_args(["--walls", "0"])
    assert e.value.code == 2
    assert "error: --walls must be between 1 and 1,000,000 walls, got 0" in capsys.readouterr().err
