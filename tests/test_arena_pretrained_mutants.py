"""Gaps found by mutating agents/rules_args.py, agents/pretrained.py and agents/arena.py (seeded samples of
single-node AST mutants run against the tests that name each module). Each test here failed under the mutant named
in its docstring and passes on the code; worked out from docs/INTERFACES.md and the modules' documented behaviour."""
from __future__ import annotations

import inspect
import json

import pytest

from agents import RandomAgent, RuleBasedAgent, arena, pretrained
from agents.arena import compare, main, play_duplicate
from agents.rules_args import rules_given
from mj_env.rules import get_rules


def test_rules_given_passes_a_rule_set_given_in_python_on_as_the_command_lines_do():
    """rules_args.rules_given with ``isinstance(text, str) and`` dropped: a RuleSet (rules_option takes one) had
    ``.lstrip()`` called on it, an AttributeError, instead of going on as ``passed_on`` says."""
    assert rules_given(get_rules("hebei")) == "hebei"                 # a preset unchanged: its name
    own = get_rules({"name": "beijing", "chi": False})
    assert rules_given(own) == own and not isinstance(rules_given(own), str)


def test_each_shipped_player_plays_greedy_or_samples_as_the_module_says():
    """pretrained.PLAYERS' "greedy" flipped for beijing or quemen: tests/test_pretrained.py compares a loaded player
    with the card itself, so nothing pinned what agents/pretrained.py and the README say: hebei's takes its most
    likely action, the others sample from the policy."""
    assert {rules: card["greedy"] for rules, card in pretrained.PLAYERS.items()} == {
        "beijing": False, "hebei": True, "quemen": False}


def test_the_name_chooses_greedy_or_sample_and_plain_pretrained_plays_as_the_card_says():
    """pretrained.make_pretrained with ``spec == NAME`` flipped (plain ``pretrained`` then sampled for hebei,
    ``pretrained:greedy`` played as the card says), and load_pretrained with ``if greedy is None`` forced True (a
    greedy given overridden by the card): a fast check of what the slow tests/test_pretrained.py play checks."""
    pytest.importorskip("torch")
    for rules in ("beijing", "hebei"):
        card = pretrained.PLAYERS[rules]["greedy"]
        assert pretrained.make_pretrained("pretrained", rules).greedy is card
        assert pretrained.make_pretrained("pretrained:greedy", rules).greedy is True
        assert pretrained.make_pretrained("pretrained:sample", rules).greedy is False
        assert pretrained.load_pretrained(rules, greedy=not card).greedy is (not card)


