// The GEMM engine's path for C with a few rows (m <= kGemmFewRows, A not
// transposed, one pair): C = alpha * A op(B) + beta * C + bias, then the
// post-op, with A's rows read in place and B streamed once in its stored
// order; nothing is packed. Compiled once per ISA level through
// util/gemm_driver.hpp.
//
// Why: with m rows the product does m MACs per element of B, and the packed
// path reads B, writes its packed copy and reads that again (the pack alone
// costs about kPackCostMacs MACs an element), while its MR-row register tile
// computes MR rows whatever m is. A recurrent network's step at batch 1 (a
// row of h times R) or a fully connected layer at batch 1 is bound by reading
// B once: this path reads it once.
//
//   op(B) = B^T (trans_b, rows of B^T contiguous along k): each element of C
//           is a dot product, W lanes of partial sums per (row, column), the
//           lanes folded in a fixed order at the end.
//   op(B) = B (k x n, rows contiguous along n): C's rows accumulate B's rows
//           scaled by A's elements, W columns per vector.
//   op(B) packed once (GemmArgs::b_packed): the same on its NR-column
//           slivers, read in place, one stream front to back (a recurrent
//           weight matrix packed once for every time step).
// Every element of C gets the same sequence of operations wherever its
// column falls in a block, and the threads split the columns in whole units
// of kSmallUnit (whole slivers when packed): results do not depend on the
// thread count. With B packed, the rows get the packed path's bits (its
// tile's operations, block by block); unpacked, the dot products sum in
// another order.
//
// A vector policy X (Vec<T> in kernels/gemm.hpp, PortableVec below) provides
// V, W (lanes), zero(), set1(x), fmadd(a, b, c) = a * b + c, mul, add,
// load_part(p, lanes) and store_part(p, v, lanes) (unaligned; lanes >= W is
// the whole vector; load_part zero-fills the lanes past `lanes`).
#pragma once

#include <omp.h>

#include "cpu/kernels/util/gemm_operands.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

// W lanes of T in plain loops: the generic level's vectors (16 bytes, what
// baseline x86-64 has).
template <class T>
struct PortableVec {
    static constexpr int W = 16 / sizeof(T);
    struct V {
        T v[W];
    };
    static V zero() { return V{}; }
    static V set1(T x) {
        V r;
        for (int l = 0; l < W; ++l) r.v[l] = x;
        return r;
    }
    static V fmadd(V a, V b, V c) {
        for (int l = 0; l < W; ++l) c.v[l] += a.v[l] * b.v[l];
        return c;
    }
    static V mul(V a, V b) {
        for (int l = 0; l < W; ++l) a.v[l] *= b.v[l];
        return a;
    }
    static V add(V a, V b) {
        for (int l = 0; l < W; ++l) a.v[l] += b.v[l];
        return a;
    }
    static V load_part(const T *p, int lanes) {
        V r{};
        for (int l = 0; l < W && l < lanes; ++l) r.v[l] = p[l];
        return r;
    }
    static void store_part(T *p, V x, int lanes) {
        for (int l = 0; l < W && l < lanes; ++l) p[l] = x.v[l];
    }
};

namespace gemm_detail {

// Columns per thread-split unit and per post-op call: a multiple of every
// block width below.
constexpr int64_t kSmallUnit = 64;
// Accumulator vectors a block may hold: half the register file.
#if ANYDNN_ISA_avx512
constexpr int kSmallAccs = 16;
#else
constexpr int kSmallAccs = 8;
#endif

template <class T, class X, int NR>
struct SmallRows {
    using V = typename X::V;
    static constexpr int W = X::W;
    static_assert(NR % W == 0, "a packed sliver is whole vectors");
    // How far ahead (512 bytes) the dot products prefetch each row of B^T:
    // without it their 4 row streams ran at 13 GB/s on Zen 4, no faster
    // than packing; 256 to 4096 bytes measured alike.
    static constexpr int64_t kPrefetch = 512 / sizeof(T);

    static T fold(V v) {
        alignas(64) T l[W];
        X::store_part(l, v, W);
        for (int w = W / 2; w > 0; w /= 2)
            for (int i = 0; i < w; ++i) l[i] += l[i + w];
        return l[0];
    }

    // Row i, columns [j, j + nb) of C from their products over one block
    // of the reduction, as the tile's store does it (TileOut): C = alpha *
    // prod (+ beta * C when load_c) (+ the bias in the last block), in the
    // same vector operations, so that a row computed here has the bits the
    // tile would give it.
    static void store(const Output<T> &out, int64_t i, int64_t j, const T *prod, int64_t nb, T beta, bool load_c,
                      bool bias) {
        T *c = out.c + i * out.ldc + j;
        const GemmEpilogue<T> &epi = out.epi;
        const V valpha = X::set1(out.alpha), vbeta = X::set1(beta);
        for (int64_t v = 0; v < nb; v += W) {
            const int lanes = static_cast<int>(imin_(W, nb - v));
            V x = X::mul(valpha, X::load_part(prod + v, lanes));
            if (load_c) x = X::fmadd(vbeta, X::load_part(c + v, lanes), x);
            if (bias && epi.bias_kind == GemmBias::per_row) x = X::add(x, X::set1(epi.bias[i]));
            if (bias && epi.bias_kind == GemmBias::per_col) x = X::add(x, X::load_part(epi.bias + j + v, lanes));
            X::store_part(c + v, x, lanes);
        }
    }
    // The whole reduction in one block.
    static void finish(const Output<T> &out, int64_t i, int64_t j, const T *prod, int64_t nb) {
        store(out, i, j, prod, nb, out.beta, out.beta != T(0), true);
    }

