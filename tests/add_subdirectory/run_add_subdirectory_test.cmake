# Configures the parent project of this folder, which adds the repository with add_subdirectory:
# once as a Debug build with CUDA off, built and run (and its build tree searched for programs
# that must not be there), once with an empty build type and CUDA left at its default, configured
# only (the checks are in its CMakeLists.txt). cmake -P with BUILD_DIR, SOURCE_DIR (this folder),
# REPO_DIR, C_COMPILER, CXX_COMPILER.
set(root "${BUILD_DIR}/add_subdirectory_test")
file(REMOVE_RECURSE "${root}")
set(common -S "${SOURCE_DIR}" "-DWR_REPO=${REPO_DIR}"
    "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

set(debug "${root}/debug")
run_step(${CMAKE_COMMAND} ${common} -B "${debug}" -DCMAKE_BUILD_TYPE=Debug -DWR_ENABLE_CUDA=OFF)
run_step(${CMAKE_COMMAND} --build "${debug}" -j 2)
run_step("${debug}/wr_parent_app")
# What `all` built: libwr and its static libraries, no program of the subproject.
file(GLOB_RECURSE built LIST_DIRECTORIES false RELATIVE "${debug}/wr" "${debug}/wr/*")
foreach(file IN LISTS built)
  get_filename_component(name "${file}" NAME)
  if(NOT file MATCHES "CMakeFiles/" AND name MATCHES "^(wr-|test_|bench)")
    message(FATAL_ERROR "the parent's build built ${file}")
  endif()
endforeach()
if(NOT EXISTS "${debug}/wr/lib/libwr.so")
  message(FATAL_ERROR "the parent's build did not build libwr.so where expected")
endif()

run_step(${CMAKE_COMMAND} ${common} -B "${root}/no-build-type" -DCMAKE_BUILD_TYPE=)
