# FindMuJoCo: MuJoCo's C headers and libmujoco, for integrations/mujoco.
#
# Where it looks:
#   - MUJOCO_ROOT or MuJoCo_ROOT (CMake variables, else environment variables), when given, and
#     only there: a MuJoCo release (include/mujoco/mujoco.h, lib/libmujoco.so.*) or a Python package
#     folder (site-packages/mujoco: include/mujoco/mujoco.h next to libmujoco.so.*);
#   - else the project's virtual environment, .venv/lib/python3*/site-packages/mujoco, where
#     scripts/setup.sh installs MuJoCo from PyPI (the wheel ships the C headers and the library).
# Nothing is downloaded. The result is cached; a different hint searches again.
#
# Defines
#   MuJoCo_FOUND, MuJoCo_VERSION (from mujoco.h's mjVERSION_HEADER: major * 10^6 + minor * 10^3 + patch),
#   MuJoCo_INCLUDE_DIR (the folder holding mujoco/mujoco.h), MuJoCo_LIBRARY (the library file itself,
#   e.g. libmujoco.so.4.0.0: the PyPI wheel has no unversioned libmujoco.so), MuJoCo_LIBRARY_DIR,
#   MuJoCo_SONAME, MuJoCo_NOT_FOUND_REASON (why not, for a STATUS message: set when not found),
#   and the imported target MuJoCo::MuJoCo.
#
# A program linking MuJoCo::MuJoCo records the library's soname (IMPORTED_SONAME) as NEEDED and
# finds it at run time through its RPATH: give it BUILD_RPATH ${MuJoCo_LIBRARY_DIR} (CMake also puts
# the folders of full-path imported libraries there, but a site-packages folder is nowhere the
# loader looks by itself, so the integration's targets say so explicitly).

set(_mujoco_roots "")
foreach(_mujoco_hint MUJOCO_ROOT MuJoCo_ROOT)
  if(DEFINED ${_mujoco_hint} AND NOT "${${_mujoco_hint}}" STREQUAL "")
    list(APPEND _mujoco_roots "${${_mujoco_hint}}")
  elseif(DEFINED ENV{${_mujoco_hint}} AND NOT "$ENV{${_mujoco_hint}}" STREQUAL "")
    list(APPEND _mujoco_roots "$ENV{${_mujoco_hint}}")
  endif()
endforeach()
if(NOT _mujoco_roots)
  # This file lives in <project>/cmake: the project's .venv is one folder up. Any Python version's
  # (one venv has one).
  file(GLOB _mujoco_roots LIST_DIRECTORIES true "${CMAKE_CURRENT_LIST_DIR}/../.venv/lib/python3*/site-packages/mujoco")
  list(SORT _mujoco_roots ORDER DESCENDING)
endif()

set(MuJoCo_NOT_FOUND_REASON "")
if(NOT "${_mujoco_roots}" STREQUAL "${_MuJoCo_SEARCHED}")
  unset(MuJoCo_INCLUDE_DIR CACHE)
  unset(MuJoCo_LIBRARY CACHE)
endif()
set(_MuJoCo_SEARCHED "${_mujoco_roots}" CACHE INTERNAL "Where FindMuJoCo last looked")
if(NOT MuJoCo_INCLUDE_DIR OR NOT MuJoCo_LIBRARY)
  unset(MuJoCo_INCLUDE_DIR CACHE)
  unset(MuJoCo_LIBRARY CACHE)
  foreach(_mujoco_root ${_mujoco_roots})
    get_filename_component(_mujoco_root "${_mujoco_root}" ABSOLUTE)
    if(NOT EXISTS "${_mujoco_root}/include/mujoco/mujoco.h")
      continue()
    endif()
    # The library as shipped: libmujoco.so.<version> (a release also has libmujoco.so -> it).
    file(GLOB _mujoco_libs "${_mujoco_root}/libmujoco.so*" "${_mujoco_root}/lib/libmujoco.so*")
    if(NOT _mujoco_libs)
      continue()
    endif()
    # Prefer the real file over a symbolic link to it (IMPORTED_LOCATION names the file itself).
    set(_mujoco_lib "")
    foreach(_candidate ${_mujoco_libs})
      if(NOT IS_SYMLINK "${_candidate}")
        set(_mujoco_lib "${_candidate}")
        break()
      endif()
    endforeach()
    if(NOT _mujoco_lib)
      list(GET _mujoco_libs 0 _mujoco_lib)
      get_filename_component(_mujoco_lib "${_mujoco_lib}" REALPATH)
    endif()
    set(MuJoCo_INCLUDE_DIR "${_mujoco_root}/include" CACHE PATH "Folder holding mujoco/mujoco.h")
    set(MuJoCo_LIBRARY "${_mujoco_lib}" CACHE FILEPATH "libmujoco shared library file")
    break()
  endforeach()
