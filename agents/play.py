"""Play mahjong at a terminal against the agents: ``python -m agents.play``.

::

    python -m agents.play                                  # one beijing hand against three rule agents
    python -m agents.play --rules quemen --opponents pretrained,rule,efficient --hands 4 --seed 7

One person sits at ``--seat`` (East by default); the three ``--opponents`` (any agent the arena takes by name:
``rule``, ``efficient``, ``random``, ``pretrained``, ``pretrained:greedy``, a checkpoint path) sit at the seats
after it in play order. They act through the ``Agent`` interface (``act(obs, rng)``) on the observations of the
AEC environment (``mj_env.env``), which plays the game; ``--hands N`` is its match of N hands
(``hands_per_episode``: the dealer stays or passes as the rules say, the points add up).

Each time the person is to act, the table is printed as that seat sees it (``seat_view``): its own concealed
tiles, the 惠坯 and 惠牌 where the rules have them, every seat's declared melds (another seat's concealed kong
face down), the rivers (discards not claimed), the live tiles left, flowers and 报听, and what is asked (its turn,
a discard offered, an added kong that may be robbed); never another seat's concealed tiles or the wall. The
other seats' moves are told as the table sees them: discards, and melds once they lie on the table (a pass,
and a claim still waiting for a seat asked first, are not shown). Then the legal actions, numbered, with their
names (``mj_env.actions.name``). An answer is a number from the list, an action's name (``pong``,
``discard 5m``, case ignored) or a tile code (``5m``: discard it, where that is legal); ``?`` or ``help`` shows
the table and the options again; ``quit`` ends the game. Anything else is answered with one line and the
question again; nothing is played. An answer longer than 4,096 characters is read past to its end, never held whole
(``< /dev/zero`` plays nothing, in bounded memory), and answered so.

After each hand: how it ended (``mj_env.render.settlement_text``), every seat's tiles (a tile won on another seat's
discard or kong after the winner's: ``+ 7m (won on)``), the points and the running totals. A hand that ends at its deal (四惠牌 in the dealer's first tiles) is told by its settlement alone.

Exit status: 0 after the last hand, and also when input ends (EOF, Ctrl-D) or at ``quit``, after the points so
far (standard input closed counts as its end); 130 on Ctrl-C; 1 where an opponent fails (a checkpoint that returns
no legal action), where an answer cannot be read (an OSError: a terminal gone) or the output or ``--record`` cannot
be written; 2 for a bad argument. A seed drawn when ``--seed`` is left out is told at the end only: it deals
every wall, so telling it at the start would give the other seats' tiles away.
``--record FILE`` writes each hand as a hand record (JSON lines, ``mj_env.records``) as it ends, which
``python -m mj_env.records FILE --show K`` replays decision by decision.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import re
import secrets
import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

import mj_env
from agents import make_agent
from agents.arena import (
    file_key,
    loading_agents,
    one_torch_thread,
    open_records,
    output_problem,
    player_files,
    settlement_wins,
)
from agents.rules_args import RULES_HELP, passed_on, rules_argument
from mj_env import actions as A
from mj_env.baselines import AgentError, agent_actions
from mj_env.claims import hubao_bound
from mj_env.lines import ArgumentParser, guard_output, json_line, terminal_line
from mj_env.messages import printable
from mj_env.records import RecordError, hand_record, replay
from mj_env.render import SEAT_NAMES, print_table, settlement_text, tile_text, tiles_text
from mj_env.rules import MAX_HANDS_PER_EPISODE, RuleError, RuleSet, get_rules, rules_label
from mj_env.state import CLAIM, MELD_CONCEALED_KONG, MELD_NAMES, ROB, TURN, GameState, meld_tiles
from mj_env.tiles import CODES, format_tiles, glyph
from mj_env.wall import live_left, replacements_left

PROG = "python -m agents.play"
PROMPT = "your choice (number, action name or tile; ? for help): "
"""The prompt: plain ASCII, which any terminal prints."""
MAX_SHOWN_INPUT = 40
"""An answer that is not understood is quoted in the reply up to this many characters."""
MAX_ANSWER = 4096
"""The longest answer read, in characters, its line break (LF or CR LF) left out (the longest that names an action
is a few dozen); a longer one is read past and refused (``read_answer``), so no line is ever held whole."""
_PIECE = 1 << 16
"""The characters read at a time past an answer longer than ``MAX_ANSWER``."""
MAX_SEED = 2**32 - 1
QUIT_WORDS = ("quit", "exit")
HELP_WORDS = ("?", "help")


class QuitGame(Exception):
    """The person typed ``quit``: the game ends as at the end of input."""


class AnswerUnread(Exception):
    """An answer could not be read (the input function failed with an OSError: a terminal gone): ``main`` says so
    in one line, exit status 1."""


class AnswerTooLong(Exception):
    """An answer longer than ``MAX_ANSWER`` characters (read past to its end, kept nowhere): ``Game`` says so in one
    line and asks again; nothing is played."""


class OutputGone(Exception):
    """Standard output failed under the entry point's ``guard_output``, which drops what is written from then on
    (``> /dev/full``: it said so in one line; a reader that left, ``| head``: nothing to say): the game stops at
    the next question with exit status 1, as where ``main``'s own output fails, rather than asking for answers to a
    table no one sees (a game that ends first ends with 1 too); a hand that ended meanwhile is recorded."""


class RecordUnwritten(Exception):
    """``--record``'s file could not be written (a full disk): ``main`` says so in one line, exit status 1."""


