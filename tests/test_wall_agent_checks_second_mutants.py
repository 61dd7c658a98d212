"""Gaps found by a second mutation pass (seed 4901; 80 mutants of mj_env/wall.py, 95 of mj_env/baselines.py lines
100-323) over the wall (explicit walls and their checks, draws at many tables) and the agent-facing checks of
mj_env/baselines.py (the rules-mismatch warning, ``agent_actions`` and ``checked_agent_actions``). Earlier rounds are
in tests/test_legal_hand_wall_mutants.py and tests/test_baselines_wrappers_mutants.py; each test below names the
change of the code it catches. The survivors left are equivalent: ``isinstance(wall, str)`` dropped (a string is no
list either), ``reshape(-2)`` (NumPy reads any negative size as the rest), a flower pass at a table without flowers,
the one-table draw or the two-index read not taken (the batched path gives the same), the ``hui`` of a tail-layout
table written -2 (every reader asks ``rules.hui`` first), the early ``return`` before ``get_rules`` (which refuses
what it skips) and the default of an ``@overload`` stub."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from walls import build_wall

from mj_env import actions as A
from mj_env import baselines as B
from mj_env.baselines import (
    AgentError,
    RuleBasedAgent,
    agent_actions,
    rule_fields_agents_read_differ,
    warn_rules_mismatch,
)
from mj_env.rules import get_rules
from mj_env.state import FLAT_MIN_ROWS, allocate
from mj_env.tiles import CODES
from mj_env.wall import WallError, deal, draw, parse_wall, shuffled_walls

BEIJING = get_rules("beijing")
QUEMEN = get_rules("quemen")

# --------------------------------------------------------------------------- mj_env/wall.py


def test_a_bool_in_an_explicit_wall_is_no_tile_index():
    """docs/RULES.md 7: a wall that is not valid is refused naming the tile. A wall is tile codes or tile
    indices; True is no index (it would read as 1, a 2m). Kills wall.py line 50 without ``not isinstance(t, bool)``
    (a wall whose 2m is written True dealt as a full set)."""
    wall = build_wall("beijing")
    pos = wall.index(CODES.index("2m"))
    wall[pos] = True
    with pytest.raises(WallError, match=rf"^wall\[{pos}\] = True is neither a tile code nor a tile index$"):
        parse_wall(BEIJING, wall)
    wall[pos] = np.True_
    with pytest.raises(WallError, match=rf"^wall\[{pos}\] = (np\.)?True_? is neither"):
        parse_wall(BEIJING, wall)


@pytest.mark.parametrize(("rules", "bad"), [(BEIJING, -1), (BEIJING, len(CODES)), (QUEMEN, -1), (QUEMEN, len(CODES)),
                                            (BEIJING, 10**6)])
def test_a_tile_index_out_of_range_is_named_as_no_tile_of_the_set(rules, bad):
    """docs/RULES.md 7: a wall index that is no tile (below 0, or past the last flower) is refused as a
    WallError naming the position and the value, as a tile code that is no tile is, not as NumPy's error from
    counting it. Kills wall.py line 54 without ``not 0 <= t < len(CODES)`` and with ``-1 <= t``."""
    wall = build_wall(rules)
    wall[3] = bad
    with pytest.raises(WallError, match=rf"^wall\[3\] = {bad} is not a tile of the {rules.name} set$"):
        parse_wall(rules, wall)


def test_a_wall_with_many_wrong_counts_names_the_first_six_kinds():
    """A wall whose counts are wrong names each wrong kind with its count and the set's, the first six of them
    (the message stays one readable line however wrong the wall). Kills wall.py line 61 naming seven."""
    wall = [CODES.index("1m")] * BEIJING.n_tiles
    with pytest.raises(WallError) as e:
        parse_wall(BEIJING, wall)
    msg = str(e.value)
    assert msg.startswith("the beijing wall holds 136 x 1m (a full set has 4), 0 x 2m (a full set has 4), ")
    assert msg.count("(a full set has") == 6
    assert msg.endswith("0 x 6m (a full set has 4)")


# --------------------------------------------------------------------------- mj_env/baselines.py (lines 100-323)


class _Named:
    """An agent object with only a name (and, where given, a ``rules`` attribute)."""

    def __init__(self, name="odd", rules=None):
        self.name = name
        if rules is not None:
            self.rules = rules


def _warnings_of(agent, rules):
    """The warnings ``warn_rules_mismatch`` gives ``agent`` in a run under ``rules``, as a list of messages."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        warn_rules_mismatch(agent, rules, "agents[0]", "run", "build it right")
    return [str(w.message) for w in got]


