# ctest script: install, configure the consumer against the prefix, build,
# run. The consumer sets no C++ standard: it must come from the exported
# targets (cxx_std_20), as it does for any project that links inflow.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
file(READ ${PROJECT_DIR}/CMakeLists.txt consumer_lists)
if(consumer_lists MATCHES "CMAKE_CXX_STANDARD|cxx_std_|-std=")
  message(FATAL_ERROR "the consumer project must not pick the C++ standard: "
                      "the installed inflow targets carry it")
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
run(${WORK_DIR}/prefix/bin/inflow --version)
