"""Text rendering of one table: hands with tile characters, melds, rivers, indicator, 惠牌, turn."""
from __future__ import annotations

import sys

import numpy as np
from gymnasium import logger

from .messages import brief
from .rules import RuleSet, rules_label
from .state import END, MELD_NAMES, PHASE_NAMES, TURN, GameState, meld_tiles
from .tiles import CODES, format_hand, glyph
from .wall import live_left

SEAT_NAMES = ("East", "South", "West", "North")
RENDER_MODES = ("ansi", "human")
"""What the environments draw: "ansi" returns the text of ``render_table``, "human" prints it."""


def check_render_mode(render_mode, any_mode: bool = False) -> None:
    """A ValueError unless ``render_mode`` is None or one of ``RENDER_MODES`` (the AEC and self-play vector envs);
    with ``any_mode`` (the single-agent envs, for SB3's ``make_vec_env``, which asks for "rgb_array") any mode
    string is taken, and the modes outside ``RENDER_MODES`` render nothing."""
    if render_mode is None or (any_mode and isinstance(render_mode, str)):
        return
    if any_mode:
        raise ValueError(f"render_mode must be None or a str ('ansi' or 'human' render; other modes render "
                         f"nothing), got {brief(render_mode)}")
    if not isinstance(render_mode, str) or render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {brief(render_mode)}")


def warn_no_render_mode(how: str) -> None:
    """The warning Gymnasium's and PettingZoo's own envs give when ``render()`` is called with no render mode (it
    then returns None); ``how`` shows the call that sets one."""
    logger.warn(f"You are calling render method without specifying any render mode: {how}")


def print_table(text: str, file=None) -> None:
    """Print ``text`` ("human" mode) on standard output (or ``file``, a text stream: ``agents.play``'s output). What
    its encoding cannot hold (the tile glyphs and 惠牌 under Windows' cp1252 or cp936, or an ASCII locale: ``LANG=C
    PYTHONUTF8=0``, ``PYTHONIOENCODING=ascii``) is written as a backslash escape (``\\U0001f009``); it was a
    UnicodeEncodeError out of ``reset()`` and ``step()``."""
    out = sys.stdout if file is None else file
    try:
        print(text, file=out)
    except UnicodeEncodeError:  # (nothing was written: the stream encodes the whole text before it writes)
        encoding = getattr(out, "encoding", None) or "ascii"
        print(text.encode(encoding, "backslashreplace").decode(encoding), file=out)


def tile_text(t: int) -> str:
    """One tile as text shows it: its glyph and its code (``🀋 5m``)."""
    return f"{glyph(t)} {CODES[t]}"


def tiles_text(counts) -> str:
    """Tiles given as counts (a hand, a river) as text shows them: their glyphs, then their codes in
    compact notation (``-`` for none); also ``agents.play``'s."""
    counts = np.asarray(counts)
    glyphs = "".join(glyph(t) * int(c) for t, c in enumerate(counts) if c > 0)
    return f"{glyphs}  ({format_hand(counts) or '-'})"


def _meld(st: GameState, b: int, seat: int, m: int) -> str:
    """A declared meld by its physical tiles (a 惠牌 filling in with ``hui_wild_in_melds`` shows as itself)."""
    return f"{MELD_NAMES[int(st.meld_type[b, seat, m])]} {''.join(glyph(t) for t in meld_tiles(st, b, seat, m))}"


def _scores(scores) -> str:
    return " ".join(f"{int(x):+d}" for x in scores)


def _one_win(win: dict) -> str:
    """One win of a settlement (the calculator's output with its ``"input"``), in words."""
    given = win.get("input", {})
    winner, discarder = given.get("winner", 0), given.get("discarder")
    situation = given.get("situation") or {}
    # the tile won from another seat, which is in no hand or river of the picture (a self-drawn one is in the hand)
    code = given.get("win_tile")
    tile = f" {glyph(CODES.index(code))} {code}" if code in CODES else ""
    if discarder is None:
        how = "by self-draw" + (" on a kong's replacement" if situation.get("after_kong") else "")
    elif situation.get("robbed_kong"):
        how = f"robbing seat {discarder}'s kong" + (f" of{tile}" if tile else "")
    else:
        how = f"on seat {discarder}'s discard{tile}"
    patterns = ", ".join(f"{name} {fan}" for name, fan in win.get("patterns", {}).items())
    return f"seat {winner} ({SEAT_NAMES[winner]}) wins {how}: {win.get('fan')} fan ({patterns})"


def settlement_text(settlement: dict) -> str:
    """A settlement (``infos[agent]["settlement"]``: a draw, a win, or several wins on one discard) in one line:
    who won how (and the tile, when won from another seat), the fan and its patterns, the 烧庄 line (each
    non-dealer's 2^(R-1), as ``"shaozhuang"``) where there is one, and every seat's points (kong payments and
    烧庄 included)."""
    if settlement.get("draw"):
        line = "drawn" + (f" (烧庄 {settlement['shaozhuang']})" if settlement.get("shaozhuang") else "")
    else:
        line = "; ".join(_one_win(w) for w in settlement.get("wins", [settlement]))
        if settlement.get("shaozhuang"):  # its own line beside the win's fan, as in a drawn hand (seed 000/002)
            line += f"; 烧庄 {settlement['shaozhuang']}"
    return f"{line} | scores {_scores(settlement.get('scores', ()))}"


def render_table(rules: RuleSet, st: GameState, b: int = 0, ended: str | None = None) -> str:
    """A multi-line text picture of table ``b``. ``ended`` says how the hand ended (``settlement_text``), or why
    a hand that the engine has not ended is over (the AEC env's illegal action under
    ``illegal_action="penalize"``): no seat is then to act."""
    lines = []
    over = ended is not None or st.phase[b] == END
    phase = PHASE_NAMES[st.phase[b]]
    live = int(live_left(rules, st, b))
    head = f"{rules_label(rules)} | dealer {SEAT_NAMES[st.dealer[b]]} | live wall {live}"
    if rules.wall_layout == "indicator":
        ind = int(st.indicator[b])
        head += f" | 惠坯 {tile_text(ind)}"
    if rules.hui:
        hui = int(st.hui[b])
        head += f" -> 惠牌 {tile_text(hui)}"
    if rules.shaozhuang and st.sz_rounds[b]:
        head += f" | 烧庄 x{st.sz_rounds[b]}"
    lines.append(head)
    for s in range(4):
        mark = ">" if not over and st.to_act[b] == s else " "
        lines.append(f"{mark} {s} {SEAT_NAMES[s]:5s} hand  {tiles_text(st.hands[b, s])}")
        melds = [_meld(st, b, s, m) for m in range(st.n_melds[b, s])]
        if melds:
            lines.append(f"          melds {' | '.join(melds)}")
        lines.append(f"          river {tiles_text(st.river[b, s])}")
        if rules.flowers and st.flowers[b, s]:
            lines.append(f"          flowers {st.flowers[b, s]}")
        if rules.ting and st.ting[b, s]:
            lines.append("          报听")
    if over:
        lines.append("hand over" + (f": {ended}" if ended else ""))
    else:
        what = f"{phase}: seat {st.to_act[b]} ({SEAT_NAMES[st.to_act[b]]}) to act"
        if st.phase[b] != TURN:
            t = int(st.claim_tile[b])
            what += f" on {tile_text(t)} from seat {st.turn_seat[b]}"
        lines.append(what)
    return "\n".join(lines)
