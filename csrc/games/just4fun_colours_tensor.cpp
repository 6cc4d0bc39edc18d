// Just 4 Fun Colours: the observation tensor of a seat and the game-length bound (core/tensor.h).
// The layout is documented in docs/games/just4fun_colours.md ("Observation tensor"). Seats are
// relative: block k describes seat (seat + k) mod players, so block 0 is always the observer.
#include "core/tensor.h"
#include "games/just4fun_colours.h"

namespace kibitz::j4fc {

int State::observation_tensor(int seat, float* out) const {
  TensorWriter w(out);
  const int n = players_;
  auto relative = [&](int p) { return p < 0 ? -1 : (p - seat + n) % n; };
  for (int f = 0; f < kFields; ++f) w.value(static_cast<double>(height_[f]) / kMaxHeight);  // the board
  for (int f = 0; f < kFields; ++f) w.one_hot(relative(top_[f]), kMaxPlayers);              // its top stones' owners
  w.scaled(hand_[seat], kColours, kCardsPerColour);                                         // the own hand only
  w.scaled(discard_, kColours, kCardsPerColour);                                            // the discard pile is open
  w.value(static_cast<double>(sum(stock_)) / (kColours * kCardsPerColour));                // the stock's size, not its cards
  w.value(static_cast<double>(pending_draws_) / kHandSize);
  for (int k = 0; k < kMaxPlayers; ++k) {
    const bool present = k < n;
    const int p = (seat + k) % n;
    w.flag(present);
    w.flag(present && !is_terminal() && current_ == p);
    w.value(present ? static_cast<double>(supply_[p]) / kStonesPerPlayer : 0.0);
    w.value(present ? static_cast<double>(boxed_[p]) / kStonesPerPlayer : 0.0);
  }
  w.flag(line_length_ == 5);
  w.one_hot(relative(winner_), kMaxPlayers);
  return w.size();
}

// §5: every turn (a placement or a blocked turn) takes one stone from the mover's supply, and a
// turn is one decision, so a game has at most 20 decisions per player.
int State::max_game_length() const { return kStonesPerPlayer * players_; }

}  // namespace kibitz::j4fc
