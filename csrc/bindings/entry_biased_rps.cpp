// The registry entry of biased_rps, a test game with a known mixed equilibrium (see registry.cpp).
#include "bindings/any_state.h"
#include "games/biased_rps.h"

namespace kibitz {

GameInfo biased_rps_entry() {
  using brps::State;
  return {State::kName,
          "Biased rock-paper-scissors, a test game for simultaneous moves: both seats choose at once; seat 0's payoff "
          "is 0,-25,50 / 25,0,-5 / -50,5,0 and a chance node turns it into a win with probability (1 + u/50)/2. "
          "Equilibrium (1/16, 10/16, 5/16) for each seat, value 1/2.",
          2,
          2,
          {{"players", "number of players: exactly 2"}},
          [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
            return std::make_unique<StateImpl<State>>(State::initial(brps::parse_options(o), seed));
          },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<State>>(State::from_string(t)); },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<State>>(State::from_view(t)); },
          [](const std::map<std::string, std::string>& o) { brps::parse_options(o); }};
}

}  // namespace kibitz
