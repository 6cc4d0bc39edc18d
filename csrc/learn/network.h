// A trained evaluator for the search: a small residual MLP over one seat's observation tensor
// with a value head (every seat's expected reward) and a policy head (a logit per action id),
// read from a kibitz network file (docs/learning.md, "The network file"). Python trains and
// writes it (python/kibitz/learn.py); the search evaluates it here, in C++, with no Python.
//
//   h = relu(x W_in + b_in)                                  the trunk's first layer
//   h = relu(h + relu(h W_1 + b_1) W_2 + b_2)                each residual block (He et al. 2016)
//   values = sigmoid(h W_v + b_v)                            value of each relative seat, in [0, 1]
//   logits = h W_p + b_p                                     the policy, softmax over the legal ids
//
// Every W is stored inputs × outputs (row i holds input i's weights to every output), so a
// layer adds one row per non-zero input: observation tensors are mostly zeros and ReLU zeroes
// about half of each hidden layer, and those rows are skipped.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kibitz::learn {

inline constexpr std::uint32_t kNetworkFormat = 1;        // the version this kibitz writes and reads
inline constexpr char kNetworkMagic[9] = "KIBITZNN";       // the first 8 bytes of every network file

// The shape of a network: what its file's header says.
struct Architecture {
  std::string game;            // the registry name of the game it was trained for
  std::uint32_t players = 0;   // value outputs: one per relative seat
  std::uint32_t inputs = 0;    // the game's observation tensor size
  std::uint32_t actions = 0;   // policy outputs: the game's max_actions
  std::uint32_t hidden = 0;    // width of the trunk
  std::uint32_t blocks = 0;    // residual blocks after the first layer
  // The number of float weights of this shape, in file order.
  std::uint64_t weight_count() const;
};

// One fully connected layer, y = x W + b, W stored inputs × outputs.
struct Dense {
  std::uint32_t in = 0, out = 0;
  std::vector<float> w, b;
  // y = x W + b (y has `out` entries); inputs that are 0 are skipped. With `add`, y += x W + b.
  void apply(const float* x, float* y, bool add = false) const;
};

class Network {
 public:
  // Reads a network file; throws OptionError naming the file and what is wrong with it: not a
  // network file, a format this kibitz does not read, an impossible shape, a file cut short or
  // too long, a checksum that does not match.
  static Network read(const std::string& path);
  // The same from the file's bytes; `label` names it in errors.
  static Network parse(std::string_view bytes, const std::string& label);

  const Architecture& architecture() const { return shape_; }

  // The trunk's last hidden layer for observation x (inputs floats) into h (hidden floats).
  void trunk(const float* x, float* h) const;
  // values[k] for relative seat k (players entries), from the trunk's output.
  void value(const float* h, float* values) const;
  // The logit of one action, from the trunk's output.
  float logit(const float* h, std::uint32_t action) const;
  // Every action's logit (actions entries).
  void logits(const float* h, float* out) const;

  // The weights in file order (for Python: reading a file back into numpy arrays).
  std::vector<const Dense*> layers() const;

 private:
  Architecture shape_;
  Dense input_;
  std::vector<Dense> blocks_;  // two layers per block
  Dense value_;
  Dense policy_;
  std::vector<float> policy_by_action_;  // W_p transposed: actions × hidden, a legal action's row is contiguous
};

// CRC-32 (the polynomial of zlib, PNG and Python's zlib.crc32) of `bytes`.
std::uint32_t crc32(std::string_view bytes);

}  // namespace kibitz::learn
