"""Bot specs (kibitz.make_bot): parameters, presets, budgets and bad values."""

from __future__ import annotations

import pytest

import kibitz
from kibitz import OptionError, SearchParams
from kibitz.bots import BOTS_PATH, write_parameter_set


def params_of(spec: str) -> SearchParams:
    bot = kibitz.make_bot(spec)
    assert isinstance(bot, kibitz.SearchBot)
    return bot.params


@pytest.mark.parametrize(
    "spec,iterations,time_ms",
    [
        ("ismcts:time_ms=3000", 0, 3000.0),  # a time alone is the budget: no 10,000-iteration cap
        ("ismcts:time=250", 0, 250.0),
        ("ismcts:time_ms=3000,iterations=500", 500, 3000.0),
        ("ismcts", 10000, 0.0),
        ("ismcts:iterations=10000,time_ms=50", 10000, 50.0),  # given explicitly, it caps
        ("strong:time_ms=3000", 0, 3000.0),  # the spec's budget replaces the preset's
        ("strong", 20000, 0.0),
        ("strong:c=0.3", 20000, 0.0),
    ],
)
def test_a_time_given_alone_is_the_whole_budget(spec, iterations, time_ms):
    p = params_of(spec)
    assert (p.iterations, p.time_ms) == (iterations, time_ms)
    assert (p.to_core().iterations, p.to_core().time_ms) == (iterations, time_ms)


def test_a_preset_takes_policy_weights_from_the_spec_and_keeps_its_own_under_a_new_budget(tmp_path, monkeypatch):
    p = params_of("ismcts:preset=just4fun_colours/fast,policy.block=0")
    assert p.iterations == 2000 and dict(p.policy) == {"block": 0.0}
    write_parameter_set(tmp_path, "just4fun_colours", "noblock", "ismcts", {"iterations": 20000, "policy.block": 0}, {}, {})
    monkeypatch.setenv(BOTS_PATH, str(tmp_path))
    p = params_of("ismcts:preset=just4fun_colours/noblock,time_ms=300")
    assert (p.iterations, p.time_ms) == (0, 300.0) and dict(p.policy) == {"block": 0.0}


def test_search_params_with_a_time_alone_have_no_iteration_cap():
    assert SearchParams(time_ms=3000).iterations == 0
    assert SearchParams().with_(time_ms=3000).iterations == 0
    assert SearchParams(iterations=500, time_ms=3000).iterations == 500
    assert SearchParams().iterations == 10000 and SearchParams() == SearchParams(iterations=10000)
    assert SearchParams.from_options({"time_ms": "40"}).iterations == 0


@pytest.mark.parametrize(
    "spec,named",
    [
        ("ismcts:time_ms=inf", "time_ms: 'inf' is out of range; expected a number in 0..1000000000"),
        ("ismcts:time_ms=nan", "time_ms: 'nan' is out of range"),
        ("ismcts:time_ms=1e13", "time_ms: '1e13' is out of range"),
        ("ismcts:iterations=99999999999999999999", "iterations: '99999999999999999999' is out of range; expected an integer in 0..1000000000"),
        ("pimc:dets=100001", "determinizations: '100001' is out of range; expected an integer in 1..100000"),
        ("ismcts:seed=" + "9" * 5000, "seed: '999999999999999999999999…' is out of range"),
        ("ismcts:c=²", "c: '²' is not a number in 0..100"),
        ("random:seed=²", "seed: '²' is not an integer in 0..9223372036854775807"),
        ("greedy:seed=-1", "seed: '-1' is out of range"),
        ("strong:nope=1", "unknown search parameter 'nope'"),
    ],
)
def test_bad_values_in_a_spec_name_the_spec_the_value_and_the_range(spec, named):
    with pytest.raises(OptionError) as error:
        kibitz.make_bot(spec)
    message = str(error.value)
    assert message.startswith(f"bot {spec[:20]}") or message.startswith(f"bot '{spec[:20]}"), message
    assert named in message and len(message) < 600  # the known names are listed (about 30 of them), not a dump


def test_a_seed_passed_in_must_fit_too():
    with pytest.raises(OptionError, match=r"seed: -1 is out of range"):
        kibitz.make_bot("ismcts", seed=-1)


