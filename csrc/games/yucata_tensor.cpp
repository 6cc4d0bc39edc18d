// Yucata': the observation tensor of a seat and the game-length bound (core/tensor.h). Perfect
// information, so the tensor is the whole state; the layout is documented in docs/games/yucata.md
// ("Observation tensor"). Block k describes seat (seat + k) mod players.
#include "core/tensor.h"
#include "games/yucata.h"

namespace kibitz::yucata {

int State::observation_tensor(int seat, float* out) const {
  TensorWriter w(out);
  const int n = players_;
  for (int k = 0; k < kMaxPlayers; ++k) {
    const bool present = k < n;
    const int p = (seat + k) % n;
    w.flag(present);
    w.flag(present && !is_terminal() && to_move_ == p);
    w.flag(present && red_ == p);
    w.value(present ? static_cast<double>(pos_[p]) / kEnd : 0.0);
    w.value(present ? static_cast<double>(pale_[p]) / kPaleStones : 0.0);
    w.value(present ? static_cast<double>(dark_[p]) / kDarkStones : 0.0);
    for (int c = 0; c < kCards; ++c) w.flag(present && (hand_[p] >> c & 1));
  }
  for (int s = kFirstStone; s < kEnd; ++s) w.flag(dark_spaces_ >> s & 1);  // the layout
  for (int s = kFirstStone; s < kEnd; ++s) w.flag(s > lead_);               // the stones still there
  w.value(static_cast<double>(lead_) / kEnd);
  w.one_hot(prev_card_, kNoCard + 1);
  w.one_hot(prev_eff_, kNoCard + 1);
  w.value(static_cast<double>(moved_) / kEnd);
  w.value(static_cast<double>(turn_) / max_game_length());
  w.flag(q_ == QReading::kDistance);
  w.flag(tiebreak_ == Tiebreak::kDark);
  return w.size();
}

// §6, A7, A8: every card moves the mover's amulet forward (a number card n spaces past its start,
// S to one space past the lead, Q as a previous play), and the game ends when an amulet reaches
// space 39. So each player makes at most 38 moves that do not end the game: 38 N + 1 turns.
int State::max_game_length() const { return (kEnd - 1) * players_ + 1; }

}  // namespace kibitz::yucata
