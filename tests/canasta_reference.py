"""Independent reference for tile Canasta turns, written from shared/rules/canasta_tiles.md.

It knows nothing of the engine's sub-decisions. It uses the spec's own move model (§14.2-14.4):
an atomic ``OPEN(melds)`` (at most one per turn, only in a turn that began with a draw), any
number of ``LAY(rank, tiles)`` in any order (several on one rank allowed), each checked for meld
validity (§4.1/§4.2) and the dead-end guard (A16) right after it, ``TAKE(pair, extra, open)``
with its threshold and guard checks (§6.3), and ``DISCARD`` (§7.3). Enumerating every such
sequence gives the set of end-of-turn results the rules allow; the tests compare it with the
results the engine's sub-decision generator reaches.

Tiles are kinds (§2.2): 0 = "1", 1 = "2", 2..11 = "4".."13", 12 = joker, 13 = blocking three
(k3), 14 = bonus three (r3). A hand is a tuple of 15 counts. A meld is (naturals, twos as wilds,
jokers); for the twos meld the 2s are the naturals.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

NAMES = ["1", "2", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "J", "k3", "r3"]
KIND = {n: i for i, n in enumerate(NAMES)}
TWO, JOKER, K3, R3 = 1, 12, 13, 14
RANKS = range(12)
COUNT = [8] * 12 + [2, 4, 4]
VALUE = [25, 20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 50, 0, 0]
EMPTY = (0, 0, 0)


def threshold(total: int) -> int:
    """§5: the opening threshold for a team's match total."""
    if total < 0:
        return 15
    if total <= 1499:
        return 50
    if total <= 2999:
        return 90
    if total <= 6999:
        return 120
    return 150


def valid(rank: int, meld: tuple[int, int, int], strict: bool = True) -> bool:
    n, t, j = meld
    if n + t + j < 3:
        return False
    if rank == TWO:  # §4.2: 2s and at most 2 jokers, fewer jokers than 2s
        return t == 0 and j <= 2 and j < n
    w = t + j
    return w <= 3 and (n > w if strict else n >= w)


def meld_value(rank: int, meld: tuple[int, int, int]) -> int:
    n, t, j = meld
    return n * VALUE[rank] + t * VALUE[TWO] + j * VALUE[JOKER]


def canasta_bonus(rank: int, meld: tuple[int, int, int]) -> int:
    n, t, j = meld
    if n + t + j < 7:
        return 0
    clean = t + j == 0
    if rank == TWO:
        return 1000 if clean else 700
    return 500 if clean else 300


def round_score(melds, opened: bool, bonus_threes: int, hands, went_out: bool) -> int:
    """§8 for one team: melds is {rank: meld}, hands the partners' hands (counts)."""
    s = sum(meld_value(r, m) + canasta_bonus(r, m) for r, m in melds.items())
    s += (100 if opened else -100) * bonus_threes
    for h in hands:
        s -= 100 * h[K3]
        s -= sum(VALUE[k] * h[k] for k in range(15))
    return s + (100 if went_out else 0)


def tiles_of(rank: int, add: tuple[int, int, int]) -> list[tuple[int, int]]:
    """(kind, count) taken from the hand by laying `add` at `rank`."""
    n, t, j = add
    return [(TWO if rank == TWO else rank, n), (TWO, t), (JOKER, j)]


def take_from(hand: tuple, rank: int, add) -> tuple | None:
    h = list(hand)
    for kind, c in tiles_of(rank, add):
        h[kind] -= c
        if h[kind] < 0:
            return None
    return tuple(h)


def additions(hand: tuple, rank: int):
    """Every non-empty multiset of hand tiles that can go to a meld of `rank`."""
    nat_kind = TWO if rank == TWO else rank
    for n in range(hand[nat_kind] + 1):
        for t in range(1 if rank == TWO else hand[TWO] + 1):  # 2s in the twos meld are its naturals
            for j in range(hand[JOKER] + 1):
                if n + t + j and take_from(hand, rank, (n, t, j)) is not None:
                    yield (n, t, j)


