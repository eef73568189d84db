// The GEMM engine around a register-tile microkernel, compiled once per ISA
// level: BLIS-style packing of op(A) into MR-row slivers and op(B) into
// NR-column slivers, the mc/kc/nc cache-blocking loops, the split over
// threads and the epilogue. docs/ARCHITECTURE.md ("GEMM engine") gives the
// blocking parameters and why.
//
// A microkernel type K provides:
//   using type = float | double;
//   static constexpr int MR, NR;                 the register tile
//   static constexpr int64_t MC, KC, NC;         the cache blocks (MC % MR == NC % NR == 0)
//   template <int W> static void pack_rows(const T *const *rows, int64_t len, int lanes, T *d);
//                                                the transposing pack (pack_lanes_rows's contract)
//   static void tile(int64_t kc, TileA mode, const T *ap, int64_t lda, const T *bp,
//                    int64_t bstep, T *c, int64_t ldc, int mr, int nr, const TileOut<T> &out);
//   using SmallVec = ...;                        the vector policy of the few-rows
//                                                path (util/gemm_small_m.hpp)
// tile() multiplies one A sliver, packed (TileA::packed: kc groups of MR
// values) or in place (rows: row r at ap + r * lda, kc contiguous steps;
// steps: step p's rows contiguous at ap + p * lda; only the first mr rows
// are read), by one B sliver: packed (kc groups of NR values, bstep = NR)
// or a full one in place (steps bstep = ldb apart; b_rows_in_place), and
// combines the product with the mr x nr (<= MR x NR) top-left corner of C
// at c, never touching C outside it.
// Every element's arithmetic must not depend on mr, nr or the tile's place:
// that makes results independent of the thread count.
#pragma once

#include <algorithm>

#include "cpu/gemm.hpp"
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/gemm_small_m.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

// Where a tile reads its A sliver (tile() below).
enum class TileA { packed, rows, steps };

// How a tile's accumulators acc combine with C:
//   C = alpha * acc + (load_c ? beta * C : 0) + bias.
template <class T>
struct TileOut {
    T alpha, beta;
    bool load_c;        // false only in the first K block with beta == 0
    const T *row_bias;  // bias of the tile's rows (last K block, per_row), else null
    const T *col_bias;  // bias of the tile's columns (last K block, per_col), else null
};

// Packs `width` lanes x len steps into W-lane slivers, where lane l of step
// q is src[q*ld + l] (contiguous lanes): sliver s/W at d + s * sliver_stride
// gets d[q*W + l]. Each source row is read once, front to back, whatever
// the number of slivers: strided rows would each cost a TLB miss.
template <int W, class T>
inline void pack_lanes_contiguous(const T *src, int64_t ld, int64_t len, int64_t width, int64_t sliver_stride,
                                  T *d) {
    for (int64_t q = 0; q < len; ++q) {
        const T *row = src + q * ld;
        T *out = d + q * W;
        if (q + 4 < len)
            for (int64_t j = 0; j < width; j += 64 / sizeof(T)) __builtin_prefetch(row + 4 * ld + j);
        int64_t s = 0;
        for (; s + W <= width; s += W, out += W * sliver_stride)
            for (int l = 0; l < W; ++l) out[l] = row[s + l];
        if (s < width) {
            const int lanes = static_cast<int>(width - s);
            for (int l = 0; l < lanes; ++l) out[l] = row[s + l];
            for (int l = lanes; l < W; ++l) out[l] = T(0);
        }
    }
}

// One sliver of W lanes x len steps where lane l of step q is rows[l][q]
// (contiguous steps: a transpose), d[q*W + l]. Lanes past `lanes` are zero
// (here and above), so that the tile computes zeros there, never NaN or
// denormals.
template <int W, class T>
inline void pack_lanes_rows(const T *const *rows, int64_t len, int lanes, T *d) {
    for (int l = 0; l < lanes; ++l) {
        const T *s = rows[l];
        for (int64_t q = 0; q < len; ++q) d[q * W + l] = s[q];
    }
    for (int l = lanes; l < W; ++l)
        for (int64_t q = 0; q < len; ++q) d[q * W + l] = T(0);
}

// The same with lane l's row at src + l*ld, through microkernel K's
// transposing pack.
template <class K, int W, class T>
inline void pack_strided(const T *src, int64_t ld, int64_t len, int lanes, T *d) {
    const T *rows[W];
    for (int l = 0; l < lanes; ++l) rows[l] = src + l * ld;
    K::template pack_rows<W>(rows, len, lanes, d);
}

