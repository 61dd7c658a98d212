"""A plain, per-table reference game engine, written to be read, not to be fast.

It follows docs/game_flow.md decision by decision so that tests can step it next to the batched
engine (``mj_env/engine.py``) with the same wall and actions and compare masks, seats to act and
settlements. One hand only::

    g = RefGame(get_rules("beijing"), wall, dealer=0)
    while g.phase != "END":
        g.step(choose(g.to_act, g.legal()))
    g.result        # the settlement (needs mj_env.calculator)

State, all plain Python:
    phase            "TURN" | "CLAIM" | "ROB" | "END"
    to_act           seat asked now (None at END)
    hands[s]         count list (34) of seat s's concealed tiles
    melds[s]         list of Meld(type, tiles, from_seat): type "chi" | "pong" | "kong" |
                     "added_kong" | "concealed_kong"; tiles = the meld's tile kinds (face value);
                     from_seat None for a concealed kong
    meld_physical[s] the tiles really in each meld (differs only when 惠牌 fill in, hui_wild_in_melds)
    river[s]         seat s's discards that were not claimed (a won discard leaves it too)
    flowers[s]       flowers laid out (quemen)
    indicator, hui   惠坯 and 惠牌 kinds (None without hui)
    turn_tile        in TURN, the tile just drawn (None after chi/pong); turn_source says from
                     where: "deal", "live", "kong" (a replacement) or "claim"
    claims_from[a][b], kongs, shaozhuang_rounds, ting_declared, has_discarded: bookkeeping
    undrawn(), can_draw(), kong_possible(), hubao_pairs(), waits_after_discard(seat, tile)
    wins             at END: one calculator input (docs/INTERFACES.md 1) per winner; [] for a draw
    winners          their seats; next_dealer: the dealer of the next hand
    result           at END: the settlement (see ``result``)

While an added kong waits in the ROB window its tile stays in the declarer's hand; a robbed or
won-on tile ends in ``claimed_win_tile``.
"""
from __future__ import annotations

from collections import namedtuple

from ref_engine_rules import is_winning_shape, lacks_a_suit, tiles_for_meld

from mj_env import calculator
from mj_env.actions import (
    CHI,
    DISCARD,
    KONG,
    KONG_SELF,
    N_CHI,
    PASS,
    PONG,
    TING,
    WIN,
    ActionError,
    chi_start,
    name,
)
from mj_env.calculator import rules_json
from mj_env.tiles import FIRST_FLOWER, N_KINDS, code, format_tiles, full_set, hui_of_indicator

Meld = namedtuple("Meld", "type tiles from_seat")

TURN, CLAIM, ROB, END = "TURN", "CLAIM", "ROB", "END"
DEAL_TILE = 52  # the dealer's 14th tile
FIRST_LIVE = 53  # first live draw


def claim_category(action: int) -> int:
    """Priority of a claim: win 0, pong/kong 1, chi 2 (lower goes first)."""
    if action == WIN:
        return 0
    if action in (PONG, KONG):
        return 1
    return 2


