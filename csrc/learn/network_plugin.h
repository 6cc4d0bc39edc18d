// A network (learn/network.h) behind the plug-in ABI (plugin/kibitz_plugin.h), so that the search
// uses it through the hooks it already has (search/plugin.h), with no branch of its own: the value
// head is the leaf evaluator (where a rollout stops, Params::eval_depth decisions after the tree),
// the policy head the rollout policy (an action drawn from the softmax over the legal ids).
#pragma once
#include <string>

#include "learn/network.h"
#include "plugin/kibitz_plugin.h"

namespace kibitz::learn {

class NetworkPlugin {
 public:
  // `name` is shown in the search's errors; the plug-in is written for the network's game, so the
  // search refuses it for any other.
  NetworkPlugin(Network network, std::string name);
  NetworkPlugin(const NetworkPlugin&) = delete;  // plugin_ points at this object
  NetworkPlugin& operator=(const NetworkPlugin&) = delete;

  const kibitz_plugin& plugin() const { return plugin_; }
  const Network& network() const { return network_; }

 private:
  static std::int32_t evaluate(void* context, const float* observation, std::int32_t size, std::int32_t seat, std::int32_t players,
                               float* values);
  static std::int32_t choose(void* context, const float* observation, std::int32_t size, const std::uint8_t* legal, std::int32_t n,
                             std::int32_t seat, std::uint64_t random);
  static const char* error(void* context);
  // False, with the reason kept for error(), when the search's tensor is not the network's input.
  bool fits(std::int32_t size) const;

  Network network_;
  std::string name_, game_;
  kibitz_plugin plugin_{};
};

}  // namespace kibitz::learn
