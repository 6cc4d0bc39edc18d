"""The expert player of Yak (2–4 players; the Sunrise cards are secret until revealed).

It plays from the rules (docs/games/yak.md §1–§5) and its own view, which shows everything
but the cards of the players who act after it. Its yardstick is one number, the points it
expects to hold at the end, made of:

- **The tower as scored** (§1.10): groups of one colour (2, 4, 7, 11, 16, 22 points), one
  point per single stone, crystals taking the best distinct colours, and in the Master
  Builder variant the bonus cards it would win as the towers stand. The number-of-groups
  bonus (+4 for each group from the third to the seventh) is counted as +4 for *every*
  group while stones are still to come: a pair is the first step to that bonus, and a
  count that gives the first two pairs nothing would never start one.
- **The stones to come.** The game ends one round after the first tower is complete, so the
  rounds left are estimated from the fastest tower (the fewest rounds its stones and food
  allow), with a chance that each later round is still played that falls around that
  estimate. A small plan over those rounds (each one restocks or buys 1–3 stones at 1, 3
  or 5 food) gives the stones the bot can still expect to place; each is worth
  ``future_stone`` points, plus the best **prospects** of the empty positions: what a stone
  of a colour still in circulation would add there (extending a group, pairing a single,
  merging groups), as many prospects as stones to come. Only food that the carts of the
  next rounds accept counts (each cart refuses one kind). So food is worth what it will buy
  before the end and nothing after, and a stone now is weighed against the stone the same
  slot and food would bring later, at the risk that the game ends first.
- **The race for the stupa**: 5 points times the chance that the bot completes its tower
  before every other player (the rounds each needs at best, compared through a logistic
  curve), weighted up because the first complete tower also ends the game while the others
  still grow.
- **Food at the end**: the most-food bonus in the bot's last action, and a little per token
  otherwise (food left breaks ties).

Every decision takes the move whose outcome is worth most:

- **Sunrise** (the secret card): the cart at the bot's station is known (carts move only at
  Sunset, and nobody else takes from it: other players can only add stones with a Market),
  so each card is valued by its best action there: the best purchase with its placements
  for Build, the best kind for Restock, the best two tokens for Market. With ``lookahead``
  each outcome is also valued with the bot's best action of the next round, at the cart
  that will come to it: the cart now behind it in the yaks' direction, as its own player
  will leave it (that player's best card by the bot's own valuation: the stones it buys,
  the food it restocks). So it restocks before a cart with the stones it wants, and builds
  before a cart that would leave it nothing.
- **Build**: every purchase the view allows (the best few planned into the next round as at
  Sunrise), each stone placed where the tower is worth most (a search over the positions,
  one stone at a time, as the rules require); paying with the tokens that the coming carts
  accept; the overflow sends on to the market the kind the cart holds most of, so the cart
  offers less to the player who restocks from it next.
- **Market**: the tokens that leave the yurt worth most; the drawn stone goes into the cart
  the bot meets next if it scores there and nobody takes from that cart first, otherwise
  where it helps the cart's next user least (the leader counted more).

Ties are broken by the seeded random generator.
"""

from __future__ import annotations

import copy
import itertools
import math
import random
from dataclasses import dataclass, replace
from functools import lru_cache

from kibitz.game import Move, View

LEVEL_SIZES = (5, 4, 3, 2)
PLACES = tuple((level + 1, i) for level, size in enumerate(LEVEL_SIZES) for i in range(size))
TOWER = len(PLACES)  # 14 positions; a stone's index is its place in PLACES
INDEX = {place: k for k, place in enumerate(PLACES)}
EMPTY, CRYSTAL = ".", "X"
NEUTRAL = 100  # colour ids from here on: a crystal whose colour joins nothing (a single)
FOODS = ("meat", "milk", "bread")
ACCEPTS = {"NO_MEAT": (1, 2), "NO_MILK": (0, 2), "NO_BREAD": (0, 1), "TWO_KINDS": (0, 1, 2)}
BASE_COST = (0, 1, 3, 5)  # by stones bought; +1 per crystal
YURT_LIMIT = 8
MARKET_TAKE = 2
GROUP_POINTS = (0, 1, 2, 4, 7, 11, 16, 22)  # by size (7 and more: 22); 1 is a single stone
GROUP_BONUS_FROM, GROUP_BONUS_UPTO, GROUP_BONUS_STEP = 3, 7, 4
MOST_FOOD_POINTS = 3
STUPA_POINTS = 5
BONUS_MAJORITY = {"B1": 1, "B2": 2, "B3": 1, "B4": 1}  # majority card -> its minimum (§1.11)
BONUS_MAJORITY_POINTS, BONUS_PLACEMENT_POINTS = 5, 4
CART_WEIGHTS = (0.5, 0.3, 0.2)  # the carts of the next three rounds, by the food they accept
CRYSTAL_SUPPLY = 0.3  # a crystal in circulation counts this much towards every colour's supply


