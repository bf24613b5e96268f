// Copyright 2026 The inflow Authors.

#include "proto/proto_message.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "proto/wire.h"

namespace inflow::internal {

ProtoMessage::ProtoMessage(const ProtoMessage& other) { *this = other; }

ProtoMessage& ProtoMessage::operator=(const ProtoMessage& other) {
  if (this == &other) return *this;
  fields_.clear();
  fields_.reserve(other.fields_.size());
  for (const Field& f : other.fields_) {
    Field copy{f.number, f.name, f.kind, f.packed, f.i, f.f, f.s, nullptr};
    if (f.message) copy.message = std::make_unique<ProtoMessage>(*f.message);
    fields_.push_back(std::move(copy));
  }
  return *this;
}

ProtoMessage::~ProtoMessage() = default;

ProtoMessage::Field& ProtoMessage::Add(int number, std::string_view name,
                                       Kind kind, bool packed) {
  Field& f = fields_.emplace_back();
  f.number = number;
  f.name = std::string(name);
  f.kind = kind;
  f.packed = packed;
  return f;
}

ProtoMessage& ProtoMessage::AddInt(int number, std::string_view name,
                                   int64_t value, bool packed) {
  Add(number, name, Kind::kInt, packed).i = value;
  return *this;
}

ProtoMessage& ProtoMessage::AddBool(int number, std::string_view name,
                                    bool value, bool packed) {
  Add(number, name, Kind::kBool, packed).i = value ? 1 : 0;
  return *this;
}

ProtoMessage& ProtoMessage::AddEnum(int number, std::string_view name,
                                    int value, std::string_view value_name,
                                    bool packed) {
  Field& f = Add(number, name, Kind::kEnum, packed);
  f.i = value;
  f.s = std::string(value_name);
  return *this;
}

ProtoMessage& ProtoMessage::AddFloat(int number, std::string_view name,
                                     float value, bool packed) {
  Add(number, name, Kind::kFloat, packed).f = value;
  return *this;
}

ProtoMessage& ProtoMessage::AddBytes(int number, std::string_view name,
                                     std::string_view value) {
  Add(number, name, Kind::kBytes, false).s = std::string(value);
  return *this;
}

ProtoMessage& ProtoMessage::AddMessage(int number, std::string_view name) {
  Field& f = Add(number, name, Kind::kMessage, false);
  f.message = std::make_unique<ProtoMessage>();
  return *f.message;
}

ProtoMessage& ProtoMessage::AddMessage(int number, std::string_view name,
                                       ProtoMessage value) {
  AddMessage(number, name) = std::move(value);
  return *this;
}

std::vector<size_t> ProtoMessage::Order() const {
  std::vector<size_t> order(fields_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
    return fields_[a].number < fields_[b].number;
  });
  return order;
}

namespace {

void PutFixed32(std::string* out, float v) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  for (int k = 0; k < 4; ++k) {
    out->push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
  }
}

}  // namespace

void ProtoMessage::AppendBinary(std::string* out) const {
  const std::vector<size_t> order = Order();
  for (size_t k = 0; k < order.size(); ++k) {
    const Field& f = fields_[order[k]];
    if (f.packed) {
      // One run for every value of this field.
      std::string run;
      size_t end = k;
      for (; end < order.size() && fields_[order[end]].number == f.number;
           ++end) {
        const Field& v = fields_[order[end]];
        if (v.kind == Kind::kFloat) {
          PutFixed32(&run, v.f);
        } else {
          PutVarint(&run, static_cast<uint64_t>(v.i));
        }
      }
      PutLengthDelimited(out, f.number, run);
      k = end - 1;
      continue;
    }
    switch (f.kind) {
      case Kind::kInt:
      case Kind::kBool:
      case Kind::kEnum:
        PutTag(out, f.number, kWireVarint);
        PutVarint(out, static_cast<uint64_t>(f.i));
        break;
      case Kind::kFloat:
        PutTag(out, f.number, kWireFixed32);
        PutFixed32(out, f.f);
        break;
      case Kind::kBytes:
        PutLengthDelimited(out, f.number, f.s);
        break;
      case Kind::kMessage:
        PutLengthDelimited(out, f.number, f.message->SerializeAsString());
        break;
    }
  }
}

std::string ProtoMessage::SerializeAsString() const {
  std::string out;
  AppendBinary(&out);
  return out;
}

void ProtoMessage::AppendText(std::string* out, int indent) const {
  for (size_t index : Order()) {
    const Field& f = fields_[index];
    out->append(static_cast<size_t>(indent), ' ');
    out->append(f.name);
    switch (f.kind) {
      case Kind::kMessage:
        out->append(" {\n");
        f.message->AppendText(out, indent + 2);
        out->append(static_cast<size_t>(indent), ' ');
        out->append("}\n");
        continue;
      case Kind::kInt:
        out->append(": " + std::to_string(f.i));
        break;
      case Kind::kBool:
        out->append(f.i ? ": true" : ": false");
        break;
      case Kind::kEnum:
        out->append(": " + f.s);
        break;
      case Kind::kFloat:
        out->append(": " + PythonFloatRepr(static_cast<double>(f.f)));
        break;
      case Kind::kBytes:
        out->append(": \"" + TextFormatCEscape(f.s) + "\"");
        break;
    }
    out->push_back('\n');
  }
}

std::string ProtoMessage::ToText() const {
  std::string out;
  AppendText(&out, 0);
  return out;
}

}  // namespace inflow::internal