def read_answer(prompt: str) -> str:
    """``input(prompt)``, with standard input closed (``<&-``: Python makes it None) as the end of input, and bytes
    that its encoding cannot read (``é`` typed under ``PYTHONIOENCODING=ascii``) read as escapes, which no answer
    names, as Python reads them under the C locale, rather than a UnicodeDecodeError. An answer longer than
    ``MAX_ANSWER`` characters is read to its end a piece at a time, dropped, and an ``AnswerTooLong``: ``input()``
    holds a whole line, and a stream without line breaks (``< /dev/zero``) grew one until memory ran out. A terminal
    is read by ``input()`` itself (its prompt and line editing as they were; a terminal's line holds 4,095
    characters on Linux); anything else as ``input()`` reads it there (stderr flushed, the prompt written to
    standard output and flushed, one line read, its line break dropped), with the bound."""
    if sys.stdin is None:
        raise EOFError
    if isinstance(sys.stdin, io.TextIOWrapper) and sys.stdin.errors == "strict":
        sys.stdin.reconfigure(errors="surrogateescape")
    if _is_terminal(sys.stdin):
        text = input(prompt)
        if len(text) > MAX_ANSWER:
            raise AnswerTooLong
        return text
    with contextlib.suppress(OSError, ValueError, AttributeError):  # input()'s flushes: a failure passed over
        sys.stderr.flush()
    if sys.stdout is not None:
        sys.stdout.write(prompt)  # (a failure to write it comes through, as from input())
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stdout.flush()
    return _bounded_line(sys.stdin)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):  # (a stream of a test, or one closed)
        return False


def _bounded_line(stream) -> str:
    """One line of ``stream`` without its line break, at most ``MAX_ANSWER`` characters; a longer one is read past
    to its end (or the end of input) in pieces of ``_PIECE`` characters and is an ``AnswerTooLong``; EOFError at the
    end of input. A CR LF line break (an answers file written on Windows) is left out of the count as an LF is: the
    CR stays in the answer, as ``input()`` gives it (whitespace to ``choose``)."""
    line = stream.readline(MAX_ANSWER + 2)  # (room for a CR LF)
    if not line:
        raise EOFError
    if line.endswith("\n"):
        line = line[:-1]
        if len(line) - line.endswith("\r") > MAX_ANSWER:  # (read to its end already)
            raise AnswerTooLong
    elif len(line) > MAX_ANSWER:
        while not line.endswith("\n"):
            line = stream.readline(_PIECE)
            if not line:
                break
        raise AnswerTooLong
    return line