// A register tile in plain loops that the compiler vectorizes along NR: the
// generic level's kernels.
template <class T, int MR_, int NR_, int64_t MC_, int64_t KC_, int64_t NC_>
struct PortableTile {
    using type = T;
    using SmallVec = PortableVec<T>;  // the few-rows path's vectors (util/gemm_small_m.hpp)
    static constexpr int MR = MR_, NR = NR_;
    static constexpr int64_t MC = MC_, KC = KC_, NC = NC_;

    template <int W>
    static void pack_rows(const T *const *rows, int64_t len, int lanes, T *d) {
        pack_lanes_rows<W>(rows, len, lanes, d);
    }

    static void tile(int64_t kc, TileA mode, const T *ap, int64_t lda, const T *bp, int64_t bstep, T *c,
                     int64_t ldc, int mr, int nr, const TileOut<T> &o) {
        T acc[MR][NR] = {};
        for (int64_t p = 0; p < kc; ++p, bp += bstep)
            for (int r = 0; r < MR; ++r) {
                const int64_t rr = r < mr ? r : 0;
                const T a = mode == TileA::rows    ? ap[rr * lda + p]
                            : mode == TileA::steps ? ap[p * lda + rr]
                                                   : ap[p * MR + r];
                for (int j = 0; j < NR; ++j) acc[r][j] += a * bp[j];
            }
        for (int r = 0; r < mr; ++r) {
            T *cr = c + r * ldc;
            T row[NR];
            for (int j = 0; j < NR; ++j) row[j] = o.alpha * acc[r][j];
            if (o.load_c)
                for (int j = 0; j < nr; ++j) row[j] += o.beta * cr[j];
            if (o.row_bias != nullptr)
                for (int j = 0; j < nr; ++j) row[j] += o.row_bias[r];
            if (o.col_bias != nullptr)
                for (int j = 0; j < nr; ++j) row[j] += o.col_bias[j];
            for (int j = 0; j < nr; ++j) cr[j] = row[j];
        }
    }
};

namespace gemm_detail {

// Calls fn(pair, p, len, off) for the pieces of the reduction range
// [p0, p0 + kc) that lie in one pair: its indices p .. p + len of that pair,
// at offset off of the range.
template <class Fn>
inline void for_each_piece(int64_t k, int64_t p0, int64_t kc, Fn &&fn) {
    int64_t pair = p0 / k, p = p0 % k;
    for (int64_t off = 0; off < kc; ++pair, p = 0) {
        const int64_t len = imin_(k - p, kc - off);
        fn(pair, p, len, off);
        off += len;
    }
}

// The MACs one packed element is worth when choosing how to split: packing
// reads and writes each element once, about a cycle, where the tile does 16
// or more MACs.
constexpr int64_t kPackCostMacs = 16;

// op(A) = A^T with at least this many rows is read in place (a_steps_in_place).
constexpr int64_t kStepsInPlaceMinRows = 64;
// op(B)'s rows at most this many bytes apart may be read in place
// (b_rows_in_place), in products of at most this many rows: more reuse B
// enough that its contiguous pack pays (1x1 layers, 14 x 14, channels
// first: 64 or 96 output channels 8-13% faster in place, 384 or 1024 2-3%
// slower).
constexpr int64_t kBRowsInPlaceMaxBytes = 4096;
constexpr int64_t kBRowsInPlaceMaxRows = 128;

template <class K>
struct Engine {
    using T = typename K::type;
    static constexpr int MR = K::MR, NR = K::NR;
    static constexpr int64_t kAlign = 64 / sizeof(T);  // elements per 64 bytes

    // The threads split C's columns (along_n) or rows into `parts` ranges of
    // whole slivers; each part packs its own B (along_n) or A panel and all of
    // the other operand.
    struct Split {
        int parts;
        bool along_n;
    };

    static Split split(const ExecContext &ctx, int64_t m, int64_t n, int64_t kt) {
        if (ctx.threads <= 1 || m * n * kt < kParallelMacs) return {1, true};
        // Cost of the slowest part, in MACs: its tiles (padding included) plus
        // its packing.
        auto cost = [&](bool along_n, int64_t *parts) {
            const int64_t slivers = along_n ? ceil_div(n, NR) : ceil_div(m, MR);
            *parts = imin_(ctx.threads, slivers);
            const int64_t per = ceil_div(slivers, *parts);
            const int64_t rows = along_n ? round_up(m, MR) : per * MR, cols = along_n ? per * NR : round_up(n, NR);
            return rows * cols * kt + kPackCostMacs * (rows + cols) * kt;
        };
        int64_t pn, pm;
        const int64_t cn = cost(true, &pn), cm = cost(false, &pm);
        return cn <= cm ? Split{static_cast<int>(pn), true} : Split{static_cast<int>(pm), false};
    }

