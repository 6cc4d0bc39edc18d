# cython: boundscheck=False, wraparound=False, cdivision=True
"""Plug-in for tile Canasta (docs/plugins.md), built by kibitz's own build as
``kibitz.plugins.canasta_tiles``: ``ismcts:plugin=kibitz.plugins.canasta_tiles``.

**Evaluator** (``:evaluate``, with ``eval_depth=40``:
``ismcts:plugin=kibitz.plugins.canasta_tiles:evaluate,eval_depth=40``): the searching team's
chance to win the round, a logistic regression over the features of
``value_features`` (the searching seat's tensor only: the tables, every hand's size, the seat's
own hand, the stock and the pile, who moves). ``VALUE_WEIGHTS`` was fitted by maximum
likelihood to the outcomes of recorded rounds by ``bench/canasta_value.py``, which prints the
table; docs/strength.md ("A fitted evaluation for tile Canasta") has its commands and what it
gains (at 2,000 iterations; at 20,000 it is level with the game's own rollouts, 1.67 times faster).

**Rollout policy** (``:choose``; an example, not tuned): it reads the mover's observation tensor
(docs/games/canasta_tiles.md §9; relative seats, block 0 is the mover) and the legal-action mask
(ids of §4.3), and scores every legal decision:

- taking the pile over drawing, drawing over the Joker button, and any lay over `done`;
- a lay by its naturals, less for each two and more for each joker it spends (the wild tiles
  are worth keeping);
- `rank:<r>`: the rank the mover holds most of;
- a discard: the kind the mover holds fewest of, never a wild tile if anything else is left, a
  black three (which blocks the pile) gladly;
- `known:` decisions: uniform.

The best, ties drawn from the search's random bits.
"""
from libc.math cimport exp
from libc.stdint cimport int32_t, uint8_t, uint64_t

from kibitz_plugin cimport Plugin, best_legal, export_plugin

cdef enum:
    RANK = 14           # ids 14-25: rank:<r>, r in 1 2 4 ... 13
    LAY = 26            # ids 26-133: 26 + 12 n + 3 t + j
    DRAW = 134
    TAKE = 135
    DONE = 136
    JOKER = 137
    KNOWN = 138         # ids 138-380
    TWO = 1             # kind indices (1 2 4 ... 13 J k3): the two, the joker, the black three
    JOKER_KIND = 12
    BLACK_THREE = 13
    ACTIONS = 381

cdef inline double held(const float* obs, int kind) noexcept nogil:
    return 8 * obs[kind]  # the mover's hand by kind / 8: entries 0-14

cdef int32_t choose(void* context, const float* obs, int32_t size, const uint8_t* legal, int32_t n_actions,
                    int32_t seat, uint64_t random) noexcept nogil:
    cdef double score[ACTIONS]
    cdef int a, lay, n, t, j
    for a in range(n_actions):
        if a < RANK:  # discard: the fewest held, wilds kept, black threes shed
            score[a] = -held(obs, a) - (20 if a == TWO or a == JOKER_KIND else 0) + (2 if a == BLACK_THREE else 0)
        elif a < LAY:
            score[a] = held(obs, a - RANK)
        elif a < DRAW:
            lay = a - LAY
            n, t, j = lay // 12, (lay % 12) // 3, lay % 3
            score[a] = 10 + n - 0.5 * t - j
        elif a == TAKE:
            score[a] = 3
        elif a == DRAW:
            score[a] = 2
        elif a == JOKER:
            score[a] = 1
        else:  # done, known
            score[a] = 0
    return best_legal(score, legal, n_actions, random)


# --------------------------------------------------------------------------------------------
# The evaluator
# --------------------------------------------------------------------------------------------

cdef enum:
    SEAT_BLOCK = 34      # entries per relative seat; its hand size / 30 at entry 15 of the block
    HAND_SIZE = 15
    TEAM = 136           # per relative team (40 entries): 12 ranks x (naturals / 8, twos / 3, jokers / 2),
    TEAM_BLOCK = 40      # then opened, bonus threes / 4
    OPENED = 36
    BONUS = 37
    STOCK = 216          # the stock's size / 106
    TOP = 218            # the pile's top, one-hot by kind
    PILE = 248           # the pile's size below the top / 106
    MOVER = 259          # the seat to move, one-hot over relative seats
    FEATURES = 33

# A tile's value by rank (§1.1), ranks 1 2 4 ... 13: the twos meld (rank index 1) holds 2s at 20.
cdef double RANK_VALUE[12]
RANK_VALUE[:] = [25, 20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10]