# --------------------------------------------------------------------------- what a seat sees


def _who(seat: int, labels: list[str], me: int) -> str:
    return f"{SEAT_NAMES[seat]} (you)" if seat == me else f"{SEAT_NAMES[seat]} ({labels[seat]})"


def meld_text(st: GameState, seat: int, m: int, viewer: int | None, b: int = 0) -> str:
    """Meld ``m`` of ``seat`` as ``viewer`` sees it (None: everyone's tiles shown, after the hand): its type, glyphs
    and codes, the seat its claimed tile came from; another seat's concealed kong face down."""
    kind = int(st.meld_type[b, seat, m])
    if kind == MELD_CONCEALED_KONG and viewer is not None and viewer != seat:
        return "concealed_kong (face down)"
    tiles = meld_tiles(st, b, seat, m)
    frm = int(st.meld_from[b, seat, m])
    where = f" from {SEAT_NAMES[frm]}" if frm >= 0 else ""
    return f"{MELD_NAMES[kind]} {''.join(glyph(t) for t in tiles)} ({format_tiles(tiles)}){where}"


def seat_view(rules: RuleSet, st: GameState, seat: int, labels: list[str], b: int = 0) -> str:
    """The table ``b`` as ``seat`` sees it, as text: only what its observation holds (``mj_env.observation``):
    its own concealed tiles and the tile it drew, the 惠坯 and 惠牌, the live tiles (and beijing's reserve) left,
    the dealer, 烧庄 rounds and 互包 pairs, every seat's melds (others' concealed kongs face down), rivers,
    flowers and 报听, and what it is asked. ``labels``: who sits at each seat."""
    head = f"{rules_label(rules)} | dealer {SEAT_NAMES[int(st.dealer[b])]} | live wall {int(live_left(rules, st, b))}"
    if rules.wall_layout == "indicator":
        ind = int(st.indicator[b])
        head += f" | reserve {int(replacements_left(rules, st, b))} | 惠坯 {tile_text(ind)}"
    if rules.hui:
        head += f" -> 惠牌 {tile_text(int(st.hui[b]))}"
    if rules.shaozhuang and st.sz_rounds[b]:
        head += f" | 烧庄 x{int(st.sz_rounds[b])}"
    lines = [head]
    if rules.hubao:
        bound = hubao_bound(st.claims[b], st.claims[b].T, rules.hubao_claims)
        pairs = [f"{SEAT_NAMES[i]}-{SEAT_NAMES[j]}" for i in range(4) for j in range(i + 1, 4) if bound[i, j]]
        if pairs:
            lines.append(f"互包: {', '.join(pairs)}")
    to_act = int(st.to_act[b])
    for s in range(4):
        mark = ">" if to_act == s else " "
        extra = ""
        if rules.flowers and st.flowers[b, s]:
            extra += f" | flowers {int(st.flowers[b, s])}"
        if rules.ting and st.ting[b, s]:
            extra += " | 报听"
        lines.append(f"{mark} {_who(s, labels, seat)}{extra}")
        melds = [meld_text(st, s, m, seat, b) for m in range(int(st.n_melds[b, s]))]
        if melds:
            lines.append(f"    melds {' | '.join(melds)}")
        lines.append(f"    river {tiles_text(st.river[b, s]) if st.river[b, s].any() else '-'}")
    lines.append(f"your hand: {tiles_text(st.hands[b, seat])}")
    phase, turn_seat = int(st.phase[b]), int(st.turn_seat[b])
    if to_act != seat:
        lines.append(f"{_who(to_act, labels, seat)} to act")
    elif phase == TURN:
        what = "your turn"
        if st.claimed_turn[b]:
            what += ", after your claim: discard"
        elif st.drawn[b] >= 0:
            what += f", you drew {tile_text(int(st.drawn[b]))}" + (" (a kong's replacement)" if st.after_kong[b] else "")
        lines.append(what)
    elif phase == CLAIM:
        lines.append(f"{_who(turn_seat, labels, seat)} discarded {tile_text(int(st.claim_tile[b]))}: claim it?")
    elif phase == ROB:
        lines.append(f"{_who(turn_seat, labels, seat)} declares an added kong of {tile_text(int(st.claim_tile[b]))}: "
                     "rob it?")
    return "\n".join(lines)


