"""Checkpoint files of the networks of ``agents.networks``: what one holds, how it is written, and the checks
that stand between a file from anywhere and a network that plays.

A checkpoint (``save_checkpoint``) is a dict of tensors and plain data only, written by ``torch.save``:

=================  ======  =====================================================================
key                type    what
=================  ======  =====================================================================
``format``         str     ``CHECKPOINT_FORMAT`` (``mj_agents.policy/1``)
``obs_name``       str     the observation layout the network takes (``mj_obs_v1`` or ``mj_obs_v2``)
``obs_version``    int     that layout's version
``obs_shape``      list    the shape of one observation in it (``[14, 34]`` or ``[18, 34]``)
``n_actions``      int     the number of actions (127)
``model_config``   dict    the network's config (``build_network``)
``state_dict``     dict    its weights: dense CPU tensors
``meta``           dict    the writer's own keywords (rules, update, args...), plain data
=================  ======  =====================================================================

``load_checkpoint`` checks before anything is built: the file is looked up and its zip archive checked
(``_check_zip``: no compressed or overlapping members, CRC-32s that match, a pickle that reads to its end
naming no global longer than torch.load takes) before ``torch.load`` reads it
with ``weights_only=True``, so a crafted file cannot run code; then the format, every key's type, and the
observation layout: its name, version and shape must be one of ``agents.networks.LAYOUTS``, so a checkpoint
made for another layout (or another version of one) is refused rather than fed planes it was not trained on;
the number of actions, the rule set ``meta`` names, and the config, built on the meta device only (no memory,
no initialisation) to check every weight's name, dtype, shape and finiteness against, and that the file
stores every weight's values (not a view reading them again, which let a file of kilobytes load hundreds of
megabytes). Only then does the network get memory and the file's weights. A checkpoint broken in any way
raises ``CheckpointError`` with a message naming the file and what is wrong; keys beside the format's load
with a ``CheckpointWarning``.
``save_checkpoint`` runs the same checks on what it would write and writes nothing that would not load.
"""
from __future__ import annotations

import dis
import os
import pickle
import pickletools
import re
import sys
import threading
import warnings
import zipfile
from pathlib import Path
from typing import Literal, overload

# first: without torch, agents.networks's ModuleNotFoundError says what installs it
from .networks import ARCHS, LAYOUTS, PolicyValueNet, TileNet, build_network, device_problem, obs_layout

# isort: split
import numpy as np
import torch
from torch import nn

import mj_env
from mj_env.actions import N_ACTIONS
from mj_env.messages import brief, printable, user_stacklevel
from mj_env.records import rules_json
from mj_env.rules import RuleError, RuleSet, get_rules

from . import path_problem

CHECKPOINT_FORMAT = "mj_agents.policy/1"


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used; the message names the file and what is wrong."""


class CheckpointWarning(UserWarning):
    """A checkpoint that loads, with keys beside those of its format that this version does not read."""


def warning_refused(w: CheckpointWarning) -> CheckpointError:
    """The CheckpointError a command line tells (one line, no traceback) for a CheckpointWarning that the warning
    filters in force made an exception (``python -W error``, ``PYTHONWARNINGS=error::UserWarning``): the file is
    refused, as those filters ask. A Python caller gets the warning itself, as the filters say."""
    return CheckpointError(f"{w}; refused, as the warning filters in force (-W error) make this warning an error")


_PAYLOAD_TYPES = {"format": str, "obs_name": str, "obs_version": int, "obs_shape": list, "n_actions": int,
                  "model_config": dict, "state_dict": dict, "meta": dict}
"""Every key of a checkpoint and the type of its value."""
_FORMAT_META_KEYS = ("obs_name", "obs_version", "model_config")
"""The keys of the file that ``load_checkpoint`` adds to its ``meta`` (over any of ``meta``'s own of those names, in
a file written before ``save_checkpoint`` refused them as keywords)."""


def _plain(value, where: str):
    """``value`` as data that ``torch.load(weights_only=True)`` reads back (tuples become lists, numpy
    scalars Python numbers); a TypeError for anything else."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"{where} is a {type(value).__name__}; a checkpoint holds only str-keyed dicts, lists, "
                    "str, int, float, bool and None")


