# ctest ops_out_of_tree_test: installs the built inflow to a temporary
# prefix, builds out_of_tree/ against it (find_package(inflow),
# inflow_add_op_library) and runs its program on its op library.
# -DBUILD_DIR -DPROJECT_DIR -DWORK_DIR -DCXX -DGENERATOR
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${build} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${build})
run(${build}/run_add_one ${build}/libadd_one.so)
if(NOT run_output STREQUAL "1 2 3 4 5\n")
  message(FATAL_ERROR "run_add_one printed '${run_output}', not '1 2 3 4 5'")
endif()
message(STATUS "out of tree: AddOne gave ${run_output}")
file(REMOVE_RECURSE ${WORK_DIR})
