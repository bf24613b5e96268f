// Copyright 2026 The inflow Authors.
//
// MpiWorld: Open MPI's MPI_COMM_WORLD as a Communicator, with the watchdog
// distributed/mpi.h describes.

#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/distributed/mpi.h"

#include "distributed/host_barrier.h"

namespace inflow::distributed {
namespace {

using Clock = std::chrono::steady_clock;

std::string MpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return "MPI error " + std::to_string(code);
  }
  return std::string(text, static_cast<size_t>(length));
}

// MPI_Init_thread once per process, MPI_Finalize at its exit.
Status InitializeMpi() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] {
    // Open MPI's plugins resolve symbols of libmpi: when libmpi came in
    // with a library opened privately (a Python extension), make its
    // symbols global first.
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) != 0 &&
        info.dli_fname != nullptr) {
      dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    }
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) return;
    int provided = 0;
    const int rc =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
      status =
          UnavailableError("MPI_Init_thread failed: " + MpiErrorString(rc));
      return;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
      status = UnavailableError(
          "this MPI library does not support calls from more than one "
          "thread (MPI_THREAD_SERIALIZED)");
      return;
    }
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  });
  return status;
}

// A process is gone once kill(pid, 0) fails or it is a zombie.
bool ProcessDead(int pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

// What every rank tells the others about itself.
struct Peer {
  int32_t pid = 0;
  char host[60] = {};
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "inflow: %s\n", message.c_str());
  std::fflush(stderr);
  _exit(1);
}

class MpiCommunicator;

// One host's MPI shared-memory window: the barrier's words, then the
// caller's bytes. The window is never freed before MPI_Finalize (at exit):
// MPI_Win_free waits for every rank of the host, and a rank that returns
// an error must not wait for one that went on.
class MpiHostMemory final : public HostMemory {
 public:
  MpiHostMemory(MpiCommunicator* comm, MPI_Comm cross, int rank, int size,
                int hosts, std::byte* base, size_t bytes)
      : comm_(comm),
        cross_(cross),
        rank_(rank),
        size_(size),
        hosts_(hosts),
        base_(base),
        bytes_(bytes) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int hosts() const override { return hosts_; }
  std::span<std::byte> bytes() const override {
    return {base_ + internal::kBarrierBytes, bytes_};
  }
  Status Barrier() override;
  Status AllreduceAcrossHosts(std::span<float> data) override;

