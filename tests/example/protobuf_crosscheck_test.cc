// Copyright 2026 The inflow Authors.
//
// Cross-check against libprotobuf's generated classes (tests/example/
// example.proto, TF's field numbers) on random examples, both ways, and on
// random odd encodings that only a hand-rolled encoder would produce.

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/example/feature_view.h"

#include "example.pb.h"
#include "example/wire_builder.h"
#include "example_lenient.pb.h"

namespace inflow {
namespace {

using ::inflow::testing::Len;
using ::inflow::testing::Tag;
using ::inflow::testing::Varint;

constexpr int kRandomExamples = 10000;

// ---- conversions ------------------------------------------------------

void ToProto(const Feature& f, tensorflow::Feature* out) {
  switch (f.kind()) {
    case FeatureKind::kBytes: {
      auto* list = out->mutable_bytes_list();
      for (const std::string& v : f.bytes()) list->add_value(v);
      break;
    }
    case FeatureKind::kFloat: {
      auto* list = out->mutable_float_list();
      for (float v : f.floats()) list->add_value(v);
      break;
    }
    case FeatureKind::kInt64: {
      auto* list = out->mutable_int64_list();
      for (int64_t v : f.int64s()) list->add_value(v);
      break;
    }
    case FeatureKind::kNone:
      break;
  }
}

// Works for tensorflow:: and inflow_lenient:: messages alike.
template <typename FeatureProto>
Feature FeatureFromProto(const FeatureProto& f) {
  if (f.has_bytes_list()) {
    return Feature::Bytes(
        {f.bytes_list().value().begin(), f.bytes_list().value().end()});
  }
  if (f.has_float_list()) {
    return Feature::Floats(
        {f.float_list().value().begin(), f.float_list().value().end()});
  }
  if (f.has_int64_list()) {
    return Feature::Int64s(
        {f.int64_list().value().begin(), f.int64_list().value().end()});
  }
  return Feature();
}

tensorflow::Example ToProto(const Example& ex) {
  tensorflow::Example out;
  auto* map = out.mutable_features()->mutable_feature();
  for (const auto& [key, f] : ex.features()) ToProto(f, &(*map)[key]);
  return out;
}

template <typename ExampleProto>
Example ExampleFromProto(const ExampleProto& ex) {
  Example out;
  for (const auto& [key, f] : ex.features().feature()) {
    out.Set(key, FeatureFromProto(f));
  }
  return out;
}

tensorflow::SequenceExample ToProto(const SequenceExample& se) {
  tensorflow::SequenceExample out;
  auto* context = out.mutable_context()->mutable_feature();
  for (const auto& [key, f] : se.context()) ToProto(f, &(*context)[key]);
  auto* lists = out.mutable_feature_lists()->mutable_feature_list();
  for (const auto& [key, steps] : se.feature_lists()) {
    tensorflow::FeatureList& list = (*lists)[key];
    for (const Feature& f : steps) ToProto(f, list.add_feature());
  }
  return out;
}

SequenceExample FromProto(const tensorflow::SequenceExample& se) {
  SequenceExample out;
  for (const auto& [key, f] : se.context().feature()) {
    out.SetContext(key, FeatureFromProto(f));
  }
  for (const auto& [key, list] : se.feature_lists().feature_list()) {
    std::vector<Feature> steps;
    for (const auto& f : list.feature()) steps.push_back(FeatureFromProto(f));
    out.SetFeatureList(key, std::move(steps));
  }
  return out;
}

std::string Deterministic(const google::protobuf::MessageLite& msg) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream sos(&out);
    google::protobuf::io::CodedOutputStream cos(&sos);
    cos.SetSerializationDeterministic(true);
    msg.SerializeToCodedStream(&cos);
  }
  return out;
}

