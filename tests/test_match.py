"""Tests of kibitz.match: statistics, seat rotation, determinism, records and replay."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import json
import math
import re
import socket
import sys
from collections import Counter

import pytest

import kibitz
from kibitz.match import (
    Z_95,
    bot_labels,
    derive_seed,
    mean_ci,
    play_bots,
    play_game,
    positions,
    replay,
    run_match,
    seat_assignment,
    standard_error,
)
from kibitz.records import GameRecord

GAME = "just4fun_colours"


@pytest.fixture(scope="module")
def two_players() -> kibitz.Game:
    return kibitz.Game(GAME, players=2)


@pytest.fixture(scope="module")
def record(two_players: kibitz.Game) -> GameRecord:
    return play_game(two_players, ["ismcts:iterations=50", "greedy"], seed=11)


# -- statistics -------------------------------------------------------------------------------


def test_standard_error_by_hand() -> None:
    # mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, s^2 = 32/7, se = sqrt(32/7/8) = sqrt(4/7)
    assert standard_error([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(math.sqrt(4 / 7))


def test_mean_ci_by_hand() -> None:
    # mean 0.75; deviations 0.25, -0.75, 0.25, 0.25: s^2 = 0.75/3 = 0.25, s = 0.5, se = 0.5/2
    estimate = mean_ci([1, 0, 1, 1])
    assert estimate.mean == 0.75
    assert estimate.low == pytest.approx(0.75 - 0.25 * 1.959964)
    assert estimate.high == pytest.approx(0.75 + 0.25 * 1.959964)
    assert mean_ci([1, 0, 1, 1], z=1.0).high == pytest.approx(1.0)
    assert Z_95 == pytest.approx(1.959964, abs=1e-6)


def test_mean_ci_edge_cases() -> None:
    assert mean_ci([3.0]) == kibitz.match.Estimate(3.0, None, None)
    assert mean_ci([1.0, 1.0, 1.0]).low == mean_ci([1.0, 1.0, 1.0]).high == 1.0
    assert mean_ci([0.5]).to_dict() == {"mean": 0.5, "low": None, "high": None}
    with pytest.raises(ValueError, match="no values"):
        mean_ci([])
    with pytest.raises(ValueError, match="at least 2"):
        standard_error([1.0])


def test_wilson_ci_by_hand() -> None:
    # 10 wins in 10 games, z = 1.96: centre (1 + 1.9208/10) / 1.38415 = 0.86122, half-width
    # 1.96 * sqrt(0 + 3.8415/400) / 1.38415 = 0.13878, so 0.72244 .. 1.0
    estimate = kibitz.match.wilson_ci([1.0] * 10)
    assert estimate.mean == 1.0
    assert estimate.low == pytest.approx(0.72244, abs=1e-4)
    assert estimate.high == pytest.approx(1.0)
    # 5 of 10: symmetric around 0.5, half-width 1.96 * sqrt(0.025 + 0.0096) / 1.38415 = 0.2634
    half = kibitz.match.wilson_ci([1.0, 0.0] * 5)
    assert half.low == pytest.approx(0.5 - 0.26340, abs=1e-4)
    assert half.high == pytest.approx(0.5 + 0.26340, abs=1e-4)
    # a shared win counts its fraction
    assert kibitz.match.wilson_ci([0.5, 0.5]).mean == 0.5
    assert kibitz.match.wilson_ci([1.0]).low is None


def test_bot_labels_number_repeated_specs() -> None:
    assert bot_labels(["greedy", "random", "greedy"]) == ["greedy#1", "random", "greedy#2"]
    assert bot_labels(["greedy", "random"]) == ["greedy", "random"]


def test_derive_seed_is_stable_and_63_bit() -> None:
    assert derive_seed(1, "deal") == derive_seed(1, "deal")
    assert len({derive_seed(1, "deal"), derive_seed(2, "deal"), derive_seed(1, "chance", 0), derive_seed(1, 0)}) == 4
    assert all(0 <= derive_seed(seed, "bot", 3) < 1 << 63 for seed in range(50))


# -- seats ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("num_bots", "num_seats"), [(2, 2), (2, 3), (3, 3), (2, 4), (3, 4), (4, 4)])
def test_rotation_gives_every_bot_every_seat_equally_often(num_bots: int, num_seats: int) -> None:
    games = 3 * num_bots
    counts = Counter(
        (bot, seat) for g in range(games) for seat, bot in enumerate(seat_assignment(num_bots, num_seats, g))
    )
    per_seat = [[counts[bot, seat] for seat in range(num_seats)] for bot in range(num_bots)]
    assert {n for row in per_seat for n in row} == {3}


def test_without_rotation_seats_stay_fixed() -> None:
    assert {tuple(seat_assignment(2, 3, g, rotate=False)) for g in range(5)} == {(0, 1, 0)}


def test_match_rotates_bots_over_seats(two_players: kibitz.Game) -> None:
    result = run_match(two_players, ["random", "greedy"], games=4, seed=5, processes=1)
    seats = Counter((seat, spec) for record in result.records for seat, spec in enumerate(record.specs))
    assert seats == {(0, "random"): 2, (0, "greedy"): 2, (1, "random"): 2, (1, "greedy"): 2}


# -- one game ---------------------------------------------------------------------------------


def test_same_seed_same_game(two_players: kibitz.Game, record: GameRecord) -> None:
    assert play_game(two_players, ["ismcts:iterations=50", "greedy"], seed=11) == record
    assert play_game(two_players, ["ismcts:iterations=50", "greedy"], seed=12).actions != record.actions


def test_record_holds_the_whole_game(two_players: kibitz.Game, record: GameRecord) -> None:
    assert record.game == GAME and record.options == {"players": "2"} and record.seed == 11
    assert record.specs == ["ismcts:iterations=50", "greedy"]
    assert len(record.actions) == len(record.moves) > 0
    assert sorted(record.ranks) in ([1, 2], [1, 1])
    assert math.fsum(record.returns) == 1.0
    assert play_game(two_players, ["random", "greedy"], seed=3, record=False).actions == []


def test_record_json_round_trip(record: GameRecord) -> None:
    line = record.to_json()
    assert "\n" not in line
    assert json.loads(line)["moves"] == record.moves
    assert GameRecord.from_json(line) == record
    with pytest.raises(ValueError, match="not a game record"):
        GameRecord.from_json('{"game": "just4fun_colours"}')
    with pytest.raises(ValueError, match="not a game record"):
        GameRecord.from_json("not json")


def test_replay_rebuilds_the_final_state(two_players: kibitz.Game, record: GameRecord) -> None:
    final = replay(GameRecord.from_json(record.to_json()))
    assert final.is_terminal()
    assert final.returns() == record.returns
    assert final.scores() == record.scores
    assert final.ranks() == record.ranks
    # the moves are applied exactly: replaying by text gives the same state
    state = two_players.new_initial_state(derive_seed(record.seed, "deal"))
    for move in record.moves:
        state.apply(move)
    assert state == final


def test_replay_detects_a_tampered_result(record: GameRecord) -> None:
    tampered = dataclasses.replace(record, returns=list(reversed(record.returns)))
    with pytest.raises(ValueError, match="replayed returns"):
        replay(tampered)


def test_replay_detects_tampered_moves(record: GameRecord) -> None:
    with pytest.raises(ValueError, match="not over"):
        replay(dataclasses.replace(record, actions=record.actions[:-1], moves=record.moves[:-1]))
    with pytest.raises(ValueError, match="the record says"):
        replay(dataclasses.replace(record, moves=["?", *record.moves[1:]]))
    with pytest.raises(ValueError, match="ended after"):
        replay(dataclasses.replace(record, actions=[*record.actions, 0], moves=[*record.moves, "a1"]))


def test_positions_give_each_recorded_action_its_own_position(record: GameRecord) -> None:
    walked = list(positions(record))
    assert [state.move_to_string(action) for state, action in walked] == record.moves
    assert any(state.is_chance() for state, _ in walked) and not any(state.is_terminal() for state, _ in walked)
    for (state, action), (following, _) in itertools.pairwise(walked):
        assert action in state.legal_actions() or state.is_chance()
        state.apply(action)  # each position is a state of its own, one action before the next
        assert state == following
    last, action = walked[-1]
    last.apply(action)
    assert last == replay(record)
    with pytest.raises(ValueError, match="the record says"):
        list(positions(dataclasses.replace(record, moves=[*record.moves[:3], "?", *record.moves[4:]])))


def test_positions_of_a_simultaneous_game_share_the_joint_move_s_position() -> None:
    yak = play_game(kibitz.Game("yak", players=3), ["random", "random", "random"], seed=5)
    walked = list(positions(yak))
    assert [state.move_to_string(action) for state, action in walked] == yak.moves
    joint = [i for i, (state, _) in enumerate(walked) if state.is_simultaneous()]
    assert joint, "a game of Yak has simultaneous nodes"
    first = joint[0]
    seats = walked[first][0].choosing_seats()
    assert len(seats) > 1
    for k, seat in enumerate(seats):  # one position per choosing seat, the same one, before the joint move
        state, action = walked[first + k]
        assert state == walked[first][0] and state.move_to_string(action) in state.legal_moves_for(seat)


class _FixedMoveBot:
    """Always plays the same move, legal or not."""

    name = "fixed"
    sees_everything = False

    def __init__(self, move: int | str) -> None:
        self.move = move

    def act(self, view: kibitz.View) -> int | str:
        return self.move


def test_an_illegal_bot_move_names_the_bot_and_the_move(two_players: kibitz.Game) -> None:
    with pytest.raises(kibitz.IllegalMoveError, match=r"bot 'fixed' at seat \d played 999"):
        play_bots(two_players, [_FixedMoveBot(999), _FixedMoveBot(999)], seed=1)
    with pytest.raises(kibitz.NotationError, match=r"bot 'liar' at seat \d played 'zz'"):
        play_bots(two_players, [_FixedMoveBot("zz"), _FixedMoveBot("zz")], seed=1, labels=["liar", "liar"])


def test_bots_get_their_view_unless_they_see_everything(two_players: kibitz.Game) -> None:
    received: dict[str, set[type]] = {"view": set(), "state": set()}

    class Recorder:
        def __init__(self, name: str, sees_everything: bool) -> None:
            self.name = name
            self.sees_everything = sees_everything

        def act(self, seen: kibitz.View | kibitz.State) -> int:
            received[self.name].add(type(seen))
            state = seen if isinstance(seen, kibitz.State) else seen.state()
            return state.legal_actions()[0]

    play_bots(two_players, [Recorder("view", False), Recorder("state", True)], seed=2)
    assert received == {"view": {kibitz.View}, "state": {kibitz.State}}


# -- matches ----------------------------------------------------------------------------------


def test_match_is_the_same_with_one_or_two_processes(two_players: kibitz.Game, tmp_path) -> None:
    specs = ["random", "greedy"]
    one = run_match(two_players, specs, games=6, seed=9, processes=1, record_path=str(tmp_path / "one.jsonl"))
    two = run_match(two_players, specs, games=6, seed=9, processes=2, record_path=str(tmp_path / "two.jsonl"))
    assert one.records == two.records
    assert one.to_dict() == two.to_dict()
    lines = (tmp_path / "one.jsonl").read_text().splitlines()
    assert lines == (tmp_path / "two.jsonl").read_text().splitlines()
    assert [GameRecord.from_json(line) for line in lines] == one.records
    # duplicate deals: a pair shares its deal's seed; the bots of game g are seeded from (9, g)
    assert [record.seed for record in one.records] == [derive_seed(9, "deal", g // 2) for g in range(6)]
    assert [record.bots_seed for record in one.records] == [derive_seed(9, g) for g in range(6)]


def test_a_match_resumes_from_its_record_file(two_players: kibitz.Game, tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    first = run_match(two_players, ["random", "greedy"], games=2, seed=1, processes=1, record_path=str(path))
    written = path.read_text().splitlines()
    # run again with more games: only games 2 and 3 are played, none twice
    again = run_match(two_players, ["random", "greedy"], games=4, seed=1, processes=2, record_path=str(path))
    lines = path.read_text().splitlines()
    assert lines[:2] == written and [GameRecord.from_json(line).index for line in lines] == [0, 1, 2, 3]
    in_one_go = run_match(two_players, ["random", "greedy"], 4, 1, processes=1, record_path=str(tmp_path / "one.jsonl"))
    assert again.records[:2] == first.records and again.records == in_one_go.records and again.to_dict() == in_one_go.to_dict()
    assert sum(b.games for b in again.bots) == 8
    run_match(two_players, ["random", "greedy"], games=4, seed=1, processes=1, record_path=str(path))
    assert path.read_text().splitlines() == lines  # nothing left to play
    for record in again.records:
        replay(record)
    # another match's file is refused, and left as it was
    for other in ({"seed": 2, "games": 4}, {"seed": 1, "games": 3}):
        with pytest.raises(kibitz.OptionError, match="line [14] is not a game of this match"):
            run_match(two_players, ["random", "greedy"], processes=1, record_path=str(path), **other)
    with pytest.raises(kibitz.OptionError, match="line 1 is not a game of this match"):
        run_match(two_players, ["greedy", "random"], games=4, seed=1, processes=1, record_path=str(path))
    assert path.read_text().splitlines() == lines


def test_match_statistics_add_up(two_players: kibitz.Game) -> None:
    result = run_match(two_players, ["greedy", "random"], games=4, seed=3, processes=1)
    greedy, random_bot = result.bots
    assert (greedy.label, random_bot.label) == ("greedy", "random")
    assert greedy.games == random_bot.games == 4
    assert greedy.win_share + random_bot.win_share == pytest.approx(4.0)
    for bot in result.bots:
        shares = [sum(r.returns[s] for s, spec in enumerate(r.specs) if spec == bot.spec) for r in result.records]
        assert bot.wins == sum(1 for share in shares if share == 1.0)
        assert bot.shared_wins == sum(1 for share in shares if 0 < share < 1)
        assert bot.win_rate == kibitz.match.wilson_ci(shares)
        ranks = [r.ranks[s] for r in result.records for s, spec in enumerate(r.specs) if spec == bot.spec]
        assert bot.mean_rank == mean_ci(ranks)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert [bot["label"] for bot in data["bots"]] == ["greedy", "random"]
    assert result.table().row_count == 2


def test_fewer_bots_than_seats_share_the_seats() -> None:
    game = kibitz.Game(GAME, players=3)
    result = run_match(game, ["greedy", "greedy"], games=2, seed=4, processes=1)
    assert [bot.label for bot in result.bots] == ["greedy#1", "greedy#2"]
    assert [bot.games for bot in result.bots] == [2, 2]
    # each game's win goes to one bot or is split between the two
    assert sum(bot.win_share for bot in result.bots) == pytest.approx(2.0)


def test_match_rejects_bad_input(two_players: kibitz.Game) -> None:
    with pytest.raises(kibitz.OptionError, match="at least 2 players, got 1"):
        run_match(two_players, ["random"], games=2, seed=1)
    with pytest.raises(kibitz.OptionError, match="schedule 'swiss'"):
        run_match(two_players, ["random", "greedy"], games=2, seed=1, schedule="swiss")
    with pytest.raises(kibitz.OptionError, match="an SPRT compares two players; this match has 3"):
        run_match(two_players, ["random", "greedy", "random"], games=2, seed=1, sprt=kibitz.stats.SPRT())
    with pytest.raises(kibitz.OptionError, match="nosuchbot"):
        run_match(two_players, ["random", "nosuchbot"], games=2, seed=1)
    with pytest.raises(kibitz.OptionError, match="at least 1 game"):
        run_match(two_players, ["random", "greedy"], games=0, seed=1)
    with pytest.raises(kibitz.OptionError, match="processes"):
        run_match(two_players, ["random", "greedy"], games=2, seed=1, processes=0)
    with pytest.raises(kibitz.OptionError, match="needs 2 bots, got 3"):
        play_game(two_players, ["random", "greedy", "random"], seed=1)


def test_a_bot_holding_both_seats_of_the_winning_team_has_the_whole_win():
    from kibitz.match import _bot_outcome

    record = GameRecord("g", {}, 0, ["a", "b", "a", "b"], [], [], [1.0, 0.0, 1.0, 0.0], [50, -20, 50, -20], [1, 2, 1, 2])
    teams = [0, 1, 0, 1]  # partners sit opposite and share the team's result
    assert _bot_outcome(record, [0, 1, 0, 1], 0, teams) == (1.0, 1.0, 50.0)
    assert _bot_outcome(record, [0, 1, 0, 1], 1, teams) == (0.0, 2.0, -20.0)
    # three bots: the two who share the winning team share the win
    assert _bot_outcome(record, [0, 1, 2, 0], 0, teams)[0] == 0.5
    assert _bot_outcome(record, [0, 1, 2, 0], 2, teams)[0] == 0.5


def test_the_table_prints_shares_alike_negative_intervals_clearly_and_long_labels_whole(capsys, monkeypatch) -> None:
    from kibitz.cli import _print_result
    from kibitz.match import BotStats, Estimate, MatchResult

    long_label = "ismcts:iterations=5000,c=0.7,epsilon=0.1,rollout=heuristic,threads=2,final=visits"
    rate = Estimate(0.5, 0.4, 0.6)

    def bot(label: str, share: float, score: Estimate) -> BotStats:
        return BotStats(label, label, False, 100, 40, 10, share, rate, Estimate(1.5, 1.4, 1.6), score)

    bots = [bot(long_label, 130 / 3, Estimate(-2.62, -3.57, -1.67)), bot("greedy", 7.83333, Estimate(3.0, 2.0, 4.0)), bot("random", 13.5, rate)]
    result = MatchResult("canasta_tiles", {}, 0, 100, bots, [])
    monkeypatch.setenv("COLUMNS", "80")  # piped to a narrow reader: still nothing cut
    _print_result(result, as_json=False)
    out = capsys.readouterr().out
    assert long_label in out and "…" not in out
    assert "-2.62 -3.57..-1.67" in out
    shares = re.findall(r"\s(\d+\.\d+)\s+50\.0 40\.0\.\.60\.0", out)
    assert shares == ["43.33", "7.83", "13.50"]


# -- the Ray backend's errors (tests/test_ray.py plays on Ray) -----------------------------------

RAY_MATCH = ["match", GAME, "--players", "2", "--bots", "greedy", "random", "--games", "2", "--backend", "ray"]


def ray_match_error(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """What ``kibitz match … --backend ray`` says on stderr; it must fail as bad input (exit 2)."""
    from kibitz.cli import main

    assert main([*RAY_MATCH, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line, no traceback
    return err


def test_ray_that_is_missing_or_does_not_import_is_named(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only ModuleNotFoundError was caught: a Ray install whose import fails otherwise ended in a
    traceback."""
    monkeypatch.setitem(sys.modules, "ray", None)  # not installed
    assert ray_match_error(capsys) == "error: the ray backend needs Ray: pip install 'kibitz[ray]'\n"
    monkeypatch.delitem(sys.modules, "ray")
    fake = tmp_path / "ray"
    fake.mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    for broken, reason in [("raise ImportError('libray.so: cannot open shared object file')", "ImportError: libray.so: cannot open shared object file"),
                           ("raise AttributeError('module has no attribute _raylet')", "AttributeError: module has no attribute _raylet"),
                           ("import ray_dependency_that_is_gone", "it needs the module 'ray_dependency_that_is_gone'")]:
        (fake / "__init__.py").write_text(broken + "\n")
        importlib.invalidate_caches()
        err = ray_match_error(capsys)
        assert err.startswith("error: the ray backend: Ray ") and reason in err and "reinstall it: pip install 'kibitz[ray]'" in err


def test_a_ray_address_that_cannot_work_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A ray:// address without Ray Client ended in a ValueError traceback, and a cluster that does
    not answer made Ray retry for many minutes."""
    pytest.importorskip("ray", reason="the ray backend needs Ray (pip install 'kibitz[ray]')")
    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    err = ray_match_error(capsys, "--address", f"127.0.0.1:{port}")
    assert err.startswith(f"error: --address 127.0.0.1:{port}: the Ray cluster cannot be reached (Connection refused); start one there")
    monkeypatch.setitem(sys.modules, "grpc", None)  # what ray[client] adds
    err = ray_match_error(capsys, "--address", f"ray://127.0.0.1:{port}")
    assert err == f"error: --address ray://127.0.0.1:{port}: a ray:// address needs Ray Client: pip install 'ray[client]'\n"
