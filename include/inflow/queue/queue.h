// Copyright 2026 The inflow Authors.
//
// QueueInterface: what every inflow queue offers (TensorFlow's QueueBase).
// Elements are Tuples (one Tensor per component); batches are Tuples whose
// component i has shape [n] + shape_i. Semantics, error kinds and waiter
// ordering follow TF's QueueBase (docs/conformance.md, "Queues"):
//   - Enqueue on a closed queue: CANCELLED.
//   - Dequeue on a closed queue with too few elements: OUT_OF_RANGE.
//   - A timed-out call: DEADLINE_EXCEEDED; a call whose stop token fires:
//     CANCELLED, decided when the stop is requested, so a Close after the
//     stop does not change it. Either leaves the queue as if the call was
//     never made (except rows an EnqueueMany already inserted, as TF).
//     Elements a DequeueMany/DequeueUpTo had already taken go back (FIFO
//     kinds: to the front, in their original order; RandomShuffle: into
//     the bag) - TF loses them (docs/conformance.md, "Timeouts and
//     cancellation").
//   - Validation errors (INVALID_ARGUMENT naming the component) come before
//     any blocking and leave the queue untouched.
//
// What a queue keeps of the Tensors it is given:
//   - FIFO, PaddingFIFO and Priority queues, and a RandomShuffleQueue with
//     a string component or without shapes, keep references: Enqueue
//     keeps the element's Tensors (they share the caller's buffers) and
//     Dequeue hands those back; EnqueueMany's rows are zero-copy views
//     (Tensor::SubTensor) of the batch, so each batch buffer lives while
//     any of its rows is in the queue, and Dequeue returns such a view.
//     Writing into an enqueued buffer afterwards changes what the queue
//     hands out.
//   - A RandomShuffleQueue with shapes (always fully defined) and numeric
//     components only copies: Enqueue copies the element, EnqueueMany each
//     row, into the queue's own slots, and the queue keeps no reference to
//     the Tensors given (as TF's enqueue_many copies each row); Dequeue
//     returns a freshly allocated copy.
//   - EnqueueManyInPlace has its caller write the rows where the queue
//     wants them: a RandomShuffleQueue that copies (above) has them
//     written straight into its slots, so each row is written once and
//     never copied on the way in; every other queue gets them written
//     into a new batch, which it then keeps as EnqueueMany keeps one.
//   - DequeueMany/DequeueUpTo, of every kind, copy each element once into
//     one freshly allocated, writable, 64-byte-aligned batch tensor per
//     component, sharing no buffer with what was enqueued.
//
// Thread-safe: every method may be called from any thread. A queue must
// outlive the calls made on it (queues are handed out as shared_ptr; keep
// one across a call); Close(true) and stop tokens release blocked calls.

#ifndef INFLOW_QUEUE_QUEUE_H_
#define INFLOW_QUEUE_QUEUE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

namespace inflow {

// A queue element keyed by component name, for queues created with names.
using NamedTuple = std::map<std::string, Tensor, std::less<>>;

// A queue's counters since it was created (QueueInterface::stats()).
struct QueueStats {
  // Elements (rows: an EnqueueMany of 5 counts 5) inserted by Enqueue and
  // EnqueueMany, including the rows a timed-out or cancelled EnqueueMany
  // had already inserted.
  int64_t enqueued = 0;
  // Elements handed out by Dequeue, DequeueMany and DequeueUpTo. Elements
  // a timed-out or cancelled DequeueMany had taken and gave back are not
  // counted; so enqueued - dequeued is the size, plus what pending
  // DequeueMany calls hold.
  int64_t dequeued = 0;
  // Wall time of the enqueue (dequeue) calls that had to wait, whatever
  // their outcome, counted when they return; calls that completed at once
  // add nothing. Close is not counted.
  std::chrono::nanoseconds enqueue_blocked{0};
  std::chrono::nanoseconds dequeue_blocked{0};

