// UCT, PIMC, SO-ISMCTS and MO-ISMCTS, written once over the Game concept: the Searcher, which
// grows the trees of one search. search/search.h runs Searchers on threads and picks the move.
//
// The trees: UCT and PIMC search one state as it is given (PIMC one determinization per
// Searcher) in one tree whose observer sees every move. SO-ISMCTS searches one tree of the
// searching seat's information sets, each iteration on a fresh determinization of the root
// from its view; MO-ISMCTS one tree per seat, each seat's tree keyed by what that seat saw.
// A tree's edges are keyed by what its observer saw of a move (search/tree.h).
//
// One iteration (Searcher::iterate) has the three steps of Monte Carlo tree search:
// 1. Selection and expansion (descend): the walk goes down from the root of every tree,
//    applying moves to a copy of the state. At a decision the acting tree (the mover's own in
//    MO-ISMCTS) selects by UCB1 over availability counts (the parent's visits since the child
//    was created in which the child's move was legal), an untried move first; at chance the
//    game samples; every other tree follows the move by what its observer saw of it. At a
//    simultaneous node each choosing seat selects from its own statistics (decoupled). The
//    walk stops after the first new node of the acting tree.
// 2. Simulation (simulate): a rollout plays the game's heuristic policy (or uniform moves) to
//    the end; the reward of each seat is its return, optionally shaped by its rank.
// 3. Backpropagation (back_up): each node on every path adds the reward of the seat that chose
//    its edge (max^n; partners share one reward). Wins and losses that the observer's
//    information decides are proven and propagate (MCTS-Solver).
// docs/architecture.md §4 has the details. References: Kocsis & Szepesvári 2006 (UCT); Cowling,
// Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012 (SO-/
// MO-ISMCTS); Lanctot, Lisý & Winands 2014 (decoupled simultaneous nodes); Winands, Björnsson &
// Saito, "Monte-Carlo Tree Search Solver", CG 2008; Teytaud & Teytaud, "On the huge benefit of
// decisive moves in Monte-Carlo Tree Search algorithms", CIG 2010.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/game.h"
#include "search/params.h"
#include "search/playout.h"
#include "search/plugin.h"
#include "search/tree.h"

namespace kibitz::search {

using Clock = std::chrono::steady_clock;

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
  using Rewards = std::array<double, S::kMaxPlayers>;
  using Cursors = std::array<std::uint32_t, S::kMaxPlayers>;  // per tree; kNoNode: the walk has left that (full) tree

  struct Step {
    std::uint32_t node;
    int mover;  // player whose reward this node accumulates; -1 for chance
  };

