"""kibitz.interop.pettingzoo (docs/research.md): every kibitz game passes PettingZoo's API tests
as an AEC and as a Parallel environment; seeds replay; a simultaneous choice stays secret until
all are in. Skipped when the pettingzoo extra is not installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kibitz

pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed: pip install 'kibitz[pettingzoo]'")
from pettingzoo.test import api_test, parallel_api_test

from kibitz.interop.pettingzoo import env, parallel_env

CONFIGURATIONS = [
    ("just4fun_colours", {"players": 3}),
    ("yucata", {}),
    ("canasta_tiles", {"winner_required": 0}),
    ("yak", {"players": 3}),
    ("biased_rps", {}),
    ("goofspiel", {}),
]
CYCLES = 3000  # enough for a whole game of each (a Yak game of 3 takes a few hundred steps)


def test_every_game_is_tested() -> None:
    assert {name for name, _ in CONFIGURATIONS} == {g.name for g in kibitz.games()}


@pytest.mark.parametrize(("name", "options"), CONFIGURATIONS)
def test_pettingzoo_api_tests_pass(name: str, options: dict) -> None:
    with warnings.catch_warnings():
        # The dict observation ({"observation", "action_mask"}, as PettingZoo's own card games
        # have) draws these advisory warnings from the test; everything it asserts holds.
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", message="Observation numpy array is all zeros")
        api_test(env(name, **options), num_cycles=CYCLES)
        parallel_api_test(parallel_env(name, **options), num_cycles=CYCLES)


def play(e, seed: int) -> tuple[list[str], list[int], dict[str, float]]:
    """A whole AEC game, each agent taking its lowest legal action: agents, actions, rewards."""
    e.reset(seed=seed)
    agents, actions, rewards = [], [], {}
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _ = e.last()
        rewards[agent] = reward
        action = None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0])
        agents.append(agent)
        actions.append(action)
        e.step(action)
    return agents, actions, rewards


def test_a_seed_replays_the_game_and_rewards_are_win_shares() -> None:
    first, second = play(env("just4fun_colours"), 7), play(env("just4fun_colours"), 7)
    assert first == second
    assert sum(first[2].values()) == pytest.approx(1.0)
    assert play(env("just4fun_colours"), 8)[:2] != first[:2]  # another deal


def test_a_simultaneous_choice_is_secret_until_every_seat_has_chosen() -> None:
    e = env("yak", players=3)
    e.reset(seed=3)
    first = e.agent_selection
    before = {agent: e.observe(agent)["observation"].copy() for agent in e.agents}
    mask = e.observe(first)["action_mask"]
    e.step(int(np.flatnonzero(mask)[1]))  # restock
    second = e.agent_selection
    assert second != first
    # Nothing has happened yet for anyone: the choice is only recorded.
    for agent in e.agents:
        assert np.array_equal(e.observe(agent)["observation"], before[agent])


def test_illegal_action_is_refused_naming_it() -> None:
    e = env("goofspiel")
    with pytest.raises(RuntimeError, match="call reset"):
        e.render()
    e.reset(seed=0)
    with pytest.raises(kibitz.IllegalMoveError, match="action 99 is not legal"):
        e.step(99)
    p = parallel_env("biased_rps")
    p.reset(seed=0)
    with pytest.raises(kibitz.IllegalMoveError, match="no action of player_1"):
        p.step({"player_0": 0})


def test_parallel_env_plays_a_joint_move_in_one_step() -> None:
    p = parallel_env("biased_rps")
    observations, _ = p.reset(seed=1)
    assert all(obs["action_mask"].tolist() == [1, 1, 1] for obs in observations.values())
    observations, rewards, terminations, _, _ = p.step({"player_0": 1, "player_1": 0})  # paper beats rock more often
    assert all(terminations.values()) and sum(rewards.values()) == pytest.approx(1.0)
    assert p.agents == []


def test_a_parallel_step_refuses_an_agent_that_does_not_exist() -> None:
    """parallel_env('yak', players=3).step({..., 'player_9': 0}) was accepted silently."""
    p = parallel_env("yak", players=3)
    observations, _ = p.reset(seed=1)
    actions = {agent: int(np.flatnonzero(obs["action_mask"])[0]) for agent, obs in observations.items() if obs["action_mask"].any()}
    before = p.notation()
    for stranger in ("player_9", "player_3", 0, "agent"):
        with pytest.raises(kibitz.IllegalMoveError, match=rf"no agent {stranger!r} in kibitz_yak_v0; the agents are player_0, player_1, player_2"):
            p.step({**actions, stranger: 0})
        assert p.notation() == before
    p.step(actions)
    assert p.notation() != before