def save_checkpoint(path: str | Path, model: nn.Module, **meta) -> Path:
    """Write the weights with the observation layout and ``meta`` (rules, step, args...: plain data only; ``rules``
    a preset's name, or a RuleSet or its object form ``{"name": preset, field: value}``, stored as a record writes it;
    any keyword but ``obs_name``, ``obs_version`` and ``model_config``, which ``load_checkpoint``'s meta gives from
    the file itself: those are a ``CheckpointError``, as they would be lost).
    ``model`` is a network of this module (``build_network``, ``PolicyValueNet``, ``TileNet``): the file stores
    its ``config`` and rebuilds it from that, so another module cannot be saved in this format. Nothing is written
    (a ``CheckpointError``) when ``load_checkpoint`` would refuse the file (``meta["rules"]`` no rule set, non-finite
    weights...) or ``path`` is a directory or under a file; the file is written to ``path.tmp`` and renamed (a write
    that fails, on a full disk say, is an ``OSError`` naming ``path`` and leaves no ``path.tmp`` behind)."""
    if not isinstance(model, tuple(ARCHS.values())):
        raise CheckpointError(f"save_checkpoint saves the networks of agents.networks (build_network(config): "
                              f"{', '.join(c.__name__ for c in ARCHS.values())}), got {type(model).__name__}; "
                              "save another module with torch.save and wrap it as an agent with name and act(obs, rng)")
    problem = path_problem(str(path))  # a NUL byte or a lone surrogate: open() would raise a bare ValueError
    if problem:
        raise CheckpointError(f"not saved: {problem}")
    taken = [k for k in _FORMAT_META_KEYS if k in meta]
    if taken:  # load_checkpoint's meta gives the file's own values under these names: the caller's would be lost
        raise CheckpointError(f"{path}: not saved: meta key{'s' if len(taken) > 1 else ''} {', '.join(taken)} "
                              f"{'are' if len(taken) > 1 else 'is'} the checkpoint's own (load_checkpoint's meta "
                              "gives the file's observation layout and model config under those names, and would "
                              "drop yours); save under another name")
    path = Path(path)
    rules = meta.get("rules")
    if isinstance(rules, dict):  # an object form: as the RuleSet it names (a bad one is refused below, by name)
        try:
            rules = get_rules(rules)
        except (RuleError, TypeError):
            pass
    if isinstance(rules, RuleSet):  # the rule set trained under, as a record writes it (a preset's name, or its
        meta = {**meta, "rules": rules_json(rules)}  # object form with only the fields changed from the preset)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "obs_name": obs_layout(model),
        "obs_version": LAYOUTS[obs_layout(model)][0],
        "obs_shape": LAYOUTS[obs_layout(model)][1],
        "n_actions": N_ACTIONS,
        "model_config": _plain(model.config, "model_config"),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "meta": _plain(meta, "meta"),
    }
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:  # load_checkpoint's own checks, before anything is written: a file saved is a file that loads
        _check_payload(payload, build=False)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: not saved, it would not load: {e}") from None
    for target in (path, tmp):
        if target.is_dir():
            raise CheckpointError(f"{target}: is a directory; give a file name")
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise CheckpointError(f"{path}: {folder} is not a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        torch.save(payload, tmp)
    except BaseException as e:  # a full disk, Ctrl-C: no half-written path.tmp is left behind
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(e, RuntimeError):  # torch says only "basic_ios::clear: iostream error" or "unexpected pos"
            said = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
            raise OSError(f"{path}: not saved, torch.save could not write {tmp.name} ({said[:200]}); is the disk "
                          "full?") from e
        raise
    tmp.replace(path)
    return path


_LOAD_LOCK = threading.Lock()
"""Held around ``torch.load`` and its ``warnings.catch_warnings`` (``_read``); a forked child gets a new one
(``_new_load_lock_in_forked_children``), the parent's may be held by a thread the child does not have."""


def _new_load_lock_in_forked_children() -> None:
    """A process forked while a thread of the parent was loading (Gymnasium's ``AsyncVectorEnv`` with the default
    ``fork``, its envs playing network opponents) gets a free ``_LOAD_LOCK``: the parent's may be held by a thread
    the child does not have, and would never be released there."""
    global _LOAD_LOCK
    _LOAD_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_load_lock_in_forked_children)