    // op(B) = B^T: columns [j0, j1) as groups of J dot products per row.
    template <int M>
    static void dots(const Operands<T> &op, const Output<T> &out, int64_t j0, int64_t j1) {
        constexpr int J = M <= 2 ? 4 : 2;
        const T *a = op.a[0], *b = op.b[0];
        const int64_t k = op.k;
        for (int64_t j = j0; j < j1; j += J) {
            const int nj = static_cast<int>(imin_(J, j1 - j));
            const T *br[J];
            for (int c = 0; c < J; ++c) br[c] = b + (j + (c < nj ? c : nj - 1)) * op.ldb;  // spare lanes: a copy
            V acc[M][J];
            for (int r = 0; r < M; ++r)
                for (int c = 0; c < J; ++c) acc[r][c] = X::zero();
            auto step = [&](int64_t p, int lanes) {
                V bv[J];
                for (int c = 0; c < J; ++c) {
                    __builtin_prefetch(br[c] + p + kPrefetch);
                    bv[c] = X::load_part(br[c] + p, lanes);
                }
                for (int r = 0; r < M; ++r) {
                    const V av = X::load_part(a + r * op.lda + p, lanes);
                    for (int c = 0; c < J; ++c) acc[r][c] = X::fmadd(av, bv[c], acc[r][c]);
                }
            };
            int64_t p = 0;
            for (; p + W <= k; p += W) step(p, W);
            if (p < k) step(p, static_cast<int>(k - p));  // zero-filled lanes add nothing
            for (int r = 0; r < M; ++r) {
                T prod[J];
                for (int c = 0; c < J; ++c) prod[c] = fold(acc[r][c]);
                finish(out, r, j, prod, nj);
            }
        }
    }

    // op(B) = B: columns [j, j + nb), nb <= NV * W, as NV vectors per row.
    template <int M, int NV>
    static void axpy_block(const Operands<T> &op, const Output<T> &out, int64_t j, int64_t nb) {
        const T *a = op.a[0], *b = op.b[0] + j;
        V acc[M][NV];
        for (int r = 0; r < M; ++r)
            for (int v = 0; v < NV; ++v) acc[r][v] = X::zero();
        const int last = static_cast<int>(nb - (NV - 1) * W);  // lanes of the last vector
        for (int64_t p = 0; p < op.k; ++p) {
            const T *bp = b + p * op.ldb;
            V bv[NV];
            for (int v = 0; v < NV; ++v) bv[v] = X::load_part(bp + v * W, v + 1 < NV ? W : last);
            for (int r = 0; r < M; ++r) {
                const V av = X::set1(a[r * op.lda + p]);
                for (int v = 0; v < NV; ++v) acc[r][v] = X::fmadd(av, bv[v], acc[r][v]);
            }
        }
        for (int r = 0; r < M; ++r) {
            alignas(64) T prod[NV * W];
            for (int v = 0; v < NV; ++v) X::store_part(prod + v * W, acc[r][v], W);
            finish(out, r, j, prod, nb);
        }
    }

    template <int M>
    static void axpys(const Operands<T> &op, const Output<T> &out, int64_t j0, int64_t j1) {
        constexpr int NV = kSmallAccs / 4 / (M > 2 ? 2 : 1);
        int64_t j = j0;
        for (; j + NV * W <= j1; j += NV * W) axpy_block<M, NV>(op, out, j, NV * W);
        for (; j < j1; j += W) axpy_block<M, 1>(op, out, j, imin_(W, j1 - j));
    }

