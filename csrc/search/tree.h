// The search tree: a flat arena of nodes, children as sibling lists, keyed by what the tree's
// observer saw of the move (an action id, or a chance outcome tagged kChanceToken).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/game.h"

namespace kibitz::search {

inline constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;
inline constexpr Action kChanceToken = 1u << 30;  // keeps chance outcomes apart from decisions
inline constexpr std::int8_t kUnproven = -1;

struct Node {
  std::uint32_t first_child = kNoNode;
  std::uint32_t next_sibling = kNoNode;
  Action token = 0;
  // Counts stay below 2^32: a tree takes at most kMaxTreeIterations iterations.
  std::uint32_t visits = 0;
  std::uint32_t availability = 0;  // ISMCTS: times this edge was legal when its parent was visited
  // MCTS-Solver: the team that wins from the position after this edge with best play, once that
  // is proven for every state the tree's observer cannot tell apart; else kUnproven.
  std::int8_t proven = kUnproven;
  double reward = 0;  // sum of the rewards of the player who chose this edge (unused for chance)
};
static_assert(sizeof(Node) == 32, "the memory budget counts 32-byte nodes");

// Iterations one tree may take before a counter could wrap (hours at full speed).
inline constexpr std::uint64_t kMaxTreeIterations = 0xFFFFFFFFull - 1;

class Tree {
 public:
  // `max_nodes` bounds the arena (the memory budget); `reserve` is allocated up front.
  void reset(std::size_t reserve, std::size_t max_nodes) {
    max_nodes_ = std::max<std::size_t>(max_nodes, 1);
    nodes_.clear();
    nodes_.reserve(std::min(reserve, max_nodes_));
    nodes_.push_back(Node{});
  }
  static constexpr std::uint32_t root() { return 0; }
  Node& operator[](std::uint32_t i) { return nodes_[i]; }
  const Node& operator[](std::uint32_t i) const { return nodes_[i]; }
  std::size_t size() const { return nodes_.size(); }
  bool full() const { return nodes_.size() >= max_nodes_; }

  std::uint32_t find_child(std::uint32_t parent, Action token) const {
    for (std::uint32_t c = nodes_[parent].first_child; c != kNoNode; c = nodes_[c].next_sibling)
      if (nodes_[c].token == token) return c;
    return kNoNode;
  }

  // The new child, or kNoNode when the tree is full: the walk then leaves the tree there.
  std::uint32_t add_child(std::uint32_t parent, Action token) {
    if (full()) return kNoNode;
    if (nodes_.size() == nodes_.capacity()) nodes_.reserve(std::min(nodes_.capacity() * 2, max_nodes_));
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
  std::size_t max_nodes_ = 1;
};

}  // namespace kibitz::search
