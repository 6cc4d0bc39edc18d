"""An independent reference of Just 4 Fun Colours, written from shared/rules/just4fun_colours.md.

Section numbers (§) refer to that spec, which is the authority. Nothing here is copied from the
engine or derived from its output: the map of §2.2, the straight lines of §2.1, the notation
format, a builder for full-notation positions, and `Model`, a Python implementation of the
rules of §4-§7 that reads and writes the notation. test_just4fun_colours.py compares the engine
with `Model` step by step; test_perft.py enumerates `Model` to derive perft counts.
`Model` offers the kibitz.State methods that state_helpers.py uses (is_terminal,
legal_actions, clone, apply, chance_outcomes), so those helpers serve both.
"""

from __future__ import annotations

import kibitz

GAME = "just4fun_colours"
LETTERS = "ROYGBP"
BLOCKED = 36
# §2.2, machine-readable form: row-major a1..f6, R=0 O=1 Y=2 G=3 B=4 P=5.
MAP = [2, 1, 5, 0, 3, 4,
       0, 3, 2, 4, 1, 5,
       1, 4, 0, 5, 2, 3,
       5, 2, 3, 1, 4, 0,
       3, 0, 4, 2, 5, 1,
       4, 5, 1, 3, 0, 2]  # fmt: skip


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------


