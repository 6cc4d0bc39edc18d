#include "learn/network_plugin.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kibitz::learn {

namespace {

thread_local std::string last_error;  // why the last call on this thread failed (the ABI's error())

float* hidden_buffer(std::uint32_t n) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

}  // namespace

NetworkPlugin::NetworkPlugin(Network network, std::string name)
    : network_(std::move(network)), name_(std::move(name)), game_(network_.architecture().game) {
  plugin_.abi_version = KIBITZ_PLUGIN_ABI_VERSION;
  plugin_.name = name_.c_str();
  plugin_.game = game_.c_str();
  plugin_.context = this;
  plugin_.choose = &NetworkPlugin::choose;
  plugin_.evaluate = &NetworkPlugin::evaluate;
  plugin_.error = &NetworkPlugin::error;
}

bool NetworkPlugin::fits(std::int32_t size) const {
  const std::uint32_t inputs = network_.architecture().inputs;
  if (size >= 0 && static_cast<std::uint32_t>(size) == inputs) return true;
  last_error = "the observation tensor has " + std::to_string(size) + " entries; the network takes " + std::to_string(inputs);
  return false;
}

std::int32_t NetworkPlugin::evaluate(void* context, const float* observation, std::int32_t size, std::int32_t, std::int32_t players,
                                     float* values) {
  const auto& self = *static_cast<const NetworkPlugin*>(context);
  const Architecture& shape = self.network_.architecture();
  if (!self.fits(size)) return KIBITZ_PLUGIN_ERROR;
  if (players < 0 || static_cast<std::uint32_t>(players) != shape.players) {
    last_error = "the network was trained for " + std::to_string(shape.players) + " players; this game has " + std::to_string(players);
    return KIBITZ_PLUGIN_ERROR;
  }
  float* h = hidden_buffer(shape.hidden);
  self.network_.trunk(observation, h);
  self.network_.value(h, values);
  return 0;
}

std::int32_t NetworkPlugin::choose(void* context, const float* observation, std::int32_t size, const std::uint8_t* legal, std::int32_t n,
                                   std::int32_t, std::uint64_t random) {
  const auto& self = *static_cast<const NetworkPlugin*>(context);
  const Architecture& shape = self.network_.architecture();
  if (!self.fits(size)) return KIBITZ_PLUGIN_ERROR;
  if (n < 0 || static_cast<std::uint32_t>(n) != shape.actions) {
    last_error = "the game has " + std::to_string(n) + " action ids; the network's policy has " + std::to_string(shape.actions);
    return KIBITZ_PLUGIN_ERROR;
  }
  float* h = hidden_buffer(shape.hidden);
  self.network_.trunk(observation, h);
  // Softmax over the legal ids, sampled by inversion with the search's random bits.
  thread_local std::vector<std::pair<std::int32_t, float>> scored;
  scored.clear();
  float top = -INFINITY;
  for (std::int32_t a = 0; a < n; ++a)
    if (legal[a]) {
      scored.emplace_back(a, self.network_.logit(h, static_cast<std::uint32_t>(a)));
      top = std::max(top, scored.back().second);
    }
  if (scored.empty()) {
    last_error = "no legal action in the mask";
    return KIBITZ_PLUGIN_ERROR;
  }
  double total = 0;
  for (auto& [a, weight] : scored) total += weight = std::exp(weight - top);
  double u = static_cast<double>(random >> 11) * 0x1.0p-53 * total;
  for (const auto& [a, weight] : scored)
    if ((u -= weight) < 0) return a;
  return scored.back().first;  // rounding
}

const char* NetworkPlugin::error(void*) { return last_error.c_str(); }

}  // namespace kibitz::learn
