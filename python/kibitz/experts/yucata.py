"""The expert player of Yucata' (2–4 players, perfect information).

A shallow game-tree search over the cards, as a careful player counts a few turns ahead:

- **Two players: paranoid alpha-beta** (minimax; Sturtevant & Korf 2000 call its
  multi-player form "paranoid"), 6 plies (three cards each). The bot maximises its margin,
  the opponent minimises it: with two players every card that hurts the bot most (landing
  one in front of it with ``S``, copying its move with ``Q``, taking the pale stone it was
  heading for) is exactly the opponent's best.
- **Three or four players: max^n** (Luckhardt & Irani 1986), 5 plies (a round and the bot's
  next card), each seat maximising its own margin over the best of the others. The paranoid
  reading (all opponents against the bot) is kept as an option (``paranoia=1``, or a blend):
  measured against three greedy players it was clearly worse, because it makes the bot
  give up good cards to guard against coalitions that never form (docs/experts.md).

The search runs on clones of the public state through :class:`kibitz.State` (Yucata' has no
hidden information: every hand is fixed by the public history) to a fixed depth. Leaves are
scored by a static evaluation from the rules (docs/games/yucata.md):

- the **score margin** over the best opponent, score = pale − T(dark), T the triangular
  numbers (a finished game adds ±``win`` for the result);
- the **leader card** still in hand (it always reaches the stone in front of the lead);
- the **next dark stone's price**: with D dark stones another one costs D + 1, so a bot
  deep in dark stones has fewer safe moves (counted through the margin already, and again
  as a small risk term for the stones ahead).

Moves are ordered by the margin after one ply, which makes the cut-offs early.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kibitz.game import Move, State, View

CARDS = "12345SQ"
TRACK_END = 39


@dataclass(frozen=True)
class Weights:
    """The expert's search settings and evaluation weights (spec options ``expert:<name>=<value>``)."""

    depth: float = 6
    """Plies searched with 2 players (every seat's card is one ply): three cards each."""
    depth_multi: float = 5
    """Plies searched with 3 or 4 players: a round and the bot's next card (ending on the
    bot's own card measured better than ending on an opponent's: 35.9 % against 25.2 % for
    3 and 26.5 % for 4 plies in docs/experts.md)."""
    paranoia: float = 0.0
    """With 3–4 players, how much an opponent is assumed to play against the bot: 1 is the
    paranoid search (alpha-beta), 0 max^n (every seat for itself), in between a blend.
    Max^n is the default: against three greedy players the paranoid bot won 20.5 % of games,
    max^n 26.5 % at the same depth (docs/experts.md)."""
    win: float = 1000.0
    """Worth of a finished game's result (a shared win counts its share)."""
    leader_card: float = 0.6
    """Worth of still holding the leader card ``S``."""
    dark_ahead: float = 0.15
    """Risk per dark stone among the next five spaces in front of the lead, times the
    price of the bot's next dark stone."""


class Searcher:
    """The search from one seat's point of view (see the module's docstring)."""

    def __init__(self, seat: int, weights: Weights) -> None:
        self.seat = seat
        self.w = weights
        self.nodes = 0

    def values(self, state: State) -> list[float]:
        """The static worth of ``state`` for every seat: its margin and what its cards and
        the stones ahead promise."""
        scores = state.scores()
        n = len(scores)
        margins = [scores[p] - max(scores[q] for q in range(n) if q != p) for p in range(n)]
        if state.is_terminal():
            returns = state.returns()
            return [margins[p] + self.w.win * returns[p] for p in range(n)]
        f = state.fields()
        hands = f["hands"].split(",")
        lead = max(int(x) for x in f["pos"].split(","))
        layout = f["layout"]  # spaces 5..38, P or D
        darks_ahead = sum(layout[s - 5] == "D" for s in range(max(5, lead + 1), min(TRACK_END, lead + 6)))
        darks = [int(x) for x in f["dark"].split(",")]
        return [
            margins[p]
            + self.w.leader_card * ("S" in hands[p])
            # Another dark stone costs a seat with D of them D + 1: darks close ahead
            # threaten the seats deep in darks most.
            - self.w.dark_ahead * darks_ahead * (darks[p] + 1)
            for p in range(n)
        ]

    def children(self, state: State) -> list[State]:
        found = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            found.append(child)
        return found

    def alphabeta(self, state: State, depth: int, alpha: float, beta: float) -> float:
        """Paranoid value for the bot: it maximises its worth, every other seat minimises it."""
        self.nodes += 1
        if depth == 0 or state.is_terminal():
            return self.values(state)[self.seat]
        maximising = state.current_player == self.seat
        # Children ordered by their static worth, best first for the seat to move: early
        # cut-offs.
        ordered = sorted(self.children(state), key=lambda c: self.values(c)[self.seat], reverse=maximising)
        best = -float("inf") if maximising else float("inf")
        for child in ordered:
            value = self.alphabeta(child, depth - 1, alpha, beta)
            if maximising:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    def maxn(self, state: State, depth: int) -> list[float]:
        """Max^n value vector (Luckhardt & Irani 1986): each seat maximises its own worth,
        blended with ``paranoia`` times the harm to the bot (paranoia 1 = every opponent
        only harms the bot)."""
        self.nodes += 1
        if depth == 0 or state.is_terminal():
            return self.values(state)
        mover = state.current_player
        p = self.w.paranoia

        def aim(v: list[float]) -> float:
            return v[mover] if mover == self.seat else (1.0 - p) * v[mover] - p * v[self.seat]

        return max((self.maxn(child, depth - 1) for child in self.children(state)), key=aim)

    def value(self, state: State, depth: int) -> float:
        """The bot's worth of ``state`` searched ``depth`` plies deep."""
        if state.num_players == 2 or self.w.paranoia >= 1.0:
            return self.alphabeta(state, depth, -float("inf"), float("inf"))
        return self.maxn(state, depth)[self.seat]


class Player:
    """Plays Yucata' for one seat (see the module's docstring)."""

    def __init__(self, weights: Weights, rng: random.Random) -> None:
        self.weights = weights
        self.rng = rng

    def act(self, view: View) -> Move:
        state = view.state()  # perfect information: the view is the whole state
        searcher = Searcher(view.seat, self.weights)
        plies = int(self.weights.depth if state.num_players == 2 else self.weights.depth_multi)
        scored = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            scored.append((searcher.value(child, max(0, plies - 1)), self.rng.random(), action))
        return max(scored)[2]
