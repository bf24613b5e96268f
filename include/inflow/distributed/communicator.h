// Copyright 2026 The inflow Authors.
//
// Communicator: the collectives a data-parallel training run needs among
// its ranks (docs/distributed.md). Two implementations:
//
//   MpiWorld()       the processes an `mpirun -np N` started, over Open MPI
//                    (distributed/mpi.h)
//   MakeLocalGroup() N ranks inside one process, one thread each: the same
//                    training code run in a test, under the sanitizers
//
// Every collective is called by every rank of the group, in the same
// order, with buffers of the same length; each blocks until all ranks
// have called it. Errors name the collective (SetActivity) and, when one
// is to blame, the rank.
//
//   std::vector<std::unique_ptr<Communicator>> group = MakeLocalGroup(2);
//   // thread r:
//   std::vector<float> grads = ...;
//   Status s = group[r]->AllreduceSum(grads);  // the ranks' sum, on each
//
// Thread-compatible: one thread at a time uses a Communicator (each rank's
// thread its own).

#ifndef INFLOW_DISTRIBUTED_COMMUNICATOR_H_
#define INFLOW_DISTRIBUTED_COMMUNICATOR_H_

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"

namespace inflow::distributed {

// Memory every rank of one host maps, made by
// Communicator::ShareHostMemory: the ranks of a host read and write it
// directly, with Barrier() between one's writes and another's reads. The
// group's ranks are `hosts()` hosts of `size()` ranks each. The bytes
// stay mapped as long as any reference to it; Barrier and
// AllreduceAcrossHosts need its Communicator alive.
//
// Thread-compatible, as its Communicator, whose thread calls it.
class HostMemory {
 public:
  virtual ~HostMemory() = default;

  // This rank among its host's, in [0, size()); the ranks of a host;
  // the hosts.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int hosts() const = 0;
  // The shared bytes (64-byte aligned), the same on every rank of a host.
  virtual std::span<std::byte> bytes() const = 0;

  // Waits until every rank of this host has called it as many times: one
  // rank's writes to bytes() before it are seen by every rank of the host
  // after it. Errors as the Communicator's collectives (a rank that died
  // or left is UNAVAILABLE, or ends the process under MPI's watchdog).
  [[nodiscard]] virtual Status Barrier() = 0;
  // The element-wise sum of `data` over the hosts' ranks with this
  // rank(): one rank per host, in place. Nothing to do on one host.
  [[nodiscard]] virtual Status AllreduceAcrossHosts(std::span<float> data) = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  // This process's (or thread's) rank in [0, size()), and the group's size.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "rank R (pid P on HOST)": a rank as messages name it.
  virtual std::string Describe(int rank) const = 0;

  // The element-wise sum of every rank's `data`, into every rank's `data`
  // (in place). Every rank gets the same bits.
  [[nodiscard]] virtual Status AllreduceSum(std::span<float> data) = 0;
  [[nodiscard]] virtual Status AllreduceSum(std::span<double> data) = 0;
  // Every rank's `mine` (the same length on each) into every rank's `all`,
  // rank r's at byte r * mine.size(); `all` holds size() * mine.size().
  [[nodiscard]] virtual Status Allgather(std::span<const std::byte> mine,
                                         std::span<std::byte> all) = 0;
  // Rank `root`'s `data` into every rank's.
  [[nodiscard]] virtual Status Broadcast(std::span<std::byte> data,
                                         int root) = 0;

  // Memory shared by the ranks of each host (one copy per host, zeroed):
  // `bytes` plus `bytes_per_rank` for each of the host's ranks, and the
  // collectives over it (HostMemory). Collective over every rank, with
  // the same arguments on each. FAILED_PRECONDITION when the ranks cannot share
  // it that way: hosts with different numbers of ranks, or sharing turned off
  // (MpiOptions::share_host_memory); every rank gets the same answer.
  [[nodiscard]] virtual Result<std::shared_ptr<HostMemory>> ShareHostMemory(
      size_t bytes, size_t bytes_per_rank = 0) = 0;

  // What the collectives that follow are for ("the allreduce of step 12"):
  // their errors name it, and so does the message of a rank that finds
  // another dead while it waits.
  virtual void SetActivity(std::string activity) = 0;
};

// `size` ranks in this process (1 to 1024), to be used one per thread.
// A rank whose Communicator is destroyed leaves the group: the others'
// collectives, waiting or later, fail with UNAVAILABLE naming it (as an
// MPI rank that dies), never hang. `ranks_per_host` (dividing `size`;
// else, and by default, all of them): the ranks as hosts of that many
// consecutive ranks for ShareHostMemory, as MPI ranks on several
// machines are.
std::vector<std::unique_ptr<Communicator>> MakeLocalGroup(
    int size, int ranks_per_host = 0);

}  // namespace inflow::distributed

#endif  // INFLOW_DISTRIBUTED_COMMUNICATOR_H_