endif()

if(MuJoCo_INCLUDE_DIR AND EXISTS "${MuJoCo_INCLUDE_DIR}/mujoco/mujoco.h")
  file(STRINGS "${MuJoCo_INCLUDE_DIR}/mujoco/mujoco.h" _mujoco_version_line
       REGEX "^#define[ \t]+mjVERSION_HEADER[ \t]+[0-9]+")
  if(_mujoco_version_line MATCHES "mjVERSION_HEADER[ \t]+([0-9]+)")
    set(_mujoco_v "${CMAKE_MATCH_1}")
    math(EXPR _mujoco_major "${_mujoco_v} / 1000000")
    math(EXPR _mujoco_minor "(${_mujoco_v} / 1000) % 1000")
    math(EXPR _mujoco_patch "${_mujoco_v} % 1000")
    set(MuJoCo_VERSION "${_mujoco_major}.${_mujoco_minor}.${_mujoco_patch}")
  else()
    set(MuJoCo_NOT_FOUND_REASON "${MuJoCo_INCLUDE_DIR}/mujoco/mujoco.h has no mjVERSION_HEADER")
  endif()
endif()

if(MuJoCo_LIBRARY AND EXISTS "${MuJoCo_LIBRARY}")
  get_filename_component(MuJoCo_LIBRARY_DIR "${MuJoCo_LIBRARY}" DIRECTORY)
  # The soname the linker will record: read from the file (readelf -d), else its file name (the
  # releases and the wheel name the file after its soname).
  get_filename_component(MuJoCo_SONAME "${MuJoCo_LIBRARY}" NAME)
  find_program(_mujoco_readelf NAMES readelf ${CMAKE_READELF})
  if(_mujoco_readelf)
    execute_process(COMMAND "${_mujoco_readelf}" -d "${MuJoCo_LIBRARY}" OUTPUT_VARIABLE _mujoco_dynamic
                    ERROR_QUIET RESULT_VARIABLE _mujoco_readelf_rc)
    if(_mujoco_readelf_rc EQUAL 0 AND _mujoco_dynamic MATCHES "Library soname: \\[([^]]+)\\]")
      set(MuJoCo_SONAME "${CMAKE_MATCH_1}")
    endif()
  endif()
endif()

if(NOT MuJoCo_NOT_FOUND_REASON AND (NOT MuJoCo_INCLUDE_DIR OR NOT MuJoCo_LIBRARY))
  if(_mujoco_roots)
    string(REPLACE ";" ", " _mujoco_where "${_mujoco_roots}")
    set(MuJoCo_NOT_FOUND_REASON "no include/mujoco/mujoco.h with libmujoco.so* in ${_mujoco_where}")
  else()
    set(MuJoCo_NOT_FOUND_REASON "no .venv/lib/python3*/site-packages/mujoco in ${CMAKE_CURRENT_LIST_DIR}/.. "
                                "(scripts/setup.sh installs MuJoCo from PyPI there) and no MUJOCO_ROOT given")
    string(REPLACE ";" "" MuJoCo_NOT_FOUND_REASON "${MuJoCo_NOT_FOUND_REASON}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MuJoCo
  REQUIRED_VARS MuJoCo_LIBRARY MuJoCo_INCLUDE_DIR MuJoCo_VERSION
  VERSION_VAR MuJoCo_VERSION
  REASON_FAILURE_MESSAGE "${MuJoCo_NOT_FOUND_REASON}")
if(MuJoCo_FOUND)
  set(MuJoCo_NOT_FOUND_REASON "")
elseif(NOT MuJoCo_NOT_FOUND_REASON)
  # Found but refused by the caller's version requirement.
  set(MuJoCo_NOT_FOUND_REASON "MuJoCo ${MuJoCo_VERSION} at ${MuJoCo_LIBRARY} does not satisfy the version asked for")
endif()

if(MuJoCo_FOUND AND NOT TARGET MuJoCo::MuJoCo)
  add_library(MuJoCo::MuJoCo SHARED IMPORTED)
  set_target_properties(MuJoCo::MuJoCo PROPERTIES
    IMPORTED_LOCATION "${MuJoCo_LIBRARY}"
    IMPORTED_SONAME "${MuJoCo_SONAME}"
    INTERFACE_INCLUDE_DIRECTORIES "${MuJoCo_INCLUDE_DIR}")
endif()

mark_as_advanced(MuJoCo_INCLUDE_DIR MuJoCo_LIBRARY _mujoco_readelf)
