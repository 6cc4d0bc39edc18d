"""The ``kibitz`` command line.

    kibitz games                                   list the games and their options
    kibitz play just4fun_colours --bots ismcts greedy --seed 3
    kibitz play just4fun_colours --human 0         play seat 0 yourself
    kibitz play yucata --human 0 --level 3         against difficulty level 3 (docs/levels.md)
    kibitz match just4fun_colours --bots ismcts:iterations=500 greedy --games 100 --out games.jsonl
    kibitz match just4fun_colours --bots greedy --engine "kibitz engine" --movetime 200
    kibitz match just4fun_colours --bots ismcts:c=1.2 ismcts --sprt elo0=0 elo1=20 --games 5000
    kibitz match yucata --players 3 --bots ismcts pimc greedy random --schedule gauntlet --games 60
    kibitz referee just4fun_colours --bots "engine:kibitz engine" "engine:./other" --out r.jsonl
    kibitz referee yucata --bots "cmd='kibitz engine' name=mine option.Exploration=1.0" greedy --tc 10+0.1 --concurrency 2
    kibitz tune just4fun_colours --bot ismcts:iterations=500 --params c --opponents greedy --budget 2000
    kibitz replay games.jsonl --index 0 --show     check recorded games and show the end
    kibitz selfplay just4fun_colours --bots ismcts:iterations=2000 --games 1000 --out data/g0
    kibitz train data/g0 --out g1.kbnet --plot g1.png   then: --bots ismcts:plugin=g1.kbnet:evaluate
    kibitz bench
    kibitz serve                                   play in the browser: prints the table's URL
    kibitz web export site/                        the table as a static folder, no server (docs/web.md)

Exit codes: 0 success; 1 a replay that does not verify, an unavailable benchmark or a game
abandoned at the prompt (``quit`` or the input ended); 2 bad input (unknown game, bad option,
bot spec or move, a file that cannot be read or written), reported as ``error: <message>``
on stderr; 130 interrupted (Ctrl-C); 141 the output was closed early (``kibitz replay … |
head -1``). Each ends in one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from rich.console import Console

from kibitz import __version__, learn, levels, plugins, selfplay
from kibitz.bots import ALGORITHM_NAMES, LEVEL_KEY, Bot, make_bot, parameter_sets, presets
from kibitz.errors import IllegalMoveError, NotationError, OptionError, UnknownGameError
from kibitz.game import CHANCE, Game, State, View, games
from kibitz.learn import TrainSettings
from kibitz.levels import level_number
from kibitz.match import (
    BACKENDS,
    SCHEDULES,
    Backend,
    MatchResult,
    bot_action,
    derive_seed,
    initial_state,
    play_bots,
    play_out,
    replay,
    run_match,
    seat_bots,
    showing_moves,
    status_progress,
)
from kibitz.params import EVAL_PREFIX, PARAMETERS, POLICY_PREFIX
from kibitz.plots import check_plotting, plot_ratings, plot_tuning
from kibitz.records import GameRecord, read_records
from kibitz.referee import ENGINE_PREFIX, TimeControl, Tournament
from kibitz.stats import SPRT
from kibitz.tune import DEFAULT_STORAGE, METHODS, Trial, TuneResult, tune
from kibitz.web.limits import STATIC_LIMITS, Limits

DEFAULT_PLAY_BOTS = ["ismcts:iterations=2000", "ismcts:iterations=2000"]
HINT_BOT = "ismcts:iterations=5000"  # the suggestion `hint` shows at the human prompt

# What bad input raises; main() reports these without a traceback.
USER_ERRORS = (OptionError, UnknownGameError, NotationError, IllegalMoveError, OSError)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # argparse exits after --help and usage errors
        return int(exit_request.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        with _warnings_as_lines():
            plugins.allow(*getattr(args, "allow_plugin", []))
            code = int(args.run(args))
            sys.stdout.flush()  # a closed pipe shows here, not as a traceback at exit
            return code
    except BrokenPipeError:
        _discard_stdout()
        print("error: the output was closed before everything was written (broken pipe)", file=sys.stderr)
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except USER_ERRORS as err:
        print(f"error: {_error_message(err)}", file=sys.stderr)
        return 2


def _error_message(err: Exception) -> str:
    if isinstance(err, OSError) and err.strerror:
        return f"{err.strerror}: {err.filename}" if err.filename else err.strerror
    return str(err)


@contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """Warnings (a torn results file set aside, say) as one ``warning: …`` line on stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest: print(f"warning: {message}", file=sys.stderr)
        yield


