// Type erasure happens here, once: Python sees AnyState; each game is a StateImpl<S>.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/game.h"
#include "core/tensor.h"
#include "core/text.h"
#include "search/search.h"
#include "search/solver.h"

namespace kibitz {

struct UnknownGameError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class AnyState {
 public:
  virtual ~AnyState() = default;
  virtual std::unique_ptr<AnyState> clone() const = 0;
  virtual std::string game_name() const = 0;
  virtual int num_players() const = 0;
  virtual int current_player() const = 0;
  virtual bool is_terminal() const = 0;
  virtual std::vector<Action> legal_actions() const = 0;  // decisions, or chance outcomes at chance
  virtual std::vector<std::pair<Action, double>> chance_outcomes() const = 0;
  virtual void apply(Action action) = 0;  // checked: IllegalMoveError leaves the state unchanged
  // Simultaneous nodes (game.h, SimultaneousGame): the seats that choose, in recording order
  // (empty elsewhere); a seat's legal actions there (at a decision node, the mover's: its
  // legal_actions(); otherwise none); the joint move, seat -> action, checked: every choosing
  // seat exactly once and each action legal, or IllegalMoveError and the state is unchanged.
  virtual bool has_simultaneous_moves() const = 0;
  virtual std::vector<int> choosing_seats() const = 0;
  virtual std::vector<Action> legal_actions_for(int seat) const = 0;
  virtual void apply_joint(const std::map<int, Action>& joint) = 0;
  virtual Action observe_choice(int observer, int chooser, Action action) const = 0;
  virtual std::vector<double> returns() const = 0;
  virtual std::vector<double> scores() const = 0;
  virtual std::vector<double> ranks() const = 0;
  virtual int team(int seat) const = 0;
  virtual std::uint64_t info_key(int seat) const = 0;
  virtual Action observe(int seat, Action action) const = 0;
  virtual std::unique_ptr<AnyState> determinize(int seat, std::uint64_t seed) const = 0;
  // The protocol's `observe`: what `seat` sees of `action` as text, and the state after the
  // next action seen as `seen` (re-dealt consistently with seat's view).
  virtual std::string observation_string(int seat, Action action) const = 0;
  virtual std::string joint_observation_string(int seat, const std::map<int, Action>& joint) const = 0;
  virtual std::unique_ptr<AnyState> after_observation(int seat, const std::string& seen, std::uint64_t seed) const = 0;
  virtual std::string action_to_string(Action action) const = 0;
  virtual Action parse_action(const std::string& text) const = 0;
  virtual std::string to_string() const = 0;
  virtual std::string view_string(int seat) const = 0;
  virtual int notation_version() const = 0;  // the version of the notations this build writes
  virtual std::string render(int seat) const = 0;  // -1: every hand
  virtual bool equals(const AnyState& other) const = 0;

