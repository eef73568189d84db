# The ISA-specific objects must not define a weak (inline / template)
# symbol outside their own namespace anydnn::cpu::<isa>: the linker keeps
# one copy of each weak symbol, so an AVX-512 copy of a shared helper could
# end up on the generic path and fault on an older CPU.
# DW.ref.__gxx_personality_v0 is exempt: it is a data word that points at
# the C++ runtime's personality routine (emitted wherever a function can
# unwind), identical in every object and holds no ISA-specific code.
#   cmake -DNM=<nm> -DOBJECTS="<obj>;<obj>..." -P check_isa_symbols.cmake
set(checked 0)
foreach(obj IN LISTS OBJECTS)
  if(NOT obj MATCHES "/isa/(avx2|avx512)/")
    continue()
  endif()
  set(isa ${CMAKE_MATCH_1})
  execute_process(COMMAND ${NM} -C ${obj} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  foreach(line IN LISTS lines)
    if(line MATCHES " [WVu] " AND NOT line MATCHES "anydnn::cpu::${isa}::"
       AND NOT line MATCHES " DW\\.ref\\.__gxx_personality_v0$")
      message(FATAL_ERROR "${obj} defines a weak symbol outside anydnn::cpu::${isa}: ${line}")
    endif()
  endforeach()
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no ISA objects were checked")
endif()
message(STATUS "${checked} ISA objects checked")
