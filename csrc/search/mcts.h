// UCT, PIMC, SO-ISMCTS and MO-ISMCTS, written once over the Game concept.
//
// One iteration walks down from the root of every tree in use, applying moves to a copy of
// the state: at a decision the acting tree selects (UCB1 over availability counts: the
// parent's visits since the child was created in which the child's move was legal), at
// chance the game samples. Every tree follows the move by what its observer saw of it. The
// walk stops after the first new node of the acting tree, plays a rollout to the end, and
// backs up the reward vector: each node adds the reward of the player who chose its edge
// (max^n; team games give partners the same reward). Wins and losses that the observer's
// information decides are proven and propagate (MCTS-Solver). docs/architecture.md §4 has the
// details. References: Kocsis & Szepesvári 2006 (UCT); Cowling, Powley & Whitehouse,
// "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012 (SO-/MO-ISMCTS); Winands,
// Björnsson & Saito, "Monte-Carlo Tree Search Solver", CG 2008; Teytaud & Teytaud, "On the
// huge benefit of decisive moves in Monte-Carlo Tree Search algorithms", CIG 2010. Optional, by
// Params (docs/search_enhancements.md): MAST rollouts (Finnsson & Björnsson 2008), Progressive
// History (Nijssen & Winands 2011), progressive bias from the rollout policy (Chaslot et al.
// 2008), paranoid backups and best-reply search (Nijssen & Winands 2013; Schadd & Winands 2011).
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/game.h"
#include "search/move_choice.h"
#include "search/params.h"
#include "search/plugin.h"
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

// A uniformly random legal choice of a choosing seat at a simultaneous node.
template <SimultaneousGame S>
Action uniform_random_choice(const S& state, int seat, Rng& rng) {
  std::array<Action, S::kMaxActions> actions;
  const int n = state.legal_choices(seat, actions.data());
  return actions[rng.below(static_cast<std::uint32_t>(n))];
}

// Plays the simultaneous node `state` is at, each choosing seat's action from pick(seat) (asked in
// recording order); returns the number of choices made.
template <SimultaneousGame S, class Pick>
int play_joint(S& state, Pick&& pick) {
  std::array<int, S::kMaxPlayers> seats;
  const int n = state.choosing_seats(seats.data());
  std::array<Action, S::kMaxPlayers> joint;
  joint.fill(kNoAction);
  for (int i = 0; i < n; ++i) joint[seats[i]] = pick(seats[i]);
  state.apply_joint(joint.data());
  return n;
}

// Of the `n` actions, the one whose successor (a copy of `state` after play(copy, action))
// evaluates best for `seat`; ties broken at random.
using Weights = std::array<double, kMaxPolicyWeights>;
using NamedWeights = std::vector<std::pair<std::string, double>>;

// A weight table's defaults with those `named` replaced; an unknown name or a value out of range
// is an OptionError naming `kind` ("policy", "eval") and `game`.
template <std::size_t N>
Weights resolve_weights(const std::array<PolicyWeight, N>& table, const NamedWeights& named, const char* kind, const char* game) {
  static_assert(N <= kMaxPolicyWeights);
  Weights weights{};
  for (std::size_t i = 0; i < N; ++i) weights[i] = table[i].value;
  for (const auto& [name, value] : named) {
    std::string known;
    bool found = false;
    for (std::size_t i = 0; i < N; ++i) {
      const PolicyWeight& w = table[i];
      known += std::string(known.empty() ? "" : ", ") + w.name;
      if (name != w.name) continue;
      if (!(value >= w.low && value <= w.high))
        throw OptionError(std::string(kind) + " weight " + name + ": " + std::to_string(value) + " is out of range; expected a number in " +
                          std::to_string(w.low) + ".." + std::to_string(w.high));
      weights[i] = value, found = true;
    }
    if (!found) throw OptionError("unknown " + std::string(kind) + " weight '" + name + "' for " + game + "; known: " + known);
  }
  return weights;
}

// The game's rollout-policy weights: its defaults, with those `named` (Params::policy) replaced.
template <Game S>
Weights policy_weights(const NamedWeights& named) {
  if constexpr (HasPolicyWeights<S>) return resolve_weights(S::kPolicyWeights, named, "policy", S::kName);
  if (!named.empty()) throw OptionError(std::string(S::kName) + " has no policy weights; got '" + named.front().first + "'");
  return {};
}

// The greedy evaluation's weights: the game's defaults, with those `named` replaced.
template <Game S>
Weights eval_weights(const NamedWeights& named) {
  if constexpr (HasEvalWeights<S>) return resolve_weights(S::kEvalWeights, named, "eval", S::kName);
  if (!named.empty()) throw OptionError(std::string(S::kName) + " has no eval weights; got '" + named.front().first + "'");
  return {};
}

// The greedy bot's evaluation of `state` for `seat`, with the game's eval weights when it has them.
template <Game S>
double evaluation(const S& state, int seat, const Weights& eval) {
  if constexpr (HasEvalWeights<S>)
    return state.evaluate(seat, eval.data());
  else
    return state.evaluate(seat);
}

template <Game S, class Play>
Action best_evaluated(const S& state, const Action* actions, int n, int seat, const Weights& eval, Rng& rng, Play&& play) {
  double best = -1e300;
  Action pick = actions[0];
  int ties = 0;
  for (int i = 0; i < n; ++i) {
    S next = state;
    play(next, actions[i]);
    const double value = evaluation(next, seat, eval);
    if (value > best) {
      best = value, pick = actions[i], ties = 1;
    } else if (value == best && rng.below(static_cast<std::uint32_t>(++ties)) == 0) {
      pick = actions[i];
    }
  }
  return pick;
}

// The greedy one-ply bot at a simultaneous node, for choosing seat `seat`: its choice whose
// result evaluates best for it (with the eval weights `eval`). The other choosing seats' choices,
// which it cannot see, are drawn uniformly once and kept the same for each of its own; ties
// broken at random.
template <SimultaneousGame S>
Action greedy_choice(const S& state, int seat, const Weights& eval, Rng& rng) {
  std::array<int, S::kMaxPlayers> seats;
  const int k = state.choosing_seats(seats.data());
  std::array<Action, S::kMaxPlayers> joint;
  joint.fill(kNoAction);
  for (int i = 0; i < k; ++i)
    if (seats[i] != seat) joint[seats[i]] = uniform_random_choice(state, seats[i], rng);
  std::array<Action, S::kMaxActions> actions;
  const int n = state.legal_choices(seat, actions.data());
  return best_evaluated(state, actions.data(), n, seat, eval, rng, [&](S& next, Action a) {
    joint[seat] = a;
    next.apply_joint(joint.data());
  });
}

// The greedy one-ply bot: the legal move whose resulting position evaluates best for the
// mover (with the eval weights `eval`; chance after the move is not looked at); ties broken at random.
template <Game S>
Action greedy_action(const S& state, const Weights& eval, Rng& rng) {
  std::array<Action, S::kMaxActions> actions;
  const int n = state.legal_actions(actions.data());
  return best_evaluated(state, actions.data(), n, state.current_player(), eval, rng, [](S& next, Action a) { next.apply(a); });
}

struct Budget {
  std::uint64_t iterations;  // 0: unlimited
  Clock::time_point deadline;
  bool timed;
  const StopFlag* stop;
  Progress* progress;
  const std::atomic<bool>* solved = nullptr;  // set once any thread has proven the root
  bool done(std::uint64_t done_iterations) const {
    if (iterations && done_iterations >= iterations) return true;
    if ((done_iterations & 15) != 0) return false;
    if (progress && done_iterations) progress->iterations.fetch_add(16, std::memory_order_relaxed);
    return (stop && stop->value.load(std::memory_order_relaxed)) || (solved && solved->load(std::memory_order_relaxed)) ||
           (timed && Clock::now() >= deadline);
  }
};