def action_text(a: int) -> str:
    """An action's name (``mj_env.actions.name``), with the tile's glyph where it names one tile."""
    name = A.name(a)
    code = name.rsplit(" ", 1)[-1]
    return f"{name} {glyph(CODES.index(code))}" if code in CODES[:34] and " " in name else name


def options_text(legal: list[int]) -> str:
    return "\n".join(f"  {k:2d}. {action_text(a)}" for k, a in enumerate(legal, 1))


def won_from_another(settlement: dict) -> dict[int, int]:
    """Winner -> the tile it won on, for the wins on another seat's discard or robbed kong: a tile the hand's end
    leaves out of the winner's concealed tiles (a self-drawn one is among them)."""
    return {int(w["input"]["winner"]): CODES.index(w["input"]["win_tile"]) for w in settlement_wins(settlement)
            if w["input"].get("discarder") is not None}


# --------------------------------------------------------------------------- reading an answer


def choose(text: str, legal: list[int]) -> int | str | None:
    """The action an answer names among the ``legal`` ones (an int), "help" for ``?`` or ``help``, None for
    ``quit``; an answer that names no legal action is a ValueError whose message says so in one line (quoting at
    most ``MAX_SHOWN_INPUT`` characters of it, terminal escapes written out)."""
    words = " ".join(text.split()).lower()
    shown = printable(words[:MAX_SHOWN_INPUT]) + ("..." if len(words) > MAX_SHOWN_INPUT else "")
    if not words:
        raise ValueError("an empty answer: type a number from the list, an action name or a tile code (? for help)")
    if words in HELP_WORDS:
        return "help"
    if words in QUIT_WORDS:
        return None
    if re.fullmatch(r"[0-9]+", words):
        k = int(words) if len(words) <= 6 else 0
        if 1 <= k <= len(legal):
            return legal[k - 1]
        raise ValueError(f"no option {shown}: choose a number from 1 to {len(legal)}")
    if words in CODES[:34]:
        a = A.DISCARD + CODES.index(words)
        if a in legal:
            return a
        raise ValueError(f"you cannot discard {words} now (? shows the options)")
    try:
        a = A.index(words)
    except A.ActionError:
        raise ValueError(f"not understood: '{shown}'; type a number from the list, an action name or a tile code "
                         "(? for help)") from None
    if a in legal:
        return a
    raise ValueError(f"{words} is not one of your options now (? shows them)")


# --------------------------------------------------------------------------- the game


@dataclasses.dataclass
class Outcome:
    """What a game played: every hand's settlement (in order), the points of each seat over them, and the records
    of the hands that had decisions (``mj_env.records``)."""

    settlements: list[dict] = dataclasses.field(default_factory=list)
    totals: list[int] = dataclasses.field(default_factory=lambda: [0, 0, 0, 0])
    records: list[dict] = dataclasses.field(default_factory=list)
    finished: bool = False


