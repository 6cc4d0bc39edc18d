// Moves outside the search tree, for every game: uniform random moves, the game's rollout policy
// with its named weights, the greedy one-ply bot, and whole playouts. The search's rollouts
// (search/mcts.h), the bots of the bindings and the benchmark use them.
#pragma once
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "core/game.h"

namespace kibitz::search {

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

// A game's heuristic weights by index (its kPolicyWeights or kEvalWeights order), and by name.
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

// Of the `n` actions, the one whose successor (a copy of `state` after play(copy, action))
// evaluates best for `seat`; ties broken at random.
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
