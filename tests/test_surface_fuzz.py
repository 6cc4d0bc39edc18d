"""Bad input on the newer surfaces, fuzzed (the protocol's own fuzz is tests/fuzz_protocol.py):
plug-in names, tuning storage URLs, and actions given to the OpenSpiel and PettingZoo adapters.
Whatever the text or the numbers, each gets its clear error type (never a traceback of another
kind), imports nothing it should not, and changes nothing."""

from __future__ import annotations

import string
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import kibitz
from kibitz import plugins
from kibitz.errors import OptionError

NAME_PIECES = ["kibitz", "plugins", "yak", "os", "..", ".", "/", ":", "choose", "evaluate", "-", "1", "é", " ", "_x", "\\", "~"]
names = st.one_of(
    st.lists(st.sampled_from(NAME_PIECES), max_size=6).map("".join),
    st.text(alphabet=string.printable + "é€", max_size=30),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names)
def test_any_plugin_name_from_a_spec_loads_an_allowed_plugin_or_is_refused_importing_nothing(name: str) -> None:
    before = set(sys.modules)
    try:
        plugin = plugins.load_allowed(name)
    except OptionError as err:
        assert set(sys.modules) == before, f"{name!r} was refused ({err}) but imported {sorted(set(sys.modules) - before)}"
        return
    assert plugins.is_allowed(name) and plugin.name


URL_PIECES = ["sqlite", "postgresql", "mysql", "foo", "+", "://", ":///", "/", "//", "nonexistent", ".", "..", "@", ":", "x.db", "?", "=", "%", " ", "é"]
urls = st.one_of(st.lists(st.sampled_from(URL_PIECES), max_size=7).map("".join), st.text(alphabet=string.printable, max_size=40))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(urls)
@example("++://")  # SQLAlchemy's dialect loader raised a ValueError for it
def test_any_storage_url_is_checked_or_refused_with_an_option_error(url: str) -> None:
    pytest.importorskip("optuna", reason="kibitz tune's storage is Optuna's (pip install 'kibitz[tune]')")
    from kibitz.tune import check_storage

    hidden = [driver for driver in ("MySQLdb", "pymysql", "psycopg2", "psycopg") if driver not in sys.modules]
    sys.modules.update(dict.fromkeys(hidden))  # type: ignore[arg-type]  # as on a machine without them
    try:
        check_storage(url)
    except OptionError as err:
        assert str(err).startswith("storage ")
    finally:
        for driver in hidden:
            del sys.modules[driver]


ADAPTER_GAMES = [("yak", {"players": 3}), ("just4fun_colours", {"players": 3}), ("goofspiel", {})]
numbers = st.one_of(st.integers(-(2**40), 2**40), st.sampled_from([0, 1, -2, 1023, 1024, 10**7]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ADAPTER_GAMES), st.integers(0, 25), st.lists(numbers, max_size=5), numbers)
def test_openspiel_actions_are_applied_or_refused_changing_nothing(game: tuple[str, dict], steps: int, joint: list[int], action: int) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    pytest.importorskip("kibitz.interop.openspiel")
    name, params = game
    state = pyspiel.load_game(f"kibitz_{name}", params).new_initial_state()
    rng = np.random.default_rng(steps)
    for _ in range(steps):  # a position along a random game
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) if state.legal_actions(p) else 0 for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    before = str(state)
    try:
        if state.is_simultaneous_node():
            state.apply_actions(joint)
        elif not state.is_terminal():
            state.apply_action(action)
        else:
            return
    except (kibitz.IllegalMoveError, pyspiel.SpielError):  # pyspiel checks a few things itself (kInvalidAction)
        assert str(state) == before
        return
    assert str(state) != before or state.is_chance_node()  # applied: it was legal


AGENTS = st.one_of(st.sampled_from(["player_0", "player_1", "player_2", "player_3", "player_9"]), st.text(max_size=8), st.integers())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ADAPTER_GAMES), st.integers(0, 20), st.booleans(), st.dictionaries(AGENTS, st.one_of(numbers, st.text(max_size=3), st.none()), max_size=4))
def test_pettingzoo_parallel_steps_are_taken_or_refused_changing_nothing(game: tuple[str, dict], steps: int, complete: bool, extra: dict[Any, Any]) -> None:
    """``extra`` entries, over every agent's legal action when ``complete``: a step is taken only
    if every deciding agent's action is legal and every key is an agent."""
    pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed")
    from kibitz.interop.pettingzoo import parallel_env

    name, options = game
    env = parallel_env(name, **options)
    observations, _ = env.reset(seed=steps)
    rng = np.random.default_rng(steps)

    def legal_step() -> dict[Any, Any]:
        return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0 for a, o in observations.items()}

    for _ in range(steps):
        if not env.agents:
            return
        observations, *_ = env.step(legal_step())
    if not env.agents:
        return
    actions = {**(legal_step() if complete else {}), **extra}
    before = env.notation()
    try:
        env.step(actions)
    except kibitz.IllegalMoveError:
        assert env.notation() == before
        return
    assert all(agent in env.possible_agents for agent in actions)  # a step naming an agent that does not exist is refused
