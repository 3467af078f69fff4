# catch_discover_tests turns each Catch2 test name into a CTest test, and a ';' in a name
# splits it into two CTest entries that match no test case and pass without running anything.
# This check (cmake -P, with SOURCE_DIR) fails on any such name so no test is lost that way.
file(GLOB_RECURSE sources "${SOURCE_DIR}/*.cpp")
set(bad "")
foreach(source ${sources})
  file(READ "${source}" text)
  string(REGEX MATCHALL "TEST_CASE\\(\"[^\"]*;[^\"]*\"" found "${text}")
  if(found)
    get_filename_component(name "${source}" NAME)
    list(APPEND bad "${name}")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "Catch2 test names with ';' (CTest would skip them silently) in: ${bad}")
endif()
