# The CPU packet path is compiled once per instruction set (src/cpu/packet_tile_avx512.cpp,
# packet_tile_avx2.cpp). If one of those objects defined a weak symbol (an inline function or a
# template instantiation shared with other files) under the name the rest of the library uses,
# the linker could keep its AVX-512 copy for the whole library, and a CPU without AVX-512 would
# crash in code that never asked for it. Those objects are built with WR_ISA_TAG
# (src/core/platform.h), which gives their inline functions an ABI tag of their own ([abi:avx2],
# mangled B4avx2). This check (cmake -P, with NM and OBJECTS, the ;-separated objects of wr_core)
# fails unless each of those objects defines three global functions, its entry points
# render_tile_<isa> (a BVH's tiles), render_grid_tile_<isa> and render_grid_mesh_tile_<isa> (the grid
# kinds'), and weak symbols only under its own tag.
set(checked 0)
foreach(object ${OBJECTS})
  get_filename_component(name "${object}" NAME)
  if(NOT name MATCHES "^packet_tile_([a-z0-9]+)\\.")
    continue()
  endif()
  set(isa "${CMAKE_MATCH_1}")
  string(LENGTH "${isa}" isa_length)
  set(tag "B${isa_length}${isa}")  # the Itanium C++ ABI's mangling of [abi:<isa>]
  execute_process(COMMAND "${NM}" --defined-only --extern-only "${object}" OUTPUT_VARIABLE symbols
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(STRIP "${symbols}" symbols)
  # Instrumented code unwinds (sanitizer builds): its object then holds the weak pointer to the
  # C++ personality routine, data that is the same in every object, no code of any instruction set.
  string(REGEX REPLACE "[0-9a-f]+ V DW\\.ref\\.__gxx_personality_v0\n?" "" symbols "${symbols}")
  string(STRIP "${symbols}" symbols)
  string(REPLACE "\n" ";" lines "${symbols}")
  set(entry_points 0)
  set(bad "")
  foreach(line IN LISTS lines)
    if(line MATCHES " T _ZN2wr[0-9]+render_(grid_|grid_mesh_)?tile_${isa}E")
      math(EXPR entry_points "${entry_points} + 1")
    elseif(NOT (line MATCHES " [WVu] " AND line MATCHES "${tag}"))
      string(APPEND bad "\n  ${line}")
    endif()
  endforeach()
  if(NOT entry_points EQUAL 3 OR bad)
    message(FATAL_ERROR "${name} must define its render_tile_${isa}, render_grid_tile_${isa} and "
                        "render_grid_mesh_tile_${isa} entry points and "
                        "only weak symbols tagged "
                        "${tag}, but defines:\n${symbols}\nof which not allowed:${bad}")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked EQUAL 0)
  message(STATUS "no packet_tile_* objects in this build (not x86-64): nothing to check")
endif()
message(STATUS "${checked} instruction-set objects share only their entry points")
