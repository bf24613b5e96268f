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

 private:
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
          int rc = MPI_Ibarrier(comm_, &request);
          if (rc == MPI_SUCCESS) rc = Wait(&request);
          if (rc != MPI_SUCCESS) return rc;
        }
        return MPI_Allreduce(MPI_IN_PLACE, at, n, type, MPI_SUM, comm_);
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
