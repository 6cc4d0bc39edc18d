// Search parameters and results, shared by every algorithm and every game.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/game.h"
#include "plugin/kibitz_plugin.h"

namespace kibitz::search {

enum class Algorithm {
  kUct,       // plain UCT on the state as given: perfect information (the "cheating" baseline)
  kPimc,      // N determinizations, one UCT search each, root visits summed
  kSoIsmcts,  // single-observer information-set MCTS, one tree for the searching seat
  kMoIsmcts,  // multiple-observer ISMCTS, one tree per seat
};

enum class FinalMove { kMostVisits, kBestMean };

// How each choosing seat selects at a simultaneous node, from its own statistics there
// (decoupled; Lanctot, Lisý & Winands, "Monte Carlo Tree Search in Simultaneous Move Games with
// Applications to Goofspiel", 2014; Lisý, Kovařík, Lanctot & Bošanský, NIPS 2013):
// kDuct (the default): decoupled UCT, UCB1 over the seat's own actions with the exploration
// constant; far the strongest in Yak (docs/strength.md). kRegretMatching: regret matching on sampled regrets, mixed with a uniform share sm_gamma; its
// average strategy approaches an equilibrium (in two-seat zero-sum games: the least exploitable;
// docs/architecture.md §4). kExp3: Exp3 with exploration sm_gamma. At a simultaneous root, rm and exp3 play a move drawn from the
// searching seat's average strategy, duct the one final_move names.
enum class Simultaneous { kRegretMatching, kDuct, kExp3 };

// What a simulated game is worth to each seat: its return (win 1, a k-way shared win 1/k,
// else 0) mixed with a graded result, so that games no seat wins outright still tell places
// apart: kRank by the final ranking ((n - rank) / (n - 1)), kScore by the score between the
// lowest and the highest (1/2 when all are equal).
enum class Shaping { kNone, kRank, kScore };

// What a node adds for the player who chose its edge. kMaxN: that player's own reward.
// kParanoid (Sturtevant & Korf 2000; in MCTS, Nijssen & Winands, "Search Policies in
// Multi-Player Games", ICGA J. 2013): every seat outside the searching seat's team plays
// against it, so its nodes add one minus the searching seat's reward, and the searching
// team's nodes add that reward. With two teams whose rewards sum to 1 the two are the same.
enum class Backup { kMaxN, kParanoid };

// Set from another thread to end a running search early (the protocol's `stop`).
struct StopFlag {
  std::atomic<bool> value{false};
};

// What the search proved about a root move (MCTS-Solver): a win or a loss for the searching
// seat's team with best play, whatever the hidden cards are.
enum class Proof : std::uint8_t { kNone, kWin, kLoss };

struct ActionStats {
  Action action;
  std::uint64_t visits;
  double mean_reward;  // for the searching seat (its team's reward in team games)
  Proof proof = Proof::kNone;
  // The search's policy at the root: at a simultaneous node under rm or exp3 the searching
  // seat's average strategy, otherwise the share of the visits. Sums to 1 over the entries.
  double probability = 0;
};

// Visits and summed reward per root action (keyed by the action), as one search thread has them.
struct RootTotals {
  std::uint64_t visits = 0;
  double reward = 0;
  Proof proof = Proof::kNone;
  double weight = 0;  // what ActionStats::probability is proportional to (the visits, or the strategy sum)
};
using RootTable = std::map<Action, RootTotals>;

// The MAST table (Params::mast, progressive_history): per (seat, action), how many times the
// seat played it in the simulated games and their summed reward; and as the Result lists it.
using HistoryTable = std::map<std::pair<int, Action>, std::pair<std::uint64_t, double>>;
struct HistoryStats {
  int seat;
  Action action;
  std::uint64_t count;
  double mean_reward;  // the reward the seat's nodes back up (Params::backup)
};

// One entry per visited action, most visited first; and their visit-weighted mean reward.
std::vector<ActionStats> sorted_stats(const RootTable& table);
// Adds one tree's (or thread's) root totals into `into`; a proof in either is kept (proofs
// are sound, so two never disagree).
void merge_root(RootTable& into, const RootTable& from);
double root_value(const std::vector<ActionStats>& stats);
// The threads' MAST tables summed, by seat and action.
std::vector<HistoryStats> merged_history(const std::vector<HistoryTable>& tables);

// Read from another thread while a search runs (the protocol's periodic `info`): iterations
// completed so far over all threads (updated every 16 iterations), and each thread's root
// statistics (published every kPublishPeriod iterations).
class Progress {
 public:
  static constexpr std::uint64_t kPublishPeriod = 1024;
  std::atomic<std::uint64_t> iterations{0};

