// Copyright 2026 The inflow Authors.
//
// Wire-level acceptance: everything a protobuf encoder may produce parses,
// and malformed bytes are INVALID_ARGUMENT.

#include "inflow/example/feature_view.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "example/wire_builder.h"

namespace inflow {
namespace {

using ::inflow::testing::BytesListFeature;
using ::inflow::testing::Entry;
using ::inflow::testing::ExampleOf;
using ::inflow::testing::Fixed32Field;
using ::inflow::testing::FloatListFeature;
using ::inflow::testing::Int64ListFeature;
using ::inflow::testing::Len;
using ::inflow::testing::PackedFloats;
using ::inflow::testing::PackedInt64s;
using ::inflow::testing::Tag;
using ::inflow::testing::Varint;
using ::inflow::testing::VarintField;
using ::testing::ElementsAre;

std::string Hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(
        std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

// The 52-byte vector of docs/formats.md:
// {a: int64_list[1, -1], b: float_list[1.5], c: bytes_list["xy"]}.
const std::string kSpecVector = Hex(
    "0a 32 0a 14 0a 01 61 12 0f 1a 0d 0a 0b 01 ff ff ff ff ff ff ff ff ff 01"
    "0a 0d 0a 01 62 12 08 12 06 0a 04 00 00 c0 3f 0a 0b 0a 01 63 12 06 0a 04 "
    "0a 02 78 79");

std::vector<int64_t> Int64s(const FeatureView& v) {
  std::vector<int64_t> out(static_cast<size_t>(v.size()));
  v.CopyInt64s(out.data());
  return out;
}

std::vector<float> Floats(const FeatureView& v) {
  std::vector<float> out(static_cast<size_t>(v.size()));
  v.CopyFloats(out.data());
  return out;
}

std::vector<std::string> Bytes(const FeatureView& v) {
  std::vector<std::string> out;
  v.ForEachBytes([&](std::string_view s) { out.emplace_back(s); });
  return out;
}

// Parses bytes kept alive for the whole test program (views point into
// them).
ExampleView MustParse(std::string bytes) {
  static auto* kept = new std::deque<std::string>();
  kept->push_back(std::move(bytes));
  ExampleView view;
  Status s = view.Parse(kept->back());
  EXPECT_TRUE(s.ok()) << s;
  return view;
}

TEST(ExampleViewTest, SpecVectorParses) {
  ASSERT_EQ(kSpecVector.size(), 52u);
  ExampleView view = MustParse(kSpecVector);
  ASSERT_EQ(view.entries().size(), 3u);
  const FeatureView* a = view.Find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kind(), FeatureKind::kInt64);
  EXPECT_THAT(Int64s(*a), ElementsAre(1, -1));
  EXPECT_THAT(Floats(*view.Find("b")), ElementsAre(1.5f));
  EXPECT_THAT(Bytes(*view.Find("c")), ElementsAre("xy"));
  EXPECT_EQ(view.Find("d"), nullptr);
}

// A two-byte length running past the end must not be re-read from after
// its own bytes (found by the libprotobuf cross-check under clang).
TEST(ExampleViewTest, TwoByteLengthPastTheEndIsRejected) {
  for (const std::string& bytes :
       {std::string("\x0a\x9e\x0a\x00", 4), std::string("\x0a\x9e\x0a", 3),
        std::string("\x0a\x02\x0a\x9e\x0a\x00", 6)}) {
    ExampleView view;
    EXPECT_EQ(view.Parse(bytes).code(), StatusCode::kInvalidArgument);
  }
}

TEST(ExampleViewTest, UnpackedListsFromTheSpecAreAccepted) {
  const std::string ex = ExampleOf(
      Entry("a",
            Int64ListFeature(Hex("08 01 08 ff ff ff ff ff ff ff ff ff 01"))) +
      Entry("b", FloatListFeature(Hex("0d 00 00 c0 3f"))));
  ExampleView view = MustParse(ex);
  EXPECT_THAT(Int64s(*view.Find("a")), ElementsAre(1, -1));
  EXPECT_THAT(Floats(*view.Find("b")), ElementsAre(1.5f));
}

TEST(ExampleViewTest, PackedAndUnpackedChunksConcatenateInWireOrder) {
  const std::string ints = PackedInt64s({1, 2}) + VarintField(1, 3) +
                           PackedInt64s({}) + PackedInt64s({4}) +
                           VarintField(1, 5);
  const std::string floats =
      Fixed32Field(1, 0.5f) + PackedFloats({1, 2}) + Fixed32Field(1, 3.0f);
  ExampleView view = MustParse(ExampleOf(Entry("i", Int64ListFeature(ints)) +
                                         Entry("f", FloatListFeature(floats))));
  EXPECT_EQ(view.Find("i")->size(), 5);
  EXPECT_THAT(Int64s(*view.Find("i")), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(Floats(*view.Find("f")), ElementsAre(0.5f, 1.0f, 2.0f, 3.0f));
}

TEST(ExampleViewTest, ExtremeInt64ValuesRoundTrip) {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  ExampleView view = MustParse(
      ExampleOf(Entry("i", Int64ListFeature(PackedInt64s({lo, hi, 0, -1})))));
  EXPECT_THAT(Int64s(*view.Find("i")), ElementsAre(lo, hi, 0, -1));
}

TEST(ExampleViewTest, LongPackedListsOfEveryVarintLength) {
  // Values of 1 to 10 bytes, many of them, in one packed chunk: the word-
  // at-a-time counting and decoding must agree with the values written.
  std::vector<int64_t> values;
  for (int i = 0; i < 20000; ++i) {
    const int bits = i % 64;
    values.push_back(i % 3 == 0
                         ? -static_cast<int64_t>(i)
                         : static_cast<int64_t>(uint64_t{1} << bits) + i);
  }
  std::string payload;
  for (int64_t v : values) payload += Varint(static_cast<uint64_t>(v));
  ExampleView view =
      MustParse(ExampleOf(Entry("i", Int64ListFeature(Len(1, payload)))));
  ASSERT_EQ(view.Find("i")->size(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(Int64s(*view.Find("i")), values);
}

TEST(ExampleViewTest, MapEntryWithValueBeforeKeyParses) {
  const std::string entry =
      Len(1, Len(2, BytesListFeature(Len(1, "v"))) + Len(1, "k"));
  ExampleView view = MustParse(ExampleOf(entry));
  ASSERT_NE(view.Find("k"), nullptr);
  EXPECT_THAT(Bytes(*view.Find("k")), ElementsAre("v"));
}

TEST(ExampleViewTest, DuplicateKeyLastWins) {
  ExampleView view =
      MustParse(ExampleOf(Entry("k", Int64ListFeature(PackedInt64s({1}))) +
                          Entry("k", FloatListFeature(PackedFloats({2.0f})))));
  EXPECT_EQ(view.Find("k")->kind(), FeatureKind::kFloat);
  EXPECT_THAT(Floats(*view.Find("k")), ElementsAre(2.0f));
}

TEST(ExampleViewTest, KeyGivenTwiceInOneEntryLastWins) {
  const std::string entry =
      Len(1, Len(1, "first") + Len(1, "second") +
                 Len(2, Int64ListFeature(PackedInt64s({9}))));
  ExampleView view = MustParse(ExampleOf(entry));
  EXPECT_EQ(view.Find("first"), nullptr);
  EXPECT_THAT(Int64s(*view.Find("second")), ElementsAre(9));
}

TEST(ExampleViewTest, MissingKeyIsEmptyStringAndMissingValueHasNoKind) {
  ExampleView view =
      MustParse(ExampleOf(Len(1, Len(2, Int64ListFeature(PackedInt64s({7})))) +
                          Len(1, Len(1, "novalue"))));
  ASSERT_NE(view.Find(""), nullptr);
  EXPECT_THAT(Int64s(*view.Find("")), ElementsAre(7));
  ASSERT_NE(view.Find("novalue"), nullptr);
  EXPECT_EQ(view.Find("novalue")->kind(), FeatureKind::kNone);
}

TEST(ExampleViewTest, UnknownFieldsAreSkippedAtEveryLevel) {
  // One unknown field of each wire type, including a nested group.
  const std::string junk =
      VarintField(9, 300) + Tag(10, 1) + std::string(8, 'x') + Len(11, "zzz") +
      Tag(12, 5) + std::string(4, 'y') + Tag(13, 3) + VarintField(1, 1) +
      Tag(14, 3) + Tag(14, 4) + Tag(13, 4);
  const std::string list = junk + Len(1, "a") + junk + Len(1, "b") + junk;
  const std::string feature = junk + BytesListFeature(list) + junk;
  const std::string entry =
      Len(1, junk + Len(1, "k") + junk + Len(2, feature) + junk);
  const std::string ex = junk + Len(1, junk + entry + junk) + junk;
  ExampleView view = MustParse(ex);
  ASSERT_NE(view.Find("k"), nullptr);
  EXPECT_THAT(Bytes(*view.Find("k")), ElementsAre("a", "b"));
}

TEST(ExampleViewTest, FieldOneWithAnotherWireTypeIsAnUnknownField) {
  // BytesList.value as a varint, Int64List.value as fixed32, FloatList
  // .value as a varint: libprotobuf keeps these as unknown fields.
  ExampleView view = MustParse(ExampleOf(
      Entry("b", BytesListFeature(VarintField(1, 5) + Len(1, "x"))) +
      Entry("i", Int64ListFeature(Fixed32Field(1, 1.0f) + VarintField(1, 4))) +
      Entry("f", FloatListFeature(VarintField(1, 5) + Fixed32Field(1, 2.0f))) +
      Entry("n", VarintField(1, 3))));
  EXPECT_THAT(Bytes(*view.Find("b")), ElementsAre("x"));
  EXPECT_THAT(Int64s(*view.Find("i")), ElementsAre(4));
  EXPECT_THAT(Floats(*view.Find("f")), ElementsAre(2.0f));
  EXPECT_EQ(view.Find("n")->kind(), FeatureKind::kNone);
}

TEST(ExampleViewTest, EmptyListIsPresentWithItsKind) {
  ExampleView view = MustParse(
      ExampleOf(Entry("e", FloatListFeature("")) + Entry("none", "")));
  EXPECT_EQ(view.Find("e")->kind(), FeatureKind::kFloat);
  EXPECT_EQ(view.Find("e")->size(), 0);
  EXPECT_EQ(view.Find("none")->kind(), FeatureKind::kNone);
}

TEST(ExampleViewTest, LastOneofMemberWinsAndClearsTheEarlierOnes) {
  const std::string feature =
      BytesListFeature(Len(1, "old")) + Int64ListFeature(PackedInt64s({1})) +
      BytesListFeature(Len(1, "new1")) + BytesListFeature(Len(1, "new2"));
  ExampleView view = MustParse(ExampleOf(Entry("k", feature)));
  const FeatureView* k = view.Find("k");
  EXPECT_EQ(k->kind(), FeatureKind::kBytes);
  EXPECT_EQ(k->size(), 2);
  EXPECT_THAT(Bytes(*k), ElementsAre("new1", "new2"));
  std::vector<std::string> copied(2);
  k->CopyBytes(copied.data());
  EXPECT_THAT(copied, ElementsAre("new1", "new2"));
}

TEST(ExampleViewTest, RepeatedListFieldsMergeTheirValues) {
  const std::string feature = Int64ListFeature(PackedInt64s({1, 2})) +
                              Int64ListFeature(VarintField(1, 3));
  ExampleView view = MustParse(ExampleOf(Entry("k", feature)));
  EXPECT_THAT(Int64s(*view.Find("k")), ElementsAre(1, 2, 3));
}

TEST(ExampleViewTest, FeatureSplitOverTwoValueFieldsMerges) {
  const std::string entry =
      Len(1, Len(1, "k") + Len(2, FloatListFeature(PackedFloats({1}))) +
                 Len(2, FloatListFeature(PackedFloats({2, 3}))));
  ExampleView view = MustParse(ExampleOf(entry));
  EXPECT_THAT(Floats(*view.Find("k")), ElementsAre(1.0f, 2.0f, 3.0f));
}

TEST(ExampleViewTest, TwoFeaturesFieldsMergeTheirMaps) {
  const std::string ex =
      ExampleOf(Entry("a", Int64ListFeature(PackedInt64s({1})))) +
      ExampleOf(Entry("b", Int64ListFeature(PackedInt64s({2}))) +
                Entry("a", Int64ListFeature(PackedInt64s({3}))));
  ExampleView view = MustParse(ex);
  EXPECT_THAT(Int64s(*view.Find("a")), ElementsAre(3));
  EXPECT_THAT(Int64s(*view.Find("b")), ElementsAre(2));
}

TEST(ExampleViewTest, EmptyInputIsAnEmptyExample) {
  ExampleView view = MustParse("");
  EXPECT_TRUE(view.entries().empty());
  EXPECT_FALSE(view.has_features());
  EXPECT_TRUE(MustParse(ExampleOf("")).has_features());
}

TEST(ExampleViewTest, BytesValuesPointIntoTheRecord) {
  ExampleView view;
  ASSERT_TRUE(view.Parse(kSpecVector).ok());
  int seen = 0;
  view.Find("c")->ForEachBytes([&](std::string_view v) {
    EXPECT_GE(v.data(), kSpecVector.data());
    EXPECT_LE(v.data() + v.size(), kSpecVector.data() + kSpecVector.size());
    ++seen;
  });
  EXPECT_EQ(seen, 1);
}

TEST(ExampleViewTest, EveryTruncationIsInvalidArgument) {
  for (size_t n = 1; n < kSpecVector.size(); ++n) {
    ExampleView view;
    Status s = view.Parse(std::string_view(kSpecVector).substr(0, n));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << "prefix " << n;
    EXPECT_TRUE(view.entries().empty());
  }
}

TEST(ExampleViewTest, MalformedEncodingsAreInvalidArgument) {
  const std::vector<std::string> bad = {
      Tag(0, 0) + Varint(1),                        // field number 0
      Tag(1, 6),                                    // wire type 6
      Tag(1, 7),                                    // wire type 7
      Tag(9, 4),                                    // stray end-group
      Tag(9, 3) + VarintField(1, 1),                // unterminated group
      Tag(9, 3) + Tag(8, 4),                        // mismatched end-group
      VarintField(9, 0) + std::string(10, '\x80'),  // varint > 10 bytes
      Tag(9, 1) + "1234567",                        // short fixed64
      Tag(9, 5) + "123",                            // short fixed32
      Len(9, "abc").substr(0, 4),                   // short length-delimited
      ExampleOf(Entry("f", FloatListFeature(Len(1, "abc")))),   // 3-byte floats
      ExampleOf(Entry("i", Int64ListFeature(Len(1, "\x80")))),  // cut varint
      ExampleOf(Entry(
          "i", Int64ListFeature(Len(1, std::string(10, '\xff') + "\x01")))),
      ExampleOf(Entry("b", BytesListFeature(Tag(1, 2) + Varint(5) + "ab"))),
      ExampleOf(Entry("k", Tag(1, 2) + Varint(3))),
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    ExampleView view;
    Status s = view.Parse(bad[i]);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << "case " << i;
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("byte offset"))
        << "case " << i;
  }
}

// Each message level names itself and the record offset of the field it
// could not read (here a wire type 7 tag).
TEST(ExampleViewTest, MalformedFieldNamesItsMessageAndByteOffset) {
  const std::string bad = Tag(9, 7);
  const std::string entry = Entry("a", BytesListFeature(Len(1, "x")));
  const struct {
    std::string record;
    std::string message;
    size_t offset;
  } cases[] = {
      {VarintField(2, 1) + bad, "Example", 2},
      {ExampleOf(entry + bad), "Features", 2 + entry.size()},
      {ExampleOf(Len(1, Len(1, "a") + bad)), "Features map entry", 7},
      {ExampleOf(Entry("a", bad)), "Feature", 9},
      {ExampleOf(Entry("f", FloatListFeature(Len(1, "abc")))), "float_list",
       11},
  };
  for (const auto& c : cases) {
    ExampleView view;
    Status s = view.Parse(c.record);
    EXPECT_EQ(s.message(), "Could not parse example input: malformed " +
                               c.message + " at byte offset " +
                               std::to_string(c.offset));
  }
}

TEST(ExampleViewTest, GroupsNestedTooDeeplyAreRejectedWithoutOverflow) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += Tag(9, 3);
  ExampleView view;
  EXPECT_EQ(view.Parse(deep).code(), StatusCode::kInvalidArgument);
}

TEST(SequenceExampleViewTest, ParsesContextAndFeatureLists) {
  const std::string steps = Len(1, BytesListFeature(Len(1, "x"))) +
                            Len(1, "") +  // a step with no kind
                            Len(1, BytesListFeature(Len(1, "y")));
  const std::string lists = Len(1, Len(1, "s") + Len(2, steps));
  const std::string se =
      Len(1, Entry("c", Int64ListFeature(PackedInt64s({5})))) + Len(2, lists);
  SequenceExampleView view;
  ASSERT_TRUE(view.Parse(se).ok());
  EXPECT_THAT(Int64s(*view.FindContext("c")), ElementsAre(5));
  const FeatureListEntry* s = view.FindFeatureList("s");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->features.size(), 3u);
  EXPECT_THAT(Bytes(s->features[0]), ElementsAre("x"));
  EXPECT_EQ(s->features[1].kind(), FeatureKind::kNone);
  EXPECT_THAT(Bytes(s->features[2]), ElementsAre("y"));
}

TEST(SequenceExampleViewTest, FeatureListSplitOverTwoValuesConcatenates) {
  const std::string entry =
      Len(1, Len(2, Len(1, Int64ListFeature(PackedInt64s({1})))) + Len(1, "s") +
                 Len(2, Len(1, Int64ListFeature(PackedInt64s({2})))));
  const std::string dup = Len(1, Len(1, "t") + Len(2, ""));
  const std::string se =
      Len(2, entry + dup) +
      Len(2, Len(1, Len(1, "t") + Len(2, Len(1, "") + Len(1, ""))));
  SequenceExampleView view;
  ASSERT_TRUE(view.Parse(se).ok());
  const FeatureListEntry* s = view.FindFeatureList("s");
  ASSERT_EQ(s->features.size(), 2u);
  EXPECT_THAT(Int64s(s->features[0]), ElementsAre(1));
  EXPECT_THAT(Int64s(s->features[1]), ElementsAre(2));
  // Duplicate key across entries and across feature_lists fields: last wins.
  EXPECT_EQ(view.FindFeatureList("t")->features.size(), 2u);
}

TEST(SequenceExampleViewTest, MalformedFieldNamesItsMessageAndByteOffset) {
  const std::string bad = Tag(9, 7);
  const struct {
    std::string record;
    std::string message;
    size_t offset;
  } cases[] = {
      {Len(1, "") + bad, "SequenceExample", 2},
      {Len(1, bad), "Features", 2},
      {Len(2, bad), "FeatureLists", 2},
      {Len(2, Len(1, bad)), "FeatureLists map entry", 4},
      {Len(2, Len(1, Len(1, "s") + Len(2, bad))), "FeatureList", 9},
      {Len(2, Len(1, Len(1, "s") + Len(2, Len(1, bad)))), "Feature", 11},
  };
  for (const auto& c : cases) {
    SequenceExampleView view;
    Status s = view.Parse(c.record);
    EXPECT_EQ(s.message(), "Could not parse example input: malformed " +
                               c.message + " at byte offset " +
                               std::to_string(c.offset));
  }
}

TEST(SequenceExampleViewTest, MalformedStepIsInvalidArgument) {
  const std::string se =
      Len(2, Len(1, Len(1, "s") + Len(2, Len(1, Len(2, Len(1, "abc"))))));
  SequenceExampleView view;
  EXPECT_EQ(view.Parse(se).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(view.feature_lists().empty());
}

}  // namespace
}  // namespace inflow
