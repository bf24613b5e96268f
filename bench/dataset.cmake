# bench_dataset: Fashion-MNIST's shards (pipeline_data.cc), the queue
# Pipeline side (pipeline_inflow.cc, pipeline_plain.cc for its consumer)
# and the tf.data side's script, run with the project's venv.
target_sources(bench_dataset PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_data.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_plain.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_inflow.cc)
target_link_libraries(bench_dataset PRIVATE ZLIB::ZLIB)
target_compile_definitions(bench_dataset PRIVATE
  INFLOW_TF_DATA_SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/py/dataset_tf.py"
  INFLOW_VENV_PYTHON="${PROJECT_SOURCE_DIR}/.venv/bin/python")
# Without TensorFlow (a Python that fails) the JSON line has null tf.data
# figures and a tf_data_reason, and keeps its shape.
add_test(NAME bench_dataset_smoke_without_tf
  COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:bench_dataset>
          -DNAME=dataset -DEXPECT_NULL=ratio_vs_tf_data
          -P ${PROJECT_SOURCE_DIR}/cmake/check_bench_json.cmake)
set_tests_properties(bench_dataset_smoke_without_tf PROPERTIES
  TIMEOUT 120 LABELS "bench;release-only" ENVIRONMENT "INFLOW_TF_PYTHON=/bin/false")