def _discard_stdout() -> None:
    """Points stdout at /dev/null, so that Python's flush at exit does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file (tests capture it)
        pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kibitz",
        description="Game-AI engine for hidden-information tabletop games.",
        epilog=bots_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"kibitz {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    with_bots: dict[str, Any] = {"epilog": bots_help(), "formatter_class": argparse.RawDescriptionHelpFormatter}

    games_parser = commands.add_parser("games", help="list the games and their options")
    games_parser.set_defaults(run=games_command)

    play = commands.add_parser("play", help="play one game move by move, bots against bots or you", **with_bots)
    play.add_argument("game")
    _add_game_arguments(play)
    play.add_argument(
        "--bots",
        nargs="+",
        metavar="SPEC",
        help="bot specs, assigned to the seats in turn (default: two ismcts:iterations=2000)",
    )
    play.add_argument("--level", metavar="N", help="every bot plays difficulty level N (the spec level=N; see docs/levels.md)")
    play.add_argument("--seed", type=int, help="seed of the deal, the chance outcomes and the bots (default: random)")
    play.add_argument("--human", type=int, metavar="SEAT", help="play this seat yourself, typing moves")
    play.set_defaults(run=play_command)

    match = commands.add_parser("match", help="play many games between bots and compare them", **with_bots)
    match.add_argument("game")
    _add_game_arguments(match)
    match.add_argument(
        "--bots", nargs="+", metavar="SPEC", default=[], help="bot specs, each with an optional name=NAME (2 or more players in all, with --engine)"
    )
    match.add_argument(
        "--engine", action="append", default=[], metavar="COMMAND", help="an engine process to play through the text protocol (repeatable)"
    )
    _add_tournament_arguments(match)
    match.add_argument("--processes", type=int, help="worker processes (default: one per CPU)")
    match.add_argument("--out", metavar="FILE.jsonl", help="append every game's record to this file; resume from it")
    match.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    match.add_argument("--plot", metavar="FILE.png", help="draw the ratings with their intervals to this file (needs kibitz[plot])")
    _add_backend_arguments(match)
    _add_referee_arguments(match)
    match.set_defaults(run=match_command)

    referee = commands.add_parser(
        "referee", help="run a tournament between engine processes and bots over the text protocol", **with_bots
    )
    referee.add_argument("game")
    _add_game_arguments(referee)
    referee.add_argument(
        "--bots",
        nargs="+",
        metavar="SPEC",
        required=True,
        help="2 or more players: bot specs (with name=), engine:<command>, or \"cmd=<command> name=<name> option.<Name>=<value>\"",
    )
    _add_tournament_arguments(referee)
    referee.add_argument("--out", "--results", dest="out", metavar="FILE.jsonl", help="append each game here as it ends; resume from it")
    referee.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    referee.add_argument("--plot", metavar="FILE.png", help="draw the ratings with their intervals to this file (needs kibitz[plot])")
    _add_backend_arguments(referee)
    _add_referee_arguments(referee)
    referee.set_defaults(run=referee_command)

    tune_parser = commands.add_parser(
        "tune", help="tune a bot's search parameters by playing matches (Optuna TPE or CMA-ES, or SPSA)", **with_bots
    )
    tune_parser.add_argument("game")
    _add_game_arguments(tune_parser)
    tune_parser.add_argument("--bot", required=True, metavar="SPEC", help="the search bot to tune, e.g. ismcts:iterations=500")
    tune_parser.add_argument(
        "--params", nargs="+", required=True, metavar="NAME[=LOW:HIGH[:log]]", help="the parameters to tune and their ranges (default: the declared range)"
    )
    tune_parser.add_argument("--opponents", nargs="+", default=[], metavar="SPEC", help="the pool the candidate plays (tpe, cmaes)")
    tune_parser.add_argument("--budget", type=int, required=True, metavar="GAMES", help="games for all trials together")
    tune_parser.add_argument("--games-per-trial", type=int, default=20, metavar="N", help="games of each trial (default 20)")
    tune_parser.add_argument("--method", choices=METHODS, default="tpe", help="tpe (default) or cmaes (Optuna), or spsa")
    tune_parser.add_argument("--seed", type=int, default=0, help="seed of the tuning run (default 0)")
    tune_parser.add_argument(
        "--storage", metavar="URL", help=f"Optuna storage (default sqlite:///{DEFAULT_STORAGE}; any RDB URL), or spsa's state file"
    )
    tune_parser.add_argument("--study", help="study name (default: from the game, bot, parameters, method and seed)")
    tune_parser.add_argument("--shared", action="store_true", help="other machines work on this study: leave running trials alone")
    tune_parser.add_argument("--processes", type=int, help="worker processes per match (default: one per CPU)")
    tune_parser.add_argument(
        "--verify", nargs="+", default=["elo0=0", "elo1=10"], metavar="KEY=VALUE", help="the closing SPRT, best against start (default elo0=0 elo1=10)"
    )
    tune_parser.add_argument("--no-verify", action="store_true", help="skip the closing SPRT match")
    tune_parser.add_argument("--verify-games", type=int, default=2000, help="most games of the closing match (default 2000)")
    tune_parser.add_argument("--verify-out", metavar="FILE.jsonl", help="records of the closing match; resume from it")
    tune_parser.add_argument("--name", help="name of the parameter set written to FOLDER/GAME/NAME.json (default tuned-<players>p)")
    tune_parser.add_argument("--folder", default="bots", help="where parameter sets are written (default ./bots)")
    tune_parser.add_argument("--json", action="store_true", help="print the result as JSON")
    tune_parser.add_argument(
        "--plot", metavar="FILE.png", help="draw the tuning history and the parameters' importances to this file (needs kibitz[plot])"
    )
    _add_backend_arguments(tune_parser)
    tune_parser.set_defaults(run=tune_command)

    selfplay = commands.add_parser("selfplay", help="record games between bots as training data (docs/learning.md)", **with_bots)
    selfplay.add_argument("game")
    _add_game_arguments(selfplay)
    selfplay.add_argument(
        "--bots", nargs="+", metavar="SPEC", required=True, help="one spec (self-play), or several rotated over the seats"
    )
    selfplay.add_argument("--games", type=int, required=True, help="games in the data set")
    selfplay.add_argument("--seed", type=int, default=0, help="seed of the data set (default 0)")
    selfplay.add_argument(
        "--out", required=True, metavar="FOLDER", help="the data folder (shards and manifest.json); resumed if it exists"
    )
    selfplay.add_argument(
        "--perfect", metavar="SPEC", help="also record each position's value searched with every hand known (uct:...)"
    )
    selfplay.add_argument("--shard-games", type=int, default=20, metavar="N", help="games per shard file (default 20)")
    selfplay.add_argument("--processes", type=int, default=1, help="worker processes (default 1)")
    selfplay.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_backend_arguments(selfplay)
    selfplay.set_defaults(run=selfplay_command)

    train_parser = commands.add_parser("train", help="train a value and policy network on self-play data (docs/learning.md)")
    train_parser.add_argument("data", nargs="+", metavar="FOLDER", help="self-play data folders (kibitz selfplay --out)")
    train_parser.add_argument("--out", required=True, metavar="FILE.kbnet", help="the network file to write")
    defaults = TrainSettings()
    for name, parse, text in (
        ("hidden", int, "width of the trunk"),
        ("blocks", int, "residual blocks"),
        ("epochs", int, "most epochs"),
        ("batch", int, "samples per step"),
        ("learning_rate", float, "Adam's step size"),
        ("weight_decay", float, "decoupled weight decay"),
        ("validation", float, "share of the games held out"),
        ("patience", int, "stop after this many epochs without a better validation loss"),
        ("policy_weight", float, "weight of the policy loss"),
        ("value_mix", float, "share of the deciding seat's value target taken from --distill's value"),
        ("seed", int, "seed of the initial weights, the split and the batches"),
    ):
        default = getattr(defaults, name)
        train_parser.add_argument(f"--{name.replace('_', '-')}", type=parse, default=default, help=f"{text} (default {default})")
    train_parser.add_argument(
        "--distill",
        choices=("perfect", "search"),
        default=defaults.distill,
        help="--value-mix's value: with every hand known (default), or the search's own",
    )
    train_parser.add_argument(
        "--distilled-only",
        action="store_true",
        help="train on the decisions that have --distill's value only, every value target from it (its team's value, "
        "the other teams' share of the rest): a label per decision, not per game (docs/learning.md)",
    )
    train_parser.add_argument("--init", metavar="FILE.kbnet", help="start from this network's weights (the previous generation)")
    train_parser.add_argument("--plot", metavar="FILE.png", help="draw the learning curves to this file (needs kibitz[plot])")
    train_parser.add_argument("--json", action="store_true", help="print the settings, counts and losses as JSON")
    train_parser.set_defaults(run=train_command)

    replay_parser = commands.add_parser("replay", help="replay recorded games and check their results")
    replay_parser.add_argument("file", metavar="FILE.jsonl")
    replay_parser.add_argument("--index", type=int, help="only the record on this line (0 = first)")
    replay_parser.add_argument("--show", action="store_true", help="print each final state")
    replay_parser.set_defaults(run=replay_command)

    bench = commands.add_parser("bench", help="run the benchmark")
    bench.add_argument("--iterations", type=int, default=10000, help="iterations per search (default 10000)")
    bench.set_defaults(run=_bench)

    engine = commands.add_parser("engine", help="run the text-protocol engine on stdin/stdout (docs/protocol.md)")
    engine.set_defaults(run=_engine)

    serve = commands.add_parser(
        "serve",
        help="play the bots in the browser: start the web table and print its URL (docs/web.md)",
        description="Starts the web table (docs/web.md) and prints its URL; Ctrl-C stops it. The limits below bound what "
        "a browser may ask of this machine: every bot spec chosen in the lobby stays within them.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only); another exposes the tables to the network, with a warning")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--open", action="store_true", help="open the page in the default browser")
    _limit_flags(serve, [item.name for item in dataclasses.fields(Limits)])
    serve.set_defaults(run=serve_command)

    web = commands.add_parser("web", help="the web table without a server (docs/web.md)")
    web_commands = web.add_subparsers(dest="web_command", metavar="COMMAND", required=True)
    export = web_commands.add_parser(
        "export",
        help="write the web table as a static folder (HTML, JavaScript, WebAssembly) for any static host",
        description="Writes the web table into DIR as a static folder: serve it with any static host (python -m http.server "
        "-d DIR) and play the bots in the browser, offline, with no kibitz server (docs/web.md). kibitz.wasm is built with "
        "Emscripten from this kibitz's source tree, or taken from --wasm.",
    )
    export.add_argument("folder", type=Path, metavar="DIR", help="the folder to write (new, empty, or an earlier export)")
    export.add_argument("--wasm", type=Path, metavar="DIR", help="a built kibitz.mjs folder (build/wasm/kibitz) instead of building one")
    export.add_argument("--build-dir", type=Path, metavar="DIR", help="where to build kibitz.wasm (default build/wasm of the source tree)")
    _limit_flags(export, STATIC_LIMITS)
    export.set_defaults(run=web_export_command)
    for taking_specs in (play, match, referee, tune_parser, selfplay, engine, serve):
        taking_specs.add_argument(plugins.ALLOW_FLAG, action="append", default=[], metavar="MODULE", help=plugins.ALLOW_HELP)
    return parser


def _limit_flags(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    """A flag for each of the web table's limits ``names`` (``max_iterations``: ``--max-iterations``)."""
    for item in dataclasses.fields(Limits):
        if item.name in names:
            kind = type(item.default)
            parser.add_argument(
                "--" + item.name.replace("_", "-"), type=kind, default=item.default, metavar="SPEC" if kind is str else "N",
                help=f"{item.metadata['help']} (default {item.default})",
            )


