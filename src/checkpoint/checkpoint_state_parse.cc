// Copyright 2026 The inflow Authors.
//
// ParseCheckpointState: protobuf text format for the four fields of
// CheckpointState, accepting what Python protobuf's text_format.Merge
// (which TensorFlow's get_checkpoint_state calls) accepts.

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/core/json_string.h"

namespace inflow {
namespace {

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' ||
         c == '-';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<CheckpointState> Parse() {
    CheckpointState state;
    SkipSpace();
    while (pos_ < text_.size()) {
      INFLOW_RETURN_IF_ERROR(ParseField(&state));
      SkipSpace();
      if (Peek(',') || Peek(';')) {
        Advance(1);
        SkipSpace();
      }
    }
    return state;
  }

 private:
  enum class Field { kModelPath, kAllPaths, kTimestamps, kLastPreserved };

  Status ParseField(CheckpointState* state) {
    const size_t start = pos_;
    if (!IsIdentStart(text_[pos_])) {
      return Error(start, std::string("expected a field name, got '") +
                              text_[pos_] + "'");
    }
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) Advance(1);
    const std::string_view name = text_.substr(start, pos_ - start);
    Field field;
    if (name == "model_checkpoint_path") {
      field = Field::kModelPath;
    } else if (name == "all_model_checkpoint_paths") {
      field = Field::kAllPaths;
    } else if (name == "all_model_checkpoint_timestamps") {
      field = Field::kTimestamps;
    } else if (name == "last_preserved_timestamp") {
      field = Field::kLastPreserved;
    } else {
      return Error(start, "CheckpointState has no field named \"" +
                              std::string(name) + "\"");
    }
    SkipSpace();
    if (!Peek(':'))
      return Error(pos_, "expected ':' after " + std::string(name));
    Advance(1);
    SkipSpace();
    const bool repeated =
        field == Field::kAllPaths || field == Field::kTimestamps;
    if (repeated && Peek('[')) {
      Advance(1);
      SkipSpace();
      if (Peek(']')) {
        Advance(1);
        return OkStatus();
      }
      while (true) {
        INFLOW_RETURN_IF_ERROR(ParseValue(field, state));
        SkipSpace();
        if (Peek(']')) {
          Advance(1);
          return OkStatus();
        }
        if (!Peek(',')) return Error(pos_, "expected ',' or ']' in a list");
        Advance(1);
        SkipSpace();
      }
    }
    return ParseValue(field, state);
  }

  Status ParseValue(Field field, CheckpointState* state) {
    if (field == Field::kModelPath || field == Field::kAllPaths) {
      INFLOW_ASSIGN_OR_RETURN(std::string value, ParseStrings());
      if (field == Field::kModelPath) {
        state->model_checkpoint_path = std::move(value);
      } else {
        state->all_model_checkpoint_paths.push_back(std::move(value));
      }
      return OkStatus();
    }
    INFLOW_ASSIGN_OR_RETURN(double value, ParseDouble());
    if (field == Field::kTimestamps) {
      state->all_model_checkpoint_timestamps.push_back(value);
    } else {
      state->last_preserved_timestamp = value;
    }
    return OkStatus();
  }

  // One or more adjacent string literals, concatenated.
  Result<std::string> ParseStrings() {
    const size_t start = pos_;
    if (!(Peek('"') || Peek('\''))) {
      return Error(start, "expected a string, got " + TokenAt(start));
    }
    std::string value;
    while (Peek('"') || Peek('\'')) {
      INFLOW_RETURN_IF_ERROR(ParseString(&value));
      SkipSpace();
    }
    if (!IsValidUtf8(value)) {
      return Error(start, "string is not valid UTF-8");
    }
    return value;
  }