_LONGEST_REASON = 500
"""The most characters of torch.load's own reason that ``_read``'s CheckpointError quotes (the rest cut,
"...")."""


def _torch_load(path: Path):
    """torch.load of a checkpoint file, a call of its own: torch.load warns of some files with stacklevel=2
    ("'torch.load' received a zip file that looks like a TorchScript archive"), a warning of this line, not
    of a torch module."""
    return torch.load(path, map_location="cpu", weights_only=True)


_TORCH_LOAD_LINE = max(line for _, line in dis.findlinestarts(_torch_load.__code__) if line is not None)
"""The line of ``_torch_load``'s call of torch.load, to which torch's warnings with stacklevel=2 point."""


def _read(path: Path):
    """The unpickled payload of ``path``, read with ``weights_only=True``: tensors and plain data only,
    nothing in the file is run."""
    problem = path_problem(str(path))  # a loop of links or a folder that may not be searched is no missing file
    if problem:
        raise CheckpointError(problem)
    try:
        if not path.exists():
            raise CheckpointError(f"{path}: no such file")
        if not path.is_file():
            raise CheckpointError(f"{path}: not a file")
        if path.stat().st_size == 0:
            raise CheckpointError(f"{path}: the file is empty")
    except OSError as e:  # the file changed between path_problem's look and these (path_problem names the rest)
        raise CheckpointError(f"{path}: {e.strerror or type(e).__name__}") from None
    _check_zip(path)
    try:
        # catch_warnings swaps the process's one filter list: two threads inside it at once (envs with network
        # opponents made in a thread pool, a server loading agents per game) could leave "ignore" behind for good.
        # Only torch's own warnings are ignored: the list is every thread's, and a blanket "ignore" dropped any
        # warning another thread raised while torch.load ran
        # (and torch.load's own, which name the line that called it: _torch_load's)
        with _LOAD_LOCK, warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"torch(\.|$)")
            warnings.filterwarnings("ignore", module=re.escape(__name__) + "$", lineno=_TORCH_LOAD_LINE)
            return _torch_load(path)
    except Exception as e:  # whatever torch raises on a bad file becomes one clear error
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        # torch's weights-only refusal ends with "<the reason>", "Check the documentation ..."
        reason = lines[-2] if isinstance(e, pickle.UnpicklingError) and len(lines) > 1 else " ".join(lines)
        if len(reason) > _LONGEST_REASON:  # torch quotes the file's own bytes (its byteorder): any length
            reason = reason[:_LONGEST_REASON] + "..."
        reason = printable(reason)  # torch quotes the file's own names (a GLOBAL, a member): no terminal escapes
        # a file that is no zip archive is read as torch's old pickle format, whose errors say little ("KeyError: 101")
        kind = "" if zipfile.is_zipfile(path) else "; nor is it the zip archive that torch.save writes"
        raise CheckpointError(f"{path}: not a checkpoint that loads with torch.load(weights_only=True), which "
                              f"reads only tensors and plain data ({type(e).__name__}: {reason}){kind}") from e