// `start` plus `ms` milliseconds; a time beyond 10^12 ms (31 years) is capped there, so that no
// budget overflows the clock.
inline Clock::time_point deadline_after(Clock::time_point start, double ms) {
  constexpr double kMaxMs = 1e12;
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(std::min(ms, kMaxMs)));
}

template <Game S>
class Searcher {
  static constexpr int kOmniscient = -1;  // observer of UCT/PIMC trees: sees every move
  static constexpr Action kHiddenDecision = S::kMaxActions;
  static constexpr int kNoReplier = -1;

  struct Step {
    std::uint32_t node;
    int mover;  // player whose reward this node accumulates; -1 for chance
  };

 public:
  // `max_nodes`: the size limit of each of this searcher's trees (the memory budget).
  Searcher(const Params& params, int root_seat, int root_team, std::uint64_t seed, std::size_t max_nodes)
      : params_(params), policy_(policy_weights<S>(params.policy)), plugin_(params.plugin),
        cut_off_(plugin_.evaluates() ? params.eval_depth : params.rollout_depth > 0 ? params.rollout_depth : -1), root_seat_(root_seat), root_team_(root_team), rng_(seed),
        max_nodes_(max_nodes) {
    if constexpr (SimultaneousGame<S>) joint_steps_.reserve(64), joint_slots_.reserve(512);
  }

  // Runs iterations from `root` (not determinized here for UCT; PIMC passes determinized roots),
  // until the budget ends or the root is proven.
  void run(const S& root, const Budget& budget) {
    const bool per_tree_seat = params_.algorithm == Algorithm::kMoIsmcts;
    const int n_trees = per_tree_seat ? root.num_players() : 1;
    if (trees_.empty()) {
      trees_.resize(n_trees);
      paths_.resize(n_trees);
      const std::size_t reserve = std::min<std::uint64_t>(budget.iterations ? budget.iterations * 2 + 16 : 1 << 16, 1 << 22);
      for (auto& t : trees_) t.reset(reserve, max_nodes_);
      for (auto& p : paths_) p.reserve(1024);
      tree_iterations_ = 0;
      if (params_.mast > 0 || params_.progressive_history > 0) {
        history_.assign(static_cast<std::size_t>(root.num_players()) * S::kMaxActions, History{});
        played_.reserve(1024);
      }
    }
    const bool determinize = params_.algorithm == Algorithm::kSoIsmcts || params_.algorithm == Algorithm::kMoIsmcts;
    if (determinize && pool_.empty()) draw_pool(root);
    std::uint64_t done = 0;
    while (!budget.done(done) && tree_iterations_ < kMaxTreeIterations && !root_proven()) {
      iterate(determinize ? root_deal(root) : root);
      ++tree_iterations_;
      if (++done % Progress::kPublishPeriod == 0 && budget.progress) publish(*budget.progress);
    }
    iterations_ += done;
  }

  // Root statistics published to Progress are this thread's tree plus `base` (PIMC: the
  // determinizations already finished).
  void set_published_base(int thread, const RootTable* base) { thread_ = thread, published_base_ = base; }

  // The root tree: the searching seat's own tree for MO-ISMCTS.
  const Tree& root_tree() const { return trees_[params_.algorithm == Algorithm::kMoIsmcts ? root_seat_ : 0]; }
  bool root_proven() const { return root_tree()[Tree::root()].proven != kUnproven; }
  // Adds the root children (visits, reward and proof per move) to `totals`.
  // At a simultaneous root: the searching seat's choice statistics there.
  void add_root(RootTable& totals) const {
    const Tree& tree = root_tree();
    if (add_joint_root(totals)) return;
    for (std::uint32_t c = tree[Tree::root()].first_child; c != kNoNode; c = tree[c].next_sibling) {
      auto& t = totals[tree[c].token];
      t.visits += tree[c].visits;
      t.reward += tree[c].reward;
      t.weight += tree[c].visits;
      if (tree[c].proven != kUnproven) t.proof = tree[c].proven == root_team_ ? Proof::kWin : Proof::kLoss;
    }
  }
  std::uint64_t iterations() const { return iterations_; }
  std::uint64_t nodes() const {
    std::uint64_t n = 0;
    for (const auto& t : trees_) n += t.size();
    return n;
  }
  bool tree_full() const {
    return std::any_of(trees_.begin(), trees_.end(), [](const Tree& t) { return t.full(); });
  }
  void clear_trees() { trees_.clear(), paths_.clear(), history_.clear(), pool_.clear(), pool_cumulative_.clear(); }

  // Adds the MAST table (nothing when neither MAST nor progressive history is on) to `totals`.
  void add_history(HistoryTable& totals) const {
    for (std::size_t i = 0; i < history_.size(); ++i)
      if (history_[i].count) {
        auto& t = totals[{static_cast<int>(i / S::kMaxActions), static_cast<Action>(i % S::kMaxActions)}];
        t.first += history_[i].count;
        t.second += history_[i].reward;
      }
  }

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

  // Follows an observed chance edge in tree t (creating it; kNoNode once the tree is full).
  void enter_chance(int t, std::uint32_t& cursor, Action token) {
    if (cursor == kNoNode) return;
    cursor = trees_[t].child(cursor, token);
    if (cursor != kNoNode) paths_[t].push_back({cursor, -1});
  }

  // Commuting chance (game.h): a run of outcomes is one edge keyed by the sum of a hash of each,
  // which does not depend on their order; 30 bits of it tell siblings apart.
  static std::uint64_t chance_hash(Action token) {
    std::uint64_t x = token + 0x9E3779B97F4A7C15ULL;
    return splitmix64(x);
  }
  static Action run_token(std::uint64_t key) {
    return static_cast<Action>((key ^ key >> 30 ^ key >> 60) & (kChanceToken - 1)) | kChanceToken;
  }
  // Whether only `obs` sees this chance outcome (a card it draws).
  static bool private_to(const S& state, int obs, Action outcome) {
    for (int q = 0; q < state.num_players(); ++q)
      if (q != obs && state.observe(q, outcome) != kUnobserved) return false;
    return true;
  }

  // The team that alone wins this terminal state, or kUnproven (a shared result).
  static int sole_winner(const S& state) {
    std::array<double, S::kMaxPlayers> r{};
    state.returns(r.data());
    int team = kUnproven;
    for (int p = 0; p < state.num_players(); ++p) {
      if (r[p] == 0) continue;
      if (r[p] != 1 || (team != kUnproven && team != state.team(p))) return kUnproven;
      team = state.team(p);
    }
    return team;
  }

  // The chance outcomes a tree has seen since its last edge, when chance runs commute (game.h):
  // they become one edge at the next decision. Outcomes only the tree's observer sees (its own
  // draws) wait for the observer's own next decision: the other seats' decisions in between
  // cannot depend on them, so their nodes are shared by all of them.
  struct ChanceRun {
    std::uint64_t key = 0;
    bool open = false;
    bool seen_by_others = false;
  };

  // Policy-based inference (Params::infer_pool; Solinas, Rebstock & Buro 2019): once per search,
  // infer_pool determinizations, each weighted by the likelihood of the other seats' recent
  // decisions under the game's rollout policy (HasDecisionLikelihood), relative to the likeliest.
  // Nothing for a game without the likelihood, or with infer_pool 0.
  void draw_pool(const S& root) {
    if constexpr (HasDecisionLikelihood<S>) {
      const int n = params_.infer_pool;
      if (n == 0) return;
      pool_.reserve(n);
      pool_cumulative_.resize(n);
      double best = -std::numeric_limits<double>::infinity();
      for (int i = 0; i < n; ++i) {
        pool_.push_back(root.determinize(root_seat_, rng_));
        pool_cumulative_[i] = pool_.back().decision_log_likelihood(root_seat_, params_.infer_turns, params_.infer_temperature,
                                                                   params_.infer_epsilon, policy_.data(), rng_);
        best = std::max(best, pool_cumulative_[i]);
      }
      double total = 0;
      for (double& w : pool_cumulative_) w = total += std::isfinite(best) ? std::exp(w - best) : 1.0;  // none possible: all alike
    }
  }

