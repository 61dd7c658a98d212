"""The pretrained players shipped with the package: the agent name ``pretrained``.

One checkpoint per rule set in ``agents/data/`` (``pretrained_<rules>.pt``), written by ``train.py``
with the command in ``PLAYERS`` and copied there unchanged. It loads like any checkpoint
(``agents.checkpoints.load_checkpoint``: ``torch.load(weights_only=True)``, its observation layout and
version checked against the code's), so a file left from another layout refuses to load.

Where the name works:

- ``agents.make_agent("pretrained", rules=...)`` and so ``python -m agents.arena --agents pretrained,rule``;
  it plays as ``PLAYERS[rules]['greedy']`` says (hebei's takes its most likely action, the others
  sample from the policy); ``pretrained:greedy`` and ``pretrained:sample`` choose;
- ``train.py --opponent-pretrained P``: a share P of the opponent-pool hands against it, and it joins
  the quick and final evaluations;
- the single-agent env, ``gym.make("mj_env/Beijing-v0", opponents="pretrained")``: ``mj_env`` does not
  import this package (it is the lower layer); it finds the name through the ``mj_env.agents`` entry point
  that ``pyproject.toml`` declares (so the package must be installed, e.g. ``pip install -e .``).

How each player was made and how it plays (the README's "The pretrained players" and docs/training_results.md
have the figures and their commands):
``PLAYERS[rules]``.
"""
from __future__ import annotations

from pathlib import Path

from mj_env.messages import brief
from mj_env.rules import RulesSpec, get_rules

DATA = Path(__file__).parent / "data"

PLAYERS: dict[str, dict] = {
    "beijing": {
        "file": "pretrained_beijing.pt",
        "command": ("python train.py --bc-steps 2048 --channels 32 --max-minutes 100 --total-steps 20000000 "
                    "--exp-name bj_bigclone100 --seed 1 --threads 1"),
        "train_minutes": 100.0,
        "greedy": False,
    },
    "hebei": {
        "file": "pretrained_hebei.pt",
        "command": ("python train.py --rules hebei --bc-steps 2048 --channels 32 --max-minutes 45 "
                    "--total-steps 8000000 --exp-name hebei_bigclone --seed 1 --threads 1"),
        "train_minutes": 45.1,
        "greedy": True,
    },
    "quemen": {
        "file": "pretrained_quemen.pt",
        "command": ("python train.py --rules quemen --bc-teacher efficient --bc-steps 2048 --channels 32 "
                    "--max-minutes 45 --total-steps 8000000 --exp-name quemen_eff45 --seed 1 --threads 1"),
        "train_minutes": 45.1,
        "greedy": False,
    },
}
"""Rule set -> the shipped player's file in ``DATA``, the ``train.py`` command that made it (cloning the rule
agent, or for quemen the efficient agent, then PPO, with eight times the default cloning data and twice the
channels; 100 minutes for beijing, 45 for hebei and quemen), its training wall time in minutes, and whether
``pretrained`` plays its most likely action (``greedy``) or samples from it. beijing's plays about 0.03 point
per hand above the rule agent (not significant on fresh walls), hebei's 0.1-0.25 and quemen's 0.3 above
it; the README's "Where the players stand" has the figures."""

NAME = "pretrained"


def available() -> tuple[str, ...]:
    """The rule sets with a shipped player."""
    return tuple(PLAYERS)


def pretrained_path(rules: RulesSpec = "beijing") -> Path:
    """The checkpoint of the player shipped for ``rules`` (a preset name or a RuleSet of a preset's name).
    A ValueError names the rule sets that have one."""
    name = get_rules(rules).name
    if name not in PLAYERS:
        raise ValueError(f"no pretrained player for rule set {name!r}; shipped for: {', '.join(available())}")
    path = DATA / PLAYERS[name]["file"]
    if not path.is_file():
        raise ValueError(f"the pretrained player for {name!r} is missing from the installation ({path})")
    return path


def load_pretrained(rules: RulesSpec = "beijing", greedy: bool | None = None, device: str = "cpu", name: str = NAME):
    """The shipped player of ``rules`` as a batched agent (``agents.networks.NetworkAgent``).
    ``greedy`` None plays it as ``PLAYERS`` says."""
    from .networks import NetworkAgent  # torch only when the player is asked for

    path = pretrained_path(rules)
    if greedy is None:
        greedy = bool(PLAYERS[get_rules(rules).name]["greedy"])
    return NetworkAgent.from_checkpoint(path, greedy=greedy, device=device, name=name, rules=rules)


def is_pretrained_spec(spec) -> bool:
    """Whether an agent name asks for the shipped player: ``pretrained``, ``pretrained:greedy`` or
    ``pretrained:sample``."""
    return isinstance(spec, str) and spec in (NAME, f"{NAME}:greedy", f"{NAME}:sample")


def make_pretrained(spec: str = NAME, rules: RulesSpec = "beijing", device: str = "cpu"):
    """The agent an agent name asks for (``is_pretrained_spec``); also the ``mj_env.agents`` entry point
    through which the single-agent env loads it."""
    if not is_pretrained_spec(spec):
        raise ValueError(f"not a pretrained player's name: {brief(spec)} (use pretrained, "
                         "pretrained:greedy or pretrained:sample)")
    greedy = None if spec == NAME else spec.endswith(":greedy")
    return load_pretrained(rules, greedy=greedy, device=device, name=spec)
