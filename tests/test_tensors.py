"""Game metadata, observation tensors and legal-action masks (docs/research.md): the tensor is a
function of the seat's view alone, the mask is the legal list, the bounds hold in play."""

from __future__ import annotations

import random

import numpy as np
import pytest

import kibitz
from kibitz import OptionError
from state_helpers import random_step

# Every game, with options that give it a bounded length where the default has none.
GAMES = {
    "just4fun_colours": {"players": 3},
    "yucata": {"players": 3},
    "canasta_tiles": {"winner_required": 0},
    "yak": {"players": 3},
    "biased_rps": {},
    "goofspiel": {"cards": 5},
}
DETERMINIZATIONS = 4
STEPS = 400  # a prefix of a game (canasta and yak last longer; the prefix covers their phases)


def states(name: str, seed: int) -> list[kibitz.State]:
    """Every state of one seeded random game (its first STEPS steps)."""
    rng = random.Random(seed)
    state = kibitz.Game(name, **GAMES[name]).new_initial_state(seed)
    seen = [state.clone()]
    while not state.is_terminal() and len(seen) < STEPS:
        random_step(rng, state)
        seen.append(state.clone())
    return seen


def test_every_game_is_covered() -> None:
    assert set(GAMES) == {g.name for g in kibitz.games()}


def test_metadata_of_the_games() -> None:
    j4fc = kibitz.Game("just4fun_colours", players=3).metadata
    assert (j4fc.dynamics, j4fc.chance, j4fc.information) == ("sequential", "explicit_stochastic", "imperfect")
    assert (j4fc.max_actions, j4fc.max_chance_outcomes, j4fc.max_game_length) == (37, 6, 60)
    yucata = kibitz.Game("yucata", players=4).metadata
    assert (yucata.chance, yucata.information, yucata.max_game_length) == ("deterministic", "perfect", 38 * 4 + 1)
    yak = kibitz.Game("yak", players=2).metadata
    assert (yak.dynamics, yak.max_game_length) == ("simultaneous", 100 * (1 + 2 * 6))
    canasta = kibitz.Game("canasta_tiles").metadata
    assert (canasta.teams, canasta.utility, canasta.utility_sum, canasta.max_game_length) == (True, "constant_sum", 2.0, None)
    assert kibitz.Game("canasta_tiles", winner_required=0, mode="three_rounds").metadata.max_game_length == 3 * 82 * 78
    assert kibitz.Game("goofspiel", cards=6).metadata.max_game_length == 6
    info = next(g for g in kibitz.games() if g.name == "yak")
    assert (info.max_actions, info.max_chance_outcomes, info.chance) == (559, 10, True)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_tensor_is_a_function_of_the_view_and_mask_is_the_legal_list(name: str) -> None:
    game = kibitz.Game(name, **GAMES[name])
    meta = game.metadata
    hidden_varied = False
    for state in states(name, seed=11)[::7]:
        for seat in range(game.num_players):
            tensor = state.observation_tensor(seat)
            assert tensor.shape == (meta.observation_size,) and tensor.dtype == np.float32
            assert np.isfinite(tensor).all()
            # The same view, other hidden parts: the same tensor.
            assert np.array_equal(state.view(seat).observation_tensor(), tensor)
            for k in range(DETERMINIZATIONS):
                other = state.determinize(seat, k)
                hidden_varied |= other.notation() != state.notation()
                assert np.array_equal(other.observation_tensor(seat), tensor), (
                    f"seat {seat} sees hidden parts at {state.notation()}"
                )
            mask = state.legal_action_mask(seat)
            assert mask.shape == (meta.max_actions,) and mask.dtype == np.bool_
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(state.legal_actions_for(seat))
        if not state.is_chance() and not state.is_terminal() and not state.is_simultaneous():
            assert np.array_equal(state.legal_action_mask(), state.legal_action_mask(state.current_player))
    # The test means something only if determinizations did change hidden parts.
    assert hidden_varied or meta.information == "perfect" or name in ("biased_rps", "goofspiel")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_tensor_changes_with_what_the_seat_sees(name: str) -> None:
    """Not a constant: the tensors of one game take many values."""
    distinct = {state.observation_tensor(0).tobytes() for state in states(name, seed=5)}
    assert len(distinct) >= 3


def test_own_hand_is_in_the_tensor_and_other_hands_are_not() -> None:
    """J4FC: the own hand's counts are entries 180-185 (docs/games/just4fun_colours.md);
    another seat's hand appears nowhere: swapping the two hands changes only the owner's tensor."""
    state = kibitz.Game("just4fun_colours", players=2).new_initial_state(3)
    tensor = state.observation_tensor(0)
    hand = state.notation().split("hands=")[1].split()[0].split(",")[0]
    counts = [hand.count(c) / 10 for c in "ROYGBP"]
    assert np.allclose(tensor[180:186], counts)


def test_into_writes_the_callers_array_and_refuses_the_wrong_one() -> None:
    state = kibitz.Game("yak", players=4).new_initial_state(2)
    out = np.full(state.observation_tensor(1).shape, -1, dtype=np.float32)
    state.observation_tensor_into(1, out)
    assert np.array_equal(out, state.observation_tensor(1))
    with pytest.raises(OptionError, match="float32 vector of"):
        state.observation_tensor_into(1, np.zeros(out.shape, dtype=np.float64))
    with pytest.raises(OptionError, match="seat"):
        state.observation_tensor(4)


@pytest.mark.parametrize("name", ["just4fun_colours", "yucata", "goofspiel", "yak"])
def test_games_end_within_max_game_length(name: str) -> None:
    """The bound holds in play: random games count their decisions (a joint move is one)."""
    game = kibitz.Game(name, **GAMES[name])
    bound = game.metadata.max_game_length
    assert bound is not None
    for seed in range(3):
        rng = random.Random(seed)
        state, decisions = game.new_initial_state(seed), 0
        while not state.is_terminal():
            decisions += not state.is_chance()
            random_step(rng, state)
        assert decisions <= bound
