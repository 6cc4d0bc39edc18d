"""Expert heuristic players: strong, human-like sparring partners for the search bots.

One module per game, each derived from the game's rules alone (not from the engine's own
heuristics or search) and playing through the public API only: a bot reads its
:class:`~kibitz.game.View` (legal moves, the view notation) and nothing hidden.

- :mod:`kibitz.experts.just4fun_colours`: lines, blocks from what the opponents can hold,
  colours kept for its own lines, area late in the game;
- :mod:`kibitz.experts.yucata`: a shallow paranoid alpha-beta search;
- :mod:`kibitz.experts.canasta_tiles`: opening, canastas, pile taking and freezing, safe
  discards, going out when it pays;
- :mod:`kibitz.experts.yak`: the tower valued as scored plus the stones still to come, the
  race for the stupa, and each Sunrise card planned over this round and the next.

>>> import kibitz
>>> bot = kibitz.make_bot("expert:depth=4", seed=3)
>>> state = kibitz.Game("yucata", start=0).new_initial_state(seed=1)
>>> state.parse_move(bot.act(state.view(0))) in state.legal_actions()
True
"""

from __future__ import annotations

import random
from dataclasses import fields, replace
from typing import Protocol

from kibitz.errors import OptionError
from kibitz.experts import canasta_tiles, just4fun_colours, yak, yucata
from kibitz.game import Move, View

GAME_MODULES = {"just4fun_colours": just4fun_colours, "yucata": yucata, "canasta_tiles": canasta_tiles, "yak": yak}
"""Game name -> the module whose ``Player`` plays it."""


class GamePlayer(Protocol):
    """What each game module's ``Player`` implements."""

    def act(self, view: View) -> Move: ...


def weight_names() -> dict[str, list[str]]:
    """Every weight an expert spec may set, with the games that use it."""
    names: dict[str, list[str]] = {}
    for game, module in GAME_MODULES.items():
        for f in fields(module.Weights):
            names.setdefault(f.name, []).append(game)
    return names


class ExpertBot:
    """The expert heuristic player of whichever game it is asked to play.

    ``seed`` drives every random choice (tie breaks). ``weights`` override the defaults of the
    game modules' ``Weights`` by name (``expert:block=2000``); a name applies to every game
    whose weights have it, and a name no game has raises :class:`OptionError`.
    """

    name = "expert"
    sees_everything = False

    def __init__(self, seed: int = 0, **weights: float) -> None:
        known = weight_names()
        unknown = sorted(set(weights) - set(known))
        if unknown:
            raise OptionError(f"bot 'expert': unknown option(s) {', '.join(unknown)}; known: seed, {', '.join(sorted(known))}")
        self._rng = random.Random(seed)
        self._weights = weights
        self._players: dict[str, GamePlayer] = {}

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int = 0) -> ExpertBot:
        """The bot of a spec's options: ``seed`` and weights, all given as text."""
        values: dict[str, float] = {}
        for key, raw in options.items():
            if key == "seed":
                continue
            try:
                values[key] = float(raw)
            except ValueError:
                raise OptionError(f"bot 'expert': option {key}={raw!r} is not a number") from None
        try:
            bot_seed = int(options.get("seed", seed))
        except ValueError:
            raise OptionError(f"bot 'expert': seed={options['seed']!r} is not an integer") from None
        return cls(bot_seed, **values)

    def player(self, game_name: str) -> GamePlayer:
        """This bot's player of ``game_name``, made on first use with the bot's weights."""
        if game_name not in self._players:
            module = GAME_MODULES.get(game_name)
            if module is None:
                raise OptionError(f"bot 'expert' has no player for game {game_name!r}; it plays {', '.join(GAME_MODULES)}")
            mine = {f.name: self._weights[f.name] for f in fields(module.Weights) if f.name in self._weights}
            weights = replace(module.Weights(), **mine)
            self._players[game_name] = module.Player(weights, random.Random(self._rng.getrandbits(63)))
        return self._players[game_name]

    def act(self, view: View) -> Move:
        return self.player(view.game_name).act(view)

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v:g}" for k, v in sorted(self._weights.items()))
        return f"ExpertBot(seed=...{extra})"


__all__ = ["GAME_MODULES", "ExpertBot", "weight_names"]
