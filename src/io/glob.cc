// Copyright 2026 The inflow Authors.

#include "inflow/io/glob.h"

#include <algorithm>
#include <string>
#include <vector>

#include "inflow/io/env.h"

namespace inflow {
namespace {

// Matches one bracket expression at pattern[*p] (just after its '[')
// against `c`; advances *p past the closing ']'. False for an unclosed
// bracket (the pattern then matches nothing).
bool MatchBracket(std::string_view pattern, size_t* p, char c, bool* valid) {
  size_t i = *p;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char lo = pattern[i];
    if (lo == '\\' && i + 1 < pattern.size()) lo = pattern[++i];
    ++i;
    char hi = lo;
    if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
      hi = pattern[i + 1];
      if (hi == '\\' && i + 2 < pattern.size()) hi = pattern[++i + 1];
      i += 2;
    }
    if (lo <= c && c <= hi) found = true;
  }
  if (i >= pattern.size()) {
    *valid = false;
    return false;
  }
  *p = i + 1;  // past ']'
  return found != negate;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view name) {
  // Iterative matching with one backtrack point (the last '*'), which is
  // enough for globs: linear in practice, never exponential.
  size_t p = 0, n = 0;
  size_t star_p = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    bool advanced = false;
    if (p < pattern.size()) {
      const char c = pattern[p];
      if (c == '*') {
        star_p = ++p;
        star_n = n;
        continue;
      }
      if (c == '?') {
        ++p;
        ++n;
        advanced = true;
      } else if (c == '[') {
        size_t q = p + 1;
        bool valid = true;
        if (MatchBracket(pattern, &q, name[n], &valid)) {
          p = q;
          ++n;
          advanced = true;
        } else if (!valid) {
          return false;
        }
      } else {
        char literal = c;
        size_t q = p + 1;
        if (c == '\\') {
          if (q >= pattern.size()) return false;
          literal = pattern[q++];
        }
        if (literal == name[n]) {
          p = q;
          ++n;
          advanced = true;
        }
      }
    }
    if (advanced) continue;
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    n = ++star_n;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool HasGlobChars(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
    } else if (pattern[i] == '*' || pattern[i] == '?' || pattern[i] == '[') {
      return true;
    }
  }
  return false;
}

Result<std::vector<std::string>> GetMatchingPaths(Env& env,
                                                  const std::string& pattern) {
  const size_t slash = pattern.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "" : pattern.substr(0, slash);
  const std::string base =
      slash == std::string::npos ? pattern : pattern.substr(slash + 1);
  if (HasGlobChars(dir)) {
    return InvalidArgumentError("file pattern \"" + pattern +
                                "\": wildcards are supported in the file "
                                "name only, not in the directory");
  }
  std::vector<std::string> paths;
  if (!HasGlobChars(base)) {
    Status exists = env.FileExists(pattern);
    if (IsNotFound(exists)) return paths;
    if (!exists.ok()) return exists.WithContext("file pattern " + pattern);
    paths.push_back(pattern);
    return paths;
  }
  Result<std::vector<std::string>> children =
      env.GetChildren(dir.empty() ? "." : (slash == 0 ? "/" : dir));
  if (!children.ok()) {
    if (IsNotFound(children.status())) return paths;
    return children.status().WithContext("file pattern " + pattern);
  }
  for (const std::string& child : *children) {
    if (GlobMatch(base, child)) {
      paths.push_back(slash == std::string::npos
                          ? child
                          : pattern.substr(0, slash + 1) + child);
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace inflow
