// The list of games. Adding a game: one entry function (csrc/bindings/entry_<game>.cpp) and
// one line here (see docs/architecture.md). Each entry lives in its own translation unit
// because with every game's search instantiated in one file, Just 4 Fun Colours' random
// playouts ran about 20 % slower (measured against the one-game build; GCC inlines less in a
// large unit).
#include "bindings/any_state.h"
#include "core/text.h"

namespace kibitz {

GameInfo just4fun_colours_entry();
GameInfo yucata_entry();
GameInfo canasta_tiles_entry();
GameInfo yak_entry();
GameInfo biased_rps_entry();
GameInfo goofspiel_entry();

const std::vector<GameInfo>& registry() {
  static const std::vector<GameInfo> games = [] {
    std::vector<GameInfo> all = {just4fun_colours_entry(), yucata_entry(), canasta_tiles_entry(), yak_entry(), biased_rps_entry(), goofspiel_entry()};
    for (GameInfo& g : all) {  // from the state type: declared once
      const auto initial = g.initial({}, 0);
      g.simultaneous = initial->has_simultaneous_moves();
      g.max_actions = initial->max_actions();
      g.max_chance_outcomes = initial->max_chance_outcomes();
      g.notation_version = initial->notation_version();
      // Every reader takes the version field out first, refusing a version this build does not
      // read; the game's reader sees the rest (and fills a field an older version lacks).
      for (auto* reader : {&g.from_string, &g.from_view})
        *reader = [read = *reader, name = g.name, newest = g.notation_version](const std::string& notation) {
          std::string rest = notation;
          text::take_version(rest, name, newest);
          return read(rest);
        };
    }
    return all;
  }();
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
