"""An independent reference of Yucata', written from shared/rules/yucata.md.

Section numbers (§) and rulings (A1..A14) refer to that spec, which is the authority. Nothing here
is copied from the engine or derived from its output. `Model` keeps the board as a list of 40
spaces holding a stone letter or nothing, and collects literally every stone on spaces a+1..b
(§7) instead of reasoning about the lead; it reads and writes the full notation of
docs/games/yucata.md. test_yucata.py compares the engine with it step by step, test_perft.py
and test_solver.py enumerate it. `Model` offers the kibitz.State methods that state_helpers.py
uses (is_terminal, legal_actions, clone, apply), so those helpers serve both.
"""

from __future__ import annotations

import copy

GAME = "yucata"
CARDS = "12345SQ"
END = 39
# §2: the reconstruction [R], spelled from the spec's table: dark stones on these spaces.
RECONSTRUCTED_DARK = (7, 11, 14, 18, 22, 25, 29, 32, 36)
RECONSTRUCTED = "".join("D" if space in RECONSTRUCTED_DARK else "P" for space in range(5, 39))


def triangle(d: int) -> int:
    """§9.2: T(D') = D'(D'+1)/2."""
    return d * (d + 1) // 2


def fields_of(text: str) -> dict[str, str]:
    words = text.split()
    assert words[0] == GAME
    return dict(word.split("=", 1) for word in words[1:])


class Model:
    """A Yucata' state: positions, hands (sets of card letters), the board, collected stones,
    the previous card, its effective card and how far it moved, and the turn count."""

    def __init__(
        self, players: int = 2, layout: str = RECONSTRUCTED, start: int = 0, q: str = "effective", tiebreak: str = "shared"
    ):
        assert 2 <= players <= 4 and len(layout) == 34
        self.players = players
        self.layout = layout
        self.start = start
        self.q = q
        self.tiebreak = tiebreak
        self.turn = 0
        self.to_move = start
        self.pos = [0] * players
        self.hands = [set(CARDS) for _ in range(players)]
        self.board: list[str | None] = [None] * 5 + list(layout) + ["R"]  # §2: 1-4 empty, red on 39
        self.pale = [0] * players
        self.dark = [0] * players
        self.red: int | None = None
        self.prev: str | None = None
        self.eff: str | None = None
        self.moved = 0

    # -- notation ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Model:
        f = fields_of(text)
        m = cls(int(f["players"]), f["layout"], int(f["start"]), f["q"], f["tiebreak"])
        m.turn = int(f["turn"])
        m.to_move = int(f["to_move"])
        m.pos = [int(x) for x in f["pos"].split(",")]
        m.hands = [set(h) for h in f["hands"].split(",")]
        m.pale = [int(x) for x in f["pale"].split(",")]
        m.dark = [int(x) for x in f["dark"].split(",")]
        m.red = None if f["red"] == "-" else int(f["red"])
        m.prev = None if f["prev"] == "-" else f["prev"]
        m.eff = None if f["eff"] == "-" else f["eff"]
        m.moved = int(f["moved"])
        lead = max(m.pos)
        for space in range(lead + 1):  # §7: nothing lies on or behind the leading amulet
            m.board[space] = None
        return m

    def notation(self) -> str:
        def per(values) -> str:
            return ",".join(str(v) for v in values)

        hands = ",".join("".join(c for c in CARDS if c in h) for h in self.hands)
        return (
            f"{GAME} players={self.players} layout={self.layout} start={self.start} turn={self.turn} "
            f"to_move={self.to_move} pos={per(self.pos)} hands={hands} pale={per(self.pale)} dark={per(self.dark)} "
            f"red={'-' if self.red is None else self.red} prev={self.prev or '-'} eff={self.eff or '-'} "
            f"moved={self.moved} q={self.q} tiebreak={self.tiebreak}"
        )

    # -- the State interface used by state_helpers ------------------------------------------
    def clone(self) -> Model:
        return copy.deepcopy(self)

    def is_terminal(self) -> bool:
        return self.red is not None

    @property
    def current_player(self) -> int:
        return -2 if self.is_terminal() else self.to_move

    def legal_cards(self) -> list[str]:
        """§5: in hand; not Q as the very first card of the game; not the predecessor's
        printed card unless it is the last card in hand."""
        if self.is_terminal():
            return []
        hand = self.hands[self.to_move]
        legal = []
        for c in CARDS:
            if c not in hand:
                continue
            if self.prev is None and c == "Q":
                continue
            if self.prev is not None and c == self.prev and len(hand) > 1:
                continue
            legal.append(c)
        return legal

    def legal_actions(self) -> list[int]:
        return [CARDS.index(c) for c in self.legal_cards()]

    def destination(self, card: str) -> int:
        """§6: where the mover's amulet lands."""
        p = self.to_move
        lead = max(self.pos)
        if card == "Q" and self.q == "distance":
            return min(self.pos[p] + self.moved, END)
        effective = self.eff if card == "Q" else card  # the chain's last non-Q card, worked out now
        if effective == "S":
            return min(lead + 1, END)
        return min(self.pos[p] + int(effective), END)

    def apply(self, action: int | str) -> None:
        card = CARDS[action] if isinstance(action, int) else action
        assert card in self.legal_cards(), (card, self.notation())
        p = self.to_move
        a = self.pos[p]
        b = self.destination(card)
        for space in range(a + 1, b + 1):  # §7: every stone on a+1..b
            stone = self.board[space]
            if stone == "P":
                self.pale[p] += 1
            elif stone == "D":
                self.dark[p] += 1
            elif stone == "R":
                self.red = p
            self.board[space] = None
        self.pos[p] = b
        self.moved = b - a
        self.eff = self.eff if card == "Q" else card
        self.prev = card
        self.turn += 1
        self.hands[p].discard(card)
        if not self.hands[p]:  # §4.3: all 7 played, all 7 back, at the end of the turn
            self.hands[p] = set(CARDS)
        if self.red is None:  # §8: taking red ends the game at once
            self.to_move = (p + 1) % self.players

    # -- results ----------------------------------------------------------------------------
    def adjusted_dark(self, p: int) -> int:
        """§9.1: the red stone goes back with one dark stone, if its holder has one."""
        return self.dark[p] - 1 if self.red == p and self.dark[p] >= 1 else self.dark[p]

    def scores(self) -> list[int]:
        return [self.pale[p] - triangle(self.adjusted_dark(p)) for p in range(self.players)]

    def _keys(self) -> list[tuple[int, int]]:
        scores = self.scores()
        if self.tiebreak == "dark":  # non-canonical: fewer D' first
            return [(scores[p], -self.adjusted_dark(p)) for p in range(self.players)]
        return [(scores[p], 0) for p in range(self.players)]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.players
        keys = self._keys()
        best = max(keys)
        winners = [p for p in range(self.players) if keys[p] == best]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(self.players)]

    def ranks(self) -> list[int]:
        keys = self._keys()
        return [1 + sum(1 for k in keys if k > keys[p]) for p in range(self.players)]

    def stones_on_board(self) -> int:
        return sum(1 for stone in self.board if stone is not None)