def fname(f: int) -> str:
    return "abcdef"[f % 6] + str(f // 6 + 1)


def fidx(name: str) -> int:
    return (int(name[1]) - 1) * 6 + "abcdef".index(name[0])


DIRECTIONS = {"horizontal": (0, 1), "vertical": (1, 0), "diagonal": (1, 1), "anti-diagonal": (1, -1)}


def straight_lines(length: int, direction: str | None = None) -> list[tuple[int, ...]]:
    """Every straight run of `length` consecutive fields (§2.1: orthogonal and diagonal)."""
    out = []
    for name, (dr, dc) in DIRECTIONS.items():
        if direction and name != direction:
            continue
        for r in range(6):
            for c in range(6):
                er, ec = r + dr * (length - 1), c + dc * (length - 1)
                if 0 <= er < 6 and 0 <= ec < 6:
                    out.append(tuple((r + dr * k) * 6 + c + dc * k for k in range(length)))
    return out


LINES = {4: straight_lines(4), 5: straight_lines(5)}


# --------------------------------------------------------------------------------------------
# Notation
# --------------------------------------------------------------------------------------------


def parse_counts(text: str) -> list[int]:
    return [int(x) for x in text.split(".")]


def hand_counts(text: str) -> list[int]:
    return [0] * 6 if text == "-" else [text.count(ch) for ch in LETTERS]


def hand_text(c) -> str:
    return "".join(LETTERS[i] * c[i] for i in range(6)) or "-"


def counts_text(c) -> str:
    return ".".join(str(x) for x in c)


def fields_of(text: str) -> dict[str, str]:
    words = text.split()
    return dict(w.split("=", 1) for w in words[1:])


def notation(players, line, start, draws, height, top, hands, stock, discard, supply, boxed) -> str:
    """The full notation without the history keys; `hands` are written as given."""
    rows = ["".join(".." if height[r * 6 + c] == 0 else f"{top[r * 6 + c]}{height[r * 6 + c]}" for c in range(6)) for r in range(6)]
    return (
        f"{GAME} players={players} line={line} start={start} draws={draws} board={'/'.join(rows)} "
        f"hands={','.join(hands)} stock={counts_text(stock)} discard={counts_text(discard)} "
        f"supply={','.join(map(str, supply))} boxed={','.join(map(str, boxed))}"
    )


def position(
    board=(),
    hands=None,
    players=2,
    mover=0,
    line=4,
    draws=0,
    boxed=None,
    discard=None,
    stock=None,
    supply=None,
    start=None,
    sort_hands=False,
) -> str:
    """Full notation of a position. `board` maps field names to (owner, height). The start seat
    and supplies follow from the stones used (§6.3: one stone per turn, seat order), so that
    `mover` is the seat to move (or drawing, if draws > 0). The stock gets every card not in a
    hand or the discard pile unless given. Hands default to seven cards of one colour per seat
    (R, O, Y, G) and are written as given, or in the engine's order R O Y G B P with
    sort_hands=True (then the engine writes back the same text)."""
    height, top = [0] * 36, [None] * 36
    for name, (owner, h) in dict(board).items():
        top[fidx(name)], height[fidx(name)] = owner, h
    hands = list(hands or ["RRRRRRR", "OOOOOOO", "YYYYYYY", "GGGGGGG"][:players])
    if sort_hands:
        hands = ["".join(sorted(h, key=LETTERS.index)) for h in hands]
    boxed = list(boxed or [0] * players)
    used = sum(height) + sum(boxed)
    if start is None:
        start = (mover - used + (1 if draws else 0)) % players
    if supply is None:
        supply = [20 - used // players - (1 if (p - start) % players < used % players else 0) for p in range(players)]
    discard = list(discard or [0] * 6)
    held = [hand_counts(h) for h in hands]
    if stock is None:
        stock = [10 - discard[c] - sum(h[c] for h in held) for c in range(6)]
    return notation(players, line, start, draws, height, top, hands, stock, discard, supply, boxed)


# --------------------------------------------------------------------------------------------
# The rules
# --------------------------------------------------------------------------------------------


MOVE_NAMES = [fname(f) for f in range(36)] + ["blocked"]


def move_text(a: int) -> str:
    return MOVE_NAMES[a]


def move_id(text: str) -> int:
    if text == "blocked":
        return BLOCKED
    if len(text) != 2 or text[0] not in "abcdef" or text[1] not in "123456":
        raise ValueError(f"bad move {text!r}")
    return fidx(text)


class Replay:
    """The public replay of the history since the base position (the notation's `moves`,
    `revealed`, base stock size and base discard), from the rules alone: a placement on a field
    of height h costs h + 1 cards of its colour and is followed by h + 1 draws (none if it
    completed a line), a blocked turn discards the revealed hand and is followed by 7 draws;
    a draw from an empty stock first turns the discard pile into the stock (a new era).

    events: one per decision, in order: dict(mover, move, played (counts), era, before (the
    number of cards the mover drew in that era before it), revealed (counts or None)).
    draws: (player, era) of every card drawn since the base, in order.
    era_starts: the stock composition at the start of each era (era 0: the base stock).
    stock_size, discard: where the replay ends; comparing them (and the draws) with the
    position is up to the caller. Raises ValueError when the moves cannot be replayed (more
    moves than turns, a revealed hand that could place, too few or too many revealed hands,
    more draws pending than the last move makes)."""

    def __init__(self, m: Model):
        P = m.P
        turns_base = m.turns - len(m.moves)
        if turns_base < 0:
            raise ValueError("more moves than turns")
        height = m.height[:]
        for a in m.moves:
            if a != BLOCKED:
                height[a] -= 1
        if min(height) < 0:
            raise ValueError("moves place more stones than the board holds")
        stock = sum(m.base_stock)
        discard = m.base_discard[:]
        self.era_starts = [m.base_stock[:]]
        self.events, self.draws = [], []
        drawn_in_era = [0] * P
        blocked = iter(m.revealed)
        for i, a in enumerate(m.moves):
            p = (m.start + turns_base + i) % P
            last = i == len(m.moves) - 1
            if a == BLOCKED:
                hand = next(blocked, None)
                if hand is None:
                    raise ValueError("fewer revealed hands than blocked turns")
                if any(hand[MAP[f]] >= height[f] + 1 for f in range(36)):
                    raise ValueError("a revealed hand could place")
                played, n = hand[:], 7
            else:
                k = height[a] + 1
                if k > 7:
                    raise ValueError("a placement on a locked tower")
                played = [0] * 6
                played[MAP[a]] = k
                height[a] += 1
                n = k
                hand = None
            if last:
                n = 0 if m.winner is not None else n - m.draws
                if n < 0:
                    raise ValueError("more draws pending than the last move makes")
            self.events.append(dict(mover=p, move=a, played=played, era=len(self.era_starts) - 1, before=drawn_in_era[p], revealed=hand))
            for c in range(6):
                discard[c] += played[c]
            for _ in range(n):
                if stock == 0:
                    self.era_starts.append(discard)
                    stock, discard = sum(discard), [0] * 6
                    drawn_in_era = [0] * P
                    if stock == 0:
                        raise ValueError("nothing to draw")
                stock -= 1
                drawn_in_era[p] += 1
                self.draws.append((p, len(self.era_starts) - 1))
        if next(blocked, None) is not None:
            raise ValueError("more revealed hands than blocked turns")
        self.stock_size, self.discard = stock, discard

    def drawn_counts(self, P: int) -> list[list[int]]:
        """[player][era]: the number of cards the player drew in the era."""
        out = [[0] * len(self.era_starts) for _ in range(P)]
        for p, e in self.draws:
            out[p][e] += 1
        return out


class Model:
    """The rules of §4–§7 written directly from the spec, on the notation format.

    Besides the rule-level methods (legal decisions, chance outcomes, areas, results) it offers
    the part of the kibitz.State interface that enumeration needs: is_terminal, legal_actions,
    clone and apply.

    It also keeps the history since the base position (the deal, or the position read from a
    notation without history): base_hands, base_stock (the base stock's composition),
    base_discard, moves (every decision), revealed (the hands discarded by blocked turns),
    drawn[p][e] (the cards p drew in era e; a reshuffle starts a new era) and era_starts[e]
    (the stock at the start of era e)."""

    @classmethod
    def parse(cls, text: str) -> Model:
        f = fields_of(text)
        m = cls()
        m.P, m.W, m.start, m.draws = int(f["players"]), int(f["line"]), int(f["start"]), int(f["draws"])
        m.height, m.top = [0] * 36, [None] * 36
        for r, row in enumerate(f["board"].split("/")):
            for c in range(6):
                cell = row[2 * c : 2 * c + 2]
                if cell != "..":
                    m.top[r * 6 + c], m.height[r * 6 + c] = int(cell[0]), int(cell[1])
        m.hands = [hand_counts(h) for h in f["hands"].split(",")]
        m.stock, m.discard = parse_counts(f["stock"]), parse_counts(f["discard"])
        m.supply = [int(x) for x in f["supply"].split(",")]
        m.boxed = [int(x) for x in f["boxed"].split(",")]
        m.winner = None
        for p in range(m.P):
            if any(all(m.top[i] == p for i in line) for line in LINES[m.W]):
                m.winner = p
        if "moves" in f:
            m.base_hands = [hand_counts(h) for h in f["base_hands"].split(",")]
            m.base_discard = parse_counts(f["base_discard"])
            m.base_stock = [10 - m.base_discard[c] - sum(h[c] for h in m.base_hands) for c in range(6)]
            m.moves = [move_id(x) for x in f["moves"].split(".")]
            m.revealed = [] if f["revealed"] == "-" else [hand_counts(h) for h in f["revealed"].split(",")]
            m.drawn = [[parse_counts(e) for e in d.split(";")] for d in f["drawn"].split("/")]
            m._era_starts = None  # replayed when first asked for
        else:
            m.rebase()
        return m

    def rebase(self) -> None:
        """Makes the current position the base: no moves, one era with nothing drawn."""
        self.base_hands = [h[:] for h in self.hands]
        self.base_stock, self.base_discard = self.stock[:], self.discard[:]
        self.moves, self.revealed = [], []
        self.drawn = [[[0] * 6] for _ in range(self.P)]
        self._era_starts = [self.stock[:]]

    def clone(self) -> Model:
        m = Model()
        m.P, m.W, m.start, m.draws, m.winner = self.P, self.W, self.start, self.draws, self.winner
        m.height, m.top = self.height[:], self.top[:]
        m.hands = [h[:] for h in self.hands]
        m.stock, m.discard, m.supply, m.boxed = self.stock[:], self.discard[:], self.supply[:], self.boxed[:]
        m.base_hands = [h[:] for h in self.base_hands]
        m.base_stock, m.base_discard = self.base_stock[:], self.base_discard[:]
        m.moves, m.revealed = self.moves[:], [h[:] for h in self.revealed]
        m.drawn = [[e[:] for e in d] for d in self.drawn]
        m._era_starts = None if self._era_starts is None else [e[:] for e in self._era_starts]
        return m

    @property
    def era_starts(self) -> list[list[int]]:
        if self._era_starts is None:
            self._era_starts = Replay(self).era_starts
        return self._era_starts

    @era_starts.setter
    def era_starts(self, value) -> None:
        self._era_starts = value

    @property
    def eras(self) -> int:
        return len(self.era_starts)

    @property
    def reshuffles(self) -> int:
        """Reshuffles since the base position."""
        return len(self.era_starts) - 1

    def history_text(self, seat: int | None = None) -> str:
        """The history keys (empty before the first decision since the base); with `seat`, as
        that seat's view writes them."""
        if not self.moves:
            return ""
        hidden = lambda p: seat is not None and p != seat  # noqa: E731
        base_hands = [f"?{sum(h)}" if hidden(p) else hand_text(h) for p, h in enumerate(self.base_hands)]
        drawn = ["?" if hidden(p) else ";".join(counts_text(e) for e in d) for p, d in enumerate(self.drawn)]
        return (
            f" base_hands={','.join(base_hands)} base_stock={sum(self.base_stock)} base_discard={counts_text(self.base_discard)}"
            f" moves={'.'.join([MOVE_NAMES[a] for a in self.moves])}"
            f" revealed={','.join(hand_text(h) for h in self.revealed) or '-'}"
            f" drawn={'/'.join(drawn)}"
        )

    def notation(self) -> str:
        hands = [hand_text(h) for h in self.hands]
        s = notation(self.P, self.W, self.start, self.draws, self.height, self.top, hands, self.stock, self.discard, self.supply, self.boxed)
        return s + self.history_text()

    def view(self, seat: int) -> str:
        """The notation of `seat`'s view: other hands, their base hands and the stock as
        ?<count>, other players' draws as ?."""
        hands = [hand_text(h) if p == seat else f"?{sum(h)}" for p, h in enumerate(self.hands)]
        s = notation(self.P, self.W, self.start, self.draws, self.height, self.top, hands, self.stock, self.discard, self.supply, self.boxed)
        s = s.replace(f"{GAME} ", f"{GAME} seat={seat} ", 1)
        s = s.replace(f" stock={counts_text(self.stock)} ", f" stock=?{sum(self.stock)} ", 1)
        return s + self.history_text(seat)

    def played(self, p: int, era: int | None = None) -> list[int]:
        """The cards p played (placements and revealed hands) since the base, or in one era."""
        out = [0] * 6
        for ev in Replay(self).events:
            if ev["mover"] == p and (era is None or ev["era"] == era):
                out = [x + y for x, y in zip(out, ev["played"])]
        return out

    def era_hands(self, era: int) -> list[list[int]]:
        """Every hand at the start of `era` (era 0: the base hands)."""
        events = Replay(self).events
        out = []
        for p in range(self.P):
            h = self.base_hands[p][:]
            for e in range(era):
                h = [x + y for x, y in zip(h, self.drawn[p][e])]
            for ev in events:
                if ev["mover"] == p and ev["era"] < era:
                    h = [x - y for x, y in zip(h, ev["played"])]
            out.append(h)
        return out

    @property
    def turns(self) -> int:
        return sum(20 - x for x in self.supply)

    @property
    def mover(self) -> int:
        return (self.start + self.turns - (1 if self.draws else 0)) % self.P

    @property
    def finished(self) -> bool:
        return self.winner is None and self.draws == 0 and all(x == 0 for x in self.supply)

    def is_terminal(self) -> bool:
        return self.winner is not None or self.finished

    @property
    def current(self) -> int:
        if self.is_terminal():
            return kibitz.TERMINAL
        return kibitz.CHANCE if self.draws else self.mover

    def legal(self) -> list[int]:
        """§5.2/§5.3: field i iff the hand holds >= height+1 cards of its colour; else blocked."""
        hand = self.hands[self.mover]
        fields = [f for f in range(36) if hand[MAP[f]] >= self.height[f] + 1]
        return fields or [BLOCKED]

    def pile(self) -> list[int]:
        """§6.1.4: a draw comes from the stock, or from the whole discard pile when it is empty."""
        return self.stock if sum(self.stock) else self.discard

    def outcomes(self) -> list[tuple[int, float]]:
        pile = self.pile()
        n = sum(pile)
        return [(c, pile[c] / n) for c in range(6) if pile[c]]

    def legal_actions(self) -> list[int]:
        """As kibitz.State.legal_actions: the decisions, the colours that can be drawn, or none."""
        if self.is_terminal():
            return []
        if self.draws:
            pile = self.pile()
            return [c for c in range(6) if pile[c]]
        return self.legal()

    def apply(self, a: int) -> None:
        p = self.mover
        if self.draws:
            if sum(self.stock) == 0:  # lazy reshuffle of the whole discard pile: a new era
                self.stock, self.discard = self.discard, [0] * 6
                self.era_starts.append(self.stock[:])
                for d in self.drawn:
                    d.append([0] * 6)
            assert self.stock[a] > 0
            self.stock[a] -= 1
            self.hands[p][a] += 1
            self.drawn[p][-1][a] += 1
            self.draws -= 1
            return
        assert a in self.legal()
        self.moves.append(a)
        if a == BLOCKED:  # §6.2: discard the hand, draw 7, box a stone
            self.revealed.append(self.hands[p][:])
            for c in range(6):
                self.discard[c] += self.hands[p][c]
            self.hands[p] = [0] * 6
            self.supply[p] -= 1
            self.boxed[p] += 1
            self.draws = 7
            return
        c, k = MAP[a], self.height[a] + 1  # §6.1
        self.hands[p][c] -= k
        self.discard[c] += k
        self.height[a] += 1
        self.top[a] = p
        self.supply[p] -= 1
        if any(a in line and all(self.top[i] == p for i in line) for line in LINES[self.W]):
            self.winner = p  # §7.1: immediate win, no draw
        else:
            self.draws = k

    def area(self, p: int) -> tuple[int, int]:
        """§7.2: (A, B) of p's largest orthogonal area; among equal sizes the most stones."""
        own = {f for f in range(36) if self.top[f] == p}
        best, seen = (0, 0), set()
        for f in sorted(own):
            if f in seen:
                continue
            comp, todo = set(), [f]
            while todo:
                g = todo.pop()
                if g in comp:
                    continue
                comp.add(g)
                r, c = divmod(g, 6)
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < 6 and 0 <= cc < 6 and rr * 6 + cc in own:
                        todo.append(rr * 6 + cc)
            seen |= comp
            best = max(best, (len(comp), sum(self.height[g] for g in comp)))
        return best

    def returns(self) -> list[float]:
        if self.winner is not None:
            return [1.0 if p == self.winner else 0.0 for p in range(self.P)]
        if not self.finished:
            return [0.0] * self.P
        keys = [self.area(p) for p in range(self.P)]
        best = max(keys)
        k = keys.count(best)
        return [1.0 / k if keys[p] == best else 0.0 for p in range(self.P)]

    def ranks(self) -> list[int]:
        """§11.15 as documented in the engine: winner first, the rest by (A, B), ties shared."""
        keys = [self.area(p) for p in range(self.P)]
        out = []
        for p in range(self.P):
            if p == self.winner:
                out.append(1)
                continue
            better = sum(1 for q in range(self.P) if q != self.winner and keys[q] > keys[p])
            out.append(1 + (self.winner is not None) + better)
        return out
