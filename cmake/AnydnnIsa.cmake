# Run-time ISA dispatch: each CPU kernel family is one ISA-neutral source,
# src/cpu/kernels/<family>.hpp, compiled once per ISA level inside the
# namespace anydnn::cpu::<isa>. Only these generated translation units get ISA
# flags; everything else is built for the baseline x86-64, so the library
# loads on any x86-64 and picks the kernels at run time (src/core/isa.cpp).

set(ANYDNN_ISA_LEVELS generic)
set(ANYDNN_ISA_FLAGS_generic "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  list(APPEND ANYDNN_ISA_LEVELS avx2 avx512)
  set(ANYDNN_ISA_FLAGS_avx2 -mavx2 -mfma -mf16c)
  set(ANYDNN_ISA_FLAGS_avx512 -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma -mf16c
      -mprefer-vector-width=512)
endif()

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
