// Compiled with -mavx2 -mfma. 12 independent chains cover two FMA pipes with
// a 4-cycle latency and leave x and c in the remaining ymm registers.
#include <immintrin.h>

#include "core/peak_fma.hpp"

namespace anydnn_bench {

float f32_fma_chain__avx2(int64_t iters, float x) {
    const __m256 vx = _mm256_set1_ps(x), vc = _mm256_set1_ps(1e-7f);
    __m256 acc[kFmaChainsAvx2];
    for (int j = 0; j < kFmaChainsAvx2; ++j) acc[j] = _mm256_set1_ps(1.0f + 0.01f * float(j));
    for (int64_t i = 0; i < iters; ++i)
        for (int j = 0; j < kFmaChainsAvx2; ++j) acc[j] = _mm256_fmadd_ps(acc[j], vx, vc);
    __m256 sum = acc[0];
    for (int j = 1; j < kFmaChainsAvx2; ++j) sum = _mm256_add_ps(sum, acc[j]);
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    float s = 0;
    for (float v : lanes) s += v;
    return s;
}

}  // namespace anydnn_bench
