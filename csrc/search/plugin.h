// The search's side of the plug-in ABI (plugin/kibitz_plugin.h, docs/plugins.md): checking a
// plug-in against the game, and calling its rollout policy and leaf evaluator with a seat's
// observation tensor and legal-action mask, written into per-searcher buffers (nothing is
// allocated per simulated move).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/game.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "plugin/kibitz_plugin.h"

namespace kibitz::search {

// A plug-in failed during a search: it reported an error, chose an action that is not legal,
// or gave a value outside [0, 1]. Python sees kibitz.PluginError (a RuntimeError).
struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::string plugin_name(const kibitz_plugin& p) { return p.name && *p.name ? p.name : "unnamed"; }

// Refuses (OptionError) a plug-in of another ABI version, with neither function, or written
// for another game than S.
template <Game S>
void check_plugin(const kibitz_plugin* plugin) {
  if (!plugin) return;
  const std::string name = "plug-in '" + plugin_name(*plugin) + "'";
  if (plugin->abi_version != KIBITZ_PLUGIN_ABI_VERSION)
    throw OptionError(name + " is built for plug-in ABI " + std::to_string(plugin->abi_version) + "; this kibitz has ABI " +
                      std::to_string(KIBITZ_PLUGIN_ABI_VERSION) + " (rebuild the plug-in against it)");
  if (!plugin->choose && !plugin->evaluate) throw OptionError(name + " has neither a rollout policy (choose) nor an evaluator (evaluate)");
  if (plugin->game && *plugin->game && std::string(plugin->game) != S::kName)
    throw OptionError(name + " is written for " + plugin->game + ", not " + S::kName);
  if constexpr (!HasObservationTensor<S>) throw OptionError(std::string(S::kName) + " has no observation tensor, which plug-ins read");
}

// One searcher's handle on the plug-in: the buffers it writes the tensor and the mask into, and
// the checked calls.
template <Game S>
class PluginHooks {
 public:
  explicit PluginHooks(const kibitz_plugin* plugin)
      : plugin_(plugin), chooses_(plugin && plugin->choose), evaluates_(plugin && plugin->evaluate) {}
  bool active() const { return plugin_ != nullptr; }
  bool chooses() const { return chooses_; }
  bool evaluates() const { return evaluates_; }

  // The plug-in's action for `seat` among the `n` legal `actions`.
  Action choose(const S& state, int seat, const Action* actions, int n, Rng& rng) {
    write_observation(state, seat);
    for (int i = 0; i < n; ++i) mask_[actions[i]] = 1;
    const std::int32_t chosen = plugin_->choose(plugin_->context, observation_.data(), static_cast<std::int32_t>(observation_.size()),
                                                mask_.data(), S::kMaxActions, seat, rng.next());
    const bool legal = chosen >= 0 && chosen < S::kMaxActions && mask_[chosen];
    for (int i = 0; i < n; ++i) mask_[actions[i]] = 0;
    if (chosen == KIBITZ_PLUGIN_ERROR) fail("choose failed");
    if (!legal) fail("chose " + std::to_string(chosen) + ", which is not a legal action for seat " + std::to_string(seat));
    return static_cast<Action>(chosen);
  }

  // Every seat's reward from the evaluator, as `seat` sees the position.
  void evaluate(const S& state, int seat, double* reward) {
    write_observation(state, seat);
    const int n = state.num_players();
    std::array<float, S::kMaxPlayers> values{};
    if (plugin_->evaluate(plugin_->context, observation_.data(), static_cast<std::int32_t>(observation_.size()), seat, n, values.data()) != 0)
      fail("evaluate failed");
    for (int k = 0; k < n; ++k) {
      if (!(values[k] >= 0 && values[k] <= 1))
        fail("evaluate gave " + std::to_string(values[k]) + " for relative seat " + std::to_string(k) + "; values must lie in [0, 1]");
      reward[(seat + k) % n] = values[k];
    }
  }

 private:
  // The buffer is sized at the first call (the size is a constant of the game), once per searcher.
  void write_observation(const S& state, int seat) {
    if constexpr (HasObservationTensor<S>) {
      if (observation_.empty()) observation_.resize(static_cast<std::size_t>(state.observation_tensor(seat, nullptr)));
      state.observation_tensor(seat, observation_.data());
    }
  }
  [[noreturn]] void fail(const std::string& what) const {
    std::string message = "plug-in '" + plugin_name(*plugin_) + "' " + what;
    const char* detail = plugin_->error ? plugin_->error(plugin_->context) : nullptr;
    if (detail && *detail) message += ": " + std::string(detail);
    throw PluginError(message);
  }

  const kibitz_plugin* plugin_;
  bool chooses_, evaluates_;
  std::vector<float> observation_;
  std::array<std::uint8_t, S::kMaxActions> mask_{};
};

}  // namespace kibitz::search
