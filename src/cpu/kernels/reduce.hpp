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
#include "cpu/kernels/util/common.hpp"
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

// ADD, AVG, NORM1, NORM2, MUL, MUL_NO_ZEROS: a double accumulation of
// map(a), finished once. The index is unused.
template <anydnnReduceTensorOp_t Op>
struct SumReducer {
    using Value = double;
    using Index = int32_t;
    static constexpr bool kIndexed = false;
    static constexpr bool kProduct = Op == ANYDNN_REDUCE_TENSOR_MUL || Op == ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS;

    static Value identity() { return kProduct ? 1.0 : 0.0; }
    static Value map(double x) {
        if constexpr (Op == ANYDNN_REDUCE_TENSOR_NORM1) return std::fabs(x);
        else if constexpr (Op == ANYDNN_REDUCE_TENSOR_NORM2) return x * x;
        else if constexpr (Op == ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS) return x == 0 ? 1.0 : x;
        else return x;
    }
    static void merge(Value &v, Index &, Value x, Index) {
        if constexpr (kProduct) v *= x;
        else v += x;
    }
    static double finish(Value v, int64_t n) {
        if constexpr (Op == ANYDNN_REDUCE_TENSOR_AVG) return v / static_cast<double>(n);
        else if constexpr (Op == ANYDNN_REDUCE_TENSOR_NORM2) return std::sqrt(v);
        else return v;
    }
};

// MIN, MAX, AMAX (on |a|) in the storage type's compute type, which holds
// every value exactly. A NaN wins (PropagateNan) or loses to any number, so an
// all-NaN set gives NaN either way. With Indexed, ties go to the smaller
// flattened index, which makes the merge order-independent: the kernels may
// visit A in memory order (NHWC) and still report the first occurrence.
template <anydnnReduceTensorOp_t Op, bool PropagateNan, bool Indexed, class C>
struct SelectReducer {
    using Value = C;
    using Index = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;  // the lane width of Value
    static constexpr bool kIndexed = Indexed;

    // The start of a lane: loses to every element (to a NaN too, through the
    // index tie-break, as its index is the largest).
    static Value identity() {
        if constexpr (!PropagateNan) return std::numeric_limits<C>::quiet_NaN();
        else if constexpr (Op == ANYDNN_REDUCE_TENSOR_MIN) return std::numeric_limits<C>::infinity();
        else return -std::numeric_limits<C>::infinity();
    }
    static Value map(C x) {
        if constexpr (Op == ANYDNN_REDUCE_TENSOR_AMAX) return std::fabs(x);
        else return x;
    }
    static void merge(Value &v, Index &i, Value x, Index xi) {
        const bool x_nan = x != x, v_nan = v != v;
        const bool ordered = Op == ANYDNN_REDUCE_TENSOR_MIN ? x < v : x > v;
        const bool better = ordered || (PropagateNan ? (x_nan && !v_nan) : (v_nan && !x_nan));
        bool take = better;
        if constexpr (Indexed) take = better || ((x == v || (x_nan && v_nan)) && xi < i);
        v = take ? x : v;
        if constexpr (Indexed) i = take ? xi : i;
    }
    static double finish(Value v, int64_t) { return static_cast<double>(v); }
};

template <class R>
constexpr typename R::Index kNoIndex = std::numeric_limits<typename R::Index>::max();

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

// C = alpha * finish(v) + beta * C for w elements of C, element k at C
// offset c_off + k * sc and indices position i_off + k * si.
template <class R, class T>
[[gnu::noinline]] void write_results(const ReduceArgs &a, int64_t c_off, int64_t sc, int64_t i_off, int64_t si,
                                     int w, const typename R::Value *v, const typename R::Index *ix, int64_t n) {
    T *c = static_cast<T *>(a.c) + c_off;
    for (int k = 0; k < w; ++k) {
        const double r = a.alpha * R::finish(v[k], n);
        store(c + k * sc, a.beta == 0 ? r : r + a.beta * load<double>(c + k * sc));
        if constexpr (R::kIndexed) a.indices[i_off + k * si] = static_cast<uint32_t>(ix[k]);
    }
}

// ---- folds: the vectorized inner loops, over float or double ---------------------------------------
//
// The folds and blocks are kept out of line (noinline): each runs over a
// whole run or block, and inlining them into every driver multiplied the
// code and the compile time several times over for nothing.
//
// Instantiated per reducer and In (float or double) only: f16 and bf16 data,
// and strided data, are first widened into a small buffer (pack), so the
// vector code exists once per compute type rather than once per storage type
// and stride pattern.