    static int64_t a_elems(int64_t m, int64_t kt) {
        return round_up(imin_(K::MC, round_up(m, MR)) * imin_(K::KC, kt), kAlign);
    }
    static int64_t b_elems(int64_t n, int64_t kt) {
        return round_up(imin_(K::NC, round_up(n, NR)) * imin_(K::KC, kt), kAlign);
    }

    static std::size_t workspace_size(const ExecContext &ctx, int64_t m, int64_t n, int64_t kt) {
        if (m <= 0 || n <= 0 || kt <= 0) return 0;
        const int64_t parts = split(ctx, m, n, kt).parts;
        return static_cast<std::size_t>(parts * (a_elems(m, kt) + b_elems(n, kt)) + kAlign) * sizeof(T);
    }

    // Rows [i0, i0 + mc) x reduction [p0, p0 + kc) of op(A) into MR-row
    // slivers: sliver s holds kc groups of the MR values of rows i0 + s*MR...
    static void pack_a(const Operands<T> &op, int64_t i0, int64_t mc, int64_t p0, int64_t kc, T *dst) {
        for_each_piece(op.k, p0, kc, [&](int64_t pair, int64_t p, int64_t len, int64_t off) {
            const T *a = op.a[pair];
            if (op.trans_a) {
                pack_lanes_contiguous<MR>(a + p * op.lda + i0, op.lda, len, mc, kc, dst + off * MR);
                return;
            }
            for (int64_t s = 0; s < mc; s += MR)
                pack_strided<K, MR>(a + (i0 + s) * op.lda + p, op.lda, len, static_cast<int>(imin_(MR, mc - s)),
                                    dst + s * kc + off * MR);
        });
    }

    // Columns [j0, j0 + nc) x reduction [p0, p0 + kc) of op(B) into NR-column
    // slivers.
    static void pack_b(const Operands<T> &op, int64_t j0, int64_t nc, int64_t p0, int64_t kc, T *dst) {
        for_each_piece(op.k, p0, kc, [&](int64_t pair, int64_t p, int64_t len, int64_t off) {
            const T *b = op.b[pair];
            if (!op.trans_b) {
                pack_lanes_contiguous<NR>(b + p * op.ldb + j0, op.ldb, len, nc, kc, dst + off * NR);
                return;
            }
            for (int64_t s = 0; s < nc; s += NR)
                pack_strided<K, NR>(b + (j0 + s) * op.ldb + p, op.ldb, len, static_cast<int>(imin_(NR, nc - s)),
                                    dst + s * kc + off * NR);
        });
    }

    static int64_t kc_step(int64_t kt) { return gemm_kc_step(K::KC, kt); }

    static std::size_t packed_b_size(int64_t n, int64_t k) {
        return n <= 0 || k <= 0 ? 0 : static_cast<std::size_t>(round_up(n, NR) * k) * sizeof(T);
    }

    // All of op(B) packed as run_part packs one block at a time: reduction
    // block pc (kc rows) at packed + pc * round_up(n, NR), in it the sliver
    // of columns [j, j + NR) at + j * kc. Split over the threads by slivers.
    static void pack_whole_b(const ExecContext &ctx, bool trans_b, int64_t n, int64_t k, int64_t batch,
                             const T *const *b, int64_t ldb, T *packed) {
        const int64_t kt = k * batch;
        if (n <= 0 || kt <= 0) return;
        const Operands<T> op{false, trans_b, 0, n, k, batch, nullptr, 0, b, ldb};
        const int64_t step = kc_step(kt), blocks = ceil_div(kt, step), slivers = ceil_div(n, NR);
        parallel_ranges(ctx, blocks * slivers, 16, [&](int64_t begin, int64_t end) {
            for (int64_t item = begin; item < end; ++item) {
                const int64_t pc = item / slivers * step, kc = imin_(step, kt - pc), j = item % slivers * NR;
                pack_b(op, j, imin_(NR, n - j), pc, kc, packed + pc * round_up(n, NR) + j * kc);
            }
        });
    }

