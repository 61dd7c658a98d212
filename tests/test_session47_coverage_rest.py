"""Lines a branch-coverage run of the default suite never ran, each now checked by its result.

mj_env/determinize.py's 报听 starts (``_ting_starts``, ``_ting_hand``): where the 报听 chain starts is built
from what the seat sees alone (the module docstring), so two tables that differ only in how the unseen tiles
lie must start alike, and every start must be a hand that waits as 报听 requires (docs/RULES.md 5: a ready hand
whose win, declared melds included, lacks a suit under `quemen`), checked here against tests/ref_hand.py. The
paths the default suite missed: seats that must be built in another order than the first, a table where no
order works (it keeps its real hands, as the docstring says), and copies of one table worked out once.
"""
from __future__ import annotations

import io
import itertools
import json
import os

import numpy as np
import pytest
from ref_hand import is_win

import mj_env.determinize as D
from mj_env import features as F
from mj_env.actions import N_ACTIONS
from mj_env.baselines import EfficientAgent
from mj_env.rules import get_rules
from mj_env.tiles import N_SUITED, SUIT_OF, index

RULES = get_rules("quemen")


def _ready(hand, melds) -> bool:
    """docs/RULES.md 5 (quemen): some tile, not one of which the seat would hold a fifth, completes a winning
    shape whose tiles, declared melds included, hold at most two suits. tests/ref_hand.py's is_win."""
    hand, melds = np.asarray(hand, dtype=np.int64), np.asarray(melds, dtype=np.int64)
    for t in range(34):
        full = hand.copy()
        full[t] += 1
        if full[t] + melds[t] > 4:
            continue
        suits = {int(SUIT_OF[x]) for x in np.flatnonzero(full + melds) if x < N_SUITED}
        if len(suits) < 3 and is_win(tuple(full.tolist()), 0, seven_pairs=RULES.seven_pairs,
                                     thirteen_orphans=RULES.thirteen_orphans,
                                     extra_dragon=RULES.orphans_extra_dragon):
            return True
    return False


def _pongs(*codes) -> np.ndarray:
    out = np.zeros(34, dtype=np.int16)
    out[[index(c) for c in codes]] = 3
    return out


def _table(melds: dict, hands: dict, pool: dict, n_kong: int = 0):
    """One table's ``_ting_starts`` inputs: 报听 seats' face-up ``melds`` and one-tile ``hands`` (seat: code),
    the other unseen tiles ``pool`` (code: count), ``n_kong`` concealed kongs at the other seats."""
    m = np.zeros((1, 4, 34), dtype=np.int16)
    part = np.zeros((1, 4, 34), dtype=np.int64)
    ting = np.zeros((1, 4), dtype=bool)
    for s, codes in melds.items():
        m[0, s] = _pongs(*codes)
        ting[0, s] = True
    for s, code in hands.items():
        part[0, s, index(code)] = 1
    q = np.zeros((1, D.N_CODES), dtype=np.int64)
    for code, c in pool.items():
        q[0, index(code)] = c
    return m, ting, part, q, np.array([n_kong])


def _stack(*tables):
    return tuple(np.concatenate(xs) for xs in zip(*tables))


# Both seats' pongs are characters and dots, so neither may wait on a bamboo (its win would hold all three
# suits); seat 1 may not wait on 2m nor on 9p (its pong's fourth would be its fifth). Unseen: 1m, 2m, 9p, one
# each. Built in seat order, seat 0 takes 1m (the lowest) and seat 1 finds none; seat 1 first takes 1m
# and seat 0 then 2m.
ORDER_MELDS = {0: ("3p", "4p", "5p", "9m"), 1: ("2m", "3m", "9p", "6p")}
ORDER_DEALS = [({0: "2m", 1: "1m"}, {"9p": 1}), ({0: "9p", 1: "1m"}, {"2m": 1})]


