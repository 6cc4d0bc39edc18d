"""An independent model of Yak's decisions and scoring, written from the rules (docs/games/yak.md)
without the engine's code: the state is read from the engine's notation, the legal options of
every decision of §12.3 are found by brute force (every sub-multiset, every payment, every
position), and a tower is scored by trying every assignment of colours to its crystals.

Used by tests/test_yak.py to check the engine's legal lists at every decision of random games,
to count perft leaves, and to check crystal assignment.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

FOODS = ("meat", "milk", "bread")
CARTS = ("NO_MEAT", "NO_MILK", "NO_BREAD", "TWO_KINDS")
STONES = "01234567X"
BASE = {1: 1, 2: 3, 3: 5}
GROUP_POINTS = {2: 2, 3: 4, 4: 7, 5: 11, 6: 16}  # 7 and more: 22
NUM_GROUPS_POINTS = {3: 4, 4: 8, 5: 12, 6: 16}  # fewer than 3: 0; 7 and more: 20

# The tower: level L (1 = bottom) has 6 - L places; a place is (L, i).
PLACES = [(level, i) for level in range(1, 5) for i in range(6 - level)]


def supports(place: tuple[int, int]) -> list[tuple[int, int]]:
    level, i = place
    return [] if level == 1 else [(level - 1, i), (level - 1, i + 1)]


def contacts(place: tuple[int, int]) -> set[tuple[int, int]]:
    """Side by side, the two below, the two above (those that exist)."""
    level, i = place
    around = [(level, i - 1), (level, i + 1), (level - 1, i), (level - 1, i + 1), (level + 1, i - 1), (level + 1, i)]
    return {p for p in around if p in PLACES}


@dataclass
class Position:
    players: int
    step: str
    actor: int
    stations: list[tuple[str, Counter, tuple[int, int, int]]]
    yurts: list[tuple[int, int, int]]
    towers: list[dict[tuple[int, int], str]]
    market: tuple[int, int, int]
    bought: Counter
    paid: tuple[int, int, int]
    drawn: Counter
    colours: int


def fields(notation: str) -> dict[str, str]:
    return dict(word.split("=", 1) for word in notation.split()[1:])


def read(notation: str) -> Position:
    f = fields(notation)
    players = int(f["players"])
    food = lambda text: tuple(int(x) for x in text.split("."))  # noqa: E731
    stones = lambda text: Counter("" if text == "-" else text)  # noqa: E731
    stations = []
    for entry in f["carts"].split("/"):
        name, content, cart_food = entry.split(":")
        stations.append((name, stones(content), food(cart_food)))
    towers = []
    for text in f["towers"].split("/"):
        chars = text.replace("|", "")
        towers.append({place: chars[k] for k, place in enumerate(PLACES) if chars[k] != "."})
    baby, turn = int(f["baby"]), int(f["turn"])
    removed = {2: 2, 3: 1, 4: 0}[players]
    return Position(
        players=players,
        step=f["step"],
        actor=(baby + turn) % players,
        stations=stations,
        yurts=[food(y) for y in f["yurts"].split("/")],
        towers=towers,
        market=food(f["market"]),
        bought=stones(f["bought"]),
        paid=(0, 0, 0) if f["paid"] == "-" else food(f["paid"]),
        drawn=stones(f["drawn"]),
        colours=8 if f["removal"] == "even" else 8 - removed,
    )


def sub_multisets(items: Counter, size: int) -> set[tuple[str, ...]]:
    pool = sorted(items.elements(), key=STONES.index)
    return set(itertools.combinations(pool, size))


def food_text(counts: tuple[int, int, int]) -> str:
    words = [name for name, n in zip(FOODS, counts) for _ in range(n)]
    return " ".join(words) if words else "-"


def food_multisets(total: int, limit: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    return [c for c in itertools.product(*(range(n + 1) for n in limit)) if sum(c) == total]


def payments(cart: str, yurt: tuple[int, int, int], cost: int) -> list[tuple[int, int, int]]:
    """Every payment of exactly `cost` from the yurt that the cart accepts."""
    out = []
    for pay in food_multisets(cost, yurt):
        if cart == "TWO_KINDS":
            ok = sum(1 for n in pay if n) <= 2
        else:
            ok = pay[CARTS.index(cart)] == 0  # NO_MEAT forbids meat (index 0), ...
        if ok:
            out.append(pay)
    return out


def legal_places(tower: dict[tuple[int, int], str]) -> list[tuple[int, int]]:
    if not tower:
        return [p for p in PLACES if p[0] == 1]
    return [p for p in PLACES if p not in tower and all(s in tower for s in supports(p)) and contacts(p) & set(tower)]


def stone_word(stone: str) -> str:
    return stone


def legal_moves(notation: str) -> set[str]:
    """The texts of the legal options of the decision the notation is at (§12.3)."""
    s = read(notation)
    cart, stones, cart_food = s.stations[s.actor] if s.actor < len(s.stations) else (None, None, None)
    yurt = s.yurts[s.actor]
    tower = s.towers[s.actor]
    if s.step == "build":
        moves = {"build -"}
        for k in (1, 2, 3):
            if k > 14 - len(tower):
                continue
            for buy in sub_multisets(stones, k):
                if payments(cart, yurt, BASE[k] + buy.count("X")):
                    moves.add("build " + " ".join(buy))
        return moves
    if s.step == "pay":
        cost = BASE[sum(s.bought.values())] + s.bought["X"]
        return {"pay " + food_text(p) for p in payments(cart, yurt, cost)}
    if s.step == "overflow":
        excess = sum(cart_food) - 9
        return {"overflow " + food_text(o) for o in food_multisets(excess, s.paid)}
    if s.step == "place":
        return {f"place {stone} {level},{i}" for stone in s.bought for level, i in legal_places(tower)}
    if s.step == "restock":
        return {f"restock {food}" for food in FOODS}
    if s.step == "take":
        m = min(2, sum(s.market), 8 - sum(yurt))
        return {"take " + food_text(t) for t in food_multisets(m, s.market)}
    if s.step == "put":
        in_play = [name for name, content, _ in s.stations if sum(content.values()) < 4]
        return {f"put {stone} {name}" for stone in s.drawn for name in in_play}
    raise ValueError(f"no decision at step {s.step}")


def groups_score(colour: dict[tuple[int, int], str | None]) -> int:
    """Categories 1-3 of a tower whose every stone has a colour (None: a colourless crystal)."""
    seen: set[tuple[int, int]] = set()
    points, groups = 0, 0
    for place, c in colour.items():
        if place in seen:
            continue
        if c is None:
            seen.add(place)
            points += 1
            continue
        component, todo = {place}, [place]
        while todo:
            for q in contacts(todo.pop()):
                if q not in component and colour.get(q, "") == c:
                    component.add(q)
                    todo.append(q)
        seen |= component
        if len(component) >= 2:
            points += GROUP_POINTS.get(len(component), 22)
            groups += 1
        else:
            points += 1
    return points + (NUM_GROUPS_POINTS.get(groups, 20) if groups >= 3 else 0)


def best_tower_score(tower: dict[tuple[int, int], str], colours: int) -> int:
    """The best total of categories 1-3 over every legal assignment of colours to crystals:
    distinct colours in play, and when there are more crystals than colours, exactly the surplus
    without a colour."""
    crystals = [p for p, c in tower.items() if c == "X"]
    palette = [str(c) for c in range(colours)]
    k = len(crystals)
    options = palette + [None] * max(0, k - colours)
    best = -1
    for choice in set(itertools.permutations(options, k)):
        colour = {p: c for p, c in tower.items() if c != "X"}
        colour.update(zip(crystals, choice))
        best = max(best, groups_score(colour))
    return best
