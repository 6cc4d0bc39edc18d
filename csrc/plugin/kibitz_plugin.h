/* The kibitz plug-in ABI: a rollout policy and a leaf evaluator the search calls through plain C
 * function pointers, so that a module compiled on its own (Cython, C, C++, Rust ...) plugs into
 * an installed kibitz without rebuilding it. docs/plugins.md describes it; kibitz_plugin.pxd
 * beside this file declares it for Cython.
 *
 * A plug-in is one `kibitz_plugin` struct, handed to Python as a PyCapsule named
 * KIBITZ_PLUGIN_CAPSULE whose pointer is the struct; a module exports it as its attribute
 * `kibitz_plugin`, and `kibitz.plugins.load("module.name")` picks it up. The struct and whatever
 * `context` points to must stay valid while the module is loaded (a static is the usual choice).
 *
 * Both functions are called WITHOUT the GIL, from every search thread at once: they must be
 * thread-safe (read-only context, or per-call state only) and must not touch Python objects.
 * Every random choice must come from the `random` word the search passes (drawn from the
 * search's seed), so that a search with an iteration budget stays deterministic.
 *
 * Both see the game only through the observation tensor of one seat (what that seat may see;
 * laid out per game in docs/games/<game>.md, seats relative: block k is seat (seat + k) mod
 * players) and the legal-action mask. Inside a search the state is a determinization, so
 * what the tensor shows is the searching seat's guess of the hidden parts, never the truth.
 */
#ifndef KIBITZ_PLUGIN_H
#define KIBITZ_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the struct or a signature changes; the search refuses another version. */
#define KIBITZ_PLUGIN_ABI_VERSION 1
/* The name of the PyCapsule that holds a `kibitz_plugin*`. */
#define KIBITZ_PLUGIN_CAPSULE "kibitz.plugin"
/* What `choose` returns, or `evaluate` returns, to report a failure (then `error` explains it). */
#define KIBITZ_PLUGIN_ERROR (-1)

/* Rollout policy: the action to play at a decision of `seat` (or `seat`'s own choice at a
 * simultaneous node). `observation`: seat's tensor, `observation_size` floats.
 * `legal_mask[a]` is 1 where action id a is legal for seat, 0 elsewhere, for a in
 * [0, n_actions) (n_actions is the game's max_actions; at least one entry is 1).
 * `random`: 64 uniformly random bits for this call. Returns a legal action id, or
 * KIBITZ_PLUGIN_ERROR; any other value is an error the search reports. */
typedef int32_t (*kibitz_choose_fn)(void* context, const float* observation, int32_t observation_size,
                                    const uint8_t* legal_mask, int32_t n_actions, int32_t seat, uint64_t random);

/* Leaf evaluator: the expected reward of every seat in the position, as seen by `seat`
 * (`observation` is seat's tensor). Writes values[k], the reward of relative seat k (seat
 * (seat + k) mod players), for k in [0, players): a number in [0, 1], on the scale of the
 * game's returns (a sole win 1, a loss 0; partners in team games get the same value).
 * Returns 0, or KIBITZ_PLUGIN_ERROR. */
typedef int32_t (*kibitz_evaluate_fn)(void* context, const float* observation, int32_t observation_size, int32_t seat,
                                      int32_t players, float* values);

/* Optional: a text explaining the last failure of a call on the calling thread (called on that
 * thread right after the failing call); NULL or "" for none. */
typedef const char* (*kibitz_error_fn)(void* context);

typedef struct kibitz_plugin {
  uint32_t abi_version;        /* KIBITZ_PLUGIN_ABI_VERSION */
  const char* name;            /* shown in errors and reprs */
  const char* game;            /* the game it is written for (its registry name); NULL: any game */
  void* context;               /* passed to every call */
  kibitz_choose_fn choose;     /* NULL: the game's own rollout policy */
  kibitz_evaluate_fn evaluate; /* NULL: rollouts play to the end of the game */
  kibitz_error_fn error;       /* may be NULL */
} kibitz_plugin;

#ifdef __cplusplus
}
#endif

#endif /* KIBITZ_PLUGIN_H */
