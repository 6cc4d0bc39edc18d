// Yucata' (Dorra, Hans im Glück 1996): 2–4 players race along a 40-space track by playing
// cards, collecting the stones they pass. Perfect information; no chance after setup.
// Spec: shared/rules/yucata.md. Section numbers (§) and rulings (A1–A14) refer to it.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#ifdef __BMI2__
#include <immintrin.h>
#endif
#include <map>
#include <string>
#include <string_view>

#include "core/game.h"

namespace kibitz::yucata {

// §2: spaces 0..39. Space 0 is the start, 1–4 stay empty, 5–38 hold one stone each, and the
// red stone lies on 39, the goal.
inline constexpr int kEnd = 39;
inline constexpr int kFirstStone = 5;
inline constexpr int kLayoutLength = kEnd - kFirstStone;  // 34 stones on 5..38
inline constexpr int kPaleStones = 25;
inline constexpr int kDarkStones = 9;

// §1: each player's 7 cards. The action id is the card: 0..4 are the number cards 1..5.
using Card = std::uint8_t;
inline constexpr Card kLeader = 5;  // S: one space in front of the leading amulet
inline constexpr Card kCopy = 6;    // Q: moves as the previous play did
inline constexpr Card kNoCard = 7;  // no previous card: the first turn of the game
inline constexpr int kCards = 7;
inline constexpr std::string_view kCardLetters = "12345SQ";
using Hand = std::uint8_t;  // bit c = card c; a hand is a set (§5)
inline constexpr Hand kFullHand = (1u << kCards) - 1;

using SpaceMask = std::uint64_t;  // bit s = space s
constexpr SpaceMask spaces_below(int s) { return (SpaceMask{1} << s) - 1; }  // 0..s-1
inline constexpr SpaceMask kStoneSpaces = spaces_below(kEnd) & ~spaces_below(kFirstStone);  // 5..38

// §2, A1 [R]: the printed standard layout is unknown. This is the spec's reconstruction for
// spaces 5..38 (25 P, 9 D, space 38 pale, darks spread out), NOT the official board. Replace
// this string, and nothing else, if the real layout turns up.
inline constexpr std::string_view kReconstructedLayout = "PPDPPPDPPDPPPDPPPDPPDPPPDPPDPPPDPP";

// The dark spaces of a layout string already known to be valid (parse_layout checks one).
constexpr SpaceMask dark_spaces_of(std::string_view layout) {
  SpaceMask dark = 0;
  for (int i = 0; i < kLayoutLength; ++i)
    if (layout[i] == 'D') dark |= SpaceMask{1} << (kFirstStone + i);
  return dark;
}
inline constexpr SpaceMask kReconstructedDark = dark_spaces_of(kReconstructedLayout);
static_assert(kReconstructedLayout.size() == kLayoutLength && std::popcount(kReconstructedDark) == kDarkStones &&
              kReconstructedLayout.back() == 'P');  // §2: the rules for any layout

// §9.2: a player holding D' dark stones gives back T(D') = D'(D'+1)/2 pale stones.
inline constexpr std::array<int, kDarkStones + 1> kDarkPenalty = {0, 1, 3, 6, 10, 15, 21, 28, 36, 45};

// §6, A2 [R]: what Q copies. kEffective (canonical): the effective card of the previous
// turn, worked out now. kDistance (option): the distance the previous play moved.
enum class QReading : std::uint8_t { kEffective, kDistance };
// §9.4, A11 [R]: ties share the place (canonical); kDark (non-canonical option) first
// prefers fewer dark stones D', then shares.
enum class Tiebreak : std::uint8_t { kShared, kDark };

// The dark spaces of a layout string (34 letters P/D for spaces 5..38); throws
// std::invalid_argument saying what is wrong (§2: exactly 25 P and 9 D, space 38 pale).
SpaceMask parse_layout(std::string_view layout);
std::string layout_text(SpaceMask dark);

struct Options {
  int players = 2;
  SpaceMask dark = kReconstructedDark;  // the layout's dark spaces
  bool random_layout = false;           // §2.2: a seeded uniform legal layout instead of `dark`
  int start = -1;                       // §3.4 [R]: -1 draws the start player from the seed
  QReading q = QReading::kEffective;
  Tiebreak tiebreak = Tiebreak::kShared;
};
Options parse_options(const std::map<std::string, std::string>& options);

class State {
 public:
  static constexpr const char* kName = "yucata";
  static constexpr int kMaxPlayers = 4;
  static constexpr int kMaxActions = kCards;
  static constexpr int kMaxChanceOutcomes = 1;  // §10: no chance node after setup

