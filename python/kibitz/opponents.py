"""An adaptive opponent model: how much each other seat plays like the game's rollout policy.

A search with ``opponent_model=adaptive`` models every seat outside its team as a player who
makes the rollout policy's move in a share p of its tree decisions and maximises its own
reward in the others (the opponent model of ``opponent_policy``, docs/architecture.md §4), with
p estimated per seat from its moves so far in the game: a heuristic player who plays like the
policy gets a large p, a player who searches gets none.

Each seat is read as that mixture. At every decision of the seat that the bot observes, the
model asks how likely the move was under each of the two players, from what the bot's seat
knows (its view, the hidden cards re-dealt):

- the policy player: the share of ``POLICY_SAMPLES`` policy moves (each on its own deal) that
  are this move;
- the maximiser: the share of the visits a short search of the seat's decision gives it (the
  bot's own search at ``MAXIMISER_SHARE`` of its iterations), on one such deal.

Both are mixed with a uniform move (``UNIFORM_SHARE``), since neither model is exact. The seat's
share is the posterior mean of p over a grid, from the prior (1 - p)^``PRIOR_POWER`` (mean 0.18
on the grid): a seat seen a few times stays close to a maximiser.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from kibitz.errors import IllegalMoveError, NotationError
from kibitz.game import State, View
from kibitz.params import SearchParams

POLICY_SAMPLES = 8
"""Policy moves drawn per observed decision, each on its own re-deal of the hidden cards."""

MAXIMISER_SHARE = 1.0
"""The maximiser's search of an observed decision runs this share of the bot's iterations."""

MIN_MAXIMISER_ITERATIONS = 200
"""...and at least this many; a bot that searches by time gives it that share of its time."""

UNIFORM_SHARE = 0.1
"""Each model's move probability is mixed with a uniform move in this share."""

PRIOR_POWER = 3.0
"""The prior on a seat's share p is proportional to (1 - p)^PRIOR_POWER."""

GRID = [i / 20 for i in range(21)]
"""The values of p the posterior is computed on."""


class OpponentModel:
    """The per-seat share of rollout-policy moves for one seat's searches in one game.

    ``observe`` reads another seat's decision: the observer's view (for a bot that sees
    everything, the full state) before it, and the move's text. ``shares()`` gives the list the
    search takes (``State.search(opponent_shares=...)``). ``params`` is the bot's
    :class:`SearchParams`: its policy weights and the search the maximiser stands for.
    """

    def __init__(self, seat: int, teams: Sequence[int], params: SearchParams, seed: int = 0) -> None:
        self.seat = seat
        self.teams = list(teams)
        self.params = params
        self._rng = random.Random(seed)
        self.log_posterior = [[PRIOR_POWER * math.log1p(-p) if p < 1 else -math.inf for p in GRID] for _ in self.teams]
        self.decisions = [0] * len(self.teams)

    @classmethod
    def for_seat(cls, position: View | State, seat: int, params: SearchParams, seed: int = 0) -> OpponentModel:
        """The model of ``seat``'s game, whose teams ``position`` (a view or a state of it) gives."""
        state = position.state() if isinstance(position, View) else position
        return cls(seat, [state.team(s) for s in range(state.num_players)], params, seed)

    def __repr__(self) -> str:
        return f"OpponentModel(seat={self.seat}, decisions seen {self.decisions}, shares={[round(p, 3) for p in self.shares()]})"

    def shares(self) -> list[float]:
        """Each seat's share of rollout-policy moves in the tree (0 for the searching team)."""
        shares = []
        for seat, log_weights in enumerate(self.log_posterior):
            if self.teams[seat] == self.teams[self.seat]:
                shares.append(0.0)
                continue
            top = max(log_weights)
            weights = [math.exp(w - top) for w in log_weights]
            shares.append(sum(p * w for p, w in zip(GRID, weights)) / sum(weights))
        return shares

    def observe(self, before: View | State, mover: int, move: str) -> None:
        """Another seat's decision ``move`` (its text) made at ``before``; a partner's (the
        searching team is never modelled) is not read."""
        if self.teams[mover] == self.teams[self.seat]:
            return
        known = before.state() if isinstance(before, View) else before
        observer = before.seat if isinstance(before, View) else None
        policy = self._policy_probability(known, observer, move)
        maximiser = self._maximiser_probability(known, observer, move)
        if policy is None or maximiser is None:
            return  # the move does not fit the re-dealt cards: nothing to read
        self.decisions[mover] += 1
        row = self.log_posterior[mover]
        for i, p in enumerate(GRID):
            row[i] += math.log(p * policy + (1 - p) * maximiser)

    def _deal(self, known: State, observer: int | None) -> State:
        return known if observer is None else known.determinize(observer, self._rng.getrandbits(63))

    def _policy_probability(self, known: State, observer: int | None, move: str) -> float | None:
        hits = valid = 0
        legal = 1
        for _ in range(POLICY_SAMPLES):
            deal = self._deal(known, observer)
            found = _legal_action(deal, move)
            if found is None:
                continue
            action, legal = found
            valid += 1
            hits += deal._s.heuristic_action(self._rng.getrandbits(63), list(self.params.policy)) == action
        if not valid:
            return None
        return (1 - UNIFORM_SHARE) * hits / valid + UNIFORM_SHARE / legal

    def _maximiser_probability(self, known: State, observer: int | None, move: str) -> float | None:
        deal = self._deal(known, observer)
        found = _legal_action(deal, move)
        if found is None:
            return None
        action, legal = found
        if legal == 1:
            return 1.0
        if self.params.iterations:
            budget = {"iterations": max(MIN_MAXIMISER_ITERATIONS, int(self.params.iterations * MAXIMISER_SHARE)), "time_ms": 0.0}
        else:  # a bot searching by time: its maximiser too
            budget = {"iterations": 0, "time_ms": max(1.0, self.params.time_ms * MAXIMISER_SHARE)}
        params = self.params.with_(
            **budget, threads=1, opponent_model="fixed", opponent_policy=0.0, seed=self._rng.getrandbits(63)
        )
        chosen = deal.search(params).action
        return (1 - UNIFORM_SHARE) * (chosen == action) + UNIFORM_SHARE / legal


def _legal_action(state: State, move: str) -> tuple[int, int] | None:
    """The move's action id in ``state`` and the number of legal actions there, or None where
    the move is not legal there."""
    try:
        action = state.parse_move(move)
    except (IllegalMoveError, NotationError):
        return None
    legal = state.legal_actions()
    return (action, len(legal)) if action in legal else None
