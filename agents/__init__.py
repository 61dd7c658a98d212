"""Agents for mj_env: baselines, policy networks, reward options and the duplicate arena.

==========================  ==========================================================
module                      what
==========================  ==========================================================
``agents.base``             the batched ``Agent`` protocol: ``act(obs, rng) -> (n,) actions``
``agents.random_agent``     ``RandomAgent``: uniform over the legal actions (``mj_env.baselines``)
``agents.rule_based``       ``RuleBasedAgent``: discards toward a win (惠牌 wild), keeps 惠牌,
                            claims only when it gets closer, always wins; ``EfficientAgent``:
                            the same, ties among the nearest discards broken by 进张
``agents.networks``         ``PolicyValueNet`` (MLP), ``TileNet`` (per-tile, train.py's default),
                            masked categorical, ``NetworkAgent``
``agents.checkpoints``      checkpoint files: ``save_checkpoint``, ``load_checkpoint`` (every field checked
                            before a network is built), ``CheckpointError``, ``CheckpointWarning``
``agents.rewards``          reward options for training (points, scaled, sign, shaped)
``agents.arena``            ``python -m agents.arena``: duplicate-format comparison (play, command line)
``agents.arena_report``     the arena's statistics and reports: ``summarize``, ``mean_ci95``,
                            strict JSON, the table, the plot
``agents.rules_args``       ``--rules`` of the command lines: a preset or a JSON rule set
``agents.common_random``    common random numbers for the arena (``--common-random``)
``agents.curve``            ``python -m agents.curve``: a run's learning curve from its progress.csv
``agents.plot_text``        names in any script in the arena's and the curve's pictures
``agents.pretrained``       the shipped pretrained players (agent name ``pretrained``)
``agents.rollouts``         rollout values of candidate actions (policy improvement by rollouts)
``agents.search``           ``RolloutSearchAgent``: lookahead by determinized rollouts
``agents.play``             ``python -m agents.play``: a person's game against the agents at the
                            terminal
``agents.training_checks``  train.py's arguments checked before anything is built or written;
                            needs the ``train`` extra, not imported here
``agents.training_run``     train.py's run directory (its lock), logs and stopping (Ctrl-C,
                            SIGTERM); needs the ``train`` extra, not imported here
==========================  ==========================================================

``make_agent("random" | "rule" | "efficient" | "pretrained" | "path/to/ckpt.pt[:greedy|:sample]")`` builds one by name.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np

from mj_env.baselines import BASELINES, is_declared_agent, make_baseline, make_named_agent, plugin_agent_names
from mj_env.messages import brief
from mj_env.rules import RulesSpec

from .base import Agent
from .pretrained import is_pretrained_spec, make_pretrained
from .random_agent import RandomAgent
from .rule_based import EfficientAgent, RuleBasedAgent

__all__ = ["Agent", "EfficientAgent", "RandomAgent", "RuleBasedAgent", "make_agent"]


def check_flag(name: str, value) -> None:
    """A TypeError unless ``value`` is True or False (NumPy's too): a truthy string such as "no" is no flag."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {brief(value)}")


def path_problem(path: str) -> str | None:
    """Why the file system refuses to look ``path`` up at all, or None: a name longer than it allows
    (ENAMETOOLONG), a loop of symbolic links (ELOOP), a folder it may not search (EACCES), a NUL byte or a lone
    surrogate in it; an empty path.
    ``Path.is_file`` and ``exists`` answer False or raise for these depending on the Python version (3.13's
    ``resolve`` no longer raises on a loop), so ``os.stat`` asks, the same on every version; a missing file
    is no problem here."""
    if not path:  # ("" would be looked up as the current folder, e.g. the agent ':greedy')
        return "the path is empty: it names no file"
    shown = f"{path[:80]}{'...' if len(path) > 80 else ''}"
    if "\0" in shown or any("\ud800" <= c <= "\udfff" for c in shown):
        shown = repr(shown)  # a NUL byte would not show, a lone surrogate could not be printed
    try:
        os.stat(path)
    except UnicodeEncodeError as e:  # a lone surrogate (from Python or a JSON \ud800 escape): no file name holds it
        what = " (a lone surrogate)" if "\ud800" <= path[e.start] <= "\udfff" else ""
        return (f"{shown}: a path cannot hold {path[e.start]!r}{what}: the file system's encoding, "
                f"{e.encoding}, cannot write it")
    except ValueError:  # os.stat refuses a NUL byte before asking the file system
        return f"{shown}: a path cannot hold a NUL byte"
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        if e.errno == errno.ELOOP:
            return f"{shown}: a loop of symbolic links"
        return f"{shown}: {e.strerror or type(e).__name__}"
    return None


def checkpoint_play(spec: str) -> tuple[str, bool]:
    """A checkpoint spec's path and whether it plays greedily: ``PATH:greedy`` plays the most likely action,
    ``PATH`` and ``PATH:sample`` sample from the policy (as ``pretrained:sample`` does)."""
    if spec.endswith(":greedy"):
        return spec[: -len(":greedy")], True
    return spec.removesuffix(":sample"), False


def is_plugin_spec(spec: str) -> bool:
    """Whether ``spec`` (``NAME`` or ``NAME:...``) names an agent of another installed package, through the
    ``mj_env.agents`` entry points (``pretrained``, which this package declares, is ``is_pretrained_spec``'s)."""
    return spec.split(":", 1)[0] != "pretrained" and is_declared_agent(spec)


def other_plugins() -> str:
    """", name" for each agent name another installed package declares, for the lists of known names (not one
    a baseline's name shadows: ``rule`` is always the rule agent)."""
    return "".join(f", {name}" for name in plugin_agent_names() if name != "pretrained" and name not in BASELINES)


def make_agent(spec, rules: RulesSpec = "beijing", device: str = "cpu"):
    """An agent from its name: ``random``, ``rule``, ``efficient`` (``mj_env.baselines``), ``pretrained`` (the player shipped for ``rules``,
    ``agents.pretrained``; played as that player's ``PLAYERS`` entry says; ``pretrained:greedy`` or
    ``pretrained:sample`` choose), a name that an installed package declares in the ``mj_env.agents`` entry
    points (``NAME`` or ``NAME:...``, made as ``mj_env.baselines.make_named_agent`` makes it, as the single-agent
    env's ``opponents`` are), or a checkpoint path written by
    ``train.py``, a str or a path object (``PATH:greedy`` plays the most likely action instead of sampling,
    ``PATH:sample`` samples as ``PATH`` does). A path
    object always names a file: ``Path("rule")`` is the checkpoint ``./rule``, not the rule agent. A network agent's
    ``device`` that cannot run here is a ValueError (``agents.networks.device_problem``)."""
    is_path = isinstance(spec, os.PathLike)
    if is_path:
        spec = os.fspath(spec)
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"an agent is named by a non-empty str (random, rule, efficient, pretrained or the path of "
                         f"a checkpoint), not {str(spec)[:60]!r}")

    if spec in BASELINES and not is_path:
        return make_baseline(spec, rules)
    if is_pretrained_spec(spec) and not is_path:
        return make_pretrained(spec, rules=rules, device=device)
    if not is_path and is_plugin_spec(spec):
        return make_named_agent(spec, rules)
    path, greedy = checkpoint_play(spec) if not is_path else (spec, False)
    problem = path_problem(path)
    if problem:
        raise ValueError(f"agent {spec[:80]!r}: {problem}")

    if Path(path).exists() and not Path(path).is_file():
        raise ValueError(f"agent {spec[:80]!r}: {path[:80]} is not a checkpoint file (a directory or a device)")
    if not Path(path).is_file() and is_path:
        raise ValueError(f"agent {spec[:80]!r}: no such checkpoint file: {path[:80]}")
    if not Path(path).is_file():
        raise ValueError(f"unknown agent {spec!r}: use random, rule, efficient, pretrained{other_plugins()} or the path "
                         "of a checkpoint")
    # torch only when a network is asked for, and once the name is known to be a file: a misspelt name or a bad
    # path is a ValueError with or without torch (the train extra)
    from .networks import NetworkAgent

    return NetworkAgent.from_checkpoint(path, greedy=greedy, device=device, name=spec, rules=rules)
