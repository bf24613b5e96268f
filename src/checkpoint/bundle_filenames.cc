// Copyright 2026 The inflow Authors.

#include <cstdio>

#include "inflow/checkpoint/bundle.h"

namespace inflow {

std::string BundleIndexFilename(std::string_view prefix) {
  std::string name(prefix);
  name += ".index";
  return name;
}

std::string BundleDataFilename(std::string_view prefix, int shard,
                               int num_shards) {
  char suffix[48];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard,
                num_shards);
  std::string name(prefix);
  name += suffix;
  return name;
}

}  // namespace inflow