def serve_command(args: argparse.Namespace) -> int:
    """``kibitz serve``: the web table until Ctrl-C."""
    from kibitz.web import serve

    limits = Limits(**{item.name: getattr(args, item.name) for item in dataclasses.fields(Limits)})
    serve(args.host, args.port, limits, open_browser=args.open)
    return 0


def web_export_command(args: argparse.Namespace) -> int:
    """``kibitz web export DIR``: the static table."""
    from kibitz.web.export import export

    limits = Limits(**{name: getattr(args, name) for name in STATIC_LIMITS})
    index = export(args.folder, args.wasm, args.build_dir, limits)
    print(f"wrote {index.parent}: serve it with python -m http.server -d {index.parent} and open http://localhost:8000/")
    return 0


def _add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, help="number of players")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        type=_option_pair,
        metavar="KEY=VALUE",
        help="a game option (repeatable); see `kibitz games`",
    )


def _add_tournament_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", type=int, help=f"number of games (default {DEFAULT_GAMES}; with --sprt the most to play, default {DEFAULT_SPRT_GAMES})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the match (default 0)")
    parser.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="round-robin",
        help="with more players than seats: every table of players (round-robin), the first player against the rest (gauntlet), "
        "or players listed weakest first meeting the next ones (ladder: in two-player games each meets the next two)",
    )
    parser.add_argument(
        "--anchor",
        metavar="NAME",
        help="with three or more players at tables of two: the player at 0 on their one Elo scale (default: the first)",
    )
    parser.add_argument(
        "--no-duplicate",
        dest="duplicate",
        action="store_false",
        help="a fresh deal every game, seats rotated (default: each deal replayed with the seats shifted, so that luck cancels)",
    )
    parser.add_argument(
        "--sprt", nargs="+", metavar="KEY=VALUE", help="stop when decided: elo0=0 elo1=5 [alpha=0.05 beta=0.05 model=logistic|normalized]"
    )


