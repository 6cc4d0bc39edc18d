# cython: boundscheck=False, wraparound=False, cdivision=True
"""Example plug-in for tile Canasta (docs/plugins.md), built by kibitz's own build as
``kibitz.plugins.canasta_tiles``: ``ismcts:plugin=kibitz.plugins.canasta_tiles``.

A rollout policy only (no evaluator): it reads the mover's observation tensor
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

cdef Plugin _plugin
kibitz_plugin = export_plugin(&_plugin, b"canasta_tiles example", b"canasta_tiles", choose, NULL)
