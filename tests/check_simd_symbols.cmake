# The CPU packet path is compiled once per instruction set (src/cpu/packet_tile_avx512.cpp,
# packet_tile_avx2.cpp). If one of those objects defined a weak symbol (an inline function or a
# template instantiation shared with other files), the linker could keep its AVX-512 copy for the
# whole library, and a CPU without AVX-512 would crash in code that never asked for it. This
# check (cmake -P, with NM and OBJECTS, the ;-separated objects of wr_core) fails unless each of
# those objects defines exactly one global symbol, its entry point, and no weak ones.
set(checked 0)
foreach(object ${OBJECTS})
  get_filename_component(name "${object}" NAME)
  if(NOT name MATCHES "^packet_tile_")
    continue()
  endif()
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
  list(LENGTH lines count)
  if(NOT count EQUAL 1 OR NOT symbols MATCHES " T _ZN2wr[0-9]+render_tile_")
    message(FATAL_ERROR "${name} must define only its render_tile_* entry point, but defines:\n${symbols}")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked EQUAL 0)
  message(STATUS "no packet_tile_* objects in this build (not x86-64): nothing to check")
endif()
message(STATUS "${checked} instruction-set objects export only their entry point")
