// Copyright 2026 The inflow Authors.
//
// TextLine, FixedLengthRecord and ListFiles (tf.data's TextLineDataset,
// FixedLengthRecordDataset, list_files), and FromGenerator. The state of
// the file sources is (file, byte offset); of ListFiles, the position in
// the pass's order (drawn again from the seed and the pass); of a
// generator, the elements handed out (a restore makes a new generator and
// skips that many).

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "inflow/io/env.h"

#include "data/dataset_base.h"
#include "io/input_stream.h"
#include "io/zlib_source.h"

namespace inflow::data::internal {
namespace {

Env& EnvOf(const TFRecordOptions& o) {
  return o.env != nullptr ? *o.env : Env::Default();
}

// A file's bytes, inflated when `o` says it is compressed, from stream
// offset `at`.
Result<std::unique_ptr<inflow::internal::ByteSource>> OpenSource(
    const TFRecordOptions& o, const std::string& name, uint64_t at,
    const DatasetBase& stage) {
  Result<std::unique_ptr<RandomAccessFile>> f =
      EnvOf(o).NewRandomAccessFile(name);
  if (!f.ok()) return f.status().WithContext(stage.label());
  std::unique_ptr<inflow::internal::ByteSource> source =
      inflow::internal::NewByteSource(
          std::shared_ptr<const RandomAccessFile>(std::move(f).value()),
          o.compression, ZlibOptions{});
  if (Status s = source->SeekTo(at); !s.ok()) {
    return s.WithContext(stage.label());
  }
  return source;
}

// At the end of `source`: DATA_LOSS when it is a compressed stream cut
// short (its last bytes lost).
Status CheckEnded(const inflow::internal::ByteSource& source,
                  const std::string& name, const DatasetBase& stage) {
  const auto* zlib = dynamic_cast<const inflow::internal::ZlibSource*>(&source);
  if (zlib == nullptr || zlib->ended_cleanly()) return OkStatus();
  return DataLossError(stage.label() + ": the compressed stream of " + name +
                       " is cut short (its end and checksum are missing)");
}

class TextLineDataset final : public DatasetBase {
 public:
  TextLineDataset(std::vector<std::string> files, TFRecordOptions options)
      : DatasetBase(
            "text_line", {},
            files.empty() ? InvalidArgumentError("no files") : OkStatus()),
        files_(std::move(files)),
        options_(options) {}
  int64_t Cardinality() const override { return kUnknown; }
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext&) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this));
  }

 private:
  class It final : public IteratorBase {
   public:
    explicit It(const TextLineDataset& d) : d_(d) {}
    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      while (file_ < d_.files_.size()) {
        if (source_ == nullptr) INFLOW_RETURN_IF_ERROR(Open());
        std::string line;
        bool got = false;
        for (;;) {
          const size_t nl = buffer_.find('\n', pos_);
          if (nl != std::string::npos) {
            line.append(buffer_, pos_, nl - pos_);
            offset_ += nl - pos_ + 1;
            pos_ = nl + 1;
            got = true;
            break;
          }
          line.append(buffer_, pos_, std::string::npos);
          offset_ += buffer_.size() - pos_;
          INFLOW_ASSIGN_OR_RETURN(bool more, Fill());
          if (!more) {
            if (Status s = CheckEnded(*source_, d_.files_[file_], d_);
                !s.ok()) {
              source_.reset();  // reported once; then the next file
              ++file_;
              offset_ = 0;
              return s;
            }
            got = !line.empty();
            break;
          }
        }
        if (got) {
          if (!line.empty() && line.back() == '\r') line.pop_back();
          return std::optional<Tuple>(Tuple{Tensor::Scalar(std::move(line))});
        }
        source_.reset();
        ++file_;
        offset_ = 0;
      }
      return std::optional<Tuple>();
    }
    Status Save(StateWriter& w) override {
      w.Tag("text_line");
      w.Int(static_cast<int64_t>(file_));
      w.Int(static_cast<int64_t>(offset_));
      return OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("text_line"));
      INFLOW_ASSIGN_OR_RETURN(
          int64_t file,
          r.IntIn("file", 0, static_cast<int64_t>(d_.files_.size())));
      INFLOW_ASSIGN_OR_RETURN(int64_t offset, r.IntIn("offset", 0, INT64_MAX));
      file_ = static_cast<size_t>(file);
      source_.reset();
      offset_ = static_cast<uint64_t>(offset);
      return OkStatus();
    }

   private:
    Status Open() {
      INFLOW_ASSIGN_OR_RETURN(
          source_, OpenSource(d_.options_, d_.files_[file_], offset_, d_));
      buffer_.clear();
      pos_ = 0;
      return OkStatus();
    }
    // The next chunk of the file into buffer_; false at its end.
    Result<bool> Fill() {
      buffer_.resize(d_.options_.buffer_size);
      Result<size_t> n = source_->Read(buffer_.data(), buffer_.size());
      if (!n.ok()) return n.status().WithContext(d_.label());
      buffer_.resize(*n);
      pos_ = 0;
      return *n > 0;
    }

    const TextLineDataset& d_;
    size_t file_ = 0;
    uint64_t offset_ = 0;  // of the next line, in the (inflated) stream
    std::unique_ptr<inflow::internal::ByteSource> source_;
    std::string buffer_;
    size_t pos_ = 0;
  };

  const std::vector<std::string> files_;
  const TFRecordOptions options_;
};

