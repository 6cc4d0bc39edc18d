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
    """The full notation without the era fields; `hands` are written as given."""
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


class Model:
    """The rules of §4–§7 written directly from the spec, on the notation format.

    Besides the rule-level methods (legal decisions, chance outcomes, areas, results) it offers
    the part of the kibitz.State interface that enumeration needs: is_terminal, legal_actions,
    clone and apply."""

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
        m.era = None
        if "era_stock" in f:
            m.era = {"stock": parse_counts(f["era_stock"])}
            for k in ("hands", "drawn", "played"):
                m.era[k] = [parse_counts(x) for x in f["era_" + k].split(",")]
        m.winner = None
        for p in range(m.P):
            if any(all(m.top[i] == p for i in line) for line in LINES[m.W]):
                m.winner = p
        return m

    def clone(self) -> Model:
        m = Model()
        m.P, m.W, m.start, m.draws, m.winner = self.P, self.W, self.start, self.draws, self.winner
        m.height, m.top = self.height[:], self.top[:]
        m.hands = [h[:] for h in self.hands]
        m.stock, m.discard, m.supply, m.boxed = self.stock[:], self.discard[:], self.supply[:], self.boxed[:]
        m.era = None if self.era is None else {"stock": self.era["stock"][:], **{k: [c[:] for c in self.era[k]] for k in ("hands", "drawn", "played")}}
        return m

    def notation(self) -> str:
        hands = [hand_text(h) for h in self.hands]
        s = notation(self.P, self.W, self.start, self.draws, self.height, self.top, hands, self.stock, self.discard, self.supply, self.boxed)
        if self.era:
            s += f" era_stock={counts_text(self.era['stock'])}"
            for k in ("hands", "drawn", "played"):
                s += f" era_{k}=" + ",".join(counts_text(c) for c in self.era[k])
        return s

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
            if sum(self.stock) == 0:  # lazy reshuffle of the whole discard pile
                self.stock, self.discard = self.discard, [0] * 6
                self.era = {
                    "stock": self.stock[:],
                    "hands": [h[:] for h in self.hands],
                    "drawn": [[0] * 6 for _ in range(self.P)],
                    "played": [[0] * 6 for _ in range(self.P)],
                }
            assert self.stock[a] > 0
            self.stock[a] -= 1
            self.hands[p][a] += 1
            if self.era:
                self.era["drawn"][p][a] += 1
            self.draws -= 1
            return
        assert a in self.legal()
        if a == BLOCKED:  # §6.2: discard the hand, draw 7, box a stone
            for c in range(6):
                self.discard[c] += self.hands[p][c]
                if self.era:
                    self.era["played"][p][c] += self.hands[p][c]
            self.hands[p] = [0] * 6
            self.supply[p] -= 1
            self.boxed[p] += 1
            self.draws = 7
            return
        c, k = MAP[a], self.height[a] + 1  # §6.1
        self.hands[p][c] -= k
        self.discard[c] += k
        if self.era:
            self.era["played"][p][c] += k
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
