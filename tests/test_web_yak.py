"""The Yak table view (python/kibitz/web/static/games/yak.js) in a real browser: it draws models of
real positions as the server builds them (kibitz.web.table), and each check is about what is
special in this game: every kind of decision (the Sunrise card, a purchase stone by stone, a
payment and an overflow token by token, a placement, a restock, a market take, a put) is made by
clicking the things it moves; the Sunrise choices stay face down until their reveal; the
towers' groups and scores are read as the engine scores them.

The browser checks need headless Chromium and Selenium: they fail when ``CI`` is set and either is
missing, and are skipped otherwise. The view's scoring is also checked against the engine under
Node, without a browser.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

import kibitz
from kibitz.errors import IllegalMoveError, NotationError
from kibitz.game import State
from kibitz.web.table import Entry
from web_browser import (
    LAPTOP,
    PHONE,
    STATIC,
    acts,
    bots_choose,
    deciders,
    game_positions,
    model_of,
    node_json,
    query,
    show,
    view_page,
)

GAMES = STATIC / "games"
GAME = "yak"
FOODS = ("meat", "milk", "bread")
VERBS = ("choose", "build", "pay", "overflow", "place", "restock", "take", "put")


# -- positions of real games, as a seat's browser receives them (tests/web_browser.py) ---------


def positions_of(players: int, seed: int, bots: list[str], **options: str) -> Iterator[tuple[State, list[Entry]]]:
    """Every decision point of a seeded game between ``bots`` (a Sunrise once, for all its
    choosers) and its end, with the entries so far."""
    return game_positions(kibitz.Game(GAME, players=players, **options), seed, bots_choose(bots, seed))


@pytest.fixture(scope="module")
def positions() -> list[tuple[State, list[Entry]]]:
    """Decision points of whole games, 2 to 4 players (random players meet every kind of
    decision, overflows and multi-stone puts included; greedy ones build tall towers)."""
    games = ((2, 3, ["random", "greedy"], {}), (3, 4, ["random"] * 3, {}), (4, 5, ["greedy", "random", "greedy", "random"], {}),
             (4, 6, ["random"] * 4, {"variant": "master_builder"}))
    return [p for players, seed, bots, options in games for p in positions_of(players, seed, bots, **options)]


def verb(state: State) -> str:
    return "" if state.is_terminal() else state.legal_moves_for(deciders(state)[0])[0].split()[0]


# -- the view's scoring, under Node ---------------------------------------------------------------

def test_the_view_scores_towers_as_the_engine_does(positions: list[tuple[State, list[Entry]]]) -> None:
    """The score the view shows for every seat (groups with the crystals' best colours, number of
    groups, singles, stupa, most food, bonus cards) is the engine's, over whole games, and the
    group sizes add up with the singles to the stones in the tower."""
    extra = [p for seed in (7, 8) for p in positions_of(2, seed, ["random", "random"], removal="even")]  # 8 colours, 2 players
    cases = [{"fields": state.fields()} for state, _ in positions + extra]
    read = node_json(
        {"readFields": GAMES / GAME / "table.js", "scoreTable": GAMES / GAME / "score.js"},
        "({ fields }) => { const t = readFields(fields);\n"
        "  return scoreTable(t).map((s, seat) => ({ total: s.total, sizes: s.sizes, singles: s.singles,\n"
        "    stones: t.towers[seat].filter((k) => k !== null).length })); }",
        cases,
    )
    assert len(read) == len(cases) > 800
    crystals = 0
    for (state, _), seats in zip(positions + extra, read):
        assert [s["total"] for s in seats] == state.scores()
        for s in seats:
            assert sum(s["sizes"]) + s["singles"] == s["stones"]
        crystals += state.fields()["towers"].count("X")
    assert crystals > 100  # the crystals' colours were put to the test


# -- in the browser --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    """A headless Chromium showing a page that draws models with the module (tests/web_browser.py)."""
    with view_page(GAME) as driver:
        yield driver


def legal_targets(page: Any) -> dict[str, Any]:
    """What the page offers: the data-move of every element, and how many are data-legal."""
    return dict(page.execute_script(
        "const all = [...document.querySelectorAll('#root [data-legal]')];"
        "return { moves: all.map((e) => e.dataset.move).filter((m) => m), count: all.length,"
        "  unmarked: all.filter((e) => !e.classList.contains('legal')).length };"))


def by_id(testid: str) -> str:
    return f'[data-testid="{testid}"]'


def within(small: list[str], big: list[str]) -> bool:
    """``small`` is a sub-multiset of ``big``."""
    return all(small.count(x) <= big.count(x) for x in small)


def pick(items: list[str], wanted: list[str]) -> list[int]:
    """Which of ``items`` make up the multiset ``wanted`` (the first of each kind)."""
    left, out = list(items), []
    for w in wanted:
        i = next(i for i, x in enumerate(left) if x == w and i not in out)
        out.append(i)
    return out


def click_path(model: dict[str, Any], move: str) -> tuple[list[str], str | None]:
    """The clicks that make ``move``, as a person would: the selectors of the things it moves
    in order, and a button that confirms the choice if the last thing does not play it (a
    purchase that could still grow)."""
    fields, seat = model["fields"], model["seat"]
    verb_, *rest = move.split()
    tokens = [f for f, n in zip(FOODS, map(int, fields["yurts"].split("/")[seat].split("."))) for _ in range(n)]
    stones = fields["carts"].split("/")[seat].split(":")[1].replace("-", "")
    if verb_ == "choose":
        return [by_id(f"choice-{rest[0]}")], None
    if rest == ["-"]:
        return [f'button[data-move="{move}"]'], None
    if verb_ == "build":
        return [by_id(f"cart-stone-{seat}-{i}") for i in pick(list(stones), rest)], f'button[data-move="{move}"]'
    if verb_ == "pay":
        return [by_id(f"yurt-{seat}-{i}") for i in pick(tokens, rest)], None
    if verb_ in ("overflow", "restock"):
        return [by_id(f"cart-food-{seat}-{f}") for f in rest], None
    if verb_ == "take":
        return [by_id(f"market-{f}") for f in rest], None
    kind, at = rest
    pieces = fields["bought" if verb_ == "place" else "drawn"]
    first = [by_id(f"{'bought' if verb_ == 'place' else 'drawn'}-{pieces.index(kind)}")] if len(set(pieces)) > 1 else []
    return first + [by_id(f"pos-{seat}-{at}" if verb_ == "place" else f"cart-{at}")], None


def play_by_clicks(page: Any, model: dict[str, Any], move: str) -> None:
    """Makes ``move`` by clicking: every click is on a data-legal element, nothing is played
    before the last one, and the page then asks to play exactly ``move``."""
    path, confirm = click_path(model, move)
    for k, selector in enumerate(path):
        (target,) = query(page, selector)
        assert target.get_attribute("data-legal") is not None, (move, selector)
        target.click()
        if k < len(path) - 1:
            assert acts(page) == [], (move, selector)
    if not acts(page) and confirm:
        (button,) = query(page, confirm)
        assert button.get_attribute("data-legal") is not None
        button.click()
    assert acts(page) == [move]


def test_the_module_names_the_game(page: Any) -> None:
    assert page.execute_script("return window.title") == "Yak"


def test_every_kind_of_decision_is_made_by_clicking_what_it_moves(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """Positions of every kind of decision, at a phone's and a laptop's width: a legal move
    (the hint's, shown) made by clicking the things it moves; the page never offers a move that
    is not legal, every data-legal element is drawn as legal, and the stones the others placed
    since this seat's last decision are marked."""
    rng = random.Random(5)
    marked = 0
    by_verb: dict[str, list[tuple[State, list[Entry]]]] = {v: [] for v in VERBS}
    for state, entries in positions:
        if not state.is_terminal():
            by_verb[verb(state)].append((state, entries))
    for v, found in by_verb.items():
        assert len(found) >= 3, v
        for k, (state, entries) in enumerate(rng.sample(found, 3)):
            seat = deciders(state)[0]
            legal = state.legal_moves_for(seat)
            move = rng.choice(legal)
            model = model_of(state, entries, seat, hint=move)
            show(page, model, PHONE if k % 2 else LAPTOP)
            offered = legal_targets(page)
            assert offered["count"] > 0 and offered["unmarked"] == 0
            assert set(offered["moves"]) <= set(legal)
            assert query(page, "#root .hint"), move
            mine = [i for i, e in enumerate(entries) if e.seat == seat]
            placed = [e for e in entries[mine[-1] + 1 if mine else 0:] if e.text.startswith("place ")]
            marked += len(placed)
            for e in placed:
                assert "last" in query(page, by_id(f"pos-{e.seat}-{e.text.split()[2]}"))[0].get_attribute("class")
            assert f"Round {state.fields()['round']}" in query(page, by_id("prompt"))[0].text
            play_by_clicks(page, model, move)
    assert marked > 0  # the other seats' placements since this seat's last decision were marked


def test_a_purchase_is_picked_stone_by_stone(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """A Build: a stone clicked joins the purchase (picked, no longer offered); the stones left
    offered are those that can still join a legal purchase; a purchase that could still grow is
    confirmed by its button; 'Clear' (never data-legal) starts again; 'Buy nothing' is a button."""
    for state, entries in positions:
        if verb(state) == "build" and any(len(m.split()) == 3 for m in state.legal_moves()):
            break
    seat = state.current_player
    model = model_of(state, entries, seat)
    show(page, model)
    assert query(page, 'button[data-move="build -"][data-legal]')
    stones = model["fields"]["carts"].split("/")[seat].split(":")[1]
    first = next(m.split()[1] for m in state.legal_moves() if len(m.split()) == 3)
    query(page, by_id(f"cart-stone-{seat}-{stones.index(first)}"))[0].click()
    assert acts(page) == []
    assert "picked" in query(page, by_id(f"cart-stone-{seat}-{stones.index(first)}"))[0].get_attribute("class")
    purchases = [m.split()[1:] for m in state.legal_moves() if m != "build -"]
    offered = {int(e.get_attribute("data-testid").rsplit("-", 1)[1]) for e in query(page, f'[data-testid^="cart-stone-{seat}-"][data-legal]')}
    growing = {i for i, kind in enumerate(stones) if i != stones.index(first) and any(within([first, kind], p) for p in purchases)}
    assert offered == growing and offered
    buy = query(page, f'button[data-move="build {first}"]')
    assert buy and buy[0].get_attribute("data-legal") is not None
    clear = [b for b in query(page, "#root button") if b.text == "Clear"]
    assert clear and clear[0].get_attribute("data-legal") is None
    clear[0].click()
    assert not query(page, "#root .picked") and acts(page) == []
    buy = query(page, 'button[data-move^="build "]:not([data-move="build -"])')
    assert not buy


def test_the_sunrise_choices_stay_face_down_until_their_reveal(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """At Sunrise the seats that have chosen show a card back, the others an empty place; once
    this seat has chosen, its own card shows face up and nothing is offered. At Noon the cards of
    the seats still to act are backs, and their names appear nowhere in their places."""
    state, entries = next((s, e) for s, e in positions if s.is_simultaneous() and s.num_players == 4)
    model = model_of(state, entries, 0, waiting=[0, 2])
    show(page, model, PHONE)
    assert {e.get_attribute("data-move") for e in query(page, "[data-legal]")} == {"choose build", "choose restock", "choose market"}
    assert query(page, f"{by_id('card-1')} .card-back") and query(page, f"{by_id('card-3')} .card-back")
    assert query(page, f"{by_id('card-2')} .card-none") and not query(page, f"{by_id('card-2')} .card-back")
    assert "still to choose: You, greedy" in query(page, by_id("prompt"))[0].text
    query(page, by_id("choice-market"))[0].click()
    assert acts(page) == ["choose market"]
    show(page, model_of(state, entries, 0, waiting=[2], chosen="choose market"), PHONE)
    assert query(page, f"{by_id('card-0')} .card-market") and not query(page, "[data-legal]")
    assert "You chose market" in query(page, by_id("prompt"))[0].text
    noon = [(s, e) for s, e in positions if not s.is_terminal() and not s.is_simultaneous() and s.num_players == 4]
    hidden = 0
    for state, entries in noon[:: len(noon) // 8]:
        truth = state.fields()["cards"].split(",")
        seen = state.view(0).fields()["cards"].split(",")
        show(page, model_of(state, entries, 0))
        for seat, card in enumerate(seen):
            place = query(page, by_id(f"card-{seat}"))[0]
            if card == "?":
                hidden += 1
                assert query(page, f"{by_id(f'card-{seat}')} .card-back")
                assert truth[seat] not in place.get_attribute("textContent").lower()
                assert f"card-{truth[seat]}" not in place.get_attribute("innerHTML")
    assert hidden >= 8


def test_a_click_that_is_not_legal_is_sent_so_the_engine_says_why(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """A yurt token the cart refuses, and a tower place that cannot take the stone: not offered,
    but clicked they ask for the move, which the engine refuses."""
    sent = 0
    for state, entries in positions:
        if verb(state) not in ("pay", "place"):
            continue
        seat = state.current_player
        model = model_of(state, entries, seat)
        show(page, model)
        if verb(state) == "pay":
            cands = [e for e in query(page, f'[data-testid^="yurt-{seat}-"]') if e.get_attribute("data-legal") is None]
        else:
            if len(set(model["fields"]["bought"])) > 1:
                continue
            cands = [e for e in query(page, f'[data-testid^="pos-{seat}-"].yak-slot') if e.get_attribute("data-legal") is None]
        if not cands:
            continue
        cands[0].click()
        (attempt,) = acts(page)
        with pytest.raises((IllegalMoveError, NotationError)):
            state.clone().apply(attempt)
        sent += 1
        if sent >= 6:
            break
    assert sent >= 4


def test_a_finished_game_is_drawn_open_and_replayed_without_clicks(page: Any) -> None:
    """The open view of a finished game: each seat's score and place as the engine counts them,
    the result; in the replay nothing is offered and a click sends nothing."""
    *_, (state, entries) = positions_of(3, 9, ["greedy", "random", "greedy"])
    model = model_of(state, entries, None, replay=True)
    show(page, model, PHONE)
    for seat in range(3):
        rank = state.ranks()[seat]
        assert query(page, by_id(f"score-{seat}"))[0].text == f"{int(state.scores()[seat])} pts · {['1st', '2nd', '3rd'][rank - 1]}"
    assert query(page, by_id("prompt"))[0].text.startswith("Game over")
    assert not query(page, "[data-legal]")
    query(page, by_id("pos-0-1,0"))[0].click()
    assert acts(page) == []


def test_the_table_fits_a_phone(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """At 360 px nothing spills sideways and no text is smaller than 12 px, in a 4-player Master
    Builder game (the fullest table)."""
    state, entries = next((s, e) for s, e in reversed(positions) if s.num_players == 4 and not s.is_terminal() and s.fields()["bonus"] != "-")
    show(page, model_of(state, entries, state.current_player if not state.is_simultaneous() else 0), PHONE)
    width = page.execute_script("return document.documentElement.clientWidth")
    assert width == PHONE
    assert page.execute_script("return document.documentElement.scrollWidth") <= width
    smallest = page.execute_script(
        "return Math.min(...[...document.querySelectorAll('#root svg')].map((svg) => {"
        "  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;"
        "  return Math.min(...[...svg.querySelectorAll('text')].filter((t) => t.textContent.trim())"
        "    .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)); }))")
    assert smallest >= 12