class Game:
    """One game at a terminal: the person at ``seat`` answers through ``input_fn``, ``agents`` (four entries, None at
    ``seat``) play the others, everything is written to ``out``. ``rules`` is the match's rule set
    (``hands_per_episode`` hands)."""

    def __init__(self, rules: RuleSet, agents: list, labels: list[str], seat: int, seed: int,
                 dealer: int | None = None, input_fn: Callable[[str], str] = input, out: TextIO | None = None,
                 on_record: Callable[[dict], Any] | None = None):
        self.rules = rules
        self.one_hand = dataclasses.replace(rules, hands_per_episode=1)  # each hand's record
        self.agents, self.labels, self.seat, self.seed, self.dealer = agents, labels, seat, seed, dealer
        self.input_fn, self.out, self.on_record = input_fn, out if out is not None else sys.stdout, on_record
        self.rngs = [np.random.default_rng([seed, 1, k]) for k in range(4)]
        self.outcome = Outcome()
        self.env: Any = None
        self._log: dict | None = None

    # ------------------------------------------------------------- output
    def say(self, text: str = "") -> None:
        """``text`` on ``out``; what its encoding cannot hold (the glyphs, 惠牌 on an ASCII terminal) as a
        backslash escape (``mj_env.render.print_table``)."""
        print_table(text, self.out)
        self.out.flush()

    def output_gone(self) -> bool:
        """``out`` is the entry point's ``guard_output`` stream, and it has dropped what was written
        (``OutputGone``)."""
        return getattr(self.out, "gone", False) is True

    def points_line(self, label: str, points) -> str:
        return f"{label}: " + "  ".join(f"{SEAT_NAMES[s]} {int(p):+d}" for s, p in enumerate(points))

    def totals_text(self) -> str:
        n = len(self.outcome.settlements)
        return self.points_line(f"totals after {n} of {self.rules.hands_per_episode} hand(s)", self.outcome.totals)

    # ------------------------------------------------------------- play
    def play(self) -> Outcome:
        """Play the match to its end; EOFError, KeyboardInterrupt and QuitGame come through (``main`` answers
        them), with ``outcome`` holding the hands played so far."""
        env = mj_env.env(rules=self.rules)  # pyright: ignore[reportArgumentType]  # (env's rules: a name or a RuleSet)
        self.env = env
        raw = env.unwrapped
        options = None if self.dealer is None else {"dealer": self.dealer}
        env.reset(seed=self.seed, options=options)
        self._ended(raw.infos[raw.possible_agents[0]], from_step=False)
        while not all(raw.terminations.values()):
            agent = env.agent_selection
            seat = raw.agent_name_mapping[agent]
            obs = env.observe(agent)
            assert obs is not None  # (PettingZoo's observe may return None; this env's never does)
            mask = np.asarray(obs["action_mask"]).astype(bool)
            if seat == self.seat:
                action = self._ask(mask)
            else:
                bot = self.agents[seat]
                batch = {"observation": obs["observation"][None], "action_mask": obs["action_mask"][None],
                         "seat": np.array([seat])}
                action = int(agent_actions(bot, bot.act, (batch, self.rngs[seat]), mask[None], np.array([0]),
                                           raw.engine.explain_illegal, role=f"opponent at {SEAT_NAMES[seat]}")[0])
            before = self._melds(raw.engine.state)
            env.step(action)
            assert self._log is not None
            self._log["actions"].append((seat, action))
            name = A.name(action)
            if name.startswith(("discard ", "ting ")):
                t = CODES.index(name.split()[1])
                what = "declares 报听 and discards" if name.startswith("ting") else "discards"
                self.say(f"{_who(seat, self.labels, self.seat)} {what} {tile_text(t)}")
            if "settlement" in raw.infos[agent]:
                self._ended(raw.infos[agent], from_step=True)
            else:
                self._tell_melds(before, raw.engine.state)
        self.outcome.finished = True
        self.say(f"=== game over. {self.totals_text()}")
        return self.outcome

    def _ask(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask).tolist()
        st = self.env.unwrapped.engine.state
        n = len(self.outcome.settlements) + 1
        view = f"hand {n} of {self.rules.hands_per_episode} | " + seat_view(self.one_hand, st, self.seat, self.labels)
        self.say(f"\n{view}\n{options_text(legal)}")
        while True:
            if self.output_gone():  # (the hand that ended as it failed was recorded all the same)
                raise OutputGone
            try:
                text = self.input_fn(PROMPT)
            except OSError as e:
                raise AnswerUnread(e.strerror or str(e)) from e
            except AnswerTooLong:
                self.say(f"answer too long (more than {MAX_ANSWER:,} characters): type a number from the list, an "
                         "action name or a tile code (? for help)")
                continue
            if not isinstance(text, str):  # (an input function that has no more answers: the end of input)
                raise EOFError  # noqa: TRY004 (not a wrong type of value: no answer, as input() at the end)
            try:
                got = choose(text, legal)
            except ValueError as e:
                self.say(str(e))
                continue
            if got is None:
                raise QuitGame
            if got == "help":
                self.say(f"{view}\n{options_text(legal)}")
                continue
            assert isinstance(got, int)
            return got

    @staticmethod
    def _melds(st: GameState) -> list[list[int]]:
        return [st.meld_type[0, s, : int(st.n_melds[0, s])].tolist() for s in range(4)]

    def _tell_melds(self, before: list[list[int]], st: GameState) -> None:
        """The melds that came onto the table in a step (a claim carried out, a kong declared), as the person's
        seat sees them; a claim still waiting for a seat asked first is not one yet."""
        for s, (old, new) in enumerate(zip(before, self._melds(st), strict=True)):
            for m, kind in enumerate(new):
                if m >= len(old) or old[m] != kind:
                    self.say(f"{_who(s, self.labels, self.seat)} declares {meld_text(st, s, m, self.seat)}")

    def _new_log(self) -> None:
        st = self.env.unwrapped.engine.state
        self._log = {"wall": st.wall[0].copy(), "dealer": int(st.dealer[0]), "actions": []}

    def _ended(self, info: dict, from_step: bool) -> None:
        """The hands that ended in a step (or at the deal): told, counted, recorded; a new hand's log if the match
        goes on."""
        if "settlement" in info:
            ended = [*info.get("earlier_settlements", []), info["settlement"]]
            for i, settlement in enumerate(ended):
                log = self._log if from_step and i == 0 else None
                self._hand_over(settlement, log)
        if not all(self.env.unwrapped.terminations.values()):
            self._new_log()
            if self.outcome.settlements:  # the next hand of a match is dealt: its moves follow this line
                assert self._log is not None
                self.say(f"\n--- hand {len(self.outcome.settlements) + 1} of {self.rules.hands_per_episode}: "
                         f"{SEAT_NAMES[self._log['dealer']]} deals ---")

    def _hand_over(self, settlement: dict, log: dict | None) -> None:
        out = self.outcome
        out.settlements.append(settlement)
        scores = [int(x) for x in settlement["scores"]]
        out.totals = [t + p for t, p in zip(out.totals, scores, strict=True)]
        k = len(out.settlements)
        self.say(f"\n=== hand {k} of {self.rules.hands_per_episode} over: {settlement_text(settlement)}")
        if log is None:  # ended at its deal (四惠牌): no decision, and its wall is gone with the next deal
            self.say("    (it ended at its deal)")
        else:
            rec = hand_record(self.one_hand, log["wall"], log["dealer"], log["actions"], settlement,
                              players=self.labels)
            final: list[GameState] = []
            try:
                replay(rec, lambda i, seat, a, eng: final.append(eng.state.copy()) if seat is None else None)
            except RecordError as e:  # (a hand of a match replays as one hand: the deal clears everything)
                self.say(f"    (the hand could not be shown: {e})")
            else:
                st = final[-1]
                won_on = won_from_another(settlement)
                for s in range(4):
                    melds = [meld_text(st, s, m, None) for m in range(int(st.n_melds[0, s]))]
                    tail = f" + {tile_text(won_on[s])} (won on)" if s in won_on else ""
                    tail += f" | melds {' | '.join(melds)}" if melds else ""
                    self.say(f"    {_who(s, self.labels, self.seat):20s} {tiles_text(st.hands[0, s])}{tail}")
            out.records.append(rec)
            if self.on_record is not None:
                self.on_record(rec)
        self.say(self.points_line("points", scores))
        self.say(self.totals_text())


