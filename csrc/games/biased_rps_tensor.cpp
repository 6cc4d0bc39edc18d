// Biased rock-paper-scissors: the observation tensor of a seat and the game-length bound
// (core/tensor.h; layout in docs/games/biased_rps.md). Block k describes seat (seat + k) mod 2.
#include "core/tensor.h"
#include "games/biased_rps.h"

namespace kibitz::brps {

int State::observation_tensor(int seat, float* out) const {
  TensorWriter w(out);
  for (int k = 0; k < kMaxPlayers; ++k) {  // the choices are shown once both are made
    const int p = (seat + k) % 2;
    w.one_hot(choice_[p] == kNone ? -1 : choice_[p], kChoices);
  }
  w.one_hot(winner_ == kNone || winner_ == kTie ? -1 : (winner_ - seat + 2) % 2, kMaxPlayers);
  w.flag(winner_ == kTie);
  return w.size();
}

int State::max_game_length() const { return 1; }  // one joint move

}  // namespace kibitz::brps
