// Goofspiel: the observation tensor of a seat and the game-length bound (core/tensor.h; layout in
// docs/games/goofspiel.md). Nothing is hidden. Block k describes seat (seat + k) mod 2.
#include "core/tensor.h"
#include "games/goofspiel.h"

namespace kibitz::goofspiel {

int State::observation_tensor(int seat, float* out) const {
  TensorWriter w(out);
  const double most_points = kMaxCards * (kMaxCards + 1) / 2.0;
  for (int k = 0; k < kMaxPlayers; ++k) {
    const int p = (seat + k) % 2;
    for (int v = 0; v < kMaxCards; ++v) w.flag(hand_[p] >> v & 1);
    w.value(points_[p] / most_points);
  }
  for (int v = 0; v < kMaxCards; ++v) w.flag(deck_ >> v & 1);
  w.one_hot(prize_ - 1, kMaxCards);
  w.value(static_cast<double>(cards_) / kMaxCards);
  return w.size();
}

int State::max_game_length() const { return cards_; }  // one joint move (both bids) per prize

}  // namespace kibitz::goofspiel