// Elements of one packed row segment, and rows of one packed column block.
constexpr int64_t kPackElems = 512;
constexpr int64_t kPackRows = 16;

template <class T, class In>
inline void pack(const T *p, int64_t stride, int64_t n, In *out) {
    if (stride == 1)
        for (int64_t i = 0; i < n; ++i) out[i] = load<In>(p + i);
    else
        for (int64_t i = 0; i < n; ++i) out[i] = load<In>(p + i * stride);
}

// Folds p[0, n) (flattened indices i0 + k * si) into the lanes: element k
// goes to lane k % kRowLanes, whatever the run was cut into.
template <class R, class In>
[[gnu::noinline]] void fold_row(const In *p, int64_t n, typename R::Index i0, typename R::Index si,
                                typename R::Value *lane_v, typename R::Index *lane_i) {
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
        const I ik = i0 + static_cast<I>(k) * si;
        for (int j = 0; j < kRowLanes; ++j)
            R::merge(v[j], ix[j], R::map(static_cast<V>(p[k + j])), ik + static_cast<I>(j) * si);
    }
    for (int j = 0; k + j < n; ++j)
        R::merge(v[j], ix[j], R::map(static_cast<V>(p[k + j])), i0 + static_cast<I>(k + j) * si);
    for (int j = 0; j < kRowLanes; ++j) {
        lane_v[j] = v[j];
        lane_i[j] = ix[j];
    }
}

// Folds `rows` rows of p (row r at p + r * stride, index i0 + r * si) into one
// accumulator per column. W: the column count when it is kColWidth (a
// constant trip count, so the accumulators stay in registers), else 0 and w.
template <class R, class In, int W>
[[gnu::noinline]] void fold_columns(const In *p, int64_t rows, int64_t stride, typename R::Index i0,
                                    typename R::Index si, int w, typename R::Value *col_v,
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
        const In *row = p + r * stride;
        const I ir = i0 + static_cast<I>(r) * si;
        for (int k = 0; k < cols; ++k) R::merge(v[k], ix[k], R::map(static_cast<V>(row[k])), ir);
    }
    for (int k = 0; k < cols; ++k) {
        col_v[k] = v[k];
        col_i[k] = ix[k];
    }
}

template <class R, class In>
inline void fold_columns_any(const In *p, int64_t rows, int64_t stride, typename R::Index i0, typename R::Index si,
                             int w, typename R::Value *v, typename R::Index *i) {
    if (w == kColWidth) fold_columns<R, In, kColWidth>(p, rows, stride, i0, si, w, v, i);
    else fold_columns<R, In, 0>(p, rows, stride, i0, si, w, v, i);
}

template <class R>
inline void start_lanes(typename R::Value *v, typename R::Index *i, int n) {
    for (int k = 0; k < n; ++k) {
        v[k] = R::identity();
        i[k] = kNoIndex<R>;
    }
}

// ---- rows: one element of C at a time, its reduced set walked run by run --------------------------

// Folds the steps [begin, end) of the reduced loop L, relative to A offset
// a_off, into (v, i): kRowLanes interleaved lanes, then the lanes pairwise.
template <class R, class T>
[[gnu::noinline]] void row_block(const void *a_base, int64_t a_off, const StridedLoop &L, int64_t begin,
                                 int64_t end, typename R::Value &v_out, typename R::Index &i_out) {
    using V = typename R::Value;
    using I = typename R::Index;
    using In = compute_t<T>;
    const T *a = static_cast<const T *>(a_base) + a_off;
    V v[kRowLanes];
    I ix[kRowLanes];
    start_lanes<R>(v, ix, kRowLanes);
    const int64_t sa = L.inner_stride(0);
    const I si = static_cast<I>(L.inner_stride(1));
    for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
        const T *p = a + off[0];
        const I i0 = static_cast<I>(off[1]);
        if constexpr (std::is_same_v<T, In>) {
            if (sa == 1) {
                fold_row<R, In>(p, n, i0, si, v, ix);
                return;
            }
        }
        In buf[kPackElems];  // a multiple of kRowLanes: the lanes see the run uncut
        for (int64_t k = 0; k < n; k += kPackElems) {
            const int64_t len = imin_(kPackElems, n - k);
            pack(p + k * sa, sa, len, buf);
            fold_row<R, In>(buf, len, i0 + static_cast<I>(k) * si, si, v, ix);
        }
    });
    for (int w = kRowLanes / 2; w > 0; w /= 2)
        for (int j = 0; j < w; ++j) R::merge(v[j], ix[j], v[j + w], ix[j + w]);
    v_out = v[0];
    i_out = ix[0];
}

