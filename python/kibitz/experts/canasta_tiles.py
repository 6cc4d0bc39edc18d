"""The expert player of tile Canasta (4 players in two teams, hidden hands).

It plays from the rules (docs/games/canasta_tiles.md) and its own view: its hand, both
teams' melds, the whole discard pile (public by default), the tiles known to be in other
hands (those they picked up with the pile) and the hand sizes. The engine splits a turn
into sub-decisions (draw or take; a rank, then its lay; the discard); the expert answers
each from a plan that a careful human player would follow:

- **Draw or take.** Take the pile whenever the engine allows it and the pile is worth more
  than the blocking threes it would bring: the top and the pair go to the team's meld at
  once, and every natural or wild in the pile is material for canastas.
- **Open** as soon as it can, with naturals first: the fewest wilds that reach the
  threshold (wilds are the scarce tiles that finish canastas later).
- **Meld** once open: every group of three or more naturals, every natural that fits a team
  meld, and wilds only where they complete a canasta (a clean meld waits for naturals
  while the stock is long). A new meld of two naturals and a wild only with wilds to spare:
  a pair in hand is also what takes the pile. Twos laid in the twos meld are wilds given
  up, so they go there only to complete its canasta or in numbers.
- **Discard safely.** The next seat is an opponent; it takes the pile with a natural pair of
  the top's rank. For each candidate the expert counts the tiles of that rank it has not
  seen (8 per rank minus its hand, both teams' melds, the pile and the tiles known in other
  hands) and the hypergeometric chance that the opponent's unknown tiles hold the pair
  (with its known tiles added), times what the pile would give them. A blocking three
  (useless, −100 in hand, and it freezes the pile for the next seat) goes first; a wild
  freezes the pile too, and is given up only when the pile is worth more than the wild.
  Among safe tiles it keeps pairs and tiles of the team's melds, and throws singletons,
  the dearest first as the stock runs out.
- **Which copies went** (the ``copies`` decision after playing tiles of a kind it holds
  known copies of): the known ones, which tells the opponents nothing new.
- **Go out** when the team leads after the round's scoring (its table, the going-out bonus,
  the tiles left in the partner's hand estimated from its size) and not otherwise: going
  out while behind only seals the loss.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from kibitz.game import Move, State, View

KINDS = ("1", "2", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "J", "k3")
NATURALS = ("1", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13")
WILDS = ("2", "J")
TILES_PER_NATURAL = 8  # two copies in four colours
VALUE = {
    "1": 25,
    "2": 20,
    "J": 50,
    "k3": 0,
    **{r: 5 for r in ("4", "5", "6", "7", "8", "9")},
    **{r: 10 for r in ("10", "11", "12", "13")},
}
CANASTA = 7
CLEAN_BONUS, DIRTY_BONUS = 500, 300
CLEAN_TWOS_BONUS, DIRTY_TWOS_BONUS = 1000, 700
GOING_OUT_BONUS = 100
BLOCKING_THREE_PENALTY = 100
BONUS_THREE = 100
TEAMS = 2


@dataclass(frozen=True)
class Weights:
    """The expert's weights (spec options ``expert:<name>=<value>``), in points."""

    wild_keep: float = 100.0
    """Worth of keeping a wild in hand instead of laying it without completing a canasta."""
    pair_keep: float = 25.0
    """Worth of a natural pair in hand (it can take the pile)."""
    meld_fit: float = 20.0
    """Worth of a natural in hand that fits a team meld."""
    pile_tile: float = 12.0
    """What one pile tile is worth to the team that takes it."""
    hand_tile: float = 12.0
    """Mean points of an unseen tile left in a hand at the end (partner and opponents)."""
    clean_wait: float = 20.0
    """Stock size above which a clean meld one tile short waits for a natural."""


@dataclass(frozen=True)
class Meld:
    rank: str
    naturals: int
    twos: int
    jokers: int

    @classmethod
    def parse(cls, text: str) -> Meld:
        rank, _, rest = text.partition("x")
        parts = rest.split("+")
        return cls(rank, int(parts[0]), parts[1:].count("2"), parts[1:].count("J"))

    @property
    def size(self) -> int:
        return self.naturals + self.twos + self.jokers

    @property
    def wilds(self) -> int:
        return self.jokers if self.rank == "2" else self.twos + self.jokers

    def value(self) -> int:
        """Tile values plus the canasta bonus, as the round's scoring counts them."""
        tiles = self.naturals * VALUE[self.rank] + self.twos * VALUE["2"] + self.jokers * VALUE["J"]
        if self.size < CANASTA:
            return tiles
        if self.rank == "2":
            return tiles + (CLEAN_TWOS_BONUS if self.jokers == 0 else DIRTY_TWOS_BONUS)
        return tiles + (CLEAN_BONUS if self.wilds == 0 else DIRTY_BONUS)


