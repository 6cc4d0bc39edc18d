// The list of games. Adding a game: one entry here (see docs/architecture.md).
#include "bindings/any_state.h"
#include "games/canasta_tiles.h"
#include "games/just4fun_colours.h"
#include "games/yucata.h"

namespace kibitz {

const std::vector<GameInfo>& registry() {
  static const std::vector<GameInfo> games = {
      {j4fc::State::kName,
       "Just 4 Fun Colours (Grunau, Kosmos 2010): place stones by playing cards of the field's colour; "
       "a line of 4 (or 5) wins at once, otherwise the largest area. Hidden hands. Board layout reconstructed [R].",
       2,
       4,
       {{"players", "number of players, 2-4 (default 2)"},
        {"line", "line length that wins at once: 4 (default) or 5 (variant)"},
        {"start", "start seat 0..players-1, or 'random' (default: drawn from the seed)"}},
       [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
         return std::make_unique<StateImpl<j4fc::State>>(j4fc::State::initial(j4fc::parse_options(o), seed));
       },
       [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<j4fc::State>>(j4fc::State::from_string(t)); },
       [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<j4fc::State>>(j4fc::State::from_view(t)); },
       [](const std::map<std::string, std::string>& o) { j4fc::parse_options(o); }},
      {yucata::State::kName,
       "Yucata' (Dorra, Hans im Glueck 1996): race along a 40-space track playing cards 1-5, S (one in front of "
       "the leader) and Q (copy the previous play); collect pale stones (+1), dark ones cost 1, 3, 6, ... "
       "Perfect information. The default stone layout is a reconstruction [R], not the printed board.",
       2,
       4,
       {{"players", "number of players, 2-4 (default 2)"},
        {"layout", std::string("'reconstructed' (default: ") + std::string(yucata::kReconstructedLayout) +
                       ", a reconstruction [R], not the official board), 'random' (seeded uniform legal layout), "
                       "or 34 letters P/D for spaces 5..38 with 25 P, 9 D and P last"},
        {"start", "start seat 0..players-1, or 'random' (default: drawn from the seed)"},
        {"q", "what Q copies: 'effective' (default: the previous effective card, worked out now) or 'distance' "
              "(the distance the previous play moved)"},
        {"tiebreak", "'shared' (default, canonical: tied players share the place) or 'dark' (non-canonical: fewer "
                     "dark stones D' first, then shared)"}},
       [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
         return std::make_unique<StateImpl<yucata::State>>(yucata::State::initial(yucata::parse_options(o), seed));
       },
       [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<yucata::State>>(yucata::State::from_string(t)); },
       [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<yucata::State>>(yucata::State::from_view(t)); },
       [](const std::map<std::string, std::string>& o) { yucata::parse_options(o); },
       /*perfect_information=*/true},
      {canasta::State::kName,
       "Canasta with rummy tiles: 4 players in two teams (seats 0+2 v 1+3), 106 tiles; draw or take the pile, "
       "meld (naturals outnumber wilds, a twos meld), discard; canastas, bonus threes, opening thresholds.",
       4,
       4,
       {{"players", "exactly 4"},
        {"mode", "match length: one_round (default), three_rounds or target_10000"},
        {"winner_required", "a tie adds a round: 1 (default) or 0"},
        {"starter", "round-1 starter seat 0..3, or 'random' (default: drawn from the seed)"},
        {"first_turn_may_meld", "the starter may meld on its discard-only first turn: 0 (default) or 1"},
        {"strict_natural_majority", "naturals must outnumber wilds: 1 (default) or 0 (at least as many)"},
        {"pile_fully_visible", "views show the whole discard pile: 1 (default) or 0 (top and size only)"},
        {"joker_button", "once per round a seat may take a joker from the stock instead of drawing: 0 (default) or 1"}},
       [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
         return std::make_unique<StateImpl<canasta::State>>(canasta::State::initial(canasta::parse_options(o), seed));
       },
       [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<canasta::State>>(canasta::State::from_string(t)); },
       [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<canasta::State>>(canasta::State::from_view(t)); },
       [](const std::map<std::string, std::string>& o) { canasta::parse_options(o); }},
  };
  return games;
}

const GameInfo& find_game(const std::string& name) {
  for (const auto& g : registry())
    if (g.name == name) return g;
  std::string known;
  for (const auto& g : registry()) known += (known.empty() ? "" : ", ") + g.name;
  throw UnknownGameError("unknown game '" + name + "'; known games: " + known);
}

}  // namespace kibitz
