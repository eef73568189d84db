// Reduce-tensor kernels, compiled once per ISA level.
//
// Accuracy: the sum-like ops (ADD, AVG, NORM1, NORM2, MUL, MUL_NO_ZEROS)
// accumulate in double for every data type and compute type, so before the
// one final rounding to C's type a sum of n terms is within
// n * 2^-53 * sum|a_i| of the exact value (a product: within n * 2^-53 of it,
// relatively). f32, f16 and bf16 results are thus within one unit in the last
// place whenever |sum| >= n * 2^-29 * sum|a_i| (every NORM1/NORM2, and every
// ADD of same-signed terms, up to n = 2^29). MIN, MAX and AMAX are exact.
//
// Determinism: every element's reduced set is cut into blocks whose size and
// count depend only on the problem (split_blocks), each block is folded with
// a fixed lane structure, and the block results are merged in block order;
// threads only decide who computes which block, so results are bitwise the
// same for every thread count.
//
// Compile time: the folds (the vectorized inner loops) are compiled once per
// compute type and kind of fold (5 sums; MIN/MAX/AMAX as one, times the
// index and NaN options), 16-bit storage and strided runs are staged through
// L1 (util/staging.hpp), and the drivers depend on the reducer's value and
// index types only. Compiled per op x NaN option x indices x storage type,
// the same code made this the most expensive unit of the build (47 s).
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/staging.hpp"
#include "cpu/reduce.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

#if defined(ANYDNN_ISA_avx512)
constexpr int kVecDoubles = 8;
#elif defined(ANYDNN_ISA_avx2)
constexpr int kVecDoubles = 4;
#else
constexpr int kVecDoubles = 2;
#endif
// Independent accumulators of a row: four vector registers of doubles, enough
// to hide the latency of the adds.
constexpr int kRowLanes = 4 * kVecDoubles;
// Columns the column kernel accumulates at once (eight vector registers).
constexpr int kColWidth = 8 * kVecDoubles;
// Blocks of a reduced set: at least kBlockElems elements of A each (so a
// thread's share pays for the fork), at most kMaxBlocks of them (the partial
// results of one split element live on the stack).
constexpr int64_t kBlockElems = 16384;
constexpr int64_t kMaxBlocks = 32;
// Elements of C per thread from which threads take whole elements rather
// than sharing each one's blocks.
constexpr int64_t kOutputsPerThread = 4;

// The reducers: the folds' math, one per compute type (In) and kind of
// fold. The op's variants that differ only in cheap per-element work (MIN,
// MAX and AMAX; the NaN option; AVG's and NORM2's finish) are the reducer's
// run-time state rather than template parameters: compiled once per op,
// NaN option, index option and storage type, the same folds made this the
// slowest unit of the build.

// ADD, AVG (add), NORM1 (abs), NORM2 (square), MUL (product), MUL_NO_ZEROS
// (product_nz): a double accumulation of map(a), finished once. The index is
// unused.
enum class SumKind { add, abs, square, product, product_nz };

template <SumKind K, class InT>
struct SumReducer {
    using In = InT;
    using Value = double;
    using Index = int32_t;
    static constexpr bool kIndexed = false;
    static constexpr bool kProduct = K == SumKind::product || K == SumKind::product_nz;
    anydnnReduceTensorOp_t op;  // ADD or AVG for add: finish() only

    Value identity() const { return kProduct ? 1.0 : 0.0; }
    Value map(In in) const {
        const double x = in;
        if constexpr (K == SumKind::abs) return std::fabs(x);
        else if constexpr (K == SumKind::square) return x * x;
        else if constexpr (K == SumKind::product_nz) return x == 0 ? 1.0 : x;
        else return x;
    }
    void merge(Value &v, Index &, Value x, Index) const {
        if constexpr (kProduct) v *= x;
        else v += x;
    }
    double finish(Value v, int64_t n) const {
        if constexpr (K == SumKind::square) return std::sqrt(v);
        else if constexpr (K == SumKind::add) return op == ANYDNN_REDUCE_TENSOR_AVG ? v / static_cast<double>(n) : v;
        else return v;
    }
};

