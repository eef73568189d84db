# Configures the project (library only) with several ANYDNN_CPU_ISA values and
# checks the levels it compiles in: a cap keeps the levels up to it, NATIVE
# names one of the levels, a bad value stops the configure with a message.
#   cmake -DSOURCE=<repo> -DSCRATCH=<dir> -DGENERATOR=<gen> -P check_cpu_isa_option.cmake
function(configure_with value out_rc out_text)
  file(REMOVE_RECURSE ${SCRATCH})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${SCRATCH} -G ${GENERATOR} -DANYDNN_CPU_ISA=${value}
                          -DANYDNN_BUILD_TESTS=OFF -DANYDNN_BUILD_TOOLS=OFF -DANYDNN_BUILD_EXAMPLES=OFF
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_levels value levels)
  configure_with(${value} rc text)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ANYDNN_CPU_ISA=${value}: the configure failed:\n${text}")
  endif()
  string(FIND "${text}" "anydnn: CPU kernels for ${levels} (ANYDNN_CPU_ISA=${value})" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "ANYDNN_CPU_ISA=${value}: expected the levels ${levels}:\n${text}")
  endif()
endfunction()

expect_levels(generic "generic")
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  expect_levels(avx2 "generic;avx2")
  expect_levels(ALL "generic;avx2;avx512")
endif()

configure_with(NATIVE rc text)
if(NOT rc EQUAL 0 OR NOT text MATCHES "anydnn: CPU kernels for generic(;avx2(;avx512)?)? \\(ANYDNN_CPU_ISA=NATIVE\\)")
  message(FATAL_ERROR "ANYDNN_CPU_ISA=NATIVE: expected a prefix of generic;avx2;avx512:\n${text}")
endif()

configure_with(sse9 rc text)
if(rc EQUAL 0 OR NOT text MATCHES "ANYDNN_CPU_ISA=sse9: expected ALL, NATIVE or one of")
  message(FATAL_ERROR "ANYDNN_CPU_ISA=sse9 was not refused with a message:\n${text}")
endif()
file(REMOVE_RECURSE ${SCRATCH})
