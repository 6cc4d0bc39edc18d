// UCT, PIMC, SO-ISMCTS and MO-ISMCTS, written once over the Game concept.
//
// One iteration walks down from the root of every tree in use, applying moves to a copy of
// the state: at a decision the acting tree selects (UCB1 over availability counts: the
// parent's visits since the child was created in which the child's move was legal), at
// chance the game samples. Every tree
// follows the move by what its observer saw of it. The walk stops after the first new node
// of the acting tree, plays a rollout to the end, and backs up the reward vector: each node
// adds the reward of the player who chose its edge (max^n; team games give partners the
// same reward). References: Kocsis & Szepesvári 2006 (UCT); Cowling, Powley & Whitehouse,
// "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012 (SO-/MO-ISMCTS).
#pragma once
#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/game.h"
#include "search/params.h"
#include "search/solver.h"
#include "search/tree.h"

namespace kibitz::search {

using Clock = std::chrono::steady_clock;

// Optional member a game may add: a uniform random legal decision, faster than listing them.
template <class S>
concept HasRandomAction = requires(const S s, Rng& rng) {
  { s.random_action(rng) } -> std::convertible_to<Action>;
};

template <Game S>
Action uniform_random_action(const S& state, Rng& rng) {
  if constexpr (HasRandomAction<S>) {
    return state.random_action(rng);
  } else {
    std::array<Action, S::kMaxActions> actions;
    const int n = state.legal_actions(actions.data());
    return actions[rng.below(static_cast<std::uint32_t>(n))];
  }
}

struct Budget {
  std::uint64_t iterations;  // 0: unlimited
  Clock::time_point deadline;
  bool timed;
  const StopFlag* stop;
  Progress* progress;
  bool done(std::uint64_t done_iterations) const {
    if (iterations && done_iterations >= iterations) return true;
    if ((done_iterations & 15) != 0) return false;
    if (progress && done_iterations) progress->iterations.fetch_add(16, std::memory_order_relaxed);
    return (stop && stop->value.load(std::memory_order_relaxed)) || (timed && Clock::now() >= deadline);
  }
};

// Adds the root children of `tree` (visits and reward per move) to `totals`.
inline void add_root(const Tree& tree, RootTable& totals) {
  for (std::uint32_t c = tree[Tree::root()].first_child; c != kNoNode; c = tree[c].next_sibling) {
    auto& t = totals[tree[c].token];
    t.visits += tree[c].visits;
    t.reward += tree[c].reward;
  }
}

template <Game S>
class Searcher {
  static constexpr int kOmniscient = -1;  // observer of UCT/PIMC trees: sees every move
  static constexpr Action kHiddenDecision = S::kMaxActions;

  struct Step {
    std::uint32_t node;
    int mover;  // player whose reward this node accumulates; -1 for chance
  };

 public:
  Searcher(const Params& params, int root_seat, std::uint64_t seed)
      : params_(params), root_seat_(root_seat), rng_(seed) {}

  // Runs iterations from `root` (not determinized here for UCT; PIMC passes determinized roots).
  void run(const S& root, const Budget& budget) {
    const bool per_tree_seat = params_.algorithm == Algorithm::kMoIsmcts;
    const int n_trees = per_tree_seat ? root.num_players() : 1;
    if (trees_.empty()) {
      trees_.resize(n_trees);
      paths_.resize(n_trees);
      const std::size_t reserve = std::min<std::uint64_t>(budget.iterations ? budget.iterations * 2 + 16 : 1 << 16, 1 << 22);
      for (auto& t : trees_) t.reset(reserve);
      for (auto& p : paths_) p.reserve(1024);
    }
    const bool determinize = params_.algorithm == Algorithm::kSoIsmcts || params_.algorithm == Algorithm::kMoIsmcts;
    std::uint64_t done = 0;
    while (!budget.done(done)) {
      iterate(determinize ? root.determinize(root_seat_, rng_) : root);
      if (++done % Progress::kPublishPeriod == 0 && budget.progress) publish(*budget.progress);
    }
    iterations_ += done;
  }

  // Root statistics published to Progress are this thread's tree plus `base` (PIMC: the
  // determinizations already finished).
  void set_published_base(int thread, const RootTable* base) { thread_ = thread, published_base_ = base; }

