"""Second mutation round over mj_env/claims.py (seed 5301) and mj_env/tiles.py (seed 5302): tests that kill
mutants the rest of the suite let through. Each test's docstring names the mutant it kills; each checks what
docs/RULES.md, docs/INTERFACES.md or a module docstring promises. Beijing scripts use indicator 9s, so the
惠牌 (wildcard) is 1s."""
from __future__ import annotations

import numpy as np
import pytest
from fast_game import FastGame
from scenario_helpers import BEIJING, counts, names, play, settled, tiles
from walls import build_wall

from mj_env.observation import P_MELDS, observe
from mj_env.tiles import TileError, parse_hand, to_counts

# ------------------------------------------------------------------------------------------ mj_env/claims.py
HUI_IN_MELDS = BEIJING.replace(hui_wild_in_melds=True)


def _meld_planes(g: FastGame, seat: int) -> list[list[int]]:
    """The melds planes (offsets 0-3) of ``seat``'s observation."""
    obs = observe(g.rules, g.engine.state, np.array([0]), np.array([seat]))
    return obs[0, P_MELDS].astype(int).tolist()


def test_a_chi_completed_by_a_hui_shows_the_hui_among_the_meld_tiles_seen():
    """docs/RULES.md 5 (``hui_wild_in_melds``): seat 1 chis the dealer's 5m with 4m and a 惠牌 (1s) standing
    for 3m. The observation's melds plane holds the tiles lying in the meld (mj_env/observation.py): 4m, 5m
    and the 1s, seen alike by the claimer (offset 0) and the dealer (offset 1); the 1s has left the hand.
    Kills claims.py line 208 (``take_meld``, chi: the 惠牌 fill-in's meld count ``+= 1``) changed to
    ``+= 0``, ``+= 2`` or ``-= 1``."""
    hands = {0: "5m111z333z444z5z9m9p8p", 1: "4m1s123p456p789s2z7z", 2: "11m22m33m77s88s99s3p",
             3: "46p55p88p23s56s2m7m9m"}
    g = FastGame(HUI_IN_MELDS, build_wall(HUI_IN_MELDS, hands=hands, indicator="9s"))
    play(g, (0, "discard 5m"))
    assert "chi 345m" in names(g)
    play(g, (1, "chi 345m"))
    want = counts(tiles("45m1s"))
    assert _meld_planes(g, 1)[0] == want
    assert _meld_planes(g, 0)[1] == want
    assert g.hands[1][tiles("1s")[0]] == 0


def test_a_pong_completed_by_a_hui_shows_the_hui_among_the_meld_tiles_seen():
    """docs/RULES.md 5 (``hui_wild_in_melds``; natural tiles first): seat 1 holds one 7m and two 惠牌 (1s)
    and pongs the dealer's 7m with its 7m and one 1s. The melds plane holds 7m twice and the 1s once (the
    other 1s stays in hand). Kills claims.py line 191 (``take_meld``, pong/kong: the 惠牌 fill-ins' meld
    count ``+= wild``) changed to ``-= wild``."""
    hands = {0: "7m111z222z333z4z5z6z7z", 1: "7m1s1s11p22p33p44s5s", 2: "11m22m33m77s88s99s6z",
             3: "46m123p456p22s55z7z"}
    g = FastGame(HUI_IN_MELDS, build_wall(HUI_IN_MELDS, hands=hands, indicator="9s"))
    play(g, (0, "discard 7m"), (1, "pong"))
    want = counts(tiles("77m1s"))
    assert _meld_planes(g, 1)[0] == want
    assert _meld_planes(g, 2)[3] == want
    assert g.hands[1][tiles("1s")[0]] == 1


def test_a_win_on_the_discard_after_a_pong_is_no_haidi(new_game):
    """docs/RULES.md 6.1: 海底捞月 1 is a win "on the discard made right after drawing the last live tile"; a
    pong is no draw. Early in the hand seat 1 pongs the dealer's 7m and discards 9m; seat 2 (concealed, no
    惠牌) wins on it: 推倒和 1 + 门清无惠 1, paid by seat 1. Kills claims.py line 217 (``take_meld`` leaving
    ``last_draw`` True after a claim: the claimer's discard then read as the last tile's, scoring 海底捞月 in
    place of 推倒和)."""
    hands = {0: "7m111z222z333z4z5z6z7z", 1: "77m9m11p22p33p44s5s6s", 2: "78m123p456p789s55s",
             3: "46p55p88p23s56s234m"}
    g = new_game(hands=hands)
    play(g, (0, "discard 7m"), (1, "pong"), (1, "discard 9m"))
    assert (g.phase, g.to_act) == ("CLAIM", 2) and "win" in names(g)
    play(g, (2, "win"))
    assert g.result["patterns"] == {"推倒和": 1, "门清无惠": 1}
    assert settled(g) == [0, -2, 2, 0]


# ------------------------------------------------------------------------------------------- mj_env/tiles.py
def test_a_hand_over_the_copies_of_several_kinds_is_refused_naming_the_first_in_notation_order():
    """docs/RULES.md 7 (the refusal names the tile and its count): where several kinds are over four copies,
    the message names the first of them in the order the compact notation writes kinds (m, p, s, z;
    ``tiles.format_hand``), whatever order they were written in, so one bad hand always gets one message.
    Kills tiles.py line 134 (``to_counts``: ``over[0]`` changed to ``over[-1]``, naming the last)."""
    for text in ("11111m99999p", "99999p11111m"):
        with pytest.raises(TileError) as err:
            parse_hand(text)
        assert str(err.value) == "hand holds 5 copies of 1m; there are only 4"
    with pytest.raises(TileError) as err:
        to_counts([31, 31, 27, 27], max_copies=1, what="wall")
    assert str(err.value) == "wall holds 2 copies of 1z; there are only 1"
