"""Tuning (kibitz.tune, ``kibitz tune``): search spaces from the parameter table, Optuna's TPE
and CMA-ES through ask/tell with SQLite storage, SPSA, resuming after a kill, the closing
SPRT and parameter sets that bot specs load by name. Trials are a few games of tiny searches."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import kibitz
from kibitz.bots import BOTS_PATH, parameter_set, write_parameter_set
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.stats import SPRT
from kibitz.tune import Dimension, tune

optuna = pytest.importorskip("optuna", reason="kibitz tune's tpe and cmaes need Optuna (pip install 'kibitz[tune]')")

GAME = kibitz.Game("just4fun_colours", players=2)
BOT = "ismcts:iterations=20"
SMALL = {"games_per_trial": 4, "verify": None, "processes": 1}


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # the default storage and ./bots are the test's own
    monkeypatch.delenv(BOTS_PATH, raising=False)
    return tmp_path


# -- the search space --------------------------------------------------------------------------


def test_dimensions_come_from_the_parameter_table() -> None:
    assert Dimension.parse("c") == Dimension("c", 0.0, 100.0)
    assert Dimension.parse("Exploration=0.1:3:log") == Dimension("c", 0.1, 3.0, log=True)
    assert Dimension.parse("dets=5:50") == Dimension("determinizations", 5, 50, integer=True)
    log = Dimension("c", 0.1, 10.0, log=True)
    assert log.value(0.5) == pytest.approx(1.0) and log.unit(1.0) == pytest.approx(0.5)
    assert Dimension("determinizations", 5, 50, integer=True).value(0.5) == 28 and log.value(2.0) == 10.0
    for text, named in [
        ("rollout", "not a tunable number"),
        ("seed", "not a tunable number"),
        ("c=0:1000", "out of range"),
        ("c=2:1", "LOW must be below HIGH"),
        ("c=0:1:log", "needs LOW above 0"),
        ("c=0:1:ln", "expected c=LOW:HIGH"),
        ("nosuch", "unknown search parameter"),
    ]:
        with pytest.raises(OptionError, match=named):
            Dimension.parse(text)


def test_rollout_policy_weights_are_dimensions_with_the_games_declared_ranges(in_tmp: Path) -> None:
    block = next(w for w in GAME.policy_weights if w.name == "block")
    assert Dimension.parse("policy.block", GAME) == Dimension("policy.block", block.low, block.high)
    assert Dimension.parse("policy.block=0:2", GAME) == Dimension("policy.block", 0.0, 2.0)
    for text, game, named in [
        ("policy.block", None, "without a game"),
        ("policy.nosuch", GAME, "has policy.block, policy.stones"),
        ("policy.block", kibitz.Game("yucata"), "yucata has policy.pale, policy.dark"),
        ("policy.block", kibitz.Game("goofspiel"), "goofspiel has none"),
        (f"policy.block=0:{block.high + 1}", GAME, f"outside policy.block's {block.low:g}..{block.high:g}"),
        ("policy.block=1:0.5", GAME, "LOW must be below HIGH"),
        ("policy.block=0:1:log", GAME, "needs LOW above 0"),
    ]:
        with pytest.raises(OptionError, match=named):
            Dimension.parse(text, game)
    # the start is the spec's weight, else the game's default; the set written holds the weight
    result = tune(GAME, BOT + ",policy.stones=2", ["policy.block=0:2", "policy.stones=0:8"], ["greedy"], 8, name="weights", **SMALL)
    assert result.start == {"policy.block": block.default, "policy.stones": 2.0}
    data = json.loads(Path("bots/just4fun_colours/weights.json").read_text())
    assert set(data["params"]) == {"iterations", "policy.block", "policy.stones"}
    assert dict(kibitz.make_bot("ismcts:preset=weights").params.policy) == pytest.approx(
        {"block": result.best["policy.block"], "stones": result.best["policy.stones"]}
    )


def test_bad_tuning_requests_fail_before_any_game() -> None:
    for kwargs, named in [
        ({"bot": "random"}, "only a search bot or greedy"),
        ({"bot": "greedy"}, "greedy is greedy, which does not read c"),
        ({"bot": "greedy", "space": ["policy.block"]}, "does not read policy.block: it reads eval.<name> weights"),
        ({"space": ["eval.area"]}, "is so_ismcts, which does not read eval.area"),
        ({"space": ["dets"]}, "does not read determinizations \\(it is read by pimc\\)"),
        ({"method": "grid"}, "method 'grid'"),
        ({"budget": 2}, "the budget at least one trial"),
        ({"space": ["c=1:2"]}, "starts at c=0.7, outside the tuned range"),
        ({"opponents": []}, "at least one opponent"),
        ({"opponents": ["nobot"]}, "unknown bot 'nobot'"),
        ({"space": ["c", "c"]}, "named twice"),
        ({"opponents": ["greedy", "random", "greedy"], "games_per_trial": 4}, "needs at least 6"),
    ]:
        args = {"bot": BOT, "space": ["c=0.1:5:log"], "opponents": ["greedy"], "budget": 8, **SMALL, **kwargs}
        with pytest.raises(OptionError, match=named):
            tune(GAME, args.pop("bot"), args.pop("space"), args.pop("opponents"), args.pop("budget"), **args)


# -- Optuna ------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["tpe", "cmaes"])
def test_a_study_starts_from_the_bot_and_keeps_the_best(method: str) -> None:
    result = tune(GAME, "ismcts:iterations=20,c=2", ["c=0.1:5:log", "epsilon"], ["greedy"], 12, method=method, **SMALL)
    assert [t.number for t in result.trials] == [0, 1, 2] and result.games == 12
    assert result.trials[0].params == {"c": 2.0, "epsilon": 0.1} == result.start  # the first trial measures the start
    assert result.best == max(result.trials, key=lambda t: t.value).params
    for trial in result.trials:
        assert 0.1 <= trial.params["c"] <= 5 and 0 <= trial.params["epsilon"] <= 1 and 0 <= trial.value <= 1
    assert Path("kibitz-tune.db").exists()  # the default SQLite storage


def test_a_killed_study_resumes_as_if_never_stopped(in_tmp: Path) -> None:
    args = (GAME, BOT, ["c=0.1:5:log"], ["greedy", "random"])
    whole = tune(*args, 12, storage=f"sqlite:///{in_tmp / 'whole.db'}", study="s", **SMALL)
    url = f"sqlite:///{in_tmp / 'cut.db'}"
    tune(*args, 8, storage=url, study="s", **SMALL)
    # a kill in the middle of a trial leaves it running in the storage
    study = optuna.load_study(study_name="s", storage=url)
    study.ask()
    resumed = tune(*args, 12, storage=url, study="s", **SMALL)
    assert resumed.trials == whole.trials and resumed.best == whole.best
    assert [t.state.name for t in optuna.load_study(study_name="s", storage=url).trials].count("FAIL") == 1


def test_many_workers_share_one_study(in_tmp: Path) -> None:
    url = f"sqlite:///{in_tmp / 'shared.db'}"
    first = tune(GAME, BOT, ["c=0.1:5:log"], ["greedy"], 8, storage=url, study="team", shared=True, **SMALL)
    # another machine joins with a larger budget: it adds trials to the same study
    second = tune(GAME, BOT, ["c=0.1:5:log"], ["greedy"], 16, storage=url, study="team", shared=True, **SMALL)
    assert second.trials[:2] == first.trials and len(second.trials) == 4


# -- SPSA --------------------------------------------------------------------------------------


def test_spsa_steps_theta_and_resumes_from_its_state_file(in_tmp: Path) -> None:
    args = (GAME, BOT, ["c=0.1:5:log", "epsilon"], [])
    whole = tune(*args, 16, method="spsa", storage=str(in_tmp / "whole.json"), **SMALL)
    tune(*args, 8, method="spsa", storage=str(in_tmp / "cut.json"), **SMALL)
    resumed = tune(*args, 16, method="spsa", storage=str(in_tmp / "cut.json"), **SMALL)
    assert resumed.trials == whole.trials and resumed.best == whole.best
    assert len(whole.trials) == 4 and whole.best == whole.trials[-1].theta
    # θ moves with the results: after a trial that θ+ won, θ steps towards θ+
    state = json.loads((in_tmp / "whole.json").read_text())
    assert len(state["trials"]) == 4
    with pytest.raises(OptionError, match="state of another SPSA run"):
        tune(GAME, BOT, ["c=0.1:5:log"], [], 16, method="spsa", storage=str(in_tmp / "whole.json"), **SMALL)


# -- verification and parameter sets -----------------------------------------------------------


def test_the_result_is_verified_written_and_loaded_by_name(in_tmp: Path) -> None:
    result = tune(
        GAME, BOT, ["c=0.1:5:log"], ["greedy"], 8, games_per_trial=4, processes=1, verify=SPRT(0, 50), verify_games=6, name="tuned-2p"
    )
    assert result.verification is not None and result.verification.games == 6
    assert result.preset == Path("bots/just4fun_colours/tuned-2p.json")
    data = json.loads(result.preset.read_text())
    assert data["version"] == 1 and data["bot"] == "ismcts" and data["params"] == {"iterations": 20, **result.best}
    assert data["tuning"]["verification"]["sprt"]["llr"] == pytest.approx(result.verification.sprt.llr)
    bot = kibitz.make_bot("ismcts:preset=tuned-2p")
    assert bot.params.c == pytest.approx(result.best["c"]) and bot.params.iterations == 20
    assert kibitz.make_bot("ismcts:preset=just4fun_colours/tuned-2p,iterations=50").params.iterations == 50
    # written again under the same name: the next version
    again = write_parameter_set("bots", "just4fun_colours", "tuned-2p", "ismcts", {"c": 1.5}, {}, {})
    assert json.loads(again.read_text())["version"] == 2 and parameter_set("tuned-2p")["params"] == {"c": 1.5}


def test_the_greedy_bots_evaluation_weights_are_tuned_and_written_as_a_set_it_loads(in_tmp: Path) -> None:
    area = next(w for w in GAME.eval_weights if w.name == "area")
    assert Dimension.parse("eval.area", GAME) == Dimension("eval.area", area.low, area.high)
    with pytest.raises(OptionError, match="eval.nope is not a greedy-evaluation weight to tune \\(just4fun_colours has eval.lines, eval.area, eval.stones\\)"):
        Dimension.parse("eval.nope", GAME)
    result = tune(GAME, "greedy:eval.lines=2", ["eval.area=0:12"], ["random"], 8, name="greedy-weights", **SMALL)
    assert result.start == {"eval.area": area.default}
    data = json.loads(Path("bots/just4fun_colours/greedy-weights.json").read_text())
    assert data["bot"] == "greedy" and data["params"] == {"eval.lines": 2.0, **result.best}
    bot = kibitz.make_bot("greedy:preset=greedy-weights,seed=4")
    assert isinstance(bot, kibitz.GreedyBot) and dict(bot.eval) == {"lines": 2.0, "area": result.best["eval.area"]}
    with pytest.raises(OptionError, match="takes no options except seed, preset and eval.<name> weights; got c"):
        write_parameter_set("bots", "just4fun_colours", "bad", "greedy", {"c": 0.3}, {}, {})


def test_a_plug_in_bots_tuned_set_names_its_plug_in(in_tmp: Path) -> None:
    yucata = kibitz.Game("yucata")
    spec = "ismcts:plugin=kibitz.plugins.yucata,eval_depth=2,iterations=20"
    result = tune(yucata, spec, ["c=0.1:5:log"], ["greedy"], 4, name="plugged", **SMALL)
    data = json.loads(Path("bots/yucata/plugged.json").read_text())
    assert data["params"] == {"iterations": 20, "eval_depth": 2, "plugin": "kibitz.plugins.yucata", **result.best}
    bot = kibitz.make_bot("ismcts:preset=plugged")
    assert bot.plugin is not None and bot.plugin.source == "kibitz.plugins.yucata" and bot.params.eval_depth == 2
    with pytest.raises(OptionError, match="nosuch"):
        write_parameter_set("bots", "yucata", "bad", "ismcts", {"plugin": "nosuch.module"}, {}, {})


def test_parameter_sets_are_found_by_name_and_bad_ones_named(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "quick" is a name no shipped preset uses (they are strong, fast, timed, strong-4p)
    write_parameter_set(in_tmp / "elsewhere", "yucata", "quick", "ismcts", {"c": 0.3}, {}, {})
    with pytest.raises(OptionError, match="no parameter set 'quick'"):
        kibitz.make_bot("ismcts:preset=quick")
    monkeypatch.setenv(BOTS_PATH, str(in_tmp / "elsewhere"))
    assert kibitz.make_bot("ismcts:preset=quick").params.c == 0.3
    write_parameter_set("bots", "canasta_tiles", "quick", "ismcts", {"c": 0.4}, {}, {})
    with pytest.raises(OptionError, match="exists for canasta_tiles, yucata: say which"):
        kibitz.make_bot("ismcts:preset=quick")
    assert kibitz.make_bot("ismcts:preset=canasta_tiles/quick").params.c == 0.4
    Path("bots/yucata").mkdir(parents=True)
    Path("bots/yucata/broken.json").write_text('{"params": 1}')
    with pytest.raises(OptionError, match="broken.json: not a parameter set"):
        kibitz.make_bot("ismcts:preset=quick")
    with pytest.raises(OptionError, match="name 'a b'"):
        write_parameter_set("bots", "yucata", "a b", "ismcts", {}, {}, {})
    with pytest.raises(OptionError, match="out of range"):
        write_parameter_set("bots", "yucata", "x", "ismcts", {"c": -1.0}, {}, {})


def test_kibitz_tune_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tune", "just4fun_colours", "--players", "2", "--bot", BOT, "--params", "c=0.1:5:log", "--opponents", "greedy"]
    argv += ["--budget", "8", "--games-per-trial", "4", "--processes", "1", "--verify-games", "4", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["trials"]) == 2 and data["preset"] == "bots/just4fun_colours/tuned-2p.json"
    assert main([*argv[:-1], "--method", "spsa", "--no-verify", "--name", "spsa-2p"]) == 0
    assert "spsa: 2 trials, 8 games" in capsys.readouterr().out
    assert main(["tune", "just4fun_colours", "--bot", BOT, "--params", "rollout", "--budget", "8", "--opponents", "greedy"]) == 2
    assert "not a tunable number" in capsys.readouterr().err


@pytest.mark.parametrize(
    "url, named",
    [
        ("notaurl", "storage 'notaurl': not a database URL; expected <scheme>://..., e.g. sqlite:///kibitz-tune.db"),
        ("sqlite:////nonexistent/dir/x.db", "storage 'sqlite:////nonexistent/dir/x.db': the folder /nonexistent/dir does not exist"),
        ("foo://x", "storage 'foo://x': unknown database scheme 'foo'; use sqlite, postgresql, mysql or another SQLAlchemy dialect"),
        ("mysql://user:secret@host/db", "storage 'mysql://user:\\*\\*\\*@host/db': the database driver 'MySQLdb' for mysql is not installed: pip install 'mysqlclient'"),
        ("mysql+pymysql://user@host/db", "storage 'mysql\\+pymysql://user@host/db': the database driver 'pymysql' for mysql is not installed: pip install 'PyMySQL'"),
        ("postgresql+psycopg2://user@host/db", "storage 'postgresql\\+psycopg2://user@host/db': the database driver 'psycopg2' for postgresql is not installed: pip install 'psycopg2-binary'"),
        ("sqlite:///.", "storage 'sqlite:///.': . is a folder, not a database file"),
    ],
)
def test_a_storage_url_that_cannot_work_is_named_with_what_is_wrong(
    url: str, named: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of these ended in a SQLAlchemy or Optuna traceback; now ``kibitz tune`` says which URL
    and what is wrong before any game is played (drivers hidden, as on a machine without them)."""
    for driver in ("MySQLdb", "pymysql", "psycopg2", "psycopg"):
        monkeypatch.setitem(sys.modules, driver, None)
    argv = ["tune", "just4fun_colours", "--players", "2", "--bot", BOT, "--params", "c=0.1:5:log", "--opponents", "greedy"]
    assert main([*argv, "--budget", "4", "--games-per-trial", "4", "--no-verify", "--storage", url]) == 2
    err = capsys.readouterr().err
    assert re.match(f"error: {named}", err) and err.count("\n") == 1, err  # one line, no traceback
    assert "secret" not in err and not list(Path().glob("*.db"))


def test_a_study_that_cannot_be_opened_is_named(tmp_path: Path) -> None:
    """A URL that passes the checks but whose database refuses (here a file that is not SQLite)."""
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(OptionError, match=r"storage 'sqlite:///.*garbage.db': cannot open the study there \(.*\)"):
        tune(GAME, BOT, ["c=0.1:5:log"], ["greedy"], 4, storage=f"sqlite:///{garbage}", **SMALL)


def test_a_bad_spsa_state_file_is_named(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    for text, named in [("{not json", "is not an SPSA state file"), ("[1, 2]", "is not an SPSA state file"),
                        ('{"format": 2, "trials": []}', "SPSA state format 2 is newer than this kibitz reads")]:
        state.write_text(text)
        with pytest.raises(OptionError, match=named):
            tune(GAME, BOT, ["c=0.1:5:log"], [], 4, method="spsa", storage=str(state), **SMALL)