// MIN, MAX, AMAX in the storage type's compute type C, which holds every
// value exactly: all three are a MAX of map(a) = (a & abs) ^ neg on the bits
// (AMAX: abs clears the sign; MIN: neg flips it, as min(a) = -max(-a)
// exactly, signed zeros and ties included), finished by flipping back. A NaN
// wins (propagate) or loses to any number, so an all-NaN set gives NaN
// either way. With Indexed, ties go to the smaller flattened index, which
// makes the merge order-independent: the kernels may visit A in memory order
// (NHWC) and still report the first occurrence.
template <class C, bool Indexed, bool Propagate>
struct SelectReducer {
    using In = C;
    using Value = C;
    using Index = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;  // the lane width of Value
    using Bits = std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>;
    static constexpr bool kIndexed = Indexed;
    Bits abs, neg;
    // The start of a lane, mapped: loses to every element (to a NaN too,
    // through the index tie-break, as its index is the largest).
    Value start;

    static SelectReducer make(anydnnReduceTensorOp_t op) {
        constexpr Bits sign = Bits(1) << (8 * sizeof(C) - 1);
        SelectReducer r{op == ANYDNN_REDUCE_TENSOR_AMAX ? Bits(~sign) : Bits(~Bits(0)),
                        op == ANYDNN_REDUCE_TENSOR_MIN ? sign : Bits(0), 0};
        const C id = !Propagate ? std::numeric_limits<C>::quiet_NaN()
                     : op == ANYDNN_REDUCE_TENSOR_MIN ? std::numeric_limits<C>::infinity()
                                                      : -std::numeric_limits<C>::infinity();
        r.start = from_bits(bits(id) ^ r.neg);
        return r;
    }
    static Bits bits(C x) {
        Bits u;
        std::memcpy(&u, &x, sizeof u);
        return u;
    }
    static C from_bits(Bits u) {
        C x;
        std::memcpy(&x, &u, sizeof x);
        return x;
    }

    Value identity() const { return start; }
    Value map(C x) const { return from_bits((bits(x) & abs) ^ neg); }
    void merge(Value &v, Index &i, Value x, Index xi) const {
        const bool x_nan = x != x, v_nan = v != v;
        bool take = x > v || (Propagate ? (x_nan && !v_nan) : (v_nan && !x_nan));
        if constexpr (Indexed) take = take || ((x == v || (x_nan && v_nan)) && xi < i);
        v = take ? x : v;
        if constexpr (Indexed) i = take ? xi : i;
    }
    double finish(Value v, int64_t) const { return static_cast<double>(from_bits(bits(v) ^ neg)); }
};

template <class I>
constexpr I kNoIndex = std::numeric_limits<I>::max();

// The blocks of a reduced set of n steps of `width` elements each; depends
// on the problem only.
struct Blocks {
    int64_t size, count;
};
inline Blocks split_blocks(int64_t n, int64_t width) {
    int64_t count = (n * width + kBlockElems - 1) / kBlockElems;
    count = count < 1 ? 1 : imin_(count, kMaxBlocks);
    const int64_t size = (n + count - 1) / count;
    return {size, (n + size - 1) / size};
}

// The storage type's part, out of line once per storage type: A's elements
// in the reducer's compute type (staged_in: A itself where it already is
// contiguous in it), and C's results written and blended from doubles.
struct Storage {
    bool direct;  // A holds the compute type: contiguous runs are folded in place
    bool stream;  // A is beyond the cache: runs folded in place are prefetched (fold_row)
    const void *(*stage)(const void *a, int64_t off, int64_t stride, int64_t n, void *buf);
    void (*write)(void *c, int64_t off, int64_t stride, const double *r, int64_t n, double beta);
};

template <class In, class T>
const void *stage_a(const void *a, int64_t off, int64_t stride, int64_t n, void *buf) {
    return staged_in<In>(static_cast<const T *>(a) + off, stride, n, static_cast<In *>(buf));
}

template <class T>
void write_c(void *c, int64_t off, int64_t stride, const double *r, int64_t n, double beta) {
    staged_out(static_cast<T *>(c) + off, stride, r, n, beta, beta != 0, false);
}

// ---- folds: the vectorized inner loops, over float or double ---------------------------------------
//
// The folds and blocks are kept out of line (noinline): each runs over a
// whole run or block, and inlining them into every driver multiplied the
// code and the compile time several times over for nothing.
//
// Instantiated per reducer (a compute type and a kind of fold) only: f16 and
// bf16 data, and strided data, are first widened into an L1 buffer
// (Storage::stage), so the vector code exists once per compute type rather
// than once per storage type and stride pattern.

// Rows of one staged column block.
constexpr int64_t kPackRows = 16;
static_assert(kStage % kRowLanes == 0, "a staged row segment must not cut the lanes");

