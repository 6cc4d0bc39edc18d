"""A researcher's first script with kibitz (docs/research.md): metadata, numpy observation
tensors and legal-action masks, a search with its statistics, a seeded game between bots, and a
rollout policy of its own (a Python plug-in) beside a compiled one.

Run it with ``python examples/research_api.py``; ``mypy examples/research_api.py`` type-checks it
against kibitz's annotations and the stub of its C++ core (tests/test_typing.py does both).
"""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt

import kibitz
from kibitz import plugins


def observations(state: kibitz.State) -> dict[int, npt.NDArray[np.float32]]:
    """Every seat's observation tensor: what that seat may see, nothing more."""
    return {seat: state.observation_tensor(seat) for seat in range(state.num_players)}


def masked_random_action(state: kibitz.State, rng: np.random.Generator) -> int:
    """A uniformly random legal decision, drawn through the legal-action mask as a policy would."""
    mask = state.legal_action_mask()
    return int(rng.choice(np.flatnonzero(mask)))


def main() -> None:
    game = kibitz.Game("just4fun_colours", players=2)
    meta: kibitz.GameMetadata = game.metadata
    print(
        f"{game!r}: {meta.dynamics}, {meta.information} information, {meta.max_actions} action ids, "
        f"at most {meta.max_game_length} decisions, observation of {meta.observation_size} floats"
    )

    chance = random.Random(0)  # every random choice below flows from a seed
    policy = np.random.default_rng(1)
    state = game.new_initial_state(seed=42)
    buffer = np.empty(meta.observation_size, dtype=np.float32)
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(chance.getrandbits(63)))
            continue
        state.observation_tensor_into(state.current_player, buffer)  # no allocation per step
        state.apply(masked_random_action(state, policy))
    print("returns", state.returns(), "observation sums", {s: float(t.sum()) for s, t in observations(state).items()})

    bot = kibitz.make_bot("ismcts:iterations=2000", seed=1)
    position = game.new_initial_state(seed=7)
    result: kibitz.SearchResult = position.search(kibitz.SearchParams(algorithm="so_ismcts", iterations=2000, seed=3))
    print(bot, result, sep="\n")
    best: kibitz.ActionStat = max(result.stats, key=lambda s: s.visits)
    assert best.move == result.move

    # A rollout policy of one's own (docs/plugins.md): a Python callable (slow, thread-safe), and
    # the compiled example of this game with its leaf evaluator after 4 rollout decisions.
    def uniform(observation: npt.NDArray[np.float32], legal: npt.NDArray[np.bool_], seat: int, random: int) -> int:
        moves = np.flatnonzero(legal)
        return int(moves[random % len(moves)])

    mine: plugins.Plugin = plugins.from_python(uniform, name="uniform")
    example = plugins.load("kibitz.plugins.just4fun_colours")
    for plugin, params in ((mine, kibitz.SearchParams(iterations=200, threads=2)), (example, kibitz.SearchParams(iterations=2000, eval_depth=4))):
        print(plugin, position.search(params, plugin=plugin).move)


if __name__ == "__main__":
    main()
