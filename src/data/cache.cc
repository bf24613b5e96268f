// Copyright 2026 The inflow Authors.
//
// Cache (tf.data's cache): the first complete pass over the input keeps its
// elements, in memory or in a file (docs/formats.md, "Dataset cache
// file"); later passes read them from there. An iterator either fills the
// cache (it reads its input and keeps each element) or reads it, decided
// when it starts: a cache is read once it is complete, and a pass that
// stops early keeps nothing.
//
// State: the mode and the count of elements handed out (and, when reading
// a file, the offset of the next record). Restoring a filling iterator
// reads that many elements of the input again (or takes them from the
// cache if it has been completed since); restoring a reading iterator
// whose cache is gone (a new process, a deleted file) fills it again with
// a whole pass first. Neither stores an element in the state.

#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/io/env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

using ItPtr = std::unique_ptr<IteratorBase>;
using Element = std::optional<Tuple>;
using Elements = std::vector<Tuple>;

// One element as a cache file's record.
std::string EncodeElement(const Tuple& e) {
  std::string out;
  PutVarint(out, e.size());
  for (const Tensor& t : e) {
    PutVarint(out, static_cast<uint64_t>(t.dtype()));
    PutVarint(out, static_cast<uint64_t>(t.rank()));
    for (int i = 0; i < t.rank(); ++i) {
      PutVarint(out, static_cast<uint64_t>(t.dim_size(i)));
    }
    if (t.dtype() == DType::kString) {
      for (const std::string& s : t.flat<std::string>()) {
        PutVarint(out, s.size());
        out.append(s);
      }
    } else {
      out.append(static_cast<const char*>(t.raw_data()), t.num_bytes());
    }
  }
  return out;
}

// The element a record of EncodeElement's holds; nullopt when the bytes
// are not one.
std::optional<Tuple> DecodeElement(std::string_view in) {
  size_t pos = 0;
  uint64_t n = 0;
  if (!GetVarint(in, &pos, &n) || n > in.size()) return std::nullopt;
  Tuple out;
  out.reserve(n);
  for (uint64_t c = 0; c < n; ++c) {
    uint64_t dtype = 0;
    uint64_t rank = 0;
    if (!GetVarint(in, &pos, &dtype) || dtype > 64 ||
        !IsValidDType(static_cast<DType>(dtype)) ||
        !GetVarint(in, &pos, &rank) || rank > 64) {
      return std::nullopt;
    }
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) {
      uint64_t v = 0;
      if (!GetVarint(in, &pos, &v) || v > in.size()) return std::nullopt;
      d = static_cast<int64_t>(v);
    }
    Result<TensorShape> shape = TensorShape::FromDims(dims);
    if (!shape.ok()) return std::nullopt;
    const DType type = static_cast<DType>(dtype);
    // Each value takes a byte at least: a count past the bytes left is
    // damage, found before anything is allocated for it.
    if (static_cast<uint64_t>(shape->num_elements()) > in.size() - pos) {
      return std::nullopt;
    }
    if (type == DType::kString) {
      Tensor t(type, *shape);
      const std::span<std::string> strings =
          t.mutable_flat<std::string>().value();
      for (std::string& s : strings) {
        uint64_t len = 0;
        if (!GetVarint(in, &pos, &len) || len > in.size() - pos) {
          return std::nullopt;
        }
        s.assign(in.substr(pos, len));
        pos += len;
      }
      out.push_back(std::move(t));
    } else {
      const uint64_t bytes =
          static_cast<uint64_t>(shape->num_elements()) * DTypeSize(type);
      if (bytes > in.size() - pos) return std::nullopt;
      Tensor t = Tensor::Uninitialized(type, *shape);
      if (bytes > 0) {
        std::memcpy(t.mutable_raw_data().value(), in.data() + pos, bytes);
      }
      pos += bytes;
      out.push_back(std::move(t));
    }
  }
  if (pos != in.size()) return std::nullopt;
  return out;
}

// A name no other writer of `path` picks: its temporary file.
std::string TemporaryName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t process = std::random_device()();
  return path + ".tmp-" + std::to_string(process) + "-" +
         std::to_string(counter.fetch_add(1));
}