class RefGame:
    def __init__(self, rules, wall, dealer: int = 0):
        wall = [int(t) for t in wall]
        if len(wall) != rules.n_tiles:
            raise ValueError(f"the wall has {len(wall)} tiles; rules {rules.name!r} need {rules.n_tiles}")
        if sorted(wall) != sorted(int(t) for t in full_set(rules.n_tiles)):
            raise ValueError("the wall is not one full set of tiles")
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0-3, got {dealer!r}")
        if rules.wall_layout == "indicator" and rules.flowers:
            raise ValueError("the rules define no indicator among flowers: the indicator layout with flowers "
                             "is not supported")
        self.rules, self.wall, self.dealer = rules, wall, dealer
        n = len(wall)

        # Where the next tiles come from (docs/RULES.md 3, game_flow.md "Deal").
        self.live_next = FIRST_LIVE
        self.replacements_taken = 0
        if rules.wall_layout == "indicator":
            self.indicator = wall[-1]
            self.hui = hui_of_indicator(self.indicator) if rules.hui else None
            self.reserve_start = n - 1 - rules.reserve  # reserve = wall[reserve_start : n-1]
            self.live_end = self.reserve_start  # live wall = wall[53 : live_end]
            self.tail_next = n - 2  # kong replacements: wall[-2], wall[-3], ...
        else:
            self.indicator = self.hui = None
            self.tail_next = n - 1  # replacements: wall[-1], wall[-2], ...

        self.hands = [[0] * N_KINDS for _ in range(4)]
        self.melds = [[] for _ in range(4)]
        self.meld_physical = [[] for _ in range(4)]  # tiles really in each meld (惠牌 fill-ins)
        self.river = [[] for _ in range(4)]
        self.flowers = [[] for _ in range(4)]
        self.ting_declared = [False] * 4
        self.has_discarded = [False] * 4
        self.any_call = False  # a chi, pong or kong (of any kind) was declared by anyone
        self.claims_from = [[0] * 4 for _ in range(4)]  # claims_from[a][b]: discards a claimed from b
        self.kongs = []  # completed kongs: (seat, "exposed" | "added" | "concealed", from_seat or None)
        # 烧庄: rounds of four equal discards dealer, d+1, d+2, d+3 from the dealer's first discard.
        self.shaozhuang_alive = rules.shaozhuang
        self.shaozhuang_rounds = 0
        self.shaozhuang_tile = None
        self.shaozhuang_seen = 0  # equal discards seen in the current round

        self.phase, self.to_act = None, None
        self._steps, self._legal = 0, None
        self.wins, self.claimed_win_tile, self._result = [], None, None

        # Deal: dealer wall[0:13], d+1 wall[13:26], d+2 wall[26:39], d+3 wall[39:52], dealer wall[52].
        dealt = {}
        for k in range(4):
            dealt[(dealer + k) % 4] = wall[13 * k: 13 * k + 13]
        dealt[dealer] = dealt[dealer] + [wall[DEAL_TILE]]
        for seat, tiles in dealt.items():
            for t in tiles:
                if t >= FIRST_FLOWER:
                    self.flowers[seat].append(t)
                else:
                    self.hands[seat][t] += 1
        first_tile = self._replace_dealt_flowers()
        if first_tile is None:
            self._end_drawn()  # the wall ran out of replacements for the flowers
        else:
            self._begin_turn(dealer, first_tile, "deal")

    def _replace_dealt_flowers(self):
        """Flowers (quemen): from the dealer in play order, each seat replaces its dealt flowers
        from the tail. Returns the dealer's turn tile: wall[52], or if that is a flower the
        dealer's last replacement; None if no replacement was left."""
        first_tile = self.wall[DEAL_TILE]
        for k in range(4):
            seat = (self.dealer + k) % 4
            for _ in range(len(self.flowers[seat])):
                tile = self._receive(seat, self._take_replacement())
                if tile is None:
                    return None
                if seat == self.dealer and self.wall[DEAL_TILE] >= FIRST_FLOWER:
                    first_tile = tile
        return first_tile

    # ------------------------------------------------------------------------------------------
    # The wall
    # ------------------------------------------------------------------------------------------

    def undrawn(self) -> list[int]:
        """Tiles still in the wall (live part and tail/reserve), the indicator excluded."""
        if self.rules.wall_layout == "indicator":
            return self.wall[self.live_next:self.live_end] + self.wall[self.reserve_start:self.tail_next + 1]
        return self.wall[self.live_next:self.tail_next + 1]

    def can_draw(self) -> bool:
        """May the next normal (live) draw happen? If not, a player who must draw ends the hand."""
        if self.rules.wall_layout == "indicator":
            return self.live_next < self.live_end
        undrawn = self.tail_next - self.live_next + 1
        kept = 2 * self.rules.tail_stacks_kept
        if self.rules.tail_stacks_kept and self.replacements_taken % 2 == 1:
            kept += 1  # the odd single tile at the tail is not a stack
        return undrawn > kept

    def kong_possible(self) -> bool:
        """beijing: the reserve is not empty; elsewhere: at least one undrawn tile, hebei's kept
        stacks included (docs/RULES.md 6.4)."""
        if self.rules.wall_layout == "indicator":
            return self.tail_next >= self.reserve_start
        return self.tail_next >= self.live_next

    def _take_replacement(self):
        """The next replacement tile from the tail (beijing: the reserve), or None if none."""
        floor = self.reserve_start if self.rules.wall_layout == "indicator" else self.live_next
        if self.tail_next < floor:
            return None
        tile = self.wall[self.tail_next]
        self.tail_next -= 1
        self.replacements_taken += 1
        return tile

    def _receive(self, seat: int, tile):
        """Put a drawn tile in the hand; a flower is laid out and replaced at once. Returns the
        tile kept, or None when a replacement was needed and none was left."""
        while tile is not None and tile >= FIRST_FLOWER:
            self.flowers[seat].append(tile)
            tile = self._take_replacement()
        if tile is not None:
            self.hands[seat][tile] += 1
        return tile

    # ------------------------------------------------------------------------------------------
    # Turns
    # ------------------------------------------------------------------------------------------

    def _begin_turn(self, seat: int, tile, source: str):
        """``source``: "deal" (dealer's first turn), "live", "kong" (replacement), "claim" (chi/pong)."""
        self.phase, self.to_act = TURN, seat
        self.turn_tile = tile  # the tile just drawn (None after chi/pong)
        self.turn_source = source
        self.after_claim = source == "claim"
        # the 海底 tile: the last tile drawn before the wall ends. A kong replacement may be it on a tail
        # wall (quemen: the wall's last tile; hebei: a replacement after which no normal draw is left),
        # never one from beijing's reserve (its 海底 is the last live tile)
        live_source = source == "live" or (source == "kong" and self.rules.wall_layout == "tail")
        self.drew_last = live_source and not self.can_draw()
        if (self.rules.hui and self.rules.four_hui_win and source != "claim"
                and self.hands[seat][self.hui] == 4):
            # 四惠牌, also when the fourth 惠牌 is a kong replacement (docs/RULES.md 6.4)
            self._end_with_wins([self._win_input(seat, tile, discarder=None)])

    def _draw_for(self, seat: int):
        if not self.can_draw():
            return self._end_drawn()
        tile = self.wall[self.live_next]
        self.live_next += 1
        tile = self._receive(seat, tile)
        if tile is None:
            return self._end_drawn()
        self._begin_turn(seat, tile, "live")

    def _replacement_turn(self, seat: int):
        tile = self._receive(seat, self._take_replacement())
        if tile is None:
            return self._end_drawn()
        self._begin_turn(seat, tile, "kong")

    def _split_hui(self, hand):
        """(natural counts, number of 惠牌) of a concealed hand."""
        naturals = list(hand)
        wild = 0
        if self.rules.hui:
            wild = naturals[self.hui]
            naturals[self.hui] = 0
        return naturals, wild

    def _all_tiles(self, seat: int, extra=None) -> list[int]:
        """Counts of the seat's concealed tiles, its melds and ``extra``: the tiles as they are, a 惠牌 that
        fills a meld (hui_wild_in_melds) counted as itself, as a concealed 惠牌 is (缺一门 and the waits
        that cannot come read the tiles held)."""
        counts = list(self.hands[seat])
        for physical in self.meld_physical[seat]:
            for t in physical:
                counts[t] += 1
        if extra is not None:
            counts[extra] += 1
        return counts

    def can_self_draw(self, seat: int) -> bool:
        if self.after_claim:
            return False
        naturals, wild = self._split_hui(self.hands[seat])
        if not is_winning_shape(self.rules, naturals, wild, len(self.melds[seat])):
            return False
        return not self.rules.lack_suit or lacks_a_suit(self._all_tiles(seat))

    def can_win_on(self, seat: int, tile: int) -> bool:
        """May ``seat`` win on ``tile`` discarded (or robbed from an added kong)? The tile is at
        face value; the seat's own 惠牌 are wild."""
        if self.rules.discard_win_concealed_only and any(m.type != "concealed_kong" for m in self.melds[seat]):
            return False
        naturals, wild = self._split_hui(self.hands[seat])
        if self.rules.hui and self.rules.self_draw_only_hui and wild >= self.rules.self_draw_only_hui:
            return False
        naturals[tile] += 1
        if not is_winning_shape(self.rules, naturals, wild, len(self.melds[seat])):
            return False
        return not self.rules.lack_suit or lacks_a_suit(self._all_tiles(seat, extra=tile))

    def waits_after_discard(self, seat: int, discard: int) -> list[int]:
        """Kinds that would complete the hand after discarding ``discard`` (quemen: lacking a suit).
        A kind of which the seat already holds all four (hand, melds and the discard itself) cannot come
        and is left out.
        报听 needs at least one (docs/RULES.md 6.4)."""
        return list(self._waits(seat, discard))

    def _waits(self, seat: int, discard: int):
        hand = list(self.hands[seat])
        hand[discard] -= 1
        own = self._all_tiles(seat)
        own[discard] -= 1
        if self.rules.lack_suit and not lacks_a_suit(own):
            return  # one more tile never takes a suit away
        naturals, wild = self._split_hui(hand)
        # Exact prefilter: some kind completes the hand iff one extra wildcard (= any kind) does.
        if not is_winning_shape(self.rules, naturals, wild + 1, len(self.melds[seat])):
            return
        for k in range(N_KINDS):
            if own[k] + (k == discard) >= 4:  # all four the seat's own, the discard among them
                continue
            own[k] += 1
            lacking = not self.rules.lack_suit or lacks_a_suit(own)
            own[k] -= 1
            trial = list(naturals)
            trial[k] += 1
            if lacking and is_winning_shape(self.rules, trial, wild, len(self.melds[seat])):
                yield k

    def _turn_legal(self) -> list[int]:
        seat, hand, rules = self.to_act, self.hands[self.to_act], self.rules
        acts = []
        if self.can_self_draw(seat):
            acts.append(WIN)
        if not self.after_claim and not self.ting_declared[seat] and self.kong_possible():
            for x in range(N_KINDS):
                concealed = hand[x] == 4
                added = hand[x] >= 1 and any(m.type == "pong" and m.tiles[0] == x for m in self.melds[seat])
                if concealed or added:
                    acts.append(KONG_SELF + x)
        if self.ting_declared[seat]:
            acts.append(DISCARD + self.turn_tile)  # after 报听: only the tile just drawn
        else:
            acts += [DISCARD + x for x in range(N_KINDS) if hand[x] > 0]
        if rules.ting and not self.ting_declared[seat]:
            acts += [TING + x for x in range(N_KINDS)
                     if hand[x] > 0 and next(self._waits(seat, x), None) is not None]
        return acts

    def _turn_step(self, action: int):
        seat = self.to_act
        if action == WIN:
            return self._end_with_wins([self._win_input(seat, self.turn_tile, discarder=None)])
        if KONG_SELF <= action < KONG_SELF + N_KINDS:
            x = action - KONG_SELF
            if self.hands[seat][x] == 4:
                self.hands[seat][x] -= 4
                self.melds[seat].append(Meld("concealed_kong", (x,) * 4, None))
                self.meld_physical[seat].append([x] * 4)
                self.kongs.append((seat, "concealed", None))
                self.any_call = True
                return self._replacement_turn(seat)
            return self._open_rob_window(seat, x)
        if TING <= action < TING + N_KINDS:
            self.ting_declared[seat] = True
            return self._discard(seat, action - TING)
        return self._discard(seat, action - DISCARD)

    def _discard(self, seat: int, tile: int):
        self.hands[seat][tile] -= 1
        self.river[seat].append(tile)
        self.has_discarded[seat] = True
        self.discard_was_last = self.drew_last  # a win on it is 海底 (game_flow.md flags)
        self._count_shaozhuang(seat, tile)
        self._open_claim_window(seat, tile)

    def _count_shaozhuang(self, seat: int, tile: int):
        """docs/RULES.md 6.4: only a claim (``_carry_out``) or a discard that differs from the round's
        tile or comes out of turn ends 烧庄; kongs between the round's discards do not."""
        if not self.shaozhuang_alive:
            return
        expected_seat = (self.dealer + self.shaozhuang_seen) % 4
        if seat != expected_seat or (self.shaozhuang_seen > 0 and tile != self.shaozhuang_tile):
            self.shaozhuang_alive = False  # the first round that breaks ends it for the hand
            return
        self.shaozhuang_tile = tile
        self.shaozhuang_seen += 1
        if self.shaozhuang_seen == 4:
            self.shaozhuang_rounds += 1
            self.shaozhuang_seen = 0

    # ------------------------------------------------------------------------------------------
    # The claim window (game_flow.md "After a discard")
    # ------------------------------------------------------------------------------------------

    def claims_on_discard(self, seat: int, tile: int, discarder: int) -> list[int]:
        """Every claim ``seat`` may make on ``tile`` discarded by ``discarder`` (pass excluded)."""
        rules, hand = self.rules, self.hands[seat]
        acts = []
        if self.can_win_on(seat, tile):
            acts.append(WIN)
        if self.ting_declared[seat]:
            return acts  # after 报听 no claim but a win
        fill = rules.hui_wild_in_melds
        if tiles_for_meld(hand, [tile, tile], self.hui, fill) is not None:
            acts.append(PONG)
        if self.kong_possible() and tiles_for_meld(hand, [tile, tile, tile], self.hui, fill) is not None:
            acts.append(KONG)
        if rules.chi and seat == (discarder + 1) % 4 and tile < 27:
            for c in range(N_CHI):
                run = [chi_start(c), chi_start(c) + 1, chi_start(c) + 2]
                if run[0] <= tile <= run[2] and tile in run:
                    others = [k for k in run if k != tile]
                    if tiles_for_meld(hand, others, self.hui, fill) is not None:
                        acts.append(CHI + c)
        return acts

    def _open_claim_window(self, discarder: int, tile: int):
        self.discarder, self.discard_tile = discarder, tile
        self.claim_options = {}
        for k in (1, 2, 3):
            seat = (discarder + k) % 4
            acts = self.claims_on_discard(seat, tile, discarder)
            if acts:
                self.claim_options[seat] = acts
        # Queue: by best category, then play order from the discarder.
        self.queue = sorted(self.claim_options,
                            key=lambda s: (self._best(s), (s - discarder) % 4))
        self.threshold = 3  # only claims of a category below this are offered
        self.pending = None  # (seat, action) of an accepted claim waiting on better ones
        self.claim_winners = []
        self._next_in_claim_queue()

    def _best(self, seat: int) -> int:
        return min(claim_category(a) for a in self.claim_options[seat])

    def _claim_legal(self) -> list[int]:
        acts = [a for a in self.claim_options[self.to_act] if claim_category(a) < self.threshold]
        return acts + [PASS]

    def _claim_step(self, action: int):
        seat = self.queue.pop(0)
        if action == WIN:
            self.claim_winners.append(seat)
            self.pending = None  # a win replaces a pending claim
            # beijing/quemen: the first to accept wins; hebei: the other winners are still asked.
            self.threshold = 1 if self.rules.multiple_winners else 0
        elif action != PASS:
            self.pending = (seat, action)  # carried out below unless a better claim may come
            self.threshold = claim_category(action)
        self.queue = [s for s in self.queue if self._best(s) < self.threshold]
        self._next_in_claim_queue()

    def _next_in_claim_queue(self):
        if self.queue:
            self.phase, self.to_act = CLAIM, self.queue[0]
            return
        if self.claim_winners:
            self.claimed_win_tile = self.river[self.discarder].pop()
            return self._end_with_wins([self._win_input(s, self.discard_tile, discarder=self.discarder)
                                        for s in self.claim_winners])
        if self.pending:
            return self._carry_out(*self.pending)
        self._draw_for((self.discarder + 1) % 4)

    def _carry_out(self, seat: int, action: int):
        tile, discarder = self.discard_tile, self.discarder
        self.river[discarder].pop()
        if action == PONG:
            kind, face, others = "pong", [tile] * 3, [tile, tile]
        elif action == KONG:
            kind, face, others = "kong", [tile] * 4, [tile, tile, tile]
        else:
            start = chi_start(action - CHI)
            face = [start, start + 1, start + 2]
            kind, others = "chi", [k for k in face if k != tile]
        taken = tiles_for_meld(self.hands[seat], others, self.hui, self.rules.hui_wild_in_melds)
        for t in taken:
            self.hands[seat][t] -= 1
        self.melds[seat].append(Meld(kind, tuple(face), discarder))
        self.meld_physical[seat].append(sorted(taken + [tile]))
        self.claims_from[seat][discarder] += 1
        self.shaozhuang_alive = False
        self.any_call = True
        if action == KONG:
            self.kongs.append((seat, "exposed", discarder))
            return self._replacement_turn(seat)
        self._begin_turn(seat, None, "claim")

    # ------------------------------------------------------------------------------------------
    # Added kong and the ROB window
    # ------------------------------------------------------------------------------------------

    def _open_rob_window(self, seat: int, tile: int):
        self.kong_declarer, self.kong_tile = seat, tile
        self.queue = [(seat + k) % 4 for k in (1, 2, 3) if self.can_win_on((seat + k) % 4, tile)]
        self.rob_winners = []
        self._next_in_rob_queue()

    def _rob_step(self, action: int):
        seat = self.queue.pop(0)
        if action == WIN:
            self.rob_winners.append(seat)
            if not self.rules.multiple_winners:
                self.queue = []
        self._next_in_rob_queue()

    def _next_in_rob_queue(self):
        seat, tile = self.kong_declarer, self.kong_tile
        if self.queue:
            self.phase, self.to_act = ROB, self.queue[0]
            return
        self.hands[seat][tile] -= 1
        if self.rob_winners:  # the kong does not complete; the pong stays a pong
            self.claimed_win_tile = tile
            return self._end_with_wins([self._win_input(s, tile, discarder=seat, robbed=True)
                                        for s in self.rob_winners])
        i = next(i for i, m in enumerate(self.melds[seat]) if m.type == "pong" and m.tiles[0] == tile)
        self.melds[seat][i] = Meld("added_kong", (tile,) * 4, self.melds[seat][i].from_seat)
        self.meld_physical[seat][i] = sorted(self.meld_physical[seat][i] + [tile])
        self.kongs.append((seat, "added", None))
        self.any_call = True
        self._replacement_turn(seat)

    # ------------------------------------------------------------------------------------------
    # Public step
    # ------------------------------------------------------------------------------------------

    def legal(self) -> list[int]:
        """Sorted legal action ids for ``to_act`` ([] at END)."""
        if self._legal is None or self._legal[0] != self._steps:  # computed once per state
            self._legal = (self._steps, self._compute_legal())
        return list(self._legal[1])

    def _compute_legal(self) -> list[int]:
        if self.phase == TURN:
            acts = self._turn_legal()
        elif self.phase == CLAIM:
            acts = self._claim_legal()
        elif self.phase == ROB:
            acts = [WIN, PASS]
        else:
            acts = []
        return sorted(set(acts))

    def step(self, action: int):
        legal = self.legal()
        if action not in legal:
            try:
                label = name(action)
            except ActionError:
                label = "no such action"
            raise ActionError(f"action {action!r} ({label}) is illegal for seat {self.to_act} in phase "
                              f"{self.phase}; legal: {[name(a) for a in legal]}")
        self._steps += 1
        if self.phase == TURN:
            self._turn_step(int(action))
        elif self.phase == CLAIM:
            self._claim_step(int(action))
        else:
            self._rob_step(int(action))

    # ------------------------------------------------------------------------------------------
    # End of the hand
    # ------------------------------------------------------------------------------------------

    def hubao_pairs(self) -> list[list[int]]:
        """Seat pairs [a, b] (a < b) bound by 互包: one claimed hubao_claims discards from the other."""
        if not self.rules.hubao:
            return []
        n = self.rules.hubao_claims
        return [[a, b] for a in range(4) for b in range(a + 1, 4)
                if self.claims_from[a][b] >= n or self.claims_from[b][a] >= n]

    def _win_input(self, winner: int, win_tile: int, discarder, robbed: bool = False) -> dict:
        """The calculator input (docs/INTERFACES.md 1) that describes this win."""
        hand = list(self.hands[winner])
        if discarder is None:
            hand[win_tile] -= 1  # a self-drawn winning tile is in the hand; the input holds it apart
            last_tile, after_kong = self.drew_last, self.turn_source == "kong"
        else:
            last_tile, after_kong = (self.discard_was_last and not robbed), False
        melds = []
        for m, physical in zip(self.melds[winner], self.meld_physical[winner]):
            entry = {"type": m.type, "tiles": format_tiles(physical)}  # 惠牌 fill-ins as themselves
            if m.from_seat is not None:
                entry["from"] = m.from_seat
            melds.append(entry)
        out = {
            "rules": rules_json(self.rules),  # the preset name, or name + overridden fields
            "hand": format_tiles([k for k in range(N_KINDS) for _ in range(hand[k])]),
            "win_tile": code(win_tile),
            "melds": melds,
            "winner": winner,
            "dealer": self.dealer,
            "discarder": discarder,
            "situation": {
                "last_tile": last_tile,
                "after_kong": after_kong,
                "robbed_kong": robbed,
                # 天和/地和/地胡: void once anyone declared a chi, pong or kong (docs/RULES.md 6.4)
                "first_turn": not self.has_discarded[winner] and not self.any_call,
            },
            "shaozhuang_rounds": self.shaozhuang_rounds,
            "hubao": self.hubao_pairs(),
            "flowers": len(self.flowers[winner]),
            "ting": self.ting_declared[winner],
            "base": self.rules.base,
        }
        if self.rules.hui:
            out["hui"] = code(self.hui)
        return out

    def _end_with_wins(self, wins: list[dict]):
        self.phase, self.to_act, self.wins = END, None, wins

    def _end_drawn(self):
        self.phase, self.to_act, self.wins = END, None, []

    @property
    def winners(self) -> list[int]:
        return [w["winner"] for w in self.wins]

    @property
    def next_dealer(self) -> int:
        """Stays after a dealer win or a drawn hand; else passes (dealer_rotation)."""
        if self.phase != END:
            raise ValueError("the hand has not ended")
        if not self.wins or self.dealer in self.winners:
            return self.dealer
        return (self.dealer + (-1 if self.rules.dealer_rotation == "previous" else 1)) % 4

    @property
    def result(self) -> dict:
        """The settlement at END, from ``mj_env.calculator``: a win -> ``evaluate(input)`` plus
        ``"input"``; several winners -> ``{"wins": [...], "scores": summed}`` (烧庄 once, with ``"shaozhuang"``); a drawn hand ->
        ``settle_draw(...)``. Kong payments (hebei, quemen) are added into ``scores``."""
        if self.phase != END:
            raise ValueError("the hand has not ended")
        if self._result is None:
            rules = self.rules
            if not self.wins:
                res = dict(calculator.settle_draw(rules, self.dealer, self.shaozhuang_rounds, rules.base))
                pay_kongs = rules.kong_payments and rules.kong_payments_on_draw
            else:
                settled = [dict(calculator.evaluate(w), input=w) for w in self.wins]
                if len(settled) == 1:
                    res = settled[0]
                else:
                    res = {"wins": settled,
                           "scores": [sum(s["scores"][i] for s in settled) for i in range(4)]}
                    if rules.shaozhuang:  # every win's object holds the hand's 烧庄 line; it is paid once
                        line = settled[0]["shaozhuang"]
                        res["shaozhuang"] = line
                        for seat in range(4):
                            once = (-3 * line if seat == self.dealer else line) * rules.base
                            res["scores"][seat] -= (len(settled) - 1) * once
                pay_kongs = rules.kong_payments
            if pay_kongs:
                extra = calculator.kong_payments(rules, self.kongs)
                res["scores"] = [a + b for a, b in zip(res["scores"], extra)]
            self._result = res
        return self._result
