// The registry entry of yucata, in a translation unit of its own so that the compiler
// optimises each game's search and playout loops on their own (see registry.cpp).
#include "bindings/any_state.h"
#include "games/yucata.h"

namespace kibitz {

GameInfo yucata_entry() {
  GameInfo info{yucata::State::kName,
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
          /*perfect_information=*/true};
  info.chance = false;  // §10: the layout and the start player come from the seed; no chance node
  return info;
}

}  // namespace kibitz
