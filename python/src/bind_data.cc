// Copyright 2026 The inflow Authors.
//
// BindData: the native objects under inflow.data (python/inflow/data/):
// _Dataset over the C++ data::Dataset, whose elements are flat lists of
// arrays (the Python side keeps their structure), and _DatasetIterator.
// Python functions given to map and filter run with the GIL taken for the
// call, on whichever thread runs the stage (a parallel map's own threads
// included); every other stage runs without the GIL. next() blocks with
// the GIL released and Ctrl-C interrupts it (CallBlocking: a wait cut
// short loses no element, docs/python.md).

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/data/dataset.h"
#include "inflow/ops/op.h"
#include "inflow/pipedef/pipeline_def.h"

#include "bindings.h"
#include "deferred_steps.h"
#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_ops.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

struct PyDataset {
  data::Dataset ds;
};

struct PyDatasetIterator {
  explicit PyDatasetIterator(data::Iterator i) : it(std::move(i)) {}
  PyDatasetIterator(PyDatasetIterator&&) = default;
  // Stopping a parallel stage's threads may wait for a Python map or
  // filter function that needs the GIL.
  ~PyDatasetIterator() {
    nb::gil_scoped_release release;
    data::Iterator ending = std::move(it);
  }
  data::Iterator it;
};

std::unique_ptr<PyDataset> Wrap(data::Dataset ds) {
  return std::make_unique<PyDataset>(PyDataset{std::move(ds)});
}

// fn(list of arrays) -> list of arrays, run with the GIL taken.
data::MapFn PythonMap(nb::handle fn) {
  return [func = ShareObject(fn)](Tuple element) -> Result<Tuple> {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("map: the Python interpreter is exiting");
    }
    Result<Tuple> out = [&]() -> Result<Tuple> {
      try {
        nb::object result = (*func)(TupleToPython(element));
        return TupleFromPython(result);
      } catch (nb::python_error& e) {
        return StatusFromPythonError(e, "the map function");
      } catch (const std::exception& e) {
        return InvalidArgumentError(std::string("the map function: ") +
                                    e.what());
      }
    }();
    ReleaseGil(state);
    return out;
  };
}

data::PredicateFn PythonPredicate(nb::handle fn) {
  return [func = ShareObject(fn)](const Tuple& element) -> Result<bool> {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("filter: the Python interpreter is exiting");
    }
    Result<bool> out = [&]() -> Result<bool> {
      try {
        return nb::cast<bool>((*func)(TupleToPython(element)));
      } catch (nb::python_error& e) {
        return StatusFromPythonError(e, "the filter predicate");
      } catch (const std::exception& e) {
        return InvalidArgumentError(std::string("the filter predicate: ") +
                                    e.what());
      }
    }();
    ReleaseGil(state);
    return out;
  };
}

// fn(list of arrays) -> a _Dataset, run with the GIL taken.
data::DatasetFn PythonDatasetFn(nb::handle fn) {
  return [func = ShareObject(fn)](Tuple element) -> Result<data::Dataset> {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("the dataset function: the interpreter is exiting");
    }
    Result<data::Dataset> out = [&]() -> Result<data::Dataset> {
      try {
        nb::object result = (*func)(TupleToPython(element));
        return nb::cast<PyDataset&>(result).ds;
      } catch (nb::python_error& e) {
        return StatusFromPythonError(e, "the dataset function");
      } catch (const std::exception& e) {
        return InvalidArgumentError(std::string("the dataset function: ") +
                                    e.what());
      }
    }();
    ReleaseGil(state);
    return out;
  };
}

// make() -> a Python iterator whose next() gives lists of arrays.
std::function<Result<data::Generator>()> PythonGenerator(nb::handle make) {
  return [func = ShareObject(make)]() -> Result<data::Generator> {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("from_generator: the interpreter is exiting");
    }
    Result<data::Generator> out = [&]() -> Result<data::Generator> {
      try {
        std::shared_ptr<nb::object> it = ShareObject((*func)());
        return data::Generator([it]() -> Result<std::optional<Tuple>> {
          PyGILState_STATE s;
          if (!AcquireGil(&s)) {
            return CancelledError("from_generator: the interpreter is exiting");
          }
          Result<std::optional<Tuple>> r =
              [&]() -> Result<std::optional<Tuple>> {
            try {
              nb::object v = it->attr("__next__")();
              if (v.is_none()) return std::optional<Tuple>();
              return std::optional<Tuple>(TupleFromPython(v));
            } catch (nb::python_error& e) {
              return StatusFromPythonError(e, "the generator");
            } catch (const std::exception& e) {
              return InvalidArgumentError(std::string("the generator: ") +
                                          e.what());
            }
          }();
          ReleaseGil(s);
          return r;
        });
      } catch (nb::python_error& e) {
        return StatusFromPythonError(e, "from_generator");
      }
    }();
    ReleaseGil(state);
    return out;
  };
}