def _add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="local worker processes (default), or a Ray cluster")
    parser.add_argument("--address", help="with --backend ray: the cluster to join (auto, ray://host:10001); default: start Ray here")


def _backend(args: argparse.Namespace) -> Backend:
    return Backend(args.backend, args.address)


def _add_referee_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--movetime", type=int, default=1000, metavar="MS", help="engine time per decision (default 1000)")
    parser.add_argument("--tc", metavar="SECONDS[+INC]", help="engines play on a clock instead: time per game plus an increment per decision")
    parser.add_argument("--concurrency", type=int, default=1, metavar="N", help="refereed games played at once (default 1)")
    parser.add_argument("--margin", type=int, default=500, metavar="MS", help="grace before a late engine forfeits (default 500)")
    parser.add_argument("--iterations", type=int, metavar="N", help="also cap each engine search at N iterations")
    parser.add_argument("--observe", action="store_true", help="tell engines each action with observe lines, not a position per decision")


def _option_pair(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _make_game(args: argparse.Namespace) -> Game:
    options = dict(args.option)
    if args.players is not None:
        options["players"] = str(args.players)
    return Game(args.game, **options)


# -- commands ---------------------------------------------------------------------------------


def games_command(args: argparse.Namespace) -> int:
    """``kibitz games``: every game with its player range, description, options, the rule
    constants it declares (reconstructed values marked), its rollout policy's weights and its
    greedy evaluation's."""
    for info in games():
        print(f"{info.name}  ({info.min_players}-{info.max_players} players)")
        print(f"  {info.description}")
        game = Game(info.name)
        meta = game.metadata  # under the default options (docs/research.md)
        length = "no length bound" if meta.max_game_length is None else f"at most {meta.max_game_length} decision{'s' if meta.max_game_length != 1 else ''}"
        print(
            f"  {meta.dynamics}, {meta.information} information, {'chance nodes' if info.chance else 'no chance after setup'}; "
            f"action ids < {meta.max_actions}; {length} by default; observation tensor of {meta.observation_size}"
        )
        if info.options:
            width = max(len(name) for name, _ in info.options)
            print("  options:")
            for name, help_text in info.options:
                print(f"    {name:<{width}}  {help_text}")
        if info.constants:
            width = max(len(name) for name, _, _ in info.constants)
            print("  rule constants ([R]: a reconstruction, not from the published rules):")
            for name, value, status in info.constants:
                mark = "[R]" if "R" in status.split() else "   "
                print(f"    {mark} {name:<{width}}  {value}  ({status})")
        for weights, prefix, what in [
            (game.policy_weights, POLICY_PREFIX, "rollout-policy weights (search bot specs and kibitz tune"),
            (game.eval_weights, EVAL_PREFIX, "greedy-evaluation weights (greedy bot specs and kibitz tune"),
        ]:
            if weights:
                width = max(len(w.name) for w in weights) + len(prefix)
                print(f"  {what}: {prefix}<name>):")
                for w in weights:
                    print(f"    {prefix + w.name:<{width}}  {w.default:g} in {w.low:g}..{w.high:g}  {w.help}")
    return 0


def play_command(args: argparse.Namespace) -> int:
    """``kibitz play``: one game, printed move by move. Bots see only their seat's view; with
    ``--human`` the output shows only what that seat may know."""
    game = _make_game(args)
    if args.level is not None and args.bots is not None:
        raise OptionError("--level N plays every bot at level N: give --bots or --level, not both")
    args.bots = [f"{LEVEL_KEY}={args.level}"] if args.level is not None else args.bots or DEFAULT_PLAY_BOTS
    if args.level is not None:
        levels.level(game.name, game.num_players, level_number(args.level, "--level"))  # a level this game has
    if len(args.bots) > game.num_players:
        raise OptionError(f"{game.num_players} seats but {len(args.bots)} bots: {' '.join(args.bots)}")
    # A fresh deal each time unless asked; printed so that the game can be played again.
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    labels = [args.bots[seat % len(args.bots)] for seat in range(game.num_players)]
    bots = seat_bots(labels, seed)
    human = args.human
    if human is None:
        print(f"{game!r} seed {seed}: " + ", ".join(f"seat {seat} {label}" for seat, label in enumerate(labels)))
        record = play_bots(game, bots, seed, labels=labels, on_move=_FullAnnouncer(labels))
        print(replay(record))  # the final state; replaying also checks the record
        print(result_text(record))
        return 0
    if not 0 <= human < game.num_players:
        raise OptionError(f"--human {human}: no such seat; seats are 0..{game.num_players - 1}")
    labels[human] = "human"
    print(f"{game!r} seed {seed}: " + ", ".join(f"seat {seat} {label}" for seat, label in enumerate(labels)))
    print(f"You play seat {human}. {HumanPlayer.COMMANDS}")
    try:
        record, final = play_with_human(game, bots, labels, seed, human)
    except EOFError:
        print("\ngame abandoned: the input ended", file=sys.stderr)
        return 1
    except QuitGame:
        print("game abandoned: you quit", file=sys.stderr)
        return 1
    print(f"game over; your view (seat {human}):\n{final.render(human)}")
    print(result_text(record))
    return 0


class QuitGame(Exception):
    """``quit`` at the human prompt."""


class _Undo(Exception):
    """``undo`` at the human prompt: take back the human's last decision."""


def play_with_human(game: Game, bots: list[Bot], labels: list[str], seed: int, human: int) -> tuple[GameRecord, State]:
    """Plays a game with a person at seat ``human`` (the other seats' bots see their views);
    returns the record and the final state. ``undo`` at the prompt takes back the person's
    last decision and everything after it; chance after an undo is drawn afresh (from
    ``derive_seed(seed, "undo", n)``), so that an undo does not show the next card."""
    player = HumanPlayer(derive_seed(seed, "hint"))
    announce = _SeatAnnouncer(labels, human)
    state = initial_state(game, seed)
    actions: list[int] = []
    moves: list[str] = []
    decisions: list[tuple[State, int]] = []  # before each of the human's decisions: the state and len(actions)

    def decide(s: State, seat: int) -> int:
        if seat != human:
            return bot_action(s, seat, bots[seat], labels[seat])
        decisions.append((s.clone(), len(actions)))
        return player.choose(s.view(seat), can_undo=len(decisions) > 1)

    # The bots keep what an undone move showed them of the person's play.
    show = showing_moves([None if seat == human else bot for seat, bot in enumerate(bots)], announce)
    undos = 0
    while True:
        try:
            play_out(state, derive_seed(seed, "undo", undos) if undos else seed, decide, show, (actions, moves))
            break
        except _Undo:
            decisions.pop()  # the decision being asked
            state, played = decisions.pop()  # the one taken back
            del actions[played:], moves[played:]
            undos += 1
            print(f"taken back: your last move and everything after it ({undos} undo{'s' if undos > 1 else ''})")
    record = GameRecord(
        game.name, dict(game.options), seed, labels, actions, moves, state.returns(), state.scores(), state.ranks()
    )
    return record, state


def match_command(args: argparse.Namespace) -> int:
    """``kibitz match``: a match with a progress bar, then the results as a table or JSON.
    With ``--engine`` the referee plays it (kibitz.referee)."""
    if args.engine:
        args.bots = [*args.bots, *(f"{ENGINE_PREFIX}{command}" for command in args.engine)]
        return referee_command(args)
    game = _make_game(args)
    sprt = None if args.sprt is None else SPRT.parse(args.sprt)
    if args.plot:
        check_plotting()
    result = run_match(
        game,
        args.bots,
        games=_games(args),
        seed=args.seed,
        processes=args.processes,
        progress=True,
        record_path=args.out,
        duplicate=args.duplicate,
        schedule=args.schedule,
        sprt=sprt,
        backend=_backend(args),
        anchor=args.anchor,
    )
    _print_result(result, args.json)
    _plot(result, args.plot)
    return 0


def _plot(result: MatchResult, path: str | None) -> None:
    if path:
        plot_ratings(result, path)
        print(f"plot written: {path}", file=sys.stderr)


DEFAULT_GAMES = 100
DEFAULT_SPRT_GAMES = 20000


def _games(args: argparse.Namespace) -> int:
    if args.games is not None:
        return int(args.games)
    return DEFAULT_GAMES if args.sprt is None else DEFAULT_SPRT_GAMES


def referee_command(args: argparse.Namespace) -> int:
    """``kibitz referee``: a tournament over the text protocol, resumable from its results file."""
    if args.plot:
        check_plotting()
    tournament = Tournament(
        _make_game(args),
        args.bots,
        games=_games(args),
        seed=args.seed,
        movetime_ms=args.movetime,
        margin_ms=args.margin,
        iterations=args.iterations,
        incremental=args.observe,
        results_path=args.out,
        progress=True,
        concurrency=args.concurrency,
        time_control=None if args.tc is None else TimeControl.parse(args.tc),
        duplicate=args.duplicate,
        schedule=args.schedule,
        sprt=None if args.sprt is None else SPRT.parse(args.sprt),
        backend=_backend(args),
        anchor=args.anchor,
    )
    result = tournament.run()
    _print_result(result, args.json)
    _plot(result, args.plot)
    return 0


def _print_result(result: MatchResult, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.to_dict(), indent=2))
        return
    for table in filter(None, (result.table(), result.seat_table())):
        if sys.stdout.isatty():
            Console().print(table)
        else:  # piped: as wide as the table, so that no label is cut or folded
            Console(width=Console(width=10_000).measure(table).maximum).print(table)
    if result.summary():
        print(result.summary())