// Folds p[0, n) (flattened indices i0 + k * si) into the lanes: element k
// goes to lane k % kRowLanes, whatever the run was cut into. Stream: p is
// read from memory (A itself, beyond the cache), and prefetched ahead into
// L2 as it goes (rows of 1000, 256 MiB: 15.5 -> 11.8 ms on 2 cores; in
// cache the prefetches cost 5-10%).
template <class R, bool Stream>
[[gnu::noinline]] void fold_row(const R red, const typename R::In *p, int64_t n, typename R::Index i0,
                                typename R::Index si, typename R::Value *lane_v, typename R::Index *lane_i) {
    using V = typename R::Value;
    using I = typename R::Index;
    V v[kRowLanes];
    I ix[kRowLanes];
    for (int j = 0; j < kRowLanes; ++j) {
        v[j] = lane_v[j];
        ix[j] = lane_i[j];
    }
    int64_t k = 0;
    for (; k + kRowLanes <= n; k += kRowLanes) {
        if constexpr (Stream)
            for (size_t b = 0; b < kRowLanes * sizeof(p[0]); b += 64)
                prefetch_stream(reinterpret_cast<const char *>(p + k) + b);
        const I ik = i0 + static_cast<I>(k) * si;
        for (int j = 0; j < kRowLanes; ++j) red.merge(v[j], ix[j], red.map(p[k + j]), ik + static_cast<I>(j) * si);
    }
    for (int j = 0; k + j < n; ++j) red.merge(v[j], ix[j], red.map(p[k + j]), i0 + static_cast<I>(k + j) * si);
    for (int j = 0; j < kRowLanes; ++j) {
        lane_v[j] = v[j];
        lane_i[j] = ix[j];
    }
}

// Folds `rows` rows of p (row r at p + r * stride, index i0 + r * si) into one
// accumulator per column. W: the column count when it is kColWidth (a
// constant trip count, so the accumulators stay in registers), else 0 and w.
template <class R, int W>
[[gnu::noinline]] void fold_columns(const R red, const typename R::In *p, int64_t rows, int64_t stride,
                                    typename R::Index i0, typename R::Index si, int w, typename R::Value *col_v,
                                    typename R::Index *col_i) {
    using V = typename R::Value;
    using I = typename R::Index;
    constexpr int cap = W > 0 ? W : kColWidth;
    const int cols = W > 0 ? W : w;
    V v[cap];
    I ix[cap];
    for (int k = 0; k < cols; ++k) {
        v[k] = col_v[k];
        ix[k] = col_i[k];
    }
    for (int64_t r = 0; r < rows; ++r) {
        const typename R::In *row = p + r * stride;
        const I ir = i0 + static_cast<I>(r) * si;
        for (int k = 0; k < cols; ++k) red.merge(v[k], ix[k], red.map(row[k]), ir);
    }
    for (int k = 0; k < cols; ++k) {
        col_v[k] = v[k];
        col_i[k] = ix[k];
    }
}

template <class R>
inline void fold_columns_any(const R &red, const typename R::In *p, int64_t rows, int64_t stride,
                             typename R::Index i0, typename R::Index si, int w, typename R::Value *v,
                             typename R::Index *i) {
    if (w == kColWidth) fold_columns<R, kColWidth>(red, p, rows, stride, i0, si, w, v, i);
    else fold_columns<R, 0>(red, p, rows, stride, i0, si, w, v, i);
}

template <class R>
inline void start_lanes(const R &red, typename R::Value *v, typename R::Index *i, int n) {
    for (int k = 0; k < n; ++k) {
        v[k] = red.identity();
        i[k] = kNoIndex<typename R::Index>;
    }
}

// A reducer's pieces, out of line once per reducer, for the drivers, which
// depend on its Value and Index types only (instantiated 3 times, not once
// per reducer).
template <class V, class I>
struct Reduction {
    const void *reducer;
    V identity;
    bool indexed;
    void (*row_block)(const void *, const Storage &, const void *, int64_t, const StridedLoop &, int64_t, int64_t,
                      V &, I &);
    void (*column_block)(const void *, const Storage &, const void *, int64_t, const StridedLoop &, int64_t, int64_t,
                         int, V *, I *);
    void (*merge)(const void *, int, V *, I *, const V *, const I *);
    void (*finish)(const void *, int, const V *, int64_t, double, double *);
};

template <class V, class I>
inline void start_results(const Reduction<V, I> &f, V *v, I *i, int n) {
    for (int k = 0; k < n; ++k) {
        v[k] = f.identity;
        i[k] = kNoIndex<I>;
    }
}

