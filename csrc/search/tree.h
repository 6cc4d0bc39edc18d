// The search tree: a flat arena of nodes, children as sibling lists, keyed by what the tree's
// observer saw of the move (an action id, or a chance outcome tagged kChanceToken).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
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
static_assert(sizeof(Node) == 32, "a node is 32 bytes: two to a cache line");

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

// A growable array of trivially copyable records that grows with realloc, so that a large one
// grows in place or by remapping its pages (glibc's mremap) rather than by copying into a second
// buffer: the old and the new copy are never both resident. Its capacity is what it has
// allocated, which the memory budget counts (Tree).
template <class T>
class Arena {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&& other) noexcept { swap(other); }
  Arena& operator=(Arena&& other) noexcept {
    swap(other);
    return *this;
  }
  ~Arena() { std::free(data_); }

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t bytes() const { return capacity_ * sizeof(T); }
  void clear() { size_ = 0; }
  // Grows the capacity to n records (never shrinks it).
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    void* grown = std::realloc(data_, n * sizeof(T));
    if (grown == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(grown);
    capacity_ = n;
  }
  // Appends within the capacity (the caller has made room).
  void push_back(const T& value) { data_[size_++] = value; }

 private:
  void swap(Arena& other) noexcept {
    std::swap(data_, other.data_), std::swap(size_, other.size_), std::swap(capacity_, other.capacity_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

// Iterations one tree may take before a counter could wrap (hours at full speed).
inline constexpr std::uint64_t kMaxTreeIterations = 0xFFFFFFFFull - 1;

class Tree {
 public:
  // The memory budget is `max_nodes` 32-byte records' worth of bytes: what the tree's two arenas
  // (nodes and the simultaneous nodes' choice statistics) have allocated, capacity and not only
  // the records in use, stays within it. `reserve` nodes are allocated up front.
  void reset(std::size_t reserve, std::size_t max_nodes) {
    budget_ = std::max<std::size_t>(max_nodes, 1) * sizeof(Node);
    full_ = false;
    nodes_.clear();
    choices_.clear();
    const std::size_t room = std::max<std::size_t>((budget_ - std::min(budget_, choices_.bytes())) / sizeof(Node), 1);  // the root, always
    nodes_.reserve(std::min(std::max<std::size_t>(reserve, 1), room));
    nodes_.push_back(Node{});
  }

  static constexpr std::uint32_t root() { return 0; }
  Node& operator[](std::uint32_t i) { return nodes_[i]; }
  const Node& operator[](std::uint32_t i) const { return nodes_[i]; }
  // Records in use: nodes and ChoiceStats.
  std::size_t size() const { return nodes_.size() + choices_.size(); }
  // Bytes allocated for the tree: what the budget counts.
  std::size_t bytes() const { return nodes_.bytes() + choices_.bytes(); }
  // The budget stopped the tree growing: a node or a choice's statistics found no room.
  bool full() const { return full_; }

  std::uint32_t find_child(std::uint32_t parent, Action token) const {
    for (std::uint32_t c = nodes_[parent].first_child; c != kNoNode; c = nodes_[c].next_sibling)
      if (nodes_[c].token == token) return c;
    return kNoNode;
  }

  // The new child, or kNoNode when the tree is full: the walk then leaves the tree there.
  std::uint32_t add_child(std::uint32_t parent, Action token) {
    if (!make_room(nodes_, choices_, 1)) return kNoNode;
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
      if (!make_room(choices_, nodes_, static_cast<std::size_t>(n))) return false;
      header = add_child(node, kSeatToken | static_cast<Action>(seat));
      if (header == kNoNode) return false;
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
        const bool in_place = h.availability + h.visits == choices_.size();
        if (!make_room(choices_, nodes_, in_place ? 1 : h.visits + 1)) {
          slots.resize(mark);
          return false;
        }
        if (!in_place) {  // the run cannot grow in place
          const std::uint32_t moved = static_cast<std::uint32_t>(choices_.size());
          for (std::uint32_t j = 0; j < h.visits; ++j) choices_.push_back(choices_[h.availability + j]);
          for (std::size_t k = mark; k < slots.size(); ++k) slots[k] = slots[k] - h.availability + moved;
          h.availability = moved;
        }
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
  // Room in `arena` for `n` more records, growing it (doubling, at least 16) within what the
  // budget leaves beside `other`'s allocation; false, and the tree full, when there is none.
  template <class T, class U>
  bool make_room(Arena<T>& arena, const Arena<U>& other, std::size_t n) {
    const std::size_t needed = arena.size() + n;
    if (needed <= arena.capacity()) return true;
    const std::size_t most = (budget_ - std::min(budget_, other.bytes())) / sizeof(T);
    if (needed > most) {
      full_ = true;
      return false;
    }
    arena.reserve(std::min(std::max({arena.capacity() * 2, needed, std::size_t{16}}), most));
    return true;
  }

  Arena<Node> nodes_;
  Arena<ChoiceStats> choices_;  // the runs of the simultaneous nodes' choosing seats
  std::size_t budget_ = sizeof(Node);  // bytes
  bool full_ = false;
};

}  // namespace kibitz::search
