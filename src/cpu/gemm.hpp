// The packed GEMM engine of the CPU backend: C = alpha * op(A) * op(B) +
// beta * C and its batch-reduce form, with an epilogue fused into the store.
// Declarations only; src/cpu/kernels/gemm.hpp implements them once per ISA
// level (docs/ARCHITECTURE.md, "GEMM engine").
//
// Matrices are row-major with leading dimensions, as cblas_?gemm(RowMajor):
// op(A) is m x k (A is m x k with lda >= k, or k x m with lda >= m when
// trans_a), op(B) is k x n (ldb >= n, or ldb >= k when trans_b), C is m x n
// with ldc >= n. C must not overlap A, B or the bias.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/isa.hpp"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"

namespace anydnn::cpu {

enum class GemmBias { none, per_row, per_col };

// A post-op on a finished block of C: rows [row0, row0 + m) and columns
// [col0, col0 + n) of the whole C, at c (c[i * ldc + j] is element
// (row0 + i, col0 + j)). It runs while the block is still in cache, may be
// called from several threads at once (on disjoint blocks), and must not
// touch C outside its block. The block shape is the engine's choice. It
// cannot throw (it runs inside OpenMP regions).
template <class T>
using GemmPostOp = void (*)(T *c, int64_t ldc, int64_t m, int64_t n, int64_t row0, int64_t col0,
                            const void *ctx) noexcept;

// What happens to C after the product: C = post_op(alpha * op(A) op(B) +
// beta * C + bias), where bias is bias[i] for row i (per_row, m values) or
// bias[j] for column j (per_col, n values). Every element of C gets exactly
// one post_op call, also when k == 0.
template <class T>
struct GemmEpilogue {
    GemmBias bias_kind = GemmBias::none;
    const T *bias = nullptr;
    GemmPostOp<T> post_op = nullptr;
    const void *post_op_ctx = nullptr;
};

// C = alpha * op(A) op(B) + beta * C, then the epilogue. beta == 0 never
// reads C (NaN there does not propagate); alpha == 0 or k == 0 reads neither
// A nor B.
template <class T>
struct GemmArgs {
    bool trans_a = false, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
    T alpha = 1;
    const T *a = nullptr;
    int64_t lda = 0;
    const T *b = nullptr;
    int64_t ldb = 0;
    T beta = 0;
    T *c = nullptr;
    int64_t ldc = 0;
    GemmEpilogue<T> epilogue{};
    // Optional: op(B) already packed by GemmKernels::pack_b for this n and k
    // (64-byte aligned). The engine then reads it instead of packing B at
    // every call; trans_b, b and ldb must still describe B. Every row of C
    // gets the bits the packed path's tile gives it, whatever m: few rows
    // read the packed slivers in place with the tile's operations (unpacked,
    // few rows sum in another order, equally independent of the threads).
    const T *b_packed = nullptr;
    // Optional: op(A) packed by GemmKernels::pack_a for this m and k, the
    // same way (few rows read A in place).
    const T *a_packed = nullptr;
};

// Batch-reduce GEMM (Georganas et al., SC'18): C = alpha * sum_i op(A_i)
// op(B_i) + beta * C over i < batch, then the epilogue; every A_i and B_i has
// the shape, transposition and leading dimension above. The engine treats it
// as one GEMM over k_total = batch * k, so a batch of short products costs
// no more C traffic than one long one.
template <class T>
struct BrgemmArgs {
    bool trans_a = false, trans_b = false;
    int64_t m = 0, n = 0, k = 0, batch = 0;
    T alpha = 1;
    const T *const *a = nullptr;  // batch pointers
    int64_t lda = 0;
    const T *const *b = nullptr;  // batch pointers
    int64_t ldb = 0;
    T beta = 0;
    T *c = nullptr;
    int64_t ldc = 0;
    GemmEpilogue<T> epilogue{};
    // Optional: the B_i packed by GemmKernels::pack_b (the same batch, n, k),
    // as GemmArgs::b_packed; b still holds the batch's pointers. a_packed:
    // the A_i by pack_a.
    const T *b_packed = nullptr;
    const T *a_packed = nullptr;
};

// Products with at most this many rows and A not transposed (one pair) read
// B once in place, unpacked (or packed, when GemmArgs::b_packed is given):
// packing B for a single such product is wasted work.
constexpr int64_t kGemmFewRows = 4;

// The widest register tile's nr of every ISA level and type (avx512 f32).
constexpr int64_t kMaxGemmNr = 48;

// An ISA level's tile and cache blocking: mr x nr register tile; blocks of
// mc rows of A, kc of the reduction and nc columns of B.
struct GemmBlocking {
    int mr, nr;
    int64_t mc, kc, nc;
};

// The rows of each reduction block for a reduction of kt and blocks of at
// most kc: the same for every part and thread count, and balanced (no thin
// last block). Packed operands (pack_b, pack_a) are laid out in these blocks.
inline int64_t gemm_kc_step(int64_t kc, int64_t kt) {
    const int64_t blocks = (kt + kc - 1) / kc;
    return (kt + blocks - 1) / blocks;
}

template <class T>
struct GemmKernels {
    GemmBlocking blocking;
    // Bytes of workspace a call with these sizes and ctx.threads needs;
    // k_total is k for gemm, batch * k for brgemm. Any alignment will do.
    std::size_t (*workspace_size)(const ExecContext &, int64_t m, int64_t n, int64_t k_total);
    // `workspace` holds at least workspace_size() bytes; kernels never allocate.
    void (*gemm)(const ExecContext &, const GemmArgs<T> &, void *workspace);
    void (*brgemm)(const ExecContext &, const BrgemmArgs<T> &, void *workspace);
    // op(B) packed once for many products with the same B, such as a
    // recurrent weight matrix over the time steps or a convolution's filter
    // over the images: the k_total x n op(B) of a GEMM (batch 1, b[0] = B) or
    // of a batch-reduce GEMM (k_total = batch * k over the batch's B_i, as
    // BrgemmArgs describes them), packed_b_size(n, k_total) bytes at
    // `packed` (64-byte aligned), in a layout that does not depend on the
    // thread count. A 64-byte aligned start, or one offset from it by whole
    // NR-column packings of other products (a convolution's taps), keeps the
    // tiles' vector loads within cache lines (any address is correct).
    std::size_t (*packed_b_size)(int64_t n, int64_t k_total);
    void (*pack_b)(const ExecContext &, bool trans_b, int64_t n, int64_t k, int64_t batch, const T *const *b,
                   int64_t ldb, T *packed);
    // The same for op(A) (m x k_total): a convolution's filter when the
    // filter is A (channels first).
    std::size_t (*packed_a_size)(int64_t m, int64_t k_total);
    void (*pack_a)(const ExecContext &, bool trans_a, int64_t m, int64_t k, int64_t batch, const T *const *a,
                   int64_t lda, T *packed);
    // op(B) given by offsets, packed as pack_b lays it out: element (p, j)
    // is base[row_off[p] + col_off[j]] (p < k_total, j < n). A convolution's
    // input pixels gathered straight from its planes into the packed
    // product, in the reduction order of the filter it reads in place and
    // without the planes' junk pixels (ConvPrecompPlan::b_gather), as an
    // indirect convolution's indirection buffer, by offsets.
    void (*pack_b_gather)(const ExecContext &, int64_t n, int64_t k_total, const T *base, const int64_t *row_off,
                          const int64_t *col_off, T *packed);
};

ANYDNN_DECLARE_ISA_TABLE(GemmKernels<float>, gemm_f32)
ANYDNN_DECLARE_ISA_TABLE(GemmKernels<double>, gemm_f64)

template <class T>
const GemmKernels<T> &gemm_kernels(Isa isa) {
    if constexpr (sizeof(T) == 4) return gemm_f32_kernels(isa);
    else return gemm_f64_kernels(isa);
}

template <class T>
std::size_t gemm_workspace_size(Isa isa, const ExecContext &ctx, const GemmArgs<T> &a) {
    return gemm_kernels<T>(isa).workspace_size(ctx, a.m, a.n, a.k);
}
template <class T>
std::size_t gemm_workspace_size(Isa isa, const ExecContext &ctx, const BrgemmArgs<T> &a) {
    return gemm_kernels<T>(isa).workspace_size(ctx, a.m, a.n, a.batch * a.k);
}

// Conveniences for callers without a workspace of their own (tests, tools):
// they take the workspace from a buffer cached per calling thread, grown on
// demand and kept until the thread exits (src/cpu/gemm.cpp).
void gemm(Isa isa, const ExecContext &ctx, const GemmArgs<float> &a);
void gemm(Isa isa, const ExecContext &ctx, const GemmArgs<double> &a);
void brgemm(Isa isa, const ExecContext &ctx, const BrgemmArgs<float> &a);
void brgemm(Isa isa, const ExecContext &ctx, const BrgemmArgs<double> &a);

}  // namespace anydnn::cpu
