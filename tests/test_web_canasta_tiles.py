"""The tile Canasta table view (python/kibitz/web/static/games/canasta_tiles.js) in a real
browser. It draws models of real positions as the server builds them (kibitz.web.table), and the
checks are about what is special in this game: a turn is several decisions (draw or take, a rank
then the tiles of each lay, the known-tiles answer, done, discard), each made by clicking tiles,
melds, the stock and the pile or a button, and every legal decision is reachable that way; the
other racks are backs with their known tiles face up; canastas are marked natural or mixed, the
pile blocked or not; the round's score adds up as the engine's does; a whole round is played by
clicks.

The browser checks need headless Chromium and Selenium: they fail when ``CI`` is set and either
is missing, and are skipped otherwise. The score breakdown is also checked under Node.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import kibitz
from kibitz.bots import make_bot
from kibitz.errors import IllegalMoveError, NotationError
from kibitz.game import Move, State
from kibitz.web.table import Entry, entry_of
from web_browser import PHONE, STATIC, acts, bots_choose, game_positions, model_of, node_json, run, show, view_page

GAMES = STATIC / "games"
GAME = "canasta_tiles"
FAST = {"mode": "one_round"}  # one round: a whole game is a few dozen of the person's clicks

# Added to the page that draws models (tests/web_browser.py): explores every click sequence.
EXPLORE = """
const legalOf = (root) => [...root.querySelectorAll("[data-legal]")];
const signature = (root) => JSON.stringify([
  legalOf(root).map((e) => [e.tagName, e.dataset.move, e.dataset.kind, e.dataset.rank]),
  [...root.querySelectorAll(".ct-selected")].map((e) => e.dataset.kind),
  root.querySelector("[data-testid=status]").textContent]);
function replay(model, path) {
  const page = fresh(model, false); // off the page: no layout to wait for
  for (const i of path) legalOf(page.root)[i].dispatchEvent(new MouseEvent("click", { bubbles: true }));
  return page;
}
// Every sequence of clicks on data-legal elements: the moves they play, and the clicks that
// neither play a move nor change what can be clicked (which the contract forbids).
window.explore = (model) => {
  const reached = new Set();
  const stuck = [];
  const wrong = [];
  const seen = new Set();
  const queue = [[]];
  while (queue.length) {
    const path = queue.shift();
    const before = replay(model, path);
    const sig = signature(before.root);
    const count = legalOf(before.root).length;
    const tried = new Set();
    for (let i = 0; i < count; i++) {
      // Clicks on alike elements (two 5s of the rack) do alike things: one of them is tried.
      const e = legalOf(before.root)[i];
      const alike = [e.tagName, e.dataset.move, e.dataset.kind, e.dataset.rank, e.dataset.testid, e.classList.contains("ct-selected")].join();
      if (tried.has(alike)) continue;
      tried.add(alike);
      const page = replay(model, path);
      const target = legalOf(page.root)[i];
      const move = target.getAttribute("data-move");
      target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      if (page.acts.length) {
        reached.add(page.acts.at(-1));
        if (move !== null && move !== page.acts.at(-1)) wrong.push([move, page.acts.at(-1)]);
        continue;
      }
      if (move !== null) wrong.push([move, null]);
      const after = signature(page.root);
      if (after === sig) stuck.push(target.outerHTML.slice(0, 120));
      else if (!seen.has(after)) { seen.add(after); queue.push([...path, i]); }
    }
  }
  return { reached: [...reached], stuck, wrong };
};
"""


# -- positions of real games, as a seat's browser receives them (tests/web_browser.py) ---------


def round_positions(seed: int, wild: float = 0.0, **options: str) -> Iterator[tuple[State, list[Entry]]]:
    """Every decision point of a seeded round between policy bots that play a random legal move
    with probability ``wild`` (so pickups, opening stages and known-tile answers come up), and
    its end, with the entries so far."""
    bots = bots_choose(["policy"] * 4, seed)

    def choose(state: State, seat: int, rng: random.Random) -> Move:
        return rng.choice(state.legal_moves_for(seat)) if rng.random() < wild else bots(state, seat, rng)

    return game_positions(kibitz.Game(GAME, **{**FAST, "starter": "0", **options}), seed, choose)


def phase(state: State) -> str:
    return state.fields()["phase"]


@pytest.fixture(scope="module")
def positions() -> list[tuple[State, list[Entry]]]:
    """Decision points of three rounds (one with the Joker button, one with the pile hidden):
    every one with a choice of a rarer kind (first discard, pickup, opening with the pile,
    known tiles, the Joker button), and of the common ones (draw, meld phase, lay) three per
    round spread over it."""
    out = []
    for seed, wild, options in ((5, 0.35, {}), (6, 0.35, {"joker_button": "1"}), (7, 0.2, {"pile_fully_visible": "0"})):
        own = [(s, e) for s, e in round_positions(seed, wild, **options) if not s.is_terminal()]
        rare = [(s, e) for s, e in own if phase(s) in ("first", "take", "copies") or {"take", "joker"} & set(s.legal_moves())]
        for kind in ("draw", "meld", "shape"):
            common = [(s, e) for s, e in own if phase(s) == kind and (s, e) not in rare]
            rare += common[:: max(1, len(common) // 3)][:3]
        out += rare
    return out


# -- the score breakdown, under Node ---------------------------------------------------------------


def test_the_round_score_adds_up_as_the_engines() -> None:
    """The breakdown the view shows at the end (melds, canastas, threes, going out, hands) sums
    to the engine's round score, over rounds ending every way."""
    cases = []
    for seed, wild in [(100 + k, 1.0 if k % 2 else 0.0) for k in range(12)] + [(65, 1.0)]:  # seed 65: a bonus 3 ends the round
        state, _ = list(round_positions(seed, wild))[-1]
        cases.append(kibitz.notation_fields(state.notation()))
    read = node_json({"readView, roundScore": GAMES / GAME / "tiles.js"},
                     "(f) => { const v = readView(f, 0); return [roundScore(v, 0), roundScore(v, 1)]; }", cases)
    ends = Counter(f["end"] for f in cases)
    assert set(ends) == {"out", "stock", "bonus3"}, ends
    for fields, parts in zip(cases, read):
        assert [p["total"] for p in parts] == [int(x) for x in fields["last_round"].split(",")]


