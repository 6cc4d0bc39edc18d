// Biased rock-paper-scissors: options, results and notation.
#include "games/biased_rps.h"

#include <sstream>

#include "core/text.h"

namespace kibitz::brps {
namespace {

std::string choice_text(std::uint8_t c) { return c == kNone ? "-" : std::string(kChoiceNames[c]); }

std::uint8_t parse_choice(std::string_view s, std::string_view what) {
  if (s == "-") return kNone;
  for (int c = 0; c < kChoices; ++c)
    if (s == kChoiceNames[c]) return static_cast<std::uint8_t>(c);
  throw NotationError(std::string(what) + ": expected '-', rock, paper or scissors, got '" + std::string(s) + "'");
}

}  // namespace

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  for (const auto& [key, value] : options) {
    if (key != "players") throw OptionError("unknown option '" + key + "' for biased_rps; known: players");
    if (value != "2") throw OptionError("option players='" + value + "' is not allowed; biased_rps has exactly 2 players");
  }
  return o;
}

void State::returns(double* out) const {
  out[0] = out[1] = 0;
  if (winner_ == kTie) out[0] = out[1] = 0.5;
  else if (winner_ != kNone) out[winner_] = 1;
}

void State::scores(double* out) const {
  const int u = choice_[0] == kNone ? 0 : payoff();
  out[0] = u, out[1] = -u;
}

void State::ranks(double* out) const {
  out[0] = out[1] = 1;
  if (winner_ == 0 || winner_ == 1) out[1 - winner_] = 2;
}

std::uint64_t State::info_key(int seat) const { return text::hash(view_string(seat)); }

double State::evaluate(int seat) const {
  if (winner_ == kTie) return 0.5;
  if (winner_ != kNone) return winner_ == seat ? 1 : 0;
  if (choice_[0] == kNone) return 0.5;
  const double p0 = (1.0 + static_cast<double>(payoff()) / kScale) / 2;
  return seat == 0 ? p0 : 1 - p0;
}

std::string State::action_to_string(Action action) const {
  if (current_player() == kChancePlayer) {
    if (action > 1) throw NotationError("chance outcome " + std::to_string(action) + " is not one of 0 (win 0), 1 (win 1)");
    return "win " + std::to_string(action);
  }
  if (action >= kChoices) throw NotationError("action " + std::to_string(action) + " is not a choice (0 rock, 1 paper, 2 scissors)");
  return std::string(kChoiceNames[action]);
}

Action State::parse_action(std::string_view text) const {
  if (current_player() == kChancePlayer) {
    if (text == "win 0") return 0;
    if (text == "win 1") return 1;
    throw NotationError("'" + std::string(text) + "' is not a chance outcome here; outcomes are 'win 0' and 'win 1'");
  }
  for (int c = 0; c < kChoices; ++c)
    if (text == kChoiceNames[c]) return static_cast<Action>(c);
  throw NotationError("'" + std::string(text) + "' is not a choice; choices are rock, paper, scissors");
}

std::string State::to_string() const { return write(-1); }
std::string State::view_string(int seat) const { return write(seat); }

std::string State::write(int seat) const {
  std::ostringstream out;
  out << kName;
  if (seat >= 0) out << " seat=" << seat;
  out << " players=2 choices=" << choice_text(choice_[0]) << "," << choice_text(choice_[1])
      << " winner=" << (winner_ == kNone ? "-" : winner_ == kTie ? "tie" : std::to_string(winner_));
  return out.str();
}

State State::parse(std::string_view text, int* seat) {
  const auto fields = seat ? text::fields(text, kName, {"seat", "players", "choices", "winner"}) : text::fields(text, kName, {"players", "choices", "winner"});
  State s;
  text::to_int(text::require(fields, "players"), 2, 2, "players");
  if (seat) *seat = text::to_int(text::require(fields, "seat"), 0, 1, "seat");
  text::parse_per_player(text::require(fields, "choices"), 2, "choices", [&](int p, std::string_view v) { s.choice_[p] = parse_choice(v, "choices"); });
  const std::string& w = text::require(fields, "winner");
  s.winner_ = w == "-" ? kNone : w == "tie" ? kTie : static_cast<std::uint8_t>(text::to_int(w, 0, 1, "winner"));
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  if ((s.choice_[0] == kNone) != (s.choice_[1] == kNone)) fail("choices: both seats choose at once, so neither or both have chosen");
  if (s.choice_[0] == kNone && s.winner_ != kNone) fail("winner: nobody has chosen yet");
  if (s.choice_[0] != kNone) {
    const int u = s.payoff();
    if ((u == 0) != (s.winner_ == kTie)) fail(u == 0 ? "winner: equal choices are a tie" : "winner: only equal choices tie");
    if ((u == kScale && s.winner_ == 1) || (u == -kScale && s.winner_ == 0)) fail("winner: a payoff of +-50 is a sure win");
  }
  return s;
}

State State::from_string(std::string_view text) { return parse(text, nullptr); }
State State::from_view(std::string_view text) {
  int seat;
  return parse(text, &seat);  // the view is the whole state
}

std::string State::render(int) const {
  std::ostringstream out;
  out << "payoffs to seat 0 (rows: seat 0's choice; the win probability is (1 + u/50)/2):\n";
  out << "            rock  paper  scissors\n";
  for (int r = 0; r < kChoices; ++r) {
    out << std::string(kChoiceNames[r]) << std::string(12 - kChoiceNames[r].size(), ' ');
    for (int c = 0; c < kChoices; ++c) out << (c ? "  " : "") << kPayoff[r][c];
    out << '\n';
  }
  out << "seat 0: " << choice_text(choice_[0]) << ", seat 1: " << choice_text(choice_[1]);
  if (winner_ == kTie) out << "; a tie";
  else if (winner_ != kNone) out << "; seat " << int{winner_} << " wins";
  return out.str();
}

}  // namespace kibitz::brps