  // The root tree: the searching seat's own tree for MO-ISMCTS.
  const Tree& root_tree() const { return trees_[params_.algorithm == Algorithm::kMoIsmcts ? root_seat_ : 0]; }
  std::uint64_t iterations() const { return iterations_; }
  std::uint64_t nodes() const {
    std::uint64_t n = 0;
    for (const auto& t : trees_) n += t.size();
    return n;
  }
  void clear_trees() { trees_.clear(), paths_.clear(); }

 private:
  int observer(int tree) const {
    switch (params_.algorithm) {
      case Algorithm::kMoIsmcts: return tree;
      case Algorithm::kSoIsmcts: return root_seat_;
      default: return kOmniscient;
    }
  }

  // What the observer of a tree sees of a decision by `mover`.
  Action decision_token(const S& state, int obs, int mover, Action a) const {
    if (obs == kOmniscient || obs == mover) return a;
    const Action seen = state.observe(obs, a);
    assert(seen == kUnobserved || seen < kHiddenDecision);  // class ids must be action ids
    return seen == kUnobserved ? kHiddenDecision : seen;
  }

  Action chance_token(const S& state, int obs, Action outcome) const {
    if (obs == kOmniscient) return outcome | kChanceToken;
    const Action seen = state.observe(obs, outcome);
    return seen == kUnobserved ? kUnobserved : seen | kChanceToken;
  }

  void iterate(S state) {
    const int n_trees = static_cast<int>(trees_.size());
    std::array<std::uint32_t, S::kMaxPlayers> cursor;
    for (int t = 0; t < n_trees; ++t) {
      cursor[t] = Tree::root();
      paths_[t].clear();
      paths_[t].push_back({Tree::root(), -1});
    }
    bool expanded = false;
    while (!expanded && !state.is_terminal()) {
      const int player = state.current_player();
      if (player == kChancePlayer) {
        const Action outcome = state.sample_chance(rng_);
        for (int t = 0; t < n_trees; ++t) {
          const Action token = chance_token(state, observer(t), outcome);
          if (token == kUnobserved) continue;
          cursor[t] = trees_[t].child(cursor[t], token);
          paths_[t].push_back({cursor[t], -1});
        }
        state.apply(outcome);
        continue;
      }
      const int acting = n_trees > 1 ? player : 0;
      bool created = false;
      const Action action = select(state, player, trees_[acting], cursor[acting], observer(acting), created);
      for (int t = 0; t < n_trees; ++t) {
        if (t != acting) {
          const Action token = decision_token(state, observer(t), player, action);
          const std::uint32_t existing = trees_[t].find_child(cursor[t], token);
          cursor[t] = existing != kNoNode ? existing : trees_[t].add_child(cursor[t], token);
        }
        paths_[t].push_back({cursor[t], player});
      }
      expanded = created;
      state.apply(action);
    }
    rollout(state);
    std::array<double, S::kMaxPlayers> reward{};
    state.returns(reward.data());
    for (int t = 0; t < n_trees; ++t)
      for (const Step& step : paths_[t]) {
        Node& node = trees_[t][step.node];
        ++node.visits;
        if (step.mover >= 0) node.reward += reward[step.mover];
      }
  }

  // UCB1 with availability counts over the tokens the acting tree can tell apart; an untried
  // token is expanded first. Moves the tree cannot tell apart are chosen among uniformly.
  Action select(const S& state, int player, Tree& tree, std::uint32_t& cursor, int obs, bool& created) {
    const int n = state.legal_actions(actions_.data());
    ++stamp_;
    int n_tokens = 0;
    for (int i = 0; i < n; ++i) {
      const Action token = decision_token(state, obs, player, actions_[i]);
      tokens_[i] = token;
      if (mark_[token] != stamp_) {
        mark_[token] = stamp_;
        slot_[token] = kNoNode;
        distinct_[n_tokens++] = token;
      }
    }
    for (std::uint32_t c = tree[cursor].first_child; c != kNoNode; c = tree[c].next_sibling) {
      const Action token = tree[c].token;
      if (token <= kHiddenDecision && mark_[token] == stamp_) {
        slot_[token] = c;
        ++tree[c].availability;
      }
    }
    int untried = 0;
    for (int i = 0; i < n_tokens; ++i)
      if (slot_[distinct_[i]] == kNoNode) distinct_[untried++] = distinct_[i];  // compacts untried to the front
    Action chosen_token;
    if (untried > 0) {
      chosen_token = distinct_[rng_.below(static_cast<std::uint32_t>(untried))];
      cursor = tree.add_child(cursor, chosen_token);
      tree[cursor].availability = 1;
      created = true;
    } else {
      double best = -1e300;
      std::uint32_t best_child = kNoNode;
      for (int i = 0; i < n; ++i) {
        const std::uint32_t c = slot_[tokens_[i]];
        if (mark_[tokens_[i]] != stamp_ || c == kNoNode) continue;
        const Node& node = tree[c];
        const double value = node.reward / node.visits +
                             params_.exploration * std::sqrt(std::log(static_cast<double>(node.availability)) / node.visits);
        if (value > best) best = value, best_child = c;
      }
      cursor = best_child;
      chosen_token = tree[best_child].token;
    }
    int matches = 0;
    Action pick = actions_[0];
    for (int i = 0; i < n; ++i)
      if (tokens_[i] == chosen_token && rng_.below(static_cast<std::uint32_t>(++matches)) == 0) pick = actions_[i];
    return pick;
  }

