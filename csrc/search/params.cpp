#include "search/params.h"

#include <algorithm>

namespace kibitz::search {

void Progress::publish(int thread, RootTable table) {
  std::lock_guard lock(mutex_);
  by_thread_[thread] = std::move(table);
}

std::vector<ActionStats> sorted_stats(const RootTable& table) {
  std::vector<ActionStats> stats;
  double weight = 0;
  for (const auto& [a, t] : table)
    if (t.visits) weight += t.weight;
  for (const auto& [a, t] : table)
    if (t.visits) stats.push_back({a, t.visits, t.reward / t.visits, t.proof, weight > 0 ? t.weight / weight : 0});
  std::stable_sort(stats.begin(), stats.end(), [](const ActionStats& x, const ActionStats& y) { return x.visits > y.visits; });
  return stats;
}

double root_value(const std::vector<ActionStats>& stats) {
  double visits = 0, reward = 0;
  for (const auto& s : stats) visits += s.visits, reward += s.mean_reward * s.visits;
  return visits ? reward / visits : 0;
}

void merge_root(RootTable& into, const RootTable& from) {
  for (const auto& [a, t] : from) {
    RootTotals& sum = into[a];
    sum.visits += t.visits;
    sum.reward += t.reward;
    sum.weight += t.weight;
    if (t.proof != Proof::kNone) sum.proof = t.proof;
  }
}

std::vector<ActionStats> Progress::root_stats() const {
  RootTable merged;
  std::lock_guard lock(mutex_);
  for (const auto& [thread, table] : by_thread_) merge_root(merged, table);
  return sorted_stats(merged);
}

}  // namespace kibitz::search
