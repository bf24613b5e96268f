// Copyright 2026 The inflow Authors.

#include "inflow/input/readers.h"

#include <chrono>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"
#include "inflow/queue/queue_options.h"

#include "io/zlib_source.h"

namespace inflow {
namespace {

using Records = std::vector<ReaderRecord>;

std::shared_ptr<QueueInterface> FilenameQueue(
    const std::vector<std::string>& names, bool close = true) {
  QueueOptions options;
  options.dtypes = {DType::kString};
  auto queue = CreateQueue(QueueKind::kFIFO, options);
  EXPECT_TRUE(queue.ok()) << queue.status();
  for (const std::string& name : names) {
    EXPECT_TRUE((*queue)->Enqueue({Tensor::Scalar<std::string>(name)}).ok());
  }
  if (close) {
    EXPECT_TRUE((*queue)->Close().ok());
  }
  return *queue;
}

void WriteRecords(Env& env, const std::string& path,
                  const std::vector<std::string>& records,
                  CompressionType compression = CompressionType::kNone) {
  RecordWriterOptions options;
  options.compression = compression;
  auto writer = RecordWriter::Create(env, path, options);
  ASSERT_TRUE(writer.ok());
  for (const std::string& r : records)
    ASSERT_TRUE((*writer)->WriteRecord(r).ok());
  ASSERT_TRUE((*writer)->Close().ok());
}

// Reads until an error; returns the records and the error.
std::pair<Records, Status> ReadAll(ReaderBase& reader, QueueInterface& queue) {
  Records out;
  while (true) {
    Result<ReaderRecord> r = reader.Read(queue);
    if (!r.ok()) return {out, r.status()};
    out.push_back(*r);
  }
}

TEST(TFRecordReaderTest, KeysAreFileAndOffsetAcrossFilesSkippingEmptyOnes) {
  MemEnv env;
  WriteRecords(env, "f", {"hello", "x"});
  WriteRecords(env, "e", {});
  WriteRecords(env, "g", {"y"});
  auto reader = NewTFRecordReader(env);
  ASSERT_TRUE(reader.ok());
  auto queue = FilenameQueue({"f", "e", "g"});
  auto [records, end] = ReadAll(**reader, *queue);
  EXPECT_EQ(records, (Records{{"f:0", "hello"}, {"f:21", "x"}, {"g:0", "y"}}));
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*reader)->NumRecordsProduced(), 3);
  EXPECT_EQ((*reader)->NumWorkUnitsCompleted(), 3);
  ASSERT_TRUE((*reader)->Reset().ok());
  EXPECT_EQ((*reader)->NumRecordsProduced(), 0);
  EXPECT_EQ((*reader)->NumWorkUnitsCompleted(), 0);
}

