"""The learned evaluator: the numpy network's gradients and training, the network file, and the
C++ evaluator inside the search (kibitz.learn, csrc/learn/)."""

from __future__ import annotations

import re
import struct
import zlib

import numpy as np
import pytest

import kibitz
from kibitz import plugins
from kibitz.errors import OptionError
from kibitz.learn import Architecture, Batch, Network, Samples, TrainSettings, loss_and_gradients, train
from kibitz.match import play_game

J4FC = kibitz.Game("just4fun_colours", players=2)


def small(game: kibitz.Game = J4FC, hidden: int = 16, blocks: int = 1, seed: int = 3) -> Network:
    net = Network.initial(Architecture.of_game(game, hidden, blocks), seed)
    rng = np.random.default_rng(seed)
    for w, b in net.layers:  # biases and head weights away from their zero start, so every path counts
        b += rng.normal(0, 0.3, b.shape).astype(np.float32)
        w += rng.normal(0, 0.1, w.shape).astype(np.float32)
    return net


def recorded_observations(count: int = 40) -> np.ndarray:
    """Observation tensors of real positions: every seat's, along two greedy games."""
    out = []
    for seed in (1, 2):
        state = J4FC.new_initial_state(seed)
        while not state.is_terminal() and len(out) < count:
            if state.current_player >= 0:
                out += [state.observation_tensor(s) for s in range(2)]
                state.apply(state.legal_actions()[0])
            else:
                state.apply(state.sample_chance(seed))
    return np.stack(out)


# -- the numpy network ------------------------------------------------------------------------


def test_gradients_match_finite_differences() -> None:
    """The hand-written backward pass, in float64, against central differences of the loss."""
    rng = np.random.default_rng(0)
    shape = Architecture("just4fun_colours", players=2, inputs=6, actions=5, hidden=4, blocks=2)
    layers = [
        (w.astype(np.float64) + rng.normal(0, 0.3, w.shape), rng.normal(0, 0.3, b.shape))
        for w, b in Network.initial(shape, 1).layers
    ]
    legal = rng.random((3, 5)) < 0.7
    legal[:, 0] = True
    policy = np.where(legal, rng.random((3, 5)), 0)
    batch = Batch(rng.normal(0, 1, (4, 6)), rng.random((4, 2)), np.array([0, 2, 3]), policy / policy.sum(1, keepdims=True), legal)

    def total() -> float:
        value, pol, _ = loss_and_gradients(layers, shape.blocks, batch, policy_weight=0.7)
        return value + 0.7 * pol

    _, _, grads = loss_and_gradients(layers, shape.blocks, batch, policy_weight=0.7)
    for layer, grad in zip(layers, grads):
        for param, g in zip(layer, grad):
            for index in list(np.ndindex(param.shape))[:12]:
                saved = param[index]
                param[index] = saved + 1e-6
                up = total()
                param[index] = saved - 1e-6
                down = total()
                param[index] = saved
                assert g[index] == pytest.approx((up - down) / 2e-6, abs=1e-7, rel=1e-5)


def synthetic_samples(count: int, seed: int) -> tuple[Samples, Network]:
    """A data set with a known rule: seat 0 wins when input 0 exceeds input 1, and the target
    move is the legal one among actions 0-3 whose input (2-5) is largest."""
    rng = np.random.default_rng(seed)
    x = rng.random((count, 8)).astype(np.float32)
    wins = (x[:, 0] > x[:, 1]).astype(np.float32)
    value = np.stack([wins, 1 - wins], axis=1)
    legal = rng.random((count, 4)) < 0.75
    legal[np.arange(count), rng.integers(0, 4, count)] = True
    best = np.argmax(np.where(legal, x[:, 2:6], -1), axis=1)
    policy = np.zeros((count, 4), np.float32)
    policy[np.arange(count), best] = 1
    samples = Samples(x, value, np.arange(count), np.arange(count), policy, legal)
    return samples, Network.initial(Architecture("just4fun_colours", 2, 8, 4, hidden=32, blocks=1), seed)


