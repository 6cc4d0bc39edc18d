"""Helpers that work through the kibitz.State interface (is_terminal, legal_actions, clone,
apply, chance_outcomes) on any game, and on j4fc_reference.Model, which offers the same methods."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable


def joint_moves(s) -> list[dict[int, int]]:
    """Every joint move of a simultaneous node (seat -> action), the last seat varying fastest."""
    seats = s.choosing_seats()
    return [dict(zip(seats, combo)) for combo in itertools.product(*(s.legal_actions_for(seat) for seat in seats))]


def successors(s) -> list:
    """Every state one ply after `s`: after each legal decision, chance outcome or joint move."""
    out = []
    for move in joint_moves(s) if is_simultaneous(s) else s.legal_actions():
        c = s.clone()
        c.apply_joint(move) if isinstance(move, dict) else c.apply(move)
        out.append(c)
    return out


def is_simultaneous(s) -> bool:
    """Whether `s` is a simultaneous node (a model without them never is)."""
    return bool(getattr(s, "is_simultaneous", lambda: False)())


def enumerate_perft(s, depth: int, play_last: bool = True) -> int:
    """Leaves after `depth` plies (a decision, a joint move and a chance outcome are one ply
    each; a game that ends earlier is one leaf), enumerated with is_terminal, legal_actions
    (legal_actions_for and apply_joint at a simultaneous node), clone and apply. With
    play_last=False the moves of the last ply are counted without being played (each is one
    leaf whether or not it ends the game): faster, but they are not applied."""
    if depth == 0 or s.is_terminal():
        return 1
    if depth == 1 and not play_last:
        return len(joint_moves(s)) if is_simultaneous(s) else len(s.legal_actions())
    return sum(enumerate_perft(c, depth - 1, play_last) for c in successors(s))


def random_joint(rng: random.Random, s) -> dict[int, int]:
    """A joint move of a simultaneous node, each seat's action uniform among its own."""
    return {seat: rng.choice(s.legal_actions_for(seat)) for seat in s.choosing_seats()}


def random_step(rng: random.Random, s) -> None:
    """Plays one uniformly random step: a chance outcome with its probability, a random joint
    move, or a random decision."""
    if s.is_chance():
        s.apply(random_outcome(rng, s))
    elif is_simultaneous(s):
        s.apply_joint(random_joint(rng, s))
    else:
        s.apply(rng.choice(s.legal_actions()))


def same_outcomes(got, expected) -> bool:
    """Chance outcomes: the same actions in the same order, probabilities equal to 1e-12."""
    return [a for a, _ in got] == [a for a, _ in expected] and all(abs(p - q) < 1e-12 for (_, p), (_, q) in zip(got, expected))


def random_outcome(rng: random.Random, s) -> int:
    """A chance outcome of `s` drawn with its probability."""
    outcomes = s.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def lasting_actions(s) -> list:
    """The legal actions (joint moves at a simultaneous node) after which the game is not over."""
    moves = joint_moves(s) if is_simultaneous(s) else s.legal_actions()
    return [move for move, after in zip(moves, successors(s)) if not after.is_terminal()]


def uniform_move(state, rng: random.Random) -> int:
    """A uniformly random legal move of the seat to move."""
    return rng.choice(state.legal_actions())


def decision_positions(game, deals: int, move: Callable[..., int] = uniform_move) -> list[tuple]:
    """(state, seat) at every decision of ``deals`` seeded games of a kibitz.Game: the seat to
    move's (seat None), or each choosing seat's at a simultaneous node. Deal k is seed k with
    ``random.Random(k)`` for chance and moves: a chance outcome and every simultaneous choice
    uniform, the seat to move's from ``move(state, rng)``."""
    found: list[tuple] = []
    for deal in range(deals):
        rng = random.Random(deal)
        state = game.new_initial_state(seed=deal)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            elif state.is_simultaneous():
                seats = state.choosing_seats()
                found.extend((state.clone(), seat) for seat in seats)
                state.apply_joint({seat: rng.choice(state.legal_actions_for(seat)) for seat in seats})
            else:
                found.append((state.clone(), None))
                state.apply(move(state, rng))
    return found
