// Reading a kibitz network file and evaluating the network (network.h). The file (docs/learning.md):
//
//   8 bytes  "KIBITZNN"
//   u32      format version (1)
//   u32      length of the game's name, then its bytes (at most 64)
//   u32 × 5  players, inputs, actions, hidden, blocks
//   u64      the number of float32 weights that follow
//   f32 …    W_in, b_in, then per block W_1, b_1, W_2, b_2, then W_v, b_v, W_p, b_p
//   u32      CRC-32 of every byte before it
//
// Every number is little-endian; every W is inputs × outputs, row-major.
#include "learn/network.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/game.h"

namespace kibitz::learn {

static_assert(std::endian::native == std::endian::little, "network files are read as little-endian");

namespace {

// Bounds on a header's numbers: far above any network kibitz trains, low enough that a
// damaged header cannot ask for gigabytes before the checksum is read.
constexpr std::uint32_t kMaxName = 64, kMaxPlayers = 16, kMaxInputs = 1 << 20, kMaxActions = 1 << 16, kMaxHidden = 4096,
                        kMaxBlocks = 64;
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;  // 1 GiB; a Just 4 Fun Colours network has 100 kB

// Reads the file's fields in order, each check naming the file.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& label) : bytes_(bytes), label_(label) {}

  template <class T>
  T number(const char* what) {
    T value;
    take(&value, sizeof value, what);
    return value;
  }
  std::string text(std::size_t n, const char* what) {
    std::string out(n, '\0');
    take(out.data(), n, what);
    return out;
  }
  void floats(std::vector<float>& out, std::size_t n) {
    out.resize(n);
    take(out.data(), n * sizeof(float), "the weights");
  }
  std::size_t offset() const { return at_; }
  [[noreturn]] void fail(const std::string& what) const { throw OptionError("network file " + label_ + ": " + what); }

 private:
  void take(void* out, std::size_t n, const char* what) {
    if (bytes_.size() - at_ < n)
      fail("it is truncated: it ends at byte " + std::to_string(bytes_.size()) + ", inside " + what);
    std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }

  std::string_view bytes_;
  const std::string& label_;
  std::size_t at_ = 0;
};

void check_bound(const Reader& in, const char* field, std::uint32_t value, std::uint32_t high) {
  if (value < 1 || value > high)
    in.fail(std::string("its header gives ") + field + " = " + std::to_string(value) + ", outside 1.." + std::to_string(high) +
            " (a damaged file?)");
}

Dense read_dense(Reader& in, std::uint32_t inputs, std::uint32_t outputs) {
  Dense layer;
  layer.in = inputs;
  layer.out = outputs;
  in.floats(layer.w, std::size_t{inputs} * outputs);
  in.floats(layer.b, outputs);
  return layer;
}

void relu(float* x, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) x[i] = std::max(x[i], 0.0f);
}

// Per-thread scratch for a residual block's inner layer: the search calls the network from every
// thread at once, and nothing is allocated per call once it has grown to the widest network.
float* scratch(std::uint32_t n) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

}  // namespace

std::uint64_t Architecture::weight_count() const {
  auto dense = [](std::uint64_t in, std::uint64_t out) { return in * out + out; };
  return dense(inputs, hidden) + blocks * 2 * dense(hidden, hidden) + dense(hidden, players) + dense(hidden, actions);
}

void Dense::apply(const float* x, float* y, bool add) const {
  if (add)
    for (std::uint32_t j = 0; j < out; ++j) y[j] += b[j];
  else
    std::copy(b.begin(), b.end(), y);
  for (std::uint32_t i = 0; i < in; ++i) {
    const float xi = x[i];
    if (xi == 0.0f) continue;
    const float* row = w.data() + std::size_t{i} * out;
    for (std::uint32_t j = 0; j < out; ++j) y[j] += xi * row[j];
  }
}

Network Network::read(const std::string& path) {
  // A path may come from a bot spec or an option: only a regular file of a network's size is read.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw OptionError("network file " + path + (std::filesystem::exists(path, error) ? ": not a regular file" : ": no such file"));
  if (const auto size = std::filesystem::file_size(path, error); !error && size > kMaxFileBytes)
    throw OptionError("network file " + path + ": it has " + std::to_string(size) + " bytes, more than a network file's " +
                      std::to_string(kMaxFileBytes) + " (not a network file?)");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw OptionError("network file " + path + ": cannot open it");
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw OptionError("network file " + path + ": cannot read it");
  return parse(bytes, path);
}