Status CheckFixedLength(const std::vector<std::string>& files, int64_t record,
                        int64_t header, int64_t footer) {
  if (files.empty()) return InvalidArgumentError("no files");
  if (record < 1) {
    return InvalidArgumentError("record_bytes " + std::to_string(record) +
                                " is not >= 1");
  }
  if (header < 0 || footer < 0) {
    return InvalidArgumentError("header_bytes and footer_bytes must be >= 0");
  }
  return OkStatus();
}

class FixedLengthDataset final : public DatasetBase {
 public:
  FixedLengthDataset(std::vector<std::string> files, int64_t record,
                     int64_t header, int64_t footer, TFRecordOptions options)
      : DatasetBase("fixed_length_record", {},
                    CheckFixedLength(files, record, header, footer)),
        files_(std::move(files)),
        record_(record),
        header_(header),
        footer_(footer),
        options_(options) {}
  int64_t Cardinality() const override { return kUnknown; }
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext&) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this));
  }

 private:
  class It final : public IteratorBase {
   public:
    explicit It(const FixedLengthDataset& d) : d_(d) {}
    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      if (d_.options_.compression != CompressionType::kNone) {
        return NextCompressed();
      }
      while (file_ < d_.files_.size()) {
        if (file_handle_ == nullptr) INFLOW_RETURN_IF_ERROR(Open());
        if (record_ < records_) {
          std::string out(static_cast<size_t>(d_.record_), '\0');
          const uint64_t at =
              static_cast<uint64_t>(d_.header_ + record_ * d_.record_);
          Result<size_t> n =
              ReadFully(*file_handle_, at, out.size(), out.data());
          if (!n.ok()) return n.status().WithContext(d_.label());
          if (*n != out.size()) {
            return DataLossError(
                d_.label() + ": " + d_.files_[file_] + " ended inside record " +
                std::to_string(record_) + " at offset " + std::to_string(at));
          }
          ++record_;
          return std::optional<Tuple>(Tuple{Tensor::Scalar(std::move(out))});
        }
        file_handle_.reset();
        ++file_;
        record_ = 0;
      }
      return std::optional<Tuple>();
    }
    Status Save(StateWriter& w) override {
      w.Tag("fixed_length_record");
      w.Int(static_cast<int64_t>(file_));
      w.Int(record_);
      return OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("fixed_length_record"));
      INFLOW_ASSIGN_OR_RETURN(
          int64_t file,
          r.IntIn("file", 0, static_cast<int64_t>(d_.files_.size())));
      INFLOW_ASSIGN_OR_RETURN(record_, r.IntIn("record", 0, INT64_MAX / 4));
      file_ = static_cast<size_t>(file);
      file_handle_.reset();
      stream_.reset();
      return OkStatus();
    }

   private:
    Status Open() {
      Env& env = EnvOf(d_.options_);
      Result<uint64_t> size = env.GetFileSize(d_.files_[file_]);
      if (!size.ok()) return size.status().WithContext(d_.label());
      Result<std::unique_ptr<RandomAccessFile>> f =
          env.NewRandomAccessFile(d_.files_[file_]);
      if (!f.ok()) return f.status().WithContext(d_.label());
      file_handle_ = std::move(f).value();
      const int64_t body =
          static_cast<int64_t>(*size) - d_.header_ - d_.footer_;
      if (body < 0 || body % d_.record_ != 0) {
        // TF's error, at the same place (the file's first read).
        file_handle_.reset();
        return InvalidArgumentError(
            d_.label() + ": excluding the header (" +
            std::to_string(d_.header_) + " bytes) and footer (" +
            std::to_string(d_.footer_) + " bytes), input file \"" +
            d_.files_[file_] + "\" has body length " + std::to_string(body) +
            " bytes, which is not an exact multiple of the record length (" +
            std::to_string(d_.record_) + " bytes)");
      }
      records_ = body / d_.record_;
      return OkStatus();
    }

    // A compressed file: its length is known at its end only, so each
    // record is handed out once the footer's bytes after it are read
    // (tf.data's way); a body that is not whole records is DATA_LOSS
    // there, after the whole records (TF's message and code).
    Result<std::optional<Tuple>> NextCompressed() {
      const size_t want = static_cast<size_t>(d_.record_ + d_.footer_);
      while (file_ < d_.files_.size()) {
        if (stream_ == nullptr) {
          const uint64_t at =
              static_cast<uint64_t>(d_.header_ + record_ * d_.record_);
          INFLOW_ASSIGN_OR_RETURN(
              std::unique_ptr<inflow::internal::ByteSource> source,
              OpenSource(d_.options_, d_.files_[file_], at, d_));
          stream_ = std::make_unique<inflow::internal::BufferedStream>(
              std::move(source), std::max(want, d_.options_.buffer_size));
        }
        Result<std::string_view> bytes = stream_->Peek(want);
        if (!bytes.ok()) return bytes.status().WithContext(d_.label());
        if (bytes->size() == want) {
          std::string out(bytes->substr(0, static_cast<size_t>(d_.record_)));
          stream_->Skip(static_cast<size_t>(d_.record_));
          ++record_;
          return std::optional<Tuple>(Tuple{Tensor::Scalar(std::move(out))});
        }
        const int64_t left = static_cast<int64_t>(bytes->size());
        const std::string name = d_.files_[file_];
        stream_.reset();
        ++file_;
        const int64_t records = record_;
        record_ = 0;
        if (left != d_.footer_) {
          const int64_t body = records * d_.record_ + left - d_.footer_;
          return DataLossError(
              d_.label() + ": excluding the header (" +
              std::to_string(d_.header_) + " bytes) and footer (" +
              std::to_string(d_.footer_) + " bytes), input file \"" + name +
              "\" has body length " + std::to_string(body) +
              " bytes, which is not an exact multiple of the record length (" +
              std::to_string(d_.record_) + " bytes)");
        }
      }
      return std::optional<Tuple>();
    }

    const FixedLengthDataset& d_;
    size_t file_ = 0;
    int64_t record_ = 0;
    int64_t records_ = 0;
    std::unique_ptr<RandomAccessFile> file_handle_;
    std::unique_ptr<inflow::internal::BufferedStream> stream_;
  };

  const std::vector<std::string> files_;
  const int64_t record_, header_, footer_;
  const TFRecordOptions options_;
};

