// Copyright 2026 The inflow Authors.
//
// Checkpoints for Python: the Saver over NumPy arrays, the checkpoint state
// functions and a bundle reader (python/inflow/train/_checkpoint.py gives
// them TF's signatures). Arrays are saved and restored in place without a
// copy where their layout allows: a C-contiguous array of a numeric dtype
// is viewed by a Tensor for the length of one Save or Restore.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"

#include "bindings.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

// A Tensor over a NumPy array's memory, writable when the array is; the
// array stays referenced until the tensor's buffer goes. Returns an
// uninitialized Tensor for arrays it cannot view (strings, non-contiguous).
Tensor ViewArray(nb::handle array, bool writable) {
  nb::object flags = array.attr("flags");
  if (!nb::cast<bool>(flags.attr("c_contiguous"))) return Tensor();
  if (writable && !nb::cast<bool>(flags.attr("writeable"))) return Tensor();
  const DType dtype = DTypeFromPython(array.attr("dtype"));
  if (dtype == DType::kString) return Tensor();
  std::vector<int64_t> dims;
  for (nb::handle d : array.attr("shape")) dims.push_back(nb::cast<int64_t>(d));
  nb::object iface = array.attr("__array_interface__");
  const uintptr_t address =
      nb::cast<uintptr_t>(nb::cast<nb::tuple>(iface["data"])[0]);
  const size_t nbytes = nb::cast<size_t>(array.attr("nbytes"));
  nb::object* keep = new nb::object(nb::borrow(array));
  auto release = [keep] {
    PyGILState_STATE state;
    if (AcquireGil(&state)) {
      keep->reset();
      ReleaseGil(state);
    } else {
      keep->release();  // leaked: the interpreter is gone or going
    }
    delete keep;
  };
  // An empty array may have any address; give it a dummy aligned one.
  static const int64_t kEmpty[8] = {};
  void* data = nbytes == 0 ? const_cast<int64_t*>(kEmpty)
                           : reinterpret_cast<void*>(address);
  std::shared_ptr<TensorBuffer> buffer =
      writable ? TensorBuffer::WrapWritable(data, nbytes, release)
               : TensorBuffer::Wrap(data, nbytes, release);
  Result<Tensor> t = Tensor::FromBuffer(dtype, TensorShape(dims), buffer);
  if (!t.ok()) return Tensor();  // misaligned: the caller copies
  return *std::move(t);
}

// tf.compat.v1.train.Saver over a fixed list of names. Not thread-safe
// (as the C++ Saver); the GIL is released during file I/O.
class PySaver {
 public:
  PySaver(std::vector<std::string> names, int max_to_keep,
          double keep_checkpoint_every_n_hours, bool pad_step_number,
          bool save_relative_paths, bool allow_empty,
          const std::string& latest_filename)
      : saver_(Options(max_to_keep, keep_checkpoint_every_n_hours,
                       pad_step_number, save_relative_paths, allow_empty,
                       latest_filename)) {
    for (std::string& name : names) {
      slots_.push_back(std::make_unique<Tensor>(Placeholder()));
      ThrowIfError(saver_.Register(std::move(name), slots_.back().get()));
    }
  }

  ~PySaver() { Clear(); }

  // `arrays`: one per name, in the names' order.
  std::string Save(nb::handle arrays, const std::string& save_path,
                   std::optional<int64_t> global_step, bool write_state) {
    Fill(arrays, /*writable=*/false);
    Result<std::string> prefix = [&] {
      nb::gil_scoped_release release;
      return saver_.Save(save_path, global_step, write_state);
    }();
    Clear();
    return ValueOrThrow(std::move(prefix));
  }

  // Restores into `arrays` (one per name; each writable and C-contiguous,
  // else an owned tensor is restored and returned in its place). Returns,
  // per name, None (restored in place) or the restored array.
  nb::list Restore(nb::handle arrays, const std::string& prefix) {
    std::vector<bool> copied = Fill(arrays, /*writable=*/true);
    Status s = [&] {
      nb::gil_scoped_release release;
      return saver_.Restore(prefix);
    }();
    nb::list out;
    if (s.ok()) {
      for (size_t i = 0; i < slots_.size(); ++i) {
        if (copied[i]) {
          out.append(TensorToNumpy(*slots_[i]));
        } else {
          out.append(nb::none());
        }
      }
    }
    Clear();
    ThrowIfError(s);
    return out;
  }

  nb::list LastCheckpoints() const {
    nb::list out;
    for (const auto& [prefix, time] : saver_.last_checkpoints()) {
      out.append(nb::make_tuple(prefix, time));
    }
    return out;
  }

  void SetLastCheckpointsWithTime(
      std::vector<std::pair<std::string, double>> checkpoints) {
    saver_.SetLastCheckpointsWithTime(std::move(checkpoints));
  }

  void RecoverLastCheckpoints(const std::vector<std::string>& prefixes) {
    Status s = [&] {
      nb::gil_scoped_release release;
      return saver_.RecoverLastCheckpoints(prefixes);
    }();
    ThrowIfError(s);
  }

 private:
  static SaverOptions Options(int max_to_keep, double every_n_hours,
                              bool pad_step_number, bool save_relative_paths,
                              bool allow_empty,
                              const std::string& latest_filename) {
    SaverOptions o;
    o.max_to_keep = max_to_keep;
    o.keep_checkpoint_every_n_hours = every_n_hours;
    o.pad_step_number = pad_step_number;
    o.save_relative_paths = save_relative_paths;
    o.allow_empty = allow_empty;
    o.latest_filename = latest_filename;
    return o;
  }

