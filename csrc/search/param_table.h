// The search parameters, declared once: one row of KIBITZ_SEARCH_PARAMETERS per parameter.
//
// From this table come the fields of search::Params (params.h), their pybind binding and
// _core.parameter_table() (bindings/module.cpp), and from that, in Python, SearchParams, bot
// specs, the protocol's `option` lines with their bounds, the tuning space and the docs
// (python/kibitz/params.py). Adding a parameter is adding its row here (docs/architecture.md §5.3
// lists the steps). Runtime hooks that are no user setting (the stop flag, the progress
// display) are plain members of Params, outside the table.
#pragma once
#include <cstdint>
#include <type_traits>

namespace kibitz::search {

// A parameter that is one of a few named values is an enum whose enumerators are in the order of
// its row's `choices`, the first value being 0: the table maps names to enumerators by position.

enum class Algorithm {
  kSoIsmcts,  // single-observer information-set MCTS, one tree for the searching seat
  kMoIsmcts,  // multiple-observer ISMCTS, one tree per seat
  kPimc,      // N determinizations, one UCT search each, root visits summed
  kUct,       // plain UCT on the state as given: perfect information (the "cheating" baseline)
};

// Rollouts follow the game's heuristic policy (epsilon-greedy), or are uniformly random.
enum class Rollout { kHeuristic, kRandom };

enum class FinalMove { kMostVisits, kBestMean };

// What a simulated game is worth to each seat: its return (win 1, a k-way shared win 1/k,
// else 0), or under kRank its return mixed with its final ranking ((n - rank) / (n - 1)), so
// that games no seat wins outright still tell places apart.
enum class Shaping { kNone, kRank };

// How each choosing seat selects at a simultaneous node, from its own statistics there
// (decoupled; Lanctot, Lisý & Winands, "Monte Carlo Tree Search in Simultaneous Move Games with
// Applications to Goofspiel", 2014; Lisý, Kovařík, Lanctot & Bošanský, NIPS 2013):
// kDuct (the default): decoupled UCT, UCB1 over the seat's own actions with the exploration
// constant; far the strongest in Yak (docs/strength.md). kRegretMatching: regret matching on
// sampled regrets, mixed with a uniform share sm_gamma; its average strategy approaches an
// equilibrium (in two-seat zero-sum games: the least exploitable; docs/architecture.md §4). kExp3:
// Exp3 with exploration sm_gamma. At a simultaneous root, rm and exp3 play a move drawn from the
// searching seat's average strategy, duct the one final_move names.
enum class Simultaneous { kDuct, kRegretMatching, kExp3 };

// Where each other seat's share of rollout-policy moves in the tree (the opponent model) comes
// from. kFixed: opponent_policy, the same for every seat. kAdaptive: the bots and the engine
// estimate it per seat from the game so far (python/kibitz/opponents.py) and pass it in
// Params::opponent_shares; a search given no estimate uses opponent_policy.
enum class OpponentModel { kFixed, kAdaptive };

// The algorithms that read a parameter, one bit per Algorithm.
constexpr unsigned uses(Algorithm a) { return 1u << static_cast<unsigned>(a); }
inline constexpr unsigned kEveryAlgorithm = uses(Algorithm::kSoIsmcts) | uses(Algorithm::kMoIsmcts) | uses(Algorithm::kPimc) | uses(Algorithm::kUct);
inline constexpr const char* kAlgorithmNames = "so_ismcts mo_ismcts pimc uct";  // the `algorithm` row's choices

inline constexpr std::uint64_t kMaxSeed = (std::uint64_t{1} << 63) - 1;  // a signed 64-bit spin option holds every seed

// One row: a parameter of C++ type T (an integer, bool, floating point number, or an enum of
// named values).
template <class T>
struct ParamRow {
  T value{};                  // the default
  T low{}, high{};            // numbers: the allowed range, both ends included (a bool: 0..1)
  const char* choices = "";   // enums: the names of the values, in enum order, separated by spaces
  bool log = false;           // `kibitz tune` searches the declared range on a log scale (LOW must be above 0)
  bool tunable = true;        // false: it changes no decision of a search, only its resources
  unsigned algorithms = kEveryAlgorithm;  // the algorithms that read it
  const char* option = "";    // the text protocol's option name; "" if the protocol does not set it
  const char* aliases = "";   // other names a bot spec or options dict may use, separated by spaces
  const char* help = "";
};

// X(type, member of Params, name in Python, bot specs and records, row fields...). The rows are
// in the order SearchParams, its text and the protocol's handshake list them.
#define KIBITZ_SEARCH_PARAMETERS(X)                                                                                                   \
  X(Algorithm, algorithm, "algorithm", .choices = kAlgorithmNames, .option = "Algorithm",                                             \
    .help = "so_ismcts, mo_ismcts, pimc, or uct (perfect information: sees every hand)")                                              \
  /* Budgets: 0 disables one; with both set, whichever ends first. */ \
  X(std::uint64_t, iterations, "iterations", .value = 10000, .low = 0, .high = 1'000'000'000, .option = "Iterations",    \
    .help = "iterations per search; 0: no iteration budget; by default 10000, or none when a time is given")                          \
  X(double, time_limit_ms, "time_ms", .value = 0, .low = 0, .high = 1e9, .aliases = "time movetime",                     \
    .help = "milliseconds per search; 0: no time budget")                                                                             \
  X(double, exploration, "c", .value = 0.7, .low = 0, .high = 100, .option = "Exploration",                              \
    .help = "UCB1 exploration constant")                                                                                              \
  X(Rollout, rollout, "rollout", .choices = "heuristic random", .option = "Rollout", .help = "heuristic (the game's policy) or random") \
  X(double, rollout_epsilon, "epsilon", .value = 0.1, .low = 0, .high = 1, .option = "Epsilon",                                       \
    .help = "heuristic rollouts play a uniform random move with this probability")                                                    \
  X(int, determinizations, "determinizations", .value = 20, .low = 1, .high = 100'000, .log = true, .algorithms = uses(Algorithm::kPimc), \
    .option = "Determinizations", .aliases = "dets", .help = "PIMC only: deals searched")                                              \
  X(int, threads, "threads", .value = 1, .low = 1, .high = 256, .tunable = false, .option = "Threads",                                \
    .help = "root-parallel search threads")                                                                                           \
  X(FinalMove, final_move, "final", .choices = "visits mean",                                                                         \
    .help = "the move played: most visited (visits) or best mean reward (mean)")                                                      \
  /* The final-move policy (search/move_choice.h); the difficulty levels play with a temperature. */ \
  X(double, temperature, "temperature", .value = 0, .low = 0, .high = 1, .option = "Temperature",                                     \
    .help = "the move played is drawn among the searched moves not proven lost that have at least temperature_visits of the most "  \
            "visited one's visits, with probability proportional to exp((its mean reward - the best of theirs) / temperature); a "     \
            "proven win is always played; 0: the final rule's move")                                                                  \
  X(double, temperature_visits, "temperature_visits", .value = 0.1, .low = 0, .high = 1, .option = "TemperatureVisits",            \
    .help = "temperature: the least share of the most visited move's visits a move needs to be drawn")                               \
  X(std::uint64_t, seed, "seed", .value = 0, .low = 0, .high = kMaxSeed, .tunable = false, .option = "Seed",                          \
    .help = "every random choice of the search")                                                                                      \
  X(int, solve_stones, "solve_stones", .value = 26, .low = 0, .high = 64, .option = "SolveStones",                                    \
    .help = "2-player games with an exact solver (Yucata'): once at most this many stones are left, play the solver's move in a won " \
            "or tied position (a lost one is searched: the search bets best on a mistake); 0: never")                                 \
  /* MCTS-Solver (Winands, Björnsson & Saito 2008). */ \
  X(bool, solver, "solver", .value = true, .low = false, .high = true, .option = "Solver",                                            \
    .help = "1: MCTS-Solver: wins and losses the observer's information decides are proven, proven moves are taken or avoided, and "  \
            "a proven win at the root is played at once; 0: off")                                                                     \
  X(int, memory_mb, "memory_mb", .value = 512, .low = 1, .high = 1 << 20, .tunable = false, .option = "Hash", .aliases = "hash",      \
    .help = "memory for the search trees in MiB, over all threads; at the cap the trees stop growing and the search goes on "         \
            "iterating from their leaves")                                                                                            \
  X(Shaping, shaping, "shaping", .choices = "none rank", .option = "Shaping",                                                        \
    .help = "what a simulated game is worth beyond its return: none, or rank ((n - rank) / (n - 1)), mixed in with shaping_weight")    \
  X(double, shaping_weight, "shaping_weight", .value = 0.25, .low = 0, .high = 1, .option = "ShapingWeight",                          \
    .help = "reward = (1 - w) * return + w * the graded rank; 0 = return only")                                                     \
  /* An opponent model inside the tree: max^n assumes every seat maximises its own reward. */ \
  X(double, opponent_policy, "opponent_policy", .value = 0, .low = 0, .high = 1, .option = "OpponentPolicy",                        \
    .help = "opponent model: at a decision of a seat outside the searching team the tree plays the rollout policy's move with "    \
            "this probability and selects by UCB1 otherwise; the searching team's own decisions always select by UCB1; 0 = off "   \
            "(max^n: every seat maximises)")                                                                                        \
  X(OpponentModel, opponent_model, "opponent_model", .choices = "fixed adaptive", .option = "OpponentModel",                      \
    .help = "where each other seat's share of rollout-policy moves in the tree comes from: fixed (opponent_policy for every seat) " \
            "or adaptive (estimated per seat from its moves so far in the game: how likely each was under the rollout policy "   \
            "and under a search with this bot's parameters)")                                                                       \
  X(Simultaneous, simultaneous, "simultaneous", .choices = "duct rm exp3", .option = "Simultaneous",                                  \
    .help = "how each choosing seat selects at a simultaneous node, from its own statistics: duct (decoupled UCT, with c; the "       \
            "strongest in Yak), rm (regret matching, the move played drawn from the average strategy; the least exploitable in "      \
            "two-seat zero-sum games) or exp3")                                                                                       \
  X(double, sm_gamma, "sm_gamma", .value = 0.1, .low = 0, .high = 1, .option = "SimultaneousGamma",                                   \
    .help = "rm and exp3: the share of uniform exploration mixed into each seat's strategy at a simultaneous node")                   \
  X(bool, reopen_choices, "reopen_choices", .value = true, .low = false, .high = true, .option = "ReopenChoices",                     \
    .help = "1: at a simultaneous node where other seats have chosen already (a position read from a sequential record), take back "  \
            "the choices this seat has not seen and search them as simultaneous; 0: determinizations guess them uniformly (a "        \
            "baseline)")                                                                                                              \
  X(int, eval_depth, "eval_depth", .value = 0, .low = 0, .high = 100000, .option = "EvalDepth",                                       \
    .help = "with a plug-in leaf evaluator (kibitz.plugins): rollout decisions played after the tree before the evaluator scores "   \
            "the position; 0 = it scores the leaf itself; ignored without one")

// Each row checked when it is compiled: a default inside its range, a log scale above 0, names
// for an enum's values.
template <class T>
constexpr bool sound(const ParamRow<T>& row) {
  if constexpr (std::is_enum_v<T>)
    return row.choices[0] != '\0';
  else
    return row.low <= row.value && row.value <= row.high && (!row.log || row.low > 0);
}
#define KIBITZ_PARAM_CHECK(type, member, name, ...) \
  static_assert(sound(ParamRow<type>{__VA_ARGS__}), name ": the default is outside the range, the log scale reaches 0, or no choices");
KIBITZ_SEARCH_PARAMETERS(KIBITZ_PARAM_CHECK)
#undef KIBITZ_PARAM_CHECK

}  // namespace kibitz::search
