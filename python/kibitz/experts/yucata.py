"""The expert player of Yucata' (2–4 players, perfect information).

A shallow **paranoid** alpha-beta search (Sturtevant & Korf 2000): the bot maximises its
margin, every other seat is assumed to minimise it, which turns the multi-player game into a
two-sided one that alpha-beta can prune. Paranoid play suits Yucata': an opponent's card that
hurts the bot most (landing one in front of it with ``S``, copying its move with ``Q``, taking
the pale stone it was heading for) is exactly what a careful player guards against.

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

    depth: float = 4
    """Plies searched (every seat's card is one ply)."""
    win: float = 1000.0
    """Worth of a finished game's result (a shared win counts its share)."""
    leader_card: float = 0.6
    """Worth of still holding the leader card ``S``."""
    dark_ahead: float = 0.15
    """Risk per dark stone among the next five spaces in front of the lead, times the
    price of the bot's next dark stone."""


def _fields(state: State) -> dict[str, str]:
    return dict(item.split("=", 1) for item in state.notation().split()[1:])


class Searcher:
    """Paranoid alpha-beta from one seat's point of view."""

    def __init__(self, seat: int, weights: Weights) -> None:
        self.seat = seat
        self.w = weights
        self.nodes = 0

    def evaluate(self, state: State) -> float:
        """The static worth of ``state`` for the bot."""
        scores = state.scores()
        mine = scores[self.seat]
        best_other = max(s for q, s in enumerate(scores) if q != self.seat)
        value = mine - best_other
        if state.is_terminal():
            return value + self.w.win * state.returns()[self.seat]
        f = _fields(state)
        hands = f["hands"].split(",")
        value += self.w.leader_card * ("S" in hands[self.seat])
        value -= self.w.leader_card / max(1, len(hands) - 1) * sum("S" in h for q, h in enumerate(hands) if q != self.seat)
        pos = [int(x) for x in f["pos"].split(",")]
        lead = max(pos)
        layout = f["layout"]  # spaces 5..38, P or D
        darks_ahead = sum(layout[s - 5] == "D" for s in range(max(5, lead + 1), min(TRACK_END, lead + 6)))
        dark = int(f["dark"].split(",")[self.seat])
        value -= self.w.dark_ahead * darks_ahead * (dark + 1)
        return value

    def search(self, state: State, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if depth == 0 or state.is_terminal():
            return self.evaluate(state)
        maximising = state.current_player == self.seat
        children = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            children.append((self.evaluate(child), child))
        children.sort(key=lambda item: item[0], reverse=maximising)
        if maximising:
            best = -float("inf")
            for _, child in children:
                best = max(best, self.search(child, depth - 1, alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = float("inf")
        for _, child in children:
            best = min(best, self.search(child, depth - 1, alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best


class Player:
    """Plays Yucata' for one seat (see the module's docstring)."""

    def __init__(self, weights: Weights, rng: random.Random) -> None:
        self.weights = weights
        self.rng = rng

    def act(self, view: View) -> Move:
        state = view.state()  # perfect information: the view is the whole state
        searcher = Searcher(view.seat, self.weights)
        depth = max(1, int(self.weights.depth))
        scored = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            value = searcher.search(child, depth - 1, -float("inf"), float("inf"))
            scored.append((value, self.rng.random(), action))
        return max(scored)[2]
