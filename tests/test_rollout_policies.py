"""The rollout policies play the moves they played before their speed work.

``rollout_policy_moves.json`` holds, for Just 4 Fun Colours (2, 3 and 4 players, lines of 4 and
5), tile Canasta and Yak, the policy's move (``heuristic_action``; Yak's Sunrise choice too) at
every decision of seeded games, for several rng seeds and weight settings (defaults, weights off,
fractional and extreme weights); Just 4 Fun Colours' decision log-likelihoods, which score moves
with the same policy; and the decisions of whole heuristic playouts from seeded positions. It was
recorded from the policies as they were before they were made faster (incremental threat tables
and the like), so a speed change that alters a single move fails here.

One part was recorded again (2026-12-06): Just 4 Fun Colours' moves with the fractional weights.
Its policy now sums each line term over the lines through a field as a whole number and weighs
the sum once (docs/games/just4fun_colours.md §7), so fields whose lines add up alike score exactly
alike; 11 of those 6,201 moves differ from the first recording, each a choice between fields
whose scores are equal in exact arithmetic and which the old order of additions told apart by a
rounding error (the tie now goes to the first field, as the rule says). Every move with whole-number
weights, every log-likelihood and every playout is as first recorded.

``python tests/test_rollout_policies.py --write`` records it again: only ever do that when a
policy is meant to change.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import kibitz
from state_helpers import decision_positions

RECORD = Path(__file__).resolve().parent / "rollout_policy_moves.json"
SEEDS = (1, 7, 12345)
# (game, players, options, games recorded)
CONFIGS: list[tuple[str, int, dict[str, Any], int]] = [
    ("just4fun_colours", 2, {}, 40),
    ("just4fun_colours", 3, {}, 30),
    ("just4fun_colours", 4, {}, 25),
    ("just4fun_colours", 3, {"line": 5}, 8),
    ("canasta_tiles", 4, {}, 3),
    ("yak", 2, {}, 2),
    ("yak", 4, {}, 2),
]
# Weight settings by name: defaults, weights off (ties everywhere), fractional ones (whose sums
# depend on the order of the additions) and the ends of the ranges.
WEIGHTS: dict[str, list[dict[str, float]]] = {
    "just4fun_colours": [
        {},
        {"block": 0},
        {"block": 3},
        {"stones": 0, "free_line": 0, "broken_line": 0, "area": 0},
        {"stones": 2.5, "free_line": 1.75, "broken_line": 0.3, "take": -3.3, "area": 4.1, "height": 7.7, "cover_own": 12.9},
        {"block": 2, "stones": 1000, "take": 1000, "area": -1000, "height": -1000, "cover_own": -1000},
    ],
    "canasta_tiles": [
        {},
        {"out_to_win": 1},
        {"feed": 5, "known_pair": 0, "out_margin": 200},
        {"natural": 12.5, "canasta": 150.3, "wild_short": 7.7, "wild_long": 2.2, "feed": 0.7, "out_margin": -10000},
    ],
    "yak": [
        {},
        {"stone": 0, "colour": 0, "crystal": 0, "food": 0, "level": 0},
        {"stone": -2.25, "colour": 3.3, "crystal": 0.1, "food": 1.7, "level": 0.45},
    ],
}
# decision_log_likelihood(observer, turns, temperature, epsilon) at every fifth position.
LIKELIHOODS = [(3, 5.0, 1e-3), (6, 40.0, 1e-6)]


def round_to_digits(x: float) -> float:
    return float(f"{x:.12g}")


def key(name: str, players: int, options: dict[str, Any]) -> str:
    return "/".join([name, str(players), *(f"{k}={v}" for k, v in sorted(options.items()))])


def policy_or_uniform(state: kibitz.State, rng: random.Random) -> int:
    """The policy's move or a uniform one, by a coin."""
    return state._s.heuristic_action(rng.getrandbits(63)) if rng.random() < 0.5 else rng.choice(state.legal_actions())


