// Biased rock-paper-scissors: a one-shot 2-player matrix game with a known mixed equilibrium,
// kept as a test game for simultaneous decisions (docs/games/biased_rps.md).
//
// Both seats choose rock, paper or scissors at once; both choices are then seen. The row seat's
// payoff u is kPayoff[row][column] (the column seat's is -u), the biased matrix of OpenSpiel's
// matrix_brps. The result is a win, a loss or a tie, so that returns stay win shares like every
// game's: u = 0 is a tie; otherwise a chance node makes seat 0 the winner with probability
// (1 + u/50) / 2. Seat 0's expected return is 1/2 + u/100, an affine image of u, so the
// equilibrium is the matrix game's: each seat plays (1/16, 10/16, 5/16), value 1/2.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/game.h"

namespace kibitz::brps {

inline constexpr int kChoices = 3;  // rock, paper, scissors: action ids 0, 1, 2
inline constexpr std::array<std::string_view, kChoices> kChoiceNames = {"rock", "paper", "scissors"};
inline constexpr int kScale = 50;  // the largest |payoff|: the win probability is (1 + u/kScale)/2
inline constexpr std::array<std::array<int, kChoices>, kChoices> kPayoff = {{{0, -25, 50}, {25, 0, -5}, {-50, 5, 0}}};
inline constexpr std::uint8_t kNone = 0xFF;

struct Options {
  int players = 2;
};
Options parse_options(const std::map<std::string, std::string>& options);

class State {
 public:
  static constexpr const char* kName = "biased_rps";
  static constexpr int kMaxPlayers = 2;
  static constexpr int kMaxActions = kChoices;
  static constexpr int kMaxChanceOutcomes = 2;  // outcome w: seat w wins

  static State initial(const Options&, std::uint64_t) { return State{}; }
  static State from_string(std::string_view text);
  static State from_view(std::string_view text);

  int num_players() const { return 2; }
  bool is_terminal() const { return winner_ != kNone; }
  int current_player() const {
    if (is_terminal()) return kTerminalPlayer;
    return choice_[0] == kNone ? kSimultaneousPlayer : kChancePlayer;
  }
  int payoff() const { return kPayoff[choice_[0]][choice_[1]]; }  // seat 0's, once both chose

  // The simultaneous node: both seats choose.
  int choosing_seats(int* seats) const {
    seats[0] = 0, seats[1] = 1;
    return 2;
  }
  int legal_choices(int, Action* out) const {
    for (int c = 0; c < kChoices; ++c) out[c] = static_cast<Action>(c);
    return kChoices;
  }
  void apply_joint(const Action* joint) {
    choice_ = {static_cast<std::uint8_t>(joint[0]), static_cast<std::uint8_t>(joint[1])};
    if (payoff() == 0) winner_ = kTie;
  }
  Action observe_choice(int, int, Action a) const { return a; }  // both choices are shown at once
  Action heuristic_choice(int, Rng& rng) const { return static_cast<Action>(rng.below(kChoices)); }

  // No sequential decision exists: these are never called.
  int legal_actions(Action*) const { return 0; }
  Action heuristic_action(Rng&) const { return 0; }

  int chance_outcomes(ChanceOutcome* out) const {
    const double p0 = (1.0 + static_cast<double>(payoff()) / kScale) / 2;
    int n = 0;
    if (p0 > 0) out[n++] = {0, p0};
    if (p0 < 1) out[n++] = {1, 1 - p0};
    return n;
  }
  Action sample_chance(Rng& rng) const { return rng.uniform() < (1.0 + static_cast<double>(payoff()) / kScale) / 2 ? 0 : 1; }
  void apply(Action outcome) { winner_ = static_cast<std::uint8_t>(outcome); }

  void returns(double* out) const;
  void scores(double* out) const;  // the matrix payoffs u and -u once both chose, else 0
  void ranks(double* out) const;
  int team(int seat) const { return seat; }

  // Nothing is hidden: the only choices are shown the moment they are made.
  std::uint64_t info_key(int seat) const;
  Action observe(int, Action a) const { return a; }
  State determinize(int, Rng&) const { return *this; }

  double evaluate(int seat) const;  // seat's expected return

  std::string action_to_string(Action action) const;
  Action parse_action(std::string_view text) const;
  std::string to_string() const;
  std::string view_string(int seat) const;
  std::string render(int seat) const;
  // Observation tensor and length bound (core/tensor.h; csrc/games/biased_rps_tensor.cpp; the layout is in
  // docs/games/biased_rps.md).
  int observation_tensor(int seat, float* out) const;
  int max_game_length() const;

  friend bool operator==(const State&, const State&) = default;

 private:
  static constexpr std::uint8_t kTie = 2;
  static State parse(std::string_view text, int* seat);
  std::string write(int seat) const;

  std::array<std::uint8_t, 2> choice_ = {kNone, kNone};
  std::uint8_t winner_ = kNone;  // 0, 1, kTie, or kNone while the game runs
};

static_assert(SimultaneousGame<State>);

}  // namespace kibitz::brps
