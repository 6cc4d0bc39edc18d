"""The expert player of Just 4 Fun Colours (2–4 players, hidden hands).

It plays as a strong human would, from the rules (docs/games/just4fun_colours.md) and its own
view only:

1. **A win on the spot is always played.** A placement that completes a line of W of its own
   top stones ends the game at once.
2. **Every placement is answered by each opponent's reply, weighted by the cards it can
   hold.** The cards the bot has not seen are the stock and the other hands (60 minus its
   own hand minus the public discard pile), so an opponent's 7 cards follow a multivariate
   hypergeometric distribution over the colours (:class:`HandModel`, exact). The replies
   are sorted from worst to best for the bot, and each is weighted by the chance that it is
   the first one in that order the opponent can pay for (``height + 1`` cards of the field's
   colour): the opponent is assumed to find its best reply. A reply that completes a line
   is a lost game.
3. **The bot's next turn decides the rest.** It wins if it can pay for a winning field
   (its hand after the placement plus the chance that the cards it draws make up the rest);
   otherwise every line the opponent then threatens must be broken with one placement (the
   missing field, or a stone those lines share) that it can pay for, or the game is lost
   with the chance that the opponent pays for the threat. Blocks, double threats and the
   cards kept to answer them all come out of this one sum.
4. **Lines are built where they are cheap.** Each line of W is worth more the more own top
   stones it holds, and less the more cards its missing fields cost (a tall tower costs
   height + 1 cards of one colour, and a height of 7 cannot be covered at all). The
   opponents' line potentials count against it (the strongest opponent fully, the others
   in part), so capturing a key stone of an opponent is valued like building one's own.
5. **Cards are kept for its own lines.** Cards of the colours of the missing fields of its
   best lines are worth keeping, so among equal placements it pays with colours it does not
   need.
6. **Area late.** The largest orthogonally connected group decides the game when nobody
   completes a line, and tall towers keep it safe, so area and tower height gain weight as
   the stones run out.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import cache
from itertools import product

from kibitz.game import Game, Move, View

SIZE = 6
FIELDS = SIZE * SIZE
COLOURS = "ROYGBP"
CARDS_PER_COLOUR = 10
HAND_SIZE = 7
STONES = 20
MAX_COVERABLE_HEIGHT = HAND_SIZE - 1  # covering height h costs h + 1 cards of one colour
NOBODY = -1


@dataclass(frozen=True)
class Weights:
    """The expert's evaluation weights (spec options ``expert:<name>=<value>``)."""

    win: float = 400.0
    """Value of a game won (and minus it for a game lost) in the evaluation's units."""
    line_base: float = 4.0
    """A line with m own stones is worth ``line_base ** (m - 1)`` before its cost."""
    line_cost_decay: float = 0.55
    """Each card a line's missing fields cost beyond one per field multiplies its worth by this."""
    opponents: float = 1.0
    """Weight of the strongest opponent's potential against the bot's own."""
    other_opponents: float = 0.4
    """Weight of each other opponent's potential (3–4 players)."""
    area: float = 3.0
    """Worth of one field of the largest orthogonal group, early; it grows late in the game."""
    area_late: float = 12.0
    """Extra worth of an area field at the end of the game (scaled by how far the game is)."""
    tower: float = 0.6
    """Worth of each stone under an own top stone (tall towers are hard to take back)."""
    keep_card: float = 1.5
    """Worth of holding a card that pays for a missing field of one of the bot's good lines."""


@dataclass(frozen=True)
class Geometry:
    """The board: field colours and the lines of W."""

    colour: tuple[int, ...]
    lines: tuple[tuple[int, ...], ...]
    lines_through: tuple[tuple[int, ...], ...]
    neighbours: tuple[tuple[int, ...], ...]


