# cython: boundscheck=False, wraparound=False, cdivision=True
"""Example plug-in for Yucata' (docs/plugins.md), built by kibitz's own build as
``kibitz.plugins.yucata``: ``ismcts:plugin=kibitz.plugins.yucata``.

It reads only the mover's observation tensor (docs/games/yucata.md §8; relative seats, block 0
is the mover) and the legal-action mask (ids 0-6: the cards 1 2 3 4 5 S Q):

- rollout policy: works out where each legal card takes the amulet (§1.6) and what it collects
  (§1.7): a pale stone scores 1, a dark one costs what it adds to the triangular penalty
  (§1.9); a card that reaches the goal ends the game, worth a lot when the mover then leads and
  avoided when it does not; S and Q, which copy the lead, are kept back a little. The best
  card, ties drawn from the search's random bits;
- leaf evaluator: each seat's score so far (pale − D(D+1)/2), turned into its share of the
  seats it beats (ties half), the scale of a win rate.
"""
from libc.stdint cimport int32_t, uint8_t, uint64_t

from kibitz_plugin cimport Plugin, best_legal, export_plugin, shares_beaten

cdef enum:
    SEATS = 4
    BLOCK = 13        # per relative seat: present, to move, red, amulet / 39, pale / 25, dark / 9, 7 cards
    DARK = 52         # 1 where space 5 ... 38 is dark
    STONE = 86        # 1 where space 5 ... 38 still holds its stone
    LEAD = 120        # the leading space / 39
    EFFECTIVE = 129   # the previous play's effective card, one-hot 1 2 3 4 5 S Q none
    GOAL = 39
    CARD_S = 5
    CARD_Q = 6

cdef inline int whole(float x, int scale) noexcept nogil:
    return <int>(x * scale + 0.5)

cdef inline int penalty(int dark) noexcept nogil:
    return dark * (dark + 1) // 2

cdef inline int score_of(const float* obs, int k) noexcept nogil:
    return whole(obs[BLOCK * k + 4], 25) - penalty(whole(obs[BLOCK * k + 5], 9))

cdef int destination(const float* obs, int card, int at, int lead) noexcept nogil:
    cdef int k
    if card == CARD_Q:  # what the previous play's effective card does now
        card = -1
        for k in range(7):
            if obs[EFFECTIVE + k] > 0.5:
                card = k
        if card < 0 or card == CARD_Q:
            return at + 1
    if card == CARD_S:
        return min(lead + 1, GOAL)
    return min(at + card + 1, GOAL)

cdef int32_t choose(void* context, const float* obs, int32_t size, const uint8_t* legal, int32_t n_actions,
                    int32_t seat, uint64_t random) noexcept nogil:
    cdef double score[7]
    cdef int card, space, to, pale, dark, k, mine, best_other, players = 0
    cdef int at = whole(obs[3], 39), lead = whole(obs[LEAD], 39)
    cdef int my_dark = whole(obs[5], 9)
    for k in range(SEATS):
        players += obs[BLOCK * k] > 0.5
    for card in range(n_actions):
        score[card] = 0
        if not legal[card]:
            continue
        to = destination(obs, card, at, lead)
        pale = dark = 0
        for space in range(max(at, lead) + 1, min(to, GOAL - 1) + 1):
            if space >= 5 and obs[STONE + space - 5] > 0.5:
                if obs[DARK + space - 5] > 0.5:
                    dark += 1
                else:
                    pale += 1
        score[card] = pale - (penalty(my_dark + dark) - penalty(my_dark))
        if to == GOAL:  # the game ends: the red stone gives back one dark stone (§1.9)
            mine = whole(obs[4], 25) + pale - penalty(max(my_dark + dark - 1, 0))
            best_other = -1000
            for k in range(1, players):
                best_other = max(best_other, score_of(obs, k))
            score[card] = 100 if mine > best_other else -100
        if card == CARD_S or card == CARD_Q:
            score[card] -= 0.5
    return best_legal(score, legal, n_actions, random)

cdef int32_t evaluate(void* context, const float* obs, int32_t size, int32_t seat, int32_t players,
                      float* values) noexcept nogil:
    cdef double score[SEATS]
    cdef int k
    for k in range(players):
        score[k] = score_of(obs, k)
    shares_beaten(score, players, values)
    return 0

cdef Plugin _plugin
kibitz_plugin = export_plugin(&_plugin, b"yucata example", b"yucata", choose, evaluate)