// ---- random values ----------------------------------------------------

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  bool Coin(int percent = 50) { return Int(1, 100) <= percent; }

  // Valid UTF-8 keys (libprotobuf rejects other proto3 strings).
  std::string Key() {
    static const char* kPieces[] = {
        "a", "b", "label", "image", "x_1", "\xc3\xa4", "\xe2\x96\x81", "", "Z"};
    std::string k;
    const int n = Int(0, 3);
    for (int i = 0; i < n; ++i) k += kPieces[Int(0, 8)];
    return k;
  }

  std::string Bytes() {
    std::string s(static_cast<size_t>(Int(0, Coin(10) ? 300 : 12)), '\0');
    for (char& c : s) c = static_cast<char>(Int(0, 255));
    return s;
  }

  float Float() {
    switch (Int(0, 5)) {
      case 0:
        return 0.0f;
      case 1: {
        const uint32_t bits = static_cast<uint32_t>(rng_());
        float f;
        std::memcpy(&f, &bits, 4);  // any bit pattern, NaNs included
        return f;
      }
      default:
        return std::uniform_real_distribution<float>(-1e6f, 1e6f)(rng_);
    }
  }

  int64_t Int64() {
    switch (Int(0, 4)) {
      case 0:
        return Int(-3, 3);
      case 1:
        return static_cast<int64_t>(rng_() | (uint64_t{rng_()} << 32));
      default:
        return Int(0, 100000);
    }
  }

  Feature RandomFeature() {
    const int n = Int(0, Coin(10) ? 40 : 5);
    switch (Int(0, 3)) {
      case 0:
        return Feature();
      case 1: {
        std::vector<std::string> v;
        for (int i = 0; i < n; ++i) v.push_back(Bytes());
        return Feature::Bytes(std::move(v));
      }
      case 2: {
        std::vector<float> v;
        for (int i = 0; i < n; ++i) v.push_back(Float());
        return Feature::Floats(std::move(v));
      }
      default: {
        std::vector<int64_t> v;
        for (int i = 0; i < n; ++i) v.push_back(Int64());
        return Feature::Int64s(std::move(v));
      }
    }
  }

  Example RandomExample() {
    Example ex;
    const int n = Int(0, 8);
    for (int i = 0; i < n; ++i) ex.Set(Key(), RandomFeature());
    return ex;
  }

  SequenceExample RandomSequenceExample() {
    SequenceExample se;
    for (int i = Int(0, 3); i > 0; --i) se.SetContext(Key(), RandomFeature());
    for (int i = Int(0, 3); i > 0; --i) {
      std::vector<Feature> steps;
      for (int t = Int(0, 4); t > 0; --t) steps.push_back(RandomFeature());
      se.SetFeatureList(Key(), std::move(steps));
    }
    return se;
  }

  // ---- odd encodings: what the protobuf wire format allows -------------

  std::string Unknown() {
    switch (Int(0, 4)) {
      case 0:
        return Tag(static_cast<uint32_t>(Int(4, 2000)), 0) +
               Varint(static_cast<uint64_t>(Int64()));
      case 1:
        return Tag(static_cast<uint32_t>(Int(4, 2000)), 1) +
               std::string(8, 'u');
      case 2:
        return Len(static_cast<uint32_t>(Int(4, 2000)), Bytes());
      case 3:
        return Tag(static_cast<uint32_t>(Int(4, 2000)), 5) +
               std::string(4, 'v');
      default:
        return Tag(77, 3) + Tag(5, 0) + Varint(1) + Tag(77, 4);
    }
  }
  std::string MaybeUnknown() { return Coin(15) ? Unknown() : std::string(); }

  // The list message of `f`, in chunks: packed or unpacked, with unknown
  // fields between.
  std::string OddList(const Feature& f) {
    std::string out;
    size_t i = 0;
    const size_t n = f.size();
    out += MaybeUnknown();
    while (i < n || Coin(10)) {
      const size_t chunk = std::min(n - i, static_cast<size_t>(Int(0, 4)));
      if (f.kind() == FeatureKind::kBytes) {
        for (size_t j = 0; j < chunk; ++j) out += Len(1, f.bytes()[i + j]);
      } else if (Coin()) {  // packed
        std::string payload;
        for (size_t j = 0; j < chunk; ++j) {
          if (f.kind() == FeatureKind::kFloat) {
            payload.append(reinterpret_cast<const char*>(&f.floats()[i + j]),
                           4);
          } else {
            payload += Varint(static_cast<uint64_t>(f.int64s()[i + j]));
          }
        }
        out += Len(1, payload);
      } else {  // unpacked
        for (size_t j = 0; j < chunk; ++j) {
          if (f.kind() == FeatureKind::kFloat) {
            out += Tag(1, 5);
            out.append(reinterpret_cast<const char*>(&f.floats()[i + j]), 4);
          } else {
            out += Tag(1, 0) + Varint(static_cast<uint64_t>(f.int64s()[i + j]));
          }
        }
      }
      i += chunk;
      out += MaybeUnknown();
      if (i >= n && !Coin(10)) break;
    }
    return out;
  }

  // The fields of a Feature message, each a separate string, so a caller
  // can split them over several value fields.
  std::vector<std::string> OddFeatureFields(const Feature& f) {
    std::vector<std::string> fields;
    if (Coin(10)) fields.push_back(Unknown());
    if (f.kind() == FeatureKind::kNone) return fields;
    const int field = static_cast<int>(f.kind());
    if (Coin(20)) {  // a decoy of another kind, cleared by the real one
      const int other = field % 3 + 1;
      fields.push_back(Len(static_cast<uint32_t>(other),
                           other == 1 ? Len(1, "decoy") : std::string()));
    }
    // The list, possibly split over several occurrences (they merge).
    const std::string list = OddList(f);
    // Split only at field boundaries of the list: reuse OddList's pieces
    // by re-encoding halves of the values.
    if (Coin(20) && f.size() >= 2) {
      const size_t half = f.size() / 2;
      Feature a, b;
      switch (f.kind()) {
        case FeatureKind::kBytes:
          a = Feature::Bytes({f.bytes().begin(), f.bytes().begin() + half});
          b = Feature::Bytes({f.bytes().begin() + half, f.bytes().end()});
          break;
        case FeatureKind::kFloat:
          a = Feature::Floats({f.floats().begin(), f.floats().begin() + half});
          b = Feature::Floats({f.floats().begin() + half, f.floats().end()});
          break;
        default:
          a = Feature::Int64s({f.int64s().begin(), f.int64s().begin() + half});
          b = Feature::Int64s({f.int64s().begin() + half, f.int64s().end()});
          break;
      }
      fields.push_back(Len(static_cast<uint32_t>(field), OddList(a)));
      if (Coin(10)) fields.push_back(Unknown());
      fields.push_back(Len(static_cast<uint32_t>(field), OddList(b)));
    } else {
      fields.push_back(Len(static_cast<uint32_t>(field), list));
    }
    if (Coin(10)) fields.push_back(Unknown());
    return fields;
  }

  std::string OddEntry(const std::string& key, const Feature& f) {
    const std::vector<std::string> fields = OddFeatureFields(f);
    std::vector<std::string> values;
    if (!fields.empty() && Coin(15)) {  // the Feature split over two fields
      const size_t cut =
          static_cast<size_t>(Int(0, static_cast<int>(fields.size())));
      std::string first, second;
      for (size_t i = 0; i < fields.size(); ++i)
        (i < cut ? first : second) += fields[i];
      values = {Len(2, first), Len(2, second)};
    } else {
      std::string all;
      for (const std::string& s : fields) all += s;
      if (!all.empty() || Coin()) values = {Len(2, all)};
    }
    std::vector<std::string> parts = values;
    if (!key.empty() || Coin()) parts.push_back(Len(1, key));
    if (Coin(10)) parts.insert(parts.begin(), Len(1, "decoy-key"));
    if (Coin(30)) {
      // Value before key (keeping a decoy key before the real one).
      std::stable_partition(parts.begin(), parts.end(),
                            [](const std::string& p) { return p[0] == 0x12; });
    }
    std::string out;
    for (const std::string& p : parts) out += p + MaybeUnknown();
    return Len(1, out);
  }

  std::string OddFeatures(const FeatureMap& features) {
    std::vector<std::string> entries;
    for (const auto& [key, f] : features) {
      if (Coin(10)) entries.push_back(OddEntry(key, RandomFeature()));  // decoy
      entries.push_back(OddEntry(key, f));
    }
    // Any order, as long as each key's real entry comes after its decoy:
    // rotate whole (decoy, real) runs by sorting on nothing; keep order
    // but move unrelated keys around by a stable random rotation.
    if (!entries.empty() && Coin(30) && features.size() == entries.size()) {
      std::shuffle(entries.begin(), entries.end(), rng_);
    }
    std::string out;
    for (const std::string& e : entries) out += e + MaybeUnknown();
    return out;
  }

  std::string OddExample(const Example& ex) {
    const std::string body = OddFeatures(ex.features());
    std::string out = MaybeUnknown();
    if (Coin(15) && body.size() > 0) {
      // Two `features` fields: the maps merge. Split at an entry boundary
      // by encoding an empty Features first.
      out += Len(1, "") + MaybeUnknown() + Len(1, body);
    } else {
      out += Len(1, body);
    }
    return out + MaybeUnknown();
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

// ---- tests ------------------------------------------------------------

TEST(ProtobufCrossCheckTest, OurEncodingEqualsDeterministicProtobufAndParses) {
  Gen gen(1);
  for (int i = 0; i < kRandomExamples; ++i) {
    const Example ex = gen.RandomExample();
    const std::string ours = ex.Serialize();
    const tensorflow::Example proto = ToProto(ex);
    ASSERT_EQ(ours, Deterministic(proto)) << "example " << i;
    tensorflow::Example parsed;
    ASSERT_TRUE(parsed.ParseFromString(ours)) << "example " << i;
    ASSERT_EQ(ExampleFromProto(parsed), ex) << "example " << i;
  }
}

TEST(ProtobufCrossCheckTest, WeParseWhatProtobufEncodes) {
  Gen gen(2);
  for (int i = 0; i < kRandomExamples; ++i) {
    const Example ex = gen.RandomExample();
    // Plain (non-deterministic) serialization: map order is libprotobuf's.
    const std::string bytes = ToProto(ex).SerializeAsString();
    Result<Example> ours = Example::Parse(bytes);
    ASSERT_TRUE(ours.ok()) << ours.status();
    ASSERT_EQ(*ours, ex) << "example " << i;
  }
}

TEST(ProtobufCrossCheckTest, SequenceExamplesBothWays) {
  Gen gen(3);
  for (int i = 0; i < kRandomExamples / 4; ++i) {
    const SequenceExample se = gen.RandomSequenceExample();
    const std::string ours = se.Serialize();
    const tensorflow::SequenceExample proto = ToProto(se);
    ASSERT_EQ(ours, Deterministic(proto)) << i;
    tensorflow::SequenceExample parsed;
    ASSERT_TRUE(parsed.ParseFromString(ours));
    ASSERT_EQ(FromProto(parsed), se) << i;
    Result<SequenceExample> back =
        SequenceExample::Parse(proto.SerializeAsString());
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(*back, se) << i;
  }
}

TEST(ProtobufCrossCheckTest, OddEncodingsDecodeAsProtobufDecodesThem) {
  Gen gen(4);
  for (int i = 0; i < kRandomExamples; ++i) {
    const Example ex = gen.RandomExample();
    const std::string odd = gen.OddExample(ex);
    tensorflow::Example proto;
    ASSERT_TRUE(proto.ParseFromString(odd)) << "example " << i;
    Result<Example> ours = Example::Parse(odd);
    ASSERT_TRUE(ours.ok()) << ours.status() << " example " << i;
    ASSERT_EQ(*ours, ExampleFromProto(proto)) << "example " << i;
  }
}

// Against the proto2 twin: libprotobuf then checks no UTF-8 in keys, as
// neither TensorFlow nor we do; everything else must agree exactly.
TEST(ProtobufCrossCheckTest,
     CorruptedBytesAreAcceptedOrRejectedAsProtobufDoes) {
  Gen gen(5);
  int rejected = 0;
  for (int i = 0; i < kRandomExamples; ++i) {
    std::string bytes = gen.OddExample(gen.RandomExample());
    if (bytes.empty()) continue;
    const int edits = gen.Int(1, 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at =
          static_cast<size_t>(gen.Int(0, static_cast<int>(bytes.size()) - 1));
      switch (gen.Int(0, 2)) {
        case 0:
          bytes[at] = static_cast<char>(gen.Int(0, 255));
          break;
        case 1:
          bytes.resize(at);
          break;
        default:
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << gen.Int(0, 7)));
          break;
      }
      if (bytes.empty()) break;
    }
    inflow_lenient::Example proto;
    const bool proto_ok = proto.ParseFromString(bytes);
    Result<Example> ours = Example::Parse(bytes);
    ASSERT_EQ(ours.ok(), proto_ok) << ours.status() << " case " << i;
    if (proto_ok) {
      ASSERT_EQ(*ours, ExampleFromProto(proto)) << "case " << i;
    } else {
      ASSERT_EQ(ours.status().code(), StatusCode::kInvalidArgument);
      ++rejected;
    }
  }
  EXPECT_GT(rejected, kRandomExamples / 10);
}

}  // namespace
}  // namespace inflow