  void rollout(S& state) {
    while (!state.is_terminal()) {
      if (state.current_player() == kChancePlayer) {
        state.apply(state.sample_chance(rng_));
      } else if (params_.heuristic_rollouts && (params_.rollout_epsilon <= 0 || rng_.uniform() >= params_.rollout_epsilon)) {
        state.apply(state.heuristic_action(rng_));
      } else {
        state.apply(uniform_random_action(state, rng_));
      }
    }
  }

  Params params_;
  int root_seat_;
  Rng rng_;
  std::vector<Tree> trees_;
  std::vector<std::vector<Step>> paths_;
  std::uint64_t iterations_ = 0;
  std::array<Action, S::kMaxActions> actions_{};
  std::array<Action, S::kMaxActions> tokens_{};
  std::array<Action, S::kMaxActions + 1> distinct_{};
  void publish(Progress& progress) const {
    RootTable table = published_base_ ? *published_base_ : RootTable{};
    add_root(root_tree(), table);
    progress.publish(thread_, std::move(table));
  }

  std::array<std::uint32_t, S::kMaxActions + 1> mark_{};
  std::array<std::uint32_t, S::kMaxActions + 1> slot_{};
  std::uint32_t stamp_ = 0;
  int thread_ = 0;
  const RootTable* published_base_ = nullptr;
};

namespace detail {

inline std::uint64_t thread_seed(std::uint64_t seed, int thread) {
  std::uint64_t x = seed ^ (0xA0761D6478BD642FULL * static_cast<std::uint64_t>(thread + 1));
  return splitmix64(x);
}

}  // namespace detail

// Searches `root` for the decision of the seat to move. Root parallelism: each thread grows
// its own trees from its own seed; root statistics are summed. Deterministic for a given
// seed when the budget is iterations only.
template <Game S>
Result search(const S& root, const Params& params) {
  const int seat = root.current_player();
  if (seat < 0) throw std::invalid_argument("search needs a decision node: the state is terminal or a chance node");
  if (params.iterations == 0 && params.time_limit_ms <= 0 && !params.stop)
    throw OptionError("search needs a budget: set iterations and/or time_limit_ms, or a stop flag");
  if (params.threads < 1) throw OptionError("threads must be at least 1");
  if (params.algorithm == Algorithm::kPimc && params.determinizations < 1)
    throw OptionError("determinizations must be at least 1");
  if constexpr (Solvable<S>) {
    Result solved;
    if (params.solve_stones > 0 && root.num_players() == 2 && root.stones_left() <= params.solve_stones &&
        solved_result(root, kSolveNodeBudget, solved))
      return solved;
  }
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(params.time_limit_ms));
  const bool timed = params.time_limit_ms > 0;
  const int threads = params.threads;