  // The determinization an iteration starts from: a fresh one, or one drawn from the weighted pool.
  S root_deal(const S& root) {
    if (pool_.empty()) return root.determinize(root_seat_, rng_);
    const double u = rng_.uniform() * pool_cumulative_.back();
    const auto i = std::upper_bound(pool_cumulative_.begin(), pool_cumulative_.end(), u) - pool_cumulative_.begin();
    return pool_[std::min<std::size_t>(static_cast<std::size_t>(i), pool_.size() - 1)];
  }

  void iterate(S state) {
    const int n_trees = static_cast<int>(trees_.size());
    std::array<std::uint32_t, S::kMaxPlayers> cursor;  // kNoNode: the walk has left that (full) tree
    std::array<ChanceRun, S::kMaxPlayers> run{};
    for (int t = 0; t < n_trees; ++t) {
      cursor[t] = Tree::root();
      paths_[t].clear();
      paths_[t].push_back({Tree::root(), -1});
    }
    if constexpr (SimultaneousGame<S>) joint_steps_.clear(), joint_slots_.clear();
    // Ends the runs that must end before `player` decides (kTerminalPlayer: all of them).
    auto end_runs = [&](int player) {
      if constexpr (chance_runs_commute<S>())
        for (int t = 0; t < n_trees; ++t)
          if (run[t].open && (player == kTerminalPlayer || run[t].seen_by_others || observer(t) == player)) {
            enter_chance(t, cursor[t], run_token(run[t].key));
            run[t] = ChanceRun{};
          }
    };
    played_.clear();
    bool expanded = false;
    int proven = kUnproven;
    // Best-reply search (single tree): the seat that makes every decision in the tree in the
    // current run of opponents' turns, and whether the walk has passed a replier node, below which
    // a state also depends on the policy moves of the seats that did not reply: nothing is proven.
    const bool best_reply = params_.backup == Backup::kBestReply;
    int replier = kNoReplier;
    bool below_reply = false;
    while (!expanded && !state.is_terminal()) {
      const int player = state.current_player();
      if (player == kChancePlayer) {
        const Action outcome = state.sample_chance(rng_);
        for (int t = 0; t < n_trees; ++t) {
          const Action token = chance_token(state, observer(t), outcome);
          if (token == kUnobserved) continue;
          if constexpr (chance_runs_commute<S>()) {
            run[t].key += chance_hash(token);
            run[t].open = true;
            run[t].seen_by_others |= observer(t) == kOmniscient || !private_to(state, observer(t), outcome);
          } else {
            enter_chance(t, cursor[t], token);
          }
        }
        state.apply(outcome);
        continue;
      }
      end_runs(player);
      if constexpr (SimultaneousGame<S>) {
        if (player == kSimultaneousPlayer) {
          if (descend_joint(state, cursor, end_runs, proven)) break;
          continue;
        }
      }
      if (best_reply) {
        if (state.team(player) == root_team_) {
          replier = kNoReplier;  // the opponents' turns are over
        } else {
          if (replier == kNoReplier) {
            if (cursor[0] == kNoNode) break;
            bool created = false;
            const std::uint32_t segment_start = cursor[0];
            replier = select_replier(state, cursor[0], created);
            below_reply |= cursor[0] != segment_start;
            if (created || cursor[0] == kNoNode) break;  // a new replier node: roll out from the first opponent's turn
          }
          if (player != replier) {  // a seat that does not reply plays the rollout policy, outside the tree
            const Action move = policy_action<true>(state);
            if (!history_.empty()) played_.push_back({player, move});
            state.apply(move);
            continue;
          }
        }
      }
      const int acting = n_trees > 1 ? player : 0;
      if (cursor[acting] == kNoNode) break;  // the memory budget stopped this tree: roll out from here
      bool created = false;
      const Action action = select(state, player, acting, cursor[acting], created);
      for (int t = 0; t < n_trees; ++t) {
        if (t != acting && cursor[t] != kNoNode) {
          const Action token = decision_token(state, observer(t), player, action);
          const std::uint32_t existing = trees_[t].find_child(cursor[t], token);
          cursor[t] = existing != kNoNode ? existing : trees_[t].add_child(cursor[t], token);
        }
        if (cursor[t] != kNoNode) paths_[t].push_back({cursor[t], player});
      }
      expanded = created;
      if (!history_.empty()) played_.push_back({player, action});
      state.apply(action);
      if (!created && params_.solver && trees_[acting][cursor[acting]].proven != kUnproven) {
        proven = trees_[acting][cursor[acting]].proven;
        break;
      }
    }
    if (state.is_terminal()) end_runs(kTerminalPlayer);
    std::array<double, S::kMaxPlayers> reward{};
    if (proven != kUnproven) {
      for (int p = 0; p < state.num_players(); ++p) reward[p] = state.team(p) == proven ? 1.0 : 0.0;
    } else if (state.is_terminal()) {
      if (params_.solver && !below_reply) prove_terminal(state, cursor);
      reward_of(state, reward);
    } else if (play_out(state)) {
      reward_of(state, reward);
    } else if (plugin_.evaluates()) {
      plugin_.evaluate(state, root_seat_, reward.data());  // a plug-in evaluator's cut-off (Params::eval_depth)
    } else {
      cutoff_reward(state, reward);  // the game's evaluation after Params::rollout_depth decisions
    }
    back_up_values(state, reward);
    for (const auto& [p, a] : played_) {
      History& h = history_[static_cast<std::size_t>(p) * S::kMaxActions + a];
      h.reward += reward[p];
      ++h.count;
    }
    for (int t = 0; t < n_trees; ++t)
      for (const Step& step : paths_[t]) {
        Node& node = trees_[t][step.node];
        ++node.visits;
        if (step.mover >= 0) node.reward += reward[step.mover];
      }
    if constexpr (SimultaneousGame<S>) back_up_choices(reward);
  }

  // A truncated rollout's reward: each team's chance to win as a softmax of its mean evaluation
  // over kEvalScale * eval_scale (for two teams the logistic of their difference), every seat
  // getting its team's.
  void cutoff_reward(const S& state, std::array<double, S::kMaxPlayers>& reward) const {
    if constexpr (HasCutoffEvaluation<S>) {
      const int n = state.num_players();
      const double scale = S::kEvalScale * params_.eval_scale;
      std::array<double, S::kMaxPlayers> value{}, members{};
      for (int p = 0; p < n; ++p) value[state.team(p)] += state.evaluate(p), ++members[state.team(p)];
      double top = -1e300;
      for (int t = 0; t < n; ++t)
        if (members[t] > 0) top = std::max(top, value[t] /= members[t] * scale);
      double total = 0;
      for (int t = 0; t < n; ++t) total += members[t] > 0 ? (value[t] = std::exp(value[t] - top)) : 0;
      for (int p = 0; p < n; ++p) reward[p] = value[state.team(p)] / total;
    }
  }

  // The reward of a finished game per seat (Params::shaping).
  void reward_of(const S& state, std::array<double, S::kMaxPlayers>& reward) {
    state.returns(reward.data());
    if (params_.shaping == Shaping::kNone) return;
    const int n = state.num_players();
    std::array<double, S::kMaxPlayers> graded{};
    if (params_.shaping == Shaping::kRank) {
      state.ranks(graded.data());
      for (int p = 0; p < n; ++p) graded[p] = (n - graded[p]) / (n - 1);
    } else if (params_.shaping == Shaping::kMargin) {
      std::array<double, S::kMaxPlayers> score{};
      state.scores(score.data());
      for (int p = 0; p < n; ++p) {
        double best_other = -1e300;
        for (int q = 0; q < n; ++q)
          if (state.team(q) != state.team(p)) best_other = std::max(best_other, score[q]);
        graded[p] = best_other > -1e300 ? score[p] - best_other : 0;
        squared_margins_ += graded[p] * graded[p], ++margins_;
      }
      const double spread = std::sqrt(squared_margins_ / margins_);
      for (int p = 0; p < n; ++p) graded[p] = spread > 0 ? 0.5 + 0.5 * std::tanh(graded[p] / spread) : 0.5;
    } else {
      state.scores(graded.data());
      const auto [low, high] = std::minmax_element(graded.begin(), graded.begin() + n);
      const double lo = *low, span = *high - *low;
      for (int p = 0; p < n; ++p) graded[p] = span > 0 ? (graded[p] - lo) / span : 0.5;
    }
    const double w = params_.shaping_weight;
    for (int p = 0; p < n; ++p) reward[p] = (1 - w) * reward[p] + w * graded[p];
  }

