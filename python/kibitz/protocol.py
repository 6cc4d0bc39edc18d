"""The kibitz text protocol, engine side: ``kibitz engine`` (or ``kibitz-engine``).

A UCI-like line protocol on stdin/stdout for several players and hidden hands; the grammar
and transcripts are in docs/protocol.md. Every malformed, unknown or out-of-order line gets
exactly one ``info string error: ...`` line and changes nothing. ``go`` searches in a
background thread, so ``stop``, ``isready`` and ``quit`` are answered while it runs.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from kibitz import __version__, levels, plugins
from kibitz.errors import IllegalMoveError, NotationError, OptionError, UnknownGameError, shown
from kibitz.bots import SearchBot
from kibitz.game import JOINT_SEPARATOR, Game, SearchProgress, SearchResult, State, StopFlag, View, games, notation_fields
from kibitz.params import PARAMETERS, Parameter, SearchParams, find_parameter, parse_number

ENGINE_NAME = f"kibitz {__version__}"
AUTHOR = "the kibitz developers"
TOP_MOVES = 5  # per-move info lines after a search
INFO_PERIOD_S = 1.0  # seconds between progress lines while searching


class ProtocolError(ValueError):
    """A line the engine cannot act on; the message says what was wrong."""


@dataclass(frozen=True)
class EngineOption:
    name: str
    kind: str  # spin, string, combo or check
    default: str
    extra: str = ""  # "min … max …" or "var …"
    parameter: Parameter | None = None  # the search parameter it sets; None for an engine setting
    setter: str = "_set_parameter"  # the Engine method that applies a value: (option, value text)

    @classmethod
    def of(cls, p: Parameter) -> EngineOption:
        """The option that sets search parameter ``p``: a spin for an integer (with its
        range), a combo for a choice, a string for a real number (UCI has no real type)."""
        if p.kind is int:
            return cls(p.option, "spin", str(p.default), f"min {p.low} max {p.high}", p)
        if p.kind is str:
            return cls(p.option, "combo", str(p.default), " ".join(f"var {c}" for c in p.choices), p)
        return cls(p.option, "string", str(p.default), "", p)

    def line(self) -> str:
        """The option as the handshake announces it."""
        return f"option name {self.name} type {self.kind} default {self.default}" + (f" {self.extra}" if self.extra else "")


# Every option: the search parameters that have one, then the engine's own settings, each applied
# by its Engine method (an option is one row here and, for an engine setting, one _set_ method).
# Plugin: a compiled rollout policy / leaf evaluator by module name, allowed ones only
# (kibitz.plugins.load_allowed; --allow-plugin MODULE allows more), or a network file; <empty> for none.
# Level: play that difficulty level of the game (kibitz.levels; 0: off); LimitStrength with Elo: the
# level whose rating is nearest to Elo (UCI's UCI_LimitStrength and UCI_Elo), before Level.
ELO_RANGE = levels.rating_range()
LEVEL_KEEPS = ("seed", "threads", "memory_mb")  # the search options a level leaves as set
OPTIONS = [
    *(EngineOption.of(p) for p in PARAMETERS if p.option),
    EngineOption("SeeAll", "check", "false", setter="_set_see_all"),
    EngineOption("Plugin", "string", "<empty>", setter="_set_plugin"),
    EngineOption("Level", "spin", "0", f"min 0 max {levels.most_levels()}", setter="_set_level"),
    EngineOption("LimitStrength", "check", "false", setter="_set_limit_strength"),
    EngineOption("Elo", "spin", str(ELO_RANGE[0]), f"min {ELO_RANGE[0]} max {ELO_RANGE[1]}", setter="_set_level"),
]
UGI_OPTIONS = [
    EngineOption("UGIGame", "combo", "", setter="_set_ugi_option"),
    EngineOption("UGIGameOptions", "string", "<empty>", setter="_set_ugi_option"),
]
OPTION_BY_NAME = {o.name.lower(): o for o in [*OPTIONS, *UGI_OPTIONS]}


class Engine:
    """One engine session. ``handle(line)`` acts on a line; output goes to ``write``."""

    def __init__(self, write: Callable[[str], None], info_period_s: float = INFO_PERIOD_S) -> None:
        self._write_line = write
        self.info_period_s = info_period_s  # seconds between progress lines while searching
        self._lock = threading.Lock()
        self.params = SearchParams()
        self.see_all = False  # the SeeAll option; UGI mode sees all whatever it says (see sees_all)
        self.plugin: plugins.Plugin | None = None  # the Plugin option
        self.level = 0  # the Level option: 0 plays the search options as set
        self.limit_strength = False  # the LimitStrength option: play the level nearest to elo
        self.elo = ELO_RANGE[0]  # the Elo option
        self.game: Game | None = None
        self.seat = 0
        self.position: State | None = None  # what the engine searches (built from a view unless SeeAll)
        self.position_is_true = False  # the position is a full state given to the engine, not a guess from a view
        self._bot: SearchBot | None = None  # the bot of this game and these options (bot)
        self._search: threading.Thread | None = None
        self._answered = threading.Event()  # set just before bestmove: the search is over
        self.ugi = False  # UGI mode (section 11 of docs/protocol.md): perfect information, the engine plays both sides
        self.ugi_game = ""
        self.ugi_options: dict[str, str] = {}
        self._stop = StopFlag()
        self._stop_sent = threading.Event()  # stop or quit since the last go
        self.running = True

    # -- output -------------------------------------------------------------------------
    def write(self, line: str) -> None:
        with self._lock:
            self._write_line(line)

    def error(self, message: str) -> None:
        # An error quotes the offending input; a quote of thousands of characters is cut.
        self.write("info string error: " + LONG_QUOTE.sub(r"\1…'", message))

    # -- input --------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        command, args = words[0], words[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            self.error(f"unknown command '{command}'; commands: {' '.join(sorted(COMMANDS))}")
            return
        try:
            handler(args)
        except (ProtocolError, NotationError, IllegalMoveError, OptionError, UnknownGameError) as err:
            self.error(str(err))
        except Exception as err:  # a bug must not end the session: report it and go on
            self.error(f"internal error in '{command}': {type(err).__name__}: {err}")

    def _require_idle(self, command: str) -> None:
        if self.searching():
            raise ProtocolError(f"'{command}' while searching; send stop first")

    def _require_position(self) -> State:
        if self.game is None:
            raise ProtocolError("no game: send newgame <game> [option=value ...] players <n> seat <s> first")
        if self.position is None:
            raise ProtocolError("no position: send position view <notation> or position state <notation> first")
        return self.position

    def wait(self) -> None:
        """Blocks until the running search, if any, has answered (for callers in Python)."""
        if self._search is not None:
            self._search.join()

    @property
    def sees_all(self) -> bool:
        """Whether the engine keeps and searches full states: SeeAll, or UGI mode."""
        return self.see_all or self.ugi

    @property
    def bot(self) -> SearchBot:
        """The search bot that answers every ``go`` of the game: a :class:`SearchBot` with the
        options' parameters and plug-in, made at the first ``go`` after ``newgame`` or an option
        change. So the engine searches exactly as that bot does: its seed rule (each decision's
        seed drawn from the Seed option's), its opponent model (``observe`` lines feed it) and
        its algorithm, with the ``go`` line's budget."""
        if self._bot is None:
            self._bot = SearchBot(self._search_options(), name="engine", plugin=self.plugin)
        return self._bot

    def searching(self) -> bool:
        # Not is_alive(): a controller may send its next line as soon as it reads bestmove,
        # before the search thread has returned.
        return self._search is not None and not self._answered.is_set()

    # -- commands -----------------------------------------------------------------------
    def _handshake(self, options: list[EngineOption], done: str) -> None:
        self.write(f"id name {ENGINE_NAME}")
        self.write(f"id author {AUTHOR}")
        for o in options:
            self.write(o.line())
        self.write(done)

    def _cmd_kgi(self, args: list[str]) -> None:
        if self.ugi:  # a new handshake leaves UGI mode: its game and full-information position go
            self._require_idle("kgi")
            self.ugi, self.game, self.position = False, None, None
        self._handshake(OPTIONS, "kgiok")

    def _cmd_ugi(self, args: list[str]) -> None:
        self._require_idle("ugi")
        names = ugi_games()
        if not names:
            raise ProtocolError("ugi: no two-player perfect-information game is registered")
        self.ugi = True
        self.ugi_game = self.ugi_game or names[0]
        self._ugi_newgame()
        ugi_options = [
            *(o for o in OPTIONS if o.name != "SeeAll"),  # UGI games have nothing hidden
            EngineOption("UGIGame", "combo", names[0], " ".join(f"var {n}" for n in names)),
            EngineOption("UGIGameOptions", "string", "<empty>"),
        ]
        self._handshake(ugi_options, "ugiok")

    def _cmd_uginewgame(self, args: list[str]) -> None:
        self._require_idle("uginewgame")
        self._require_ugi("uginewgame")
        self._ugi_newgame()

    def _require_ugi(self, command: str) -> None:
        if not self.ugi:
            raise ProtocolError(f"'{command}' is a UGI command: send ugi first")

    def _ugi_newgame(self) -> None:
        # startpos is the same every game: seat 0 (UGI's p1) starts unless the options say otherwise
        self.game = Game(self.ugi_game, players=2, **{"start": "0", **self.ugi_options})
        self.seat, self.position, self._bot = 0, None, None

    def _cmd_isready(self, args: list[str]) -> None:
        self.write("readyok")

    def _cmd_quit(self, args: list[str]) -> None:
        self._halt()
        self.running = False

    def _cmd_setoption(self, args: list[str]) -> None:
        self._require_idle("setoption")
        if len(args) < 4 or args[0] != "name" or "value" not in args[2:]:
            raise ProtocolError("expected: setoption name <Name> value <value>")
        split = args.index("value", 2)
        name, value = " ".join(args[1:split]), " ".join(args[split + 1 :])
        option = OPTION_BY_NAME.get(name.lower())
        if option is None:
            raise ProtocolError(f"unknown option '{name}'; options: {', '.join(o.name for o in OPTIONS)}")
        getattr(self, option.setter)(option, value)
        self._bot = None  # the next go searches with the new settings

    def _set_parameter(self, option: EngineOption, value: str) -> None:
        assert option.parameter is not None
        parameter = option.parameter
        parsed = parameter.parse(value, f"option {option.name}")
        try:
            self.params = self.params.with_(**{parameter.name: parsed})
        except OptionError as err:  # a combination the search refuses, e.g. no budget at all
            raise ProtocolError(f"option {option.name}: {err}") from None

    def _set_see_all(self, option: EngineOption, value: str) -> None:
        if self.ugi:
            raise ProtocolError("option SeeAll: UGI games have nothing hidden; it stays true in UGI mode")
        if value not in ("true", "false"):
            raise ProtocolError(f"option SeeAll: expected true or false, got '{value}'")
        self.see_all = value == "true"

    def _set_plugin(self, option: EngineOption, value: str) -> None:
        try:
            self.plugin = None if value in ("", "<empty>") else plugins.load_allowed(value)
        except OptionError as err:
            raise ProtocolError(f"option Plugin: {err}") from None

    def _set_level(self, option: EngineOption, value: str) -> None:
        low, high = (0, levels.most_levels()) if option.name == "Level" else ELO_RANGE
        allowed = f"an integer in {low}..{high}"
        number = int(parse_number(value, int, f"option {option.name}", allowed))
        if not low <= number <= high:
            raise ProtocolError(f"option {option.name}: {shown(value)} is out of range; expected {allowed}")
        if option.name == "Level":
            self.level = number
        else:
            self.elo = number

    def _set_limit_strength(self, option: EngineOption, value: str) -> None:
        if value not in ("true", "false"):
            raise ProtocolError(f"option LimitStrength: expected true or false, got '{value}'")
        self.limit_strength = value == "true"

    def _level(self) -> levels.Level | None:
        """The level the options ask for in this game (LimitStrength with Elo first, else
        Level), or None; raises OptionError when the game has no such level."""
        assert self.game is not None
        players = self.game.num_players
        if self.limit_strength:
            return levels.nearest(self.game.name, players, self.elo)
        return levels.level(self.game.name, players, self.level) if self.level else None

    def _search_options(self) -> SearchParams:
        """What the engine searches with: the search options, or under a level the level's
        settings with the options that change no decision (Seed, Threads, Hash); raises
        OptionError when the game has no such level."""
        level = self._level() if self.game is not None else None
        if level is None:
            return self.params
        return level.search_params.with_(**{name: getattr(self.params, name) for name in LEVEL_KEEPS})

    def _set_ugi_option(self, option: EngineOption, value: str) -> None:
        self._require_ugi(f"setoption name {option.name}")
        game, options = self.ugi_game, {}
        if option.name == "UGIGame":
            if value not in ugi_games():
                raise ProtocolError(f"option UGIGame: '{value}' is not one of {', '.join(ugi_games())}")
            game = value
        else:
            for word in ("" if value == "<empty>" else value).split():
                key, eq, item = word.partition("=")
                if not eq or not key or key == "players":
                    raise ProtocolError(f"option UGIGameOptions: expected key=value words other than players, got '{word}'")
                options[key] = item
        Game(game, players=2, **{"start": "0", **options})  # refuses a bad option before anything changes
        self.ugi_game, self.ugi_options = game, options
        self._ugi_newgame()

    def _cmd_newgame(self, args: list[str]) -> None:
        self._require_idle("newgame")
        if len(args) < 5 or "players" not in args or "seat" not in args:
            raise ProtocolError("expected: newgame <game> [option=value ...] players <n> seat <s>")
        name, rest = args[0], args[1:]
        options: dict[str, str] = {}
        players = seat = None
        i = 0
        while i < len(rest):
            word = rest[i]
            if word in ("players", "seat") and i + 1 < len(rest):
                if not SMALL_NUMBER.fullmatch(rest[i + 1]):
                    raise ProtocolError(f"newgame: {word} must be a number 0..999, got {shown(rest[i + 1])}")
                if word == "players":
                    players = int(rest[i + 1])
                else:
                    seat = int(rest[i + 1])
                i += 2
            elif "=" in word:
                key, _, value = word.partition("=")
                options[key] = value
                i += 1
            else:
                raise ProtocolError(f"newgame: unexpected '{word}'; expected option=value, players <n> or seat <s>")
        if players is None or seat is None:
            raise ProtocolError("newgame: players <n> and seat <s> are required")
        game = Game(name, players=players, **options)
        if not 0 <= seat < game.num_players:
            raise ProtocolError(f"newgame: seat {seat} does not exist; seats are 0..{game.num_players - 1}")
        self.game, self.seat, self.position, self.ugi, self._bot = game, seat, None, False, None

    def _cmd_position(self, args: list[str]) -> None:
        self._require_idle("position")
        if self.game is None:
            raise ProtocolError("no game: send newgame first")
        if args and args[0] in ("startpos", "fen"):
            self._ugi_position(args)
            return
        if len(args) < 2 or args[0] not in ("view", "state"):
            raise ProtocolError("expected: position view <seat view notation> | position state <full notation>")
        text = " ".join(args[1:])
        if args[0] == "view":
            state = self.game.state_from_view(text)
            seat = int(notation_fields(text)["seat"])
            if seat != self.seat:
                raise ProtocolError(f"position view: the view is seat {seat}'s, this engine plays seat {self.seat}")
        else:
            full = self.game.state_from_notation(text)
            # Unless SeeAll is on, the engine keeps only what its seat may know.
            state = full if self.sees_all else full.view(self.seat).state()
        self.position, self.position_is_true = state, args[0] == "state" and self.sees_all
        self._forget_opponents()

    def _ugi_position(self, args: list[str]) -> None:
        """``position startpos|fen <notation> [moves <m> ...]``; the engine plays the side to move."""
        self._require_ugi(f"position {args[0]}")
        assert self.game is not None
        split = args.index("moves") if "moves" in args else len(args)
        if args[0] == "startpos":
            if split != 1:
                raise ProtocolError(f"position startpos: unexpected '{args[1]}'; expected moves <m> ...")
            state = self.game.new_initial_state(0)
        elif split == 1:
            raise ProtocolError("position fen: the notation is missing")
        else:
            state = self.game.state_from_notation(" ".join(args[1:split]))
        for number, move in enumerate(args[split + 1 :], start=1):
            try:
                state.apply(move)
            except (IllegalMoveError, NotationError) as err:
                raise ProtocolError(f"position: move {number} '{move}': {err}") from None
        self.position, self.seat, self.position_is_true = state, max(state.current_player, 0), True
        self._forget_opponents()

    def _cmd_observe(self, args: list[str]) -> None:
        self._require_idle("observe")
        state = self._require_position()
        if not args:
            raise ProtocolError("expected: observe <the next action as this seat saw it: a move, a chance outcome or ?>")
        seen = " ".join(args)
        if self.sees_all and state.is_simultaneous():  # every choice, in choosing order, joined as the view's are
            parts = [part.strip() for part in seen.split(JOINT_SEPARATOR.strip())]
            seats = state.choosing_seats()
            if len(parts) != len(seats):
                raise ProtocolError(f"observe: a joint move here has {len(seats)} choices (seats {' '.join(map(str, seats))}) joined by '{JOINT_SEPARATOR.strip()}', got {shown(seen)}")
            after = state.clone()
            after.apply_joint(dict(zip(seats, parts)))
        elif self.sees_all:  # the engine holds the true state: the action itself is needed
            after = state.clone()
            after.apply(seen)
        else:
            after = state.after_observation(self.seat, seen)
        self._learn(state, seen)
        self.position = after

    def _learn(self, before: State, seen: str) -> None:
        """Another seat's decision, as this seat saw it, for the bot's opponent model (UGI mode:
        the engine plays every side, so there is no other seat to model)."""
        if self.ugi:
            return
        try:
            bot = self.bot
        except OptionError:  # a level this game does not have: go will say so; the move is not lost
            return
        bot.observe_move(before if self.sees_all else before.view(self.seat), before.current_player, seen, self.seat)

    def _forget_opponents(self) -> None:
        """A position given whole comes without the moves that led to it."""
        if self._bot is not None:
            self._bot.forget_opponents()

    def _cmd_go(self, args: list[str]) -> None:
        self._require_idle("go")
        state = self._require_position()
        if not decides(state, self.seat):
            raise ProtocolError(f"go: it is not seat {self.seat}'s decision (to move: {describe_turn(state)})")
        params, until_stopped = self._go_params(args)
        # the engine's seat sees its view; a full state given with SeeAll (or in UGI mode) is searched whole
        position = state if self.position_is_true else state.view(self.seat)
        try:
            self.bot.check(position)
        except OptionError as err:
            raise ProtocolError(f"go: {err}: setoption name SeeAll value true, then position state") from None
        self.wait()  # a search answered already; let its thread end
        self._stop.clear()
        self._stop_sent.clear()
        self._answered.clear()
        self._search = threading.Thread(target=self._run_search, args=(state, position, params, until_stopped), daemon=True)
        self._search.start()

    def _go_params(self, args: list[str]) -> tuple[SearchParams, bool]:
        if self.ugi and "depth" in args:
            raise ProtocolError("go depth: a Monte Carlo search has no depth; use nodes <n>, movetime <ms> or the clock")
        assert self.game is not None
        level = self._level()
        params = self.bot.params
        numbers: dict[str, int] = {}
        until_stopped = False
        i = 0
        while i < len(args):
            given = args[i]
            word = UGI_GO_WORDS.get(given, given) if self.ugi else given
            if word == "infinite":
                until_stopped = True
                i += 1
                continue
            clock = CLOCK_FIELD.fullmatch(word)
            if not (word in GO_NUMBERS or clock) or i + 1 >= len(args):
                raise ProtocolError(
                    f"go: unexpected '{given}'; expected iterations <n>, movetime <ms>, infinite, s<seat>time <ms>, s<seat>inc <ms> or movestogo <n>"
                )
            if clock and not (len(clock.group(1)) <= 2 and int(clock.group(1)) < self.game.num_players):
                raise ProtocolError(f"go: {given}: seat {clock.group(1)} does not exist; seats are 0..{self.game.num_players - 1}")
            numbers[word] = go_number(given, clock.group(2) if clock else word, args[i + 1])
            i += 2
        movetime = numbers.get("movetime")
        if movetime is None and f"s{self.seat}time" in numbers:
            movetime = clock_budget(numbers[f"s{self.seat}time"], numbers.get(f"s{self.seat}inc", 0), numbers.get("movestogo"))
        if "iterations" in numbers or movetime is not None:  # the line's budget replaces the options'
            iterations = numbers.get("iterations", 0)
            if level is not None and params.iterations:  # a level's budget is part of its strength: the line may only shorten it
                iterations = min(iterations or params.iterations, params.iterations)
            try:
                params = params.with_(iterations=iterations, time_ms=float(movetime or 0))
            except OptionError as err:  # e.g. iterations 0 and no time
                raise ProtocolError(f"go: {err}") from None
        if level is not None:
            rating = f"rating {level.rating}" if level.rating else "not yet calibrated"
            self.write(f"info string level {level.name}: {level.summary}; {rating}")
        return params, until_stopped

    def _run_search(self, state: State, position: View | State, params: SearchParams, until_stopped: bool) -> None:
        """The search thread. It ends in exactly one ``bestmove``, or in one error line when
        anything fails; either way the engine is idle again (``go`` works) afterwards."""
        try:
            result = self._search_reporting_progress(state, position, params, until_stopped)
            value = result.root_value if result.stats else None  # a forced move (or no iteration) has no value
            report = self._info_lines(state, result.iterations, result.seconds, result.stats, value, result.nodes)
            answer = f"bestmove {state.move_to_string(result.action)}"
            if until_stopped:  # a forced or proven move ends the search early; infinite still answers only after stop
                self._stop_sent.wait()
        except Exception as err:  # the protocol stays up; the controller sees why there is no move
            report, answer = [], f"info string error: search failed: {type(err).__name__}: {err}"
        try:
            self._write_block(report)
        finally:
            self._answered.set()  # before the answer: a controller may reply to it at once
        self.write(answer)

    def _search_reporting_progress(self, state: State, position: View | State, params: SearchParams, until_stopped: bool) -> SearchResult:
        progress = SearchProgress()
        finished = threading.Event()
        started = time.monotonic()

        def report_progress() -> None:
            while not finished.wait(self.info_period_s):
                seconds = time.monotonic() - started
                self._write_block(self._info_lines(state, progress.iterations, seconds, progress.root_stats(), progress.root_value()))

        reporter = threading.Thread(target=report_progress, daemon=True)
        reporter.start()
        try:
            seat = self.seat if isinstance(position, State) else None  # a view is its own seat's; at a joint node, this seat's choice
            return self.bot.search(position, seat, params=params, stop=self._stop, progress=progress, until_stopped=until_stopped)
        finally:
            finished.set()
            reporter.join()

    def _info_lines(
        self, state: State, iterations: int, seconds: float, stats: list, value: float | None, nodes: int | None = None
    ) -> list[str]:
        """One ``info`` line with the totals (no ``value`` when nothing was searched: a forced
        move), then one per most visited move (like multipv)."""
        # ips: iterations per second; nodes: tree nodes (docs/protocol.md §5)
        line = f"info iterations {iterations} time {round(seconds * 1000)} ips {round(iterations / max(seconds, 1e-9))}"
        if nodes is not None:
            line += f" nodes {nodes}"
        lines = [line if value is None else f"{line} value {value:.4f}"]
        mixed = state.is_simultaneous()  # a choice at a joint node: the policy it is drawn from (§5)
        for rank, stat in enumerate(stats[:TOP_MOVES], start=1):
            lines.append(
                f"info multipv {rank} move {state.move_to_string(stat.action)} visits {stat.visits} value {stat.mean_reward:.4f}"
                + (f" probability {stat.probability:.4f}" if mixed else "")
            )
        return lines

    def _write_block(self, lines: list[str]) -> None:
        with self._lock:  # a block: progress and the final report never interleave
            for text in lines:
                self._write_line(text)

    def _cmd_stop(self, args: list[str]) -> None:
        # Without a search this does nothing, as in UCI: a stop sent as the search ends is no error.
        self._halt()

    def _halt(self) -> None:
        self._stop.set()
        self._stop_sent.set()
        self.wait()

    def _cmd_d(self, args: list[str]) -> None:
        state = self._require_position()
        rendering = state.render(None if self.sees_all else self.seat)
        for line in rendering.splitlines():
            self.write(f"info string {line}")

    def _cmd_legal(self, args: list[str]) -> None:
        state = self._require_position()
        if state.is_terminal():
            raise ProtocolError("legal: the game is over")
        if state.is_simultaneous():
            if self.seat not in state.choosing_seats():
                raise ProtocolError(f"legal: not this seat's decision (to move: {describe_turn(state)})")
            self.write("legal " + " ".join(state.legal_moves_for(self.seat)))
            return
        if state.is_chance() or state.current_player != self.seat and not self.sees_all:
            raise ProtocolError(f"legal: not this seat's decision (to move: {describe_turn(state)})")
        self.write("legal " + " ".join(state.legal_moves()))

    def _cmd_perft(self, args: list[str]) -> None:
        self._require_idle("perft")
        state = self._require_position()
        if len(args) != 1 or not SMALL_NUMBER.fullmatch(args[0]) or not 0 <= int(args[0]) <= MAX_PERFT_DEPTH:
            raise ProtocolError(f"expected: perft <depth 0..{MAX_PERFT_DEPTH}>")
        if not self.sees_all:
            raise ProtocolError("perft counts chance outcomes from hidden cards: setoption name SeeAll value true first")
        self.write(f"perft {state.perft(int(args[0]))}")

    def _cmd_query(self, args: list[str]) -> None:
        state = self._require_position()
        if self.ugi and args in (["p1turn"], ["result"]):
            self.write(f"response {ugi_answer(state, args[0])}")
            return
        if len(args) != 1 or args[0] not in ("gameover", "turn", "result", "score", "view"):
            raise ProtocolError("expected: query gameover|turn|result|score|view" + ("|p1turn" if self.ugi else ""))
        what = args[0]
        if what == "view":
            self.write(f"response {state.view(self.seat).notation()}")
        elif what == "gameover":
            self.write(f"response {'true' if state.is_terminal() else 'false'}")
        elif what == "turn":
            self.write(f"response {describe_turn(state)}")
        elif not state.is_terminal():
            raise ProtocolError(f"query {what}: the game is not over")
        elif what == "result":
            self.write("response " + " ".join(f"{r:g}" for r in state.returns()))
        else:
            self.write("response " + " ".join(f"{s:g}" for s in state.scores()))


COMMANDS = sorted(name[5:] for name in dir(Engine) if name.startswith("_cmd_"))
GO_NUMBERS = ("iterations", "movetime", "movestogo")
UGI_GO_WORDS = {"p1time": "s0time", "p2time": "s1time", "p1inc": "s0inc", "p2inc": "s1inc", "nodes": "iterations"}
CLOCK_FIELD = re.compile(r"s([0-9]+)(time|inc)")
LONG_QUOTE = re.compile(r"('[^']{40})[^']{20,}'")
SMALL_NUMBER = re.compile(r"[0-9]{1,3}")  # a seat, a player count, a perft depth
MAX_PERFT_DEPTH = 8
MAX_MS = int(find_parameter("time_ms").high or 0)
GO_RANGES = {  # the allowed values of each number of a go line
    "iterations": (0, int(find_parameter("iterations").high or 0)),
    "movetime": (0, MAX_MS),
    "time": (0, MAX_MS),
    "inc": (0, MAX_MS),
    "movestogo": (0, 1_000_000),
}


def go_number(word: str, kind: str, text: str) -> int:
    """The number after ``word`` on a go line, in the range of its ``kind`` (GO_RANGES)."""
    low, high = GO_RANGES[kind]
    allowed = f"an integer in {low}..{high}"
    number = int(parse_number(text, int, f"go {word}", allowed))
    if not low <= number <= high:
        raise ProtocolError(f"go {word}: {shown(text)} is out of range; expected {allowed}")
    return number
CLOCK_DECISIONS_LEFT = 20  # decisions assumed left on the clock when go gives no movestogo
CLOCK_MARGIN_MS = 30  # kept back for the reply to reach the referee


def clock_budget(remaining_ms: int, increment_ms: int, moves_to_go: int | None) -> int:
    """The search time for one decision on a clock: an even share of what is left plus most
    of the increment, never more than half of what is left less a margin."""
    share = remaining_ms / max(moves_to_go or CLOCK_DECISIONS_LEFT, 1) + 0.75 * increment_ms
    return max(1, round(min(share, remaining_ms / 2) - CLOCK_MARGIN_MS))


def ugi_games() -> list[str]:
    """The games UGI mode can play: two players, nothing hidden."""
    return [g.name for g in games() if g.perfect_information and g.min_players <= 2 <= g.max_players]


def ugi_answer(state: State, question: str) -> str:
    if question == "p1turn":
        return "true" if state.current_player == 0 else "false"
    if not state.is_terminal():
        return "none"
    first, second = state.returns()
    return "p1win" if first > second else "p2win" if second > first else "draw"


def describe_turn(state: State) -> str:
    """``none``, ``chance``, ``seat <k>``, or at a simultaneous node ``seats <k> <k> ...`` (the
    seats that choose at once, in recording order)."""
    if state.is_terminal():
        return "none"
    if state.is_simultaneous():
        return "seats " + " ".join(str(seat) for seat in state.choosing_seats())
    return "chance" if state.is_chance() else f"seat {state.current_player}"


def decides(state: State, seat: int) -> bool:
    """Whether ``seat`` has a decision here: it is to move, or it is one of the seats that choose
    at a simultaneous node."""
    return seat in state.choosing_seats() if state.is_simultaneous() else state.current_player == seat


def run(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Reads commands until ``quit`` or end of input."""

    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    if isinstance(stdin, io.TextIOWrapper):  # bytes that are not UTF-8 become U+FFFD, refused as non-ASCII
        stdin.reconfigure(errors="replace")
    engine = Engine(write)
    for line in stdin:
        engine.handle(line.strip())
        if not engine.running:
            break
    else:
        engine.handle("quit")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The ``kibitz-engine`` console script: ``kibitz-engine [--allow-plugin MODULE ...]``."""
    parser = argparse.ArgumentParser(prog="kibitz-engine", description="The kibitz text-protocol engine on stdin/stdout (docs/protocol.md).")
    parser.add_argument(plugins.ALLOW_FLAG, action="append", default=[], metavar="MODULE", help=plugins.ALLOW_HELP)
    args = parser.parse_args(argv)
    try:
        plugins.allow(*args.allow_plugin)
    except OptionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return run()
