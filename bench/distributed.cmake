# bench_distributed's worker measures MPI's own ping-pong beside the
# allreduce: it calls MPI directly.
target_link_libraries(bench_distributed PRIVATE MPI::MPI_CXX
  nlohmann_json::nlohmann_json)
