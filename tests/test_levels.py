"""Difficulty levels (kibitz.levels, bots/<game>/levels.json, docs/levels.md): the ladders'
files, level specs and what they map to, bad specs and files, and a seeded short match in
which a level beats the level two below it. The tactical guarantees are in test_tactics.py,
the protocol's options in test_protocol.py."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

import kibitz
from kibitz import levels
from kibitz.bots import parameter_sets, write_parameter_set
from kibitz.errors import OptionError
from kibitz.levels import LevelBot
from kibitz.match import MatchPlan
from kibitz.stats import elo_estimate

LADDERS = [(game, ladder) for game, found in sorted(levels.ladders().items()) for ladder in found]
LADDER_IDS = [f"{game}-{'-'.join(map(str, ladder[0].players))}p" for game, ladder in LADDERS]
# between adjacent calibrated levels (docs/levels.md): 100 Elo, or with more players an openskill mu of 3.4, its equivalent
MIN_GAP = {"Elo": 100, "openskill": 3.4}


def strongest_preset(game: str, players: int) -> str:
    """The game's strongest preset for ``players`` players: ``strong-4p`` at a table of three or
    more where the game has one, else ``strong``."""
    return "strong-4p" if players >= 3 and "strong-4p" in parameter_sets()[game] else "strong"


def first_position(game: str, players: int, seed: int = 1) -> kibitz.State:
    state = kibitz.Game(game, players=players).new_initial_state(seed)
    while state.is_chance():
        state.apply(state.sample_chance(seed))
    return state


def test_the_games_with_levels_have_a_two_player_ladder_at_least() -> None:
    assert {"yucata", "just4fun_colours"} <= set(levels.ladders())
    assert [level.number for level in levels.levels("yucata", 2)] == list(range(1, len(levels.levels("yucata", 2)) + 1))
    assert levels.levels("yucata") == levels.levels("yucata", 2)  # the game's default number of players


@pytest.mark.parametrize(("game", "ladder"), LADDERS, ids=LADDER_IDS)
def test_a_ladder_is_numbered_named_rated_in_order_and_its_specs_play_its_settings(game: str, ladder: tuple[levels.Level, ...]):
    rated = [level.rating for level in ladder if level.rating is not None]
    players = ladder[0].players[0]
    assert all(rating.scale == "Elo" and rating.anchor == "greedy" for rating in rated)  # four players too: Plackett-Luce on the Elo scale
    assert all(b.value - a.value >= MIN_GAP[b.scale] for a, b in itertools.pairwise(rated)), rated
    assert all(a.high < b.low for a, b in itertools.pairwise(rated)), rated  # the 95 % intervals do not overlap
    state = first_position(game, players)
    for number, level in enumerate(ladder, start=1):
        assert (level.number, level.spec, level.game) == (number, f"level={number}", game)
        assert level.name.startswith(f"{number} · ") and level.name[4:].isalpha() and level.summary
        # an iteration budget: the rating does not depend on the machine's load
        assert level.search_params.temperature >= 0 and level.search_params.iterations > 0
        bot = kibitz.make_bot(level.spec, seed=7)
        assert isinstance(bot, LevelBot) and bot.bot is None  # the game is read from the first position
        seat = state.choosing_seats()[0] if state.is_simultaneous() else state.current_player  # Yak starts at a joint node
        move = bot.act(state.view(seat), seat)
        assert move in state.legal_actions_for(seat)
        assert bot.bot is not None and bot.bot.params == level.search_params.with_(seed=7)
        assert bot.last_result is not None and bot.last_result.iterations <= level.search_params.iterations
    # the top level is the strongest preset for its player count: none is slower
    strong = kibitz.make_bot(f"{ladder[-1].bot}:preset={game}/{strongest_preset(game, players)}")
    assert isinstance(strong, kibitz.SearchBot) and ladder[-1].search_params == strong.params
    assert all(level.search_params.iterations <= strong.params.iterations for level in ladder)


def test_a_level_in_a_search_spec_takes_the_specs_algorithm_and_options_over_the_levels() -> None:
    level = levels.level("just4fun_colours", 2, 2)
    bot = kibitz.make_bot("pimc:level=2,threads=2,iterations=300", seed=4)
    state = first_position("just4fun_colours", 2)
    bot.act(state.view(state.current_player))
    assert isinstance(bot, LevelBot) and bot.bot is not None
    assert bot.bot.params == level.search_params.with_(algorithm="pimc", threads=2, iterations=300, seed=4)
    named = kibitz.make_bot("level=2,seed=9")
    assert isinstance(named, LevelBot) and named.seed == 9 and named.name == "level=2"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("level=0", "level '0' does not exist; expected a level 1.."),
        ("level=99", "level '99' does not exist; expected a level 1.."),
        ("level=x", "level: 'x' is not a level 1.."),
        ("level=2.5", "level: '2.5' is not a level 1.."),
        ("level", "say which level: level=<n>"),
        ("ismcts:level=2,preset=strong", "level and preset both name settings"),
        ("strong:level=2", "a level is a preset of its own; give level=<n> to a search bot"),
        ("level=2,c=x", "search parameter c: 'x' is not a number"),
        ("level=2,bogus=1", "unknown search parameter 'bogus'"),
        ("greedy:level=2", "bot 'greedy' takes no options except seed"),
    ],
)
def test_bad_level_specs_are_refused_naming_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(").replace(".", r"\.")):
        kibitz.make_bot(spec)


def test_a_level_the_game_does_not_have_is_refused_when_the_bot_meets_the_game(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    write_levels(tmp_path, "just4fun_colours", [2], levels=4)
    write_levels(tmp_path, "yucata", [2], levels=2)
    monkeypatch.setenv("KIBITZ_BOTS", str(tmp_path))
    bot = kibitz.make_bot("level=4")  # just4fun_colours has a level 4
    state = first_position("yucata", 2)
    with pytest.raises(OptionError, match="yucata with 2 players has levels 1..2; there is no level 4"):
        bot.act(state.view(state.current_player))
    with pytest.raises(OptionError, match="yucata has no difficulty levels for 3 players; it has levels for 2"):
        levels.levels("yucata", 3)
    with pytest.raises(OptionError, match="goofspiel has no difficulty levels; games with levels: .*just4fun_colours.*, yucata"):
        levels.levels("goofspiel", 2)


def test_nearest_picks_the_calibrated_level_nearest_a_rating() -> None:
    ladder = levels.levels("yucata", 2)
    rated = [level for level in ladder if level.rating is not None]
    for level in rated:
        assert level.rating is not None
        assert levels.nearest("yucata", 2, level.rating.value + 10) == level
    assert levels.nearest("yucata", 2, -10_000) == rated[0] and levels.nearest("yucata", 2, 10_000) == rated[-1]
    low, high = levels.rating_range()
    assert low <= min(lv.rating.value for lv in rated if lv.rating) and high >= max(lv.rating.value for lv in rated if lv.rating)


def test_the_elo_a_level_rated_in_openskill_mu_is_chosen_by_is_its_mu_converted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = write_levels(tmp_path, "yucata", [4], levels=2)
    data = json.loads(path.read_text())
    data["ladders"][0]["scale"] = "openskill"
    for level, mu in zip(data["ladders"][0]["levels"], (-19.2, -2.0)):
        level["rating"] = {"value": mu, "low": mu - 3.5, "high": mu + 3.5}
    path.write_text(json.dumps(data))
    monkeypatch.setenv("KIBITZ_BOTS", str(tmp_path))
    ladder = levels.levels("yucata", 4)
    for level in ladder:
        assert level.rating is not None and level.rating.scale == "openskill"
        elo = level.rating.value * 100 / levels.MU_PER_100_ELO
        assert level.rating.elo == pytest.approx(elo)
        assert levels.nearest("yucata", 4, elo + 10) == level  # compared in Elo, not in mu
        low, high = levels.rating_range()
        assert low <= elo <= high
    assert levels.nearest("yucata", 4, -100) == ladder[1]  # in mu, -2.0 is farther from -100 than -19.2


# -- the file format ---------------------------------------------------------------------------


def write_levels(folder: Path, game: str, players: list[int], levels: int, changes: dict | None = None) -> Path:
    """A levels file of ``levels`` small levels for ``game``, none calibrated."""
    bot = "uct" if game == "yucata" else "ismcts"
    data = {
        "format": 1,
        "version": 1,
        "game": game,
        "ladders": [
            {
                "players": players,
                "scale": "Elo",
                "anchor": "greedy",
                "calibration": {},
                "levels": [
                    {"level": k, "name": f"L{k}", "bot": bot, "params": {"iterations": 20 * k}, "summary": "test", "rating": None}
                    for k in range(1, levels + 1)
                ],
            }
        ],
        **(changes or {}),
    }
    path = folder / game / "levels.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 2}, "not a levels file of format 1 \\(its 'format' is 2\\)"),
        ({"game": "chess"}, "unknown game"),
        ({"ladders": [{"players": [2], "scale": "Elo", "anchor": "greedy"}]}, "a field is missing: 'levels'"),
        ({"ladders": [{"players": [2], "scale": "Elo", "anchor": "-", "levels": []}]}, "the ladder for 2 players has no levels"),
        ({"ladders": [{"players": [9], "scale": "Elo", "anchor": "greedy", "levels": []}]}, "players"),
    ],
)
def test_a_broken_levels_file_is_refused_naming_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, change: dict, message: str):
    path = write_levels(tmp_path, "yucata", [2], levels=2, changes=change)
    monkeypatch.setenv("KIBITZ_BOTS", str(tmp_path))
    with pytest.raises(OptionError, match=f"levels file {path}: .*{message}"):
        levels.levels("yucata", 2)


def test_a_level_of_a_game_with_hidden_hands_may_not_see_every_hand(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = write_levels(tmp_path, "just4fun_colours", [2], levels=1)
    data = json.loads(path.read_text())
    data["ladders"][0]["levels"][0]["bot"] = "uct"
    path.write_text(json.dumps(data))
    monkeypatch.setenv("KIBITZ_BOTS", str(tmp_path))
    with pytest.raises(OptionError, match="level 1: uct sees every hand, and just4fun_colours hides some"):
        levels.levels("just4fun_colours", 2)


def test_levels_files_are_no_parameter_sets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write_levels(tmp_path, "yucata", [2], levels=2)
    monkeypatch.setenv("KIBITZ_BOTS", str(tmp_path))
    assert "levels" not in parameter_sets()["yucata"]
    with pytest.raises(OptionError, match="levels.json holds a game's difficulty levels"):
        write_parameter_set(tmp_path, "yucata", "levels", "uct", {"iterations": 10}, {}, {})


# -- strength ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("game_name", "games"), [("yucata", 60), ("yak", 16)])
def test_a_seeded_short_match_shows_level_3_beating_level_1(game_name: str, games: int) -> None:
    """Two players, seed 5: 60 games of Yucata', 16 of Yak (30 and 8 duplicate pairs). The
    lower end of the one-sided 95 % interval (the two-sided 90 % interval's) of level 3's Elo
    over level 1 is above 0."""
    game, players = kibitz.Game(game_name, players=2), ["level=3", "level=1"]
    result = kibitz.run_match(game, players, games=games, seed=5, processes=1)
    plan = MatchPlan(game, players, games, 5)
    one_sided = elo_estimate(plan.scores({r.index: r for r in result.records if r.index is not None}, 0), confidence=0.90)
    assert one_sided.low > 0, one_sided