# -- in the browser --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    """A headless Chromium showing a page that draws models with the module and explores its
    clicks (tests/web_browser.py)."""
    with view_page(GAME, EXPLORE) as driver:
        yield driver


def click(page: Any, selector: str, index: int = 0) -> None:
    """Clicks the ``index``-th element ``selector`` finds (as a person would: the event bubbles)."""
    found = run(page, "const e = document.querySelectorAll(arguments[0])[arguments[1]];"
                " if (e) e.dispatchEvent(new MouseEvent('click', {bubbles: true})); return !!e;", selector, index)
    assert found, f"nothing to click at {selector!r}"


def moves_of(page: Any, selector: str = "[data-legal]") -> list[str | None]:
    return list(run(page, "return [...document.querySelectorAll(arguments[0])].map((e) => e.getAttribute('data-move'))", selector))


def status(page: Any) -> str:
    return str(run(page, "return document.querySelector('[data-testid=status]').textContent"))


def test_the_module_names_the_game(page: Any) -> None:
    assert run(page, "return window.title") == "Tile Canasta"


def test_every_legal_decision_is_reached_by_clicks_and_nothing_else(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """At each decision point of three rounds (every phase: first discard, draw or take, the
    meld phase, the shape of each lay, the opening with the pile, the known-tiles answer, the
    Joker button), every sequence of clicks on data-legal elements plays a legal move, every
    legal move is reached, and every data-legal click makes progress."""
    seen = Counter()
    for state, entries in positions:
        seat = state.current_player
        model = model_of(state, entries, seat)
        run(page, "window.errors = []")
        found = run(page, "return window.explore(arguments[0])", model)
        assert run(page, "return window.errors") == []
        where = f"{phase(state)} {state.view(seat).notation()}"
        assert found["stuck"] == [], where
        assert found["wrong"] == [], where
        assert sorted(found["reached"]) == sorted(model["legal"]), where
        seen.update(m.split(":")[0] for m in model["legal"])
        seen[phase(state)] += 1
    for kind in ("first", "draw", "take", "meld", "shape", "copies", "rank", "lay", "discard", "known", "done", "joker"):
        assert seen[kind], f"no {kind} among the positions: {seen}"


def first_position(test: Any, seeds: range = range(40), wild: float = 0.0, **options: str) -> tuple[State, list[Entry]]:
    """The first decision point of seeded rounds where ``test(state)`` holds."""
    for seed in seeds:
        for state, entries in round_positions(seed, wild, **options):
            if not state.is_terminal() and test(state):
                return state, entries
    raise AssertionError(f"no position found in seeds {seeds}")


def after(state: State, entries: list[Entry], move: str) -> tuple[State, list[Entry]]:
    state = state.clone()
    action = state.parse_move(move)
    entries = [*entries, entry_of(state, action)]
    state.apply(action)
    return state, entries


def new_meld_with_a_wild(state: State) -> bool:
    """A meld phase where a rank the team has no meld of can be laid with a wild from the hand."""
    if phase(state) != "meld":
        return False
    for move in state.legal_moves():
        if move.startswith("rank:") and move != "rank:2":
            shaped = state.clone()
            shaped.apply(move)
            if any("+" in lay for lay in shaped.legal_moves()):
                melds = state.fields()["melds"].split("/")[state.current_player % 2]
                return not any(m.split("x")[0] == move[5:] for m in melds.split(","))
    return False


def test_a_lay_is_a_tile_then_its_meld_then_the_tiles_to_lay(page: Any) -> None:
    """The meld phase: a rack tile chosen offers the pile (discard) and its meld (here a new
    one); the meld starts the lay (rank:R). The shape step: the meld alone lays every natural
    of the rank; choosing tiles (naturals, a wild) changes the lay the meld plays."""
    state, entries = first_position(new_meld_with_a_wild, wild=0.3)
    seat = state.current_player
    rank = next(m[5:] for m in state.legal_moves() if m.startswith("rank:") and m != "rank:2" and any(
        "+" in lay for lay in after(state, entries, m)[0].legal_moves()))
    show(page, model_of(state, entries, seat))
    assert moves_of(page, ".ct-rack [data-legal]") == [None] * len(moves_of(page, ".ct-rack [data-legal]"))  # tiles are chosen, not played
    click(page, f".ct-rack [data-kind='{rank}']")
    assert "chosen" in status(page)
    assert moves_of(page, ".ct-rack [data-legal]") == []  # one tile at a time
    assert moves_of(page, "[data-testid=new-meld]") == [f"rank:{rank}"]
    pile = moves_of(page, "[data-testid=pile]")
    assert pile == ([f"discard:{rank}"] if f"discard:{rank}" in state.legal_moves() else [None])
    click(page, "[data-testid=new-meld]")
    assert acts(page) == [f"rank:{rank}"]

    state, entries = after(state, entries, f"rank:{rank}")
    lays = state.legal_moves()
    show(page, model_of(state, entries, seat))
    assert run(page, "return document.querySelectorAll('.ct-selected').length") == 0
    plain = max((m for m in lays if "+" not in m), key=lambda m: int(m.split("x")[1]), default=None)
    assert moves_of(page, "[data-testid=button-lay]") == [plain]
    wild = "J" if any("+J" in m for m in lays) else "2"
    naturals = int(max((m for m in lays if f"+{wild}" in m), key=lambda m: int(m.split("x")[1].split("+")[0])).split("x")[1].split("+")[0])
    click(page, f".ct-rack [data-kind='{wild}']:not(.ct-selected)")
    for _ in range(naturals):
        click(page, f".ct-rack [data-kind='{rank}']:not(.ct-selected)")
    want = f"lay:{rank}x{naturals}+{wild}"
    assert run(page, "return document.querySelectorAll('.ct-selected').length") == naturals + 1
    assert moves_of(page, "[data-testid=new-meld]") == [want]
    assert want in lays
    assert "Chosen:" in status(page)
    click(page, f".ct-selected[data-kind='{wild}']")  # a chosen tile clicked again goes back
    assert run(page, "return document.querySelectorAll('.ct-selected').length") == naturals
    assert f"+{wild}" not in (moves_of(page, "[data-testid=new-meld]")[0] or "")
    click(page, f".ct-rack [data-kind='{wild}']:not(.ct-selected)")
    click(page, "[data-testid=new-meld]")
    assert acts(page) == [want]


def test_the_other_racks_are_backs_with_their_known_tiles_face_up(page: Any) -> None:
    """Every seat's view through a round (movers and waiting seats): the own rack tile by tile,
    each other rack as its known tiles face up and the rest as backs, with its size."""
    checked = 0
    for state, entries in list(round_positions(8, 0.3))[::5]:
        if state.is_terminal() or phase(state) not in ("draw", "meld"):
            continue
        view = state.view(0).fields()
        show(page, model_of(state, entries, 0))
        drawn = run(page, """
          const hand = (s) => document.querySelector(`[data-testid=hand-${s}]`);
          const kinds = (e) => [...e.querySelectorAll("[data-kind]")].map((t) => t.dataset.kind).sort();
          return [0, 1, 2, 3].map((s) => ({ faces: kinds(hand(s)), backs: hand(s).querySelectorAll(".ct-back").length,
                                            text: hand(s).textContent,
                                            status: document.querySelector("[data-testid=status]").textContent }));""")
        hands = view["hands"].split(",")
        known = [k.split(".") if k != "-" else [] for k in view["known"].split(",")]
        assert drawn[0]["faces"] == sorted(hands[0].split(".")) and drawn[0]["backs"] == 0
        for seat in (1, 2, 3):
            size = int(hands[seat].lstrip("?"))
            assert drawn[seat]["faces"] == sorted(known[seat])
            assert drawn[seat]["backs"] == size - len(known[seat])
            assert f"· {size} tile" in drawn[seat]["text"]
        assert ("Waiting" in drawn[0]["status"]) == (state.current_player != 0)
        checked += 1
    assert checked > 10


def test_canastas_the_pile_the_stock_and_the_scores_are_drawn(page: Any) -> None:
    """Through rounds: each meld of 7 or more is a canasta marked natural (no wild) or mixed,
    the others show how far they are; the pile says when a wild or a 3 on top blocks it; the
    stock's count and both teams' totals are written."""
    kinds = Counter()
    for seed in (9, 10):
        for state, entries in list(round_positions(seed, 0.2))[::10]:
            fields = state.view(0).fields()
            show(page, model_of(state, entries, 0))
            drawn = run(page, """
              const text = (sel) => document.querySelector(sel).textContent;
              return { melds: [0, 1].map((t) => Object.fromEntries([...document.querySelectorAll(`[data-testid=melds-${t}] .ct-meld`)]
                         .map((m) => [m.dataset.rank, [m.getAttribute('class'), m.textContent]]))),
                       pile: text('[data-testid=pile]'), stock: text('[data-testid=stock] .ct-stock-count'), scores: text('[data-testid=scores]') };""")
            for team, melds in enumerate(fields["melds"].split("/")):
                listed = [] if melds == "-" else melds.split(",")
                assert sorted(drawn["melds"][team]) == sorted(meld.split("x")[0] for meld in listed)
                for meld in listed:
                    rank, rest = meld.split("x")
                    size = sum(int(p) if i == 0 else 1 for i, p in enumerate(rest.split("+")))
                    classes, words = drawn["melds"][team][rank]
                    if size >= 7:
                        kind = "natural" if "+" not in rest else "mixed"
                        assert f"ct-{kind}" in classes and kind in words
                        kinds[kind] += 1
                    else:
                        assert "ct-canasta" not in classes and f"{size}/7" in words
            assert ("BLOCKED" in drawn["pile"]) == (fields["top"] in ("2", "J", "k3"))
            assert drawn["stock"] == fields["stock"].lstrip("?")
            assert all(total in drawn["scores"] for total in fields["totals"].split(","))
            kinds["blocked"] += "BLOCKED" in drawn["pile"]
    assert kinds["natural"] and kinds["mixed"] and kinds["blocked"], kinds


def test_a_click_that_is_not_legal_is_sent_for_the_engine_to_refuse(page: Any) -> None:
    """The stock in the meld phase, a blocked pile at the draw, a tile of another number while
    laying: each click sends its move, the engine refuses it and says why."""
    cases = [
        (lambda s: phase(s) == "meld", "stock", "draw"),
        (lambda s: phase(s) == "draw" and "take" not in s.legal_moves() and s.fields()["top"] in ("2", "J", "k3"), "pile", "take"),
    ]
    for test, name, move in cases:
        state, entries = first_position(test, wild=0.3)
        show(page, model_of(state, entries, state.current_player))
        assert name not in run(page, "return [...document.querySelectorAll('[data-legal]')].map((e) => e.dataset.testid)")
        click(page, f"[data-testid={name}]")
        assert acts(page) == [move]
        with pytest.raises(IllegalMoveError):
            state.clone().apply(move)
    state, entries = first_position(lambda s: phase(s) == "shape")
    hand = state.view(state.current_player).fields()["hands"].split(",")[state.current_player].split(".")
    other = next(k for k in hand if k not in (state.fields()["chosen"], "2", "J"))
    show(page, model_of(state, entries, state.current_player))
    click(page, f".ct-rack [data-kind='{other}']")
    assert acts(page) == [f"rank:{other}"]
    with pytest.raises((IllegalMoveError, NotationError)):
        state.clone().apply(acts(page)[0])


def test_a_whole_round_is_played_by_clicks_and_shown_open_at_the_end(page: Any) -> None:
    """Seat 0 clicks data-legal elements at random (the hint marked at each step) against three
    policy bots until the round is over; then the open table shows every hand, the breakdown
    sums to the engine's round score, and the replay of it has nothing to click."""
    game = kibitz.Game(GAME, **FAST, starter="0")
    state = game.new_initial_state(seed=21)
    rng = random.Random(21)
    bots = [make_bot("policy", 30 + k) for k in range(4)]
    hinter = make_bot("policy", 99)
    entries: list[Entry] = []
    played: Counter[str] = Counter()
    while not state.is_terminal():
        if state.is_chance():
            action = state.sample_chance(rng.getrandbits(63))
        elif state.current_player != 0:
            move = bots[state.current_player].act(state.view(state.current_player))
            action = state.parse_move(move) if isinstance(move, str) else move
        else:
            hint = hinter.act(state.view(0))
            hint = hint if isinstance(hint, str) else state.move_to_string(hint)
            show(page, model_of(state, entries, 0, hint=hint))
            assert run(page, "return document.querySelectorAll('.hint').length") > 0, hint
            assert status(page)
            for _ in range(40):
                count = run(page, "return document.querySelectorAll('[data-legal]').length")
                click(page, "[data-legal]", rng.randrange(count))
                if acts(page):
                    break
            move = acts(page)[0]
            played[move.split(":")[0]] += 1
            action = state.parse_move(move)
        entries.append(entry_of(state, action))
        state.apply(action)
    assert played["draw"] + played["take"] > 3 and played["discard"] > 3 and played["lay"]

    fields = state.fields()
    show(page, model_of(state, entries, None))
    hands = fields["hands"].split(",")
    faces = run(page, "return [0, 1, 2, 3].map((s) => document.querySelectorAll(`[data-testid=hand-${s}] [data-kind]`).length)")
    assert faces == [0 if h == "-" else len(h.split(".")) for h in hands]
    assert run(page, "return document.querySelectorAll('.ct-back').length") == len(run(page, "return document.querySelectorAll('.ct-stock .ct-back, .ct-canasta .ct-back')"))
    table = run(page, "return [...document.querySelectorAll('[data-testid=result] tr')].map((r) => [...r.children].map((c) => c.textContent))")
    rows = {row[0]: [int(x) for x in row[1:]] for row in table[1:]}
    parts = ["Melded tiles", "Canasta bonuses", "Threes", "Going out", "Tiles left in hand"]
    assert [sum(rows[p][i] for p in parts) for i in (0, 1)] == rows["This round"] == [int(x) for x in fields["last_round"].split(",")]
    show(page, model_of(state, entries, 0, replay=True))
    assert run(page, "return document.querySelectorAll('[data-legal], .ct-click').length") == 0