def test_a_network_learns_a_tiny_synthetic_data_set() -> None:
    """From ln 2 = 0.69 (value) and about ln 3 = 1.1 (policy) at the start, the held-out losses
    fall below 0.15 and 0.25: it has learned both rules, not the rows."""
    samples, initial = synthetic_samples(2000, seed=1)
    settings = TrainSettings(epochs=60, batch=64, learning_rate=3e-3, validation=0.2, patience=60, seed=2)
    result = train(samples, settings, initial=initial)
    first, best = result.history[0], result.history[result.best_epoch - 1]
    assert first.validation_value > 0.5 and first.validation_policy > 0.9
    assert best.validation_value < 0.15 and best.validation_policy < 0.25
    assert result.train_samples == 1600 and result.validation_samples == 400


def test_training_is_reproducible_from_its_seed() -> None:
    samples, initial = synthetic_samples(300, seed=4)
    settings = TrainSettings(epochs=3, batch=32, seed=7)
    one, two = train(samples, settings, initial=initial), train(samples, settings, initial=initial)
    assert all(np.array_equal(a, b) for la, lb in zip(one.network.layers, two.network.layers) for a, b in zip(la, lb))
    other = train(samples, TrainSettings(epochs=3, batch=32, seed=8), initial=initial)
    assert not np.array_equal(one.network.layers[0][0], other.network.layers[0][0])


# -- the file and the C++ evaluator -----------------------------------------------------------


def test_the_cpp_forward_pass_matches_numpy_on_recorded_inputs(tmp_path) -> None:
    net = small(blocks=2)
    path = net.save(tmp_path / "net.kbnet")
    observations = recorded_observations()
    values, logits = net.forward(observations)
    core = kibitz._core.Network.read(str(path))
    cpp_values, cpp_logits = core.forward(observations)
    np.testing.assert_allclose(cpp_values, values, atol=1e-5, rtol=0)
    np.testing.assert_allclose(cpp_logits, logits, atol=1e-5, rtol=0)
    assert np.ptp(values[:, 0]) > 0.01 and np.ptp(logits[:, 0]) > 0.01  # the inputs matter: not a check of constants
    # As the search calls it: the plug-in's evaluator, and its weights read back.
    plugin = plugins.load(str(path))
    assert plugin.game == "just4fun_colours" and plugin.chooses and plugin.evaluates
    for row in (0, 7, 19):
        np.testing.assert_allclose(plugin.evaluate(observations[row], 0, 2), values[row], atol=1e-5)
    back = Network.load(path)
    assert back.architecture == net.architecture
    assert all(np.array_equal(a, b) for la, lb in zip(back.layers, net.layers) for a, b in zip(la, lb))