// C = alpha * finish(v) + beta * C for w elements of C, element k at C
// offset c_off + k * sc and indices position i_off + k * si.
template <class V, class I>
void write_results(const ReduceArgs &a, const Reduction<V, I> &f, const Storage &st, int64_t c_off, int64_t sc,
                   int64_t i_off, int64_t si, int w, const V *v, const I *ix, int64_t n) {
    double r[kColWidth];
    f.finish(f.reducer, w, v, n, a.alpha, r);
    st.write(a.c, c_off, sc, r, w, a.beta);
    if (f.indexed)
        for (int k = 0; k < w; ++k) a.indices[i_off + k * si] = static_cast<uint32_t>(ix[k]);
}

// ---- rows: one element of C at a time, its reduced set walked run by run --------------------------

// Folds the steps [begin, end) of the reduced loop L, relative to A offset
// a_off, into (v, i): kRowLanes interleaved lanes, then the lanes pairwise.
template <class R>
void row_block(const void *reducer, const Storage &st, const void *a, int64_t a_off, const StridedLoop &L,
               int64_t begin, int64_t end, typename R::Value &v_out, typename R::Index &i_out) {
    using V = typename R::Value;
    using I = typename R::Index;
    using In = typename R::In;
    const R &red = *static_cast<const R *>(reducer);
    V v[kRowLanes];
    I ix[kRowLanes];
    start_lanes(red, v, ix, kRowLanes);
    const int64_t sa = L.inner_stride(0);
    const I si = static_cast<I>(L.inner_stride(1));
    for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
        const int64_t p = a_off + off[0];
        const I i0 = static_cast<I>(off[1]);
        if (st.direct && sa == 1) {
            if (st.stream) fold_row<R, true>(red, static_cast<const In *>(a) + p, n, i0, si, v, ix);
            else fold_row<R, false>(red, static_cast<const In *>(a) + p, n, i0, si, v, ix);
            return;
        }
        alignas(64) In buf[kStage];
        for (int64_t k = 0; k < n; k += kStage) {
            const int64_t len = imin_(kStage, n - k);
            const In *q = static_cast<const In *>(st.stage(a, p + k * sa, sa, len, buf));
            fold_row<R, false>(red, q, len, i0 + static_cast<I>(k) * si, si, v, ix);
        }
    });
    for (int w = kRowLanes / 2; w > 0; w /= 2)
        for (int j = 0; j < w; ++j) red.merge(v[j], ix[j], v[j + w], ix[j + w]);
    v_out = v[0];
    i_out = ix[0];
}

template <class V, class I>
void rows_driver(const ExecContext &ctx, const ReduceArgs &a, const Reduction<V, I> &f, const Storage &st) {
    const StridedLoop &K = a.kept, &L = a.reduced;
    const int64_t m = K.total(), n = L.total();
    const Blocks B = split_blocks(n, 1);
    const int64_t ska = K.inner_stride(0), skc = K.inner_stride(1), ski = K.inner_stride(2);
    auto block = [&](int64_t a_off, int64_t b, V &v, I &i) {
        f.row_block(f.reducer, st, a.a, a_off, L, b * B.size, imin_(n, (b + 1) * B.size), v, i);
    };
    if (B.count == 1 || m >= kOutputsPerThread * ctx.threads) {
        const int64_t grain = imin_(m, 1 + kElementwiseGrain / n);
        parallel_ranges(ctx, m, grain, [&](int64_t begin, int64_t end) {
            for_each_run(K, begin, end, [&](const int64_t *off, int64_t len) {
                for (int64_t e = 0; e < len; ++e) {
                    V v;
                    I i;
                    start_results(f, &v, &i, 1);
                    for (int64_t b = 0; b < B.count; ++b) {
                        V bv;
                        I bi;
                        block(off[0] + e * ska, b, bv, bi);
                        f.merge(f.reducer, 1, &v, &i, &bv, &bi);
                    }
                    write_results(a, f, st, off[1] + e * skc, 0, off[2] + e * ski, 0, 1, &v, &i, n);
                }
            });
        });
        return;
    }
    // Few elements, long reductions: the threads share each element's blocks,
    // whose results are then merged in block order as above.
    for (int64_t e = 0; e < m; ++e) {
        for_each_run(K, e, e + 1, [&](const int64_t *off, int64_t) {
            // Value-initialized only to spare the compiler's uninitialized-use
            // analysis, which cannot see that the threads fill every block.
            V pv[kMaxBlocks] = {};
            I pi[kMaxBlocks] = {};
            parallel_ranges(ctx, B.count, 1, [&](int64_t b0, int64_t b1) {
                for (int64_t b = b0; b < b1; ++b) block(off[0], b, pv[b], pi[b]);
            });
            V v;
            I i;
            start_results(f, &v, &i, 1);
            for (int64_t b = 0; b < B.count; ++b) f.merge(f.reducer, 1, &v, &i, &pv[b], &pi[b]);
            write_results(a, f, st, off[1], 0, off[2], 0, 1, &v, &i, n);
        });
    }
}