def core_fields(params: object) -> dict[str, object]:
    """The C++ search parameters' fields (the search's stop flag, progress, plug-in hooks and the
    per-decision opponent shares, which State.search sets, aside)."""
    hooks = ("stop", "progress", "set_plugin", "opponent_shares")
    return {n: getattr(params, n) for n in dir(params) if not n.startswith("_") and n not in hooks}


def test_the_parameter_table_drives_the_params_the_specs_the_protocol_and_the_tuning_space() -> None:
    """Each row of csrc/search/param_table.h is a C++ field bound under its Python name, a
    SearchParams field with the same default, a bot-spec key, a protocol option with its bounds
    (when it has an option name) and a tuning dimension (when it is a tunable number); and
    SearchParams sets every C++ field from exactly its own row."""
    from kibitz import _core, protocol
    from kibitz.params import PARAMETERS
    from kibitz.tune import Dimension

    rows = _core.parameter_table()
    assert [p.name for p in PARAMETERS] == [row["name"] for row in rows]
    defaults = core_fields(_core.Params())
    assert set(defaults) == {row["name"] for row in rows} | {"policy"}
    options = {o.name: o for o in protocol.OPTIONS}
    for row, p in zip(rows, PARAMETERS):
        assert getattr(SearchParams(), p.name) == row["default"] == defaults[p.name], p.name
        if p.choices:
            other = next(c for c in p.choices if c != p.default)
        else:
            assert p.low is not None and p.high is not None
            other = p.kind(p.high if p.default != p.high else p.low)
        changed = [n for n, v in core_fields(SearchParams().with_(**{p.name: other}).to_core()).items() if v != defaults[n]]
        if p.name == "time_ms":  # a time alone lifts the default iteration cap too
            changed.remove("iterations")
        assert changed == [p.name], f"{p.name} sets {changed}"
        assert SearchParams.from_options({name: str(other) for name in [p.option or p.name]}) == SearchParams().with_(**{p.name: other})
        if row["option"]:
            option = options[row["option"]]
            assert option.parameter is p and option.default == str(row["default"])
            if p.kind is int:
                assert option.extra == f"min {row['low']} max {row['high']}"
        if row["tunable"]:
            assert Dimension.parse(p.name) == Dimension(p.name, p.low, p.high, p.log, p.kind is int)  # type: ignore[arg-type]
        else:
            with pytest.raises(OptionError, match="not a tunable number"):
                Dimension.parse(p.name)
    assert SearchParams.from_options({"policy.block": "0"}).to_core().policy == [("block", 0.0)]


def test_the_core_params_refuse_what_the_table_does_not_allow() -> None:
    from kibitz import _core

    p = _core.Params()
    with pytest.raises(OptionError, match="search parameter algorithm: 'alphabeta' is not allowed; expected one of so_ismcts mo_ismcts pimc uct"):
        p.algorithm = "alphabeta"
    with pytest.raises(OptionError, match="search parameter c: .* is out of range"):
        p.c = -1.0
    with pytest.raises(OptionError, match="search parameter solver"):
        p.solver = 2
    assert (p.algorithm, p.c, p.solver) == ("so_ismcts", 0.7, 1)  # unchanged


def test_every_shipped_parameter_set_loads_and_plays_its_game():
    from kibitz.bots import parameter_sets

    shipped = parameter_sets()
    assert {"just4fun_colours", "yucata", "canasta_tiles", "yak"} <= set(shipped)
    for game_name, sets in shipped.items():
        assert {"strong", "fast", "timed"} <= set(sets), game_name
        state = kibitz.Game(game_name).new_initial_state(seed=1)
        while state.is_chance():
            state.apply(state.sample_chance(1))
        for name in sets:
            bot = kibitz.make_bot(f"ismcts:preset={game_name}/{name},iterations=30")  # a budget of its own: quick
            seat = state.choosing_seats()[0] if state.is_simultaneous() else state.current_player
            move = bot.act(state.view(seat))
            legal = state.legal_actions_for(seat) if state.is_simultaneous() else state.legal_actions()
            assert move in legal, (game_name, name)
