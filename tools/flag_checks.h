// Copyright 2026 The inflow Authors.
//
// Validators for the CLI's numeric and enum flags. A value they reject is a
// usage error (exit 2) whose message names the flag and the value, e.g.
// "--steps: 0 is outside [1, 9223372036854775807]".
//
// CLI11 converts integers with strtoll(base 0), which clamps an overflow
// to the type's limit, reads "010" as octal 8 and lets "-1" wrap into an
// unsigned flag. IntegerIn() reads decimal only, checks the range exactly
// and hands CLI11 the canonical digits, so none of that happens: add it
// with ->transform() (->check() would discard the digits it rewrites).

#ifndef INFLOW_TOOLS_FLAG_CHECKS_H_
#define INFLOW_TOOLS_FLAG_CHECKS_H_

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace inflow::tools {

// A decimal integer in [min, max].
inline CLI::Validator IntegerIn(int64_t min, int64_t max) {
  const std::string range =
      "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& value) -> std::string {
        int64_t v = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, v, 10);
        if (value.empty() || ptr != end ||
            (ec != std::errc() && ec != std::errc::result_out_of_range)) {
          return value + " is not a decimal integer";
        }
        if (ec == std::errc::result_out_of_range || v < min || v > max) {
          return value + " is outside " + range;
        }
        value = std::to_string(v);
        return "";
      },
      range);
}

// A finite number > 0.
inline CLI::Validator PositiveFinite() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size()) {
          return value + " is not a number";
        }
        if (!std::isfinite(v) || v <= 0) {
          return value + " is not a finite number > 0";
        }
        return "";
      },
      "POSITIVE");
}

// A name `parse` (e.g. ParseFeedKind) accepts, else "VALUE not in
// CHOICES"; `choices` is also the help text's, e.g. "{queue,sync}".
template <typename Parse>
CLI::Validator KindName(Parse parse, std::string choices) {
  return CLI::Validator(
      [parse = std::move(parse), choices](std::string& value) -> std::string {
        return parse(value).ok() ? "" : value + " not in " + choices;
      },
      choices);
}

}  // namespace inflow::tools

#endif  // INFLOW_TOOLS_FLAG_CHECKS_H_