TEST(TFRecordReaderTest, CompressedKeysAreDecompressedOffsets) {
  MemEnv env;
  WriteRecords(env, "f.gz", {"hello", "x"}, CompressionType::kGzip);
  auto reader = NewTFRecordReader(env, "GZIP");
  ASSERT_TRUE(reader.ok());
  auto queue = FilenameQueue({"f.gz"});
  EXPECT_EQ(ReadAll(**reader, *queue).first,
            (Records{{"f.gz:0", "hello"}, {"f.gz:21", "x"}}));
  EXPECT_EQ(NewTFRecordReader(env, "SNAPPY").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(TFRecordReaderTest, OpenFailureIsReportedOnceThenTheNextFileIsRead) {
  MemEnv env;
  WriteRecords(env, "f", {"a"});
  auto reader = NewTFRecordReader(env);
  auto queue = FilenameQueue({"missing", "f"});
  EXPECT_EQ((*reader)->Read(*queue).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*(*reader)->Read(*queue), (ReaderRecord{"f:0", "a"}));
  EXPECT_EQ((*reader)->NumWorkUnitsCompleted(), 0);
}

TEST(TFRecordReaderTest, DataLossLeavesTheFileCurrentUntilReset) {
  MemEnv env;
  WriteRecords(env, "f", {"good", "bad!"});
  std::string bytes = *env.Contents("f");
  bytes[bytes.size() - 6] ^= 1;  // inside the second payload
  ASSERT_TRUE(WriteStringToFile(env, "f", bytes).ok());
  WriteRecords(env, "g", {"next"});
  auto reader = NewTFRecordReader(env);
  auto queue = FilenameQueue({"f", "g"});
  EXPECT_EQ(*(*reader)->Read(*queue), (ReaderRecord{"f:0", "good"}));
  for (int i = 0; i < 3; ++i) {
    Status s = (*reader)->Read(*queue).status();
    EXPECT_EQ(s.code(), StatusCode::kDataLoss);
    EXPECT_NE(s.message().find("at offset 20 in f"), std::string::npos) << s;
  }
  ASSERT_TRUE((*reader)->Reset().ok());
  EXPECT_EQ(*(*reader)->Read(*queue), (ReaderRecord{"g:0", "next"}));
}

TEST(TFRecordReaderTest, ReadUpToNeverMixesFiles) {
  MemEnv env;
  WriteRecords(env, "f", {"1", "2", "3"});
  WriteRecords(env, "g", {"4", "5"});
  auto reader = NewTFRecordReader(env);
  auto queue = FilenameQueue({"f", "g"});
  auto batch = (*reader)->ReadUpTo(*queue, 2);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(*batch, (Records{{"f:0", "1"}, {"f:17", "2"}}));
  batch = (*reader)->ReadUpTo(*queue, 5);
  EXPECT_EQ(*batch, (Records{{"f:34", "3"}}));
  batch = (*reader)->ReadUpTo(*queue, 5);
  EXPECT_EQ(*batch, (Records{{"g:0", "4"}, {"g:17", "5"}}));
  EXPECT_EQ((*reader)->ReadUpTo(*queue, 5).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ((*reader)->ReadUpTo(*queue, 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((*reader)->NumRecordsProduced(), 5);
}

TEST(ReaderBaseTest, QueueOfNonStringsIsInvalidArgument) {
  MemEnv env;
  QueueOptions options;
  options.dtypes = {DType::kInt64};
  auto queue = CreateQueue(QueueKind::kFIFO, options);
  ASSERT_TRUE((*queue)->Enqueue({Tensor::Scalar<int64_t>(3)}).ok());
  auto reader = NewWholeFileReader(env);
  EXPECT_EQ(reader->Read(**queue).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ReaderBaseTest, BlockedReadHonoursTimeoutAndStop) {
  MemEnv env;
  auto reader = NewWholeFileReader(env);
  auto queue = FilenameQueue({}, /*close=*/false);
  CallOptions timed;
  timed.timeout = std::chrono::milliseconds(10);
  EXPECT_EQ(reader->Read(*queue, timed).status().code(),
            StatusCode::kDeadlineExceeded);
  std::stop_source stop;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop.request_stop();
  });
  CallOptions stoppable;
  stoppable.stop = stop.get_token();
  EXPECT_EQ(reader->Read(*queue, stoppable).status().code(),
            StatusCode::kCancelled);
}

TEST(ReaderBaseTest, ConcurrentReadsShareFilesWithoutLossOrDuplicates) {
  MemEnv env;
  std::vector<std::string> names;
  for (int f = 0; f < 6; ++f) {
    std::vector<std::string> records;
    for (int r = 0; r < 40; ++r) records.push_back(std::to_string(f * 100 + r));
    names.push_back("f" + std::to_string(f));
    WriteRecords(env, names.back(), records);
  }
  auto reader = NewTFRecordReader(env);
  auto queue = FilenameQueue(names);
  std::vector<Records> got(3);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back(
          [&, t] { got[t] = ReadAll(**reader, *queue).first; });
    }
  }
  std::set<std::string> keys;
  for (const Records& rs : got) {
    for (const ReaderRecord& r : rs) EXPECT_TRUE(keys.insert(r.key).second);
  }
  EXPECT_EQ(keys.size(), 240u);
  EXPECT_EQ((*reader)->NumRecordsProduced(), 240);
  EXPECT_EQ((*reader)->NumWorkUnitsCompleted(), 6);
}

TEST(TextLineReaderTest, LinesKeysAndHeaderSkipping) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "f", "h1\nh2\na\r\n\nlast").ok());
  ASSERT_TRUE(WriteStringToFile(env, "g", "x\ny\n").ok());
  ASSERT_TRUE(WriteStringToFile(env, "short", "h1\n").ok());
  auto reader = NewTextLineReader(env, 2);
  ASSERT_TRUE(reader.ok());
  auto queue = FilenameQueue({"f", "short", "g"});
  auto [records, end] = ReadAll(**reader, *queue);
  EXPECT_EQ(records, (Records{{"f:3", "a"}, {"f:4", ""}, {"f:5", "last"}}));
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(NewTextLineReader(env, -1).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(TextLineReaderTest, TrailingNewlineAddsNoRecordAndLongLinesWork) {
  MemEnv env;
  const std::string long_line(100000, 'z');
  ASSERT_TRUE(WriteStringToFile(env, "g", "x\n" + long_line + "\n").ok());
  auto reader = NewTextLineReader(env);
  auto queue = FilenameQueue({"g"});
  EXPECT_EQ(ReadAll(**reader, *queue).first,
            (Records{{"g:1", "x"}, {"g:2", long_line}}));
}

TEST(FixedLengthRecordReaderTest, HeaderFooterRecordAndLeftovers) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "f", "HHabcdefghiFxy").ok());
  FixedLengthRecordOptions options;
  options.header_bytes = 2;
  options.record_bytes = 3;
  options.footer_bytes = 1;
  auto reader = NewFixedLengthRecordReader(env, options);
  ASSERT_TRUE(reader.ok());
  auto queue = FilenameQueue({"f"});
  EXPECT_EQ(ReadAll(**reader, *queue).first,
            (Records{{"f:0", "abc"}, {"f:1", "def"}, {"f:2", "ghi"}}));
}

