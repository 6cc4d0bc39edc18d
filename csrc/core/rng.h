// Random numbers for every random choice in kibitz: one seedable generator type.
#pragma once
#include <cstdint>

namespace kibitz {

// SplitMix64: expands a user seed into generator state and derives child seeds.
constexpr std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// wyrand (Wang Yi): one 64-bit word of state and one 128-bit multiply per number; passes
// BigCrush and PractRand. Small and fast because simulations draw a number at every step.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }

  void reseed(std::uint64_t seed) { state_ = splitmix64(seed); }

  std::uint64_t next() {
    state_ += 0xA0761D6478BD642FULL;
    const __uint128_t product = static_cast<__uint128_t>(state_) * (state_ ^ 0xE7037ED1A0B428DBULL);
    return static_cast<std::uint64_t>(product >> 64) ^ static_cast<std::uint64_t>(product);
  }

  // Uniform integer in [0, bound) (Lemire's multiply-shift; bias < 2^-32 for our bounds).
  std::uint32_t below(std::uint32_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(bound)) >> 32);
  }

  // Uniform double in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// Stable 64-bit hashing of small byte ranges (information-set keys, tree keys).
constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return splitmix64(h);
}

}  // namespace kibitz
