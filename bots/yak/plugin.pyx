# cython: boundscheck=False, wraparound=False, cdivision=True
"""Example plug-in for Yak (docs/plugins.md), built by kibitz's own build as
``kibitz.plugins.yak``: ``ismcts:plugin=kibitz.plugins.yak``.

A rollout policy only (no evaluator): it reads the mover's observation tensor (docs/games/yak.md
§7; relative seats, block 0 is the mover) and the legal-action mask (ids by decision kind, §4.1):

- at Sunrise (CHOOSE), a card drawn with weights from the mover's food: Build more likely the
  more food its yurt holds, Restock the less, Market steady;
- BUILD: the largest purchase it can pay for (the purchase list runs by size);
- PLACE: the lowest free position first (towers grow level by level);
- RESTOCK: the food kind its yurt holds least of;
- every other decision (PAY, OVERFLOW, TAKE, PUT): uniform among the legal ones.
"""
from libc.stdint cimport int32_t, uint8_t, uint64_t

from kibitz_plugin cimport Plugin, best_legal, draw_legal, export_plugin

cdef enum:
    YURT = 34 + 5       # the mover's yurt: meat, milk, bread / 8 (its block starts at 34)
    CHOOSE = 0          # ids 0-2: build, restock, market
    BUILD = 3           # ids 3-222: purchases, the empty one first, then by size
    PAY = 223
    PLACE = 385         # ids 385-510: 14 * stone + position
    RESTOCK = 511       # ids 511-513: meat, milk, bread
    TAKE = 514
    ACTIONS = 559

cdef inline double unit(uint64_t random) noexcept nogil:
    return <double>(random >> 11) * (1.0 / 9007199254740992.0)

cdef int32_t choose(void* context, const float* obs, int32_t size, const uint8_t* legal, int32_t n_actions,
                    int32_t seat, uint64_t random) noexcept nogil:
    cdef double score[ACTIONS]
    cdef double food = 8 * (obs[YURT] + obs[YURT + 1] + obs[YURT + 2]), total, u
    cdef double weight[3]
    cdef int a, first = -1
    for a in range(n_actions):
        if legal[a]:
            first = a
            break
    if first < 0:
        return -1
    if first < BUILD:  # Sunrise: a card drawn by weight
        weight[0] = 0.2 + food / 6
        weight[1] = 0.2 + 1.5 * max(0.0, 1 - food / 8)
        weight[2] = 0.4
        total = 0
        for a in range(3):
            weight[a] *= legal[a]
            total += weight[a]
        u = unit(random) * total
        for a in range(3):
            if legal[a] and u < weight[a]:
                return a
            u -= weight[a]
        return draw_legal(legal, n_actions, random)
    for a in range(n_actions):
        score[a] = 0
    if BUILD <= first < PAY:
        for a in range(BUILD, PAY):
            score[a] = a
    elif PLACE <= first < RESTOCK:
        for a in range(PLACE, RESTOCK):
            score[a] = -((a - PLACE) % 14)
    elif RESTOCK <= first < TAKE:
        for a in range(RESTOCK, TAKE):
            score[a] = -obs[YURT + a - RESTOCK]
    else:
        return draw_legal(legal, n_actions, random)
    return best_legal(score, legal, n_actions, random)

cdef Plugin _plugin
kibitz_plugin = export_plugin(&_plugin, b"yak example", b"yak", choose, NULL)
