// The list of games. Adding a game: one entry here (see docs/architecture.md).
#include "bindings/any_state.h"
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
