// Copyright 2026 The inflow Authors.
//
// inflow.io's records: the writer and the iterator behind TFRecordWriter
// and tf_record_iterator (python/inflow/io/_records.py gives them TF's
// signatures), and Env's file-system calls behind inflow.io.gfile
// (python/inflow/io/gfile.py). All release the GIL around file I/O.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/io/compression.h"
#include "inflow/io/env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

#include "bindings.h"
#include "py_interpreter.h"

namespace inflow::py {

namespace {

// TFRecordOptions' fields, as the Python class hands them over; None keeps
// TF's default.
ZlibOptions ZlibFromPython(std::optional<int> level,
                           std::optional<int> mem_level,
                           std::optional<int> strategy,
                           std::optional<int> window_bits,
                           std::optional<int64_t> input_buffer_size,
                           std::optional<int64_t> output_buffer_size) {
  ZlibOptions z;
  if (level) z.level = *level;
  if (mem_level) z.mem_level = *mem_level;
  if (strategy) z.strategy = *strategy;
  if (window_bits) z.window_bits = *window_bits;
  if (input_buffer_size) {
    if (*input_buffer_size <= 0) {
      ThrowStatus(InvalidArgumentError("input_buffer_size must be > 0"));
    }
    z.input_buffer_size = static_cast<size_t>(*input_buffer_size);
  }
  if (output_buffer_size) {
    if (*output_buffer_size <= 0) {
      ThrowStatus(InvalidArgumentError("output_buffer_size must be > 0"));
    }
    z.output_buffer_size = static_cast<size_t>(*output_buffer_size);
  }
  return z;
}

// One TFRecord file being written. Not thread-safe (Python's GIL
// serializes the calls; the GIL is released only inside them).
class PyRecordWriter {
 public:
  PyRecordWriter(const std::string& path, const std::string& compression,
                 const ZlibOptions& zlib) {
    RecordWriterOptions options;
    options.compression = ValueOrThrow(ParseCompressionType(compression));
    options.zlib = zlib;
    Result<std::unique_ptr<RecordWriter>> writer = [&] {
      nb::gil_scoped_release release;
      return RecordWriter::Create(Env::Default(), path, options);
    }();
    writer_ = ValueOrThrow(std::move(writer));
  }

  void Write(nb::bytes record) {
    const std::string_view data(record.c_str(), record.size());
    RecordWriter& writer = Writer();
    Status s = [&] {
      nb::gil_scoped_release release;
      return writer.WriteRecord(data);
    }();
    ThrowIfError(s);
  }

  void Flush() {
    RecordWriter& writer = Writer();
    Status s = [&] {
      nb::gil_scoped_release release;
      return writer.Flush();
    }();
    ThrowIfError(s);
  }

  // Idempotent, as TF's.
  void Close() {
    if (writer_ == nullptr) return;
    Status s = [&] {
      nb::gil_scoped_release release;
      return writer_->Close();
    }();
    writer_.reset();
    ThrowIfError(s);
  }

 private:
  // Raises (with the GIL held) once closed.
  RecordWriter& Writer() {
    if (writer_ == nullptr) {
      ThrowStatus(FailedPreconditionError("the TFRecordWriter is closed"));
    }
    return *writer_;
  }

  std::unique_ptr<RecordWriter> writer_;
};

// Records of one file, in order; each as bytes (a copy: Python's bytes own
// their memory).
class PyRecordIterator {
 public:
  PyRecordIterator(const std::string& path, const std::string& compression,
                   const ZlibOptions& zlib) {
    RecordReaderOptions options;
    options.compression = ValueOrThrow(ParseCompressionType(compression));
    options.zlib = zlib;
    Result<std::unique_ptr<RecordReader>> reader = [&] {
      nb::gil_scoped_release release;
      return RecordReader::Open(Env::Default(), path, options);
    }();
    reader_ = ValueOrThrow(std::move(reader));
  }

  nb::bytes Next() {
    if (reader_ == nullptr) throw nb::stop_iteration();
    std::string_view record;
    Status s;
    {
      nb::gil_scoped_release release;
      Result<std::string_view> r = reader_->Next();
      if (r.ok()) {
        record = *r;
      } else {
        s = r.status();
      }
    }
    if (s.code() == StatusCode::kOutOfRange) {
      reader_.reset();
      throw nb::stop_iteration();
    }
    ThrowIfError(s);
    return nb::bytes(record.data(), record.size());
  }