def positions(name: str, players: int, options: dict[str, Any], games: int) -> list[tuple[kibitz.State, int | None]]:
    """(state, seat): every decision of seeded games in which each move is the policy's or a
    uniform one, by a coin (tests/state_helpers.py)."""
    return decision_positions(kibitz.Game(name, players=players, **options), games, policy_or_uniform)


def record(name: str, players: int, options: dict[str, Any], games: int) -> dict[str, Any]:
    found = positions(name, players, options, games)
    moves = [
        [state._s.heuristic_action(seed, list(weights.items())) for weights in WEIGHTS[name] for seed in SEEDS]
        for state, seat in found
        if seat is None
    ]
    result: dict[str, Any] = {"positions": len(found), "moves": moves}
    if name == "yak":
        result["choices"] = [
            [state._s.heuristic_choice(seat, seed) for seed in SEEDS] for state, seat in found if seat is not None
        ]
    if name == "just4fun_colours":

        def log_likelihoods(k: int, state: kibitz.State) -> list[float]:  # 12 digits: the last ones depend on libm
            return [
                round_to_digits(
                    state._s.decision_log_likelihood(k % players, turns, temperature, epsilon, SEEDS[k % 3], list(w.items()))
                )
                for w in WEIGHTS[name][:5]
                for turns, temperature, epsilon in LIKELIHOODS
            ]

        result["log_likelihoods"] = [log_likelihoods(k, state) for k, (state, _) in enumerate(found[::5])]
    # Whole playouts (default weights, chance sampled by the same rng) from every tenth position
    # reached between decisions: the decisions they make, summed over the playouts.
    starts = [state for state, seat in found[::10] if seat is None]
    result["playout_decisions"] = [state._s.heuristic_playouts(3, 1000 + k) for k, state in enumerate(starts)]
    return result


def recorded() -> dict[str, Any]:
    return {key(name, players, options): record(name, players, options, games) for name, players, options, games in CONFIGS}


@pytest.fixture(scope="module")
def fixture() -> dict[str, Any]:
    return dict(json.loads(RECORD.read_text()))


@pytest.mark.parametrize("name,players,options,games", CONFIGS, ids=[key(*c[:3]) for c in CONFIGS])
def test_the_policy_plays_the_recorded_moves(
    fixture: dict[str, Any], name: str, players: int, options: dict[str, Any], games: int
) -> None:
    want = fixture[key(name, players, options)]
    got = record(name, players, options, games)
    assert got["positions"] == want["positions"] > 100
    mismatched = [k for k, (a, b) in enumerate(zip(got["moves"], want["moves"])) if a != b]
    assert len(got["moves"]) == len(want["moves"]) and not mismatched, f"moves differ at positions {mismatched[:10]}"
    assert got.get("choices") == want.get("choices")
    assert got["playout_decisions"] == want["playout_decisions"]
    for k, (a, b) in enumerate(zip(got.get("log_likelihoods", []), want.get("log_likelihoods", []))):
        assert all(math.isclose(x, y, rel_tol=1e-10, abs_tol=1e-10) for x, y in zip(a, b)), (
            f"log-likelihoods differ at position {5 * k}"
        )
    assert len(got.get("log_likelihoods", [])) == len(want.get("log_likelihoods", []))


def test_the_record_tells_the_weight_settings_apart(fixture: dict[str, Any]) -> None:
    """Each setting plays differently from the defaults somewhere, so the record exercises it."""
    for name, settings in WEIGHTS.items():
        rows = [
            row for game, players, options, _ in CONFIGS if game == name for row in fixture[key(game, players, options)]["moves"]
        ]
        for i in range(1, len(settings)):
            assert any(row[i * len(SEEDS)] != row[0] for row in rows), f"{name}: {settings[i]} plays the default moves"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_rollout_policies.py --write   (records the policies' moves again)")
    RECORD.write_text(json.dumps(recorded(), separators=(",", ":")) + "\n")
    print(f"wrote {RECORD}")
