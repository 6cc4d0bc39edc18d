// The search entry point: search() checks the parameters, answers a forced move or a solved
// endgame at once, runs the Searchers of search/mcts.h on threads (root parallelism; PIMC's
// determinizations as work items) and picks the move from their summed root statistics.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/game.h"
#include "search/mcts.h"
#include "search/move_choice.h"
#include "search/params.h"
#include "search/playout.h"
#include "search/plugin.h"
#include "search/solver.h"

namespace kibitz::search {

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

}  // namespace kibitz::search