# --------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog=PROG, description="Play mahjong at the terminal against the project's agents.",
        epilog="Answer with a number from the list, an action name (pong, discard 5m; case ignored) or a tile code "
               "(5m: discard it); ? or help shows the table and options again, quit ends the game. Exit status: 0 "
               "at the end, and when input ends (EOF, Ctrl-D) or at quit, after the points so far; 130 on Ctrl-C; "
               "1 if an opponent fails, an answer cannot be read or the output or --record cannot be written; 2 for a "
               "bad argument.")
    p.add_argument("--rules", default="beijing", type=rules_argument, help=RULES_HELP)
    p.add_argument("--opponents", default="rule,rule,rule",
                   help="three comma-separated agents for the seats after yours in play order (default rule,rule,rule): "
                        "random, rule, efficient, pretrained[:greedy|:sample], a checkpoint path (PATH[:greedy])")
    p.add_argument("--seat", type=int, default=0, help="your seat: 0 East (default), 1 South, 2 West, 3 North")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the walls and of the opponents' choices, 0 to 2**32 - 1 (left out: a new one, told at "
                        "the end, never before: it deals the walls; --seed with it plays the game again)")
    p.add_argument("--hands", type=int, default=None,
                   help=f"hands to play, 1 to {MAX_HANDS_PER_EPISODE:,} (default 1; a match: the dealer stays or passes "
                        "as the rules say, the points add up)")
    p.add_argument("--dealer", type=int, default=None,
                   help="the first hand's dealer, 0-3 (left out: as the rules say, East under beijing, drawn at random "
                        "under hebei and quemen)")
    p.add_argument("--record", default=None,
                   help="write each hand here as a hand record (JSON lines, mj_env.records) as it ends; "
                        "`python -m mj_env.records FILE --show K` replays one")
    return p