  // Whether a proven result, the team `winner` winning, is a win for a mover of team `team`: its own
  // win under max^n; under paranoid and best reply, for the searching team its own, for every
  // other seat any result the searching team loses.
  bool wins_for(int team, int winner) const {
    if (params_.backup == Backup::kMaxN || team == root_team_) return winner == team;
    return winner != root_team_;
  }

  // What each seat's nodes add (Params::backup): under paranoid and best reply, the searching
  // team's reward for its members and its complement for every other seat.
  void back_up_values(const S& state, std::array<double, S::kMaxPlayers>& reward) const {
    if (params_.backup == Backup::kMaxN) return;
    const double mine = reward[root_seat_];
    for (int p = 0; p < state.num_players(); ++p) reward[p] = state.team(p) == root_team_ ? mine : 1 - mine;
  }

  // The walk reached the end of the game inside the trees: where the observer's information
  // decides the result (every state in the tree's information set ends the same way), the
  // node is proven.
  void prove_terminal(const S& state, const std::array<std::uint32_t, S::kMaxPlayers>& cursor) {
    const int winner = sole_winner(state);
    if (winner == kUnproven) return;
    for (int t = 0; t < static_cast<int>(trees_.size()); ++t)
      if (cursor[t] != kNoNode && cursor[t] != Tree::root() && (observer(t) == kOmniscient || public_outcome<S>()))
        trees_[t][cursor[t]].proven = static_cast<std::int8_t>(winner);
  }

  // UCB1's score of an arm tried `visits` times (at least once) for `reward` in all, where
  // `log_trials` is the log of the trials it could have had (its availability, or its parent's).
  double ucb1(double reward, std::uint32_t visits, double log_trials) const {
    return reward / visits + params_.exploration * std::sqrt(log_trials / visits);
  }