    // GemmKernels::pack_b_gather: the blocks and slivers of pack_whole_b.
    // A run of 8+ steps whose rows lie one after the other (a pixel's
    // channels, channels last) is a transpose of the lanes' rows (K's
    // pack_rows: 8 x 8 blocks in registers; element by element it was a
    // tenth of ResNet-50's res5bc_branch2b at mb1); other steps gather lane
    // by lane (channels first a step's lanes are a row's pixels).
    static void pack_whole_b_gather(const ExecContext &ctx, int64_t n, int64_t kt, const T *base,
                                    const int64_t *row_off, const int64_t *col_off, T *packed) {
        if (n <= 0 || kt <= 0) return;
        const int64_t step = kc_step(kt), blocks = ceil_div(kt, step), slivers = ceil_div(n, NR);
        parallel_ranges(ctx, blocks * slivers, 16, [&](int64_t begin, int64_t end) {
            const T *rows[NR];
            for (int64_t item = begin; item < end; ++item) {
                const int64_t pc = item / slivers * step, kc = imin_(step, kt - pc), j = item % slivers * NR;
                const int lanes = static_cast<int>(imin_(NR, n - j));
                const int64_t *cols = col_off + j, *steps = row_off + pc;
                T *d = packed + pc * round_up(n, NR) + j * kc;
                // A narrow sliver's zero lanes in one fill, not a fill per step.
                if (lanes < NR) std::fill(d, d + kc * NR, T(0));
                for (int64_t q = 0; q < kc;) {
                    int64_t len = 1;
                    while (q + len < kc && steps[q + len] == steps[q] + len) ++len;
                    if (len >= 8) {
                        for (int l = 0; l < lanes; ++l) rows[l] = base + steps[q] + cols[l];
                        K::template pack_rows<NR>(rows, len, lanes, d + q * NR);
                    } else {
                        for (int64_t i = q; i < q + len; ++i) {
                            const T *row = base + steps[i];
                            for (int l = 0; l < lanes; ++l) d[i * NR + l] = row[cols[l]];
                        }
                    }
                    q += len;
                }
            }
        });
    }

    static std::size_t packed_a_size(int64_t m, int64_t k) {
        return m <= 0 || k <= 0 ? 0 : static_cast<std::size_t>(round_up(m, MR) * k) * sizeof(T);
    }

    // All of op(A) packed as run_part packs one block at a time: reduction
    // block pc at packed + pc * round_up(m, MR), in it the sliver of rows
    // [i, i + MR) at + i * kc (the row blocks and parts are whole slivers).
    static void pack_whole_a(const ExecContext &ctx, bool trans_a, int64_t m, int64_t k, int64_t batch,
                             const T *const *a, int64_t lda, T *packed) {
        const int64_t kt = k * batch;
        if (m <= 0 || kt <= 0) return;
        const Operands<T> op{trans_a, false, m, 0, k, batch, a, lda, nullptr, 0};
        const int64_t step = kc_step(kt), blocks = ceil_div(kt, step), slivers = ceil_div(m, MR);
        parallel_ranges(ctx, blocks * slivers, 16, [&](int64_t begin, int64_t end) {
            for (int64_t item = begin; item < end; ++item) {
                const int64_t pc = item / slivers * step, kc = imin_(step, kt - pc), i = item % slivers * MR;
                pack_a(op, i, imin_(MR, m - i), pc, kc, packed + pc * round_up(m, MR) + i * kc);
            }
        });
    }

    // Whether the tiles read op(A) in place rather than packed: whenever it
    // is row-major in one piece, or in batch pieces side by side (A_i = A_0
    // + i k with one lda: a KRSC filter's taps, A of a channels-first
    // product). Packing costs about kPackCostMacs per element of A, repaid
    // over the n columns that reuse it: it was 25% of a 1x1 convolution's
    // time at 64 output channels (mb16 NHWC), where the tiles now read A's
    // rows from memory, each fetching the next sliver's (gemm_tile).
    // Measured on ResNet-50's 1x1 layers at mb16, in place was as fast or
    // faster at every n up to 2048 (ARCHITECTURE, "GEMM engine").
    static bool a_in_place(const Operands<T> &op) {
        if (op.trans_a || op.a_packed != nullptr) return false;
        for (int64_t i = 1; i < op.batch; ++i)
            if (op.a[i] != op.a[0] + i * op.k) return false;
        return true;
    }
    // op(A) = A^T in one piece: the tiles read each step's MR values where
    // they lie (TileA::steps) when A's rows are long (the pack would copy
    // many short pieces) and few tiles read each sliver: steps lda apart
    // crowd a few L1 sets when lda is a large power of two, cheap only for
    // data read once or twice (a 1x1 backward filter with 64 input
    // channels: -7%; with 1024, 2 x 384 + 256 columns: +7%).
    static bool a_steps_in_place(const Operands<T> &op) {
        return op.trans_a && op.batch == 1 && op.a_packed == nullptr && op.m >= kStepsInPlaceMinRows &&
               op.n <= 2 * NR;
    }