@pytest.mark.parametrize("n_agents", [2, 3, 4])
def test_check_run_takes_every_bound_itself_and_refuses_one_past_it(n_agents):
    """arena.check_run with ``n_walls <= MAX_WALLS`` made ``<`` (a run of MAX_WALLS walls, within the documented
    1-MAX_WALLS, refused): each bound is taken and one past it refused, naming the flag."""
    from agents.arena import MAX_BATCH, MAX_HANDS, MAX_SEED, MAX_TABLES, MAX_WALLS, check_run, seatings

    s = len(seatings(n_agents))
    walls, batch = min(MAX_WALLS, MAX_HANDS // s), min(MAX_BATCH, MAX_TABLES // s)
    check_run(n_agents, walls, batch, MAX_SEED)
    check_run(n_agents, 1, 1, 0)
    for args, flag in [((walls + 1, 1, 0), "n_walls"), ((0, 1, 0), "n_walls"), ((1, batch + 1, 0), "batch_walls"),
                       ((1, 0, 0), "batch_walls"), ((1, 1, MAX_SEED + 1), "seed"), ((1, 1, -1), "seed")]:
        with pytest.raises(ValueError, match=f"^{flag} "):
            check_run(n_agents, *args)


@pytest.mark.parametrize("labels", [["a"], ["a", "b", "c"], ("a",)])
def test_labels_of_the_wrong_length_are_refused_before_a_wall_is_played(labels):
    """arena.play_duplicate with ``or len(labels) != len(agents)`` dropped: a list of one name too few or too many
    was taken (a record's "players" then an IndexError mid-run, or names of agents that never played)."""
    played = []
    with pytest.raises(ValueError, match=r"labels must be a list of one name per agent \(2\)"):
        play_duplicate([RandomAgent(), RuleBasedAgent()], 1, labels=labels, progress=played.append)
    assert played == []


def test_compare_defaults_to_the_batch_of_play_duplicate_and_the_command_line():
    """arena.compare's default ``batch_walls`` 128 made 129: a compare() run, whose summary records its batch, was
    not then the run of play_duplicate or of the command line (--batch 128) with the same seed."""
    default = inspect.signature(compare).parameters["batch_walls"].default
    assert default == inspect.signature(play_duplicate).parameters["batch_walls"].default == 128


def test_the_command_lines_default_batch_is_the_documented_128(tmp_path):
    """arena.main's ``--batch`` default 128 made 127 or 129: its help and docs/training_results.md say 128, and the
    seed and batch are the recipe that repeats a run."""
    out = tmp_path / "run.json"
    assert main(["--agents", "random,rule", "--hands", "1", "--quiet", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["batch"] == 128


@pytest.mark.parametrize("quiet", [False, True])
def test_a_missing_scipy_is_a_usage_error_even_with_quiet(quiet, monkeypatch, capsys):
    """arena.check_args with ``name == "tqdm" and`` dropped (--quiet skipped the scipy check too), or the missing
    module's problem ignored: a missing scipy is the flag line's error, before a wall is played."""
    monkeypatch.setattr(arena, "missing_module", lambda name, needed_for: f"{name} is missing: {needed_for}"
                        if name == "scipy" else None)
    with pytest.raises(SystemExit) as e:
        main(["--agents", "random,rule", "--hands", "1"] + ["--quiet"] * quiet)
    assert e.value.code == 2 and "scipy is missing: the arena's 95% intervals" in capsys.readouterr().err


def test_a_missing_tqdm_is_a_usage_error_unless_quiet(monkeypatch, capsys):
    """arena.check_args with ``and args.quiet`` dropped: a missing tqdm was never reported, and the run failed later
    at its progress bar; with --quiet it needs no tqdm."""
    monkeypatch.setattr(arena, "missing_module", lambda name, needed_for: f"{name} is missing: {needed_for}"
                        if name == "tqdm" else None)
    with pytest.raises(SystemExit) as e:
        main(["--agents", "random,rule", "--hands", "1"])
    assert e.value.code == 2 and "tqdm is missing: the progress bar (or give --quiet)" in capsys.readouterr().err
    assert main(["--agents", "random,rule", "--hands", "1", "--quiet"]) == 0


def test_compare_names_a_missing_tqdm_for_its_progress_bar(monkeypatch):
    """arena.compare with its ``raise ModuleNotFoundError(problem)`` removed: progress=True without tqdm failed at the
    import, without the message naming what it is for."""
    monkeypatch.setattr(arena, "missing_module", lambda name, needed_for: f"{name} is missing: {needed_for}")
    with pytest.raises(ModuleNotFoundError, match=r"tqdm is missing: the progress bar \(progress=True\)"):
        compare(["random", "rule"], 1, progress=True)


def test_a_warning_other_than_the_arenas_two_is_shown_as_python_shows_it_with_no_checkpoint_loaded(monkeypatch):
    """arena.tell_warning with ``checkpoints is not None and`` dropped: with agents.checkpoints not imported (no
    checkpoint loaded), any other warning was an AttributeError on None."""
    import sys
    import warnings

    monkeypatch.delitem(sys.modules, "agents.checkpoints", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("something else", UserWarning, stacklevel=1)
    with pytest.warns(UserWarning, match="something else"):
        arena.tell_warning(caught[0])


def test_the_command_line_refuses_rules_of_several_hands_as_the_rules_flags_error(capsys):
    """arena.check_args with its ``raise ValueError(f"--rules: {e}")`` removed: a rule set of two hands per wall
    (read by --rules' type) was not refused as the flag's error."""
    with pytest.raises(SystemExit) as e:
        main(["--agents", "random,rule", "--hands", "1", "--quiet", "--rules",
              '{"name": "beijing", "hands_per_episode": 2}'])
    assert e.value.code == 2 and "--rules: the duplicate arena plays one hand per wall" in capsys.readouterr().err


def test_baselines_play_whatever_the_device_says(tmp_path):
    """arena.check_args with ``s not in BASELINES and`` dropped: the device was checked for baselines too, which
    use none (and play where torch is not installed)."""
    pytest.importorskip("torch")
    assert main(["--agents", "random,rule", "--hands", "1", "--quiet", "--device", "bogus",
                 "--json", str(tmp_path / "r.json")]) == 0


def test_a_record_file_another_run_is_writing_is_refused(tmp_path):
    """arena.open_records with its ``raise`` removed: the OSError of a --record file locked by another run was
    swallowed, and a closed file returned."""
    fcntl = pytest.importorskip("fcntl")
    path = tmp_path / "hands.jsonl"
    with open(path, "w") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(OSError, match="another process is writing it"):
            arena.open_records(str(path))
