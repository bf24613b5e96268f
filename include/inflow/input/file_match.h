// Copyright 2026 The inflow Authors.
//
// File patterns as tf.io.matching_files takes them: a glob in the file
// name part of a path (docs/conformance.md, "File patterns").
//
//   std::vector<std::string> shards =
//       MatchFiles(Env::Default(), {"/data/train-*-of-0000[0-3]"}).value();
//
// The wildcards are io/glob.h's (GlobMatch); the directory part is taken
// literally.

#ifndef INFLOW_INPUT_FILE_MATCH_H_
#define INFLOW_INPUT_FILE_MATCH_H_

#include <string>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/io/env.h"

namespace inflow {

// The paths matching any of `patterns`, as TF's MatchingFiles: all of
// them sorted together, a path matched by two patterns listed twice. A
// pattern without wildcards names one file, which must exist. Errors: a
// pattern that matches nothing is NOT_FOUND naming the pattern (TF returns
// no paths; see docs/conformance.md); wildcards in the directory part or
// no patterns at all are INVALID_ARGUMENT; errors listing a directory
// carry the pattern.
Result<std::vector<std::string>> MatchFiles(
    Env& env, const std::vector<std::string>& patterns);

}  // namespace inflow

#endif  // INFLOW_INPUT_FILE_MATCH_H_
