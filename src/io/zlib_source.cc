// Copyright 2026 The inflow Authors.

#include "io/zlib_source.h"

#include <algorithm>
#include <cstring>

namespace inflow::internal {
namespace {

// zlib counts in uInt; feed it at most this much per call.
constexpr size_t kMaxZlibChunk = 1u << 30;

std::string ZlibMessage(const z_stream& strm, int code) {
  return strm.msg != nullptr ? std::string(strm.msg)
                             : "zlib error " + std::to_string(code);
}

}  // namespace

ZlibSource::ZlibSource(std::shared_ptr<const RandomAccessFile> file, bool gzip,
                       const ZlibOptions& options)
    : file_(std::move(file)),
      gzip_(gzip),
      options_(options),
      in_capacity_(std::max<size_t>(options.input_buffer_size, 64)) {
  in_.reset(new Bytef[in_capacity_]);
  init_status_ = Init();
}

ZlibSource::~ZlibSource() {
  if (initialized_) inflateEnd(&strm_);
}

Status ZlibSource::Init() {
  const int bits = gzip_ ? options_.window_bits + 16 : options_.window_bits;
  const int rc = inflateInit2(&strm_, bits);
  if (rc != Z_OK) {
    return InvalidArgumentError("inflateInit2 for " + file_->name() + ": " +
                                ZlibMessage(strm_, rc));
  }
  initialized_ = true;
  return OkStatus();
}

Status ZlibSource::Restart() {
  INFLOW_RETURN_IF_ERROR(init_status_);
  inflateReset(&strm_);
  strm_.avail_in = 0;
  file_offset_ = 0;
  input_done_ = false;
  stream_end_ = false;
  out_pos_ = 0;
  return OkStatus();
}

Result<size_t> ZlibSource::Read(char* dst, size_t n) {
  INFLOW_RETURN_IF_ERROR(init_status_);
  n = std::min(n, kMaxZlibChunk);
  size_t produced = 0;
  while (produced == 0 && n > 0) {
    if (strm_.avail_in == 0 && !input_done_) {
      INFLOW_ASSIGN_OR_RETURN(size_t got,
                              file_->Read(file_offset_, in_capacity_,
                                          reinterpret_cast<char*>(in_.get())));
      file_offset_ += got;
      strm_.next_in = in_.get();
      strm_.avail_in = static_cast<uInt>(got);
      if (got == 0) input_done_ = true;
    }
    if (stream_end_) {
      // Another gzip member may follow the one that ended.
      if (strm_.avail_in == 0) return size_t{0};
      if (!gzip_) return size_t{0};  // bytes after a zlib stream: ignored
      inflateReset(&strm_);
      stream_end_ = false;
    }
    strm_.next_out = reinterpret_cast<Bytef*>(dst);
    strm_.avail_out = static_cast<uInt>(n);
    const int rc = inflate(&strm_, Z_NO_FLUSH);
    produced = n - strm_.avail_out;
    if (rc == Z_STREAM_END) {
      stream_end_ = true;
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && produced == 0)) {
      // No progress: more input is needed. At the end of the file the
      // compressed stream was cut short; the stream just ends here.
      if (strm_.avail_in == 0 && input_done_) break;
    } else if (rc != Z_OK) {
      // inflate stops consuming where it noticed the damage (its bit
      // buffer may hold a few bytes past it).
      const uint64_t noticed_at = file_offset_ - strm_.avail_in;
      return DataLossError(
          "corrupt " + std::string(gzip_ ? "gzip" : "zlib") + " data in " +
          file_->name() + " near compressed offset " +
          std::to_string(noticed_at) + ": " + ZlibMessage(strm_, rc));
    }
  }
  out_pos_ += produced;
  return produced;
}

Status ZlibSource::SeekTo(uint64_t pos) {
  if (pos < out_pos_) INFLOW_RETURN_IF_ERROR(Restart());
  char scratch[16384];
  while (out_pos_ < pos) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(sizeof(scratch), pos - out_pos_));
    INFLOW_ASSIGN_OR_RETURN(size_t got, Read(scratch, want));
    if (got == 0) break;
  }
  return OkStatus();
}

