// Copyright 2026 The inflow Authors.

#include "inflow/core/json_string.h"

#include <cstddef>
#include <cstdint>

namespace inflow {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<uint8_t>(s[i]);
  auto cont = [&](size_t k) {
    return i + k < s.size() && (static_cast<uint8_t>(s[i + k]) & 0xc0) == 0x80;
  };
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    const auto c1 = static_cast<uint8_t>(s[i + 1]);
    if (c == 0xe0 && c1 < 0xa0) return 0;   // overlong
    if (c == 0xed && c1 >= 0xa0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const auto c1 = static_cast<uint8_t>(s[i + 1]);
    if (c == 0xf0 && c1 < 0x90) return 0;
    if (c == 0xf4 && c1 >= 0x90) return 0;
    return 4;
  }
  return 0;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8Length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const size_t n = Utf8Length(s, i);
    if (n == 0) {
      out->append("\xef\xbf\xbd");  // U+FFFD
      ++i;
      continue;
    }
    if (n > 1) {
      out->append(s.substr(i, n));
      i += n;
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (static_cast<uint8_t>(c) < 0x20) {
          static const char* kHex = "0123456789abcdef";
          out->append("\\u00");
          out->push_back(kHex[(c >> 4) & 15]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(c);
        }
    }
    ++i;
  }
  out->push_back('"');
}

}  // namespace inflow