@cache
def geometry(line: int) -> Geometry:
    """The board's geometry for lines of ``line``; the colours are read from the engine's own
    board drawing, so a change of the layout reaches the expert without a second copy."""
    text = str(Game("just4fun_colours", line=line).new_initial_state(seed=0))
    colour: list[int] = []
    for row in text.splitlines()[1 : SIZE + 1]:
        colour += [COLOURS.index(token[0]) for token in row.split()[1:]]
    lines: list[tuple[int, ...]] = []
    for r, c in product(range(SIZE), range(SIZE)):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            end_r, end_c = r + dr * (line - 1), c + dc * (line - 1)
            if 0 <= end_r < SIZE and 0 <= end_c < SIZE:
                lines.append(tuple((r + dr * k) * SIZE + c + dc * k for k in range(line)))
    through = tuple(tuple(n for n, fs in enumerate(lines) if f in fs) for f in range(FIELDS))
    neighbours = tuple(
        tuple(
            (r + dr) * SIZE + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
        )
        for r, c in (divmod(f, SIZE) for f in range(FIELDS))
    )
    return Geometry(tuple(colour), tuple(lines), through, neighbours)


@dataclass
class Position:
    """What the bot's view tells: the board, its own hand, the public cards and stones."""

    seat: int
    players: int
    line: int
    owner: list[int]
    height: list[int]
    hand: list[int]
    discard: list[int]
    supply: list[int]

    @classmethod
    def from_view(cls, view: View) -> Position:
        fields_ = view.fields()
        owner, height = [NOBODY] * FIELDS, [0] * FIELDS
        for f, cell in enumerate(_board_fields(fields_["board"])):
            if cell != "..":
                owner[f], height[f] = int(cell[0]), int(cell[1])
        mine = fields_["hands"].split(",")[view.seat]
        hand = [0] * len(COLOURS)
        for letter in "" if mine == "-" else mine:
            hand[COLOURS.index(letter)] += 1
        return cls(
            seat=view.seat,
            players=int(fields_["players"]),
            line=int(fields_["line"]),
            owner=owner,
            height=height,
            hand=hand,
            discard=[int(x) for x in fields_["discard"].split(".")],
            supply=[int(x) for x in fields_["supply"].split(",")],
        )

    def unseen(self) -> list[int]:
        """Per colour, the cards this seat has not seen: in the stock or another hand."""
        return [CARDS_PER_COLOUR - h - d for h, d in zip(self.hand, self.discard)]

    def progress(self) -> float:
        """How far the game is, 0 at the start and 1 when the last stone is used."""
        return 1.0 - sum(self.supply) / (STONES * self.players)


def _board_fields(board: str) -> list[str]:
    return [cell for row in board.split("/") for cell in (row[k : k + 2] for k in range(0, len(row), 2))]


# -- probabilities over the unseen cards -------------------------------------------------------


def chance_any_need(needs: dict[int, int], unseen: list[int], drawn: int, held: list[int] | None = None) -> float:
    """The chance that a hand of ``drawn`` cards taken from the ``unseen`` cards (plus the
    cards ``held`` already) holds at least ``needs[c]`` cards of colour c for some c.

    Exact: one minus the multivariate hypergeometric probability that every needed colour
    stays short, summed over the short counts of the needed colours.
    """
    held = held or [0] * len(COLOURS)
    short: dict[int, int] = {}  # colour -> most drawn cards that still leave it short
    for c, need in needs.items():
        missing = need - held[c]
        if missing <= 0:
            return 1.0
        if missing <= drawn:
            short[c] = missing - 1
    if not short:
        return 0.0
    total = sum(unseen)
    drawn = min(drawn, total)
    rest = total - sum(unseen[c] for c in short)
    colours = list(short)
    all_hands = math.comb(total, drawn)
    stays_short = 0
    for counts in product(*(range(min(short[c], unseen[c], drawn) + 1) for c in colours)):
        taken = sum(counts)
        if taken > drawn:
            continue
        ways = math.comb(rest, drawn - taken)
        for c, k in zip(colours, counts):
            ways *= math.comb(unseen[c], k)
        stays_short += ways
    return 1.0 - stays_short / all_hands


LineTerm = tuple[int, float, int]
"""One line's part for one player: (player, worth, the field that completes it or -1)."""


@dataclass
class LineFacts:
    """What the lines of W say about one board (see :meth:`Evaluator.lines`)."""

    potential: list[float]
    """Per player, the worth of its lines."""
    wins: list[dict[int, int]]
    """Per player, the fields whose capture completes one of its lines (with how many)."""
    need: list[int]
    """Per colour, the most cards one missing field of the bot's near-complete lines costs."""
    terms: list[list[LineTerm]]
    """Per line, its parts (so that a board one field apart is re-counted line by line)."""


