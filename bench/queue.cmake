# bench_queue runs inflow's queues against moodycamel::BlockingConcurrentQueue
# (header-only, Debian libconcurrentqueue-dev) and TBB's bounded queue.
find_package(TBB REQUIRED)
target_link_libraries(bench_queue PRIVATE TBB::tbb)