def main(argv: list[str] | None = None, input_fn: Callable[[str], str] = read_answer,
         out: TextIO | None = None) -> int:
    """The command line; ``input_fn`` reads each answer (given the prompt) and ``out`` gets everything written
    (default: standard output), so that a test can play a game."""
    out = out if out is not None else sys.stdout
    p = _parser()
    args = p.parse_args(argv)
    specs = [s.strip() for s in args.opponents.split(",")]
    if len(specs) != 3 or "" in specs:
        p.error(f"--opponents needs three comma-separated agents, got '{printable(args.opponents[:80])}'")
    if not 0 <= args.seat <= 3:
        p.error(f"--seat must be 0-3, got {args.seat}")
    if args.dealer is not None and not 0 <= args.dealer <= 3:
        p.error(f"--dealer must be 0-3, got {args.dealer}")
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")
    rules: RuleSet = args.rules
    n_hands = args.hands if args.hands is not None else rules.hands_per_episode
    if args.hands is not None and rules.hands_per_episode not in (1, args.hands):
        p.error(f"--hands {args.hands} and the rules' hands_per_episode={rules.hands_per_episode} differ; give one")
    if not 1 <= n_hands <= MAX_HANDS_PER_EPISODE:
        p.error(f"--hands must be 1 to {MAX_HANDS_PER_EPISODE:,}, got {n_hands}")
    try:
        match = get_rules(rules, hands_per_episode=n_hands)
    except RuleError as e:
        p.error(f"--rules: {e}")
    if args.record is not None:
        problem = output_problem("--record", args.record) if args.record.strip() else "--record: an empty file name"
        if problem:
            p.error(problem)
        if file_key(args.record) in player_files(specs):
            p.error(f"--record {args.record}: is a player's checkpoint; writing there would destroy it")
    one_hand = passed_on(dataclasses.replace(match, hands_per_episode=1))
    agents: list = [None] * 4
    labels = ["you"] * 4
    try:
        with loading_agents():
            for k, spec in enumerate(specs):
                s = (args.seat + 1 + k) % 4
                agents[s] = make_agent(spec, rules=one_hand)
                labels[s] = printable(spec[:40])
    except ValueError as e:  # an unknown name, a missing or unusable checkpoint, no torch for a network
        p.error(f"--opponents: {e}")
    seed = args.seed if args.seed is not None else secrets.randbelow(MAX_SEED + 1)
    record_file = None
    if args.record:
        try:
            record_file = open_records(args.record)
        except OSError as e:
            print(f"{PROG}: cannot write {terminal_line(args.record)}: {e.strerror or e}", file=sys.stderr)
            return 1

    def write_record(rec: dict) -> None:
        assert record_file is not None
        try:
            record_file.write(json_line(rec) + "\n")
            record_file.flush()
        except OSError as e:
            raise RecordUnwritten(e.strerror or str(e)) from e

    game = Game(match, agents, labels, args.seat, seed, args.dealer, input_fn, out,
                on_record=write_record if record_file else None)
    # a seed drawn here is told at the end only: it deals every wall, so told before, it would show the others' tiles
    seed_text = f"seed {seed}" if args.seed is not None else "seed drawn (told at the end)"
    others = ", ".join(f"{SEAT_NAMES[s]} {labels[s]}" for s in ((args.seat + k) % 4 for k in (1, 2, 3)))
    opening = f"{rules_label(dataclasses.replace(match, hands_per_episode=1))}, {n_hands} hand(s), {seed_text}: you sit {SEAT_NAMES[args.seat]} (seat {args.seat}); {others}"
    try:
        with one_torch_thread():
            status = _play(game, opening, args.record)
    finally:
        if record_file is not None:
            try:
                record_file.close()
            except OSError:  # what its last write could not flush: that failure was told already
                pass
    if args.seed is None:
        with contextlib.suppress(OSError):  # (an output that failed was told already)
            game.say(f"seed {seed}: --seed {seed} deals this game again")
    return status


