# bench_custom_ops: its op library (custom_ops_lib.cc), the word2vec
# example's (examples/word2vec/word2vec_ops.cc), both built as an op
# library user builds them, and the NumPy word2vec script, run with the
# project's venv.
inflow_add_op_library(bench_custom_ops_lib SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/custom_ops_lib.cc)
inflow_add_op_library(bench_word2vec_ops
  SOURCES ${PROJECT_SOURCE_DIR}/examples/word2vec/word2vec_ops.cc)
add_dependencies(bench_custom_ops bench_custom_ops_lib bench_word2vec_ops)
target_compile_definitions(bench_custom_ops PRIVATE
  INFLOW_BENCH_OP_LIBRARY="$<TARGET_FILE:bench_custom_ops_lib>"
  INFLOW_WORD2VEC_OP_LIBRARY="$<TARGET_FILE:bench_word2vec_ops>"
  INFLOW_WORD2VEC_NUMPY_SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/py/word2vec_numpy.py"
  INFLOW_VENV_PYTHON="${PROJECT_SOURCE_DIR}/.venv/bin/python")