  std::vector<RootTable> totals(threads);
  std::vector<std::uint64_t> iterations(threads), nodes(threads);
  auto work = [&](int thread) {
    const std::uint64_t share = params.iterations ? params.iterations / threads + (static_cast<std::uint64_t>(thread) < params.iterations % threads) : 0;
    if (params.iterations && share == 0) return;
    Searcher<S> searcher(params, seat, detail::thread_seed(params.seed, thread));
    searcher.set_published_base(thread, &totals[thread]);
    if (params.algorithm != Algorithm::kPimc) {
      searcher.run(root, Budget{share, deadline, timed, params.stop, params.progress});
      add_root(searcher.root_tree(), totals[thread]);
      iterations[thread] = searcher.iterations();
      nodes[thread] = searcher.nodes();
      return;
    }
    // PIMC: this thread's share of the determinizations, each an independent UCT search. With
    // only a stop flag, rounds of determinizations of kStoppableShare iterations each run
    // until it is set.
    constexpr std::uint64_t kStoppableShare = 2000;
    Rng rng(detail::thread_seed(params.seed ^ 0x5851F42D4C957F2DULL, thread));
    const int n_det = params.determinizations / threads + (thread < params.determinizations % threads);
    const bool until_stopped = !params.iterations && !timed;
    for (int d = 0; until_stopped ? !params.stop->value.load(std::memory_order_relaxed) : d < n_det; ++d) {
      const std::uint64_t det_share =
          until_stopped ? kStoppableShare : share ? share / n_det + (static_cast<std::uint64_t>(d) < share % n_det) : 0;
      const auto det_deadline = timed ? start + (deadline - start) * (d + 1) / n_det : deadline;
      if (share && det_share == 0) continue;
      searcher.clear_trees();
      searcher.run(root.determinize(seat, rng), Budget{det_share, det_deadline, timed, params.stop, params.progress});
      add_root(searcher.root_tree(), totals[thread]);
      nodes[thread] += searcher.nodes();
    }
    iterations[thread] = searcher.iterations();
  };
  if (threads == 1) {
    work(0);
  } else {  // an exception in a worker (a game's determinize refusing a state) reaches the caller
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          work(t);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (auto& th : pool) th.join();
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  RootTable merged;
  Result result;
  for (int t = 0; t < threads; ++t) {
    for (const auto& [a, v] : totals[t]) merged[a].visits += v.visits, merged[a].reward += v.reward;
    result.iterations += iterations[t];
    result.nodes += nodes[t];
  }
  result.stats = sorted_stats(merged);
  if (result.stats.empty()) {  // budget too small to visit anything: fall back to the first legal move
    std::array<Action, S::kMaxActions> actions;
    root.legal_actions(actions.data());
    result.action = actions[0];
  } else {
    const auto best = params.final_move == FinalMove::kMostVisits
                          ? result.stats.begin()
                          : std::max_element(result.stats.begin(), result.stats.end(),
                                             [](const ActionStats& a, const ActionStats& b) { return a.mean_reward < b.mean_reward; });
    result.action = best->action;
    result.root_value = root_value(result.stats);
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

// The greedy one-ply bot: the legal move whose resulting position evaluates best for the
// mover (chance after the move is not looked at); ties broken at random.
template <Game S>
Action greedy_action(const S& state, Rng& rng) {
  std::array<Action, S::kMaxActions> actions;
  const int n = state.legal_actions(actions.data());
  const int seat = state.current_player();
  double best = -1e300;
  Action pick = actions[0];
  int ties = 0;
  for (int i = 0; i < n; ++i) {
    S next = state;
    next.apply(actions[i]);
    const double value = next.evaluate(seat);
    if (value > best) {
      best = value, pick = actions[i], ties = 1;
    } else if (value == best && rng.below(static_cast<std::uint32_t>(++ties)) == 0) {
      pick = actions[i];
    }
  }
  return pick;
}

// Plays uniformly random moves (and samples chance) to the end; returns the number of
// decisions made. The random-playout benchmark measures this loop.
template <Game S>
int random_playout(S& state, Rng& rng) {
  int decisions = 0;
  while (!state.is_terminal()) {
    if (state.current_player() == kChancePlayer) {
      state.apply(state.sample_chance(rng));
    } else {
      state.apply(uniform_random_action(state, rng));
      ++decisions;
    }
  }
  return decisions;
}

// Plays the game's heuristic rollout policy (and samples chance) to the end; returns the
// number of decisions made.
template <Game S>
int heuristic_playout(S& state, Rng& rng) {
  int decisions = 0;
  while (!state.is_terminal()) {
    if (state.current_player() == kChancePlayer) {
      state.apply(state.sample_chance(rng));
    } else {
      state.apply(state.heuristic_action(rng));
      ++decisions;
    }
  }
  return decisions;
}

}  // namespace kibitz::search
