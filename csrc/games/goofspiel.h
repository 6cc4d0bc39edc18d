// Goofspiel (the game of pure strategy), small: a test game for simultaneous decisions whose
// exact value backward induction with one linear program per joint node computes
// (tests/test_simultaneous.py; docs/games/goofspiel.md).
//
// Two seats each hold the cards 1..N, and a prize deck holds 1..N. Each round a prize is turned
// up at random (a chance node over the prizes left), then both seats bid one card of their hand
// at once; both bids are shown, the higher bid takes the prize's points, equal bids discard it.
// After N rounds the seat with more points wins; equal points tie.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/game.h"

namespace kibitz::goofspiel {

inline constexpr int kMaxCards = 9;  // cards and prizes are written as single digits
inline constexpr int kDefaultCards = 4;
using Cards = std::uint16_t;  // bit v-1 = card (or prize) v
inline constexpr Cards all_cards(int n) { return static_cast<Cards>((1u << n) - 1); }
inline constexpr std::uint8_t kNoPrize = 0;

struct Options {
  int players = 2;
  int cards = kDefaultCards;
};
Options parse_options(const std::map<std::string, std::string>& options);

class State {
 public:
  static constexpr const char* kName = "goofspiel";
  static constexpr int kMaxPlayers = 2;
  static constexpr int kMaxActions = kMaxCards;         // bid v: id v-1
  static constexpr int kMaxChanceOutcomes = kMaxCards;  // prize v: id v-1

  static State initial(const Options& options, std::uint64_t seed);
  static State from_string(std::string_view text);
  static State from_view(std::string_view text);

  int num_players() const { return 2; }
  bool is_terminal() const { return hand_[0] == 0; }
  int current_player() const {
    if (is_terminal()) return kTerminalPlayer;
    return prize_ == kNoPrize ? kChancePlayer : kSimultaneousPlayer;
  }

  int choosing_seats(int* seats) const {
    seats[0] = 0, seats[1] = 1;
    return 2;
  }
  int legal_choices(int seat, Action* out) const {
    int n = 0;
    for (Cards h = hand_[seat]; h; h &= h - 1) out[n++] = static_cast<Action>(std::countr_zero(h));
    return n;
  }
  void apply_joint(const Action* joint) {
    const int b0 = static_cast<int>(joint[0]) + 1, b1 = static_cast<int>(joint[1]) + 1;
    if (b0 != b1) points_[b0 > b1 ? 0 : 1] = static_cast<std::uint8_t>(points_[b0 > b1 ? 0 : 1] + prize_);
    hand_[0] = static_cast<Cards>(hand_[0] & ~(1u << joint[0]));
    hand_[1] = static_cast<Cards>(hand_[1] & ~(1u << joint[1]));
    prize_ = kNoPrize;
  }
  Action observe_choice(int, int, Action a) const { return a; }  // the bids are shown at once
  Action heuristic_choice(int seat, Rng& rng) const;

  int legal_actions(Action*) const { return 0; }  // no sequential decision: never called
  Action heuristic_action(Rng&) const { return 0; }

  int chance_outcomes(ChanceOutcome* out) const {
    const double p = 1.0 / std::popcount(deck_);
    int n = 0;
    for (Cards d = deck_; d; d &= d - 1) out[n++] = {static_cast<Action>(std::countr_zero(d)), p};
    return n;
  }
  Action sample_chance(Rng& rng) const {
    Cards d = deck_;
    for (auto k = rng.below(static_cast<std::uint32_t>(std::popcount(deck_))); k > 0; --k) d &= d - 1;
    return static_cast<Action>(std::countr_zero(d));
  }
  void apply(Action outcome) {  // the prize turned up
    prize_ = static_cast<std::uint8_t>(outcome + 1);
    deck_ = static_cast<Cards>(deck_ & ~(1u << outcome));
  }

  void returns(double* out) const;
  void scores(double* out) const;  // points won so far
  void ranks(double* out) const;
  int team(int seat) const { return seat; }

  // Nothing is hidden: hands follow from the bids shown, and the deck is the prizes not yet seen.
  std::uint64_t info_key(int seat) const;
  Action observe(int, Action a) const { return a; }
  State determinize(int, Rng&) const { return *this; }

  double evaluate(int seat) const;

  std::string action_to_string(Action action) const;
  Action parse_action(std::string_view text) const;
  std::string to_string() const;
  std::string view_string(int seat) const;
  std::string render(int seat) const;
  // Observation tensor and length bound (core/tensor.h; csrc/games/goofspiel_tensor.cpp; the layout is in
  // docs/games/goofspiel.md).
  int observation_tensor(int seat, float* out) const;
  int max_game_length() const;

  friend bool operator==(const State&, const State&) = default;

 private:
  static State parse(std::string_view text, int* seat);
  void validate() const;
  std::string write(int seat) const;

  std::uint8_t cards_ = kDefaultCards;
  std::array<Cards, 2> hand_{};
  Cards deck_ = 0;                 // prizes not yet turned up
  std::uint8_t prize_ = kNoPrize;  // the prize bid for now, 1..N
  std::array<std::uint8_t, 2> points_{};
};

static_assert(SimultaneousGame<State>);

}  // namespace kibitz::goofspiel
