"""kibitz games as OpenSpiel games (``pip install 'kibitz[openspiel]'``; docs/research.md).

Importing this module registers every kibitz game with pyspiel as ``kibitz_<name>``, a Python
game backed by kibitz's C++ states::

    import pyspiel
    import kibitz.interop.openspiel  # registers kibitz_just4fun_colours, kibitz_yak, ...

    game = pyspiel.load_game("kibitz_just4fun_colours", {"players": 3})
    state = game.new_initial_state()

What OpenSpiel sees:

- **The setup is one chance node.** kibitz deals from a seed; the first node of every game is a
  chance node over ``deals`` equally likely setups (parameter, default 1024), outcome ``k``
  being the kibitz game started from seed ``hash(seed, k)`` (parameter ``seed``, default 0).
  No seat observes which it was beyond what its view shows (its own hand, the layout).
- **Actions** are kibitz's action ids: ``num_distinct_actions`` is the game's ``max_actions``,
  chance outcomes are kibitz's outcome ids, and a simultaneous node (Yak's Sunrise, Goofspiel's
  bids) is an OpenSpiel simultaneous node, so games with such nodes have ``SIMULTANEOUS``
  dynamics (their other nodes are ordinary turns, as OpenSpiel allows).
- **Returns** are kibitz's win shares: a constant-sum game whose seat returns sum to
  ``utility_sum`` (1, or the team size in tile Canasta), in [0, 1].
- **Observation and information state**: the seat's view notation as the string and its
  observation tensor (docs/games/<game>.md) as the tensor. Both are what the seat knows now,
  which kibitz's views hold in full; the information state is not a list of past observations,
  so algorithms that need perfect recall of the order of events (CFR) see a coarser state.
- ``resample_from_infostate`` is kibitz's ``determinize``, so OpenSpiel's ISMCTS bot samples
  the hidden cards as kibitz's own search does.
- ``max_game_length`` is the bound of docs/games/<game>.md. A configuration without one (tile
  Canasta with a required winner, whose ties add rounds) is refused with a clear error; the
  registered default of ``kibitz_canasta_tiles`` is therefore ``winner_required:0``.

Game parameters: ``players`` (int), ``deals`` (int), ``seed`` (int) and ``options``, kibitz's
other game options as ``key:value`` pairs joined by ``;`` (``"line:5;start:0"``), or ``none``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pyspiel

import kibitz
from kibitz.errors import IllegalMoveError, OptionError

PREFIX = "kibitz_"
DEFAULT_DEALS = 1024
NO_OPTIONS = "none"  # not "-": OpenSpiel reads a game string value of only signs and digits as a number
# Options under which a game has a length bound (OpenSpiel needs one): see the module docstring.
BOUNDED_DEFAULTS = {"canasta_tiles": "winner_required:0"}

_PLAYER = {
    kibitz.CHANCE: int(pyspiel.PlayerId.CHANCE),
    kibitz.TERMINAL: int(pyspiel.PlayerId.TERMINAL),
    kibitz.SIMULTANEOUS: int(pyspiel.PlayerId.SIMULTANEOUS),
}


def parse_options(text: str) -> dict[str, str]:
    """``"key:value;key:value"`` (or ``none``) as a dict; raises OptionError naming the bad pair."""
    if text in (NO_OPTIONS, ""):
        return {}
    options = {}
    for pair in text.split(";"):
        key, colon, value = pair.partition(":")
        if not colon or not key or not value:
            raise OptionError(f"OpenSpiel parameter options: expected key:value pairs joined by ';', got {pair!r}")
        options[key] = value
    return options


def deal_seed(seed: int, deal: int) -> int:
    """The kibitz seed of setup ``deal`` under the parameter ``seed``."""
    return int.from_bytes(hashlib.blake2b(f"{seed}/{deal}".encode(), digest_size=8).digest(), "little")


def game_type(name: str) -> pyspiel.GameType:
    """The pyspiel GameType of kibitz game ``name`` (under its default options)."""
    info = next(g for g in kibitz.games() if g.name == name)
    game = kibitz.Game(name, **parse_options(BOUNDED_DEFAULTS.get(name, NO_OPTIONS)))
    meta = game.metadata
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"kibitz {name}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS
        if meta.dynamics == "simultaneous"
        else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,  # the setup is a chance node
        information=pyspiel.GameType.Information.PERFECT_INFORMATION
        if meta.information == "perfect"
        else pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": game.num_players,
            "deals": DEFAULT_DEALS,
            "seed": 0,
            "options": BOUNDED_DEFAULTS.get(name, NO_OPTIONS),
        },
    )


class KibitzGame(pyspiel.Game):
    """One kibitz game with its options, as a pyspiel game (see the module docstring). Each
    kibitz game has a subclass naming it (:func:`register`), which pyspiel calls with the
    parameters."""

    kibitz_name = ""

    def __init__(self, params: dict[str, Any]) -> None:
        name = self.kibitz_name
        self.kibitz_game = kibitz.Game(name, players=int(params["players"]), **parse_options(str(params["options"])))
        self.deals = int(params["deals"])
        self.seed = int(params["seed"])
        if self.deals < 1:
            raise OptionError(f"OpenSpiel parameter deals: expected at least 1, got {self.deals}")
        meta = self.kibitz_game.metadata
        if meta.max_game_length is None:
            raise OptionError(
                f"{self.kibitz_game!r} has no bound on its length, which OpenSpiel needs; for tile Canasta set winner_required:0"
            )
        super().__init__(
            game_type(name),
            pyspiel.GameInfo(
                num_distinct_actions=meta.max_actions,
                max_chance_outcomes=max(meta.max_chance_outcomes, self.deals),
                num_players=self.kibitz_game.num_players,
                min_utility=meta.min_utility,
                max_utility=meta.max_utility,
                utility_sum=meta.utility_sum,
                max_game_length=meta.max_game_length,
            ),
            params,
        )

    def new_initial_state(self) -> KibitzState:
        return KibitzState(self, None)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> KibitzObserver:
        if params:
            raise OptionError(f"kibitz observers take no parameters, got {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise OptionError("kibitz games observe for one seat: its private information and the public one")
        return KibitzObserver(self.kibitz_game.metadata.observation_size)


class KibitzState(pyspiel.State):
    """A pyspiel state holding a kibitz :class:`~kibitz.State` (``None`` at the setup node)."""

    def __init__(self, game: KibitzGame, state: kibitz.State | None) -> None:
        super().__init__(game)
        self.kibitz_state = state

    def _game(self) -> KibitzGame:
        return self.get_game()

    def current_player(self) -> int:
        if self.kibitz_state is None:
            return int(pyspiel.PlayerId.CHANCE)
        player = self.kibitz_state.current_player
        return _PLAYER.get(player, player)

    def _legal_actions(self, player: int) -> list[int]:
        assert self.kibitz_state is not None  # pyspiel asks chance nodes for chance_outcomes
        return sorted(self.kibitz_state.legal_actions_for(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.kibitz_state is None:
            deals = self._game().deals
            return [(deal, 1.0 / deals) for deal in range(deals)]
        return sorted(self.kibitz_state.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        if self.kibitz_state is None:
            game = self._game()
            if not 0 <= action < game.deals:
                raise IllegalMoveError(f"setup chance node: outcome {action} is not one of the {game.deals} deals 0..{game.deals - 1}")
            self.kibitz_state = game.kibitz_game.new_initial_state(deal_seed(game.seed, action))
        else:
            self.kibitz_state.apply(_action_id(action))

    def _apply_actions(self, actions: list[int]) -> None:
        """A simultaneous node's joint move: one action per player, by seat, as OpenSpiel passes
        it (a seat that does not choose here is not read)."""
        if self.kibitz_state is None or not self.kibitz_state.is_simultaneous():
            raise IllegalMoveError("apply_actions: not a simultaneous node; apply one action with apply_action")
        players = self._game().kibitz_game.num_players
        if len(actions) != players:
            seats = ", ".join(map(str, self.kibitz_state.choosing_seats()))
            raise IllegalMoveError(f"apply_actions: expected {players} actions, one per player by seat (seats {seats} choose here), got {len(actions)}")
        self.kibitz_state.apply_joint({seat: _action_id(actions[seat]) for seat in self.kibitz_state.choosing_seats()})

    def _action_to_string(self, player: int, action: int) -> str:
        if self.kibitz_state is None:
            return f"deal {action}"
        return self.kibitz_state.move_to_string(action)

    def is_terminal(self) -> bool:
        return self.kibitz_state is not None and self.kibitz_state.is_terminal()

    def returns(self) -> list[float]:
        if self.kibitz_state is None or not self.kibitz_state.is_terminal():
            return [0.0] * self._game().kibitz_game.num_players
        return self.kibitz_state.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> KibitzState:
        """A state ``player_id`` cannot tell from this one, its hidden parts drawn by kibitz's
        ``determinize`` from a seed the sampler gives (OpenSpiel's ISMCTS calls this)."""
        if self.kibitz_state is None:
            return KibitzState(self._game(), None)
        seed = int(probability_sampler() * 2**53)
        return KibitzState(self._game(), self.kibitz_state.determinize(player_id, seed))

    def __str__(self) -> str:
        return "setup" if self.kibitz_state is None else self.kibitz_state.notation()


def _action_id(action: int) -> int:
    """``action`` if it can be a kibitz action id; IllegalMoveError otherwise (kibitz's own check
    names the legal ones for any id in range)."""
    if not 0 <= action < kibitz.game.ACTION_ID_LIMIT:
        raise IllegalMoveError(f"action {action} is not legal here: kibitz action ids are 0..{kibitz.game.ACTION_ID_LIMIT - 1}")
    return action


class KibitzObserver:
    """A pyspiel Python observer: the seat's observation tensor, written by the game in C++
    straight into this observer's buffer, and the seat's view notation as the string."""

    def __init__(self, size: int) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: KibitzState, player: int) -> None:
        if state.kibitz_state is None:
            self.tensor.fill(0)
        else:
            state.kibitz_state.observation_tensor_into(player, self.tensor)

    def string_from(self, state: KibitzState, player: int) -> str:
        return "setup" if state.kibitz_state is None else state.kibitz_state.view(player).notation()


GAME_CLASSES: dict[str, type[KibitzGame]] = {}
"""The pyspiel name -> the KibitzGame subclass registered for it."""


def register() -> list[str]:
    """Registers every kibitz game with pyspiel (once; later calls change nothing) and returns
    the registered names. The creator pyspiel keeps is a class, not a closure: pyspiel drops its
    creators after the interpreter has shut down, which a class survives and a closure does not
    (the process aborts at exit)."""
    registered = set(pyspiel.registered_names())
    for info in kibitz.games():
        short = PREFIX + info.name
        if short not in registered:
            GAME_CLASSES[short] = type(f"KibitzGame_{info.name}", (KibitzGame,), {"kibitz_name": info.name})
            pyspiel.register_game(game_type(info.name), GAME_CLASSES[short])
    return [PREFIX + info.name for info in kibitz.games()]


GAMES = register()
"""The pyspiel names of the kibitz games, registered on import."""
