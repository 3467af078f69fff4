# Installs the build tree into a scratch prefix and uses it as a simulator would: configures,
# builds and runs the consumer project of this folder against it (find_package), builds and runs
# the same C program with the flags of the installed pkg-config file (where pkg-config is
# installed), and checks what the installed package and libwr.so ask of a consumer: the CMake
# package no other package, libwr.so nothing at run time but the C and C++ runtimes (ldd).
# cmake -P with BUILD_DIR, SOURCE_DIR (this folder), C_COMPILER, VERSION, and SANITIZE (the
# build's WR_SANITIZE: an instrumented libwr.so also needs the sanitizers' runtimes).
set(prefix "${BUILD_DIR}/find_package_test/prefix")
set(consumer "${BUILD_DIR}/find_package_test/consumer")
file(REMOVE_RECURSE "${BUILD_DIR}/find_package_test")

function(run_step out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# ---- find_package(warp_raycaster) + wr::wr ----
run_step(out ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run_step(out ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${consumer} -DCMAKE_PREFIX_PATH=${prefix}
         -DCMAKE_C_COMPILER=${C_COMPILER})
run_step(out ${CMAKE_COMMAND} --build ${consumer})
run_step(out ${consumer}/wr_consumer)
if(NOT out STREQUAL VERSION)
  message(FATAL_ERROR "the installed libwr says version '${out}' (wr_version_string), the project is ${VERSION}")
endif()

# The exported package asks for no package of the build's (Threads, CUDA ...):
# libwr's dependencies are private and linked in.
file(GLOB_RECURSE package_files "${prefix}/*/warp_raycaster*.cmake")
if(NOT package_files)
  message(FATAL_ERROR "no CMake package installed under ${prefix}")
endif()
foreach(file IN LISTS package_files)
  file(READ "${file}" text)
  string(REGEX REPLACE "#[^\n]*" "" text "${text}")  # comments name find_package
  if(text MATCHES "find_dependency|find_package|tinyobjloader|Threads::|CUDA::")
    message(FATAL_ERROR "${file} asks the consumer for a dependency (${CMAKE_MATCH_0})")
  endif()
endforeach()

# ---- pkg-config: Cflags and Libs point into the prefix; the C program builds and runs ----
file(GLOB_RECURSE pc_file "${prefix}/*/pkgconfig/warp_raycaster.pc")
if(NOT pc_file)
  message(FATAL_ERROR "warp_raycaster.pc not installed under ${prefix}")
endif()
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
get_filename_component(libdir "${pc_dir}" DIRECTORY)
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_LIBDIR} "${pc_dir}")  # this prefix's .pc files only, not the system's
  run_step(version ${PKG_CONFIG} --modversion warp_raycaster)
  run_step(flags ${PKG_CONFIG} --cflags --libs warp_raycaster)
  if(NOT version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config says version ${version}, the project is ${VERSION}")
  endif()
  foreach(flag "-I${prefix}/include" "-L${libdir}" "-lwr")
    string(FIND " ${flags} " " ${flag} " at)
    if(at EQUAL -1)
      message(FATAL_ERROR "pkg-config flags lack ${flag} (they must point into ${prefix}): ${flags}")
    endif()
  endforeach()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run_step(out ${C_COMPILER} ${SOURCE_DIR}/main.c ${flags} -o ${consumer}/wr_consumer_pkg_config)
  set(ENV{LD_LIBRARY_PATH} "${libdir}")
  run_step(out ${consumer}/wr_consumer_pkg_config)
  if(NOT out STREQUAL version)
    message(FATAL_ERROR "libwr through pkg-config says version '${out}', pkg-config ${version}")
  endif()
else()
  message(STATUS "pkg-config not found: the pkg-config consumer is not built (scripts/setup.sh installs it)")
endif()

# ---- what the installed libwr.so needs at run time: the C and C++ runtimes only ----
find_program(LDD ldd)
if(LDD)
  run_step(needed ${LDD} ${libdir}/libwr.so)
  string(REPLACE "\n" ";" needed "${needed}")
  foreach(line IN LISTS needed)
    string(STRIP "${line}" line)
    string(REGEX REPLACE "[ \t].*" "" name "${line}")
    get_filename_component(name "${name}" NAME)
    if(line MATCHES "tinyobjloader" OR line MATCHES "not found" OR NOT name MATCHES
       "^(linux-vdso|linux-gate|ld-linux[^/]*|libc|libm|libstdc\\+\\+|libgcc_s|libpthread|libdl|librt)\\.so" AND
       NOT (SANITIZE AND name MATCHES "^lib(asan|ubsan|tsan|lsan)\\.so"))  # a sanitizer build's runtimes
      message(FATAL_ERROR "the installed libwr.so needs ${line}:\n${needed}")
    endif()
  endforeach()
else()
  message(STATUS "ldd not found: the run-time dependencies of libwr.so are not checked")
endif()