// ---- columns: kColWidth neighbouring elements of C at a time, contiguous in A --------------------

// Folds the steps [begin, end) of the reduced loop L into one accumulator per
// column: column k of step s is A[a_off + off(s) + k], k < w.
template <class R>
void column_block(const void *reducer, const Storage &st, const void *a, int64_t a_off, const StridedLoop &L,
                  int64_t begin, int64_t end, int w, typename R::Value *v_out, typename R::Index *i_out) {
    using V = typename R::Value;
    using I = typename R::Index;
    using In = typename R::In;
    const R &red = *static_cast<const R *>(reducer);
    V v[kColWidth];
    I ix[kColWidth];
    start_lanes(red, v, ix, w);
    const int64_t sa = L.inner_stride(0);
    const I si = static_cast<I>(L.inner_stride(1));
    for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
        const int64_t p = a_off + off[0];
        const I i0 = static_cast<I>(off[1]);
        if (st.direct) {
            fold_columns_any(red, static_cast<const In *>(a) + p, n, sa, i0, si, w, v, ix);
            return;
        }
        alignas(64) In buf[kPackRows * kColWidth];
        for (int64_t r0 = 0; r0 < n; r0 += kPackRows) {
            const int64_t rows = imin_(kPackRows, n - r0);
            for (int64_t r = 0; r < rows; ++r) st.stage(a, p + (r0 + r) * sa, 1, w, buf + r * kColWidth);
            fold_columns_any(red, buf, rows, kColWidth, i0 + static_cast<I>(r0) * si, si, w, v, ix);
        }
    });
    for (int k = 0; k < w; ++k) {
        v_out[k] = v[k];
        i_out[k] = ix[k];
    }
}

// Merges w block results (bv, bi) into (v, i).
template <class R>
void merge_results(const void *reducer, int w, typename R::Value *v, typename R::Index *i,
                   const typename R::Value *bv, const typename R::Index *bi) {
    const R &red = *static_cast<const R *>(reducer);
    for (int k = 0; k < w; ++k) red.merge(v[k], i[k], bv[k], bi[k]);
}

// r = alpha * finish(v) for w results of n elements each.
template <class R>
void finish_results(const void *reducer, int w, const typename R::Value *v, int64_t n, double alpha, double *r) {
    const R &red = *static_cast<const R *>(reducer);
    for (int k = 0; k < w; ++k) r[k] = alpha * red.finish(v[k], n);
}

template <class V, class I>
void columns_driver(const ExecContext &ctx, const ReduceArgs &a, const Reduction<V, I> &f, const Storage &st) {
    const StridedLoop &K = a.kept, &L = a.reduced;
    const int64_t cols = K.inner(), rows = K.total() / cols, n = L.total();
    const int64_t chunks = (cols + kColWidth - 1) / kColWidth, items = rows * chunks;
    const Blocks B = split_blocks(n, imin_(cols, kColWidth));
    const int64_t skc = K.inner_stride(1), ski = K.inner_stride(2);
    auto block = [&](int64_t a_off, int w, int64_t b, V *v, I *i) {
        f.column_block(f.reducer, st, a.a, a_off, L, b * B.size, imin_(n, (b + 1) * B.size), w, v, i);
    };
    // Item t: chunk t % chunks of kept row t / chunks; off = its first element's offsets.
    auto with_item = [&](int64_t t, auto &&fn) {
        const int64_t first = (t / chunks) * cols + (t % chunks) * kColWidth;
        const int w = static_cast<int>(imin_(kColWidth, cols - (t % chunks) * kColWidth));
        for_each_run(K, first, first + w, [&](const int64_t *off, int64_t) { fn(off, w); });
    };
    if (B.count == 1 || items >= kOutputsPerThread * ctx.threads) {
        const int64_t grain = imin_(items, 1 + kElementwiseGrain / (n * imin_(cols, kColWidth)));
        parallel_ranges(ctx, items, grain, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t)
                with_item(t, [&](const int64_t *off, int w) {
                    V v[kColWidth], bv[kColWidth];
                    I i[kColWidth], bi[kColWidth];
                    start_results(f, v, i, w);
                    for (int64_t b = 0; b < B.count; ++b) {
                        block(off[0], w, b, bv, bi);
                        f.merge(f.reducer, w, v, i, bv, bi);
                    }
                    write_results(a, f, st, off[1], skc, off[2], ski, w, v, i, n);
                });
        });
        return;
    }
    // Few columns, many rows: the threads share each chunk's blocks.
    for (int64_t t = 0; t < items; ++t)
        with_item(t, [&](const int64_t *off, int w) {
            V pv[kMaxBlocks][kColWidth] = {}, v[kColWidth];  // = {}: as in rows_driver
            I pi[kMaxBlocks][kColWidth] = {}, i[kColWidth];
            parallel_ranges(ctx, B.count, 1, [&](int64_t b0, int64_t b1) {
                for (int64_t b = b0; b < b1; ++b) block(off[0], w, b, pv[b], pi[b]);
            });
            start_results(f, v, i, w);
            for (int64_t b = 0; b < B.count; ++b) f.merge(f.reducer, w, v, i, pv[b], pi[b]);
            write_results(a, f, st, off[1], skc, off[2], ski, w, v, i, n);
        });
}

