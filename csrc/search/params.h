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
#include "search/param_table.h"
#include "plugin/kibitz_plugin.h"

namespace kibitz::search {

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

// One entry per visited action, most visited first; and their visit-weighted mean reward.
std::vector<ActionStats> sorted_stats(const RootTable& table);
// Adds one tree's (or thread's) root totals into `into`; a proof in either is kept (proofs
// are sound, so two never disagree).
void merge_root(RootTable& into, const RootTable& from);
double root_value(const std::vector<ActionStats>& stats);

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

// Every parameter of the table (param_table.h) as a member with its default; and the run-time
// hooks and the rollout policy's weights, which are no row of it.
struct Params {
#define KIBITZ_PARAM_MEMBER(type, member, name, ...) type member = ParamRow<type>{__VA_ARGS__}.value;
  KIBITZ_SEARCH_PARAMETERS(KIBITZ_PARAM_MEMBER)
#undef KIBITZ_PARAM_MEMBER
  // Weights of the game's rollout policy by name (the game's kPolicyWeights); the others keep
  // their defaults. An unknown name or a value out of range is an OptionError.
  std::vector<std::pair<std::string, double>> policy;
  // The opponent model per seat (opponent_model=adaptive: the bots estimate it from the game so
  // far, python/kibitz/opponents.py): entry s is the share of seat s's tree decisions that play
  // the rollout policy's move, in place of opponent_policy; seats of the searching team are never
  // modelled. Empty: every other seat plays opponent_policy.
  std::vector<double> opponent_shares;
  const StopFlag* stop = nullptr;  // with no other budget the search runs until it is set
  Progress* progress = nullptr;
  // A rollout policy and/or leaf evaluator from a separately compiled module (search/plugin.h,
  // docs/plugins.md); null: the game's own policy, rollouts to the end.
  const kibitz_plugin* plugin = nullptr;
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
};

}  // namespace kibitz::search
