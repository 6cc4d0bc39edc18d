"""kibitz games as PettingZoo environments (``pip install 'kibitz[pettingzoo]'``; docs/research.md).

``env(game, **options)`` is an AEC environment (one agent acts at a time) and
``parallel_env(game, **options)`` a Parallel one (every agent sends an action each step), for any
kibitz game; the Parallel form suits games with simultaneous nodes such as Yak, Goofspiel and
biased rock-paper-scissors::

    from kibitz.interop.pettingzoo import env

    e = env("just4fun_colours", players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        mask = observation["action_mask"]
        e.step(None if terminated or truncated else int(np.flatnonzero(mask)[0]))

- **Agents** are ``player_0`` ... ``player_<n-1>``, the game's seats.
- **Observations** are dicts: ``"observation"``, the seat's float32 observation tensor (only
  what the seat may see; docs/games/<game>.md), and ``"action_mask"``, an int8 vector over the
  game's ``max_actions`` action ids, 1 at the seat's legal decisions now.
- **Actions** are kibitz's action ids (``Discrete(max_actions)``); an illegal one raises
  IllegalMoveError naming it, with nothing changed.
- **Chance** nodes are played by the environment, drawn from the generator ``reset(seed=...)``
  seeds (the deal too); the same seed and actions replay the same game.
- **Simultaneous nodes**: in the AEC form each choosing seat acts in turn, in the game's
  recording order, and the choices take effect together once all are in, so no seat sees
  another's choice before making its own. In the Parallel form a step is one decision node:
  at an ordinary turn only the mover's action is read (the others may send anything, say 0),
  at a simultaneous node every choosing seat's.
- **Rewards** come at the end, kibitz's win shares (a sole winner 1, k joint winners 1/k;
  partners share their team's), 0 before. The games end by their rules (docs/games); a game
  whose rules set no bound on its length (tile Canasta with a required winner) still ends in
  practice, as kibitz's matches do.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv

import kibitz
from kibitz.errors import IllegalMoveError

SEED_BOUND = 2**63


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class _Table:
    """The game both environment forms share: the kibitz state, the seeded generator that plays
    chance, and each seat's observation."""

    def __init__(self, game: kibitz.Game, seed: int | None) -> None:
        self.game = game
        self.rng, _ = seeding.np_random(seed)
        self.state = game.new_initial_state(self._seed())
        self.play_chance()

    def _seed(self) -> int:
        return int(self.rng.integers(SEED_BOUND))

    def play_chance(self) -> None:
        while self.state.is_chance():
            self.state.apply(self.state.sample_chance(self._seed()))

    def deciders(self) -> list[int]:
        """The seats that decide at this node (empty once the game is over)."""
        if self.state.is_terminal():
            return []
        return self.state.choosing_seats() if self.state.is_simultaneous() else [self.state.current_player]

    def checked(self, seat: int, action: Any) -> int:
        """``action`` as an action id if it is legal for ``seat`` now; IllegalMoveError otherwise."""
        legal = self.state.legal_actions_for(seat)
        try:
            value = int(action)
        except (TypeError, ValueError):
            value = -1
        if value not in legal:
            raise IllegalMoveError(f"{agent_name(seat)}: action {action!r} is not legal here; legal: {sorted(legal)}")
        return value

    def observation(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        return {
            "observation": self.state.observation_tensor(seat),
            "action_mask": self.state.legal_action_mask(seat).astype(np.int8),
        }


class _Spaces:
    """The agents and their spaces (one object for every agent and call, as PettingZoo wants)."""

    metadata: dict[str, Any]

    def __init__(self, game: str, render_mode: str | None, options: dict[str, Any]) -> None:
        self.kibitz_game = kibitz.Game(game, **options)
        self.possible_agents = [agent_name(seat) for seat in range(self.kibitz_game.num_players)]
        self.render_mode = render_mode
        if render_mode not in (None, "ansi", "human"):
            raise kibitz.OptionError(f"render_mode: expected None, 'ansi' or 'human', got {render_mode!r}")
        self.metadata = {"name": f"kibitz_{game}_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True}
        meta = self.kibitz_game.metadata
        self._observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(-np.inf, np.inf, (meta.observation_size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (meta.max_actions,), np.int8),
            }
        )
        self._action_space = gymnasium.spaces.Discrete(meta.max_actions)
        self._table: _Table | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._action_space

    @property
    def table(self) -> _Table:
        if self._table is None:
            raise RuntimeError(f"{self.metadata['name']}: no game yet; call reset() first")
        return self._table

    def notation(self) -> str:
        """The full game state's notation (kibitz's ``State.notation``), hidden parts included."""
        return self.table.state.notation()

    def render(self) -> str | None:
        text = self.table.state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text if self.render_mode == "ansi" else None

    def close(self) -> None:
        self._table = None


class KibitzAECEnv(_Spaces, AECEnv):
    """A kibitz game as a PettingZoo AEC environment (see the module docstring)."""

    def __init__(self, game: str, render_mode: str | None = None, **options: Any) -> None:
        AECEnv.__init__(self)
        _Spaces.__init__(self, game, render_mode, options)
        self._pending: dict[int, int] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._table = _Table(self.kibitz_game, seed)
        self._pending = {}
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = agent_name(self._next_seat())

    def _next_seat(self) -> int:
        """The seat to act next: the decider, or at a simultaneous node the first choosing seat
        that has not chosen yet."""
        return next(seat for seat in self.table.deciders() if seat not in self._pending)

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        return self.table.observation(self.possible_agents.index(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table, seat = self.table, self.possible_agents.index(agent)
        chosen = table.checked(seat, action)
        self._cumulative_rewards[agent] = 0.0
        if table.state.is_simultaneous():
            self._pending[seat] = chosen
            if len(self._pending) < len(table.deciders()):
                self.agent_selection = agent_name(self._next_seat())
                self._clear_rewards()
                return
            table.state.apply_joint(self._pending)
            self._pending = {}
        else:
            table.state.apply(chosen)
        table.play_chance()
        if table.state.is_terminal():
            self.rewards = {name: share for name, share in zip(self.possible_agents, table.state.returns())}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self._clear_rewards()
            self.agent_selection = agent_name(self._next_seat())
        self._accumulate_rewards()


class KibitzParallelEnv(_Spaces, ParallelEnv):
    """A kibitz game as a PettingZoo Parallel environment (see the module docstring)."""

    def __init__(self, game: str, render_mode: str | None = None, **options: Any) -> None:
        _Spaces.__init__(self, game, render_mode, options)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self._table = _Table(self.kibitz_game, seed)
        self.agents = self.possible_agents[:]
        return self._observations(), {agent: {} for agent in self.agents}

    def _observations(self) -> dict[str, dict[str, npt.NDArray[Any]]]:
        return {agent: self.table.observation(seat) for seat, agent in enumerate(self.possible_agents) if agent in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        table = self.table
        unknown = [agent for agent in actions if agent not in self.possible_agents]
        if unknown:
            raise IllegalMoveError(f"no agent {unknown[0]!r} in {self.metadata['name']}; the agents are {', '.join(self.possible_agents)}")
        deciders = table.deciders()
        missing = [agent_name(seat) for seat in deciders if agent_name(seat) not in actions]
        if missing:
            raise IllegalMoveError(f"no action of {', '.join(missing)}, who decide now")
        chosen = {seat: table.checked(seat, actions[agent_name(seat)]) for seat in deciders}
        if table.state.is_simultaneous():
            table.state.apply_joint(chosen)
        else:
            table.state.apply(chosen[deciders[0]])
        table.play_chance()
        over = table.state.is_terminal()
        shares = table.state.returns() if over else [0.0] * len(self.possible_agents)
        observations = self._observations()
        rewards = {agent: shares[seat] for seat, agent in enumerate(self.possible_agents) if agent in self.agents}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


def env(game: str, render_mode: str | None = None, **options: Any) -> KibitzAECEnv:
    """The AEC environment of kibitz game ``game`` with its options (``players=3`` ...)."""
    return KibitzAECEnv(game, render_mode, **options)


def parallel_env(game: str, render_mode: str | None = None, **options: Any) -> KibitzParallelEnv:
    """The Parallel environment of kibitz game ``game`` with its options."""
    return KibitzParallelEnv(game, render_mode, **options)