def test_an_agent_built_for_the_rules_it_plays_gets_no_rules_warning():
    """``warn_rules_mismatch`` warns only where the agent decides by another rule set: an agent built for the
    preset it plays under (by name, as a RuleSet or in the object form) gets none. Kills baselines.py line 227
    with its condition forced True (every agent warned as built for another preset, its own)."""
    for rules in ("beijing", get_rules("beijing"), {"name": "beijing"}):
        assert _warnings_of(RuleBasedAgent(rules), get_rules("beijing")) == []
    assert _warnings_of(RuleBasedAgent("quemen"), get_rules("quemen")) == []


def test_the_same_preset_with_other_fields_agents_read_is_one_warning_naming_them():
    """``warn_rules_mismatch``: an agent of the same preset built with other values of the fields agents read
    (``RULE_FIELDS_AGENTS_READ``) is warned once, naming each such field with its value on both sides. Kills
    ``rule_fields_agents_read_differ`` returning nothing (baselines.py line 206) and line 232's ``if differ``
    forced False (no warning at all)."""
    own = get_rules("beijing").replace(hui_wild_in_melds=True, seven_pairs=False)
    assert rule_fields_agents_read_differ(own, get_rules("beijing")) == ["seven_pairs", "hui_wild_in_melds"]
    got = _warnings_of(RuleBasedAgent(own), get_rules("beijing"))
    assert got == [("agents[0] ('rule') decides by beijing rules with seven_pairs=False, hui_wild_in_melds=True but "
                   "plays in a beijing run with seven_pairs=True, hui_wild_in_melds=False; build it with the run's "
                   "rule set (e.g. RuleBasedAgent(rules) with the RuleSet the run was made with), or give its name")]
    # a field agents do not read (the base points) is no reason to warn
    assert _warnings_of(RuleBasedAgent(get_rules("beijing").replace(base=2)), get_rules("beijing")) == []


@pytest.mark.parametrize("rules", ["nonsense", {"name": "nonsense"}, {"no": "name"}])
def test_a_rules_attribute_that_names_no_rule_set_is_not_read(rules):
    """``warn_rules_mismatch``: "An attribute that names no rule set is not read": a user's agent whose own
    ``rules`` is a string or an object naming no preset plays with no warning and no error. Kills baselines.py
    line 225's ``return`` removed (an AttributeError from reading the string's ``name``)."""
    assert _warnings_of(_Named(rules=rules), get_rules("quemen")) == []


def test_an_agent_error_names_the_agent_by_its_first_40_characters():
    """``agent_actions`` and ``checked_agent_actions`` name the agent by its ``name`` cut to 40 characters, so a
    long name does not drown the message. Kills baselines.py line 253 cutting at 41."""
    long = "x" * 39 + "yz"

    def crash(obs, rng):
        raise KeyError("boom")

    mask = np.ones((1, A.N_ACTIONS), dtype=np.int8)
    with pytest.raises(AgentError, match=rf"^agent '{'x' * 39}y' raised KeyError acting at table\(s\) 0: 'boom'$"):
        agent_actions(_Named(long), crash, ({}, None), mask, np.arange(1), None)
    with pytest.raises(TypeError, match=rf"^agent '{'x' * 39}y' returned"):
        B.checked_agent_actions(_Named(long), None, mask, np.arange(1), None)


@pytest.mark.parametrize("got", [np.int64(3), 3, np.array([[3]]), np.array([3, 3])])
def test_integer_actions_of_the_wrong_shape_are_refused_not_broadcast(got):
    """``checked_agent_actions``: an agent returns (n,) integers, one per row, "no broadcast scalar": a scalar or
    an array of another shape is a TypeError naming dtype and shape, even where each action would be legal. Kills
    baselines.py line 271 without ``a.shape != (n,)``."""
    mask = np.ones((1, A.N_ACTIONS), dtype=np.int8)
    shape = re.escape(str(np.asarray(got).shape))
    with pytest.raises(TypeError, match=rf"^agent 'odd' returned int64 actions of shape {shape}; act\(\) must return "
                                        r"\(1,\) integers, one per observation row$"):
        B.checked_agent_actions(_Named(), got, mask, np.arange(1), None)


