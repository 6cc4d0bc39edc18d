// The registry entry of goofspiel, a small test game for simultaneous moves (see registry.cpp).
#include "bindings/any_state.h"
#include "games/goofspiel.h"

namespace kibitz {

GameInfo goofspiel_entry() {
  using goofspiel::State;
  return {State::kName,
          "Goofspiel, a test game for simultaneous moves: 2 seats hold cards 1..N and bid one at once for each prize "
          "1..N turned up at random; the higher bid takes the prize's points, equal bids discard it; more points win.",
          2,
          2,
          {{"players", "number of players: exactly 2"},
           {"cards", "cards per hand and prizes, N = 1-9 (default " + std::to_string(goofspiel::kDefaultCards) + ")"}},
          [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
            return std::make_unique<StateImpl<State>>(State::initial(goofspiel::parse_options(o), seed));
          },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<State>>(State::from_string(t)); },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<State>>(State::from_view(t)); },
          [](const std::map<std::string, std::string>& o) { goofspiel::parse_options(o); }};
}

}  // namespace kibitz
