// Exact solver for two-player perfect-information games without chance: alpha-beta (negamax)
// on the game-theoretic value of the seat to move (win 1, tie 0.5, loss 0), with a
// transposition table and move ordering (the table's move, then the game's heuristic move).
//
// Values are kept in half points, 0 / 1 / 2, so the whole search is on three integers: a win
// found cuts off the rest of a node at once, and a table entry is either exact or one bound.
#pragma once
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/game.h"
#include "search/params.h"

namespace kibitz::search {

// The hooks a game offers when it can be solved: it must be perfect-information and have no
// chance node after setup. hash(): a 64-bit key of the full state. stones_left(): how much of
// the game is left, in the game's own unit, which Params::solve_stones is compared with.
template <class S>
concept Solvable = Game<S> && requires(const S s) {
  { s.hash() } -> std::convertible_to<std::uint64_t>;
  { s.stones_left() } -> std::convertible_to<int>;
};

struct SolveResult {
  Action action = 0;     // a best move for the seat to move (the first legal move when all lose)
  double value = 0;      // game-theoretic value for the seat to move: 1 win, 0.5 tie, 0 loss
  std::uint64_t nodes = 0;
  double seconds = 0;
  bool complete = true;  // false: a limit was reached, action and value mean nothing
};

// When a solve gives up: after max_nodes positions (0: never), at the deadline, or when `stop`
// is set; checked every kCheckPeriod positions.
struct SolveLimits {
  std::uint64_t max_nodes = 0;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const StopFlag* stop = nullptr;
};

template <Solvable S>
class Solver {
 public:
  // A transposition table of 2^table_bits entries (16 bytes each), kept per thread and reused by
  // every solve on that thread: a generation number retires the previous solve's entries instead
  // of clearing 16 MB each time.
  explicit Solver(int table_bits = 20, SolveLimits limits = {}) : limits_(limits) {
    Table& t = table();
    if (t.entries.size() != std::size_t{1} << table_bits) t.entries.assign(std::size_t{1} << table_bits, Entry{}), t.generation = 0;
    if (++t.generation == 0) std::fill(t.entries.begin(), t.entries.end(), Entry{}), t.generation = 1;
    entries_ = t.entries.data();
    mask_ = t.entries.size() - 1;
    generation_ = t.generation;
  }

  SolveResult solve(const S& root) {
    if (root.num_players() != 2) throw std::invalid_argument("the exact solver needs 2 players, this game has " + std::to_string(root.num_players()));
    if (root.current_player() < 0) throw std::invalid_argument("the exact solver needs a seat to move: the state is terminal or a chance node");
    const auto start = std::chrono::steady_clock::now();
    SolveResult result;
    const int value = search(root, 0, 2, &result.action);
    result.value = value / 2.0;
    result.nodes = nodes_;
    result.complete = !aborted_;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  static constexpr std::uint64_t kCheckPeriod = 4096;
  enum Bound : std::uint8_t { kEmpty, kExact, kLower, kUpper };
  struct Entry {
    std::uint64_t key = 0;
    Action move = 0;
    std::int8_t value = 0;
    Bound bound = kEmpty;
    std::uint16_t generation = 0;
  };
  static_assert(sizeof(Entry) == 16);
  struct Table {
    std::vector<Entry> entries;
    std::uint16_t generation = 0;
  };
  static Table& table() {
    thread_local Table t;
    return t;
  }

  bool out_of_budget() const {
    if (limits_.max_nodes && nodes_ >= limits_.max_nodes) return true;
    if (nodes_ % kCheckPeriod != 0) return false;
    return (limits_.stop && limits_.stop->value.load(std::memory_order_relaxed)) || std::chrono::steady_clock::now() >= limits_.deadline;
  }

  static int terminal_value(const S& s, int seat) {
    std::array<double, S::kMaxPlayers> r{};
    s.returns(r.data());
    return static_cast<int>(std::lround(2 * r[seat]));
  }

  // Fail-soft alpha-beta: a result <= alpha is an upper bound, >= beta a lower bound.
  int search(const S& s, int alpha, int beta, Action* best_move) {
    if (aborted_ || (aborted_ = out_of_budget())) return 0;
    ++nodes_;
    const std::uint64_t key = s.hash();
    Entry& entry = entries_[key & mask_];
    const bool hit = entry.generation == generation_ && entry.bound != kEmpty && entry.key == key;
    if (hit && (entry.bound == kExact || (entry.bound == kLower && entry.value >= beta) || (entry.bound == kUpper && entry.value <= alpha))) {
      if (best_move) *best_move = entry.move;
      return entry.value;
    }
    std::array<Action, S::kMaxActions> moves;
    const int n = s.legal_actions(moves.data());
    const Action first = hit ? entry.move : s.heuristic_action(rng_);
    if (Action* found = std::find(moves.begin(), moves.begin() + n, first); found != moves.begin() + n) std::iter_swap(moves.begin(), found);
    const int me = s.current_player();
    const int alpha_in = alpha;
    int best = -1;
    Action chosen = moves[0];
    for (int i = 0; i < n && alpha < beta; ++i) {
      S child = s;
      child.apply(moves[i]);
      int v;
      if (child.is_terminal())
        v = terminal_value(child, me);
      else if (child.current_player() == me)
        v = search(child, alpha, beta, nullptr);
      else
        v = 2 - search(child, 2 - beta, 2 - alpha, nullptr);
      if (v > best) {
        best = v, chosen = moves[i];
        alpha = std::max(alpha, v);
      }
    }
    if (aborted_) return 0;
    // A loss can only be an upper bound and a win a lower bound, so both are exact.
    const Bound bound = best <= alpha_in && best > 0 ? kUpper : best >= beta && best < 2 ? kLower : kExact;
    entry = {key, chosen, static_cast<std::int8_t>(best), bound, generation_};
    if (best_move) *best_move = chosen;
    return best;
  }

  SolveLimits limits_;
  Entry* entries_;
  std::size_t mask_;
  std::uint16_t generation_;
  std::uint64_t nodes_ = 0;
  bool aborted_ = false;
  Rng rng_{0};  // move ordering only: the result does not depend on it
};

// The search solves at most this many nodes (a few hundred milliseconds) before it falls
// back to its own budget: solve_stones set too high costs time, never a move.
inline constexpr std::uint64_t kSolveNodeBudget = 2'000'000;

// The search's answer when Params::solve_stones applies: the solver's move and value, for a
// won or tied position. Returns false (and leaves `out` alone) when the position is lost,
// where every move loses against perfect play and the search's choice is the better bet on
// a mistake, or when the solve runs out of `limits` (the search's own clock and stop flag).
template <Solvable S>
bool solved_result(const S& root, const SolveLimits& limits, Result& out) {
  const SolveResult solved = Solver<S>(20, limits).solve(root);
  if (!solved.complete || solved.value == 0) return false;
  out = Result{};
  out.action = solved.action;
  out.stats.push_back({solved.action, 1, solved.value});
  out.nodes = solved.nodes;
  out.seconds = solved.seconds;
  out.root_value = solved.value;
  return true;
}

}  // namespace kibitz::search