@pytest.mark.parametrize("bad", [-1, A.N_ACTIONS])
def test_an_action_number_just_outside_the_space_is_an_action_error_where_every_action_is_legal(bad):
    """``checked_agent_actions``: an action below 0 or at N_ACTIONS is refused as the ActionError naming the agent
    and the table, with ``explain``'s reason, however the mask reads (-1 is no index of its last column, 127 no
    IndexError). Kills baselines.py line 281 with ``a >= -1`` (the -1 came back as a legal action of a mask
    allowing its last action) and with ``a <= A.N_ACTIONS`` (an IndexError)."""
    mask = np.ones((1, A.N_ACTIONS), dtype=np.int8)
    with pytest.raises(A.ActionError, match=rf"^agent 'odd' at table 5: action {bad} is no action; an agent must "
                                            "pick from its action mask$"):
        B.checked_agent_actions(_Named(), [bad], mask, np.array([5]), lambda table, action: f"action {action} is no action")


def test_of_several_illegal_actions_the_first_row_is_the_one_named():
    """``checked_agent_actions`` names the first table whose action is not legal, in the order of the rows. Kills
    baselines.py line 284 naming the last."""
    mask = np.ones((3, A.N_ACTIONS), dtype=np.int8)
    mask[1:, 5] = 0
    with pytest.raises(A.ActionError, match=r"^agent 'odd' at table 11: 5 at 11; "):
        B.checked_agent_actions(_Named(), [5, 5, 5], mask, np.array([10, 11, 12]),
                                lambda table, action: f"{action} at {table}")


@pytest.mark.parametrize("fortran", [False, True], ids=["c-order", "fortran-order"])
def test_a_draw_at_hundreds_of_tables_adds_the_one_tile_drawn(fortran):
    """docs/RULES.md 3: live draws continue at wall[53]. At FLAT_MIN_ROWS tables or more ``_add_tiles`` writes the
    hands through one flat index, a view of a C-ordered array only (else the NumPy two-index write): either way
    each drawing seat holds one more of wall[53], and nothing else changes. Kills wall.py line 141 adding 2 and
    line 140 without its ``c_contiguous`` test (the flat write then went to a copy, and no tile was drawn)."""
    n = FLAT_MIN_ROWS
    st = allocate(n, BEIJING.n_tiles)
    idx = np.arange(n)
    walls = shuffled_walls(BEIJING, np.random.default_rng(4901), n)
    dealers = np.arange(n) % 4
    deal(BEIJING, st, idx, walls, dealers.astype(np.int8))
    if fortran:
        st.hands = np.asfortranarray(st.hands)
    st.turn_seat[idx] = (dealers + 1) % 4                  # the dealer's next seat draws (13 tiles in hand)
    before = st.hands.copy()
    assert not draw(BEIJING, st, idx, replacement=False).any()
    want = before.copy()
    want[idx, (dealers + 1) % 4, walls[:, 53]] += 1
    assert (st.hands == want).all()
    assert (st.live_pos == 54).all() and (st.drawn == walls[:, 53]).all()


def test_a_bool_among_an_agents_integer_actions_is_refused_not_played_as_1():
    """``checked_agent_actions``: "integers only: ... no bools": NumPy reads the list ``[3, True]`` as the int64
    ``[3, 1]``, so True would play action 1 (discard 2m) where every action is legal. It is the TypeError naming the
    row. Kills baselines.py line 279's ``raise`` removed."""
    mask = np.ones((2, A.N_ACTIONS), dtype=np.int8)
    with pytest.raises(TypeError, match=r"^agent 'odd' returned a list holding a non-integer \(action True \(bool\) "
                                        r"at row 1 is not an integer in 0-126\); act\(\) must return \(2,\) integers"):
        B.checked_agent_actions(_Named(), [3, True], mask, np.arange(2), None)
