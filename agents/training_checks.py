"""What ``train.py`` checks of its arguments before anything is built or written, kept apart so that train.py
reads as PPO self-play: ``check_args`` (every flag's range and choices, ``--exp-name`` as a directory name any
file system holds, ``--rules``, the device, the network's sizes, the reward) and ``init_problem`` (a usable
``--init-from`` checkpoint whose network the flags do not contradict), then, once they are fine,
``run_dir_problem`` (whether ``runs/<exp_name>/`` can be written). Each returns what is wrong as one line
(None: nothing), which train.py says as argparse would, with exit status 2.

Also the readings of the arguments that train.py uses beside them: ``run_rules`` (the rule set ``--rules``
names), ``network_config`` (the network ``--arch`` and its sizes describe), ``init_checkpoint`` and
``flags_of_network``.

Nothing here trains, draws random numbers or writes a file. It never imports train.py: each function takes
train.py's ``Args`` (a dataclass; its fields' types and defaults are read from it).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import sys
import typing
import warnings
from pathlib import Path
from typing import Literal

from agents import rules_args
from agents.arena import MAX_SEED  # (--seed and --eval-seed: NumPy's legacy seeding takes 32 bits)
from agents.checkpoints import CheckpointWarning, load_checkpoint, warning_refused
from agents.networks import check_config, device_problem
from agents.pretrained import available as pretrained_available
from agents.pretrained import pretrained_path
from agents.rewards import RewardTransform
from agents.training_run import run_in_use
from mj_env.engine import MAX_TABLES
from mj_env.features import FEATURES_NAME
from mj_env.lines import utf8_text
from mj_env.rules import RuleSet


def network_config(args: typing.Any) -> dict:
    """The ``agents.networks`` config that ``--arch`` and its sizes describe."""
    layout = {"obs": FEATURES_NAME} if args.obs == "v2" else {}
    if args.arch == "mlp":
        return {"arch": "mlp", "hidden": [int(h) for h in args.hidden.split(",")], **layout}
    return {"arch": args.arch, "channels": args.channels, "blocks": args.blocks, **layout}


MAX_DECISIONS = 1 << 22
"""The most decisions one update may store (--num-envs x --num-steps): about 1 KiB each, 4 GiB in all."""
MAX_NAME = 100
"""The longest --exp-name (a directory name; file systems allow 255 bytes)."""
MAX_EVAL_HANDS = 100_000
"""The most walls an evaluation plays: their shuffles take about 2.2 KiB each (100,000: about 0.3 GiB in all)
and, against the rule agent, roughly 1.5 ms each on one core: minutes per opponent (measured)."""


WINDOWS_FORBIDDEN = '<>:"|?*'
"""Characters no Windows file name holds (``a:b`` names an NTFS stream of ``a``, not a directory)."""
WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
                             *(f"{d}{i}" for d in ("COM", "LPT") for i in "123456789\u00b9\u00b2\u00b3")})
"""Windows's device names: COM and LPT with a digit, the superscript digits 1-3 (U+00B9, U+00B2, U+00B3) included,
which Windows reads as digits there (as Python 3.13's ``ntpath.isreserved`` lists them)."""


@functools.lru_cache(maxsize=8)
def _rules_of_text(text: str) -> RuleSet:
    return rules_args.rules_option(text)


def run_rules(args: typing.Any) -> RuleSet:
    """The rule set ``--rules`` names (``agents.rules_args.rules_option``: a preset's name or the JSON object form), for
    the envs, the reward, the agents, the evaluations and the checkpoints. ``args.rules`` stays the text given
    (args.json keeps it); it is parsed once, by ``check_args``, and the rule set kept. A ValueError names what is
    wrong (``check_args`` says it as --rules' error)."""
    return _rules_of_text(args.rules) if isinstance(args.rules, str) else rules_args.rules_option(args.rules)


def windows_device(name: str) -> bool:
    """Whether Windows reads ``name`` as a device (``CON``, ``nul.txt``, ``Com1 ``): its part before the first
    '.', without trailing spaces, in any case."""
    return name.split(".")[0].rstrip(" ").upper() in WINDOWS_DEVICES


MAX_FLOAT_FLAG = 1e9
"""No flag that takes a real number is larger (coefficients, rates, scales, minutes; integer flags have
their own ranges): a --clip-coef of 1e39 passed the checks and then failed inside torch.clamp, which takes
float32 scalars, after the run directory was written."""


def check_args(args: typing.Any, given: frozenset[str] = frozenset()) -> str | None:
    """What is wrong with ``args`` for a run (None: nothing), found before anything is built or written.
    ``given``: the fields named on the command line (`flags_given`), where a value equal to the default matters."""
    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    hints = typing.get_type_hints(type(args))
    for field in dataclasses.fields(args):
        value = getattr(args, field.name)
        float_field = float in (hints[field.name], *typing.get_args(hints[field.name]))
        if not (isinstance(value, float) or float_field and isinstance(value, int) and not isinstance(value, bool)):
            continue  # (an Args built in Python may hold an int where the command line gives a float)
        if not math.isfinite(value):
            return f"{flag(field.name)} must be a finite number, not {value}"
        if abs(value) > MAX_FLOAT_FLAG:  # torch takes them as float32 scalars
            return f"{flag(field.name)} must be at most {MAX_FLOAT_FLAG:g} in size, not {value:g}"
    name = args.exp_name
    if any("\udc80" <= c <= "\udcff" for c in name):  # bytes the locale could not decode (surrogateescape)
        return (f"--exp-name '{utf8_text(name)[:MAX_NAME]}' is not text in the encoding of file names here "
                f"({sys.getfilesystemencoding()}): give an ASCII name, or run under a UTF-8 locale (LANG=C.UTF-8, or "
                "PYTHONUTF8=1) with a name that is UTF-8")
    if not name or name == "." or ".." in name or any(c in name for c in "/\\,") or not name.isprintable():
        return (f"--exp-name must be a plain directory name under runs/ (no '/', '\\', '..', ',' or control "
                f"characters; the arena's --agents separates checkpoints by commas), not {name[:MAX_NAME]!r}")
    if any(c in name for c in WINDOWS_FORBIDDEN) or name.endswith(".") or windows_device(name):
        return (f"--exp-name must be a name Windows can hold too (so runs/ copies anywhere): no {WINDOWS_FORBIDDEN} "
                f"characters, no '.' at the end, not a device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, also with a "
                f"superscript 1-3, CONIN$, CONOUT$, with or without an extension), not {name[:MAX_NAME]!r}")
    if name != name.strip():  # a blank name, or spaces at an end: invisible in a listing and in the logs
        return f"--exp-name must not begin or end with a space, not {name[:MAX_NAME]!r}"
    if len(name.encode()) > MAX_NAME:
        return f"--exp-name must be at most {MAX_NAME} bytes long, not {len(name.encode())}"
    # name: (lowest, highest) allowed
    ranges = {"total_steps": (0, math.inf), "num_envs": (1, MAX_TABLES), "num_steps": (1, math.inf),
              "num_minibatches": (1, math.inf), "update_epochs": (1, math.inf), "pool_size": (1, math.inf),
              "snapshot_every": (1, math.inf), "keep_checkpoints": (0, math.inf), "eval_every": (0, math.inf),
              "eval_hands": (1, MAX_EVAL_HANDS),
              "final_eval_hands": (0, MAX_EVAL_HANDS), "bc_steps": (0, math.inf), "bc_epochs": (1, math.inf),
              "threads": (1, os.cpu_count() or 1), "seed": (0, MAX_SEED), "eval_seed": (0, MAX_SEED),
              "gamma": (0, 1), "gae_lambda": (0, 1), "opponent_prob": (0, 1), "opponent_rule": (0, 1),
              "opponent_pretrained": (0, 1), "ent_coef": (0, math.inf), "vf_coef": (0, math.inf),
              "bc_vf_coef": (0, math.inf)}
    for name, (low, high) in ranges.items():
        value = getattr(args, name)
        if not low <= value <= high:
            allowed = f"at least {low}" if high == math.inf else f"in [{low}, {high:,}]"
            return f"{flag(name)} must be {allowed}, not {value}"
    for field in dataclasses.fields(args):  # choices (an Args built in Python bypasses the command line's check)
        choices = typing.get_args(hints[field.name]) if typing.get_origin(hints[field.name]) is Literal else ()
        if choices and getattr(args, field.name) not in choices:
            return f"{flag(field.name)} must be one of {', '.join(choices)}, not {getattr(args, field.name)!r}"
    optional = ("target_kl", "max_minutes")  # none: off
    for name in ("learning_rate", "bc_learning_rate", "clip_coef", "max_grad_norm", "reward_scale", *optional):
        value = getattr(args, name)
        if value is not None and value <= 0:
            return f"{flag(name)} must be greater than 0{' (or none)' * (name in optional)}, not {value}"
    if args.num_envs * args.num_steps > MAX_DECISIONS:
        return (f"--num-envs x --num-steps must be at most {MAX_DECISIONS:,} decisions per update, not "
                f"{args.num_envs:,} x {args.num_steps:,}")
    try:
        rules = run_rules(args)
    except ValueError as e:  # a RuleError: the preset, the JSON, the field (the one meant, if misspelt) or its value
        return f"--rules: {e}"
    if rules.hands_per_episode != 1:  # the evaluations, and the arena command printed to repeat them, deal one hand
        return (f"--rules: hands_per_episode={rules.hands_per_episode}: train.py plays one hand per episode, as its "
                "evaluations in the duplicate arena do (use hands_per_episode=1)")
    if args.opponent_rule + args.opponent_pretrained > 1.0:
        return (f"--opponent-rule ({args.opponent_rule}) and --opponent-pretrained ({args.opponent_pretrained}) "
                "are shares of the same hands: their sum must be at most 1")
    if args.opponent_pretrained > 0 and rules.name not in pretrained_available():
        return (f"--opponent-pretrained: no pretrained player is shipped for {rules.name!r} "
                f"(shipped for: {', '.join(pretrained_available())})")
    problem = device_problem(args.device)
    if problem:
        return problem
    arches = typing.get_args(hints["arch"])  # every architecture's sizes: a size flag given is checked, used or not
    for arch in (args.arch, *(a for a in arches if a != args.arch)):
        try:
            config = network_config(dataclasses.replace(args, arch=arch))
        except ValueError:
            return f"--hidden must be layer widths separated by commas (like 256,256), not {args.hidden!r}"
        try:
            check_config(config)
        except ValueError as e:  # the config's keys are the flags' names: model_config['channels'] is --channels
            said = re.sub(r"model_config\['(\w+)'\]", lambda m: f"--{m.group(1)}", str(e))
            return f"network{'' if arch == args.arch else f' (the --arch {arch} sizes)'}: {said}"
    try:
        RewardTransform(args.reward, rules, scale=args.reward_scale, shaping_coef=args.shaping_coef)
    except ValueError as e:  # the rules, or a scale whose rewards would not be finite float32 numbers
        return str(e).replace("reward scale", "--reward-scale").replace("shaping_coef", "--shaping-coef")
    return init_problem(args, given)


def init_checkpoint(args: typing.Any) -> Path | str | None:
    """The checkpoint ``--init-from`` names (None: a new network); a ValueError where no player is shipped. A
    path stays the string given, which ``load_checkpoint`` checks (``Path("")`` would be the current folder)."""
    if args.init_from is None:
        return None
    return pretrained_path(run_rules(args)) if args.init_from == "pretrained" else args.init_from


def flags_of_network(config: dict) -> dict:
    """The values of --arch, its sizes and --obs that describe a network's ``config``."""
    arch = config.get("arch", "mlp")
    out = {"arch": arch, "obs": "v2" if config.get("obs") == FEATURES_NAME else "v1"}
    if arch == "mlp":
        out["hidden"] = ",".join(str(h) for h in config["hidden"])
    else:
        out.update(channels=config["channels"], blocks=config["blocks"])
    return out


def init_problem(args: typing.Any, given: frozenset[str] = frozenset()) -> str | None:
    """What is wrong with ``--init-from`` (None: nothing or not given): a file that is not a usable checkpoint,
    no shipped player, a network flag given otherwise than the checkpoint's network, cloning asked for. A flag
    counts as given when it differs from its default or is in ``given`` (named on the command line, even at
    its default value: ``--arch tiles`` with an mlp checkpoint)."""
    try:
        path = init_checkpoint(args)
        if path is None:
            return None
        with warnings.catch_warnings(record=True):  # (main loads it again, and says it there: once)
            model, _ = load_checkpoint(path)
    except ValueError as e:  # CheckpointError names the file and what is wrong
        return f"--init-from: {e}"
    except CheckpointWarning as w:  # made an exception by the warning filters in force (-W error): refused
        return f"--init-from: {warning_refused(w)}"
    defaults = type(args)()
    for name, value in flags_of_network(model.config).items():
        wanted = getattr(args, name)
        if (name in given or wanted != getattr(defaults, name)) and wanted != value:
            return (f"--{name} {wanted}: the network of --init-from {args.init_from} has {name} {value}; leave "
                    f"--{name} out, or give {value}")
    if args.bc_steps != 0 and ("bc_steps" in given or args.bc_steps != defaults.bc_steps):
        return "--bc-steps: --init-from starts from the checkpoint's weights, without cloning; leave --bc-steps out"
    return None


def run_dir_problem(args: typing.Any) -> str | None:
    """Why ``runs/<exp_name>/`` cannot be written (None: it can): runs/ is not a directory, or the run exists
    and ``--overwrite`` is off, or it is a link (never followed, never deleted), or ``--overwrite`` would delete
    the ``--init-from`` checkpoint or the directory of a run still going (``lock_run_dir``)."""
    runs, run = Path("runs"), Path("runs") / args.exp_name
    if runs.exists() and not runs.is_dir():
        return f"runs is not a directory: the run would be written to {run}/"
    if runs.is_symlink() and not runs.exists():  # mkdir would say only "runs: File exists", once the run had begun
        return (f"runs is a symbolic link to a folder that does not exist ({os.readlink(runs)}): the run would be "
                f"written to {run}/")
    if run.is_symlink():
        return f"--exp-name: {run} is a symbolic link; remove it or choose another name"
    if run.exists() and not args.overwrite:
        return (f"--exp-name: {run}/ exists (an earlier run); choose another --exp-name, or --overwrite to "
                "delete it and start again")
    if run.exists() and not run.is_dir():
        return f"--exp-name: {run} exists and is not a directory"
    if args.overwrite and run.is_dir():
        problem = run_in_use(run)
        if problem:
            return problem
    start = init_checkpoint(args) if args.init_from not in (None, "pretrained") else None
    if args.overwrite and run.is_dir() and start is not None and Path(start).resolve().is_relative_to(run.resolve()):
        return (f"--overwrite would delete {run}/, which holds the --init-from checkpoint {args.init_from}: copy "
                "it out of the run first, or choose another --exp-name")
    return None
