"""Plug-ins (kibitz.plugins, docs/plugins.md): the example of each game in a search on 2 threads,
determinism, the evaluator's seat mapping, Python callables, a user's own .pyx built against
the installed headers, and clear errors for bad plug-ins."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import kibitz
from canasta_reference import JOKER, K3, KIND, RANKS, TWO, canasta_bonus, meld_value
from kibitz import plugins
from test_canasta_tiles import counts, parse_meld

EXAMPLES = {"canasta_tiles": {}, "just4fun_colours": {}, "yak": {"players": 3}, "yucata": {"players": 3}}


def decision_state(game: str, seed: int = 3, plies: int = 6) -> kibitz.State:
    """A state a few random plies into a game, at a decision (or simultaneous) node."""
    state = kibitz.Game(game, **EXAMPLES.get(game, {})).new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    played = 0
    while True:
        if state.current_player == kibitz.CHANCE:
            state.apply(state.sample_chance(int(rng.integers(1 << 62))))
        elif played < plies and not state.is_simultaneous():
            state.apply(int(rng.choice(state.legal_actions())))
            played += 1
        else:
            return state


def searched_seat(state: kibitz.State) -> int | None:
    return state.choosing_seats()[0] if state.is_simultaneous() else None


def test_every_game_with_a_bots_folder_has_its_example_installed() -> None:
    assert plugins.examples() == [f"kibitz.plugins.{g}" for g in sorted(EXAMPLES)]
    for game in EXAMPLES:
        plugin = plugins.load(f"kibitz.plugins.{game}")
        assert plugin.game == game and plugin.chooses
        assert plugin.evaluates == (game in ("canasta_tiles", "just4fun_colours", "yucata"))


@pytest.mark.parametrize("game", sorted(EXAMPLES))
def test_example_plays_a_legal_move_on_two_threads_deterministically(game: str) -> None:
    state = decision_state(game)
    seat = searched_seat(state)
    legal = state.legal_actions_for(seat if seat is not None else state.current_player)
    plugin = plugins.load(f"kibitz.plugins.{game}")
    depth = 3 if plugin.evaluates else 0
    two = [state.search(kibitz.SearchParams(iterations=400, threads=2, seed=5, eval_depth=depth), seat=seat, plugin=plugin) for _ in range(2)]
    assert two[0].action in legal and two[0].iterations == 400
    assert [(s.action, s.visits) for s in two[0].stats] == [(s.action, s.visits) for s in two[1].stats]  # seed and threads decide it
    one = [state.search(kibitz.SearchParams(iterations=300, seed=9, eval_depth=depth), seat=seat, plugin=plugin) for _ in range(2)]
    assert [(s.action, s.visits) for s in one[0].stats] == [(s.action, s.visits) for s in one[1].stats]
    assert one[0].root_value == one[1].root_value


def test_example_changes_the_rollouts() -> None:
    """The same search with and without the plug-in policy differs (the hook is really used)."""
    state = decision_state("just4fun_colours")
    params = kibitz.SearchParams(iterations=300, seed=2)
    builtin = state.search(params)
    plugged = state.search(params, plugin=plugins.from_python(lambda obs, legal, seat, r: int(np.flatnonzero(legal)[0])))
    assert [(s.action, s.visits) for s in builtin.stats] != [(s.action, s.visits) for s in plugged.stats]


@pytest.mark.parametrize("winner", [0, 1])
def test_evaluator_values_are_read_by_relative_seat(winner: int) -> None:
    """An evaluator that says relative seat `winner` always wins: at eval_depth 0 every leaf
    is scored by it, so the searching seat (relative seat 0) sees 1 or 0 everywhere."""
    state = decision_state("just4fun_colours", plies=2)
    seen: list[tuple[int, int, int]] = []

    def evaluate(observation: np.ndarray, seat: int, players: int) -> list[float]:
        seen.append((observation.size, seat, players))
        return [1.0 if k == winner else 0.0 for k in range(players)]

    result = state.search(kibitz.SearchParams(iterations=200, seed=1), plugin=plugins.from_python(evaluate=evaluate))
    assert {s.mean_reward for s in result.stats} == {1.0 - winner}
    assert set(seen) == {(state.observation_tensor(0).size, state.current_player, 2)}
    assert len(seen) == 200  # one leaf per iteration: nothing in 200 iterations ends the game


def test_python_policy_sees_the_mover_tensor_and_a_legal_mask() -> None:
    state = decision_state("yak")
    calls: list[tuple[int, int, int]] = []

    def choose(observation: np.ndarray, legal: np.ndarray, seat: int, random: int) -> int:
        calls.append((observation.size, legal.size, seat))
        assert legal.dtype == np.bool_ and legal.any() and 0 <= random < 1 << 63
        return int(np.flatnonzero(legal)[random % int(legal.sum())])

    result = state.search(kibitz.SearchParams(iterations=60, threads=2, seed=4), seat=searched_seat(state), plugin=plugins.from_python(choose))
    assert result.iterations == 60 and calls
    sizes = {(o, m) for o, m, _ in calls}
    assert sizes == {(state.observation_tensor(0).size, state.legal_action_mask(0).size)}
    assert {s for _, _, s in calls} == {0, 1, 2}  # every seat's rollout decisions, from its own view


def test_example_functions_called_directly() -> None:
    state = decision_state("yucata")
    seat = state.current_player
    plugin = plugins.load("kibitz.plugins.yucata")
    for random in range(20):
        assert plugin.choose(state.observation_tensor(seat), state.legal_action_mask(seat), seat, random) in state.legal_actions()
    values = plugin.evaluate(state.observation_tensor(seat), seat, 3)
    assert all(0 <= v <= 1 for v in values) and sum(values) == pytest.approx(1.5)  # shares of 3 pairs


def test_bot_spec_loads_a_plugin() -> None:
    bot = kibitz.make_bot("ismcts:iterations=200,plugin=kibitz.plugins.just4fun_colours,eval_depth=2", seed=1)
    assert isinstance(bot, kibitz.SearchBot) and bot.plugin is not None and bot.params.eval_depth == 2
    assert "plugin=kibitz.plugins.just4fun_colours" in repr(bot)
    state = decision_state("just4fun_colours")
    assert bot.act(state.view(state.current_player)) in state.legal_actions()
    with pytest.raises(kibitz.OptionError, match="ismcts:plugin=no_such.module.*is not allowed"):
        kibitz.make_bot("ismcts:plugin=no_such.module")


def test_a_part_of_a_plugin() -> None:
    policy = plugins.load("kibitz.plugins.just4fun_colours:choose")
    assert (policy.chooses, policy.evaluates) == (True, False)
    evaluator = plugins.load("kibitz.plugins.just4fun_colours").only("evaluate")
    assert (evaluator.chooses, evaluator.evaluates) == (False, True)
    state = decision_state("just4fun_colours")
    params = kibitz.SearchParams(iterations=300, seed=3)
    with_policy, with_both = state.search(params, plugin=policy), state.search(params, plugin="kibitz.plugins.just4fun_colours")
    assert with_policy.stats != with_both.stats  # the evaluator (at the leaf) is off in the part
    with pytest.raises(kibitz.OptionError, match=r"has no evaluator \(evaluate\); it offers only choose"):
        plugins.load("kibitz.plugins.yak:evaluate")
    with pytest.raises(kibitz.OptionError, match="a part is one of choose, evaluate, got 'both'"):
        plugins.load("kibitz.plugins.yak:both")


def test_a_search_bot_with_a_plugin_copies_and_pickles() -> None:
    """Matches copy Bot objects for every game and send them to worker processes."""
    import copy
    import pickle

    bot = kibitz.SearchBot(kibitz.SearchParams(iterations=100), plugin="kibitz.plugins.yucata:choose")
    assert copy.deepcopy(bot).plugin is bot.plugin
    again = pickle.loads(pickle.dumps(bot))
    assert again.plugin is not None and (again.plugin.source, again.plugin.chooses, again.plugin.evaluates) == (
        "kibitz.plugins.yucata:choose", True, False)
    python_bot = kibitz.SearchBot(kibitz.SearchParams(iterations=100), plugin=plugins.from_python(lambda *a: 0))
    with pytest.raises(TypeError, match="cannot be pickled: only one loaded by module name can"):
        pickle.dumps(python_bot)


def test_bad_plugins_are_refused_with_what_was_wrong() -> None:
    state = decision_state("just4fun_colours")
    params = kibitz.SearchParams(iterations=50)
    with pytest.raises(kibitz.OptionError, match="PyCapsule named 'kibitz.plugin', got a int"):
        plugins.load(3)
    with pytest.raises(kibitz.OptionError, match="no attribute 'kibitz_plugin'"):
        plugins.load("kibitz.stats")
    with pytest.raises(kibitz.OptionError, match="written for yucata, not just4fun_colours"):
        state.search(params, plugin="kibitz.plugins.yucata")
    with pytest.raises(kibitz.OptionError, match="choose, evaluate or both"):
        plugins.from_python()
    with pytest.raises(kibitz.OptionError, match="must be callables"):
        plugins.from_python(choose=3)  # type: ignore[arg-type]
    with pytest.raises(kibitz.PluginError, match="chose 99, which is not a legal action"):
        state.search(params, plugin=plugins.from_python(lambda *args: 99))
    with pytest.raises(kibitz.PluginError, match="choose failed: ZeroDivisionError"):
        state.search(params, plugin=plugins.from_python(lambda *args: 1 // 0))
    with pytest.raises(kibitz.PluginError, match=r"evaluate gave 2\.0+ for relative seat 0; values must lie in \[0, 1\]"):
        state.search(params, plugin=plugins.from_python(evaluate=lambda obs, seat, n: [2.0] * n))
    with pytest.raises(kibitz.PluginError, match="evaluate returned 1 values for 2 seats"):
        state.search(params, plugin=plugins.from_python(evaluate=lambda obs, seat, n: [0.5]))
    assert state.search(params).action in state.legal_actions()  # the state is unchanged and searchable


# A plug-in that fills the struct field by field (the docs' example uses export_plugin).
USER_PLUGIN = """
from libc.stdint cimport int32_t, uint8_t, uint64_t
from kibitz_plugin cimport KIBITZ_PLUGIN_ABI_VERSION, Plugin, plugin_capsule

