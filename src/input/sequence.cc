// Copyright 2026 The inflow Authors.

#include "inflow/input/sequence.h"

#include <string>
#include <utility>

#include "input/enqueuer_runner.h"
#include "input/enqueuer_slots.h"
#include "input/epoch_shuffle.h"
#include "input/seeds.h"
#include "threads/run_catching.h"

namespace inflow {
namespace {

using internal::EnqueuerSlots;

std::unique_ptr<internal::EpochShuffle> MakeShuffle(
    const OrderedEnqueuerOptions& options) {
  if (!options.shuffle) return nullptr;
  // The input producers' op-seed rule: a seed of 0 stays a fixed seed.
  return std::make_unique<internal::EpochShuffle>(
      internal::TfSeeds(std::nullopt, options.seed));
}

}  // namespace

OrderedEnqueuer::OrderedEnqueuer(std::shared_ptr<Sequence> sequence,
                                 OrderedEnqueuerOptions options)
    : sequence_(std::move(sequence)),
      options_(std::move(options)),
      shuffle_(MakeShuffle(options_)),
      runner_(std::make_unique<internal::EnqueuerRunner>("OrderedEnqueuer")) {}

OrderedEnqueuer::~OrderedEnqueuer() = default;

Status OrderedEnqueuer::Start(int workers, int64_t max_queue_size) {
  // The first epoch's size, read by Start so that an empty Sequence fails
  // here; handed to the producer thread, which Start starts after.
  auto first_size = std::make_shared<int64_t>(0);
  auto prepare = [this, first_size]() -> Status {
    if (sequence_ == nullptr) {
      return InvalidArgumentError("OrderedEnqueuer: the Sequence is null");
    }
    INFLOW_ASSIGN_OR_RETURN(*first_size, ReadSize(1));
    if (options_.first_index < 0 || options_.first_index >= *first_size) {
      return InvalidArgumentError(
          "OrderedEnqueuer: first_index " +
          std::to_string(options_.first_index) + " is outside [0, " +
          std::to_string(*first_size) + "), the first epoch's batches");
    }
    return OkStatus();
  };
  return runner_->Start(
      workers, max_queue_size, prepare, options_.name,
      [this](EnqueuerSlots* slots, const CallOptions& options) {
        WorkerLoop(slots, options);
      },
      [this, first_size](EnqueuerSlots* slots, const CallOptions&) {
        ProducerLoop(slots, *first_size);
      });
}

Result<int64_t> OrderedEnqueuer::ReadSize(int64_t epoch) {
  int64_t size = 0;
  Status s = internal::RunCatching([&] {
    size = sequence_->size();
    return OkStatus();
  });
  const std::string where = "epoch " + std::to_string(epoch) + ": ";
  if (!s.ok()) return s.WithContext(where + "Sequence::size()");
  if (size <= 0) {
    // TF spins calling on_epoch_end; an empty epoch is an error here.
    return InvalidArgumentError(where + "Sequence::size() is " +
                                std::to_string(size) +
                                ": an empty Sequence has no batches");
  }
  if (shuffle_ != nullptr && size > internal::EpochShuffle::kMaxRows) {
    return InvalidArgumentError(
        where + "Sequence::size() is " + std::to_string(size) +
        ", above the most a shuffle permutes (2^31 - 2)");
  }
  return size;
}

void OrderedEnqueuer::ProducerLoop(EnqueuerSlots* slots, int64_t first_size) {
  int64_t size = first_size;
  for (int64_t epoch = 1;; ++epoch) {
    if (!SubmitEpoch(slots, size, epoch == 1 ? options_.first_index : 0)) {
      return;
    }
    // Keras polls its queue every 0.1 s here; this waits on the consumer's
    // last Take of the epoch.
    if (!slots->WaitUntilAllTaken()) return;
    Status s = internal::RunCatching([this] {
      sequence_->OnEpochEnd();
      return OkStatus();
    });
    if (!s.ok()) {
      slots->Fail(s.WithContext("epoch " + std::to_string(epoch) +
                                ": Sequence::OnEpochEnd()"));
      return;
    }
    Result<int64_t> next = ReadSize(epoch + 1);
    if (!next.ok()) {
      slots->Fail(std::move(next).status());
      return;
    }
    size = *next;
  }
}

bool OrderedEnqueuer::SubmitEpoch(EnqueuerSlots* slots, int64_t size,
                                  int64_t from) {
  if (shuffle_ == nullptr) {
    for (int64_t i = from; i < size; ++i) {
      if (!slots->Submit(i)) return false;
    }
    return true;
  }
  const std::vector<int64_t> order = shuffle_->NextPermutation(size);
  for (size_t k = static_cast<size_t>(from); k < order.size(); ++k) {
    if (!slots->Submit(order[k])) return false;
  }
  return true;
}

void OrderedEnqueuer::WorkerLoop(EnqueuerSlots* slots,
                                 const CallOptions& options) {
  while (std::optional<EnqueuerSlots::Task> task = slots->NextTask()) {
    std::optional<Tuple> batch;
    Status s = internal::RunCatching([&] {
      Result<Tuple> got = sequence_->Get(task->index, options);
      if (!got.ok()) return std::move(got).status();
      batch = std::move(got).value();
      return OkStatus();
    });
    if (s.ok()) {
      slots->Fill(task->ticket, std::move(batch));
    } else {
      slots->Fill(task->ticket,
                  s.WithContext("batch " + std::to_string(task->index)));
    }
  }
}

Result<Tuple> OrderedEnqueuer::Get(const CallOptions& options) {
  return runner_->Get(options);
}

bool OrderedEnqueuer::IsRunning() const { return runner_->IsRunning(); }

Status OrderedEnqueuer::Stop(std::optional<std::chrono::milliseconds> timeout) {
  return runner_->Stop(timeout);
}

}  // namespace inflow