  friend bool operator==(const QueueStats&, const QueueStats&) = default;
};

// Writes the rows of one EnqueueManyInPlace call of n rows: row r of
// component c goes to rows[c * n + r], whose bytes are that component's
// row (its dtype's size times its shape's elements; 64-byte aligned is
// not promised). The bytes are uninitialized until written. An error it
// returns is the call's, and nothing of it is enqueued.
using RowWriter = std::function<Status(std::span<char* const> rows)>;

class QueueInterface {
 public:
  virtual ~QueueInterface() = default;

  [[nodiscard]] virtual Status Enqueue(Tuple element,
                                       const CallOptions& options = {}) = 0;
  [[nodiscard]] virtual Status EnqueueMany(Tuple batch,
                                           const CallOptions& options = {}) = 0;
  // EnqueueMany of `rows` elements that `write` writes in place (see the
  // top of this file), for a queue whose components are all numeric with
  // fully defined shapes (else INVALID_ARGUMENT, before `write` runs).
  // `write` runs once, on the calling thread, before the call waits for
  // room (not at all when rows is 0, or when the call is cancelled or
  // invalid first); the call then behaves as EnqueueMany of what it
  // wrote: the rows it wrote are dropped when the call fails. The default
  // writes a new batch and calls EnqueueMany.
  [[nodiscard]] virtual Status EnqueueManyInPlace(
      int64_t rows, const RowWriter& write, const CallOptions& options = {});
  [[nodiscard]] virtual Result<Tuple> Dequeue(
      const CallOptions& options = {}) = 0;
  [[nodiscard]] virtual Result<Tuple> DequeueMany(
      int64_t n, const CallOptions& options = {}) = 0;
  [[nodiscard]] virtual Result<Tuple> DequeueUpTo(
      int64_t n, const CallOptions& options = {}) = 0;
  // Without cancel: waits behind pending enqueues, then closes; CANCELLED if
  // already closed. With cancel: closes now, failing pending enqueues.
  [[nodiscard]] virtual Status Close(bool cancel_pending_enqueues = false,
                                     const CallOptions& options = {}) = 0;

  virtual int64_t Size() const = 0;
  virtual bool IsClosed() const = 0;
  // INT32_MAX for an unbounded queue.
  virtual int32_t Capacity() const = 0;
  // The counters, read at one instant (exact: enqueued - dequeued - Size()
  // is what pending DequeueMany calls hold at that instant).
  virtual QueueStats stats() const = 0;

  virtual const std::string& name() const = 0;
  virtual const std::vector<DType>& component_dtypes() const = 0;
  // Empty when the queue was created without shapes.
  virtual const std::vector<PartialShape>& component_shapes() const = 0;
  // Empty when the queue was created without names.
  virtual const std::vector<std::string>& component_names() const = 0;

  int num_components() const {
    return static_cast<int>(component_dtypes().size());
  }

  // Named-component forms (TF's dict enqueue/dequeue) for queues created
  // with names. INVALID_ARGUMENT when the queue has no names or the keys are
  // not exactly the component names; otherwise as the positional calls.
  [[nodiscard]] Status EnqueueNamed(NamedTuple element,
                                    const CallOptions& options = {});
  [[nodiscard]] Status EnqueueManyNamed(NamedTuple batch,
                                        const CallOptions& options = {});
  [[nodiscard]] Result<NamedTuple> DequeueNamed(
      const CallOptions& options = {});
  [[nodiscard]] Result<NamedTuple> DequeueManyNamed(
      int64_t n, const CallOptions& options = {});
  [[nodiscard]] Result<NamedTuple> DequeueUpToNamed(
      int64_t n, const CallOptions& options = {});

  // Positional tuple from a named one (keys must be exactly the names).
  [[nodiscard]] Result<Tuple> TupleFromNamed(NamedTuple named) const;
  // Named tuple from a positional one of num_components() tensors.
  [[nodiscard]] Result<NamedTuple> NamedFromTuple(Tuple tuple) const;
};

}  // namespace inflow

#endif  // INFLOW_QUEUE_QUEUE_H_
