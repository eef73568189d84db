// Compiled with -mavx512f -mfma. 16 independent chains keep the two FMA pipes
// of current cores busy through the 4-cycle FMA latency (2 x 4 = 8 chains
// needed; 16 leaves margin and fits in the 32 zmm registers).
#include <immintrin.h>

#include "core/peak_fma.hpp"

namespace anydnn_bench {

float f32_fma_chain__avx512(int64_t iters, float x) {
    const __m512 vx = _mm512_set1_ps(x), vc = _mm512_set1_ps(1e-7f);
    __m512 acc[kFmaChainsAvx512];
    for (int j = 0; j < kFmaChainsAvx512; ++j) acc[j] = _mm512_set1_ps(1.0f + 0.01f * float(j));
    for (int64_t i = 0; i < iters; ++i)
        for (int j = 0; j < kFmaChainsAvx512; ++j) acc[j] = _mm512_fmadd_ps(acc[j], vx, vc);
    __m512 sum = acc[0];
    for (int j = 1; j < kFmaChainsAvx512; ++j) sum = _mm512_add_ps(sum, acc[j]);
    return _mm512_reduce_add_ps(sum);
}

}  // namespace anydnn_bench
