// The search tree: a flat arena of nodes, children as sibling lists, keyed by what the tree's
// observer saw of the move (an action id, or a chance outcome tagged kChanceToken).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/game.h"

namespace kibitz::search {

inline constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;
inline constexpr Action kChanceToken = 1u << 30;  // keeps chance outcomes apart from decisions

struct Node {
  std::uint32_t first_child = kNoNode;
  std::uint32_t next_sibling = kNoNode;
  Action token = 0;
  std::uint32_t visits = 0;
  std::uint32_t availability = 0;  // ISMCTS: times this edge was legal when its parent was visited
  double reward = 0;  // sum of the rewards of the player who chose this edge (unused for chance)
};

class Tree {
 public:
  void reset(std::size_t reserve) {
    nodes_.clear();
    nodes_.reserve(reserve);
    nodes_.push_back(Node{});
  }
  static constexpr std::uint32_t root() { return 0; }
  Node& operator[](std::uint32_t i) { return nodes_[i]; }
  const Node& operator[](std::uint32_t i) const { return nodes_[i]; }
  std::size_t size() const { return nodes_.size(); }

  std::uint32_t find_child(std::uint32_t parent, Action token) const {
    for (std::uint32_t c = nodes_[parent].first_child; c != kNoNode; c = nodes_[c].next_sibling)
      if (nodes_[c].token == token) return c;
    return kNoNode;
  }

  std::uint32_t add_child(std::uint32_t parent, Action token) {
    const auto child = static_cast<std::uint32_t>(nodes_.size());
    Node node;
    node.token = token;
    node.next_sibling = nodes_[parent].first_child;
    nodes_.push_back(node);
    nodes_[parent].first_child = child;
    return child;
  }

  std::uint32_t child(std::uint32_t parent, Action token) {
    const std::uint32_t c = find_child(parent, token);
    return c != kNoNode ? c : add_child(parent, token);
  }

 private:
  std::vector<Node> nodes_;
};

}  // namespace kibitz::search
