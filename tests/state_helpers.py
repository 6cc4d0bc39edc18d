"""Helpers that work through the kibitz.State interface (is_terminal, legal_actions, clone,
apply, chance_outcomes) on any game, and on j4fc_reference.Model, which offers the same methods."""

from __future__ import annotations

import random


def enumerate_perft(s, depth: int, play_last: bool = True) -> int:
    """Leaves after `depth` plies (a decision and a chance outcome are one ply each; a game that
    ends earlier is one leaf), enumerated with is_terminal, legal_actions, clone and apply.
    With play_last=False the moves of the last ply are counted without being played (each is
    one leaf whether or not it ends the game): faster, but they are not applied."""
    if depth == 0 or s.is_terminal():
        return 1
    if depth == 1 and not play_last:
        return len(s.legal_actions())
    total = 0
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        total += enumerate_perft(c, depth - 1, play_last)
    return total


def same_outcomes(got, expected) -> bool:
    """Chance outcomes: the same actions in the same order, probabilities equal to 1e-12."""
    return [a for a, _ in got] == [a for a, _ in expected] and all(abs(p - q) < 1e-12 for (_, p), (_, q) in zip(got, expected))


def random_outcome(rng: random.Random, s) -> int:
    """A chance outcome of `s` drawn with its probability."""
    outcomes = s.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def lasting_actions(s) -> list[int]:
    """The legal actions after which the game is not over."""
    lasting = []
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        if not c.is_terminal():
            lasting.append(a)
    return lasting
