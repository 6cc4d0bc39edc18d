"""Tournaments (kibitz.match.MatchPlan, run_match, the referee's Tournament): tables of a round
robin or gauntlet, duplicate deals, participants that are Python objects, the SPRT's stop,
resuming after a kill, clocks and concurrent refereed games. Matches are tiny: greedy and
random bots, or small searches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import kibitz
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.game import CHANCE
from kibitz.match import MatchPlan, Participant, Scoreboard, derive_seed, initial_state, positions, run_match
from kibitz.records import GameRecord
from kibitz.referee import Clocks, EnginePlayer, TimeControl, Tournament, player
from kibitz.stats import SPRT

J4FC = kibitz.Game("just4fun_colours", players=2)
ENGINE = f"{sys.executable} -m kibitz engine"


def chance_outcomes(record: GameRecord) -> list[int]:
    """The chance outcomes of a recorded game, in order."""
    return [action for state, action in positions(record) if state.current_player == CHANCE]


# -- plans -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), [(J4FC, 2), (kibitz.Game("just4fun_colours", players=3), 3), (kibitz.Game("canasta_tiles"), 2)])
def test_a_duplicate_unit_gives_every_player_every_seat_once_on_one_deal(game: kibitz.Game, players: int) -> None:
    plan = MatchPlan(game, [f"p{i}" for i in range(players)], games=3 * players, seed=5)
    assert plan.unit_games == players
    for u in range(3):
        games = list(plan.unit_indices(u))
        assert {plan.game_seed(g) for g in games} == {derive_seed(5, "deal", u)}  # one deal
        assert len({plan.bots_seed(g) for g in games}) == players  # fresh bots each time
        for seat in range(game.num_players):
            assert sorted(plan.seats(g)[seat] for g in games) == list(range(players))


def test_in_a_team_game_a_table_is_one_player_per_team() -> None:
    """Tile Canasta: a participant holds both seats of a team, so a ladder of five meets in
    pairs, each duplicate deal played once from each side, and is rated on one Elo scale."""
    names = ["a", "b", "c", "d", "e"]
    plan = MatchPlan(kibitz.Game("canasta_tiles"), names, 14, 0, schedule="ladder")
    assert plan.tables == [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4)]
    assert plan.unit_games == 2
    assert [plan.seats(g) for g in range(4)] == [[0, 1, 0, 1], [1, 0, 1, 0], [0, 2, 0, 2], [2, 0, 2, 0]]


def test_fewer_players_than_seats_hold_each_seat_equally_often() -> None:
    plan = MatchPlan(kibitz.Game("just4fun_colours", players=3), ["a", "b"], games=2, seed=1)
    assert [plan.seats(g) for g in range(2)] == [[0, 1, 0], [1, 0, 1]]


def test_round_robin_and_gauntlet_tables() -> None:
    names = ["a", "b", "c", "d"]
    assert MatchPlan(J4FC, names, 12, 0).tables == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert MatchPlan(J4FC, names, 6, 0, schedule="gauntlet").tables == [(0, 1), (0, 2), (0, 3)]
    three = kibitz.Game("just4fun_colours", players=3)
    assert MatchPlan(three, names, 6, 0, schedule="gauntlet").tables == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]
    # units visit the tables in turn: the gauntlet's 6 games are one pair at each table
    plan = MatchPlan(J4FC, names, 6, 0, schedule="gauntlet")
    assert [sorted(plan.seats(g)) for g in range(6)] == [[0, 1], [0, 1], [0, 2], [0, 2], [0, 3], [0, 3]]


def test_ladder_tables_link_each_player_to_the_next_ones() -> None:
    names = ["a", "b", "c", "d", "e"]
    assert MatchPlan(J4FC, names, 10, 0, schedule="ladder").tables == [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4)]
    four = kibitz.Game("just4fun_colours", players=4)
    tables = MatchPlan(four, names + ["f"], 10, 0, schedule="ladder").tables
    assert tables[0] == (0, 1, 2, 3) and (1, 2, 3, 5) in tables and all(max(t) - min(t) <= 4 for t in tables)
    assert MatchPlan(J4FC, ["a", "b"], 2, 0, schedule="ladder").tables == [(0, 1)]


def test_players_at_tables_of_two_are_rated_on_one_elo_scale_at_the_anchor() -> None:
    game = kibitz.Game("yucata", players=2)
    players = ["random", "greedy", "uct:iterations=200"]
    result = run_match(game, players, games=24, seed=3, processes=1, schedule="ladder", anchor="greedy")
    rnd, greedy, search = (bot.scale for bot in result.bots)
    assert result.anchor == "greedy" and greedy is not None and greedy.elo == 0
    assert rnd is not None and search is not None and rnd.elo < 0 < search.elo
    assert "scale" in [c.header for c in result.table().columns]
    assert json.loads(json.dumps(result.to_dict()))["bots"][2]["scale"]["elo"] == pytest.approx(search.elo)
    with pytest.raises(OptionError, match="anchor 'expert' is not one of the players"):
        MatchPlan(game, ["random", "greedy"], 2, 0, anchor="expert")


def test_players_at_tables_of_four_are_rated_on_one_elo_scale_at_the_anchor() -> None:
    game = kibitz.Game("yucata", players=4)
    players = ["random", "greedy", "uct:iterations=200", "random"]
    result = run_match(game, players, games=32, seed=3, processes=1, anchor="greedy")
    scales = [bot.scale for bot in result.bots]
    assert result.anchor == "greedy" and all(s is not None for s in scales)
    rnd, greedy, search, _ = (s for s in scales if s is not None)
    assert greedy.elo == 0 and rnd.high < 0 and rnd.elo < search.elo  # random places below greedy and the search
    assert [s.games for s in scales if s] == [32] * 4 and "scale" in [c.header for c in result.table().columns]


def test_without_duplicates_each_game_has_its_own_deal() -> None:
    plan = MatchPlan(J4FC, ["a", "b"], 4, 3, duplicate=False)
    assert [plan.game_seed(g) for g in range(4)] == [derive_seed(3, g) for g in range(4)]
    assert [plan.seats(g) for g in range(4)] == [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert plan.bots_seed(0) is None and plan.unit_games == 1


# -- duplicate deals ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", [J4FC, kibitz.Game("canasta_tiles")], ids=["just4fun_colours", "canasta_tiles"])
def test_duplicate_deals_replay_the_same_deal_and_chance_with_the_seats_permuted(game: kibitz.Game, tmp_path: Path) -> None:
    result = run_match(game, ["greedy", "random"], games=4, seed=2, processes=1, record_path=str(tmp_path / "r.jsonl"))
    for first, second in (result.records[0:2], result.records[2:4]):
        assert first.seed == second.seed and first.bots_seed != second.bots_seed
        assert initial_state(game, first.seed) == initial_state(game, second.seed)
        assert first.specs == second.specs[1:] + second.specs[:1]  # the seats shifted by one
        # the k-th draw comes from the k-th chance seed and the piles only lose what is drawn,
        # so both games draw the same cards in the same order, as long as both go on drawing
        a, b = chance_outcomes(first), chance_outcomes(second)
        common = min(len(a), len(b))
        assert common > 5 and a[:common] == b[:common]
        assert first.actions != second.actions  # other players, another game


def test_the_same_deal_and_bots_play_the_same_game() -> None:
    # the chance stream belongs to the deal: two self-play games of one deal with the same bot
    # seeds are the same game, whatever the seat labels
    plan = MatchPlan(J4FC, ["greedy#1", "greedy#2"], 2, 4)
    one = run_match(J4FC, ["greedy", "greedy"], games=2, seed=4, processes=1).records
    assert plan.seat_labels(0) == one[0].specs and one[0].seed == one[1].seed


# -- participants ------------------------------------------------------------------------------


class CountingBot:
    """A Bot object with state: each game must start from a fresh copy."""

    name = "counting"
    sees_everything = False

    def __init__(self) -> None:
        self.moves = 0

    def act(self, view: kibitz.View) -> int:
        self.moves += 1
        return view.state().legal_actions()[0]


def test_python_participants_with_names_play_in_worker_processes() -> None:
    counting = CountingBot()
    players = [
        Participant(kibitz.SearchParams(iterations=30, c=1.0), name="tiny"),
        counting,
        Participant(lambda seed: kibitz.RandomBot(seed), name="rnd"),
        "greedy:name=g",
    ]
    one = run_match(J4FC, players, games=12, seed=3, processes=1)
    two = run_match(J4FC, players, games=12, seed=3, processes=2)
    assert [b.label for b in one.bots] == ["tiny", "counting", "rnd", "g"]
    assert one.records == two.records and one.to_dict() == two.to_dict()
    assert counting.moves == 0  # it played as copies
    assert Counter(label for r in one.records for label in r.specs) == {"tiny": 6, "counting": 6, "rnd": 6, "g": 6}
    assert Participant.parse("ismcts:c=1.2,name=wide,iterations=50") == Participant("ismcts:c=1.2,iterations=50", "wide")


def test_three_players_get_ratings_and_seat_win_rates() -> None:
    game = kibitz.Game("just4fun_colours", players=3)
    result = run_match(game, ["greedy", "random", "greedy:name=g2"], games=6, seed=1, processes=1)
    greedy, rnd, _ = result.bots
    assert greedy.rating is not None and rnd.rating is not None and greedy.rating.mu > rnd.rating.mu
    assert len(greedy.seat_win_rates) == 3 and result.baseline == pytest.approx(1 / 3)
    shares = [r.returns[0] for r in result.records if r.specs[0] == "greedy"]
    assert greedy.seat_win_rates[0] == kibitz.match.wilson_ci(shares)
    assert result.seat_table() is not None and "rating" in [c.header for c in result.table().columns]
    data = json.loads(json.dumps(result.to_dict()))
    assert data["bots"][0]["rating"]["mu"] == pytest.approx(greedy.rating.mu)


# -- the SPRT ----------------------------------------------------------------------------------


def test_an_sprt_stops_the_match_when_decided_whatever_the_processes(tmp_path: Path) -> None:
    sprt = SPRT(elo0=0, elo1=200)
    one = run_match(J4FC, ["greedy", "random"], games=200, seed=1, processes=1, sprt=sprt, record_path=str(tmp_path / "a.jsonl"))
    two = run_match(J4FC, ["greedy", "random"], games=200, seed=1, processes=2, sprt=sprt, record_path=str(tmp_path / "b.jsonl"))
    assert one.sprt is not None and one.sprt.decision == "H1" and one.sprt.llr >= sprt.upper
    assert one.games < 200 and one.games % 2 == 0 and one.records == two.records
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    assert len(lines) == one.games == len((tmp_path / "b.jsonl").read_text().splitlines())
    # resumed: decided already, nothing is played or written
    again = run_match(J4FC, ["greedy", "random"], games=200, seed=1, processes=2, sprt=sprt, record_path=str(tmp_path / "a.jsonl"))
    assert again.records == one.records and (tmp_path / "a.jsonl").read_text().splitlines() == lines
    assert "H1 accepted" in one.summary()


def test_the_sprt_of_equal_players_accepts_h0() -> None:
    result = run_match(J4FC, ["random", "random"], games=400, seed=2, processes=1, sprt=SPRT(elo0=0, elo1=300))
    assert result.sprt is not None and result.sprt.decision == "H0" and result.games < 400


# -- resuming after kill -9 --------------------------------------------------------------------


def test_a_match_killed_with_sigkill_resumes_to_the_same_result(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    argv = [sys.executable, "-m", "kibitz", "match", "just4fun_colours", "--bots", "ismcts:iterations=300", "greedy"]
    argv += ["--games", "12", "--seed", "7", "--processes", "1", "--json", "--out", str(path)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while process.poll() is None and (not path.exists() or len(path.read_text().splitlines()) < 3):
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    kept = len(path.read_text().splitlines())
    assert main(argv[3:]) == 0
    whole = run_match(kibitz.Game("just4fun_colours"), ["ismcts:iterations=300", "greedy"], games=12, seed=7, processes=1, record_path=str(tmp_path / "w.jsonl"))
    resumed = [GameRecord.from_json(line) for line in path.read_text().splitlines()]
    assert kept >= 3 and resumed == whole.records


# -- the referee -------------------------------------------------------------------------------


def test_players_read_cutechess_style_engines_and_named_bots() -> None:
    assert player("engine:kibitz engine") == EnginePlayer("kibitz engine")
    assert player("cmd='kibitz engine' name=mine option.Exploration=1.5") == EnginePlayer("kibitz engine", "mine", {"Exploration": "1.5"})
    assert player("greedy:name=g") == Participant("greedy", "g")
    for text, named in [("cmd=", "cmd=<command> is missing"), ("cmd=x colour=red", "got 'colour=red'"), ("engine:", "needs a command")]:
        with pytest.raises(OptionError, match=named):
            player(text)


def test_engine_options_reach_the_engine_and_a_bad_one_forfeits_at_start() -> None:
    fast = {"movetime_ms": 5000, "margin_ms": 5000, "iterations": 100}
    good = Tournament(J4FC, [f"cmd='{ENGINE}' name=wide option.Exploration=2.5", "random"], games=2, seed=1, **fast).run()
    assert [b.label for b in good.bots] == ["wide", "random"] and all(r.adjudication is None for r in good.records)
    bad = Tournament(J4FC, [f"cmd='{ENGINE}' option.Exploration=500", "random"], games=1, seed=1, **fast).run()
    (record,) = bad.records
    assert record.adjudication is not None and "Exploration" in record.adjudication["reason"]


def test_clocks_send_every_seats_time_and_charge_the_mover() -> None:
    control = TimeControl.parse("2+0.25")
    assert control == TimeControl(2000, 250) and str(control) == "2+0.25"
    clocks = Clocks(control, 3)
    clocks.charge(1, 700.4)
    assert clocks.go_words() == ["s0time", "2000", "s1time", "1550", "s2time", "2000", "s0inc", "250", "s1inc", "250", "s2inc", "250"]
    clocks.charge(1, 5000)  # an overrun within the margin empties the clock; the increment is added
    assert clocks.left[1] == 250
    for text in ("x", "0", "5+-1", "1e12"):
        with pytest.raises(OptionError, match="time control"):
            TimeControl.parse(text)


def test_an_engine_that_outlasts_its_clock_loses_on_time() -> None:
    hang = f"engine:{sys.executable} {Path(__file__).with_name('broken_engine.py')} hang 2"
    t = Tournament(J4FC, [hang, "greedy"], games=1, seed=3, time_control=TimeControl(300, 0), margin_ms=200)
    (record,) = t.run().records
    assert record.adjudication is not None and record.adjudication["reason"].startswith("lost on time")


def test_concurrent_refereed_games_give_the_same_records(tmp_path: Path) -> None:
    players = [f"engine:{ENGINE}", "greedy", "random"]
    fast = {"movetime_ms": 5000, "margin_ms": 5000, "iterations": 50}
    one = Tournament(J4FC, players, games=6, seed=2, results_path=str(tmp_path / "1.jsonl"), **fast).run()
    three = Tournament(J4FC, players, games=6, seed=2, concurrency=3, results_path=str(tmp_path / "3.jsonl"), **fast).run()
    assert one.records == three.records
    assert (tmp_path / "1.jsonl").read_text() == (tmp_path / "3.jsonl").read_text()
    assert [b.games for b in one.bots] == [4, 4, 4]


def test_referee_out_resumes_like_results_and_the_cli_reads_the_new_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.jsonl"
    argv = ["referee", "just4fun_colours", "--bots", "greedy", "random", "--games", "4", "--json"]
    assert main([*argv, "--out", str(path), "--concurrency", "2"]) == 0
    assert main([*argv, "--results", str(path)]) == 0
    first, second = capsys.readouterr().out.split("\n}\n", 1)
    assert json.loads(first + "}") == json.loads(second) and len(path.read_text().splitlines()) == 4
    assert main(["match", "just4fun_colours", "--bots", "greedy", "random", "--sprt", "elo0=5", "elo1=0"]) == 2
    assert "elo0 must be below elo1" in capsys.readouterr().err
    assert main(["match", "just4fun_colours", "--bots", "greedy", "random", "--games", "4", "--no-duplicate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["duplicate"] is False


def test_the_progress_status_is_the_first_players_running_score_elo_and_llr() -> None:
    result = run_match(J4FC, ["greedy", "random"], 12, seed=3, processes=1)
    plan = MatchPlan(J4FC, ["greedy", "random"], 12, 3)
    board = Scoreboard(plan, {}, SPRT(0, 50))
    assert board.status() == ""
    records = {r.index: r for r in result.records}
    board.add(records[1])  # the second game of the first pair: the pair is not complete yet
    assert board.status() == ""
    board.add(records[0])
    assert board.status().startswith("greedy: score ") and "Elo" not in board.status()
    for g in range(2, 12):
        board.add(records[g])
    elo = result.bots[0].elo
    assert elo is not None and board.sprt_result is not None
    expected = f"greedy: score {100 * elo.score:.1f} %, Elo {elo.elo:+.0f} ±{elo.error:.0f}, LLR {board.sprt_result.llr:+.2f}"
    assert board.status() == expected