// The storage-type-specific pieces of a driver; the drivers themselves are
// instantiated per reducer only.
template <class R>
struct TypedFns {
    using V = typename R::Value;
    using I = typename R::Index;
    void (*row_block)(const void *, int64_t, const StridedLoop &, int64_t, int64_t, V &, I &);
    void (*column_block)(const void *, int64_t, const StridedLoop &, int64_t, int64_t, int, V *, I *);
    void (*write)(const ReduceArgs &, int64_t, int64_t, int64_t, int64_t, int, const V *, const I *, int64_t);
};

template <class R>
void rows_driver(const ExecContext &ctx, const ReduceArgs &a, const TypedFns<R> &fns) {
    using V = typename R::Value;
    using I = typename R::Index;
    const StridedLoop &K = a.kept, &L = a.reduced;
    const int64_t m = K.total(), n = L.total();
    const Blocks B = split_blocks(n, 1);
    const int64_t ska = K.inner_stride(0), skc = K.inner_stride(1), ski = K.inner_stride(2);
    auto block = [&](int64_t a_off, int64_t b, V &v, I &i) {
        fns.row_block(a.a, a_off, L, b * B.size, imin_(n, (b + 1) * B.size), v, i);
    };
    if (B.count == 1 || m >= kOutputsPerThread * ctx.threads) {
        const int64_t grain = imin_(m, 1 + kElementwiseGrain / n);
        parallel_ranges(ctx, m, grain, [&](int64_t begin, int64_t end) {
            for_each_run(K, begin, end, [&](const int64_t *off, int64_t len) {
                for (int64_t e = 0; e < len; ++e) {
                    V v = R::identity();
                    I i = kNoIndex<R>;
                    for (int64_t b = 0; b < B.count; ++b) {
                        V bv;
                        I bi;
                        block(off[0] + e * ska, b, bv, bi);
                        R::merge(v, i, bv, bi);
                    }
                    fns.write(a, off[1] + e * skc, 0, off[2] + e * ski, 0, 1, &v, &i, n);
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
            V v = R::identity();
            I i = kNoIndex<R>;
            for (int64_t b = 0; b < B.count; ++b) R::merge(v, i, pv[b], pi[b]);
            fns.write(a, off[1], 0, off[2], 0, 1, &v, &i, n);
        });
    }
}

// ---- columns: kColWidth neighbouring elements of C at a time, contiguous in A --------------------

// Folds the steps [begin, end) of the reduced loop L into one accumulator per
// column: column k of step s is A[a_off + off(s) + k], k < w.
template <class R, class T>
[[gnu::noinline]] void column_block(const void *a_base, int64_t a_off, const StridedLoop &L, int64_t begin,
                                    int64_t end, int w, typename R::Value *v_out, typename R::Index *i_out) {
    using V = typename R::Value;
    using I = typename R::Index;
    using In = compute_t<T>;
    const T *a = static_cast<const T *>(a_base) + a_off;
    V v[kColWidth];
    I ix[kColWidth];
    start_lanes<R>(v, ix, w);
    const int64_t sa = L.inner_stride(0);
    const I si = static_cast<I>(L.inner_stride(1));
    for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
        const T *p = a + off[0];
        const I i0 = static_cast<I>(off[1]);
        if constexpr (std::is_same_v<T, In>) {
            fold_columns_any<R, In>(p, n, sa, i0, si, w, v, ix);
        } else {
            In buf[kPackRows * kColWidth];
            for (int64_t r0 = 0; r0 < n; r0 += kPackRows) {
                const int64_t rows = imin_(kPackRows, n - r0);
                for (int64_t r = 0; r < rows; ++r) pack(p + (r0 + r) * sa, 1, w, buf + r * kColWidth);
                fold_columns_any<R, In>(buf, rows, kColWidth, i0 + static_cast<I>(r0) * si, si, w, v, ix);
            }
        }
    });
    for (int k = 0; k < w; ++k) {
        v_out[k] = v[k];
        i_out[k] = ix[k];
    }
}

// Merges w block results (bv, bi) into (v, i).
template <class R>
[[gnu::noinline]] void merge_columns(int w, typename R::Value *v, typename R::Index *i,
                                     const typename R::Value *bv, const typename R::Index *bi) {
    for (int k = 0; k < w; ++k) R::merge(v[k], i[k], bv[k], bi[k]);
}

template <class R>
void columns_driver(const ExecContext &ctx, const ReduceArgs &a, const TypedFns<R> &fns) {
    using V = typename R::Value;
    using I = typename R::Index;
    const StridedLoop &K = a.kept, &L = a.reduced;
    const int64_t cols = K.inner(), rows = K.total() / cols, n = L.total();
    const int64_t chunks = (cols + kColWidth - 1) / kColWidth, items = rows * chunks;
    const Blocks B = split_blocks(n, imin_(cols, kColWidth));
    const int64_t skc = K.inner_stride(1), ski = K.inner_stride(2);
    auto block = [&](int64_t a_off, int w, int64_t b, V *v, I *i) {
        fns.column_block(a.a, a_off, L, b * B.size, imin_(n, (b + 1) * B.size), w, v, i);
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
                    start_lanes<R>(v, i, w);
                    for (int64_t b = 0; b < B.count; ++b) {
                        block(off[0], w, b, bv, bi);
                        merge_columns<R>(w, v, i, bv, bi);
                    }
                    fns.write(a, off[1], skc, off[2], ski, w, v, i, n);
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
            start_lanes<R>(v, i, w);
            for (int64_t b = 0; b < B.count; ++b) merge_columns<R>(w, v, i, pv[b], pi[b]);
            fns.write(a, off[1], skc, off[2], ski, w, v, i, n);
        });
}