  // §2, §3: the layout (when random) and then the start player come from `seed`.
  static State initial(const Options& options, std::uint64_t seed);
  static State from_string(std::string_view text);  // throws NotationError
  static State from_view(std::string_view text);    // §10: the view is the full state

  int num_players() const { return players_; }
  bool is_terminal() const { return red_ >= 0; }  // §8: taking the red stone ends the game
  int current_player() const { return is_terminal() ? kTerminalPlayer : to_move_; }

  // §5: the legal cards as a bit set.
  std::uint32_t legal_mask() const {
    const std::uint32_t hand = hand_[to_move_];
    if (prev_card_ == kNoCard) return hand & ~(1u << kCopy);  // §5.2, A4: only the very first card
    // §5.3, A5, A6: not the predecessor's printed card, unless it is the last card in hand.
    return (hand & (hand - 1)) ? hand & ~(1u << prev_card_) : hand;
  }

  int legal_actions(Action* out) const {
    int n = 0;
    for (std::uint32_t legal = legal_mask(); legal; legal &= legal - 1) out[n++] = static_cast<Action>(std::countr_zero(legal));
    return n;
  }

  // Optional fast path for rollouts: a uniform legal card without listing them.
  Action random_action(Rng& rng) const {
    const std::uint32_t legal = legal_mask();
    const auto k = rng.below(static_cast<std::uint32_t>(std::popcount(legal)));
#ifdef __BMI2__
    return static_cast<Action>(std::countr_zero(_pdep_u32(1u << k, legal)));  // the k-th set bit
#else
    std::uint32_t rest = legal;
    for (auto i = k; i > 0; --i) rest &= rest - 1;
    return static_cast<Action>(std::countr_zero(rest));
#endif
  }

  // §6: where the mover's amulet lands with `card`.
  int target(Card card) const {
    const int from = pos_[to_move_];
    if (card == kCopy && q_ == QReading::kDistance) return std::min(from + moved_, kEnd);
    const Card effective = card == kCopy ? prev_eff_ : card;  // A2, A3: Q resolves the chain now
    if (effective == kLeader) return std::min(lead_ + 1, kEnd);  // A7: every case is lead + 1
    return std::min(from + effective + 1, kEnd);                 // A8: nothing lies beyond 39
  }

  void apply(Action action) {
    const Card card = static_cast<Card>(action);
    const int p = to_move_;
    const int from = pos_[p];
    const int to = target(card);
    if (to > lead_) {  // §7: stones remain only beyond the lead, so take lead+1..to
      const SpaceMask taken = spaces_below(to + 1) & ~spaces_below(lead_ + 1);
      const int dark = std::popcount(taken & dark_spaces_);
      dark_[p] = static_cast<std::uint8_t>(dark_[p] + dark);
      pale_[p] = static_cast<std::uint8_t>(pale_[p] + std::popcount(taken & kStoneSpaces) - dark);
      lead_ = static_cast<std::uint8_t>(to);
    }
    pos_[p] = static_cast<std::uint8_t>(to);
    if (card != kCopy) prev_eff_ = card;  // a Q keeps the chain's effective card
    prev_card_ = card;
    moved_ = static_cast<std::uint8_t>(to - from);
    ++turn_;
    hand_[p] = static_cast<Hand>(hand_[p] & ~(1u << card));
    if (hand_[p] == 0) hand_[p] = kFullHand;  // §4.3 [R]: refill at the end of the own 7th turn
    if (to == kEnd) {  // §8, A8: the red stone is taken and the game ends at once
      red_ = static_cast<std::int8_t>(p);
      return;
    }
    to_move_ = static_cast<std::uint8_t>(p + 1 == players_ ? 0 : p + 1);  // §3.5: clockwise
  }

  int chance_outcomes(ChanceOutcome*) const { return 0; }
  Action sample_chance(Rng&) const { return 0; }  // never called: current_player() is never chance

