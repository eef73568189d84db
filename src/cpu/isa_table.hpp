// Per-ISA kernel tables: each kernel family defines one table of function
// pointers per ISA level (in its src/cpu/kernels/<family>.hpp, compiled once
// per level) and declares them here-style with ANYDNN_DECLARE_ISA_TABLE, which
// also gives `<name>_kernels(isa)`, the table for a handle's ISA level.
#pragma once

#include "core/isa.hpp"

// Only the levels up to ANYDNN_MAX_COMPILED_ISA (the build's ANYDNN_CPU_ISA)
// have tables; detected_isa() never returns a level above it.
#if ANYDNN_MAX_COMPILED_ISA >= 1
#define ANYDNN_IF_AVX2(...) __VA_ARGS__
#else
#define ANYDNN_IF_AVX2(...)
#endif
#if ANYDNN_MAX_COMPILED_ISA >= 2
#define ANYDNN_IF_AVX512(...) __VA_ARGS__
#else
#define ANYDNN_IF_AVX512(...)
#endif

#define ANYDNN_DECLARE_ISA_TABLE(Type, name)                                    \
    namespace generic { extern const Type name; }                               \
    ANYDNN_IF_AVX2(namespace avx2 { extern const Type name; })                  \
    ANYDNN_IF_AVX512(namespace avx512 { extern const Type name; })              \
    inline const Type &name##_kernels(::anydnn::Isa isa) {                      \
        switch (isa) {                                                          \
        ANYDNN_IF_AVX512(case ::anydnn::Isa::avx512: return avx512::name;)      \
        ANYDNN_IF_AVX2(case ::anydnn::Isa::avx2: return avx2::name;)            \
        default: return generic::name;                                          \
        }                                                                       \
    }
