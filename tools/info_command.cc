// Copyright 2026 The inflow Authors.
//
// `inflow info`: the library's version, dtypes and status codes, as JSON, so
// scripts (and the tests against TensorFlow) can check the numbers that go
// into files and error reports.

#include <cstdio>
#include <nlohmann/json.hpp>

#include "inflow/core/dtype.h"
#include "inflow/core/status.h"
#include "inflow/version.h"

#include "command.h"

namespace inflow::tools {
namespace {

Status RunInfo() {
  nlohmann::json out;
  out["version"] = kVersion;
  nlohmann::json dtypes = nlohmann::json::array();
  for (int e = 0; e < 32; ++e) {
    std::optional<DType> d = DTypeFromEnum(e);
    if (!d) continue;
    dtypes.push_back(
        {{"name", DTypeName(*d)}, {"enum", e}, {"size", DTypeSize(*d)}});
  }
  out["dtypes"] = dtypes;
  nlohmann::json codes = nlohmann::json::array();
  for (int c = 0; c < kNumStatusCodes; ++c) {
    codes.push_back(
        {{"name", StatusCodeName(static_cast<StatusCode>(c))}, {"code", c}});
  }
  out["status_codes"] = codes;
  std::printf("%s\n", out.dump().c_str());
  return OkStatus();
}

INFLOW_REGISTER_COMMAND("info",
                        "Print version, dtypes and status codes as JSON",
                        [](CLI::App&) { return RunInfo; });

}  // namespace
}  // namespace inflow::tools