Network Network::parse(std::string_view bytes, const std::string& label) {
  Reader in(bytes, label);
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kNetworkMagic, 8) != 0)
    in.fail("not a kibitz network file (it does not start with " + std::string(kNetworkMagic) + ")");
  in.text(8, "the magic");
  const auto format = in.number<std::uint32_t>("the format version");
  if (format != kNetworkFormat)
    in.fail("it is in network format " + std::to_string(format) + "; this kibitz reads format " + std::to_string(kNetworkFormat) +
            (format > kNetworkFormat ? " (a newer kibitz wrote it)" : ""));
  Network net;
  Architecture& shape = net.shape_;
  const auto name_length = in.number<std::uint32_t>("the game's name");
  check_bound(in, "the length of the game's name", name_length, kMaxName);
  shape.game = in.text(name_length, "the game's name");
  shape.players = in.number<std::uint32_t>("the header");
  shape.inputs = in.number<std::uint32_t>("the header");
  shape.actions = in.number<std::uint32_t>("the header");
  shape.hidden = in.number<std::uint32_t>("the header");
  shape.blocks = in.number<std::uint32_t>("the header");
  check_bound(in, "players", shape.players, kMaxPlayers);
  check_bound(in, "inputs", shape.inputs, kMaxInputs);
  check_bound(in, "actions", shape.actions, kMaxActions);
  check_bound(in, "hidden", shape.hidden, kMaxHidden);
  if (shape.blocks > kMaxBlocks)
    in.fail("its header gives blocks = " + std::to_string(shape.blocks) + ", above " + std::to_string(kMaxBlocks) + " (a damaged file?)");
  const auto count = in.number<std::uint64_t>("the header");
  if (count != shape.weight_count())
    in.fail("its header gives " + std::to_string(count) + " weights, but its shape needs " + std::to_string(shape.weight_count()));
  const std::size_t end = in.offset() + count * sizeof(float);  // where the checksum starts
  if (bytes.size() < end + 4)
    in.fail("it is truncated: " + std::to_string(bytes.size()) + " bytes, where its header needs " + std::to_string(end + 4));
  if (bytes.size() > end + 4)
    in.fail(std::to_string(bytes.size() - end - 4) + " bytes follow the end of the network (a damaged file, or two joined?)");
  std::uint32_t stored;
  std::memcpy(&stored, bytes.data() + end, 4);
  if (stored != crc32(bytes.substr(0, end))) in.fail("it is corrupt: its checksum does not match its contents");

  net.input_ = read_dense(in, shape.inputs, shape.hidden);
  for (std::uint32_t b = 0; b < 2 * shape.blocks; ++b) net.blocks_.push_back(read_dense(in, shape.hidden, shape.hidden));
  net.value_ = read_dense(in, shape.hidden, shape.players);
  net.policy_ = read_dense(in, shape.hidden, shape.actions);
  for (const Dense* layer : net.layers())
    for (const std::vector<float>* v : {&layer->w, &layer->b})
      if (!std::all_of(v->begin(), v->end(), [](float x) { return std::isfinite(x); })) in.fail("a weight is not a finite number");
  net.policy_by_action_.resize(std::size_t{shape.actions} * shape.hidden);
  for (std::uint32_t j = 0; j < shape.hidden; ++j)
    for (std::uint32_t a = 0; a < shape.actions; ++a)
      net.policy_by_action_[std::size_t{a} * shape.hidden + j] = net.policy_.w[std::size_t{j} * shape.actions + a];
  return net;
}

void Network::trunk(const float* x, float* h) const {
  input_.apply(x, h);
  relu(h, shape_.hidden);
  float* t = scratch(shape_.hidden);
  for (std::size_t b = 0; b < blocks_.size(); b += 2) {
    blocks_[b].apply(h, t);
    relu(t, shape_.hidden);
    blocks_[b + 1].apply(t, h, /*add=*/true);
    relu(h, shape_.hidden);
  }
}

void Network::value(const float* h, float* values) const {
  value_.apply(h, values);
  for (std::uint32_t k = 0; k < shape_.players; ++k) values[k] = 1.0f / (1.0f + std::exp(-values[k]));
}

float Network::logit(const float* h, std::uint32_t action) const {
  const float* row = policy_by_action_.data() + std::size_t{action} * shape_.hidden;
  float sum = policy_.b[action];
  for (std::uint32_t j = 0; j < shape_.hidden; ++j) sum += h[j] * row[j];
  return sum;
}

void Network::logits(const float* h, float* out) const { policy_.apply(h, out); }

std::vector<const Dense*> Network::layers() const {
  std::vector<const Dense*> all{&input_};
  for (const Dense& d : blocks_) all.push_back(&d);
  all.push_back(&value_);
  all.push_back(&policy_);
  return all;
}

std::uint32_t crc32(std::string_view bytes) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (const char byte : bytes) c = table[(c ^ static_cast<std::uint8_t>(byte)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace kibitz::learn
