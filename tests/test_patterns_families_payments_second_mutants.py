"""A further mutation pass over the scoring core (seed 5001, 242 mutants): ``mj_env.patterns`` (80),
``mj_env.families`` (beijing 35, hebei 35, quemen 29, family 8) and ``mj_env.payments`` (55). The scoring tables,
the reference comparisons and the earlier mutant files killed all but 20; 18 of those are equivalent (no input the
calculator or the engine accepts tells them apart). The tests here pin the other two, each expected value taken
from docs/RULES.md, not from the code's output."""
from __future__ import annotations

import pytest

from mj_env.payments import kong_payments, settle_draw, win_scores
from mj_env.rules import get_rules


def test_win_scores_settles_no_shaozhuang_under_rules_without_it():
    """docs/RULES.md 6.1: 烧庄 is a beijing rule (field ``shaozhuang``); with it switched off, rounds passed to
    ``mj_env.payments.win_scores`` settle nothing: a discard win of fan 2 by seat 1 on seat 2's discard is +2 / -2
    and nothing else (mutant: the 烧庄 step applied whatever ``rules.shaozhuang`` says). With it on, 2 rounds add
    the line 2^(2-1) = 2 to each non-dealer and take 3 x 2 from the dealer (seat 0)."""
    off = get_rules("beijing").replace(shaozhuang=False)
    assert win_scores(off, 2, 1, 0, 2, shaozhuang_rounds=2) == [0, 2, -2, 0]
    assert win_scores(get_rules("beijing"), 2, 1, 0, 2, shaozhuang_rounds=2) == [-6, 4, 0, 2]
    assert win_scores(get_rules("hebei"), 0, 1, 0, 2, shaozhuang_rounds=2) == [0, 5, -5, 0]  # hebei: base 5, no 烧庄


@pytest.mark.parametrize("call,message", [
    (lambda: kong_payments("hebei", [(-1, "concealed", None)]), "kongs[0] seat must be a seat 0-3, got -1"),
    (lambda: kong_payments("hebei", [(1, "exposed", -1)]), "kongs[0] from_seat must be a seat 0-3, got -1"),
    (lambda: settle_draw("beijing", -1, 1), "dealer must be a seat 0-3, got -1"),
])
def test_a_negative_seat_is_refused_not_read_from_the_end(call, message):
    """docs/RULES.md 7: input that is not valid "is refused with an error that names what is wrong (... which seat
    ...)". Seats are 0-3 (docs/RULES.md 2); a -1 would index the last seat of a Python list and settle points for a
    seat nobody named (mutant: the lower bound of the seat check moved to -1)."""
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message