  void publish(int thread, RootTable table);
  // The threads' latest tables merged: one entry per visited action, most visited first.
  std::vector<ActionStats> root_stats() const;

 private:
  mutable std::mutex mutex_;
  std::map<int, RootTable> by_thread_;
};

struct Params {
  Algorithm algorithm = Algorithm::kSoIsmcts;
  double exploration = 0.7;        // UCB1 constant c in mean + c*sqrt(ln(n_parent)/n)
  bool heuristic_rollouts = true;  // false: uniform random rollouts
  double rollout_epsilon = 0.1;    // heuristic rollouts: chance of a uniform random move instead
  int determinizations = 20;       // PIMC only
  int threads = 1;                 // root parallelism: independent trees, root statistics merged
  std::uint64_t iterations = 10000;  // 0: no iteration budget
  double time_limit_ms = 0;          // 0: no time budget; with both set, whichever ends first
  FinalMove final_move = FinalMove::kMostVisits;
  std::uint64_t seed = 0;
  const StopFlag* stop = nullptr;  // with no other budget the search runs until it is set
  Progress* progress = nullptr;
  // A rollout policy and/or leaf evaluator from a separately compiled module (search/plugin.h,
  // docs/plugins.md); null: the game's own policy, rollouts to the end.
  const kibitz_plugin* plugin = nullptr;
  // Games with an exact solver (search/solver.h), 2 players: once at most this many stones
  // are left (Yucata': on the board, red included), play the solver's move in a won or tied
  // position instead of searching (a lost one is searched). 0: never. 26: Yucata' solves take a few ms, rarely 50 (docs/games/yucata.md).
  int solve_stones = 26;
  // MCTS-Solver (Winands, Björnsson & Saito 2008): wins and losses reached in the tree are
  // proven where the observer's information decides them, proven children are chosen or
  // avoided, and a proven win at the root ends the search.
  bool solver = true;
  // Memory for the search trees, in MiB over all threads: at the cap the trees stop growing and
  // the search goes on iterating from their leaves.
  double memory_mb = 512;
  // Selection at simultaneous nodes, and its uniform exploration share for rm and exp3.
  Simultaneous simultaneous = Simultaneous::kDuct;
  double sm_gamma = 0.1;
  // At a simultaneous root at which other seats have chosen already (a position read from a
  // sequential record), take back the choices the searching seat has not seen and search them
  // as simultaneous (games with reopen_choices); false: determinizations guess them uniformly
  // (what recording them as hidden sequential decisions gives; a baseline).
  bool reopen_choices = true;
  // reward = (1 - shaping_weight) * return + shaping_weight * graded result.
  Shaping shaping = Shaping::kNone;
  double shaping_weight = 0.25;
  // Weights of the game's rollout policy by name (the game's kPolicyWeights); the others keep
  // their defaults. An unknown name or a value out of range is an OptionError.
  std::vector<std::pair<std::string, double>> policy;
  Backup backup = Backup::kMaxN;
  // MAST (Finnsson & Björnsson 2008): each seat's mean reward per action id over every
  // decision of every iteration so far. This share of rollout decisions takes the seat's best
  // action by that mean (untried ones first), or with probability mast_epsilon a uniform one
  // (epsilon-greedy, Tak, Winands & Björnsson 2012); the others follow the rollout policy. 0: off.
  double mast = 0;
  double mast_epsilon = 0.4;
  // Progressive History (Nijssen & Winands 2011): selection adds
  // W * history mean / (visits * (1 - mean) + 1), the history mean being the MAST table's. 0: off.
  double progressive_history = 0;
  // Progressive bias (Chaslot et al. 2008) from the rollout policy: at each selection the move
  // the game's heuristic_action plays there gains W / (visits + 1). 0: off.
  double progressive_bias = 0;
  // With a plug-in evaluator: the rollout decisions played after the tree before the evaluator
  // scores the position (0: it scores the leaf itself). Ignored without one.
  int eval_depth = 0;
};

struct Result {
  Action action = 0;
  std::vector<ActionStats> stats;  // one entry per root action, most visited first
  std::uint64_t iterations = 0;
  std::uint64_t nodes = 0;  // tree nodes created, all threads and trees
  double seconds = 0;
  double root_value = 0;  // visit-weighted mean reward of the root for the searching seat
  bool forced = false;     // one legal move: answered at once, nothing searched
  bool tree_full = false;  // the memory budget was reached: the trees stopped growing
  std::vector<HistoryStats> history;  // the MAST table, by seat and action; empty when unused
};

std::string algorithm_name(Algorithm a);
Algorithm parse_algorithm(const std::string& name);  // throws OptionError

}  // namespace kibitz::search