class HandModel:
    """The colour counts an opponent's 7 cards may have, with their probabilities.

    The bot has not seen the stock and the other hands; as far as it knows, an opponent's
    hand is 7 cards drawn from those unseen cards, so its colour counts follow the
    multivariate hypergeometric distribution (at most 792 count vectors for 6 colours).
    """

    def __init__(self, unseen: list[int], size: int = HAND_SIZE) -> None:
        total = sum(unseen)
        size = min(size, total)
        all_hands = math.comb(total, size)
        self.hands: list[tuple[tuple[int, ...], float]] = []

        def fill(colour: int, left: int, counts: list[int], ways: int) -> None:
            if colour == len(unseen) - 1:
                if left <= unseen[colour]:
                    self.hands.append(((*counts, left), ways * math.comb(unseen[colour], left) / all_hands))
                return
            for k in range(min(left, unseen[colour]) + 1):
                fill(colour + 1, left - k, [*counts, k], ways * math.comb(unseen[colour], k))

        fill(0, size, [], 1)
        self._known: dict[tuple[tuple[int, int], ...], float] = {}

    def chance_any(self, needs: dict[int, int]) -> float:
        """The chance that the hand holds ``needs[c]`` cards of colour c for some c."""
        key = tuple(sorted(needs.items()))
        if key not in self._known:
            self._known[key] = sum(p for counts, p in self.hands if any(counts[c] >= k for c, k in key))
        return self._known[key]

    def expected_first(self, costs: list[tuple[int, int]], values: list[float], otherwise: float) -> float:
        """The mean of ``values[i]`` for the first option i the hand can pay for, where
        option i costs ``costs[i] = (colour, cards)``; ``otherwise`` when it pays for none."""
        first = [[len(costs)] * (HAND_SIZE + 1) for _ in COLOURS]  # colour, count -> first index
        for i in range(len(costs) - 1, -1, -1):
            c, k = costs[i]
            for held in range(k, HAND_SIZE + 1):
                first[c][held] = i
        total = 0.0
        for counts, p in self.hands:
            i = min(first[c][x] for c, x in enumerate(counts))
            total += p * (values[i] if i < len(costs) else otherwise)
        return total


# -- the evaluation ----------------------------------------------------------------------------


