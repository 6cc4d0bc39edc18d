"""Self-play data (kibitz.selfplay): what a decision records, the shards and the manifest, resuming,
and independence from the number of processes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import kibitz
from kibitz import selfplay
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.selfplay import SHARD_ARRAYS, generate, load_data, read_shard, write_shard

J4FC = kibitz.Game("just4fun_colours", players=2)
SEARCH = "ismcts:iterations=60"


def test_a_shard_round_trips(tmp_path) -> None:
    rng = np.random.default_rng(0)
    arrays = {
        name: (
            rng.random((5, 2, 215))
            if name == "observations"
            else rng.random((5, 37))
            if name in ("legal", "policy")
            else rng.random((5, 2))
            if name == "returns"
            else rng.integers(0, 9, 5)
        ).astype(dtype)
        for name, dtype in SHARD_ARRAYS.items()
    }
    arrays["perfect_value"][1] = np.nan
    write_shard(tmp_path / "s.npz", arrays)
    back = read_shard(tmp_path / "s.npz")
    assert set(back) == set(arrays)
    for name, array in arrays.items():
        assert back[name].dtype == array.dtype
        np.testing.assert_array_equal(back[name], array)
    assert not list(tmp_path.glob("*.tmp*"))  # written whole, then renamed


def test_a_damaged_or_foreign_shard_is_refused(tmp_path) -> None:
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(OptionError, match="junk.npz: cannot read it"):
        read_shard(tmp_path / "junk.npz")
    np.savez(tmp_path / "old.npz", format=np.int32(0), action=np.zeros(3))
    with pytest.raises(OptionError, match="self-play format 0; this kibitz reads format 1"):
        read_shard(tmp_path / "old.npz")
    np.savez(tmp_path / "part.npz", format=np.int32(1), action=np.zeros(3))
    with pytest.raises(OptionError, match="it has no"):
        read_shard(tmp_path / "part.npz")


def test_each_decision_records_what_training_needs(tmp_path) -> None:
    summary = generate(J4FC, [SEARCH, "greedy"], games=2, seed=4, out=tmp_path, shard_games=1, perfect="uct:iterations=60")
    data = load_data(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["games"] == 2 and manifest["bots"] == [SEARCH, "greedy"] and manifest["observation_size"] == 215
    assert len(data) == summary.decisions == sum(s["decisions"] for s in manifest["shards"].values())
    rows = np.arange(len(data))
    assert data.legal[rows, data.action].all()  # the move played was legal
    assert np.allclose(data.policy.sum(1), 1) and not (data.policy[~data.legal] > 0).any()
    for g in (0, 1):  # the search sits at seat g in game g (the specs rotate): its decisions carry its visits and value
        mine = (data.game == g) & (data.seat == g)
        others = (data.game == g) & (data.seat != g)
        assert (data.policy[mine].max(1) < 1).any() and np.isfinite(data.search_value[mine]).any()
        assert (data.policy[others].max(1) == 1).all() and np.isnan(data.search_value[others]).all()
    finite = data.perfect_value[np.isfinite(data.perfect_value)]
    assert len(finite) > 0.8 * len(data) and ((finite >= 0) & (finite <= 1)).all()
    # Each row holds every seat's own view, and the final returns of its game.
    for row in (0, len(data) // 2):
        assert not np.array_equal(data.observations[row, 0], data.observations[row, 1])
    assert set(map(tuple, data.returns.tolist())) <= {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)}


def test_the_data_do_not_depend_on_processes_and_a_run_resumes(tmp_path) -> None:
    one = generate(J4FC, [SEARCH], games=3, seed=9, out=tmp_path / "one", shard_games=1)
    two = generate(J4FC, [SEARCH], games=3, seed=9, out=tmp_path / "two", shard_games=1, processes=2)
    assert one.decisions == two.decisions
    a, b = load_data(tmp_path / "one"), load_data(tmp_path / "two")
    for name in SHARD_ARRAYS:
        np.testing.assert_array_equal(a.arrays[name], b.arrays[name])
    # Nothing left to do; then more games add a shard, and a lost shard is played again, the same.
    assert generate(J4FC, [SEARCH], games=3, seed=9, out=tmp_path / "one", shard_games=1).shards_written == 0
    (tmp_path / "one" / selfplay.shard_name(1)).unlink()
    again = generate(J4FC, [SEARCH], games=4, seed=9, out=tmp_path / "one", shard_games=1)
    assert again.shards_written == 2 and again.games_played == 2
    np.testing.assert_array_equal(load_data(tmp_path / "one").observations[: len(a)], a.observations)
    with pytest.raises(OptionError, match="holds another data set: its seed 9"):
        generate(J4FC, [SEARCH], games=3, seed=10, out=tmp_path / "one", shard_games=1)


def test_bad_requests_are_refused_before_anything_runs(tmp_path) -> None:
    with pytest.raises(OptionError, match="needs a search of the full state"):
        generate(J4FC, [SEARCH], games=1, seed=1, out=tmp_path, perfect="ismcts:iterations=10")
    with pytest.raises(OptionError, match="unknown bot"):
        generate(J4FC, ["nobody"], games=1, seed=1, out=tmp_path)
    with pytest.raises(OptionError, match="no manifest.json"):
        load_data(tmp_path / "nowhere")


def test_selfplay_takes_allow_plugin_like_the_other_commands_that_take_specs(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(kibitz.plugins, "_allowed", set())
    command = ["selfplay", "yucata", "--bots", "ismcts:iterations=5,plugin=no_such_policy", "--games", "1", "--out", str(tmp_path)]
    assert main(command) == 2 and "plug-in 'no_such_policy' is not allowed" in capsys.readouterr().err
    assert main([*command, "--allow-plugin", "no_such_policy"]) == 2  # allowed now: it is imported, and is not there
    assert "plug-in 'no_such_policy': cannot import it" in capsys.readouterr().err


def test_selfplay_and_train_from_the_command_line(tmp_path, capsys) -> None:
    """The whole pipeline: data, a network with its learning curves, and a search that uses it."""
    data = tmp_path / "data"
    assert (
        main(
            [
                "selfplay",
                "just4fun_colours",
                "--bots",
                SEARCH,
                "--games",
                "3",
                "--seed",
                "2",
                "--out",
                str(data),
                "--shard-games",
                "2",
            ]
        )
        == 0
    )
    assert "3 games" in capsys.readouterr().out
    net, curves = tmp_path / "g1.kbnet", tmp_path / "g1.png"
    code = main(
        [
            "train",
            str(data),
            "--out",
            str(net),
            "--epochs",
            "2",
            "--hidden",
            "16",
            "--blocks",
            "1",
            "--validation",
            "0.34",
            "--plot",
            str(curves),
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["validation_samples"] > 0 and len(report["history"]) == 2 and curves.stat().st_size > 1000
    bot = kibitz.make_bot(f"ismcts:iterations=50,plugin={net}:evaluate,eval_depth=0", seed=1)
    state = J4FC.new_initial_state(3)
    while state.current_player < 0:
        state.apply(state.sample_chance(1))
    assert bot.act(state.view(state.current_player)) in state.legal_actions()
    assert main(["train", str(data), "--out", str(net), "--value-mix", "0.5"]) == 2  # no perfect values in these data
    assert "perfect_value" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "players"), [("yucata", 2), ("canasta_tiles", 4), ("yak", 4)])
def test_the_pipeline_runs_end_to_end_for_every_game(name: str, players: int, tmp_path, capsys) -> None:
    """Self-play, training and a search with the network, from the command line and from Python,
    for each game besides Just 4 Fun Colours (above): Yak's simultaneous Sunrise, tile Canasta's
    teams and 381 action ids. The command line and Python write the same network byte for byte."""
    from kibitz.learn import Network, TrainSettings, train
    from kibitz.match import play_game

    game, data, net = kibitz.Game(name, players=players), tmp_path / "data", tmp_path / "cli.kbnet"
    selfplay_args = ["--bots", "ismcts:iterations=20", "greedy", "--games", "2", "--shard-games", "1", "--seed", "1"]
    assert main(["selfplay", name, "--players", str(players), *selfplay_args, "--out", str(data), "--perfect", "uct:iterations=20"]) == 0
    recorded = load_data(data)
    meta = game.metadata
    assert recorded.observations.shape[1:] == (players, meta.observation_size) and recorded.legal.shape[1] == meta.max_actions
    assert recorded.legal[np.arange(len(recorded)), recorded.action].all() and set(recorded.seat) == set(range(players))
    searched = ~np.isnan(recorded.search_value)
    assert searched.any() and not np.isnan(recorded.perfect_value[searched]).any()
    assert main(["train", str(data), "--out", str(net), "--hidden", "8", "--epochs", "2", "--value-mix", "0.5", "--seed", "4"]) == 0
    capsys.readouterr()

    result = train(recorded, TrainSettings(hidden=8, epochs=2, value_mix=0.5, seed=4))
    assert result.network.to_bytes() == net.read_bytes()
    observations = recorded.observations[:, 0]
    values, _ = result.network.forward(observations)
    plugin = kibitz.plugins.load(str(net))
    for row in range(0, len(observations), max(1, len(observations) // 5)):
        np.testing.assert_allclose(plugin.evaluate(observations[row], 0, players), values[row], atol=1e-5)

    bots = [f"ismcts:iterations=30,plugin={net},eval_depth=2", *["greedy"] * (players - 1)]
    record = play_game(game, bots, seed=2)
    assert record.actions == play_game(game, bots, seed=2).actions and len(record.returns) == players
    assert record.actions != play_game(game, [bots[0].replace(f"plugin={net},", ""), *bots[1:]], seed=2).actions  # the network plays
    assert Network.load(net).architecture.game == name
