// The move a search plays, chosen from its root statistics: the final-move policy.
//
// Today's choice is deterministic: a proven win, else the most visited move (or the best mean)
// among the moves not proven lost. A temperature makes the choice a draw among the searched moves,
// weighted by their values, which is how the difficulty levels (bots/<game>/levels.json,
// docs/levels.md) play like a weaker player: they make a weaker player's mistakes (a near-best move
// taken for the best, a threat missed when its answer looked only slightly better) and never a
// random click, because only moves the search thought worth visiting are drawn. As with Leela
// Chess Zero's `Temperature` and `TempValueCutoff` (there over visit counts), a temperature of 0
// is the deterministic choice, so every preset that sets none plays as before.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rng.h"
#include "search/params.h"

namespace kibitz::search {

// The move played from `stats` (one entry per searched root move, most visited first):
// 1. a move proven won, if there is one (MCTS-Solver proves the wins the observer's information
//    decides, so a win in one move that was searched is always taken);
// 2. otherwise the candidates are the moves not proven lost, or every move when all are;
// 3. with Params::temperature T = 0, the most visited candidate (final=visits) or the one with
//    the best mean reward (final=mean); with T > 0, among the candidates visited at least
//    Params::temperature_visits times as often as the most visited candidate, one drawn with
//    probability proportional to exp((its mean reward - the best mean among them) / T), from
//    `rng`, which only this case reads.
inline Action played_move(const std::vector<ActionStats>& stats, const Params& params, Rng& rng) {
  const bool all_lost = std::all_of(stats.begin(), stats.end(), [](const ActionStats& s) { return s.proof == Proof::kLoss; });
  std::vector<const ActionStats*> candidates;
  for (const ActionStats& s : stats) {
    if (s.proof == Proof::kWin) return s.action;
    if (s.proof != Proof::kLoss || all_lost) candidates.push_back(&s);
  }
  if (params.temperature <= 0) {
    const ActionStats* best = candidates.front();  // the most visited
    if (params.final_move == FinalMove::kBestMean)
      for (const ActionStats* s : candidates)
        if (s->mean_reward > best->mean_reward) best = s;
    return best->action;
  }
  const double least_visits = params.temperature_visits * static_cast<double>(candidates.front()->visits);
  std::erase_if(candidates, [&](const ActionStats* s) { return static_cast<double>(s->visits) < least_visits; });
  double best_mean = candidates.front()->mean_reward;
  for (const ActionStats* s : candidates) best_mean = std::max(best_mean, s->mean_reward);
  std::vector<double> weights;
  double total = 0;
  for (const ActionStats* s : candidates) total += weights.emplace_back(std::exp((s->mean_reward - best_mean) / params.temperature));
  double u = rng.uniform() * total;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if ((u -= weights[i]) < 0) return candidates[i]->action;
  return candidates.front()->action;  // rounding
}

}  // namespace kibitz::search
