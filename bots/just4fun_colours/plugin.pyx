# cython: boundscheck=False, wraparound=False, cdivision=True
"""Example plug-in for Just 4 Fun Colours (docs/plugins.md), built by kibitz's own build as
``kibitz.plugins.just4fun_colours``: ``ismcts:plugin=kibitz.plugins.just4fun_colours``.

It reads only the mover's observation tensor (docs/games/just4fun_colours.md §9; relative seats,
block 0 is the mover) and the legal-action mask:

- rollout policy: completes a line of its own at once, else scores every legal field: taking a
  field whose top an opponent owns (more if it breaks an opponent's line in the making), an
  empty one, and each orthogonal neighbour the mover owns (the area that decides the game
  without a line); the best field, ties drawn from the search's random bits;
- leaf evaluator: a line already won decides; otherwise each seat's largest connected area,
  turned into its share of the seats it beats (ties half), the scale of a win rate.
"""
from libc.stdint cimport int32_t, uint8_t, uint64_t

from kibitz_plugin cimport Plugin, best_legal, export_plugin, shares_beaten

cdef enum:
    SIDE = 6
    FIELDS = 36
    SEATS = 4
    OWNERS = 36       # 4 entries per field: the top stone's owner, one-hot over relative seats
    LINE5 = 210       # 1 with line=5
    LINE_WINNER = 211 # the winner by a line, one-hot over relative seats

cdef int owner(const float* obs, int field) noexcept nogil:
    """The relative seat whose stone tops `field`, or -1 for an empty field."""
    cdef int k
    for k in range(SEATS):
        if obs[OWNERS + 4 * field + k] > 0.5:
            return k
    return -1

cdef int run_through(const int* top, int field, int seat) noexcept nogil:
    """The longest straight run of `seat`'s fields through `field` (counted as `seat`'s)."""
    cdef int row = field // SIDE, col = field % SIDE, best = 0, d, length, r, c, step, s
    cdef int dr[4]
    cdef int dc[4]
    dr[:] = [0, 1, 1, 1]
    dc[:] = [1, 0, 1, -1]
    for d in range(4):
        length = 1
        for s in range(2):
            step = 2 * s - 1
            r, c = row + step * dr[d], col + step * dc[d]
            while 0 <= r < SIDE and 0 <= c < SIDE and top[r * SIDE + c] == seat:
                length += 1
                r, c = r + step * dr[d], c + step * dc[d]
        if length > best:
            best = length
    return best

cdef int32_t choose(void* context, const float* obs, int32_t size, const uint8_t* legal, int32_t n_actions,
                    int32_t seat, uint64_t random) noexcept nogil:
    cdef int top[FIELDS]
    cdef double score[37]
    cdef int f, n, r, c, need = 5 if obs[LINE5] > 0.5 else 4
    for f in range(FIELDS):
        top[f] = owner(obs, f)
    for f in range(n_actions):
        score[f] = 0
        if f >= FIELDS or not legal[f]:
            continue
        if run_through(top, f, 0) >= need:
            return f  # a line of its own: the game is won
        if top[f] > 0:
            score[f] += 1.5 + 3.0 * (run_through(top, f, top[f]) >= need - 1)
        elif top[f] < 0:
            score[f] += 0.5
        r, c = f // SIDE, f % SIDE
        n = (c > 0 and top[f - 1] == 0) + (c < SIDE - 1 and top[f + 1] == 0)
        n += (r > 0 and top[f - SIDE] == 0) + (r < SIDE - 1 and top[f + SIDE] == 0)
        score[f] += n
    return best_legal(score, legal, n_actions, random)

cdef int largest_area(const int* top, int seat) noexcept nogil:
    """The most fields in one orthogonally connected group of `seat`'s tops."""
    cdef int seen[FIELDS]
    cdef int stack[FIELDS]
    cdef int f, g, h, i, size, depth, best = 0
    cdef int next_to[4]
    for f in range(FIELDS):
        seen[f] = 0
    for f in range(FIELDS):
        if top[f] != seat or seen[f]:
            continue
        seen[f], stack[0], depth, size = 1, f, 1, 0
        while depth > 0:
            depth -= 1
            g = stack[depth]
            size += 1
            next_to[:] = [g - 1 if g % SIDE > 0 else -1, g + 1 if g % SIDE < SIDE - 1 else -1, g - SIDE, g + SIDE]
            for i in range(4):
                h = next_to[i]
                if 0 <= h < FIELDS and top[h] == seat and not seen[h]:
                    seen[h] = 1
                    stack[depth] = h
                    depth += 1
        if size > best:
            best = size
    return best

cdef int32_t evaluate(void* context, const float* obs, int32_t size, int32_t seat, int32_t players,
                      float* values) noexcept nogil:
    cdef int top[FIELDS]
    cdef double area[SEATS]
    cdef int f, k, j
    for k in range(players):
        if obs[LINE_WINNER + k] > 0.5:
            for j in range(players):
                values[j] = 1.0 if j == k else 0.0
            return 0
    for f in range(FIELDS):
        top[f] = owner(obs, f)
    for k in range(players):
        area[k] = largest_area(top, k)
    shares_beaten(area, players, values)
    return 0

cdef Plugin _plugin
kibitz_plugin = export_plugin(&_plugin, b"just4fun_colours example", b"just4fun_colours", choose, evaluate)
