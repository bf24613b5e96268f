// Copyright 2026 The inflow Authors.
//
// Glob patterns for file names, as tf.io.matching_files takes them
// (docs/conformance.md, "File patterns"). Env's GetMatchingPaths
// (io/env.h) and input's MatchFiles (input/file_match.h) match with these.
//
// Wildcards: `*` (any run of characters, also none and also a leading
// "."), `?` (one character), `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` (one
// character in or not in the set) and `\x` (a literal x).

#ifndef INFLOW_IO_GLOB_H_
#define INFLOW_IO_GLOB_H_

#include <string_view>

namespace inflow {

// True when `name` matches the glob `pattern` as a whole (both are file
// names; `/` is an ordinary character). A malformed pattern (an unclosed
// `[`, a trailing `\`) matches nothing.
bool GlobMatch(std::string_view pattern, std::string_view name);

// True when `pattern` contains an unescaped wildcard (`*`, `?` or `[`).
bool HasGlobChars(std::string_view pattern);

}  // namespace inflow

#endif  // INFLOW_IO_GLOB_H_
