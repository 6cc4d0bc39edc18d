// Small helpers shared by the games' notation parsers.
#pragma once
#include <charconv>
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

}  // namespace kibitz::text