def test_reporting_seats_built_in_another_order_wait_and_do_not_show_the_real_hands():
    """Two real deals of the same unseen tiles (seat 0 holding 2m or 9p) start alike, at seat 0: 2m and
    seat 1: 1m, both ready hands; no tile is lost or made. Fails with the break at a seat ``_ting_hand``
    finds no hand for (determinize.py's ``if got is None: break``) made a ``continue``: seat 0's 1m is kept
    and seat 1 left with no tile."""
    rows = [_table(ORDER_MELDS, h, p) for h, p in ORDER_DEALS]
    melds, ting, part, pool, n_kong = _stack(*rows)
    total = part.sum(axis=1) + pool[:, :34]
    p, q, k = D._ting_starts(RULES, melds, ting, part, pool, n_kong)
    assert (k == -1).all()
    assert (p.sum(axis=1) + q[:, :34] == total).all()                        # the same unseen tiles
    assert (p.sum(axis=2)[:, :2] == 1).all() and (p[:, 2:] == 0).all()
    assert (p[0] == p[1]).all() and (q[0] == q[1]).all()                    # whatever the real deal
    assert p[0, 0, index("2m")] == 1 and p[0, 1, index("1m")] == 1
    for s in (0, 1):
        assert _ready(p[0, s], melds[0, s]) and D.ting_waits(RULES, p[0, s][None], melds[0, s][None])[0]


# One 报听 seat (character and dot pongs) on 5m; another seat holds a concealed kong, of the only kind all
# four of which are unseen, 1m. The construction takes 1m for the 报听 hand, which leaves no kind for that kong.
MP = ("2m", "3m", "6p", "7p")
KEEP = _table({0: MP}, {0: "5m"}, {"1m": 4}, n_kong=1)


def test_a_table_the_construction_cannot_start_keeps_its_real_hand_and_the_redeal_stays_legal():
    """The module docstring: where the construction finds no start that leaves kinds for the others' concealed
    kongs, the table keeps its real hand. Its start is the real hand, and the chain from it keeps a ready
    hand and a kind for the kong. Fails with ``_ting_starts``'s ``_kong_weight(...) > 0`` test removed (the
    start takes 1m and the kong has no kind left)."""
    melds, ting, part, pool, n_kong = KEEP
    p, q, k = D._ting_starts(RULES, melds, ting, part, pool, n_kong)
    assert (p == part).all() and (q == pool).all() and (k == -1).all()
    assert D._kong_weight(q, n_kong)[0] > 0
    rows = 16
    p2, q2 = D._ting_chain(RULES, *[np.repeat(x, rows, axis=0) for x in (melds, ting, p, q, n_kong)], 50,
                           np.random.default_rng(3))
    assert (D._kong_weight(q2, np.repeat(n_kong, rows)) > 0).all()
    for r in range(rows):
        assert _ready(p2[r, 0], melds[0, 0])


def test_copies_of_a_table_are_worked_out_once_and_each_keeps_its_own_real_hands(monkeypatch):
    """A search's worlds are copies of one table: ``_ting_starts`` builds each distinct table once. Where the
    construction fails, tables alike in all the seat sees but whose real hands differ (seats 0 and 1 on 5m and
    8m, or 8m and 5m) each keep their own, not the first one's. Fails with the cache's ``if kept is not None``
    dropped (a failed table's None is unpacked) and with its ``continue`` dropped (counted calls)."""
    mp = {0: MP, 1: ("4m", "9m", "8p", "9p")}
    a = _table(mp, {0: "5m", 1: "8m"}, {"1m": 4}, n_kong=1)
    b = _table(mp, {0: "8m", 1: "5m"}, {"1m": 4}, n_kong=1)
    order = _table(ORDER_MELDS, *ORDER_DEALS[0])
    melds, ting, part, pool, n_kong = _stack(a, b, a, *[order] * 5)
    calls = []
    real = D._ting_hand
    monkeypatch.setattr(D, "_ting_hand", lambda *args: calls.append(1) or real(*args))
    p, q, k = D._ting_starts(RULES, melds, ting, part, pool, n_kong)
    assert (p[:3] == part[:3]).all() and (q[:3] == pool[:3]).all() and (k == -1).all()   # each its own hands
    assert (p[3:] == p[3]).all() and p[3, 0, index("2m")] == 1 and p[3, 1, index("1m")] == 1
    once = len(calls)
    calls.clear()
    D._ting_starts(RULES, melds[[0, 3]], ting[[0, 3]], part[[0, 3]], pool[[0, 3]], n_kong[[0, 3]])
    assert once == len(calls)


@pytest.mark.parametrize("melds, avail, size", [
    (("2m", "6p"), {"1m": 1, "4m": 1, "7m": 1, "1p": 1, "4p": 1, "7p": 1, "1z": 1}, 7),
    (("2m", "3m", "4m", "6p"), {"5s": 1}, 1),
    (("2m", "6p", "7p"), {"5m": 2, "1m": 1, "3m": 1}, 4)],
    ids=["too-few-groups", "no-tile-allowed", "none-waits"])
