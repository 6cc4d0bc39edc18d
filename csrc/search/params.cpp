#include "search/params.h"

namespace kibitz::search {

std::string algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::kUct: return "uct";
    case Algorithm::kPimc: return "pimc";
    case Algorithm::kSoIsmcts: return "so_ismcts";
    case Algorithm::kMoIsmcts: return "mo_ismcts";
  }
  return "?";
}

Algorithm parse_algorithm(const std::string& name) {
  for (Algorithm a : {Algorithm::kUct, Algorithm::kPimc, Algorithm::kSoIsmcts, Algorithm::kMoIsmcts})
    if (algorithm_name(a) == name) return a;
  throw OptionError("unknown search algorithm '" + name + "'; expected one of uct, pimc, so_ismcts, mo_ismcts");
}

}  // namespace kibitz::search