def _contacts(k: int) -> tuple[int, ...]:
    level, i = PLACES[k]
    near = [(level, i - 1), (level, i + 1), (level - 1, i), (level - 1, i + 1), (level + 1, i - 1), (level + 1, i)]
    return tuple(INDEX[p] for p in near if p in INDEX)


CONTACTS = tuple(_contacts(k) for k in range(TOWER))  # side by side, the two below, the two above
SUPPORTS = tuple(tuple(INDEX[(level - 1, j)] for j in (i, i + 1)) if level > 1 else () for level, i in PLACES)


@dataclass(frozen=True)
class Weights:
    """The expert's weights (spec options ``expert:<name>=<value>``), in points unless said."""

    lookahead: float = 0.8
    """Share of a Sunrise card's or a purchase's value that comes from the plan of the bot's
    next round at the cart that will come to it (0: this round's action alone). Against
    three greedy players: 51.2 % of the games won with it, 29.8 % without (docs/experts.md)."""
    plans_ahead: float = 3
    """How many purchases (the best by this round alone) are planned into the next round."""
    future_stone: float = 1.2
    """Worth of each stone the bot expects to place before the end, beyond its prospects
    (a single stone scores 1; pairs and groups among the stones to come add more)."""
    prospect: float = 0.1
    """Weight of the prospects of the empty positions: the extra points a stone of a colour
    in circulation would score there, the best one per stone to come. Against three greedy
    players: 38.2 % of the games won at 0, 51.2 % at 0.1; 0.2 did as well, 0.3 worse."""
    prospect_supply: float = 4.0
    """Stones of a colour in the bag and the carts at which its prospects count in full
    (fewer count in proportion)."""
    restock_yield: float = 2.0
    """Food a future Restock is expected to bring, in the plans of the stones to come and of
    the race to complete a tower. Restocks bring about 4, but the plans also assume three
    stones to buy at every Build, and the smaller figure makes up for that (at 4: 40.1 %
    won against three greedy players)."""
    end_slack: float = 1.0
    """How much slower than its best the fastest tower is expected to be completed
    (rounds left = fastest completion × this + the extra round)."""
    end_spread: float = 1.5
    """Uncertainty of the last round, in rounds: the chance that a later round is still
    played falls as a logistic curve of this width around the expected end."""
    stupa_race: float = 2.0
    """Weight of the stupa's 5 points times the chance to complete the tower first (more
    than 1: the first complete tower also ends the game while the others still grow). At
    0: 36.9 % won against three greedy players."""
    race_spread: float = 1.0
    """Uncertainty, in rounds, of the race to complete a tower first."""
    yurt_food: float = 0.15
    """Worth of each food token beyond what it buys (food left breaks ties)."""
    put_deny: float = 0.5
    """Weight of what a Market's stone would add to another player's tower, against the
    bot's own gain, when it chooses the stone and the cart of the put."""


# -- the tower ----------------------------------------------------------------------------------


def legal_places(tower: str) -> list[int]:
    """Positions a stone may go on now (§1.9): the bottom row grows as one run, a stone
    above needs both stones it rests on."""
    if all(c == EMPTY for c in tower):
        return list(range(LEVEL_SIZES[0]))
    found = []
    for k in range(TOWER):
        if tower[k] != EMPTY:
            continue
        if k < LEVEL_SIZES[0]:
            if (k > 0 and tower[k - 1] != EMPTY) or (k < LEVEL_SIZES[0] - 1 and tower[k + 1] != EMPTY):
                found.append(k)
        elif all(tower[s] != EMPTY for s in SUPPORTS[k]):
            found.append(k)
    return found


def group_points(size: int) -> int:
    return GROUP_POINTS[min(size, len(GROUP_POINTS) - 1)]


def group_bonus(groups: int, growing: bool) -> int:
    """The number-of-groups bonus; ``growing`` counts +4 for every group (negative below three
    groups), as the bonus looks while stones are still to come."""
    if groups < GROUP_BONUS_FROM and not growing:
        return 0
    return GROUP_BONUS_STEP * (min(groups, GROUP_BONUS_UPTO) - (GROUP_BONUS_FROM - 1))


@dataclass(frozen=True)
class Shape:
    """A tower's groups under its best crystal colouring."""

    colour: tuple[int, ...]  # per position: colour 0-7, NEUTRAL+ for a crystal alone, -1 empty
    group: tuple[int, ...]  # per position: its group's index, -1 empty
    sizes: tuple[int, ...]  # per group (size 1: a single stone)
    points: int  # groups and singles, without the number-of-groups bonus
    groups: int  # groups of 2 or more

    def value(self, growing: bool) -> int:
        return self.points + group_bonus(self.groups, growing)