def _check_zip(path: Path) -> None:
    """torch.save writes a zip archive of stored (uncompressed) members with CRC-32 checksums, which
    torch.load does not verify. Refused before torch reads anything: a compressed member, or members
    whose sizes add up to more than the file (overlapping ones), since either lets a small file unpack
    to any size; and a member whose checksum does not match (a damaged file, which would load wrong
    weights); and a pickle (``data.pkl``) that does not read to its end or names a global of over
    ``_LONGEST_GLOBAL`` characters, whose refusal by torch.load would take hours, or nests values more than
    ``_DEEPEST`` deep, which could crash it. A checksum of 0 is not
    checked: torch writes 0 when told not to compute them (``torch.serialization.set_crc32_options(False)``).
    A file that begins as a zip archive but lacks its end is refused as cut short (a copy or a save that did
    not finish: torch.load says "Invalid argument"); any other file that is not a zip archive is left to
    torch.load, which refuses it."""
    problem = None
    try:
        if not zipfile.is_zipfile(path):
            with open(path, "rb") as f:
                head = f.read(4)
            if head == b"PK\x03\x04":  # a zip archive's first member: torch.load would say "Invalid argument"
                problem = ("cut short or damaged: it begins as the zip archive that torch.save writes, but its end "
                           "(the archive's directory) is missing; a copy or a save that did not finish?")
            else:
                return
        else:
            problem = _zip_problem(path)
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError,
            EOFError) as e:
        raise CheckpointError(f"{path}: a damaged archive ({type(e).__name__}: {brief(str(e))})") from None
    if problem:
        raise CheckpointError(f"{path}: {problem}")


def _zip_problem(path: Path) -> str | None:
    """What ``_check_zip`` refuses in the zip archive ``path`` (None: nothing); zipfile's errors pass through."""
    problem = None
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        packed = [i.filename for i in infos if i.compress_type != zipfile.ZIP_STORED or i.file_size > i.compress_size]
        if packed:
            problem = (f"member {brief(packed[0])} is compressed; torch.save stores records uncompressed, and a "
                       "compressed one could unpack to any size")
        elif (unpacked := sum(i.file_size for i in infos)) > (size := path.stat().st_size):
            problem = (f"its members add up to {unpacked:,} bytes, more than the file's {size:,}: they "
                       "overlap, and would unpack to more than the file holds")
        else:
            for i in infos:
                if i.CRC == 0:
                    continue
                try:
                    with z.open(i) as f:  # zipfile checks the CRC-32 as the member is read to its end
                        while f.read(1 << 20):
                            pass
                except zipfile.BadZipFile:
                    problem = f"a damaged file: its member {brief(i.filename)} fails its CRC-32 check"
                    break
            else:
                problem = _pickle_problem(path, infos)
    return problem


_LONGEST_GLOBAL = 1000
"""The longest name (module and name) a GLOBAL of a checkpoint's pickle may give: torch.load's message for
a global it refuses runs a regular expression whose time grows as the square of the name's length (a name of
20,000 characters took 18 s here, one of a megabyte would take hours); the names torch.load takes are far
shorter (``torch._utils._rebuild_tensor_v2``)."""


_DEEPEST = 10_000
"""The deepest a checkpoint's pickle may nest values (a tuple in a tuple ...): torch.save's are a few levels
deep, and meta is plain data, which save_checkpoint copies by recursion. A tuple nested a million deep, one
byte a level, ended torch.load with a segmentation fault (its hash recurses in C); 100,000 did not."""

_KEEPS_CONTAINER = frozenset({"APPEND", "APPENDS", "SETITEM", "SETITEMS", "ADDITEMS", "BUILD"})
_MEMO_PUT = frozenset({"PUT", "BINPUT", "LONG_BINPUT"})
_MEMO_GET = frozenset({"GET", "BINGET", "LONG_BINGET"})


