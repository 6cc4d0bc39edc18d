// Small helpers shared by the games' notation parsers.
#pragma once
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/game.h"

namespace kibitz::text {

inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = s.find(sep, begin);
    parts.push_back(s.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

// Whitespace-separated words, empty words dropped.
inline std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Parses a whole non-negative integer in [lo, hi] or throws NotationError naming `what`.
inline int to_int(std::string_view s, int lo, int hi, std::string_view what) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || value < lo || value > hi)
    throw NotationError(std::string(what) + ": expected an integer in " + std::to_string(lo) +
                        ".." + std::to_string(hi) + ", got '" + std::string(s) + "'");
  return value;
}

// A 64-bit hash of a text; a game whose view text is exactly what a seat may know uses the
// hash of its view as info_key.
inline std::uint64_t hash(std::string_view s) {
  std::uint64_t h = s.size();
  for (std::size_t i = 0; i < s.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, s.data() + i, std::min<std::size_t>(8, s.size() - i));
    h = hash_mix(h, word);
  }
  return h;
}

// The key=value words of a notation after the game's name; every key at most once, none
// outside `allowed`.
inline std::map<std::string, std::string> fields(std::string_view text, std::string_view game, std::initializer_list<const char*> allowed) {
  const auto all = words(text);
  if (all.empty() || all[0] != game) throw NotationError("notation must start with '" + std::string(game) + "'");
  std::map<std::string, std::string> out;
  for (std::size_t i = 1; i < all.size(); ++i) {
    const auto eq = all[i].find('=');
    if (eq == std::string_view::npos) throw NotationError("expected key=value, got '" + std::string(all[i]) + "'");
    std::string key(all[i].substr(0, eq));
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; }) == allowed.end())
      throw NotationError("unknown field '" + key + "'");
    if (!out.emplace(key, std::string(all[i].substr(eq + 1))).second) throw NotationError("field '" + key + "' given twice");
  }
  return out;
}

// Notation versions (docs/formats.md). A game whose notation changed after it was first
// released declares `static constexpr int kNotationVersion` (the others are at version 1); its
// notations end in the field version=<n>, and a notation without that field is version 1. The
// bindings write and check the field (take_version) around every game's own writer and reader,
// which never see it.
inline constexpr std::string_view kVersionKey = "version";

template <class S>
constexpr int notation_version() {
  if constexpr (requires { S::kNotationVersion; })
    return S::kNotationVersion;
  else
    return 1;
}

// `notation` with its version field, which a version-1 notation goes without.
inline std::string with_version(std::string notation, int version) {
  if (version > 1) notation += " " + std::string(kVersionKey) + "=" + std::to_string(version);
  return notation;
}

// Takes the version field out of a notation of `game` and returns the version (1 without one).
// Throws NotationError for a version field that is not a version, or for a version this build
// cannot read (newer than `newest`), naming the version the notation needs. A text that is not
// a notation of `game` is left to the game's reader to refuse.
inline int take_version(std::string& notation, std::string_view game, int newest) {
  const auto all = words(notation);
  if (all.empty() || all[0] != game) return 1;
  const std::string prefix = std::string(kVersionKey) + "=";
  int version = 1;
  std::size_t at = std::string::npos, length = 0;
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].substr(0, prefix.size()) != prefix) continue;
    if (at != std::string::npos) throw NotationError("field '" + std::string(kVersionKey) + "' given twice");
    const std::string_view value = all[i].substr(prefix.size());
    int parsed = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || parsed < 1)
      throw NotationError(std::string(kVersionKey) + ": expected a notation version 1.." + std::to_string(newest) + ", got '" + std::string(value) + "'");
    if (parsed > newest)
      throw NotationError("this " + std::string(game) + " notation is version " + std::to_string(parsed) + ": reading it needs a kibitz that reads " +
                          std::string(game) + " notation version " + std::to_string(parsed) + "; this one reads versions 1.." + std::to_string(newest));
    version = parsed;
    at = static_cast<std::size_t>(all[i].data() - notation.data());
    length = all[i].size();
  }
  if (at != std::string::npos) notation.erase(at, length);
  return version;
}

inline const std::string& require(const std::map<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end()) throw NotationError("missing field '" + key + "'");
  return it->second;
}

// A per-player list "a,b,c"; each item parsed by `item(player, text)`.
template <class Item>
void parse_per_player(std::string_view s, int players, std::string_view what, Item item) {
  const auto parts = split(s, ',');
  if (static_cast<int>(parts.size()) != players)
    throw NotationError(std::string(what) + ": expected " + std::to_string(players) + " comma-separated entries, got '" + std::string(s) + "'");
  for (int p = 0; p < players; ++p) item(p, parts[p]);
}

}  // namespace kibitz::text