def test_ting_hand_finds_none_where_no_ready_hand_can_be_taken(melds, avail, size):
    """Character and dot melds: the hand may hold no bamboo. Seven tiles with no group among them; one tile, a
    bamboo; 5m 5m 1m 3m beside a kong of 2m, which waits on 2m alone, of which the seat holds all four.
    In each case no hand of ``size`` out of ``avail`` is ready (tests/ref_hand.py), and ``_ting_hand`` says
    None. Fails with the ``continue`` after too few groups made a try of single tiles, or with a candidate
    returned that does not wait."""
    face_up = _pongs(*melds)
    if size == 4:
        face_up[index("2m")] = 4                                               # a kong
    counts = np.zeros(34, dtype=np.int64)
    for code, c in avail.items():
        counts[index(code)] = c
    tiles = np.repeat(np.arange(34), counts)
    hands = [np.bincount(c, minlength=34) for c in itertools.combinations(tiles, size)]
    assert not any(_ready(h, face_up) for h in hands)
    assert D._ting_hand(RULES, counts, size, face_up) is None


# ----------------------------------------------------------------------------- empty batches
@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_an_empty_batch_gives_empty_tables_and_keys(preset):
    """features.improvement and discard_table, and the efficient agent's discard_keys, of no rows: empty
    results of the documented shapes and dtypes (the ``if len(r):`` branches the default suite never took).
    Those guards only skip work: made unconditional, the results are the same (checked by hand)."""
    rules = get_rules(preset)
    hands = np.zeros((0, 34), dtype=np.int8)
    hui, unseen = np.zeros(0, dtype=np.int64), np.zeros((0, 34), dtype=np.int16)
    imp = F.improvement(rules, hands, hui, unseen, np.zeros(0, dtype=np.int16))
    assert imp.shape == (0,) and imp.dtype == np.int16
    for table in F.discard_table(rules, hands, hui, unseen):
        assert table.shape == (0, 34) and table.dtype == np.int16
    planes, mask = np.zeros((0, 14, 34), dtype=np.int8), np.zeros((0, N_ACTIONS), dtype=bool)
    keys = EfficientAgent(preset).discard_keys(planes, mask, np.random.default_rng(0))
    assert keys.shape == (0, 34)


# ----------------------------------------------------------------------------- agents/
def test_an_edited_summary_whose_rules_are_no_rule_set_shows_them_as_they_are():
    """agents.arena_report.format_table of a summary read back from ``--json`` and edited: rules that are no
    rule set (an unknown preset, a field of the wrong type) are shown as their JSON, at most 200 characters,
    not a traceback; a valid one as its label. Fails with the ``except (RuleError, TypeError)`` removed."""
    from test_audit_render import _agent, _summary

    from agents.arena_report import format_table
    summary = _summary([_agent("a")])
    summary["rules"] = {"name": "beijing", "base": 5}
    assert format_table(summary).splitlines()[-1] == "rules: beijing with base=5"
    for rules, shown in [({"name": "nosuch"}, '{"name": "nosuch"}'),
                         ({"name": "beijing", "base": "five", "新": 1},
                          '{"name": "beijing", "base": "five", "新": 1}'),
                         ({"name": "beijing", "x": list(range(100))}, None)]:
        summary["rules"] = rules
        last = format_table(summary).splitlines()[-1]
        assert last == "rules: " + (shown or json.dumps(rules)[:200])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock locks: POSIX")  # (open_records locks with fcntl)
def test_play_refuses_a_record_file_another_run_is_writing_in_one_line(tmp_path, capsys):
    """python -m agents.play --record FILE while another run (an arena) writes FILE: exit 1 with one line, no
    hand played, FILE not emptied (agents.arena.open_records). Fails with play.main's ``except OSError``
    around open_records removed (the OSError comes through)."""
    from test_play_cli_hostile import first_option

    from agents.arena import open_records
    from agents.play import main
    path = tmp_path / "records.jsonl"
    other = open_records(str(path))
    other.write("the other run's record\n")
    other.flush()
    try:
        out = io.StringIO()
        assert main(["--seed", "3", "--record", str(path)], input_fn=first_option, out=out) == 1
    finally:
        other.close()
    assert out.getvalue() == ""
    assert capsys.readouterr().err == (f"python -m agents.play: cannot write {path}: another process is "
                                       "writing it (an arena run with the same --record?)\n")
    assert path.read_text(encoding="utf-8") == "the other run's record\n"