def plus(m, add):
    return (m[0] + add[0], m[1] + add[1], m[2] + add[2])


def has_canasta(melds: tuple) -> bool:
    return any(sum(m) >= 7 for m in melds)


def guard(hand_size: int, melds: tuple) -> bool:
    """A16/A17: keep a discard; a single tile only with a team canasta."""
    return hand_size >= 2 or (hand_size == 1 and has_canasta(melds))


def new_meld_sets(hand: tuple, ranks, strict: bool):
    """Every set of new valid melds at distinct ranks from `ranks` (possibly empty), as
    (hand left, [(rank, meld)])."""

    def rec(i, h, chosen):
        if i == len(ranks):
            yield h, chosen
            return
        yield from rec(i + 1, h, chosen)
        r = ranks[i]
        for add in additions(h, r):
            if valid(r, add, strict):
                yield from rec(i + 1, take_from(h, r, add), chosen + [(r, add)])

    yield from rec(0, hand, [])


def meld_phase(hand: tuple, melds: tuple, opened: bool, may_open: bool, thr: int, strict: bool = True) -> set:
    """Every (melds, hand after the discard, discarded kind, opened) a meld phase can end in:
    OPEN (at most once, if may_open) and LAYs in any order, then DISCARD."""
    seen = set()
    stack = [(hand, melds, opened)]
    while stack:
        st = stack.pop()
        if st in seen:
            continue
        seen.add(st)
        h, ms, op = st
        if op:
            for r in RANKS:
                for add in additions(h, r):
                    m = plus(ms[r], add)
                    if not valid(r, m, strict):
                        continue
                    h2 = take_from(h, r, add)
                    ms2 = ms[:r] + (m,) + ms[r + 1 :]
                    if guard(sum(h2), ms2):
                        stack.append((h2, ms2, True))
        elif may_open:
            for h2, chosen in new_meld_sets(h, list(RANKS), strict):
                if not chosen or sum(meld_value(r, m) for r, m in chosen) < thr:
                    continue
                ms2 = list(ms)
                for r, m in chosen:
                    ms2[r] = m
                ms2 = tuple(ms2)
                if guard(sum(h2), ms2):
                    stack.append((h2, ms2, True))
    out = set()
    for h, ms, op in seen:
        for k in range(R3):
            if h[k] == 0:
                continue
            h2 = h[:k] + (h[k] - 1,) + h[k + 1 :]
            if sum(h2) == 0 and not has_canasta(ms):  # §7.3: going out needs a canasta
                continue
            out.add((ms, h2, k, op))
    return out


def take_turn(hand: tuple, melds: tuple, opened: bool, top: int, pile: tuple, thr: int, strict: bool = True) -> set:
    """Every end of a turn that starts by taking the pile (§6.3): TAKE(pair, extra, open), then
    the meld phase of an opened team. `pile` counts the tiles below the top."""
    if top not in range(2, 12) and top != 0 or hand[top] < 2:  # a natural on top, a pair in hand
        return set()
    out = set()
    after_pair = take_from(hand, top, (2, 0, 0))
    for extra in itertools.chain([(0, 0, 0)], additions(after_pair, top)):
        h = take_from(after_pair, top, extra)
        m = plus(plus(melds[top], (3, 0, 0)), extra)
        if not valid(top, m, strict):
            continue
        ms = melds[:top] + (m,) + melds[top + 1 :]
        value = meld_value(top, plus((3, 0, 0), extra))
        others = [r for r in RANKS if r != top]
        options = new_meld_sets(h, others, strict) if not opened else [(h, [])]
        for h2, chosen in options:
            if not opened and value + sum(meld_value(r, x) for r, x in chosen) < thr:
                continue
            ms2 = list(ms)
            for r, x in chosen:
                ms2[r] = x
            ms2 = tuple(ms2)
            h3 = tuple(a + b for a, b in zip(h2, pile))
            if not guard(sum(h3), ms2):
                continue
            out |= meld_phase(h3, ms2, True, False, thr, strict)
    return out