 private:
  MpiCommunicator* comm_;  // must outlive the calls above
  MPI_Comm cross_;         // this rank() on every host
  const int rank_, size_, hosts_;
  std::byte* base_;
  const size_t bytes_;
};

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, int rank, int size, std::vector<Peer> peers,
                  const MpiOptions& options)
      : comm_(comm),
        rank_(rank),
        size_(size),
        peers_(std::move(peers)),
        options_(options),
        watchdog_([this](std::stop_token stop) { Watch(stop); }) {}

  ~MpiCommunicator() override {
    watchdog_.request_stop();
    {
      MutexLock lock(&mu_);
      cv_.SignalAll();
    }
    watchdog_.join();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string Describe(int rank) const override {
    if (rank < 0 || rank >= size_) return "rank " + std::to_string(rank);
    return "rank " + std::to_string(rank) + " (pid " +
           std::to_string(peers_[rank].pid) + " on " + peers_[rank].host + ")";
  }

  Status AllreduceSum(std::span<float> data) override {
    return Sum(data.data(), data.size(), MPI_FLOAT);
  }
  Status AllreduceSum(std::span<double> data) override {
    return Sum(data.data(), data.size(), MPI_DOUBLE);
  }

  Status Allgather(std::span<const std::byte> mine,
                   std::span<std::byte> all) override {
    if (all.size() != mine.size() * size_ || mine.size() > INT_MAX) {
      return InvalidArgumentError(
          Activity() + ": allgather of " + std::to_string(mine.size()) +
          " bytes per rank into " + std::to_string(all.size()) + " bytes");
    }
    return Call("allgather", [&] {
      return MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_BYTE,
                           all.data(), static_cast<int>(mine.size()), MPI_BYTE,
                           comm_);
    });
  }

  Status Broadcast(std::span<std::byte> data, int root) override {
    if (root < 0 || root >= size_) {
      return InvalidArgumentError(Activity() + ": broadcast from rank " +
                                  std::to_string(root) + " of " +
                                  std::to_string(size_));
    }
    return InChunks(data.size(), [&](size_t done, int n) {
      return Call("broadcast", [&] {
        return MPI_Bcast(data.data() + done, n, MPI_BYTE, root, comm_);
      });
    });
  }

  void SetActivity(std::string activity) override {
    MutexLock lock(&mu_);
    activity_ = std::move(activity);
  }

  Result<std::shared_ptr<HostMemory>> ShareHostMemory(
      size_t bytes, size_t bytes_per_rank) override {
    MPI_Comm host = MPI_COMM_NULL, cross = MPI_COMM_NULL;
    int local_rank = 0, local_size = 1, hosts = 1;
    bool equal = false;
    MPI_Win window;
    std::byte* base = nullptr;
    size_t total = 0;
    INFLOW_RETURN_IF_ERROR(Call("host memory", [&] {
      int rc = MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_,
                                   MPI_INFO_NULL, &host);
      if (rc != MPI_SUCCESS) return rc;
      MPI_Comm_rank(host, &local_rank);
      MPI_Comm_size(host, &local_size);
      if (options_.ranks_per_host > 0 && local_size > options_.ranks_per_host) {
        MPI_Comm part;
        rc = MPI_Comm_split(host, local_rank / options_.ranks_per_host,
                            local_rank, &part);
        if (rc != MPI_SUCCESS) return rc;
        MPI_Comm_free(&host);
        host = part;
        MPI_Comm_rank(host, &local_rank);
        MPI_Comm_size(host, &local_size);
      }
      // Every host must hold as many ranks, and every rank want sharing.
      int mine[2] = {options_.share_host_memory ? local_size : -1,
                     options_.share_host_memory ? -local_size : -1};
      int agreed[2];
      rc = MPI_Allreduce(mine, agreed, 2, MPI_INT, MPI_MAX, comm_);
      if (rc != MPI_SUCCESS) return rc;
      equal = agreed[0] > 0 && agreed[0] == -agreed[1];
      if (!equal) return MPI_SUCCESS;
      hosts = size_ / local_size;
      bytes += bytes_per_rank * static_cast<size_t>(local_size);
      total = internal::kBarrierBytes + bytes + 64;
      rc = MPI_Comm_split(comm_, local_rank, rank_, &cross);
      if (rc != MPI_SUCCESS) return rc;
      MPI_Comm_set_errhandler(cross, MPI_ERRORS_RETURN);
      void* at = nullptr;
      rc = MPI_Win_allocate_shared(
          static_cast<MPI_Aint>(local_rank == 0 ? total : 0), 1, MPI_INFO_NULL,
          host, &at, &window);
      if (rc != MPI_SUCCESS) return rc;
      MPI_Aint size = 0;
      int unit = 0;
      rc = MPI_Win_shared_query(window, 0, &size, &unit, &at);
      if (rc != MPI_SUCCESS) return rc;
      // The segment is mapped page-aligned in every process, so the same
      // offset aligns it for all.
      const uintptr_t address = reinterpret_cast<uintptr_t>(at);
      base = static_cast<std::byte*>(at) + ((64 - address % 64) % 64);
      if (local_rank == 0) std::memset(base, 0, total - 64);
      return MPI_Barrier(host);
    }));
    if (!equal) {
      if (host != MPI_COMM_NULL) MPI_Comm_free(&host);
      return FailedPreconditionError(
          options_.share_host_memory
              ? "the hosts hold different numbers of ranks"
              : "sharing host memory is off (MpiOptions::share_host_memory)");
    }
    return std::shared_ptr<HostMemory>(std::make_shared<MpiHostMemory>(
        this, cross, local_rank, local_size, hosts, base, bytes));
  }

 private:
  friend class MpiHostMemory;

  std::string Activity() INFLOW_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return activity_;
  }

  // fn(first element, count) over [0, count) in parts of at most 2^30
  // elements (MPI counts are ints).
  template <typename Fn>
  static Status InChunks(size_t count, Fn fn) {
    for (size_t done = 0; done < count;) {
      const int n = static_cast<int>(std::min<size_t>(count - done, 1 << 30));
      INFLOW_RETURN_IF_ERROR(fn(done, n));
      done += static_cast<size_t>(n);
    }
    return OkStatus();
  }

  Status Sum(void* data, size_t count, MPI_Datatype type) {
    return Sum(data, count, type, comm_);
  }
  Status Sum(void* data, size_t count, MPI_Datatype type, MPI_Comm comm) {
    int element = 0;
    MPI_Type_size(type, &element);
    return InChunks(count, [&](size_t done, int n) {
      void* at = static_cast<char*>(data) + done * element;
      return Call("allreduce", [&] {
        // Every rank arrives first (a barrier waited for by Wait, which
        // sleeps), then the blocking allreduce, MPI's fastest, runs with
        // no one late.
        if (options_.spin_wait.count() >= 0) {
          MPI_Request request;
          int rc = MPI_Ibarrier(comm, &request);
          if (rc == MPI_SUCCESS) rc = Wait(&request);
          if (rc != MPI_SUCCESS) return rc;
        }
        return MPI_Allreduce(MPI_IN_PLACE, at, n, type, MPI_SUM, comm);
      });
    });
  }

  // Polls `request` for options_.spin_wait, then sleeps between polls
  // (MPI progresses the request inside each MPI_Test): a rank that waits
  // long for a slower one leaves its core to other work, such as that
  // slower rank when the machine is busy.
  int Wait(MPI_Request* request) {
    const Clock::time_point spin_until = Clock::now() + options_.spin_wait;
    std::chrono::microseconds nap{10};
    for (;;) {
      int done = 0;
      const int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS || done) return rc;
      if (Clock::now() < spin_until) continue;
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(50));
    }
  }

  // Runs one MPI call with the watchdog looking on.
  template <typename Fn>
  Status Call(const char* what, Fn fn) {
    std::string activity;
    {
      MutexLock lock(&mu_);
      waiting_since_ = Clock::now();
      waiting_ = true;
      activity = activity_;
      cv_.SignalAll();
    }
    const int rc = fn();
    {
      MutexLock lock(&mu_);
      waiting_ = false;
    }
    if (rc == MPI_SUCCESS) return OkStatus();
    return UnavailableError(activity + " (MPI " + what + ") failed on " +
                            Describe(rank_) + ": " + MpiErrorString(rc));
  }

  // The watchdog: while a call waits, the peers on this host must live.
  void Watch(std::stop_token stop) {
    const char* host = peers_[rank_].host;
    std::optional<Clock::time_point> stop_seen;
    MutexLock lock(&mu_);
    while (!stop.stop_requested()) {
      if (!waiting_) {
        cv_.WaitUntil(&mu_, Clock::now() + std::chrono::seconds(1));
        continue;
      }
      cv_.WaitUntil(&mu_, Clock::now() + options_.check_interval);
      if (!waiting_ || stop.stop_requested()) continue;
      const Clock::time_point now = Clock::now();
      const std::string where = Describe(rank_);
      for (int r = 0; r < size_; ++r) {
        if (r == rank_ ||
            std::strncmp(peers_[r].host, host, sizeof(Peer::host)))
          continue;
        if (ProcessDead(peers_[r].pid)) {
          Die(where + ": " + Describe(r) + " has died; " + activity_ +
              " cannot complete");
        }
      }
      const auto waited = now - waiting_since_;
      if (options_.collective_timeout.count() > 0 &&
          waited > options_.collective_timeout) {
        Die(where + ": " + activity_ + " has waited " +
            std::to_string(options_.collective_timeout.count()) +
            " s for the other ranks; one has stopped answering");
      }
      if (options_.stop.stop_requested()) {
        if (!stop_seen) stop_seen = now;
        if (now - std::max(*stop_seen, waiting_since_) > options_.stop_grace) {
          Die(where + ": stopped while " + activity_ +
              " waited for the other ranks");
        }
      }
    }
  }

  MPI_Comm comm_;
  const int rank_;
  const int size_;
  const std::vector<Peer> peers_;
  const MpiOptions options_;
  Mutex mu_;
  CondVar cv_;
  std::string activity_ INFLOW_GUARDED_BY(mu_) = "a collective";
  bool waiting_ INFLOW_GUARDED_BY(mu_) = false;
  Clock::time_point waiting_since_ INFLOW_GUARDED_BY(mu_);
  std::jthread watchdog_;  // last: it reads the members above
};