  void returns(double* out) const;
  void scores(double* out) const;  // §9: P - T(D'), negative allowed (A10); before the end D' = D
  void ranks(double* out) const;   // A11: equal results share a rank
  int team(int seat) const { return seat; }

  // §10 [R]: perfect information. Every seat sees the full state; every move is public.
  std::uint64_t info_key(int seat) const { return hash_mix(hash(), static_cast<std::uint64_t>(seat)); }
  Action observe(int, Action action) const { return action; }
  State determinize(int, Rng&) const { return *this; }

  // The rollout policy's weights (heuristic_action), set at run time by name (game.h).
  enum Weight { kPale, kDark, kWeights };
  static constexpr std::array<PolicyWeight, kWeights> kPolicyWeights = {{
      {"pale", 1, 0, 100, "per pale stone the card collects"},
      {"dark", 1, 0, 100, "per point that the dark stones the card collects add to the mover's penalty"},
  }};
  static constexpr std::array<double, kWeights> kDefaultWeights = default_weights(kPolicyWeights);
  Action heuristic_action(Rng& rng, const double* weights) const;
  Action heuristic_action(Rng& rng) const { return heuristic_action(rng, kDefaultWeights.data()); }

  // The greedy evaluation's weights (evaluate), set at run time by name (game.h).
  enum EvalWeight { kEvalLeader, kEvalCount };
  static constexpr std::array<PolicyWeight, kEvalCount> kEvalWeights = {{
      {"leader", 0.25, -100, 100, "holding the leader card, in points of score lead (it can always reach the next stone)"},
  }};
  static constexpr std::array<double, kEvalCount> kDefaultEval = default_weights(kEvalWeights);
  double evaluate(int seat, const double* weights) const;
  double evaluate(int seat) const { return evaluate(seat, kDefaultEval.data()); }

  std::string action_to_string(Action action) const;
  Action parse_action(std::string_view text) const;
  std::string to_string() const;
  std::string view_string(int seat) const;
  std::string render(int seat) const;

  // Hooks of the exact solver (search/solver.h): a 64-bit key of the whole state, and how
  // much game is left, counted in stones still on the board (red included).
  std::uint64_t hash() const;
  int stones_left() const { return kEnd - std::max<int>(lead_, kFirstStone - 1); }

  int score(int seat) const;  // §9: P - T(D')
  // Observation tensor and length bound (core/tensor.h; csrc/games/yucata_tensor.cpp; the layout is in
  // docs/games/yucata.md).
  int observation_tensor(int seat, float* out) const;
  int max_game_length() const;

  friend bool operator==(const State&, const State&) = default;

 private:
  int adjusted_dark(int seat) const { return dark_[seat] - (red_ == seat && dark_[seat] > 0); }  // §9.1, A9
  void validate() const;  // throws NotationError naming the broken invariant
  static State parse(std::string_view text, bool view, int& seat);
  std::string write(int seat) const;  // seat -1: the full state; otherwise that seat's view

  SpaceMask dark_spaces_ = 0;  // the layout; pale stones lie on the other spaces 5..38
  std::array<std::uint8_t, kMaxPlayers> pos_{};
  std::array<Hand, kMaxPlayers> hand_{};
  std::array<std::uint8_t, kMaxPlayers> pale_{};  // §7: collected stones, public
  std::array<std::uint8_t, kMaxPlayers> dark_{};
  std::uint8_t players_ = 2;
  std::uint8_t start_ = 0;
  std::uint8_t to_move_ = 0;  // once the game is over: the last mover, who holds the red stone
  std::uint8_t lead_ = 0;     // max over pos_; every stone at or behind it is gone (§7)
  std::uint8_t turn_ = 0;     // turns played; at most 38·N + 1 (§8)
  Card prev_card_ = kNoCard;  // §5: the physical card of the turn before
  Card prev_eff_ = kNoCard;   // §6: its effective card (never Q)
  std::uint8_t moved_ = 0;    // the distance the turn before moved (for q=distance)
  std::int8_t red_ = -1;      // holder of the red stone; >= 0 exactly when the game is over
  QReading q_ = QReading::kEffective;
  Tiebreak tiebreak_ = Tiebreak::kShared;
};

static_assert(Game<State>);

}  // namespace kibitz::yucata