class _Depth:
    """How deep the values of a pickle nest, followed opcode by opcode (``pickletools.genops``) on a stack of
    depths: a value made of others (a tuple, a call's result) is one deeper than the deepest of them; one that
    others are put into (a list appended to, a dict set) at least one deeper than each of them. The memo keeps a
    value's depth as it was when put: a list or dict filled after that counts as it was wherever it is got from
    the memo, so lists can nest deeper than counted; Python guards its recursion through lists and dicts, and
    the tuples whose hash recursed in C until the process ended are made of finished items, counted exactly
    (tests/test_session47_coverage_last.py loads lists a million deep so)."""

    def __init__(self) -> None:
        self.stack: list[int | None] = []  # None: a mark
        self.memo: dict = {}

    def _pop(self) -> int:
        return (self.stack.pop() or 0) if self.stack else 0

    def step(self, op, arg) -> int:
        """Follow one opcode; the depth of the value it leaves on top (0: none)."""
        stack, name = self.stack, op.name
        if name in _MEMO_PUT or name == "MEMOIZE":
            self.memo[arg if name in _MEMO_PUT else len(self.memo)] = (stack[-1] or 0) if stack else 0
            return 0
        if name in _MEMO_GET:
            stack.append(self.memo.get(arg, 0))
            return stack[-1] or 0
        if name == "MARK":
            stack.append(None)
            return 0
        if name == "DUP":
            stack.append(stack[-1] if stack else 0)
            return stack[-1] or 0
        before = op.stack_before
        items: list[int] = []
        if pickletools.markobject in before:  # the items above the last mark, and the mark
            while stack and (top := stack[-1]) is not None:
                items.append(top)
                stack.pop()
            if stack:
                stack.pop()
        below = [self._pop() for _ in range(len(before) - (2 if pickletools.markobject in before else 0))]
        if not op.stack_after:
            return 0
        if name in _KEEPS_CONTAINER and below:
            inner = below[:-1] + items
            depth = max(below[-1], 1 + max(inner)) if inner else below[-1]
        else:
            inner = below + items
            depth = 1 + max(inner) if inner else 0
        stack.append(depth)
        return depth


def _pickle_problem(path: Path, infos: list[zipfile.ZipInfo]) -> str | None:
    """What ``_check_zip`` refuses in the pickle (``data.pkl``) of the archive ``path``, whose members
    ``infos`` are stored and sized as ``_zip_problem`` checked them (None: nothing): a GLOBAL whose name is
    longer than ``_LONGEST_GLOBAL``, or a pickle that does not read to its end (where such a name could run
    on to the end of the file)."""
    for i in infos:
        if not i.filename.endswith("data.pkl"):  # torch.save's pickle: <archive>/data.pkl
            continue
        try:
            with open(path, "rb") as f:  # as stored: zipfile fails a checksum of 0 (torch's "not computed")
                f.seek(i.header_offset)
                head = f.read(30)  # the member's local header, then its name and extra field, then its bytes
                f.seek(i.header_offset + 30 + int.from_bytes(head[26:28], "little")
                       + int.from_bytes(head[28:30], "little"))
                data = f.read(i.compress_size)
            depth = _Depth()
            for op, arg, _ in pickletools.genops(data):
                if op.name in ("GLOBAL", "INST") and isinstance(arg, str) and len(arg) > _LONGEST_GLOBAL:
                    return (f"its pickle names a global {len(arg):,} characters long ({brief(arg)}), "
                            "longer than any torch.load takes")
                if depth.step(op, arg) > _DEEPEST:
                    return (f"its pickle nests values more than {_DEEPEST:,} deep (torch.load, and Python "
                            "after it, may overflow the C stack on such a value and end the process)")
        except Exception as e:  # noqa: BLE001 - pickletools says what stops it in many ways
            return (f"its pickle {brief(i.filename)} does not read to its end "
                    f"({type(e).__name__}: {brief(str(e))})")
    return None


def _stored_bytes(v: torch.Tensor) -> int:
    """The bytes of ``v``'s storage from its first value on: what the file holds for it. A dense tensor needs
    ``numel * element_size``; a view with a stride of 0 (``torch.zeros(1).expand(4096, 4096)``) or strides
    that overlap reads its values again from fewer, so a checkpoint of a few kilobytes could name weights of
    hundreds of megabytes, which loading would allocate."""
    return int(v.untyped_storage().nbytes() - v.storage_offset() * v.element_size())