// ---- dispatch ---------------------------------------------------------------------------------

// Calls fn(TypeTag<R>{}) with the reducer of a's op, NaN option and indices
// for storage type T.
template <class T, class Fn>
void visit_reducer(const ReduceArgs &a, Fn &&fn) {
    using C = compute_t<T>;
    auto select = [&](auto op) {
        constexpr anydnnReduceTensorOp_t Op = decltype(op)::value;
        const bool indexed = a.indices != nullptr;
        if (a.propagate_nan) {
            if (indexed) fn(TypeTag<SelectReducer<Op, true, true, C>>{});
            else fn(TypeTag<SelectReducer<Op, true, false, C>>{});
        } else {
            if (indexed) fn(TypeTag<SelectReducer<Op, false, true, C>>{});
            else fn(TypeTag<SelectReducer<Op, false, false, C>>{});
        }
    };
    using Min = std::integral_constant<anydnnReduceTensorOp_t, ANYDNN_REDUCE_TENSOR_MIN>;
    using Max = std::integral_constant<anydnnReduceTensorOp_t, ANYDNN_REDUCE_TENSOR_MAX>;
    using Amax = std::integral_constant<anydnnReduceTensorOp_t, ANYDNN_REDUCE_TENSOR_AMAX>;
    switch (a.op) {
    case ANYDNN_REDUCE_TENSOR_ADD: fn(TypeTag<SumReducer<ANYDNN_REDUCE_TENSOR_ADD>>{}); break;
    case ANYDNN_REDUCE_TENSOR_MUL: fn(TypeTag<SumReducer<ANYDNN_REDUCE_TENSOR_MUL>>{}); break;
    case ANYDNN_REDUCE_TENSOR_AVG: fn(TypeTag<SumReducer<ANYDNN_REDUCE_TENSOR_AVG>>{}); break;
    case ANYDNN_REDUCE_TENSOR_NORM1: fn(TypeTag<SumReducer<ANYDNN_REDUCE_TENSOR_NORM1>>{}); break;
    case ANYDNN_REDUCE_TENSOR_NORM2: fn(TypeTag<SumReducer<ANYDNN_REDUCE_TENSOR_NORM2>>{}); break;
    case ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS: fn(TypeTag<SumReducer<ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS>>{}); break;
    case ANYDNN_REDUCE_TENSOR_MIN: select(Min{}); break;
    case ANYDNN_REDUCE_TENSOR_MAX: select(Max{}); break;
    case ANYDNN_REDUCE_TENSOR_AMAX: select(Amax{}); break;
    }
}

// Calls driver(TypedFns<R>) for a's data type and reducer.
template <class Driver>
void dispatch(const ReduceArgs &a, Driver &&driver) {
    visit_float_dtype(a.dt, [&](auto ttag) {
        using T = typename decltype(ttag)::type;
        visit_reducer<T>(a, [&](auto rtag) {
            using R = typename decltype(rtag)::type;
            driver(TypedFns<R>{row_block<R, T>, column_block<R, T>, write_results<R, T>});
        });
    });
}

void rows(const ExecContext &ctx, const ReduceArgs &a) {
    dispatch(a, [&](const auto &fns) { rows_driver(ctx, a, fns); });
}

void columns(const ExecContext &ctx, const ReduceArgs &a) {
    dispatch(a, [&](const auto &fns) { columns_driver(ctx, a, fns); });
}

}  // namespace

extern const ReduceKernels reduce = {rows, columns};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
