"""Text in the pictures of ``agents.arena --plot`` and ``agents.curve``: run and agent names in any script.

matplotlib's default font (DejaVu Sans) has no CJK glyphs: a run named 运行 1 and one named 训练 1 were drawn
as the same boxes. `rc` puts a CJK font installed on the machine behind the default one (matplotlib takes each
glyph from the first font that has it), and `drawable` writes what no font at hand has as backslash escapes
(``\\u8fd0\\u884c 1``), so two names never look alike and matplotlib warns of no missing glyph."""
from __future__ import annotations

import functools
import os

CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
             "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback", "Microsoft YaHei", "SimHei",
             "PingFang SC", "Hiragino Sans GB", "Heiti SC", "Arial Unicode MS")
"""Fonts with the Chinese characters, by name, looked for in this order (Linux, Windows and macOS names)."""


GENERIC = ("serif", "sans-serif", "cursive", "fantasy", "monospace")
"""matplotlib's generic families; ``font.<generic>`` lists the fonts each stands for."""


def fonts() -> tuple[tuple[str, ...], frozenset[int]]:
    """(the font families to draw with, the user's first; the code points any of them has), for the fonts
    matplotlib's settings choose now: a ``font.family`` set after an earlier picture (or an ``rc_context``
    around this one) is the one used, not the first picture's."""
    from matplotlib import rcParams

    # (matplotlib's stubs take each key as a Literal: these are font.serif, font.sans-serif, ...)
    return _fonts(tuple(rcParams["font.family"]),
                  tuple(tuple(rcParams[f"font.{g}"]) for g in GENERIC))  # type: ignore[index]


@functools.cache
def _fonts(chosen: tuple[str, ...], _generic: tuple) -> tuple[tuple[str, ...], frozenset[int]]:
    """`fonts` for ``font.family`` ``chosen`` (``_generic``: the ``font.<generic>`` lists, part of the key only)."""
    from matplotlib import font_manager, ft2font

    # a font whose file is gone (uninstalled since matplotlib listed it) is not offered: matplotlib would log
    # "Font family ... not found" for every character drawn
    installed = {f.name for f in font_manager.fontManager.ttflist if os.path.isfile(f.fname)}
    families = (*chosen, *(name for name in CJK_FONTS if name in installed and name not in chosen))
    covered: set[int] = set()
    for name in families:
        try:
            path = font_manager.findfont(font_manager.FontProperties(family=[name]), fallback_to_default=False)
            covered.update(ft2font.FT2Font(path).get_charmap())
        except (ValueError, OSError, RuntimeError):  # a font FreeType cannot read
            continue
    return families, frozenset(covered)


def rc() -> dict:
    """matplotlib settings for a picture with names in it: the fonts of `fonts`, and a '$' that is a '$', not TeX
    that may not parse."""
    return {"text.parse_math": False, "font.family": list(fonts()[0])}


def drawable(text: str) -> str:
    """``text`` with each character no font at hand has (other than spaces and line breaks) as a backslash escape."""
    covered = fonts()[1]
    return "".join(c if ord(c) in covered or c in " \n" else c.encode("unicode_escape").decode("ascii") for c in text)