class ListFilesDataset final : public DatasetBase {
 public:
  ListFilesDataset(std::vector<std::string> patterns, bool shuffle,
                   int64_t seed, Env* env)
      : DatasetBase("list_files", {},
                    patterns.empty() ? InvalidArgumentError("no patterns")
                                     : OkStatus()),
        patterns_(std::move(patterns)),
        shuffle_(shuffle),
        seed_(seed),
        env_(env != nullptr ? env : &Env::Default()) {}
  int64_t Cardinality() const override { return kUnknown; }
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext& c) const override {
    std::set<std::string> names;
    for (const std::string& p : patterns_) {
      Result<std::vector<std::string>> m = GetMatchingPaths(*env_, p);
      if (!m.ok()) return m.status().WithContext(label());
      names.insert(m->begin(), m->end());
    }
    if (names.empty()) {
      std::string all;
      for (const std::string& p : patterns_)
        all += (all.empty() ? "" : ", ") + p;
      return InvalidArgumentError(label() + ": no files match " + all);
    }
    std::vector<std::string> order(names.begin(), names.end());
    if (shuffle_) {
      std::mt19937_64 rng(MixSeed(static_cast<uint64_t>(seed_) ^
                                  MixSeed(static_cast<uint64_t>(c.iteration))));
      std::shuffle(order.begin(), order.end(), rng);
    }
    return std::unique_ptr<IteratorBase>(
        std::make_unique<It>(*this, std::move(order)));
  }

 private:
  class It final : public PositionIterator {
   public:
    It(const ListFilesDataset& d, std::vector<std::string> names)
        : PositionIterator(d, static_cast<int64_t>(names.size())),
          names_(std::move(names)) {}
    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      if (i_ >= n_) return std::optional<Tuple>();
      return std::optional<Tuple>(Tuple{Tensor::Scalar(names_[i_++])});
    }

   private:
    const std::vector<std::string> names_;
  };

  const std::vector<std::string> patterns_;
  const bool shuffle_;
  const int64_t seed_;
  Env* const env_;
};