// ---- dispatch ---------------------------------------------------------------------------------

// Calls fn(reducer) with the reducer of a's op, NaN option and indices for
// compute type In.
template <class In, class Fn>
void visit_reducer(const ReduceArgs &a, Fn &&fn) {
    switch (a.op) {
    case ANYDNN_REDUCE_TENSOR_ADD:
    case ANYDNN_REDUCE_TENSOR_AVG: fn(SumReducer<SumKind::add, In>{a.op}); break;
    case ANYDNN_REDUCE_TENSOR_NORM1: fn(SumReducer<SumKind::abs, In>{a.op}); break;
    case ANYDNN_REDUCE_TENSOR_NORM2: fn(SumReducer<SumKind::square, In>{a.op}); break;
    case ANYDNN_REDUCE_TENSOR_MUL: fn(SumReducer<SumKind::product, In>{a.op}); break;
    case ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS: fn(SumReducer<SumKind::product_nz, In>{a.op}); break;
    case ANYDNN_REDUCE_TENSOR_MIN:
    case ANYDNN_REDUCE_TENSOR_MAX:
    case ANYDNN_REDUCE_TENSOR_AMAX:
        // The NaN option stays a template parameter: at run time it cost
        // the in-cache folds a third of their speed.
        if (a.indices) {
            if (a.propagate_nan) fn(SelectReducer<In, true, true>::make(a.op));
            else fn(SelectReducer<In, true, false>::make(a.op));
        } else {
            if (a.propagate_nan) fn(SelectReducer<In, false, true>::make(a.op));
            else fn(SelectReducer<In, false, false>::make(a.op));
        }
        break;
    }
}

// Calls driver(reduction, storage) for a's data type and reducer.
template <class Driver>
void dispatch(const ReduceArgs &a, Driver &&driver) {
    auto with = [&](const Storage &st, auto in_tag) {
        using In = typename decltype(in_tag)::type;
        visit_reducer<In>(a, [&](const auto &red) {
            using R = std::remove_cvref_t<decltype(red)>;
            using V = typename R::Value;
            using I = typename R::Index;
            driver(Reduction<V, I>{&red, red.identity(), R::kIndexed, row_block<R>, column_block<R>,
                                   merge_results<R>, finish_results<R>},
                   st);
        });
    };
    visit_float_dtype(a.dt, [&](auto ttag) {
        using T = typename decltype(ttag)::type;
        using In = compute_t<T>;
        const int64_t a_bytes = a.kept.total() * a.reduced.total() * int64_t(sizeof(T));
        with(Storage{std::is_same_v<T, In>, a_bytes >= kStreamingMinBytes, stage_a<In, T>, write_c<T>}, TypeTag<In>{});
    });
}

void rows(const ExecContext &ctx, const ReduceArgs &a) {
    dispatch(a, [&](const auto &f, const Storage &st) { rows_driver(ctx, a, f, st); });
}

void columns(const ExecContext &ctx, const ReduceArgs &a) {
    dispatch(a, [&](const auto &f, const Storage &st) { columns_driver(ctx, a, f, st); });
}

}  // namespace

extern const ReduceKernels reduce = {rows, columns};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
