# Run-time ISA dispatch: each CPU kernel family is one ISA-neutral source,
# src/cpu/kernels/<family>.hpp, compiled once per ISA level inside the
# namespace anydnn::cpu::<isa>. Only these generated translation units get ISA
# flags; everything else is built for the baseline x86-64, so the library
# loads on any x86-64 and picks the kernels at run time (src/core/isa.cpp).

set(ANYDNN_ISA_LEVELS generic)
set(ANYDNN_ISA_FLAGS_generic "")
set(ANYDNN_X86_64 OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set(ANYDNN_X86_64 ON)
  list(APPEND ANYDNN_ISA_LEVELS avx2 avx512)
  set(ANYDNN_ISA_FLAGS_avx2 -mavx2 -mfma -mf16c)
  set(ANYDNN_ISA_FLAGS_avx512 -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma -mf16c
      -mprefer-vector-width=512)
endif()

# ANYDNN_CPU_ISA caps the levels compiled in, like oneDNN's
# ONEDNN_ENABLE_PRIMITIVE_CPU_ISA: each level is a third of the library's
# build time, so a build for one machine (the demo's) may skip the levels that
# machine cannot run. The library then never selects a level above the cap,
# and anydnn-doctor says when the CPU could run a higher one.
set(ANYDNN_CPU_ISA ALL CACHE STRING
    "Highest CPU ISA level to compile kernels for: ALL, NATIVE (the build machine's best), generic, avx2, avx512")
set_property(CACHE ANYDNN_CPU_ISA PROPERTY STRINGS ALL NATIVE generic avx2 avx512)
set(_anydnn_isa_cap ${ANYDNN_CPU_ISA})
if(ANYDNN_CPU_ISA STREQUAL "NATIVE")
  # The flags the kernel reports are those the CPU has and the OS enabled.
  set(_anydnn_isa_cap avx512)
  if(EXISTS /proc/cpuinfo)
    file(STRINGS /proc/cpuinfo _anydnn_flags REGEX "^flags" LIMIT_COUNT 1)
    set(_anydnn_isa_cap generic)
    if(_anydnn_flags MATCHES " avx2( |$)" AND _anydnn_flags MATCHES " fma( |$)" AND _anydnn_flags MATCHES " f16c( |$)")
      set(_anydnn_isa_cap avx2)
      if(_anydnn_flags MATCHES " avx512f( |$)" AND _anydnn_flags MATCHES " avx512bw( |$)"
         AND _anydnn_flags MATCHES " avx512dq( |$)" AND _anydnn_flags MATCHES " avx512vl( |$)")
        set(_anydnn_isa_cap avx512)
      endif()
    endif()
  endif()
endif()
if(NOT _anydnn_isa_cap STREQUAL "ALL")
  list(FIND ANYDNN_ISA_LEVELS ${_anydnn_isa_cap} _anydnn_cap_index)
  if(_anydnn_cap_index LESS 0)
    message(FATAL_ERROR "ANYDNN_CPU_ISA=${ANYDNN_CPU_ISA}: expected ALL, NATIVE or one of ${ANYDNN_ISA_LEVELS}")
  endif()
  math(EXPR _anydnn_cap_count "${_anydnn_cap_index} + 1")
  list(SUBLIST ANYDNN_ISA_LEVELS 0 ${_anydnn_cap_count} ANYDNN_ISA_LEVELS)
endif()
list(LENGTH ANYDNN_ISA_LEVELS _anydnn_level_count)
# The index of the highest level compiled in (the order of enum class Isa).
math(EXPR ANYDNN_MAX_COMPILED_ISA "${_anydnn_level_count} - 1")
message(STATUS "anydnn: CPU kernels for ${ANYDNN_ISA_LEVELS} (ANYDNN_CPU_ISA=${ANYDNN_CPU_ISA})")

# anydnn_isa_kernels(<out-var> <family>...): generates one translation unit per
# family and ISA level and returns their paths.
function(anydnn_isa_kernels out_var)
  set(sources)
  foreach(family IN LISTS ARGN)
    foreach(isa IN LISTS ANYDNN_ISA_LEVELS)
      set(ANYDNN_KERNEL_FAMILY ${family})
      set(ANYDNN_KERNEL_ISA ${isa})
      set(tu ${CMAKE_CURRENT_BINARY_DIR}/isa/${isa}/${family}.cpp)
      configure_file(${PROJECT_SOURCE_DIR}/src/cpu/isa_tu.cpp.in ${tu} @ONLY)
      set_source_files_properties(${tu} PROPERTIES COMPILE_OPTIONS "${ANYDNN_ISA_FLAGS_${isa}}")
      list(APPEND sources ${tu})
    endforeach()
  endforeach()
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()
