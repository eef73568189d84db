// What the GEMM engine's paths share: a product's operands and output as the
// driver (util/gemm_driver.hpp) and the few-rows path (util/gemm_small_m.hpp)
// see them. Compiled once per ISA level with them.
#pragma once

#include "cpu/gemm.hpp"
#include "cpu/kernels/util/common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

namespace gemm_detail {

// op(A) (m x k_total) and op(B) (k_total x n) of a batch-reduce GEMM seen as
// one GEMM over k_total = batch * k: reduction index p is index p % k of the
// pair p / k.
template <class T>
struct Operands {
    bool trans_a, trans_b;
    int64_t m, n, k, batch;
    const T *const *a;
    int64_t lda;
    const T *const *b;
    int64_t ldb;
    const T *b_packed = nullptr;  // op(B) as Engine::pack_whole_b lays it out, or null
    const T *a_packed = nullptr;  // op(A) as Engine::pack_whole_a lays it out, or null
    int64_t k_total() const { return k * batch; }
};

template <class T>
struct Output {
    T alpha, beta;
    T *c;
    int64_t ldc;
    GemmEpilogue<T> epi;
};

// Below this many MACs a product stays on the calling thread.
constexpr int64_t kParallelMacs = int64_t{1} << 18;

}  // namespace gemm_detail

// The last sliver of C, when it has at most kColumnTileMax columns, sums
// each element's products round kColumnTileSums partial sums (gemm_column_tile
// in kernels/gemm.hpp, the vector levels only; the few-rows path over a
// packed B follows it).
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
constexpr int kColumnTileMax = 4;
#else
constexpr int kColumnTileMax = 0;
#endif
constexpr int kColumnTileSums = 4;

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
