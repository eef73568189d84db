// FMA-chain kernels that measure the fp32 FMA peak, one file per ISA
// (compiled with that ISA's flags), chosen at run time with cpuid.
#pragma once

#include <cstdint>

namespace anydnn_bench {

struct FmaKernel {
    const char *isa;
    int flops_per_iter;  // per call of the inner loop body, all accumulators
    // Runs `iters` iterations of independent FMA chains y = y * x + c and
    // returns their sum, so the work cannot be optimized away.
    float (*run)(int64_t iters, float x);
};

// The widest kernel this CPU and OS run.
FmaKernel best_fma_kernel();

#if defined(__x86_64__) || defined(_M_X64)
float f32_fma_chain__avx512(int64_t iters, float x);
float f32_fma_chain__avx2(int64_t iters, float x);
inline constexpr int kFmaChainsAvx512 = 16;  // zmm accumulators
inline constexpr int kFmaChainsAvx2 = 12;    // ymm accumulators (16 registers, 2 for x and c)
#endif

}  // namespace anydnn_bench