def _tiles(text: str) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    if text not in ("-", "") and not text.startswith("?"):
        for kind in text.split("."):
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _melds(text: str) -> dict[str, Meld]:
    return {} if text == "-" else {m.rank: m for m in map(Meld.parse, text.split(","))}


@dataclass
class Table:
    """What the bot's view tells (docs/games/canasta_tiles.md §3)."""

    seat: int
    phase: str
    hand: dict[str, int]
    hand_sizes: list[int]
    known: list[dict[str, int]]
    stock: int
    top: str | None
    pile: dict[str, int]  # below the top (all zero when the pile is hidden: pile_fully_visible=0)
    pile_size: int  # below the top
    melds: list[dict[str, Meld]]  # by team
    opened: list[bool]
    bonus: list[int]
    totals: list[int]

    @classmethod
    def from_view(cls, view: View) -> Table:
        f = view.fields()
        hands = f["hands"].split(",")
        return cls(
            seat=view.seat,
            phase=f["phase"],
            hand=_tiles(hands[view.seat]),
            hand_sizes=[int(h[1:]) if h.startswith("?") else (0 if h == "-" else len(h.split("."))) for h in hands],
            known=[_tiles(k) for k in f["known"].split(",")],
            stock=int(f["stock"].lstrip("?")) if f["stock"] != "-" else 0,
            top=None if f["top"] == "-" else f["top"],
            pile=_tiles(f["pile"]),
            pile_size=int(f["pile"][1:]) if f["pile"].startswith("?") else sum(_tiles(f["pile"]).values()),
            melds=[_melds(t) for t in f["melds"].split("/")],
            opened=[x == "1" for x in f["opened"].split(",")],
            bonus=[int(x) for x in f["bonus"].split(",")],
            totals=[int(x) for x in f["totals"].split(",")],
        )

    @property
    def team(self) -> int:
        return self.seat % TEAMS

    def has_canasta(self, team: int) -> bool:
        return any(m.size >= CANASTA for m in self.melds[team].values())

    def unseen(self, kind: str) -> int:
        """Tiles of ``kind`` the bot has not seen: in the stock or the unknown part of a hand."""
        seen = self.hand[kind] + self.pile[kind] + (self.top == kind)
        for team in range(TEAMS):
            meld = self.melds[team].get(kind)
            seen += meld.naturals if meld else 0
        seen += sum(k[kind] for s, k in enumerate(self.known) if s != self.seat)
        return TILES_PER_NATURAL - seen

    def unseen_total(self) -> int:
        """The stock plus every other hand's unknown part: the pool hidden tiles come from."""
        return self.stock + sum(self.hand_sizes[s] - sum(self.known[s].values()) for s in range(4) if s != self.seat)

    def table_points(self, team: int) -> int:
        """The team's melds and bonus threes as the round's scoring would count them now."""
        opened = self.opened[team]
        return sum(m.value() for m in self.melds[team].values()) + (BONUS_THREE if opened else -BONUS_THREE) * self.bonus[team]


def chance_at_least(need: int, successes: int, population: int, draws: int) -> float:
    """The hypergeometric chance of at least ``need`` successes in ``draws`` from a
    ``population`` holding ``successes``."""
    if need <= 0:
        return 1.0
    if population <= 0 or draws <= 0 or successes < need:
        return 0.0
    draws = min(draws, population)
    total = math.comb(population, draws)
    short = sum(math.comb(successes, k) * math.comb(population - successes, draws - k) for k in range(need))
    return 1.0 - short / total


def _lay_shape(move: str) -> tuple[str, int, int, int]:
    """``lay:9x2+2+J`` -> (rank, naturals, twos, jokers)."""
    meld = Meld.parse(move.split(":", 1)[1])
    return meld.rank, meld.naturals, meld.twos, meld.jokers