def tune_command(args: argparse.Namespace) -> int:
    """``kibitz tune``: a line per trial, then the best values, the closing SPRT and the set written."""
    game = _make_game(args)
    if args.plot:
        check_plotting()
    best = -math.inf
    # Shown from the first trial on, so that a bad parameter or range is a plain error line.
    bar = status_progress()
    task = bar.add_task("trials", total=max(1, args.budget // max(1, args.games_per_trial)), status="", start=False)

    def show(trial: Trial) -> None:
        nonlocal best
        if not bar.live.is_started:
            bar.start()
            bar.start_task(task)
        values = ", ".join(f"{k}={v:.4g}" for k, v in trial.params.items())
        bar.console.print(f"trial {trial.number}: {values}: score {trial.value:.3f} over {trial.games} games")
        best = max(best, trial.value)
        bar.update(task, advance=1, status=f"θ+ score {trial.value:.3f}" if args.method == "spsa" else f"best score {best:.3f}")

    try:
        result = _tune(args, game, show)
    finally:
        if bar.live.is_started:
            bar.stop()
    if args.plot:
        plot_tuning(result, args.plot)
        print(f"plot written: {args.plot}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    if result.verification is not None:
        _print_result(result.verification, as_json=False)
        if result.verification.sprt is not None and result.verification.sprt.decision != "H1":
            print("warning: the closing SPRT did not confirm the tuned values; the set records its verdict", file=sys.stderr)
    print(result.summary())
    return 0


def _tune(args: argparse.Namespace, game: Game, show: Callable[[Trial], None]) -> TuneResult:
    return tune(
        game,
        args.bot,
        args.params,
        args.opponents,
        args.budget,
        games_per_trial=args.games_per_trial,
        method=args.method,
        seed=args.seed,
        storage=args.storage,
        study=args.study,
        processes=args.processes,
        verify=None if args.no_verify else SPRT.parse(args.verify),
        verify_games=args.verify_games,
        verify_path=args.verify_out,
        name=args.name or f"tuned-{game.num_players}p",
        folder=args.folder,
        shared=args.shared,
        on_trial=show,
        backend=_backend(args),
    )


def selfplay_command(args: argparse.Namespace) -> int:
    """``kibitz selfplay``: records games into a data folder, with a progress bar over its shards."""
    summary = selfplay.generate(
        _make_game(args),
        args.bots,
        args.games,
        args.seed,
        args.out,
        perfect=args.perfect,
        shard_games=args.shard_games,
        processes=args.processes,
        backend=_backend(args),
        progress=True,
    )
    manifest = summary.manifest
    report = {
        "folder": str(summary.folder),
        "games": manifest["games"],
        "decisions": sum(s["decisions"] for s in manifest["shards"].values()),
        "cpu_seconds": round(sum(s["cpu_seconds"] for s in manifest["shards"].values()), 1),
        "this_run": {
            "shards": summary.shards_written,
            "games": summary.games_played,
            "cpu_seconds": round(summary.cpu_seconds, 1),
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['folder']}: {report['games']} games, {report['decisions']} decisions, {report['cpu_seconds']} CPU s "
            f"(this run: {summary.games_played} games in {summary.shards_written} shards)"
        )
    return 0


def train_command(args: argparse.Namespace) -> int:
    """``kibitz train``: a line per epoch on stderr, the network file, then a summary (or JSON)."""
    if args.plot:
        check_plotting()
    settings = TrainSettings(**{name: getattr(args, name) for name in TrainSettings.__dataclass_fields__})
    data = selfplay.load_data(*args.data)
    initial = learn.Network.load(args.init) if args.init else None

    def show(epoch: learn.Epoch) -> None:
        losses = f"training {epoch.train_value:.4f} / {epoch.train_policy:.4f}"
        if epoch.validation_value is not None:
            losses += f", validation {epoch.validation_value:.4f} / {epoch.validation_policy:.4f}"
        print(f"epoch {epoch.epoch}: value / policy loss: {losses} ({epoch.seconds:.1f} s)", file=sys.stderr)

    result = learn.train(data, settings, initial=initial, on_epoch=show)
    result.network.save(args.out)
    if args.plot:
        learn.plot_history(result, args.plot)
        print(f"plot written: {args.plot}", file=sys.stderr)
    if args.json:
        print(json.dumps({"out": args.out, **result.to_dict()}, indent=2))
    else:
        print(
            f"{args.out}: {result.network!r}, {result.network.parameters} weights; "
            f"epoch {result.best_epoch} kept of {len(result.history)}; {result.train_samples} training and "
            f"{result.validation_samples} validation samples from {data.games} games; {result.cpu_seconds:.1f} CPU s"
        )
    return 0


def replay_command(args: argparse.Namespace) -> int:
    """``kibitz replay``: replays each record (or the one at ``--index``), checks its result
    and prints it; exit code 1 if any record does not verify."""
    with open(args.file, encoding="utf-8") as file:
        try:
            records = list(read_records(file))
        except ValueError as err:
            print(f"error: {args.file}: {err}", file=sys.stderr)
            return 2
    if args.index is not None:
        if not 0 <= args.index < len(records):
            raise OptionError(f"--index {args.index}: {args.file} holds {len(records)} records")
        chosen = [(args.index, records[args.index])]
    else:
        chosen = list(enumerate(records))
    failures = 0
    for index, record in chosen:
        try:
            final = replay(record)
        except ValueError as err:
            print(f"record {index}: does not replay: {err}", file=sys.stderr)
            failures += 1
            continue
        print(f"record {index}: verified, {record.game} seed {record.seed}, {len(record.actions)} actions")
        if args.show:
            print(final)
        print(result_text(record))
    return 1 if failures else 0


def _engine(args: argparse.Namespace) -> int:
    from kibitz.protocol import run

    return run()


def _bench(args: argparse.Namespace) -> int:
    # Imported here: the benchmark module is optional and need not load for other commands.
    try:
        from kibitz.benchmark import bench_command
    except ModuleNotFoundError as err:
        if err.name != "kibitz.benchmark":
            raise
        print("bench not available", file=sys.stderr)
        return 1
    return int(bench_command(args) or 0)


# -- output -----------------------------------------------------------------------------------


def result_text(record: GameRecord) -> str:
    """The result of a recorded game in words: winner or joint winners (a winning team is one
    winner), scores, ranks."""
    teams = Game(record.game, **record.options).teams
    winners = [seat for seat, value in enumerate(record.returns) if value > 0]
    names = ", ".join(f"seat {seat} ({record.specs[seat]})" for seat in winners)
    winning_teams = {teams[seat] for seat in winners}
    title = "winner" if len(winning_teams) == 1 else "joint winners"
    if len(winners) > len(winning_teams):
        title = "winning team" if len(winning_teams) == 1 else "joint winning teams"
    scores = " ".join(f"{score:g}" for score in record.scores)
    ranks = " ".join(str(rank) for rank in record.ranks)
    return f"{title}: {names}; scores {scores}; ranks {ranks}"


class _FullAnnouncer:
    """Prints the board before every decision, and every move (nobody at the table to hide from)."""

    def __init__(self, labels: list[str]) -> None:
        self._labels = labels

    def __call__(self, state: State, action: int | dict[int, int]) -> None:
        seat = state.current_player
        if seat == CHANCE:
            print(f"  chance: {state.move_to_string(cast(int, action))}")
            return
        print(state)
        for mover, move in (action.items() if isinstance(action, dict) else [(seat, action)]):
            print(f"seat {mover} ({self._labels[mover]}) plays {state.move_to_string(move)}")


class _SeatAnnouncer:
    """Prints what one seat sees of each move, and nothing else: another seat's card draw,
    for example, stays hidden."""

    def __init__(self, labels: list[str], seat: int) -> None:
        self._labels = labels
        self._seat = seat

    def __call__(self, state: State, action: int | dict[int, int]) -> None:
        if isinstance(action, dict):  # a joint move: every choice as this seat saw it
            seats = ", ".join(str(seat) for seat in state.choosing_seats())
            print(f"seats {seats} choose at once: {state.joint_observation_text(self._seat, action)}")
            return
        text = state.observation_text(self._seat, action)
        if text == "?":
            return
        mover = state.current_player
        if mover == CHANCE:
            print(f"  chance: {text}")
        else:
            print(f"seat {mover} ({self._labels[mover]}) plays {text}")


class HumanPlayer:
    """A player at the terminal: shows its seat's view and reads a move from stdin (any case;
    asked again, with the error, after an unreadable or illegal move). Also understands
    ``help``, ``hint`` (the engine's suggestion), ``undo`` and ``quit``. Raises EOFError when
    the input ends."""

    name = "human"
    sees_everything = False
    COMMANDS = "Type a move, or help, hint (a suggestion), undo (take back your last move), quit."

    def __init__(self, hint_seed: int = 0) -> None:
        self._hint_seed = hint_seed
        self._hints = 0

    def act(self, view: View) -> int:
        """A move for ``view``, as a bot would give it (no undo)."""
        return self.choose(view, can_undo=False)

    def choose(self, view: View, can_undo: bool) -> int:
        # view.state() guesses the hidden cards, but a seat's own legal moves depend only on
        # what it knows, so moves are checked exactly against it.
        state = view.state()
        print(f"your view (seat {view.seat}):\n{view.render()}")
        print(f"legal moves: {' '.join(state.legal_moves_for(view.seat))}")
        while True:
            text = input(f"seat {view.seat}> ").strip()
            command = text.lower()
            if command in ("help", "?"):
                print(self.COMMANDS)
            elif command == "hint":
                self._hints += 1
                bot = make_bot(HINT_BOT, seed=derive_seed(self._hint_seed, self._hints))
                try:
                    print(f"hint ({HINT_BOT}): {state.move_to_string(bot_action(state, view.seat, bot, HINT_BOT))}")
                except ValueError as err:  # a position the search refuses: the hint says why
                    print(f"no hint: {err}")
            elif command == "undo":
                if can_undo:
                    raise _Undo
                print("nothing to undo: this is your first move")
            elif command == "quit":
                raise QuitGame
            else:
                try:
                    action = _parse_any_case(state, view.seat, text)
                    if not state.is_simultaneous():
                        state.clone().apply(action)
                    elif action not in state.legal_actions_for(view.seat):
                        raise IllegalMoveError(f"illegal move {text!r}; legal: {' '.join(state.legal_moves_for(view.seat))}")
                except (IllegalMoveError, NotationError) as err:
                    print(f"error: {err}")
                else:
                    return action


def _parse_any_case(state: State, seat: int, text: str) -> int:
    """The action ``text`` names in any case: the legal move of ``seat`` it spells (``A1`` for
    ``a1``), else the first of the text as typed, in lower case or in upper case that reads as a
    move (so that an illegal move is called illegal, not unreadable); raises NotationError."""
    same = [move for move in state.legal_moves_for(seat) if move.lower() == text.lower()]
    if len(same) == 1:
        return state.parse_move(same[0])
    for spelling in (text.lower(), text.upper()):
        try:
            return state.parse_move(spelling)
        except NotationError:
            pass
    return state.parse_move(text)


def _settings(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())


def bots_help() -> str:
    """The bot names, presets and spec parameters, for ``--help``."""
    names = ", ".join([*ALGORITHM_NAMES, "random", "greedy"])
    lines = [
        f"bots: {names} (uct sees every hand: a baseline; ismcts = so_ismcts)",
        "  with parameters: NAME:key=value,..., e.g. ismcts:iterations=5000,c=0.7,threads=2",
    ]
    spec_parameters = [p for p in PARAMETERS if p.name != "algorithm"]  # the bot's name chooses the algorithm
    width = max(len(p.name) for p in spec_parameters)
    for p in spec_parameters:
        also = f" (also {', '.join(p.aliases)})" if p.aliases else ""
        lines.append(f"    {p.name:<{width}}  {p.allowed()}, default {p.default}{also}: {p.help}")
    lines.append(f"    {POLICY_PREFIX}<name>  the game's rollout-policy weights (kibitz games lists them)")
    lines.append(f"  greedy: seed, preset and {EVAL_PREFIX}<name>, the game's evaluation weights (kibitz games lists them)")
    for name, preset in sorted(presets().items()):
        lines.append(f"preset {name}: {preset['bot']}:{_settings(preset.get('params', {}))}")
    try:
        sets = parameter_sets()
    except OptionError as err:  # a broken file must not break --help; using it names it
        sets, lines = {}, [*lines, f"parameter sets: {err}"]
    for game, named in sorted(sets.items()):
        for name, data in sorted(named.items()):
            version = data.get("version", 1)
            lines.append(f"parameter set {game}/{name} (v{version}, load with preset={name}): {_settings(data['params'])}")
    lines.append("levels: level=N alone or in a search spec (ismcts:level=N,threads=2) plays the game's level N (docs/levels.md):")
    try:
        for game, ladders in sorted(levels.ladders().items()):
            for ladder in ladders:
                counts = ", ".join(map(str, ladder[0].players))
                rungs = ", ".join(f"{lv.name} ({lv.bot}:{_settings(lv.params)})" for lv in ladder)
                lines.append(f"  {game}, {counts} players: {rungs}")
    except OptionError as err:  # as for parameter sets
        lines.append(f"  {err}")
    return "\n".join(lines)
