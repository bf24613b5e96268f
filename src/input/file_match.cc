// Copyright 2026 The inflow Authors.

#include "inflow/input/file_match.h"

#include <algorithm>

#include "inflow/io/glob.h"

namespace inflow {

Result<std::vector<std::string>> MatchFiles(
    Env& env, const std::vector<std::string>& patterns) {
  if (patterns.empty()) {
    return InvalidArgumentError("MatchFiles needs at least one pattern");
  }
  std::vector<std::string> paths;
  for (const std::string& pattern : patterns) {
    INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> matches,
                            GetMatchingPaths(env, pattern));
    if (matches.empty()) {
      return NotFoundError("no file matches the pattern \"" + pattern + "\"");
    }
    paths.insert(paths.end(), matches.begin(), matches.end());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace inflow