cdef int32_t highest(void* context, const float* obs, int32_t size, const uint8_t* legal, int32_t n,
                     int32_t seat, uint64_t random) noexcept nogil:
    cdef int32_t a
    for a in range(n - 1, -1, -1):
        if legal[a]:
            return a
    return -1

cdef Plugin _plugin
_plugin.abi_version = KIBITZ_PLUGIN_ABI_VERSION
_plugin.name = b"highest id"
_plugin.game = NULL
_plugin.context = NULL
_plugin.choose = highest
_plugin.evaluate = NULL
_plugin.error = NULL
kibitz_plugin = plugin_capsule(&_plugin)
"""


def build_module(folder: Path, name: str, source: str) -> None:
    """Cython and the C compiler with only kibitz.plugins.get_include(): what a user does."""
    include = plugins.get_include()
    (folder / f"{name}.pyx").write_text(source)
    subprocess.run([sys.executable, "-m", "cython", "-3", "-I", include, f"{name}.pyx"], cwd=folder, check=True)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    python_include = sysconfig.get_paths()["include"]
    command = ["cc", "-shared", "-fPIC", "-O1", "-I", include, "-I", python_include, f"{name}.c", "-o", f"{name}{suffix}"]
    subprocess.run(command, cwd=folder, check=True)


NO_TOOLCHAIN = shutil.which("cc") is None or importlib.util.find_spec("Cython") is None
needs_toolchain = pytest.mark.skipif(NO_TOOLCHAIN, reason="needs a C compiler and Cython (the test extra has Cython)")


@needs_toolchain
def test_a_users_own_pyx_plugs_in_without_rebuilding_kibitz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_module(tmp_path, "highest_id", USER_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin = plugins.load("highest_id")
    assert (plugin.name, plugin.game, plugin.chooses, plugin.evaluates) == ("highest id", None, True, False)
    state = decision_state("yucata")
    mover = state.current_player
    assert plugin.choose(state.observation_tensor(mover), state.legal_action_mask(mover), mover) == max(state.legal_actions())
    result = state.search(kibitz.SearchParams(iterations=300, threads=2, solve_stones=0), plugin=plugin)
    assert result.action in state.legal_actions() and result.iterations == 300


@needs_toolchain
def test_the_docs_example_plugin_builds_and_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (Path(__file__).parents[1] / "docs" / "plugins.md").read_text()
    source = text.split("```cython\n# my_policy.pyx\n", 1)[1].split("```", 1)[0]
    build_module(tmp_path, "my_policy", source)
    monkeypatch.syspath_prepend(str(tmp_path))
    state = decision_state("yak")
    seat = searched_seat(state)
    result = state.search(kibitz.SearchParams(iterations=100, threads=2), seat=seat, plugin="my_policy")
    assert result.iterations == 100 and result.action in state.legal_actions_for(seat if seat is not None else state.current_player)


def test_the_engine_protocol_sets_a_plugin_by_name() -> None:
    from kibitz.protocol import Engine

    out: list[str] = []
    engine = Engine(out.append)
    state = kibitz.Game("just4fun_colours", players=2).new_initial_state(1)
    seat = state.current_player

    def answer(line: str) -> list[str]:
        before = len(out)
        engine.handle(line)
        engine.wait()
        return out[before:]

    for line in (f"newgame just4fun_colours players 2 seat {seat}", f"position view {state.view(seat).notation()}"):
        engine.handle(line)
    refused = answer("setoption name Plugin value no_such_module")
    assert len(refused) == 1 and refused[0].startswith("info string error: option Plugin: plug-in 'no_such_module' is not allowed")
    assert engine.plugin is None
    answer("setoption name Plugin value kibitz.plugins.just4fun_colours")
    answer("setoption name EvalDepth value 3")
    assert engine.plugin is not None and engine.plugin.evaluates
    assert state.parse_move(answer("go iterations 200")[-1].split()[1]) in state.legal_actions()
    answer("setoption name Plugin value <empty>")
    assert engine.plugin is None


# --- which plug-ins load (docs/plugins.md, "Which plug-ins load") ---

BAD_NAMES = [".os", "../../etc/passwd", "..", "a..b", "a/b", "/etc/passwd", "1abc", "my-policy", "os.path.", "x:choose:evaluate", "é", "kibitz.plugins.yak choose"]
# A plug-in of plain Python callables in a module: what a name in a spec or an option loads.
PYTHON_PLUGIN = """
import numpy as np
from kibitz import plugins