    // Whether the tiles read op(B)'s full slivers in place, each step's NR
    // values where they lie in B's rows (ldb apart; the narrower last sliver
    // still packed): B = op(B) in one piece or in batch pieces one after the
    // other, rows at most kBRowsInPlaceMaxBytes apart (a page per step at
    // most) and not a multiple of 1 KiB apart (steps on a few L1 sets), few
    // rows of C (kBRowsInPlaceMaxRows). A channels-first 1x1 convolution's x
    // planes: their pack was a fifth of MobileNet-v2's 14 x 14 projections.
    static bool b_rows_in_place(const Operands<T> &op) {
        const int64_t row_bytes = op.ldb * int64_t(sizeof(T));
        if (op.trans_b || op.b_packed != nullptr || op.m > kBRowsInPlaceMaxRows || row_bytes > kBRowsInPlaceMaxBytes ||
            row_bytes % 1024 == 0)
            return false;
        for (int64_t i = 1; i < op.batch; ++i)
            if (op.b[i] != op.b[0] + i * op.k * op.ldb) return false;
        return true;
    }

    // C[m0:m1, n0:n1] on the calling thread. The K blocks are the same for
    // every part and every thread count (they depend on k_total only), and
    // the part boundaries are whole slivers, so each element of C sees the
    // same tile arithmetic whatever the split.
    static void run_part(const Operands<T> &op, const Output<T> &out, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                         T *abuf, T *bbuf) {
        const int64_t kt = op.k_total();
        const int64_t kc_step = Engine::kc_step(kt);
        const int64_t mc_step = round_up(ceil_div(m1 - m0, ceil_div(m1 - m0, K::MC)), MR);
        const int64_t nc_step = round_up(ceil_div(n1 - n0, ceil_div(n1 - n0, K::NC)), NR);
        const GemmEpilogue<T> &epi = out.epi;
        const TileA mode = a_in_place(op) ? TileA::rows : a_steps_in_place(op) ? TileA::steps : TileA::packed;
        const bool b_rows = b_rows_in_place(op);
        const int64_t lda = mode == TileA::packed ? 0 : op.lda;
        for (int64_t ic = m0; ic < m1; ic += mc_step) {
            const int64_t mc = imin_(mc_step, m1 - ic);
            for (int64_t pc = 0; pc < kt; pc += kc_step) {
                const int64_t kc = imin_(kc_step, kt - pc);
                const bool first = pc == 0, last = pc + kc == kt;
                const T *ap = abuf;
                if (mode == TileA::rows) ap = op.a[0] + ic * lda + pc;
                else if (mode == TileA::steps) ap = op.a[0] + pc * lda + ic;
                else if (op.a_packed != nullptr) ap = op.a_packed + pc * round_up(op.m, MR) + ic * kc;
                else pack_a(op, ic, mc, pc, kc, abuf);
                for (int64_t jc = n0; jc < n1; jc += nc_step) {
                    const int64_t nc = imin_(nc_step, n1 - jc);
                    const T *bp = bbuf;
                    // In place (b_rows): the full slivers end at nfull, the rest is packed at bbuf.
                    const int64_t nfull = b_rows ? nc / NR * NR : 0;
                    if (op.b_packed != nullptr) bp = op.b_packed + pc * round_up(op.n, NR) + jc * kc;
                    else if (!b_rows) pack_b(op, jc, nc, pc, kc, bbuf);
                    else if (nfull < nc) pack_b(op, jc + nfull, nc - nfull, pc, kc, bbuf);
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        const int mr = static_cast<int>(imin_(MR, mc - ir));
                        T *crow = out.c + (ic + ir) * out.ldc + jc;
                        TileOut<T> o{out.alpha, first ? out.beta : T(1), !first || out.beta != T(0), nullptr, nullptr};
                        if (last && epi.bias_kind == GemmBias::per_row) o.row_bias = epi.bias + ic + ir;
                        for (int64_t jr = 0; jr < nc; jr += NR) {
                            if (last && epi.bias_kind == GemmBias::per_col) o.col_bias = epi.bias + jc + jr;
                            const bool in_place = jr < nfull;
                            const T *b = in_place ? op.b[0] + pc * op.ldb + jc + jr : b_rows ? bbuf : bp + jr * kc;
                            K::tile(kc, mode, ap + ir * (mode == TileA::rows ? lda : mode == TileA::steps ? 1 : kc),
                                    lda, b, in_place ? op.ldb : NR, crow + jr, out.ldc, mr,
                                    static_cast<int>(imin_(NR, nc - jr)), o);
                        }
                        // The strip of mr rows x nc columns was just written: still in L1/L2.
                        if (last && epi.post_op != nullptr)
                            epi.post_op(crow, out.ldc, mr, nc, ic + ir, jc, epi.post_op_ctx);
                    }
                }
            }
        }
    }

