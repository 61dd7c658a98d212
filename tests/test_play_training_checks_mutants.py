"""Gaps found by mutating agents/play.py (the human-play command line) and agents/training_checks.py (train.py's
argument checks): each test here failed under the mutant named in its docstring and passes on the code. The
expectations are the modules' documented behaviour (agents/play.py's docstring and --help, train.py's flags in
docs/training.md), written down before reading the code that implements them."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from test_play_cli import first_option, play

import mj_env
from agents import make_agent
from agents.play import main, seat_view
from mj_env.render import SEAT_NAMES, tile_text
from mj_env.rules import MAX_HANDS_PER_EPISODE, get_rules
from mj_env.state import CLAIM, ROB, TURN

LABELS = ["a", "b", "c", "d"]


def _views(rules: str, seeds: range):
    """(state, the seat to act, its view) at every decision of hands played by rule agents."""
    rs = get_rules(rules)
    for seed in seeds:
        env = mj_env.env(rules=rs)
        env.reset(seed=seed)
        raw = env.unwrapped
        bots = [make_agent("rule", rules=rules) for _ in range(4)]
        while not all(raw.terminations.values()):
            agent = env.agent_selection
            s = raw.agent_name_mapping[agent]
            st = raw.engine.state
            yield st, s, seat_view(rs, st, s, LABELS)
            obs = env.observe(agent)
            batch = {k: v[None] for k, v in obs.items()} | {"seat": np.array([s])}
            env.step(int(bots[s].act(batch, np.random.default_rng(seed))[0]))


def test_the_view_says_what_the_seat_is_asked():
    """The last line of the view says what is asked (the module's docstring: "its turn, a discard offered, an added
    kong that may be robbed"): a discard offered names the discarder and the tile; after the seat's own claim, its
    turn says to discard; otherwise its turn names the tile drawn. Mutants: the CLAIM branch's condition made False
    (no question at all when a discard is offered), the claimed-turn condition made False (the view after a pong
    named no claim)."""
    seen = {"claim": 0, "after claim": 0, "drew": 0}
    for st, s, view in _views("beijing", range(3)):
        last = view.splitlines()[-1]
        phase, turn_seat = int(st.phase[0]), int(st.turn_seat[0])
        if phase == CLAIM:
            assert last == f"{SEAT_NAMES[turn_seat]} ({LABELS[turn_seat]}) discarded {tile_text(int(st.claim_tile[0]))}: claim it?"
            seen["claim"] += 1
        elif phase == TURN and st.claimed_turn[0]:
            assert last == "your turn, after your claim: discard"
            seen["after claim"] += 1
        elif phase == TURN:
            assert last.startswith(f"your turn, you drew {tile_text(int(st.drawn[0]))}")
            seen["drew"] += 1
        elif phase == ROB:
            assert last.endswith("rob it?")
    assert all(seen.values()), seen


def test_a_drawn_first_tile_is_told():
    """Tile 0 (1m) drawn is told like any other ("you drew 🀇 1m"). Mutant: ``st.drawn[b] >= 0`` made ``> 0``
    (a drawn 1m, tile index 0, was not told)."""
    for st, s, view in _views("beijing", range(3)):
        if int(st.phase[0]) == TURN and not st.claimed_turn[0] and st.drawn[0] >= 0:
            mine = st.copy()
            mine.hands[0, s, int(mine.drawn[0])] -= 1
            mine.hands[0, s, 0] += 1
            mine.drawn[0] = 0
            assert seat_view(get_rules("beijing"), mine, s, LABELS).splitlines()[-1] == f"your turn, you drew {tile_text(0)}"
            return
    raise AssertionError("no turn with a drawn tile")


# --------------------------------------------------------------------------- agents/training_checks.py


def _train():
    pytest.importorskip("torch")  # (train.py's Args: the train extra)
    import train
    return train


def _ranges() -> list[tuple[str, float, float]]:
    """Each bounded flag of train.py and its range, as train.py's --help and docs/training.md give them."""
    import os

    from agents.arena import MAX_SEED
    from agents.training_checks import MAX_EVAL_HANDS
    from mj_env.engine import MAX_TABLES
    inf = float("inf")
    return [("total_steps", 0, inf), ("num_envs", 1, MAX_TABLES), ("num_steps", 1, inf), ("num_minibatches", 1, inf),
            ("update_epochs", 1, inf), ("pool_size", 1, inf), ("snapshot_every", 1, inf), ("keep_checkpoints", 0, inf),
            ("eval_every", 0, inf), ("eval_hands", 1, MAX_EVAL_HANDS), ("final_eval_hands", 0, MAX_EVAL_HANDS),
            ("bc_steps", 0, inf), ("bc_epochs", 1, inf), ("threads", 1, os.cpu_count() or 1), ("seed", 0, MAX_SEED),
            ("eval_seed", 0, MAX_SEED), ("gamma", 0, 1), ("gae_lambda", 0, 1), ("opponent_prob", 0, 1),
            ("opponent_rule", 0, 1), ("opponent_pretrained", 0, 1), ("ent_coef", 0, inf), ("vf_coef", 0, inf),
            ("bc_vf_coef", 0, inf)]


def test_every_bounded_flag_takes_its_ends_and_refuses_one_past_them():
    """check_args at each end of every flag's range: the end itself passes the range check, one past it (1 below
    the lowest, 1 above a finite highest) is refused naming the flag and the value given. Mutants: every range's
    ends moved by one (``"num_minibatches": (0, ...)`` let --num-minibatches 0 through to a division by zero)."""
    train = _train()
    from agents.training_checks import check_args

    for name, low, high in _ranges():
        flag = "--" + name.replace("_", "-")
        kind = type(getattr(train.Args(), name))
        ends = [low] + ([high] if high != float("inf") else [])
        for value in ends:
            said = check_args(train.Args(**{name: kind(value)}))
            assert said is None or not said.startswith(f"{flag} must"), (name, value, said)
        for value in [low - 1] + ([high + 1] if high != float("inf") else []):
            said = check_args(train.Args(**{name: kind(value)}))
            assert said is not None and said.startswith(f"{flag} must be") and said.endswith(f"not {kind(value)}"), \
                (name, value, said)


def _quit(prompt: str) -> str:
    return "quit"


@pytest.mark.parametrize("argv", [["--seat", "3"], ["--seat", "0"], ["--dealer", "0"], ["--dealer", "3"],
                                  ["--seed", "0"], ["--seed", str(2**32 - 1)], ["--hands", "1"],
                                  ["--hands", str(MAX_HANDS_PER_EPISODE)]])
def test_play_takes_the_ends_of_its_ranges(argv):
    """--seat and --dealer 0-3, --seed 0 to 2**32 - 1, --hands 1 to MAX_HANDS_PER_EPISODE (the --help's ranges),
    each end taken: the game starts (and stops at quit, exit status 0). Mutants: the ranges' ends moved inward."""
    rc, out, _ = play([*argv, "--opponents", "random,random,random"], input_fn=_quit)
    assert rc == 0 and "quit: the game stops" in out


@pytest.mark.parametrize("argv,said", [
    (["--seat", "-1"], "--seat must be 0-3, got -1"), (["--seat", "4"], "--seat must be 0-3, got 4"),
    (["--dealer", "4"], "--dealer must be 0-3, got 4"), (["--dealer", "-1"], "--dealer must be 0-3, got -1"),
    (["--seed", str(2**32)], f"--seed must be between 0 and 2**32 - 1, got {2**32}"),
    (["--hands", str(MAX_HANDS_PER_EPISODE + 1)], f"--hands must be 1 to {MAX_HANDS_PER_EPISODE:,}, got"),
    (["--hands", "0"], "--hands must be 1 to"),
])
def test_play_refuses_one_past_the_ends_of_its_ranges(argv, said, capsys):
    """One past each end is refused with exit status 2 and one line naming the flag. Mutants: the ranges' ends
    moved outward (``0 <= args.seat`` made ``-1 <= args.seat``: --seat -1 sat the person at North)."""
    with pytest.raises(SystemExit) as e:
        main(argv, input_fn=first_option, out=io.StringIO())
    assert e.value.code == 2
    assert said in capsys.readouterr().err


def test_an_input_function_with_no_more_answers_ends_the_game_as_end_of_input():
    """An input function that returns no text (``lambda p: next(answers, None)`` once its answers run out) is the end
    of input: the game stops with the points so far, exit status 0. Mutant: the ``isinstance(text, str)`` check made
    False (None went on to ``choose``: an AttributeError traceback)."""
    answers = iter(["1"])
    rc, out, _ = play(["--seed", "3", "--opponents", "random,random,random"], input_fn=lambda p: next(answers, None))
    assert rc == 0 and "input ended: the game stops. totals after 0 of 1 hand(s)" in out


def test_the_tiles_told_after_a_hand_are_those_it_ended_with():
    """After the hand, every seat's tiles as the hand ended (the module's docstring): after a drawn hand, each
    seat's 13, the last discard already in its river. Mutant: the replay's visit kept at every decision rather than
    after the last (``seat is not None``: the last discarder was shown holding 14 tiles, its discard among them)."""
    from agents.play import Game
    from mj_env.render import tiles_text

    rs = get_rules("beijing")
    out = io.StringIO()
    game = Game(rs, [None] + [make_agent("random", rules="beijing") for _ in range(3)], ["you", "r", "r", "r"], 0,
                seed=0, input_fn=first_option, out=out)
    outcome = game.play()
    assert outcome.settlements[0].get("draw")
    st = game.env.unwrapped.engine.state
    told = out.getvalue().split("=== hand 1 of 1 over")[1].splitlines()[1:5]
    for s, line in enumerate(told):
        assert line.split()[0] == SEAT_NAMES[s]
        assert tiles_text(st.hands[0, s]) in line
        assert int(st.hands[0, s].sum()) + 3 * int(st.n_melds[0, s]) == 13


def test_train_refuses_rules_of_more_than_one_hand_per_episode():
    """train.py plays one hand per episode, as its evaluations in the duplicate arena do: --rules with
    hands_per_episode=2 is refused naming it. Mutant: that check's return removed (the run went ahead with rules
    its evaluations and the printed arena command do not play)."""
    train = _train()
    from agents.training_checks import check_args

    said = check_args(train.Args(rules='{"name": "beijing", "hands_per_episode": 2}'))
    assert said is not None and said.startswith("--rules: hands_per_episode=2: train.py plays one hand per episode")
    assert check_args(train.Args(rules='{"name": "beijing", "hands_per_episode": 1}')) is None


def test_opponent_shares_add_up_to_at_most_one_and_need_a_shipped_player_only_when_used(monkeypatch):
    """--opponent-rule and --opponent-pretrained are shares of the same hands: a sum of exactly 1 passes, more is
    refused. A rule set with no shipped pretrained player trains with --opponent-pretrained 0 (the default) and is
    refused only with a share above 0. Mutants: the sum's check removed; ``opponent_pretrained > 0`` made ``>= 0``
    (every run under such rules refused, with no pretrained share asked for)."""
    train = _train()
    from agents import pretrained
    from agents.training_checks import check_args

    assert check_args(train.Args(opponent_rule=0.5, opponent_pretrained=0.5)) is None
    said = check_args(train.Args(opponent_rule=0.75, opponent_pretrained=0.5))
    assert said is not None and "their sum must be at most 1" in said
    # a new dict, not delitem: its undoing would put hebei back last and change available()'s order for the
    # tests after this one
    monkeypatch.setattr(pretrained, "PLAYERS", {k: v for k, v in pretrained.PLAYERS.items() if k != "hebei"})
    assert check_args(train.Args(rules="hebei")) is None
    said = check_args(train.Args(rules="hebei", opponent_pretrained=0.2))
    assert said is not None and "no pretrained player is shipped for 'hebei'" in said


def test_an_opponent_that_fails_ends_the_game_with_status_1_and_one_line(monkeypatch, capsys):
    """Exit status 1 where an opponent fails (the module's docstring and --help), told in one line on standard
    error naming the opponent's seat. Mutant: that status made 2 (a bad argument's)."""
    import agents.play

    class Broken:
        def act(self, batch, rng):
            raise RuntimeError("broken on purpose")

    monkeypatch.setattr(agents.play, "make_agent", lambda spec, rules: Broken())
    rc = main(["--seed", "3", "--seat", "3"], input_fn=first_option, out=io.StringIO())
    err = capsys.readouterr().err
    assert rc == 1
    assert err.startswith("python -m agents.play: ") and err.count("\n") == 1 and "East" in err, err


def test_network_flags_left_out_take_the_init_checkpoints_network():
    """--init-from a checkpoint whose network is not the flags' defaults (an mlp on mj_obs_v1 where the default is
    tiles on v2): the flags left out are not contradictions, and flags given as the checkpoint's network has them
    (what the refusal's 'or give ...' offers) are none either; a network flag given otherwise, even at its default,
    is. Mutants: either half of ``(name in given or wanted != default) and wanted != value`` dropped (a run from such
    a checkpoint refused with no network flag given, or with ``--arch mlp --obs v1 --hidden 16`` given)."""
    train = _train()
    from agents.training_checks import init_problem

    ckpt = str(Path(__file__).resolve().parent / "data" / "compat" / "mlp_v1_quemen.pt")
    assert init_problem(train.Args(init_from=ckpt, rules="quemen", bc_steps=0)) is None
    same = train.Args(init_from=ckpt, rules="quemen", bc_steps=0, arch="mlp", obs="v1", hidden="16")
    assert init_problem(same, frozenset({"arch", "obs", "hidden"})) is None
    said = init_problem(train.Args(init_from=ckpt, rules="quemen", bc_steps=0), frozenset({"arch"}))
    assert said is not None and said.startswith("--arch tiles: the network of --init-from")


def _dealt(rules: str):
    env = mj_env.env(rules=get_rules(rules))
    env.reset(seed=0)
    return env.unwrapped.engine.state.copy()


def test_the_view_marks_flowers_and_hubao_only_where_there_are_some():
    """A seat's flowers are told where the rules have flowers and it has some ('| flowers 2'), never as 'flowers 0';
    互包 pairs only under rules with 互包 (the claims between seats are counted under every rule set). Mutants: the
    flowers' condition reduced to ``rules.flowers`` or made ``or`` ('flowers 0' beside every seat); ``rules.hubao``
    made True (a 互包 line under hebei, which has no 互包)."""
    st = _dealt("quemen")
    st.flowers[0] = [2, 0, 0, 0]
    seats = [line for line in seat_view(get_rules("quemen"), st, 1, LABELS).splitlines() if "(" in line and
             line[2:].split(" ")[0] in SEAT_NAMES]
    assert len(seats) == 4 and seats[0].endswith("| flowers 2")
    assert not any("flowers" in line for line in seats[1:]), seats
    for rules, told in (("beijing", True), ("hebei", False)):
        st = _dealt(rules)
        st.claims[0, 0, 1] = st.claims[0, 1, 0] = 4
        view = seat_view(get_rules(rules), st, 2, LABELS)
        assert ("互包: East-South" in view) is told, (rules, view)


def test_the_view_asks_whether_to_rob_an_added_kong():
    """An added kong that may be robbed is asked about naming the declarer and the tile. Mutant: the ROB branch's
    condition made False (no question)."""
    st = _dealt("hebei")
    st.phase[0], st.to_act[0], st.turn_seat[0], st.claim_tile[0] = ROB, 2, 1, 4
    last = seat_view(get_rules("hebei"), st, 2, LABELS).splitlines()[-1]
    assert last == f"South (b) declares an added kong of {tile_text(4)}: rob it?"


def test_an_unreadable_answer_without_an_errno_is_told_by_its_message(capsys):
    """An OSError with no strerror (``OSError("terminal gone")``, as a wrapped stream may raise) is told by its
    message, exit status 1. Mutant: ``e.strerror or str(e)`` reduced to ``e.strerror`` ('cannot read an answer:
    None')."""
    def broken(prompt):
        raise OSError("terminal gone")
    rc, _, _ = play(["--seed", "3"], input_fn=broken)
    assert rc == 1 and capsys.readouterr().err == "python -m agents.play: cannot read an answer: terminal gone\n"