_plugin = plugins.from_python(lambda obs, legal, seat, random: int(np.flatnonzero(legal)[0]), name="first legal")
kibitz_plugin = _plugin.capsule
"""


@pytest.fixture
def allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty list of modules allowed by hand (plugins.allow adds to the process's), restored after."""
    monkeypatch.setattr(plugins, "_allowed", set())


@pytest.fixture
def policy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A plug-in module on the path that no one has allowed; it counts its imports."""
    (tmp_path / "py_policy.py").write_text(PYTHON_PLUGIN + "import sys\nsys.py_policy_imports = getattr(sys, 'py_policy_imports', 0) + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "py_policy_imports", 0, raising=False)
    monkeypatch.delitem(sys.modules, "py_policy", raising=False)
    return "py_policy"


def engine_lines(*lines: str) -> list[str]:
    from kibitz.protocol import Engine

    out: list[str] = []
    engine = Engine(out.append)
    for line in lines:
        engine.handle(line)
        engine.wait()
    return out


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_plugin_name_that_is_not_a_module_name_is_refused_before_any_import(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """'../../etc/passwd' gave "internal error in 'setoption': TypeError: the 'package' argument
    is required", make_bot a bare TypeError: every way of naming a plug-in now says what a
    plug-in name is, and imports nothing."""
    failing = SimpleNamespace(import_module=lambda *args: pytest.fail(f"imported {args}"), machinery=importlib.machinery, metadata=importlib.metadata)
    monkeypatch.setattr(plugins, "importlib", failing)  # what kibitz.plugins imports with
    expected = f"plug-in {name!r}: not a module name"
    state = decision_state("yucata")
    for attempt in (
        lambda: plugins.load(name),
        lambda: plugins.load_allowed(name),
        lambda: plugins.allow(name),
        lambda: kibitz.make_bot(f"ismcts:plugin={name}"),
        lambda: kibitz.SearchBot(kibitz.SearchParams(iterations=10), plugin=name),
        lambda: state.search(kibitz.SearchParams(iterations=10), plugin=name),
    ):
        with pytest.raises(kibitz.OptionError, match=re.escape(expected)):
            attempt()
    if " " not in name:
        what = ("a plug-in is named by its module, Python identifiers joined by dots (kibitz.plugins.yak, my_package.my_policy), "
                "or is a network file (a path ending in .kbnet), optionally with :choose or :evaluate")
        assert engine_lines(f"setoption name Plugin value {name}") == [f"info string error: option Plugin: {expected}; {what}"]


def test_the_match_command_refuses_a_plugin_name_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    from kibitz.cli import main

    assert main(["match", "yucata", "--bots", "ismcts:plugin=.os", "greedy", "--games", "1"]) == 2
    assert capsys.readouterr().err.startswith("error: bot 'ismcts:plugin=.os': plug-in '.os': not a module name")


@pytest.mark.usefixtures("allow_list")
def test_a_spec_or_an_option_loads_only_an_allowed_plugin(policy_module: str) -> None:
    """A bot spec or the Plugin option may come from a GUI or a browser: a module that is not
    allowed is refused, naming it and how to allow it, and is not imported."""
    message = (f"plug-in '{policy_module}' is not allowed: allow it with --allow-plugin {policy_module} (kibitz engine, kibitz serve, "
               f'the commands that take bot specs) or kibitz.plugins.allow("{policy_module}") in Python')
    with pytest.raises(kibitz.OptionError, match=re.escape(message)):
        kibitz.make_bot(f"ismcts:plugin={policy_module}")
    with pytest.raises(kibitz.OptionError, match="is not allowed"):
        kibitz.make_bot(f"ismcts:plugin={policy_module}:choose")
    (refused,) = engine_lines(f"setoption name Plugin value {policy_module}")
    assert refused == f"info string error: option Plugin: {message}. Allowed without that: the plug-ins shipped with kibitz ({', '.join(plugins.examples())}), " \
                      "modules registered in the entry-point group kibitz.plugins, and network files (.kbnet)"
    assert sys.py_policy_imports == 0 and policy_module not in sys.modules  # type: ignore[attr-defined]
    assert plugins.allowed() == plugins.examples() and all(plugins.is_allowed(name) for name in plugins.examples())

    plugins.allow(policy_module)
    assert plugins.is_allowed(f"{policy_module}:choose") and policy_module in plugins.allowed()
    bot = kibitz.make_bot(f"ismcts:iterations=30,plugin={policy_module}")
    assert isinstance(bot, kibitz.SearchBot) and bot.plugin is not None and bot.plugin.name == "first legal"
    state = decision_state("yucata")
    assert bot.act(state.view(state.current_player)) in state.legal_actions()
    assert engine_lines(f"setoption name Plugin value {policy_module}", "isready") == ["readyok"]


@pytest.mark.usefixtures("allow_list")
def test_python_code_is_trusted_to_load_a_plugin_by_name(policy_module: str) -> None:
    """The user's own code needs no allowing: plugins.load, SearchBot and State.search take any
    module name (docs/plugins.md)."""
    state = decision_state("yucata")
    assert plugins.load(policy_module).name == "first legal"
    bot = kibitz.SearchBot(kibitz.SearchParams(iterations=30), plugin=policy_module)
    assert bot.act(state.view(state.current_player)) in state.legal_actions()
    assert state.search(kibitz.SearchParams(iterations=30), plugin=policy_module).action in state.legal_actions()
    assert not plugins.is_allowed(policy_module)


@pytest.mark.usefixtures("allow_list")
def test_a_module_registered_in_the_entry_point_group_is_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy_module: str) -> None:
    dist = tmp_path / "site" / "my_policies-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-policies\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{plugins.ENTRY_POINT_GROUP}]\nfirst = {policy_module}\n")
    assert not plugins.is_allowed(policy_module)
    monkeypatch.syspath_prepend(str(dist.parent))  # the package is installed
    assert plugins.is_allowed(policy_module) and policy_module in plugins.allowed() and not plugins.is_allowed("other_policy")
    assert kibitz.make_bot(f"ismcts:plugin={policy_module}").plugin is not None  # type: ignore[attr-defined]


def test_the_engine_and_the_commands_that_take_specs_allow_a_plugin_by_flag(tmp_path: Path, policy_module: str) -> None:
    """``kibitz engine --allow-plugin MODULE`` and ``kibitz-engine --allow-plugin MODULE`` (and the
    same flag on match): the module loads from the Plugin option; without the flag it does not."""
    state = kibitz.Game("yucata", players=2, start="0").new_initial_state(1)
    lines = [f"setoption name Plugin value {policy_module}", "newgame yucata start=0 players 2 seat 0",
             f"position view {state.view(0).notation()}", "go iterations 40", "quit"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    engines = {
        "kibitz engine": [sys.executable, "-m", "kibitz", "engine"],
        "kibitz-engine": [sys.executable, "-c", "import sys; from kibitz.protocol import main; sys.exit(main())"],
    }
    for name, command in engines.items():
        for flag in ([], ["--allow-plugin", policy_module]):
            done = subprocess.run([*command, *flag], input="\n".join(lines) + "\n", capture_output=True, text=True, env=env, timeout=120, check=False)
            out = done.stdout.splitlines()
            assert done.returncode == 0, (name, done.stderr)
            assert out[-1].split()[0] == "bestmove" and state.parse_move(out[-1].split()[1]) in state.legal_actions()
            assert any("is not allowed" in line for line in out) == (not flag), (name, out)
        bad = subprocess.run([*command, "--allow-plugin", "../x"], input="quit\n", capture_output=True, text=True, env=env, timeout=120, check=False)
        assert bad.returncode == 2 and "error: plug-in '../x': not a module name" in bad.stderr


@pytest.mark.usefixtures("allow_list")
def test_the_match_command_allows_a_plugin_by_flag(policy_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    from kibitz.cli import main

    argv = ["match", "yucata", "--players", "2", "--bots", f"ismcts:iterations=20,plugin={policy_module}", "greedy", "--games", "2", "--processes", "1"]
    assert main(argv) == 2 and "is not allowed" in capsys.readouterr().err
    assert main([*argv, "--allow-plugin", policy_module]) == 0


# --- tile Canasta's fitted evaluator (bots/canasta_tiles/plugin.pyx, bench/canasta_value.py) ---

def canasta_team_features(melds: str, opened: int, bonus: int) -> list[float]:
    """A team's seven features, from its melds as the notation writes them, scored by the
    independent reference (tests/canasta_reference.py): a canasta counts its bonus in units of
    a rank canasta's (a twos canasta 2 or 2.33)."""
    points = clean = dirty = long_melds = short_melds = 0.0
    for text in [] if melds in ("-", "") else melds.split(","):
        rank, meld = parse_meld(text)
        points += meld_value(rank, meld)
        if meld[1] + meld[2] == 0:
            clean += canasta_bonus(rank, meld) / 500
        else:
            dirty += canasta_bonus(rank, meld) / 300
        long_melds += sum(meld) in (5, 6)
        short_melds += sum(meld) in (3, 4)
    return [points / 100, clean, dirty, long_melds, short_melds, opened, bonus * (2 * opened - 1)]