# ----------------------------------------------------------------------------- train.py as a program
@pytest.mark.parametrize("stop, said", [
    ("raise OSError(28, 'No space left on device', 'runs/stopped/args.json')",
     "train.py: error: cannot write the run's files: runs/stopped/args.json: No space left on device\n"),
    ("raise OSError(28, 'No space left on device')",
     "train.py: error: cannot write the run's files: No space left on device\n"),
    ("from mj_env.baselines import AgentError\n    raise AgentError('rule agent failed: a bug')", None),
], ids=["full-disk-file", "full-disk", "agent-bug"])
def test_train_py_says_a_full_disk_in_one_line_and_keeps_the_traceback_of_an_agents_bug(stop, said, tmp_path):
    """python train.py whose run files cannot be written (an OSError, with or without a file name): exit 1
    with one line, no traceback; an AgentError not caused by overflowing logits is a bug and keeps its
    traceback (train.py's __main__, lines no default test ran). Fails with the ``except OSError`` branch
    removed, or with the AgentError re-raise made a one-line exit."""
    pytest.importorskip("torch")
    from test_train_script_mutants import _train_py_stopped_in_setup
    status, err = _train_py_stopped_in_setup(tmp_path, stop)
    assert status == 1
    if said is not None:
        assert err == said
    else:
        assert "Traceback" in err and err.rstrip().endswith("AgentError: rule agent failed: a bug")


def test_a_signal_as_the_training_ends_saves_final_pt_and_skips_the_evaluation(tmp_path, monkeypatch, capsys):
    """train.main: a signal just after the training's end was logged (RunLog.end_training), before final.pt
    was saved, went unchecked by the default suite. The run ends as an interrupted one: final.pt of the last
    update, final_eval.json marked interrupted with no evaluation, and one message. Fails with train.py's
    ``except KeyboardInterrupt`` around end_training removed (the signal comes out of train.main)."""
    pytest.importorskip("torch")
    import signal

    from test_run_signals import signal_after
    from test_train_interrupt import TINY

    import train
    from agents import training_run
    from agents.networks import load_checkpoint
    monkeypatch.chdir(tmp_path)
    calls: list[int] = []    # the first call (RunLog.release calls it again, with the signals held)
    signal_after(monkeypatch, training_run.RunLog, "end_training", signal.SIGINT,
                 when=lambda *a: not calls and not calls.append(1))
    try:
        result = train.main(["--exp-name", "e", "--total-steps", "512", "--final-eval-hands", "2", *TINY])
    except KeyboardInterrupt:  # (the test's signal, not pytest's own)
        pytest.fail("a Ctrl-C just after the training's end went through train.main")
    run = tmp_path / "runs" / "e"
    assert result["interrupted"] is True
    assert load_checkpoint(run / "checkpoints" / "final.pt")[1]["update"] == 1
    final = json.loads((run / "final_eval.json").read_text())
    assert final["interrupted"] is True and "eval" not in final
    assert ("interrupted (Ctrl-C) after 1 PPO updates: saving the network to final.pt, no final evaluation"
            in capsys.readouterr().out)


def test_common_streams_draws_of_no_size_are_the_fallbacks_and_not_counted():
    """agents.common_random: ``random()`` and ``gumbel()`` with no size are not rows-first draws: they come
    from the ordinary generator behind the streams (its numbers, in its order) and no row's draw count moves
    (the module docstring; ``_rows_first``'s ``size is None``, which no default test reached). Fails with that
    branch returning one draw per row."""
    from agents.common_random import CommonStreams
    keys = np.arange(3, dtype=np.uint64)
    c, same = CommonStreams(keys, np.random.default_rng(5)), np.random.default_rng(5)
    assert c.random() == same.random() and c.gumbel() == same.gumbel()
    assert c.gumbel(1.0, 2.0) == same.gumbel(1.0, 2.0)
    assert (c._draws == 0).all()
    fresh = CommonStreams(keys, np.random.default_rng(9))
    assert (c.random(3) == fresh.random(3)).all()        # the rows' streams: as if nothing had been drawn
