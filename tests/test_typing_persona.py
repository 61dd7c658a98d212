"""The annotations as a user with a type checker meets them (mypy, pyright, an IDE), checked without mypy.

Both packages ship a PEP 561 ``py.typed`` marker, so a user's mypy reads these annotations instead of
treating ``mj_env`` and ``agents`` as untyped: an annotation that names the wrong type is then a false error
in the user's code. Each annotation fixed here had given one (mypy 2.4 on a script written the way the README
uses the API): ``records.replay``'s ``dict`` for a result that is None for a hand recorded before its end,
``compare``'s and ``load_agents``' ``rules: str`` for a RuleSet they take, ``RolloutSearchAgent``'s
``clairvoyant: bool`` for its ``"hands"``, ``device_problem``'s ``device: str`` for a ``torch.device``, and
``build_network``'s and ``load_checkpoint``'s ``nn.Module`` for the networks whose ``config`` the docs read
(``model.config`` was typed ``Tensor | Module``). No behaviour changed.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import types
import typing
from pathlib import Path

import numpy as np
import pytest

import agents
import mj_env
from mj_env.rules import RuleSet, get_rules

ROOT = Path(__file__).resolve().parents[1]
OPTIONAL = {"torch", "stable_baselines3", "sb3_contrib", "matplotlib", "scipy", "tqdm", "tensorboard"}  # the extras


def admits(hint, value) -> bool:
    """Whether ``value`` is of the type ``hint`` (classes, unions, Optional, Literal, tuple[...], generic aliases
    by their origin, Any): enough for the annotations checked here."""
    if hint is typing.Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(admits(h, value) for h in args)
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if origin is tuple and args and args[-1] is not Ellipsis:
        return isinstance(value, tuple) and len(value) == len(args) and all(map(admits, args, value))
    if origin is not None:
        return isinstance(value, origin)
    return isinstance(value, hint)


def _classes(hint) -> set:
    """The classes a union of classes names."""
    return set(typing.get_args(hint)) if typing.get_origin(hint) in (typing.Union, types.UnionType) else {hint}


def _type_checking_names(module) -> dict:
    """The names ``module`` imports only under ``if TYPE_CHECKING:`` (imported here), for resolving its
    annotations: docs/modules.md lets a layer name a higher one's types that way, never import it."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, (ast.FunctionDef, ast.ClassDef)):  # a declaration for the checkers (aec's unwrapped)
                    continue
                assert isinstance(imp, ast.ImportFrom), f"{module.__name__}: {ast.dump(imp)[:80]}"
                package = module.__name__ if module.__file__.endswith("__init__.py") else module.__package__
                source = importlib.import_module("." * imp.level + (imp.module or ""), package)
                for alias in imp.names:
                    names[alias.asname or alias.name] = getattr(source, alias.name)
    return names


def _public_modules():
    """Every module of mj_env and agents, but those whose optional dependency (an extra) is missing."""
    out, skipped = [], []
    for pkg in (mj_env, agents):
        out.append(pkg)
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            try:
                out.append(importlib.import_module(info.name))
            except ImportError as e:
                if (e.name or "").split(".")[0] not in OPTIONAL:
                    raise
                skipped.append(info.name)
    return out, skipped


def _annotated(module):
    """(qualified name, object, own annotations or None) of the public functions and classes defined in
    ``module``, and of their public methods (and ``__init__``). A class's own annotations only: a base class of
    Gymnasium's names ``EnvSpec`` only under its own TYPE_CHECKING, which is not ours to resolve."""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield name, obj, None
        elif inspect.isclass(obj):
            yield name, obj, inspect.get_annotations(obj)
            for mname, member in vars(obj).items():
                if mname.startswith("_") and mname != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                elif isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{name}.{mname}", member, None


def test_every_public_annotation_resolves_at_run_time():
    """``typing.get_type_hints`` (which tyro, pydantic, dataclass tools and IDEs' runtime inspectors call) on every
    public function, class and method of both packages: under ``from __future__ import annotations`` a misspelt
    or never-imported name fails only there, silently everywhere else. Names a module imports only for type
    checking resolve against what that import names."""
    modules, _ = _public_modules()  # (a module whose extra is missing is left out)
    checked, broken = set(), []
    for module in modules:
        localns = _type_checking_names(module)
        for qualname, obj, own in _annotated(module):
            try:
                if own is None:
                    typing.get_type_hints(obj, localns=localns)
                else:
                    typing.get_type_hints(types.SimpleNamespace(__annotations__=own), vars(module), localns)
            except Exception as e:  # noqa: BLE001 (every failure is listed)
                broken.append(f"{module.__name__}.{qualname}: {type(e).__name__}: {e}")
            checked.add(f"{module.__name__}.{qualname}")
    assert not broken, "\n".join(broken)
    assert len(checked) > 300 and {"mj_env.records.replay", "agents.arena.compare", "mj_env.engine.Engine.clone",
                                    "mj_env.determinize.determinize", "agents.make_agent"} <= checked