  // The decision of `seat` (-1: the seat to move; at a simultaneous node, a choosing seat).
  virtual search::Result search(const search::Params& params, int seat) const = 0;
  // The weights of the game's rollout policy (game.h), set by name in Params::policy; and of its
  // greedy evaluation, set by name in greedy_action and greedy_choice.
  virtual std::vector<PolicyWeight> policy_weights() const = 0;
  virtual std::vector<PolicyWeight> eval_weights() const = 0;
  // Exact value and a best move (search/solver.h); only for games that offer the solver hooks.
  virtual search::SolveResult solve() const = 0;
  // The greedy bot's move, its evaluation weighted by `eval` (names of the game's eval weights;
  // the others keep their defaults).
  virtual Action greedy_action(std::uint64_t seed, const search::NamedWeights& eval) const = 0;
  // The rollout policy's move, with the weights `policy` names set (the others at their defaults).
  virtual Action heuristic_action(std::uint64_t seed, const search::NamedWeights& policy) const = 0;
  // The same for a choosing seat at a simultaneous node (search/mcts.h greedy_choice; the game's
  // heuristic_choice).
  virtual Action greedy_choice(int seat, std::uint64_t seed, const search::NamedWeights& eval) const = 0;
  // Policy-based inference (game.h HasDecisionLikelihood): the log-likelihood of the other seats'
  // last `turns` decisions given this state's hands, the rollout policy's weights `policy` named
  // (the others at their defaults); invalid_argument for a game without it.
  virtual double decision_log_likelihood(int observer, int turns, double temperature, double epsilon, std::uint64_t seed,
                                         const search::NamedWeights& policy) const = 0;
  virtual Action heuristic_choice(int seat, std::uint64_t seed) const = 0;
  virtual Action sample_chance(std::uint64_t seed) const = 0;
  virtual std::uint64_t perft(int depth) const = 0;
  // Plays `count` random games from this state; returns the total number of decisions.
  virtual std::uint64_t random_playouts(int count, std::uint64_t seed) const = 0;
  // The same with the game's heuristic rollout policy.
  virtual std::uint64_t heuristic_playouts(int count, std::uint64_t seed) const = 0;
  // Research hooks (docs/research.md): the game's bounds (-1 for a game length the rules do not
  // bound) and seat's observation tensor (core/tensor.h), written into `out` (room for
  // observation_tensor_size() floats).
  virtual int max_actions() const = 0;
  virtual int max_chance_outcomes() const = 0;
  virtual int max_game_length() const = 0;
  virtual int observation_tensor_size() const = 0;
  virtual void observation_tensor(int seat, float* out) const = 0;
};

template <Game S>
class StateImpl final : public AnyState {
 public:
  explicit StateImpl(S state) : s_(std::move(state)) {}
  const S& state() const { return s_; }

  std::unique_ptr<AnyState> clone() const override { return std::make_unique<StateImpl>(s_); }
  std::string game_name() const override { return S::kName; }
  int num_players() const override { return s_.num_players(); }
  int current_player() const override { return s_.current_player(); }
  bool is_terminal() const override { return s_.is_terminal(); }

  std::vector<Action> legal_actions() const override {
    std::vector<Action> out;
    if (s_.is_terminal() || s_.current_player() == kSimultaneousPlayer) return out;
    if (s_.current_player() == kChancePlayer) {
      for (const auto& [a, p] : chance_outcomes()) out.push_back(a);
      return out;
    }
    std::array<Action, S::kMaxActions> buf;
    const int n = s_.legal_actions(buf.data());
    out.assign(buf.begin(), buf.begin() + n);
    return out;
  }

  std::vector<std::pair<Action, double>> chance_outcomes() const override {
    std::vector<std::pair<Action, double>> out;
    if (s_.current_player() != kChancePlayer) return out;
    std::array<ChanceOutcome, S::kMaxChanceOutcomes> buf;
    const int n = s_.chance_outcomes(buf.data());
    for (int i = 0; i < n; ++i) out.emplace_back(buf[i].outcome, buf[i].probability);
    return out;
  }

  void apply(Action action) override {
    if (s_.is_terminal()) throw IllegalMoveError(std::string("the ") + S::kName + " game is over; no move can be applied");
    if (s_.current_player() == kSimultaneousPlayer)
      throw IllegalMoveError(std::string("seats ") + seat_list(choosing_seats()) + " choose at once here (a simultaneous node of " + S::kName +
                             "): apply a joint move, one action per choosing seat");
    const auto legal = legal_actions();
    if (std::find(legal.begin(), legal.end(), action) == legal.end()) {
      std::string name;
      try {
        name = "'" + s_.action_to_string(action) + "'";
      } catch (const NotationError&) {
        name = "action id " + std::to_string(action);
      }
      std::string listing;
      for (Action a : legal) listing += (listing.empty() ? "" : " ") + s_.action_to_string(a);
      const bool chance = s_.current_player() == kChancePlayer;
      throw IllegalMoveError((chance ? "illegal chance outcome " : "illegal move ") + name + " for " + S::kName +
                             (chance ? "; possible outcomes: " : " (seat " + std::to_string(s_.current_player()) + " to move); legal: ") + listing);
    }
    s_.apply(action);
  }