Result<std::unique_ptr<WritableFile>> ZlibWritableFile::Create(
    std::unique_ptr<WritableFile> file, bool gzip, const ZlibOptions& options) {
  std::unique_ptr<ZlibWritableFile> out(
      new ZlibWritableFile(std::move(file), options));
  const int bits = gzip ? options.window_bits + 16 : options.window_bits;
  const int rc = deflateInit2(&out->strm_, options.level, Z_DEFLATED, bits,
                              options.mem_level, options.strategy);
  if (rc != Z_OK) {
    out->closed_ = true;  // nothing to end
    return InvalidArgumentError(
        "bad zlib options (level " + std::to_string(options.level) +
        ", window_bits " + std::to_string(options.window_bits) +
        ", mem_level " + std::to_string(options.mem_level) + ", strategy " +
        std::to_string(options.strategy) + ") for " + out->name());
  }
  return std::unique_ptr<WritableFile>(std::move(out));
}

ZlibWritableFile::ZlibWritableFile(std::unique_ptr<WritableFile> file,
                                   const ZlibOptions& options)
    : file_(std::move(file)),
      options_(options),
      out_capacity_(std::max<size_t>(options.output_buffer_size, 64)) {
  out_.reset(new Bytef[out_capacity_]);
  in_.reserve(std::max<size_t>(options.input_buffer_size, 64));
}

ZlibWritableFile::~ZlibWritableFile() { Close().IgnoreError(); }

Status ZlibWritableFile::Deflate(std::string_view data, int flush) {
  strm_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  size_t left = data.size();
  while (true) {
    const size_t chunk = std::min(left, kMaxZlibChunk);
    strm_.avail_in = static_cast<uInt>(chunk);
    left -= chunk;
    const int chunk_flush = left > 0 ? Z_NO_FLUSH : flush;
    while (true) {
      strm_.next_out = out_.get();
      strm_.avail_out = static_cast<uInt>(out_capacity_);
      const int rc = deflate(&strm_, chunk_flush);
      if (rc == Z_STREAM_ERROR) {
        return InternalError("deflate failed for " + name());
      }
      const size_t have = out_capacity_ - strm_.avail_out;
      if (have > 0) {
        INFLOW_RETURN_IF_ERROR(file_->Append(
            std::string_view(reinterpret_cast<char*>(out_.get()), have)));
      }
      // Done with this chunk once deflate left room in the output buffer.
      if (strm_.avail_out != 0 && strm_.avail_in == 0) break;
    }
    if (left == 0) break;
  }
  return OkStatus();
}

Status ZlibWritableFile::DrainBuffered(int flush) {
  Status s = Deflate(in_, flush);
  in_.clear();
  return s;
}

Status ZlibWritableFile::Append(std::string_view data) {
  if (closed_) {
    return FailedPreconditionError("file " + name() + " is closed");
  }
  INFLOW_RETURN_IF_ERROR(error_);
  if (in_.size() + data.size() <= in_.capacity()) {
    in_.append(data);
    return OkStatus();
  }
  Status s = DrainBuffered(Z_NO_FLUSH);
  if (s.ok()) {
    if (data.size() < in_.capacity() / 2) {
      in_.append(data);
    } else {
      s = Deflate(data, Z_NO_FLUSH);
    }
  }
  if (!s.ok()) error_ = s;
  return s;
}

Status ZlibWritableFile::Flush() {
  if (closed_) {
    return FailedPreconditionError("file " + name() + " is closed");
  }
  INFLOW_RETURN_IF_ERROR(error_);
  Status s = DrainBuffered(Z_PARTIAL_FLUSH);
  if (s.ok()) s = file_->Flush();
  if (!s.ok()) error_ = s;
  return s;
}

Status ZlibWritableFile::Sync() {
  INFLOW_RETURN_IF_ERROR(Flush());
  return file_->Sync();
}

Status ZlibWritableFile::Close() {
  if (closed_) return OkStatus();
  closed_ = true;
  Status s = error_;
  if (s.ok()) s = DrainBuffered(Z_FINISH);
  deflateEnd(&strm_);
  Status c = file_->Close();
  return s.ok() ? c : s;
}

}  // namespace inflow::internal
