# Installs the build tree into a scratch prefix, then configures, builds and runs the
# consumer project against it, as a simulator would: cmake -P with BUILD_DIR, SOURCE_DIR.
set(prefix "${BUILD_DIR}/find_package_test/prefix")
set(consumer "${BUILD_DIR}/find_package_test/consumer")
file(REMOVE_RECURSE "${BUILD_DIR}/find_package_test")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${prefix}"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${consumer};-DCMAKE_PREFIX_PATH=${prefix}"
    "${CMAKE_COMMAND};--build;${consumer}"
    "${consumer}/wr_consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}\n${out}\n${err}")
  endif()
endforeach()