class Player:
    """Plays tile Canasta for one seat (see the module's docstring)."""

    def __init__(self, weights: Weights, rng: random.Random) -> None:
        self.w = weights
        self.rng = rng

    def act(self, view: View) -> Move:
        state = view.state()  # hidden parts are placeholders: only the bot's own options are read
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        table = Table.from_view(view)
        if table.phase == "draw":
            return self.draw_or_take(table, moves)
        if table.phase == "first":
            return self.discard(table, moves)
        if table.phase == "copies":
            # Which of the tiles just played were the known copies: saying all of them
            # shows the opponents nothing new about the tiles still in hand.
            return max(moves, key=lambda m: 0 if m == "known:-" else len(m.split(":", 1)[1].split(".")))
        out = self.going_out(state, table)
        if out is not None:
            return out
        if table.phase == "shape":
            return self.shape(table, moves)
        return self.meld_or_discard(state, table, moves)

    # -- draw phase --

    def draw_or_take(self, table: Table, moves: list[str]) -> str:
        if "take" in moves:
            pile = table.pile
            worth = sum(pile[k] for k in NATURALS) + 2 * sum(pile[k] for k in WILDS) - 2 * pile["k3"]
            if worth >= -1:  # the top and the pair are melded at once: progress by itself
                return "take"
        if "joker" in moves:
            return "joker"  # a known joker instead of a random tile
        return "draw"

    # -- melding --

    def lay_worth(self, table: Table, rank: str, naturals: int, twos: int, jokers: int) -> float:
        """What laying this shape at ``rank`` gains over keeping the tiles (> 0: lay)."""
        w = self.w
        meld = table.melds[table.team].get(rank)
        size_before = meld.size if meld else 0
        wilds_before = meld.wilds if meld else 0
        if rank == "2":
            wild_count, size_after, dirty = jokers, size_before + naturals + jokers, (meld.jokers if meld else 0) + jokers > 0
        else:
            wild_count, size_after, dirty = (
                twos + jokers,
                size_before + naturals + twos + jokers,
                wilds_before + twos + jokers > 0,
            )
        gain = naturals * (VALUE[rank] + 10.0)
        completes = size_before < CANASTA <= size_after
        if completes:
            gain += (
                DIRTY_TWOS_BONUS
                if rank == "2" and dirty
                else CLEAN_TWOS_BONUS
                if rank == "2"
                else DIRTY_BONUS
                if dirty
                else CLEAN_BONUS
            )
        elif wild_count:
            gain -= w.wild_keep * wild_count
        if (
            wild_count
            and meld is not None
            and meld.wilds == 0
            and size_before >= 4
            and table.stock > w.clean_wait
            and not completes
        ):
            gain -= CLEAN_BONUS - DIRTY_BONUS  # a wild would make a clean meld dirty
        if meld is None and naturals == 2:
            gain -= w.pair_keep  # the pair could take the pile instead
        if rank == "2" and not completes:
            # Twos laid in the twos meld are wilds given up; a twos canasta (1,000 clean)
            # needs 7 of the 8 twos, so a twos meld is started only with many.
            gain -= w.wild_keep * naturals * (0.5 if meld else 1.0)
        return gain

    def shape(self, table: Table, moves: list[str]) -> str:
        """The lay at the chosen rank; while opening, reach the threshold with the fewest wilds."""

        def score(move: str) -> float:
            rank, n, t, j = _lay_shape(move)
            if not table.opened[table.team]:
                return n * 100 - (t + j) * 10 - j  # naturals first, then twos before jokers
            return self.lay_worth(table, rank, n, t, j)

        return max(moves, key=score)

    def best_lay(self, state: State, table: Table, move: str) -> tuple[float, str]:
        """The best lay after ``rank:<r>`` (``move``) and its worth."""
        after = state.clone()
        after.apply(move)
        lays = after.legal_moves()
        best = max(lays, key=lambda m: self.lay_worth(table, *_lay_shape(m)))
        return self.lay_worth(table, *_lay_shape(best)), best

    def meld_or_discard(self, state: State, table: Table, moves: list[str]) -> str:
        ranks = [m for m in moves if m.startswith("rank:")]
        if "done" in moves:
            return "done"  # the pickup's opening is complete: the pile joins the hand
        if not table.opened[table.team] or table.phase == "take":
            if ranks:
                # Opening (or completing a pickup's opening): the rank with the most
                # natural value in hand first, so the fewest wilds are needed.
                return max(ranks, key=lambda m: table.hand[m[5:]] * (VALUE[m[5:]] + 1) if m[5:] != "2" else 0)
            return self.discard(table, moves)
        worths = [(self.best_lay(state, table, move)[0], move) for move in ranks]
        for worth, move in worths:  # ranks come in increasing order; lay each that pays
            if worth > 0:
                return move
        if not any(m.startswith("discard:") for m in moves):
            return max(worths)[1]  # no discard offered yet: the least bad lay
        return self.discard(table, moves)

    # -- going out --

    def going_out(self, state: State, table: Table) -> str | None:
        """The first move of a way to go out this turn, if one exists and going out wins."""
        if table.phase not in ("meld", "shape") or not table.opened[table.team]:
            return None
        if sum(table.hand.values()) > 8:
            return None
        path = self._path_out(state, table.seat, budget=[2000])
        if path is None:
            return None
        end = state.clone()
        for move in path:
            end.apply(move)
        if not self.wins_after_out(table, end):
            return None
        return path[0]

    def _path_out(self, state: State, seat: int, budget: list[int]) -> list[str] | None:
        """A sequence of this turn's decisions that ends the round with the bot's hand empty."""
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        if state.is_terminal() or state.current_player != seat:
            return [] if self._went_out(state, seat) else None
        for move in state.legal_moves():
            child = state.clone()
            child.apply(move)
            if move.startswith("discard:") and not self._went_out(child, seat):
                continue
            rest = self._path_out(child, seat, budget)
            if rest is not None:
                return [move, *rest]
        return None

    @staticmethod
    def _went_out(state: State, seat: int) -> bool:
        f = state.fields()
        return f["end"] == "out" and f["went_out"] == str(seat)

    def wins_after_out(self, table: Table, end: State) -> bool:
        """Whether the team leads once the round is scored after the bot goes out. Only the
        bot's table after its last lays is read from the finished state; the partner's and
        the opponents' hands count their known tiles and the mean for the others."""
        mine, theirs = table.team, 1 - table.team
        partner = (table.seat + 2) % 4
        ours = Table.from_view(end.view(table.seat)).table_points(mine) + GOING_OUT_BONUS - self.hand_estimate(table, partner)
        opponents = table.table_points(theirs) - sum(self.hand_estimate(table, s) for s in range(4) if s % TEAMS == theirs)
        return ours - opponents + table.totals[mine] - table.totals[theirs] > 0

    def hand_estimate(self, table: Table, seat: int) -> float:
        known = table.known[seat]
        unknown = table.hand_sizes[seat] - sum(known.values())
        return sum(VALUE[k] * n for k, n in known.items()) + BLOCKING_THREE_PENALTY * known["k3"] + self.w.hand_tile * unknown

    # -- discarding --

    def discard(self, table: Table, moves: list[str]) -> str:
        options = [m for m in moves if m.startswith("discard:")]
        nxt = (table.seat + 1) % 4
        pile_size = table.pile_size + (table.top is not None) + 1
        pile_worth = self.w.pile_tile * pile_size
        late = 1.0 - min(1.0, table.stock / 40.0)

        def cost(move: str) -> float:
            kind = move.split(":", 1)[1]
            held = table.hand[kind]
            if kind == "k3":
                return -BLOCKING_THREE_PENALTY  # useless, a penalty in hand, and it blocks
            if kind in WILDS:
                return 2 * self.w.wild_keep + VALUE[kind] - pile_worth * 0.5  # it freezes the pile
            keep = VALUE[kind] * late  # points lost if it stays in hand at the end
            fits = kind in table.melds[table.team]
            value = (self.w.meld_fit if fits else 0.0) + (self.w.pair_keep if held == 2 else 0.0)
            value += self.w.pair_keep * 0.6 if held >= 3 else 0.0
            return value - keep + self.danger(table, nxt, kind) * pile_worth

        scored = [(cost(m), self.rng.random(), m) for m in options]
        return min(scored)[2]

    def danger(self, table: Table, seat: int, kind: str) -> float:
        """The chance that ``seat`` can take the pile with ``kind`` on top: it needs a natural
        pair of that rank in hand (from its known tiles and its unknown ones)."""
        theirs = seat % TEAMS
        known = table.known[seat][kind]
        unknown = table.hand_sizes[seat] - sum(table.known[seat].values())
        p = chance_at_least(2 - known, table.unseen(kind), table.unseen_total(), unknown)
        if not table.opened[theirs]:
            p *= 0.5  # it must also reach its opening threshold with the pickup
        return p