def test_the_policy_head_chooses_legal_moves_by_its_softmax(tmp_path) -> None:
    net = small()
    plugin = plugins.load(str(net.save(tmp_path / "net.kbnet")))
    state = J4FC.new_initial_state(5)
    while state.current_player < 0:
        state.apply(state.sample_chance(1))
    observation, mask = state.observation_tensor(state.current_player), state.legal_action_mask()
    _, logits = net.forward(observation[None])
    shown = np.where(mask, np.exp(logits[0] - logits[0][mask].max()), 0)
    expected = shown / shown.sum()
    draws = [plugin.choose(observation, mask, state.current_player, random) for random in range(0, 2**64, 2**64 // 4000)]
    assert set(draws) <= set(np.flatnonzero(mask))
    counts = np.bincount(draws, minlength=len(mask)) / len(draws)
    np.testing.assert_allclose(counts, expected, atol=0.03)


def test_a_search_with_the_network_is_deterministic_for_a_seed(tmp_path) -> None:
    path = str(small().save(tmp_path / "net.kbnet"))
    state = J4FC.new_initial_state(8)
    while state.current_player < 0:
        state.apply(state.sample_chance(2))
    view = state.view(state.current_player)
    for threads in (1, 2):
        params = kibitz.SearchParams(iterations=400, eval_depth=0, seed=11, threads=threads)
        runs = [view.state().search(params, plugin=plugins.load(f"{path}:evaluate")) for _ in range(2)]
        assert [(s.action, s.visits) for s in runs[0].stats] == [(s.action, s.visits) for s in runs[1].stats]
    plain = view.state().search(kibitz.SearchParams(iterations=400, seed=11))
    with_net = view.state().search(kibitz.SearchParams(iterations=400, seed=11, eval_depth=0), plugin=plugins.load(path))
    assert [(s.action, s.visits) for s in plain.stats] != [(s.action, s.visits) for s in with_net.stats]


def test_a_bot_spec_names_the_network_file_and_plays_a_game(tmp_path) -> None:
    path = small().save(tmp_path / "net.kbnet")
    bots = [f"ismcts:iterations=100,plugin={path}:evaluate,eval_depth=2", "greedy"]
    record = play_game(J4FC, bots, seed=3)
    assert sorted(record.returns) in ([0.0, 1.0], [0.5, 0.5])


# -- what is refused ---------------------------------------------------------------------------


def rewritten(net: Network, **header: object) -> bytes:
    """The network's file with header fields replaced (and a checksum that fits them)."""
    a = net.architecture
    fields = {
        "magic": b"KIBITZNN",
        "format": 1,
        "game": a.game,
        "players": a.players,
        "inputs": a.inputs,
        "actions": a.actions,
        "hidden": a.hidden,
        "blocks": a.blocks,
        "count": net.parameters,
        **header,
    }
    name = str(fields["game"]).encode()
    content = bytes(fields["magic"]) + struct.pack("<II", fields["format"], len(name)) + name  # type: ignore[arg-type]
    content += struct.pack("<5IQ", *(fields[k] for k in ("players", "inputs", "actions", "hidden", "blocks", "count")))  # type: ignore[misc]
    content += net.to_bytes()[8 + 8 + len(a.game) + 28 : -4]  # the weights, after the original header
    return content + struct.pack("<I", zlib.crc32(content))


def refusal(data: bytes, tmp_path, name: str = "bad.kbnet") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError) as caught:
        plugins.load(str(path))
    assert str(path) in str(caught.value) or "network" in str(caught.value)
    return str(caught.value)


def test_damaged_and_mismatched_network_files_are_refused_with_the_reason(tmp_path) -> None:
    net = small(hidden=8)
    good = net.to_bytes()
    assert "truncated" in refusal(good[:-100], tmp_path)
    assert "truncated" in refusal(good[:30], tmp_path)
    flipped = bytearray(good)
    flipped[200] ^= 0x10
    assert "corrupt" in refusal(bytes(flipped), tmp_path)
    assert "follow the end" in refusal(good + b"\0\0", tmp_path)
    assert "not a kibitz network file" in refusal(b"PK\x03\x04" + good[4:], tmp_path)
    assert "format 2; this kibitz reads format 1" in refusal(rewritten(net, format=2), tmp_path)
    assert "takes 100 inputs, but just4fun_colours's observation tensor has 215" in refusal(
        Network.initial(Architecture("just4fun_colours", 2, 100, 37, 8, 1)).to_bytes(), tmp_path
    )
    assert "needs" in refusal(rewritten(net, count=net.parameters + 1), tmp_path)
    assert "unknown game" in refusal(rewritten(net, game="chess"), tmp_path).lower()
    with pytest.raises(OptionError, match="missing.kbnet: no such file"):
        plugins.load(str(tmp_path / "missing.kbnet"))
    (tmp_path / "folder.kbnet").mkdir()
    with pytest.raises(OptionError, match="folder.kbnet: not a regular file"):
        plugins.load(str(tmp_path / "folder.kbnet"))


def test_a_network_is_refused_for_another_game_or_player_count(tmp_path) -> None:
    yucata = kibitz.Game("yucata", players=2)
    other = plugins.load(str(small(yucata).save(tmp_path / "yucata.kbnet")))
    state = J4FC.new_initial_state(8)
    while state.current_player < 0:
        state.apply(state.sample_chance(2))
    with pytest.raises(OptionError, match="written for yucata, not just4fun_colours"):
        state.search(kibitz.SearchParams(iterations=50), plugin=other)
    two_player = plugins.load(str(small().save(tmp_path / "j4fc-2p.kbnet")))
    four = kibitz.Game("just4fun_colours", players=4).new_initial_state(8)
    while four.current_player < 0:
        four.apply(four.sample_chance(2))
    with pytest.raises(kibitz.PluginError, match="trained for 2 players; this game has 4"):
        four.search(kibitz.SearchParams(iterations=50, eval_depth=0), plugin=two_player)


def test_a_network_file_loads_from_a_spec_or_the_engine_option_and_a_browser_needs_it_allowed(tmp_path, monkeypatch) -> None:
    """A network file is data, checked whole by the C++ reader: a bot spec and the protocol's
    Plugin option load one without --allow-plugin, and refuse a damaged one with the reason;
    kibitz serve loads only the files its operator allowed (docs/learning.md §3)."""
    from kibitz.protocol import Engine
    from kibitz.web.limits import LimitError, Limits, check_bot_spec

    monkeypatch.setattr(plugins, "_allowed", set())
    path = str(small().save(tmp_path / "g1.kbnet"))
    assert plugins.is_allowed(path) and plugins.is_allowed(f"{path}:evaluate") and plugins.is_network_file(f"{path}:choose")
    assert plugins.split_name("C:\\nets\\g1.kbnet") == ("C:\\nets\\g1.kbnet", None)  # a drive's colon is not a part
    assert plugins.split_name("C:\\nets\\g1.kbnet:evaluate") == ("C:\\nets\\g1.kbnet", "evaluate")
    bot = kibitz.make_bot(f"ismcts:iterations=30,plugin={path}:evaluate,eval_depth=0")
    assert isinstance(bot, kibitz.SearchBot) and bot.plugin is not None and bot.plugin.evaluates and not bot.plugin.chooses
    for bad, reason in (
        (f"{path}:value", "a part is one of choose, evaluate, got 'value'"),
        ("x\0y.kbnet", "a network file's path is printable text"),
        (str(tmp_path / "missing.kbnet"), "missing.kbnet: no such file"),
    ):
        with pytest.raises(OptionError, match=re.escape(reason)):
            kibitz.make_bot(f"ismcts:plugin={bad}")
    (tmp_path / "short.kbnet").write_bytes(small().to_bytes()[:50])

    out: list[str] = []
    engine = Engine(out.append)
    for line in (f"setoption name Plugin value {path}", f"setoption name Plugin value {tmp_path / 'short.kbnet'}", "isready"):
        engine.handle(line)
        engine.wait()
    assert len(out) == 2 and "short.kbnet: it is truncated" in out[0] and out[1] == "readyok"
    assert engine.plugin is not None and engine.plugin.source == f"network file {path}"  # the refused file changed nothing

    limits = Limits()
    spec = f"ismcts:iterations=30,plugin={path}"
    with pytest.raises(LimitError, match=re.escape("loads only the network files its operator names (kibitz serve --allow-plugin FILE.kbnet)")):
        check_bot_spec(spec, limits)
    plugins.allow(path)
    assert check_bot_spec(spec, limits) == spec and path in plugins.allowed()


def test_distilled_samples_take_every_target_from_the_searched_value(tmp_path) -> None:
    """--distilled-only: one sample per searched decision, the decider's tensor; its team's seats
    get the search's value v, the other team's 1 - v (tile Canasta: seats 0+2 against 1+3)."""
    from kibitz.selfplay import generate, load_data

    canasta = kibitz.Game("canasta_tiles", players=4)
    generate(canasta, ["ismcts:iterations=10", "greedy"], games=1, seed=3, out=tmp_path, shard_games=1)
    data = load_data(tmp_path)
    searched = np.flatnonzero(np.isfinite(data.search_value))
    assert 0 < len(searched) < len(data)  # greedy's decisions have no search value
    samples = Samples.distilled(data, perfect=False)
    seat = data.seat[searched].astype(int)
    np.testing.assert_array_equal(samples.x, data.observations[searched, seat])
    v = data.search_value[searched]
    np.testing.assert_allclose(samples.value, np.stack([v, 1 - v, v, 1 - v], axis=1), atol=1e-7)
    assert len(samples.policy_rows) == len(samples) and samples.legal[np.arange(len(samples)), data.action[searched]].all()
    with pytest.raises(OptionError, match="the data have no perfect_value"):
        Samples.distilled(data)
    result = train(data, TrainSettings(hidden=8, epochs=1, distill="search", distilled_only=True))
    assert result.train_samples + result.validation_samples == len(samples)