@overload
def _check_payload(payload, build: Literal[True] = True) -> PolicyValueNet | TileNet: ...
@overload
def _check_payload(payload, build: bool) -> PolicyValueNet | TileNet | None: ...
def _check_payload(payload, build: bool = True) -> PolicyValueNet | TileNet | None:
    """The network of a checkpoint payload with its weights, after checking every field; a CheckpointError
    (without the file name) names the first thing that is wrong. ``build`` False: the checks only (None)."""
    if not isinstance(payload, dict):
        raise CheckpointError(f"holds a {type(payload).__name__}, not a checkpoint dict")
    fmt = payload.get("format")
    if not isinstance(fmt, str) or fmt != CHECKPOINT_FORMAT:
        raise CheckpointError(f"not a policy checkpoint of format {CHECKPOINT_FORMAT} (its format: {brief(fmt)})")
    for key, typ in _PAYLOAD_TYPES.items():
        if key not in payload:
            raise CheckpointError(f"missing key {key!r}")
        if not isinstance(payload[key], typ) or (typ is int and isinstance(payload[key], bool)):
            raise CheckpointError(f"{key!r} is a {type(payload[key]).__name__}, not a {typ.__name__}")
    name, version, shape = payload["obs_name"], payload["obs_version"], payload["obs_shape"]
    known = LAYOUTS.get(name)
    shape_ok = known is not None and all(type(d) is int for d in shape) and shape == known[1]
    if known is None or version != known[0] or not shape_ok:
        layouts = " or ".join(f"{k} (version {v}, shape {sh})" for k, (v, sh) in LAYOUTS.items())
        raise CheckpointError(f"trained on observation layout {brief(name)} (version {version}, shape "
                              f"{brief(shape)}); networks here take {layouts}")
    if payload["n_actions"] != N_ACTIONS:
        raise CheckpointError(f"has {payload['n_actions']} actions; this environment has {N_ACTIONS}")
    if not all(isinstance(k, str) for k in payload["meta"]):
        raise CheckpointError("'meta' has a key that is not a str")
    trained_for = payload["meta"].get("rules")
    if trained_for is not None:  # a preset's name, or the object form of a rule set of one's own
        try:
            if not isinstance(trained_for, (str, dict)):
                raise RuleError("a rule set is a preset's name or an object {\"name\": preset, field: value, ...}")
            get_rules(trained_for)
        except (RuleError, TypeError) as e:
            raise CheckpointError(f"'meta' names rule set {brief(trained_for)}: {e}") from None
    config = payload["model_config"]
    try:  # a skeleton without memory or initialisation (the meta device) to check the weights against
        with torch.device("meta"):
            skeleton = build_network(config)
    except (TypeError, ValueError) as e:  # check_config's message
        raise CheckpointError(str(e)) from None
    if obs_layout(skeleton) != name:
        raise CheckpointError(f"its observation layout is {name} but its model_config takes {obs_layout(skeleton)}")
    weights, expected = payload["state_dict"], skeleton.state_dict()
    for key in [*expected, *(k for k in weights if k not in expected)]:
        v, ref = weights.get(key), expected.get(key)
        if ref is None:
            raise CheckpointError(f"weight {brief(key)} is not in the network of model_config {brief(config)}")
        if v is None:
            raise CheckpointError(f"weight {key!r} is missing (model_config {brief(config)})")
        if (not isinstance(v, torch.Tensor) or v.is_nested or v.layout != torch.strided or v.device.type != "cpu"
                or v.dtype != ref.dtype):
            what = f"a {type(v).__name__}"
            if isinstance(v, torch.Tensor):
                kind = "nested" if v.is_nested else "" if v.layout == torch.strided else str(v.layout)
                what = f"a {kind + ' ' if kind else ''}{v.dtype} tensor on {v.device.type}"
            raise CheckpointError(f"weight {key!r} is {what}, not a dense {ref.dtype} tensor on cpu")
        if v.shape != ref.shape:
            raise CheckpointError(f"weight {key!r} has shape {list(v.shape)}; the network of model_config "
                                  f"{brief(config)} has {list(ref.shape)}")
        if _stored_bytes(v) < v.numel() * v.element_size():  # (before isfinite: a tensor of its size)
            raise CheckpointError(f"weight {key!r} has {v.numel():,} values but the file stores "
                                  f"{_stored_bytes(v):,} bytes for them (a view repeating its values): a "
                                  "small file would load as a network of any size the config allows")
        if not torch.isfinite(v).all():
            raise CheckpointError(f"weight {key!r} has non-finite values (nan or inf)")
    storages = {v.untyped_storage().data_ptr(): v.untyped_storage().nbytes() for v in weights.values()}
    if sum(v.numel() * v.element_size() for v in weights.values()) > sum(storages.values()):
        raise CheckpointError("its weights share the values the file stores (views of one another): a small "
                              "file would load as a network of any size the config allows")
    if not build:
        return None
    # the skeleton gets memory and the file's weights: no initial weights, so no numbers are drawn from torch's
    # global generator: a seeded script that loads a network, then samples, draws what it draws without the load
    # (building a network and overwriting its initial weights drew them before). train.py draws them itself
    # after the loads that follow its seeding, so that its seeded runs repeat as published
    model = skeleton.to_empty(device="cpu")
    model.load_state_dict(weights)
    return model


