// Copyright 2026 The inflow Authors.

#include "datafiles/npy_header.h"

#include <limits>

namespace inflow::internal {
namespace {

// A recursive-descent reader over the header text; the first failure is
// kept and every later step fails.
class DictParser {
 public:
  explicit DictParser(std::string_view text) : s_(text) {}

  std::optional<NpyDictError> Parse(NpyDict* dict) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    SkipSpace();
    if (!Expect('{')) return error_;
    SkipSpace();
    while (!error_ && !Peek('}')) {
      const size_t key_pos = pos_;
      std::string key;
      if (!ReadString(&key)) break;
      SkipSpace();
      if (!Expect(':')) break;
      SkipSpace();
      if (key == "descr") {
        if (have_descr) return Fail(key_pos, "duplicate key 'descr'");
        have_descr = true;
        if (Peek('[')) {
          return Fail(pos_,
                      "structured dtypes (a descr list) are not "
                      "supported");
        }
        if (!ReadString(&dict->descr)) break;
      } else if (key == "fortran_order") {
        if (have_fortran) return Fail(key_pos, "duplicate key 'fortran_order'");
        have_fortran = true;
        if (!ReadBool(&dict->fortran_order)) break;
      } else if (key == "shape") {
        if (have_shape) return Fail(key_pos, "duplicate key 'shape'");
        have_shape = true;
        if (!ReadShape(&dict->shape)) break;
      } else {
        return Fail(key_pos, "unexpected key '" + key +
                                 "' (an NPY header has exactly 'descr', "
                                 "'fortran_order' and 'shape')");
      }
      SkipSpace();
      if (Peek(',')) {
        ++pos_;
        SkipSpace();
      } else if (!Peek('}')) {
        Fail(pos_, "expected ',' or '}'");
      }
    }
    if (error_) return error_;
    ++pos_;  // '}'
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '\n') ++pos_;
    if (pos_ != s_.size()) return Fail(pos_, "unexpected text after '}'");
    if (!have_descr) return Fail(pos_, "the header has no 'descr'");
    if (!have_fortran) return Fail(pos_, "the header has no 'fortran_order'");
    if (!have_shape) return Fail(pos_, "the header has no 'shape'");
    return std::nullopt;
  }

 private:
  std::optional<NpyDictError> Fail(size_t pos, std::string message) {
    if (!error_) error_ = NpyDictError{pos, std::move(message)};
    return error_;
  }

  bool Peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  bool Expect(char c) {
    if (Peek(c)) {
      ++pos_;
      return true;
    }
    Fail(pos_, std::string("expected '") + c + "'");
    return false;
  }

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }

  bool ReadString(std::string* out) {
    if (!Peek('\'') && !Peek('"')) {
      Fail(pos_, "expected a quoted string");
      return false;
    }
    const char quote = s_[pos_];
    const size_t start = pos_++;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\' || s_[pos_] == '\n') {
        Fail(pos_, "escapes and line breaks in strings are not supported");
        return false;
      }
      ++pos_;
    }
    if (pos_ == s_.size()) {
      Fail(start, "unterminated string");
      return false;
    }
    *out = std::string(s_.substr(start + 1, pos_ - start - 1));
    ++pos_;
    return true;
  }

  bool ReadBool(bool* out) {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      *out = true;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      *out = false;
      return true;
    }
    Fail(pos_, "expected True or False");
    return false;
  }

  bool ReadInt(int64_t* out) {
    const size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const uint64_t digit = static_cast<uint64_t>(s_[pos_] - '0');
      if (v > (uint64_t{std::numeric_limits<int64_t>::max()} - digit) / 10) {
        Fail(start, "dimension too large");
        return false;
      }
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) {
      Fail(start, "expected a non-negative integer");
      return false;
    }
    if (Peek('L')) ++pos_;
    *out = static_cast<int64_t>(v);
    return true;
  }

  // "()", "(3,)", "(3, 4)", "(3, 4,)"; "(3)" is an int in Python, not a
  // tuple, and NumPy refuses it too.
  bool ReadShape(std::vector<int64_t>* shape) {
    const size_t start = pos_;
    if (!Expect('(')) return false;
    SkipSpace();
    bool trailing_comma = false;
    while (!Peek(')')) {
      int64_t d;
      if (!ReadInt(&d)) return false;
      shape->push_back(d);
      SkipSpace();
      trailing_comma = Peek(',');
      if (trailing_comma) {
        ++pos_;
        SkipSpace();
      } else if (!Peek(')')) {
        Fail(pos_, "expected ',' or ')' in the shape");
        return false;
      }
    }
    ++pos_;
    if (shape->size() == 1 && !trailing_comma) {
      Fail(start, "the shape is not a tuple (write (n,) for one dimension)");
      return false;
    }
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::optional<NpyDictError> error_;
};

}  // namespace

std::optional<NpyDictError> ParseNpyDict(std::string_view text, NpyDict* dict) {
  *dict = NpyDict();
  return DictParser(text).Parse(dict);
}

std::optional<NpyDescr> ParseNpyDescr(std::string_view descr) {
  bool big_endian = false;
  if (!descr.empty() && (descr[0] == '<' || descr[0] == '>' ||
                         descr[0] == '|' || descr[0] == '=')) {
    big_endian = descr[0] == '>';
    descr.remove_prefix(1);
  }
  struct Known {
    std::string_view code;
    DType dtype;
  };
  static constexpr Known kKnown[] = {
      {"b1", DType::kBool},    {"i1", DType::kInt8},    {"i2", DType::kInt16},
      {"i4", DType::kInt32},   {"i8", DType::kInt64},   {"u1", DType::kUInt8},
      {"u2", DType::kUInt16},  {"u4", DType::kUInt32},  {"u8", DType::kUInt64},
      {"f2", DType::kFloat16}, {"f4", DType::kFloat32}, {"f8", DType::kFloat64},
  };
  for (const Known& k : kKnown) {
    if (descr == k.code) {
      const size_t size = DTypeSize(k.dtype);
      return NpyDescr{k.dtype, size, big_endian && size > 1};
    }
  }
  return std::nullopt;
}

}  // namespace inflow::internal