def test_the_table_fits_a_phone(page: Any) -> None:
    """At 360 px the table is as wide as the screen, the rack's numbers are large, and no text
    of the table is smaller than about 10 px."""
    state, entries = first_position(lambda s: phase(s) == "meld" and len(s.fields()["melds"]) > 20, wild=0.2)
    show(page, model_of(state, entries, state.current_player), width=PHONE)
    sizes = run(page, """
      const svg = document.querySelector('[data-testid=board]');
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const px = (sel) => [...document.querySelectorAll(sel)].map((t) => Number(t.getAttribute('font-size')) * scale);
      return { page: document.documentElement.scrollWidth, svg: svg.getBoundingClientRect().width,
               rack: Math.min(...px('.ct-rack .ct-label')), all: Math.min(...px('svg text')) };""")
    assert sizes["svg"] <= PHONE and sizes["page"] <= PHONE, sizes
    assert sizes["rack"] >= 16 and sizes["all"] >= 9.5, sizes


def test_the_module_loads_nothing_from_elsewhere() -> None:
    """Plain ES modules that import only relative files present in the package; no other host."""
    files = [GAMES / f"{GAME}.js", *sorted((GAMES / GAME).glob("*.js"))]
    for path in files:
        for spec in re.findall(r"^import .* from \"([^\"]+)\";$", path.read_text(), flags=re.MULTILINE):
            assert spec.startswith(("./", "../")), (path.name, spec)
            assert (path.parent / spec).resolve().is_file(), (path.name, spec)
    assert "http" not in (GAMES / f"{GAME}.css").read_text()