  static Tensor Placeholder() { return Tensor(DType::kFloat32, TensorShape()); }

  // Points every slot at its array; which slots hold a copy instead.
  std::vector<bool> Fill(nb::handle arrays, bool writable) {
    if (nb::len(arrays) != slots_.size()) {
      ThrowStatus(InvalidArgumentError(
          "Saver: expected " + std::to_string(slots_.size()) + " arrays"));
    }
    std::vector<bool> copied;
    size_t i = 0;
    for (nb::handle a : arrays) {
      Tensor view = ViewArray(a, writable);
      copied.push_back(!view.IsInitialized());
      if (view.IsInitialized()) {
        *slots_[i] = std::move(view);
      } else if (writable) {
        // An owned tensor of the array's dtype and shape to restore into
        // (its values are not read: an object array may hold anything).
        std::vector<int64_t> dims;
        for (nb::handle d : a.attr("shape"))
          dims.push_back(nb::cast<int64_t>(d));
        *slots_[i] =
            Tensor(DTypeFromPython(a.attr("dtype")), TensorShape(dims));
      } else {
        *slots_[i] = TensorFromPython(a);
      }
      ++i;
    }
    return copied;
  }

  // Drops the views, so the arrays are no longer referenced.
  void Clear() {
    for (auto& slot : slots_) *slot = Placeholder();
  }

  Saver saver_;
  std::vector<std::unique_ptr<Tensor>> slots_;
};

CheckpointStateOptions StateOptions(const std::optional<std::string>& name) {
  CheckpointStateOptions o;
  if (name) o.latest_filename = *name;
  return o;
}

}  // namespace

void BindCheckpoint(nb::module_& m) {
  nb::class_<PySaver>(m, "_Saver")
      .def(nb::init<std::vector<std::string>, int, double, bool, bool, bool,
                    const std::string&>(),
           nb::arg("names"), nb::arg("max_to_keep"),
           nb::arg("keep_checkpoint_every_n_hours"), nb::arg("pad_step_number"),
           nb::arg("save_relative_paths"), nb::arg("allow_empty"),
           nb::arg("latest_filename"))
      .def("save", &PySaver::Save, nb::arg("arrays"), nb::arg("save_path"),
           nb::arg("global_step").none(), nb::arg("write_state"))
      .def("restore", &PySaver::Restore, nb::arg("arrays"), nb::arg("prefix"))
      .def_prop_ro("last_checkpoints", &PySaver::LastCheckpoints)
      .def("set_last_checkpoints_with_time",
           &PySaver::SetLastCheckpointsWithTime, nb::arg("checkpoints"))
      .def("recover_last_checkpoints", &PySaver::RecoverLastCheckpoints,
           nb::arg("prefixes"));

  m.def(
      "_latest_checkpoint",
      [](const std::string& dir, std::optional<std::string> latest_filename) {
        Result<std::optional<std::string>> r = [&] {
          nb::gil_scoped_release release;
          return LatestCheckpoint(dir, StateOptions(latest_filename));
        }();
        return ValueOrThrow(std::move(r));
      },
      nb::arg("checkpoint_dir"), nb::arg("latest_filename").none());

  m.def(
      "_get_checkpoint_state",
      [](const std::string& dir,
         std::optional<std::string> latest_filename) -> nb::object {
        Result<std::optional<CheckpointState>> r = [&] {
          nb::gil_scoped_release release;
          return GetCheckpointState(dir, StateOptions(latest_filename));
        }();
        std::optional<CheckpointState> state = ValueOrThrow(std::move(r));
        if (!state) return nb::none();
        return nb::make_tuple(state->model_checkpoint_path,
                              state->all_model_checkpoint_paths,
                              state->all_model_checkpoint_timestamps,
                              state->last_preserved_timestamp);
      },
      nb::arg("checkpoint_dir"), nb::arg("latest_filename").none());

  nb::class_<BundleReader>(m, "_BundleReader")
      .def_static(
          "open",
          [](const std::string& prefix) {
            Result<std::unique_ptr<BundleReader>> r = [&] {
              nb::gil_scoped_release release;
              return BundleReader::Open(prefix);
            }();
            return ValueOrThrow(std::move(r));
          },
          nb::arg("prefix"))
      .def_prop_ro("prefix", &BundleReader::prefix)
      .def("has_tensor",
           [](const BundleReader& r, const std::string& name) {
             return r.Lookup(name).ok();
           })
      .def(
          "get_tensor",
          [](const BundleReader& r, const std::string& name) {
            Result<Tensor> t = [&] {
              nb::gil_scoped_release release;
              return r.Read(name);
            }();
            return TensorToNumpy(ValueOrThrow(std::move(t)));
          },
          nb::arg("name"))
      .def("entries", [](const BundleReader& r) {
        // (name, dtype, shape, partitioned) per tensor, in key order.
        nb::list out;
        for (const BundleEntry& e : r.entries()) {
          nb::list dims;
          for (int64_t d : e.shape.dims()) dims.append(d);
          out.append(nb::make_tuple(e.name, DTypeToNumpy(e.dtype),
                                    nb::tuple(dims), e.partitioned));
        }
        return out;
      });
}

}  // namespace inflow::py