 public:
  // `max_nodes`: the size limit of each of this searcher's trees (the memory budget).
  Searcher(const Params& params, int root_seat, int root_team, std::uint64_t seed, std::size_t max_nodes)
      : params_(params), policy_(policy_weights<S>(params.policy)), plugin_(params.plugin),
        cut_off_(plugin_.evaluates() ? params.eval_depth : -1), root_seat_(root_seat), root_team_(root_team), rng_(seed),
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
    }
    const bool determinize = params_.algorithm == Algorithm::kSoIsmcts || params_.algorithm == Algorithm::kMoIsmcts;
    std::uint64_t done = 0;
    while (!budget.done(done) && tree_iterations_ < kMaxTreeIterations && !root_proven()) {
      iterate(determinize ? root.determinize(root_seat_, rng_) : root);
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

 private:
  // One iteration from `state`, the root or a determinization of it.
  void iterate(S state) {
    const int proven = descend(state);
    Rewards reward{};
    simulate(state, proven, reward);
    back_up(reward);
  }

  // -- 1. selection and expansion ---------------------------------------------------------------

  // The chance outcomes a tree has seen since its last edge, when chance runs commute (game.h):
  // they become one edge at the next decision. Outcomes only the tree's observer sees (its own
  // draws) wait for the observer's own next decision: the other seats' decisions in between
  // cannot depend on them, so their nodes are shared by all of them.
  struct ChanceRun {
    std::uint64_t key = 0;
    bool open = false;
    bool seen_by_others = false;
  };

  // Walks down every tree from its root, applying the moves to `state`, until the acting tree
  // creates a node (or the walk leaves it: the tree is full), the game ends, or the walk reaches
  // a proven node (with the solver). Returns the team that the proven node makes win, else
  // kUnproven. cursor_ ends at the last node of each tree, paths_ holds the nodes walked.
  int descend(S& state) {
    const int n_trees = static_cast<int>(trees_.size());
    std::array<ChanceRun, S::kMaxPlayers> run{};
    for (int t = 0; t < n_trees; ++t) {
      cursor_[t] = Tree::root();
      paths_[t].clear();
      paths_[t].push_back({Tree::root(), -1});
    }
    if constexpr (SimultaneousGame<S>) joint_steps_.clear(), joint_slots_.clear();
    // Ends the runs that must end before `player` decides (kTerminalPlayer: all of them).
    auto end_runs = [&](int player) {
      if constexpr (chance_runs_commute<S>())
        for (int t = 0; t < n_trees; ++t)
          if (run[t].open && (player == kTerminalPlayer || run[t].seen_by_others || observer(t) == player)) {
            enter_chance(t, run_token(run[t].key));
            run[t] = ChanceRun{};
          }
    };
    int proven = kUnproven;
    bool expanded = false;
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
            enter_chance(t, token);
          }
        }
        state.apply(outcome);
        continue;
      }
      end_runs(player);
      if constexpr (SimultaneousGame<S>) {
        if (player == kSimultaneousPlayer) {
          if (descend_joint(state, end_runs, proven)) break;
          continue;
        }
      }
      const int acting = n_trees > 1 ? player : 0;
      if (cursor_[acting] == kNoNode) break;  // the memory budget stopped this tree: roll out from here
      const Action action = select(state, player, acting, expanded);
      for (int t = 0; t < n_trees; ++t) {
        if (t != acting && cursor_[t] != kNoNode) cursor_[t] = trees_[t].child(cursor_[t], decision_token(state, observer(t), player, action));
        if (cursor_[t] != kNoNode) paths_[t].push_back({cursor_[t], player});
      }
      state.apply(action);
      if (!expanded && params_.solver && trees_[acting][cursor_[acting]].proven != kUnproven) {
        proven = trees_[acting][cursor_[acting]].proven;
        break;
      }
    }
    if (state.is_terminal()) end_runs(kTerminalPlayer);
    return proven;
  }

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
  void enter_chance(int t, Action token) {
    if (cursor_[t] == kNoNode) return;
    cursor_[t] = trees_[t].child(cursor_[t], token);
    if (cursor_[t] != kNoNode) paths_[t].push_back({cursor_[t], -1});
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

  // UCB1's score of an arm tried `visits` times (at least once) for `reward` in all, where
  // `log_trials` is the log of the trials it could have had (its availability, or its parent's).
  double ucb1(double reward, std::uint32_t visits, double log_trials) const {
    return reward / visits + params_.exploration * std::sqrt(log_trials / visits);
  }

  // The decision of `player` in tree t at cursor_[t], which moves to the child chosen (`created`
  // when it is new). UCB1 with availability counts over the tokens the tree can tell apart; an
  // untried token is expanded first (a winning move before others). Moves the tree cannot tell
  // apart are chosen among uniformly. With the solver a proven win among the legal moves is
  // taken and proven losses are avoided while anything else is left; where the legal moves are
  // the same in every state the node stands for (the mover is the tree's observer, or the tree
  // sees everything), the node itself becomes proven: won if one move wins, lost if all lose.
  // The opponent model: a seat outside the searching team plays, on its share of its visits
  // (opponent_share), the rollout policy's move instead (a proven win is still taken first).
  Action select(const S& state, int player, int t, bool& created) {
    Tree& tree = trees_[t];
    std::uint32_t& cursor = cursor_[t];
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
        if (proven == my_team) {
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
    Action modelled = kNoAction;  // the opponent model: the rollout policy's move, played as it is
    const double modelled_share = opponent_share(player);
    if (winning == kNoNode && modelled_share > 0 && my_team != root_team_ && rng_.uniform() < modelled_share)
      modelled = policy_action<true>(state);
    if (winning != kNoNode) {
      if (fixed_moves) tree[node].proven = tree[winning].proven;
      cursor = winning;
      chosen_token = tree[winning].token;
    } else if (modelled != kNoAction) {
      // This visit follows the policy (docs/architecture.md §4), so the values backed up above
      // this node mix a policy player with a maximising one.
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
      for (int i = 0; i < n; ++i) {
        const std::uint32_t c = slot_[tokens_[i]];
        if (mark_[tokens_[i]] != stamp_ || c == kNoNode) continue;
        const Node& child = tree[c];
        if (avoid_lost && child.proven != kUnproven) continue;
        const double value = ucb1(child.reward, child.visits, std::log(static_cast<double>(child.availability)));
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

  // The share of `seat`'s tree decisions that follow the rollout policy (the opponent model):
  // Params::opponent_shares where the bot estimated it per seat, else Params::opponent_policy.
  double opponent_share(int seat) const {
    const auto& shares = params_.opponent_shares;
    if (shares.empty()) return params_.opponent_policy;
    return static_cast<std::size_t>(seat) < shares.size() ? shares[static_cast<std::size_t>(seat)] : 0.0;
  }

  // -- 1. at simultaneous nodes (SimultaneousGame; docs/architecture.md §4) ---------------------

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
  bool descend_joint(S& state, EndRuns& end_runs, int& proven) {
    std::array<int, S::kMaxPlayers> seats;
    const int k = state.choosing_seats(seats.data());
    std::array<Action, S::kMaxPlayers> joint;
    joint.fill(kNoAction);
    for (int i = 0; i < k; ++i) end_runs(seats[i]);
    for (int i = 0; i < k; ++i) {
      const int t = choice_tree(seats[i]);
      joint[seats[i]] = cursor_[t] == kNoNode ? kNoAction : select_choice(state, seats[i], t, cursor_[t]);
      if (joint[seats[i]] == kNoAction) joint[seats[i]] = rollout_choice<true>(state, seats[i]);
    }
    const int n_trees = static_cast<int>(trees_.size());
    bool created = false;
    for (int t = 0; t < n_trees; ++t) {
      const bool keeps_choices = n_trees == 1 || std::find(seats.begin(), seats.begin() + k, t) != seats.begin() + k;
      for (int i = 0; i < k && cursor_[t] != kNoNode; ++i) {
        const Action token = choice_token(state, observer(t), seats[i], joint[seats[i]]);
        const std::uint32_t existing = trees_[t].find_child(cursor_[t], token);
        cursor_[t] = existing != kNoNode ? existing : trees_[t].add_child(cursor_[t], token);
        created |= existing == kNoNode && keeps_choices;
      }
      if (cursor_[t] != kNoNode) paths_[t].push_back({cursor_[t], -1});
    }
    state.apply_joint(joint.data());
    if (created || !params_.solver) return created;
    for (int t = 0; t < n_trees; ++t)
      if (cursor_[t] != kNoNode && trees_[t][cursor_[t]].proven != kUnproven) {
        proven = trees_[t][cursor_[t]].proven;
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

  // -- 2. simulation ----------------------------------------------------------------------------

  // Every seat's reward for the iteration that ended in `state`: the proven result (the team
  // `proven` wins), the finished game's, the rollout's, or a plug-in evaluator's where the
  // rollout stopped (Params::eval_depth).
  void simulate(S& state, int proven, Rewards& reward) {
    if (proven != kUnproven) {
      for (int p = 0; p < state.num_players(); ++p) reward[p] = state.team(p) == proven ? 1.0 : 0.0;
    } else if (state.is_terminal()) {
      if (params_.solver) prove_terminal(state);
      reward_of(state, reward);
    } else if (play_out(state)) {
      reward_of(state, reward);
    } else {
      plugin_.evaluate(state, root_seat_, reward.data());
    }
  }

  // The reward of a finished game per seat: its return, mixed with its rank ((n - rank) / (n - 1))
  // under Params::shaping rank, so that games no seat wins outright still tell places apart.
  void reward_of(const S& state, Rewards& reward) const {
    state.returns(reward.data());
    if (params_.shaping == Shaping::kNone) return;
    const int n = state.num_players();
    Rewards graded{};
    state.ranks(graded.data());
    for (int p = 0; p < n; ++p) graded[p] = (n - graded[p]) / (n - 1);
    const double w = params_.shaping_weight;
    for (int p = 0; p < n; ++p) reward[p] = (1 - w) * reward[p] + w * graded[p];
  }

  // The rollout: heuristic rollouts follow the game's policy, except for an epsilon share of
  // uniformly random moves, which still take an immediate win where the game can name one
  // (decisive moves, Teytaud & Teytaud 2010); random rollouts are uniform. With a plug-in
  // (kPlugin, compiled apart so that the search without one runs the code it ran before
  // plug-ins) its policy replaces the game's. With a plug-in evaluator the rollout stops after
  // Params::eval_depth decisions (kCutOff; a joint move counting as one) and returns false: the
  // evaluator scores where it stopped. Otherwise it plays to the end and returns true.
  bool play_out(S& state) {
    if (plugin_.active()) return cut_off_ >= 0 ? rollout<true, true>(state) : rollout<true, false>(state);
    return rollout<false, false>(state);
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
      state.apply(rollout_action<kPlugin>(state));
    }
    return true;
  }

  template <bool kPlugin>
  Action rollout_action(const S& state) {
    if (params_.rollout == Rollout::kRandom) return uniform_random_action(state, rng_);
    if (params_.rollout_epsilon <= 0 || rng_.uniform() >= params_.rollout_epsilon) return policy_action<kPlugin>(state);
    Action move = kNoAction;
    if constexpr (HasWinningAction<S>) move = state.winning_action();
    return move != kNoAction ? move : uniform_random_action(state, rng_);
  }

  // A choosing seat's choice in a rollout: the policy's (a plug-in's, with kPlugin), but with
  // probability epsilon (always, with random rollouts) a uniform one.
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

  // -- 3. backpropagation -----------------------------------------------------------------------

  // Every node on every tree's path gains a visit and, where a seat chose its edge, that seat's
  // reward (max^n); every choosing seat's statistics at the simultaneous nodes passed, its own.
  void back_up(const Rewards& reward) {
    for (int t = 0; t < static_cast<int>(trees_.size()); ++t)
      for (const Step& step : paths_[t]) {
        Node& node = trees_[t][step.node];
        ++node.visits;
        if (step.mover >= 0) node.reward += reward[step.mover];
      }
    if constexpr (SimultaneousGame<S>) back_up_choices(reward);
  }

  // At a simultaneous node a choosing seat's statistics gain its reward x: the chosen action a
  // visit and x; under rm each legal action b the sampled regret x / p(a) [b = a] - x; under exp3
  // the chosen one x / p(a).
  void back_up_choices(const Rewards& reward) {
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

  // The walk reached the end of the game inside the trees: where the observer's information
  // decides the result (every state in the tree's information set ends the same way), the last
  // node is proven.
  void prove_terminal(const S& state) {
    const int winner = sole_winner(state);
    if (winner == kUnproven) return;
    for (int t = 0; t < static_cast<int>(trees_.size()); ++t)
      if (cursor_[t] != kNoNode && cursor_[t] != Tree::root() && (observer(t) == kOmniscient || public_outcome<S>()))
        trees_[t][cursor_[t]].proven = static_cast<std::int8_t>(winner);
  }

  // The team that alone wins this terminal state, or kUnproven (a shared result).
  static int sole_winner(const S& state) {
    Rewards r{};
    state.returns(r.data());
    int team = kUnproven;
    for (int p = 0; p < state.num_players(); ++p) {
      if (r[p] == 0) continue;
      if (r[p] != 1 || (team != kUnproven && team != state.team(p))) return kUnproven;
      team = state.team(p);
    }
    return team;
  }

  // -- root statistics --------------------------------------------------------------------------

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

  void publish(Progress& progress) const {
    RootTable table = published_base_ ? *published_base_ : RootTable{};
    add_root(table);
    progress.publish(thread_, std::move(table));
  }

  Params params_;
  Weights policy_;
  PluginHooks<S> plugin_;
  int cut_off_;  // rollout decisions before a plug-in evaluator scores the position (Params::eval_depth); -1: to the end
  int root_seat_;
  int root_team_;
  Rng rng_;
  std::size_t max_nodes_;
  std::vector<Tree> trees_;
  std::vector<std::vector<Step>> paths_;  // this iteration's nodes in each tree
  Cursors cursor_{};                      // where this iteration's walk is in each tree
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

}  // namespace kibitz::search