  bool has_simultaneous_moves() const override { return SimultaneousGame<S>; }

  std::vector<int> choosing_seats() const override {
    if constexpr (SimultaneousGame<S>) {
      if (s_.current_player() == kSimultaneousPlayer) {
        std::array<int, S::kMaxPlayers> buf;
        const int n = s_.choosing_seats(buf.data());
        return {buf.begin(), buf.begin() + n};
      }
    }
    return {};
  }

  std::vector<Action> legal_actions_for(int seat) const override {
    check_seat(seat);
    if constexpr (SimultaneousGame<S>) {
      if (s_.current_player() == kSimultaneousPlayer) {
        const auto seats = choosing_seats();
        if (std::find(seats.begin(), seats.end(), seat) == seats.end()) return {};
        std::array<Action, S::kMaxActions> buf;
        const int n = s_.legal_choices(seat, buf.data());
        return {buf.begin(), buf.begin() + n};
      }
    }
    return s_.current_player() == seat ? legal_actions() : std::vector<Action>{};
  }

  void apply_joint(const std::map<int, Action>& joint) override {
    const auto seats = choosing_seats();
    if (seats.empty())
      throw IllegalMoveError(std::string("no joint move here: ") + (s_.is_terminal() ? "the game is over" : s_.current_player() == kChancePlayer ? "chance is to act" : "seat " + std::to_string(s_.current_player()) + " alone is to move"));
    for (const auto& [seat, action] : joint)
      if (std::find(seats.begin(), seats.end(), seat) == seats.end())
        throw IllegalMoveError("seat " + std::to_string(seat) + " does not choose here; the choosing seats are " + seat_list(seats));
    std::array<Action, S::kMaxPlayers> buf;
    buf.fill(kNoAction);
    for (int seat : seats) {
      const auto it = joint.find(seat);
      if (it == joint.end()) throw IllegalMoveError("the joint move has no action of seat " + std::to_string(seat) + "; every choosing seat (" + seat_list(seats) + ") needs one");
      const auto legal = legal_actions_for(seat);
      if (std::find(legal.begin(), legal.end(), it->second) == legal.end())
        throw IllegalMoveError("illegal move " + action_name(it->second) + " for seat " + std::to_string(seat) + " in " + S::kName + "; legal: " + listing(legal));
      buf[seat] = it->second;
    }
    if constexpr (SimultaneousGame<S>) s_.apply_joint(buf.data());
  }

  Action observe_choice(int observer, int chooser, Action action) const override {
    check_seat(observer), check_seat(chooser);
    if constexpr (SimultaneousGame<S>) {
      require_choosing(chooser);
      const auto legal = legal_actions_for(chooser);
      if (std::find(legal.begin(), legal.end(), action) == legal.end())
        throw IllegalMoveError("illegal choice " + action_name(action) + " for seat " + std::to_string(chooser) + " in " + S::kName + "; legal: " + listing(legal));
      if (observer == chooser) return action;
      return s_.observe_choice(observer, chooser, action);
    }
    throw std::invalid_argument(std::string(S::kName) + " has no simultaneous nodes");
  }

  std::vector<double> returns() const override { return per_player(&S::returns); }
  std::vector<double> scores() const override { return per_player(&S::scores); }
  std::vector<double> ranks() const override { return per_player(&S::ranks); }
  int team(int seat) const override { return s_.team(check_seat(seat)); }
  std::uint64_t info_key(int seat) const override { return s_.info_key(check_seat(seat)); }
  Action observe(int seat, Action action) const override {
    check_seat(seat);
    require_legal(action);
    return s_.observe(seat, action);
  }

  std::unique_ptr<AnyState> determinize(int seat, std::uint64_t seed) const override {
    Rng rng(seed);
    return std::make_unique<StateImpl>(s_.determinize(check_seat(seat), rng));
  }