Result<CompressionType> CompressionFromName(const std::string& name) {
  if (name.empty()) return CompressionType::kNone;
  if (name == "GZIP") return CompressionType::kGzip;
  if (name == "ZLIB") return CompressionType::kZlib;
  return InvalidArgumentError(
      "compression_type must be \"\", \"GZIP\" or "
      "\"ZLIB\", got \"" +
      name + "\"");
}

// _Dataset's methods (the transformations).
void BindDatasetClass(nb::module_& m);
// The sources (_data_range, _data_tfrecord, ...).
void BindDataSources(nb::module_& m);

}  // namespace

void BindData(nb::module_& m) {
  BindDatasetClass(m);
  BindDataSources(m);
  nb::class_<PyDatasetIterator>(m, "_DatasetIterator")
      .def(
          "next",
          [](PyDatasetIterator& self, nb::handle timeout) {
            Result<Tuple> e = CallBlocking(
                timeout, [&](const CallOptions& o) { return self.it.Next(o); });
            return TupleToPython(ValueOrThrow(std::move(e)));
          },
          nb::arg("timeout").none() = nb::none())
      .def("save",
           [](PyDatasetIterator& self) {
             Result<std::string> s = [&] {
               nb::gil_scoped_release release;
               return self.it.Save();
             }();
             std::string bytes = ValueOrThrow(std::move(s));
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def(
          "restore",
          [](PyDatasetIterator& self, nb::bytes state) {
            std::string bytes(state.c_str(), state.size());
            Status s = [&] {
              nb::gil_scoped_release release;
              return self.it.Restore(bytes);
            }();
            ThrowIfError(s);
          },
          nb::arg("state"))
      .def("stats", [](const PyDatasetIterator& self) {
        const data::IteratorStats s = self.it.Stats();
        nb::list stages;
        for (const data::StageStats& st : s.stages) {
          nb::dict d;
          d["stage"] = st.stage;
          d["elements"] = st.elements;
          d["seconds"] = st.seconds;
          d["busy"] = st.busy;
          d["threads"] = st.threads;
          d["buffer_size"] = st.buffer_size;
          d["buffer_fill"] = st.buffer_fill;
          stages.append(d);
        }
        nb::dict out;
        out["stages"] = stages;
        out["bottleneck"] = s.bottleneck;
        out["wall_seconds"] = s.wall_seconds;
        out["thread_budget"] = s.thread_budget;
        out["threads"] = s.threads;
        return out;
      });
}

namespace {

void BindDatasetClass(nb::module_& m) {
  nb::class_<PyDataset>(m, "_Dataset")
      .def("map_py",
           [](const PyDataset& d, nb::handle fn, int num_parallel_calls,
              bool deterministic) {
             return Wrap(d.ds.Map(PythonMap(fn),
                                  {.num_parallel_calls = num_parallel_calls,
                                   .deterministic = deterministic}));
           })
      // A map function in C++ (a custom op's, bind_ops.cc): it runs
      // without the GIL.
      .def("map_native",
           [](const PyDataset& d, const NativeMapFn& fn, int num_parallel_calls,
              bool deterministic) {
             return Wrap(
                 d.ds.Map(fn.fn, {.num_parallel_calls = num_parallel_calls,
                                  .deterministic = deterministic}));
           })
      // A map function traced with ElementNodes (deferred_steps.h): its
      // steps run per element without the GIL (but a py_func's).
      .def("map_nodes",
           [](const PyDataset& d, std::vector<Node> outputs,
              int num_parallel_calls, bool deterministic) {
             return Wrap(d.ds.Map(ElementMap(std::move(outputs)),
                                  {.num_parallel_calls = num_parallel_calls,
                                   .deterministic = deterministic}));
           })
      .def("filter_py",
           [](const PyDataset& d, nb::handle fn) {
             return Wrap(d.ds.Filter(PythonPredicate(fn)));
           })
      .def("flat_map_py",
           [](const PyDataset& d, nb::handle fn) {
             return Wrap(d.ds.FlatMap(PythonDatasetFn(fn)));
           })
      .def("interleave_py",
           [](const PyDataset& d, nb::handle fn, int64_t cycle, int64_t block,
              int threads, bool deterministic) {
             return Wrap(d.ds.Interleave(PythonDatasetFn(fn),
                                         {.cycle_length = cycle,
                                          .block_length = block,
                                          .num_parallel_calls = threads,
                                          .deterministic = deterministic}));
           })
      .def("unbatch", [](const PyDataset& d) { return Wrap(d.ds.Unbatch()); })
      .def("ragged_batch",
           [](const PyDataset& d, int64_t n, bool drop) {
             return Wrap(d.ds.RaggedBatch(n, drop));
           })
      .def("sparse_batch",
           [](const PyDataset& d, int64_t n, std::vector<int64_t> row_shape) {
             return Wrap(d.ds.SparseBatch(n, std::move(row_shape)));
           })
      .def(
          "padded_batch",
          [](const PyDataset& d, int64_t n,
             std::vector<std::vector<int64_t>> shapes, nb::handle values,
             bool drop) {
            data::PaddedBatchOptions o;
            o.padded_shapes = std::move(shapes);
            if (!values.is_none()) o.padding_values = TupleFromPython(values);
            o.drop_remainder = drop;
            return Wrap(d.ds.PaddedBatch(n, std::move(o)));
          },
          nb::arg("batch_size"), nb::arg("padded_shapes"),
          nb::arg("padding_values").none(), nb::arg("drop_remainder"))
      .def("batch",
           [](const PyDataset& d, int64_t n, bool drop, int threads) {
             return Wrap(d.ds.Batch(n, drop, threads));
           })
      .def(
          "shuffle",
          [](const PyDataset& d, int64_t n, std::optional<int64_t> seed,
             bool reshuffle) { return Wrap(d.ds.Shuffle(n, seed, reshuffle)); },
          nb::arg("buffer_size"), nb::arg("seed").none(), nb::arg("reshuffle"))
      .def("repeat",
           [](const PyDataset& d, int64_t n) { return Wrap(d.ds.Repeat(n)); })
      .def("take",
           [](const PyDataset& d, int64_t n) { return Wrap(d.ds.Take(n)); })
      .def("skip",
           [](const PyDataset& d, int64_t n) { return Wrap(d.ds.Skip(n)); })
      .def("shard", [](const PyDataset& d, int64_t n,
                       int64_t i) { return Wrap(d.ds.Shard(n, i)); })
      .def("enumerate",
           [](const PyDataset& d, int64_t start) {
             return Wrap(d.ds.Enumerate(start));
           })
      .def("concatenate",
           [](const PyDataset& d, const PyDataset& other) {
             return Wrap(d.ds.Concatenate(other.ds));
           })
      .def("cache",
           [](const PyDataset& d, std::string filename) {
             return Wrap(d.ds.Cache(std::move(filename)));
           })
      .def("prefetch",
           [](const PyDataset& d, int64_t n) { return Wrap(d.ds.Prefetch(n)); })
      .def(
          "with_options",
          [](const PyDataset& d, std::optional<int> threads,
             std::optional<int64_t> ram, std::optional<bool> autotune) {
            return Wrap(d.ds.WithOptions({.thread_budget = threads,
                                          .ram_budget = ram,
                                          .autotune = autotune}));
          },
          nb::arg("thread_budget").none(), nb::arg("ram_budget").none(),
          nb::arg("autotune").none())
      .def("options",
           [](const PyDataset& d) {
             const data::Options o = d.ds.options();
             return nb::make_tuple(o.thread_budget, o.ram_budget, o.autotune);
           })
      .def("cardinality", [](const PyDataset& d) { return d.ds.Cardinality(); })
      .def("check", [](const PyDataset& d) { ThrowIfError(d.ds.status()); })
      .def("debug_string",
           [](const PyDataset& d) { return d.ds.DebugString(); })
      .def("make_iterator", [](const PyDataset& d) {
        Result<data::Iterator> it = [&] {
          nb::gil_scoped_release release;
          return d.ds.MakeIterator();
        }();
        return std::make_unique<PyDatasetIterator>(
            PyDatasetIterator(ValueOrThrow(std::move(it))));
      });
}

// The number of components of the elements a Dataset definition's steps
// make: its source's, a run of features' (a var_len_feature three), a
// custom op's outputs, enumerate's one more.
size_t DefinitionComponents(const pipedef::PipelineDef& def) {
  size_t n = 1;
  bool in_features = false;
  for (size_t i = 1; i < def.steps.size(); ++i) {
    const std::string& op = def.steps[i].op;
    const bool feature = op == "fixed_len_feature" || op == "var_len_feature";
    if (feature && !in_features) n = 0;
    in_features = feature;
    if (op == "fixed_len_feature") {
      n += 1;
    } else if (op == "var_len_feature") {
      n += 3;
    } else if (op == "enumerate") {
      n += 1;
    } else if (const ops::OpDef* custom = ops::FindOp(op)) {
      n = custom->outputs().size();
    }
  }
  return n;
}

void BindDataSources(nb::module_& m) {
  // A Dataset definition's file (pipedef/pipeline_def.h), built: the
  // dataset and its elements' number of components.
  m.def("_data_from_definition", [](const std::string& path) {
    Result<std::pair<data::Dataset, size_t>> made =
        [&]() -> Result<std::pair<data::Dataset, size_t>> {
      nb::gil_scoped_release release;
      INFLOW_ASSIGN_OR_RETURN(pipedef::PipelineDef def,
                              pipedef::ReadPipelineDef(path));
      INFLOW_ASSIGN_OR_RETURN(data::Dataset ds, pipedef::BuildDataset(def));
      return std::make_pair(std::move(ds), DefinitionComponents(def));
    }();
    auto [ds, n] = ValueOrThrow(std::move(made));
    return std::make_pair(Wrap(std::move(ds)), n);
  });
  m.def("_data_range", [](int64_t start, int64_t stop, int64_t step) {
    return Wrap(data::Dataset::Range(start, stop, step));
  });
  m.def("_data_from_tensor_slices", [](nb::handle components) {
    return Wrap(data::Dataset::FromTensorSlices(TupleFromPython(components)));
  });
  m.def(
      "_data_tfrecord",
      [](std::vector<std::string> files, const std::string& compression,
         int64_t buffer_size, int num_parallel_reads, const std::string& index,
         bool shuffle_records, std::optional<int64_t> seed, bool reshuffle) {
        data::TFRecordOptions o;
        o.compression = ValueOrThrow(CompressionFromName(compression));
        if (buffer_size > 0) o.buffer_size = static_cast<size_t>(buffer_size);
        o.num_parallel_reads = num_parallel_reads;
        if (index == "memory") o.index = RecordIndexMode::kInMemory;
        if (index == "read") o.index = RecordIndexMode::kRead;
        if (index == "write") o.index = RecordIndexMode::kReadWrite;
        if (index == "require") o.index = RecordIndexMode::kRequire;
        o.shuffle_records = shuffle_records;
        o.seed = seed;
        o.reshuffle_each_iteration = reshuffle;
        return Wrap(data::Dataset::TFRecord(std::move(files), o));
      },
      nb::arg("files"), nb::arg("compression"), nb::arg("buffer_size"),
      nb::arg("num_parallel_reads"), nb::arg("index"),
      nb::arg("shuffle_records"), nb::arg("seed").none(), nb::arg("reshuffle"));
  m.def("_data_text_line",
        [](std::vector<std::string> files, const std::string& compression,
           int64_t buffer_size) {
          data::TFRecordOptions o;
          o.compression = ValueOrThrow(CompressionFromName(compression));
          if (buffer_size > 0) o.buffer_size = static_cast<size_t>(buffer_size);
          return Wrap(data::Dataset::TextLine(std::move(files), o));
        });
  m.def(
      "_data_fixed_length",
      [](std::vector<std::string> files, int64_t record, int64_t header,
         int64_t footer, const std::string& compression, int64_t buffer_size) {
        data::TFRecordOptions o;
        o.compression = ValueOrThrow(CompressionFromName(compression));
        if (buffer_size > 0) o.buffer_size = static_cast<size_t>(buffer_size);
        return Wrap(data::Dataset::FixedLengthRecord(std::move(files), record,
                                                     header, footer, o));
      });
  m.def(
      "_data_list_files",
      [](std::vector<std::string> patterns, bool shuffle,
         std::optional<int64_t> seed) {
        return Wrap(
            data::Dataset::ListFiles(std::move(patterns), shuffle, seed));
      },
      nb::arg("patterns"), nb::arg("shuffle"), nb::arg("seed").none());
  m.def("_data_from_generator", [](nb::handle make) {
    return Wrap(data::Dataset::FromGenerator(PythonGenerator(make)));
  });
  m.def("_data_zip", [](std::vector<const PyDataset*> inputs) {
    std::vector<data::Dataset> ds;
    for (const PyDataset* d : inputs) ds.push_back(d->ds);
    return Wrap(data::Dataset::Zip(std::move(ds)));
  });
}

}  // namespace

}  // namespace inflow::py