  uint64_t Offset() const { return reader_ == nullptr ? 0 : reader_->offset(); }

  void Close() { reader_.reset(); }

 private:
  std::unique_ptr<RecordReader> reader_;
};

// Runs `call(Env::Default())` without the GIL.
template <typename F>
auto WithEnv(F&& call) {
  nb::gil_scoped_release release;
  return call(Env::Default());
}

// True for OK, false for NOT_FOUND (and FAILED_PRECONDITION when
// `not_a_dir_is_false`); any other error is raised.
bool StatusAsBool(const Status& s, bool not_a_dir_is_false) {
  if (s.ok()) return true;
  if (s.code() == StatusCode::kNotFound) return false;
  if (not_a_dir_is_false && s.code() == StatusCode::kFailedPrecondition) {
    return false;
  }
  ThrowStatus(s);
}

void BindFileSystem(nb::module_& m) {
  m.def(
      "_glob",
      [](const std::string& pattern) {
        return ValueOrThrow(
            WithEnv([&](Env& env) { return GetMatchingPaths(env, pattern); }));
      },
      nb::arg("pattern"));
  m.def(
      "_file_exists",
      [](const std::string& path) {
        return StatusAsBool(
            WithEnv([&](Env& env) { return env.FileExists(path); }), false);
      },
      nb::arg("path"));
  m.def(
      "_is_directory",
      [](const std::string& path) {
        return StatusAsBool(
            WithEnv([&](Env& env) { return env.IsDirectory(path); }), true);
      },
      nb::arg("path"));
  m.def(
      "_list_directory",
      [](const std::string& path) {
        Result<std::vector<std::string>> children =
            WithEnv([&](Env& env) -> Result<std::vector<std::string>> {
              // TF's message for a missing directory and for a file.
              if (!env.IsDirectory(path).ok()) {
                return NotFoundError("Could not find directory " + path);
              }
              return env.GetChildren(path);
            });
        return ValueOrThrow(std::move(children));
      },
      nb::arg("path"));
  m.def(
      "_make_dirs",
      [](const std::string& path) {
        ThrowIfError(
            WithEnv([&](Env& env) { return RecursivelyCreateDir(env, path); }));
      },
      nb::arg("path"));
  m.def(
      "_make_dir",
      [](const std::string& path) {
        ThrowIfError(WithEnv([&](Env& env) { return env.CreateDir(path); }));
      },
      nb::arg("path"));
  m.def(
      "_delete_file",
      [](const std::string& path) {
        ThrowIfError(WithEnv([&](Env& env) -> Status {
          // TF's error for a directory (unlink's EISDIR).
          if (env.IsDirectory(path).ok()) {
            return FailedPreconditionError(path + "; Is a directory");
          }
          return env.DeleteFile(path);
        }));
      },
      nb::arg("path"));
}

}  // namespace

void BindIo(nb::module_& m) {
  BindFileSystem(m);
  nb::class_<ZlibOptions>(m, "_ZlibOptions");
  m.def("_zlib_options", &ZlibFromPython, nb::arg("level").none(),
        nb::arg("mem_level").none(), nb::arg("strategy").none(),
        nb::arg("window_bits").none(), nb::arg("input_buffer_size").none(),
        nb::arg("output_buffer_size").none());

  nb::class_<PyRecordWriter>(m, "_RecordWriter")
      .def(nb::init<const std::string&, const std::string&,
                    const ZlibOptions&>(),
           nb::arg("path"), nb::arg("compression"), nb::arg("zlib"))
      .def("write", &PyRecordWriter::Write, nb::arg("record"))
      .def("flush", &PyRecordWriter::Flush)
      .def("close", &PyRecordWriter::Close);

  nb::class_<PyRecordIterator>(m, "_RecordIterator")
      .def(nb::init<const std::string&, const std::string&,
                    const ZlibOptions&>(),
           nb::arg("path"), nb::arg("compression"), nb::arg("zlib"))
      .def("__iter__", [](nb::handle self) { return self; })
      .def("__next__", &PyRecordIterator::Next)
      .def_prop_ro("offset", &PyRecordIterator::Offset)
      .def("close", &PyRecordIterator::Close);
}

}  // namespace inflow::py