Status MpiHostMemory::Barrier() {
  if (size_ == 1) return OkStatus();
  const std::chrono::microseconds spin = comm_->options_.spin_wait.count() >= 0
                                             ? comm_->options_.spin_wait
                                             : std::chrono::hours(1);
  // The watchdog looks on while it waits (a dead rank of this host, the
  // collective timeout, a stop): as for MPI's own collectives.
  return comm_->Call("host barrier", [&] {
    Status s = internal::HostBarrierWait(
        reinterpret_cast<internal::BarrierWords*>(base_), size_, spin,
        [] { return OkStatus(); });
    return s.ok() ? MPI_SUCCESS : MPI_ERR_OTHER;
  });
}

Status MpiHostMemory::AllreduceAcrossHosts(std::span<float> data) {
  if (hosts_ == 1) return OkStatus();
  return comm_->Sum(data.data(), data.size(), MPI_FLOAT, cross_);
}

}  // namespace

bool LaunchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr ||
         std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

Result<std::unique_ptr<Communicator>> MpiWorld(const MpiOptions& options) {
  INFLOW_RETURN_IF_ERROR(InitializeMpi());
  MPI_Comm comm;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rc != MPI_SUCCESS) {
    return UnavailableError("MPI_Comm_dup failed: " + MpiErrorString(rc));
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Peer me;
  me.pid = static_cast<int32_t>(getpid());
  gethostname(me.host, sizeof(me.host) - 1);
  std::vector<Peer> peers(static_cast<size_t>(size));
  rc = MPI_Allgather(&me, sizeof(Peer), MPI_BYTE, peers.data(), sizeof(Peer),
                     MPI_BYTE, comm);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&comm);
    return UnavailableError("exchanging the ranks' pids failed: " +
                            MpiErrorString(rc));
  }
  return std::unique_ptr<Communicator>(std::make_unique<MpiCommunicator>(
      comm, rank, size, std::move(peers), options));
}

}  // namespace inflow::distributed
