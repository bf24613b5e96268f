// Copyright 2026 The inflow Authors.
//
// ReaderBase::ReadUpTo into a RecordBatch gives the records the vector
// form gives, for every reader.

#include "inflow/input/record_batch.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/readers.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"
#include "inflow/queue/queue_options.h"

namespace inflow {
namespace {

using Records = std::vector<ReaderRecord>;

std::shared_ptr<QueueInterface> FilenameQueue(
    const std::vector<std::string>& names) {
  QueueOptions options;
  options.dtypes = {DType::kString};
  auto queue = CreateQueue(QueueKind::kFIFO, options);
  EXPECT_TRUE(queue.ok()) << queue.status();
  for (const std::string& name : names) {
    EXPECT_TRUE((*queue)->Enqueue({Tensor::Scalar<std::string>(name)}).ok());
  }
  EXPECT_TRUE((*queue)->Close().ok());
  return *queue;
}

void WriteRecords(Env& env, const std::string& path,
                  const std::vector<std::string>& records,
                  CompressionType compression = CompressionType::kNone) {
  RecordWriterOptions options;
  options.compression = compression;
  auto writer = RecordWriter::Create(env, path, options);
  ASSERT_TRUE(writer.ok());
  for (const std::string& r : records) {
    ASSERT_TRUE((*writer)->WriteRecord(r).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

Records ToRecords(const RecordBatch& batch) {
  Records out;
  for (size_t i = 0; i < batch.size(); ++i) {
    out.push_back({batch.key(i), std::string(batch.value(i))});
  }
  return out;
}

// Every ReadUpTo(n) until the end, through both forms on two readers made
// by `make`, one batch at a time: the same batches, the same end, the same
// counters.
template <typename Make>
void ExpectBothFormsAgree(Make make, const std::vector<std::string>& files,
                          int64_t n) {
  auto by_vector = make();
  auto by_batch = make();
  auto q1 = FilenameQueue(files);
  auto q2 = FilenameQueue(files);
  RecordBatch batch;
  int batches = 0;
  while (true) {
    Result<Records> want = by_vector->ReadUpTo(*q1, n);
    Status got = by_batch->ReadUpTo(*q2, n, &batch);
    ASSERT_EQ(want.status(), got) << "batch " << batches;
    if (!got.ok()) {
      EXPECT_TRUE(batch.empty());
      break;
    }
    EXPECT_EQ(ToRecords(batch), *want) << "batch " << batches;
    ASSERT_EQ(batch.values().size(), batch.size());
    ++batches;
  }
  EXPECT_GT(batches, 1);
  EXPECT_EQ(by_batch->NumRecordsProduced(), by_vector->NumRecordsProduced());
  EXPECT_EQ(by_batch->NumWorkUnitsCompleted(),
            by_vector->NumWorkUnitsCompleted());
}

TEST(RecordBatchTest, TFRecordBatchesMatchTheVectorFormAcrossFiles) {
  MemEnv env;
  WriteRecords(env, "f", {"1", "22", "333", std::string(5000, 'x')});
  WriteRecords(env, "empty", {});
  WriteRecords(env, "g", {"4", "", "55"});
  for (int64_t n : {1, 2, 3, 100}) {
    ExpectBothFormsAgree([&] { return *NewTFRecordReader(env); },
                         {"f", "empty", "g"}, n);
  }
}

TEST(RecordBatchTest, TFRecordKeysAreFileColonOffset) {
  MemEnv env;
  WriteRecords(env, "f", {"1", "2", "3"});
  auto reader = *NewTFRecordReader(env);
  auto queue = FilenameQueue({"f"});
  RecordBatch batch;
  ASSERT_TRUE(reader->ReadUpTo(*queue, 2, &batch).ok());
  EXPECT_EQ(ToRecords(batch), (Records{{"f:0", "1"}, {"f:17", "2"}}));
  EXPECT_EQ(batch.file(), "f");
  // Reading again replaces the records.
  ASSERT_TRUE(reader->ReadUpTo(*queue, 2, &batch).ok());
  EXPECT_EQ(ToRecords(batch), (Records{{"f:34", "3"}}));
}

TEST(RecordBatchTest, AMovedBatchViewsItsOwnBufferAlsoForShortValues) {
  MemEnv env;
  WriteRecords(env, "f", {"ab", "c"});  // short enough for a string's SSO
  auto reader = *NewTFRecordReader(env);
  auto queue = FilenameQueue({"f"});
  auto source = std::make_unique<RecordBatch>();
  ASSERT_TRUE(reader->ReadUpTo(*queue, 2, source.get()).ok());
  RecordBatch moved(std::move(*source));
  EXPECT_TRUE(source->empty());
  // Views into the source's buffer would now point at freed memory, which
  // the next allocation of the same size may overwrite.
  source.reset();
  auto scribble = std::make_unique<RecordBatch>();
  EXPECT_EQ(ToRecords(moved), (Records{{"f:0", "ab"}, {"f:18", "c"}}));
  RecordBatch assigned;
  assigned = std::move(moved);
  moved.Clear();
  EXPECT_EQ(ToRecords(assigned), (Records{{"f:0", "ab"}, {"f:18", "c"}}));
}

TEST(RecordBatchTest, ABorrowingBatchViewsTheReadersBufferAndEndsAtARefill) {
  // Records of 30000 bytes: about 8 fit the reader's buffer, so a batch
  // of up to 100 that borrows ends where the buffer would be refilled,
  // and the next one goes on from there. Every record comes once, in
  // order, with its key, the values intact when ReadUpTo has returned,
  // also for a batch that ended with its file.
  for (CompressionType compression :
       {CompressionType::kNone, CompressionType::kGzip}) {
    MemEnv env;
    const char* reader_compression =
        compression == CompressionType::kGzip ? "GZIP" : "";
    std::vector<std::string> f, g;
    for (int i = 0; i < 40; ++i) f.push_back(std::string(30000, 'a' + i % 26));
    for (int i = 0; i < 5; ++i) g.push_back(std::to_string(i));
    WriteRecords(env, "f", f, compression);
    WriteRecords(env, "g", g, compression);
    auto by_vector = *NewTFRecordReader(env, reader_compression);
    auto q1 = FilenameQueue({"f", "g"});
    Records want;
    while (true) {
      Result<Records> r = by_vector->ReadUpTo(*q1, 100);
      if (!r.ok()) break;
      want.insert(want.end(), r->begin(), r->end());
    }
    ASSERT_EQ(want.size(), 45u);

    auto reader = *NewTFRecordReader(env, reader_compression);
    auto q2 = FilenameQueue({"f", "g"});
    RecordBatch batch;
    batch.set_borrow(true);
    Records got;
    int short_of_the_file_end = 0;
    while (true) {
      const Status s = reader->ReadUpTo(*q2, 100, &batch);
      if (!s.ok()) {
        EXPECT_TRUE(IsOutOfRange(s)) << s;
        break;
      }
      const Records records = ToRecords(batch);
      got.insert(got.end(), records.begin(), records.end());
      if (batch.file() == "f" && got.size() < 40) ++short_of_the_file_end;
    }
    EXPECT_EQ(got, want);
    EXPECT_GE(short_of_the_file_end, 3);
    EXPECT_EQ(reader->NumRecordsProduced(), 45);
  }
}

TEST(RecordBatchTest, OtherReadersBatchesMatchTheVectorForm) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "t", "h\na\nbb\n\nccc").ok());
  ASSERT_TRUE(WriteStringToFile(env, "u", "d\ne\n").ok());
  ExpectBothFormsAgree([&] { return *NewTextLineReader(env, 1); }, {"t", "u"},
                       2);
  FixedLengthRecordOptions fixed;
  fixed.header_bytes = 1;
  fixed.record_bytes = 2;
  ExpectBothFormsAgree([&] { return *NewFixedLengthRecordReader(env, fixed); },
                       {"t", "u"}, 2);
  ExpectBothFormsAgree([&] { return NewWholeFileReader(env); }, {"t", "u"}, 3);
}

TEST(RecordBatchTest,
     ADataLossErrorLeavesTheBatchEmptyAndNLessThanOneIsInvalid) {
  MemEnv env;
  WriteRecords(env, "f", {"good", "bad!"});
  std::string bytes = *env.Contents("f");
  bytes[bytes.size() - 6] ^= 1;  // inside the second payload
  ASSERT_TRUE(WriteStringToFile(env, "f", bytes).ok());
  auto reader = *NewTFRecordReader(env);
  auto queue = FilenameQueue({"f"});
  RecordBatch batch;
  EXPECT_EQ(reader->ReadUpTo(*queue, 0, &batch).code(),
            StatusCode::kInvalidArgument);
  Status s = reader->ReadUpTo(*queue, 5, &batch);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("at offset 20 in f"), std::string::npos) << s;
  EXPECT_TRUE(batch.empty());
}

}  // namespace
}  // namespace inflow