def _components(colour: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The groups of touching stones of one colour: each position's group, each group's size."""
    group = [-1] * TOWER
    sizes: list[int] = []
    for start in range(TOWER):
        if colour[start] < 0 or group[start] >= 0:
            continue
        g = len(sizes)
        group[start] = g
        stack, size = [start], 0
        while stack:
            k = stack.pop()
            size += 1
            for n in CONTACTS[k]:
                if group[n] < 0 and colour[n] == colour[k]:
                    group[n] = g
                    stack.append(n)
        sizes.append(size)
    return tuple(group), tuple(sizes)


def _shape_of(colour: list[int]) -> Shape:
    group, sizes = _components(colour)
    return Shape(tuple(colour), group, sizes, sum(group_points(s) for s in sizes), sum(1 for s in sizes if s >= 2))


@lru_cache(maxsize=200_000)
def shape(tower: str, growing: bool) -> Shape:
    """The groups of ``tower`` (14 characters, ``.`` empty) with its crystals coloured for the
    best score (§1.10): a crystal takes the colour of a stone it touches (directly or
    through other crystals) or a colour that joins nothing; no two crystals the same."""
    base = [-1 if c == EMPTY else (NEUTRAL + k if c == CRYSTAL else int(c)) for k, c in enumerate(tower)]
    crystals = [k for k, c in enumerate(tower) if c == CRYSTAL]
    if not crystals:
        return _shape_of(base)
    options: list[list[int]] = []
    for k in crystals:
        seen, stack, near = {k}, [k], set()
        while stack:
            x = stack.pop()
            for n in CONTACTS[x]:
                if tower[n] == CRYSTAL and n not in seen:
                    seen.add(n)
                    stack.append(n)
                elif tower[n] not in (EMPTY, CRYSTAL):
                    near.add(int(tower[n]))
        options.append([NEUTRAL + k, *sorted(near)])
    if math.prod(len(o) for o in options) > 4096:  # many crystals: colour them one at a time
        colour = list(base)
        for k, o in zip(crystals, options):
            colour[k] = max(o, key=lambda c: _shape_of([c if x == k else v for x, v in enumerate(colour)]).value(growing))
        return _shape_of(colour)
    best: Shape | None = None
    for choice in itertools.product(*options):
        real = [c for c in choice if c < NEUTRAL]
        if len(real) != len(set(real)):
            continue
        colour = list(base)
        for k, c in zip(crystals, choice):
            colour[k] = c
        found = _shape_of(colour)
        if best is None or found.value(growing) > best.value(growing):
            best = found
    assert best is not None  # every crystal neutral is always a choice
    return best


def tower_score(tower: str) -> int:
    """Points of the first three categories of §1.10 (groups, their number, singles)."""
    return shape(tower, False).value(False)


def _one_colour(tower: str, places: tuple[tuple[int, int], ...]) -> set[str]:
    """The colour (not a crystal) that fills every one of ``places``, as a set; else empty."""
    kinds = {tower[INDEX[p]] for p in places}
    return kinds if len(kinds) == 1 and not kinds & {EMPTY, CRYSTAL} else set()


@lru_cache(maxsize=100_000)
def bonus_measure(tower: str, card: str) -> int:
    """A bonus card's measure of ``tower`` with its crystals taken out (§1.11): a majority
    card's value, or 1 when a placement card's condition holds."""
    plain = tower.replace(CRYSTAL, EMPTY)
    stones = [c for c in plain if c != EMPTY]
    if card == "B1":
        return max((stones.count(c) for c in set(stones)), default=0)
    if card == "B2":
        _, sizes = _components([-1 if c == EMPTY else int(c) for c in plain])
        return max((z for z in sizes if z >= 2), default=0)
    if card == "B3":
        return len(set(stones))
    if card == "B4":
        base = [c for c in plain[: LEVEL_SIZES[0]] if c != EMPTY]
        return max((base.count(c) for c in set(base)), default=0)
    if card == "B5":
        return int(bool(_one_colour(plain, ((4, 0), (4, 1)))))
    if card == "B6":
        return int(bool(_one_colour(plain, ((1, 0), (1, 4)))))
    if card == "B7":
        pair = _one_colour(plain, ((1, 2), (3, 1)))
        return int(bool(pair) and (plain[INDEX[(2, 1)]] in pair or plain[INDEX[(2, 2)]] in pair))
    if card == "B8":
        return int(bool(_one_colour(plain, ((3, 0), (3, 1), (3, 2)))))
    return 0


@lru_cache(maxsize=200_000)
def prospects(tower: str, growing: bool) -> tuple[tuple[int, int, float], ...]:
    """(position, colour, extra) for each empty position and each colour of a stone it
    touches: the points beyond a single stone's 1 that a stone of that colour would add
    there (extending or merging groups, pairing a single), when positive."""
    s = shape(tower, growing)
    found = []
    bonus_now = group_bonus(s.groups, growing)
    for k in range(TOWER):
        if tower[k] != EMPTY:
            continue
        by_colour: dict[int, set[int]] = {}
        for n in CONTACTS[k]:
            if 0 <= s.colour[n] < NEUTRAL:
                by_colour.setdefault(s.colour[n], set()).add(s.group[n])
        for c, joined in by_colour.items():
            sizes = [s.sizes[g] for g in joined]
            extra = group_points(1 + sum(sizes)) - sum(group_points(z) for z in sizes) - 1
            groups = s.groups - sum(1 for z in sizes if z >= 2) + 1
            extra += group_bonus(groups, growing) - bonus_now
            if extra > 0:
                found.append((k, c, float(extra)))
    return tuple(found)


# -- what the view tells --------------------------------------------------------------------------


@dataclass
class Cart:
    name: str  # NO_MEAT, NO_MILK, NO_BREAD or TWO_KINDS
    stones: str
    food: list[int]  # meat, milk, bread


@dataclass
class Village:
    """What the bot's view tells (docs/games/yak.md §4.4–§4.5); the hidden cards are not read."""

    seat: int
    players: int
    round: int
    baby: int
    turn: int
    step: str
    direction: int
    trigger: int | None
    stupa: int | None
    bag: list[int]  # 0-7, X, F
    colours: int  # colours in play
    market: list[int]
    carts: list[Cart]  # by station; player p lives at station p
    yurts: list[list[int]]
    towers: list[str]  # 14 characters each, level 1 first
    bought: str
    bonus: list[str]

    @classmethod
    def from_view(cls, view: View) -> Village:
        f = view.fields()
        carts = []
        for entry in f["carts"].split("/"):
            name, stones, food = entry.split(":")
            carts.append(Cart(name, "" if stones == "-" else stones, [int(x) for x in food.split(".")]))
        return cls(
            seat=view.seat,
            players=int(f["players"]),
            round=int(f["round"]),
            baby=int(f["baby"]),
            turn=int(f["turn"]),
            step=f["step"],
            direction=int(f["dir"]),
            trigger=None if f["trigger"] == "-" else int(f["trigger"]),
            stupa=None if f["stupa"] == "-" else int(f["stupa"]),
            bag=[int(x) for x in f["bag"].split(".")],
            colours=sum(1 for b in f["box"].split(".") if int(b) < 8),
            market=[int(x) for x in f["market"].split(".")],
            carts=carts,
            yurts=[[int(x) for x in y.split(".")] for y in f["yurts"].split("/")],
            towers=[t.replace("|", "") for t in f["towers"].split("/")],
            bought="" if f["bought"] == "-" else f["bought"],
            bonus=[] if f["bonus"] == "-" else f["bonus"].split(","),
        )

    @property
    def stations(self) -> int:
        return len(self.carts)

    def cart_of(self, player: int) -> Cart:
        """The cart at ``player``'s station this round."""
        return self.carts[player % self.stations]

    def acted(self, player: int) -> bool:
        """Whether ``player`` has had its turn this round (Noon goes clockwise from the baby yak)."""
        return self.step != "choose" and (player - self.baby) % self.players < self.turn

    def supply(self, colour: int) -> int:
        """Stones of ``colour`` still in circulation: in the bag and in the carts."""
        return self.bag[colour] + sum(c.stones.count(str(colour)) for c in self.carts)


# -- food -----------------------------------------------------------------------------------------


def payable(cart: str, yurt: list[int]) -> int:
    """Most food ``yurt`` can pay into a cart of kind ``cart`` (§1.4)."""
    kinds = sorted((yurt[k] for k in ACCEPTS[cart]), reverse=True)
    return sum(kinds[:2]) if cart == "TWO_KINDS" else sum(kinds)


def payments(yurt: list[int], cart: str, cost: int) -> list[list[int]]:
    """The yurts left by every payment of exactly ``cost`` into a cart of kind ``cart``."""
    found = []
    for meat in range(min(yurt[0], cost) + 1):
        for milk in range(min(yurt[1], cost - meat) + 1):
            paid = (meat, milk, cost - meat - milk)
            if paid[2] > yurt[2] or any(paid[k] and k not in ACCEPTS[cart] for k in range(3)):
                continue
            if cart == "TWO_KINDS" and all(paid):
                continue
            found.append([yurt[k] - paid[k] for k in range(3)])
    return found


def cost_of(stones: str) -> int:
    """The price of a purchase (§1.4): 1, 3 or 5 food, and 1 more per crystal."""
    return BASE_COST[len(stones)] + stones.count(CRYSTAL) if stones else 0


def restocked(yurt: list[int], cart_food: list[int]) -> list[list[int]]:
    """The yurts a Restock of each kind leaves (all of the kind, as much as fits)."""
    room = YURT_LIMIT - sum(yurt)
    return [[yurt[j] + (min(room, cart_food[k]) if j == k else 0) for j in range(3)] for k in range(3)]


def market_takes(yurt: list[int], market: list[int]) -> list[list[int]]:
    """The yurts a Market's take leaves: exactly min(2, market, room) tokens (§1.6)."""
    m = min(MARKET_TAKE, sum(market), YURT_LIMIT - sum(yurt))
    found = []
    for kinds in itertools.combinations_with_replacement(range(3), m):
        got = [kinds.count(k) for k in range(3)]
        if all(got[k] <= market[k] for k in range(3)):
            found.append([yurt[k] + got[k] for k in range(3)])
    return found


def food_of(move: str) -> list[int]:
    """The food counts a move names, such as ``pay meat meat bread`` or ``take -``."""
    return [move.split()[1:].count(kind) for kind in FOODS]


# -- the plan of the stones to come ---------------------------------------------------------------


@lru_cache(maxsize=100_000)
def stones_in(rounds: int, food: int, restock: int) -> int:
    """Most stones a player can buy in ``rounds`` rounds from ``food``, each round buying
    1–3 stones or restocking ``restock`` food (up to the yurt's 8)."""
    if rounds <= 0:
        return 0
    best = stones_in(rounds - 1, min(YURT_LIMIT, food + restock), restock)
    for k in (1, 2, 3):
        if BASE_COST[k] <= food:
            best = max(best, k + stones_in(rounds - 1, food - BASE_COST[k], restock))
    return best


def rounds_to_finish(stones: int, food: int, restock: int) -> int:
    """Fewest rounds in which a player places ``stones`` more stones (this round the first)."""
    rounds = 0
    while stones_in(rounds, food, restock) < stones and rounds < 60:
        rounds += 1
    return rounds


@lru_cache(maxsize=1024)
def _stone_table(survival: tuple[float, ...], restock: int) -> dict[tuple[int, int], float]:
    """:func:`expected_stones` for every food (0-8) and room (0-14), backwards over the rounds."""
    table: dict[tuple[int, int], float] = {}
    for alive in reversed(survival):
        new: dict[tuple[int, int], float] = {}
        for f in range(YURT_LIMIT + 1):
            for n in range(TOWER + 1):
                best = table.get((min(YURT_LIMIT, f + restock), n), 0.0)
                for k in (1, 2, 3):
                    if k <= n and BASE_COST[k] <= f:
                        best = max(best, k * alive + table.get((f - BASE_COST[k], n - k), 0.0))
                new[(f, n)] = best
        table = new
    return table


def expected_stones(survival: tuple[float, ...], food: int, free: int, restock: int) -> float:
    """Most stones expected in the rounds to come: ``survival[t]`` is the chance that the
    ``t``-th of them is still played; each restocks or buys (a plan fixed in advance, so a
    stone bought sooner counts more)."""
    return _stone_table(survival, restock).get((min(food, YURT_LIMIT), free), 0.0)


class Evaluator:
    """The points a seat expects at the end (see the module's docstring), for its positions
    after an action of this round (or, :meth:`shifted`, of a later one)."""

    def __init__(self, village: Village, weights: Weights) -> None:
        self.v = village
        self.w = weights
        self.me = village.seat
        self.ahead = 0  # rounds past the current one (see shifted)
        self.restock = max(1, round(weights.restock_yield))
        crystals = CRYSTAL_SUPPLY * (village.bag[8] + sum(c.stones.count(CRYSTAL) for c in village.carts))
        full = max(1e-9, weights.prospect_supply)
        self.available = [min(1.0, (village.supply(c) + crystals) / full) if c < village.colours else 0.0 for c in range(8)]
        self.survival = self._survival()
        self.rival_finish = self._finish(rivals_only=True) - 1

    def shifted(self) -> Evaluator:
        """The same valuation one round later: for the plan of the bot's next round."""
        later = copy.copy(self)
        later.survival = self.survival[1:]
        later.rival_finish = self.rival_finish - 1
        later.ahead = self.ahead + 1
        return later

    def _finish(self, rivals_only: bool) -> float:
        """Fewest rounds (this one the first) in which some player could complete its tower."""
        v = self.v
        best = 99.0
        for p in range(v.players):
            if rivals_only and p == self.me:
                continue
            need = float(rounds_to_finish(v.towers[p].count(EMPTY), sum(v.yurts[p]), self.restock))
            if v.acted(p):
                need += 1  # its next chance is next round
            best = min(best, need)
        return best

    def _survival(self) -> tuple[float, ...]:
        """For each round after this one, the chance that it is still played."""
        v = self.v
        if v.trigger is not None:  # the game ends with round trigger + 1
            return (1.0,) * max(0, v.trigger + 1 - v.round)
        # rounds after this one still played: the fastest tower's last round, then the extra one
        after = self._finish(rivals_only=False) * self.w.end_slack
        spread = max(0.3, self.w.end_spread)
        horizon = min(30, int(after + 4 * spread + 1))
        return tuple(round(1.0 / (1.0 + math.exp((t + 0.5 - after) / spread)), 3) for t in range(horizon))

    def usable_food(self, yurt: list[int]) -> float:
        """The food of ``yurt`` that the carts of the next rounds accept, the nearest counting
        most (:data:`CART_WEIGHTS`)."""
        v = self.v
        total = 0.0
        for k, weight in enumerate(CART_WEIGHTS):
            total += weight * payable(v.carts[(self.me - (self.ahead + 1 + k) * v.direction) % v.stations].name, yurt)
        return total

    def future_stones(self, yurt: list[int], free: int) -> float:
        """Stones the bot expects to place after this round (:func:`expected_stones`), from the
        food the coming carts accept."""
        if free <= 0 or not self.survival:
            return 0.0
        food = min(float(YURT_LIMIT), self.usable_food(yurt))
        low = int(food)
        below = expected_stones(self.survival, low, free, self.restock)
        if low == YURT_LIMIT:
            return below
        above = expected_stones(self.survival, low + 1, free, self.restock)
        return below + (above - below) * (food - low)

    def stupa_chance(self, tower: str, yurt: list[int]) -> float:
        """The chance that the bot completes its tower first (§1.8: the stupa), from the rounds
        it needs after this action against the fastest other player."""
        if self.v.stupa is not None:
            return 0.0
        free = tower.count(EMPTY)
        if free == 0:
            return 1.0
        mine = float(rounds_to_finish(free, int(self.usable_food(yurt)), self.restock))
        return 1.0 / (1.0 + math.exp((mine - self.rival_finish) / max(0.1, self.w.race_spread)))

    def bonus_points(self, tower: str) -> float:
        """Master Builder (§1.11): the bonus cards' points the tower would score now, a majority
        card against the other towers as they stand."""
        points = 0.0
        for card in self.v.bonus:
            mine = bonus_measure(tower, card)
            if card in BONUS_MAJORITY:
                others = max(bonus_measure(self.v.towers[p], card) for p in range(self.v.players) if p != self.me)
                points += BONUS_MAJORITY_POINTS if mine >= max(others, BONUS_MAJORITY[card]) else 0
            else:
                points += BONUS_PLACEMENT_POINTS * mine
        return points

    def tower_worth(self, tower: str, future: float) -> float:
        """Points the tower holds plus what ``future`` stones to come promise."""
        growing = future >= 1.5
        worth = float(shape(tower, growing).value(growing)) + self.bonus_points(tower)
        if future <= 0:
            return worth
        best: dict[int, float] = {}
        for k, c, extra in prospects(tower, growing):
            best[k] = max(best.get(k, 0.0), extra * self.available[c])
        top = sorted(best.values(), reverse=True)
        whole = int(future)
        promise = sum(top[:whole]) + (top[whole] * (future - whole) if whole < len(top) else 0.0)
        return worth + self.w.prospect * promise + self.w.future_stone * future

    def worth(self, tower: str, yurt: list[int], future: float | None = None) -> float:
        """The bot's expected points with ``tower`` built and ``yurt`` left after its action."""
        if future is None:
            future = self.future_stones(yurt, tower.count(EMPTY))
        food = sum(yurt)
        value = self.tower_worth(tower, future) + self.w.yurt_food * food
        value += self.w.stupa_race * STUPA_POINTS * self.stupa_chance(tower, yurt)
        if not self.survival:  # the bot's last action: the most food as the others hold it
            others = max(sum(self.v.yurts[p]) for p in range(self.v.players) if p != self.me)
            if food > 0 and food >= others:
                value += MOST_FOOD_POINTS
        return value


# -- the player -----------------------------------------------------------------------------------

Outcome = tuple[float, str, list[int]]
"""An action's result: its value, the tower and the yurt after it."""


@dataclass
class BuildPlan:
    value: float
    purchase: str  # the stones, "" for nothing
    tower: str  # after placing them
    yurt: list[int]  # after paying


class Player:
    """Plays Yak for one seat (see the module's docstring)."""

    def __init__(self, weights: Weights, rng: random.Random) -> None:
        self.weights = weights
        self.rng = rng

    def act(self, view: View) -> Move:
        village = Village.from_view(view)
        legal = view.state().legal_moves_for(view.seat)  # the seat's own decision: nothing hidden
        if len(legal) == 1:
            return legal[0]
        ev = Evaluator(village, self.weights)
        step = village.step
        if step == "choose":
            values = self.card_values(ev, village)
            return self.pick([(values[m.split()[1]], m) for m in legal])
        if step == "build":
            return self.build(ev, village, legal)
        if step == "pay":
            return self.pay(ev, village, legal)
        if step == "overflow":
            return self.overflow(village, legal)
        if step == "place":
            return self.place(ev, village, legal)
        if step in ("restock", "take"):
            return self.gather(ev, village, legal)
        return self.put(village, legal)

    def pick(self, scored: list[tuple[float, str]]) -> str:
        """The best move; among equal ones a random one."""
        top = max(v for v, _ in scored)
        return self.rng.choice([m for v, m in scored if v >= top - 1e-9])

    # -- building -------------------------------------------------------------------------------

    def best_tower(self, ev: Evaluator, tower: str, stones: str, future: float) -> str:
        """The best tower after placing ``stones`` one at a time, each on a position legal
        when it is placed (a search over the orders and positions, equal towers merged)."""
        memo: dict[tuple[str, str], tuple[float, str]] = {}

        def search(t: str, left: str) -> tuple[float, str]:
            if not left:
                return ev.tower_worth(t, future), t
            if (t, left) not in memo:
                best: tuple[float, str] = (-math.inf, t)
                for stone in sorted(set(left)):
                    rest = left.replace(stone, "", 1)
                    for k in legal_places(t):
                        found = search(t[:k] + stone + t[k + 1 :], rest)
                        if found[0] > best[0]:
                            best = found
                memo[(t, left)] = best
            return memo[(t, left)]

        return search(tower, "".join(sorted(stones)))[1]

    def leftover(self, ev: Evaluator, yurt: list[int], cart: str, cost: int) -> list[int]:
        """The yurt left by the payment that keeps the most food the coming carts accept."""
        options = payments(yurt, cart, cost)
        return max(options, key=lambda y: (ev.usable_food(y), min(y))) if options else yurt

    def purchases(self, cart: Cart, tower: str, yurt: list[int]) -> list[str]:
        """Every purchase of §1.4 at ``cart``: 0–3 of its stones, room in the tower, food to pay."""
        room = payable(cart.name, yurt)
        found = {""}
        for k in range(1, min(3, tower.count(EMPTY)) + 1):
            for stones in itertools.combinations(sorted(cart.stones), k):
                if cost_of("".join(stones)) <= room:
                    found.add("".join(stones))
        return sorted(found)

    def build_plans(self, ev: Evaluator, cart: Cart, tower: str, yurt: list[int], purchases: list[str]) -> list[BuildPlan]:
        """Each purchase at ``cart``, paid and placed at its best, best first."""
        plans = []
        for stones in purchases:
            left = self.leftover(ev, yurt, cart.name, cost_of(stones))
            future = ev.future_stones(left, tower.count(EMPTY) - len(stones))
            after = self.best_tower(ev, tower, stones, future) if stones else tower
            plans.append(BuildPlan(ev.worth(after, left, future), stones, after, left))
        return sorted(plans, key=lambda p: -p.value)

    def outcomes(self, ev: Evaluator, village: Village) -> dict[str, list[Outcome]]:
        """Each card's best actions this round at the bot's cart (for Build the best
        ``plans_ahead`` purchases)."""
        me = village.seat
        tower, yurt, cart = village.towers[me], village.yurts[me], village.cart_of(me)
        plans = self.build_plans(ev, cart, tower, yurt, self.purchases(cart, tower, yurt))
        return {
            "build": [(p.value, p.tower, p.yurt) for p in plans[: max(1, int(self.weights.plans_ahead))]],
            "restock": [(ev.worth(tower, y), tower, y) for y in restocked(yurt, cart.food)],
            "market": [(ev.worth(tower, y), tower, y) for y in market_takes(yurt, village.market)],
        }

    def card_values(self, ev: Evaluator, village: Village) -> dict[str, float]:
        """What each Sunrise card is worth (with the plan of the next round)."""
        return {card: max(self.planned(ev, village, found)) for card, found in self.outcomes(ev, village).items()}

    def planned(self, ev: Evaluator, village: Village, outcomes: list[Outcome]) -> list[float]:
        """Each outcome of this round valued with the bot's best action next round, at the
        cart that comes to it, blended in by ``lookahead``."""
        alive = ev.survival[0] if ev.survival else 0.0
        share = self.weights.lookahead
        coming = self.coming_cart(village) if share > 0 and alive > 0 else None
        if coming is None:
            return [value for value, _, _ in outcomes]
        later = ev.shifted()
        found = []
        for now, tower, yurt in outcomes:
            ended = float(tower_score(tower) + ev.bonus_points(tower))  # if the game ends at this Sunset
            planned = alive * self.next_round(later, village, coming, tower, yurt) + (1.0 - alive) * ended
            found.append((1.0 - share) * now + share * planned)
        return found

    def coming_cart(self, village: Village) -> Cart | None:
        """The cart the bot meets next round (the one now behind it in the yaks' direction) as
        its station's player will leave it: that player's best card by the bot's own
        valuation, with the stones it buys or the food it restocks; None when it would empty
        the cart (refilled with stones nobody knows)."""
        station = (village.seat - village.direction) % village.stations
        cart = village.carts[station]
        owner = station if station < village.players else None
        if owner is None or owner == village.seat or village.acted(owner):
            return cart
        theirs = replace(village, seat=owner)
        ev = Evaluator(theirs, self.weights)
        options = self.outcomes(ev, theirs)
        card = max(options, key=lambda c: max(v for v, _, _ in options[c]))
        _, tower, yurt = max(options[card], key=lambda o: o[0])
        stones, food = cart.stones, list(cart.food)
        if card == "build":
            before = village.towers[owner]
            for k in range(TOWER):
                if before[k] != tower[k]:
                    stones = stones.replace(tower[k], "", 1)
            if not stones and tower != before:
                return None
            food = [food[k] + village.yurts[owner][k] - yurt[k] for k in range(3)]
        elif card == "restock":
            food = [food[k] - (yurt[k] - village.yurts[owner][k]) for k in range(3)]
        return Cart(cart.name, stones, food)

    def next_round(self, ev: Evaluator, village: Village, cart: Cart, tower: str, yurt: list[int]) -> float:
        """The bot's best action next round at ``cart``: a purchase, a Restock or a Market."""
        plans = self.build_plans(ev, cart, tower, yurt, self.purchases(cart, tower, yurt))
        gathered = restocked(yurt, cart.food) + market_takes(yurt, village.market)
        return max([plans[0].value] + [ev.worth(tower, y) for y in gathered])

    def build(self, ev: Evaluator, village: Village, legal: list[str]) -> str:
        """The purchase worth most with the plan of the next round (for the best few)."""
        me = village.seat
        tower, yurt, cart = village.towers[me], village.yurts[me], village.cart_of(me)
        bought = {m: "".join(m.split()[1:]).replace("-", "") for m in legal}
        plans = self.build_plans(ev, cart, tower, yurt, list(bought.values()))[: max(1, int(self.weights.plans_ahead))]
        value = {p.purchase: v for p, v in zip(plans, self.planned(ev, village, [(p.value, p.tower, p.yurt) for p in plans]))}
        return self.pick([(value[s], m) for m, s in bought.items() if s in value])

    def pay(self, ev: Evaluator, village: Village, legal: list[str]) -> str:
        """The payment that leaves the most food the coming carts accept."""
        yurt = village.yurts[village.seat]
        scored = []
        for m in legal:
            left = [have - paid for have, paid in zip(yurt, food_of(m))]
            scored.append((ev.usable_food(left) + 0.01 * min(left), m))
        return self.pick(scored)

    def overflow(self, village: Village, legal: list[str]) -> str:
        """The tokens sent on to the market: those that leave the cart the least of one kind,
        which is what the next player to restock from it would take."""
        food = village.cart_of(village.seat).food
        return self.pick([(-max(have - sent for have, sent in zip(food, food_of(m))), m) for m in legal])

    def place(self, ev: Evaluator, village: Village, legal: list[str]) -> str:
        """The position (and stone) from which the rest of the purchase gives the best tower."""
        me = village.seat
        tower, yurt = village.towers[me], village.yurts[me]
        future = ev.future_stones(yurt, tower.count(EMPTY) - len(village.bought))
        scored = []
        for m in legal:
            _, stone, where = m.split()
            level, i = (int(x) for x in where.split(","))
            k = INDEX[(level, i)]
            after = self.best_tower(ev, tower[:k] + stone + tower[k + 1 :], village.bought.replace(stone, "", 1), future)
            scored.append((ev.worth(after, yurt, future), m))
        return self.pick(scored)

    # -- food and the market ---------------------------------------------------------------------

    def gather(self, ev: Evaluator, village: Village, legal: list[str]) -> str:
        """Restock's kind, or a Market's tokens: the yurt worth most after."""
        me = village.seat
        tower, yurt = village.towers[me], village.yurts[me]
        scored = []
        for m in legal:
            if village.step == "restock":
                after = restocked(yurt, village.cart_of(me).food)[FOODS.index(m.split()[1])]
            else:
                after = [have + got for have, got in zip(yurt, food_of(m))]
            scored.append((ev.worth(tower, after) + 0.01 * min(after), m))
        return self.pick(scored)

    def stone_gain(self, village: Village, player: int, stone: str) -> float:
        """What ``stone`` would add to ``player``'s tower at its best legal position."""
        tower = village.towers[player]
        base = tower_score(tower)
        colours = [str(c) for c in range(village.colours)] if stone == CRYSTAL else [stone]
        gains = [tower_score(tower[:k] + c + tower[k + 1 :]) - base for k in legal_places(tower) for c in colours]
        return float(max([0, *gains]))

    def put(self, village: Village, legal: list[str]) -> str:
        """The Market's stone: into the cart the bot meets next if it scores there, otherwise
        where it helps the cart's next user least (the leader counted more)."""
        me = village.seat
        names = [c.name for c in village.carts]
        leader = max(range(village.players), key=lambda p: tower_score(village.towers[p]))
        scored = []
        for m in legal:
            _, stone, name = m.split()
            station = names.index(name)
            # who acts at this cart next: its station's player if still to act this round,
            # else the player of the station it moves to at Sunset
            if station < village.players and station != me and not village.acted(station):
                user: int | None = station
            else:
                nxt = (station + village.direction) % village.stations
                user = nxt if nxt < village.players else None
            if user is None:
                value = 0.0
            elif user == me:
                value = self.stone_gain(village, me, stone)
            else:
                value = -self.weights.put_deny * self.stone_gain(village, user, stone) * (1.5 if user == leader else 1.0)
            scored.append((value, m))
        return self.pick(scored)