  std::string observation_string(int seat, Action action) const override {
    check_seat(seat);
    require_legal(action);
    if constexpr (HasObservationText<S>) return s_.observation_string(seat, action);
    const Action seen = s_.observe(check_seat(seat), action);
    return seen == kUnobserved ? "?" : s_.action_to_string(seen);
  }

  // A joint move as `seat` sees it: the game's text, or each choice in recording order (its own
  // in full, another's as observe_choice shows it, "?" for nothing) joined by kJointSeparator.
  std::string joint_observation_string(int seat, const std::map<int, Action>& joint) const override {
    check_seat(seat);
    StateImpl checked(s_);
    checked.apply_joint(joint);  // refuses a joint move that is not legal here
    if constexpr (HasJointObservationText<S>) {
      std::array<Action, S::kMaxPlayers> buf;
      buf.fill(kNoAction);
      for (const auto& [q, a] : joint) buf[q] = a;
      return s_.joint_observation_string(seat, buf.data());
    }
    std::string text;
    for (int q : choosing_seats()) {
      const Action seen = observe_choice(seat, q, joint.at(q));
      text += (text.empty() ? "" : std::string(kJointSeparator)) + (seen == kUnobserved ? std::string("?") : s_.action_to_string(seen));
    }
    return text;
  }

  std::unique_ptr<AnyState> after_observation(int seat, const std::string& seen, std::uint64_t seed) const override {
    check_seat(seat);
    Rng rng(seed);
    if (s_.is_terminal()) throw IllegalMoveError("the game is over");
    if constexpr (SimultaneousGame<S>) {
      if (s_.current_player() == kSimultaneousPlayer) return after_joint_observation(seat, seen, rng);
    }
    if constexpr (HasObservationText<S>) {
      return std::make_unique<StateImpl>(s_.after_observation(seat, seen, rng));
    } else {
      // Try states consistent with the view until one has an action the seat would see as `seen`.
      constexpr int kAttempts = 1000;
      std::string possible;
      for (int attempt = 0; attempt < kAttempts; ++attempt) {
        StateImpl sample(attempt == 0 ? s_ : s_.determinize(seat, rng));
        for (Action a : sample.legal_actions()) {
          const std::string text = sample.observation_string(seat, a);
          if (text == seen) {
            sample.s_.apply(a);
            return std::make_unique<StateImpl>(sample.s_.determinize(seat, rng));
          }
          if (attempt == 0) possible += " " + text;
        }
      }
      throw IllegalMoveError("seat " + std::to_string(seat) + " cannot see '" + seen + "' next; it could see:" + possible);
    }
  }

  std::string action_to_string(Action action) const override { return s_.action_to_string(action); }
  Action parse_action(const std::string& text) const override { return s_.parse_action(text); }
  // The notations carry the game's version (text::with_version); the game's own writer does not.
  std::string to_string() const override { return text::with_version(s_.to_string(), text::notation_version<S>()); }
  std::string view_string(int seat) const override { return text::with_version(s_.view_string(check_seat(seat)), text::notation_version<S>()); }
  int notation_version() const override { return text::notation_version<S>(); }
  std::string render(int seat) const override { return s_.render(seat < 0 ? -1 : check_seat(seat)); }
  bool equals(const AnyState& other) const override {
    const auto* o = dynamic_cast<const StateImpl*>(&other);
    return o && o->s_ == s_;
  }

  search::Result search(const search::Params& params, int seat) const override { return search::search(s_, params, seat); }
  std::vector<PolicyWeight> policy_weights() const override {
    if constexpr (HasPolicyWeights<S>)
      return {S::kPolicyWeights.begin(), S::kPolicyWeights.end()};
    else
      return {};
  }
  std::vector<PolicyWeight> eval_weights() const override {
    if constexpr (HasEvalWeights<S>)
      return {S::kEvalWeights.begin(), S::kEvalWeights.end()};
    else
      return {};
  }

  search::SolveResult solve() const override {
    if constexpr (search::Solvable<S>) {
      return search::Solver<S>().solve(s_);
    } else {
      throw std::invalid_argument(std::string(S::kName) + " has no exact solver: it is not a perfect-information game without chance");
    }
  }