class GeneratorDataset final : public DatasetBase {
 public:
  explicit GeneratorDataset(std::function<Result<Generator>()> make)
      : DatasetBase("from_generator", {},
                    make ? OkStatus() : InvalidArgumentError("no generator")),
        make_(std::move(make)) {}
  int64_t Cardinality() const override { return kUnknown; }
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext&) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this));
  }

 private:
  class It final : public IteratorBase {
   public:
    explicit It(const GeneratorDataset& d) : d_(d) {}
    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      if (!gen_) INFLOW_RETURN_IF_ERROR(Make());
      if (done_) return std::optional<Tuple>();
      Result<std::optional<Tuple>> e = gen_();
      if (!e.ok()) return ElementError(e.status(), d_, count_++);
      if (!e->has_value()) {
        done_ = true;
        return std::optional<Tuple>();
      }
      ++count_;
      return e;
    }
    Status Save(StateWriter& w) override {
      w.Tag("from_generator");
      w.Int(count_);
      return OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("from_generator"));
      INFLOW_ASSIGN_OR_RETURN(int64_t count,
                              r.IntIn("elements", 0, INT64_MAX / 4));
      INFLOW_RETURN_IF_ERROR(Make());
      // The elements handed out before the save, made again and dropped.
      for (int64_t k = 0; k < count; ++k) {
        Result<std::optional<Tuple>> e = gen_();
        ++count_;
        if (e.ok() && !e->has_value()) {
          return InvalidArgumentError(
              d_.label() + ": the generator ended after " + std::to_string(k) +
              " elements, before the saved position " + std::to_string(count));
        }
      }
      return OkStatus();
    }

   private:
    Status Make() {
      Result<Generator> g = d_.make_();
      if (!g.ok()) return g.status().WithContext(d_.label());
      gen_ = std::move(g).value();
      count_ = 0;
      done_ = false;
      return OkStatus();
    }
    const GeneratorDataset& d_;
    Generator gen_;
    int64_t count_ = 0;
    bool done_ = false;
  };
  const std::function<Result<Generator>()> make_;
};

}  // namespace

DatasetPtr MakeTextLine(std::vector<std::string> files,
                        TFRecordOptions options) {
  return std::make_shared<TextLineDataset>(std::move(files), options);
}
DatasetPtr MakeFixedLength(std::vector<std::string> files, int64_t record,
                           int64_t header, int64_t footer,
                           TFRecordOptions options) {
  return std::make_shared<FixedLengthDataset>(std::move(files), record, header,
                                              footer, options);
}
DatasetPtr MakeListFiles(std::vector<std::string> patterns, bool shuffle,
                         std::optional<int64_t> seed, Env* env) {
  return std::make_shared<ListFilesDataset>(std::move(patterns), shuffle,
                                            SeedOrRandom(seed), env);
}
DatasetPtr MakeGenerator(std::function<Result<Generator>()> make) {
  return std::make_shared<GeneratorDataset>(std::move(make));
}

}  // namespace inflow::data::internal
