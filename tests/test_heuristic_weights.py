"""Heuristic weights declared by the games and set at run time: the greedy bot's evaluation
weights (``greedy:eval.<name>=<v>``) and the rollout policies' (``policy.<name>``).

The defaults must play exactly the moves the hard-coded heuristics played: the moves of the
greedy bot, and of the rollout policies that gained declared weights (Yak), at many seeded
positions of every game were recorded in ``heuristic_moves.json`` before the weights existed
(``python tests/test_heuristic_weights.py --write`` records them again; only ever do that
when a heuristic is meant to change).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

import kibitz
from kibitz import OptionError

RECORD = Path(__file__).resolve().parent / "heuristic_moves.json"
# The positions: games of uniformly random moves from seeded deals, every decision recorded.
CONFIGS = [
    ("just4fun_colours", 2),
    ("just4fun_colours", 4),
    ("yucata", 2),
    ("yucata", 3),
    ("canasta_tiles", 4),
    ("yak", 2),
    ("yak", 4),
    ("goofspiel", 2),
    ("biased_rps", 2),
]
GAMES_PER_CONFIG = 6


def positions(name: str, players: int) -> list[tuple[kibitz.State, int | None]]:
    """(state, seat): a decision of the seat to move (seat None) or of a choosing seat."""
    game = kibitz.Game(name, players=players)
    found: list[tuple[kibitz.State, int | None]] = []
    for deal in range(GAMES_PER_CONFIG):
        rng = random.Random(deal)
        state = game.new_initial_state(seed=deal)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            elif state.is_simultaneous():
                found.extend((state.clone(), seat) for seat in state.choosing_seats())
                state.apply_joint({seat: rng.choice(state.legal_actions_for(seat)) for seat in state.choosing_seats()})
            else:
                found.append((state.clone(), None))
                state.apply(rng.choice(state.legal_actions()))
    return found


def greedy_moves(name: str, players: int, eval: dict[str, float] | None = None) -> list[int]:
    weights = list((eval or {}).items())
    return [
        s._s.greedy_action(k, weights) if seat is None else s._s.greedy_choice(seat, k, weights)
        for k, (s, seat) in enumerate(positions(name, players))
    ]


def policy_moves(name: str, players: int) -> list[int]:
    return [s._s.heuristic_action(k) for k, (s, seat) in enumerate(positions(name, players)) if seat is None]


def recorded() -> dict[str, dict[str, list[int]]]:
    return {
        f"{name}/{players}": {"greedy": greedy_moves(name, players), **({"policy": policy_moves(name, players)} if name == "yak" else {})}
        for name, players in CONFIGS
    }


@pytest.mark.parametrize("name,players", CONFIGS)
def test_the_default_weights_play_the_moves_the_fixed_heuristics_played(name: str, players: int) -> None:
    record = json.loads(RECORD.read_text())[f"{name}/{players}"]
    assert record["greedy"]
    assert greedy_moves(name, players) == record["greedy"]
    if "policy" in record:
        assert policy_moves(name, players) == record["policy"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_heuristic_weights.py --write   (records the heuristics' moves again)")
    RECORD.write_text(json.dumps(recorded(), separators=(",", ":")) + "\n")
    print(f"wrote {RECORD}")