def canasta_features(state: kibitz.State, seat: int) -> list[float]:
    """The evaluator's 33 features, computed from the notation rather than the tensor."""
    f = state.fields()
    hands = [counts(h) for h in f["hands"].split(",")]
    melds, opened, bonus = f["melds"].split("/"), [int(x) for x in f["opened"].split(",")], [int(x) for x in f["bonus"].split(",")]
    x: list[float] = []
    for k in range(2):
        x += canasta_team_features(melds[(seat + k) % 2], opened[(seat + k) % 2], bonus[(seat + k) % 2])
    sizes = [sum(hands[(seat + k) % 4]) / 10 for k in range(4)]
    x += [*sizes, min(sizes[0], sizes[2]), min(sizes[1], sizes[3])]
    own = hands[seat]
    naturals = [own[rank] for rank in RANKS if rank != TWO]
    x += [own[TWO] + own[JOKER], own[K3], sum(n == 2 for n in naturals), sum(n >= 3 for n in naturals)]
    stock, below = sum(counts(f["stock"])), sum(counts(f["pile"]))
    takeable = f["top"] != "-" and KIND[f["top"]] in RANKS and KIND[f["top"]] != TWO
    x += [stock / 10.6, below / 10.6, below / 10.6 if takeable else 0.0]
    x += [float(state.current_player == (seat + k) % 4) for k in range(4)]
    x += [(x[0] - x[7]) * stock / 106, x[1] + x[2] - x[8] - x[9]]
    return x


