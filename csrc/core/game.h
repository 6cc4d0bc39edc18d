// The interface every kibitz game implements, written as a C++20 concept.
//
// A game is a copyable value type `S` (the full state). Search code is templated on `S`,
// so nothing in a simulation goes through a virtual call or allocates on the heap.
// See docs/architecture.md for the meaning of each member and the checklist for a new game.
#pragma once
#include <array>
#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/rng.h"

namespace kibitz {

// Actions are small dense integers: decisions in [0, S::kMaxActions), chance outcomes in
// [0, S::kMaxChanceOutcomes). The meaning of an id depends on whose turn it is.
using Action = std::uint32_t;

// current_player() returns a seat in [0, num_players()) or one of these. kSimultaneousPlayer
// occurs only in games that model simultaneous decisions (SimultaneousGame below).
inline constexpr int kChancePlayer = -1;
inline constexpr int kTerminalPlayer = -2;
inline constexpr int kSimultaneousPlayer = -3;

// What observe() returns when a seat learns nothing about an action beyond the fact that it
// happened (which the turn structure already tells every seat).
inline constexpr Action kUnobserved = 0xFFFFFFFFu;
// What an optional hook that looks for a move returns when there is none.
inline constexpr Action kNoAction = 0xFFFFFFFFu;

struct ChanceOutcome {
  Action outcome;
  double probability;
};

// Errors raised by notation parsing and move application; the bindings map them to the
// Python exceptions of the same names. A failed call leaves the state unchanged.
struct IllegalMoveError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct NotationError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct OptionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

template <class S>
concept Game = std::copyable<S> && requires(const S cs, S s, Rng& rng, Action a, Action* actions,
                                            ChanceOutcome* outcomes, double* values, int seat,
                                            std::string_view text) {
  // Compile-time bounds so that callers can use fixed buffers.
  { S::kMaxPlayers } -> std::convertible_to<int>;
  { S::kMaxActions } -> std::convertible_to<int>;
  { S::kMaxChanceOutcomes } -> std::convertible_to<int>;

  { cs.num_players() } -> std::convertible_to<int>;
  { cs.current_player() } -> std::convertible_to<int>;  // seat, kChancePlayer or kTerminalPlayer
  { cs.is_terminal() } -> std::convertible_to<bool>;

  // Decisions: writes the legal actions into `actions` (room for kMaxActions), returns the count.
  { cs.legal_actions(actions) } -> std::convertible_to<int>;
  // Applies a decision or a chance outcome. Precondition: it is legal (search never checks).
  s.apply(a);
  // Chance: every outcome with its probability (room for kMaxChanceOutcomes); and one sample.
  { cs.chance_outcomes(outcomes) } -> std::convertible_to<int>;
  { cs.sample_chance(rng) } -> std::convertible_to<Action>;

  // Terminal results. returns(): sole winner 1, k joint winners 1/k each, others 0; a team's
  // members share the team's result. scores(): the game's raw score per seat. ranks(): 1 = first,
  // equal results share a rank.
  cs.returns(values);
  cs.scores(values);
  cs.ranks(values);
  { cs.team(seat) } -> std::convertible_to<int>;

  // Hidden information. info_key(seat): a 64-bit key of everything `seat` may know now.
  // observe(seat, a): what `seat` sees of action `a` taken in this state: `a` itself, another
  // action id standing for a class of actions it cannot tell apart, or kUnobserved.
  // determinize(seat, rng): a full state drawn from the states consistent with seat's view.
  { cs.info_key(seat) } -> std::convertible_to<std::uint64_t>;
  { cs.observe(seat, a) } -> std::convertible_to<Action>;
  { cs.determinize(seat, rng) } -> std::same_as<S>;

  // The game's heuristic rollout policy (a legal decision at a decision node).
  { cs.heuristic_action(rng) } -> std::convertible_to<Action>;
  // One-ply evaluation of this state for `seat`, used by the greedy bot (higher is better).
  { cs.evaluate(seat) } -> std::convertible_to<double>;

  // Notation. Action text is interpreted at this state (decision or chance outcome).
  { cs.action_to_string(a) } -> std::convertible_to<std::string>;
  { cs.parse_action(text) } -> std::convertible_to<Action>;  // throws NotationError
  { cs.to_string() } -> std::convertible_to<std::string>;     // full state, exact round trip
  { cs.view_string(seat) } -> std::convertible_to<std::string>;  // seat view
  { cs.render(seat) } -> std::convertible_to<std::string>;    // readable board; seat -1: all hands
};

// Optional members, for the protocol's incremental `observe` line (docs/protocol.md), when what
// a seat sees of an action is more than an action id (a hand shown) or the placeholder hidden
// cards of a view need rearranging before an opponent's move can be played:
// observation_string(seat, a) is what `seat` sees of `a` as text ("?" for nothing);
// after_observation(seat, seen, rng) is the state after the action seen as `seen`, with every
// hidden part re-dealt consistently with seat's new view (throws IllegalMoveError or
// NotationError). Without them the bindings use observe() and try determinizations.
template <class S>
concept HasObservationText = requires(const S s, int seat, Action a, std::string_view seen, Rng& rng) {
  { s.observation_string(seat, a) } -> std::convertible_to<std::string>;
  { s.after_observation(seat, seen, rng) } -> std::same_as<S>;
};

// Simultaneous decisions (docs/architecture.md §2.3): a game whose current_player() can be
// kSimultaneousPlayer, a node where several seats choose at once, each from its own legal list,
// and the choices take effect together. At such a node the sequential members (legal_actions,
// apply, observe, heuristic_action) are never called; these are:
// choosing_seats(seats): the seats that choose here (at least one), written into `seats` (room
// for kMaxPlayers) in the game's recording order (how logs list a joint move); returns the count.
// legal_choices(seat, actions): a choosing seat's legal actions (at least one, distinct, in a
// deterministic order); an id names the same move for every seat at the node, so that
// action_to_string and parse_action read it without knowing the seat.
// apply_joint(joint): joint[seat] is the action of each choosing seat (the other entries are not
// read). Precondition: each is legal.
// observe_choice(observer, chooser, a): what `observer` sees of chooser's `a` when the joint move
// is made: `a`, a class id (< kMaxActions) or kUnobserved. Its own choice a seat always knows.
// A choice hidden at the joint move is revealed later only through later observations (Yak:
// the card's owner's first Noon decision has an id range of its own).
// heuristic_choice(seat, rng): the rollout policy's choice for a choosing seat.
template <class S>
concept SimultaneousGame = Game<S> && requires(const S cs, S s, Rng& rng, Action a, Action* actions, const Action* joint, int seat,
                                               int* seats) {
  { cs.choosing_seats(seats) } -> std::convertible_to<int>;
  { cs.legal_choices(seat, actions) } -> std::convertible_to<int>;
  s.apply_joint(joint);
  { cs.observe_choice(seat, seat, a) } -> std::convertible_to<Action>;
  { cs.heuristic_choice(seat, rng) } -> std::convertible_to<Action>;
};

// Optional for a SimultaneousGame: reopen_choices(seat), at a simultaneous node at which some
// seats have chosen already (a position read back from a sequential record), the same node with
// every choice that `seat` has not seen taken back, so that those seats are choosing again. The
// search starts there (docs/architecture.md §4): the choices were made without knowing seat's,
// so searching them as simultaneous is exact, where a determinization would guess them uniformly.
template <class S>
concept HasReopenChoices = SimultaneousGame<S> && requires(const S s, int seat) {
  { s.reopen_choices(seat) } -> std::same_as<S>;
};

// Optional for a SimultaneousGame, the protocol's text of a joint move as `seat` sees it, when it
// shows more than each choice's observe_choice (Yak: the reveal of the card that acts first). Its
// after_observation(seat, seen, rng) at a simultaneous node then reads this text. Without it the
// bindings write the choices in recording order joined by kJointSeparator, "?" for one not seen.
template <class S>
concept HasJointObservationText = SimultaneousGame<S> && requires(const S s, int seat, const Action* joint) {
  { s.joint_observation_string(seat, joint) } -> std::convertible_to<std::string>;
};
inline constexpr std::string_view kJointSeparator = " | ";

// Optional members the search uses when a game has them (docs/architecture.md §4):
//
// winning_action(): a legal decision that ends the game at once with the mover's team the sole
// winner, or kNoAction. The search expands it first and its rollouts take it.
template <class S>
concept HasWinningAction = requires(const S s) {
  { s.winning_action() } -> std::convertible_to<Action>;
};

// `static constexpr std::array<PolicyWeight, N> kPolicyWeights` (N <= kMaxPolicyWeights) and
// heuristic_action(rng, weights): the rollout policy with its weights set at run time, in the
// table's order (Params::policy names them; heuristic_action(rng) plays the defaults). So a
// policy is tuned without a rebuild. A PolicyWeight row declares any heuristic's weight: the
// greedy evaluation's too (HasEvalWeights below).
struct PolicyWeight {
  const char* name;
  double value;  // the default
  double low, high;
  const char* help;
};
inline constexpr int kMaxPolicyWeights = 16;
// The weights' defaults in table order: what heuristic_action(rng) plays with.
template <std::size_t N>
constexpr std::array<double, N> default_weights(const std::array<PolicyWeight, N>& table) {
  std::array<double, N> w{};
  for (std::size_t i = 0; i < N; ++i) w[i] = table[i].value;
  return w;
}
template <class S>
concept HasPolicyWeights = requires(const S s, Rng& rng, const double* weights) {
  { S::kPolicyWeights.size() } -> std::convertible_to<std::size_t>;
  { s.heuristic_action(rng, weights) } -> std::convertible_to<Action>;
};

// The same for the greedy bot's evaluation: `static constexpr std::array<PolicyWeight, N>
// kEvalWeights` (N <= kMaxPolicyWeights) and evaluate(seat, weights), in the table's order
// (the greedy bot's `eval.<name>` names them; evaluate(seat) evaluates with the defaults).
template <class S>
concept HasEvalWeights = requires(const S s, int seat, const double* weights) {
  { S::kEvalWeights.size() } -> std::convertible_to<std::size_t>;
  { s.evaluate(seat, weights) } -> std::convertible_to<double>;
};

// decision_log_likelihood(observer, turns, temperature, epsilon, weights, rng) on a
// determinization for `observer`: the log-likelihood of the other seats' last `turns` decisions
// given the hidden cards this state assigns them, under a model of play (the game's rollout
// policy with `weights`, its kPolicyWeights: a move the policy scores r below the best the hand
// allowed is worth exp(-r / temperature), at least `epsilon`). `rng` is for whatever the history
// leaves open. A research tool (bench/inference_overlap.py): policy-based inference (Solinas,
// Rebstock & Buro 2019) weighted the searches' root determinizations by it until measurements
// found no gain (docs/research-log/).
template <class S>
concept HasDecisionLikelihood = requires(const S s, int seat, double x, const double* weights, Rng& rng) {
  { s.decision_log_likelihood(seat, seat, x, x, weights, rng) } -> std::convertible_to<double>;
};

// `static constexpr bool kPublicOutcome = true`: whether the game is over, and its returns,
// depend only on what every seat has observed (the board, not hidden cards). The information-
// set searches may then treat a result reached in one determinization as proven for every
// state the observer cannot tell apart (MCTS-Solver).
template <class S>
constexpr bool public_outcome() {
  if constexpr (requires { S::kPublicOutcome; })
    return S::kPublicOutcome;
  else
    return false;
}

// `static constexpr bool kChanceRunsCommute = true`: a run of chance outcomes with no decision
// in between tells an observer no more than their multiset (the cards of one draw, in any
// order). The search then keys such a run as one tree edge, so that draws in another order
// share one information set.
template <class S>
constexpr bool chance_runs_commute() {
  if constexpr (requires { S::kChanceRunsCommute; })
    return S::kChanceRunsCommute;
  else
    return false;
}

}  // namespace kibitz