def test_replay_is_annotated_as_returning_none_for_a_hand_recorded_before_its_end():
    """``replay``'s docstring: None for a hand recorded before its end; it was annotated ``-> dict``, so a
    user's checked ``replay(rec)["scores"]`` passed and ``if settled is None`` was unreachable code."""
    from mj_env.records import hand_record, replay
    from mj_env.tiles import full_set

    hint = typing.get_type_hints(replay)["return"]
    wall = np.random.default_rng(0).permutation(full_set(136))
    assert replay(hand_record(get_rules("beijing"), wall, 0, [])) is None and admits(hint, None)
    assert admits(hint, {"scores": [0, 0, 0, 0]}) and not admits(hint, [0, 0, 0, 0])


def test_compare_and_load_agents_are_annotated_to_take_a_rule_set():
    """``compare`` and ``load_agents`` take a RuleSet as ``play_duplicate`` does (the summary writes it as a
    record does: the preset and the fields changed); annotated ``rules: str``, a user's mypy refused
    ``compare(..., rules=get_rules("beijing", base=2))``, which runs."""
    from agents.arena import compare, load_agents

    rules = get_rules("beijing", base=2)
    for fn in (compare, load_agents, agents.arena.play_duplicate):
        assert admits(typing.get_type_hints(fn)["rules"], rules) and admits(typing.get_type_hints(fn)["rules"],
                                                                            "hebei"), fn.__name__
    assert load_agents(["rule", "random"], rules=rules)[0].rules == rules
    summary = compare(["rule", "random"], 2, seed=0, rules=rules, batch_walls=2)
    assert summary["rules"] == {"name": "beijing", "base": 2} and isinstance(rules, RuleSet)


def test_the_search_agent_is_annotated_to_take_clairvoyant_hands():
    """``clairvoyant`` is True, False or ``"hands"`` (``--clairvoyant hands``); annotated ``bool``, a user's
    ``RolloutSearchAgent(clairvoyant="hands")`` was a mypy error."""
    from agents.search import RolloutSearchAgent

    hint = typing.get_type_hints(RolloutSearchAgent.__init__)["clairvoyant"]
    for value in (True, False, "hands"):
        assert admits(hint, value) and RolloutSearchAgent(worlds=2, z=0.0, clairvoyant=value).clairvoyant == value
    for value in ("cards", 1, None):
        assert not admits(hint, value)
        with pytest.raises(TypeError, match="clairvoyant must be"):
            RolloutSearchAgent(clairvoyant=value)


def test_network_annotations_name_torch_devices_and_the_networks_with_a_config(tmp_path):
    """``device_problem`` judges a ``torch.device`` as ``load_checkpoint`` and ``NetworkAgent`` pass it one
    (annotated ``str``); ``build_network`` and ``load_checkpoint`` return the networks of ``ARCHS``, whose
    ``config`` the docs read (annotated ``nn.Module``, a user's ``model.config`` was ``Tensor | Module``)."""
    torch = pytest.importorskip("torch")
    from agents.networks import ARCHS, build_network, device_problem, load_checkpoint, save_checkpoint

    assert device_problem(torch.device("cpu")) is None
    assert admits(typing.get_type_hints(device_problem)["device"], torch.device("cpu"))
    built = typing.get_type_hints(build_network)["return"]
    assert _classes(built) == set(ARCHS.values())
    loaded = typing.get_type_hints(load_checkpoint)["return"]
    assert typing.get_origin(loaded) is tuple and typing.get_args(loaded)[0] == built
    for config in ({"arch": "mlp", "hidden": [8]}, {"arch": "tiles", "channels": 4, "blocks": 0, "head": 8}):
        net = build_network(config)
        assert admits(built, net) and isinstance(net.config, dict)
        back = load_checkpoint(save_checkpoint(tmp_path / f"{config['arch']}.pt", net), device=torch.device("cpu"))
        assert admits(loaded, back) and back[0].config == net.config


def test_both_packages_ship_a_py_typed_marker():
    """PEP 561: without ``py.typed`` in an installed package, mypy skips it ("module is installed, but missing
    library stubs or py.typed marker": 15 errors on a script of the README's examples) and the user's code is
    checked against nothing. The marker sits in each package and pyproject.toml's package-data carries it into
    the wheel (setuptools 68, the build floor, adds no py.typed by itself)."""
    for pkg in (mj_env, agents):
        assert (Path(pkg.__file__).parent / "py.typed").is_file(), pkg.__name__
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10 (the declared floor) has no tomllib; pytest requires tomli there
        import tomli as tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    for pkg in ("mj_env", "agents"):
        assert "py.typed" in data.get(pkg, []) + data.get("*", []), pkg
    assert "py.typed" not in (ROOT / "MANIFEST.in").read_text()  # nothing prunes or excludes it
