// Per-ISA kernel tables: each kernel family defines one table of function
// pointers per ISA level (in its src/cpu/kernels/<family>.hpp, compiled once
// per level) and declares them here-style with ANYDNN_DECLARE_ISA_TABLE, which
// also gives `<name>_kernels(isa)`, the table for a handle's ISA level.
#pragma once

#include "core/isa.hpp"

#if ANYDNN_X86_KERNELS
#define ANYDNN_DECLARE_ISA_TABLE(Type, name)                         \
    namespace generic { extern const Type name; }                    \
    namespace avx2 { extern const Type name; }                       \
    namespace avx512 { extern const Type name; }                     \
    inline const Type &name##_kernels(::anydnn::Isa isa) {           \
        switch (isa) {                                               \
        case ::anydnn::Isa::avx512: return avx512::name;             \
        case ::anydnn::Isa::avx2: return avx2::name;                 \
        default: return generic::name;                               \
        }                                                            \
    }
#else
#define ANYDNN_DECLARE_ISA_TABLE(Type, name)                         \
    namespace generic { extern const Type name; }                    \
    inline const Type &name##_kernels(::anydnn::Isa) { return generic::name; }
#endif
