// Copyright 2026 The inflow Authors.
//
// The rows' path (IteratorBase::NextRow): Unbatch hands out references to
// the rows of the element it splits, a Shuffle over it copies each row
// into a slot of its own and hands out references to the slots, and a
// Batch copies each row into its output. The pattern parse a batch ->
// unbatch -> shuffle -> batch so moves each row's bytes twice, as the
// queue Pipeline does, where Tuples would make tensors per row and keep
// every batch alive that has a row in the shuffle buffer. Strings of a
// row that nothing else shares (RowRef::owned) are moved instead: a batch
// of records unbatched, shuffled and batched again copies no record.

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

// The dimensions of r's component c's row.
std::span<const int64_t> RowDims(const RowRef& r, size_t c) {
  const std::vector<int64_t>& dims = (*r.batch)[c].shape().dims();
  return r.row < 0 ? std::span<const int64_t>(dims)
                   : std::span<const int64_t>(dims).subspan(1);
}

}  // namespace

Result<bool> IteratorBase::NextRow(const CallOptions& options, RowRef* out) {
  INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, Next(options));
  if (!e) return false;
  row_ = std::move(*e);
  *out = RowRef{&row_, -1, StringsUnshared(row_)};
  return true;
}

bool StringsUnshared(const Tuple& t) {
  for (const Tensor& c : t) {
    if (c.dtype() == DType::kString && c.buffer().use_count() != 1) {
      return false;
    }
  }
  return true;
}

bool SameRowLayout(const RowRef& r, const Tuple& like, bool batched) {
  // No components (nothing made yet) is no layout.
  if (like.empty() || r.batch->size() != like.size()) return false;
  for (size_t c = 0; c < like.size(); ++c) {
    const Tensor& t = like[c];
    if ((*r.batch)[c].dtype() != t.dtype()) return false;
    std::span<const int64_t> want(t.shape().dims());
    if (batched) want = want.subspan(1);
    const std::span<const int64_t> have = RowDims(r, c);
    if (have.size() != want.size()) return false;
    // A loop, not std::equal's memcmp call: a row has a few dimensions.
    for (size_t i = 0; i < have.size(); ++i) {
      if (have[i] != want[i]) return false;
    }
  }
  return true;
}

void CopyRow(const RowRef& r, Tuple& to, int64_t at) {
  for (size_t c = 0; c < to.size(); ++c) {
    const Tensor& from = (*r.batch)[c];
    Tensor& dst = to[c];
    const int64_t n = at < 0 ? dst.num_elements()
                      : dst.dim_size(0) == 0
                          ? 0
                          : dst.num_elements() / dst.dim_size(0);
    const int64_t src_at = r.row < 0 ? 0 : r.row * n;
    const int64_t dst_at = at < 0 ? 0 : at * n;
    if (from.dtype() == DType::kString) {
      std::span<std::string> out = dst.mutable_flat<std::string>().value();
      if (r.owned) {
        // The producer's own storage, never read again (RowRef::owned):
        // the bytes stay where they are.
        std::span<std::string> in =
            const_cast<Tensor&>(from).mutable_flat<std::string>().value();
        std::move(in.begin() + src_at, in.begin() + src_at + n,
                  out.begin() + dst_at);
        continue;
      }
      std::span<const std::string> in = from.flat<std::string>();
      std::copy_n(in.begin() + src_at, n, out.begin() + dst_at);
      continue;
    }
    const size_t size = DTypeSize(from.dtype());
    std::memcpy(static_cast<char*>(dst.mutable_raw_data().value()) +
                    static_cast<size_t>(dst_at) * size,
                static_cast<const char*>(from.raw_data()) +
                    static_cast<size_t>(src_at) * size,
                static_cast<size_t>(n) * size);
  }
}

namespace {

// Moves rows [0, n) of `from` into `to` (tensors of the same row layout).
void MoveRows(Tuple& from, Tuple& to, int64_t n) {
  for (size_t c = 0; c < to.size(); ++c) {
    Tensor& src = from[c];
    const int64_t per_row =
        src.dim_size(0) == 0 ? 0 : src.num_elements() / src.dim_size(0);
    const int64_t count = n * per_row;
    if (src.dtype() == DType::kString) {
      std::span<std::string> in = src.mutable_flat<std::string>().value();
      std::span<std::string> out = to[c].mutable_flat<std::string>().value();
      std::move(in.begin(), in.begin() + count, out.begin());
      continue;
    }
    std::memcpy(to[c].mutable_raw_data().value(), src.raw_data(),
                static_cast<size_t>(count) * DTypeSize(src.dtype()));
  }
}

}  // namespace

Tuple NewRows(const RowRef& r, int64_t rows) {
  Tuple out;
  out.reserve(r.batch->size());
  for (size_t c = 0; c < r.batch->size(); ++c) {
    const std::span<const int64_t> dims = RowDims(r, c);
    std::vector<int64_t> shape;
    shape.reserve(dims.size() + 1);
    if (rows >= 0) shape.push_back(rows);
    shape.insert(shape.end(), dims.begin(), dims.end());
    out.push_back(
        Tensor::Uninitialized((*r.batch)[c].dtype(), TensorShape(shape)));
  }
  if (rows < 0) CopyRow(r, out, -1);
  return out;
}

void GrowRows(Tuple& rows, int64_t filled, int64_t capacity) {
  Tuple grown = NewRows(RowRef{&rows, 0}, capacity);
  MoveRows(rows, grown, filled);
  rows = std::move(grown);
}

}  // namespace inflow::data::internal
