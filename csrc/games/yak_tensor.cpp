// Yak: the observation tensor of a seat and the game-length bound (core/tensor.h). The layout is
// documented in docs/games/yak.md ("Observation tensor"). Everything but the action cards not yet
// revealed is public. Seats are relative: block k describes seat (seat + k) mod players.
#include "core/tensor.h"
#include "games/yak.h"

namespace kibitz::yak {

namespace {
constexpr int kSteps = static_cast<int>(Step::kOver) + 1;
// A Noon turn has at most 6 decisions: a Build's purchase, payment, overflow and up to 3
// placements (a Restock has 1, a Market 2: take and put).
constexpr int kMaxDecisionsPerTurn = 3 + kRules.max_stones_bought;
}  // namespace

int State::observation_tensor(int seat, float* out) const {
  TensorWriter w(out);
  const int n = players_;
  auto relative = [&](int p) { return p < 0 ? -1 : (p - seat + n) % n; };
  w.value(static_cast<double>(round_) / kRules.max_rounds);
  w.one_hot(relative(baby_), kMaxPlayers);
  w.value(static_cast<double>(turn_) / kMaxPlayers);
  w.one_hot(static_cast<int>(step_), kSteps);
  w.flag(dir_ > 0);
  w.value(static_cast<double>(track_) / kRules.fog_track_capacity);
  w.value(static_cast<double>(fills_) / kRules.fog_fills);
  w.value(aside_);
  w.value(static_cast<double>(trigger_) / kRules.max_rounds);
  w.one_hot(relative(stupa_), kMaxPlayers);
  w.flag(removal_ == Removal::kEven);
  for (int b = 0; b < kBonusCards; ++b) {
    bool shown = false;
    for (int i = 0; i < kRules.bonus_revealed; ++i) shown |= master_ && bonus_[i] == b;
    w.flag(shown);
  }
  for (int k = 0; k < kMaxPlayers; ++k) {
    const bool present = k < n;
    const int p = (seat + k) % n;
    const bool hidden = present && hidden_from(seat, p);
    w.flag(present);
    w.one_hot(present && !hidden && card_[p] != kNoCard ? card_[p] : -1, kCards);
    w.flag(hidden);  // chosen, not yet revealed
    if (present)
      w.scaled(yurt_[p], kFoods, kRules.yurt_limit);
    else
      w.zeros(kFoods);
    for (int pos = 0; pos < kPositions; ++pos) w.one_hot(present && tower_[p][pos] != kEmpty ? tower_[p][pos] : -1, kStoneKinds);
  }
  w.scaled(bag_, kPieceKinds, kRules.stones_per_colour);
  w.scaled(market_, kFoods, kRules.food_per_kind);
  for (int c = 0; c < kCarts; ++c) {
    int station = -1;
    for (int st = 0; st < stations(); ++st)
      if (cart_at_[st] == c) station = (st - seat + stations()) % stations();
    w.flag(cart_in_play(c));
    w.one_hot(station, kCarts);
    w.scaled(cart_stones_[c], kStoneKinds, kRules.cart_stones);
    w.scaled(cart_food_[c], kFoods, kRules.cart_food);
  }
  w.scaled(bought_, kStoneKinds, kRules.max_stones_bought);
  w.scaled(paid_, kFoods, kRules.cart_food);
  w.scaled(drawn_, kStoneKinds, kRules.market_draw);
  w.value(static_cast<double>(draws_) / kRules.market_draw);
  return w.size();
}

// §6, E2 [R]: the game ends at the end check of round 100 at the latest; a round is one joint move
// (Sunrise) and one Noon turn per player.
int State::max_game_length() const { return kRules.max_rounds * (1 + players_ * kMaxDecisionsPerTurn); }

}  // namespace kibitz::yak