  Action greedy_action(std::uint64_t seed, const search::NamedWeights& eval) const override {
    require_decision();
    const search::Weights weights = search::eval_weights<S>(eval);
    Rng rng(seed);
    return search::greedy_action(s_, weights, rng);
  }
  Action heuristic_action(std::uint64_t seed, const search::NamedWeights& policy) const override {
    require_decision();
    const search::Weights weights = search::policy_weights<S>(policy);  // checks the names and ranges
    Rng rng(seed);
    if constexpr (HasPolicyWeights<S>) return s_.heuristic_action(rng, weights.data());
    else return s_.heuristic_action(rng);
  }
  double decision_log_likelihood(int observer, int turns, double temperature, double epsilon, std::uint64_t seed,
                                 const search::NamedWeights& policy) const override {
    check_seat(observer);
    if (turns < 0) throw OptionError("turns must be at least 0");
    if (!(temperature > 0 && std::isfinite(temperature))) throw OptionError("temperature must be a finite number above 0");
    if (!(epsilon >= 0 && epsilon <= 1)) throw OptionError("epsilon must be in 0..1");
    const search::Weights weights = search::policy_weights<S>(policy);  // checks the names and ranges
    if constexpr (HasDecisionLikelihood<S>) {
      Rng rng(seed);
      return s_.decision_log_likelihood(observer, turns, temperature, epsilon, weights.data(), rng);
    } else {
      throw std::invalid_argument(std::string(S::kName) + " has no decision likelihood (policy-based inference)");
    }
  }
  Action greedy_choice(int seat, std::uint64_t seed, const search::NamedWeights& eval) const override {
    require_choosing(seat);
    const search::Weights weights = search::eval_weights<S>(eval);
    Rng rng(seed);
    if constexpr (SimultaneousGame<S>) return search::greedy_choice(s_, seat, weights, rng);
    return kNoAction;  // not reached: require_choosing refuses every seat of a sequential game
  }
  Action heuristic_choice(int seat, std::uint64_t seed) const override {
    require_choosing(seat);
    Rng rng(seed);
    if constexpr (SimultaneousGame<S>) return s_.heuristic_choice(seat, rng);
    return kNoAction;
  }
  Action sample_chance(std::uint64_t seed) const override {
    if (s_.current_player() != kChancePlayer) throw std::invalid_argument("not a chance node");
    Rng rng(seed);
    return s_.sample_chance(rng);
  }

  std::uint64_t perft(int depth) const override { return perft_from(s_, depth); }

  std::uint64_t random_playouts(int count, std::uint64_t seed) const override {
    return playouts(count, seed, [](S& s, Rng& rng) { return search::random_playout(s, rng); });
  }
  std::uint64_t heuristic_playouts(int count, std::uint64_t seed) const override {
    return playouts(count, seed, [](S& s, Rng& rng) { return search::heuristic_playout(s, rng); });
  }

  int max_actions() const override { return S::kMaxActions; }
  int max_chance_outcomes() const override { return S::kMaxChanceOutcomes; }
  int max_game_length() const override {
    if constexpr (HasMaxGameLength<S>) return s_.max_game_length();
    return -1;
  }
  int observation_tensor_size() const override {
    if constexpr (HasObservationTensor<S>) return s_.observation_tensor(0, nullptr);  // counts only
    return 0;
  }
  void observation_tensor(int seat, float* out) const override {
    check_seat(seat);
    if constexpr (HasObservationTensor<S>) s_.observation_tensor(seat, out);
  }

 private:
  template <class Playout>
  std::uint64_t playouts(int count, std::uint64_t seed, Playout playout) const {
    Rng rng(seed);
    std::uint64_t decisions = 0;
    for (int i = 0; i < count; ++i) {
      S copy = s_;
      decisions += playout(copy, rng);
    }
    return decisions;
  }

