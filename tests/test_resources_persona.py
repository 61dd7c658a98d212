"""Long runs, resources and threads, as someone training for days or serving many environments meets them:
chains of ``Engine.clone``, what importing the packages does to torch's and the random modules' global
state, and the AEC and single-agent environments stepped in threads."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import mj_env
from mj_env import engine as E
from mj_env.engine import Engine
from mj_env.single_agent import MahjongSingleAgentVectorEnv

ROOT = Path(__file__).resolve().parents[1]


def _spawn_key(eng: Engine) -> tuple:
    return eng.rng.bit_generator.seed_seq.spawn_key


def test_a_chain_of_clones_keeps_its_generators_small_and_reproducible():
    """A search that keeps the chosen child as its next root clones a clone of a clone, move after move: each
    ``Generator.spawn`` lengthened the spawn key by one, without bound, and every clone hashed it all (0.16 ms
    at depth 0, 35 ms at depth 20,000, measured). Now the key stays within ``MAX_SPAWN_DEPTH``, the shallow
    clones get the very children ``spawn`` gave (so no stream of existing code changes), and a deep chain is
    still reproducible with siblings apart."""
    def chain(seed: int, depth: int) -> list[Engine]:
        eng = Engine("beijing", num_tables=1, seed=seed)
        eng.reset()
        out = [eng]
        for _ in range(depth):
            out.append(out[-1].clone())
        return out

    bound = E.MAX_SPAWN_DEPTH
    depth = 3 * bound
    engines = chain(4, depth)
    assert max(len(_spawn_key(e)) for e in engines) <= bound
    plain = np.random.default_rng(4)
    for eng in engines[1:bound + 1]:  # as deep as the bound: NumPy's own spawn, draw for draw
        plain = plain.spawn(1)[0]
        assert eng.rng.random(3).tolist() == plain.random(3).tolist()
    again = chain(4, depth)
    assert again[-1].rng.random(4).tolist() == engines[-1].rng.random(4).tolist()
    deep = engines[-1]
    siblings = [deep.clone().rng.random(4).tolist() for _ in range(3)]
    assert len({tuple(s) for s in siblings}) == 3
    assert deep.clone().rng.random(4).tolist() != deep.rng.random(4).tolist()


def test_importing_the_packages_leaves_torch_and_the_global_generators_alone():
    """A library changes no process-wide setting on import: torch's threads, default dtype, deterministic mode,
    grad mode and generator, NumPy's and ``random``'s global generators (train.py sets its own when it runs)."""
    pytest.importorskip("torch")
    code = textwrap.dedent("""
        import random
        import numpy as np, torch
        def snap():
            return (torch.get_num_threads(), torch.get_default_dtype(), torch.are_deterministic_algorithms_enabled(),
                    torch.is_grad_enabled(), torch.get_rng_state().tolist(), np.random.get_state()[1].tolist(),
                    random.getstate())
        torch.manual_seed(5); np.random.seed(5); random.seed(5)
        before = snap()
        import mj_env, mj_env.wrappers, mj_env.baselines
        import agents, agents.networks, agents.arena, agents.search, agents.rollouts, agents.rewards
        import agents.pretrained, agents.common_random
        assert snap() == before, [i for i, (a, b) in enumerate(zip(snap(), before)) if a != b]
        print("same")
    """)
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout.strip() == "same", done.stderr[-2000:]


def _aec_digest(seed: int, rules: str) -> str:
    env = mj_env.env(rules=rules, obs="v2")
    rng = np.random.default_rng(seed)
    h = hashlib.sha1()
    for k in range(2):
        env.reset(seed=100 * seed + k)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            h.update(obs["observation"].tobytes() + repr(reward).encode())
            if term or trunc:
                h.update(repr(info.get("settlement")).encode())
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    return h.hexdigest()


def _single_digest(seed: int, rules: str) -> str:
    env = MahjongSingleAgentVectorEnv(4, rules=rules, opponents="efficient", seed=seed, obs="v2")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    h = hashlib.sha1()
    for _ in range(40):
        mask = obs["action_mask"]
        obs, rewards, *_ = env.step((rng.random(mask.shape) * mask).argmax(1))
        h.update(obs["observation"].tobytes() + rewards.tobytes())
    return h.hexdigest()


def test_aec_and_single_agent_envs_stepped_in_threads_play_as_alone():
    """A thread-pool vector env steps its envs in threads at once: the module-level tables and caches they
    share (hand tables, pattern splits, feature rows) give each the game it plays alone with the same seeds
    (tests/test_audit_longrun.py holds the same for ``MahjongVectorEnv``)."""
    jobs = [(_aec_digest, 1, "beijing"), (_aec_digest, 2, "quemen"), (_single_digest, 3, "hebei"),
            (_single_digest, 4, "beijing")]
    together: dict[int, str] = {}
    errors: list[BaseException] = []

    def run(i, f, seed, rules):
        try:
            together[i] = f(seed, rules)
        except Exception as e:  # noqa: BLE001 (reported below, with the job)
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # interleave the threads often
    try:
        threads = [threading.Thread(target=run, args=(i, *job)) for i, job in enumerate(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    for i, (f, seed, rules) in enumerate(jobs):
        assert together[i] == f(seed, rules), (f.__name__, rules)


def test_a_training_run_that_raises_leaves_no_writer_thread_behind(tmp_path, monkeypatch):
    """``train.main`` called in one process run after run (a sweep) left TensorBoard's writer thread running after
    every run that raised (``TrainingDiverged``): one more idle thread per failed run. Now the run's log is closed
    on the way out, as at a normal end."""
    pytest.importorskip("torch")
    import train

    monkeypatch.chdir(tmp_path)
    real, calls = train.ppo_update, []

    def diverges_on_the_second(*a, **k):
        calls.append(1)
        if len(calls) % 2 == 0:
            raise train.TrainingDiverged("training diverged (here on purpose)")
        return real(*a, **k)

    monkeypatch.setattr(train, "ppo_update", diverges_on_the_second)

    def writers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.is_alive() and "tensorboard" in type(t).__module__]

    before = writers()
    for k in range(2):
        with pytest.raises(train.TrainingDiverged):
            train.main(["--exp-name", f"diverged{k}", "--total-steps", "2048", "--final-eval-hands", "0",
                        "--num-envs", "16", "--num-steps", "32", "--bc-steps", "0", "--eval-every", "0", "--hidden",
                        "32", "--arch", "mlp", "--obs", "v1", "--threads", "1", "--no-progress",
                        "--no-eval-pretrained"])
    assert writers() == before
    assert len((tmp_path / "runs" / "diverged1" / "progress.csv").read_text().splitlines()) == 2  # header, update 1