class CacheDataset final : public DatasetBase {
 public:
  CacheDataset(DatasetPtr input, std::string filename, Env* env)
      : DatasetBase("cache", {std::move(input)}),
        filename_(std::move(filename)),
        env_(env != nullptr ? *env : Env::Default()) {}
  int64_t Cardinality() const override { return input().Cardinality(); }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    auto it = std::make_unique<It>(*this, c);
    INFLOW_RETURN_IF_ERROR(it->Start());
    return ItPtr(std::move(it));
  }

 private:
  bool in_memory() const { return filename_.empty(); }

  // The complete memory cache; null until a pass has completed.
  std::shared_ptr<const Elements> Memory() const INFLOW_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return memory_;
  }
  void Publish(std::shared_ptr<const Elements> elements) const
      INFLOW_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (memory_ == nullptr) memory_ = std::move(elements);
  }
  bool FileComplete() const { return env_.FileExists(filename_).ok(); }
  bool Complete() const {
    return in_memory() ? Memory() != nullptr : FileComplete();
  }

  class It final : public IteratorBase {
   public:
    It(const CacheDataset& d, const IteratorContext& c) : d_(d), context_(c) {}
    ~It() override { Abandon(); }

    // Reads the cache when it is complete, else starts filling it.
    Status Start() { return d_.Complete() ? StartReading(0) : StartFilling(); }

    Result<Element> Next(const CallOptions& o) override {
      if (filling_) return Fill(o);
      if (d_.in_memory()) {
        if (count_ == static_cast<int64_t>(memory_->size())) return Element();
        return Element((*memory_)[count_++]);
      }
      const uint64_t at = reader_->offset();
      Result<std::string_view> record = reader_->Next();
      if (IsOutOfRange(record.status())) return Element();
      if (!record.ok()) return record.status().WithContext(d_.label());
      std::optional<Tuple> e = DecodeElement(*record);
      if (!e) return Damaged(at);
      ++count_;
      return Element(std::move(*e));
    }

    Status Save(StateWriter& w) override {
      w.Tag("cache");
      w.Int(filling_ ? 0 : 1);
      w.Int(count_);
      if (!filling_ && !d_.in_memory()) {
        w.Int(static_cast<int64_t>(reader_->offset()));
      }
      return OkStatus();
    }

    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("cache"));
      INFLOW_ASSIGN_OR_RETURN(int64_t reading, r.IntIn("mode", 0, 1));
      INFLOW_ASSIGN_OR_RETURN(int64_t count, r.IntIn("count", 0, INT64_MAX));
      int64_t offset = -1;
      if (reading == 1 && !d_.in_memory()) {
        INFLOW_ASSIGN_OR_RETURN(offset, r.IntIn("offset", 0, INT64_MAX));
      }
      Abandon();
      if (reading == 1 && !d_.Complete()) {
        // The cache this state read is gone: one whole pass makes it.
        INFLOW_RETURN_IF_ERROR(StartFilling());
        for (;;) {
          Result<Element> e = Fill({});
          if (e.ok() && !e->has_value()) break;
        }
      }
      if (d_.Complete()) return StartReading(count, offset);
      INFLOW_RETURN_IF_ERROR(StartFilling());
      // An element that failed was reported before the save and is not
      // counted: it is passed over again.
      while (count_ < count) {
        Result<Element> e = Fill({});
        if (e.ok() && !e->has_value()) {
          return InvalidArgumentError(
              d_.label() + ": the input ended before a saved element");
        }
      }
      return OkStatus();
    }

   private:
    Status StartFilling() {
      filling_ = true;
      count_ = 0;
      INFLOW_ASSIGN_OR_RETURN(in_, d_.input().MakeIterator(context_));
      if (d_.in_memory()) {
        pending_ = std::make_shared<Elements>();
        return OkStatus();
      }
      temporary_ = TemporaryName(d_.filename_);
      Result<std::unique_ptr<RecordWriter>> w =
          RecordWriter::Create(d_.env_, temporary_);
      if (!w.ok()) {
        temporary_.clear();
        return w.status().WithContext(d_.label());
      }
      writer_ = std::move(w).value();
      return OkStatus();
    }

    // Reads from element `count` on; a file at the record at `offset`
    // (-1: found by reading the records before it).
    Status StartReading(int64_t count, int64_t offset = -1) {
      filling_ = false;
      count_ = 0;
      if (d_.in_memory()) {
        memory_ = d_.Memory();
        if (count > static_cast<int64_t>(memory_->size())) {
          return InvalidArgumentError(d_.label() + ": position " +
                                      std::to_string(count) + " past the " +
                                      std::to_string(memory_->size()) +
                                      " elements cached");
        }
        count_ = count;
        return OkStatus();
      }
      Result<std::unique_ptr<RecordReader>> reader =
          RecordReader::Open(d_.env_, d_.filename_);
      if (!reader.ok()) return reader.status().WithContext(d_.label());
      reader_ = std::move(reader).value();
      if (offset >= 0) {
        INFLOW_RETURN_IF_ERROR(reader_->Seek(static_cast<uint64_t>(offset)));
        count_ = count;
        return OkStatus();
      }
      while (count_ < count) {
        INFLOW_ASSIGN_OR_RETURN(Element e, Next({}));
        if (!e) {
          return InvalidArgumentError(d_.label() + ": position " +
                                      std::to_string(count) + " past the " +
                                      std::to_string(count_) +
                                      " elements cached in " + d_.filename_);
        }
      }
      return OkStatus();
    }

    // The input's next element, kept; at the input's end the cache is
    // complete.
    Result<Element> Fill(const CallOptions& o) {
      if (in_ == nullptr) return Element();  // completed
      Result<Element> e = in_->Next(o);
      if (!e.ok()) return e.status();
      if (!e->has_value()) {
        INFLOW_RETURN_IF_ERROR(Complete());
        return Element();
      }
      if (d_.in_memory()) {
        pending_->push_back(**e);
      } else if (Status s = writer_->WriteRecord(EncodeElement(**e)); !s.ok()) {
        return s.WithContext(d_.label());
      }
      ++count_;
      return e;
    }

    Status Complete() {
      in_.reset();
      if (d_.in_memory()) {
        d_.Publish(std::move(pending_));
        return OkStatus();
      }
      Status s = writer_->Close();
      writer_.reset();
      // A writer that finished first has put its file there already: the
      // same elements, so either file serves and this one goes.
      if (s.ok() && !d_.FileComplete()) {
        s = d_.env_.RenameFile(temporary_, d_.filename_);
        if (s.ok()) {
          temporary_.clear();
          return OkStatus();
        }
      }
      (void)d_.env_.DeleteFile(temporary_);
      temporary_.clear();
      return s.WithContext(d_.label());
    }

    // Drops what this iterator filled or read (a pass that stops early
    // keeps nothing).
    void Abandon() {
      in_.reset();
      pending_.reset();
      memory_.reset();
      reader_.reset();
      if (writer_ != nullptr) {
        (void)writer_->Close();
        writer_.reset();
      }
      if (!temporary_.empty()) {
        (void)d_.env_.DeleteFile(temporary_);
        temporary_.clear();
      }
    }

    Status Damaged(uint64_t offset) const {
      return DataLossError(d_.label() + ": the record at byte offset " +
                           std::to_string(offset) + " of cache file " +
                           d_.filename_ + " is not an element");
    }

    const CacheDataset& d_;
    const IteratorContext context_;
    bool filling_ = false;
    int64_t count_ = 0;  // elements handed out
    // Filling.
    ItPtr in_;
    std::shared_ptr<Elements> pending_;
    std::unique_ptr<RecordWriter> writer_;
    std::string temporary_;
    // Reading.
    std::shared_ptr<const Elements> memory_;
    std::unique_ptr<RecordReader> reader_;
  };

  const std::string filename_;
  Env& env_;
  mutable Mutex mu_;
  mutable std::shared_ptr<const Elements> memory_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace

DatasetPtr MakeCache(DatasetPtr input, std::string filename, Env* env) {
  return std::make_shared<CacheDataset>(std::move(input), std::move(filename),
                                        env);
}

}  // namespace inflow::data::internal