  std::vector<double> per_player(void (S::*f)(double*) const) const {
    std::array<double, S::kMaxPlayers> buf{};
    (s_.*f)(buf.data());
    return {buf.begin(), buf.begin() + s_.num_players()};
  }
  int check_seat(int seat) const {
    if (seat < 0 || seat >= s_.num_players())
      throw std::out_of_range("seat " + std::to_string(seat) + " does not exist; this game has seats 0.." + std::to_string(s_.num_players() - 1));
    return seat;
  }
  void require_decision() const {
    if (s_.current_player() == kSimultaneousPlayer)
      throw std::invalid_argument("a simultaneous node: seats " + seat_list(choosing_seats()) + " choose at once; ask for one seat's choice");
    if (s_.current_player() < 0) throw std::invalid_argument("not a decision node: the game is over or chance is to act");
  }
  // What is seen of an action is asked of an action that can be played here (a decision or a
  // chance outcome); IllegalMoveError otherwise, as apply would say.
  void require_legal(Action action) const {
    if (s_.current_player() == kSimultaneousPlayer)
      throw IllegalMoveError(std::string("seats ") + seat_list(choosing_seats()) + " choose at once here (a simultaneous node of " + S::kName +
                             "): what is seen of a choice is observe_choice's");
    const auto legal = legal_actions();
    if (std::find(legal.begin(), legal.end(), action) == legal.end())
      throw IllegalMoveError(std::string(s_.is_terminal() ? "the game is over: nothing is played after " : "not playable here: ") + action_name(action) +
                             (legal.empty() ? "" : "; playable: " + listing(legal)));
  }
  void require_choosing(int seat) const {
    check_seat(seat);
    const auto seats = choosing_seats();
    if (seats.empty()) throw std::invalid_argument("not a simultaneous node");
    if (std::find(seats.begin(), seats.end(), seat) == seats.end())
      throw std::invalid_argument("seat " + std::to_string(seat) + " does not choose here; the choosing seats are " + seat_list(seats));
  }
  static std::string seat_list(const std::vector<int>& seats) {
    std::string text;
    for (int q : seats) text += (text.empty() ? "" : ", ") + std::to_string(q);
    return text;
  }
  std::string action_name(Action action) const {
    try {
      return "'" + s_.action_to_string(action) + "'";
    } catch (const NotationError&) {
      return "action id " + std::to_string(action);
    }
  }
  std::string listing(const std::vector<Action>& actions) const {
    std::string text;
    for (Action a : actions) text += (text.empty() ? "" : " ") + s_.action_to_string(a);
    return text;
  }