  Status ParseString(std::string* out) {
    const size_t start = pos_;
    const char quote = text_[pos_];
    Advance(1);
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Error(start, "string missing ending quote");
      }
      const char c = text_[pos_];
      if (c == quote) {
        Advance(1);
        return OkStatus();
      }
      if (c != '\\') {
        *out += c;
        Advance(1);
        continue;
      }
      const size_t escape = pos_;
      Advance(1);
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Error(start, "string missing ending quote");
      }
      const char e = text_[pos_];
      Advance(1);
      switch (e) {
        case 'a':
          *out += '\a';
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
          break;
        case 'v':
          *out += '\v';
          break;
        case '\\':
          *out += '\\';
          break;
        case '\'':
          *out += '\'';
          break;
        case '"':
          *out += '"';
          break;
        case 'x': {
          int value = 0;
          int digits = 0;
          while (digits < 2 && pos_ < text_.size() &&
                 HexValue(text_[pos_]) >= 0) {
            value = value * 16 + HexValue(text_[pos_]);
            Advance(1);
            ++digits;
          }
          if (digits == 0) return Error(escape, "\\x with no hex digits");
          *out += static_cast<char>(value);
          break;
        }
        case 'u':
        case 'U': {
          const int want = e == 'u' ? 4 : 8;
          uint32_t cp = 0;
          for (int i = 0; i < want; ++i) {
            if (pos_ >= text_.size() || HexValue(text_[pos_]) < 0) {
              return Error(escape, std::string("\\") + e + " needs " +
                                       std::to_string(want) + " hex digits");
            }
            cp = cp * 16 + static_cast<uint32_t>(HexValue(text_[pos_]));
            Advance(1);
          }
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return Error(escape, "escape is not a Unicode scalar value");
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int value = e - '0';
            for (int i = 0; i < 2 && pos_ < text_.size() &&
                            text_[pos_] >= '0' && text_[pos_] <= '7';
                 ++i) {
              value = value * 8 + (text_[pos_] - '0');
              Advance(1);
            }
            if (value > 0xFF) return Error(escape, "octal escape above \\377");
            *out += static_cast<char>(value);
          } else {
            // Python's unescaping keeps an unknown escape (\q, also \?)
            // as written.
            *out += '\\';
            *out += e;
          }
      }
    }
  }

  // A number token ([0-9+-] or '.' digit, then [0-9A-Za-z_.+-]*) or an
  // identifier: decimal with optional exponent and 'f' suffix, or inf,
  // infinity, nan in any case, signed.
  Result<double> ParseDouble() {
    const size_t start = pos_;
    const bool number_start =
        pos_ < text_.size() &&
        (IsDigit(text_[pos_]) || text_[pos_] == '+' || text_[pos_] == '-' ||
         (text_[pos_] == '.' && pos_ + 1 < text_.size() &&
          IsDigit(text_[pos_ + 1])));
    if (!number_start && !(pos_ < text_.size() && IsIdentStart(text_[pos_]))) {
      return Error(start, "expected a number, got " + TokenAt(start));
    }
    Advance(1);
    while (pos_ < text_.size() &&
           (IsIdentChar(text_[pos_]) || text_[pos_] == '.')) {
      Advance(1);
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    std::string_view body = token;
    bool negative = false;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
      negative = body[0] == '-';
      body.remove_prefix(1);
    }
    if (!body.empty() && (body.back() == 'f' || body.back() == 'F')) {
      const std::string_view trimmed = body.substr(0, body.size() - 1);
      if (!trimmed.empty() && !EqualsIgnoreCase(body, "inf")) body = trimmed;
    }
    if (EqualsIgnoreCase(body, "inf") || EqualsIgnoreCase(body, "infinity")) {
      return negative ? -HUGE_VAL : HUGE_VAL;
    }
    if (EqualsIgnoreCase(body, "nan")) return std::nan("");
    // digits [. digits] [e [+-] digits], at least one mantissa digit.
    size_t i = 0;
    size_t mantissa_digits = 0;
    while (i < body.size() && IsDigit(body[i])) ++i, ++mantissa_digits;
    if (i < body.size() && body[i] == '.') {
      ++i;
      while (i < body.size() && IsDigit(body[i])) ++i, ++mantissa_digits;
    }
    bool ok = mantissa_digits > 0;
    if (ok && i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
      ++i;
      if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
      size_t exponent_digits = 0;
      while (i < body.size() && IsDigit(body[i])) ++i, ++exponent_digits;
      ok = exponent_digits > 0;
    }
    if (!ok || i != body.size()) {
      return Error(start,
                   "cannot parse \"" + std::string(token) + "\" as a double");
    }
    const std::string digits(body);
    const double magnitude = std::strtod(digits.c_str(), nullptr);
    return negative ? -magnitude : magnitude;
  }

  std::string TokenAt(size_t at) const {
    if (at >= text_.size()) return "end of input";
    return std::string("'") + text_[at] + "'";
  }

  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  void Advance(size_t n) { pos_ += n; }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      if (IsSpace(text_[pos_])) {
        Advance(1);
      } else if (text_[pos_] == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance(1);
      } else {
        return;
      }
    }
  }

  // DATA_LOSS "L:C: message" for the byte at `at` (1-based line and
  // column).
  Status Error(size_t at, std::string message) const {
    size_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    return DataLossError(std::to_string(line) + ":" +
                         std::to_string(at - line_start + 1) + ": " + message);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<CheckpointState> ParseCheckpointState(std::string_view text) {
  return Parser(text).Parse();
}

}  // namespace inflow