    // k_total == 0 or alpha == 0: C = beta * C + bias, then the post-op; A
    // and B are not read.
    static void scale_only(int64_t m, int64_t n, const Output<T> &out) {
        const GemmEpilogue<T> &epi = out.epi;
        for (int64_t i = 0; i < m; ++i) {
            T *cr = out.c + i * out.ldc;
            if (out.beta == T(0))
                for (int64_t j = 0; j < n; ++j) cr[j] = T(0);
            else
                for (int64_t j = 0; j < n; ++j) cr[j] *= out.beta;
            if (epi.bias_kind == GemmBias::per_row)
                for (int64_t j = 0; j < n; ++j) cr[j] += epi.bias[i];
            else if (epi.bias_kind == GemmBias::per_col)
                for (int64_t j = 0; j < n; ++j) cr[j] += epi.bias[j];
        }
        if (epi.post_op != nullptr) epi.post_op(out.c, out.ldc, m, n, 0, 0, epi.post_op_ctx);
    }

    static void run(const ExecContext &ctx, const Operands<T> &op, const Output<T> &out, void *workspace) {
        const int64_t m = op.m, n = op.n, kt = op.k_total();
        if (m <= 0 || n <= 0) return;
        if (kt <= 0 || out.alpha == T(0)) {
            scale_only(m, n, out);
            return;
        }
        using Small = SmallRows<T, typename K::SmallVec, NR>;
        if (Small::applies(op)) {
            Small::run(ctx, op, out, kc_step(kt));
            return;
        }
        const Split s = split(ctx, m, n, kt);
        const auto addr = reinterpret_cast<std::uintptr_t>(workspace);
        T *base = reinterpret_cast<T *>((addr + 63) & ~std::uintptr_t{63});
        const int64_t abuf = a_elems(m, kt), per_part = abuf + b_elems(n, kt);
        const int64_t slivers = s.along_n ? ceil_div(n, NR) : ceil_div(m, MR);
        auto part = [&](int t) {
            const int64_t s0 = slivers * t / s.parts, s1 = slivers * (t + 1) / s.parts;
            T *a = base + t * per_part, *b = a + abuf;
            if (s.along_n) run_part(op, out, 0, m, s0 * NR, imin_(n, s1 * NR), a, b);
            else run_part(op, out, s0 * MR, imin_(m, s1 * MR), 0, n, a, b);
        };
        parallel_workers(s.parts, part);
    }

    static void gemm(const ExecContext &ctx, const GemmArgs<T> &a, void *workspace) {
        const Operands<T> op{a.trans_a, a.trans_b, a.m, a.n, a.k, 1, &a.a, a.lda, &a.b, a.ldb, a.b_packed, a.a_packed};
        run(ctx, op, Output<T>{a.alpha, a.beta, a.c, a.ldc, a.epilogue}, workspace);
    }

    static void brgemm(const ExecContext &ctx, const BrgemmArgs<T> &a, void *workspace) {
        const Operands<T> op{a.trans_a, a.trans_b, a.m, a.n, a.k, a.batch, a.a, a.lda, a.b, a.ldb, a.b_packed,
                             a.a_packed};
        run(ctx, op, Output<T>{a.alpha, a.beta, a.c, a.ldc, a.epilogue}, workspace);
    }
};

}  // namespace gemm_detail

// The kernel table of microkernel K.
template <class K>
constexpr GemmKernels<typename K::type> make_gemm_kernels() {
    using E = gemm_detail::Engine<K>;
    return {{K::MR, K::NR, K::MC, K::KC, K::NC},
            &E::workspace_size,
            &E::gemm,
            &E::brgemm,
            &E::packed_b_size,
            &E::pack_whole_b,
            &E::packed_a_size,
            &E::pack_whole_a,
            &E::pack_whole_b_gather};
}

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
