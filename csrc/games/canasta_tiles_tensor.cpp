// Tile Canasta: the observation tensor of a seat and the game-length bound (core/tensor.h). The
// layout is documented in docs/games/canasta_tiles.md ("Observation tensor"). Seats are relative
// (block k: seat (seat + k) mod 4) and so are teams (block 0: the observer's team).
#include "core/tensor.h"
#include "games/canasta_tiles.h"

namespace kibitz::canasta {

namespace {
constexpr int kPhases = static_cast<int>(Phase::kOver) + 1;
constexpr int kEndReasons = static_cast<int>(EndReason::kBonusThreeNoReplacement) + 1;
constexpr int kModes = static_cast<int>(MatchMode::kTarget) + 1;
constexpr double kKindScale = 8;  // the most copies of a kind (kKindCount)
// §9 (docs §1.12): a round has at most 82 turns. A turn has at most 78 decisions: the draw (or
// the pickup, or the Joker button); an unopened pickup's lay at the top's rank and its copies
// (2); up to 12 more lays in the pickup's opening, each a rank, a shape and the copies (36),
// closed by done (1); up to 12 lays in the meld phase, ranks rising (36); the discard and its
// copies (2).
constexpr int kMaxTurnsPerRound = 82;
constexpr int kMaxDecisionsPerTurn = 1 + 2 + 3 * kRanks + 1 + 3 * kRanks + 2;
}  // namespace

int State::observation_tensor(int seat, float* out) const {
  TensorWriter w(out);
  auto relative = [&](int p) { return p < 0 ? -1 : (p - seat + kPlayers) % kPlayers; };
  const bool shown = phase_ == Phase::kOver;  // §8: the end of the match shows every hand
  for (int k = 0; k < kPlayers; ++k) {
    const int p = (seat + k) % kPlayers;
    if (k == 0 || shown)
      w.scaled(hand_[p], kKinds, kKindScale);
    else
      w.zeros(kKinds);
    w.value(sum(hand_[p]) / 30.0);  // every hand's size is public
    w.scaled(known_[p], kKinds, kKindScale);
    w.flag(joker_used_[p]);
    w.value(jokers_left_[p] / 4.0);
    w.value(replace_[p] / 4.0);
  }
  for (int k = 0; k < 2; ++k) {
    const int t = (seat + k) % 2;
    for (int r = 0; r < kRanks; ++r) {
      w.value(melds_[t][r].nat / kKindScale);
      w.value(melds_[t][r].twos / 3.0);
      w.value(melds_[t][r].jokers / 2.0);
    }
    w.flag(opened_[t]);
    w.value(bonus_[t] / 4.0);
    w.value(totals_[t] / static_cast<double>(kTargetScore));
    w.value(last_round_[t] / static_cast<double>(kTargetScore));
  }
  w.value(stock_size() / static_cast<double>(kTiles));  // the stock's size, not its tiles
  w.flag(joker_button_ && stock_[kJoker] > 0);           // public only with the Joker button (§12)
  w.one_hot(top_, kKinds);
  if (pile_visible_)
    w.scaled(pile_, kKinds, kKindScale);
  else
    w.zeros(kKinds);
  w.value(sum(pile_) / static_cast<double>(kTiles));
  w.one_hot(static_cast<int>(phase_), kPhases);
  w.one_hot(phase_ == Phase::kOver ? -1 : relative(current_), kPlayers);
  w.one_hot(relative(starter_), kPlayers);
  w.one_hot(relative(went_out_), kPlayers);
  w.one_hot(static_cast<int>(end_), kEndReasons);
  w.flag(last_regular_);
  w.flag(tiebreak_);
  w.value(rounds_ / 10.0);
  w.value(dealt_ / static_cast<double>(kDealtTiles));
  w.one_hot(cursor_, kRanks);
  w.one_hot(chosen_, kRanks);
  w.one_hot(take_rank_, kRanks);
  w.value(stage_value_ / 150.0);
  w.scaled(played_, kKinds, kKindScale);
  w.one_hot(static_cast<int>(mode_), kModes);
  w.flag(winner_required_);
  w.flag(first_turn_may_meld_);
  w.flag(strict_);
  w.flag(pile_visible_);
  w.flag(joker_button_);
  return w.size();
}

// A required winner makes a tied match add rounds without bound (§11, A18), and so does the target
// mode; otherwise the mode fixes the number of rounds.
int State::max_game_length() const {
  if (winner_required_ || mode_ == MatchMode::kTarget) return -1;
  const int rounds = mode_ == MatchMode::kThreeRounds ? kThreeRounds : 1;
  return rounds * kMaxTurnsPerRound * kMaxDecisionsPerTurn;
}

}  // namespace kibitz::canasta
