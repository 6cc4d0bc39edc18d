// Observation tensors (docs/research.md): a flat float vector per seat holding only what that
// seat may see, written by the game beside its rules (csrc/games/<game>_tensor.cpp), never
// stored in the state. The layout of each game is documented in docs/games/<game>.md.
#pragma once
#include <concepts>

namespace kibitz {

// Writes the values of an observation tensor in order; with a null buffer it only counts them,
// which is how the size is found (the same code path, so the size and the layout cannot drift
// apart). Every block has a fixed length whatever the state is, so the size is a constant of the
// game (seats beyond num_players() are written as zeros).
class TensorWriter {
 public:
  explicit TensorWriter(float* out) : out_(out) {}
  void value(double v) {
    if (out_) out_[n_] = static_cast<float>(v);
    ++n_;
  }
  void flag(bool b) { value(b ? 1.0 : 0.0); }
  // `size` entries, 1 at `index` and 0 elsewhere; an index outside [0, size) writes all zeros
  // (for "none": no card, no holder).
  void one_hot(int index, int size) {
    for (int i = 0; i < size; ++i) flag(i == index);
  }
  // v / scale for each of the first `size` entries of an indexable range.
  template <class Range>
  void scaled(const Range& range, int size, double scale) {
    for (int i = 0; i < size; ++i) value(static_cast<double>(range[i]) / scale);
  }
  void zeros(int size) {
    for (int i = 0; i < size; ++i) value(0.0);
  }
  int size() const { return n_; }

 private:
  float* out_;
  int n_ = 0;
};

// Optional members (every kibitz game has them):
// observation_tensor(seat, out): writes seat's observation tensor into `out` (room for the
// game's size; a null `out` only counts) and returns the number of values, a constant of the game.
// It reads only what seat may see: equal views give equal tensors.
// max_game_length(): the most decisions (a joint move counts as one) any game from this state's
// options can take, a bound derived from the rules (docs/games/<game>.md); -1 when the rules set
// none (a match that adds tie-break rounds until the totals differ).
template <class S>
concept HasObservationTensor = requires(const S s, int seat, float* out) {
  { s.observation_tensor(seat, out) } -> std::convertible_to<int>;
};
template <class S>
concept HasMaxGameLength = requires(const S s) {
  { s.max_game_length() } -> std::convertible_to<int>;
};

}  // namespace kibitz