# Fitted by bench/canasta_value.py: one weight per feature of value_features, then the intercept.
cdef double VALUE_WEIGHTS[FEATURES + 1]
VALUE_WEIGHTS[:] = [
    0.4041, 0.4135, 0.0674, 0.2333, 0.0842, -0.4166,
    0.1995, -0.3546, -0.3993, -0.0254, -0.2090, -0.0713,
    0.5151, -0.1908, -0.1734, -0.0241, 0.0689, -0.0271,
    0.2230, -0.1918, 0.2439, -0.0651, 0.0066, 0.1279,
    0.0468, 0.0226, 0.0044, 0.0711, -0.0756, 0.0860,
    -0.0850, -0.0946, 0.9057, -0.4448,
]

cdef inline int count(float entry, double scale) noexcept nogil:
    return <int>(entry * scale + 0.01)

cdef void features(const float* obs, double* x) noexcept nogil:
    """The 33 features, in order: per relative team (the searching seat's, then the other): its
    table's face value / 100, clean and dirty canastas (a twos canasta counts 2 or 2.33: its
    bonus as a multiple of a rank canasta's), melds of 5-6 and of 3-4 tiles, opened, bonus threes signed by
    opened (7 each); each relative seat's hand size / 10; the smaller hand of each team; the
    seat's own wilds, blocking threes, natural pairs and triples or more; the stock / 10.6, the
    pile below the top / 10.6, the same when the top is a natural (a pile that can be taken);
    the mover, one-hot; the table's lead times the stock's share, and the lead in canastas."""
    cdef int i = 0, k, r, t, b, nat, twos, jokers, size, held_k
    cdef double points, clean, dirty, long_melds, short_melds, pairs, triples
    for t in range(2):
        b = TEAM + TEAM_BLOCK * t
        points = clean = dirty = long_melds = short_melds = 0
        for r in range(12):
            nat, twos, jokers = count(obs[b + 3 * r], 8), count(obs[b + 3 * r + 1], 3), count(obs[b + 3 * r + 2], 2)
            if r == 1:  # the twos meld: its 2s are its naturals
                size = nat + jokers
                points += RANK_VALUE[r] * nat + 50 * jokers
                if size >= 7:
                    if jokers: dirty += 700.0 / 300.0
                    else: clean += 1000.0 / 500.0
            else:
                size = nat + twos + jokers
                points += RANK_VALUE[r] * nat + 20 * twos + 50 * jokers
                if size >= 7:
                    if twos + jokers: dirty += 1
                    else: clean += 1
            if size == 5 or size == 6: long_melds += 1
            if size == 3 or size == 4: short_melds += 1
        x[i] = points / 100
        x[i + 1] = clean
        x[i + 2] = dirty
        x[i + 3] = long_melds
        x[i + 4] = short_melds
        x[i + 5] = obs[b + OPENED]
        x[i + 6] = obs[b + BONUS] * 4 * (2 * obs[b + OPENED] - 1)
        i += 7
    for k in range(4):
        x[i + k] = obs[SEAT_BLOCK * k + HAND_SIZE] * 3
    x[i + 4] = min(x[i], x[i + 2])
    x[i + 5] = min(x[i + 1], x[i + 3])
    i += 6
    x[i] = held(obs, TWO) + held(obs, JOKER_KIND)
    x[i + 1] = held(obs, BLACK_THREE)
    pairs = triples = 0
    for k in range(12):
        if k == TWO: continue
        held_k = count(obs[k], 8)
        if held_k == 2: pairs += 1
        if held_k >= 3: triples += 1
    x[i + 2] = pairs
    x[i + 3] = triples
    i += 4
    x[i] = obs[STOCK] * 10
    x[i + 1] = obs[PILE] * 10
    x[i + 2] = 0
    for k in range(12):
        if k != TWO and obs[TOP + k] > 0.5: x[i + 2] = obs[PILE] * 10
    i += 3
    for k in range(4):
        x[i + k] = obs[MOVER + k]
    i += 4
    x[i] = (x[0] - x[7]) * obs[STOCK]
    x[i + 1] = x[1] + x[2] - x[8] - x[9]

def value_features(observation):
    """The evaluator's features of a seat's observation tensor (State.observation_tensor), as a
    list: what bench/canasta_value.py fits the weights to."""
    cdef float[::1] obs = observation
    cdef double x[FEATURES]
    features(&obs[0], x)
    return [x[j] for j in range(FEATURES)]

cdef int32_t evaluate(void* context, const float* obs, int32_t size, int32_t seat, int32_t players,
                      float* values) noexcept nogil:
    cdef double x[FEATURES]
    cdef double z = VALUE_WEIGHTS[FEATURES]
    cdef int j
    features(obs, x)
    for j in range(FEATURES):
        z += VALUE_WEIGHTS[j] * x[j]
    values[0] = values[2] = 1 / (1 + exp(-z))  # the searching seat's team (relative seats 0 and 2)
    values[1] = values[3] = 1 - values[0]
    return 0

cdef Plugin _plugin
kibitz_plugin = export_plugin(&_plugin, b"canasta_tiles example", b"canasta_tiles", choose, evaluate)