def test_canasta_evaluator_features_are_what_the_position_shows() -> None:
    """The features the evaluator reads from a seat's tensor equal the same quantities counted
    from the position's notation, for every seat at every decision of games played with
    random lays (so melds, canastas, the twos meld and piles of every size occur)."""
    from kibitz.plugins import canasta_tiles as plugin  # type: ignore[attr-defined]

    rng = np.random.default_rng(3)
    seen = {"canasta": 0, "twos meld": 0}
    for seed in range(12):
        state = kibitz.Game("canasta_tiles").new_initial_state(seed=seed)
        while not state.is_terminal():
            if state.current_player == kibitz.CHANCE:
                state.apply(state.sample_chance(int(rng.integers(1 << 62))))
                continue
            for seat in range(4):
                assert plugin.value_features(state.observation_tensor(seat)) == pytest.approx(canasta_features(state, seat), abs=1e-5)
            melds = state.fields()["melds"]
            seen["twos meld"] += "2x" in melds.replace("12x", "")
            seen["canasta"] += any(sum(canasta_team_features(m, 1, 0)[1:3]) > 0 for m in melds.split("/"))
            actions = state.legal_actions()
            lays = [a for a in actions if state.move_to_string(a).startswith("lay:")]
            state.apply(int(rng.choice(lays if lays and rng.random() < 0.7 else actions)))
    assert all(seen.values()), seen


def test_canasta_evaluator_predicts_rounds_it_was_not_fitted_to() -> None:
    """On greedy rounds of seeds it was not fitted to, the evaluator's chance for the searching
    seat's team beats the constant guess of ln 2 by a clear margin (fitted: 0.586 held out), and
    it gives both partners one value and the opponents the rest."""
    from kibitz.match import play_game, positions

    plugin = plugins.load("kibitz.plugins.canasta_tiles:evaluate")
    game = kibitz.Game("canasta_tiles")
    losses: list[float] = []
    for seed in range(150):
        record = play_game(game, ["greedy"] * 4, seed=10_000 + seed)
        for decision, (state, _) in enumerate(positions(record)):
            if state.current_player != kibitz.CHANCE and decision % 5 == 0:
                seat = int(state.current_player)
                values = plugin.evaluate(state.observation_tensor(seat), seat, 4)
                assert values[0] == values[2] and values[1] == values[3] == pytest.approx(1 - values[0])
                won = record.returns[seat]
                losses.append(-(won * np.log(values[0]) + (1 - won) * np.log(values[1])))
    assert len(losses) > 3000
    assert np.mean(losses) < 0.65  # 0.61 when written; the constant guess: 0.693
