# Cython declarations of the kibitz plug-in ABI (kibitz_plugin.h beside this file; docs/plugins.md).
# Installed with kibitz in kibitz/plugins/include, the folder kibitz.plugins.get_include() returns:
# compile a plug-in with that folder on Cython's include path and the C compiler's, then
#
#     from kibitz_plugin cimport Plugin, export_plugin
#     cdef Plugin _plugin                              # static: lives as long as the module
#     kibitz_plugin = export_plugin(&_plugin, b"my policy", NULL, my_choose, NULL)  # what kibitz.plugins.load() reads
#
# (my_choose a cdef function, noexcept nogil; or fill the struct's fields one by one and call
# plugin_capsule(&_plugin), to set a context or an error function.)
#
# The functions run without the GIL on every search thread: declare them `noexcept nogil` and
# keep them free of Python objects.
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

cdef extern from "kibitz_plugin.h":
    enum:
        KIBITZ_PLUGIN_ABI_VERSION
        KIBITZ_PLUGIN_ERROR
    const char* KIBITZ_PLUGIN_CAPSULE

    ctypedef int32_t (*kibitz_choose_fn)(void* context, const float* observation, int32_t observation_size,
                                         const uint8_t* legal_mask, int32_t n_actions, int32_t seat,
                                         uint64_t random) noexcept nogil
    ctypedef int32_t (*kibitz_evaluate_fn)(void* context, const float* observation, int32_t observation_size,
                                           int32_t seat, int32_t players, float* values) noexcept nogil
    ctypedef const char* (*kibitz_error_fn)(void* context) noexcept nogil

    ctypedef struct kibitz_plugin:
        uint32_t abi_version
        const char* name
        const char* game
        void* context
        kibitz_choose_fn choose
        kibitz_evaluate_fn evaluate
        kibitz_error_fn error


ctypedef kibitz_plugin Plugin  # the struct under a name that leaves `kibitz_plugin` free for the capsule attribute


cdef inline object plugin_capsule(kibitz_plugin* plugin):
    """The PyCapsule kibitz.plugins.load() takes: export it as the module's `kibitz_plugin`."""
    return PyCapsule_New(<void*>plugin, KIBITZ_PLUGIN_CAPSULE, NULL)


cdef inline object export_plugin(kibitz_plugin* plugin, const char* name, const char* game, kibitz_choose_fn choose,
                                 kibitz_evaluate_fn evaluate):
    """Fills `plugin` (a module-level static; no context, no error text) and returns its capsule:
    `kibitz_plugin = export_plugin(&_plugin, b"my policy", b"yak", choose, NULL)`. `game` NULL: any."""
    plugin.abi_version = KIBITZ_PLUGIN_ABI_VERSION
    plugin.name = name
    plugin.game = game
    plugin.context = NULL
    plugin.choose = choose
    plugin.evaluate = evaluate
    plugin.error = NULL
    return plugin_capsule(plugin)


cdef inline void shares_beaten(const double* score, int32_t players, float* values) noexcept nogil:
    """values[k]: the share of the other seats whose score seat k beats, a tie counting half (in
    [0, 1], summing to players / 2): a leaf evaluator's values from per-seat scores."""
    cdef int32_t k, j
    cdef double beaten
    for k in range(players):
        beaten = 0
        for j in range(players):
            if j != k:
                beaten += 1.0 if score[k] > score[j] else 0.5 if score[k] == score[j] else 0.0
        values[k] = beaten / (players - 1) if players > 1 else 1.0


cdef inline int32_t draw_legal(const uint8_t* legal_mask, int32_t n_actions, uint64_t random) noexcept nogil:
    """A uniformly random legal action id (the mask has at least one): a fallback and tie-break helper."""
    cdef int32_t count = 0, a
    for a in range(n_actions):
        count += legal_mask[a] != 0
    cdef int32_t k = <int32_t>((random >> 32) * <uint64_t>count >> 32)
    for a in range(n_actions):
        if legal_mask[a]:
            if k == 0:
                return a
            k -= 1
    return KIBITZ_PLUGIN_ERROR


cdef inline int32_t best_legal(const double* scores, const uint8_t* legal_mask, int32_t n_actions, uint64_t random) noexcept nogil:
    """The legal action with the highest score, ties broken uniformly from `random`."""
    cdef int32_t best = KIBITZ_PLUGIN_ERROR, ties = 0, a
    cdef double top = -1e300
    cdef uint64_t x = random
    for a in range(n_actions):
        if not legal_mask[a]:
            continue
        if scores[a] > top:
            top, best, ties = scores[a], a, 1
        elif scores[a] == top:
            ties += 1
            x = x * 6364136223846793005ULL + 1442695040888963407ULL  # a step of Knuth's MMIX LCG
            if ((x >> 32) * <uint64_t>ties) >> 32 == 0:
                best = a
    return best