TEST(FixedLengthRecordReaderTest, HopBytesOverlapRecordsAlsoWhenCompressed) {
  MemEnv env;
  const std::string data = "HHabcdefghiFxy";
  ASSERT_TRUE(WriteStringToFile(env, "f", data).ok());
  {
    auto file = internal::ZlibWritableFile::Create(
        *env.NewWritableFile("f.gz"), /*gzip=*/true, ZlibOptions{});
    ASSERT_TRUE((*file)->Append(data).ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  FixedLengthRecordOptions options;
  options.header_bytes = 2;
  options.record_bytes = 3;
  options.footer_bytes = 1;
  options.hop_bytes = 2;
  const Records expected = {
      {"0", "abc"}, {"1", "cde"}, {"2", "efg"}, {"3", "ghi"}, {"4", "iFx"}};
  for (const std::string name : {"f", "f.gz"}) {
    options.encoding = name == "f" ? "" : "GZIP";
    auto reader = NewFixedLengthRecordReader(env, options);
    ASSERT_TRUE(reader.ok());
    auto queue = FilenameQueue({name});
    Records want = expected;
    for (ReaderRecord& r : want) r.key = name + ":" + r.key;
    EXPECT_EQ(ReadAll(**reader, *queue).first, want);
  }
}

TEST(FixedLengthRecordReaderTest, BadOptionsAreInvalidArgument) {
  MemEnv env;
  FixedLengthRecordOptions options;
  EXPECT_EQ(NewFixedLengthRecordReader(env, options).status().code(),
            StatusCode::kInvalidArgument);  // record_bytes 0
  options.record_bytes = 4;
  options.footer_bytes = -1;
  EXPECT_EQ(NewFixedLengthRecordReader(env, options).status().code(),
            StatusCode::kInvalidArgument);
  options.footer_bytes = 0;
  options.encoding = "BZIP2";
  EXPECT_EQ(NewFixedLengthRecordReader(env, options).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(WholeFileReaderTest, OneRecordPerFileIncludingEmptyFiles) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "a", "abc").ok());
  ASSERT_TRUE(WriteStringToFile(env, "e", "").ok());
  auto reader = NewWholeFileReader(env);
  auto queue = FilenameQueue({"a", "e"});
  auto [records, end] = ReadAll(*reader, *queue);
  EXPECT_EQ(records, (Records{{"a", "abc"}, {"e", ""}}));
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(reader->NumWorkUnitsCompleted(), 2);
}

}  // namespace
}  // namespace inflow