  // UCB1 with availability counts over the tokens the acting tree can tell apart; an untried
  // token is expanded first (a winning move before others). Moves the tree cannot tell apart
  // are chosen among uniformly. With the solver a proven win among the legal moves is taken and
  // proven losses are avoided while anything else is left; where the legal moves are the same
  // in every state the node stands for (the mover is the tree's observer, or the tree sees
  // everything), the node itself becomes proven: won if one move wins, lost if all lose. With
  // Params::opponent_policy (or the seat's Params::opponent_shares entry) a seat outside the
  // searching team plays, on that share of its visits, the rollout policy's move instead (a
  // proven win is still taken first).
  Action select(const S& state, int player, int t, std::uint32_t& cursor, bool& created) {
    Tree& tree = trees_[t];
    const int obs = observer(t);
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
    const int my_team = state.team(player);
    std::uint32_t winning = kNoNode;
    int losing = 0, lost_to = kUnproven;
    bool one_winner = true;
    for (std::uint32_t c = tree[cursor].first_child; c != kNoNode; c = tree[c].next_sibling) {
      const Action token = tree[c].token;
      if (token <= kHiddenDecision && mark_[token] == stamp_) {
        slot_[token] = c;
        ++tree[c].availability;
        const int proven = tree[c].proven;
        if (!params_.solver || proven == kUnproven) continue;
        if (wins_for(my_team, proven)) {
          winning = c;
        } else {
          ++losing;
          one_winner &= lost_to == kUnproven || lost_to == proven;
          lost_to = proven;
        }
      }
    }
    const std::uint32_t node = cursor;
    const bool fixed_moves = obs == kOmniscient || obs == player;
    int untried = 0;
    for (int i = 0; i < n_tokens; ++i)
      if (slot_[distinct_[i]] == kNoNode) distinct_[untried++] = distinct_[i];  // compacts untried to the front
    Action chosen_token;
    Action modelled = kNoAction;  // Params::opponent_policy: the rollout policy's move, played as it is
    const double modelled_share = opponent_share(player);
    if (winning == kNoNode && modelled_share > 0 && my_team != root_team_ && rng_.uniform() < modelled_share)
      modelled = policy_action<true>(state);
    if (winning != kNoNode) {
      if (fixed_moves) tree[node].proven = tree[winning].proven;
      cursor = winning;
      chosen_token = tree[winning].token;
    } else if (modelled != kNoAction) {
      // The opponent model (docs/architecture.md §4): this visit follows the policy, so the
      // values backed up above this node mix a policy player with a maximising one.
      chosen_token = decision_token(state, obs, player, modelled);
      const std::uint32_t existing = slot_[chosen_token];
      if (existing != kNoNode) {
        cursor = existing;
      } else {
        cursor = tree.add_child(cursor, chosen_token);
        if (cursor != kNoNode) tree[cursor].availability = 1;
        created = true;
      }
      return modelled;
    } else if (untried > 0) {
      chosen_token = distinct_[rng_.below(static_cast<std::uint32_t>(untried))];
      if constexpr (HasWinningAction<S>) {
        if (params_.solver) {
          const Action win = state.winning_action();
          const Action token = win == kNoAction ? kNoAction : decision_token(state, obs, player, win);
          if (win != kNoAction && slot_[token] == kNoNode) chosen_token = token;
        }
      }
      cursor = tree.add_child(cursor, chosen_token);
      if (cursor != kNoNode) tree[cursor].availability = 1;
      created = true;
    } else {
      if (losing == n_tokens && fixed_moves && one_winner) tree[node].proven = static_cast<std::int8_t>(lost_to);
      const bool avoid_lost = params_.solver && losing < n_tokens;
      double best = -1e300;
      std::uint32_t best_child = kNoNode;
      // Progressive bias (Chaslot et al. 2008) from the rollout policy: the move it plays here in
      // this state gains W / (visits + 1), in expectation W * P(policy plays it) / (visits + 1).
      Action bias_token = kNoAction;
      if (params_.progressive_bias > 0)
        bias_token = decision_token(state, obs, player, policy_action<true>(state));
      for (int i = 0; i < n; ++i) {
        const std::uint32_t c = slot_[tokens_[i]];
        if (mark_[tokens_[i]] != stamp_ || c == kNoNode) continue;
        const Node& child = tree[c];
        if (avoid_lost && child.proven != kUnproven) continue;
        double value = ucb1(child.reward, child.visits, std::log(static_cast<double>(child.availability)));
        if (params_.progressive_history > 0)
          value += params_.progressive_history * token_history(obs, player, tokens_[i], n) / (child.visits - child.reward + 1);
        if (tokens_[i] == bias_token) value += params_.progressive_bias / (child.visits + 1);
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

  // Best-reply search: at `cursor`, where a run of opponents' turns starts in `state`, the seat
  // that replies in it, among the seats that move from here to the searching team's next turn
  // (in seat order): an untried one first, else by UCB1 over the replier nodes' means of one minus
  // the searching seat's reward. The walk enters the replier's node (`created` when new; the
  // cursor kNoNode when the tree is full), except where one seat alone moves: that seat replies
  // with no node of its own, so that two-team games search as under paranoid.
  int select_replier(const S& state, std::uint32_t& cursor, bool& created) {
    std::array<int, S::kMaxPlayers> seats;
    int n_seats = 0;
    for (int p = state.current_player(); state.team(p) != root_team_ && n_seats < state.num_players(); p = (p + 1) % state.num_players())
      seats[n_seats++] = p;
    if (n_seats == 1) return seats[0];
    Tree& tree = trees_[0];
    std::array<std::uint32_t, S::kMaxPlayers> child;
    int untried = 0;
    std::array<int, S::kMaxPlayers> untried_seats;
    for (int i = 0; i < n_seats; ++i) {
      child[i] = tree.find_child(cursor, kReplierToken | static_cast<Action>(seats[i]));
      if (child[i] == kNoNode) untried_seats[untried++] = seats[i];
    }
    int seat;
    if (untried > 0) {
      seat = untried_seats[rng_.below(static_cast<std::uint32_t>(untried))];
      cursor = tree.add_child(cursor, kReplierToken | static_cast<Action>(seat));
      created = true;
    } else {
      const double log_visits = std::log(static_cast<double>(std::max<std::uint32_t>(tree[cursor].visits, 1)));
      double best = -1e300;
      int best_i = 0;
      for (int i = 0; i < n_seats; ++i) {
        const Node& node = tree[child[i]];
        const double value = ucb1(node.reward, node.visits, log_visits);
        if (value > best) best = value, best_i = i;
      }
      seat = seats[best_i];
      cursor = child[best_i];
    }
    if (cursor != kNoNode) paths_[0].push_back({cursor, seat});
    return seat;
  }

  // -- simultaneous nodes (SimultaneousGame; docs/architecture.md §4) ---------------------------

  // A choosing seat's choice at a simultaneous node, selected in tree t at `node` from the seat's
  // own statistics there (Params::simultaneous).
  struct JointStep {
    int tree;
    int seat;
    std::uint32_t first;   // the seat's legal actions' ChoiceStats: joint_slots_[first, first + count)
    std::uint32_t count;
    std::uint32_t chosen;  // the position of the chosen one among them
    double probability;    // rm, exp3: the probability it was chosen with
  };

  // The tree that keeps `seat`'s choice statistics: its own in MO-ISMCTS, else the only one.
  int choice_tree(int seat) const { return trees_.size() > 1 ? seat : 0; }

  // What the observer of a tree sees of chooser's choice `a`: kHiddenDecision for nothing.
  Action choice_token(const S& state, int obs, int chooser, Action a) const {
    if (obs == kOmniscient || obs == chooser) return a;
    const Action seen = state.observe_choice(obs, chooser, a);
    assert(seen == kUnobserved || seen < kHiddenDecision);  // class ids must be action ids
    return seen == kUnobserved ? kHiddenDecision : seen;
  }

  // A simultaneous node: each choosing seat selects its own action from its own statistics in
  // the tree that keeps them (decoupled), none seeing another's choice; then every tree follows
  // the joint move by what its observer saw of each choice, one node per choosing seat in
  // recording order (kHiddenDecision for a choice it does not see), the last of which stands for
  // the state after the joint move and gains visits only. A seat whose tree the walk has left
  // (full) chooses as the rollout does. Returns whether the walk ends here: a tree that keeps a
  // choosing seat's statistics created the joint move's node, or the node is proven.
  template <class EndRuns>
  bool descend_joint(S& state, std::array<std::uint32_t, S::kMaxPlayers>& cursor, EndRuns& end_runs, int& proven) {
    std::array<int, S::kMaxPlayers> seats;
    const int k = state.choosing_seats(seats.data());
    std::array<Action, S::kMaxPlayers> joint;
    joint.fill(kNoAction);
    for (int i = 0; i < k; ++i) end_runs(seats[i]);
    for (int i = 0; i < k; ++i) {
      const int t = choice_tree(seats[i]);
      joint[seats[i]] = cursor[t] == kNoNode ? kNoAction : select_choice(state, seats[i], t, cursor[t]);
      if (joint[seats[i]] == kNoAction)
        joint[seats[i]] = rollout_choice<true>(state, seats[i]);
    }
    const int n_trees = static_cast<int>(trees_.size());
    bool created = false;
    for (int t = 0; t < n_trees; ++t) {
      const bool keeps_choices = n_trees == 1 || std::find(seats.begin(), seats.begin() + k, t) != seats.begin() + k;
      for (int i = 0; i < k && cursor[t] != kNoNode; ++i) {
        const Action token = choice_token(state, observer(t), seats[i], joint[seats[i]]);
        const std::uint32_t existing = trees_[t].find_child(cursor[t], token);
        cursor[t] = existing != kNoNode ? existing : trees_[t].add_child(cursor[t], token);
        created |= existing == kNoNode && keeps_choices;
      }
      if (cursor[t] != kNoNode) paths_[t].push_back({cursor[t], -1});
    }
    state.apply_joint(joint.data());
    if (created || !params_.solver) return created;
    for (int t = 0; t < n_trees; ++t)
      if (cursor[t] != kNoNode && trees_[t][cursor[t]].proven != kUnproven) {
        proven = trees_[t][cursor[t]].proven;
        return true;
      }
    return false;
  }

  // Seat's action at a simultaneous node in tree t, from its statistics at `node`; kNoAction
  // when the tree is full and has none. rm: regret matching (Hart & Mas-Colell 2000) on the
  // sampled regrets, mixed with a uniform share sm_gamma; exp3 (Auer et al. 2002): weights
  // exp(eta * summed importance-weighted reward), eta = sm_gamma / n, mixed likewise; both add
  // their unmixed strategy to the average strategy (the uniform share only explores). duct: an
  // action not yet chosen first, then UCB1 over the seat's own visits.
  Action select_choice(const S& state, int seat, int t, std::uint32_t node) {
    Tree& tree = trees_[t];
    const int n = state.legal_choices(seat, actions_.data());
    const auto first = static_cast<std::uint32_t>(joint_slots_.size());
    if (!tree.choice_slots(node, seat, actions_.data(), n, joint_slots_)) return kNoAction;
    auto stats = [&](int i) -> ChoiceStats& { return tree.choice(joint_slots_[first + i]); };
    int chosen = 0;
    double probability = 1;
    if (params_.simultaneous == Simultaneous::kDuct) {
      int untried = 0;
      std::uint64_t total = 0;
      for (int i = 0; i < n; ++i) {
        total += stats(i).visits;
        if (stats(i).visits == 0 && rng_.below(static_cast<std::uint32_t>(++untried)) == 0) chosen = i;
      }
      if (untried == 0) {
        const double log_total = std::log(static_cast<double>(total));
        double best = -1e300;
        for (int i = 0; i < n; ++i) {
          const ChoiceStats& c = stats(i);
          const double value = ucb1(c.reward, c.visits, log_total);
          if (value > best) best = value, chosen = i;
        }
      }
    } else {
      std::array<double, S::kMaxActions>& policy = policy_scratch_;
      double sum = 0;
      if (params_.simultaneous == Simultaneous::kRegretMatching) {
        for (int i = 0; i < n; ++i) sum += policy[i] = std::max(stats(i).regret, 0.0);
      } else {
        const double eta = params_.sm_gamma / n;
        double top = -1e300;
        for (int i = 0; i < n; ++i) top = std::max(top, stats(i).regret);
        for (int i = 0; i < n; ++i) sum += policy[i] = std::exp(eta * (stats(i).regret - top));
      }
      const double gamma = params_.sm_gamma;
      double u = rng_.uniform(), cumulative = 0;
      chosen = n - 1;
      bool picked = false;
      for (int i = 0; i < n; ++i) {
        const double own = sum > 0 ? policy[i] / sum : 1.0 / n;
        stats(i).strategy += own;
        const double p = gamma / n + (1 - gamma) * own;
        cumulative += p;
        if (!picked && u < cumulative) chosen = i, picked = true;
        if (i == chosen) probability = p;
      }
    }
    joint_steps_.push_back({t, seat, first, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(chosen), probability});
    return actions_[chosen];
  }

  // Every choosing seat's choice statistics on this iteration's path gain the seat's reward x:
  // the chosen action a visit and x; under rm each legal action b the sampled regret
  // x / p(a) [b = a] - x; under exp3 the chosen one x / p(a).
  void back_up_choices(const std::array<double, S::kMaxPlayers>& reward) {
    for (const JointStep& step : joint_steps_) {
      Tree& tree = trees_[step.tree];
      const double x = reward[step.seat];
      ChoiceStats& chosen = tree.choice(joint_slots_[step.first + step.chosen]);
      ++chosen.visits;
      chosen.reward += x;
      if (params_.simultaneous == Simultaneous::kRegretMatching) {
        for (std::uint32_t i = 0; i < step.count; ++i) tree.choice(joint_slots_[step.first + i]).regret -= x;
        chosen.regret += x / step.probability;
      } else if (params_.simultaneous == Simultaneous::kExp3) {
        chosen.regret += x / step.probability;
      }
    }
  }

  // A choosing seat's choice in a rollout, as at a decision: the game's policy (or a plug-in's,
  // kPlugin: compiled apart so that the search without one runs the code it ran before plug-ins),
  // but with probability epsilon (always, with random rollouts) a uniform one.
  template <bool kPlugin>
  Action rollout_choice(const S& state, int seat) {
    if (params_.rollout == Rollout::kRandom || (params_.rollout_epsilon > 0 && rng_.uniform() < params_.rollout_epsilon))
      return uniform_random_choice(state, seat, rng_);
    if (kPlugin && plugin_.chooses()) {
      std::array<Action, S::kMaxActions> actions;
      const int n = state.legal_choices(seat, actions.data());
      return plugin_.choose(state, seat, actions.data(), n, rng_);
    }
    return state.heuristic_choice(seat, rng_);
  }

  // At a simultaneous root, the searching seat's choice statistics: visits, summed reward, and
  // as the weight its average strategy (rm, exp3) or its visits (duct). False at other roots.
  bool add_joint_root(RootTable& totals) const {
    const Tree& tree = root_tree();
    const std::uint32_t header = tree.choice_header(Tree::root(), root_seat_);
    if (header == kNoNode) return false;
    for (std::uint32_t i = 0; i < tree[header].visits; ++i) {
      const ChoiceStats& c = tree.choice(tree[header].availability + i);
      auto& t = totals[c.action];
      t.visits += c.visits;
      t.reward += c.reward;
      t.weight += params_.simultaneous == Simultaneous::kDuct ? c.visits : c.strategy;
    }
    return true;
  }

  // Heuristic rollouts follow the game's policy, except for an epsilon share of uniformly random
  // moves, which still take an immediate win where the game can name one (decisive moves,
  // Teytaud & Teytaud 2010). Random rollouts are uniform.
  // With MAST, a share of the decisions take the mover's best action by the MAST table instead
  // (an immediate win still first). Every decision is recorded for the MAST table.
  // With a plug-in (kPlugin) its policy replaces the game's. With a plug-in evaluator the rollout
  // stops after Params::eval_depth decisions, else with Params::rollout_depth after that many
  // (kCutOff; a joint move counting as one), and returns false: the evaluator, or the game's
  // evaluation, scores where it stopped. Otherwise it plays to the end and returns true.
  bool play_out(S& state) {
    if (plugin_.active()) return cut_off_ >= 0 ? rollout<true, true>(state) : rollout<true, false>(state);
    return cut_off_ >= 0 ? rollout<false, true>(state) : rollout<false, false>(state);
  }

  template <bool kPlugin, bool kCutOff>
  bool rollout(S& state) {
    for (int decisions = 0; !state.is_terminal();) {
      if constexpr (SimultaneousGame<S>) {
        if (state.current_player() == kSimultaneousPlayer) {
          if (kCutOff && decisions++ == cut_off_) return false;
          play_joint(state, [&](int seat) { return rollout_choice<kPlugin>(state, seat); });
          continue;
        }
      }
      if (state.current_player() == kChancePlayer) {
        state.apply(state.sample_chance(rng_));
        continue;
      }
      if (kCutOff && decisions++ == cut_off_) return false;
      const Action move = rollout_action<kPlugin>(state);
      if (!history_.empty()) played_.push_back({state.current_player(), move});
      state.apply(move);
    }
    return true;
  }

  template <bool kPlugin>
  Action rollout_action(const S& state) {
    if (params_.mast > 0 && rng_.uniform() < params_.mast) {
      if constexpr (HasWinningAction<S>) {
        const Action win = state.winning_action();
        if (win != kNoAction) return win;
      }
      return mast_action(state);
    }
    if (params_.rollout == Rollout::kRandom) return uniform_random_action(state, rng_);
    if (params_.rollout_epsilon <= 0 || rng_.uniform() >= params_.rollout_epsilon) return policy_action<kPlugin>(state);
    Action move = kNoAction;
    if constexpr (HasWinningAction<S>) move = state.winning_action();
    return move != kNoAction ? move : uniform_random_action(state, rng_);
  }

  // The share of `seat`'s tree decisions that follow the rollout policy (the opponent model).
  double opponent_share(int seat) const {
    const auto& shares = params_.opponent_shares;
    if (shares.empty()) return params_.opponent_policy;
    return static_cast<std::size_t>(seat) < shares.size() ? shares[static_cast<std::size_t>(seat)] : 0.0;
  }

  // The rollout policy: a plug-in's (kPlugin, when it has one), or the game's with the weights of
  // Params::policy.
  template <bool kPlugin>
  Action policy_action(const S& state) {
    if (kPlugin && plugin_.chooses()) {
      std::array<Action, S::kMaxActions> actions;
      const int n = state.legal_actions(actions.data());
      return plugin_.choose(state, state.current_player(), actions.data(), n, rng_);
    }
    if constexpr (HasPolicyWeights<S>)
      return state.heuristic_action(rng_, policy_.data());
    else
      return state.heuristic_action(rng_);
  }

  // MAST's epsilon-greedy choice: a uniform move with probability mast_epsilon, else the
  // mover's legal action with the best mean in the MAST table, one never played counting as 1
  // (so each is tried); ties broken at random.
  Action mast_action(const S& state) {
    if (params_.mast_epsilon > 0 && rng_.uniform() < params_.mast_epsilon) return uniform_random_action(state, rng_);
    const int n = state.legal_actions(actions_.data());
    const int player = state.current_player();
    double best = -1e300;
    Action pick = actions_[0];
    int ties = 0;
    for (int i = 0; i < n; ++i) {
      const History& h = history(player, actions_[i]);
      const double value = h.count ? h.mean() : 1.0;
      if (value > best) {
        best = value, pick = actions_[i], ties = 1;
      } else if (value == best && rng_.below(static_cast<std::uint32_t>(++ties)) == 0) {
        pick = actions_[i];
      }
    }
    return pick;
  }

  // Progressive history's score of a token at this decision: the MAST mean of its action, or,
  // for a token that stands for several actions the tree's observer cannot tell apart, the
  // mean of theirs (0 for actions never played).
  double token_history(int obs, int player, Action token, int n_legal) const {
    if (obs == kOmniscient || obs == player) return history(player, token).mean();
    double sum = 0;
    int count = 0;
    for (int i = 0; i < n_legal; ++i)
      if (tokens_[i] == token) sum += history(player, actions_[i]).mean(), ++count;
    return count ? sum / count : 0;
  }

  // One seat's MAST statistics for one action id.
  struct History {
    double reward = 0;
    std::uint32_t count = 0;
    double mean() const { return count ? reward / count : 0; }
  };
  const History& history(int seat, Action action) const { return history_[static_cast<std::size_t>(seat) * S::kMaxActions + action]; }

  void publish(Progress& progress) const {
    RootTable table = published_base_ ? *published_base_ : RootTable{};
    add_root(table);
    progress.publish(thread_, std::move(table));
  }

  Params params_;
  Weights policy_;
  PluginHooks<S> plugin_;
  int cut_off_;  // rollout decisions before the evaluation (Params::eval_depth or rollout_depth); -1: to the end
  double squared_margins_ = 0;  // Shaping::kMargin: the margins of every seat in every game so far
  std::uint64_t margins_ = 0;
  int root_seat_;
  int root_team_;
  Rng rng_;
  std::size_t max_nodes_;
  std::vector<Tree> trees_;
  std::vector<std::vector<Step>> paths_;
  std::vector<History> history_;                // per seat and action id (MAST, progressive history); empty when unused
  std::vector<std::pair<int, Action>> played_;  // this iteration's decisions (seat, action), for history_
  std::vector<S> pool_;                  // the weighted root determinizations (Params::infer_pool); empty when unused
  std::vector<double> pool_cumulative_;  // their cumulative weights
  std::uint64_t iterations_ = 0;       // over every tree this searcher grew
  std::uint64_t tree_iterations_ = 0;  // into the current trees
  std::array<Action, S::kMaxActions> actions_{};
  std::array<Action, S::kMaxActions> tokens_{};
  std::array<Action, S::kMaxActions + 1> distinct_{};
  std::array<std::uint64_t, S::kMaxActions + 1> mark_{};
  std::array<std::uint32_t, S::kMaxActions + 1> slot_{};
  std::uint64_t stamp_ = 0;
  std::vector<JointStep> joint_steps_;        // this iteration's choices at simultaneous nodes
  std::vector<std::uint32_t> joint_slots_;    // their legal actions' ChoiceStats (JointStep::first)
  std::array<double, S::kMaxActions> policy_scratch_{};
  int thread_ = 0;
  const RootTable* published_base_ = nullptr;
};

namespace detail {

inline std::uint64_t thread_seed(std::uint64_t seed, int thread) {
  std::uint64_t x = seed ^ (0xA0761D6478BD642FULL * static_cast<std::uint64_t>(thread + 1));
  return splitmix64(x);
}

// Runs work(0..threads-1), on threads when there are several; a worker's exception (a game's
// determinize refusing a state) reaches the caller.
template <class Work>
void run_threads(int threads, Work&& work) {
  if (threads == 1) return work(0);
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

// `total` split into `parts` shares differing by at most one; share i.
inline std::uint64_t share_of(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return total / parts + (i < total % parts);
}

}  // namespace detail

template <Game S>
bool is_simultaneous_node(const S& state) {
  if constexpr (SimultaneousGame<S>)
    return state.current_player() == kSimultaneousPlayer;
  else
    return false;
}

// The seat a search of `position` decides for: `seat` (-1: the seat to move), which at a
// simultaneous node must be one of the choosing seats; throws std::invalid_argument otherwise.
template <Game S>
int searched_seat(const S& position, int seat) {
  if (is_simultaneous_node(position)) {
    if constexpr (SimultaneousGame<S>) {
      std::array<int, S::kMaxPlayers> seats;
      const int k = position.choosing_seats(seats.data());
      std::string listing;
      for (int i = 0; i < k; ++i) {
        if (seats[i] == seat) return seat;
        listing += (i ? ", " : "") + std::to_string(seats[i]);
      }
      throw std::invalid_argument("a simultaneous node: seats " + listing + " choose at once here; search one of them (got " +
                                  (seat < 0 ? std::string("no seat") : "seat " + std::to_string(seat)) + ")");
    }
  }
  const int mover = position.current_player();
  if (mover < 0) throw std::invalid_argument("search needs a decision node: the state is terminal or a chance node");
  if (seat >= 0 && seat != mover)
    throw std::invalid_argument("seat " + std::to_string(seat) + " has no decision here; seat " + std::to_string(mover) + " is to move");
  return mover;
}

// What the search starts from: the position itself, or at a simultaneous node of a game that can
// take choices back (HasReopenChoices; unless Params::reopen_choices is off), the node with the choices `seat` has not seen taken back,
// so that those seats choose again in the search, simultaneously with it, instead of being given
// a uniformly drawn guess by a determinization.
template <Game S>
S searched_root(const S& position, int seat, const Params& params) {
  if constexpr (HasReopenChoices<S>)
    if (params.reopen_choices && is_simultaneous_node(position)) return position.reopen_choices(seat);
  return position;
}

// Seat's legal decisions at a decision node or a simultaneous node; returns the count.
template <Game S>
int legal_decisions(const S& state, int seat, Action* out) {
  if constexpr (SimultaneousGame<S>)
    if (state.current_player() == kSimultaneousPlayer) return state.legal_choices(seat, out);
  return state.legal_actions(out);
}

// The move drawn from the root's probabilities (ActionStats::probability).
inline Action sampled_action(const std::vector<ActionStats>& stats, Rng& rng) {
  double u = rng.uniform();
  for (const ActionStats& s : stats)
    if ((u -= s.probability) < 0) return s.action;
  return stats.front().action;  // rounding: the most visited
}

// Every number of `params` inside its row's range (search/param_table.h), NaN refused; the
// bindings check each as it is set, this covers Params filled in C++.
template <class T>
void check_range(T value, const char* name, const ParamRow<T>& row) {
  if constexpr (!std::is_enum_v<T>)
    if (!(value >= row.low && value <= row.high))
      throw OptionError(std::string(name) + " must be in " + std::to_string(row.low) + ".." + std::to_string(row.high) + "; got " +
                        std::to_string(value));
}
inline void check_ranges(const Params& params) {
#define KIBITZ_PARAM_RANGE(type, member, name, ...) check_range(params.member, name, ParamRow<type>{__VA_ARGS__});
  KIBITZ_SEARCH_PARAMETERS(KIBITZ_PARAM_RANGE)
#undef KIBITZ_PARAM_RANGE
}

// Params::opponent_shares: empty, or one share in 0..1 per seat of the game.
inline void check_opponent_shares(const Params& params, int players) {
  const auto& shares = params.opponent_shares;
  if (shares.empty()) return;
  if (shares.size() != static_cast<std::size_t>(players))
    throw OptionError("opponent_shares: one share per seat is needed (" + std::to_string(players) + "), got " + std::to_string(shares.size()));
  for (std::size_t s = 0; s < shares.size(); ++s)
    if (!(shares[s] >= 0 && shares[s] <= 1))
      throw OptionError("opponent_shares: seat " + std::to_string(s) + "'s share must be in 0..1; got " + std::to_string(shares[s]));
}

// Searches `position` for the decision of `seat` (-1: the seat to move; at a simultaneous node
// one of the choosing seats). Root parallelism: each thread grows its own trees from its own
// seed; root statistics are summed. Deterministic for a given seed when the budget is
// iterations only. A forced move is answered at once; with nothing searched (a stop at once)
// the answer is the greedy bot's move. At a simultaneous root the choices the seat has not seen
// are taken back where the game allows it (searched_root), and under rm and exp3 the move is
// drawn from the seat's average strategy there (Params::simultaneous).
template <Game S>
Result search(const S& position, const Params& params, int seat_to_search = -1) {
  const int seat = searched_seat(position, seat_to_search);
  const S root = searched_root(position, seat, params);
  const bool joint_root = is_simultaneous_node(root);
  if (params.iterations == 0 && params.time_limit_ms <= 0 && !params.stop)
    throw OptionError("search needs a budget: set iterations and/or time_limit_ms, or a stop flag");
  check_ranges(params);
  check_opponent_shares(params, root.num_players());
  policy_weights<S>(params.policy);  // refuses an unknown weight before any thread starts
  check_plugin<S>(params.plugin);
  if (params.plugin && params.plugin->evaluate && params.rollout_depth > 0)  // else one of the two would be ignored
    throw OptionError("rollout_depth: a plug-in's evaluator decides where rollouts stop (eval_depth); rollout_depth cuts them "
                      "off with the game's own evaluation instead: set one of the two");
  if (params.backup == Backup::kBestReply && params.algorithm == Algorithm::kMoIsmcts)
    throw OptionError("backup=best_reply needs one tree for every seat's moves: use so_ismcts, pimc or uct, not mo_ismcts");
  if constexpr (!HasCutoffEvaluation<S>)
    if (params.rollout_depth > 0) throw OptionError(std::string("rollout_depth: ") + S::kName + " declares no evaluation to cut rollouts off with");
  const auto start = Clock::now();
  const auto deadline = deadline_after(start, params.time_limit_ms);
  const bool timed = params.time_limit_ms > 0;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  Result result;
  {
    std::array<Action, S::kMaxActions> legal;
    if (legal_decisions(root, seat, legal.data()) == 1) {
      result.action = legal[0];
      result.forced = true;
      return result;
    }
  }
  if constexpr (Solvable<S>) {
    const SolveLimits limits{kSolveNodeBudget, timed ? deadline : Clock::time_point::max(), params.stop};
    if (params.solve_stones > 0 && root.num_players() == 2 && root.stones_left() <= params.solve_stones &&
        solved_result(root, limits, result)) {
      result.seconds = elapsed();
      return result;
    }
  }
  const int threads = params.threads;
  const int team = root.team(seat);
  const int trees_per_searcher = params.algorithm == Algorithm::kMoIsmcts ? root.num_players() : 1;
  const auto max_nodes = static_cast<std::size_t>(static_cast<double>(params.memory_mb) * (1 << 20) / sizeof(Node) / threads / trees_per_searcher);
  std::atomic<bool> solved{false};
  std::vector<std::uint64_t> iterations(threads), nodes(threads);
  std::vector<char> full(threads, 0);
  RootTable merged;
  std::vector<HistoryTable> history(threads);

  if (params.algorithm != Algorithm::kPimc) {
    std::vector<RootTable> totals(threads);
    detail::run_threads(threads, [&](int thread) {
      const std::uint64_t share = params.iterations ? detail::share_of(params.iterations, threads, thread) : 0;
      if (params.iterations && share == 0) return;
      Searcher<S> searcher(params, seat, team, detail::thread_seed(params.seed, thread), max_nodes);
      searcher.set_published_base(thread, nullptr);
      searcher.run(root, Budget{share, deadline, timed, params.stop, params.progress, &solved});
      if (searcher.root_proven()) solved.store(true, std::memory_order_relaxed);
      searcher.add_root(totals[thread]);
      iterations[thread] = searcher.iterations();
      searcher.add_history(history[thread]);
      nodes[thread] = searcher.nodes();
      full[thread] = searcher.tree_full();
    });
    for (const RootTable& t : totals) merge_root(merged, t);
  } else {
    // PIMC: determinization d gets its share of the iterations; with fewer determinizations
    // than threads each is split into parts that different threads search in independent
    // trees, so no thread idles. Threads take the work items from one queue; a deal is drawn
    // from its own seed and an item's search from the item's, so the result does not depend on
    // which thread took what. With only a stop flag, items of kStoppableShare iterations on
    // fresh deals run until it is set. A move counts as proven only when every deal searched
    // proved it (a proof for each sampled deal, not for the information set).
    constexpr std::uint64_t kStoppableShare = 2000;
    const bool until_stopped = !params.iterations && !timed;
    const int n_det = params.determinizations;
    const int parts = until_stopped ? 1 : std::max(1, (threads + n_det - 1) / n_det);
    const int n_items = until_stopped ? 0 : n_det * parts;
    const int waves = std::max(1, (n_items + threads - 1) / threads);
    std::atomic<int> next_item{0};
    std::vector<RootTable> item_totals(n_items);
    std::vector<RootTable> thread_totals(threads);
    detail::run_threads(threads, [&](int thread) {
      for (int item; (item = next_item.fetch_add(1)) < n_items || until_stopped;) {
        if (until_stopped && params.stop->value.load(std::memory_order_relaxed)) break;
        const int d = item / parts;
        const std::uint64_t det_share = until_stopped ? kStoppableShare : params.iterations ? detail::share_of(params.iterations, n_det, d) : 0;
        const std::uint64_t item_share = until_stopped || !det_share ? det_share : detail::share_of(det_share, parts, item % parts);
        if (det_share && item_share == 0) continue;
        const auto item_deadline = timed ? start + (deadline - start) * (item / threads + 1) / waves : deadline;
        Rng deal(detail::thread_seed(params.seed ^ 0x5851F42D4C957F2DULL, d));
        Searcher<S> searcher(params, seat, team, detail::thread_seed(params.seed, item), max_nodes);
        searcher.set_published_base(thread, &thread_totals[thread]);
        searcher.run(root.determinize(seat, deal), Budget{item_share, item_deadline, timed, params.stop, params.progress});
        RootTable table;
        searcher.add_root(table);
        merge_root(thread_totals[thread], table);
        if (!until_stopped) item_totals[item] = std::move(table);
        iterations[thread] += searcher.iterations();
        searcher.add_history(history[thread]);
        nodes[thread] += searcher.nodes();
        full[thread] |= searcher.tree_full();
      }
    });
    const std::vector<RootTable>& tables = until_stopped ? thread_totals : item_totals;
    std::map<Action, int> wins, losses;
    int searched = 0;
    for (const RootTable& table : tables) {
      if (table.empty()) continue;
      ++searched;
      for (const auto& [a, t] : table) {
        merged[a].visits += t.visits;
        merged[a].reward += t.reward;
        merged[a].weight += t.weight;
        wins[a] += t.proof == Proof::kWin;
        losses[a] += t.proof == Proof::kLoss;
      }
    }
    for (auto& [a, t] : merged) t.proof = wins[a] == searched ? Proof::kWin : losses[a] == searched ? Proof::kLoss : Proof::kNone;
  }

  for (int t = 0; t < threads; ++t) {
    result.iterations += iterations[t];
    result.nodes += nodes[t];
    result.tree_full |= full[t] != 0;
  }
  result.stats = sorted_stats(merged);
  result.history = merged_history(history);
  if (result.stats.empty()) {  // stopped before a single iteration: the greedy bot's move on a deal
    Rng rng(detail::thread_seed(params.seed, -2));
    const S deal = params.algorithm == Algorithm::kUct ? root : root.determinize(seat, rng);
    const Weights eval = eval_weights<S>({});
    if constexpr (SimultaneousGame<S>)
      if (joint_root) result.action = greedy_choice(deal, seat, eval, rng);
    if (!joint_root) result.action = greedy_action(deal, eval, rng);
  } else {
    Rng rng(detail::thread_seed(params.seed, -3));
    const bool mixed = joint_root && params.simultaneous != Simultaneous::kDuct;
    result.action = mixed ? sampled_action(result.stats, rng) : played_move(result.stats, params, rng);
    result.root_value = root_value(result.stats);
  }
  result.seconds = elapsed();
  return result;
}

// Plays uniformly random moves (and samples chance) to the end; returns the number of
// decisions made, each seat's choice at a simultaneous node counting as one. The random-playout
// benchmark measures this loop.
template <Game S>
int random_playout(S& state, Rng& rng) {
  int decisions = 0;
  while (!state.is_terminal()) {
    const int player = state.current_player();
    if (player == kChancePlayer) {
      state.apply(state.sample_chance(rng));
    } else if (player == kSimultaneousPlayer) {
      if constexpr (SimultaneousGame<S>) decisions += play_joint(state, [&](int seat) { return uniform_random_choice(state, seat, rng); });
    } else {
      state.apply(uniform_random_action(state, rng));
      ++decisions;
    }
  }
  return decisions;
}

// Plays the game's heuristic rollout policy (and samples chance) to the end; returns the
// number of decisions made, counted as random_playout counts them.
template <Game S>
int heuristic_playout(S& state, Rng& rng) {
  int decisions = 0;
  while (!state.is_terminal()) {
    const int player = state.current_player();
    if (player == kChancePlayer) {
      state.apply(state.sample_chance(rng));
    } else if (player == kSimultaneousPlayer) {
      if constexpr (SimultaneousGame<S>) decisions += play_joint(state, [&](int seat) { return state.heuristic_choice(seat, rng); });
    } else {
      state.apply(state.heuristic_action(rng));
      ++decisions;
    }
  }
  return decisions;
}

}  // namespace kibitz::search