def _play(game: Game, opening: str, record: str | None) -> int:
    """``opening`` said, ``game`` played, and how it ended told: the exit status."""
    try:
        status = _played(game, opening, record)
    except OutputGone:  # (told by guard_output where there was anything to tell)
        return 1
    return 1 if status == 0 and game.output_gone() else status


def _played(game: Game, opening: str, record: str | None) -> int:
    try:
        game.say(opening)
        game.play()
    except (EOFError, QuitGame) as e:
        game.say(f"\n{'input ended' if isinstance(e, EOFError) else 'quit'}: the game stops. {game.totals_text()}")
        return 0
    except KeyboardInterrupt:
        game.say(f"\ninterrupted (Ctrl-C): the game stops. {game.totals_text()}")
        return 130  # as a shell reports a command ended by Ctrl-C (128 + SIGINT)
    except AgentError as e:  # an opponent that fails (a checkpoint whose logits overflow): one line
        print(f"{PROG}: {terminal_line(e)}", file=sys.stderr)
        return 1
    except RecordUnwritten as e:  # the record file could not be written (a full disk)
        print(f"{PROG}: cannot write {terminal_line(record)}: {e}", file=sys.stderr)
        return 1
    except AnswerUnread as e:
        print(f"{PROG}: cannot read an answer: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the output could not be written
        print(f"{PROG}: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # an ASCII terminal: the glyphs as backslash escapes; a reader that left (| head): no traceback, status 1 (OutputGone)
    guard_output(PROG)
    raise SystemExit(main())