_UNKNOWN_KEYS_NAMED = 8
"""How many of a file's keys beside its format's the ``CheckpointWarning`` names (the rest are counted)."""


def load_checkpoint(path: str | Path, device: str | torch.device = "cpu") -> tuple[PolicyValueNet | TileNet, dict]:
    """(model in eval mode on ``device``, the checkpoint's metadata). The file is read with
    ``torch.load(weights_only=True)``, so loading runs no code from it, and every field is checked before
    the weights are used. A file that is missing, not a checkpoint, of another format, observation layout or
    action space, or with a bad config or bad weights raises ``CheckpointError`` naming the file and the
    problem; a ``device`` that cannot run here, a ValueError (``device_problem``), before the file is read.
    Loading draws nothing from torch's global random generator (the network is not initialised first).
    Keys of the file beside those of its format (which ``save_checkpoint`` never writes: another writer's, or a
    later version's that kept the format) are left out with a ``CheckpointWarning`` naming them; the keys in
    ``meta`` are the writer's own (``save_checkpoint``'s keywords) and load as they are, whatever their names, beside
    the file's ``obs_name``, ``obs_version`` and ``model_config`` (which ``save_checkpoint`` refuses as keywords; a
    ``meta`` key of those names in a file written otherwise gives way to the file's own value)."""
    problem = device_problem(device, name="device")
    if problem:
        raise ValueError(problem)
    if isinstance(path, str) and not path.strip():
        raise CheckpointError(f"{path!r}: no file named (an empty path)")
    path = Path(path)
    payload = _read(path)
    try:
        model = _check_payload(payload)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from None
    unknown = sorted((k for k in payload if k not in _PAYLOAD_TYPES), key=str)
    if unknown:  # the format's own keys are all checked; these are read by nothing here
        # (the first few named: a file with thousands of them printed every one, a warning of any length)
        named = ", ".join(brief(k) for k in unknown[:_UNKNOWN_KEYS_NAMED])
        if len(unknown) > _UNKNOWN_KEYS_NAMED:
            named += f" and {len(unknown) - _UNKNOWN_KEYS_NAMED:,} more"
        warnings.warn(f"{path}: its key{'s' if len(unknown) > 1 else ''} {named} "
                      f"{'are' if len(unknown) > 1 else 'is'} not of format {CHECKPOINT_FORMAT} and left out (written "
                      "by a later version of this package, or by another tool?)", CheckpointWarning,
                      stacklevel=user_stacklevel(mj_env, sys.modules[__name__]))
    model.to(device).eval()
    meta = dict(payload["meta"])
    meta.update({k: payload[k] for k in _FORMAT_META_KEYS})
    return model, meta

