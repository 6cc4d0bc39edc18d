"""kibitz: a game-AI engine for hidden-information tabletop games.

>>> import kibitz
>>> game = kibitz.Game("just4fun_colours", players=2)
>>> state = game.new_initial_state(seed=1)
>>> bot = kibitz.make_bot("ismcts:iterations=500", seed=1)
>>> move = bot.act(state.view(state.current_player))
>>> move in state.legal_actions()
True
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kibitz")  # declared once, in pyproject.toml
except PackageNotFoundError:  # a source tree on sys.path, not installed
    __version__ = "0+unknown"

from kibitz.bots import Bot, GreedyBot, RandomBot, SearchBot, make_bot, parse_spec
from kibitz.errors import IllegalMoveError, NotationError, OptionError, PluginError, UnknownGameError
from kibitz.game import (
    CHANCE,
    JOINT_SEPARATOR,
    SIMULTANEOUS,
    TERMINAL,
    ActionStat,
    Game,
    GameMetadata,
    JointMove,
    SearchProgress,
    SearchResult,
    State,
    StopFlag,
    View,
    games,
    notation_fields,
)
from kibitz import levels  # difficulty levels: kibitz.levels.levels(game, players)
from kibitz.levels import Level, LevelRating
from kibitz.match import MatchResult, Participant, play_game, replay, run_match
from kibitz.params import SearchParams
from kibitz.records import GameRecord
from kibitz.stats import SPRT

__all__ = [
    "CHANCE",
    "JOINT_SEPARATOR",
    "SIMULTANEOUS",
    "TERMINAL",
    "ActionStat",
    "Bot",
    "Game",
    "GameMetadata",
    "GameRecord",
    "GreedyBot",
    "IllegalMoveError",
    "JointMove",
    "Level",
    "LevelRating",
    "MatchResult",
    "NotationError",
    "OptionError",
    "Participant",
    "PluginError",
    "RandomBot",
    "SPRT",
    "SearchBot",
    "SearchParams",
    "SearchProgress",
    "SearchResult",
    "State",
    "StopFlag",
    "UnknownGameError",
    "View",
    "games",
    "levels",
    "make_bot",
    "notation_fields",
    "parse_spec",
    "play_game",
    "replay",
    "run_match",
]
