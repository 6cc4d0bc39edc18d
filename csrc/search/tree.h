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

// A simultaneous node's child that leads to one choosing seat's statistics (kSeatToken | seat):
// its `availability` is where the seat's run of ChoiceStats starts, its `visits` the run's length.
inline constexpr Action kSeatToken = 1u << 29;

// One choosing seat's statistics for one of its actions at a simultaneous node, which the
// decoupled selection (Params::simultaneous) reads: the seat's own, never the other seats'.
struct ChoiceStats {
  Action action = 0;
  std::uint32_t visits = 0;  // times the seat chose it here
  double reward = 0;         // the seat's summed reward over those times
  double regret = 0;         // rm: cumulative regret; exp3: summed importance-weighted reward
  double strategy = 0;       // rm, exp3: summed probability of choosing it (the average strategy)
};
static_assert(sizeof(ChoiceStats) == sizeof(Node), "the memory budget counts choice statistics as nodes");

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
    choices_.clear();
  }

  static constexpr std::uint32_t root() { return 0; }
  Node& operator[](std::uint32_t i) { return nodes_[i]; }
  const Node& operator[](std::uint32_t i) const { return nodes_[i]; }
  // Records of 32 bytes: nodes and ChoiceStats.
  std::size_t size() const { return nodes_.size() + choices_.size(); }
  bool full() const { return size() >= max_nodes_; }

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

  ChoiceStats& choice(std::uint32_t i) { return choices_[i]; }
  const ChoiceStats& choice(std::uint32_t i) const { return choices_[i]; }

  // The run of `seat`'s ChoiceStats at the simultaneous node `node` (kNoNode: none yet).
  std::uint32_t choice_header(std::uint32_t node, int seat) const { return find_child(node, kSeatToken | static_cast<Action>(seat)); }

  // Appends to `slots`, for each of the n actions of `legal`, the index of its ChoiceStats in
  // `seat`'s run at `node`, creating the run and any entry missing (an action legal now that was
  // not before: the run moves to the end of the arena when it cannot grow in place). False, and
  // `slots` unchanged, once the tree is full.
  bool choice_slots(std::uint32_t node, int seat, const Action* legal, int n, std::vector<std::uint32_t>& slots) {
    std::uint32_t header = choice_header(node, seat);
    if (header == kNoNode) {
      if (size() + 1 + static_cast<std::size_t>(n) > max_nodes_) return false;
      header = add_child(node, kSeatToken | static_cast<Action>(seat));
      nodes_[header].availability = static_cast<std::uint32_t>(choices_.size());
      nodes_[header].visits = 0;
    }
    const std::size_t mark = slots.size();
    for (int i = 0; i < n; ++i) {
      Node& h = nodes_[header];
      std::uint32_t at = kNoNode;
      if (i < static_cast<int>(h.visits) && choices_[h.availability + i].action == legal[i]) {
        at = h.availability + i;  // the usual case: the same legal list as before, in its order
      } else {
        for (std::uint32_t j = 0; j < h.visits && at == kNoNode; ++j)
          if (choices_[h.availability + j].action == legal[i]) at = h.availability + j;
      }
      if (at == kNoNode) {
        if (full()) {
          slots.resize(mark);
          return false;
        }
        if (h.availability + h.visits != choices_.size()) {  // the run cannot grow in place
          const std::uint32_t moved = static_cast<std::uint32_t>(choices_.size());
          for (std::uint32_t j = 0; j < h.visits; ++j) choices_.push_back(choices_[h.availability + j]);
          for (std::size_t k = mark; k < slots.size(); ++k) slots[k] = slots[k] - h.availability + moved;
          h.availability = moved;
        }
        if (choices_.size() == choices_.capacity()) choices_.reserve(std::min(std::max<std::size_t>(choices_.capacity() * 2, 16), max_nodes_));
        ChoiceStats entry;
        entry.action = legal[i];
        choices_.push_back(entry);
        at = h.availability + h.visits++;
      }
      slots.push_back(at);
    }
    return true;
  }

  std::uint32_t child(std::uint32_t parent, Action token) {
    const std::uint32_t c = find_child(parent, token);
    return c != kNoNode ? c : add_child(parent, token);
  }

 private:
  std::vector<Node> nodes_;
  std::vector<ChoiceStats> choices_;  // the runs of the simultaneous nodes' choosing seats
  std::size_t max_nodes_ = 1;
};

}  // namespace kibitz::search