class Evaluator:
    """Scores the bot's placements: one ply of its own, then each opponent's reply.

    An opponent is assumed to make the reply worst for the bot among those its hand pays
    for (a cautious, paranoid reading of an unseen hand): the replies are sorted from worst
    to best for the bot, and each is weighted by the chance that it is the first one in
    that order the opponent's 7 cards can pay for.
    """

    def __init__(self, pos: Position, weights: Weights) -> None:
        self.pos = pos
        self.w = weights
        self.geo = geometry(pos.line)
        self.unseen = pos.unseen()
        self.opponent_hand = HandModel(self.unseen)
        self._paid: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...], int], float] = {}
        # The opponents in the order they move before the bot's next turn.
        self.opponents = [(pos.seat + k) % pos.players for k in range(1, pos.players)]

    # -- board facts --

    def common_blockers(self, owner: list[int], height: list[int], threats: list[int], player: int) -> list[int]:
        """Fields on which one placement breaks every line ``player`` threatens to complete:
        the missing field of each threat, or a stone of ``player`` that all those lines share."""
        sets: list[set[int]] = []
        for f in threats:
            stops: set[int] = set()
            for n in self.geo.lines_through[f]:
                line = self.geo.lines[n]
                if all(owner[g] == player or g == f for g in line):
                    stops.update(line)
            sets.append(stops)
        return sorted(g for g in set.intersection(*sets) if height[g] <= MAX_COVERABLE_HEIGHT)

    def needs(self, fields_: list[int], height: list[int]) -> dict[int, int]:
        """Per colour, the fewest cards that pay for one of ``fields_``."""
        need: dict[int, int] = {}
        for f in fields_:
            c, k = self.geo.colour[f], height[f] + 1
            need[c] = min(need.get(c, k), k)
        return need

    def line_terms(self, owner: list[int], height: list[int], n: int) -> list[LineTerm]:
        """Line ``n``'s worth for each player with a stone on it."""
        line, w = self.geo.lines[n], self.w
        counts: dict[int, int] = {}
        for f in line:
            if owner[f] != NOBODY:
                counts[owner[f]] = counts.get(owner[f], 0) + 1
        terms = []
        for player, own in counts.items():
            missing = [f for f in line if owner[f] != player]
            if any(height[f] > MAX_COVERABLE_HEIGHT for f in missing):
                continue  # a tower of 7 can never be taken: the line is dead for this player
            # Worth grows with the own stones and shrinks with every card the missing fields
            # cost beyond one each (stacked fields are dear to take).
            worth = w.line_base ** (own - 1) * w.line_cost_decay ** sum(height[f] for f in missing)
            terms.append((player, worth, missing[0] if len(missing) == 1 else -1))
        return terms

    def lines(self, owner: list[int], height: list[int]) -> LineFacts:
        """Every line of W counted: each player's potential and winning fields, and the cards
        the bot's near-complete lines need."""
        me, full = self.pos.seat, self.pos.line
        facts = LineFacts([0.0] * self.pos.players, [{} for _ in range(self.pos.players)], [0] * len(COLOURS), [])
        for n, line in enumerate(self.geo.lines):
            terms = self.line_terms(owner, height, n)
            facts.terms.append(terms)
            for player, worth, win in terms:
                facts.potential[player] += worth
                if win >= 0:
                    facts.wins[player][win] = facts.wins[player].get(win, 0) + 1
                if player == me and sum(owner[f] == me for f in line) >= full - 2:
                    for f in line:
                        if owner[f] != me:
                            c = self.geo.colour[f]
                            facts.need[c] = max(facts.need[c], height[f] + 1)
        return facts

    def relined(self, base: LineFacts, owner: list[int], height: list[int], field: int) -> LineFacts:
        """The facts of a board that differs from ``base``'s only on ``field``: the lines
        through it are counted again (the cards needed are kept from ``base``)."""
        potential = list(base.potential)
        wins = [dict(w) for w in base.wins]
        terms = list(base.terms)
        for n in self.geo.lines_through[field]:
            for player, worth, win in base.terms[n]:
                potential[player] -= worth
                if win >= 0:
                    wins[player][win] -= 1
                    if not wins[player][win]:
                        del wins[player][win]
            terms[n] = self.line_terms(owner, height, n)
            for player, worth, win in terms[n]:
                potential[player] += worth
                if win >= 0:
                    wins[player][win] = wins[player].get(win, 0) + 1
        return LineFacts(potential, wins, base.need, terms)

    def area(self, owner: list[int], height: list[int], player: int) -> tuple[int, int]:
        """(A, B) of the rules: the largest orthogonal group and its stones."""
        seen = [False] * FIELDS
        best = (0, 0)
        for start in range(FIELDS):
            if owner[start] != player or seen[start]:
                continue
            seen[start] = True
            stack, size, stones = [start], 0, 0
            while stack:
                f = stack.pop()
                size += 1
                stones += height[f]
                for g in self.geo.neighbours[f]:
                    if owner[g] == player and not seen[g]:
                        seen[g] = True
                        stack.append(g)
            best = max(best, (size, stones))
        return best

    # -- values --

    def at_my_turn(self, owner: list[int], height: list[int], hand: list[int], draws: int, q: int, facts: LineFacts) -> float:
        """The worth of a board (with its line ``facts``) when the bot is next to move,
        ``hand`` its cards before the ``draws`` it is still owed, and ``q`` the opponent
        whose threats count here."""
        w, me = self.w, self.pos.seat
        # The bot wins at once if it can pay for one of its winning fields.
        mine = sorted(facts.wins[me])
        win = self.chance_to_pay(self.needs(mine, height), hand, draws) if mine else 0.0
        # Otherwise it must break q's threats, with one placement it can pay for.
        lose = 0.0
        theirs = sorted(facts.wins[q])
        if theirs:
            blockers = self.common_blockers(owner, height, theirs, q)
            block = self.chance_to_pay(self.needs(blockers, height), hand, draws) if blockers else 0.0
            lose = (1.0 - block) * self.opponent_hand.chance_any(self.needs(theirs, height))
        return w.win * (win - (1.0 - win) * lose) + self.static(owner, height, hand, facts)

    def chance_to_pay(self, needs: dict[int, int], hand: list[int], draws: int) -> float:
        """The chance that the bot, holding ``hand`` and drawing ``draws`` cards, meets a need."""
        key = (tuple(sorted(needs.items())), tuple(hand), draws)
        if key not in self._paid:
            self._paid[key] = chance_any_need(needs, self.unseen, draws, hand)
        return self._paid[key]

    def static(self, owner: list[int], height: list[int], hand: list[int], facts: LineFacts | None = None) -> float:
        """Lines, area, towers and cards kept: the quiet part of the evaluation."""
        w, me = self.w, self.pos.seat
        facts = facts or self.lines(owner, height)
        theirs = sorted((facts.potential[q] for q in self.opponents), reverse=True)
        lines = facts.potential[me] - w.opponents * theirs[0] - w.other_opponents * sum(theirs[1:])
        late = self.pos.progress()
        area = self.area(owner, height, me)[0] - max(self.area(owner, height, q)[0] for q in self.opponents)
        towers = sum(height[f] - 1 for f in range(FIELDS) if owner[f] == me)
        kept = sum(min(h, n) for h, n in zip(hand, facts.need))
        return lines + (w.area + w.area_late * late * late) * area + w.tower * late * towers + w.keep_card * kept

    def after_reply(self, owner: list[int], height: list[int], hand: list[int], draws: int, q: int) -> float:
        """The expected worth for the bot after opponent ``q``'s reply (see the class)."""
        w = self.w
        base = self.lines(owner, height)
        quiet = self.at_my_turn(owner, height, hand, draws, q, base)
        wins = base.wins[q]
        replies: list[tuple[float, tuple[int, int]]] = []
        for r in range(FIELDS):
            if owner[r] == q or height[r] > MAX_COVERABLE_HEIGHT:
                continue  # covering its own stone only costs it cards; towers of 7 are locked
            if r in wins:
                value = -w.win
            else:
                before = owner[r], height[r]
                owner[r], height[r] = q, height[r] + 1
                value = self.at_my_turn(owner, height, hand, draws, q, self.relined(base, owner, height, r))
                owner[r], height[r] = before
            replies.append((value, (self.geo.colour[r], height[r] + 1)))
        replies.sort(key=lambda item: item[0])
        return self.opponent_hand.expected_first([c for _, c in replies], [v for v, _ in replies], quiet)

    def score(self, field: int) -> float:
        """The worth of placing on ``field`` now, for the bot (higher is better): each
        opponent's expected reply, their effects added up."""
        me = self.pos.seat
        owner, height = list(self.pos.owner), list(self.pos.height)
        paid = height[field] + 1
        owner[field], height[field] = me, height[field] + 1
        hand = list(self.pos.hand)
        hand[self.geo.colour[field]] -= paid
        values = [self.after_reply(owner, height, hand, paid, q) for q in self.opponents]
        if len(values) == 1:
            return values[0]
        # Each opponent's reply changes the quiet worth by its own amount. The bot's own
        # next-turn win is inside every one of those amounts, so with 3–4 players its
        # threats count once per opponent: a threat has to survive each of them, and this
        # aggressive weighting measured better than counting it once (one expert against
        # three greedy players, 100 games, seed 103: 56 % against 43 %).
        quiet = self.static(owner, height, hand)
        return quiet + sum(v - quiet for v in values)


class Player:
    """Plays Just 4 Fun Colours for one seat (see the module's docstring)."""

    def __init__(self, weights: Weights, rng: random.Random) -> None:
        self.weights = weights
        self.rng = rng

    def act(self, view: View) -> Move:
        state = view.state()  # hidden parts are placeholders: only the legal moves are read
        moves = state.legal_moves()
        if moves == ["blocked"]:
            return "blocked"
        pos = Position.from_view(view)
        geo = geometry(pos.line)
        fields_ = [_field_index(m) for m in moves]
        # 1. A placement that completes an own line wins at once.
        for f in fields_:
            if any(all(pos.owner[g] == pos.seat or g == f for g in geo.lines[n]) for n in geo.lines_through[f]):
                return _field_name(f)
        evaluator = Evaluator(pos, self.weights)
        scored = [(evaluator.score(f), self.rng.random(), f) for f in fields_]
        return _field_name(max(scored)[2])


def _field_index(move: str) -> int:
    return (int(move[1]) - 1) * SIZE + "abcdef".index(move[0])


def _field_name(field: int) -> str:
    row, col = divmod(field, SIZE)
    return f"{'abcdef'[col]}{row + 1}"
