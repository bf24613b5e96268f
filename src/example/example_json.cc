// Copyright 2026 The inflow Authors.

#include "inflow/example/example_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "inflow/core/json_string.h"
#include "inflow/example/feature_view.h"

namespace inflow {

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<uint32_t>(uint8_t(bytes[k])); };
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = at(i) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (at(i) << 16) | (at(i + 1) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  if (text.size() % 4 == 0 && text.ends_with("==")) {
    text.remove_suffix(2);
  } else if (text.size() % 4 == 0 && text.ends_with('=')) {
    text.remove_suffix(1);
  }
  if (text.size() % 4 == 1) {
    return InvalidArgumentError("bad base64 length " +
                                std::to_string(text.size()));
  }
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const int v = value(text[i]);
    if (v < 0) {
      return InvalidArgumentError("bad base64 character at " +
                                  std::to_string(i));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

namespace {

void AppendFloat(float v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    // json_format's rule: the fewest significant digits, but at least 6,
    // that read back as the same float32.
    char buf[32];
    for (int digits = 6; digits <= 9; ++digits) {
      std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
      if (std::strtof(buf, nullptr) == v) break;
    }
    out->append(buf);
  }
}

void AppendFeature(const FeatureView& f, std::string* out) {
  const char* names[] = {"", "bytesList", "floatList", "int64List"};
  out->push_back('{');
  if (f.kind() != FeatureKind::kNone) {
    out->push_back('"');
    out->append(names[static_cast<int>(f.kind())]);
    out->append("\":{");
    if (f.size() > 0) {
      out->append("\"value\":[");
      bool first = true;
      auto comma = [&] {
        if (!first) out->push_back(',');
        first = false;
      };
      const auto n = static_cast<size_t>(f.size());
      switch (f.kind()) {
        case FeatureKind::kBytes:
          f.ForEachBytes([&](std::string_view v) {
            comma();
            out->push_back('"');
            out->append(Base64Encode(v));
            out->push_back('"');
          });
          break;
        case FeatureKind::kFloat: {
          std::vector<float> v(n);
          f.CopyFloats(v.data());
          for (float x : v) {
            comma();
            AppendFloat(x, out);
          }
          break;
        }
        case FeatureKind::kInt64: {
          std::vector<int64_t> v(n);
          f.CopyInt64s(v.data());
          for (int64_t x : v) {
            comma();
            out->push_back('"');
            out->append(std::to_string(x));
            out->push_back('"');
          }
          break;
        }
        case FeatureKind::kNone:
          break;
      }
      out->push_back(']');
    }
    out->push_back('}');
  }
  out->push_back('}');
}

bool Selected(const ExampleJsonOptions& options, std::string_view key) {
  return options.only_features.empty() ||
         std::find(options.only_features.begin(), options.only_features.end(),
                   key) != options.only_features.end();
}

// {"feature":{...}} or {} for an empty map.
void AppendFeatures(std::span<const FeatureEntry> entries,
                    const ExampleJsonOptions& options, std::string* out) {
  std::map<std::string_view, const FeatureView*> sorted;
  for (const FeatureEntry& e : entries) {
    if (Selected(options, e.key)) sorted[e.key] = &e.value;  // last wins
  }
  if (sorted.empty()) {
    out->append("{}");
    return;
  }
  out->append("{\"feature\":{");
  bool first = true;
  for (const auto& [key, view] : sorted) {
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(key, out);
    out->push_back(':');
    AppendFeature(*view, out);
  }
  out->append("}}");
}

}  // namespace

Result<std::string> ExampleToJson(std::string_view serialized,
                                  const ExampleJsonOptions& options) {
  ExampleView view;
  INFLOW_RETURN_IF_ERROR(view.Parse(serialized));
  std::string out = "{";
  if (view.has_features()) {
    out.append("\"features\":");
    AppendFeatures(view.entries(), options, &out);
  }
  out.push_back('}');
  return out;
}

Result<std::string> SequenceExampleToJson(std::string_view serialized,
                                          const ExampleJsonOptions& options) {
  SequenceExampleView view;
  INFLOW_RETURN_IF_ERROR(view.Parse(serialized));
  std::string out = "{";
  if (view.has_context()) {
    out.append("\"context\":");
    AppendFeatures(view.context(), options, &out);
  }
  if (view.has_feature_lists()) {
    if (view.has_context()) out.push_back(',');
    out.append("\"featureLists\":");
    std::map<std::string_view, const FeatureListEntry*> sorted;
    for (const FeatureListEntry& e : view.feature_lists()) {
      if (Selected(options, e.key)) sorted[e.key] = &e;
    }
    if (sorted.empty()) {
      out.append("{}");
    } else {
      out.append("{\"featureList\":{");
      bool first = true;
      for (const auto& [key, list] : sorted) {
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(key, &out);
        out.push_back(':');
        if (list->features.empty()) {
          out.append("{}");
          continue;
        }
        out.append("{\"feature\":[");
        for (size_t i = 0; i < list->features.size(); ++i) {
          if (i > 0) out.push_back(',');
          AppendFeature(list->features[i], &out);
        }
        out.append("]}");
      }
      out.append("}}");
    }
  }
  out.push_back('}');
  return out;
}

}  // namespace inflow