  // The state after the joint move `seat` saw as `seen`: the game's reading of its own text, or
  // the generic one, which tries states consistent with the view until each choice has a legal
  // action that reads as seen, plays them and determinizes again.
  std::unique_ptr<AnyState> after_joint_observation(int seat, const std::string& seen, Rng& rng) const {
    if constexpr (HasJointObservationText<S>) {
      return std::make_unique<StateImpl>(s_.after_observation(seat, seen, rng));
    } else {
      const auto seats = choosing_seats();
      std::vector<std::string> parts;
      for (std::size_t begin = 0;;) {
        const std::size_t end = seen.find(kJointSeparator, begin);
        parts.push_back(seen.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
        if (end == std::string::npos) break;
        begin = end + kJointSeparator.size();
      }
      if (parts.size() != seats.size())
        throw NotationError("a joint move here has " + std::to_string(seats.size()) + " choices (seats " + seat_list(seats) + ", joined by '" +
                            std::string(kJointSeparator) + "'), got '" + seen + "'");
      constexpr int kAttempts = 1000;
      for (int attempt = 0; attempt < kAttempts; ++attempt) {
        StateImpl sample(attempt == 0 ? s_ : s_.determinize(seat, rng));
        std::map<int, Action> joint;
        for (std::size_t i = 0; i < seats.size(); ++i) {
          std::vector<Action> fits;
          for (Action a : sample.legal_actions_for(seats[i])) {
            const Action shown = observe_choice(seat, seats[i], a);
            if ((shown == kUnobserved ? std::string("?") : s_.action_to_string(shown)) == parts[i]) fits.push_back(a);
          }
          if (fits.empty()) break;
          joint[seats[i]] = fits[rng.below(static_cast<std::uint32_t>(fits.size()))];
        }
        if (joint.size() == seats.size()) {
          sample.apply_joint(joint);
          return std::make_unique<StateImpl>(sample.s_.determinize(seat, rng));
        }
      }
      throw IllegalMoveError("seat " + std::to_string(seat) + " cannot see the joint move '" + seen + "' here");
    }
  }

  // Leaves after `depth` plies, where a decision, a joint move and a chance outcome are one ply
  // each; a game that ends earlier counts as one leaf.
  static std::uint64_t perft_from(const S& s, int depth) {
    if (depth == 0 || s.is_terminal()) return 1;
    std::uint64_t n = 0;
    if constexpr (SimultaneousGame<S>) {
      if (s.current_player() == kSimultaneousPlayer) {
        std::array<int, S::kMaxPlayers> seats;
        const int k = s.choosing_seats(seats.data());
        std::array<std::array<Action, S::kMaxActions>, S::kMaxPlayers> choices;
        std::array<int, S::kMaxPlayers> counts{}, index{};
        for (int i = 0; i < k; ++i) counts[i] = s.legal_choices(seats[i], choices[i].data());
        std::array<Action, S::kMaxPlayers> joint;
        joint.fill(kNoAction);
        while (true) {  // every combination, the last seat's choice varying fastest
          for (int i = 0; i < k; ++i) joint[seats[i]] = choices[i][index[i]];
          S next = s;
          next.apply_joint(joint.data());
          n += perft_from(next, depth - 1);
          int i = k - 1;
          while (i >= 0 && ++index[i] == counts[i]) index[i--] = 0;
          if (i < 0) return n;
        }
      }
    }
    if (s.current_player() == kChancePlayer) {
      std::array<ChanceOutcome, S::kMaxChanceOutcomes> buf;
      const int k = s.chance_outcomes(buf.data());
      for (int i = 0; i < k; ++i) {
        S next = s;
        next.apply(buf[i].outcome);
        n += perft_from(next, depth - 1);
      }
      return n;
    }
    std::array<Action, S::kMaxActions> buf;
    const int k = s.legal_actions(buf.data());
    for (int i = 0; i < k; ++i) {
      S next = s;
      next.apply(buf[i]);
      n += perft_from(next, depth - 1);
    }
    return n;
  }

  S s_;
};

// One entry per game: how to make its states.
struct GameInfo {
  std::string name;
  std::string description;
  int min_players, max_players;
  std::vector<std::pair<std::string, std::string>> options;  // name, help (with default)
  std::function<std::unique_ptr<AnyState>(const std::map<std::string, std::string>&, std::uint64_t)> initial;
  std::function<std::unique_ptr<AnyState>(const std::string&)> from_string;
  std::function<std::unique_ptr<AnyState>(const std::string&)> from_view;
  std::function<void(const std::map<std::string, std::string>&)> check_options;
  bool perfect_information = false;  // no hidden information: every view is the full state
  // The rule constants a user may want to see (`kibitz games`): name, value, and where the value
  // comes from (a status such as "C" confirmed or "R" a reconstruction, as the spec marks it).
  std::vector<std::array<std::string, 3>> constants = {};
  bool simultaneous = false;  // some nodes are simultaneous (set by registry() from the state type)
  // Set by registry() from the state type: the bounds on action ids and chance outcomes.
  int max_actions = 0;
  int max_chance_outcomes = 0;
  bool chance = true;  // some nodes are chance nodes (false: all randomness is in the setup seed)
  int notation_version = 1;  // set by registry(): the notation version this build writes and the newest it reads
};

const std::vector<GameInfo>& registry();
const GameInfo& find_game(const std::string& name);  // throws UnknownGameError

}  // namespace kibitz