    // op(B) packed (Engine::pack_whole_b): columns [j0, j1) (whole slivers
    // but the last) as NR-column slivers, each read once, front to back,
    // through the reduction blocks of kc_step. Each block is combined with C
    // as the tile does (the same operations in the same order), so these
    // rows get the bits the packed path's tile would give them.
    template <int M>
    static void slivers(const Operands<T> &op, const Output<T> &out, int64_t kc_step, int64_t j0, int64_t j1) {
        constexpr int NV = NR / W;
        const T *a = op.a[0];
        const int64_t k = op.k, n_padded = round_up(op.n, NR);
        for (int64_t j = j0; j < j1; j += NR) {
            for (int64_t pc = 0; pc < k; pc += kc_step) {
                const int64_t kc = imin_(kc_step, k - pc);
                const T *bp = op.b_packed + pc * n_padded + j * kc;
                const int64_t nb = imin_(NR, j1 - j);
                if (nb <= kColumnTileMax) {
                    narrow_sliver<M>(op, out, kc, pc, bp, j, nb);
                    continue;
                }
                V acc[M][NV];
                for (int r = 0; r < M; ++r)
                    for (int v = 0; v < NV; ++v) acc[r][v] = X::zero();
                for (int64_t p = 0; p < kc; ++p, bp += NR) {
                    V bv[NV];
                    for (int v = 0; v < NV; ++v) bv[v] = X::load_part(bp + v * W, W);
                    for (int r = 0; r < M; ++r) {
                        const V av = X::set1(a[r * op.lda + pc + p]);
                        for (int v = 0; v < NV; ++v) acc[r][v] = X::fmadd(av, bv[v], acc[r][v]);
                    }
                }
                const bool first = pc == 0, last = pc + kc == k;
                for (int r = 0; r < M; ++r) {
                    alignas(64) T prod[NR];
                    for (int v = 0; v < NV; ++v) X::store_part(prod + v * W, acc[r][v], W);
                    store(out, r, j, prod, nb, first ? out.beta : T(1), !first || out.beta != T(0), last);
                }
            }
        }
    }

    // A last sliver of nb <= kColumnTileMax columns over reduction block
    // [pc, pc + kc): the products summed as gemm_column_tile sums them
    // (kColumnTileSums partial sums, steps round them, the tail into the
    // first), so that these rows get its bits.
    template <int M>
    static void narrow_sliver(const Operands<T> &op, const Output<T> &out, int64_t kc, int64_t pc, const T *bp,
                              int64_t j, int64_t nb) {
        constexpr int U = kColumnTileSums;
        const T *a = op.a[0];
        const int64_t whole = kc / U * U;
        for (int r = 0; r < M; ++r) {
            V acc[U];
            for (int u = 0; u < U; ++u) acc[u] = X::zero();
            for (int64_t p = 0; p < kc; ++p) {
                V &s = acc[p < whole ? p % U : 0];
                s = X::fmadd(X::set1(a[r * op.lda + pc + p]), X::load_part(bp + p * NR, W), s);
            }
            static_assert(U == 4);
            alignas(64) T prod[W];
            X::store_part(prod, X::add(X::add(acc[0], acc[1]), X::add(acc[2], acc[3])), W);
            const bool first = pc == 0, last = pc + kc == op.k;
            store(out, r, j, prod, nb, first ? out.beta : T(1), !first || out.beta != T(0), last);
        }
    }

    template <int M>
    static void columns(const Operands<T> &op, const Output<T> &out, int64_t kc_step, int64_t j0, int64_t j1) {
        if (op.b_packed != nullptr) slivers<M>(op, out, kc_step, j0, j1);
        else if (op.trans_b) dots<M>(op, out, j0, j1);
        else axpys<M>(op, out, j0, j1);
    }

    // Columns per thread-split unit and per post-op call: whole slivers when
    // B is packed.
    static int64_t unit(const Operands<T> &op) {
        return op.b_packed != nullptr ? round_up(kSmallUnit, NR) : kSmallUnit;
    }

    // Units [u0, u1), each finished by the post-op.
    static void units(const Operands<T> &op, const Output<T> &out, int64_t kc_step, int64_t u0, int64_t u1) {
        const int64_t width = unit(op);
        for (int64_t u = u0; u < u1; ++u) {
            const int64_t j0 = u * width, j1 = imin_(op.n, j0 + width);
            switch (op.m) {
            case 1: columns<1>(op, out, kc_step, j0, j1); break;
            case 2: columns<2>(op, out, kc_step, j0, j1); break;
            case 3: columns<3>(op, out, kc_step, j0, j1); break;
            default: columns<4>(op, out, kc_step, j0, j1); break;
            }
            if (out.epi.post_op != nullptr)
                out.epi.post_op(out.c + j0, out.ldc, op.m, j1 - j0, 0, j0, out.epi.post_op_ctx);
        }
    }

    static bool applies(const Operands<T> &op) { return op.m <= kGemmFewRows && op.batch == 1 && !op.trans_a; }

    // kc_step: the reduction blocks of a packed B.
    static void run(const ExecContext &ctx, const Operands<T> &op, const Output<T> &out, int64_t kc_step) {
        const int64_t n_units = ceil_div(op.n, unit(op));
        int64_t parts = 1;
        if (ctx.threads > 1 && op.m * op.n * op.k >= kParallelMacs) parts = imin_(ctx.threads, n_units);
        if (parts == 1) {
            units(op, out, kc_step, 0, n_units);
            return;
        }
#pragma omp parallel num_threads(static_cast<int>(parts))
        {
            for (int64_t t = omp_get_thread_num(); t < parts; t += omp_get_num_threads())
                units(op, out, kc_step, n_units * t / parts, n_units * (t + 1) / parts);
        }
    }
};

}  // namespace gemm_detail
}  // namespace anydnn::cpu::ANYDNN_ISA_NS
